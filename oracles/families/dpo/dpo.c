/* dpo.c -- the DPO family: losses of the DPO family on given
 * log-probabilities (seed 000 (13.18)-(13.22), section 4 and 10.1; seed
 * 003; CONVENTIONS.md "DPO family"): inputs, outputs, variants (one per
 * convention of TRL, OpenRLHF and the seeds), golden cases and notes.
 *
 * Throughout, for pair i of a batch of B:
 *   D_i = (logp_w,i - ref_w,i) - (logp_l,i - ref_l,i),
 *   D_tok,i = (logp_w,i - ref_w,i)/n_w,i - (logp_l,i - ref_l,i)/n_l,i,
 * the log-probabilities being sums over the completion's tokens.
 * The variants are the rows of the library's table
 * (reference/src/dpo/dpo_conventions.c). */
#include <stdio.h>
#include "rlref/dpo.h"
#include "family.h"

RL_EVAL_DECL (dpo_pair);
RL_EVAL_DECL (dpo_grad);
RL_EVAL_DECL (dpo_kto);
RL_EVAL_DECL (dpo_simpo);
RL_EVAL_DECL (dpo_orpo);
RL_EVAL_DECL (dpo_orpo_f32);

/* --- inputs and outputs ------------------------------------------------ */

#define IN_LOGP_W { "logp_w", RL_REAL_ARRAY, "policy log-probability of each chosen completion y_w, summed over its tokens" }
#define IN_LOGP_L { "logp_l", RL_REAL_ARRAY, "policy log-probability of each rejected completion y_l, summed over its tokens", .same_len_as = "logp_w" }
#define IN_REF_W { "ref_w", RL_REAL_ARRAY, "reference log-probability of y_w, summed over its tokens", .same_len_as = "logp_w" }
#define IN_REF_L { "ref_l", RL_REAL_ARRAY, "reference log-probability of y_l, summed over its tokens", .same_len_as = "logp_w" }

static const rl_io io_pair = {
  .in = (const rl_input[]) {
    IN_LOGP_W, IN_LOGP_L, IN_REF_W, IN_REF_L,
    { "n_w", RL_INT_ARRAY, "token count of each y_w; read only by the per-token variants "
      "(ipo-mean, sigmoid-norm), which count 0 as 1 (TRL's clamp(min=1.0)) and refuse a "
      "negative count", .same_len_as = "logp_w" },
    { "n_l", RL_INT_ARRAY, "token count of each y_l; as n_w", .same_len_as = "logp_w" },
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "batch mean (1/B) sum_i losses_i" },
    { "losses", "the variant's loss l of each pair", .len_of = "logp_w" },
    { "grad_w", "d loss / d logp_w,i (reference held fixed)", .len_of = "logp_w" },
    { "grad_l", "d loss / d logp_l,i", .len_of = "logp_w" },
    { "reward_w", "implicit reward beta (logp_w,i - ref_w,i), summed log-ratio, beta not squared "
      "(TRL's chosen_rewards, logged as rewards/chosen; OpenRLHF's chosen_reward)",
      .len_of = "logp_w" },
    { "reward_l", "implicit reward beta (logp_l,i - ref_l,i)", .len_of = "logp_w" },
    RL_END },
  RL_EVALS (dpo_pair), .part = "pair-loss",
};

static const rl_io io_grad = {
  .in = (const rl_input[]) { IN_LOGP_W, IN_LOGP_L, IN_REF_W, IN_REF_L, RL_END },
  .out = (const rl_output[]) {
    { "weight", "the weight of 13.22, sigma(r_l,i - r_w,i) with r = beta (logp - ref) "
      "(seed-003-prose: sigma(beta (r_l,i - r_w,i)))", .len_of = "logp_w" },
    { "grad_w", "d L / d logp_w,i of the batch mean L = (1/B) sum_i -log sigma(b D_i), b = beta "
      "(seed-003-prose: beta^2)", .len_of = "logp_w" },
    { "grad_l", "d L / d logp_l,i", .len_of = "logp_w" },
    RL_END },
  RL_EVALS (dpo_grad), .part = "grad",
};

static const rl_io io_kto = {
  .in = (const rl_input[]) {
    { "logp", RL_REAL_ARRAY, "policy log-probability of each completion, summed over its tokens" },
    { "ref", RL_REAL_ARRAY, "reference log-probability of each completion", .same_len_as = "logp" },
    { "desirable", RL_INT_ARRAY, "1 for a desirable completion, 0 for an undesirable one",
      .same_len_as = "logp", .domain = "[0,1]" },
    { "kl_logp", RL_REAL_ARRAY, "policy log-probability of each mismatched (prompt, completion) "
      "pair of the KL estimate" },
    { "kl_ref", RL_REAL_ARRAY, "reference log-probability of each mismatched pair",
      .same_len_as = "kl_logp" },
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "mean of losses over the B completions" },
    { "losses", "weighted loss of each completion", .len_of = "logp" },
    { "grad", "d loss / d logp_i, z0 held constant (detached)", .len_of = "logp" },
    { "reward", "beta (logp_i - ref_i)", .len_of = "logp" },
    { "z0", "the reference point max(0, mean_j (kl_logp_j - kl_ref_j))" },
    RL_END },
  RL_EVALS (dpo_kto), .part = "kto",
};

