/* check_report.c -- the per-variant tables, the verdict on which convention
   a candidate follows, and the closing line.  */

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <mpfr.h>

#include "check_impl.h"

/* Print the noted count (if any) and the closing line, and keep the
   counts in C; the exit status.  */
static int
closing (ctx *c, size_t passed, size_t failed, size_t noted, int ok)
{
  if (noted > 0)
    fprintf (c->out, "%zu acceptable mismatch%s noted\n", noted,
             noted == 1 ? "" : "es");
  fprintf (c->out, "%zu passed, %zu failed\n", passed, failed);
  c->sum_passed = passed;
  c->sum_failed = failed;
  c->sum_noted = noted;
  return ok ? 0 : 1;
}

/* The formats a candidate declared as DTYPE may have rounded to without
   saying: float32 and bfloat16 below float64, bfloat16 below float32.  */
static const struct
{
  const char *name;
  int prec;
  mpfr_exp_t emin;
} lower[] = { { "float32", 24, -126 }, { "bfloat16", 8, -126 } };

/* When variant V failed at the declared dtype, judges it again silently at
   each lower precision; prints what it follows there and returns 1 when it
   does at one, keeping the dtype, the digits and the failures in V.  A
   float32 step inside a float64 computation (a constant, a correction
   factor) shows up this way; the exit status stays 1.  */
static int
diagnose_lower (ctx *c, variant *v, const char *ind)
{
  int prec = c->prec, found = 0;
  mpfr_exp_t emin = c->emin;
  variant saved = *v;
  const char *dtype = NULL;
  double digits = 0.0;
  size_t dfailed = 0;
  for (size_t i = 0; i < sizeof lower / sizeof lower[0] && !found; i++)
    {
      if (lower[i].prec >= prec)
        continue;
      c->prec = lower[i].prec;
      c->emin = lower[i].emin;
      v->nrun = v->passed = v->failed = v->noted = v->failed_numerical = 0;
      c->worst_digits = 17.0;
      ck_judge_all (c, v->name, 0, 1);
      if (v->nrun > 0 && (v->failed == 0 || v->failed == v->failed_numerical))
        {
          fprintf (c->out, "%sCandidate follows ", ind);
          ck_print_clean (c->out, v->name);
          fprintf (c->out, " at %s accuracy (%.1f digits); declared %s: a %s step "
                   "is likely (a constant or an intermediate rounded to %s)",
                   lower[i].name, c->worst_digits, c->dtype ? c->dtype : "float64",
                   lower[i].name, lower[i].name);
          if (v->failed)
            fprintf (c->out, "; it also fails %zu numerically demanding case%s",
                     v->failed, v->failed == 1 ? "" : "s");
          putc ('\n', c->out);
          found = 1;
          dtype = lower[i].name;
          digits = c->worst_digits;
          dfailed = v->failed;
        }
    }
  *v = saved;
  c->prec = prec;
  c->emin = emin;
  if (found)
    {
      v->diag_dtype = dtype;
      v->diag_digits = digits;
      v->diag_failed = dfailed;
    }
  return found;
}

/* Report on the single variant V; the exit status.  */
int
ck_report_one (ctx *c, variant *v)
{
  ck_judge_all (c, v->name, 1, 1);
  v->judged = 1;
  if (v->failed > 0)
    diagnose_lower (c, v, "");
  return closing (c, v->passed, v->failed, v->noted, v->failed == 0);
}

/* Whether variant V is judged at all (every variant, or the one named by
   --variant).  */
int
ck_in_scope (const ctx *c, const variant *v)
{
  return c->only == NULL || strcmp (c->only, v->name) == 0;
}

/* Whether variant V was run and all its valid and invalid cases pass.  */
int
ck_matches (const variant *v)
{
  return v->nrun > 0 && v->failed == 0;
}

/* Whether V's only failures are on numerically demanding cases: the
   candidate follows its convention, and is not robust there.  */
