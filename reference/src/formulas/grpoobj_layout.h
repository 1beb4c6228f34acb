/* grpoobj_layout.h -- internal: the checks the GRPO objective sources share
 * (grpoobj*.c): one group of G sequences laid out contiguously, a 0/1 mask,
 * the clip ranges.  Included after rlref/num.h, so compiled with each
 * backend.  Each check returns at once, before any temporary exists. */
#ifndef RLREF_GRPOOBJ_LAYOUT_H
#define RLREF_GRPOOBJ_LAYOUT_H

#include <stddef.h>
#include "rlref/num.h"
#include "rlref/status.h"

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
