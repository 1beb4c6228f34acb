/* test_ppo.c -- PPO for language models: the per-token reward and its KL
 * penalty (13.9) with the seed's example, the sum identity (13.10) on the
 * tiny LM, the ratio, importance sampling, the clipped surrogate (13.12)
 * with the seeds' worked examples and the dual clip, the value loss and
 * its targets, the entropy bonus, whitening, the KL controller and the
 * early stop; binary64 (_d), MPFR (_mp) and the binary64 batch kernel.
 *
 * Expected values: the numbers printed in the seeds and CONVENTIONS.md
 * (to their printed digits); closed forms evaluated here with MPFR at 512
 * bits from the exact binary64 inputs; central differences at 256 bits
 * for every gradient; a tiny LM of two outcomes summed by hand; the batch
 * kernel against rlref_ppo_clip_d on seeded random batches; the float32
 * readings against C's own binary32 arithmetic. */
#include "testutil.h"

#define PREC 256
#define REF_PREC 512

/* ===== helpers ========================================================== */

/* r = e^-l - 1 + l at REF_PREC (plain: 512 bits hold the digits the
 * library certifies at 256 for |l| >= 1e-60). */
static void
ref_k3 (mpfr_ptr r, double l)
{
  mpfr_t t;
  mpfr_init2 (t, REF_PREC);
  mpfr_set_d (t, -l, MPFR_RNDN);
  mpfr_exp (r, t, MPFR_RNDN);
  mpfr_sub_ui (r, r, 1, MPFR_RNDN);
  mpfr_add_d (r, r, l, MPFR_RNDN);
  mpfr_clear (t);
}

/* MPFR vectors of the doubles x[0..n-1]. */
static mpfr_ptr
mpv (const double *x, size_t n)
{
  return tu_mp_vec_from_d (x, n, PREC);
}

/* A scalar at PREC holding d. */
static void
mps (mpfr_ptr r, double d)
{
  mpfr_init2 (r, PREC);
  mpfr_set_d (r, d, MPFR_RNDN);
}

/* d f / d x by a central difference at 256 bits, step 2^-90 (error of
 * order 1e-54): f evaluates the quantity at the current x. */
typedef void fd_fn (mpfr_ptr out, void *ctx);
static void
central (mpfr_ptr d, mpfr_ptr x, fd_fn *f, void *ctx)
{
  mpfr_t x0, h, up, dn;
  mpfr_inits2 (PREC, x0, h, up, dn, (mpfr_ptr) 0);
  mpfr_set (x0, x, MPFR_RNDN);
  mpfr_set_si_2exp (h, 1, -90, MPFR_RNDN);
  mpfr_add (x, x0, h, MPFR_RNDN);
  f (up, ctx);
  mpfr_sub (x, x0, h, MPFR_RNDN);
  f (dn, ctx);
  mpfr_set (x, x0, MPFR_RNDN);
  mpfr_sub (d, up, dn, MPFR_RNDN);
  mpfr_mul_2si (d, d, 89, MPFR_RNDN);          /* (up - dn)/(2 h) */
  mpfr_clears (x0, h, up, dn, (mpfr_ptr) 0);
}

/* ===== PPO-TOKREW-EX, PPO-TOKREW ========================================= */

/* 000 section 3: pi_ref 0.4 -> pi 0.9, penalty log(0.9/0.4) ~ 0.81;
 * k2 0.328804, k3 0.255375 (FORMULAS.md); each also equal to its closed
 * form in the binary64 inputs to 70 digits. */
START_TEST (test_tokrew_example)
{
  double p = 0.9, q = 0.4, rd, ld, k2d, k3d;
  mpfr_t P, Q, r, l, k2, k3, want;
  mps (P, p);
  mps (Q, q);
  mpfr_inits2 (PREC, r, l, k2, k3, (mpfr_ptr) 0);
  mpfr_init2 (want, REF_PREC);
  TU_OK (rlref_ppo_tokrew_ex_d (&rd, &ld, &k2d, &k3d, &p, &q));
  TU_OK (rlref_ppo_tokrew_ex_mp (r, l, k2, k3, P, Q));
  ck_assert_msg (fabs (ld - 0.810930) < 5e-7, "log(0.9/0.4) = %.17g", ld);
  ck_assert_msg (fabs (k2d - 0.328804) < 5e-7, "k2 = %.17g", k2d);
  ck_assert_msg (fabs (k3d - 0.255375) < 5e-7, "k3 = %.17g", k3d);
  mpfr_set_d (want, p, MPFR_RNDN);
  mpfr_div_d (want, want, q, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (r, want, 70);
  mpfr_log (want, want, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (l, want, 70);
  TU_ASSERT_REL (ld, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
  mpfr_sqr (want, want, MPFR_RNDN);
  mpfr_div_2ui (want, want, 1, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (k2, want, 70);
  TU_ASSERT_REL (k2d, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
  mpfr_set_d (want, q, MPFR_RNDN);               /* k3 = q/p - 1 + log(p/q) */
  mpfr_div_d (want, want, p, MPFR_RNDN);
  mpfr_sub_ui (want, want, 1, MPFR_RNDN);
  {
    mpfr_t t;
    mpfr_init2 (t, REF_PREC);
    mpfr_set_d (t, p, MPFR_RNDN);
    mpfr_div_d (t, t, q, MPFR_RNDN);
    mpfr_log (t, t, MPFR_RNDN);
    mpfr_add (want, want, t, MPFR_RNDN);
    mpfr_clear (t);
  }
  TU_ASSERT_MP_AGREE (k3, want, 70);
  TU_ASSERT_REL (k3d, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  mpfr_clears (P, Q, r, l, k2, k3, want, (mpfr_ptr) 0);
}
END_TEST

/* A log-ratio near 0: k3 ~ l^2/2 is kept to full relative accuracy in
 * binary64 (e^-l - 1 + l written directly returns noise or 0). */
START_TEST (test_tokrew_k3_cancellation)
{
  static const double ps[3] = { 0.5, 0.25, 0.9 }, qs[3] = { 0.5000001, 0.25000000000001, 0.9 };
  for (int i = 0; i < 3; i++)
    {
      double p = ps[i], q = qs[i], rd, ld, k2d, k3d;
      mpfr_t P, Q, r, l, k2, k3;
      mps (P, p);
      mps (Q, q);
      mpfr_inits2 (PREC, r, l, k2, k3, (mpfr_ptr) 0);
      TU_OK (rlref_ppo_tokrew_ex_d (&rd, &ld, &k2d, &k3d, &p, &q));
      TU_OK (rlref_ppo_tokrew_ex_mp (r, l, k2, k3, P, Q));
      if (p == q)
        {
          ck_assert (ld == 0.0 && k2d == 0.0 && k3d == 0.0 && mpfr_zero_p (k3));
          ck_assert (!signbit (k3d) && !signbit (ld));
        }
      else
        {
          TU_ASSERT_REL (ld, mpfr_get_d (l, MPFR_RNDN), TU_TOL0);
          TU_ASSERT_REL (k3d, mpfr_get_d (k3, MPFR_RNDN), TU_TOL1);
          /* k3 = l^2/2 - l^3/6 + ...: within 1% of l^2/2 here */
          ck_assert_msg (fabs (k3d / (0.5 * ld * ld) - 1) < 1e-2, "k3 %.17g, l %.17g", k3d, ld);
        }
      mpfr_clears (P, Q, r, l, k2, k3, (mpfr_ptr) 0);
    }
}
END_TEST

/* PPO-IS far from the old policy: logits (DBL_MAX, -40) against (0, 0),
 * f = (1, -1).  The second term p (p_old/p) f is e^(lp + (lp_old - lp)) f
 * with lp = -DBL_MAX: lp_old - lp rounded alone loses lp_old (the term was
 * e^0 f = -1 and e_is -0.5); as a sum of three rounded once it is
 * e^(lp_old) f, and e_is = e_old = 0, the identity (003). */
START_TEST (test_is_far_policy)
{
  double lo[2] = { 0, 0 }, l[2] = { DBL_MAX, -40 }, f[2] = { 1, -1 }, eo, ei, en, ec;
  TU_OK (rlref_ppo_is_d (&eo, &ei, &en, &ec, NULL, NULL, NULL, NULL, NULL, lo, l, f, 2));
  TU_ASSERT_SAME (eo, 0.0);
  TU_ASSERT_SAME (ei, 0.0);
  TU_ASSERT_SAME (en, 1.0);
  TU_ASSERT_SAME (ec, 1.0);
}
END_TEST

/* A probability ratio p/p_ref far from 1 (down to 1e-320 against 1e-300)
 * and at the edges of the log-ratio's branches: every output against its
 * closed form at 512 bits (l = log(p/p_ref) of the exact quotient, k3 =
 * p_ref/p - 1 + l), binary64 to 16 eps (log1p((p - p_ref)/p_ref) alone
 * gave l = -22.920490331 for -22.920490414 at p = 1e-10, -inf from
 * p = 1e-17).  A ratio or a k3 beyond the binary64 range is ERANGE in
 * binary64 and a value in MPFR. */
START_TEST (test_tokrew_tiny_ratio)
{
  static const double ps[][2] = {
    { 1e-10, 0.9 }, { 1e-15, 0.9 }, { 1e-17, 0.9 }, { 1e-300, 0.5 }, { 1e-308, 0.9 },
    { 1.1e-308, 0.5 }, { 1.2e-308, 0.5 }, { 1e-320, 1e-300 }, { 3e-300, 1e-300 },
    { 1e-305, 1e-300 }, { 0.45, 0.9 }, { 0.4499999, 0.9 }, { 0.9, 0.45 },
    { 0.9, 0.44999999 }, { 0.3311, 0.9 }, { 0.33109, 0.9 }, { 0.9, 0.33109 }, { 1, 1e-300 },
  };
  for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
    {
      double p = ps[i][0], q = ps[i][1], rd, ld, k2d, k3d;
      mpfr_t P, Q, r, l, k2, k3, wr, wl, wk2, wk3;
      mps (P, p);
      mps (Q, q);
      mpfr_inits2 (PREC, r, l, k2, k3, (mpfr_ptr) 0);
      mpfr_inits2 (REF_PREC, wr, wl, wk2, wk3, (mpfr_ptr) 0);
      TU_OK (rlref_ppo_tokrew_ex_d (&rd, &ld, &k2d, &k3d, &p, &q));
      TU_OK (rlref_ppo_tokrew_ex_mp (r, l, k2, k3, P, Q));
      mpfr_set_d (wr, p, MPFR_RNDN);
      mpfr_div_d (wr, wr, q, MPFR_RNDN);
      mpfr_log (wl, wr, MPFR_RNDN);
      mpfr_sqr (wk2, wl, MPFR_RNDN);
      mpfr_div_2ui (wk2, wk2, 1, MPFR_RNDN);
      mpfr_ui_div (wk3, 1, wr, MPFR_RNDN);
      mpfr_sub_ui (wk3, wk3, 1, MPFR_RNDN);
      mpfr_add (wk3, wk3, wl, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (r, wr, 70);
      TU_ASSERT_MP_AGREE (l, wl, 70);
      TU_ASSERT_MP_AGREE (k2, wk2, 70);
      TU_ASSERT_MP_AGREE (k3, wk3, 70);
      TU_ASSERT_REL (rd, mpfr_get_d (wr, MPFR_RNDN), TU_TOL1);
      TU_ASSERT_REL (ld, mpfr_get_d (wl, MPFR_RNDN), TU_TOL1);
      TU_ASSERT_REL (k2d, mpfr_get_d (wk2, MPFR_RNDN), TU_TOL1);
      TU_ASSERT_REL (k3d, mpfr_get_d (wk3, MPFR_RNDN), TU_TOL1);
      mpfr_clears (P, Q, r, l, k2, k3, wr, wl, wk2, wk3, (mpfr_ptr) 0);
    }
  {
    static const double big[][2] = { { 1, 1e-310 }, { 1e-310, 0.9 }, { 5e-324, 1 } };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
      {
        double p = big[i][0], q = big[i][1], a, b, c, d;
        mpfr_t P, Q, r, l, k2, k3;
        mps (P, p);
        mps (Q, q);
        mpfr_inits2 (PREC, r, l, k2, k3, (mpfr_ptr) 0);
        TU_ASSERT_STATUS (rlref_ppo_tokrew_ex_d (&a, &b, &c, &d, &p, &q), RLREF_ERANGE);
        TU_OK (rlref_ppo_tokrew_ex_mp (r, l, k2, k3, P, Q));
        ck_assert (mpfr_number_p (l) && mpfr_number_p (k3));
        mpfr_clears (P, Q, r, l, k2, k3, (mpfr_ptr) 0);
      }
  }
}
END_TEST

/* The conventions of PPO-TOKREW on the CONVENTIONS.md detectors l = 2, -2,
 * -29, -100 and on a padded response: the estimates (k1, clamped k1, k3,
 * clamped k3), the penalty -beta k, the score's place (TRL one slot past
 * the last token), the sums. */
START_TEST (test_tokrew_conventions)
{
  static const struct
  {
    const char *name;
    rlref_ppo_tokrew_convention c;
  } conv[] = {
    { "seed/verl k1", { RLREF_PPO_K1, 0, 0, 0, 0, 0, 0, 0 } },
    { "trl k1", { RLREF_PPO_K1, 0, 0, 1, 1, 0, 0, 0 } },
    { "trl k3", { RLREF_PPO_K3, 0, 0, 1, 1, 0, 0, 0 } },
    { "verl low_var_kl", { RLREF_PPO_K3, 1, 1, 0, 0, 0, 0, 0 } },
    { "openrlhf k1", { RLREF_PPO_K1, 0, 1, 0, 0, 0, 0, 0 } },
    { "openrlhf k3", { RLREF_PPO_K3, 0, 1, 0, 0, 0, 0, 0 } },
  };
  static const double lr[4] = { 2, -2, -29, -100 };
  double logp[6] = { 2, -2, -29, -100, 0, 0 }, ref[6] = { 0, 0, 0, 0, 0, 0 };
  long mask[6] = { 1, 1, 1, 1, 0, 0 };
  double score = 0.75, beta = 0.05;
  for (size_t k = 0; k < sizeof conv / sizeof conv[0]; k++)
    {
      const rlref_ppo_tokrew_convention *c = &conv[k].c;
      double rw[6], kl[6], rs, ks;
      mpfr_ptr L = mpv (logp, 6), R = mpv (ref, 6), rwm = tu_mp_vec_new (6, PREC),
        klm = tu_mp_vec_new (6, PREC);
      mpfr_t S, B, rsm, ksm, want;
      mps (S, score);
      mps (B, beta);
      mpfr_inits2 (PREC, rsm, ksm, (mpfr_ptr) 0);
      mpfr_init2 (want, REF_PREC);
      TU_OK (rlref_ppo_tokrew_d (rw, kl, &rs, &ks, logp, ref, mask, 6, &score, &beta, c));
      TU_OK (rlref_ppo_tokrew_mp (rwm, klm, rsm, ksm, L, R, mask, 6, S, B, c));
      for (int i = 0; i < 4; i++)
        {
          double l = lr[i];
          if (c->kl == RLREF_PPO_K1)
            mpfr_set_d (want, c->clamp_estimate ? fmax (-10, fmin (10, l)) : l, MPFR_RNDN);
          else
            {
              ref_k3 (want, c->clamp_log_ratio ? fmax (-20, fmin (20, l)) : l);
              if (c->clamp_estimate && mpfr_cmp_si (want, 10) > 0)
                mpfr_set_si (want, 10, MPFR_RNDN);
            }
          TU_ASSERT_MP_AGREE (klm + i, want, 70);
          TU_ASSERT_REL (kl[i], mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
          TU_ASSERT_REL (rw[i] + (i == 3 && !c->score_after_last ? -score : 0.0),
                         -beta * kl[i], TU_TOL1);
        }
      /* masked positions: no penalty; TRL's score on slot 4 */
      ck_assert (kl[4] == 0 && kl[5] == 0 && rw[5] == 0);
      ck_assert_msg (rw[4] == (c->score_after_last ? score : 0.0), "%s: rewards[4] = %g",
                     conv[k].name, rw[4]);
      TU_ASSERT_REL (ks, kl[0] + kl[1] + kl[2] + kl[3], TU_TOL1);
      TU_ASSERT_REL (rs, score - beta * ks, TU_TOL1);
      mpfr_clears (S, B, rsm, ksm, want, (mpfr_ptr) 0);
      tu_mp_vec_free (L, 6);
      tu_mp_vec_free (R, 6);
      tu_mp_vec_free (rwm, 6);
      tu_mp_vec_free (klm, 6);
    }
  /* the k1 detectors read directly: 2, -2, -29, -100 (OpenRLHF -10) */
  {
    rlref_ppo_tokrew_convention k1 = { RLREF_PPO_K1, 0, 0, 0, 0, 0, 0, 0 },
      o1 = { RLREF_PPO_K1, 0, 1, 0, 0, 0, 0, 0 };
    double rw[6], kl[6];
    TU_OK (rlref_ppo_tokrew_d (rw, kl, NULL, NULL, logp, ref, mask, 6, &score, &beta, &k1));
    ck_assert (kl[0] == 2 && kl[1] == -2 && kl[2] == -29 && kl[3] == -100);
    TU_OK (rlref_ppo_tokrew_d (rw, kl, NULL, NULL, logp, ref, mask, 6, &score, &beta, &o1));
    ck_assert (kl[2] == -10 && kl[3] == -10);
  }
  /* k3 of l = -2^-635 is 2^-1271 (1 + 2^-635/3 + ...), below the binary64
   * range, but beta k3 for beta = 1e167 is -1.485e-216: the penalty from
   * the mantissas of beta and l (it was 0); the estimate itself is 0 */
  {
    rlref_ppo_tokrew_convention low = { RLREF_PPO_K3, 1, 1, 0, 0, 0, 0, 0 };
    double lp2[2] = { -0x1p-635, -1 }, rf2[2] = { 0, -1 }, rw[2], kl[2], rs, ks, b2 = 1e167, sc0 = 0;
    long m2[2] = { 1, 1 };
    TU_OK (rlref_ppo_tokrew_d (rw, kl, &rs, &ks, lp2, rf2, m2, 2, &sc0, &b2, &low));
    TU_ASSERT_SAME (kl[0], 0.0);
    TU_ASSERT_SAME (rw[0], -ldexp (1e167 * 0x1p-600, -671));
    TU_ASSERT_SAME (rs, rw[0]);
  }
}
END_TEST

START_TEST (test_tokrew_bad_inputs)
{
  rlref_ppo_tokrew_convention c = { RLREF_PPO_K1, 0, 0, 0, 0, 0, 0, 0 },
    k3 = { RLREF_PPO_K3, 0, 0, 0, 0, 0, 0, 0 };
  double lp[3] = { -1, -2, -3 }, rf[3] = { -1, -1, -1 }, rw[3], s = 1, b = 0.1, nb = -0.1,
    nan_ = NAN, inf_ = INFINITY, big[1] = { -800 }, zero[1] = { 0 };
  long m[3] = { 1, 1, 1 }, m2[3] = { 1, 2, 1 }, m0[3] = { 0, 0, 0 };
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, NULL, NULL, NULL, lp, rf, m2, 3, &s, &b, &c),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, NULL, NULL, NULL, lp, rf, m0, 3, &s, &b, &c),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, NULL, NULL, NULL, lp, rf, m, 3, &s, &nb, &c),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, NULL, NULL, NULL, lp, rf, m, 3, &nan_, &b, &c),
                    RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, NULL, NULL, NULL, lp, rf, m, 3, &inf_, &b, &c),
                    RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, NULL, NULL, NULL, lp, rf, m, 0, &s, &b, &c),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, NULL, NULL, NULL, NULL, rf, m, 3, &s, &b, &c),
                    RLREF_EINVAL);
  /* unclamped k3 of l = -800: e^800 is beyond binary64 (MPFR holds it) */
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, NULL, NULL, NULL, big, zero, NULL, 1, &s, &b, &k3),
                    RLREF_ERANGE);
  {
    double p = 0, q = 0.4, one = 1.5, a, bb, cc, d;
    TU_ASSERT_STATUS (rlref_ppo_tokrew_ex_d (&a, &bb, &cc, &d, &p, &q), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_tokrew_ex_d (&a, &bb, &cc, &d, &q, &one), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_tokrew_ex_d (&a, &bb, &cc, &d, &nan_, &q), RLREF_ENAN);
  }
}
END_TEST

