/* mdp_eval.c -- glue from the registry's inputs to the MDP formulas.
 * Compiled twice (binary64 and MPFR). */
#include <stdlib.h>
#include "family_eval.h"
#include "lm_args.h"

/* MDP-RETURN: x = rewards[T], gamma; y = G[T]. */
RL_ENTRY (mdp_return)
{
  return LIB (mdp_return) (y[0], IN ("rewards"), LEN ("rewards"), IN ("gamma"));
}

RL_ENTRY (mdp_return_sum)
{
  return LIB (mdp_return_sum) (y[0], IN ("rewards"), LEN ("rewards"), IN ("gamma"));
}

/* MDP-HORIZON infinite: x = gamma; y = 1/(1 - gamma). */
RL_ENTRY (mdp_horizon_inf)
{
  (void) a;
  return LIB (mdp_horizon) (y[0], IN ("gamma"), -1);
}

/* MDP-HORIZON finite: x = gamma, H (int); y = sum_{k<H} gamma^k. */
RL_ENTRY (mdp_horizon)
{
  if (INTS ("H")[0] < 0)
    RLREF_ERROR ("H must be >= 0", RLREF_EDOM);
  return LIB (mdp_horizon) (y[0], IN ("gamma"), INTS ("H")[0]);
}

/* MDP-QL-EX1: x = q, r, gamma, alpha, q_next[n]; done (int); y = target, q_new. */
RL_ENTRY (mdp_ql_ex1)
{
  long done = INTS ("done")[0];
  if (done != 0 && done != 1)
    RLREF_ERROR ("done must be 0 or 1", RLREF_EDOM);
  return LIB (mdp_q_update) (y[0], y[1], IN ("q"), IN ("r"), IN ("gamma"), IN ("alpha"),
                             LEN ("q_next") ? IN ("q_next") : NULL,
                             LEN ("q_next"), (int) done);
}

/* MDP-EGREEDY: x = q[A], eps; y = probs[A]. */
RL_ENTRY (mdp_egreedy)
{
  rlref_egreedy_kind kind = *(const rlref_egreedy_kind *) v->data;
  return LIB (mdp_egreedy) (y[0], IN ("q"), LEN ("q"), IN ("eps"), kind);
}

/* MDP-GAE: x = rewards[B W], values[B W]; mask (ints); x = score[B or 0];
 * W (int); the parameters gamma, lambda; y = adv, returns. */
RL_ENTRY (mdp_gae)
{
  const rlref_gae_convention *c = v->data;
  size_t N = LEN ("rewards"), W, B;
  unsigned char *mask;
  int status;
  if (INTS ("W")[0] <= 0 || N == 0 || N % (size_t) INTS ("W")[0])
    RLREF_ERROR ("the rewards are not rows of W", RLREF_EINVAL);
  W = (size_t) INTS ("W")[0];
  B = N / W;
  if (LEN ("values") != N || LEN ("mask") != N)
    RLREF_ERROR ("rewards, values and mask differ in length", RLREF_EINVAL);
  if (LEN ("score") != 0 && LEN ("score") != B)
    RLREF_ERROR ("score has one value per row, or none", RLREF_EINVAL);
  mask = malloc (N);
  if (!mask)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < N; i++)
    {
      long m = INTS ("mask")[i];
      mask[i] = (unsigned char) (m == 0 || m == 1 ? m : 2);
    }
  status = LIB (mdp_gae) (y[0], y[1], IN ("rewards"), IN ("values"), mask,
                          LEN ("score") ? IN ("score") : NULL, B, W, PARAM ("gamma"),
                          PARAM ("lambda"), c->kind);
  free (mask);
  return status;
}

/* --- finite MDPs --------------------------------------------------------- */

/* The MDP of inputs S, A (ints), the lengths of P and R and the terminal
 * states (ints): *term is allocated (S flags) and freed by the caller.
 * EDOM for S or A < 1, EINVAL for lengths that do not fit or terminal
 * states out of range or repeated. */
static int
mdp_of (const rl_variant *v, const rl_args *a, rlref_mdp *m, unsigned char **term)
{
  long S = INTS ("S")[0], A = INTS ("A")[0];
  *term = NULL;
  if (S < 1 || A < 1)
    RLREF_ERROR ("S and A must be >= 1", RLREF_EDOM);
  if (S > RLREF_MDP_MAX_S || A > RLREF_MDP_MAX_A)
    RLREF_ERROR ("the MDP is too large", RLREF_EINVAL);
  if (LEN ("P") != (size_t) (S * A * S) || LEN ("R") != (size_t) (S * A))
    RLREF_ERROR ("P must hold S A S values and R S A", RLREF_EINVAL);
  *term = calloc ((size_t) S, 1);
  if (!*term)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < LEN ("terminal"); i++)
    {
      long s = INTS ("terminal")[i];
      if (s < 0 || s >= S || (*term)[s])
        {
          free (*term);
          *term = NULL;
          RLREF_ERROR ("terminal states must be distinct states", RLREF_EINVAL);
        }
      (*term)[s] = 1;
    }
  *m = (rlref_mdp) { (size_t) S, (size_t) A, *term };
  return RLREF_SUCCESS;
}

