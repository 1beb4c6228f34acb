/* rlref/pref.h -- preference and reward models (PREF-*), binary64 and MPFR. */
#ifndef RLREF_PREF_H
#define RLREF_PREF_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/convention.h"

/* The named conventions of the PREF formulas, in the order of the golden
 * variants (src/pref/pref_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   PREF-BT: none
 *   PREF-BT-GUMBEL: none
 *   PREF-RM-LOSS: none
 *   PREF-BT-EX: none
 *   PREF-MARGIN: none
 *   PREF-SMOOTH: none
 *   PREF-ENSEMBLE: none
 *   PREF-PL: none
 *   PREF-BT-MLE: none */
extern const rlref_convention rlref_pref_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/pref.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/pref.h"
#include "rlref/tmpl/end.h"

#endif
