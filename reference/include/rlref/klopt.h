/* rlref/klopt.h -- the KL-regularised optimum on an explicit finite
 * distribution (KLOPT-*), binary64 and MPFR.  Seed 000 sections 2.2 and
 * 4.1, equations 13.8 and 13.13-13.17. */
#ifndef RLREF_KLOPT_H
#define RLREF_KLOPT_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/convention.h"

/* How a distribution over n outcomes is given.
 *
 * RLREF_KLOPT_PROB: probabilities p_i, finite and >= 0, whose sum S
 * satisfies |S - 1| <= RLREF_KLOPT_SUM_TOL; the distribution used is p / S
 * (S the exact sum, rounded once to the working precision).
 * RLREF_KLOPT_LOGPROB: log-probabilities, each finite or -inf (probability
 * 0), with |lse(logp)| <= RLREF_KLOPT_SUM_TOL, lse(logp) = log sum_i
 * e^{logp_i}; the distribution used is e^{logp_i - lse(logp)}.
 *
 * Outside the tolerance the input is rejected (EDOM): it is not a
 * distribution.  Within it, normalising makes every formula that of an
 * exact distribution, the same in both backends (the seeds write pi_ref as
 * probabilities; code holds log-probabilities, whose sum rounds). */
enum rlref_klopt_kind
{
  RLREF_KLOPT_PROB = 0,
  RLREF_KLOPT_LOGPROB = 1
};

#define RLREF_KLOPT_SUM_TOL 0x1p-20

/* The named conventions of the KLOPT formulas, in the order of the golden
 * variants (src/klopt/klopt_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   KLOPT-Z: int, an rlref_klopt_kind (probabilities or log-probabilities)
 *   KLOPT-PISTAR: int, an rlref_klopt_kind (probabilities or
 *       log-probabilities)
 *   KLOPT-OBJ: int, an rlref_klopt_kind (probabilities or log-probabilities)
 *   KLOPT-IDENT: int, an rlref_klopt_kind (probabilities or
 *       log-probabilities)
 *   KLOPT-LIMITS: int, an rlref_klopt_kind (probabilities or
 *       log-probabilities) */
extern const rlref_convention rlref_klopt_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/klopt.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/klopt.h"
#include "rlref/tmpl/end.h"

#endif
