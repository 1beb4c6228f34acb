/* grpo.c -- group-relative advantage (GRPO-ADV), written once for both
 * backends.  Seed 000 (13.23), seed 001 (group_advantages), seed 003. */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/grpo.h"

/* Mean, variance and std (ddof) of the scorable (non-NaN) rewards of one
 * group.  Fewer than ddof + 1 scorable rewards give variance 0 (TRL's rule
 * for one).  var may be NULL. */
static int
scorable_stats (num_ptr mean, num_ptr var, num_ptr std, size_t *m_out, num_srcptr r,
                size_t G, int ddof)
{
  num_ptr x = num_vec_new (G);
  size_t m = 0;
  int status = RLREF_SUCCESS;
  if (!x)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < G; i++)
    if (!num_is_nan (AT (r, i)))
      num_set (AT (x, m++), AT (r, i));
  num_set_zero (mean);
  num_set_zero (std);
  if (var)
    num_set_zero (var);
  if (m > 0)
    status = FN (mean) (mean, x, m);
  if (status == RLREF_SUCCESS && (long) m - ddof > 0)
    {
      status = FN (variance) (std, x, m, ddof);
      if (var)
        num_set (var, std);
      num_sqrt (std, std);
    }
  num_vec_free (x, G);
  *m_out = m;
  return status;
}

/* One group under a std-scaling convention (13.23):
 *   A_i = (r_i - mean)/(std + eps)  or  (r_i - mean)/sqrt(var + eps),
 * with the convention's guard (std > 0, std > eps, or none), its
 * group-of-one rule, and NaN skipping. */
static int
group_std_adv (num_ptr adv, num_srcptr r, size_t G, const rlref_adv_convention *c)
{
  num_t mean, var, std, den;
  size_t m;
  int status, zero = 0;
  if (G == 1)
    switch (c->single)
      {
      case RLREF_SINGLE_REFUSE:
        RLREF_ERROR ("this convention refuses a group of one", RLREF_EDOM);
      case RLREF_SINGLE_RAW:
        /* mean 0, std 1: A = (r - 0)/(1 + eps) */
        if (num_is_nan (AT (r, 0)))
          num_set_zero (adv);
        else
          {
            num_t den;
            num_init (den);
            num_set_d (den, c->eps);
            num_add_d (den, den, 1.0);
            num_div (adv, AT (r, 0), den);
            num_clear (den);
          }
        return RLREF_SUCCESS;
      case RLREF_SINGLE_ZERO:
        num_set_zero (adv);
        return RLREF_SUCCESS;
      }
  num_init (mean);
  num_init (var);
  num_init (std);
  num_init (den);
  status = scorable_stats (mean, var, std, &m, r, G, c->ddof);
  if (m == 0)
    zero = 1;
  else if (c->guard == RLREF_GUARD_POSITIVE)
    zero = num_sgn (std) <= 0;
  else if (c->guard == RLREF_GUARD_EPS)
    zero = num_cmp_d (std, c->eps) <= 0;
  if (c->eps_at == RLREF_EPS_IN_SQRT)
    {
      num_add_d (den, var, c->eps);
      num_sqrt (den, den);
    }
  else
    num_add_d (den, std, c->eps);
  if (!zero && num_is_zero (den))
    zero = 1;                   /* no eps and no spread: every r equals the mean */
  for (size_t i = 0; i < G && status == RLREF_SUCCESS; i++)
    {
      if (zero || num_is_nan (AT (r, i)))
        num_set_zero (AT (adv, i));
      else
        {
          num_sub (AT (adv, i), AT (r, i), mean);
          num_div (AT (adv, i), AT (adv, i), den);
        }
    }
  num_clear (mean);
  num_clear (var);
  num_clear (std);
  num_clear (den);
  return status;
}

/* Dr.GRPO: A_i = r_i - mean. */
static int
group_centred (num_ptr adv, num_srcptr r, size_t G)
{
  num_t mean;
  int status;
  num_init (mean);
  status = FN (mean) (mean, r, G);
  for (size_t i = 0; i < G && status == RLREF_SUCCESS; i++)
    num_sub (AT (adv, i), AT (r, i), mean);
  num_clear (mean);
  return status;
}

/* Old verl, vectorised: every operation rounded to binary32.
 *   x = f32(r); S1 = sum x; S2 = sum x^2 (left to right);
 *   mean = S1/G; var = (S2/G - mean^2) G/(G - 1), floored at f32(1e-6);
 *   A = (x - mean)/(sqrt(var) + f32(1e-6)). */
