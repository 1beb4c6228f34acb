/* test_certify.c -- two-precision certification (rlref_certify), agreeing
 * digits and the digits a precision carries.
 *
 * The callbacks below are written here with MPFR directly, so the
 * expected values are closed forms: sigma(1.5) and 1/3 (RV_ strings of
 * refvalues.h, from mpmath),
 * x^2 at 3 with sensitivity |2x| |x| = 18, x0 x1 at (2, 3) with
 * sensitivity 3*2 + 2*3 = 12, sigma's sensitivity sigma(1 - sigma) |x|
 * (mpmath), an exact zero, a jump at the input, a value that needs more
 * than 256 bits (2^-300 behind a 1), and a value that never settles. */
#include "testutil.h"

#define SIG15 RV_SIGMOID_1P5
#define SENS_SIG15 tu_d (RV_SENS_SIGMOID_1P5)   /* sigma(1.5) (1 - sigma(1.5)) 1.5 */

/* Working precisions seen by the callbacks (Check runs each test in its
 * own process, so these start at 0). */
static mpfr_prec_t seen_min, seen_max;
static int prec_mismatch;

static void
note_prec (mpfr_srcptr y)
{
  mpfr_prec_t p = rlref_mp_prec ();
  if (seen_min == 0 || p < seen_min)
    seen_min = p;
  if (p > seen_max)
    seen_max = p;
  if (mpfr_get_prec (y) != p)
    prec_mismatch = 1;
}

/* y = 1/(1 + e^-x), temporaries at the working precision. */
static int
sigmoid_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  mpfr_t t;
  (void) ctx;
  (void) nx;
  (void) ny;
  note_prec (y);
  mpfr_init2 (t, rlref_mp_prec ());
  mpfr_neg (t, x, MPFR_RNDN);
  mpfr_exp (t, t, MPFR_RNDN);
  mpfr_add_ui (t, t, 1, MPFR_RNDN);
  mpfr_ui_div (y, 1, t, MPFR_RNDN);
  mpfr_clear (t);
  return RLREF_SUCCESS;
}

/* y = 1/3, no inputs. */
static int
third_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) x;
  (void) nx;
  (void) ny;
  mpfr_set_ui (y, 1, MPFR_RNDN);
  mpfr_div_ui (y, y, 3, MPFR_RNDN);
  return RLREF_SUCCESS;
}

/* y = x - x: exactly zero at every precision. */
static int
zero_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  mpfr_sub (y, x, x, MPFR_RNDN);
  return RLREF_SUCCESS;
}

/* y = x^2. */
static int
square_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  mpfr_sqr (y, x, MPFR_RNDN);
  return RLREF_SUCCESS;
}

/* y = 1 if x >= 1 else 0: a jump at x = 1. */
static int
jump_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  mpfr_set_ui (y, mpfr_cmp_ui (x, 1) >= 0 ? 1 : 0, MPFR_RNDN);
  return RLREF_SUCCESS;
}

/* Three outputs of two inputs: sigma(x0), x0 x1 and 0. */
static int
multi_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) nx;
  (void) ny;
  sigmoid_cb (ctx, x, 1, y, 1);
  mpfr_mul (y + 1, x, x + 1, MPFR_RNDN);
  mpfr_set_zero (y + 2, 1);
  return RLREF_SUCCESS;
}

/* y = (1 + 2^-300) - 1 at the working precision: 0 at 256 bits, 2^-300
 * from 301 bits on, so 256 and 320 bits disagree and 512 is needed. */
static int
tiny_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  mpfr_t t;
  (void) ctx;
  (void) x;
  (void) nx;
  (void) ny;
  mpfr_init2 (t, rlref_mp_prec ());
  mpfr_set_ui_2exp (t, 1, -300, MPFR_RNDN);
  mpfr_add_ui (t, t, 1, MPFR_RNDN);
  mpfr_sub_ui (y, t, 1, MPFR_RNDN);
  mpfr_clear (t);
  return RLREF_SUCCESS;
}

