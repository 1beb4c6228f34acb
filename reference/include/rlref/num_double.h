/* rlref/num_double.h -- the scalar interface, IEEE binary64 backend.
 *
 * A scalar is an array of one double, as an mpfr_t is an array of one
 * struct, so that num_add (r, a, b) reads the same in both backends.
 * Every operation is one IEEE 754 operation rounded to nearest (ties to
 * even), with IEEE 754 signs of zero; the semantics both backends share
 * are written down in reference/README.md ("The scalar interface").  The
 * functions are static inline wrappers the compiler reduces to plain
 * arithmetic; num_sum and num_dot call src/core/num_sum.c.  Included through
 * <rlref/num.h>; do not include directly. */
#ifndef RLREF_NUM_DOUBLE_H
#define RLREF_NUM_DOUBLE_H

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include "rlref/status.h"
#include "rlref/workspace.h"

#define NUM_SUFFIX _d
#define NUM_NAME "double"

typedef double num_t[1];
typedef double *num_ptr;
typedef const double *num_srcptr;

/* sum_i v_i and sum_i a_i b_i, each rounded once (src/core/num_sum.c). */
double rlref_num_sum_d (const double *v, size_t n);
double rlref_num_dot_d (const double *a, const double *b, size_t n);
/* (sum_i v_i)/d, d >= 1, finite where the mean is, though the sum is not. */
double rlref_num_mean_d (const double *v, size_t n, long d);
/* sgn(e^(x - y) - (u + v)), exact (src/core/num_cmp_exp.c). */
int rlref_num_cmp_exp_d (double x, double y, double u, double v);

/* Init and clear cost nothing; prec is ignored (binary64 has 53 bits). */
static inline void num_init (num_ptr x) { x[0] = 0.0; }
static inline void num_init_prec (num_ptr x, long prec) { (void) prec; x[0] = 0.0; }
static inline void num_clear (num_ptr x) { (void) x; }
static inline long num_get_prec (num_srcptr x) { (void) x; return 53; }
/* NUM_INIT and NUM_CLEAR (rlref/num.h): k scalars set to +0, and nothing to free. */
static inline void num_group_init (num_ptr *v, size_t k) { for (size_t i = 0; i < k; i++) v[i][0] = 0.0; }
static inline void num_group_clear (num_ptr *v, size_t k) { (void) v; (void) k; }
static inline void num_set (num_ptr r, num_srcptr a) { r[0] = a[0]; }
static inline void num_set_d (num_ptr r, double d) { r[0] = d; }
static inline void num_set_si (num_ptr r, long i) { r[0] = (double) i; }
static inline void num_set_nan (num_ptr r) { r[0] = NAN; }
static inline void num_set_inf (num_ptr r, int sign) { r[0] = sign < 0 ? -INFINITY : INFINITY; }
static inline void num_set_zero (num_ptr r) { r[0] = 0.0; }
static inline double num_get_d (num_srcptr a) { return a[0]; }

static inline void num_add (num_ptr r, num_srcptr a, num_srcptr b) { r[0] = a[0] + b[0]; }
static inline void num_sub (num_ptr r, num_srcptr a, num_srcptr b) { r[0] = a[0] - b[0]; }
static inline void num_mul (num_ptr r, num_srcptr a, num_srcptr b) { r[0] = a[0] * b[0]; }
static inline void num_div (num_ptr r, num_srcptr a, num_srcptr b) { r[0] = a[0] / b[0]; }
static inline void num_add_d (num_ptr r, num_srcptr a, double d) { r[0] = a[0] + d; }
static inline void num_sub_d (num_ptr r, num_srcptr a, double d) { r[0] = a[0] - d; }
static inline void num_d_sub (num_ptr r, double d, num_srcptr a) { r[0] = d - a[0]; }
static inline void num_mul_d (num_ptr r, num_srcptr a, double d) { r[0] = a[0] * d; }
static inline void num_div_d (num_ptr r, num_srcptr a, double d) { r[0] = a[0] / d; }
static inline void num_d_div (num_ptr r, double d, num_srcptr a) { r[0] = d / a[0]; }
static inline void num_mul_si (num_ptr r, num_srcptr a, long i) { r[0] = a[0] * (double) i; }
static inline void num_div_si (num_ptr r, num_srcptr a, long i) { r[0] = a[0] / (double) i; }
/* r = a b + c with one rounding. */
static inline void num_fma (num_ptr r, num_srcptr a, num_srcptr b, num_srcptr c) { r[0] = fma (a[0], b[0], c[0]); }
static inline void num_neg (num_ptr r, num_srcptr a) { r[0] = -a[0]; }
static inline void num_abs (num_ptr r, num_srcptr a) { r[0] = fabs (a[0]); }
static inline void num_sqr (num_ptr r, num_srcptr a) { r[0] = a[0] * a[0]; }
static inline void num_sqrt (num_ptr r, num_srcptr a) { r[0] = sqrt (a[0]); }
static inline void num_exp (num_ptr r, num_srcptr a) { r[0] = exp (a[0]); }
static inline void num_log (num_ptr r, num_srcptr a) { r[0] = log (a[0]); }
static inline void num_log1p (num_ptr r, num_srcptr a) { r[0] = log1p (a[0]); }
static inline void num_expm1 (num_ptr r, num_srcptr a) { r[0] = expm1 (a[0]); }
static inline void num_sinh (num_ptr r, num_srcptr a) { r[0] = sinh (a[0]); }
static inline void num_cosh (num_ptr r, num_srcptr a) { r[0] = cosh (a[0]); }
static inline void num_const_pi (num_ptr r) { r[0] = 3.14159265358979323846264338327950288; }
static inline void num_mul_2si (num_ptr r, num_srcptr a, long k) { r[0] = ldexp (a[0], (int) k); }

