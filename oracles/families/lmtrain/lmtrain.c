/* lmtrain.c -- the LMTRAIN family: the tiny language model's
 * parameterisations (LM-PARAM), supervised fine-tuning on it (LM-SFT) and
 * training runs (LM-TRAIN), by exact gradients or from seeded samples; seed
 * 000 (13.1), section 1, (13.2)-(13.4), (13.8), (13.17), (13.21).
 * The variants are the rows of the library's table
 * (reference/src/lmtrain/lmtrain_conventions.c). */
#include "rlref/lm.h"
#include "rlref/lmtrain.h"
#include "family.h"

RL_EVAL_DECL (lm_param);
RL_EVAL_DECL (lm_sft);
RL_EVAL_DECL (lm_train);
RL_EVAL_DECL (lm_train_sampled);

#define SHAPE_INPUTS                                                          \
  { "V", RL_INT, "vocabulary size (2 to 64)" },                               \
  { "eos", RL_INT, "the EOS token" },                                         \
  { "T", RL_INT, "maximum length: a sequence ends at EOS or is cut after T tokens" }, \
  { "logits", RL_REAL_ARRAY, "bigram: (V + 1) rows of V, row s the state after token s, row V "    \
    "the start; tabular: one row of V per prefix without EOS shorter than T, by length then "  \
    "lexicographically (EOS skipped)" }

/* --- LM-PARAM ------------------------------------------------------------- */

static const rl_input in_shape[] = { SHAPE_INPUTS, RL_END };
static const rl_output out_param[] = {
  { "pi", "pi(a | s) = softmax(logits(s))_a, every row s", .len_of = "logits" },
  { "log_pi", "log pi(a | s) = l_a - max - log1p(sum of the others' e^{l - max})",
    .len_of = "logits" },
  RL_END,
};
static const rl_io io_param_bigram = { in_shape, out_param, RL_EVALS (lm_param),
                                       .part = "bigram" };
static const rl_io io_param_tabular = { in_shape, out_param, RL_EVALS (lm_param),
                                        .part = "tabular" };

/* Models of the cases: B3 a bigram model, V = 3, EOS 2, T = 3 (4 rows); A3
 * a tabular model, V = 3, EOS 2, T = 3 (7 prefixes: "", 0, 1, 00, 01, 10,
 * 11); A2 a tabular model, V = 3, EOS 2, T = 2 (3 prefixes: "", 0, 1). */
#define B3 "V=3 eos=2 T=3 logits=0.5,-0.2,0.1,0,1,-1,0,0,0,0.3,0.3,-0.5"
#define A3 "V=3 eos=2 T=3 logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,-0.3,0.3,0"
#define A2 "V=3 eos=2 T=2 logits=0.5,-0.3,0.1,0.2,0.7,-0.4,-0.6,0.3,0.2"

static const rl_case c_param[] = {
  { "bigram", B3, "", "V = 3: four rows, the last the start" },
  { "tabular", A3, "", "V = 3, T = 3: seven rows, one per prefix" },
  { "bigram", "V=3 eos=2 T=1 logits=1000,0,-1000,0,0,0,0,0,0,0,0,0", "Extreme",
    "a row 1000, 0, -1000: pi = 1, e^-1000, e^-2000 (0 in binary64), log pi_0 = -e^-1000" },
  { "bigram", "V=3 eos=2 T=1 logits=700,710,705,0,0,0,-745,-750,-740,1e-300,0,-1e-300",
    "Overflow", "e^710 overflows binary64 unless the row's maximum is subtracted" },
  { "tabular", "V=2 eos=0 T=2 logits=0,0,3,-3", "", "V = 2: a logistic choice per row" },
  { "bigram", "V=3 eos=2 T=3 logits=0,0,0,0,0,0,0,0,0", "LengthMismatch",
    "three rows where a bigram model of V = 3 has four", .invalid_in = "*" },
  { "tabular", B3, "LengthMismatch", "four rows where the tabular model has seven",
    .invalid_in = "*" },
  { "bigram", "V=3 eos=2 T=3 logits=0,0,0,0,inf,0,0,0,0,0,0,0", "NonFinite",
    "an infinite logit", .invalid_in = "*" },
  { "bigram", "V=1 eos=0 T=3 logits=0,0", "OutOfDomain", "V = 1", .invalid_in = "*" },
  RL_END,
};

/* --- LM-SFT --------------------------------------------------------------- */

