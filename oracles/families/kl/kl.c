/* kl.c -- the KL family: the per-token estimators k1, k2, k3 and abs under
 * every convention of the library's table (rlref_kl_conventions, one
 * golden variant each: the seeds, TRL, verl, OpenRLHF), TRL's
 * bias-corrected k3, the naive k3's error in binary64, the full KL over a
 * vocabulary (KL-K1, KL-K2, KL-K3, KL-VARIANTS); their exact expectation,
 * bias and variance on a finite distribution, the tiny LM and two
 * Gaussians with a seeded Monte-Carlo run (KL-EXACT); and the exact
 * expected gradient of each used as a loss (KL-GRAD).  Seed 000 section
 * 12.1, table 5, (13.26); seed 001; CONVENTIONS.md "KL estimators".
 * The variants are the rows of the library's tables (reference/src/kl/:
 * kl_conventions.c, kl_other_conventions.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/kl.h"
#include "family.h"

RL_EVAL_DECL (kl_est);
RL_EVAL_DECL (kl_bias);
RL_EVAL_DECL (kl_naive);
RL_EVAL_DECL (kl_full);
RL_EVAL_DECL (kl_exact);
RL_EVAL_DECL (kl_exact_lm);
RL_EVAL_DECL (kl_gauss);
RL_EVAL_DECL (kl_mc);
RL_EVAL_DECL (kl_grad);
RL_EVAL_DECL (kl_grad_lm);

/* --- inputs and outputs ------------------------------------------------- */

#define IN_LOGP { "logp", RL_REAL_ARRAY, "log pi(y_t | .) of each sampled token under the " \
  "policy (any finite reals: only logp - ref_logp matters)" }
#define IN_REF { "ref_logp", RL_REAL_ARRAY, "log pi_ref(y_t | .) of the same tokens under the " \
  "reference", .same_len_as = "logp" }

static const rl_io io_est = {
  .in = (const rl_input[]) { IN_LOGP, IN_REF, RL_END },
  .out = (const rl_output[]) {
    { "k", "the estimate of each token, l = logp - ref_logp", .len_of = "logp" },
    { "grad", "d k / d logp of each token, the reference held fixed (PyTorch's gradient "
      "where the convention clamps)", .len_of = "logp" },
    RL_END },
  RL_EVALS (kl_est), .part = "estimator",
};

static const rl_io io_bias = {
  .in = (const rl_input[]) {
    IN_LOGP, IN_REF,
    { "old_logp", RL_REAL_ARRAY, "log pi_old(y_t | .) under the policy that sampled the "
      "tokens (equal to logp on-policy)", .same_len_as = "logp" },
    RL_END },
  .out = (const rl_output[]) {
    { "k", "k3(l) rho, rho = e^{logp - old_logp}", .len_of = "logp" },
    { "grad", "d k / d logp = (k3' + k3) rho = l rho", .len_of = "logp" },
    RL_END },
  RL_EVALS (kl_bias), .part = "bias-corrected",
};

static const rl_io io_naive = {
  .in = (const rl_input[]) { IN_LOGP, IN_REF, RL_END },
  .out = (const rl_output[]) {
    { "k", "k3 = e^-l - 1 + l of the exact l = logp - ref_logp", .len_of = "logp" },
    { "k_naive", "what exp(-l) - 1 + l gives in binary64: l = logp - ref_logp rounded, then "
      "each operation rounded to nearest, exp correctly rounded", .len_of = "logp" },
    { "ulp_naive", "(k_naive - k)/ulp(k), ulp of binary64", .len_of = "logp" },
    { "k_expm1", "what expm1(-l) + l gives in binary64 (expm1 correctly rounded)",
      .len_of = "logp" },
    { "ulp_expm1", "(k_expm1 - k)/ulp(k)", .len_of = "logp" },
    RL_END },
  RL_EVALS (kl_naive), .part = "naive-binary64",
};

static const rl_io io_full = {
  .in = (const rl_input[]) {
    { "logp", RL_REAL_ARRAY, "log pi(v | .) of every token v of the vocabulary at one "
      "position (their exponentials sum to 1 within 1e-6)" },
    { "ref_logp", RL_REAL_ARRAY, "log pi_ref(v | .) of every token", .same_len_as = "logp" },
    RL_END },
  .out = (const rl_output[]) {
    { "kl", "sum_v p_v (log p_v - log p_ref,v), p = softmax(logp), p_ref = softmax(ref_logp)" },
    { "grad", "d kl / d logp_v = p_v (log p_v - log p_ref,v - kl), the log-probabilities "
      "taken as the logits of a softmax", .len_of = "logp" },
    RL_END },
  RL_EVALS (kl_full), .part = "full",
};

#define OUT_EXACT_COMMON                                                           \
  { "kl", "KL(pi || pi_ref) = E[k1]" },                                            \
  { "e_k2", "E[k2]" },                                                             \
  { "e_k3", "E[k3]" },                                                             \
  { "bias_k2", "E[k2] - KL" }

static const rl_io io_discrete = {
  .in = (const rl_input[]) {
    { "p", RL_REAL_ARRAY, "the policy's probabilities (>= 0, summing to 1 within 1e-6; the "
      "distribution is p/sum p)" },
    { "p_ref", RL_REAL_ARRAY, "the reference's probabilities, the same outcomes",
      .same_len_as = "p" },
    RL_END },
  .out = (const rl_output[]) {
    OUT_EXACT_COMMON,
    { "bias_k3", "E[k3] - KL = sum_{p>0} pi_ref - 1: minus the reference's mass outside the "
      "policy's support" },
    { "var_k1", "Var[k1] = sum pi (k1 - E[k1])^2" },
    { "var_k2", "Var[k2]" },
    { "var_k3", "Var[k3]" },
    RL_END },
  RL_EVALS (kl_exact), .part = "discrete",
};

#define LM_SHAPE                                                                     \
  { "V", RL_INT, "vocabulary size (2 to 64)" },                                     \
  { "eos", RL_INT, "the EOS token" },                                               \
  { "T", RL_INT, "maximum length: a sequence ends at EOS or is cut after T tokens (cut "  \
    "sequences kept)" },                                                            \
  { "logits", RL_REAL_ARRAY, "the policy: a tabular model, one row of V logits per prefix "   \
    "without EOS shorter than T, by length then lexicographically (EOS skipped)" },  \
  { "ref_logits", RL_REAL_ARRAY, "the reference's logits, the same shape",          \
    .same_len_as = "logits" }

