/* kl_12_1_estimators.c -- seed 000 section 12.1 (table 5, 13.26), checked
 * step by step at 256 bits: why k3 = u - 1 - log u is unbiased and never
 * negative (E_pi[u] = 1, E[-log u] = KL, u - 1 - log u >= 0), where its
 * unbiasedness fails (the reference's mass outside the policy's support),
 * k2's bias E[k2] - KL = -E[e^-l - 1 + l - l^2/2], the Gaussian moments
 * behind Schulman's table, and the gradients of the estimators used as a
 * loss (E[grad k1] = 0, E[grad k2] = grad KL(pi || pi_ref), E[grad k3] =
 * grad KL(pi_ref || pi)), the question the seed sets apart.
 *
 * The literal side of every step is the definition evaluated as printed,
 * at 256 bits (and at 1024 where it cancels); the library side is rlref's
 * KL functions.  Each step prints its residual and its bound; the program
 * exits 1 if a residual exceeds its bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

#define NMAX 5

typedef struct
{
  const char *name;
  size_t n;
  double p[NMAX], q[NMAX];      /* the policy and the reference */
} problem;

static const problem problems[] = {
  { "two outcomes", 2, { 0.5, 0.5 }, { 0.25, 0.75 } },
  { "five outcomes", 5, { 0.1, 0.15, 0.2, 0.25, 0.3 }, { 0.3, 0.25, 0.2, 0.15, 0.1 } },
  { "nearly equal", 3, { 0.3333, 0.3333, 0.3334 }, { 0.3334, 0.3333, 0.3333 } },
  { "FORMULAS KL-K3's counter-example", 2, { 1, 0 }, { 0.5, 0.5 } },
  { "the reference outside the support", 4, { 0.5, 0.3, 0.2, 0 }, { 0.4, 0.3, 0.2, 0.1 } },
};

static mpfr_ptr
vec_new (size_t n, mpfr_prec_t p)
{
  mpfr_ptr v = malloc ((n ? n : 1) * sizeof *v);
  for (size_t i = 0; i < n; i++)
    mpfr_init2 (v + i, p), mpfr_set_zero (v + i, 1);
  return v;
}

static void
vec_free (mpfr_ptr v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    mpfr_clear (v + i);
  free (v);
}

/* Table 5 and "why k3 is unbiased and non-negative" on one distribution:
 * with u = q/p and l = -log u over the outcomes p > 0,
 *   E_p[u] = sum_{p>0} q (1 when q has no mass outside p's support),
 *   E_p[-log u] = KL,  E[k3] = E[u - 1] + E[-log u],
 *   E[k2] - KL = -E[e^-l - 1 + l - l^2/2] + E[u - 1],
 * against kl_exact. */
