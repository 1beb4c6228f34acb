/* formulas.h -- the families' formula tables, gathered by registry.c. */
#ifndef RLREF_ORACLES_FORMULAS_H
#define RLREF_ORACLES_FORMULAS_H
#include "registry.h"

extern const rl_formula rl_formula_pref[];
extern const size_t rl_n_formula_pref;
extern const rl_formula rl_formula_grpo[];
extern const size_t rl_n_formula_grpo;

#endif
