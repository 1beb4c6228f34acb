/* grpoobj.c -- the GRPO objective family: the GRPO objective with both KL
 * placements (13.24-13.26) and CISPO, loss aggregation, Dr.GRPO in three
 * readings, GSPO, GMPO and GFPO (seed 000 section 5 and 11; seed 003; seed
 * 004; CONVENTIONS.md "Ratio and clipping", "Loss aggregation"): inputs,
 * outputs, variants (one per convention of the seeds and libraries, read
 * from their code), golden cases and notes.
 *
 * The libraries read: TRL trl/trainer/grpo_trainer.py (_compute_loss, loss
 * types grpo, bnpo, dr_grpo, dapo, cispo; importance_sampling_level
 * "sequence") and grpo_config.py (defaults); verl
 * verl/trainer/ppo/core_algos.py (agg_loss, compute_policy_loss_gspo,
 * compute_policy_loss_geo_mean, compute_policy_loss_cispo). */
#include "rlref/grpoobj.h"
#include "family.h"

RL_EVAL_DECL (grpo_obj);
RL_EVAL_DECL (grpo_agg);
RL_EVAL_DECL (grpo_dr);
RL_EVAL_DECL (grpo_gspo);
RL_EVAL_DECL (grpo_gmpo);
RL_EVAL_DECL (grpo_means);
RL_EVAL_DECL (grpo_gfpo);

#define IN_LOGP { "logp", RL_REAL_ARRAY, "log pi_theta(y_t | s_t) of every token of the G " \
    "sequences, laid out one sequence after another" }
#define IN_OLD { "old_logp", RL_REAL_ARRAY, "log pi_old(y_t | s_t), the policy that sampled", \
    .same_len_as = "logp" }
#define IN_LENS { "lens", RL_INT_ARRAY, "the number of tokens of each sequence (>= 1), adding " \
    "up to the tokens" }
#define IN_MASK(of) { "mask", RL_INT_ARRAY, "1 for a token that counts, 0 for padding; every " \
    "sequence needs a 1; other entries are refused", .same_len_as = of }
#define IN_ADV { "adv", RL_REAL_ARRAY, "the advantage A_i of each sequence, shared by its " \
    "tokens", .same_len_as = "lens" }

#define EPS(lo, hi) { "eps_low", (lo), .in_x = 1 }, { "eps_high", (hi), .in_x = 1 }

/* --- GRPO-OBJ ---------------------------------------------------------- */

static const rl_io io_obj = {
  .in = (const rl_input[]) {
    IN_LOGP, IN_OLD,
    { "ref_logp", RL_REAL_ARRAY, "log pi_ref(y_t | s_t), the frozen reference",
      .same_len_as = "logp" },
    IN_LENS, IN_ADV, IN_MASK ("logp"),
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "-J, J the objective of the variant (13.24 with the KL where it places it)" },
    { "kl", "the KL term before beta: k3 (13.26) averaged as the variant places it" },
    { "grad", "d loss / d logp_t (0 at masked tokens; 0 from a clipped term where the clip "
      "binds)", .len_of = "logp" },
    RL_END },
  RL_EVALS (grpo_obj), .part = "objective",
};

static const enum rlref_grpo_obj_kind k_outside = RLREF_GRPO_OBJ_KL_OUTSIDE;
static const enum rlref_grpo_obj_kind k_inside = RLREF_GRPO_OBJ_KL_INSIDE;
static const enum rlref_grpo_obj_kind k_cispo_trl = RLREF_GRPO_OBJ_CISPO_TRL;
static const enum rlref_grpo_obj_kind k_cispo_verl = RLREF_GRPO_OBJ_CISPO_VERL;

#define BETA(b) { "beta", (b), .in_x = 1 }
#define S_RULE "s_t = min(rho_t A_i, clip(rho_t, 1 - eps_low, 1 + eps_high) A_i), rho_t = " \
  "exp(logp_t - old_logp_t) (13.25, no clamp); k3_t = e^{-k} - 1 + k, k = logp_t - ref_logp_t " \
  "(13.26); "

static const rl_variant v_obj[] = {
  { "seed-000", S_RULE "J = (1/G) sum_i (1/n_i) sum_t s_t - beta K, the KL once per prompt "
    "outside the sums, K = sum_t k3_t / sum_i n_i (the per-token estimate 13.26 averaged over "
    "the group's tokens: our reading of the single KL_k3 term); eps 0.2, beta 0.04 (DeepSeekMath's "
    "value; the seed gives none)",
    "seed 000 (13.24) and its pseudo-code (loss += beta KL_k3(pi_theta, pi_ref) once per "
    "prompt)", &io_obj, .params = { EPS (0.2, 0.2), BETA (0.04) }, .data = &k_outside },
  { "seed-003", S_RULE "J = (1/G) sum_i (1/n_i) sum_t (s_t - beta k3_t), the KL inside the "
    "per-token mean; K = (1/G) sum_i (1/n_i) sum_t k3_t; eps 0.2, beta 0.04",
    "seed 003 (J_GRPO with - beta D_KL inside the token sum); TRL GRPOTrainer loss_type "
    "\"grpo\" with beta > 0 (per_token_loss + beta per_token_kl, then the mean over each "
    "sequence's tokens and over sequences; TRL's default beta is 0)", &io_obj,
    .params = { EPS (0.2, 0.2), BETA (0.04) }, .data = &k_inside },
  { "cispo-trl", "CISPO: c_t = min(rho_t, eps_high) detached (no lower bound, rho "
    "unclamped), J = (1/N) sum_t (c_t A_i logp_t - beta k3_t), N the masked tokens; the "
    "gradient c_t A_i - beta k3'_t over N, not the derivative of J's value; eps_high 5, beta 0",
    "TRL GRPOTrainer loss_type \"cispo\" (clamp(coef_1, max=epsilon_high).detach(), the sum over "
    "the batch's tokens divided by num_items_in_batch)", &io_obj,
    .params = { { "eps_high", 5.0, .in_x = 1 }, BETA (0.0) }, .data = &k_cispo_trl },
  { "cispo-verl", "CISPO: l clamped to [-20, 20], c_t = clip(e^l, 1 - eps_low, 1 + eps_high) "
    "detached (two-sided), J = (1/N) sum_t (c_t A_i logp_t - beta k3_t) (token-mean); eps "
    "0.2, beta 0 (the KL term here is plain k3; verl's low_var_kl clamps it at 10)",
    "verl compute_policy_loss_cispo (clip_ratio 0.2, loss_agg_mode token-mean)", &io_obj,
    .params = { EPS (0.2, 0.2), BETA (0.0) }, .data = &k_cispo_verl },
  RL_END,
};

