/* ppo_conventions.c -- the named PPO conventions (seed 000 section 3,
 * (13.9)-(13.12); seeds 001 and 003; TRL, verl and OpenRLHF as their code
 * computes): for each formula, what each seed's and library's reading
 * computes, the parameter values it sets, who uses it and its setting, in
 * the order of the golden variants (rlref/ppo.h names each formula's
 * setting type). */
#include "rlref/convention.h"
#include "rlref/lm.h"
#include "rlref/ppo.h"

/* The float32 readings: the binary32 recurrence of the library's code. */
#define F32_RULE "; every operation in binary32 in the library's order (e^x and sqrt correctly " \
  "rounded, a row summed in the order of torch's CPU kernel: for up to 7 terms four "   \
  "accumulators a_j += x_{4k+j}, the rest added to a_0, then ((a_0 + a_1) + a_2) + a_3); "  \
  "ERANGE where the library's value is inf or NaN"

#define L_DEF "l = logp - ref; "

#define END_LAST "the score on the last token of the mask"

#define END_TRL "the response ends at the first 0 of the mask (TRL's sequence_length, from "  \
  "the first pad token; both log-probabilities are INVALID_LOGPROB after it, so kl = 0 on "  \
  "every later slot, a later 1 included); the score on the first padded slot "               \
  "(sequence_length + 1) when the row has one, else on the last token"

#define TRL_ROLLOUT "TRL 1.10 (f2cd577) PPOTrainer.train, trl/experimental/ppo/"           \
  "ppo_trainer.py: 727 sequence_length = first_true_indices(response == pad) - 1, 763-766 "   \
  "padding_mask and the INVALID_LOGPROB fill, 773-774 logr = ref_logprobs - logprobs and kl, " \
  "775-779 non_score_reward = -kl_coef kl and rewards[actual_end] += scores"

#define ORL_REWARD "OpenRLHF 0.11 (3c3be62) openrlhf/models/utils.py compute_approx_kl "      \
  "(64-95: log_ratio = log_probs.float() - log_probs_base.float(), clamp(min=-10, max=10)) "  \
  "and compute_reward (98-126: kl_coef <= 0 set to 0, r.clamp(reward_clip_range), "          \
  "kl_reward = -kl_coef * kl at every token, the score scattered at the last 1 of the "       \
  "action mask), experience_maker.py info[\"return\"] = reward.sum(dim=-1); "                \
  "--algo.kl.init_coef 0.01, --reward.clip_range -10 10"

#define ORL_RULE_A "in binary32 (log_probs.float(): a float64 run too): l = f32(f32(logp) - " \
  "f32(ref)); kl_t = "

#define ORL_RULE_B " clamped to [-10, 10] at every token, masked ones included "                \
  "(compute_approx_kl and compute_reward mask nothing: only the return recursions drop a "     \
  "masked reward; reward_sum keeps it); beta <= 0 taken as 0; the score clamped to "           \
  "[-10, 10] (reward.clip_range) and cast to binary32, added on the last token of the mask; "  \
  "r_t = f32(score [t = end] + f32(f32(-beta) kl_t)); reward_sum = reward.sum(-1) and kl_sum " \
  "binary32 sums; init_coef 0.01" F32_RULE

#define KLSUM_RULE "every sequence counts, a cut one with its prefix probability (the "   \
  "probabilities sum to 1); the per-token log-ratios of each sequence summed, their "      \
  "expectation under pi against KL(pi || pi_ref) of rlref's sequence-level objective"

#define TRL_RATIO "TRL 1.10 (f2cd577) PPOTrainer.train (ppo_trainer.py:841-842 logprobs_diff " \
  "= new_logprobs - mb_logprobs, ratio = torch.exp(logprobs_diff)) and GRPOTrainer."          \
  "_compute_loss (grpo_trainer.py:3054, 3066: log_ratio = per_token_logps - "                 \
  "old_per_token_logps, coef_1 = torch.exp(log_ratio), importance_sampling_level \"token\")"

#define CLAMP_RATIO "verl (1dda039) core_algos.py compute_policy_loss_vanilla (1336-1339: "    \
  "negative_approx_kl = log_prob - old_log_prob, torch.clamp(min=-20.0, max=20.0), "           \
  "torch.exp); OpenRLHF 0.11 (3c3be62) loss.py PolicyLoss.forward (166-169, policy_loss_type " \
  "\"ppo\": raw_policy_log_ratio.clamp(min=-20.0, max=20.0).exp()): the same operations"

#define CLIP_RULE "s = min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A), loss = -token mean; "

#define CLIP32_RULE "in binary32: a = f32(A), l = f32(f32(logp) - f32(old_logp)), rho = "  \
  "f32(e^l), lo = f32(1 - eps_low), hi = f32(1 + eps_high), s = min(f32(a rho), f32(a clamp(rho, " \
  "lo, hi))), loss = f32(S/N) of the binary32 sum S of -s; grad f32(f32(f32(1/N) (-a)) rho) " \
  "as autograd forms it; "

#define CF32 "; the clip fraction the binary32 mean of the 0/1 mask, f32(k/N), as the library " \
  "logs it in a float64 run too ("

#define CF_EXACT "; the clip fraction k/N exactly"

#define TRL_PPO_POLICY "TRL 1.10 (f2cd577) PPOTrainer.train, trl/experimental/ppo/"         \
  "ppo_trainer.py: 765 and 824-826 (logprobs and new_logprobs masked_fill(padding_mask, "      \
  "INVALID_LOGPROB = 1.0)), 841-847 (ratio = torch.exp(new_logprobs - mb_logprobs), "         \
  "pg_losses = -A ratio, pg_losses2 = -A torch.clamp(ratio, 1 - cliprange, 1 + cliprange), "   \
  "torch.max, masked_mean = (x * mask).sum() / mask.sum()), 852-854 (pg_clipfrac = "          \
  "masked_mean((pg_losses2 > pg_losses).float(), ~padding_mask)); cliprange 0.2"

