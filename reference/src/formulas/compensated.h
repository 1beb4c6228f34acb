/* compensated.h -- a running sum kept as hi + lo (Neumaier's compensated
 * summation), for the formula sources that add many terms one at a time.
 * Included after rlref/num.h, so compiled with each backend. */
#ifndef RLREF_COMPENSATED_H
#define RLREF_COMPENSATED_H

#include "rlref/num.h"

/* hi + lo += t: hi the rounded sum, the rounding error of each addition
 * (exact: the larger operand minus the sum, plus the smaller) added to
 * lo; the total is hi + lo.  w holds three scratch scalars. */
static inline void
comp_add (num_ptr hi, num_ptr lo, num_srcptr t, num_ptr w)
{
  num_ptr s = w, e = AT (w, 1), a = AT (w, 2);
  num_add (s, hi, t);
  num_abs (a, hi);
  num_abs (e, t);
  if (num_cmp (a, e) >= 0)
    {
      num_sub (e, hi, s);
      num_add (e, e, t);
    }
  else
    {
      num_sub (e, t, s);
      num_add (e, e, hi);
    }
  num_add (lo, lo, e);
  num_set (hi, s);
}

#endif
