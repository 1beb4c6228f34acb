/* plant_cases.c -- a family planted by test_faults.sh in a temporary copy:
 * PLANT-DIV declares valid a case its function rejects (the golden writer
 * must refuse it), and PLANT-ALIAS writes an output before it has read the
 * input that output may share storage with (the generic test must name it). */
#include "family.h"

RL_EVAL_DECL (plant_div);
RL_EVAL_DECL (plant_alias);

static const rl_io io_div = {
  .in = (const rl_input[]) { { "p", RL_REAL, "" }, { "q", RL_REAL, "" }, RL_END },
  .out = (const rl_output[]) { { "r", "p / q" }, RL_END },
  RL_EVALS (plant_div), .part = "div",
};
static const rl_variant v_div[] = { { "plain", "p / q, q != 0", "nobody", &io_div }, RL_END };
static const rl_case c_div[] = {
  { "*", "p=1 q=2", "", "one half" },
  { "*", "p=1 q=0", "", "declared valid, rejected by the function" },
  RL_END,
};

static const rl_io io_alias = {
  .in = (const rl_input[]) { { "x", RL_REAL_ARRAY, "" }, RL_END },
  .out = (const rl_output[]) {
    { "twice", "2 x", .len_of = "x" }, { "plus1", "x + 1", .len_of = "x" }, RL_END },
  RL_EVALS (plant_alias), .part = "alias",
};
static const rl_variant v_alias[] = { { "plain", "2 x and x + 1", "nobody", &io_alias }, RL_END };
static const rl_case c_alias[] = { { "*", "x=1,2,3", "", "" }, RL_END };

static const rl_formula formulas[] = {
  { "PLANT-DIV", "a quotient", "none", "p / q", v_div, c_div },
  { "PLANT-ALIAS", "two outputs from one input", "none", "2 x, x + 1", v_alias, c_alias },
  RL_END,
};

RL_FAMILY (plant_cases) = { .name = "plant_cases", .title = "planted", .rank = 99,
                            .formulas = formulas };
