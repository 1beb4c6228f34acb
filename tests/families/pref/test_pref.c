/* test_pref.c -- preference and reward models (PREF-*): Bradley-Terry and
 * its Gumbel construction, the reward-model loss and its margin and
 * label-smoothing variants, ensembles, Plackett-Luce and the
 * maximum-likelihood fits, in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: seed 000's worked examples and the detectors of
 * CONVENTIONS.md; closed forms (sigma(D), log(2 cosh(D/2)), log(1/K!),
 * log 4); the RV_ decimal strings of refvalues.h (gen_refvalues.py: mpmath,
 * mp.dps = 120, on the exact binary64 inputs; the maximum-likelihood fits
 * solved there with mpmath.findroot on the analytic score equations);
 * central finite differences at 256 bits for the gradients.  Inputs near
 * the ends of the binary64 range must give the scaled values, the fits
 * must not depend on the scale of the counts, and every function is held
 * to the aliasing rule of reference/README.md. */
#include "testutil.h"

#define PREC 256

/* MPFR scalars at PREC holding the double d. */
static void
mp_from_d (mpfr_ptr x, double d)
{
  mpfr_init2 (x, PREC);
  mpfr_set_d (x, d, MPFR_RNDN);
}

/* Central differences at 256 bits with h = 2^-80 (truncation ~h^2 ~ 1e-48,
 * rounding ~2^-256/h ~ 1e-53): f maps the n inputs x to a scalar; grad
 * must agree with the differences to >= digits, or be below 1e-40 where
 * they are (a zero derivative). */
typedef int mp_scalar_fn (mpfr_ptr y, mpfr_srcptr x, const void *ctx);

static void
check_grad_fd (mp_scalar_fn *f, const void *ctx, mpfr_srcptr x, size_t n,
               mpfr_srcptr grad, int digits)
{
  mpfr_ptr xp = tu_mp_vec_new (n, PREC);
  mpfr_t yp, ym, d;
  mpfr_inits2 (PREC, yp, ym, d, (mpfr_ptr) 0);
  for (size_t i = 0; i < n; i++)
    {
      for (size_t j = 0; j < n; j++)
        mpfr_set (xp + j, x + j, MPFR_RNDN);
      mpfr_add_d (xp + i, x + i, 0x1p-80, MPFR_RNDN);
      TU_OK (f (yp, xp, ctx));
      mpfr_sub_d (xp + i, x + i, 0x1p-80, MPFR_RNDN);
      TU_OK (f (ym, xp, ctx));
      mpfr_sub (d, yp, ym, MPFR_RNDN);
      mpfr_mul_2si (d, d, 79, MPFR_RNDN);
      if (fabs (mpfr_get_d (d, MPFR_RNDN)) < 1e-40)
        TU_ASSERT_MP_SMALL (grad + i, 1e-40);
      else
        ck_assert_msg (tu_mp_digits (grad + i, d) >= digits,
                       "d/dx%zu: analytic %s, differences %s (%d digits)", i,
                       tu_mp_str (grad + i), tu_mp_str (d), tu_mp_digits (grad + i, d));
    }
  mpfr_clears (yp, ym, d, (mpfr_ptr) 0);
  tu_mp_vec_free (xp, n);
}

/* ===== PREF-BT ========================================================== */

/* p = sigma(rw - rl): (1.5, 0) is seed 000's worked example (~0.82),
 * equal scores give exactly 1/2, (-1, 2) gives sigma(-3), (1e4, 1e4 - 10)
 * gives sigma(10) (mpmath), in both backends. */
START_TEST (test_bt_prob_closed_form)
{
  static const struct { double rw, rl; const char *p; } c[] = {
    { 1.5, 0.0, RV_SIGMOID_1P5 },
    { 0.2, 0.2, "0.5" },
    { -1.0, 2.0, RV_SIGMOID_M3 },
    { 1e4, 1e4 - 10, RV_SIGMOID_10 },
  };
  mpfr_t rw, rl, p;
  mpfr_inits2 (PREC, rw, rl, p, (mpfr_ptr) 0);
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    {
      double pd;
      TU_OK (rlref_bt_prob_d (&pd, &c[i].rw, &c[i].rl));
      TU_ASSERT_REL (pd, strtod (c[i].p, NULL), TU_TOL1);
      mpfr_set_d (rw, c[i].rw, MPFR_RNDN);
      mpfr_set_d (rl, c[i].rl, MPFR_RNDN);
      TU_OK (rlref_bt_prob_mp (p, rw, rl));
      TU_ASSERT_MP_STR (p, c[i].p, 75);
    }
  TU_OK (rlref_bt_prob_mp (p, rl, rl));
  ck_assert (mpfr_cmp_d (p, 0.5) == 0);
  mpfr_clears (rw, rl, p, (mpfr_ptr) 0);
}
END_TEST

/* (13.5) e^rw/(e^rw + e^rl) and (13.6) sigma(rw - rl) agree at 256 bits
 * to >= 72 digits, and in double within 4 eps (2 + |rw| + |rl|): scores
 * up to 1e4 cost up to 4 digits in the argument of the exponential. */
START_TEST (test_bt_prob_vs_softmax_form)
{
  static const double pairs[][2] = {
    { 1.5, 0.0 }, { -0.75, 3.0 }, { 20.0, -20.0 }, { 1e4 + 1.5, 1e4 }, { -1e4, -1e4 + 2.0 },
  };
  mpfr_t rw, rl, p, q;
  mpfr_inits2 (PREC, rw, rl, p, q, (mpfr_ptr) 0);
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    {
      double pd, qd;
      mpfr_set_d (rw, pairs[i][0], MPFR_RNDN);
      mpfr_set_d (rl, pairs[i][1], MPFR_RNDN);
      TU_OK (rlref_bt_prob_mp (p, rw, rl));
      TU_OK (rlref_bt_prob_softmax_mp (q, rw, rl));
      TU_ASSERT_MP_AGREE (q, p, 72);
      TU_OK (rlref_bt_prob_d (&pd, &pairs[i][0], &pairs[i][1]));
      TU_OK (rlref_bt_prob_softmax_d (&qd, &pairs[i][0], &pairs[i][1]));
      TU_ASSERT_REL (qd, pd, 4 * DBL_EPSILON * (2 + fabs (pairs[i][0]) + fabs (pairs[i][1])));
    }
  mpfr_clears (rw, rl, p, q, (mpfr_ptr) 0);
}
END_TEST

/* Adding a constant to both scores leaves p unchanged: (1.5, 0) shifted
 * by 1000, -1e4 and 1e6 (exact in double, so D = 1.5 exactly) gives the
 * identical sigma(1.5); the naive e^rw/(e^rw + e^rl) overflows to NaN at
 * a shift of 1000. */
START_TEST (test_bt_shift_invariance)
{
  static const double shifts[] = { 1000.0, -1e4, 1e6 };
  double rw = 1.5, rl = 0.0, p0, p, pn;
  mpfr_t a, b, q0, q;
  mpfr_inits2 (PREC, a, b, q0, q, (mpfr_ptr) 0);
  TU_OK (rlref_bt_prob_d (&p0, &rw, &rl));
  mpfr_set_d (a, rw, MPFR_RNDN);
  mpfr_set_d (b, rl, MPFR_RNDN);
  TU_OK (rlref_bt_prob_mp (q0, a, b));
  for (size_t i = 0; i < 3; i++)
    {
      double sw = rw + shifts[i], sl = rl + shifts[i];
      TU_OK (rlref_bt_prob_d (&p, &sw, &sl));
      TU_ASSERT_SAME (p, p0);
      mpfr_set_d (a, sw, MPFR_RNDN);
      mpfr_set_d (b, sl, MPFR_RNDN);
      TU_OK (rlref_bt_prob_mp (q, a, b));
      ck_assert (mpfr_equal_p (q, q0));
      TU_OK (rlref_bt_prob_softmax_mp (q, a, b));
      TU_ASSERT_MP_AGREE (q, q0, 70);
    }
  rw = 1001.5;
  rl = 1000.0;
  TU_OK (rlref_bt_prob_naive_d (&pn, &rw, &rl));
  ck_assert_msg (!isfinite (pn) || tu_rel_err (pn, p0) > 0.5, "naive BT = %g", pn);
  rw = 1.5;
  rl = 0.0;
  TU_OK (rlref_bt_prob_naive_d (&pn, &rw, &rl));
  TU_ASSERT_REL (pn, p0, TU_TOL1);
  mpfr_clears (a, b, q0, q, (mpfr_ptr) 0);
}
END_TEST

/* ===== PREF-BT-GUMBEL ===================================================== */

/* The Gumbel integral int f(x) F(x + D) dx equals sigma(D): at 256 bits to
 * >= 60 digits (mpmath sigma), in double to 1e-13 relative, for D in
 * {0, 1.5, -3, 10, +-40, -300} and D = 1.5 at scores around 1000. */
START_TEST (test_bt_gumbel_integral_is_sigmoid)
{
  static const struct { double rw, rl; const char *p; } c[] = {
    { 0.0, 0.0, "0.5" },
    { 1.5, 0.0, RV_SIGMOID_1P5 },
    { -1.0, 2.0, RV_SIGMOID_M3 },
    { 10.0, 0.0, RV_SIGMOID_10 },
    { 1001.5, 1000.0, RV_SIGMOID_1P5 },
    { -40.0, 0.0, RV_SIGMOID_M40 },
    { 0.0, 300.0, RV_SIGMOID_M300 },
    { 40.0, 0.0, RV_SIGMOID_40 },
  };
  mpfr_t rw, rl, p;
  mpfr_inits2 (PREC, rw, rl, p, (mpfr_ptr) 0);
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    {
      double pd;
      TU_OK (rlref_bt_gumbel_integral_d (&pd, &c[i].rw, &c[i].rl));
      TU_ASSERT_REL (pd, strtod (c[i].p, NULL), 1e-13);
      mpfr_set_d (rw, c[i].rw, MPFR_RNDN);
      mpfr_set_d (rl, c[i].rl, MPFR_RNDN);
      TU_OK (rlref_bt_gumbel_integral_mp (p, rw, rl));
      TU_ASSERT_MP_STR (p, c[i].p, 60);
    }
  mpfr_clears (rw, rl, p, (mpfr_ptr) 0);
}
END_TEST

/* Seeded Monte-Carlo (the catalogue's check of the construction): with
 * g = -log(-log U) standard Gumbel (inverse CDF), the frequency of
 * rw + g_w > rl + g_l over 10^5 draws lies within 5 standard errors
 * sqrt(p(1-p)/n) of rlref's quadrature p of the integral, for D = 1.5 and
 * D = -0.5; and that p is bt_prob's sigma(D) to 1e-13. */
START_TEST (test_bt_gumbel_monte_carlo)
{
  static const double c[][2] = { { 1.5, 0.0 }, { 0.25, 0.75 } };
  const long n = 100000;
  gsl_rng *rng = tu_rng_new ();
  for (size_t k = 0; k < 2; k++)
    {
      long wins = 0;
      double freq, se, p, q;
      TU_OK (rlref_bt_gumbel_integral_d (&p, &c[k][0], &c[k][1]));
      TU_OK (rlref_bt_prob_d (&q, &c[k][0], &c[k][1]));
      TU_ASSERT_REL (p, q, 1e-13);
      for (long i = 0; i < n; i++)
        {
          double gw = -log (-log (gsl_rng_uniform_pos (rng)));
          double gl = -log (-log (gsl_rng_uniform_pos (rng)));
          if (c[k][0] + gw > c[k][1] + gl)
            wins++;
        }
      freq = (double) wins / (double) n;
      se = sqrt (p * (1 - p) / (double) n);
      ck_assert_msg (fabs (freq - p) <= 5 * se,
                     "D = %g: frequency %.5f vs the integral %.5f (%.2f standard errors, "
                     "seed %lu)", c[k][0] - c[k][1], freq, p, (freq - p) / se, tu_seed ());
    }
  gsl_rng_free (rng);
}
END_TEST

/* ===== PREF-RM-LOSS ======================================================== */

