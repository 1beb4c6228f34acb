/* test_dpofinite.c -- the DPO derivation on explicit outcome sets
 * (DPO-IMPLICIT-R, DPO-ZCANCEL, DPO-EQUIV), in binary64 (_d) and MPFR (_mp).
 *
 * Expected values are closed forms evaluated here with MPFR at 1024 bits:
 * the IPO paper's three-action illustration with tau = 1/8 (h1 - h2 = h2 -
 * h3 = (1/3)/tau = 8/3, loss (1/9)[2 (8/3 - 4)^2 + (16/3 - 4)^2] = 16/27),
 * pi* of two outcomes, (e, 1)/(e + 1), and the DPO population loss at it,
 * (1/4)[sigma(1) softplus(-1) + sigma(-1) softplus(1)]; the identities of
 * 13.18-13.20 (residual exactly 0, margin = r_w - r_l); Newton's minimiser
 * of the DPO loss on the Bradley-Terry matrix of a reward against the closed
 * form pi* (two different algorithms); and the rejections. */
#include "testutil.h"
#include "rlref/dpofinite.h"
#include "rlref/primitives.h"

#define PREC 256
#define REF 1024

/* 8/3 and 16/27 at REF bits, compared to 70 digits. */
static void
check_ipo_three_mp (mpfr_srcptr h, mpfr_srcptr loss, mpfr_srcptr gn)
{
  mpfr_t d, want;
  mpfr_inits2 (REF, d, want, (mpfr_ptr) 0);
  mpfr_set_ui (want, 8, MPFR_RNDN);
  mpfr_div_ui (want, want, 3, MPFR_RNDN);
  for (int k = 0; k < 2; k++)
    {
      mpfr_sub (d, h + k, h + k + 1, MPFR_RNDN);
      ck_assert_int_ge (tu_mp_digits (d, want), 70);
    }
  mpfr_set_ui (want, 16, MPFR_RNDN);
  mpfr_div_ui (want, want, 27, MPFR_RNDN);
  ck_assert_int_ge (tu_mp_digits (loss, want), 70);
  ck_assert (mpfr_zero_p (gn));
  mpfr_clears (d, want, (mpfr_ptr) 0);
}

static const double third = 0.3333333333333333;
static const double chain3[9] = { 0.5, 1, 1, 0, 0.5, 1, 0, 0, 0.5 };

START_TEST (test_ipo_three)
{
  double p[3] = { third, third, third }, lp[3], h[3], loss, gn, kl, tau = 0.125;
  mpfr_ptr mp = tu_mp_vec_from_d (p, 3, PREC), mP = tu_mp_vec_from_d (chain3, 9, PREC);
  mpfr_ptr mlp = tu_mp_vec_new (3, PREC), mh = tu_mp_vec_new (3, PREC);
  mpfr_ptr ms = tu_mp_vec_new (4, PREC);
  TU_OK (rlref_dpofinite_equiv_d (lp, h, &loss, &gn, &kl, p, chain3, 3, &tau, RLREF_DPOFINITE_IPO));
  TU_ASSERT_REL (h[0] - h[1], 8.0 / 3, TU_TOL1);
  TU_ASSERT_REL (h[1] - h[2], 8.0 / 3, TU_TOL1);
  TU_ASSERT_REL (loss, 16.0 / 27, TU_TOL1);
  TU_ASSERT_SAME (gn, 0.0);
  /* pi proportional to (e^{16/3}, e^{8/3}, 1) */
  TU_ASSERT_REL (exp (lp[0]), exp (16.0 / 3) / (exp (16.0 / 3) + exp (8.0 / 3) + 1), TU_TOL1);
  rlref_mp_set_prec (PREC);
  mpfr_set_d (ms, tau, MPFR_RNDN);
  TU_OK (rlref_dpofinite_equiv_mp (mlp, mh, ms + 1, ms + 2, ms + 3, mp, mP, 3, ms,
                                RLREF_DPOFINITE_IPO));
  check_ipo_three_mp (mh, ms + 1, ms + 2);
  /* DPO on the same data: no finite minimiser */
  TU_ASSERT_STATUS (rlref_dpofinite_equiv_d (lp, h, &loss, &gn, &kl, p, chain3, 3, &tau,
                                          RLREF_DPOFINITE_DPO), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpofinite_equiv_mp (mlp, mh, ms + 1, ms + 2, ms + 3, mp, mP, 3, ms,
                                           RLREF_DPOFINITE_DPO), RLREF_EDOM);
  tu_mp_vec_free (mp, 3);
  tu_mp_vec_free (mP, 9);
  tu_mp_vec_free (mlp, 3);
  tu_mp_vec_free (mh, 3);
  tu_mp_vec_free (ms, 4);
}
END_TEST

