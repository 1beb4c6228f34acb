/* Declarations of the KL-regularised optimum on an explicit finite
 * distribution, for one backend (no guard).
 *
 * A problem is n outcomes with reference distribution ref (of the kind
 * RLREF_KLOPT_PROB or RLREF_KLOPT_LOGPROB, rlref/klopt.h), rewards r and
 * beta > 0.  ref is normalised as rlref/klopt.h says (pi_ref = p / sum p,
 * or e^{logp - lse(logp)}); a policy pi of the same kind likewise.  Every
 * output pointer other than the first may be NULL; an output may be the
 * storage of an input of the same length.
 *
 * Errors: EINVAL for n = 0 or a NULL input, an unknown kind; ENAN for a
 * NaN or infinite beta or reward, a NaN or infinite probability, a NaN or
 * +inf log-probability; EDOM for beta <= 0, a negative probability, a
 * distribution with no positive mass or whose sum is not within
 * RLREF_KLOPT_SUM_TOL of 1. */

/* KLOPT-Z (13.15): logz = log Z = log sum_i pi_ref_i e^{r_i/beta}, and
 * z = Z = e^{log Z} where binary64 represents it (Z <= DBL_MAX), +inf
 * beyond, in both backends. */
RLREF_WUR int RLREF_FN (klopt_logz) (RLREF_T logz, RLREF_T z, RLREF_CT ref, int kind,
                                     RLREF_CT r, size_t n, RLREF_CT beta);

/* KLOPT-PISTAR (13.17): pistar[i] = pi_ref_i e^{r_i/beta} / Z (0 where
 * pi_ref_i = 0), logpistar[i] = log pistar[i] (-inf there),
 * er = E_pi*[r] = sum_i pistar_i r_i, kl_star_ref = KL(pi* || pi_ref),
 * kl_ref_star = KL(pi_ref || pi*). */
RLREF_WUR int RLREF_FN (klopt_pistar) (RLREF_T pistar, RLREF_T logpistar, RLREF_T er,
                                       RLREF_T kl_star_ref, RLREF_T kl_ref_star, RLREF_CT ref,
                                       int kind, RLREF_CT r, size_t n, RLREF_CT beta);

/* KLOPT-OBJ (13.8, 13.13): for a policy pi,
 * obj = E_pi[r] - beta KL(pi || pi_ref), er = E_pi[r], kl = KL(pi || pi_ref);
 * kl = +inf and obj = -inf when pi puts mass where pi_ref has none. */
RLREF_WUR int RLREF_FN (klopt_objective) (RLREF_T obj, RLREF_T er, RLREF_T kl, RLREF_CT pi,
                                          RLREF_CT ref, int kind, RLREF_CT r, size_t n,
                                          RLREF_CT beta);

/* KLOPT-OBJ at the optimum: obj_star = E_pi*[r] - beta KL(pi* || pi_ref),
 * (13.13) at pi*, and beta_logz = beta log Z, which it equals. */
RLREF_WUR int RLREF_FN (klopt_optimum) (RLREF_T obj_star, RLREF_T beta_logz, RLREF_CT ref,
                                        int kind, RLREF_CT r, size_t n, RLREF_CT beta);

/* KLOPT-IDENT (13.14-13.16): for a policy pi, obj = E_pi[r] - beta
 * KL(pi || pi_ref), ident = -beta [KL(pi || pi*) - log Z] (formed as
 * beta log Z - beta KL(pi || pi*)), kl_pistar = KL(pi || pi*) >= 0
 * (Gibbs), 0 only at pi = pi*. */
RLREF_WUR int RLREF_FN (klopt_identity) (RLREF_T obj, RLREF_T ident, RLREF_T kl_pistar,
                                         RLREF_CT pi, RLREF_CT ref, int kind, RLREF_CT r,
                                         size_t n, RLREF_CT beta);

/* KL(p || q) = sum_i p_i log(p_i / q_i) of two distributions of the same
 * kind, each normalised; 0 log 0 = 0, +inf where p_i > 0 = q_i. */
RLREF_WUR int RLREF_FN (klopt_kl) (RLREF_T kl, RLREF_CT p, RLREF_CT q, int kind, size_t n);

/* KLOPT-LIMITS, beta -> infinity: pi* -> pi_ref.  pi[i] = pi_ref_i,
 * er = E_pi_ref[r]. */
RLREF_WUR int RLREF_FN (klopt_limit_ref) (RLREF_T pi, RLREF_T er, RLREF_CT ref, int kind,
                                          RLREF_CT r, size_t n);

/* KLOPT-LIMITS, beta -> 0: pi* -> pi_ref restricted to the outcomes A of
 * maximal reward m among those with pi_ref_i > 0, renormalised (ties split
 * in proportion to pi_ref): pi[i] = pi_ref_i / pi_ref(A) for i in A, else
 * 0; er = m. */
RLREF_WUR int RLREF_FN (klopt_limit_argmax) (RLREF_T pi, RLREF_T er, RLREF_CT ref, int kind,
                                             RLREF_CT r, size_t n);

/* KLOPT-LIMITS at a finite beta, the distance of pi* to each limit:
 * tv_ref = (1/2) sum_i |pi*_i - pi_ref_i| (-> 0 as beta -> infinity) and
 * tv_argmax = (1/2) sum_i |pi*_i - pi0_i| = pi*(outside A) (-> 0 as
 * beta -> 0), pi0 the beta -> 0 limit above. */
RLREF_WUR int RLREF_FN (klopt_approach) (RLREF_T tv_ref, RLREF_T tv_argmax, RLREF_CT ref,
                                         int kind, RLREF_CT r, size_t n, RLREF_CT beta);