/* Detector (CONVENTIONS.md): r_w 1.0, r_l 0.2 -> 0.3711007; at 256 bits
 * -log sigma(1 - 0.2) to 75 digits and dL/dr_w = -sigma(-D) =
 * -0.31002551887... = -dL/dr_l (mpmath). */
START_TEST (test_rm_loss_detector)
{
  const char *want = RV_RM_DETECTOR;
  const char *gw = RV_RM_DETECTOR_GRAD;
  double rw = 1.0, rl = 0.2, c = 0.0, loss, g1, g2;
  mpfr_t mrw, mrl, mc, ml, mg1, mg2;
  TU_OK (rlref_rm_loss_d (&loss, &g1, &g2, &rw, &rl, 1, &c));
  TU_ASSERT_ABS (loss, 0.3711007, 5e-8);
  TU_ASSERT_REL (loss, strtod (want, NULL), TU_TOL0);
  TU_ASSERT_REL (g1, strtod (gw, NULL), TU_TOL1);
  TU_ASSERT_REL (g2, -strtod (gw, NULL), TU_TOL1);
  mp_from_d (mrw, rw);
  mp_from_d (mrl, rl);
  mp_from_d (mc, c);
  mpfr_inits2 (PREC, ml, mg1, mg2, (mpfr_ptr) 0);
  TU_OK (rlref_rm_loss_mp (ml, mg1, mg2, mrw, mrl, 1, mc));
  TU_ASSERT_MP_STR (ml, want, 75);
  TU_ASSERT_MP_STR (mg1, gw, 75);
  mpfr_neg (mg2, mg2, MPFR_RNDN);
  TU_ASSERT_MP_STR (mg2, gw, 75);
  /* the naive log(1 + e^{rl - rw}) agrees where nothing overflows */
  TU_OK (rlref_rm_loss_naive_mp (ml, mrw, mrl));
  TU_ASSERT_MP_STR (ml, want, 75);
  mpfr_clears (mrw, mrl, mc, ml, mg1, mg2, (mpfr_ptr) 0);
}
END_TEST

struct rm_ctx
{
  size_t B;
  mpfr_srcptr c;
};

/* loss of x = (rw[0..B-1], rl[0..B-1]) */
static int
rm_loss_of (mpfr_ptr y, mpfr_srcptr x, const void *ctx)
{
  const struct rm_ctx *r = ctx;
  return rlref_rm_loss_mp (y, NULL, NULL, x, x + r->B, r->B, r->c);
}

/* A batch of three pairs, plain (c = 0) and TRL-centred (c = 0.01): the
 * loss against mpmath (75 digits), the gradients against mpmath and
 * against central differences of the loss (>= 40 digits). */
START_TEST (test_rm_loss_batch_and_gradient)
{
  static const double rw[3] = { 1.0, -0.5, 2.25 }, rl[3] = { 0.2, 0.75, 2.0 };
  static const char *const loss_want[2] = { RV_RM_BATCH_LOSS_C0, RV_RM_BATCH_LOSS_C001 };
  static const char *const gw[3] = RV_RM_BATCH_GRAD_RW_C001, *const gl[3] = RV_RM_BATCH_GRAD_RL_C001;
  mpfr_ptr x = tu_mp_vec_new (6, PREC), g = tu_mp_vec_new (6, PREC);
  mpfr_t c, loss;
  double cd[2] = { 0.0, 0.01 };
  mpfr_inits2 (PREC, c, loss, (mpfr_ptr) 0);
  for (int i = 0; i < 3; i++)
    {
      mpfr_set_d (x + i, rw[i], MPFR_RNDN);
      mpfr_set_d (x + 3 + i, rl[i], MPFR_RNDN);
    }
  for (int k = 0; k < 2; k++)
    {
      struct rm_ctx ctx = { 3, c };
      double ld, gd[6];
      mpfr_set_d (c, cd[k], MPFR_RNDN);
      TU_OK (rlref_rm_loss_mp (loss, g, g + 3, x, x + 3, 3, c));
      TU_ASSERT_MP_STR (loss, loss_want[k], 75);
      check_grad_fd (rm_loss_of, &ctx, x, 6, g, 40);
      TU_OK (rlref_rm_loss_d (&ld, gd, gd + 3, rw, rl, 3, &cd[k]));
      TU_ASSERT_REL (ld, strtod (loss_want[k], NULL), TU_TOL1);
      for (int i = 0; i < 6; i++)
        TU_ASSERT_REL (gd[i], mpfr_get_d (g + i, MPFR_RNDN), TU_TOL1);
      if (k == 1)
        for (int i = 0; i < 3; i++)
          {
            TU_ASSERT_MP_STR (g + i, gw[i], 75);
            TU_ASSERT_MP_STR (g + 3 + i, gl[i], 75);
          }
    }
  tu_mp_vec_free (x, 6);
  tu_mp_vec_free (g, 6);
  mpfr_clears (c, loss, (mpfr_ptr) 0);
}
END_TEST

/* Large margins: -log sigma(0 - 1000) = 1000 (the naive log(1 + e^1000)
 * overflows in double); -log sigma(1000) = softplus(-1000) ~ 5.076e-435
 * (mpmath), 0 in double, to 75 digits at 256 bits. */
START_TEST (test_rm_loss_extreme)
{
  double a = 0.0, b = 1000.0, c = 0.0, loss, ln;
  mpfr_t ma, mb, mc, ml;
  TU_OK (rlref_rm_loss_d (&loss, NULL, NULL, &a, &b, 1, &c));
  TU_ASSERT_SAME (loss, 1000.0);
  TU_OK (rlref_rm_loss_naive_d (&ln, &a, &b));
  ck_assert (isinf (ln));
  TU_OK (rlref_rm_loss_d (&loss, NULL, NULL, &b, &a, 1, &c));
  ck_assert (loss == 0.0);
  mp_from_d (ma, b);
  mp_from_d (mb, a);
  mp_from_d (mc, 0.0);
  mpfr_init2 (ml, PREC);
  TU_OK (rlref_rm_loss_mp (ml, NULL, NULL, ma, mb, 1, mc));
  TU_ASSERT_MP_STR (ml, RV_SOFTPLUS_M1000, 75);
  mpfr_clears (ma, mb, mc, ml, (mpfr_ptr) 0);
}
END_TEST

/* Bad inputs: empty batch or NULL scores -> EINVAL; NaN or infinite scores
 * or c -> ENAN; c < 0 -> EDOM. */
START_TEST (test_rm_loss_bad_inputs)
{
  double rw[2] = { 1.0, 2.0 }, rl[2] = { 0.0, NAN }, c = 0.0, cneg = -0.01, cnan = NAN;
  double rinf[2] = { 1.0, INFINITY }, loss;
  mpfr_ptr mrw = tu_mp_vec_from_d (rw, 2, PREC), mrl = tu_mp_vec_from_d (rl, 2, PREC);
  mpfr_t mc, ml;
  mp_from_d (mc, -0.5);
  mpfr_init2 (ml, PREC);
  TU_ASSERT_STATUS (rlref_rm_loss_d (&loss, NULL, NULL, rw, rl, 0, &c), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_rm_loss_d (&loss, NULL, NULL, NULL, rl, 1, &c), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_rm_loss_d (&loss, NULL, NULL, rw, rl, 2, &c), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_rm_loss_d (&loss, NULL, NULL, rw, rinf, 2, &c), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_rm_loss_d (&loss, NULL, NULL, rw, rl, 1, &cnan), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_rm_loss_d (&loss, NULL, NULL, rw, rl, 1, &cneg), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_rm_loss_mp (ml, NULL, NULL, mrw, mrl, 1, mc), RLREF_EDOM);
  mpfr_set_zero (mc, 1);
  TU_ASSERT_STATUS (rlref_rm_loss_mp (ml, NULL, NULL, mrw, mrl, 2, mc), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_rm_loss_mp (ml, NULL, NULL, mrw, mrl, 0, mc), RLREF_EINVAL);
  tu_mp_vec_free (mrw, 2);
  tu_mp_vec_free (mrl, 2);
  mpfr_clears (mc, ml, (mpfr_ptr) 0);
}
END_TEST

/* Seeded: 200 random batches (B in 1..8, scores in [-30, 30], c in
 * [0, 0.1)): the double loss within 16 eps (|loss| + sens) of the MPFR
 * one, where sens = (1/B) sum (|rw_i| + |rl_i| + c (rw_i + rl_i)^2) bounds
 * the first-order sensitivity, hence the rounding noise. */
START_TEST (test_rm_loss_random_d_vs_mp)
{
  gsl_rng *rng = tu_rng_new ();
  double rw[8], rl[8], loss;
  mpfr_ptr mrw, mrl;
  mpfr_t mc, ml;
  mpfr_inits2 (PREC, mc, ml, (mpfr_ptr) 0);
  for (int t = 0; t < 200; t++)
    {
      size_t B = 1 + gsl_rng_uniform_int (rng, 8);
      double c = tu_uniform (rng, 0.0, 0.1), sens = 0.0, want;
      for (size_t i = 0; i < B; i++)
        {
          rw[i] = tu_uniform (rng, -30, 30);
          rl[i] = tu_uniform (rng, -30, 30);
          sens += (fabs (rw[i]) + fabs (rl[i])) + c * (rw[i] + rl[i]) * (rw[i] + rl[i]);
        }
      sens /= (double) B;
      mrw = tu_mp_vec_from_d (rw, B, PREC);
      mrl = tu_mp_vec_from_d (rl, B, PREC);
      mpfr_set_d (mc, c, MPFR_RNDN);
      TU_OK (rlref_rm_loss_mp (ml, NULL, NULL, mrw, mrl, B, mc));
      TU_OK (rlref_rm_loss_d (&loss, NULL, NULL, rw, rl, B, &c));
      want = mpfr_get_d (ml, MPFR_RNDN);
      ck_assert_msg (fabs (loss - want) <= 16 * DBL_EPSILON * (fabs (want) + sens),
                     "B = %zu: %.17g vs %.17g", B, loss, want);
      tu_mp_vec_free (mrw, B);
      tu_mp_vec_free (mrl, B);
    }
  mpfr_clears (mc, ml, (mpfr_ptr) 0);
  gsl_rng_free (rng);
}
END_TEST

/* ===== PREF-MARGIN ======================================================== */

/* loss of x = (rw, rl, m) */
static int
margin_loss_of (mpfr_ptr y, mpfr_srcptr x, const void *ctx)
{
  (void) ctx;
  return rlref_margin_loss_mp (y, NULL, NULL, x, x + 1, x + 2);
}

/* Detector (CONVENTIONS.md): r_w 1.0, r_l 0.2, margin 0.5 -> 0.5543552;
 * 75 digits of -log sigma(1 - 0.2 - 0.5) and dL/dr_w = -sigma(-0.3)
 * (mpmath); gradients also against central differences (the derivative
 * in m is -dL/dr_w). */
START_TEST (test_margin_loss_detector)
{
  const char *want = RV_MARGIN_DETECTOR;
  const char *gw = RV_MARGIN_DETECTOR_GRAD;
  double rw = 1.0, rl = 0.2, m = 0.5, loss, g1, g2;
  mpfr_ptr x = tu_mp_vec_new (3, PREC), g = tu_mp_vec_new (3, PREC);
  mpfr_t ml;
  TU_OK (rlref_margin_loss_d (&loss, &g1, &g2, &rw, &rl, &m));
  TU_ASSERT_ABS (loss, 0.5543552, 5e-8);
  TU_ASSERT_REL (loss, strtod (want, NULL), TU_TOL1);
  TU_ASSERT_REL (g1, strtod (gw, NULL), TU_TOL1);
  TU_ASSERT_SAME (g2, -g1);
  mpfr_set_d (x, rw, MPFR_RNDN);
  mpfr_set_d (x + 1, rl, MPFR_RNDN);
  mpfr_set_d (x + 2, m, MPFR_RNDN);
  mpfr_init2 (ml, PREC);
  TU_OK (rlref_margin_loss_mp (ml, g, g + 1, x, x + 1, x + 2));
  TU_ASSERT_MP_STR (ml, want, 75);
  TU_ASSERT_MP_STR (g, gw, 75);
  mpfr_neg (g + 2, g, MPFR_RNDN);       /* dL/dm = -dL/dr_w */
  check_grad_fd (margin_loss_of, NULL, x, 3, g, 40);
  tu_mp_vec_free (x, 3);
  tu_mp_vec_free (g, 3);
  mpfr_clear (ml);
}
END_TEST

