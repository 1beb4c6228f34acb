/* dpo_eval.c -- glue from the registry's inputs and outputs to the
 * DPO-family losses.  Compiled twice (binary64 and MPFR).  Parameters are
 * found by name: the variants of one part name them as the libraries do. */
#include "family_eval.h"

/* DPO-LOSS, DPO-CDPO, DPO-IPO: x = logp_w, logp_l, ref_w, ref_l [B], n_w,
 * n_l ints, beta (, eps); y = loss, losses, grad_w, grad_l, reward_w,
 * reward_l. */
RL_ENTRY (dpo_pair)
{
  return LIB (dpo_loss) (y[0], y[1], y[2], y[3], y[4], y[5], IN ("logp_w"), IN ("logp_l"),
                         IN ("ref_w"), IN ("ref_l"),
                         INTS ("n_w"), INTS ("n_l"), LEN ("logp_w"), v->data, PARAM ("beta"),
                         PARAM ("eps"));
}

/* DPO-GRAD: x = logp_w, logp_l, ref_w, ref_l [B], beta; y = weight, grad_w,
 * grad_l. */
RL_ENTRY (dpo_grad)
{
  const rlref_dpo_convention *c = v->data;
  return LIB (dpo_grad) (y[0], y[1], y[2], IN ("logp_w"), IN ("logp_l"), IN ("ref_w"),
                         IN ("ref_l"), LEN ("logp_w"),
                         c->beta_squared, PARAM ("beta"));
}

/* DPO-KTO: x = logp, ref [B], desirable ints, kl_logp, kl_ref [M], beta,
 * w_d, w_u; y = loss, losses, grad, reward, z0. */
RL_ENTRY (dpo_kto)
{
  return LIB (kto_loss) (y[0], y[1], y[2], y[3], y[4], IN ("logp"), IN ("ref"),
                         INTS ("desirable"), LEN ("logp"), IN ("kl_logp"),
                         IN ("kl_ref"), LEN ("kl_logp"), PARAM ("beta"), PARAM ("w_d"),
                         PARAM ("w_u"));
}

/* DPO-SIMPO: x = logp_w, logp_l [B], n_w, n_l ints, beta and either
 * simpo_gamma and cpo_alpha (TRL) or gamma_beta_ratio and sft_weight
 * (gamma = beta gamma_beta_ratio, the SimPO repository); y = loss, losses,
 * grad_w, grad_l, reward_w, reward_l, nll. */
RL_ENTRY (dpo_simpo)
{
  num_srcptr beta = PARAM ("beta"), gamma = PARAM ("simpo_gamma");
  num_srcptr ratio = PARAM ("gamma_beta_ratio"), alpha = PARAM ("cpo_alpha");
  num_t g;
  int status, no_nll;
  if (!alpha)
    alpha = PARAM ("sft_weight");
  /* TRL's CPOTrainer computes no NLL at cpo_alpha = 0: its nll_loss is the
     placeholder torch.tensor(0.0) (cpo_trainer.py concatenated_forward);
     read before the outputs are written (they may share alpha's storage) */
  no_nll = alpha && v->data && *(const int *) v->data && num_is_zero (alpha);
  num_init (g);
  if (gamma)
    num_set (g, gamma);
  else if (beta && ratio)
    {
      num_mul (g, beta, ratio);
      if (!num_is_finite (g) && num_is_finite (beta) && num_is_finite (ratio))
        {
          num_clear (g);
          RLREF_ERROR ("gamma = beta gamma_beta_ratio lies beyond the binary64 range",
                       RLREF_ERANGE);
        }
    }
  status = LIB (simpo_loss) (y[0], y[1], y[2], y[3], y[4], y[5], y[6], IN ("logp_w"),
                             IN ("logp_l"), INTS ("n_w"),
                             INTS ("n_l"), LEN ("logp_w"), beta, (gamma || ratio) ? g : NULL,
                             alpha);
  if (status == RLREF_SUCCESS && no_nll)
    num_set_zero (y[6]);
  num_clear (g);
  return status;
}

/* DPO-ORPO: x = logp_w, logp_l [B], n_w, n_l ints, lambda; y = loss,
 * losses, grad_w, grad_l, log_odds, nll, reward_w, reward_l. */
RL_ENTRY (dpo_orpo)
{
  const enum rlref_nll_mean *mean = v->data;
  return LIB (orpo_loss) (y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7], IN ("logp_w"),
                          IN ("logp_l"),
                          INTS ("n_w"), INTS ("n_l"), LEN ("logp_w"), *mean, PARAM ("lambda"));
}

/* DPO-ORPO in binary32 as TRL computes it: as dpo_orpo (token-mean NLL). */
RL_ENTRY (dpo_orpo_f32)
{
  return LIB (orpo_loss_f32) (y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7], IN ("logp_w"),
                              IN ("logp_l"),
                              INTS ("n_w"), INTS ("n_l"), LEN ("logp_w"), PARAM ("lambda"));
}
