/* pref.c -- the PREF-* family: preference and reward models (seed 000
 * sections 2.1 and 10.1, CONVENTIONS.md): inputs, outputs, variants and
 * golden cases.
 * The variants are the rows of the library's table
 * (reference/src/pref/pref_conventions.c). */
#include <string.h>
#include "rlref/pref.h"
#include "family.h"

RL_EVAL_DECL (bt_prob);
RL_EVAL_DECL (bt_gumbel);
RL_EVAL_DECL (rm_loss);
RL_EVAL_DECL (bt_ex_mle);
RL_EVAL_DECL (margin);
RL_EVAL_DECL (smooth);
RL_EVAL_DECL (ensemble);
RL_EVAL_DECL (pl_prob);
RL_EVAL_DECL (pl_mle);
RL_EVAL_DECL (bt_mle);

/* The formulas' own sensitivities (pref_eval.c); the rest by central
 * differences. */
rl_sens_mp_fn rl_sens_bt_gumbel, rl_sens_bt_ex_mle, rl_sens_pl_mle, rl_sens_bt_mle;

/* --- inputs and outputs ------------------------------------------------ */

static const rl_input in_pair[] = {
  { "rw", RL_REAL, "score of the preferred response y_w" },
  { "rl", RL_REAL, "score of the other response y_l" },
  RL_END,
};
static const rl_output out_p[] = { { "p", "P(y_w preferred to y_l)" }, RL_END };
static const rl_io io_bt = { in_pair, out_p, RL_EVALS (bt_prob), .part = "sigma" };
static const rl_io io_gumbel = { in_pair, out_p, RL_EVALS (bt_gumbel),
                                 .sens_mp = rl_sens_bt_gumbel, .part = "integral" };

static const rl_io io_rm = {
  .in = (const rl_input[]) {
    { "rw", RL_REAL_ARRAY, "scores of the preferred responses" },
    { "rl", RL_REAL_ARRAY, "scores of the other responses", .same_len_as = "rw" },
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "mean loss over the batch" },
    { "grad_rw", "d loss / d rw_i", .len_of = "rw" },
    { "grad_rl", "d loss / d rl_i", .len_of = "rl" },
    RL_END },
  RL_EVALS (rm_loss), .part = "loss",
};

static const rl_io io_ex_mle = {
  .in = (const rl_input[]) {
    { "wins_w", RL_REAL, "times A was preferred", .domain = "[0,inf)" },
    { "wins_l", RL_REAL, "times B was preferred", .domain = "[0,inf)" },
    RL_END },
  .out = (const rl_output[]) {
    { "delta", "maximum-likelihood r(A) - r(B)" },
    { "p", "sigma(delta)" },
    RL_END },
  RL_EVALS (bt_ex_mle), .sens_mp = rl_sens_bt_ex_mle, .cert = "newton-polish", .part = "mle-pair",
};

static const rl_output out_loss3[] = {
  { "loss", "loss" },
  { "grad_rw", "d loss / d rw" },
  { "grad_rl", "d loss / d rl" },
  RL_END,
};
static const rl_io io_margin = {
  .in = (const rl_input[]) {
    { "rw", RL_REAL, "score of the preferred response" },
    { "rl", RL_REAL, "score of the other response" },
    { "m", RL_REAL, "margin" },
    RL_END },
  .out = out_loss3, RL_EVALS (margin), .part = "loss",
};
static const rl_io io_smooth = {
  .in = (const rl_input[]) {
    { "rw", RL_REAL, "score of the preferred response" },
    { "rl", RL_REAL, "score of the other response" },
    { "eps", RL_REAL, "label smoothing, 0 <= eps <= 1" },
    RL_END },
  .out = out_loss3, RL_EVALS (smooth), .part = "loss",
};

static const rl_io io_ensemble = {
  .in = (const rl_input[]) {
    { "scores", RL_REAL_ARRAY, "the K reward models' scores of one response" },
    RL_END },
  .out = (const rl_output[]) {
    { "mean", "ensemble mean" },
    { "var", "ensemble variance" },
    { "std", "sqrt(var)" },
    { "penalized", "mean - lambda std" },
    { "penalized_var", "mean - lambda var (seed 000 section 10.1 names the variance)" },
    RL_END },
  RL_EVALS (ensemble), .part = "ensemble",
};

