/* rlvr_conventions.c -- the named conventions of the RLVR formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/rlvr.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/rlvr.h"

static const enum rlref_prm_aggregation agg_min = RLREF_PRM_MIN;
static const enum rlref_prm_aggregation agg_product = RLREF_PRM_PRODUCT;
static const enum rlref_prm_aggregation agg_mean = RLREF_PRM_MEAN;
static const enum rlref_prm_aggregation agg_last = RLREF_PRM_LAST;
static const enum rlref_prm_label soft = RLREF_PRM_SOFT;
static const enum rlref_prm_label hard = RLREF_PRM_HARD;

const rlref_convention rlref_rlvr_conventions[] = {
  { "soft", "RLVR-PRM-MC", "expectation",
    "label = hits/N (Math-Shepherd's soft estimate): mean p = P(right answer | the "
      "step), variance p (1 - p)/N; p by the tree's recursion, siblings weighted by their weights",
    "Math-Shepherd (soft estimation); seed 000 section 10.2 (the empirical probability of "
      "reaching the right answer)",
    .setting = &soft },
  { "hard", "RLVR-PRM-MC", "expectation",
    "label = 1 if any of the N completions reaches the right answer (Math-Shepherd's "
      "hard estimate): mean E = 1 - (1 - p)^N, variance E (1 - E)",
    "Math-Shepherd (hard estimation)",
    .setting = &hard },
  { "soft-count", "RLVR-PRM-MC", "estimate",
    "label = hits/N from observed counts",
    "Math-Shepherd (soft estimation)",
    .setting = &soft },
  { "hard-count", "RLVR-PRM-MC", "estimate",
    "label = 1 if hits > 0 else 0",
    "Math-Shepherd (hard estimation)",
    .setting = &hard },
  { "prm-min", "RLVR-REWARD", "aggregate",
    "score = min_k s_k: a solution is as good as its weakest step",
    "Math-Shepherd (the minimum step score ranks the solutions); reward_hub's \"min\"",
    .setting = &agg_min },
  { "prm-product", "RLVR-REWARD", "aggregate",
    "score = prod_k s_k: the probability that every step is correct",
    "Lightman et al. 2023 (PRM800K: the product of the step probabilities); reward_hub's "
      "\"prod\"",
    .setting = &agg_product },
  { "prm-mean", "RLVR-REWARD", "aggregate",
    "score = (1/n) sum_k s_k (exact sum, rounded once)",
    "the average step score, a further aggregation of PRM best-of-n reranking (the seeds name "
      "none)",
    .setting = &agg_mean },
  { "prm-last", "RLVR-REWARD", "aggregate",
    "score = s_n: the last step's score, the PRM read as an outcome model",
    "reward_hub's \"last\"; the outcome-reward end of ORM against PRM (seed 000 section 10.2)",
    .setting = &agg_last },
  { 0 },
};
