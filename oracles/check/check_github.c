/* check_github.c -- "rlref check --format github": the verdict as GitHub
   workflow annotations on standard output, rendered from the record.

   One "::error file=GOLDEN,title=...::LINE" per failing element or case of
   the variants judged; per part, the verdict as "::notice" when the
   candidate follows its variant and "::error" otherwise, the explanation
   in the same message, and the input validation as "::warning" ("::error"
   with --strict); then the closing line "N passed, M failed".  Messages
   are escaped as the workflow commands require (% CR LF; in properties
   also : and ,).  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "check_impl.h"

/* Write s to f escaped for a workflow command: its message (prop 0) or a
   property value (prop 1).  */
static void
escaped (FILE *f, const char *s, int prop)
{
  for (; *s; s++)
    switch (*s)
      {
      case '%': fputs ("%25", f); break;
      case '\r': fputs ("%0D", f); break;
      case '\n': fputs ("%0A", f); break;
      case ':': fputs (prop ? "%3A" : ":", f); break;
      case ',': fputs (prop ? "%2C" : ",", f); break;
      default: putc (*s, f);
      }
}

/* Write one annotation of kind kind with title title and message msg.  */
static void
annotation (const ctx *c, FILE *f, const char *kind, const char *title, const char *msg)
{
  fprintf (f, "::%s file=", kind);
  escaped (f, c->gpath, 1);
  fputs (",title=", f);
  escaped (f, title, 1);
  fputs ("::", f);
  escaped (f, msg, 0);
  putc ('\n', f);
}

/* Annotate each line of the text text as an error titled title.  */
static void
each_line (const ctx *c, FILE *f, const char *title, char *text)
{
  char *save = NULL;
  for (char *l = strtok_r (text, "\n", &save); l != NULL; l = strtok_r (NULL, "\n", &save))
    annotation (c, f, "error", title, l);
}

/* Write GitHub workflow annotations to standard output; 0 or 2.  */
int
ck_write_github (ctx *c)
{
  const char *formula = json_string_value (json_object_get (c->golden, "formula"));
  char title[160], *s;
  FILE *f = stdout;
  if (formula == NULL)
    formula = "golden";
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      if (!ck_counted (c, k) || !ck_in_scope (c, &c->vars[k->var])
          || (k->kind == K_INVALID && !c->strict))
        continue;
      if ((s = ck_case_text (c, k, 0)) == NULL)
        return ck_bad (c->cpath, "out of memory");
      snprintf (title, sizeof title, "rlref check %.40s tcId %" JSON_INTEGER_FORMAT,
                formula, k->tcid);
      each_line (c, f, title, s);
      free (s);
    }
  snprintf (title, sizeof title, "rlref check %.40s", formula);
  for (size_t p = 0; p < c->nparts; p++)
    {
      const variant *a = ck_answer (c, p);
      const char *why = ck_explain_line (c, p);
      char *line, *msg;
      size_t n;
      if (c->parts[p].norder == 0)
        continue;
      if ((line = ck_verdict_line (c, p)) == NULL)
        return ck_bad (c->cpath, "out of memory");
      n = strlen (line) + (why != NULL ? strlen (why) + 2 : 0) + 1;
      if ((msg = malloc (n)) == NULL)
        {
          free (line);
          return ck_bad (c->cpath, "out of memory");
        }
      snprintf (msg, n, "%s%s%s", line, why != NULL ? "\n" : "", why != NULL ? why : "");
      annotation (c, f, a != NULL && a->cls == C_MATCH ? "notice" : "error", title, msg);
      free (msg);
      free (line);
      if ((line = ck_validation_line (c, p)) != NULL)
        annotation (c, f, c->strict && a->accepted > 0 ? "error"
                    : a->accepted > 0 ? "warning" : "notice", title, line);
      free (line);
    }
  printf ("%zu passed, %zu failed\n", c->sum_passed, c->sum_failed);
  if (fflush (stdout) != 0 || ferror (stdout))
    return ck_bad ("standard output", "write error");
  return 0;
}
