/* Declarations of the best-of-n and over-optimisation formulas, for one
 * backend (no guard).  Every function returns an rlref_status, which the
 * caller must check (RLREF_WUR).  An output may be the very storage of an
 * input of the same length (reference/README.md, Aliasing). */

/* BON: best-of-n over K outcomes with base probabilities p (finite, >= 0,
 * summing to 1 within RLREF_BON_NORM_TOL; used as p/S) and finite rewards
 * r, n >= 1 draws, the first maximum kept.  With the reward levels v,
 * F(v) = P(r <= v), F(v^-) = P(r < v) and m_v = F(v) - F(v^-):
 *   q_k = p_k Q_v / m_v,  Q_v = F(v)^n - F(v^-)^n  (tied outcomes share
 *     their level's mass in proportion to p),
 *   kl = KL(q || p) = sum_v Q_v log(Q_v / m_v),
 *   bound = log n - (n - 1)/n  (kl <= bound),
 *   win = P(R_q > R_p) + P(R_q = R_p)/2 = sum_v Q_v (F(v^-) + m_v/2).
 * q has K elements; kl, bound and win may be NULL.  EINVAL for K = 0,
 * ENAN for a non-finite p or r, EDOM for a negative p, a sum outside the
 * tolerance or n < 1. */
RLREF_WUR int RLREF_FN (bon_dist) (RLREF_T q, RLREF_T kl, RLREF_T bound, RLREF_T win,
                                   RLREF_CT p, RLREF_CT r, size_t K, long n);

/* BON: the bound log n - (n - 1)/n on KL(best-of-n || base); EDOM for
 * n < 1. */
RLREF_WUR int RLREF_FN (bon_kl_bound) (RLREF_T bound, long n);

/* OVEROPT: with d = sqrt(kl),
 *   RLREF_OVEROPT_BON: value = d (alpha - beta d); peak at
 *     d_star = alpha/(2 beta), peak = alpha d_star / 2 = alpha^2/(4 beta)
 *     when alpha > 0, else d_star = 0, peak = 0 (the curve never rises);
 *   RLREF_OVEROPT_RL: value = d (alpha - beta log d) (0 at d = 0); peak at
 *     d_star = exp(alpha/beta - 1), peak = beta d_star.
 * Any output may be NULL.  ENAN for a non-finite input, EDOM for kl < 0 or
 * beta <= 0, ERANGE (+inf) for a peak beyond the range. */
RLREF_WUR int RLREF_FN (overopt) (RLREF_T d, RLREF_T value, RLREF_T d_star, RLREF_T peak,
                                  RLREF_CT kl, RLREF_CT alpha, RLREF_CT beta,
                                  rlref_overopt_form form);
