/* check_judge.c -- judging every case once: each expected element against
   the candidate's value, at every dtype a candidate may have rounded to,
   with the tolerance rule of golden/README.md.

   For an expected value x with sensitivity sens, a dtype of p significand
   bits and smallest normal lambda, the candidate's value g passes when

     |g - x| <= U 2^-p (sens + max(|x|, lambda))     (x != 0)
     |g - x| <= U 2^-p sens                          (x = 0)

   or, with --rtol R, when |g - x| <= R |x|.  The record keeps, per level,
   q = |g - x| / (2^-p (sens + max(|x|, lambda))) rounded up, so that q <= U
   decides exactly what the inequality decides (U is a double), and the
   measures the reports show.  |g - x| is formed in MPFR at 256 bits, so
   that errors far below the binary64 unit roundoff are measured right.  */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <mpfr.h>

#include "check_impl.h"

const dtype_info ck_dtypes[NLEVELS] = {
  { "float64", 53, -1022 }, { "float32", 24, -126 }, { "bfloat16", 8, -126 },
};

/* Whether any real of the golden input value v (an object {"dec", "hex"},
   an array of them, or an integer) is finite and beyond the binary32
   range.  */
static int
input_beyond32 (json_t *v)
{
  json_t *e;
  size_t i;
  double d;
  if (json_is_array (v))
    {
      json_array_foreach (v, i, e)
        if (input_beyond32 (e))
          return 1;
      return 0;
    }
  if (json_is_integer (v))
    return fabs ((double) json_integer_value (v)) > FLOAT32_MAX;
  if (ck_cand_number (json_object_get (v, "hex"), &d) != 0)
    return 0;
  return isfinite (d) && fabs (d) > FLOAT32_MAX;
}

/* Whether the finite expected value e is beyond the binary32 range.  */
static int
expected_beyond32 (ctx *c, json_t *e)
{
  if (ck_read_decimal (c->x, json_object_get (e, "value")) || !mpfr_number_p (c->x))
    return 0;
  mpfr_set_d (c->w, FLOAT32_MAX, MPFR_RNDN);
  return mpfr_cmpabs (c->x, c->w) > 0;
}

/* Whether test t has an input or an expected value beyond the binary32
   range.  */
static int
case_beyond32 (ctx *c, json_t *t)
{
  json_t *v, *e;
  const char *name;
  size_t i;
  json_object_foreach (json_object_get (t, "inputs"), name, v)
    if (input_beyond32 (v))
      return 1;
  json_object_foreach (json_object_get (t, "outputs"), name, v)
    {
      if (!json_is_array (v))
        {
          if (expected_beyond32 (c, v))
            return 1;
          continue;
        }
      json_array_foreach (v, i, e)
        if (expected_beyond32 (c, e))
          return 1;
    }
  return 0;
}

/* The exponent e of the ulp 2^(e - p + 1) of level l at c->x: below the
   normal range (and at 0), that of the smallest normal.  */
static mpfr_exp_t
ulp_exp (const ctx *c, int l)
{
  mpfr_exp_t e = mpfr_zero_p (c->x) ? ck_dtypes[l].emin : mpfr_get_exp (c->x) - 1;
  return e < ck_dtypes[l].emin ? ck_dtypes[l].emin : e;
}

/* Measure the finite comparison of e: c->x the expected value, c->d =
   |got - x|, c->t its sensitivity.  */
