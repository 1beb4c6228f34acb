/* tgeneric.c -- one test for every formula, variant and golden case of the
 * registry, in the manner of MPFR's tgeneric: a formula added to the
 * registry is tested here without a line of its own.
 *
 * For every case the registry declares:
 *   - the outcome is the declared one, in both backends;
 *   - binary64 agrees with the certified MPFR value within the golden
 *     tolerance rule |y_d - y| <= U u (sens + max(|y|, lambda));
 *   - the value certified from 256 bits agrees with the one from 512 bits
 *     to the digits both certify;
 *   - every output aliased with every input of the same length gives
 *     exactly the unaliased results, in both backends (reference/README.md,
 *     "Aliasing").
 * For the first valid case of every variant, NaN, infinite, empty and
 * mismatched inputs give a status or finite outputs, never a crash or a
 * NaN.  Run under AddressSanitizer by make check-sanitize. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "core/registry.h"
#include "core/args.h"
#include "core/evaluate.h"
#include "check/rules.h"
#include "core/domain.h"
#include "generic.h"

#define MAX_SLOTS (RL_MAX_IN + RL_MAX_PARAMS)

/* --- arguments ---------------------------------------------------------- */

int
generic_parse_case (const rl_variant *v, const rl_case *c, rl_args *a, char *err, size_t size)
{
  char *copy = strdup (c->args), *argv[MAX_SLOTS], *save = NULL;
  int argc = 0, status;
  if (copy == NULL)
    return -1;
  for (char *w = strtok_r (copy, " ", &save); w && argc < MAX_SLOTS;
       w = strtok_r (NULL, " ", &save))
    argv[argc++] = w;
  status = rl_args_parse (v, argc, argv, a, err, size);
  free (copy);
  return status == 0 ? 0 : -1;
}

/* Parses case c of f for variant v; fails the test on a parse error. */
static void
parse_case (const rl_formula *f, const rl_variant *v, const rl_case *c, rl_args *a)
{
  char err[256];
  ck_assert_msg (generic_parse_case (v, c, a, err, sizeof err) == 0, "%s [%s] '%s': %s", f->id,
                 v->name, c->args, err);
}

void
generic_args_copy (const rl_variant *v, const rl_args *a, rl_args *b)
{
  *b = *a;
  for (size_t i = 0; v->io->in[i].name; i++)
    {
      size_t n = a->len[i] ? a->len[i] : 1;
      b->re[i] = a->re[i] ? malloc (n * sizeof (double)) : NULL;
      b->iv[i] = a->iv[i] ? malloc (n * sizeof (long)) : NULL;
      if (a->re[i])
        memcpy (b->re[i], a->re[i], a->len[i] * sizeof (double));
      if (a->iv[i])
        memcpy (b->iv[i], a->iv[i], a->len[i] * sizeof (long));
    }
}

/* A valid case lies in every input's declared domain. */
static void
check_domains (const rl_formula *f, const rl_variant *v, const rl_case *c, const rl_args *a)
{
  for (size_t i = 0; v->io->in[i].name; i++)
    {
      rl_domain d;
      char err[160];
      ck_assert_msg (rl_domain_parse (v->io->in[i].domain, &d, err, sizeof err) == 0, "%s [%s] "
                     "input %s: %s", f->id, v->name, v->io->in[i].name, err);
      ck_assert_msg (rl_domain_holds_all (&d, a->re[i], a->iv[i], a->len[i]), "%s [%s] '%s': "
                     "a valid case outside the declared domain of %s (%s)", f->id, v->name,
                     c->args, v->io->in[i].name, v->io->in[i].domain);
    }
}

static size_t
total (const size_t *len, size_t n)
{
  size_t t = 0;
  for (size_t k = 0; k < n; k++)
    t += len[k];
  return t;
}

/* --- one evaluation with chosen storage ---------------------------------- */

/* Evaluates in binary64 with output k stored over real slot j (both of the
 * same length), or unaliased when k < 0; y receives every output. */
