/* lmtrain_conventions.c -- the named conventions of the LMTRAIN formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/lmtrain.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/lmtrain.h"
#include "rlref/lm.h"

#define KEEP_TEXT "cut sequences count as outcomes with their prefix probability"

#define CONDITION_TEXT "q = pi_theta / P(EOS within T), the model given that EOS came " \
  "within T tokens; a cut data sequence is refused"

#define TRAIN_TEXT "a tabular policy theta_0 = the reference logits, cut sequences kept; "

#define SAMPLED_TEXT "each step a batch drawn with GSL's mt19937 seeded by seed (a token: " \
  "the first b of 0..V-2 with u < sum_{j<=b} pi(j | s), else V - 1; u = gsl_rng_uniform); "

static const rlref_lm_setting train_rlhf = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_RLHF
};
static const rlref_lm_setting train_reward = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_REWARD
};
static const rlref_lm_setting train_dpo = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_DPO
};
static const rlref_lm_setting train_ipo = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_IPO
};

const rlref_convention rlref_lmtrain_conventions[] = {
  { "bigram", "LM-PARAM", "bigram",
    "bigram (Markov) model: V + 1 rows, one per previous token and one for the "
      "start",
    "seed 000 (13.1); README \"The tiny language model\"",
    .setting = &rlref_lm_bigram_keep },
  { "tabular", "LM-PARAM", "tabular",
    "tabular model: one row per prefix without EOS (a logit for every context)",
    "seed 000 (13.1); README \"The tiny language model\"",
    .setting = &rlref_lm_tabular_keep },
  { "tabular-keep", "LM-SFT", "sft",
    "tabular policy; " KEEP_TEXT,
    "seed 000 section 1 (SFT as maximum "
      "likelihood); libraries score a truncated response",
    .setting = &rlref_lm_tabular_keep },
  { "tabular-condition", "LM-SFT", "sft",
    "tabular policy; " CONDITION_TEXT,
    "seed 000 section 1; sums over "
      "complete y",
    .setting = &rlref_lm_tabular_condition },
  { "bigram-keep", "LM-SFT", "sft",
    "bigram policy (rows shared by the prefixes ending alike); " KEEP_TEXT,
    "seed 000 section 1",
    .setting = &rlref_lm_bigram_keep },
  { "bigram-condition", "LM-SFT", "sft",
    "bigram policy; " CONDITION_TEXT,
    "seed 000 section 1",
    .setting = &rlref_lm_bigram_condition },
  { "rlhf", "LM-TRAIN", "train-rlhf",
    TRAIN_TEXT "gradient ascent theta <- theta + lr grad (E[r] - beta KL(q || pi_ref))",
    "seed 000 (13.8), (13.13)-(13.17); rlref train --objective rlhf",
    .setting = &train_rlhf },
  { "reward", "LM-TRAIN", "train-reward",
    TRAIN_TEXT "gradient ascent on E[r] alone (no KL: pi* is not its limit)",
    "seed 000 (13.2); rlref train --objective reward",
    .setting = &train_reward },
  { "dpo", "LM-TRAIN", "train-dpo",
    TRAIN_TEXT "gradient descent on the population DPO loss over pairs from pi_ref x "
      "pi_ref labelled by Bradley-Terry on r",
    "seed 000 (13.21)-(13.22); rlref train "
      "--objective dpo",
    .setting = &train_dpo },
  { "ipo", "LM-TRAIN", "train-ipo",
    TRAIN_TEXT "gradient descent on the population IPO loss (z - 1/(2 beta))^2",
    "the IPO paper; rlref train --objective ipo",
    .setting = &train_ipo },
  { "sampled-rlhf", "LM-TRAIN", "sampled-rlhf",
    TRAIN_TEXT SAMPLED_TEXT "n sequences from pi_theta, f = r - beta (log "
      "pi_theta - log pi_ref), theta <- theta + (lr/n) sum_i (f_i - mean f) grad log "
      "pi_theta(y_i) (REINFORCE, the batch mean as baseline)",
    "seed 000 (13.2)-(13.4), (13.8); "
      "rlref train --objective rlhf --sampled N --seed S",
    .setting = &train_rlhf },
  { "sampled-reward", "LM-TRAIN", "sampled-reward",
    TRAIN_TEXT SAMPLED_TEXT "as sampled-rlhf with f = r",
    "seed 000 "
      "(13.2)-(13.4); rlref train --objective reward --sampled N --seed S",
    .setting = &train_reward },
  { "sampled-dpo", "LM-TRAIN", "sampled-dpo",
    TRAIN_TEXT SAMPLED_TEXT "n pairs from pi_ref x pi_ref, then one uniform "
      "per pair: the first preferred when u < sigma(r_1 - r_2); theta <- theta + (lr/n) "
      "sum_pairs beta sigma(-beta z) (grad log pi_theta(y_w) - grad log pi_theta(y_l)), the "
      "descent on the mean of -log sigma(beta z)",
    "seed 000 (13.6), (13.21)-(13.22); rlref "
      "train --objective dpo --sampled N --seed S",
    .setting = &train_dpo },
  { 0 },
};
