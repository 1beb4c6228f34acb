/* grpobase.c -- the GRPO baselines family: the bound and the scale of the
 * group advantage (GRPO-ADV-BOUND, GRPO-ADV-SCALE), the zero-mean score of
 * 13.27 on the tiny LM (GRPO-BASELINE), the leave-one-out advantage of
 * RLOO under the libraries' conventions with its identity, TRL's shaped
 * reward and sequence ratio (GRPO-RLOO), the variance of the baselines
 * (GRPO-VAR, 13.28'), the difficulty weight of the std normalisation
 * (GRPO-STDBIAS) and ReMax (GRPO-REMAX): inputs, outputs, variants and
 * golden cases.
 * The variants are the rows of the library's table
 * (reference/src/grpobase/grpobase_conventions.c). */
#include <string.h>
#include "rlref/grpobase.h"
#include "family.h"

RL_EVAL_DECL (adv_bound);
RL_EVAL_DECL (adv_scale);
RL_EVAL_DECL (rloo_adv);
RL_EVAL_DECL (rloo_strided);
RL_EVAL_DECL (rloo_identity);
RL_EVAL_DECL (rloo_kl);
RL_EVAL_DECL (rloo_loss);
RL_EVAL_DECL (rloo_kl_after);
RL_EVAL_DECL (rloo_token_loss);
RL_EVAL_DECL (var_exact);
RL_EVAL_DECL (var_mc);
RL_EVAL_DECL (stdbias);
RL_EVAL_DECL (remax);
RL_EVAL_DECL (remax_seq);
RL_EVAL_DECL (baseline);

/* --- GRPO-ADV-BOUND, GRPO-ADV-SCALE ------------------------------------ */

static const rl_io io_bound = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "the G rewards of one group" },
    RL_END },
  .out = (const rl_output[]) {
    { "max_abs", "max_i |A_i|, A_i = (r_i - mean)/std (eps 0; 0 when the std is 0)" },
    { "bound", "Samuelson's bound: sqrt(G - 1) (ddof 0), (G - 1)/sqrt(G) (ddof 1)" },
    RL_END },
  RL_EVALS (adv_bound), .part = "bound",
};

static const rl_io io_scale = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "the G rewards of one group" },
    { "eps", RL_REAL, "eps added to the std, > 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "std_adv", "the std (same ddof) of A_i = (r_i - mean)/(sigma + eps)" },
    { "ratio", "sigma/(sigma + eps)" },
    RL_END },
  RL_EVALS (adv_scale), .part = "scale",
};

#define ONE64 "rewards=1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"

static const rl_case c_bound[] = {
  { "*", ONE64, "SeedDerived Attained",
    "one success in G = 64 attains the bound: 7.937 (ddof 0), 7.875 (ddof 1)" },
  { "*", "rewards=0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", "Attained", "one failure in 64: the same |A|" },
  { "*", "rewards=1,0,0,0,0,0,0,0", "Attained", "one success in 8: sqrt(7) = 2.6458, 7/sqrt(8) = 2.4749" },
  { "*", "rewards=1,0", "Attained", "G = 2: every |A| is 1 (ddof 0), 1/sqrt(2) (ddof 1)" },
  { "*", "rewards=1,1,0,0", "", "two of four: |A| = 1 (ddof 0), 0.866 (ddof 1), below the bound" },
  { "*", "rewards=0.3,-1.7,2.25,0,5.5,-3.125", "", "real-valued rewards, below the bound" },
  { "*", "rewards=100000000,100000001,100000001,100000001", "LargeOffset",
    "1e8 offset: the one low reward attains the bound" },
  { "*", "rewards=1e-8,0,0,0,0,0,0,0", "TinyVariance Attained",
    "a spread of 1e-8 still gives |A| = sqrt(7): sigma -> 0 does not make A explode" },
  { "*", "rewards=1,1,1", "ZeroVariance", "zero variance: A = 0" },
  { "*", "rewards=1.5e308,-1.5e308,1e308", "RangeScaling",
    "rewards near DBL_MAX: the deviations overflow binary64 unless scaled" },
  { "*", "rewards=0.5", "GroupOfOne", "G = 1: bound 0 (ddof 0); ddof 1 has no std",
    .invalid_in = "ddof1" },
  { "*", "rewards=", "Empty", "no rewards", .invalid_in = "*" },
  { "*", "rewards=1,nan,0", "NonFinite", "a NaN reward", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_scale[] = {
  { "*", "rewards=1,0,0,1 eps=1e-8", "SeedDerived", "seed 001's eps: the std of A is 1 - 2e-8" },
  { "*", "rewards=1,0,0,1 eps=0.5", "", "sigma 0.5 (ddof 0): std of A = 0.5" },
  { "*", "rewards=0,1e-4 eps=1e-4", "TinyVariance",
    "TRL's eps against a spread of 1e-4: std of A 0.414 (ddof 1)" },
  { "*", "rewards=0,1e-4 eps=1e-6", "TinyVariance", "verl's eps: 0.986 (ddof 1)" },
  { "*", "rewards=0.2,0.8,0.4,0.6 eps=1e-9", "", "OpenRLHF's eps" },
  { "*", "rewards=100000000,100000001,100000002 eps=1e-4", "LargeOffset",
    "1e8 offset, spread 1" },
  { "*", "rewards=1,1,1 eps=1e-8", "ZeroVariance", "zero variance: A = 0, std 0, ratio 0" },
  { "*", "rewards=1.5e308,-1.5e308,1e308 eps=1e-8", "RangeScaling",
    "rewards near DBL_MAX: r - mean and sigma overflow unless scaled; the ratio is 1 - 7e-317" },
  { "*", "rewards=1e-320,0 eps=1e-8", "RangeScaling",
    "subnormal rewards: sigma/(sigma + eps) = 7.07e-313 (ddof 1), itself subnormal; eps 2^-k "
    "must not overflow" },
  { "*", "rewards=0.5 eps=1e-8", "GroupOfOne", "G = 1: 0 (ddof 0); ddof 1 has no std",
    .invalid_in = "ddof1" },
  { "*", "rewards=1,0 eps=0", "OutOfDomain", "eps = 0", .invalid_in = "*" },
  { "*", "rewards=1,0 eps=-1e-8", "OutOfDomain", "eps < 0", .invalid_in = "*" },
  { "*", "rewards=1,nan eps=1e-8", "NonFinite", "a NaN reward", .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-RLOO ------------------------------------------------------- */

static const rl_io io_rloo = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "N rewards, groups of G contiguous" },
    { "group_size", RL_INT, "G (default: N, one group)", .defaults_to_len_of = "rewards" },
    RL_END },
  .out = (const rl_output[]) {
    { "adv", "leave-one-out advantage of each response (13.28)", .len_of = "rewards" },
    RL_END },
  RL_EVALS (rloo_adv), .part = "advantage",
};

static const rl_io io_strided = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "N rewards sample-major: response j of prompt q at j (N/G) + q" },
    { "group_size", RL_INT, "G, responses per prompt (rloo_k)", .defaults_to_len_of = "rewards" },
    RL_END },
  .out = (const rl_output[]) {
    { "adv", "leave-one-out advantage of each response, in the same layout", .len_of = "rewards" },
    RL_END },
  RL_EVALS (rloo_strided), .part = "strided",
};

