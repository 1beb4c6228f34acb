/* grpoobj_eval.c -- glue from the registry's inputs and outputs to the GRPO
 * objective formulas (rlref/grpoobj.h).  Compiled twice (binary64 and
 * MPFR).  Parameters are found by name; integer inputs (lens, mask, micro,
 * k) arrive as longs. */
#include "family_eval.h"

/* GRPO-OBJ: x = logp, old_logp, ref_logp [n], lens ints [G], adv [G], mask
 * ints [n]; eps_low, eps_high, beta; y = loss, kl, grad. */
RL_ENTRY (grpo_obj)
{
  const rlref_grpo_obj_convention *c = v->data;
  return LIB (grpo_obj_conv) (y[0], y[1], y[2], IN ("logp"), IN ("old_logp"), IN ("ref_logp"),
                              IN ("adv"), INTS ("lens"), LEN ("lens"),
                              INTS ("mask"), LEN ("logp"), c, PARAM ("eps_low"), PARAM ("eps_high"),
                              PARAM ("beta"));
}

/* GRPO-AGG: x = L [n], lens ints [G], mask ints [n] (, micro int); L_const;
 * y = value, weights. */
RL_ENTRY (grpo_agg)
{
  const rlref_grpo_agg_convention *c = v->data;
  long micro = rl_has_input (v, "micro") ? INTS ("micro")[0] : 1;
  return LIB (grpo_agg_conv) (y[0], y[1], IN ("L"), INTS ("lens"), LEN ("lens"), INTS ("mask"),
                              LEN ("L"), c,
                              PARAM ("L_const"), micro);
}

/* GRPO-DR: x = logp, old_logp [n], lens ints [G], rewards [G], mask ints
 * [n]; eps_low, eps_high (, L_const); y = loss, adv, grad. */
RL_ENTRY (grpo_dr)
{
  const rlref_grpo_dr_convention *c = v->data;
  return LIB (grpo_dr_conv) (y[0], y[1], y[2], IN ("logp"), IN ("old_logp"), IN ("rewards"),
                             INTS ("lens"), LEN ("lens"),
                             INTS ("mask"), LEN ("logp"), c, PARAM ("eps_low"), PARAM ("eps_high"),
                             PARAM ("L_const"));
}

/* GRPO-GSPO: x = logp, old_logp [n], lens ints [G], adv [G], mask ints [n];
 * eps_low, eps_high; y = loss, s, grad. */
RL_ENTRY (grpo_gspo)
{
  const rlref_grpo_gspo_convention *c = v->data;
  return LIB (grpo_gspo_conv) (y[0], y[1], y[2], IN ("logp"), IN ("old_logp"), IN ("adv"),
                               INTS ("lens"), LEN ("lens"),
                               INTS ("mask"), LEN ("logp"), c->cap, c->empty, PARAM ("eps_low"),
                               PARAM ("eps_high"));
}

/* GRPO-GMPO: x = logp, old_logp [n], lens ints [G], adv [G], mask ints [n];
 * clip_low, clip_high; y = loss, ratio, grad. */
RL_ENTRY (grpo_gmpo)
{
  return LIB (grpo_gmpo) (y[0], y[1], y[2], IN ("logp"), IN ("old_logp"), IN ("adv"),
                          INTS ("lens"), LEN ("lens"), INTS ("mask"),
                          LEN ("logp"), PARAM ("clip_low"), PARAM ("clip_high"));
}

/* GRPO-GMPO example: x = terms [n]; y = arith, geo. */
RL_ENTRY (grpo_means)
{
  return LIB (grpo_means) (y[0], y[1], IN ("terms"), LEN ("terms"));
}

/* GRPO-GFPO: x = rewards [N], lens ints [N], k int; y = keep, key, mean_kept. */
RL_ENTRY (grpo_gfpo)
{
  const enum rlref_gfpo_filter *filter = v->data;
  return LIB (grpo_gfpo) (y[0], y[1], y[2], IN ("rewards"), INTS ("lens"), LEN ("rewards"),
                          INTS ("k")[0], *filter);
}
