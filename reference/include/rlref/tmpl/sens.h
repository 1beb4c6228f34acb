/* Declarations of the formulas' own derivatives, for one backend (no
 * guard).  They give the sensitivity sens_k = sum_j |df_k/dx_j| |x_j| that
 * the certification otherwise measures by central differences
 * (rlref/certify.h), from an analytic derivative or, for the
 * maximum-likelihood fits, the implicit function theorem at the optimum.
 * Matrices are stored by rows. */

/* PREF-BT-GUMBEL: dp = dP/d(rw - rl) = int f(x) f(x + D) dx, D = rw - rl,
 * f the standard Gumbel density (the density of g_l - g_w at D), by
 * double-exponential quadrature.  dP/drw = dp, dP/drl = -dp. */
RLREF_WUR int RLREF_FN (bt_gumbel_deriv) (RLREF_T dp, RLREF_CT rw, RLREF_CT rl);

/* The derivative X = ds/dtheta (K x P) of the minimiser s(theta), mean
 * zero, of a convex shift-invariant objective F(s; theta): with H (K x K)
 * its Hessian in s at the minimiser (H 1 = 0) and B (K x P) the mixed
 * derivatives d(grad_s F)/dtheta (columns summing to 0), the stationarity
 * grad_s F = 0 gives H X = -B, and the gauge 1^T X = 0 makes
 * X = -(H + 1 1^T)^-1 B.  EDOM when H + 1 1^T is singular (the minimiser
 * is not unique).  X must not overlap H or B. */
RLREF_WUR int RLREF_FN (fit_jacobian) (RLREF_T X, RLREF_CT H, RLREF_CT B, size_t K,
                                       size_t P);

/* PREF-BT-MLE: the Jacobian J ((n + 1) x n^2) of the fit of rlref_bt_mle
 * at its result `scores': J[k][i n + j] = d scores_k / d wins_ij (k < n)
 * by fit_jacobian, and J[n][i n + j] = d loglik / d wins_ij
 * = log sigma(s_i - s_j) (i != j) by the envelope theorem.  EDOM when
 * scores is not the maximum (gradient above 2^-(prec/2) of the weights). */
RLREF_WUR int RLREF_FN (bt_mle_jacobian) (RLREF_T J, RLREF_CT scores, RLREF_CT wins,
                                          size_t n);

/* PREF-PL mle: the Jacobian J ((K + 1) x M) of the fit of rlref_pl_mle at
 * its result `scores': J[k][m] = d scores_k / d counts_m (k < K) by
 * fit_jacobian, and J[K][m] = d loglik / d counts_m = log P(ranking m) by
 * the envelope theorem.  EDOM when scores is not the maximum. */
RLREF_WUR int RLREF_FN (pl_mle_jacobian) (RLREF_T J, RLREF_CT scores, const long *rankings,
                                          RLREF_CT counts, size_t M, size_t K);

/* sens_k = sum_j |J_kj| |x_j| for J (ny x nx); sens may not overlap J or x. */
RLREF_WUR int RLREF_FN (sens_of_jacobian) (RLREF_T sens, RLREF_CT J, RLREF_CT x, size_t ny,
                                           size_t nx);