/* --- GRPO-AGG ---------------------------------------------------------- */

#define AGG_IN { "L", RL_REAL_ARRAY, "the per-token losses of the G sequences, one sequence " \
    "after another" }, IN_LENS, IN_MASK ("L")
#define AGG_OUT (const rl_output[]) {                                           \
    { "value", "the aggregated loss, sum_t w_t L_t" },                           \
    { "weights", "w_t = d value / d L_t, the weight of each token (0 where masked)", \
      .len_of = "L" },                                                          \
    RL_END }

static const rl_io io_agg = {
  .in = (const rl_input[]) { AGG_IN, RL_END }, .out = AGG_OUT,
  RL_EVALS (grpo_agg), .part = "aggregate",
};
static const rl_io io_agg_micro = {
  .in = (const rl_input[]) { AGG_IN,
    { "micro", RL_INT, "sequences per micro-batch (dividing G): micro-batch k holds sequences "
      "k micro to (k + 1) micro - 1" },
    RL_END },
  .out = AGG_OUT, RL_EVALS (grpo_agg), .part = "aggregate-micro",
};

static const enum rlref_grpo_agg_mode a_tm = RLREF_AGG_TOKEN_MEAN;
static const enum rlref_grpo_agg_mode a_smtm = RLREF_AGG_SEQ_MEAN_TOKEN_MEAN;
static const enum rlref_grpo_agg_mode a_smts = RLREF_AGG_SEQ_MEAN_TOKEN_SUM;
static const enum rlref_grpo_agg_mode a_norm = RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM;
static const enum rlref_grpo_agg_mode a_nob = RLREF_AGG_SUM_NORM_NO_B;
static const enum rlref_grpo_agg_mode a_gml = RLREF_AGG_GROUP_MEAN_LENGTH;
static const enum rlref_grpo_agg_mode a_sum = RLREF_AGG_TOKEN_SUM;
static const enum rlref_grpo_agg_mode a_micro = RLREF_AGG_MICRO_BATCH;

#define LCONST(c) { "L_const", (c), .in_x = 1 }

static const rl_variant v_agg[] = {
  { "token-mean", "sum_t L_t / N, N the masked tokens of the whole batch (13.33)",
    "verl agg_loss \"token-mean\" (the default); OpenRLHF; TRL loss_type \"dapo\" (over the "
    "generation batch) and \"bnpo\" (per micro-batch); seed 000 (13.33, DAPO)", &io_agg,
    .data = &a_tm },
  { "seq-mean-token-mean", "(1/B) sum_i (1/n_i) sum_t L_t (13.32)",
    "seed 000 (13.24, 13.32); TRL loss_type \"grpo\"; verl \"seq-mean-token-mean\" (forced for "
    "GSPO)", &io_agg, .data = &a_smtm },
  { "seq-mean-token-sum", "(1/B) sum_i sum_t L_t", "verl agg_loss \"seq-mean-token-sum\"",
    &io_agg, .data = &a_smts },
  { "seq-mean-token-sum-norm", "sum_t L_t / (B L_const); L_const 512",
    "TRL loss_type \"dr_grpo\" (L_const = max_completion_length, default 512); verl "
    "\"seq-mean-token-sum-norm\" (loss_scale_factor, by default the padded width)", &io_agg,
    .params = { LCONST (512.0) }, .data = &a_norm },
  { "seq-mean-token-sum-norm-no-b", "sum_t L_t / L_const, B forgotten; L_const 512",
    "verl \"seq-mean-token-sum-norm\" before February 2026 (no division by the batch size)",
    &io_agg, .params = { LCONST (512.0) }, .data = &a_nob },
  { "group-mean-length", "(1/B) sum_i (1/Lbar) sum_t L_t, Lbar = (1/B) sum_i n_i: equal to "
    "the token mean, since B Lbar = N", "seed 003 (Dr.GRPO: 1/|o_i| replaced by the group mean "
    "length)", &io_agg, .data = &a_gml },
  { "token-sum", "sum_t L_t, no normalisation", "seed 003's GRPO pseudo-code (maximise "
    "sum L_t); verl agg_loss \"token-sum\"", &io_agg, .data = &a_sum },
  { "micro-batch-token-mean", "(1/K) sum_k (sum_{t in k} L_t / N_k) over K micro-batches of "
    "micro sequences each", "legacy verl (the token mean per micro-batch, averaged over "
    "gradient accumulation); TRL loss_type \"bnpo\" under gradient accumulation", &io_agg_micro,
    .data = &a_micro },
  RL_END,
};

