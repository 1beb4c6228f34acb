/* test_num.c -- the scalar interface (rlref/num.h) in both backends:
 * max and min with NaN and signed zeros, the signs of zero of every
 * operation, rounding to binary32 with subnormals and overflow, fma,
 * exactly rounded sums and dot products, vectors and matrices, explicit
 * precisions, and the workspace.
 *
 * The checks both backends must pass are written once, in num_cases.h,
 * and compiled twice here: every name of the interface is mapped to
 * TN (name), which is nd_name while the binary64 header and the first
 * copy of num_cases.h are read and nm_name for the MPFR ones.  An
 * operation added to the interface must be added to the list below (both
 * headers would otherwise define the same name and this file would not
 * compile).  Sums and dot products are held to exact MPFR additions at
 * 2400 and 4400 bits, rounded once (mpfr_get_d rounds correctly, also to
 * subnormals); rounding to binary32 to the C conversion for doubles and to
 * a rounding by scaling (x 2^149, nearest integer, ties to even) for
 * 256-bit values. */
#include <pthread.h>
#include "testutil.h"
#include "rlref/workspace.h"

/* --- independent references (used by num_cases.h) ----------------------- */

/* A double with 53 random bits at one of three scales: 2^[-1074, -900]
 * (subnormals included), 2^[-60, 60], 2^[900, 1023]; random sign. */
static double
random_double (gsl_rng *rng)
{
  static const int lo[3] = { -1074, -60, 900 }, hi[3] = { -900, 60, 1023 };
  int k = (int) gsl_rng_uniform_int (rng, 3);
  int e = lo[k] + (int) gsl_rng_uniform_int (rng, (unsigned long) (hi[k] - lo[k] + 1));
  double m = 1.0 + gsl_rng_uniform (rng) + ldexp (gsl_rng_uniform (rng), -32);
  double x = ldexp (m < 2.0 ? m : 1.0, e);
  return gsl_rng_uniform_int (rng, 2) ? -x : x;
}

/* n terms x_i, y_i; about a third repeat an earlier pair with x negated,
 * so that large terms cancel and the small ones decide the result. */
static void
random_terms (gsl_rng *rng, double *x, double *y, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (i > 0 && gsl_rng_uniform_int (rng, 3) == 0)
      {
        size_t j = gsl_rng_uniform_int (rng, (unsigned long) i);
        x[i] = -x[j];
        y[i] = y[j];
      }
    else
      {
        x[i] = random_double (rng);
        y[i] = random_double (rng);
      }
}

/* sum_i x_i by MPFR additions at 2400 bits, which are exact for up to
 * 2^30 doubles, then rounded once to double; IEEE signs of zero (the
 * first term is set, not added to +0). */
static double
exact_sum (const double *x, size_t n)
{
  mpfr_t s;
  double r;
  int inexact = 0;
  if (n == 0)
    return 0.0;
  mpfr_init2 (s, 2400);
  mpfr_set_d (s, x[0], MPFR_RNDN);
  for (size_t i = 1; i < n; i++)
    inexact |= mpfr_add_d (s, s, x[i], MPFR_RNDN);
  ck_assert_int_eq (inexact, 0);
  r = mpfr_get_d (s, MPFR_RNDN);
  mpfr_clear (s);
  return r;
}

/* sum_i x_i y_i: each product exact at 106 bits, the sum exact at 4400
 * bits (products lie in [2^-2148, 2^2048)), rounded once. */
static double
exact_dot (const double *x, const double *y, size_t n)
{
  mpfr_t s, p;
  double r;
  int inexact = 0;
  if (n == 0)
    return 0.0;
  mpfr_init2 (s, 4400);
  mpfr_init2 (p, 106);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_set_d (p, x[i], MPFR_RNDN);
      inexact |= mpfr_mul_d (p, p, y[i], MPFR_RNDN);
      if (i == 0)
        inexact |= mpfr_set (s, p, MPFR_RNDN);
      else
        inexact |= mpfr_add (s, s, p, MPFR_RNDN);
    }
  ck_assert_int_eq (inexact, 0);
  r = mpfr_get_d (s, MPFR_RNDN);
  mpfr_clear (s);
  mpfr_clear (p);
  return r;
}

