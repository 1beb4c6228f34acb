/* grpo_conventions.c -- the named group-advantage conventions
 * (CONVENTIONS.md "Group advantage"; seed 000 13.23 and its pseudo-code,
 * seeds 001 and 003; TRL, verl and OpenRLHF as their code computes). */
#include <string.h>
#include "rlref/grpo.h"

const rlref_adv_convention rlref_adv_conventions[] = {
  { "seed-000",
    "(r - mean)/(std + eps) if std > 0, else 0; ddof 0; eps 0 (13.23 writes +eps without a value: "
    "0 is our reading)",
    "seed 000 (13.23); its worked example [1,0,0,1] -> std 0.5 implies ddof 0",
    RLREF_SCALE_GROUP_STD, 0, 0.0, RLREF_GUARD_POSITIVE, RLREF_SINGLE_ZERO, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
  { "seed-000-code", "(r - mean)/(std + 1e-8), ddof 0, no std > 0 branch; group of one -> 0",
    "seed 000's pseudo-code (A = (ri - mu)/(sd + 1e-8) in its GRPO loop; ddof 0 as 13.23's example)",
    RLREF_SCALE_GROUP_STD, 0, 1e-8, RLREF_GUARD_NONE, RLREF_SINGLE_ZERO, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
  { "seed-001", "(r - mean)/(std + eps) if std > eps, else exactly 0; ddof 0, eps 1e-8",
    "seed 001 (group_advantages; the seed names no eps value, 1e-8 is ours)",
    RLREF_SCALE_GROUP_STD, 0, 1e-8, RLREF_GUARD_EPS, RLREF_SINGLE_ZERO, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
  { "seed-003",
    "(r - mean)/(std + eps), ddof 1, eps 0 (the seed writes +eps without a value and its worked "
    "example drops it: 0 is our reading); zero variance or a group of one -> 0",
    "seed 003 (its worked example [0.2,0.8,0.4,0.6] -> sigma 0.26 holds for ddof 1 only)",
    RLREF_SCALE_GROUP_STD, 1, 0.0, RLREF_GUARD_POSITIVE, RLREF_SINGLE_ZERO, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
  { "trl",
    "(r - mean)/(std + 1e-4), ddof 1, exact; NaN rewards left out of mean and std, advantage 0; "
    "a group of one, with fewer than two scorable rewards, or with an infinite reward -> 0 "
    "(nan_to_num). TRL itself computes in float32 (eps float32(1e-4)) and rounds the Bessel "
    "factor n/(n-1) to float32 even for float64 rewards: it agrees to about 8 digits",
    "TRL (1.10 development line), scale_rewards=\"group\"",
    RLREF_SCALE_GROUP_STD, 1, 1e-4, RLREF_GUARD_NONE, RLREF_SINGLE_ZERO, RLREF_NAN_SKIP,
    RLREF_EPS_ADD_STD },
  { "trl-float32",
    "trl as TRL computes it on its float32 rewards: every step rounded to binary32, sums in index "
    "order: mean = nansum/n, var = nanmean((r - mean)^2) * f32(n/(n - 1)), "
    "(r - mean)/(sqrt(var) + f32(1e-4)); then NaN -> 0 (rewards beyond binary32 are inf: 0)",
    "TRL (1.10 development line), scale_rewards=\"group\", float32 rewards (its default)",
    RLREF_SCALE_F32_TRL, 1, 1e-4, RLREF_GUARD_NONE, RLREF_SINGLE_ZERO, RLREF_NAN_SKIP,
    RLREF_EPS_ADD_STD },
  { "verl",
    "(r - mean)/(std + 1e-6), ddof 1; group of one: mean 0, std 1 (r/(1 + 1e-6)); NaN or "
    "infinite rewards refused (verl returns NaN advantages for the group)",
    "verl (August 2026 main), compute_grpo_outcome_advantage",
    RLREF_SCALE_GROUP_STD, 1, 1e-6, RLREF_GUARD_NONE, RLREF_SINGLE_RAW, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
  { "verl-vectorized-old",
    "binary32, sums in index order: var = (s2 - s1*s1/n)/(n - 1), std = sqrt(max(var, 1e-6)), "
    "(r - s1/n)/(std + 1e-6); group of one: mean 0, std 1; binary32 overflow refused (ERANGE)",
    "verl's opt-in grpo_vectorized estimator, September 2025 to May 2026 (commit 4ff3ce2, "
    "core_algos.py compute_grpo_vectorized_outcome_advantage with groupwise.py "
    "group_mean_std), on float32 scores (the trainer's)",
    RLREF_SCALE_F32_ONEPASS, 1, 1e-6, RLREF_GUARD_NONE, RLREF_SINGLE_RAW, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
  { "openrlhf",
    "(r - mean)/(std + 1e-9), ddof 1; a group of one is refused (n_samples_per_prompt > 1 is "
    "asserted); NaN or infinite rewards refused (OpenRLHF returns NaN)",
    "OpenRLHF 0.11 (group_norm)",
    RLREF_SCALE_GROUP_STD, 1, 1e-9, RLREF_GUARD_NONE, RLREF_SINGLE_REFUSE, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
  { "eps-in-sqrt", "(r - mean)/sqrt(var + 1e-8), ddof 1; group of one -> 0",
    "catalogue GRPO-ADV (eps inside the square root); the form TRL and verl whiten advantages with",
    RLREF_SCALE_GROUP_STD, 1, 1e-8, RLREF_GUARD_NONE, RLREF_SINGLE_ZERO, RLREF_NAN_REFUSE,
    RLREF_EPS_IN_SQRT },
  { "no-std", "r - mean (Dr.GRPO)",
    "seed 000 and 003 (Dr.GRPO); TRL, verl and OpenRLHF by switch",
    RLREF_SCALE_NONE, 0, 0.0, RLREF_GUARD_NONE, RLREF_SINGLE_ZERO, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
  { "batch-std",
    "(r - group mean)/(std of the whole batch + 1e-4), ddof 1, exact; NaN rewards as in trl; a "
    "batch of one, or with fewer than two scorable rewards, -> 0; an infinite reward -> every "
    "advantage 0 (its group's, and the others' over an infinite std)",
    "TRL scale_rewards=\"batch\"",
    RLREF_SCALE_BATCH_STD, 1, 1e-4, RLREF_GUARD_NONE, RLREF_SINGLE_ZERO, RLREF_NAN_SKIP,
    RLREF_EPS_ADD_STD },
  { "verl-vectorized-old-float64",
    "verl-vectorized-old on float64 scores: the group mean and std in binary32 as there "
    "(group_mean_std converts the scores to float32: sums in index order, var = (s2 - "
    "s1*s1/n)/(n - 1), std = sqrt(max(var, 1e-6)), a group of one mean 0 and std 1), then "
    "A = (r - mean)/f32(std + 1e-6) in float64 (r unrounded; equal rewards 0.1, 0.1, 0.1 "
    "give -1.49e-6); binary32 overflow refused (ERANGE)",
    "verl's opt-in grpo_vectorized estimator (commit 4ff3ce2, core_algos.py "
    "compute_grpo_vectorized_outcome_advantage, groupwise.py group_mean_std) on float64 "
    "scores: the float32 statistics broadcast into float64 differences",
    RLREF_SCALE_F32_STATS, 1, 1e-6, RLREF_GUARD_NONE, RLREF_SINGLE_RAW, RLREF_NAN_REFUSE,
    RLREF_EPS_ADD_STD },
};

const size_t rlref_adv_num_conventions
  = sizeof rlref_adv_conventions / sizeof rlref_adv_conventions[0];

const rlref_adv_convention *
rlref_adv_convention_find (const char *name)
{
  for (size_t i = 0; name && i < rlref_adv_num_conventions; i++)
    if (strcmp (rlref_adv_conventions[i].name, name) == 0)
      return &rlref_adv_conventions[i];
  return NULL;
}
