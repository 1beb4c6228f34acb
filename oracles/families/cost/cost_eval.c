/* cost_eval.c -- glue from the registry's inputs and outputs to the cost
 * arithmetic.  Compiled twice (binary64 and MPFR). */
#include "family_eval.h"

/* COST-MEM: trained, frozen ints, x = params; y = bytes_per_param, bytes,
 * gb, gib; the variant's data is the convention. */
RL_ENTRY (cost_mem)
{
  return LIB (cost_mem) (y[0], y[1], y[2], y[3], INTS ("trained")[0], INTS ("frozen")[0],
                         IN ("params"), v->data);
}

/* COST-MODELS: x = params; y = the RLREF_COST_NMODELS scalars, in the
 * order of rlref/cost.h. */
RL_ENTRY (cost_models)
{
  num_ptr o = num_vec_new (RLREF_COST_NMODELS);
  int status;
  (void) a;
  if (!o)
    RLREF_ERROR ("COST-MODELS: out of memory", RLREF_ENOMEM);
  status = LIB (cost_models) (o, IN ("params"), v->data);
  for (int k = 0; k < RLREF_COST_NMODELS; k++)
    num_set (y[k], AT (o, k));
  num_vec_free (o, RLREF_COST_NMODELS);
  return status;
}

/* COST-ROLLOUT(-EX): prompts, G ints, x = mean_len; y = per_prompt,
 * tokens. */
RL_ENTRY (cost_rollout)
{
  return LIB (cost_rollout) (y[0], y[1], INTS ("prompts")[0], INTS ("G")[0], IN ("mean_len"));
}
