/* lm.c -- the LM family: the tiny language model whose every sequence can
 * be enumerated (LM-ENUM, LM-CHAIN, LM-EXACT, LM-DP; seed 000 (13.1), §1,
 * and the KL-optimal policy of 13.15-13.17 on its sequences).
 * The variants are the rows of the library's table
 * (reference/src/lm/lm_conventions.c). */
#include <string.h>
#include "rlref/lm.h"
#include "family.h"

RL_EVAL_DECL (lm_exact);
RL_EVAL_DECL (lm_enum);
RL_EVAL_DECL (lm_chain);
RL_EVAL_DECL (lm_grad);
RL_EVAL_DECL (lm_displace);

#define SHAPE_INPUTS                                                          \
  { "V", RL_INT, "vocabulary size (2 to 64)" },                               \
  { "eos", RL_INT, "the EOS token" },                                         \
  { "T", RL_INT, "maximum length: a sequence ends at EOS or is cut after T tokens" }, \
  { "logits", RL_REAL_ARRAY, "bigram: (V + 1) rows of V, row s the state after token s, row V "    \
    "the start; tabular: one row of V per prefix without EOS shorter than T, by length then "  \
    "lexicographically (EOS skipped)" }

static const rl_output out_moments[] = {
  { "sequences", "the number of outcomes" },
  { "mass", "their probability mass: 1 (cut sequences kept), P(EOS within T) (conditioned)" },
  { "entropy", "H(pi_ref) of the outcome distribution" },
  { "mean_r", "E_ref[r]" },
  { "var_r", "Var_ref[r]" },
  { "log_Z", "log Z = log E_ref[e^{r/beta}] (13.15)" },
  { "kl_pistar_ref", "KL(pi* || pi_ref) = E*[r]/beta - log Z" },
  { "kl_ref_pistar", "KL(pi_ref || pi*) = log Z - E_ref[r]/beta" },
  { "mean_r_pistar", "E_pi*[r], pi* = pi_ref e^{r/beta}/Z (13.17)" },
  RL_END,
};

static const rl_input in_exact[] = {
  SHAPE_INPUTS,
  { "reward", RL_REAL_ARRAY, "additive reward: V token rewards, then per_length (times the "
    "length, EOS included), then truncated (added to a cut sequence)" },
  { "beta", RL_REAL, "the KL coefficient, > 0" },
  RL_END,
};

static const rl_io io_exact_bigram = {
  .in = in_exact, .out = out_moments, RL_EVALS (lm_exact), .part = "bigram",
};
static const rl_io io_exact_tabular = {
  .in = in_exact, .out = out_moments, RL_EVALS (lm_exact), .part = "tabular",
};
static const rl_io io_dp = {
  .in = in_exact, .out = out_moments, RL_EVALS (lm_exact), .part = "dp",
};

static const rl_output out_enum[] = {
  { "sequences", "the number of outcomes: sum_{t<T} (V-1)^t EOS-ended, + (V-1)^T cut (kept)" },
  { "mass", "their probability mass" },
  { "entropy", "H(pi_ref) of the outcome distribution" },
  RL_END,
};
static const rl_input in_shape[] = { SHAPE_INPUTS, RL_END };
static const rl_io io_enum_bigram = { in_shape, out_enum, RL_EVALS (lm_enum), .part = "bigram" };
static const rl_io io_enum_tabular = { in_shape, out_enum, RL_EVALS (lm_enum), .part = "tabular" };

static const rl_input in_chain[] = {
  SHAPE_INPUTS,
  { "y", RL_INT_ARRAY, "one sequence: tokens, EOS only last; shorter than T ends with EOS" },
  RL_END,
};
static const rl_output out_chain[] = {
  { "logp", "log pi(y) = sum_t log pi(y_t | s_t) (13.1), the prefix probability" },
  { "token_logp", "log pi(y_t | s_t), t = 1..L", .len_of = "y" },
  RL_END,
};
static const rl_io io_chain_bigram = { in_chain, out_chain, RL_EVALS (lm_chain), .part = "bigram" };
static const rl_io io_chain_tabular = { in_chain, out_chain, RL_EVALS (lm_chain), .part = "tabular" };

