/* ppo.c -- the PPO family: PPO for language models (seed 000 section 3,
 * (13.9)-(13.12); seed 003 "PPO"; seed 001; CONVENTIONS.md "Ratio and
 * clipping", "GAE, whitening, value loss", "KL estimators"): inputs,
 * outputs, golden cases and notes; the variants, one per convention of
 * TRL, verl, OpenRLHF and the seeds read from the libraries' code, are the
 * rows of the library's table (src/ppo/ppo_conventions.c).
 *
 * The libraries read: TRL 1.10 development line (f2cd577),
 * trl/experimental/ppo/ppo_trainer.py and trl/trainer/grpo_trainer.py;
 * verl (1dda039, August 2026 main), verl/trainer/ppo/core_algos.py and
 * verl/utils/torch_functional.py; OpenRLHF 0.11 (3c3be62),
 * openrlhf/models/loss.py, openrlhf/models/utils.py and
 * openrlhf/trainer/ppo_utils/.  Line numbers are those commits'. */
#include "rlref/ppo.h"
#include "family.h"
#include "ppo_axes.h"

RL_EVAL_DECL (ppo_tokrew);
RL_EVAL_DECL (ppo_tokrew_f32);
RL_EVAL_DECL (ppo_tokrew_ex);
RL_EVAL_DECL (ppo_klsum);
RL_EVAL_DECL (ppo_ratio);
RL_EVAL_DECL (ppo_is);
RL_EVAL_DECL (ppo_clip);
RL_EVAL_DECL (ppo_clip_one);
RL_EVAL_DECL (ppo_value_loss);
RL_EVAL_DECL (ppo_gae_target);
RL_EVAL_DECL (ppo_mc_return);
RL_EVAL_DECL (ppo_objective);
RL_EVAL_DECL (ppo_whiten);
RL_EVAL_DECL (ppo_kl_controller);
RL_EVAL_DECL (ppo_early_stop);
RL_EVAL_DECL (ppo_ratio_f32);
RL_EVAL_DECL (ppo_clip_f32);
RL_EVAL_DECL (ppo_whiten_f32);
RL_EVAL_DECL (ppo_value_loss_f32);

#define MASK(of) { "mask", RL_INT_ARRAY, "1 for a token that counts, 0 for padding (or a "   \
    "masked token); other entries are refused", .same_len_as = of }

/* --- PPO-TOKREW, PPO-TOKREW-EX ---------------------------------------- */

static const rl_input in_tokrew[] = {
  { "logp", RL_REAL_ARRAY, "log pi_old(y_t | s_t) of each response position: the policy "
    "that sampled (the libraries' old_log_probs)" },
  { "ref", RL_REAL_ARRAY, "log pi_ref(y_t | s_t), the frozen reference", .same_len_as = "logp" },
  MASK ("logp"),
  { "score", RL_REAL, "the reward model's score of the response, r_phi(x, y)" },
  RL_END };
static const rl_output out_tokrew[] = {
  { "rewards", "r_t = -beta kl_t + score [t = end] (13.9)", .len_of = "logp" },
  { "kl", "the per-token estimate k(logp_t - ref_t) of the convention, 0 where masked",
    .len_of = "logp" },
  { "reward_sum", "sum_t r_t = score - beta sum_t kl_t" },
  { "kl_sum", "sum_t kl_t" },
  RL_END };

static const rl_io io_tokrew = {
  .in = in_tokrew, .out = out_tokrew, RL_EVALS (ppo_tokrew), .part = "tokrew",
};
static const rl_io io_tokrew_f32 = {
  .in = in_tokrew, .out = out_tokrew, RL_EVALS (ppo_tokrew_f32), .binary32 = 1, .part = "tokrew",
};

static const rl_io io_tokrew_ex = {
  .in = (const rl_input[]) {
    { "p", RL_REAL, "pi(y_t | s_t) under the trained policy, in (0, 1]" },
    { "p_ref", RL_REAL, "pi_ref(y_t | s_t) under the reference, in (0, 1]" },
    RL_END },
  .out = (const rl_output[]) {
    { "ratio", "p/p_ref" },
    { "log_ratio", "l = log(p/p_ref), the per-token penalty of 13.9 before beta (k1)" },
    { "k2", "l^2/2" },
    { "k3", "e^{-l} - 1 + l = p_ref/p - 1 + l" },
    RL_END },
  RL_EVALS (ppo_tokrew_ex), .part = "token",
};

static const rl_case c_tokrew[] = {
  { "*", "logp=2,-2,-29,-100 ref=0,0,0,0 mask=1,1,1,1 score=1", "Detector Float32Overflow",
    "CONVENTIONS KL detectors l = 2, -2, -29, -100: k1 2/-2/-29/-100 (OpenRLHF clamps to "
    "-10); k3 1.1353353/4.3890561/3.93e12/2.69e43 (plain; e^100 is inf in float32), 10 "
    "clamped" },
  { "*", "logp=-1.25,-0.5,-2.5,-0.75,0,0 ref=-1,-0.625,-2,-0.875,0,0 mask=1,1,1,1,0,0 "
    "score=0.8", "Padding ScorePlacement",
    "four tokens padded to six: TRL puts the score on the fifth slot, the others on the "
    "fourth" },
  { "*", "logp=-1.25,-0.5,-2.5 ref=-1,-0.625,-2 mask=1,1,1 score=0.8", "ScorePlacement",
    "no padding slot: TRL puts the score on the last token like the others" },
  { "*", "logp=-1.5,-0.25,-3 ref=-1.5,-0.25,-3 mask=1,1,1 score=-0.5", "AtReference",
    "policy = reference: every penalty 0, the rewards are the score alone" },
  { "*", "logp=-1.0000000001,-2 ref=-1,-2.0000000002 mask=1,1 score=0", "K3Cancellation",
    "log-ratios -1e-10 and 2e-10: e^{-l} - 1 + l written directly is noise in binary64; "
    "k3 ~ l^2/2 = 5e-21" },
  { "*", "logp=-1.25,-0.5,-2.5,-0.75 ref=-1,-0.625,-2,-0.875 mask=1,0,1,0 score=2",
    "MaskHole", "a masked token inside the response: verl and the seed put no penalty there "
    "and the score on the last masked-in token; OpenRLHF keeps the penalty at both masked "
    "tokens; TRL's response ends at the first 0 (no penalty after it, the score on that slot)" },
  { "*", "logp=-1.25,-0.5,-2.5,-0.75,-1.5,-0.25 ref=-1,-0.625,-2,-0.875,-1,-0.75 "
    "mask=1,1,1,1,0,0 score=0.8", "Padding ScorePlacement MaskedPenalty",
    "two padded slots whose log-probabilities differ from the reference (l = -0.5, 0.5): "
    "OpenRLHF keeps -beta kl there and in reward_sum, verl (kld * mask), TRL (INVALID_LOGPROB "
    "on both sides) and the seed put 0; TRL's score on the fifth slot" },
  { "*", "logp=-1.25,-0.5,-2.5 ref=-1,-0.625,-2 mask=1,1,1 score=25", "ScoreClamp",
    "a score of 25: OpenRLHF's compute_reward clamps it to reward.clip_range [-10, 10], the "
    "others add 25" },
  { "*", "logp=-1.25,-0.5,-2.5 ref=-1,-0.625,-2 mask=1,1,1 score=0.8 beta=0", "",
    "beta 0: the rewards are the score alone, the penalties still reported" },
  { "*", "logp=-1.25,-0.5,-2.5 ref=-1,-0.625,-2 mask=1,2,1 score=0.8", "MaskNotBinary",
    "a mask entry 2", .invalid_in = "*" },
  { "*", "logp=-1.25,-0.5,-2.5 ref=-1,-0.625,-2 mask=0,0,0 score=0.8", "EmptyMask",
    "no token in the mask: nowhere to put the score", .invalid_in = "*" },
  { "*", "logp=-1.25,nan,-2.5 ref=-1,-0.625,-2 mask=1,1,1 score=0.8", "NonFinite",
    "NaN log-probability", .invalid_in = "*" },
  { "*", "logp=-1.25,-0.5,-2.5 ref=-1,-0.625,-2 mask=1,1,1 score=inf", "NonFinite",
    "infinite score", .invalid_in = "*" },
  { "*", "logp= ref= mask= score=1", "EmptyBatch", "no token", .invalid_in = "*" },
  { "*", "logp=-1.25,-0.5 ref=-1 mask=1,1 score=1", "LengthMismatch",
    "two policy log-probabilities, one reference", .invalid_in = "*" },
  { "seed-000,trl-k1,trl-k3,verl-k1,verl-low-var-kl",
    "logp=-1.25,-0.5,-2.5 ref=-1,-0.625,-2 mask=1,1,1 score=0.8 beta=-0.1",
    "OutOfDomain", "beta < 0", .invalid_in = "*" },
  { "openrlhf-k1,openrlhf-k2,openrlhf-k3",
    "logp=-1.25,-0.5,-2.5 ref=-1,-0.625,-2 mask=1,1,1 score=0.8 beta=-0.1", "BetaFloor",
    "beta < 0: compute_reward sets kl_coef <= 0 to 0, the rewards are the score alone" },
  RL_END,
};

