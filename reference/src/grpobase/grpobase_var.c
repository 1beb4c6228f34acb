/* grpobase_var.c -- the variance of the group-mean and leave-one-out
 * baselines (seed 000, 13.28'), exactly and by a seeded Monte-Carlo run,
 * and the per-prompt weight that the group std puts on a binary reward
 * (seed 000 section 11, the difficulty bias), written once for both
 * backends.
 *
 * Variances are sum_j w_j (x_j - mu)^2 / (W - ddof), mu = sum w x / W,
 * from the deviations d_j = W x_j - S, each one num_dot of x_j and the
 * exact words of S = sum w x (rounded once), on values scaled by a power
 * of two: no cancellation, no overflow of a square.  The Monte-Carlo
 * draws compare integers only, so both backends draw the same rewards. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include "rlref/num.h"
#include "rlref/grpobase.h"
#include "flow.h"

/* sum_j w_j (x_j - mu)^2 / (W - ddof), w_j = weights[j] (NULL: 1),
 * W = sum w_j > ddof. */
static int
weighted_var (num_ptr var, num_srcptr x, const long *weights, size_t n, int ddof)
{
  long k, W = 0, emax = LONG_MIN, emin = LONG_MAX;
  size_t nw, T = 0;
  num_ptr v = NULL, c = NULL, d = NULL;
  int status = RLREF_SUCCESS;
  for (size_t j = 0; j < n; j++)
    W += weights ? weights[j] : 1;
  /* the exponents of the values that count: a value of weight 0 (DBL_MAX
   * beside 1e150) must not scale the others' squares into the subnormals */
  for (size_t j = 0; j < n; j++)
    if (!num_is_zero (AT (x, j)) && (!weights || weights[j] != 0))
      {
        long e = num_get_exp (AT (x, j));
        emax = e > emax ? e : emax;
        emin = e < emin ? e : emin;
      }
  k = emax == LONG_MIN ? 0 : emax;
  /* words: the remainder loses p - 1 bits a word over the spread of the
   * products w x (values' exponents plus 32 bits of weight) */
  nw = emax == LONG_MIN ? 1 : (size_t) ((emax - emin + num_prec () + 64) / (num_prec () - 1)) + 3;
  num_t u;
  NUM_INIT (u);
  v = num_vec_new (n + nw + 1);
  c = num_vec_new (n + nw + 1);
  d = num_vec_new (n);
  if (!v || !c || !d)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t j = 0; j < n; j++)
    {
      if (weights && weights[j] == 0)
        num_set_zero (AT (v, j));               /* no part in S nor in the squares */
      else
        num_mul_2si (AT (v, j), AT (x, j), -k);
      num_set_si (AT (c, j), weights ? weights[j] : 1);
    }
  /* the words of S = sum w x: w_t = o(S - w_0 - ... - w_(t-1)) */
  for (T = 0; T < nw; T++)
    {
      num_set_si (AT (c, n + T), -1);
      TRY (num_dot (AT (v, n + T), v, c, n + T));
      if (num_is_zero (AT (v, n + T)))
        break;
    }
  /* d_j = W x_j - S, rounded once */
  for (size_t j = 0; j < n; j++)
    {
      /* the slot after the words holds x_j, with coefficient W */
      num_set (AT (v, n + T), AT (v, j));
      num_set_si (AT (c, n + T), W);
      TRY (num_dot (AT (d, j), AT (v, n), AT (c, n), T + 1));
    }
  /* sum w d^2 / (W^2 (W - ddof)) 2^2k */
  for (size_t j = 0; j < n; j++)
    num_mul_si (AT (c, j), AT (d, j), weights ? weights[j] : 1);
  TRY (num_dot (u, c, d, n));
  num_div_si (u, u, W);
  num_div_si (u, u, W);
  num_div_si (u, u, W - ddof);
  num_mul_2si (u, u, 2 * k);
  if (!isfinite (num_get_d (u)))
    FAIL ("the variance lies beyond the binary64 range", RLREF_ERANGE);
  num_set (var, u);
done:
  num_vec_free (v, n + nw + 1);
  num_vec_free (c, n + nw + 1);
  num_vec_free (d, n);
  NUM_CLEAR (u);
  return status;
}

