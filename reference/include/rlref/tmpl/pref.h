/* Declarations of the preference-model formulas, for one backend (no guard).
 * Every function returns an rlref_status, which the caller must check
 * (RLREF_WUR).  An output may be the very storage of an input of the same
 * length (reference/README.md, Aliasing).  An output is finite wherever
 * its exact value is representable (computations near the ends of the
 * binary64 range are scaled); where it is not, the output is +-inf and
 * the status RLREF_ERANGE (the naive forms excepted: their overflow is
 * what they show). */

/* PREF-BT (13.6): p = sigma(rw - rl). */
RLREF_WUR int RLREF_FN (bt_prob) (RLREF_T p, RLREF_CT rw, RLREF_CT rl);
/* PREF-BT (13.5): p = e^rw / (e^rw + e^rl), as e^{rw - lse(rw, rl)}. */
RLREF_WUR int RLREF_FN (bt_prob_softmax) (RLREF_T p, RLREF_CT rw, RLREF_CT rl);
/* PREF-BT (13.5) written naively: e^rw / (e^rw + e^rl); overflows. */
RLREF_WUR int RLREF_FN (bt_prob_naive) (RLREF_T p, RLREF_CT rw, RLREF_CT rl);
/* PREF-BT-GUMBEL: P(rw + g_w > rl + g_l) for standard Gumbel g, as the
 * integral over x of f(x) F(x + D) dx, by double-exponential quadrature.
 * Its cost grows about as prec^2.7: 0.01 s at 256 bits, 2 s at 2048,
 * 15 s at 4096. */
RLREF_WUR int RLREF_FN (bt_gumbel_integral) (RLREF_T p, RLREF_CT rw, RLREF_CT rl);

/* PREF-RM-LOSS (13.7): loss = (1/B) sum -log sigma(rw_i - rl_i)
 *   + c (1/B) sum (rw_i + rl_i)^2   (c = 0: plain; c > 0: TRL centring).
 * grad_rw, grad_rl (length B, may be NULL) are the gradients of loss. */
RLREF_WUR int RLREF_FN (rm_loss) (RLREF_T loss, RLREF_T grad_rw, RLREF_T grad_rl,
                                  RLREF_CT rw, RLREF_CT rl, size_t B, RLREF_CT c);
/* RM loss of one pair written naively, log(1 + e^{rl - rw}). */
RLREF_WUR int RLREF_FN (rm_loss_naive) (RLREF_T loss, RLREF_CT rw, RLREF_CT rl);

/* PREF-MARGIN: loss = -log sigma(rw - rl - m) and its gradients (may be NULL). */
RLREF_WUR int RLREF_FN (margin_loss) (RLREF_T loss, RLREF_T grad_rw, RLREF_T grad_rl,
                                      RLREF_CT rw, RLREF_CT rl, RLREF_CT m);

/* PREF-SMOOTH: loss = -(1 - eps) log sigma(D) - eps log sigma(-D),
 * D = rw - rl, 0 <= eps <= 1, and its gradients (may be NULL). */
RLREF_WUR int RLREF_FN (smooth_loss) (RLREF_T loss, RLREF_T grad_rw, RLREF_T grad_rl,
                                      RLREF_CT rw, RLREF_CT rl, RLREF_CT eps);

/* PREF-ENSEMBLE: mean, variance (ddof 0 or 1), std and the
 * uncertainty-penalised reward mean - lambda * std of K scores (lambda >= 0);
 * any output may be NULL. */
RLREF_WUR int RLREF_FN (ensemble) (RLREF_T mean, RLREF_T var, RLREF_T std, RLREF_T penalized,
                                   RLREF_CT scores, size_t K, int ddof, RLREF_CT lambda);
/* PREF-ENSEMBLE with the variance as the uncertainty (seed 000 section
 * 10.1): penalized_var = mean - lambda * var (lambda >= 0). */
RLREF_WUR int RLREF_FN (ensemble_var_penalized) (RLREF_T penalized_var, RLREF_CT scores,
                                                 size_t K, int ddof, RLREF_CT lambda);

/* PREF-PL: log P(ranking) = sum_k [s_{pi_k} - log sum_{j >= k} e^{s_{pi_j}}],
 * ranking a permutation of 0..K-1 (best first); grad = d(-log P)/ds (may
 * be NULL). */
RLREF_WUR int RLREF_FN (pl_logprob) (RLREF_T logp, RLREF_T grad, RLREF_CT scores,
                                     const long *ranking, size_t K);

/* PREF-PL: maximum-likelihood scores (mean zero) of M full rankings of K
 * items (rankings[m*K + k], best first), ranking m observed counts[m] >= 0
 * times; loglik (may be NULL) at the maximum.  The scores depend only on
 * the ratios of the counts; loglik is that of the counts as given.  EDOM
 * when some set of items is never ranked below the rest (no finite
 * maximum); ERANGE when the positive counts span more than the binary64
 * exponent range. */
RLREF_WUR int RLREF_FN (pl_mle) (RLREF_T scores, RLREF_T loglik, const long *rankings,
                                 RLREF_CT counts, size_t M, size_t K);

/* PREF-BT-MLE: maximum-likelihood scores (mean zero) from an n x n weight
 * matrix, wins[i*n + j] = weight of "i preferred to j"; loglik (may be
 * NULL) at the maximum.  Scale-invariant in the weights as pl_mle is in
 * its counts.  EDOM when the comparison graph is not strongly connected. */
RLREF_WUR int RLREF_FN (bt_mle) (RLREF_T scores, RLREF_T loglik, RLREF_CT wins, size_t n);

/* PREF-BT-EX (seed 000 section 2.1): the bt_mle fit of two items, wins_w
 * wins of item 0 over item 1 and wins_l of 1 over 0: delta = s_0 - s_1
 * and p = sigma(delta), the fitted probability that item 0 wins. */
RLREF_WUR int RLREF_FN (bt_mle_pair) (RLREF_T delta, RLREF_T p, RLREF_CT wins_w,
                                      RLREF_CT wins_l);
