/* test_primitives.c -- sigmoid, log_sigmoid, softplus, log1mexp, logsumexp,
 * softmax, log_softmax, mean, variance and stddev, in binary64 (_d) and
 * MPFR (_mp).
 *
 * Expected values are closed forms, exact identities, or the RV_ decimal
 * strings of refvalues.h (gen_refvalues.py: mpmath, mp.dps = 120, on the
 * exact binary64 inputs).  The stable forms are set against the naive ones
 * the library keeps, the binary64 results against the MPFR ones rounded to
 * double on seeded random arguments; moments near the ends of the binary64
 * range must be the scaled values; and every function is held to the
 * aliasing rule of reference/README.md. */
#include "testutil.h"

#define PREC 256

typedef int d1_fn (double *, const double *);
typedef int mp1_fn (mpfr_ptr, mpfr_srcptr);
typedef int dv_fn (double *, const double *, size_t);
typedef int mpv_fn (mpfr_ptr, mpfr_srcptr, size_t);

/* Every scalar primitive in the two backends (same order): the four stable
 * ones first, then the naive forms. */
static d1_fn *const fd[] = { rlref_sigmoid_d, rlref_log_sigmoid_d, rlref_softplus_d,
                             rlref_log1mexp_d, rlref_sigmoid_naive_d,
                             rlref_log_sigmoid_naive_d, rlref_softplus_naive_d };
static mp1_fn *const fm[] = { rlref_sigmoid_mp, rlref_log_sigmoid_mp, rlref_softplus_mp,
                              rlref_log1mexp_mp, rlref_sigmoid_naive_mp,
                              rlref_log_sigmoid_naive_mp, rlref_softplus_naive_mp };

/* f(x) at prec bits: working precision and result both prec; x exact. */
static int
mp1_at (mp1_fn *f, mpfr_ptr r, double x, mpfr_prec_t prec)
{
  mpfr_t xm;
  int s;
  mpfr_prec_t old = rlref_mp_set_prec (prec);
  mpfr_set_prec (r, prec);
  mpfr_init2 (xm, 64);
  mpfr_set_d (xm, x, MPFR_RNDN);
  s = f (r, xm);
  mpfr_clear (xm);
  rlref_mp_set_prec (old);
  return s;
}

/* A scalar primitive at x against the decimal string want: the MPFR value
 * at 256 bits to >= 75 digits, the binary64 value within tol of the double
 * nearest to want (strtod rounds correctly). */
static void
check_scalar (d1_fn *fd, mp1_fn *fmp, double x, const char *want, double tol)
{
  mpfr_t r;
  double rd = NAN, wd = strtod (want, NULL);
  mpfr_init2 (r, PREC);
  TU_OK (mp1_at (fmp, r, x, PREC));
  ck_assert_msg (tu_mp_digits_str (r, want) >= 75,
                 "x = %.17g: MPFR %s vs %s: %d digits", x, tu_mp_str (r), want,
                 tu_mp_digits_str (r, want));
  mpfr_clear (r);
  TU_OK (fd (&rd, &x));
  ck_assert_msg (tu_rel_err (rd, wd) <= tol,
                 "x = %.17g: double %.17g vs %.17g: rel err %.3g > %.3g", x, rd,
                 wd, tu_rel_err (rd, wd), tol);
}

/* --- exact values ------------------------------------------------------- */

/* sigma(0) = 1/2 exactly (both backends). */
START_TEST (test_sigmoid_zero_is_half)
{
  double x = 0.0, r;
  mpfr_t xm, rm;
  TU_OK (rlref_sigmoid_d (&r, &x));
  TU_ASSERT_SAME (r, 0.5);
  mpfr_inits2 (PREC, xm, rm, (mpfr_ptr) 0);
  mpfr_set_zero (xm, 1);
  TU_OK (rlref_sigmoid_mp (rm, xm));
  ck_assert (mpfr_cmp_d (rm, 0.5) == 0);
  mpfr_clears (xm, rm, (mpfr_ptr) 0);
}
END_TEST

/* softplus(0) = log 2 and log_sigmoid(0) = -log 2 (log 2 from mpmath). */
START_TEST (test_softplus_zero_is_log2)
{
  check_scalar (rlref_softplus_d, rlref_softplus_mp, 0.0,
                RV_LOG2,
                TU_TOL0);
  check_scalar (rlref_log_sigmoid_d, rlref_log_sigmoid_mp, 0.0,
                RV_MINUS_LOG2,
                TU_TOL0);
}
END_TEST

/* Moderate arguments against mpmath: sigma(1.5) is seed 000's worked
 * example (~0.82); sigma(0.1) with the double 0.1. */
START_TEST (test_moderate_values)
{
  check_scalar (rlref_sigmoid_d, rlref_sigmoid_mp, 1.5,
                RV_SIGMOID_1P5,
                TU_TOL0);
  check_scalar (rlref_sigmoid_d, rlref_sigmoid_mp, 0.1,
                RV_SIGMOID_0P1,
                TU_TOL0);
  check_scalar (rlref_sigmoid_d, rlref_sigmoid_mp, -2.0,
                RV_SIGMOID_M2,
                TU_TOL1);
  check_scalar (rlref_log_sigmoid_d, rlref_log_sigmoid_mp, 2.5,
                RV_LOG_SIGMOID_2P5,
                TU_TOL0);
  check_scalar (rlref_softplus_d, rlref_softplus_mp, -2.5,
                RV_SOFTPLUS_M2P5,
                TU_TOL0);
  check_scalar (rlref_softplus_d, rlref_softplus_mp, 0.1,
                RV_SOFTPLUS_0P1,
                TU_TOL0);
}
END_TEST

/* log1mexp(x) = log(1 - e^x): mpmath log(-expm1(x)) / log1p(-exp(x)). */
START_TEST (test_log1mexp_values)
{
  check_scalar (rlref_log1mexp_d, rlref_log1mexp_mp, -1.0,
                RV_LOG1MEXP_M1,
                TU_TOL0);
  check_scalar (rlref_log1mexp_d, rlref_log1mexp_mp, -0.5,
                RV_LOG1MEXP_M0P5,
                TU_TOL0);
  /* near 0: log(1 - e^x) ~ log(-x) */
  check_scalar (rlref_log1mexp_d, rlref_log1mexp_mp, -1e-20,
                RV_LOG1MEXP_M1EM20,
                TU_TOL0);
  check_scalar (rlref_log1mexp_d, rlref_log1mexp_mp, -1e-300,
                RV_LOG1MEXP_M1EM300,
                TU_TOL0);
  /* far left: log1mexp(x) ~ -e^x */
  check_scalar (rlref_log1mexp_d, rlref_log1mexp_mp, -50.0,
                RV_LOG1MEXP_M50,
                TU_TOL0);
}
END_TEST

/* log1mexp(0) = log 0 = -inf in both backends. */
START_TEST (test_log1mexp_zero_is_minus_inf)
{
  double x = 0.0, r = 0.0;
  mpfr_t rm;
  TU_OK (rlref_log1mexp_d (&r, &x));
  ck_assert (isinf (r) && r < 0);
  mpfr_init2 (rm, PREC);
  TU_OK (mp1_at (rlref_log1mexp_mp, rm, 0.0, PREC));
  ck_assert (mpfr_inf_p (rm) && mpfr_sgn (rm) < 0);
  mpfr_clear (rm);
}
END_TEST

/* log1mexp across its branch point -log 2: the double nearest -log 2 and
 * its two neighbours, one ulp apart, each within 2 eps of mpmath. */
START_TEST (test_log1mexp_branch_point)
{
  static const char *const branch[3] = RV_LOG1MEXP_BRANCH;
  check_scalar (rlref_log1mexp_d, rlref_log1mexp_mp, -0.6931471805599453,
                branch[0],
                TU_TOL0);
  check_scalar (rlref_log1mexp_d, rlref_log1mexp_mp, -0.6931471805599452,
                branch[1],
                TU_TOL0);
  check_scalar (rlref_log1mexp_d, rlref_log1mexp_mp, -0.6931471805599454,
                branch[2],
                TU_TOL0);
}
END_TEST

/* Identities at 256 bits: sigma(x) + sigma(-x) = 1, softplus(x) -
 * softplus(-x) = x, log_sigmoid(x) - log_sigmoid(-x) = x. */
