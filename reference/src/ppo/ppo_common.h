/* ppo_common.h -- the checks the PPO formula sources share (ppo_*.c).
 * Included after rlref/num.h, so compiled with each backend. */
#ifndef RLREF_PPO_COMMON_H
#define RLREF_PPO_COMMON_H

#include <stddef.h>
#include "rlref/num.h"
#include "rlref/ppo.h"
#include "flow.h"


/* n >= 1 finite values at x: EINVAL for NULL or n = 0, ENAN otherwise. */
static inline int
ppo_check_array (num_srcptr x, size_t n, const char *what)
{
  if (!x || n == 0)
    RLREF_ERROR (what, RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (x, i)))
      RLREF_ERROR (what, RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* A finite scalar: EINVAL for NULL, ENAN for NaN or an infinity. */
static inline int
ppo_check_scalar (num_srcptr x, const char *what)
{
  if (!x)
    RLREF_ERROR (what, RLREF_EINVAL);
  if (!num_is_finite (x))
    RLREF_ERROR (what, RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* A finite scalar >= lo (closed) or > lo (open); EDOM otherwise. */
static inline int
ppo_check_above (num_srcptr x, double lo, int open, const char *what)
{
  int status = ppo_check_scalar (x, what);
  if (status == RLREF_SUCCESS && (num_cmp_d (x, lo) < 0 || (open && num_cmp_d (x, lo) == 0)))
    RLREF_ERROR (what, RLREF_EDOM);
  return status;
}

/* *N = the number of 1s of a 0/1 mask of n entries (NULL: every token);
 * EDOM for another entry, and with need_one for a mask without a 1. */
static inline int
ppo_mask_count (size_t *N, const long *mask, size_t n, int need_one)
{
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    {
      long m = mask ? mask[i] : 1;
      if (m != 0 && m != 1)
        RLREF_ERROR ("a mask entry must be 0 or 1", RLREF_EDOM);
      k += (size_t) m;
    }
  if (need_one && k == 0)
    RLREF_ERROR ("no token in the mask: a mean over the mask is 0/0", RLREF_EDOM);
  *N = k;
  return RLREF_SUCCESS;
}

/* 1 when token i counts. */
static inline int
ppo_in_mask (const long *mask, size_t i)
{
  return !mask || mask[i] == 1;
}

/* sgn(x + y + z), exactly: the sum rounded once has its sign; t holds
 * four scratch scalars. */
static inline int
ppo_sum3_sgn (num_srcptr x, num_srcptr y, num_srcptr z, num_ptr t)
{
  num_set (AT (t, 0), x);
  num_set (AT (t, 1), y);
  num_set (AT (t, 2), z);
  if (num_sum (AT (t, 3), t, 3) != RLREF_SUCCESS)   /* not for three terms */
    num_set_nan (AT (t, 3));
  return num_sgn (AT (t, 3));
}

/* sgn(x - y - c) given l = x - y rounded: l decides unless it rounds onto
 * c (x - y > c gives l >= c, x - y < c gives l <= c; rounding is
 * monotone), and then x - y - c rounded once does; t holds four scratch
 * scalars. */
static inline int
ppo_sub_cmp (num_srcptr l, num_srcptr x, num_srcptr y, num_srcptr c, num_ptr t)
{
  int k = num_cmp (l, c);
  if (k != 0)
    return k;
  num_neg (AT (t, 1), y);
  num_neg (AT (t, 2), c);
  return ppo_sum3_sgn (x, AT (t, 1), AT (t, 2), t);
}

/* r = min(max(x, lo), hi) (003's clip(x, a, b), torch.clamp), lo <= hi. */
static inline void
ppo_clamp (num_ptr r, num_srcptr x, num_srcptr lo, num_srcptr hi)
{
  if (num_cmp (x, lo) < 0)
    num_set (r, lo);
  else if (num_cmp (x, hi) > 0)
    num_set (r, hi);
  else
    num_set (r, x);
}

#endif
