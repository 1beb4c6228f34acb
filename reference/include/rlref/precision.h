/* rlref/precision.h -- the MPFR working precision of the calling thread.
 *
 * rlref_mp_prec () is thread-local: each thread starts at
 * RLREF_DEFAULT_PREC and rlref_mp_set_prec changes it for the calling
 * thread only.  num_init, num_vec_new and the MPFR formulas read it.  Work
 * handed to another thread passes its precision explicitly (num_init_prec,
 * num_vec_new_prec, a workspace made by rlref_ws_new): functions that take
 * a precision never read rlref_mp_prec (). */
#ifndef RLREF_PRECISION_H
#define RLREF_PRECISION_H

#include <mpfr.h>

#define RLREF_DEFAULT_PREC 256
/* The largest working precision, in bits. */
#define RLREF_MAX_PREC ((mpfr_prec_t) 1 << 20)

/* Precision, in bits, given to MPFR temporaries (default 256). */
mpfr_prec_t rlref_mp_prec (void);
/* Sets it for the calling thread; returns the previous value.  Clamped to
 * [MPFR_PREC_MIN, RLREF_MAX_PREC]. */
mpfr_prec_t rlref_mp_set_prec (mpfr_prec_t bits);

/* bits clamped to [MPFR_PREC_MIN, RLREF_MAX_PREC], the range every
 * function taking an explicit precision accepts. */
static inline mpfr_prec_t
rlref_mp_prec_clamp (long bits)
{
  if (bits < (long) MPFR_PREC_MIN)
    return MPFR_PREC_MIN;
  if (bits > (long) RLREF_MAX_PREC)
    return RLREF_MAX_PREC;
  return (mpfr_prec_t) bits;
}

#endif
