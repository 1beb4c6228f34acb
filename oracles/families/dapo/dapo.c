/* dapo.c -- the DAPO family (seed 000 section 6, (13.29)-(13.34); seed
 * 003 "DAPO"; seed 004; CONVENTIONS.md "Ratio and clipping", "Loss
 * aggregation", "DAPO overlong penalty and dynamic sampling"): inputs,
 * outputs, variants (one per convention of TRL, verl, OpenRLHF and the
 * seeds), golden cases and notes.
 *
 * The libraries read: TRL 1.10 development line, GRPOTrainer
 * (loss_type "dapo", epsilon, epsilon_high) and trl/rewards
 * get_soft_overlong_punishment; verl (August 2026 main),
 * verl/trainer/ppo/core_algos.py (compute_policy_loss_vanilla with
 * clip_ratio_low, clip_ratio_high, clip_ratio_c), the DAPO reward
 * manager's overlong_buffer_cfg and the trainer's filter_groups loop;
 * OpenRLHF 0.11, openrlhf/models/loss.py (PolicyLoss, --eps_clip_low_high),
 * its overlong penalty (--overlong_buffer_len, --overlong_penalty_factor)
 * and dynamic filtering (--dynamic_filtering_reward_range 0 1). */
#include <string.h>
#include "rlref/dapo.h"
#include "family.h"
#include "ppo/ppo_axes.h"

RL_EVAL_DECL (dapo_obj);
RL_EVAL_DECL (dapo_cliphigher);
RL_EVAL_DECL (dapo_tokloss);
RL_EVAL_DECL (dapo_tokloss_ex);
RL_EVAL_DECL (dapo_overlong);
RL_EVAL_DECL (dapo_keep);
RL_EVAL_DECL (dapo_refill_batch);
RL_EVAL_DECL (dapo_refill_prompt);

#define EPS_LO(e) { "eps_low", (e), .in_x = 1 }
#define EPS_HI(e) { "eps_high", (e), .in_x = 1 }
#define DUAL_C(c) { "c", (c), .in_x = 1 }
#define FACTOR(f) { "factor", (f), .in_x = 1 }
#define IN_LOGP { "logp", RL_REAL_ARRAY, "log pi_theta(o_t | q, o_<t), the policy being trained" }
#define IN_OLD { "old_logp", RL_REAL_ARRAY, "log pi_old(o_t | q, o_<t), the policy that sampled", \
    .same_len_as = "logp" }

/* --- DAPO-OBJ -------------------------------------------------------------- */

static const rl_io io_obj = {
  .in = (const rl_input[]) {
    IN_LOGP, IN_OLD,
    { "lengths", RL_INT_ARRAY, "|o_i| of each response of the group, >= 1; the tokens of "
      "response i are the next |o_i| entries of logp and old_logp" },
    { "rewards", RL_REAL_ARRAY, "r_i of each response", .same_len_as = "lengths" },
    RL_END },
  .out = (const rl_output[]) {
    { "objective", "J = (1/sum_i |o_i|) sum_i sum_t min(rho A_i, clip(rho, 1 - eps_low, "
      "1 + eps_high) A_i) (13.29, beta = 0); the loss is -J" },
    { "adv", "A_i, the group advantage of r_i under the variant's convention (13.23)",
      .len_of = "lengths" },
    { "grad", "d J / d logp_t: rho_t A_i / sum |o_i| where rho A is the active term, 0 where a "
      "clip, the dual bound or the log-ratio clamp binds", .len_of = "logp" },
    { "clipfrac", "the fraction of tokens with clip(rho) A < rho A" },
    RL_END },
  RL_EVALS (dapo_obj), .part = "objective",
};

#define OBJ_TOK "logp=-1,-0.3,-2,-0.9,0.5,-0.125,-0.7 old_logp=-1.1,-0.4,-1.9,-1,0.25,-0.2,-0.75"

