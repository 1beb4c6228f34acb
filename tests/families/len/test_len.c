/* test_len.c -- length bias and entropy collapse (LEN-*, ENT-*): the
 * per-token weights of the loss normalisations, the exact expected length
 * drift of one update and the entropy along exact-gradient training on the
 * think-then-answer model, in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: the detector of CONVENTIONS.md "Loss aggregation" and
 * seed 000's 100- and 1000-token responses (closed forms); on the model
 * with T = 1 the direction and d E[r] in closed form; the derivative of
 * E[|y|] against central differences of the one-step change (a different
 * computation: the policy at theta + eta g, no score function); values of
 * the independent mpmath evaluator (tests/families/len/len.py, every
 * ordered group enumerated, its derivatives by mpmath's numerical
 * differentiation) at 200 bits; identities between the recipes (mu = 1:
 * no clip is active; dynamic sampling = a step 1/P(kept) larger). */
#include "testutil.h"

#define PREC 256
#define HIGH 512

static mpfr_ptr
mp_from (const double *x, size_t n)
{
  return tu_mp_vec_from_d (x, n, rlref_mp_prec ());
}

/* --- LEN-WEIGHTS ----------------------------------------------------------- */

/* sum_i w_i sum_t L_i,t for per-token losses [[2], [1, 1, 1]] (lengths 1
 * and 3): CONVENTIONS.md's detector 1.5 (seq-mean-token-mean), 1.25
 * (token-mean), 2.5 (seq-mean-token-sum), 0.625 (L_const = 4); and the
 * seed's example: 100 and 1000 tokens, 1/200 and 1/2000 under 13.24,
 * 1/1100 under 13.33; two groups (1, 3, 2) and (2, 10, 20): the group mean
 * lengths 2 and 32/3 give 1/12 and 1/64 (B = 6). */
START_TEST (test_weights_closed_forms)
{
  static const double len[2] = { 1, 3 }, sums[2] = { 2, 3 };
  static const rlref_len_norm norm[4] = { RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, RLREF_LEN_TOKEN_MEAN,
                                          RLREF_LEN_SEQ_MEAN_TOKEN_SUM,
                                          RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM };
  static const double want[4] = { 1.5, 1.25, 2.5, 0.625 };
  double w[6], share[6], total, four = 4, loss;
  for (int k = 0; k < 4; k++)
    {
      TU_OK (rlref_len_weights_d (w, share, &total, len, 2, 2, norm[k], &four));
      loss = w[0] * sums[0] + w[1] * sums[1];
      TU_ASSERT_REL (loss, want[k], TU_TOL0);
    }
  {
    static const double lm[2] = { 100, 1000 };
    TU_OK (rlref_len_weights_d (w, share, &total, lm, 2, 2, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN,
                                NULL));
    TU_ASSERT_REL (w[0], 1.0 / 200, TU_TOL0);
    TU_ASSERT_REL (w[1], 1.0 / 2000, TU_TOL0);
    TU_ASSERT_REL (share[0], 0.5, TU_TOL0);
    TU_ASSERT_REL (total, 1.0, TU_TOL0);
    TU_OK (rlref_len_weights_d (w, share, &total, lm, 2, 2, RLREF_LEN_TOKEN_MEAN, NULL));
    TU_ASSERT_REL (w[1], 1.0 / 1100, TU_TOL0);
    TU_ASSERT_REL (share[1], 1000.0 / 1100, TU_TOL0);
  }
  {
    static const double g2[6] = { 1, 3, 2, 2, 10, 20 };
    mpfr_ptr lm = mp_from (g2, 6), wm = tu_mp_vec_new (6, PREC), sm = tu_mp_vec_new (6, PREC);
    mpfr_t tm, want_m;
    mpfr_inits2 (PREC, tm, want_m, (mpfr_ptr) 0);
    TU_OK (rlref_len_weights_d (w, share, &total, g2, 6, 3, RLREF_LEN_GROUP_MEAN_LENGTH, NULL));
    TU_ASSERT_REL (w[0], 1.0 / 12, TU_TOL0);
    TU_ASSERT_REL (w[5], 1.0 / 64, TU_TOL0);
    TU_ASSERT_REL (total, 1.0, TU_TOL0);
    TU_OK (rlref_len_weights_mp (wm, sm, tm, lm, 6, 3, RLREF_LEN_GROUP_MEAN_LENGTH, NULL));
    mpfr_set_ui (want_m, 1, MPFR_RNDN);
    mpfr_div_ui (want_m, want_m, 12, MPFR_RNDN);
    TU_ASSERT_MP_AGREE (wm + 2, want_m, 75);
    ck_assert (mpfr_cmp_ui (tm, 1) == 0);
    /* token-mean pools the batch: 1/38 */
    TU_OK (rlref_len_weights_mp (wm, sm, tm, lm, 6, 3, RLREF_LEN_TOKEN_MEAN, NULL));
    mpfr_set_ui (want_m, 1, MPFR_RNDN);
    mpfr_div_ui (want_m, want_m, 38, MPFR_RNDN);
    TU_ASSERT_MP_AGREE (wm + 4, want_m, 75);
    tu_mp_vec_free (lm, 6);
    tu_mp_vec_free (wm, 6);
    tu_mp_vec_free (sm, 6);
    mpfr_clears (tm, want_m, (mpfr_ptr) 0);
  }
}
END_TEST

