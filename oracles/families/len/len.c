/* len.c -- the LEN family: the per-token weights of the loss
 * normalisations (LEN-WEIGHTS), the exact expected length drift of one
 * update under each (LEN-DRIFT) and the entropy along exact-gradient
 * training with symmetric clip, clip-higher and dynamic sampling
 * (ENT-COLLAPSE), on the think-then-answer model of rlref/len.h; seed 000
 * sections 12.2-12.3, (13.24), (13.29)-(13.33); seed 003 (Dr.GRPO); seed
 * 004: inputs, outputs, variants and golden cases.
 * The variants are the rows of the library's table
 * (reference/src/len/len_conventions.c). */
#include "rlref/len.h"
#include "family.h"

RL_EVAL_DECL (len_weights);
RL_EVAL_DECL (len_drift);
RL_EVAL_DECL (ent_collapse);

/* --- LEN-WEIGHTS ------------------------------------------------------------ */

static const rl_io io_weights = {
  .in = (const rl_input[]) {
    { "lengths", RL_REAL_ARRAY, "the token count |y_i| > 0 of each response of the batch" },
    { "group_size", RL_INT, "G, responses per prompt (default: all, one group)",
      .defaults_to_len_of = "lengths" },
    RL_END },
  .out = (const rl_output[]) {
    { "w", "the weight of each token of response i in the loss", .len_of = "lengths" },
    { "share", "|y_i| w_i: response i's part of the loss", .len_of = "lengths" },
    { "total", "sum_i |y_i| w_i" },
    RL_END },
  RL_EVALS (len_weights), .part = "weights",
};

static const rl_case c_weights[] = {
  { "*", "lengths=1,3 group_size=2", "Detector",
    "CONVENTIONS.md: per-token losses [[2], [1,1,1]]: sum_i w_i sum_t L = 1.5 (grpo), 1.25 "
    "(token-mean), 2.5 (sum), 0.625 with L_const = 4 (here 16: 0.15625)" },
  { "*", "lengths=100,1000 group_size=2", "SeedExample",
    "seed 000 6.3: a 100-token and a 1000-token response weigh the same under 13.32, so each "
    "token of the long one weighs 10 times less; token-mean weighs every token 1/1100" },
  { "*", "lengths=1,3,2,2,10,20 group_size=3", "",
    "two groups of three: token-mean pools the batch, group-mean-length normalises each group "
    "by its own mean (6/3 = 2 and 32/3)" },
  { "*", "lengths=7 group_size=1", "", "one response: 1/7 a token under 13.24, 13.33 and the "
    "group mean length, 1 without 1/|y|, 1/16 under the constant" },
  { "*", "lengths=2.5,0.5 group_size=2", "", "lengths as real token weights (masked counts): "
    "computed as written" },
  { "*", "lengths=1e308,1e308 group_size=2", "HugeLengths",
    "B |y_i| = 2e308 and sum |y| beyond the binary64 range: w = 1/(2e308), a subnormal "
    "5e-309 (13.24) and 2.5e-309 (group-mean-length), each share still 1/2" },
  { "seq-mean-token-sum-norm", "lengths=1,3 group_size=2 max_len=1.7976931348623157e308",
    "HugeLengths", "B L_const beyond the binary64 range: w = 1/(2 DBL_MAX), a subnormal "
    "2.8e-309, total 4 w" },
  { "*", "lengths=3,-1 group_size=2", "NegativeLength", "a negative length",
    .invalid_in = "*" },
  { "*", "lengths=3,0 group_size=2", "NegativeLength",
    "a response of no tokens: 1/|y| is undefined", .invalid_in = "*" },
  { "*", "lengths= group_size=1", "Empty", "no responses", .invalid_in = "*" },
  { "*", "lengths=1,2,3,4 group_size=3", "LengthMismatch", "groups of 3 do not divide 4",
    .invalid_in = "*" },
  { "*", "lengths=1,nan group_size=2", "NonFinite", "a NaN length", .invalid_in = "*" },
  { "seq-mean-token-sum-norm", "lengths=1,2 group_size=2 max_len=0", "OutOfDomain",
    "L_const = 0", .invalid_in = "*" },
  RL_END,
};