/* two outcomes, r = (1, 0), beta = 1: pi* = (e, 1)/(e + 1) */
START_TEST (test_bt_two)
{
  double p[2] = { 0.5, 0.5 }, r[2] = { 1, 0 }, beta = 1, lp[2], h[2], loss, gn, kl;
  double e = exp (1.0), s1 = 1 / (1 + exp (-1.0)), want;
  TU_OK (rlref_dpofinite_equiv_bt_d (lp, h, &loss, &gn, &kl, p, r, 2, &beta));
  TU_ASSERT_REL (lp[0], log (e / (e + 1)), TU_TOL1);
  TU_ASSERT_REL (lp[1], -log (e + 1), TU_TOL1);
  TU_ASSERT_REL (h[0] - h[1], 1.0, TU_TOL1);
  want = 0.25 * (s1 * log1p (exp (-1.0)) + (1 - s1) * (1 + log1p (exp (-1.0))));
  TU_ASSERT_REL (loss, want, TU_TOL1);
  TU_ASSERT_SAME (gn, 0.0);
  TU_ASSERT_REL (kl, e / (e + 1) * h[0] + 1 / (e + 1) * h[1], TU_TOL1);
  ck_assert (kl > 0);
}
END_TEST

/* Newton on the Bradley-Terry matrix of r reaches the closed-form pi*, at
 * 256 bits (P computed at 256 bits) */
START_TEST (test_pref_matches_bt_mp)
{
  double p[3] = { 0.2, 0.3, 0.5 }, r[3] = { 1, -0.5, 2 };
  mpfr_ptr mp = tu_mp_vec_from_d (p, 3, PREC), mr = tu_mp_vec_from_d (r, 3, PREC);
  mpfr_ptr P = tu_mp_vec_new (9, PREC), a = tu_mp_vec_new (3, PREC), b = tu_mp_vec_new (3, PREC);
  mpfr_ptr a2 = tu_mp_vec_new (3, PREC), b2 = tu_mp_vec_new (3, PREC), s = tu_mp_vec_new (7, PREC);
  rlref_mp_set_prec (PREC);
  mpfr_set_d (s, 0.5, MPFR_RNDN);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      {
        mpfr_sub (P + 3 * i + j, mr + i, mr + j, MPFR_RNDN);
        TU_OK (rlref_sigmoid_mp (P + 3 * i + j, P + 3 * i + j));
      }
  TU_OK (rlref_dpofinite_equiv_bt_mp (a, b, s + 1, s + 2, s + 3, mp, mr, 3, s));
  TU_OK (rlref_dpofinite_equiv_mp (a2, b2, s + 4, s + 5, s + 6, mp, P, 3, s, RLREF_DPOFINITE_DPO));
  for (int i = 0; i < 3; i++)
    ck_assert_int_ge (tu_mp_digits (a2 + i, a + i), 70);
  ck_assert_int_ge (tu_mp_digits (s + 4, s + 1), 70);
  ck_assert_int_ge (tu_mp_digits (s + 6, s + 3), 70);
  ck_assert (mpfr_zero_p (s + 2) && mpfr_zero_p (s + 5));
  tu_mp_vec_free (mp, 3);
  tu_mp_vec_free (mr, 3);
  tu_mp_vec_free (P, 9);
  tu_mp_vec_free (a, 3);
  tu_mp_vec_free (b, 3);
  tu_mp_vec_free (a2, 3);
  tu_mp_vec_free (b2, 3);
  tu_mp_vec_free (s, 7);
}
END_TEST

