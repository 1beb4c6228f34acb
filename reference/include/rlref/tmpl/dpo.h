/* Declarations of the DPO-family losses, for one backend (no guard).
 * Arrays hold B pairs (KTO: B examples, M mismatched pairs); token counts
 * are positive; an output pointer other than loss may be NULL. */

/* DPO-LOSS (000 13.21), DPO-CDPO, DPO-IPO: the pairwise loss of convention c
 * (rlref/dpo.h) with b = beta (beta^2 if c->beta_squared), e = eps:
 *   loss = (1/B) sum_i l(D_i),  losses[i] = l(D_i),
 *   grad_w[i] = d loss / d logp_w,i,  grad_l[i] = d loss / d logp_l,i,
 *   reward_w[i] = beta (logp_w,i - ref_w,i),  reward_l[i] = beta (logp_l,i - ref_l,i).
 * n_w, n_l are read only when c->per_token (may be NULL otherwise), a
 * count of 0 counting as 1 (TRL's mask.sum(dim=1).clamp(min=1.0)); eps
 * only for the cdpo (0 <= e <= 1) and robust (0 <= e <= 1, e != 1/2: TRL
 * only warns outside [0, 1/2)) forms.  The hinge's derivative at b D = 1 is
 * taken as 0 (relu'(0) = 0).  EINVAL for an empty batch, ENAN for a
 * non-finite input, EDOM for beta <= 0, eps outside its range (robust at
 * 1/2: the loss is not finite) or a negative count; ERANGE in binary64
 * where D (or b D, outside IPO) overflows. */
RLREF_WUR int RLREF_FN (dpo_loss) (RLREF_T loss, RLREF_T losses, RLREF_T grad_w, RLREF_T grad_l,
                                   RLREF_T reward_w, RLREF_T reward_l,
                                   RLREF_CT logp_w, RLREF_CT logp_l, RLREF_CT ref_w,
                                   RLREF_CT ref_l, const long *n_w, const long *n_l, size_t B,
                                   const rlref_dpo_convention *c, RLREF_CT beta, RLREF_CT eps);

/* DPO-GRAD (000 13.22): with implicit rewards r_i = beta (logp_i - ref_i),
 *   weight[i] = sigma(r_l,i - r_w,i) = sigma(-beta D_i),
 *   grad_w[i] = -beta weight[i] / B,  grad_l[i] = beta weight[i] / B,
 * the gradient of the batch-mean loss -log sigma(beta D) with respect to
 * the policy's log-probabilities.  beta_squared: seed 003's prose, beta
 * applied twice (sigma(beta (r_l - r_w)) and beta^2 in the gradient).
 * Errors as dpo_loss. */
RLREF_WUR int RLREF_FN (dpo_grad) (RLREF_T weight, RLREF_T grad_w, RLREF_T grad_l,
                                   RLREF_CT logp_w, RLREF_CT logp_l, RLREF_CT ref_w,
                                   RLREF_CT ref_l, size_t B, int beta_squared, RLREF_CT beta);

/* DPO-KTO: B completions with log-probabilities logp (policy) and ref
 * (reference), desirable[i] 1 or 0, and M mismatched pairs kl_logp, kl_ref:
 *   z0 = max(0, (1/M) sum_j (kl_logp_j - kl_ref_j))   (held constant),
 *   r_i = logp_i - ref_i,
 *   losses[i] = w_d (1 - sigma(beta (r_i - z0)))  if desirable,
 *               w_u (1 - sigma(beta (z0 - r_i)))  if not,
 * each 1 - sigma(x) given its exact value sigma(-x) (TRL writes the
 * subtraction 1 - F.sigmoid(x), which loses digits as x grows); loss =
 * (1/B) sum_i losses[i];
 * grad[i] = d loss / d logp_i; reward[i] = beta r_i.  EDOM for beta <= 0,
 * a negative weight or a label other than 0 and 1; EINVAL for B or M 0;
 * ENAN for a non-finite input. */