static const rl_case c_tokrew_ex[] = {
  { "*", "p=0.9 p_ref=0.4", "SeedExample",
    "000 section 3: pi_ref 0.4, pi 0.9: log(0.9/0.4) = 0.810930, k2 0.328804, k3 0.255375" },
  { "*", "p=0.4 p_ref=0.9", "", "the reverse: l = -0.810930, k3 = 0.9/0.4 - 1 - 0.810930" },
  { "*", "p=0.5 p_ref=0.5000001", "K3Cancellation",
    "l = -2e-7: log(p/p_ref) of a rounded quotient and e^{-l} - 1 + l both lose digits" },
  { "*", "p=0.999 p_ref=1e-300", "", "a token the reference all but excludes: l = 690.8" },
  { "*", "p=0 p_ref=0.4", "OutOfDomain", "probability 0: the log-ratio is -inf",
    .invalid_in = "*" },
  { "*", "p=0.9 p_ref=1.5", "OutOfDomain", "not a probability", .invalid_in = "*" },
  { "*", "p=nan p_ref=0.4", "NonFinite", "NaN probability", .invalid_in = "*" },
  { "*", "p=1e-10 p_ref=0.9", "TinyRatio",
    "p/p_ref = 1.1e-10: log1p((p - p_ref)/p_ref) rounds 1 + (p - p_ref)/p_ref near 0 and "
    "misses l = -22.92 by 3.6e-9 relative, k3 = 9e9 by 8e-8" },
  { "*", "p=1e-15 p_ref=0.9", "TinyRatio",
    "p/p_ref = 1.1e-15: log1p of the difference ratio is off by 2e-5 relative" },
  { "*", "p=1e-17 p_ref=0.9", "TinyRatio",
    "p/p_ref = 1.1e-17 < 2^-54: (p - p_ref)/p_ref rounds to -1 and log1p gives -inf (k2 inf, "
    "k3 NaN); l = -39.04, k3 = 9e16" },
  { "*", "p=1e-300 p_ref=0.5", "TinyRatio", "l = -690.1, k3 = p_ref/p - 1 + l = 5e299" },
  { "*", "p=1e-308 p_ref=0.9", "TinyRatio RatioBranch",
    "p/p_ref = 1.1e-308 below the normal range: l = log p - log p_ref = -709.09, k3 = 9e307 "
    "near the top of the range" },
  { "*", "p=1.1e-308 p_ref=0.5", "RatioBranch",
    "p/p_ref = 2.2e-308, just below the smallest normal number: l = log p - log p_ref" },
  { "*", "p=1.2e-308 p_ref=0.5", "RatioBranch",
    "p/p_ref = 2.4e-308, just above the smallest normal number: l = log(p/p_ref)" },
  { "*", "p=1e-320 p_ref=1e-300", "TinyRatio",
    "a subnormal p against a tiny p_ref: l = -46.05 from log p - log p_ref, k3 = 1e20" },
  { "*", "p=3e-300 p_ref=1e-300", "RatioBranch",
    "both tiny, ratio 3: log(p/p_ref), where log p - log p_ref loses 480 ulps" },
  { "*", "p=1e-305 p_ref=1e-300", "RatioBranch",
    "both tiny, ratio 1e-5: log(p/p_ref), where log p - log p_ref loses 50 ulps" },
  { "*", "p=0.45 p_ref=0.9", "RatioBranch", "p/p_ref = 1/2: the last log1p((p - p_ref)/p_ref)" },
  { "*", "p=0.4499999 p_ref=0.9", "RatioBranch", "p/p_ref just below 1/2: log(p/p_ref)" },
  { "*", "p=0.9 p_ref=0.45", "RatioBranch", "p/p_ref = 2: the last log1p((p - p_ref)/p_ref)" },
  { "*", "p=0.9 p_ref=0.44999999", "RatioBranch", "p/p_ref just above 2: log(p/p_ref)" },
  { "*", "p=0.3311 p_ref=0.9", "RatioBranch", "l = -0.99998: k3 by its series" },
  { "*", "p=0.33109 p_ref=0.9", "RatioBranch", "l = -1.0000045: k3 = p_ref/p - 1 + l" },
  { "*", "p=0.9 p_ref=0.3311", "RatioBranch", "l = 0.99998: k3 by its series" },
  { "*", "p=0.9 p_ref=0.33109", "RatioBranch", "l = 1.0000045: k3 = p_ref/p - 1 + l" },
  RL_END,
};

/* --- PPO-KLSUM --------------------------------------------------------- */

#define SHAPE_INPUTS                                                          \
  { "V", RL_INT, "vocabulary size (2 to 64)" },                               \
  { "eos", RL_INT, "the EOS token" },                                         \
  { "T", RL_INT, "maximum length: a sequence ends at EOS or is cut after T tokens" }, \
  { "logits", RL_REAL_ARRAY, "the policy pi: bigram, (V + 1) rows of V (row V the start); "  \
    "tabular, one row of V per prefix without EOS shorter than T, by length then "        \
    "lexicographically (EOS skipped)" },                                      \
  { "ref_logits", RL_REAL_ARRAY, "the reference pi_ref, the same shape", .same_len_as = "logits" }, \
  { "reward", RL_REAL_ARRAY, "additive reward: V token rewards, per_length (times the length, " \
    "EOS included), truncated (added to a cut sequence)" },                   \
  { "beta", RL_REAL, "the KL coefficient, > 0" },                             \
  { "y", RL_INT_ARRAY, "one sequence: tokens, EOS only last; shorter than T ends with EOS" }

static const rl_output out_klsum[] = {
  { "token_log_ratio", "log pi(y_t | s_t) - log pi_ref(y_t | s_t) of the given y", .len_of = "y" },
  { "seq_log_ratio", "log pi(y) - log pi_ref(y) of the given y: the sum of token_log_ratio" },
  { "token_rewards", "13.9 on y: -beta token_log_ratio_t, plus r(y) on its last token",
    .len_of = "y" },
  { "kl_tokens", "E_pi[sum_t (log pi(y_t | s_t) - log pi_ref(y_t | s_t))], every sequence "
    "enumerated (13.10, right side)" },
  { "kl", "KL(pi || pi_ref) over sequences (13.10, left side)" },
  { "return_tokens", "E_pi[sum_t r_t], r_t of 13.9 with the score r(y) on the last token" },
  { "rlhf", "E_pi[r] - beta KL(pi || pi_ref) (13.8): equal to return_tokens" },
  RL_END,
};

static const rl_io io_klsum_tabular = {
  .in = (const rl_input[]) { SHAPE_INPUTS, RL_END }, .out = out_klsum,
  RL_EVALS (ppo_klsum), .part = "tabular",
};
static const rl_io io_klsum_bigram = {
  .in = (const rl_input[]) { SHAPE_INPUTS, RL_END }, .out = out_klsum,
  RL_EVALS (ppo_klsum), .part = "bigram",
};

/* Models of the cases (those of the LM family): A3 a tabular model, V = 3,
 * EOS 2, T = 3 (7 prefixes, 21 logits) against the reference A3_REF; B3 a
 * bigram model against uniform logits. */
#define A3 "V=3 eos=2 T=3 logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,-0.3,0.3,0"
#define A3_REF " ref_logits=0,0,0,0.5,-0.5,0,0,0,0,1,1,-1,0.1,-0.1,0.3,0.2,0.2,0.2,-1,0,1"
#define A3_SELF " ref_logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,-0.3,0.3,0"
#define B3 "V=3 eos=2 T=3 logits=0.5,-0.2,0.1,0,1,-1,0,0,0,0.3,0.3,-0.5"
#define U3 " ref_logits=0,0,0,0,0,0,0,0,0,0,0,0"
#define R3 " reward=1,-0.5,0,-0.25,-1"

static const rl_case c_klsum[] = {
  { "tabular", A3 A3_REF R3 " beta=0.5 y=0,1,2", "Identity",
    "15 sequences of V = 3, T = 3: E[sum_t l_t] = KL(pi || pi_ref) and E[sum_t r_t] = E[r] - "
    "beta KL; y ends with EOS" },
  { "tabular", A3 A3_REF R3 " beta=0.5 y=1,0,0", "Identity Cut",
    "the same; y cut at T (the truncation reward on its last token)" },
  { "tabular", A3 A3_SELF R3 " beta=0.5 y=0,2", "AtReference",
    "pi = pi_ref: every log-ratio 0, KL 0, the return E[r]" },
  { "bigram", B3 U3 R3 " beta=0.25 y=2", "Identity",
    "a bigram policy against uniform logits; y = EOS alone" },
  { "bigram", B3 U3 R3 " beta=2 y=0,0,1", "Identity Cut", "beta 2; y cut at T" },
  { "tabular", A3 A3_REF R3 " beta=0 y=0,1,2", "OutOfDomain", "beta = 0", .invalid_in = "*" },
  { "tabular", A3 A3_REF R3 " beta=0.5 y=0,2,1", "NotASequence", "EOS inside y",
    .invalid_in = "*" },
  { "bigram", B3 U3 R3 " beta=0.5 y=0,1", "NotASequence", "shorter than T without EOS",
    .invalid_in = "*" },
  { "bigram", "V=3 eos=2 T=3 logits=0.5,-0.2,0.1,0,nan,-1,0,0,0,0.3,0.3,-0.5" U3 R3
    " beta=0.5 y=2", "NonFinite", "a NaN logit", .invalid_in = "*" },
  { "bigram", B3 " ref_logits=0,0,0,0,0,0,0,0,0" R3 " beta=0.5 y=2", "LengthMismatch",
    "the reference has three rows of logits, the policy four", .invalid_in = "*" },
  RL_END,
};

/* --- PPO-RATIO, PPO-IS ------------------------------------------------- */