static int
eval_d_aliased (const rl_variant *v, const rl_args *a, const size_t *out_len, int k, int j,
                double *y)
{
  size_t nx = rl_args_nx (v, a), ny = total (out_len, rl_n_out (v->io));
  size_t off[MAX_SLOTS], n_slots = rl_n_in (v->io) + rl_n_params (v);
  double *x = malloc ((nx ? nx : 1) * sizeof *x), *yy = calloc (ny ? ny : 1, sizeof *yy);
  const double *xp[MAX_SLOTS];
  double *yp[RL_MAX_OUT];
  int status;
  ck_assert (x && yy);
  rl_args_flatten (v, a, x);
  rl_args_slots (v, a, off);
  for (size_t i = 0; i < n_slots; i++)
    xp[i] = off[i] == RL_NO_SLOT ? NULL : x + off[i];
  for (size_t o = 0, n = 0; o < rl_n_out (v->io); n += out_len[o], o++)
    yp[o] = yy + n;
  if (k >= 0)
    {
      memcpy (yp[k], xp[j], out_len[k] * sizeof (double));
      xp[j] = yp[k];
    }
  status = v->io->eval_d (v, a, xp, yp);
  memcpy (y, yy, ny * sizeof (double));
  free (x);
  free (yy);
  return status;
}

/* The same in MPFR at the working precision; y initialised by the caller. */
static int
eval_mp_aliased (const rl_variant *v, const rl_args *a, const size_t *out_len, int k, int j,
                 mpfr_ptr y)
{
  size_t nx = rl_args_nx (v, a), ny = total (out_len, rl_n_out (v->io));
  size_t off[MAX_SLOTS], n_slots = rl_n_in (v->io) + rl_n_params (v);
  double *xd = malloc ((nx ? nx : 1) * sizeof *xd);
  mpfr_ptr x = malloc ((nx ? nx : 1) * sizeof *x), yy = malloc ((ny ? ny : 1) * sizeof *yy);
  mpfr_srcptr xp[MAX_SLOTS];
  mpfr_ptr yp[RL_MAX_OUT];
  int status;
  ck_assert (xd && x && yy);
  rl_args_flatten (v, a, xd);
  for (size_t i = 0; i < nx; i++)
    mpfr_init2 (x + i, rlref_mp_prec ()), mpfr_set_d (x + i, xd[i], MPFR_RNDN);
  for (size_t i = 0; i < ny; i++)
    mpfr_init2 (yy + i, rlref_mp_prec ()), mpfr_set_zero (yy + i, 1);
  rl_args_slots (v, a, off);
  for (size_t i = 0; i < n_slots; i++)
    xp[i] = off[i] == RL_NO_SLOT ? NULL : x + off[i];
  for (size_t o = 0, n = 0; o < rl_n_out (v->io); n += out_len[o], o++)
    yp[o] = yy + n;
  if (k >= 0)
    {
      for (size_t e = 0; e < out_len[k]; e++)
        mpfr_set (yp[k] + e, xp[j] + e, MPFR_RNDN);
      xp[j] = yp[k];
    }
  status = v->io->eval_mp (v, a, xp, yp);
  for (size_t i = 0; i < ny; i++)
    {
      mpfr_set (y + i, yy + i, MPFR_RNDN);
      mpfr_clear (yy + i);
    }
  for (size_t i = 0; i < nx; i++)
    mpfr_clear (x + i);
  free (x);
  free (yy);
  free (xd);
  return status;
}

/* The length of real slot j (input or in_x parameter), or 0 if none. */
static size_t
slot_len (const rl_variant *v, const rl_args *a, size_t j)
{
  size_t n_in = rl_n_in (v->io);
  if (j < n_in)
    return v->io->in[j].kind == RL_REAL || v->io->in[j].kind == RL_REAL_ARRAY ? a->len[j] : 0;
  return v->params[j - n_in].in_x ? 1 : 0;
}

static int
same_double (double p, double q)
{
  return (isnan (p) && isnan (q)) || (p == q && signbit (p) == signbit (q));
}

