/* Declarations of the MDP formulas, for one backend (no guard).  Every
 * function returns an rlref_status, which the caller must check
 * (RLREF_WUR); an output may be the very storage of an input of the same
 * length (reference/README.md, Aliasing).  rlref/mdp.h describes the
 * layout of P, r and pi. */

/* MDP-RETURN (003 §1): G_t = r_t + gamma G_{t+1}, G_T = 0, for t = 0..T-1,
 * 0 <= gamma <= 1.  Each G_t is carried as an unevaluated sum hi + lo
 * (double-double in binary64) and every step adds its terms by an exactly
 * rounded sum, so the error does not grow with T: G_t is within about one
 * rounding of the exact value plus 2^-2p sum_k gamma^k |r_{t+k}|.  ERANGE
 * where a G_t is beyond the range (written as +-inf). */
RLREF_WUR int RLREF_FN (mdp_return) (RLREF_T G, RLREF_CT r, size_t T, RLREF_CT gamma);
/* MDP-RETURN, the sum form: G_t = sum_{k=0}^{T-1-t} gamma^k r_{t+k}, the
 * powers gamma^k in double-double and all terms of a G_t added by one
 * exactly rounded sum; O(T^2). */
RLREF_WUR int RLREF_FN (mdp_return_sum) (RLREF_T G, RLREF_CT r, size_t T, RLREF_CT gamma);
/* MDP-RETURN as usually written, G_t = r_t + gamma G_{t+1} in plain
 * arithmetic: its error grows with T (kept to measure it). */
RLREF_WUR int RLREF_FN (mdp_return_naive) (RLREF_T G, RLREF_CT r, size_t T, RLREF_CT gamma);

/* MDP-HORIZON: h = sum_{k<H} gamma^k = (1 - gamma^H)/(1 - gamma)
 * (0 <= gamma <= 1, H >= 0; H when gamma = 1), and for H < 0 the infinite
 * horizon 1/(1 - gamma), 0 <= gamma < 1 (gamma = 0.99 gives 100). */
RLREF_WUR int RLREF_FN (mdp_horizon) (RLREF_T h, RLREF_CT gamma, long H);

/* MDP-QL-EX1 (003 §2): the TD target y = r + gamma max_a' q_next[a'] (y = r
 * when done: s' is terminal) and the updated value q + alpha (y - q);
 * 0 <= gamma <= 1, 0 <= alpha <= 1; q_next has n >= 1 values unless done. */
RLREF_WUR int RLREF_FN (mdp_q_update) (RLREF_T target, RLREF_T q_new, RLREF_CT q, RLREF_CT r,
                                       RLREF_CT gamma, RLREF_CT alpha, RLREF_CT q_next,
                                       size_t n, int done);

/* MDP-EGREEDY (003 example 2): the action probabilities p[A] of
 * epsilon-greedy on the values q[A], 0 <= eps <= 1, the greedy action the
 * lowest index of the maximum: INCLUDE p = eps/A, the greedy 1 - eps +
 * eps/A; EXCLUDE p = eps/(A - 1), the greedy 1 - eps (EDOM for A = 1). */
RLREF_WUR int RLREF_FN (mdp_egreedy) (RLREF_T p, RLREF_CT q, size_t A, RLREF_CT eps,
                                      rlref_egreedy_kind kind);

/* MDP-GAE (000 13.11): for B rows of width W, delta_t = r_t + gamma V_{t+1}
 * - V_t and A_t = delta_t + gamma lambda A_{t+1} under convention c
 * (rlref/mdp.h, rlref_gae_conventions): adv and ret (= A + V) have B W
 * values; mask[B W] is 0 or 1; score[B] (NULL: none) is each row's
 * sequence-level reward, placed by the convention; 0 <= gamma, lambda <= 1.
 * The running advantage is carried as hi + lo and each step is an exactly
 * rounded sum, so the error does not grow with W. */
RLREF_WUR int RLREF_FN (mdp_gae) (RLREF_T adv, RLREF_T ret, RLREF_CT rewards, RLREF_CT values,
                                  const unsigned char *mask, RLREF_CT score, size_t B, size_t W,
                                  RLREF_CT gamma, RLREF_CT lambda, rlref_gae_rule c);

/* r[S A] the expected reward r(s, a) = sum_s' P(s' | s, a) R(s, a, s') of
 * a reward R[(s A + a) S + s'] that depends on the next state, each rounded
 * once (src/mdp/mdp_reward.c); ENAN for a non-finite P or R.  r may share
 * storage with P or R only when S = 1. */
RLREF_WUR int RLREF_FN (mdp_expected_reward) (RLREF_T r, RLREF_CT P, RLREF_CT R, size_t S,
                                              size_t A);