/* Margin 0 is the plain RM loss (detector 0.3711007 and its gradients),
 * at 256 bits to 75 digits and in double to 2 eps. */
START_TEST (test_margin_zero_is_rm_loss)
{
  double rw = 1.0, rl = 0.2, zero = 0.0, l1, l2, a1, a2, b1, b2;
  mpfr_t mrw, mrl, mz, ml1, ml2, ga1, ga2, gb1, gb2;
  TU_OK (rlref_margin_loss_d (&l1, &a1, &a2, &rw, &rl, &zero));
  TU_OK (rlref_rm_loss_d (&l2, &b1, &b2, &rw, &rl, 1, &zero));
  TU_ASSERT_REL (l1, l2, TU_TOL0);
  TU_ASSERT_REL (a1, b1, TU_TOL0);
  TU_ASSERT_REL (a2, b2, TU_TOL0);
  mp_from_d (mrw, rw);
  mp_from_d (mrl, rl);
  mp_from_d (mz, 0.0);
  mpfr_inits2 (PREC, ml1, ml2, ga1, ga2, gb1, gb2, (mpfr_ptr) 0);
  TU_OK (rlref_margin_loss_mp (ml1, ga1, ga2, mrw, mrl, mz));
  TU_OK (rlref_rm_loss_mp (ml2, gb1, gb2, mrw, mrl, 1, mz));
  TU_ASSERT_MP_AGREE (ml1, ml2, 75);
  TU_ASSERT_MP_AGREE (ga1, gb1, 75);
  TU_ASSERT_MP_AGREE (ga2, gb2, 75);
  mpfr_clears (mrw, mrl, mz, ml1, ml2, ga1, ga2, gb1, gb2, (mpfr_ptr) 0);
}
END_TEST

/* NaN or infinite rw, rl or m -> ENAN. */
START_TEST (test_margin_bad_inputs)
{
  double ok = 1.0, bad = NAN, inf = INFINITY, loss;
  TU_ASSERT_STATUS (rlref_margin_loss_d (&loss, NULL, NULL, &bad, &ok, &ok), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_margin_loss_d (&loss, NULL, NULL, &ok, &bad, &ok), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_margin_loss_d (&loss, NULL, NULL, &ok, &ok, &bad), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_margin_loss_d (&loss, NULL, NULL, &inf, &ok, &ok), RLREF_ENAN);
}
END_TEST

/* ===== PREF-SMOOTH ========================================================= */

/* loss of x = (rw, rl) at the eps in ctx */
static int
smooth_loss_of (mpfr_ptr y, mpfr_srcptr x, const void *ctx)
{
  return rlref_smooth_loss_mp (y, NULL, NULL, x, x + 1, (mpfr_srcptr) ctx);
}

/* eps = 0 is the plain RM loss, value and gradients (75 digits; 2 eps). */
START_TEST (test_smooth_eps0_is_rm_loss)
{
  static const double pairs[][2] = { { 1.0, 0.2 }, { -3.5, 4.0 }, { 40.0, 0.0 } };
  mpfr_t rw, rl, z, l1, l2, a1, a2, b1, b2;
  mpfr_inits2 (PREC, rw, rl, z, l1, l2, a1, a2, b1, b2, (mpfr_ptr) 0);
  mpfr_set_zero (z, 1);
  for (size_t i = 0; i < 3; i++)
    {
      double d1, d2, e1, e2, f1, f2, zero = 0.0;
      TU_OK (rlref_smooth_loss_d (&d1, &e1, &f1, &pairs[i][0], &pairs[i][1], &zero));
      TU_OK (rlref_rm_loss_d (&d2, &e2, &f2, &pairs[i][0], &pairs[i][1], 1, &zero));
      TU_ASSERT_REL (d1, d2, TU_TOL0);
      TU_ASSERT_REL (e1, e2, TU_TOL0);
      TU_ASSERT_REL (f1, f2, TU_TOL0);
      mpfr_set_d (rw, pairs[i][0], MPFR_RNDN);
      mpfr_set_d (rl, pairs[i][1], MPFR_RNDN);
      TU_OK (rlref_smooth_loss_mp (l1, a1, a2, rw, rl, z));
      TU_OK (rlref_rm_loss_mp (l2, b1, b2, rw, rl, 1, z));
      TU_ASSERT_MP_AGREE (l1, l2, 75);
      TU_ASSERT_MP_AGREE (a1, b1, 75);
      TU_ASSERT_MP_AGREE (a2, b2, 75);
    }
  mpfr_clears (rw, rl, z, l1, l2, a1, a2, b1, b2, (mpfr_ptr) 0);
}
END_TEST

/* eps = 1/2 is symmetric, L(rw, rl) = L(rl, rw) = log(2 cosh(D/2)):
 * 0.95141327798... at |D| = 1.5, log 2 with zero gradient at D = 0
 * (mpmath). */
START_TEST (test_smooth_half_is_symmetric)
{
  const char *v15 = RV_SMOOTH_HALF_1P5;
  const char *log2 = RV_LOG2;
  double a = 2.0, b = 0.5, h = 0.5, l1, l2, g1, g2;
  mpfr_t ma, mb, mh, ml, mg, mg2;
  TU_OK (rlref_smooth_loss_d (&l1, &g1, NULL, &a, &b, &h));
  TU_OK (rlref_smooth_loss_d (&l2, &g2, NULL, &b, &a, &h));
  TU_ASSERT_REL (l1, strtod (v15, NULL), TU_TOL0);
  TU_ASSERT_REL (l2, strtod (v15, NULL), TU_TOL0);
  TU_ASSERT_REL (g1, -g2, TU_TOL0);
  mp_from_d (ma, a);
  mp_from_d (mb, b);
  mp_from_d (mh, h);
  mpfr_inits2 (PREC, ml, mg, mg2, (mpfr_ptr) 0);
  TU_OK (rlref_smooth_loss_mp (ml, NULL, NULL, ma, mb, mh));
  TU_ASSERT_MP_STR (ml, v15, 75);
  TU_OK (rlref_smooth_loss_mp (ml, NULL, NULL, mb, ma, mh));
  TU_ASSERT_MP_STR (ml, v15, 75);
  TU_OK (rlref_smooth_loss_mp (ml, mg, mg2, ma, ma, mh));
  TU_ASSERT_MP_STR (ml, log2, 75);
  TU_ASSERT_MP_SMALL (mg, 1e-75);
  TU_ASSERT_MP_SMALL (mg2, 1e-75);
  mpfr_clears (ma, mb, mh, ml, mg, mg2, (mpfr_ptr) 0);
}
END_TEST

/* eps = 0.1 at the detector pair: -(0.9) log sigma(D) - 0.1 log sigma(-D)
 * = 0.45110066594... (mpmath), gradient against central differences;
 * eps = 1 gives the RM loss with the pair swapped. */
START_TEST (test_smooth_general_eps)
{
  const char *want = RV_SMOOTH_EPS01;
  const char *gw = RV_SMOOTH_EPS01_GRAD;
  mpfr_ptr x = tu_mp_vec_new (2, PREC), g = tu_mp_vec_new (2, PREC);
  mpfr_t e, l, l2, z;
  double rw = 1.0, rl = 0.2, ed = 0.1, ld, one = 1.0, zero = 0.0, ls;
  mpfr_inits2 (PREC, e, l, l2, z, (mpfr_ptr) 0);
  mpfr_set_d (x, rw, MPFR_RNDN);
  mpfr_set_d (x + 1, rl, MPFR_RNDN);
  mpfr_set_d (e, ed, MPFR_RNDN);
  TU_OK (rlref_smooth_loss_mp (l, g, g + 1, x, x + 1, e));
  TU_ASSERT_MP_STR (l, want, 75);
  TU_ASSERT_MP_STR (g, gw, 75);
  check_grad_fd (smooth_loss_of, e, x, 2, g, 40);
  TU_OK (rlref_smooth_loss_d (&ld, NULL, NULL, &rw, &rl, &ed));
  TU_ASSERT_REL (ld, strtod (want, NULL), TU_TOL1);
  TU_OK (rlref_smooth_loss_d (&ld, NULL, NULL, &rw, &rl, &one));
  TU_OK (rlref_rm_loss_d (&ls, NULL, NULL, &rl, &rw, 1, &zero));
  TU_ASSERT_REL (ld, ls, TU_TOL0);
  mpfr_set_ui (e, 1, MPFR_RNDN);
  mpfr_set_zero (z, 1);
  TU_OK (rlref_smooth_loss_mp (l, NULL, NULL, x, x + 1, e));
  TU_OK (rlref_rm_loss_mp (l2, NULL, NULL, x + 1, x, 1, z));
  TU_ASSERT_MP_AGREE (l, l2, 75);
  tu_mp_vec_free (x, 2);
  tu_mp_vec_free (g, 2);
  mpfr_clears (e, l, l2, z, (mpfr_ptr) 0);
}
END_TEST

/* eps outside [0, 1] -> EDOM (-0.1, 1.5, both backends); NaN eps -> ENAN. */
START_TEST (test_smooth_bad_eps)
{
  double rw = 1.0, rl = 0.0, neg = -0.1, big = 1.5, nan = NAN, l;
  mpfr_t a, b, e, ml;
  TU_ASSERT_STATUS (rlref_smooth_loss_d (&l, NULL, NULL, &rw, &rl, &neg), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_smooth_loss_d (&l, NULL, NULL, &rw, &rl, &big), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_smooth_loss_d (&l, NULL, NULL, &rw, &rl, &nan), RLREF_ENAN);
  mp_from_d (a, rw);
  mp_from_d (b, rl);
  mp_from_d (e, 1.5);
  mpfr_init2 (ml, PREC);
  TU_ASSERT_STATUS (rlref_smooth_loss_mp (ml, NULL, NULL, a, b, e), RLREF_EDOM);
  mpfr_set_d (e, -0x1p-1074, MPFR_RNDN);
  TU_ASSERT_STATUS (rlref_smooth_loss_mp (ml, NULL, NULL, a, b, e), RLREF_EDOM);
  mpfr_clears (a, b, e, ml, (mpfr_ptr) 0);
}
END_TEST

/* ===== PREF-ENSEMBLE ====================================================== */

/* Scores {1,2,3,4}, lambda 0.5 and {0.1, 0.4, 0.35}, lambda 1, ddof 0 and
 * 1: mean, variance, std, mean - lambda std (ensemble) and mean - lambda
 * var (ensemble_var_penalized, seed 000 section 10.1's penalty) against
 * mpmath. */
START_TEST (test_ensemble_values)
{
  static const double s4[4] = { 1, 2, 3, 4 }, s3[3] = { 0.1, 0.4, 0.35 };
  static const char *const want[4][5] = {
    RV_ENS_1234_DDOF0, RV_ENS_1234_DDOF1, RV_ENS_PT1_DDOF0, RV_ENS_PT1_DDOF1,
  };
  mpfr_t m, v, s, p, q, lam;
  mpfr_inits2 (PREC, m, v, s, p, q, lam, (mpfr_ptr) 0);
  for (size_t i = 0; i < 4; i++)
    {
      const double *sc = i < 2 ? s4 : s3, lambda = i < 2 ? 0.5 : 1.0;
      size_t K = i < 2 ? 4 : 3;
      int ddof = (int) (i % 2);
      double md, vd, sd, pd, qd;
      mpfr_ptr x = tu_mp_vec_from_d (sc, K, PREC);
      TU_OK (rlref_ensemble_d (&md, &vd, &sd, &pd, sc, K, ddof, &lambda));
      TU_OK (rlref_ensemble_var_penalized_d (&qd, sc, K, ddof, &lambda));
      TU_ASSERT_REL (md, tu_d (want[i][0]), TU_TOL0);
      TU_ASSERT_REL (vd, tu_d (want[i][1]), TU_TOL1);
      TU_ASSERT_REL (sd, tu_d (want[i][2]), TU_TOL1);
      TU_ASSERT_REL (pd, tu_d (want[i][3]), TU_TOL1);
      TU_ASSERT_REL (qd, tu_d (want[i][4]), TU_TOL1);
      mpfr_set_d (lam, lambda, MPFR_RNDN);
      TU_OK (rlref_ensemble_mp (m, v, s, p, x, K, ddof, lam));
      TU_OK (rlref_ensemble_var_penalized_mp (q, x, K, ddof, lam));
      TU_ASSERT_MP_STR (m, want[i][0], 75);
      TU_ASSERT_MP_STR (v, want[i][1], 75);
      TU_ASSERT_MP_STR (s, want[i][2], 75);
      TU_ASSERT_MP_STR (p, want[i][3], 75);
      TU_ASSERT_MP_STR (q, want[i][4], 75);
      /* outputs other than the penalised reward may be NULL */
      TU_OK (rlref_ensemble_mp (NULL, NULL, NULL, p, x, K, ddof, lam));
      TU_ASSERT_MP_STR (p, want[i][3], 75);
      tu_mp_vec_free (x, K);
    }
  mpfr_clears (m, v, s, p, q, lam, (mpfr_ptr) 0);
}
END_TEST

