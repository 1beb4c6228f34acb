/* dpofinite.c -- the DPO derivation on an explicit finite outcome set (seed
 * 000 section 4, equations 13.17-13.21): the reward reconstructed from pi*
 * and Z (DPO-IMPLICIT-R), Z cancelling in a pair (DPO-ZCANCEL), and the
 * minimiser of the population DPO and IPO losses (DPO-EQUIV), with the IPO
 * paper's three-action illustration.  Inputs, outputs, variants, golden
 * cases and notes.
 *
 * pi_ref = p_ref / S (S the exact sum of the p_ref, each > 0), beta > 0:
 *   Z = sum_y pi_ref(y) e^{r(y)/beta},  pi*(y) = pi_ref(y) e^{r(y)/beta} / Z.
 * A population loss is over ordered pairs (i, j), i != j, drawn from
 * pi_ref x pi_ref, i labelled preferred with probability P_ij:
 *   L(h) = sum_{i != j} pi_ref(i) pi_ref(j) P_ij l(h_i - h_j),
 * h = log(pi/pi_ref), DPO l(z) = -log sigma(beta z), IPO l(z) =
 * (z - 1/(2 tau))^2.
 * The variants are the rows of the library's table
 * (reference/src/dpofinite/dpofinite_conventions.c). */
#include "rlref/dpofinite.h"
#include "family.h"

RL_EVAL_DECL (dpofinite_implicit);
RL_EVAL_DECL (dpofinite_zcancel);
RL_EVAL_DECL (dpofinite_equiv_bt);
RL_EVAL_DECL (dpofinite_equiv);

#define IN_P_REF                                                                         \
  { "p_ref", RL_REAL_ARRAY, "reference probabilities pi_ref(y) of the n outcomes, each finite "  \
    "and > 0 (log(pi/pi_ref) is undefined at 0); rejected (EDOM) unless the exact sum S "        \
    "satisfies |S - 1| <= 2^-20; every formula uses the exact distribution p_ref / S",           \
    .domain = "(0,inf) sum1" }
#define IN_R { "r", RL_REAL_ARRAY, "reward r(y) of each outcome, finite", .same_len_as = "p_ref" }
#define IN_BETA { "beta", RL_REAL, "KL coefficient beta, finite and > 0", .domain = "(0,inf)" }
#define IN_P                                                                             \
  { "P", RL_REAL_ARRAY, "preference matrix, n x n by rows: P[i n + j] = probability that "     \
    "outcome i is preferred to outcome j, >= 0, P_ij + P_ji = 1 within 2^-20, each pair used "   \
    "as P_ij / (P_ij + P_ji); the diagonal is not read (finite); n^2 entries",                  \
    .domain = "[0,1]" }

/* --- DPO-IMPLICIT-R ---------------------------------------------------- */

static const rl_io io_implicit = {
  (const rl_input[]) { IN_P_REF, IN_R, IN_BETA, RL_END },
  (const rl_output[]) {
    { "pistar", "pi*(y) = pi_ref(y) e^{r(y)/beta} / Z (13.17)", .len_of = "p_ref" },
    { "logz", "log Z = log sum_y pi_ref(y) e^{r(y)/beta} (13.15)" },
    { "r_hat", "the reward reconstructed from pi* and Z: beta log(pi*(y)/pi_ref(y)) + "
      "beta log Z (13.18); r(y) exactly where the residual is within its bound", .len_of = "p_ref" },
    { "residual", "r_hat(y) - r(y): exactly 0 (flag ZeroByBound)", .len_of = "p_ref" },
    RL_END },
  RL_EVALS (dpofinite_implicit), .part = "implicit-reward",
};