/* --- GRPO-DR ----------------------------------------------------------- */

static const rl_io io_dr = {
  .in = (const rl_input[]) {
    IN_LOGP, IN_OLD, IN_LENS,
    { "rewards", RL_REAL_ARRAY, "the reward r_i of each sequence", .same_len_as = "lens" },
    IN_MASK ("logp"),
    RL_END },
  .out = (const rl_output[]) {
    { "loss", "-J of the reading" },
    { "adv", "the advantage A_i of each sequence under the reading", .len_of = "lens" },
    { "grad", "d loss / d logp_t", .len_of = "logp" },
    RL_END },
  RL_EVALS (grpo_dr), .part = "dr-grpo",
};

static const enum rlref_grpo_dr_reading r_000 = RLREF_DR_NO_NORM;
static const enum rlref_grpo_dr_reading r_003 = RLREF_DR_GROUP_MEAN_LENGTH;
static const enum rlref_grpo_dr_reading r_trl = RLREF_DR_CONST_LENGTH;

static const rl_variant v_dr[] = {
  { "seed-000", "A_i = r_i - mean (no std), J = (1/G) sum_i sum_t s_t (no 1/|y_i|); s_t the "
    "clipped term of 13.12; eps 0.2",
    "seed 000 section 11 (Dr.GRPO: the std and the length normalisation removed); seed 004 "
    "(the length bias of 1/|y|)", &io_dr, .params = { EPS (0.2, 0.2) }, .data = &r_000 },
  { "seed-003", "A_i = (r_i - mean)/std, ddof 1 (GRPO's advantage as seed 003 computes it; a "
    "zero-variance group 0), J = (1/G) sum_i (1/Lbar) sum_t s_t, Lbar the group's mean length "
    "(= the token mean); eps 0.2",
    "seed 003 (Dr.GRPO: exactly GRPO, the denominator |o_i| replaced by the group mean length)",
    &io_dr, .params = { EPS (0.2, 0.2) }, .data = &r_003 },
  { "trl", "A_i = r_i - mean, J = sum_{i,t} s_t / (G L_const), L_const 512; eps 0.2",
    "TRL GRPOTrainer loss_type \"dr_grpo\" with scale_rewards \"none\" (the Dr.GRPO setup; "
    "max_completion_length 512, epsilon 0.2)", &io_dr,
    .params = { EPS (0.2, 0.2), LCONST (512.0) }, .data = &r_trl },
  RL_END,
};

/* --- GRPO-GSPO --------------------------------------------------------- */

static const rl_io io_gspo = {
  .in = (const rl_input[]) { IN_LOGP, IN_OLD, IN_LENS, IN_ADV, IN_MASK ("logp"), RL_END },
  .out = (const rl_output[]) {
    { "loss", "-(1/G) sum_i min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i)" },
    { "s", "s_i = exp((1/n_i) sum_t (logp_t - old_logp_t)) = (pi(y_i)/pi_old(y_i))^{1/|y_i|}",
      .len_of = "lens" },
    { "grad", "d loss / d logp_t = -(1/G) A_i s_i / n_i where s_i A_i is the min, else 0",
      .len_of = "logp" },
    RL_END },
  RL_EVALS (grpo_gspo), .part = "gspo",
};

static const double cap_none = 0.0, cap_verl = RLREF_GSPO_VERL_CAP;

static const rl_variant v_gspo[] = {
  { "gspo", "s_i = e^{m_i}, m_i the mean token log-ratio, no cap; the sequence clip; loss the "
    "mean over sequences; eps_low 3e-4, eps_high 4e-4",
    "seed 000 section 11; seed 003 (GSPO); TRL importance_sampling_level \"sequence\" with "
    "loss_type \"grpo\" (epsilon 3e-4, epsilon_high 4e-4 as its documentation advises); "
    "OpenRLHF (no cap: inf or NaN for a large mean)", &io_gspo,
    .params = { EPS (3e-4, 4e-4) }, .data = &cap_none },
  { "verl", "the GSPO-token form sg(s_i) pi_t/sg(pi_t): the same value and, A per sequence, "
    "the same gradient; log s_i capped at 10 (e^10 beyond, gradient 0); seq-mean-token-mean; "
    "eps_low 3e-4, eps_high 4e-4",
    "verl compute_policy_loss_gspo (clamp(max=10.0); the GSPO recipe's clip_ratio_low 3e-4, "
    "clip_ratio_high 4e-4)", &io_gspo, .params = { EPS (3e-4, 4e-4) }, .data = &cap_verl },
  RL_END,
};

/* --- GRPO-GMPO --------------------------------------------------------- */

static const rl_io io_gmpo = {
  .in = (const rl_input[]) { IN_LOGP, IN_OLD, IN_LENS, IN_ADV, IN_MASK ("logp"), RL_END },
  .out = (const rl_output[]) {
    { "loss", "-(1/G) sum_i A_i ratio_i" },
    { "ratio", "ratio_i = exp((1/n_i) sum_t lm_t), the geometric mean of the sign-aware "
      "clipped token ratios", .len_of = "lens" },
    { "grad", "d loss / d logp_t = -(1/G) A_i ratio_i / n_i where the clip does not bind, "
      "else 0", .len_of = "logp" },
    RL_END },
  RL_EVALS (grpo_gmpo), .part = "gmpo",
};

