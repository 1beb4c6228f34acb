/* check_text.c -- the text report of `rlref check`, rendered from the
   record of the run: the lines of the failing cases of the variants
   judged, the outputs judged, each part's table of variants, its verdict
   (one convention first, the others also consistent with the candidate),
   the explanation where it follows none, its input validation, and the
   closing line "N passed, M failed".  */

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "check_impl.h"

/* Copy the decimal s to buf (size bytes), cut after SHOW_DIGITS significant
   digits ("..." marks the cut; an exponent is kept).  */
static void
shorten (const char *s, char *buf, size_t size)
{
  size_t i = 0, o = 0, sig = 0;
  int cut = 0;
  if (s[0] == '+' || s[0] == '-')
    buf[o++] = s[i++];
  for (; isdigit ((unsigned char) s[i]) || s[i] == '.'; i++)
    {
      if (s[i] != '.' && (sig > 0 || s[i] != '0'))
        sig++;
      if (sig > SHOW_DIGITS || o + 4 >= size)
        cut = 1;
      else if (!cut)
        buf[o++] = s[i];
    }
  buf[o] = '\0';
  if (cut)
    strcat (buf, "...");
  strncat (buf, s + i, size - strlen (buf) - 1);
}

/* Write the candidate's value g to buf as %.17g, specials as nan/inf/-inf.  */
static void
format_got (double g, char *buf, size_t size)
{
  if (isnan (g))
    snprintf (buf, size, "nan");
  else if (isinf (g))
    snprintf (buf, size, g > 0 ? "inf" : "-inf");
  else
    snprintf (buf, size, "%.17g", g);
}

/* Print the head of a report line on case k, with the word word, output
   name[idx] (idx < 0: a scalar; name NULL: the case as a whole).  */
static void
line_start (const ctx *c, const gcase *k, FILE *f, const char *word,
            const char *name, long idx)
{
  fprintf (f, "%s tcId %" JSON_INTEGER_FORMAT " [", word, k->tcid);
  ck_print_clean (f, c->vars[k->var].name);
  putc (']', f);
  if (name != NULL)
    {
      putc (' ', f);
      ck_print_clean (f, name);
      if (idx >= 0)
        fprintf (f, "[%ld]", idx);
    }
  fputs (": ", f);
}

/* End a report line on case k: the flags of a noted mismatch, a newline.  */
static void
line_end (const gcase *k, FILE *f, int pass)
{
  json_t *flags = json_object_get (k->test, "flags"), *g;
  size_t i;
  if (!pass && k->kind == K_ACCEPTABLE)
    {
      fputs (json_array_size (flags) ? " (acceptable: flags " : " (acceptable", f);
      json_array_foreach (flags, i, g)
        {
          if (i > 0)
            fputs (", ", f);
          ck_print_clean (f, json_string_value (g));
        }
      putc (')', f);
    }
  putc ('\n', f);
}

/* The word of a line: pass, or NOTE for an acceptable case, else FAIL.  */
static const char *
word (const gcase *k, int pass)
{
  return pass ? "PASS" : k->kind == K_ACCEPTABLE ? "NOTE" : "FAIL";
}

/* Print the error measures of finite element e at level l after "got".  */
static void
print_measures (const ctx *c, const elem *e, int l, FILE *f)
{
  double tol = c->ulps * e->base_ulps[l], cap = ck_dtypes[l].prec * log10 (2.0);
  if (c->have_rtol && c->rtol * e->x_ulps[l] > tol)
    tol = c->rtol * e->x_ulps[l];
  if (e->rel == 0)
    fprintf (f, " err 0 ulps, rel 0, exact; tol %.2g ulps", tol);
  else if (isinf (e->rel))
    fprintf (f, " abs err %.2g (expected 0), 0.0 correct digits; tol %.2g ulps",
             fabs (e->got), tol);
  else
    fprintf (f, " err %.2g ulps, rel %.2g, %.1f correct digits; tol %.2g ulps",
             e->err_ulps[l], e->rel, e->digits > cap ? cap : e->digits, tol);
}

/* Write the line of element e of case k at level l to f.  */
static void
element_line (const ctx *c, const gcase *k, const elem *e, int l, FILE *f)
{
  int pass = ck_elem_pass (c, e, l);
  char xs[80], gs[40];
  line_start (c, k, f, word (k, pass), e->output, e->index);
  if (e->kind == E_MISSING || e->kind == E_SHAPE)
    fputs (e->problem, f);
  else
    {
      shorten (json_string_value (json_object_get (e->expected, "value")), xs,
               sizeof xs);
      format_got (e->got, gs, sizeof gs);
      fprintf (f, "expected %s got %s", xs, gs);
      if (e->kind == E_FINITE)
        print_measures (c, e, l, f);
    }
  line_end (k, f, pass);
}

