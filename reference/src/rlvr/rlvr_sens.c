/* rlvr_sens.c -- the sensitivity sens = sum_k |d score/d s_k| |s_k| of
 * RLVR-REWARD's aggregation of step scores from its own derivative (as
 * rlref/sens.h's), written once for both backends. */
#include "rlref/num.h"
#include "rlref/rlvr.h"
#include "flow.h"

/* min: |s_min| (where the minimum is shared, central differences split the
 * slope among the tied scores, which sums to the same); product: n |prod|
 * (d prod/d s_k s_k = prod); mean: sum_k |s_k|/n; last: |s_n|.  score is
 * the value prm_aggregate gave. */
int
FN (prm_aggregate_sens) (num_ptr s, num_srcptr steps, size_t n, num_srcptr score,
                         enum rlref_prm_aggregation how)
{
  num_t t;
  int status = RLREF_SUCCESS;
  num_init (t);
  switch (how)
    {
    case RLREF_PRM_MIN:
      num_abs (s, score);
      break;
    case RLREF_PRM_PRODUCT:
      num_abs (t, score);
      num_mul_si (s, t, (long) n);
      break;
    case RLREF_PRM_MEAN:
      num_set_zero (s);
      for (size_t k = 0; k < n; k++)
        {
          num_abs (t, AT (steps, k));
          num_add (s, s, t);
        }
      num_div_si (s, s, (long) n);
      break;
    case RLREF_PRM_LAST:
      num_abs (s, AT (steps, n - 1));
      break;
    default:
      status = RLREF_EINVAL;
    }
  num_clear (t);
  return status;
}
