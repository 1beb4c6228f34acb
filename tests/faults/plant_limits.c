/* plant_limits.c -- a defective family, planted by test_faults.sh in a
 * temporary copy: one formula with more inputs than RL_MAX_IN, one that
 * reuses the id PREF-BT.  The registry must refuse to start. */
#include "family.h"

RL_EVAL_DECL (plant_sum);

static const rl_io io_nine = {
  .in = (const rl_input[]) {
    { "a", RL_REAL, "" }, { "b", RL_REAL, "" }, { "c", RL_REAL, "" }, { "d", RL_REAL, "" },
    { "e", RL_REAL, "" }, { "f", RL_REAL, "" }, { "g", RL_REAL, "" }, { "h", RL_REAL, "" },
    { "i", RL_REAL, "" }, RL_END },
  .out = (const rl_output[]) { { "s", "sum" }, RL_END },
  RL_EVALS (plant_sum), .part = "sum",
};

static const rl_variant v_nine[] = { { "nine", "nine inputs", "nobody", &io_nine }, RL_END };
static const rl_case c_nine[] = {
  { "*", "a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1", "", "" }, RL_END };

static const rl_formula formulas[] = {
  { "PLANT-NINE", "nine inputs", "none", "a + ... + i", v_nine, c_nine },
  { "PREF-BT", "a second PREF-BT", "none", "a + ... + i", v_nine, c_nine },
  RL_END,
};

RL_FAMILY (plant_limits) = { .name = "plant_limits", .title = "planted", .rank = 99,
                             .formulas = formulas };