/* ===== PPO-RATIO, PPO-IS ================================================== */

START_TEST (test_ratio)
{
  double lp[5] = { -1, -0.5, 25, 20, -800 }, old[5] = { -2, -0.5, 0, 0, 0 }, r[5], l[5], g[5];
  TU_OK (rlref_ppo_ratio_d (r, l, g, lp, old, 5, 0));
  TU_ASSERT_REL (r[0], exp (1.0), TU_TOL0);            /* new minus old: e, not 1/e */
  ck_assert (r[1] == 1.0 && g[1] == 1.0);
  TU_ASSERT_REL (r[2], exp (25.0), TU_TOL0);
  ck_assert (r[4] == 0.0 && !signbit (r[4]));    /* e^-800: below binary64 */
  TU_OK (rlref_ppo_ratio_d (r, l, g, lp, old, 5, 1));
  TU_ASSERT_REL (r[2], exp (20.0), TU_TOL0);
  ck_assert (l[2] == 20 && g[2] == 0.0);         /* the clamp binds: no gradient */
  ck_assert (l[3] == 20 && g[3] == r[3]);        /* at the bound torch passes it */
  TU_ASSERT_REL (r[4], exp (-20.0), TU_TOL0);
  {
    mpfr_ptr L = mpv (lp, 5), O = mpv (old, 5), R = tu_mp_vec_new (5, PREC);
    mpfr_t w;
    mpfr_init2 (w, REF_PREC);
    TU_OK (rlref_ppo_ratio_mp (R, NULL, NULL, L, O, 5, 0));
    mpfr_set_si (w, -800, MPFR_RNDN);
    mpfr_exp (w, w, MPFR_RNDN);
    TU_ASSERT_MP_AGREE (R + 4, w, 70);           /* e^-800, exactly there in MPFR */
    mpfr_clear (w);
    tu_mp_vec_free (L, 5);
    tu_mp_vec_free (O, 5);
    tu_mp_vec_free (R, 5);
  }
  {
    double big = 710, z = 0, nan_ = NAN;
    TU_ASSERT_STATUS (rlref_ppo_ratio_d (r, NULL, NULL, &big, &z, 1, 0), RLREF_ERANGE);
    TU_OK (rlref_ppo_ratio_d (r, NULL, NULL, &big, &z, 1, 1));
    TU_ASSERT_STATUS (rlref_ppo_ratio_d (r, NULL, NULL, &nan_, &z, 1, 0), RLREF_ENAN);
    TU_ASSERT_STATUS (rlref_ppo_ratio_d (r, NULL, NULL, &big, &z, 0, 0), RLREF_EINVAL);
  }
}
END_TEST

/* 003: E_old[f] = E_theta[(pi_old/pi_theta) f] and E_theta[f] = E_old[rho f]
 * to 70 digits; d e_cpi / d logits against central differences; at
 * theta = theta_old the CPI gradient is the policy gradient; an action of
 * probability e^-80 keeps its gradient in binary64. */
struct is_ctx
{
  mpfr_ptr zo, z, f;
  size_t K;
};

static void
is_ecpi (mpfr_ptr out, void *vc)
{
  struct is_ctx *c = vc;
  mpfr_t a, b, d;
  mpfr_inits2 (PREC, a, b, d, (mpfr_ptr) 0);
  ck_assert_int_eq (rlref_ppo_is_mp (a, b, d, out, NULL, NULL, NULL, NULL, NULL, c->zo, c->z,
                                     c->f, c->K), 0);
  mpfr_clears (a, b, d, (mpfr_ptr) 0);
}

START_TEST (test_is)
{
  double zo[3] = { 0.2, -0.5, 1 }, z[3] = { 0.5, -0.125, 0.25 }, f[3] = { 1, -2, 0.5 };
  struct is_ctx c = { mpv (zo, 3), mpv (z, 3), mpv (f, 3), 3 };
  mpfr_ptr g = tu_mp_vec_new (3, PREC), pg = tu_mp_vec_new (3, PREC);
  mpfr_t eo, ei, en, ec, d;
  mpfr_inits2 (PREC, eo, ei, en, ec, d, (mpfr_ptr) 0);
  TU_OK (rlref_ppo_is_mp (eo, ei, en, ec, NULL, NULL, NULL, g, pg, c.zo, c.z, c.f, 3));
  TU_ASSERT_MP_AGREE (ei, eo, 70);
  TU_ASSERT_MP_AGREE (ec, en, 70);
  for (size_t k = 0; k < 3; k++)
    {
      central (d, c.z + k, is_ecpi, &c);
      TU_ASSERT_MP_AGREE (g + k, d, 45);
    }
  /* theta = theta_old */
  TU_OK (rlref_ppo_is_mp (eo, ei, en, ec, NULL, NULL, NULL, g, pg, c.zo, c.zo, c.f, 3));
  for (size_t k = 0; k < 3; k++)
    TU_ASSERT_MP_AGREE (g + k, pg + k, 70);
  {
    double a[2] = { 0, 0 }, b[2] = { 40, -40 }, ff[2] = { 1, -1 }, e1, gd[2];
    mpfr_ptr A = mpv (a, 2), Bv = mpv (b, 2), F = mpv (ff, 2), G = tu_mp_vec_new (2, PREC);
    TU_OK (rlref_ppo_is_d (&e1, NULL, NULL, NULL, NULL, NULL, NULL, gd, NULL, a, b, ff, 2));
    TU_OK (rlref_ppo_is_mp (eo, NULL, NULL, NULL, NULL, NULL, NULL, G, NULL, A, Bv, F, 2));
    /* p_0 (f_0 - E f) = 2 p_0 p_1 ~ 2 e^-80: not lost to 1 - 1 */
    TU_ASSERT_REL (gd[0], mpfr_get_d (G, MPFR_RNDN), TU_TOL1);
    ck_assert (gd[0] > 3e-35);
    tu_mp_vec_free (A, 2);
    tu_mp_vec_free (Bv, 2);
    tu_mp_vec_free (F, 2);
    tu_mp_vec_free (G, 2);
  }
  mpfr_clears (eo, ei, en, ec, d, (mpfr_ptr) 0);
  tu_mp_vec_free (c.zo, 3);
  tu_mp_vec_free (c.z, 3);
  tu_mp_vec_free (c.f, 3);
  tu_mp_vec_free (g, 3);
  tu_mp_vec_free (pg, 3);
}
END_TEST

/* ===== PPO-CLIP, PPO-CLIP-EX2, PPO-DUALCLIP =============================== */

static const rlref_ppo_clip_convention clip_conv[3] = { { 0, 0 }, { 1, 0 }, { 1, 1 } };
static const char *const clip_name[3] = { "plain", "clamped", "dual" };

/* The clip decided on the exact ratio, not on e^l rounded onto a bound:
 * e^(2^-436) against 1 + 2^-898 (both 1 in binary64; the exact ratio is
 * beyond the bound, the gradient 0); the double nearest log 1.5 minus
 * 2^-464 against 1.5 (its e^l rounds to 1.5; beyond it); logp - old_logp =
 * 20 + 2^-60 rounds onto the clamp's 20 but the clamp binds strictly
 * (PPO-RATIO's gradient 0).  Then tokens drawn within a few ulps of
 * log(1 + eps_high), log(1 - eps_low) and log c: the reference's clip
 * (gradient 0 for A > 0 above the range) agrees with the sign at 4000 bits
 * and the batch kernel with the reference bit for bit. */