static const rl_io io_exact_lm = {
  .in = (const rl_input[]) { LM_SHAPE, RL_END },
  .out = (const rl_output[]) {
    OUT_EXACT_COMMON,
    { "var_k1", "Var[k1] over the sequences" },
    { "var_k2", "Var[k2]" },
    { "var_k3", "Var[k3]" },
    RL_END },
  RL_EVALS (kl_exact_lm), .part = "tiny-lm",
};

#define IN_GAUSS                                                                     \
  { "mu", RL_REAL, "mean of the policy N(mu, sigma^2), which samples x" },          \
  { "sigma", RL_REAL, "its standard deviation, > 0" },                              \
  { "mu_ref", RL_REAL, "mean of the reference N(mu_ref, sigma_ref^2)" },            \
  { "sigma_ref", RL_REAL, "its standard deviation, > 0" }

static const rl_io io_gauss = {
  .in = (const rl_input[]) { IN_GAUSS, RL_END },
  .out = (const rl_output[]) {
    { "kl", "KL(policy || reference) = E[k1] = E[k3]" },
    { "kl_reverse", "KL(reference || policy)" },
    { "e_k2", "E[k2]" },
    { "bias_k2", "E[k2] - KL" },
    { "var_k1", "Var[k1]" },
    { "var_k2", "Var[k2]" },
    { "var_k3", "Var[k3] (+inf when sigma_ref^2 >= 2 sigma^2)" },
    { "bias_k2_rel", "(E[k2] - KL)/KL, Schulman's bias/true (0 for k1 and k3)" },
    { "std_k1_rel", "sqrt(Var[k1])/KL, Schulman's stdev/true" },
    { "std_k2_rel", "sqrt(Var[k2])/KL" },
    { "std_k3_rel", "sqrt(Var[k3])/KL" },
    RL_END },
  RL_EVALS (kl_gauss), .part = "gaussian",
};