/* Write the lines of case k at the declared level to f (its failures, or
   with all every element); nothing for a passing case unless all.  A
   must-reject case the candidate does not reject gets its line (FAIL with
   --strict, else INPUT).  */
void
ck_case_lines (const ctx *c, const gcase *k, FILE *f, int all)
{
  int l = c->level;
  const char *ge = json_string_value (json_object_get (k->test, "error"));
  if (k->answer == A_SKIP)
    {
      if (all)
        {
          line_start (c, k, f, "SKIP", NULL, -1);
          fputs ("not answered by the candidate: ", f);
          ck_print_clean (f, k->cand_error);
          putc ('\n', f);
        }
      return;
    }
  if (k->kind == K_INVALID)
    {
      if (k->answer == A_ERROR && all && ge != NULL && strcmp (ge, k->cand_error) != 0)
        {
          line_start (c, k, f, "PASS", NULL, -1);
          fputs ("rejected with \"", f);
          ck_print_clean (f, k->cand_error);
          fputs ("\" (the golden names \"", f);
          ck_print_clean (f, ge);
          fputs ("\")\n", f);
        }
      else if (k->answer == A_ERROR && all)
        {
          line_start (c, k, f, "PASS", NULL, -1);
          fputs ("rejected with \"", f);
          ck_print_clean (f, k->cand_error);
          fputs ("\"\n", f);
        }
      else if (k->answer == A_OUTPUTS)
        {
          line_start (c, k, f, c->strict ? "FAIL" : "INPUT", NULL, -1);
          fprintf (f, "not rejected (%s); the reference rejects it with \"",
                   k->nonfinite_out ? "gave NaN or an infinity" : "gave values");
          ck_print_clean (f, ge != NULL ? ge : "an error");
          fputs ("\"\n", f);
        }
      else if (k->answer == A_MISSING)
        {
          line_start (c, k, f, c->strict ? "FAIL" : "INPUT", NULL, -1);
          fputs ("missing; the reference rejects it\n", f);
        }
      return;
    }
  if (k->answer == A_MISSING)
    {
      line_start (c, k, f, word (k, 0), NULL, -1);
      fputs ("missing", f);
      line_end (k, f, 0);
      return;
    }
  if (k->answer == A_ERROR)
    {
      line_start (c, k, f, word (k, 0), NULL, -1);
      fputs ("rejected the input with \"", f);
      ck_print_clean (f, k->cand_error);
      putc ('"', f);
      line_end (k, f, 0);
      return;
    }
  if (k->st[l] == S_SKIP)
    {
      if (all)
        {
          line_start (c, k, f, "SKIP", NULL, -1);
          fprintf (f, k->njudged == 0 ? "no output of it is judged\n"
                   : "beyond the %s range: not judged at %s\n",
                   ck_dtypes[l].name, ck_dtypes[l].name);
        }
      return;
    }
  for (size_t i = 0; i < k->nel; i++)
    if (all || !ck_elem_pass (c, &k->el[i], l))
      element_line (c, k, &k->el[i], l, f);
  if (all && k->nel == 0)
    {
      line_start (c, k, f, "PASS", NULL, -1);
      fputs ("no outputs to compare\n", f);
    }
}

/* The case lines of k as a new string (NULL without memory).  */
char *
ck_case_text (const ctx *c, const gcase *k, int all)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&buf, &len);
  if (m == NULL)
    return NULL;
  ck_case_lines (c, k, m, all);
  if (fclose (m) != 0)
    return NULL;
  return buf;
}

/* The qualifier of a variant followed at a lower accuracy, or "".  */
static const char *
qualifier (const variant *v)
{
  switch (v->cls)
    {
    case C_CONVENTION: return " (but for numerically demanding cases)";
    case C_LOWER32: return " (at float32 accuracy)";
    case C_LOWER16: return " (at bfloat16 accuracy)";
    default: return "";
    }
}

/* Write the verdict on answer a (of a part whose other variants follow in
   ORDER) to f.  */