static const rl_case c_implicit[] = {
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1", "ZeroByBound", "pi* = (e, 1)/(e + 1); r = 0 "
    "reconstructed" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5", "ZeroByBound", "three outcomes" },
  { "prob", "p_ref=0.1,0.2,0.7 r=3,-2,0.25 beta=0.1", "ZeroByBound Normalised",
    "small beta; p_ref sums to 1 - 2^-55" },
  { "prob", "p_ref=0.25,0.25,0.25,0.25 r=100,-100,50,0 beta=2", "ZeroByBound LargeReward",
    "pi* ~ (1, e^-100, e^-25, e^-50)" },
  { "prob", "p_ref=0.999999,0.000001 r=0,20 beta=1", "ZeroByBound Normalised",
    "a rare outcome made likely" },
  { "prob", "p_ref=0.25,0.25,0.25,0.25 r=1e-8,1e-8,1e-8,1e-8 beta=2", "ZeroByBound EqualRewards",
    "equal rewards: log Z = 5e-9 exactly, pi* = pi_ref; a log-sum-exp of log pi_ref + r/beta "
    "keeps only 8 of its digits" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=0", "BetaOutOfDomain", "beta = 0", .invalid_in = "*" },
  { "prob", "p_ref=0,1 r=1,0 beta=1", "ZeroRef", "pi_ref(0) = 0: log(pi*/pi_ref) undefined",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.6 r=1,0 beta=1", "NotADistribution", "sum 1.1", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=nan,0 beta=1", "NonFinite", "NaN reward", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1 beta=1", "LengthMismatch", "one reward for two outcomes",
    .invalid_in = "*" },
  RL_END,
};

/* --- DPO-ZCANCEL ------------------------------------------------------- */

static const rl_io io_zcancel = {
  (const rl_input[]) { IN_P_REF, IN_R, IN_BETA,
    { "w", RL_INT, "index of the preferred outcome y_w, 0 <= w < n" },
    { "l", RL_INT, "index of the dispreferred outcome y_l, 0 <= l < n, l != w (EDOM)" },
    RL_END },
  (const rl_output[]) {
    { "h_w", "log(pi*(y_w)/pi_ref(y_w)) = r(y_w)/beta - log Z" },
    { "h_l", "log(pi*(y_l)/pi_ref(y_l)) = r(y_l)/beta - log Z" },
    { "margin", "beta (h_w - h_l) = r(y_w) - r(y_l): log Z cancels (13.19)" },
    { "reward_diff", "r(y_w) - r(y_l)" },
    { "p_policy", "sigma(beta h_w - beta h_l): the Bradley-Terry probability in policy terms "
      "(13.20)" },
    { "p_reward", "sigma(r(y_w) - r(y_l)) (13.6), which p_policy equals" },
    { "logz", "log Z (13.15), in each h and absent from their difference" },
    RL_END },
  RL_EVALS (dpofinite_zcancel), .part = "pair",
};

static const rl_case c_zcancel[] = {
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 w=0 l=1", "", "margin 1, sigma(1)" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 w=2 l=1", "", "margin 2.5" },
  { "prob", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5 w=1 l=2", "", "the pair the other way: "
    "margin -2.5" },
  { "prob", "p_ref=0.25,0.25,0.25,0.25 r=100,-100,50,1 beta=2 w=2 l=3", "LargeReward",
    "log Z ~ 50 dominated by another outcome; margin 49" },
  { "prob", "p_ref=0.1,0.2,0.7 r=3,-2,0.25 beta=0.1 w=0 l=1", "Normalised",
    "margin 5, small beta" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 w=0 l=0", "SamePair", "w = l", .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=1 w=0 l=2", "IndexOutOfRange", "l = 2 of two outcomes",
    .invalid_in = "*" },
  { "prob", "p_ref=0.5,0.5 r=1,0 beta=-1 w=0 l=1", "BetaOutOfDomain", "beta < 0",
    .invalid_in = "*" },
  RL_END,
};

/* --- DPO-EQUIV --------------------------------------------------------- */

#define OUT_EQUIV                                                                        \
  { "logpi", "log pi(y) of the minimiser", .len_of = "p_ref" },                            \
  { "h", "h(y) = log(pi(y)/pi_ref(y)) of the minimiser", .len_of = "p_ref" },                \
  { "loss", "the population loss at the minimiser" },                                      \
  { "grad_norm", "|dL/dtheta| at the minimiser, theta the logits of pi (= |dL/dh|: L depends " \
    "on differences of h); exactly 0 (flag ZeroByBound)" },                                \
  { "kl", "KL(pi || pi_ref) = sum_y pi(y) h(y) of the minimiser" }