static const rl_case c_obj[] = {
  { "*", OBJ_TOK " lengths=2,3,2 rewards=1,0,0", "",
    "three responses of 2, 3 and 2 tokens, one correct: every token weighs 1/7" },
  { "*", "logp=-1,-0.3,-2,-0.9,0.5,-0.125,-0.7,-1.5,-0.2,-0.6 old_logp=-1.1,-0.4,-1.9,-1,"
    "0.25,-0.2,-0.75,-1.45,-0.3,-0.5 lengths=1,2,3,4 rewards=1,0,0,1", "",
    "000's group [1, 0, 0, 1] (A = +-1 at ddof 0) on answers of 1 to 4 tokens" },
  { "*", "logp=0.3,-0.2,-1,-0.5 old_logp=0,0,-1.5,-0.5 lengths=2,2 rewards=1,0", "ClipHigher",
    "rho = e^0.3 clipped at 1.28 for the correct answer; rho = e^0.5 with A < 0 unclipped" },
  { "*", "logp=-1,-0.5,-2,-0.25 old_logp=-1,-0.5,-2,-0.25 lengths=2,2 rewards=1,0 eps_low=0 "
    "eps_high=0", "ClipKink OnPolicy",
    "eps 0/0: every ratio is 1, the end of the range for both signs of A: J has a kink in "
    "every logp (the gradient given is the unclipped term's, rho A/n)" },
  { "*", OBJ_TOK " lengths=2,3,2 rewards=1,1,1", "ZeroSpread",
    "every answer correct: every advantage 0, J = 0 (the group dynamic sampling drops)" },
  { "seed-000,trl,verl", "logp=-1,-0.5 old_logp=-1.25,-0.5 lengths=2 rewards=1", "SingleSample",
    "a group of one: 0 (seed, TRL); verl's mean 0, std 1 gives A = 1/(1 + 1e-6)" },
  { "openrlhf", "logp=-1,-0.5 old_logp=-1.25,-0.5 lengths=2 rewards=1", "SingleSample",
    "a group of one: OpenRLHF asserts n_samples_per_prompt > 1", .invalid_in = "*" },
  { "*", OBJ_TOK " lengths=2,3,3 rewards=1,0,0", "LengthMismatch",
    "the lengths add up to 8 for 7 tokens", .invalid_in = "*" },
  { "*", OBJ_TOK " lengths=2,3,2 rewards=1,0", "LengthMismatch",
    "three responses, two rewards", .invalid_in = "*" },
  { "*", OBJ_TOK " lengths=2,5,0 rewards=1,0,0", "EmptySequence",
    "a response without a token", .invalid_in = "*" },
  { "*", OBJ_TOK " lengths=2,6,-1 rewards=1,0,0", "OutOfDomain", "a negative length",
    .invalid_in = "*" },
  { "*", "logp=-1,nan old_logp=-1,-0.5 lengths=1,1 rewards=1,0", "NonFinite",
    "a NaN log-probability", .invalid_in = "*" },
  { "*", "logp=-1,-0.5 old_logp=-1,-0.5 lengths=1,1 rewards=1,inf", "NonFinite",
    "an infinite reward", .invalid_in = "*" },
  { "*", "logp= old_logp= lengths= rewards=", "EmptyBatch", "no response",
    .invalid_in = "*" },
  { "*", "logp=-1,-0.5 old_logp=-1,-0.5 lengths=1,1 rewards=1,0 eps_low=1.5", "OutOfDomain",
    "eps_low >= 1", .invalid_in = "*" },
  { "*", "logp=-1,-0.5 old_logp=-1,-0.5 lengths=1,1 rewards=1,0 eps_low=-0.2",
    "OutOfDomain", "eps_low < 0", .invalid_in = "*" },
  RL_END,
};

/* --- DAPO-CLIPHIGHER ------------------------------------------------------- */

static const rl_io io_clip = {
  .in = (const rl_input[]) {
    IN_LOGP, IN_OLD,
    { "adv", RL_REAL_ARRAY, "the advantage A_t of each token", .same_len_as = "logp" },
    { "mask", RL_INT_ARRAY, "1 for a token that counts, 0 for padding; other entries are "
      "refused", .same_len_as = "logp" },
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "-sum_t mask_t s_t / sum_t mask_t (the token mean)" },
    { "surrogate", "s_t = min(rho_t A_t, clip(rho_t, 1 - eps_low, 1 + eps_high) A_t) (13.31), "
      "with the dual clip max(s_t, c A_t) for A_t < 0 where the variant has it; 0 where "
      "masked", .len_of = "logp" },
    { "ratio", "rho_t = e^{l_t}, l_t = logp_t - old_logp_t (clamped to [-20, 20] where the "
      "variant clamps)", .len_of = "logp" },
    { "grad", "d loss / d logp_t: -A_t rho_t / N where rho_t A_t is the active term, 0 where "
      "a clip, the dual bound or the log-ratio clamp binds", .len_of = "logp" },
    { "clipfrac", "the fraction of masked tokens with clip(rho) A < rho A" },
    RL_END },
  RL_EVALS (dapo_cliphigher), .part = "clip",
};


/* The checker's departures of the clipped surrogate (ppo_axes.h). */
PPO_CLIP_AXES (cliphigher, io_clip);

#define LOG125 "0.22314355131420976"             /* the double nearest log 1.25 */
#define LOG5 "1.6094379124341003"                /* the double nearest log 5 */
#define CH_BATCH "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1.25,-0.5,-1.5,-2.25,0.375," \
  "-0.5 adv=0.75,1.5,-0.8,-2,-1,0.3125"

