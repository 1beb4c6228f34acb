/* prefpairs.c -- PREF-PAIRS: a K-way ranking split into its C(K,2)
 * pairwise Bradley-Terry losses, the alternative to Plackett-Luce that
 * seed 000 section 10.1 names; the maximum-likelihood fit of counted
 * rankings by pairs, and its comparison with the Plackett-Luce fit of the
 * same rankings: inputs, outputs, variants and golden cases.
 * The variants are the rows of the library's table
 * (reference/src/prefpairs/prefpairs_conventions.c). */
#include "rlref/prefpairs.h"
#include "family.h"

RL_EVAL_DECL (pairs_loss);
RL_EVAL_DECL (pairs_mle);
RL_EVAL_DECL (pairs_compare);

static const rl_io io_loss = {
  .in = (const rl_input[]) {
    { "scores", RL_REAL_ARRAY, "scores of the K items" },
    { "ranking", RL_INT_ARRAY, "item indices 0..K-1, best first", .same_len_as = "scores" },
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "the pairs' -log sigma(s_w - s_l), summed or averaged (the variant)" },
    { "loglik", "sum over the C(K,2) pairs of log sigma(s_w - s_l)" },
    { "grad", "d loss / d scores", .len_of = "scores" },
    RL_END },
  RL_EVALS (pairs_loss), .part = "loss",
};

static const rl_input in_fit[] = {
  { "K", RL_INT, "number of items" },
  { "rankings", RL_INT_ARRAY, "M full rankings, flattened, best first" },
  { "counts", RL_REAL_ARRAY, "times each ranking was observed" },
  RL_END,
};

static const rl_io io_mle = {
  .in = in_fit,
  .out = (const rl_output[]) {
    { "scores", "maximum-likelihood scores of the pairs, mean zero", .len_is = "K" },
    { "loglik", "pairwise log-likelihood at the maximum" },
    RL_END },
  RL_EVALS (pairs_mle), .cert = "newton-polish", .part = "mle",
};

static const rl_io io_compare = {
  .in = in_fit,
  .out = (const rl_output[]) {
    { "scores_pl", "Plackett-Luce maximum-likelihood scores, mean zero", .len_is = "K" },
    { "scores_pairs", "pairwise maximum-likelihood scores, mean zero", .len_is = "K" },
    { "loglik_pl", "Plackett-Luce log-likelihood at its maximum" },
    { "loglik_pl_at_pairs", "Plackett-Luce log-likelihood at the pairwise scores" },
    { "loglik_pairs", "pairwise log-likelihood at its maximum" },
    RL_END },
  RL_EVALS (pairs_compare), .cert = "newton-polish", .part = "compare",
};

static const rl_case cases[] = {
  { "sum,instructgpt", "scores=1,0.5,-0.2 ranking=0,1,2", "",
    "scores in the ranking's order: every pair agrees" },
  { "sum,instructgpt", "scores=1,0.5,-0.2 ranking=2,1,0", "",
    "the reversed ranking: every pair disagrees" },
  { "sum,instructgpt", "scores=2,0 ranking=1,0", "EqualsBT",
    "K = 2: one pair, the reward-model loss -log sigma(0 - 2) (13.7)" },
  { "sum,instructgpt", "scores=0,0,0,0 ranking=3,1,0,2", "EqualScores",
    "equal scores: every pair costs log 2 (6 log 2 summed, log 2 averaged); grad (2 pos - K "
    "+ 1)/2 over P" },
  { "sum,instructgpt", "scores=0.3,-1.2,0.7,2,0.1 ranking=3,2,0,4,1", "", "K = 5, 10 pairs" },
  { "sum,instructgpt", "scores=3e-10,1e-10,0 ranking=0,1,2", "HalvesCancel",
    "grad[1] = h(1e-10) + h(-2e-10) = -2.5e-11: the halves of sigma cancel exactly" },
  { "sum,instructgpt", "scores=10000,0,-10000 ranking=2,1,0", "Extreme",
    "pair losses near 1e4 and 2e4: e^x overflows, the stable form does not" },
  { "sum,instructgpt", "scores=40,0,-40 ranking=0,1,2", "Saturated",
    "near-certain pairs: the loss is about 4.2e-18 + 4.2e-18 + 1.8e-35" },
  { "sum,instructgpt", "scores=1 ranking=0", "SingleItem",
    "one item: no pair", .invalid_in = "*" },
  { "sum,instructgpt", "scores=1,2,3 ranking=0,0,1", "BadRanking", "not a permutation",
    .invalid_in = "*" },
  { "sum,instructgpt", "scores=1,nan,3 ranking=0,1,2", "NonFinite", "NaN score",
    .invalid_in = "*" },
  { "mle,compare", "K=2 rankings=0,1,1,0 counts=8,2", "EqualsBT SeedDerived",
    "K = 2: both fits are Bradley-Terry, scores +-log(4)/2 (8 of 10, seed 000 section 2.1)" },
  { "mle,compare", "K=3 rankings=0,1,2,0,2,1,1,0,2,1,2,0,2,0,1,2,1,0 counts=20,10,15,5,6,4",
    "ProportionalCounts",
    "counts proportional to the Plackett-Luce probabilities of weights (3, 2, 1): both fits "
    "give log(3, 2, 1) - log(6)/3, and the two log-likelihoods of PL agree" },
  { "mle,compare", "K=3 rankings=0,1,2,1,0,2,2,0,1 counts=3,2,1", "FitsDiffer",
    "the PREF-PL case: the pairwise scores differ from the Plackett-Luce ones, whose "
    "log-likelihood the pairwise fit does not reach" },
  { "mle,compare", "K=4 rankings=0,1,2,3,3,2,1,0,1,3,0,2 counts=2,1,1.5", "FitsDiffer",
    "fractional counts, four items" },
  { "mle,compare", "K=3 rankings=0,1,2 counts=1", "NoFiniteMLE",
    "item 0 always first: no maximum", .invalid_in = "*" },
  { "mle,compare", "K=2 rankings=0,1,1,0 counts=1,-1", "NegativeCount", "negative count",
    .invalid_in = "*" },
  { "mle,compare", "K=3 rankings=0,1,2,2,1 counts=1,1", "LengthMismatch",
    "rankings do not hold two rankings of three", .invalid_in = "*" },
  RL_END,
};