static const rl_io io_equiv_bt = {
  (const rl_input[]) { IN_P_REF, IN_R, IN_BETA, RL_END },
  (const rl_output[]) { OUT_EQUIV, RL_END },
  RL_EVALS (dpofinite_equiv_bt), .part = "dpo-bt",
};
static const rl_io io_equiv_dpo = {
  (const rl_input[]) { IN_P_REF, IN_P, IN_BETA, RL_END },
  (const rl_output[]) { OUT_EQUIV, RL_END },
  RL_EVALS (dpofinite_equiv), .part = "dpo-pref",
};
static const rl_io io_equiv_ipo = {
  (const rl_input[]) { IN_P_REF, IN_P, { "tau", RL_REAL, "IPO regulariser tau, finite and > 0",
                                           .domain = "(0,inf)" },
    RL_END },
  (const rl_output[]) { OUT_EQUIV, RL_END },
  RL_EVALS (dpofinite_equiv), .part = "ipo",
};

#define THIRD "0.3333333333333333"
#define U3 "p_ref=" THIRD "," THIRD "," THIRD
#define CHAIN3 "P=0.5,1,1,0,0.5,1,0,0,0.5"

static const rl_case c_equiv[] = {
  { "dpo-bt", "p_ref=0.5,0.5 r=1,0 beta=1", "ZeroByBound", "pi* = (e, 1)/(e + 1)" },
  { "dpo-bt", "p_ref=0.2,0.3,0.5 r=1,-0.5,2 beta=0.5", "ZeroByBound", "three outcomes" },
  { "dpo-bt", "p_ref=0.1,0.2,0.7 r=3,-2,0.25 beta=0.1", "ZeroByBound Normalised",
    "small beta: pi* far from pi_ref" },
  { "dpo-bt", "p_ref=0.25,0.25,0.25,0.25 r=1,1,0,0 beta=2", "ZeroByBound Tie",
    "two ties: equal h within each" },
  { "dpo-bt", "p_ref=0.5,0.5 r=1,0 beta=0", "BetaOutOfDomain", "beta = 0", .invalid_in = "*" },
  { "dpo-bt", "p_ref=1 r=1 beta=1", "TooFewOutcomes", "one outcome: no pair",
    .invalid_in = "*" },
  { "ipo", U3 " " CHAIN3 " tau=0.1", "ZeroByBound Normalised IpoThree",
    "the IPO paper's illustration: h1 - h2 = h2 - h3 = 10/3 (for tau the double nearest 0.1), "
    "loss 25/27" },
  { "ipo", "p_ref=0.2,0.3,0.5 P=0.5,0.8,0.6,0.2,0.5,0.3,0.4,0.7,0.5 tau=0.5", "ZeroByBound",
    "a non-transitive matrix (1 > 2 > 3 > 1 is not it: 3 beats 2)" },
  { "ipo", "p_ref=0.5,0.5 P=0.5,0.75,0.25,0.5 tau=1", "ZeroByBound",
    "two outcomes: h1 - h2 = (P_12 - 1/2)/tau = 0.25" },
  { "ipo", U3 " " CHAIN3 " tau=0", "BetaOutOfDomain", "tau = 0", .invalid_in = "*" },
  { "ipo", U3 " P=0.5,1,1,0,0.5,1,0,0 tau=0.1", "LengthMismatch", "P of 8 entries",
    .invalid_in = "*" },
  { "ipo", U3 " P=0.5,0.9,1,0.9,0.5,1,0,0,0.5 tau=0.1", "NotAPreference",
    "P_12 + P_21 = 1.8", .invalid_in = "*" },
  { "dpo-pref", U3 " " CHAIN3 " beta=0.1", "NoFiniteMinimiser IpoThree",
    "the same data under DPO: no finite minimiser, the loss falls towards 0 as pi concentrates "
    "on y1", .invalid_in = "*" },
  { "dpo-pref", "p_ref=0.2,0.3,0.5 P=0.5,0.8,0.6,0.2,0.5,0.3,0.4,0.7,0.5 beta=0.5",
    "ZeroByBound", "every pair uncertain: a finite minimiser by Newton's method" },
  { "dpo-pref", U3 " P=0.5,1,0.5,0,0.5,0.5,0.5,0.5,0.5 beta=1", "ZeroByBound Normalised",
    "one deterministic pair, yet a finite minimiser: the graph of P > 0 is strongly connected" },
  { "dpo-pref", U3 " P=0.5,1,0.5,0,0.5,0.5,0.5,0.5,0.5 beta=1e40", "ZeroByBound Normalised ExtremeBeta",
    "the same at beta = 1e40: h of order 1e-40, KL of order 1e-81 (a log-sum-exp of log pi_ref "
    "+ g loses h entirely)" },
  { "dpo-pref", U3 " P=0.5,1,0.5,0,0.5,0.5,0.5,0.5,0.5 beta=1e-8", "ZeroByBound Normalised ExtremeBeta",
    "the same at beta = 1e-8: scores of order 1e8, pi concentrated on y1 (h1 = -log pi_ref(y1) "
    "but for e^-7.5e7; a log-sum-exp of log pi_ref + g keeps 8 digits of it)" },
  { "dpo-pref", U3 " P=0.5,1,0.5,0,0.5,0.5,0.5,0.5,0.5 beta=1e-300", "ZeroByBound Normalised "
    "ExtremeBeta", "beta = 1e-300: scores of order 1e300, h1 = -log pi_ref(y1) = log 3 but for "
    "e^-7.5e299 (binary64 once gave h1 = KL = 0)" },
  { "ipo", "p_ref=0.5,0.5 P=0.5,0.75,0.25,0.5 tau=1e-20", "ZeroByBound ExtremeBeta",
    "tau = 1e-20: h1 - h2 = 2.5e19, KL = log 2 but for e^-2.5e19 (binary64 once gave KL = 0)" },
  { "ipo", "p_ref=0.5,0.5 P=0.5,0.75,0.25,0.5 tau=1e-7", "ZeroByBound ExtremeBeta",
    "tau = 1e-7: h1 - h2 = 2.5e6, pi_2 = e^-2.5e6 (far below binary64); KL = log 2 but for "
    "e^-2.5e6, where sum pi h kept 9 digits" },
  RL_END,
};

