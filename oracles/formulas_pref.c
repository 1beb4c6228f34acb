/* formulas_pref.c -- the PREF-* formulas: inputs, outputs, variants and
 * golden cases (seed 000 sections 2.1 and 10.1, CONVENTIONS.md). */
#include "rlref/status.h"
#include "formulas.h"
#include "entries.h"

/* --- shapes ------------------------------------------------------------ */

static int
shape_scalar (const rl_variant *v, const rl_args *a, size_t *len)
{
  for (size_t k = 0; k < v->io->n_out; k++)
    len[k] = 1;
  (void) a;
  return RLREF_SUCCESS;
}

/* loss, grad_rw[B], grad_rl[B]; rw and rl of one length B >= 1. */
static int
shape_rm (const rl_variant *v, const rl_args *a, size_t *len)
{
  (void) v;
  if (a->len[0] != a->len[1])
    RLREF_ERROR ("rw and rl differ in length", RLREF_EINVAL);
  len[0] = 1;
  len[1] = len[2] = a->len[0];
  return RLREF_SUCCESS;
}

static int
shape_ensemble (const rl_variant *v, const rl_args *a, size_t *len)
{
  (void) v;
  (void) a;
  len[0] = len[1] = len[2] = len[3] = 1;
  return RLREF_SUCCESS;
}

static int
shape_pl_prob (const rl_variant *v, const rl_args *a, size_t *len)
{
  (void) v;
  len[0] = len[1] = 1;
  len[2] = a->len[0];
  return RLREF_SUCCESS;
}

static int
shape_scores_loglik (const rl_variant *v, const rl_args *a, size_t *len)
{
  (void) v;
  if (a->iv[0][0] < 2 || a->iv[0][0] > 64)
    RLREF_ERROR ("the number of items must be between 2 and 64", RLREF_EINVAL);
  len[0] = (size_t) a->iv[0][0];
  len[1] = 1;
  return RLREF_SUCCESS;
}

/* --- inputs and outputs ------------------------------------------------ */

static const rl_input in_pair[] = {
  { "rw", RL_REAL, "score of the preferred response y_w" },
  { "rl", RL_REAL, "score of the other response y_l" },
};
static const rl_output out_p[] = { { "p", 0, "P(y_w preferred to y_l)" } };
static const rl_io io_bt = { in_pair, 2, out_p, 1, shape_scalar, RL_EVALS (bt_prob), "sigma" };
static const rl_io io_gumbel = { in_pair, 2, out_p, 1, shape_scalar, RL_EVALS (bt_gumbel), "integral" };

static const rl_input in_batch[] = {
  { "rw", RL_REAL_ARRAY, "scores of the preferred responses" },
  { "rl", RL_REAL_ARRAY, "scores of the other responses" },
};
static const rl_output out_rm[] = {
  { "loss", 0, "mean loss over the batch" },
  { "grad_rw", 1, "d loss / d rw_i" },
  { "grad_rl", 1, "d loss / d rl_i" },
};
static const rl_io io_rm = { in_batch, 2, out_rm, 3, shape_rm, RL_EVALS (rm_loss), "loss" };

static const rl_input in_wins_pair[] = {
  { "wins_w", RL_REAL, "times A was preferred" },
  { "wins_l", RL_REAL, "times B was preferred" },
};
static const rl_output out_ex_mle[] = {
  { "delta", 0, "maximum-likelihood r(A) - r(B)" },
  { "p", 0, "sigma(delta)" },
};
static const rl_io io_ex_mle = { in_wins_pair, 2, out_ex_mle, 2, shape_scalar, RL_EVALS (bt_ex_mle), "mle-pair" };

static const rl_input in_margin[] = {
  { "rw", RL_REAL, "score of the preferred response" },
  { "rl", RL_REAL, "score of the other response" },
  { "m", RL_REAL, "margin" },
};
static const rl_input in_smooth[] = {
  { "rw", RL_REAL, "score of the preferred response" },
  { "rl", RL_REAL, "score of the other response" },
  { "eps", RL_REAL, "label smoothing, 0 <= eps <= 1" },
};
static const rl_output out_loss3[] = {
  { "loss", 0, "loss" },
  { "grad_rw", 0, "d loss / d rw" },
  { "grad_rl", 0, "d loss / d rl" },
};
static const rl_io io_margin = { in_margin, 3, out_loss3, 3, shape_scalar, RL_EVALS (margin), "loss" };
static const rl_io io_smooth = { in_smooth, 3, out_loss3, 3, shape_scalar, RL_EVALS (smooth), "loss" };

