/* grpo.c -- group-relative advantage (GRPO-ADV), written once for both
 * backends.  Seed 000 (13.23 and its pseudo-code), seed 001
 * (group_advantages), seed 003, and the conventions of TRL, verl and
 * OpenRLHF (grpo_conventions.c).
 *
 * Scaling.  Means, variances and advantages are computed on the rewards
 * multiplied by 2^k, k = -(binary exponent of max |r|), so that the
 * largest scaled reward lies in [1/2, 1) and no square of a deviation
 * overflows (rewards of 1e154 and beyond) or underflows (1e-200, where no
 * eps hides the std).  eps is scaled with them (eps 2^k added to the std,
 * eps 2^2k under the root), which leaves (r - mean)/(std + eps) unchanged;
 * k is capped so that the scaled eps stays below 2^1000.  Multiplying by
 * 2^k is exact in MPFR, and in binary64 for every reward that stays
 * normal, so the results are those of the unscaled formula wherever that
 * does not overflow or underflow.  The binary32 conventions are not
 * scaled: they overflow and underflow where their library does. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/grpo.h"

/* Records the error and leaves through the function's one exit. */
#define FAIL(reason, code)                                      \
  do {                                                          \
    rlref_error ((reason), __FILE__, __LINE__, (code));         \
    status = (code);                                            \
    goto done;                                                  \
  } while (0)

/* The scaled eps stays at most 2^EPS_EXP_MAX. */
#define EPS_EXP_MAX 1000

/* The scale exponent k of v[0..n-1] (NaN and infinities ignored): max |v|
 * 2^k lies in [1/2, 1); 0 when every finite v is 0.  With eps > 0, k is
 * at most the k' with eps 2^(w k') <= 2^EPS_EXP_MAX (w = 2 when eps goes
 * under the root): a larger k would only magnify rewards that eps already
 * dominates. */
static long
scale_exponent (num_srcptr v, size_t n, double eps, int w)
{
  long e = LONG_MIN, k;
  int ee;
  for (size_t i = 0; i < n; i++)
    if (num_is_finite (AT (v, i)) && !num_is_zero (AT (v, i)) && num_get_exp (AT (v, i)) > e)
      e = num_get_exp (AT (v, i));
  if (e == LONG_MIN)
    return 0;
  k = -e;
  if (eps > 0)
    {
      frexp (eps, &ee);
      if (k > (EPS_EXP_MAX - ee) / w)
        k = (EPS_EXP_MAX - ee) / w;
    }
  return k;
}

/* Whether v[0..n-1] holds +inf (*pinf) and -inf (*ninf). */
static void
find_inf (int *pinf, int *ninf, num_srcptr v, size_t n)
{
  *pinf = *ninf = 0;
  for (size_t i = 0; i < n; i++)
    if (num_is_inf (AT (v, i)))
      {
        if (num_sgn (AT (v, i)) > 0)
          *pinf = 1;
        else
          *ninf = 1;
      }
}

/* Mean and variance (ddof) of the finite rewards of r[0..n-1] scaled by
 * 2^k, copied into the workspace x; *m is their number.  None gives mean
 * 0; fewer than ddof + 1 give variance 0 (TRL's rule for a group of one).
 * var may be NULL. */
static int
scaled_stats (num_ptr mean, num_ptr var, size_t *m, num_ptr x, num_srcptr r, size_t n,
              int ddof, long k)
{
  size_t j = 0;
  int status = RLREF_SUCCESS;
  for (size_t i = 0; i < n; i++)
    if (num_is_finite (AT (r, i)))
      num_mul_2si (AT (x, j++), AT (r, i), k);
  num_set_zero (mean);
  if (var)
    num_set_zero (var);
  if (j > 0)
    status = FN (mean) (mean, x, j);
  if (status == RLREF_SUCCESS && var && (long) j - ddof > 0)
    status = FN (variance) (var, x, j, ddof);
  *m = j;
  return status;
}

