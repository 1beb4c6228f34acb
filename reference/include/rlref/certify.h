/* rlref/certify.h -- certified digits for a formula evaluated in MPFR.
 *
 * MPFR rounds each operation correctly, but a formula of many operations
 * accumulates error.  The result is certified, not the operations: the
 * formula is evaluated at precision p and at p + 64 bits, and the number of
 * leading significant decimal digits on which the two agree is recorded;
 * while fewer than the target agree, p is doubled (Ziv's strategy, as in
 * MPFR's own tests), up to RLREF_CERTIFY_MAX_PREC bits.
 *
 * Optionally it also measures the absolute first-order sensitivity of each
 * output to its real inputs, sens_k = sum_j |df_k/dx_j| |x_j|, by central
 * differences at the higher precision with two step sizes; an output whose
 * two estimates disagree is not differentiable there (a jump or a branch),
 * and its sens is reported as 0 with the flag set. */
#ifndef RLREF_CERTIFY_H
#define RLREF_CERTIFY_H

#include <stddef.h>
#include <mpfr.h>

#define RLREF_CERTIFY_MAX_PREC 4096

/* Evaluates the formula at the thread's working precision (rlref_mp_prec):
 * x holds nx real inputs, y receives ny outputs (initialised by the
 * caller).  Returns an rlref_status. */
typedef int rlref_mp_eval_fn (const void *ctx, mpfr_srcptr x, size_t nx,
                              mpfr_ptr y, size_t ny);

typedef struct
{
  size_t ny;
  mpfr_ptr value;               /* ny values at the higher precision */
  int *digits;                  /* certified significant digits (0 for zero or non-finite) */
  int *exact_zero;              /* both evaluations gave exactly 0 */
  double *sens;                 /* sensitivity (when asked for) */
  int *nondiff;                 /* central differences disagree: not differentiable */
  mpfr_prec_t prec;             /* the lower of the two precisions finally used */
} rlref_certified;

/* Evaluates f at two precisions from prec up until every finite nonzero
 * output has at least min_digits certified digits (or the maximum precision
 * is reached: the digits then say how many hold).  x are the inputs as
 * doubles (exactly representable at any precision).  With want_sens, also
 * computes sens and nondiff.  On success the caller owns out and frees it
 * with rlref_certified_clear.  The working precision is restored. */
int rlref_certify (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx,
                   size_t ny, mpfr_prec_t prec, int min_digits, int want_sens,
                   rlref_certified *out);

void rlref_certified_clear (rlref_certified *c);

/* Significant decimal digits on which a and b agree: cap when they are
 * equal nonzero finite numbers; 0 when they are equal zeros, NaNs or
 * infinities, or when either is not a nonzero finite number. */
int rlref_agreeing_digits (mpfr_srcptr a, mpfr_srcptr b, int cap);

/* Digits that precision p can carry: floor((p - 1) log10 2). */
int rlref_digits_of_prec (mpfr_prec_t p);

#endif