/* max and min: NaN if either operand is NaN; max (-0, +0) = +0 and
 * min (-0, +0) = -0 in either order. */
static inline void
num_max (num_ptr r, num_srcptr a, num_srcptr b)
{
  double x = a[0], y = b[0];
  if (isnan (x) || isnan (y))
    r[0] = NAN;
  else
    r[0] = x > y || (x == y && !signbit (x)) ? x : y;
}

static inline void
num_min (num_ptr r, num_srcptr a, num_srcptr b)
{
  double x = a[0], y = b[0];
  if (isnan (x) || isnan (y))
    r[0] = NAN;
  else
    r[0] = x < y || (x == y && signbit (x)) ? x : y;
}

/* e with a = m 2^e, 1/2 <= |m| < 1; 0 for zero, infinities and NaN. */
static inline long
num_get_exp (num_srcptr a)
{
  int e = 0;
  if (isfinite (a[0]) && a[0] != 0.0)
    frexp (a[0], &e);
  return e;
}

static inline long num_prec (void) { return 53; }

/* Rounds to IEEE binary32, nearest with ties to even: subnormals on the
 * grid of 2^-149, +-inf from (2 - 2^-24) 2^127 = 0x1.ffffffp+127 on
 * (decided here: C leaves the conversion of an out-of-range value
 * undefined).  A single + - * / or sqrt rounded to double then to float is
 * correctly rounded to float, since 53 >= 2*24 + 2. */
static inline void
num_round_f32 (num_ptr r, num_srcptr a)
{
  if (fabs (a[0]) >= 0x1.ffffffp+127)
    r[0] = a[0] < 0 ? -INFINITY : INFINITY;
  else
    r[0] = (double) (float) a[0];
}

/* sum_i v_i and sum_i a_i b_i over n contiguous scalars, each rounded
 * once; never fails in binary64. */
static inline RLREF_WUR int
num_sum (num_ptr r, num_srcptr v, size_t n)
{
  r[0] = rlref_num_sum_d (v, n);
  return RLREF_SUCCESS;
}

/* (sum_i v_i)/d for a count d >= 1: the sum rounded once, then the
 * quotient; in binary64 scaled where the sum alone would overflow. */
static inline RLREF_WUR int
num_mean_si (num_ptr r, num_srcptr v, size_t n, long d)
{
  r[0] = rlref_num_mean_d (v, n, d);
  return RLREF_SUCCESS;
}

static inline RLREF_WUR int
num_dot (num_ptr r, num_srcptr a, num_srcptr b, size_t n)
{
  r[0] = rlref_num_dot_d (a, b, n);
  return RLREF_SUCCESS;
}

/* sgn(e^(x - y) - (u + v)) for finite x, y, u, v, decided exactly (not
 * on the rounded e^(x - y) and u + v, which can round onto each other). */
static inline int
num_cmp_exp (num_srcptr x, num_srcptr y, num_srcptr u, num_srcptr v)
{
  return rlref_num_cmp_exp_d (x[0], y[0], u[0], v[0]);
}

/* Comparisons are false with a NaN operand: num_cmp and num_sgn give 0. */
static inline int num_cmp (num_srcptr a, num_srcptr b) { return (a[0] > b[0]) - (a[0] < b[0]); }
static inline int num_cmp_d (num_srcptr a, double d) { return (a[0] > d) - (a[0] < d); }
static inline int num_sgn (num_srcptr a) { return (a[0] > 0) - (a[0] < 0); }
static inline int num_is_nan (num_srcptr a) { return isnan (a[0]); }
static inline int num_is_inf (num_srcptr a) { return isinf (a[0]); }
static inline int num_is_finite (num_srcptr a) { return isfinite (a[0]); }
static inline int num_is_zero (num_srcptr a) { return a[0] == 0.0; }

/* Vectors: n contiguous scalars set to +0; element i is AT (v, i).  NULL
 * if memory is exhausted.  prec is ignored. */
static inline num_ptr num_vec_new (size_t n) { return calloc (n ? n : 1, sizeof (double)); }
static inline num_ptr num_vec_new_prec (size_t n, long prec) { (void) prec; return num_vec_new (n); }
static inline void num_vec_free (num_ptr v, size_t n) { (void) n; free (v); }

/* n temporaries from a workspace (see rlref/workspace.h), set to +0. */
static inline num_ptr num_ws_take (rlref_ws *ws, size_t n) { return rlref_ws_take_d (ws, n); }
static inline long num_ws_prec (const rlref_ws *ws) { (void) ws; return 53; }

#endif
