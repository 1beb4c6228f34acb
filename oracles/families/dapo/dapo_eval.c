/* dapo_eval.c -- glue from the registry's inputs and outputs to the DAPO
 * formulas.  Compiled twice (binary64 and MPFR).  Parameters are found by
 * name; integer inputs arrive as longs. */
#include "family_eval.h"

/* The variants hold their rlref_dapo_convention (DAPO-CLIPHIGHER: its
 * clip convention). */

/* DAPO-OBJ: x = logp, old_logp [n], lengths ints [G], rewards [G];
 * eps_low, eps_high (, c); y = objective, adv, grad, clipfrac. */
RL_ENTRY (dapo_obj)
{
  const rlref_dapo_convention *d = v->data;
  const rlref_adv_convention *ac = rlref_adv_convention_find (d->adv);
  if (!ac)
    RLREF_ERROR ("DAPO-OBJ: unknown advantage convention", RLREF_EINVAL);
  return LIB (dapo_obj) (y[0], y[1], y[2], y[3], IN ("logp"), IN ("old_logp"), LEN ("logp"),
                         INTS ("lengths"), IN ("rewards"),
                         LEN ("rewards"), ac, &d->clip.clip, PARAM ("eps_low"),
                         PARAM ("eps_high"), PARAM ("c"));
}

/* DAPO-CLIPHIGHER: rlref_ppo_clip_ex itself (the variants hold an
 * rlref_ppo_clip_ex_convention).  x = logp, old_logp, adv [n], mask ints;
 * eps_low, eps_high (, c); y = loss, surrogate, ratio, grad, clipfrac. */
RL_ENTRY (dapo_cliphigher)
{
  return LIB (ppo_clip_ex) (y[0], y[1], y[2], y[3], y[4], IN ("logp"), IN ("old_logp"),
                            IN ("adv"), INTS ("mask"),
                            LEN ("logp"), v->data, PARAM ("eps_low"), PARAM ("eps_high"),
                            PARAM ("c"));
}

/* DAPO-TOKLOSS: lengths ints [G]; y = token_weight, response_weight. */
RL_ENTRY (dapo_tokloss)
{
  const rlref_dapo_convention *t = v->data;
  (void) x;
  return LIB (dapo_tokloss_conv) (y[0], y[1], INTS ("lengths"), LEN ("lengths"), t->norm, t->empty);
}

/* DAPO-TOKLOSS-EX: short, long ints; y = short_weight, long_weight,
 * weight_ratio, long_share. */
RL_ENTRY (dapo_tokloss_ex)
{
  const rlref_dapo_convention *c = v->data;
  long len[2] = { INTS ("short")[0], INTS ("long")[0] };
  num_ptr tw = NULL, rw = NULL;
  int status;
  (void) x;
  tw = num_vec_new (2);
  rw = num_vec_new (2);
  if (!tw || !rw)
    {
      num_vec_free (tw, 2);
      num_vec_free (rw, 2);
      RLREF_ERROR ("DAPO-TOKLOSS-EX: out of memory", RLREF_ENOMEM);
    }
  status = LIB (dapo_tokloss) (tw, rw, len, 2, c->norm);
  if (status == RLREF_SUCCESS)
    {
      num_set (y[0], AT (tw, 0));
      num_set (y[1], AT (tw, 1));
      num_set (y[3], AT (rw, 1));
      /* the ratio of the weights, 1/(G s) over 1/(G l) or 1: l/s, one quotient */
      if (c->norm == RLREF_DAPO_SAMPLE_LEVEL)
        {
          num_set_si (y[2], len[1]);
          num_div_si (y[2], y[2], len[0]);
        }
      else
        num_set_si (y[2], 1);
    }
  num_vec_free (tw, 2);
  num_vec_free (rw, 2);
  return status;
}

/* DAPO-OVERLONG: lengths ints [n], L_max, L_cache ints; factor (verl,
 * openrlhf); y = penalty, filter. */
RL_ENTRY (dapo_overlong)
{
  const rlref_dapo_convention *c = v->data;
  (void) x;
  return LIB (dapo_overlong) (y[0], y[1], INTS ("lengths"), LEN ("lengths"), INTS ("L_max")[0],
                              INTS ("L_cache")[0],
                              c->overlong, PARAM ("factor"));
}

/* DAPO-DYNSAMPLE keep rules: x = rewards [n], group_size int; y = keep,
 * mean, std, kept. */
RL_ENTRY (dapo_keep)
{
  const rlref_dapo_convention *c = v->data;
  size_t kept = 0;
  int status = LIB (dapo_keep) (y[0], y[1], y[2], &kept, IN ("rewards"), LEN ("rewards"),
                                INTS ("group_size")[0], c->keep);
  if (status == RLREF_SUCCESS)
    num_set_si (y[3], (long) kept);
  return status;
}

/* DAPO-DYNSAMPLE refill, rounds of M: x = p; G, B, M ints; y = keep_prob,
 * expected_rounds, expected_groups. */
RL_ENTRY (dapo_refill_batch)
{
  const rlref_dapo_convention *c = v->data;
  return LIB (dapo_refill) (y[0], y[1], y[2], IN ("p"), INTS ("G")[0], INTS ("B")[0], INTS ("M")[0],
                            RLREF_DAPO_REFILL_BATCH, c->single_kept);
}

/* DAPO-DYNSAMPLE refill, prompt by prompt: x = p; G, B ints; y =
 * keep_prob, expected_groups. */
RL_ENTRY (dapo_refill_prompt)
{
  const rlref_dapo_convention *c = v->data;
  return LIB (dapo_refill) (y[0], NULL, y[1], IN ("p"), INTS ("G")[0], INTS ("B")[0], 1,
                            RLREF_DAPO_REFILL_PROMPT, c->single_kept);
}