static const rl_input in_sft[] = {
  SHAPE_INPUTS,
  { "data", RL_INT_ARRAY, "the demonstrations: sequences of the model written one after the "
    "other, each ending at its first EOS or after T tokens" },
  { "weights", RL_REAL_ARRAY, "one weight (count) >= 0 per sequence, not all 0: p_data(y) = "
    "the weights of y's entries over all weights" },
  RL_END,
};
static const rl_output out_sft[] = {
  { "ce", "the SFT loss: cross-entropy -sum_y p_data(y) log q(y)" },
  { "entropy", "H(p_data) = -sum_y p_data(y) log p_data(y)" },
  { "kl", "KL(p_data || q) = sum_y p_data(y) log(p_data(y)/q(y)); ce = entropy + kl" },
  { "grad", "d ce / d logits, exact", .len_of = "logits" },
  RL_END,
};
static const rl_io io_sft = { in_sft, out_sft, RL_EVALS (lm_sft), .part = "sft" };

static const rl_case c_sft[] = {
  { "tabular-keep", A3 " data=0,2,1,0,2,2,0,1,1,0,2 weights=3,1,2,0.5,1",
    "Duplicate", "five entries, four distinct sequences: (0 2) twice, (1 0 2), (2) and (0 1 1) "
    "cut; p_data = 4, 1, 2, 0.5 over 7.5" },
  { "bigram-keep", B3 " data=0,2,1,0,2,2,0,1,1,0,2 weights=3,1,2,0.5,1", "Duplicate",
    "the same data against a bigram model" },
  { "tabular-condition", A3 " data=0,2,1,0,2,2,0,1,2 weights=3,1,2,0.5",
    "", "EOS-ended sequences only, against the conditioned model" },
  { "bigram-condition", B3 " data=0,2,1,0,2,2,0,1,2 weights=3,1,2,0.5",
    "", "EOS-ended sequences only, against the conditioned bigram model" },
  { "tabular-keep,tabular-condition", A3 " data=2 weights=1", "PointMass",
    "one sequence: H = 0, ce = kl = -log q((2))" },
  { "tabular-keep", A3 " data=2,0,2,1,1,0 weights=1,0,2", "ZeroWeight",
    "an entry of weight 0 counts for nothing (H over the support)" },
  { "bigram-keep", "V=3 eos=2 T=3 logits=20,-20,0,20,-20,0,0,0,0,-20,20,0 data=1,1,1 weights=1",
    "", "a sequence the model finds unlikely: 1 -> 1 twice at e^-40, log q(y) ~ -80" },
  { "tabular-keep", A3 " data=2,0,2 weights=1e308,1e308", "ExtremeWeights",
    "the weights sum to 2e308, beyond binary64: p_data = 1/2, 1/2, H = log 2; ce, kl and the "
    "gradient as with weights 1, 1" },
  { "tabular-keep", A3 " data=2,0,2 weights=1,0x1p-130", "ExtremeWeights",
    "p_data = 1 - e, e ~ 2^-130: -(1 - e) log(1 - e) ~ e is 1.4% of H, lost to log of p "
    "rounded to 1" },
  { "tabular-keep", A3 " data=2,0,2 weights=2,0x1p-1074", "ExtremeWeights",
    "p_data = 2^-1075 of (0 2), below binary64's grid: H = 1.84e-321, formed from p 2^128" },
  { "tabular-keep", A3 " data=0,2,1 weights=1,1", "LengthMismatch",
    "two weights but the data end inside a sequence", .invalid_in = "*" },
  { "tabular-keep", A3 " data=0,2,2 weights=1", "LengthMismatch",
    "two sequences, one weight", .invalid_in = "*" },
  { "tabular-keep", A3 " data=0,2,2 weights=1,-1", "OutOfDomain", "a negative weight",
    .invalid_in = "*" },
  { "tabular-keep", A3 " data=0,2,2 weights=0,0", "OutOfDomain", "every weight 0",
    .invalid_in = "*" },
  { "tabular-keep", A3 " data=0,3 weights=1", "OutOfDomain", "token 3 is not in 0..2",
    .invalid_in = "*" },
  { "tabular-condition", A3 " data=0,1,1 weights=1", "CutData",
    "a cut sequence has no probability when cut sequences are conditioned away",
    .invalid_in = "*" },
  { "tabular-keep", A3 " data=2 weights=nan", "NonFinite", "a NaN weight", .invalid_in = "*" },
  RL_END,
};