/* --- LEN-DRIFT -------------------------------------------------------------- */

#define MODEL_DOC "the think-then-answer model: 3 logits (w think, c correct answer, x wrong " \
  "answer) per step t = 0..T-1; c and x end the response, T tokens w are cut (reward 0)"

static const rl_io io_drift = {
  .in = (const rl_input[]) {
    { "logits", RL_REAL_ARRAY, MODEL_DOC },
    { "G", RL_INT, "responses per group (1 to 20)" },
    { "eta", RL_REAL, "the step size of the one-step change len_step" },
    RL_END },
  .out = (const rl_output[]) {
    { "len", "E[|y|]" },
    { "acc", "E[r], the probability of a correct answer" },
    { "dlen", "d E[|y|]/d eta along g = E[sum_i w_i A_i grad log pi(y_i)]" },
    { "dlen_pos", "d E[|y|] along the part of g from the terms with A > 0 (correct answers)" },
    { "dlen_neg", "d E[|y|] along the part of g from the terms with A < 0 (wrong answers)" },
    { "dlen_correct", "d E[|y| | correct]/d eta along g" },
    { "dlen_wrong", "d E[|y| | wrong or cut]/d eta along g" },
    { "dacc", "d E[r]/d eta along g" },
    { "len_step", "E[|y|] at theta + eta g minus E[|y|] at theta" },
    RL_END },
  RL_EVALS (len_drift), .part = "drift",
};

static const rl_case c_drift[] = {
  { "*", "logits=0,0,0,0,0,0,0,0,0 G=4 eta=1", "LengthBias",
    "uniform steps, T = 3: 7 responses, 210 groups of 4; GRPO's 1/|y| makes the wrong "
    "answers' part lengthen (dlen_neg > 0), the unnormalised sum shortens both" },
  { "*", "logits=0.5,0,0,0.5,0,0,0.5,0,0 G=3 eta=1", "LengthBias",
    "thinking favoured at every step: E[|y|] 1.66" },
  { "*", "logits=1,-1,0,1,-1,0,1,-1,0 G=3 eta=2", "LengthBias",
    "a hard prompt: accuracy 0.19" },
  { "*", "logits=0,-1,1,0,0,0,0,1,-1 G=3 eta=1", "LengthBias",
    "thinking helps: a correct answer is likelier after more thinking" },
  { "*", "logits=0.3,-0.2,0.1,0.5,0,-0.4,0.2,0.1,0 G=3 eta=1e-8", "SmallStep",
    "eta = 1e-8: len_step formed from eta g and log1p per step (log pi' - log pi lost 7 "
    "digits)" },
  { "*", "logits=0.3,-0.2,0.1,0.5,0,-0.4,0.2,0.1,0 G=3 eta=1e-150", "SmallStep",
    "eta = 1e-150: theta + eta g rounds to theta, len_step is not 0" },
  { "*", "logits=0,0,0 G=2 eta=1", "", "T = 1: no thinking, every length 1: no drift" },
  { "*", "logits=0,0,0,0,0,0 G=1 eta=1", "GroupOfOne",
    "a group of one: every advantage 0, no update" },
  { "*", "logits=0,0,0,0,0,0 G=0 eta=1", "OutOfDomain", "G = 0", .invalid_in = "*" },
  { "*", "logits=0,0,0,0,0,0,0,0,0 G=40 eta=1", "TooLarge",
    "9.3e6 groups of 40 among 7 responses", .invalid_in = "*" },
  { "*", "logits=0,0,0,0 G=2 eta=1", "LengthMismatch", "not 3 logits a step",
    .invalid_in = "*" },
  { "*", "logits=0,nan,0 G=2 eta=1", "NonFinite", "a NaN logit", .invalid_in = "*" },
  RL_END,
};

/* --- ENT-COLLAPSE ----------------------------------------------------------- */