static const rl_case c_clip[] = {
  { "*", "logp=" LOG125 " old_logp=0 adv=1 mask=1", "ClipHigher Detector",
    "rho = 1.25, A = 1: clip-higher leaves it (1.25 < 1.28, gradient flows), the symmetric "
    "range clips it to 1.2 (gradient 0)" },
  { "*", "logp=0.3 old_logp=0 adv=1 mask=1", "ClipHigher",
    "rho = e^0.3 = 1.3499 > 1.28: clipped in every range, surrogate 1 + eps_high" },
  { "*", "logp=-0.25 old_logp=0 adv=-1 mask=1", "",
    "A < 0, rho = e^-0.25 = 0.7788 < 0.8: the lower bound, the same in every range" },
  { "*", "logp=" LOG5 " old_logp=0 adv=-1 mask=1", "Detector",
    "CONVENTIONS dual clip: A = -1, rho = 5: loss 5 without, 3 with verl's dual clip" },
  { "*", CH_BATCH " mask=1,1,1,1,1,1", "Batch", "six tokens, both signs of A" },
  { "*", CH_BATCH " mask=1,1,0,1,0,1", "Batch Padding", "the same with two masked tokens" },
  { "*", "logp=-1,-2 old_logp=-1,-2 adv=0.5,-0.5 mask=1,1", "OnPolicy",
    "logp = old_logp: rho = 1, nothing clipped" },
  { "*", "logp=-1,-2 old_logp=-1,-2 adv=0.5,-0.5 mask=1,1 eps_low=0 eps_high=0",
    "ClipKink OnPolicy",
    "eps 0/0: rho = 1 is the end of the range for both signs of A: a kink (the gradient given "
    "is the unclipped term's)" },
  { "*", "logp=25,-1 old_logp=0,-1 adv=-1,1 mask=1,1", "ClampBinds",
    "log-ratio 25: verl and OpenRLHF clamp it to 20 (no gradient); with A = -1 the "
    "surrogate is -e^25 (or -e^20), verl's dual clip -3" },
  { "*", "logp=100,-1 old_logp=0,-1 adv=-1,1 mask=1,1", "ClampBinds",
    "log-ratio 100 with A = -1: unclamped, rho A = -e^100 = -2.7e43 (the seeds, TRL; inf in "
    "binary32); OpenRLHF's clamp gives -e^20, verl's dual clip -3" },
  { "*", "logp=-25 old_logp=0 adv=1 mask=1", "ClampBinds",
    "log-ratio -25 with A = 1: rho A = e^-25 = 1.4e-11 unclamped (the seeds, TRL), e^-20 = "
    "2.1e-9 with verl's and OpenRLHF's clamp (gradient 0): 148 times apart, which no lower "
    "accuracy absorbs (a log-ratio above 20 scales the loss by e^l, and its sensitivity with "
    "it)" },
  { "*", "logp=-1,-0.5 old_logp=-1,-0.5 adv=1,1 mask=1,2", "MaskNotBinary", "a mask entry 2",
    .invalid_in = "*" },
  { "*", "logp=-1,-0.5 old_logp=-1,-0.5 adv=1,1 mask=0,0", "EmptyMask",
    "no token in the mask", .invalid_in = "*" },
  { "*", "logp=-1,nan old_logp=-1,-0.5 adv=1,1 mask=1,1", "NonFinite",
    "a NaN log-probability", .invalid_in = "*" },
  { "*", "logp=-1,-0.5 old_logp=-1,-inf adv=1,1 mask=1,1", "NonFinite",
    "an infinite log-probability", .invalid_in = "*" },
  { "*", "logp= old_logp= adv= mask=", "EmptyBatch", "no token", .invalid_in = "*" },
  { "*", "logp=-1,-0.5 old_logp=-1 adv=1,1 mask=1,1", "LengthMismatch",
    "two new log-probabilities, one old", .invalid_in = "*" },
  { "*", "logp=-1 old_logp=-1 adv=1 mask=1 eps_low=1", "OutOfDomain",
    "eps_low = 1: the lower bound 1 - eps_low is 0", .invalid_in = "*" },
  { "*", "logp=-1 old_logp=-1 adv=1 mask=1 eps_high=-0.1", "OutOfDomain", "eps_high < 0",
    .invalid_in = "*" },
  { "*", "logp=0.3,-0.25,-1 old_logp=0,0,-1 adv=1,-1,1 mask=1,1,1", "ClipHigher ClipFrac32",
    "two of three tokens clipped (rho = e^0.3 above 1.28 with A > 0, e^-0.25 below 0.8 with "
    "A < 0): the seeds' clip fraction 2/3, the libraries' binary32 mean f32(2/3) = "
    "0.6666666865348816" },
  RL_END,
};

/* --- DAPO-TOKLOSS, DAPO-TOKLOSS-EX ----------------------------------------- */