/* --- both backends ---------------------------------------------------------- */

#define TN_CAT_(a, b) a##b
#define TN_CAT(a, b) TN_CAT_ (a, b)
#define TN(name) TN_CAT (TN_PREFIX, name)
#define num_t TN (t)
#define num_ptr TN (ptr)
#define num_srcptr TN (srcptr)
#define num_abs TN (abs)
#define num_add TN (add)
#define num_add_d TN (add_d)
#define num_clear TN (clear)
#define num_cmp TN (cmp)
#define num_cmp_d TN (cmp_d)
#define num_cmp_exp TN (cmp_exp)
#define num_const_pi TN (const_pi)
#define num_cosh TN (cosh)
#define num_d_div TN (d_div)
#define num_d_sub TN (d_sub)
#define num_div TN (div)
#define num_div_d TN (div_d)
#define num_div_si TN (div_si)
#define num_dot TN (dot)
#define num_exp TN (exp)
#define num_expm1 TN (expm1)
#define num_fma TN (fma)
#define num_get_d TN (get_d)
#define num_get_exp TN (get_exp)
#define num_get_prec TN (get_prec)
#define num_init TN (init)
#define num_init_prec TN (init_prec)
#define num_is_finite TN (is_finite)
#define num_is_inf TN (is_inf)
#define num_is_nan TN (is_nan)
#define num_is_zero TN (is_zero)
#define num_log TN (log)
#define num_log1p TN (log1p)
#define num_max TN (max)
#define num_mean_si TN (mean_si)
#define num_min TN (min)
#define num_mul TN (mul)
#define num_mul_2si TN (mul_2si)
#define num_group_init TN (group_init)
#define num_group_clear TN (group_clear)
#define num_mul_d TN (mul_d)
#define num_mul_si TN (mul_si)
#define num_neg TN (neg)
#define num_prec TN (prec)
#define num_round_f32 TN (round_f32)
#define num_set TN (set)
#define num_set_d TN (set_d)
#define num_set_inf TN (set_inf)
#define num_set_nan TN (set_nan)
#define num_set_si TN (set_si)
#define num_set_zero TN (set_zero)
#define num_sgn TN (sgn)
#define num_sinh TN (sinh)
#define num_sqr TN (sqr)
#define num_sqrt TN (sqrt)
#define num_sub TN (sub)
#define num_sub_d TN (sub_d)
#define num_sum TN (sum)
#define num_vec_free TN (vec_free)
#define num_vec_new TN (vec_new)
#define num_vec_new_prec TN (vec_new_prec)
#define num_ws_prec TN (ws_prec)
#define num_ws_take TN (ws_take)

#define TN_PREFIX nd_
#define TN_IS_MP 0
#define TN_EXACT 53
#include "rlref/num.h"
#include "num_cases.h"
#undef TN_PREFIX
#undef TN_IS_MP
#undef TN_EXACT
#undef NUM_SUFFIX
#undef NUM_NAME

#define TN_PREFIX nm_
#define TN_IS_MP 1
#define TN_EXACT 4400
#include "rlref/num_mpfr.h"
#include "num_cases.h"