/* A length <= 0: EDOM; none, or groups that do not divide: EINVAL; NaN:
 * ENAN; L_const <= 0: EDOM. */
START_TEST (test_weights_bad_inputs)
{
  double len[4] = { 3, -1, 0, NAN }, w[4], s[4], t, zero = 0, ok[4] = { 1, 2, 3, 4 };
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, len, 2, 2, RLREF_LEN_TOKEN_MEAN, NULL),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, len + 1, 2, 2, RLREF_LEN_TOKEN_MEAN, NULL),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, len + 2, 2, 2, RLREF_LEN_TOKEN_MEAN, NULL),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, len + 3, 1, 1, RLREF_LEN_TOKEN_MEAN, NULL),
                    RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, ok, 0, 1, RLREF_LEN_TOKEN_MEAN, NULL),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, ok, 4, 3, RLREF_LEN_TOKEN_MEAN, NULL),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, ok, 4, 0, RLREF_LEN_TOKEN_MEAN, NULL),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, ok, 4, 2, RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM,
                                         &zero), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_len_weights_d (w, s, &t, ok, 4, 2, RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM,
                                         NULL), RLREF_EINVAL);
}
END_TEST

/* n |y_i|, sum |y|, B S_g and B L_const beyond the binary64 range: the
 * weights are 1/(2 * 1e308) ~ 5e-309 and the like (subnormal, still
 * held), the shares 1/2, 1/2, 1/4 and 3/(2 DBL_MAX), the totals 1, 1, 1 and
 * 2/DBL_MAX; each against the quotient in MPFR at HIGH bits rounded once
 * (within one unit of the subnormal grid: 2^-1074).  Each gave w = 0 and
 * share = 0 when the denominator overflowed to inf. */
static double
mp_quot (double a, double b, long k)
{
  mpfr_t x;
  double r;
  mpfr_init2 (x, HIGH);
  mpfr_set_d (x, a, MPFR_RNDN);
  mpfr_div_d (x, x, b, MPFR_RNDN);
  mpfr_div_si (x, x, k, MPFR_RNDN);
  r = mpfr_get_d (x, MPFR_RNDN);
  mpfr_clear (x);
  return r;
}

#define ASSERT_SUB(got, want) TU_ASSERT_ABS (got, want, 0x1p-1074 + TU_TOL0 * fabs (want))