static void
verdict_text (const ctx *c, const part *pt, const variant *a, FILE *f)
{
  const tally *t;
  size_t shown = 0;
  if (a == NULL || (a->cls == C_NOTRUN && c->only == NULL))
    {
      fputs ("Candidate ran none of these cases", f);
      return;
    }
  t = &a->t[a->level];
  switch (a->cls)
    {
    case C_MATCH:
      fputs ("Candidate follows: ", f);
      ck_print_clean (f, a->name);
      break;
    case C_CONVENTION:
      fputs ("Candidate follows the convention ", f);
      ck_print_clean (f, a->name);
      fprintf (f, ", but fails %zu numerically demanding case%s (flagged NUMERICAL "
               "in the golden: overflow, cancellation, binary32 steps)",
               t->failed, t->failed == 1 ? "" : "s");
      break;
    case C_LOWER32:
    case C_LOWER16:
      fputs ("Candidate follows ", f);
      ck_print_clean (f, a->name);
      fprintf (f, " at %s accuracy (%.1f digits); declared %s: a %s step is likely "
               "(a constant or an intermediate rounded to %s)",
               ck_dtypes[a->level].name, t->digits, c->dtype,
               ck_dtypes[a->level].name, ck_dtypes[a->level].name);
      if (t->failed > 0)
        fprintf (f, "; it also fails %zu numerically demanding case%s", t->failed,
                 t->failed == 1 ? "" : "s");
      break;
    default:
      fputs ("Candidate matches no variant; nearest: ", f);
      ck_print_clean (f, a->name);
      fprintf (f, " (%zu of %zu)", a->t[c->level].passed, a->nvalid);
      break;
    }
  for (size_t r = 1; r < pt->norder && a->cls <= C_LOWER16; r++)
    {
      const variant *v = &c->vars[pt->order[r]];
      if (v->cls > (a->cls == C_LOWER16 ? C_LOWER16 : C_LOWER32))
        break;
      fputs (shown++ ? ", " : "; also consistent with: ", f);
      ck_print_clean (f, v->name);
      fputs (qualifier (v), f);
    }
}

/* The verdict line of part p as a new string (NULL without memory).  */
char *
ck_verdict_line (const ctx *c, size_t p)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream (&buf, &len);
  if (m == NULL)
    return NULL;
  verdict_text (c, &c->parts[p], ck_answer (c, p), m);
  if (fclose (m) != 0)
    return NULL;
  return buf;
}

/* Write to f the tcIds of answer ai's must-reject cases the candidate does not
   reject whose first INVALID_INPUT flag is flag (NULL: those without
   one); the number written.  */
static size_t
accepted_ids (const ctx *c, size_t ai, const char *flag, FILE *f)
{
  size_t n = 0;
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      json_t *flags = json_object_get (k->test, "flags"), *g;
      const char *first = NULL;
      size_t j;
      if (k->var != ai || k->kind != K_INVALID || k->answer != A_OUTPUTS)
        continue;
      json_array_foreach (flags, j, g)
        if (first == NULL && ck_invalid_note (c, json_string_value (g)) != NULL)
          first = json_string_value (g);
      if ((flag == NULL) != (first == NULL)
          || (flag != NULL && strcmp (flag, first) != 0))
        continue;
      fprintf (f, "%s%" JSON_INTEGER_FORMAT "%s", n++ ? ", " : "", k->tcid,
               k->nonfinite_out ? " (NaN)" : "");
    }
  return n;
}

/* The number of A's must-reject cases accepted whose first INVALID_INPUT
   flag is flag (NULL: none).  */
static size_t
count_ids (const ctx *c, size_t ai, const char *flag)
{
  FILE *f = fopen ("/dev/null", "w");
  size_t n;
  if (f == NULL)
    return 2;
  n = accepted_ids (c, ai, flag, f);
  fclose (f);
  return n;
}