/* The MDP of MDP-VPI and MDP-QPI and the length of their policy pi (S A
 * values). */
static int
mdp_with_policy (const rl_variant *v, const rl_args *a, rlref_mdp *m, unsigned char **term)
{
  int status = mdp_of (v, a, m, term);
  if (status == RLREF_SUCCESS && LEN ("pi") != m->S * m->A)
    {
      rlref_error ("pi must hold S A values", __FILE__, __LINE__, RLREF_EINVAL);
      status = RLREF_EINVAL;
    }
  return status;
}

/* MDP-VPI: S, A; x = P, R, pi; terminal; x = gamma (input 6); y = V[S]. */
RL_ENTRY (mdp_vpi)
{
  rlref_mdp m;
  unsigned char *term;
  int status = mdp_with_policy (v, a, &m, &term);
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_vpi) (y[0], &m, IN ("P"), IN ("R"), IN ("pi"), IN ("gamma"));
  free (term);
  return status;
}

/* MDP-QPI: as MDP-VPI; y = Q[S A]. */
RL_ENTRY (mdp_qpi)
{
  rlref_mdp m;
  unsigned char *term;
  int status = mdp_with_policy (v, a, &m, &term);
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_qpi) (y[0], &m, IN ("P"), IN ("R"), IN ("pi"), IN ("gamma"));
  free (term);
  return status;
}

/* MDP-OPT policy iteration: S, A; x = P, R; terminal; x = gamma (input 5);
 * y = V*[S], Q*[S A], policy[S], steps. */
RL_ENTRY (mdp_pi)
{
  rlref_mdp m;
  unsigned char *term;
  size_t *pol = NULL;
  long steps = 0;
  int status = mdp_of (v, a, &m, &term);
  if (status == RLREF_SUCCESS && !(pol = calloc (m.S, sizeof *pol)))
    {
      rlref_error ("out of memory", __FILE__, __LINE__, RLREF_ENOMEM);
      status = RLREF_ENOMEM;
    }
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_policy_iteration) (y[0], y[1], pol, &steps, &m, IN ("P"), IN ("R"),
                                         IN ("gamma"));
  for (size_t s = 0; status == RLREF_SUCCESS && s < m.S; s++)
    num_set_si (AT (y[2], s), (long) pol[s]);
  if (status == RLREF_SUCCESS)
    num_set_si (y[3], steps);
  free (pol);
  free (term);
  return status;
}

/* MDP-OPT value iteration: S, A; x = P, R; terminal; x = gamma (input 5);
 * k (input 6); y = V*[S], V_k[S], error, bound. */
RL_ENTRY (mdp_vi)
{
  rlref_mdp m;
  unsigned char *term;
  long k = INTS ("k")[0];
  num_ptr err = NULL, bound = NULL;
  int status = mdp_of (v, a, &m, &term);
  if (status == RLREF_SUCCESS && (k < 0 || k > 100000))
    {
      rlref_error ("k must be 0 to 100000", __FILE__, __LINE__, RLREF_EDOM);
      status = RLREF_EDOM;
    }
  if (status == RLREF_SUCCESS)
    {
      err = num_vec_new ((size_t) k + 1);
      bound = num_vec_new ((size_t) k + 1);
      if (!err || !bound)
        {
          rlref_error ("out of memory", __FILE__, __LINE__, RLREF_ENOMEM);
          status = RLREF_ENOMEM;
        }
    }
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_policy_iteration) (y[0], NULL, NULL, NULL, &m, IN ("P"), IN ("R"),
                                         IN ("gamma"));
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_value_iteration) (y[1], err, bound, k, &m, IN ("P"), IN ("R"), IN ("gamma"));
  if (status == RLREF_SUCCESS)
    {
      num_set (y[2], AT (err, k));
      num_set (y[3], AT (bound, k));
    }
  if (err)
    num_vec_free (err, (size_t) k + 1);
  if (bound)
    num_vec_free (bound, (size_t) k + 1);
  free (term);
  return status;
}

