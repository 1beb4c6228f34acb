/* ppo_eval.c -- glue from the registry's inputs and outputs to the PPO
 * formulas.  Compiled twice (binary64 and MPFR).  Parameters are found by
 * name; an integer mask input arrives as longs. */
#include "family_eval.h"
#include "lm_args.h"

/* PPO-TOKREW: x = logp, ref [n], mask ints, score; beta; y = rewards, kl,
 * reward_sum, kl_sum. */
RL_ENTRY (ppo_tokrew)
{
  return LIB (ppo_tokrew) (y[0], y[1], y[2], y[3], IN ("logp"), IN ("ref"), INTS ("mask"),
                           LEN ("logp"), IN ("score"),
                           PARAM ("beta"), v->data);
}

/* PPO-TOKREW in binary32 (OpenRLHF): as ppo_tokrew. */
RL_ENTRY (ppo_tokrew_f32)
{
  return LIB (ppo_tokrew_f32) (y[0], y[1], y[2], y[3], IN ("logp"), IN ("ref"), INTS ("mask"),
                               LEN ("logp"), IN ("score"),
                               PARAM ("beta"), v->data);
}

/* PPO-TOKREW-EX: x = p, p_ref; y = ratio, log_ratio, k2, k3. */
RL_ENTRY (ppo_tokrew_ex)
{
  (void) a;
  return LIB (ppo_tokrew_ex) (y[0], y[1], y[2], y[3], IN ("p"), IN ("p_ref"));
}

/* PPO-KLSUM: V, eos, T ints (inputs 0-2); x = logits, ref_logits, reward,
 * beta (inputs 3-6); y ints (input 7); y = token_log_ratio[L],
 * seq_log_ratio, token_rewards[L], kl_tokens, kl, return_tokens, rlhf. */
RL_ENTRY (ppo_klsum)
{
  const rlref_lm_kind *kind = v->data;
  size_t L;
  int toks[RLREF_LM_MAX_T];
  rlref_lm lm;
  int status = rl_lm_of_args (v, a, "logits", *kind, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE, &lm);
  if (status == RLREF_SUCCESS)
    status = rl_lm_tokens (v, a, "y", &lm, toks, &L);
  if (status)
    return status;
  return LIB (ppo_klsum) (y[0], y[1], y[2], y[3], y[4], y[5], y[6], &lm, IN ("logits"),
                          IN ("ref_logits"), IN ("reward"),
                          IN ("beta"), toks, (int) L);
}

/* PPO-RATIO: x = logp, old_logp [n]; y = ratio, log_ratio, grad. */
RL_ENTRY (ppo_ratio)
{
  const int *clamp = v->data;
  return LIB (ppo_ratio) (y[0], y[1], y[2], IN ("logp"), IN ("old_logp"), LEN ("logp"), *clamp);
}

/* PPO-IS: x = logits_old, logits, f [K]; y = e_old, e_is, e_new, e_cpi,
 * p_old, p, ratio, cpi_grad, pg_old. */
RL_ENTRY (ppo_is)
{
  return LIB (ppo_is) (y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7], y[8], IN ("logits_old"),
                       IN ("logits"), IN ("f"),
                       LEN ("logits_old"));
}

/* PPO-CLIP, PPO-DUALCLIP: x = logp, old_logp, adv [n], mask ints; eps_low,
 * eps_high (, c); y = loss, surrogate, ratio, grad, clipfrac. */
RL_ENTRY (ppo_clip)
{
  return LIB (ppo_clip_ex) (y[0], y[1], y[2], y[3], y[4], IN ("logp"), IN ("old_logp"),
                            IN ("adv"), INTS ("mask"),
                            LEN ("logp"), v->data, PARAM ("eps_low"), PARAM ("eps_high"),
                            PARAM ("c"));
}

/* PPO-CLIP-EX2: x = rho, adv; eps; y = clipped, unclipped, surrogate. */
RL_ENTRY (ppo_clip_one)
{
  (void) a;
  return LIB (ppo_clip_one) (y[0], y[1], y[2], IN ("rho"), IN ("adv"), PARAM ("eps"));
}

/* PPO-VALUE loss: x = values, old_values, returns [n], mask ints (, clip);
 * y = loss, losses, grad, clipfrac. */
RL_ENTRY (ppo_value_loss)
{
  return LIB (ppo_value_loss) (y[0], y[1], y[2], y[3], IN ("values"), IN ("old_values"),
                               IN ("returns"), INTS ("mask"), LEN ("values"),
                               v->data, PARAM ("clip"));
}