/* Write the input-validation text of answer A (index ai) to f.  */
static void
validation_text (const ctx *c, size_t ai, FILE *f)
{
  const variant *a = &c->vars[ai];
  json_t *done = json_object ();
  size_t ninv = a->ninvalid, groups = 0;
  fputs ("Input validation against ", f);
  ck_print_clean (f, a->name);
  if (a->accepted == 0)
    {
      if (a->rejected == 1)
        fputs (": rejects the one input it rejects", f);
      else
        fprintf (f, ": rejects all %zu inputs it rejects", a->rejected);
      if (a->invalid_missing)
        fprintf (f, " (%zu not answered)", a->invalid_missing);
      json_decref (done);
      return;
    }
  if (ninv == 1)
    fputs (": accepts the one input it rejects", f);
  else if (a->accepted == ninv)
    fprintf (f, ": accepts all %zu inputs it rejects", ninv);
  else
    fprintf (f, ": accepts %zu of the %zu inputs it rejects", a->accepted, ninv);
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      json_t *g;
      size_t j;
      const char *first = NULL;
      if (k->var != ai || k->kind != K_INVALID || k->answer != A_OUTPUTS)
        continue;
      json_array_foreach (json_object_get (k->test, "flags"), j, g)
        if (first == NULL && ck_invalid_note (c, json_string_value (g)) != NULL)
          first = json_string_value (g);
      if (json_object_get (done, first != NULL ? first : "") != NULL)
        continue;
      json_object_set_new (done, first != NULL ? first : "", json_true ());
      fputs (groups++ ? "; " : " (", f);
      if (first != NULL)
        {
          ck_print_clean (f, first);
          fputs (" (", f);
          ck_print_clean (f, ck_invalid_note (c, first));
          fputs ("): ", f);
        }
      fputs (count_ids (c, ai, first) == 1 ? "tcId " : "tcIds ", f);
      accepted_ids (c, ai, first, f);
    }
  fputs (groups ? ")" : "", f);
  if (!c->strict)
    fputs ("; not counted in the verdict (--strict counts it)", f);
  json_decref (done);
}

/* The input-validation line of part p, or NULL when its answer has no
   must-reject cases.  */
char *
ck_validation_line (const ctx *c, size_t p)
{
  const variant *a = ck_answer (c, p);
  char *buf = NULL;
  size_t len = 0;
  FILE *m;
  if (a == NULL || a->ninvalid == 0 || a->rejected + a->accepted == 0)
    return NULL;
  m = open_memstream (&buf, &len);
  if (m == NULL)
    return NULL;
  validation_text (c, c->parts[p].answer, m);
  if (fclose (m) != 0)
    return NULL;
  return buf;
}

/* Print the heading of part p: the input names its tests take.  */
static void
part_heading (const ctx *c, size_t p)
{
  size_t i;
  const char *key, *sep = "";
  json_t *val;
  for (i = 0; c->vars[i].part != p; i++)
    ;
  if (c->vars[i].part_name != NULL)
    {
      fputs ("part ", c->out);
      ck_print_clean (c->out, c->vars[i].part_name);
      fputs (", ", c->out);
    }
  else
    fprintf (c->out, "part %zu, ", p + 1);
  fputs ("tests with inputs ", c->out);
  json_object_foreach (c->vars[i].inputs, key, val)
    {
      fputs (sep, c->out);
      ck_print_clean (c->out, key);
      sep = ", ";
    }
  fputs (*sep ? ":\n" : "(none):\n", c->out);
}

/* Print the table row of variant v.  */
static void
variant_row (const ctx *c, const variant *v, const char *ind)
{
  const tally *t = &v->t[c->level];
  static const char *const tag[] = {
    "  MATCH", "  MATCH but for numerically demanding cases", "  at float32 accuracy",
    "  at bfloat16 accuracy", "  no match", ""
  };
  fputs (ind, c->out);
  fputs ("variant ", c->out);
  ck_print_clean (c->out, v->name);
  if (v->cls == C_NOTRUN && (c->only == NULL || t->failed == 0))
    {
      fputs (": not run\n", c->out);
      return;
    }
  fprintf (c->out, ": %zu passed, %zu failed", t->passed, t->failed);
  if (t->noted > 0)
    fprintf (c->out, ", %zu noted", t->noted);
  if (t->skipped > 0)
    fprintf (c->out, ", %zu not judged", t->skipped);
  fprintf (c->out, "%s\n", tag[v->cls]);
}

/* Print the header line of the report.  */
static void
header (const ctx *c)
{
  const char *f = json_string_value (json_object_get (c->golden, "formula"));
  fprintf (c->out, "Checking %s against ", c->cpath);
  if (f != NULL)
    ck_print_clean (c->out, f);
  else
    fputs (c->gpath, c->out);
  fprintf (c->out, ": dtype %s, U = %g", c->dtype, c->ulps);
  if (c->have_rtol)
    fprintf (c->out, ", rtol %g", c->rtol);
  if (c->only != NULL)
    {
      fputs (", variant ", c->out);
      ck_print_clean (c->out, c->only);
    }
  if (c->outputs_opt != NULL)
    {
      fputs (", outputs ", c->out);
      ck_print_clean (c->out, c->outputs_opt);
    }
  if (c->strict)
    fputs (", strict", c->out);
  putc ('\n', c->out);
}

