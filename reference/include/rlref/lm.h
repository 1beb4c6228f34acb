/* rlref/lm.h -- the tiny language model: small enough that every sequence
 * can be enumerated, so every expectation is a finite sum (LM-* rows).
 *
 * A sequence y = (y_1, ..., y_L) over tokens 0..V-1 ends at the first EOS
 * or is cut at the maximum length T (a truncated sequence has L = T and no
 * EOS).  Its probability is the chain rule (13.1),
 *   pi(y) = prod_t pi(y_t | s_t),  pi(. | s) = softmax(logits(s)),
 * where the state s_t is the prefix y_<t (tabular model) or the previous
 * token, V for the start (bigram model).  Truncated sequences either count
 * as outcomes with their prefix probability (RLREF_LM_KEEP: the
 * probabilities of all sequences sum to 1), or are left out and the rest
 * renormalised (RLREF_LM_CONDITION: the distribution given that EOS came
 * within T tokens).
 *
 * The reward is additive, r(y) = sum_t token[y_t] + per_length L
 * (+ truncated, when y was cut), or a table over sequences (with a default
 * for those it does not list), or none.  A model's shape is data
 * (rlref_lm); its logits and additive reward are vectors of the backend. */
#ifndef RLREF_LM_H
#define RLREF_LM_H

#include <stddef.h>
#include <stdint.h>
#include <mpfr.h>
#include <gsl/gsl_rng.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/convention.h"

typedef enum { RLREF_LM_TABULAR, RLREF_LM_BIGRAM } rlref_lm_kind;
typedef enum { RLREF_LM_KEEP, RLREF_LM_CONDITION } rlref_lm_truncation;
typedef enum { RLREF_REWARD_NONE, RLREF_REWARD_ADDITIVE, RLREF_REWARD_TABLE } rlref_reward_kind;

/* Largest vocabulary and length (a sequence's code must fit 64 bits), and
 * the most sequences enumeration accepts: beyond it use the DP form. */
#define RLREF_LM_MAX_V 64
#define RLREF_LM_MAX_T 32
#define RLREF_LM_MAX_SEQUENCES 1e8

typedef struct
{
  int V;                        /* vocabulary size, >= 2 */
  int eos;                      /* the EOS token, 0 <= eos < V */
  int T;                        /* maximum length, >= 1 */
  rlref_lm_kind kind;
  rlref_lm_truncation truncation;
  /* The logits and the additive reward are passed to each function as
   * vectors of the backend (so that they can be perturbed, differentiated
   * and trained): logits, bigram (V + 1) rows of V (row s = previous token
   * s, row V = start), tabular one row of V per prefix without EOS in the
   * order of rlref_lm_prefix_index, n_rows rows; reward = (token[0..V-1],
   * per_length, truncated), V + 2 values: r(y) = sum_t token[y_t] +
   * per_length L (+ truncated when y was cut). */
  size_t n_rows;
  rlref_reward_kind reward;
  const uint64_t *table_code;   /* table: sequence codes (rlref_lm_code), increasing */
  const double *table_reward;   /* table: their rewards */
  size_t n_table;
  double table_default;         /* table: the reward of unlisted sequences */
  /* optional: called every 65536 outcomes with the fraction enumerated */
  void (*progress) (void *ctx, double fraction);
  void *progress_ctx;
} rlref_lm;

/* The quantities of LM-EXACT and KLOPT on the model's sequence
 * distribution pi_ref, for a given beta > 0, in this order. */
enum
{
  RLREF_LM_COUNT,               /* number of sequences (outcomes) */
  RLREF_LM_TOTAL,               /* sum of their probabilities (1) */
  RLREF_LM_ENTROPY,             /* H(pi_ref) = -sum pi_ref log pi_ref */
  RLREF_LM_MEAN_R,              /* E_ref[r] */
  RLREF_LM_VAR_R,               /* Var_ref[r] */
  RLREF_LM_LOG_Z,               /* log Z = log sum pi_ref e^{r/beta} (13.15) */
  RLREF_LM_KL_STAR_REF,         /* KL(pi* || pi_ref) = E*[r]/beta - log Z */
  RLREF_LM_KL_REF_STAR,         /* KL(pi_ref || pi*) = log Z - E_ref[r]/beta */
  RLREF_LM_MEAN_R_STAR,         /* E_pi*[r] */
  RLREF_LM_NMOMENTS
};
/* The objectives of rlref_lm_objective: of the policy's outcome
 * distribution q (pi_theta, or pi_theta given EOS within T), against a
 * reference q_ref with the same shape. */
