/* rlref/num_double.h -- the scalar interface, IEEE binary64 backend.
 *
 * A scalar is an array of one double, as an mpfr_t is an array of one
 * struct, so that num_add (r, a, b) reads the same in both backends.
 * Every function is a static inline wrapper the compiler reduces to plain
 * arithmetic.  Included through <rlref/num.h>; do not include directly. */
#ifndef RLREF_NUM_DOUBLE_H
#define RLREF_NUM_DOUBLE_H

#include <math.h>
#include <stdlib.h>

#define NUM_SUFFIX _d
#define NUM_NAME "double"

typedef double num_t[1];
typedef double *num_ptr;
typedef const double *num_srcptr;

static inline void num_init (num_ptr x) { x[0] = 0.0; }
static inline void num_clear (num_ptr x) { (void) x; }
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
static inline void num_neg (num_ptr r, num_srcptr a) { r[0] = -a[0]; }
static inline void num_abs (num_ptr r, num_srcptr a) { r[0] = fabs (a[0]); }
static inline void num_sqr (num_ptr r, num_srcptr a) { r[0] = a[0] * a[0]; }
static inline void num_sqrt (num_ptr r, num_srcptr a) { r[0] = sqrt (a[0]); }
static inline void num_exp (num_ptr r, num_srcptr a) { r[0] = exp (a[0]); }
static inline void num_log (num_ptr r, num_srcptr a) { r[0] = log (a[0]); }
static inline void num_log1p (num_ptr r, num_srcptr a) { r[0] = log1p (a[0]); }
static inline void num_expm1 (num_ptr r, num_srcptr a) { r[0] = expm1 (a[0]); }
static inline void num_max (num_ptr r, num_srcptr a, num_srcptr b) { r[0] = a[0] >= b[0] ? a[0] : b[0]; }
static inline void num_min (num_ptr r, num_srcptr a, num_srcptr b) { r[0] = a[0] <= b[0] ? a[0] : b[0]; }
static inline void num_sinh (num_ptr r, num_srcptr a) { r[0] = sinh (a[0]); }
static inline void num_cosh (num_ptr r, num_srcptr a) { r[0] = cosh (a[0]); }
static inline void num_const_pi (num_ptr r) { r[0] = 3.14159265358979323846264338327950288; }
static inline void num_mul_2si (num_ptr r, num_srcptr a, long k) { r[0] = ldexp (a[0], (int) k); }
static inline long num_get_exp (num_srcptr a) { int e; frexp (a[0], &e); return e; }
static inline long num_prec (void) { return 53; }
/* Rounds to IEEE binary32 (for conventions that compute in float32).
 * A single + - * / or sqrt rounded to double then to float is correctly
 * rounded to float, since 53 >= 2*24 + 2. */
static inline void num_round_f32 (num_ptr r, num_srcptr a) { r[0] = (double) (float) a[0]; }

static inline int num_cmp (num_srcptr a, num_srcptr b) { return (a[0] > b[0]) - (a[0] < b[0]); }
static inline int num_cmp_d (num_srcptr a, double d) { return (a[0] > d) - (a[0] < d); }
static inline int num_sgn (num_srcptr a) { return (a[0] > 0) - (a[0] < 0); }
static inline int num_is_nan (num_srcptr a) { return isnan (a[0]); }
static inline int num_is_inf (num_srcptr a) { return isinf (a[0]); }
static inline int num_is_finite (num_srcptr a) { return isfinite (a[0]); }
static inline int num_is_zero (num_srcptr a) { return a[0] == 0.0; }

/* Vectors: contiguous scalars; element i is v + i. */
static inline num_ptr num_vec_new (size_t n) { return calloc (n ? n : 1, sizeof (double)); }
static inline void num_vec_free (num_ptr v, size_t n) { (void) n; free (v); }

#endif