/* One group under a std-scaling convention (13.23):
 *   A_i = (r_i - mean)/(std + eps)  or  (r_i - mean)/sqrt(var + eps),
 * with the convention's guard (std > 0, std > eps, or none) and its
 * group-of-one rule.  A NaN-skipping convention (TRL) leaves NaN rewards
 * out of mean and std and gives them 0, and gives the whole group 0 when
 * fewer than two rewards are scorable or one is infinite: TRL's
 * nan_to_num(nan=0) of the NaN its nanmean and nanstd give there.
 * Computed on the rewards scaled by 2^k (head of this file). */
static int
group_std_adv (num_ptr adv, num_srcptr r, size_t G, const rlref_adv_convention *c, num_ptr x)
{
  num_t mean, var, std, eps, den, t;
  size_t m = 0;
  long k;
  int status = RLREF_SUCCESS, zero = 0, pinf, ninf, w = c->eps_at == RLREF_EPS_IN_SQRT ? 2 : 1;
  num_init (mean);
  num_init (var);
  num_init (std);
  num_init (eps);
  num_init (den);
  num_init (t);
  if (G == 1)
    {
      if (c->single == RLREF_SINGLE_REFUSE)
        FAIL ("this convention refuses a group of one", RLREF_EDOM);
      if (c->single == RLREF_SINGLE_RAW && num_is_finite (AT (r, 0)))
        {
          /* mean 0, std 1: A = (r - 0)/(1 + eps) */
          num_set_d (den, c->eps);
          num_add_d (den, den, 1.0);
          num_div (AT (adv, 0), AT (r, 0), den);
        }
      else
        num_set_zero (AT (adv, 0));
      goto done;
    }
  find_inf (&pinf, &ninf, r, G);
  k = scale_exponent (r, G, c->eps, w);
  status = scaled_stats (mean, var, &m, x, r, G, c->ddof, k);
  if (status)
    goto done;
  num_sqrt (std, var);
  num_set_d (eps, c->eps);
  num_mul_2si (eps, eps, w * k);
  if (m == 0 || pinf || ninf || (c->nan == RLREF_NAN_SKIP && m < 2))
    zero = 1;
  else if (c->guard == RLREF_GUARD_POSITIVE)
    zero = num_sgn (std) <= 0;
  else if (c->guard == RLREF_GUARD_EPS)
    zero = num_cmp (std, eps) <= 0;
  if (c->eps_at == RLREF_EPS_IN_SQRT)
    {
      num_add (den, var, eps);
      num_sqrt (den, den);
    }
  else
    num_add (den, std, eps);
  if (num_is_zero (den))
    zero = 1;                   /* no eps and no spread: every r equals the mean */
  for (size_t i = 0; i < G; i++)
    {
      if (zero || num_is_nan (AT (r, i)))
        num_set_zero (AT (adv, i));
      else
        {
          num_mul_2si (t, AT (r, i), k);
          num_sub (t, t, mean);
          num_div (AT (adv, i), t, den);
        }
    }
done:
  num_clear (mean);
  num_clear (var);
  num_clear (std);
  num_clear (eps);
  num_clear (den);
  num_clear (t);
  return status;
}

/* Dr.GRPO (seeds 000 and 003): A_i = r_i - mean, computed on the rewards
 * scaled by 2^k and scaled back; binary64 gives ERANGE where r_i - mean
 * exceeds DBL_MAX.  NaN rewards as in group_std_adv. */
static int
group_centred (num_ptr adv, num_srcptr r, size_t G, num_ptr x)
{
  num_t mean, t;
  size_t m = 0;
  long k;
  int status = RLREF_SUCCESS, pinf, ninf, zero;
  num_init (mean);
  num_init (t);
  find_inf (&pinf, &ninf, r, G);
  k = scale_exponent (r, G, 0.0, 1);
  status = scaled_stats (mean, NULL, &m, x, r, G, 0, k);
  if (status)
    goto done;
  zero = m == 0 || pinf || ninf;
  for (size_t i = 0; i < G; i++)
    {
      if (zero || num_is_nan (AT (r, i)))
        num_set_zero (AT (adv, i));
      else
        {
          num_mul_2si (t, AT (r, i), k);
          num_sub (t, t, mean);
          num_mul_2si (t, t, -k);
          if (!num_is_finite (t))
            FAIL ("r - mean exceeds the largest double", RLREF_ERANGE);
          num_set (AT (adv, i), t);
        }
    }
done:
  num_clear (mean);
  num_clear (t);
  return status;
}