/* Every output aliased with every same-length real input, both backends. */
static void
check_aliasing (const rl_formula *f, const rl_variant *v, const rl_case *c, const rl_args *a,
                const size_t *out_len)
{
  size_t n_out = rl_n_out (v->io), n_slots = rl_n_in (v->io) + rl_n_params (v);
  size_t ny = total (out_len, n_out);
  double *ref = calloc (ny ? ny : 1, sizeof *ref), *got = calloc (ny ? ny : 1, sizeof *got);
  mpfr_ptr mref = malloc ((ny ? ny : 1) * sizeof *mref), mgot = malloc ((ny ? ny : 1) * sizeof *mgot);
  int s_ref, ms_ref;
  ck_assert (ref && got && mref && mgot);
  for (size_t i = 0; i < ny; i++)
    mpfr_init2 (mref + i, RL_WORKING_BITS), mpfr_init2 (mgot + i, RL_WORKING_BITS);
  s_ref = eval_d_aliased (v, a, out_len, -1, 0, ref);
  ms_ref = eval_mp_aliased (v, a, out_len, -1, 0, mref);
  for (size_t k = 0; k < n_out; k++)
    for (size_t j = 0; j < n_slots; j++)
      {
        size_t len = slot_len (v, a, j);
        int s, ms;
        if (len == 0 || len != out_len[k])
          continue;
        s = eval_d_aliased (v, a, out_len, (int) k, (int) j, got);
        ck_assert_msg (s == s_ref, "%s [%s] '%s': output %s over input slot %zu: binary64 "
                       "status %d, unaliased %d", f->id, v->name, c->args, v->io->out[k].name,
                       j, s, s_ref);
        for (size_t e = 0; s == 0 && e < ny; e++)
          ck_assert_msg (same_double (got[e], ref[e]),
                         "%s [%s] '%s': output %s over input slot %zu changes binary64 element "
                         "%zu: %a, unaliased %a", f->id, v->name, c->args, v->io->out[k].name, j,
                         e, got[e], ref[e]);
        ms = eval_mp_aliased (v, a, out_len, (int) k, (int) j, mgot);
        ck_assert_msg (ms == ms_ref, "%s [%s] '%s': output %s over input slot %zu: MPFR "
                       "status %d, unaliased %d", f->id, v->name, c->args, v->io->out[k].name,
                       j, ms, ms_ref);
        for (size_t e = 0; ms == 0 && e < ny; e++)
          ck_assert_msg ((mpfr_nan_p (mgot + e) && mpfr_nan_p (mref + e))
                         || (mpfr_equal_p (mgot + e, mref + e)
                             && mpfr_signbit (mgot + e) == mpfr_signbit (mref + e)),
                         "%s [%s] '%s': output %s over input slot %zu changes MPFR element %zu",
                         f->id, v->name, c->args, v->io->out[k].name, j, e);
      }
  for (size_t i = 0; i < ny; i++)
    mpfr_clear (mref + i), mpfr_clear (mgot + i);
  free (mref);
  free (mgot);
  free (ref);
  free (got);
}

/* --- binary64 against MPFR, 256 against 512 bits -------------------------- */

static void
check_values (const rl_formula *f, const rl_variant *v, const rl_case *c, const rl_args *a)
{
  rl_result r, r2;
  int ulps = f->ulps ? f->ulps : RL_DEFAULT_ULPS;
  rl_outcome declared = rl_case_outcome (c, v);
  int status = rl_evaluate (v, a, RL_WORKING_BITS, RL_MIN_DIGITS, 1, &r);
  ck_assert_msg ((status == 0) == (declared != RL_INVALID), "%s [%s] '%s': declared %s, got %s",
                 f->id, v->name, c->args, declared == RL_INVALID ? "invalid" : "valid",
                 rlref_status_name (status));
  ck_assert_msg (r.status_d == status, "%s [%s] '%s': binary64 says %s, MPFR %s", f->id,
                 v->name, c->args, rlref_status_name (r.status_d), rlref_status_name (status));
  if (status)
    {
      rl_result_free (&r);
      return;
    }
  for (size_t k = 0; k < r.ny; k++)
    {
      mpfr_srcptr y = r.cert.value + k;
      double yd = r.yd[k], exact = mpfr_get_d (y, MPFR_RNDN);
      if (!mpfr_number_p (y) || isinf (exact))
        {
          ck_assert_msg (same_double (yd, exact), "%s [%s] '%s' element %zu: binary64 %a, "
                         "exact beyond binary64 (%a)", f->id, v->name, c->args, k, yd, exact);
          continue;
        }
      {
        double tol = ulps * 0x1p-53 * (r.cert.sens[k] + fmax (fabs (exact), DBL_MIN));
        mpfr_t err;
        mpfr_init2 (err, RL_WORKING_BITS);
        mpfr_sub_d (err, y, yd, MPFR_RNDN);
        mpfr_abs (err, err, MPFR_RNDN);
        if (mpfr_zero_p (y))
          tol = ulps * 0x1p-53 * r.cert.sens[k];
        ck_assert_msg (isfinite (yd) && mpfr_cmp_d (err, tol) <= 0,
                       "%s [%s] '%s' element %zu: binary64 %a, certified %.17g, error %.3g "
                       "> %.3g (U = %d)", f->id, v->name, c->args, k, yd, exact,
                       mpfr_get_d (err, MPFR_RNDN), tol, ulps);
        mpfr_clear (err);
      }
    }
  /* the value certified from 512 bits agrees with the one from 256 bits */
  ck_assert_int_eq (rl_evaluate (v, a, 2 * RL_WORKING_BITS, RL_MIN_DIGITS, 0, &r2), 0);
  for (size_t k = 0; k < r.ny; k++)
    {
      mpfr_srcptr y1 = r.cert.value + k, y2 = r2.cert.value + k;
      int need = r.cert.digits[k] < r2.cert.digits[k] ? r.cert.digits[k] : r2.cert.digits[k];
      if (!mpfr_regular_p (y1) || !mpfr_regular_p (y2)
          || r.cert.digits[k] == 0 || r2.cert.digits[k] == 0)
        {
          /* zeros, NaNs, infinities: the same at both; a value that is 0 at
           * one precision is below 2^-(p/2) at the other (ZeroWithinPrecision) */
          int same = (mpfr_nan_p (y1) && mpfr_nan_p (y2)) || mpfr_equal_p (y1, y2);
          int zero_bound = (mpfr_zero_p (y1) || mpfr_get_exp (y1) < -(mpfr_exp_t) RL_WORKING_BITS / 2)
                           && (mpfr_zero_p (y2) || mpfr_get_exp (y2) < -(mpfr_exp_t) RL_WORKING_BITS / 2);
          ck_assert_msg (same || zero_bound, "%s [%s] '%s' element %zu: 256 and 512 bits differ "
                         "in kind", f->id, v->name, c->args, k);
          continue;
        }
      ck_assert_msg (rlref_agreeing_digits (y1, y2, 10000) >= need - 1,
                     "%s [%s] '%s' element %zu: 256 bits (%d digits) and 512 bits (%d digits) "
                     "agree to %d digits", f->id, v->name, c->args, k, r.cert.digits[k],
                     r2.cert.digits[k], rlref_agreeing_digits (y1, y2, 10000));
    }
  rl_result_free (&r2);
  check_aliasing (f, v, c, a, r.out_len);
  rl_result_free (&r);
}

