/* ppo_axes.h -- the departures of PPO's clipped surrogate that `rlref
 * check` searches (rl_axis, registry.h): max in place of min (the
 * optimistic bound) and the clip applied to the log-ratio in place of the
 * ratio.  Shared by the PPO family (PPO-CLIP, PPO-DUALCLIP) and the DAPO
 * family (DAPO-CLIPHIGHER), whose variants hold an rlref_ppo_clip_ex_convention;
 * everything here is static, each module makes its own table with
 * PPO_CLIP_AXES (prefix, io), io the rl_io whose variants it moves (the
 * float32 readings are not moved). */
#ifndef RLREF_ORACLES_PPO_AXES_H
#define RLREF_ORACLES_PPO_AXES_H

#include <stdio.h>
#include "rlref/ppo.h"
#include "registry.h"

/* out = base with the clip convention moved along axis `which` (0: max for
 * min, 1: the clip on the log-ratio); -1 when base is not a variant of io
 * or is there already. */
static inline int
ppo_axis_clip (const rl_variant *base, rl_variant *out, void *scratch, char *label,
               size_t size, const rl_io *io, int which)
{
  rlref_ppo_clip_ex_convention *k = scratch;
  _Static_assert (sizeof *k <= RL_AXIS_SCRATCH, "the clip convention fits the scratch");
  if (base->io != io || base->data == NULL)
    return -1;
  *k = *(const rlref_ppo_clip_ex_convention *) base->data;
  if (which == 0)
    {
      if (k->optimistic)
        return -1;
      k->optimistic = 1;
      snprintf (label, size, "max in place of min (the optimistic bound of the clipped "
                "surrogate)");
    }
  else
    {
      if (k->clip_log)
        return -1;
      k->clip_log = 1;
      snprintf (label, size, "the clip applied to the log-ratio, e^clip(l, -eps_low, "
                "eps_high), in place of the ratio");
    }
  *out = *base;
  out->data = k;
  return 0;
}

#define PPO_CLIP_AXES(prefix, io)                                                   \
  static int                                                                        \
  prefix##_max_for_min (const rl_variant *b, rl_variant *o, void *s, char *l, size_t n) \
  {                                                                                 \
    return ppo_axis_clip (b, o, s, l, n, &(io), 0);                                 \
  }                                                                                 \
  static int                                                                        \
  prefix##_clip_log (const rl_variant *b, rl_variant *o, void *s, char *l, size_t n) \
  {                                                                                 \
    return ppo_axis_clip (b, o, s, l, n, &(io), 1);                                 \
  }                                                                                 \
  static const rl_axis prefix##_axes[] = {                                          \
    { "max-for-min", prefix##_max_for_min },                                        \
    { "clip-log-ratio", prefix##_clip_log },                                        \
    { 0 },                                                                          \
  }

#endif