/* MDP-VPI (003, Bellman expectation): V^pi[S] of the policy pi[S A],
 * (I - gamma P_pi) V = R_pi over the non-terminal states: GSL's LU in
 * binary64, then iterative refinement in the working precision (the
 * residual an exactly rounded dot product); 0 <= gamma < 1; V = 0 at
 * terminal states. */
RLREF_WUR int RLREF_FN (mdp_vpi) (RLREF_T V, const rlref_mdp *m, RLREF_CT P, RLREF_CT r,
                                  RLREF_CT pi, RLREF_CT gamma);
/* MDP-QPI: Q^pi[S A] = r + gamma P V^pi (0 at terminal states). */
RLREF_WUR int RLREF_FN (mdp_qpi) (RLREF_T Q, const rlref_mdp *m, RLREF_CT P, RLREF_CT r,
                                  RLREF_CT pi, RLREF_CT gamma);

/* MDP-OPT by policy iteration from action 0 everywhere (a state switches
 * only to an action better by more than 2^-(p/2) of |Q|): V*[S], Q*[S A],
 * policy[S] the greedy action of Q* (lowest index among ties), *steps the
 * improvements that changed the policy.  Outputs may be NULL. */
RLREF_WUR int RLREF_FN (mdp_policy_iteration) (RLREF_T V, RLREF_T Q, size_t *policy,
                                               long *steps, const rlref_mdp *m, RLREF_CT P,
                                               RLREF_CT r, RLREF_CT gamma);
/* MDP-OPT by value iteration: k >= 0 sweeps from V_0 = 0 give Vk[S];
 * err[j] = max |V_j - V*| and bound[j] = gamma^j max |V_0 - V*| for
 * j = 0..k (k + 1 values each, or NULL), V* by policy iteration. */
RLREF_WUR int RLREF_FN (mdp_value_iteration) (RLREF_T Vk, RLREF_T err, RLREF_T bound, long k,
                                              const rlref_mdp *m, RLREF_CT P, RLREF_CT r,
                                              RLREF_CT gamma);
/* MDP-OPT by value iteration to a certified fixed point: sweeps until
 * gamma/(1 - gamma) max |V_{j+1} - V_j| <= 2^-(p+2) max |V_{j+1}| (a bound
 * on the distance to V*); V[S] the last iterate, *sweeps their number. */
RLREF_WUR int RLREF_FN (mdp_value_iteration_fixed) (RLREF_T V, long *sweeps, const rlref_mdp *m,
                                                    RLREF_CT P, RLREF_CT r, RLREF_CT gamma);

/* MDP-QL (003 §2): steps (0 to 1e7) of tabular Q-learning from Q = 0 at
 * state start (not terminal), alpha = 1/n(s, a) (Robbins-Monro), the
 * behaviour epsilon-greedy (kind: the draw over all actions or the others)
 * or, with eps NULL, uniformly random; u1, u2, u3 = three
 * gsl_rng_uniform draws per step decide exploration, the action and s'
 * (compared exactly: the same run in binary64 and MPFR, and the same seed
 * gives the same run to the last bit).  A terminal s' ends the episode:
 * y = r and the next step starts at start.  Q[S A] after the run; err
 * (steps + 1 values, or NULL) gets max |Q_t - Q*| for t = 0..steps. */
RLREF_WUR int RLREF_FN (mdp_qlearn) (RLREF_T Q, RLREF_T err, const rlref_mdp *m, RLREF_CT P,
                                     RLREF_CT r, RLREF_CT gamma, size_t start, long steps,
                                     RLREF_CT eps, rlref_egreedy_kind kind, gsl_rng *rng);

/* MDP-PG (003 §2, the policy-gradient theorem; 000 13.2-13.4) on a
 * finite horizon H (1 to 64) with start distribution rho[S] and the
 * tabular softmax policy pi(a|s) = softmax(theta_s), theta[S A]:
 * J = E[sum_{t<H} gamma^t r(s_t, a_t)] and its gradient
 * grad[S A] = sum_t gamma^t sum_s d_t(s) pi(b|s) (Q_t(s, b) - V_t(s));
 * gamma >= 0 (a finite horizon needs no gamma <= 1; the terminal flags
 * of m are not used). */
RLREF_WUR int RLREF_FN (mdp_pg_theorem) (RLREF_T J, RLREF_T grad, const rlref_mdp *m,
                                         RLREF_CT P, RLREF_CT r, RLREF_CT rho, RLREF_CT theta,
                                         RLREF_CT gamma, long H);
