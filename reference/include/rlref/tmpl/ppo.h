/* Declarations of the PPO formulas, for one backend (no guard).  Arrays
 * hold n tokens; mask is NULL or n entries 0/1; an output pointer other
 * than the first may be NULL where marked "(may be NULL)".  Inputs must be
 * finite (ENAN otherwise); an empty array is EINVAL.  Binary64 gives
 * ERANGE where an output's exact value lies beyond its range. */

/* PPO-TOKREW (000 13.9): with l_t = logp_t - ref_t and k the convention's
 * estimate,
 *   kl[t] = mask_t k(l_t)  (k(l_t) at every token with c->keep_masked),
 *   rewards[t] = -beta kl[t] + score [t = end],
 * end the last token of the mask (TRL: the slot after it when one exists);
 * with c->mask_prefix the response ends at the first 0 of the mask (every
 * later token is padding); with c->clamp_score the score is clamped to
 * [-10, 10]; reward_sum = sum_t rewards[t], kl_sum = sum_t kl[t].  beta >= 0
 * (EDOM otherwise; with c->beta_floor a negative beta is taken as 0); a
 * mask without a 1 is EDOM (no token to take the score).  kl, reward_sum,
 * kl_sum may be NULL. */
RLREF_WUR int RLREF_FN (ppo_tokrew) (RLREF_T rewards, RLREF_T kl, RLREF_T reward_sum,
                                     RLREF_T kl_sum, RLREF_CT logp, RLREF_CT ref,
                                     const long *mask, size_t n, RLREF_CT score, RLREF_CT beta,
                                     const rlref_ppo_tokrew_convention *c);

/* PPO-TOKREW-EX (000 section 3): for one token with probabilities p under
 * the policy and p_ref under the reference, 0 < p, p_ref <= 1 (EDOM
 * otherwise): ratio = p/p_ref, log_ratio = l = log(p/p_ref) (the k1
 * penalty), k2 = l^2/2, k3 = e^-l - 1 + l = p_ref/p - 1 + l; binary64 gives
 * ERANGE where p/p_ref or k3 (about p_ref/p) overflows. */
RLREF_WUR int RLREF_FN (ppo_tokrew_ex) (RLREF_T ratio, RLREF_T log_ratio, RLREF_T k2,
                                        RLREF_T k3, RLREF_CT p, RLREF_CT p_ref);

/* PPO-KLSUM (000 13.9, 13.10) on a tiny LM (rlref/lm.h; cut sequences must
 * count, RLREF_LM_KEEP, and the reward be additive): the policy has logits,
 * the reference ref_logits (the same shape).  For the sequence y of L
 * tokens:
 *   token_log_ratio[t] = log pi(y_t | s_t) - log pi_ref(y_t | s_t),
 *   seq_log_ratio = log pi(y) - log pi_ref(y),
 *   token_rewards[t] = -beta token_log_ratio[t] + r(y) [t = L]  (13.9);
 * and over every sequence, enumerated:
 *   kl_tokens = E_pi[sum_t l_t],  return_tokens = E_pi[sum_t r_t],
 * against the library's sequence-level kl = KL(pi || pi_ref) and rlhf =
 * E_pi[r] - beta KL(pi || pi_ref) (rlref_lm_objective): 13.10 says
 * kl_tokens = kl and return_tokens = rlhf.  beta > 0; at most 1e6
 * sequences; errors of the LM functions. */
RLREF_WUR int RLREF_FN (ppo_klsum) (RLREF_T token_log_ratio, RLREF_T seq_log_ratio,
                                    RLREF_T token_rewards, RLREF_T kl_tokens, RLREF_T kl,
                                    RLREF_T return_tokens, RLREF_T rlhf, const rlref_lm *lm,
                                    RLREF_CT logits, RLREF_CT ref_logits, RLREF_CT reward,
                                    RLREF_CT beta, const int *y, int L);

/* PPO-RATIO (001): l = logp - old_logp, clamped to [-20, 20] when clamp;
 * ratio = e^l, log_ratio = l (after the clamp), grad = d ratio / d logp
 * (ratio, or 0 where the clamp binds strictly; at the bounds torch passes
 * the gradient).  log_ratio, grad may be NULL. */
