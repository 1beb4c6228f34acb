/* grpo_eval.c -- glue from the registry's inputs and outputs to the
 * group-advantage formulas.  Compiled twice (binary64 and MPFR). */
#include "family_eval.h"

/* GRPO-ADV: x = rewards[N], group_size int; y = adv[N]. */
RL_ENTRY (grpo_adv)
{
  long G = INTS ("group_size")[0];
  if (G <= 0)
    RLREF_ERROR ("group_size must be positive", RLREF_EINVAL);
  return LIB (grpo_adv) (y[0], IN ("rewards"), LEN ("rewards"), (size_t) G, v->data);
}

/* GRPO-ADV-EX: x = rewards[G]; y = mean, std, adv[G]. */
RL_ENTRY (grpo_adv_ex)
{
  size_t G = LEN ("rewards");
  int status = LIB (grpo_group_stats) (y[0], y[1], IN ("rewards"), G, v->data);
  if (status == RLREF_SUCCESS)
    status = LIB (grpo_adv) (y[2], IN ("rewards"), G, G, v->data);
  return status;
}