/* 13.18-13.20 */
START_TEST (test_identities)
{
  double p[3] = { 0.2, 0.3, 0.5 }, r[3] = { 1, -0.5, 2 }, beta = 0.5;
  double ps[3], lz, rh[3], res[3], hw, hl, m, d, pp, pr, lz2;
  double z = 0.2 * exp (2.0) + 0.3 * exp (-1.0) + 0.5 * exp (4.0);
  TU_OK (rlref_dpofinite_implicit_d (ps, &lz, rh, res, p, r, 3, &beta));
  TU_ASSERT_REL (lz, log (z), TU_TOL1);
  TU_ASSERT_REL (ps[2], 0.5 * exp (4.0) / z, TU_TOL1);
  for (int i = 0; i < 3; i++)
    {
      TU_ASSERT_REL (rh[i], r[i], TU_TOL2);
      TU_ASSERT_SAME (res[i], 0.0);
    }
  TU_OK (rlref_dpofinite_zcancel_d (&hw, &hl, &m, &d, &pp, &pr, &lz2, p, r, 3, &beta, 2, 1));
  TU_ASSERT_REL (m, 2.5, TU_TOL1);
  TU_ASSERT_SAME (d, 2.5);
  TU_ASSERT_REL (pp, 1 / (1 + exp (-2.5)), TU_TOL1);
  TU_ASSERT_REL (hw, 4.0 - log (z), TU_TOL1);
  TU_ASSERT_SAME (lz2, lz);
  /* MPFR: the residual exactly 0, r_hat = r to 70 digits */
  {
    mpfr_ptr mp = tu_mp_vec_from_d (p, 3, PREC), mr = tu_mp_vec_from_d (r, 3, PREC);
    mpfr_ptr o = tu_mp_vec_new (10, PREC);
    rlref_mp_set_prec (PREC);
    mpfr_set_d (o + 9, beta, MPFR_RNDN);
    TU_OK (rlref_dpofinite_implicit_mp (o, o + 3, o + 4, o + 7, mp, mr, 3, o + 9));
    for (int i = 0; i < 3; i++)
      {
        ck_assert_int_ge (tu_mp_digits (o + 4 + i, mr + i), 70);
        ck_assert (mpfr_zero_p (o + 7 + i));
      }
    tu_mp_vec_free (mp, 3);
    tu_mp_vec_free (mr, 3);
    tu_mp_vec_free (o, 10);
  }
}
END_TEST

/* The refusals whose status the golden cases do not pin: the golden's
 * invalid cases (beta = 0, p_ref with a 0 or off 1, w = l, l not an
 * outcome, one outcome, P_ij + P_ji != 1) fail the generic test when their
 * check goes; a NaN beta, no outcome and a negative P would each still be
 * refused, by a later check with another status, and a loss kind outside
 * the enum is not a registry input. */
START_TEST (test_bad_inputs)
{
  double p[2] = { 0.5, 0.5 }, r[2] = { 1, 0 }, beta = 1, nan_ = NAN;
  double o[2], o2[2], o3[2], a, b, c;
  double Pbad[4] = { 0.5, 0.9, 0.9, 0.5 }, Pneg[4] = { 0.5, -0.25, 1.25, 0.5 };
  TU_ASSERT_STATUS (rlref_dpofinite_implicit_d (o, &a, o2, o3, p, r, 2, &nan_), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dpofinite_implicit_d (o, &a, o2, o3, p, r, 0, &beta), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dpofinite_equiv_d (o, o2, &a, &b, &c, p, Pneg, 2, &beta,
                                          RLREF_DPOFINITE_DPO), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpofinite_equiv_d (o, o2, &a, &b, &c, p, Pbad, 2, &beta, 7),
                    RLREF_EINVAL);
}
END_TEST

/* Far from beta = 1 in binary64 (ExtremeBeta): one deterministic pair of
 * three uniform outcomes.  beta = 1e40: h ~ 7.56e-41 and KL ~ 1.9e-81 (a
 * log-sum-exp of log pi_ref + g had h = 0, KL 0); beta = 1e-300: h_1 =
 * log 3 and KL = log 3 (had 0); IPO at tau = 1e-10: KL = log 2 (had
 * 0.6931471825); tau = 4.9e-324: 1/(2 tau) overflows, ERANGE. */