static void
derivation (const problem *c)
{
  size_t n = c->n;
  mpfr_ptr p = vec_new (n, PREC), q = vec_new (n, PREC), out = vec_new (RLREF_KL_NEXACT, PREC);
  mpfr_t eu, kl, ek2, ek3, t, u, l, zero, one, outside;
  mpfr_inits2 (1024, eu, kl, ek2, ek3, t, u, l, zero, one, outside, (mpfr_ptr) 0);
  mpfr_set_zero (zero, 1);
  mpfr_set_ui (one, 1, MPFR_RNDN);
  printf ("%s: p = (", c->name);
  for (size_t i = 0; i < n; i++)
    printf ("%s%g", i ? ", " : "", c->p[i]);
  printf ("), p_ref = (");
  for (size_t i = 0; i < n; i++)
    printf ("%s%g", i ? ", " : "", c->q[i]);
  printf (")\n");
  for (size_t i = 0; i < n; i++)
    {
      mpfr_set_d (p + i, c->p[i], MPFR_RNDN);
      mpfr_set_d (q + i, c->q[i], MPFR_RNDN);
    }
  OK (rlref_kl_exact_mp (out, p, q, n));
  /* the literal sums, at 1024 bits, over pi = p/sum p and pi_ref = q/sum q
   * (both sums are 1 for these inputs up to their binary64 rounding) */
  {
    mpfr_t sp, sq, a, b;
    mpfr_inits2 (1024, sp, sq, a, b, (mpfr_ptr) 0);
    mpfr_set_zero (sp, 1);
    mpfr_set_zero (sq, 1);
    for (size_t i = 0; i < n; i++)
      {
        mpfr_add_d (sp, sp, c->p[i], MPFR_RNDN);
        mpfr_add_d (sq, sq, c->q[i], MPFR_RNDN);
      }
    mpfr_set_zero (eu, 1);
    mpfr_set_zero (kl, 1);
    mpfr_set_zero (ek2, 1);
    mpfr_set_zero (ek3, 1);
    mpfr_set_zero (outside, 1);
    for (size_t i = 0; i < n; i++)
      {
        mpfr_set_d (a, c->p[i], MPFR_RNDN);
        mpfr_div (a, a, sp, MPFR_RNDN);
        mpfr_set_d (b, c->q[i], MPFR_RNDN);
        mpfr_div (b, b, sq, MPFR_RNDN);
        if (c->p[i] == 0)
          {
            mpfr_add (outside, outside, b, MPFR_RNDN);
            continue;
          }
        mpfr_div (u, b, a, MPFR_RNDN);                  /* u = pi_ref/pi */
        mpfr_log (l, u, MPFR_RNDN);
        mpfr_neg (l, l, MPFR_RNDN);                     /* l = -log u */
        mpfr_fma (eu, a, u, eu, MPFR_RNDN);
        mpfr_fma (kl, a, l, kl, MPFR_RNDN);
        mpfr_sqr (t, l, MPFR_RNDN);
        mpfr_div_ui (t, t, 2, MPFR_RNDN);
        mpfr_fma (ek2, a, t, ek2, MPFR_RNDN);
        mpfr_sub_ui (t, u, 1, MPFR_RNDN);
        mpfr_add (t, t, l, MPFR_RNDN);                  /* u - 1 - log u */
        mpfr_fma (ek3, a, t, ek3, MPFR_RNDN);
      }
    mpfr_clears (sp, sq, a, b, (mpfr_ptr) 0);
  }
  mpfr_add (t, eu, outside, MPFR_RNDN);
  step ("E_pi[u] + (pi_ref's mass outside pi's support) = 1", t, one, 0, -250);
  mpfr_sub_ui (t, eu, 1, MPFR_RNDN);
  mpfr_add (t, t, kl, MPFR_RNDN);
  step ("E[k3] = E[u - 1] + E[-log u] = (E_pi[u] - 1) + KL", ek3, t, 1, -240);
  mpfr_neg (t, outside, MPFR_RNDN);
  mpfr_sub (u, ek3, kl, MPFR_RNDN);
  step ("E[k3] - KL = -(pi_ref's mass outside pi's support)", u, t, 0, -240);
  step ("library KL = E[k1] = sum pi log(pi/pi_ref)", out + RLREF_KL_KL, kl, 1, -240);
  step ("library E[k3]", out + RLREF_KL_E_K3, ek3, 1, -240);
  step ("library E[k3] - KL", out + RLREF_KL_BIAS_K3, t, 0, -240);
  step ("library E[k2]", out + RLREF_KL_E_K2, ek2, 1, -240);
  mpfr_sub (t, ek2, kl, MPFR_RNDN);
  step ("library E[k2] - KL = E[k3] - KL - E[e^-l - 1 + l - l^2/2]", out + RLREF_KL_BIAS_K2, t,
        1, -230);
  mpfr_clears (eu, kl, ek2, ek3, t, u, l, zero, one, outside, (mpfr_ptr) 0);
  vec_free (p, n);
  vec_free (q, n);
  vec_free (out, RLREF_KL_NEXACT);
  printf ("\n");
}

/* u - 1 - log u >= 0 for every u > 0, with equality at u = 1 only: the
 * minimum of the library's k3 over l in [-30, 30] (step 1/64) and the
 * second-order term l^2/2 near 0; and the identity k3' + k3 = l behind
 * TRL's bias-corrected gradient. */