int
ck_matches_convention (const variant *v)
{
  return v->nrun > 0 && v->failed > 0 && v->failed == v->failed_numerical;
}

/* The best run variant of part P (most passes, first on ties), or NULL.  */
variant *
ck_best_of (ctx *c, size_t p)
{
  variant *best = NULL;
  size_t i;
  for (i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && c->vars[i].nrun > 0
        && (best == NULL || c->vars[i].passed > best->passed))
      best = &c->vars[i];
  return best;
}

/* Print the table and the verdict of part P; 1 when a variant matches.  */
static int
print_part (ctx *c, size_t p, variant *best)
{
  size_t i;
  int first = 1;
  const char *ind = c->nparts > 1 ? "  " : "";
  variant *v;
  for (i = 0; i < c->nvars; i++)
    {
      v = &c->vars[i];
      if (v->part != p)
        continue;
      fputs (ind, c->out);
      fputs ("variant ", c->out);
      ck_print_clean (c->out, v->name);
      if (v->nrun == 0)
        {
          fputs (": not run\n", c->out);
          continue;
        }
      fprintf (c->out, ": %zu passed, %zu failed", v->passed, v->failed);
      if (v->noted > 0)
        fprintf (c->out, ", %zu noted", v->noted);
      fputs (ck_matches (v) ? "  MATCH\n" : ck_matches_convention (v)
             ? "  MATCH but for numerically demanding cases\n" : "  no match\n",
             c->out);
    }
  for (i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && ck_matches (&c->vars[i]))
      {
        if (first)
          fprintf (c->out, "%sCandidate follows: ", ind);
        else
          fputs (", ", c->out);
        ck_print_clean (c->out, c->vars[i].name);
        first = 0;
      }
  if (!first)
    {
      putc ('\n', c->out);
      return 1;
    }
  for (i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && ck_matches_convention (&c->vars[i]))
      {
        /* a convention named apart from its numerical failures */
        fprintf (c->out, "%sCandidate follows the convention ", ind);
        ck_print_clean (c->out, c->vars[i].name);
        fprintf (c->out, ", but fails %zu numerically demanding case%s (flagged "
                 "NUMERICAL in the golden: overflow, cancellation, binary32 "
                 "steps)\n", c->vars[i].failed, c->vars[i].failed == 1 ? "" : "s");
        first = 0;
      }
  if (!first)
    return 0;
  if (best == NULL)
    fprintf (c->out, "%sCandidate ran none of these cases\n", ind);
  else
    {
      fprintf (c->out, "%sCandidate matches no variant; closest: ", ind);
      ck_print_clean (c->out, best->name);
      fprintf (c->out, " (%zu of %zu)\n", best->passed, best->ncases);
      for (i = 0; i < c->nvars; i++)
        if (c->vars[i].part == p && c->vars[i].nrun > 0)
          diagnose_lower (c, &c->vars[i], ind);
    }
  return 0;
}

/* Print the heading of part P: the input names its tests take.  */
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

/* Report on every variant of a golden with several; the exit status.  */
int
ck_report_all (ctx *c)
{
  size_t p, passed = 0, failed = 0, noted = 0, run = 0, matched = 0;
  variant *best;
  ck_judge_all (c, NULL, c->verbose, 1);
  if (!c->verbose)
    for (p = 0; p < c->nparts; p++)
      if ((best = ck_best_of (c, p)) != NULL)
        ck_judge_all (c, best->name, 1, 0);
  for (p = 0; p < c->nparts; p++)
    {
      if (c->nparts > 1)
        part_heading (c, p);
      best = ck_best_of (c, p);
      matched += print_part (c, p, best) ? 1 : 0;
      if (best != NULL)
        {
          best->judged = 1;
          run++;
          passed += best->passed;
          failed += best->failed;
          noted += best->noted;
        }
    }
  return closing (c, passed, failed, noted, run > 0 && matched == run);
}
