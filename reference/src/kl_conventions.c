/* kl_conventions.c -- the named per-token KL-estimator conventions
 * (CONVENTIONS.md "KL estimators"; seed 000 section 12.1, table 5 and
 * (13.26); seed 001): the seeds' definitions and what TRL (1.10
 * development line), verl (core_algos.py kl_penalty) and OpenRLHF 0.11
 * (compute_approx_kl) compute. */
#include <string.h>
#include "rlref/kl.h"

#define VERL_PLUS "verl names ending in \"+\" (kl_loss_type); they work in verl's main " \
  "since April 2026 (its January 2026 code passed the \"+\" name on to the estimator and " \
  "raised NotImplementedError)"

const rlref_kl_convention rlref_kl_conventions[] = {
  { "plain", "KL-K1", "k1 = l, gradient 1",
    "seed 000 table 5 and seed 001 (sampled_forward_kl); verl kl_penalty \"kl\"/\"k1\" (the "
    "reward's KL, its default); TRL RLOOTrainer (beta times the summed k1 taken from the reward)",
    RLREF_KL_K1, RLREF_KL_EXACT, 0, 0, 0 },
  { "straight-through", "KL-K1", "value k1 = l, gradient that of k2: l",
    "verl kl_loss_type \"k1+\"; " VERL_PLUS, RLREF_KL_K1, RLREF_KL_EXACT, 0, 0, 1 },
  { "openrlhf", "KL-K1",
    "binary32: l = f32(logp) - f32(ref_logp), clamped to [-10, 10]; gradient 1 where "
    "-10 <= l <= 10, else 0",
    "OpenRLHF 0.11 compute_approx_kl(kl_estimator=\"k1\") (its default, in the reward)",
    RLREF_KL_K1, RLREF_KL_F32_OPENRLHF, 0, 10, 0 },
  { "plain", "KL-K2", "k2 = l^2/2, gradient l",
    "seed 000 table 5; verl kl_penalty \"mse\"/\"k2\" (and the gradient of every \"+\" name)",
    RLREF_KL_K2, RLREF_KL_EXACT, 0, 0, 0 },
  { "openrlhf", "KL-K2",
    "binary32: l = f32(logp) - f32(ref_logp), k2 = f32(f32(l*l)/2) clamped to [-10, 10]; "
    "gradient l where k2 <= 10, else 0",
    "OpenRLHF 0.11 compute_approx_kl(kl_estimator=\"k2\")",
    RLREF_KL_K2, RLREF_KL_F32_OPENRLHF, 0, 10, 0 },
  { "stable", "KL-K3",
    "k3 = e^-l - 1 + l = u - 1 - log u, u = e^-l (13.26), its exact value (no clamp); "
    "gradient 1 - e^-l",
    "seed 000 (13.26) and table 5; TRL GRPOTrainer (beta > 0) computes this value as "
    "exp(ref - logp) - (ref - logp) - 1, without clamp (see trl-float32 for its binary32 "
    "arithmetic)", RLREF_KL_K3, RLREF_KL_EXACT, 0, 0, 0 },
  { "trl-float32", "KL-K3",
    "binary32 in TRL's order: d = f32(ref_logp) - f32(logp), k3 = (e^d - d) - 1, gradient "
    "1 - e^d; no clamp: e^d overflowing binary32 (l < -88.72) makes TRL's k3 inf, refused "
    "(ERANGE)",
    "TRL GRPOTrainer (1.10 development line, beta > 0) on float32 log-probabilities",
    RLREF_KL_K3, RLREF_KL_F32_TRL, 0, 0, 0 },
  { "abs", "KL-VARIANTS", "abs = |l|, gradient sign(l) (0 at l = 0, as PyTorch's abs)",
    "verl kl_penalty \"abs\" (its code says it was copied from TRL's earlier PPOTrainer, "
    "kl_penalty=\"abs\")",
    RLREF_KL_ABS, RLREF_KL_EXACT, 0, 0, 0 },
  { "abs-straight-through", "KL-VARIANTS", "value |l|, gradient that of k2: l",
    "verl kl_loss_type \"abs+\"; " VERL_PLUS, RLREF_KL_ABS, RLREF_KL_EXACT, 0, 0, 1 },
  { "verl-low-var-kl", "KL-K3,KL-VARIANTS",
    "k3 with ref_logp - logp clamped to [-20, 20] before exp and the result clamped to "
    "[-10, 10]: min(k3, 10), since k3 >= 0 and the first clamp binds only beyond k3 = 10; "
    "gradient 1 - e^-l where neither clamp binds, else 0",
    "verl kl_penalty \"low_var_kl\"/\"k3\" (the GRPO example's kl_loss_type)",
    RLREF_KL_K3, RLREF_KL_EXACT, 20, 10, 0 },
  { "openrlhf", "KL-K3",
    "binary32 in OpenRLHF's order: l = f32(logp) - f32(ref_logp), k3 = (e^-l - 1) + l clamped "
    "to [-10, 10], no clamp before exp; gradient 1 - e^-l where the clamp does not bind, else "
    "0; e^-l overflowing binary32 (l < -88.72) gives OpenRLHF the value 10 but a NaN gradient "
    "(0 times inf in exp's backward): refused (ERANGE)",
    "OpenRLHF 0.11 compute_approx_kl(kl_estimator=\"k3\")",
    RLREF_KL_K3, RLREF_KL_F32_OPENRLHF, 0, 10, 0 },
  { "straight-through", "KL-K3",
    "value of verl's low_var_kl k3 (both clamps), gradient that of k2: l, unclamped",
    "verl kl_loss_type \"k3+\"; " VERL_PLUS, RLREF_KL_K3, RLREF_KL_EXACT, 20, 10, 1 },
};

const size_t rlref_kl_num_conventions = sizeof rlref_kl_conventions / sizeof rlref_kl_conventions[0];

/* 1 when the comma list names name. */
static int
lists (const char *list, const char *name)
{
  size_t n = strlen (name);
  for (const char *s = list; s && *s;)
    {
      const char *e = strchr (s, ',');
      size_t len = e ? (size_t) (e - s) : strlen (s);
      if (len == n && strncmp (s, name, n) == 0)
        return 1;
      s = e ? e + 1 : NULL;
    }
  return 0;
}

const rlref_kl_convention *
rlref_kl_convention_find (const char *formula, const char *name)
{
  for (size_t i = 0; formula && name && i < rlref_kl_num_conventions; i++)
    if (lists (rlref_kl_conventions[i].formulas, formula)
        && strcmp (rlref_kl_conventions[i].name, name) == 0)
      return &rlref_kl_conventions[i];
  return NULL;
}