#define IN_COUNTS                                                                   \
  { "n_w", RL_INT_ARRAY, "token count of each y_w (>= 1)", .same_len_as = "logp_w" }, \
  { "n_l", RL_INT_ARRAY, "token count of each y_l (>= 1)", .same_len_as = "logp_w" }

static const rl_io io_simpo = {
  .in = (const rl_input[]) { IN_LOGP_W, IN_LOGP_L, IN_COUNTS, RL_END },
  .out = (const rl_output[]) {
    { "loss", "(1/B) sum_i losses_i + alpha nll" },
    { "losses", "-log sigma(beta (a_w,i - a_l,i) - gamma), a = logp/n", .len_of = "logp_w" },
    { "grad_w", "d loss / d logp_w,i (the NLL term included)", .len_of = "logp_w" },
    { "grad_l", "d loss / d logp_l,i", .len_of = "logp_w" },
    { "reward_w", "beta a_w,i (what the trainers log as rewards/chosen)", .len_of = "logp_w" },
    { "reward_l", "beta a_l,i", .len_of = "logp_w" },
    { "nll", "-sum_i logp_w,i / sum_i n_w,i, the token-mean NLL of the chosen completions "
      "(TRL: 0, its placeholder, where cpo_alpha = 0)" },
    RL_END },
  RL_EVALS (dpo_simpo), .part = "simpo",
};

static const rl_input in_orpo[] = {
  { "logp_w", RL_REAL_ARRAY, "policy log-probability of each chosen completion, summed over "
    "its tokens (<= 0)" },
  { "logp_l", RL_REAL_ARRAY, "policy log-probability of each rejected completion (< 0)",
    .same_len_as = "logp_w" },
  IN_COUNTS, RL_END };

static const rl_output out_orpo[] = {
  { "loss", "nll + (1/B) sum_i losses_i" },
  { "losses", "odds-ratio term -lambda log sigma(log_odds_i) (the negative of TRL's losses "
    "tensor, beta * logsigmoid(log_odds))", .len_of = "logp_w" },
  { "grad_w", "d loss / d logp_w,i (the NLL term included)", .len_of = "logp_w" },
  { "grad_l", "d loss / d logp_l,i", .len_of = "logp_w" },
  { "log_odds", "lo(a_w,i) - lo(a_l,i), lo(a) = a - log(1 - e^a), a = logp/n (+inf when "
    "logp_w,i = 0)", .len_of = "logp_w" },
  { "nll", "the SFT term on the chosen completions (the variant's mean)" },
  { "reward_w", "lambda a_w,i (what TRL logs as rewards/chosen)", .len_of = "logp_w" },
  { "reward_l", "lambda a_l,i", .len_of = "logp_w" },
  RL_END };

static const rl_io io_orpo = {
  .in = in_orpo, .out = out_orpo, RL_EVALS (dpo_orpo), .part = "orpo",
};

static const rl_io io_orpo_f32 = {
  .in = in_orpo, .out = out_orpo, RL_EVALS (dpo_orpo_f32), .binary32 = 1, .part = "orpo",
};

/* --- golden cases ------------------------------------------------------ */

/* The detectors and edges every pairwise convention is held to. */
#define C_DETECTOR                                                              \
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5", "Detector",        \
    "CONVENTIONS detector, D = 1.5, beta 0.1: sigmoid 0.6209570, hinge 0.85, IPO summed 12.25, " \
    "IPO per-token (4 and 5 tokens) 21.16, cDPO eps 0.1 0.6359570, robust eps 0.1 0.6022070" }
#define C_SEED_DETECTOR                                                         \
  { "*", "logp_w=-1 logp_l=-5 ref_w=-3 ref_l=-5 n_w=2 n_l=4", "Detector SeedErratum",   \
    "D = 2, beta 0.1: 0.598139 (13.21) vs 0.683197 (seed 003's prose, beta twice)" }
#define C_INVALID_COMMON                                                        \
  { "*", "logp_w=nan logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5", "NonFinite",        \
    "NaN log-probability", .invalid_in = "*" },                                    \
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-inf n_w=4 n_l=5", "NonFinite",         \
    "infinite reference log-probability (a token of probability 0)", .invalid_in = "*" },  \
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 beta=0", "OutOfDomain", \
    "beta = 0", .invalid_in = "*" },                                               \
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 beta=-0.1", "OutOfDomain", \
    "beta < 0", .invalid_in = "*" },                                               \
  { "*", "logp_w= logp_l= ref_w= ref_l= n_w= n_l=", "EmptyBatch", "no pairs",        \
    .invalid_in = "*" },                                                           \
  { "*", "logp_w=-10,-3 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5", "LengthMismatch", \
    "two chosen log-probabilities for one rejected", .invalid_in = "*" },          \
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=0 n_l=5", "ZeroCountClamped", \
    "a count of 0 with a log-ratio of 2: the per-token conventions count it as 1 (TRL's "   \
    "clamp(min=1.0)); the others do not read counts" }

