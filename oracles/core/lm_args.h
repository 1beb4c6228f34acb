/* lm_args.h -- the tiny LM of a registry case, for the families whose
 * formulas take one (LM, LMTRAIN, PPO-KLSUM, GRPO-BASELINE, MDP-PG): the
 * model from the integer inputs V, eos and T and the logits, and a
 * sequence of tokens from an integer input. */
#ifndef RLREF_ORACLES_LM_ARGS_H
#define RLREF_ORACLES_LM_ARGS_H
#include "rlref/lm.h"
#include "registry.h"

/* The model of kind and truncation with V, eos and T from the inputs of
 * those names and one row of V logits per prefix from the input called
 * logits; with reward RLREF_REWARD_ADDITIVE the input "reward" must hold
 * the V token rewards, per_length and truncated.  EDOM for V, eos or T
 * out of range (before any is narrowed to int), EINVAL for lengths that do
 * not fit, and what rlref_lm_check says of the rest. */
int rl_lm_of_args (const rl_variant *v, const rl_args *a, const char *logits,
                   rlref_lm_kind kind, rlref_lm_truncation truncation,
                   rlref_reward_kind reward, rlref_lm *lm);

/* The tokens of the integer input called name into toks (RLREF_LM_MAX_T
 * of room), their number in *len: 1 to T tokens, each in 0..V-1 of lm;
 * EINVAL for a length out of range, EDOM for a token. */
int rl_lm_tokens (const rl_variant *v, const rl_args *a, const char *name, const rlref_lm *lm,
                  int *toks, size_t *len);

#endif
