/* rlref/num_mpfr.h -- the scalar interface, MPFR backend.
 *
 * Each operation is one correctly rounded MPFR call (round to nearest,
 * ties to even) at the precision of its result, with the same specials
 * and signs of zero as binary64 (reference/README.md, "The scalar
 * interface").  Temporaries made by num_init and num_vec_new take the
 * thread's working precision, rlref_mp_prec (), 256 bits unless set;
 * num_init_prec, num_vec_new_prec and workspaces take an explicit one and
 * do not read it.  Included through <rlref/num.h>; do not include
 * directly. */
#ifndef RLREF_NUM_MPFR_H
#define RLREF_NUM_MPFR_H

#include <stddef.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/precision.h"
#include "rlref/status.h"
#include "rlref/workspace.h"

#define NUM_SUFFIX _mp
#define NUM_NAME "mpfr"

typedef mpfr_t num_t;
typedef mpfr_ptr num_ptr;
typedef mpfr_srcptr num_srcptr;

/* src/core/num_mpfr.c */
mpfr_ptr rlref_num_vec_new_mp (size_t n, long prec);
int rlref_num_sum_mp (mpfr_ptr r, mpfr_srcptr v, size_t n);
int rlref_num_dot_mp (mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, size_t n);
void rlref_num_round_f32_mp (mpfr_ptr r, mpfr_srcptr a);
int rlref_num_cmp_exp_mp (mpfr_srcptr x, mpfr_srcptr y, mpfr_srcptr u, mpfr_srcptr v);
void rlref_num_group_init_mp (mpfr_ptr *v, size_t k);
void rlref_num_group_clear_mp (mpfr_ptr *v, size_t k);

#define RND MPFR_RNDN

/* num_init: the working precision; num_init_prec: prec bits (clamped to
 * [MPFR_PREC_MIN, RLREF_MAX_PREC]).  Both set +0. */
static inline void num_init (num_ptr x) { mpfr_init2 (x, rlref_mp_prec ()); mpfr_set_zero (x, 1); }
static inline void num_init_prec (num_ptr x, long prec) { mpfr_init2 (x, rlref_mp_prec_clamp (prec)); mpfr_set_zero (x, 1); }
static inline void num_clear (num_ptr x) { mpfr_clear (x); }
static inline long num_get_prec (num_srcptr x) { return (long) mpfr_get_prec (x); }
/* NUM_INIT and NUM_CLEAR (rlref/num.h): k scalars of the working precision
 * set to +0, their significands in one allocation; freed together. */
static inline void num_group_init (num_ptr *v, size_t k) { rlref_num_group_init_mp (v, k); }
static inline void num_group_clear (num_ptr *v, size_t k) { rlref_num_group_clear_mp (v, k); }
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
/* r = a b + c with one rounding. */
static inline void num_fma (num_ptr r, num_srcptr a, num_srcptr b, num_srcptr c) { mpfr_fma (r, a, b, c, RND); }
static inline void num_neg (num_ptr r, num_srcptr a) { mpfr_neg (r, a, RND); }
static inline void num_abs (num_ptr r, num_srcptr a) { mpfr_abs (r, a, RND); }
static inline void num_sqr (num_ptr r, num_srcptr a) { mpfr_sqr (r, a, RND); }
static inline void num_sqrt (num_ptr r, num_srcptr a) { mpfr_sqrt (r, a, RND); }
static inline void num_exp (num_ptr r, num_srcptr a) { mpfr_exp (r, a, RND); }
static inline void num_log (num_ptr r, num_srcptr a) { mpfr_log (r, a, RND); }
static inline void num_log1p (num_ptr r, num_srcptr a) { mpfr_log1p (r, a, RND); }
static inline void num_expm1 (num_ptr r, num_srcptr a) { mpfr_expm1 (r, a, RND); }
static inline void num_sinh (num_ptr r, num_srcptr a) { mpfr_sinh (r, a, RND); }
static inline void num_cosh (num_ptr r, num_srcptr a) { mpfr_cosh (r, a, RND); }
static inline void num_const_pi (num_ptr r) { mpfr_const_pi (r, RND); }
static inline void num_mul_2si (num_ptr r, num_srcptr a, long k) { mpfr_mul_2si (r, a, k, RND); }

/* max and min: NaN if either operand is NaN (mpfr_max would return the
 * other one); max (-0, +0) = +0 and min (-0, +0) = -0 in either order
 * (as mpfr_max and mpfr_min do). */