static const rl_input in_ensemble[] = {
  { "scores", RL_REAL_ARRAY, "the K reward models' scores of one response" },
};
static const rl_output out_ensemble[] = {
  { "mean", 0, "ensemble mean" },
  { "var", 0, "ensemble variance" },
  { "std", 0, "sqrt(var)" },
  { "penalized", 0, "mean - lambda std" },
};
static const rl_io io_ensemble = { in_ensemble, 1, out_ensemble, 4, shape_ensemble, RL_EVALS (ensemble), "ensemble" };

static const rl_input in_pl_prob[] = {
  { "scores", RL_REAL_ARRAY, "scores of the K items" },
  { "ranking", RL_INT_ARRAY, "item indices 0..K-1, best first" },
};
static const rl_output out_pl_prob[] = {
  { "logp", 0, "log P(ranking)" },
  { "loss", 0, "-log P(ranking)" },
  { "grad", 1, "d loss / d scores" },
};
static const rl_io io_pl_prob = { in_pl_prob, 2, out_pl_prob, 3, shape_pl_prob, RL_EVALS (pl_prob), "prob" };

static const rl_input in_pl_mle[] = {
  { "K", RL_INT, "number of items" },
  { "rankings", RL_INT_ARRAY, "M full rankings, flattened, best first" },
  { "counts", RL_REAL_ARRAY, "times each ranking was observed" },
};
static const rl_output out_scores[] = {
  { "scores", 1, "maximum-likelihood scores, mean zero" },
  { "loglik", 0, "log-likelihood at the maximum" },
};
static const rl_io io_pl_mle = { in_pl_mle, 3, out_scores, 2, shape_scores_loglik, RL_EVALS (pl_mle), "mle" };

static const rl_input in_bt_mle[] = {
  { "n", RL_INT, "number of items" },
  { "wins", RL_REAL_ARRAY, "n x n row-major; wins[i n + j] = weight of i preferred to j" },
};
static const rl_io io_bt_mle = { in_bt_mle, 2, out_scores, 2, shape_scores_loglik, RL_EVALS (bt_mle), "mle" };

/* --- variants ---------------------------------------------------------- */

static const rl_variant v_bt[] = {
  { "stable", "sigma(rw - rl) (13.6), exponentiating only non-positive numbers",
    "seed 000 (13.5-13.6)", &io_bt, { { 0 } }, 0, NULL, NULL },
};
static const rl_variant v_gumbel[] = {
  { "integral", "P(rw + g_w > rl + g_l) = int f(x) F(x + rw - rl) dx, standard Gumbel g",
    "seed 000 section 2.1", &io_gumbel, { { 0 } }, 0, NULL, NULL },
};
static const rl_variant v_rm[] = {
  { "plain", "(1/B) sum -log sigma(rw - rl) (13.7)",
    "seed 000 (13.7); TRL, OpenRLHF (stable log-sigmoid)", &io_rm,
    { { "c", 0.0, 0, 1 } }, 1, NULL, NULL },
  { "trl-center", "(1/B) sum -log sigma(rw - rl) + c (1/B) sum (rw + rl)^2, c = 0.01",
    "TRL RewardTrainer center_rewards_coefficient", &io_rm,
    { { "c", 0.01, 0, 1 } }, 1, NULL, NULL },
};
static const rl_variant v_ex[] = {
  { "sigma", "sigma(rw - rl) at the seed's numbers", "seed 000 section 2.1 example",
    &io_bt, { { 0 } }, 0, NULL, NULL },
  { "mle-pair", "two-item Bradley-Terry maximum likelihood (GSL fit, Newton polish)",
    "seed 000 section 2.1 example (8 of 10 annotators prefer A)", &io_ex_mle, { { 0 } }, 0, NULL,
    "newton-polish" },
};
static const rl_variant v_margin[] = {
  { "llama2", "-log sigma(rw - rl - m)", "seed 000 section 10.1 (Llama 2); TRL margin column",
    &io_margin, { { 0 } }, 0, NULL, NULL },
};
static const rl_variant v_smooth[] = {
  { "conservative", "-(1 - eps) log sigma(D) - eps log sigma(-D)",
    "seed 000 section 10.1; the same form as cDPO", &io_smooth, { { 0 } }, 0, NULL, NULL },
};
static const rl_variant v_ensemble[] = {
  { "ddof0", "population variance (divide by K)", "seed 000 section 10.1 (ddof not stated)",
    &io_ensemble, { { "ddof", 0, 1, 0 }, { "lambda", 0.5, 0, 1 } }, 2, NULL, NULL },
  { "ddof1", "sample variance (divide by K - 1)", "seed 000 section 10.1 (ddof not stated)",
    &io_ensemble, { { "ddof", 1, 1, 0 }, { "lambda", 0.5, 0, 1 } }, 2, NULL, NULL },
};
static const rl_variant v_pl[] = {
  { "prob", "log P(ranking) = sum_k [s_{pi_k} - lse(s_{pi_k..K})], loss and gradient",
    "seed 000 section 10.1", &io_pl_prob, { { 0 } }, 0, NULL, NULL },
  { "mle", "maximum-likelihood scores from counted rankings (GSL fit, Newton polish)",
    "seed 000 section 10.1", &io_pl_mle, { { 0 } }, 0, NULL, "newton-polish" },
};
static const rl_variant v_bt_mle[] = {
  { "mle", "maximum-likelihood Bradley-Terry scores, mean zero (GSL fit, Newton polish)",
    "seed 000 section 2.1", &io_bt_mle, { { 0 } }, 0, NULL, "newton-polish" },
};

