/* dapo_conventions.c -- the named DAPO conventions (seed 000 section 6,
 * (13.29)-(13.34); seeds 003 and 004; TRL, verl and OpenRLHF as their code
 * computes): for each formula, what each seed's and library's reading
 * computes, the parameter values it sets and who uses it, in the order of
 * the golden variants. */
#include <string.h>
#include "rlref/dapo.h"

#define OBJ_RULE "J = token mean over every token of the group of min(rho A, clip(rho, 1 - " \
  "eps_low, 1 + eps_high) A), beta = 0; eps 0.2/0.28; "
#define CH_RULE "s = min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A), loss = -token mean; "
#define SAMPLE_WHO "seed 000 (13.32, GRPO 13.24); TRL loss_type \"grpo\"; verl " \
  "loss_agg_mode seq-mean-token-mean"
#define TOKEN_WHO "seed 000 (13.33, DAPO 13.29); seed 003 (1/sum |o_i|); verl token-mean " \
  "(default); OpenRLHF; TRL loss_type \"dapo\" and \"bnpo\""
#define SAMPLE_WHO_LIB "seed 000 (13.32, GRPO 13.24); TRL (1.10 development line) loss_type " \
  "\"grpo\" (the mean over every row, mask.sum(-1).clamp(min=1): grpo_trainer.py:3124-3125); " \
  "verl (1dda039) agg_loss \"seq-mean-token-mean\" with the trainer's global_batch_size " \
  "(every response)"
#define TOKEN_WHO_LIB "seed 000 (13.33, DAPO 13.29); seed 003 (1/sum |o_i|); verl (1dda039) " \
  "agg_loss \"token-mean\" (the default); OpenRLHF 0.11 aggregate_loss token_level_loss=True; " \
  "TRL (1.10 development line) loss_type \"dapo\" and \"bnpo\""