/* The reason case k gives for omitting output name, or NULL.  */
static const char *
omitted_why (const gcase *k, const char *name)
{
  json_t *om = k->res ? json_object_get (k->res, "omitted") : NULL;
  return json_string_value (json_object_get (om, name));
}

/* Print the outputs the candidate declares it has no value for in some
   cases ("omitted"): one line per output and reason, with their tcIds.  */
static void
omitted_lines (const ctx *c)
{
  for (size_t i = 0; i < c->ncases; i++)
    {
      json_t *om = c->cases[i].res ? json_object_get (c->cases[i].res, "omitted") : NULL, *w;
      const char *name;
      json_object_foreach (om, name, w)
        {
          const char *why = json_string_value (w), *w2;
          size_t n = 0, j;
          for (j = 0; j < i; j++)
            if ((w2 = omitted_why (&c->cases[j], name)) && strcmp (w2, why) == 0)
              break;
          if (j < i)
            continue;           /* printed at its first case */
          for (j = i; j < c->ncases; j++)
            n += (w2 = omitted_why (&c->cases[j], name)) && strcmp (w2, why) == 0;
          fputs ("Omitted by the candidate: ", c->out);
          ck_print_clean (c->out, name);
          fputs (n > 1 ? " in tcIds" : " in tcId", c->out);
          for (j = i, n = 0; j < c->ncases; j++)
            if ((w2 = omitted_why (&c->cases[j], name)) && strcmp (w2, why) == 0)
              fprintf (c->out, "%s %" JSON_INTEGER_FORMAT, n++ ? "," : "", c->cases[j].tcid);
          fputs (" (", c->out);
          ck_print_clean (c->out, why);
          fputs ("): not judged there\n", c->out);
        }
    }
}

/* Print the outputs judged, when the candidate does not give them all.  */
static void
outputs_line (const ctx *c)
{
  const char *name, *sep = "";
  json_t *v;
  omitted_lines (c);
  if (json_object_size (c->ungiven_outputs) == 0)
    return;
  fputs ("Outputs judged: ", c->out);
  json_object_foreach (c->judged_outputs, name, v)
    {
      fputs (sep, c->out);
      ck_print_clean (c->out, name);
      sep = ", ";
    }
  if (*sep == '\0')
    fputs ("none", c->out);
  fputs (c->outputs_opt != NULL ? "; not judged: " : "; not given by the candidate: ",
         c->out);
  sep = "";
  json_object_foreach (c->ungiven_outputs, name, v)
    {
      fputs (sep, c->out);
      ck_print_clean (c->out, name);
      sep = ", ";
    }
  putc ('\n', c->out);
}

/* Write the whole text report to c->out.  */
void
ck_write_text (ctx *c)
{
  const char *ind = c->nparts > 1 ? "  " : "";
  char *s;
  header (c);
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      if (!ck_in_scope (c, &c->vars[k->var]))
        continue;
      /* a must-reject case the candidate accepts is its input validation:
         a line of its own only with --strict (or --verbose) */
      if (k->kind == K_INVALID && k->answer != A_ERROR && k->answer != A_SKIP
          && !c->strict && !c->verbose)
        continue;
      if (c->verbose || ck_counted (c, k))
        ck_case_lines (c, k, c->out, c->verbose);
    }
  outputs_line (c);
  for (size_t p = 0; p < c->nparts; p++)
    {
      const part *pt = &c->parts[p];
      if (pt->norder == 0)
        continue;
      if (c->nparts > 1)
        part_heading (c, p);
      for (size_t i = 0; i < c->nvars; i++)
        if (c->vars[i].part == p && ck_in_scope (c, &c->vars[i]))
          variant_row (c, &c->vars[i], ind);
      fputs (ind, c->out);
      verdict_text (c, pt, ck_answer (c, p), c->out);
      putc ('\n', c->out);
      ck_explain_text (c, p, c->out, ind);
      if ((s = ck_validation_line (c, p)) != NULL)
        {
          fprintf (c->out, "%s%s\n", ind, s);
          free (s);
        }
    }
  if (c->sum_noted > 0)
    fprintf (c->out, "%zu acceptable mismatch%s noted\n", c->sum_noted,
             c->sum_noted == 1 ? "" : "es");
  fprintf (c->out, "%zu passed, %zu failed\n", c->sum_passed, c->sum_failed);
}