static const rl_io io_means = {
  .in = (const rl_input[]) {
    { "terms", RL_REAL_ARRAY, "the absolute clipped token terms |min(rho A, clip(rho) A)|, "
      ">= 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "arith", "(1/n) sum terms, GRPO's arithmetic mean" },
    { "geo", "(prod terms)^{1/n}, GMPO's geometric mean" },
    RL_END },
  RL_EVALS (grpo_means), .part = "example",
};

static const rl_variant v_gmpo[] = {
  { "gmpo", "l_t = logp_t - old_logp_t, lm_t = sgn(A) min(sgn(A) l_t, sgn(A) clamp(l_t, "
    "-clip_low, clip_high)) (the upper bound binds for A > 0, the lower for A < 0), ratio_i = "
    "exp(mean_t lm_t), loss = -(1/G) sum_i A_i ratio_i; clip 0.4 in log space (e^{-0.4}, "
    "e^{0.4})",
    "seed 003 (GMPO: the geometric mean with sgn(A), clip range (e^{-0.4}, e^{0.4})); verl "
    "compute_policy_loss_geo_mean (clip_ratio_low = clip_ratio_high = 0.4 as its GMPO recipe "
    "sets; its + 1e-8 on the token count vanishes in float32)", &io_gmpo,
    .params = { { "clip_low", 0.4, .in_x = 1 }, { "clip_high", 0.4, .in_x = 1 } } },
  { "seed-example", "arith = mean of the terms, geo = (prod terms)^{1/n}",
    "seed 003 (GMPO example: [1, 1, 1, 10] -> 3.25 and 1.78)", &io_means },
  RL_END,
};

/* --- GRPO-GFPO --------------------------------------------------------- */

static const rl_io io_gfpo = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "the reward r_i of each of the N sampled responses" },
    { "lens", RL_INT_ARRAY, "the length |o_i| of each response (>= 1)", .same_len_as = "rewards" },
    { "k", RL_INT, "the number of responses kept, 1 to N" },
    RL_END },
  .out = (const rl_output[]) {
    { "keep", "1 for a kept response, 0 for a filtered one", .len_of = "rewards" },
    { "key", "the filter's key: |o_i|, or r_i/|o_i|", .len_of = "rewards" },
    { "mean_kept", "the mean reward of the kept responses (the group baseline of the "
      "retained subset)" },
    RL_END },
  RL_EVALS (grpo_gfpo), .part = "filter",
};

static const enum rlref_gfpo_filter f_short = RLREF_GFPO_SHORTEST;
static const enum rlref_gfpo_filter f_eff = RLREF_GFPO_TOKEN_EFFICIENCY;

static const rl_variant v_gfpo[] = {
  { "shortest", "keep the k shortest of N; ties to the lower index (a stable sort by length)",
    "seed 003 (GFPO, shortest k/N)", &io_gfpo, .data = &f_short },
  { "token-efficiency", "keep the k largest r_i/|o_i| (compared exactly: r_j |o_i| against "
    "r_i |o_j|); ties to the shorter response, then the lower index",
    "seed 003 (GFPO, token efficiency r_i/|o_i|)", &io_gfpo, .data = &f_eff },
  RL_END,
};

/* --- golden cases ------------------------------------------------------ */

/* Three sequences of 2, 3 and 1 tokens; log-ratios 0.25, 0.325, -0.5, 1.35,
 * 0.125, 0.375: with eps 0.2 the first two and the last are clipped above
 * (A > 0), the third below (A < 0), the fourth (A < 0, rho = 3.86) and the
 * fifth are not. */
#define LP "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1.25,-0.625,-1.5,-2.25,0.375,-0.5"
#define REF " ref_logp=-0.875,-0.5,-2.125,-1,0.25,-0.25"
#define SEQ " lens=2,3,1"
#define ADV " adv=0.75,-0.8,1.5"
#define ALL6 " mask=1,1,1,1,1,1"
#define V_EPSLOW "seed-000,seed-003,cispo-verl"