#define BOTH(check)                             \
  START_TEST (test_##check)                     \
  {                                             \
    nd_##check ();                              \
    nm_##check ();                              \
  }                                             \
  END_TEST

BOTH (check_max_min)
BOTH (check_signed_zero)
BOTH (check_round_f32)
BOTH (check_fma)
BOTH (check_sum)
BOTH (check_dot)
BOTH (check_sum_dot_once)
BOTH (check_sum_dot_random)
BOTH (check_sum_dot_alias)
BOTH (check_vectors)
BOTH (check_workspace)
BOTH (check_cmp_exp)

/* --- binary32 rounding of 256-bit values (MPFR) ------------------------------ */

/* a rounded to binary32 by scaling: below 2^-126, a 2^149 to the nearest
 * integer (ties to even) times 2^-149; above, 24 bits; +-inf from 2^128. */
static double
ref_f32 (mpfr_srcptr a)
{
  mpfr_t t;
  double r;
  if (!mpfr_regular_p (a))
    return mpfr_get_d (a, MPFR_RNDN);
  if (mpfr_get_exp (a) <= -126)
    {
      mpfr_init2 (t, mpfr_get_prec (a));
      mpfr_mul_2si (t, a, 149, MPFR_RNDN);
      mpfr_roundeven (t, t);
      mpfr_mul_2si (t, t, -149, MPFR_RNDN);
    }
  else
    {
      mpfr_init2 (t, 24);
      mpfr_set (t, a, MPFR_RNDN);
    }
  r = mpfr_get_d (t, MPFR_RNDN);
  mpfr_clear (t);
  return fabs (r) >= 0x1p128 ? copysign (INFINITY, r) : r;
}

/* x 2^e + y 2^f at 256 bits, rounded to binary32. */
static void
check_f32_mp (double x, long e, double y, long f, double want)
{
  mpfr_t a, b, r;
  mpfr_inits2 (256, a, b, r, (mpfr_ptr) 0);
  for (int sign = 1; sign >= -1; sign -= 2)
    {
      mpfr_set_d (a, sign * x, MPFR_RNDN);
      mpfr_mul_2si (a, a, e, MPFR_RNDN);
      mpfr_set_d (b, sign * y, MPFR_RNDN);
      mpfr_mul_2si (b, b, f, MPFR_RNDN);
      ck_assert_int_eq (mpfr_add (a, a, b, MPFR_RNDN), 0);
      nm_round_f32 (r, a);
      ck_assert_msg (tu_same_double (mpfr_get_d (r, MPFR_RNDN), sign * want)
                     && tu_same_double (ref_f32 (a), sign * want),
                     "round_f32 (%s) = %a, expected %a (by scaling: %a)",
                     tu_mp_str (a), mpfr_get_d (r, MPFR_RNDN), sign * want,
                     ref_f32 (a));
    }
  mpfr_clears (a, b, r, (mpfr_ptr) 0);
}

/* One rounding however many bits the input has: just above and below
 * each tie (at 2^-200 relative), where rounding to 24 bits first and then
 * to the subnormal grid would land on the tie and go to even. */
START_TEST (test_round_f32_wide_mp)
{
  check_f32_mp (1, -150, 1, -300, 0x1p-149);
  check_f32_mp (1, -150, -1, -300, 0.0);
  check_f32_mp (1, -150, -1, -179, 0.0);              /* 24 bits first: 2^-150 */
  check_f32_mp (1, -150, 1, -179, 0x1p-149);
  check_f32_mp (0x1.000002p+22, -149, 1, -169, 0x1.000004p-127);
  check_f32_mp (0x1.000002p+22, -149, -1, -169, 0x1p-127);
  check_f32_mp (1, -126, -0x1p-150 * 0x1p126, -126, 0x1p-126);   /* the tie itself */
  check_f32_mp (0x1.fffffep-1, -126, 1, -300, 0x1p-126);
  check_f32_mp (0x1.fffffep-1, -126, -1, -300, 0x1.fffffcp-127);
  check_f32_mp (1 + 0x1p-24, 0, 1, -200, 1 + 0x1p-23);
  check_f32_mp (1 + 0x1p-24, 0, -1, -200, 1.0);
  check_f32_mp (0x1.ffffffp+127, 0, -1, -100, 0x1.fffffep+127);
  check_f32_mp (0x1.ffffffp+127, 0, 1, -100, INFINITY);
  check_f32_mp (1, 200, 0, 0, INFINITY);
  check_f32_mp (1, -2000, 0, 0, 0.0);                  /* below the doubles */
}
END_TEST

/* Random 256-bit values near the subnormal range and the overflow
 * threshold, and near ties, against the rounding by scaling. */
START_TEST (test_round_f32_random_mp)
{
  gmp_randstate_t state;
  mpfr_t a, r, h;
  gmp_randinit_default (state);
  gmp_randseed_ui (state, tu_seed ());
  mpfr_inits2 (256, a, r, h, (mpfr_ptr) 0);
  for (int i = 0; i < 20000; i++)
    {
      long e = i % 2 ? -170 + (long) (i % 53) : 120 + (long) (i % 9);
      mpfr_urandomb (a, state);
      mpfr_mul_2si (a, a, e, MPFR_RNDN);
      if (i % 3 == 0)
        {
          /* a tie of the grid at a's magnitude, moved by +-2^-230 relative */
          nm_round_f32 (r, a);
          mpfr_set (h, a, MPFR_RNDN);
          mpfr_prec_round (h, 40, MPFR_RNDN);
          mpfr_add (a, r, h, MPFR_RNDN);
          mpfr_div_2ui (a, a, 1, MPFR_RNDN);
        }
      if (i % 4 == 1)
        mpfr_neg (a, a, MPFR_RNDN);
      nm_round_f32 (r, a);
      if (!tu_same_double (mpfr_get_d (r, MPFR_RNDN), ref_f32 (a)))
        ck_abort_msg ("round_f32 (%s) = %a, by scaling %a", tu_mp_str (a),
                      mpfr_get_d (r, MPFR_RNDN), ref_f32 (a));
    }
  mpfr_clears (a, r, h, (mpfr_ptr) 0);
  gmp_randclear (state);
}
END_TEST

/* The thread's exponent range and flags are left as they were. */
START_TEST (test_round_f32_state_mp)
{
  mpfr_exp_t emin = mpfr_get_emin (), emax = mpfr_get_emax ();
  mpfr_t a, r;
  mpfr_inits2 (256, a, r, (mpfr_ptr) 0);
  ck_assert_int_eq (mpfr_set_emin (-20000), 0);
  ck_assert_int_eq (mpfr_set_emax (20000), 0);
  mpfr_clear_flags ();
  mpfr_set_ui_2exp (a, 1, 300, MPFR_RNDN);
  nm_round_f32 (r, a);
  ck_assert (mpfr_inf_p (r));
  mpfr_set_si_2exp (a, -1, -300, MPFR_RNDN);
  nm_round_f32 (r, a);
  ck_assert (mpfr_zero_p (r) && mpfr_signbit (r));
  mpfr_set_d (a, 0.1, MPFR_RNDN);
  nm_round_f32 (r, a);
  ck_assert (mpfr_get_d (r, MPFR_RNDN) == 0x1.99999ap-4);
  ck_assert_int_eq (mpfr_flags_test (MPFR_FLAGS_ALL), 0);
  ck_assert_int_eq (mpfr_get_emin (), -20000);
  ck_assert_int_eq (mpfr_get_emax (), 20000);
  mpfr_set_emin (emin);
  mpfr_set_emax (emax);
  mpfr_clears (a, r, (mpfr_ptr) 0);
}
END_TEST

/* --- MPFR vectors in one block, explicit precision, threads ------------------- */

#define PI_170 "3.1415926535897932384626433832795028841971693993751058209749445923" \
  "078164062862089986280348253421170679821480865132823066470938446095505822317" \
  "253594081284811174502841027019"

/* n structs, then their n significands, in one allocation: every
 * significand lies inside the block, one after the other, and holds a
 * full-precision value. */
START_TEST (test_vec_one_block_mp)
{
  const size_t n = 7;
  const long prec = 333;
  size_t limb = mpfr_custom_get_size (prec);
  mpfr_ptr v = nm_vec_new_prec (n, prec);
  char *limbs = (char *) v + n * sizeof (__mpfr_struct);
  ck_assert_ptr_nonnull (v);
  for (size_t i = 0; i < n; i++)
    {
      ck_assert_ptr_eq (mpfr_custom_get_significand (v + i), limbs + i * limb);
      ck_assert_int_eq (mpfr_get_prec (v + i), prec);
      ck_assert (mpfr_zero_p (v + i) && !mpfr_signbit (v + i));
    }
  for (size_t i = 0; i < n; i++)
    mpfr_const_pi (v + i, MPFR_RNDN);
  for (size_t i = 0; i < n; i++)
    ck_assert_int_ge (tu_mp_digits_str (v + i, PI_170), 99);
  nm_vec_free (v, n);
  /* n = 0 gives a pointer that can be freed */
  v = nm_vec_new_prec (0, prec);
  ck_assert_ptr_nonnull (v);
  nm_vec_free (v, 0);
}
END_TEST

/* NUM_INIT's group (rlref/num.h): k variables of the working precision,
 * +0, their significands one after the other in one block that starts at
 * the first one's; they hold full-precision values; NUM_CLEAR frees the
 * block (ASan in make check-sanitize sees a leak or a bad free). */
START_TEST (test_group_one_block_mp)
{
  mpfr_t a, b, c;
  mpfr_ptr g[] = { a, b, c };
  mpfr_prec_t old = rlref_mp_set_prec (333);
  size_t limb = mpfr_custom_get_size (333);
  rlref_num_group_init_mp (g, 3);
  for (size_t i = 0; i < 3; i++)
    {
      ck_assert_ptr_eq (mpfr_custom_get_significand (g[i]),
                        (char *) mpfr_custom_get_significand (a) + i * limb);
      ck_assert_int_eq (mpfr_get_prec (g[i]), 333);
      ck_assert (mpfr_zero_p (g[i]) && !mpfr_signbit (g[i]));
      mpfr_const_pi (g[i], MPFR_RNDN);
    }
  mpfr_mul_2si (b, b, 700, MPFR_RNDN);
  mpfr_mul_2si (b, b, -700, MPFR_RNDN);
  for (size_t i = 0; i < 3; i++)
    ck_assert_int_ge (tu_mp_digits_str (g[i], PI_170), 99);
  rlref_num_group_clear_mp (g, 3);
  rlref_num_group_init_mp (g, 0);       /* an empty group: nothing made, nothing freed */
  rlref_num_group_clear_mp (g, 0);
  rlref_mp_set_prec (old);
}
END_TEST

/* Precisions are clamped to [MPFR_PREC_MIN, RLREF_MAX_PREC]. */
START_TEST (test_prec_clamp_mp)
{
  mpfr_t x;
  mpfr_ptr v;
  rlref_ws *ws;
  mpfr_prec_t old = rlref_mp_set_prec (0);
  ck_assert_int_eq (rlref_mp_prec (), MPFR_PREC_MIN);
  rlref_mp_set_prec ((mpfr_prec_t) 1 << 40);
  ck_assert_int_eq (rlref_mp_prec (), RLREF_MAX_PREC);
  rlref_mp_set_prec (old);
  ck_assert_int_eq (rlref_mp_prec (), old);
  nm_init_prec (x, -5);
  ck_assert_int_eq (mpfr_get_prec (x), MPFR_PREC_MIN);
  nm_clear (x);
  v = nm_vec_new_prec (2, 1L << 40);
  ck_assert_ptr_nonnull (v);
  ck_assert_int_eq (mpfr_get_prec (v + 1), RLREF_MAX_PREC);
  nm_vec_free (v, 2);
  ws = rlref_ws_new (0);
  ck_assert_ptr_nonnull (ws);
  ck_assert_int_eq (rlref_ws_prec (ws), MPFR_PREC_MIN);
  rlref_ws_free (ws);
}
END_TEST

struct prec_job
{
  long prec;                    /* given explicitly */
  long thread_prec;             /* rlref_mp_prec () seen by the thread */
  long ws_prec, vec_prec, init_prec;
  int digits;                   /* of pi computed from the workspace */
};

static void *
prec_job_run (void *arg)
{
  struct prec_job *job = arg;
  rlref_ws *ws = rlref_ws_new (job->prec);
  mpfr_ptr t, v;
  mpfr_t x;
  job->thread_prec = (long) rlref_mp_prec ();
  if (!ws)
    return NULL;
  t = nm_ws_take (ws, 2);
  v = nm_vec_new_prec (3, job->prec);
  nm_init_prec (x, job->prec);
  if (t && v)
    {
      nm_const_pi (t);
      job->digits = tu_mp_digits_str (t, PI_170);
      job->ws_prec = (long) mpfr_get_prec (t + 1);
      job->vec_prec = (long) mpfr_get_prec (v + 2);
      job->init_prec = (long) mpfr_get_prec (x);
    }
  nm_clear (x);
  nm_vec_free (v, 3);
  rlref_ws_free (ws);
  mpfr_free_cache ();
  return NULL;
}

/* rlref_mp_prec is per thread: a new thread starts at the default, not
 * at the precision its parent set; work given an explicit precision gets
 * it, whatever the thread's own. */
START_TEST (test_thread_explicit_prec)
{
  pthread_t th;
  struct prec_job job = { 512, 0, 0, 0, 0, 0 };
  mpfr_prec_t old = rlref_mp_set_prec (64);
  ck_assert_int_eq (pthread_create (&th, NULL, prec_job_run, &job), 0);
  ck_assert_int_eq (pthread_join (th, NULL), 0);
  ck_assert_int_eq (job.thread_prec, RLREF_DEFAULT_PREC);
  ck_assert_int_eq (job.ws_prec, 512);
  ck_assert_int_eq (job.vec_prec, 512);
  ck_assert_int_eq (job.init_prec, 512);
  ck_assert_int_ge (job.digits, 150);
  ck_assert_int_eq (rlref_mp_prec (), 64);
  rlref_mp_set_prec (old);
}
END_TEST

/* --- the exact binary64 accumulator past its carry interval ------------------- */

/* More than 2^21 terms (carries are propagated every 2^20 terms): large
 * terms that cancel, a total that overflows, a negative total. */
/* num_mean_si in binary64: a mean whose sum alone overflows is the
 * certified mean within one ulp (the scaled sum), inf only where the mean
 * is beyond the range; against MPFR at 256 bits on random terms of
 * 2^[900, 1023] (the sum of 1e308, 1e308 was inf before, so was its mean). */
START_TEST (test_mean_scaled_d)
{
  double x[64];
  mpfr_t s;
  gsl_rng *r = tu_rng_new ();
  for (int i = 0; i < 3; i++)
    x[i] = 1e308;
  TU_ASSERT_SAME (rlref_num_mean_d (x, 2, 2), 1e308);
  TU_ASSERT_SAME (rlref_num_mean_d (x, 3, 3), 1e308);
  TU_ASSERT_SAME (rlref_num_mean_d (x, 2, 1), INFINITY);
  x[0] = x[1] = DBL_MAX;
  TU_ASSERT_SAME (rlref_num_mean_d (x, 2, 2), DBL_MAX);
  x[0] = x[1] = -DBL_MAX;
  TU_ASSERT_SAME (rlref_num_mean_d (x, 2, 2), -DBL_MAX);
  x[2] = INFINITY;
  TU_ASSERT_SAME (rlref_num_mean_d (x + 1, 2, 2), INFINITY);
  TU_ASSERT_SAME (rlref_num_mean_d (x, 1, 1), -DBL_MAX);
  TU_ASSERT_SAME (rlref_num_mean_d (x, 0, 1), 0.0);
  mpfr_init2 (s, 256);
  for (int trial = 0; trial < 200; trial++)
    {
      size_t n = 1 + gsl_rng_uniform_int (r, 64);
      long d = 1 + (long) gsl_rng_uniform_int (r, (unsigned long) n);
      double m, w;
      mpfr_set_zero (s, 1);
      for (size_t i = 0; i < n; i++)
        {
          x[i] = ldexp (0.5 + gsl_rng_uniform (r) / 2, 900 + (int) gsl_rng_uniform_int (r, 124));
          if (gsl_rng_uniform (r) < 0.2)
            x[i] = -x[i];
          mpfr_add_d (s, s, x[i], MPFR_RNDN);
        }
      mpfr_div_si (s, s, d, MPFR_RNDN);
      w = mpfr_get_d (s, MPFR_RNDN);
      m = rlref_num_mean_d (x, n, d);
      if (isinf (w))
        TU_ASSERT_SAME (m, w);
      else
        TU_ASSERT_REL (m, w, 0x1p-52);
    }
  mpfr_clear (s);
  gsl_rng_free (r);
}
END_TEST

/* num_dot in MPFR where a product leaves MPFR's exponent range: +inf (or
 * 0 for one that underflows beside a finite term), not mpfr_dot's abort
 * (an assertion on the exact product; it aborted before). */
START_TEST (test_dot_out_of_range_mp)
{
  mpfr_t a[2], b[2], r;
  mpfr_exp_t big = mpfr_get_emax () / 2 + 1, tiny = mpfr_get_emin () / 2 - 1;
  for (int i = 0; i < 2; i++)
    mpfr_inits2 (64, a[i], b[i], (mpfr_ptr) 0);
  mpfr_init2 (r, 64);
  mpfr_set_ui_2exp (a[0], 1, big, MPFR_RNDN);
  mpfr_set_ui_2exp (b[0], 3, big, MPFR_RNDN);
  mpfr_set_si (a[1], -1, MPFR_RNDN);
  mpfr_set_si (b[1], 5, MPFR_RNDN);
  TU_OK (rlref_num_dot_mp (r, a[0], b[0], 1));
  ck_assert (mpfr_inf_p (r) && mpfr_sgn (r) > 0);
  {
    mpfr_t x[2], y[2];
    for (int i = 0; i < 2; i++)
      {
        mpfr_init2 (x[i], 64);
        mpfr_init2 (y[i], 64);
      }
    mpfr_set_ui_2exp (x[0], 1, tiny, MPFR_RNDN);
    mpfr_set_ui_2exp (y[0], 1, tiny, MPFR_RNDN);
    mpfr_set_si (x[1], -1, MPFR_RNDN);
    mpfr_set_si (y[1], 5, MPFR_RNDN);
    /* contiguous pairs: (x0, x1) . (y0, y1) = 2^(2 tiny) - 5 -> -5 */
    {
      mpfr_ptr xv = malloc (2 * sizeof *xv), yv = malloc (2 * sizeof *yv);
      ck_assert (xv && yv);
      for (int i = 0; i < 2; i++)
        {
          mpfr_init2 (xv + i, 64);
          mpfr_init2 (yv + i, 64);
          mpfr_set (xv + i, x[i], MPFR_RNDN);
          mpfr_set (yv + i, y[i], MPFR_RNDN);
        }
      TU_OK (rlref_num_dot_mp (r, xv, yv, 2));
      ck_assert (mpfr_cmp_si (r, -5) == 0);
      for (int i = 0; i < 2; i++)
        {
          mpfr_clear (xv + i);
          mpfr_clear (yv + i);
        }
      free (xv);
      free (yv);
    }
    for (int i = 0; i < 2; i++)
      {
        mpfr_clear (x[i]);
        mpfr_clear (y[i]);
      }
  }
  for (int i = 0; i < 2; i++)
    mpfr_clears (a[i], b[i], (mpfr_ptr) 0);
  mpfr_clear (r);
}
END_TEST

START_TEST (test_sum_long_d)
{
  const size_t n = ((size_t) 1 << 21) + 1;
  double *x = malloc (n * sizeof *x), *y = malloc (n * sizeof *y);
  ck_assert_ptr_nonnull (x);
  ck_assert_ptr_nonnull (y);
  for (size_t i = 0; i + 1 < n; i++)
    x[i] = i % 2 ? -DBL_MAX : DBL_MAX;
  x[n - 1] = 0x1p-1074;
  TU_ASSERT_SAME (rlref_num_sum_d (x, n), 0x1p-1074);
  for (size_t i = 0; i + 1 < n; i++)
    x[i] = i < n / 2 ? DBL_MAX : -DBL_MAX;
  TU_ASSERT_SAME (rlref_num_sum_d (x, n), 0x1p-1074);
  TU_ASSERT_SAME (rlref_num_sum_d (x, n / 2), INFINITY);
  for (size_t i = 0; i < n; i++)
    x[i] = -0x1p-1074;
  TU_ASSERT_SAME (rlref_num_sum_d (x, n), -ldexp ((double) n, -1074));
  /* dot: (2^600)(+-2^424) cancels pairwise, then 2^-1074 (2^-1) */
  for (size_t i = 0; i + 1 < n; i++)
    {
      x[i] = 0x1p600;
      y[i] = i % 2 ? -0x1p424 : 0x1p424;
    }
  x[n - 1] = 0x1p-1074;
  y[n - 1] = 0.75;
  TU_ASSERT_SAME (rlref_num_dot_d (x, y, n), 0x1p-1074);
  TU_ASSERT_SAME (rlref_num_dot_d (x, y, n - 1), 0.0);
  free (x);
  free (y);
}
END_TEST

/* --- the workspace pool ---------------------------------------------------------- */

/* binary64 and MPFR temporaries share one pool; a block found too small
 * for a take is replaced, once; a mark above the top is ignored. */
START_TEST (test_workspace_pool)
{
  rlref_ws *ws = rlref_ws_new (128);
  double *d, *big;
  mpfr_ptr m;
  size_t mark;
  ck_assert_ptr_nonnull (ws);
  ck_assert_uint_eq (rlref_ws_nalloc (ws), 0);
  ck_assert_uint_eq (rlref_ws_capacity (ws), 0);
  d = rlref_ws_take_d (ws, 100);             /* 800 bytes: the first block */
  m = rlref_ws_take_mp (ws, 3);
  mpfr_const_pi (m + 2, MPFR_RNDN);
  d[99] = 1.0;
  ck_assert_int_ge (tu_mp_digits_str (m + 2, PI_170), 37);
  ck_assert_uint_eq (rlref_ws_nalloc (ws), 1);
  d = rlref_ws_take_d (ws, 1000);            /* 8000 bytes: a second block */
  ck_assert_ptr_nonnull (d);
  d[999] = 2.0;
  ck_assert_uint_eq (rlref_ws_nalloc (ws), 2);
  mark = rlref_ws_mark (ws);
  rlref_ws_release (ws, mark + 4096);        /* above the top: ignored */
  ck_assert_uint_eq (rlref_ws_mark (ws), mark);
  rlref_ws_release (ws, 0);
  ck_assert_uint_eq (rlref_ws_mark (ws), 0);
  ck_assert_ptr_nonnull (rlref_ws_take_d (ws, 10));
  big = rlref_ws_take_d (ws, 5000);          /* 40000 bytes: replaces block 2 */
  ck_assert_ptr_nonnull (big);
  big[4999] = 3.0;
  ck_assert_uint_eq (rlref_ws_nalloc (ws), 3);
  ck_assert_uint_eq (rlref_ws_capacity (ws), 4096 + 40000);
  rlref_ws_release (ws, 0);
  ck_assert_ptr_nonnull (rlref_ws_take_d (ws, 10));
  ck_assert_ptr_eq (rlref_ws_take_d (ws, 5000), big);
  ck_assert (big[4999] == 0.0);
  ck_assert_uint_eq (rlref_ws_nalloc (ws), 3);
  rlref_ws_free (ws);
  rlref_ws_free (NULL);
}
END_TEST

static Suite *
num_suite (void)
{
  Suite *s = suite_create ("num");
  TCase *both = tu_tcase ("both backends");
  TCase *mp = tu_tcase ("MPFR");
  TCase *d = tu_tcase ("binary64 and the workspace");
  tcase_add_test (both, test_check_max_min);
  tcase_add_test (both, test_check_signed_zero);
  tcase_add_test (both, test_check_round_f32);
  tcase_add_test (both, test_check_fma);
  tcase_add_test (both, test_check_sum);
  tcase_add_test (both, test_check_dot);
  tcase_add_test (both, test_check_sum_dot_once);
  tcase_add_test (both, test_check_sum_dot_random);
  tcase_add_test (both, test_check_sum_dot_alias);
  tcase_add_test (both, test_check_vectors);
  tcase_add_test (both, test_check_workspace);
  tcase_add_test (both, test_check_cmp_exp);
  tcase_add_test (mp, test_round_f32_wide_mp);
  tcase_add_test (mp, test_round_f32_random_mp);
  tcase_add_test (mp, test_round_f32_state_mp);
  tcase_add_test (mp, test_vec_one_block_mp);
  tcase_add_test (mp, test_group_one_block_mp);
  tcase_add_test (mp, test_prec_clamp_mp);
  tcase_add_test (mp, test_thread_explicit_prec);
  tcase_add_test (mp, test_dot_out_of_range_mp);
  tcase_add_test (d, test_sum_long_d);
  tcase_add_test (d, test_mean_scaled_d);
  tcase_add_test (d, test_workspace_pool);
  suite_add_tcase (s, both);
  suite_add_tcase (s, mp);
  suite_add_tcase (s, d);
  return s;
}

TU_MAIN_SEEDED (num_suite)