START_TEST (test_symmetry_identities)
{
  static const double xs[] = { 0.1, 1.5, 7.25, 33.0, 300.0 };
  mpfr_t a, b, t;
  mpfr_inits2 (PREC, a, b, t, (mpfr_ptr) 0);
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
    {
      TU_OK (mp1_at (rlref_sigmoid_mp, a, xs[i], PREC));
      TU_OK (mp1_at (rlref_sigmoid_mp, b, -xs[i], PREC));
      mpfr_add (t, a, b, MPFR_RNDN);
      TU_ASSERT_MP_STR (t, "1", 75);
      TU_OK (mp1_at (rlref_softplus_mp, a, xs[i], PREC));
      TU_OK (mp1_at (rlref_softplus_mp, b, -xs[i], PREC));
      mpfr_sub (t, a, b, MPFR_RNDN);
      mpfr_sub_d (t, t, xs[i], MPFR_RNDN);
      TU_ASSERT_MP_SMALL (t, 1e-74 * xs[i]);
      TU_OK (mp1_at (rlref_log_sigmoid_mp, a, xs[i], PREC));
      TU_OK (mp1_at (rlref_log_sigmoid_mp, b, -xs[i], PREC));
      mpfr_sub (t, a, b, MPFR_RNDN);
      mpfr_sub_d (t, t, xs[i], MPFR_RNDN);
      TU_ASSERT_MP_SMALL (t, 1e-74 * xs[i]);
    }
  mpfr_clears (a, b, t, (mpfr_ptr) 0);
}
END_TEST

/* --- extreme arguments ----------------------------------------------------- */

/* sigma(+-1e4): 1 and 0 in double; in MPFR sigma(-1e4) = e^-1e4/(1 + e^-1e4)
 * ~ 1.1354838653e-4343 (mpmath) and 1 - sigma(1e4) is the same number. */
START_TEST (test_sigmoid_extreme)
{
  double x, r;
  mpfr_t rm, t;
  x = 1e4;
  TU_OK (rlref_sigmoid_d (&r, &x));
  TU_ASSERT_SAME (r, 1.0);
  x = -1e4;
  TU_OK (rlref_sigmoid_d (&r, &x));
  TU_ASSERT_SAME (r, 0.0);
  x = 1e300;
  TU_OK (rlref_sigmoid_d (&r, &x));
  TU_ASSERT_SAME (r, 1.0);
  x = -1e300;
  TU_OK (rlref_sigmoid_d (&r, &x));
  TU_ASSERT_SAME (r, 0.0);
  /* 36.75: the largest quarter-integer below 1 - eps/2 */
  check_scalar (rlref_sigmoid_d, rlref_sigmoid_mp, 36.75,
                RV_SIGMOID_36P75,
                TU_TOL0);
  /* deep underflow side, still normal in double */
  check_scalar (rlref_sigmoid_d, rlref_sigmoid_mp, -700.0,
                RV_SIGMOID_M700,
                TU_TOL1);
  mpfr_inits2 (PREC, rm, t, (mpfr_ptr) 0);
  TU_OK (mp1_at (rlref_sigmoid_mp, rm, -1e4, PREC));
  TU_ASSERT_MP_STR (rm, RV_SIGMOID_M1E4, 75);
  TU_OK (mp1_at (rlref_sigmoid_mp, rm, 1e4, PREC));
  mpfr_ui_sub (t, 1, rm, MPFR_RNDN);
  /* 1 - sigma(1e4) is below 2^-256: sigma rounds to 1 at 256 bits */
  ck_assert (mpfr_zero_p (t) || mpfr_cmp_d (t, 0x1p-255) < 0);
  TU_OK (mp1_at (rlref_sigmoid_mp, rm, -1e300, PREC));
  ck_assert (mpfr_number_p (rm) && mpfr_sgn (rm) >= 0 && mpfr_cmp_d (rm, 1e-300) < 0);
  TU_OK (mp1_at (rlref_sigmoid_mp, rm, 1e300, PREC));
  ck_assert (mpfr_cmp_ui (rm, 1) == 0);
  mpfr_clears (rm, t, (mpfr_ptr) 0);
}
END_TEST

/* sigma(-710) ~ 4.4762862256751e-309 (mpmath): subnormal in double but not
 * zero; the naive 1/(1 + e^710) gives 0 since e^710 overflows. */
START_TEST (test_sigmoid_subnormal_vs_naive)
{
  double x = -710.0, r, rn;
  const double want = tu_d (RV_SIGMOID_M710);
  TU_OK (rlref_sigmoid_d (&r, &x));
  TU_OK (rlref_sigmoid_naive_d (&rn, &x));
  TU_ASSERT_REL (r, want, 1e-12);     /* subnormal: fewer bits */
  TU_ASSERT_SAME (rn, 0.0);
}
END_TEST

/* log_sigmoid(x) ~ x for x -> -inf: -1000 and -1e300 in double (the
 * correction e^x underflows), -1000 - 5e-435 at 256 bits rounds to -1000;
 * log_sigmoid(1e4) = -log1p(e^-1e4) ~ -1.1354838653e-4343 in MPFR. */
START_TEST (test_log_sigmoid_extreme)
{
  double x, r;
  mpfr_t rm;
  x = -1000.0;
  TU_OK (rlref_log_sigmoid_d (&r, &x));
  TU_ASSERT_SAME (r, -1000.0);
  x = -1e300;
  TU_OK (rlref_log_sigmoid_d (&r, &x));
  TU_ASSERT_SAME (r, -1e300);
  x = 1e300;
  TU_OK (rlref_log_sigmoid_d (&r, &x));
  ck_assert (r == 0.0);
  check_scalar (rlref_log_sigmoid_d, rlref_log_sigmoid_mp, -30.0,
                RV_LOG_SIGMOID_M30,
                TU_TOL0);
  mpfr_init2 (rm, PREC);
  TU_OK (mp1_at (rlref_log_sigmoid_mp, rm, -1000.0, PREC));
  ck_assert (mpfr_cmp_si (rm, -1000) == 0);
  TU_OK (mp1_at (rlref_log_sigmoid_mp, rm, 1e4, PREC));
  TU_ASSERT_MP_STR (rm, RV_LOG_SIGMOID_1E4, 75);
  TU_OK (mp1_at (rlref_log_sigmoid_mp, rm, -1e300, PREC));
  ck_assert (mpfr_cmp_d (rm, -1e300) == 0);
  mpfr_clear (rm);
}
END_TEST

/* softplus at +-1e4: 1e4 exactly and e^-1e4 (underflow to 0) in double;
 * in MPFR softplus(-1e4) = log1p(e^-1e4) ~ 1.1354838653e-4343 (mpmath). */
START_TEST (test_softplus_extreme)
{
  double x, r;
  mpfr_t rm;
  x = 1e4;
  TU_OK (rlref_softplus_d (&r, &x));
  TU_ASSERT_SAME (r, 1e4);
  x = -1e4;
  TU_OK (rlref_softplus_d (&r, &x));
  TU_ASSERT_SAME (r, 0.0);
  x = 1e300;
  TU_OK (rlref_softplus_d (&r, &x));
  TU_ASSERT_SAME (r, 1e300);
  x = 745.0;
  TU_OK (rlref_softplus_d (&r, &x));
  TU_ASSERT_SAME (r, 745.0);
  mpfr_init2 (rm, PREC);
  TU_OK (mp1_at (rlref_softplus_mp, rm, -1e4, PREC));
  TU_ASSERT_MP_STR (rm, RV_SOFTPLUS_M1E4, 75);
  TU_OK (mp1_at (rlref_softplus_mp, rm, 1e4, PREC));
  ck_assert (mpfr_cmp_ui (rm, 10000) == 0);
  mpfr_clear (rm);
}
END_TEST

/* log1mexp far left: log1p(-e^x) ~ -e^x, -5.0759588975e-435 at x = -1000
 * and -1.1354838653e-4343 at x = -1e4 (mpmath); -0 in double. */
START_TEST (test_log1mexp_extreme)
{
  double x, r;
  mpfr_t rm;
  x = -1000.0;
  TU_OK (rlref_log1mexp_d (&r, &x));
  ck_assert (r == 0.0);
  x = -1e300;
  TU_OK (rlref_log1mexp_d (&r, &x));
  ck_assert (r == 0.0);
  mpfr_init2 (rm, PREC);
  TU_OK (mp1_at (rlref_log1mexp_mp, rm, -1000.0, PREC));
  TU_ASSERT_MP_STR (rm, RV_LOG1MEXP_M1000, 75);
  TU_OK (mp1_at (rlref_log1mexp_mp, rm, -1e4, PREC));
  TU_ASSERT_MP_STR (rm, RV_LOG1MEXP_M1E4, 75);
  mpfr_clear (rm);
}
END_TEST