START_TEST (test_extreme_beta)
{
  const double t = 1.0 / 3, q3[3] = { t, t, t };
  const double P[9] = { 0.5, 1, 0.5, 0, 0.5, 0.5, 0.5, 0.5, 0.5 };
  const double q2[2] = { 0.5, 0.5 }, P2[4] = { 0.5, 0.75, 0.25, 0.5 };
  double lp[3], h[3], loss, gn, kl, s;
  s = 1e40;
  TU_OK (rlref_dpofinite_equiv_d (lp, h, &loss, &gn, &kl, q3, P, 3, &s, RLREF_DPOFINITE_DPO));
  TU_ASSERT_REL (h[0], 7.5630761261596475e-41, 1e-14);
  TU_ASSERT_REL (kl, 1.9066706830028673e-81, 1e-13);
  TU_ASSERT_REL (loss, 0.19168164773412149, 1e-14);
  s = 1e-300;
  TU_OK (rlref_dpofinite_equiv_d (lp, h, &loss, &gn, &kl, q3, P, 3, &s, RLREF_DPOFINITE_DPO));
  TU_ASSERT_REL (h[0], log (3.0), 1e-15);
  TU_ASSERT_REL (kl, log (3.0), 1e-15);
  s = 1e-10;
  TU_OK (rlref_dpofinite_equiv_d (lp, h, &loss, &gn, &kl, q2, P2, 2, &s, RLREF_DPOFINITE_IPO));
  TU_ASSERT_REL (kl, log (2.0), 1e-15);
  s = 4.9e-324;
  TU_ASSERT_STATUS (rlref_dpofinite_equiv_d (lp, h, &loss, &gn, &kl, q2, P2, 2, &s,
                                          RLREF_DPOFINITE_IPO), RLREF_ERANGE);
}
END_TEST

/* Far-apart magnitudes: h = log(pi* / pi_ref) is formed as (r - c)/beta - L
 * (c the reward of the likeliest outcome), not as log pi* - log pi_ref nor
 * r/beta - log Z, and pi* is not re-formed from its logarithm.  (Each
 * failed before.) */
