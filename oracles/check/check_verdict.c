/* check_verdict.c -- reading the record of a run into verdicts: how well
   the candidate follows each variant at each level, the class of each
   variant, its input validation, the order of the variants of each part
   (one answer first, the others also consistent with the candidate), the
   closing counts and the exit status.

   A variant's convention is judged on its valid and acceptable cases; its
   must-reject cases are its input validation, counted apart and in the
   exit status only with --strict.  The class of a variant is the first
   that holds of: every case passes at the declared dtype (a match); every
   failure is on a numerically demanding case (its convention); every case
   passes at float32 accuracy but for numerically demanding ones (a float32
   step), or at bfloat16 accuracy; none.  Variants of one class are ordered
   by the largest error of their non-numerical elements at that class's
   level, in units of the tolerance, then by how many of those elements
   pass at binary64 (of two variants a float32 run follows equally, the one
   whose values it reproduces more often), then by how many of their
   must-reject cases the candidate treats otherwise, then as the golden
   lists them.

   A lower accuracy is claimed only where the candidate's worst digits
   (relative to the scale the tolerance allows) are those a step in that
   dtype leaves, from one less than the dtype carries to one and a half
   more: an error of 1e-9 is no float32 step, and one digit right is no
   bfloat16 step (at bfloat16's tolerance, 1/8, most conventions agree);
   both are reported as no match.  */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_impl.h"

/* Whether variant v is judged at all (every variant, or the one named by
   --variant).  */
int
ck_in_scope (const ctx *c, const variant *v)
{
  return c->only == NULL || strcmp (c->only, v->name) == 0;
}

/* The answer of part p, or NULL.  */
const variant *
ck_answer (const ctx *c, size_t p)
{
  size_t a = c->parts[p].answer;
  return a == (size_t) -1 ? NULL : &c->vars[a];
}

/* Whether case k's variant is the answer of its part.  */
int
ck_counted (const ctx *c, const gcase *k)
{
  return c->parts[c->vars[k->var].part].answer == k->var;
}

/* The names of the classes, for the JSON report.  */
const char *
ck_class_name (enum vclass cls)
{
  static const char *const names[] = {
    "match", "match-but-numerical", "float32-accuracy", "bfloat16-accuracy",
    "no-match", "not-run"
  };
  return names[cls];
}

/* Tally variant V at level l from its cases.  */
static void
tally_level (ctx *c, size_t vi, int l)
{
  variant *v = &c->vars[vi];
  tally *t = &v->t[l];
  memset (t, 0, sizeof *t);
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      if (k->var != vi || k->kind == K_INVALID)
        continue;
      if (k->st[l] == S_SKIP)
        {
          t->skipped++;
          continue;
        }
      t->run += k->answer != A_MISSING;
      t->passed += k->st[l] == S_PASS;
      t->failed += k->st[l] == S_FAIL;
      t->failed_numerical += k->st[l] == S_FAIL && k->numerical;
      t->noted += k->st[l] == S_NOTE;
      if (k->numerical || k->kind == K_ACCEPTABLE)
        continue;
      for (size_t j = 0; j < k->nel; j++)
        if (k->el[j].kind == E_FINITE && k->el[j].q[l] > t->worst_q)
          t->worst_q = k->el[j].q[l];
    }
  /* the correct digits relative to the scale of the tolerance */
  t->digits = t->worst_q > 0 ? ck_dtypes[l].prec * log10 (2.0) - log10 (t->worst_q)
    : 17.0;
  t->digits = t->digits > 17 ? 17.0 : t->digits < 0 ? 0.0 : t->digits;
}

/* Count the elements of variant V's non-numerical valid cases that pass at
   the finest level.  */
static void
tally_fine (ctx *c, size_t vi)
{
  variant *v = &c->vars[vi];
  v->fine = 0;
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      if (k->var != vi || k->kind != K_VALID || k->numerical || k->st[0] == S_SKIP)
        continue;
      for (size_t j = 0; j < k->nel; j++)
        v->fine += ck_elem_pass (c, &k->el[j], 0);
    }
}

/* Count variant V's must-reject cases as the candidate treats them.  */
static void
tally_validation (ctx *c, size_t vi)
{
  variant *v = &c->vars[vi];
  v->rejected = v->accepted = v->accepted_nonfinite = v->invalid_missing = 0;
  v->rejected_valid = 0;
  for (size_t i = 0; i < c->ncases; i++)
    {
      const gcase *k = &c->cases[i];
      if (k->var != vi)
        continue;
      if (k->kind != K_INVALID)
        {
          v->rejected_valid += k->answer == A_ERROR;
          continue;
        }
      if (k->answer == A_ERROR)
        v->rejected++;
      else if (k->answer == A_MISSING)
        v->invalid_missing++;
      else if (k->answer == A_SKIP)
        continue;
      else
        {
          v->accepted++;
          v->accepted_nonfinite += k->nonfinite_out;
        }
    }
}

