/* klopt.c -- the KLOPT family: the closed-form optimum of the
 * KL-regularised objective on an explicit finite distribution (seed 000
 * sections 2.2 and 4.1, equations 13.8 and 13.13-13.17): inputs, outputs,
 * variants, golden cases and notes.
 *
 * Throughout, for n outcomes y with reference distribution pi_ref, rewards
 * r and beta > 0:
 *   Z = sum_y pi_ref(y) e^{r(y)/beta},  pi*(y) = pi_ref(y) e^{r(y)/beta} / Z,
 *   J(pi) = E_pi[r] - beta KL(pi || pi_ref),  KL(p || q) = sum_y p log(p/q),
 * with 0 log 0 = 0 and KL = +inf where p > 0 = q.  pi_ref (and a policy pi)
 * is given as probabilities (variant prob) or log-probabilities (variant
 * logprob) and normalised (rlref/klopt.h).
 * The variants are the rows of the library's table
 * (reference/src/klopt/klopt_conventions.c). */
#include <string.h>
#include "rlref/klopt.h"
#include "family.h"

RL_EVAL_DECL (klopt_z);
RL_EVAL_DECL (klopt_pistar);
RL_EVAL_DECL (klopt_obj);
RL_EVAL_DECL (klopt_ident);
RL_EVAL_DECL (klopt_lim_ref);
RL_EVAL_DECL (klopt_lim_argmax);
RL_EVAL_DECL (klopt_lim_finite);

/* --- inputs and outputs ------------------------------------------------ */

#define IN_P_REF                                                                         \
  { "p_ref", RL_REAL_ARRAY, "reference probabilities pi_ref(y) of the n outcomes, each finite "  \
    "and >= 0 (0: the outcome is impossible under pi_ref); rejected (EDOM) unless the exact "   \
    "sum S satisfies |S - 1| <= 2^-20; every formula uses the exact distribution p_ref / S",    \
    .domain = "[0,inf) sum1" }
#define IN_LOGP_REF                                                                      \
  { "logp_ref", RL_REAL_ARRAY, "reference log-probabilities log pi_ref(y), each finite or -inf " \
    "(probability 0); rejected (EDOM) unless l = log sum_y e^{logp_ref(y)} satisfies "          \
    "|l| <= 2^-20; every formula uses log pi_ref = logp_ref - l (exactly)" }
#define IN_R(ref)                                                                        \
  { "r", RL_REAL_ARRAY, "reward r(y) of each outcome, finite", .same_len_as = ref }
#define IN_BETA                                                                          \
  { "beta", RL_REAL, "KL coefficient beta, finite and > 0", .domain = "(0,inf)" }
#define IN_PI                                                                            \
  { "pi", RL_REAL_ARRAY, "the policy pi(y) evaluated: probabilities, normalised as p_ref "     \
    "(the same tolerance 2^-20, the same division by the exact sum)", .same_len_as = "p_ref",   \
    .domain = "[0,inf) sum1" }
#define IN_LOGPI                                                                         \
  { "logpi", RL_REAL_ARRAY, "the policy's log-probabilities log pi(y), -inf for 0, normalised " \
    "as logp_ref", .same_len_as = "logp_ref" }

#define OUT_LOGZ { "logz", "log Z = log sum_y pi_ref(y) e^{r(y)/beta} (13.15)" }
#define OUT_Z { "z", "Z = e^{log Z} where binary64 represents it (Z <= DBL_MAX = "           \
  "(2 - 2^-52) 2^1023); +inf beyond (use log Z there)" }
static const rl_output out_z[] = { OUT_LOGZ, OUT_Z, RL_END };
static const rl_io io_z_prob = {
  (const rl_input[]) { IN_P_REF, IN_R ("p_ref"), IN_BETA, RL_END }, out_z,
  RL_EVALS (klopt_z), .part = "logz",
};
static const rl_io io_z_logprob = {
  (const rl_input[]) { IN_LOGP_REF, IN_R ("logp_ref"), IN_BETA, RL_END }, out_z,
  RL_EVALS (klopt_z), .part = "logz",
};

#define OUT_PISTAR(ref)                                                                  \
  { "pistar", "pi*(y) = pi_ref(y) e^{r(y)/beta} / Z (13.17); exactly 0 where pi_ref(y) = 0", \
    .len_of = ref },                                                                       \
  { "logpistar", "log pi*(y) = log pi_ref(y) + r(y)/beta - log Z; -inf where pi_ref(y) = 0",   \
    .len_of = ref },                                                                       \
  { "er", "E_pi*[r] = sum_y pi*(y) r(y)" },                                                \
  { "kl_star_ref", "KL(pi* || pi_ref) = sum_y pi* log(pi*/pi_ref) = E_pi*[r]/beta - log Z" },  \
  { "kl_ref_star", "KL(pi_ref || pi*) = sum_y pi_ref log(pi_ref/pi*) = log Z - E_pi_ref[r]/beta" }