/* Values finite, weights non-negative with a positive sum of at most
 * 2^31, G >= 2. */
static int
check_draws (num_srcptr values, const long *weights, size_t K, long G, long *W)
{
  *W = 0;
  if (!values || !weights || K == 0)
    RLREF_ERROR ("no values", RLREF_EINVAL);
  for (size_t j = 0; j < K; j++)
    {
      CHECK_FINITE (AT (values, j));
      if (weights[j] < 0 || weights[j] > (1L << 31) - *W)
        RLREF_ERROR ("weights must be non-negative, summing to at most 2^31", RLREF_EDOM);
      *W += weights[j];
    }
  if (*W == 0)
    RLREF_ERROR ("the weights sum to 0", RLREF_EDOM);
  if (G < 2)
    RLREF_ERROR ("G must be at least 2", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* GRPO-VAR (13.28'): sigma^2 = sum w (v - mu)^2 / W; Var[mean] = sigma^2/G,
 * Var[b_loo] = sigma^2/(G - 1), and sigma^2/G - sigma^2/(2G) = sigma^2/(2G)
 * removed by doubling G. */
int
FN (baseline_var) (num_ptr sigma2, num_ptr var_mean, num_ptr var_loo, num_ptr removed,
                   num_srcptr values, const long *weights, size_t K, long G)
{
  long W;
  int status = check_draws (values, weights, K, G, &W);
  if (status)
    return status;
  num_t s;
  NUM_INIT (s);
  TRY (weighted_var (s, values, weights, K, 0));
  if (var_mean)
    num_div_si (var_mean, s, G);
  if (var_loo)
    num_div_si (var_loo, s, G - 1);
  if (removed)
    {
      num_div_si (removed, s, G);
      num_mul_2si (removed, removed, -1);
    }
  if (sigma2)
    num_set (sigma2, s);
done:
  NUM_CLEAR (s);
  return status;
}

/* GRPO-VAR, Monte Carlo: per trial, G draws (the first j with k W < C_j
 * 2^32), S = their sum and S' = the sum of all but the first, on the
 * values scaled by 2^-k (k the exponent of the largest that can be drawn,
 * of weight > 0: no sum
 * overflows); var_mean = Var(S)/G^2, var_loo = Var(S')/(G - 1)^2 (sample
 * variances, ddof 1), times 2^2k. */
int
FN (baseline_var_mc) (num_ptr var_mean, num_ptr var_loo, num_srcptr values, const long *weights,
                      size_t K, long G, long trials, unsigned long seed)
{
  long W, k;
  uint64_t *cum = NULL;
  num_ptr s = NULL, s1 = NULL, d = NULL;
  gsl_rng *rng = NULL;
  int status = check_draws (values, weights, K, G, &W);
  if (status)
    return status;
  if (trials < 2 || trials > RLREF_VAR_MC_MAX / G)
    RLREF_ERROR ("trials must be at least 2, trials x G at most 1e7", RLREF_EDOM);
  if (seed > 0xffffffffUL)
    RLREF_ERROR ("seed must be 0 to 2^32 - 1", RLREF_EDOM);
  num_t a, b;
  NUM_INIT (a, b);
  /* the exponent of the largest value that can be drawn (weight > 0) */
  k = LONG_MIN;
  for (size_t j = 0; j < K; j++)
    if (weights[j] > 0 && !num_is_zero (AT (values, j)) && num_get_exp (AT (values, j)) > k)
      k = num_get_exp (AT (values, j));
  k = k == LONG_MIN ? 0 : k;
  cum = malloc (K * sizeof *cum);
  s = num_vec_new ((size_t) trials);
  s1 = num_vec_new ((size_t) trials);
  d = num_vec_new ((size_t) G);
  rng = gsl_rng_alloc (gsl_rng_mt19937);
  if (!cum || !s || !s1 || !d || !rng)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t j = 0; j < K; j++)
    cum[j] = (uint64_t) weights[j] + (j ? cum[j - 1] : 0);
  gsl_rng_set (rng, seed);
  for (long n = 0; n < trials; n++)
    {
      for (long i = 0; i < G; i++)
        {
          uint64_t u = (uint64_t) gsl_rng_get (rng) * (uint64_t) W;
          size_t j = 0;
          while (j + 1 < K && u >= cum[j] << 32)
            j++;
          num_mul_2si (AT (d, i), AT (values, j), -k);
        }
      TRY (num_sum (AT (s, n), d, (size_t) G));
      TRY (num_sum (AT (s1, n), AT (d, 1), (size_t) G - 1));
    }
  TRY (weighted_var (a, s, NULL, (size_t) trials, 1));
  TRY (weighted_var (b, s1, NULL, (size_t) trials, 1));
  num_div_si (a, a, G);
  num_div_si (a, a, G);
  num_div_si (b, b, G - 1);
  num_div_si (b, b, G - 1);
  num_mul_2si (a, a, 2 * k);
  num_mul_2si (b, b, 2 * k);
  if (!isfinite (num_get_d (a)) || !isfinite (num_get_d (b)))
    FAIL ("the variance lies beyond the binary64 range", RLREF_ERANGE);
  num_set (var_mean, a);
  num_set (var_loo, b);
done:
  if (rng)
    gsl_rng_free (rng);
  free (cum);
  num_vec_free (s, (size_t) trials);
  num_vec_free (s1, (size_t) trials);
  num_vec_free (d, (size_t) G);
  NUM_CLEAR (a, b);
  return status;
}

/* GRPO-STDBIAS (000 section 11): the coefficients c_k = A+(k + 1) - A-(k),
 * k = 0..G-1, from the advantages of the groups [1 x K, 0 x (G - K)]
 * (grpo_adv under c, or rloo_adv for c = NULL), and weight = G B(p), B the
 * Bernstein polynomial sum_k C(G-1, k) p^k (1-p)^(G-1-k) c_k by de
 * Casteljau's algorithm, b_k <- b_k + p (b_(k+1) - b_k). */
int
FN (stdbias_weight) (num_ptr weight, num_ptr per_sample, num_srcptr p, long G,
                     const rlref_adv_convention *c)
{
  num_ptr grp = NULL, adv = NULL, ap = NULL, am = NULL;
  int status = RLREF_SUCCESS;
  CHECK_FINITE (p);
  if (num_sgn (p) < 0 || num_cmp_d (p, 1.0) > 0)
    RLREF_ERROR ("p must lie in [0, 1]", RLREF_EDOM);
  if (G < 2 || G > RLREF_STDBIAS_MAX_G)
    RLREF_ERROR ("G must be 2 to 1024", RLREF_EDOM);
  num_t t, pp;
  NUM_INIT (t, pp);
  num_set (pp, p);
  grp = num_vec_new ((size_t) G);
  adv = num_vec_new ((size_t) G);
  ap = num_vec_new ((size_t) G + 1);
  am = num_vec_new ((size_t) G + 1);
  if (!grp || !adv || !ap || !am)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (long K = 0; K <= G; K++)
    {
      for (long i = 0; i < G; i++)
        num_set_si (AT (grp, i), i < K ? 1 : 0);
      if (c)
        TRY (FN (grpo_adv) (adv, grp, (size_t) G, (size_t) G, c));
      else
        TRY (FN (rloo_adv) (adv, grp, (size_t) G, (size_t) G, RLREF_RLOO_SEED));
      num_set (AT (ap, K), adv);                     /* a success (K >= 1) */
      num_set (AT (am, K), AT (adv, G - 1));         /* a failure (K <= G - 1) */
    }
  /* b_k = c_k, k = 0..G-1 (in grp), then G - 1 rounds of de Casteljau */
  for (long k = 0; k < G; k++)
    num_sub (AT (grp, k), AT (ap, k + 1), AT (am, k));
  for (long r = G - 1; r > 0; r--)
    for (long k = 0; k < r; k++)
      {
        num_sub (t, AT (grp, k + 1), AT (grp, k));
        num_fma (AT (grp, k), pp, t, AT (grp, k));
      }
  num_set (per_sample, grp);
  num_mul_si (weight, grp, G);
done:
  num_vec_free (grp, (size_t) G);
  num_vec_free (adv, (size_t) G);
  num_vec_free (ap, (size_t) G + 1);
  num_vec_free (am, (size_t) G + 1);
  NUM_CLEAR (t, pp);
  return status;
}
