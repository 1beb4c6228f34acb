/* Declarations of the preference-model formulas, for one backend (no guard). */

/* PREF-BT (13.6): p = sigma(rw - rl). */
int RLREF_FN (bt_prob) (RLREF_T p, RLREF_CT rw, RLREF_CT rl);
/* PREF-BT (13.5): p = e^rw / (e^rw + e^rl), as e^{rw - lse(rw, rl)}. */
int RLREF_FN (bt_prob_softmax) (RLREF_T p, RLREF_CT rw, RLREF_CT rl);
/* PREF-BT (13.5) written naively: e^rw / (e^rw + e^rl); overflows. */
int RLREF_FN (bt_prob_naive) (RLREF_T p, RLREF_CT rw, RLREF_CT rl);
/* PREF-BT-GUMBEL: P(rw + g_w > rl + g_l) for standard Gumbel g, as the
 * integral over x of f(x) F(x + rw - rl), by double-exponential quadrature. */
int RLREF_FN (bt_gumbel_integral) (RLREF_T p, RLREF_CT rw, RLREF_CT rl);

/* PREF-RM-LOSS (13.7): loss = (1/B) sum -log sigma(rw_i - rl_i)
 *   + c (1/B) sum (rw_i + rl_i)^2   (c = 0: plain; c > 0: TRL centring).
 * grad_rw, grad_rl (length B, may be NULL) are the gradients of loss. */
int RLREF_FN (rm_loss) (RLREF_T loss, RLREF_T grad_rw, RLREF_T grad_rl,
                        RLREF_CT rw, RLREF_CT rl, size_t B, RLREF_CT c);
/* RM loss of one pair written naively, log(1 + e^{rl - rw}). */
int RLREF_FN (rm_loss_naive) (RLREF_T loss, RLREF_CT rw, RLREF_CT rl);

/* PREF-MARGIN: loss = -log sigma(rw - rl - m) and its gradients. */
int RLREF_FN (margin_loss) (RLREF_T loss, RLREF_T grad_rw, RLREF_T grad_rl,
                            RLREF_CT rw, RLREF_CT rl, RLREF_CT m);

/* PREF-SMOOTH: loss = -(1 - eps) log sigma(D) - eps log sigma(-D),
 * D = rw - rl, 0 <= eps <= 1, and its gradients. */
int RLREF_FN (smooth_loss) (RLREF_T loss, RLREF_T grad_rw, RLREF_T grad_rl,
                            RLREF_CT rw, RLREF_CT rl, RLREF_CT eps);

/* PREF-ENSEMBLE: mean, variance (ddof 0 or 1), std and the
 * uncertainty-penalised reward mean - lambda * std of K scores (lambda >= 0). */
int RLREF_FN (ensemble) (RLREF_T mean, RLREF_T var, RLREF_T std, RLREF_T penalized,
                         RLREF_CT scores, size_t K, int ddof, RLREF_CT lambda);

/* PREF-PL: log P(ranking) = sum_k [s_{pi_k} - log sum_{j >= k} e^{s_{pi_j}}],
 * ranking a permutation of 0..K-1 (best first); grad = d(-log P)/ds. */
int RLREF_FN (pl_logprob) (RLREF_T logp, RLREF_T grad, RLREF_CT scores,
                           const long *ranking, size_t K);

/* PREF-PL: maximum-likelihood scores (mean zero) of M full rankings of K
 * items (rankings[m*K + k], best first), ranking m observed counts[m] >= 0
 * times; loglik at the maximum.  EDOM when some set of items is never
 * ranked below the rest (no finite maximum). */
int RLREF_FN (pl_mle) (RLREF_T scores, RLREF_T loglik, const long *rankings,
                       RLREF_CT counts, size_t M, size_t K);

/* PREF-BT-MLE: maximum-likelihood scores (mean zero) from an n x n weight
 * matrix, wins[i*n + j] = weight of "i preferred to j"; loglik at the
 * maximum.  EDOM when the comparison graph is not strongly connected. */
int RLREF_FN (bt_mle) (RLREF_T scores, RLREF_T loglik, RLREF_CT wins, size_t n);
