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

/* The scalar temporaries of a function, made and cleared as one group:
 *
 *   num_t mean, std, e;
 *   NUM_INIT (mean, std, e);      every one +0 at the working precision
 *   ...
 * done:
 *   NUM_CLEAR (mean, std, e);     the same list, at the one exit
 *
 * In MPFR the significands of the whole group are one allocation (GMP's
 * allocator, which aborts when memory is exhausted, as mpfr_init2 does);
 * in binary64 nothing is allocated.  A member is not given to num_clear,
 * nor its precision changed. */
#define NUM_GROUP_(...) ((num_ptr[]) { __VA_ARGS__ })
#define NUM_GROUP_N_(...) (sizeof NUM_GROUP_ (__VA_ARGS__) / sizeof (num_ptr))
#define NUM_INIT(...) num_group_init (NUM_GROUP_ (__VA_ARGS__), NUM_GROUP_N_ (__VA_ARGS__))
#define NUM_CLEAR(...) num_group_clear (NUM_GROUP_ (__VA_ARGS__), NUM_GROUP_N_ (__VA_ARGS__))

/* Element i of a vector. */
#define AT(v, i) ((v) + (i))
/* Element (i, j) of a matrix stored by rows, ncols to a row. */
#define AT2(m, i, j, ncols) ((m) + (size_t) (i) * (size_t) (ncols) + (size_t) (j))

#endif
