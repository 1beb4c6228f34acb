/* kl_gauss.c -- KL-EXACT for two Gaussians: the exact expectation, bias
 * and variance of k1, k2, k3 in closed form, and a seeded Monte-Carlo run
 * beside them (seed 000 section 12.1; the table of Schulman's note
 * "Approximating KL divergence", q = N(0, 1), p = N(mu, 1)).  Written once
 * for both backends.
 *
 * The policy is N(mu, s^2), the reference N(mu_r, t^2).  With x = mu + s z,
 * z ~ N(0, 1), the log-ratio is a quadratic in z:
 *   l = log N(x; mu, s^2) - log N(x; mu_r, t^2) = c0 + c1 z + c2 z^2,
 *   rho = s^2/t^2 = 1 + delta,  D = (mu - mu_r)^2/(2 t^2),
 *   c0 = -log(rho)/2 + D,  c1 = (mu - mu_r) s/t^2,  c2 = delta/2.
 * L(d) = d - log(1 + d) >= 0 and R(d) = log(1 + d) - d + d^2/2 are the
 * remainders of kl_series.c. */
#include <limits.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include "rlref/num.h"
#include "rlref/kl.h"
#include "kl_series.h"
#include "flow.h"

/* The quadratic's parameters (w holds them): */
enum { G_D, G_DELTA, G_RHO, G_C0, G_C1, G_C2, G_KL, G_N };