/* --- bad inputs ----------------------------------------------------------- */

/* Evaluates both backends once (no certification): a status, or outputs
 * that are not NaN. */
static void
check_no_nan (const rl_formula *f, const rl_variant *v, const rl_args *a, const char *what)
{
  size_t len[RL_MAX_OUT], ny;
  double *y;
  mpfr_ptr my;
  int s;
  if (rl_out_lengths (v, a, len))
    return;
  ny = total (len, rl_n_out (v->io));
  y = calloc (ny ? ny : 1, sizeof *y);
  my = malloc ((ny ? ny : 1) * sizeof *my);
  ck_assert (y && my);
  for (size_t i = 0; i < ny; i++)
    mpfr_init2 (my + i, RL_WORKING_BITS);
  s = eval_d_aliased (v, a, len, -1, 0, y);
  for (size_t e = 0; s == 0 && e < ny; e++)
    ck_assert_msg (!isnan (y[e]), "%s [%s] %s: binary64 succeeds with a NaN output element %zu",
                   f->id, v->name, what, e);
  s = eval_mp_aliased (v, a, len, -1, 0, my);
  for (size_t e = 0; s == 0 && e < ny; e++)
    ck_assert_msg (!mpfr_nan_p (my + e), "%s [%s] %s: MPFR succeeds with a NaN output element "
                   "%zu", f->id, v->name, what, e);
  for (size_t i = 0; i < ny; i++)
    mpfr_clear (my + i);
  free (my);
  free (y);
}

