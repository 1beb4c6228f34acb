/* test_prefpairs.c -- PREF-PAIRS: a ranking as its C(K,2) pairwise
 * Bradley-Terry losses, the pair counts of counted rankings, the pairwise
 * maximum-likelihood fit and its comparison with the Plackett-Luce fit, in
 * binary64 (_d) and MPFR (_mp).
 *
 * Expected values: closed forms (C(K,2) log 2 for equal scores, the
 * constant gradient (2 pos - K + 1)/2, log 4 for 8 of 10, log w - mean for
 * counts proportional to Plackett-Luce probabilities); the definition
 * evaluated directly with MPFR at 512 bits (each pair's log(1 + e^{s_l -
 * s_w}) and 1/(1 + e^{-x})); central differences at 256 bits for the
 * gradient; the stationarity of the fit checked with the loss's own
 * gradient.  The generic test holds every function to the aliasing rule
 * of reference/README.md; the scaled path near 1e308 is held to it here. */
#include "testutil.h"

#define PREC 256
#define HIGH 512
/* log 2 rounded to binary64 */
#define LN2_D 0x1.62e42fefa39efp-1

/* log(1 + e^x) at the precision of r, from its definition. */
static void
mp_softplus (mpfr_ptr r, double x)
{
  mpfr_set_d (r, x, MPFR_RNDN);
  mpfr_exp (r, r, MPFR_RNDN);
  mpfr_log1p (r, r, MPFR_RNDN);
}

/* The summed pair loss of ranking pi at HIGH bits, from its definition:
 * sum_{k<l} log(1 + e^{s_{pi_l} - s_{pi_k}}). */
static void
mp_pairs_sum (mpfr_ptr r, const double *s, const long *pi, size_t K)
{
  mpfr_t t;
  mpfr_init2 (t, HIGH);
  mpfr_set_zero (r, 1);
  for (size_t k = 0; k < K; k++)
    for (size_t l = k + 1; l < K; l++)
      {
        mpfr_set_d (t, s[pi[l]], MPFR_RNDN);
        mpfr_sub_d (t, t, s[pi[k]], MPFR_RNDN);
        mpfr_exp (t, t, MPFR_RNDN);
        mpfr_log1p (t, t, MPFR_RNDN);
        mpfr_add (r, r, t, MPFR_RNDN);
      }
  mpfr_clear (t);
}

/* Equal scores: every pair is 1/2, the summed loss C(K,2) log 2, the mean
 * log 2, and the gradient the exact constant (2 pos - K + 1)/2 (over
 * C(K,2) for the mean); loglik = -6 log 2 either way. */
