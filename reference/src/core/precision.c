/* precision.c -- the per-thread MPFR working precision. */
#include "rlref/precision.h"

static _Thread_local mpfr_prec_t working_prec = RLREF_DEFAULT_PREC;

mpfr_prec_t
rlref_mp_prec (void)
{
  return working_prec;
}

mpfr_prec_t
rlref_mp_set_prec (mpfr_prec_t bits)
{
  mpfr_prec_t previous = working_prec;
  working_prec = rlref_mp_prec_clamp ((long) bits);
  return previous;
}