/* verl's opt-in vectorised estimator (grpo_vectorized, September 2025 to
 * May 2026; group_mean_std of verl/utils/groupwise.py), every operation
 * rounded to binary32 and every sum taken in index order:
 *   x = f32(r),  n = sum 1,  s1 = sum x,  s2 = sum x*x,
 *   mean = s1/n,  var = (s2 - s1*s1/n)/(n - 1),  std = sqrt(max(var, e)),
 *   a group of one (n <= 1): mean 0, std 1,
 *   A = (x - mean)/(std + e),  e = f32(eps) = f32(1e-6).
 * Where verl's binary32 overflows to inf or NaN, ERANGE. */
static int
group_f32_onepass (num_ptr adv, num_srcptr r, size_t G, const rlref_adv_convention *c)
{
  num_t n, s1, s2, t, mean, std, e;
  int status = RLREF_SUCCESS;
  num_init (n);
  num_init (s1);
  num_init (s2);
  num_init (t);
  num_init (mean);
  num_init (std);
  num_init (e);
  num_set_d (e, c->eps);
  num_round_f32 (e, e);
  for (size_t i = 0; i < G; i++)
    {
      num_add_d (n, n, 1.0);
      num_round_f32 (n, n);
      num_round_f32 (t, AT (r, i));
      num_add (s1, s1, t);
      num_round_f32 (s1, s1);
      num_sqr (t, t);
      num_round_f32 (t, t);
      num_add (s2, s2, t);
      num_round_f32 (s2, s2);
    }
  if (num_cmp_d (n, 1.0) <= 0)
    num_set_d (std, 1.0);       /* and mean 0 */
  else
    {
      num_div (mean, s1, n);
      num_round_f32 (mean, mean);
      num_sqr (t, s1);
      num_round_f32 (t, t);
      num_div (t, t, n);
      num_round_f32 (t, t);
      num_sub (t, s2, t);
      num_round_f32 (t, t);
      num_sub_d (std, n, 1.0);
      num_round_f32 (std, std);
      num_div (t, t, std);
      num_round_f32 (t, t);
      if (num_is_nan (t))
        FAIL ("binary32 overflow in the one-pass variance (NaN)", RLREF_ERANGE);
      num_max (t, t, e);
      num_sqrt (std, t);
      num_round_f32 (std, std);
    }
  num_add (std, std, e);
  num_round_f32 (std, std);
  for (size_t i = 0; i < G; i++)
    {
      num_round_f32 (t, AT (r, i));
      num_sub (t, t, mean);
      num_round_f32 (t, t);
      num_div (t, t, std);
      num_round_f32 (t, t);
      if (!num_is_finite (t))
        FAIL ("binary32 overflow in the one-pass variance", RLREF_ERANGE);
      num_set (AT (adv, i), t);
    }
done:
  num_clear (n);
  num_clear (s1);
  num_clear (s2);
  num_clear (t);
  num_clear (mean);
  num_clear (std);
  num_clear (e);
  return status;
}

/* TRL's group mode as TRL computes it on float32 rewards (trl-float32;
 * grpo_trainer.py _generate_and_score_completions, utils.py nanstd), every
 * operation rounded to binary32 and every sum taken in index order:
 *   x = f32(r); over the n non-NaN x of the group:
 *   mean = nansum(x)/n;  d = x - mean;
 *   var = nansum(d*d)/m * f32(n/(n - 1))  (m the non-NaN d*d; NaN if n <= 1);
 *   a group of one has std 0;
 *   A = d/(sqrt(var) + e),  e = f32(eps) = f32(1e-4);
 * then nan_to_num(nan=0): NaN -> 0, +-inf -> +-FLT_MAX.  NaN and inf
 * propagate as in IEEE binary32, in both backends. */