START_TEST (test_far_magnitudes)
{
  const double p4[4] = { 0x1.5555555555555p-949, 0x1.5555555555555p-2, 0x1.5555555555555p-2,
                         0x1.5555555555555p-2 };
  const double r4[4] = { 0x1.5798ee2308c3ap-20, 0x1.5798ee2308c3ap-27, 0x1.5798ee2308c3ap-27,
                         0x1.5798ee2308c3ap-27 };
  const double p2[2] = { 1, 0x1.000010c6f8ba3p-154 }, r2[2] = { 0, 20 };
  const double p3[3] = { 0x1.999999999999ap-4, 0x1.999999999999ap-3, 0x1.6666666666666p-1 };
  const double r3[3] = { 3, -2, 0.25 }, q3[3] = { 0.2, 0.3, 0.5 };
  const double rbig[3] = { DBL_MAX, -0.5, 2 }, q2[2] = { 0.5, 0.5 }, rh2[2] = { 0x1p+247, 0 };
  double ps[4], lz, rh[4], res[4], hw, hl, m, d, pp, pr, lp[2], h[2], loss, gn, kl;
  double beta = 2;
  mpfr_t z, t, want;
  mpfr_inits2 (REF, z, t, want, (mpfr_ptr) 0);
  /* pi*_0 = p_0 e^{r_0/2} / sum p e^{r/2}, 2.8e-286 */
  mpfr_set_zero (z, 1);
  for (int i = 0; i < 4; i++)
    {
      mpfr_set_d (t, r4[i] / 2, MPFR_RNDN);
      mpfr_exp (t, t, MPFR_RNDN);
      mpfr_mul_d (t, t, p4[i], MPFR_RNDN);
      if (i == 0)
        mpfr_set (want, t, MPFR_RNDN);
      mpfr_add (z, z, t, MPFR_RNDN);
    }
  mpfr_div (want, want, z, MPFR_RNDN);
  TU_OK (rlref_dpofinite_implicit_d (ps, &lz, rh, res, p4, r4, 4, &beta));
  TU_ASSERT_REL (ps[0], mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  /* pi_ref_0 = 1 - 2^-154 rounds to 1, its log does not: r^ = r exactly */
  beta = 1;
  TU_OK (rlref_dpofinite_implicit_d (ps, &lz, rh, res, p2, r2, 2, &beta));
  TU_ASSERT_SAME (rh[0], 0.0);
  TU_ASSERT_SAME (res[0], 0.0);
  /* beta = 2^395 1.6: h_w = (r_w - E_pi_ref[r])/beta to within Var[r]/beta^2 */
  beta = 0x1.999999999999ap+395;
  mpfr_set_zero (want, 1);
  mpfr_set_zero (z, 1);
  for (int i = 0; i < 3; i++)
    {
      mpfr_set_d (t, p3[i], MPFR_RNDN);
      mpfr_add (z, z, t, MPFR_RNDN);
      mpfr_mul_d (t, t, r3[i], MPFR_RNDN);
      mpfr_add (want, want, t, MPFR_RNDN);
    }
  mpfr_div (want, want, z, MPFR_RNDN);
  mpfr_d_sub (want, r3[0], want, MPFR_RNDN);
  mpfr_div_d (want, want, beta, MPFR_RNDN);
  TU_OK (rlref_dpofinite_zcancel_d (&hw, &hl, &m, &d, &pp, &pr, &lz, p3, r3, 3, &beta, 0, 1));
  TU_ASSERT_REL (hw, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  /* a reward of DBL_MAX elsewhere: the margin is still r_w - r_l */
  beta = 2;
  TU_OK (rlref_dpofinite_zcancel_d (&hw, &hl, &m, &d, &pp, &pr, &lz, q3, rbig, 3, &beta, 2, 1));
  TU_ASSERT_SAME (m, 2.5);
  TU_ASSERT_REL (pp, 1 / (1 + exp (-2.5)), TU_TOL1);
  /* r = (2^247, 0): pi* = (1, 0) to within e^-2^247, h_0 = log 2 */
  beta = 1;
  TU_OK (rlref_dpofinite_equiv_bt_d (lp, h, &loss, &gn, &kl, q2, rh2, 2, &beta));
  TU_ASSERT_REL (h[0], log (2.0), TU_TOL1);
  /* the loss from beta (h_i - h_j) = r_i - r_j: with r_2 = 2^865 the pairs
   * with outcome 2 add 0, the rest (1/4)(0.3/0.5)... as two outcomes */
  {
    const double q3b[3] = { 0.25, 0.25, 0.5 }, r3b[3] = { 1, 0, 0x1p+865 };
    double lp3[3], h3[3];
    double sp1 = log1p (exp (-1.0)), s1 = 1 / (1 + exp (-1.0));
    beta = 0.5;
    TU_OK (rlref_dpofinite_equiv_bt_d (lp3, h3, &loss, &gn, &kl, q3b, r3b, 3, &beta));
    TU_ASSERT_REL (loss, 0.0625 * (s1 * sp1 + (1 - s1) * (1 + sp1)), TU_TOL1);
  }
  /* pi_ref = (1, t)/(1 + t), t = 2^-620, r = (1, 0): KL(pi* || pi_ref) =
   * e/(e + t) - log((e + t)/(1 + t)), 6.1e-188 */
  {
    const double q2b[2] = { 1, 0x1p-620 }, r2b[2] = { 1, 0 };
    beta = 1;
    mpfr_set_ui (t, 1, MPFR_RNDN);
    mpfr_exp (t, t, MPFR_RNDN);
    mpfr_add_d (z, t, q2b[1], MPFR_RNDN);
    mpfr_div (want, t, z, MPFR_RNDN);
    mpfr_set_d (t, q2b[1], MPFR_RNDN);
    mpfr_add_ui (t, t, 1, MPFR_RNDN);
    mpfr_div (z, z, t, MPFR_RNDN);
    mpfr_log (z, z, MPFR_RNDN);
    mpfr_sub (want, want, z, MPFR_RNDN);
    TU_OK (rlref_dpofinite_equiv_bt_d (lp, h, &loss, &gn, &kl, q2b, r2b, 2, &beta));
    TU_ASSERT_REL (kl, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  }
  /* r = (1, 0), beta = 2^-1074: h_1 = -2^1074 is beyond binary64 */
  {
    const double r10[2] = { 1, 0 };
    beta = 0x1p-1074;
    TU_ASSERT_STATUS (rlref_dpofinite_equiv_bt_d (lp, h, &loss, &gn, &kl, q2, r10, 2, &beta),
                      RLREF_ERANGE);
  }
  mpfr_clears (z, t, want, (mpfr_ptr) 0);
}
END_TEST

/* h(e) = 1 + (e - 1) e^e, the KL term: e^2/2 + e^3/3 + ... near 0 with no
 * cancellation, 1 - 2/e at -1, 0 at 0; ERANGE where it overflows. */
START_TEST (test_kl_term)
{
  double r, e = 1e-8;
  TU_OK (rlref_kl_term_d (&r, &e));
  TU_ASSERT_REL (r, 5e-17 + 1e-24 / 3, 1e-15);
  e = 0;
  TU_OK (rlref_kl_term_d (&r, &e));
  TU_ASSERT_SAME (r, 0.0);
  e = -1;
  TU_OK (rlref_kl_term_d (&r, &e));
  TU_ASSERT_REL (r, 1 - 2 / exp (1.0), 1e-15);
  e = 710;
  TU_ASSERT_STATUS (rlref_kl_term_d (&r, &e), RLREF_ERANGE);
}
END_TEST

/* A reference outcome of probability 1e-323 (subnormal) beside two of
 * 1/2, at beta = 1e-8: W_0j = pi_ref_0 pi_ref_j P_0j underflows in
 * binary64, which took the preferences for deterministic (EDOM, "no
 * finite minimiser"); the binary64 answer is the MPFR solve at 2048 bits
 * rounded, every output. */
START_TEST (test_subnormal_reference)
{
  static const double q[3] = { 0x0.0000000000002p-1022, 0.5, 0.5 };
  static const double P[9] = { 0.5, 1, 0.5, 0, 0.5, 0.5, 0.5, 0.5, 0.5 };
  double beta = 0x1.5798ee2308c3ap-27, lp[3], h[3], out[3];
  mpfr_ptr qm = tu_mp_vec_from_d (q, 3, 2048), Pm = tu_mp_vec_from_d (P, 9, 2048);
  mpfr_ptr bm = tu_mp_vec_from_d (&beta, 1, 2048), y = tu_mp_vec_new (9, 2048);
  rlref_mp_set_prec (2048);
  TU_OK (rlref_dpofinite_equiv_mp (y, y + 3, y + 6, y + 7, y + 8, qm, Pm, 3, bm,
                                RLREF_DPOFINITE_DPO));
  TU_OK (rlref_dpofinite_equiv_d (lp, h, out, out + 1, out + 2, q, P, 3, &beta,
                               RLREF_DPOFINITE_DPO));
  for (int i = 0; i < 3; i++)
    {
      TU_ASSERT_SAME (lp[i], mpfr_get_d (y + i, MPFR_RNDN));
      TU_ASSERT_SAME (h[i], mpfr_get_d (y + 3 + i, MPFR_RNDN));
      TU_ASSERT_SAME (out[i], mpfr_get_d (y + 6 + i, MPFR_RNDN));
    }
  rlref_mp_set_prec (PREC);
  tu_mp_vec_free (qm, 3);
  tu_mp_vec_free (Pm, 9);
  tu_mp_vec_free (bm, 1);
  tu_mp_vec_free (y, 9);
}
END_TEST

static Suite *
dpofinite_suite (void)
{
  Suite *s = suite_create ("dpofinite");
  TCase *tc = tu_tcase ("equiv");
  tcase_add_test (tc, test_ipo_three);
  tcase_add_test (tc, test_bt_two);
  tcase_add_test (tc, test_pref_matches_bt_mp);
  suite_add_tcase (s, tc);
  tc = tu_tcase ("identities");
  tcase_add_test (tc, test_identities);
  tcase_add_test (tc, test_bad_inputs);
  tcase_add_test (tc, test_extreme_beta);
  tcase_add_test (tc, test_far_magnitudes);
  tcase_add_test (tc, test_kl_term);
  tcase_add_test (tc, test_subnormal_reference);
  suite_add_tcase (s, tc);
  return s;
}

TU_MAIN (dpofinite_suite)
