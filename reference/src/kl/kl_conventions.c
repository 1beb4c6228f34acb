/* kl_conventions.c -- the named per-token KL-estimator conventions
 * (CONVENTIONS.md "KL estimators"; seed 000 section 12.1, table 5 and
 * (13.26); seed 001): the seeds' definitions and what TRL (1.10
 * development line), verl (core_algos.py kl_penalty) and OpenRLHF 0.11
 * (compute_approx_kl) compute, in binary64 and, where the libraries run in
 * float32, in their binary32 operation order. */
#include <string.h>
#include "rlref/kl.h"

#define VERL "verl (1dda039) verl/trainer/ppo/core_algos.py "
#define VERL_PLUS VERL "kl_penalty, lines 2197-2212: one trailing \"+\" stripped, the " \
  "estimator's value detached and the gradient that of 0.5 (logprob - ref_logprob)^2 " \
  "(they work in verl's main since April 2026, #6058; earlier code passed the \"+\" name on " \
  "and raised NotImplementedError)"
#define TRL "TRL (1.10 development line, f2cd577) "
#define OPENRLHF "OpenRLHF 0.11 (3c3be62) openrlhf/models/utils.py compute_approx_kl"
#define ST_NAN "; where l^2 overflows binary64 (|l| > 1.34e154) verl's value is inf - inf = " \
  "NaN: refused (ERANGE)"