static const rl_io io_tokloss = {
  .in = (const rl_input[]) {
    { "lengths", RL_INT_ARRAY, "|y_i| of each response of the group, >= 1" },
    RL_END },
  .out = (const rl_output[]) {
    { "token_weight", "the weight of each token of response i in the group's loss",
      .len_of = "lengths" },
    { "response_weight", "the share of the loss all tokens of response i carry",
      .len_of = "lengths" },
    RL_END },
  RL_EVALS (dapo_tokloss), .part = "weights",
};

static const rl_io io_tokloss_ex = {
  .in = (const rl_input[]) {
    { "short", RL_INT, "the tokens of the short answer (100)" },
    { "long", RL_INT, "the tokens of the long answer (1000)" },
    RL_END },
  .out = (const rl_output[]) {
    { "short_weight", "the weight of one token of the short answer" },
    { "long_weight", "the weight of one token of the long answer" },
    { "weight_ratio", "short_weight / long_weight: 10 under 13.32, 1 under 13.33" },
    { "long_share", "the share of the loss the long answer carries: 1/2 under 13.32, "
      "1000/1100 = 90.9% under 13.33" },
    RL_END },
  RL_EVALS (dapo_tokloss_ex), .part = "example",
};

static const rl_case c_tokloss[] = {
  { "*", "lengths=100,1000", "LengthBias",
    "the worked pair: 13.32 weighs a token of the short answer 10 times one of the long" },
  { "*", "lengths=1,3", "Detector",
    "CONVENTIONS L = [[2], [1, 1, 1]]: token-mean weighs each token 1/4 (1.25), "
    "seq-mean-token-mean 1/2 and 1/6 (1.5)" },
  { "*", "lengths=3,3,3", "", "equal lengths: both readings weigh every token 1/9" },
  { "*", "lengths=7", "SingleSample", "one response: both give 1/7" },
  { "*", "lengths=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "", "sixteen answers of 1 to 16 "
    "tokens" },
  { "*", "lengths=5,0", "EmptyResponse", "an answer without a token: it weighs 0; the "
    "sample-level G counts it (TRL, verl's trainer: 0.1 a token) or not (OpenRLHF: 0.2)" },
  { "*", "lengths=5,-2", "OutOfDomain", "a negative length", .invalid_in = "*" },
  { "*", "lengths=", "EmptyBatch", "no response", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_tokloss_ex[] = {
  { "*", "short=100 long=1000", "SeedExample Reading003 Reading000",
    "000 section 6.3: 100 and 1000 tokens, 10:1 under 13.32, 1:1 under 13.33, the long "
    "answer 1000/1100 = 90.9% of the weight" },
  { "*", "short=1 long=1", "", "two one-token answers: no difference" },
  { "*", "short=0 long=1000", "EmptySequence", "an answer without a token",
    .invalid_in = "*" },
  RL_END,
};

/* --- DAPO-OVERLONG --------------------------------------------------------- */

static const rl_io io_overlong = {
  .in = (const rl_input[]) {
    { "lengths", RL_INT_ARRAY, "|y| of each response, >= 0" },
    { "L_max", RL_INT, "L_max, the maximum response length (verl max_resp_len, OpenRLHF "
      "--rollout.max_new_tokens, TRL max_completion_len), >= 1" },
    { "L_cache", RL_INT, "L_cache, the buffer before L_max in which the penalty grows (verl "
      "overlong_buffer_cfg.len, OpenRLHF --reward.overlong_buffer_len, TRL soft_punish_cache), 0 to "
      "L_max" },
    RL_END },
  .out = (const rl_output[]) {
    { "penalty", "r_len(|y|), added to the reward (13.34 and the libraries' readings)",
      .len_of = "lengths" },
    { "filter", "the overlong filter of seed 000 section 6.4: 0 for a response of L_max "
      "tokens or more (cut at the limit: its loss masked), else 1 (no library computes it)",
      .len_of = "lengths" },
    RL_END },
  RL_EVALS (dapo_overlong), .part = "penalty",
};

#define OL "L_max=20480 L_cache=4096"

static const rl_case c_overlong[] = {
  { "*", "lengths=16000,18000,20480 " OL, "Detector",
    "CONVENTIONS: 16000 -> 0, 18000 -> -0.39453125, 20480 -> -1 in every reading" },
  { "*", "lengths=20481,22528,24576,40960 " OL, "BeyondLmax Detector",
    "beyond L_max the readings part: -1 (paper, OpenRLHF) against -1.000244, -1.5, -2, -6 "
    "(verl, not floored)" },
  { "*", "lengths=0,16384,16385,20479 " OL, "Boundary",
    "|y| = L_max - L_cache exactly: 0; one token more: -1/4096; and one below L_max" },
  { "verl,openrlhf", "lengths=18000,20480,24576 " OL " factor=0.5", "",
    "penalty factor 1/2: -0.197265625, -0.5, and -1 (verl) or -0.5 (OpenRLHF)" },
  { "paper", "lengths=20480,20481 L_max=20480 L_cache=0", "",
    "L_cache 0: 0 up to L_max, -1 past it (TRL: no soft part)" },
  { "verl", "lengths=20480,20481 L_max=20480 L_cache=0", "OutOfDomain",
    "L_cache 0: verl asserts overlong_buffer.len > 0", .invalid_in = "*" },
  { "openrlhf", "lengths=20480,20481 L_max=20480 L_cache=0", "NoBuffer",
    "L_cache 0: OpenRLHF's exceed_len = min(|y| - L_max, 0) is never > 0: no penalty at all, "
    "where the paper (TRL) steps to -1 past L_max" },
  { "*", "lengths=17000,18000,19999,20480,21000 L_max=20480 L_cache=3000", "Float32Division",
    "an L_cache not a power of two: 0, -520/3000, -2519/3000, -1 and, past L_max, -1 (paper, "
    "OpenRLHF) or -3520/3000 (verl); verl's quotients are binary32 (-520/3000 to 7 digits), "
    "OpenRLHF's and TRL's binary64: where verl and OpenRLHF agree up to L_max otherwise" },
  { "*", "lengths=100 L_max=20480 L_cache=30000", "OutOfDomain", "L_cache > L_max",
    .invalid_in = "*" },
  { "*", "lengths=100 L_max=20480 L_cache=-1", "OutOfDomain", "L_cache < 0",
    .invalid_in = "*" },
  { "*", "lengths=100,-5 " OL, "OutOfDomain", "a negative length", .invalid_in = "*" },
  { "*", "lengths=100 L_max=0 L_cache=0", "OutOfDomain", "L_max = 0", .invalid_in = "*" },
  { "*", "lengths= " OL, "EmptyBatch", "no response", .invalid_in = "*" },
  { "verl,openrlhf", "lengths=18000 " OL " factor=-1", "OutOfDomain", "a negative factor",
    .invalid_in = "*" },
  { "verl,openrlhf", "lengths=18000 " OL " factor=nan", "NonFinite", "a NaN factor",
    .invalid_in = "*" },
  RL_END,
};

/* --- DAPO-DYNSAMPLE -------------------------------------------------------- */

static const rl_io io_keep = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "the rewards of every response, groups of group_size "
      "consecutive ones" },
    { "group_size", RL_INT, "G, the responses per prompt (>= 1; default: one group)",
      .defaults_to_len_of = "rewards" },
    RL_END },
  .out = (const rl_output[]) {
    { "keep", "1 when the group of response i is kept, 0 when it is filtered out",
      .len_of = "rewards" },
    { "mean", "the mean reward of the group of response i", .len_of = "rewards" },
    { "std", "the population std (ddof 0) of the group of response i", .len_of = "rewards" },
    { "kept", "the number of groups kept" },
    RL_END },
  RL_EVALS (dapo_keep), .part = "keep",
};