RLREF_WUR int RLREF_FN (ppo_ratio) (RLREF_T ratio, RLREF_T log_ratio, RLREF_T grad,
                                    RLREF_CT logp, RLREF_CT old_logp, size_t n, int clamp);

/* PPO-IS (003): on K actions, p_old = softmax(logits_old), p =
 * softmax(logits), a function f of the action (an advantage):
 *   e_old = E_old[f], e_is = E_p[(p_old/p) f] (= e_old, 003's identity),
 *   e_new = E_p[f], e_cpi = E_old[(p/p_old) f] (= e_new, the unclipped
 *   surrogate in the direction PPO uses), ratio = p/p_old,
 *   cpi_grad[k] = d e_cpi / d logits_k = p_k (f_k - e_new),
 *   pg_old[k] = E_old[f d log p_old / d logits_old,k] = p_old,k (f_k - e_old),
 * the policy gradient at theta_old (equal to cpi_grad there).  Every
 * output but e_old may be NULL. */
RLREF_WUR int RLREF_FN (ppo_is) (RLREF_T e_old, RLREF_T e_is, RLREF_T e_new, RLREF_T e_cpi,
                                 RLREF_T p_old, RLREF_T p, RLREF_T ratio, RLREF_T cpi_grad,
                                 RLREF_T pg_old, RLREF_CT logits_old, RLREF_CT logits,
                                 RLREF_CT f, size_t K);

/* PPO-CLIP (000 13.12, 003), PPO-DUALCLIP: rlref_ppo_clip_ex with the
 * convention c and nothing the libraries add (the clip fraction exact). */
RLREF_WUR int RLREF_FN (ppo_clip) (RLREF_T loss, RLREF_T surrogate, RLREF_T ratio,
                                   RLREF_T grad, RLREF_T clipfrac, RLREF_CT logp,
                                   RLREF_CT old_logp, RLREF_CT adv, const long *mask, size_t n,
                                   const rlref_ppo_clip_convention *c, RLREF_CT eps_low,
                                   RLREF_CT eps_high, RLREF_CT dual_c);

/* PPO-CLIP (000 13.12, 003), PPO-DUALCLIP as a library computes them:
 * l_t = logp_t - old_logp_t (clamped to [-20, 20] when
 * c->clip.clamp_log_ratio; 0 at a masked token with c->masked_ratio_one),
 * rho_t = e^l_t,
 *   s_t = min(r_t A_t, clip(rho_t, 1 - eps_low, 1 + eps_high) A_t),
 * r_t = rho_t, or min(rho_t, dual_c) with c->ratio_cap (TRL's delta); with
 * c->clip.dual_clip, for A_t < 0, s_t = max(s_t, dual_c A_t);
 *   loss = -sum_t mask_t s_t / N,  N = sum_t mask_t,
 * surrogate[t] = mask_t s_t, ratio[t] = rho_t, grad[t] = d loss / d logp_t
 * (-A_t rho_t / N where r_t A_t is the active term, 0 where a clip, the
 * cap, the dual bound or the log-ratio clamp binds strictly), clipfrac =
 * the fraction of masked tokens with A < 0 and r < 1 - eps_low or A > 0 and
 * r > 1 + eps_high (clip(rho) A < rho A), rounded to binary32 with
 * c->clipfrac_f32.  The departures c->optimistic (max for min) and
 * c->clip_log (the clip on l: e^clip(l, -eps_low, eps_high)) are the
 * checker's axes.  0 <= eps_low < 1, eps_high >= 0, dual_c > 1 with
 * c->clip.dual_clip, dual_c > 0 with c->ratio_cap (read only then), EDOM
 * otherwise.  surrogate, ratio, grad, clipfrac may be NULL. */
RLREF_WUR int RLREF_FN (ppo_clip_ex) (RLREF_T loss, RLREF_T surrogate, RLREF_T ratio,
                                      RLREF_T grad, RLREF_T clipfrac, RLREF_CT logp,
                                      RLREF_CT old_logp, RLREF_CT adv, const long *mask,
                                      size_t n, const rlref_ppo_clip_ex_convention *c,
                                      RLREF_CT eps_low, RLREF_CT eps_high, RLREF_CT dual_c);