/* PPO-VALUE gae-return: x = old_values, adv [n]; y = target. */
RL_ENTRY (ppo_gae_target)
{
  return LIB (ppo_gae_target) (y[0], IN ("old_values"), IN ("adv"), LEN ("old_values"));
}

/* PPO-VALUE mc-return: x = rewards [n]; gamma; y = target. */
RL_ENTRY (ppo_mc_return)
{
  return LIB (ppo_mc_return) (y[0], IN ("rewards"), LEN ("rewards"), PARAM ("gamma"));
}

/* PPO-VALUE objective: x = logits [T V], V int, mask ints [T], l_clip,
 * l_vf; c1, c2; y = entropy[T], entropy_mean, objective, loss. */
RL_ENTRY (ppo_objective)
{
  long V = INTS ("V")[0];
  size_t T = LEN ("mask");
  if (V < 1)
    RLREF_ERROR ("V must be >= 1", RLREF_EDOM);
  if (T == 0 || LEN ("logits") != T * (size_t) V)
    RLREF_ERROR ("logits must hold len(mask) rows of V", RLREF_EINVAL);
  return LIB (ppo_objective) (y[0], y[1], y[2], y[3], IN ("logits"), (size_t) V, INTS ("mask"),
                              T, IN ("l_clip"), IN ("l_vf"),
                              PARAM ("c1"), PARAM ("c2"), v->data);
}

/* PPO-WHITEN: x = values [n], mask ints; eps; y = whitened, mean, std,
 * scale. */
RL_ENTRY (ppo_whiten)
{
  return LIB (ppo_whiten) (y[0], y[1], y[2], y[3], IN ("values"), INTS ("mask"), LEN ("values"),
                           v->data,
                           PARAM ("eps"));
}

/* PPO-KLCTL controller: x = kl [n], coef; n_steps int; target, horizon;
 * y = err, coef_after. */
RL_ENTRY (ppo_kl_controller)
{
  const int *adaptive = v->data;
  return LIB (ppo_kl_controller) (y[0], y[1], IN ("kl"), LEN ("kl"), IN ("coef"),
                                  INTS ("n_steps")[0],
                                  PARAM ("target"), PARAM ("horizon"), *adaptive);
}

/* PPO-KLCTL early stop: x = kl [n]; target_kl, factor; y = updates,
 * stopped. */
RL_ENTRY (ppo_early_stop)
{
  const int *check_first = v->data;
  size_t updates = 0;
  int stopped = 0;
  int status = LIB (ppo_early_stop) (&updates, &stopped, IN ("kl"), LEN ("kl"),
                                     PARAM ("target_kl"), PARAM ("factor"),
                                     *check_first);
  if (status == RLREF_SUCCESS)
    {
      num_set_si (y[0], (long) updates);
      num_set_si (y[1], stopped);
    }
  return status;
}

/* PPO-RATIO in binary32: as ppo_ratio. */
RL_ENTRY (ppo_ratio_f32)
{
  const int *clamp = v->data;
  return LIB (ppo_ratio_f32) (y[0], y[1], y[2], IN ("logp"), IN ("old_logp"), LEN ("logp"), *clamp);
}

/* PPO-CLIP, PPO-DUALCLIP in binary32: as ppo_clip. */
RL_ENTRY (ppo_clip_f32)
{
  return LIB (ppo_clip_f32) (y[0], y[1], y[2], y[3], y[4], IN ("logp"), IN ("old_logp"),
                             IN ("adv"), INTS ("mask"),
                             LEN ("logp"), v->data, PARAM ("eps_low"),
                             PARAM ("eps_high"), PARAM ("c"));
}

/* PPO-WHITEN in binary32: as ppo_whiten. */
RL_ENTRY (ppo_whiten_f32)
{
  return LIB (ppo_whiten_f32) (y[0], y[1], y[2], y[3], IN ("values"), INTS ("mask"),
                               LEN ("values"), v->data,
                               PARAM ("eps"));
}

/* PPO-VALUE loss in binary32: as ppo_value_loss. */
RL_ENTRY (ppo_value_loss_f32)
{
  return LIB (ppo_value_loss_f32) (y[0], y[1], y[2], y[3], IN ("values"), IN ("old_values"),
                                   IN ("returns"), INTS ("mask"),
                                   LEN ("values"), v->data, PARAM ("clip"));
}