START_TEST (test_clip_exact_edges)
{
  double lp = 0x1p-436, z = 0, a = 1, el = 0.2, eh = 0x1.1eb851eb851ecp-898, c3 = 3;
  double loss, s, g, cf, rho, lr;
  long m = 1;
  TU_OK (rlref_ppo_clip_d (&loss, &s, &rho, &g, &cf, &lp, &z, &a, &m, 1, &clip_conv[1], &el,
                           &eh, &c3));
  TU_ASSERT_SAME (g, 0.0);
  TU_ASSERT_SAME (cf, 1.0);
  lp = 0x1.9f323ecbf984cp-2;
  z = 0x1p-464;
  a = 0.5;
  eh = 0.5;
  ck_assert_int_eq (tu_exp_sign (lp, z, 1, 0.5), 1);
  TU_OK (rlref_ppo_clip_d (&loss, &s, &rho, &g, &cf, &lp, &z, &a, &m, 1, &clip_conv[2], &el,
                           &eh, &c3));
  TU_ASSERT_SAME (rho, 1.5);
  TU_ASSERT_SAME (g, 0.0);
  TU_ASSERT_SAME (s, 0.75);
  lp = 20;
  z = -0x1p-60;
  TU_OK (rlref_ppo_ratio_d (&rho, &lr, &g, &lp, &z, 1, 1));
  TU_ASSERT_SAME (lr, 20.0);
  TU_ASSERT_SAME (g, 0.0);
  {
    enum { N = 600 };
    gsl_rng *r = tu_rng_new ();
    double lps[N], olds[N], advs[N], s1[N], g1[N], s2[N], g2[N], loss1, loss2, cf1, cf2;
    long ml[N];
    unsigned char mb[N];
    for (int rep = 0; rep < 6; rep++)
      {
        const rlref_ppo_clip_convention *c = &clip_conv[rep % 3];
        double el2 = tu_uniform (r, 0, 0.5), eh2 = tu_uniform (r, 0, 0.5), dc = tu_uniform (r, 1.5, 5);
        double edge[3] = { log1p (eh2), log1p (-el2), log (dc) };
        for (int i = 0; i < N; i++)
          {
            int k = (int) gsl_rng_uniform_int (r, 3);
            double o = ldexp (tu_uniform (r, -1, 1), -(int) gsl_rng_uniform_int (r, 80) - 45);
            lps[i] = edge[k] + ldexp (tu_uniform (r, -4, 4), -52);
            olds[i] = i % 2 ? o : 0.0;
            advs[i] = i % 3 ? 1.0 : -1.0;
            ml[i] = 1;
            mb[i] = 1;
          }
        TU_OK (rlref_ppo_clip_d (&loss1, s1, NULL, g1, &cf1, lps, olds, advs, ml, N, c, &el2,
                                 &eh2, &dc));
        TU_OK (rlref_ppo_clip_batch (&loss2, s2, g2, &cf2, lps, olds, advs, mb, N, c, el2, eh2,
                                     dc));
        for (int i = 0; i < N; i++)
          {
            TU_ASSERT_SAME (s2[i], s1[i]);
            TU_ASSERT_SAME (g2[i], g1[i]);
            if (advs[i] > 0)
              ck_assert_msg ((g1[i] == 0) == (tu_exp_sign (lps[i], olds[i], 1, eh2) > 0),
                             "rep %d token %d: gradient %g, the exact ratio %s 1 + eps_high",
                             rep, i, g1[i], g1[i] == 0 ? "within" : "beyond");
          }
        TU_ASSERT_SAME (cf2, cf1);
      }
    gsl_rng_free (r);
  }
}
END_TEST

/* The seeds' worked examples: 003's A = 0.5, eps = 0.2, rho = 1.5 -> 0.6
 * (not 0.75), clip(2, 0.8, 1.2) = 1.2; CONVENTIONS' dual clip detector
 * eps 0.2, A = -1, rho = 5: loss 5 without, 3 with c = 3. */
START_TEST (test_clip_examples)
{
  double e = 0.2, c3 = 3, lp = log (1.5), z = 0, a = 0.5, loss, s, rho, g, cf;
  long m = 1;
  TU_OK (rlref_ppo_clip_d (&loss, &s, &rho, &g, &cf, &lp, &z, &a, &m, 1, &clip_conv[0], &e, &e,
                           NULL));
  TU_ASSERT_REL (s, 0.6, TU_TOL0);
  TU_ASSERT_REL (loss, -0.6, TU_TOL0);
  ck_assert (g == 0.0 && cf == 1.0);             /* clipped: no gradient */
  {
    double r2 = 2, one = 1, r15 = 1.5, h = 0.5, cl, u, sv;
    TU_OK (rlref_ppo_clip_one_d (&cl, &u, &sv, &r2, &one, &e));
    TU_ASSERT_REL (cl, 1.2, TU_TOL0);
    TU_OK (rlref_ppo_clip_one_d (&cl, &u, &sv, &r15, &h, &e));
    TU_ASSERT_REL (sv, 0.6, TU_TOL0);
    ck_assert (u == 0.75);
  }
  lp = log (5.0);
  a = -1;
  TU_OK (rlref_ppo_clip_d (&loss, &s, &rho, &g, &cf, &lp, &z, &a, &m, 1, &clip_conv[0], &e, &e,
                           NULL));
  TU_ASSERT_REL (loss, 5.0, TU_TOL0);
  TU_ASSERT_REL (g, 5.0, TU_TOL0);               /* -A rho / N */
  TU_OK (rlref_ppo_clip_d (&loss, &s, &rho, &g, &cf, &lp, &z, &a, &m, 1, &clip_conv[2], &e, &e,
                           &c3));
  ck_assert (loss == 3.0 && g == 0.0);
  {
    mpfr_t E, C, L, Z, A, loss_m;
    mps (E, 0.2);
    mps (C, 3);
    mps (L, log (5.0));
    mps (Z, 0);
    mps (A, -1);
    mpfr_init2 (loss_m, PREC);
    TU_OK (rlref_ppo_clip_mp (loss_m, NULL, NULL, NULL, NULL, L, Z, A, &m, 1, &clip_conv[2], E,
                              E, C));
    ck_assert (mpfr_cmp_ui (loss_m, 3) == 0);
    mpfr_clears (E, C, L, Z, A, loss_m, (mpfr_ptr) 0);
  }
}
END_TEST

/* The gradient of the token-mean loss against central differences in each
 * logp, every convention, on a batch away from the kinks with the clip,
 * the clamp and the dual bound binding somewhere.  The unclamped loss is
 * ~2e12 (rho = e^30): its rounding at 256 bits over the step 2^-90 leaves
 * the differences about 38 digits; 30 are asked. */
#define NB 7
static const double cb_lp[NB] = { -1, -0.3, -2, -0.9, 0.5, -0.125, 30 };
static const double cb_old[NB] = { -1.25, -0.625, -1.5, -0.875, 0.375, -0.5, 0 };
static const double cb_adv[NB] = { -0.75, 1.5, 0.8, -2, -1, 0.3125, -1 };
static const long cb_mask[NB] = { 1, 1, 1, 0, 1, 1, 1 };

struct clip_ctx
{
  mpfr_ptr lp, old, adv;
  mpfr_t e, c;
  const rlref_ppo_clip_convention *conv;
};

static void
clip_loss (mpfr_ptr out, void *vc)
{
  struct clip_ctx *c = vc;
  ck_assert_int_eq (rlref_ppo_clip_mp (out, NULL, NULL, NULL, NULL, c->lp, c->old, c->adv,
                                       cb_mask, NB, c->conv, c->e, c->e, c->c), 0);
}

START_TEST (test_clip_gradients_fd)
{
  for (int k = 0; k < 3; k++)
    {
      struct clip_ctx c;
      c.lp = mpv (cb_lp, NB);
      c.old = mpv (cb_old, NB);
      c.adv = mpv (cb_adv, NB);
      c.conv = &clip_conv[k];
      mpfr_ptr g = tu_mp_vec_new (NB, PREC);
      mpfr_t loss, d;
      double gd[NB], ld, e = 0.2, c3 = 3;
      mps (c.e, 0.2);
      mps (c.c, 3);
      mpfr_inits2 (PREC, loss, d, (mpfr_ptr) 0);
      TU_OK (rlref_ppo_clip_mp (loss, NULL, NULL, g, NULL, c.lp, c.old, c.adv, cb_mask, NB,
                                c.conv, c.e, c.e, c.c));
      TU_OK (rlref_ppo_clip_d (&ld, NULL, NULL, gd, NULL, cb_lp, cb_old, cb_adv, cb_mask, NB,
                               c.conv, &e, &e, &c3));
      for (size_t i = 0; i < NB; i++)
        {
          central (d, c.lp + i, clip_loss, &c);
          if (mpfr_zero_p (g + i))
            ck_assert_msg (fabs (mpfr_get_d (d, MPFR_RNDN)) < 1e-40, "%s grad[%zu] 0, fd %s",
                           clip_name[k], i, tu_mp_str (d));
          else
            ck_assert_msg (tu_mp_digits (g + i, d) >= 30, "%s grad[%zu] %s, fd %s",
                           clip_name[k], i, tu_mp_str (g + i), tu_mp_str (d));
          TU_ASSERT_REL (gd[i], mpfr_get_d (g + i, MPFR_RNDN), TU_TOL1);
        }
      TU_ASSERT_REL (ld, mpfr_get_d (loss, MPFR_RNDN), TU_TOL1);
      mpfr_clears (loss, d, c.e, c.c, (mpfr_ptr) 0);
      tu_mp_vec_free (c.lp, NB);
      tu_mp_vec_free (c.old, NB);
      tu_mp_vec_free (c.adv, NB);
      tu_mp_vec_free (g, NB);
    }
}
END_TEST

/* The batch kernel against rlref_ppo_clip_d on seeded random batches: the
 * per-token surrogate and gradient and the clip fraction bit for bit, the
 * loss (a plain sum) within (n - 1) u sum |s| / N of the reference's
 * correctly rounded sum; and the same statuses on bad input. */
START_TEST (test_clip_batch)
{
  gsl_rng *r = tu_rng_new ();
  enum { N = 2000 };
  double *lp = malloc (N * sizeof *lp), *old = malloc (N * sizeof *old),
    *adv = malloc (N * sizeof *adv), *s1 = malloc (N * sizeof *s1),
    *s2 = malloc (N * sizeof *s2), *g1 = malloc (N * sizeof *g1),
    *g2 = malloc (N * sizeof *g2);
  long *ml = malloc (N * sizeof *ml);
  unsigned char *mb = malloc (N);
  ck_assert (lp && old && adv && s1 && s2 && g1 && g2 && ml && mb);
  for (int rep = 0; rep < 20; rep++)
    {
      const rlref_ppo_clip_convention *c = &clip_conv[rep % 3];
      double el = tu_uniform (r, 0, 0.5), eh = tu_uniform (r, 0, 0.5), dc = tu_uniform (r, 1.5, 5);
      double loss1, loss2, cf1, cf2, sabs = 0;
      size_t cnt = 0;
      int n = 1 + (int) gsl_rng_uniform_int (r, N);
      for (int i = 0; i < n; i++)
        {
          lp[i] = tu_uniform (r, -8, 0);
          old[i] = lp[i] + tu_uniform (r, -1, 1) * (rep % 5 == 4 ? 30 : 0.5);
          adv[i] = tu_uniform (r, -3, 3);
          ml[i] = gsl_rng_uniform (r) < 0.8;
          mb[i] = (unsigned char) ml[i];
          cnt += (size_t) ml[i];
        }
      if (cnt == 0)
        {
          ml[0] = mb[0] = 1;
          cnt = 1;
        }
      TU_OK (rlref_ppo_clip_d (&loss1, s1, NULL, g1, &cf1, lp, old, adv, ml, (size_t) n, c, &el,
                               &eh, &dc));
      TU_OK (rlref_ppo_clip_batch (&loss2, s2, g2, &cf2, lp, old, adv, mb, (size_t) n, c, el, eh,
                                   dc));
      for (int i = 0; i < n; i++)
        {
          TU_ASSERT_SAME (s2[i], s1[i]);
          TU_ASSERT_SAME (g2[i], g1[i]);
          sabs += fabs (s1[i]);
        }
      TU_ASSERT_SAME (cf2, cf1);
      ck_assert_msg (fabs (loss2 - loss1) <= (n - 1) * 0x1p-53 * sabs / (double) cnt
                     + 0x1p-52 * fabs (loss1), "rep %d: batch loss %.17g, reference %.17g",
                     rep, loss2, loss1);
    }
  {
    double e = 0.2, one = 1, loss, nan_ = NAN, c3 = 3;
    unsigned char m2 = 2, m0 = 0;
    TU_ASSERT_STATUS (rlref_ppo_clip_batch (&loss, NULL, NULL, NULL, lp, old, adv, &m2, 1,
                                            &clip_conv[0], e, e, c3), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_clip_batch (&loss, NULL, NULL, NULL, lp, old, adv, &m0, 1,
                                            &clip_conv[0], e, e, c3), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_clip_batch (&loss, NULL, NULL, NULL, lp, old, adv, NULL, 1,
                                            &clip_conv[0], one, e, c3), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_clip_batch (&loss, NULL, NULL, NULL, lp, old, adv, NULL, 1,
                                            &clip_conv[2], e, e, one), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_clip_batch (&loss, NULL, NULL, NULL, lp, old, adv, NULL, 0,
                                            &clip_conv[0], e, e, c3), RLREF_EINVAL);
    adv[0] = nan_;
    TU_ASSERT_STATUS (rlref_ppo_clip_batch (&loss, NULL, NULL, NULL, lp, old, adv, NULL, 1,
                                            &clip_conv[0], e, e, c3), RLREF_ENAN);
    lp[0] = 800;
    old[0] = 0;
    adv[0] = 1;
    TU_ASSERT_STATUS (rlref_ppo_clip_batch (&loss, NULL, NULL, NULL, lp, old, adv, NULL, 1,
                                            &clip_conv[0], e, e, c3), RLREF_ERANGE);
    TU_OK (rlref_ppo_clip_batch (&loss, NULL, NULL, NULL, lp, old, adv, NULL, 1, &clip_conv[1],
                                 e, e, c3));
  }
  free (lp); free (old); free (adv); free (s1); free (s2); free (g1); free (g2); free (ml);
  free (mb);
  gsl_rng_free (r);
}
END_TEST

