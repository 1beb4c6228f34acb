/* mdp_impl.h -- internal: what the MDP formula sources share, for the
 * backend the including file is compiled for: the single exit of flow.h,
 * error-free products and sums carried as hi + lo, and the checks of
 * probability rows. */
#ifndef RLREF_MDP_IMPL_H
#define RLREF_MDP_IMPL_H
#include <stddef.h>
#include "rlref/num.h"
#include "rlref/status.h"
#include "rlref/mdp.h"
#include "flow.h"
#include "num_eft.h"

/* hi = the n terms t[0..n-1] summed and rounded once; lo = the rest,
 * (sum - hi) rounded once.  t must have room for n + 1 scalars.  When hi
 * is not finite lo = 0. */
static inline int
mdp_sum_hilo (num_ptr hi, num_ptr lo, num_ptr t, size_t n)
{
  int status = num_sum (hi, t, n);
  if (status != RLREF_SUCCESS)
    return status;
  if (!num_is_finite (hi))
    {
      num_set_zero (lo);
      return RLREF_SUCCESS;
    }
  num_neg (AT (t, n), hi);
  return num_sum (lo, t, n + 1);
}

/* r = log gamma for gamma in (0, 1], as log1p(gamma - 1) for gamma >= 1/2
 * (gamma - 1 is exact there, Sterbenz), where log would lose the digits
 * of a gamma near 1. */
static inline void
mdp_log_gamma (num_ptr r, num_srcptr gamma)
{
  if (num_cmp_d (gamma, 0.5) >= 0)
    {
      num_sub_d (r, gamma, 1.0);
      num_log1p (r, r);
    }
  else
    num_log (r, gamma);
}

/* ERANGE (recorded) when one of the n values of y is not finite: a
 * result beyond the range of the format (an overflow on the way). */
static inline int
mdp_range_check (num_srcptr y, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (y, i)))
      RLREF_ERROR ("a result is beyond the floating-point range", RLREF_ERANGE);
  return RLREF_SUCCESS;
}

/* 1 when x is finite and 0 <= x <= 1. */
static inline int
mdp_unit (num_srcptr x)
{
  return num_is_finite (x) && num_sgn (x) >= 0 && num_cmp_d (x, 1.0) <= 0;
}

#endif