#define TRL_MASKED "rho = exp(logp - old_logp) unclamped, and rho = 1 at a masked token (TRL "  \
  "fills both log-probabilities with INVALID_LOGPROB = 1.0 at padding: the ratio output is 1 " \
  "there, a masked token's loss finite)"

#define TRL_GRPO_POLICY "TRL 1.10 (f2cd577) GRPOTrainer._compute_loss, trl/trainer/"        \
  "grpo_trainer.py: 3054-3066 (log_ratio, coef_1 = torch.exp(log_ratio)), 3083-3090 (coef_2 " \
  "= torch.clamp(coef_1, 1 - epsilon_low, 1 + epsilon_high), -torch.min), 3128-3142 (bnpo: "   \
  "(loss * mask).sum() / mask.sum().clamp(min=1); dapo: over num_items_in_batch), 3242-3249 "   \
  "(clip_ratio/region_mean = global_masked_mean(is_region_clipped.float()))"

#define VERL_POLICY "verl (1dda039) core_algos.py compute_policy_loss_vanilla (1336-1367: "   \
  "the log-ratio clamp, pg_losses1/2, torch.maximum, pg_losses3 = -A clip_ratio_c, "          \
  "torch.where(A < 0, ...), agg_loss token-mean; 1353 pg_clipfrac = "                          \
  "masked_mean(torch.gt(pg_losses2, pg_losses1).float(), response_mask))"

#define ORL_POLICY "OpenRLHF 0.11 (3c3be62) loss.py PolicyLoss (166-228: policy_loss_type "   \
  "\"ppo\", the log-ratio clamp(-20, 20), surr1 = ratio A, surr2 = ratio.clamp(1 - eps_low, "  \
  "1 + eps_high) A, aggregate_loss token mean; 228 clip_ratio = "                              \
  "masked_mean(torch.lt(surr2, surr1).float(), action_mask))"

#define TRL_VALUE "TRL 1.10 (f2cd577) PPOTrainer.train, trl/experimental/ppo/ppo_trainer.py: "  \
  "769 values = masked_fill(values, padding_mask_p1, 0) at the rollout, 828 vpred = "          \
  "masked_fill(vpred, padding_mask_p1, 0), 829-840 (vpredclipped = torch.clamp(vpred, "       \
  "mb_values - cliprange_value, mb_values + cliprange_value), torch.square, vf_loss_max = "     \
  "torch.max(...) not zeroed at padding, vf_loss = 0.5 masked_mean, vf_clipfrac = "            \
  "masked_mean((vf_losses2 > vf_losses1).float(), ...))"

#define VERL_VALUE "verl (1dda039) core_algos.py compute_value_loss (2170-2183: "              \
  "clip_by_value(vpreds, values - c, values + c) = torch.max(torch.min(x, hi), lo) "           \
  "(torch_functional.py:227), (x - returns) ** 2, torch.max, 0.5 agg_loss token-mean, "        \
  "vf_clipfrac = masked_mean(torch.gt(vf_losses2, vf_losses1).float(), response_mask))"

#define ORL_VALUE "OpenRLHF 0.11 (3c3be62) loss.py ValueLoss (233-269: values_clipped = "      \
  "old_values + (values - old_values).clamp(-clip_eps, clip_eps), torch.max of the squares, "  \
  "aggregate_loss, 0.5 *; it returns no clip fraction)"

#define AUTOGRAD_TIE "; the gradient as autograd forms it: torch.max halves it between the "  \
  "squares at a tie, "

#define F32_BESSEL "; var = the ddof-0 variance times f32(N/(N - 1)): mask_sum / (mask_sum - 1) " \
  "divides two int64 tensors, a float32 quotient (f32(4/3) = 1.3333333730697632; 3/2 exact), " \
  "in a float64 run too"

#define TRL_WHITEN "TRL 1.10 (f2cd577) trl/experimental/ppo/ppo_trainer.py masked_mean (237), " \
  "masked_var (245-261: bessel_correction = mask_sum / (mask_sum - 1), line 259), "             \
  "masked_whiten (264-270: (values - mean) * torch.rsqrt(var + 1e-8))"

#define VERL_WHITEN "verl (1dda039) verl/utils/torch_functional.py masked_mean (294-308: s / " \
  "(mask.sum() + 1e-8)), masked_var (311-326: the Bessel factor at line 324), masked_whiten "  \
  "(329-346)"


