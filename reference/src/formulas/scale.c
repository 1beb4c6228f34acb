/* scale.c -- the binary exponent of the largest magnitude of a vector: the
 * power of two by which a computation is scaled, exactly, to keep it
 * within the range of the backend.  Written once for both backends. */
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