/* --- golden cases ------------------------------------------------------ */

static const rl_case c_bt[] = {
  { "*", "rw=1.5 rl=0", "SeedExample", "seed 000 2.1: sigma(1.5) ~ 0.82", NULL, 0 },
  { "*", "rw=0 rl=0", "SeedExample", "equal quality: 0.5", NULL, 0 },
  { "*", "rw=101.5 rl=100", "ShiftInvariance", "adding 100 to both scores changes nothing", NULL, 0 },
  { "*", "rw=1 rl=0.2", "", "CONVENTIONS reward-model detector scores", NULL, 0 },
  { "*", "rw=-3.25 rl=2", "", "preferred response scored lower", NULL, 0 },
  { "*", "rw=40 rl=0", "Saturated", "1 - p = 4.2e-18: p rounds to 1 in binary64", NULL, 0 },
  { "*", "rw=-40 rl=0", "", "p = 4.2e-18", NULL, 0 },
  { "*", "rw=-800 rl=0", "UnderflowsDouble", "p = e^-800 underflows binary64", NULL, 0 },
  { "*", "rw=10000 rl=0", "Extreme Saturated", "|x| = 1e4: naive e^x overflows", NULL, 0 },
  { "*", "rw=-10000 rl=0", "Extreme UnderflowsDouble", "|x| = 1e4: p = e^-1e4", NULL, 0 },
  { "*", "rw=1 rl=0x1.0000000000001p+0", "LastBit", "scores one ulp apart", NULL, 0 },
  { "*", "rw=1e308 rl=-1e308", "Extreme Saturated", "the difference overflows binary64", NULL, 0 },
  { "*", "rw=nan rl=0", "NonFinite", "NaN score", NULL, 1 },
  { "*", "rw=inf rl=0", "NonFinite", "infinite score", NULL, 1 },
};

static const rl_case c_gumbel[] = {
  { "*", "rw=1.5 rl=0", "SeedExample", "equals sigma(1.5)", NULL, 0 },
  { "*", "rw=0 rl=0", "", "equals 1/2", NULL, 0 },
  { "*", "rw=1 rl=0.2", "", "equals sigma(0.8)", NULL, 0 },
  { "*", "rw=-3.25 rl=2", "", "equals sigma(-5.25)", NULL, 0 },
  { "*", "rw=20 rl=0", "", "equals sigma(20)", NULL, 0 },
  { "*", "rw=-40 rl=0", "", "equals sigma(-40)", NULL, 0 },
  { "*", "rw=nan rl=0", "NonFinite", "NaN score", NULL, 1 },
};