/* Infinite arguments: sigma(-inf) = 0, sigma(inf) = 1, softplus(-inf) = 0,
 * softplus(inf) = inf, log_sigmoid(inf) = 0 (limits). */
START_TEST (test_infinite_arguments)
{
  double x, r;
  x = -INFINITY;
  TU_OK (rlref_sigmoid_d (&r, &x));
  ck_assert (r == 0.0);
  TU_OK (rlref_softplus_d (&r, &x));
  ck_assert (r == 0.0);
  x = INFINITY;
  TU_OK (rlref_sigmoid_d (&r, &x));
  ck_assert (r == 1.0);
  TU_OK (rlref_softplus_d (&r, &x));
  ck_assert (isinf (r) && r > 0);
  TU_OK (rlref_log_sigmoid_d (&r, &x));
  ck_assert (r == 0.0);
}
END_TEST

/* --- naive forms: they exist and are measurably worse -------------------- */

/* log_sigmoid_naive(-1000) = log(1/(1 + e^1000)) = -inf in double while the
 * stable form gives -1000; at x = 40 the naive 1/(1 + e^-40) rounds to 1
 * and its log to 0, a relative error of 1 (truth -4.2483542552915890e-18,
 * mpmath). */
START_TEST (test_log_sigmoid_naive_worse)
{
  double x = -1000.0, r, rn;
  const double want40 = tu_d (RV_LOG_SIGMOID_40);
  TU_OK (rlref_log_sigmoid_naive_d (&rn, &x));
  ck_assert_msg (isinf (rn) && rn < 0, "naive log_sigmoid(-1000) = %g", rn);
  TU_OK (rlref_log_sigmoid_d (&r, &x));
  TU_ASSERT_SAME (r, -1000.0);
  x = 40.0;
  TU_OK (rlref_log_sigmoid_naive_d (&rn, &x));
  TU_OK (rlref_log_sigmoid_d (&r, &x));
  TU_ASSERT_REL (r, want40, TU_TOL0);
  ck_assert_msg (tu_rel_err (rn, want40) >= 0.5, "naive log_sigmoid(40) = %g", rn);
}
END_TEST

/* In MPFR the naive form does not overflow, but at x = 40 it cancels
 * about 17 digits (1 - 4.2e-18), while the stable form keeps them all. */
START_TEST (test_log_sigmoid_naive_mp_cancels)
{
  const char *want = RV_LOG_SIGMOID_40;
  mpfr_t r, rn;
  mpfr_inits2 (PREC, r, rn, (mpfr_ptr) 0);
  TU_OK (mp1_at (rlref_log_sigmoid_mp, r, 40.0, PREC));
  TU_OK (mp1_at (rlref_log_sigmoid_naive_mp, rn, 40.0, PREC));
  TU_ASSERT_MP_STR (r, want, 75);
  ck_assert_msg (tu_mp_digits_str (rn, want) <= 65, "naive kept %d digits",
                 tu_mp_digits_str (rn, want));
  TU_OK (mp1_at (rlref_log_sigmoid_naive_mp, rn, -1000.0, PREC));
  ck_assert (mpfr_number_p (rn));
  mpfr_clears (r, rn, (mpfr_ptr) 0);
}
END_TEST

/* softplus_naive(1000) = inf and softplus_naive(-40) = 0 in double; the
 * stable form gives 1000 and 4.2483542552915890e-18 (mpmath). */
START_TEST (test_softplus_naive_worse)
{
  double x = 1000.0, r, rn;
  const double want = tu_d (RV_SOFTPLUS_M40);
  TU_OK (rlref_softplus_naive_d (&rn, &x));
  ck_assert (isinf (rn));
  TU_OK (rlref_softplus_d (&r, &x));
  TU_ASSERT_SAME (r, 1000.0);
  x = -40.0;
  TU_OK (rlref_softplus_naive_d (&rn, &x));
  TU_OK (rlref_softplus_d (&r, &x));
  TU_ASSERT_REL (r, want, TU_TOL0);
  ck_assert_msg (tu_rel_err (rn, want) >= 0.5, "naive softplus(-40) = %g", rn);
}
END_TEST

/* logsumexp_naive overflows at {1000, 1000} and underflows at
 * {-1000, -1000}; the shifted form gives +-1000 + log 2 (mpmath). */
START_TEST (test_logsumexp_naive_worse)
{
  double hi[2] = { 1000.0, 1000.0 }, lo[2] = { -1000.0, -1000.0 }, r, rn;
  TU_OK (rlref_logsumexp_naive_d (&rn, hi, 2));
  ck_assert (isinf (rn) && rn > 0);
  TU_OK (rlref_logsumexp_d (&r, hi, 2));
  TU_ASSERT_REL (r, tu_d (RV_LSE_1000_1000), TU_TOL0);
  TU_OK (rlref_logsumexp_naive_d (&rn, lo, 2));
  ck_assert (isinf (rn) && rn < 0);
  TU_OK (rlref_logsumexp_d (&r, lo, 2));
  TU_ASSERT_REL (r, tu_d (RV_LSE_M1000_M1000), TU_TOL0);
}
END_TEST

/* One-pass variance on 1e8 + {0, 1, 2}: sum x^2 ~ 3e16 leaves no bit for
 * the spread, the result loses everything (relative error >= 1/2), while
 * the corrected two-pass form gives exactly 1 (ddof 1) and 2/3 (ddof 0). */
START_TEST (test_variance_onepass_loses_everything)
{
  double x[3] = { 1e8, 1e8 + 1, 1e8 + 2 }, v, v1;
  TU_OK (rlref_variance_d (&v, x, 3, 1));
  TU_ASSERT_SAME (v, 1.0);
  TU_OK (rlref_variance_d (&v, x, 3, 0));
  TU_ASSERT_REL (v, 2.0 / 3.0, TU_TOL0);
  TU_OK (rlref_variance_onepass_d (&v1, x, 3, 1));
  ck_assert_msg (tu_rel_err (v1, 1.0) >= 0.5, "one-pass variance = %.17g", v1);
  TU_OK (rlref_variance_onepass_d (&v1, x, 3, 0));
  ck_assert_msg (tu_rel_err (v1, 2.0 / 3.0) >= 0.5, "one-pass variance = %.17g", v1);
}
END_TEST

/* The naive sigmoid and softplus agree with the stable forms where nothing
 * overflows or cancels: sigma(1.5) and softplus(0) = log 2 (mpmath). */
START_TEST (test_naive_agree_when_harmless)
{
  double x = 1.5, rn;
  TU_OK (rlref_sigmoid_naive_d (&rn, &x));
  TU_ASSERT_REL (rn, tu_d (RV_SIGMOID_1P5), TU_TOL1);
  x = 0.0;
  TU_OK (rlref_softplus_naive_d (&rn, &x));
  TU_ASSERT_REL (rn, tu_d (RV_LOG2), TU_TOL0);
}
END_TEST

/* --- logsumexp, softmax, log_softmax ---------------------------------------- */

/* Relative tolerance for p_i = e^{x_i - lse}: rounding x_i - lse costs
 * about eps (|x_i| + |lse|) relative in p_i, the condition of the formula
 * to its arguments (the golden tolerance rule scales the same way). */
static double
softmax_tol (double xi, double lse)
{
  return 4 * DBL_EPSILON * (2 + fabs (xi) + fabs (lse));
}

/* lse of n equal values = x + log n: {1e4}x4 -> 1e4 + log 4, {1e4}x3,
 * {-1e4}x3 (mpmath). */
START_TEST (test_logsumexp_equal_values)
{
  double x4[4] = { 1e4, 1e4, 1e4, 1e4 }, xp[3] = { 1e4, 1e4, 1e4 };
  double xm[3] = { -1e4, -1e4, -1e4 }, r;
  mpfr_ptr v;
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  TU_OK (rlref_logsumexp_d (&r, x4, 4));
  TU_ASSERT_REL (r, tu_d (RV_LSE_1E4_X4), TU_TOL0);
  TU_OK (rlref_logsumexp_d (&r, xp, 3));
  TU_ASSERT_REL (r, tu_d (RV_LSE_1E4_X3), TU_TOL0);
  TU_OK (rlref_logsumexp_d (&r, xm, 3));
  TU_ASSERT_REL (r, tu_d (RV_LSE_M1E4_X3), TU_TOL0);
  v = tu_mp_vec_from_d (x4, 4, PREC);
  TU_OK (rlref_logsumexp_mp (rm, v, 4));
  TU_ASSERT_MP_STR (rm, RV_LSE_1E4_X4, 75);
  tu_mp_vec_free (v, 4);
  v = tu_mp_vec_from_d (xm, 3, PREC);
  TU_OK (rlref_logsumexp_mp (rm, v, 3));
  TU_ASSERT_MP_STR (rm, RV_LSE_M1E4_X3, 75);
  tu_mp_vec_free (v, 3);
  mpfr_clear (rm);
}
END_TEST