static const rl_case c_obj[] = {
  { "*", LP REF SEQ ADV ALL6, "Batch",
    "three sequences of 2, 3, 1 tokens, both signs of A, clipped above, below and not at all" },
  { "*", LP REF SEQ ADV " mask=1,1,1,0,1,1", "Padding",
    "the same with the fourth token (of the second sequence) masked: n_2 = 2" },
  { "*", "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1,-0.3,-2,-0.9,0.5,-0.125" REF SEQ ADV ALL6,
    "OnPolicy", "logp = old_logp: rho = 1, nothing clipped; the KL term alone differs" },
  { "*", LP " ref_logp=-1,-0.3,-2,-0.9,0.5,-0.125" SEQ ADV ALL6, "AtReference",
    "ref_logp = logp: every k3 is 0" },
  { "*", "logp=-1.0000000001,-2 old_logp=-1,-2 ref_logp=-1,-2.0000000002 lens=2 adv=1 mask=1,1",
    "K3Cancellation", "k = -1e-10 and 2e-10: k3 ~ k^2/2 = 5e-21, lost by e^{-k} - 1 + k" },
  { "*", LP REF SEQ ADV ALL6 " beta=0.5", "", "a large beta: the KL placement shows" },
  { "*", "logp=-0.5,-1.5,-0.25 old_logp=-0.75,-1.25,-0.25 ref_logp=-0.5,-1,-0.5 lens=3 adv=-1 "
    "mask=1,1,1", "SingleSequence", "G = 1" },
  { "*", "logp=3,-1 old_logp=0,-1 ref_logp=2,-1 lens=1,1 adv=1,-1 mask=1,1", "CispoCap",
    "rho = e^3 = 20.1 with A > 0: TRL's CISPO caps the weight at 5, verl's clips it to 1.2, "
    "the clipped surrogate stops at 1.2 with no gradient" },
  { V_EPSLOW, "logp=-1,-2 old_logp=-1,-2 ref_logp=-1.5,-2 lens=1,1 adv=1,-1 mask=1,1 eps_low=0 "
    "eps_high=0", "ZeroClipRange", "eps 0: rho = 1 sits on both bounds of the clip" },
  { "*", LP REF SEQ ADV " mask=1,1,1,2,1,1", "MaskNotBinary", "a mask entry 2",
    .invalid_in = "*" },
  { "*", LP REF SEQ ADV " mask=1,1,0,0,0,1", "EmptySequence",
    "the second sequence has no token in the mask: its 1/n_i is 1/0", .invalid_in = "*" },
  { "*", LP REF " lens=2,4,0" ADV ALL6, "EmptySequence", "a sequence of length 0",
    .invalid_in = "*" },
  { "*", LP REF " lens=2,3,2" ADV ALL6, "LengthMismatch", "lengths adding up to 7, not 6",
    .invalid_in = "*" },
  { "*", LP REF SEQ " adv=0.75,-0.8" ALL6, "LengthMismatch", "two advantages for three "
    "sequences", .invalid_in = "*" },
  { "*", LP REF SEQ ADV " mask=1,1,1,1,1", "LengthMismatch", "a mask of five for six tokens",
    .invalid_in = "*" },
  { "*", "logp=-1,nan old_logp=-1,-2 ref_logp=-1,-2 lens=2 adv=1 mask=1,1", "NonFinite",
    "a NaN log-probability", .invalid_in = "*" },
  { "*", "logp=-1,-2 old_logp=-inf,-2 ref_logp=-1,-2 lens=2 adv=1 mask=1,1", "NonFinite",
    "an infinite old log-probability", .invalid_in = "*" },
  { "*", "logp= old_logp= ref_logp= lens= adv= mask=", "EmptyBatch", "no token",
    .invalid_in = "*" },
  { V_EPSLOW, LP REF SEQ ADV ALL6 " eps_low=-0.1", "OutOfDomain", "eps_low < 0",
    .invalid_in = "*" },
  { V_EPSLOW, LP REF SEQ ADV ALL6 " eps_low=1", "OutOfDomain",
    "eps_low = 1: the lower bound 1 - eps_low is 0", .invalid_in = "*" },
  { "*", LP REF SEQ ADV ALL6 " eps_high=-0.2", "OutOfDomain", "eps_high < 0",
    .invalid_in = "*" },
  { "*", LP REF SEQ ADV ALL6 " beta=-0.04", "OutOfDomain", "beta < 0", .invalid_in = "*" },
  RL_END,
};

#define V_AGG "token-mean,seq-mean-token-mean,seq-mean-token-sum,group-mean-length,token-sum"
#define V_NORM "seq-mean-token-sum-norm,seq-mean-token-sum-norm-no-b"
#define DET "L=2,1,1,1 lens=1,3 mask=1,1,1,1"
#define L6 "L=0.5,-1.25,2,0.75,3,-0.5 lens=2,3,1"
#define AGG_BAD(vs, extra)                                                      \
  { vs, L6 " mask=1,1,2,1,1,1" extra, "MaskNotBinary", "a mask entry 2", .invalid_in = "*" }, \
  { vs, L6 " mask=1,1,0,0,0,1" extra, "EmptySequence",                          \
    "the second sequence has no token in the mask", .invalid_in = "*" },        \
  { vs, "L=0.5,-1.25,2,0.75,3,-0.5 lens=2,4,0 mask=1,1,1,1,1,1" extra, "EmptySequence", \
    "a sequence of length 0", .invalid_in = "*" },                              \
  { vs, "L=0.5,-1.25,2,0.75,3,-0.5 lens=2,3 mask=1,1,1,1,1,1" extra, "LengthMismatch", \
    "lengths adding up to 5, not 6", .invalid_in = "*" },                       \
  { vs, "L=0.5,inf,2,0.75,3,-0.5 lens=2,3,1 mask=1,1,1,1,1,1" extra, "NonFinite", \
    "an infinite loss", .invalid_in = "*" },                                    \
  { vs, "L= lens= mask=" extra, "EmptyBatch", "no token", .invalid_in = "*" }

static const rl_case c_agg[] = {
  { V_AGG, DET, "Detector",
    "CONVENTIONS L = [[2], [1, 1, 1]]: token-mean 1.25, seq-mean-token-mean 1.5, "
    "seq-mean-token-sum 2.5 (003's token sum 5; the group-mean length equals the token mean)" },
  { V_NORM, DET " L_const=4", "Detector",
    "CONVENTIONS L = [[2], [1, 1, 1]], L_const = 4: 0.625, or 1.25 when B is forgotten" },
  { V_AGG "," V_NORM, L6 " mask=1,1,1,1,1,1", "Batch",
    "three sequences of 2, 3, 1 tokens, losses of both signs" },
  { V_AGG "," V_NORM, L6 " mask=1,0,1,1,0,1", "Padding",
    "two masked tokens: n = 1, 2, 1" },
  { V_AGG "," V_NORM, "L=0.1,0.2,0.30000000000000004 lens=3 mask=1,1,1", "SingleSequence",
    "one sequence: every mode is its mean, its sum, or their rescaling" },
  AGG_BAD (V_AGG "," V_NORM, ""),
  { V_NORM, DET " L_const=0", "OutOfDomain", "L_const = 0", .invalid_in = "*" },
  { "micro-batch-token-mean", DET " micro=1", "Detector",
    "micro-batches of one sequence: the mean of 2 and 1 = 1.5, seq-mean-token-mean" },
  { "micro-batch-token-mean", DET " micro=2", "Detector",
    "one micro-batch of both: the token mean 1.25" },
  { "micro-batch-token-mean", "L=2,1,1,1,0.5,-1,3,4,4 lens=1,3,2,3 mask=1,1,1,1,1,1,1,1,1 "
    "micro=2", "MicroBatch",
    "two micro-batches of two sequences, 4 and 5 tokens: (5/4 + 10.5/5)/2 = 1.675, against "
    "the batch token mean 15.5/9" },
  AGG_BAD ("micro-batch-token-mean", " micro=1"),
  { "micro-batch-token-mean", DET " micro=3", "OutOfDomain",
    "micro-batches of 3 do not divide 2 sequences", .invalid_in = "*" },
  { "micro-batch-token-mean", DET " micro=0", "OutOfDomain", "micro = 0", .invalid_in = "*" },
  RL_END,
};