const rlref_dapo_convention rlref_dapo_conventions[] = {
  { "seed-000", "DAPO-OBJ",
    OBJ_RULE "A = (r - mean)/std, ddof 0, 0 when std = 0 (13.23); rho = "
    "exp(logp - old_logp), no clamp, no dual clip",
    "seed 000 (13.29, 13.31; its worked example of 13.23 implies ddof 0)",
    .eps_low = 0.2, .eps_high = 0.28, .adv = "seed-000" },
  { "trl", "DAPO-OBJ",
    OBJ_RULE "A = (r - mean)/(std + 1e-4), ddof 1; no clamp, no dual clip; the "
    "generation batch's tokens normalise",
    "TRL GRPOTrainer (1.10 development line; loss_type \"dapo\", epsilon 0.2, epsilon_high "
    "0.28, scale_rewards \"group\")",
    .eps_low = 0.2, .eps_high = 0.28, .adv = "trl" },
  { "verl", "DAPO-OBJ",
    OBJ_RULE "A = (r - mean)/(std + 1e-6), ddof 1 (a group of one: r/(1 + 1e-6)); "
    "the log-ratio clamped to [-20, 20]; for A < 0 the dual clip max(., c A), c = 3",
    "verl compute_policy_loss_vanilla (clip_ratio_low 0.2, clip_ratio_high 0.28, clip_ratio_c "
    "3.0, loss_agg_mode token-mean) with compute_grpo_outcome_advantage",
    .eps_low = 0.2, .eps_high = 0.28, .dual_c = 3.0,
    .adv = "verl", .clip = { { 1, 1 }, 0, 0, 0, 0, 0 } },
  { "openrlhf", "DAPO-OBJ",
    OBJ_RULE "A = (r - mean)/(std + 1e-9), ddof 1 (a group of one refused); the "
    "log-ratio clamped to [-20, 20]; no dual clip",
    "OpenRLHF 0.11 PolicyLoss (--eps_clip_low_high 0.2 0.28, token-level loss) with "
    "group_norm advantages",
    .eps_low = 0.2, .eps_high = 0.28, .adv = "openrlhf", .clip = { { 1, 0 }, 0, 0, 0, 0, 0 } },
  { "seed-000", "DAPO-CLIPHIGHER",
    CH_RULE "eps_low 0.2, eps_high 0.28 (13.31: eps_high > eps_low); no clamp, no "
    "dual clip",
    "seed 000 (13.31); seed 003 (a looser upper bound for A > 0)",
    .eps_low = 0.2, .eps_high = 0.28 },
  { "trl", "DAPO-CLIPHIGHER",
    CH_RULE "epsilon 0.2, epsilon_high 0.28; no clamp, no dual clip; the clip "
    "fraction the binary32 mean of is_region_clipped.float(), f32(k/N), in a float64 run too",
    "TRL 1.10 (f2cd577) GRPOTrainer._compute_loss, loss_type \"dapo\" (the default) or "
    "\"bnpo\", epsilon 0.2, epsilon_high 0.28 as its DAPO recipe sets them, beta 0 "
    "(grpo_trainer.py:3054-3090 coef_1, coef_2, -torch.min; 3128-3142 the token mean; "
    "3242-3249 clip_ratio/region_mean by global_masked_mean)",
    .eps_low = 0.2, .eps_high = 0.28, .clip = { { 0, 0 }, 1, 0, 0, 0, 0 } },
  { "verl", "DAPO-CLIPHIGHER",
    CH_RULE "clip_ratio_low 0.2, clip_ratio_high 0.28; the log-ratio clamped to "
    "[-20, 20]; for A < 0 the dual clip max(s, c A), c = 3; the clip fraction "
    "masked_mean(torch.gt(pg_losses2, pg_losses1).float()), f32(k/N), in a float64 run too",
    "verl (1dda039) core_algos.py compute_policy_loss_vanilla (recipe dapo: clip_ratio_low "
    "0.2, clip_ratio_high 0.28; clip_ratio_c 3.0; 1336-1367, pg_clipfrac at 1353)",
    .eps_low = 0.2, .eps_high = 0.28, .dual_c = 3.0, .clip = { { 1, 1 }, 1, 0, 0, 0, 0 } },
  { "openrlhf", "DAPO-CLIPHIGHER",
    CH_RULE "eps 0.2/0.28; the log-ratio clamped to [-20, 20]; no dual clip; the "
    "clip fraction masked_mean(torch.lt(surr2, surr1).float()), f32(k/N), in a float64 run "
    "too",
    "OpenRLHF 0.11 (3c3be62) loss.py PolicyLoss (--actor.eps_clip_low_high 0.2 0.28; "
    "dual_clip None, the default; 166-228, clip_ratio at 228)",
    .eps_low = 0.2, .eps_high = 0.28, .clip = { { 1, 0 }, 1, 0, 0, 0, 0 } },
  { "symmetric", "DAPO-CLIPHIGHER",
    CH_RULE "eps 0.2/0.2 (PPO's 13.12, GRPO): the range clip-higher widens; no "
    "clamp, no dual clip; the clip fraction k/N exactly.  The libraries' symmetric defaults "
    "are PPO-CLIP's conventions, not this one: TRL's GRPOTrainer with epsilon_high unset is "
    "PPO-CLIP trl-grpo; verl's clip_ratio 0.2 keeps its log-ratio clamp and dual clip c = 3 "
    "(PPO-CLIP verl); OpenRLHF's --actor.eps_clip 0.2 its clamp (PPO-CLIP clamped)",
    "seed 000 (13.12, 13.25)",
    .eps_low = 0.2, .eps_high = 0.2 },
  { "verl", "DAPO-DYNSAMPLE",
    "keep a group when its population std > 0, or it has one sample",
    "verl ray_trainer filter_groups (metric acc or seq_final_reward: np.std > 0 or len == 1)",
    .keep = RLREF_DAPO_KEEP_STD },
  { "openrlhf", "DAPO-DYNSAMPLE",
    "keep a group when 0 < mean reward < 1, strictly",
    "OpenRLHF 0.11 --dynamic_filtering with --dynamic_filtering_reward_range 0 1",
    .keep = RLREF_DAPO_KEEP_MEAN },
  { "seed-000", "DAPO-DYNSAMPLE",
    "keep a group when 0 < #{correct} < G, a correct response being one of "
    "positive reward",
    "seed 000 (13.30; section 6.2: drop accuracy 0 and 1)",
    .keep = RLREF_DAPO_KEEP_COUNT },
  { "verl-refill", "DAPO-DYNSAMPLE",
    "rounds of M prompts until B groups are kept: E[rounds] = sum_r P(Bin(rM, "
    "q) < B), groups M E[rounds]; binary rewards (both keep rules agree on them), a group "
    "of one always kept",
    "verl ray_trainer dynamic sampling (gen_batch_size M, train_batch_size B; "
    "max_num_gen_batches 0, no limit)",
    .refills = 1, .refill = RLREF_DAPO_REFILL_BATCH, .single_kept = 1 },
  { "openrlhf-refill", "DAPO-DYNSAMPLE",
    "one prompt at a time until B groups are kept: E[groups] = B/q; binary "
    "rewards; a group of one never kept (its mean is 0 or 1)",
    "OpenRLHF 0.11 dynamic filtering (prompts taken until the rollout batch is full)",
    .refills = 1, .refill = RLREF_DAPO_REFILL_PROMPT, .single_kept = 0 },
  { "sample-level", "DAPO-TOKLOSS",
    "(1/G) sum_i (1/|y_i|) sum_t: a token of response i weighs 1/(G |y_i|), "
    "each response 1/G; a response without a token weighs 0 and counts in G",
    SAMPLE_WHO_LIB,
    .norm = RLREF_DAPO_SAMPLE_LEVEL, .empty = RLREF_DAPO_EMPTY_COUNT },
  { "token-level", "DAPO-TOKLOSS",
    "(1/sum_i |y_i|) sum_i sum_t: every token weighs 1/sum |y|, response i "
    "|y_i|/sum |y| (0 for a response without a token)",
    TOKEN_WHO_LIB,
    .norm = RLREF_DAPO_TOKEN_LEVEL, .empty = RLREF_DAPO_EMPTY_COUNT },
  { "sample-level-nonempty", "DAPO-TOKLOSS",
    "(1/G') sum_i (1/|y_i|) sum_t over the G' responses with a "
    "token: each weighs 1/G', a response without a token 0 and out of the mean",
    "OpenRLHF 0.11 models/loss.py aggregate_loss token_level_loss=False (seq_mask; "
    "utils/loss_utils.py's global_batch_size, the sequences with a token); verl agg_loss "
    "\"seq-mean-token-mean\" without global_batch_size",
    .norm = RLREF_DAPO_SAMPLE_LEVEL, .empty = RLREF_DAPO_EMPTY_SKIP },
  { "sample-level", "DAPO-TOKLOSS-EX",
    "13.32 on a short and a long answer: per-token weights 1/(2 s) and "
    "1/(2 l), each answer one half",
    SAMPLE_WHO,
    .norm = RLREF_DAPO_SAMPLE_LEVEL },
  { "token-level", "DAPO-TOKLOSS-EX",
    "13.33 on a short and a long answer: every token 1/(s + l), the long "
    "answer l/(s + l)",
    TOKEN_WHO,
    .norm = RLREF_DAPO_TOKEN_LEVEL },
  { "paper", "DAPO-OVERLONG",
    "0 for |y| <= L_max - L_cache; ((L_max - L_cache) - |y|)/L_cache up to L_max; "
    "-1 beyond (L_cache 0: a step from 0 to -1 past L_max); filter: 0 from L_max tokens on",
    "penalty: seed 000 (13.34); TRL (1.10 development line) trl/rewards/other_rewards.py "
    "get_soft_overlong_punishment (_SoftOverlongPunishment.__call__, Python floats); filter: "
    "seed 000 section 6.4 (TRL has none)",
    .overlong = RLREF_DAPO_OVERLONG_PAPER },
  { "verl", "DAPO-OVERLONG",
    "min(-(|y| - (L_max - L_cache))/L_cache factor, 0): linear on, not floored "
    "beyond L_max, in float32 (-exceed_len / overlong_buffer_len on a 0-dim int64 tensor is a "
    "float32 true division, then times the factor in float32: f32(f32(-e/L_cache) f32(factor))); "
    "factor 1; filter: seed 000's mask, not verl's",
    "penalty: verl (1dda039) experimental/reward_loop/reward_manager/dapo.py DAPORewardManager "
    "(overlong_buffer_cfg len and penalty_factor 1.0, max_resp_len; the asserts of __init__, "
    "dapo.py:39-50, and run_single's overlong block, dapo.py:108-113); filter: none in verl "
    "(it has no overlong filter; the output is seed 000's)",
    .factor = 1.0, .overlong = RLREF_DAPO_OVERLONG_VERL, .binary32 = 1 },
  { "openrlhf", "DAPO-OVERLONG",
    "exceed = min(|y| - (L_max - L_cache), L_cache); -exceed/L_cache factor when "
    "exceed > 0 (so floored at -factor, and no penalty at all with L_cache 0), else 0; factor "
    "1; filter: seed 000's mask, not OpenRLHF's",
    "penalty: OpenRLHF 0.11 trainer/ppo_utils/length_penalty.py apply_overlong_penalty "
    "(--reward.overlong_buffer_len, --reward.overlong_penalty_factor 1.0, --rollout."
    "max_new_tokens as L_max; the assert max_new_tokens >= overlong_buffer_len); filter: none "
    "in OpenRLHF (the output is seed 000's)",
    .factor = 1.0, .overlong = RLREF_DAPO_OVERLONG_OPENRLHF },
};

const size_t rlref_dapo_num_conventions
  = sizeof rlref_dapo_conventions / sizeof rlref_dapo_conventions[0];

const rlref_dapo_convention *
rlref_dapo_convention_find (const char *formula, const char *name)
{
  for (size_t i = 0; formula && name && i < rlref_dapo_num_conventions; i++)
    if (strcmp (rlref_dapo_conventions[i].formula, formula) == 0
        && strcmp (rlref_dapo_conventions[i].name, name) == 0)
      return &rlref_dapo_conventions[i];
  return NULL;
}
