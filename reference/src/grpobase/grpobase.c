/* grpobase.c -- GRPO baselines, written once for both backends: the bound
 * and the scale of the group advantage (seed 000 section 5, seed 001), the
 * leave-one-out advantage of RLOO (13.28) under the conventions of TRL and
 * verl, its identity with the group-mean baseline, TRL's k1-shaped reward
 * and sequence-level ratio, and ReMax (seed 004; verl).
 *
 * Exact numerators.  Every leave-one-out or centred value is
 * (c r_i - S)/d with S the sum of the group: S is taken exactly as words
 * w_0 + w_1 + ... (w_0 = S rounded once, each next word the remainder
 * rounded once, until it is 0), and c r_i - S as one num_dot of (r_i, w_0,
 * w_1, ...) with (c, -1, -1, ...), rounded once; the rewards are first
 * multiplied by 2^-k, k the binary exponent of the largest, so that no sum
 * overflows, and the result multiplied back.  Equal rewards give exactly
 * 0, and small rewards beside large ones keep their bits.
 *
 * Every function computes into temporaries and writes its outputs last, so
 * an output may share storage with an input (reference/README.md,
 * Aliasing). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/grpobase.h"
#include "flow.h"
#include "scale.h"

/* An exact group sum: buf holds the m values summed, then the negated
 * words of their sum (T of them); coef and t serve numerator. */
typedef struct
{
  num_ptr buf, coef, t;
  size_t n, W, m, T;
} exact_sum;

/* Room for n values and W words. */
static int
exact_sum_new (exact_sum *s, size_t n, size_t W)
{
  s->n = n;
  s->W = W;
  s->m = s->T = 0;
  s->buf = num_vec_new (n + W);
  s->coef = num_vec_new (W + 1);
  s->t = num_vec_new (W + 1);
  if (!s->buf || !s->coef || !s->t)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  return RLREF_SUCCESS;
}

static void
exact_sum_free (exact_sum *s)
{
  num_vec_free (s->buf, s->n + s->W);
  num_vec_free (s->coef, s->W + 1);
  num_vec_free (s->t, s->W + 1);
}

/* The words of S = sum of the first m <= n values of s->buf: w_0 = o(S),
 * w_(t+1) = o(S - w_0 - ... - w_t), until the remainder is 0; each one
 * num_sum of the values and the negated words before it, stored after
 * the values. */
static int
sum_words (exact_sum *s, size_t m)
{
  int status = RLREF_SUCCESS;
  s->m = m;
  s->T = 0;
  for (size_t t = 0; t < s->W; t++)
    {
      num_ptr w = AT (s->buf, m + t);
      status = num_sum (w, s->buf, m + t);
      if (status || num_is_zero (w))
        break;
      num_neg (w, w);
      s->T = t + 1;
    }
  return status;
}

/* r = c x - S, rounded once (S = the words of sum_words, x a value):
 * num_dot of (x, -w_0, -w_1, ...) with (c, 1, 1, ...). */
static int
numerator (num_ptr r, exact_sum *s, num_srcptr x, num_srcptr c)
{
  num_set (AT (s->t, 0), x);
  num_set (AT (s->coef, 0), c);
  for (size_t u = 0; u < s->T; u++)
    {
      num_set (AT (s->t, u + 1), AT (s->buf, s->m + u));
      num_set_si (AT (s->coef, u + 1), 1);
    }
  return num_dot (r, s->t, s->coef, s->T + 1);
}

/* The binary exponent of the largest finite |x_i| (0 when there is none). */
static long
finite_exponent (num_srcptr x, size_t n)
{
  long e = LONG_MIN;
  for (size_t i = 0; i < n; i++)
    if (num_is_finite (AT (x, i)) && !num_is_zero (AT (x, i)) && num_get_exp (AT (x, i)) > e)
      e = num_get_exp (AT (x, i));
  return e == LONG_MIN ? 0 : e;
}

/* The leave-one-out (and centred) numerators of one group x[0..G-1],
 * skipping NaN when skip_nan: t_i = c x_i - S (c the count of the values
 * summed), each scaled by 2^-k; *c gets the count, *k the exponent. */