START_TEST (test_clip_bad_inputs)
{
  double lp[2] = { -1, -2 }, old[2] = { -1, -2 }, adv[2] = { 1, 1 }, loss, e = 0.2, one = 1,
    neg = -0.1, nan_ = NAN, c3 = 3;
  long m2[2] = { 1, 3 }, m0[2] = { 0, 0 };
  TU_ASSERT_STATUS (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, lp, old, adv, m2, 2,
                                      &clip_conv[0], &e, &e, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, lp, old, adv, m0, 2,
                                      &clip_conv[0], &e, &e, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, lp, old, adv, NULL, 2,
                                      &clip_conv[0], &one, &e, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, lp, old, adv, NULL, 2,
                                      &clip_conv[0], &neg, &e, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, lp, old, adv, NULL, 2,
                                      &clip_conv[2], &e, &e, &one), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, lp, old, adv, NULL, 2,
                                      &clip_conv[0], &nan_, &e, NULL), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, lp, old, adv, NULL, 0,
                                      &clip_conv[0], &e, &e, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_ppo_clip_d (NULL, NULL, NULL, NULL, NULL, lp, old, adv, NULL, 2,
                                      &clip_conv[0], &e, &e, NULL), RLREF_EINVAL);
  lp[1] = INFINITY;
  TU_ASSERT_STATUS (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, lp, old, adv, NULL, 2,
                                      &clip_conv[2], &e, &e, &c3), RLREF_ENAN);
  {
    double r = -1, a = 1, cl, u, s;
    TU_ASSERT_STATUS (rlref_ppo_clip_one_d (&cl, &u, &s, &r, &a, &e), RLREF_EDOM);
    r = 1;
    TU_ASSERT_STATUS (rlref_ppo_clip_one_d (&cl, &u, &s, &r, &a, &one), RLREF_EDOM);
  }
}
END_TEST

/* ===== PPO-VALUE ========================================================= */

/* One token each, by hand (V, V_old, R, c): the four readings of the value
 * loss and their gradients. */
START_TEST (test_value_loss)
{
  static const struct
  {
    rlref_ppo_value_convention c;
    double clip, loss, grad, clipfrac;
  } k[] = {
    /* V = 0.25, V_old = 1, R = 0.25: (V - R)^2 = 0; clipped V = 1 - c */
    { { 0, RLREF_PPO_VALUE_UNCLIPPED, 0, 0 }, 0, 0, 0, 0 },
    { { 1, RLREF_PPO_VALUE_CLAMP, 0, 0 }, 0.5, 0.5 * 0.25 * 0.25, 0, 1 }, /* (0.5 - 0.25)^2 / 2 */
    { { 1, RLREF_PPO_VALUE_DELTA, 0, 0 }, 0.5, 0.5 * 0.25 * 0.25, 0, 1 },
    { { 1, RLREF_PPO_VALUE_UNCLIPPED, 0, 0 }, 0.5, 0, 0, 0 },
  };
  double v = 0.25, vo = 1, r = 0.25, loss, g, cf;
  long m = 1;
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    {
      TU_OK (rlref_ppo_value_loss_d (&loss, NULL, &g, &cf, &v, &vo, &r, &m, 1, &k[i].c,
                                     &k[i].clip));
      ck_assert_msg (loss == k[i].loss && g == k[i].grad && cf == k[i].clipfrac,
                     "convention %zu: loss %.17g grad %g clipfrac %g", i, loss, g, cf);
    }
  /* a batch: the seed's reading is twice the unclipped half */
  {
    double V[4] = { 0.55, 1.4, -0.2, 2 }, Vo[4] = { 0.3, 0.7, 0.1, 2.125 },
      R[4] = { 1, 0.25, 0.4, 1.875 }, l1, l2, g1[4], g2[4], c = 0.2;
    rlref_ppo_value_convention seed = { 0, RLREF_PPO_VALUE_UNCLIPPED, 0, 0 },
      half = { 1, RLREF_PPO_VALUE_UNCLIPPED, 0, 0 };
    TU_OK (rlref_ppo_value_loss_d (&l1, NULL, g1, NULL, V, Vo, R, NULL, 4, &seed, &c));
    TU_OK (rlref_ppo_value_loss_d (&l2, NULL, g2, NULL, V, Vo, R, NULL, 4, &half, &c));
    TU_ASSERT_REL (l1, 2 * l2, TU_TOL0);
    for (int i = 0; i < 4; i++)
      {
        TU_ASSERT_REL (g1[i], 2 * g2[i], TU_TOL0);
        TU_ASSERT_REL (g2[i], (V[i] - R[i]) / 4, TU_TOL0);
      }
    /* TRL's clipped form at c = 0.2: token 1 (V moved 0.7) is clipped to 0.9,
     * (0.9 - 0.25)^2 < (1.4 - 0.25)^2: the unclipped square; token 2 clipped
     * to -0.1: (-0.1 - 0.4)^2 = 0.25 < 0.36 */
    {
      rlref_ppo_value_convention trl = { 1, RLREF_PPO_VALUE_CLAMP, 0, 0 };
      double lt, gt[4], want = 0;
      TU_OK (rlref_ppo_value_loss_d (&lt, NULL, gt, NULL, V, Vo, R, NULL, 4, &trl, &c));
      for (int i = 0; i < 4; i++)
        {
          double vc = fmin (fmax (V[i], Vo[i] - c), Vo[i] + c);
          want += fmax ((V[i] - R[i]) * (V[i] - R[i]), (vc - R[i]) * (vc - R[i]));
        }
      TU_ASSERT_REL (lt, want / 8, TU_TOL1);
    }
  }
  /* the larger square decided exactly: R = 2^367 far above V = 2^-846 and
   * its clipped value 0.3 (V_old 0.5, c 0.2) makes (V - R)^2 and
   * (0.3 - R)^2 the same double, but V < 0.3 makes the unclipped square
   * the larger: dl/dV = V - R, not the tie's half.  And V_old + c rounded
   * is not the exact bound: 0.5 + 0.2 (both doubles) rounds to V = 0.7 (the
   * double), which lies below it, so verl's max(min(V, hi), lo) passes the
   * whole gradient (V - R), not the half of a tie at hi */
  {
    double vv = 0x1p-846, vo2 = 0.5, rr = 0x1p+367, cc = 0.2, l, g2, cf;
    rlref_ppo_value_convention trl = { 1, RLREF_PPO_VALUE_CLAMP, 0, 0 };
    TU_OK (rlref_ppo_value_loss_d (&l, NULL, &g2, &cf, &vv, &vo2, &rr, NULL, 1, &trl, &cc));
    TU_ASSERT_SAME (g2, -0x1p+367);
    TU_ASSERT_SAME (cf, 0.0);
  }
  {
    double vv = 0.7, vo2 = 0.5, rr = 0, cc = 0.2, l, g2;
    rlref_ppo_value_convention verl = { 1, RLREF_PPO_VALUE_MAXMIN, 0, 0 };
    ck_assert (vo2 + cc == vv);
    TU_OK (rlref_ppo_value_loss_d (&l, NULL, &g2, NULL, &vv, &vo2, &rr, NULL, 1, &verl, &cc));
    TU_ASSERT_SAME (g2, 0.7);
  }
  {
    double nan_ = NAN, neg = -0.5, l;
    rlref_ppo_value_convention cl = { 1, RLREF_PPO_VALUE_CLAMP, 0, 0 };
    long m2 = 2;
    TU_ASSERT_STATUS (rlref_ppo_value_loss_d (&l, NULL, NULL, NULL, &v, &vo, &r, &m2, 1,
                                              &cl, &neg), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_value_loss_d (&l, NULL, NULL, NULL, &v, &vo, &r, NULL, 1,
                                              &cl, &neg), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_value_loss_d (&l, NULL, NULL, NULL, &nan_, &vo, &r, NULL, 1,
                                              &cl, &neg), RLREF_ENAN);
  }
}
END_TEST

/* Gradients of the clipped losses against central differences. */
struct value_ctx
{
  mpfr_ptr V, Vo, R;
  mpfr_t c;
  const rlref_ppo_value_convention *conv;
};

static void
value_loss (mpfr_ptr out, void *vc)
{
  struct value_ctx *c = vc;
  ck_assert_int_eq (rlref_ppo_value_loss_mp (out, NULL, NULL, NULL, c->V, c->Vo, c->R, NULL, 4,
                                             c->conv, c->c), 0);
}

START_TEST (test_value_gradients_fd)
{
  static const rlref_ppo_value_convention cv[3] = {
    { 0, RLREF_PPO_VALUE_UNCLIPPED, 0, 0 }, { 1, RLREF_PPO_VALUE_CLAMP, 0, 0 },
    { 1, RLREF_PPO_VALUE_DELTA, 0, 0 }
  };
  double V[4] = { 0.55, 1.4, -0.2, 2 }, Vo[4] = { 0.3, 0.7, 0.1, 2.125 },
    R[4] = { 1, 0.25, 0.4, 1.875 };
  for (int k = 0; k < 3; k++)
    {
      struct value_ctx c;
      c.V = mpv (V, 4);
      c.Vo = mpv (Vo, 4);
      c.R = mpv (R, 4);
      c.conv = &cv[k];
      mpfr_ptr g = tu_mp_vec_new (4, PREC);
      mpfr_t loss, d;
      mps (c.c, 0.2);
      mpfr_inits2 (PREC, loss, d, (mpfr_ptr) 0);
      TU_OK (rlref_ppo_value_loss_mp (loss, NULL, g, NULL, c.V, c.Vo, c.R, NULL, 4, c.conv,
                                      c.c));
      for (size_t i = 0; i < 4; i++)
        {
          central (d, c.V + i, value_loss, &c);
          if (mpfr_zero_p (g + i))
            ck_assert (fabs (mpfr_get_d (d, MPFR_RNDN)) < 1e-40);
          else
            TU_ASSERT_MP_AGREE (g + i, d, 45);
        }
      mpfr_clears (loss, d, c.c, (mpfr_ptr) 0);
      tu_mp_vec_free (c.V, 4);
      tu_mp_vec_free (c.Vo, 4);
      tu_mp_vec_free (c.R, 4);
      tu_mp_vec_free (g, 4);
    }
}
END_TEST

/* The two targets and the full objective: CONVENTIONS' GAE detector
 * A = (0.82675, 0.765, 0.7), V = (0.1, 0.2, 0.3) gives A + V; the
 * Monte-Carlo return with gamma 0.9; the entropy of a uniform row is
 * log V, of a one-token row 0; objective = l_clip - c1 l_vf + c2 H. */
START_TEST (test_value_targets_objective)
{
  double vo[3] = { 0.1, 0.2, 0.3 }, a[3] = { 0.82675, 0.765, 0.7 }, t[3];
  TU_OK (rlref_ppo_gae_target_d (t, vo, a, 3));
  TU_ASSERT_REL (t[0], 0.92675, TU_TOL0);
  TU_ASSERT_REL (t[2], 1.0, TU_TOL0);
  {
    double r[3] = { 0.5, -0.25, 1 }, g = 0.9, mc[3], neg = -0.5;
    TU_OK (rlref_ppo_mc_return_d (mc, r, 3, &g));
    TU_ASSERT_REL (mc[2], 1.0, TU_TOL0);
    TU_ASSERT_REL (mc[1], -0.25 + 0.9, TU_TOL0);
    TU_ASSERT_REL (mc[0], 0.5 - 0.225 + 0.81, TU_TOL0);
    TU_ASSERT_STATUS (rlref_ppo_mc_return_d (mc, r, 3, &neg), RLREF_EDOM);
  }
  {
    double z[9] = { 0, 0, 0, 1, 2, 3, 40, 0, 0 }, lc = 0.25, lv = 0.5, c1 = 0.5, c2 = 0.01, h[3],
      hm, obj, loss, hsm, p[3], s = exp (1) + exp (2) + exp (3);
    long m[3] = { 1, 1, 0 };
    TU_OK (rlref_ppo_objective_d (h, &hm, &obj, &loss, z, 3, m, 3, &lc, &lv, &c1, &c2, NULL));
    TU_ASSERT_REL (h[0], log (3.0), TU_TOL0);
    hsm = 0;
    for (int i = 0; i < 3; i++)
      {
        p[i] = exp (i + 1) / s;
        hsm -= p[i] * log (p[i]);
      }
    TU_ASSERT_REL (h[1], hsm, TU_TOL1);
    TU_ASSERT_REL (hm, (h[0] + h[1]) / 2, TU_TOL0);
    TU_ASSERT_REL (obj, lc - c1 * lv + c2 * hm, TU_TOL0);
    ck_assert (loss == -obj);
    {
      double z1[2] = { 5, 5 }, h1[2];
      TU_OK (rlref_ppo_objective_d (h1, &hm, &obj, &loss, z1, 1, NULL, 2, &lc, &lv, &c1, &c2,
                                    NULL));
      ck_assert (h1[0] == 0 && h1[1] == 0 && !signbit (h1[0]));
    }
  }
}
END_TEST

/* ===== PPO-WHITEN ======================================================== */

/* CONVENTIONS [1, 2, 3]: TRL, verl +-1/sqrt(1 + 1e-8) = +-0.999999995,
 * OpenRLHF +-sqrt(3/2) = +-1.2247449; the mean added back; masked
 * positions; values near the top of the range; one value. */
