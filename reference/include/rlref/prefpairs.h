/* rlref/prefpairs.h -- a K-way ranking as its C(K,2) pairwise
 * Bradley-Terry comparisons (PREF-PAIRS), binary64 and MPFR. */
#ifndef RLREF_PREFPAIRS_H
#define RLREF_PREFPAIRS_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/convention.h"

/* The named conventions of the PREFPAIRS formulas, in the order of the golden
 * variants (src/prefpairs/prefpairs_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   PREF-PAIRS: none */
extern const rlref_convention rlref_prefpairs_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/prefpairs.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/prefpairs.h"
#include "rlref/tmpl/end.h"

#endif