/* The cases every pairwise formula adds at its end. */
#define C_PAIR_TAIL                                                             \
  { "*", "logp_w=0 logp_l=-11 ref_w=0 ref_l=-11.5 n_w=0 n_l=5", "EmptyCompletion",       \
    "an empty chosen completion, consistently (log-probabilities 0, count 0): TRL's clamp "  \
    "gives the per-token log-ratio 0/1 = 0 and a finite loss; a division by the raw count "   \
    "gives 0/0 = NaN (as TRL's CPOTrainer and ORPOTrainer do)" },                   \
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=-1 n_l=5", "NegativeCount",    \
    "a negative token count: the per-token conventions refuse it",                 \
    .invalid_in = "ipo-mean,sigmoid-norm" }

static const rl_case c_loss[] = {
  C_DETECTOR,
  C_SEED_DETECTOR,
  { "*", "logp_w=-7.25 logp_l=-9.5 ref_w=-7.25 ref_l=-9.5 n_w=3 n_l=3", "ZeroMargin",
    "policy = reference, D = 0: sigmoid log 2, hinge 1, IPO 1/(4 beta^2) = 25" },
  { "*", "logp_w=-10,-3.5,-20 logp_l=-11,-4,-18 ref_w=-12,-3,-19 ref_l=-11.5,-4.25,-18.5 "
    "n_w=4,2,9 n_l=5,3,7", "Batch", "three pairs, the last with D < 0" },
  { "*", "logp_w=-1 logp_l=-5 ref_w=-3 ref_l=-5 n_w=2 n_l=4 beta=0.5", "HingeKink",
    "beta D = 1 exactly: the hinge is at its kink (loss 0, gradient 0); ipo-mean at its minimum" },
  { "*", "logp_w=-1 logp_l=-10001 ref_w=-1 ref_l=-1 n_w=1 n_l=1", "Saturated",
    "beta D = 1000: -log sigma(beta D) = e^-1000" },
  { "*", "logp_w=-1000 logp_l=-1 ref_w=-1 ref_l=-1 n_w=1 n_l=1", "NaiveOverflowFloat32",
    "beta D = -99.9: log(1 + e^99.9) overflows binary32" },
  { "*", "logp_w=-10001 logp_l=-1 ref_w=-1 ref_l=-1 n_w=1 n_l=1", "NaiveOverflow",
    "beta D = -1000: log(1 + e^1000) overflows binary64" },
  { "*", "logp_w=-1000000 logp_l=-1 ref_w=-1 ref_l=-1000000 n_w=1000 n_l=1000",
    "Extreme", "D = -1999998, beta D ~ -2e5" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 beta=1", "",
    "the detector at beta 1" },
  C_INVALID_COMMON,
  C_PAIR_TAIL,
  RL_END,
};

static const rl_case c_cdpo[] = {
  C_DETECTOR,
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 eps=0", "",
    "eps = 0: both are the sigmoid loss 0.6209570" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 eps=0.25", "", "eps = 1/4" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 eps=0.49", "",
    "eps near 1/2: robust DPO divides by 1 - 2 eps = 0.02" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 eps=0.5", "OutOfDomain",
    "eps = 1/2: cDPO is symmetric in D; robust DPO divides by 1 - 2 eps = 0 (TRL's loss is "
    "-inf)", .invalid_in = "robust" },
  { "*", "logp_w=-10,-3.5,-20 logp_l=-11,-4,-18 ref_w=-12,-3,-19 ref_l=-11.5,-4.25,-18.5 "
    "n_w=4,2,9 n_l=5,3,7", "Batch", "three pairs, the last with D < 0" },
  { "*", "logp_w=-1 logp_l=-10001 ref_w=-1 ref_l=-1 n_w=1 n_l=1", "Saturated",
    "beta D = 1000: the eps term grows as eps beta D (robust: -eps beta D/(1 - 2 eps))" },
  { "*", "logp_w=-10001 logp_l=-1 ref_w=-1 ref_l=-1 n_w=1 n_l=1", "NaiveOverflow",
    "beta D = -1000" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 eps=-0.1", "OutOfDomain",
    "eps < 0", .invalid_in = "*" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 eps=1.5", "OutOfDomain",
    "eps > 1", .invalid_in = "*" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 eps=nan", "NonFinite",
    "NaN eps", .invalid_in = "*" },
  C_INVALID_COMMON,
  C_PAIR_TAIL,
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 eps=0.75", "RobustEpsAboveHalf",
    "eps = 3/4: TRL's robust loss only warns and divides by 1 - 2 eps = -1/2" },
  RL_END,
};

