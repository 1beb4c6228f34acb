/* grpoobj_conventions.c -- the named conventions of the GRPOOBJ formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/grpoobj.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/grpoobj.h"

#define S_RULE "s_t = min(rho_t A_i, clip(rho_t, 1 - eps_low, 1 + eps_high) A_i), rho_t = " \
  "exp(logp_t - old_logp_t) (13.25, no clamp); k3_t = e^{-k} - 1 + k, k = logp_t - ref_logp_t " \
  "(13.26); "

#define S_RULE_CLAMP "s_t = min(rho_t A_i, clip(rho_t, 1 - eps_low, 1 + eps_high) A_i), " \
  "rho_t = exp(clamp(logp_t - old_logp_t, -20, 20)) (no gradient where the clamp binds); " \
  "k_t = min(k3_t, 10), k3_t = e^{-k} - 1 + k, k = logp_t - ref_logp_t (no gradient above " \
  "10); "

#define EMPTY_B "; a sequence without a token (an empty response, or a row of padding) " \
  "weighs 0 and counts in B"

#define DR_VERL "A_i = r_i - mean (norm_adv_by_std_in_grpo False; a group of one has mean 0: " \
  "A = r), s_t the clipped term with the log-ratio clamped to [-20, 20] and, for A_i < 0, the " \
  "dual clip max(s_t, 3 A_i) (0 gradient where a clamp or clip binds); "

#define DR_VERL_WHO "verl (1dda039) core_algos.py compute_grpo_outcome_advantage " \
  "(norm_adv_by_std_in_grpo False), workers/utils/losses.py ppo_loss with " \
  "compute_policy_loss_vanilla (clip_ratio 0.2, clip_ratio_c 3) and agg_loss " \
  "\"seq-mean-token-sum-norm\", use_kl_loss False (docs/algo/grpo.md, DrGRPO)"

static const rlref_grpo_obj_convention outside = {
  .kind = RLREF_GRPO_OBJ_KL_OUTSIDE, .agg = RLREF_AGG_SEQ_MEAN_TOKEN_MEAN,
  .kl_agg = RLREF_AGG_TOKEN_MEAN, .dual_c = 3.0, .kl = RLREF_GRPO_KL_K3
};
static const rlref_grpo_obj_convention inside = {
  .kind = RLREF_GRPO_OBJ_KL_INSIDE, .agg = RLREF_AGG_SEQ_MEAN_TOKEN_MEAN,
  .kl_agg = RLREF_AGG_SEQ_MEAN_TOKEN_MEAN, .dual_c = 3.0, .kl = RLREF_GRPO_KL_K3
};
static const rlref_grpo_obj_convention cispo_trl = {
  .kind = RLREF_GRPO_OBJ_CISPO_TRL, .agg = RLREF_AGG_TOKEN_MEAN, .kl_agg = RLREF_AGG_TOKEN_MEAN,
  .dual_c = 3.0, .kl = RLREF_GRPO_KL_K3
};
static const rlref_grpo_obj_convention cispo_verl = {
  .kind = RLREF_GRPO_OBJ_CISPO_VERL, .agg = RLREF_AGG_TOKEN_MEAN, .kl_agg = RLREF_AGG_TOKEN_MEAN,
  .clamp_log_ratio = 1, .dual_c = 3.0, .kl = RLREF_GRPO_KL_K3_CAP
};
static const rlref_grpo_obj_convention trl = {
  .kind = RLREF_GRPO_OBJ_KL_INSIDE, .agg = RLREF_AGG_SEQ_MEAN_TOKEN_MEAN,
  .kl_agg = RLREF_AGG_TOKEN_MEAN, .dual_c = 3.0, .kl = RLREF_GRPO_KL_K3
};
static const rlref_grpo_obj_convention verl = {
  .kind = RLREF_GRPO_OBJ_KL_INSIDE, .agg = RLREF_AGG_TOKEN_MEAN, .kl_agg = RLREF_AGG_TOKEN_MEAN,
  .clamp_log_ratio = 1, .dual_clip = 1, .dual_c = 3.0, .kl = RLREF_GRPO_KL_K3_CAP
};
static const rlref_grpo_obj_convention openrlhf = {
  .kind = RLREF_GRPO_OBJ_KL_INSIDE, .agg = RLREF_AGG_TOKEN_MEAN, .kl_agg = RLREF_AGG_TOKEN_MEAN,
  .clamp_log_ratio = 1, .dual_c = 3.0, .kl = RLREF_GRPO_KL_K3_CAP
};
static const rlref_grpo_agg_convention a_tm = {
  .mode = RLREF_AGG_TOKEN_MEAN, .micro = RLREF_AGG_WHOLE
};
static const rlref_grpo_agg_convention a_smtm = {
  .mode = RLREF_AGG_SEQ_MEAN_TOKEN_MEAN, .micro = RLREF_AGG_WHOLE
};
static const rlref_grpo_agg_convention a_smts = {
  .mode = RLREF_AGG_SEQ_MEAN_TOKEN_SUM, .micro = RLREF_AGG_WHOLE
};
static const rlref_grpo_agg_convention a_norm = {
  .mode = RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM, .micro = RLREF_AGG_WHOLE
};
static const rlref_grpo_agg_convention a_nob = {
  .mode = RLREF_AGG_SUM_NORM_NO_B, .micro = RLREF_AGG_WHOLE
};
static const rlref_grpo_agg_convention a_gml = {
  .mode = RLREF_AGG_GROUP_MEAN_LENGTH, .micro = RLREF_AGG_WHOLE
};
static const rlref_grpo_agg_convention a_sum = {
  .mode = RLREF_AGG_TOKEN_SUM, .micro = RLREF_AGG_WHOLE
};
static const rlref_grpo_agg_convention a_micro = {
  .mode = RLREF_AGG_TOKEN_MEAN, .micro = RLREF_AGG_MICRO_LOCAL
};
static const rlref_grpo_agg_convention a_width = {
  .mode = RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH, .micro = RLREF_AGG_WHOLE
};
static const rlref_grpo_agg_convention a_smtm_ne = {
  .mode = RLREF_AGG_SEQ_MEAN_TOKEN_MEAN, .micro = RLREF_AGG_WHOLE, .skip_empty = 1
};
static const rlref_grpo_agg_convention a_global = {
  .mode = RLREF_AGG_TOKEN_MEAN, .micro = RLREF_AGG_MICRO_GLOBAL
};
static const rlref_grpo_dr_convention r_000 = {
  .adv = RLREF_DR_ADV_CENTRED, .agg = RLREF_AGG_SEQ_MEAN_TOKEN_SUM, .dual_c = 3.0,
  .single = RLREF_DR_SINGLE_ZERO
};
static const rlref_grpo_dr_convention r_003 = {
  .adv = RLREF_DR_ADV_SEED003, .agg = RLREF_AGG_GROUP_MEAN_LENGTH, .dual_c = 3.0,
  .single = RLREF_DR_SINGLE_ZERO
};
static const rlref_grpo_dr_convention r_trl = {
  .adv = RLREF_DR_ADV_CENTRED, .agg = RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM, .dual_c = 3.0,
  .single = RLREF_DR_SINGLE_ZERO
};
static const rlref_grpo_dr_convention r_verl = {
  .adv = RLREF_DR_ADV_CENTRED, .agg = RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM, .clamp_log_ratio = 1,
  .dual_clip = 1, .dual_c = 3.0, .single = RLREF_DR_SINGLE_RAW
};
static const rlref_grpo_dr_convention r_verl_width = {
  .adv = RLREF_DR_ADV_CENTRED, .agg = RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH,
  .clamp_log_ratio = 1, .dual_clip = 1, .dual_c = 3.0, .single = RLREF_DR_SINGLE_RAW
};
static const rlref_grpo_dr_convention r_openrlhf = {
  .adv = RLREF_DR_ADV_CENTRED, .agg = RLREF_AGG_TOKEN_MEAN, .clamp_log_ratio = 1, .dual_c = 3.0,
  .single = RLREF_DR_SINGLE_REFUSE, .adv_clip = RLREF_GRPO_REWARD_CLIP
};
static const rlref_grpo_gspo_convention g_trl = { .empty = RLREF_GRPO_EMPTY_COUNT };
static const rlref_grpo_gspo_convention g_verl = {
  .cap = RLREF_GSPO_VERL_CAP, .empty = RLREF_GRPO_EMPTY_COUNT
};
static const rlref_grpo_gspo_convention g_openrlhf = { .empty = RLREF_GRPO_EMPTY_SKIP };
static const enum rlref_gfpo_filter f_short = RLREF_GFPO_SHORTEST;
static const enum rlref_gfpo_filter f_eff = RLREF_GFPO_TOKEN_EFFICIENCY;

const rlref_convention rlref_grpoobj_conventions[] = {
  { "seed-000", "GRPO-OBJ", "objective",
    S_RULE "J = (1/G) sum_i (1/n_i) sum_t s_t - beta K, the KL once per prompt "
      "outside the sums, K = sum_t k3_t / sum_i n_i (the per-token estimate 13.26 averaged over "
      "the group's tokens: our reading of the single KL_k3 term); eps 0.2, beta 0.04 (DeepSeekMath's "
      "value; the seed gives none)",
    "seed 000 (13.24) and its pseudo-code (loss += beta KL_k3(pi_theta, pi_ref) once per "
      "prompt)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "beta", 0.04 } }, .setting = &outside },
  { "seed-003", "GRPO-OBJ", "objective",
    S_RULE "J = (1/G) sum_i (1/n_i) sum_t (s_t - beta k3_t), the KL inside the "
      "per-token mean; K = (1/G) sum_i (1/n_i) sum_t k3_t; eps 0.2, beta 0.04",
    "seed 003 (J_GRPO with - beta D_KL inside the token sum)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "beta", 0.04 } }, .setting = &inside },
  { "cispo-trl", "GRPO-OBJ", "objective",
    "CISPO: c_t = min(rho_t, eps_high) detached (no lower bound, rho "
      "unclamped), J = (1/N) sum_t (c_t A_i logp_t - beta k3_t), N the masked tokens; the "
      "gradient c_t A_i - beta k3'_t over N, not the derivative of J's value; eps_high 5, beta 0",
    "TRL GRPOTrainer loss_type \"cispo\" (clamp(coef_1, max=epsilon_high).detach(), the sum over "
      "the batch's tokens divided by num_items_in_batch)",
    .params = { { "eps_high", 5.0 }, { "beta", 0.0 } }, .setting = &cispo_trl },
  { "cispo-verl", "GRPO-OBJ", "objective",
    "CISPO: l clamped to [-20, 20], c_t = clip(e^l, 1 - eps_low, 1 + eps_high) "
      "detached (two-sided), J = (1/N) sum_t (c_t A_i logp_t - beta k_t) (token-mean), k_t = "
      "min(k3_t, 10) (low_var_kl) and K its token mean; eps 0.2, beta 0",
    "verl (1dda039) core_algos.py compute_policy_loss_cispo (clip_ratio 0.2, loss_agg_mode "
      "token-mean) through workers/utils/losses.py ppo_loss, kl_loss_type low_var_kl "
      "(kl_penalty_forward: clamp(kld, -10, 10)) with kl_loss_coef 0",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "beta", 0.0 } },
    .setting = &cispo_verl },
  { "trl", "GRPO-OBJ", "objective",
    S_RULE "J = (1/G) sum_i (1/n_i) sum_t (s_t - beta k3_t) (seed-003's loss: beta k3 "
      "added to the per-token loss, then the mean over each sequence's tokens and over the "
      "sequences); the logged K = sum_t k3_t / N, the token mean over the batch, not the loss's "
      "seq-mean-token-mean; eps 0.2, beta 0.04",
    "TRL (1.10 development line) GRPOTrainer._compute_loss, loss_type \"grpo\" with beta > 0: "
      "grpo_trainer.py:3069-3073 (k3), 3120-3121 (per_token_loss + beta per_token_kl), "
      "3124-3125 (the seq-mean-token-mean), 3229-3238 (the kl metric, global_masked_mean)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "beta", 0.04 } }, .setting = &trl },
  { "verl", "GRPO-OBJ", "objective",
    S_RULE_CLAMP "for A_i < 0 the dual clip s_t = max(s_t, c A_i), c = 3 (0 "
      "gradient where it binds); J = (1/N) sum_t (s_t - beta k_t) (token-mean of both the policy "
      "loss and the KL loss); K = (1/N) sum_t k_t; eps 0.2, beta 0.04 (the test's kl_loss_coef)",
    "verl (1dda039) workers/utils/losses.py ppo_loss with core_algos.py "
      "compute_policy_loss_vanilla (clamp of negative_approx_kl to [-20, 20], clip_ratio_c 3), "
      "kl_penalty_forward low_var_kl (clamp(kl, -20, 20), clamp(kld, -10, 10)) and agg_loss "
      "token-mean (the default), use_kl_loss with kl_loss_type low_var_kl",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "beta", 0.04 } }, .setting = &verl },
  { "openrlhf", "GRPO-OBJ", "objective",
    S_RULE_CLAMP "no dual clip; J = (1/N) sum_t (s_t - beta k_t) (the "
      "token-level actor loss plus beta times the token mean of the estimate); K = (1/N) sum_t "
      "k_t; eps 0.2, beta 0.04.  OpenRLHF forms k_t in float32 (log_probs.float() - "
      "log_probs_base.float()) even for float64 log-probabilities: a float64 run agrees to about "
      "7 digits in the KL term",
    "OpenRLHF 0.11 trainer/ray/ppo_actor.py:306-337 (--algo.kl.use_loss, loss = actor_loss + "
      "kl_loss * kl_ctl) with models/utils.py compute_approx_kl k3 (clamp(min=-10, max=10)), "
      "models/loss.py PolicyLoss (policy_loss_type ppo: clamp(-20, 20), dual_clip None) and "
      "aggregate_loss token_level_loss=True",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "beta", 0.04 } },
    .setting = &openrlhf },
  { "token-mean", "GRPO-AGG", "aggregate",
    "sum_t L_t / N, N the masked tokens of the whole batch (13.33); an empty "
      "sequence adds nothing",
    "verl (1dda039) core_algos.py agg_loss \"token-mean\" (the default; the trainer's "
      "batch_num_tokens); OpenRLHF 0.11 models/loss.py aggregate_loss token_level_loss=True; "
      "TRL (1.10 development line) loss_type \"dapo\" (num_items_in_batch) and \"bnpo\" (one "
      "micro-batch); seed 000 (13.33, DAPO)",
    .setting = &a_tm },
  { "seq-mean-token-mean", "GRPO-AGG", "aggregate",
    "(1/B) sum_i (1/n_i) sum_t L_t (13.32)" EMPTY_B,
    "seed 000 (13.24, 13.32); TRL (1.10 development line) loss_type \"grpo\" (the mean over "
      "every row of sum / mask.sum(-1).clamp(min=1), grpo_trainer.py:3124-3125); verl (1dda039) "
      "agg_loss \"seq-mean-token-mean\" with the trainer's global_batch_size, every sequence "
      "(forced for GSPO)",
    .setting = &a_smtm },
  { "seq-mean-token-sum", "GRPO-AGG", "aggregate",
    "(1/B) sum_i sum_t L_t" EMPTY_B,
    "verl (1dda039) agg_loss \"seq-mean-token-sum\" (the trainer's global_batch_size)",
    .setting = &a_smts },
  { "seq-mean-token-sum-norm", "GRPO-AGG", "aggregate",
    "sum_t L_t / (B L_const); L_const 512" EMPTY_B,
    "TRL (1.10 development line) loss_type \"dr_grpo\" (L_const = max_completion_length, "
      "default 512); verl (1dda039) agg_loss \"seq-mean-token-sum-norm\" with loss_scale_factor "
      "= L_const",
    .params = { { "L_const", 512.0 } }, .setting = &a_norm },
  { "seq-mean-token-sum-norm-no-b", "GRPO-AGG", "aggregate",
    "sum_t L_t / L_const, B forgotten; L_const 512",
    "verl \"seq-mean-token-sum-norm\" before February 2026 (no division by the batch size)",
    .params = { { "L_const", 512.0 } }, .setting = &a_nob },
  { "group-mean-length", "GRPO-AGG", "aggregate",
    "(1/B) sum_i (1/Lbar) sum_t L_t, Lbar = (1/B) sum_i n_i: equal to "
      "the token mean, since B Lbar = N (whatever B counts)",
    "seed 003 (Dr.GRPO: 1/|o_i| "
      "replaced by the group mean length)",
    .setting = &a_gml },
  { "token-sum", "GRPO-AGG", "aggregate",
    "sum_t L_t, no normalisation",
    "seed 003's GRPO pseudo-code (maximise "
      "sum L_t); verl (1dda039) agg_loss \"token-sum\" (dp_size 1)",
    .setting = &a_sum },
  { "micro-batch-token-mean", "GRPO-AGG", "aggregate-micro",
    "(1/K) sum_k (sum_{t in k} L_t / N_k) over K micro-batches of "
      "micro sequences each (a micro-batch without a token adds 0 and counts in K)",
    "TRL (1.10 development line) loss_type \"bnpo\" under gradient accumulation (each "
      "micro-batch's own token mean, mask.sum().clamp(min=1), divided by "
      "current_gradient_accumulation_steps: grpo_trainer.py:3129-3133); the legacy token mean per "
      "micro-batch",
    .setting = &a_micro },
  { "seq-mean-token-sum-norm-width", "GRPO-AGG", "aggregate",
    "sum_t L_t / (B T), T = max_i lens[i] the padded width "
      "of the batch (L_const not read)" EMPTY_B,
    "verl (1dda039) agg_loss \"seq-mean-token-sum-norm\" with loss_scale_factor unset (the "
      "default: loss_mask.shape[-1], core_algos.py:1190-1193)",
    .setting = &a_width },
  { "seq-mean-token-mean-nonempty", "GRPO-AGG", "aggregate",
    "(1/B') sum_i (1/n_i) sum_t L_t over the B' sequences "
      "with a token in the mask: an empty sequence is left out of the mean",
    "OpenRLHF 0.11 models/loss.py aggregate_loss token_level_loss=False (seq_mask, and "
      "utils/loss_utils.py _optimizer_step_loss_norm's global_batch_size, the non-empty "
      "sequences); verl agg_loss \"seq-mean-token-mean\" without global_batch_size",
    .setting = &a_smtm_ne },
  { "global-token-mean", "GRPO-AGG", "aggregate-micro",
    "sum_t L_t / N over the whole batch whatever the micro-batching: "
      "every micro-batch's sum divided by the batch's token count N, the K losses added",
    "verl (1dda039) workers/utils/losses.py ppo_loss (global_batch_info: batch_num_tokens of "
      "the mini-batch, core_algos.py agg_loss:1170-1175); OpenRLHF 0.11 utils/loss_utils.py "
      "iter_grad_accum_global_norm (the window's batch_num_tokens / gas, and DeepSpeed's 1/gas); "
      "TRL (1.10 development line) loss_type \"dapo\" (num_items_in_batch of the generation batch, "
      "grpo_trainer.py:2427, 3140-3142)",
    .setting = &a_global },
  { "seed-000", "GRPO-DR", "dr-grpo",
    "A_i = r_i - mean (no std), J = (1/G) sum_i sum_t s_t (no 1/|y_i|); s_t the "
      "clipped term of 13.12; eps 0.2",
    "seed 000 section 11 (Dr.GRPO: the std and the length normalisation removed); seed 004 "
      "(the length bias of 1/|y|)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &r_000 },
  { "seed-003", "GRPO-DR", "dr-grpo",
    "A_i = (r_i - mean)/std, ddof 1 (GRPO's advantage as seed 003 computes it; a "
      "zero-variance group 0), J = (1/G) sum_i (1/Lbar) sum_t s_t, Lbar the group's mean length "
      "(= the token mean); eps 0.2",
    "seed 003 (Dr.GRPO: exactly GRPO, the denominator |o_i| replaced by the group mean length)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &r_003 },
  { "trl", "GRPO-DR", "dr-grpo",
    "A_i = r_i - mean, J = sum_{i,t} s_t / (G L_const), L_const 512; eps 0.2",
    "TRL GRPOTrainer loss_type \"dr_grpo\" with scale_rewards \"none\" (the Dr.GRPO setup; "
      "max_completion_length 512, epsilon 0.2)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "L_const", 512.0 } },
    .setting = &r_trl },
  { "verl", "GRPO-DR", "dr-grpo",
    DR_VERL "J = sum_{i,t} s_t / (G L_const), L_const 512; eps 0.2",
    DR_VERL_WHO " with loss_scale_factor = L_const",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 }, { "L_const", 512.0 } },
    .setting = &r_verl },
  { "verl-width", "GRPO-DR", "dr-grpo",
    DR_VERL "J = sum_{i,t} s_t / (G T), T = max_i lens[i] the padded width "
      "(L_const not read); eps 0.2",
    DR_VERL_WHO " with loss_scale_factor unset (the default: the padded width)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &r_verl_width },
  { "openrlhf", "GRPO-DR", "dr-grpo",
    "A_i = clamp(r_i - mean, -10, 10) (the shaped reward clipped by "
      "--reward.clip_range; every token of a response carries it), s_t the clipped term with "
      "the log-ratio clamped to [-20, 20], no dual clip; J = sum_{i,t} s_t / N, the token mean; "
      "a group of one refused; eps 0.2",
    "OpenRLHF 0.11 --algo.advantage.estimator dr_grpo: trainer/ppo_utils/experience_maker.py "
      "compute_advantages_and_returns (rewards - rewards.mean(-1)), models/utils.py "
      "compute_reward (r.clamp(-10, 10)), get_cumulative_returns (gamma 1), models/loss.py "
      "PolicyLoss (token_level_loss); cli/train_ppo_ray.py:612-615 (n_samples_per_prompt > 1 "
      "asserted)",
    .params = { { "eps_low", 0.2 }, { "eps_high", 0.2 } }, .setting = &r_openrlhf },
  { "gspo", "GRPO-GSPO", "gspo",
    "s_i = e^{m_i}, m_i the mean token log-ratio, no cap; the sequence clip; loss the "
      "mean over sequences; eps_low 3e-4, eps_high 4e-4; a sequence without a token has s = 1, "
      "adds 0 and counts in the mean",
    "seed 000 section 11; seed 003 (GSPO); TRL (1.10 development line) "
      "importance_sampling_level \"sequence\" with loss_type \"grpo\" (epsilon 3e-4, "
      "epsilon_high 4e-4 as its documentation advises; mask.sum(-1).clamp(min=1), the mean over "
      "every row: grpo_trainer.py:3057-3058, 3124-3125)",
    .params = { { "eps_low", 3e-4 }, { "eps_high", 4e-4 } }, .setting = &g_trl },
  { "verl", "GRPO-GSPO", "gspo",
    "the GSPO-token form sg(s_i) pi_t/sg(pi_t): the same value and, A per sequence, "
      "the same gradient; log s_i capped at 10 (e^10 beyond, gradient 0); seq-mean-token-mean "
      "over every sequence (an empty one: s = 1, a zero term); eps_low 3e-4, eps_high 4e-4",
    "verl (1dda039) core_algos.py compute_policy_loss_gspo (clamp(max=10.0), "
      "seq_lengths.clamp(min=1); the GSPO recipe's clip_ratio_low 3e-4, clip_ratio_high 4e-4) "
      "with the trainer's global_batch_size",
    .params = { { "eps_low", 3e-4 }, { "eps_high", 4e-4 } }, .setting = &g_verl },
  { "openrlhf", "GRPO-GSPO", "gspo",
    "s_i = e^{m_i}, no cap; the sequence clip on every token; the per-sequence "
      "token mean over the sequences with a token (an empty sequence left out of the mean); "
      "eps_low 3e-4, eps_high 4e-4",
    "OpenRLHF 0.11 models/loss.py PolicyLoss policy_loss_type \"gspo\" (loss.py:170-177, no "
      "clamp) with aggregate_loss token_level_loss=False (seq_mask; loss_utils.py's "
      "global_batch_size, the non-empty sequences)",
    .params = { { "eps_low", 3e-4 }, { "eps_high", 4e-4 } }, .setting = &g_openrlhf },
  { "gmpo", "GRPO-GMPO", "gmpo",
    "l_t = logp_t - old_logp_t, lm_t = sgn(A) min(sgn(A) l_t, sgn(A) clamp(l_t, "
      "-clip_low, clip_high)) (the upper bound binds for A > 0, the lower for A < 0), ratio_i = "
      "exp(mean_t lm_t), loss = -(1/G) sum_i A_i ratio_i; clip 0.4 in log space (e^{-0.4}, "
      "e^{0.4})",
    "seed 003 (GMPO: the geometric mean with sgn(A), clip range (e^{-0.4}, e^{0.4})); verl "
      "compute_policy_loss_geo_mean (clip_ratio_low = clip_ratio_high = 0.4 as its GMPO recipe "
      "sets; its + 1e-8 on the token count vanishes in float32)",
    .params = { { "clip_low", 0.4 }, { "clip_high", 0.4 } } },
  { "seed-example", "GRPO-GMPO", "example",
    "arith = mean of the terms, geo = (prod terms)^{1/n}",
    "seed 003 (GMPO example: [1, 1, 1, 10] -> 3.25 and 1.78)",
    .setting = NULL },
  { "shortest", "GRPO-GFPO", "filter",
    "keep the k shortest of N; ties to the lower index (a stable sort by length)",
    "seed 003 (GFPO, shortest k/N)",
    .setting = &f_short },
  { "token-efficiency", "GRPO-GFPO", "filter",
    "keep the k largest r_i/|o_i| (compared exactly: r_j |o_i| against "
      "r_i |o_j|); ties to the shorter response, then the lower index",
    "seed 003 (GFPO, token efficiency r_i/|o_i|)",
    .setting = &f_eff },
  { 0 },
};