START_TEST (test_weights_beyond_range)
{
  static const double big[2] = { 1e308, 1e308 }, huge[2] = { DBL_MAX, DBL_MAX };
  static const double g2[4] = { 1, 3, 1e308, 1e308 }, small[2] = { 1, 3 };
  double w[4], share[4], total, lc = DBL_MAX;
  TU_OK (rlref_len_weights_d (w, share, &total, big, 2, 2, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, NULL));
  ASSERT_SUB (w[0], mp_quot (1, 1e308, 2));
  ck_assert (w[0] > 0);
  TU_ASSERT_REL (share[1], 0.5, TU_TOL0);
  TU_ASSERT_REL (total, 1.0, TU_TOL0);
  TU_OK (rlref_len_weights_d (w, share, &total, huge, 2, 2, RLREF_LEN_TOKEN_MEAN, NULL));
  ASSERT_SUB (w[1], mp_quot (1, DBL_MAX, 2));
  TU_ASSERT_REL (share[0], 0.5, TU_TOL0);
  TU_ASSERT_REL (total, 1.0, TU_TOL0);
  /* G/(B S_g) = 2/(4 * 2e308) for the second group; the first keeps 1/8 */
  TU_OK (rlref_len_weights_d (w, share, &total, g2, 4, 2, RLREF_LEN_GROUP_MEAN_LENGTH, NULL));
  TU_ASSERT_REL (w[0], 0.125, TU_TOL0);
  ASSERT_SUB (w[3], mp_quot (1, 1e308, 4));
  TU_ASSERT_REL (share[2], 0.25, TU_TOL0);
  TU_ASSERT_REL (total, 1.0, TU_TOL0);
  TU_OK (rlref_len_weights_d (w, share, &total, small, 2, 2, RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM,
                              &lc));
  ASSERT_SUB (w[0], mp_quot (1, DBL_MAX, 2));
  ASSERT_SUB (share[1], mp_quot (3, DBL_MAX, 2));
  ASSERT_SUB (total, mp_quot (4, DBL_MAX, 2));
  ck_assert (total > 0);
}
END_TEST

/* --- LEN-DRIFT ------------------------------------------------------------- */

/* T = 1, uniform, G = 2: three responses of one token (c, x, and the cut
 * w), a group has k = 1 with A = +1, -1; under every normalisation w_i =
 * 1/2, so c(y_c) = p_c (1 - p_c) = 2/9, c(y_x) = c(w) = -1/9 and g = (w
 * -1/9, c 2/9, x -1/9); d E[r] = p_c (g_c - sum pi g) = 2/27; every length
 * is 1: no drift, exactly. */