/* y = (1 + x) - 1 = x: the 1 a formula adds, which the inputs' spread
 * alone does not count (x = 2^-400: 0 at 256 and 320 bits). */
static int
unity_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  mpfr_t t;
  (void) ctx;
  (void) nx;
  (void) ny;
  mpfr_init2 (t, rlref_mp_prec ());
  mpfr_add_ui (t, x, 1, MPFR_RNDN);
  mpfr_sub_ui (y, t, 1, MPFR_RNDN);
  mpfr_clear (t);
  return RLREF_SUCCESS;
}

/* y = (1 + x)^2 - 1 - 2x = x^2 (*ctx 2), or (1 + x)^3 - 1 - 3x - 2x^2 =
 * x^2 + x^3 (*ctx 3), each power rounded once: a second order that two
 * runs at p and p + 64 bits both lose for x = 2^-300 and p = 512, the first
 * as an exact 0, the second as -2x^2. */
static int
second_order_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  const int *k = ctx;
  mpfr_t t, u;
  (void) nx;
  (void) ny;
  mpfr_inits2 (rlref_mp_prec (), t, u, (mpfr_ptr) 0);
  mpfr_add_ui (t, x, 1, MPFR_RNDN);
  mpfr_pow_ui (t, t, (unsigned long) *k, MPFR_RNDN);
  mpfr_sub_ui (t, t, 1, MPFR_RNDN);
  mpfr_mul_ui (u, x, (unsigned long) *k, MPFR_RNDN);
  mpfr_sub (t, t, u, MPFR_RNDN);
  if (*k == 3)
    {
      mpfr_sqr (u, x, MPFR_RNDN);
      mpfr_mul_2ui (u, u, 1, MPFR_RNDN);
      mpfr_sub (t, t, u, MPFR_RNDN);
    }
  mpfr_set (y, t, MPFR_RNDN);
  mpfr_clears (t, u, (mpfr_ptr) 0);
  return RLREF_SUCCESS;
}

/* y = 1 + 1/p: differs in the third digit between any two precisions, so
 * the target is never reached. */
static int
unsettled_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) x;
  (void) nx;
  (void) ny;
  mpfr_set_ui (y, 1, MPFR_RNDN);
  mpfr_div_ui (y, y, (unsigned long) rlref_mp_prec (), MPFR_RNDN);
  mpfr_add_ui (y, y, 1, MPFR_RNDN);
  return RLREF_SUCCESS;
}

/* Always refuses. */
static int
fail_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) x;
  (void) nx;
  (void) y;
  (void) ny;
  return RLREF_EDOM;
}

/* A library formula: PREF-BT p = sigma(rw - rl). */
static int
bt_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  return rlref_bt_prob_mp (y, x, x + 1);
}

/* ===== rlref_certify ======================================================= */

/* sigma(1.5) at 256 bits: >= 70 certified digits, value matching mpmath
 * to 70, not zero, differentiable with sens = sigma(1 - sigma) 1.5. */
START_TEST (test_certify_sigmoid)
{
  const double x = 1.5;
  rlref_certified c;
  TU_OK (rlref_certify (sigmoid_cb, NULL, &x, 1, 1, 256, 70, 1, &c));
  ck_assert_uint_eq (c.ny, 1);
  ck_assert_msg (c.digits[0] >= 70, "digits %d", c.digits[0]);
  TU_ASSERT_MP_STR (c.value, SIG15, 70);
  ck_assert_int_eq (c.exact_zero[0], 0);
  ck_assert_int_eq (c.nondiff[0], 0);
  TU_ASSERT_REL (c.sens[0], SENS_SIG15, 1e-6);
  ck_assert (c.prec >= 256);
  rlref_certified_clear (&c);
  ck_assert_ptr_null (c.value);
}
END_TEST

/* The callback runs at two precisions at least 64 bits apart, and each
 * time the working precision equals the precision of its outputs. */
