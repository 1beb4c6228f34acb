/* scale.c -- the binary exponent of the largest magnitude of a vector: the
 * power of two by which a computation is scaled, exactly, to keep it
 * within the range of the backend.  Written once for both backends. */
#include <limits.h>
#include "rlref/num.h"
#include "scale.h"

/* k = exponent of max_i |x_i| (num_get_exp: max |x_i| = f 2^k, f in
 * [1/2, 1)), 0 when the maximum is 0. */
long
FN (max_exponent) (num_srcptr x, size_t n)
{
  num_t a, big;
  long k;
  num_init (a);
  num_init (big);
  for (size_t i = 0; i < n; i++)
    {
      num_abs (a, AT (x, i));
      num_max (big, big, a);
    }
  k = num_is_zero (big) ? 0 : num_get_exp (big);
  num_clear (a);
  num_clear (big);
  return k;
}

/* The number of words W that always brings the remainder of a sum of at
 * most N of the finite v_i, scaled by a common 2^k, to 0.  With p-bit
 * words, w_t = o(R_t) and R_(t+1) = R_t - w_t, |R_(t+1)| <= 2^(1-p) |R_t|;
 * |R_0| < 2^(emax + b), b the bits of N; every R_t is a multiple of the
 * lowest bit of the values, 2^(emin - p) or above (a binary64 value scaled
 * to a subnormal has its bits on 2^-1074, higher still).  So R_t = 0 once
 * t (p - 1) >= emax - emin + p + b; three more for the rounding of a
 * scaled value up to a power of 2 and the integer division. */
size_t
FN (words_bound) (num_srcptr v, size_t N)
{
  long emax = LONG_MIN, emin = LONG_MAX, p = num_prec (), b = 0;
  for (size_t i = 0; i < N; i++)
    if (num_is_finite (AT (v, i)) && !num_is_zero (AT (v, i)))
      {
        long e = num_get_exp (AT (v, i));
        emax = e > emax ? e : emax;
        emin = e < emin ? e : emin;
      }
  if (emax == LONG_MIN)
    return 1;
  for (size_t n = N; n > 0; n >>= 1)
    b++;
  return (size_t) ((emax - emin + p + b + 1) / (p > 2 ? p - 1 : 1)) + 3;
}