START_TEST (test_whiten)
{
  static const rlref_ppo_whiten_convention trl = { 1, RLREF_PPO_EPS_IN_SQRT, 0, 1, 0 },
    verl = { 1, RLREF_PPO_EPS_IN_SQRT, 0, 0, 0 }, back = { 1, RLREF_PPO_EPS_IN_SQRT, 1, 1, 0 },
    orl = { 0, RLREF_PPO_EPS_FLOOR, 0, 0, 0 }, out = { 1, RLREF_PPO_EPS_ADD_STD, 0, 0, 0 };
  double x[3] = { 1, 2, 3 }, w[3], mu, sd, sc, eps = 1e-8;
  TU_OK (rlref_ppo_whiten_d (w, &mu, &sd, &sc, x, NULL, 3, &trl, &eps));
  TU_ASSERT_REL (w[2], 1 / sqrt (1 + 1e-8), TU_TOL0);
  ck_assert (fabs (w[2] - 0.999999995) < 5e-10 && w[1] == 0 && !signbit (w[1]));
  ck_assert (mu == 2 && sd == 1);
  TU_OK (rlref_ppo_whiten_d (w, &mu, &sd, &sc, x, NULL, 3, &orl, &eps));
  TU_ASSERT_REL (w[2], sqrt (1.5), TU_TOL0);
  ck_assert (fabs (w[0] + 1.2247449) < 5e-8);
  TU_OK (rlref_ppo_whiten_d (w, &mu, &sd, &sc, x, NULL, 3, &back, &eps));
  TU_ASSERT_REL (w[2], 2 + 1 / sqrt (1 + 1e-8), TU_TOL0);
  TU_OK (rlref_ppo_whiten_d (w, &mu, &sd, &sc, x, NULL, 3, &out, &eps));
  TU_ASSERT_REL (w[2], 1 / (1 + 1e-8), TU_TOL0);
  /* values an ulp apart: 2 - 2u, 2, 2 (u = 2^-52) have the mean 2 - 2u/3,
   * the deviations -4u/3, 2u/3, 2u/3 and the ddof-1 std 2u/sqrt(3): w =
   * -2/sqrt(3), 1/sqrt(3), 1/sqrt(3) (on the mean rounded, -1/sqrt(3) ...) */
  {
    double z[3] = { 2 - 0x1p-51, 2, 2 }, tiny = 0x1p-241;
    TU_OK (rlref_ppo_whiten_d (w, &mu, &sd, &sc, z, NULL, 3, &verl, &tiny));
    TU_ASSERT_REL (w[0], -2 / sqrt (3), TU_TOL1);
    TU_ASSERT_REL (w[1], 1 / sqrt (3), TU_TOL1);
    TU_ASSERT_REL (w[2], 1 / sqrt (3), TU_TOL1);
  }
  {
    double y[5] = { 0.5, -1.25, 9, 2, -9 }, wt[5], wv[5];
    long m[5] = { 1, 1, 0, 1, 0 };
    TU_OK (rlref_ppo_whiten_d (wt, &mu, &sd, &sc, y, m, 5, &trl, &eps));
    TU_OK (rlref_ppo_whiten_d (wv, &mu, &sd, &sc, y, m, 5, &verl, &eps));
    ck_assert (wt[2] == 0 && wt[4] == 0);
    TU_ASSERT_REL (mu, 1.25 / 3, TU_TOL0);
    TU_ASSERT_REL (wv[2], (9 - mu) / sc, TU_TOL0);
    for (int i = 0; i < 5; i++)
      if (m[i])
        ck_assert (wt[i] == wv[i]);
  }
  {
    /* the squares overflow binary64; the result does not */
    double y[3] = { 1e200, -1e200, 3e200 }, wb[3], ws[3], s[3] = { 1, -1, 3 };
    TU_OK (rlref_ppo_whiten_d (wb, &mu, &sd, &sc, y, NULL, 3, &orl, &eps));
    TU_OK (rlref_ppo_whiten_d (ws, NULL, NULL, NULL, s, NULL, 3, &orl, &eps));
    for (int i = 0; i < 3; i++)
      TU_ASSERT_REL (wb[i], ws[i], TU_TOL1);
    TU_ASSERT_REL (mu, 1e200, TU_TOL0);
  }
  {
    double one = 1, zero = 0, two[2] = { 2, 2 }, w2[2], neg = -1e-8;
    TU_ASSERT_STATUS (rlref_ppo_whiten_d (w, NULL, NULL, NULL, &one, NULL, 1, &trl, &eps),
                      RLREF_EDOM);
    TU_OK (rlref_ppo_whiten_d (w, NULL, &sd, &sc, &one, NULL, 1, &orl, &eps));
    ck_assert (w[0] == 0 && sd == 0 && sc == sqrt (1e-8));
    TU_ASSERT_STATUS (rlref_ppo_whiten_d (w2, NULL, NULL, NULL, two, NULL, 2, &trl, &zero),
                      RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_whiten_d (w, NULL, NULL, NULL, x, NULL, 3, &trl, &neg),
                      RLREF_EDOM);
  }
  {
    mpfr_ptr X = mpv (x, 3), W = tu_mp_vec_new (3, PREC);
    mpfr_t E, want;
    mps (E, 1e-8);
    mpfr_init2 (want, REF_PREC);
    TU_OK (rlref_ppo_whiten_mp (W, NULL, NULL, NULL, X, NULL, 3, &verl, E));
    mpfr_set_d (want, 1e-8, MPFR_RNDN);
    mpfr_add_ui (want, want, 1, MPFR_RNDN);
    mpfr_rec_sqrt (want, want, MPFR_RNDN);
    TU_ASSERT_MP_AGREE (W + 2, want, 70);
    mpfr_clears (E, want, (mpfr_ptr) 0);
    tu_mp_vec_free (X, 3);
    tu_mp_vec_free (W, 3);
  }
}
END_TEST

/* ===== PPO-KLCTL ========================================================= */

START_TEST (test_klctl)
{
  double kl[5] = { 0.1, 0.115, 0.05, 0.5, -0.02 }, err[5], coef[5], b = 0.001, t = 0.1,
    h = 10000, want;
  TU_OK (rlref_ppo_kl_controller_d (err, coef, kl, 5, &b, 1024, &t, &h, 1));
  ck_assert (err[0] == 0.0);
  TU_ASSERT_REL (err[1], 0.15, TU_TOL1);
  ck_assert (err[2] == -0.2 && err[3] == 0.2 && err[4] == -0.2);   /* the binary64 0.2 */
  want = 0.001 * (1 + 0.15 * 1024 / 10000) * (1 - 0.2 * 1024 / 10000) * (1 + 0.2 * 1024 / 10000)
    * (1 - 0.2 * 1024 / 10000);
  TU_ASSERT_REL (coef[4], want, TU_TOL1);
  TU_OK (rlref_ppo_kl_controller_d (err, coef, kl, 5, &b, 1024, NULL, NULL, 0));
  for (int i = 0; i < 5; i++)
    ck_assert (err[i] == 0 && coef[i] == b);
  TU_ASSERT_STATUS (rlref_ppo_kl_controller_d (err, coef, kl, 5, &b, -1, &t, &h, 1), RLREF_EDOM);
  {
    double z = 0;
    TU_ASSERT_STATUS (rlref_ppo_kl_controller_d (err, coef, kl, 5, &b, 1, &z, &h, 1),
                      RLREF_EDOM);
  }
  /* early stop: 003 steps then tests KL > target; Spinning Up tests 1.5
   * target before the step */
  {
    double k1[5] = { 0.004, 0.008, 0.012, 0.02, 0.001 }, k2[3] = { 0.004, 0.011, 0.02 },
      k3[2] = { 0.05, 0.001 }, tk = 0.01, f1 = 1, f15 = 1.5;
    size_t u;
    int st;
    TU_OK (rlref_ppo_early_stop_d (&u, &st, k1, 5, &tk, &f1, 0));
    ck_assert (u == 3 && st == 1);
    TU_OK (rlref_ppo_early_stop_d (&u, &st, k1, 5, &tk, &f15, 1));
    ck_assert (u == 3 && st == 1);
    TU_OK (rlref_ppo_early_stop_d (&u, &st, k2, 3, &tk, &f1, 0));
    ck_assert (u == 2 && st == 1);
    TU_OK (rlref_ppo_early_stop_d (&u, &st, k2, 3, &tk, &f15, 1));
    ck_assert (u == 2 && st == 1);
    TU_OK (rlref_ppo_early_stop_d (&u, &st, k3, 2, &tk, &f1, 0));
    ck_assert (u == 1 && st == 1);
    TU_OK (rlref_ppo_early_stop_d (&u, &st, k3, 2, &tk, &f15, 1));
    ck_assert (u == 0 && st == 1);
    TU_OK (rlref_ppo_early_stop_d (&u, &st, k1, 2, &tk, &f1, 0));
    ck_assert (u == 2 && st == 0);
    TU_ASSERT_STATUS (rlref_ppo_early_stop_d (&u, &st, k1, 0, &tk, &f1, 0), RLREF_EINVAL);
  }
}
END_TEST

/* ===== PPO-KLSUM ========================================================= */

/* A bigram model of V = 2, EOS 1, T = 1: two outcomes, y = (1) ended by
 * EOS and y = (0) cut, with probabilities the softmax of the start row.
 * KL(pi || pi_ref) = sum_a p_a log(p_a/q_a) by hand; 13.10: the enumerated
 * per-token sum equals it; E[sum_t r_t] = E[r] - beta KL. */
START_TEST (test_klsum_by_hand)
{
  double th[6] = { 0, 0, 0, 0, 0.75, -0.5 }, rf[6] = { 0, 0, 0, 0, -0.25, 0.5 },
    rw[4] = { 2, 1, 0.5, -3 }, beta = 0.5, tl[1], sl, tr[1], klt, kl, rt, rl;
  int y[1] = { 0 };
  rlref_lm lm = { .V = 2, .eos = 1, .T = 1, .kind = RLREF_LM_BIGRAM,
                  .truncation = RLREF_LM_KEEP, .n_rows = 3, .reward = RLREF_REWARD_ADDITIVE };
  double p0 = 1 / (1 + exp (-1.25)), q0 = 1 / (1 + exp (0.75)), want, er;
  TU_OK (rlref_ppo_klsum_d (tl, &sl, tr, &klt, &kl, &rt, &rl, &lm, th, rf, rw, &beta, y, 1));
  want = p0 * log (p0 / q0) + (1 - p0) * log ((1 - p0) / (1 - q0));
  TU_ASSERT_REL (kl, want, TU_TOL1);
  TU_ASSERT_REL (klt, want, TU_TOL1);
  TU_ASSERT_REL (tl[0], log (p0 / q0), TU_TOL1);
  ck_assert (sl == tl[0]);
  /* r(0, cut) = 2 + 0.5 + (-3); r(1) = 1 + 0.5 */
  er = p0 * (2 + 0.5 - 3) + (1 - p0) * (1 + 0.5);
  TU_ASSERT_REL (rl, er - beta * want, TU_TOL1);
  TU_ASSERT_REL (rt, er - beta * want, TU_TOL1);
  TU_ASSERT_REL (tr[0], -beta * tl[0] + (2 + 0.5 - 3), TU_TOL1);
  {
    rlref_lm cond = lm;
    double z = 0;
    cond.truncation = RLREF_LM_CONDITION;
    TU_ASSERT_STATUS (rlref_ppo_klsum_d (tl, &sl, tr, &klt, &kl, &rt, &rl, &cond, th, rf, rw,
                                         &beta, y, 1), RLREF_EINVAL);
    TU_ASSERT_STATUS (rlref_ppo_klsum_d (tl, &sl, tr, &klt, &kl, &rt, &rl, &lm, th, rf, rw, &z,
                                         y, 1), RLREF_EDOM);
  }
}
END_TEST

/* 13.10 on the tabular model of the LM family (V = 3, T = 3, 15
 * sequences) in MPFR: both sides agree to 70 digits. */
