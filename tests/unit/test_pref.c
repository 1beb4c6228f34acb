/* test_pref.c -- preference and reward models (PREF-*): Bradley-Terry and
 * its Gumbel construction, the reward-model loss and its margin and
 * label-smoothing variants, ensembles, Plackett-Luce and the
 * maximum-likelihood fits, in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: seed 000's worked examples and the detectors of
 * CONVENTIONS.md; closed forms (sigma(D), log(2 cosh(D/2)), log(1/K!),
 * log 4); decimal strings from mpmath (mp.dps = 120) on the exact binary64
 * inputs, the maximum-likelihood fits solved independently with
 * mpmath.findroot on the analytic score equations; central finite
 * differences at 256 bits for the gradients; a seeded Monte-Carlo
 * estimate for the Gumbel construction. */
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
    { 1.5, 0.0, "0.8175744761936436596072171786562482475462408435809046166100549614951142213055327191254" },
    { 0.2, 0.2, "0.5" },
    { -1.0, 2.0, "0.04742587317756678087884815177175220138617943242060910071788800877444871150271023388578" },
    { 1e4, 1e4 - 10, "0.9999546021312975656054952237672365105449063079952739313682144361312805081669605084115" },
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
    { 1.5, 0.0, "0.8175744761936436596072171786562482475462408435809046166100549614951142213055327191254" },
    { -1.0, 2.0, "0.04742587317756678087884815177175220138617943242060910071788800877444871150271023388578" },
    { 10.0, 0.0, "0.9999546021312975656054952237672365105449063079952739313682144361312805081669605084115" },
    { 1001.5, 1000.0, "0.8175744761936436596072171786562482475462408435809046166100549614951142213055327191254" },
    { -40.0, 0.0, "0.000000000000000004248354255291588977280720904404506371434762717886168074933018472534898102584418566381" },
    { 0.0, 300.0, "5.148200222412013781154861921067130998134998224444354267541263908137664793575440690309e-131" },
    { 40.0, 0.0, "0.9999999999999999957516457447084110227192790955954936285652372821138319250669815274651" },
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

/* Seeded Monte-Carlo: with g = -log(-log U) standard Gumbel (inverse CDF),
 * the frequency of rw + g_w > rl + g_l over 10^5 draws lies within 5
 * standard errors sqrt(p(1-p)/n) of sigma(rw - rl) (mpmath), for D = 1.5
 * and D = -0.5. */
