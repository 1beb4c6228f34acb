/* rlref/precision.h -- the MPFR working precision of the calling thread. */
#ifndef RLREF_PRECISION_H
#define RLREF_PRECISION_H

#include <mpfr.h>

#define RLREF_DEFAULT_PREC 256

/* Precision, in bits, given to MPFR temporaries (default 256). */
mpfr_prec_t rlref_mp_prec (void);
/* Sets it; returns the previous value.  Clamped to [MPFR_PREC_MIN, 1<<20]. */
mpfr_prec_t rlref_mp_set_prec (mpfr_prec_t bits);

#endif
