/* rlref/len.h -- length bias and entropy collapse (LEN-*, ENT-*): the
 * per-token weights of the loss normalisations, and the exact expected
 * length drift and entropy curves of GRPO-style updates on the
 * think-then-answer model, binary64 and MPFR.
 *
 * The think-then-answer model of maximum length T: at step t (t thinking
 * tokens emitted so far, t = 0..T-1) the policy draws w (think), c (a
 * correct answer) or x (a wrong answer) from softmax(logits[3t..3t+2]), in
 * that order; c and x end the response, and T tokens w with no answer are
 * cut.  Its 2T + 1 responses: w^k c (length k + 1, reward 1), w^k x
 * (length k + 1, reward 0), k = 0..T-1, and w^T (length T, reward 0: a
 * truncated response scores as a wrong one).  A group is G i.i.d.
 * responses; the advantage of 13.23 (ddof 0; 0 when all rewards of the
 * group are equal). */
#ifndef RLREF_LEN_H
#define RLREF_LEN_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/convention.h"

/* How the per-token losses of B responses (groups of G) become one loss
 * (CONVENTIONS.md "Loss aggregation"); w_i is the weight of each token of
 * response i. */
typedef enum
{
  RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, /* 1/(B |y_i|): seed 000 (13.24), GRPO */
  RLREF_LEN_TOKEN_MEAN,         /* 1/sum_j |y_j|: seed 000 (13.33), DAPO */
  RLREF_LEN_SEQ_MEAN_TOKEN_SUM, /* 1/B: Dr.GRPO, no 1/|y| */
  RLREF_LEN_GROUP_MEAN_LENGTH,  /* 1/(B mean of the group's |y|): seed 003 */
  RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM /* 1/(B L_const): TRL dr_grpo */
} rlref_len_norm;

/* Largest T of the think-then-answer model, largest group, and the most
 * groups (multisets of G responses) enumerated per expectation. */
#define RLREF_LEN_MAX_T 32
#define RLREF_LEN_MAX_G 20
#define RLREF_LEN_MAX_GROUPS 5e4
/* The most work ENT-COLLAPSE takes: steps (G multisets + 3 T mu). */
#define RLREF_ENT_MAX_WORK 2e6

/* The outputs of len_drift, in this order. */
enum
{
  RLREF_LEN_MEAN,               /* E[|y|] */
  RLREF_LEN_ACC,                /* E[r] = P(correct) */
  RLREF_LEN_DLEN,               /* d E[|y|] along g */
  RLREF_LEN_DLEN_POS,           /* d E[|y|] along g+ (terms with A > 0: correct answers) */
  RLREF_LEN_DLEN_NEG,           /* d E[|y|] along g- (terms with A < 0: wrong or cut) */
  RLREF_LEN_DLEN_CORRECT,       /* d E[|y| | correct] along g */
  RLREF_LEN_DLEN_WRONG,         /* d E[|y| | not correct] along g */
  RLREF_LEN_DACC,               /* d E[r] along g */
  RLREF_LEN_STEP,               /* E[|y|] after theta + eta g, minus E[|y|] */
  RLREF_LEN_NDRIFT
};

/* One training recipe of ENT-COLLAPSE. */
typedef struct
{
  double eps_low, eps_high;     /* clip(rho, 1 - eps_low, 1 + eps_high) (13.31) */
  int dynamic;                  /* 1: only groups with 0 < correct < G (13.30) */
  rlref_len_norm norm;          /* the token weights */
} rlref_ent_recipe;

/* The named conventions of the LEN formulas, in the order of the golden
 * variants (src/len/len_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   LEN-WEIGHTS: rlref_len_norm
 *   LEN-DRIFT: rlref_len_norm
 *   ENT-COLLAPSE: rlref_ent_recipe */
extern const rlref_convention rlref_len_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/len.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/len.h"
#include "rlref/tmpl/end.h"

#endif
