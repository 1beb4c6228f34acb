/* Declarations of the DPO derivation on an explicit finite outcome set,
 * for one backend (no guard).
 *
 * A problem is n outcomes with reference probabilities p_ref, each finite
 * and > 0 (log(pi/pi_ref) needs pi_ref > 0), whose exact sum S is within
 * RLREF_DPOFINITE_SUM_TOL of 1; pi_ref = p_ref / S.  Rewards r are finite and
 * beta (or tau) finite and > 0.  Every output may be the storage of an
 * input of the same length.
 *
 * Identities whose exact value is 0 (the residual of 13.18, the gradient at
 * the minimiser) are computed with a bound on their rounding error,
 * 2^(10 - p) times the magnitudes that enter them (p = 53 or the working
 * precision): a computed value within its bound is written as 0, anything
 * else as computed.
 *
 * Errors: EINVAL for a NULL or empty input, lengths that do not fit, n
 * outside [2, RLREF_DPOFINITE_MAX_N] for a population loss; ENAN for a NaN or
 * infinite input; EDOM for beta or tau <= 0, a p_ref_i <= 0, a sum not
 * within the tolerance, w = l, a P_ij < 0 or P_ij + P_ji not within the
 * tolerance of 1 (each pair is then normalised, P_ij / (P_ij + P_ji)), and a DPO loss with no finite minimiser. */

/* DPO-IMPLICIT-R (13.17, 13.18): pistar[i] = pi_ref_i e^{r_i/beta} / Z,
 * logz = log Z, r_hat[i] = beta log(pi*_i / pi_ref_i) + beta log Z,
 * residual[i] = r_hat[i] - r_i (0 within its rounding bound). */
RLREF_WUR int RLREF_FN (dpofinite_implicit) (RLREF_T pistar, RLREF_T logz, RLREF_T r_hat,
                                          RLREF_T residual, RLREF_CT p_ref, RLREF_CT r,
                                          size_t n, RLREF_CT beta);

/* DPO-ZCANCEL (13.19, 13.20) for outcomes w != l: h_w = log(pi*_w /
 * pi_ref_w), h_l likewise, margin = beta (h_w - h_l) (= r_w - r_l: log Z
 * cancels), reward_diff = r_w - r_l, p_policy = sigma(margin), p_reward =
 * sigma(r_w - r_l), logz = log Z. */
RLREF_WUR int RLREF_FN (dpofinite_zcancel) (RLREF_T h_w, RLREF_T h_l, RLREF_T margin,
                                         RLREF_T reward_diff, RLREF_T p_policy,
                                         RLREF_T p_reward, RLREF_T logz, RLREF_CT p_ref,
                                         RLREF_CT r, size_t n, RLREF_CT beta, size_t w,
                                         size_t l);

/* DPO-EQUIV, Bradley-Terry preferences P_ij = sigma(r_i - r_j) (13.6):
 * the minimiser of the population DPO loss
 *   L(h) = sum_{i != j} pi_ref_i pi_ref_j P_ij (-log sigma(beta (h_i - h_j))),
 * h = log(pi/pi_ref), is pi* of 13.17.  logpi[i] = log pi*_i, h[i] =
 * log(pi*_i / pi_ref_i), loss = L(h*), grad_norm = |dL/dtheta| at pi*
 * (theta the logits of pi; 0), kl = KL(pi* || pi_ref). */
RLREF_WUR int RLREF_FN (dpofinite_equiv_bt) (RLREF_T logpi, RLREF_T h, RLREF_T loss,
                                          RLREF_T grad_norm, RLREF_T kl, RLREF_CT p_ref,
                                          RLREF_CT r, size_t n, RLREF_CT beta);

/* DPO-EQUIV for a preference matrix P (n x n by rows, P_ij = probability
 * that i is preferred to j; the diagonal is not read): the minimiser of
 *   L(h) = sum_{i != j} pi_ref_i pi_ref_j P_ij l(h_i - h_j),
 * l of the kind loss (enum rlref_dpofinite_loss) with s = beta or tau.  DPO:
 * Newton's method on the scores beta h (a Bradley-Terry likelihood with
 * counts pi_ref_i pi_ref_j P_ij), EDOM when the graph of P_ij > 0 is not
 * strongly connected (no finite minimiser).  IPO: the normal equations, a
 * graph-Laplacian system.  Outputs as rlref_dpofinite_equiv_bt. */
RLREF_WUR int RLREF_FN (dpofinite_equiv) (RLREF_T logpi, RLREF_T h, RLREF_T loss,
                                       RLREF_T grad_norm, RLREF_T kl, RLREF_CT p_ref,
                                       RLREF_CT P, size_t n, RLREF_CT s, int loss_kind);
