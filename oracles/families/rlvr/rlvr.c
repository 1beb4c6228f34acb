/* rlvr.c -- the RLVR family: the binary verifiable reward of seed 000
 * (13.35) under the answer-matching conventions of the library's table
 * (rlref_verifiers, one variant each), the aggregation of process-reward
 * step scores (ORM against PRM), the seed's binary-verifier example, and
 * Monte-Carlo process-reward labels (Math-Shepherd) with their exact
 * expectation on a tree: inputs, outputs, variants and golden cases.
 * The variants are the rows of the library's tables (reference/src/rlvr/:
 * the verifiers in rlvr.c, rlvr_conventions.c). */
#include <stdio.h>
#include <stdlib.h>
#include "rlref/rlvr.h"
#include "family.h"

RL_EVAL_DECL (verify_reward);
RL_EVAL_DECL (prm_aggregate);
RL_EVAL_DECL (verify_group);
RL_EVAL_DECL (prm_mc_expect);
RL_EVAL_DECL (prm_mc_label);

/* The aggregations' own sensitivities (rlvr_eval.c); the rest by central
 * differences. */
rl_sens_mp_fn rl_sens_prm_aggregate;

static const rl_input in_answers[] = {
  { "answers", RL_REAL_ARRAY,
    "the number each sampled response ends with (nan: no number could be extracted)" },
  { "reference", RL_REAL, "the reference answer" },
  RL_END,
};

static const rl_io io_verify = {
  .in = in_answers,
  .out = (const rl_output[]) {
    { "reward", "the verifier's reward of each response", .len_of = "answers" },
    RL_END },
  RL_EVALS (verify_reward), .part = "verify",
};

static const rl_io io_aggregate = {
  .in = (const rl_input[]) {
    { "step_scores", RL_REAL_ARRAY,
      "a process reward model's score of each step (a probability as a rule)" },
    RL_END },
  .out = (const rl_output[]) { { "score", "the solution's score" }, RL_END },
  RL_EVALS (prm_aggregate), .sens_mp = rl_sens_prm_aggregate, .part = "aggregate",
};

static const rl_io io_example = {
  .in = in_answers,
  .out = (const rl_output[]) {
    { "reward", "the verifier's reward of each response", .len_of = "answers" },
    { "correct", "how many responses match the reference" },
    { "mean", "the group mean reward (the baseline of 13.23)" },
    { "adv", "group-relative advantage of each response (13.23, seed 000's convention)",
      .len_of = "answers" },
    RL_END },
  RL_EVALS (verify_group), .part = "example",
};

static const rl_io io_expect = {
  .in = (const rl_input[]) {
    { "parent", RL_INT_ARRAY, "parent of each node; node 0 is the prompt (-1), a parent is an "
      "earlier node" },
    { "weight", RL_REAL_ARRAY, "sampling weight of each step among its siblings (node 0's is "
      "not used)", .same_len_as = "parent" },
    { "correct", RL_INT_ARRAY, "1 at a leaf whose final answer is right, else 0",
      .same_len_as = "parent" },
    { "path", RL_INT_ARRAY, "the labelled solution's steps, from a child of node 0, each a "
      "child of the one before" },
    { "N", RL_INT, "completions sampled from each step" },
    RL_END },
  .out = (const rl_output[]) {
    { "label", "expected label of each step of the path", .len_of = "path" },
    { "var", "variance of the label", .len_of = "path" },
    RL_END },
  RL_EVALS (prm_mc_expect), .part = "expectation",
};

static const rl_io io_count = {
  .in = (const rl_input[]) {
    { "hits", RL_INT_ARRAY, "completions from each step that reached the right answer" },
    { "N", RL_INT, "completions sampled from each step" },
    RL_END },
  .out = (const rl_output[]) {
    { "label", "the label of each step", .len_of = "hits" },
    RL_END },
  RL_EVALS (prm_mc_label), .part = "estimate",
};

/* The verifiers' variants: all of them. */
#define VERIFIERS "binary,dapo,prime-math"
/* The aggregations. */
#define PRM "prm-min,prm-product,prm-mean,prm-last"

