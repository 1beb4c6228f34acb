/* klopt_13_13_to_13_17.c -- seed 000 section 4.1, derivation (1), checked
 * step by step at 256 bits on explicit finite distributions: the
 * KL-regularised objective (13.13) rewritten as (13.14), the partition
 * function and the optimal policy (13.15), the objective as
 * -beta [KL(pi || pi*) - log Z] (13.16) for random policies pi, Gibbs'
 * inequality KL >= 0 with equality only at pi* (13.17), the optimum value
 * beta log Z, and the limits beta -> infinity (pi_ref) and beta -> 0
 * (pi_ref on the best outcomes, ties split in proportion to pi_ref).
 *
 * The literal side of every step is the seed's formula evaluated as
 * printed (e^{r/beta} without a shift: MPFR's exponent range holds it);
 * the library side is rlref's KLOPT functions.  Random policies come from
 * GSL's MT19937 with a fixed seed.  Each step prints its residual and its
 * bound; the program exits 1 if a residual exceeds its bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

#define NMAX 6
#define N_POLICIES 1000
#define SEED 13UL

typedef struct
{
  const char *name;
  size_t n;
  double p[NMAX], r[NMAX], beta;
} problem;

static const problem problems[] = {
  { "two outcomes", 2, { 0.5, 0.5 }, { 1, 0 }, 1 },
  { "three outcomes", 3, { 0.2, 0.3, 0.5 }, { 1, -0.5, 2 }, 0.5 },
  { "an outcome of zero reference probability", 3, { 0, 0.5, 0.5 }, { 5, 0, 1 }, 1 },
  { "six outcomes", 6, { 0.05, 0.1, 0.15, 0.2, 0.25, 0.25 }, { 3, -1, 0.5, 2, -2.5, 1 }, 2.5 },
  { "large beta", 3, { 0.2, 0.3, 0.5 }, { 1, -0.5, 2 }, 1e6 },
  { "small beta, r/beta up to 1e4", 3, { 0.5, 0.25, 0.25 }, { 10, 0, -10 }, 1e-3 },
};

static mpfr_ptr
vec_new (size_t n)
{
  mpfr_ptr v = malloc (n * sizeof *v);
  for (size_t i = 0; i < n; i++)
    mpfr_init2 (v + i, PREC), mpfr_set_zero (v + i, 1);
  return v;
}

/* max_i |a_i - b_i| / |b_i| into res (an a_i != b_i = 0 gives +inf). */
static void
max_rel (mpfr_ptr res, mpfr_srcptr a, mpfr_srcptr b, size_t n)
{
  mpfr_t t;
  mpfr_init2 (t, PREC);
  mpfr_set_zero (res, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_sub (t, a + i, b + i, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      if (mpfr_zero_p (b + i))
        {
          if (!mpfr_zero_p (t))
            mpfr_set_inf (t, 1);
        }
      else
        mpfr_div (t, t, b + i, MPFR_RNDN), mpfr_abs (t, t, MPFR_RNDN);
      mpfr_max (res, res, t, MPFR_RNDN);
    }
  mpfr_clear (t);
}

/* sum_{p_i > 0} p_i log(p_i / q_i), as printed. */
static void
kl_literal (mpfr_ptr kl, mpfr_srcptr p, mpfr_srcptr q, size_t n)
{
  mpfr_t t;
  mpfr_init2 (t, PREC);
  mpfr_set_zero (kl, 1);
  for (size_t i = 0; i < n; i++)
    if (!mpfr_zero_p (p + i))
      {
        mpfr_div (t, p + i, q + i, MPFR_RNDN);
        mpfr_log (t, t, MPFR_RNDN);
        mpfr_mul (t, t, p + i, MPFR_RNDN);
        mpfr_add (kl, kl, t, MPFR_RNDN);
      }
  mpfr_clear (t);
}

/* A random policy on the support of p (0 where p = 0), normalised. */
static void
random_policy (mpfr_ptr pi, const double *p, size_t n, gsl_rng *g)
{
  mpfr_t s;
  mpfr_init2 (s, PREC);
  mpfr_set_zero (s, 1);
  for (size_t i = 0; i < n; i++)
    {
      double u = gsl_rng_uniform_pos (g);
      mpfr_set_d (pi + i, p[i] == 0 ? 0 : u * u * u, MPFR_RNDN);
      mpfr_add (s, s, pi + i, MPFR_RNDN);
    }
  for (size_t i = 0; i < n; i++)
    mpfr_div (pi + i, pi + i, s, MPFR_RNDN);
  mpfr_clear (s);
}

/* (13.13)-(13.17) on one problem. */
static void
derivation (const problem *c, gsl_rng *g)
{
  size_t n = c->n;
  mpfr_ptr p = vec_new (n), r = vec_new (n), ps = vec_new (n), psl = vec_new (n);
  mpfr_ptr pi = vec_new (n), dv = vec_new (n);
  mpfr_t beta, z, logz, logzl, sum, t, u, j13, j14a, j14b, j16, obj, ident, kls, kll, scale;
  mpfr_t w13, w14, w16, wobj, wid, wkl, minkl, gap, js, bz, zero;
  long bbits;
  size_t kmax = 0;
  printf ("%s: n = %zu, beta = %g\n", c->name, n, c->beta);
  mpfr_inits2 (PREC, beta, z, logz, logzl, sum, t, u, j13, j14a, j14b, j16, obj, ident, kls, kll,
               scale, w13, w14, w16, wobj, wid, wkl, minkl, gap, js, bz, zero, (mpfr_ptr) 0);
  mpfr_set_zero (zero, 1);
  mpfr_set_d (beta, c->beta, MPFR_RNDN);
  mpfr_set_zero (sum, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_set_d (p + i, c->p[i], MPFR_RNDN);
      mpfr_set_d (r + i, c->r[i], MPFR_RNDN);
      mpfr_add (sum, sum, p + i, MPFR_RNDN);
    }
  for (size_t i = 0; i < n; i++)
    mpfr_div (p + i, p + i, sum, MPFR_RNDN);

  /* (13.15) as printed: Z = sum pi_ref e^{r/beta}, pi* = pi_ref e^{r/beta} / Z */
  mpfr_set_zero (z, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_div (psl + i, r + i, beta, MPFR_RNDN);
      mpfr_exp (psl + i, psl + i, MPFR_RNDN);
      mpfr_mul (psl + i, psl + i, p + i, MPFR_RNDN);
      mpfr_add (z, z, psl + i, MPFR_RNDN);
    }
  for (size_t i = 0; i < n; i++)
    mpfr_div (psl + i, psl + i, z, MPFR_RNDN);
  mpfr_log (logzl, z, MPFR_RNDN);
  /* bounds: the printed sum carries log Z to 2^-256 absolutely (log Z ~
   * 1e-6 at beta = 1e6), and beta log Z to beta 2^-256 */
  bbits = c->beta > 1 ? (long) ceil (log2 (c->beta)) : 0;
  OK (rlref_klopt_logz_mp (logz, NULL, p, RLREF_KLOPT_PROB, r, n, beta));
  step ("(13.15) log Z: shifted log-sum-exp = log of the printed sum", logz, logzl, 0, -240);
  OK (rlref_klopt_pistar_mp (ps, NULL, NULL, NULL, NULL, p, RLREF_KLOPT_PROB, r, n, beta));
  max_rel (t, ps, psl, n);
  step ("(13.15) pi* = pi_ref e^{r/beta} / Z, every outcome (max rel)", t, zero, 0, -240);
  mpfr_set_zero (sum, 1);
  for (size_t i = 0; i < n; i++)
    mpfr_add (sum, sum, ps + i, MPFR_RNDN);
  mpfr_set_ui (t, 1, MPFR_RNDN);
  step ("(13.15) Z normalises: sum pi* = 1", sum, t, 0, -250);

  /* (13.13) -> (13.14) -> (13.16) for N_POLICIES random policies: the
   * largest residual of each step, relative to the size of the terms
   * that cancel, scale = |E_pi r| + beta KL(pi || pi_ref) + beta |log Z| */
  mpfr_set_zero (w13, 1);
  mpfr_set_zero (w14, 1);
  mpfr_set_zero (w16, 1);
  mpfr_set_zero (wobj, 1);
  mpfr_set_zero (wid, 1);
  mpfr_set_zero (wkl, 1);
  mpfr_set_inf (minkl, 1);
  for (int k = 0; k < N_POLICIES; k++)
    {
      random_policy (pi, c->p, n, g);
      /* (13.13): sum pi r - beta sum pi log(pi/pi_ref) */
      mpfr_set_zero (j13, 1);
      mpfr_set_zero (j14a, 1);
      mpfr_set_zero (j14b, 1);
      for (size_t i = 0; i < n; i++)
        {
          if (mpfr_zero_p (pi + i))
            continue;
          mpfr_mul (t, pi + i, r + i, MPFR_RNDN);
          mpfr_add (j13, j13, t, MPFR_RNDN);
          /* (13.14) left: pi [log(pi/pi_ref) - r/beta] */
          mpfr_div (u, pi + i, p + i, MPFR_RNDN);
          mpfr_log (u, u, MPFR_RNDN);
          mpfr_div (t, r + i, beta, MPFR_RNDN);
          mpfr_sub (t, u, t, MPFR_RNDN);
          mpfr_mul (t, t, pi + i, MPFR_RNDN);
          mpfr_add (j14a, j14a, t, MPFR_RNDN);
          /* (13.14) right: pi log(pi / (pi_ref e^{r/beta})) */
          mpfr_div (t, r + i, beta, MPFR_RNDN);
          mpfr_exp (t, t, MPFR_RNDN);
          mpfr_mul (t, t, p + i, MPFR_RNDN);
          mpfr_div (t, pi + i, t, MPFR_RNDN);
          mpfr_log (t, t, MPFR_RNDN);
          mpfr_mul (t, t, pi + i, MPFR_RNDN);
          mpfr_add (j14b, j14b, t, MPFR_RNDN);
        }
      kl_literal (kll, pi, p, n);
      mpfr_mul (scale, kll, beta, MPFR_RNDN);
      mpfr_sub (j13, j13, scale, MPFR_RNDN);
      mpfr_abs (t, j13, MPFR_RNDN);
      mpfr_add (scale, scale, t, MPFR_RNDN);
      mpfr_mul (t, logzl, beta, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_add (scale, scale, t, MPFR_RNDN);
      mpfr_neg (j14a, j14a, MPFR_RNDN);
      mpfr_mul (j14a, j14a, beta, MPFR_RNDN);
      mpfr_neg (j14b, j14b, MPFR_RNDN);
      mpfr_mul (j14b, j14b, beta, MPFR_RNDN);
      /* (13.16): -beta [KL(pi || pi*) - log Z], pi* as printed */
      kl_literal (kls, pi, psl, n);
      mpfr_sub (j16, kls, logzl, MPFR_RNDN);
      mpfr_mul (j16, j16, beta, MPFR_RNDN);
      mpfr_neg (j16, j16, MPFR_RNDN);
#define WORST(w, a, b)                                                  \
      do                                                                \
        {                                                               \
          mpfr_sub (t, (a), (b), MPFR_RNDN);                            \
          mpfr_abs (t, t, MPFR_RNDN);                                   \
          mpfr_div (t, t, scale, MPFR_RNDN);                            \
          mpfr_max ((w), (w), t, MPFR_RNDN);                            \
        }                                                               \
      while (0)
      WORST (w13, j14a, j13);
      WORST (w14, j14b, j14a);
      WORST (w16, j16, j14b);
      OK (rlref_klopt_identity_mp (obj, ident, u, pi, p, RLREF_KLOPT_PROB, r, n, beta));
      WORST (wobj, obj, j13);
      WORST (wid, ident, obj);
      mpfr_sub (t, u, kls, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_add_ui (gap, kls, 1, MPFR_RNDN);
      mpfr_div (t, t, gap, MPFR_RNDN);
      mpfr_max (wkl, wkl, t, MPFR_RNDN);
      mpfr_min (minkl, minkl, kls, MPFR_RNDN);
    }
#undef WORST
  step ("(13.13) -> (13.14): -beta sum pi [log(pi/pi_ref) - r/beta]", w13, zero, 0, -240);
  step ("(13.14): log a - c = log(a / e^c) with c = r/beta", w14, zero, 0, -240);
  step ("(13.14) -> (13.16): Z in and out: -beta [KL(pi || pi*) - log Z]", w16, zero, 0, -240);
  step ("library J(pi) = (13.13)", wobj, zero, 0, -240);
  step ("library -beta [KL(pi || pi*) - log Z] = J(pi)", wid, zero, 0, -240);
  step ("library KL(pi || pi*) = sum pi log(pi/pi*) (rel to 1 + KL)", wkl, zero, 0, -240);
  /* Gibbs: KL(pi || pi*) >= 0 over every policy tried */
  mpfr_printf ("  (min KL(pi || pi*) over %d policies: %.6Re)\n", N_POLICIES, minkl);
  mpfr_neg (t, minkl, MPFR_RNDN);
  mpfr_max (t, t, zero, MPFR_RNDN);
  step ("Gibbs: KL(pi || pi*) >= 0 (the part of the minimum below 0)", t, zero, 0, -250);

  /* the optimum: J(pi*) = E_pi*[r] - beta KL(pi* || pi_ref) = beta log Z */
  mpfr_set_zero (js, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_mul (t, psl + i, r + i, MPFR_RNDN);
      mpfr_add (js, js, t, MPFR_RNDN);
    }
  kl_literal (t, psl, p, n);
  mpfr_mul (t, t, beta, MPFR_RNDN);
  mpfr_sub (js, js, t, MPFR_RNDN);
  mpfr_mul (bz, logzl, beta, MPFR_RNDN);
  step ("(13.17): J(pi*) = E_pi*[r] - beta KL(pi* || pi_ref) = beta log Z", js, bz, 0,
        -240 + bbits);
  OK (rlref_klopt_optimum_mp (obj, u, p, RLREF_KLOPT_PROB, r, n, beta));
  step ("library J(pi*) = beta log Z", obj, bz, 0, -240 + bbits);
  step ("library beta log Z = beta log (13.15)", u, bz, 0, -240 + bbits);
  /* equality only at pi*: KL(pi* || pi*) = 0, and KL(pi* + eps v || pi*) ~
   * (eps^2/2) sum v^2/pi* > 0 for a direction of zero sum, v_i = (u_i -
   * 1/2) pi*_i with the likeliest outcome taking the sum: |v_i| <= n pi*_i,
   * so the quadratic form holds to O(n eps) */
  OK (rlref_klopt_kl_mp (t, ps, ps, RLREF_KLOPT_PROB, n));
  step ("Gibbs equality: KL(pi* || pi*) = 0", t, zero, 0, -250);
  mpfr_set_zero (sum, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_mul_d (dv + i, ps + i, gsl_rng_uniform (g) - 0.5, MPFR_RNDN);
      mpfr_add (sum, sum, dv + i, MPFR_RNDN);
      if (mpfr_cmp (ps + i, ps + kmax) > 0)
        kmax = i;
    }
  mpfr_sub (dv + kmax, dv + kmax, sum, MPFR_RNDN);
  mpfr_set_zero (u, 1);
  for (size_t i = 0; i < n; i++)
    if (!mpfr_zero_p (ps + i))
      {
        mpfr_sqr (t, dv + i, MPFR_RNDN);
        mpfr_div (t, t, ps + i, MPFR_RNDN);
        mpfr_add (u, u, t, MPFR_RNDN);
      }
  for (int e = 20; e <= 40; e += 20)
    {
      char label[96];
      int positive;
      for (size_t i = 0; i < n; i++)
        {
          mpfr_mul_2si (pi + i, dv + i, -e, MPFR_RNDN);
          mpfr_add (pi + i, pi + i, ps + i, MPFR_RNDN);
        }
      OK (rlref_klopt_kl_mp (t, pi, ps, RLREF_KLOPT_PROB, n));
      positive = mpfr_sgn (t) > 0;
      mpfr_mul_2si (gap, u, -2 * e - 1, MPFR_RNDN);
      snprintf (label, sizeof label, "Gibbs strict: KL(pi* + 2^-%d v || pi*)/(quadratic form) %s",
                e, positive ? "> 0" : "NOT > 0");
      failures += !positive;
      mpfr_div (t, t, gap, MPFR_RNDN);
      mpfr_set_ui (gap, 1, MPFR_RNDN);
      step (label, t, gap, 1, -(e - 8));
    }
  mp_vec_free (p, n);
  mp_vec_free (r, n);
  mp_vec_free (ps, n);
  mp_vec_free (psl, n);
  mp_vec_free (pi, n);
  mp_vec_free (dv, n);
  mpfr_clears (beta, z, logz, logzl, sum, t, u, j13, j14a, j14b, j16, obj, ident, kls, kll, scale,
               w13, w14, w16, wobj, wid, wkl, minkl, gap, js, bz, zero, (mpfr_ptr) 0);
}

/* beta -> infinity: with E = E_pi_ref[r] and c = (1/2) sum pi_ref |r - E|,
 * beta tv(pi*, pi_ref) -> c, beta log Z -> E, beta^2 KL(pi* || pi_ref) ->
 * Var[r]/2, each with an error O(1/beta). */
static void
limit_large_beta (void)
{
  const double pd[] = { 0.2, 0.3, 0.5 }, rd[] = { 1, -0.5, 2 };
  mpfr_ptr p = vec_new (3), r = vec_new (3), ps = vec_new (3);
  mpfr_t beta, e, c, var, tv, lz, k1, t;
  printf ("beta -> infinity: pi_ref = (0.2, 0.3, 0.5), r = (1, -0.5, 2)\n");
  mpfr_inits2 (PREC, beta, e, c, var, tv, lz, k1, t, (mpfr_ptr) 0);
  mpfr_set_zero (e, 1);
  for (int i = 0; i < 3; i++)
    {
      mpfr_set_d (p + i, pd[i], MPFR_RNDN);
      mpfr_set_d (r + i, rd[i], MPFR_RNDN);
      mpfr_mul (t, p + i, r + i, MPFR_RNDN);
      mpfr_add (e, e, t, MPFR_RNDN);
    }
  mpfr_set_zero (c, 1);
  mpfr_set_zero (var, 1);
  for (int i = 0; i < 3; i++)
    {
      mpfr_sub (t, r + i, e, MPFR_RNDN);
      mpfr_sqr (tv, t, MPFR_RNDN);
      mpfr_mul (tv, tv, p + i, MPFR_RNDN);
      mpfr_add (var, var, tv, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_mul (t, t, p + i, MPFR_RNDN);
      mpfr_add (c, c, t, MPFR_RNDN);
    }
  mpfr_div_2ui (c, c, 1, MPFR_RNDN);
  mpfr_div_2ui (var, var, 1, MPFR_RNDN);
  for (int k = 4; k <= 12; k += 4)
    {
      char label[96];
      long bound = -(long) (3.32 * k) + 4;
      mpfr_set_d (beta, pow (10, k), MPFR_RNDN);
      OK (rlref_klopt_approach_mp (tv, NULL, p, RLREF_KLOPT_PROB, r, 3, beta));
      OK (rlref_klopt_logz_mp (lz, NULL, p, RLREF_KLOPT_PROB, r, 3, beta));
      OK (rlref_klopt_pistar_mp (ps, NULL, NULL, k1, NULL, p, RLREF_KLOPT_PROB, r, 3, beta));
      mpfr_mul (tv, tv, beta, MPFR_RNDN);
      snprintf (label, sizeof label, "beta = 1e%d: beta tv(pi*, pi_ref) -> (1/2) E|r - E r|", k);
      step (label, tv, c, 1, bound);
      mpfr_mul (lz, lz, beta, MPFR_RNDN);
      snprintf (label, sizeof label, "beta = 1e%d: beta log Z -> E_pi_ref[r]", k);
      step (label, lz, e, 1, bound);
      mpfr_mul (k1, k1, beta, MPFR_RNDN);
      mpfr_mul (k1, k1, beta, MPFR_RNDN);
      snprintf (label, sizeof label, "beta = 1e%d: beta^2 KL(pi* || pi_ref) -> Var[r]/2", k);
      step (label, k1, var, 1, bound);
    }
  mp_vec_free (p, 3);
  mp_vec_free (r, 3);
  mp_vec_free (ps, 3);
  mpfr_clears (beta, e, c, var, tv, lz, k1, t, (mpfr_ptr) 0);
}

/* beta -> 0 with a tie: pi_ref = (0.1, 0.3, 0.6), r = (2, 2, 1).
 * pi*_0/pi*_1 = pi_ref_0/pi_ref_1 at every beta; pi*(outside A) e^{1/beta}
 * -> pi_ref_2/(pi_ref_0 + pi_ref_1) with an error O(e^{-1/beta}); beta log Z
 * -> m = 2; the exact limit (klopt_limit_argmax) is pi* up to e^{-1/beta}.
 * With the best reward on an outcome of zero reference probability, the
 * limit is the point mass on the best outcome of the support. */
static void
limit_small_beta (void)
{
  const double pd[] = { 0.1, 0.3, 0.6 }, rd[] = { 2, 2, 1 };
  const double pz[] = { 0, 0.4, 0.6 }, rz[] = { 5, 1, 0 };
  mpfr_ptr p = vec_new (3), r = vec_new (3), ps = vec_new (3), p0 = vec_new (3);
  mpfr_t beta, t, u, ta, lz, m, zero;
  printf ("beta -> 0: pi_ref = (0.1, 0.3, 0.6), r = (2, 2, 1): a tie\n");
  mpfr_inits2 (PREC, beta, t, u, ta, lz, m, zero, (mpfr_ptr) 0);
  mpfr_set_zero (zero, 1);
  for (int i = 0; i < 3; i++)
    {
      mpfr_set_d (p + i, pd[i], MPFR_RNDN);
      mpfr_set_d (r + i, rd[i], MPFR_RNDN);
    }
  OK (rlref_klopt_limit_argmax_mp (p0, m, p, RLREF_KLOPT_PROB, r, 3));
  mpfr_set_d (u, 0.1, MPFR_RNDN);
  mpfr_div_d (u, u, 0.3, MPFR_RNDN);
  for (int k = -6; k <= 6; k += 3)
    {
      char label[96];
      mpfr_set_d (beta, pow (10, k), MPFR_RNDN);
      OK (rlref_klopt_pistar_mp (ps, NULL, NULL, NULL, NULL, p, RLREF_KLOPT_PROB, r, 3, beta));
      mpfr_div (t, ps, ps + 1, MPFR_RNDN);
      snprintf (label, sizeof label, "beta = 1e%d: pi*_0/pi*_1 = pi_ref_0/pi_ref_1 (tie)", k);
      step (label, t, u, 1, -240);
    }
  for (int k = 1; k <= 3; k++)
    {
      char label[96];
      /* the error is about e^{-1/beta} relative: 10^k/ln 2 bits */
      long bound = k == 1 ? -12 : k == 2 ? -140 : -240;
      mpfr_set_d (beta, pow (10, -k), MPFR_RNDN);
      OK (rlref_klopt_approach_mp (t, ta, p, RLREF_KLOPT_PROB, r, 3, beta));
      mpfr_ui_div (t, 1, beta, MPFR_RNDN);
      mpfr_exp (t, t, MPFR_RNDN);
      mpfr_mul (t, t, ta, MPFR_RNDN);
      mpfr_set_d (u, 0.1, MPFR_RNDN);
      mpfr_add_d (u, u, 0.3, MPFR_RNDN);
      mpfr_d_div (u, 0.6, u, MPFR_RNDN);
      snprintf (label, sizeof label, "beta = 1e-%d: pi*(outside A) e^{1/beta} -> pi_ref(B)/pi_ref(A)",
                k);
      step (label, t, u, 1, bound);
      OK (rlref_klopt_logz_mp (lz, NULL, p, RLREF_KLOPT_PROB, r, 3, beta));
      mpfr_mul (lz, lz, beta, MPFR_RNDN);
      /* beta log Z - m = beta log(pi_ref(A) + pi_ref(B) e^{-1/beta}), pi_ref
       * normalised: pi_ref(A) = (0.1 + 0.3)/(0.1 + 0.3 + 0.6) of the doubles */
      mpfr_set_d (t, 0.1, MPFR_RNDN);
      mpfr_add_d (t, t, 0.3, MPFR_RNDN);
      mpfr_add_d (u, t, 0.6, MPFR_RNDN);
      mpfr_div (t, t, u, MPFR_RNDN);
      mpfr_log (t, t, MPFR_RNDN);
      mpfr_mul (t, t, beta, MPFR_RNDN);
      mpfr_add (t, t, m, MPFR_RNDN);
      snprintf (label, sizeof label, "beta = 1e-%d: beta log Z -> m + beta log pi_ref(A)", k);
      step (label, lz, t, 1, bound);
    }
  mpfr_set_d (beta, 1e-3, MPFR_RNDN);
  OK (rlref_klopt_pistar_mp (ps, NULL, NULL, NULL, NULL, p, RLREF_KLOPT_PROB, r, 3, beta));
  mpfr_set_zero (t, 1);
  for (int i = 0; i < 3; i++)
    {
      mpfr_sub (u, ps + i, p0 + i, MPFR_RNDN);
      mpfr_abs (u, u, MPFR_RNDN);
      mpfr_max (t, t, u, MPFR_RNDN);
    }
  step ("beta = 1e-3: pi* = the exact beta -> 0 limit (1/4, 3/4, 0)", t, zero, 0, -240);
  printf ("beta -> 0: pi_ref = (0, 0.4, 0.6), r = (5, 1, 0): the best reward is impossible\n");
  for (int i = 0; i < 3; i++)
    {
      mpfr_set_d (p + i, pz[i], MPFR_RNDN);
      mpfr_set_d (r + i, rz[i], MPFR_RNDN);
    }
  OK (rlref_klopt_limit_argmax_mp (p0, m, p, RLREF_KLOPT_PROB, r, 3));
  OK (rlref_klopt_pistar_mp (ps, NULL, NULL, NULL, NULL, p, RLREF_KLOPT_PROB, r, 3, beta));
  mpfr_set_ui (t, 1, MPFR_RNDN);
  step ("the limit is the point mass on outcome 1", p0 + 1, t, 0, -250);
  step ("pi*(0) = 0 at every beta", ps, zero, 0, -250);
  step ("beta = 1e-3: pi*(1) = 1 - O(e^{-1/beta})", ps + 1, t, 0, -240);
  mp_vec_free (p, 3);
  mp_vec_free (r, 3);
  mp_vec_free (ps, 3);
  mp_vec_free (p0, 3);
  mpfr_clears (beta, t, u, ta, lz, m, zero, (mpfr_ptr) 0);
}

int
main (void)
{
  gsl_rng *g = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (g, SEED);
  rlref_mp_set_prec (PREC);
  printf ("Seed 000 (13.13) -> (13.17) at %d bits; %d random policies per problem (MT19937, "
          "seed %lu)\n\n", PREC, N_POLICIES, SEED);
  for (size_t i = 0; i < sizeof problems / sizeof problems[0]; i++)
    derivation (&problems[i], g);
  limit_large_beta ();
  limit_small_beta ();
  gsl_rng_free (g);
  return finish ();
}