static const rl_io io_identity = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "N rewards, groups of G contiguous" },
    { "group_size", RL_INT, "G >= 2 (default: N, one group)", .defaults_to_len_of = "rewards" },
    RL_END },
  .out = (const rl_output[]) {
    { "loo", "r_i - (sum_{j != i} r_j)/(G - 1) (13.28)", .len_of = "rewards" },
    { "centered", "r_i - mean of the group", .len_of = "rewards" },
    { "scale", "(G - 1)/G: centered = scale * loo" },
    RL_END },
  RL_EVALS (rloo_identity), .part = "identity",
};

/* The inputs of the KL-in-the-reward and the loss parts, one list for each
 * part's variants. */
static const rl_input in_kl[] = {
  { "rewards", RL_REAL_ARRAY, "N rewards (nan: unscorable under trl-kl), groups of G contiguous" },
  { "logp_old", RL_REAL_ARRAY, "log pi_old of each token, N rows of L" },
  { "logp_ref", RL_REAL_ARRAY, "log pi_ref of each token", .same_len_as = "logp_old" },
  { "mask", RL_INT_ARRAY, "1 for a completion token, 0 for padding", .same_len_as = "logp_old" },
  { "group_size", RL_INT, "G (default: N, one group)", .defaults_to_len_of = "rewards" },
  { "beta", RL_REAL, "the KL coefficient" },
  RL_END,
};

static const rl_input in_loss[] = {
  { "logp", RL_REAL_ARRAY, "log pi_theta of each token, N rows of L" },
  { "logp_old", RL_REAL_ARRAY, "log pi_old of each token", .same_len_as = "logp" },
  { "mask", RL_INT_ARRAY, "1 for a completion token, 0 for padding", .same_len_as = "logp" },
  { "adv", RL_REAL_ARRAY, "the advantage of each of the N sequences" },
  { "eps_low", RL_REAL, "lower clip width, 0 <= eps_low < 1" },
  { "eps_high", RL_REAL, "upper clip width, >= 0" },
  RL_END,
};

static const rl_io io_kl = {
  .in = in_kl,
  .out = (const rl_output[]) {
    { "penalty", "beta sum_t mask (logp_old - logp_ref), subtracted from the reward",
      .len_of = "rewards" },
    { "adv", "the leave-one-out advantage of the shaped rewards", .len_of = "rewards" },
    RL_END },
  RL_EVALS (rloo_kl), .part = "kl-reward",
};

static const rl_io io_loss = {
  .in = in_loss,
  .out = (const rl_output[]) {
    { "ratio", "exp(sum_t mask (logp - logp_old)), one ratio per sequence", .len_of = "adv" },
    { "seq_loss", "-min(ratio A, clip(ratio, 1 - eps_low, 1 + eps_high) A)", .len_of = "adv" },
    { "loss", "the mean of seq_loss" },
    RL_END },
  RL_EVALS (rloo_loss), .part = "loss",
};

static const rl_io io_kl_after = {
  .in = in_kl,
  .out = (const rl_output[]) {
    { "penalty", "beta sum_t mask clamp(logp_old - logp_ref, -10, 10), added after the baseline",
      .len_of = "rewards" },
    { "adv", "clamp(loo, -10, 10) - penalty: the return of the first token", .len_of = "rewards" },
    RL_END },
  RL_EVALS (rloo_kl_after), .part = "kl-reward",
};