START_TEST (test_certify_sees_working_precision)
{
  const double x = -0.75;
  rlref_certified c;
  TU_OK (rlref_certify (sigmoid_cb, NULL, &x, 1, 1, 256, 70, 0, &c));
  ck_assert_int_eq (prec_mismatch, 0);
  ck_assert (seen_min == 256);
  ck_assert (seen_max >= seen_min + 64);
  rlref_certified_clear (&c);
}
END_TEST

/* 1/3 with no inputs: >= 70 digits, value 0.333... to 70. */
START_TEST (test_certify_third)
{
  rlref_certified c;
  TU_OK (rlref_certify (third_cb, NULL, NULL, 0, 1, 256, 70, 1, &c));
  ck_assert (c.digits[0] >= 70);
  TU_ASSERT_MP_STR (c.value, RV_THIRD, 70);
  ck_assert (c.sens[0] == 0.0);
  rlref_certified_clear (&c);
}
END_TEST

/* x - x is flagged as an exact zero, with 0 digits and value 0. */
START_TEST (test_certify_exact_zero)
{
  const double x = 2.5;
  rlref_certified c;
  TU_OK (rlref_certify (zero_cb, NULL, &x, 1, 1, 256, 70, 0, &c));
  ck_assert_int_eq (c.exact_zero[0], 1);
  ck_assert_int_eq (c.digits[0], 0);
  ck_assert (mpfr_zero_p (c.value));
  ck_assert (c.prec == 256);         /* a zero needs no escalation */
  rlref_certified_clear (&c);
}
END_TEST

/* f(x) = x^2 at x = 3: value 9, sens = |f'(3)| |3| = 18 (within 1e-6),
 * differentiable. */
START_TEST (test_certify_sens_square)
{
  const double x = 3.0;
  rlref_certified c;
  TU_OK (rlref_certify (square_cb, NULL, &x, 1, 1, 256, 70, 1, &c));
  ck_assert (mpfr_cmp_ui (c.value, 9) == 0);
  ck_assert (c.digits[0] >= 70);
  ck_assert_int_eq (c.nondiff[0], 0);
  TU_ASSERT_ABS (c.sens[0], 18.0, 1e-6);
  rlref_certified_clear (&c);
}
END_TEST

/* f(x) = [x >= 1] at x = 1: the central differences at two step sizes
 * are 1/(2h) and disagree, so nondiff is set and sens is 0; the value 1
 * itself is certified. */
START_TEST (test_certify_nondiff_jump)
{
  const double x = 1.0;
  rlref_certified c;
  TU_OK (rlref_certify (jump_cb, NULL, &x, 1, 1, 256, 70, 1, &c));
  ck_assert_int_eq (c.nondiff[0], 1);
  ck_assert (c.sens[0] == 0.0);
  ck_assert (mpfr_cmp_ui (c.value, 1) == 0);
  ck_assert (c.digits[0] >= 70);
  rlref_certified_clear (&c);
}
END_TEST

/* The same jump away from the input (x = 3) is flat: no flag, sens 0. */
START_TEST (test_certify_jump_elsewhere_is_smooth)
{
  const double x = 3.0;
  rlref_certified c;
  TU_OK (rlref_certify (jump_cb, NULL, &x, 1, 1, 256, 70, 1, &c));
  ck_assert_int_eq (c.nondiff[0], 0);
  ck_assert (c.sens[0] == 0.0);
  rlref_certified_clear (&c);
}
END_TEST

/* Several outputs: (sigma(x0), x0 x1, 0) at (1.5, 3)... each output gets
 * its own digits, flags and sens: sens of x0 x1 = |x1||x0| + |x0||x1| = 9,
 * of sigma(x0) = sigma(1 - sigma) 1.5 (x1 does not enter), the third is an
 * exact zero. */
