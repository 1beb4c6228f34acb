/* grpoobj.c -- the GRPO objective family: the GRPO objective with both KL
 * placements (13.24-13.26) and CISPO, loss aggregation, Dr.GRPO in three
 * readings, GSPO, GMPO and GFPO (seed 000 section 5 and 11; seed 003; seed
 * 004; CONVENTIONS.md "Ratio and clipping", "Loss aggregation"): inputs,
 * outputs, variants (one per convention of the seeds and libraries, read
 * from their code), golden cases and notes.
 *
 * The libraries read: TRL trl/trainer/grpo_trainer.py (_compute_loss, loss
 * types grpo, bnpo, dr_grpo, dapo, cispo; importance_sampling_level
 * "sequence") and grpo_config.py (defaults); verl
 * verl/trainer/ppo/core_algos.py (agg_loss, compute_policy_loss_gspo,
 * compute_policy_loss_geo_mean, compute_policy_loss_cispo).
 * The variants are the rows of the library's table
 * (reference/src/grpoobj/grpoobj_conventions.c). */
#include <stdio.h>
#include <string.h>
#include "rlref/grpoobj.h"
#include "family.h"

RL_EVAL_DECL (grpo_obj);
RL_EVAL_DECL (grpo_agg);
RL_EVAL_DECL (grpo_dr);
RL_EVAL_DECL (grpo_gspo);
RL_EVAL_DECL (grpo_gmpo);
RL_EVAL_DECL (grpo_means);
RL_EVAL_DECL (grpo_gfpo);

#define IN_LOGP { "logp", RL_REAL_ARRAY, "log pi_theta(y_t | s_t) of every token of the G " \
    "sequences, laid out one sequence after another" }
#define IN_OLD { "old_logp", RL_REAL_ARRAY, "log pi_old(y_t | s_t), the policy that sampled", \
    .same_len_as = "logp" }
#define IN_LENS { "lens", RL_INT_ARRAY, "the number of tokens of each sequence (>= 1), adding " \
    "up to the tokens" }
#define IN_MASK(of) { "mask", RL_INT_ARRAY, "1 for a token that counts, 0 for padding; every " \
    "sequence needs a 1; other entries are refused", .same_len_as = of }
#define IN_ADV { "adv", RL_REAL_ARRAY, "the advantage A_i of each sequence, shared by its " \
    "tokens", .same_len_as = "lens" }

/* --- GRPO-OBJ ---------------------------------------------------------- */

static const rl_io io_obj = {
  .in = (const rl_input[]) {
    IN_LOGP, IN_OLD,
    { "ref_logp", RL_REAL_ARRAY, "log pi_ref(y_t | s_t), the frozen reference",
      .same_len_as = "logp" },
    IN_LENS, IN_ADV, IN_MASK ("logp"),
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "-J, J the objective of the variant (13.24 with the KL where it places it)" },
    { "kl", "the KL term before beta: k3 (13.26) averaged as the variant places it" },
    { "grad", "d loss / d logp_t (0 at masked tokens; 0 from a clipped term where the clip "
      "binds)", .len_of = "logp" },
    RL_END },
  RL_EVALS (grpo_obj), .part = "objective",
};

/* Three sequences of 2, 3 and 1 tokens; log-ratios 0.25, 0.325, -0.5, 1.35,
 * 0.125, 0.375: with eps 0.2 the first two and the last are clipped above
 * (A > 0), the third below (A < 0), the fourth (A < 0, rho = 3.86) and the
 * fifth are not. */
#define LP "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1.25,-0.625,-1.5,-2.25,0.375,-0.5"
#define REF " ref_logp=-0.875,-0.5,-2.125,-1,0.25,-0.25"
#define SEQ " lens=2,3,1"
#define ADV " adv=0.75,-0.8,1.5"
#define ALL6 " mask=1,1,1,1,1,1"
#define V_EPSLOW "seed-000,seed-003,cispo-verl"