static const rl_io io_pistar_prob = {
  (const rl_input[]) { IN_P_REF, IN_R ("p_ref"), IN_BETA, RL_END },
  (const rl_output[]) { OUT_PISTAR ("p_ref"), RL_END },
  RL_EVALS (klopt_pistar), .part = "pistar",
};
static const rl_io io_pistar_logprob = {
  (const rl_input[]) { IN_LOGP_REF, IN_R ("logp_ref"), IN_BETA, RL_END },
  (const rl_output[]) { OUT_PISTAR ("logp_ref"), RL_END },
  RL_EVALS (klopt_pistar), .part = "pistar",
};

static const rl_output out_obj[] = {
  { "obj", "J(pi) = E_pi[r] - beta KL(pi || pi_ref) (13.13); -inf when KL is +inf" },
  { "er", "E_pi[r] = sum_y pi(y) r(y)" },
  { "kl", "KL(pi || pi_ref) = sum_y pi log(pi/pi_ref), 0 log 0 = 0; +inf when pi(y) > 0 = "
    "pi_ref(y) for some y" },
  { "obj_star", "J(pi*) = E_pi*[r] - beta KL(pi* || pi_ref): the objective at the optimum "
    "(13.17)" },
  { "beta_logz", "beta log Z, which J(pi*) equals (the optimum value)" },
  RL_END,
};
static const rl_io io_obj_prob = {
  (const rl_input[]) { IN_P_REF, IN_R ("p_ref"), IN_BETA, IN_PI, RL_END }, out_obj,
  RL_EVALS (klopt_obj), .part = "objective",
};
static const rl_io io_obj_logprob = {
  (const rl_input[]) { IN_LOGP_REF, IN_R ("logp_ref"), IN_BETA, IN_LOGPI, RL_END }, out_obj,
  RL_EVALS (klopt_obj), .part = "objective",
};

static const rl_output out_ident[] = {
  { "obj", "J(pi) = E_pi[r] - beta KL(pi || pi_ref) (13.13); -inf when KL is +inf" },
  { "ident", "-beta [KL(pi || pi*) - log Z] (13.16), which equals obj for every pi" },
  { "kl_pistar", "KL(pi || pi*) = sum_y pi log(pi/pi*) >= 0 (Gibbs), 0 only at pi = pi*; "
    "+inf when pi(y) > 0 = pi_ref(y) for some y" },
  RL_END,
};
static const rl_io io_ident_prob = {
  (const rl_input[]) { IN_P_REF, IN_R ("p_ref"), IN_BETA, IN_PI, RL_END }, out_ident,
  RL_EVALS (klopt_ident), .part = "identity",
};
static const rl_io io_ident_logprob = {
  (const rl_input[]) { IN_LOGP_REF, IN_R ("logp_ref"), IN_BETA, IN_LOGPI, RL_END }, out_ident,
  RL_EVALS (klopt_ident), .part = "identity",
};

static const rl_io io_lim_ref = {
  (const rl_input[]) { IN_P_REF, IN_R ("p_ref"), RL_END },
  (const rl_output[]) {
    { "pi", "lim_{beta -> inf} pi*(y) = pi_ref(y)", .len_of = "p_ref" },
    { "er", "lim_{beta -> inf} E_pi*[r] = E_pi_ref[r]" },
    RL_END },
  RL_EVALS (klopt_lim_ref), .part = "beta-inf",
};
static const rl_io io_lim_argmax = {
  (const rl_input[]) { IN_P_REF, IN_R ("p_ref"), RL_END },
  (const rl_output[]) {
    { "pi", "lim_{beta -> 0} pi*(y) = pi_ref(y)/pi_ref(A) for y in A, else 0; A = the outcomes "
      "with pi_ref(y) > 0 whose reward is the maximum m of r over those outcomes",
      .len_of = "p_ref" },
    { "er", "lim_{beta -> 0} E_pi*[r] = m" },
    RL_END },
  RL_EVALS (klopt_lim_argmax), .part = "beta-zero",
};
static const rl_io io_lim_finite = {
  (const rl_input[]) { IN_P_REF, IN_R ("p_ref"), IN_BETA, RL_END },
  (const rl_output[]) {
    { "pi", "pi*(y) at this beta (13.17)", .len_of = "p_ref" },
    { "er", "E_pi*[r] at this beta" },
    { "tv_ref", "(1/2) sum_y |pi*(y) - pi_ref(y)|: distance to the beta -> inf limit" },
    { "tv_argmax", "(1/2) sum_y |pi*(y) - pi0(y)| = pi*(outcomes outside A): distance to the "
      "beta -> 0 limit pi0 (variant beta-zero)" },
    RL_END },
  RL_EVALS (klopt_lim_finite), .part = "finite-beta",
};