/* The class of variant v and its level.  */
static void
classify (ctx *c, variant *v)
{
  int d = c->level;
  v->level = d;
  if (v->t[d].run == 0)
    {
      v->cls = C_NOTRUN;
      return;
    }
  if (v->t[d].failed == 0)
    {
      v->cls = C_MATCH;
      return;
    }
  if (v->t[d].failed == v->t[d].failed_numerical)
    {
      v->cls = C_CONVENTION;
      return;
    }
  /* a lower accuracy is claimed where the candidate's digits are those a
     step in that dtype leaves: from one less than it carries to 1.5 more */
  for (int l = d + 1; l < NLEVELS; l++)
    if (v->t[l].run > 0 && v->t[l].failed == v->t[l].failed_numerical
        && v->t[l].digits >= ck_dtypes[l].prec * log10 (2.0) - 1
        && v->t[l].digits <= ck_dtypes[l].prec * log10 (2.0) + 1.5)
      {
        v->cls = l == 1 ? C_LOWER32 : C_LOWER16;
        v->level = l;
        return;
      }
  v->cls = C_NONE;
}

/* qsort context: the variants of the run being ordered.  */
static const ctx *order_ctx;

/* Order variant indices: best first (see the head of this file); among
   variants followed by none, most passes first.  */
static int
cmp_variants (const void *pa, const void *pb)
{
  const variant *a = &order_ctx->vars[*(const size_t *) pa];
  const variant *b = &order_ctx->vars[*(const size_t *) pb];
  int d = order_ctx->level;
  size_t ma, mb;
  if (a->cls != b->cls)
    return a->cls < b->cls ? -1 : 1;
  if (a->cls == C_NONE)
    {
      if (a->t[d].passed != b->t[d].passed)
        return a->t[d].passed > b->t[d].passed ? -1 : 1;
    }
  else if (a->cls != C_NOTRUN && a->t[a->level].worst_q != b->t[b->level].worst_q)
    return a->t[a->level].worst_q < b->t[b->level].worst_q ? -1 : 1;
  else if (a->cls != C_NOTRUN && a->fine != b->fine)
    return a->fine > b->fine ? -1 : 1;
  ma = a->accepted + a->rejected_valid;
  mb = b->accepted + b->rejected_valid;
  if (ma != mb)
    return ma < mb ? -1 : 1;
  return a < b ? -1 : a > b;
}

/* Order the variants in scope of part p and name its answer; 0 or 2.  */
static int
order_part (ctx *c, size_t p)
{
  part *pt = &c->parts[p];
  size_t n = 0;
  pt->answer = (size_t) -1;
  pt->order = malloc ((c->nvars ? c->nvars : 1) * sizeof *pt->order);
  if (pt->order == NULL)
    return ck_bad (c->cpath, "out of memory");
  for (size_t i = 0; i < c->nvars; i++)
    if (c->vars[i].part == p && ck_in_scope (c, &c->vars[i]))
      pt->order[n++] = i;
  pt->norder = n;
  order_ctx = c;
  qsort (pt->order, n, sizeof *pt->order, cmp_variants);
  for (size_t r = 0; r < n; r++)
    c->vars[pt->order[r]].rank = r;
  if (n > 0 && (c->only != NULL || c->vars[pt->order[0]].cls != C_NOTRUN))
    pt->answer = pt->order[0];
  return 0;
}

/* Read the record into the variants' tallies and classes, order each
   part, name its answer, and set the closing counts and c->rc; 0 or 2
   without memory.  */
int
ck_verdict (ctx *c)
{
  size_t p, answered = 0;
  int ok = 1;
  c->parts = calloc (c->nparts ? c->nparts : 1, sizeof *c->parts);
  if (c->parts == NULL)
    return ck_bad (c->cpath, "out of memory");
  for (size_t i = 0; i < c->nvars; i++)
    {
      for (int l = 0; l < NLEVELS; l++)
        tally_level (c, i, l);
      tally_validation (c, i);
      tally_fine (c, i);
      classify (c, &c->vars[i]);
    }
  for (p = 0; p < c->nparts; p++)
    if (order_part (c, p))
      return 2;
  c->sum_passed = c->sum_failed = c->sum_noted = 0;
  for (p = 0; p < c->nparts; p++)
    {
      const variant *a = ck_answer (c, p);
      const tally *t;
      if (a == NULL || (a->cls == C_NOTRUN && a->t[c->level].failed == 0))
        continue;
      t = &a->t[c->level];
      answered++;
      c->sum_passed += t->passed;
      c->sum_failed += t->failed;
      c->sum_noted += t->noted;
      if (a->cls != C_MATCH)
        ok = 0;
      if (c->strict)
        {
          c->sum_passed += a->rejected;
          c->sum_failed += a->accepted + a->invalid_missing;
          if (a->accepted + a->invalid_missing > 0)
            ok = 0;
        }
    }
  c->rc = answered > 0 && ok ? 0 : 1;
  return 0;
}