/* mu, s, mu_r, t finite, s, t > 0, the two not equal. */
static int
check_gauss (num_srcptr mu, num_srcptr s, num_srcptr mu_r, num_srcptr t)
{
  if (!mu || !s || !mu_r || !t)
    RLREF_ERROR ("missing parameter", RLREF_EINVAL);
  if (!num_is_finite (mu) || !num_is_finite (s) || !num_is_finite (mu_r) || !num_is_finite (t))
    RLREF_ERROR ("a non-finite parameter", RLREF_ENAN);
  if (num_sgn (s) <= 0 || num_sgn (t) <= 0)
    RLREF_ERROR ("a standard deviation must be > 0", RLREF_EDOM);
  if (num_cmp (mu, mu_r) == 0 && num_cmp (s, t) == 0)
    RLREF_ERROR ("the two Gaussians are equal: KL = 0, the ratios to it undefined", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* The parameters of the quadratic, and KL(policy || ref) = E[l] = c0 + c2
 * = L(delta)/2 + D; delta = (s - t)(s + t)/t^2 keeps its relative
 * accuracy when s is near t.  For delta < -1/2 (s < t/sqrt 2) 1 + delta
 * has lost the digits of rho: there rho = u^2, u = s/t, log(rho)/2 = log u,
 * and L(delta)/2 = delta/2 - log u = (u^2 - 1)/2 - log u, whose terms
 * differ by a factor 3.6 or more. */
static void
quadratic (num_ptr g, num_srcptr mu, num_srcptr s, num_srcptr mu_r, num_srcptr t, num_ptr x)
{
  int small;
  num_sub (AT (g, G_C1), mu, mu_r);                     /* d */
  num_sqr (AT (g, G_D), AT (g, G_C1));
  num_sqr (x, t);
  num_div (AT (g, G_D), AT (g, G_D), x);
  num_mul_2si (AT (g, G_D), AT (g, G_D), -1);           /* D = d^2/(2 t^2) */
  num_mul (AT (g, G_C1), AT (g, G_C1), s);
  num_div (AT (g, G_C1), AT (g, G_C1), x);              /* c1 = d s/t^2 */
  num_sub (AT (g, G_DELTA), s, t);
  num_add (AT (g, G_RHO), s, t);
  num_mul (AT (g, G_DELTA), AT (g, G_DELTA), AT (g, G_RHO));
  num_div (AT (g, G_DELTA), AT (g, G_DELTA), x);        /* delta */
  num_mul_2si (AT (g, G_C2), AT (g, G_DELTA), -1);      /* c2 */
  small = num_cmp_d (AT (g, G_DELTA), -0.5) < 0;
  if (small)
    {
      num_div (x, s, t);                                /* u */
      num_sqr (AT (g, G_RHO), x);                       /* rho = u^2 */
      num_log (AT (g, G_C0), x);                        /* log(rho)/2 = log u */
      num_sub (AT (g, G_KL), AT (g, G_C2), AT (g, G_C0));       /* L(delta)/2 */
    }
  else
    {
      num_add_d (AT (g, G_RHO), AT (g, G_DELTA), 1.0);  /* rho */
      num_log1p (AT (g, G_C0), AT (g, G_DELTA));
      num_mul_2si (AT (g, G_C0), AT (g, G_C0), -1);
      FN (kl_log1p_rem) (AT (g, G_KL), AT (g, G_DELTA));
      num_mul_2si (AT (g, G_KL), AT (g, G_KL), -1);
    }
  num_sub (AT (g, G_C0), AT (g, G_D), AT (g, G_C0));    /* c0 = D - log(rho)/2 */
  num_add (AT (g, G_KL), AT (g, G_KL), AT (g, G_D));    /* KL = L(delta)/2 + D */
}

/* The moments, m = KL, c1, c2, D, delta, rho as above (Gaussian moments
 * E z^2 = 1, E z^4 = 3, E z^6 = 15, E z^8 = 105; W = l - m):
 *   KL(ref || policy) = L(delta')/2 + D/rho, delta' = 1/rho - 1 = -delta/rho;
 *   Var k1 = E W^2 = c1^2 + 2 c2^2;  E k2 = (m^2 + Var k1)/2;
 *   E k2 - KL = m^2/2 + D delta + R(delta)/2;
 *   Var k2 = (4 m^2 E W^2 + 4 m E W^3 + E W^4 - (E W^2)^2)/4
 *          = c1^2 ((m + 3 c2)^2 + 5 c2^2) + 2 c2^2 ((m + 2 c2)^2 + 3 c2^2) + c1^4/2;
 *   Var k3 = Var r + Var l + 2 Cov(r, l), r = e^-l, E r = 1,
 *          Cov(r, l) = E_ref[l] - E[l] = -(KL(ref||policy) + KL(policy||ref)),
 *          E r^2 = e^A, A = log(1 + w)/2 + 2D/(1 + 2 delta), w = delta^2/(1 + 2 delta)
 *          (finite for 1 + 2 delta > 0, that is t^2 < 2 s^2; +inf otherwise):
 *   Var k3 = (e^A - 1 - A) + B,  B = A + Var l - 2 (KL + KL(ref||policy))
 *          = f(delta) + 2 D delta^2 (2 rho + 1)/(rho (1 + 2 delta)),
 *   f = [2 delta^4/((1 + 2 delta)(1 + delta)) - L(w)]/2      (delta >= -0.4),
 *     = [log(1 + w) + delta^2 (delta - 1)/(1 + delta)]/2   (delta < -0.4),
 * every form a sum of terms that do not cancel where the Gaussians are close. */
#ifdef RLREF_MP
int
FN (kl_gauss) (num_ptr out, num_srcptr mu, num_srcptr sigma, num_srcptr mu_ref,
               num_srcptr sigma_ref)
{
  num_ptr g = NULL, o = NULL, w = NULL;
  int status = check_gauss (mu, sigma, mu_ref, sigma_ref), infinite = 0;
  if (status)
    return status;
  if (!out)
    RLREF_ERROR ("no output", RLREF_EINVAL);
  g = num_vec_new (G_N);
  o = num_vec_new (RLREF_KL_NGAUSS);
  w = num_vec_new (8);
  if (!g || !o || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  quadratic (g, mu, sigma, mu_ref, sigma_ref, AT (w, 0));
  {
    num_srcptr m = AT (g, G_KL), c1 = AT (g, G_C1), c2 = AT (g, G_C2), D = AT (g, G_D);
    num_srcptr delta = AT (g, G_DELTA), rho = AT (g, G_RHO);
    num_ptr a = AT (w, 0), b = AT (w, 1), c = AT (w, 2), e = AT (w, 3), c1s = AT (w, 4);
    num_ptr c2s = AT (w, 5), q = AT (w, 6), u = AT (w, 7);
    num_set (AT (o, RLREF_KL_G_KL), m);
    /* KL(ref || policy) */
    num_div (a, delta, rho);
    num_neg (a, a);
    FN (kl_log1p_rem) (a, a);
    num_mul_2si (a, a, -1);
    num_div (b, D, rho);
    num_add (AT (o, RLREF_KL_G_KL_REVERSE), a, b);
    /* Var k1, E k2 */
    num_sqr (c1s, c1);
    num_sqr (c2s, c2);
    num_mul_2si (a, c2s, 1);
    num_add (AT (o, RLREF_KL_G_VAR_K1), c1s, a);
    num_sqr (a, m);
    num_add (a, a, AT (o, RLREF_KL_G_VAR_K1));
    num_mul_2si (AT (o, RLREF_KL_G_E_K2), a, -1);
    /* E k2 - KL = m^2/2 + D delta + R(delta)/2 */
    num_sqr (a, m);
    num_mul_2si (a, a, -1);
    num_mul (b, D, delta);
    num_add (a, a, b);
    if (num_cmp_d (delta, -0.5) < 0)
      {
        /* R(delta) = log(rho) - delta + delta^2/2, log rho = 2 log(s/t) */
        num_div (b, sigma, sigma_ref);
        num_log (b, b);
        num_mul_2si (b, b, 1);
        num_sub (b, b, delta);
        num_sqr (c, delta);
        num_mul_2si (c, c, -1);
        num_add (b, b, c);
      }
    else
      FN (kl_log1p_rem3) (b, delta);
    num_mul_2si (b, b, -1);
    num_add (AT (o, RLREF_KL_G_BIAS_K2), a, b);
    /* Var k2 */
    num_mul_si (a, c2, 3);
    num_add (a, a, m);
    num_sqr (a, a);
    num_mul_si (b, c2s, 5);
    num_add (a, a, b);
    num_mul (a, a, c1s);                                  /* c1^2 ((m + 3c2)^2 + 5 c2^2) */
    num_mul_2si (b, c2, 1);
    num_add (b, b, m);
    num_sqr (b, b);
    num_mul_si (c, c2s, 3);
    num_add (b, b, c);
    num_mul (b, b, c2s);
    num_mul_2si (b, b, 1);                                /* 2 c2^2 ((m + 2c2)^2 + 3 c2^2) */
    num_add (a, a, b);
    num_sqr (b, c1s);
    num_mul_2si (b, b, -1);
    num_add (AT (o, RLREF_KL_G_VAR_K2), a, b);
    /* Var k3 */
    num_mul_2si (q, delta, 1);
    num_add_d (q, q, 1.0);                                /* q = 1 + 2 delta = 2 rho - 1 */
    infinite = num_sgn (q) <= 0;
    if (infinite)
      num_set_inf (AT (o, RLREF_KL_G_VAR_K3), 1);
    else
      {
        num_sqr (u, delta);
        num_div (u, u, q);                                /* w */
        num_log1p (a, u);
        num_mul_2si (a, a, -1);
        num_div (b, D, q);
        num_mul_2si (b, b, 1);
        num_add (a, a, b);                                /* A */
        FN (kl_exp_rem) (e, a, 2);                        /* e^A - 1 - A */
        if (num_cmp_d (delta, -0.4) >= 0)
          {
            num_sqr (b, delta);
            num_sqr (b, b);
            num_mul_2si (b, b, 1);
            num_div (b, b, q);
            num_div (b, b, rho);
            FN (kl_log1p_rem) (c, u);
            num_sub (b, b, c);
          }
        else
          {
            num_log1p (b, u);
            num_sub_d (c, delta, 1.0);
            num_mul (c, c, c2s);
            num_mul_2si (c, c, 2);                        /* delta^2 (delta - 1) */
            num_div (c, c, rho);
            num_add (b, b, c);
          }
        num_mul_2si (b, b, -1);                           /* f */
        num_mul_2si (c, rho, 1);
        num_add_d (c, c, 1.0);
        num_mul (c, c, c2s);
        num_mul_2si (c, c, 2);                            /* delta^2 (2 rho + 1) */
        num_mul (c, c, D);
        num_mul_2si (c, c, 1);
        num_div (c, c, rho);
        num_div (c, c, q);
        num_add (b, b, c);                                /* B */
        num_add (AT (o, RLREF_KL_G_VAR_K3), e, b);
      }
    /* the ratios of Schulman's table */
    num_div (AT (o, RLREF_KL_G_BIAS_K2_REL), AT (o, RLREF_KL_G_BIAS_K2), m);
    for (int j = 0; j < 3; j++)
      {
        num_sqrt (a, AT (o, RLREF_KL_G_VAR_K1 + j));
        num_div (AT (o, RLREF_KL_G_STD_K1_REL + j), a, m);
      }
  }
  /* +inf is Var k3's exact value where E r^2 diverges; any other
   * non-finite output has left the backend's range */
  for (int j = 0; j < RLREF_KL_NGAUSS; j++)
    num_set (AT (out, j), AT (o, j));
  for (int j = 0; j < RLREF_KL_NGAUSS; j++)
    if (!num_is_finite (AT (out, j))
        && !(infinite && (j == RLREF_KL_G_VAR_K3 || j == RLREF_KL_G_STD_K3_REL)))
      FAIL ("result beyond the floating-point range", RLREF_ERANGE);
done:
  num_vec_free (g, G_N);
  num_vec_free (o, RLREF_KL_NGAUSS);
  num_vec_free (w, 8);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  The moments are of degree 2 and 4 in c1, c2 and KL:
 * for Gaussians 2^-487 apart Var k2 ~ mu_ref^4 underflows where its ratio
 * sqrt(Var k2)/KL = sqrt 2 does not.  A Var k3 that diverges is +inf, as
 * in the MPFR program; any other output beyond the range is ERANGE. */
#include "round_once.h"

/* x = (mu, sigma, mu_ref, sigma_ref); y = the outputs, with Var k3 and its
 * ratio 0 and *infinite set where they are +inf. */
static int
gauss_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  int *infinite = ctx;
  int status = rlref_kl_gauss_mp (y, x, x + 1, x + 2, x + 3);
  *infinite = status == RLREF_SUCCESS && mpfr_inf_p (y + RLREF_KL_G_VAR_K3);
  if (*infinite)
    {
      mpfr_set_zero (y + RLREF_KL_G_VAR_K3, 1);
      mpfr_set_zero (y + RLREF_KL_G_STD_K3_REL, 1);
    }
  return status;
}

int
FN (kl_gauss) (num_ptr out, num_srcptr mu, num_srcptr sigma, num_srcptr mu_ref,
               num_srcptr sigma_ref)
{
  double x[4], y[RLREF_KL_NGAUSS];
  int infinite = 0, status = check_gauss (mu, sigma, mu_ref, sigma_ref);
  if (status)
    return status;
  if (!out)
    RLREF_ERROR ("no output", RLREF_EINVAL);
  x[0] = *mu;
  x[1] = *sigma;
  x[2] = *mu_ref;
  x[3] = *sigma_ref;
  status = rlref_round_once (y, RLREF_KL_NGAUSS, x, 4, gauss_mp, &infinite,
                             "the Gaussian moments");
  if (status)
    return status;
  if (infinite)
    y[RLREF_KL_G_VAR_K3] = y[RLREF_KL_G_STD_K3_REL] = HUGE_VAL;
  for (int j = 0; j < RLREF_KL_NGAUSS; j++)
    out[j] = y[j];
  return RLREF_SUCCESS;
}
#endif

/* The Monte-Carlo run: z_i from gsl_ran_gaussian (MT19937, gsl_rng_set
 * (seed)), l_i = c0 + c1 z_i + c2 z_i^2, and per estimator
 *   mean = (1/n) sum k_i,  std = sqrt(sum (k_i - mean)^2/(n - 1)),
 *   bias/true = (mean - KL)/KL,  std/true = std/KL,
 * k1's and k3's mean - KL and k - mean as the mean of k_i - KL and its
 * difference, l_i - KL = c1 z_i + c2 (z_i^2 - 1) (KL = c0 + c2) and k3_i -
 * KL = expm1(-l_i) + (l_i - KL) (|l_i| >= 1/2), k2_i less its mean as KL (u_i
 * - mean u) + (u_i^2 - mean u^2)/2 with u = l - KL, without the c0 that
 * cancels where it is large; each deviation scaled by a power of two near
 * its size before it is squared (no square overflows or underflows); two passes over the same draws (the generator re-seeded), compensated
 * sums. */
int
FN (kl_gauss_mc) (num_ptr out, num_srcptr mu, num_srcptr sigma, num_srcptr mu_ref,
                  num_srcptr sigma_ref, long n, unsigned long seed)
{
  num_ptr g = NULL, o = NULL, w = NULL;
  gsl_rng *rng = NULL;
  kl_acc a[6];
  /* each estimator's deviations scaled by 2^-e[j] before they are squared:
   * e[0], e[2] the largest exponents of l - KL and k3 - KL, e[1] that of
   * k2's size */
  long e[3] = { LONG_MIN, 0, LONG_MIN };
  int status = check_gauss (mu, sigma, mu_ref, sigma_ref);
  if (status)
    return status;
  if (!out)
    RLREF_ERROR ("no output", RLREF_EINVAL);
  if (n < 2 || n > RLREF_KL_MC_MAX)
    RLREF_ERROR ("n must be 2 to 1e6", RLREF_EDOM);
  for (int j = 0; j < 6; j++)
    FN (kl_acc_init) (&a[j]);
  g = num_vec_new (G_N);
  o = num_vec_new (RLREF_KL_NMC);
  w = num_vec_new (12);
  rng = gsl_rng_alloc (gsl_rng_mt19937);
  if (!g || !o || !w || !rng)
    FAIL ("out of memory", RLREF_ENOMEM);
  quadratic (g, mu, sigma, mu_ref, sigma_ref, AT (w, 0));
  for (int pass = 1; pass <= 2; pass++)
    {
      gsl_rng_set (rng, seed);
      for (long i = 0; i < n; i++)
        {
          num_ptr z = AT (w, 0), l = AT (w, 1), k = AT (w, 2), x = AT (w, 3);
          num_ptr u = AT (w, 4), v = AT (w, 5), m1 = AT (w, 6), k3 = AT (w, 11);
          num_set_d (z, gsl_ran_gaussian (rng, 1.0));
          num_mul (l, AT (g, G_C2), z);
          num_add (l, l, AT (g, G_C1));
          num_mul (l, l, z);
          num_add (l, l, AT (g, G_C0));                  /* c0 + (c1 + c2 z) z */
          /* u = l - KL = c1 z + c2 (z^2 - 1), without c0 */
          num_set_d (m1, -1.0);
          num_fma (u, z, z, m1);
          num_mul (u, u, AT (g, G_C2));
          num_fma (u, AT (g, G_C1), z, u);
          /* v = k3 - KL: the remainder less KL for |l| < 1/2, else
           * expm1(-l) + u; k3 = e^-l - 1 + l itself, formed as
           * kl_exp_rem (-l, 2) forms it (the series, or expm1(-l) - (-l)) */
          num_abs (x, l);
          num_neg (v, l);
          if (num_cmp_d (x, 0.5) < 0)
            {
              FN (kl_exp_rem) (k3, v, 2);
              num_sub (v, k3, AT (g, G_KL));
            }
          else
            {
              num_expm1 (v, v);
              num_add (k3, v, l);
              num_add (v, v, u);
            }
          if (pass == 1)
            {
              FN (kl_acc_add) (&a[3], u);
              FN (kl_acc_add) (&a[4], v);
              if (!num_is_zero (u) && num_get_exp (u) > e[0])
                e[0] = num_get_exp (u);
              if (!num_is_zero (v) && num_get_exp (v) > e[2])
                e[2] = num_get_exp (v);
              num_sqr (x, u);
              FN (kl_acc_add) (&a[5], x);
            }
          for (int j = 0; j < 3; j++)
            {
              if (j == 0)
                num_set (k, l);
              else if (j == 1)
                {
                  num_sqr (k, l);
                  num_mul_2si (k, k, -1);
                }
              else if (pass == 1)
                num_set (k, k3);
              if (pass == 2)
                {
                  /* k1 and k3 less their means as (k - KL) - (mean - KL) */
                  if (j == 0)
                    num_sub (k, u, AT (w, 7));
                  else if (j == 2)
                    num_sub (k, v, AT (w, 8));
                  else
                    {
                      /* k2 - mean k2 = KL (u - mean u) + (u^2 - mean u^2)/2 */
                      num_sqr (x, u);
                      num_sub (x, x, AT (w, 9));
                      num_mul_2si (x, x, -1);
                      num_sub (k, u, AT (w, 7));
                      num_mul (k, k, AT (g, G_KL));
                      num_add (k, k, x);
                    }
                  num_mul_2si (k, k, -e[j]);
                  num_sqr (k, k);
                }
              FN (kl_acc_add) (&a[j], k);
            }
        }
      for (int j = 0; j < 3; j++)
        {
          num_ptr r = AT (o, pass == 1 ? RLREF_KL_MC_MEAN_K1 + j : RLREF_KL_MC_STD_K1 + j);
          FN (kl_acc_get) (r, &a[j]);
          if (pass == 1)
            num_div_si (r, r, n);
          else
            {
              num_div_si (r, r, n - 1);
              num_sqrt (r, r);
              num_mul_2si (r, r, e[j]);
            }
          FN (kl_acc_clear) (&a[j]);
          FN (kl_acc_init) (&a[j]);
        }
      if (pass == 1)
        for (int j = 0; j < 3; j++)
          {
            /* the means of l - KL, k3 - KL and (l - KL)^2 */
            FN (kl_acc_get) (AT (w, 7 + (size_t) j), &a[3 + j]);
            num_div_si (AT (w, 7 + (size_t) j), AT (w, 7 + (size_t) j), n);
          }
      if (pass == 1)
        {
          /* the size of k2's deviations, KL |u| + u^2/2, as a power of
           * two: their squares summed without overflow */
          num_ptr sz = AT (w, 10);
          num_sqrt (sz, AT (w, 9));
          num_mul (sz, sz, AT (g, G_KL));
          num_abs (sz, sz);
          num_add (sz, sz, AT (w, 9));
          e[1] = num_is_finite (sz) && !num_is_zero (sz) ? num_get_exp (sz) : 0;
          for (int j = 0; j < 3; j += 2)
            if (e[j] == LONG_MIN)
              e[j] = 0;
        }
    }
  for (int j = 0; j < 3; j++)
    {
      num_ptr b = AT (o, RLREF_KL_MC_BIAS_K1_REL + j);
      if (j == 1)
        num_sub (b, AT (o, RLREF_KL_MC_MEAN_K1 + j), AT (g, G_KL));
      else
        num_set (b, AT (w, j == 0 ? 7 : 8));
      num_div (b, b, AT (g, G_KL));
      num_div (AT (o, RLREF_KL_MC_STD_K1_REL + j), AT (o, RLREF_KL_MC_STD_K1 + j), AT (g, G_KL));
    }
  for (int j = 0; j < RLREF_KL_NMC; j++)
    num_set (AT (out, j), AT (o, j));
  for (int j = 0; j < RLREF_KL_NMC; j++)
    if (!num_is_finite (AT (out, j)))
      FAIL ("result beyond the floating-point range", RLREF_ERANGE);
done:
  for (int j = 0; j < 6; j++)
    FN (kl_acc_clear) (&a[j]);
  if (rng)
    gsl_rng_free (rng);
  num_vec_free (g, G_N);
  num_vec_free (o, RLREF_KL_NMC);
  num_vec_free (w, 12);
  return status;
}