START_TEST (test_bt_gumbel_monte_carlo)
{
  static const struct { double rw, rl, p; } c[] = {
    { 1.5, 0.0, 0.8175744761936436596 },
    { 0.25, 0.75, 0.3775406687981454354 },
  };
  const long n = 100000;
  gsl_rng *rng = tu_rng_new ();
  for (size_t k = 0; k < 2; k++)
    {
      long wins = 0;
      double freq, se;
      for (long i = 0; i < n; i++)
        {
          double gw = -log (-log (gsl_rng_uniform_pos (rng)));
          double gl = -log (-log (gsl_rng_uniform_pos (rng)));
          if (c[k].rw + gw > c[k].rl + gl)
            wins++;
        }
      freq = (double) wins / (double) n;
      se = sqrt (c[k].p * (1 - c[k].p) / (double) n);
      ck_assert_msg (fabs (freq - c[k].p) <= 5 * se,
                     "D = %g: frequency %.5f vs sigma %.5f (%.2f standard errors, seed %lu)",
                     c[k].rw - c[k].rl, freq, c[k].p, (freq - c[k].p) / se, tu_seed ());
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
  const char *want = "0.3711006659477777294481136076495874312678094546347163934699671098830810148113197844363";
  const char *gw = "-0.3100255188723875597410006407256693345054585073900917696499979323973391613422558301837";
  const char *gl = "0.3100255188723875597410006407256693345054585073900917696499979323973391613422558301837";
  double rw = 1.0, rl = 0.2, c = 0.0, loss, g1, g2;
  mpfr_t mrw, mrl, mc, ml, mg1, mg2;
  TU_OK (rlref_rm_loss_d (&loss, &g1, &g2, &rw, &rl, 1, &c));
  TU_ASSERT_ABS (loss, 0.3711007, 5e-8);
  TU_ASSERT_REL (loss, strtod (want, NULL), TU_TOL0);
  TU_ASSERT_REL (g1, strtod (gw, NULL), TU_TOL1);
  TU_ASSERT_REL (g2, strtod (gl, NULL), TU_TOL1);
  mp_from_d (mrw, rw);
  mp_from_d (mrl, rl);
  mp_from_d (mc, c);
  mpfr_inits2 (PREC, ml, mg1, mg2, (mpfr_ptr) 0);
  TU_OK (rlref_rm_loss_mp (ml, mg1, mg2, mrw, mrl, 1, mc));
  TU_ASSERT_MP_STR (ml, want, 75);
  TU_ASSERT_MP_STR (mg1, gw, 75);
  TU_ASSERT_MP_STR (mg2, gl, 75);
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
  static const char *loss_want[2] = {
    "0.8163230557239980602031228218406960204569902434827908771252190442370934340812555530726",
    "0.88153972239066472831620192277682444470407734414838612497598648583176755548234484853" };
  static const char *gw[3] = {
    "-0.09534183962412918633978522490643919286928868553389750639688362339783786561693729148891",
    "-0.2574332870582303822984787130343111241214446042214601202384272903134627514416673751024",
    "-0.1176078330380672980677528055335701366206258775741952505819300015212906252859450037382" };
  static const char *gl[3] = {
    "0.1113418396241291868208818689106736968010169860594970067031149982003882419445665953002",
    "0.2607666203915637157012009854067167412312549168104697231030106236467960847750007084357",
    "0.1742744997047339659140314358644656274874011915873584992798466681879572919526116704048" };
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
  TU_ASSERT_MP_STR (ml, "5.07595889754945676529180947957433691930559928289283736183239384541054054297481917568e-435", 75);
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
  const char *want = "0.5543552444685271235392255969479682347245397127252944520613210626346368877469304347868";
  const char *gw = "-0.4255574831883410155619611967659396770603625182798329772491361478562846072549123072667";
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
  const char *v15 = "0.9514132779827524094994828090570911052543986289505390097295348213966710962376724641796";
  const char *log2 = "0.6931471805599453094172321214581765680755001343602552541206800094933936219696947156059";
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
  const char *want = "0.4511006659477777327787826815250569909089462385156300331786729471654068215920670415439";
  const char *gw = "-0.2100255188723875541898855175998866323873001669359902071499979323973391613422558301837";
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

/* Scores {1,2,3,4}, lambda 0.5 and {0.1, 0.4, 0.35}, lambda 1: mean,
 * variance (ddof 0 and 1), std and mean - lambda std against mpmath. */
START_TEST (test_ensemble_values)
{
  static const struct
  {
    double s[4];
    size_t K;
    double lambda;
    int ddof;
    const char *mean, *var, *std, *pen;
  } c[] = {
    { { 1, 2, 3, 4 }, 4, 0.5, 0, "2.5", "1.25",
      "1.118033988749894848204586834365638117720309179805762862135448622705260462818902449707",
      "1.940983005625052575897706582817180941139845410097118568932275688647369768590548775146" },
    { { 1, 2, 3, 4 }, 4, 0.5, 1, "2.5",
      "1.666666666666666666666666666666666666666666666666666666666666666666666666666666666667",
      "1.290994448735805628393088466594133203610973901763863608862524588704494363978993011173",
      "1.854502775632097185803455766702933398194513049118068195568737705647752818010503494413" },
    { { 0.1, 0.4, 0.35 }, 3, 1.0, 0,
      "0.2833333333333333351837050410419275673727194468180338541666666666666666666666666666667",
      "0.01722222222222222228390127914584236556332984813680308311371266368511505197148715574763",
      "0.1312334645668635172297480160234189190377939412233364039497773641646959232243088499922",
      "0.1520998687664698179539570250185086483349255055946974502168893025019707434423578166745" },
    { { 0.1, 0.4, 0.35 }, 3, 1.0, 1,
      "0.2833333333333333351837050410419275673727194468180338541666666666666666666666666666667",
      "0.02583333333333333342585191871876354834499477220520462467056899552767257795723073362145",
      "0.1607275126832159168838124291856613036084852697803668804319395525102062807963021143102",
      "0.1226058206501174182998926118562662637642341770376669737347271141564603858703645523564" },
  };
  mpfr_t m, v, s, p, lam;
  mpfr_inits2 (PREC, m, v, s, p, lam, (mpfr_ptr) 0);
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    {
      double md, vd, sd, pd;
      mpfr_ptr x = tu_mp_vec_from_d (c[i].s, c[i].K, PREC);
      TU_OK (rlref_ensemble_d (&md, &vd, &sd, &pd, c[i].s, c[i].K, c[i].ddof, &c[i].lambda));
      TU_ASSERT_REL (md, strtod (c[i].mean, NULL), TU_TOL0);
      TU_ASSERT_REL (vd, strtod (c[i].var, NULL), TU_TOL1);
      TU_ASSERT_REL (sd, strtod (c[i].std, NULL), TU_TOL1);
      TU_ASSERT_REL (pd, strtod (c[i].pen, NULL), TU_TOL1);
      mpfr_set_d (lam, c[i].lambda, MPFR_RNDN);
      TU_OK (rlref_ensemble_mp (m, v, s, p, x, c[i].K, c[i].ddof, lam));
      TU_ASSERT_MP_STR (m, c[i].mean, 75);
      TU_ASSERT_MP_STR (v, c[i].var, 75);
      TU_ASSERT_MP_STR (s, c[i].std, 75);
      TU_ASSERT_MP_STR (p, c[i].pen, 75);
      /* outputs other than the penalised reward may be NULL */
      TU_OK (rlref_ensemble_mp (NULL, NULL, NULL, p, x, c[i].K, c[i].ddof, lam));
      TU_ASSERT_MP_STR (p, c[i].pen, 75);
      tu_mp_vec_free (x, c[i].K);
    }
  mpfr_clears (m, v, s, p, lam, (mpfr_ptr) 0);
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
}
END_TEST

/* ===== PREF-PL ============================================================= */

/* K = 2 is Bradley-Terry: log P([0,1]) = log sigma(s0 - s1) =
 * -0.20141327798... at s = (0.3, -1.2) (mpmath), equal to the log of
 * bt_prob to 75 digits; the reverse ranking gives log sigma(-1.5). */
START_TEST (test_pl_two_items_is_bt)
{
  const char *want = "-0.2014132779827524196261336495131631350608571623940261073210174151914536613995277471724";
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

/* A near-certain ranking: K = 2 with s = (40, 0) has log P = log sigma(40)
 * = -log1p(e^-40) = -4.2483542552915890e-18 in double (mpmath); well
 * conditioned (the sensitivity is 40 |log P|), so the value, not 0, is
 * expected. */
START_TEST (test_pl_near_certain_ranking_d)
{
  static const long r01[2] = { 0, 1 };
  const double want = -4.2483542552915889863049778436315821818777506798229745422054513754587839239746029e-18;
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
  TU_ASSERT_MP_STR (l, "-1.1354838653147360985409388750662484019574316100903188426715526591573043024127392e-4343", 70);
  tu_mp_vec_free (x, 2);
  mpfr_clear (l);
}
END_TEST

/* Equal scores make every ranking equally likely: log P = log(1/K!), i.e.
 * -log 24 for K = 4 (scores 0.7) and -log 6 for K = 3 (scores -1e4,
 * costing 4 digits), for every ranking (mpmath). */
START_TEST (test_pl_equal_scores)
{
  const char *l24 = "-3.178053830347945619646941601297055408873990960903515214096734362117675159127693113691";
  const char *l6 = "-1.791759469228055000812477358380702272722990692183004705855374343130887915188303682479";
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
  const char *want = "-0.3928461335401199033604487284611625591702389485371714497847339502749557517306087088914";
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
  const char *log2 = "0.6931471805599453094172321214581765680755001343602552541206800094933936219696947156059";
  const char *ll = "-5.004024235381878795331879388931051306048011392921093153195598762847491925561462196608";
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
  TU_ASSERT_REL (sd[0], strtod (log2, NULL), TU_TOL2);
  TU_ASSERT_REL (sd[1], -strtod (log2, NULL), TU_TOL2);
  TU_ASSERT_REL (lld, strtod (ll, NULL), TU_TOL2);
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
  static const char *want[3] = {
    "0.8749269135289195337535654947291612648351405531036951003027026827288504749120585114394",
    "0.1621405669583816236975395608033820105826606664733820527203333557497903946105607924869",
    "-1.037067480487301157451105055532543275417801219577077153023036038478640869522619303926" };
  const char *ll = "-15.2469304103049745313182140408280325485206601808772120906189222759029271424988652367";
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
    TU_ASSERT_REL (sd[i], strtod (want[i], NULL), TU_TOL2);
  TU_ASSERT_REL (lld, strtod (ll, NULL), TU_TOL2);
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
  const char *log2 = "0.6931471805599453094172321214581765680755001343602552541206800094933936219696947156059";
  const char *log4 = "1.386294361119890618834464242916353136151000268720510508241360018986787243939389431212";
  const char *ll = "-5.004024235381878795331879388931051306048011392921093153195598762847491925561462196608";
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
  static const char *want[4] = {
    "0.3398081406812012878155447328897965825703925331492832874430315115905078379244319798633",
    "0.287111144533626189384973742088001658435928331905252994689154666872504480839916358622",
    "-0.1085910278121005474351254252456739919235554116540791967323732678857157462068174194243",
    "-0.5183282574027269297653930497321242490827654534004570853998129105772965725575309190611" };
  const char *ll = "-17.09924156493751434260509341231125641296118763329914396564956257934015652813922308423";
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
    TU_ASSERT_REL (sd[i], strtod (want[i], NULL), TU_TOL3);
  TU_ASSERT_REL (lld, strtod (ll, NULL), TU_TOL2);
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
  tcase_add_test (tc, test_ensemble_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("plackett_luce");
  tcase_add_test (tc, test_pl_two_items_is_bt);
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
  tcase_add_test (tc, test_pl_mle_three_items);
  tcase_add_test (tc, test_pl_mle_bad_inputs);
  tcase_add_test (tc, test_bt_mle_eight_of_ten);
  tcase_add_test (tc, test_bt_mle_four_items);
  tcase_add_test (tc, test_bt_mle_bad_inputs);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (pref_suite)