static const rl_io io_mc = {
  .in = (const rl_input[]) {
    IN_GAUSS,
    { "n", RL_INT, "draws, 2 to 1e6" },
    { "seed", RL_INT, "seed of GSL's MT19937 (gsl_rng_set), >= 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "mean_k1", "(1/n) sum k1" },
    { "mean_k2", "(1/n) sum k2" },
    { "mean_k3", "(1/n) sum k3" },
    { "std_k1", "sample standard deviation of k1, ddof 1 (torch.std)" },
    { "std_k2", "of k2" },
    { "std_k3", "of k3" },
    { "bias_k1_rel", "(mean_k1 - KL)/KL, KL exact" },
    { "bias_k2_rel", "(mean_k2 - KL)/KL" },
    { "bias_k3_rel", "(mean_k3 - KL)/KL" },
    { "std_k1_rel", "std_k1/KL" },
    { "std_k2_rel", "std_k2/KL" },
    { "std_k3_rel", "std_k3/KL" },
    RL_END },
  RL_EVALS (kl_mc), .part = "monte-carlo",
};

#define OUT_GRAD(len)                                                                 \
  { "value", "E_q[k], y ~ q" },                                                      \
  { "grad", "the estimator's expected gradient with respect to the logits, as the "  \
    "variant says", .len_of = len },                                                 \
  { "kl", "KL(q || q_ref)" },                                                        \
  { "grad_kl", "d KL(q || q_ref) / d logits", .len_of = len },                       \
  { "kl_reverse", "KL(q_ref || q)" },                                                \
  { "grad_kl_reverse", "d KL(q_ref || q) / d logits", .len_of = len }

static const rl_io io_grad = {
  .in = (const rl_input[]) {
    { "logits", RL_REAL_ARRAY, "the policy q = softmax(logits) over K outcomes" },
    { "ref_logits", RL_REAL_ARRAY, "the reference q_ref = softmax(ref_logits)",
      .same_len_as = "logits" },
    RL_END },
  .out = (const rl_output[]) { OUT_GRAD ("logits"), RL_END },
  RL_EVALS (kl_grad), .part = "softmax",
};

static const rl_io io_grad_lm = {
  .in = (const rl_input[]) { LM_SHAPE, RL_END },
  .out = (const rl_output[]) { OUT_GRAD ("logits"), RL_END },
  RL_EVALS (kl_grad_lm), .part = "tiny-lm",
};



/* --- golden cases ------------------------------------------------------- */

/* The variants of each part, for the cases. */
#define K1_ALL "plain,straight-through,openrlhf"
#define K2_ALL "plain,openrlhf"
#define K3_EST "stable,trl-float32,trl-ppo-float32,verl-low-var-kl,verl-float32,openrlhf," \
  "straight-through"
#define K3_TRL "trl-float32,trl-ppo-float32"
#define VAR_ABS "abs,abs-straight-through"
#define VAR_K3 "verl-low-var-kl,verl-float32,openrlhf"
#define VAR_EST VAR_ABS "," VAR_K3
#define GRAD_SOFTMAX "k1,k2,k3,abs,verl-low-var-kl,k1-straight-through,k3-straight-through," \
  "bias-corrected,k1-reward"
#define GRAD_LM "lm-k1,lm-k2,lm-k3"
#define LM_EXACT "lm-token-sum,lm-sequence"

/* The detector of CONVENTIONS.md: l = 2, -2, -29. */
#define DETECTOR "logp=2,-2,-29 ref_logp=0,0,0"
#define BATCH "logp=-0.5,-1.25,-3,-0.01 ref_logp=-0.7,-1,-2.5,-0.02"
/* l = +-1.4, +-1.8: the two binary32 orders of k3, (e^d - 1) - d (TRL's
 * PPOTrainer, OpenRLHF) and (e^d - d) - 1 (TRL's GRPOTrainer, verl), differ
 * in the last bit at d = l and at d = -l, without cancellation: the case
 * tells them apart, and the ratio-inverted departures of each, where only
 * cases not flagged NUMERICAL count.  torch's float32 exp is correctly
 * rounded at these points (it is not at d = 0.3 or 0.4). */
#define ORDER "logp=1.4,-1.4,1.8,-1.8 ref_logp=0,0,0,0"
#define ORDER_WHY "l = 1.4, -1.4, 1.8, -1.8: in binary32 (e^d - 1) - d (TRL PPO, OpenRLHF) " \
  "and (e^d - d) - 1 (TRL GRPO, verl) differ in the last bit on every token (0.64659697 " \
  "against 0.64659691 at l = 1.4), both directions of the ratio; no cancellation"

/* Bad input every per-token part refuses. */
#define C_BAD(variants)                                                                 \
  { variants, "logp=nan,-1 ref_logp=0,0", "NonFinite", "a NaN log-probability",          \
    .invalid_in = "*" },                                                                \
  { variants, "logp=-1,-2 ref_logp=-inf,0", "NonFinite",                                 \
    "a token the reference gives probability 0: log pi_ref = -inf", .invalid_in = "*" }, \
  { variants, "logp= ref_logp=", "Empty", "no tokens", .invalid_in = "*" },            \
  { variants, "logp=-1,-2 ref_logp=0", "LengthMismatch", "two tokens, one reference",   \
    .invalid_in = "*" }

static const rl_case c_k1[] = {
  { K1_ALL, DETECTOR, "Detector", "CONVENTIONS.md: k1 = 2, -2, -29; OpenRLHF clamps -29 to -10 "
    "(gradient 0)" },
  { K1_ALL, "logp=-100 ref_logp=0", "Clamped", "l = -100: OpenRLHF -10" },
  { K1_ALL, "logp=-2.3 ref_logp=-1.2", "NegativeSample",
    "seed 001's exercise: a token the policy finds less likely than the reference gives a "
    "negative k1 = -1.1, though E[k1] = KL >= 0 (KL-EXACT discrete: p = (1/2, 1/2), p_ref = "
    "(1/4, 3/4))" },
  { K1_ALL, BATCH, "", "four tokens" },
  { K1_ALL, "logp=-10,10 ref_logp=0,0", "ClampBoundary",
    "l = -10 and 10 exactly: OpenRLHF's clamp holds the value and passes the gradient "
    "(PyTorch's clamp backward includes the bounds)" },
  { K1_ALL, "logp=-1.0000001 ref_logp=-1", "Float32Rounding",
    "l = -1e-7: binary32 rounds logp to -1.00000011920929, so OpenRLHF's l is -1.19e-7" },
  { K1_ALL, "logp=-1e39 ref_logp=0", "Float32Range",
    "a log-probability beyond the binary32 range: k1 = -1e39 (verl's k1+: gradient -1e39); "
    "OpenRLHF's float32 cast makes it -inf, its clamp -10 with gradient 0" },
  { K1_ALL, "logp=-2e154 ref_logp=0", "StraightThroughOverflow Float32Range",
    "l^2 = 4e308 overflows binary64: verl's k1+ value 0.5 l^2 - (0.5 l^2).detach() + "
    "l.detach() is inf - inf = NaN, refused; plain k1 = -2e154; OpenRLHF -10, gradient 0",
    .invalid_in = "straight-through" },
  C_BAD (K1_ALL),
  RL_END,
};

static const rl_case c_k2[] = {
  { K2_ALL, DETECTOR, "Detector", "k2 = 2, 2, 420.5; OpenRLHF clamps 420.5 to 10 (gradient 0)" },
  { K2_ALL, "logp=-2.3 ref_logp=-1.2", "", "l = -1.1: k2 = 0.605 > 0 where k1 < 0" },
  { K2_ALL, BATCH, "", "four tokens" },
  { K2_ALL, "logp=-1.0000001 ref_logp=-1", "Float32Rounding",
    "l = -1e-7: k2 = 5e-15; OpenRLHF's binary32 l is -1.19e-7" },
  { K2_ALL, "logp=-1e20 ref_logp=0", "Float32Overflow",
    "l^2 = 1e40 overflows binary32: OpenRLHF's k2 is inf, clamped to 10, gradient 0" },
  { K2_ALL, "logp=-1e39 ref_logp=0", "Float32Range",
    "beyond the binary32 range: k2 = 5e77; OpenRLHF's l = -inf gives k2 = inf, clamped to 10, "
    "with a NaN gradient (0 times inf in pow's backward): refused", .invalid_in = "openrlhf" },
  C_BAD (K2_ALL),
  RL_END,
};

static const rl_case c_k3[] = {
  { K3_EST, DETECTOR, "Detector",
    "CONVENTIONS.md: k3 = 1.1353353, 4.3890561, 3.93e12 (plain), 10 (clamped)" },
  { K3_EST, "logp=-100 ref_logp=0", "Detector Float32Overflow",
    "l = -100: k3 = e^100 - 101 = 2.69e43; verl 10 (its log-ratio clamp keeps e^20, in binary32 "
    "too); in binary32 e^100 overflows: TRL's k3 is inf, OpenRLHF's value 10 with a NaN "
    "gradient (both refused)", .invalid_in = K3_TRL ",openrlhf" },
  { K3_EST, "logp=0.001,1e-06,1e-10,-1e-10 ref_logp=0,0,0,0", "NearZero",
    "l near 0: k3 ~ l^2/2; in binary32 TRL GRPO's and verl's (e^d - d) - 1 give 4.77e-7, 0, 0, "
    "0, TRL PPO's (e^d - 1) - d and OpenRLHF's (e^-l - 1) + l 4.90e-7, -1.33e-8, 1e-10, -1e-10 "
    "(k3 < 0 in float32); verl's binary64 exp(d) - d - 1 gives 0 at l = 1e-10" },
  { K3_EST, "logp=0,0 ref_logp=-3,-50", "Clamped",
    "l = 3 and 50: k3 = 2.05 and 49; verl and OpenRLHF clamp 49 to 10" },
  { K3_EST, "logp=-3,-2.53 ref_logp=0,0", "Clamped",
    "l = -3: k3 = e^3 - 4 = 16.09, clamped to 10 with gradient 0; l = -2.53: k3 = 9.99, "
    "not clamped" },
  { K3_EST, "logp=0 ref_logp=-20", "ClampBoundary",
    "ref_logp - logp = -20, verl's input clamp bound; k3 = 19 + e^-20 > 10, the output clamp "
    "binds" },
  { K3_EST, "logp=-2.3 ref_logp=-1.2", "NegativeSample",
    "l = -1.1, where k1 < 0: k3 = e^1.1 - 2.1 = 0.904 >= 0" },
  { K3_EST, BATCH, "NearZero", "four tokens, the last with l = 0.01 (k3 = 5e-5), where verl's "
    "exp(d) - d - 1 cancels (binary64: rel. 1.2e-12)" },
  { K3_EST, ORDER, "OperationOrder", ORDER_WHY },
  { K3_EST, "logp=1e39 ref_logp=0", "Float32Range",
    "beyond the binary32 range: k3 = 1e39 - 1; in binary32 logp = +inf: TRL's k3 is inf "
    "(refused), OpenRLHF's l = +inf and verl's d = -inf (clamped to -20) give 10 with "
    "gradient 0; verl's k3+ 10 with gradient 1e39", .invalid_in = K3_TRL },
  { K3_EST, "logp=-1e39 ref_logp=0", "Float32Range OutOfDomain",
    "l = -1e39: k3 = e^1e39 beyond binary64 (refused); verl 10 with gradient 0 (its clamps; "
    "in binary32 d = +inf clamped to 20), k3+ 10 with gradient -1e39; in binary32 OpenRLHF's "
    "l = -inf gives inf - inf = NaN, TRL's k3 inf - inf: refused",
    .invalid_in = "stable," K3_TRL ",openrlhf" },
  { K3_EST, "logp=2e154 ref_logp=0", "StraightThroughOverflow Float32Range",
    "l = 2e154: l^2 overflows binary64, so verl's k3+ value is inf - inf = NaN (refused) where "
    "verl's low_var_kl gives 10 with gradient 0; k3 = 2e154; in binary32 as at 1e39",
    .invalid_in = "straight-through," K3_TRL },
  C_BAD (K3_EST),
  { "bias-corrected", "logp=-1.5,-0.2 ref_logp=-2,-0.3 old_logp=-1.5,-0.2", "OnPolicy",
    "on-policy (old_logp = logp, as TRL when one update per generation): the value of k3, the "
    "gradient of k2, l" },
  { "bias-corrected", "logp=-1.5,-0.2,-4 ref_logp=-2,-0.3,-1 old_logp=-1.7,-0.1,-3.5", "",
    "off-policy: rho = e^0.2, e^-0.1, e^-0.5" },
  { "bias-corrected", "logp=-1.5 ref_logp=-2 old_logp=nan", "NonFinite", "a NaN old "
    "log-probability", .invalid_in = "*" },
  { "bias-corrected", "logp=-1.5,-1 ref_logp=-2,-1 old_logp=-1", "LengthMismatch",
    "one old log-probability for two tokens", .invalid_in = "*" },
  { "naive", "logp=0.1,0.01,0.001,0.0001,1e-05,1e-06,1e-08,1e-10,1e-12,1e-15 "
    "ref_logp=0,0,0,0,0,0,0,0,0,0", "NearZero NaiveTable",
    "l > 0 near 0: exp(-l) - 1 + l loses about 2 log2(1/l) bits (1e19 ulp at 1e-10), "
    "expm1(-l) + l about log2(1/l)" },
  { "naive", "logp=-0.1,-0.01,-0.001,-0.0001,-1e-05,-1e-06,-1e-08,-1e-10,-1e-12,-1e-15 "
    "ref_logp=0,0,0,0,0,0,0,0,0,0", "NearZero NaiveTable", "l < 0 near 0" },
  { "naive", "logp=1,5,40,100,700,800,-1,-5,-40,-100,-700 "
    "ref_logp=0,0,0,0,0,0,0,0,0,0,0", "NaiveTable",
    "large |l|: both forms within a few ulp (e^-l underflows to 0 from l = 745)" },
  { "naive", "logp=0 ref_logp=0", "ExactZero", "l = 0: k3 = 0 exactly, both forms 0" },
  { "naive", "logp=-1.1 ref_logp=-1.1000000001", "RoundedLogRatio",
    "l = 1e-10 is not a double: the binary64 program rounds it first" },
  { "naive", "logp=-710 ref_logp=0", "OutOfDomain",
    "k3 = e^710 - 711 exceeds the binary64 range", .invalid_in = "*" },
  RL_END,
};

#define LOG3 "-1.0986122886681098"
static const rl_case c_variants[] = {
  { VAR_EST, DETECTOR, "Detector", "abs = 2, 2, 29; verl's k3 as in KL-K3" },
  { VAR_EST, "logp=-1,0.5 ref_logp=-1,0.75", "AbsKink",
    "l = 0 exactly: |l| = 0 with gradient 0 (PyTorch's abs'(0) = 0); l = -0.25" },
  { VAR_EST, BATCH, "NearZero", "four tokens, the last with l = 0.01 (k3 = 5e-5), where verl's "
    "exp(d) - d - 1 cancels (binary64: rel. 1.2e-12, binary32: 8.6e-5; OpenRLHF's binary32 "
    "(e^-l - 1) + l: 1.0e-4)" },
  { VAR_K3, ORDER, "OperationOrder", ORDER_WHY },
  { VAR_EST, "logp=2e154 ref_logp=0", "StraightThroughOverflow Float32Range",
    "l = 2e154: l^2 overflows binary64, so verl's abs+ value is inf - inf = NaN (refused); "
    "|l| = 2e154; verl's low_var_kl 10 with gradient 0, in binary32 too (logp = +inf, d = -inf "
    "clamped to -20), OpenRLHF's k3 10 with gradient 0 (l = +inf)",
    .invalid_in = "abs-straight-through" },
  C_BAD (VAR_EST),
  { "full", "logp=-0.6931471805599453,-1.2039728043259361,-1.6094379124341003 "
    "ref_logp=" LOG3 "," LOG3 "," LOG3, "",
    "p = (0.5, 0.3, 0.2), p_ref uniform over 3: KL = log 3 - H(p) = 0.0690" },
  { "full", "logp=-0.6931471805599453,-0.6931471805599453 "
    "ref_logp=-0.6931471805599453,-0.6931471805599453", "AtReference",
    "p = p_ref: KL = 0 exactly, gradient 0" },
  { "full", "logp=-0.69314718,-0.69314718 ref_logp=-0.1053605156578263,-2.3025850929940455",
    "NearlyNormalised", "exponentials summing to 1 + 1.1e-8, within 1e-6: accepted; p_ref = "
    "(0.9, 0.1)" },
  { "full", "logp=0,0 ref_logp=-0.6931471805599453,-0.6931471805599453", "NotNormalised",
    "exponentials summing to 2", .invalid_in = "*" },
  { "full", "logp=nan,0 ref_logp=0,0", "NonFinite", "a NaN log-probability",
    .invalid_in = "*" },
  { "full", "logp= ref_logp=", "Empty", "no vocabulary", .invalid_in = "*" },
  RL_END,
};

/* The tabular models of the cases: V = 3, EOS 2, T = 3 (7 prefixes, 21 logits). */
#define A3 "V=3 eos=2 T=3 logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,-0.3," \
  "0.3,0"
#define A3_REF " ref_logits=0,0,0,0.5,-0.5,0,0,0,0,1,1,-1,0.1,-0.1,0.3,0.2,0.2,0.2,-1,0,1"
#define Z3 "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
#define Z16 "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
#define C4 "V=4 eos=3 T=2 logits=0.5,-0.5,1,0,-1,0.3,0.2,0,0,1,2,-2,0.4,0.1,-0.6,0.6"
#define C4_REF " ref_logits=" Z16

static const rl_case c_exact[] = {
  { "discrete", "p=1,0 p_ref=0.5,0.5", "SupportMismatch",
    "FORMULAS KL-K3's counter-example: KL = log 2 = 0.693147, E[k3] = 0.193147: the "
    "reference's mass 1/2 outside the policy's support is k3's bias" },
  { "discrete", "p=0.5,0.5 p_ref=0.25,0.75", "NegativeSample",
    "outcome 2 has l = log(2/3) < 0, a negative k1, while E[k1] = KL = 0.1438 > 0 (seed "
    "001's exercise)" },
  { "discrete", "p=0.1,0.2,0.3,0.4 p_ref=0.25,0.25,0.25,0.25", "", "four outcomes" },
  { "discrete", "p=0.5000001,0.4999999 p_ref=0.5,0.5", "Close",
    "p within 1e-7 of p_ref: KL = 2e-14, computed without cancellation" },
  { "discrete", "p=0.999,0.001 p_ref=0.001,0.999", "Far",
    "far apart: k3's variance exceeds k1's" },
  { "discrete", "p=0.5,0.5,0 p_ref=0.5,0.4,0.1", "SupportMismatch",
    "the reference puts 0.1 on an outcome the policy never samples: E[k3] - KL = -0.1" },
  { "discrete", "p=0.5,0.5000005 p_ref=0.5,0.5", "NearlyNormalised",
    "p sums to 1 + 5e-7, within 1e-6: accepted, the distribution p/sum p" },
  { "discrete", "p=0.5,0.6 p_ref=0.5,0.5", "NotNormalised", "p sums to 1.1",
    .invalid_in = "*" },
  { "discrete", "p=0.5,0.5 p_ref=1,0", "ZeroWhereLogNeeded",
    "p_ref = 0 where p > 0: log(p/p_ref) and the KL are infinite", .invalid_in = "*" },
  { "discrete", "p=1.5,-0.5 p_ref=0.5,0.5", "OutOfDomain", "a negative probability",
    .invalid_in = "*" },
  { "discrete", "p=nan,0.5 p_ref=0.5,0.5", "NonFinite", "a NaN probability",
    .invalid_in = "*" },
  { "discrete", "p= p_ref=", "Empty", "no outcomes", .invalid_in = "*" },
  { "discrete", "p=0.5,0.5 p_ref=1", "LengthMismatch", "two outcomes against one",
    .invalid_in = "*" },
  { LM_EXACT, A3 A3_REF, "", "V = 3, T = 3: 15 sequences; token sums against the sequence's "
    "log-ratio" },
  { LM_EXACT, C4 C4_REF, "", "V = 4, EOS 3, T = 2 (4 prefixes, 13 sequences), against uniform "
    "reference logits" },
  { LM_EXACT, A3 " ref_logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,-0.3,0.3,0",
    "AtReference", "the policy is the reference: every estimator and moment 0" },
  { LM_EXACT, "V=3 eos=2 T=3 logits=nan,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0,"
    "-0.3,0.3,0" A3_REF, "NonFinite", "a NaN logit", .invalid_in = "*" },
  { LM_EXACT, "V=3 eos=2 T=3 logits=0,0,0 ref_logits=0,0,0", "LengthMismatch",
    "one row of logits where the tabular model has seven", .invalid_in = "*" },
  { LM_EXACT, "V=3 eos=3 T=3 logits=" Z3 " ref_logits=" Z3, "OutOfDomain",
    "EOS is not a token", .invalid_in = "*" },
  { "gaussian", "mu=0 sigma=1 mu_ref=0.1 sigma_ref=1", "Schulman",
    "Schulman's table, mu = 0.1: KL 0.005; bias/true 0, 0.0025 (printed 0.002), 0; "
    "stdev/true 20, 1.42, 1.42" },
  { "gaussian", "mu=0 sigma=1 mu_ref=1 sigma_ref=1", "Schulman",
    "Schulman's table, mu = 1: KL 0.5; bias/true 0, 0.25, 0; stdev/true 2, 1.73, 1.7" },
  { "gaussian", "mu=0.3 sigma=0.8 mu_ref=-0.2 sigma_ref=1.1", "",
    "unequal variances: sigma_ref^2 = 1.21 < 2 sigma^2 = 1.28, a finite but large Var[k3]" },
  { "gaussian", "mu=0 sigma=1 mu_ref=0 sigma_ref=0.5", "",
    "a narrower reference: k3 beats k1" },
  { "gaussian", "mu=0 sigma=1 mu_ref=0 sigma_ref=1.5", "InfiniteVariance",
    "sigma_ref^2 = 2.25 >= 2 sigma^2: E[(p_ref/p)^2] diverges, Var[k3] = +inf while k1 and "
    "k2 are finite" },
  { "gaussian", "mu=0 sigma=1 mu_ref=1e-08 sigma_ref=1", "Close",
    "mu_ref = 1e-8: KL = 5e-17, every moment without cancellation" },
  { "gaussian", "mu=0 sigma=1 mu_ref=0x1.5798ee2308c3ap-487 sigma_ref=1", "Close",
    "mu_ref = 2^-487 (3.4e-147): Var k2 ~ mu_ref^4/2 underflows binary64 where sqrt(Var k2)/KL "
    "= sqrt 2 does not (the domain fuzzer's find); sqrt(Var k1) = sqrt(c1^2 + 2 c2^2) turns "
    "like |sigma - sigma_ref| within 2^-487 of sigma = sigma_ref" },
  { "gaussian", "mu=0 sigma=1 mu_ref=0 sigma_ref=10000", "InfiniteVariance",
    "a reference 1e4 times wider: KL = log 1e4 - (1 - 1e-8)/2, KL(ref || policy) = 5e7 - "
    "1/2 - log 1e4, Var[k3] = +inf (250 ulps were lost at sigma_ref = 100 before)" },
  { "gaussian", "mu=0 sigma=1 mu_ref=0 sigma_ref=1", "OutOfDomain",
    "equal Gaussians: KL = 0, the ratios to it undefined", .invalid_in = "*" },
  { "gaussian", "mu=0 sigma=0 mu_ref=1 sigma_ref=1", "OutOfDomain", "sigma = 0",
    .invalid_in = "*" },
  { "gaussian", "mu=0 sigma=1 mu_ref=nan sigma_ref=1", "NonFinite", "a NaN mean",
    .invalid_in = "*" },
  { "monte-carlo", "mu=0 sigma=1 mu_ref=0.1 sigma_ref=1 n=10000 seed=1", "Schulman MonteCarlo",
    "Schulman's mu = 0.1 by 10^4 seeded draws, beside the exact table" },
  { "monte-carlo", "mu=0 sigma=1 mu_ref=1 sigma_ref=1 n=10000 seed=1", "Schulman MonteCarlo",
    "mu = 1 by 10^4 seeded draws" },
  { "monte-carlo", "mu=0 sigma=1 mu_ref=0.1 sigma_ref=1 n=1 seed=1", "OutOfDomain",
    "one draw: no sample standard deviation", .invalid_in = "*" },
  { "monte-carlo", "mu=0 sigma=1 mu_ref=0.1 sigma_ref=1 n=10 seed=-1", "OutOfDomain",
    "a negative seed", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_grad[] = {
  { GRAD_SOFTMAX, "logits=0.3,-1.2,0.7,0 ref_logits=0,0.5,-0.4,0.2", "",
    "four outcomes: k1's gradient is 0, k2's and k3+'s are grad KL(q || q_ref), k3's is "
    "grad KL(q_ref || q)" },
  { GRAD_SOFTMAX, "logits=1,0 ref_logits=0,1", "", "two outcomes" },
  { GRAD_SOFTMAX, "logits=4,-4,0 ref_logits=-4,4,0", "Clamped",
    "far from the reference: verl's clamp binds on the first outcome (k3(-8) > 10)" },
  { GRAD_SOFTMAX, "logits=0.3,-1.2,0.7,746 ref_logits=0,0.5,-0.4,0.2", "LogitGap",
    "a logit 746 above the others: their probabilities, near e^-746, are below binary64's "
    "range (k2 once gave kl = 0.582 for 1.313)" },
  { GRAD_SOFTMAX, "logits=4,-745,0 ref_logits=-4,4,0", "LogitGap",
    "a logit 749 below the largest, where the reference gives it the most mass: kl_reverse = "
    "735.28 (k1 once gave kl = 6.875 for 7.856)" },
  { GRAD_SOFTMAX, "logits=4,-4,0 ref_logits=1e4,4,0", "LogitGap",
    "a reference logit of 1e4: the reference is a point mass but for e^-9996 (kl_reverse "
    "once 1.70e-4 for 0.0185)" },
  { GRAD_SOFTMAX, "logits=0.3,-1.2,0.7 ref_logits=0.3,-1.2,0.7", "AtReference",
    "q = q_ref: every gradient 0" },
  { GRAD_SOFTMAX, "logits=nan,0 ref_logits=0,0", "NonFinite", "a NaN logit",
    .invalid_in = "*" },
  { GRAD_SOFTMAX, "logits=0,0 ref_logits=0", "LengthMismatch", "two logits against one",
    .invalid_in = "*" },
  { GRAD_SOFTMAX, "logits= ref_logits=", "Empty", "no outcomes", .invalid_in = "*" },
  { GRAD_LM, A3 A3_REF, "", "the tiny LM of KL-EXACT: k2's gradient is grad KL(q || q_ref), "
    "k3's grad KL(q_ref || q), k1's 0" },
  { "lm-k2,lm-k3", C4 C4_REF, "", "V = 4, T = 2 against uniform reference logits" },
  { "lm-k2,lm-k3", "V=4 eos=3 T=2 logits=0x1p-633,-0x1p-633,0x1p-632,0,-0x1p-632,"
    "0x1.3333333333333p-634,0x1.999999999999ap-635,0,0,0x1p-632,0x1p-631,-0x1p-631,"
    "0x1.999999999999ap-634,0x1.999999999999ap-636,-0x1.3333333333333p-633,"
    "0x1.3333333333333p-633" C4_REF, "Close",
    "the logits above times 2^-632: a gradient element of 3.5e-192 cancels beyond twice the "
    "working precision, where two runs agreed on an exact 0 (the domain fuzzer's find)" },
  { GRAD_LM, "V=3 eos=2 T=3 logits=0,0,0 ref_logits=0,0,0", "LengthMismatch",
    "one row of logits where the tabular model has seven", .invalid_in = "*" },
  RL_END,
};

/* --- notes --------------------------------------------------------------- */

static const rl_note n_kl[] = {
  { "Detector", "CONVENTION",
    "A detector from CONVENTIONS.md \"KL estimators\": l = 2, -2, -29 (and -100) give k1 = 2, "
    "-2, -29 and k3 = 1.1353353, 4.3890561, 3.93e12, 2.69e43 without clamp, 10 with verl's "
    "clamp; binary32 overflows at -100." },
  { "NegativeSample", "PROPERTY",
    "A single sample with l < 0: k1 is negative, though its expectation KL is not (seed 001's "
    "exercise; seed 000 table 5); k2 and k3 are never negative." },
  { "SupportMismatch", "PROPERTY",
    "The reference has mass where the policy has none: E[u] = sum_{p>0} p_ref < 1, so k3 is "
    "biased by exactly minus that mass (FORMULAS.md KL-K3)." },
  { "Clamped", "CONVENTION",
    "A library's clamp binds: verl's low_var_kl and OpenRLHF hold the estimate at 10 and the "
    "gradient is 0 (PyTorch's clamp backward)." },
  { "ClampBoundary", "EDGE_CASE",
    "The value sits exactly on a clamp bound: PyTorch's clamp passes the gradient for min <= "
    "x <= max." },
  { "OperationOrder", "CONVENTION",
    "The binary32 conventions differ by their operation order alone: (e^d - 1) - d and (e^d - "
    "d) - 1 round differently, by one unit of binary32's last place, on moderate log-ratios "
    "without cancellation (not a numerical edge: the order is the library's)." },
  { "Float32Rounding", "NUMERICAL",
    "The binary32 conventions round each log-probability to binary32 before the difference: "
    "a small log-ratio is changed in its first digits." },
  { "Float32Overflow", "NUMERICAL",
    "An intermediate overflows binary32: the library's value is inf (TRL's k3), clamped "
    "(OpenRLHF's k2, gradient 0), or clamped with a NaN gradient (OpenRLHF's k3: 0 times inf "
    "in exp's backward); verl's clamp of the log-ratio to [-20, 20] keeps its e^d finite. "
    "Where the library's output is inf or NaN the convention refuses (ERANGE)." },
  { "Float32Range", "NUMERICAL",
    "A log-probability beyond the binary32 range: the float32 cast (OpenRLHF's .float(), a "
    "float32 tensor for TRL and verl) makes it +-inf. OpenRLHF's clamp holds k1 and k3(+inf) "
    "at +-10 with gradient 0 and verl's clamps give 10 with gradient 0; where the library's "
    "value or gradient is inf or NaN (TRL's k3, OpenRLHF's k2, OpenRLHF's k3 at l = -inf) the "
    "binary32 convention refuses (ERANGE). The binary64 conventions take the value as it is." },
  { "StraightThroughOverflow", "NUMERICAL",
    "0.5 l^2 overflows (binary64 beyond |l| = 1.34e154, binary32 beyond 1.8e19): verl's "
    "straight-through value 0.5 l^2 - (0.5 l^2).detach() + k.detach() is inf - inf = NaN, "
    "though the estimator k itself is finite; the straight-through conventions refuse "
    "(ERANGE)." },
  { "NearZero", "NUMERICAL",
    "l near 0: k3 ~ l^2/2. exp(-l) - 1 + l loses about 2 log2(1/|l|) bits, expm1(-l) + l about "
    "log2(1/|l|); the golden value is exact (the Taylor series). verl's exp(d) - d - 1 in "
    "binary64 is off by about 1e-12 relative at l = 0.01 and gives 0 at 1e-10. The binary32 "
    "forms lose everything below |l| ~ 1e-4: TRL GRPO's and verl's (e^d - d) - 1 give 0, TRL "
    "PPO's (e^d - 1) - d and OpenRLHF's (e^-l - 1) + l about l, which can be negative." },
  { "NaiveTable", "NUMERICAL",
    "The error in ulp of the naive k3 = exp(-l) - 1 + l and of expm1(-l) + l computed in "
    "binary64, against the exact k3 (plots/README.md, figure kl_naive)." },
  { "ExactZero", "EDGE_CASE", "l = 0: k3 is exactly 0." },
  { "RoundedLogRatio", "NUMERICAL",
    "logp - ref_logp is not a double: a binary64 program rounds it before the estimator; the "
    "exact k3 is of the exact difference." },
  { "AbsKink", "EDGE_CASE", "l = 0 exactly: |l| has a kink; its gradient is taken as 0, as "
    "PyTorch's abs backward (sign(0) = 0)." },
  { "AtReference", "PROPERTY", "The policy equals the reference: KL = 0, every estimator 0, "
    "every gradient 0." },
  { "NearlyNormalised", "EDGE_CASE",
    "A distribution whose sum differs from 1 by less than the tolerance 1e-6: accepted, and "
    "normalised (p/sum p; the full KL: the log-probabilities less their log-sum-exp)." },
  { "NotNormalised", "INVALID_INPUT",
    "A distribution whose sum differs from 1 by more than 1e-6: refused (EDOM)." },
  { "ZeroWhereLogNeeded", "INVALID_INPUT",
    "p_ref = 0 where p > 0: log(p/p_ref) is infinite, so is the KL: refused (EDOM)." },
  { "LogitGap", "NUMERICAL",
    "A logit gap beyond 745: e^-gap is below binary64's range, so the probabilities are not "
    "formed first; the KL and its gradient come from log-softmax with the maximum shifted out, "
    "and a probability below the range still counts through its logarithm." },
  { "Close", "NUMERICAL",
    "The distributions nearly agree: KL and the biases are far below their terms, and are "
    "formed without cancellation (p k3(l) >= 0, remainder series)." },
  { "Far", "PROPERTY", "The distributions are far apart: k3's variance exceeds k1's, as seed "
    "000 warns (no guarantee k3 is better for every distribution)." },
  { "Schulman", "WORKED_EXAMPLE",
    "The table of Schulman's note \"Approximating KL divergence\" (q = N(0, 1), p = N(mu, 1), "
    "mu = 0.1 and 1), which seed 000 section 12.1 cites: bias/true and stdev/true of k1, k2, "
    "k3, here exact; the note prints them from 10^7 samples." },
  { "MonteCarlo", "PROPERTY",
    "A seeded Monte-Carlo run (GSL's MT19937 and gsl_ran_gaussian): the same draws in both "
    "backends, reproducible to the last bit." },
  { "InfiniteVariance", "PROPERTY",
    "sigma_ref^2 >= 2 sigma^2: the ratio p_ref/p has no second moment under p, Var[k3] = +inf." },
  { "OnPolicy", "CONVENTION", "old_logp = logp: the importance ratio is 1 in value but not in "
    "its gradient." },
  { "OutOfDomain", "INVALID_INPUT", "Outside the domain: refused (EDOM), or a result beyond "
    "the binary64 range (ERANGE)." },
  RL_END,
};

/* --- axes: the departures rlref check searches (rl_axis) ---------------- */

_Static_assert (sizeof (rlref_kl_convention) <= RL_AXIS_SCRATCH,
                "a moved convention fits the axis scratch");

/* A copy of base's per-token convention in scratch, for base moved along
 * an axis; NULL for the parts that carry none (bias-corrected, naive,
 * full). */
static rlref_kl_convention *
moved (const rl_variant *base, rl_variant *out, void *scratch)
{
  rlref_kl_convention *m = scratch;
  if (base->io != &io_est || base->data == NULL)
    return NULL;
  *out = *base;
  *m = *(const rlref_kl_convention *) base->data;
  out->data = m;
  return m;
}

/* verl's straight-through 0.5 l^2 - (0.5 l^2).detach() + k.detach() with
 * k's detach missing: the gradient k' + l. */
static int
axis_value_live (const rl_variant *base, rl_variant *out, void *scratch, char *label,
                 size_t size)
{
  rlref_kl_convention *m = moved (base, out, scratch);
  if (m == NULL || m->straight_through != RLREF_KL_ST)
    return -1;
  m->straight_through = RLREF_KL_ST_VALUE_LIVE;
  snprintf (label, size, "the value's stop-gradient missing (k2 - k2.detach() + k: the "
            "estimator's own gradient added to k2's)");
  return 0;
}

/* The same with k2's detach missing: k2 - k2 + k.detach() passes no
 * gradient at all.  (The estimator's own gradient, k + (k2 - k2), is the
 * convention without "+", a variant of its own.) */
static int
axis_k2_live (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size)
{
  rlref_kl_convention *m = moved (base, out, scratch);
  if (m == NULL || m->straight_through != RLREF_KL_ST)
    return -1;
  m->straight_through = RLREF_KL_ST_K2_LIVE;
  snprintf (label, size, "k2's stop-gradient missing (k2 - k2 + k.detach(): gradient 0)");
  return 0;
}

/* k3 of the inverted ratio pi/pi_ref in place of u = pi_ref/pi: the
 * estimator at -l, e^l - 1 - l, of the reverse direction. */
static int
axis_inverted (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size)
{
  rlref_kl_convention *m = moved (base, out, scratch);
  if (m == NULL || m->estimator != RLREF_KL_K3 || m->inverted)
    return -1;
  m->inverted = 1;
  snprintf (label, size, "the ratio inverted, pi/pi_ref in place of pi_ref/pi (k3 = e^l - 1 - "
            "l, the reverse direction)");
  return 0;
}

static const rl_axis kl_axes[] = {
  { "straight-through-value-live", axis_value_live },
  { "straight-through-k2-live", axis_k2_live },
  { "ratio-inverted", axis_inverted },
  { NULL, NULL },
};

/* --- formulas ------------------------------------------------------------ */

static rl_formula formulas[] = {
  { "KL-K1", "k1 = log(pi/pi_ref) per token: unbiased, a single sample can be negative",
    "000 table 5; 001",
    "k1 = l = logp − ref_logp per sampled token; gradient d k/d logp; OpenRLHF in float32 with "
    "a ±10 clamp; verl's straight-through k1+", .cases = c_k1, .notes = n_kl, .axes = kl_axes },
  { "KL-K2", "k2 = l^2/2 per token: non-negative, biased", "000 table 5",
    "k2 = ½ l²; gradient l; OpenRLHF in float32 clamped at 10", .cases = c_k2, .notes = n_kl,
    .axes = kl_axes },
  { "KL-K3", "k3 = u - 1 - log u per token (13.26): non-negative, unbiased on a shared support",
    "000 (13.26), table 5",
    "k3 = e^{−l} − 1 + l = u − 1 − log u, u = π_ref/π (13.26), exact; TRL (GRPO, PPO), verl "
    "and OpenRLHF in float32 in their operation order, verl's clamps before and after exp, "
    "k3+, TRL's bias-corrected k3·ρ; the naive form's error in binary64", .cases = c_k3,
    .notes = n_kl, .axes = kl_axes },
  { "KL-VARIANTS", "the libraries' other estimators: abs, clamped k3, the full KL",
    "libraries (CONVENTIONS.md)",
    "|l| and its straight-through form (verl), the clamped k3 of verl (binary64 and float32) "
    "and OpenRLHF (float32), and the exact KL over the vocabulary Σ p log(p/p_ref)", .cases = c_variants, .notes = n_kl,
    .axes = kl_axes },
  { "KL-EXACT", "exact expectation, bias and variance of k1, k2, k3 against the true KL",
    "000 section 12.1",
    "E, E − KL and Var of k1, k2, k3 under π: on a finite distribution, the tiny LM (token "
    "sums and the sequence log-ratio), two Gaussians in closed form (Schulman's table) and a "
    "seeded Monte-Carlo run", NULL, c_exact, n_kl, .ulps = 128 },
  { "KL-GRAD", "the expected gradient of each estimator used as a loss, against the true "
    "gradients", "000 section 5, section 12.1",
    "E_q[∇k(l_y)] with y ~ q held fixed, beside ∇KL(q‖q_ref) and ∇KL(q_ref‖q): k1 → 0, k2 → "
    "∇KL(q‖q_ref), k3 → ∇KL(q_ref‖q); on a softmax and the tiny LM", NULL, c_grad, n_kl,
    .ulps = 128 },
  RL_END,
};

/* The ios of the rows of rlref_kl_other_conventions, one per part. */
static const rl_io *const other_ios[] = {
  &io_bias, &io_naive, &io_full, &io_discrete, &io_exact_lm, &io_gauss, &io_mc, NULL,
};

/* One variant per convention the estimators' table carries for formula id,
 * then one per row of the other conventions' table under id. */
static rl_variant *
variants_of (const char *id)
{
  size_t n_other = rlref_convention_count (rlref_kl_other_conventions, id);
  rl_variant *v = rl_variants_new (rlref_kl_num_conventions + n_other);
  rl_variant *other = rl_variants_of (rlref_kl_other_conventions, id, other_ios, NULL);
  size_t n = 0;
  for (size_t i = 0; i < rlref_kl_num_conventions; i++)
    {
      const rlref_kl_convention *c = &rlref_kl_conventions[i];
      size_t np = 0;
      if (rlref_kl_convention_find (id, c->name) != c)
        continue;
      v[n] = (rl_variant) { c->name, c->rule, c->used_by, &io_est, .data = c,
                            .cert = c->arith != RLREF_KL_EXACT ? "float32-emulation" : NULL };
      if (c->log_ratio_clamp > 0)
        v[n].params[np++] = (rl_param) { "log_ratio_clamp", c->log_ratio_clamp };
      if (c->kl_clamp > 0)
        v[n].params[np++] = (rl_param) { "kl_clamp", c->kl_clamp };
      n++;
    }
  for (size_t i = 0; i < n_other; i++)
    v[n++] = other[i];
  free (other);
  return v;
}

/* KL-GRAD's variants, one per convention of the library's table, in its
 * order: on a softmax or on the tiny LM. */
static rl_variant *
grad_variants (void)
{
  rl_variant *v = rl_variants_new (rlref_kl_grad_num_conventions);
  for (size_t i = 0; i < rlref_kl_grad_num_conventions; i++)
    {
      const rlref_kl_grad_convention *c = &rlref_kl_grad_conventions[i];
      v[i] = (rl_variant) { c->name, c->rule, c->used_by, c->lm ? &io_grad_lm : &io_grad,
                            .data = c };
    }
  return v;
}

static void
init (void)
{
  formulas[0].variants = variants_of ("KL-K1");
  formulas[1].variants = variants_of ("KL-K2");
  formulas[2].variants = variants_of ("KL-K3");
  formulas[3].variants = variants_of ("KL-VARIANTS");
  formulas[4].variants = variants_of ("KL-EXACT");
  formulas[5].variants = grad_variants ();
}

RL_FAMILY (kl) = {
  .name = "kl",
  .title = "KL estimators",
  .rank = 8,
  .formulas = formulas,
  .init = init,
};
