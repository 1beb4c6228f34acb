/* rules.h -- the numbers that the golden writer and the checker share:
   the working precision, the digits a golden value must certify, and the
   default U of the tolerance rule (golden/README.md).  One definition each. */
#ifndef RLREF_ORACLES_RULES_H
#define RLREF_ORACLES_RULES_H

#define RL_WORKING_BITS 256     /* MPFR bits of golden values and of checking */
#define RL_MIN_DIGITS 30        /* certified digits asked of every golden value */
#define RL_DEFAULT_ULPS 32      /* U of the tolerance rule unless a formula says otherwise */

#endif