#define DR_TOK "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1.25,-0.625,-1.5,-2.25,0.375,-0.5" SEQ

static const rl_case c_dr[] = {
  { "*", DR_TOK " rewards=1,0,0.5" ALL6, "Batch",
    "rewards 1, 0, 0.5 for sequences of 2, 3, 1 tokens: A = 0.5, -0.5, 0 without the std" },
  { "*", DR_TOK " rewards=1,0,0.5 mask=1,1,1,0,1,1", "Padding", "the fourth token masked" },
  { "*", DR_TOK " rewards=1,1,1" ALL6, "ZeroVariance",
    "equal rewards: every advantage 0, the loss 0" },
  { "*", "logp=-0.5,-1.5,-0.25,-1 old_logp=-0.75,-1.25,-0.25,-1 lens=1,3 rewards=0,1 "
    "mask=1,1,1,1", "LengthBias",
    "a short wrong answer and a long right one: 000 weighs every token 1/G, 003 1/N, TRL "
    "1/(G L_const)" },
  { "*", "logp=-0.5,-1.5 old_logp=-0.75,-1.25 lens=2 rewards=1 mask=1,1", "SingleSequence",
    "G = 1: the advantage is 0 in every reading" },
  { "*", DR_TOK " rewards=1,0,0.5 mask=1,1,3,1,1,1", "MaskNotBinary", "a mask entry 3",
    .invalid_in = "*" },
  { "*", DR_TOK " rewards=1,0,0.5 mask=0,0,1,1,1,1", "EmptySequence",
    "the first sequence has no token in the mask", .invalid_in = "*" },
  { "*", DR_TOK " rewards=1,0" ALL6, "LengthMismatch", "two rewards for three sequences",
    .invalid_in = "*" },
  { "*", DR_TOK " rewards=1,nan,0.5" ALL6, "NonFinite", "a NaN reward", .invalid_in = "*" },
  { "*", DR_TOK " rewards=1,0,0.5" ALL6 " eps_low=1.5", "OutOfDomain", "eps_low >= 1",
    .invalid_in = "*" },
  { "trl", DR_TOK " rewards=1,0,0.5" ALL6 " L_const=-512", "OutOfDomain", "L_const < 0",
    .invalid_in = "*" },
  RL_END,
};

#define GS_TOK "logp=-1,-0.3,-2,-0.9,0.5,-0.125 old_logp=-1.25,-0.625,-1.5,-2.25,0.375,-0.5" SEQ

