/* len_eval.c -- glue from the registry's inputs and outputs to the
 * length-bias and entropy formulas.  Compiled twice (binary64 and MPFR). */
#include <string.h>
#include "family_eval.h"

/* LEN-WEIGHTS: x = lengths[n], (max_len for the sum-norm variant); group
 * size an int; y = w[n], share[n], total; the variant's data is the
 * normalisation. */
RL_ENTRY (len_weights)
{
  const rlref_len_norm *norm = v->data;
  num_srcptr max_len = NULL;
  long G = INTS ("group_size")[0];
  size_t n_in = rl_n_in (v->io);
  for (size_t p = 0; v->params[p].name; p++)
    if (strcmp (v->params[p].name, "max_len") == 0)
      max_len = x[n_in + p];
  if (G <= 0)
    RLREF_ERROR ("LEN-WEIGHTS: group_size must be positive", RLREF_EINVAL);
  return LIB (len_weights) (y[0], y[1], y[2], IN ("lengths"), LEN ("lengths"), (size_t) G, *norm,
                            max_len);
}

/* LEN-DRIFT: x = logits[3T], (G an int), eta; y = the nine scalars in the
 * order of rlref/len.h. */
RL_ENTRY (len_drift)
{
  const rlref_len_norm *norm = v->data;
  num_ptr out = num_vec_new (RLREF_LEN_NDRIFT);
  int status;
  if (!out)
    RLREF_ERROR ("LEN-DRIFT: out of memory", RLREF_ENOMEM);
  status = LIB (len_drift) (out, IN ("logits"), LEN ("logits"), INTS ("G")[0], *norm, IN ("eta"));
  if (status == RLREF_SUCCESS)
    for (int k = 0; k < RLREF_LEN_NDRIFT; k++)
      num_set (y[k], AT (out, k));
  num_vec_free (out, RLREF_LEN_NDRIFT);
  return status;
}

/* ENT-COLLAPSE: x = logits[3T], (G), lr, (mu, steps ints); y = entropy0,
 * entropy[steps], acc[steps], mean_len[steps]; the variant's data is the
 * recipe. */
RL_ENTRY (ent_collapse)
{
  return LIB (ent_collapse) (y[0], y[1], y[2], y[3], IN ("logits"), LEN ("logits"),
                             INTS ("G")[0], IN ("lr"),
                             INTS ("mu")[0], INTS ("steps")[0], v->data);
}
