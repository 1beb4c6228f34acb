/* prefpairs_conventions.c -- the named conventions of the PREFPAIRS formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/prefpairs.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/prefpairs.h"

const rlref_convention rlref_prefpairs_conventions[] = {
  { "sum", "PREF-PAIRS", "loss",
    "loss = sum over the C(K,2) pairs (k < l) of -log sigma(s_{pi_k} - s_{pi_l}) "
      "(13.6, 13.7 per pair), the pairs as independent comparisons; grad = d loss / d s",
    "seed 000 section 10.1 (the C(K,2) independent pairs it contrasts with Plackett-Luce)",
    .params = { { "mean_over_pairs", 0, .is_int = 1 } } },
  { "instructgpt", "PREF-PAIRS", "loss",
    "loss = (1/C(K,2)) sum over the pairs of -log sigma(s_{pi_k} - s_{pi_l}); "
      "grad = d loss / d s",
    "InstructGPT (eq. 1: the C(K,2) comparisons of a prompt as one batch element); TRL "
      "RewardTrainer given the C(K,2) pairs as one batch (its loss is the batch mean)",
    .params = { { "mean_over_pairs", 1, .is_int = 1 } } },
  { "mle", "PREF-PAIRS", "mle",
    "maximum-likelihood scores (mean zero) of sum_m c_m sum_{k<l} log sigma(s_{pi_m,k} "
      "- s_{pi_m,l}): the Bradley-Terry fit of the pair counts W_ij = sum of the counts of the "
      "rankings placing i above j (GSL fit, Newton polish)",
    "seed 000 section 10.1 (the pairwise alternative); InstructGPT's pairs fitted as one "
      "Bradley-Terry model",
    .setting = NULL },
  { "compare", "PREF-PAIRS", "compare",
    "the Plackett-Luce fit and the pairwise fit of the same counted rankings, "
      "the Plackett-Luce log-likelihood at both and the pairwise one at its own (GSL fits, "
      "Newton polish)",
    "seed 000 section 10.1 (Plackett-Luce against C(K,2) independent pairs)",
    .setting = NULL },
  { 0 },
};