static const rl_io io_ent = {
  .in = (const rl_input[]) {
    { "logits", RL_REAL_ARRAY, MODEL_DOC " (the start of the run)" },
    { "G", RL_INT, "responses per group (1 to 20)" },
    { "lr", RL_REAL, "the learning rate of the inner steps, > 0" },
    { "mu", RL_INT, "inner steps per batch (the old policy held), 1 to 1000" },
    { "steps", RL_INT, "outer steps (batches), 1 to 10000" },
    RL_END },
  .out = (const rl_output[]) {
    { "entropy0", "H(pi) = -sum_y pi(y) log pi(y) at the start" },
    { "entropy", "H(pi) after each outer step", .len_is = "steps" },
    { "acc", "E[r] after each outer step", .len_is = "steps" },
    { "mean_len", "E[|y|] after each outer step", .len_is = "steps" },
    RL_END },
  RL_EVALS (ent_collapse), .part = "entropy",
};

static const rl_case c_ent[] = {
  { "*", "logits=0,-1.5,0.5,0,-1.5,0.5 G=3 lr=4 mu=4 steps=12", "EntropyCollapse",
    "T = 2, a rare correct answer (p 0.078 at each step): the entropy rises while c gains, "
    "then collapses" },
  { "*", "logits=0,-1,0,0,-1,0,0,-1,0 G=3 lr=2 mu=4 steps=6", "EntropyCollapse",
    "T = 3, 343 groups of 3" },
  { "*", "logits=0,-2,1,0,-2,1 G=2 lr=8 mu=8 steps=5", "EntropyCollapse ClipActive",
    "large steps: the clip binds within each batch; clip-higher's entropy stays above the "
    "symmetric clip's" },
  { "*", "logits=0,0,0 G=1 lr=1 mu=2 steps=3", "GroupOfOne",
    "a group of one: no advantage, no update; dynamic sampling keeps no group",
    .invalid_in = "dynamic-sampling" },
  { "*", "logits=0,0,0 G=2 lr=0 mu=2 steps=3", "OutOfDomain", "lr = 0", .invalid_in = "*" },
  { "*", "logits=0,0,0 G=2 lr=1 mu=0 steps=3", "OutOfDomain", "no inner step",
    .invalid_in = "*" },
  { "*", "logits=0,0,0,0 G=2 lr=1 mu=2 steps=3", "LengthMismatch", "not 3 logits a step",
    .invalid_in = "*" },
  RL_END,
};

