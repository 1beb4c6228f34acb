/* lm_variant.h -- what a tiny-LM variant says: the parameterisation, how
 * cut sequences count, and the method (enumeration or DP). */
#ifndef RLREF_ORACLES_LM_VARIANT_H
#define RLREF_ORACLES_LM_VARIANT_H
#include "rlref/lm.h"

typedef struct
{
  rlref_lm_kind kind;
  rlref_lm_truncation truncation;
  int dp;
  int objective;                /* RLREF_LM_OBJ_*, for the gradient variants */
} rl_lm_variant;

#endif
