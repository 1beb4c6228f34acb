/* entries.h -- the evaluators of the registry, from tmpl/entries.c, which
 * is compiled twice: rl_entry_NAME_d (binary64) and rl_entry_NAME_mp. */
#ifndef RLREF_ORACLES_ENTRIES_H
#define RLREF_ORACLES_ENTRIES_H

#include "registry.h"

#define RL_ENTRIES(X)                                                   \
  X (bt_prob) X (bt_gumbel) X (rm_loss) X (bt_ex_mle) X (margin)        \
  X (smooth) X (ensemble) X (pl_prob) X (pl_mle) X (bt_mle)             \
  X (grpo_adv) X (grpo_adv_ex)

#define RL_DECLARE_ENTRY(name)                                          \
  rl_eval_d_fn rl_entry_##name##_d;                                     \
  rl_eval_mp_fn rl_entry_##name##_mp;
RL_ENTRIES (RL_DECLARE_ENTRY)
#undef RL_DECLARE_ENTRY

/* An rl_io's evaluators for entry NAME. */
#define RL_EVALS(name) rl_entry_##name##_d, rl_entry_##name##_mp

#endif