static const rl_case c_rm[] = {
  { "*", "rw=1 rl=0.2", "Detector", "CONVENTIONS detector: 0.3711007 (plain)", NULL, 0 },
  { "*", "rw=1.5 rl=0", "SeedExample", "seed 000 pair", NULL, 0 },
  { "*", "rw=1,2,-1 rl=0.2,2,3", "", "batch of three, one tie", NULL, 0 },
  { "*", "rw=100 rl=-100", "Saturated", "loss = log1p(e^-200)", NULL, 0 },
  { "*", "rw=-100 rl=100", "NaiveOverflowFloat32", "loss ~ 200: log(1 + e^200) overflows binary32", NULL, 0 },
  { "*", "rw=-10000 rl=10000", "Extreme NaiveOverflow", "loss ~ 2e4: log(1 + e^x) overflows binary64", NULL, 0 },
  { "*", "rw= rl=", "EmptyBatch", "empty batch", NULL, 1 },
  { "*", "rw=1,2 rl=0", "LengthMismatch", "rw and rl differ in length", NULL, 1 },
  { "*", "rw=nan rl=0", "NonFinite", "NaN score", NULL, 1 },
};

static const rl_case c_ex[] = {
  { "sigma", "rw=1.5 rl=0", "SeedExample", "r(A) = 1.5, r(B) = 0: sigma(1.5) ~ 0.82", NULL, 0 },
  { "sigma", "rw=0 rl=0", "SeedExample", "equal quality: sigma(0) = 0.5", NULL, 0 },
  { "sigma", "rw=101.5 rl=100", "SeedExample ShiftInvariance", "both scores + 100: unchanged", NULL, 0 },
  { "mle-pair", "wins_w=8 wins_l=2", "SeedExample", "8 of 10 prefer A: delta = log 4, p = 0.8", NULL, 0 },
  { "mle-pair", "wins_w=5 wins_l=5", "SeedExample", "a tie: delta = 0, p = 0.5", NULL, 0 },
  { "mle-pair", "wins_w=1 wins_l=3", "", "delta = -log 3", NULL, 0 },
  { "mle-pair", "wins_w=10 wins_l=0", "NoFiniteMLE", "10 of 10: the likelihood has no maximum", NULL, 1 },
  { "mle-pair", "wins_w=-1 wins_l=3", "NegativeCount", "negative count", NULL, 1 },
};

static const rl_case c_margin[] = {
  { "*", "rw=1 rl=0.2 m=0.5", "Detector", "CONVENTIONS detector: 0.5543552", NULL, 0 },
  { "*", "rw=1 rl=0.2 m=0", "", "m = 0 is the plain RM loss 0.3711007", NULL, 0 },
  { "*", "rw=2 rl=0 m=3", "", "margin larger than the score gap", NULL, 0 },
  { "*", "rw=50 rl=-50 m=1", "Saturated", "", NULL, 0 },
  { "*", "rw=-50 rl=50 m=1", "NaiveOverflowFloat32", "loss ~ 101", NULL, 0 },
  { "*", "rw=1 rl=0 m=nan", "NonFinite", "NaN margin", NULL, 1 },
};

static const rl_case c_smooth[] = {
  { "*", "rw=1 rl=0.2 eps=0.1", "", "", NULL, 0 },
  { "*", "rw=1 rl=0.2 eps=0", "", "eps = 0 is the plain RM loss", NULL, 0 },
  { "*", "rw=1 rl=0.2 eps=0.5", "", "eps = 1/2: symmetric in D", NULL, 0 },
  { "*", "rw=60 rl=0 eps=0.1", "Saturated", "loss ~ eps D", NULL, 0 },
  { "*", "rw=-3 rl=4 eps=0.25", "", "", NULL, 0 },
  { "*", "rw=1 rl=0 eps=1.5", "OutOfDomain", "eps > 1", NULL, 1 },
  { "*", "rw=1 rl=0 eps=-0.1", "OutOfDomain", "eps < 0", NULL, 1 },
};