static int
group_f32_trl (num_ptr adv, num_srcptr r, size_t G, const rlref_adv_convention *c)
{
  num_t n, m, s, t, mean, std, e;
  num_init (n);
  num_init (m);
  num_init (s);
  num_init (t);
  num_init (mean);
  num_init (std);
  num_init (e);
  num_set_d (e, c->eps);
  num_round_f32 (e, e);
  for (size_t i = 0; i < G; i++)
    {
      num_round_f32 (t, AT (r, i));
      if (num_is_nan (t))
        continue;
      num_add_d (n, n, 1.0);
      num_round_f32 (n, n);
      num_add (s, s, t);
      num_round_f32 (s, s);
    }
  if (num_is_zero (n))
    num_set_nan (mean);
  else
    {
      num_div (mean, s, n);
      num_round_f32 (mean, mean);
    }
  if (G > 1)
    {
      num_set_zero (s);
      for (size_t i = 0; i < G; i++)
        {
          num_round_f32 (t, AT (r, i));
          num_sub (t, t, mean);
          num_round_f32 (t, t);
          num_sqr (t, t);
          num_round_f32 (t, t);
          if (num_is_nan (t))
            continue;
          num_add_d (m, m, 1.0);
          num_round_f32 (m, m);
          num_add (s, s, t);
          num_round_f32 (s, s);
        }
      if (num_is_zero (m) || num_cmp_d (n, 1.0) <= 0)
        num_set_nan (std);
      else
        {
          num_div (std, s, m);
          num_round_f32 (std, std);
          num_sub_d (t, n, 1.0);
          num_round_f32 (t, t);
          num_div (t, n, t);
          num_round_f32 (t, t);
          num_mul (std, std, t);
          num_round_f32 (std, std);
          num_sqrt (std, std);
          num_round_f32 (std, std);
        }
    }
  num_add (std, std, e);
  num_round_f32 (std, std);
  for (size_t i = 0; i < G; i++)
    {
      num_round_f32 (t, AT (r, i));
      num_sub (t, t, mean);
      num_round_f32 (t, t);
      num_div (t, t, std);
      num_round_f32 (t, t);
      if (num_is_nan (t))
        num_set_zero (t);
      else if (num_is_inf (t))
        num_set_d (t, num_sgn (t) > 0 ? FLT_MAX : -FLT_MAX);
      num_set (AT (adv, i), t);
    }
  num_clear (n);
  num_clear (m);
  num_clear (s);
  num_clear (t);
  num_clear (mean);
  num_clear (std);
  num_clear (e);
  return RLREF_SUCCESS;
}

/* TRL scale_rewards="batch": A_i = (r_i - mean of r_i's group)/(std of the
 * whole batch + eps), ddof of c.  NaN rewards as TRL: left out of both
 * means and the std, advantage 0.  A batch of one (TRL's std 0), or fewer
 * than two scorable rewards (nanstd NaN), gives 0.  An infinite reward
 * gives its group 0 and makes the batch std +inf, so the finite groups get
 * (r - mean)/inf = +-0, or NaN (both infinities, or no finite reward),
 * so every advantage is 0. */
static int
batch_std_adv (num_ptr adv, num_srcptr r, size_t N, size_t G, const rlref_adv_convention *c,
               num_ptr x)
{
  num_t mean, var, eps, den, t;
  size_t m = 0, mg;
  long k;
  int status = RLREF_SUCCESS, zero = 0, pinf, ninf, gz;
  num_init (mean);
  num_init (var);
  num_init (eps);
  num_init (den);
  num_init (t);
  find_inf (&pinf, &ninf, r, N);
  k = scale_exponent (r, N, c->eps, 1);
  status = scaled_stats (mean, var, &m, x, r, N, c->ddof, k);
  if (status)
    goto done;
  if (N == 1)
    zero = 1;
  else if (pinf || ninf)
    {
      if ((pinf && ninf) || m == 0)
        zero = 1;               /* the batch mean is NaN, or every deviation */
      else
        num_set_inf (den, 1);
    }
  else if (m < 2)
    zero = 1;
  else
    {
      num_set_d (eps, c->eps);
      num_mul_2si (eps, eps, k);
      num_sqrt (den, var);
      num_add (den, den, eps);
      zero = num_is_zero (den);
    }
  for (size_t g = 0; g < N; g += G)
    {
      find_inf (&pinf, &ninf, AT (r, g), G);
      status = scaled_stats (mean, NULL, &mg, x, AT (r, g), G, 0, k);
      if (status)
        goto done;
      gz = zero || mg == 0 || pinf || ninf;
      for (size_t i = g; i < g + G; i++)
        {
          if (gz || num_is_nan (AT (r, i)))
            num_set_zero (AT (adv, i));
          else
            {
              num_mul_2si (t, AT (r, i), k);
              num_sub (t, t, mean);
              num_div (AT (adv, i), t, den);
            }
        }
    }
done:
  num_clear (mean);
  num_clear (var);
  num_clear (eps);
  num_clear (den);
  num_clear (t);
  return status;
}