#define REFILL_IN                                                               \
  { "p", RL_REAL, "the prompt's success rate: each response is correct (reward 1) with "   \
    "probability p, independently" },                                           \
  { "G", RL_INT, "responses per prompt, >= 1" },                                \
  { "B", RL_INT, "groups wanted in the training batch, 1 to 10000" }

static const rl_io io_refill_batch = {
  .in = (const rl_input[]) {
    REFILL_IN,
    { "M", RL_INT, "prompts generated per round (verl gen_batch_size), 1 to 1e6" },
    RL_END },
  .out = (const rl_output[]) {
    { "keep_prob", "q = 1 - p^G - (1 - p)^G, the chance a group is kept (1 for a group of one)" },
    { "expected_rounds", "E[R] = sum_{r >= 0} P(Bin(rM, q) <= B - 1), the generation rounds "
      "until B groups are kept" },
    { "expected_groups", "M E[R], the groups generated" },
    RL_END },
  RL_EVALS (dapo_refill_batch), .part = "refill-rounds",
};

static const rl_io io_refill_prompt = {
  .in = (const rl_input[]) { REFILL_IN, RL_END },
  .out = (const rl_output[]) {
    { "keep_prob", "q = 1 - p^G - (1 - p)^G, the chance a group is kept" },
    { "expected_groups", "B/q, the groups generated one prompt at a time until B are kept "
      "(negative binomial)" },
    RL_END },
  RL_EVALS (dapo_refill_prompt), .part = "refill-prompts",
};

#define KEEPV "verl,openrlhf,seed-000"