#define IN_LOGP { "logp", RL_REAL_ARRAY, "log pi_theta(a_t | s_t), the policy being trained" }
#define IN_OLD { "old_logp", RL_REAL_ARRAY, "log pi_old(a_t | s_t), the policy that sampled", \
    .same_len_as = "logp" }

static const rl_input in_ratio[] = { IN_LOGP, IN_OLD, RL_END };
static const rl_output out_ratio[] = {
    { "ratio", "rho_t = e^{l_t}, l_t = logp_t - old_logp_t (after the variant's clamp)",
      .len_of = "logp" },
    { "log_ratio", "l_t as exponentiated (clamped by clamp-20)", .len_of = "logp" },
    { "grad", "d rho_t / d logp_t: rho_t, or 0 where the clamp binds strictly (torch.clamp "
      "passes the gradient at its bounds)", .len_of = "logp" },
    RL_END };

static const rl_io io_ratio = {
  .in = in_ratio, .out = out_ratio, RL_EVALS (ppo_ratio), .part = "ratio",
};
static const rl_io io_ratio_f32 = {
  .in = in_ratio, .out = out_ratio, RL_EVALS (ppo_ratio_f32), .binary32 = 1, .part = "ratio",
};

static const rl_io io_is = {
  .in = (const rl_input[]) {
    { "logits_old", RL_REAL_ARRAY, "logits of pi_old over K actions" },
    { "logits", RL_REAL_ARRAY, "logits of pi_theta", .same_len_as = "logits_old" },
    { "f", RL_REAL_ARRAY, "a function of the action (an advantage A)", .same_len_as = "logits_old" },
    RL_END },
  .out = (const rl_output[]) {
    { "e_old", "E_old[f] = sum_a pi_old(a) f(a)" },
    { "e_is", "E_theta[(pi_old/pi_theta) f] (003's identity: equals e_old)" },
    { "e_new", "E_theta[f]" },
    { "e_cpi", "E_old[rho f], rho = pi_theta/pi_old: the unclipped (CPI) surrogate, in the "
      "direction PPO uses (equals e_new)" },
    { "p_old", "pi_old = softmax(logits_old)", .len_of = "logits_old" },
    { "p", "pi_theta = softmax(logits)", .len_of = "logits_old" },
    { "ratio", "rho(a) = pi_theta(a)/pi_old(a)", .len_of = "logits_old" },
    { "cpi_grad", "d e_cpi / d logits_k = pi_theta(k) (f(k) - e_new)", .len_of = "logits_old" },
    { "pg_old", "the policy gradient at theta_old, E_old[f d log pi_old / d logits_k] = "
      "pi_old(k) (f(k) - e_old): equal to cpi_grad when logits = logits_old",
      .len_of = "logits_old" },
    RL_END },
  RL_EVALS (ppo_is), .part = "is",
};

#define F32_ALL "trl-float32,verl-float32,openrlhf-float32"
#define R32_ALL "trl-float32,clamp-20-float32"

static const rl_case c_ratio[] = {
  { "*", "logp=-1,-0.5,-2 old_logp=-2,-0.5,-1", "Direction",
    "ratios e, 1, 1/e: new minus old (seed 001); the reverse gives 1/e, 1, e" },
  { "*", "logp=25,-31 old_logp=0,-1", "ClampBinds",
    "log-ratios 25 and -30: clamp-20 gives e^20 and e^-20 with gradient 0; plain e^25, e^-30" },
  { "*", "logp=20,-7 old_logp=0,13", "ClampEdge",
    "log-ratios exactly 20 and -20: at the clamp's bounds torch passes the gradient" },
  { "*", "logp=-800 old_logp=0", "", "ratio e^-800, below the binary64 range (0, correctly "
    "rounded); clamp-20 gives e^-20" },
  { "*", "logp=700,-3.25 old_logp=0,-3.25", "",
    "log-ratio 700: e^700 ~ 1e304 unclamped; and a ratio of exactly 1",
    .invalid_in = "trl-float32" },
  { "*", "logp=nan old_logp=0", "NonFinite", "NaN log-probability", .invalid_in = "*" },
  { "*", "logp= old_logp=", "EmptyBatch", "no token", .invalid_in = "*" },
  { "*", "logp=-1,-2 old_logp=-1", "LengthMismatch", "two new log-probabilities, one old",
    .invalid_in = "*" },
  { R32_ALL, "logp=89,-0.5 old_logp=0,-0.5", "Binary32Overflow",
    "log-ratio 89: e^89 = 4.5e38 is inf in binary32 (TRL refused, ERANGE); the clamp of verl "
    "and OpenRLHF gives f32(e^20)", .invalid_in = "trl-float32" },
  { R32_ALL, "logp=88.5 old_logp=0", "",
    "log-ratio 88.5: e^88.5 = 2.7e38, just inside binary32 (TRL); clamped f32(e^20)" },
  { R32_ALL, "logp=-1.0000001,-30.4999 old_logp=-1,-30.5", "Binary32Rounding",
    "log-ratios -1e-7 and 1e-4 of log-probabilities rounded to binary32: f32(-1.0000001) - "
    "f32(-1) = -1.19e-7 (ratio 0.99999988, exact 0.9999999), f32(-30.4999) - f32(-30.5) = "
    "9.9e-5" },
  RL_END,
};

static const rl_case c_is[] = {
  { "*", "logits_old=0.2,-0.5,1 logits=0.5,-0.125,0.25 f=1,-2,0.5", "",
    "three actions: e_is = e_old and e_cpi = e_new, both identities exact" },
  { "*", "logits_old=0.2,-0.5,1 logits=0.2,-0.5,1 f=1,-2,0.5", "AtOld",
    "theta = theta_old: rho = 1, the CPI gradient equals the policy gradient" },
  { "*", "logits_old=0,0,0,0 logits=3,0,0,-3 f=1,0,0,-1", "",
    "a uniform pi_old, a peaked pi_theta" },
  { "*", "logits_old=0,0 logits=40,-40 f=1,-1", "RareAction",
    "pi_theta(1) = e^-80: the importance weight pi_old/pi_theta is e^80" },
  { "*", "logits_old=0,0 logits=0,0 f=nan,1", "NonFinite", "NaN value", .invalid_in = "*" },
  { "*", "logits_old= logits= f=", "EmptyBatch", "no action", .invalid_in = "*" },
  { "*", "logits_old=0,0 logits=0 f=1,1", "LengthMismatch", "two old logits, one new",
    .invalid_in = "*" },
  RL_END,
};

/* --- PPO-CLIP, PPO-CLIP-EX2, PPO-DUALCLIP ------------------------------ */

static const rl_input in_clip[] = {
  IN_LOGP, IN_OLD,
  { "adv", RL_REAL_ARRAY, "the advantage A_t of each token", .same_len_as = "logp" },
  MASK ("logp"),
  RL_END };
static const rl_output out_clip[] = {
    { "loss", "-sum_t mask_t s_t / sum_t mask_t (the token mean, the libraries' default "
      "for PPO)" },
    { "surrogate", "s_t = min(rho_t A_t, clip(rho_t, 1 - eps_low, 1 + eps_high) A_t) (13.12), "
      "with the dual clip max(s_t, c A_t) for A_t < 0 where the variant has it; 0 where "
      "masked", .len_of = "logp" },
    { "ratio", "rho_t = e^{l_t} (l_t clamped to [-20, 20] where the variant clamps)",
      .len_of = "logp" },
    { "grad", "d loss / d logp_t: -A_t rho_t / N where rho_t A_t is the active term, 0 where a "
      "clip, the dual bound or the log-ratio clamp binds", .len_of = "logp" },
    { "clipfrac", "the fraction of masked tokens with clip(rho) A < rho A (the libraries' "
      "clipfrac)" },
    RL_END };

static const rl_io io_clip = {
  .in = in_clip, .out = out_clip, RL_EVALS (ppo_clip), .part = "clip",
};
static const rl_io io_clip_f32 = {
  .in = in_clip, .out = out_clip, RL_EVALS (ppo_clip_f32), .binary32 = 1, .part = "clip",
};

/* The checker's departures of the clipped surrogate (ppo_axes.h). */
PPO_CLIP_AXES (clip, io_clip);

static const rl_io io_clip_one = {
  .in = (const rl_input[]) {
    { "rho", RL_REAL, "the probability ratio r_t, >= 0" },
    { "adv", RL_REAL, "the advantage A_t" },
    RL_END },
  .out = (const rl_output[]) {
    { "clipped", "clip(rho, 1 - eps, 1 + eps) = min(max(rho, 1 - eps), 1 + eps)" },
    { "unclipped", "rho A" },
    { "surrogate", "min(rho A, clip(rho, 1 - eps, 1 + eps) A) (13.12)" },
    RL_END },
  RL_EVALS (ppo_clip_one), .part = "one-token",
};

#define CLIP_BATCH "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1.25,-0.625,-1.5,-2.25,0.375," \
  "-0.5 adv=0.75,1.5,-0.8,-2,-1,0.3125"
#define LOG15 "0.4054651081081644"              /* the double nearest log 1.5 */
#define LOG5 "1.6094379124341003"               /* the double nearest log 5 */

