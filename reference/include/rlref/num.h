/* rlref/num.h -- selects the scalar backend for a formula source.
 *
 * A formula source file is compiled twice: once as is (binary64) and once
 * with -DRLREF_MP (MPFR).  FN (name) names the function for the backend:
 * rlref_name_d or rlref_name_mp.  See reference/README.md. */
#ifndef RLREF_NUM_H
#define RLREF_NUM_H

#ifdef RLREF_MP
#include "rlref/num_mpfr.h"
#else
#include "rlref/num_double.h"
#endif

#define RLREF_CAT_(a, b, c) a##b##c
#define RLREF_CAT(a, b, c) RLREF_CAT_ (a, b, c)
#define FN(name) RLREF_CAT (rlref_, name, NUM_SUFFIX)

/* Element i of a vector. */
#define AT(v, i) ((v) + (i))
/* Element (i, j) of a matrix stored by rows, ncols to a row. */
#define AT2(m, i, j, ncols) ((m) + (size_t) (i) * (size_t) (ncols) + (size_t) (j))

#endif