static const rl_note n_dpofinite[] = {
  { "EqualRewards", "NUMERICAL", "Rewards all equal (or nearly): log Z is their common r/beta "
    "plus a term near 0; formed as c/beta + log1p(sum pi_ref expm1((r - c)/beta)) it keeps "
    "its digits, as a log-sum-exp of log pi_ref + r/beta (its terms near log pi_ref) does "
    "not." },
  { "ZeroByBound", "EDGE_CASE",
    "An output that is 0 by an identity (the residual of 13.18, the gradient at the minimiser) is "
    "computed with a bound on its rounding error, 2^(10-p) times the magnitudes that enter it (p "
    "= 53 or the working precision): a computed value within its bound is written as exactly 0 "
    "(hence ExactZero), anything larger as computed, so a wrong reconstruction or a point that "
    "is not the minimiser shows as a nonzero value. The reconstructed reward r_hat is then r "
    "exactly. An implementation that sums beta (log pi* - log pi_ref + log Z) itself carries an "
    "absolute error of about u beta (|log pi*| + |log pi_ref| + 2 |log Z|): compare its r_hat "
    "and residual with that tolerance, not with the sensitivity of r (0 where r = 0)." },
  { "Normalised", "EDGE_CASE", "The binary64 probabilities do not sum to 1 exactly: they are "
    "divided by their exact sum." },
  { "LargeReward", "EDGE_CASE", "Rewards far apart: pi* spans many orders of magnitude and log Z "
    "is dominated by one outcome." },
  { "Tie", "EDGE_CASE", "Outcomes with equal rewards: equal h." },
  { "ExtremeBeta", "NUMERICAL", "beta (or tau) far from 1: the scores g of the minimiser are tiny "
    "or huge beside log pi_ref.  h = (g - max g) - log sum pi_ref e^{g - max g} with the sum "
    "formed as 1 + (sum pi_ref - 1) + sum pi_ref expm1(g - max g), and KL = sum pi_ref h(log "
    "ratio) with h(e) = 1 + (e - 1) e^e by its series near 0, keep every digit; log pi_ref + g "
    "normalised by a log-sum-exp keeps none of a tiny h, and sum pi h cancels to rounding noise." },
  { "IpoThree", "EDGE_CASE",
    "The IPO paper's illustration: uniform pi_ref over three actions, y1 > y2 > y3 for every "
    "pair with probability 1, tau = 0.1.  IPO: with p(y > mu) = (5/6, 1/2, 1/6) (the pair of an "
    "action with itself counted 1/2), h1 - h2 = h2 - h3 = (1/3)/tau = 10/3, pi proportional to "
    "(e^{20/3}, e^{10/3}, 1), loss (1/9)[2 (5/3)^2 + (5/3)^2] = 25/27.  DPO on the same data has "
    "no finite minimiser: each pair's term -log sigma(beta (h_i - h_j)) falls to 0 only as "
    "h_i - h_j -> infinity, so the loss tends to its infimum 0 as pi concentrates on y1 "
    "whatever beta is; the library rejects it (EDOM)." },
  { "NoFiniteMinimiser", "EDGE_CASE", "The graph with an edge i -> j for P_ij > 0 is not "
    "strongly connected: the DPO loss has no finite minimiser (EDOM)." },
  { "BetaOutOfDomain", "INVALID_INPUT", "beta (or tau) <= 0." },
  { "ZeroRef", "INVALID_INPUT", "An outcome with pi_ref = 0: log(pi/pi_ref) is undefined." },
  { "NotADistribution", "INVALID_INPUT", "p_ref does not sum to 1 within 2^-20." },
  { "NotAPreference", "INVALID_INPUT", "P_ij + P_ji differs from 1 by more than 2^-20." },
  { "SamePair", "INVALID_INPUT", "w = l: a pair needs two outcomes." },
  { "IndexOutOfRange", "INVALID_INPUT", "w or l is not an outcome." },
  { "TooFewOutcomes", "INVALID_INPUT", "A population loss needs 2 to 64 outcomes." },
  RL_END,
};