static void
nonnegative (void)
{
  mpfr_t l, k, m, t, g, zero;
  mpfr_inits2 (PREC, l, k, m, t, g, zero, (mpfr_ptr) 0);
  mpfr_set_zero (zero, 1);
  mpfr_set_inf (m, 1);
  mpfr_set_zero (g, 1);
  printf ("k3 = u - 1 - log u = e^-l - 1 + l (13.26)\n");
  for (int i = -1920; i <= 1920; i++)
    {
      mpfr_set_si (l, i, MPFR_RNDN);
      mpfr_div_2ui (l, l, 6, MPFR_RNDN);
      OK (rlref_kl_k3_mp (k, l));
      mpfr_min (m, m, k, MPFR_RNDN);
      /* (k3' + k3) - l, k3' = 1 - e^-l */
      mpfr_neg (t, l, MPFR_RNDN);
      mpfr_expm1 (t, t, MPFR_RNDN);
      mpfr_sub (t, k, t, MPFR_RNDN);
      mpfr_sub (t, t, l, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_max (g, g, t, MPFR_RNDN);
    }
  step ("min over l in [-30, 30] of k3 = 0 (at l = 0)", m, zero, 0, -250);
  step ("k3' + k3 = l (TRL's bias correction: grad (k3 rho) = l at rho = 1)", g, zero, 0, -200);
  mpfr_set_d (l, 1e-20, MPFR_RNDN);
  OK (rlref_kl_k3_mp (k, l));
  mpfr_sqr (t, l, MPFR_RNDN);
  mpfr_div_ui (t, t, 2, MPFR_RNDN);
  step ("k3(1e-20) = l^2/2 (1 - l/3 + ...)", k, t, 1, -64);
  mpfr_clears (l, k, m, t, g, zero, (mpfr_ptr) 0);
  printf ("\n");
}

/* Schulman's table: q = N(0, 1) samples, p = N(mu, 1) the reference; l =
 * mu^2/2 - mu z is normal, so KL = mu^2/2, Var k1 = mu^2, E k2 = (KL^2 +
 * mu^2)/2, Var k2 = KL^2 mu^2 + mu^4/2, Var k3 = e^{mu^2} - 1 - mu^2
 * (e^{-l} lognormal with mean 1). */
static void
gaussians (void)
{
  static const double mus[3] = { 0.1, 1, 3 };
  printf ("two Gaussians, Schulman's q = N(0, 1), p = N(mu, 1)\n");
  for (int i = 0; i < 3; i++)
    {
      mpfr_ptr out = vec_new (RLREF_KL_NGAUSS, PREC);
      mpfr_t mu, s, m2, kl, w, zero;
      char label[96];
      mpfr_inits2 (PREC, mu, s, m2, kl, w, zero, (mpfr_ptr) 0);
      mpfr_set_zero (zero, 1);
      mpfr_set_ui (s, 1, MPFR_RNDN);
      mpfr_set_d (mu, mus[i], MPFR_RNDN);
      OK (rlref_kl_gauss_mp (out, zero, s, mu, s));
      mpfr_sqr (m2, mu, MPFR_RNDN);
      mpfr_div_ui (kl, m2, 2, MPFR_RNDN);
      snprintf (label, sizeof label, "mu = %g: KL = mu^2/2", mus[i]);
      step (label, out + RLREF_KL_G_KL, kl, 1, -240);
      snprintf (label, sizeof label, "mu = %g: Var k1 = mu^2", mus[i]);
      step (label, out + RLREF_KL_G_VAR_K1, m2, 1, -240);
      mpfr_sqr (w, kl, MPFR_RNDN);
      mpfr_add (w, w, m2, MPFR_RNDN);
      mpfr_div_ui (w, w, 2, MPFR_RNDN);
      snprintf (label, sizeof label, "mu = %g: E k2 = (KL^2 + mu^2)/2", mus[i]);
      step (label, out + RLREF_KL_G_E_K2, w, 1, -240);
      mpfr_sqr (w, kl, MPFR_RNDN);
      mpfr_mul (w, w, m2, MPFR_RNDN);
      mpfr_sqr (s, m2, MPFR_RNDN);
      mpfr_div_ui (s, s, 2, MPFR_RNDN);
      mpfr_add (w, w, s, MPFR_RNDN);
      snprintf (label, sizeof label, "mu = %g: Var k2 = KL^2 mu^2 + mu^4/2", mus[i]);
      step (label, out + RLREF_KL_G_VAR_K2, w, 1, -240);
      mpfr_expm1 (w, m2, MPFR_RNDN);
      mpfr_sub (w, w, m2, MPFR_RNDN);
      snprintf (label, sizeof label, "mu = %g: Var k3 = e^{mu^2} - 1 - mu^2", mus[i]);
      step (label, out + RLREF_KL_G_VAR_K3, w, 1, -240);
      mpfr_printf ("  mu = %g: bias/true of k2 %.4Rf; stdev/true of k1, k2, k3 %.4Rf, %.4Rf, "
                   "%.4Rf\n", mus[i], out + RLREF_KL_G_BIAS_K2_REL, out + RLREF_KL_G_STD_K1_REL,
                   out + RLREF_KL_G_STD_K2_REL, out + RLREF_KL_G_STD_K3_REL);
      mpfr_clears (mu, s, m2, kl, w, zero, (mpfr_ptr) 0);
      vec_free (out, RLREF_KL_NGAUSS);
    }
  printf ("\n");
}

/* d KL / d theta_j (reverse: d KL(q_ref || q)) by a central difference,
 * h = 2^-200, the library working at 1024 bits: truncation h^2 ~ 2^-400,
 * rounding 2^-1024/h. */
static void
central (mpfr_ptr d, mpfr_ptr theta, size_t j, mpfr_srcptr ref, size_t K, int reverse)
{
  mpfr_t save, v, kl, klr;
  rlref_mp_set_prec (1024);
  mpfr_inits2 (1024, save, v, kl, klr, (mpfr_ptr) 0);
  mpfr_set (save, theta + j, MPFR_RNDN);
  for (int s = 0; s < 2; s++)
    {
      mpfr_set (theta + j, save, MPFR_RNDN);
      if (s == 0)
        mpfr_add_d (theta + j, theta + j, 0x1p-200, MPFR_RNDN);
      else
        mpfr_sub_d (theta + j, theta + j, 0x1p-200, MPFR_RNDN);
      OK (rlref_kl_grad_softmax_mp (v, NULL, kl, NULL, klr, NULL, theta, ref, K,
                                    rlref_kl_convention_find ("KL-K1", "plain"),
                                    RLREF_KL_AS_LOSS));
      if (s == 0)
        mpfr_set (d, reverse ? klr : kl, MPFR_RNDN);
      else
        mpfr_sub (d, d, reverse ? klr : kl, MPFR_RNDN);
    }
  mpfr_mul_2si (d, d, 199, MPFR_RNDN);
  mpfr_set (theta + j, save, MPFR_RNDN);
  mpfr_clears (save, v, kl, klr, (mpfr_ptr) 0);
  rlref_mp_set_prec (PREC);
}

/* Section 12.1's last sentence: differentiating an estimator is another
 * question.  On a softmax q = softmax(theta), y ~ q held fixed:
 * E[grad k1] = E[grad log q] = 0, E[grad k2] = grad KL(q || q_ref), E[grad
 * k3] = grad KL(q_ref || q), and k1 in the reward (the policy gradient)
 * gives grad KL(q || q_ref); the true gradients by central differences. */
static void
gradients (void)
{
  static const double th[4] = { 0.3, -1.2, 0.7, 0 }, tr[4] = { 0, 0.5, -0.4, 0.2 };
  static const struct { const char *f, *name, *label; rlref_kl_grad_mode mode; int target; } cs[] = {
    { "KL-K1", "plain", "E[grad k1] = 0", RLREF_KL_AS_LOSS, 0 },
    { "KL-K2", "plain", "E[grad k2] = grad KL(q || q_ref)", RLREF_KL_AS_LOSS, 1 },
    { "KL-K3", "stable", "E[grad k3] = grad KL(q_ref || q)", RLREF_KL_AS_LOSS, 2 },
    { "KL-K1", "plain", "E[k1 grad log q] = grad KL(q || q_ref)", RLREF_KL_AS_REWARD, 1 },
  };
  mpfr_ptr theta = vec_new (4, 1024), ref = vec_new (4, 1024), g = vec_new (4, PREC);
  mpfr_ptr fd = vec_new (8, 1024);
  mpfr_t v, kl, klr, res, zero;
  mpfr_inits2 (PREC, v, kl, klr, res, zero, (mpfr_ptr) 0);
  mpfr_set_zero (zero, 1);
  printf ("gradients on a softmax of 4 outcomes, theta = (0.3, -1.2, 0.7, 0), theta_ref = "
          "(0, 0.5, -0.4, 0.2)\n");
  for (int j = 0; j < 4; j++)
    {
      mpfr_set_d (theta + j, th[j], MPFR_RNDN);
      mpfr_set_d (ref + j, tr[j], MPFR_RNDN);
    }
  for (size_t j = 0; j < 4; j++)
    {
      central (fd + j, theta, j, ref, 4, 0);
      central (fd + 4 + j, theta, j, ref, 4, 1);
    }
  for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
    {
      OK (rlref_kl_grad_softmax_mp (v, g, kl, NULL, klr, NULL, theta, ref, 4,
                                    rlref_kl_convention_find (cs[c].f, cs[c].name), cs[c].mode));
      mpfr_set_zero (res, 1);
      for (size_t j = 0; j < 4; j++)
        {
          mpfr_t d;
          mpfr_init2 (d, PREC);
          if (cs[c].target == 0)
            mpfr_set (d, g + j, MPFR_RNDN);
          else
            mpfr_sub (d, g + j, fd + (cs[c].target == 1 ? 0 : 4) + j, MPFR_RNDN);
          mpfr_abs (d, d, MPFR_RNDN);
          mpfr_max (res, res, d, MPFR_RNDN);
          mpfr_clear (d);
        }
      step (cs[c].label, res, zero, 0, -240);
    }
  mpfr_clears (v, kl, klr, res, zero, (mpfr_ptr) 0);
  vec_free (theta, 4);
  vec_free (ref, 4);
  vec_free (g, 4);
  vec_free (fd, 8);
}

int
main (void)
{
  rlref_mp_set_prec (PREC);
  printf ("Seed 000 section 12.1, table 5 and (13.26) at %d bits\n\n", PREC);
  for (size_t i = 0; i < sizeof problems / sizeof problems[0]; i++)
    derivation (&problems[i]);
  nonnegative ();
  gaussians ();
  gradients ();
  return finish ();
}