/* MDP-QL: S, A; x = P, R; terminal; x = gamma; start, steps,
 * seed; the parameter eps (egreedy variants);
 * y = Q[S A], error = max |Q - Q*|.  The stream: GSL's mt19937 seeded with
 * seed. */
RL_ENTRY (mdp_ql)
{
  const rlref_egreedy_kind *kind = v->data;
  rlref_mdp m;
  unsigned char *term;
  long start = INTS ("start")[0], steps = INTS ("steps")[0], seed = INTS ("seed")[0];
  gsl_rng *rng = NULL;
  num_ptr err = NULL;
  int status = mdp_of (v, a, &m, &term);
  if (status == RLREF_SUCCESS && (start < 0 || (size_t) start >= m.S))
    {
      rlref_error ("start is not a state", __FILE__, __LINE__, RLREF_EINVAL);
      status = RLREF_EINVAL;
    }
  if (status == RLREF_SUCCESS && (steps < 0 || steps > 10000000L || seed < 0
                                  || seed > 0xffffffffL))
    {
      rlref_error ("steps must be 0 to 1e7 and seed 0 to 2^32 - 1", __FILE__, __LINE__,
                   RLREF_EDOM);
      status = RLREF_EDOM;
    }
  if (status == RLREF_SUCCESS)
    {
      rng = gsl_rng_alloc (gsl_rng_mt19937);
      err = num_vec_new ((size_t) steps + 1);
      if (!rng || !err)
        {
          rlref_error ("out of memory", __FILE__, __LINE__, RLREF_ENOMEM);
          status = RLREF_ENOMEM;
        }
    }
  if (status == RLREF_SUCCESS)
    {
      gsl_rng_set (rng, (unsigned long) seed);
      status = LIB (mdp_qlearn) (y[0], err, &m, IN ("P"), IN ("R"), IN ("gamma"), (size_t) start,
                                 steps,
                                 kind ? PARAM ("eps") : NULL, kind ? *kind : RLREF_EGREEDY_INCLUDE,
                                 rng);
    }
  if (status == RLREF_SUCCESS)
    num_set (y[1], AT (err, steps));
  if (err)
    num_vec_free (err, (size_t) steps + 1);
  if (rng)
    gsl_rng_free (rng);
  free (term);
  return status;
}

/* MDP-PG theorem: S, A; x = P, R, rho, theta, gamma (inputs 2 to 6); H
 * (input 7); y = J, grad[S A]. */
RL_ENTRY (mdp_pg_theorem)
{
  long S = INTS ("S")[0], A = INTS ("A")[0];
  rlref_mdp m = { (size_t) (S > 0 ? S : 0), (size_t) (A > 0 ? A : 0), NULL };
  if (S < 1 || A < 1)
    RLREF_ERROR ("S and A must be >= 1", RLREF_EDOM);
  if (S > RLREF_MDP_MAX_S || A > RLREF_MDP_MAX_A || LEN ("P") != (size_t) (S * A * S)
      || LEN ("R") != (size_t) (S * A) || LEN ("rho") != (size_t) S
      || LEN ("theta") != (size_t) (S * A))
    RLREF_ERROR ("P, R, rho, theta must hold S A S, S A, S, S A values", RLREF_EINVAL);
  return LIB (mdp_pg_theorem) (y[0], y[1], &m, IN ("P"), IN ("R"), IN ("rho"), IN ("theta"),
                               IN ("gamma"), INTS ("H")[0]);
}

/* MDP-PG REINFORCE: as the theorem; y = grad[S A], var. */
RL_ENTRY (mdp_pg_reinforce)
{
  long S = INTS ("S")[0], A = INTS ("A")[0];
  rlref_mdp m = { (size_t) (S > 0 ? S : 0), (size_t) (A > 0 ? A : 0), NULL };
  if (S < 1 || A < 1)
    RLREF_ERROR ("S and A must be >= 1", RLREF_EDOM);
  if (S > RLREF_MDP_MAX_S || A > RLREF_MDP_MAX_A || LEN ("P") != (size_t) (S * A * S)
      || LEN ("R") != (size_t) (S * A) || LEN ("rho") != (size_t) S
      || LEN ("theta") != (size_t) (S * A))
    RLREF_ERROR ("P, R, rho, theta must hold S A S, S A, S, S A values", RLREF_EINVAL);
  return LIB (mdp_pg_reinforce) (y[0], y[1], &m, IN ("P"), IN ("R"), IN ("rho"), IN ("theta"),
                                 IN ("gamma"), INTS ("H")[0],
                                 *(const rlref_pg_estimator *) v->data);
}