/* Scores +-1e308 (ddof 0): mean 0, std 1e308, mean - 0.5 std = -5e307 in
 * both backends (before the scaling, std was +inf in binary64); the
 * variance 1e616 and mean - 0.5 var are beyond binary64: +inf and -inf
 * with ERANGE, exact in MPFR. */
START_TEST (test_ensemble_near_overflow)
{
  const double sc[2] = { 1e308, -1e308 }, lambda = 0.5;
  double md, vd, sd, pd, qd;
  mpfr_ptr x = tu_mp_vec_from_d (sc, 2, PREC);
  mpfr_t m, v, s, p, q, lam, w;
  mpfr_inits2 (PREC, m, v, s, p, q, lam, w, (mpfr_ptr) 0);
  TU_ASSERT_STATUS (rlref_ensemble_d (&md, &vd, &sd, &pd, sc, 2, 0, &lambda), RLREF_ERANGE);
  TU_ASSERT_SAME (md, 0.0);
  TU_ASSERT_SAME (sd, 1e308);
  TU_ASSERT_SAME (pd, -0.5e308);
  ck_assert (isinf (vd) && vd > 0);
  TU_OK (rlref_ensemble_d (&md, NULL, &sd, &pd, sc, 2, 0, &lambda));
  TU_ASSERT_SAME (sd, 1e308);
  TU_ASSERT_STATUS (rlref_ensemble_var_penalized_d (&qd, sc, 2, 0, &lambda), RLREF_ERANGE);
  ck_assert (isinf (qd) && qd < 0);
  mpfr_set_d (lam, lambda, MPFR_RNDN);
  TU_OK (rlref_ensemble_mp (m, v, s, p, x, 2, 0, lam));
  TU_OK (rlref_ensemble_var_penalized_mp (q, x, 2, 0, lam));
  ck_assert (mpfr_zero_p (m));
  ck_assert (mpfr_cmp_d (s, 1e308) == 0);
  ck_assert (mpfr_cmp_d (p, -0.5e308) == 0);
  mpfr_set_d (w, 1e308, MPFR_RNDN);
  mpfr_sqr (w, w, MPFR_RNDN);
  ck_assert (mpfr_equal_p (v, w));
  mpfr_mul_d (w, w, -0.5, MPFR_RNDN);
  ck_assert (mpfr_equal_p (q, w));
  tu_mp_vec_free (x, 2);
  mpfr_clears (m, v, s, p, q, lam, w, (mpfr_ptr) 0);
}
END_TEST

/* ddof other than 0/1 -> EDOM; K = 1 with ddof 1 -> EDOM; a negative
 * penalty lambda -> EDOM; NaN score or lambda -> ENAN; no scores -> EINVAL. */
START_TEST (test_ensemble_bad_inputs)
{
  double s[3] = { 1, 2, 3 }, sn[3] = { 1, NAN, 3 }, lam = 1.0, lnan = NAN, m, v, sd, p;
  double lneg = -0.5;
  TU_ASSERT_STATUS (rlref_ensemble_d (&m, &v, &sd, &p, s, 3, 0, &lneg), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ensemble_d (&m, &v, &sd, &p, s, 3, 2, &lam), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ensemble_d (&m, &v, &sd, &p, s, 3, -1, &lam), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ensemble_d (&m, &v, &sd, &p, s, 1, 1, &lam), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ensemble_d (&m, &v, &sd, &p, sn, 3, 0, &lam), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_ensemble_d (&m, &v, &sd, &p, s, 3, 0, &lnan), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_ensemble_d (&m, &v, &sd, &p, s, 0, 0, &lam), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_ensemble_d (&m, &v, &sd, &p, NULL, 3, 0, &lam), RLREF_EINVAL);
  TU_OK (rlref_ensemble_d (&m, &v, &sd, &p, s, 1, 0, &lam));
  TU_ASSERT_SAME (v, 0.0);
  TU_ASSERT_SAME (p, 1.0);
  TU_ASSERT_STATUS (rlref_ensemble_var_penalized_d (&p, s, 3, 0, &lneg), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ensemble_var_penalized_d (&p, s, 1, 1, &lam), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ensemble_var_penalized_d (&p, sn, 3, 0, &lam), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_ensemble_var_penalized_d (&p, NULL, 3, 0, &lam), RLREF_EINVAL);
}
END_TEST

/* ===== PREF-PL ============================================================= */

/* K = 2 is Bradley-Terry: log P([0,1]) = log sigma(s0 - s1) =
 * -0.20141327798... at s = (0.3, -1.2) (mpmath), equal to the log of
 * bt_prob to 75 digits; the reverse ranking gives log sigma(-1.5). */
