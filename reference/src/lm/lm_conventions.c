/* lm_conventions.c -- the named conventions of the LM formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/lm.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/lm.h"

#define KEEP_TEXT "a sequence cut at T counts as an outcome with its prefix probability " \
  "(the mass is 1): what a library does with a response that hit max_new_tokens"

#define CONDITION_TEXT "cut sequences are left out and the rest renormalised: the " \
  "distribution given that EOS came within T tokens"

const rlref_lm_setting rlref_lm_bigram_keep = {
  .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_KEEP
};
const rlref_lm_setting rlref_lm_bigram_condition = {
  .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_CONDITION
};
const rlref_lm_setting rlref_lm_tabular_keep = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP
};
const rlref_lm_setting rlref_lm_tabular_condition = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_CONDITION
};
static const rlref_lm_setting grad_reward = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_REWARD
};
static const rlref_lm_setting grad_kl = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_KL
};
static const rlref_lm_setting grad_kl_reverse = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_KL_REVERSE
};
static const rlref_lm_setting grad_rlhf = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_RLHF
};
static const rlref_lm_setting grad_rlhf_condition = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_CONDITION, .objective = RLREF_LM_OBJ_RLHF
};
static const rlref_lm_setting grad_dpo = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_DPO
};
static const rlref_lm_setting grad_dpo_bigram = {
  .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_DPO
};
static const rlref_lm_setting grad_ipo = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_IPO
};
static const rlref_lm_setting grad_k1 = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_K1
};
static const rlref_lm_setting grad_k2 = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_K2
};
static const rlref_lm_setting grad_k3 = {
  .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_K3
};
static const rlref_lm_setting dp_keep = {
  .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_KEEP, .dp = 1
};
static const rlref_lm_setting dp_condition = {
  .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_CONDITION, .dp = 1
};
static const rlref_lm_setting displace_dpo = {
  .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_DPO
};
static const rlref_lm_setting displace_ipo = {
  .kind = RLREF_LM_BIGRAM, .truncation = RLREF_LM_KEEP, .objective = RLREF_LM_OBJ_IPO
};

const rlref_convention rlref_lm_conventions[] = {
  { "bigram-keep", "LM-ENUM", "bigram",
    "bigram model; " KEEP_TEXT,
    "libraries",
    .setting = &rlref_lm_bigram_keep },
  { "bigram-condition", "LM-ENUM", "bigram",
    "bigram model; " CONDITION_TEXT,
    "the seeds",
    .setting = &rlref_lm_bigram_condition },
  { "tabular-keep", "LM-ENUM", "tabular",
    "tabular model; " KEEP_TEXT,
    "libraries",
    .setting = &rlref_lm_tabular_keep },
  { "tabular-condition", "LM-ENUM", "tabular",
    "tabular model; " CONDITION_TEXT,
    "the seeds",
    .setting = &rlref_lm_tabular_condition },
  { "bigram", "LM-CHAIN", "bigram",
    "the chain rule in a bigram model",
    "seed 000 (13.1)",
    .setting = &rlref_lm_bigram_keep },
  { "tabular", "LM-CHAIN", "tabular",
    "the chain rule in a tabular model (logits per prefix)",
    "seed 000 (13.1)",
    .setting = &rlref_lm_tabular_keep },
  { "bigram-keep", "LM-EXACT", "bigram",
    "bigram model; " KEEP_TEXT,
    "libraries (a truncated response is scored)",
    .setting = &rlref_lm_bigram_keep },
  { "bigram-condition", "LM-EXACT", "bigram",
    "bigram model; " CONDITION_TEXT,
    "the seeds' sums over complete y",
    .setting = &rlref_lm_bigram_condition },
  { "tabular-keep", "LM-EXACT", "tabular",
    "tabular model (logits per prefix); " KEEP_TEXT,
    "libraries (a truncated response is scored)",
    .setting = &rlref_lm_tabular_keep },
  { "tabular-condition", "LM-EXACT", "tabular",
    "tabular model (logits per prefix); " CONDITION_TEXT,
    "the seeds' sums over complete y",
    .setting = &rlref_lm_tabular_condition },
  { "grad-reward", "LM-EXACT", "grad-reward",
    "tabular policy, cut sequences kept: E_q[r] and its exact gradient "
      "sum_y q(y) (r(y) - E r) grad log pi(y)",
    "seed 000 (13.2)",
    .setting = &grad_reward },
  { "grad-kl", "LM-EXACT", "grad-kl",
    "tabular policy, cut kept: KL(q || q_ref) and its gradient sum_y q (h - KL) "
      "grad log pi, h = log q - log q_ref",
    "seed 000 §12.1",
    .setting = &grad_kl },
  { "grad-kl-reverse", "LM-EXACT", "grad-kl_reverse",
    "tabular policy, cut kept: KL(q_ref || q) and its gradient "
      "sum_y (q - q_ref) grad log pi",
    "seed 000 §12.1",
    .setting = &grad_kl_reverse },
  { "grad-rlhf", "LM-EXACT", "grad-rlhf",
    "tabular policy, cut kept: E_q[r] - beta KL(q || q_ref) and its gradient",
    "seed 000 (13.8), (13.13)",
    .setting = &grad_rlhf },
  { "grad-rlhf-condition", "LM-EXACT", "grad-rlhf",
    "tabular policy, cut sequences conditioned away: the same objective "
      "of q = pi / P(EOS within T)",
    "seed 000 (13.8), (13.13)",
    .setting = &grad_rlhf_condition },
  { "grad-dpo", "LM-EXACT", "grad-dpo",
    "tabular policy, cut kept: the population DPO loss and its exact gradient",
    "seed 000 (13.21)-(13.22)",
    .setting = &grad_dpo },
  { "grad-dpo-bigram", "LM-EXACT", "grad-dpo",
    "bigram policy, cut kept: the population DPO loss and its exact "
      "gradient (the rows of prefixes ending in the same token add)",
    "seed 000 (13.21)-(13.22)",
    .setting = &grad_dpo_bigram },
  { "grad-ipo", "LM-EXACT", "grad-ipo",
    "tabular policy, cut kept: the population IPO loss and its exact gradient",
    "the IPO paper; CONVENTIONS.md DPO family",
    .setting = &grad_ipo },
  { "grad-k1", "LM-EXACT", "grad-k1",
    "tabular policy, cut kept: k1 used as a loss, y ~ q with the sampling not "
      "differentiated: value E_q[k1], gradient E_q[grad k1] = 0",
    "seed 000 section 12.1",
    .setting = &grad_k1 },
  { "grad-k2", "LM-EXACT", "grad-k2",
    "k2 used as a loss: value E_q[k2], gradient E_q[h grad log q] = grad "
      "KL(q || q_ref)",
    "seed 000 section 12.1",
    .setting = &grad_k2 },
  { "grad-k3", "LM-EXACT", "grad-k3",
    "k3 used as a loss: value E_q[k3] = KL(q || q_ref), gradient E_q[(1 - e^-h) grad "
      "log q] = grad KL(q_ref || q), the reverse KL's",
    "seed 000 section 12.1, (13.26)",
    .setting = &grad_k3 },
  { "keep", "LM-DP", "dp",
    "dynamic programming over (tokens left, state), O(T V^2); " KEEP_TEXT,
    "libraries (a truncated response is scored)",
    .setting = &dp_keep },
  { "condition", "LM-DP", "dp",
    "dynamic programming over (tokens left, state), O(T V^2); " CONDITION_TEXT,
    "the seeds' sums over complete y",
    .setting = &dp_condition },
  { "dpo", "DPO-DISPLACE", "pair",
    "gradient descent on -log sigma(beta (h_w - h_l)) (13.21) for one pair, a bigram "
      "policy starting at its reference: theta <- theta - lr dL/dtheta",
    "seed 000 §4.3",
    .setting = &displace_dpo },
  { "ipo", "DPO-DISPLACE", "pair",
    "the same on the IPO loss (h_w - h_l - 1/(2 beta))^2",
    "the IPO paper",
    .setting = &displace_ipo },
  { 0 },
};