static const rl_case c_dynsample[] = {
  { KEEPV, "rewards=1,1,1,1,0,0,0,0,1,0,0,0 group_size=4", "",
    "binary rewards: all correct and all wrong are dropped by every rule, one of four kept" },
  { KEEPV, "rewards=0.5,0.5,0.5,0.5,1,2,0.25,0.75 group_size=2", "NonBinaryRewards Detector",
    "non-binary rewards: [0.5, 0.5] kept by OpenRLHF only (mean 0.5, std 0); [0.5, 0.5] "
    "again; [1, 2] kept by verl only (mean 1.5); [0.25, 0.75] kept by verl and OpenRLHF, "
    "not the seed's count of positive rewards" },
  { KEEPV, "rewards=-1,-1,-1,1,-1,1,1,1 group_size=4", "NonBinaryRewards",
    "DAPO's +-1 rewards: one correct in four has mean -0.5 (OpenRLHF drops it), three have "
    "0.5; verl and the seed keep both" },
  { KEEPV, "rewards=1,0 group_size=1", "SingleSample",
    "groups of one: verl keeps both, OpenRLHF (mean 0 or 1) and the seed (0 < count < 1) "
    "neither" },
  { KEEPV, "rewards=0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.10000000000000002", "Detector",
    "one group of eight, one reward an ulp above the rest: std ~ 5e-18 > 0 (verl keeps), "
    "0 < mean < 1 (OpenRLHF keeps), every reward positive (the seed drops)" },
  { KEEPV, "rewards=1,0,1 group_size=2", "LengthMismatch", "three rewards in groups of two",
    .invalid_in = "*" },
  { KEEPV, "rewards=1,0 group_size=0", "OutOfDomain", "group size 0", .invalid_in = "*" },
  { KEEPV, "rewards=1,nan group_size=2", "NonFinite", "a NaN reward", .invalid_in = "*" },
  { KEEPV, "rewards= group_size=2", "EmptyBatch", "no reward", .invalid_in = "*" },
  { "verl-refill", "p=0.5 G=8 B=4 M=8", "Refill",
    "q = 1 - 2^-7: eight prompts a round nearly always give four groups" },
  { "verl-refill", "p=0.05 G=8 B=32 M=64", "Refill",
    "a hard prompt: q = 1 - 0.95^8 - 0.05^8 = 0.3366, about 1.6 rounds of 64" },
  { "verl-refill", "p=0.98 G=16 B=16 M=32", "Refill",
    "an easy prompt: q = 1 - 0.98^16 - 0.02^16 = 0.2762" },
  { "verl-refill", "p=0.01 G=16 B=8 M=16", "Refill",
    "a very hard prompt: q = 1 - 0.99^16 - 0.01^16 = 0.1485, about 3.8 rounds" },
  { "verl-refill", "p=0.5 G=1 B=5 M=2", "SingleSample",
    "groups of one are always kept, whatever p: ceil(5/2) = 3 rounds, 6 groups" },
  { "openrlhf-refill", "p=0.5 G=8 B=4", "Refill", "B/q = 4/(1 - 2^-7)" },
  { "openrlhf-refill", "p=0.05 G=8 B=32", "Refill", "B/q = 32/0.3366 = 95.07" },
  { "openrlhf-refill", "p=0.01 G=16 B=8", "Refill", "B/q = 53.86" },
#define REFILL_BAD(args, flag, why)                                             \
  { "verl-refill", args " M=8", flag, why, .invalid_in = "*" },                 \
  { "openrlhf-refill", args, flag, why, .invalid_in = "*" }
  REFILL_BAD ("p=0 G=8 B=4", "OutOfDomain", "p = 0: no group is ever kept"),
  REFILL_BAD ("p=1 G=8 B=4", "OutOfDomain", "p = 1: every group is all correct, none kept"),
  REFILL_BAD ("p=1.5 G=8 B=4", "OutOfDomain", "not a probability"),
  REFILL_BAD ("p=nan G=8 B=4", "NonFinite", "a NaN rate"),
  REFILL_BAD ("p=0.5 G=8 B=0", "OutOfDomain", "B = 0"),
  REFILL_BAD ("p=0.5 G=0 B=4", "OutOfDomain", "G = 0"),
  { "verl-refill", "p=0.5 G=8 B=4 M=0", "OutOfDomain", "M = 0", .invalid_in = "*" },
  { "openrlhf-refill", "p=0.5 G=1 B=4", "SingleSample",
    "groups of one are never kept under 0 < mean < 1", .invalid_in = "*" },
  RL_END,
};

/* --- notes ------------------------------------------------------------------- */

