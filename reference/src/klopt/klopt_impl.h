/* klopt_impl.h -- internal: the solved KL-regularised optimum of klopt.c
 * for other formulas of the same derivation (dpofinite.c), for the backend
 * the including file is compiled for. */
#ifndef RLREF_KLOPT_IMPL_H
#define RLREF_KLOPT_IMPL_H
#include <stddef.h>
#include "rlref/num.h"
#include "rlref/status.h"

/* (13.15), (13.17) as klopt_logz and klopt_pistar form them: log Z, and
 * for each outcome pi*_i, log pi*_i, h_i = log(pi*_i / pi_ref_i) =
 * r_i/beta - log Z (formed as (r_i - c)/beta - L, without log Z; 0 off
 * the support) and log pi_ref_i (-inf off it).  Any output but logz may
 * be NULL.  Errors as klopt_pistar's. */
RLREF_WUR int FN (klopt_solution) (num_ptr logz, num_ptr pistar, num_ptr logpistar, num_ptr h,
                                   num_ptr logref, num_srcptr ref, int kind, num_srcptr r,
                                   size_t n, num_srcptr beta);

#endif