/* --- LM-TRAIN ------------------------------------------------------------- */

#define TRAIN_IO(name, what)                                                  \
  static const rl_io io_train_##name = {                                      \
    .in = (const rl_input[]) {                                                \
      SHAPE_INPUTS,                                                           \
      { "reward", RL_REAL_ARRAY, "additive reward: V token rewards, per_length (times the " \
        "length, EOS included), truncated (added to a cut sequence)" },       \
      { "beta", RL_REAL, "the KL coefficient (and DPO's beta), > 0" },        \
      { "lr", RL_REAL, "the learning rate, > 0" },                            \
      { "at", RL_INT_ARRAY, "the steps reported, increasing from 0 (the start); the run "  \
        "makes as many steps as the last" },                                  \
      RL_END },                                                               \
    .out = (const rl_output[]) {                                              \
      { "objective", what, .len_of = "at" },                                  \
      { "kl_pistar", "KL(pi_theta || pi*), pi* = pi_ref e^{r/beta}/Z (13.17), at each step " \
        "of at", .len_of = "at" },                                            \
      RL_END },                                                               \
    RL_EVALS (lm_train), .part = "train-" #name,                              \
  }
TRAIN_IO (rlhf, "E_q[r] - beta KL(q || pi_ref) (13.8) at each step of at");
TRAIN_IO (reward, "E_q[r] at each step of at");
TRAIN_IO (dpo, "the population DPO loss (13.21) at each step of at");
TRAIN_IO (ipo, "the population IPO loss at each step of at");

#define SAMPLED_IO(name, what)                                                \
  static const rl_io io_sampled_##name = {                                    \
    .in = (const rl_input[]) {                                                \
      SHAPE_INPUTS,                                                           \
      { "reward", RL_REAL_ARRAY, "additive reward: V token rewards, per_length (times the " \
        "length, EOS included), truncated (added to a cut sequence)" },       \
      { "beta", RL_REAL, "the KL coefficient (and DPO's beta), > 0" },        \
      { "lr", RL_REAL, "the learning rate, > 0" },                            \
      { "n", RL_INT, "the batch: sequences (pairs for DPO) drawn at each step, 2 to 1e4" }, \
      { "seed", RL_INT, "the seed of GSL's mt19937, 0 to 2^32 - 1 (0 means GSL's default " \
        "4357)" },                                                            \
      { "at", RL_INT_ARRAY, "the steps reported, increasing from 0 (the start); the run "  \
        "makes as many steps as the last" },                                  \
      RL_END },                                                               \
    .out = (const rl_output[]) {                                              \
      { "objective", what, .len_of = "at" },                                  \
      { "kl_pistar", "KL(pi_theta || pi*), pi* = pi_ref e^{r/beta}/Z (13.17), at each step " \
        "of at", .len_of = "at" },                                            \
      RL_END },                                                               \
    RL_EVALS (lm_train_sampled), .part = "sampled-" #name,                    \
  }
SAMPLED_IO (rlhf, "the exact E_q[r] - beta KL(q || pi_ref) (13.8) at each step of at");
SAMPLED_IO (reward, "the exact E_q[r] at each step of at");
SAMPLED_IO (dpo, "the exact population DPO loss (13.21) at each step of at");

#define R3 " reward=1,-0.5,0,-0.25,-1"
/* A2 with the start row log(2 u/(1 - u)), 0, 0: pi(0 | start) = u = 1791095845/2^32,
 * the first draw of seed 1, to 6e-18. */