static const rl_case c_ipo[] = {
  C_DETECTOR,
  C_SEED_DETECTOR,
  { "*", "logp_w=-7.25 logp_l=-9.5 ref_w=-7.25 ref_l=-9.5 n_w=3 n_l=3", "ZeroMargin",
    "D = 0: 1/(4 beta^2) = 25" },
  { "*", "logp_w=-1 logp_l=-5 ref_w=-3 ref_l=-5 n_w=2 n_l=4 beta=0.5", "",
    "ipo-mean at its minimum: D_tok = 1/(2 beta) = 1, loss 0, gradient 0" },
  { "*", "logp_w=-10 logp_l=-12 ref_w=-10 ref_l=-11 n_w=4 n_l=1 beta=0.5", "",
    "D = 1 = 1/(2 beta), beta = 0.5: ipo-sum at its minimum (loss 0, gradient 0)" },
  { "*", "logp_w=-40,-12 logp_l=-50,-9 ref_w=-44,-14 ref_l=-49,-10 n_w=40,3 n_l=10,2",
    "Batch LengthBias", "long completions: summing and averaging disagree on which pair "
    "pulls harder" },
  { "*", "logp_w=-1 logp_l=-10001 ref_w=-1 ref_l=-1 n_w=1 n_l=1", "",
    "D = 10000: the squared loss keeps growing where sigmoid saturates" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 n_w=4 n_l=5 beta=0.01", "",
    "beta (tau) 0.01: target margin 50" },
  C_INVALID_COMMON,
  C_PAIR_TAIL,
  RL_END,
};

static const rl_case c_grad[] = {
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5", "Detector",
    "CONVENTIONS log-probabilities, D = 1.5: weight sigma(-0.15) = 0.4625702" },
  { "*", "logp_w=-1 logp_l=-5 ref_w=-3 ref_l=-5", "Detector SeedErratum",
    "D = 2: weight sigma(-0.2) (13.22) vs sigma(-0.02) (seed 003's prose)" },
  { "*", "logp_w=-7.25 logp_l=-9.5 ref_w=-7.25 ref_l=-9.5", "ZeroMargin",
    "D = 0: weight exactly 1/2" },
  { "*", "logp_w=-10,-3.5,-20 logp_l=-11,-4,-18 ref_w=-12,-3,-19 ref_l=-11.5,-4.25,-18.5",
    "Batch", "three pairs; each gradient divided by B = 3" },
  { "*", "logp_w=-1 logp_l=-10001 ref_w=-1 ref_l=-1", "Saturated",
    "beta D = 1000: the pair is ranked right, weight e^-1000" },
  { "*", "logp_w=-10001 logp_l=-1 ref_w=-1 ref_l=-1", "WrongWay",
    "beta D = -1000: the implicit rewards rank the pair wrongly, weight 1 - e^-1000" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 beta=0.5", "", "beta 0.5" },
  { "*", "logp_w=nan logp_l=-11 ref_w=-12 ref_l=-11.5", "NonFinite", "NaN log-probability",
    .invalid_in = "*" },
  { "*", "logp_w=-10 logp_l=-11 ref_w=-12 ref_l=-11.5 beta=0", "OutOfDomain", "beta = 0",
    .invalid_in = "*" },
  { "*", "logp_w= logp_l= ref_w= ref_l=", "EmptyBatch", "no pairs", .invalid_in = "*" },
  { "*", "logp_w=-10 logp_l=-11,-2 ref_w=-12 ref_l=-11.5", "LengthMismatch",
    "two rejected log-probabilities for one chosen", .invalid_in = "*" },
  RL_END,
};

#define KTO_BATCH "logp=-10,-12,-8,-15 ref=-11,-11,-9,-14 desirable=1,0,1,0"

static const rl_case c_kto[] = {
  { "*", KTO_BATCH " kl_logp=-13,-9,-10,-12.5 kl_ref=-12,-10,-11,-11", "KLClamped",
    "mean KL -0.125 < 0: z0 = 0" },
  { "*", KTO_BATCH " kl_logp=-10,-9,-10,-12 kl_ref=-12,-10,-11,-11", "",
    "mean KL 0.75: z0 = 0.75" },
  { "*", KTO_BATCH " kl_logp=-11,-9 kl_ref=-10,-10", "KLZero",
    "mean KL exactly 0: z0 = 0 at the clamp's kink" },
  { "*", "logp=-10,-12,-8 ref=-11,-11,-9 desirable=1,1,1 kl_logp=-10,-9 kl_ref=-12,-10", "",
    "desirable completions only" },
  { "*", "logp=-10,-12,-8 ref=-11,-11,-9 desirable=0,0,0 kl_logp=-10,-9 kl_ref=-12,-10", "",
    "undesirable completions only" },
  { "*", KTO_BATCH " kl_logp=-10,-9,-10,-12 kl_ref=-12,-10,-11,-11 w_d=1.33 w_u=1", "",
    "desirable weight 1.33 (TRL's advice for fewer desirable examples)" },
  { "*", "logp=-1,-1 ref=-4001,-1 desirable=1,0 kl_logp=-1 kl_ref=-1", "OneMinusSigmoid",
    "desirable with r - z0 = 4000 (beta 0.1: x = 400; beta 0.01: x = 40): 1 - sigma(x) is 0 "
    "in binary64, sigma(-x) is not" },
  { "*", "logp=-1,-10001 ref=-10001,-1 desirable=1,0 kl_logp=-1 kl_ref=-1", "Saturated",
    "|r - z0| = 10000 (beta 0.1: losses e^-1000)" },
  { "*", "logp=-1,-10001 ref=-10001,-1 desirable=0,1 kl_logp=-1 kl_ref=-1", "WrongWay",
    "the desirable completion far below the reference: loss near w_d" },
  { "*", "logp=-10,-12,-8,-15 ref=-11,-11,-9,-14 desirable=1,2,1,0 kl_logp=-13,-9 "
    "kl_ref=-12,-10", "BadLabel",
    "a label other than 0 and 1", .invalid_in = "*" },
  { "*", KTO_BATCH " kl_logp=-13,-9 kl_ref=-12,-10 beta=0", "OutOfDomain", "beta = 0",
    .invalid_in = "*" },
  { "*", KTO_BATCH " kl_logp=-13,-9 kl_ref=-12,-10 w_u=-1", "OutOfDomain",
    "a negative weight", .invalid_in = "*" },
  { "*", "logp=-10,nan ref=-11,-11 desirable=1,0 kl_logp=-13 kl_ref=-12", "NonFinite",
    "NaN log-probability", .invalid_in = "*" },
  { "*", "logp=-10 ref=-11 desirable=1 kl_logp=-inf kl_ref=-12", "NonFinite",
    "infinite log-probability in the KL estimate", .invalid_in = "*" },
  { "*", KTO_BATCH " kl_logp= kl_ref=", "EmptyBatch", "no mismatched pairs for z0",
    .invalid_in = "*" },
  { "*", "logp= ref= desirable= kl_logp=-13 kl_ref=-12", "EmptyBatch", "no completions",
    .invalid_in = "*" },
  { "*", "logp=-10,-12 ref=-11,-11 desirable=1 kl_logp=-13 kl_ref=-12", "LengthMismatch",
    "one label for two completions", .invalid_in = "*" },
  { "*", "logp=-1,-10 ref=-301,-11 desirable=1,0 kl_logp=-1 kl_ref=-1", "OneMinusSigmoid",
    "desirable with r - z0 = 300 (beta 0.1: x = 30, 1 - sigma(30) = 9.4e-14 formed by "
    "subtraction in binary64 keeps about 3 of its 16 digits; beta 0.01: x = 3, exact enough)" },
  RL_END,
};

