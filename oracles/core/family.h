/* family.h -- what a family module (oracles/families/NAME/NAME.c) includes: the
 * registry's records, and the declarations of evaluators defined in its
 * glue file NAME_eval.c (compiled twice, like the formulas). */
#ifndef RLREF_ORACLES_FAMILY_H
#define RLREF_ORACLES_FAMILY_H
#include "registry.h"

/* Declares the two evaluators of glue entry NAME. */
#define RL_EVAL_DECL(name)                                              \
  rl_eval_d_fn rl_entry_##name##_d;                                     \
  rl_eval_mp_fn rl_entry_##name##_mp

/* The evaluator members of an rl_io for glue entry NAME. */
#define RL_EVALS(name) .eval_d = rl_entry_##name##_d, .eval_mp = rl_entry_##name##_mp

/* Defines the family record of module NAME. */
#define RL_FAMILY(name) const rl_family rl_family_##name

#define RL_END { 0 }

#endif