#define NEAR "V=3 eos=2 T=2 logits=0x1.6ebb6343ad035p-2,0,0,0.2,0.7,-0.4,-0.6,0.3,0.2"
static const rl_case c_train[] = {
  { "rlhf,dpo,ipo,reward", A2 R3 " beta=0.5 lr=0.5 at=0,1,5,12", "",
    "V = 3, T = 2: 7 outcomes; 12 steps" },
  { "rlhf", A3 R3 " beta=0.5 lr=0.5 at=0,3,8", "", "V = 3, T = 3: 15 outcomes" },
  { "rlhf", A2 R3 " beta=0.5 lr=4 at=0,15,40", "ConvergesToPiStar",
    "40 steps: the RLHF objective's maximiser is pi* (13.17), KL(pi_theta || pi*) falls from "
    "0.97 to 2e-3" },
  { "rlhf", A2 R3 " beta=2 lr=0.5 at=0", "", "no step: the objective at the reference is E[r], "
    "and KL(pi_ref || pi*) = log Z - E[r]/beta" },
  { "rlhf", A2 R3 " beta=0 lr=0.5 at=0,5", "OutOfDomain", "beta = 0", .invalid_in = "*" },
  { "rlhf", A2 R3 " beta=0.5 lr=0 at=0,5", "OutOfDomain", "lr = 0", .invalid_in = "*" },
  { "rlhf", A2 R3 " beta=0.5 lr=0.5 at=0,5,3", "OutOfDomain", "the steps do not increase",
    .invalid_in = "*" },
  { "rlhf", B3 R3 " beta=0.5 lr=0.5 at=0,5", "LengthMismatch",
    "a bigram model's logits: the run is defined on a tabular model", .invalid_in = "*" },
  { "dpo", A2 " reward=1,-0.5,0,-0.25 beta=0.5 lr=0.5 at=0,5", "LengthMismatch",
    "a reward of V + 1 numbers", .invalid_in = "*" },
  { "sampled-rlhf,sampled-reward", A2 R3 " beta=0.5 lr=0.5 n=4 seed=1 at=0,1,5,12", "Sampled",
    "V = 3, T = 2: 7 outcomes; 4 sequences a step, seed 1, 12 steps" },
  { "sampled-rlhf", A2 R3 " beta=0.5 lr=0.5 n=4 seed=1 at=12", "Sampled Segments",
    "the run of the case above reported at step 12 alone: the same values there" },
  { "sampled-dpo", A2 R3 " beta=0.5 lr=0.5 n=2 seed=1 at=0,1,5,12", "Sampled",
    "V = 3, T = 2: 2 pairs a step, seed 1, 12 steps" },
  { "sampled-rlhf", A3 R3 " beta=0.5 lr=0.5 n=4 seed=42 at=0,4,10", "Sampled",
    "V = 3, T = 3: 15 outcomes; 4 sequences a step, 10 steps" },
  { "sampled-reward", A2 R3 " beta=0.5 lr=1 n=8 seed=0 at=0,5", "Sampled",
    "seed 0 (GSL's 4357); 8 sequences a step, 5 steps of REINFORCE on E[r]" },
  { "sampled-dpo", A2 R3 " beta=0.5 lr=2 n=3 seed=7 at=0,8", "Sampled",
    "seed 7, 3 pairs a step, lr = 2, 8 steps" },
  { "sampled-rlhf,sampled-reward,sampled-dpo", NEAR R3 " beta=0.5 lr=0.5 n=2 seed=1 at=0,1",
    "NearBoundary", "the first row's logit 0 set so that pi(0 | start) is the first draw of "
    "seed 1 to 1e-16", .invalid_in = "*" },
  { "sampled-rlhf", A2 R3 " beta=0.5 lr=0.5 n=1 seed=1 at=0,5", "OutOfDomain",
    "a batch of one", .invalid_in = "*" },
  { "sampled-dpo", A2 R3 " beta=0.5 lr=0.5 n=2 seed=-1 at=0,5", "OutOfDomain",
    "a negative seed", .invalid_in = "*" },
  { "sampled-reward", A2 R3 " beta=0.5 lr=0.5 n=2 seed=1 at=3,2", "OutOfDomain",
    "the steps do not increase", .invalid_in = "*" },
  RL_END,
};

