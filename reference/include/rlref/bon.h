/* rlref/bon.h -- best-of-n on a discrete space (BON) and the
 * over-optimisation functional forms (OVEROPT), binary64 and MPFR.  Seed
 * 000 sections 8.2, 8.4 and 10.4; the forms and the KL bound are from the
 * literature the seed cites (Gao et al. 2022; Stiennon et al. 2020). */
#ifndef RLREF_BON_H
#define RLREF_BON_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/convention.h"

/* How far the sum of the base probabilities of bon_dist may be from 1
 * (2^-20); the distribution used is p/S, S their exact sum. */
#define RLREF_BON_NORM_TOL 0x1p-20

/* The over-optimisation curves of Gao et al. (2022) in d = sqrt(KL). */
typedef enum
{
  RLREF_OVEROPT_BON,            /* R(d) = d (alpha - beta d): best-of-n */
  RLREF_OVEROPT_RL              /* R(d) = d (alpha - beta log d): RL */
} rlref_overopt_form;

/* The named conventions of the BON formulas, in the order of the golden
 * variants (src/bon/bon_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   BON: none
 *   OVEROPT: int, an rlref_overopt_form */
extern const rlref_convention rlref_bon_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/bon.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/bon.h"
#include "rlref/tmpl/end.h"

#endif