/* lse of two doubles one ulp apart, lse(1, 1 + 2^-52) (mpmath). */
START_TEST (test_logsumexp_last_bit)
{
  double b[2] = { 1.0, 1.0 + 0x1p-52 }, r;
  mpfr_ptr v;
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  TU_OK (rlref_logsumexp_d (&r, b, 2));
  TU_ASSERT_REL (r, tu_d (RV_LSE_LAST_BIT), TU_TOL0);
  v = tu_mp_vec_from_d (b, 2, PREC);
  TU_OK (rlref_logsumexp_mp (rm, v, 2));
  TU_ASSERT_MP_STR (rm, RV_LSE_LAST_BIT, 75);
  tu_mp_vec_free (v, 2);
  mpfr_clear (rm);
}
END_TEST

/* A result near zero: lse(0, x) = softplus(x) = log1p(e^x), well
 * conditioned (sens = p_1 |x| ~ 40 |result| at x = -40), and
 * log_softmax(0, x)[0] is minus the same number.  In double at x = -40
 * the truth is 4.2483542552915890e-18 (mpmath log1p(exp(-40))); summing
 * 1 + e^x before the log rounds the term away. */
START_TEST (test_logsumexp_small_result_d)
{
  double a[2] = { 0.0, -40.0 }, r, lp[2];
  const double want = tu_d (RV_SOFTPLUS_M40);
  TU_OK (rlref_logsumexp_d (&r, a, 2));
  TU_ASSERT_REL (r, want, TU_TOL1);
  TU_OK (rlref_log_softmax_d (lp, a, 2));
  TU_ASSERT_REL (lp[0], -want, TU_TOL1);
}
END_TEST

/* The same at 256 bits with x = -1e4: lse(0, -1e4) = 1.1354838653e-4343
 * (mpmath log1p(exp(-1e4))), representable in MPFR, to 75 digits. */
START_TEST (test_logsumexp_small_result_mp)
{
  double b[2] = { 0.0, -1e4 };
  const char *tiny = RV_SOFTPLUS_M1E4;
  mpfr_ptr v = tu_mp_vec_from_d (b, 2, PREC), out = tu_mp_vec_new (2, PREC);
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  TU_OK (rlref_logsumexp_mp (rm, v, 2));
  TU_ASSERT_MP_STR (rm, tiny, 75);
  TU_OK (rlref_log_softmax_mp (out, v, 2));
  mpfr_neg (rm, out, MPFR_RNDN);
  TU_ASSERT_MP_STR (rm, tiny, 75);
  tu_mp_vec_free (v, 2);
  tu_mp_vec_free (out, 2);
  mpfr_clear (rm);
}
END_TEST

/* lse with infinities: all -inf gives -inf, any +inf gives +inf, and a
 * -inf entry among finite ones is ignored. */
START_TEST (test_logsumexp_infinities)
{
  double a[2] = { -INFINITY, -INFINITY }, b[2] = { INFINITY, 0.0 };
  double c[2] = { -INFINITY, 0.0 }, r;
  TU_OK (rlref_logsumexp_d (&r, a, 2));
  ck_assert (isinf (r) && r < 0);
  TU_OK (rlref_logsumexp_d (&r, b, 2));
  ck_assert (isinf (r) && r > 0);
  TU_OK (rlref_logsumexp_d (&r, c, 2));
  ck_assert (r == 0.0);
}
END_TEST

/* softmax(1, 2, 3) and log_softmax(1, 2, 3) against mpmath, and the same
 * after shifting by 1e4 (invariance; the shift costs up to 4 digits:
 * softmax_tol in double, 72 digits at 256 bits). */