static const rl_note n_lmtrain[] = {
  { "Extreme", "EDGE_CASE", "Logits far apart: probabilities below binary64's range, "
    "log-probabilities next to 0 that log(sum) would round to 0 (log1p keeps them)." },
  { "Overflow", "EDGE_CASE", "e^logit overflows binary64: only the softmax shifted by the "
    "row's maximum is finite." },
  { "Duplicate", "EDGE_CASE", "A sequence listed more than once: its weights add." },
  { "ExtremeWeights", "NUMERICAL", "Weights whose sum overflows binary64, or a p_data next to 1 "
    "or below the subnormal grid: the weights scaled by a power of 2 before the sum, log p as "
    "log1p(-(the others' weights)/W) for the largest p, a tiny p formed times 2^128." },
  { "PointMass", "EDGE_CASE", "All the data on one sequence: H(p_data) = 0 and ce = kl." },
  { "ZeroWeight", "EDGE_CASE", "An entry of weight 0 is no part of p_data's support." },
  { "CutData", "INVALID_INPUT",
    "A cut sequence in the data of a model that conditions cut sequences away: q(y) = 0, the "
    "loss is infinite." },
  { "Sampled", "PROPERTY",
    "A seeded sampled run: its certified values are those of the exact-arithmetic recurrence "
    "given the seeded draws (GSL's mt19937, gsl_rng_uniform = k/2^32): every token and "
    "preference label is decided by comparing a draw with a quantity rounded once (a "
    "cumulative probability, sigma(r_1 - r_2)), so binary64 and MPFR draw the same batches "
    "unless a draw lies within 2^-40 of that quantity, where the run stops with EPREC.  What "
    "is certified is the run given those draws, not the expectation over seeds." },
  { "Segments", "PROPERTY",
    "The steps reported do not change the run: the stream carries over from one reported "
    "step to the next." },
  { "NearBoundary", "INVALID_INPUT",
    "A draw within 2^-40 of the cumulative probability it is compared with: binary64 and "
    "exact arithmetic could draw different tokens, so the run is refused (EPREC: its digits "
    "cannot be certified); another seed avoids it." },
  { "ConvergesToPiStar", "PROPERTY",
    "A long run: the policy approaches pi* = pi_ref e^{r/beta}/Z (13.17) and KL(pi_theta || "
    "pi*) falls by orders of magnitude; in binary64 it is formed from log-probabilities each "
    "rounded to |log q| u, so its relative error grows as it falls (the tolerance's U is "
    "this formula's)." },
  RL_END,
};

/* LM-TRAIN is a recurrence: its certified digits are those of the
 * exact-arithmetic run (MPFR at p and p + 64 bits, the same recurrence), the
 * binary64 run is the user's, reproduced bit for bit by `rlref train`.  Its
 * rounding errors add up over the steps (a contracting run damps them);
 * and KL(pi_theta || pi*) near 0 cancels: U = 128 as for LM-EXACT. */
#define TRAIN_ULPS 128

static rl_formula formulas[] = {
  { "LM-PARAM", "the parameterisations of the tiny LM: the policy table",
    "000 (13.1); catalogue LM-PARAM",
    "pi(a | s) = softmax(logits(s))_a and log pi(a | s) (stable: shifted by the row's maximum, "
    "log1p), every row s of a bigram model (V + 1 rows, the last the start) or a tabular one "
    "(a row per prefix without EOS)", NULL, c_param, n_lmtrain },
  { "LM-SFT", "supervised fine-tuning on the tiny LM: cross-entropy = H + KL",
    "000 section 1; catalogue LM-SFT",
    "data: sequences with weights, p_data their normalised weights; ce = -E_data[log q(y)] = "
    "H(p_data) + KL(p_data || q), so maximum likelihood minimises the forward KL; and d ce / d "
    "logits", NULL, c_sft, n_lmtrain },
  { "LM-TRAIN", "a training run on the tiny LM: exact gradients, or seeded samples",
    "000 (13.2)-(13.4), (13.8), (13.17), (13.21); catalogue LM-TRAIN",
    "theta_0 = the reference logits, theta <- theta +- lr grad J (exact gradients, sums over "
    "every sequence), or +- lr times an estimate from n sequences or pairs drawn each step "
    "with GSL's mt19937 seeded by seed (the sampled variants); J and KL(pi_theta || pi*) at the "
    "listed steps.  The certified digits are those of the exact-arithmetic recurrence, for a "
    "sampled run given its seeded draws (every draw is compared with a quantity rounded once, "
    "and a draw within 2^-40 of it stops the run with EDOM, so binary64 and MPFR draw the "
    "same batches); `rlref train --every K [--sampled N --seed S]` prints the binary64 run bit "
    "for bit", NULL, c_train, n_lmtrain, .ulps = TRAIN_ULPS },
  RL_END,
};

/* The formulas' variants: one per row of the library's table
 * (rlref_lmtrain_conventions), each on the io of its part and precision. */
static const rl_io *const ios[] = {
  &io_param_bigram, &io_param_tabular, &io_sft, &io_train_rlhf, &io_train_reward,
  &io_train_dpo, &io_train_ipo, &io_sampled_rlhf, &io_sampled_reward, &io_sampled_dpo, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_lmtrain_conventions, f->id, ios, NULL);
}

RL_FAMILY (lmtrain) = {
  .name = "lmtrain",
  .title = "The tiny LM: parameterisations, supervised fine-tuning, training runs",
  .rank = 11,
  .formulas = formulas,
  .init = init,
};