static const rl_note n_dapo[] = {
  { "Detector", "CONVENTION",
    "A detector from CONVENTIONS.md or the catalogue: the conventions give visibly different "
    "values here (the overlong penalty at 16000, 18000, 20480 and beyond; the dual clip at "
    "A = -1, rho = 5; clip-higher at rho = 1.25; the keep rules on non-binary rewards)." },
  { "SeedExample", "CONVENTION",
    "A worked example of the seeds (000 section 6.3: 100 and 1000 tokens, 10:1 and 1:1)." },
  { "Reading000", "CONVENTION",
    "Seeds 000 (sections 6.3 and 12.2) and 004 (Dr.GRPO): under 13.32 each token of a long "
    "answer weighs 1/|y_i|, so a long wrong answer is under-penalised (and a long good one "
    "under-rewarded), and the gradient drifts towards longer answers; 13.33 weighs every "
    "token alike and the long answer carries 90.9% of the weight." },
  { "Reading003", "CONVENTION",
    "Seed 003 reads the same numbers the other way: 13.33 'avoids long answers being "
    "over-penalised' and eases the excess weight 13.32 gives short answers. The weights are "
    "the same in both readings; only the account of their effect differs." },
  { "LengthBias", "CONVENTION", "Answers of different lengths: the two normalisations "
    "weigh their tokens differently." },
  { "ClipHigher", "CONVENTION",
    "A ratio between 1 + eps_low and 1 + eps_high (0.2 against 0.28): clip-higher lets the "
    "gradient through where the symmetric range clips it." },
  { "ClipKink", "EDGE_CASE",
    "A ratio exactly at an end of the clip range (possible for rho = 1 with eps 0): the "
    "objective has a kink there (NonDifferentiable); the gradient given is the unclipped "
    "term's, rho A, as where rho A <= clip(rho) A." },
  { "Batch", "PROPERTY", "Several tokens: the loss is the token mean and each gradient "
    "carries 1/N." },
  { "Padding", "EDGE_CASE", "Masked tokens take no part in the mean." },
  { "OnPolicy", "PROPERTY", "logp = old_logp: the first step of an epoch, nothing clipped." },
  { "ClampBinds", "CONVENTION",
    "|log-ratio| > 20: verl and OpenRLHF clamp it before exp (no gradient through it)." },
  { "ClipFrac32", "CONVENTION",
    "A clip fraction k/N that binary32 does not hold: TRL (is_region_clipped.float()), verl "
    "(torch.gt(...).float()) and OpenRLHF (torch.lt(surr2, surr1).float()) average a float32 "
    "0/1 tensor, f32(k/N), in a float64 run too." },
  { "ZeroSpread", "EDGE_CASE",
    "Every reward equal: every advantage 0, the group gives no gradient (what dynamic "
    "sampling filters)." },
  { "SingleSample", "EDGE_CASE",
    "A group of one sample: the conventions part (0, r/(1 + eps), refused; kept or not)." },
  { "BeyondLmax", "CONVENTION",
    "|y| > L_max: the paper and OpenRLHF give -1 (-factor), verl's linear penalty goes on." },
  { "Boundary", "EDGE_CASE", "A length at a break point of 13.34." },
  { "NonBinaryRewards", "CONVENTION",
    "Rewards other than 0/1: verl's std > 0, OpenRLHF's 0 < mean < 1 and the seed's "
    "0 < #correct < G keep different groups." },
  { "Refill", "PROPERTY",
    "Refill accounting: groups drawn until B are kept, exact expectations for a success "
    "rate p (rounds of M in verl, one prompt at a time in OpenRLHF)." },
  { "MaskNotBinary", "INVALID_INPUT", "A mask entry other than 0 and 1 (EDOM)." },
  { "EmptyMask", "INVALID_INPUT", "A mask without a 1: the token mean is 0/0 (EDOM)." },
  { "EmptySequence", "INVALID_INPUT", "A response without a token (EDOM)." },
  { "Float32Division", "CONVENTION", "An overlong buffer that is not a power of two: verl "
    "divides the exceeding length by it in float32 (a 0-dim int64 tensor's true division), so "
    "its penalty is the binary32 quotient; OpenRLHF and TRL divide in Python floats." },
  { "NoBuffer", "EDGE_CASE", "An overlong buffer of 0: OpenRLHF's exceeding length, capped "
    "at the buffer, is never positive, so nothing is penalised; the paper (TRL) has only its "
    "step to -1 past L_max; verl refuses it (assert len > 0)." },
  { "EmptyResponse", "EDGE_CASE", "A response without a token in a group: it weighs nothing; "
    "the token-level mean is that of the other tokens, the sample-level mean counts it in G "
    "(TRL's mean over rows, verl's trainer global_batch_size) or leaves it out (OpenRLHF's "
    "global_batch_size of the non-empty sequences): both valid, the case separates them." },
  RL_END,
};

/* --- formulas ------------------------------------------------------------------ */

