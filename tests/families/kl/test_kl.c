/* test_kl.c -- the KL estimators (KL-K1, KL-K2, KL-K3, KL-VARIANTS,
 * KL-EXACT, KL-GRAD) in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: the numbers printed in CONVENTIONS.md, FORMULAS.md and
 * Schulman's table (to their printed digits); the definitions evaluated
 * here directly with MPFR at 2048 bits from the exact binary64 inputs
 * (e^-l - 1 + l written plainly: at 2048 bits its cancellation leaves more
 * than the digits the library certifies at 256); the binary32 conventions
 * recomputed with C float arithmetic and e^x rounded to float by
 * mpfr_get_flt; GSL quadrature of the Gaussian moments; central finite
 * differences at 256 bits for the gradients; LM-EXACT's objectives
 * (lm_objective, an independent implementation) for the tiny LM and the
 * softmax. */
#include <gsl/gsl_integration.h>
#include "testutil.h"

#define PREC 256
#define HIGH 512
#define REF_PREC 2048

/* The convention named name of catalogue id formula. */
static const rlref_kl_convention *
conv (const char *formula, const char *name)
{
  const rlref_kl_convention *c = rlref_kl_convention_find (formula, name);
  ck_assert_msg (c != NULL, "no convention %s of %s", name, formula);
  return c;
}

/* r = e^-l - 1 + l at REF_PREC, l a double. */
static void
ref_k3 (mpfr_ptr r, double l)
{
  mpfr_t t;
  mpfr_init2 (t, REF_PREC);
  mpfr_set_d (t, -l, MPFR_RNDN);
  mpfr_exp (t, t, MPFR_RNDN);
  mpfr_sub_ui (t, t, 1, MPFR_RNDN);
  mpfr_add_d (r, t, l, MPFR_RNDN);
  mpfr_clear (t);
}

/* x agrees with the decimal string s to its printed digits (n significant). */
static void
assert_printed (double x, const char *s, int n, const char *what)
{
  double want = strtod (s, NULL);
  ck_assert_msg (fabs (x - want) <= 0.5 * pow (10.0, floor (log10 (fabs (want))) - n + 1),
                 "%s = %.17g, printed %s", what, x, s);
}

/* ===== k3 itself ============================================================ */

/* k3 = e^-l - 1 + l against the plain formula at 2048 bits: binary64 within
 * 16 eps and MPFR to >= 70 digits, from l = 1e-15 to l = -700; and the
 * CONVENTIONS.md detector 1.1353353, 4.3890561, 3.93e12 (l = 2, -2, -29). */