static rl_formula formulas[] = {
  { "DPO-IMPLICIT-R", "The reward reconstructed from pi* and Z (13.18)", "000 13.18",
    "r^(y) = β log(π*(y)/π_ref(y)) + β log Z equals r(y) for every outcome (13.18)",
    NULL, c_implicit, n_dpofinite },
  { "DPO-ZCANCEL", "Z cancels in a pair; Bradley-Terry in policy terms (13.19, 13.20)",
    "000 13.19-13.20",
    "β(h(y_w) − h(y_l)) = r(y_w) − r(y_l) without Z, σ(βh_w − βh_l) = σ(r_w − r_l)",
    NULL, c_zcancel, n_dpofinite },
  { "DPO-EQUIV", "The minimiser of the population DPO and IPO losses", "000 section 4.3",
    "Σ_{i≠j} π_ref(i)π_ref(j)P_ij l(h_i − h_j): DPO on Bradley-Terry preferences is least at "
    "π* (13.17); IPO is a Laplacian least-squares problem; DPO on deterministic preferences has "
    "no finite minimiser",
    NULL, c_equiv, n_dpofinite },
  RL_END,
};

/* The formulas' variants: one per row of the library's table
 * (rlref_dpofinite_conventions), each on the io of its part and precision. */
static const rl_io *const ios[] = {
  &io_implicit, &io_zcancel, &io_equiv_bt, &io_equiv_dpo, &io_equiv_ipo, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_dpofinite_conventions, f->id, ios, NULL);
}

RL_FAMILY (dpofinite) = {
  .name = "dpofinite",
  .title = "DPO derivation on explicit outcome sets",
  .rank = 4,
  .formulas = formulas,
  .init = init,
};