START_TEST (test_drift_one_step_model)
{
  static const double th[3] = { 0, 0, 0 };
  static const rlref_len_norm norms[5] = {
    RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, RLREF_LEN_TOKEN_MEAN, RLREF_LEN_SEQ_MEAN_TOKEN_SUM,
    RLREF_LEN_GROUP_MEAN_LENGTH, RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM };
  double out[RLREF_LEN_NDRIFT], eta = 1;
  mpfr_ptr thm = mp_from (th, 3), om = tu_mp_vec_new (RLREF_LEN_NDRIFT, PREC);
  mpfr_t etam, want;
  mpfr_inits2 (PREC, etam, want, (mpfr_ptr) 0);
  mpfr_set_ui (etam, 1, MPFR_RNDN);
  for (int k = 0; k < 5; k++)
    {
      TU_OK (rlref_len_drift_d (out, th, 3, 2, norms[k], &eta));
      TU_ASSERT_REL (out[RLREF_LEN_DACC], 2.0 / 27, TU_TOL1);
      TU_ASSERT_REL (out[RLREF_LEN_ACC], 1.0 / 3, TU_TOL0);
      TU_ASSERT_SAME (out[RLREF_LEN_DLEN], 0.0);
      TU_ASSERT_SAME (out[RLREF_LEN_STEP], 0.0);
      TU_OK (rlref_len_drift_mp (om, thm, 3, 2, norms[k], etam));
      mpfr_set_ui (want, 2, MPFR_RNDN);
      mpfr_div_ui (want, want, 27, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (om + RLREF_LEN_DACC, want, 70);
      ck_assert (mpfr_cmp_ui (om + RLREF_LEN_MEAN, 1) == 0);
      ck_assert (mpfr_zero_p (om + RLREF_LEN_DLEN_NEG));
    }
  tu_mp_vec_free (thm, 3);
  tu_mp_vec_free (om, RLREF_LEN_NDRIFT);
  mpfr_clears (etam, want, (mpfr_ptr) 0);
}
END_TEST

/* T = 3, uniform steps, G = 4 at 512 bits: d E[|y|] against the central
 * difference (len_step(h) - len_step(-h))/(2h), h = 2^-80 (error h^2);
 * dlen = dlen_pos + dlen_neg; and the values of the independent mpmath
 * evaluator: under seq-mean-token-mean (GRPO's 1/|y|) the wrong answers'
 * part lengthens (dlen_neg = +0.0201034...), without 1/|y| it shortens
 * (-0.00533719...); the net drift -0.00537825 against -0.0110849. */
START_TEST (test_drift_reference_values)
{
  static const double th[9] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };
  mpfr_prec_t old = rlref_mp_prec ();
  rlref_mp_set_prec (HIGH);
  {
    mpfr_ptr thm = mp_from (th, 9), o1 = tu_mp_vec_new (RLREF_LEN_NDRIFT, HIGH);
    mpfr_ptr o2 = tu_mp_vec_new (RLREF_LEN_NDRIFT, HIGH);
    mpfr_ptr o3 = tu_mp_vec_new (RLREF_LEN_NDRIFT, HIGH);
    mpfr_t h, fd;
    mpfr_inits2 (HIGH, h, fd, (mpfr_ptr) 0);
    mpfr_set_ui_2exp (h, 1, -80, MPFR_RNDN);
    TU_OK (rlref_len_drift_mp (o1, thm, 9, 4, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, h));
    mpfr_neg (h, h, MPFR_RNDN);
    TU_OK (rlref_len_drift_mp (o2, thm, 9, 4, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, h));
    mpfr_sub (fd, o1 + RLREF_LEN_STEP, o2 + RLREF_LEN_STEP, MPFR_RNDN);
    mpfr_mul_2si (fd, fd, 79, MPFR_RNDN);
    TU_ASSERT_MP_AGREE (fd, o1 + RLREF_LEN_DLEN, 40);
    mpfr_add (fd, o1 + RLREF_LEN_DLEN_POS, o1 + RLREF_LEN_DLEN_NEG, MPFR_RNDN);
    TU_ASSERT_MP_AGREE (fd, o1 + RLREF_LEN_DLEN, 140);
    TU_ASSERT_MP_STR (o1 + RLREF_LEN_DLEN, "-0.00537824969399780303092126971131", 28);
    TU_ASSERT_MP_STR (o1 + RLREF_LEN_DLEN_NEG, "0.020103432062297131431102659557", 28);
    TU_ASSERT_MP_STR (o1 + RLREF_LEN_DLEN_POS, "-0.0254816817562949344620239292684", 28);
    TU_OK (rlref_len_drift_mp (o3, thm, 9, 4, RLREF_LEN_SEQ_MEAN_TOKEN_SUM, h));
    TU_ASSERT_MP_STR (o3 + RLREF_LEN_DLEN, "-0.0110849421174000520484636856645", 28);
    TU_ASSERT_MP_STR (o3 + RLREF_LEN_DLEN_NEG, "-0.00533719435282224728259362643107", 28);
    /* one group: token-mean and group-mean-length are the same normalisation */
    TU_OK (rlref_len_drift_mp (o2, thm, 9, 4, RLREF_LEN_TOKEN_MEAN, h));
    TU_OK (rlref_len_drift_mp (o3, thm, 9, 4, RLREF_LEN_GROUP_MEAN_LENGTH, h));
    for (int k = 0; k < RLREF_LEN_NDRIFT; k++)
      ck_assert (mpfr_equal_p (o2 + k, o3 + k));
    tu_mp_vec_free (thm, 9);
    tu_mp_vec_free (o1, RLREF_LEN_NDRIFT);
    tu_mp_vec_free (o2, RLREF_LEN_NDRIFT);
    tu_mp_vec_free (o3, RLREF_LEN_NDRIFT);
    mpfr_clears (h, fd, (mpfr_ptr) 0);
  }
  rlref_mp_set_prec (old);
  /* binary64 against the same values */
  {
    double out[RLREF_LEN_NDRIFT], eta = 1;
    TU_OK (rlref_len_drift_d (out, th, 9, 4, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, &eta));
    TU_ASSERT_REL (out[RLREF_LEN_DLEN_NEG], 0.020103432062297131431, TU_TOL3);
    TU_ASSERT_REL (out[RLREF_LEN_DLEN], -0.0053782496939978030309, TU_TOL3);
  }
}
END_TEST

/* len_step against MPFR from a tiny to a huge step, every normalisation:
 * the change of log pi(y) is formed from eta g and log1p(sum pi expm1(eta
 * g)) per step, not as log pi' - log pi (which lost the digits of a small
 * step: relative error 4.8e-7 at eta = 1e-8, 0 for 1e-150). */