/* PPO-CLIP-EX2 (003): clip(x, a, b) = min(max(x, a), b) for one token:
 * clipped = clip(rho, 1 - eps, 1 + eps), unclipped = rho A, surrogate =
 * min(rho A, clipped A).  rho >= 0, 0 <= eps < 1 (EDOM otherwise). */
RLREF_WUR int RLREF_FN (ppo_clip_one) (RLREF_T clipped, RLREF_T unclipped, RLREF_T surrogate,
                                       RLREF_CT rho, RLREF_CT adv, RLREF_CT eps);

/* PPO-VALUE: with Vc the convention's clipped value (range clip >= 0),
 *   losses[t] = mask_t max((V_t - R_t)^2, (Vc_t - R_t)^2)  (or (V_t - R_t)^2),
 *   loss = k sum_t losses[t] / N,  k = 1/2 (c->half) or 1,
 * grad[t] = d loss / d values_t as autograd forms it (a tie of the squares
 * shares it; the clipped path passes it where the convention's clamp does),
 * clipfrac = the fraction of masked tokens whose clipped square is the
 * larger (rounded to binary32 with c->clipfrac_f32).  With c->masked_zero
 * (TRL) V = V_old = 0 at a masked token and losses[t] = R_t^2 there.
 * old_values and clip are read only by the clipped conventions.  losses,
 * grad, clipfrac may be NULL. */
RLREF_WUR int RLREF_FN (ppo_value_loss) (RLREF_T loss, RLREF_T losses, RLREF_T grad,
                                         RLREF_T clipfrac, RLREF_CT values, RLREF_CT old_values,
                                         RLREF_CT returns, const long *mask, size_t n,
                                         const rlref_ppo_value_convention *c, RLREF_CT clip);

/* PPO-VALUE targets: target[t] = old_values[t] + adv[t] (the GAE return,
 * returns = advantages + values, as every library forms it). */
RLREF_WUR int RLREF_FN (ppo_gae_target) (RLREF_T target, RLREF_CT old_values, RLREF_CT adv,
                                         size_t n);

/* PPO-VALUE targets: the Monte-Carlo return target[t] = sum_{k >= t}
 * gamma^{k - t} rewards[k], gamma >= 0 (EDOM otherwise; usually <= 1). */
RLREF_WUR int RLREF_FN (ppo_mc_return) (RLREF_T target, RLREF_CT rewards, size_t n,
                                        RLREF_CT gamma);

/* PPO-VALUE objective (003; 000's pseudo-code): logits holds T rows of V
 * (one per token); entropy[t] = -sum_a p log p of the softmax of row t,
 * entropy_mean = sum_t mask_t entropy[t] / N (with c->entropy_all_f32,
 * TRL's f32(sum_t entropy[t] / T) over every row);
 *   objective = l_clip - c1 l_vf + c2 entropy_mean,  loss = -objective,
 * l_clip the clipped surrogate objective (maximised), l_vf the value loss.
 * c1, c2 >= 0 (EDOM otherwise).  entropy, objective may be NULL; c NULL
 * is the masked mean. */
RLREF_WUR int RLREF_FN (ppo_objective) (RLREF_T entropy, RLREF_T entropy_mean,
                                        RLREF_T objective, RLREF_T loss, RLREF_CT logits,
                                        size_t V, const long *mask, size_t T, RLREF_CT l_clip,
                                        RLREF_CT l_vf, RLREF_CT c1, RLREF_CT c2,
                                        const rlref_ppo_objective_convention *c);

/* PPO-WHITEN (000 section 3.2): over the masked values, mean mu and
 * std = sqrt(sum (A - mu)^2/(n - ddof)) (with c->bessel_f32 and ddof 1,
 * std = sqrt(sum (A - mu)^2/n f32(n/(n - 1)))); scale = sqrt(var + eps),
 * sqrt(max(var, eps)) or std + eps (c->eps_at);
 *   whitened[t] = (A_t - mu)/scale (+ mu with c->readd_mean),
 * 0 at masked positions with c->zero_masked.  eps >= 0; n - ddof >= 1 and
 * scale > 0 (EDOM otherwise).  mean, std, scale may be NULL. */
RLREF_WUR int RLREF_FN (ppo_whiten) (RLREF_T whitened, RLREF_T mean, RLREF_T std,
                                     RLREF_T scale, RLREF_CT values, const long *mask, size_t n,
                                     const rlref_ppo_whiten_convention *c, RLREF_CT eps);

