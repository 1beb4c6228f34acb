/* Declarations of the KL estimators, for one backend (no guard).  Arrays
 * hold n >= 1 entries; an output pointer may be NULL where said.  ENAN
 * for a NaN or infinite input, EINVAL for an empty input or a NULL array,
 * EDOM outside the domain.  A binary64 output whose exact value lies
 * beyond the binary64 range is +-inf with ERANGE. */

/* KL-K1, KL-K2, KL-K3, KL-VARIANTS: the per-token estimate k[i] of
 * convention c at l_i = logp[i] - ref_logp[i], and grad[i] = d k[i] /
 * d logp[i] (may be NULL).  Exact conventions: k3 = e^-l - 1 + l as the
 * series sum_{n>=2} (-l)^n/n! for |l| < 1/2 (where expm1(-l) + l still
 * loses about log2(2/|l|) bits), expm1(-l) + l beyond (at most 2 bits
 * lost, at |l| = 1/2).  Binary32
 * conventions emulate the library's operations, a log-probability beyond
 * the binary32 range taken as the +-inf a float32 cast makes of it; ERANGE
 * where the library's own value is inf or NaN or its gradient NaN (exp
 * overflowing binary32, inf - inf, 0 times inf in a backward pass).
 * Straight-through conventions: ERANGE where l^2 overflows binary64 (verl's
 * value inf - inf).  A convention with inverted set is the estimator of
 * the inverted ratio, at -l. */
RLREF_WUR int RLREF_FN (kl_estimate) (RLREF_T k, RLREF_T grad, RLREF_CT logp, RLREF_CT ref_logp,
                                      size_t n, const rlref_kl_convention *c);

/* KL-K3 (13.26), one scalar: k = e^-l - 1 + l, by the stable form above. */
RLREF_WUR int RLREF_FN (kl_k3) (RLREF_T k, RLREF_CT l);

/* KL-K3 as commonly written: k = exp(-l) - 1 + l, in the backend's
 * arithmetic (kept to measure its error; see kl_k3_binary64). */
RLREF_WUR int RLREF_FN (kl_k3_naive) (RLREF_T k, RLREF_CT l);

/* KL-K3, the naive form's error: for l = logp[i] - ref_logp[i] (exact),
 *   k[i]       = e^-l - 1 + l,
 *   k_naive[i] = what exp(-l) - 1 + l gives in binary64, each operation
 *                rounded to nearest (l = logp - ref_logp rounded, exp
 *                correctly rounded),
 *   k_expm1[i] = what expm1(-l) + l gives in binary64 (expm1 correctly
 *                rounded),
 *   ulp_naive[i], ulp_expm1[i] = (k_naive - k)/ulp(k), (k_expm1 - k)/ulp(k),
 * ulp(k) = 2^(E - 52) for 2^E <= |k| < 2^(E+1), E >= -1022 (2^-1074 for 0).
 * MPFR emulates binary64 by rounding each step to the nearest double; the
 * binary64 backend computes it with the platform's exp and expm1.  ERANGE
 * where k exceeds the binary64 range.  Outputs other than k may be NULL. */
RLREF_WUR int RLREF_FN (kl_k3_binary64) (RLREF_T k, RLREF_T k_naive, RLREF_T ulp_naive,
                                         RLREF_T k_expm1, RLREF_T ulp_expm1, RLREF_CT logp,
                                         RLREF_CT ref_logp, size_t n);

/* KL-K3 with TRL's use_bias_correction_kl: k[i] = k3(l_i) rho_i, rho_i =
 * e^{logp[i] - old_logp[i]} (the importance ratio to the sampling policy,
 * differentiable), and grad[i] = d k[i] / d logp[i] = (k3' + k3) rho =
 * l_i rho_i (may be NULL). */
RLREF_WUR int RLREF_FN (kl_k3_bias_corrected) (RLREF_T k, RLREF_T grad, RLREF_CT logp,
                                               RLREF_CT ref_logp, RLREF_CT old_logp, size_t n);

/* KL-VARIANTS "full": the exact KL over the vocabulary at one position,
 * p = softmax(logp), p_ref = softmax(ref_logp) (log-probabilities whose
 * exponentials sum to 1 within RLREF_KL_NORM_TOL, else EDOM):
 *   kl = sum_v p_v (log p_v - log p_ref,v),
 *   grad[v] = d kl / d logp[v] = p_v (log p_v - log p_ref,v - kl)
 * (the log-probabilities taken as the logits of the softmax; may be NULL). */
RLREF_WUR int RLREF_FN (kl_full) (RLREF_T kl, RLREF_T grad, RLREF_CT logp, RLREF_CT ref_logp,
                                  size_t n);

