/* rlref/certify.h -- certified digits for a formula evaluated in MPFR.
 *
 * MPFR rounds each operation correctly, but a formula of many operations
 * accumulates error.  The result is certified, not the operations: the
 * formula is evaluated at precision p and at p + 64 bits, and the number of
 * leading significant decimal digits on which the two agree is recorded;
 * while fewer than the target agree, p is doubled (Ziv's strategy, as in
 * MPFR's own tests), up to RLREF_CERTIFY_MAX_PREC bits.
 *
 * Optionally it also gives the absolute first-order sensitivity of each
 * output to its real inputs, sens_k = sum_j |df_k/dx_j| |x_j|.  A formula
 * may supply it (rlref_mp_sens_fn: an analytic, adjoint or implicit
 * derivative); otherwise it is measured by central differences at the
 * higher precision with two step sizes.  An output whose two estimates
 * disagree is not differentiable there (a jump or a branch): its sens is
 * reported as 0 with the flag set; a derivative the differences do not
 * resolve (below their truncation error or rounding noise) is 0. */
#ifndef RLREF_CERTIFY_H
#define RLREF_CERTIFY_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"

#define RLREF_CERTIFY_MAX_PREC 4096

/* Digits on which two runs at q and q + 64 bits must agree for a value
 * that runs at q/2 bits gave as an exact zero to count as one they
 * missed (rlref_certify). */
#define RLREF_CERTIFY_REAL_DIGITS 3
/* Bits of the sensitivities: they are printed to 3 digits. */
#define RLREF_SENS_PREC 64

/* Evaluates the formula at the thread's working precision (rlref_mp_prec):
 * x holds nx real inputs, y receives ny outputs (initialised by the
 * caller).  Returns an rlref_status. */
typedef int rlref_mp_eval_fn (const void *ctx, mpfr_srcptr x, size_t nx,
                              mpfr_ptr y, size_t ny);

/* The formula's own sensitivity, at the thread's working precision: given
 * the nx real inputs x and the ny certified values y = f(x), sets
 * sens[k] = sum_j |df_k/dx_j| |x_j| (sens holds ny values, set to 0 by
 * the caller, of any precision) and nondiff[k] = 1 where f_k is not
 * differentiable at x (0 by the caller; sens[k] is then ignored).
 * Returns an rlref_status. */
typedef int rlref_mp_sens_fn (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_srcptr y,
                              size_t ny, mpfr_ptr sens, int *nondiff);

/* Which sensitivity rlref_certify_with computes. */
enum rlref_sens_mode
{
  RLREF_SENS_NONE = 0,          /* none */
  RLREF_SENS_AUTO = 1,          /* the formula's own if given, else central differences */
  RLREF_SENS_FD = 2,            /* central differences, even if the formula gives its own */
  RLREF_SENS_BOTH = 3           /* both, kept: the formula's own; EPREC (with a message)
                                   where they differ (rlref_sens_agree) */
};

typedef struct
{
  size_t ny;
  mpfr_ptr value;               /* ny values at the higher precision */
  int *digits;                  /* certified significant digits (0 for zero or non-finite) */
  int *exact_zero;              /* both evaluations gave exactly 0 */
  double *sens;                 /* sensitivity (when asked for), rounded to double */
  mpfr_ptr sens_mp;             /* the same at RLREF_SENS_PREC bits: below the double
                                   range it is not 0 (NULL when not asked for) */
  int *nondiff;                 /* not differentiable at the input */
  mpfr_prec_t prec;             /* the lower of the two precisions finally used */
} rlref_certified;

/* Evaluates f at two precisions from prec up until every finite nonzero
 * output has at least min_digits certified digits (or the maximum precision
 * is reached: the digits then say how many hold).  x are the inputs as
 * doubles (exactly representable at any precision).  sens_mode (enum
 * rlref_sens_mode) says which sensitivity to compute (sens, sens_mp and
 * nondiff): the formula's own sens_fn runs once, at the lower certified
 * precision, given the values; the central differences (rlref_sens_central)
 * take four evaluations per nonzero input at the higher.  Without sens_fn
 * (NULL) every mode but NONE is FD.  EINVAL for an unknown mode.  On
 * success the caller owns out and frees it with rlref_certified_clear; on
 * failure out holds nothing.  The working precision is restored. */
RLREF_WUR int rlref_certify_with (rlref_mp_eval_fn *f, rlref_mp_sens_fn *sens_fn,
                                  const void *ctx, const double *x, size_t nx, size_t ny,
                                  mpfr_prec_t prec, int min_digits, int sens_mode,
                                  rlref_certified *out);

/* rlref_certify_with without a sensitivity of the formula's own: want_sens
 * 0 (none) or 1 (central differences). */
RLREF_WUR int rlref_certify (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx,
                             size_t ny, mpfr_prec_t prec, int min_digits, int want_sens,
                             rlref_certified *out);

void rlref_certified_clear (rlref_certified *c);

/* The central-difference sensitivity alone, at prec bits: for each input
 * x_j != 0, d_k = (f_k(x + h e_j) - f_k(x - h e_j))/(2h) with
 * h = |x_j| 2^-(prec/4) and with h 2^-24.  Two estimates that differ by
 * more than 2^-20 (|d| + 1) set nondiff[k]; two that agree in absolute
 * terms but differ by more than 2^-20 |d| measure no slope (the
 * truncation error c h^2 of a zero derivative, or the rounding noise of f
 * divided by h, both of which change with the step): that derivative is
 * 0.  Otherwise |d_k| |x_j| (the larger step) is added to sens[k].  sens
 * (ny values, any precision) receives the sums, nondiff (ny) the flags; a
 * nondifferentiable output gets sens 0.  Restores the working precision. */
RLREF_WUR int rlref_sens_central (rlref_mp_eval_fn *f, const void *ctx, const double *x,
                                  size_t nx, size_t ny, mpfr_prec_t prec, mpfr_ptr sens,
                                  int *nondiff);

/* 1 when two sensitivities agree: equal, or within a relative 10^-9 (far
 * beyond the 3 digits printed, far above the error of either). */
int rlref_sens_agree (mpfr_srcptr a, mpfr_srcptr b);

/* Significant decimal digits on which a and b agree: cap when they are
 * equal nonzero finite numbers; 0 when they are equal zeros, NaNs or
 * infinities, or when either is not a nonzero finite number. */
int rlref_agreeing_digits (mpfr_srcptr a, mpfr_srcptr b, int cap);

/* prec, raised where the inputs x need more to be summed exactly with 1
 * (the constants the formulas add): the binary exponent spread of x and 1
 * + 128 bits, a multiple of 64, at most
 * RLREF_CERTIFY_MAX_PREC.  Two evaluations that lose the same input bits
 * agree on a wrong value; the certification starts here. */
mpfr_prec_t rlref_spread_prec (const double *x, size_t nx, mpfr_prec_t prec);

/* Digits that precision p can carry: floor((p - 1) log10 2). */
int rlref_digits_of_prec (mpfr_prec_t p);

#endif
