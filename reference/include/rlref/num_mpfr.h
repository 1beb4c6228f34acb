/* rlref/num_mpfr.h -- the scalar interface, MPFR backend.
 *
 * Each operation is one correctly rounded MPFR call (round to nearest) at
 * the precision of its result.  Temporaries made by num_init take the
 * thread's working precision, rlref_mp_prec (), 256 bits unless set.
 * Included through <rlref/num.h>; do not include directly. */
#ifndef RLREF_NUM_MPFR_H
#define RLREF_NUM_MPFR_H

#include <stdlib.h>
#include <mpfr.h>
#include "rlref/precision.h"

#define NUM_SUFFIX _mp
#define NUM_NAME "mpfr"

typedef mpfr_t num_t;
typedef mpfr_ptr num_ptr;
typedef mpfr_srcptr num_srcptr;

#define RND MPFR_RNDN

static inline void num_init (num_ptr x) { mpfr_init2 (x, rlref_mp_prec ()); mpfr_set_zero (x, 1); }
static inline void num_clear (num_ptr x) { mpfr_clear (x); }
static inline void num_set (num_ptr r, num_srcptr a) { mpfr_set (r, a, RND); }
static inline void num_set_d (num_ptr r, double d) { mpfr_set_d (r, d, RND); }
static inline void num_set_si (num_ptr r, long i) { mpfr_set_si (r, i, RND); }
static inline void num_set_nan (num_ptr r) { mpfr_set_nan (r); }
static inline void num_set_inf (num_ptr r, int sign) { mpfr_set_inf (r, sign); }
static inline void num_set_zero (num_ptr r) { mpfr_set_zero (r, 1); }
static inline double num_get_d (num_srcptr a) { return mpfr_get_d (a, RND); }

static inline void num_add (num_ptr r, num_srcptr a, num_srcptr b) { mpfr_add (r, a, b, RND); }
static inline void num_sub (num_ptr r, num_srcptr a, num_srcptr b) { mpfr_sub (r, a, b, RND); }
static inline void num_mul (num_ptr r, num_srcptr a, num_srcptr b) { mpfr_mul (r, a, b, RND); }
static inline void num_div (num_ptr r, num_srcptr a, num_srcptr b) { mpfr_div (r, a, b, RND); }
static inline void num_add_d (num_ptr r, num_srcptr a, double d) { mpfr_add_d (r, a, d, RND); }
static inline void num_sub_d (num_ptr r, num_srcptr a, double d) { mpfr_sub_d (r, a, d, RND); }
static inline void num_d_sub (num_ptr r, double d, num_srcptr a) { mpfr_d_sub (r, d, a, RND); }
static inline void num_mul_d (num_ptr r, num_srcptr a, double d) { mpfr_mul_d (r, a, d, RND); }
static inline void num_div_d (num_ptr r, num_srcptr a, double d) { mpfr_div_d (r, a, d, RND); }
static inline void num_d_div (num_ptr r, double d, num_srcptr a) { mpfr_d_div (r, d, a, RND); }
static inline void num_mul_si (num_ptr r, num_srcptr a, long i) { mpfr_mul_si (r, a, i, RND); }
static inline void num_div_si (num_ptr r, num_srcptr a, long i) { mpfr_div_si (r, a, i, RND); }
static inline void num_neg (num_ptr r, num_srcptr a) { mpfr_neg (r, a, RND); }
static inline void num_abs (num_ptr r, num_srcptr a) { mpfr_abs (r, a, RND); }
static inline void num_sqr (num_ptr r, num_srcptr a) { mpfr_sqr (r, a, RND); }
static inline void num_sqrt (num_ptr r, num_srcptr a) { mpfr_sqrt (r, a, RND); }
static inline void num_exp (num_ptr r, num_srcptr a) { mpfr_exp (r, a, RND); }
static inline void num_log (num_ptr r, num_srcptr a) { mpfr_log (r, a, RND); }
static inline void num_log1p (num_ptr r, num_srcptr a) { mpfr_log1p (r, a, RND); }
static inline void num_expm1 (num_ptr r, num_srcptr a) { mpfr_expm1 (r, a, RND); }
static inline void num_max (num_ptr r, num_srcptr a, num_srcptr b) { mpfr_max (r, a, b, RND); }
static inline void num_min (num_ptr r, num_srcptr a, num_srcptr b) { mpfr_min (r, a, b, RND); }
static inline void num_sinh (num_ptr r, num_srcptr a) { mpfr_sinh (r, a, RND); }
static inline void num_cosh (num_ptr r, num_srcptr a) { mpfr_cosh (r, a, RND); }
static inline void num_const_pi (num_ptr r) { mpfr_const_pi (r, RND); }
static inline void num_mul_2si (num_ptr r, num_srcptr a, long k) { mpfr_mul_2si (r, a, k, RND); }
static inline long num_get_exp (num_srcptr a) { return mpfr_regular_p (a) ? (long) mpfr_get_exp (a) : 0; }
static inline long num_prec (void) { return (long) rlref_mp_prec (); }
/* Rounds to IEEE binary32: 24 significant bits, and +-inf beyond its
 * largest finite value (as a C cast does).  Subnormals are not modelled:
 * below 2^-126 the result keeps 24 bits. */
static inline void
num_round_f32 (num_ptr r, num_srcptr a)
{
  mpfr_t t;
  mpfr_init2 (t, 24);
  mpfr_set (t, a, RND);
  if (mpfr_number_p (t) && mpfr_get_exp (t) > 128)
    mpfr_set_inf (t, mpfr_sgn (t));
  mpfr_set (r, t, RND);
  mpfr_clear (t);
}

static inline int num_cmp (num_srcptr a, num_srcptr b) { return mpfr_cmp (a, b); }
static inline int num_cmp_d (num_srcptr a, double d) { return mpfr_cmp_d (a, d); }
static inline int num_sgn (num_srcptr a) { return mpfr_sgn (a); }
static inline int num_is_nan (num_srcptr a) { return mpfr_nan_p (a); }
static inline int num_is_inf (num_srcptr a) { return mpfr_inf_p (a); }
static inline int num_is_finite (num_srcptr a) { return mpfr_number_p (a); }
static inline int num_is_zero (num_srcptr a) { return mpfr_zero_p (a); }

static inline num_ptr
num_vec_new (size_t n)
{
  num_ptr v = malloc ((n ? n : 1) * sizeof (__mpfr_struct));
  if (v)
    for (size_t i = 0; i < n; i++)
      num_init (v + i);
  return v;
}

static inline void
num_vec_free (num_ptr v, size_t n)
{
  if (!v)
    return;
  for (size_t i = 0; i < n; i++)
    mpfr_clear (v + i);
  free (v);
}

#undef RND
#endif