/* PPO-KLCTL (000 section 3, 003): the adaptive KL coefficient of Ziegler
 * et al. after each of n updates, the mean KL of update k being kl[k]:
 *   err[k] = clip(kl[k]/target - 1, -0.2, 0.2)  (the binary64 0.2),
 *   coef_after[k] = coef_after[k - 1] (1 + err[k] n_steps/horizon),
 * from coef; adaptive 0 is the fixed controller (err 0, the coefficient
 * unchanged).  coef >= 0, n_steps >= 0, target > 0 and horizon > 0 (read
 * only when adaptive). */
RLREF_WUR int RLREF_FN (ppo_kl_controller) (RLREF_T err, RLREF_T coef_after, RLREF_CT kl,
                                            size_t n, RLREF_CT coef, long n_steps,
                                            RLREF_CT target, RLREF_CT horizon, int adaptive);

/* PPO-KLCTL early stop: kl[i] is the mean KL measured on update i; the
 * loop stops at the first kl[i] > factor target_kl, after the update (003:
 * "update theta; stop if mean(KL) > target_kl"; TRL up to 0.11 once per
 * epoch, factor 1.5) or, check_first, before it (Spinning Up,
 * Stable-Baselines3).  updates = the updates taken, stopped = 1 when the
 * loop broke.  target_kl > 0, factor > 0. */
RLREF_WUR int RLREF_FN (ppo_early_stop) (size_t *updates, int *stopped, RLREF_CT kl, size_t n,
                                         RLREF_CT target_kl, RLREF_CT factor, int check_first);

/* PPO-RATIO in binary32 (TRL, verl, OpenRLHF): l = f32(f32(logp) -
 * f32(old_logp)), clamped to [-20, 20] when clamp, ratio = e^l correctly
 * rounded to binary32, log_ratio = l, grad = ratio (0 where the clamp
 * binds strictly).  ERANGE where an input lies beyond the binary32 range
 * or the library's l or e^l is inf (e^l for l > 88.72: TRL's ratio is
 * inf).  log_ratio, grad may be NULL. */
RLREF_WUR int RLREF_FN (ppo_ratio_f32) (RLREF_T ratio, RLREF_T log_ratio, RLREF_T grad,
                                        RLREF_CT logp, RLREF_CT old_logp, size_t n, int clamp);

/* PPO-CLIP, PPO-DUALCLIP in binary32: with a = f32(adv), l and rho as
 * ppo_ratio_f32, lo = f32(1 - eps_low), hi = f32(1 + eps_high) (1 - eps
 * formed in binary64, as Python does), u = f32(a rho), v = f32(a
 * clamp(rho, lo, hi)), s = min(u, v), for a < 0 with the dual clip s =
 * max(s, f32(a f32(c)));
 *   loss = f32(S/N), S the binary32 row sum of -mask_t s_t (torch's order:
 *   for up to 7 terms four accumulators over the groups of four, the rest
 *   added to the first, then ((a0 + a1) + a2) + a3; longer rows left to
 *   right),
 * grad[t] = f32(f32(f32(1/N) (-a)) rho) where rho A is the active term (0
 * where a clip, the dual bound or the clamp binds strictly, half at a tie
 * with the dual bound), clipfrac = f32(k/N).  Statuses as ppo_clip, and
 * ERANGE where the library's ratio, a product or the sum is inf (or a
 * masked token's infinite loss times 0 is NaN: TRL, OpenRLHF). */
RLREF_WUR int RLREF_FN (ppo_clip_f32) (RLREF_T loss, RLREF_T surrogate, RLREF_T ratio,
                                       RLREF_T grad, RLREF_T clipfrac, RLREF_CT logp,
                                       RLREF_CT old_logp, RLREF_CT adv, const long *mask,
                                       size_t n, const rlref_ppo_clip_f32_convention *c,
                                       RLREF_CT eps_low, RLREF_CT eps_high, RLREF_CT dual_c);