static void
measure (ctx *c, elem *e)
{
  for (int l = 0; l < NLEVELS; l++)
    {
      int p = ck_dtypes[l].prec;
      mpfr_exp_t ue = ulp_exp (c, l);
      /* base = sens + max(|x|, lambda), |x| raised to the smallest normal
         lambda when 0 < |x| < lambda (a result below lambda is only known
         to about u lambda); an exact zero keeps sens alone */
      mpfr_abs (c->w, c->x, MPFR_RNDN);
      if (!mpfr_zero_p (c->w) && mpfr_cmp_ui_2exp (c->w, 1, ck_dtypes[l].emin) < 0)
        mpfr_set_ui_2exp (c->w, 1, ck_dtypes[l].emin, MPFR_RNDN);
      mpfr_add (c->y, c->t, c->w, MPFR_RNDN);
      if (mpfr_zero_p (c->y))
        e->q[l] = mpfr_zero_p (c->d) ? 0.0 : INFINITY;
      else
        {
          mpfr_div (c->w, c->d, c->y, MPFR_RNDU);
          mpfr_mul_2si (c->w, c->w, p, MPFR_RNDU);
          e->q[l] = mpfr_get_d (c->w, MPFR_RNDU);
        }
      mpfr_mul_2si (c->w, c->d, (long) (p - 1 - ue), MPFR_RNDN);
      e->err_ulps[l] = mpfr_get_d (c->w, MPFR_RNDN);
      mpfr_mul_2si (c->w, c->y, (long) (-1 - ue), MPFR_RNDN);
      e->base_ulps[l] = mpfr_get_d (c->w, MPFR_RNDN);
      mpfr_abs (c->w, c->x, MPFR_RNDN);
      mpfr_mul_2si (c->w, c->w, (long) (p - 1 - ue), MPFR_RNDN);
      e->x_ulps[l] = mpfr_get_d (c->w, MPFR_RNDN);
    }
  if (mpfr_zero_p (c->d))
    {
      e->rel = 0.0;
      e->digits = 17.0;
    }
  else if (mpfr_zero_p (c->x))
    {
      e->rel = INFINITY;
      e->digits = 0.0;
    }
  else
    {
      mpfr_div (c->w, c->d, c->x, MPFR_RNDU);
      mpfr_abs (c->w, c->w, MPFR_RNDU);
      e->rel = mpfr_get_d (c->w, MPFR_RNDU);
      mpfr_log10 (c->w, c->w, MPFR_RNDN);
      e->digits = -mpfr_get_d (c->w, MPFR_RNDN);
      e->digits = e->digits > 17 ? 17.0 : e->digits > 0 ? e->digits : 0.0;
    }
}

/* Judge expected object x of output name[idx] against the candidate's
   value got into e.  */
static void
judge_element (ctx *c, elem *e, const char *name, long idx, json_t *x, double got)
{
  json_t *s;
  memset (e, 0, sizeof *e);
  e->output = name;
  e->index = idx;
  e->expected = x;
  e->has_got = 1;
  e->got = got;
  ck_read_decimal (c->x, json_object_get (x, "value"));
  if (mpfr_nan_p (c->x))
    {
      e->kind = E_SPECIAL;
      e->special_equal = isnan (got);
      return;
    }
  if (mpfr_inf_p (c->x))
    {
      e->kind = E_SPECIAL;
      e->special_equal = isinf (got) && (got > 0) == (mpfr_sgn (c->x) > 0);
      return;
    }
  if (!isfinite (got))
    {
      e->kind = E_GOT_NONFINITE;
      return;
    }
  e->kind = E_FINITE;
  s = json_object_get (x, "sens");
  if (json_is_string (s))
    ck_read_decimal (c->t, s);
  else
    mpfr_set_d (c->t, json_number_value (s), MPFR_RNDN);
  if (mpfr_nan_p (c->t))        /* no sensitivity known: the strictest */
    mpfr_set_zero (c->t, 1);
  mpfr_set_d (c->y, got, MPFR_RNDN);
  mpfr_sub (c->d, c->y, c->x, MPFR_RNDN);
  mpfr_abs (c->d, c->d, MPFR_RNDN);
  measure (c, e);
}

/* An element of output name that could not be compared (kind), for the
   reason msg.  */
static void
problem_element (elem *e, const char *name, const char *msg, enum ekind kind)
{
  memset (e, 0, sizeof *e);
  e->output = name;
  e->index = -1;
  e->kind = kind;
  e->problem_buf = strdup (msg);
  e->problem = e->problem_buf != NULL ? e->problem_buf : "not compared";
}

/* The number of elements output v of a golden test holds.  */
static size_t
n_elements (json_t *v)
{
  return json_is_array (v) ? json_array_size (v) : 1;
}

/* Whether the candidate outputs out hold a NaN or an infinity.  */
static int
nonfinite_output (json_t *out)
{
  const char *name;
  json_t *v, *e;
  size_t i;
  double g;
  json_object_foreach (out, name, v)
    {
      if (!json_is_array (v))
        {
          if (ck_cand_number (v, &g) == 0 && !isfinite (g))
            return 1;
          continue;
        }
      json_array_foreach (v, i, e)
        if (ck_cand_number (e, &g) == 0 && !isfinite (g))
          return 1;
    }
  return 0;
}