static const rl_case c_reward[] = {
  { VERIFIERS, "answers=1,0.5,1,2,1 reference=1", "SeedDerived",
    "seed 000 section 7.1: the integral of 2x over [0, 1] is 1; answers 1 get 1, \"0.5\" or "
    "\"2\" get 0 (-1 for dapo)" },
  { VERIFIERS, "answers=1,1.00005,100,0.01,0.5 reference=1", "Tolerance Percentage",
    "only 1 equals 1; prime-math's rel_tol 1e-4 also takes 1.00005, and its percentages "
    "100 and 0.01" },
  { VERIFIERS, "answers=1,0x1.0000000000001p+0,0.9999 reference=1", "LastBit Tolerance",
    "one ulp above 1: unequal; prime-math: 1 + 2^-52 is close, and so is 0.9999 (1 - 0.9999 "
    "is 9.99999999999989e-5 in binary64, within 1e-4)" },
  { VERIFIERS, "answers=-3,-3.0002,-300,3 reference=-3", "Tolerance Percentage",
    "a negative reference: -3.0002 is within 1e-4 relative, -300 is ref*100, 3 is not" },
  { VERIFIERS, "answers=0,-0,1e-300 reference=0", "ZeroReference",
    "reference 0: -0 equals 0; a relative tolerance admits nothing else" },
  { VERIFIERS, "answers=nan,1,2 reference=1", "NoAnswer",
    "a response with no final number: no match" },
  { VERIFIERS, "answers=inf,-inf,1e307 reference=1e307", "Overflow",
    "reference*100 overflows to inf in binary64: prime-math then matches an infinite answer",
    .acceptable_in = "prime-math" },
  { VERIFIERS, "answers= reference=1", "Empty", "no answers", .invalid_in = "*" },
  { VERIFIERS, "answers=1,2 reference=nan", "NonFinite", "no reference answer",
    .invalid_in = "*" },
  { PRM, "step_scores=0.9,0.8,0.95", "", "min 0.8, product 0.684, mean 0.883..., last 0.95" },
  { PRM, "step_scores=0.99,0.2,0.97,0.99", "WeakStep",
    "one weak step: min and product see it, the last step does not" },
  { PRM, "step_scores=0.7", "", "one step: every aggregation gives 0.7" },
  { PRM, "step_scores=1,0,0.5", "", "a zero step: min and product 0" },
  { PRM, "step_scores=1e-200,2e-200,0.5", "Underflow",
    "the product 1e-400 lies below the binary64 range" },
  { PRM, "step_scores=2,-0.5,3", "NotProbabilities",
    "scores that are not probabilities (a reward-valued PRM): computed as written" },
  { PRM, "step_scores=1e200,1e200,1e-300", "RangeScaling",
    "the product 1e100, though 1e200 x 1e200 overflows binary64; the mean 6.7e199" },
  { "prm-min,prm-mean,prm-last", "step_scores=1e308,1e308", "RangeScaling",
    "the mean 1e308, though the sum overflows binary64" },
  { PRM, "step_scores=0.5,nan", "NonFinite", "NaN score", .invalid_in = "*" },
  { PRM, "step_scores=", "Empty", "no steps", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_example[] = {
  { "*", "answers=1,0.5,1,2,1 reference=1", "SeedDerived",
    "seed 000 section 7.1 with three right answers of five: rewards [1,0,1,0,1], mean 3/5, "
    "advantages sqrt(2/3) and -sqrt(3/2); dapo's +-1 rewards give the same advantages" },
  { "*", "answers=1,1,1,1,1 reference=1", "SeedDerived ZeroVariance",
    "all five right: the group has no signal, every advantage is 0" },
  { "*", "answers=0.5,2,0.5,2,0.5 reference=1", "SeedDerived ZeroVariance",
    "all five wrong (\"0.5\" or \"2\"): advantages 0" },
  { "*", "answers=1,0.5,2,0.5,2 reference=1", "SeedDerived",
    "one right answer of five: advantage 2 for it, -0.5 for the others" },
  { "*", "answers=1,1.00005,100,0.01,0.5 reference=1", "Tolerance Percentage",
    "1.00005, 100 and 0.01 are right for prime-math only" },
  { "*", "answers=nan,1,0.5,1,2 reference=1", "NoAnswer",
    "a response without a final number is wrong" },
  { "*", "answers= reference=1", "Empty", "no answers", .invalid_in = "*" },
  RL_END,
};

/* A tree of continuations for the integral of 2x over [0, 1]: node 1
 * "F = x^2" (weight 3) or node 2 "F = 2x^2" (weight 1); from 1: node 3
 * "F(1) - F(0) = 1" (4, right) or node 4 "= 0.5" (1); from 2: node 5
 * "= 2" (3) or node 6 "F' = 4x, so F = x^2: 1" (1, right). */
#define TREE "parent=-1,0,0,1,1,2,2 weight=1,3,1,4,1,3,1 correct=0,0,0,1,0,0,1"

static const rl_case c_mc[] = {
  { "soft,hard", TREE " path=2,6 N=8", "SeedDerived",
    "seed 000 7.1's integral: from F = 2x^2 one continuation in four reaches 1 (label 1/4; "
    "hard 1 - (3/4)^8), the corrected last step is right (1)" },
  { "soft,hard", TREE " path=1,4 N=8", "SeedDerived",
    "from F = x^2, 4 in 5 reach 1 (label 4/5); the slip to 0.5 ends wrong (0)" },
  { "soft,hard", TREE " path=1,3 N=1", "SeedDerived", "one completion per step: hard = soft" },
  { "soft,hard", "parent=-1,0,0,1,1,1,2,3,3 weight=1,1,1,1e-6,1,1,1,1,1 "
    "correct=0,0,0,0,0,1,1,1,0 path=1,3,7 N=16", "",
    "a deeper tree; one continuation of weight 1e-6 among siblings of weight 1" },
  { "soft,hard", "parent=-1,0,1,1 weight=0,1,1e-12,1 correct=0,0,1,0 path=1,2 N=1000000",
    "RareSuccess",
    "p = 1e-12/(1 + 1e-12): 1 - (1 - p)^N needs -expm1(N log1p(-p)), the direct form cancels" },
  { "soft,hard", "parent=-1,0,1,1 weight=1,1,1e308,1e308 correct=0,0,1,0 path=1,2 N=4",
    "LargeWeights",
    "two siblings of weight 1e308: their sum overflows binary64 unless scaled first; p = 1/2" },
  { "soft,hard", "parent=-1,0,0 weight=1,1,1 correct=0,0,0 path=1 N=8", "NoRightAnswer",
    "no continuation is right: every label 0" },
  { "soft,hard", "parent=-1,0,1,1 weight=1,1,0,0 correct=0,0,1,0 path=1 N=8", "ZeroWeights",
    "every continuation of a step has weight 0", .invalid_in = "*" },
  { "soft,hard", "parent=-1,0,0 weight=1,1,1 correct=0,2,0 path=1 N=8", "OutOfDomain",
    "correct must be 0 or 1", .invalid_in = "*" },
  { "soft,hard", "parent=-1,0,0 weight=1,1,1 correct=0,1,0 path=1,2 N=8", "BadPath",
    "node 2 is not a child of node 1", .invalid_in = "*" },
  { "soft,hard", "parent=-1,2,0 weight=1,1,1 correct=0,1,0 path=2 N=8", "BadTree",
    "a node's parent comes after it", .invalid_in = "*" },
  { "soft,hard", "parent=-1,0,0 weight=1,nan,1 correct=0,1,0 path=1 N=8", "NonFinite",
    "NaN weight", .invalid_in = "*" },
  { "soft,hard", "parent=-1,0,0 weight=1,1,1 correct=0,1,0 path=1 N=0", "OutOfDomain",
    "no completions", .invalid_in = "*" },
  { "soft-count,hard-count", "hits=2,8,0 N=8", "", "2 of 8, 8 of 8, none" },
  { "soft-count,hard-count", "hits=3 N=7", "", "3 of 7" },
  { "soft-count,hard-count", "hits=9 N=8", "OutOfDomain", "more hits than completions",
    .invalid_in = "*" },
  RL_END,
};

static const rl_note notes[] = {
  { "SeedDerived", "WORKED_EXAMPLE",
    "The scenario of seed 000 section 7.1 (the integral of 2x over [0, 1] is 1; five sampled "
    "answers; those ending in 1 get reward 1, \"0.5\" or \"2\" get 0) with numbers the seed "
    "does not print: which of the five answers are right, and a tree of continuations." },
  { "Tolerance", "CONVENTION",
    "Answers near the reference: equality rejects them, prime-math's relative tolerance 1e-4 "
    "accepts them." },
  { "Percentage", "CONVENTION",
    "prime-math also compares the answer with ref/100 and ref*100 (include_percentage): 100 "
    "and 0.01 are right answers to a question whose answer is 1." },
  { "LastBit", "EDGE_CASE", "An answer one unit in the last place from the reference." },
  { "ZeroReference", "EDGE_CASE",
    "Reference 0: a relative tolerance admits only 0 itself (and -0)." },
  { "NoAnswer", "CONVENTION",
    "A response from which no final number was extracted, written NaN: it matches nothing "
    "(reward 0, or -1 for dapo), as the verifiers score a failed extraction." },
  { "Overflow", "EDGE_CASE",
    "The reference times 100 overflows binary64 in the library's own arithmetic; Python's "
    "isclose (inf, inf) is true, so prime-math accepts an infinite answer (acceptable: what "
    "the convention computes)." },
  { "WeakStep", "CONVENTION", "One weak step among strong ones: the aggregations disagree." },
  { "Underflow", "EDGE_CASE", "The exact product lies below the binary64 range." },
  { "NotProbabilities", "EDGE_CASE",
    "Step scores outside [0, 1]: the aggregations are computed as written." },
  { "RangeScaling", "NUMERICAL",
    "A partial product or sum leaves the binary64 range while the result does not: the "
    "product keeps its exponent apart, the sum is scaled." },
  { "ZeroVariance", "EDGE_CASE",
    "All rewards of the group equal: 13.23 gives every advantage 0 (no learning signal)." },
  { "RareSuccess", "NUMERICAL",
    "A tiny success probability and many completions: 1 - (1 - p)^N computed directly "
    "cancels to 0 or to noise; -expm1(N log1p(-p)) keeps every digit." },
  { "LargeWeights", "NUMERICAL",
    "Sibling weights whose sum overflows binary64: scaled by a power of two first." },
  { "NoRightAnswer", "EDGE_CASE", "No continuation reaches the right answer: labels 0." },
  { "ZeroWeights", "INVALID_INPUT", "A step whose continuations all have weight 0." },
  { "BadPath", "INVALID_INPUT", "The path does not follow the tree." },
  { "BadTree", "INVALID_INPUT", "A node whose parent is not an earlier node." },
  RL_END,
};

static rl_formula formulas[] = {
  { "RLVR-REWARD", "binary verifiable reward (13.35); ORM against PRM aggregation",
    "000 (13.35); sections 8.3, 10.2",
    "`verify`: reward 1 (dapo: +1) when the response's final number matches the reference "
    "under the variant's rule, else 0 (dapo: -1) (13.35); `aggregate`: a PRM's step scores "
    "as one solution score (min, product, mean, last)",
    .cases = c_reward, .notes = notes },
  { "RLVR-REWARD-EX", "the seed's binary-verifier example", "000 section 7.1 (13.35)",
    "seed 000 §7.1: ∫₀¹ 2x dx = 1; five sampled answers; those ending in 1 get 1, \"0.5\" or "
    "\"2\" get 0; the rewards, how many are right, their mean and the advantages of 13.23 "
    "(ddof 0)", .cases = c_example, .notes = notes },
  { "RLVR-PRM-MC", "Monte-Carlo process-reward step labels and their expectation",
    "000 section 10.2",
    "Math-Shepherd: a step's label is the fraction of N completions from it that reach the "
    "right answer (soft) or whether any does (hard); expectation and variance exactly on a "
    "tree of continuations, p = P(right answer | the step) by the tree's recursion",
    NULL, c_mc, notes },
  RL_END,
};

static const rl_io *const ios[] = {
  &io_aggregate, &io_expect, &io_count, NULL,
};

/* The verifiers of the library's table (rlref_verifiers, those the comma
 * list `only` names, or all) on io, then the rows of the conventions'
 * table (rlref_rlvr_conventions) under formula id. */
static rl_variant *
variants_of (const rl_io *io, const char *only, const char *id)
{
  size_t n_extra = rlref_convention_count (rlref_rlvr_conventions, id);
  rl_variant *v = rl_variants_new (rlref_num_verifiers + n_extra);
  rl_variant *extra = rl_variants_of (rlref_rlvr_conventions, id, ios, NULL);
  size_t n = 0;
  for (size_t i = 0; i < rlref_num_verifiers; i++)
    {
      const rlref_verifier *c = &rlref_verifiers[i];
      if (!rl_list_names (only, c->name))
        continue;
      v[n++] = (rl_variant) { c->name, c->rule, c->used_by, io,
                              .params = { { "right", c->right }, { "wrong", c->wrong } },
                              .data = c };
    }
  for (size_t i = 0; i < n_extra; i++)
    v[n++] = extra[i];
  free (extra);
  return v;
}

/* RLVR-REWARD: the verifiers, then the aggregations of step scores;
 * RLVR-REWARD-EX: the verifiers; RLVR-PRM-MC: the label estimates. */
static void
init (void)
{
  formulas[0].variants = variants_of (&io_verify, "*", "RLVR-REWARD");
  formulas[1].variants = variants_of (&io_example, "*", "RLVR-REWARD-EX");
  formulas[2].variants = rl_variants_of (rlref_rlvr_conventions, "RLVR-PRM-MC", ios, NULL);
}

RL_FAMILY (rlvr) = {
  .name = "rlvr",
  .title = "Verifiable rewards",
  .rank = 9,
  .formulas = formulas,
  .init = init,
};