static const rl_case c_ensemble[] = {
  { "*", "scores=1,2,3,4", "", "lambda 0.5", NULL, 0 },
  { "*", "scores=-0.25,0.75,0.5 lambda=1", "", "lambda 1", NULL, 0 },
  { "*", "scores=5,5,5", "ZeroVariance", "identical scores", NULL, 0 },
  { "*", "scores=100000000,100000001,100000002", "LargeOffset",
    "one-pass variance cancels catastrophically here", NULL, 0 },
  { "*", "scores=0.7", "SingleModel", "one model: ddof 1 has no variance", NULL, 0 },
  { "*", "scores=", "Empty", "no scores", NULL, 1 },
  { "*", "scores=1,nan", "NonFinite", "NaN score", NULL, 1 },
  { "*", "scores=1,2,3 lambda=-0.5", "OutOfDomain", "a negative uncertainty penalty", NULL, 1 },
};

static const rl_case c_pl[] = {
  { "prob", "scores=1,0.5,-0.2 ranking=0,1,2", "", "", NULL, 0 },
  { "prob", "scores=1,0.5,-0.2 ranking=2,1,0", "", "reversed ranking", NULL, 0 },
  { "prob", "scores=2,0 ranking=1,0", "EqualsBT", "K = 2: P = sigma(0 - 2)", NULL, 0 },
  { "prob", "scores=0,0,0,0 ranking=3,1,0,2", "", "equal scores: P = 1/24", NULL, 0 },
  { "prob", "scores=10000,0,-10000 ranking=2,1,0", "Extreme", "log P ~ -3e4", NULL, 0 },
  { "prob", "scores=40,0 ranking=0,1", "Saturated",
    "near-certain ranking: log P = -4.2e-18, lost when lse - s is formed by subtraction", NULL, 0 },
  { "prob", "scores=1,2,3 ranking=0,0,1", "BadRanking", "not a permutation", NULL, 1 },
  { "prob", "scores=1,2,3 ranking=0,1", "LengthMismatch", "ranking shorter than scores", NULL, 1 },
  { "mle", "K=2 rankings=0,1,1,0 counts=8,2", "EqualsBT SeedExample",
    "K = 2 is Bradley-Terry: scores +-log(4)/2", NULL, 0 },
  { "mle", "K=3 rankings=0,1,2,1,0,2,2,0,1 counts=3,2,1", "", "three items, counted rankings", NULL, 0 },
  { "mle", "K=4 rankings=0,1,2,3,3,2,1,0,1,3,0,2 counts=2,1,1.5", "", "fractional counts", NULL, 0 },
  { "mle", "K=3 rankings=0,1,2 counts=1", "NoFiniteMLE", "item 0 always first: no maximum", NULL, 1 },
  { "mle", "K=2 rankings=0,1,1,0 counts=1,-1", "NegativeCount", "negative count", NULL, 1 },
};

static const rl_case c_bt_mle[] = {
  { "*", "n=2 wins=0,8,2,0", "SeedExample", "8 of 10: scores +-log(4)/2", NULL, 0 },
  { "*", "n=3 wins=0,3,1,1,0,2,2,1,0", "", "three items", NULL, 0 },
  { "*", "n=4 wins=0,5,0,1,1,0,4,0,0,2,0,3,2,0,1,0", "", "four items, sparse comparisons", NULL, 0 },
  { "*", "n=3 wins=0,2.5,0,0,0,1.5,0.5,0,0", "", "a cycle with fractional weights", NULL, 0 },
  { "*", "n=3 wins=0,1,1,0,0,1,0,0,0", "NoFiniteMLE", "item 2 never wins: no maximum", NULL, 1 },
  { "*", "n=2 wins=0,-1,2,0", "NegativeCount", "negative weight", NULL, 1 },
  { "*", "n=2 wins=0,1,1", "LengthMismatch", "wins is not n x n", NULL, 1 },
};