START_TEST (test_drift_small_step)
{
  static const double th[9] = { 0.3, -0.2, 0.1, 0.5, 0, -0.4, 0.2, 0.1, 0 };
  static const double etas[] = { 1e-150, 1e-8, 1e-3, 0.5, 3, 1e20 };
  static const rlref_len_norm norms[] = { RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, RLREF_LEN_TOKEN_MEAN,
    RLREF_LEN_SEQ_MEAN_TOKEN_SUM, RLREF_LEN_GROUP_MEAN_LENGTH,
    RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM };
  mpfr_prec_t old = rlref_mp_prec ();
  mpfr_ptr thm, om, em;
  rlref_mp_set_prec (HIGH);
  thm = mp_from (th, 9);
  om = tu_mp_vec_new (RLREF_LEN_NDRIFT, HIGH);
  em = tu_mp_vec_new (1, HIGH);
  for (size_t k = 0; k < sizeof norms / sizeof *norms; k++)
    for (size_t i = 0; i < sizeof etas / sizeof *etas; i++)
      {
        double out[RLREF_LEN_NDRIFT], eta = etas[i], want;
        mpfr_set_d (em, eta, MPFR_RNDN);
        TU_OK (rlref_len_drift_d (out, th, 9, 3, norms[k], &eta));
        TU_OK (rlref_len_drift_mp (om, thm, 9, 3, norms[k], em));
        want = mpfr_get_d (om + RLREF_LEN_STEP, MPFR_RNDN);
        ck_assert (want != 0);
        TU_ASSERT_REL (out[RLREF_LEN_STEP], want, TU_TOL2);
      }
  rlref_mp_set_prec (old);
  tu_mp_vec_free (thm, 9);
  tu_mp_vec_free (om, RLREF_LEN_NDRIFT);
  tu_mp_vec_free (em, 1);
}
END_TEST

/* Every output is the MPFR program rounded once.  With c and x equally
 * likely at each step (and the third step out of reach, w at -2^616) the
 * derivative of E[|y|] along g is exactly 0, the terms of c+ and c-
 * cancelling (binary64 gave -6.9e-18); with c certain at the second step,
 * that of E[|y| | correct] under seq-mean-token-sum (4.2e-17); a step of
 * 2^-128 beside a logit of 2^18 (E[|y| | correct]'s derivative 385 ulps
 * off).  Against MPFR at HIGH bits; the zeros exactly. */
START_TEST (test_drift_rounded_once)
{
  static const struct { double th[9], eta; long G; rlref_len_norm norm; int zero; } cs[] = {
    { { 0.5, 0, 0, -0x1p+616, 0, 0, 0.5, 0, 0 }, 0x1.1p+0, 3, RLREF_LEN_TOKEN_MEAN,
      RLREF_LEN_DLEN },
    { { 0, 0, 0, 0, 0x1p+936, 0, 0, 0, 0 }, 0x1.08p+427, 4, RLREF_LEN_SEQ_MEAN_TOKEN_SUM,
      RLREF_LEN_DLEN_CORRECT },
    { { 0x1.3333333333333p-2, -0x1.999999999999ap-3, 0x1.999999999999ap-4, 8, 0,
        -0x1.999999999999ap-2, 0x1.999999999999ap-3, 0x1.999999999999ap-4, 0x1p+18 },
      0x1p-128, 3, RLREF_LEN_TOKEN_MEAN, -1 },
  };
  mpfr_prec_t old = rlref_mp_prec ();
  mpfr_ptr om = tu_mp_vec_new (RLREF_LEN_NDRIFT, HIGH), em = tu_mp_vec_new (1, HIGH);
  rlref_mp_set_prec (HIGH);
  for (size_t c = 0; c < sizeof cs / sizeof *cs; c++)
    {
      double out[RLREF_LEN_NDRIFT], eta = cs[c].eta;
      mpfr_ptr thm = mp_from (cs[c].th, 9);
      mpfr_set_d (em, eta, MPFR_RNDN);
      TU_OK (rlref_len_drift_d (out, cs[c].th, 9, cs[c].G, cs[c].norm, &eta));
      TU_OK (rlref_len_drift_mp (om, thm, 9, cs[c].G, cs[c].norm, em));
      for (int k = 0; k < RLREF_LEN_NDRIFT; k++)
        if (k == cs[c].zero)
          TU_ASSERT_SAME (out[k], 0.0);
        else
          TU_ASSERT_SAME (out[k], mpfr_get_d (om + k, MPFR_RNDN));
      tu_mp_vec_free (thm, 9);
    }
  rlref_mp_set_prec (old);
  tu_mp_vec_free (om, RLREF_LEN_NDRIFT);
  tu_mp_vec_free (em, 1);
}
END_TEST