#define C_CLIP_COMMON                                                           \
  { "*", "logp=" LOG15 " old_logp=0 adv=0.5 mask=1", "SeedExample",               \
    "003's worked example: A = 0.5, eps = 0.2, rho = 1.5 (to 1e-16): surrogate 0.6, not "   \
    "0.75; loss -0.6" },                                                        \
  { "*", "logp=" LOG5 " old_logp=0 adv=-1 mask=1", "Detector",                    \
    "CONVENTIONS dual clip: eps 0.2, A = -1, rho = 5: loss 5 (no dual clip) or 3 (c = 3)" }, \
  { "*", CLIP_BATCH " mask=1,1,1,1,1,1", "Batch ClipFrac32",                      \
    "six tokens, both signs of A, inside and outside the clip range; the fourth has rho = " \
    "e^1.35 = 3.86 with A = -2, where the dual clip binds (-6); four clipped: the clip "    \
    "fraction 2/3, f32(2/3) = 0.6666666865348816 in the libraries" },              \
  { "*", CLIP_BATCH " mask=1,1,1,0,1,0", "Padding",                               \
    "the same with two tokens masked (the dual-clipped one among them): N = 4" }, \
  { "*", "logp=-1,-2 old_logp=-1,-2 adv=1.5,-0.5 mask=1,1", "OnPolicy",           \
    "logp = old_logp: rho = 1, nothing clipped, the gradient -A/N (the policy gradient)" }, \
  { "*", "logp=30,-0.5 old_logp=0,-0.5 adv=-1,0.5 mask=1,1", "ClampBinds",        \
    "log-ratio 30 with A < 0: unclamped rho A = -e^30; clamped -e^20; the dual clip -3" }, \
  { "*", "logp=-0.5,-0.25 old_logp=-0.25,-0.5 adv=1,-1 mask=1,1 eps_low=0.2 eps_high=0.28", \
    "ClipHigher", "the asymmetric range 0.8 to 1.28 (DAPO's clip-higher values)" }, \
  { "*", "logp=-1,-2 old_logp=-1.5,-2 adv=0,1 mask=1,1", "ZeroAdvantage",        \
    "A = 0: surrogate and gradient 0 whatever the ratio" },                     \
  { "*", "logp=-1,-2,-3 old_logp=-1,-2,-3 adv=1,1,1 mask=1,3,1", "MaskNotBinary", \
    "a mask entry 3", .invalid_in = "*" },                                      \
  { "*", "logp=-1,-2 old_logp=-1,-2 adv=1,1 mask=0,0", "EmptyMask",               \
    "no token in the mask: the token mean is 0/0", .invalid_in = "*" },         \
  { "*", "logp=-1,inf old_logp=-1,-2 adv=1,1 mask=1,1", "NonFinite",              \
    "infinite log-probability", .invalid_in = "*" },                            \
  { "*", "logp= old_logp= adv= mask=", "EmptyBatch", "no token", .invalid_in = "*" }, \
  { "*", "logp=-1,-2 old_logp=-1,-2 adv=1 mask=1,1", "LengthMismatch",            \
    "one advantage for two tokens", .invalid_in = "*" },                        \
  { "*", "logp=-1 old_logp=-1 adv=1 mask=1 eps_low=-0.1", "OutOfDomain", "eps_low < 0", \
    .invalid_in = "*" },                                                        \
  { "*", "logp=-1 old_logp=-1 adv=1 mask=1 eps_low=1", "OutOfDomain",             \
    "eps_low = 1: the lower bound 1 - eps_low is 0", .invalid_in = "*" }

static const rl_case c_clip[] = {
  C_CLIP_COMMON,
  { "verl", "logp=-1 old_logp=-1 adv=1 mask=1 c=1", "OutOfDomain",
    "clip_ratio_c = 1: verl asserts c > 1", .invalid_in = "*" },
  { F32_ALL, "logp=89,-1 old_logp=0,-1 adv=0.5,1 mask=1,1", "Binary32Overflow",
    "log-ratio 89: TRL's ratio is inf in binary32 (refused, ERANGE); the clamp gives "
    "f32(e^20), clipped to f32(1.2): surrogates 0.6 and 1", .invalid_in = "trl-float32" },
  { F32_ALL, "logp=-1,-1,-1 old_logp=-1,-1,-1 adv=1e8,1,-1e8 mask=1,1,1", "Binary32Absorption",
    "rho = 1, surrogates 1e8, 1, -1e8: the binary32 sum 1e8 + 1 is 1e8, the loss 0 (exact "
    "arithmetic -1/3)" },
  { F32_ALL, "logp=-0.5,-0.25,-2 old_logp=-0.5,-0.25,-2 adv=1,2,3 mask=1,1,1", "CountEps",
    "rho = 1, loss -(1 + 2 + 3)/3 = -2 exactly: verl's mask.sum() + 1e-8 is 3 in binary32 "
    "(-1.9999999933 in exact arithmetic); the gradient f32(1/3) A" },
  RL_END,
};

static const rl_case c_dualclip[] = {
  C_CLIP_COMMON,
  { "dual-clip,trl-delta", "logp=" LOG5 " old_logp=0 adv=-1 mask=1 c=10", "",
    "c = 10: the bound -10 does not bind at rho = 5" },
  { "dual-clip,trl-delta,verl-float32,openrlhf-float32", "logp=21 old_logp=0 adv=-1 mask=1 "
    "c=1e9", "ClampBinds DualClipCap",
    "log-ratio 21, A = -1, c = 1e9: verl and OpenRLHF clamp the log-ratio to 20, so rho A = "
    "-e^20 = -4.85e8 lies above the bound -1e9 (loss e^20, gradient 0); TRL's delta caps the "
    "unclamped e^21 = 1.32e9 at 1e9 (loss 1e9, gradient 0; ratio output e^21)" },
  { "dual-clip", "logp=-1 old_logp=-1 adv=1 mask=1 c=0.5", "OutOfDomain",
    "c = 0.5: verl and OpenRLHF assert c > 1", .invalid_in = "*" },
  { "trl-delta", "logp=-1 old_logp=-1 adv=1 mask=1 c=0.5", "RatioCap",
    "delta = 0.5 (TRL checks no bound): the cap binds for A > 0 too, rho = 1 becomes 0.5: loss "
    "-0.5, gradient 0" },
  { "trl-delta", "logp=-1 old_logp=-1 adv=1 mask=1 c=0", "OutOfDomain",
    "delta = 0: a ratio cap must be > 0", .invalid_in = "*" },
  { F32_ALL, "logp=25,-1 old_logp=0,-1 adv=-2e38,1 mask=0,1", "MaskedOverflow",
    "a masked token with A = -2e38 and log-ratio 25: -A rho and -A c overflow binary32 (its "
    "loss inf); verl's masked_sum drops it (loss -1), OpenRLHF's (loss * mask).sum() is NaN "
    "(refused, ERANGE), TRL's ratio is 1 there (INVALID_LOGPROB) and its loss finite",
    .invalid_in = "openrlhf-float32" },
  { F32_ALL, "logp=89,-1 old_logp=0,-1 adv=0.5,1 mask=1,1", "Binary32Overflow",
    "log-ratio 89: TRL's ratio is inf in binary32 (refused, ERANGE); the clamp gives "
    "f32(e^20), clipped to f32(1.2): surrogates 0.6 and 1", .invalid_in = "trl-float32" },
  { F32_ALL, "logp=-1,-1,-1 old_logp=-1,-1,-1 adv=1e8,1,-1e8 mask=1,1,1", "Binary32Absorption",
    "rho = 1, surrogates 1e8, 1, -1e8: the binary32 sum 1e8 + 1 is 1e8, the loss 0 (exact "
    "arithmetic -1/3)" },
  { F32_ALL, "logp=-0.5,-0.25,-2 old_logp=-0.5,-0.25,-2 adv=1,2,3 mask=1,1,1", "CountEps",
    "rho = 1, loss -(1 + 2 + 3)/3 = -2 exactly: verl's mask.sum() + 1e-8 is 3 in binary32 "
    "(-1.9999999933 in exact arithmetic); the gradient f32(1/3) A" },
  RL_END,
};

static const rl_case c_clip_one[] = {
  { "*", "rho=2 adv=1", "SeedExample", "003: clip(2, 0.8, 1.2) = 1.2" },
  { "*", "rho=1.5 adv=0.5", "SeedExample", "003's example of 13.12: 0.6 (clipped), not 0.75" },
  { "*", "rho=0.5 adv=-1", "", "A < 0, rho below the range: clip 0.8, surrogate "
    "min(-0.5, -0.8) = -0.8" },
  { "*", "rho=0.5 adv=1", "", "A > 0, rho below the range: the unclipped 0.5 is the min" },
  { "*", "rho=1.1 adv=-2", "", "inside the range: surrogate = rho A" },
  { "*", "rho=0 adv=1", "", "rho = 0" },
  { "*", "rho=-1 adv=1", "OutOfDomain", "a negative ratio", .invalid_in = "*" },
  { "*", "rho=1 adv=1 eps=1", "OutOfDomain", "eps = 1", .invalid_in = "*" },
  { "*", "rho=nan adv=1", "NonFinite", "NaN ratio", .invalid_in = "*" },
  RL_END,
};

/* --- PPO-VALUE --------------------------------------------------------- */

static const rl_input in_value[] = {
  { "values", RL_REAL_ARRAY, "V_psi(s_t), the critic being trained" },
  { "old_values", RL_REAL_ARRAY, "V_old(s_t), the critic's values at the rollout (read by "
    "the clipped conventions)", .same_len_as = "values" },
  { "returns", RL_REAL_ARRAY, "the target R_t", .same_len_as = "values" },
  MASK ("values"),
  RL_END };