/* --- golden cases ------------------------------------------------------ */

/* log 0.5, log 0.2, log 0.3, log 0.25 rounded to binary64 */
#define L05 "-0.6931471805599453"
#define L02 "-1.6094379124341003"
#define L03 "-1.2039728043259361"
#define L025 "-1.3862943611198906"

static const rl_case c_z[] = {
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1", "", "log Z = log((1 + e)/2)" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5", "", "three outcomes" },
  { "prob", "p_ref=0.25,0.25,0.25,0.25 r=0.5,1.5,-1,0 beta=0.1", "SmallBeta", "r/beta up to 15" },
  { "prob", "p_ref=0.1,0.2,0.7 r=1,2,3 beta=1", "Normalised",
    "sum of the binary64 inputs is 1 - 2^-55: divided by it" },
  { "prob", "p_ref=0.5,0.5000005 r=1,0 beta=1", "Normalised",
    "sum 1 + 5e-7, within 2^-20: divided by it" },
  { "prob", "p_ref=0,0.5,0.5 r=100,0,1 beta=1", "ZeroRef",
    "the best-rewarded outcome has pi_ref = 0 and adds nothing to Z" },
  { "prob", "p_ref=1 r=3 beta=2", "SingleOutcome", "log Z = r/beta = 1.5" },
  { "prob", "p_ref=0.3,0.7 r=2,2 beta=0.5", "ConstantReward Normalised", "log Z = r/beta = 4 exactly" },
  { "prob", "p_ref=0.5,0.25,0.25 r=10000,0,-10000 beta=1", "LargeReward",
    "log Z = 1e4 + log 0.5 + ...: e^{r/beta} overflows binary64; Z is +inf" },
  { "prob", "p_ref=0.5,0.5 r=700,0 beta=1", "LargeReward", "Z = e^700/2 + 1/2 = 5.07e303, "
    "still a double" },
  { "prob", "p_ref=0.5,0.5 r=10,0 beta=0.001", "LargeReward SmallBeta", "r/beta = 1e4" },
  { "prob", "p_ref=0.5,0.5 r=-1000,-2000 beta=1", "LargeReward", "Z = e^-1000.69 underflows" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=1000000", "LargeBeta",
    "log Z ~ E[r]/beta = 1.05e-6" },
  { "prob", "p_ref=0.5,0.5 r=1,-1 beta=1000000", "LargeBeta",
    "E[r] = 0: log Z ~ Var[r]/(2 beta^2) = 5e-13" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=0", "BetaOutOfDomain", "beta = 0", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=-1", "BetaOutOfDomain", "beta < 0", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=inf", "NonFinite", "infinite beta", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=nan", "NonFinite", "NaN beta", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=nan,0 beta=1", "NonFinite", "NaN reward", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=inf,0 beta=1", "NonFinite", "infinite reward", .invalid_in = "*" },
  { "prob", "p_ref=inf,0 r=1,0 beta=1", "NonFinite", "infinite probability", .invalid_in = "*" },
  { "prob", "p_ref=-0.1,1.1 r=1,0 beta=1", "NotADistribution", "a negative probability",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.6 r=1,0 beta=1", "NotADistribution", "probabilities sum to 1.1",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.500001 r=1,0 beta=1", "NotADistribution",
    "sum 1 + 1e-6, beyond 2^-20", .invalid_in = "*" },
  { "prob", "p_ref=0,0 r=1,0 beta=1", "NotADistribution", "no outcome has positive probability",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1 beta=1", "LengthMismatch", "one reward for two outcomes",
    .invalid_in = "*" },
  { "prob", "p_ref= r= beta=1", "Empty", "no outcome", .invalid_in = "*" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0 beta=1", "Normalised",
    "log 0.5 rounded: log-sum-exp 2.3e-17, subtracted" },
  { "logprob", "logp_ref=" L02 "," L03 "," L05 " r=1,-0.5,2 beta=0.5", "Normalised",
    "log 0.2, log 0.3, log 0.5 rounded" },
  { "logprob", "logp_ref=-inf," L05 "," L05 " r=100,0,1 beta=1", "ZeroRef Normalised",
    "an impossible outcome (-inf) with the best reward" },
  { "logprob", "logp_ref=0 r=3 beta=2", "SingleOutcome", "log Z = 1.5" },
  { "logprob", "logp_ref=-0.6931471805599453,-1.3862943611198906,-1.3862943611198906 "
    "r=10000,0,-10000 beta=1", "LargeReward Normalised", "log Z ~ 1e4" },
  { "logprob", "logp_ref=" L02 "," L03 "," L05 " r=1,-0.5,2 beta=1000000",
    "LargeBeta Normalised", "log Z ~ 1.05e-6" },
  { "logprob", "logp_ref=1,2,3 r=1,0,0 beta=1", "NotADistribution",
    "logits, not log-probabilities: log-sum-exp 3.41", .invalid_in = "*" },
  { "logprob", "logp_ref=-inf,-inf r=1,0 beta=1", "NotADistribution", "every outcome -inf",
    .invalid_in = "*" },
  { "logprob", "logp_ref=nan,0 r=1,0 beta=1", "NonFinite", "NaN log-probability",
    .invalid_in = "*" },
  { "logprob", "logp_ref=inf,0 r=1,0 beta=1", "NonFinite", "+inf log-probability",
    .invalid_in = "*" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0 beta=0", "BetaOutOfDomain", "beta = 0",
    .invalid_in = "*" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0,2 beta=1", "LengthMismatch",
    "three rewards for two outcomes", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_pistar[] = {
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1", "", "pi* = (e, 1)/(e + 1)" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5", "", "three outcomes" },
  { "prob", "p_ref=0.1,0.2,0.7 r=1,2,3 beta=1", "Normalised", "sum 1 - 2^-55" },
  { "prob", "p_ref=0,0.5,0.5 r=100,0,1 beta=1", "ZeroRef",
    "pi*(0) = 0 and log pi*(0) = -inf despite the best reward; KL(pi_ref || pi*) finite" },
  { "prob", "p_ref=1 r=3 beta=2", "SingleOutcome", "pi* = 1, both KL 0" },
  { "prob", "p_ref=0.3,0.7 r=2,2 beta=0.5", "ConstantReward Normalised", "pi* = pi_ref, both KL 0" },
  { "prob", "p_ref=0.25,0.25,0.5 r=1,1,0.5 beta=0.5", "Tie",
    "outcomes 0 and 1 share the best reward: equal pi*" },
  { "prob", "p_ref=0.5,0.25,0.25 r=10000,0,-10000 beta=1", "LargeReward",
    "pi* = (1 - 5.7e-4344, e^-1e4 / 2 = 5.7e-4344, e^-2e4 / 2 = 6.4e-8687)" },
  { "prob", "p_ref=0.5,0.5 r=10,0 beta=0.001", "LargeReward SmallBeta",
    "pi*(1) = e^-1e4 / (1 + e^-1e4)" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=1000000", "LargeBeta",
    "pi* - pi_ref ~ 1e-6; both KL ~ Var[r]/(2 beta^2) = 5.9e-13" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=1000", "LargeBeta", "both KL ~ Var[r]/(2 beta^2) = 5.9e-7" },
  { "prob", "p_ref=0.999999,0.000001 r=0,20 beta=1", "Normalised",
    "a rare outcome made likely: pi*(1) = 0.998" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=0", "BetaOutOfDomain", "beta = 0", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,nan beta=1", "NonFinite", "NaN reward", .invalid_in = "*" },
  { "prob", "p_ref=0.7,0.7 r=1,0 beta=1", "NotADistribution", "sum 1.4", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0,3 beta=1", "LengthMismatch", "three rewards",
    .invalid_in = "*" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0 beta=1", "Normalised", "pi* = (e, 1)/(e + 1)" },
  { "logprob", "logp_ref=" L02 "," L03 "," L05 " r=1,-0.5,2 beta=0.5", "Normalised",
    "three outcomes" },
  { "logprob", "logp_ref=-inf," L05 "," L05 " r=100,0,1 beta=1", "ZeroRef Normalised",
    "pi*(0) = 0, log pi*(0) = -inf" },
  { "logprob", "logp_ref=-800,0 r=900,0 beta=1", "UnderflowRef Normalised",
    "pi_ref(0) = e^-800 underflows binary64, yet pi*(0) = 1/(1 + e^-100)" },
  { "logprob", "logp_ref=" L02 "," L03 "," L05 " r=1,-0.5,2 beta=1000000",
    "LargeBeta Normalised", "both KL ~ 5.9e-13" },
  { "logprob", "logp_ref=1,2,3 r=1,0,0 beta=1", "NotADistribution", "logits",
    .invalid_in = "*" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0 beta=-2", "BetaOutOfDomain", "beta < 0",
    .invalid_in = "*" },
  RL_END,
};

static const rl_case c_obj[] = {
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 pi=0.7,0.3", "Normalised", "pi sums to 1 - 2^-54" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 pi=0.1,0.1,0.8", "Normalised", "" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 pi=0.2,0.3,0.5", "PiIsRef",
    "KL = 0 exactly: J = E_pi_ref[r] = 1.05" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 pi=0,0,1", "PointMass",
    "J = r - beta log(1/pi_ref) = 2 - 0.5 log 2" },
  { "prob", "p_ref=0,0.5,0.5 r=5,0,1 beta=1 pi=0.5,0.25,0.25", "InfiniteKL ZeroRef",
    "pi puts mass where pi_ref has none: KL = +inf, J = -inf" },
  { "prob", "p_ref=0,0.5,0.5 r=5,0,1 beta=1 pi=0,0.2,0.8", "ZeroRef Normalised",
    "both 0 on outcome 0: 0 log 0 = 0" },
  { "prob", "p_ref=0.3,0.7 r=2,2 beta=0.5 pi=0.9,0.1", "ConstantReward Normalised",
    "J(pi*) = beta log Z = 2 exactly" },
  { "prob", "p_ref=0.5,0.25,0.25 r=10000,0,-10000 beta=1 pi=0.25,0.5,0.25", "LargeReward",
    "beta log Z = 1e4 + log 0.5 + ..." },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=1000000 pi=0.1,0.1,0.8", "LargeBeta Normalised",
    "beta KL(pi || pi_ref) dominates; J(pi*) ~ E_pi_ref[r] + Var/(2 beta)" },
  { "prob", "p_ref=1 r=3 beta=2 pi=1", "SingleOutcome", "J = 3 = beta log Z" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 pi=0.1,0.2,0.7", "Normalised",
    "pi sums to 1 - 2^-55: divided by it" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 pi=-0.5,1.5", "NotADistribution",
    "a negative probability in pi", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 pi=1,1", "NotADistribution", "pi sums to 2",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 pi=1", "LengthMismatch", "pi of one outcome",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=0 pi=0.5,0.5", "BetaOutOfDomain", "beta = 0",
    .invalid_in = "*" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0 beta=1 logpi=-0.35667494393873245,"
    "-1.2039728043259361", "Normalised", "log 0.7, log 0.3" },
  { "logprob", "logp_ref=" L02 "," L03 "," L05 " r=1,-0.5,2 beta=0.5 logpi=-inf,-inf,0",
    "PointMass Normalised", "J = 2 - 0.5 log 2" },
  { "logprob", "logp_ref=-inf," L05 "," L05 " r=5,0,1 beta=1 logpi=" L05 "," L025 "," L025,
    "InfiniteKL ZeroRef Normalised", "KL = +inf, J = -inf" },
  { "logprob", "logp_ref=" L02 "," L03 "," L05 " r=1,-0.5,2 beta=0.5 logpi=" L02 "," L03 ","
    L05, "PiIsRef Normalised", "the same log-probabilities: KL = 0 exactly" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0 beta=1 logpi=1,2", "NotADistribution",
    "logits for pi", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_ident[] = {
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 pi=0.7,0.3", "Normalised", "" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 pi=0.1,0.1,0.8", "Normalised", "" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 pi=0.2,0.3,0.5", "PiIsRef",
    "KL(pi || pi*) = KL(pi_ref || pi*)" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 pi=0,0,1", "PointMass", "" },
  { "prob", "p_ref=0.5,0.5 r=1.0986122886681098,0 beta=1 pi=0.75,0.25", "NearOptimum",
    "r(0) = log 3 rounded: pi* = (3/4, 1/4) + 1e-17, KL(pi || pi*) ~ 1e-34 > 0" },
  { "prob", "p_ref=0.3,0.7 r=2,2 beta=0.5 pi=0.3,0.7", "ConstantReward AtOptimum Normalised",
    "pi = pi* = pi_ref: KL(pi || pi*) = 0 exactly, J = beta log Z = 2" },
  { "prob", "p_ref=0,0.5,0.5 r=5,0,1 beta=1 pi=0.5,0.25,0.25", "InfiniteKL ZeroRef",
    "both sides -inf, KL(pi || pi*) = +inf" },
  { "prob", "p_ref=0,0.5,0.5 r=5,0,1 beta=1 pi=0,0.2,0.8", "ZeroRef Normalised", "" },
  { "prob", "p_ref=0.5,0.25,0.25 r=10000,0,-10000 beta=1 pi=0.25,0.5,0.25", "LargeReward",
    "KL(pi || pi*) = 1e4 - 0.52 = 9999.48, log Z ~ 1e4" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=1000000 pi=0.1,0.1,0.8", "LargeBeta Normalised", "" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=0.001 pi=0.9,0.1", "SmallBeta Normalised",
    "KL(pi || pi*) ~ 100 and log Z ~ 1000 cancel to J/(-beta)" },
  { "prob", "p_ref=1 r=3 beta=2 pi=1", "SingleOutcome AtOptimum", "KL(pi || pi*) = 0" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 pi=0.5,0.6", "NotADistribution", "pi sums to 1.1",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=nan pi=0.5,0.5", "NonFinite", "NaN beta",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 pi=0.5,0.25,0.25", "LengthMismatch",
    "pi of three outcomes", .invalid_in = "*" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0 beta=1 logpi=-0.35667494393873245,"
    "-1.2039728043259361", "Normalised", "log 0.7, log 0.3" },
  { "logprob", "logp_ref=-inf," L05 "," L05 " r=5,0,1 beta=1 logpi=" L05 "," L025 "," L025,
    "InfiniteKL ZeroRef Normalised", "" },
  { "logprob", "logp_ref=" L02 "," L03 "," L05 " r=1,-0.5,2 beta=1000000 logpi=-2.3025850929940455,"
    "-2.3025850929940455,-0.2231435513142097", "LargeBeta Normalised", "log 0.1, log 0.1, log 0.8" },
  { "logprob", "logp_ref=" L05 "," L05 " r=1,0 beta=1 logpi=nan,0", "NonFinite",
    "NaN log-probability in pi", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_limits[] = {
  { "beta-inf", "p_ref=0.25,0.25,0.5 r=1,1,0.5", "", "pi = pi_ref, E = 0.75" },
  { "beta-inf", "p_ref=0.1,0.3,0.6 r=2,2,1", "Normalised", "pi = pi_ref" },
  { "beta-inf", "p_ref=0,0.4,0.6 r=5,1,0", "ZeroRef", "pi = pi_ref, 0 stays 0" },
  { "beta-inf", "p_ref=0.1,0.2,0.7 r=1,2,3", "Normalised", "pi = p_ref / (1 - 2^-55)" },
  { "beta-inf", "p_ref=0.5,0.5 r=nan,0", "NonFinite", "NaN reward", .invalid_in = "*" },
  { "beta-zero", "p_ref=0.25,0.25,0.5 r=1,1,0.5", "Tie", "pi = (1/2, 1/2, 0)" },
  { "beta-zero", "p_ref=0.1,0.3,0.6 r=2,2,1", "Tie Normalised", "split in proportion to pi_ref: (1/4, 3/4, 0)" },
  { "beta-zero", "p_ref=0,0.4,0.6 r=5,1,0", "ZeroRef",
    "the best reward has pi_ref = 0: the limit is the point mass on outcome 1" },
  { "beta-zero", "p_ref=0.2,0.3,0.5 r=1,-0.5,2", "", "a unique maximum: point mass on outcome 2" },
  { "beta-zero", "p_ref=0.2,0.3,0.5 r=1,1,1", "Tie ConstantReward", "every outcome tied: pi_ref" },
  { "beta-zero", "p_ref=0.5,0.6 r=1,0", "NotADistribution", "sum 1.1", .invalid_in = "*" },
  { "finite-beta", "p_ref=0.25,0.25,0.5 r=1,1,0.5 beta=1", "", "between the limits" },
  { "finite-beta", "p_ref=0.25,0.25,0.5 r=1,1,0.5 beta=1000", "ApproachRef Tie",
    "tv_ref ~ 0.125/beta" },
  { "finite-beta", "p_ref=0.25,0.25,0.5 r=1,1,0.5 beta=1000000", "ApproachRef Tie",
    "tv_ref ~ 1.25e-7" },
  { "finite-beta", "p_ref=0.25,0.25,0.5 r=1,1,0.5 beta=0.001", "ApproachArgmax Tie",
    "tv_argmax ~ e^-500: pi* ~ (1/2, 1/2, 0)" },
  { "finite-beta", "p_ref=0.25,0.25,0.5 r=1,1,0.5 beta=0.000001", "ApproachArgmax Tie",
    "tv_argmax ~ e^-500000, below binary64" },
  { "finite-beta", "p_ref=0.1,0.3,0.6 r=2,2,1 beta=1000", "ApproachRef Tie Normalised", "" },
  { "finite-beta", "p_ref=0.1,0.3,0.6 r=2,2,1 beta=1000000", "ApproachRef Tie Normalised", "" },
  { "finite-beta", "p_ref=0.1,0.3,0.6 r=2,2,1 beta=0.001", "ApproachArgmax Tie Normalised",
    "pi* ~ (1/4, 3/4, 0): ties in proportion to pi_ref at every beta" },
  { "finite-beta", "p_ref=0.1,0.3,0.6 r=2,2,1 beta=0.000001", "ApproachArgmax Tie Normalised",
    "tv_argmax ~ 1.5 e^-1000000" },
  { "finite-beta", "p_ref=0,0.4,0.6 r=5,1,0 beta=0.001", "ApproachArgmax ZeroRef",
    "the limit ignores outcome 0" },
  { "finite-beta", "p_ref=0,0.4,0.6 r=5,1,0 beta=1000", "ApproachRef ZeroRef", "" },
  { "finite-beta", "p_ref=0.5,0.5 r=1,0 beta=0", "BetaOutOfDomain", "beta = 0",
    .invalid_in = "*" },
  RL_END,
};

static const rl_note n_klopt[] = {
  { "Normalised", "CONVENTION",
    "The binary64 inputs of p_ref or pi do not sum exactly to 1 (or their log-sum-exp is not "
    "exactly 0) but lie within 2^-20 of it: every output is that of the exact normalised "
    "distribution (p / sum p, logp - lse(logp), sums of the exact binary64 values). An "
    "implementation that skips the normalisation differs by about the deviation of the sum." },
  { "ZeroRef", "EDGE_CASE",
    "An outcome has pi_ref = 0: its pi* is exactly 0 (log pi* = -inf) whatever its reward, the "
    "maximum reward of the beta -> 0 limit is taken over pi_ref > 0 only, and 0 log 0 = 0 in "
    "every KL. An infinite golden value (log pi* = -inf) carries no digits and no sensitivity; "
    "the generator sets NonDifferentiable on its test because central differences of an "
    "infinite value are undefined (the finite outputs keep their sensitivities)." },
  { "SingleOutcome", "EDGE_CASE", "One outcome: pi* = pi_ref = (1), log Z = r/beta, every KL 0." },
  { "ConstantReward", "PROPERTY",
    "Every reward equal to c: pi* = pi_ref exactly and log Z = c/beta." },
  { "LargeReward", "NUMERICAL",
    "|r|/beta of 700 or more: e^{r/beta} overflows (or underflows) binary64; log Z must be a "
    "log-sum-exp shifted by the largest term, and Z itself is +inf beyond DBL_MAX (output z; "
    "that infinite value brings the flag NonDifferentiable, as in ZeroRef)." },
  { "LargeBeta", "NUMERICAL",
    "beta much larger than the rewards: log Z ~ E_pi_ref[r]/beta and KL(pi* || pi_ref) ~ "
    "Var[r]/(2 beta^2). A log-sum-exp of log pi_ref + r/beta in binary64 has an absolute error "
    "of about 1e-16, which is most of log Z here; the KL formed as E_pi*[r]/beta - log Z "
    "cancels. Summing non-negative terms keeps the relative accuracy." },
  { "SmallBeta", "EDGE_CASE", "beta much smaller than the reward gaps: pi* is close to greedy." },
  { "UnderflowRef", "NUMERICAL",
    "pi_ref(y) underflows binary64 while pi*(y) does not: pi* must be formed from log pi_ref + "
    "r/beta - log Z, not from a product with pi_ref(y)." },
  { "Tie", "CONVENTION",
    "Several outcomes share the maximal reward: pi* keeps their ratio to pi_ref at every beta, "
    "and the beta -> 0 limit splits the mass among them in proportion to pi_ref. The limit is "
    "discontinuous in r there (NonDifferentiable)." },
  { "PiIsRef", "PROPERTY", "pi = pi_ref: KL(pi || pi_ref) = 0 and J(pi) = E_pi_ref[r]." },
  { "PointMass", "EDGE_CASE", "pi is a point mass: 0 log 0 = 0 on every other outcome." },
  { "InfiniteKL", "EDGE_CASE",
    "pi puts mass where pi_ref has none: KL(pi || pi_ref) = KL(pi || pi*) = +inf and J(pi) = "
    "-inf, returned as values (not an error) in both backends. As for ZeroRef, the infinite "
    "values bring the flag NonDifferentiable." },
  { "NearOptimum", "PROPERTY",
    "pi is pi* rounded to binary64: KL(pi || pi*) is tiny and positive (Gibbs' inequality: 0 "
    "only at pi = pi*), and J(pi) is just below beta log Z." },
  { "AtOptimum", "PROPERTY",
    "pi = pi* exactly: KL(pi || pi*) = 0 and J(pi) = beta log Z." },
  { "ApproachRef", "PROPERTY",
    "Large beta: pi* approaches pi_ref (tv_ref ~ (1/(2 beta)) sum pi_ref |r - E_pi_ref[r]|)." },
  { "ApproachArgmax", "PROPERTY",
    "Small beta: pi* approaches the argmax limit (tv_argmax ~ e^{-gap/beta}, gap = the "
    "difference between the best and second-best reward on the support)." },
  { "BetaOutOfDomain", "INVALID_INPUT", "beta <= 0: must be rejected (EDOM)." },
  { "NonFinite", "INVALID_INPUT",
    "A NaN or infinite beta, reward or probability, or a NaN or +inf log-probability: must be "
    "rejected (ENAN)." },
  { "NotADistribution", "INVALID_INPUT",
    "A negative probability, no positive mass, or a sum (log-sum-exp) farther than 2^-20 from 1 "
    "(0): must be rejected (EDOM)." },
  RL_END,
};

static rl_formula formulas[] = {
  { "KLOPT-Z",
    "log partition function log Z = log sum_y pi_ref(y) e^{r(y)/beta} (13.15) of an explicit "
    "finite distribution, and Z",
    "000 (13.15)",
    "log Z = log Σ_y π_ref(y) e^{r(y)/β} (13.15), a log-sum-exp; Z = e^{log Z}",
    NULL, c_z, n_klopt },
  { "KLOPT-PISTAR",
    "the KL-optimal policy pi* = pi_ref e^{r/beta} / Z (13.17), its log, E_pi*[r], "
    "KL(pi* || pi_ref) and KL(pi_ref || pi*)",
    "000 (13.17)",
    "π*(y) = π_ref(y) e^{r(y)/β}/Z (13.17), log π*, E_π*[r], KL(π*‖π_ref), KL(π_ref‖π*)",
    NULL, c_pistar, n_klopt },
  { "KLOPT-OBJ",
    "the KL-regularised objective J(pi) = E_pi[r] - beta KL(pi || pi_ref) (13.8, 13.13) of a "
    "given policy pi, and its value at pi*, which equals beta log Z",
    "000 (13.8), (13.13)",
    "J(π) = E_π[r] − β KL(π‖π_ref) (13.8, 13.13); J(π*) = β log Z",
    NULL, c_obj, n_klopt },
  { "KLOPT-IDENT",
    "the identity J(pi) = -beta [KL(pi || pi*) - log Z] (13.14-13.16) for a given policy pi, "
    "and KL(pi || pi*) >= 0 (Gibbs)",
    "000 (13.14)-(13.16)",
    "J(π) and −β[KL(π‖π*) − log Z] (13.16), equal for every π; KL(π‖π*) ≥ 0, 0 only at π*",
    NULL, c_ident, n_klopt },
  { "KLOPT-LIMITS",
    "the limits of pi* as beta -> infinity (pi_ref) and beta -> 0 (pi_ref on the argmax of r, "
    "ties split in proportion to pi_ref), and the approach to each at finite beta",
    "000 section 4.1",
    "β→∞: π* → π_ref; β→0: π* → π_ref restricted to argmax r (on π_ref > 0), renormalised; "
    "at finite β, the total-variation distance to each",
    NULL, c_limits, n_klopt },
  RL_END,
};

/* KLOPT-Z, -PISTAR, -OBJ and -IDENT take the reference as probabilities
 * or as log-probabilities, each on its own io: the row's setting says
 * which. */
static const rl_io *
pick (const rlref_convention *c)
{
  static const struct
  {
    const char *part;
    const rl_io *prob, *logprob;
  } forms[] = {
    { "logz", &io_z_prob, &io_z_logprob },
    { "pistar", &io_pistar_prob, &io_pistar_logprob },
    { "objective", &io_obj_prob, &io_obj_logprob },
    { "identity", &io_ident_prob, &io_ident_logprob },
  };
  for (size_t k = 0; c->setting && k < sizeof forms / sizeof forms[0]; k++)
    if (strcmp (c->part, forms[k].part) == 0)
      return *(const int *) c->setting == RLREF_KLOPT_PROB ? forms[k].prob : forms[k].logprob;
  return NULL;
}

/* The formulas' variants: one per row of the library's table
 * (rlref_klopt_conventions), each on the io pick gives or that of its part
 * and precision. */
static const rl_io *const ios[] = {
  &io_z_prob, &io_z_logprob, &io_pistar_prob, &io_pistar_logprob, &io_obj_prob,
  &io_obj_logprob, &io_ident_prob, &io_ident_logprob, &io_lim_ref, &io_lim_argmax,
  &io_lim_finite, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_klopt_conventions, f->id, ios, pick);
}

RL_FAMILY (klopt) = {
  .name = "klopt",
  .title = "KL-regularised optimum on explicit distributions",
  .rank = 3,
  .formulas = formulas,
  .init = init,
};