/* GRPO-ADV (13.23) for N/G contiguous groups under convention c.  Every
 * group's statistics are taken before its advantages are written, so adv
 * may be rewards. */
int
FN (grpo_adv) (num_ptr adv, num_srcptr rewards, size_t N, size_t G,
               const rlref_adv_convention *c)
{
  num_ptr x = NULL;
  size_t nx = 0;
  int status = RLREF_SUCCESS;
  if (!adv || !rewards || !c || N == 0 || G == 0)
    FAIL ("empty rewards, zero group size or NULL argument", RLREF_EINVAL);
  if (N % G != 0)
    FAIL ("number of rewards is not a multiple of the group size", RLREF_EINVAL);
  if (c->nan != RLREF_NAN_SKIP)
    for (size_t i = 0; i < N; i++)
      if (!num_is_finite (AT (rewards, i)))
        FAIL ("non-finite reward", RLREF_ENAN);
  nx = c->scale == RLREF_SCALE_BATCH_STD ? N : G;
  x = num_vec_new (nx);
  if (!x)
    FAIL ("out of memory", RLREF_ENOMEM);
  if (c->scale == RLREF_SCALE_BATCH_STD)
    {
      status = batch_std_adv (adv, rewards, N, G, c, x);
      goto done;
    }
  for (size_t g = 0; g < N && status == RLREF_SUCCESS; g += G)
    switch (c->scale)
      {
      case RLREF_SCALE_GROUP_STD:
        status = group_std_adv (AT (adv, g), AT (rewards, g), G, c, x);
        break;
      case RLREF_SCALE_NONE:
        status = group_centred (AT (adv, g), AT (rewards, g), G, x);
        break;
      case RLREF_SCALE_F32_ONEPASS:
        status = group_f32_onepass (AT (adv, g), AT (rewards, g), G, c);
        break;
      case RLREF_SCALE_F32_TRL:
        status = group_f32_trl (AT (adv, g), AT (rewards, g), G, c);
        break;
      default:
        FAIL ("unknown scaling", RLREF_EINVAL);
      }
done:
  num_vec_free (x, nx);
  return status;
}

/* Mean and std (ddof of c) of one group of G finite rewards, computed on
 * the rewards scaled by 2^k and scaled back.  Fewer than ddof + 1 rewards
 * give std 0. */
int
FN (grpo_group_stats) (num_ptr mean, num_ptr std, num_srcptr rewards, size_t G,
                       const rlref_adv_convention *c)
{
  num_t mu, var;
  num_ptr x = NULL;
  size_t m;
  long k;
  int status = RLREF_SUCCESS;
  num_init (mu);
  num_init (var);
  if (!mean || !std || !rewards || !c || G == 0)
    FAIL ("empty group or NULL argument", RLREF_EINVAL);
  for (size_t i = 0; i < G; i++)
    if (!num_is_finite (AT (rewards, i)))
      FAIL ("non-finite reward", RLREF_ENAN);
  x = num_vec_new (G);
  if (!x)
    FAIL ("out of memory", RLREF_ENOMEM);
  k = scale_exponent (rewards, G, 0.0, 1);
  status = scaled_stats (mu, var, &m, x, rewards, G, c->ddof, k);
  if (status)
    goto done;
  num_sqrt (var, var);
  num_mul_2si (mu, mu, -k);
  num_mul_2si (var, var, -k);
  if (!num_is_finite (var))
    FAIL ("the standard deviation exceeds the largest double", RLREF_ERANGE);
  num_set (mean, mu);
  num_set (std, var);
done:
  num_vec_free (x, G);
  num_clear (mu);
  num_clear (var);
  return status;
}