static int
group_f32_onepass (num_ptr adv, num_srcptr r, size_t G)
{
  num_t s1, s2, t, mean, var, floor32, den;
  int status = RLREF_SUCCESS;
  if (G == 1)
    RLREF_ERROR ("this convention refuses a group of one", RLREF_EDOM);
  num_init (s1); num_init (s2); num_init (t); num_init (mean);
  num_init (var); num_init (floor32); num_init (den);
  num_set_d (floor32, 1e-6);
  num_round_f32 (floor32, floor32);
  for (size_t i = 0; i < G; i++)
    {
      num_round_f32 (t, AT (r, i));
      num_add (s1, s1, t);
      num_round_f32 (s1, s1);
      num_sqr (t, t);
      num_round_f32 (t, t);
      num_add (s2, s2, t);
      num_round_f32 (s2, s2);
    }
  num_div_si (mean, s1, (long) G);
  num_round_f32 (mean, mean);
  num_div_si (var, s2, (long) G);
  num_round_f32 (var, var);
  num_sqr (t, mean);
  num_round_f32 (t, t);
  num_sub (var, var, t);
  num_round_f32 (var, var);
  num_mul_si (var, var, (long) G);
  num_round_f32 (var, var);
  num_div_si (var, var, (long) G - 1);
  num_round_f32 (var, var);
  num_max (var, var, floor32);
  num_sqrt (den, var);
  num_round_f32 (den, den);
  num_add (den, den, floor32);
  num_round_f32 (den, den);
  for (size_t i = 0; i < G; i++)
    {
      num_round_f32 (t, AT (r, i));
      num_sub (t, t, mean);
      num_round_f32 (t, t);
      num_div (t, t, den);
      num_round_f32 (AT (adv, i), t);
      if (!num_is_finite (AT (adv, i)))
        status = RLREF_ERANGE;
    }
  num_clear (s1); num_clear (s2); num_clear (t); num_clear (mean);
  num_clear (var); num_clear (floor32); num_clear (den);
  if (status)
    RLREF_ERROR ("binary32 overflow in the one-pass variance", status);
  return RLREF_SUCCESS;
}

/* TRL scale_rewards="batch": A_i = (r_i - group mean)/(std of all N + eps). */
static int
batch_std_adv (num_ptr adv, num_srcptr r, size_t N, size_t G,
               const rlref_adv_convention *c)
{
  num_t std;
  int status;
  if ((long) N - c->ddof <= 0)
    RLREF_ERROR ("batch std needs more rewards than ddof", RLREF_EDOM);
  num_init (std);
  status = FN (variance) (std, r, N, c->ddof);
  num_sqrt (std, std);
  num_add_d (std, std, c->eps);
  for (size_t g = 0; g < N / G && status == RLREF_SUCCESS; g++)
    status = group_centred (AT (adv, g * G), AT (r, g * G), G);
  for (size_t i = 0; i < N && status == RLREF_SUCCESS; i++)
    num_div (AT (adv, i), AT (adv, i), std);
  num_clear (std);
  return status;
}

/* GRPO-ADV (13.23) for N/G contiguous groups under convention c. */
int
FN (grpo_adv) (num_ptr adv, num_srcptr rewards, size_t N, size_t G,
               const rlref_adv_convention *c)
{
  int status = RLREF_SUCCESS;
  if (!adv || !rewards || !c || N == 0 || G == 0)
    RLREF_ERROR ("empty rewards, zero group size or NULL argument", RLREF_EINVAL);
  if (N % G != 0)
    RLREF_ERROR ("number of rewards is not a multiple of the group size", RLREF_EINVAL);
  for (size_t i = 0; i < N; i++)
    {
      if (num_is_nan (AT (rewards, i)) && c->nan == RLREF_NAN_SKIP)
        continue;
      if (!num_is_finite (AT (rewards, i)))
        RLREF_ERROR ("non-finite reward", RLREF_ENAN);
    }
  if (c->scale == RLREF_SCALE_BATCH_STD)
    return batch_std_adv (adv, rewards, N, G, c);
  for (size_t g = 0; g < N / G && status == RLREF_SUCCESS; g++)
    {
      num_ptr a = AT (adv, g * G);
      num_srcptr r = AT (rewards, g * G);
      switch (c->scale)
        {
        case RLREF_SCALE_GROUP_STD:
          status = group_std_adv (a, r, G, c);
          break;
        case RLREF_SCALE_NONE:
          status = group_centred (a, r, G);
          break;
        case RLREF_SCALE_F32_ONEPASS:
          status = group_f32_onepass (a, r, G);
          break;
        default:
          RLREF_ERROR ("unknown scaling", RLREF_EINVAL);
        }
    }
  return status;
}

/* Mean and std (ddof of c) of one group of G finite rewards. */
int
FN (grpo_group_stats) (num_ptr mean, num_ptr std, num_srcptr rewards, size_t G,
                       const rlref_adv_convention *c)
{
  size_t m;
  if (!rewards || !c || G == 0)
    RLREF_ERROR ("empty group", RLREF_EINVAL);
  for (size_t i = 0; i < G; i++)
    if (!num_is_finite (AT (rewards, i)))
      RLREF_ERROR ("non-finite reward", RLREF_ENAN);
  return scorable_stats (mean, NULL, std, &m, rewards, G, c->ddof);
}