static inline void
num_max (num_ptr r, num_srcptr a, num_srcptr b)
{
  if (mpfr_nan_p (a) || mpfr_nan_p (b))
    mpfr_set_nan (r);
  else
    mpfr_max (r, a, b, RND);
}

static inline void
num_min (num_ptr r, num_srcptr a, num_srcptr b)
{
  if (mpfr_nan_p (a) || mpfr_nan_p (b))
    mpfr_set_nan (r);
  else
    mpfr_min (r, a, b, RND);
}

/* e with a = m 2^e, 1/2 <= |m| < 1; 0 for zero, infinities and NaN. */
static inline long num_get_exp (num_srcptr a) { return mpfr_regular_p (a) ? (long) mpfr_get_exp (a) : 0; }
static inline long num_prec (void) { return (long) rlref_mp_prec (); }

/* Rounds to IEEE binary32 exactly as a C cast of a double rounds a double:
 * nearest with ties to even, subnormals on the grid of 2^-149, +-inf from
 * (2 - 2^-24) 2^127 on; one rounding of a, however many bits a has. */
static inline void num_round_f32 (num_ptr r, num_srcptr a) { rlref_num_round_f32_mp (r, a); }

/* sum_i v_i and sum_i a_i b_i over n contiguous scalars, each rounded
 * once to the precision of r (mpfr_sum, mpfr_dot).  RLREF_ENOMEM if the
 * table of pointers MPFR takes (on the stack up to 256 terms) cannot be
 * allocated. */
static inline RLREF_WUR int num_sum (num_ptr r, num_srcptr v, size_t n) { return rlref_num_sum_mp (r, v, n); }
/* (sum_i v_i)/d for a count d >= 1 (the binary64 one is scaled where the
 * sum alone would overflow). */
static inline RLREF_WUR int
num_mean_si (num_ptr r, num_srcptr v, size_t n, long d)
{
  int status = rlref_num_sum_mp (r, v, n);
  mpfr_div_si (r, r, d, RND);
  return status;
}
static inline RLREF_WUR int num_dot (num_ptr r, num_srcptr a, num_srcptr b, size_t n) { return rlref_num_dot_mp (r, a, b, n); }

/* sgn(e^(x - y) - (u + v)) for finite x, y, u, v, decided exactly at any
 * working precision (src/core/num_cmp_exp.c). */
static inline int
num_cmp_exp (num_srcptr x, num_srcptr y, num_srcptr u, num_srcptr v)
{
  return rlref_num_cmp_exp_mp (x, y, u, v);
}

/* Comparisons with a NaN operand give 0 (and set MPFR's erange flag). */
static inline int num_cmp (num_srcptr a, num_srcptr b) { return mpfr_cmp (a, b); }
static inline int num_cmp_d (num_srcptr a, double d) { return mpfr_cmp_d (a, d); }
static inline int num_sgn (num_srcptr a) { return mpfr_sgn (a); }
static inline int num_is_nan (num_srcptr a) { return mpfr_nan_p (a); }
static inline int num_is_inf (num_srcptr a) { return mpfr_inf_p (a); }
static inline int num_is_finite (num_srcptr a) { return mpfr_number_p (a); }
static inline int num_is_zero (num_srcptr a) { return mpfr_zero_p (a); }

/* Vectors: n contiguous __mpfr_struct set to +0, the structs and all their
 * limbs in one allocation (so k temporaries cost one malloc); element i is
 * AT (v, i).  NULL if memory is exhausted.  Free with num_vec_free only;
 * never num_clear an element.  num_vec_new takes the working precision,
 * num_vec_new_prec prec bits (clamped). */
static inline num_ptr num_vec_new (size_t n) { return rlref_num_vec_new_mp (n, (long) rlref_mp_prec ()); }
static inline num_ptr num_vec_new_prec (size_t n, long prec) { return rlref_num_vec_new_mp (n, prec); }
static inline void num_vec_free (num_ptr v, size_t n) { (void) n; free (v); }

/* n temporaries from a workspace (see rlref/workspace.h), at the
 * workspace's precision, set to +0. */
static inline num_ptr num_ws_take (rlref_ws *ws, size_t n) { return rlref_ws_take_mp (ws, n); }
static inline long num_ws_prec (const rlref_ws *ws) { return rlref_ws_prec (ws); }

#undef RND
#endif
