/* rlref/rlref.h -- everything: the scalar-independent public API of rlref.
 *
 * Each formula exists twice, from one source: name_d (IEEE binary64,
 * scalars and vectors as double *) and name_mp (MPFR, mpfr_ptr; vectors are
 * contiguous arrays of __mpfr_struct).  See reference/README.md. */
#ifndef RLREF_RLREF_H
#define RLREF_RLREF_H

#define RLREF_VERSION "0.1.0"

#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/certify.h"
/* One header per family, listed by the build (rlref/families.h). */
#include "rlref/families.h"
/* The binary64 batch kernels (one call over many groups, tokens or pairs). */
#include "rlref/batch.h"

#endif