static const rl_output out_value[] = {
    { "loss", "k sum_t losses_t / N: k = 1/2 (the libraries) or 1 (the seeds)" },
    { "losses", "(V - R)^2, or max((V - R)^2, (Vc - R)^2) with Vc the clipped value; 0 where "
      "masked", .len_of = "values" },
    { "grad", "d loss / d values_t", .len_of = "values" },
    { "clipfrac", "the fraction of masked tokens whose clipped square is the larger" },
    RL_END };

static const rl_io io_value = {
  .in = in_value, .out = out_value, RL_EVALS (ppo_value_loss), .part = "loss",
};
static const rl_io io_value_f32 = {
  .in = in_value, .out = out_value, RL_EVALS (ppo_value_loss_f32), .binary32 = 1, .part = "loss",
};

static const rl_io io_gae_target = {
  .in = (const rl_input[]) {
    { "old_values", RL_REAL_ARRAY, "V_old(s_t) at the rollout" },
    { "adv", RL_REAL_ARRAY, "the GAE advantage A_t (before whitening)", .same_len_as = "old_values" },
    RL_END },
  .out = (const rl_output[]) {
    { "target", "R_t = V_old(s_t) + A_t", .len_of = "old_values" },
    RL_END },
  RL_EVALS (ppo_gae_target), .part = "target-gae",
};

static const rl_io io_mc_return = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "the per-token rewards r_t of one response" },
    RL_END },
  .out = (const rl_output[]) {
    { "target", "R_t = sum_{k >= t} gamma^{k - t} r_k", .len_of = "rewards" },
    RL_END },
  RL_EVALS (ppo_mc_return), .part = "target-mc",
};

static const rl_io io_objective = {
  .in = (const rl_input[]) {
    { "logits", RL_REAL_ARRAY, "the policy's logits at each token: len(mask) rows of V" },
    { "V", RL_INT, "the vocabulary size (the row length)" },
    { "mask", RL_INT_ARRAY, "1 for a token that counts, 0 for padding" },
    { "l_clip", RL_REAL, "L^CLIP, the clipped surrogate objective (maximised; the loss is its "
      "negative)" },
    { "l_vf", RL_REAL, "L^VF, the value loss" },
    RL_END },
  .out = (const rl_output[]) {
    { "entropy", "H_t = -sum_a p log p of the softmax of row t", .len_of = "mask" },
    { "entropy_mean", "sum_t mask_t H_t / N" },
    { "objective", "L^CLIP - c1 L^VF + c2 entropy_mean (003)" },
    { "loss", "-objective = -L^CLIP + c1 L^VF - c2 entropy_mean (000's pseudo-code)" },
    RL_END },
  RL_EVALS (ppo_objective), .part = "objective",
};

#define V_LOSSES "seed-000,trl,verl,openrlhf,openrlhf-unclipped"
#define V_OBJ "objective-seed,objective-trl,objective-separate-critic"

static const rl_case c_value[] = {
  { V_LOSSES, "values=0.55,1.4,-0.2,2 old_values=0.3,0.7,0.1,2.125 returns=1,0.25,0.4,1.875 "
    "mask=1,1,1,1", "Batch",
    "four tokens: with c = 0.2 (TRL) the first token's clipped square is the larger; with "
    "c = 0.5 none" },
  { V_LOSSES, "values=0.55,1.4,-0.2,2 old_values=0.3,0.7,0.1,2.125 returns=1,0.25,0.4,1.875 "
    "mask=1,0,1,0", "Padding", "the same, two tokens masked" },
  { V_LOSSES, "values=1,2 old_values=1,2 returns=0.5,2.5 mask=1,1", "OnPolicy",
    "V = V_old: no clipping; the seed's loss is twice the libraries' (no 1/2)" },
  { V_LOSSES, "values=3 old_values=0 returns=0 mask=1", "",
    "V moved 3 away from R = V_old: the unclipped square 9 is the larger, the clip changes "
    "nothing" },
  { V_LOSSES, "values=1.25 old_values=0 returns=1 mask=1", "ClipBinds",
    "V moved past R: the clipped value (0.2 or 0.5) lies farther from R than V, its square "
    "wins and the gradient is 0" },
  { V_LOSSES, "values=0.25 old_values=1 returns=0.25 mask=1", "ClipBinds",
    "V reached R but moved more than c: the clipped square is the larger, the gradient 0; the "
    "unclipped readings give 0" },
  { V_LOSSES, "values=1.25,1,2 old_values=0,1,2 returns=1,0.5,2.5 mask=1,1,1",
    "ClipBinds ClipFrac32",
    "one of three tokens clipped (the first, as the ClipBinds case): the clip fraction 1/3, "
    "f32(1/3) = 0.3333333432674408 in TRL and verl (a float32 mean of the 0/1 mask)" },
  { V_LOSSES, "values=1,2 old_values=1,2 returns=0.5,2.5 mask=1,2", "MaskNotBinary",
    "a mask entry 2", .invalid_in = "*" },
  { V_LOSSES, "values=1,2 old_values=1,2 returns=0.5,2.5 mask=0,0", "EmptyMask",
    "no token in the mask", .invalid_in = "*" },
  { V_LOSSES, "values=1,nan old_values=1,2 returns=0.5,2.5 mask=1,1", "NonFinite",
    "NaN value", .invalid_in = "*" },
  { V_LOSSES, "values= old_values= returns= mask=", "EmptyBatch", "no token",
    .invalid_in = "*" },
  { V_LOSSES, "values=1,2 old_values=1 returns=0.5,2.5 mask=1,1", "LengthMismatch",
    "one old value for two tokens", .invalid_in = "*" },
  { "trl,verl,openrlhf", "values=1 old_values=0 returns=0 mask=1 clip=-0.5", "OutOfDomain",
    "a negative clip range", .invalid_in = "*" },
  { "trl,verl,openrlhf," F32_ALL, "values=1.5,0.25 old_values=1,0 returns=0,1 mask=1,1 clip=0.5",
    "ValueClipEdge",
    "V = 1.5 exactly at V_old + c (the clipped value is V, the squares tie): torch.max halves "
    "the gradient between the squares and verl's clip_by_value = max(min(V, hi), lo) halves "
    "the clipped one's again at min's tie: d loss / dV = 3/4 x 0.75 = 0.5625 (verl), 0.75 "
    "through torch.clamp (TRL, OpenRLHF); the second token inside the range" },
  { "gae-return", "old_values=0.1,0.2,0.3 adv=0.82675,0.765,0.7", "",
    "CONVENTIONS GAE detector: targets A + V = 0.92675, 0.965, 1" },
  { "gae-return", "old_values=0.1,nan adv=1,1", "NonFinite", "NaN value", .invalid_in = "*" },
  { "mc-return", "rewards=0,0,1", "", "gamma 1: the terminal reward at every step" },
  { "mc-return", "rewards=0.5,-0.25,1 gamma=0.9", "", "gamma 0.9: 0.5 - 0.225 + 0.81" },
  { "mc-return", "rewards=1,1 gamma=-0.5", "OutOfDomain", "gamma < 0", .invalid_in = "*" },
  { V_OBJ, "logits=0,0,0,1,2,3 V=3 mask=1,1 l_clip=0.25 l_vf=0.5", "",
    "two tokens: H = log 3 and the entropy of softmax(1, 2, 3)" },
  { V_OBJ, "logits=0,0,0,1,2,3,2,0,-1 V=3 mask=1,1,0 l_clip=-0.125 l_vf=2", "Padding",
    "a masked third token takes no part in the masked mean; TRL's logged entropy.mean() counts "
    "it" },
  { V_OBJ, "logits=0,0,0,40,0,0 V=3 mask=1,1 l_clip=0.25 l_vf=0.5", "EntropyCancellation",
    "a near-certain token: H = 82 e^-40 = 3.5e-16, which logsumexp(l) - <softmax(l), l> "
    "cancels to 0 in binary64 (TRL's and verl's formula)" },
  { V_OBJ, "logits=5,5 V=1 mask=1,1 l_clip=1 l_vf=0", "ExactZero",
    "one token in the vocabulary: entropy exactly 0" },
  { V_OBJ, "logits=0,0,0,1,2,3 V=3 mask=1,1 l_clip=0.25 l_vf=0.5 c2=0.05", "",
    "a larger entropy coefficient" },
  { V_OBJ, "logits=0,0,0,1,2 V=3 mask=1,1 l_clip=0.25 l_vf=0.5", "LengthMismatch",
    "five logits are not two rows of three", .invalid_in = "*" },
  { V_OBJ, "logits=0,0,0,1,2,3 V=3 mask=1,1 l_clip=0.25 l_vf=0.5 c1=-1", "OutOfDomain",
    "a negative coefficient", .invalid_in = "*" },
  { V_OBJ, "logits=0,0,0,1,2,3 V=3 mask=0,0 l_clip=0.25 l_vf=0.5", "EmptyMask",
    "no token in the mask", .invalid_in = "*" },
  { F32_ALL, "values=0.55,1.4,-0.2,2 old_values=0.3,0.7,0.1,2.125 returns=1,0.25,0.4,1.875 "
    "mask=1,1,1,1", "Batch", "the four tokens of the exact conventions' Batch case, in binary32" },
  { F32_ALL, "values=0.55,1.4,-0.2,2 old_values=0.3,0.7,0.1,2.125 returns=1,0.25,0.4,1.875 "
    "mask=1,0,1,0", "Padding", "the same, two tokens masked" },
  { F32_ALL, "values=1,2 old_values=1,2 returns=0.5,2.5 mask=1,1", "OnPolicy",
    "V = V_old: the two squares tie, autograd's halves sum to the whole gradient" },
  { F32_ALL, "values=1.25 old_values=0 returns=1 mask=1", "ClipBinds",
    "V moved past R: the clipped square wins, the gradient 0" },
  { F32_ALL, "values=10000.3,10000.05 old_values=10000,10000 returns=10000.1,10000 mask=1,1",
    "Binary32Rounding",
    "values near 1e4: binary32 holds them to 0.001 and o + c to f32(10000.2), f32(10000.5); "
    "the squares and the loss part from exact arithmetic by 0.2%" },
  { F32_ALL, "values=2e19,1 old_values=2e19,1 returns=-2e19,0 mask=1,1", "Binary32Overflow",
    "(4e19)^2 = 1.6e39 overflows binary32 (refused, ERANGE); binary64 holds it",
    .invalid_in = F32_ALL },
  { F32_ALL, "values=1,2e19 old_values=1,2e19 returns=0,-2e19 mask=1,0", "MaskedOverflow",
    "a masked token whose square overflows binary32: TRL and OpenRLHF multiply inf by 0 (NaN, "
    "refused), verl's masked_sum drops it", .invalid_in = "trl-float32,openrlhf-float32" },
  { F32_ALL, "values=1,2 old_values=1,2 returns=0.5,2.5 mask=1,2", "MaskNotBinary",
    "a mask entry 2", .invalid_in = "*" },
  { F32_ALL, "values=1,nan old_values=1,2 returns=0.5,2.5 mask=1,1", "NonFinite",
    "NaN value", .invalid_in = "*" },
  { F32_ALL, "values=1 old_values=0 returns=0 mask=1 clip=-0.5", "OutOfDomain",
    "a negative clip range", .invalid_in = "*" },
  RL_END,
};