START_TEST (test_certify_multi_output)
{
  const double x[2] = { 1.5, 3.0 };
  rlref_certified c;
  TU_OK (rlref_certify (multi_cb, NULL, x, 2, 3, 256, 70, 1, &c));
  ck_assert_uint_eq (c.ny, 3);
  TU_ASSERT_MP_STR (c.value, SIG15, 70);
  ck_assert (mpfr_cmp_d (c.value + 1, 4.5) == 0);
  ck_assert (c.digits[0] >= 70 && c.digits[1] >= 70 && c.digits[2] == 0);
  ck_assert (c.exact_zero[0] == 0 && c.exact_zero[1] == 0 && c.exact_zero[2] == 1);
  TU_ASSERT_REL (c.sens[0], SENS_SIG15, 1e-6);
  TU_ASSERT_REL (c.sens[1], 9.0, 1e-9);
  ck_assert (c.sens[2] == 0.0);
  ck_assert (!c.nondiff[0] && !c.nondiff[1] && !c.nondiff[2]);
  rlref_certified_clear (&c);
}
END_TEST

/* A value invisible at 256 bits ((1 + 2^-300) - 1): the precision is
 * doubled until two evaluations agree, giving 2^-300 exactly at >= 512
 * bits with >= 70 digits. */
START_TEST (test_certify_escalates)
{
  rlref_certified c;
  TU_OK (rlref_certify (tiny_cb, NULL, NULL, 0, 1, 256, 70, 0, &c));
  ck_assert_msg (c.prec >= 512, "prec %ld", (long) c.prec);
  ck_assert (mpfr_cmp_ui_2exp (c.value, 1, -300) == 0);
  ck_assert (c.digits[0] >= 70);
  ck_assert_int_eq (c.exact_zero[0], 0);
  rlref_certified_clear (&c);
}
END_TEST

/* The start counts 1 as an input: (1 + 2^-400) - 1 is 2^-400, not an
 * exact 0 at 256 and 320 bits. */
START_TEST (test_certify_counts_unity)
{
  const double x = 0x1p-400;
  rlref_certified c;
  TU_OK (rlref_certify (unity_cb, NULL, &x, 1, 1, 256, 70, 0, &c));
  ck_assert_int_eq (c.exact_zero[0], 0);
  ck_assert (mpfr_cmp_d (c.value, x) == 0);
  ck_assert (c.digits[0] >= 70);
  rlref_certified_clear (&c);
}
END_TEST

/* A second order lost at p and p + 64 bits: the zero and the value far
 * below 1 are each run again at 2p, which sees x^2 and x^2 + x^3, and the
 * doubling goes on to the right values (x = 2^-300).  A true zero needs no
 * more: test_certify_exact_zero. */
START_TEST (test_certify_second_order)
{
  const double x = 0x1p-300;
  const int k2 = 2, k3 = 3;
  mpfr_t want;
  rlref_certified c;
  TU_OK (rlref_certify (second_order_cb, &k2, &x, 1, 1, 256, 70, 0, &c));
  ck_assert_int_eq (c.exact_zero[0], 0);
  ck_assert (mpfr_cmp_ui_2exp (c.value, 1, -600) == 0);
  ck_assert (c.digits[0] >= 70);
  rlref_certified_clear (&c);
  TU_OK (rlref_certify (second_order_cb, &k3, &x, 1, 1, 256, 70, 0, &c));
  mpfr_init2 (want, 512);
  mpfr_set_ui_2exp (want, 1, -600, MPFR_RNDN);
  mpfr_add_d (want, want, 0x1p-900, MPFR_RNDN);
  ck_assert (rlref_agreeing_digits (c.value, want, 70) >= 70);
  ck_assert (c.digits[0] >= 70);
  mpfr_clear (want);
  rlref_certified_clear (&c);
}
END_TEST

/* A value that differs at every precision stops at the maximum precision
 * with success and the few digits that hold (header: "the digits then say
 * how many hold"). */
START_TEST (test_certify_unreachable_target)
{
  rlref_certified c;
  TU_OK (rlref_certify (unsettled_cb, NULL, NULL, 0, 1, 256, 70, 0, &c));
  ck_assert_msg (c.digits[0] < 70, "digits %d", c.digits[0]);
  ck_assert (c.prec <= RLREF_CERTIFY_MAX_PREC);
  ck_assert (c.prec > 256);
  rlref_certified_clear (&c);
}
END_TEST