static const rlref_ppo_tokrew_convention seed_k1 = { .kl = RLREF_PPO_K1 };
static const rlref_ppo_tokrew_convention trl_k1 = {
  .kl = RLREF_PPO_K1, .score_after_last = 1, .mask_prefix = 1
};
static const rlref_ppo_tokrew_convention trl_k3 = {
  .kl = RLREF_PPO_K3, .score_after_last = 1, .mask_prefix = 1
};
static const rlref_ppo_tokrew_convention verl_k1 = { .kl = RLREF_PPO_K1 };
static const rlref_ppo_tokrew_convention verl_k3 = {
  .kl = RLREF_PPO_K3, .clamp_log_ratio = 1, .clamp_estimate = 1
};
static const rlref_ppo_tokrew_convention orl_k1 = {
  .kl = RLREF_PPO_K1, .clamp_estimate = 1, .keep_masked = 1, .clamp_score = 1, .beta_floor = 1
};
static const rlref_ppo_tokrew_convention orl_k2 = {
  .kl = RLREF_PPO_K2, .clamp_estimate = 1, .keep_masked = 1, .clamp_score = 1, .beta_floor = 1
};
static const rlref_ppo_tokrew_convention orl_k3 = {
  .kl = RLREF_PPO_K3, .clamp_estimate = 1, .keep_masked = 1, .clamp_score = 1, .beta_floor = 1
};
static const rlref_lm_kind tabular = RLREF_LM_TABULAR;
static const rlref_lm_kind bigram = RLREF_LM_BIGRAM;
static const int ratio_plain = 0;
static const int ratio_clamp = 1;
static const rlref_ppo_clip_ex_convention clip_plain = { 0 };
static const rlref_ppo_clip_ex_convention clip_trl = { .clipfrac_f32 = 1, .masked_ratio_one = 1 };
static const rlref_ppo_clip_ex_convention clip_trl_grpo = { .clipfrac_f32 = 1 };
static const rlref_ppo_clip_ex_convention clip_clamped = {
  .clip = { .clamp_log_ratio = 1 }, .clipfrac_f32 = 1
};
static const rlref_ppo_clip_ex_convention clip_dual = {
  .clip = { .clamp_log_ratio = 1, .dual_clip = 1 }, .clipfrac_f32 = 1
};
static const rlref_ppo_clip_f32_convention clip_trl32 = {
  .lib = RLREF_PPO_LIB_TRL, .masked_ratio_one = 1
};
static const rlref_ppo_clip_f32_convention clip_verl32 = {
  .clip = { .clamp_log_ratio = 1, .dual_clip = 1 }, .lib = RLREF_PPO_LIB_VERL
};
static const rlref_ppo_clip_f32_convention clip_orl32 = {
  .clip = { .clamp_log_ratio = 1 }, .lib = RLREF_PPO_LIB_OPENRLHF
};
static const rlref_ppo_clip_ex_convention clip_trl_delta = { .clipfrac_f32 = 1, .ratio_cap = 1 };
static const rlref_ppo_clip_f32_convention clip_orl32_dual = {
  .clip = { .clamp_log_ratio = 1, .dual_clip = 1 }, .lib = RLREF_PPO_LIB_OPENRLHF
};
static const rlref_ppo_value_convention value_seed = { .clip = RLREF_PPO_VALUE_UNCLIPPED };
static const rlref_ppo_value_convention value_trl = {
  .half = 1, .clip = RLREF_PPO_VALUE_CLAMP, .clipfrac_f32 = 1, .masked_zero = 1
};
static const rlref_ppo_value_convention value_verl = {
  .half = 1, .clip = RLREF_PPO_VALUE_MAXMIN, .clipfrac_f32 = 1
};
static const rlref_ppo_value_convention value_delta = {
  .half = 1, .clip = RLREF_PPO_VALUE_DELTA
};
static const rlref_ppo_value_convention value_half = {
  .half = 1, .clip = RLREF_PPO_VALUE_UNCLIPPED
};
static const rlref_ppo_objective_convention obj_trl = { .entropy_all_f32 = 1 };
static const rlref_ppo_value_f32_convention value_trl32 = {
  .value = { .half = 1, .clip = RLREF_PPO_VALUE_CLAMP, .clipfrac_f32 = 1, .masked_zero = 1 },
  .lib = RLREF_PPO_LIB_TRL
};
static const rlref_ppo_value_f32_convention value_verl32 = {
  .value = { .half = 1, .clip = RLREF_PPO_VALUE_MAXMIN, .clipfrac_f32 = 1 },
  .lib = RLREF_PPO_LIB_VERL
};
static const rlref_ppo_value_f32_convention value_orl32 = {
  .value = { .half = 1, .clip = RLREF_PPO_VALUE_DELTA, .clipfrac_f32 = 1 },
  .lib = RLREF_PPO_LIB_OPENRLHF
};
static const rlref_ppo_whiten_convention w_trl = {
  .ddof = 1, .eps_at = RLREF_PPO_EPS_IN_SQRT, .zero_masked = 1, .bessel_f32 = 1
};
static const rlref_ppo_whiten_convention w_verl = {
  .ddof = 1, .eps_at = RLREF_PPO_EPS_IN_SQRT, .bessel_f32 = 1
};
static const rlref_ppo_whiten_convention w_trl_rewards = {
  .ddof = 1, .eps_at = RLREF_PPO_EPS_IN_SQRT, .readd_mean = 1, .zero_masked = 1, .bessel_f32 = 1
};
static const rlref_ppo_whiten_f32_convention w_orl64 = {
  .lib = RLREF_PPO_LIB_OPENRLHF, .apply_f64 = 1
};
static const rlref_ppo_whiten_convention w_outside = {
  .ddof = 1, .eps_at = RLREF_PPO_EPS_ADD_STD
};
static const rlref_ppo_whiten_f32_convention w_trl32 = {
  .lib = RLREF_PPO_LIB_TRL, .zero_masked = 1
};
static const rlref_ppo_whiten_f32_convention w_verl32 = { .lib = RLREF_PPO_LIB_VERL };
static const rlref_ppo_whiten_f32_convention w_orl32 = { .lib = RLREF_PPO_LIB_OPENRLHF };
static const rlref_ppo_whiten_f32_convention w_trl_rewards32 = {
  .lib = RLREF_PPO_LIB_TRL, .readd_mean = 1, .zero_masked = 1
};
static const int ctl_adaptive = 1;
static const int ctl_fixed = 0;
static const int stop_after = 0;
static const int stop_before = 1;

