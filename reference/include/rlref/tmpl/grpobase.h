/* Declarations of the GRPO baseline formulas, for one backend (no guard).
 * Every function returns an rlref_status, which the caller must check
 * (RLREF_WUR).  An output may be the very storage of an input of the same
 * length (reference/README.md, Aliasing).  Masks are 0 or 1 (EDOM
 * otherwise); rewards are laid out as N/G contiguous groups of G. */

/* GRPO-ADV-BOUND (000 section 5): max_i |A_i| of one group of G rewards,
 * A_i = (r_i - mean)/std (std of ddof 0 or 1, eps 0; 0 when the std is 0),
 * and Samuelson's bound sqrt(G - 1) (ddof 0) or (G - 1)/sqrt(G) (ddof 1).
 * EDOM when G - ddof < 1. */
RLREF_WUR int RLREF_FN (grpo_adv_bound) (RLREF_T max_abs, RLREF_T bound, RLREF_CT rewards,
                                         size_t G, int ddof);

/* GRPO-ADV-SCALE (001): A_i = (r_i - mean)/(sigma + eps), sigma the std of
 * ddof 0 or 1; std_adv = the std of the A_i (the same ddof) and ratio =
 * sigma/(sigma + eps), equal, below 1.  EDOM for eps <= 0. */
RLREF_WUR int RLREF_FN (grpo_adv_scale) (RLREF_T std_adv, RLREF_T ratio, RLREF_CT rewards,
                                         size_t G, int ddof, RLREF_CT eps);

/* GRPO-RLOO (13.28): A_i = r_i - (sum_{j != i} r_j)/(G - 1) per group of
 * G, under convention c; each A_i = (c r_i - S)/(c - 1) with c r_i - S
 * rounded once. */
RLREF_WUR int RLREF_FN (rloo_adv) (RLREF_T adv, RLREF_CT rewards, size_t N, size_t G,
                                   enum rlref_rloo_convention c);

/* GRPO-RLOO, TRL to 0.19: the same advantage with the rewards laid out
 * sample-major, response j of prompt q at j (N/G) + q; G = 1, NaN or inf
 * refused. */
RLREF_WUR int RLREF_FN (rloo_adv_strided) (RLREF_T adv, RLREF_CT rewards, size_t N, size_t G);

/* GRPO-RLOO, 000 section 5: loo (13.28), centered = r_i - mean and scale =
 * (G - 1)/G, with r_i - mean = scale * loo exactly.  EDOM for G < 2. */
RLREF_WUR int RLREF_FN (rloo_identity) (RLREF_T loo, RLREF_T centered, RLREF_T scale,
                                        RLREF_CT rewards, size_t N, size_t G);

/* GRPO-RLOO, the KL penalty in the reward (TRL; verl's use_kl_in_reward):
 * penalty_i = beta sum_t mask (logp_old - logp_ref) (k1 summed over the
 * sequence's L positions), and adv = the leave-one-out advantage of the
 * shaped rewards r_i - penalty_i under convention conv (RLREF_RLOO_TRL: a
 * NaN reward stays NaN, advantage 0; the others refuse it). */
RLREF_WUR int RLREF_FN (rloo_kl_reward) (RLREF_T penalty, RLREF_T adv, RLREF_CT rewards,
                                         RLREF_CT logp_old, RLREF_CT logp_ref, const long *mask,
                                         size_t N, size_t L, size_t G, RLREF_CT beta,
                                         enum rlref_rloo_convention conv);

/* GRPO-RLOO, OpenRLHF: the KL penalty after the baseline, penalty_i =
 * beta sum_t mask clamp(logp_old - logp_ref, -10, 10) (k1, clamped per
 * token), adv_i = clamp(loo_i, -10, 10) - penalty_i, loo the leave-one-out
 * advantage (13.28) of the raw rewards.  EDOM for a group of one, ENAN for
 * a NaN or infinite reward. */
RLREF_WUR int RLREF_FN (rloo_kl_reward_after_baseline) (RLREF_T penalty, RLREF_T adv,
                                                        RLREF_CT rewards, RLREF_CT logp_old,
                                                        RLREF_CT logp_ref, const long *mask,
                                                        size_t N, size_t L, size_t G,
                                                        RLREF_CT beta);

/* GRPO-RLOO, TRL's loss: rho_i = exp(sum_t mask (logp - logp_old)) (one
 * ratio per sequence), seq_loss_i = -min(rho_i A_i, clip(rho_i, 1 - eps_low,
 * 1 + eps_high) A_i), loss their mean.  ERANGE where rho overflows. */