/* --- PPO-WHITEN -------------------------------------------------------- */

static const rl_input in_whiten[] = {
  { "values", RL_REAL_ARRAY, "the advantages (or rewards) to whiten" },
  MASK ("values"),
  RL_END };
static const rl_output out_whiten[] = {
    { "whitened", "(A_t - mu)/scale (+ mu where the mean is added back); 0 at masked "
      "positions where the convention fills them", .len_of = "values" },
    { "mean", "mu, the mean over the mask" },
    { "std", "sqrt(sum (A - mu)^2/(N - ddof)) over the mask" },
    { "scale", "the divisor: sqrt(var + eps), sqrt(max(var, eps)) or std + eps" },
    RL_END };

static const rl_io io_whiten = {
  .in = in_whiten, .out = out_whiten, RL_EVALS (ppo_whiten), .part = "whiten",
};
static const rl_io io_whiten_f32 = {
  .in = in_whiten, .out = out_whiten, RL_EVALS (ppo_whiten_f32), .binary32 = 1, .part = "whiten",
};

/* The checker's departure of whitening: what is written at masked
 * positions (verl's masked_whiten(shift_mean=False) whitens them where
 * TRL's zeroes them; OpenRLHF's uncalled masked_normalize zeroes them). */
static int
whiten_zero_axis (const rl_variant *base, rl_variant *out, void *scratch, char *label,
                  size_t size)
{
  int zero;
  if (base->io == &io_whiten)
    {
      rlref_ppo_whiten_convention *k = scratch;
      *k = *(const rlref_ppo_whiten_convention *) base->data;
      zero = k->zero_masked = !k->zero_masked;
      out->data = k;
    }
  else if (base->io == &io_whiten_f32)
    {
      rlref_ppo_whiten_f32_convention *k = scratch;
      *k = *(const rlref_ppo_whiten_f32_convention *) base->data;
      zero = k->zero_masked = !k->zero_masked;
      out->data = k;
    }
  else
    return -1;
  {
    const void *data = out->data;
    *out = *base;
    out->data = data;
  }
  snprintf (label, size, zero ? "masked positions set to 0 in place of whitened"
            : "masked positions whitened in place of set to 0");
  return 0;
}

static const rl_axis whiten_axes[] = {
  { "masked-positions", whiten_zero_axis },
  { 0 },
};

#define W32_ALL F32_ALL ",trl-rewards-float32,openrlhf"

static const rl_case c_whiten[] = {
  { "*", "values=1,2,3 mask=1,1,1", "Detector",
    "CONVENTIONS [1, 2, 3]: TRL and verl +-0.999999995, OpenRLHF +-1.2247449" },
  { "*", "values=0.5,-1.25,2,0.75,9,-9 mask=1,1,1,1,0,0", "Padding",
    "two padded positions with large values: left out of mean and std; TRL sets them to 0, "
    "verl and OpenRLHF whiten them too" },
  { "*", "values=2,2,2 mask=1,1,1", "ZeroSpread",
    "equal values: std 0, the scale is sqrt(1e-8) (or 1e-8) and every value whitens to 0" },
  { "*", "values=1e-6,3e-6,-2e-6 mask=1,1,1", "SmallSpread",
    "std ~ 2.5e-6: eps inside the square root changes the result by 0.08%; outside by 0.0004%" },
  { "trl,verl,trl-rewards", "values=1e200,-1e200,3e200 mask=1,1,1", "NaiveOverflow",
    "the squares overflow binary64: a careful implementation scales" },
  { "*", "values=1,2,3,4 mask=1,1,1,1", "Float32Bessel",
    "N = 4: TRL's and verl's Bessel factor is f32(4/3) = 1.3333333730697632, the whitened "
    "values 1.5e-8 (relative) smaller than with 4/3" },
  { "*", "values=1,2,4 mask=1,1,1", "Float32Bessel",
    "N = 3: the factor 3/2 is exact in binary32, the float32 and the exact Bessel factor agree" },
  { "eps-outside", "values=1e200,-1e200,3e200 mask=1,1,1 eps=0", "NaiveOverflow",
    "the squares overflow binary64 (eps 0: std + 1e-8 holds 1e-8 some 690 bits below the "
    "std, where central differences cannot measure its slope)" },
  { "*", "values=1000,1000.5,999.5,1000.25 mask=1,1,1,1", "LargeOffset",
    "a large mean and a small spread: a one-pass variance cancels" },
  { "trl,verl,trl-rewards,eps-outside", "values=1 mask=1", "SingleValue",
    "one value with ddof 1: N - 1 = 0 (TRL divides by 0, verl raises)", .invalid_in = "*" },
  { "openrlhf", "values=1 mask=1", "SingleValue",
    "one value with ddof 0: var 0, scale sqrt(1e-8), whitened 0" },
  { "*", "values=2,2 mask=1,1 eps=0", "ZeroSpread", "equal values and eps = 0: 0/0",
    .invalid_in = "*" },
  { "*", "values=1,2,3 mask=1,0,2", "MaskNotBinary", "a mask entry 2", .invalid_in = "*" },
  { "*", "values=1,2,3 mask=0,0,0", "EmptyMask", "no value in the mask", .invalid_in = "*" },
  { "*", "values=1,inf,3 mask=1,1,1", "NonFinite", "an infinite value", .invalid_in = "*" },
  { "*", "values= mask=", "EmptyBatch", "no value", .invalid_in = "*" },
  { "*", "values=1,2,3 mask=1,1", "LengthMismatch", "a mask for two values",
    .invalid_in = "*" },
  { "*", "values=1,2,3 mask=1,1,1 eps=-1e-8", "OutOfDomain", "eps < 0", .invalid_in = "*" },
  { W32_ALL, "values=10000.1,10000.2,10000.4,10000.3 mask=1,1,1,1", "Binary32Rounding",
    "values near 1e4 0.1 apart: binary32 holds them to 0.001 (10000.099609375, ...), and "
    "the whitened values part from the exact +-1.1619, +-0.3873 by 0.06% (OpenRLHF's float32 "
    "statistics in a float64 run too)" },
  { W32_ALL, "values=1e20,-1e20,3e20 mask=1,1,1", "Binary32Overflow",
    "the squares (2.3e20)^2 overflow binary32: the library's variance is inf and rsqrt gives "
    "0 (refused, ERANGE); exact arithmetic and binary64 whiten them", .invalid_in = W32_ALL },
  { W32_ALL, "values=1,2,3,1e20 mask=1,1,1,0", "MaskedOverflow",
    "a padded value 1e20: its square is inf in binary32; TRL and OpenRLHF multiply it by the "
    "mask (inf * 0 = NaN, refused), verl's masked_sum drops it and whitens it to f32(1e20)",
    .invalid_in = "trl-float32,openrlhf-float32,trl-rewards-float32,openrlhf" },
  { "trl-float32,verl-float32,trl-rewards-float32", "values=1 mask=1", "SingleValue",
    "one value with ddof 1: N/(N - 1) = inf, 0 inf = NaN in TRL, verl raises", .invalid_in = "*" },
  { "openrlhf-float32", "values=1 mask=1", "SingleValue",
    "one value with ddof 0: var 0, rsqrt(f32(1e-8)), whitened 0" },
  RL_END,
};

/* --- PPO-KLCTL --------------------------------------------------------- */