const rlref_convention rlref_ppo_conventions[] = {
  { "seed-000", "PPO-TOKREW", "tokrew",
    L_DEF "r_t = -beta l_t + score [t = T] (13.9, k1, unclamped); " END_LAST
      "; masked tokens carry no penalty; beta 0.1 (the seed gives no value)",
    "seed 000 (13.9) and its pseudo-code (r += -beta (logp_old - logp_ref))",
    .params = { { "beta", 0.1 } }, .setting = &seed_k1 },
  { "trl-k1", "PPO-TOKREW", "tokrew",
    L_DEF "kl_t = l_t (kl_estimator=\"k1\", no clamp); r_t = -kl_coef kl_t, plus "
      END_TRL "; in the run's dtype (float64 throughout in a float64 run); kl_coef 0.05",
    TRL_ROLLOUT " (kl_estimator \"k1\", the default; kl_coef 0.05)",
    .params = { { "beta", 0.05 } }, .setting = &trl_k1 },
  { "trl-k3", "PPO-TOKREW", "tokrew",
    L_DEF "kl_t = (e^{-l} - 1) + l (kl_estimator=\"k3\", no clamp: e^{-l} overflows "
      "binary32 for l < -88.7); " END_TRL "; in the run's dtype; kl_coef 0.05",
    TRL_ROLLOUT " (kl_estimator \"k3\": kl = (logr.exp() - 1) - logr; kl_coef 0.05)",
    .params = { { "beta", 0.05 } }, .setting = &trl_k3 },
  { "verl-k1", "PPO-TOKREW", "tokrew",
    L_DEF "kl_t = mask_t l_t (kl_penalty \"kl\", no clamp; kld * response_mask); "
      "r_t = -kl_coef kl_t, the score on the last response token; kl_coef 0.001",
    "verl (1dda039) ray_trainer.py apply_kl_penalty (78-117) with algorithm.use_kl_in_reward "
      "(kl_penalty \"kl\", the default; FixedKLController kl_coef 0.001)",
    .params = { { "beta", 0.001 } }, .setting = &verl_k1 },
  { "verl-low-var-kl", "PPO-TOKREW", "tokrew",
    L_DEF "c = clamp(-l, -20, 20), kl_t = mask_t clamp(e^c - c - 1, -10, "
      "10); " END_LAST "; kl_coef 0.001",
    "verl (1dda039) apply_kl_penalty, core_algos.py kl_penalty_forward \"low_var_kl\" (or "
      "\"k3\"; 2238-2244)",
    .params = { { "beta", 0.001 } }, .setting = &verl_k3 },
  { "openrlhf-k1", "PPO-TOKREW", "tokrew",
    ORL_RULE_A "l (k1)" ORL_RULE_B,
    ORL_REWARD " (--algo.kl.estimator k1, the default)",
    .params = { { "beta", 0.01 } }, .binary32 = 1, .setting = &orl_k1 },
  { "openrlhf-k2", "PPO-TOKREW", "tokrew",
    ORL_RULE_A "f32(f32(l l)/2) (k2, log_ratio**2 / 2.0; a square beyond the "
      "binary32 range clamps to 10)" ORL_RULE_B,
    ORL_REWARD " (--algo.kl.estimator k2)",
    .params = { { "beta", 0.01 } }, .binary32 = 1, .setting = &orl_k2 },
  { "openrlhf-k3", "PPO-TOKREW", "tokrew",
    ORL_RULE_A "f32(f32(f32(e^{-l}) - 1) + l) (k3; an infinite e^{-l} clamps "
      "to 10)" ORL_RULE_B,
    ORL_REWARD " (--algo.kl.estimator k3: (-log_ratio).exp() - 1 + "
      "log_ratio)",
    .params = { { "beta", 0.01 } }, .binary32 = 1, .setting = &orl_k3 },
  { "seed-000", "PPO-TOKREW-EX", "token",
    "l = log(p/p_ref), formed as log1p((p - p_ref)/p_ref) for p/p_ref in [1/2, "
      "2], as log(p/p_ref) beyond and as log p - log p_ref where p/p_ref leaves the binary64 "
      "normal range; k2 = l^2/2; k3 = e^{-l} - 1 + l by its series for |l| < 1, as (p_ref/p - "
      "1) + l beyond; binary64 refuses (ERANGE) where p/p_ref or k3 overflows",
    "seed 000 section 3 (the worked example: 0.4 -> 0.9, "
      "penalty about 0.81 times beta)",
    .setting = NULL },
  { "tabular", "PPO-KLSUM", "tabular",
    "tabular policy and reference (logits per prefix); " KLSUM_RULE,
    "seed 000 (13.9), (13.10)",
    .setting = &tabular },
  { "bigram", "PPO-KLSUM", "bigram",
    "bigram policy and reference (logits per previous token); " KLSUM_RULE,
    "seed 000 (13.9), (13.10)",
    .setting = &bigram },
  { "plain", "PPO-RATIO", "ratio",
    "rho = exp(logp - old_logp), new minus old, no clamp",
    "seed 001 (r_t = exp(log pi_theta - log pi_old): new_logp - old_logp, never the reverse); "
      TRL_RATIO,
    .setting = &ratio_plain },
  { "clamp-20", "PPO-RATIO", "ratio",
    "rho = exp(clamp(logp - old_logp, -20, 20))",
    CLAMP_RATIO,
    .setting = &ratio_clamp },
  { "trl-float32", "PPO-RATIO", "ratio",
    "rho = exp(logp - old_logp) in binary32, no clamp: l = f32(f32(logp) - "
      "f32(old_logp)), rho = f32(e^l), inf beyond l = 88.72" F32_RULE,
    TRL_RATIO " on float32 "
      "log-probabilities",
    .binary32 = 1, .setting = &ratio_plain },
  { "clamp-20-float32", "PPO-RATIO", "ratio",
    "rho = exp(clamp(logp - old_logp, -20, 20)) in binary32" F32_RULE,
    CLAMP_RATIO ", on float32 log-probabilities",
    .binary32 = 1, .setting = &ratio_clamp },
  { "seed-003", "PPO-IS", "is",
    "softmax policies on K actions; both directions of importance sampling, the "
      "CPI surrogate and its gradient in the logits, exact sums",
    "seed 003 (importance sampling "
      "and L^PG = E_t[r_t(theta) A_t])",
    .setting = NULL },
  { "plain", "PPO-CLIP", "clip",
    CLIP_RULE "rho = exp(logp - old_logp) unclamped" CF_EXACT "; eps 0.2",
    "seed 000 (13.12) and its pseudo-code; seed 003 (L^CLIP); seed 001 (the loss is the "
      "negative mean)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &clip_plain },
  { "trl", "PPO-CLIP", "clip",
    CLIP_RULE TRL_MASKED "; no dual clip" CF32 "(pg_losses2 > pg_losses).float() "
      "averaged by masked_mean); cliprange 0.2",
    TRL_PPO_POLICY,
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &clip_trl },
  { "trl-grpo", "PPO-CLIP", "clip",
    CLIP_RULE "rho = exp(logp - old_logp) unclamped at every token; no dual clip"
      CF32 "is_region_clipped.float(): rho < 1 - eps_low with A < 0 or rho > 1 + eps_high with "
      "A > 0, by global_masked_mean); epsilon 0.2, epsilon_high unset (0.2)",
    TRL_GRPO_POLICY " (loss_type \"dapo\", the default, or \"bnpo\"; beta 0, delta None)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &clip_trl_grpo },
  { "clamped", "PPO-CLIP", "clip",
    CLIP_RULE "the log-ratio clamped to [-20, 20] before exp; no dual clip" CF32
      "torch.lt(surr2, surr1).float() by masked_mean); eps 0.2",
    ORL_POLICY " (dual_clip None, --actor.eps_clip 0.2)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &clip_clamped },
  { "verl", "PPO-CLIP", "clip",
    CLIP_RULE "the log-ratio clamped to [-20, 20]; for A < 0 always the dual clip "
      "max(s, c A), c = clip_ratio_c 3" CF32 "torch.gt(pg_losses2, pg_losses1).float() by "
      "masked_mean, whose mask.sum() + 1e-8 is a float32 count); eps 0.2",
    VERL_POLICY " (actor clip_ratio 0.2, clip_ratio_c 3.0, loss_agg_mode token-mean); "
      ORL_POLICY " with --actor.dual_clip 3 (the same values: the clamp, the dual clip for A < "
      "0 by torch.where, a float32 clip_ratio)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "c", 3.0 } }, .setting = &clip_dual },
  { "trl-float32", "PPO-CLIP", "clip",
    CLIP32_RULE TRL_MASKED "; no clamp (e^l is inf beyond l = 88.72), no dual "
      "clip; eps 0.2" F32_RULE,
    TRL_PPO_POLICY " (float32 tensors)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } },
    .binary32 = 1,
    .setting = &clip_trl32 },
  { "verl-float32", "PPO-CLIP", "clip",
    CLIP32_RULE "the log-ratio clamped to [-20, 20]; for a < 0 the dual clip "
      "max(s, f32(a 3)); agg_loss token-mean (masked_sum over mask.sum(); mask.sum() + 1e-8 is "
      "mask.sum() in binary32; a masked token's loss dropped by torch.where, even infinite); "
      "eps 0.2" F32_RULE,
    VERL_POLICY " (clip_ratio 0.2, clip_ratio_c 3.0; float32 log-probs and advantages); "
      ORL_POLICY " with --actor.dual_clip 3 in float32 gives the same values on PPO-CLIP's "
      "cases (it multiplies a masked token's loss by 0: PPO-DUALCLIP openrlhf-float32)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "c", 3.0 } },
    .binary32 = 1,
    .setting = &clip_verl32 },
  { "openrlhf-float32", "PPO-CLIP", "clip",
    CLIP32_RULE "the log-ratio clamped to [-20, 20]; no dual clip; "
      "masked_mean = (x * mask).sum() / mask.sum(); eps 0.2" F32_RULE,
    ORL_POLICY " (dual_clip None; float32)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } },
    .binary32 = 1,
    .setting = &clip_orl32 },
  { "seed-003", "PPO-CLIP-EX2", "one-token",
    "clip(x, a, b) = min(max(x, a), b); one token; eps 0.2",
    "seed 003 (clip explained: r_t = 2 clipped to 1.2; the worked example A = 0.5, eps = 0.2, "
      "r_t = 1.5: 0.6, not 0.75)",
    .params = { { "eps", 0.2 } } },
  { "dual-clip", "PPO-DUALCLIP", "clip",
    CLIP_RULE "for A < 0, s = max(s, c A), c = 3; the log-ratio clamped to [-20, "
      "20]" CF32 "torch.gt / torch.lt of the two terms, .float(), masked_mean); eps 0.2",
    VERL_POLICY " (always, clip_ratio_c 3.0); " ORL_POLICY " with --actor.dual_clip c (off "
      "by default; asserts c > 1)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "c", 3.0 } }, .setting = &clip_dual },
  { "clamped", "PPO-DUALCLIP", "clip",
    CLIP_RULE "no lower bound for A < 0; the log-ratio clamped to [-20, 20] (the "
      "clamp of policy_loss_type \"ppo\" is there with or without the dual clip)" CF32
      "torch.lt(surr2, surr1).float() by masked_mean); eps 0.2",
    ORL_POLICY " without --actor.dual_clip (dual_clip None, the default)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &clip_clamped },
  { "none", "PPO-DUALCLIP", "clip",
    CLIP_RULE "no lower bound for A < 0 (a large ratio with A < 0 makes the loss "
      "unbounded); no clamp" CF_EXACT "; eps 0.2",
    "the seeds (000 13.12, 003 L^CLIP): PPO "
      "without a dual clip",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &clip_plain },
  { "trl", "PPO-DUALCLIP", "clip",
    CLIP_RULE TRL_MASKED "; no lower bound for A < 0 (PPOTrainer has no dual clip)" CF32
      "(pg_losses2 > pg_losses).float() by masked_mean); cliprange 0.2",
    TRL_PPO_POLICY,
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &clip_trl },
  { "trl-delta", "PPO-DUALCLIP", "clip",
    "s = min(min(rho, c) A, clip(rho, 1 - eps_low, 1 + eps_high) A), loss = -token "
      "mean: TRL's two-sided clipping caps the unclipped term's ratio at c = delta after exp, for "
      "either sign of A (for A < 0 and c > 1 + eps_high it is the dual clip max(s, c A)); no "
      "log-ratio clamp (the ratio output is rho before the cap); the gradient 0 where the cap "
      "binds strictly" CF32 "is_region_clipped.float() of the capped ratio by "
      "global_masked_mean); epsilon 0.2, delta 3",
    TRL_GRPO_POLICY " with delta = 3 (grpo_config.py:687 delta, grpo_trainer.py:3086-3087 "
      "coef_1 = torch.clamp(coef_1, max=delta); loss_type \"dapo\"; beta 0; no check on delta)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "c", 3.0 } },
    .setting = &clip_trl_delta },
  { "verl-float32", "PPO-DUALCLIP", "clip",
    CLIP32_RULE "for a < 0, s = max(s, f32(a f32(c))), c = 3; the log-ratio "
      "clamped to [-20, 20]; a masked token's loss dropped by masked_sum's torch.where, even "
      "infinite; eps 0.2" F32_RULE,
    VERL_POLICY " (always, clip_ratio_c 3.0; float32)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "c", 3.0 } },
    .binary32 = 1,
    .setting = &clip_verl32 },
  { "openrlhf-float32", "PPO-DUALCLIP", "clip",
    CLIP32_RULE "for a < 0, s = max(s, f32(c a)), c = 3; the log-ratio "
      "clamped to [-20, 20]; eps 0.2 (verl's values, but a masked token's loss enters "
      "(loss * mask).sum() times 0: NaN for an infinite loss)" F32_RULE,
    ORL_POLICY " with --actor.dual_clip 3 (float32)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "c", 3.0 } },
    .binary32 = 1,
    .setting = &clip_orl32_dual },
  { "trl-float32", "PPO-DUALCLIP", "clip",
    CLIP32_RULE TRL_MASKED "; no lower bound for a < 0, no clamp; eps 0.2"
      F32_RULE,
    TRL_PPO_POLICY " (float32)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } },
    .binary32 = 1,
    .setting = &clip_trl32 },
  { "seed-000", "PPO-VALUE", "loss",
    "loss = mean_t (V - R)^2: no 1/2, no clip",
    "seed 000 section 3 (L^V = E_t[(V_psi(s_t) - R_t)^2]); seed 003 (the value network by "
      "MSE)",
    .setting = &value_seed },
  { "trl", "PPO-VALUE", "loss",
    "loss = 1/2 mean_t max((V - R)^2, (clamp(V, V_old - c, V_old + c) - R)^2)"
      AUTOGRAD_TIE "torch.clamp passes it inside its bounds and at them; V and V_old are 0 at a "
      "masked token (masked_fill with padding_mask_p1) and the square there, R^2, stays in losses "
      "(vf_loss_max is not zeroed); the clip fraction f32(k/N) ((vf_losses2 > "
      "vf_losses1).float(), masked_mean), in a float64 run too; c = cliprange_value 0.2",
    TRL_VALUE " (cliprange_value 0.2; its value mask reaches one slot past the response)",
    .params = { { "clip", 0.2 } }, .setting = &value_trl },
  { "verl", "PPO-VALUE", "loss",
    "loss = 1/2 agg(max((V - R)^2, (clip_by_value(V, V_old - c, V_old + c) - R)^2)), "
      "token-mean, clip_by_value = max(min(V, V_old + c), V_old - c)" AUTOGRAD_TIE "and "
      "clip_by_value's min and max halve it at their ties (V exactly at a bound: 3/4 of the "
      "gradient where the squares tie); the clip fraction f32(k/N) (torch.gt(...).float(), "
      "masked_mean), in a float64 run too; c = cliprange_value 0.5",
    VERL_VALUE " (critic cliprange_value 0.5, loss_agg_mode token-mean)",
    .params = { { "clip", 0.5 } }, .setting = &value_verl },
  { "openrlhf", "PPO-VALUE", "loss",
    "loss = 1/2 mean_t max((V_old + clamp(V - V_old, -c, c) - R)^2, (V - R)^2)"
      AUTOGRAD_TIE "torch.clamp passes it at its bounds (V exactly at V_old +- c: the whole "
      "gradient, where verl's clip_by_value gives 3/4); the clip fraction k/N exactly "
      "(ValueLoss reports none); c = 0.5",
    ORL_VALUE " (--critic.value_clip 0.5, token-level loss)",
    .params = { { "clip", 0.5 } }, .setting = &value_delta },
  { "openrlhf-unclipped", "PPO-VALUE", "loss",
    "loss = 1/2 mean_t (V - R)^2",
    "OpenRLHF 0.11 (3c3be62) loss.py ValueLoss with clip_eps None (the class default)",
    .setting = &value_half },
  { "gae-return", "PPO-VALUE", "target-gae",
    "target = V_old + A: the return R_t the value loss regresses on",
    "seed 000 section 3 (\"or the target V + A\"); TRL 1.10 ppo_trainer.py:796, verl "
      "core_algos.py:261, OpenRLHF 0.11 experience_maker.py:376 (returns = advantages + "
      "values)",
    .setting = NULL },
  { "mc-return", "PPO-VALUE", "target-mc",
    "target_t = sum_{k >= t} gamma^{k - t} r_k, the Monte-Carlo return; gamma 1",
    "seed 000 section 3 (\"R_t the return\"); seed 003 (the return G_t)",
    .params = { { "gamma", 1.0 } } },
  { "objective-seed", "PPO-VALUE", "objective",
    "objective = L^CLIP - c1 L^VF + c2 H (entropy a token mean); c1 0.5, c2 "
      "0.01 (the seeds give no values)",
    "seed 003 (L^PPO = E_t[L^CLIP - c1 L^VF + c2 H]); seed 000's pseudo-code (loss = L_clip "
      "+ c_v L_v - c_ent entropy)",
    .params = { { "c1", 0.5 }, { "c2", 0.01 } } },
  { "objective-trl", "PPO-VALUE", "objective",
    "loss = pg_loss + vf_coef vf_loss, no entropy term: c1 = vf_coef 0.1, "
      "c2 = 0; entropy_mean is the logged entropy.mean(): over every position, masked ones too, "
      "stored in a float32 stats tensor (f32 of the mean, in a float64 run too)",
    "TRL 1.10 (f2cd577) PPOTrainer.train (ppo_trainer.py:847 loss = pg_loss + args.vf_coef * "
      "vf_loss; 855-856 entropy = logsumexp(logits) - sum(softmax(logits) logits); 637 and 867 "
      "entropy_stats[...] = entropy.mean(), a float32 tensor: the entropy is only logged)",
    .params = { { "c1", 0.1 }, { "c2", 0.0 } }, .setting = &obj_trl },
  { "objective-separate-critic", "PPO-VALUE", "objective",
    "the actor's loss alone, pg_loss - c2 entropy: the critic "
      "minimises its value loss with its own optimiser (c1 = 0); c2 0.01",
    "verl (actor entropy_coeff, default 0); OpenRLHF 0.11 (--actor.entropy_coef, default "
      "off)",
    .params = { { "c1", 0.0 }, { "c2", 0.01 } } },
  { "trl-float32", "PPO-VALUE", "loss",
    "in binary32: Vc = clamp(v, f32(o - c), f32(o + c)), loss = f32(0.5 "
      "f32(S/N)), S the binary32 sum of max(f32(f32(v - r)^2), f32(f32(Vc - r)^2)); grad as "
      "autograd forms it; v = o = 0 at a masked token, its square f32(r^2) kept in losses (an "
      "infinite one makes the masked mean NaN); c = 0.2" F32_RULE,
    TRL_VALUE " (float32)",
    .params = { { "clip", 0.2 } }, .binary32 = 1, .setting = &value_trl32 },
  { "verl-float32", "PPO-VALUE", "loss",
    "in binary32 as trl-float32, Vc = clip_by_value(v, o - c, o + c) = "
      "max(min(v, hi), lo) (its gradient halved at a bound); masked_sum drops a masked square; "
      "c = 0.5" F32_RULE,
    VERL_VALUE " (float32)",
    .params = { { "clip", 0.5 } }, .binary32 = 1, .setting = &value_verl32 },
  { "openrlhf-float32", "PPO-VALUE", "loss",
    "in binary32: Vc = f32(o + clamp(f32(v - o), -c, c)), squares, max, "
      "masked_mean, 0.5 *; c = 0.5" F32_RULE,
    ORL_VALUE " (--critic.value_clip 0.5; float32)",
    .params = { { "clip", 0.5 } }, .binary32 = 1, .setting = &value_orl32 },
  { "trl", "PPO-WHITEN", "whiten",
    "ddof 1, (A - mu)/sqrt(var + 1e-8), mean not added back; masked positions set to 0"
      F32_BESSEL,
    TRL_WHITEN ", called by PPOTrainer.train on the advantages (797-798: "
      "masked_whiten(advantages, ~padding_mask), then masked_fill(padding_mask, 0))",
    .params = { { "eps", 1e-8 } }, .setting = &w_trl },
  { "verl", "PPO-WHITEN", "whiten",
    "ddof 1, (A - mu)/sqrt(var + 1e-8) at every position, masked ones too (their "
      "values take no part in mu and var; masked_mean's count + 1e-8 is the count in float32)"
      F32_BESSEL,
    VERL_WHITEN " with shift_mean=True, as compute_gae_advantage_return "
      "(core_algos.py:262) and the REINFORCE++ estimator (728) call it",
    .params = { { "eps", 1e-8 } }, .setting = &w_verl },
  { "trl-rewards", "PPO-WHITEN", "whiten",
    "ddof 1, (A - mu)/sqrt(var + 1e-8) + mu (shift_mean=False), masked "
      "positions set to 0" F32_BESSEL,
    TRL_WHITEN ", called by PPOTrainer.train with whiten_rewards=True (782-784: "
      "masked_whiten(rewards, mask=~padding_mask_p1, shift_mean=False), then masked_fill 0); "
      "verl's masked_whiten(shift_mean=False) (offered, called by no estimator at 1dda039) "
      "whitens the padded positions instead of zeroing them: this variant with masked "
      "positions whitened (the checker's axis)",
    .params = { { "eps", 1e-8 } }, .setting = &w_trl_rewards },
  { "openrlhf", "PPO-WHITEN", "whiten",
    "ddof 0 over the whole batch's mask with the statistics in binary32 "
      "(all_advantages.float(), in a float64 run too): x = f32(A), mean = f32(S1/N), var = "
      "f32(S2/N) of the binary32 sums of x m and f32(f32(x - mean)^2) m, rstd = "
      "f32(1/f32(sqrt(max(var, f32(1e-8))))) (var.clamp(min=1e-8).rsqrt()); whitened = "
      "(A - mean) rstd on the float64 advantages at every position, masked ones too; eps is the "
      "literal 1e-8 there (a test's eps is read here, the library has no such parameter); the "
      "statistics' operations in binary32 in the library's order (sqrt correctly rounded, the "
      "row sums in the order of torch's CPU kernel, as the float32 readings); ERANGE where the "
      "library's value is inf or NaN",
    "OpenRLHF 0.11 (3c3be62) experience_maker.py compute_advantages_and_returns, the "
      "advantage normalisation (315-328) for the gae, reinforce and reinforce_baseline "
      "estimators (no_std_norm False); masked_normalize (models/utils.py:172) is called by no "
      "trainer at this commit",
    .params = { { "eps", 1e-8 } }, .binary32 = 1, .setting = &w_orl64 },
  { "eps-outside", "PPO-WHITEN", "whiten",
    "ddof 1 (exact N/(N - 1)), (A - mu)/(std + 1e-8) at every position",
    "Stable-Baselines3 PPO (normalize_advantage) and CleanRL (norm_adv), outside the three "
      "LLM libraries",
    .params = { { "eps", 1e-8 } }, .setting = &w_outside },
  { "trl-float32", "PPO-WHITEN", "whiten",
    "masked_whiten in binary32: x = f32(A), mean = f32(S1/N), c = f32(x - mean), "
      "var = f32(f32(S2/N) f32(N/(N - 1))), S1, S2 binary32 sums of x and f32(c c); whitened = "
      "f32(c f32(1/f32(sqrt(f32(var + f32(1e-8)))))) (torch.rsqrt), masked positions set to 0"
      F32_RULE,
    TRL_WHITEN ", on the advantages (float32)",
    .params = { { "eps", 1e-8 } }, .binary32 = 1, .setting = &w_trl32 },
  { "verl-float32", "PPO-WHITEN", "whiten",
    "masked_whiten in binary32 as trl-float32, at every position (masked_sum "
      "drops a masked square; masked_mean's mask.sum() + 1e-8 is mask.sum() in binary32)"
      F32_RULE,
    VERL_WHITEN " (float32)",
    .params = { { "eps", 1e-8 } }, .binary32 = 1, .setting = &w_verl32 },
  { "openrlhf-float32", "PPO-WHITEN", "whiten",
    "in binary32: mean = f32(S1/N), var = f32(S2/N) (ddof 0), whitened = "
      "f32(c f32(1/f32(sqrt(max(var, f32(1e-8)))))) at every position" F32_RULE,
    "OpenRLHF 0.11 (3c3be62) experience_maker.py advantage normalisation (315-328: "
      "var.clamp(min=1e-8).rsqrt(); float32 advantages)",
    .params = { { "eps", 1e-8 } }, .binary32 = 1, .setting = &w_orl32 },
  { "trl-rewards-float32", "PPO-WHITEN", "whiten",
    "masked_whiten(shift_mean=False) in binary32: as trl-float32, then "
      "f32(w + mean); masked positions set to 0" F32_RULE,
    TRL_WHITEN ", whiten_rewards (masked_whiten(rewards, ~padding_mask_p1, shift_mean=False), "
      "then masked_fill 0; float32); verl's masked_whiten(shift_mean=False) whitens the padded "
      "positions instead",
    .params = { { "eps", 1e-8 } }, .binary32 = 1, .setting = &w_trl_rewards32 },
  { "adaptive", "PPO-KLCTL", "controller",
    "err = clip(kl/target - 1, -0.2, 0.2), beta <- beta (1 + err n_steps/horizon) "
      "(Ziegler et al. 2019); target 0.1, horizon 10000",
    "verl AdaptiveKLController (kl_ctrl.type adaptive; target_kl 0.1, horizon 10000); "
      "OpenRLHF 0.11 AdaptiveKLController (--algo.kl.target, horizon 10000); TRL up to 0.11 "
      "(adap_kl_ctrl, target 6, horizon 10000; TRL 1.10's experimental PPO keeps kl_coef "
      "fixed)",
    .params = { { "target", 0.1 }, { "horizon", 10000.0 } }, .setting = &ctl_adaptive },
  { "fixed", "PPO-KLCTL", "controller",
    "beta unchanged (err 0)",
    "verl FixedKLController (kl_ctrl.type fixed, the default); OpenRLHF without "
      "--algo.kl.target (the default); TRL 1.10 PPOTrainer (kl_coef)",
    .setting = &ctl_fixed },
  { "seed-003", "PPO-KLCTL", "early-stop",
    "for each update: step, then stop when mean KL > factor target_kl (factor 1); "
      "target_kl 0.01 (the seed gives no value)",
    "seed 003 (PPO pseudo-code: update theta; stop early when mean(KL) > target_kl)",
    .params = { { "target_kl", 0.01 }, { "factor", 1.0 } }, .setting = &stop_after },
  { "spinning-up", "PPO-KLCTL", "early-stop",
    "for each update: stop before the step when KL > 1.5 target_kl; "
      "target_kl 0.01",
    "OpenAI Spinning Up PPO (target_kl 0.01); Stable-Baselines3 PPO (target_kl, 1.5 factor); "
      "none of TRL 1.10, verl, OpenRLHF stops early",
    .params = { { "target_kl", 0.01 }, { "factor", 1.5 } }, .setting = &stop_before },
  { "trl-0.11", "PPO-KLCTL", "early-stop",
    "per epoch: every minibatch steps, then the epoch's last policy KL is tested "
      "against 1.5 target_kl (kl[i] the KL after epoch i; updates counts epochs); target_kl 1",
    "TRL PPOTrainer up to 0.11 (early_stopping=True, target_kl 1.0; _early_stop after each "
      "epoch)",
    .params = { { "target_kl", 1.0 }, { "factor", 1.5 } }, .setting = &stop_after },
  { 0 },
};