#define GRAD_IO(name, what)                                                   \
  static const rl_io io_grad_##name = {                                       \
    .in = (const rl_input[]) {                                                \
      SHAPE_INPUTS,                                                           \
      { "ref_logits", RL_REAL_ARRAY, "the reference policy's logits, the same shape", \
        .same_len_as = "logits" },                                            \
      { "reward", RL_REAL_ARRAY, "additive reward: V token rewards, per_length, truncated" }, \
      { "beta", RL_REAL, "the KL coefficient, > 0" },                         \
      RL_END },                                                               \
    .out = (const rl_output[]) {                                              \
      { "value", what },                                                      \
      { "grad", "d value / d logits, exact", .len_of = "logits" },            \
      RL_END },                                                               \
    RL_EVALS (lm_grad), .part = "grad-" #name,                                \
  }
GRAD_IO (reward, "E_q[r]");
GRAD_IO (kl, "KL(q || q_ref)");
GRAD_IO (kl_reverse, "KL(q_ref || q)");
GRAD_IO (rlhf, "E_q[r] - beta KL(q || q_ref) (13.8)");
GRAD_IO (dpo, "population DPO loss: sum over ordered pairs of distinct sequences of q_ref(y1) "
         "q_ref(y2) sigma(r1 - r2) (-log sigma(beta (h1 - h2))), h = log q - log q_ref (13.21)");
GRAD_IO (ipo, "population IPO loss: the same pairs, (h1 - h2 - 1/(2 beta))^2");
GRAD_IO (k1, "E_q[k1], k1 = h = log q - log q_ref (an unbiased estimate of KL(q||q_ref))");
GRAD_IO (k2, "E_q[k2], k2 = h^2/2");
GRAD_IO (k3, "E_q[k3], k3 = e^-h - 1 + h (13.26; unbiased)");

/* Models of the cases: B3 a bigram model, V = 3, EOS 2, T = 3 (12 logits);
 * U3 the same with uniform logits; B4 V = 4, EOS 0, T = 5 (20 logits); A3 a
 * tabular model, V = 3, EOS 2, T = 3 (7 prefixes, 21 logits). */
#define B3 "V=3 eos=2 T=3 logits=0.5,-0.2,0.1,0,1,-1,0,0,0,0.3,0.3,-0.5"
#define U3 "V=3 eos=2 T=3 logits=0,0,0,0,0,0,0,0,0,0,0,0"
#define B4 "V=4 eos=0 T=5 logits=0.4,0,-0.3,0.2,-1,0.5,0.5,0,0,0,0,0,1,-0.5,0.25,0.75,0.1,0.2,0.3,-0.6"
#define A3 "V=3 eos=2 T=3 logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,-0.3,0.3,0"
#define R3 " reward=1,-0.5,0,-0.25,-1"
#define A3_LOGITS "1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,-0.3,0.3,0"
#define A3_REF "0,0,0,0.5,-0.5,0,0,0,0,1,1,-1,0.1,-0.1,0.3,0.2,0.2,0.2,-1,0,1"
#define U3_LOGITS "0,0,0,0,0,0,0,0,0,0,0,0"
#define R4 " reward=0,1,-1,0.5,-0.1,-2"

