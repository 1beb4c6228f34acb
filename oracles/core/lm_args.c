/* lm_args.c -- the tiny LM of a registry case (lm_args.h). */
#include <stdio.h>
#include <stdlib.h>
#include "rlref/status.h"
#include "lm_args.h"

/* The position of input name in the variant's io (the io declares it). */
static size_t
at (const rl_variant *v, const char *name)
{
  int k = rl_input_index (v->io, name);
  if (k < 0)
    {
      fprintf (stderr, "rlref: variant %s has no input %s\n", v->name, name);
      exit (3);
    }
  return (size_t) k;
}

int
rl_lm_of_args (const rl_variant *v, const rl_args *a, const char *logits,
               rlref_lm_kind kind, rlref_lm_truncation truncation,
               rlref_reward_kind reward, rlref_lm *lm)
{
  long V = a->iv[at (v, "V")][0], eos = a->iv[at (v, "eos")][0], T = a->iv[at (v, "T")][0];
  size_t n = a->len[at (v, logits)];
  if (V < 2 || V > RLREF_LM_MAX_V)
    RLREF_ERROR ("V must be 2 to 64", RLREF_EDOM);
  if (eos < 0 || eos >= V || T < 1 || T > RLREF_LM_MAX_T)
    RLREF_ERROR ("EOS must be a token and T 1 to 32", RLREF_EDOM);
  if (n % (size_t) V)
    RLREF_ERROR ("the logits are not rows of V", RLREF_EINVAL);
  if (reward == RLREF_REWARD_ADDITIVE && a->len[at (v, "reward")] != (size_t) V + 2)
    RLREF_ERROR ("the reward holds V token rewards, per_length and truncated", RLREF_EINVAL);
  *lm = (rlref_lm) { .V = (int) V, .eos = (int) eos, .T = (int) T, .kind = kind,
                     .truncation = truncation, .n_rows = n / (size_t) V, .reward = reward };
  return rlref_lm_check (lm);
}

int
rl_lm_tokens (const rl_variant *v, const rl_args *a, const char *name, const rlref_lm *lm,
              int *toks, size_t *len)
{
  size_t k = at (v, name);
  *len = a->len[k];
  if (*len < 1 || *len > (size_t) lm->T)
    RLREF_ERROR ("a sequence has 1 to T tokens", RLREF_EINVAL);
  for (size_t t = 0; t < *len; t++)
    {
      if (a->iv[k][t] < 0 || a->iv[k][t] >= lm->V)
        RLREF_ERROR ("a token is not in 0..V-1", RLREF_EDOM);
      toks[t] = (int) a->iv[k][t];
    }
  return RLREF_SUCCESS;
}
