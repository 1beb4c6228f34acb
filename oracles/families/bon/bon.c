/* bon.c -- the best-of-n family: the exact best-of-n distribution on a
 * discrete space, its KL to the base, the bound log n - (n - 1)/n and the
 * win rate against the base (BON), and the over-optimisation functional
 * forms in d = sqrt(KL) with their peaks (OVEROPT), seed 000 sections 8.2,
 * 8.4 and 10.4: inputs, outputs, variants, golden cases and notes.
 * The variants are the rows of the library's table
 * (reference/src/bon/bon_conventions.c). */
#include "rlref/bon.h"
#include "family.h"

RL_EVAL_DECL (bon_dist);
RL_EVAL_DECL (overopt);

static const rl_io io_bon = {
  .in = (const rl_input[]) {
    { "p", RL_REAL_ARRAY, "base probability p_k of each outcome, finite and >= 0; rejected "
      "(EDOM) unless the exact sum S satisfies |S - 1| <= 2^-20; the distribution used is p/S",
      .domain = "[0,inf) sum1" },
    { "r", RL_REAL_ARRAY, "reward r_k of each outcome, finite; equal rewards are ties",
      .same_len_as = "p" },
    { "n", RL_INT, "number of draws n >= 1" },
    RL_END },
  .out = (const rl_output[]) {
    { "q", "best-of-n probability q_k = p_k Q_v / m_v of each outcome, Q_v = F(v)^n - "
      "F(v^-)^n at its reward level v of base mass m_v", .len_of = "p" },
    { "kl", "KL(q || p) = sum_v Q_v log(Q_v / m_v)" },
    { "bound", "log n - (n - 1)/n, an upper bound on kl (equal on a continuous space with "
      "distinct rewards)" },
    { "win", "win rate of best-of-n against one base draw, ties counted one half: sum_v Q_v "
      "(F(v^-) + m_v/2)" },
    RL_END },
  RL_EVALS (bon_dist), .part = "best-of-n",
};

#define OVEROPT_IN                                                                       \
  (const rl_input[]) {                                                                   \
    { "kl", RL_REAL, "KL(pi || pi_ref) >= 0, nats; d = sqrt(kl)" },                      \
    { "alpha", RL_REAL, "fitted coefficient alpha, finite" },                            \
    { "beta", RL_REAL, "fitted coefficient beta > 0" },                                  \
    RL_END }

#define OVEROPT_OUT(value_doc, dstar_doc, peak_doc)                                      \
  (const rl_output[]) {                                                                  \
    { "d", "d = sqrt(kl)" },                                                             \
    { "value", value_doc },                                                              \
    { "d_star", dstar_doc },                                                             \
    { "peak", peak_doc },                                                                \
    RL_END }

static const rl_io io_overopt_bon = {
  .in = OVEROPT_IN,
  .out = OVEROPT_OUT ("R(d) = d (alpha - beta d)",
                      "the maximiser over d >= 0: alpha/(2 beta) when alpha > 0, else 0",
                      "R(d_star) = alpha^2/(4 beta) when alpha > 0, else 0"),
  RL_EVALS (overopt), .part = "bon",
};

static const rl_io io_overopt_rl = {
  .in = OVEROPT_IN,
  .out = OVEROPT_OUT ("R(d) = d (alpha - beta log d); 0 at d = 0 (the limit)",
                      "the maximiser exp(alpha/beta - 1)",
                      "R(d_star) = beta d_star"),
  RL_EVALS (overopt), .part = "rl",
};