static const rl_note notes[] = {
  { "Detector", "CONVENTION",
    "The detector of CONVENTIONS.md \"Loss aggregation\": per-token losses [[2], [1, 1, 1]] "
    "give a different loss under each normalisation." },
  { "SeedExample", "WORKED_EXAMPLE",
    "Seed 000 section 6.3: a 100-token and a 1000-token response count the same under the "
    "sample-level mean (13.32), so each token of the long one weighs ten times less." },
  { "LengthBias", "PROPERTY",
    "The exact expected update of one group, every group enumerated.  Reading A (seed 000 "
    "section 12.2, seed 004): GRPO's 1/|y| dilutes the penalty of long wrong answers and "
    "favours short correct ones, so wrong answers lengthen.  Reading B (seed 003): 1/|y| "
    "weighs the tokens of short responses more, so the model learns to write short.  On these "
    "models both halves hold against the unnormalised update (seq-mean-token-sum), though its "
    "tokens weigh |y| times more: under seq-mean-token-mean the part of the update from wrong "
    "answers (dlen_neg) is larger, positive in every case while the unnormalised one is "
    "negative in three, which is A; the part from correct answers (dlen_pos) is smaller, which "
    "is B for correct answers only.  The net drift dlen of 1/|y| is above the unnormalised "
    "one where a cut response scores 0 and the accuracy does not depend on the length, below "
    "it where thinking raises the accuracy (the fourth model): neither reading decides the "
    "net sign, which depends on the model." },
  { "EntropyCollapse", "PROPERTY",
    "Exact-gradient training: each outer step holds pi_old and makes mu gradient steps on the "
    "exact expected clipped surrogate (13.29 with 13.24's weights); the expectation over the "
    "groups of G is a finite sum, so the curves carry no sampling noise.  Dynamic sampling "
    "(13.30) in expectation only rescales the update by 1/P(0 < correct < G): a larger step "
    "where the accuracy is near 0 or 1, which here collapses the entropy sooner." },
  { "ClipActive", "PROPERTY",
    "Steps large enough that rho leaves [1 - eps_low, 1 + eps_high] within a batch: the "
    "three recipes part." },
  { "GroupOfOne", "EDGE_CASE",
    "G = 1: every advantage is 0 (a group of equal rewards), nothing moves; dynamic sampling "
    "keeps no group (rejected: no batch can be filled)." },
  { "SmallStep", "NUMERICAL",
    "A small step eta: E[|y|] after the step minus before is formed from the change of each "
    "log pi(y), eta g - log1p(sum pi expm1(eta g)) per step; log pi' - log pi loses the "
    "digits of a change below the rounding of log pi." },
  { "HugeLengths", "NUMERICAL",
    "A denominator B |y_i|, sum |y| or B L_const beyond the binary64 range while the weight "
    "1/D is not: D is formed scaled by the binade of its largest length, w = 2^-e/(D 2^-e); "
    "written directly, D overflows and w and the shares come out 0." },
  { "NegativeLength", "INVALID_INPUT", "A length <= 0: a response has at least one token." },
  { "TooLarge", "INVALID_INPUT",
    "More groups than the enumeration takes (G at most 20, at most 5e4 multisets)." },
  RL_END,
};

/* The drift and the training runs are sums over up to 2401 groups and
 * recurrences of up to 100 gradient steps: binary64 rounds each term. */
#define LEN_ULPS 256

static rl_formula formulas[] = {
  { "LEN-WEIGHTS", "per-token weight under each loss normalisation",
    "000 section 12.2, (13.24), (13.32), (13.33); 003 Dr.GRPO",
    "w_i the weight of each token of response i: 1/(B |y_i|) (13.24, GRPO), 1/sum |y| (13.33, "
    "DAPO), 1/B (Dr.GRPO), 1/(B mean of the group's |y|) (seed 003), 1/(B L_const) (TRL "
    "dr_grpo); share_i = |y_i| w_i", NULL, c_weights, notes },
  { "LEN-DRIFT", "exact expected change of E[|y|] after one update under each normalisation",
    "000 section 12.2; 004; 003 (the opposite claim)",
    "on the think-then-answer model, g = E[sum_i w_i A_i grad log pi(y_i)] over every group "
    "of G; d E[|y|] along g and along its parts from correct (A > 0) and wrong (A < 0) "
    "answers, d E[|y| | correct], d E[|y| | wrong], d E[r], and E[|y|] after theta + eta g",
    NULL, c_drift, notes, .ulps = LEN_ULPS },
  { "ENT-COLLAPSE", "policy entropy along exact-gradient training: symmetric clip, "
    "clip-higher, dynamic sampling", "000 section 12.3, (13.29)-(13.31)",
    "H(pi) = -sum pi log pi after each outer step of mu exact gradient steps on the expected "
    "clipped surrogate under the batch's old policy (every group enumerated); clip 0.2/0.2, "
    "0.2/0.28, or 0.2/0.2 with only groups of mixed rewards", NULL, c_ent, notes,
    .ulps = LEN_ULPS },
  RL_END,
};

/* The formulas' variants: one per row of the library's table
 * (rlref_len_conventions), each on the io of its part and precision. */
static const rl_io *const ios[] = {
  &io_weights, &io_drift, &io_ent, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_len_conventions, f->id, ios, NULL);
}

RL_FAMILY (len) = {
  .name = "len",
  .title = "Length bias and entropy collapse",
  .rank = 9,
  .formulas = formulas,
  .init = init,
};
