/* test_grpobase.c -- GRPO baselines: the bound and scale of the group
 * advantage, the leave-one-out advantage (13.28) under each convention with
 * its identity, TRL's shaped reward and sequence ratio, the variance of the
 * baselines (13.28') exactly and by Monte Carlo, the difficulty weight of
 * the std normalisation, ReMax, and the zero-mean score (13.27) on the
 * tiny LM, in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: closed forms (sqrt(G - 1), (G - 1)/sqrt(G), sigma/(sigma
 * + eps), (G - 1)/G, sigma^2/G, e^0.5); the seed's numbers (7.937, 7.875,
 * 0.875, 0.984375); hand sums; the difficulty weight against its
 * definition E[sum_i A_i (r_i - p)]/(p (1 - p)) by enumerating the 2^G
 * outcomes of a group; the Monte-Carlo variances within their sampling
 * error of the exact ones; the tiny LM's gradient against central
 * differences of E[r] at 256 bits. */
#include "testutil.h"

#define PREC 256

static mpfr_ptr
mp1 (double x)
{
  return tu_mp_vec_from_d (&x, 1, PREC);
}

/* One success in G = 64: max |A| = sqrt(63) = 7.937 (ddof 0) and 63/8 =
 * 7.875 (ddof 1), the bounds themselves; a real-valued group stays below
 * its bound; G = 1 has no ddof-1 std (EDOM). */