/* G < 1: EDOM; too many groups, G > 20, logits not 3T long, T > 32:
 * EINVAL; NaN: ENAN. */
START_TEST (test_drift_bad_inputs)
{
  double th[99] = { 0 }, out[RLREF_LEN_NDRIFT], eta = 1, nan_eta = NAN;
  TU_ASSERT_STATUS (rlref_len_drift_d (out, th, 9, 0, RLREF_LEN_TOKEN_MEAN, &eta), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_len_drift_d (out, th, 9, 40, RLREF_LEN_TOKEN_MEAN, &eta),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_len_drift_d (out, th, 3, 21, RLREF_LEN_TOKEN_MEAN, &eta),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_len_drift_d (out, th, 4, 2, RLREF_LEN_TOKEN_MEAN, &eta),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_len_drift_d (out, th, 99, 1, RLREF_LEN_TOKEN_MEAN, &eta),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_len_drift_d (out, th, 0, 2, RLREF_LEN_TOKEN_MEAN, &eta),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_len_drift_d (out, th, 3, 2, RLREF_LEN_TOKEN_MEAN, &nan_eta),
                    RLREF_ENAN);
  th[1] = NAN;
  TU_ASSERT_STATUS (rlref_len_drift_d (out, th, 3, 2, RLREF_LEN_TOKEN_MEAN, &eta), RLREF_ENAN);
}
END_TEST

/* --- ENT-COLLAPSE ---------------------------------------------------------- */

static const rlref_ent_recipe sym = { 0.2, 0.2, 0, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN };
static const rlref_ent_recipe higher = { 0.2, 0.28, 0, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN };
static const rlref_ent_recipe dyn = { 0.2, 0.2, 1, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN };

/* Values of the independent evaluator: the golden's first run (T = 2, G =
 * 3, lr 4, mu 4, 12 steps) ends at H = 0.0751250013...; with large steps
 * (G = 2, lr 8, mu 8) the clip binds and clip-higher keeps the entropy
 * higher: after 4 steps 0.618110762... against 0.460012655... */
START_TEST (test_entropy_reference_values)
{
  static const double th[6] = { 0, -1.5, 0.5, 0, -1.5, 0.5 }, th2[6] = { 0, -2, 1, 0, -2, 1 };
  mpfr_ptr thm = mp_from (th, 6), th2m = mp_from (th2, 6);
  mpfr_ptr e = tu_mp_vec_new (12, PREC), a = tu_mp_vec_new (12, PREC);
  mpfr_ptr l = tu_mp_vec_new (12, PREC);
  mpfr_t e0, lr;
  double ed[12], ad[12], ld[12], e0d, lrd = 4;
  mpfr_inits2 (PREC, e0, lr, (mpfr_ptr) 0);
  mpfr_set_ui (lr, 4, MPFR_RNDN);
  TU_OK (rlref_ent_collapse_mp (e0, e, a, l, thm, 6, 3, lr, 4, 12, &sym));
  TU_ASSERT_MP_STR (e0, "1.19242447541904236374336680576", 28);
  TU_ASSERT_MP_STR (e + 11, "0.0751250013264955834159990350275", 28);
  TU_OK (rlref_ent_collapse_d (&e0d, ed, ad, ld, th, 6, 3, &lrd, 4, 12, &sym));
  TU_ASSERT_REL (ed[11], 0.0751250013264955834159990350275, TU_TOL4);
  mpfr_set_ui (lr, 8, MPFR_RNDN);
  TU_OK (rlref_ent_collapse_mp (e0, e, a, l, th2m, 6, 2, lr, 8, 5, &higher));
  TU_ASSERT_MP_STR (e + 3, "0.61811076215604355643152423868", 28);
  TU_OK (rlref_ent_collapse_mp (e0, e, a, l, th2m, 6, 2, lr, 8, 5, &sym));
  TU_ASSERT_MP_STR (e + 3, "0.460012655489661072999074109283", 28);
  tu_mp_vec_free (thm, 6);
  tu_mp_vec_free (th2m, 6);
  tu_mp_vec_free (e, 12);
  tu_mp_vec_free (a, 12);
  tu_mp_vec_free (l, 12);
  mpfr_clears (e0, lr, (mpfr_ptr) 0);
}
END_TEST