START_TEST (test_klsum_identity_mp)
{
  static const double th[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2, 0, 0, 0,
                                 1, -1, 0, -0.3, 0.3, 0 };
  static const double rf[21] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1, 0.1, -0.1, 0.3, 0.2,
                                 0.2, 0.2, -1, 0, 1 };
  static const double rw[5] = { 1, -0.5, 0, -0.25, -1 };
  int y[3] = { 1, 0, 0 };
  rlref_lm lm = { .V = 3, .eos = 2, .T = 3, .kind = RLREF_LM_TABULAR,
                  .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  mpfr_ptr T = mpv (th, 21), R = mpv (rf, 21), W = mpv (rw, 5), tl = tu_mp_vec_new (3, PREC),
    tr = tu_mp_vec_new (3, PREC);
  mpfr_t b, sl, klt, kl, rt, rl, s;
  mps (b, 0.5);
  mpfr_inits2 (PREC, sl, klt, kl, rt, rl, s, (mpfr_ptr) 0);
  TU_OK (rlref_ppo_klsum_mp (tl, sl, tr, klt, kl, rt, rl, &lm, T, R, W, b, y, 3));
  TU_ASSERT_MP_AGREE (klt, kl, 70);
  TU_ASSERT_MP_AGREE (rt, rl, 70);
  mpfr_add (s, tl, tl + 1, MPFR_RNDN);
  mpfr_add (s, s, tl + 2, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (s, sl, 70);
  ck_assert (mpfr_sgn (kl) > 0);
  mpfr_clears (b, sl, klt, kl, rt, rl, s, (mpfr_ptr) 0);
  tu_mp_vec_free (T, 21);
  tu_mp_vec_free (R, 21);
  tu_mp_vec_free (W, 5);
  tu_mp_vec_free (tl, 3);
  tu_mp_vec_free (tr, 3);
}
END_TEST

/* ===== the float32 readings (ppo_f32.c) ================================== */

/* The expected values of the float32 readings are recomputed here with C's
 * own binary32 arithmetic (float operands, FLT_EVAL_METHOD 0), e^x as the
 * binary64 exp rounded to float: independent of num_round_f32. */

/* A row of n <= 8 floats summed as torch 1.13's CPU kernel sums up to 7:
 * four accumulators over the groups of four, the rest into the first,
 * ((a0 + a1) + a2) + a3 (the goldens' rows are short; 8 = two groups). */
static float
torch_sumf (const float *x, size_t n)
{
  float a[4] = { 0, 0, 0, 0 };
  size_t m = n - n % 4;
  ck_assert (n <= 8);
  for (size_t i = 0; i < m; i += 4)
    for (size_t j = 0; j < 4; j++)
      a[j] += x[i + j];
  for (size_t i = m; i < n; i++)
    a[0] += x[i];
  return ((a[0] + a[1]) + a[2]) + a[3];
}

/* rho of one token in float: exp(clamp(f(logp) - f(old))). */
static float
f32_ratio (double logp, double old, int clamp, float *l)
{
  float d = (float) logp - (float) old;
  if (clamp)
    d = d > 20.0f ? 20.0f : d < -20.0f ? -20.0f : d;
  *l = d;
  return (float) exp ((double) d);
}

/* Both backends of ppo_ratio_f32 on n tokens against f32_ratio. */
static void
check_ratio_f32 (const double *lp, const double *old, size_t n, int clamp)
{
  double r[8], l[8], g[8];
  mpfr_ptr LP = mpv (lp, n), OL = mpv (old, n), R = tu_mp_vec_new (n, PREC),
    L = tu_mp_vec_new (n, PREC), G = tu_mp_vec_new (n, PREC);
  TU_OK (rlref_ppo_ratio_f32_d (r, l, g, lp, old, n, clamp));
  TU_OK (rlref_ppo_ratio_f32_mp (R, L, G, LP, OL, n, clamp));
  for (size_t i = 0; i < n; i++)
    {
      float lf, rf = f32_ratio (lp[i], old[i], clamp, &lf);
      float raw = (float) lp[i] - (float) old[i];
      ck_assert (r[i] == rf && l[i] == lf);
      ck_assert (g[i] == (raw == lf ? rf : 0.0));
      ck_assert (mpfr_get_d (R + i, MPFR_RNDN) == rf && mpfr_get_d (L + i, MPFR_RNDN) == lf);
      ck_assert (mpfr_get_d (G + i, MPFR_RNDN) == g[i]);
    }
  tu_mp_vec_free (LP, n);
  tu_mp_vec_free (OL, n);
  tu_mp_vec_free (R, n);
  tu_mp_vec_free (L, n);
  tu_mp_vec_free (G, n);
}

START_TEST (test_ratio_f32)
{
  double lp[5] = { -1.0000001, -30.4999, 25, 88.5, -800 }, old[5] = { -1, -30.5, 0, 0, 0 };
  double big = 89, zero = 0, r, l, g;
  check_ratio_f32 (lp, old, 5, 0);
  check_ratio_f32 (lp, old, 5, 1);
  /* f32(-1.0000001) - f32(-1) = -2^-23: the ratio 1 - 2^-23, not e^-1e-7 */
  TU_OK (rlref_ppo_ratio_f32_d (&r, &l, &g, lp, old, 1, 0));
  ck_assert (l == -0x1p-23 && r == 1 - 0x1p-23);
  TU_OK (rlref_ppo_ratio_d (&r, &l, &g, lp, old, 1, 0));
  ck_assert (fabs (r - exp (-1e-7)) < 1e-15 && r != 1 - 0x1p-23);
  /* e^89 is inf in binary32: TRL's ratio (no clamp) refused, the clamp's e^20 */
  TU_ASSERT_STATUS (rlref_ppo_ratio_f32_d (&r, &l, &g, &big, &zero, 1, 0), RLREF_ERANGE);
  TU_OK (rlref_ppo_ratio_f32_d (&r, &l, &g, &big, &zero, 1, 1));
  ck_assert (r == (float) exp (20.0) && l == 20 && g == 0);
  {
    double inf = INFINITY, huge = 1e39;
    TU_ASSERT_STATUS (rlref_ppo_ratio_f32_d (&r, &l, &g, &inf, &zero, 1, 1), RLREF_ENAN);
    TU_ASSERT_STATUS (rlref_ppo_ratio_f32_d (&r, &l, &g, &huge, &zero, 1, 1), RLREF_ERANGE);
    TU_ASSERT_STATUS (rlref_ppo_ratio_f32_d (&r, &l, &g, &zero, &zero, 0, 1), RLREF_EINVAL);
  }
}
END_TEST

/* The clipped surrogate of one library in float: per token u = a rho, v =
 * a clamp(rho), s = min, the dual bound; S summed as torch sums a row;
 * grad (1/N)(-a) rho where rho A is active. */
static float
f32_clip (float *surr, float *grad, float *frac, const double *lp, const double *old,
          const double *adv, const long *m, size_t n, int clamp, int dual)
{
  float lo = (float) (1 - 0.2), hi = (float) (1 + 0.2), S, g, T[8];
  size_t N = 0, k = 0;
  for (size_t i = 0; i < n; i++)
    N += (size_t) m[i];
  g = 1.0f / (float) N;
  for (size_t i = 0; i < n; i++)
    {
      float l, rho = f32_ratio (lp[i], old[i], clamp, &l), a = (float) adv[i];
      float raw = (float) lp[i] - (float) old[i];
      float u = a * rho, c = rho < lo ? lo : rho > hi ? hi : rho, v = a * c, s = u < v ? u : v;
      float share = u <= v ? 1.0f : 0.0f;
      if (dual && a < 0 && a * 3.0f > s)
        {
          s = a * 3.0f;
          share = 0;
        }
      if (raw != l)
        share = 0;
      surr[i] = m[i] ? s : 0;
      grad[i] = m[i] ? ((g * -a) * rho) * share : 0;
      T[i] = m[i] ? -s : 0;
      k += m[i] && v < u;
    }
  S = torch_sumf (T, n);
  *frac = (float) k / (float) N;
  return S / (float) N;
}

START_TEST (test_clip_f32)
{
  static const rlref_ppo_clip_f32_convention trl = { { 0, 0 }, RLREF_PPO_LIB_TRL, 0 },
    verl = { { 1, 1 }, RLREF_PPO_LIB_VERL, 0 }, orl = { { 1, 0 }, RLREF_PPO_LIB_OPENRLHF, 0 };
  const rlref_ppo_clip_f32_convention *conv[3] = { &trl, &verl, &orl };
  double lp[6] = { -1, -0.3, -2, -0.9, 0.5, 30 }, old[6] = { -1.25, -0.625, -1.5, -2.25, 0.375, 0 },
    adv[6] = { 0.75, 1.5, -0.8, -2, -1.0000001, 0.3125 };
  long m[6] = { 1, 1, 1, 1, 1, 0 };
  double eps = 0.2, c = 3, loss, s[6], r[6], g[6], cf;
  mpfr_t E, C, LOSS, CF;
  mpfr_ptr LP = mpv (lp, 6), OL = mpv (old, 6), A = mpv (adv, 6), S = tu_mp_vec_new (6, PREC),
    R = tu_mp_vec_new (6, PREC), G = tu_mp_vec_new (6, PREC);
  mps (E, eps);
  mps (C, c);
  mpfr_inits2 (PREC, LOSS, CF, (mpfr_ptr) 0);
  for (int k = 0; k < 3; k++)
    {
      float sf[6], gf[6], ff;
      float lf = f32_clip (sf, gf, &ff, lp, old, adv, m, 6, conv[k]->clip.clamp_log_ratio,
                           conv[k]->clip.dual_clip);
      TU_OK (rlref_ppo_clip_f32_d (&loss, s, r, g, &cf, lp, old, adv, m, 6, conv[k], &eps, &eps,
                                   &c));
      TU_OK (rlref_ppo_clip_f32_mp (LOSS, S, R, G, CF, LP, OL, A, m, 6, conv[k], E, E, C));
      ck_assert (loss == lf && cf == ff && mpfr_get_d (LOSS, MPFR_RNDN) == lf);
      ck_assert (mpfr_get_d (CF, MPFR_RNDN) == ff);
      for (int i = 0; i < 6; i++)
        {
          ck_assert (s[i] == sf[i] && g[i] == gf[i] && !signbit (s[i] == 0 ? s[i] : 1));
          ck_assert (mpfr_get_d (S + i, MPFR_RNDN) == sf[i]);
          ck_assert (mpfr_get_d (G + i, MPFR_RNDN) == gf[i]);
        }
    }
  /* verl's dual clip binds on the fourth token (rho = e^1.35, A = -2): -6 */
  TU_OK (rlref_ppo_clip_f32_d (&loss, s, r, g, &cf, lp, old, adv, m, 6, &verl, &eps, &eps, &c));
  ck_assert (s[3] == -6 && g[3] == 0);
  {
    /* binary32 absorbs: 1e8 + 1 - 1e8 = 0 (exact arithmetic -1/3) */
    double l3[3] = { -1, -1, -1 }, a3[3] = { 1e8, 1, -1e8 }, a6[3] = { 1, 2, 3 };
    long m3[3] = { 1, 1, 1 };
    static const rlref_ppo_clip_convention plain = { 0, 0 };
    TU_OK (rlref_ppo_clip_f32_d (&loss, NULL, NULL, NULL, NULL, l3, l3, a3, m3, 3, &orl, &eps,
                                 &eps, NULL));
    ck_assert (loss == 0);
    TU_OK (rlref_ppo_clip_d (&loss, NULL, NULL, NULL, NULL, l3, l3, a3, m3, 3, &plain, &eps,
                             &eps, NULL));
    TU_ASSERT_REL (loss, -1.0 / 3, TU_TOL0);
    TU_OK (rlref_ppo_clip_f32_d (&loss, NULL, NULL, g, NULL, l3, l3, a6, m3, 3, &verl, &eps,
                                 &eps, &c));
    ck_assert (loss == -2 && g[2] == (1.0f / 3.0f) * -3.0f);
  }
  {
    /* e^89 overflows binary32 without the clamp; A rho overflows at a masked
     * token: loss * 0 is NaN in TRL and OpenRLHF, verl drops it */
    double l2[2] = { 89, 20 }, o2[2] = { 0, 0 }, a2[2] = { 0.5, -1e30 };
    long m2[2] = { 1, 0 };
    TU_ASSERT_STATUS (rlref_ppo_clip_f32_d (&loss, s, r, g, &cf, l2, o2, a2, m2, 2, &trl, &eps,
                                            &eps, NULL), RLREF_ERANGE);
    TU_ASSERT_STATUS (rlref_ppo_clip_f32_d (&loss, s, r, g, &cf, l2, o2, a2, m2, 2, &orl, &eps,
                                            &eps, NULL), RLREF_ERANGE);
    TU_OK (rlref_ppo_clip_f32_d (&loss, s, r, g, &cf, l2, o2, a2, m2, 2, &verl, &eps, &eps, &c));
    ck_assert (loss == -0.6f && r[0] == (float) exp (20.0) && s[1] == 0);
  }
  {
    double bad = 1, m1 = 1;
    long mb[1] = { 2 };
    TU_ASSERT_STATUS (rlref_ppo_clip_f32_d (&loss, NULL, NULL, NULL, NULL, &m1, &m1, &m1, mb, 1,
                                            &orl, &eps, &eps, NULL), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_ppo_clip_f32_d (&loss, NULL, NULL, NULL, NULL, &m1, &m1, &m1, NULL,
                                            1, &verl, &eps, &eps, &bad), RLREF_EDOM);
  }
  mpfr_clears (E, C, LOSS, CF, (mpfr_ptr) 0);
  tu_mp_vec_free (LP, 6);
  tu_mp_vec_free (OL, 6);
  tu_mp_vec_free (A, 6);
  tu_mp_vec_free (S, 6);
  tu_mp_vec_free (R, 6);
  tu_mp_vec_free (G, 6);
}
END_TEST

/* masked_whiten in float: TRL and verl (ddof 1 by N/(N - 1), eps inside
 * the root), OpenRLHF (ddof 0, eps a floor); w[i] at every position. */
static void
f32_whiten (float *w, float *scale, const double *x, const long *m, size_t n, int orl)
{
  float S1, S2, mu, var, sc, r, e = 1e-8f, c[8], T[8];
  long N = 0;
  for (size_t i = 0; i < n; i++)
    {
      N += m[i];
      T[i] = m[i] ? (float) x[i] : 0;
    }
  S1 = torch_sumf (T, n);
  mu = S1 / (float) N;
  for (size_t i = 0; i < n; i++)
    {
      c[i] = (float) x[i] - mu;
      T[i] = m[i] ? c[i] * c[i] : 0;
    }
  S2 = torch_sumf (T, n);
  var = S2 / (float) N;
  if (orl)
    sc = sqrtf (var > e ? var : e);
  else
    {
      var = var * ((float) N / (float) (N - 1));
      sc = sqrtf (var + e);
    }
  r = 1.0f / sc;
  for (size_t i = 0; i < n; i++)
    w[i] = c[i] * r;
  *scale = sc;
}

START_TEST (test_whiten_f32)
{
  double x[5] = { 10000.1, 10000.2, 10000.4, 10000.3, -7 }, w[5], mu, sd, sc, eps = 1e-8;
  long m[5] = { 1, 1, 1, 1, 0 };
  static const rlref_ppo_whiten_f32_convention TRL = { RLREF_PPO_LIB_TRL, 0, 0, 1 },
    VERL = { RLREF_PPO_LIB_VERL, 0, 0, 0 }, ORL = { RLREF_PPO_LIB_OPENRLHF, 0, 0, 0 },
    TRL_R = { RLREF_PPO_LIB_TRL, 1, 0, 1 };
  const rlref_ppo_whiten_f32_convention *lib[3] = { &TRL, &VERL, &ORL };
  mpfr_ptr X = mpv (x, 5), W = tu_mp_vec_new (5, PREC);
  mpfr_t E, SC;
  mps (E, eps);
  mpfr_init2 (SC, PREC);
  for (int k = 0; k < 3; k++)
    {
      float wf[5], scf;
      f32_whiten (wf, &scf, x, m, 5, lib[k] == &ORL);
      TU_OK (rlref_ppo_whiten_f32_d (w, &mu, &sd, &sc, x, m, 5, lib[k], &eps));
      TU_OK (rlref_ppo_whiten_f32_mp (W, NULL, NULL, SC, X, m, 5, lib[k], E));
      ck_assert (sc == scf && mpfr_get_d (SC, MPFR_RNDN) == scf);
      for (int i = 0; i < 5; i++)
        {
          double want = lib[k] == &TRL && !m[i] ? 0 : wf[i];
          ck_assert (w[i] == want && mpfr_get_d (W + i, MPFR_RNDN) == want);
        }
    }
  /* the third digit: exact 1.1618946..., binary32 1.16264736... */
  TU_OK (rlref_ppo_whiten_f32_d (w, &mu, &sd, &sc, x, m, 5, &VERL, &eps));
  ck_assert (fabs (w[2] - 1.1626473665237427) < 1e-15 && mu == 10000.25);
  {
    /* [1, 2, 3]: 1/sqrt(1 + 1e-8) is 1 in binary32; OpenRLHF f32(sqrt(3/2)) */
    double y[3] = { 1, 2, 3 };
    TU_OK (rlref_ppo_whiten_f32_d (w, NULL, NULL, NULL, y, NULL, 3, &TRL, &eps));
    ck_assert (w[0] == -1 && w[1] == 0 && !signbit (w[1]) && w[2] == 1);
    TU_OK (rlref_ppo_whiten_f32_d (w, NULL, NULL, NULL, y, NULL, 3, &ORL, &eps));
    ck_assert (w[2] == (float) (1.0f / sqrtf (2.0f / 3.0f)));
    /* aliasing: whitened over values */
    TU_OK (rlref_ppo_whiten_f32_d (y, NULL, NULL, NULL, y, NULL, 3, &ORL, &eps));
    ck_assert (memcmp (y, w, sizeof y) == 0);
    /* shift_mean=False (TRL's whiten_rewards): the mean added back, 1, 2, 3 */
    y[0] = 1, y[1] = 2, y[2] = 3;
    TU_OK (rlref_ppo_whiten_f32_d (w, NULL, NULL, NULL, y, NULL, 3, &TRL_R, &eps));
    ck_assert (w[0] == 1 && w[1] == 2 && w[2] == 3);
  }
  {
    /* squares beyond binary32: refused; a masked one: verl drops it */
    double big[3] = { 1e20, -1e20, 3e20 }, pad[4] = { 1, 2, 3, 1e20 }, one = 1;
    long mp4[4] = { 1, 1, 1, 0 };
    TU_ASSERT_STATUS (rlref_ppo_whiten_f32_d (w, NULL, NULL, NULL, big, NULL, 3,
                                              &VERL, &eps), RLREF_ERANGE);
    TU_ASSERT_STATUS (rlref_ppo_whiten_f32_d (w, NULL, NULL, NULL, pad, mp4, 4,
                                              &TRL, &eps), RLREF_ERANGE);
    TU_ASSERT_STATUS (rlref_ppo_whiten_f32_d (w, NULL, NULL, NULL, pad, mp4, 4,
                                              &ORL, &eps), RLREF_ERANGE);
    {
      double w4[4];
      TU_OK (rlref_ppo_whiten_f32_d (w4, NULL, NULL, NULL, pad, mp4, 4, &VERL, &eps));
      ck_assert (w4[3] == (float) ((float) (1e20f - 2.0f) * (1.0f / sqrtf (1.0f + 1e-8f))));
    }
    TU_ASSERT_STATUS (rlref_ppo_whiten_f32_d (w, NULL, NULL, NULL, &one, NULL, 1,
                                              &TRL, &eps), RLREF_EDOM);
    TU_OK (rlref_ppo_whiten_f32_d (w, NULL, &sd, &sc, &one, NULL, 1, &ORL, &eps));
    ck_assert (w[0] == 0 && sd == 0 && sc == sqrtf (1e-8f));
  }
  mpfr_clears (E, SC, (mpfr_ptr) 0);
  tu_mp_vec_free (X, 5);
  tu_mp_vec_free (W, 5);
}
END_TEST

/* The clipped value loss of one library in float (TRL clamp, verl
 * clip_by_value, OpenRLHF delta); the gradient as autograd forms it. */
static float
f32_value (float *q, float *grad, float *frac, const double *V, const double *Vo,
           const double *R, const long *m, size_t n, float c, int form)
{
  float S = 0, g;
  size_t N = 0, k = 0;
  for (size_t i = 0; i < n; i++)
    N += (size_t) m[i];
  g = 0.5f / (float) N;
  for (size_t i = 0; i < n; i++)
    {
      float v = (float) V[i], o = (float) Vo[i], r = (float) R[i], vc, pass, d1, d2, q1, q2;
      if (form < 2)
        {
          float lo = o - c, hi = o + c, mn = v < hi ? v : hi;
          vc = v < lo ? lo : v > hi ? hi : v;
          pass = form == 0 ? (v >= lo && v <= hi)
            : (v < hi ? 1.0f : v == hi ? 0.5f : 0.0f) * (mn > lo ? 1.0f : mn == lo ? 0.5f : 0.0f);
        }
      else
        {
          float dv = v - o;
          pass = dv >= -c && dv <= c;
          vc = o + (dv < -c ? -c : dv > c ? c : dv);
        }
      d1 = v - r;
      d2 = vc - r;
      q1 = d1 * d1;
      q2 = d2 * d2;
      q[i] = m[i] ? (q1 > q2 ? q1 : q2) : 0;
      if (!m[i])
        grad[i] = 0;
      else if (q1 > q2)
        grad[i] = g * (2 * d1);
      else if (q2 > q1)
        grad[i] = g * (2 * d2) * pass;
      else
        grad[i] = (g / 2) * (2 * d1) + ((g / 2) * (2 * d2)) * pass;
      k += m[i] && q2 > q1;
    }
  S = torch_sumf (q, n);
  *frac = (float) k / (float) N;
  return 0.5f * (S / (float) N);
}

START_TEST (test_value_f32)
{
  static const rlref_ppo_value_f32_convention trl = { { 1, RLREF_PPO_VALUE_CLAMP, 0, 0 },
                                                      RLREF_PPO_LIB_TRL },
    verl = { { 1, RLREF_PPO_VALUE_MAXMIN, 0, 0 }, RLREF_PPO_LIB_VERL },
    orl = { { 1, RLREF_PPO_VALUE_DELTA, 0, 0 }, RLREF_PPO_LIB_OPENRLHF };
  const rlref_ppo_value_f32_convention *conv[3] = { &trl, &verl, &orl };
  double clip[3] = { 0.2, 0.5, 0.5 };
  /* inside, clipped, on the bound (1.5 = 1 + 0.5), near 1e4, a masked one */
  double V[6] = { 0.55, 1.4, 1.5, 10000.3, 10000.05, 7 },
    Vo[6] = { 0.3, 0.7, 1, 10000, 10000, 0 },
    R[6] = { 1, 0.25, 2, 10000.1, 10000, 0 };
  long m[6] = { 1, 1, 1, 1, 1, 0 };
  double loss, q[6], g[6], cf;
  mpfr_ptr MV = mpv (V, 6), MO = mpv (Vo, 6), MR = mpv (R, 6), MQ = tu_mp_vec_new (6, PREC),
    MG = tu_mp_vec_new (6, PREC);
  mpfr_t C, L, F;
  mpfr_inits2 (PREC, C, L, F, (mpfr_ptr) 0);
  for (int k = 0; k < 3; k++)
    {
      float qf[6], gf[6], ff, lf;
      lf = f32_value (qf, gf, &ff, V, Vo, R, m, 6, (float) clip[k], k);
      TU_OK (rlref_ppo_value_loss_f32_d (&loss, q, g, &cf, V, Vo, R, m, 6, conv[k], &clip[k]));
      mpfr_set_d (C, clip[k], MPFR_RNDN);
      TU_OK (rlref_ppo_value_loss_f32_mp (L, MQ, MG, F, MV, MO, MR, m, 6, conv[k], C));
      ck_assert (loss == lf && cf == ff && mpfr_get_d (L, MPFR_RNDN) == lf);
      ck_assert (mpfr_get_d (F, MPFR_RNDN) == ff);
      for (int i = 0; i < 6; i++)
        ck_assert (q[i] == qf[i] && g[i] == gf[i] && mpfr_get_d (MQ + i, MPFR_RNDN) == qf[i]
                   && mpfr_get_d (MG + i, MPFR_RNDN) == gf[i]);
    }
  /* verl's clip_by_value at its bound 1.5 (V = 1.5, R = 2: the squares tie):
   * half the gradient through min, the other half direct; TRL's clamp
   * passes the whole at its bound (clip 0.5 for both here) */
  {
    double v1 = 1.5, o1 = 1, r1 = 2, c5 = 0.5, gt, gv;
    long m1 = 1;
    TU_OK (rlref_ppo_value_loss_f32_d (&loss, NULL, &gt, NULL, &v1, &o1, &r1, &m1, 1, &trl, &c5));
    TU_OK (rlref_ppo_value_loss_f32_d (&loss, NULL, &gv, NULL, &v1, &o1, &r1, &m1, 1, &verl,
                                       &c5));
    ck_assert (gt == -0.5 && gv == -0.375);
  }
  /* the near-1e4 token parts from exact arithmetic by 0.2% */
  TU_OK (rlref_ppo_value_loss_f32_d (&loss, q, g, &cf, V, Vo, R, m, 6, &trl, &clip[0]));
  ck_assert (fabs (q[3] / 0.04 - 1) > 1e-3);
  {
    /* (4e19)^2 overflows binary32; a masked overflow only for TRL and OpenRLHF */
    double v2[2] = { 1, 2e19 }, r2[2] = { 0, -2e19 }, c5 = 0.5;
    long m2[2] = { 1, 0 }, m11[2] = { 1, 1 };
    TU_ASSERT_STATUS (rlref_ppo_value_loss_f32_d (&loss, q, g, &cf, v2, v2, r2, m11, 2, &verl,
                                                  &c5), RLREF_ERANGE);
    TU_ASSERT_STATUS (rlref_ppo_value_loss_f32_d (&loss, q, g, &cf, v2, v2, r2, m2, 2, &trl,
                                                  &c5), RLREF_ERANGE);
    TU_ASSERT_STATUS (rlref_ppo_value_loss_f32_d (&loss, q, g, &cf, v2, v2, r2, m2, 2, &orl,
                                                  &c5), RLREF_ERANGE);
    TU_OK (rlref_ppo_value_loss_f32_d (&loss, q, g, &cf, v2, v2, r2, m2, 2, &verl, &c5));
    ck_assert (loss == 0.5 && q[1] == 0 && g[1] == 0);
    c5 = -0.5;
    TU_ASSERT_STATUS (rlref_ppo_value_loss_f32_d (&loss, q, g, &cf, v2, v2, r2, m11, 2, &verl,
                                                  &c5), RLREF_EDOM);
  }
  {
    /* aliasing: the losses written over values */
    double x[6], y[6];
    memcpy (x, V, sizeof x);
    TU_OK (rlref_ppo_value_loss_f32_d (&loss, y, NULL, NULL, V, Vo, R, m, 6, &orl, &clip[2]));
    TU_OK (rlref_ppo_value_loss_f32_d (&loss, x, NULL, NULL, x, Vo, R, m, 6, &orl, &clip[2]));
    ck_assert (memcmp (x, y, sizeof x) == 0);
  }
  mpfr_clears (C, L, F, (mpfr_ptr) 0);
  tu_mp_vec_free (MV, 6);
  tu_mp_vec_free (MO, 6);
  tu_mp_vec_free (MR, 6);
  tu_mp_vec_free (MQ, 6);
  tu_mp_vec_free (MG, 6);
}
END_TEST

/* ===== the libraries' readings (the variants of the goldens) ============= */

/* TRL's response ends at the first 0 of the mask; OpenRLHF in binary32
 * keeps the penalty at masked tokens, clamps the score and floors beta. */
START_TEST (test_tokrew_libraries)
{
  static const rlref_ppo_tokrew_convention trl = { RLREF_PPO_K1, 0, 0, 1, 1, 0, 0, 0 },
    orl1 = { RLREF_PPO_K1, 0, 1, 0, 0, 1, 1, 1 }, orl3 = { RLREF_PPO_K3, 0, 1, 0, 0, 1, 1, 1 };
  double lp[4] = { -1.25, -0.5, -2.5, -0.75 }, rf[4] = { -1, -0.625, -2, -0.875 };
  double rw[4], kl[4], rs, ks, s = 2, b = 0.05, b1 = 0.01, nb = -0.1, s25 = 25;
  long hole[4] = { 1, 0, 1, 0 };
  mpfr_ptr LP = mpv (lp, 4), RF = mpv (rf, 4), RW = tu_mp_vec_new (4, PREC),
    KL = tu_mp_vec_new (4, PREC);
  mpfr_t S, B, RS, KS;
  TU_OK (rlref_ppo_tokrew_d (rw, kl, &rs, &ks, lp, rf, hole, 4, &s, &b, &trl));
  ck_assert (rw[1] == 2 && kl[2] == 0 && kl[3] == 0 && rw[2] == 0 && rw[3] == 0);
  TU_ASSERT_REL (rw[0], 0.05 * 0.25, TU_TOL0);
  TU_OK (rlref_ppo_tokrew_f32_d (rw, kl, &rs, &ks, lp, rf, hole, 4, &s, &b1, &orl1));
  ck_assert (kl[1] == 0.125 && kl[3] == 0.125 && kl[0] == -0.25 && kl[2] == -0.5);
  ck_assert (rw[1] == (double) (-0.01f * 0.125f) && rw[2] == (double) (2.0f + -0.01f * -0.5f));
  ck_assert (ks == -0.5 && rs == (double) ((((-0.01f * -0.25f) + -0.01f * 0.125f)
                                             + (2.0f + -0.01f * -0.5f)) + -0.01f * 0.125f));
  TU_OK (rlref_ppo_tokrew_f32_d (rw, kl, NULL, NULL, lp, rf, hole, 4, &s25, &b1, &orl1));
  ck_assert (rw[2] == (double) (10.0f + -0.01f * -0.5f));
  TU_OK (rlref_ppo_tokrew_f32_d (rw, kl, NULL, NULL, lp, rf, hole, 4, &s, &nb, &orl1));
  ck_assert (rw[0] == 0 && rw[1] == 0 && rw[2] == 2 && rw[3] == 0 && !signbit (rw[0]));
  /* k3 of l = -100: e^100 is inf in binary32, the clamp gives 10 */
  {
    double l100[1] = { -100 }, z[1] = { 0 }, k, r;
    long one = 1;
    TU_OK (rlref_ppo_tokrew_f32_d (&r, &k, NULL, NULL, l100, z, &one, 1, &s, &b1, &orl3));
    ck_assert (k == 10 && r == (double) (2.0f + -0.01f * 10.0f));
  }
  /* both backends the same binary32 values */
  mps (S, s);
  mps (B, b1);
  mpfr_inits2 (PREC, RS, KS, (mpfr_ptr) 0);
  TU_OK (rlref_ppo_tokrew_f32_d (rw, kl, &rs, &ks, lp, rf, hole, 4, &s, &b1, &orl3));
  TU_OK (rlref_ppo_tokrew_f32_mp (RW, KL, RS, KS, LP, RF, hole, 4, S, B, &orl3));
  for (int i = 0; i < 4; i++)
    ck_assert (mpfr_get_d (RW + i, MPFR_RNDN) == rw[i] && mpfr_get_d (KL + i, MPFR_RNDN) == kl[i]);
  ck_assert (mpfr_get_d (RS, MPFR_RNDN) == rs && mpfr_get_d (KS, MPFR_RNDN) == ks);
  TU_ASSERT_STATUS (rlref_ppo_tokrew_d (rw, kl, NULL, NULL, lp, rf, hole, 4, &s, &nb, &trl),
                    RLREF_EDOM);
  mpfr_clears (S, B, RS, KS, (mpfr_ptr) 0);
  tu_mp_vec_free (LP, 4);
  tu_mp_vec_free (RF, 4);
  tu_mp_vec_free (RW, 4);
  tu_mp_vec_free (KL, 4);
}
END_TEST

/* The clip fraction in binary32, TRL's rho = 1 at padding, its delta cap,
 * and the two departures of the checker's axes. */
START_TEST (test_clip_libraries)
{
  static const rlref_ppo_clip_ex_convention f32cf = { { 1, 1 }, 1, 0, 0, 0, 0 },
    trl = { { 0, 0 }, 1, 1, 0, 0, 0 }, delta = { { 0, 0 }, 1, 0, 1, 0, 0 },
    opt = { { 0, 0 }, 0, 0, 0, 1, 0 }, clog = { { 0, 0 }, 0, 0, 0, 0, 1 };
  double lp[3] = { 0.3, -0.5, 0 }, old[3] = { 0, 0, 0 }, adv[3] = { 1, -1, 1 };
  double eps = 0.2, c = 3, loss, s[3], r[3], g[3], cf;
  long m[3] = { 1, 1, 1 }, pad[3] = { 1, 0, 1 };
  TU_OK (rlref_ppo_clip_ex_d (&loss, s, r, g, &cf, lp, old, adv, m, 3, &f32cf, &eps, &eps, &c));
  ck_assert (cf == (double) (2.0f / 3.0f) && cf != 2.0 / 3.0);
  TU_OK (rlref_ppo_clip_ex_d (&loss, s, r, g, &cf, lp, old, adv, pad, 3, &trl, &eps, &eps, &c));
  ck_assert (r[1] == 1 && r[0] == exp (0.3) && cf == 0.5);
  /* delta = 3 caps rho = e^2 for A < 0 (the dual clip's -3) and for A > 0 below 1 + eps */
  {
    double l2[2] = { 2, 2 }, o2[2] = { 0, 0 }, a2[2] = { -1, 1 }, half = 0.5;
    long m2[2] = { 1, 1 };
    TU_OK (rlref_ppo_clip_ex_d (&loss, s, r, g, &cf, l2, o2, a2, m2, 2, &delta, &eps, &eps, &c));
    ck_assert (s[0] == -3 && g[0] == 0 && r[0] == exp (2) && s[1] == 1.2 && g[1] == 0);
    TU_OK (rlref_ppo_clip_ex_d (&loss, s, r, g, &cf, l2, o2, a2, m2, 2, &delta, &eps, &eps,
                                &half));
    ck_assert (s[0] == -1.2 && s[1] == 0.5 && loss == -(-1.2 + 0.5) / 2);
  }
  /* max in place of min: rho = e^0.3 with A = 1 keeps rho A; the clip on the log-ratio:
   * rho = e^-0.5 < e^-0.2 with A = -1 gives -e^-0.2 */
  TU_OK (rlref_ppo_clip_ex_d (&loss, s, r, g, &cf, lp, old, adv, m, 3, &opt, &eps, &eps, &c));
  TU_ASSERT_REL (s[0], exp (0.3), TU_TOL0);
  TU_ASSERT_REL (g[0], -exp (0.3) / 3, TU_TOL0);
  TU_ASSERT_REL (s[1], -exp (-0.5), TU_TOL0);
  TU_OK (rlref_ppo_clip_ex_d (&loss, s, r, g, &cf, lp, old, adv, m, 3, &clog, &eps, &eps, &c));
  TU_ASSERT_REL (s[1], -exp (-0.2), TU_TOL0);
  TU_ASSERT_REL (s[0], exp (0.2), TU_TOL0);
  ck_assert (g[0] == 0 && g[1] == 0);
  {
    double zero = 0;
    TU_ASSERT_STATUS (rlref_ppo_clip_ex_d (&loss, s, r, g, &cf, lp, old, adv, m, 3, &delta, &eps,
                                           &eps, &zero), RLREF_EDOM);
  }
}
END_TEST

/* verl's clip_by_value at its bound, TRL's masked fill, the clip fraction
 * in binary32; TRL's entropy mean; the float32 Bessel factor; OpenRLHF's
 * float64 run on binary32 statistics. */
START_TEST (test_value_whiten_libraries)
{
  static const rlref_ppo_value_convention trl = { 1, RLREF_PPO_VALUE_CLAMP, 1, 1 },
    verl = { 1, RLREF_PPO_VALUE_MAXMIN, 1, 0 }, orl = { 1, RLREF_PPO_VALUE_DELTA, 0, 0 };
  double V[3] = { 1.5, 1.4, 1.25 }, Vo[3] = { 1, 0.7, 0 }, R[3] = { 0, 0.25, 1 };
  double c = 0.5, loss, q[3], g[3], cf;
  long m[3] = { 1, 1, 1 }, pad[3] = { 1, 0, 1 };
  TU_OK (rlref_ppo_value_loss_d (&loss, q, g, &cf, V, Vo, R, m, 3, &verl, &c));
  ck_assert (g[0] == 0.75 * 1.5 / 3 && cf == (double) (1.0f / 3.0f));
  TU_OK (rlref_ppo_value_loss_d (&loss, q, g, &cf, V, Vo, R, m, 3, &orl, &c));
  ck_assert (g[0] == 1.5 / 3 && cf == 1.0 / 3.0);
  TU_OK (rlref_ppo_value_loss_d (&loss, q, g, &cf, V, Vo, R, pad, 3, &trl, &c));
  ck_assert (q[1] == 0.0625 && g[1] == 0 && cf == 0.5);
  {
    /* TRL: entropy.mean() over every row, in binary32 */
    static const rlref_ppo_objective_convention all = { 1 };
    double z[6] = { 0, 0, 0, 1, 0, -1 }, h[2], hm, obj, l, lc = 0, lv = 0, c1 = 0.1, c2 = 0;
    long m2[2] = { 1, 0 };
    TU_OK (rlref_ppo_objective_d (h, &hm, &obj, &l, z, 3, m2, 2, &lc, &lv, &c1, &c2, &all));
    ck_assert (hm == (double) (float) ((h[0] + h[1]) / 2));
  }
  {
    static const rlref_ppo_whiten_convention b32 = { 1, RLREF_PPO_EPS_IN_SQRT, 0, 0, 1 },
      b64 = { 1, RLREF_PPO_EPS_IN_SQRT, 0, 0, 0 };
    static const rlref_ppo_whiten_f32_convention orl64 = { RLREF_PPO_LIB_OPENRLHF, 0, 1, 0 };
    double x4[4] = { 1, 2, 3, 4 }, x3[3] = { 1, 2, 4 }, w1[4], w2[4], eps = 1e-8, mu;
    TU_OK (rlref_ppo_whiten_d (w1, NULL, NULL, NULL, x4, NULL, 4, &b32, &eps));
    TU_OK (rlref_ppo_whiten_d (w2, NULL, NULL, NULL, x4, NULL, 4, &b64, &eps));
    TU_ASSERT_REL (w1[3], 1.5 / sqrt (1.25 * (double) (4.0f / 3.0f) + 1e-8), TU_TOL1);
    ck_assert (w1[3] < w2[3] && w2[3] / w1[3] - 1 > 1e-8);
    TU_OK (rlref_ppo_whiten_d (w1, NULL, NULL, NULL, x3, NULL, 3, &b32, &eps));
    TU_OK (rlref_ppo_whiten_d (w2, NULL, NULL, NULL, x3, NULL, 3, &b64, &eps));
    TU_ASSERT_REL (w1[0], w2[0], TU_TOL1);     /* 3/2 is exact in binary32 */
    TU_ASSERT_REL (w1[2], w2[2], TU_TOL1);
    TU_OK (rlref_ppo_whiten_f32_d (w1, &mu, NULL, NULL, x3, NULL, 3, &orl64, &eps));
    {
      float mf = 7.0f / 3.0f, var = ((1 - mf) * (1 - mf) + (2 - mf) * (2 - mf)
                                      + (4 - mf) * (4 - mf)) / 3.0f;
      double r = (double) (1.0f / sqrtf (var));
      ck_assert (mu == (double) mf && w1[2] == (4 - (double) mf) * r);
    }
  }
}
END_TEST

/* The table of conventions: 60 rows in the formulas' counts, each found by
 * its formula and name (so a formula's names are distinct) and counted;
 * a rule and its users; a setting exactly where the formula reads one;
 * each clip range inside (0, 1); a c parameter exactly where the setting
 * has the dual clip (or TRL's ratio cap), c > 1; a binary32 row named for
 * its float32 reading or OpenRLHF's binary32 statistics; an unknown name,
 * formula or a NULL not found. */
START_TEST (test_conventions_table)
{
  static const struct { const char *id; size_t rows; int setting; } per[] = {
    { "PPO-TOKREW", 8, 1 }, { "PPO-TOKREW-EX", 1, 0 }, { "PPO-KLSUM", 2, 1 },
    { "PPO-RATIO", 4, 1 }, { "PPO-IS", 1, 0 }, { "PPO-CLIP", 8, 1 }, { "PPO-CLIP-EX2", 1, 0 },
    { "PPO-DUALCLIP", 8, 1 }, { "PPO-VALUE", 13, -1 }, { "PPO-WHITEN", 9, 1 },
    { "PPO-KLCTL", 5, 1 },
  };
  size_t rows = 0, total = 0;
  for (const rlref_convention *c = rlref_ppo_conventions; c->name; c++)
    {
      size_t f = sizeof per / sizeof per[0];
      for (size_t k = 0; k < sizeof per / sizeof per[0]; k++)
        if (strcmp (c->formula, per[k].id) == 0)
          f = k;
      ck_assert_msg (f < sizeof per / sizeof per[0], "%s: formula %s", c->name, c->formula);
      ck_assert_ptr_eq (rlref_convention_find (rlref_ppo_conventions, c->formula, c->name), c);
      ck_assert (c->rule && *c->rule && c->used_by && *c->used_by && c->part && *c->part);
      if (per[f].setting >= 0)
        ck_assert_msg ((c->setting != NULL) == per[f].setting, "%s %s", c->formula, c->name);
      else
        ck_assert_msg ((c->setting != NULL) == (strcmp (c->part, "loss") == 0
                                                || strcmp (c->name, "objective-trl") == 0),
                       "%s %s", c->formula, c->name);
      if (c->binary32)
        ck_assert_msg (strstr (c->name, "float32") || strncmp (c->name, "openrlhf", 8) == 0,
                       "%s %s", c->formula, c->name);
      int has_c = 0;
      for (const rlref_convention_param *p = c->params; p->name; p++)
        {
          if (strncmp (p->name, "eps_", 4) == 0)
            ck_assert (p->value > 0 && p->value < 1);
          if (strcmp (p->name, "c") == 0)
            {
              ck_assert (p->value > 1);
              has_c = 1;
            }
        }
      if (strcmp (c->part, "clip") == 0)
        {
          const rlref_ppo_clip_convention *k = c->binary32
            ? &((const rlref_ppo_clip_f32_convention *) c->setting)->clip
            : &((const rlref_ppo_clip_ex_convention *) c->setting)->clip;
          int capped = !c->binary32
            && ((const rlref_ppo_clip_ex_convention *) c->setting)->ratio_cap;
          ck_assert_msg (has_c == (k->dual_clip || capped), "%s %s", c->formula, c->name);
        }
      rows++;
    }
  for (size_t k = 0; k < sizeof per / sizeof per[0]; k++)
    {
      ck_assert_uint_eq (rlref_convention_count (rlref_ppo_conventions, per[k].id), per[k].rows);
      total += per[k].rows;
    }
  ck_assert_uint_eq (rows, 60);
  ck_assert_uint_eq (total, rows);
  ck_assert_ptr_null (rlref_convention_find (rlref_ppo_conventions, "PPO-CLIP", "dual-clip"));
  ck_assert_ptr_null (rlref_convention_find (rlref_ppo_conventions, "DAPO-CLIPHIGHER", "verl"));
  ck_assert_ptr_null (rlref_convention_find (rlref_ppo_conventions, NULL, "verl"));
  ck_assert_ptr_null (rlref_convention_find (rlref_ppo_conventions, "PPO-CLIP", NULL));
  ck_assert_ptr_null (rlref_convention_find (NULL, "PPO-CLIP", "verl"));
  ck_assert_uint_eq (rlref_convention_count (rlref_ppo_conventions, "PPO-NONE"), 0);
  ck_assert_uint_eq (rlref_convention_count (rlref_ppo_conventions, NULL), 0);
}
END_TEST

static Suite *
ppo_suite (void)
{
  Suite *s = suite_create ("ppo");
  TCase *tc;

  tc = tu_tcase ("reward");
  tcase_add_test (tc, test_tokrew_example);
  tcase_add_test (tc, test_tokrew_tiny_ratio);
  tcase_add_test (tc, test_is_far_policy);
  tcase_add_test (tc, test_tokrew_k3_cancellation);
  tcase_add_test (tc, test_tokrew_conventions);
  tcase_add_test (tc, test_tokrew_bad_inputs);
  tcase_add_test (tc, test_klsum_by_hand);
  tcase_add_test (tc, test_klsum_identity_mp);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("ratio");
  tcase_add_test (tc, test_ratio);
  tcase_add_test (tc, test_is);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("clip");
  tcase_add_test (tc, test_clip_examples);
  tcase_add_test (tc, test_clip_gradients_fd);
  tcase_add_test (tc, test_clip_batch);
  tcase_add_test (tc, test_clip_exact_edges);
  tcase_add_test (tc, test_clip_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("value");
  tcase_add_test (tc, test_value_loss);
  tcase_add_test (tc, test_value_gradients_fd);
  tcase_add_test (tc, test_value_targets_objective);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("whiten_klctl");
  tcase_add_test (tc, test_whiten);
  tcase_add_test (tc, test_klctl);
  tcase_add_test (tc, test_conventions_table);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("float32");
  tcase_add_test (tc, test_ratio_f32);
  tcase_add_test (tc, test_clip_f32);
  tcase_add_test (tc, test_whiten_f32);
  tcase_add_test (tc, test_value_f32);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("libraries");
  tcase_add_test (tc, test_tokrew_libraries);
  tcase_add_test (tc, test_clip_libraries);
  tcase_add_test (tc, test_value_whiten_libraries);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (ppo_suite)