static const rl_io io_pl_prob = {
  .in = (const rl_input[]) {
    { "scores", RL_REAL_ARRAY, "scores of the K items" },
    { "ranking", RL_INT_ARRAY, "item indices 0..K-1, best first", .same_len_as = "scores" },
    RL_END },
  .out = (const rl_output[]) {
    { "logp", "log P(ranking)" },
    { "loss", "-log P(ranking)" },
    { "grad", "d loss / d scores", .len_of = "scores" },
    RL_END },
  RL_EVALS (pl_prob), .part = "prob",
};

static const rl_io io_pl_mle = {
  .in = (const rl_input[]) {
    { "K", RL_INT, "number of items" },
    { "rankings", RL_INT_ARRAY, "M full rankings, flattened, best first" },
    { "counts", RL_REAL_ARRAY, "times each ranking was observed", .domain = "[0,inf)" },
    RL_END },
  .out = (const rl_output[]) {
    { "scores", "maximum-likelihood scores, mean zero", .len_is = "K" },
    { "loglik", "log-likelihood at the maximum" },
    RL_END },
  RL_EVALS (pl_mle), .sens_mp = rl_sens_pl_mle, .cert = "newton-polish", .part = "mle",
};

static const rl_io io_bt_mle = {
  .in = (const rl_input[]) {
    { "n", RL_INT, "number of items" },
    { "wins", RL_REAL_ARRAY, "n x n row-major; wins[i n + j] = weight of i preferred to j",
      .domain = "[0,inf)" },
    RL_END },
  .out = (const rl_output[]) {
    { "scores", "maximum-likelihood scores, mean zero", .len_is = "n" },
    { "loglik", "log-likelihood at the maximum" },
    RL_END },
  RL_EVALS (bt_mle), .sens_mp = rl_sens_bt_mle, .cert = "newton-polish", .part = "mle",
};

/* --- golden cases ------------------------------------------------------ */