static const rl_case c_simpo[] = {
  { "*", "logp_w=-12 logp_l=-30 n_w=4 n_l=10", "LengthNormalised",
    "equal per-token means -3: only the margin gamma = 0.5 remains, softplus(0.5)" },
  { "*", "logp_w=-8,-20,-5 logp_l=-15,-18,-9 n_w=4,10,2 n_l=5,6,3", "Batch",
    "three pairs of different lengths" },
  { "*", "logp_w=-40 logp_l=-12 n_w=40 n_l=6", "LengthBias",
    "the chosen completion has the lower total but the higher per-token log-probability" },
  { "*", "logp_w=-1 logp_l=-10001 n_w=1 n_l=1", "Saturated",
    "per-token gap 10000: losses e^-(beta 10000 - gamma)" },
  { "*", "logp_w=-10001 logp_l=-1 n_w=1 n_l=1", "NaiveOverflow",
    "per-token gap -10000: loss ~ beta 10000 + gamma" },
  { "trl", "logp_w=-8,-20,-5 logp_l=-15,-18,-9 n_w=4,10,2 n_l=5,6,3 simpo_gamma=0 cpo_alpha=0",
    "", "TRL with simpo_gamma 0 and cpo_alpha 0: per-token sigmoid loss alone" },
  { "simpo-repo", "logp_w=-8,-20,-5 logp_l=-15,-18,-9 n_w=4,10,2 n_l=5,6,3 beta=2.5 "
    "gamma_beta_ratio=0.55 sft_weight=0.5", "",
    "the SimPO repository's Llama-3-Instruct settings beta 2.5, ratio 0.55, with sft_weight 0.5" },
  { "*", "logp_w=-12 logp_l=-30 n_w=0 n_l=10", "ZeroCount", "a completion of no tokens",
    .invalid_in = "*" },
  { "*", "logp_w=-12 logp_l=-30 n_w=4 n_l=10 beta=0", "OutOfDomain", "beta = 0",
    .invalid_in = "*" },
  { "trl,trl-no-nll", "logp_w=-12 logp_l=-30 n_w=4 n_l=10 cpo_alpha=-1", "OutOfDomain",
    "a negative NLL weight", .invalid_in = "*" },
  { "simpo-repo", "logp_w=-12 logp_l=-30 n_w=4 n_l=10 gamma_beta_ratio=nan", "NonFinite",
    "NaN margin", .invalid_in = "*" },
  { "*", "logp_w=nan logp_l=-30 n_w=4 n_l=10", "NonFinite", "NaN log-probability",
    .invalid_in = "*" },
  { "*", "logp_w= logp_l= n_w= n_l=", "EmptyBatch", "no pairs", .invalid_in = "*" },
  { "*", "logp_w=-12 logp_l=-30 n_w=4,4 n_l=10", "LengthMismatch", "two counts for one pair",
    .invalid_in = "*" },
  { "*", "logp_w=0 logp_l=-30 n_w=0 n_l=10", "ZeroCount EmptyCompletion",
    "an empty chosen completion, consistently (log-probability 0, count 0): TRL's "
    "get_batch_logps divides by the raw count (0/0 = NaN)", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_orpo[] = {
  { "*", "logp_w=-6 logp_l=-12 n_w=4 n_l=6", "", "per-token means -1.5 and -2" },
  { "*", "logp_w=-2,-30,-0.5 logp_l=-4,-25,-3 n_w=2,10,1 n_l=4,5,3", "Batch SftMean",
    "three pairs of different lengths: the token-mean and per-sequence NLL differ" },
  { "*", "logp_w=-5 logp_l=-15 n_w=5 n_l=15", "ZeroMargin", "equal per-token means: "
    "log_odds 0, losses lambda log 2" },
  { "*", "logp_w=-1e-10 logp_l=-3 n_w=1 n_l=1", "Log1mexp Log1mexpFloat32",
    "a_w = -1e-10: log(1 - e^a) written naively keeps 6 digits, log(-expm1(a)) all; in "
    "binary32 e^a rounds to 1 (trl-float32: TRL's gradient is NaN)", .invalid_in = "trl-float32" },
  { "*", "logp_w=0 logp_l=-2 n_w=3 n_l=2", "CertainChosen",
    "log-probability 0: odds infinite, log_odds +inf, the odds-ratio term exactly 0, its "
    "gradient the one-sided limit (trl-float32: TRL's gradient is NaN)",
    .invalid_in = "trl-float32" },
  { "*", "logp_w=-800 logp_l=-1000 n_w=1 n_l=1", "Saturated",
    "both odds e^-800 and e^-1000: log_odds = 200, losses lambda e^-200" },
  { "*", "logp_w=-6 logp_l=-12 n_w=4 n_l=6 lambda=0.25", "", "lambda 0.25" },
  { "*", "logp_w=-6 logp_l=0 n_w=4 n_l=6", "CertainRejected",
    "the rejected completion has probability 1: infinite odds, the loss is +inf",
    .invalid_in = "*" },
  { "*", "logp_w=0.5 logp_l=-12 n_w=4 n_l=6", "PositiveLogProb",
    "a log-probability above 0", .invalid_in = "*" },
  { "*", "logp_w=-6 logp_l=-12 n_w=4 n_l=0", "ZeroCount", "a completion of no tokens",
    .invalid_in = "*" },
  { "*", "logp_w=-6 logp_l=-12 n_w=4 n_l=6 lambda=-0.1", "OutOfDomain", "lambda < 0",
    .invalid_in = "*" },
  { "*", "logp_w=-inf logp_l=-12 n_w=4 n_l=6", "NonFinite", "infinite log-probability",
    .invalid_in = "*" },
  { "*", "logp_w= logp_l= n_w= n_l=", "EmptyBatch", "no pairs", .invalid_in = "*" },
  { "*", "logp_w=-6,-1 logp_l=-12 n_w=4 n_l=6", "LengthMismatch",
    "two chosen log-probabilities for one rejected", .invalid_in = "*" },
  { "*", "logp_w=-1e-8 logp_l=-3 n_w=1 n_l=1", "Log1mexpFloat32",
    "a_w = -1e-8: harmless in binary64 (no flag of the exact conventions applies), but e^a "
    "rounds to 1 in binary32, where TRL computes after its .float() cast: its gradient is NaN "
    "at either input dtype (trl-float32 refuses it)", .invalid_in = "trl-float32" },
  { "*", "logp_w=0 logp_l=-12 n_w=0 n_l=6", "ZeroCount EmptyCompletion",
    "an empty chosen completion, consistently (log-probability 0, count 0): TRL's "
    "get_batch_logps divides by the raw count (0/0 = NaN)", .invalid_in = "*" },
  RL_END,
};

/* --- notes --------------------------------------------------------------- */

static const rl_note n_dpo[] = {
  { "Detector", "CONVENTION",
    "A detector from CONVENTIONS.md (DPO family) or FORMULAS.md (DPO-LOSS): the conventions give "
    "visibly different values. The log-probabilities (-10, -12, -11, -11.5) are logp_w, ref_w, "
    "logp_l, ref_l, so D = 2 - 0.5 = 1.5." },
  { "SeedErratum", "CONVENTION",
    "Seed 003's prose defines r_w = beta log(pi(y_w)/pi_ref(y_w)) and then writes the loss "
    "-log sigma(beta (r_w - r_l)), so beta enters squared; its derivation and its pseudo-code "
    "(r_w = log pi - log pi_ref) apply beta once, as seed 000 (13.21) does. Variant "
    "seed-003-prose carries the squared reading." },
  { "ZeroMargin", "EDGE_CASE", "The margin is exactly 0 (policy equal to reference, or equal "
    "per-token means)." },
  { "Batch", "PROPERTY", "Several pairs: the loss is the mean over pairs and each gradient "
    "carries the factor 1/B." },
  { "HingeKink", "EDGE_CASE",
    "beta D = 1 exactly: max(0, 1 - beta D) has a kink; the loss is 0 and its derivative is "
    "taken as 0, as relu'(0) = 0 in PyTorch. An implementation testing beta D <= 1 gives -beta." },
  { "Saturated", "NUMERICAL",
    "A sigmoid of the loss is saturated (argument 40 or more in magnitude): a loss, weight or "
    "term is below 1e-16 of its scale, or below the binary64 range (e^-1000), and is written "
    "with its exact value." },
  { "NaiveOverflowFloat32", "NUMERICAL",
    "log(1 + e^x) written naively overflows in binary32 (x > 88.72); the stable softplus does not." },
  { "NaiveOverflow", "NUMERICAL", "log(1 + e^x) written naively overflows in binary64 "
    "(x > 709.78); the stable softplus does not." },
  { "Extreme", "NUMERICAL", "Log-probabilities of magnitude 1e6: only stable forms survive." },
  { "WrongWay", "EDGE_CASE",
    "The implicit rewards rank the pair (or the example) the wrong way by a wide margin: the "
    "weight sigma(r_l - r_w) or the loss is within 1e-16 of its maximum." },
  { "LengthBias", "CONVENTION",
    "Completions of different lengths: sums and per-token means of log-probabilities rank the "
    "pairs differently." },
  { "LengthNormalised", "PROPERTY", "Per-token means equal although the sums differ." },
  { "KLClamped", "CONVENTION",
    "The KL estimate mean_j (kl_logp_j - kl_ref_j) is negative: z0 is clamped to 0 (TRL and "
    "OpenRLHF clamp(min=0)); an implementation without the clamp gives other losses." },
  { "KLZero", "EDGE_CASE", "The KL estimate is exactly 0, the kink of max(0, .)." },
  { "OneMinusSigmoid", "NUMERICAL",
    "1 - sigma(x) formed by subtraction, as TRL (kto_trainer.py:1563, 1580: 1 - F.sigmoid(...)) "
    "and OpenRLHF's KTOLoss write it, keeps only the absolute accuracy of sigma(x) near 1: about "
    "3 digits of 1 - sigma(30) = 9.4e-14, none beyond x = 37, where it is 0 in binary64; the "
    "exact value sigma(-x) is given: such an implementation fails this case by its relative "
    "error, although its absolute error is below 1e-16." },
  { "SftMean", "CONVENTION",
    "The SFT term: one mean over every chosen token of the batch (TRL's CrossEntropyLoss) or "
    "the mean over pairs of each completion's per-token mean; they differ when lengths differ." },
  { "Log1mexp", "NUMERICAL",
    "log(1 - e^a) for a near 0: log1p(-e^a) or log(1 - e^a) loses the digits of a; "
    "log(-expm1(a)) keeps them (Maechler's two branches, split at -log 2)." },
  { "CertainChosen", "EDGE_CASE",
    "A chosen completion of log-probability 0 (probability 1): its odds are infinite, log_odds "
    "is +inf and the odds-ratio term is exactly 0; d/dlogp_w is the one-sided limit "
    "-lambda e^{lo(a_l)}/(B n_w) plus the NLL term (log-probabilities cannot exceed 0). TRL "
    "computes the same loss but a NaN gradient there (log(-expm1(0)) = -inf times 0): "
    "trl-float32 refuses the case (ERANGE)." },
  { "CertainRejected", "INVALID_INPUT",
    "A rejected completion of probability 1: its odds are infinite and the loss is +inf." },
  { "PositiveLogProb", "INVALID_INPUT", "A log-probability above 0 is not one: log(1 - e^a) "
    "is undefined." },
  { "ZeroCount", "INVALID_INPUT",
    "A token count of 0 in DPO-SIMPO or DPO-ORPO. TRL's CPOTrainer and ORPOTrainer divide the "
    "summed log-probability by loss_mask.sum(-1) without a clamp (cpo_trainer.py:787, "
    "orpo_trainer.py:744): an empty completion gives 0/0 = NaN; the conventions refuse it "
    "(EDOM)." },
  { "ZeroCountClamped", "EDGE_CASE",
    "A token count of 0 in a pairwise formula. TRL's DPOTrainer divides each log-ratio by "
    "completion_mask.sum(dim=1).clamp(min=1.0) (dpo_trainer.py:1447-1448, 1553-1554): a count of "
    "0 counts as 1, and the per-token conventions (ipo-mean, sigmoid-norm) do so; the others do "
    "not read counts." },
  { "EmptyCompletion", "EDGE_CASE",
    "A completion of no tokens given consistently: log-probability 0 and count 0. TRL's "
    "DPOTrainer clamps the count and gives a finite loss; its CPOTrainer and ORPOTrainer give "
    "0/0 = NaN (refused there, ZeroCount)." },
  { "NegativeCount", "INVALID_INPUT", "A negative token count: no completion has one (EDOM)." },
  { "RobustEpsAboveHalf", "EDGE_CASE",
    "Robust DPO with 1/2 < eps <= 1: TRL's DPOTrainer.__init__ only warns outside [0, 0.5) "
    "(dpo_trainer.py:774) and computes the loss, whose denominator 1 - 2 eps is negative." },
  { "Log1mexpFloat32", "NUMERICAL",
    "A per-token mean a within 2^-25 of 0: e^a rounds to 1 in binary32. TRL's ORPO casts the "
    "means to float32 (orpo_trainer.py:694-695, for float64 inputs too) and its log1mexp "
    "evaluates both torch.where branches (lines 88-92): the unused log1p(-exp(a)) is -inf and its "
    "backward 0/0, so its gradient is NaN. The exact value is finite; trl-float32 refuses the "
    "case (ERANGE)." },
  { "BadLabel", "INVALID_INPUT", "A desirability label other than 1 and 0." },
  RL_END,
};

/* --- axes --------------------------------------------------------------- */

/* The per-token mean in place of the summed log-ratio, or back: a pairwise
 * convention with D_tok for D (sigmoid -> sigmoid-norm, ipo-sum ->
 * ipo-mean, hinge, cdpo, robust and seed 003's reading per token), or
 * with D for D_tok. */
static int
axis_per_token (const rl_variant *base, rl_variant *out, void *scratch, char *label,
                size_t size)
{
  const rlref_dpo_convention *c = base->data;
  rlref_dpo_convention *m = scratch;
  if (c == NULL || base->io != &io_pair)
    return -1;
  *out = *base;
  *m = *c;
  m->per_token = !c->per_token;
  out->data = m;
  snprintf (label, size, "%s", c->per_token
            ? "the summed log-ratios D in place of the per-token means D_tok"
            : "the per-token mean log-ratios D_tok (each divided by its token count) in place "
              "of the summed D");
  return 0;
}

static const rl_axis dpo_pair_axes[] = {
  { "per-token", axis_per_token },
  { NULL, NULL },
};

/* --- formulas ------------------------------------------------------------ */

static rl_formula formulas[] = {
  { "DPO-LOSS", "DPO loss on given log-probabilities, under every pairwise convention",
    "000 (13.21); 003",
    "D = (logp_w − ref_w) − (logp_l − ref_l) (summed log-probs), D_tok = (logp_w − ref_w)/n_w − (logp_l − ref_l)/n_l; "
    "loss = (1/B) Σ l(D_i), l of the variant: −log σ(βD) (13.21), −log σ(β²D) (seed 003 "
    "prose), hinge, cDPO, robust, IPO summed or per-token, sigmoid per-token; gradients in the "
    "policy log-probs; rewards β(logp − ref)", NULL, c_loss, n_dpo, .axes = dpo_pair_axes },
  { "DPO-GRAD", "DPO gradient and its weight sigma(r_l - r_w)", "000 (13.22)",
    "w_i = σ(r_l − r_w) = σ(−βD_i), r = β(logp − ref) (13.18); ∂L/∂logp_w,i = −βw_i/B, "
    "∂L/∂logp_l,i = βw_i/B (13.22); seed 003's prose with β²", NULL, c_grad, n_dpo },
  { "DPO-CDPO", "conservative (label-smoothed) and robust DPO", "000 section 10.1",
    "cDPO −(1−ε) log σ(βD) − ε log σ(−βD); robust [−(1−ε) log σ(βD) + ε log σ(−βD)]/(1−2ε), "
    "ε ≠ 1/2", NULL, c_cdpo, n_dpo },
  { "DPO-IPO", "IPO squared loss", "000 section 4 (named; formula from the IPO paper and "
    "CONVENTIONS.md)",
    "(D − 1/(2β))², D summed (`ipo-sum`, OpenRLHF) or per-token D_tok (`ipo-mean`, TRL)",
    NULL, c_ipo, n_dpo },
  { "DPO-KTO", "KTO losses of desirable and undesirable completions with reference point z0",
    "000 section 4 (named; formula from the KTO paper and CONVENTIONS.md)",
    "z0 = max(0, mean(kl_logp − kl_ref)), detached; desirable w_d(1 − σ(β(r − z0))), "
    "undesirable w_u(1 − σ(β(z0 − r))), r = logp − ref; mean over completions",
    NULL, c_kto, n_dpo },
  { "DPO-SIMPO", "SimPO: length-normalised, reference-free, margin gamma",
    "000 section 4 (named; formula from the SimPO paper and CONVENTIONS.md)",
    "−log σ(β(logp_w/n_w − logp_l/n_l) − γ), γ = β·gamma_beta_ratio (SimPO) or simpo_gamma "
    "(TRL); plus α·NLL (token mean of the chosen)", NULL, c_simpo, n_dpo },
  { "DPO-ORPO", "ORPO: SFT NLL plus the odds-ratio term",
    "000 section 4 (named; formula from the ORPO paper and CONVENTIONS.md)",
    "NLL(y_w) − λ log σ(lo(a_w) − lo(a_l)), lo(a) = a − log(1 − eᵃ), a = logp/n; NLL a token "
    "mean (`trl`, exact or as TRL computes it in binary32, `trl-float32`) or a mean of "
    "per-sequence means (`seq-mean`)", NULL, c_orpo, n_dpo },
  RL_END,
};

/* The formulas' variants: one per row of the library's table
 * (rlref_dpo_conventions), each on the io of its part and precision. */
static const rl_io *const ios[] = {
  &io_pair, &io_grad, &io_kto, &io_simpo, &io_orpo, &io_orpo_f32, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_dpo_conventions, f->id, ios, NULL);
}

RL_FAMILY (dpo) = {
  .name = "dpo",
  .title = "DPO family: preference losses on log-probabilities",
  .rank = 4,
  .formulas = formulas,
  .init = init,
};
