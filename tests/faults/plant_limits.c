/* plant_limits.c -- a defective family, planted by test_faults.sh in a
 * temporary copy: one formula with more inputs than RL_MAX_IN (13 > 12), one that
 * reuses the id PREF-BT.  The registry must refuse to start. */
#include "family.h"

RL_EVAL_DECL (plant_sum);

static const rl_io io_many = {
  .in = (const rl_input[]) {
    { "a", RL_REAL, "" }, { "b", RL_REAL, "" }, { "c", RL_REAL, "" }, { "d", RL_REAL, "" },
    { "e", RL_REAL, "" }, { "f", RL_REAL, "" }, { "g", RL_REAL, "" }, { "h", RL_REAL, "" },
    { "i", RL_REAL, "" }, { "j", RL_REAL, "" }, { "k", RL_REAL, "" }, { "l", RL_REAL, "" },
    { "m", RL_REAL, "" }, RL_END },
  .out = (const rl_output[]) { { "s", "sum" }, RL_END },
  RL_EVALS (plant_sum), .part = "sum",
};

static const rl_variant v_many[] = { { "many", "thirteen inputs", "nobody", &io_many }, RL_END };
static const rl_case c_many[] = {
  { "*", "a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1 l=1 m=1", "", "" }, RL_END };

static const rl_formula formulas[] = {
  { "PLANT-MANY", "thirteen inputs", "none", "a + ... + m", v_many, c_many },
  { "PREF-BT", "a second PREF-BT", "none", "a + ... + m", v_many, c_many },
  RL_END,
};

RL_FAMILY (plant_limits) = { .name = "plant_limits", .title = "planted", .rank = 99,
                             .formulas = formulas };
