/* rlref/pref.h -- preference and reward models (PREF-*), binary64 and MPFR. */
#ifndef RLREF_PREF_H
#define RLREF_PREF_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/pref.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/pref.h"
#include "rlref/tmpl/end.h"

#endif
