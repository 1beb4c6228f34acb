/* num_eft.h -- internal: the error-free transformations, once.  A sum or
 * a product of two numbers of the format and its rounding error, itself a
 * number of the format: on the scalar interface (rlref/num.h, so compiled
 * with each backend) for the formula sources, and on binary64 values for
 * the batch kernels.  The rounded sums they feed are carried as hi + lo. */
#ifndef RLREF_NUM_EFT_H
#define RLREF_NUM_EFT_H
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "rlref/num.h"

/* t[0] + t[1] = a b exactly (the error of a rounded product is a number
 * of the format, found by one fma); when a b is not finite, t[1] = 0. */
static inline void
num_two_prod (num_ptr t, num_srcptr a, num_srcptr b)
{
  num_mul (AT (t, 0), a, b);
  if (!num_is_finite (AT (t, 0)))
    {
      num_set_zero (AT (t, 1));
      return;
    }
  num_neg (AT (t, 1), AT (t, 0));
  num_fma (AT (t, 1), a, b, AT (t, 1));
}

/* hi + lo += t (Neumaier's compensated summation): hi the rounded sum,
 * the rounding error of each addition (exact: the larger operand minus
 * the sum, plus the smaller) added to lo; the total is hi + lo.  w holds
 * three scratch scalars. */
static inline void
num_comp_add (num_ptr hi, num_ptr lo, num_srcptr t, num_ptr w)
{
  num_ptr s = w, e = AT (w, 1), a = AT (w, 2);
  num_add (s, hi, t);
  num_abs (a, hi);
  num_abs (e, t);
  if (num_cmp (a, e) >= 0)
    {
      num_sub (e, hi, s);
      num_add (e, e, t);
    }
  else
    {
      num_sub (e, t, s);
      num_add (e, e, hi);
    }
  num_add (lo, lo, e);
  num_set (hi, s);
}

/* s + e = a + b exactly, s = o(a + b) (Knuth's TwoSum), in binary64. */
static inline void
eft_two_sum_d (double a, double b, double *s, double *e)
{
  double t = a + b, bb = t - a;
  *e = (a - (t - bb)) + (b - bb);
  *s = t;
}

/* p + e = a b exactly, p = o(a b) (e = 0 where p is not finite), in
 * binary64. */
static inline void
eft_two_prod_d (double a, double b, double *p, double *e)
{
  *p = a * b;
  *e = isfinite (*p) ? fma (a, b, -*p) : 0.0;
}

/* *hi + *lo += t, num_comp_add on binary64 values. */
static inline void
eft_comp_add_d (double *hi, double *lo, double t)
{
  double s = *hi + t;
  if (fabs (*hi) >= fabs (t))
    *lo += (*hi - s) + t;
  else
    *lo += (t - s) + *hi;
  *hi = s;
}

/* Half the ulp of y, 2^(E - 53) for 2^E <= |y| < 2^(E + 1), for a y with
 * 2^-960 <= |y| <= DBL_MAX; *pow2_y set when |y| is a power of 2 (the
 * spacing below it, toward zero, is half as large). */
static inline double
eft_half_ulp_d (double y, int *pow2_y)
{
  uint64_t b, h;
  double d;
  memcpy (&b, &y, sizeof b);
  *pow2_y = (b & ((UINT64_C (1) << 52) - 1)) == 0;
  h = (((b >> 52) & 0x7ff) - 53) << 52;
  memcpy (&d, &h, sizeof d);
  return d;
}

/* Whether y is the correctly rounded T = y + rest + delta1, known for
 * some |delta1| <= delta: T strictly inside y's rounding interval, rest +
 * delta short of half an ulp away from zero and rest - delta short of
 * half the spacing below |y| toward zero; 0 for y outside [2^-960,
 * DBL_MAX] in magnitude.  The certificate of the batch kernels that round
 * a short sum once from an expansion of it. */
static inline int
eft_rounds_to_d (double y, double rest, double delta)
{
  double h, out;
  int p2;
  if (!(fabs (y) >= 0x1p-960 && fabs (y) <= DBL_MAX))
    return 0;
  h = eft_half_ulp_d (y, &p2);
  out = y > 0 ? rest : -rest;           /* rest away from zero */
  return out + delta < h && -out + delta < (p2 ? 0.5 * h : h);
}

#endif
