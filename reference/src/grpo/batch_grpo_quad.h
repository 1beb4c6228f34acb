/* batch_grpo_quad.h -- internal: four groups of real-valued rewards at
 * once, one per vector lane (batch_grpo_quad.c), for batch_grpo.c. */
#ifndef RLREF_BATCH_GRPO_QUAD_H
#define RLREF_BATCH_GRPO_QUAD_H
#include <stddef.h>
#include "rlref/grpo.h"

/* Groups q = 0, 1, ... of G rewards at r, four at a time, while every
 * four are certified (the reference's advantages written to adv, which
 * may be r); under GROUP_STD or NONE, 2 <= G <= RLREF_BATCH_GMAX, kcap
 * the cap of the scale exponent.  Returns the number of groups done, a
 * multiple of 4: where it stopped, the next four are left for the
 * one-group paths (all of them, 0, on a processor without AVX2 and
 * FMA). */
size_t grpo_quad_run (double *adv, const double *r, size_t G, size_t ng,
                      const rlref_adv_convention *c, long kcap);

#endif