static const rl_case c_bon[] = {
  { "*", "p=0.5,0.5 r=0,1 n=2", "TwoOutcomes",
    "uniform base over two outcomes, distinct rewards: q = (1/4, 3/4), kl = (3/4) log(3/2) - "
    "(1/4) log 2 = 0.1308 below the bound log 2 - 1/2 = 0.1931, win 5/8" },
  { "*", "p=0.5,0.5 r=0,1 n=4", "TwoOutcomes",
    "q = (1/16, 15/16), kl 0.459 below log 4 - 3/4 = 0.636, win 23/32" },
  { "*", "p=0.5,0.5 r=1,0 n=256", "TwoOutcomes LargeN",
    "q = (1 - 2^-256, 2^-256): kl = log 2 - 2^-256 (256 log 2 + 1) + O(4^-256), far below "
    "the bound log 256 - 255/256 = 4.55; win 3/4 - 2^-257" },
  { "*", "p=0.2,0.5,0.3 r=1,3,2 n=3", "",
    "three outcomes, rewards not in order: F = 0.2, 0.5, 1; q = (0.008, 0.875, 0.117)" },
  { "*", "p=0.25,0.25,0.5 r=1,1,0 n=2", "Ties",
    "two outcomes tied at the top share Q = 1 - 1/4 = 3/4 in proportion to p: 3/8 each" },
  { "*", "p=0.1,0.2,0.3,0.4 r=2,1,2,1 n=5", "Ties",
    "two levels of two tied outcomes each: the top level (mass 0.4) keeps 1 - 0.6^5, split "
    "1 : 3" },
  { "*", "p=0.3,0.7 r=5,5 n=8", "Ties",
    "every reward equal: best-of-n is the base, kl 0, win 1/2" },
  { "*", "p=0.1,0.6,0.3 r=3,1,2 n=1", "SingleDraw",
    "n = 1: q = p, kl 0 and the bound 0, win 1/2" },
  { "*", "p=0,0.5,0.5 r=3,1,2 n=4", "ZeroProbability",
    "the best reward has probability 0: never drawn, q = 0 there" },
  { "*", "p=0.999999999999,1e-12 r=0,1 n=2", "Cancellation",
    "a rare best outcome: Q_top = 1 - (1 - 1e-12)^2 = 2e-12 - 1e-24; (F(v))^n - (F(v^-))^n "
    "formed directly keeps about 4 digits" },
  { "*", "p=0.4,0.59999,0.00001 r=0,1,2 n=100000", "LargeN",
    "n = 10^5: Q_top = 1 - 0.99999^n = 1 - e^-1.00000500..., 0.4^n far below the binary64 "
    "range" },
  { "*", "p=0.3333333,0.3333333,0.3333333 r=1,2,3 n=2", "Renormalised",
    "the probabilities sum to 0.9999999, within 2^-20 of 1: the base used is p/S, "
    "uniform" },
  { "*", "p=0.5,0.4 r=0,1 n=2", "NotNormalised", "probabilities summing to 0.9",
    .invalid_in = "*" },
  { "*", "p=1.5,-0.5 r=0,1 n=2", "OutOfDomain", "a negative probability", .invalid_in = "*" },
  { "*", "p=0.5,0.5 r=0,1 n=0", "OutOfDomain", "n = 0 draws", .invalid_in = "*" },
  { "*", "p=0.5,nan r=0,1 n=2", "NonFinite", "NaN probability", .invalid_in = "*" },
  { "*", "p=0.5,0.5 r=0,inf n=2", "NonFinite", "infinite reward", .invalid_in = "*" },
  { "*", "p= r= n=2", "Empty", "no outcomes", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_overopt[] = {
  { "*", "kl=1 alpha=1 beta=0.25", "",
    "d = 1: bon 0.75 (peak 1 at d = 2); rl 1 (peak 0.25 e^3 at d = e^3)" },
  { "*", "kl=4 alpha=2 beta=0.5", "",
    "d = 2: bon at its peak d* = 2, R = 2; rl 2 (2 - 0.5 log 2), peak 0.5 e^3" },
  { "*", "kl=100 alpha=1 beta=0.25", "PastPeak",
    "d = 10, far past the peak: bon -15, below the start; rl 10 (1 - 0.25 log 10) = 4.24" },
  { "*", "kl=0.01 alpha=0.5 beta=0.1", "",
    "d = 0.1, early in the budget: bon 0.049, rl 0.073; rl peaks at e^4" },
  { "*", "kl=2.25 alpha=-1 beta=0.5", "NoRise",
    "alpha <= 0: bon falls from the start, its maximum over d >= 0 is 0 at d = 0; rl still "
    "peaks at e^-3" },
  { "*", "kl=0 alpha=1 beta=0.25", "Origin", "KL = 0: d = 0, R = 0 (rl: the limit of d log d)" },
  { "*", "kl=1 alpha=1 beta=0", "OutOfDomain", "beta = 0", .invalid_in = "*" },
  { "*", "kl=1 alpha=1 beta=-0.5", "OutOfDomain", "beta < 0", .invalid_in = "*" },
  { "*", "kl=-0.01 alpha=1 beta=0.25", "OutOfDomain", "KL < 0", .invalid_in = "*" },
  { "*", "kl=nan alpha=1 beta=0.25", "NonFinite", "NaN KL", .invalid_in = "*" },
  { "*", "kl=1 alpha=inf beta=0.25", "NonFinite", "infinite alpha", .invalid_in = "*" },
  RL_END,
};

static const rl_note notes[] = {
  { "TwoOutcomes", "WORKED_EXAMPLE",
    "A uniform base over two outcomes with distinct rewards: q = (2^-n, 1 - 2^-n) in reward "
    "order, kl = 2^-n log(2^(1-n)) + (1 - 2^-n) log(2 (1 - 2^-n)), win 3/4 - 2^-(n+1)." },
  { "Ties", "CONVENTION",
    "Outcomes with equal rewards: they share their level's best-of-n mass in proportion to p "
    "(the first maximum among the draws); a rule that prefers one outcome of a tie would "
    "differ." },
  { "SingleDraw", "EDGE_CASE", "n = 1: best-of-n is the base; kl and the bound are 0." },
  { "ZeroProbability", "EDGE_CASE",
    "An outcome of probability 0 is never drawn: q = 0 there, whatever its reward." },
  { "Cancellation", "NUMERICAL",
    "F(v)^n - F(v^-)^n with F(v^-) near 1: the direct difference of powers cancels; "
    "e^{n log F(v)} (1 - e^{-n log1p(m/F(v^-))}) does not." },
  { "LargeN", "NUMERICAL",
    "Many draws: the powers of F are formed as e^{n log F} with log F = log1p(-(1 - F)) from "
    "the upper tail, which keeps every digit; a power below the binary64 range is 0 there." },
  { "Renormalised", "CONVENTION",
    "Probabilities summing to 1 within 2^-20 but not exactly: the base is p/S, S the exact "
    "sum." },
  { "NotNormalised", "INVALID_INPUT",
    "Probabilities whose sum is further than 2^-20 from 1: not a distribution." },
  { "PastPeak", "EDGE_CASE",
    "Beyond the peak the gold reward falls, here below its value at d = 0 (over-optimisation)." },
  { "NoRise", "EDGE_CASE",
    "bon with alpha <= 0: the curve never rises; its maximum over d >= 0 is R(0) = 0." },
  { "Origin", "EDGE_CASE", "KL = 0: d = 0 and R(0) = 0 in both forms." },
  RL_END,
};

static rl_formula formulas[] = {
  { "BON", "best-of-n on a discrete space: distribution, KL to the base, bound, win rate",
    "000 sections 8.4, 10.4; Stiennon et al. 2020; Beirami et al. 2024",
    "q_k = p_k (F(v)^n - F(v^-)^n)/m_v at the reward level v of k (ties share in proportion "
    "to p); KL(q‖p); the bound log n − (n−1)/n; win = P(R_q > R_p) + ½P(R_q = R_p)",
    NULL, c_bon, notes },
  { "OVEROPT", "over-optimisation functional forms in d = sqrt(KL) and their peaks",
    "000 sections 8.2, 10.4; Gao et al. 2022",
    "d = √KL; bon: R = d(α − βd), d* = α/(2β), R* = α²/(4β); rl: R = d(α − β log d), "
    "d* = e^{α/β − 1}, R* = βd*", NULL, c_overopt, notes },
  RL_END,
};

/* The formulas' variants: one per row of the library's table
 * (rlref_bon_conventions), each on the io of its part and precision. */
static const rl_io *const ios[] = {
  &io_bon, &io_overopt_bon, &io_overopt_rl, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_bon_conventions, f->id, ios, NULL);
}

RL_FAMILY (bon) = {
  .name = "bon",
  .title = "Best-of-n and over-optimisation",
  .rank = 9,
  .formulas = formulas,
  .init = init,
};