/* mu = 1: the only inner step is at rho = 1, inside every clip, so
 * symmetric and clip-higher runs are the same bit for bit; one outer step
 * of dynamic sampling with lr is one of the symmetric recipe with lr/P,
 * P = 1 - p^G - (1 - p)^G the probability of a mixed group (T = 1, p =
 * softmax(th)_c); G = 1: nothing moves, H = log 3 throughout; dynamic
 * sampling keeps no group. */
START_TEST (test_entropy_identities)
{
  static const double th[3] = { 0.3, -0.4, 0.1 }, u[3] = { 0, 0, 0 };
  double e0, e[3], a[3], l[3], e0b, eb[3], ab[3], lb[3], lr = 2;
  mpfr_ptr thm = mp_from (th, 3), um = mp_from (u, 3);
  mpfr_ptr e1 = tu_mp_vec_new (1, PREC), e2 = tu_mp_vec_new (1, PREC);
  mpfr_ptr x = tu_mp_vec_new (3, PREC);
  mpfr_t h0, lrm, p, q, P, want;
  TU_OK (rlref_ent_collapse_d (&e0, e, a, l, th, 3, 3, &lr, 1, 3, &sym));
  TU_OK (rlref_ent_collapse_d (&e0b, eb, ab, lb, th, 3, 3, &lr, 1, 3, &higher));
  for (int k = 0; k < 3; k++)
    TU_ASSERT_SAME (e[k], eb[k]);
  mpfr_inits2 (PREC, h0, lrm, p, q, P, want, (mpfr_ptr) 0);
  /* p = e^-0.4/(e^0.3 + e^-0.4 + e^0.1), P = 1 - p^3 - (1 - p)^3 */
  TU_OK (rlref_softmax_mp (x, thm, 3));
  mpfr_set (p, x + 1, MPFR_RNDN);
  mpfr_ui_sub (q, 1, p, MPFR_RNDN);
  mpfr_pow_ui (P, p, 3, MPFR_RNDN);
  mpfr_pow_ui (q, q, 3, MPFR_RNDN);
  mpfr_add (P, P, q, MPFR_RNDN);
  mpfr_ui_sub (P, 1, P, MPFR_RNDN);
  mpfr_set_ui (lrm, 2, MPFR_RNDN);
  TU_OK (rlref_ent_collapse_mp (h0, e1, x, x + 1, thm, 3, 3, lrm, 1, 1, &dyn));
  mpfr_div (lrm, lrm, P, MPFR_RNDN);
  TU_OK (rlref_ent_collapse_mp (h0, e2, x, x + 1, thm, 3, 3, lrm, 1, 1, &sym));
  TU_ASSERT_MP_AGREE (e1, e2, 70);
  /* G = 1 */
  mpfr_set_ui (lrm, 1, MPFR_RNDN);
  TU_OK (rlref_ent_collapse_mp (h0, x, x + 1, x + 2, um, 3, 1, lrm, 2, 1, &higher));
  mpfr_set_ui (want, 3, MPFR_RNDN);
  mpfr_log (want, want, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (h0, want, 75);
  TU_ASSERT_MP_AGREE (x, want, 75);
  TU_ASSERT_STATUS (rlref_ent_collapse_mp (h0, x, x + 1, x + 2, um, 3, 1, lrm, 2, 1, &dyn),
                    RLREF_EDOM);
  tu_mp_vec_free (thm, 3);
  tu_mp_vec_free (um, 3);
  tu_mp_vec_free (e1, 1);
  tu_mp_vec_free (e2, 1);
  tu_mp_vec_free (x, 3);
  mpfr_clears (h0, lrm, p, q, P, want, (mpfr_ptr) 0);
}
END_TEST

/* lr <= 0, mu < 1, steps < 1: EDOM; more than 1000 inner steps, logits
 * not 3T long, too long a run: EINVAL; NaN learning rate: ENAN. */
START_TEST (test_entropy_bad_inputs)
{
  double th[3] = { 0, 0, 0 }, e0, e[2], a[2], l[2], lr = 1, zero = 0, nan_lr = NAN;
  TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e, a, l, th, 3, 2, &zero, 2, 2, &sym),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e, a, l, th, 3, 2, &lr, 0, 2, &sym), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e, a, l, th, 3, 2, &lr, 2, 0, &sym), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e, a, l, th, 3, 2, &lr, 1001, 2, &sym),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e, a, l, th, 2, 2, &lr, 2, 2, &sym),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e, a, l, th, 3, 2, &nan_lr, 2, 2, &sym),
                    RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e, a, l, th, 3, 0, &lr, 2, 2, &sym), RLREF_EDOM);
  /* T = 3, G = 10: 8008 groups a batch, 1000 batches: 8e7 > 2e6 (refused before any
   * output is written) */
  {
    double th9[9] = { 0 };
    TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e, a, l, th9, 9, 10, &lr, 2, 1000, &sym),
                      RLREF_EINVAL);
  }
  /* dynamic sampling, a logit 2^27 above the others: the mass of the mixed
   * groups is about e^-2^27, beyond binary64 (ERANGE, was EDOM as if there
   * were none); MPFR keeps it */
  {
    double th6[6] = { 0, -2, 0x1p+27, 0, -2, -2 }, e5[5], a5[5], l5[5], lr32 = 32;
    mpfr_ptr thm = tu_mp_vec_from_d (th6, 6, 256), x = tu_mp_vec_new (16, 256);
    mpfr_ptr lrm = tu_mp_vec_from_d (&lr32, 1, 256);
    rlref_mp_set_prec (256);
    TU_ASSERT_STATUS (rlref_ent_collapse_d (&e0, e5, a5, l5, th6, 6, 2, &lr32, 8, 5, &dyn),
                      RLREF_ERANGE);
    TU_OK (rlref_ent_collapse_mp (x, x + 1, x + 6, x + 11, thm, 6, 2, lrm, 8, 5, &dyn));
    ck_assert (mpfr_sgn (x) > 0);
    tu_mp_vec_free (thm, 6);
    tu_mp_vec_free (x, 16);
    tu_mp_vec_free (lrm, 1);
  }
}
END_TEST

