/* check_record.c -- each case's outcome, kept for the machine-readable
   reports (--format json, --junit): every case of a variant in scope (all,
   or the one of --variant) is judged once more against its own variant at
   the declared dtype, without printing, keeping its
   status, the comparisons of its outputs and the lines the text report
   prints for it (FAIL and NOTE lines, a rejection under another name).  */

#include <stdio.h>
#include <stdlib.h>
#include <jansson.h>

#include "check_impl.h"

/* Judge every case against its own variant once more, keeping its status,
   its comparisons and its report lines; 0, or 2 without memory.  */
int
ck_record_cases (ctx *c)
{
  FILE *saved = c->out, *m;
  int verbose = c->verbose;
  char *buf;
  size_t len, i;
  c->verbose = 0;
  for (i = 0; i < c->ncases && !c->oom; i++)
    {
      gcase *k = &c->cases[i];
      if (!ck_in_scope (c, &c->vars[k->var]))
        continue;
      buf = NULL;
      len = 0;
      m = open_memstream (&buf, &len);
      k->elems = json_array ();
      if (m == NULL || k->elems == NULL)
        {
          if (m != NULL && fclose (m) == 0)
            free (buf);
          c->oom = 1;
          break;
        }
      c->out = m;
      c->rec = k->elems;
      k->st = ck_judge_case (c, k, 1);
      c->rec = NULL;
      c->out = saved;
      if (fclose (m) != 0)
        c->oom = 1;
      else
        k->msg = buf;
    }
  c->out = saved;
  c->verbose = verbose;
  return c->oom ? ck_bad (c->cpath, "out of memory") : 0;
}

/* Free what ck_record_cases kept.  */
void
ck_record_free (ctx *c)
{
  for (size_t i = 0; i < c->ncases; i++)
    {
      json_decref (c->cases[i].elems);
      free (c->cases[i].msg);
      c->cases[i].elems = NULL;
      c->cases[i].msg = NULL;
    }
}