const rlref_kl_convention rlref_kl_conventions[] = {
  { "plain", "KL-K1", "k1 = l, gradient 1",
    "seed 000 table 5 and seed 001 (sampled_forward_kl); " VERL "kl_penalty_forward "
    "\"kl\"/\"k1\" (the in-reward KL's default, ray_trainer.py apply_kl_penalty); " TRL
    "trl/trainer/rloo_trainer.py RLOOTrainer._generate_and_score_completions (beta != 0: "
    "per_token_kl = old_per_token_logps - ref_per_token_logps, summed and taken from the "
    "reward, line 1531) and trl/experimental/ppo/ppo_trainer.py PPOTrainer.train "
    "(kl_estimator=\"k1\", its default: kl = -logr, logr = ref_logprobs - logprobs, lines "
    "773-774); in the log-probabilities' dtype, no clamp",
    RLREF_KL_K1, RLREF_KL_EXACT, 0, 0, RLREF_KL_ST_NONE, 0 },
  { "straight-through", "KL-K1",
    "value k1 = l, gradient that of k2: l (0.5 l^2 - (0.5 l^2).detach() + l.detach())" ST_NAN,
    VERL_PLUS "; kl_loss_type \"k1+\" (and \"kl+\")",
    RLREF_KL_K1, RLREF_KL_EXACT, 0, 0, RLREF_KL_ST, 0 },
  { "openrlhf", "KL-K1",
    "binary32: l = f32(logp) - f32(ref_logp) (+-inf for a log-probability beyond the binary32 "
    "range, as the float32 cast makes it, or for a difference that overflows), clamped to "
    "[-10, 10]; gradient 1 where -10 <= l <= 10, else 0 (l = +-inf: +-10 with gradient 0)",
    OPENRLHF "(kl_estimator=\"k1\", its default, in the reward; lines 78 and 95)",
    RLREF_KL_K1, RLREF_KL_F32_OPENRLHF, 0, 10, RLREF_KL_ST_NONE, 0 },
  { "plain", "KL-K2", "k2 = l^2/2, gradient l",
    "seed 000 table 5; " VERL "kl_penalty_forward \"k2\"/\"mse\" (line 2233), and kl_penalty "
    "\"k2+\"/\"mse+\", which take the straight-through path (line 2202 compares the name with "
    "its \"+\": the value (k2 - k2.detach()) + k2.detach(), the gradient l, the same but NaN in "
    "place of inf where l^2 overflows, both refused); the gradient of every verl \"+\" name",
    RLREF_KL_K2, RLREF_KL_EXACT, 0, 0, RLREF_KL_ST_NONE, 0 },
  { "openrlhf", "KL-K2",
    "binary32: l = f32(logp) - f32(ref_logp), k2 = f32(f32(l*l)/2) clamped to [-10, 10]; "
    "gradient l where k2 <= 10, else 0; where 2 l overflows binary32 (|l| >= 2^127, l = +-inf "
    "for a log-probability beyond the binary32 range) OpenRLHF's value is 10 but its gradient "
    "NaN (0 times inf in pow's backward): refused (ERANGE)",
    OPENRLHF "(kl_estimator=\"k2\", line 87)",
    RLREF_KL_K2, RLREF_KL_F32_OPENRLHF, 0, 10, RLREF_KL_ST_NONE, 0 },
  { "stable", "KL-K3",
    "k3 = e^-l - 1 + l = u - 1 - log u, u = e^-l (13.26), its exact value (no clamp); "
    "gradient 1 - e^-l",
    "seed 000 (13.26) and table 5; " TRL "trl/trainer/grpo_trainer.py GRPOTrainer._compute_loss "
    "(beta != 0: exp(ref - logp) - (ref - logp) - 1, lines 3071-3073) and "
    "trl/experimental/ppo/ppo_trainer.py PPOTrainer.train (kl_estimator=\"k3\": (logr.exp() - "
    "1) - logr, line 774), without clamp, in binary64 (trl-float32 and trl-ppo-float32 for "
    "their binary32 arithmetic)", RLREF_KL_K3, RLREF_KL_EXACT, 0, 0, RLREF_KL_ST_NONE, 0 },
  { "trl-float32", "KL-K3",
    "binary32 in TRL GRPOTrainer's order: d = f32(ref_logp) - f32(logp), k3 = (e^d - d) - 1, "
    "gradient 1 - e^d; no clamp: e^d overflowing binary32 (l < -88.72) makes TRL's k3 inf, and "
    "a log-probability beyond the binary32 range (+-inf) inf or NaN: refused (ERANGE)",
    TRL "trl/trainer/grpo_trainer.py GRPOTrainer._compute_loss (beta != 0, lines 3071-3073) on "
    "float32 log-probabilities (a float32 model's)",
    RLREF_KL_K3, RLREF_KL_F32_TRL, 0, 0, RLREF_KL_ST_NONE, 0 },
  { "trl-ppo-float32", "KL-K3",
    "binary32 in TRL PPOTrainer's order: d = logr = f32(ref_logp) - f32(logp), k3 = (e^d - 1) "
    "- d, gradient 1 - e^d (autograd's; the rollout computes it under no_grad); no clamp: e^d "
    "overflowing binary32 (l < -88.72) or a log-probability beyond the binary32 range makes "
    "TRL's k3 inf or NaN: refused (ERANGE)",
    TRL "trl/experimental/ppo/ppo_trainer.py PPOTrainer.train (kl_estimator=\"k3\", lines "
    "773-774) on float32 log-probabilities",
    RLREF_KL_K3, RLREF_KL_F32_TRL_PPO, 0, 0, RLREF_KL_ST_NONE, 0 },
  { "abs", "KL-VARIANTS", "abs = |l|, gradient sign(l) (0 at l = 0, as PyTorch's abs)",
    VERL "kl_penalty_forward \"abs\" (its docstring says it was copied from TRL's earlier "
    "PPOTrainer, kl_penalty=\"abs\"; not in TRL 1.10)",
    RLREF_KL_ABS, RLREF_KL_EXACT, 0, 0, RLREF_KL_ST_NONE, 0 },
  { "abs-straight-through", "KL-VARIANTS", "value |l|, gradient that of k2: l" ST_NAN,
    VERL_PLUS "; kl_loss_type \"abs+\"", RLREF_KL_ABS, RLREF_KL_EXACT, 0, 0, RLREF_KL_ST, 0 },
  { "verl-low-var-kl", "KL-K3,KL-VARIANTS",
    "k3 with d = ref_logp - logp clamped to [-20, 20] before exp and the result clamped to "
    "[-10, 10]: min(k3, 10), since k3 >= 0 and the first clamp binds only beyond k3 = 10; "
    "gradient 1 - e^-l where neither clamp binds, else 0",
    VERL "kl_penalty_forward \"low_var_kl\"/\"k3\" (lines 2238-2244; the GRPO example's "
    "kl_loss_type) in binary64, where its exp(d) - d - 1 cancels near l = 0 (verl-float32 for "
    "binary32)", RLREF_KL_K3, RLREF_KL_EXACT, 20, 10, RLREF_KL_ST_NONE, 0 },
  { "verl-float32", "KL-K3,KL-VARIANTS",
    "binary32 in verl's order: d = f32(ref_logp) - f32(logp) (+-inf for a log-probability "
    "beyond the binary32 range), clamped to [-20, 20], ratio = e^d, k3 = (ratio - d) - 1 "
    "clamped to [-10, 10]; gradient 1 - e^d where neither clamp binds, else 0; the clamps "
    "absorb every overflow",
    VERL "kl_penalty_forward \"low_var_kl\"/\"k3\" (lines 2238-2244) on float32 "
    "log-probabilities (no cast: the inputs' dtype)",
    RLREF_KL_K3, RLREF_KL_F32_TRL, 20, 10, RLREF_KL_ST_NONE, 0 },
  { "openrlhf", "KL-K3,KL-VARIANTS",
    "binary32 in OpenRLHF's order: l = f32(logp) - f32(ref_logp) (+-inf for a log-probability "
    "beyond the binary32 range), k3 = (e^-l - 1) + l clamped to [-10, 10], no clamp before "
    "exp; gradient 1 - e^-l where the clamp does not bind, else 0 (l = +inf: 10 with gradient "
    "0); at a finite l < -88.72 e^-l overflows binary32 and OpenRLHF gives the value 10 but a "
    "NaN gradient (0 times inf in exp's backward), at l = -inf the value NaN (inf - inf): "
    "refused (ERANGE)",
    OPENRLHF "(kl_estimator=\"k3\", lines 91 and 95)",
    RLREF_KL_K3, RLREF_KL_F32_OPENRLHF, 0, 10, RLREF_KL_ST_NONE, 0 },
  { "straight-through", "KL-K3",
    "value of verl's low_var_kl k3 (both clamps), gradient that of k2: l, unclamped" ST_NAN,
    VERL_PLUS "; kl_loss_type \"k3+\" (and \"low_var_kl+\")",
    RLREF_KL_K3, RLREF_KL_EXACT, 20, 10, RLREF_KL_ST, 0 },
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

/* KL-GRAD: each estimator as the gradient of a loss or a reward, on a
 * softmax (by its per-token convention above) and on the tiny LM. */
const rlref_kl_grad_convention rlref_kl_grad_conventions[] = {
  { "k1",
    "k1 = l as a loss: E_q[grad l] = E_q[grad log q] = 0, whatever q",
    "seed 000 section 12.1; a k1 loss term (verl kl_loss_type \"k1\")",
    .estimator_formula = "KL-K1", .estimator = "plain", .mode = RLREF_KL_AS_LOSS },
  { "k2",
    "k2 = l^2/2 as a loss: E_q[l grad log q] = grad KL(q || q_ref)",
    "seed 000 section 12.1; verl kl_loss_type \"k2\"",
    .estimator_formula = "KL-K2", .estimator = "plain", .mode = RLREF_KL_AS_LOSS },
  { "k3",
    "k3 (13.26) as a loss: E_q[(1 - e^-l) grad log q] = q - q_ref = grad KL(q_ref || q), "
    "the reverse KL's gradient",
    "seed 000 (13.24)-(13.26) and its GRPO code; TRL GRPOTrainer; "
    "verl's GRPO default",
    .estimator_formula = "KL-K3", .estimator = "stable", .mode = RLREF_KL_AS_LOSS },
  { "abs",
    "|l| as a loss: E_q[sign(l) grad log q]",
    "verl kl_loss_type \"abs\"",
    .estimator_formula = "KL-VARIANTS", .estimator = "abs", .mode = RLREF_KL_AS_LOSS },
  { "verl-low-var-kl",
    "verl's clamped k3 as a loss: the k3 gradient where k3 <= 10, 0 where a "
    "clamp binds",
    "verl kl_loss_type \"low_var_kl\"",
    .estimator_formula = "KL-K3", .estimator = "verl-low-var-kl", .mode = RLREF_KL_AS_LOSS },
  { "k1-straight-through",
    "value E[k1], gradient that of k2: grad KL(q || q_ref)",
    "verl kl_loss_type \"k1+\"",
    .estimator_formula = "KL-K1", .estimator = "straight-through", .mode = RLREF_KL_AS_LOSS },
  { "k3-straight-through",
    "value E[verl's clamped k3], gradient that of k2: grad KL(q || "
    "q_ref)",
    "verl kl_loss_type \"k3+\"",
    .estimator_formula = "KL-K3", .estimator = "straight-through", .mode = RLREF_KL_AS_LOSS },
  { "bias-corrected",
    "k3 rho as a loss, rho = q/q_old differentiable, on-policy: E_q[(k3' + "
    "k3) grad log q] = E_q[l grad log q] = grad KL(q || q_ref)",
    "TRL GRPOTrainer use_bias_correction_kl",
    .estimator_formula = "KL-K3", .estimator = "stable", .mode = RLREF_KL_AS_RATIO_LOSS },
  { "k1-reward",
    "k1 in the reward: the policy gradient E_q[k1 grad log q] = grad KL(q || "
    "q_ref)",
    "verl (use_kl_in_reward, k1) and OpenRLHF (k1, its default) put the KL in the "
    "reward",
    .estimator_formula = "KL-K1", .estimator = "plain", .mode = RLREF_KL_AS_REWARD },
  { "lm-k1",
    "the tiny LM (tabular, cut kept), k1 of the sequence as a loss: gradient 0 "
    "(LM-EXACT grad-k1)",
    "seed 000 section 12.1",
    .lm = 1, .lm_objective = RLREF_LM_OBJ_K1 },
  { "lm-k2",
    "the tiny LM, k2 as a loss: gradient grad KL(q || q_ref) (LM-EXACT grad-k2)",
    "seed 000 section 12.1",
    .lm = 1, .lm_objective = RLREF_LM_OBJ_K2 },
  { "lm-k3",
    "the tiny LM, k3 as a loss: gradient grad KL(q_ref || q) (LM-EXACT grad-k3)",
    "seed 000 section 12.1, (13.26)",
    .lm = 1, .lm_objective = RLREF_LM_OBJ_K3 },
};

const size_t rlref_kl_grad_num_conventions
  = sizeof rlref_kl_grad_conventions / sizeof rlref_kl_grad_conventions[0];