START_TEST (test_pl_two_items_is_bt)
{
  const char *want = RV_PL_TWO;
  static const long r01[2] = { 0, 1 }, r10[2] = { 1, 0 };
  double s[2] = { 0.3, -1.2 }, lp;
  mpfr_ptr x = tu_mp_vec_from_d (s, 2, PREC);
  mpfr_t l, p, q;
  mpfr_inits2 (PREC, l, p, q, (mpfr_ptr) 0);
  TU_OK (rlref_pl_logprob_d (&lp, NULL, s, r01, 2));
  TU_ASSERT_REL (lp, strtod (want, NULL), TU_TOL1);
  TU_OK (rlref_pl_logprob_mp (l, NULL, x, r01, 2));
  TU_ASSERT_MP_STR (l, want, 75);
  TU_OK (rlref_bt_prob_mp (p, x, x + 1));
  mpfr_log (q, p, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (l, q, 75);
  TU_OK (rlref_pl_logprob_mp (l, NULL, x, r10, 2));
  TU_OK (rlref_bt_prob_mp (p, x + 1, x));
  mpfr_log (q, p, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (l, q, 75);
  tu_mp_vec_free (x, 2);
  mpfr_clears (l, p, q, (mpfr_ptr) 0);
}
END_TEST

/* The gradient of log P when the last-placed item lies far below: with
 * s = (0, 0, -10000) and the ranking (2, 1, 0), stage 0 gives items 1
 * and 0 one half each and stage 1 gives item 0 one half, so grad =
 * (1, 0, -1) exactly; with s = (10000, 0, -1.25e200), item 0 takes all of
 * both stages: grad = (2, -1, -1).  p_k = e^{x - lse} carried the
 * rounding of lse = 10000.69 (grad_0 0.99999999999991385), and the
 * scores relative to the chosen -1.25e200 lost the 10000 (grad (2, 0,
 * -2)). */
START_TEST (test_pl_gradient_far_last)
{
  static const long r[3] = { 2, 1, 0 };
  double s1[3] = { 0, 0, -10000 }, s2[3] = { 10000, 0, -0x1.388p+665 };
  double lp, g[3];
  TU_OK (rlref_pl_logprob_d (&lp, g, s1, r, 3));
  TU_ASSERT_SAME (g[0], 1.0);
  TU_ASSERT_SAME (g[1], 0.0);
  TU_ASSERT_SAME (g[2], -1.0);
  TU_OK (rlref_pl_logprob_d (&lp, g, s2, r, 3));
  TU_ASSERT_SAME (g[0], 2.0);
  TU_ASSERT_SAME (g[1], -1.0);
  TU_ASSERT_SAME (g[2], -1.0);
}
END_TEST

/* A ranking whose last item lies far below two tiny, nearly tied ones:
 * s = (a, 0, -10000) with a = 2^-428, ranked (2, 1, 0).  Item 2 takes
 * e^-10000 of stage 0, so item 1's gradient is p_0(1) - q_1 =
 * 1/(1 + e^a) - e^a/(1 + e^a) = -tanh(a/2) = -2^-429 (1 - 2^-860/3),
 * which rounds to -2^-429; items 0 and 2 get 1 + tanh(a/2) and -1, which
 * round to 1 and -1.  Two values near 1/2 subtracted in binary64 gave 0. */
START_TEST (test_pl_gradient_tiny_tie)
{
  static const long r[3] = { 2, 1, 0 };
  double s[3] = { 0x1p-428, 0, -10000 }, lp, g[3];
  mpfr_t want;
  mpfr_init2 (want, PREC);
  mpfr_const_log2 (want, MPFR_RNDN);           /* log P = -10000 - 2 log(1 + e^a) - ... */
  mpfr_mul_si (want, want, -2, MPFR_RNDN);
  mpfr_sub_ui (want, want, 10000, MPFR_RNDN);
  TU_OK (rlref_pl_logprob_d (&lp, g, s, r, 3));
  TU_ASSERT_SAME (g[0], 1.0);
  TU_ASSERT_SAME (g[1], -0x1p-429);
  TU_ASSERT_SAME (g[2], -1.0);
  TU_ASSERT_SAME (lp, mpfr_get_d (want, MPFR_RNDN));
  mpfr_clear (want);
}
END_TEST

/* The two-item fit far from even (seed 000 section 2.1 with the counts
 * 1 and 2^863): sigma(delta) = 1/(1 + 2^863) rounds to 2^-863, and delta =
 * -863 log 2 rounded once.  sigma of the rounded delta moved p by |delta|
 * 2^-54 of itself, some ulps. */
START_TEST (test_bt_mle_pair_far)
{
  double ww = 1, wl = 0x1p863, delta, p;
  mpfr_t want;
  mpfr_init2 (want, PREC);
  mpfr_const_log2 (want, MPFR_RNDN);
  mpfr_mul_si (want, want, -863, MPFR_RNDN);
  TU_OK (rlref_bt_mle_pair_d (&delta, &p, &ww, &wl));
  TU_ASSERT_SAME (p, 0x1p-863);
  TU_ASSERT_SAME (delta, mpfr_get_d (want, MPFR_RNDN));
  mpfr_clear (want);
}
END_TEST

/* A near-certain ranking: K = 2 with s = (40, 0) has log P = log sigma(40)
 * = -log1p(e^-40) = -4.2483542552915890e-18 in double (mpmath); well
 * conditioned (the sensitivity is 40 |log P|), so the value, not 0, is
 * expected. */
START_TEST (test_pl_near_certain_ranking_d)
{
  static const long r01[2] = { 0, 1 };
  const double want = tu_d (RV_PL_NEAR_CERTAIN_40);
  double s[2] = { 40.0, 0.0 }, lp;
  TU_OK (rlref_pl_logprob_d (&lp, NULL, s, r01, 2));
  TU_ASSERT_REL (lp, want, TU_TOL1);
}
END_TEST

/* The same at 256 bits with s = (1e4, 0): log P = -1.1354838653e-4343
 * (mpmath -log1p(exp(-1e4))). */
START_TEST (test_pl_near_certain_ranking_mp)
{
  static const long r01[2] = { 0, 1 };
  double t[2] = { 1e4, 0.0 };
  mpfr_ptr x = tu_mp_vec_from_d (t, 2, PREC);
  mpfr_t l;
  mpfr_init2 (l, PREC);
  TU_OK (rlref_pl_logprob_mp (l, NULL, x, r01, 2));
  TU_ASSERT_MP_STR (l, RV_PL_NEAR_CERTAIN_1E4, 70);
  tu_mp_vec_free (x, 2);
  mpfr_clear (l);
}
END_TEST

/* Equal scores make every ranking equally likely: log P = log(1/K!), i.e.
 * -log 24 for K = 4 (scores 0.7) and -log 6 for K = 3 (scores -1e4,
 * costing 4 digits), for every ranking (mpmath). */
START_TEST (test_pl_equal_scores)
{
  const char *l24 = RV_LOG_1_24;
  const char *l6 = RV_LOG_1_6;
  static const long r4[][4] = { { 0, 1, 2, 3 }, { 3, 1, 0, 2 }, { 2, 3, 1, 0 } };
  static const long r3[][3] = { { 0, 1, 2 }, { 2, 0, 1 } };
  double s4[4] = { 0.7, 0.7, 0.7, 0.7 }, s3[3] = { -1e4, -1e4, -1e4 }, lp;
  mpfr_ptr x4 = tu_mp_vec_from_d (s4, 4, PREC), x3 = tu_mp_vec_from_d (s3, 3, PREC);
  mpfr_t l;
  mpfr_init2 (l, PREC);
  for (int i = 0; i < 3; i++)
    {
      TU_OK (rlref_pl_logprob_d (&lp, NULL, s4, r4[i], 4));
      TU_ASSERT_REL (lp, strtod (l24, NULL), TU_TOL1);
      TU_OK (rlref_pl_logprob_mp (l, NULL, x4, r4[i], 4));
      TU_ASSERT_MP_STR (l, l24, 75);
    }
  for (int i = 0; i < 2; i++)
    {
      TU_OK (rlref_pl_logprob_d (&lp, NULL, s3, r3[i], 3));
      /* each lse of scores -1e4 is rounded at ulp(1e4) */
      TU_ASSERT_ABS (lp, strtod (l6, NULL), 8 * DBL_EPSILON * 3e4);
      TU_OK (rlref_pl_logprob_mp (l, NULL, x3, r3[i], 3));
      TU_ASSERT_MP_STR (l, l6, 70);
    }
  tu_mp_vec_free (x4, 4);
  tu_mp_vec_free (x3, 3);
  mpfr_clear (l);
}
END_TEST

/* K = 3, s = (0.5, -1.25, 2), ranking (2, 0, 1): log P = (2 - lse(2, 0.5,
 * -1.25)) + (0.5 - lse(0.5, -1.25)) = -0.39284613354... (mpmath). */
START_TEST (test_pl_three_items_value)
{
  const char *want = RV_PL_THREE;
  static const long r[3] = { 2, 0, 1 };
  double s[3] = { 0.5, -1.25, 2.0 }, lp;
  mpfr_ptr x = tu_mp_vec_from_d (s, 3, PREC);
  mpfr_t l;
  mpfr_init2 (l, PREC);
  TU_OK (rlref_pl_logprob_d (&lp, NULL, s, r, 3));
  TU_ASSERT_REL (lp, strtod (want, NULL), TU_TOL1);
  TU_OK (rlref_pl_logprob_mp (l, NULL, x, r, 3));
  TU_ASSERT_MP_STR (l, want, 75);
  tu_mp_vec_free (x, 3);
  mpfr_clear (l);
}
END_TEST

/* The K! ranking probabilities of K = 4 items sum to 1 (75 digits at
 * 256 bits, 16 eps in double). */
START_TEST (test_pl_probabilities_sum_to_one)
{
  double s[4] = { 0.3, -1.1, 2.4, 0.05 }, total = 0.0, lp;
  long r[4];
  mpfr_ptr x = tu_mp_vec_from_d (s, 4, PREC);
  mpfr_t l, sum;
  mpfr_inits2 (PREC, l, sum, (mpfr_ptr) 0);
  mpfr_set_zero (sum, 1);
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 4; b++)
      for (int c = 0; c < 4; c++)
        {
          int d = 6 - a - b - c;
          if (a == b || a == c || b == c || d < 0 || d > 3 || d == a || d == b || d == c)
            continue;
          r[0] = a, r[1] = b, r[2] = c, r[3] = d;
          TU_OK (rlref_pl_logprob_mp (l, NULL, x, r, 4));
          mpfr_exp (l, l, MPFR_RNDN);
          mpfr_add (sum, sum, l, MPFR_RNDN);
          TU_OK (rlref_pl_logprob_d (&lp, NULL, s, r, 4));
          total += exp (lp);
        }
  TU_ASSERT_MP_STR (sum, "1", 75);
  TU_ASSERT_REL (total, 1.0, TU_TOL1);
  tu_mp_vec_free (x, 4);
  mpfr_clears (l, sum, (mpfr_ptr) 0);
}
END_TEST

/* -log P of x = s (ranking in ctx) */
static int
pl_loss_of (mpfr_ptr y, mpfr_srcptr x, const void *ctx)
{
  const long *r = ctx;
  int st = rlref_pl_logprob_mp (y, NULL, x, r, 4);
  mpfr_neg (y, y, MPFR_RNDN);
  return st;
}

/* grad = d(-log P)/ds against central differences (>= 40 digits) for
 * K = 4, ranking (3, 1, 0, 2); it sums to zero (shift invariance); the
 * double gradient within 16 eps of the MPFR one. */
START_TEST (test_pl_gradient_fd)
{
  static const long r[4] = { 3, 1, 0, 2 };
  double s[4] = { 0.3, -1.1, 2.4, 0.05 }, lp, gd[4];
  mpfr_ptr x = tu_mp_vec_from_d (s, 4, PREC), g = tu_mp_vec_new (4, PREC);
  mpfr_t l, sum;
  mpfr_inits2 (PREC, l, sum, (mpfr_ptr) 0);
  TU_OK (rlref_pl_logprob_mp (l, g, x, r, 4));
  check_grad_fd (pl_loss_of, r, x, 4, g, 40);
  mpfr_set_zero (sum, 1);
  for (int i = 0; i < 4; i++)
    mpfr_add (sum, sum, g + i, MPFR_RNDN);
  TU_ASSERT_MP_SMALL (sum, 1e-75);
  TU_OK (rlref_pl_logprob_d (&lp, gd, s, r, 4));
  for (int i = 0; i < 4; i++)
    TU_ASSERT_ABS (gd[i], mpfr_get_d (g + i, MPFR_RNDN), TU_TOL1);
  tu_mp_vec_free (x, 4);
  tu_mp_vec_free (g, 4);
  mpfr_clears (l, sum, (mpfr_ptr) 0);
}
END_TEST

/* Rankings that are not permutations of 0..K-1 -> EINVAL (repeat, out of
 * range, negative, NULL, K = 0); a NaN score -> ENAN. */
START_TEST (test_pl_bad_rankings)
{
  static const long dup[3] = { 0, 0, 1 }, big[3] = { 0, 1, 3 }, neg[3] = { -1, 0, 1 };
  static const long ok[3] = { 0, 1, 2 };
  double s[3] = { 0, 1, 2 }, sn[3] = { 0, NAN, 2 }, lp;
  mpfr_ptr x = tu_mp_vec_from_d (s, 3, PREC);
  mpfr_t l;
  mpfr_init2 (l, PREC);
  TU_ASSERT_STATUS (rlref_pl_logprob_d (&lp, NULL, s, dup, 3), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_logprob_d (&lp, NULL, s, big, 3), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_logprob_d (&lp, NULL, s, neg, 3), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_logprob_d (&lp, NULL, s, NULL, 3), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_logprob_d (&lp, NULL, s, ok, 0), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_logprob_d (&lp, NULL, sn, ok, 3), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_pl_logprob_mp (l, NULL, x, dup, 3), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_logprob_mp (l, NULL, x, big, 3), RLREF_EINVAL);
  tu_mp_vec_free (x, 3);
  mpfr_clear (l);
}
END_TEST

/* ===== PREF-PL maximum likelihood =========================================== */

/* K = 2, ranking (0,1) seen 8 times and (1,0) twice: the fit is BT with
 * s0 - s1 = log 4, so s = (log 2, -log 2) with mean zero, and loglik =
 * 8 log 0.8 + 2 log 0.2 (mpmath); 70 digits at 256 bits, 256 eps in
 * double. */
START_TEST (test_pl_mle_two_items)
{
  const char *log2 = RV_LOG2;
  const char *ll = RV_LOGLIK_8_2;
  static const long rk[4] = { 0, 1, 1, 0 };
  double cd[2] = { 8, 2 }, sd[2], lld;
  mpfr_ptr c = tu_mp_vec_from_d (cd, 2, PREC), s = tu_mp_vec_new (2, PREC);
  mpfr_t l;
  mpfr_init2 (l, PREC);
  TU_OK (rlref_pl_mle_mp (s, l, rk, c, 2, 2));
  TU_ASSERT_MP_STR (s, log2, 70);
  mpfr_neg (s + 1, s + 1, MPFR_RNDN);
  TU_ASSERT_MP_STR (s + 1, log2, 70);
  TU_ASSERT_MP_STR (l, ll, 70);
  TU_OK (rlref_pl_mle_d (sd, &lld, rk, cd, 2, 2));
  TU_ASSERT_SAME (sd[0], strtod (log2, NULL));
  TU_ASSERT_SAME (sd[1], -strtod (log2, NULL));
  TU_ASSERT_SAME (lld, strtod (ll, NULL));
  tu_mp_vec_free (c, 2);
  tu_mp_vec_free (s, 2);
  mpfr_clear (l);
}
END_TEST

/* K = 3: rankings (0,1,2) x5, (1,0,2) x3, (2,1,0) x1, (0,2,1) x2.  The fit
 * matches an independent mpmath solution of the score equations (70
 * digits); scores sum to 0; sum_m c_m grad log P_m = 0 at the fit
 * (|.| <= 1e-65, with pl_logprob's gradient); loglik = sum_m c_m log P_m;
 * scaling all counts by 4 leaves the scores unchanged. */
START_TEST (test_pl_mle_three_items)
{
  static const char *const want[3] = RV_PL_MLE3_SCORES;
  const char *ll = RV_PL_MLE3_LOGLIK;
  static const long rk[12] = { 0, 1, 2, 1, 0, 2, 2, 1, 0, 0, 2, 1 };
  double cd[4] = { 5, 3, 1, 2 }, c4[4] = { 20, 12, 4, 8 }, sd[3], lld;
  mpfr_ptr c = tu_mp_vec_from_d (cd, 4, PREC), s = tu_mp_vec_new (3, PREC);
  mpfr_ptr s4 = tu_mp_vec_new (3, PREC), g = tu_mp_vec_new (3, PREC);
  mpfr_ptr gsum = tu_mp_vec_new (3, PREC);
  mpfr_t l, lp, t, total;
  mpfr_inits2 (PREC, l, lp, t, total, (mpfr_ptr) 0);
  TU_OK (rlref_pl_mle_mp (s, l, rk, c, 4, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_STR (s + i, want[i], 70);
  TU_ASSERT_MP_STR (l, ll, 70);
  mpfr_add (t, s, s + 1, MPFR_RNDN);
  mpfr_add (t, t, s + 2, MPFR_RNDN);
  TU_ASSERT_MP_SMALL (t, 1e-70);
  mpfr_set_zero (total, 1);
  for (int m = 0; m < 4; m++)
    {
      TU_OK (rlref_pl_logprob_mp (lp, g, s, rk + 3 * m, 3));
      mpfr_mul_d (lp, lp, cd[m], MPFR_RNDN);
      mpfr_add (total, total, lp, MPFR_RNDN);
      for (int i = 0; i < 3; i++)
        {
          mpfr_mul_d (t, g + i, cd[m], MPFR_RNDN);
          mpfr_add (gsum + i, gsum + i, t, MPFR_RNDN);
        }
    }
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_SMALL (gsum + i, 1e-65);
  TU_ASSERT_MP_AGREE (l, total, 72);
  for (int m = 0; m < 4; m++)
    mpfr_set_d (c + m, c4[m], MPFR_RNDN);
  TU_OK (rlref_pl_mle_mp (s4, NULL, rk, c, 4, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_AGREE (s4 + i, s + i, 70);
  TU_OK (rlref_pl_mle_d (sd, &lld, rk, cd, 4, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_SAME (sd[i], strtod (want[i], NULL));
  TU_ASSERT_SAME (lld, strtod (ll, NULL));
  tu_mp_vec_free (c, 4);
  tu_mp_vec_free (s, 3);
  tu_mp_vec_free (s4, 3);
  tu_mp_vec_free (g, 3);
  tu_mp_vec_free (gsum, 3);
  mpfr_clears (l, lp, t, total, (mpfr_ptr) 0);
}
END_TEST

/* Bad inputs: a negative count -> EDOM; item 0 always first (no finite
 * maximum, also when the only reversing ranking has count 0) -> EDOM; a
 * ranking that is not a permutation -> EINVAL; M = 0 or K < 2 -> EINVAL;
 * a NaN count -> ENAN. */
START_TEST (test_pl_mle_bad_inputs)
{
  static const long rk[6] = { 0, 1, 2, 2, 1, 0 }, top0[6] = { 0, 1, 2, 0, 2, 1 };
  static const long bad[6] = { 0, 1, 1, 2, 1, 0 };
  double cneg[2] = { 3, -1 }, cok[2] = { 3, 2 }, czero[2] = { 3, 0 }, cnan[2] = { 3, NAN };
  double s[3], ll;
  TU_ASSERT_STATUS (rlref_pl_mle_d (s, &ll, rk, cneg, 2, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_pl_mle_d (s, &ll, top0, cok, 2, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_pl_mle_d (s, &ll, rk, czero, 2, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_pl_mle_d (s, &ll, bad, cok, 2, 3), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_mle_d (s, &ll, rk, cok, 0, 3), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_mle_d (s, &ll, rk, cok, 2, 1), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pl_mle_d (s, &ll, rk, cnan, 2, 3), RLREF_ENAN);
  TU_OK (rlref_pl_mle_d (s, &ll, rk, cok, 2, 3));
}
END_TEST

/* ===== PREF-BT-MLE ============================================================== */

/* Seed 000 section 2.1: 8 of 10 prefer A -> the MLE gap is log 4, s =
 * (log 2, -log 2) with mean zero; loglik = 8 log 0.8 + 2 log 0.2
 * (mpmath); 70 digits at 256 bits, 256 eps in double. */
START_TEST (test_bt_mle_eight_of_ten)
{
  const char *log2 = RV_LOG2;
  const char *log4 = RV_LOG4;
  const char *ll = RV_LOGLIK_8_2;
  double w[4] = { 0, 8, 2, 0 }, sd[2], lld;
  mpfr_ptr mw = tu_mp_vec_from_d (w, 4, PREC), s = tu_mp_vec_new (2, PREC);
  mpfr_t l, d;
  mpfr_inits2 (PREC, l, d, (mpfr_ptr) 0);
  TU_OK (rlref_bt_mle_mp (s, l, mw, 2));
  mpfr_sub (d, s, s + 1, MPFR_RNDN);
  TU_ASSERT_MP_STR (d, log4, 70);
  TU_ASSERT_MP_STR (s, log2, 70);
  TU_ASSERT_MP_STR (l, ll, 70);
  TU_OK (rlref_bt_mle_d (sd, &lld, w, 2));
  TU_ASSERT_REL (sd[0] - sd[1], strtod (log4, NULL), TU_TOL2);
  TU_ASSERT_REL (lld, strtod (ll, NULL), TU_TOL2);
  tu_mp_vec_free (mw, 4);
  tu_mp_vec_free (s, 2);
  mpfr_clears (l, d, (mpfr_ptr) 0);
}
END_TEST

/* n = 4 with the weight matrix W below: the fit matches an independent
 * mpmath solution (70 digits); scores sum to 0; the first-order
 * conditions, observed wins_i = sum_j (w_ij + w_ji) sigma(s_i - s_j),
 * hold to 1e-65 (evaluated here with MPFR directly); loglik =
 * sum w_ij log sigma(s_i - s_j); scaling W by 3.5 leaves the scores
 * unchanged and multiplies loglik by 3.5. */
START_TEST (test_bt_mle_four_items)
{
  static const double W[16] = { 0, 3, 1, 4,  2, 0, 5, 1,  1, 2, 0, 3,  2, 1, 1, 0 };
  static const char *const want[4] = RV_BT_MLE4_SCORES;
  const char *ll = RV_BT_MLE4_LOGLIK;
  mpfr_ptr mw = tu_mp_vec_from_d (W, 16, PREC), s = tu_mp_vec_new (4, PREC);
  mpfr_ptr s2 = tu_mp_vec_new (4, PREC);
  mpfr_t l, l2, t, u, sum, foc, loglik;
  double sd[4], lld;
  mpfr_inits2 (PREC, l, l2, t, u, sum, foc, loglik, (mpfr_ptr) 0);
  TU_OK (rlref_bt_mle_mp (s, l, mw, 4));
  mpfr_set_zero (sum, 1);
  mpfr_set_zero (loglik, 1);
  for (int i = 0; i < 4; i++)
    {
      TU_ASSERT_MP_STR (s + i, want[i], 70);
      mpfr_add (sum, sum, s + i, MPFR_RNDN);
      mpfr_set_zero (foc, 1);
      for (int j = 0; j < 4; j++)
        {
          if (i == j)
            continue;
          /* t = sigma(s_i - s_j) = 1/(1 + e^{s_j - s_i}) */
          mpfr_sub (t, s + j, s + i, MPFR_RNDN);
          mpfr_exp (t, t, MPFR_RNDN);
          mpfr_add_ui (t, t, 1, MPFR_RNDN);
          mpfr_ui_div (t, 1, t, MPFR_RNDN);
          mpfr_mul_d (u, t, W[i * 4 + j] + W[j * 4 + i], MPFR_RNDN);
          mpfr_sub (foc, foc, u, MPFR_RNDN);
          mpfr_add_d (foc, foc, W[i * 4 + j], MPFR_RNDN);
          mpfr_log (t, t, MPFR_RNDN);
          mpfr_mul_d (t, t, W[i * 4 + j], MPFR_RNDN);
          mpfr_add (loglik, loglik, t, MPFR_RNDN);
        }
      TU_ASSERT_MP_SMALL (foc, 1e-65);
    }
  TU_ASSERT_MP_SMALL (sum, 1e-70);
  TU_ASSERT_MP_STR (l, ll, 70);
  TU_ASSERT_MP_AGREE (l, loglik, 72);
  for (int i = 0; i < 16; i++)
    mpfr_mul_d (mw + i, mw + i, 3.5, MPFR_RNDN);
  TU_OK (rlref_bt_mle_mp (s2, l2, mw, 4));
  for (int i = 0; i < 4; i++)
    TU_ASSERT_MP_AGREE (s2 + i, s + i, 70);
  mpfr_div_d (l2, l2, 3.5, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (l2, l, 70);
  TU_OK (rlref_bt_mle_d (sd, &lld, W, 4));
  for (int i = 0; i < 4; i++)
    TU_ASSERT_SAME (sd[i], strtod (want[i], NULL));
  TU_ASSERT_SAME (lld, strtod (ll, NULL));
  tu_mp_vec_free (mw, 16);
  tu_mp_vec_free (s, 4);
  tu_mp_vec_free (s2, 4);
  mpfr_clears (l, l2, t, u, sum, foc, loglik, (mpfr_ptr) 0);
}
END_TEST

/* Bad inputs: a negative weight -> EDOM; item 2 never preferred (no
 * finite maximum) -> EDOM; two disconnected pairs -> EDOM; a NaN weight
 * -> ENAN; n < 2 or NULL -> EINVAL. */
START_TEST (test_bt_mle_bad_inputs)
{
  static const double neg[4] = { 0, 3, -1, 0 };
  static const double loser[9] = { 0, 2, 1,  3, 0, 4,  0, 0, 0 };
  static const double split[16] = { 0, 1, 0, 0,  1, 0, 0, 0,  0, 0, 0, 2,  0, 0, 1, 0 };
  static const double nan[4] = { 0, NAN, 1, 0 };
  static const double ok[4] = { 0, 1, 1, 0 };
  double s[4], ll;
  mpfr_ptr mw = tu_mp_vec_from_d (loser, 9, PREC), ms = tu_mp_vec_new (3, PREC);
  mpfr_t ml;
  mpfr_init2 (ml, PREC);
  TU_ASSERT_STATUS (rlref_bt_mle_d (s, &ll, neg, 2), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_bt_mle_d (s, &ll, loser, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_bt_mle_d (s, &ll, split, 4), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_bt_mle_d (s, &ll, nan, 2), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_bt_mle_d (s, &ll, ok, 1), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_bt_mle_d (s, &ll, NULL, 2), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_bt_mle_mp (ms, ml, mw, 3), RLREF_EDOM);
  TU_OK (rlref_bt_mle_d (s, &ll, ok, 2));
  TU_ASSERT_ABS (s[0], 0.0, TU_TOL1);
  tu_mp_vec_free (mw, 9);
  tu_mp_vec_free (ms, 3);
  mpfr_clear (ml);
}
END_TEST

/* The fits depend only on the ratios of the counts (issue: counts 1e100
 * said "singular matrix", 1e80 EMAXITER, 1e-100 EDOM): rankings (0,1,2)
 * and (2,1,0) with counts c (1, 1) give the scores of counts (1, 1),
 * (-0.1155, 0.2310, -0.1155) (mpmath), for c = 1, 1e80, 1e100, 1e-100,
 * 1e300, and loglik = c times that of (1, 1), in both backends. */
START_TEST (test_pl_mle_count_scale)
{
  static const long rk[6] = { 0, 1, 2, 2, 1, 0 };
  static const char *const want[3] = RV_PL_MLE_SYM_SCORES;
  static const double scale[] = { 1.0, 1e80, 1e100, 1e-100, 1e300 };
  mpfr_ptr c = tu_mp_vec_new (2, PREC), s = tu_mp_vec_new (3, PREC);
  mpfr_t l, w;
  mpfr_inits2 (PREC, l, w, (mpfr_ptr) 0);
  for (size_t k = 0; k < sizeof scale / sizeof scale[0]; k++)
    {
      double cd[2] = { scale[k], scale[k] }, sd[3], lld;
      TU_OK (rlref_pl_mle_d (sd, &lld, rk, cd, 2, 3));
      for (int i = 0; i < 3; i++)
        TU_ASSERT_REL (sd[i], tu_d (want[i]), TU_TOL2);
      TU_ASSERT_REL (lld, scale[k] * tu_d (RV_PL_MLE_SYM_LOGLIK), TU_TOL2);
      mpfr_set_d (c, scale[k], MPFR_RNDN);
      mpfr_set_d (c + 1, scale[k], MPFR_RNDN);
      TU_OK (rlref_pl_mle_mp (s, l, rk, c, 2, 3));
      for (int i = 0; i < 3; i++)
        TU_ASSERT_MP_STR (s + i, want[i], 70);
      mpfr_set_str (w, RV_PL_MLE_SYM_LOGLIK, 10, MPFR_RNDN);
      mpfr_mul_d (w, w, scale[k], MPFR_RNDN);
      TU_ASSERT_MP_AGREE (l, w, 70);
    }
  tu_mp_vec_free (c, 2);
  tu_mp_vec_free (s, 3);
  mpfr_clears (l, w, (mpfr_ptr) 0);
}
END_TEST

/* Bradley-Terry weights of 1e308 both ways: scores 0, loglik -2e308 log 2
 * = -1.386e308, finite (before: "singular matrix"); 8e80 of 1e81 prefer
 * A: the gap is log 4 and loglik 1e80 (8 log 0.8 + 2 log 0.2), in both
 * backends (mpmath). */
START_TEST (test_bt_mle_weight_scale)
{
  const double big[4] = { 0, 1e308, 1e308, 0 }, w80[4] = { 0, 8e80, 2e80, 0 };
  double sd[2], lld;
  mpfr_ptr mw = tu_mp_vec_from_d (big, 4, PREC), s = tu_mp_vec_new (2, PREC);
  mpfr_t l, d;
  mpfr_inits2 (PREC, l, d, (mpfr_ptr) 0);
  TU_OK (rlref_bt_mle_d (sd, &lld, big, 2));
  TU_ASSERT_ABS (sd[0], 0.0, TU_TOL1);
  TU_ASSERT_REL (lld, tu_d (RV_BT_MLE_1E308_LOGLIK), TU_TOL1);
  TU_OK (rlref_bt_mle_mp (s, l, mw, 2));
  TU_ASSERT_MP_SMALL (s, 1e-70);
  TU_ASSERT_MP_STR (l, RV_BT_MLE_1E308_LOGLIK, 70);
  TU_OK (rlref_bt_mle_d (sd, &lld, w80, 2));
  TU_ASSERT_REL (sd[0] - sd[1], tu_d (RV_LOG4), TU_TOL2);
  TU_ASSERT_REL (lld, 1e80 * tu_d (RV_LOGLIK_8_2), TU_TOL2);
  for (int i = 0; i < 4; i++)
    mpfr_set_d (mw + i, w80[i], MPFR_RNDN);
  TU_OK (rlref_bt_mle_mp (s, l, mw, 2));
  mpfr_sub (d, s, s + 1, MPFR_RNDN);
  TU_ASSERT_MP_STR (d, RV_LOG4, 70);
  mpfr_div_d (l, l, 1e80, MPFR_RNDN);
  TU_ASSERT_MP_STR (l, RV_LOGLIK_8_2, 70);
  tu_mp_vec_free (mw, 4);
  tu_mp_vec_free (s, 2);
  mpfr_clears (l, d, (mpfr_ptr) 0);
}
END_TEST

/* Counts 1 and 1e100 for the two orders of K items: K = 2 has the closed
 * form s0 - s1 = log 1e-100 (mpmath); K = 32 (issue: 33 s and EMAXITER)
 * must converge, the scores in the order of the heavier ranking, with
 * sum_m c_m grad log P_m = 0 at the fit relative to the counts (MPFR, by
 * pl_logprob's gradient).  The test case's timeout bounds the time. */
START_TEST (test_pl_mle_extreme_counts)
{
  enum { K = 32 };
  static const char *const pair[2] = RV_PL_MLE_PAIR_1E100;
  long rk[2 * K];
  double cd[2] = { 1.0, 1e100 }, sd[K], lld;
  mpfr_ptr c = tu_mp_vec_from_d (cd, 2, PREC), s = tu_mp_vec_new (K, PREC);
  mpfr_ptr g = tu_mp_vec_new (K, PREC), gsum = tu_mp_vec_new (K, PREC);
  mpfr_t l, t;
  mpfr_inits2 (PREC, l, t, (mpfr_ptr) 0);
  rk[0] = 0, rk[1] = 1, rk[2] = 1, rk[3] = 0;
  TU_OK (rlref_pl_mle_d (sd, &lld, rk, cd, 2, 2));
  TU_ASSERT_REL (sd[0], tu_d (pair[0]), TU_TOL2);
  TU_OK (rlref_pl_mle_mp (s, l, rk, c, 2, 2));
  TU_ASSERT_MP_STR (s, pair[0], 70);
  TU_ASSERT_MP_STR (s + 1, pair[1], 70);
  for (long k = 0; k < K; k++)
    {
      rk[k] = k;
      rk[K + k] = K - 1 - k;
    }
  TU_OK (rlref_pl_mle_d (sd, &lld, rk, cd, 2, K));
  for (int i = 0; i + 1 < K; i++)
    ck_assert_msg (sd[i] < sd[i + 1], "binary64 scores %d, %d: %g, %g", i, i + 1, sd[i],
                   sd[i + 1]);
  TU_OK (rlref_pl_mle_mp (s, l, rk, c, 2, K));
  for (int m = 0; m < 2; m++)
    {
      TU_OK (rlref_pl_logprob_mp (t, g, s, rk + K * m, K));
      for (int i = 0; i < K; i++)
        {
          mpfr_mul_d (t, g + i, cd[m] / 1e100, MPFR_RNDN);
          mpfr_add (gsum + i, gsum + i, t, MPFR_RNDN);
        }
    }
  for (int i = 0; i < K; i++)
    {
      TU_ASSERT_MP_SMALL (gsum + i, 1e-60);
      TU_ASSERT_REL (sd[i], mpfr_get_d (s + i, MPFR_RNDN), 1e-9);
    }
  tu_mp_vec_free (c, 2);
  tu_mp_vec_free (s, K);
  tu_mp_vec_free (g, K);
  tu_mp_vec_free (gsum, K);
  mpfr_clears (l, t, (mpfr_ptr) 0);
}
END_TEST

/* Counts further apart than the binary64 range (1e308 and 1e-320) are
 * refused with ERANGE rather than fitted as if the small one were 0. */
START_TEST (test_pl_mle_counts_out_of_range)
{
  static const long rk[4] = { 0, 1, 1, 0 };
  double cd[2] = { 1e308, 1e-320 }, sd[2], lld;
  TU_ASSERT_STATUS (rlref_pl_mle_d (sd, &lld, rk, cd, 2, 2), RLREF_ERANGE);
}
END_TEST

/* ===== the ends of the binary64 range =========================================== */

/* Plain loss (c = 0) of rw = rl = 1e300: log 2 with gradients -+1/2 (before:
 * NaN, the centring term 0 (rw + rl)^2 = 0 inf); with c = 1e-300 the exact
 * loss log 2 + c (2e300)^2 = 4e300 is finite (before: +inf), gradients
 * 2c (rw + rl) -+ 1/2 = 3.5, 4.5; the pairs (-1e308, 1e308) and (0, 0): the
 * difference overflows, the loss (softplus(2e308) + log 2)/2 ~ 1e308 does
 * not (before: +inf); (-1e308, 1e308) alone: 2e308, +inf and ERANGE in
 * binary64.  Both backends (mpmath values). */
START_TEST (test_rm_loss_near_overflow)
{
  double rw = 1e300, rl = 1e300, c0 = 0.0, c1 = 1e-300, loss, g1, g2;
  double w2[2] = { -1e308, 0.0 }, l2[2] = { 1e308, 0.0 }, gw[2], gl[2];
  mpfr_t mrw, mrl, mc, ml, mg1, mg2, t;
  mpfr_ptr mw2 = tu_mp_vec_from_d (w2, 2, PREC), ml2 = tu_mp_vec_from_d (l2, 2, PREC);
  TU_OK (rlref_rm_loss_d (&loss, &g1, &g2, &rw, &rl, 1, &c0));
  TU_ASSERT_REL (loss, tu_d (RV_LOG2), TU_TOL0);
  TU_ASSERT_SAME (g1, -0.5);
  TU_ASSERT_SAME (g2, 0.5);
  TU_OK (rlref_rm_loss_d (&loss, &g1, &g2, &rw, &rl, 1, &c1));
  TU_ASSERT_REL (loss, tu_d (RV_RM_CENTRED_HUGE), TU_TOL1);
  TU_ASSERT_REL (g1, 2 * c1 * 2e300 - 0.5, TU_TOL1);
  TU_ASSERT_REL (g2, 2 * c1 * 2e300 + 0.5, TU_TOL1);
  TU_OK (rlref_rm_loss_d (&loss, gw, gl, w2, l2, 2, &c0));
  TU_ASSERT_REL (loss, tu_d (RV_RM_OVERFLOW_PAIR), TU_TOL1);
  TU_ASSERT_SAME (gw[0], -0.5);
  TU_ASSERT_SAME (gl[0], 0.5);
  TU_ASSERT_SAME (gw[1], -0.25);
  TU_ASSERT_STATUS (rlref_rm_loss_d (&loss, NULL, NULL, w2, l2, 1, &c0), RLREF_ERANGE);
  ck_assert (isinf (loss) && loss > 0);
  mp_from_d (mrw, rw);
  mp_from_d (mrl, rl);
  mp_from_d (mc, c1);
  mpfr_inits2 (PREC, ml, mg1, mg2, t, (mpfr_ptr) 0);
  TU_OK (rlref_rm_loss_mp (ml, mg1, mg2, mrw, mrl, 1, mc));
  TU_ASSERT_MP_STR (ml, RV_RM_CENTRED_HUGE, 75);
  mpfr_set_zero (mc, 1);
  TU_OK (rlref_rm_loss_mp (ml, mg1, mg2, mrw, mrl, 1, mc));
  TU_ASSERT_MP_STR (ml, RV_LOG2, 75);
  ck_assert (mpfr_cmp_d (mg1, -0.5) == 0 && mpfr_cmp_d (mg2, 0.5) == 0);
  TU_OK (rlref_rm_loss_mp (ml, NULL, NULL, mw2, ml2, 2, mc));
  TU_ASSERT_MP_STR (ml, RV_RM_OVERFLOW_PAIR, 75);
  TU_OK (rlref_rm_loss_mp (ml, NULL, NULL, mw2, ml2, 1, mc));
  mpfr_set_d (t, 1e308, MPFR_RNDN);
  mpfr_mul_2ui (t, t, 1, MPFR_RNDN);
  ck_assert (mpfr_number_p (ml) && mpfr_cmp (ml, t) >= 0);
  tu_mp_vec_free (mw2, 2);
  tu_mp_vec_free (ml2, 2);
  mpfr_clears (mrw, mrl, mc, ml, mg1, mg2, t, (mpfr_ptr) 0);
}
END_TEST

/* rw - rl - m overflowing where the loss does not: rw = -1e308,
 * rl = 1e308, m = -1e308 gives z = -1e308 and loss softplus(1e308) = 1e308
 * exactly (before: +inf); rw = 1e308, rl = -1e308, m = 0: loss 0 and
 * gradients -0, +0 (before: NaN); both backends. */
START_TEST (test_margin_near_overflow)
{
  double a = -1e308, b = 1e308, m = -1e308, z = 0.0, loss, g1, g2;
  mpfr_t ma, mb, mm, ml, mg1, mg2;
  TU_OK (rlref_margin_loss_d (&loss, &g1, &g2, &a, &b, &m));
  TU_ASSERT_SAME (loss, 1e308);
  TU_ASSERT_SAME (g1, -1.0);
  TU_ASSERT_SAME (g2, 1.0);
  TU_OK (rlref_margin_loss_d (&loss, &g1, &g2, &b, &a, &z));
  TU_ASSERT_SAME (loss, 0.0);
  ck_assert (g1 == 0.0 && g2 == 0.0);
  mp_from_d (ma, a);
  mp_from_d (mb, b);
  mp_from_d (mm, m);
  mpfr_inits2 (PREC, ml, mg1, mg2, (mpfr_ptr) 0);
  TU_OK (rlref_margin_loss_mp (ml, mg1, mg2, ma, mb, mm));
  ck_assert (mpfr_cmp_d (ml, 1e308) == 0);
  mpfr_set_zero (mm, 1);
  TU_OK (rlref_margin_loss_mp (ml, mg1, mg2, mb, ma, mm));
  ck_assert (mpfr_number_p (ml) && mpfr_cmp_d (ml, 1e-300) < 0);
  mpfr_clears (ma, mb, mm, ml, mg1, mg2, (mpfr_ptr) 0);
}
END_TEST

/* Label smoothing where D = rw - rl overflows: eps 0.25 at (1e308, -1e308)
 * gives 0.25 D = 5e307 (before: +inf), gradients 0.25 and -0.25; eps 0 is
 * the plain loss, 0 (before: NaN, 0 inf); eps 0.75 at (-1e308, 1e308) is
 * 0.25 |D| = 5e307; eps 1 at (-1e308, 1e308) is 0 and at (1e308, -1e308)
 * 2e308: +inf and ERANGE.  Both backends. */
START_TEST (test_smooth_near_overflow)
{
  double a = 1e308, b = -1e308, e = 0.25, e0 = 0.0, e3 = 0.75, e1 = 1.0, loss, g1, g2;
  mpfr_t ma, mb, me, ml, mg1, mg2;
  TU_OK (rlref_smooth_loss_d (&loss, &g1, &g2, &a, &b, &e));
  TU_ASSERT_SAME (loss, 5e307);
  TU_ASSERT_SAME (g1, 0.25);
  TU_ASSERT_SAME (g2, -0.25);
  TU_OK (rlref_smooth_loss_d (&loss, &g1, &g2, &a, &b, &e0));
  TU_ASSERT_SAME (loss, 0.0);
  TU_OK (rlref_smooth_loss_d (&loss, &g1, &g2, &b, &a, &e3));
  TU_ASSERT_SAME (loss, 5e307);
  TU_OK (rlref_smooth_loss_d (&loss, &g1, &g2, &b, &a, &e1));
  TU_ASSERT_SAME (loss, 0.0);
  TU_ASSERT_STATUS (rlref_smooth_loss_d (&loss, &g1, &g2, &a, &b, &e1), RLREF_ERANGE);
  ck_assert (isinf (loss) && loss > 0);
  mp_from_d (ma, a);
  mp_from_d (mb, b);
  mp_from_d (me, e);
  mpfr_inits2 (PREC, ml, mg1, mg2, (mpfr_ptr) 0);
  TU_OK (rlref_smooth_loss_mp (ml, mg1, mg2, ma, mb, me));
  ck_assert (mpfr_cmp_d (ml, 5e307) == 0);
  ck_assert (mpfr_cmp_d (mg1, 0.25) == 0 && mpfr_cmp_d (mg2, -0.25) == 0);
  mpfr_clears (ma, mb, me, ml, mg1, mg2, (mpfr_ptr) 0);
}
END_TEST

/* ===== aliasing (reference/README.md) ================================================ */

/* The generic test holds every formula of the registry to the aliasing
 * rule on its golden cases.  Here: the forms the registry does not carry
 * (bt_prob_softmax, bt_prob_naive, rm_loss_naive), ensemble_var_penalized
 * (its glue writes through a temporary), and the scaled paths no golden
 * case reaches (differences that overflow binary64). */
struct pref_ctx
{
  int f;                        /* which function, below */
  size_t n;                     /* K of the ensemble */
  int ddof;
};

enum { F_BT, F_BT_SOFTMAX, F_BT_NAIVE, F_GUMBEL, F_RM, F_RM_NAIVE, F_MARGIN, F_SMOOTH,
       F_ENSEMBLE_VAR };

/* Slots: bt (p; rw, rl); rm (loss, grad_rw, grad_rl; rw, rl, c) of one
 * pair; rm_naive (loss; rw, rl); margin and smooth (loss, grad_rw,
 * grad_rl; rw, rl, m or eps); ensemble_var_penalized (penalized_var;
 * scores, lambda). */
static int
pref_d (double *const *x, const void *ctx)
{
  const struct pref_ctx *c = ctx;
  switch (c->f)
    {
    case F_BT: return rlref_bt_prob_d (x[0], x[1], x[2]);
    case F_BT_SOFTMAX: return rlref_bt_prob_softmax_d (x[0], x[1], x[2]);
    case F_BT_NAIVE: return rlref_bt_prob_naive_d (x[0], x[1], x[2]);
    case F_GUMBEL: return rlref_bt_gumbel_integral_d (x[0], x[1], x[2]);
    case F_RM: return rlref_rm_loss_d (x[0], x[1], x[2], x[3], x[4], 1, x[5]);
    case F_RM_NAIVE: return rlref_rm_loss_naive_d (x[0], x[1], x[2]);
    case F_MARGIN: return rlref_margin_loss_d (x[0], x[1], x[2], x[3], x[4], x[5]);
    case F_SMOOTH: return rlref_smooth_loss_d (x[0], x[1], x[2], x[3], x[4], x[5]);
    default: return rlref_ensemble_var_penalized_d (x[0], x[1], c->n, c->ddof, x[2]);
    }
}

static int
pref_mp (mpfr_ptr const *x, const void *ctx)
{
  const struct pref_ctx *c = ctx;
  switch (c->f)
    {
    case F_BT: return rlref_bt_prob_mp (x[0], x[1], x[2]);
    case F_BT_SOFTMAX: return rlref_bt_prob_softmax_mp (x[0], x[1], x[2]);
    case F_BT_NAIVE: return rlref_bt_prob_naive_mp (x[0], x[1], x[2]);
    case F_GUMBEL: return rlref_bt_gumbel_integral_mp (x[0], x[1], x[2]);
    case F_RM: return rlref_rm_loss_mp (x[0], x[1], x[2], x[3], x[4], 1, x[5]);
    case F_RM_NAIVE: return rlref_rm_loss_naive_mp (x[0], x[1], x[2]);
    case F_MARGIN: return rlref_margin_loss_mp (x[0], x[1], x[2], x[3], x[4], x[5]);
    case F_SMOOTH: return rlref_smooth_loss_mp (x[0], x[1], x[2], x[3], x[4], x[5]);
    default: return rlref_ensemble_var_penalized_mp (x[0], x[1], c->n, c->ddof, x[2]);
    }
}

/* The reported bug: pl_logprob with grad == scores gave log P = -log 6
 * instead of -0.39285 (s = (0.5, -1.25, 2), ranking (2, 0, 1)); in place
 * the log-probability and the gradient are those of separate storage. */
START_TEST (test_pl_logprob_grad_in_place)
{
  static const long r[3] = { 2, 0, 1 };
  double s[3] = { 0.5, -1.25, 2.0 }, g[3], lp, lp2;
  mpfr_ptr x = tu_mp_vec_from_d (s, 3, PREC);
  mpfr_t l;
  mpfr_init2 (l, PREC);
  TU_OK (rlref_pl_logprob_d (&lp, g, s, r, 3));
  TU_OK (rlref_pl_logprob_d (&lp2, s, s, r, 3));
  TU_ASSERT_SAME (lp2, lp);
  TU_ASSERT_REL (lp2, tu_d (RV_PL_THREE), TU_TOL1);
  for (int i = 0; i < 3; i++)
    TU_ASSERT_SAME (s[i], g[i]);
  TU_OK (rlref_pl_logprob_mp (l, x, x, r, 3));
  TU_ASSERT_MP_STR (l, RV_PL_THREE, 75);
  tu_mp_vec_free (x, 3);
  mpfr_clear (l);
}
END_TEST

/* Every output on every input of its length, in both backends
 * (tu_check_aliasing), for the functions and paths named above. */
START_TEST (test_aliasing_all)
{
  static const double a[1] = { 1.5 }, b[1] = { -0.25 }, c1[1] = { 0.01 }, e1[1] = { 0.3 };
  static const double big[1] = { 1e308 }, nbig[1] = { -1e308 };
  static const double s4[4] = { 0.1, 0.4, 0.35, -2.0 }, s1[1] = { 0.7 }, lam[1] = { 0.5 };
  int pairs = 0;
  for (int f = F_BT; f <= F_GUMBEL; f++)
    for (int big_ = 0; big_ < 2; big_++)
      {
        struct pref_ctx ctx = { f, 1, 0 };
        tu_alias_case c = { "bt", 3, 1, { 1, 1, 1 }, { NULL, big_ ? big : a, big_ ? nbig : b },
                            pref_d, pref_mp, &ctx };
        if ((big_ == 0 && (f == F_BT || f == F_GUMBEL)) || (big_ && f == F_BT_NAIVE))
          continue;             /* in the registry; the naive form overflows to NaN */
        pairs += tu_check_aliasing (&c);
      }
  {
    struct pref_ctx ctx = { F_RM_NAIVE, 1, 0 };
    tu_alias_case c = { "rm_loss_naive", 3, 1, { 1, 1, 1 }, { NULL, a, b }, pref_d, pref_mp, &ctx };
    pairs += tu_check_aliasing (&c);
  }
  for (int f = F_RM; f <= F_SMOOTH; f++)
    {
      struct pref_ctx ctx = { f, 1, 0 };
      tu_alias_case c = { f == F_RM ? "rm_loss" : f == F_MARGIN ? "margin_loss" : "smooth_loss",
                          6, 3, { 1, 1, 1, 1, 1, 1 },
                          { NULL, NULL, NULL, big, nbig, f == F_RM ? c1 : e1 },
                          pref_d, pref_mp, &ctx };
      if (f == F_RM_NAIVE)
        continue;
      pairs += tu_check_aliasing (&c);
    }
  for (int K = 1; K <= 4; K += 3)
    for (int ddof = 0; ddof < 2 && ddof < K; ddof++)
      {
        struct pref_ctx ctv = { F_ENSEMBLE_VAR, (size_t) K, ddof };
        tu_alias_case v = { "ensemble_var_penalized", 3, 1, { 1, (size_t) K, 1 },
                            { NULL, K == 1 ? s1 : s4, lam }, pref_d, pref_mp, &ctv };
        pairs += tu_check_aliasing (&v);
      }
  /* bt: 5 cases of 2 pairs; rm_naive 2; rm, margin, smooth 9 each;
   * ensemble_var_penalized 2 (K = 1), 1 and 1 (K = 4) */
  ck_assert_int_eq (pairs, 10 + 2 + 27 + 4);
}
END_TEST

static Suite *
pref_suite (void)
{
  Suite *s = suite_create ("pref");
  TCase *tc;

  tc = tu_tcase ("bt");
  tcase_add_test (tc, test_bt_prob_closed_form);
  tcase_add_test (tc, test_bt_prob_vs_softmax_form);
  tcase_add_test (tc, test_bt_shift_invariance);
  tcase_add_test (tc, test_bt_gumbel_integral_is_sigmoid);
  tcase_add_test (tc, test_bt_gumbel_monte_carlo);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("rm_loss");
  tcase_add_test (tc, test_rm_loss_detector);
  tcase_add_test (tc, test_rm_loss_batch_and_gradient);
  tcase_add_test (tc, test_rm_loss_extreme);
  tcase_add_test (tc, test_rm_loss_bad_inputs);
  tcase_add_test (tc, test_rm_loss_random_d_vs_mp);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("margin_smooth");
  tcase_add_test (tc, test_margin_loss_detector);
  tcase_add_test (tc, test_margin_zero_is_rm_loss);
  tcase_add_test (tc, test_margin_bad_inputs);
  tcase_add_test (tc, test_smooth_eps0_is_rm_loss);
  tcase_add_test (tc, test_smooth_half_is_symmetric);
  tcase_add_test (tc, test_smooth_general_eps);
  tcase_add_test (tc, test_smooth_bad_eps);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("ensemble");
  tcase_add_test (tc, test_ensemble_values);
  tcase_add_test (tc, test_ensemble_near_overflow);
  tcase_add_test (tc, test_ensemble_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("plackett_luce");
  tcase_add_test (tc, test_pl_two_items_is_bt);
  tcase_add_test (tc, test_pl_gradient_far_last);
  tcase_add_test (tc, test_pl_near_certain_ranking_d);
  tcase_add_test (tc, test_pl_near_certain_ranking_mp);
  tcase_add_test (tc, test_pl_equal_scores);
  tcase_add_test (tc, test_pl_three_items_value);
  tcase_add_test (tc, test_pl_probabilities_sum_to_one);
  tcase_add_test (tc, test_pl_gradient_fd);
  tcase_add_test (tc, test_pl_bad_rankings);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("mle");
  tcase_add_test (tc, test_pl_mle_two_items);
  tcase_add_test (tc, test_pl_gradient_tiny_tie);
  tcase_add_test (tc, test_bt_mle_pair_far);
  tcase_add_test (tc, test_pl_mle_three_items);
  tcase_add_test (tc, test_pl_mle_bad_inputs);
  tcase_add_test (tc, test_bt_mle_eight_of_ten);
  tcase_add_test (tc, test_bt_mle_four_items);
  tcase_add_test (tc, test_bt_mle_bad_inputs);
  tcase_add_test (tc, test_pl_mle_count_scale);
  tcase_add_test (tc, test_bt_mle_weight_scale);
  tcase_add_test (tc, test_pl_mle_extreme_counts);
  tcase_add_test (tc, test_pl_mle_counts_out_of_range);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("range");
  tcase_add_test (tc, test_rm_loss_near_overflow);
  tcase_add_test (tc, test_margin_near_overflow);
  tcase_add_test (tc, test_smooth_near_overflow);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("aliasing");
  tcase_add_test (tc, test_pl_logprob_grad_in_place);
  tcase_add_test (tc, test_aliasing_all);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (pref_suite)