static const rl_case c_exact[] = {
  { "bigram-keep,bigram-condition", B3 R3 " beta=0.5", "", "V = 3, T = 3, additive reward" },
  { "bigram-keep,bigram-condition", U3 R3 " beta=1", "Uniform",
    "uniform logits: every token 1/3" },
  { "bigram-keep,bigram-condition", B4 R4 " beta=0.25", "", "V = 4, T = 5" },
  { "bigram-keep,bigram-condition", B4 R4 " beta=1000", "LargeBeta",
    "beta = 1000: pi* is almost pi_ref, both KLs ~ Var[r]/(2 beta^2)" },
  { "bigram-keep,bigram-condition", B4 R4 " beta=0.001", "SmallBeta",
    "beta = 1e-3: pi* is almost the argmax; e^{r/beta} spans 1e868" },
  { "bigram-keep,bigram-condition", "V=2 eos=1 T=1 logits=0,0,0,0,0.5,-0.5 reward=2,1,0,-3 beta=1",
    "ShortestT", "T = 1: one EOS-ended sequence, one cut" },
  { "tabular-keep,tabular-condition", A3 R3 " beta=0.5", "", "a tabular model" },
  { "tabular-keep,tabular-condition", A3 R3 " beta=2", "", "a tabular model, beta = 2" },
  { "bigram-keep", B3 R3 " beta=0", "OutOfDomain", "beta = 0", .invalid_in = "*" },
  { "bigram-keep", B3 R3 " beta=-1", "OutOfDomain", "beta < 0", .invalid_in = "*" },
  { "bigram-keep", "V=3 eos=3 T=3 logits=0,0,0,0,0,0,0,0,0,0,0,0" R3 " beta=1", "OutOfDomain",
    "EOS is not a token", .invalid_in = "*" },
  { "bigram-keep", "V=3 eos=2 T=0 logits=0,0,0,0,0,0,0,0,0,0,0,0" R3 " beta=1", "OutOfDomain",
    "T = 0", .invalid_in = "*" },
  { "bigram-keep", "V=3 eos=2 T=3 logits=0,0,0,0,0,0,0,0,0" R3 " beta=1", "LengthMismatch",
    "three rows of logits where a bigram model of V = 3 has four", .invalid_in = "*" },
  { "bigram-keep", "V=3 eos=2 T=3 logits=0,0,0,0,nan,0,0,0,0,0,0,0" R3 " beta=1", "NonFinite",
    "a NaN logit", .invalid_in = "*" },
  { "grad-reward,grad-kl,grad-kl-reverse,grad-rlhf,grad-rlhf-condition,grad-dpo,grad-ipo,"
    "grad-k1,grad-k2,grad-k3",
    A3 " ref_logits=" A3_REF R3 " beta=0.5", "", "a tabular policy against a reference" },
  { "grad-reward,grad-kl,grad-kl-reverse,grad-rlhf,grad-dpo,grad-ipo",
    A3 " ref_logits=" A3_LOGITS R3 " beta=0.1", "AtReference",
    "the policy is the reference: KL and its gradient 0; the DPO gradient is the seed's "
    "-beta E[sigma(-beta z) ...] at z = 0" },
  { "grad-dpo-bigram", B3 " ref_logits=" U3_LOGITS R3 " beta=0.5", "",
    "a bigram policy against uniform logits" },
  RL_END,
};