static const rl_io io_klctl = {
  .in = (const rl_input[]) {
    { "kl", RL_REAL_ARRAY, "the mean KL measured at each controller update, in order" },
    { "coef", RL_REAL, "the KL coefficient beta before the first update, >= 0" },
    { "n_steps", RL_INT, "the samples per update (verl: the batch size; OpenRLHF: rollout "
      "batch size x samples per prompt)" },
    RL_END },
  .out = (const rl_output[]) {
    { "err", "clip(kl/target - 1, -0.2, 0.2) at each update (0 for the fixed controller)",
      .len_of = "kl" },
    { "coef_after", "beta after each update: beta (1 + err n_steps/horizon)", .len_of = "kl" },
    RL_END },
  RL_EVALS (ppo_kl_controller), .part = "controller",
};

static const rl_io io_early = {
  .in = (const rl_input[]) {
    { "kl", RL_REAL_ARRAY, "the mean KL measured on each update (minibatch step) of an "
      "epoch, in order" },
    RL_END },
  .out = (const rl_output[]) {
    { "updates", "the optimiser steps taken before the loop stopped" },
    { "stopped", "1 when the loop stopped early, 0 when every update ran" },
    RL_END },
  RL_EVALS (ppo_early_stop), .part = "early-stop",
};

static const rl_case c_klctl[] = {
  { "adaptive,fixed", "kl=0.2 coef=0.05 n_steps=256", "Detector",
    "KL = 2 target: err clipped to 0.2, beta x (1 + 0.2 256/10000) = 1.00512" },
  { "adaptive,fixed", "kl=0 coef=0.05 n_steps=256", "Detector",
    "KL = 0: err clipped to -0.2" },
  { "adaptive,fixed", "kl=0.1,0.115,0.05,0.5,-0.02 coef=0.001 n_steps=1024", "",
    "five updates: at the target, above, below, far above, a negative k1 estimate" },
  { "adaptive,fixed", "kl=0.1 coef=0.05 n_steps=0", "", "n_steps 0: nothing changes" },
  { "adaptive", "kl=0.3,0.3 coef=0.5 n_steps=10 target=6 horizon=10000", "",
    "target 6 (TRL's default up to 0.11)" },
  { "adaptive", "kl=0.2 coef=0.05 n_steps=256 target=0", "OutOfDomain", "target 0",
    .invalid_in = "*" },
  { "adaptive", "kl=0.2 coef=0.05 n_steps=256 horizon=0", "OutOfDomain",
    "horizon 0 (verl asserts horizon > 0)", .invalid_in = "*" },
  { "adaptive,fixed", "kl=0.2 coef=-0.05 n_steps=256", "OutOfDomain", "a negative coefficient",
    .invalid_in = "*" },
  { "adaptive,fixed", "kl=0.2 coef=0.05 n_steps=-1", "OutOfDomain", "n_steps < 0",
    .invalid_in = "*" },
  { "adaptive,fixed", "kl=nan coef=0.05 n_steps=256", "NonFinite", "NaN KL",
    .invalid_in = "*" },
  { "adaptive,fixed", "kl= coef=0.05 n_steps=256", "EmptyBatch", "no update",
    .invalid_in = "*" },
  { "trl-0.11", "kl=0.5,1.2,1.6,0.2", "EarlyStop",
    "1.6 > 1.5 target_kl after the third epoch: three epochs ran" },
  { "trl-0.11", "kl=0.5,1.2", "", "no stop: both epochs ran" },
  { "trl-0.11", "kl=0.5 target_kl=-1", "OutOfDomain", "target_kl < 0", .invalid_in = "*" },
  { "seed-003,spinning-up", "kl=0.004,0.008,0.012,0.02,0.001", "EarlyStop",
    "0.012 > 0.01 at the third update: the seed stops after it (3 steps), Spinning Up goes "
    "on to 0.02 > 0.015 and stops before the fourth (3 steps)" },
  { "seed-003,spinning-up", "kl=0.004,0.011,0.02", "EarlyStop",
    "0.011 passes the seed's target (2 steps) but not 1.5 x 0.01 (Spinning Up: 2 steps, "
    "stopped before the third)" },
  { "seed-003,spinning-up", "kl=0.001,0.002,0.003", "", "no stop: every update runs" },
  { "seed-003,spinning-up", "kl=0.05,0.001", "EarlyStop",
    "the first KL is over: the seed has taken one step, Spinning Up none" },
  { "seed-003,spinning-up", "kl=0.004 target_kl=0", "OutOfDomain", "target_kl 0",
    .invalid_in = "*" },
  { "seed-003,spinning-up", "kl=", "EmptyBatch", "no update", .invalid_in = "*" },
  { "seed-003,spinning-up", "kl=0.004,nan", "NonFinite", "NaN KL", .invalid_in = "*" },
  RL_END,
};

/* --- notes --------------------------------------------------------------- */

static const rl_note n_ppo[] = {
  { "Detector", "CONVENTION",
    "A detector from CONVENTIONS.md: the conventions give visibly different values here (the "
    "KL estimators at l = 2, -2, -29, -100; the dual clip at A = -1, rho = 5; whitening "
    "[1, 2, 3]; the KL controller's clip)." },
  { "SeedExample", "CONVENTION",
    "A worked example of the seeds, to the digits they print (000 section 3: log(0.9/0.4) = "
    "0.81; 003: clip(2, 0.8, 1.2) = 1.2, A = 0.5, eps = 0.2, rho = 1.5 -> 0.6 not 0.75)." },
  { "Float32Overflow", "NUMERICAL",
    "k3 = e^{-l} - 1 + l without a clamp overflows binary32 (e^100 > 3.4e38): TRL in float32 "
    "gives inf, the clamped conventions 10." },
  { "Padding", "EDGE_CASE", "Padded (masked) tokens: they take no part in a mean; some "
    "conventions still write a value there." },
  { "ScorePlacement", "CONVENTION",
    "Where the score lands: verl, OpenRLHF and the seed on the last response token; TRL on the "
    "slot after it, the first padded one, when the row has one (sequence_length + 1, "
    "ppo_trainer.py:778)." },
  { "MaskedPenalty", "CONVENTION",
    "The KL penalty at padded tokens whose log-probabilities differ: OpenRLHF's "
    "compute_approx_kl and compute_reward mask nothing (models/utils.py:111: kl_reward = "
    "-kl_coef * kl), so -beta kl stays there and in reward.sum(-1); verl multiplies kld by the "
    "mask, TRL fills both log-probabilities with INVALID_LOGPROB (kl 0)." },
  { "ScoreClamp", "CONVENTION",
    "A score beyond [-10, 10]: OpenRLHF's compute_reward clamps it to --reward.clip_range "
    "(default -10 10, models/utils.py:108-109) before placing it; TRL and verl add it as it is." },
  { "BetaFloor", "CONVENTION",
    "A negative KL coefficient: OpenRLHF's compute_reward sets kl_coef <= 0 to 0 "
    "(models/utils.py:105-106) and computes; the other conventions refuse it." },
  { "DualClipCap", "CONVENTION",
    "A log-ratio above the clamp with a large bound c: verl's dual clip bounds the clamped "
    "rho A = -e^20 from below by c A, TRL's delta caps the unclamped ratio at c, and the two "
    "part." },
  { "RatioCap", "CONVENTION",
    "TRL's delta below 1 + eps: the cap binds for A > 0 too (GRPOConfig validates no bound on "
    "delta)." },
  { "ValueClipEdge", "CONVENTION",
    "The value exactly at its clip bound V_old + c: the clipped value equals V and the squares "
    "tie; torch.max halves the gradient between them, and verl's clip_by_value = "
    "max(min(V, hi), lo) halves the clipped path again (3/4 of the gradient) where "
    "torch.clamp (TRL, OpenRLHF) passes it whole." },
  { "EntropyCancellation", "NUMERICAL",
    "A near-certain token: its entropy 82 e^-40 cancels to 0 in logsumexp(l) - <p, l>, the "
    "libraries' formula, in binary64." },
  { "Float32Bessel", "CONVENTION",
    "The Bessel factor N/(N - 1) of TRL's and verl's masked_var divides two int64 mask sums, a "
    "float32 tensor also in a float64 run: f32(4/3) scales the variance by 1 + 3e-8; 3/2 is "
    "exact." },
  { "AtReference", "PROPERTY", "The policy equals the reference: every log-ratio is 0." },
  { "TinyRatio", "NUMERICAL",
    "A probability ratio p/p_ref far below 1: log1p((p - p_ref)/p_ref) takes p/p_ref as the "
    "rounded sum 1 + (p - p_ref)/p_ref, with an error 2^-53 p_ref/p relative to it (-inf "
    "below 2^-54); log(p/p_ref) keeps it, and log p - log p_ref where the quotient leaves the "
    "normal range." },
  { "RatioBranch", "EDGE_CASE",
    "At the edge of a branch of the log-ratio: p/p_ref = 1/2 or 2 (log1p of the exact "
    "difference within, log(p/p_ref) beyond), the smallest normal number (log p - log p_ref "
    "below it) and |l| = 1 (k3 by its series within, as p_ref/p - 1 + l beyond); two tiny "
    "probabilities, whose logs would cancel." },
  { "K3Cancellation", "NUMERICAL",
    "A log-ratio near 0: e^{-l} - 1 + l ~ l^2/2 cancels to noise when written directly; the "
    "series (or expm1 and a careful sum) keeps it." },
  { "MaskHole", "EDGE_CASE", "A masked token inside the response (not only at its end)." },
  { "MaskNotBinary", "INVALID_INPUT", "A mask entry other than 0 and 1 (EDOM)." },
  { "EmptyMask", "INVALID_INPUT",
    "A mask without a 1: a mean over the mask is 0/0 (the libraries return NaN); refused "
    "(EDOM)." },
  { "Identity", "PROPERTY",
    "13.10 exactly: E_pi[sum_t l_t] equals the sequence KL(pi || pi_ref), and E_pi[sum_t r_t] "
    "the RLHF objective E[r] - beta KL, every sequence enumerated." },
  { "Cut", "EDGE_CASE", "A sequence cut at T without EOS." },
  { "NotASequence", "INVALID_INPUT", "Not a sequence of the model: must be rejected." },
  { "Direction", "CONVENTION",
    "The ratio is exp(logp - old_logp), new minus old (seed 001); the reverse gives 1/rho." },
  { "ClampBinds", "CONVENTION",
    "The clamp of verl and OpenRLHF binds (|l| > 20): ratio e^{+-20}, and no gradient flows "
    "through the clamped log-ratio (TRL has no clamp: its ratio is e^l)." },
  { "ClampEdge", "EDGE_CASE",
    "The log-ratio exactly at the clamp's bound 20 (or -20): the value is the same either way; "
    "torch.clamp passes the gradient at its bounds." },
  { "AtOld", "PROPERTY",
    "theta = theta_old: the gradient of the unclipped surrogate is the policy gradient." },
  { "RareAction", "NUMERICAL",
    "An action the new policy all but excludes: its importance weight pi_old/pi_theta is "
    "e^80; the sums stay exact." },
  { "Batch", "PROPERTY", "Several tokens: the loss is the token mean and each gradient "
    "carries 1/N." },
  { "OnPolicy", "PROPERTY", "logp = old_logp (V = V_old): the first step of an epoch, nothing "
    "clipped." },
  { "ClipHigher", "CONVENTION", "An asymmetric clip range 1 - eps_low, 1 + eps_high." },
  { "ZeroAdvantage", "EDGE_CASE", "A = 0: the surrogate and its gradient are 0." },
  { "ClipBinds", "CONVENTION",
    "The value moved more than c from V_old: the clipped and the unclipped square differ, and "
    "the larger decides (the gradient is 0 where the clipped one wins)." },
  { "ZeroSpread", "EDGE_CASE", "Equal values: the spread is 0 and eps alone sets the scale." },
  { "SmallSpread", "CONVENTION",
    "A spread near sqrt(eps): where eps goes (inside the square root, as a floor, or added "
    "to the std) shows." },
  { "NaiveOverflow", "NUMERICAL",
    "The squares of the values overflow binary64 while the result is representable: a "
    "careful implementation scales." },
  { "LargeOffset", "NUMERICAL",
    "Large values with a small spread: a one-pass variance E[x^2] - E[x]^2 cancels." },
  { "SingleValue", "EDGE_CASE",
    "One value: with ddof 1 the variance is 0/0 (refused, EDOM); with ddof 0 it is 0." },
  { "EarlyStop", "CONVENTION",
    "Target-KL early stopping: the step taken or not on the update whose KL is over, and the "
    "threshold target or 1.5 target, decide the count (old TRL tests once per epoch)." },
  { "ClipFrac32", "CONVENTION",
    "A clip fraction k/N that binary32 does not hold: the libraries average a float32 0/1 "
    "tensor ((pg_losses2 > pg_losses).float() in TRL, torch.gt(...).float() in verl, "
    "torch.lt(surr2, surr1).float() in OpenRLHF), so their clip fraction is f32(k/N) in a "
    "float64 run too; the seeds' k/N is exact." },
  { "Binary32Overflow", "NUMERICAL",
    "A value beyond the binary32 range (3.4e38) on the way: the float32 readings refuse the "
    "input (ERANGE) where the library computes inf or NaN; exact arithmetic and binary64 do "
    "not overflow." },
  { "Binary32Rounding", "NUMERICAL",
    "The float32 reading parts visibly from exact arithmetic: the inputs and each step "
    "rounded to binary32 (24 bits)." },
  { "Binary32Absorption", "NUMERICAL",
    "A binary32 sum absorbs a small term next to a large one (1e8 + 1 = 1e8)." },
  { "CountEps", "CONVENTION",
    "verl's masked_mean divides by mask.sum() + 1e-8: the count itself in binary32." },
  { "MaskedOverflow", "EDGE_CASE",
    "A padded position whose square or loss overflows binary32: mask * inf is NaN (TRL, "
    "OpenRLHF); verl's masked_sum (torch.where(mask, x, 0)) leaves it out; TRL's policy loss "
    "has rho = 1 there." },
  RL_END,
};