RLREF_WUR int RLREF_FN (rloo_seq_loss) (RLREF_T loss, RLREF_T ratio, RLREF_T seq_loss,
                                        RLREF_CT logp, RLREF_CT logp_old, const long *mask,
                                        RLREF_CT adv, size_t N, size_t L, RLREF_CT eps_low,
                                        RLREF_CT eps_high);

/* GRPO-RLOO, OpenRLHF's loss: one ratio per token, rho_t = exp(clamp(logp -
 * logp_old, -20, 20)), l_t = -min(rho_t A_i, clip(rho_t, 1 - eps_low, 1 +
 * eps_high) A_i), loss = the mean of l_t over the masked tokens of all
 * sequences.  EDOM when the mask holds no token. */
RLREF_WUR int RLREF_FN (rloo_token_loss) (RLREF_T loss, RLREF_CT logp, RLREF_CT logp_old,
                                          const long *mask, RLREF_CT adv, size_t N, size_t L,
                                          RLREF_CT eps_low, RLREF_CT eps_high);

/* GRPO-VAR (13.28'): rewards drawn i.i.d. from values[K] with integer
 * weights (sum at most 2^31): sigma2 = their variance, var_mean = sigma2/G,
 * var_loo = sigma2/(G - 1), removed = sigma2/(2G) (what doubling G takes
 * off Var[mean]).  Any output may be NULL.  EDOM for G < 2. */
RLREF_WUR int RLREF_FN (baseline_var) (RLREF_T sigma2, RLREF_T var_mean, RLREF_T var_loo,
                                       RLREF_T removed, RLREF_CT values, const long *weights,
                                       size_t K, long G);

/* GRPO-VAR, Monte Carlo: `trials` groups of G draws from GSL's mt19937
 * (gsl_rng_set (seed)); a draw is the first j with k W < C_j 2^32, k =
 * gsl_rng_get, C_j the cumulative weight, W the total: the same draws in
 * both backends.  var_mean and var_loo are the sample variances (ddof 1)
 * over the trials of the group mean and of the leave-one-out baseline of
 * the group's first draw. */
RLREF_WUR int RLREF_FN (baseline_var_mc) (RLREF_T var_mean, RLREF_T var_loo, RLREF_CT values,
                                          const long *weights, size_t K, long G, long trials,
                                          unsigned long seed);

/* GRPO-STDBIAS (000 section 11): a binary reward with success rate p in
 * [0, 1] and groups of G; E[sum_i A_i grad log pi(y_i)] = weight * grad p,
 * weight = G sum_k C(G-1, k) p^k (1-p)^(G-1-k) (A+(k+1) - A-(k)), A+(K)
 * and A-(K) the advantages of a success and a failure in a group with K
 * successes under convention c (NULL: the leave-one-out advantage, 13.28);
 * per_sample = weight/G.  De Casteljau's algorithm. */
RLREF_WUR int RLREF_FN (stdbias_weight) (RLREF_T weight, RLREF_T per_sample, RLREF_CT p,
                                         long G, const rlref_adv_convention *c);

/* GRPO-REMAX, verl: returns_t = sum_{t' >= t} mask r_t' over each of the
 * B rows of L <= RLREF_REMAX_MAX_L token rewards, adv_t = returns_t -
 * baseline mask_t (the greedy response's reward). */
RLREF_WUR int RLREF_FN (remax_adv) (RLREF_T adv, RLREF_T returns, RLREF_CT token_rewards,
                                    const long *mask, RLREF_CT baselines, size_t B, size_t L);

/* GRPO-REMAX, seed 004: A_i = r_i - greedy_g for the M prompts' groups of
 * N/M rewards. */
RLREF_WUR int RLREF_FN (remax_seq_adv) (RLREF_T adv, RLREF_CT rewards, size_t N,
                                        RLREF_CT greedy, size_t M);

/* GRPO-BASELINE (13.27) on a tiny LM (cut sequences kept, additive
 * reward): value = E[r], grad = d E[r]/d logits (lm_objective), pg =
 * E[(r - b) grad log pi(y)] by enumeration (= grad for every b), sq =
 * E[(r - b)^2 |grad log pi(y)|^2]; grad and pg have n_rows x V elements.
 * At most RLREF_BASELINE_MAX_SEQUENCES sequences. */
RLREF_WUR int RLREF_FN (lm_baseline) (RLREF_T value, RLREF_T grad, RLREF_T pg, RLREF_T sq,
                                      const rlref_lm *lm, RLREF_CT logits, RLREF_CT reward,
                                      RLREF_CT b);