static const rl_case c_obj[] = {
  { "*", LP REF SEQ ADV ALL6, "Batch",
    "three sequences of 2, 3, 1 tokens, both signs of A, clipped above, below and not at all" },
  { "*", LP REF SEQ ADV " mask=1,1,1,0,1,1", "Padding",
    "the same with the fourth token (of the second sequence) masked: n_2 = 2" },
  { "*", "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1,-0.3,-2,-0.9,0.5,-0.125" REF SEQ ADV ALL6,
    "OnPolicy", "logp = old_logp: rho = 1, nothing clipped; the KL term alone differs" },
  { "*", LP " ref_logp=-1,-0.3,-2,-0.9,0.5,-0.125" SEQ ADV ALL6, "AtReference",
    "ref_logp = logp: every k3 is 0" },
  { "*", "logp=-1.0000000001,-2 old_logp=-1,-2 ref_logp=-1,-2.0000000002 lens=2 adv=1 mask=1,1",
    "K3Cancellation", "k = -1e-10 and 2e-10: k3 ~ k^2/2 = 5e-21, lost by e^{-k} - 1 + k" },
  { "*", LP REF SEQ ADV ALL6 " beta=0.5", "", "a large beta: the KL placement shows" },
  { "*", "logp=-0.5,-1.5,-0.25 old_logp=-0.75,-1.25,-0.25 ref_logp=-0.5,-1,-0.5 lens=3 adv=-1 "
    "mask=1,1,1", "SingleSequence", "G = 1" },
  { "*", "logp=3,-1 old_logp=0,-1 ref_logp=2,-1 lens=1,1 adv=1,-1 mask=1,1", "CispoCap",
    "rho = e^3 = 20.1 with A > 0: TRL's CISPO caps the weight at 5, verl's clips it to 1.2, "
    "the clipped surrogate stops at 1.2 with no gradient" },
  { "*", "logp=-1,-2 old_logp=-1,-2 ref_logp=-14,-2.5 lens=1,1 adv=1,-1 mask=1,1", "KLCap",
    "k = logp - ref = 13: k3 = e^-13 + 12 = 12.0000023 unclamped (the seeds, TRL), capped "
    "at 10 with no gradient by verl's low_var_kl and OpenRLHF's estimate" },
  { V_EPSLOW, "logp=-1,-2 old_logp=-1,-2 ref_logp=-1.5,-2 lens=1,1 adv=1,-1 mask=1,1 eps_low=0 "
    "eps_high=0", "ZeroClipRange", "eps 0: rho = 1 sits on both bounds of the clip" },
  { "*", LP REF SEQ ADV " mask=1,1,1,2,1,1", "MaskNotBinary", "a mask entry 2",
    .invalid_in = "*" },
  { "*", LP REF SEQ ADV " mask=1,1,0,0,0,1", "EmptySequence",
    "the second sequence has no token in the mask: its 1/n_i is 1/0", .invalid_in = "*" },
  { "*", LP REF " lens=2,4,0" ADV ALL6, "EmptySequence", "a sequence of length 0",
    .invalid_in = "*" },
  { "*", LP REF " lens=2,3,2" ADV ALL6, "LengthMismatch", "lengths adding up to 7, not 6",
    .invalid_in = "*" },
  { "*", LP REF SEQ " adv=0.75,-0.8" ALL6, "LengthMismatch", "two advantages for three "
    "sequences", .invalid_in = "*" },
  { "*", LP REF SEQ ADV " mask=1,1,1,1,1", "LengthMismatch", "a mask of five for six tokens",
    .invalid_in = "*" },
  { "*", "logp=-1,nan old_logp=-1,-2 ref_logp=-1,-2 lens=2 adv=1 mask=1,1", "NonFinite",
    "a NaN log-probability", .invalid_in = "*" },
  { "*", "logp=-1,-2 old_logp=-inf,-2 ref_logp=-1,-2 lens=2 adv=1 mask=1,1", "NonFinite",
    "an infinite old log-probability", .invalid_in = "*" },
  { "*", "logp= old_logp= ref_logp= lens= adv= mask=", "EmptyBatch", "no token",
    .invalid_in = "*" },
  { V_EPSLOW, LP REF SEQ ADV ALL6 " eps_low=-0.1", "OutOfDomain", "eps_low < 0",
    .invalid_in = "*" },
  { V_EPSLOW, LP REF SEQ ADV ALL6 " eps_low=1", "OutOfDomain",
    "eps_low = 1: the lower bound 1 - eps_low is 0", .invalid_in = "*" },
  { "*", LP REF SEQ ADV ALL6 " eps_high=-0.2", "OutOfDomain", "eps_high < 0",
    .invalid_in = "*" },
  { "*", LP REF SEQ ADV ALL6 " beta=-0.04", "OutOfDomain", "beta < 0", .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-AGG ---------------------------------------------------------- */

#define AGG_IN { "L", RL_REAL_ARRAY, "the per-token losses of the G sequences, one sequence " \
    "after another" }, IN_LENS, IN_MASK ("L")
#define AGG_OUT (const rl_output[]) {                                           \
    { "value", "the aggregated loss, sum_t w_t L_t" },                           \
    { "weights", "w_t = d value / d L_t, the weight of each token (0 where masked)", \
      .len_of = "L" },                                                          \
    RL_END }

static const rl_io io_agg = {
  .in = (const rl_input[]) { AGG_IN, RL_END }, .out = AGG_OUT,
  RL_EVALS (grpo_agg), .part = "aggregate",
};
static const rl_io io_agg_micro = {
  .in = (const rl_input[]) { AGG_IN,
    { "micro", RL_INT, "sequences per micro-batch (dividing G): micro-batch k holds sequences "
      "k micro to (k + 1) micro - 1" },
    RL_END },
  .out = AGG_OUT, RL_EVALS (grpo_agg), .part = "aggregate-micro",
};

#define V_AGG "token-mean,seq-mean-token-mean,seq-mean-token-sum,group-mean-length,token-sum," \
  "seq-mean-token-sum-norm-width,seq-mean-token-mean-nonempty"
#define V_NORM "seq-mean-token-sum-norm,seq-mean-token-sum-norm-no-b"
#define V_MICRO "micro-batch-token-mean,global-token-mean"
#define DET "L=2,1,1,1 lens=1,3 mask=1,1,1,1"
#define L6 "L=0.5,-1.25,2,0.75,3,-0.5 lens=2,3,1"

/* An empty sequence (a response without a token in the mask, or a row of
 * padding) is valid under every mode: it weighs 0; the token mean, the
 * token sum, the group-mean length and the sum-norm without B do not see it;
 * the seq-mean modes count it in B (verl's trainer, TRL), the non-empty mean
 * does not (OpenRLHF); the per-micro-batch mean counts an empty micro-batch
 * in K (TRL bnpo's clamp(min=1)).  The libraries differ here, so the case
 * is valid under each: it separates them. */

#define AGG_BAD(vs, extra)                                                      \
  { vs, L6 " mask=1,1,2,1,1,1" extra, "MaskNotBinary", "a mask entry 2", .invalid_in = "*" }, \
  { vs, L6 " mask=1,1,0,0,0,1" extra, "EmptyResponse",                          \
    "the second sequence has no token in the mask: it weighs 0; B counts it (verl's trainer, " \
    "TRL) or not (OpenRLHF's sample-level)" },                                  \
  { vs, "L=0.5,-1.25,2,0.75,3,-0.5 lens=2,4,0 mask=1,1,1,1,1,1" extra, "EmptyResponse", \
    "a sequence of length 0 (a row of padding): as one without a token" },     \
  { vs, "L=0.5,-1.25,2,0.75,3,-0.5 lens=2,3 mask=1,1,1,1,1,1" extra, "LengthMismatch", \
    "lengths adding up to 5, not 6", .invalid_in = "*" },                       \
  { vs, "L=0.5,inf,2,0.75,3,-0.5 lens=2,3,1 mask=1,1,1,1,1,1" extra, "NonFinite", \
    "an infinite loss", .invalid_in = "*" },                                    \
  { vs, "L= lens= mask=" extra, "EmptyBatch", "no token", .invalid_in = "*" }

