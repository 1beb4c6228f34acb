/* rlref/sens.h -- the formulas' own derivatives, for their sensitivities
 * (rlref/certify.h), binary64 and MPFR. */
#ifndef RLREF_SENS_H
#define RLREF_SENS_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/sens.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/sens.h"
#include "rlref/tmpl/end.h"

#endif