/* The tabular tiny LM of inputs V, eos, T (ints), the logits (the input
 * called logits) and the additive reward, cut sequences kept. */
static int
token_lm (const rl_variant *v, const rl_args *a, const char *logits, rlref_lm *lm)
{
  return rl_lm_of_args (v, a, logits, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE,
                        lm);
}

/* MDP-PG token-theorem: V, eos, T; x = logits, reward; y = J = E[r],
 * grad = d E[r] / d logits (the library's exact objective gradient). */
RL_ENTRY (mdp_pg_token_theorem)
{
  rlref_lm lm;
  num_t one;
  int status = token_lm (v, a, "logits", &lm);
  if (status)
    return status;
  num_init (one);
  num_set_d (one, 1.0);
  status = LIB (lm_objective) (y[0], y[1], &lm, IN ("logits"), IN ("logits"), IN ("reward"), one,
                               RLREF_LM_OBJ_REWARD);
  num_clear (one);
  return status;
}

/* MDP-PG token REINFORCE: V, eos, T; x = logits, reward; y = grad, var. */
RL_ENTRY (mdp_pg_token)
{
  rlref_lm lm;
  int status = token_lm (v, a, "logits", &lm);
  if (status)
    return status;
  return LIB (mdp_token_reinforce) (y[0], y[1], &lm, IN ("logits"), IN ("reward"),
                                    *(const rlref_pg_estimator *) v->data);
}

/* MDP-SOFT: V, eos, T; x = ref_logits, reward, beta; y = v_root,
 * logp_star[n_rows V]. */
RL_ENTRY (mdp_soft)
{
  rlref_lm lm;
  int status = token_lm (v, a, "ref_logits", &lm);
  if (status)
    return status;
  if (v->data)
    return LIB (mdp_soft_sequence) (y[0], y[1], &lm, IN ("ref_logits"), IN ("reward"), IN ("beta"));
  return LIB (mdp_soft_bellman) (y[0], y[1], &lm, IN ("ref_logits"), IN ("reward"), IN ("beta"));
}

/* --- sensitivities: the formulas' own derivatives (MPFR only) --------- */

#ifdef RLREF_MP

/* MDP-RETURN: x = rewards, gamma; y = G. */
rl_sens_mp_fn rl_sens_mdp_return;
int
rl_sens_mdp_return (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                    const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  (void) nondiff;
  return LIB (mdp_return_sens) (s[0], IN ("rewards"), LEN ("rewards"), IN ("gamma"), y[0]);
}

/* MDP-HORIZON: x = gamma; H (int, input 1) for the finite horizon. */
rl_sens_mp_fn rl_sens_mdp_horizon;
int
rl_sens_mdp_horizon (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                     const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  (void) y;
  (void) nondiff;
  return LIB (mdp_horizon_sens) (s[0], IN ("gamma"),
                                 rl_has_input (v, "H") && LEN ("H") ? INTS ("H")[0] : -1);
}

/* MDP-QL-EX1: x = q, r, gamma, alpha, q_next; done (int, input 5);
 * y = target, q_new. */
rl_sens_mp_fn rl_sens_mdp_ql_ex1;
int
rl_sens_mdp_ql_ex1 (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                    const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  int kink, status;
  status = LIB (mdp_q_update_sens) (s[0], s[1], &kink, IN ("q"), IN ("r"), IN ("gamma"),
                                    IN ("alpha"), IN ("q_next"),
                                    LEN ("q_next"), INTS ("done")[0] != 0, y[0]);
  if (kink)
    nondiff[0][0] = nondiff[1][0] = 1;
  return status;
}

/* MDP-EGREEDY: x = q, eps; y = probs. */
rl_sens_mp_fn rl_sens_mdp_egreedy;
int
rl_sens_mdp_egreedy (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                     const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  (void) y;
  return LIB (mdp_egreedy_sens) (s[0], nondiff[0], IN ("q"), LEN ("q"), IN ("eps"),
                                 *(const rlref_egreedy_kind *) v->data);
}

/* MDP-GAE: x = rewards, values; mask (ints, input 2); x = score (input 3,
 * maybe empty); width (int, input 4); x = gamma, lambda; y = adv, ret. */
rl_sens_mp_fn rl_sens_mdp_gae;
int
rl_sens_mdp_gae (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                 const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  (void) nondiff;
  return LIB (mdp_gae_sens) (s[0], s[1], IN ("rewards"), IN ("values"), INTS ("mask"),
                             LEN ("score") ? IN ("score") : NULL,
                             LEN ("rewards"), (size_t) INTS ("W")[0], PARAM ("gamma"),
                             PARAM ("lambda"), y[0], v->data);
}

#endif