/* --- aliasing -------------------------------------------------------------- */

/* The generic test holds LEN-WEIGHTS and ENT-COLLAPSE to the aliasing rule
 * on their golden cases; LEN-DRIFT's glue writes through a temporary, so
 * the library's len_drift is held to it here: the nine outputs as one
 * vector, the same length as the logits. */
static int
drift_d (double *const *s, const void *ctx)
{
  (void) ctx;
  return rlref_len_drift_d (s[0], s[1], 9, 2, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, s[2]);
}

static int
drift_mp (mpfr_ptr const *s, const void *ctx)
{
  (void) ctx;
  return rlref_len_drift_mp (s[0], s[1], 9, 2, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, s[2]);
}

START_TEST (test_len_aliasing)
{
  static const double th9[9] = { 0.2, -0.3, 0.1, 0, 0.5, -0.5, 0.4, 0, -0.2 }, eta[1] = { 1 };
  tu_alias_case d = { "len_drift", 3, 1, { RLREF_LEN_NDRIFT, 9, 1 }, { NULL, th9, eta },
                      drift_d, drift_mp, NULL };
  ck_assert_int_ge (tu_check_aliasing (&d), 1);
}
END_TEST

static Suite *
len_suite (void)
{
  Suite *s = suite_create ("len");
  TCase *tc;

  tc = tu_tcase ("weights");
  tcase_add_test (tc, test_weights_closed_forms);
  tcase_add_test (tc, test_weights_bad_inputs);
  tcase_add_test (tc, test_weights_beyond_range);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("drift");
  tcase_add_test (tc, test_drift_one_step_model);
  tcase_add_test (tc, test_drift_reference_values);
  tcase_add_test (tc, test_drift_small_step);
  tcase_add_test (tc, test_drift_rounded_once);
  tcase_add_test (tc, test_drift_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("entropy");
  tcase_add_test (tc, test_entropy_reference_values);
  tcase_add_test (tc, test_entropy_identities);
  tcase_add_test (tc, test_entropy_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("aliasing");
  tcase_add_test (tc, test_len_aliasing);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN (len_suite)