/* The working precision is restored after success and after failure; a
 * failing callback's status is returned and the result is cleared. */
START_TEST (test_certify_restores_precision)
{
  const double x = 0.5;
  rlref_certified c;
  mpfr_prec_t old = rlref_mp_set_prec (300);
  TU_OK (rlref_certify (sigmoid_cb, NULL, &x, 1, 1, 128, 30, 1, &c));
  ck_assert_int_eq ((int) rlref_mp_prec (), 300);
  rlref_certified_clear (&c);
  TU_OK (rlref_certify (tiny_cb, NULL, NULL, 0, 1, 256, 70, 0, &c));
  ck_assert_int_eq ((int) rlref_mp_prec (), 300);
  rlref_certified_clear (&c);
  TU_ASSERT_STATUS (rlref_certify (fail_cb, NULL, &x, 1, 1, 256, 70, 1, &c), RLREF_EDOM);
  ck_assert_int_eq ((int) rlref_mp_prec (), 300);
  ck_assert_ptr_null (c.value);
  rlref_mp_set_prec (old);
}
END_TEST

/* A library formula through the certifier: PREF-BT at (1.5, 0) has >= 70
 * digits of sigma(1.5) and sens = sigma'(1.5) |1.5| (rl = 0 adds
 * nothing). */
START_TEST (test_certify_library_formula)
{
  const double x[2] = { 1.5, 0.0 };
  rlref_certified c;
  TU_OK (rlref_certify (bt_cb, NULL, x, 2, 1, 256, 70, 1, &c));
  ck_assert (c.digits[0] >= 70);
  TU_ASSERT_MP_STR (c.value, SIG15, 70);
  TU_ASSERT_REL (c.sens[0], SENS_SIG15, 1e-6);
  rlref_certified_clear (&c);
}
END_TEST

/* ===== rlref_agreeing_digits and rlref_digits_of_prec =================== */

/* Equal nonzero values give the cap; 1 and 1 + 1e-10 agree on 9 or 10
 * digits; the cap bounds a closer agreement; a relative difference of
 * 2^-4000 (below the double range) gives 1203 +- 1 digits
 * (4000 log10 2 = 1204.12). */
START_TEST (test_agreeing_digits_basic)
{
  mpfr_t a, b;
  int d;
  mpfr_inits2 (4096, a, b, (mpfr_ptr) 0);
  mpfr_set_d (a, 0.1, MPFR_RNDN);
  mpfr_set (b, a, MPFR_RNDN);
  ck_assert_int_eq (rlref_agreeing_digits (a, b, 50), 50);
  mpfr_set_ui (a, 1, MPFR_RNDN);
  mpfr_set_str (b, "1.0000000001", 10, MPFR_RNDN);
  d = rlref_agreeing_digits (a, b, 100);
  ck_assert_msg (d >= 9 && d <= 10, "digits %d", d);
  mpfr_set_str (b, "1.00000000000000000000000000000000000000000000000001", 10, MPFR_RNDN);
  ck_assert_int_eq (rlref_agreeing_digits (a, b, 20), 20);
  mpfr_set_ui_2exp (b, 1, -4000, MPFR_RNDN);
  mpfr_add_ui (b, b, 1, MPFR_RNDN);
  d = rlref_agreeing_digits (a, b, 5000);
  ck_assert_msg (d >= 1202 && d <= 1204, "digits %d", d);
  /* symmetric in its arguments up to the last digit */
  d = rlref_agreeing_digits (b, a, 5000);
  ck_assert_msg (d >= 1202 && d <= 1204, "digits %d", d);
  mpfr_clears (a, b, (mpfr_ptr) 0);
}
END_TEST

/* No agreement: 1 vs 2, 1 vs -1, 0 vs a nonzero, and zeros, infinities
 * and NaNs (never certified digits, as rlref_certified says of "zero or
 * non-finite") all give 0. */