static void
check_bad_inputs (const rl_formula *f, const rl_variant *v, const rl_args *a)
{
  static const double specials[] = { NAN, INFINITY, -INFINITY, 0x1p1023, -0x1p1023, 0.0 };
  char what[128];
  for (size_t i = 0; v->io->in[i].name; i++)
    {
      rl_kind kind = v->io->in[i].kind;
      rl_args b;
      if ((kind == RL_REAL || kind == RL_REAL_ARRAY) && a->len[i] > 0)
        for (size_t s = 0; s < sizeof specials / sizeof specials[0]; s++)
          {
            generic_args_copy (v, a, &b);
            b.re[i][0] = specials[s];
            snprintf (what, sizeof what, "%s[0] = %g", v->io->in[i].name, specials[s]);
            check_no_nan (f, v, &b, what);
            rl_args_free (&b);
          }
      if (kind == RL_REAL_ARRAY || kind == RL_INT_ARRAY)
        {
          /* empty */
          generic_args_copy (v, a, &b);
          b.len[i] = 0;
          snprintf (what, sizeof what, "%s empty", v->io->in[i].name);
          check_no_nan (f, v, &b, what);
          rl_args_free (&b);
          /* one element longer than the case */
          generic_args_copy (v, a, &b);
          if (a->len[i] > 0)
            {
              size_t n = a->len[i] + 1;
              if (kind == RL_REAL_ARRAY)
                {
                  b.re[i] = realloc (b.re[i], n * sizeof (double));
                  b.re[i][n - 1] = b.re[i][0];
                }
              else
                {
                  b.iv[i] = realloc (b.iv[i], n * sizeof (long));
                  b.iv[i][n - 1] = b.iv[i][0];
                }
              b.len[i] = n;
              snprintf (what, sizeof what, "%s one longer", v->io->in[i].name);
              check_no_nan (f, v, &b, what);
            }
          rl_args_free (&b);
        }
    }
}

/* --- the suite: one loop test per formula --------------------------------- */

/* The formulas to test: every one, or those whose id begins with one of the
 * prefixes given on the command line. */
static size_t selected[4096];

START_TEST (every_case)
{
  const rl_formula *f = rl_formula_at (selected[_i]);
  size_t n_cases = 0;
  for (size_t g = 0; f->variants[g].name; g++)
    {
      const rl_variant *v = &f->variants[g];
      int probed = 0;
      for (size_t c = 0; f->cases[c].variants; c++)
        {
          rl_args a;
          if (!rl_list_names (f->cases[c].variants, v->name))
            continue;
          parse_case (f, v, &f->cases[c], &a);
          if (rl_case_outcome (&f->cases[c], v) == RL_VALID)
            check_domains (f, v, &f->cases[c], &a);
          check_values (f, v, &f->cases[c], &a);
          if (!probed && rl_case_outcome (&f->cases[c], v) != RL_INVALID)
            {
              check_bad_inputs (f, v, &a);
              probed = 1;
            }
          rl_args_free (&a);
          n_cases++;
        }
    }
  ck_assert_msg (n_cases > 0, "%s: no golden case was run", f->id);
}
END_TEST

/* --- the domain fuzzer (fuzz.c) ------------------------------------------ */

/* The fuzzer's settings, from the environment: RLREF_FUZZ_SEED (default
 * 20261201), RLREF_FUZZ_DRAWS (draws per variant; default 60, the same
 * draws on every machine), RLREF_FUZZ_SECONDS (instead, processor seconds
 * for all the selected formulas together, as many draws as fit; default 0:
 * no limit), RLREF_FUZZ_PENDING (a file
 * of "ID VARIANT why" lines, VARIANT "*" for all, whose variants are
 * drawn but not held: known failures, each an open defect; default
 * tests/generic/fuzz_pending), RLREF_FUZZ_ALL=1 (hold the pending ones
 * too); RLREF_FUZZ=0 runs the golden cases alone, RLREF_FUZZ=only the fuzzer
 * alone. */
static unsigned long fuzz_seed = 20261201;
static size_t fuzz_draws = (size_t) -1;
static double fuzz_seconds = 0, fuzz_per_variant;
static char *fuzz_pending;
static int fuzz_all;

static const char *
env (const char *name, const char *dflt)
{
  const char *s = getenv (name);
  return s && *s ? s : dflt;
}

/* Whether variant v of f is listed as pending. */
static int
pending (const rl_formula *f, const rl_variant *v)
{
  size_t lf = strlen (f->id), lv = strlen (v->name);
  for (const char *p = fuzz_pending; p && *p;)
    {
      const char *e = strchr (p, '\n');
      size_t n = e ? (size_t) (e - p) : strlen (p);
      if (n > lf && strncmp (p, f->id, lf) == 0 && p[lf] == ' '
          && ((p[lf + 1] == '*' && (n == lf + 2 || p[lf + 2] == ' '))
              || (n >= lf + 1 + lv && strncmp (p + lf + 1, v->name, lv) == 0
                  && (n == lf + 1 + lv || p[lf + 1 + lv] == ' '))))
        return 1;
      p = e ? e + 1 : p + n;
    }
  return 0;
}