static const rl_case c_bt[] = {
  { "*", "rw=1.5 rl=0", "SeedExample", "seed 000 2.1: sigma(1.5) ~ 0.82" },
  { "*", "rw=0 rl=0", "SeedExample", "equal quality: 0.5" },
  { "*", "rw=101.5 rl=100", "ShiftInvariance", "adding 100 to both scores changes nothing" },
  { "*", "rw=1 rl=0.2", "", "CONVENTIONS reward-model detector scores" },
  { "*", "rw=-3.25 rl=2", "", "preferred response scored lower" },
  { "*", "rw=40 rl=0", "Saturated", "1 - p = 4.2e-18: p rounds to 1 in binary64" },
  { "*", "rw=-40 rl=0", "", "p = 4.2e-18" },
  { "*", "rw=-800 rl=0", "UnderflowsDouble", "p = e^-800 underflows binary64" },
  { "*", "rw=10000 rl=0", "Extreme Saturated", "|x| = 1e4: naive e^x overflows" },
  { "*", "rw=-10000 rl=0", "Extreme UnderflowsDouble", "|x| = 1e4: p = e^-1e4" },
  { "*", "rw=1 rl=0x1.0000000000001p+0", "LastBit", "scores one ulp apart" },
  { "*", "rw=1e308 rl=-1e308", "Extreme Saturated", "the difference overflows binary64" },
  { "*", "rw=nan rl=0", "NonFinite", "NaN score", .invalid_in = "*" },
  { "*", "rw=inf rl=0", "NonFinite", "infinite score", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_gumbel[] = {
  { "*", "rw=1.5 rl=0", "SeedExample", "equals sigma(1.5)" },
  { "*", "rw=0 rl=0", "", "equals 1/2" },
  { "*", "rw=1 rl=0.2", "", "equals sigma(0.8)" },
  { "*", "rw=-3.25 rl=2", "", "equals sigma(-5.25)" },
  { "*", "rw=20 rl=0", "", "equals sigma(20)" },
  { "*", "rw=-40 rl=0", "", "equals sigma(-40)" },
  { "*", "rw=nan rl=0", "NonFinite", "NaN score", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_rm[] = {
  { "*", "rw=1 rl=0.2", "Detector", "CONVENTIONS detector: 0.3711007 (plain)" },
  { "*", "rw=1.5 rl=0", "SeedExample", "seed 000 pair" },
  { "*", "rw=1,2,-1 rl=0.2,2,3", "", "batch of three, one tie" },
  { "*", "rw=100 rl=-100", "Saturated", "loss = log1p(e^-200)" },
  { "*", "rw=-100 rl=100", "NaiveOverflowFloat32", "loss ~ 200: log(1 + e^200) overflows binary32" },
  { "*", "rw=-10000 rl=10000", "Extreme NaiveOverflow", "loss ~ 2e4: log(1 + e^x) overflows binary64" },
  { "*", "rw= rl=", "EmptyBatch", "empty batch", .invalid_in = "*" },
  { "*", "rw=1,2 rl=0", "LengthMismatch", "rw and rl differ in length", .invalid_in = "*" },
  { "*", "rw=nan rl=0", "NonFinite", "NaN score", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_ex[] = {
  { "sigma", "rw=1.5 rl=0", "SeedExample", "r(A) = 1.5, r(B) = 0: sigma(1.5) ~ 0.82" },
  { "sigma", "rw=0 rl=0", "SeedExample", "equal quality: sigma(0) = 0.5" },
  { "sigma", "rw=101.5 rl=100", "SeedExample ShiftInvariance", "both scores + 100: unchanged" },
  { "mle-pair", "wins_w=8 wins_l=2", "SeedDerived",
    "8 of 10 prefer A: the maximum-likelihood delta = log 4, p = 0.8 (the seed illustrates "
    "with r(A) = 1.5)" },
  { "mle-pair", "wins_w=5 wins_l=5", "SeedExample", "a tie: delta = 0, p = 0.5" },
  { "mle-pair", "wins_w=1 wins_l=3", "", "delta = -log 3" },
  { "mle-pair", "wins_w=10 wins_l=0", "NoFiniteMLE", "10 of 10: the likelihood has no maximum", .invalid_in = "*" },
  { "mle-pair", "wins_w=-1 wins_l=3", "NegativeCount", "negative count", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_margin[] = {
  { "*", "rw=1 rl=0.2 m=0.5", "Detector", "CONVENTIONS detector: 0.5543552" },
  { "*", "rw=1 rl=0.2 m=0", "", "m = 0 is the plain RM loss 0.3711007" },
  { "*", "rw=2 rl=0 m=3", "", "margin larger than the score gap" },
  { "*", "rw=50 rl=-50 m=1", "Saturated", "" },
  { "*", "rw=-50 rl=50 m=1", "NaiveOverflowFloat32", "loss ~ 101" },
  { "*", "rw=1 rl=-1.7976931348623157e308 m=1.7976931348623157e308", "HugeCancel",
    "z = rw - rl - m = 1: rounded after each subtraction it is 0 (loss ln 2)" },
  { "*", "rw=1e300 rl=1e300 m=-1e-300", "HugeCancel",
    "z = 1e-300: the score gap cancels exactly, the margin remains" },
  { "*", "rw=1 rl=0 m=nan", "NonFinite", "NaN margin", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_smooth[] = {
  { "*", "rw=1 rl=0.2 eps=0.1", "", "" },
  { "*", "rw=1 rl=0.2 eps=0", "", "eps = 0 is the plain RM loss" },
  { "*", "rw=1 rl=0.2 eps=0.5", "", "eps = 1/2: symmetric in D" },
  { "*", "rw=60 rl=0 eps=0.1", "Saturated", "loss ~ eps D" },
  { "*", "rw=-3 rl=4 eps=0.25", "", "" },
  { "*", "rw=1 rl=0 eps=1.5", "OutOfDomain", "eps > 1", .invalid_in = "*" },
  { "*", "rw=1 rl=0 eps=-0.1", "OutOfDomain", "eps < 0", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_ensemble[] = {
  { "*", "scores=1,2,3,4", "", "lambda 0.5" },
  { "*", "scores=-0.25,0.75,0.5 lambda=1", "", "lambda 1" },
  { "*", "scores=5,5,5", "ZeroVariance NonDifferentiable",
    "identical scores: std = sqrt(var) has its kink at var = 0" },
  { "*", "scores=100000000,100000001,100000002", "LargeOffset", "one-pass variance cancels catastrophically here" },
  { "*", "scores=0.7", "SingleModel NonDifferentiable",
    "one model: ddof 0 gives var 0 (the kink of sqrt), ddof 1 has no variance",
    .invalid_in = "ddof1" },
  { "*", "scores=", "Empty", "no scores", .invalid_in = "*" },
  { "*", "scores=1,nan", "NonFinite", "NaN score", .invalid_in = "*" },
  { "*", "scores=1,2,3 lambda=-0.5", "OutOfDomain", "a negative uncertainty penalty", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_pl[] = {
  { "prob", "scores=1,0.5,-0.2 ranking=0,1,2", "", "" },
  { "prob", "scores=1,0.5,-0.2 ranking=2,1,0", "", "reversed ranking" },
  { "prob", "scores=2,0 ranking=1,0", "EqualsBT", "K = 2: P = sigma(0 - 2)" },
  { "prob", "scores=0,0,0,0 ranking=3,1,0,2", "", "equal scores: P = 1/24" },
  { "prob", "scores=10000,0,-10000 ranking=2,1,0", "Extreme", "log P ~ -3e4" },
  { "prob", "scores=40,0 ranking=0,1", "Saturated", "near-certain ranking: log P = -4.2e-18, lost when lse - s is formed by subtraction" },
  { "prob", "scores=1,2,3 ranking=0,0,1", "BadRanking", "not a permutation", .invalid_in = "*" },
  { "prob", "scores=1,2,3 ranking=0,1", "LengthMismatch", "ranking shorter than scores", .invalid_in = "*" },
  { "mle", "K=2 rankings=0,1,1,0 counts=8,2", "EqualsBT SeedDerived", "K = 2 is Bradley-Terry: scores +-log(4)/2" },
  { "mle", "K=3 rankings=0,1,2,1,0,2,2,0,1 counts=3,2,1", "", "three items, counted rankings" },
  { "mle", "K=4 rankings=0,1,2,3,3,2,1,0,1,3,0,2 counts=2,1,1.5", "", "fractional counts" },
  { "mle", "K=3 rankings=0,1,2 counts=1", "NoFiniteMLE", "item 0 always first: no maximum", .invalid_in = "*" },
  { "mle", "K=2 rankings=0,1,1,0 counts=1,-1", "NegativeCount", "negative count", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_bt_mle[] = {
  { "*", "n=2 wins=0,8,2,0", "SeedDerived", "8 of 10: scores +-log(4)/2" },
  { "*", "n=3 wins=0,3,1,1,0,2,2,1,0", "", "three items" },
  { "*", "n=4 wins=0,5,0,1,1,0,4,0,0,2,0,3,2,0,1,0", "", "four items, sparse comparisons" },
  { "*", "n=3 wins=0,2.5,0,0,0,1.5,0.5,0,0", "", "a cycle with fractional weights" },
  { "*", "n=3 wins=0,1,1,0,0,1,0,0,0", "NoFiniteMLE", "item 2 never wins: no maximum", .invalid_in = "*" },
  { "*", "n=2 wins=0,-1,2,0", "NegativeCount", "negative weight", .invalid_in = "*" },
  { "*", "n=2 wins=0,1,1", "LengthMismatch", "wins is not n x n", .invalid_in = "*" },
  RL_END,
};

static const rl_note n_pref[] = {
  { "SeedExample", "WORKED_EXAMPLE", "A number printed in the seed documents." },
  { "SeedDerived", "WORKED_EXAMPLE",
    "The seed's scenario with a number the seed does not print: 8 of 10 annotators prefer A "
    "(seed 000 section 2.1) has the exact maximum-likelihood score difference log 4; the "
    "seed itself illustrates the fit with r(A) = 1.5, r(B) = 0." },
  { "ShiftInvariance", "PROPERTY",
    "Scores shifted by a constant: the probability only depends on the difference (000 2.1)." },
  { "Saturated", "EDGE_CASE", "The probability is within 1e-16 of 0 or 1, or the loss of 0." },
  { "Extreme", "EDGE_CASE",
    "Arguments of magnitude 1e4 or more: exp of them overflows; only the stable forms survive." },
  { "LastBit", "EDGE_CASE", "Inputs differing in the last bit." },
  { "Detector", "CONVENTION", "A detector vector from CONVENTIONS.md." },
  { "NaiveOverflowFloat32", "NUMERICAL",
    "log(1 + e^x) written naively overflows in binary32 (x > 88.72); the stable form does not." },
  { "NaiveOverflow", "NUMERICAL", "log(1 + e^x) written naively overflows in binary64." },
  { "HugeCancel", "NUMERICAL",
    "Scores and margin near the top of the range whose sum cancels: r_w - r_l - m must be "
    "rounded once, not after each subtraction." },
  { "NoFiniteMLE", "INVALID_INPUT",
    "The comparison graph is not strongly connected: the likelihood has no finite maximum." },
  { "NegativeCount", "INVALID_INPUT", "A negative count or weight." },
  { "ZeroVariance", "EDGE_CASE", "All values equal: variance exactly 0." },
  { "LargeOffset", "NUMERICAL",
    "Large values with small spread: a one-pass variance (E[x^2] - E[x]^2) cancels." },
  { "SingleModel", "EDGE_CASE", "One value: the sample variance (ddof 1) is undefined." },
  { "EqualsBT", "PROPERTY", "Plackett-Luce with K = 2 is Bradley-Terry." },
  { "BadRanking", "INVALID_INPUT", "The ranking is not a permutation of the items." },
  RL_END,
};

static rl_formula formulas[] = {
  { "PREF-BT", "Bradley-Terry preference probability", "000 (13.5), (13.6)",
    "p = e^{rw}/(e^{rw}+e^{rl}) (13.5) = σ(rw − rl) (13.6)", NULL, c_bt, n_pref },
  { "PREF-BT-GUMBEL", "Bradley-Terry as the argmax of scores plus Gumbel noise",
    "000 section 2.1",
    "P(rw + g_w > rl + g_l), g standard Gumbel, as the integral ∫ f(x) F(x + rw − rl) dx",
    NULL, c_gumbel, n_pref },
  { "PREF-RM-LOSS", "reward-model loss -log sigma(r_w - r_l) and its gradient", "000 (13.7)",
    "loss = (1/B) Σ −log σ(rw_i − rl_i) (13.7); variant `trl-center` adds c·(1/B) Σ (rw_i + "
    "rl_i)², c = 0.01; gradients of loss", NULL, c_rm, n_pref },
  { "PREF-BT-EX", "the Bradley-Terry worked example", "000 section 2.1",
    "seed 000 §2.1 worked example: σ(1.5) ≈ 0.82; delta = maximum-likelihood r_w − r_l for "
    "wins_w vs wins_l (8 of 10 → log 4)", NULL, c_ex, n_pref },
  { "PREF-MARGIN", "margin reward-model loss -log sigma(r_w - r_l - m)", "000 section 10.1",
    "−log σ(rw − rl − m)", NULL, c_margin, n_pref },
  { "PREF-SMOOTH", "label-smoothed (conservative) reward-model loss", "000 section 10.1",
    "−(1−ε) log σ(Δ) − ε log σ(−Δ), Δ = rw − rl", NULL, c_smooth, n_pref },
  { "PREF-ENSEMBLE", "reward-model ensemble mean, variance and uncertainty penalty",
    "000 section 10.1",
    "ensemble mean, variance (variant `ddof0` or `ddof1`), std = √var, penalized = mean − λ·std, "
    "penalized_var = mean − λ·var (seed 000 §10.1 penalises by the variance)",
    NULL, c_ensemble, n_pref },
  { "PREF-PL", "Plackett-Luce ranking probability, loss, gradient and MLE", "000 section 10.1",
    "`prob`: logp = Σ_k [s_{π_k} − log Σ_{j≥k} e^{s_{π_j}}], loss = −logp, grad = ∂loss/∂s; "
    "`mle`: maximum-likelihood scores (mean zero) of counted full rankings",
    NULL, c_pl, n_pref },
  { "PREF-BT-MLE", "maximum-likelihood Bradley-Terry scores from preference counts",
    "000 section 2.1",
    "maximum-likelihood BT scores, mean zero; loglik = Σ wins_ij log σ(s_i − s_j); rejected "
    "(EDOM) when the comparison graph is not strongly connected", NULL, c_bt_mle, n_pref },
  RL_END,
};

/* Three formulas name their part "loss" and two "mle", each on its own
 * io: the row's formula says which. */
static const rl_io *
pick (const rlref_convention *c)
{
  static const struct
  {
    const char *formula;
    const rl_io *io;
  } own[] = {
    { "PREF-RM-LOSS", &io_rm }, { "PREF-MARGIN", &io_margin }, { "PREF-SMOOTH", &io_smooth },
    { "PREF-PL", &io_pl_mle }, { "PREF-BT-MLE", &io_bt_mle },
  };
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
    if (strcmp (c->formula, own[k].formula) == 0 && strcmp (c->part, own[k].io->part) == 0)
      return own[k].io;
  return NULL;
}

/* The formulas' variants: one per row of the library's table
 * (rlref_pref_conventions), each on the io pick gives or that of its part
 * and precision. */
static const rl_io *const ios[] = {
  &io_bt, &io_gumbel, &io_rm, &io_ex_mle, &io_margin, &io_smooth, &io_ensemble, &io_pl_prob,
  &io_pl_mle, &io_bt_mle, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = rl_variants_of (rlref_pref_conventions, f->id, ios, pick);
}

RL_FAMILY (pref) = {
  .name = "pref",
  .title = "Preference and reward models",
  .rank = 2,
  .formulas = formulas,
  .init = init,
};