static const rl_case c_agg[] = {
  { V_AGG, DET, "Detector",
    "CONVENTIONS L = [[2], [1, 1, 1]]: token-mean 1.25, seq-mean-token-mean 1.5, "
    "seq-mean-token-sum 2.5 (003's token sum 5; the group-mean length equals the token mean); "
    "over the padded width 3: 5/6" },
  { V_NORM, DET " L_const=4", "Detector",
    "CONVENTIONS L = [[2], [1, 1, 1]], L_const = 4: 0.625, or 1.25 when B is forgotten" },
  { V_AGG "," V_NORM, L6 " mask=1,1,1,1,1,1", "Batch",
    "three sequences of 2, 3, 1 tokens, losses of both signs" },
  { V_AGG "," V_NORM, L6 " mask=1,0,1,1,0,1", "Padding",
    "two masked tokens: n = 1, 2, 1" },
  { V_AGG "," V_NORM, "L=0.1,0.2,0.30000000000000004 lens=3 mask=1,1,1", "SingleSequence",
    "one sequence: every mode is its mean, its sum, or their rescaling" },
  AGG_BAD (V_AGG "," V_NORM, ""),
  { V_NORM, DET " L_const=0", "OutOfDomain", "L_const = 0", .invalid_in = "*" },
  { V_MICRO, DET " micro=1", "Detector",
    "micro-batches of one sequence: the mean of 2 and 1 = 1.5 (seq-mean-token-mean) per "
    "micro-batch; the batch's token mean 1.25 with the global count" },
  { V_MICRO, DET " micro=2", "Detector",
    "one micro-batch of both: the token mean 1.25" },
  { V_MICRO, "L=2,1,1,1,0.5,-1,3,4,4 lens=1,3,2,3 mask=1,1,1,1,1,1,1,1,1 "
    "micro=2", "MicroBatch",
    "two micro-batches of two sequences, 4 and 5 tokens: (5/4 + 10.5/5)/2 = 1.675, against "
    "the batch token mean 15.5/9 = 1.7222 of the global count" },
  AGG_BAD (V_MICRO, " micro=1"),
  { V_MICRO, DET " micro=3", "OutOfDomain",
    "micro-batches of 3 do not divide 2 sequences", .invalid_in = "*" },
  { V_MICRO, DET " micro=0", "OutOfDomain", "micro = 0", .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-DR ----------------------------------------------------------- */

static const rl_io io_dr = {
  .in = (const rl_input[]) {
    IN_LOGP, IN_OLD, IN_LENS,
    { "rewards", RL_REAL_ARRAY, "the reward r_i of each sequence", .same_len_as = "lens" },
    IN_MASK ("logp"),
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "-J of the reading" },
    { "adv", "the advantage A_i of each sequence under the reading", .len_of = "lens" },
    { "grad", "d loss / d logp_t", .len_of = "logp" },
    RL_END },
  RL_EVALS (grpo_dr), .part = "dr-grpo",
};

#define DR_TOK "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1.25,-0.625,-1.5,-2.25,0.375,-0.5" SEQ

/* A group of one: A = r - r = 0, A = r (verl's mean 0: the raw reward leaks
 * through, acceptable as verl's behaviour), or refused (OpenRLHF). */
static rl_outcome
single_dr (const rl_variant *v)
{
  const rlref_grpo_dr_convention *c = v->data;
  if (c->adv != RLREF_DR_ADV_CENTRED)
    return RL_VALID;
  return c->single == RLREF_DR_SINGLE_REFUSE ? RL_INVALID
    : c->single == RLREF_DR_SINGLE_RAW ? RL_ACCEPTABLE : RL_VALID;
}

static const rl_case c_dr[] = {
  { "*", DR_TOK " rewards=1,0,0.5" ALL6, "Batch",
    "rewards 1, 0, 0.5 for sequences of 2, 3, 1 tokens: A = 0.5, -0.5, 0 without the std" },
  { "*", DR_TOK " rewards=1,0,0.5 mask=1,1,1,0,1,1", "Padding", "the fourth token masked" },
  { "*", DR_TOK " rewards=1,1,1" ALL6, "ZeroVariance",
    "equal rewards: every advantage 0, the loss 0" },
  { "*", "logp=-0.5,-1.5,-0.25,-1 old_logp=-0.75,-1.25,-0.25,-1 lens=1,3 rewards=0,1 "
    "mask=1,1,1,1", "LengthBias",
    "a short wrong answer and a long right one: 000 weighs every token 1/G, 003 1/N, TRL "
    "1/(G L_const)" },
  { "*", DR_TOK " rewards=25,0,5" ALL6, "RewardClip",
    "r - mean = 15, -10, -5: OpenRLHF clips the shaped reward to [-10, 10] (A = 10, -10, -5); "
    "the others keep 15" },
  { "*", "logp=-0.5,-1.5 old_logp=-0.75,-1.25 lens=2 rewards=1 mask=1,1", "SingleSequence",
    "G = 1: the advantage is 0 in every reading; verl's mean 0 leaves A = r (acceptable), "
    "OpenRLHF refuses the group of one", .expect = single_dr },
  { "*", DR_TOK " rewards=1,0,0.5 mask=1,1,3,1,1,1", "MaskNotBinary", "a mask entry 3",
    .invalid_in = "*" },
  { "*", DR_TOK " rewards=1,0,0.5 mask=0,0,1,1,1,1", "EmptySequence",
    "the first sequence has no token in the mask", .invalid_in = "*" },
  { "*", DR_TOK " rewards=1,0" ALL6, "LengthMismatch", "two rewards for three sequences",
    .invalid_in = "*" },
  { "*", DR_TOK " rewards=1,nan,0.5" ALL6, "NonFinite", "a NaN reward", .invalid_in = "*" },
  { "*", DR_TOK " rewards=1,0,0.5" ALL6 " eps_low=1.5", "OutOfDomain", "eps_low >= 1",
    .invalid_in = "*" },
  { "trl", DR_TOK " rewards=1,0,0.5" ALL6 " L_const=-512", "OutOfDomain", "L_const < 0",
    .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-GSPO --------------------------------------------------------- */

static const rl_io io_gspo = {
  .in = (const rl_input[]) { IN_LOGP, IN_OLD, IN_LENS, IN_ADV, IN_MASK ("logp"), RL_END },
  .out = (const rl_output[]) {
    { "loss", "-(1/G) sum_i min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i)" },
    { "s", "s_i = exp((1/n_i) sum_t (logp_t - old_logp_t)) = (pi(y_i)/pi_old(y_i))^{1/|y_i|}",
      .len_of = "lens" },
    { "grad", "d loss / d logp_t = -(1/G) A_i s_i / n_i where s_i A_i is the min, else 0",
      .len_of = "logp" },
    RL_END },
  RL_EVALS (grpo_gspo), .part = "gspo",
};

/* A sequence without a token: counted with a zero term (TRL, verl) or left
 * out (OpenRLHF), both valid (the case separates them); refused by a
 * variant that refuses it. */
static rl_outcome
empty_gspo (const rl_variant *v)
{
  const rlref_grpo_gspo_convention *c = v->data;
  return c->empty == RLREF_GRPO_EMPTY_REFUSE ? RL_INVALID : RL_VALID;
}

#define GS_TOK "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1.25,-0.625,-1.5,-2.25,0.375,-0.5" SEQ

static const rl_case c_gspo[] = {
  { "*", "logp=0.3,-0.1 old_logp=0,0 lens=2 adv=1 mask=1,1", "Detector",
    "CONVENTIONS log-ratios [0.3, -0.1]: s = e^{0.1} = 1.10517 in every library" },
  { "*", GS_TOK ADV ALL6, "Batch", "mean log-ratios 0.2875, 0.325, 0.375: every s clipped" },
  { "*", GS_TOK ADV ALL6 " eps_low=0.2 eps_high=0.5", "",
    "a wide clip range: the second sequence (A < 0) takes the unclipped s A" },
  { "*", "logp=-1,-1.0002,-2,-1.9997 old_logp=-1,-1,-2,-2 lens=2,2 adv=1,-1 mask=1,1,1,1",
    "InsideRange", "mean log-ratios -1e-4 and 1.5e-4: s inside (1 - 3e-4, 1 + 4e-4), the "
    "gradient s A / (G n_i)" },
  { "*", GS_TOK ADV " mask=1,1,1,0,1,1", "Padding", "the fourth token masked" },
  { "*", "logp=25,15,-1 old_logp=0,0,-1 lens=2,1 adv=-1,0.5 mask=1,1,1", "VerlCap",
    "mean log-ratio 20 with A < 0: s = e^20 unclipped; verl caps it at e^10, gradient 0" },
  { "*", "logp=0.3,-0.1 old_logp=0,0 lens=2 adv=-1e308 mask=1,1", "SumOverflow",
    "A = -1e308: the two token terms, -s A = 1.105e308 each, sum beyond binary64; their mean, "
    "the loss, does not (verl's was once inf)" },
  { "*", GS_TOK ADV " mask=1,1,2,1,1,1", "MaskNotBinary", "a mask entry 2", .invalid_in = "*" },
  { "*", GS_TOK ADV " mask=1,1,0,0,0,1", "EmptyResponse",
    "the second sequence has no token in the mask: s = 1, a zero term; TRL and verl count it "
    "in the 1/G mean, OpenRLHF's sample-level mean leaves it out",
    .expect = empty_gspo },
  { "*", GS_TOK " adv=1,-1" ALL6, "LengthMismatch", "two advantages for three sequences",
    .invalid_in = "*" },
  { "*", "logp=nan,-1 old_logp=0,0 lens=2 adv=1 mask=1,1", "NonFinite", "a NaN log-probability",
    .invalid_in = "*" },
  { "*", GS_TOK ADV ALL6 " eps_low=-3e-4", "OutOfDomain", "eps_low < 0", .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-GMPO --------------------------------------------------------- */

static const rl_io io_gmpo = {
  .in = (const rl_input[]) { IN_LOGP, IN_OLD, IN_LENS, IN_ADV, IN_MASK ("logp"), RL_END },
  .out = (const rl_output[]) {
    { "loss", "-(1/G) sum_i A_i ratio_i" },
    { "ratio", "ratio_i = exp((1/n_i) sum_t lm_t), the geometric mean of the sign-aware "
      "clipped token ratios", .len_of = "lens" },
    { "grad", "d loss / d logp_t = -(1/G) A_i ratio_i / n_i where the clip does not bind, "
      "else 0", .len_of = "logp" },
    RL_END },
  RL_EVALS (grpo_gmpo), .part = "gmpo",
};

static const rl_io io_means = {
  .in = (const rl_input[]) {
    { "terms", RL_REAL_ARRAY, "the absolute clipped token terms |min(rho A, clip(rho) A)|, "
      ">= 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "arith", "(1/n) sum terms, GRPO's arithmetic mean" },
    { "geo", "(prod terms)^{1/n}, GMPO's geometric mean" },
    RL_END },
  RL_EVALS (grpo_means), .part = "example",
};

static const rl_case c_gmpo[] = {
  { "seed-example", "terms=1,1,1,10", "SeedExample",
    "003: [1, 1, 1, 10] -> arithmetic 3.25, geometric 10^{1/4} = 1.778" },
  { "seed-example", "terms=0.5,2", "", "geometric mean 1, arithmetic 1.25" },
  { "seed-example", "terms=0,3", "", "a zero term: the geometric mean is 0" },
  { "seed-example", "terms=1,-1", "OutOfDomain", "a negative term (the terms are absolute "
    "values)", .invalid_in = "*" },
  { "gmpo", GS_TOK ADV ALL6, "Batch",
    "log-ratios 0.25, 0.325 | -0.5, 1.35, 0.125 | 0.375: the A < 0 sequence clips -0.5 to "
    "-0.4, nothing else binds" },
  { "gmpo", "logp=1,0.2,-1,-0.2 old_logp=0,0,0,0 lens=2,2 adv=1,-1 mask=1,1,1,1", "ClipBinds",
    "A > 0 clips 1 to 0.4, A < 0 clips -1 to -0.4; 0.2 and -0.2 pass with their gradient" },
  { "gmpo", "logp=1,0.2,-1,-0.2 old_logp=0,0,0,0 lens=2,2 adv=-1,1 mask=1,1,1,1", "",
    "the signs swapped: the bound on the other side, nothing clipped" },
  { "gmpo", "logp=0.4,0 old_logp=0,0 lens=1,1 adv=1,0 mask=1,1", "ZeroAdvantage",
    "a log-ratio exactly at the bound 0.4; A = 0 gives ratio 1 and no gradient" },
  { "gmpo", GS_TOK ADV " mask=1,1,1,0,1,1", "Padding", "the fourth token masked" },
  { "gmpo", GS_TOK ADV " mask=1,0,1,1,1,1 clip_low=0.2 clip_high=0.28", "",
    "a narrower asymmetric range" },
  { "gmpo", GS_TOK ADV " mask=1,1,2,1,1,1", "MaskNotBinary", "a mask entry 2",
    .invalid_in = "*" },
  { "gmpo", GS_TOK ADV " mask=0,0,1,1,1,1", "EmptySequence",
    "the first sequence has no token in the mask", .invalid_in = "*" },
  { "gmpo", "logp=-1,-2 old_logp=-1 lens=2 adv=1 mask=1,1", "LengthMismatch",
    "one old log-probability for two tokens", .invalid_in = "*" },
  { "gmpo", "logp=-1,inf old_logp=0,0 lens=2 adv=1 mask=1,1", "NonFinite",
    "an infinite log-probability", .invalid_in = "*" },
  { "gmpo", GS_TOK ADV ALL6 " clip_low=-0.4", "OutOfDomain", "a negative clip range",
    .invalid_in = "*" },
  RL_END,
};

/* --- GRPO-GFPO --------------------------------------------------------- */

static const rl_io io_gfpo = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "the reward r_i of each of the N sampled responses" },
    { "lens", RL_INT_ARRAY, "the length |o_i| of each response (>= 1)", .same_len_as = "rewards" },
    { "k", RL_INT, "the number of responses kept, 1 to N" },
    RL_END },
  .out = (const rl_output[]) {
    { "keep", "1 for a kept response, 0 for a filtered one", .len_of = "rewards" },
    { "key", "the filter's key: |o_i|, or r_i/|o_i|", .len_of = "rewards" },
    { "mean_kept", "the mean reward of the kept responses (the group baseline of the "
      "retained subset)" },
    RL_END },
  RL_EVALS (grpo_gfpo), .part = "filter",
};

static const rl_case c_gfpo[] = {
  { "*", "rewards=1,0.5,1,0,0.75,1 lens=120,40,80,30,40,200 k=3", "",
    "six responses, keep three: the shortest are 30, 40, 40; by reward per token 1/80, "
    "0.5/40 = 1/80 (a tie: the shorter first), 0.75/40" },
  { "*", "rewards=1,2,0.5 lens=10,20,5 k=2", "Ties",
    "r/|o| = 0.1, 0.1, 0.1: three ties, kept by length (5 and 10 tokens); the shortest by "
    "length alone the same two" },
  { "*", "rewards=0,0,0,0 lens=7,7,7,7 k=2", "Ties", "all equal: the first two indices" },
  { "*", "rewards=0.3,-0.2 lens=3,2 k=2", "", "k = N: everything is kept" },
  { "*", "rewards=1e308,1e308,1e308,-1e308 lens=10,20,30,40 k=3", "",
    "rewards near the top of binary64: the kept three sum to 3e308, beyond it, while their "
    "mean 1e308 is not (it was once inf)" },
  { "*", "rewards=1,0.5 lens=3,2 k=0", "OutOfDomain", "k = 0", .invalid_in = "*" },
  { "*", "rewards=1,0.5 lens=3,2 k=3", "OutOfDomain", "k > N", .invalid_in = "*" },
  { "*", "rewards=1,0.5 lens=3,0 k=1", "EmptySequence", "a response of length 0",
    .invalid_in = "*" },
  { "*", "rewards=1,nan lens=3,2 k=1", "NonFinite", "a NaN reward", .invalid_in = "*" },
  { "*", "rewards=1,0.5 lens=3 k=1", "LengthMismatch", "one length for two rewards",
    .invalid_in = "*" },
  RL_END,
};

/* --- notes --------------------------------------------------------------- */

static const rl_note n_grpoobj[] = {
  { "Detector", "CONVENTION",
    "A detector from CONVENTIONS.md: the aggregation modes on L = [[2], [1, 1, 1]] give 1.25, "
    "1.5, 2.5, 0.625 (1.25 when B is forgotten); GSPO's s on log-ratios [0.3, -0.1] is e^{0.1}." },
  { "SeedExample", "CONVENTION", "A worked example of the seeds (003's GMPO: [1, 1, 1, 10] -> "
    "3.25 and 1.778)." },
  { "Batch", "PROPERTY", "Several sequences of different lengths, both signs of the advantage." },
  { "Padding", "EDGE_CASE", "A masked token: it takes no part in any sum, and n_i counts the "
    "masked-in tokens only." },
  { "OnPolicy", "PROPERTY", "logp = old_logp: every ratio is 1, nothing is clipped." },
  { "AtReference", "PROPERTY", "logp = ref_logp: every k3 is 0." },
  { "SumOverflow", "NUMERICAL", "A loss of binary64 size whose terms sum beyond binary64: "
    "a sum taken before the division by the count overflows to inf (TRL, verl and OpenRLHF "
    "in float64), though the mean does not." },
  { "K3Cancellation", "NUMERICAL", "A log-ratio near 0: e^{-k} - 1 + k ~ k^2/2 cancels to "
    "noise when written directly." },
  { "SingleSequence", "EDGE_CASE", "One sequence (G = 1)." },
  { "CispoCap", "CONVENTION", "A large ratio: CISPO keeps the gradient of the token with its "
    "weight capped (TRL: at eps_high, no lower bound) or clipped (verl: to 1 + eps_high), where "
    "the clipped surrogate gives none." },
  { "ZeroClipRange", "EDGE_CASE", "A clip range of zero width: rho = 1 sits on both bounds." },
  { "ZeroVariance", "EDGE_CASE", "Equal rewards: every advantage is 0, whatever the scaling." },
  { "LengthBias", "CONVENTION", "Sequences of very different lengths: the per-token weight "
    "1/(G |y_i|), 1/N, 1/G or 1/(G L_const) shows." },
  { "InsideRange", "PROPERTY", "Every ratio inside the clip range: the gradient is that of "
    "the unclipped term." },
  { "VerlCap", "CONVENTION", "A mean log-ratio above 10: verl caps it (the value e^10, no "
    "gradient); the others do not." },
  { "ClipBinds", "CONVENTION", "A clip binds: the clipped term is constant and its gradient 0." },
  { "ZeroAdvantage", "EDGE_CASE", "A = 0: the term and its gradient are 0 (GMPO: sgn(A) = 0, "
    "the ratio 1)." },
  { "MicroBatch", "CONVENTION", "Micro-batches of unequal token counts: the mean of their "
    "token means differs from the token mean of the batch." },
  { "Ties", "EDGE_CASE", "Equal keys: the order is decided by length, then by index." },
  { "EmptyResponse", "EDGE_CASE", "A response without a token in the mask, or of length 0 "
    "(a row of padding), in a batch: it weighs nothing; the token mean is that of the other "
    "tokens, while a mean over sequences counts it in B with a zero loss (verl's trainer "
    "global_batch_size, TRL's mean over rows with clamp(min=1)) or leaves it out (OpenRLHF's "
    "sample-level global_batch_size).  Both are conventions (the libraries' code): the case "
    "is valid under each variant and separates them." },
  { "RewardClip", "CONVENTION", "A shaped reward beyond 10: OpenRLHF clips it to "
    "--reward.clip_range [-10, 10] after the baseline (models/utils.py compute_reward); the "
    "others do not." },
  { "KLCap", "CONVENTION", "A k3 estimate above 10: verl's low_var_kl (clamp(kld, -10, 10)) "
    "and OpenRLHF's compute_approx_kl (clamp(-10, 10)) cap it, with no gradient beyond; the "
    "seeds and TRL do not." },
  { "MaskNotBinary", "INVALID_INPUT", "A mask entry other than 0 and 1 (EDOM)." },
  { "EmptySequence", "INVALID_INPUT", "A sequence of length 0 (EINVAL) or one without a token "
    "in the mask (EDOM): its 1/|y_i| is 1/0." },
  RL_END,
};

/* --- axes: the departures rlref check searches (rl_axis) ----------------- */

_Static_assert (sizeof (rlref_grpo_obj_convention) <= RL_AXIS_SCRATCH
                && sizeof (rlref_grpo_agg_convention) <= RL_AXIS_SCRATCH
                && sizeof (rlref_grpo_dr_convention) <= RL_AXIS_SCRATCH,
                "a moved convention fits the axis scratch");

/* The name of an aggregation mode, with its per-token weight. */
static const char *
mode_name (enum rlref_grpo_agg_mode m)
{
  switch (m)
    {
    case RLREF_AGG_TOKEN_MEAN: return "token-mean (1/N)";
    case RLREF_AGG_SEQ_MEAN_TOKEN_MEAN: return "seq-mean-token-mean (1/(B n_i))";
    case RLREF_AGG_SEQ_MEAN_TOKEN_SUM: return "seq-mean-token-sum (1/B)";
    case RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM: return "seq-mean-token-sum-norm (1/(B L_const))";
    case RLREF_AGG_SUM_NORM_NO_B: return "seq-mean-token-sum-norm without B (1/L_const)";
    case RLREF_AGG_GROUP_MEAN_LENGTH: return "the group-mean length (1/N)";
    case RLREF_AGG_TOKEN_SUM: return "token-sum (1)";
    case RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH: return "seq-mean-token-sum-norm over the "
        "padded width (1/(B T))";
    default: return "another mode";
    }
}

/* "TO in place of FROM", and 1/|y| missing when a per-sequence sum takes the
 * place of the per-sequence mean. */
static void
mode_label (char *label, size_t size, enum rlref_grpo_agg_mode to, enum rlref_grpo_agg_mode from)
{
  snprintf (label, size, "%s in place of %s%s", mode_name (to), mode_name (from),
            to == RLREF_AGG_SEQ_MEAN_TOKEN_SUM && from == RLREF_AGG_SEQ_MEAN_TOKEN_MEAN
            ? ": 1/|y| missing" : "");
}

/* Whether variant base has a parameter called name. */
static int
has_param (const rl_variant *base, const char *name)
{
  for (size_t p = 0; base->params[p].name; p++)
    if (strcmp (base->params[p].name, name) == 0)
      return 1;
  return 0;
}

/* GRPO-AGG: base's mode replaced by to (the per-micro-batch mean aside;
 * the sum-norm modes only where base has L_const). */
static int
agg_to (enum rlref_grpo_agg_mode to, const rl_variant *base, rl_variant *out, void *scratch,
        char *label, size_t size)
{
  const rlref_grpo_agg_convention *c = base->data;
  rlref_grpo_agg_convention *m = scratch;
  size_t np = rl_n_params (base);
  int add_lc = to == RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM && !has_param (base, "L_const");
  if (c == NULL || c->micro == RLREF_AGG_MICRO_LOCAL || c->mode == to
      || (c->mode == RLREF_AGG_GROUP_MEAN_LENGTH && to == RLREF_AGG_TOKEN_MEAN)
      || (add_lc && np >= RL_MAX_PARAMS))
    return -1;
  *out = *base;
  *m = *c;
  m->mode = to;
  out->data = m;
  if (add_lc)
    {
      /* the sum-norm's L_const, 512 as the libraries' default (an input) */
      out->params[np] = (rl_param) { "L_const", 512.0, 0, 1 };
      out->params[np + 1] = (rl_param) { NULL, 0.0, 0, 0 };
    }
  mode_label (label, size, to, c->mode);
  if (add_lc)
    snprintf (label + strlen (label), size - strlen (label), ", L_const 512");
  return 0;
}

/* GRPO-AGG: the seq-mean-token-mean over the sequences with a token
 * (OpenRLHF's sample-level) in place of base's mode. */
static int
agg_smtm_ne (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size)
{
  const rlref_grpo_agg_convention *c = base->data;
  rlref_grpo_agg_convention *m = scratch;
  if (c == NULL || c->micro == RLREF_AGG_MICRO_LOCAL
      || (c->mode == RLREF_AGG_SEQ_MEAN_TOKEN_MEAN && c->skip_empty))
    return -1;
  *out = *base;
  *m = *c;
  m->mode = RLREF_AGG_SEQ_MEAN_TOKEN_MEAN;
  m->skip_empty = 1;
  out->data = m;
  snprintf (label, size, "seq-mean-token-mean over the sequences with a token (1/(B' n_i)) "
            "in place of %s", c->mode == RLREF_AGG_SEQ_MEAN_TOKEN_MEAN
            ? "the mean over every sequence (1/(B n_i))" : mode_name (c->mode));
  return 0;
}

/* GRPO-OBJ: the policy term's aggregation replaced by to (the reported kl's
 * with it where they were the same). */
static int
obj_to (enum rlref_grpo_agg_mode to, const rl_variant *base, rl_variant *out, void *scratch,
        char *label, size_t size)
{
  const rlref_grpo_obj_convention *c = base->data;
  rlref_grpo_obj_convention *m = scratch;
  if (c == NULL || c->agg == to)
    return -1;
  *out = *base;
  *m = *c;
  m->agg = to;
  if (c->kl_agg == c->agg)
    m->kl_agg = to;
  out->data = m;
  mode_label (label, size, to, c->agg);
  return 0;
}

/* GRPO-DR: the token weight's normalisation replaced by to. */
static int
dr_to (enum rlref_grpo_agg_mode to, const rl_variant *base, rl_variant *out, void *scratch,
       char *label, size_t size)
{
  const rlref_grpo_dr_convention *c = base->data;
  rlref_grpo_dr_convention *m = scratch;
  size_t np = rl_n_params (base);
  int add_lc = to == RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM && !has_param (base, "L_const");
  if (c == NULL || c->agg == to
      || (c->agg == RLREF_AGG_GROUP_MEAN_LENGTH && to == RLREF_AGG_TOKEN_MEAN)
      || (add_lc && np >= RL_MAX_PARAMS))
    return -1;
  *out = *base;
  *m = *c;
  m->agg = to;
  out->data = m;
  if (add_lc)
    {
      out->params[np] = (rl_param) { "L_const", 512.0, 0, 1 };
      out->params[np + 1] = (rl_param) { NULL, 0.0, 0, 0 };
    }
  snprintf (label, size, "the weight of %s in place of %s",
            to == RLREF_AGG_SEQ_MEAN_TOKEN_SUM ? "seq-mean-token-sum (1/G)" : mode_name (to),
            c->agg == RLREF_AGG_SEQ_MEAN_TOKEN_SUM ? "seq-mean-token-sum (1/G)"
            : mode_name (c->agg));
  return 0;
}

#define MODE_AXIS(fn, kind, to)                                                     \
  static int                                                                       \
  fn (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size) \
  {                                                                                \
    return kind (to, base, out, scratch, label, size);                              \
  }
MODE_AXIS (agg_tm, agg_to, RLREF_AGG_TOKEN_MEAN)
MODE_AXIS (agg_smtm, agg_to, RLREF_AGG_SEQ_MEAN_TOKEN_MEAN)
MODE_AXIS (agg_smts, agg_to, RLREF_AGG_SEQ_MEAN_TOKEN_SUM)
MODE_AXIS (agg_norm, agg_to, RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM)
MODE_AXIS (agg_width, agg_to, RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH)
MODE_AXIS (agg_sum, agg_to, RLREF_AGG_TOKEN_SUM)
MODE_AXIS (obj_tm, obj_to, RLREF_AGG_TOKEN_MEAN)
MODE_AXIS (obj_smtm, obj_to, RLREF_AGG_SEQ_MEAN_TOKEN_MEAN)
MODE_AXIS (obj_smts, obj_to, RLREF_AGG_SEQ_MEAN_TOKEN_SUM)
MODE_AXIS (obj_sum, obj_to, RLREF_AGG_TOKEN_SUM)
MODE_AXIS (dr_smts, dr_to, RLREF_AGG_SEQ_MEAN_TOKEN_SUM)
MODE_AXIS (dr_tm, dr_to, RLREF_AGG_TOKEN_MEAN)
MODE_AXIS (dr_norm, dr_to, RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM)
MODE_AXIS (dr_width, dr_to, RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH)

/* GRPO-OBJ: the capped estimate's gradient that of k2 (verl's "k3+"). */
static int
obj_k2_grad (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size)
{
  const rlref_grpo_obj_convention *c = base->data;
  rlref_grpo_obj_convention *m = scratch;
  if (c == NULL || c->kl != RLREF_GRPO_KL_K3_CAP)
    return -1;
  *out = *base;
  *m = *c;
  m->kl = RLREF_GRPO_KL_K3_CAP_K2_GRAD;
  out->data = m;
  snprintf (label, size, "the KL term's gradient that of k2 = k^2/2 (verl's \"k3+\" "
            "straight-through estimate) in place of k3's");
  return 0;
}

static const rl_axis agg_axes[] = {
  { "token-mean", agg_tm },
  { "seq-mean-token-mean", agg_smtm },
  { "seq-mean-token-sum", agg_smts },
  { "seq-mean-token-sum-norm", agg_norm },
  { "seq-mean-token-sum-norm-width", agg_width },
  { "token-sum", agg_sum },
  { "seq-mean-token-mean-nonempty", agg_smtm_ne },
  { NULL, NULL },
};

static const rl_axis obj_axes[] = {
  { "token-mean", obj_tm },
  { "seq-mean-token-mean", obj_smtm },
  { "seq-mean-token-sum", obj_smts },
  { "token-sum", obj_sum },
  { "k2-gradient", obj_k2_grad },
  { NULL, NULL },
};

static const rl_axis dr_axes[] = {
  { "seq-mean-token-sum", dr_smts },
  { "token-mean", dr_tm },
  { "seq-mean-token-sum-norm", dr_norm },
  { "seq-mean-token-sum-norm-width", dr_width },
  { NULL, NULL },
};

/* --- formulas ------------------------------------------------------------ */

static rl_formula formulas[] = {
  { "GRPO-OBJ", "the GRPO objective with k3, both KL placements, and CISPO",
    "000 (13.24)-(13.26); 003",
    "J = (1/G) Σ_i (1/n_i) Σ_t min(ρA, clip(ρ)A) − β k3 (13.24–13.26), the KL once per prompt "
    "(000) or inside the token mean (003); CISPO: sg(min(ρ, ε_high)) A log π (TRL) or "
    "sg(clip(ρ)) A log π (verl), a token mean; the libraries' objectives: TRL's (003's loss, "
    "the token-mean kl), verl's and OpenRLHF's (token means, l clamped to ±20, k3 capped at 10, "
    "verl's dual clip c = 3); loss −J and its gradient in logp",
    NULL, c_obj, n_grpoobj, .axes = obj_axes },
  { "GRPO-AGG", "loss aggregation modes as per-token weights", "000 (13.32)-(13.33); libraries",
    "token-mean Σ L/N, seq-mean-token-mean (1/B) Σ_i Σ_t L/n_i, seq-mean-token-sum, "
    "seq-mean-token-sum-norm Σ L/(B L_const) (without B before Feb 2026), the group-mean length "
    "(003), the token sum (003), Σ L/(B T) over the padded width, the mean over non-empty "
    "sequences; micro-batches: their own token means, or the global count; L = [[2],[1,1,1]] → "
    "1.25/1.5/2.5/0.625",
    NULL, c_agg, n_grpoobj, .axes = agg_axes },
  { "GRPO-DR", "Dr.GRPO in its three readings and the libraries'", "000 §11; 003; 004",
    "A = r − mean, (1/G) Σ_i Σ_t s_t (000); GRPO's A with 1/|y_i| → 1/L̄ (003); A = r − mean, "
    "Σ s/(G L_const) (TRL dr_grpo; verl, with its clamp and dual clip, over L_const or the "
    "padded width); OpenRLHF's clamp(r − mean, ±10) and token mean; loss and gradient in logp", NULL, c_dr, n_grpoobj,
    .axes = dr_axes },
  { "GRPO-GSPO", "GSPO's sequence ratio and clip", "000 §11; 003",
    "s_i = exp(mean_t (logp − old_logp)) = (π(y)/π_old(y))^{1/|y|}, loss −(1/G) Σ_i min(s_i A_i, "
    "clip(s_i) A_i); verl caps log s at 10; OpenRLHF leaves an empty sequence out of the mean; "
    "[0.3, −0.1] → s = e^{0.1}", NULL, c_gspo,
    n_grpoobj },
  { "GRPO-GMPO", "GMPO's geometric mean with sgn(A)", "003",
    "ratio_i = exp(mean_t sgn(A) min(sgn(A) l_t, sgn(A) clamp(l_t, −0.4, 0.4))), loss "
    "−(1/G) Σ_i A_i ratio_i; [1,1,1,10] → 3.25 arithmetic, 10^{1/4} = 1.778 geometric",
    NULL, c_gmpo, n_grpoobj },
  { "GRPO-GFPO", "GFPO's filters", "003",
    "keep the shortest k of N, or the k largest r/|o| (ties to the shorter, then the lower "
    "index); the mean reward of the kept", NULL, c_gfpo, n_grpoobj },
  RL_END,
};

/* The formulas' variants: one per row of the library's table
 * (rlref_grpoobj_conventions), each on the io of its part and precision. */
static const rl_io *const ios[] = {
  &io_obj, &io_agg, &io_agg_micro, &io_dr, &io_gspo, &io_gmpo, &io_means, &io_gfpo, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_grpoobj_conventions, f->id, ios, NULL);
}

RL_FAMILY (grpoobj) = {
  .name = "grpoobj",
  .title = "The GRPO objective and its loss-shaping relatives: KL placement, CISPO, "
    "aggregation, Dr.GRPO, GSPO, GMPO, GFPO",
  .rank = 6,
  .formulas = formulas,
  .init = init,
};