/* Judge the outputs of case k against the candidate's; 0 or 2.  */
static int
judge_outputs (ctx *c, gcase *k)
{
  json_t *exp = json_object_get (k->test, "outputs"), *ev, *cv;
  json_t *out = json_object_get (k->res, "outputs");
  json_t *omitted = json_object_get (k->res, "omitted");
  const char *name;
  size_t n = 0, i, m;
  double g;
  char msg[120];
  json_object_foreach (exp, name, ev)
    if (json_object_get (c->judged_outputs, name) != NULL)
      n += n_elements (ev);
  k->el = calloc (n ? n : 1, sizeof *k->el);
  if (k->el == NULL)
    return ck_bad (c->cpath, "out of memory");
  json_object_foreach (exp, name, ev)
    {
      if (json_object_get (c->judged_outputs, name) == NULL)
        continue;
      cv = json_object_get (out, name);
      m = n_elements (ev);
      if (cv == NULL && json_object_get (omitted, name) != NULL)
        continue;               /* declared without a value here: not judged */
      if (cv == NULL)
        problem_element (&k->el[k->nel++], name, "missing output", E_MISSING);
      else if (json_is_array (ev) != json_is_array (cv))
        {
          if (json_is_array (ev))
            snprintf (msg, sizeof msg, "expected an array of %zu values, got a "
                      "single value", m);
          else
            snprintf (msg, sizeof msg, "expected a single value, got an array "
                      "of %zu", json_array_size (cv));
          problem_element (&k->el[k->nel++], name, msg, E_SHAPE);
        }
      else if (!json_is_array (ev))
        {
          ck_cand_number (cv, &g);
          judge_element (c, &k->el[k->nel++], name, -1, ev, g);
        }
      else if (m != json_array_size (cv))
        {
          snprintf (msg, sizeof msg, "length %zu, expected %zu",
                    json_array_size (cv), m);
          problem_element (&k->el[k->nel++], name, msg, E_SHAPE);
        }
      else
        for (i = 0; i < m; i++)
          {
            ck_cand_number (json_array_get (cv, i), &g);
            judge_element (c, &k->el[k->nel++], name, (long) i,
                           json_array_get (ev, i), g);
          }
    }
  k->njudged = k->nel;
  return 0;
}

/* Whether element e passes at level l under the options of c.  */
int
ck_elem_pass (const ctx *c, const elem *e, int l)
{
  switch (e->kind)
    {
    case E_FINITE:
      return e->q[l] <= c->ulps || (c->have_rtol && e->rel <= c->rtol);
    case E_SPECIAL:
      return e->special_equal;
    default:
      return 0;
    }
}

/* The status of valid or acceptable case k at level l.  */
static enum status
case_status (const ctx *c, const gcase *k, int l)
{
  enum status miss = k->kind == K_ACCEPTABLE ? S_NOTE : S_FAIL;
  if (k->answer == A_SKIP)
    return S_SKIP;
  if (k->answer != A_OUTPUTS)
    return miss;
  if (k->njudged == 0)
    return S_SKIP;
  if (l > 0 && k->beyond32 && !c->vars[k->var].emulates32)
    return S_SKIP;              /* no binary32 computation can give these values */
  for (size_t i = 0; i < k->nel; i++)
    if (!ck_elem_pass (c, &k->el[i], l))
      return miss;
  return S_PASS;
}

/* Judge every case once into its record (elements, answer); 0 or 2
   without memory.  */
int
ck_judge (ctx *c)
{
  for (size_t i = 0; i < c->ncases; i++)
    {
      gcase *k = &c->cases[i];
      json_t *err = k->res ? json_object_get (k->res, "error") : NULL;
      json_t *skip = k->res ? json_object_get (k->res, "skip") : NULL;
      k->beyond32 = case_beyond32 (c, k->test);
      if (k->res == NULL)
        k->answer = A_MISSING;
      else if (skip != NULL)
        {
          k->answer = A_SKIP;
          k->cand_error = json_string_value (skip);
        }
      else if (err != NULL)
        {
          k->answer = A_ERROR;
          k->cand_error = json_string_value (err);
        }
      else
        {
          k->answer = A_OUTPUTS;
          k->nonfinite_out = nonfinite_output (json_object_get (k->res, "outputs"));
          if (k->kind != K_INVALID && judge_outputs (c, k))
            return 2;
        }
      if (k->kind != K_INVALID)
        for (int l = 0; l < NLEVELS; l++)
          k->st[l] = case_status (c, k, l);
    }
  return 0;
}

/* Free the records of ck_judge.  */
void
ck_judge_free (ctx *c)
{
  for (size_t i = 0; i < c->ncases; i++)
    {
      for (size_t j = 0; j < c->cases[i].nel; j++)
        free (c->cases[i].el[j].problem_buf);
      free (c->cases[i].el);
      c->cases[i].el = NULL;
      c->cases[i].nel = 0;
    }
}
