/* lm_model.c -- checking a tiny-LM model and counting what it holds. */
#include <math.h>
#include <stdio.h>
#include "rlref/lm.h"

double
rlref_lm_num_prefixes (int V, int T)
{
  /* prefixes without EOS of length 0..T-1: sum_t (V - 1)^t */
  double n = 0.0, p = 1.0;
  for (int t = 0; t < T; t++, p *= (double) (V - 1))
    n += p;
  return n;
}

double
rlref_lm_num_sequences (const rlref_lm *lm)
{
  /* EOS after each prefix shorter than T, plus the cut ones of length T */
  double ended = rlref_lm_num_prefixes (lm->V, lm->T);
  double cut = pow ((double) (lm->V - 1), (double) lm->T);
  return lm->truncation == RLREF_LM_KEEP ? ended + cut : ended;
}

size_t
rlref_lm_prefix_index (int V, int eos, const int *prefix, int t)
{
  /* rows of shorter prefixes, then the base-(V - 1) number of this one */
  size_t index = 0, offset = (size_t) rlref_lm_num_prefixes (V, t);
  for (int k = 0; k < t; k++)
    index = index * (size_t) (V - 1) + (size_t) (prefix[k] - (prefix[k] > eos));
  return offset + index;
}

uint64_t
rlref_lm_code (int V, int T, const int *y, int L)
{
  uint64_t code = 0;
  for (int t = 0; t < T; t++)
    code = code * (uint64_t) (V + 1) + (t < L ? (uint64_t) (y[t] + 1) : 0);
  return code;
}

static int
all_finite (const double *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!isfinite (v[i]))
      return 0;
  return 1;
}

int
rlref_lm_check (const rlref_lm *lm)
{
  char msg[200];
  size_t rows;
  if (!lm)
    RLREF_ERROR ("no model", RLREF_EINVAL);
  if (lm->V < 2 || lm->V > RLREF_LM_MAX_V)
    {
      snprintf (msg, sizeof msg, "V = %d: the vocabulary needs 2 to %d tokens", lm->V,
                RLREF_LM_MAX_V);
      RLREF_ERROR (msg, RLREF_EDOM);
    }
  if (lm->eos < 0 || lm->eos >= lm->V)
    {
      snprintf (msg, sizeof msg, "EOS = %d is not a token 0..%d", lm->eos, lm->V - 1);
      RLREF_ERROR (msg, RLREF_EDOM);
    }
  if (lm->T < 1 || lm->T > RLREF_LM_MAX_T)
    {
      snprintf (msg, sizeof msg, "T = %d: the maximum length must be 1 to %d", lm->T,
                RLREF_LM_MAX_T);
      RLREF_ERROR (msg, RLREF_EDOM);
    }
  if (lm->reward == RLREF_REWARD_TABLE && (double) lm->T * log2 ((double) lm->V + 1) > 63.0)
    RLREF_ERROR ("a reward table needs (V + 1)^T < 2^63 (sequence codes of 64 bits)",
                 RLREF_EDOM);
  rows = lm->kind == RLREF_LM_BIGRAM ? (size_t) lm->V + 1
    : (size_t) rlref_lm_num_prefixes (lm->V, lm->T);
  if (lm->kind == RLREF_LM_TABULAR && rlref_lm_num_prefixes (lm->V, lm->T) > 1e7)
    RLREF_ERROR ("a tabular model of more than 1e7 prefixes", RLREF_EDOM);
  if (lm->n_rows != rows)
    {
      snprintf (msg, sizeof msg, "the logits have %zu rows; a %s model with V = %d, T = %d "
                "needs %zu", lm->n_rows, lm->kind == RLREF_LM_BIGRAM ? "bigram" : "tabular",
                lm->V, lm->T, rows);
      RLREF_ERROR (msg, RLREF_EINVAL);
    }
  switch (lm->reward)
    {
    case RLREF_REWARD_NONE:
    case RLREF_REWARD_ADDITIVE:
      break;
    case RLREF_REWARD_TABLE:
      if ((lm->n_table && (!lm->table_code || !lm->table_reward))
          || !all_finite (lm->table_reward, lm->n_table) || !isfinite (lm->table_default))
        RLREF_ERROR ("the reward table needs finite rewards", RLREF_ENAN);
      for (size_t i = 1; i < lm->n_table; i++)
        if (lm->table_code[i] <= lm->table_code[i - 1])
          RLREF_ERROR ("the reward table's sequences must be distinct and in enumeration "
                       "order", RLREF_EINVAL);
      break;
    default:
      RLREF_ERROR ("unknown reward kind", RLREF_EINVAL);
    }
  return RLREF_SUCCESS;
}