static const rl_note n_pref[] = {
  { "SeedExample", "WORKED_EXAMPLE", "A number printed in the seed documents." },
  { "ShiftInvariance", "PROPERTY",
    "Scores shifted by a constant: the probability only depends on the difference (000 2.1)." },
  { "Saturated", "EDGE_CASE", "The probability is within 1e-16 of 0 or 1, or the loss of 0." },
  { "Extreme", "EDGE_CASE",
    "Arguments of magnitude 1e4 or more: exp of them overflows; only the stable forms survive." },
  { "LastBit", "EDGE_CASE", "Inputs differing in the last bit." },
  { "NonFinite", "INVALID_INPUT", "NaN or infinite input: must be rejected." },
  { "Detector", "CONVENTION", "A detector vector from CONVENTIONS.md." },
  { "NaiveOverflowFloat32", "NUMERICAL",
    "log(1 + e^x) written naively overflows in binary32 (x > 88.72); the stable form does not." },
  { "NaiveOverflow", "NUMERICAL", "log(1 + e^x) written naively overflows in binary64." },
  { "EmptyBatch", "INVALID_INPUT", "An empty batch: must be rejected." },
  { "Empty", "INVALID_INPUT", "No data: must be rejected." },
  { "LengthMismatch", "INVALID_INPUT", "Inputs whose lengths do not fit together." },
  { "NoFiniteMLE", "INVALID_INPUT",
    "The comparison graph is not strongly connected: the likelihood has no finite maximum." },
  { "NegativeCount", "INVALID_INPUT", "A negative count or weight." },
  { "OutOfDomain", "INVALID_INPUT", "A parameter outside its domain." },
  { "ZeroVariance", "EDGE_CASE", "All values equal: variance exactly 0." },
  { "LargeOffset", "NUMERICAL",
    "Large values with small spread: a one-pass variance (E[x^2] - E[x]^2) cancels." },
  { "SingleModel", "EDGE_CASE", "One value: the sample variance (ddof 1) is undefined." },
  { "EqualsBT", "PROPERTY", "Plackett-Luce with K = 2 is Bradley-Terry." },
  { "BadRanking", "INVALID_INPUT", "The ranking is not a permutation of the items." },
};

const rl_formula rl_formula_pref[] = {
  { "PREF-BT", "Bradley-Terry preference probability", "000 (13.5), (13.6)",
    v_bt, RL_COUNT (v_bt), c_bt, RL_COUNT (c_bt), n_pref, RL_COUNT (n_pref) },
  { "PREF-BT-GUMBEL", "Bradley-Terry as the argmax of scores plus Gumbel noise",
    "000 section 2.1", v_gumbel, RL_COUNT (v_gumbel), c_gumbel, RL_COUNT (c_gumbel),
    n_pref, RL_COUNT (n_pref) },
  { "PREF-RM-LOSS", "reward-model loss -log sigma(r_w - r_l) and its gradient", "000 (13.7)",
    v_rm, RL_COUNT (v_rm), c_rm, RL_COUNT (c_rm), n_pref, RL_COUNT (n_pref) },
  { "PREF-BT-EX", "the Bradley-Terry worked example", "000 section 2.1",
    v_ex, RL_COUNT (v_ex), c_ex, RL_COUNT (c_ex), n_pref, RL_COUNT (n_pref) },
  { "PREF-MARGIN", "margin reward-model loss -log sigma(r_w - r_l - m)", "000 section 10.1",
    v_margin, RL_COUNT (v_margin), c_margin, RL_COUNT (c_margin), n_pref, RL_COUNT (n_pref) },
  { "PREF-SMOOTH", "label-smoothed (conservative) reward-model loss", "000 section 10.1",
    v_smooth, RL_COUNT (v_smooth), c_smooth, RL_COUNT (c_smooth), n_pref, RL_COUNT (n_pref) },
  { "PREF-ENSEMBLE", "reward-model ensemble mean, variance and uncertainty penalty",
    "000 section 10.1", v_ensemble, RL_COUNT (v_ensemble), c_ensemble, RL_COUNT (c_ensemble),
    n_pref, RL_COUNT (n_pref) },
  { "PREF-PL", "Plackett-Luce ranking probability, loss, gradient and MLE", "000 section 10.1",
    v_pl, RL_COUNT (v_pl), c_pl, RL_COUNT (c_pl), n_pref, RL_COUNT (n_pref) },
  { "PREF-BT-MLE", "maximum-likelihood Bradley-Terry scores from preference counts",
    "000 section 2.1", v_bt_mle, RL_COUNT (v_bt_mle), c_bt_mle, RL_COUNT (c_bt_mle),
    n_pref, RL_COUNT (n_pref) },
};
const size_t rl_n_formula_pref = RL_COUNT (rl_formula_pref);