static const rl_io io_token_loss = {
  .in = in_loss,
  .out = (const rl_output[]) {
    { "loss", "the token mean of -min(rho_t A, clip(rho_t, 1 - eps_low, 1 + eps_high) A), "
      "rho_t = exp(clamp(logp - logp_old, -20, 20))" },
    RL_END },
  RL_EVALS (rloo_token_loss), .part = "loss",
};

static rl_outcome
single_rloo (const rl_variant *v)
{
  const enum rlref_rloo_convention *c = v->data;
  if (*c == RLREF_RLOO_SEED || *c == RLREF_RLOO_OPENRLHF)
    return RL_INVALID;
  return *c == RLREF_RLOO_VERL ? RL_ACCEPTABLE : RL_VALID;
}

static rl_outcome
nan_rloo (const rl_variant *v)
{
  const enum rlref_rloo_convention *c = v->data;
  return *c == RLREF_RLOO_TRL ? RL_VALID : RL_INVALID;
}

/* verl-vectorized before verl: the two differ only on a group of one, which
 * verl's variant takes as acceptable; the checker orders equally good
 * variants as the golden lists them. */
#define ADV "seed-000,trl,verl,verl-vectorized,openrlhf"
#define KLR "trl-kl,verl-kl,openrlhf-kl"
#define LOSS "trl-seq-ratio,openrlhf-token-ratio"
#define LP3 " logp_old=-0.5,-1.2,-0.1,-2,-0.3,-0.7,-1,-1,-1,-0.2,-0.4,-0.6" \
  " logp_ref=-0.4,-1.5,-0.1,-1.5,-0.3,-1,-1.2,-0.9,-1,-0.2,-0.6,-0.5"

