/* rlref/primitives.h -- stable primitives in binary64 (_d) and MPFR (_mp). */
#ifndef RLREF_PRIMITIVES_H
#define RLREF_PRIMITIVES_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/primitives.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/primitives.h"
#include "rlref/tmpl/end.h"

#endif
