/* Declarations of the length-bias and entropy formulas, for one backend
 * (no guard).  Every function returns an rlref_status, which the caller
 * must check (RLREF_WUR).  Outputs are written last: an output may be the
 * very storage of an input of the same length (reference/README.md,
 * Aliasing). */

/* LEN-WEIGHTS (000 13.24, 13.33; 003 Dr.GRPO): the per-token weight w[i]
 * of each of n responses of lengths lengths[i] > 0, in groups of
 * group_size, under norm; share[i] = lengths[i] w[i], the response's part
 * of the loss; total = sum share.  max_len (L_const > 0) is read by
 * RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM only (else it may be NULL).  EINVAL
 * for n = 0 or groups that do not divide n, EDOM for a length <= 0. */
RLREF_WUR int RLREF_FN (len_weights) (RLREF_T w, RLREF_T share, RLREF_T total,
                                      RLREF_CT lengths, size_t n, size_t group_size,
                                      rlref_len_norm norm, RLREF_CT max_len);

/* LEN-DRIFT (000 section 12.2; 004; 003): on the think-then-answer model
 * with logits[3T] (rlref/len.h), the expected update direction of one
 * group of G,
 *   g = E[sum_i w_i A_i grad log pi(y_i)],
 * (the gradient of the surrogate at the old policy, ratio 1: no clip is
 * active), w_i the token weights of norm over the group (L_const = T), the
 * expectation a finite sum over the groups; and the derivatives along it of
 * E[|y|], of its parts from the terms with A > 0 and A < 0, of E[|y| |
 * correct], E[|y| | wrong], E[r], and the change of E[|y|] after the step
 * theta + eta g: out[RLREF_LEN_NDRIFT] in the order of rlref/len.h.
 * EINVAL for logits not 3T long, T > RLREF_LEN_MAX_T, too many groups;
 * EDOM for G < 1. */
RLREF_WUR int RLREF_FN (len_drift) (RLREF_T out, RLREF_CT logits, size_t n_logits, long G,
                                    rlref_len_norm norm, RLREF_CT eta);

/* ENT-COLLAPSE (000 section 12.3, 13.29-13.31): steps outer steps of
 * exact-gradient training on the think-then-answer model; each takes pi_old
 * = pi_theta and makes mu steps theta <- theta + lr grad L(theta) on the
 * exact expected clipped surrogate
 *   L = E_group[sum_i w_i sum_t min(rho A_i, clip(rho, 1 - eps_low,
 *       1 + eps_high) A_i)],  rho = pi_theta(y_t|s_t)/pi_old(y_t|s_t),
 * the groups from pi_old (only those with 0 < correct < G, renormalised,
 * under dynamic sampling).  entropy0 = H(pi) at the start; entropy[k],
 * acc[k], mean_len[k] = H(pi), E[r], E[|y|] after outer step k + 1.
 * EDOM for lr <= 0, mu < 1, steps < 1, G < 1, or no mixed group; EINVAL
 * for a run longer than RLREF_ENT_MAX_WORK (rlref/len.h). */
RLREF_WUR int RLREF_FN (ent_collapse) (RLREF_T entropy0, RLREF_T entropy, RLREF_T acc,
                                       RLREF_T mean_len, RLREF_CT logits, size_t n_logits,
                                       long G, RLREF_CT lr, long mu, long steps,
                                       const rlref_ent_recipe *recipe);
