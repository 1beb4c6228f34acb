/* dapo_variant.h -- what a DAPO-OBJ variant holds (oracles/families/dapo/dapo.c
 * and its glue dapo_eval.c): the group-advantage convention by name
 * (rlref/grpo.h) and the clip convention (rlref/ppo.h). */
#ifndef RLREF_ORACLES_DAPO_VARIANT_H
#define RLREF_ORACLES_DAPO_VARIANT_H
#include "rlref/dapo.h"

typedef struct
{
  const char *adv;              /* an rlref_adv_conventions name */
  rlref_ppo_clip_convention clip;
} rl_dapo_obj_variant;

/* What a DAPO-TOKLOSS variant holds: the normalisation and what an empty
 * response does. */
typedef struct
{
  enum rlref_dapo_norm norm;
  enum rlref_dapo_empty empty;
} rl_dapo_tokloss_variant;

#endif
