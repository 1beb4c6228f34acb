/* len_conventions.c -- the named conventions of the LEN formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/len.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/len.h"

#define WHO_SMTM "seed 000 (13.24, 13.32) GRPO; TRL loss_type=\"grpo\"; verl " \
  "loss_agg_mode=\"seq-mean-token-mean\""

#define WHO_TM "seed 000 (13.33) DAPO; verl loss_agg_mode=\"token-mean\" (default); OpenRLHF; " \
  "TRL loss_type=\"dapo\" and \"bnpo\""

#define WHO_SMTS "Dr.GRPO without 1/|y| (seed 004's table); verl loss_agg_mode=" \
  "\"seq-mean-token-sum\""

#define WHO_GML "seed 003 (Dr.GRPO: 1/|o_i| replaced by the group mean length)"

#define WHO_SMTSN "TRL loss_type=\"dr_grpo\" (L_const = max_completion_length); verl " \
  "loss_agg_mode=\"seq-mean-token-sum-norm\""

#define DRIFT_TEXT " over the group (L_const = T); A of 13.23, ddof 0, 0 for a group of equal " \
  "rewards; g at the old policy (ratio 1)"

#define ENT_TEXT "each outer step: pi_old = pi_theta, then mu steps theta <- theta + lr grad L, " \
  "L = E_group[sum_i w_i sum_t min(rho A_i, clip(rho, 1 - eps_low, 1 + eps_high) A_i)] " \
  "exactly (every group of G enumerated), w_i = 1/(G |y_i|) (13.24), A of 13.23 (ddof 0); "

static const rlref_len_norm n_smtm = RLREF_LEN_SEQ_MEAN_TOKEN_MEAN;
static const rlref_len_norm n_tm = RLREF_LEN_TOKEN_MEAN;
static const rlref_len_norm n_smts = RLREF_LEN_SEQ_MEAN_TOKEN_SUM;
static const rlref_len_norm n_gml = RLREF_LEN_GROUP_MEAN_LENGTH;
static const rlref_len_norm n_smtsn = RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM;
static const rlref_ent_recipe r_symmetric = {
  .eps_low = 0.2, .eps_high = 0.2, .norm = RLREF_LEN_SEQ_MEAN_TOKEN_MEAN
};
static const rlref_ent_recipe r_higher = {
  .eps_low = 0.2, .eps_high = 0.28, .norm = RLREF_LEN_SEQ_MEAN_TOKEN_MEAN
};
static const rlref_ent_recipe r_dynamic = {
  .eps_low = 0.2, .eps_high = 0.2, .dynamic = 1, .norm = RLREF_LEN_SEQ_MEAN_TOKEN_MEAN
};

const rlref_convention rlref_len_conventions[] = {
  { "seq-mean-token-mean", "LEN-WEIGHTS", "weights",
    "w_i = 1/(B |y_i|): each response's token mean, then the mean over "
      "the B responses",
    WHO_SMTM,
    .setting = &n_smtm },
  { "token-mean", "LEN-WEIGHTS", "weights",
    "w_i = 1/sum_j |y_j|: every token of the batch weighs the same",
    WHO_TM,
    .setting = &n_tm },
  { "seq-mean-token-sum", "LEN-WEIGHTS", "weights",
    "w_i = 1/B: token sums, no 1/|y|",
    WHO_SMTS,
    .setting = &n_smts },
  { "group-mean-length", "LEN-WEIGHTS", "weights",
    "w_i = 1/(B mean_{j in g(i)} |y_j|): the group's mean length for "
      "every response of the group",
    WHO_GML,
    .setting = &n_gml },
  { "seq-mean-token-sum-norm", "LEN-WEIGHTS", "weights",
    "w_i = 1/(B L_const), L_const = max_len (16)",
    WHO_SMTSN,
    .params = { { "max_len", 16 } }, .setting = &n_smtsn },
  { "seq-mean-token-mean", "LEN-DRIFT", "drift",
    "w_i = 1/(G |y_i|)" DRIFT_TEXT,
    WHO_SMTM,
    .setting = &n_smtm },
  { "token-mean", "LEN-DRIFT", "drift",
    "w_i = 1/sum_j |y_j|" DRIFT_TEXT,
    WHO_TM,
    .setting = &n_tm },
  { "seq-mean-token-sum", "LEN-DRIFT", "drift",
    "w_i = 1/G" DRIFT_TEXT,
    WHO_SMTS,
    .setting = &n_smts },
  { "group-mean-length", "LEN-DRIFT", "drift",
    "w_i = 1/(G mean |y|) = 1/sum_j |y_j| (one group: token-mean's)"
      DRIFT_TEXT,
    WHO_GML,
    .setting = &n_gml },
  { "seq-mean-token-sum-norm", "LEN-DRIFT", "drift",
    "w_i = 1/(G T), the direction of seq-mean-token-sum scaled by "
      "1/T" DRIFT_TEXT,
    WHO_SMTSN,
    .setting = &n_smtsn },
  { "symmetric", "ENT-COLLAPSE", "entropy",
    ENT_TEXT "eps_low = eps_high = 0.2",
    "seed 000 (13.12), (13.25) GRPO/PPO",
    .params = { { "eps_low", 0.2, .shown = 1 }, { "eps_high", 0.2, .shown = 1 } },
    .setting = &r_symmetric },
  { "clip-higher", "ENT-COLLAPSE", "entropy",
    ENT_TEXT "eps_low = 0.2, eps_high = 0.28",
    "seed 000 (13.31) DAPO clip-higher; verl clip_ratio_high; TRL epsilon_high",
    .params = { { "eps_low", 0.2, .shown = 1 }, { "eps_high", 0.28, .shown = 1 } },
    .setting = &r_higher },
  { "dynamic-sampling", "ENT-COLLAPSE", "entropy",
    ENT_TEXT "eps 0.2; only groups with 0 < correct < G, the expectation "
      "renormalised by P(kept) (the batch refilled with such groups)",
    "seed 000 (13.30) DAPO dynamic sampling; verl filter_groups; OpenRLHF dynamic_filtering",
    .params = { { "eps_low", 0.2, .shown = 1 }, { "eps_high", 0.2, .shown = 1 } },
    .setting = &r_dynamic },
  { 0 },
};