static int
loo_numerators (num_ptr t, long *c, long *k, num_srcptr x, size_t G, int skip_nan,
                exact_sum *s)
{
  size_t m = 0;
  int status = RLREF_SUCCESS;
  num_t cc;
  NUM_INIT (cc);
  *k = finite_exponent (x, G);
  for (size_t j = 0; j < G; j++)
    if (!skip_nan || !num_is_nan (AT (x, j)))
      num_mul_2si (AT (s->buf, m++), AT (x, j), -*k);
  TRY (sum_words (s, m));
  *c = (long) m;
  num_set_si (cc, (long) m);
  for (size_t j = 0; j < G; j++)
    {
      if (skip_nan && num_is_nan (AT (x, j)))
        {
          num_set_nan (AT (t, j));
          continue;
        }
      num_mul_2si (AT (t, j), AT (x, j), -*k);
      TRY (numerator (AT (t, j), s, AT (t, j), cc));
    }
done:
  NUM_CLEAR (cc);
  return status;
}

/* Rewards: NaN allowed only when allow_nan; infinities never. */
static int
check_rewards (num_srcptr r, size_t n, int allow_nan)
{
  for (size_t i = 0; i < n; i++)
    if (num_is_inf (AT (r, i)) || (!allow_nan && num_is_nan (AT (r, i))))
      RLREF_ERROR ("a reward is NaN or infinite", RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* N rewards in whole groups of G > 0. */
static int
check_groups (num_srcptr r, size_t N, size_t G)
{
  if (!r || N == 0 || G == 0 || N % G)
    RLREF_ERROR ("the rewards do not make whole groups of group_size", RLREF_EINVAL);
  return RLREF_SUCCESS;
}

/* Every mask element 0 or 1. */
static int
check_mask (const long *mask, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (mask[i] != 0 && mask[i] != 1)
      RLREF_ERROR ("a mask element is neither 0 nor 1", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* The std of one group (ddof), from the centred numerators t_i = G r_i - S
 * (scaled by 2^-k): sqrt(sum t_i^2 / (G^2 (G - ddof))) 2^k. */
static int
group_std (num_ptr sd, num_srcptr t, size_t G, int ddof, long k)
{
  int status = num_dot (sd, t, t, G);
  if (status)
    return status;
  num_div_si (sd, sd, (long) (G - (size_t) ddof));
  num_sqrt (sd, sd);
  num_div_si (sd, sd, (long) G);
  num_mul_2si (sd, sd, k);
  return RLREF_SUCCESS;
}

/* GRPO-ADV-BOUND: A_i = (r_i - mean)/std = t_i/(G std 2^-k); max |A_i| over
 * the group; bound sqrt(G - 1) or (G - 1)/sqrt(G) (Samuelson). */
int
FN (grpo_adv_bound) (num_ptr max_abs, num_ptr bound, num_srcptr rewards, size_t G, int ddof)
{
  exact_sum s = { 0 };
  num_ptr t = NULL;
  long c, k;
  int status = check_groups (rewards, G, G);
  if (status || (status = check_rewards (rewards, G, 0)))
    return status;
  if (ddof < 0 || (size_t) ddof >= G)
    RLREF_ERROR ("G - ddof must be positive", RLREF_EDOM);
  num_t sd, m, a;
  NUM_INIT (sd, m, a);
  t = num_vec_new (G);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (exact_sum_new (&s, G, FN (words_bound) (rewards, G)));
  TRY (loo_numerators (t, &c, &k, rewards, G, 0, &s));
  TRY (group_std (sd, t, G, ddof, 0));
  num_set_zero (m);
  for (size_t i = 0; !num_is_zero (sd) && i < G; i++)
    {
      num_abs (a, AT (t, i));
      num_max (m, m, a);
    }
  if (!num_is_zero (sd))
    {
      num_div (m, m, sd);
      num_div_si (m, m, (long) G);
    }
  num_set_si (a, (long) G);
  num_sqrt (a, a);
  if (ddof == 0)
    {
      num_set_si (bound, (long) G - 1);
      num_sqrt (bound, bound);
    }
  else
    {
      num_set_si (bound, (long) G - 1);
      num_div (bound, bound, a);
    }
  num_set (max_abs, m);
done:
  num_vec_free (t, G);
  exact_sum_free (&s);
  NUM_CLEAR (sd, m, a);
  return status;
}

/* GRPO-ADV-SCALE: A_i = (r_i - mean)/(sigma + eps) and std_adv = the std
 * of the A_i (mean 0 exactly), which is ratio = sigma/(sigma + eps).  On
 * the rewards scaled by 2^-k, the numerators t_i = G r_i - S give sigma =
 * s 2^k, s = sqrt(sum t_i^2/(G - ddof))/G; with k' = max(k, e - 1000), e
 * the exponent of eps, eps' = eps 2^-k' <= 2^1000 and s' = s 2^(k - k'):
 * ratio = s'/(s' + eps') and A_i = (t_i/G)/(s' + eps') 2^(k - k'), their
 * std formed on A_i 2^(k' - k + j) (2^j the binary order of s' + eps'), so
 * nothing overflows for rewards near DBL_MAX, nor eps' or the squares of
 * the A_i for subnormal rewards. */
int
FN (grpo_adv_scale) (num_ptr std_adv, num_ptr ratio, num_srcptr rewards, size_t G, int ddof,
                     num_srcptr eps)
{
  exact_sum s = { 0 };
  num_ptr t = NULL;
  long c, k, k2, j;
  int status = check_groups (rewards, G, G);
  if (status || (status = check_rewards (rewards, G, 0)))
    return status;
  CHECK_FINITE (eps);
  if (num_sgn (eps) <= 0)
    RLREF_ERROR ("eps must be positive", RLREF_EDOM);
  if (ddof < 0 || (size_t) ddof >= G)
    RLREF_ERROR ("G - ddof must be positive", RLREF_EDOM);
  num_t sd, den, e, sa, r;
  NUM_INIT (sd, den, e, sa, r);
  t = num_vec_new (G);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (exact_sum_new (&s, G, FN (words_bound) (rewards, G)));
  TRY (loo_numerators (t, &c, &k, rewards, G, 0, &s));
  TRY (group_std (sd, t, G, ddof, 0));
  k2 = num_get_exp (eps) - 1000 > k ? num_get_exp (eps) - 1000 : k;
  num_mul_2si (sd, sd, k - k2);
  num_mul_2si (e, eps, -k2);
  num_add (den, sd, e);
  num_div (r, sd, den);
  /* the advantages times 2^(k2 - k + j), den = d 2^j with 1/2 <= d < 1 */
  j = num_get_exp (den);
  num_mul_2si (den, den, -j);
  for (size_t i = 0; i < G; i++)
    {
      num_div_si (AT (t, i), AT (t, i), (long) G);
      num_div (AT (t, i), AT (t, i), den);
    }
  TRY (num_dot (sa, t, t, G));
  num_div_si (sa, sa, (long) (G - (size_t) ddof));
  num_sqrt (sa, sa);
  num_mul_2si (sa, sa, k - k2 - j);
  num_set (std_adv, sa);
  num_set (ratio, r);
done:
  num_vec_free (t, G);
  exact_sum_free (&s);
  NUM_CLEAR (sd, den, e, sa, r);
  return status;
}

/* GRPO-RLOO (13.28): per group, A_i = (c r_i - S)/(c - 1), c the count of
 * the rewards summed (TRL: the scorable ones).  A group of one (TRL: one
 * scorable reward or none) is refused (seed, OpenRLHF), keeps A = r (verl)
 * or gives 0 (TRL, verl rloo_vectorized); a NaN reward gives 0 (TRL);
 * OpenRLHF clamps A to [-10, 10]. */
int
FN (rloo_adv) (num_ptr adv, num_srcptr rewards, size_t N, size_t G,
               enum rlref_rloo_convention conv)
{
  exact_sum s = { 0 };
  num_ptr t = NULL;
  int trl = conv == RLREF_RLOO_TRL;
  int status = check_groups (rewards, N, G);
  if (status || (status = check_rewards (rewards, N, trl)))
    return status;
  if ((conv == RLREF_RLOO_SEED || conv == RLREF_RLOO_OPENRLHF) && G < 2)
    RLREF_ERROR ("a group of one has no leave-one-out baseline", RLREF_EDOM);
  t = num_vec_new (N);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (exact_sum_new (&s, G, FN (words_bound) (rewards, N)));
  for (size_t g = 0; g < N; g += G)
    {
      long c, k;
      TRY (loo_numerators (AT (t, g), &c, &k, AT (rewards, g), G, trl, &s));
      for (size_t i = g; i < g + G; i++)
        {
          if (num_is_nan (AT (t, i)))
            num_set_zero (AT (t, i));
          else if (c < 2)
            {
              if (conv == RLREF_RLOO_VERL)
                num_set (AT (t, i), AT (rewards, i));
              else
                num_set_zero (AT (t, i));
            }
          else
            {
              num_div_si (AT (t, i), AT (t, i), c - 1);
              num_mul_2si (AT (t, i), AT (t, i), k);
              if (conv == RLREF_RLOO_OPENRLHF)
                {
                  /* compute_reward's r.clamp(-10, 10), after the baseline */
                  if (num_cmp_d (AT (t, i), RLREF_RLOO_OPENRLHF_CLIP) > 0)
                    num_set_d (AT (t, i), RLREF_RLOO_OPENRLHF_CLIP);
                  else if (num_cmp_d (AT (t, i), -RLREF_RLOO_OPENRLHF_CLIP) < 0)
                    num_set_d (AT (t, i), -RLREF_RLOO_OPENRLHF_CLIP);
                }
            }
        }
    }
  for (size_t i = 0; i < N; i++)
    {
      num_set (AT (adv, i), AT (t, i));
      if (!isfinite (num_get_d (AT (adv, i))))
        status = RANGE_ERROR ();
    }
done:
  num_vec_free (t, N);
  exact_sum_free (&s);
  return status;
}

/* GRPO-RLOO, TRL to 0.19: the N = G P rewards laid out sample-major,
 * response j of prompt q at j P + q (reshape(rloo_k, -1)); 13.28 within
 * each prompt's G responses (gathered, rloo_adv, scattered back). */
int
FN (rloo_adv_strided) (num_ptr adv, num_srcptr rewards, size_t N, size_t G)
{
  num_ptr g = NULL;
  size_t P;
  int status = check_groups (rewards, N, G);
  if (status)
    return status;
  P = N / G;
  g = num_vec_new (N);
  if (!g)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t q = 0; q < P; q++)
    for (size_t j = 0; j < G; j++)
      num_set (AT (g, q * G + j), AT (rewards, j * P + q));
  TRY (FN (rloo_adv) (g, g, N, G, RLREF_RLOO_SEED));
  for (size_t q = 0; q < P; q++)
    for (size_t j = 0; j < G; j++)
      num_set (AT (adv, j * P + q), AT (g, q * G + j));
done:
  num_vec_free (g, N);
  return status;
}

/* GRPO-RLOO, 000 section 5: t_i = G r_i - S once; loo = t_i/(G - 1),
 * centered = t_i/G, so centered = ((G - 1)/G) loo. */
int
FN (rloo_identity) (num_ptr loo, num_ptr centered, num_ptr scale, num_srcptr rewards, size_t N,
                    size_t G)
{
  exact_sum s = { 0 };
  num_ptr t = NULL, u = NULL;
  int status = check_groups (rewards, N, G);
  if (status || (status = check_rewards (rewards, N, 0)))
    return status;
  if (G < 2)
    RLREF_ERROR ("a group of one has no leave-one-out baseline", RLREF_EDOM);
  t = num_vec_new (N);
  u = num_vec_new (N);
  if (!t || !u)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (exact_sum_new (&s, G, FN (words_bound) (rewards, N)));
  for (size_t g = 0; g < N; g += G)
    {
      long c, k;
      TRY (loo_numerators (AT (t, g), &c, &k, AT (rewards, g), G, 0, &s));
      for (size_t i = g; i < g + G; i++)
        {
          num_div_si (AT (u, i), AT (t, i), (long) G);
          num_mul_2si (AT (u, i), AT (u, i), k);
          num_div_si (AT (t, i), AT (t, i), (long) G - 1);
          num_mul_2si (AT (t, i), AT (t, i), k);
        }
    }
  for (size_t i = 0; i < N; i++)
    {
      num_set (AT (loo, i), AT (t, i));
      num_set (AT (centered, i), AT (u, i));
      if (!isfinite (num_get_d (AT (loo, i))) || !isfinite (num_get_d (AT (centered, i))))
        status = RANGE_ERROR ();
    }
  num_set_si (scale, (long) G - 1);
  num_div_si (scale, scale, (long) G);
done:
  num_vec_free (t, N);
  num_vec_free (u, N);
  exact_sum_free (&s);
  return status;
}

/* sum_t mask_t (a_t - b_t) over one row of L, rounded once (num_sum of the
 * 2L terms a_t, -b_t where the mask is 1). */
static int
masked_diff_sum (num_ptr r, num_srcptr a, num_srcptr b, const long *mask, size_t L, num_ptr w)
{
  size_t m = 0;
  for (size_t t = 0; t < L; t++)
    if (mask[t])
      {
        num_set (AT (w, m++), AT (a, t));
        num_neg (AT (w, m++), AT (b, t));
      }
  return num_sum (r, w, m);
}

/* GRPO-RLOO, the KL penalty in the reward: penalty_i = beta sum_t mask
 * (logp_old - logp_ref) (k1 summed over the sequence), the shaped reward
 * r_i - penalty_i (rounded once; under TRL a NaN reward stays NaN), and
 * the leave-one-out advantage of the shaped rewards under conv. */
int
FN (rloo_kl_reward) (num_ptr penalty, num_ptr adv, num_srcptr rewards, num_srcptr logp_old,
                     num_srcptr logp_ref, const long *mask, size_t N, size_t L, size_t G,
                     num_srcptr beta, enum rlref_rloo_convention conv)
{
  num_ptr sh = NULL, pen = NULL, w = NULL;
  int status = check_groups (rewards, N, G);
  if (status || (status = check_rewards (rewards, N, conv == RLREF_RLOO_TRL)))
    return status;
  if (!logp_old || !logp_ref || !mask || L == 0)
    RLREF_ERROR ("no log-probabilities", RLREF_EINVAL);
  CHECK_FINITE (beta);
  for (size_t j = 0; j < N * L; j++)
    if (!num_is_finite (AT (logp_old, j)) || !num_is_finite (AT (logp_ref, j)))
      RLREF_ERROR ("a log-probability is not finite", RLREF_ENAN);
  if ((status = check_mask (mask, N * L)))
    return status;
  num_t kl;
  NUM_INIT (kl);
  sh = num_vec_new (N);
  pen = num_vec_new (N);
  w = num_vec_new (2 * L);
  if (!sh || !pen || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < N; i++)
    {
      TRY (masked_diff_sum (kl, AT (logp_old, i * L), AT (logp_ref, i * L), mask + i * L, L, w));
      num_mul (AT (pen, i), beta, kl);
      /* r - beta kl, rounded once */
      num_neg (kl, kl);
      num_fma (AT (sh, i), beta, kl, AT (rewards, i));
      if (!isfinite (num_get_d (AT (pen, i)))
          || (!num_is_nan (AT (sh, i)) && !isfinite (num_get_d (AT (sh, i)))))
        FAIL ("the shaped reward lies beyond the binary64 range", RLREF_ERANGE);
    }
  TRY (FN (rloo_adv) (adv, sh, N, G, conv));
  for (size_t i = 0; i < N; i++)
    num_set (AT (penalty, i), AT (pen, i));
done:
  num_vec_free (sh, N);
  num_vec_free (pen, N);
  num_vec_free (w, 2 * L);
  NUM_CLEAR (kl);
  return status;
}

/* clamp r to [-c, c] */
static void
clamp_abs (num_ptr r, double c)
{
  if (num_cmp_d (r, c) > 0)
    num_set_d (r, c);
  else if (num_cmp_d (r, -c) < 0)
    num_set_d (r, -c);
}

/* GRPO-RLOO, OpenRLHF: adv_i = clamp(loo_i, +-10) - penalty_i, penalty_i =
 * beta sum_t mask clamp(logp_old - logp_ref, +-10): the baseline is taken
 * of the raw rewards (experience_maker.py), the per-token KL reward added
 * after it (compute_reward); the sum of the k1 exact, rounded once. */
int
FN (rloo_kl_reward_after_baseline) (num_ptr penalty, num_ptr adv, num_srcptr rewards,
                                    num_srcptr logp_old, num_srcptr logp_ref, const long *mask,
                                    size_t N, size_t L, size_t G, num_srcptr beta)
{
  num_ptr loo = NULL, k = NULL;
  int status = check_groups (rewards, N, G);
  if (status || (status = check_rewards (rewards, N, 0)))
    return status;
  if (!logp_old || !logp_ref || !mask || L == 0)
    RLREF_ERROR ("no log-probabilities", RLREF_EINVAL);
  CHECK_FINITE (beta);
  for (size_t j = 0; j < N * L; j++)
    if (!num_is_finite (AT (logp_old, j)) || !num_is_finite (AT (logp_ref, j)))
      RLREF_ERROR ("a log-probability is not finite", RLREF_ENAN);
  if ((status = check_mask (mask, N * L)))
    return status;
  num_t kl, pen;
  NUM_INIT (kl, pen);
  loo = num_vec_new (N);
  k = num_vec_new (2 * L);
  if (!loo || !k)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (FN (rloo_adv) (loo, rewards, N, G, RLREF_RLOO_OPENRLHF));
  for (size_t i = 0; i < N; i++)
    {
      size_t m = 0;
      for (size_t t = 0; t < L; t++)
        if (mask[i * L + t])
          {
            num_srcptr a = AT (logp_old, i * L + t), b = AT (logp_ref, i * L + t);
            num_sub (pen, a, b);
            if (num_cmp_d (pen, RLREF_RLOO_OPENRLHF_KL_CLIP) >= 0
                || num_cmp_d (pen, -RLREF_RLOO_OPENRLHF_KL_CLIP) <= 0)
              {
                clamp_abs (pen, RLREF_RLOO_OPENRLHF_KL_CLIP);
                num_set (AT (k, m++), pen);
              }
            else
              {
                /* inside the clamp: a and -b summed exactly */
                num_set (AT (k, m++), a);
                num_neg (AT (k, m++), b);
              }
          }
      TRY (num_sum (kl, k, m));
      num_mul (pen, beta, kl);
      /* clamp(loo) - beta kl, rounded once */
      num_neg (kl, kl);
      num_fma (AT (adv, i), beta, kl, AT (loo, i));
      num_set (AT (penalty, i), pen);
      if (!isfinite (num_get_d (pen)) || !isfinite (num_get_d (AT (adv, i))))
        FAIL ("the penalty lies beyond the binary64 range", RLREF_ERANGE);
    }
done:
  num_vec_free (loo, N);
  num_vec_free (k, 2 * L);
  NUM_CLEAR (kl, pen);
  return status;
}

/* The inputs of a clipped loss of N sequences of L tokens: finite
 * log-probabilities and advantages, a 0/1 mask, 0 <= eps_low < 1 and
 * eps_high >= 0. */
static int
check_loss_inputs (num_srcptr logp, num_srcptr logp_old, const long *mask, num_srcptr adv,
                   size_t N, size_t L, num_srcptr eps_low, num_srcptr eps_high)
{
  if (!logp || !logp_old || !mask || !adv || N == 0 || L == 0)
    RLREF_ERROR ("no sequences", RLREF_EINVAL);
  CHECK_FINITE (eps_low);
  CHECK_FINITE (eps_high);
  if (num_sgn (eps_low) < 0 || num_cmp_d (eps_low, 1.0) >= 0 || num_sgn (eps_high) < 0)
    RLREF_ERROR ("need 0 <= eps_low < 1 and eps_high >= 0", RLREF_EDOM);
  for (size_t j = 0; j < N * L; j++)
    if (!num_is_finite (AT (logp, j)) || !num_is_finite (AT (logp_old, j)))
      RLREF_ERROR ("a log-probability is not finite", RLREF_ENAN);
  for (size_t i = 0; i < N; i++)
    CHECK_FINITE (AT (adv, i));
  return check_mask (mask, N * L);
}

/* GRPO-RLOO, TRL's loss: rho_i = exp(sum_t mask (logp - logp_old)),
 * seq_loss_i = -min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A), loss =
 * their mean (exact sum, rounded once). */
int
FN (rloo_seq_loss) (num_ptr loss, num_ptr ratio, num_ptr seq_loss, num_srcptr logp,
                    num_srcptr logp_old, const long *mask, num_srcptr adv, size_t N, size_t L,
                    num_srcptr eps_low, num_srcptr eps_high)
{
  num_ptr rho = NULL, per = NULL, w = NULL;
  int status = RLREF_SUCCESS;
  if ((status = check_loss_inputs (logp, logp_old, mask, adv, N, L, eps_low, eps_high)))
    return status;
  num_t lo, hi, c, a, b, m;
  NUM_INIT (lo, hi, c, a, b, m);
  rho = num_vec_new (N);
  per = num_vec_new (N);
  w = num_vec_new (2 * L);
  if (!rho || !per || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_d_sub (lo, 1.0, eps_low);
  num_add_d (hi, eps_high, 1.0);
  for (size_t i = 0; i < N; i++)
    {
      TRY (masked_diff_sum (AT (rho, i), AT (logp, i * L), AT (logp_old, i * L), mask + i * L, L,
                            w));
      num_exp (AT (rho, i), AT (rho, i));
      if (!isfinite (num_get_d (AT (rho, i))))
        FAIL ("the sequence ratio lies beyond the floating-point range", RLREF_ERANGE);
      num_max (c, AT (rho, i), lo);
      num_min (c, c, hi);
      num_mul (a, AT (rho, i), AT (adv, i));
      num_mul (b, c, AT (adv, i));
      num_min (m, a, b);
      num_neg (AT (per, i), m);
    }
  TRY (num_sum (m, per, N));
  num_div_si (m, m, (long) N);
  for (size_t i = 0; i < N; i++)
    {
      num_set (AT (ratio, i), AT (rho, i));
      num_set (AT (seq_loss, i), AT (per, i));
    }
  num_set (loss, m);
done:
  num_vec_free (rho, N);
  num_vec_free (per, N);
  num_vec_free (w, 2 * L);
  NUM_CLEAR (lo, hi, c, a, b, m);
  return status;
}

/* GRPO-RLOO, OpenRLHF's loss (PolicyLoss, token level): rho_t =
 * exp(clamp(logp - logp_old, +-20)), l_t = -min(rho_t A_i, clip(rho_t, 1 -
 * eps_low, 1 + eps_high) A_i), loss = the mean of l_t over the masked
 * tokens (exact sum, rounded once). */
int
FN (rloo_token_loss) (num_ptr loss, num_srcptr logp, num_srcptr logp_old, const long *mask,
                      num_srcptr adv, size_t N, size_t L, num_srcptr eps_low, num_srcptr eps_high)
{
  num_ptr per = NULL;
  size_t n_tok = 0, m = 0;
  int status = RLREF_SUCCESS;
  if ((status = check_loss_inputs (logp, logp_old, mask, adv, N, L, eps_low, eps_high)))
    return status;
  for (size_t j = 0; j < N * L; j++)
    n_tok += mask[j] != 0;
  if (n_tok == 0)
    RLREF_ERROR ("the mask holds no token", RLREF_EDOM);
  num_t lo, hi, rho, c, a, b;
  NUM_INIT (lo, hi, rho, c, a, b);
  per = num_vec_new (n_tok);
  if (!per)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_d_sub (lo, 1.0, eps_low);
  num_add_d (hi, eps_high, 1.0);
  for (size_t i = 0; i < N; i++)
    for (size_t t = 0; t < L; t++)
      if (mask[i * L + t])
        {
          num_sub (rho, AT (logp, i * L + t), AT (logp_old, i * L + t));
          clamp_abs (rho, RLREF_RLOO_OPENRLHF_LOG_RATIO_CLIP);
          num_exp (rho, rho);
          num_max (c, rho, lo);
          num_min (c, c, hi);
          num_mul (a, rho, AT (adv, i));
          num_mul (b, c, AT (adv, i));
          num_min (a, a, b);
          num_neg (AT (per, m), a);
          m++;
        }
  TRY (num_sum (a, per, m));
  num_div_si (loss, a, (long) m);
  if (!isfinite (num_get_d (loss)))
    FAIL ("the loss lies beyond the binary64 range", RLREF_ERANGE);
done:
  num_vec_free (per, n_tok);
  NUM_CLEAR (lo, hi, rho, c, a, b);
  return status;
}

/* GRPO-REMAX, verl: returns_t = sum_{t' >= t} mask r (the tail of each row
 * summed exactly, rounded once), adv_t = returns_t - b mask_t. */
int
FN (remax_adv) (num_ptr adv, num_ptr returns, num_srcptr token_rewards, const long *mask,
                num_srcptr baselines, size_t B, size_t L)
{
  num_ptr ret = NULL, ad = NULL, w = NULL;
  int status = RLREF_SUCCESS;
  if (!token_rewards || !mask || !baselines || B == 0 || L == 0)
    RLREF_ERROR ("no rewards", RLREF_EINVAL);
  if (L > RLREF_REMAX_MAX_L)
    RLREF_ERROR ("a row holds at most 4096 tokens", RLREF_EINVAL);
  for (size_t j = 0; j < B * L; j++)
    CHECK_FINITE (AT (token_rewards, j));
  for (size_t i = 0; i < B; i++)
    CHECK_FINITE (AT (baselines, i));
  if ((status = check_mask (mask, B * L)))
    return status;
  ret = num_vec_new (B * L);
  ad = num_vec_new (B * L);
  w = num_vec_new (L + 1);
  if (!ret || !ad || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < B; i++)
    for (size_t t = 0; t < L; t++)
      {
        size_t m = 0;
        num_ptr r = AT (ret, i * L + t);
        for (size_t u = t; u < L; u++)
          if (mask[i * L + u])
            num_set (AT (w, m++), AT (token_rewards, i * L + u));
        TRY (num_sum (r, w, m));
        /* returns - b mask, rounded once */
        num_set (AT (w, 0), r);
        if (mask[i * L + t])
          num_neg (AT (w, 1), AT (baselines, i));
        else
          num_set_zero (AT (w, 1));
        TRY (num_sum (AT (ad, i * L + t), w, 2));
        for (size_t u = 0; u < 2; u++)
          num_set_zero (AT (w, u));
        if (!isfinite (num_get_d (r)) || !isfinite (num_get_d (AT (ad, i * L + t))))
          status = RANGE_ERROR ();
      }
  for (size_t j = 0; j < B * L; j++)
    {
      num_set (AT (adv, j), AT (ad, j));
      num_set (AT (returns, j), AT (ret, j));
    }
done:
  num_vec_free (ret, B * L);
  num_vec_free (ad, B * L);
  num_vec_free (w, L + 1);
  return status;
}

/* GRPO-REMAX, seed 004: A_i = r_i - greedy of its prompt. */
int
FN (remax_seq_adv) (num_ptr adv, num_srcptr rewards, size_t N, num_srcptr greedy, size_t M)
{
  int status = RLREF_SUCCESS;
  size_t G;
  if (!rewards || !greedy || N == 0 || M == 0 || N % M)
    RLREF_ERROR ("the rewards do not make one group per greedy reward", RLREF_EINVAL);
  for (size_t i = 0; i < N; i++)
    CHECK_FINITE (AT (rewards, i));
  for (size_t g = 0; g < M; g++)
    CHECK_FINITE (AT (greedy, g));
  G = N / M;
  /* from the last element back, so that adv may be rewards */
  for (size_t i = N; i-- > 0;)
    {
      num_sub (AT (adv, i), AT (rewards, i), AT (greedy, i / G));
      if (!isfinite (num_get_d (AT (adv, i))))
        status = RANGE_ERROR ();
    }
  return status;
}