static rl_formula formulas[] = {
  { "DAPO-OBJ", "the DAPO objective, token-level over the group", "000 (13.29)",
    "J = (1/Σ_i|o_i|) Σ_i Σ_t min(ρ_{i,t} Â_i, clip(ρ_{i,t}, 1−ε_low, 1+ε_high) Â_i), β = 0, "
    "Â from 13.23 under each library's convention; value and gradient in each token's "
    "log-probability", NULL, c_obj, n_dapo },
  { "DAPO-CLIPHIGHER", "the decoupled clip", "000 (13.31)",
    "clip(ρ, 1−ε_low, 1+ε_high), ε_low 0.2, ε_high 0.28, per token with its gradient; "
    "verl adds its log-ratio clamp and dual clip", NULL, c_clip, n_dapo,
    .axes = cliphigher_axes },
  { "DAPO-DYNSAMPLE", "dynamic sampling: the keep rules and the refill accounting",
    "000 (13.30)",
    "keep a group when std > 0 (verl), 0 < mean < 1 (OpenRLHF) or 0 < #correct < G (13.30); "
    "q = 1 − p^G − (1−p)^G, groups drawn until B are kept: B/q prompt by prompt, M·Σ_r "
    "P(Bin(rM, q) < B) in rounds of M", NULL, c_dynsample, n_dapo },
  { "DAPO-TOKLOSS", "sample-level against token-level normalisation", "000 (13.32), (13.33)",
    "a token of response i weighs 1/(G|y_i|) under 13.32, 1/Σ|y| under 13.33", NULL,
    c_tokloss, n_dapo },
  { "DAPO-TOKLOSS-EX", "100 and 1000 tokens under both normalisations", "000 section 6; 003; 004",
    "10:1 under 13.32, 1:1 under 13.33 (the long answer 1000/1100 = 90.9% of the weight); "
    "seed 003 reads the effect against 000 and 004", NULL, c_tokloss_ex, n_dapo },
  { "DAPO-OVERLONG", "the soft overlong penalty and the overlong filter", "000 (13.34)",
    "0 up to L_max − L_cache, linear to −1 at L_max, then −1 (paper, TRL), linear on (verl) "
    "or −factor (OpenRLHF); L_max 20480, L_cache 4096: 16000 → 0, 18000 → −0.39453125; the "
    "filter masks responses cut at L_max", NULL, c_overlong, n_dapo },
  RL_END,
};

/* One variant per convention of the library's table (rlref_dapo_conventions)
 * that formula id carries, in its order, on io; DAPO-DYNSAMPLE's refill
 * accountings on their own io.  The parameters are the values the
 * convention sets.  DAPO-CLIPHIGHER's variants hold the clip convention
 * itself, which the checker's axes move (ppo_axes.h). */
static rl_variant *
variants_of (const char *id, const rl_io *io)
{
  rl_variant *v = rl_variants_new (rlref_dapo_num_conventions);
  size_t n = 0;
  for (size_t i = 0; i < rlref_dapo_num_conventions; i++)
    {
      const rlref_dapo_convention *c = &rlref_dapo_conventions[i];
      size_t np = 0;
      if (strcmp (c->formula, id) != 0)
        continue;
      v[n] = (rl_variant) { c->name, c->rule, c->used_by, io, .data = c,
                            .cert = c->binary32 ? "float32-emulation" : NULL };
      if (c->refills)
        v[n].io = c->refill == RLREF_DAPO_REFILL_BATCH ? &io_refill_batch : &io_refill_prompt;
      if (io == &io_obj || io == &io_clip)
        {
          v[n].params[np++] = (rl_param) EPS_LO (c->eps_low);
          v[n].params[np++] = (rl_param) EPS_HI (c->eps_high);
        }
      if (c->dual_c > 0)
        v[n].params[np++] = (rl_param) DUAL_C (c->dual_c);
      if (c->factor > 0)
        v[n].params[np++] = (rl_param) FACTOR (c->factor);
      if (io == &io_clip)
        v[n].data = &c->clip;
      n++;
    }
  return v;
}

static void
init (void)
{
  formulas[0].variants = variants_of ("DAPO-OBJ", &io_obj);
  formulas[1].variants = variants_of ("DAPO-CLIPHIGHER", &io_clip);
  formulas[2].variants = variants_of ("DAPO-DYNSAMPLE", &io_keep);
  formulas[3].variants = variants_of ("DAPO-TOKLOSS", &io_tokloss);
  formulas[4].variants = variants_of ("DAPO-TOKLOSS-EX", &io_tokloss_ex);
  formulas[5].variants = variants_of ("DAPO-OVERLONG", &io_overlong);
}

RL_FAMILY (dapo) = {
  .name = "dapo",
  .title = "DAPO: clip-higher, dynamic sampling, token-level loss, overlong shaping",
  .rank = 7,
  .formulas = formulas,
  .init = init,
};