static const rl_case c_rloo[] = {
  { ADV, "rewards=1,0,0,0 group_size=4", "", "one success in four: 1 and -1/3" },
  { ADV, "rewards=1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 group_size=64", "SeedDerived", "one success in 64: 1 and -1/63" },
  { ADV, "rewards=-1,1,3,5,7,9,11,13 group_size=8", "", "a group of eight" },
  { ADV, "rewards=1,0,0,1,0.5,0.25,1,0 group_size=4", "MultiGroup", "two groups of four" },
  { ADV, "rewards=0.1,0.1,0.1 group_size=3", "ZeroVariance",
    "equal rewards: exactly 0, though a binary64 sum of 0.1s is not 0.3" },
  { ADV, "rewards=100000000,100000001,100000002 group_size=3", "LargeOffset", "1e8 offset" },
  { ADV, "rewards=1,2,1e-200 group_size=3", "ExactSum",
    "1e-200 beside 1 and 2 keeps its bits in the other advantages" },
  { ADV, "rewards=1.5e308,1.7e308 group_size=2", "RangeScaling",
    "-+2e307 though the sum of the rewards overflows binary64" },
  { ADV, "rewards=25,0,5,0 group_size=4", "RewardClip",
    "a reward beyond 10: A = 23.33, -10, -3.33, -10; OpenRLHF clips the shaped reward to "
    "[-10, 10] (10, -10, -3.33, -10)" },
  { ADV, "rewards=0.5 group_size=1", "GroupOfOne",
    "a group of one: refused (13.28, OpenRLHF's assertion), 0 (TRL, verl rloo_vectorized), r "
    "(verl rloo)", .expect = single_rloo },
  { ADV, "rewards=0.5,2 group_size=1", "GroupOfOne MultiGroup", "two groups of one",
    .expect = single_rloo },
  { ADV, "rewards=1,nan,0,1 group_size=4", "NaNReward",
    "an unscorable response: TRL averages the scorable siblings (1 - 1/2, ...) and gives it 0",
    .expect = nan_rloo },
  { ADV, "rewards=1,nan group_size=2", "NaNReward GroupOfOne",
    "one scorable response: TRL's 0/0 becomes 0", .expect = nan_rloo },
  { ADV, "rewards=inf,0 group_size=2", "NonFinite", "an infinite reward", .invalid_in = "*" },
  { ADV, "rewards= group_size=1", "Empty", "no rewards", .invalid_in = "*" },
  { ADV, "rewards=1,2,3 group_size=2", "LengthMismatch", "3 rewards in groups of 2",
    .invalid_in = "*" },
  { "sample-major", "rewards=1,0.5,0,0.25,0,1,0,0 group_size=4", "Layout",
    "two prompts, four responses each, sample-major: prompt 0 has 1, 0, 0, 0, prompt 1 has "
    "0.5, 0.25, 1, 0; read as contiguous groups the advantages differ" },
  { "sample-major", "rewards=1,0,0,1,0.5,0.25,1,0 group_size=4", "Layout",
    "the grouped batch of the seed-000 case read sample-major" },
  { "sample-major", "rewards=1,0,0,0 group_size=4", "", "one prompt: the layouts agree" },
  { "sample-major", "rewards=0.5,2 group_size=1", "GroupOfOne", "rloo_k = 1: no baseline",
    .invalid_in = "*" },
  { "sample-major", "rewards=1,2,3 group_size=2", "LengthMismatch", "3 rewards, rloo_k = 2",
    .invalid_in = "*" },
  { "identity", "rewards=-1,1,3,5,7,9,11,13 group_size=8", "SeedDerived",
    "G = 8: r - mean = 0.875 loo" },
  { "identity", "rewards=1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 group_size=64", "SeedDerived",
    "G = 64: r - mean = 0.984375 loo" },
  { "identity", "rewards=1,0 group_size=2", "", "G = 2: scale 1/2" },
  { "identity", "rewards=0.3,-1.7,2.25,0,5.5,-3.125,1,0.5 group_size=4", "MultiGroup",
    "two groups of four: scale 3/4" },
  { "identity", "rewards=1,2,1e-200 group_size=3", "ExactSum", "1e-200 beside 1 and 2" },
  { "identity", "rewards=0.5 group_size=1", "GroupOfOne", "no leave-one-out baseline",
    .invalid_in = "*" },
  { KLR, "rewards=1,0,0,1" LP3 " mask=1,1,1,1,1,0,1,1,1,1,0,0 group_size=4 beta=0.05",
    "", "k1 of the old policy against the reference, summed over the unmasked tokens" },
  { KLR, "rewards=1,0,0,1" LP3 " mask=1,1,1,1,1,0,1,1,1,1,0,0 group_size=2 beta=0.5",
    "MultiGroup", "two groups of two, beta 0.5" },
  { KLR, "rewards=1,nan,0,1" LP3 " mask=1,1,1,1,1,1,1,1,1,1,1,1 group_size=4 beta=0.1",
    "NaNReward", "an unscorable response stays NaN before the advantage, which gives it 0 "
    "(its penalty is still formed); verl's and OpenRLHF's group means are NaN",
    .invalid_in = "verl-kl,openrlhf-kl" },
  { KLR, "rewards=1,0,0,1" LP3 " mask=1,1,1,1,1,0,1,1,1,1,0,0 group_size=4 beta=0",
    "", "beta = 0: the plain trl advantage" },
  { KLR, "rewards=1,0,0,1" LP3 " mask=1,1,1,1,1,0,1,1,1,1,0,2 group_size=4 beta=0.05",
    "OutOfDomain", "a mask element of 2", .invalid_in = "*" },
  { KLR, "rewards=25,0,5,0 logp_old=-0.5,-1.2,-0.1,-2,-0.3,-0.7,-1,-1,-1,-0.2,-0.4,-0.6 "
    "logp_ref=-12.5,-1.5,-0.1,-1.5,-0.3,-1,-1.2,-0.9,-1,-0.2,-0.6,-0.5 "
    "mask=1,1,1,1,1,0,1,1,1,1,0,0 group_size=4 beta=0.05", "RewardClip",
    "a reward beyond 10 and a token log-ratio of 12: TRL shapes r - beta kl first (kl 12.2); "
    "OpenRLHF clamps the baselined reward to [-10, 10] and the token's k1 to 10, then subtracts "
    "the penalty" },
  { KLR, "rewards=1,0,0,1 logp_old=-0.5,-1 logp_ref=-0.5,-1 mask=1,1 group_size=4 "
    "beta=0.05", "LengthMismatch", "2 log-probabilities for 4 sequences", .invalid_in = "*" },
  { LOSS, "logp=-0.2,-0.3,-1,-0.5,-0.4,-0.1 logp_old=-0.5,-0.5,-0.75,-0.25,-0.5,-0.1 "
    "mask=1,1,1,1,1,1 adv=1,-1,0.5 eps_low=0.2 eps_high=0.2", "Clipped",
    "sequence log-ratios 0.5, -0.5, 0.1: ratios 1.6487 (clipped to 1.2 for A > 0), 0.6065 "
    "(clipped to 0.8 for A < 0), 1.1052 (inside)" },
  { LOSS, "logp=-0.2,-0.3,-1,-0.5,-0.4,-0.1 logp_old=-0.5,-0.5,-0.75,-0.25,-0.5,-0.1 "
    "mask=1,0,1,1,1,0 adv=-1,1,2 eps_low=0.2 eps_high=0.28", "Clipped",
    "masked tokens left out of the sums; DAPO's clip-higher widths" },
  { LOSS, "logp=-3,-3,-3,-3 logp_old=-1,-1,-1,-1 mask=1,1,1,1 adv=1,-2 eps_low=0.2 "
    "eps_high=0.2", "Clipped",
    "sequence log-ratio -4: ratio e^-4 (one ratio per sequence, not the 1/|y| power)" },
  { LOSS, "logp=0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5 logp_old=0,0,0,0,0,0,0,0 "
    "mask=1,1,1,1,1,1,1,1 adv=-1 eps_low=0.2 eps_high=0.2", "SequenceRatio",
    "eight tokens of log-ratio 0.5 with A < 0: the sequence ratio e^4 = 54.6 is the min "
    "(loss 54.6), where a per-token ratio e^0.5 would give 1.65 (OpenRLHF's token-level loss)" },
  { LOSS, "logp=800,0 logp_old=0,0 mask=1,1 adv=1 eps_low=0.2 eps_high=0.2",
    "Overflow", "a sequence log-ratio of 800: the ratio exceeds binary64; OpenRLHF clamps "
    "each token's log-ratio to 20 (loss -1.1)", .invalid_in = "trl-seq-ratio" },
  { LOSS, "logp=-0.2,-0.3,-1,-0.5 logp_old=-0.5,-0.5,-0.75,-0.25 mask=1,1,0,0 adv=1,-1 "
    "eps_low=0.2 eps_high=0.2", "EmptyResponse",
    "a sequence without tokens: ratio e^0 = 1 and loss -A for TRL; no token for OpenRLHF's "
    "token mean to count (the mean over the other sequence's tokens)" },
  { LOSS, "logp=-1,-1 logp_old=-1,-1 mask=0,0 adv=1 eps_low=0.2 eps_high=0.2", "EmptyMask",
    "no token at all: TRL's sequence ratio is e^0 = 1 (loss -1); OpenRLHF's token mean is 0/0",
    .invalid_in = "openrlhf-token-ratio" },
  { LOSS, "logp=-1,-1 logp_old=-1,-1 mask=1,1 adv=1 eps_low=1 eps_high=0.2",
    "OutOfDomain", "eps_low = 1", .invalid_in = "*" },
  { LOSS, "logp=-1,nan logp_old=-1,-1 mask=1,1 adv=1 eps_low=0.2 eps_high=0.2",
    "NonFinite", "a NaN log-probability", .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-VAR ---------------------------------------------------------- */

#define DRAW_INPUTS                                                          \
  { "values", RL_REAL_ARRAY, "the reward values" },                          \
  { "weights", RL_INT_ARRAY, "their integer weights (>= 0, summing to 1 .. 2^31): P(v_j) = "  \
    "w_j/W", .same_len_as = "values" },                                      \
  { "group_size", RL_INT, "G >= 2" }

static const rl_io io_var = {
  .in = (const rl_input[]) { DRAW_INPUTS, RL_END },
  .out = (const rl_output[]) {
    { "sigma2", "sigma_r^2, the variance of one reward" },
    { "var_mean", "Var[mean of G] = sigma^2/G (13.28')" },
    { "var_loo", "Var[leave-one-out baseline] = sigma^2/(G - 1) (13.28')" },
    { "removed", "sigma^2/G - sigma^2/(2G) = sigma^2/(2G): what doubling G removes" },
    RL_END },
  RL_EVALS (var_exact), .part = "exact",
};

static const rl_io io_var_mc = {
  .in = (const rl_input[]) {
    DRAW_INPUTS,
    { "trials", RL_INT, "groups drawn (trials x G at most 1e7)" },
    { "seed", RL_INT, "gsl_rng_set seed of GSL's mt19937 (0 to 2^32 - 1)" },
    RL_END },
  .out = (const rl_output[]) {
    { "var_mean", "sample variance (ddof 1) over the trials of the group mean" },
    { "var_loo", "sample variance over the trials of the first draw's leave-one-out baseline" },
    RL_END },
  RL_EVALS (var_mc), .part = "monte-carlo",
};

#define BERN "values=0,1 weights=1,1"
#define THREE "values=0.3,-1,2.5 weights=3,5,2"

static const rl_case c_var[] = {
  { "exact", BERN " group_size=2", "SeedExample",
    "G = 2: Var[b_loo] = sigma^2, the baseline as noisy as the signal" },
  { "exact", BERN " group_size=8", "SeedExample",
    "G = 8: going to 16 removes sigma^2/16 of Var[mean]" },
  { "exact", BERN " group_size=64", "SeedExample",
    "G = 64: going to 128 removes sigma^2/128" },
  { "exact", BERN " group_size=16", "", "G = 16: half of G = 8's sigma^2/8" },
  { "exact", THREE " group_size=8", "", "three values with weights 3, 5, 2" },
  { "exact", "values=100000000,100000001 weights=1,3 group_size=4", "LargeOffset",
    "1e8 offset: sigma^2 = 3/16 without cancellation" },
  { "exact", "values=1e150,-1e150,0 weights=1,1,1 group_size=8", "RangeScaling",
    "sigma^2 = 6.7e299, though the squares of the deviations times W^2 overflow unless scaled" },
  { "monte-carlo", "values=1e150,-1e150,0 weights=1,1,1 group_size=8 trials=10 seed=1",
    "RangeScaling MonteCarlo", "sums and squares of 1e150 rewards, scaled" },
  { "exact", "values=1e200,-1e200 weights=1,1 group_size=2", "RangeScaling",
    "sigma^2 = 1e400 lies beyond binary64", .invalid_in = "*" },
  { "exact", BERN " group_size=1", "OutOfDomain", "G = 1", .invalid_in = "*" },
  { "exact", "values=0,1 weights=1,-1 group_size=2", "OutOfDomain", "a negative weight",
    .invalid_in = "*" },
  { "exact", "values=0,1 weights=0,0 group_size=2", "OutOfDomain", "zero total weight",
    .invalid_in = "*" },
  { "exact", "values=0,nan weights=1,1 group_size=2", "NonFinite", "a NaN value",
    .invalid_in = "*" },
  { "monte-carlo", BERN " group_size=8 trials=250 seed=1", "MonteCarlo",
    "2000 draws: near 1/32 and 1/28" },
  { "monte-carlo", "values=0,1 weights=1,3 group_size=2 trials=1000 seed=42", "MonteCarlo",
    "G = 2: both near sigma^2/2 and sigma^2 = 3/16" },
  { "monte-carlo", THREE " group_size=64 trials=31 seed=7", "MonteCarlo",
    "G = 64, 1984 draws" },
  { "monte-carlo", BERN " group_size=8 trials=1 seed=1", "OutOfDomain", "one trial",
    .invalid_in = "*" },
  { "monte-carlo", BERN " group_size=8 trials=10 seed=-1", "OutOfDomain", "a negative seed",
    .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-STDBIAS ------------------------------------------------------ */

static const rl_io io_stdbias = {
  .in = (const rl_input[]) {
    { "p", RL_REAL, "success rate of the prompt, in [0, 1]" },
    { "group_size", RL_INT, "G, 2 to 1024" },
    RL_END },
  .out = (const rl_output[]) {
    { "weight", "w(p): E[sum_i A_i grad log pi(y_i)] = w(p) grad p (binary reward, groups of G)" },
    { "per_sample", "w(p)/G" },
    RL_END },
  RL_EVALS (stdbias), .part = "weight",
};

static const rl_case c_stdbias[] = {
  { "*", "p=0.5 group_size=8", "", "a prompt of middle difficulty" },
  { "*", "p=0.1 group_size=8", "Difficulty", "a hard prompt: the std conventions weigh it more" },
  { "*", "p=0.9 group_size=8", "Difficulty", "an easy prompt: the same weight as p = 0.1" },
  { "*", "p=0.01 group_size=64", "Difficulty", "a very hard prompt, G = 64" },
  { "*", "p=0.5 group_size=64", "", "G = 64: per sample near 1/sqrt(p (1 - p)) = 2" },
  { "*", "p=0.3 group_size=16", "", "G = 16" },
  { "*", "p=0.5 group_size=2", "", "G = 2" },
  { "*", "p=0 group_size=8", "Difficulty",
    "p = 0, the limit: G times the advantage of a lone success (sqrt(7) per sample, ddof 0)" },
  { "*", "p=0.99 group_size=64", "Difficulty", "a very easy prompt, G = 64: the mirror of p = 0.01" },
  { "*", "p=1.5 group_size=8", "OutOfDomain", "p > 1", .invalid_in = "*" },
  { "*", "p=nan group_size=8", "NonFinite", "NaN", .invalid_in = "*" },
  { "*", "p=0.5 group_size=1", "OutOfDomain", "G = 1", .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-REMAX -------------------------------------------------------- */

static const rl_io io_remax = {
  .in = (const rl_input[]) {
    { "token_rewards", RL_REAL_ARRAY, "per-token rewards, B rows of L (the score on the last "
      "token)" },
    { "mask", RL_INT_ARRAY, "1 for a response token, 0 for padding", .same_len_as = "token_rewards" },
    { "baselines", RL_REAL_ARRAY, "the reward of the greedy response to each row's prompt" },
    RL_END },
  .out = (const rl_output[]) {
    { "adv", "returns_t - baseline mask_t", .len_of = "token_rewards" },
    { "returns", "sum_{t' >= t} mask r (returns-to-go)", .len_of = "token_rewards" },
    RL_END },
  RL_EVALS (remax), .part = "token",
};

static const rl_io io_remax_seq = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "N sampled responses' rewards, one group per prompt" },
    { "greedy", RL_REAL_ARRAY, "the greedy response's reward of each of the M prompts" },
    RL_END },
  .out = (const rl_output[]) {
    { "adv", "r_i - greedy reward of its prompt", .len_of = "rewards" },
    RL_END },
  RL_EVALS (remax_seq), .part = "sequence",
};

static const rl_case c_remax[] = {
  { "verl", "token_rewards=0,0,1,0,0,0.5 mask=1,1,1,1,1,0 baselines=0.5,0.25", "",
    "two responses of length 3 and 2: the outcome reward on the last token" },
  { "verl", "token_rewards=0,0,1,0,0,0,0,0,0,0,0,0 mask=1,1,1,1,1,1,1,1,1,1,1,1 "
    "baselines=1,1,0", "", "a success, a failure against a successful greedy answer, a "
    "failure against a failing one" },
  { "verl", "token_rewards=0.1,-0.2,0.3,1 mask=1,1,1,1 baselines=0.6", "",
    "per-token rewards: the returns-to-go" },
  { "verl", "token_rewards=1e-200,1,0,0 mask=1,1,1,1 baselines=1", "ExactSum",
    "1e-200 beside 1: the first return minus the baseline is 1e-200, not 0" },
  { "verl", "token_rewards=0,1,2 mask=1,2,1 baselines=0", "OutOfDomain", "a mask of 2",
    .invalid_in = "*" },
  { "verl", "token_rewards=0,1,2,3,4 mask=1,1,1,1,1 baselines=0,1", "LengthMismatch",
    "5 token rewards in 2 rows", .invalid_in = "*" },
  { "verl", "token_rewards=0,nan mask=1,1 baselines=0", "NonFinite", "a NaN reward",
    .invalid_in = "*" },
  { "seed-004", "rewards=1,0,1,1,0,0 greedy=1,0", "", "two prompts, groups of three" },
  { "seed-004", "rewards=0.7,0.2 greedy=0.5", "", "one prompt" },
  { "seed-004", "rewards=1,0,1 greedy=1,0", "LengthMismatch", "3 rewards for 2 prompts",
    .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-BASELINE ----------------------------------------------------- */

static const rl_io io_baseline = {
  .in = (const rl_input[]) {
    { "V", RL_INT, "vocabulary size (2 to 64)" },
    { "eos", RL_INT, "the EOS token" },
    { "T", RL_INT, "maximum length: a sequence ends at EOS or is cut after T tokens (kept)" },
    { "logits", RL_REAL_ARRAY, "bigram: (V + 1) rows of V, row V the start; tabular: one row "
      "per prefix without EOS shorter than T, by length then lexicographically" },
    { "reward", RL_REAL_ARRAY, "additive reward: V token rewards, per_length, truncated" },
    { "b", RL_REAL, "the baseline b(x), a constant" },
    RL_END },
  .out = (const rl_output[]) {
    { "value", "E[r]" },
    { "grad", "d E[r]/d logits, exact (the policy-gradient theorem's sum)", .len_of = "logits" },
    { "pg", "E[(r - b) grad log pi(y)]: equal to grad for every b, since E[b grad log pi] = 0 "
      "(13.27)", .len_of = "logits" },
    { "sq", "E[(r - b)^2 |grad log pi(y)|^2], the estimator's second moment, which b changes" },
    RL_END },
  RL_EVALS (baseline), .part = "baseline",
};

#define B3 "V=3 eos=2 T=3 logits=0.5,-0.2,0.1,0,1,-1,0,0,0,0.3,0.3,-0.5"
#define A3 "V=3 eos=2 T=3 logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,-0.3,0.3,0"
#define R3 " reward=1,-0.5,0,-0.25,-1"

static const rl_case c_baseline[] = {
  { "bigram", B3 R3 " b=0", "", "no baseline: pg is the REINFORCE gradient, = grad" },
  { "bigram", B3 R3 " b=-0.75", "", "a baseline near E[r]: the same pg, a smaller sq" },
  { "bigram", B3 R3 " b=3", "", "a poor baseline: the same pg, a larger sq" },
  { "bigram", "V=4 eos=0 T=3 logits=0.4,0,-0.3,0.2,-1,0.5,0.5,0,0,0,0,0,1,-0.5,0.25,0.75,0.1,"
    "0.2,0.3,-0.6 reward=0,1,-1,0.5,-0.1,-2 b=0.5", "", "V = 4, T = 3: 40 sequences" },
  { "tabular", A3 R3 " b=0", "", "a tabular model, no baseline" },
  { "tabular", A3 R3 " b=-1", "", "a tabular model, b = -1" },
  { "tabular", A3 R3 " b=10", "", "a tabular model, b = 10" },
  { "bigram", B3 R3 " b=nan", "NonFinite", "a NaN baseline", .invalid_in = "*" },
  { "bigram", "V=3 eos=2 T=3 logits=0,0,0,0,0,0,0,0,0" R3 " b=0", "LengthMismatch",
    "three rows of logits where a bigram model of V = 3 has four", .invalid_in = "*" },
  { "bigram", "V=5 eos=4 T=6 logits=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 "
    "reward=0,0,0,0,1,0,0 b=0", "TooLarge", "5461 sequences: more than GRPO-BASELINE enumerates",
    .invalid_in = "*" },
  RL_END,
};

static const rl_note notes[] = {
  { "SeedDerived", "WORKED_EXAMPLE",
    "A number the seeds print (000 section 5: one success in 64 gives 7.937 / 7.875; G = 8 "
    "gives 0.875 and G = 64 0.984; seed 001's eps) recomputed from the formula." },
  { "SeedExample", "WORKED_EXAMPLE",
    "Seed 000's reading of 13.28': G = 2 gives Var[b_loo] = sigma^2; doubling G halves "
    "Var[mean], so 8 -> 16 removes sigma^2/16 and 64 -> 128 only sigma^2/128." },
  { "Attained", "EDGE_CASE",
    "One reward apart from G - 1 equal ones attains Samuelson's bound: |A| is bounded by "
    "sqrt(G - 1) (ddof 0), (G - 1)/sqrt(G) (ddof 1), whatever the spread." },
  { "TinyVariance", "EDGE_CASE",
    "A spread comparable to eps (or far below 1): the advantage stays bounded; what grows as "
    "sigma -> 0 is the weight per unit of reward difference, 1/(sigma + eps)." },
  { "ZeroVariance", "EDGE_CASE",
    "All rewards of a group equal: the advantage is exactly 0 (a binary64 mean of equal values "
    "need not equal them)." },
  { "LargeOffset", "NUMERICAL",
    "Large rewards with a small spread: a one-pass sum of squares cancels; the deviations must "
    "be formed exactly." },
  { "ExactSum", "NUMERICAL",
    "Rewards spanning more bits than the working precision: the sums keep the small ones." },
  { "RangeScaling", "NUMERICAL",
    "Sums or squares that leave the binary64 range while the result need not: scaled by a "
    "power of two; a result beyond the range is refused (ERANGE).  The libraries' float64 sums "
    "overflow here ([1.5e308, 1.7e308]: TRL's nan_to_num maps the -inf to -DBL_MAX, "
    "OpenRLHF's clamp to -10, verl gives NaN)." },
  { "GroupOfOne", "EDGE_CASE",
    "A group of one has no leave-one-out baseline: refused (13.28; OpenRLHF asserts "
    "n_samples_per_prompt > 1), 0 (TRL, verl rloo_vectorized), or the raw reward (verl rloo: "
    "acceptable as verl's behaviour, not a sound advantage)." },
  { "SequenceRatio", "CONVENTION",
    "A long sequence whose token log-ratios add up: one ratio per sequence, exp(sum), is far "
    "from any per-token ratio (the losses of a token-level clip)." },
  { "RewardClip", "CONVENTION",
    "A leave-one-out advantage beyond 10: OpenRLHF clips the shaped reward to "
    "--reward.clip_range [-10, 10] after the baseline (models/utils.py compute_reward); the "
    "others do not." },
  { "EmptyResponse", "CONVENTION",
    "A sequence with no token in the mask: its sequence ratio is e^0 = 1 and it counts in "
    "TRL's mean over sequences; a token-level mean (OpenRLHF) has nothing of it to count." },
  { "EmptyMask", "EDGE_CASE",
    "No token in the whole batch: a mean over tokens is 0/0 (refused); TRL's mean over "
    "sequences still has a value." },
  { "MultiGroup", "CONVENTION", "Several groups in one batch: groups do not mix." },
  { "NaNReward", "CONVENTION",
    "Unscorable (NaN) rewards: TRL leaves them out of the leave-one-out sums and gives them 0; "
    "the other conventions refuse the input (ENAN) rather than return NaN." },
  { "Clipped", "CONVENTION",
    "The PPO clip of the ratio: of one ratio per sequence, exp of the summed token log-ratios "
    "(TRL's RLOO; not GSPO's length-normalised 1/|y| power), or of each token's (OpenRLHF)." },
  { "Overflow", "EDGE_CASE",
    "The sequence ratio lies beyond binary64 (a summed log-ratio of 800): refused (ERANGE); "
    "OpenRLHF clamps each token's log-ratio to 20 first and has a value." },
  { "Layout", "CONVENTION",
    "Older TRL (to 0.19) laid the samples out sample-major (all prompts' first responses, then "
    "their second ...): reading such a batch as contiguous groups mixes prompts." },
  { "MonteCarlo", "CONVENTION",
    "A seeded run of GSL's mt19937: the same draws in binary64 and MPFR (integer comparisons), "
    "so the value is that run's exact statistic; it estimates the exact variances within its "
    "sampling error." },
  { "Difficulty", "CONVENTION",
    "A hard or easy prompt (p near 0 or 1): dividing by the group std multiplies its weight "
    "(difficulty bias, seed 000 section 11); no-std and rloo weigh every p the same." },
  { "TooLarge", "INVALID_INPUT", "More sequences than the enumeration takes." },
  RL_END,
};

static rl_formula formulas[] = {
  { "GRPO-ADV-BOUND", "the group advantage is bounded (Samuelson)", "000 section 5 (claim); extension",
    "max_i |A_i| <= sqrt(G - 1) (ddof 0), (G - 1)/sqrt(G) (ddof 1), A = (r - mean)/std; "
    "attained by one success in G (G = 64: 7.937 / 7.875)", NULL, c_bound, notes },
  { "GRPO-ADV-SCALE", "with eps > 0 the std of the advantages is sigma/(sigma + eps) < 1", "001",
    "A_i = (r_i - mean)/(sigma + eps): std(A) (the same ddof) = sigma/(sigma + eps)",
    NULL, c_scale, notes },
  { "GRPO-BASELINE", "a baseline leaves the policy gradient unchanged (13.27), on the tiny LM",
    "000 (13.27)",
    "E[b grad log pi] = b grad sum_y pi = 0: E[(r - b) grad log pi] = grad E[r] for every b, "
    "every component, by enumeration", NULL, c_baseline, notes },
  { "GRPO-RLOO", "leave-one-out advantage (13.28) and the library conventions",
    "000 (13.28), section 11; 001; 004",
    "A_i = r_i - (sum_{j != i} r_j)/(G - 1); r_i - mean = ((G - 1)/G) A_i; TRL's k1-shaped "
    "reward and sequence-level ratio", NULL, c_rloo, notes },
  { "GRPO-VAR", "variance of the group-mean and leave-one-out baselines (13.28')",
    "000 (13.28')", "Var[mean] = sigma^2/G, Var[b_loo] = sigma^2/(G - 1); exact and by a seeded "
    "Monte-Carlo run", NULL, c_var, notes },
  { "GRPO-STDBIAS", "the per-prompt weight of the std normalisation (difficulty bias)",
    "000 section 11", "binary reward of success rate p: E[sum_i A_i grad log pi(y_i)] = w(p) "
    "grad p; w(p) = G E_{k ~ Bin(G-1, p)}[A+(k+1) - A-(k)]", NULL, c_stdbias, notes },
  { "GRPO-REMAX", "ReMax: the greedy response's reward as the baseline", "004",
    "A = r - r(greedy); verl: returns-to-go minus the greedy reward on each response token",
    NULL, c_remax, notes },
  RL_END,
};

/* GRPO-RLOO's OpenRLHF rows read their own forms of two parts: the KL
 * penalty after the estimator (io_kl_after) and one ratio per token
 * (io_token_loss); the other rows of those parts the common ones. */
static const rl_io *
pick (const rlref_convention *c)
{
  if (strcmp (c->part, "kl-reward") == 0)
    return strcmp (c->name, "openrlhf-kl") == 0 ? &io_kl_after : &io_kl;
  if (strcmp (c->part, "loss") == 0)
    return strcmp (c->name, "openrlhf-token-ratio") == 0 ? &io_token_loss : &io_loss;
  return NULL;
}

/* The formulas' variants: one per row of the library's table
 * (rlref_grpobase_conventions), each on the io pick gives or that of its
 * part and precision. */
static const rl_io *const ios[] = {
  &io_bound, &io_scale, &io_rloo, &io_strided, &io_identity, &io_kl, &io_loss, &io_kl_after,
  &io_token_loss, &io_var, &io_var_mc, &io_stdbias, &io_remax, &io_remax_seq, &io_baseline,
  NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_grpobase_conventions, f->id, ios, pick);
}

RL_FAMILY (grpobase) = {
  .name = "grpobase",
  .title = "GRPO baselines: bound, leave-one-out, variance, difficulty weight, ReMax",
  .rank = 6,
  .formulas = formulas,
  .init = init,
};