enum
{
  RLREF_LM_OBJ_REWARD,          /* E_q[r] */
  RLREF_LM_OBJ_KL,              /* KL(q || q_ref) */
  RLREF_LM_OBJ_KL_REVERSE,      /* KL(q_ref || q) */
  RLREF_LM_OBJ_RLHF,            /* E_q[r] - beta KL(q || q_ref) (13.8) */
  RLREF_LM_OBJ_DPO,             /* population DPO loss on Bradley-Terry preferences (13.21) */
  RLREF_LM_OBJ_IPO,             /* population IPO loss, (z - 1/(2 beta))^2 */
  /* a KL estimator used as a loss: E_q[k(y)] with y ~ q, the sampling not
   * differentiated (gradient E_q[grad k]), h = log q - log q_ref */
  RLREF_LM_OBJ_K1,              /* k1 = h: gradient 0 */
  RLREF_LM_OBJ_K2,              /* k2 = h^2/2: gradient = grad KL(q || q_ref) */
  RLREF_LM_OBJ_K3               /* k3 = e^-h - 1 + h: gradient = grad KL(q_ref || q) */
};

/* A setting of the tiny LM, as a golden variant names it: the
 * parameterisation, how cut sequences count, the method (enumeration or
 * the DP over prefixes) and, for the gradients and training, the
 * objective (an RLREF_LM_OBJ_*). */
typedef struct
{
  rlref_lm_kind kind;
  rlref_lm_truncation truncation;
  int dp;                       /* 1: the DP over prefixes, 0: enumeration */
  int objective;
} rlref_lm_setting;

/* A mask of wanted moments: bit k for moment k (the others come out NaN). */
#define RLREF_LM_ALL ((1u << RLREF_LM_NMOMENTS) - 1)

/* Checks the model's shape (sizes, EOS, rows, the table's order and
 * finiteness); RLREF_SUCCESS or a status with a message. */
int rlref_lm_check (const rlref_lm *lm) RLREF_WUR;
/* Number of outcomes (as a double: it may exceed 2^64) and of prefixes
 * without EOS shorter than T (the tabular model's rows). */
double rlref_lm_num_sequences (const rlref_lm *lm);
double rlref_lm_num_prefixes (int V, int T);
/* The row of a prefix y_1..y_t (no EOS) in a tabular model: prefixes by
 * length, then in lexicographic order of their tokens (EOS skipped). */
size_t rlref_lm_prefix_index (int V, int eos, const int *prefix, int t);
/* A sequence's code: sum_t (y_t + 1) (V + 1)^(T - t), t = 1..L.  Codes
 * increase in the order enumeration visits sequences. */
uint64_t rlref_lm_code (int V, int T, const int *y, int L);

/* Called for every sequence in enumeration order: its tokens, length,
 * whether it was cut, and (at the backend's precision) log pi_ref(y) in the
 * distribution of the counted sequences, r(y) and log pi*(y). */
typedef void rlref_lm_visit_d (void *ctx, const int *y, int L, int cut, const double *logp,
                               const double *r, const double *logp_star);
typedef void rlref_lm_visit_mp (void *ctx, const int *y, int L, int cut, mpfr_srcptr logp,
                                mpfr_srcptr r, mpfr_srcptr logp_star);

/* The named conventions of the LM formulas, in the order of the golden
 * variants (src/lm/lm_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   LM-ENUM: rlref_lm_setting
 *   LM-CHAIN: rlref_lm_setting
 *   LM-EXACT: rlref_lm_setting
 *   LM-DP: rlref_lm_setting
 *   DPO-DISPLACE: rlref_lm_setting */
/* The four readings of the tiny model without an objective: bigram or
 * tabular, a cut sequence kept or left out (shared by the LM and LMTRAIN
 * tables). */
extern const rlref_lm_setting rlref_lm_bigram_keep, rlref_lm_bigram_condition;
extern const rlref_lm_setting rlref_lm_tabular_keep, rlref_lm_tabular_condition;
extern const rlref_convention rlref_lm_conventions[];

#include "rlref/tmpl/begin_d.h"
#define RLREF_VISIT rlref_lm_visit_d
#include "rlref/tmpl/lm.h"
#undef RLREF_VISIT
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#define RLREF_VISIT rlref_lm_visit_mp
#include "rlref/tmpl/lm.h"
#undef RLREF_VISIT
#include "rlref/tmpl/end.h"

#endif