static const rl_case c_gspo[] = {
  { "*", "logp=0.3,-0.1 old_logp=0,0 lens=2 adv=1 mask=1,1", "Detector",
    "CONVENTIONS log-ratios [0.3, -0.1]: s = e^{0.1} = 1.10517 in every library" },
  { "*", GS_TOK ADV ALL6, "Batch", "mean log-ratios 0.2875, 0.325, 0.375: every s clipped" },
  { "*", GS_TOK ADV ALL6 " eps_low=0.2 eps_high=0.5", "",
    "a wide clip range: the second sequence (A < 0) takes the unclipped s A" },
  { "*", "logp=-1,-1.0002,-2,-1.9997 old_logp=-1,-1,-2,-2 lens=2,2 adv=1,-1 mask=1,1,1,1",
    "InsideRange", "mean log-ratios -1e-4 and 1.5e-4: s inside (1 - 3e-4, 1 + 4e-4), the "
    "gradient s A / (G n_i)" },
  { "*", GS_TOK ADV " mask=1,1,1,0,1,1", "Padding", "the fourth token masked" },
  { "*", "logp=25,15,-1 old_logp=0,0,-1 lens=2,1 adv=-1,0.5 mask=1,1,1", "VerlCap",
    "mean log-ratio 20 with A < 0: s = e^20 unclipped; verl caps it at e^10, gradient 0" },
  { "*", GS_TOK ADV " mask=1,1,2,1,1,1", "MaskNotBinary", "a mask entry 2", .invalid_in = "*" },
  { "*", GS_TOK ADV " mask=1,1,0,0,0,1", "EmptySequence",
    "the second sequence has no token in the mask", .invalid_in = "*" },
  { "*", GS_TOK " adv=1,-1" ALL6, "LengthMismatch", "two advantages for three sequences",
    .invalid_in = "*" },
  { "*", "logp=nan,-1 old_logp=0,0 lens=2 adv=1 mask=1,1", "NonFinite", "a NaN log-probability",
    .invalid_in = "*" },
  { "*", GS_TOK ADV ALL6 " eps_low=-3e-4", "OutOfDomain", "eps_low < 0", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_gmpo[] = {
  { "seed-example", "terms=1,1,1,10", "SeedExample",
    "003: [1, 1, 1, 10] -> arithmetic 3.25, geometric 10^{1/4} = 1.778" },
  { "seed-example", "terms=0.5,2", "", "geometric mean 1, arithmetic 1.25" },
  { "seed-example", "terms=0,3", "", "a zero term: the geometric mean is 0" },
  { "seed-example", "terms=1,-1", "OutOfDomain", "a negative term (the terms are absolute "
    "values)", .invalid_in = "*" },
  { "gmpo", GS_TOK ADV ALL6, "Batch",
    "log-ratios 0.25, 0.325 | -0.5, 1.35, 0.125 | 0.375: the A < 0 sequence clips -0.5 to "
    "-0.4, nothing else binds" },
  { "gmpo", "logp=1,0.2,-1,-0.2 old_logp=0,0,0,0 lens=2,2 adv=1,-1 mask=1,1,1,1", "ClipBinds",
    "A > 0 clips 1 to 0.4, A < 0 clips -1 to -0.4; 0.2 and -0.2 pass with their gradient" },
  { "gmpo", "logp=1,0.2,-1,-0.2 old_logp=0,0,0,0 lens=2,2 adv=-1,1 mask=1,1,1,1", "",
    "the signs swapped: the bound on the other side, nothing clipped" },
  { "gmpo", "logp=0.4,0 old_logp=0,0 lens=1,1 adv=1,0 mask=1,1", "ZeroAdvantage",
    "a log-ratio exactly at the bound 0.4; A = 0 gives ratio 1 and no gradient" },
  { "gmpo", GS_TOK ADV " mask=1,1,1,0,1,1", "Padding", "the fourth token masked" },
  { "gmpo", GS_TOK ADV " mask=1,0,1,1,1,1 clip_low=0.2 clip_high=0.28", "",
    "a narrower asymmetric range" },
  { "gmpo", GS_TOK ADV " mask=1,1,2,1,1,1", "MaskNotBinary", "a mask entry 2",
    .invalid_in = "*" },
  { "gmpo", GS_TOK ADV " mask=0,0,1,1,1,1", "EmptySequence",
    "the first sequence has no token in the mask", .invalid_in = "*" },
  { "gmpo", "logp=-1,-2 old_logp=-1 lens=2 adv=1 mask=1,1", "LengthMismatch",
    "one old log-probability for two tokens", .invalid_in = "*" },
  { "gmpo", "logp=-1,inf old_logp=0,0 lens=2 adv=1 mask=1,1", "NonFinite",
    "an infinite log-probability", .invalid_in = "*" },
  { "gmpo", GS_TOK ADV ALL6 " clip_low=-0.4", "OutOfDomain", "a negative clip range",
    .invalid_in = "*" },
  RL_END,
};

static const rl_case c_gfpo[] = {
  { "*", "rewards=1,0.5,1,0,0.75,1 lens=120,40,80,30,40,200 k=3", "",
    "six responses, keep three: the shortest are 30, 40, 40; by reward per token 1/80, "
    "0.5/40 = 1/80 (a tie: the shorter first), 0.75/40" },
  { "*", "rewards=1,2,0.5 lens=10,20,5 k=2", "Ties",
    "r/|o| = 0.1, 0.1, 0.1: three ties, kept by length (5 and 10 tokens); the shortest by "
    "length alone the same two" },
  { "*", "rewards=0,0,0,0 lens=7,7,7,7 k=2", "Ties", "all equal: the first two indices" },
  { "*", "rewards=0.3,-0.2 lens=3,2 k=2", "", "k = N: everything is kept" },
  { "*", "rewards=1,0.5 lens=3,2 k=0", "OutOfDomain", "k = 0", .invalid_in = "*" },
  { "*", "rewards=1,0.5 lens=3,2 k=3", "OutOfDomain", "k > N", .invalid_in = "*" },
  { "*", "rewards=1,0.5 lens=3,0 k=1", "EmptySequence", "a response of length 0",
    .invalid_in = "*" },
  { "*", "rewards=1,nan lens=3,2 k=1", "NonFinite", "a NaN reward", .invalid_in = "*" },
  { "*", "rewards=1,0.5 lens=3 k=1", "LengthMismatch", "one length for two rewards",
    .invalid_in = "*" },
  RL_END,
};

/* --- notes --------------------------------------------------------------- */

static const rl_note n_grpoobj[] = {
  { "Detector", "CONVENTION",
    "A detector from CONVENTIONS.md: the aggregation modes on L = [[2], [1, 1, 1]] give 1.25, "
    "1.5, 2.5, 0.625 (1.25 when B is forgotten); GSPO's s on log-ratios [0.3, -0.1] is e^{0.1}." },
  { "SeedExample", "CONVENTION", "A worked example of the seeds (003's GMPO: [1, 1, 1, 10] -> "
    "3.25 and 1.778)." },
  { "Batch", "PROPERTY", "Several sequences of different lengths, both signs of the advantage." },
  { "Padding", "EDGE_CASE", "A masked token: it takes no part in any sum, and n_i counts the "
    "masked-in tokens only." },
  { "OnPolicy", "PROPERTY", "logp = old_logp: every ratio is 1, nothing is clipped." },
  { "AtReference", "PROPERTY", "logp = ref_logp: every k3 is 0." },
  { "K3Cancellation", "NUMERICAL", "A log-ratio near 0: e^{-k} - 1 + k ~ k^2/2 cancels to "
    "noise when written directly." },
  { "SingleSequence", "EDGE_CASE", "One sequence (G = 1)." },
  { "CispoCap", "CONVENTION", "A large ratio: CISPO keeps the gradient of the token with its "
    "weight capped (TRL: at eps_high, no lower bound) or clipped (verl: to 1 + eps_high), where "
    "the clipped surrogate gives none." },
  { "ZeroClipRange", "EDGE_CASE", "A clip range of zero width: rho = 1 sits on both bounds." },
  { "ZeroVariance", "EDGE_CASE", "Equal rewards: every advantage is 0, whatever the scaling." },
  { "LengthBias", "CONVENTION", "Sequences of very different lengths: the per-token weight "
    "1/(G |y_i|), 1/N, 1/G or 1/(G L_const) shows." },
  { "InsideRange", "PROPERTY", "Every ratio inside the clip range: the gradient is that of "
    "the unclipped term." },
  { "VerlCap", "CONVENTION", "A mean log-ratio above 10: verl caps it (the value e^10, no "
    "gradient); the others do not." },
  { "ClipBinds", "CONVENTION", "A clip binds: the clipped term is constant and its gradient 0." },
  { "ZeroAdvantage", "EDGE_CASE", "A = 0: the term and its gradient are 0 (GMPO: sgn(A) = 0, "
    "the ratio 1)." },
  { "MicroBatch", "CONVENTION", "Micro-batches of unequal token counts: the mean of their "
    "token means differs from the token mean of the batch." },
  { "Ties", "EDGE_CASE", "Equal keys: the order is decided by length, then by index." },
  { "MaskNotBinary", "INVALID_INPUT", "A mask entry other than 0 and 1 (EDOM)." },
  { "EmptySequence", "INVALID_INPUT", "A sequence of length 0 (EINVAL) or one without a token "
    "in the mask (EDOM): its 1/|y_i| is 1/0." },
  { "LengthMismatch", "INVALID_INPUT", "Inputs whose lengths do not fit together (EINVAL)." },
  { "NonFinite", "INVALID_INPUT", "NaN or infinite input: must be rejected (ENAN)." },
  { "EmptyBatch", "INVALID_INPUT", "An empty input: must be rejected (EINVAL)." },
  { "OutOfDomain", "INVALID_INPUT", "A parameter outside its domain (EDOM)." },
  RL_END,
};

/* --- formulas ------------------------------------------------------------ */

static const rl_formula formulas[] = {
  { "GRPO-OBJ", "the GRPO objective with k3, both KL placements, and CISPO",
    "000 (13.24)-(13.26); 003",
    "J = (1/G) Σ_i (1/n_i) Σ_t min(ρA, clip(ρ)A) − β k3 (13.24–13.26), the KL once per prompt "
    "(000) or inside the token mean (003); CISPO: sg(min(ρ, ε_high)) A log π (TRL) or "
    "sg(clip(ρ)) A log π (verl), a token mean; loss −J and its gradient in logp",
    v_obj, c_obj, n_grpoobj },
  { "GRPO-AGG", "loss aggregation modes as per-token weights", "000 (13.32)-(13.33); libraries",
    "token-mean Σ L/N, seq-mean-token-mean (1/B) Σ_i Σ_t L/n_i, seq-mean-token-sum, "
    "seq-mean-token-sum-norm Σ L/(B L_const) (without B before Feb 2026), the group-mean length "
    "(003), the token sum (003), micro-batch token means; L = [[2],[1,1,1]] → 1.25/1.5/2.5/0.625",
    v_agg, c_agg, n_grpoobj },
  { "GRPO-DR", "Dr.GRPO in its three readings", "000 §11; 003; 004",
    "A = r − mean, (1/G) Σ_i Σ_t s_t (000); GRPO's A with 1/|y_i| → 1/L̄ (003); A = r − mean, "
    "Σ s/(G L_const) (TRL dr_grpo); loss and gradient in logp", v_dr, c_dr, n_grpoobj },
  { "GRPO-GSPO", "GSPO's sequence ratio and clip", "000 §11; 003",
    "s_i = exp(mean_t (logp − old_logp)) = (π(y)/π_old(y))^{1/|y|}, loss −(1/G) Σ_i min(s_i A_i, "
    "clip(s_i) A_i); verl caps log s at 10; [0.3, −0.1] → s = e^{0.1}", v_gspo, c_gspo,
    n_grpoobj },
  { "GRPO-GMPO", "GMPO's geometric mean with sgn(A)", "003",
    "ratio_i = exp(mean_t sgn(A) min(sgn(A) l_t, sgn(A) clamp(l_t, −0.4, 0.4))), loss "
    "−(1/G) Σ_i A_i ratio_i; [1,1,1,10] → 3.25 arithmetic, 10^{1/4} = 1.778 geometric",
    v_gmpo, c_gmpo, n_grpoobj },
  { "GRPO-GFPO", "GFPO's filters", "003",
    "keep the shortest k of N, or the k largest r/|o| (ties to the shorter, then the lower "
    "index); the mean reward of the kept", v_gfpo, c_gfpo, n_grpoobj },
  RL_END,
};

RL_FAMILY (grpoobj) = {
  .name = "grpoobj",
  .title = "The GRPO objective and its loss-shaping relatives: KL placement, CISPO, "
    "aggregation, Dr.GRPO, GSPO, GMPO, GFPO",
  .rank = 6,
  .formulas = formulas,
};