static const rl_note notes[] = {
  { "SeedDerived", "WORKED_EXAMPLE",
    "The seed's scenario with a number the seed does not print: 8 of 10 annotators prefer A "
    "(seed 000 section 2.1) has the exact maximum-likelihood score difference log 4." },
  { "EqualsBT", "PROPERTY",
    "K = 2: one pair; the pairwise loss is the reward-model loss (13.7) and both fits are "
    "the Bradley-Terry fit." },
  { "EqualScores", "PROPERTY", "All scores equal: each pair's probability is 1/2." },
  { "HalvesCancel", "NUMERICAL",
    "A gradient element is a sum of sigmoids near 1/2 whose halves cancel: computed as "
    "sigma - 1/2 = tanh(x/2)/2 it keeps its digits, summed as sigmoids it keeps none." },
  { "Extreme", "EDGE_CASE",
    "Score differences of 1e4 or more: exp of them overflows; only the stable forms survive." },
  { "Saturated", "EDGE_CASE", "Every pair probability within 1e-16 of 1." },
  { "ProportionalCounts", "PROPERTY",
    "Counts proportional to the Plackett-Luce probabilities of weights w: a Plackett-Luce "
    "pair marginal is Bradley-Terry, P(i above j) = w_i/(w_i + w_j), so both fits return "
    "log w minus its mean exactly." },
  { "FitsDiffer", "PROPERTY",
    "Counts that no Plackett-Luce model reproduces exactly: the pairwise and the "
    "Plackett-Luce fits differ, and the Plackett-Luce log-likelihood at the pairwise scores "
    "is below its maximum." },
  { "SingleItem", "INVALID_INPUT", "One item: a ranking without a pair." },
  { "BadRanking", "INVALID_INPUT", "The ranking is not a permutation of the items." },
  { "NoFiniteMLE", "INVALID_INPUT",
    "Some set of items is never ranked below the others: the likelihood has no finite "
    "maximum." },
  { "NegativeCount", "INVALID_INPUT", "A negative count." },
  RL_END,
};

static rl_formula formulas[] = {
  { "PREF-PAIRS", "a ranking as its C(K,2) pairwise Bradley-Terry losses; fits by pairs and "
    "by Plackett-Luce", "000 section 10.1",
    "loss = (1/P) Σ_{k<l} −log σ(s_{π_k} − s_{π_l}), P = 1 (`sum`) or C(K,2) (`instructgpt`); "
    "`mle`: scores maximising Σ_m c_m Σ_{k<l} log σ(s_{π_m,k} − s_{π_m,l}) (the Bradley-Terry "
    "fit of the pair counts); `compare`: that fit beside the Plackett-Luce fit of the same "
    "rankings", NULL, cases, notes },
  RL_END,
};

/* The formulas' variants: one per row of the library's table
 * (rlref_prefpairs_conventions), each on the io of its part and precision. */
static const rl_io *const ios[] = {
  &io_loss, &io_mle, &io_compare, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_prefpairs_conventions, f->id, ios, NULL);
}

RL_FAMILY (prefpairs) = {
  .name = "prefpairs",
  .title = "A ranking as pairwise Bradley-Terry comparisons",
  .rank = 2,
  .formulas = formulas,
  .init = init,
};