START_TEST (test_agreeing_digits_none)
{
  mpfr_t a, b;
  mpfr_inits2 (256, a, b, (mpfr_ptr) 0);
  mpfr_set_ui (a, 1, MPFR_RNDN);
  mpfr_set_ui (b, 2, MPFR_RNDN);
  ck_assert_int_eq (rlref_agreeing_digits (a, b, 70), 0);
  mpfr_set_si (b, -1, MPFR_RNDN);
  ck_assert_int_eq (rlref_agreeing_digits (a, b, 70), 0);
  mpfr_set_zero (a, 1);
  mpfr_set_d (b, 1e-300, MPFR_RNDN);
  ck_assert_int_eq (rlref_agreeing_digits (a, b, 70), 0);
  ck_assert_int_eq (rlref_agreeing_digits (b, a, 70), 0);
  mpfr_set_zero (b, 1);
  ck_assert_int_eq (rlref_agreeing_digits (a, b, 70), 0);
  mpfr_set_inf (a, 1);
  mpfr_set_inf (b, 1);
  ck_assert_int_eq (rlref_agreeing_digits (a, b, 70), 0);
  mpfr_set_nan (a);
  mpfr_set_nan (b);
  ck_assert_int_eq (rlref_agreeing_digits (a, b, 70), 0);
  mpfr_clears (a, b, (mpfr_ptr) 0);
}
END_TEST

/* floor((p - 1) log10 2): 15 for 53 bits, 76 for 256, 153 for 512,
 * 1232 for 4096 (mpmath). */
START_TEST (test_digits_of_prec)
{
  ck_assert_int_eq (rlref_digits_of_prec (53), 15);
  ck_assert_int_eq (rlref_digits_of_prec (64), 18);
  ck_assert_int_eq (rlref_digits_of_prec (256), 76);
  ck_assert_int_eq (rlref_digits_of_prec (512), 153);
  ck_assert_int_eq (rlref_digits_of_prec (4096), 1232);
}
END_TEST

/* rlref_mp_set_prec returns the previous precision and clamps to
 * [MPFR_PREC_MIN, 2^20]; the default is 256 bits. */
START_TEST (test_working_precision)
{
  ck_assert_int_eq ((int) rlref_mp_prec (), RLREF_DEFAULT_PREC);
  ck_assert_int_eq ((int) rlref_mp_set_prec (512), 256);
  ck_assert_int_eq ((int) rlref_mp_prec (), 512);
  rlref_mp_set_prec (0);
  ck_assert_int_eq ((int) rlref_mp_prec (), (int) MPFR_PREC_MIN);
  rlref_mp_set_prec ((mpfr_prec_t) 1 << 30);
  ck_assert_int_eq ((int) rlref_mp_prec (), 1 << 20);
  rlref_mp_set_prec (RLREF_DEFAULT_PREC);
}
END_TEST

static Suite *
certify_suite (void)
{
  Suite *s = suite_create ("certify");
  TCase *tc;

  tc = tu_tcase ("certify");
  tcase_add_test (tc, test_certify_sigmoid);
  tcase_add_test (tc, test_certify_sees_working_precision);
  tcase_add_test (tc, test_certify_third);
  tcase_add_test (tc, test_certify_exact_zero);
  tcase_add_test (tc, test_certify_sens_square);
  tcase_add_test (tc, test_certify_nondiff_jump);
  tcase_add_test (tc, test_certify_jump_elsewhere_is_smooth);
  tcase_add_test (tc, test_certify_multi_output);
  tcase_add_test (tc, test_certify_escalates);
  tcase_add_test (tc, test_certify_counts_unity);
  tcase_add_test (tc, test_certify_second_order);
  tcase_add_test (tc, test_certify_unreachable_target);
  tcase_add_test (tc, test_certify_restores_precision);
  tcase_add_test (tc, test_certify_library_formula);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("digits");
  tcase_add_test (tc, test_agreeing_digits_basic);
  tcase_add_test (tc, test_agreeing_digits_none);
  tcase_add_test (tc, test_digits_of_prec);
  tcase_add_test (tc, test_working_precision);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN (certify_suite)
