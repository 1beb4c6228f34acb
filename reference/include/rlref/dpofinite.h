/* rlref/dpofinite.h -- the DPO derivation on an explicit finite outcome set
 * (DPO-IMPLICIT-R, DPO-ZCANCEL, DPO-EQUIV), binary64 and MPFR.  Seed 000
 * section 4, equations 13.17-13.21, and the IPO loss. */
#ifndef RLREF_DPOFINITE_H
#define RLREF_DPOFINITE_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/convention.h"

/* The pair loss of a population preference loss (rlref_dpofinite_equiv). */
enum rlref_dpofinite_loss
{
  RLREF_DPOFINITE_DPO = 0,         /* l(z) = -log sigma(beta z) (13.21) */
  RLREF_DPOFINITE_IPO = 1          /* l(z) = (z - 1/(2 tau))^2 */
};

/* How far the sum of the reference probabilities, and P_ij + P_ji, may be
 * from 1; the most outcomes of a population loss. */
#define RLREF_DPOFINITE_SUM_TOL 0x1p-20
#define RLREF_DPOFINITE_MAX_N 64

/* The named conventions of the DPOFINITE formulas, in the order of the golden
 * variants (src/dpofinite/dpofinite_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   DPO-IMPLICIT-R: none
 *   DPO-ZCANCEL: none
 *   DPO-EQUIV: "dpo-bt" none; "dpo-pref" int, the loss (RLREF_DPOFINITE_DPO
 *       or _IPO); "ipo" int, the loss (RLREF_DPOFINITE_DPO or _IPO) */
extern const rlref_convention rlref_dpofinite_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/dpofinite.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/dpofinite.h"
#include "rlref/tmpl/end.h"

#endif