START_TEST (test_adv_bound)
{
  double r[64] = { 1 }, m, b, x[6] = { 0.3, -1.7, 2.25, 0, 5.5, -3.125 };
  mpfr_ptr rm = tu_mp_vec_from_d (r, 64, PREC), mm = tu_mp_vec_new (1, PREC),
    bm = tu_mp_vec_new (1, PREC);
  mpfr_t w;
  mpfr_init2 (w, PREC);
  TU_OK (rlref_grpo_adv_bound_d (&m, &b, r, 64, 0));
  TU_ASSERT_REL (m, sqrt (63.0), TU_TOL0);
  TU_ASSERT_REL (b, sqrt (63.0), TU_TOL0);
  ck_assert (fabs (m - 7.937) < 5e-4);
  TU_OK (rlref_grpo_adv_bound_d (&m, &b, r, 64, 1));
  TU_ASSERT_REL (m, 7.875, TU_TOL0);
  TU_ASSERT_SAME (b, 7.875);
  TU_OK (rlref_grpo_adv_bound_mp (mm, bm, rm, 64, 0));
  mpfr_sqrt_ui (w, 63, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (mm, w, 75);
  TU_ASSERT_MP_AGREE (bm, w, 75);
  TU_OK (rlref_grpo_adv_bound_d (&m, &b, x, 6, 1));
  ck_assert (m < b && m > 1.5);
  TU_OK (rlref_grpo_adv_bound_d (&m, &b, x, 1, 0));
  TU_ASSERT_SAME (m, 0.0);
  TU_ASSERT_SAME (b, 0.0);
  TU_ASSERT_STATUS (rlref_grpo_adv_bound_d (&m, &b, x, 1, 1), RLREF_EDOM);
  x[1] = NAN;
  TU_ASSERT_STATUS (rlref_grpo_adv_bound_d (&m, &b, x, 6, 0), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_grpo_adv_bound_d (&m, &b, x, 0, 0), RLREF_EINVAL);
  tu_mp_vec_free (rm, 64);
  tu_mp_vec_free (mm, 1);
  tu_mp_vec_free (bm, 1);
  mpfr_clear (w);
}
END_TEST

/* [1, 0, 0, 1]: sigma = 1/2 (ddof 0), sqrt(1/3) (ddof 1); the std of the
 * advantages is sigma/(sigma + eps); eps <= 0 is EDOM. */
START_TEST (test_adv_scale)
{
  double r[4] = { 1, 0, 0, 1 }, eps = 0.5, sa, ra, s1 = sqrt (1.0 / 3);
  mpfr_ptr rm = tu_mp_vec_from_d (r, 4, PREC), em = mp1 (1e-8), sm = tu_mp_vec_new (1, PREC),
    qm = tu_mp_vec_new (1, PREC);
  mpfr_t w;
  mpfr_init2 (w, PREC);
  TU_OK (rlref_grpo_adv_scale_d (&sa, &ra, r, 4, 0, &eps));
  TU_ASSERT_REL (sa, 0.5, TU_TOL0);
  TU_ASSERT_SAME (ra, 0.5);
  TU_OK (rlref_grpo_adv_scale_d (&sa, &ra, r, 4, 1, &eps));
  TU_ASSERT_REL (sa, s1 / (s1 + 0.5), TU_TOL0);
  TU_ASSERT_REL (ra, s1 / (s1 + 0.5), TU_TOL0);
  /* eps 1e-8 at 256 bits: 0.5/(0.5 + 1e-8) */
  TU_OK (rlref_grpo_adv_scale_mp (sm, qm, rm, 4, 0, em));
  mpfr_add_d (w, em, 0.5, MPFR_RNDN);
  mpfr_d_div (w, 0.5, w, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (sm, w, 75);
  TU_ASSERT_MP_AGREE (qm, w, 75);
  eps = 0;
  TU_ASSERT_STATUS (rlref_grpo_adv_scale_d (&sa, &ra, r, 4, 0, &eps), RLREF_EDOM);
  eps = -1e-8;
  TU_ASSERT_STATUS (rlref_grpo_adv_scale_d (&sa, &ra, r, 4, 0, &eps), RLREF_EDOM);
  tu_mp_vec_free (rm, 4);
  tu_mp_vec_free (em, 1);
  tu_mp_vec_free (sm, 1);
  tu_mp_vec_free (qm, 1);
  mpfr_clear (w);
}
END_TEST

/* 13.28 under each convention: [1, 0, 0, 0] -> 1, -1/3 (all four); a group
 * of one: EDOM, 0, r, 0; NaN rewards: TRL over the scorable siblings, the
 * others ENAN; equal rewards exactly 0; the exact sum keeps 1e-200; a sum
 * that overflows binary64. */
START_TEST (test_rloo_adv)
{
  static const enum rlref_rloo_convention cs[4] = {
    RLREF_RLOO_SEED, RLREF_RLOO_TRL, RLREF_RLOO_VERL, RLREF_RLOO_VERL_VECTORIZED };
  double r[4] = { 1, 0, 0, 0 }, a[4], one = 0.5, nan4[4] = { 1, NAN, 0, 1 };
  double eq[3] = { 0.1, 0.1, 0.1 }, small[3] = { 1, 2, 1e-200 }, big[2] = { 1.5e308, 1.7e308 };
  mpfr_ptr rm = tu_mp_vec_from_d (r, 4, PREC), am = tu_mp_vec_new (4, PREC);
  for (int k = 0; k < 4; k++)
    {
      TU_OK (rlref_rloo_adv_d (a, r, 4, 4, cs[k]));
      TU_ASSERT_SAME (a[0], 1.0);
      for (int i = 1; i < 4; i++)
        TU_ASSERT_SAME (a[i], -1.0 / 3);
      TU_OK (rlref_rloo_adv_mp (am, rm, 4, 4, cs[k]));
      TU_ASSERT_MP_STR (am + 1, "-0.33333333333333333333333333333333333333333333333333333333333333333333333333", 70);
      TU_OK (rlref_rloo_adv_d (a, eq, 3, 3, cs[k]));
      for (int i = 0; i < 3; i++)
        TU_ASSERT_SAME (a[i], 0.0);
      TU_OK (rlref_rloo_adv_d (a, small, 3, 3, cs[k]));
      TU_ASSERT_SAME (a[0], -0.5e-200);
      TU_ASSERT_SAME (a[1], 1.5 - 0.5e-200);
      TU_OK (rlref_rloo_adv_d (a, big, 2, 2, cs[k]));
      TU_ASSERT_SAME (a[0], 1.5e308 - 1.7e308);
      TU_ASSERT_SAME (a[1], 1.7e308 - 1.5e308);
    }
  TU_ASSERT_STATUS (rlref_rloo_adv_d (a, &one, 1, 1, RLREF_RLOO_SEED), RLREF_EDOM);
  TU_OK (rlref_rloo_adv_d (a, &one, 1, 1, RLREF_RLOO_TRL));
  TU_ASSERT_SAME (a[0], 0.0);
  TU_OK (rlref_rloo_adv_d (a, &one, 1, 1, RLREF_RLOO_VERL));
  TU_ASSERT_SAME (a[0], 0.5);
  TU_OK (rlref_rloo_adv_d (a, &one, 1, 1, RLREF_RLOO_VERL_VECTORIZED));
  TU_ASSERT_SAME (a[0], 0.0);
  /* TRL: scorable 1, 0, 1 (S = 2, c = 3): 1 - 1/2, 0, 0 - 1, 1 - 1/2 */
  TU_OK (rlref_rloo_adv_d (a, nan4, 4, 4, RLREF_RLOO_TRL));
  TU_ASSERT_SAME (a[0], 0.5);
  TU_ASSERT_SAME (a[1], 0.0);
  TU_ASSERT_SAME (a[2], -1.0);
  TU_ASSERT_SAME (a[3], 0.5);
  TU_ASSERT_STATUS (rlref_rloo_adv_d (a, nan4, 4, 4, RLREF_RLOO_VERL), RLREF_ENAN);
  nan4[0] = INFINITY;
  TU_ASSERT_STATUS (rlref_rloo_adv_d (a, nan4, 4, 4, RLREF_RLOO_TRL), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_rloo_adv_d (a, r, 3, 2, RLREF_RLOO_SEED), RLREF_EINVAL);
  /* sample-major (TRL to 0.19): prompts [1, 0, 0, 0] and [0.5, 0.25, 1, 0] interleaved */
  {
    double st[8] = { 1, 0.5, 0, 0.25, 0, 1, 0, 0 }, sa[8];
    static const double want[8] = { 1, 0.5 - 1.25 / 3, -1.0 / 3, -0.25, -1.0 / 3, 0.75,
                                    -1.0 / 3, -1.75 / 3 };
    TU_OK (rlref_rloo_adv_strided_d (sa, st, 8, 4));
    for (int i = 0; i < 8; i++)
      TU_ASSERT_REL (sa[i], want[i], TU_TOL0);
    TU_ASSERT_STATUS (rlref_rloo_adv_strided_d (sa, st, 8, 1), RLREF_EDOM);
  }
  TU_ASSERT_STATUS (rlref_rloo_adv_d (a, r, 0, 1, RLREF_RLOO_SEED), RLREF_EINVAL);
  tu_mp_vec_free (rm, 4);
  tu_mp_vec_free (am, 4);
}
END_TEST

/* OpenRLHF's rloo: 13.28 clamped to [-10, 10] after the baseline: [25, 0,
 * 5, 0] gives 23.33 -> 10, -10, -3.33, -10; [1.5e308, 1.7e308] -+2e307 ->
 * -10, 10 (the exact values, though the library's float64 sum overflows); a
 * group of one refused. */
START_TEST (test_rloo_openrlhf)
{
  const double r[4] = { 25, 0, 5, 0 }, big[2] = { 1.5e308, 1.7e308 }, one = 0.5;
  double a[4];
  mpfr_ptr rm = tu_mp_vec_from_d (r, 4, PREC), am = tu_mp_vec_new (4, PREC);
  TU_OK (rlref_rloo_adv_d (a, r, 4, 4, RLREF_RLOO_OPENRLHF));
  ck_assert (a[0] == 10 && a[1] == -10 && a[3] == -10);
  TU_ASSERT_REL (a[2], 5 - 25.0 / 3, TU_TOL1);
  TU_OK (rlref_rloo_adv_mp (am, rm, 4, 4, RLREF_RLOO_OPENRLHF));
  ck_assert (mpfr_cmp_d (am, 10) == 0 && mpfr_cmp_d (am + 1, -10) == 0);
  TU_OK (rlref_rloo_adv_d (a, big, 2, 2, RLREF_RLOO_OPENRLHF));
  ck_assert (a[0] == -10 && a[1] == 10);
  TU_ASSERT_STATUS (rlref_rloo_adv_d (a, &one, 1, 1, RLREF_RLOO_OPENRLHF), RLREF_EDOM);
  tu_mp_vec_free (rm, 4);
  tu_mp_vec_free (am, 4);
}
END_TEST

/* Binary64 against MPFR on 300 seeded groups (G = 2 to 17, rewards of
 * mixed magnitudes and signs): every advantage within 2 units in the last
 * place of the correctly rounded value (the numerator c r_i - S is rounded
 * once, the division once). */
START_TEST (test_rloo_random)
{
  unsigned long long st = 12345;
  double r[17], a[17];
  mpfr_ptr rm = tu_mp_vec_new (17, PREC), am = tu_mp_vec_new (17, PREC);
  for (int n = 0; n < 300; n++)
    {
      size_t G = 2 + (size_t) (n % 16);
      for (size_t i = 0; i < G; i++)
        {
          st = st * 6364136223846793005ULL + 1442695040888963407ULL;
          r[i] = ldexp ((double) (st >> 11) / 0x1p53 - 0.5, (int) ((st >> 3) % 61) - 30);
          if (n % 3 == 0)
            r[i] += 1e6;              /* an offset: the deviations cancel */
          mpfr_set_d (rm + i, r[i], MPFR_RNDN);
        }
      TU_OK (rlref_rloo_adv_d (a, r, G, G, RLREF_RLOO_SEED));
      TU_OK (rlref_rloo_adv_mp (am, rm, G, G, RLREF_RLOO_SEED));
      for (size_t i = 0; i < G; i++)
        {
          double e = mpfr_get_d (am + i, MPFR_RNDN);
          ck_assert_msg (fabs (a[i] - e) <= 2 * (nextafter (fabs (e), INFINITY) - fabs (e)),
                         "group %d element %zu: %a against %a", n, i, a[i], e);
        }
    }
  tu_mp_vec_free (rm, 17);
  tu_mp_vec_free (am, 17);
}
END_TEST

/* r - mean = ((G - 1)/G) loo: scale 0.875 (G = 8), 0.984375 (G = 64), and
 * the identity to 75 digits in MPFR. */
START_TEST (test_rloo_identity)
{
  double r[64] = { 1 }, loo[64], cen[64], s;
  double x[8] = { -1, 1, 3, 5, 7, 9, 11, 13 };
  mpfr_ptr xm = tu_mp_vec_from_d (x, 8, PREC), lm = tu_mp_vec_new (8, PREC),
    cm = tu_mp_vec_new (8, PREC), sm = tu_mp_vec_new (1, PREC);
  mpfr_t t;
  mpfr_init2 (t, PREC);
  TU_OK (rlref_rloo_identity_d (loo, cen, &s, x, 8, 8));
  TU_ASSERT_SAME (s, 0.875);
  TU_ASSERT_SAME (loo[0], -8.0);
  TU_ASSERT_SAME (cen[0], -7.0);
  TU_OK (rlref_rloo_identity_d (loo, cen, &s, r, 64, 64));
  TU_ASSERT_SAME (s, 0.984375);
  TU_ASSERT_SAME (loo[0], 1.0);
  TU_ASSERT_SAME (cen[0], 63.0 / 64);
  TU_ASSERT_REL (loo[1], -1.0 / 63, TU_TOL0);
  TU_OK (rlref_rloo_identity_mp (lm, cm, sm, xm, 8, 8));
  for (int i = 0; i < 8; i++)
    {
      mpfr_mul (t, lm + i, sm, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (cm + i, t, 75);
    }
  TU_ASSERT_STATUS (rlref_rloo_identity_d (loo, cen, &s, x, 8, 1), RLREF_EDOM);
  tu_mp_vec_free (xm, 8);
  tu_mp_vec_free (lm, 8);
  tu_mp_vec_free (cm, 8);
  tu_mp_vec_free (sm, 1);
  mpfr_clear (t);
}
END_TEST

/* TRL's shaped reward: penalties beta (sum of unmasked logp_old - logp_ref)
 * by hand, the advantage that of r - penalty; a mask of 2 is EDOM. */
START_TEST (test_rloo_kl)
{
  double r[2] = { 1, 0 }, lo[4] = { -0.5, -1.25, -2, -0.25 }, lr[4] = { -0.25, -1, -1, -0.75 };
  long mask[4] = { 1, 0, 1, 1 };
  double beta = 0.5, pen[2], adv[2], sh[2], want[2];
  TU_OK (rlref_rloo_kl_reward_d (pen, adv, r, lo, lr, mask, 2, 2, 2, &beta, RLREF_RLOO_TRL));
  TU_ASSERT_SAME (pen[0], 0.5 * -0.25);
  TU_ASSERT_SAME (pen[1], 0.5 * (-1.0 + 0.5));
  sh[0] = 1 - pen[0];
  sh[1] = 0 - pen[1];
  TU_OK (rlref_rloo_adv_d (want, sh, 2, 2, RLREF_RLOO_TRL));
  TU_ASSERT_SAME (adv[0], want[0]);
  TU_ASSERT_SAME (adv[1], want[1]);
  TU_ASSERT_SAME (adv[0], 1.125 - 0.25);
  mask[1] = 2;
  TU_ASSERT_STATUS (rlref_rloo_kl_reward_d (pen, adv, r, lo, lr, mask, 2, 2, 2, &beta,
                                            RLREF_RLOO_TRL), RLREF_EDOM);
}
END_TEST

/* verl's KL in the reward: the same shaping, a NaN reward refused (TRL
 * gives it 0). */
START_TEST (test_rloo_kl_verl)
{
  double r[2] = { 1, NAN }, lo[2] = { -0.5, -1 }, lr[2] = { -0.25, -1 };
  long mask[2] = { 1, 1 };
  double beta = 0.5, pen[2], adv[2];
  TU_OK (rlref_rloo_kl_reward_d (pen, adv, r, lo, lr, mask, 2, 1, 2, &beta, RLREF_RLOO_TRL));
  TU_ASSERT_SAME (adv[1], 0.0);
  TU_ASSERT_STATUS (rlref_rloo_kl_reward_d (pen, adv, r, lo, lr, mask, 2, 1, 2, &beta,
                                            RLREF_RLOO_VERL), RLREF_ENAN);
}
END_TEST

/* OpenRLHF: the penalty after the baseline, k1 clamped per token: rewards
 * 25, 0 (loo 25, -25, clamped to 10, -10), k1 of 12 -> 10 and -0.5:
 * adv = 10 - 0.1 (10 - 0.5), -10 - 0 (a masked token), penalties 0.95, 0. */
START_TEST (test_rloo_kl_after_baseline)
{
  double r[2] = { 25, 0 }, lo[4] = { -1, -1.5, -1, -1 }, lr[4] = { -13, -1, -1, -3 };
  long mask[4] = { 1, 1, 1, 0 };
  double beta = 0.1, pen[2], adv[2];
  TU_OK (rlref_rloo_kl_reward_after_baseline_d (pen, adv, r, lo, lr, mask, 2, 2, 2, &beta));
  TU_ASSERT_SAME (pen[0], 0.1 * 9.5);
  TU_ASSERT_SAME (pen[1], 0.0);
  TU_ASSERT_SAME (adv[0], 10 - 0.1 * 9.5);
  TU_ASSERT_SAME (adv[1], -10.0);
  TU_ASSERT_STATUS (rlref_rloo_kl_reward_after_baseline_d (pen, adv, r, lo, lr, mask, 2, 2, 1,
                                                           &beta), RLREF_EDOM);
}
END_TEST

/* OpenRLHF's token-level loss: log-ratios 0.5, 0.5 (A = -1) and 25 (A = 1,
 * clamped to 20): token losses e^0.5, e^0.5 and -1.2; their mean.  An
 * empty mask is EDOM. */
START_TEST (test_rloo_token_loss)
{
  double lp[4] = { 0.5, 0.5, 25, 0 }, lo[4] = { 0, 0, 0, 0 }, adv[2] = { -1, 1 };
  long mask[4] = { 1, 1, 1, 0 };
  double el = 0.2, eh = 0.2, loss, want = (2 * exp (0.5) - 1.2) / 3;
  TU_OK (rlref_rloo_token_loss_d (&loss, lp, lo, mask, adv, 2, 2, &el, &eh));
  ck_assert_double_eq_tol (loss, want, 4e-16);
  for (int i = 0; i < 4; i++)
    mask[i] = 0;
  TU_ASSERT_STATUS (rlref_rloo_token_loss_d (&loss, lp, lo, mask, adv, 2, 2, &el, &eh),
                    RLREF_EDOM);
}
END_TEST

/* One ratio per sequence: log-ratios 0.5, -0.5, 0.1 with A = 1, -1, 0.5
 * and eps 0.2: losses -1.2, 0.8, -0.5 e^0.1; a log-ratio of 800 is
 * ERANGE in both backends. */
START_TEST (test_rloo_seq_loss)
{
  double lp[3] = { 0.5, -0.5, 0.1 }, lo[3] = { 0, 0, 0 }, adv[3] = { 1, -1, 0.5 };
  long mask[3] = { 1, 1, 1 };
  double e = 0.2, loss, ratio[3], per[3], big = 800, z = 0, one = 1;
  mpfr_ptr bm = mp1 (800), zm = mp1 (0), om = mp1 (1), em = mp1 (0.2), l1 = tu_mp_vec_new (1, PREC),
    r1 = tu_mp_vec_new (1, PREC), p1 = tu_mp_vec_new (1, PREC);
  TU_OK (rlref_rloo_seq_loss_d (&loss, ratio, per, lp, lo, mask, adv, 3, 1, &e, &e));
  TU_ASSERT_REL (ratio[0], exp (0.5), TU_TOL0);
  TU_ASSERT_REL (per[0], -1.2, TU_TOL0);
  TU_ASSERT_REL (per[1], 0.8, TU_TOL0);
  TU_ASSERT_REL (per[2], -0.5 * exp (0.1), TU_TOL0);
  TU_ASSERT_REL (loss, (-1.2 + 0.8 - 0.5 * exp (0.1)) / 3, TU_TOL1);
  TU_ASSERT_STATUS (rlref_rloo_seq_loss_d (&loss, ratio, per, &big, &z, mask, &one, 1, 1, &e, &e),
                    RLREF_ERANGE);
  TU_ASSERT_STATUS (rlref_rloo_seq_loss_mp (l1, r1, p1, bm, zm, mask, om, 1, 1, em, em),
                    RLREF_ERANGE);
  e = 1;
  TU_ASSERT_STATUS (rlref_rloo_seq_loss_d (&loss, ratio, per, lp, lo, mask, adv, 3, 1, &e, &e),
                    RLREF_EDOM);
  tu_mp_vec_free (bm, 1);
  tu_mp_vec_free (zm, 1);
  tu_mp_vec_free (om, 1);
  tu_mp_vec_free (em, 1);
  tu_mp_vec_free (l1, 1);
  tu_mp_vec_free (r1, 1);
  tu_mp_vec_free (p1, 1);
}
END_TEST

/* 13.28': a fair coin has sigma^2 = 1/4; G = 2 gives Var[b_loo] = sigma^2,
 * 8 -> 16 removes sigma^2/16, 64 -> 128 sigma^2/128; three values with
 * weights 3, 5, 2 against the two-pass sum in MPFR. */
START_TEST (test_var_exact)
{
  double v[2] = { 0, 1 }, s2, vm, vl, rm, v3[3] = { 0.3, -1, 2.5 };
  long w[2] = { 1, 1 }, w3[3] = { 3, 5, 2 }, bad[2] = { 1, -1 };
  mpfr_ptr m3 = tu_mp_vec_from_d (v3, 3, PREC), sm = tu_mp_vec_new (1, PREC);
  mpfr_t mu, t, acc;
  mpfr_inits2 (512, mu, t, acc, (mpfr_ptr) 0);
  TU_OK (rlref_baseline_var_d (&s2, &vm, &vl, &rm, v, w, 2, 2));
  TU_ASSERT_SAME (s2, 0.25);
  TU_ASSERT_SAME (vl, 0.25);
  TU_ASSERT_SAME (vm, 0.125);
  TU_OK (rlref_baseline_var_d (&s2, &vm, &vl, &rm, v, w, 2, 8));
  TU_ASSERT_SAME (rm, 0.25 / 16);
  TU_ASSERT_SAME (vm, 0.25 / 8);
  TU_ASSERT_REL (vl, 0.25 / 7, TU_TOL0);
  TU_OK (rlref_baseline_var_d (&s2, &vm, &vl, &rm, v, w, 2, 64));
  TU_ASSERT_SAME (rm, 0.25 / 128);
  /* mu = (3 (0.3) - 5 + 2 (2.5))/10, sigma^2 = sum w (v - mu)^2 / 10 */
  mpfr_set_zero (mu, 1);
  for (int j = 0; j < 3; j++)
    {
      mpfr_set_d (t, v3[j], MPFR_RNDN);
      mpfr_mul_si (t, t, w3[j], MPFR_RNDN);
      mpfr_add (mu, mu, t, MPFR_RNDN);
    }
  mpfr_div_ui (mu, mu, 10, MPFR_RNDN);
  mpfr_set_zero (acc, 1);
  for (int j = 0; j < 3; j++)
    {
      mpfr_set_d (t, v3[j], MPFR_RNDN);
      mpfr_sub (t, t, mu, MPFR_RNDN);
      mpfr_sqr (t, t, MPFR_RNDN);
      mpfr_mul_si (t, t, w3[j], MPFR_RNDN);
      mpfr_add (acc, acc, t, MPFR_RNDN);
    }
  mpfr_div_ui (acc, acc, 10, MPFR_RNDN);
  TU_OK (rlref_baseline_var_d (&s2, NULL, NULL, NULL, v3, w3, 3, 8));
  TU_ASSERT_REL (s2, mpfr_get_d (acc, MPFR_RNDN), TU_TOL0);
  TU_OK (rlref_baseline_var_mp (sm, NULL, NULL, NULL, m3, w3, 3, 8));
  TU_ASSERT_MP_AGREE (sm, acc, 75);
  /* a value of weight 0 near DBL_MAX beside -1.1e150 and 0 (weights 1, 1):
   * sigma^2 = (1.1e150)^2/4 as if it were absent (its exponent
   * scaled the others' squares into the subnormals: 3.4e-7 off); and the
   * Monte Carlo draws, which never draw it, the same way (1.4e-6 off) */
  {
    double vz[3] = { 0x1.ffffffffffffep+1023, -0x1.38d352e5096afp+498, 0 }, vz2[2] = { vz[1], 0 };
    long wz[3] = { 0, 1, 1 }, wz2[2] = { 1, 1 };
    double a1, a2, b1, b2;
    TU_OK (rlref_baseline_var_d (&s2, NULL, NULL, NULL, vz, wz, 3, 8));
    TU_ASSERT_REL (s2, vz[1] * vz[1] / 4, TU_TOL0);
    TU_OK (rlref_baseline_var_mc_d (&a1, &b1, vz, wz, 3, 8, 10, 1));
    TU_OK (rlref_baseline_var_mc_d (&a2, &b2, vz2, wz2, 2, 8, 10, 1));
    TU_ASSERT_REL (a1, a2, TU_TOL0);
    TU_ASSERT_REL (b1, b2, TU_TOL0);
  }
  TU_ASSERT_STATUS (rlref_baseline_var_d (&s2, &vm, &vl, &rm, v, w, 2, 1), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_baseline_var_d (&s2, &vm, &vl, &rm, v, bad, 2, 2), RLREF_EDOM);
  tu_mp_vec_free (m3, 3);
  tu_mp_vec_free (sm, 1);
  mpfr_clears (mu, t, acc, (mpfr_ptr) 0);
}
END_TEST

/* The seeded run: 20000 groups of G = 8 fair coins estimate 1/32 and 1/28
 * within 5% (the estimates' relative standard error is about 1%); the
 * same seed gives the same run, in both backends. */
START_TEST (test_var_mc)
{
  double v[2] = { 0, 1 }, a, b, a2, b2;
  long w[2] = { 1, 1 };
  mpfr_ptr vm = tu_mp_vec_from_d (v, 2, PREC), am = tu_mp_vec_new (1, PREC),
    bm = tu_mp_vec_new (1, PREC);
  TU_OK (rlref_baseline_var_mc_d (&a, &b, v, w, 2, 8, 20000, 3));
  ck_assert_msg (fabs (a / (1.0 / 32) - 1) < 0.05, "Var[mean] %g, want 1/32", a);
  ck_assert_msg (fabs (b / (1.0 / 28) - 1) < 0.05, "Var[b_loo] %g, want 1/28", b);
  ck_assert (b > a);
  TU_OK (rlref_baseline_var_mc_d (&a2, &b2, v, w, 2, 8, 20000, 3));
  TU_ASSERT_SAME (a2, a);
  TU_ASSERT_SAME (b2, b);
  TU_OK (rlref_baseline_var_mc_mp (am, bm, vm, w, 2, 8, 20000, 3));
  TU_ASSERT_REL (mpfr_get_d (am, MPFR_RNDN), a, TU_TOL1);
  TU_ASSERT_REL (mpfr_get_d (bm, MPFR_RNDN), b, TU_TOL1);
  TU_ASSERT_STATUS (rlref_baseline_var_mc_d (&a, &b, v, w, 2, 8, 1, 3), RLREF_EDOM);
  tu_mp_vec_free (vm, 2);
  tu_mp_vec_free (am, 1);
  tu_mp_vec_free (bm, 1);
}
END_TEST

static const rlref_adv_convention *
conv (const char *name)
{
  const rlref_adv_convention *c = rlref_adv_convention_find (name);
  ck_assert_ptr_nonnull (c);
  return c;
}

/* The difficulty weight: no-std gives G - 1 and rloo G at every p; G = 2:
 * 2 (ddof 0) and sqrt(2) (ddof 1); w(p) against its definition E[sum_i A_i
 * (r_i - p)]/(p (1 - p)) over the 2^6 outcomes of a group of 6; for G =
 * 1024 the per-sample weight nears 1/sqrt(p (1 - p)). */
START_TEST (test_stdbias)
{
  double w, ps, p = 0.3, adv[6], r[6], tot = 0;
  const rlref_adv_convention *c = conv ("seed-003");
  mpfr_ptr pm = mp1 (0.3), wm = tu_mp_vec_new (1, PREC), sm = tu_mp_vec_new (1, PREC);
  static const double pp[3] = { 0.1, 0.5, 0.9 };
  for (int k = 0; k < 3; k++)
    {
      TU_OK (rlref_stdbias_weight_d (&w, &ps, &pp[k], 8, conv ("no-std")));
      TU_ASSERT_REL (w, 7.0, TU_TOL1);
      TU_OK (rlref_stdbias_weight_d (&w, &ps, &pp[k], 8, NULL));
      TU_ASSERT_REL (w, 8.0, TU_TOL1);
    }
  p = 0.5;
  TU_OK (rlref_stdbias_weight_d (&w, &ps, &p, 2, conv ("seed-000")));
  TU_ASSERT_REL (w, 2.0, TU_TOL0);
  TU_OK (rlref_stdbias_weight_d (&w, &ps, &p, 2, c));
  TU_ASSERT_REL (w, sqrt (2.0), TU_TOL0);
  p = 0.3;
  for (int m = 0; m < 64; m++)
    {
      double pr = 1, s = 0;
      for (int i = 0; i < 6; i++)
        {
          r[i] = (m >> i) & 1;
          pr *= r[i] ? p : 1 - p;
        }
      TU_OK (rlref_grpo_adv_d (adv, r, 6, 6, c));
      for (int i = 0; i < 6; i++)
        s += adv[i] * (r[i] - p);
      tot += pr * s;
    }
  TU_OK (rlref_stdbias_weight_d (&w, &ps, &p, 6, c));
  TU_ASSERT_REL (w, tot / (p * (1 - p)), TU_TOL2);
  TU_ASSERT_REL (ps, w / 6, TU_TOL0);
  TU_OK (rlref_stdbias_weight_mp (wm, sm, pm, 6, c));
  TU_ASSERT_REL (mpfr_get_d (wm, MPFR_RNDN), w, TU_TOL1);
  p = 0.5;
  TU_OK (rlref_stdbias_weight_d (&w, &ps, &p, 1024, conv ("seed-000")));
  ck_assert_msg (fabs (ps - 2.0) < 0.01, "per-sample weight %g at G = 1024, want ~2", ps);
  p = 1.5;
  TU_ASSERT_STATUS (rlref_stdbias_weight_d (&w, &ps, &p, 8, c), RLREF_EDOM);
  p = 0.5;
  TU_ASSERT_STATUS (rlref_stdbias_weight_d (&w, &ps, &p, 1, c), RLREF_EDOM);
  tu_mp_vec_free (pm, 1);
  tu_mp_vec_free (wm, 1);
  tu_mp_vec_free (sm, 1);
}
END_TEST

/* ReMax: returns-to-go of [0, 0, 1] and [0, 0.5 | masked] minus the greedy
 * rewards on the response tokens; seed 004's r - r_greedy per prompt. */
START_TEST (test_remax)
{
  double tr[6] = { 0, 0, 1, 0, 0.5, 0.25 }, b[2] = { 0.5, 0.25 }, adv[6], ret[6];
  long mask[6] = { 1, 1, 1, 1, 1, 0 };
  double r[6] = { 1, 0, 1, 1, 0, 0 }, g[2] = { 1, 0 }, a[6];
  static const double want_ret[6] = { 1, 1, 1, 0.5, 0.5, 0 };
  static const double want_adv[6] = { 0.5, 0.5, 0.5, 0.25, 0.25, 0 };
  static const double want_a[6] = { 0, -1, 0, 1, 0, 0 };
  TU_OK (rlref_remax_adv_d (adv, ret, tr, mask, b, 2, 3));
  for (int i = 0; i < 6; i++)
    {
      TU_ASSERT_SAME (ret[i], want_ret[i]);
      TU_ASSERT_SAME (adv[i], want_adv[i]);
    }
  TU_OK (rlref_remax_seq_adv_d (a, r, 6, g, 2));
  for (int i = 0; i < 6; i++)
    TU_ASSERT_SAME (a[i], want_a[i]);
  TU_ASSERT_STATUS (rlref_remax_seq_adv_d (a, r, 5, g, 2), RLREF_EINVAL);
  mask[0] = 2;
  TU_ASSERT_STATUS (rlref_remax_adv_d (adv, ret, tr, mask, b, 2, 3), RLREF_EDOM);
}
END_TEST

/* 13.27 on the bigram tiny LM: pg = E[(r - b) grad log pi] equals grad
 * E[r] for b = 0 and b = 3 (to 70 digits), grad against central
 * differences of E[r] (40 digits), and sq grows away from b ~ E[r]. */
START_TEST (test_lm_baseline)
{
  static const double lg[12] = { 0.5, -0.2, 0.1, 0, 1, -1, 0, 0, 0, 0.3, 0.3, -0.5 };
  static const double rw[5] = { 1, -0.5, 0, -0.25, -1 };
  rlref_lm lm = { .V = 3, .eos = 2, .T = 3, .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_KEEP,
                  .n_rows = 4, .reward = RLREF_REWARD_ADDITIVE };
  mpfr_ptr L = tu_mp_vec_from_d (lg, 12, PREC), R = tu_mp_vec_from_d (rw, 5, PREC);
  mpfr_ptr gr = tu_mp_vec_new (12, PREC), pg = tu_mp_vec_new (12, PREC), v = tu_mp_vec_new (4, PREC);
  mpfr_ptr b0 = mp1 (0), b3 = mp1 (3), bm = mp1 (-0.75);
  mpfr_ptr gs = tu_mp_vec_new (12, PREC), ps = tu_mp_vec_new (12, PREC);
  double gd[12], pd[12], vd, sd, b = 3;
  mpfr_t h, fd;
  mpfr_inits2 (PREC, h, fd, (mpfr_ptr) 0);
  TU_OK (rlref_lm_baseline_mp (v, gr, pg, v + 1, &lm, L, R, b0));
  for (int j = 0; j < 12; j++)
    TU_ASSERT_MP_AGREE (pg + j, gr + j, 70);
  TU_OK (rlref_lm_baseline_mp (v, gr, pg, v + 2, &lm, L, R, b3));
  for (int j = 0; j < 12; j++)
    TU_ASSERT_MP_AGREE (pg + j, gr + j, 70);
  TU_OK (rlref_lm_baseline_mp (v, gr, pg, v + 3, &lm, L, R, bm));
  ck_assert (mpfr_less_p (v + 3, v + 1) && mpfr_less_p (v + 1, v + 2));
  /* d E[r]/d logit_4 by central differences, h = 1e-30 */
  mpfr_set_str (h, "1e-30", 10, MPFR_RNDN);
  mpfr_add (L + 4, L + 4, h, MPFR_RNDN);
  TU_OK (rlref_lm_baseline_mp (fd, gs, ps, v + 1, &lm, L, R, b0));
  mpfr_mul_2ui (h, h, 1, MPFR_RNDN);
  mpfr_sub (L + 4, L + 4, h, MPFR_RNDN);
  TU_OK (rlref_lm_baseline_mp (v, gs, ps, v + 1, &lm, L, R, b0));
  mpfr_sub (fd, fd, v, MPFR_RNDN);
  mpfr_div (fd, fd, h, MPFR_RNDN);
  mpfr_set_d (L + 4, lg[4], MPFR_RNDN);
  TU_OK (rlref_lm_baseline_mp (v, gr, pg, v + 1, &lm, L, R, b0));
  TU_ASSERT_MP_AGREE (gr + 4, fd, 40);
  TU_OK (rlref_lm_baseline_d (&vd, gd, pd, &sd, &lm, lg, rw, &b));
  for (int j = 0; j < 12; j++)
    {
      TU_ASSERT_ABS (pd[j], mpfr_get_d (gr + j, MPFR_RNDN), TU_TOL2);
      TU_ASSERT_ABS (gd[j], mpfr_get_d (gr + j, MPFR_RNDN), TU_TOL1);
    }
  b = NAN;
  TU_ASSERT_STATUS (rlref_lm_baseline_d (&vd, gd, pd, &sd, &lm, lg, rw, &b), RLREF_ENAN);
  tu_mp_vec_free (L, 12);
  tu_mp_vec_free (R, 5);
  tu_mp_vec_free (gr, 12);
  tu_mp_vec_free (pg, 12);
  tu_mp_vec_free (v, 4);
  tu_mp_vec_free (b0, 1);
  tu_mp_vec_free (b3, 1);
  tu_mp_vec_free (bm, 1);
  tu_mp_vec_free (gs, 12);
  tu_mp_vec_free (ps, 12);
  mpfr_clears (h, fd, (mpfr_ptr) 0);
}
END_TEST

/* 13.27 with a baseline far from every reward, b = -2^325: the terms
 * pi(y) (r - b) grad log pi(y) are about 2^325 and cancel to grad E[r];
 * binary64 keeps it (the program rounded once), where a binary64 sum of
 * those terms is off by 1e81. */
START_TEST (test_lm_baseline_far)
{
  static const double lg[12] = { 0.5, -0.2, 0.1, 0, 1, -1, 0, 0, 0, 0.3, 0.3, -0.5 };
  static const double rw[5] = { 1, -0.5, 0, -0.25, -1 };
  rlref_lm lm = { .V = 3, .eos = 2, .T = 3, .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_KEEP,
                  .n_rows = 4, .reward = RLREF_REWARD_ADDITIVE };
  mpfr_ptr L = tu_mp_vec_from_d (lg, 12, PREC), R = tu_mp_vec_from_d (rw, 5, PREC);
  mpfr_ptr gr = tu_mp_vec_new (12, PREC), pg = tu_mp_vec_new (12, PREC), v = tu_mp_vec_new (2, PREC);
  mpfr_ptr b0 = mp1 (0);
  double gd[12], pd[12], vd, sd, b = -0x1p325;
  TU_OK (rlref_lm_baseline_mp (v, gr, pg, v + 1, &lm, L, R, b0));
  TU_OK (rlref_lm_baseline_d (&vd, gd, pd, &sd, &lm, lg, rw, &b));
  for (int j = 0; j < 12; j++)
    {
      TU_ASSERT_ABS (pd[j], mpfr_get_d (gr + j, MPFR_RNDN), TU_TOL1);
      TU_ASSERT_SAME (gd[j], mpfr_get_d (gr + j, MPFR_RNDN));
    }
  tu_mp_vec_free (L, 12);
  tu_mp_vec_free (R, 5);
  tu_mp_vec_free (gr, 12);
  tu_mp_vec_free (pg, 12);
  tu_mp_vec_free (v, 2);
  tu_mp_vec_free (b0, 1);
}
END_TEST

static Suite *
grpobase_suite (void)
{
  Suite *s = suite_create ("grpobase");
  TCase *tc;

  tc = tu_tcase ("advantage");
  tcase_add_test (tc, test_adv_bound);
  tcase_add_test (tc, test_adv_scale);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("rloo");
  tcase_add_test (tc, test_rloo_adv);
  tcase_add_test (tc, test_rloo_openrlhf);
  tcase_add_test (tc, test_rloo_random);
  tcase_add_test (tc, test_rloo_identity);
  tcase_add_test (tc, test_rloo_kl);
  tcase_add_test (tc, test_rloo_kl_verl);
  tcase_add_test (tc, test_rloo_kl_after_baseline);
  tcase_add_test (tc, test_rloo_token_loss);
  tcase_add_test (tc, test_rloo_seq_loss);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("variance");
  tcase_add_test (tc, test_var_exact);
  tcase_add_test (tc, test_var_mc);
  tcase_add_test (tc, test_stdbias);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("remax-baseline");
  tcase_add_test (tc, test_remax);
  tcase_add_test (tc, test_lm_baseline);
  tcase_add_test (tc, test_lm_baseline_far);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN (grpobase_suite)
