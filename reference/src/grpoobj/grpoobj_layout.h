/* grpoobj_layout.h -- internal: the checks the GRPO objective sources share
 * (grpoobj*.c): one group of G sequences laid out contiguously, a 0/1 mask,
 * the clip ranges.  Included after rlref/num.h, so compiled with each
 * backend.  Each check returns at once, before any temporary exists. */
#ifndef RLREF_GRPOOBJ_LAYOUT_H
#define RLREF_GRPOOBJ_LAYOUT_H

#include <stddef.h>
#include "rlref/num.h"
#include "rlref/status.h"
#include "rlref/grpoobj.h"

/* EINVAL for a NULL or empty array. */
static inline int
grpoobj_nonempty (num_srcptr x, size_t n, const char *what)
{
  if (!x || n == 0)
    RLREF_ERROR (what, RLREF_EINVAL);
  return RLREF_SUCCESS;
}

/* ENAN for a NaN or infinite entry. */
static inline int
grpoobj_finite (num_srcptr x, size_t n, const char *what)
{
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (x, i)))
      RLREF_ERROR (what, RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* cnt[i] = n_i, the masked tokens of sequence i: lens[i] >= 1 adding up to
 * n (EINVAL otherwise), mask entries 0 or 1 and every n_i >= 1 (EDOM). */
static inline int
grpoobj_layout (size_t *cnt, const long *lens, size_t G, const long *mask, size_t n)
{
  size_t total = 0, t = 0;
  if (!lens || G == 0)
    RLREF_ERROR ("no sequence", RLREF_EINVAL);
  for (size_t i = 0; i < G; i++)
    {
      if (lens[i] < 1)
        RLREF_ERROR ("a sequence length must be >= 1 (an empty sequence)", RLREF_EINVAL);
      if ((size_t) lens[i] > n - total)
        RLREF_ERROR ("the sequence lengths add up to more than the tokens", RLREF_EINVAL);
      total += (size_t) lens[i];
    }
  if (total != n)
    RLREF_ERROR ("the sequence lengths do not add up to the tokens", RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    if (mask && mask[i] != 0 && mask[i] != 1)
      RLREF_ERROR ("a mask entry must be 0 or 1", RLREF_EDOM);
  for (size_t i = 0; i < G; i++)
    {
      cnt[i] = 0;
      for (long j = 0; j < lens[i]; j++, t++)
        cnt[i] += mask ? (size_t) mask[t] : 1;
      if (cnt[i] == 0)
        RLREF_ERROR ("a sequence has no token in the mask", RLREF_EDOM);
    }
  return RLREF_SUCCESS;
}

/* As grpoobj_layout, but a sequence may be empty (lens[i] = 0, or no token
 * in the mask: cnt[i] = 0), as a padded batch holds one: lengths >= 0 adding
 * up to n (EINVAL otherwise), mask entries 0 or 1 (EDOM); *N = sum cnt[i]
 * must be >= 1 (EDOM), *T = max lens[i] (the padded width), *B1 = the
 * sequences with a token. */
static inline int
grpoobj_layout_empty (size_t *cnt, size_t *N, long *T, size_t *B1, const long *lens, size_t G,
                      const long *mask, size_t n)
{
  size_t total = 0, t = 0;
  if (!lens || G == 0)
    RLREF_ERROR ("no sequence", RLREF_EINVAL);
  *N = 0;
  *T = 0;
  *B1 = 0;
  for (size_t i = 0; i < G; i++)
    {
      if (lens[i] < 0)
        RLREF_ERROR ("a sequence length must be >= 0", RLREF_EINVAL);
      if ((size_t) lens[i] > n - total)
        RLREF_ERROR ("the sequence lengths add up to more than the tokens", RLREF_EINVAL);
      total += (size_t) lens[i];
      if (lens[i] > *T)
        *T = lens[i];
    }
  if (total != n)
    RLREF_ERROR ("the sequence lengths do not add up to the tokens", RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    if (mask && mask[i] != 0 && mask[i] != 1)
      RLREF_ERROR ("a mask entry must be 0 or 1", RLREF_EDOM);
  for (size_t i = 0; i < G; i++)
    {
      cnt[i] = 0;
      for (long j = 0; j < lens[i]; j++, t++)
        cnt[i] += mask ? (size_t) mask[t] : 1;
      *N += cnt[i];
      *B1 += cnt[i] > 0;
    }
  if (*N == 0)
    RLREF_ERROR ("no token in the mask", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* w = the weight of a token of a sequence of c masked tokens under an
 * aggregation mode over B sequences of N masked tokens and padded width
 * T: token-mean and group-mean-length 1/N, seq-mean-token-mean 1/(B c) (0
 * for c = 0: an empty sequence has no token), seq-mean-token-sum 1/B, the
 * sum-norm modes 1/(B L_const), 1/L_const, 1/(B T), token-sum 1; t is
 * scratch.  EINVAL for another mode. */
static inline int
grpoobj_seq_weight (num_ptr w, enum rlref_grpo_agg_mode mode, size_t c, size_t B, size_t N,
                    long T, num_srcptr L_const, num_ptr t)
{
  num_set_si (w, 1);
  switch (mode)
    {
    case RLREF_AGG_TOKEN_MEAN:
    case RLREF_AGG_GROUP_MEAN_LENGTH:           /* B Lbar = N */
      num_div_si (w, w, (long) N);
      break;
    case RLREF_AGG_SEQ_MEAN_TOKEN_MEAN:
      if (c == 0)
        num_set_zero (w);
      else
        num_div_si (w, w, (long) (B * c));
      break;
    case RLREF_AGG_SEQ_MEAN_TOKEN_SUM:
      num_div_si (w, w, (long) B);
      break;
    case RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM:
      num_mul_si (t, L_const, (long) B);
      num_div (w, w, t);
      break;
    case RLREF_AGG_SUM_NORM_NO_B:
      num_div (w, w, L_const);
      break;
    case RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH:
      num_div_si (w, w, (long) B * T);
      break;
    case RLREF_AGG_TOKEN_SUM:
      break;
    default:
      RLREF_ERROR ("unknown aggregation mode", RLREF_EINVAL);
    }
  return RLREF_SUCCESS;
}

/* A finite parameter >= 0 (ENAN, EDOM); with below_one, also < 1. */
static inline int
grpoobj_param (num_srcptr x, int below_one, const char *what)
{
  if (!x)
    RLREF_ERROR (what, RLREF_EINVAL);
  if (!num_is_finite (x))
    RLREF_ERROR (what, RLREF_ENAN);
  if (num_sgn (x) < 0 || (below_one && num_cmp_d (x, 1.0) >= 0))
    RLREF_ERROR (what, RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* 1 when token t counts. */
static inline int
grpoobj_in (const long *mask, size_t t)
{
  return mask ? mask[t] == 1 : 1;
}

#endif