/* KL-EXACT on a finite distribution: p (the policy) and p_ref,
 * probabilities (>= 0, each summing to 1 within RLREF_KL_NORM_TOL, else
 * EDOM; p_ref = 0 where p > 0 is EDOM: the KL is infinite), taken as the
 * distributions pi = p/sum p, pi_ref = p_ref/sum p_ref.
 * out[RLREF_KL_NEXACT] (rlref/kl.h) over the outcomes with pi > 0:
 *   KL = sum pi l, E[k] = sum pi k, Var[k] = sum pi (k - E[k])^2,
 *   E[k3] - KL = sum_{pi>0} pi_ref - 1  (0 unless pi_ref has mass where pi has none),
 *   E[k2] - KL = (E[k3] - KL) - sum pi (e^-l - 1 + l - l^2/2),
 * each term pi k3(l) = pi_ref - pi + pi l >= 0. */
RLREF_WUR int RLREF_FN (kl_exact) (RLREF_T out, RLREF_CT p, RLREF_CT p_ref, size_t n);

/* KL-EXACT on the tiny LM: every sequence y of the tabular model lm (cut
 * sequences kept) with policy logits and reference ref_logits; token_sum
 * = 1: each estimator summed over the tokens of y, l_t = log pi(y_t|s_t) -
 * log pi_ref(y_t|s_t) (what the libraries compute for a response); 0: the
 * estimator of the sequence's log-ratio l(y) = sum_t l_t.
 * out[RLREF_KL_NEXACT] as kl_exact; E[k3] - KL is exactly 0 both ways.
 * EINVAL past 1e6 sequences. */
RLREF_WUR int RLREF_FN (kl_exact_lm) (RLREF_T out, const rlref_lm *lm, RLREF_CT logits,
                                      RLREF_CT ref_logits, int token_sum);

/* KL-EXACT for two Gaussians in closed form: out[RLREF_KL_NGAUSS]
 * (rlref/kl.h).  sigma, sigma_ref > 0; EDOM for equal Gaussians (KL = 0:
 * the ratios are undefined).  With x = mu + sigma z, z ~ N(0, 1),
 *   l = c0 + c1 z + c2 z^2,  c0 = -log(rho)/2 + D,  c1 = (mu - mu_ref) sigma /
 *   sigma_ref^2,  c2 = (rho - 1)/2,  rho = sigma^2/sigma_ref^2,
 *   D = (mu - mu_ref)^2 / (2 sigma_ref^2), and every moment in a form
 * without cancellation (kl.c, kl_exact.c). */
RLREF_WUR int RLREF_FN (kl_gauss) (RLREF_T out, RLREF_CT mu, RLREF_CT sigma, RLREF_CT mu_ref,
                                   RLREF_CT sigma_ref);

/* KL-EXACT, the seeded Monte-Carlo run beside kl_gauss: n draws z_i of
 * gsl_ran_gaussian (GSL's MT19937 seeded with seed by gsl_rng_set), the
 * same draws in both backends, x_i = mu + sigma z_i; the sample means and
 * standard deviations (ddof 1, as torch.std) of k1, k2, k3 and their
 * ratios to the exact KL: out[RLREF_KL_NMC].  2 <= n <= RLREF_KL_MC_MAX. */
RLREF_WUR int RLREF_FN (kl_gauss_mc) (RLREF_T out, RLREF_CT mu, RLREF_CT sigma,
                                      RLREF_CT mu_ref, RLREF_CT sigma_ref, long n,
                                      unsigned long seed);

/* KL-GRAD on a softmax over K outcomes: q = softmax(logits), q_ref =
 * softmax(ref_logits), l_y = log q_y - log q_ref,y.  The estimator of
 * convention c (exact arithmetic only, else EINVAL) used as mode says
 * (rlref/kl.h):
 *   value = E_q[k(l_y)],  grad[j] = d/d logits[j] as mode says,
 * with d l_y / d logits[j] = [y = j] - q_j; and the true
 *   kl = KL(q || q_ref), grad_kl[j] = q_j (l_j - kl),
 *   kl_reverse = KL(q_ref || q), grad_kl_reverse[j] = q_j - q_ref,j.
 * The gradients may be NULL. */
RLREF_WUR int RLREF_FN (kl_grad_softmax) (RLREF_T value, RLREF_T grad, RLREF_T kl,
                                          RLREF_T grad_kl, RLREF_T kl_reverse,
                                          RLREF_T grad_kl_reverse, RLREF_CT logits,
                                          RLREF_CT ref_logits, size_t K,
                                          const rlref_kl_convention *c,
                                          rlref_kl_grad_mode mode);