START_TEST (test_softmax_values_and_shift)
{
  static const char *const p[3] = RV_SOFTMAX_123, *const lp[3] = RV_LOG_SOFTMAX_123;
  double x[3] = { 1, 2, 3 }, xs[3] = { 1e4 + 1, 1e4 + 2, 1e4 + 3 }, r[3];
  mpfr_ptr v = tu_mp_vec_from_d (x, 3, PREC), vs = tu_mp_vec_from_d (xs, 3, PREC);
  mpfr_ptr out = tu_mp_vec_new (3, PREC);
  TU_OK (rlref_softmax_d (r, x, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_REL (r[i], strtod (p[i], NULL), TU_TOL1);
  TU_OK (rlref_softmax_d (r, xs, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_REL (r[i], strtod (p[i], NULL), softmax_tol (xs[i], 1e4 + 3.4076));
  TU_OK (rlref_log_softmax_d (r, x, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_REL (r[i], strtod (lp[i], NULL), TU_TOL1);
  TU_OK (rlref_softmax_mp (out, v, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_STR (out + i, p[i], 75);
  TU_OK (rlref_softmax_mp (out, vs, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_STR (out + i, p[i], 72);
  TU_OK (rlref_log_softmax_mp (out, v, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_STR (out + i, lp[i], 75);
  tu_mp_vec_free (v, 3);
  tu_mp_vec_free (vs, 3);
  tu_mp_vec_free (out, 3);
}
END_TEST

/* softmax of three equal scores 1e4 = 1/3 each (within softmax_tol in
 * double, 72 digits at 256 bits); softmax(0, -1e4) = [1/(1 + e^-1e4),
 * e^-1e4/(1 + e^-1e4)] (mpmath): [1, 0] in double, the tiny one to 75
 * digits in MPFR; log_softmax(0, -1e4)[1] = -1e4 - tiny. */
START_TEST (test_softmax_extreme)
{
  double x[3] = { 1e4, 1e4, 1e4 }, y[2] = { 0.0, -1e4 }, r[3];
  mpfr_ptr v = tu_mp_vec_from_d (x, 3, PREC), w = tu_mp_vec_from_d (y, 2, PREC);
  mpfr_ptr out = tu_mp_vec_new (3, PREC);
  TU_OK (rlref_softmax_d (r, x, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_REL (r[i], 1.0 / 3.0, softmax_tol (1e4, 1e4 + 1.0986));
  TU_OK (rlref_softmax_mp (out, v, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_STR (out + i, RV_THIRD, 72);
  TU_OK (rlref_softmax_d (r, y, 2));
  TU_ASSERT_SAME (r[0], 1.0);
  TU_ASSERT_SAME (r[1], 0.0);
  TU_OK (rlref_log_softmax_d (r, y, 2));
  ck_assert (r[0] == 0.0);
  TU_ASSERT_SAME (r[1], -1e4);
  TU_OK (rlref_softmax_mp (out, w, 2));
  TU_ASSERT_MP_STR (out + 1, RV_SIGMOID_M1E4, 75);
  TU_OK (rlref_log_softmax_mp (out, w, 2));
  ck_assert (mpfr_cmp_si (out + 1, -10000) == 0);
  tu_mp_vec_free (v, 3);
  tu_mp_vec_free (w, 2);
  tu_mp_vec_free (out, 3);
}
END_TEST

/* softmax with a -inf score gives it probability 0 and the rest 1. */
START_TEST (test_softmax_minus_inf_entry)
{
  double x[2] = { -INFINITY, 5.0 }, r[2];
  TU_OK (rlref_softmax_d (r, x, 2));
  ck_assert (r[0] == 0.0);
  ck_assert (r[1] == 1.0);
}
END_TEST

/* --- mean and variance ---------------------------------------------------------- */

/* {1,2,3,4}: mean 2.5, variance 1.25 (ddof 0) and 5/3 (ddof 1), exact or
 * correctly rounded in both backends. */
START_TEST (test_variance_small_integers)
{
  double x[4] = { 1, 2, 3, 4 }, r;
  mpfr_ptr v = tu_mp_vec_from_d (x, 4, PREC);
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  TU_OK (rlref_mean_d (&r, x, 4));
  TU_ASSERT_SAME (r, 2.5);
  TU_OK (rlref_variance_d (&r, x, 4, 0));
  TU_ASSERT_SAME (r, 1.25);
  TU_OK (rlref_variance_d (&r, x, 4, 1));
  TU_ASSERT_REL (r, 5.0 / 3.0, TU_TOL0);
  TU_OK (rlref_mean_mp (rm, v, 4));
  ck_assert (mpfr_cmp_d (rm, 2.5) == 0);
  TU_OK (rlref_variance_mp (rm, v, 4, 0));
  ck_assert (mpfr_cmp_d (rm, 1.25) == 0);
  TU_OK (rlref_variance_mp (rm, v, 4, 1));
  TU_ASSERT_MP_STR (rm, RV_VAR_1234_DDOF1, 75);
  tu_mp_vec_free (v, 4);
  mpfr_clear (rm);
}
END_TEST

/* Large offset 1e8 + {0,1,2}: mean 1e8 + 1, variance 1 (ddof 1) exactly,
 * 2/3 (ddof 0), in both backends. */
START_TEST (test_variance_large_offset)
{
  double x[3] = { 1e8, 1e8 + 1, 1e8 + 2 }, r;
  mpfr_ptr v = tu_mp_vec_from_d (x, 3, PREC);
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  TU_OK (rlref_mean_d (&r, x, 3));
  TU_ASSERT_SAME (r, 1e8 + 1);
  TU_OK (rlref_mean_mp (rm, v, 3));
  ck_assert (mpfr_cmp_d (rm, 1e8 + 1) == 0);
  TU_OK (rlref_variance_mp (rm, v, 3, 1));
  ck_assert (mpfr_cmp_ui (rm, 1) == 0);
  TU_OK (rlref_variance_mp (rm, v, 3, 0));
  TU_ASSERT_MP_STR (rm, RV_VAR_1E8_DDOF0, 75);
  tu_mp_vec_free (v, 3);
  mpfr_clear (rm);
}
END_TEST

/* {1,2,3,4} scaled by 1e-150 and by 1e150 (the doubles k*1e-150, k*1e150;
 * mpmath on those exact inputs): no underflow or overflow of the squares. */
START_TEST (test_variance_tiny_and_huge_scale)
{
  double t[4], h[4], r;
  mpfr_ptr v;
  mpfr_t rm;
  for (int k = 0; k < 4; k++)
    {
      t[k] = (k + 1) * 1e-150;
      h[k] = (k + 1) * 1e150;
    }
  mpfr_init2 (rm, PREC);
  TU_OK (rlref_variance_d (&r, t, 4, 0));
  TU_ASSERT_REL (r, tu_d (RV_VAR_TINY_DDOF0), TU_TOL1);
  TU_OK (rlref_variance_d (&r, t, 4, 1));
  TU_ASSERT_REL (r, tu_d (RV_VAR_TINY_DDOF1), TU_TOL1);
  TU_OK (rlref_mean_d (&r, t, 4));
  TU_ASSERT_REL (r, tu_d (RV_MEAN_TINY), TU_TOL0);
  TU_OK (rlref_variance_d (&r, h, 4, 0));
  TU_ASSERT_REL (r, tu_d (RV_VAR_HUGE_DDOF0), TU_TOL1);
  TU_OK (rlref_variance_d (&r, h, 4, 1));
  TU_ASSERT_REL (r, tu_d (RV_VAR_HUGE_DDOF1), TU_TOL1);
  v = tu_mp_vec_from_d (t, 4, PREC);
  TU_OK (rlref_variance_mp (rm, v, 4, 0));
  TU_ASSERT_MP_STR (rm, RV_VAR_TINY_DDOF0, 75);
  TU_OK (rlref_variance_mp (rm, v, 4, 1));
  TU_ASSERT_MP_STR (rm, RV_VAR_TINY_DDOF1, 75);
  tu_mp_vec_free (v, 4);
  v = tu_mp_vec_from_d (h, 4, PREC);
  TU_OK (rlref_variance_mp (rm, v, 4, 1));
  TU_ASSERT_MP_STR (rm, RV_VAR_HUGE_DDOF1, 75);
  tu_mp_vec_free (v, 4);
  mpfr_clear (rm);
}
END_TEST

/* Seeded: 1e9 + U(0,1), n = 16.  The corrected two-pass variance
 * (double) matches the MPFR one within 16 eps (the deviations from the
 * mean are exact; only the rounding of the mean, which the correction
 * term removes, could spoil it); the one-pass form is off by more than
 * 1e-3 on at least one of 20 draws (cancellation of ~1e19 sums). */
START_TEST (test_variance_offset_random)
{
  gsl_rng *rng = tu_rng_new ();
  double x[16], vd, v1, worst1 = 0.0;
  mpfr_ptr v;
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  for (int trial = 0; trial < 20; trial++)
    {
      for (int i = 0; i < 16; i++)
        x[i] = 1e9 + gsl_rng_uniform (rng);
      v = tu_mp_vec_from_d (x, 16, PREC);
      TU_OK (rlref_variance_mp (rm, v, 16, 1));
      tu_mp_vec_free (v, 16);
      TU_OK (rlref_variance_d (&vd, x, 16, 1));
      TU_OK (rlref_variance_onepass_d (&v1, x, 16, 1));
      TU_ASSERT_REL (vd, mpfr_get_d (rm, MPFR_RNDN), TU_TOL1);
      if (tu_rel_err (v1, mpfr_get_d (rm, MPFR_RNDN)) > worst1)
        worst1 = tu_rel_err (v1, mpfr_get_d (rm, MPFR_RNDN));
    }
  ck_assert_msg (worst1 > 1e-3, "one-pass worst relative error only %g", worst1);
  mpfr_clear (rm);
  gsl_rng_free (rng);
}
END_TEST

/* --- precision consistency --------------------------------------------------- */

/* Each scalar primitive at 256 and 512 bits agrees to >= 75 digits. */
START_TEST (test_precision_consistency_scalar)
{
  static mp1_fn *const f[] = { rlref_sigmoid_mp, rlref_log_sigmoid_mp, rlref_softplus_mp };
  static const double xs[] = { -1e4, -700.0, -30.0, -1.5, -1e-20, 0.1, 2.0, 36.75, 1e4 };
  mpfr_t a, b;
  mpfr_init2 (a, 256);
  mpfr_init2 (b, 512);
  for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
      {
        TU_OK (mp1_at (f[k], a, xs[i], 256));
        TU_OK (mp1_at (f[k], b, xs[i], 512));
        ck_assert_msg (tu_mp_digits (a, b) >= 75, "f%zu(%g): %s vs %s", k, xs[i],
                       tu_mp_str (a), tu_mp_str (b));
      }
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
    {
      double x = -fabs (xs[i]);
      TU_OK (mp1_at (rlref_log1mexp_mp, a, x, 256));
      TU_OK (mp1_at (rlref_log1mexp_mp, b, x, 512));
      ck_assert_msg (tu_mp_digits (a, b) >= 75, "log1mexp(%g)", x);
    }
  mpfr_clear (a);
  mpfr_clear (b);
}
END_TEST

/* lse, softmax, mean and variance of a fixed vector at 256 and 512 bits
 * agree to >= 75 digits. */
START_TEST (test_precision_consistency_vector)
{
  static const double x[5] = { -3.25, 0.1, 7.0, 1e-3, 2.5 };
  mpfr_ptr a, b, pa, pb;
  mpfr_t ra, rb;
  mpfr_prec_t old = rlref_mp_set_prec (256);
  a = tu_mp_vec_from_d (x, 5, 256);
  pa = tu_mp_vec_new (5, 256);
  mpfr_init2 (ra, 256);
  TU_OK (rlref_logsumexp_mp (ra, a, 5));
  TU_OK (rlref_softmax_mp (pa, a, 5));
  rlref_mp_set_prec (512);
  b = tu_mp_vec_from_d (x, 5, 512);
  pb = tu_mp_vec_new (5, 512);
  mpfr_init2 (rb, 512);
  TU_OK (rlref_logsumexp_mp (rb, b, 5));
  TU_OK (rlref_softmax_mp (pb, b, 5));
  TU_ASSERT_MP_AGREE (ra, rb, 75);
  for (int i = 0; i < 5; i++)
    TU_ASSERT_MP_AGREE (pa + i, pb + i, 75);
  rlref_mp_set_prec (256);
  TU_OK (rlref_variance_mp (ra, a, 5, 1));
  rlref_mp_set_prec (512);
  TU_OK (rlref_variance_mp (rb, b, 5, 1));
  TU_ASSERT_MP_AGREE (ra, rb, 75);
  rlref_mp_set_prec (256);
  TU_OK (rlref_mean_mp (ra, a, 5));
  rlref_mp_set_prec (512);
  TU_OK (rlref_mean_mp (rb, b, 5));
  TU_ASSERT_MP_AGREE (ra, rb, 75);
  rlref_mp_set_prec (old);
  tu_mp_vec_free (a, 5);
  tu_mp_vec_free (b, 5);
  tu_mp_vec_free (pa, 5);
  tu_mp_vec_free (pb, 5);
  mpfr_clear (ra);
  mpfr_clear (rb);
}
END_TEST

/* --- binary64 against MPFR on seeded random arguments ------------------------ */

/* 2000 x uniform in [-60, 60] (log1mexp: -|x|, avoiding 0): each _d result
 * within 4 eps of the 256-bit result rounded to double. */
START_TEST (test_random_scalar_d_vs_mp)
{
  /* the first four entries of fd and fm: the stable primitives */
  static const char *name[] = { "sigmoid", "log_sigmoid", "softplus", "log1mexp" };
  gsl_rng *rng = tu_rng_new ();
  mpfr_t r;
  mpfr_init2 (r, PREC);
  for (int i = 0; i < 2000; i++)
    {
      double x = tu_uniform (rng, -60.0, 60.0);
      for (size_t k = 0; k < 4; k++)
        {
          double xa = k == 3 ? -fabs (x) - 1e-3 : x, rd;
          TU_OK (fd[k] (&rd, &xa));
          TU_OK (mp1_at (fm[k], r, xa, PREC));
          ck_assert_msg (tu_rel_err (rd, mpfr_get_d (r, MPFR_RNDN)) <= 4 * DBL_EPSILON,
                         "%s(%a): double %.17g vs MPFR %.17g (%.1f eps)", name[k], xa, rd,
                         mpfr_get_d (r, MPFR_RNDN),
                         tu_rel_err (rd, mpfr_get_d (r, MPFR_RNDN)) / DBL_EPSILON);
        }
    }
  mpfr_clear (r);
  gsl_rng_free (rng);
}
END_TEST

/* 300 random vectors (n in 1..12, entries in [-100, 100]): lse within
 * 16 eps (|lse| + max|x|), each softmax p_i within softmax_tol, mean within
 * 16 eps max|x|, variance within 16 eps relative. */
START_TEST (test_random_vector_d_vs_mp)
{
  gsl_rng *rng = tu_rng_new ();
  double x[12], p[12], l, m, v;
  mpfr_ptr xm, pm;
  mpfr_t lm, mm, vm;
  mpfr_inits2 (PREC, lm, mm, vm, (mpfr_ptr) 0);
  for (int trial = 0; trial < 300; trial++)
    {
      size_t n = 1 + gsl_rng_uniform_int (rng, 12);
      double amax = 0.0, want;
      for (size_t i = 0; i < n; i++)
        {
          x[i] = tu_uniform (rng, -100.0, 100.0);
          amax = fmax (amax, fabs (x[i]));
        }
      xm = tu_mp_vec_from_d (x, n, PREC);
      pm = tu_mp_vec_new (n, PREC);
      TU_OK (rlref_logsumexp_d (&l, x, n));
      TU_OK (rlref_logsumexp_mp (lm, xm, n));
      want = mpfr_get_d (lm, MPFR_RNDN);
      ck_assert_msg (fabs (l - want) <= 16 * DBL_EPSILON * (fabs (want) + amax),
                     "lse: %.17g vs %.17g", l, want);
      TU_OK (rlref_softmax_d (p, x, n));
      TU_OK (rlref_softmax_mp (pm, xm, n));
      for (size_t i = 0; i < n; i++)
        TU_ASSERT_REL (p[i], mpfr_get_d (pm + i, MPFR_RNDN), softmax_tol (x[i], want));
      TU_OK (rlref_mean_d (&m, x, n));
      TU_OK (rlref_mean_mp (mm, xm, n));
      ck_assert (fabs (m - mpfr_get_d (mm, MPFR_RNDN)) <= 16 * DBL_EPSILON * amax);
      if (n >= 2)
        {
          TU_OK (rlref_variance_d (&v, x, n, 1));
          TU_OK (rlref_variance_mp (vm, xm, n, 1));
          TU_ASSERT_REL (v, mpfr_get_d (vm, MPFR_RNDN), TU_TOL1);
        }
      tu_mp_vec_free (xm, n);
      tu_mp_vec_free (pm, n);
    }
  mpfr_clears (lm, mm, vm, (mpfr_ptr) 0);
  gsl_rng_free (rng);
}
END_TEST

/* --- aliasing ------------------------------------------------------------------ */

/* The slot wrappers of tu_check_aliasing: slot[0] the output, slot[1] the
 * input; the scalar primitives by their index k in fd and fm. */
struct prim_ctx
{
  size_t k, n;
  int ddof;
};

static int
scalar_d (double *const *slot, const void *ctx)
{
  return fd[((const struct prim_ctx *) ctx)->k] (slot[0], slot[1]);
}

static int
scalar_mp (mpfr_ptr const *slot, const void *ctx)
{
  return fm[((const struct prim_ctx *) ctx)->k] (slot[0], slot[1]);
}

/* The vector primitives and reductions: kind 0 softmax, 1 log_softmax,
 * 2 logsumexp, 3 logsumexp_naive, 4 mean, 5 variance, 6 stddev,
 * 7 variance_onepass (ddof from the context). */
static int
vector_d (double *const *slot, const void *ctx)
{
  const struct prim_ctx *c = ctx;
  switch (c->k)
    {
    case 0: return rlref_softmax_d (slot[0], slot[1], c->n);
    case 1: return rlref_log_softmax_d (slot[0], slot[1], c->n);
    case 2: return rlref_logsumexp_d (slot[0], slot[1], c->n);
    case 3: return rlref_logsumexp_naive_d (slot[0], slot[1], c->n);
    case 4: return rlref_mean_d (slot[0], slot[1], c->n);
    case 5: return rlref_variance_d (slot[0], slot[1], c->n, c->ddof);
    case 6: return rlref_stddev_d (slot[0], slot[1], c->n, c->ddof);
    default: return rlref_variance_onepass_d (slot[0], slot[1], c->n, c->ddof);
    }
}

static int
vector_mp (mpfr_ptr const *slot, const void *ctx)
{
  const struct prim_ctx *c = ctx;
  switch (c->k)
    {
    case 0: return rlref_softmax_mp (slot[0], slot[1], c->n);
    case 1: return rlref_log_softmax_mp (slot[0], slot[1], c->n);
    case 2: return rlref_logsumexp_mp (slot[0], slot[1], c->n);
    case 3: return rlref_logsumexp_naive_mp (slot[0], slot[1], c->n);
    case 4: return rlref_mean_mp (slot[0], slot[1], c->n);
    case 5: return rlref_variance_mp (slot[0], slot[1], c->n, c->ddof);
    case 6: return rlref_stddev_mp (slot[0], slot[1], c->n, c->ddof);
    default: return rlref_variance_onepass_mp (slot[0], slot[1], c->n, c->ddof);
    }
}

/* Output == input: each scalar primitive in place gives what it gives
 * into a separate variable, in both backends (also at -inf and +inf). */
START_TEST (test_aliasing_scalar)
{
  static const double xs[] = { -3.5, -0.25, 2.0, -INFINITY, INFINITY };
  for (size_t k = 0; k < sizeof fd / sizeof fd[0]; k++)
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
      {
        double x = k == 3 ? -fabs (xs[i]) : xs[i];
        struct prim_ctx ctx = { k, 1, 0 };
        tu_alias_case c = { "scalar primitive", 2, 1, { 1, 1 }, { NULL, &x },
                            scalar_d, scalar_mp, &ctx };
        ck_assert_int_eq (tu_check_aliasing (&c), 1);
      }
}
END_TEST

/* softmax(x, x) and log_softmax(x, x) on n = 4 (also with a -inf entry);
 * the reductions on n = 1, where the output has the length of the input
 * (a scalar output on a longer vector is a partial overlap, which the rule
 * does not allow). */
START_TEST (test_aliasing_vector)
{
  static const double x4[4] = { 0.5, -2.0, 3.25, 1.0 }, xi[4] = { 0.5, -INFINITY, 3.25, 1.0 };
  static const double x1[1] = { -0.75 };
  for (size_t k = 0; k < 2; k++)
    for (int w = 0; w < 2; w++)
      {
        struct prim_ctx ctx = { k, 4, 0 };
        tu_alias_case c = { k ? "log_softmax" : "softmax", 2, 1, { 4, 4 },
                            { NULL, w ? xi : x4 }, vector_d, vector_mp, &ctx };
        ck_assert_int_eq (tu_check_aliasing (&c), 1);
      }
  for (size_t k = 2; k < 8; k++)
    {
      struct prim_ctx ctx = { k, 1, 0 };
      tu_alias_case c = { "reduction", 2, 1, { 1, 1 }, { NULL, x1 }, vector_d, vector_mp, &ctx };
      ck_assert_int_eq (tu_check_aliasing (&c), 1);
    }
}
END_TEST

/* --- the ends of the binary64 range ------------------------------------------------ */

/* The mean of 1.7e308, 1.7e308, -1.7e308 is 1.7e308/3: the sum overflows,
 * the scaled sum does not (before the scaling: +inf); std (ddof 0) is
 * finite though the variance is not: +inf and ERANGE for the variance in
 * binary64, its exact value in MPFR (mpmath values). */
START_TEST (test_moments_near_overflow)
{
  const double x[3] = { 1.7e308, 1.7e308, -1.7e308 };
  double r;
  mpfr_ptr v = tu_mp_vec_from_d (x, 3, PREC);
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  TU_OK (rlref_mean_d (&r, x, 3));
  TU_ASSERT_REL (r, tu_d (RV_MEAN_BIG), TU_TOL0);
  TU_OK (rlref_stddev_d (&r, x, 3, 0));
  TU_ASSERT_REL (r, tu_d (RV_STD_BIG_DDOF0), TU_TOL1);
  TU_ASSERT_STATUS (rlref_variance_d (&r, x, 3, 0), RLREF_ERANGE);
  ck_assert (isinf (r) && r > 0);
  TU_OK (rlref_mean_mp (rm, v, 3));
  TU_ASSERT_MP_STR (rm, RV_MEAN_BIG, 75);
  TU_OK (rlref_stddev_mp (rm, v, 3, 0));
  TU_ASSERT_MP_STR (rm, RV_STD_BIG_DDOF0, 75);
  TU_OK (rlref_variance_mp (rm, v, 3, 0));
  TU_ASSERT_MP_STR (rm, RV_VAR_BIG_DDOF0, 75);
  tu_mp_vec_free (v, 3);
  mpfr_clear (rm);
}
END_TEST

/* 0, 2^-600, 3 2^-600: the squared deviations underflow binary64, the
 * scaled ones do not; std (ddof 0) is sqrt(14/9) 2^-600 (before the
 * scaling: 0 in binary64); the variance 14/9 2^-1200 underflows to 0 (the
 * correctly rounded binary64 value), exact in MPFR. */
START_TEST (test_moments_near_underflow)
{
  const double x[3] = { 0.0, 0x1p-600, 0x1.8p-599 };
  double r;
  mpfr_ptr v = tu_mp_vec_from_d (x, 3, PREC);
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  TU_OK (rlref_stddev_d (&r, x, 3, 0));
  TU_ASSERT_REL (r, tu_d (RV_STD_SMALL_DDOF0), TU_TOL1);
  TU_OK (rlref_variance_d (&r, x, 3, 0));
  TU_ASSERT_SAME (r, 0.0);
  TU_OK (rlref_stddev_mp (rm, v, 3, 0));
  TU_ASSERT_MP_STR (rm, RV_STD_SMALL_DDOF0, 75);
  TU_OK (rlref_variance_mp (rm, v, 3, 0));
  TU_ASSERT_MP_STR (rm, RV_VAR_SMALL_DDOF0, 75);
  tu_mp_vec_free (v, 3);
  mpfr_clear (rm);
}
END_TEST

/* stddev is sqrt(variance) where both are representable: {1,2,3,4} gives
 * sqrt(5/3) (ddof 1) in both backends; +-DBL_MAX (ddof 1) has std
 * sqrt 2 DBL_MAX: +inf and ERANGE in binary64, finite in MPFR. */
START_TEST (test_stddev_values)
{
  const double x[4] = { 1, 2, 3, 4 }, m[2] = { DBL_MAX, -DBL_MAX };
  double r, v;
  mpfr_ptr xm = tu_mp_vec_from_d (x, 4, PREC), mm = tu_mp_vec_from_d (m, 2, PREC);
  mpfr_t rm, vm;
  mpfr_inits2 (PREC, rm, vm, (mpfr_ptr) 0);
  TU_OK (rlref_stddev_d (&r, x, 4, 1));
  TU_OK (rlref_variance_d (&v, x, 4, 1));
  TU_ASSERT_SAME (r, sqrt (v));
  TU_OK (rlref_stddev_mp (rm, xm, 4, 1));
  TU_OK (rlref_variance_mp (vm, xm, 4, 1));
  mpfr_sqrt (vm, vm, MPFR_RNDN);
  ck_assert (mpfr_equal_p (rm, vm));
  TU_ASSERT_STATUS (rlref_stddev_d (&r, m, 2, 1), RLREF_ERANGE);
  ck_assert (isinf (r) && r > 0);
  TU_OK (rlref_stddev_mp (rm, mm, 2, 1));
  mpfr_set_d (vm, DBL_MAX, MPFR_RNDN);
  mpfr_mul (vm, vm, vm, MPFR_RNDN);
  mpfr_mul_2ui (vm, vm, 1, MPFR_RNDN);
  mpfr_sqrt (vm, vm, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (rm, vm, 75);
  TU_OK (rlref_stddev_d (&r, m, 2, 0));
  TU_ASSERT_SAME (r, DBL_MAX);
  tu_mp_vec_free (xm, 4);
  tu_mp_vec_free (mm, 2);
  mpfr_clears (rm, vm, (mpfr_ptr) 0);
}
END_TEST

/* log_softmax(-DBL_MAX, DBL_MAX): the first entry, -2 DBL_MAX, overflows:
 * -inf and ERANGE in binary64, the second is 0; in MPFR both exact. */
START_TEST (test_log_softmax_overflow)
{
  const double x[2] = { -DBL_MAX, DBL_MAX };
  double r[2];
  mpfr_ptr xm = tu_mp_vec_from_d (x, 2, PREC), rm = tu_mp_vec_new (2, PREC);
  TU_ASSERT_STATUS (rlref_log_softmax_d (r, x, 2), RLREF_ERANGE);
  ck_assert (isinf (r[0]) && r[0] < 0);
  ck_assert (r[1] == 0.0);
  TU_OK (rlref_log_softmax_mp (rm, xm, 2));
  mpfr_mul_2si (xm, xm, 1, MPFR_RNDN);
  ck_assert (mpfr_equal_p (rm, xm));
  ck_assert (mpfr_zero_p (rm + 1));
  tu_mp_vec_free (xm, 2);
  tu_mp_vec_free (rm, 2);
}
END_TEST

/* --- bad inputs ---------------------------------------------------------------- */

/* NaN -> ENAN for every scalar primitive and the naive forms, both
 * backends; the error message is recorded. */
START_TEST (test_nan_scalar)
{
  double x = NAN, r;
  mpfr_t xm, rm;
  mpfr_inits2 (PREC, xm, rm, (mpfr_ptr) 0);
  mpfr_set_nan (xm);
  for (size_t k = 0; k < sizeof fd / sizeof fd[0]; k++)
    {
      rlref_clear_error ();
      TU_ASSERT_STATUS (fd[k] (&r, &x), RLREF_ENAN);
      ck_assert (rlref_last_error ()[0] != '\0');
      TU_ASSERT_STATUS (fm[k] (rm, xm), RLREF_ENAN);
    }
  mpfr_clears (xm, rm, (mpfr_ptr) 0);
}
END_TEST

/* log1mexp(x > 0) -> EDOM (0.5, the smallest positive double, +inf). */
START_TEST (test_log1mexp_positive_edom)
{
  static const double xs[] = { 0.5, 0x1p-1074, INFINITY };
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  for (size_t i = 0; i < 3; i++)
    {
      double x = xs[i], r;
      TU_ASSERT_STATUS (rlref_log1mexp_d (&r, &x), RLREF_EDOM);
      TU_ASSERT_STATUS (mp1_at (rlref_log1mexp_mp, rm, x, PREC), RLREF_EDOM);
    }
  mpfr_clear (rm);
}
END_TEST

/* Vector primitives: NULL or empty -> EINVAL, a NaN element -> ENAN;
 * mean and variance also refuse infinities (ENAN). */
START_TEST (test_vector_bad_inputs)
{
  static dv_fn *const fd[] = { rlref_logsumexp_d, rlref_softmax_d, rlref_log_softmax_d,
                               rlref_mean_d, rlref_logsumexp_naive_d };
  static mpv_fn *const fm[] = { rlref_logsumexp_mp, rlref_softmax_mp, rlref_log_softmax_mp,
                                rlref_mean_mp, rlref_logsumexp_naive_mp };
  double x[3] = { 1.0, NAN, 2.0 }, r[3];
  mpfr_ptr xm = tu_mp_vec_from_d (x, 3, PREC), rm = tu_mp_vec_new (3, PREC);
  for (size_t k = 0; k < sizeof fd / sizeof fd[0]; k++)
    {
      TU_ASSERT_STATUS (fd[k] (r, NULL, 3), RLREF_EINVAL);
      TU_ASSERT_STATUS (fd[k] (r, x, 0), RLREF_EINVAL);
      TU_ASSERT_STATUS (fd[k] (r, x, 3), RLREF_ENAN);
      TU_ASSERT_STATUS (fm[k] (rm, NULL, 3), RLREF_EINVAL);
      TU_ASSERT_STATUS (fm[k] (rm, xm, 0), RLREF_EINVAL);
      TU_ASSERT_STATUS (fm[k] (rm, xm, 3), RLREF_ENAN);
    }
  x[1] = INFINITY;
  TU_ASSERT_STATUS (rlref_mean_d (r, x, 3), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_variance_d (r, x, 3, 1), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_variance_onepass_d (r, x, 3, 1), RLREF_ENAN);
  mpfr_set_inf (xm + 1, -1);
  TU_ASSERT_STATUS (rlref_mean_mp (rm, xm, 3), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_variance_mp (rm, xm, 3, 0), RLREF_ENAN);
  /* softmax of an infinite score is refused */
  x[1] = INFINITY;
  TU_ASSERT_STATUS (rlref_softmax_d (r, x, 3), RLREF_ENAN);
  tu_mp_vec_free (xm, 3);
  tu_mp_vec_free (rm, 3);
}
END_TEST

/* variance: NULL/empty -> EINVAL, NaN -> ENAN, n - ddof <= 0 or ddof < 0
 * -> EDOM, for both the two-pass and the one-pass form, both backends. */
START_TEST (test_variance_bad_inputs)
{
  typedef int dvar (double *, const double *, size_t, int);
  typedef int mvar (mpfr_ptr, mpfr_srcptr, size_t, int);
  static dvar *const fd[] = { rlref_variance_d, rlref_variance_onepass_d };
  static mvar *const fm[] = { rlref_variance_mp, rlref_variance_onepass_mp };
  double x[2] = { 1.0, 2.0 }, xn[2] = { 1.0, NAN }, r;
  mpfr_ptr xm = tu_mp_vec_from_d (x, 2, PREC);
  mpfr_t rm;
  mpfr_init2 (rm, PREC);
  for (size_t k = 0; k < 2; k++)
    {
      TU_ASSERT_STATUS (fd[k] (&r, NULL, 2, 0), RLREF_EINVAL);
      TU_ASSERT_STATUS (fd[k] (&r, x, 0, 0), RLREF_EINVAL);
      TU_ASSERT_STATUS (fd[k] (&r, xn, 2, 1), RLREF_ENAN);
      TU_ASSERT_STATUS (fd[k] (&r, x, 1, 1), RLREF_EDOM);
      TU_ASSERT_STATUS (fd[k] (&r, x, 2, 2), RLREF_EDOM);
      TU_ASSERT_STATUS (fd[k] (&r, x, 2, -1), RLREF_EDOM);
      TU_OK (fd[k] (&r, x, 1, 0));
      TU_ASSERT_SAME (r, 0.0);
      TU_ASSERT_STATUS (fm[k] (rm, NULL, 2, 0), RLREF_EINVAL);
      TU_ASSERT_STATUS (fm[k] (rm, xm, 0, 0), RLREF_EINVAL);
      TU_ASSERT_STATUS (fm[k] (rm, xm, 1, 1), RLREF_EDOM);
      TU_ASSERT_STATUS (fm[k] (rm, xm, 2, 2), RLREF_EDOM);
      TU_ASSERT_STATUS (fm[k] (rm, xm, 2, -1), RLREF_EDOM);
    }
  tu_mp_vec_free (xm, 2);
  mpfr_clear (rm);
}
END_TEST

/* An installed error handler sees the status of a failing call. */
static int handler_calls, handler_status;
static void
count_handler (const char *reason, const char *file, int line, int status)
{
  (void) reason;
  (void) file;
  (void) line;
  handler_calls++;
  handler_status = status;
}

START_TEST (test_error_handler_called)
{
  double x = 1.0, r;
  rlref_error_handler_t *old = rlref_set_error_handler (count_handler);
  handler_calls = 0;
  TU_ASSERT_STATUS (rlref_log1mexp_d (&r, &x), RLREF_EDOM);
  rlref_set_error_handler (old);
  ck_assert_int_eq (handler_calls, 1);
  ck_assert_int_eq (handler_status, RLREF_EDOM);
}
END_TEST

static Suite *
primitives_suite (void)
{
  Suite *s = suite_create ("primitives");
  TCase *tc;

  tc = tu_tcase ("exact");
  tcase_add_test (tc, test_sigmoid_zero_is_half);
  tcase_add_test (tc, test_softplus_zero_is_log2);
  tcase_add_test (tc, test_moderate_values);
  tcase_add_test (tc, test_log1mexp_values);
  tcase_add_test (tc, test_log1mexp_zero_is_minus_inf);
  tcase_add_test (tc, test_log1mexp_branch_point);
  tcase_add_test (tc, test_symmetry_identities);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("extreme");
  tcase_add_test (tc, test_sigmoid_extreme);
  tcase_add_test (tc, test_sigmoid_subnormal_vs_naive);
  tcase_add_test (tc, test_log_sigmoid_extreme);
  tcase_add_test (tc, test_softplus_extreme);
  tcase_add_test (tc, test_log1mexp_extreme);
  tcase_add_test (tc, test_infinite_arguments);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("naive");
  tcase_add_test (tc, test_log_sigmoid_naive_worse);
  tcase_add_test (tc, test_log_sigmoid_naive_mp_cancels);
  tcase_add_test (tc, test_softplus_naive_worse);
  tcase_add_test (tc, test_logsumexp_naive_worse);
  tcase_add_test (tc, test_variance_onepass_loses_everything);
  tcase_add_test (tc, test_naive_agree_when_harmless);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("softmax");
  tcase_add_test (tc, test_logsumexp_equal_values);
  tcase_add_test (tc, test_logsumexp_last_bit);
  tcase_add_test (tc, test_logsumexp_small_result_d);
  tcase_add_test (tc, test_logsumexp_small_result_mp);
  tcase_add_test (tc, test_logsumexp_infinities);
  tcase_add_test (tc, test_softmax_values_and_shift);
  tcase_add_test (tc, test_softmax_extreme);
  tcase_add_test (tc, test_softmax_minus_inf_entry);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("moments");
  tcase_add_test (tc, test_variance_small_integers);
  tcase_add_test (tc, test_variance_large_offset);
  tcase_add_test (tc, test_variance_tiny_and_huge_scale);
  tcase_add_test (tc, test_variance_offset_random);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("precision");
  tcase_add_test (tc, test_precision_consistency_scalar);
  tcase_add_test (tc, test_precision_consistency_vector);
  tcase_add_test (tc, test_random_scalar_d_vs_mp);
  tcase_add_test (tc, test_random_vector_d_vs_mp);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("range");
  tcase_add_test (tc, test_moments_near_overflow);
  tcase_add_test (tc, test_moments_near_underflow);
  tcase_add_test (tc, test_stddev_values);
  tcase_add_test (tc, test_log_softmax_overflow);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("aliasing");
  tcase_add_test (tc, test_aliasing_scalar);
  tcase_add_test (tc, test_aliasing_vector);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("errors");
  tcase_add_test (tc, test_nan_scalar);
  tcase_add_test (tc, test_log1mexp_positive_edom);
  tcase_add_test (tc, test_vector_bad_inputs);
  tcase_add_test (tc, test_variance_bad_inputs);
  tcase_add_test (tc, test_error_handler_called);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (primitives_suite)