/* MDP-PG, REINFORCE: the exact expectation grad[S A] = E g and the
 * variance var = E |g - E g|^2 of the single-trajectory estimator
 * g = sum_t c_t grad log pi(a_t|s_t) (rlref_pg_estimator), every
 * trajectory enumerated (at most 2e5). */
RLREF_WUR int RLREF_FN (mdp_pg_reinforce) (RLREF_T grad, RLREF_T var, const rlref_mdp *m,
                                           RLREF_CT P, RLREF_CT r, RLREF_CT rho, RLREF_CT theta,
                                           RLREF_CT gamma, long H, rlref_pg_estimator est);

/* MDP-PG on the token MDP of a tabular tiny LM (000 13.2-13.4, gamma = 1;
 * additive reward, cut sequences kept): the exact expectation
 * grad[n_rows V] = E g and var = E |g - E g|^2 of the REINFORCE estimator
 * g = sum_t c_t grad log pi(y_t|s_t) with respect to the logits, c_t = r(y)
 * (FULL), the reward to go (TO_GO) or the reward to go minus the prefix's
 * exact value (BASELINE); every sequence enumerated. */
RLREF_WUR int RLREF_FN (mdp_token_reinforce) (RLREF_T grad, RLREF_T var, const rlref_lm *lm,
                                              RLREF_CT logits, RLREF_CT reward,
                                              rlref_pg_estimator est);

/* MDP-SOFT: the soft Bellman recursion on the token MDP of a tabular tiny
 * LM with reference logits ref_logits (additive reward, cut kept, beta >
 * 0): Q(s, a) = r(s, a) + V(s a), V(s) = beta log sum_a pi_ref(a|s)
 * e^{Q(s,a)/beta}; v_root = V(empty prefix), logp_star[n_rows V] =
 * log pi*(a|s) = log pi_ref(a|s) + (Q(s, a) - V(s))/beta. */
RLREF_WUR int RLREF_FN (mdp_soft_bellman) (RLREF_T v_root, RLREF_T logp_star, const rlref_lm *lm,
                                           RLREF_CT ref_logits, RLREF_CT reward, RLREF_CT beta);
/* MDP-SOFT from the sequence level (13.15, 13.17): log_softmax of the
 * logits of lm_pistar_logits, and beta log Z by enumeration. */
RLREF_WUR int RLREF_FN (mdp_soft_sequence) (RLREF_T v_root, RLREF_T logp_star,
                                            const rlref_lm *lm, RLREF_CT ref_logits,
                                            RLREF_CT reward, RLREF_CT beta);

/* The sensitivities sens_k = sum_j |dy_k/dx_j| |x_j| of the formulas above
 * from their own derivatives (as rlref/sens.h's; src/mdp/mdp_sens.c), for
 * the certification: the inputs those of the formula, already accepted by
 * it, and y the values it gave.  MDP-RETURN: s[T] of G[T]. */
RLREF_WUR int RLREF_FN (mdp_return_sens) (RLREF_T s, RLREF_CT r, size_t T, RLREF_CT gamma,
                                          RLREF_CT G);
/* MDP-HORIZON: s of h (H < 0: the infinite horizon). */
RLREF_WUR int RLREF_FN (mdp_horizon_sens) (RLREF_T s, RLREF_CT gamma, long H);
/* MDP-QL-EX1: s_target, s_q_new of target, q_new; *kink = 1 where the
 * maximum of q_next[n] is tied (not differentiable), else 0. */
RLREF_WUR int RLREF_FN (mdp_q_update_sens) (RLREF_T s_target, RLREF_T s_q_new, int *kink,
                                            RLREF_CT q, RLREF_CT r, RLREF_CT gamma,
                                            RLREF_CT alpha, RLREF_CT q_next, size_t n,
                                            int done, RLREF_CT target);
/* MDP-EGREEDY: s[A] of p[A]; jump[A] = 1 at the actions tied for the
 * maximum (their probabilities jump), else 0. */
RLREF_WUR int RLREF_FN (mdp_egreedy_sens) (RLREF_T s, int *jump, RLREF_CT q, size_t A,
                                           RLREF_CT eps, rlref_egreedy_kind kind);
/* MDP-GAE: s_adv, s_ret[N] of adv and ret under convention c (score B
 * values or NULL, adv the advantages it gave). */
RLREF_WUR int RLREF_FN (mdp_gae_sens) (RLREF_T s_adv, RLREF_T s_ret, RLREF_CT rewards,
                                       RLREF_CT values, const long *mask, RLREF_CT score,
                                       size_t N, size_t W, RLREF_CT gamma, RLREF_CT lambda,
                                       RLREF_CT adv, const rlref_gae_convention *c);
