/* cost_other_conventions.c -- the cost family's named conventions beyond
 * its memory ledgers' table (cost.c): the rollout count of COST-ROLLOUT,
 * which COST-ROLLOUT-EX reads again. */
#include "rlref/convention.h"
#include "rlref/cost.h"

#define ROW_TOKENS(formula)                                                                        \
  { "tokens", formula, "rollout",                                                                  \
    "tokens per update = prompts x G x mean length",                                               \
    "seed 004 section 7 (\"tokens to generate before one update\": G of 8 to 64 responses of "    \
    "thousands of tokens); GRPO as TRL, verl and OpenRLHF sample it (G responses per prompt)",    \
    .setting = NULL }

const rlref_convention rlref_cost_other_conventions[] = {
  ROW_TOKENS ("COST-ROLLOUT"),
  ROW_TOKENS ("COST-ROLLOUT-EX"),
  { 0 },
};
