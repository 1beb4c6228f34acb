/* kl_variant.h -- what a KL-GRAD softmax variant says: the per-token
 * convention of the estimator (by catalogue id and name) and how it enters
 * the gradient. */
#ifndef RLREF_ORACLES_KL_VARIANT_H
#define RLREF_ORACLES_KL_VARIANT_H
#include "rlref/kl.h"

typedef struct
{
  const char *formula;          /* the catalogue id whose convention it is */
  const char *convention;       /* its name there */
  rlref_kl_grad_mode mode;
} rl_kl_grad_variant;

#endif
