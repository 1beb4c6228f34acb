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

/* The number of words (of the working precision) that always holds the
 * exact sum of at most N of the finite values of v[0..N-1], each scaled by
 * a common power of two: 1 when none is finite and nonzero. */
size_t FN (words_bound) (num_srcptr v, size_t N);

#endif