static const rl_case c_dp[] = {
  { "*", B3 R3 " beta=0.5", "", "equals LM-EXACT's enumeration to every digit" },
  { "*", B4 R4 " beta=0.25", "", "V = 4, T = 5" },
  { "*", B4 R4 " beta=0.001", "SmallBeta", "beta = 1e-3" },
  { "*", "V=2 eos=1 T=1 logits=0,0,0,0,0.5,-0.5 reward=2,1,0,-3 beta=1", "ShortestT", "T = 1" },
  { "*", "V=6 eos=5 T=24 logits=0,1,0,-1,0.5,-2,0,0,0,0,0,0,1,1,1,1,1,0,0,0,0,0,0,0,0.2,0.1,0,0,0,"
    "0,-1,-1,-1,-1,-1,3,0,0.5,0,0.5,0,0.5 reward=0,1,0,0,0,0,-0.25,0 beta=0.5", "BeyondEnumeration",
    "T = 24: 7.5e16 sequences, beyond enumeration" },
  { "*", B3 R3 " beta=0", "OutOfDomain", "beta = 0", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_enum[] = {
  { "bigram-keep,bigram-condition", B3, "", "V = 3, T = 3: 15 outcomes kept, 7 ended by EOS" },
  { "bigram-keep,bigram-condition", U3, "Uniform", "uniform logits" },
  { "bigram-keep,bigram-condition", B4, "", "V = 4, T = 5" },
  { "bigram-keep,bigram-condition",
    "V=2 eos=0 T=6 logits=-5,5,-5,5,-5,5", "RareEOS",
    "EOS rarely chosen: most mass in the one cut sequence; conditioned, the mass is ~3e-4" },
  { "tabular-keep,tabular-condition", A3, "", "a tabular model" },
  { "bigram-keep", "V=1 eos=0 T=3 logits=0,0", "OutOfDomain", "V = 1", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_chain[] = {
  { "bigram", B3 " y=0,1,2", "", "an EOS-ended sequence of three tokens" },
  { "bigram", B3 " y=2", "", "EOS first" },
  { "bigram", B3 " y=1,1,1", "Cut", "cut at T: the prefix probability" },
  { "tabular", A3 " y=0,1,2", "", "the tabular model" },
  { "tabular", A3 " y=1,0,0", "Cut", "cut at T" },
  { "bigram", B3 " y=0,2,1", "NotASequence", "EOS in the middle", .invalid_in = "*" },
  { "bigram", B3 " y=0,1", "NotASequence", "shorter than T without EOS", .invalid_in = "*" },
  RL_END,
};

static const rl_note n_lm[] = {
  { "Uniform", "PROPERTY", "Uniform logits: every token has probability 1/V." },
  { "LargeBeta", "PROPERTY", "beta large: pi* is close to pi_ref (13.17, beta -> infinity)." },
  { "SmallBeta", "PROPERTY",
    "beta small: pi* is close to the argmax of r (13.17, beta -> 0); e^{r/beta} is far beyond "
    "binary64, so log Z must be formed from logs or scaled weights." },
  { "ShortestT", "EDGE_CASE", "T = 1: the outcomes are single tokens." },
  { "AtReference", "PROPERTY",
    "The policy equals the reference: h = 0 for every sequence, KL = 0 with gradient 0." },
  { "BeyondEnumeration", "PROPERTY",
    "More sequences than enumeration takes: only the DP form computes it." },
  { "RareEOS", "EDGE_CASE", "EOS is rarely chosen: the two readings of a cut sequence differ most." },
  { "Cut", "EDGE_CASE", "A sequence cut at T without EOS." },
  { "NotASequence", "INVALID_INPUT", "Not a sequence of the model: must be rejected." },
  { "Displacement", "PROPERTY",
    "Likelihood displacement: training on one preference pair lowers the probability of both "
    "sequences while their margin grows, through parameters they share." },
  { "FarBelowInputs", "NUMERICAL",
    "An output far below the inputs: it cancels beyond twice the working precision, and is "
    "certified only at the precision where the cancellation is resolved." },
  RL_END,
};

/* The binary64 moments are sums over every outcome of products of up to T
 * factors, and KL(pi*||pi_ref) = E*[r]/beta - log Z cancels when pi*
 * concentrates (beta small) as log Z = log W does when W ~ 1 (beta large):
 * U = 128 rather than the default 32. */
#define LM_ULPS 128

static const rl_io io_displace = {
  .in = (const rl_input[]) {
    SHAPE_INPUTS,
    { "y_w", RL_INT_ARRAY, "the preferred sequence (tokens; EOS only last; shorter than T ends "
      "with EOS)" },
    { "y_l", RL_INT_ARRAY, "the dispreferred sequence" },
    { "beta", RL_REAL, "the DPO beta, > 0" },
    { "lr", RL_REAL, "the learning rate of gradient descent on the logits" },
    { "steps", RL_INT, "steps of exact gradient descent" },
    RL_END },
  .out = (const rl_output[]) {
    { "logp_w_start", "log pi(y_w) at the start (the reference: the logits)" },
    { "logp_w", "log pi(y_w) after the steps" },
    { "logp_l_start", "log pi(y_l) at the start" },
    { "logp_l", "log pi(y_l) after the steps" },
    { "margin", "h_w - h_l after the steps, h = log pi - log pi_ref" },
    RL_END },
  RL_EVALS (lm_displace), .part = "pair",
};
#define DISPLACE_MODEL "V=3 eos=2 T=3 logits=1.37,-2.26,-1.4,1.63,-1.51,-0.62,-0.93,-1.71,-0.19," \
  "-0.34,-1.09,-0.13 y_w=1,1,0 y_l=1,1,1"
static const rl_case c_displace[] = {
  { "dpo", DISPLACE_MODEL " beta=1 lr=0.5 steps=50", "Displacement",
    "y_w and y_l share the transition 1 -> 1, whose probability both lose: log pi(y_w) falls "
    "from -5.16 to -8.80 and log pi(y_l) from -8.30 to -15.83 while the margin grows to 3.89" },
  { "*", DISPLACE_MODEL " beta=1 lr=0.5 steps=0", "", "no step: the margin is 0" },
  { "ipo", DISPLACE_MODEL " beta=1 lr=0.125 steps=60", "",
    "the margin is twice one logit shift here: each step halves its distance to 1/(2 beta) "
    "= 1/2, so after n steps it is (1 - 2^-n)/2" },
  { "ipo", "V=3 eos=2 T=3 logits=0x1.5eb851eb851ecp+0,-0x1.2147ae147ae14p+1,-0x1.6666666666666p+0,"
    "0x1.a147ae147ae14p+737,-0x1.828f5c28f5c29p+0,-0x1.3d70a3d70a3d7p-1,-0x1.dc28f5c28f5c3p-1,"
    "-0x1.b5c28f5c28f5cp+0,-0x1.851eb851eb852p-3,-0x1.5c28f5c28f5c3p-2,-0x1.170a3d70a3d71p+0,"
    "-0x1.0a3d70a3d70a4p-3 y_w=1,1,0 y_l=1,1,1 beta=0x1.5798ee2308c3ap+945 lr=0.125 steps=60",
    "FarBelowInputs", "a logit of 2^737 and beta = 2^945: the margin, 1.25e-285, cancels beyond "
    "twice the working precision, where two runs agreed on an exact 0 (the domain fuzzer's find)" },
  { "*", DISPLACE_MODEL " beta=0 lr=0.5 steps=10", "OutOfDomain", "beta = 0", .invalid_in = "*" },
  { "*", "V=3 eos=2 T=3 logits=0,0,0,0,0,0,0,0,0,0,0,0 y_w=0,2 y_l=2,1 beta=1 lr=0.5 steps=5",
    "NotASequence", "y_l has EOS before its end", .invalid_in = "*" },
  RL_END,
};

static rl_formula formulas[] = {
  { "LM-ENUM", "the tiny LM: every sequence enumerated", "000 section 1; catalogue LM-ENUM",
    "sequences end at EOS or are cut after T tokens; count, probability mass and entropy of "
    "the outcomes by depth-first enumeration, under both readings of a cut sequence",
    NULL, c_enum, n_lm },
  { "LM-CHAIN", "the chain rule of a sequence's probability", "000 (13.1)",
    "log pi(y) = sum_t log pi(y_t | y_<t) (13.1), with the bigram and tabular parameterisations",
    NULL, c_chain, n_lm },
  { "LM-EXACT", "exact moments of the tiny LM and of its KL-optimal policy",
    "000 (13.15)-(13.17); catalogue LM-EXACT",
    "H, E[r], Var[r] under pi_ref; log Z, KL(pi*||pi_ref), KL(pi_ref||pi*), E_pi*[r] for pi* = "
    "pi_ref e^{r/beta}/Z, by enumeration; r(y) = sum_t token[y_t] + per_length L "
    "(+ truncated when cut)", NULL, c_exact, n_lm, .ulps = LM_ULPS },
  { "LM-DP", "the same moments by dynamic programming", "catalogue LM-DP",
    "a bigram model with an additive reward: the moments of LM-EXACT by dynamic programming "
    "over (tokens left, state), O(T V^2); equal to enumeration", NULL, c_dp, n_lm,
    .ulps = LM_ULPS },
  { "DPO-DISPLACE", "likelihood displacement in DPO training", "000 section 4.3",
    "exact gradient descent on one pair's DPO (or IPO) loss, a bigram policy starting at its "
    "reference: log pi(y_w), log pi(y_l) before and after, and the margin", NULL,
    c_displace, n_lm },
  RL_END,
};

/* LM-EXACT, LM-ENUM and LM-CHAIN each read a bigram and a tabular model
 * on their own ios: the row's formula says which. */
static const rl_io *
pick (const rlref_convention *c)
{
  int bigram = strcmp (c->part, "bigram") == 0;
  if (!bigram && strcmp (c->part, "tabular") != 0)
    return NULL;
  if (strcmp (c->formula, "LM-ENUM") == 0)
    return bigram ? &io_enum_bigram : &io_enum_tabular;
  if (strcmp (c->formula, "LM-CHAIN") == 0)
    return bigram ? &io_chain_bigram : &io_chain_tabular;
  return bigram ? &io_exact_bigram : &io_exact_tabular;
}

/* The formulas' variants: one per row of the library's table
 * (rlref_lm_conventions), each on the io pick gives or that of its part
 * and precision. */
static const rl_io *const ios[] = {
  &io_exact_bigram, &io_exact_tabular, &io_dp, &io_enum_bigram, &io_enum_tabular,
  &io_chain_bigram, &io_chain_tabular, &io_displace, &io_grad_reward, &io_grad_kl,
  &io_grad_kl_reverse, &io_grad_rlhf, &io_grad_dpo, &io_grad_ipo, &io_grad_k1, &io_grad_k2,
  &io_grad_k3, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_lm_conventions, f->id, ios, pick);
}

RL_FAMILY (lm) = {
  .name = "lm",
  .title = "The tiny exact-enumeration language model",
  .rank = 11,
  .formulas = formulas,
  .init = init,
};