START_TEST (test_pairs_equal_scores)
{
  static const long pi[4] = { 3, 1, 0, 2 };
  static const double pos_grad[4] = { 0.5, -0.5, 1.5, -1.5 };   /* items 0..3 */
  double s[4] = { 0, 0, 0, 0 }, loss, ll, g[4];
  mpfr_ptr x = tu_mp_vec_from_d (s, 4, PREC), gm = tu_mp_vec_new (4, PREC);
  mpfr_t l, lm, ln2;
  mpfr_inits2 (PREC, l, lm, ln2, (mpfr_ptr) 0);
  mpfr_const_log2 (ln2, MPFR_RNDN);
  TU_OK (rlref_pairs_loss_d (&loss, &ll, g, s, pi, 4, 0));
  TU_ASSERT_REL (loss, 6 * LN2_D, TU_TOL0);
  TU_ASSERT_REL (ll, -6 * LN2_D, TU_TOL0);
  for (int i = 0; i < 4; i++)
    TU_ASSERT_SAME (g[i], pos_grad[i]);
  TU_OK (rlref_pairs_loss_d (&loss, &ll, g, s, pi, 4, 1));
  TU_ASSERT_REL (loss, LN2_D, TU_TOL0);
  for (int i = 0; i < 4; i++)
    TU_ASSERT_REL (g[i], pos_grad[i] / 6, TU_TOL0);
  TU_OK (rlref_pairs_loss_mp (l, lm, gm, x, pi, 4, 1));
  TU_ASSERT_MP_AGREE (l, ln2, 75);
  mpfr_mul_si (ln2, ln2, -6, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (lm, ln2, 75);
  for (int i = 0; i < 4; i++)
    {
      mpfr_set_d (l, pos_grad[i], MPFR_RNDN);
      mpfr_div_ui (l, l, 6, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (gm + i, l, 75);
    }
  tu_mp_vec_free (x, 4);
  tu_mp_vec_free (gm, 4);
  mpfr_clears (l, lm, ln2, (mpfr_ptr) 0);
}
END_TEST

/* K = 2 is one Bradley-Terry pair: loss = log(1 + e^{s_l - s_w}) (13.7),
 * the same summed or averaged; grad = (-sigma(-d), sigma(-d)). */
START_TEST (test_pairs_two_items)
{
  static const long pi[2] = { 1, 0 };
  double s[2] = { 2.0, 0.0 }, loss, ll, g[2];
  mpfr_ptr x = tu_mp_vec_from_d (s, 2, PREC), gm = tu_mp_vec_new (2, PREC);
  mpfr_t l, lm, want, sg;
  mpfr_inits2 (PREC, l, lm, (mpfr_ptr) 0);
  mpfr_inits2 (HIGH, want, sg, (mpfr_ptr) 0);
  mp_softplus (want, 2.0);                       /* winner 1 (score 0), loser 0 (score 2) */
  mpfr_set_d (sg, -2.0, MPFR_RNDN);              /* sigma(s_0 - s_1) = 1/(1 + e^-2) */
  mpfr_exp (sg, sg, MPFR_RNDN);
  mpfr_add_ui (sg, sg, 1, MPFR_RNDN);
  mpfr_ui_div (sg, 1, sg, MPFR_RNDN);
  for (int mean = 0; mean < 2; mean++)
    {
      TU_OK (rlref_pairs_loss_d (&loss, &ll, g, s, pi, 2, mean));
      TU_ASSERT_REL (loss, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
      TU_ASSERT_REL (g[0], mpfr_get_d (sg, MPFR_RNDN), TU_TOL1);
      TU_ASSERT_REL (g[1], -mpfr_get_d (sg, MPFR_RNDN), TU_TOL1);
      TU_OK (rlref_pairs_loss_mp (l, lm, gm, x, pi, 2, mean));
      TU_ASSERT_MP_AGREE (l, want, 75);
      TU_ASSERT_MP_AGREE (gm, sg, 75);
    }
  tu_mp_vec_free (x, 2);
  tu_mp_vec_free (gm, 2);
  mpfr_clears (l, lm, want, sg, (mpfr_ptr) 0);
}
END_TEST

/* K = 5: the loss is the sum of the ten pair losses evaluated directly
 * at 512 bits (75 digits at 256 bits, 16 eps in double); the mean is it
 * over 10; loglik its negative. */
START_TEST (test_pairs_sum_of_pair_losses)
{
  static const long pi[5] = { 3, 2, 0, 4, 1 };
  double s[5] = { 0.3, -1.2, 0.7, 2.0, 0.1 }, loss, ll;
  mpfr_ptr x = tu_mp_vec_from_d (s, 5, PREC);
  mpfr_t l, lm, want;
  mpfr_inits2 (PREC, l, lm, (mpfr_ptr) 0);
  mpfr_init2 (want, HIGH);
  mp_pairs_sum (want, s, pi, 5);
  TU_OK (rlref_pairs_loss_d (&loss, &ll, NULL, s, pi, 5, 0));
  TU_ASSERT_REL (loss, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  TU_ASSERT_REL (ll, -mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  TU_OK (rlref_pairs_loss_mp (l, lm, NULL, x, pi, 5, 0));
  TU_ASSERT_MP_AGREE (l, want, 75);
  mpfr_neg (lm, lm, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (lm, want, 75);
  TU_OK (rlref_pairs_loss_mp (l, lm, NULL, x, pi, 5, 1));
  mpfr_div_ui (want, want, 10, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (l, want, 75);
  tu_mp_vec_free (x, 5);
  mpfr_clears (l, lm, want, (mpfr_ptr) 0);
}
END_TEST

/* The gradient against central differences of the summed loss at 256 bits
 * (h = 2^-80: truncation ~1e-48, rounding ~1e-53): 40 digits. */
START_TEST (test_pairs_gradient_fd)
{
  static const long pi[5] = { 3, 2, 0, 4, 1 };
  double s[5] = { 0.3, -1.2, 0.7, 2.0, 0.1 };
  mpfr_ptr x = tu_mp_vec_from_d (s, 5, PREC), g = tu_mp_vec_new (5, PREC);
  mpfr_t l, ll, lp, lm, d;
  mpfr_inits2 (PREC, l, ll, lp, lm, d, (mpfr_ptr) 0);
  TU_OK (rlref_pairs_loss_mp (l, ll, g, x, pi, 5, 0));
  for (int i = 0; i < 5; i++)
    {
      mpfr_set_d (x + i, s[i], MPFR_RNDN);
      mpfr_add_d (x + i, x + i, 0x1p-80, MPFR_RNDN);
      TU_OK (rlref_pairs_loss_mp (lp, ll, NULL, x, pi, 5, 0));
      mpfr_set_d (x + i, s[i], MPFR_RNDN);
      mpfr_sub_d (x + i, x + i, 0x1p-80, MPFR_RNDN);
      TU_OK (rlref_pairs_loss_mp (lm, ll, NULL, x, pi, 5, 0));
      mpfr_set_d (x + i, s[i], MPFR_RNDN);
      mpfr_sub (d, lp, lm, MPFR_RNDN);
      mpfr_mul_2si (d, d, 79, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (g + i, d, 40);
    }
  tu_mp_vec_free (x, 5);
  tu_mp_vec_free (g, 5);
  mpfr_clears (l, ll, lp, lm, d, (mpfr_ptr) 0);
}
END_TEST

/* Gradients whose sigmoids cancel: scores (3e-10, 1e-10, 0) in their own
 * order give grad_1 = sigma(s_1 - s_0) - sigma(s_2 - s_1) = sigma(-2e-10)
 * - sigma(-1e-10) ~ -2.5e-11, and scores (40, 0, -40) give grad_2 =
 * sigma(-80) + sigma(-40) - 1 + 1 ~ 4.2e-18, the sigmoids near 1/2 and 1
 * summing to nothing; binary64 keeps 14 digits of both (the differences
 * are evaluated directly at 512 bits). */
START_TEST (test_pairs_cancelling_gradient)
{
  static const long pi[3] = { 0, 1, 2 };
  double s[3] = { 3e-10, 1e-10, 0 }, t[3] = { 40, 0, -40 }, loss, ll, g[3];
  mpfr_t a, b;
  mpfr_inits2 (HIGH, a, b, (mpfr_ptr) 0);
  /* sigma(x) = 1/(1 + e^-x) */
  mpfr_set_d (a, 2e-10, MPFR_RNDN);
  mpfr_exp (a, a, MPFR_RNDN);
  mpfr_add_ui (a, a, 1, MPFR_RNDN);
  mpfr_ui_div (a, 1, a, MPFR_RNDN);
  mpfr_set_d (b, 1e-10, MPFR_RNDN);
  mpfr_exp (b, b, MPFR_RNDN);
  mpfr_add_ui (b, b, 1, MPFR_RNDN);
  mpfr_ui_div (b, 1, b, MPFR_RNDN);
  mpfr_sub (a, a, b, MPFR_RNDN);
  TU_OK (rlref_pairs_loss_d (&loss, &ll, g, s, pi, 3, 0));
  TU_ASSERT_REL (g[1], mpfr_get_d (a, MPFR_RNDN), 1e-14);
  mpfr_set_d (a, 40, MPFR_RNDN);
  mpfr_exp (a, a, MPFR_RNDN);
  mpfr_add_ui (a, a, 1, MPFR_RNDN);
  mpfr_ui_div (a, 1, a, MPFR_RNDN);
  mpfr_set_d (b, 80, MPFR_RNDN);
  mpfr_exp (b, b, MPFR_RNDN);
  mpfr_add_ui (b, b, 1, MPFR_RNDN);
  mpfr_ui_div (b, 1, b, MPFR_RNDN);
  mpfr_add (a, a, b, MPFR_RNDN);
  TU_OK (rlref_pairs_loss_d (&loss, &ll, g, t, pi, 3, 0));
  TU_ASSERT_REL (g[2], mpfr_get_d (a, MPFR_RNDN), 1e-14);
  TU_ASSERT_REL (g[0], -mpfr_get_d (a, MPFR_RNDN), 1e-14);
  TU_ASSERT_SAME (g[1], 0.0);
  mpfr_clears (a, b, (mpfr_ptr) 0);
}
END_TEST

/* Scores near the end of the range: (-1e308, 1e308, 0) in the order 0, 1,
 * 2 cost 2e308 + 1e308 + log1p(e^-1e308) = 3e308: beyond binary64 summed
 * (ERANGE, loss +inf), but 1e308 averaged over the three pairs (loss
 * finite, loglik -inf, ERANGE); MPFR has the range for both. */
START_TEST (test_pairs_near_overflow)
{
  static const long pi[3] = { 0, 1, 2 };
  double s[3] = { -1e308, 1e308, 0 }, loss, ll;
  mpfr_ptr x = tu_mp_vec_from_d (s, 3, PREC);
  mpfr_t l, lm;
  mpfr_inits2 (PREC, l, lm, (mpfr_ptr) 0);
  TU_ASSERT_STATUS (rlref_pairs_loss_d (&loss, &ll, NULL, s, pi, 3, 0), RLREF_ERANGE);
  ck_assert (isinf (loss) && loss > 0 && isinf (ll) && ll < 0);
  TU_ASSERT_STATUS (rlref_pairs_loss_d (&loss, &ll, NULL, s, pi, 3, 1), RLREF_ERANGE);
  TU_ASSERT_REL (loss, 1e308, TU_TOL0);
  TU_OK (rlref_pairs_loss_mp (l, lm, NULL, x, pi, 3, 1));
  TU_ASSERT_REL (mpfr_get_d (l, MPFR_RNDN), 1e308, TU_TOL0);
  tu_mp_vec_free (x, 3);
  mpfr_clears (l, lm, (mpfr_ptr) 0);
}
END_TEST

/* Bad input: fewer than two items, a ranking that is not a permutation
 * (EINVAL); a NaN or infinite score (ENAN); the outputs untouched. */
START_TEST (test_pairs_bad_inputs)
{
  static const long ok[3] = { 0, 1, 2 }, dup[3] = { 0, 0, 1 }, out[3] = { 0, 1, 3 };
  double s[3] = { 1, 2, 3 }, loss = 7, ll = 7, g[3];
  double n[3] = { 1, NAN, 3 }, inf[3] = { 1, INFINITY, 3 };
  TU_ASSERT_STATUS (rlref_pairs_loss_d (&loss, &ll, g, s, ok, 1, 0), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pairs_loss_d (&loss, &ll, g, s, dup, 3, 0), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pairs_loss_d (&loss, &ll, g, s, out, 3, 1), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pairs_loss_d (&loss, &ll, g, n, ok, 3, 0), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_pairs_loss_d (&loss, &ll, g, inf, ok, 3, 0), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_pairs_loss_d (NULL, &ll, g, s, ok, 3, 0), RLREF_EINVAL);
  TU_ASSERT_SAME (loss, 7.0);
  TU_ASSERT_SAME (ll, 7.0);
}
END_TEST

/* Pair counts: (0,1,2) three times and (2,1,0) once give W01 = W02 = W12 =
 * 3 and W10 = W20 = W21 = 1.  Counts 1, 1e-16 and 1e-16 of rankings that
 * all place 0 above 1 sum exactly, rounded once, to 1 + 2^-52 (added in
 * turn, each 1e-16 would be lost). */
START_TEST (test_pairs_wins)
{
  static const long rk[6] = { 0, 1, 2, 2, 1, 0 }, rk3[9] = { 0, 1, 2, 0, 2, 1, 2, 0, 1 };
  static const double want[9] = { 0, 3, 3, 1, 0, 3, 1, 1, 0 };
  double c[2] = { 3, 1 }, c3[3] = { 1, 1e-16, 1e-16 }, w[9];
  mpfr_ptr cm = tu_mp_vec_from_d (c, 2, PREC), wm = tu_mp_vec_new (9, PREC);
  TU_OK (rlref_pairs_wins_d (w, rk, c, 2, 3));
  for (int i = 0; i < 9; i++)
    TU_ASSERT_SAME (w[i], want[i]);
  TU_OK (rlref_pairs_wins_mp (wm, rk, cm, 2, 3));
  for (int i = 0; i < 9; i++)
    ck_assert (mpfr_cmp_d (wm + i, want[i]) == 0);
  TU_OK (rlref_pairs_wins_d (w, rk3, c3, 3, 3));
  TU_ASSERT_SAME (w[0 * 3 + 1], 0x1.0000000000001p+0);
  TU_ASSERT_SAME (w[0 * 3 + 2], 1.0);
  TU_ASSERT_SAME (w[2 * 3 + 1], 2e-16);
  TU_ASSERT_SAME (w[1 * 3 + 0], 0.0);
  TU_ASSERT_STATUS (rlref_pairs_wins_d (w, rk, c, 0, 3), RLREF_EINVAL);
  c[1] = -1;
  TU_ASSERT_STATUS (rlref_pairs_wins_d (w, rk, c, 2, 3), RLREF_EDOM);
  tu_mp_vec_free (cm, 2);
  tu_mp_vec_free (wm, 9);
}
END_TEST

/* K = 2, 8 of 10 (seed 000 section 2.1): scores +-log(2) (delta = log 4),
 * loglik = 8 log 0.8 + 2 log 0.2, in both fits; 70 digits at 256 bits,
 * 256 eps in double. */
START_TEST (test_pairs_mle_eight_of_ten)
{
  static const long rk[4] = { 0, 1, 1, 0 };
  double c[2] = { 8, 2 }, s[2], ll, sp[2], sb[2], a, b, d;
  mpfr_ptr cm = tu_mp_vec_from_d (c, 2, PREC), sm = tu_mp_vec_new (2, PREC);
  mpfr_t l, ln2, want, t;
  mpfr_inits2 (PREC, l, ln2, want, t, (mpfr_ptr) 0);
  mpfr_const_log2 (ln2, MPFR_RNDN);
  mpfr_set_ui (want, 4, MPFR_RNDN);              /* 8 log(4/5) + 2 log(1/5) */
  mpfr_div_ui (want, want, 5, MPFR_RNDN);
  mpfr_log (want, want, MPFR_RNDN);
  mpfr_mul_ui (want, want, 8, MPFR_RNDN);
  mpfr_set_ui (t, 5, MPFR_RNDN);
  mpfr_log (t, t, MPFR_RNDN);
  mpfr_mul_ui (t, t, 2, MPFR_RNDN);
  mpfr_sub (want, want, t, MPFR_RNDN);
  TU_OK (rlref_pairs_mle_mp (sm, l, rk, cm, 2, 2));
  TU_ASSERT_MP_AGREE (sm, ln2, 70);
  mpfr_neg (sm + 1, sm + 1, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (sm + 1, ln2, 70);
  TU_ASSERT_MP_AGREE (l, want, 70);
  TU_OK (rlref_pairs_mle_d (s, &ll, rk, c, 2, 2));
  TU_ASSERT_SAME (s[0], LN2_D);
  TU_ASSERT_SAME (s[1], -LN2_D);
  TU_ASSERT_SAME (ll, mpfr_get_d (want, MPFR_RNDN));
  TU_OK (rlref_pairs_compare_d (sp, sb, &a, &b, &d, rk, c, 2, 2));
  TU_ASSERT_SAME (sp[0], LN2_D);
  TU_ASSERT_SAME (sb[0], LN2_D);
  TU_ASSERT_SAME (a, mpfr_get_d (want, MPFR_RNDN));
  TU_ASSERT_SAME (b, mpfr_get_d (want, MPFR_RNDN));
  TU_ASSERT_SAME (d, mpfr_get_d (want, MPFR_RNDN));
  tu_mp_vec_free (cm, 2);
  tu_mp_vec_free (sm, 2);
  mpfr_clears (l, ln2, want, t, (mpfr_ptr) 0);
}
END_TEST

/* Counts proportional to the Plackett-Luce probabilities of weights
 * (3, 2, 1): a PL pair marginal is BT (P(i above j) = w_i/(w_i + w_j)), so
 * both fits are log w - log(6)/3, 70 digits; the PL log-likelihood at the
 * pairwise scores equals its maximum (70 digits). */
START_TEST (test_pairs_proportional_counts)
{
  static const long rk[18] = { 0, 1, 2, 0, 2, 1, 1, 0, 2, 1, 2, 0, 2, 0, 1, 2, 1, 0 };
  double c[6] = { 20, 10, 15, 5, 6, 4 }, sp[3], sb[3], a, b, d;
  mpfr_ptr cm = tu_mp_vec_from_d (c, 6, PREC), spm = tu_mp_vec_new (3, PREC);
  mpfr_ptr sbm = tu_mp_vec_new (3, PREC);
  mpfr_t am, bm, dm, want, l6;
  mpfr_inits2 (PREC, am, bm, dm, want, l6, (mpfr_ptr) 0);
  TU_OK (rlref_pairs_compare_mp (spm, sbm, am, dm, bm, rk, cm, 6, 3));
  TU_OK (rlref_pairs_compare_d (sp, sb, &a, &d, &b, rk, c, 6, 3));
  mpfr_set_ui (l6, 6, MPFR_RNDN);
  mpfr_log (l6, l6, MPFR_RNDN);
  mpfr_div_ui (l6, l6, 3, MPFR_RNDN);
  for (int i = 0; i < 3; i++)
    {
      mpfr_set_ui (want, (unsigned long) (3 - i), MPFR_RNDN);
      mpfr_log (want, want, MPFR_RNDN);
      mpfr_sub (want, want, l6, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (spm + i, want, 70);
      TU_ASSERT_MP_AGREE (sbm + i, want, 70);
      TU_ASSERT_SAME (sp[i], mpfr_get_d (want, MPFR_RNDN));
      TU_ASSERT_SAME (sb[i], mpfr_get_d (want, MPFR_RNDN));
    }
  TU_ASSERT_MP_AGREE (dm, am, 70);
  TU_ASSERT_SAME (d, a);
  tu_mp_vec_free (cm, 6);
  tu_mp_vec_free (spm, 3);
  tu_mp_vec_free (sbm, 3);
  mpfr_clears (am, bm, dm, want, l6, (mpfr_ptr) 0);
}
END_TEST

/* Counts no Plackett-Luce model reproduces: at the pairwise fit, the
 * counted sum of the pair losses' gradients (pairs_loss, a separate
 * computation) vanishes (|.| <= 1e-65) and the counted sum of their
 * log-likelihoods is loglik (72 digits); the PL log-likelihood there is
 * below the PL maximum, which equals pl_mle's; the fits differ by more
 * than 0.1.  Scaling the counts by 2^1000 leaves the scores. */
START_TEST (test_pairs_fit_stationary)
{
  static const long rk[9] = { 0, 1, 2, 1, 0, 2, 2, 0, 1 };
  double c[3] = { 3, 2, 1 }, cbig[3], s[3], sbig[3], ll;
  mpfr_ptr cm = tu_mp_vec_from_d (c, 3, PREC), s1 = tu_mp_vec_new (3, PREC);
  mpfr_ptr s2 = tu_mp_vec_new (3, PREC), g = tu_mp_vec_new (3, PREC);
  mpfr_ptr gsum = tu_mp_vec_new (3, PREC), spl = tu_mp_vec_new (3, PREC);
  mpfr_t l, lp, lb, la, lpl, lm, t, total;
  mpfr_inits2 (PREC, l, lp, lb, la, lpl, lm, t, total, (mpfr_ptr) 0);
  TU_OK (rlref_pairs_mle_mp (s1, l, rk, cm, 3, 3));
  mpfr_set_zero (total, 1);
  for (int m = 0; m < 3; m++)
    {
      TU_OK (rlref_pairs_loss_mp (t, lm, g, s1, rk + 3 * m, 3, 0));
      mpfr_mul_d (lm, lm, c[m], MPFR_RNDN);
      mpfr_add (total, total, lm, MPFR_RNDN);
      for (int i = 0; i < 3; i++)
        {
          mpfr_mul_d (t, g + i, c[m], MPFR_RNDN);
          mpfr_add (gsum + i, gsum + i, t, MPFR_RNDN);
        }
    }
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_SMALL (gsum + i, 1e-65);
  TU_ASSERT_MP_AGREE (l, total, 72);
  TU_OK (rlref_pairs_compare_mp (spl, s2, lp, la, lb, rk, cm, 3, 3));
  TU_OK (rlref_pl_mle_mp (g, lpl, rk, cm, 3, 3));
  TU_ASSERT_MP_AGREE (lp, lpl, 72);
  TU_ASSERT_MP_AGREE (lb, l, 72);
  ck_assert (mpfr_cmp (la, lp) < 0);
  for (int i = 0; i < 3; i++)
    TU_ASSERT_MP_AGREE (s2 + i, s1 + i, 72);
  mpfr_sub (t, spl, s1, MPFR_RNDN);
  ck_assert (mpfr_cmpabs_ui (t, 0) > 0 && fabs (mpfr_get_d (t, MPFR_RNDN)) > 0.1);
  TU_OK (rlref_pairs_mle_d (s, &ll, rk, c, 3, 3));
  for (int m = 0; m < 3; m++)
    cbig[m] = ldexp (c[m], 1000);
  TU_OK (rlref_pairs_mle_d (sbig, &ll, rk, cbig, 3, 3));
  for (int i = 0; i < 3; i++)
    {
      TU_ASSERT_REL (s[i], mpfr_get_d (s1 + i, MPFR_RNDN), TU_TOL2);
      TU_ASSERT_REL (sbig[i], s[i], TU_TOL2);
    }
  TU_ASSERT_REL (ll, ldexp (mpfr_get_d (l, MPFR_RNDN), 1000), TU_TOL2);
  tu_mp_vec_free (cm, 3);
  tu_mp_vec_free (s1, 3);
  tu_mp_vec_free (s2, 3);
  tu_mp_vec_free (g, 3);
  tu_mp_vec_free (gsum, 3);
  tu_mp_vec_free (spl, 3);
  mpfr_clears (l, lp, lb, la, lpl, lm, t, total, (mpfr_ptr) 0);
}
END_TEST

/* Fits without a maximum (item 0 always first, also when the reversing
 * ranking has count 0) and negative counts: EDOM; NaN counts: ENAN;
 * rankings that are not permutations: EINVAL. */
START_TEST (test_pairs_mle_bad_inputs)
{
  static const long rk[6] = { 0, 1, 2, 2, 1, 0 }, top0[6] = { 0, 1, 2, 0, 2, 1 };
  static const long bad[6] = { 0, 1, 1, 2, 1, 0 };
  double cok[2] = { 3, 2 }, czero[2] = { 3, 0 }, cneg[2] = { 3, -1 }, cnan[2] = { 3, NAN };
  double s[3], ll, sp[3], a, b, d;
  TU_ASSERT_STATUS (rlref_pairs_mle_d (s, &ll, top0, cok, 2, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_pairs_mle_d (s, &ll, rk, czero, 2, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_pairs_mle_d (s, &ll, rk, cneg, 2, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_pairs_mle_d (s, &ll, rk, cnan, 2, 3), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_pairs_mle_d (s, &ll, bad, cok, 2, 3), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_pairs_compare_d (sp, s, &a, &b, &d, top0, cok, 2, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_pairs_compare_d (sp, s, &a, &b, &d, rk, cok, 0, 3), RLREF_EINVAL);
  TU_OK (rlref_pairs_mle_d (s, &ll, rk, cok, 2, 3));
}
END_TEST

/* --- aliasing ------------------------------------------------------------ */

/* The generic test holds PREF-PAIRS to the aliasing rule on its golden
 * cases; no golden case reaches the mean's scaled path near 1e308.
 * Slots: loss, loglik, grad; scores. */
static int
pairs_d (double *const *x, const void *ctx)
{
  return rlref_pairs_loss_d (x[0], x[1], x[2], x[3], ctx, 3, 1);
}

static int
pairs_mp (mpfr_ptr const *x, const void *ctx)
{
  return rlref_pairs_loss_mp (x[0], x[1], x[2], x[3], ctx, 3, 1);
}

/* The gradient over the scores on the scaled path of the mean. */
START_TEST (test_pairs_aliasing)
{
  static const long r0[3] = { 0, 1, 2 };
  static const double big[3] = { -1e308, 1e308, 0 };
  tu_alias_case cb = { "pairs_loss near 1e308", 4, 3, { 1, 1, 3, 3 },
                       { NULL, NULL, NULL, big }, pairs_d, pairs_mp, r0 };
  ck_assert_int_eq (tu_check_aliasing (&cb), 1);
}
END_TEST

static Suite *
prefpairs_suite (void)
{
  Suite *s = suite_create ("prefpairs");
  TCase *tc;

  tc = tu_tcase ("loss");
  tcase_add_test (tc, test_pairs_equal_scores);
  tcase_add_test (tc, test_pairs_two_items);
  tcase_add_test (tc, test_pairs_sum_of_pair_losses);
  tcase_add_test (tc, test_pairs_gradient_fd);
  tcase_add_test (tc, test_pairs_cancelling_gradient);
  tcase_add_test (tc, test_pairs_near_overflow);
  tcase_add_test (tc, test_pairs_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("fits");
  tcase_add_test (tc, test_pairs_wins);
  tcase_add_test (tc, test_pairs_mle_eight_of_ten);
  tcase_add_test (tc, test_pairs_proportional_counts);
  tcase_add_test (tc, test_pairs_fit_stationary);
  tcase_add_test (tc, test_pairs_mle_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("aliasing");
  tcase_add_test (tc, test_pairs_aliasing);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN (prefpairs_suite)