START_TEST (fuzz_formula)
{
  const rl_formula *f = rl_formula_at (selected[_i]);
  size_t failed = 0, ran, total_ran = 0;
  for (size_t g = 0; f->variants[g].name; g++)
    {
      const rl_variant *v = &f->variants[g];
      size_t bad = fuzz_variant (f, v, fuzz_seed, fuzz_draws, fuzz_per_variant, &ran);
      total_ran += ran;
      if (bad && !fuzz_all && pending (f, v))
        fprintf (stderr, "fuzz: %s [%s]: %zu failures (pending: tests/generic/fuzz_pending)\n",
                 f->id, v->name, bad);
      else if (!bad && ran > 0 && pending (f, v))
        fprintf (stderr, "fuzz: %s [%s]: pending, but none of %zu draws failed (remove its line "
                 "from tests/generic/fuzz_pending if a longer run agrees)\n", f->id, v->name, ran);
      else
        failed += bad;
    }
  ck_assert_msg (failed == 0, "%s: %zu draws of the domain fuzzer failed (seed %lu; above: "
                 "the rlref eval commands)", f->id, failed, fuzz_seed);
  (void) total_ran;
}
END_TEST

/* Reads the fuzzer's settings; the pending file may be missing. */
static void
fuzz_settings (size_t n_formulas)
{
  size_t nv = 0;
  FILE *in;
  fuzz_seed = strtoul (env ("RLREF_FUZZ_SEED", "20261201"), NULL, 10);
  if (getenv ("RLREF_FUZZ_DRAWS"))
    fuzz_draws = strtoul (getenv ("RLREF_FUZZ_DRAWS"), NULL, 10);
  fuzz_seconds = strtod (env ("RLREF_FUZZ_SECONDS", "0"), NULL);
  fuzz_all = strcmp (env ("RLREF_FUZZ_ALL", "0"), "1") == 0;
  for (size_t k = 0; k < n_formulas; k++)
    nv += rl_n_variants (rl_formula_at (selected[k]));
  fuzz_per_variant = fuzz_seconds > 0 && nv > 0 ? fuzz_seconds / (double) nv : 0;
  if (fuzz_draws == (size_t) -1 && fuzz_seconds <= 0)
    fuzz_draws = 60;
  in = fopen (env ("RLREF_FUZZ_PENDING", "tests/generic/fuzz_pending"), "r");
  if (in)
    {
      size_t cap = 1 << 16, n = 0;
      fuzz_pending = calloc (cap, 1);
      if (fuzz_pending)
        n = fread (fuzz_pending, 1, cap - 1, in);
      (void) n;
      fclose (in);
    }
  printf ("fuzz: seed %lu, %s%g s for %zu variants\n", fuzz_seed,
          fuzz_draws == (size_t) -1 ? "" : "a bounded number of draws, ", fuzz_seconds, nv);
}

int
main (int argc, char **argv)
{
  Suite *s = suite_create ("generic");
  TCase *tc = tcase_create ("every formula, variant and case");
  SRunner *sr;
  int failed, n = 0;
  if (rl_formula_count () > sizeof selected / sizeof selected[0])
    {
      fprintf (stderr, "tgeneric: more formulas than the test can hold\n");
      return 1;
    }
  for (size_t k = 0; k < rl_formula_count (); k++)
    {
      int take = argc < 2;
      for (int a = 1; a < argc && !take; a++)
        take = strncmp (rl_formula_at (k)->id, argv[a], strlen (argv[a])) == 0;
      if (take)
        selected[n++] = k;
    }
  if (n == 0)
    {
      fprintf (stderr, "tgeneric: no formula %s\n",
               argc < 2 ? "in the registry" : "has an id beginning with a prefix given");
      return 1;
    }
  /* RLREF_FUZZ=0: the cases alone; RLREF_FUZZ=only: the fuzzer alone */
  if (strcmp (env ("RLREF_FUZZ", "1"), "only") != 0)
    {
      tcase_set_timeout (tc, 600);
      tcase_add_loop_test (tc, every_case, 0, n);
      suite_add_tcase (s, tc);
    }
  if (strcmp (env ("RLREF_FUZZ", "1"), "0") != 0)
    {
      TCase *tf = tcase_create ("domain fuzzer");
      fuzz_settings ((size_t) n);
      tcase_set_timeout (tf, 3600);
      tcase_add_loop_test (tf, fuzz_formula, 0, n);
      suite_add_tcase (s, tf);
    }
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  printf ("%d passed, %d failed\n", srunner_ntests_run (sr) - failed, failed);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
