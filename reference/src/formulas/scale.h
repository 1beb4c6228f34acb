/* scale.h -- internal: the power of two by which a computation is scaled,
 * for the backend the including file is compiled for. */
#ifndef RLREF_SCALE_H
#define RLREF_SCALE_H
#include <stddef.h>
#include "rlref/num.h"

/* The exponent k with max_i |x_i| = f 2^k, 1/2 <= f < 1; 0 when every x_i
 * is zero (or the maximum is NaN or infinite, whose exponent num_get_exp
 * gives as 0). */
long FN (max_exponent) (num_srcptr x, size_t n);

#endif
