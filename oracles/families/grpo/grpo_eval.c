/* grpo_eval.c -- glue from the registry's inputs and outputs to the
 * group-advantage formulas.  Compiled twice (binary64 and MPFR). */
#include "family_eval.h"

/* GRPO-ADV: x = rewards[N], group_size int; y = adv[N]. */
RL_ENTRY (grpo_adv)
{
  long G = a->iv[1][0];
  if (G <= 0)
    RLREF_ERROR ("group_size must be positive", RLREF_EINVAL);
  return LIB (grpo_adv) (y[0], x[0], a->len[0], (size_t) G, v->data);
}

/* GRPO-ADV-EX: x = rewards[G]; y = mean, std, adv[G]. */
RL_ENTRY (grpo_adv_ex)
{
  size_t G = a->len[0];
  int status = LIB (grpo_group_stats) (y[0], y[1], x[0], G, v->data);
  if (status == RLREF_SUCCESS)
    status = LIB (grpo_adv) (y[2], x[0], G, G, v->data);
  return status;
}