RLREF_WUR int RLREF_FN (kto_loss) (RLREF_T loss, RLREF_T losses, RLREF_T grad, RLREF_T reward,
                                   RLREF_T z0, RLREF_CT logp, RLREF_CT ref,
                                   const long *desirable, size_t B, RLREF_CT kl_logp,
                                   RLREF_CT kl_ref, size_t M, RLREF_CT beta, RLREF_CT w_d,
                                   RLREF_CT w_u);

/* DPO-SIMPO: no reference; with per-token means a_w = logp_w/n_w,
 * a_l = logp_l/n_l,
 *   losses[i] = -log sigma(beta (a_w,i - a_l,i) - gamma),
 *   nll = -sum_i logp_w,i / sum_i n_w,i,
 *   loss = (1/B) sum_i losses[i] + alpha nll,
 * grad_w, grad_l the derivatives of loss, reward_w[i] = beta a_w,i,
 * reward_l[i] = beta a_l,i.  EDOM for beta <= 0, alpha < 0 or a count < 1. */
RLREF_WUR int RLREF_FN (simpo_loss) (RLREF_T loss, RLREF_T losses, RLREF_T grad_w,
                                     RLREF_T grad_l, RLREF_T reward_w, RLREF_T reward_l,
                                     RLREF_T nll, RLREF_CT logp_w, RLREF_CT logp_l,
                                     const long *n_w, const long *n_l, size_t B, RLREF_CT beta,
                                     RLREF_CT gamma, RLREF_CT alpha);

/* DPO-ORPO: no reference; with per-token means a = logp/n <= 0 and log odds
 * lo(a) = a - log(1 - e^a) (log1mexp),
 *   log_odds[i] = lo(a_w,i) - lo(a_l,i),
 *   losses[i] = -lambda log sigma(log_odds[i]),
 *   nll as nll_mean (rlref/dpo.h), loss = nll + (1/B) sum_i losses[i],
 * grad_w, grad_l the derivatives of loss, reward_w[i] = lambda a_w,i,
 * reward_l[i] = lambda a_l,i.  A chosen completion of log-probability 0
 * has infinite odds: log_odds = +inf, losses = 0, and the derivative is
 * its one-sided limit.  EDOM for a log-probability > 0, a rejected one of
 * exactly 0 (the loss is +inf), lambda < 0 or a count < 1. */
RLREF_WUR int RLREF_FN (orpo_loss) (RLREF_T loss, RLREF_T losses, RLREF_T grad_w,
                                    RLREF_T grad_l, RLREF_T log_odds, RLREF_T nll,
                                    RLREF_T reward_w, RLREF_T reward_l, RLREF_CT logp_w,
                                    RLREF_CT logp_l, const long *n_w, const long *n_l, size_t B,
                                    enum rlref_nll_mean nll_mean, RLREF_CT lambda);

/* DPO-ORPO as TRL's ORPOTrainer computes it in binary32 (the .float() of
 * odds_ratio_loss, even on float64 log-probabilities): a = f32(logp/n), the
 * mean formed in binary64; log_odds, losses (the negated TRL losses),
 * rewards and the odds-ratio part of the gradients in binary32 in TRL's
 * order and autograd's (src/dpo/dpo.c); nll the token mean and
 * loss = nll - f32 mean of the losses, in binary64.  Errors as orpo_loss,
 * and ERANGE where TRL's log_odds or a gradient is not finite (e^a rounds
 * to 1 in binary32, or a per-token mean beyond binary32). */
RLREF_WUR int RLREF_FN (orpo_loss_f32) (RLREF_T loss, RLREF_T losses, RLREF_T grad_w,
                                        RLREF_T grad_l, RLREF_T log_odds, RLREF_T nll,
                                        RLREF_T reward_w, RLREF_T reward_l, RLREF_CT logp_w,
                                        RLREF_CT logp_l, const long *n_w, const long *n_l,
                                        size_t B, RLREF_CT lambda);