/* --- formulas ------------------------------------------------------------ */

/* The sums over every sequence of the tiny LM: U as the LM family's. */
#define KLSUM_ULPS 128

static rl_formula formulas[] = {
  { "PPO-TOKREW", "per-token reward with the KL penalty", "000 (13.9)",
    "r_t = score·1[t = end] − β·k(log π_old − log π_ref), k = k1 or k3 (or OpenRLHF's k2; "
    "clamped in verl's low_var_kl and OpenRLHF); the score on the last token (TRL: one slot "
    "after it when the row has one)", NULL, c_tokrew, n_ppo },
  { "PPO-TOKREW-EX", "the seed's per-token penalty example", "000 section 3",
    "π_ref = 0.4, π = 0.9: log(0.9/0.4) = 0.810930, k2 = 0.328804, k3 = 0.255375",
    NULL, c_tokrew_ex, n_ppo },
  { "PPO-KLSUM", "the per-token log-ratios sum to the sequence KL", "000 (13.10)",
    "E_π[Σ_t log π(y_t|s_t)/π_ref(y_t|s_t)] = KL(π‖π_ref) and E_π[Σ_t r_t] = E[r] − β KL, "
    "every sequence of the tiny LM enumerated", NULL, c_klsum, n_ppo, .ulps = KLSUM_ULPS },
  { "PPO-RATIO", "the probability ratio, new over old", "001",
    "ρ = exp(logp − old_logp), new minus old; verl and OpenRLHF clamp the log-ratio to "
    "[−20, 20]", NULL, c_ratio, n_ppo },
  { "PPO-IS", "importance sampling and the unclipped surrogate", "003",
    "E_old[f] = E_θ[(π_old/π_θ) f], E_θ[f] = E_old[ρ f] (the CPI surrogate); its gradient in "
    "the logits is the policy gradient at θ_old", NULL, c_is, n_ppo },
  { "PPO-CLIP", "the clipped surrogate and its loss", "000 (13.12); 003",
    "s_t = min(ρ_t A_t, clip(ρ_t, 1−ε_low, 1+ε_high) A_t) (13.12), loss = −token mean, "
    "gradient in logp; verl adds its log-ratio clamp and dual clip", NULL, c_clip, n_ppo,
    .axes = clip_axes },
  { "PPO-CLIP-EX2", "clip(x, a, b) = min(max(x, a), b) on one token", "003",
    "clip(2, 0.8, 1.2) = 1.2; A = 0.5, ε = 0.2, ρ = 1.5 → 0.6, not 0.75", NULL,
    c_clip_one, n_ppo },
  { "PPO-DUALCLIP", "the dual clip for negative advantages", "libraries (verl, OpenRLHF, TRL)",
    "for A < 0, s = max(min(ρA, clip(ρ)A), cA), c = 3: ε = 0.2, A = −1, ρ = 5 gives loss 3 "
    "(5 without); TRL's delta caps ρ at c instead", NULL, c_dualclip, n_ppo,
    .axes = clip_axes },
  { "PPO-VALUE", "value loss, its targets, the entropy bonus and the full objective",
    "000 section 3; 003",
    "(V − R)² (the seeds) or ½ max((V − R)², (V_clip − R)²), c = 0.2 (TRL) or 0.5 (verl, "
    "OpenRLHF); targets V_old + A or the Monte-Carlo return; L^CLIP − c1 L^VF + c2 H",
    NULL, c_value, n_ppo },
  { "PPO-WHITEN", "advantage whitening", "000 section 3.2 (pseudo-code)",
    "(A − μ)/√(var + ε) ddof 1 (TRL, verl), /√max(var, ε) ddof 0 (OpenRLHF), /(σ + ε) "
    "(SB3); the mean added back (shift_mean=False); masked positions zeroed (TRL)",
    NULL, c_whiten, n_ppo, .axes = whiten_axes },
  { "PPO-KLCTL", "the adaptive KL coefficient and target-KL early stopping",
    "000 section 3; 003",
    "err = clip(KL/target − 1, −0.2, 0.2), β ← β(1 + err·n_steps/horizon); stop the epoch "
    "when the mean KL exceeds target_kl (after the step, 003) or 1.5 target_kl (before it, "
    "Spinning Up)", NULL, c_klctl, n_ppo },
  RL_END,
};

/* The formulas' variants: one per row of the library's table
 * (rlref_ppo_conventions), each on the io of its part and precision. */
static const rl_io *const ios[] = {
  &io_tokrew, &io_tokrew_f32, &io_tokrew_ex, &io_klsum_tabular, &io_klsum_bigram, &io_ratio,
  &io_ratio_f32, &io_is, &io_clip, &io_clip_f32, &io_clip_one, &io_value, &io_value_f32,
  &io_gae_target, &io_mc_return, &io_objective, &io_whiten, &io_whiten_f32, &io_klctl,
  &io_early, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_ppo_conventions, f->id, ios, NULL);
}

RL_FAMILY (ppo) = {
  .name = "ppo",
  .title = "PPO for language models: per-token reward, ratio, clipped surrogate, value loss, "
    "whitening, KL control",
  .rank = 5,
  .formulas = formulas,
  .init = init,
};