START_TEST (test_k3_values)
{
  static const double ls[] = { 2, -2, -29, 1e-3, 1e-8, -1e-8, 1e-15, 0.3, -0.7, 0.49, 0.51,
                               1.9, -1.9, 50, -700, 745, -0.5 };
  mpfr_t want, x, k;
  mpfr_init2 (want, REF_PREC);
  mpfr_inits2 (PREC, x, k, (mpfr_ptr) 0);
  for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
    {
      double kd, l = ls[i];
      ref_k3 (want, l);
      TU_OK (rlref_kl_k3_d (&kd, &l));
      TU_ASSERT_REL (kd, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
      mpfr_set_d (x, l, MPFR_RNDN);
      TU_OK (rlref_kl_k3_mp (k, x));
      TU_ASSERT_MP_AGREE (k, want, 70);
    }
  {
    double k1, l1 = 2, l2 = -2, l3 = -29;
    TU_OK (rlref_kl_k3_d (&k1, &l1));
    assert_printed (k1, "1.1353353", 8, "k3(2)");
    TU_OK (rlref_kl_k3_d (&k1, &l2));
    assert_printed (k1, "4.3890561", 8, "k3(-2)");
    TU_OK (rlref_kl_k3_d (&k1, &l3));
    assert_printed (k1, "3.93e12", 3, "k3(-29)");
  }
  mpfr_clears (want, x, k, (mpfr_ptr) 0);
}
END_TEST

/* The naive form exp(-l) - 1 + l keeps few digits near 0 (l = 1e-8: k3 =
 * 5e-17 beside rounding errors of 1e-16) where the stable form keeps all;
 * at l = 2 both agree. */
START_TEST (test_k3_naive_loses)
{
  double l = 1e-8, kn, ks, l2 = 2, kn2;
  mpfr_t want;
  mpfr_init2 (want, REF_PREC);
  ref_k3 (want, l);
  TU_OK (rlref_kl_k3_naive_d (&kn, &l));
  TU_OK (rlref_kl_k3_d (&ks, &l));
  ck_assert_msg (tu_rel_err (kn, mpfr_get_d (want, MPFR_RNDN)) > 1e-3,
                 "naive k3(1e-8) = %.17g, exact %.17g: expected to lose its digits", kn,
                 mpfr_get_d (want, MPFR_RNDN));
  TU_ASSERT_REL (ks, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
  ref_k3 (want, l2);
  TU_OK (rlref_kl_k3_naive_d (&kn2, &l2));
  TU_ASSERT_REL (kn2, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  mpfr_clear (want);
}
END_TEST

/* The binary64 emulation: in binary64, k_naive is the very double
 * (exp(-l) - 1) + l and k_expm1 expm1(-l) + l; in MPFR they are the same
 * wherever the platform's exp and expm1 round correctly (checked here);
 * the errors: about 7e19 ulp (naive) and 1e10 ulp (expm1) at l = 1e-10, a
 * fraction of an ulp at l = 3. */
START_TEST (test_k3_binary64)
{
  static const double ls[] = { 1e-10, -1e-6, 3, 1e-3 };
  for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
    {
      double l = ls[i], zero = 0, k, kn, un, ke, ue;
      double want_n = (exp (-l) - 1.0) + l, want_e = expm1 (-l) + l;
      mpfr_t x, z, mk, mkn, mun, mke, mue, e;
      TU_OK (rlref_kl_k3_binary64_d (&k, &kn, &un, &ke, &ue, &l, &zero, 1));
      TU_ASSERT_SAME (kn, want_n);
      TU_ASSERT_SAME (ke, want_e);
      mpfr_inits2 (PREC, x, z, mk, mkn, mun, mke, mue, e, (mpfr_ptr) 0);
      mpfr_set_d (x, l, MPFR_RNDN);
      mpfr_set_zero (z, 1);
      TU_OK (rlref_kl_k3_binary64_mp (mk, mkn, mun, mke, mue, x, z, 1));
      mpfr_set_d (e, -l, MPFR_RNDN);
      mpfr_exp (e, e, MPFR_RNDN);
      if (mpfr_get_d (e, MPFR_RNDN) == exp (-l))
        TU_ASSERT_SAME (mpfr_get_d (mkn, MPFR_RNDN), want_n);
      mpfr_set_d (e, -l, MPFR_RNDN);
      mpfr_expm1 (e, e, MPFR_RNDN);
      if (mpfr_get_d (e, MPFR_RNDN) == expm1 (-l))
        TU_ASSERT_SAME (mpfr_get_d (mke, MPFR_RNDN), want_e);
      if (l == 1e-10)
        {
          ck_assert_msg (fabs (mpfr_get_d (mun, MPFR_RNDN)) > 1e19
                         && fabs (mpfr_get_d (mun, MPFR_RNDN)) < 1e21, "ulp_naive %s",
                         tu_mp_str (mun));
          ck_assert_msg (fabs (mpfr_get_d (mue, MPFR_RNDN)) > 1e8
                         && fabs (mpfr_get_d (mue, MPFR_RNDN)) < 1e11, "ulp_expm1 %s",
                         tu_mp_str (mue));
        }
      if (l == 3)
        ck_assert_msg (fabs (mpfr_get_d (mun, MPFR_RNDN)) <= 1
                       && fabs (mpfr_get_d (mue, MPFR_RNDN)) <= 1, "l = 3: %s, %s ulp",
                       tu_mp_str (mun), tu_mp_str (mue));
      mpfr_clears (x, z, mk, mkn, mun, mke, mue, e, (mpfr_ptr) 0);
    }
}
END_TEST

/* The error counts in binary64 against their closed forms, which need k3
 * beyond 53 bits (binary64 gave 0 for the first, and the MPFR backend at
 * 256 bits 0 for the second, whose k_form + 1 - l it rounded):
 *   l = 2^-847: expm1(-l) + l = 0, k3 = l^2/2 (1 - l/3), a count of
 *     -k3/2^-1074 = -2^-621;
 *   l = 1e300 = m 2^944: exp(-l) - 1 + l = l, k3 = l - 1 + e^-l, a count of
 *     (1 - e^-l)/2^944 = 2^-944. */
START_TEST (test_k3_binary64_counts)
{
  static const struct { double l, un, ue; } cs[] = {
    { 0x1p-847, NAN, -0x1p-621 }, { 1e300, 0x1p-944, 0x1p-944 } };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
    {
      double l = cs[i].l, zero = 0, k, kn, un, ke, ue;
      mpfr_t x, z, mk, mkn, mun, mke, mue;
      TU_OK (rlref_kl_k3_binary64_d (&k, &kn, &un, &ke, &ue, &l, &zero, 1));
      mpfr_inits2 (PREC, x, z, mk, mkn, mun, mke, mue, (mpfr_ptr) 0);
      mpfr_set_d (x, l, MPFR_RNDN);
      mpfr_set_zero (z, 1);
      TU_OK (rlref_kl_k3_binary64_mp (mk, mkn, mun, mke, mue, x, z, 1));
      TU_ASSERT_REL (ue, cs[i].ue, 2 * DBL_EPSILON);
      TU_ASSERT_REL (mpfr_get_d (mue, MPFR_RNDN), cs[i].ue, 2 * DBL_EPSILON);
      if (!isnan (cs[i].un))
        {
          TU_ASSERT_REL (un, cs[i].un, 2 * DBL_EPSILON);
          TU_ASSERT_REL (mpfr_get_d (mun, MPFR_RNDN), cs[i].un, 2 * DBL_EPSILON);
        }
      /* binary64 is the MPFR count rounded once */
      TU_ASSERT_SAME (ue, mpfr_get_d (mue, MPFR_RNDN));
      TU_ASSERT_SAME (un, mpfr_get_d (mun, MPFR_RNDN));
      mpfr_clears (x, z, mk, mkn, mun, mke, mue, (mpfr_ptr) 0);
    }
}
END_TEST

/* ===== the conventions ======================================================= */

/* One convention on logp (ref_logp 0) in both backends: k and grad, the
 * binary64 ones returned, the MPFR ones into mk, mg (as doubles). */
static int
run (const rlref_kl_convention *c, const double *logp, size_t n, double *k, double *g,
     double *mk, double *mg)
{
  double ref[8] = { 0 };
  mpfr_ptr x = tu_mp_vec_from_d (logp, n, PREC), r = tu_mp_vec_from_d (ref, n, PREC);
  mpfr_ptr yk = tu_mp_vec_new (n, PREC), yg = tu_mp_vec_new (n, PREC);
  int sd = rlref_kl_estimate_d (k, g, logp, ref, n, c);
  int sm = rlref_kl_estimate_mp (yk, yg, x, r, n, c);
  ck_assert_int_eq (sd, sm);
  for (size_t i = 0; sm == 0 && i < n; i++)
    {
      mk[i] = mpfr_get_d (yk + i, MPFR_RNDN);
      mg[i] = mpfr_get_d (yg + i, MPFR_RNDN);
    }
  tu_mp_vec_free (x, n);
  tu_mp_vec_free (r, n);
  tu_mp_vec_free (yk, n);
  tu_mp_vec_free (yg, n);
  return sd;
}

/* The CONVENTIONS.md detector l = 2, -2, -29 under every exact convention:
 * values and gradients from the rules (verl and OpenRLHF clamp at 10 with
 * gradient 0, the straight-through gradient is l). */
START_TEST (test_conventions_detector)
{
  static const double lp[3] = { 2, -2, -29 };
  static const struct { const char *f, *name; double k[3], g[3]; } want[] = {
    { "KL-K1", "plain", { 2, -2, -29 }, { 1, 1, 1 } },
    { "KL-K1", "straight-through", { 2, -2, -29 }, { 2, -2, -29 } },
    { "KL-K1", "openrlhf", { 2, -2, -10 }, { 1, 1, 0 } },
    { "KL-K2", "plain", { 2, 2, 420.5 }, { 2, -2, -29 } },
    { "KL-K2", "openrlhf", { 2, 2, 10 }, { 2, -2, 0 } },
    { "KL-VARIANTS", "abs", { 2, 2, 29 }, { 1, -1, -1 } },
    { "KL-VARIANTS", "abs-straight-through", { 2, 2, 29 }, { 2, -2, -29 } },
  };
  double k[3], g[3], mk[3], mg[3];
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    {
      TU_OK (run (conv (want[i].f, want[i].name), lp, 3, k, g, mk, mg));
      for (int j = 0; j < 3; j++)
        {
          TU_ASSERT_SAME (k[j], want[i].k[j]);
          TU_ASSERT_SAME (g[j], want[i].g[j]);
          TU_ASSERT_SAME (mk[j], want[i].k[j]);
          TU_ASSERT_SAME (mg[j], want[i].g[j]);
        }
    }
  /* k3: stable, verl's clamps, k3+ */
  {
    mpfr_t w;
    mpfr_init2 (w, REF_PREC);
    TU_OK (run (conv ("KL-K3", "stable"), lp, 3, k, g, mk, mg));
    for (int j = 0; j < 3; j++)
      {
        ref_k3 (w, lp[j]);
        TU_ASSERT_REL (k[j], mpfr_get_d (w, MPFR_RNDN), TU_TOL0);
        TU_ASSERT_REL (mk[j], mpfr_get_d (w, MPFR_RNDN), TU_TOL0);
        TU_ASSERT_REL (g[j], -expm1 (-lp[j]), TU_TOL0);
      }
    TU_OK (run (conv ("KL-K3", "verl-low-var-kl"), lp, 3, k, g, mk, mg));
    assert_printed (k[0], "1.1353353", 8, "verl k3(2)");
    assert_printed (mk[1], "4.3890561", 8, "verl k3(-2)");
    TU_ASSERT_SAME (k[2], 10.0);
    TU_ASSERT_SAME (mk[2], 10.0);
    TU_ASSERT_REL (g[0], -expm1 (-2.0), TU_TOL0);
    TU_ASSERT_REL (mg[1], -expm1 (2.0), TU_TOL0);
    TU_ASSERT_SAME (g[2], 0.0);
    TU_OK (run (conv ("KL-K3", "straight-through"), lp, 3, k, g, mk, mg));
    TU_ASSERT_SAME (k[2], 10.0);
    for (int j = 0; j < 3; j++)
      TU_ASSERT_SAME (g[j], lp[j]);
    mpfr_clear (w);
  }
}
END_TEST

/* e^x correctly rounded to binary32, x a float. */
static float
expf_cr (float x)
{
  mpfr_t t;
  float r;
  mpfr_init2 (t, 200);
  mpfr_set_flt (t, x, MPFR_RNDN);
  mpfr_exp (t, t, MPFR_RNDN);
  r = mpfr_get_flt (t, MPFR_RNDN);
  mpfr_clear (t);
  return r;
}

/* The binary32 conventions against C float arithmetic written out here
 * (OpenRLHF: l = logp - ref in float, k3 = (exp(-l) - 1) + l, clamp 10;
 * TRL GRPO: d = ref - logp, k3 = (exp(d) - d) - 1; TRL PPO: (exp(d) - 1) -
 * d; verl: d clamped to [-20, 20], (exp(d) - d) - 1 clamped to 10; every
 * gradient 1 - e), bit for bit in both backends, including l near 0 where
 * the float forms lose everything. */
START_TEST (test_float32_conventions)
{
  static const double lp[] = { -1.0000001, 0.001, 1e-10, -1e-10, 2, -2, -29, 50, -3, 0.7, 0,
                               -25 };
  static const double rf[] = { -1, 0, 0, 0, 0, 0, 0, 0, 0, -0.2, -20, 0 };
  const size_t n = sizeof lp / sizeof lp[0];
  for (int which = 0; which < 5; which++)
    {
      static const char *const names[] = { "openrlhf", "trl-float32", "openrlhf",
                                           "trl-ppo-float32", "verl-float32" };
      const rlref_kl_convention *c = conv (which == 2 ? "KL-K2" : "KL-K3", names[which]);
      double k[sizeof lp / sizeof lp[0]], g[sizeof lp / sizeof lp[0]];
      mpfr_ptr x = tu_mp_vec_from_d (lp, n, PREC), r = tu_mp_vec_from_d (rf, n, PREC);
      mpfr_ptr yk = tu_mp_vec_new (n, PREC), yg = tu_mp_vec_new (n, PREC);
      TU_OK (rlref_kl_estimate_d (k, g, lp, rf, n, c));
      TU_OK (rlref_kl_estimate_mp (yk, yg, x, r, n, c));
      for (size_t i = 0; i < n; i++)
        {
          float a = (float) lp[i], b = (float) rf[i], wk, wg;
          if (which == 0)
            {
              float l = a - b, e = expf_cr (-l);
              wk = (e - 1.0f) + l;
              wg = 1.0f - e;
              if (wk > 10.0f)
                wk = 10.0f, wg = 0.0f;
            }
          else if (which == 1)
            {
              float d = b - a, e = expf_cr (d);
              wk = (e - d) - 1.0f;
              wg = 1.0f - e;
            }
          else if (which == 3)
            {
              float d = b - a, e = expf_cr (d);
              wk = (e - 1.0f) - d;
              wg = 1.0f - e;
            }
          else if (which == 4)
            {
              float d = b - a, dc = d > 20.0f ? 20.0f : d < -20.0f ? -20.0f : d;
              float e = expf_cr (dc);
              wk = (e - dc) - 1.0f;
              wg = 1.0f - e;
              if (dc != d || wk > 10.0f)
                wg = 0.0f;
              if (wk > 10.0f)
                wk = 10.0f;
            }
          else
            {
              float l = a - b;
              wk = (l * l) / 2.0f;
              wg = l;
              if (wk > 10.0f)
                wk = 10.0f, wg = 0.0f;
            }
          TU_ASSERT_SAME (k[i], (double) wk);
          TU_ASSERT_SAME (g[i], (double) wg);
          TU_ASSERT_SAME (mpfr_get_d (yk + i, MPFR_RNDN), (double) wk);
          TU_ASSERT_SAME (mpfr_get_d (yg + i, MPFR_RNDN), (double) wg);
        }
      tu_mp_vec_free (x, n);
      tu_mp_vec_free (r, n);
      tu_mp_vec_free (yk, n);
      tu_mp_vec_free (yg, n);
    }
  /* OpenRLHF's k3 at l = 1e-10 is about l itself, TRL's 0, the exact 5e-21 */
  {
    double l = 1e-10, z = 0, k, g;
    TU_OK (rlref_kl_estimate_d (&k, &g, &l, &z, 1, conv ("KL-K3", "openrlhf")));
    ck_assert_msg (k > 1e-11, "OpenRLHF k3(1e-10) = %g", k);
    TU_OK (rlref_kl_estimate_d (&k, &g, &l, &z, 1, conv ("KL-K3", "trl-float32")));
    TU_ASSERT_SAME (k, 0.0);
    TU_OK (rlref_kl_estimate_d (&k, &g, &l, &z, 1, conv ("KL-K3", "verl-float32")));
    TU_ASSERT_SAME (k, 0.0);
    TU_OK (rlref_kl_estimate_d (&k, &g, &l, &z, 1, conv ("KL-K3", "trl-ppo-float32")));
    ck_assert_msg (k > 1e-11, "TRL PPO k3(1e-10) = %g", k);
  }
}
END_TEST

/* Log-probabilities beyond the binary32 range are +-inf in the float32
 * tensors (OpenRLHF's cast, TRL's and verl's float32 runs): the values the
 * libraries give where they are finite, ERANGE where the value or the
 * gradient is inf or NaN, in both backends. */
START_TEST (test_float32_infinite)
{
  static const struct { const char *f, *name; double logp; int ok; double k, g; } cs[] = {
    { "KL-K1", "openrlhf", -1e39, 1, -10, 0 },     /* clamp(-inf) */
    { "KL-K1", "openrlhf", 1e39, 1, 10, 0 },
    { "KL-K1", "openrlhf", -3e38, 1, -10, 0 },     /* f32 finite, difference too */
    { "KL-K2", "openrlhf", -1e39, 0, 0, 0 },       /* 10, gradient 0 * inf = NaN */
    { "KL-K2", "openrlhf", -2e38, 0, 0, 0 },       /* 2 l overflows in the backward pass */
    { "KL-K2", "openrlhf", -1e20, 1, 10, 0 },      /* l^2 inf, clamped; 2 l finite */
    { "KL-K3", "openrlhf", 1e39, 1, 10, 0 },       /* (0 - 1) + inf, clamped */
    { "KL-K3", "openrlhf", -1e39, 0, 0, 0 },       /* inf - inf */
    { "KL-K3", "openrlhf", -100, 0, 0, 0 },        /* 10, NaN gradient */
    { "KL-K3", "trl-float32", 1e39, 0, 0, 0 },     /* inf */
    { "KL-K3", "trl-float32", -1e39, 0, 0, 0 },    /* NaN */
    { "KL-K3", "trl-ppo-float32", 1e39, 0, 0, 0 },
    { "KL-K3", "trl-ppo-float32", -100, 0, 0, 0 },
    { "KL-K3", "verl-float32", 1e39, 1, 10, 0 },   /* d = -inf clamped to -20 */
    { "KL-K3", "verl-float32", -1e39, 1, 10, 0 },  /* d = +inf clamped to 20 */
    { "KL-K3", "verl-float32", -100, 1, 10, 0 },
    { "KL-VARIANTS", "verl-float32", -1e39, 1, 10, 0 },
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
    {
      const rlref_kl_convention *c = conv (cs[i].f, cs[i].name);
      double lp = cs[i].logp, rf = 0, k, g;
      mpfr_ptr x = tu_mp_vec_from_d (&lp, 1, PREC), r = tu_mp_vec_from_d (&rf, 1, PREC);
      mpfr_ptr yk = tu_mp_vec_new (1, PREC), yg = tu_mp_vec_new (1, PREC);
      if (cs[i].ok)
        {
          TU_OK (rlref_kl_estimate_d (&k, &g, &lp, &rf, 1, c));
          TU_OK (rlref_kl_estimate_mp (yk, yg, x, r, 1, c));
          TU_ASSERT_SAME (k, cs[i].k);
          ck_assert_msg (g == 0, "%s %s at %g: gradient %g", cs[i].f, cs[i].name, lp, g);
          TU_ASSERT_SAME (mpfr_get_d (yk, MPFR_RNDN), cs[i].k);
          ck_assert (mpfr_zero_p (yg));
        }
      else
        {
          TU_ASSERT_STATUS (rlref_kl_estimate_d (&k, &g, &lp, &rf, 1, c), RLREF_ERANGE);
          TU_ASSERT_STATUS (rlref_kl_estimate_mp (yk, yg, x, r, 1, c), RLREF_ERANGE);
        }
      tu_mp_vec_free (x, 1);
      tu_mp_vec_free (r, 1);
      tu_mp_vec_free (yk, 1);
      tu_mp_vec_free (yg, 1);
    }
}
END_TEST

/* verl's straight-through value 0.5 l^2 - (0.5 l^2).detach() + k.detach()
 * is NaN where l^2 overflows binary64: ERANGE from |l| = 1.35e154 on, the
 * value itself below; and the departures of rlref check's axes: the
 * value's stop-gradient missing (k' + l), k2's (0), the ratio inverted
 * (k3 = e^l - 1 - l, gradient e^l - 1), in both backends. */
START_TEST (test_straight_through_and_axes)
{
  static const char *const st[][2] = { { "KL-K1", "straight-through" },
                                       { "KL-K3", "straight-through" },
                                       { "KL-VARIANTS", "abs-straight-through" } };
  double k[2], g[2], lp[2] = { 1.3e154, -1.35e154 }, rf[2] = { 0, 0 };
  for (int i = 0; i < 3; i++)
    {
      const rlref_kl_convention *c = conv (st[i][0], st[i][1]);
      mpfr_ptr x = tu_mp_vec_from_d (lp, 2, PREC), r = tu_mp_vec_from_d (rf, 2, PREC);
      mpfr_ptr yk = tu_mp_vec_new (2, PREC), yg = tu_mp_vec_new (2, PREC);
      TU_OK (rlref_kl_estimate_d (k, g, lp, rf, 1, c));
      TU_ASSERT_SAME (g[0], 1.3e154);
      TU_OK (rlref_kl_estimate_mp (yk, yg, x, r, 1, c));
      TU_ASSERT_STATUS (rlref_kl_estimate_d (k, g, lp, rf, 2, c), RLREF_ERANGE);
      TU_ASSERT_STATUS (rlref_kl_estimate_mp (yk, yg, x, r, 2, c), RLREF_ERANGE);
      tu_mp_vec_free (x, 2);
      tu_mp_vec_free (r, 2);
      tu_mp_vec_free (yk, 2);
      tu_mp_vec_free (yg, 2);
    }
  {
    double l[3] = { 2, -0.5, 0.25 }, z[3] = { 0, 0, 0 }, dk[3], dg[3], mk[3], mg[3];
    rlref_kl_convention m = *conv ("KL-K1", "straight-through");
    m.straight_through = RLREF_KL_ST_VALUE_LIVE;
    TU_OK (run (&m, l, 3, dk, dg, mk, mg));
    for (int j = 0; j < 3; j++)
      {
        TU_ASSERT_SAME (dk[j], l[j]);
        TU_ASSERT_SAME (dg[j], 1 + l[j]);
        TU_ASSERT_SAME (mg[j], 1 + l[j]);
      }
    m.straight_through = RLREF_KL_ST_K2_LIVE;
    TU_OK (run (&m, l, 3, dk, dg, mk, mg));
    for (int j = 0; j < 3; j++)
      {
        TU_ASSERT_SAME (dg[j], 0.0);
        TU_ASSERT_SAME (mg[j], 0.0);
      }
    m = *conv ("KL-K3", "stable");
    m.inverted = 1;
    {
      double kk[3], gg[3];
      TU_OK (run (&m, l, 3, kk, gg, mk, mg));
      for (int j = 0; j < 3; j++)
        {
          mpfr_t w;
          mpfr_init2 (w, REF_PREC);
          ref_k3 (w, -l[j]);
          TU_ASSERT_REL (kk[j], mpfr_get_d (w, MPFR_RNDN), TU_TOL0);
          TU_ASSERT_REL (mk[j], mpfr_get_d (w, MPFR_RNDN), TU_TOL0);
          TU_ASSERT_REL (gg[j], expm1 (l[j]), TU_TOL0);
          TU_ASSERT_REL (mg[j], expm1 (l[j]), TU_TOL0);
          mpfr_clear (w);
        }
      /* the binary32 orders inverted: the inputs' roles swapped, the gradient negated */
      m = *conv ("KL-K3", "openrlhf");
      m.inverted = 1;
      TU_OK (rlref_kl_estimate_d (kk, gg, l, z, 3, &m));
      {
        double kr[3], gr[3];
        TU_OK (rlref_kl_estimate_d (kr, gr, z, l, 3, conv ("KL-K3", "openrlhf")));
        for (int j = 0; j < 3; j++)
          {
            TU_ASSERT_SAME (kk[j], kr[j]);
            TU_ASSERT_SAME (gg[j], -gr[j]);
          }
      }
    }
  }
}
END_TEST

/* Clamp bounds: OpenRLHF's k1 at l = +-10 exactly keeps the gradient
 * (PyTorch's clamp passes it on the bound), at 10.5 not; verl's k3 at
 * l = -2.53 (k3 = 9.99) is not clamped, at -3 (16.09) it is. */
START_TEST (test_clamp_bounds)
{
  static const double lp[4] = { -10, 10, 10.5, -10.5 };
  double k[4], g[4], mk[4], mg[4];
  TU_OK (run (conv ("KL-K1", "openrlhf"), lp, 4, k, g, mk, mg));
  TU_ASSERT_SAME (k[0], -10.0);
  TU_ASSERT_SAME (g[0], 1.0);
  TU_ASSERT_SAME (g[1], 1.0);
  TU_ASSERT_SAME (k[2], 10.0);
  TU_ASSERT_SAME (g[2], 0.0);
  TU_ASSERT_SAME (mg[3], 0.0);
  {
    static const double l2[2] = { -2.53, -3 };
    mpfr_t w;
    mpfr_init2 (w, REF_PREC);
    TU_OK (run (conv ("KL-K3", "verl-low-var-kl"), l2, 2, k, g, mk, mg));
    ref_k3 (w, -2.53);
    ck_assert (mpfr_cmp_ui (w, 10) < 0);
    TU_ASSERT_REL (k[0], mpfr_get_d (w, MPFR_RNDN), TU_TOL0);
    TU_ASSERT_REL (g[0], -expm1 (2.53), TU_TOL0);
    TU_ASSERT_SAME (k[1], 10.0);
    TU_ASSERT_SAME (g[1], 0.0);
    mpfr_clear (w);
  }
}
END_TEST

/* The MPFR inputs of one per-token evaluation. */
struct token_ctx
{
  const rlref_kl_convention *c;
  mpfr_ptr logp, ref, old;
  size_t i, n;
};

/* k[i] of the context (bias-corrected when old is set). */
static void
token_eval (mpfr_ptr out, void *vctx)
{
  struct token_ctx *t = vctx;
  mpfr_ptr k = tu_mp_vec_new (t->n, PREC);
  if (t->old)
    TU_OK (rlref_kl_k3_bias_corrected_mp (k, NULL, t->logp, t->ref, t->old, t->n));
  else
    TU_OK (rlref_kl_estimate_mp (k, NULL, t->logp, t->ref, t->n, t->c));
  mpfr_set (out, k + t->i, MPFR_RNDN);
  tu_mp_vec_free (k, t->n);
}

/* The analytic gradient g agrees with the central difference of f in v to
 * >= 40 digits, or both vanish (below 1e-40). */
static void
assert_fd (mpfr_srcptr g, mpfr_ptr v, void (*f) (mpfr_ptr, void *), void *ctx, const char *what)
{
  mpfr_t d;
  mpfr_init2 (d, PREC);
  tu_mp_central_diff (d, v, f, ctx);
  if (fabs (mpfr_get_d (d, MPFR_RNDN)) < 1e-40)
    ck_assert_msg (fabs (mpfr_get_d (g, MPFR_RNDN)) < 1e-40, "%s: analytic %s, differences %s",
                   what, tu_mp_str (g), tu_mp_str (d));
  else
    ck_assert_msg (tu_mp_digits (g, d) >= 40, "%s: analytic %s, differences %s", what,
                   tu_mp_str (g), tu_mp_str (d));
  mpfr_clear (d);
}

/* The gradient of every exact non-straight-through convention against
 * central differences in logp, away from the clamps' kinks; TRL's
 * bias-corrected k3 likewise, and on-policy its gradient is l. */
START_TEST (test_gradients_fd)
{
  static const double lp[] = { -1.5, 0.2, -0.01, 3, -2.3, -25 };
  static const double rf[] = { -2, -0.3, -0.02, -1, -1.2, -0.5 };
  static const double old[] = { -1.7, 0.2, 0.1, 2, -2.5, -25 };
  static const struct { const char *f, *name; } cs[] = {
    { "KL-K1", "plain" }, { "KL-K2", "plain" }, { "KL-K3", "stable" },
    { "KL-K3", "verl-low-var-kl" }, { "KL-VARIANTS", "abs" },
  };
  const size_t n = sizeof lp / sizeof lp[0];
  struct token_ctx t = { NULL, tu_mp_vec_from_d (lp, n, PREC), tu_mp_vec_from_d (rf, n, PREC),
                         NULL, 0, n };
  mpfr_ptr k = tu_mp_vec_new (n, PREC), g = tu_mp_vec_new (n, PREC);
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
    {
      t.c = conv (cs[c].f, cs[c].name);
      TU_OK (rlref_kl_estimate_mp (k, g, t.logp, t.ref, n, t.c));
      for (t.i = 0; t.i < n; t.i++)
        assert_fd (g + t.i, t.logp + t.i, token_eval, &t, cs[c].name);
    }
  t.old = tu_mp_vec_from_d (old, n, PREC);
  TU_OK (rlref_kl_k3_bias_corrected_mp (k, g, t.logp, t.ref, t.old, n));
  for (t.i = 0; t.i < n; t.i++)
    assert_fd (g + t.i, t.logp + t.i, token_eval, &t, "bias-corrected");
  /* on-policy: value k3, gradient l */
  {
    double k1[2], g1[2], l1[2] = { -1.5, 0.2 }, r1[2] = { -2, -0.3 };
    mpfr_t w;
    mpfr_init2 (w, REF_PREC);
    TU_OK (rlref_kl_k3_bias_corrected_d (k1, g1, l1, r1, l1, 2));
    for (int j = 0; j < 2; j++)
      {
        ref_k3 (w, l1[j] - r1[j]);
        TU_ASSERT_REL (k1[j], mpfr_get_d (w, MPFR_RNDN), TU_TOL0);
        TU_ASSERT_REL (g1[j], l1[j] - r1[j], TU_TOL0);
      }
    mpfr_clear (w);
  }
  tu_mp_vec_free (t.logp, n);
  tu_mp_vec_free (t.ref, n);
  tu_mp_vec_free (t.old, n);
  tu_mp_vec_free (k, n);
  tu_mp_vec_free (g, n);
}
END_TEST

/* ===== the full KL ============================================================ */

struct full_ctx
{
  mpfr_ptr x, r;
};

static void
full_eval (mpfr_ptr out, void *vctx)
{
  struct full_ctx *c = vctx;
  TU_OK (rlref_kl_full_mp (out, NULL, c->x, c->r, 3));
}

/* p = (0.5, 0.3, 0.2) against the uniform distribution: KL = log 3 - H(p),
 * written here at 2048 bits from the doubles' exponentials; the gradient
 * p_v (h_v - KL) against central differences; exponentials summing to 2
 * are refused. */
START_TEST (test_full)
{
  double lp[3] = { log (0.5), log (0.3), log (0.2) }, lr[3], kl, g[3];
  mpfr_t want, a, b, z, s;
  mpfr_ptr x = NULL, r = NULL, mg = tu_mp_vec_new (3, PREC);
  mpfr_inits2 (REF_PREC, want, a, b, z, s, (mpfr_ptr) 0);
  for (int j = 0; j < 3; j++)
    lr[j] = -log (3.0);
  TU_OK (rlref_kl_full_d (&kl, g, lp, lr, 3));
  /* sum_v p_v (a_v - b_v), a, b the log-probabilities normalised at 2048 bits */
  mpfr_set_zero (want, 1);
  mpfr_set_zero (z, 1);
  mpfr_set_zero (s, 1);
  for (int j = 0; j < 3; j++)
    {
      mpfr_set_d (a, lp[j], MPFR_RNDN);
      mpfr_exp (a, a, MPFR_RNDN);
      mpfr_add (z, z, a, MPFR_RNDN);
      mpfr_set_d (b, lr[j], MPFR_RNDN);
      mpfr_exp (b, b, MPFR_RNDN);
      mpfr_add (s, s, b, MPFR_RNDN);
    }
  mpfr_log (z, z, MPFR_RNDN);
  mpfr_log (s, s, MPFR_RNDN);
  for (int j = 0; j < 3; j++)
    {
      mpfr_set_d (a, lp[j], MPFR_RNDN);
      mpfr_sub (a, a, z, MPFR_RNDN);
      mpfr_set_d (b, lr[j], MPFR_RNDN);
      mpfr_sub (b, b, s, MPFR_RNDN);
      mpfr_sub (b, a, b, MPFR_RNDN);
      mpfr_exp (a, a, MPFR_RNDN);
      mpfr_mul (b, b, a, MPFR_RNDN);
      mpfr_add (want, want, b, MPFR_RNDN);
    }
  TU_ASSERT_REL (kl, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  ck_assert_msg (fabs (kl - (log (3.0) + 0.5 * log (0.5) + 0.3 * log (0.3) + 0.2 * log (0.2)))
                 < 1e-15, "KL = log 3 - H(p): %.17g", kl);
  {
    struct full_ctx c;
    mpfr_t v;
    x = tu_mp_vec_from_d (lp, 3, PREC);
    r = tu_mp_vec_from_d (lr, 3, PREC);
    mpfr_init2 (v, PREC);
    TU_OK (rlref_kl_full_mp (v, mg, x, r, 3));
    TU_ASSERT_MP_AGREE (v, want, 70);
    c.x = x;
    c.r = r;
    for (int j = 0; j < 3; j++)
      {
        assert_fd (mg + j, x + j, full_eval, &c, "full KL gradient");
        TU_ASSERT_REL (g[j], mpfr_get_d (mg + j, MPFR_RNDN), TU_TOL2);
      }
    mpfr_clear (v);
  }
  {
    double bad[2] = { 0, 0 }, ref2[2] = { log (0.5), log (0.5) };
    TU_ASSERT_STATUS (rlref_kl_full_d (&kl, NULL, bad, ref2, 2), RLREF_EDOM);
  }
  tu_mp_vec_free (x, 3);
  tu_mp_vec_free (r, 3);
  tu_mp_vec_free (mg, 3);
  mpfr_clears (want, a, b, z, s, (mpfr_ptr) 0);
}
END_TEST

/* ===== KL-EXACT ================================================================ */

/* kl_exact of n outcomes in both backends; out_d and the MPFR outputs. */
static void
exact_both (const double *p, const double *q, size_t n, double *od, mpfr_ptr om)
{
  mpfr_ptr x = tu_mp_vec_from_d (p, n, PREC), y = tu_mp_vec_from_d (q, n, PREC);
  TU_OK (rlref_kl_exact_d (od, p, q, n));
  TU_OK (rlref_kl_exact_mp (om, x, y, n));
  tu_mp_vec_free (x, n);
  tu_mp_vec_free (y, n);
}

/* The direct definitions at REF_PREC over pi = p/sum p, pi_ref = q/sum q:
 * w[] = KL, E k2, E k3, E k3 - KL, Var k1, Var k2, Var k3 (E k2 - KL is
 * w[1] - w[0]). */
static void
exact_direct (const double *p, const double *q, size_t n, mpfr_ptr w)
{
  mpfr_t sp, sq, a, b, l, k[3], e[3];
  mpfr_inits2 (REF_PREC, sp, sq, a, b, l, k[0], k[1], k[2], e[0], e[1], e[2], (mpfr_ptr) 0);
  mpfr_set_zero (sp, 1);
  mpfr_set_zero (sq, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_add_d (sp, sp, p[i], MPFR_RNDN);
      mpfr_add_d (sq, sq, q[i], MPFR_RNDN);
    }
  for (int j = 0; j < 3; j++)
    mpfr_set_zero (e[j], 1);
  mpfr_set_zero (w + 3, 1);
  for (int pass = 0; pass < 2; pass++)
    {
      for (int j = 0; j < 3; j++)
        mpfr_set_zero (w + 4 + j, 1);
      for (size_t i = 0; i < n; i++)
        {
          if (p[i] == 0)
            continue;
          mpfr_set_d (a, p[i], MPFR_RNDN);
          mpfr_div (a, a, sp, MPFR_RNDN);             /* pi */
          mpfr_set_d (b, q[i], MPFR_RNDN);
          mpfr_div (b, b, sq, MPFR_RNDN);             /* pi_ref */
          mpfr_div (l, a, b, MPFR_RNDN);
          mpfr_log (l, l, MPFR_RNDN);
          mpfr_set (k[0], l, MPFR_RNDN);
          mpfr_sqr (k[1], l, MPFR_RNDN);
          mpfr_div_ui (k[1], k[1], 2, MPFR_RNDN);
          mpfr_div (k[2], b, a, MPFR_RNDN);           /* u - 1 - log u */
          mpfr_sub_ui (k[2], k[2], 1, MPFR_RNDN);
          mpfr_add (k[2], k[2], l, MPFR_RNDN);
          for (int j = 0; j < 3; j++)
            {
              if (pass == 0)
                mpfr_fma (e[j], a, k[j], e[j], MPFR_RNDN);
              else
                {
                  mpfr_sub (l, k[j], e[j], MPFR_RNDN);
                  mpfr_sqr (l, l, MPFR_RNDN);
                  mpfr_fma (w + 4 + j, a, l, w + 4 + j, MPFR_RNDN);
                }
            }
          if (pass == 0)
            mpfr_add (w + 3, w + 3, b, MPFR_RNDN);
        }
    }
  mpfr_set (w + 0, e[0], MPFR_RNDN);
  mpfr_set (w + 1, e[1], MPFR_RNDN);
  mpfr_set (w + 2, e[2], MPFR_RNDN);
  mpfr_sub_ui (w + 3, w + 3, 1, MPFR_RNDN);
  mpfr_clears (sp, sq, a, b, l, k[0], k[1], k[2], e[0], e[1], e[2], (mpfr_ptr) 0);
}

/* Finite distributions against the direct definitions (MPFR >= 60 digits,
 * binary64 within 64 eps), including two that nearly agree (KL 2e-14,
 * computed to full relative accuracy), FORMULAS.md's counter-example
 * (KL = log 2 = 0.693147, E[k3] = log 2 - 1/2 = 0.193147) and a negative
 * k1 sample with E[k1] = KL > 0. */
START_TEST (test_exact_discrete)
{
  static const struct { size_t n; double p[4], q[4]; } cs[] = {
    { 4, { 0.1, 0.2, 0.3, 0.4 }, { 0.25, 0.25, 0.25, 0.25 } },
    { 2, { 0.5000001, 0.4999999 }, { 0.5, 0.5 } },
    { 2, { 1, 0 }, { 0.5, 0.5 } },
    { 2, { 0.5, 0.5 }, { 0.25, 0.75 } },
    { 3, { 0.5, 0.5, 0 }, { 0.5, 0.4, 0.1 } },
    { 2, { 0.999, 0.001 }, { 0.001, 0.999 } },
  };
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
    {
      double od[RLREF_KL_NEXACT];
      mpfr_ptr om = tu_mp_vec_new (RLREF_KL_NEXACT, PREC), w = tu_mp_vec_new (7, REF_PREC);
      mpfr_t t;
      mpfr_init2 (t, REF_PREC);
      exact_both (cs[c].p, cs[c].q, cs[c].n, od, om);
      exact_direct (cs[c].p, cs[c].q, cs[c].n, w);
      {
        static const int idx[7] = { RLREF_KL_KL, RLREF_KL_E_K2, RLREF_KL_E_K3, RLREF_KL_BIAS_K3,
                                    RLREF_KL_VAR_K1, RLREF_KL_VAR_K2, RLREF_KL_VAR_K3 };
        for (int j = 0; j < 7; j++)
          {
            if (mpfr_zero_p (w + j) || fabs (mpfr_get_d (w + j, MPFR_RNDN)) < 1e-300)
              {
                ck_assert_msg (fabs (od[idx[j]]) < 1e-30, "case %zu output %d: %g, want 0", c,
                               idx[j], od[idx[j]]);
                continue;
              }
            ck_assert_msg (tu_mp_digits (om + idx[j], w + j) >= 60, "case %zu output %d: %s, "
                           "want %s", c, idx[j], tu_mp_str (om + idx[j]), tu_mp_str (w + j));
            /* case 1: Var k2 and Var k3 are sums of squared differences of k values
             * that agree to 7 digits, ill-conditioned in the inputs (the golden's
             * sensitivity covers it, tests/generic); every other output to 64 eps */
            if (!(c == 1 && (idx[j] == RLREF_KL_VAR_K2 || idx[j] == RLREF_KL_VAR_K3)))
              TU_ASSERT_REL (od[idx[j]], mpfr_get_d (w + j, MPFR_RNDN), 64 * DBL_EPSILON);
          }
        mpfr_sub (t, w + 1, w + 0, MPFR_RNDN);          /* E k2 - KL */
        TU_ASSERT_MP_AGREE (om + RLREF_KL_BIAS_K2, t, 60);
        /* case 1: E k2 - KL ~ -sum pi l^3/6 with l_1 ~ -l_2, as ill-conditioned */
        if (c != 1)
          TU_ASSERT_REL (od[RLREF_KL_BIAS_K2], mpfr_get_d (t, MPFR_RNDN), 64 * DBL_EPSILON);
      }
      if (c == 2)
        {
          assert_printed (od[RLREF_KL_KL], "0.693147", 6, "counter-example KL");
          assert_printed (od[RLREF_KL_E_K3], "0.193147", 6, "counter-example E[k3]");
          TU_ASSERT_SAME (od[RLREF_KL_BIAS_K3], -0.5);
        }
      if (c == 3)
        ck_assert (log (0.5 / 0.75) < 0 && od[RLREF_KL_KL] > 0.14);
      mpfr_clear (t);
      tu_mp_vec_free (om, RLREF_KL_NEXACT);
      tu_mp_vec_free (w, 7);
    }
}
END_TEST

/* The tabular model A3 of the goldens, V = 3, EOS 2, T = 3. */
static const double a3[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2, 0, 0, 0,
                               1, -1, 0, -0.3, 0.3, 0 };
static const double a3_ref[21] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1, 0.1, -0.1, 0.3,
                                   0.2, 0.2, 0.2, -1, 0, 1 };

/* A policy 2^-50 from its reference in one logit: the KL is about 1e-31,
 * second order, and the sums over the sequences of pi l are first order
 * (binary64 enumeration: -5.0e-18 for 9.4e-34 in a case like it).  KL,
 * E[k2], E[k3] of the sequence's log-ratio are lm_objective's (a
 * separate enumeration) at 1024 bits rounded, the token sums' E[k3] that
 * same KL. */
START_TEST (test_exact_lm_near_reference)
{
  rlref_lm lm = { .V = 3, .eos = 2, .T = 3, .kind = RLREF_LM_TABULAR,
                  .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_NONE };
  static const struct { int obj, out; } pairs[3] = {
    { RLREF_LM_OBJ_KL, RLREF_KL_KL }, { RLREF_LM_OBJ_K2, RLREF_KL_E_K2 },
    { RLREF_LM_OBJ_K3, RLREF_KL_E_K3 } };
  double th[21], seq[RLREF_KL_NEXACT], tok[RLREF_KL_NEXACT];
  mpfr_ptr thm, trm, v = tu_mp_vec_new (1, 1024), beta = tu_mp_vec_new (1, 1024);
  memcpy (th, a3, sizeof th);
  th[4] += 0x1p-50;
  thm = tu_mp_vec_from_d (th, 21, 1024);
  trm = tu_mp_vec_from_d (a3, 21, 1024);
  rlref_mp_set_prec (1024);
  mpfr_set_ui (beta, 1, MPFR_RNDN);
  TU_OK (rlref_kl_exact_lm_d (seq, &lm, th, a3, 0));
  TU_OK (rlref_kl_exact_lm_d (tok, &lm, th, a3, 1));
  for (int j = 0; j < 3; j++)
    {
      TU_OK (rlref_lm_objective_mp (v, NULL, &lm, thm, trm, NULL, beta, pairs[j].obj));
      TU_ASSERT_SAME (seq[pairs[j].out], mpfr_get_d (v, MPFR_RNDN));
      if (j == 0)
        {
          ck_assert (mpfr_cmp_d (v, 1e-33) > 0 && mpfr_cmp_d (v, 1e-29) < 0);
          TU_ASSERT_SAME (tok[RLREF_KL_E_K3], mpfr_get_d (v, MPFR_RNDN));
        }
    }
  rlref_mp_set_prec (PREC);
  tu_mp_vec_free (thm, 21);
  tu_mp_vec_free (trm, 21);
  tu_mp_vec_free (v, 1);
  tu_mp_vec_free (beta, 1);
}
END_TEST

/* The tiny LM: KL, E[k2] and E[k3] of the sequence's log-ratio equal the
 * values of lm_objective (RLREF_LM_OBJ_KL, K2, K3), a separate
 * implementation, to 60 digits; the token sums of k3 are unbiased too
 * (E[sum_t k3] = KL to 60 digits) while those of k2 are not the sequence
 * k2's. */
START_TEST (test_exact_lm)
{
  rlref_lm lm = { .V = 3, .eos = 2, .T = 3, .kind = RLREF_LM_TABULAR,
                  .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_NONE };
  mpfr_ptr th = tu_mp_vec_from_d (a3, 21, PREC), tr = tu_mp_vec_from_d (a3_ref, 21, PREC);
  mpfr_ptr seq = tu_mp_vec_new (RLREF_KL_NEXACT, PREC), tok = tu_mp_vec_new (RLREF_KL_NEXACT, PREC);
  mpfr_t v, beta;
  double od[RLREF_KL_NEXACT], vd, one = 1;
  static const struct { int obj, out; } pairs[3] = {
    { RLREF_LM_OBJ_KL, RLREF_KL_KL }, { RLREF_LM_OBJ_K2, RLREF_KL_E_K2 },
    { RLREF_LM_OBJ_K3, RLREF_KL_E_K3 } };
  mpfr_inits2 (PREC, v, beta, (mpfr_ptr) 0);
  mpfr_set_ui (beta, 1, MPFR_RNDN);
  TU_OK (rlref_kl_exact_lm_mp (seq, &lm, th, tr, 0));
  TU_OK (rlref_kl_exact_lm_mp (tok, &lm, th, tr, 1));
  TU_OK (rlref_kl_exact_lm_d (od, &lm, a3, a3_ref, 0));
  for (int j = 0; j < 3; j++)
    {
      TU_OK (rlref_lm_objective_mp (v, NULL, &lm, th, tr, NULL, beta, pairs[j].obj));
      TU_ASSERT_MP_AGREE (seq + pairs[j].out, v, 60);
      TU_OK (rlref_lm_objective_d (&vd, NULL, &lm, a3, a3_ref, NULL, &one, pairs[j].obj));
      TU_ASSERT_REL (od[pairs[j].out], vd, TU_TOL2);
    }
  TU_ASSERT_MP_AGREE (tok + RLREF_KL_E_K3, tok + RLREF_KL_KL, 60);
  TU_ASSERT_MP_AGREE (tok + RLREF_KL_KL, seq + RLREF_KL_KL, 60);
  ck_assert (mpfr_zero_p (seq + RLREF_KL_BIAS_K3) && mpfr_zero_p (tok + RLREF_KL_BIAS_K3));
  ck_assert_msg (tu_mp_digits (tok + RLREF_KL_E_K2, seq + RLREF_KL_E_K2) < 3,
                 "token sums of k2 %s, sequence k2 %s", tu_mp_str (tok + RLREF_KL_E_K2),
                 tu_mp_str (seq + RLREF_KL_E_K2));
  mpfr_sub (v, seq + RLREF_KL_E_K2, seq + RLREF_KL_KL, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (seq + RLREF_KL_BIAS_K2, v, 60);
  mpfr_clears (v, beta, (mpfr_ptr) 0);
  tu_mp_vec_free (th, 21);
  tu_mp_vec_free (tr, 21);
  tu_mp_vec_free (seq, RLREF_KL_NEXACT);
  tu_mp_vec_free (tok, RLREF_KL_NEXACT);
}
END_TEST

/* ===== two Gaussians ============================================================ */

static void
gauss_both (double mu, double s, double mr, double t, double *od, mpfr_ptr om)
{
  mpfr_t a, b, c, d;
  mpfr_inits2 (PREC, a, b, c, d, (mpfr_ptr) 0);
  mpfr_set_d (a, mu, MPFR_RNDN);
  mpfr_set_d (b, s, MPFR_RNDN);
  mpfr_set_d (c, mr, MPFR_RNDN);
  mpfr_set_d (d, t, MPFR_RNDN);
  TU_OK (rlref_kl_gauss_d (od, &mu, &s, &mr, &t));
  TU_OK (rlref_kl_gauss_mp (om, a, b, c, d));
  mpfr_clears (a, b, c, d, (mpfr_ptr) 0);
}

/* Schulman's table (q = N(0, 1), p = N(mu, 1)) to its printed digits, and
 * its closed forms at 2048 bits: KL = mu^2/2, Var k1 = mu^2, E k2 = (KL^2 +
 * mu^2)/2, Var k3 = e^{mu^2} - 1 - mu^2 (MPFR >= 60 digits, binary64 16
 * eps). */
START_TEST (test_gauss_schulman)
{
  static const struct { double mu; const char *p[4]; int d[4]; } tab[2] = {
    { 0.1, { "20", "0.0025", "1.42", "1.42" }, { 2, 2, 3, 3 } },
    { 1.0, { "2", "0.25", "1.73", "1.7" }, { 1, 2, 3, 2 } },
  };
  static const int col[4] = { RLREF_KL_G_STD_K1_REL, RLREF_KL_G_BIAS_K2_REL,
                              RLREF_KL_G_STD_K2_REL, RLREF_KL_G_STD_K3_REL };
  for (int r = 0; r < 2; r++)
    {
      double od[RLREF_KL_NGAUSS];
      mpfr_ptr om = tu_mp_vec_new (RLREF_KL_NGAUSS, PREC);
      mpfr_t m2, w;
      mpfr_inits2 (REF_PREC, m2, w, (mpfr_ptr) 0);
      gauss_both (0, 1, tab[r].mu, 1, od, om);
      for (int j = 0; j < 4; j++)
        assert_printed (od[col[j]], tab[r].p[j], tab[r].d[j], "Schulman");
      mpfr_set_d (m2, tab[r].mu, MPFR_RNDN);
      mpfr_sqr (m2, m2, MPFR_RNDN);                     /* mu^2 */
      mpfr_div_ui (w, m2, 2, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (om + RLREF_KL_G_KL, w, 60);
      TU_ASSERT_MP_AGREE (om + RLREF_KL_G_KL_REVERSE, w, 60);
      TU_ASSERT_REL (od[RLREF_KL_G_KL], mpfr_get_d (w, MPFR_RNDN), TU_TOL1);
      TU_ASSERT_MP_AGREE (om + RLREF_KL_G_VAR_K1, m2, 60);
      mpfr_sqr (w, w, MPFR_RNDN);
      mpfr_add (w, w, m2, MPFR_RNDN);
      mpfr_div_ui (w, w, 2, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (om + RLREF_KL_G_E_K2, w, 60);
      mpfr_expm1 (w, m2, MPFR_RNDN);
      mpfr_sub (w, w, m2, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (om + RLREF_KL_G_VAR_K3, w, 60);
      TU_ASSERT_REL (od[RLREF_KL_G_VAR_K3], mpfr_get_d (w, MPFR_RNDN), TU_TOL1);
      mpfr_clears (m2, w, (mpfr_ptr) 0);
      tu_mp_vec_free (om, RLREF_KL_NGAUSS);
    }
}
END_TEST

/* x ~ N(mu, s^2) against N(mr, t^2); the integrand of E[f(l(x))]. */
struct gq
{
  double mu, s, mr, t, mean;
  int which;                    /* 0: l, 1: (l - mean)^2, 2: l^2/2, 3: (l^2/2 - mean)^2,
                                   4: k3, 5: (k3 - mean)^2 */
};

static double
gq_f (double x, void *vp)
{
  const struct gq *g = vp;
  double z = (x - g->mu) / g->s, zr = (x - g->mr) / g->t;
  double l = log (g->t / g->s) - 0.5 * z * z + 0.5 * zr * zr, v;
  double dens = exp (-0.5 * z * z) / (g->s * sqrt (2 * M_PI));
  if (dens == 0)
    return 0;                   /* far in the tails, where l may overflow */
  switch (g->which)
    {
    case 0: v = l; break;
    case 1: v = (l - g->mean) * (l - g->mean); break;
    case 2: v = 0.5 * l * l; break;
    case 3: v = (0.5 * l * l - g->mean) * (0.5 * l * l - g->mean); break;
    case 4: v = expm1 (-l) + l; break;
    default: v = (expm1 (-l) + l - g->mean) * (expm1 (-l) + l - g->mean); break;
    }
  return dens * v;
}

/* GSL's adaptive quadrature on (-inf, inf) of E[f(l)] for f = l, l^2/2,
 * k3 and their variances. */
static double
gq_int (struct gq *g, int which, double mean, double rel)
{
  gsl_integration_workspace *ws = gsl_integration_workspace_alloc (2000);
  gsl_function F = { gq_f, g };
  double r, err;
  g->which = which;
  g->mean = mean;
  gsl_error_handler_t *h = gsl_set_error_handler_off ();
  int status = gsl_integration_qagi (&F, 0, rel, 2000, ws, &r, &err);
  gsl_set_error_handler (h);
  ck_assert_msg (status == 0 && err <= 10 * rel * fabs (r), "quadrature: status %d, %g +- %g",
                 status, r, err);
  gsl_integration_workspace_free (ws);
  return r;
}

/* Unequal variances against GSL quadrature (to 1e-9, a heavy tail to
 * 1e-6); sigma_ref^2 >= 2
 * sigma^2 gives Var[k3] = +inf with the rest finite; mu_ref = 1e-8 keeps
 * full relative accuracy in binary64 (KL 5e-17). */
/* A small ratio u = s/t (1 + delta = u^2 loses its digits): KL =
 * (u^2 - 1)/2 - log u + D and its reverse, binary64 against MPFR (the
 * closed form at PREC bits). */
START_TEST (test_gauss_small_ratio)
{
  static const double ts[] = { 100, 1e4, 3, 1e150 };
  for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
    {
      double od[RLREF_KL_NGAUSS];
      mpfr_ptr om = tu_mp_vec_new (RLREF_KL_NGAUSS, PREC);
      gauss_both (0.5, 1, 0, ts[i], od, om);
      TU_ASSERT_REL (od[RLREF_KL_G_KL], mpfr_get_d (om + RLREF_KL_G_KL, MPFR_RNDN),
                     8 * DBL_EPSILON);
      TU_ASSERT_REL (od[RLREF_KL_G_KL_REVERSE],
                     mpfr_get_d (om + RLREF_KL_G_KL_REVERSE, MPFR_RNDN), 8 * DBL_EPSILON);
      TU_ASSERT_REL (od[RLREF_KL_G_BIAS_K2], mpfr_get_d (om + RLREF_KL_G_BIAS_K2, MPFR_RNDN),
                     16 * DBL_EPSILON);
      tu_mp_vec_free (om, RLREF_KL_NGAUSS);
    }
  /* sigma_ref = 1e4: KL = log 1e4 + 1/(2e8) - 1/2 */
  {
    double od[RLREF_KL_NGAUSS];
    mpfr_ptr om = tu_mp_vec_new (RLREF_KL_NGAUSS, PREC);
    gauss_both (0, 1, 0, 1e4, od, om);
    TU_ASSERT_REL (od[RLREF_KL_G_KL], 8.710340376976182, 2 * DBL_EPSILON);
    TU_ASSERT_REL (od[RLREF_KL_G_KL_REVERSE], 49999990.28965963, 2 * DBL_EPSILON);
    tu_mp_vec_free (om, RLREF_KL_NGAUSS);
  }
}
END_TEST

START_TEST (test_gauss_general)
{
  static const double gs[2][4] = { { 0.3, 0.8, -0.2, 1.1 }, { 0, 1, 0, 0.5 } };
  for (int c = 0; c < 2; c++)
    {
      struct gq g = { gs[c][0], gs[c][1], gs[c][2], gs[c][3], 0, 0 };
      double od[RLREF_KL_NGAUSS], kl, e2, e3;
      mpfr_ptr om = tu_mp_vec_new (RLREF_KL_NGAUSS, PREC);
      gauss_both (g.mu, g.s, g.mr, g.t, od, om);
      kl = gq_int (&g, 0, 0, 1e-11);
      e2 = gq_int (&g, 2, 0, 1e-11);
      e3 = gq_int (&g, 4, 0, 1e-11);
      TU_ASSERT_REL (od[RLREF_KL_G_KL], kl, 1e-9);
      TU_ASSERT_REL (e3, kl, 1e-9);
      TU_ASSERT_REL (od[RLREF_KL_G_E_K2], e2, 1e-9);
      TU_ASSERT_REL (od[RLREF_KL_G_VAR_K1], gq_int (&g, 1, kl, 1e-11), 1e-9);
      TU_ASSERT_REL (od[RLREF_KL_G_VAR_K2], gq_int (&g, 3, e2, 1e-11), 1e-9);
      /* the first case's (k3 - E)^2 has a heavy tail, e^{-0.058 z^2/2}:
       * GSL reaches 1e-6 */
      TU_ASSERT_REL (od[RLREF_KL_G_VAR_K3], gq_int (&g, 5, e3, c == 0 ? 1e-7 : 1e-11),
                     c == 0 ? 1e-6 : 1e-9);
      for (int j = 0; j < RLREF_KL_NGAUSS; j++)
        TU_ASSERT_REL (od[j], mpfr_get_d (om + j, MPFR_RNDN), 64 * DBL_EPSILON);
      tu_mp_vec_free (om, RLREF_KL_NGAUSS);
    }
  {
    double od[RLREF_KL_NGAUSS];
    mpfr_ptr om = tu_mp_vec_new (RLREF_KL_NGAUSS, PREC);
    gauss_both (0, 1, 0, 1.5, od, om);
    ck_assert (isinf (od[RLREF_KL_G_VAR_K3]) && mpfr_inf_p (om + RLREF_KL_G_VAR_K3));
    ck_assert (isfinite (od[RLREF_KL_G_VAR_K1]) && isfinite (od[RLREF_KL_G_VAR_K2]));
    gauss_both (0, 1, 1e-8, 1, od, om);
    for (int j = 0; j < RLREF_KL_NGAUSS; j++)
      TU_ASSERT_REL (od[j], mpfr_get_d (om + j, MPFR_RNDN), 16 * DBL_EPSILON);
    TU_ASSERT_REL (od[RLREF_KL_G_KL], 0.5e-16, 16 * DBL_EPSILON);
    tu_mp_vec_free (om, RLREF_KL_NGAUSS);
  }
}
END_TEST

/* In binary64 every output is the MPFR program at HIGH bits rounded once:
 * Gaussians 2^-487 apart (Var k2 ~ mu_ref^4/2 underflows, its ratio
 * sqrt(Var k2)/KL is sqrt 2; the moment formulas in binary64 gave 0), a
 * reference 1e4 times wider, Gaussians 1e-8 apart, and a divergent Var k3
 * (+inf, with its ratio). */
START_TEST (test_gauss_rounded_once)
{
  static const double gs[][4] = {
    { 0, 1, 0x1.5798ee2308c3ap-487, 1 }, { 0, 1, 0, 1e4 }, { 0, 1, 1e-8, 1 },
    { 0.3, 0.8, -0.2, 1.1 }, { 0, 1, 0.5, 2 },
  };
  for (size_t c = 0; c < sizeof gs / sizeof gs[0]; c++)
    {
      mpfr_ptr x = tu_mp_vec_from_d (gs[c], 4, HIGH), om = tu_mp_vec_new (RLREF_KL_NGAUSS, HIGH);
      double od[RLREF_KL_NGAUSS];
      mpfr_prec_t old = rlref_mp_prec ();
      rlref_mp_set_prec (HIGH);
      TU_OK (rlref_kl_gauss_mp (om, x, x + 1, x + 2, x + 3));
      rlref_mp_set_prec (old);
      TU_OK (rlref_kl_gauss_d (od, gs[c], gs[c] + 1, gs[c] + 2, gs[c] + 3));
      for (int j = 0; j < RLREF_KL_NGAUSS; j++)
        TU_ASSERT_SAME (od[j], mpfr_get_d (om + j, MPFR_RNDN));
      tu_mp_vec_free (x, 4);
      tu_mp_vec_free (om, RLREF_KL_NGAUSS);
    }
  {
    static const double mu = 0, s = 1, mr = 0x1.5798ee2308c3ap-487, t = 1;
    double od[RLREF_KL_NGAUSS];
    TU_OK (rlref_kl_gauss_d (od, &mu, &s, &mr, &t));
    TU_ASSERT_SAME (od[RLREF_KL_G_STD_K2_REL], sqrt (2.0));
    ck_assert (od[RLREF_KL_G_VAR_K2] == 0);
  }
}
END_TEST

/* The seeded Monte-Carlo run: the same draws in both backends (binary64
 * within 1e-12 of MPFR), the same bits on a second run, and the sample
 * means of k1 and k3 within 5 standard errors of the exact KL, k2's of its
 * exact E[k2], the standard deviations within 5% of the exact ones. */
START_TEST (test_gauss_mc)
{
  double mu = 0, s = 1, mr = 1, t = 1, od[RLREF_KL_NMC], od2[RLREF_KL_NMC], ex[RLREF_KL_NGAUSS];
  const long n = 20000;
  mpfr_t a, b, c, d;
  mpfr_ptr om = tu_mp_vec_new (RLREF_KL_NMC, PREC);
  mpfr_inits2 (PREC, a, b, c, d, (mpfr_ptr) 0);
  mpfr_set_d (a, mu, MPFR_RNDN);
  mpfr_set_d (b, s, MPFR_RNDN);
  mpfr_set_d (c, mr, MPFR_RNDN);
  mpfr_set_d (d, t, MPFR_RNDN);
  TU_OK (rlref_kl_gauss_mc_d (od, &mu, &s, &mr, &t, n, 7));
  TU_OK (rlref_kl_gauss_mc_d (od2, &mu, &s, &mr, &t, n, 7));
  TU_OK (rlref_kl_gauss_mc_mp (om, a, b, c, d, n, 7));
  TU_OK (rlref_kl_gauss_d (ex, &mu, &s, &mr, &t));
  for (int j = 0; j < RLREF_KL_NMC; j++)
    {
      TU_ASSERT_SAME (od[j], od2[j]);
      TU_ASSERT_REL (od[j], mpfr_get_d (om + j, MPFR_RNDN), 1e-12);
    }
  {
    double mean[3] = { ex[RLREF_KL_G_KL], ex[RLREF_KL_G_E_K2], ex[RLREF_KL_G_KL] };
    double var[3] = { ex[RLREF_KL_G_VAR_K1], ex[RLREF_KL_G_VAR_K2], ex[RLREF_KL_G_VAR_K3] };
    for (int j = 0; j < 3; j++)
      {
        double se = sqrt (var[j] / (double) n);
        ck_assert_msg (fabs (od[RLREF_KL_MC_MEAN_K1 + j] - mean[j]) < 5 * se, "k%d: mean %g, "
                       "exact %g, se %g", j + 1, od[RLREF_KL_MC_MEAN_K1 + j], mean[j], se);
        TU_ASSERT_REL (od[RLREF_KL_MC_STD_K1 + j], sqrt (var[j]), 0.05);
      }
  }
  {
    double o3[RLREF_KL_NMC];
    TU_OK (rlref_kl_gauss_mc_d (o3, &mu, &s, &mr, &t, n, 8));
    ck_assert (o3[RLREF_KL_MC_MEAN_K1] != od[RLREF_KL_MC_MEAN_K1]);
  }
  mpfr_clears (a, b, c, d, (mpfr_ptr) 0);
  tu_mp_vec_free (om, RLREF_KL_NMC);
}
END_TEST

/* A policy far narrower than the reference (s = 2^-454, t = 1, mu_r =
 * 0.1): KL = 454 log 2 - 1/2 + 0.005 = 314.19 and k1's relative bias
 * -2.09e-5 of the run; formed as the mean of c1 z + c2 (z^2 - 1), not mean
 * - KL (which cancelled 3.4e-12 of it away in binary64), k3's likewise;
 * and k1's and k3's spread where c0 is large.  Against MPFR. */
START_TEST (test_gauss_mc_narrow)
{
  double mu = 0, s = 0x1p-454, mr = 0x1.999999999999ap-4, t = 1, od[RLREF_KL_NMC];
  mpfr_t a, b, c, d;
  mpfr_ptr om = tu_mp_vec_new (RLREF_KL_NMC, PREC);
  mpfr_inits2 (PREC, a, b, c, d, (mpfr_ptr) 0);
  mpfr_set_d (a, mu, MPFR_RNDN);
  mpfr_set_d (b, s, MPFR_RNDN);
  mpfr_set_d (c, mr, MPFR_RNDN);
  mpfr_set_d (d, t, MPFR_RNDN);
  TU_OK (rlref_kl_gauss_mc_d (od, &mu, &s, &mr, &t, 10000, 1));
  TU_OK (rlref_kl_gauss_mc_mp (om, a, b, c, d, 10000, 1));
  TU_ASSERT_REL (od[RLREF_KL_MC_BIAS_K1_REL], mpfr_get_d (om + RLREF_KL_MC_BIAS_K1_REL,
                                                           MPFR_RNDN), 16 * DBL_EPSILON);
  ck_assert (od[RLREF_KL_MC_BIAS_K1_REL] < -2e-5 && od[RLREF_KL_MC_BIAS_K1_REL] > -2.2e-5);
  TU_ASSERT_REL (od[RLREF_KL_MC_BIAS_K3_REL], mpfr_get_d (om + RLREF_KL_MC_BIAS_K3_REL,
                                                           MPFR_RNDN), 16 * DBL_EPSILON);
  /* mu_r = 1.6 2^183: D = 2^366 dwarfs c1 z = 1.6 2^183 z, the spread of
   * k1 (binary64 gave std 0 for 1.97e55), and k2's spread KL |u| (std 0
   * for 3.8e165, its squares beyond the binary64 range) */
  mr = 0x1.999999999999ap+183;
  s = 1;
  mpfr_set_d (b, s, MPFR_RNDN);
  mpfr_set_d (c, mr, MPFR_RNDN);
  TU_OK (rlref_kl_gauss_mc_d (od, &mu, &s, &mr, &t, 10000, 1));
  TU_OK (rlref_kl_gauss_mc_mp (om, a, b, c, d, 10000, 1));
  for (int j = 0; j < 3; j++)
    TU_ASSERT_REL (od[RLREF_KL_MC_STD_K1 + j], mpfr_get_d (om + RLREF_KL_MC_STD_K1 + j,
                                                            MPFR_RNDN), 16 * DBL_EPSILON);
  /* mu_r = 1e-107: k3 - KL near 1e-214, whose squares underflow unscaled
   * (binary64 gave std_k3 0 for 2e-215) */
  mr = 1e-107;
  mpfr_set_d (c, mr, MPFR_RNDN);
  TU_OK (rlref_kl_gauss_mc_d (od, &mu, &s, &mr, &t, 10000, 1));
  TU_OK (rlref_kl_gauss_mc_mp (om, a, b, c, d, 10000, 1));
  for (int j = 0; j < 3; j++)
    TU_ASSERT_REL (od[RLREF_KL_MC_STD_K1 + j], mpfr_get_d (om + RLREF_KL_MC_STD_K1 + j,
                                                            MPFR_RNDN), 16 * DBL_EPSILON);
  mpfr_clears (a, b, c, d, (mpfr_ptr) 0);
  tu_mp_vec_free (om, RLREF_KL_NMC);
}
END_TEST

/* ===== KL-GRAD ==================================================================== */

/* Seed 000 section 12.1 on a softmax of four outcomes: k1's expected
 * gradient is 0, k2's, k1's in the reward, TRL's bias-corrected k3's and
 * the straight-through ones are grad KL(q || q_ref), k3's is grad
 * KL(q_ref || q) = q - q_ref; grad KL against central differences of KL. */
START_TEST (test_grad_identities)
{
  static const double th[4] = { 0.3, -1.2, 0.7, 0 }, tr[4] = { 0, 0.5, -0.4, 0.2 };
  static const struct { const char *f, *name; rlref_kl_grad_mode mode; int target; } cs[] = {
    { "KL-K1", "plain", RLREF_KL_AS_LOSS, 0 }, { "KL-K2", "plain", RLREF_KL_AS_LOSS, 1 },
    { "KL-K3", "stable", RLREF_KL_AS_LOSS, 2 }, { "KL-K1", "plain", RLREF_KL_AS_REWARD, 1 },
    { "KL-K3", "stable", RLREF_KL_AS_RATIO_LOSS, 1 },
    { "KL-K1", "straight-through", RLREF_KL_AS_LOSS, 1 },
    { "KL-K3", "straight-through", RLREF_KL_AS_LOSS, 1 },
  };
  mpfr_ptr x = tu_mp_vec_from_d (th, 4, PREC), r = tu_mp_vec_from_d (tr, 4, PREC);
  mpfr_ptr g = tu_mp_vec_new (4, PREC), gk = tu_mp_vec_new (4, PREC), gr = tu_mp_vec_new (4, PREC);
  mpfr_t v, kl, klr;
  mpfr_inits2 (PREC, v, kl, klr, (mpfr_ptr) 0);
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
    {
      double gd[4], gkd[4], grd[4], vd, kld, klrd;
      TU_OK (rlref_kl_grad_softmax_mp (v, g, kl, gk, klr, gr, x, r, 4, conv (cs[c].f, cs[c].name),
                                       cs[c].mode));
      TU_OK (rlref_kl_grad_softmax_d (&vd, gd, &kld, gkd, &klrd, grd, th, tr, 4,
                                      conv (cs[c].f, cs[c].name), cs[c].mode));
      for (int j = 0; j < 4; j++)
        {
          if (cs[c].target == 0)
            {
              ck_assert_msg (fabs (mpfr_get_d (g + j, MPFR_RNDN)) < 1e-70, "k1 grad %s",
                             tu_mp_str (g + j));
              ck_assert_msg (fabs (gd[j]) < 1e-16, "k1 grad (binary64) %g", gd[j]);
            }
          else
            {
              mpfr_srcptr want = cs[c].target == 1 ? gk + j : gr + j;
              TU_ASSERT_MP_AGREE (g + j, want, 60);
              TU_ASSERT_REL (gd[j], cs[c].target == 1 ? gkd[j] : grd[j], TU_TOL2);
            }
        }
    }
  /* grad KL(q_ref || q) = q - q_ref */
  {
    double q[4], qr[4];
    TU_OK (rlref_softmax_d (q, th, 4));
    TU_OK (rlref_softmax_d (qr, tr, 4));
    for (int j = 0; j < 4; j++)
      TU_ASSERT_ABS (mpfr_get_d (gr + j, MPFR_RNDN), q[j] - qr[j], 1e-16);
  }
  mpfr_clears (v, kl, klr, (mpfr_ptr) 0);
  tu_mp_vec_free (x, 4);
  tu_mp_vec_free (r, 4);
  tu_mp_vec_free (g, 4);
  tu_mp_vec_free (gk, 4);
  tu_mp_vec_free (gr, 4);
}
END_TEST

/* In binary64 every output is the MPFR program rounded once, against MPFR
 * at HIGH bits: softmax probabilities that underflow in binary64 (a logit
 * gap near 745), where the terms q k3(l) of KL(q || q_ref) and q_ref k3(-l)
 * of KL(q_ref || q) are the other distribution's weight, not 0, and a
 * gradient q_j (w_j - E_q[w]) with q_j near 1; abs where the sign of l_2
 * (-2.9e-19, 2^-62 of the partition sum) is decided by a cancellation
 * across swapped argmaxes (binary64's exponentials gave grad_0 half its
 * value); verl's clamped k3 beside a reference logit of 1e4. */
START_TEST (test_grad_rounded_once)
{
  static const struct { double th[4], tr[4]; size_t K; const char *f, *name; } cs[] = {
    { { 4, -4, 0 }, { -0x1.0000000000001p+2, 4, 0 }, 3, "KL-VARIANTS", "abs" },
    { { 4, -4, 0 }, { 1e4, 4, 0 }, 3, "KL-K3", "verl-low-var-kl" },
    { { 0.3, -1.2, 0.7, 746 }, { 0, 0.5, -0.4, 0.2 }, 4, "KL-K2", "plain" },
    { { 4, -745, 0 }, { -4, 4, 0 }, 3, "KL-K1", "plain" },
    { { 4, -4, 0 }, { 1e4, 4, 0 }, 3, "KL-K3", "stable" },
    { { 0.3, -1.2, 179.2 }, { 0.3, -1.2, 0.7 }, 3, "KL-K2", "plain" },
  };
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
    {
      size_t K = cs[c].K;
      mpfr_ptr x = tu_mp_vec_from_d (cs[c].th, K, HIGH), r = tu_mp_vec_from_d (cs[c].tr, K, HIGH);
      mpfr_ptr g = tu_mp_vec_new (K, HIGH), gk = tu_mp_vec_new (K, HIGH);
      mpfr_ptr gr = tu_mp_vec_new (K, HIGH);
      double gd[4], gkd[4], grd[4], vd, kld, klrd;
      mpfr_t v, kl, klr;
      mpfr_inits2 (HIGH, v, kl, klr, (mpfr_ptr) 0);
      mpfr_prec_t old = rlref_mp_prec ();
      rlref_mp_set_prec (HIGH);
      TU_OK (rlref_kl_grad_softmax_mp (v, g, kl, gk, klr, gr, x, r, K,
                                       conv (cs[c].f, cs[c].name), RLREF_KL_AS_LOSS));
      rlref_mp_set_prec (old);
      TU_OK (rlref_kl_grad_softmax_d (&vd, gd, &kld, gkd, &klrd, grd, cs[c].th, cs[c].tr, K,
                                      conv (cs[c].f, cs[c].name), RLREF_KL_AS_LOSS));
      TU_ASSERT_SAME (vd, mpfr_get_d (v, MPFR_RNDN));
      TU_ASSERT_SAME (kld, mpfr_get_d (kl, MPFR_RNDN));
      TU_ASSERT_SAME (klrd, mpfr_get_d (klr, MPFR_RNDN));
      for (size_t j = 0; j < K; j++)
        {
          TU_ASSERT_SAME (gd[j], mpfr_get_d (g + j, MPFR_RNDN));
          TU_ASSERT_SAME (gkd[j], mpfr_get_d (gk + j, MPFR_RNDN));
          TU_ASSERT_SAME (grd[j], mpfr_get_d (gr + j, MPFR_RNDN));
        }
      mpfr_clears (v, kl, klr, (mpfr_ptr) 0);
      tu_mp_vec_free (x, K);
      tu_mp_vec_free (r, K);
      tu_mp_vec_free (g, K);
      tu_mp_vec_free (gk, K);
      tu_mp_vec_free (gr, K);
    }
}
END_TEST

/* Log-ratios l = log q - log q_ref formed from the raw logit differences,
 * not from lq - lr, whose log-sum-exps round away what the outputs need:
 *   abs, x = (-4, -512, 0), x_ref = (-4, -2^792, 0): l_0 = l_2 = -log(S/S_r)
 *     = -4.3e-223 < 0, so sign l = (-1, 1, -1) and grad_1 = 2 q_1 (1 - q_1)
 *     (binary64 gave l_0 = l_2 = 0 and q_1);
 *   k1, x = (2^-520, 0), x_ref = (0, 2^-956): E_q[k1] = KL(q || q_ref) =
 *     e^2/8 (1 + O(e)), e = 2^-520, in both backends (MPFR at 256 bits
 *     gave e^2/4 as sum q l, the second order of l below its precision);
 *   k2, x = (2^-448, 0), x_ref = (0, 2^-1022): E_q[l^2/2] = e^2/8, e = 2^-448;
 *   k1, x = (4, -2^578, 0), x_ref = (-4, 2^666, 0): q_1 = 0, l_0 - l_2 = 8,
 *     grad KL_0 = -grad KL_2 = 8 q_0 q_2;
 *   k1 in the reward, x = (4, -4, -2^914), x_ref = (-4, -2^-670, 2^287):
 *     l_0 - l_1 = 12 - 2^-670, grad_0 = 12 q_0 q_1;
 *   k1-straight-through near q = q_ref: its value against MPFR. */
START_TEST (test_grad_log_ratio)
{
  const rlref_kl_convention *k1 = conv ("KL-K1", "plain"), *k2 = conv ("KL-K2", "plain");
  double g[3], gk[3], gr[3], v, kl, klr, q[3], e;
  {
    static const double x[3] = { -4, -512, 0 }, r[3] = { -4, -0x1p+792, 0 };
    TU_OK (rlref_kl_grad_softmax_d (&v, g, &kl, gk, &klr, gr, x, r, 3,
                                    conv ("KL-VARIANTS", "abs"), RLREF_KL_AS_LOSS));
    mpfr_ptr xm = tu_mp_vec_from_d (x, 3, PREC), qm = tu_mp_vec_new (3, PREC);
    TU_OK (rlref_softmax_mp (qm, xm, 3));
    q[1] = mpfr_get_d (qm + 1, MPFR_RNDN);
    /* q_1 = e^(-512 - lse) is within 512 eps (the exponent's rounding) */
    TU_ASSERT_REL (g[1], 2 * q[1] * (1 - q[1]), 1024 * DBL_EPSILON);
    TU_ASSERT_REL (klr, q[1], 1024 * DBL_EPSILON);
    tu_mp_vec_free (xm, 3);
    tu_mp_vec_free (qm, 3);
  }
  {
    static const double x[2] = { 0x1p-520, 0 }, r[2] = { 0, 0x1p-956 };
    mpfr_ptr xm = tu_mp_vec_from_d (x, 2, PREC), rm = tu_mp_vec_from_d (r, 2, PREC);
    mpfr_t vm, klm, klrm;
    mpfr_inits2 (PREC, vm, klm, klrm, (mpfr_ptr) 0);
    TU_OK (rlref_kl_grad_softmax_d (&v, g, &kl, gk, &klr, gr, x, r, 2, k1, RLREF_KL_AS_LOSS));
    TU_ASSERT_ABS (v, 0x1p-1043, 1e-320);
    TU_ASSERT_ABS (kl, 0x1p-1043, 1e-320);
    TU_ASSERT_REL (gk[0], 0x1p-522, 8 * DBL_EPSILON);
    TU_ASSERT_REL (gr[0], 0x1p-522, 8 * DBL_EPSILON);
    TU_OK (rlref_kl_grad_softmax_mp (vm, NULL, klm, NULL, klrm, NULL, xm, rm, 2, k1,
                                     RLREF_KL_AS_LOSS));
    TU_ASSERT_REL (mpfr_get_d (vm, MPFR_RNDN), 0x1p-1043, 1e-100);
    mpfr_clears (vm, klm, klrm, (mpfr_ptr) 0);
    tu_mp_vec_free (xm, 2);
    tu_mp_vec_free (rm, 2);
  }
  {
    static const double x[2] = { 0x1p-448, 0 }, r[2] = { 0, 0x1p-1022 };
    TU_OK (rlref_kl_grad_softmax_d (&v, g, &kl, gk, &klr, gr, x, r, 2, k2, RLREF_KL_AS_LOSS));
    TU_ASSERT_REL (v, 0x1p-899, 8 * DBL_EPSILON);
    TU_ASSERT_REL (kl, 0x1p-899, 8 * DBL_EPSILON);
  }
  {
    static const double x[3] = { 4, -0x1p+578, 0 }, r[3] = { -4, 0x1p+666, 0 };
    TU_OK (rlref_kl_grad_softmax_d (&v, g, &kl, gk, &klr, gr, x, r, 3, k1, RLREF_KL_AS_LOSS));
    TU_OK (rlref_softmax_d (q, x, 3));
    e = 8 * q[0] * q[2];
    TU_ASSERT_REL (gk[0], e, 8 * DBL_EPSILON);
    TU_ASSERT_REL (gk[2], -e, 8 * DBL_EPSILON);
  }
  {
    static const double x[3] = { 4, -4, -0x1p+914 }, r[3] = { -4, -0x1p-670, 0x1p+287 };
    TU_OK (rlref_kl_grad_softmax_d (&v, g, &kl, gk, &klr, gr, x, r, 3, k1, RLREF_KL_AS_REWARD));
    TU_OK (rlref_softmax_d (q, x, 3));
    TU_ASSERT_REL (g[0], 12 * q[0] * q[1], 8 * DBL_EPSILON);
  }
  {
    static const double x[3] = { 0x1.333333333333dp-2, -0x1.3333333333333p+0, 0x1.6666666665p-1 };
    static const double r[3] = { 0x1.3333333333333p-2, -0x1.3333333333333p+0,
                                 0x1.6666666666666p-1 };
    mpfr_ptr xm = tu_mp_vec_from_d (x, 3, PREC), rm = tu_mp_vec_from_d (r, 3, PREC);
    mpfr_t vm, klm, klrm;
    mpfr_inits2 (PREC, vm, klm, klrm, (mpfr_ptr) 0);
    TU_OK (rlref_kl_grad_softmax_d (&v, g, &kl, gk, &klr, gr, x, r, 3,
                                    conv ("KL-K1", "straight-through"), RLREF_KL_AS_LOSS));
    TU_OK (rlref_kl_grad_softmax_mp (vm, NULL, klm, NULL, klrm, NULL, xm, rm, 3,
                                     conv ("KL-K1", "straight-through"), RLREF_KL_AS_LOSS));
    TU_ASSERT_REL (v, mpfr_get_d (vm, MPFR_RNDN), 16 * DBL_EPSILON);
    mpfr_clears (vm, klm, klrm, (mpfr_ptr) 0);
    tu_mp_vec_free (xm, 3);
    tu_mp_vec_free (rm, 3);
  }
}
END_TEST

struct softmax_ctx
{
  mpfr_ptr x, r;
  int reverse;
};

static void
softmax_kl (mpfr_ptr out, void *vctx)
{
  struct softmax_ctx *c = vctx;
  mpfr_t v, o;
  mpfr_inits2 (PREC, v, o, (mpfr_ptr) 0);
  TU_OK (rlref_kl_grad_softmax_mp (v, NULL, c->reverse ? o : out, NULL, c->reverse ? out : o,
                                   NULL, c->x, c->r, 4, conv ("KL-K1", "plain"),
                                   RLREF_KL_AS_LOSS));
  mpfr_clears (v, o, (mpfr_ptr) 0);
}

/* The softmax against lm_objective on a tabular model with T = 1 (one row
 * of V logits: its outcomes are the V tokens): the values and gradients of
 * k1, k2, k3 as losses, of KL(q || q_ref) and KL(q_ref || q), to 60
 * digits; and the true gradients against central differences. */
START_TEST (test_grad_against_lm)
{
  static const double th[4] = { 0.3, -1.2, 0.7, 0 }, tr[4] = { 0, 0.5, -0.4, 0.2 };
  static const struct { const char *name; int obj; } cs[3] = {
    { "plain", RLREF_LM_OBJ_K1 }, { "plain", RLREF_LM_OBJ_K2 }, { "stable", RLREF_LM_OBJ_K3 } };
  rlref_lm lm = { .V = 4, .eos = 3, .T = 1, .kind = RLREF_LM_TABULAR,
                  .truncation = RLREF_LM_KEEP, .n_rows = 1, .reward = RLREF_REWARD_NONE };
  struct softmax_ctx sc = { tu_mp_vec_from_d (th, 4, PREC), tu_mp_vec_from_d (tr, 4, PREC), 0 };
  mpfr_ptr g = tu_mp_vec_new (4, PREC), gk = tu_mp_vec_new (4, PREC), gr = tu_mp_vec_new (4, PREC);
  mpfr_ptr lg = tu_mp_vec_new (4, PREC);
  mpfr_t v, kl, klr, lv, beta;
  mpfr_inits2 (PREC, v, kl, klr, lv, beta, (mpfr_ptr) 0);
  mpfr_set_ui (beta, 1, MPFR_RNDN);
  for (int c = 0; c < 3; c++)
    {
      const char *f = c == 0 ? "KL-K1" : c == 1 ? "KL-K2" : "KL-K3";
      TU_OK (rlref_kl_grad_softmax_mp (v, g, kl, gk, klr, gr, sc.x, sc.r, 4,
                                       conv (f, cs[c].name), RLREF_KL_AS_LOSS));
      TU_OK (rlref_lm_objective_mp (lv, lg, &lm, sc.x, sc.r, NULL, beta, cs[c].obj));
      TU_ASSERT_MP_AGREE (v, lv, 60);
      for (int j = 0; j < 4; j++)
        if (c == 0)
          ck_assert (fabs (mpfr_get_d (lg + j, MPFR_RNDN)) < 1e-70
                     && fabs (mpfr_get_d (g + j, MPFR_RNDN)) < 1e-70);
        else
          TU_ASSERT_MP_AGREE (g + j, lg + j, 60);
    }
  TU_OK (rlref_lm_objective_mp (lv, lg, &lm, sc.x, sc.r, NULL, beta, RLREF_LM_OBJ_KL));
  TU_ASSERT_MP_AGREE (kl, lv, 60);
  for (int j = 0; j < 4; j++)
    TU_ASSERT_MP_AGREE (gk + j, lg + j, 60);
  TU_OK (rlref_lm_objective_mp (lv, lg, &lm, sc.x, sc.r, NULL, beta, RLREF_LM_OBJ_KL_REVERSE));
  TU_ASSERT_MP_AGREE (klr, lv, 60);
  for (int j = 0; j < 4; j++)
    {
      TU_ASSERT_MP_AGREE (gr + j, lg + j, 60);
      sc.reverse = 0;
      assert_fd (gk + j, sc.x + j, softmax_kl, &sc, "grad KL(q || q_ref)");
      sc.reverse = 1;
      assert_fd (gr + j, sc.x + j, softmax_kl, &sc, "grad KL(q_ref || q)");
    }
  mpfr_clears (v, kl, klr, lv, beta, (mpfr_ptr) 0);
  tu_mp_vec_free (sc.x, 4);
  tu_mp_vec_free (sc.r, 4);
  tu_mp_vec_free (g, 4);
  tu_mp_vec_free (gk, 4);
  tu_mp_vec_free (gr, 4);
  tu_mp_vec_free (lg, 4);
}
END_TEST

/* ===== bad input =================================================================== */

/* What the golden cases do not pin: the range errors and the float32
 * clamps, the normalisation tolerance's edge, NaNs, the Monte-Carlo
 * bound, conventions and models outside the registry.  A distribution off
 * 1, p_ref = 0 where p > 0, a negative p, two identical Gaussians, sigma =
 * 0 and one Monte-Carlo draw are golden cases: the generic test or the
 * goldens' statuses fail when their checks go. */
START_TEST (test_bad_inputs)
{
  double k[2], g[2], lp[2] = { -1, NAN }, rf[2] = { 0, 0 }, out[RLREF_KL_NGAUSS];
  double mo[RLREF_KL_NMC], ex[RLREF_KL_NEXACT];
  const rlref_kl_convention *plain = conv ("KL-K1", "plain");
  TU_ASSERT_STATUS (rlref_kl_estimate_d (k, g, lp, rf, 2, plain), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_kl_estimate_d (k, g, lp, rf, 0, plain), RLREF_EINVAL);
  lp[1] = -100;
  TU_ASSERT_STATUS (rlref_kl_estimate_d (k, g, lp, rf, 2, conv ("KL-K3", "trl-float32")),
                    RLREF_ERANGE);
  TU_ASSERT_STATUS (rlref_kl_estimate_d (k, g, lp, rf, 2, conv ("KL-K3", "openrlhf")),
                    RLREF_ERANGE);
  TU_OK (rlref_kl_estimate_d (k, g, lp, rf, 2, conv ("KL-K3", "verl-low-var-kl")));
  TU_ASSERT_SAME (k[1], 10.0);
  lp[1] = -3e38;
  TU_ASSERT_STATUS (rlref_kl_estimate_d (k, g, lp, rf, 2, conv ("KL-K2", "openrlhf")),
                    RLREF_ERANGE);
  lp[1] = 1e39;                 /* +inf in binary32: OpenRLHF's clamp holds 10 */
  TU_OK (rlref_kl_estimate_d (k, g, lp, rf, 2, conv ("KL-K1", "openrlhf")));
  TU_ASSERT_SAME (k[1], 10.0);
  TU_ASSERT_STATUS (rlref_kl_estimate_d (k, g, lp, rf, 2, conv ("KL-K3", "trl-float32")),
                    RLREF_ERANGE);
  /* e^800 is beyond binary64, not beyond MPFR */
  lp[1] = -800;
  TU_ASSERT_STATUS (rlref_kl_estimate_d (k, g, lp, rf, 2, conv ("KL-K3", "stable")),
                    RLREF_ERANGE);
  ck_assert (isinf (k[1]));
  {
    mpfr_ptr x = tu_mp_vec_from_d (lp, 2, PREC), r = tu_mp_vec_from_d (rf, 2, PREC);
    mpfr_ptr y = tu_mp_vec_new (2, PREC);
    TU_OK (rlref_kl_estimate_mp (y, NULL, x, r, 2, conv ("KL-K3", "stable")));
    ck_assert (mpfr_number_p (y + 1) && mpfr_get_exp (y + 1) > 1150);
    tu_mp_vec_free (x, 2);
    tu_mp_vec_free (r, 2);
    tu_mp_vec_free (y, 2);
  }
  {
    double p[2] = { 0.5, 0.6 }, q[2] = { 0.5, 0.5 }, pok[2] = { 0.5, 0.5000005 };
    TU_OK (rlref_kl_exact_d (ex, pok, q, 2));
    p[0] = NAN;
    TU_ASSERT_STATUS (rlref_kl_exact_d (ex, p, q, 2), RLREF_ENAN);
  }
  {
    double mu = 0, s = 1, mr = 0, t = 1, nan = NAN;
    TU_ASSERT_STATUS (rlref_kl_gauss_d (out, &nan, &s, &mr, &t), RLREF_ENAN);
    mr = 1;
    TU_ASSERT_STATUS (rlref_kl_gauss_mc_d (mo, &mu, &s, &mr, &t, RLREF_KL_MC_MAX + 1, 1),
                      RLREF_EDOM);
  }
  {
    double th[2] = { 0, 0 }, v, kl, klr;
    TU_ASSERT_STATUS (rlref_kl_grad_softmax_d (&v, NULL, &kl, NULL, &klr, NULL, th, th, 2,
                                               conv ("KL-K3", "openrlhf"), RLREF_KL_AS_LOSS),
                      RLREF_EINVAL);
    TU_ASSERT_STATUS (rlref_kl_grad_softmax_d (&v, NULL, &kl, NULL, &klr, NULL, th, th, 0,
                                               plain, RLREF_KL_AS_LOSS), RLREF_EINVAL);
  }
  {
    rlref_lm lm = { .V = 3, .eos = 2, .T = 3, .kind = RLREF_LM_TABULAR,
                    .truncation = RLREF_LM_CONDITION, .n_rows = 7,
                    .reward = RLREF_REWARD_NONE };
    TU_ASSERT_STATUS (rlref_kl_exact_lm_d (ex, &lm, a3, a3_ref, 1), RLREF_EINVAL);
  }
}
END_TEST

/* KL-K3 naive: the emulated binary64 program's exp is correctly rounded
 * in both backends.  At l = -2^-53, e^-l = 1 + 2^-53 + 2^-107 + ... rounds
 * up to 1 + 2^-52, so exp(-l) - 1 + l = 2^-53 (glibc's exp gives 1 there,
 * and the binary64 backend gave -2^-53 before). */
START_TEST (test_naive_near_tie)
{
  double lp = 0, rp = 0x1p-53, k, kn, un, ke, ue;
  mpfr_t Lp, Rp, K, Kn, Un, Ke, Ue;
  TU_OK (rlref_kl_k3_binary64_d (&k, &kn, &un, &ke, &ue, &lp, &rp, 1));
  TU_ASSERT_SAME (kn, 0x1p-53);
  mpfr_inits2 (256, Lp, Rp, K, Kn, Un, Ke, Ue, (mpfr_ptr) 0);
  mpfr_set_d (Lp, lp, MPFR_RNDN);
  mpfr_set_d (Rp, rp, MPFR_RNDN);
  TU_OK (rlref_kl_k3_binary64_mp (K, Kn, Un, Ke, Ue, Lp, Rp, 1));
  TU_ASSERT_SAME (mpfr_get_d (Kn, MPFR_RNDN), kn);
  TU_ASSERT_SAME (mpfr_get_d (Ke, MPFR_RNDN), ke);
  mpfr_clears (Lp, Rp, K, Kn, Un, Ke, Ue, (mpfr_ptr) 0);
}
END_TEST

/* The KL-GRAD table: softmax rows name a per-token convention of
 * rlref_kl_conventions (by catalogue id and name), tiny-LM rows an
 * RLREF_LM_OBJ_K1, K2 or K3 objective; names distinct. */
START_TEST (test_grad_conventions_table)
{
  size_t lm = 0;
  ck_assert_uint_eq (rlref_kl_grad_num_conventions, 12);
  for (size_t i = 0; i < rlref_kl_grad_num_conventions; i++)
    {
      const rlref_kl_grad_convention *c = &rlref_kl_grad_conventions[i];
      ck_assert (c->rule && *c->rule && c->used_by && *c->used_by);
      for (size_t j = 0; j < i; j++)
        ck_assert_str_ne (rlref_kl_grad_conventions[j].name, c->name);
      if (c->lm)
        {
          lm++;
          ck_assert (c->lm_objective == RLREF_LM_OBJ_K1 || c->lm_objective == RLREF_LM_OBJ_K2
                     || c->lm_objective == RLREF_LM_OBJ_K3);
        }
      else
        ck_assert_msg (rlref_kl_convention_find (c->estimator_formula, c->estimator) != NULL,
                       "%s: %s %s", c->name, c->estimator_formula, c->estimator);
    }
  ck_assert_uint_eq (lm, 3);
}
END_TEST

static Suite *
kl_suite (void)
{
  Suite *s = suite_create ("kl");
  TCase *tc = tu_tcase ("estimators");
  tcase_add_test (tc, test_k3_values);
  tcase_add_test (tc, test_k3_naive_loses);
  tcase_add_test (tc, test_k3_binary64);
  tcase_add_test (tc, test_k3_binary64_counts);
  tcase_add_test (tc, test_conventions_detector);
  tcase_add_test (tc, test_grad_conventions_table);
  tcase_add_test (tc, test_float32_conventions);
  tcase_add_test (tc, test_float32_infinite);
  tcase_add_test (tc, test_straight_through_and_axes);
  tcase_add_test (tc, test_clamp_bounds);
  tcase_add_test (tc, test_gradients_fd);
  tcase_add_test (tc, test_full);
  suite_add_tcase (s, tc);
  tc = tu_tcase ("exact");
  tcase_add_test (tc, test_exact_discrete);
  tcase_add_test (tc, test_exact_lm);
  tcase_add_test (tc, test_exact_lm_near_reference);
  tcase_add_test (tc, test_gauss_schulman);
  tcase_add_test (tc, test_gauss_general);
  tcase_add_test (tc, test_gauss_rounded_once);
  tcase_add_test (tc, test_gauss_small_ratio);
  tcase_add_test (tc, test_gauss_mc);
  tcase_add_test (tc, test_gauss_mc_narrow);
  suite_add_tcase (s, tc);
  tc = tu_tcase ("gradients");
  tcase_add_test (tc, test_grad_identities);
  tcase_add_test (tc, test_grad_against_lm);
  tcase_add_test (tc, test_grad_rounded_once);
  tcase_add_test (tc, test_grad_log_ratio);
  suite_add_tcase (s, tc);
  tc = tu_tcase ("bad input");
  tcase_add_test (tc, test_bad_inputs);
  tcase_add_test (tc, test_naive_near_tie);
  suite_add_tcase (s, tc);
  return s;
}

TU_MAIN (kl_suite)
