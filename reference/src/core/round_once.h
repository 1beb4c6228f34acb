/* round_once.h -- a binary64 answer as the MPFR program rounded once.
 *
 * For the enumerations and fits whose binary64 forms cancel by more than
 * the format holds (subtree sums, centred coefficients, Newton steps near
 * a tie), the binary64 entry point runs the MPFR program on the exact
 * binary64 inputs and rounds each output once. */
#ifndef RLREF_ROUND_ONCE_H
#define RLREF_ROUND_ONCE_H

#include <stddef.h>
#include <mpfr.h>

/* The MPFR program: y[0..ny) from x[0..nx) at the working precision
 * (rlref_mp_prec), ctx holding what is not a real input (shapes, flags). */
typedef int rlref_mp_program (void *ctx, mpfr_ptr y, mpfr_srcptr x);

#define RLREF_ROUND_ONCE_FIRST_PREC 128
#define RLREF_ROUND_ONCE_LAST_PREC 4096

/* yd[0..ny) = the program's outputs on xd[0..nx), each rounded to binary64
 * once.  It runs from RLREF_ROUND_ONCE_FIRST_PREC bits (more where the
 * inputs need more to be summed exactly: rlref_spread_prec), doubling,
 * until two successive runs round to the same doubles (a zero of either
 * sign agreeing; an exact zero settles once both runs underflow); if two
 * runs at RLREF_ROUND_ONCE_LAST_PREC bits or more still differ, EPREC.  A
 * rounded output beyond the binary64 range (or NaN) is ERANGE; the
 * program's own refusal is returned as it is.  `what` names the result in
 * the error messages.  Restores the working precision; yd is written only
 * on success. */
int rlref_round_once (double *yd, size_t ny, const double *xd, size_t nx,
                      rlref_mp_program *run, void *ctx, const char *what);

#endif