/* PPO-TOKREW in binary32, OpenRLHF's compute_approx_kl and compute_reward
 * (log_probs.float(): binary32 whatever the run's dtype): l = f32(f32(logp)
 * - f32(ref)); k1 = l, k2 = f32(l l)/2, k3 = f32(f32(f32(e^f32(-l)) - 1) + l) (an infinite
 * e^-l clamped like the rest), clamped to [-10, 10]; s = f32(clamp(score,
 * -10, 10)); kl[t] = k_t at every token (masked ones too); rewards[t] =
 * f32(s [t = end] + f32(f32(-beta) k_t)) (rewards[t] = f32(-beta) k_t off
 * the end), end the last token of the mask; reward_sum, kl_sum the binary32
 * row sums (torch's order, as ppo_clip_f32).  The convention's flags as
 * ppo_tokrew (beta < 0 as 0
 * with c->beta_floor).  ERANGE where an input or a product lies beyond the
 * binary32 range. */
RLREF_WUR int RLREF_FN (ppo_tokrew_f32) (RLREF_T rewards, RLREF_T kl, RLREF_T reward_sum,
                                         RLREF_T kl_sum, RLREF_CT logp, RLREF_CT ref,
                                         const long *mask, size_t n, RLREF_CT score,
                                         RLREF_CT beta, const rlref_ppo_tokrew_convention *c);

/* PPO-WHITEN in binary32: x = f32(values), mean = f32(S1/N), S1 the
 * binary32 row sum (torch's order, as ppo_clip_f32) of f32(x m); c = f32(x
 * - mean), S2 that of
 * f32(f32(c c) m); TRL and verl (masked_whiten): var = f32(f32(S2/N)
 * f32(N/(N - 1))), scale = f32(sqrt(f32(var + f32(eps)))); OpenRLHF: var
 * = f32(S2/N), scale = f32(sqrt(max(var, f32(eps)))); whitened = f32(c
 * f32(1/scale)) (torch.rsqrt as 1/sqrt), then f32(w + mean) with
 * c->readd_mean, and 0 at masked positions with c->zero_masked (TRL); with
 * c->apply_f64 (OpenRLHF in a float64 run) whitened = (values - mean)
 * f32(1/scale) on the binary64 values instead;
 * std = f32(sqrt(var)).  verl drops a masked square (masked_sum), TRL and
 * OpenRLHF multiply it by 0.  EDOM as ppo_whiten (one masked value for
 * TRL and verl, zero scale); ERANGE where an input lies beyond binary32
 * or a square, a sum or a whitened value is inf in the library.  mean,
 * std, scale may be NULL. */
RLREF_WUR int RLREF_FN (ppo_whiten_f32) (RLREF_T whitened, RLREF_T mean, RLREF_T std,
                                         RLREF_T scale, RLREF_CT values, const long *mask,
                                         size_t n, const rlref_ppo_whiten_f32_convention *c,
                                         RLREF_CT eps);

/* PPO-VALUE in binary32 (c->value.half and a clipped form): v, o, r =
 * f32(values, old_values, returns), c = f32(clip) (v = o = 0 at a masked
 * token with c->value.masked_zero, its square not zeroed); Vc = clamp(v,
 * f32(o - c), f32(o + c)) (TRL; verl's max(min(v, hi), lo)) or f32(o +
 * clamp(f32(v - o), -c, c)) (OpenRLHF); losses[t] = max(f32(d1 d1), f32(d2 d2)), d1 = f32(v - r),
 * d2 = f32(Vc - r); loss = f32(0.5 f32(S/N)), S the row (torch's order)
 * binary32 sum of mask_t losses[t]; grad[t] as autograd forms it, from g =
 * f32(0.5/N): f32(g 2 d) of the larger square, f32(p1 + p2) of the two
 * halves at a tie, the clipped path only where its clamp passes the
 * gradient; clipfrac = f32(k/N).  Statuses as ppo_value_loss, and ERANGE
 * where an input lies beyond binary32 or a square is inf (at a masked
 * token too, inf * 0, for TRL and OpenRLHF). */
RLREF_WUR int RLREF_FN (ppo_value_loss_f32) (RLREF_T loss, RLREF_T losses, RLREF_T grad,
                                             RLREF_T clipfrac, RLREF_CT values,
                                             RLREF_CT old_values, RLREF_CT returns,
                                             const long *mask, size_t n,
                                             const rlref_ppo_value_f32_convention *c,
                                             RLREF_CT clip);
