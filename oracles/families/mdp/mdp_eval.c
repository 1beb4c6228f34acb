/* mdp_eval.c -- glue from the registry's inputs to the MDP formulas.
 * Compiled twice (binary64 and MPFR). */
#include <stdlib.h>
#include "family_eval.h"

/* MDP-RETURN: x = rewards[T], gamma; y = G[T]. */
RL_ENTRY (mdp_return)
{
  (void) v;
  return LIB (mdp_return) (y[0], x[0], a->len[0], x[1]);
}

RL_ENTRY (mdp_return_sum)
{
  (void) v;
  return LIB (mdp_return_sum) (y[0], x[0], a->len[0], x[1]);
}

/* MDP-HORIZON infinite: x = gamma; y = 1/(1 - gamma). */
RL_ENTRY (mdp_horizon_inf)
{
  (void) v;
  (void) a;
  return LIB (mdp_horizon) (y[0], x[0], -1);
}

/* MDP-HORIZON finite: x = gamma, H (int); y = sum_{k<H} gamma^k. */
RL_ENTRY (mdp_horizon)
{
  (void) v;
  if (a->iv[1][0] < 0)
    RLREF_ERROR ("H must be >= 0", RLREF_EDOM);
  return LIB (mdp_horizon) (y[0], x[0], a->iv[1][0]);
}

/* MDP-QL-EX1: x = q, r, gamma, alpha, q_next[n]; done (int); y = target, q_new. */
RL_ENTRY (mdp_ql_ex1)
{
  long done = a->iv[5][0];
  (void) v;
  if (done != 0 && done != 1)
    RLREF_ERROR ("done must be 0 or 1", RLREF_EDOM);
  return LIB (mdp_q_update) (y[0], y[1], x[0], x[1], x[2], x[3], a->len[4] ? x[4] : NULL,
                             a->len[4], (int) done);
}

/* MDP-EGREEDY: x = q[A], eps; y = probs[A]. */
RL_ENTRY (mdp_egreedy)
{
  rlref_egreedy_kind kind = *(const rlref_egreedy_kind *) v->data;
  return LIB (mdp_egreedy) (y[0], x[0], a->len[0], x[1], kind);
}

/* MDP-GAE: x = rewards[B W], values[B W]; mask (ints); x = score[B or 0];
 * W (int); the parameters gamma, lambda (x[5], x[6]); y = adv, returns. */
RL_ENTRY (mdp_gae)
{
  const rlref_gae_convention *c = v->data;
  size_t N = a->len[0], W, B;
  unsigned char *mask;
  int status;
  if (a->iv[4][0] <= 0 || N == 0 || N % (size_t) a->iv[4][0])
    RLREF_ERROR ("the rewards are not rows of W", RLREF_EINVAL);
  W = (size_t) a->iv[4][0];
  B = N / W;
  if (a->len[1] != N || a->len[2] != N)
    RLREF_ERROR ("rewards, values and mask differ in length", RLREF_EINVAL);
  if (a->len[3] != 0 && a->len[3] != B)
    RLREF_ERROR ("score has one value per row, or none", RLREF_EINVAL);
  mask = malloc (N);
  if (!mask)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < N; i++)
    {
      long m = a->iv[2][i];
      mask[i] = (unsigned char) (m == 0 || m == 1 ? m : 2);
    }
  status = LIB (mdp_gae) (y[0], y[1], x[0], x[1], mask, a->len[3] ? x[3] : NULL, B, W, x[5],
                          x[6], c->kind);
  free (mask);
  return status;
}

/* --- finite MDPs --------------------------------------------------------- */

/* The MDP of inputs S, A (ints 0, 1), the lengths of P and R (inputs 2, 3)
 * and the terminal states (int array input iterm): *term is allocated (S
 * flags) and freed by the caller.  EDOM for S or A < 1, EINVAL for lengths
 * that do not fit or terminal states out of range or repeated. */
static int
mdp_of (const rl_args *a, size_t iterm, rlref_mdp *m, unsigned char **term)
{
  long S = a->iv[0][0], A = a->iv[1][0];
  *term = NULL;
  if (S < 1 || A < 1)
    RLREF_ERROR ("S and A must be >= 1", RLREF_EDOM);
  if (S > RLREF_MDP_MAX_S || A > RLREF_MDP_MAX_A)
    RLREF_ERROR ("the MDP is too large", RLREF_EINVAL);
  if (a->len[2] != (size_t) (S * A * S) || a->len[3] != (size_t) (S * A))
    RLREF_ERROR ("P must hold S A S values and R S A", RLREF_EINVAL);
  *term = calloc ((size_t) S, 1);
  if (!*term)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < a->len[iterm]; i++)
    {
      long s = a->iv[iterm][i];
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

/* The MDP of MDP-VPI and MDP-QPI (terminal states input 5) and the length
 * of their policy pi (input 4, S A values). */
static int
mdp_with_policy (const rl_args *a, rlref_mdp *m, unsigned char **term)
{
  int status = mdp_of (a, 5, m, term);
  if (status == RLREF_SUCCESS && a->len[4] != m->S * m->A)
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
  int status = mdp_with_policy (a, &m, &term);
  (void) v;
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_vpi) (y[0], &m, x[2], x[3], x[4], x[6]);
  free (term);
  return status;
}

/* MDP-QPI: as MDP-VPI; y = Q[S A]. */
RL_ENTRY (mdp_qpi)
{
  rlref_mdp m;
  unsigned char *term;
  int status = mdp_with_policy (a, &m, &term);
  (void) v;
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_qpi) (y[0], &m, x[2], x[3], x[4], x[6]);
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
  int status = mdp_of (a, 4, &m, &term);
  (void) v;
  if (status == RLREF_SUCCESS && !(pol = calloc (m.S, sizeof *pol)))
    {
      rlref_error ("out of memory", __FILE__, __LINE__, RLREF_ENOMEM);
      status = RLREF_ENOMEM;
    }
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_policy_iteration) (y[0], y[1], pol, &steps, &m, x[2], x[3], x[5]);
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
  long k = a->iv[6][0];
  num_ptr err = NULL, bound = NULL;
  int status = mdp_of (a, 4, &m, &term);
  (void) v;
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
    status = LIB (mdp_policy_iteration) (y[0], NULL, NULL, NULL, &m, x[2], x[3], x[5]);
  if (status == RLREF_SUCCESS)
    status = LIB (mdp_value_iteration) (y[1], err, bound, k, &m, x[2], x[3], x[5]);
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

/* MDP-QL: S, A; x = P, R; terminal; x = gamma (input 5); start, steps,
 * seed (inputs 6, 7, 8); the parameter eps (x[9], egreedy variants);
 * y = Q[S A], error = max |Q - Q*|.  The stream: GSL's mt19937 seeded with
 * seed. */
RL_ENTRY (mdp_ql)
{
  const rlref_egreedy_kind *kind = v->data;
  rlref_mdp m;
  unsigned char *term;
  long start = a->iv[6][0], steps = a->iv[7][0], seed = a->iv[8][0];
  gsl_rng *rng = NULL;
  num_ptr err = NULL;
  int status = mdp_of (a, 4, &m, &term);
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
      status = LIB (mdp_qlearn) (y[0], err, &m, x[2], x[3], x[5], (size_t) start, steps,
                                 kind ? x[9] : NULL, kind ? *kind : RLREF_EGREEDY_INCLUDE,
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
  long S = a->iv[0][0], A = a->iv[1][0];
  rlref_mdp m = { (size_t) (S > 0 ? S : 0), (size_t) (A > 0 ? A : 0), NULL };
  (void) v;
  if (S < 1 || A < 1)
    RLREF_ERROR ("S and A must be >= 1", RLREF_EDOM);
  if (S > RLREF_MDP_MAX_S || A > RLREF_MDP_MAX_A || a->len[2] != (size_t) (S * A * S)
      || a->len[3] != (size_t) (S * A) || a->len[4] != (size_t) S
      || a->len[5] != (size_t) (S * A))
    RLREF_ERROR ("P, R, rho, theta must hold S A S, S A, S, S A values", RLREF_EINVAL);
  return LIB (mdp_pg_theorem) (y[0], y[1], &m, x[2], x[3], x[4], x[5], x[6], a->iv[7][0]);
}

/* MDP-PG REINFORCE: as the theorem; y = grad[S A], var. */
RL_ENTRY (mdp_pg_reinforce)
{
  long S = a->iv[0][0], A = a->iv[1][0];
  rlref_mdp m = { (size_t) (S > 0 ? S : 0), (size_t) (A > 0 ? A : 0), NULL };
  if (S < 1 || A < 1)
    RLREF_ERROR ("S and A must be >= 1", RLREF_EDOM);
  if (S > RLREF_MDP_MAX_S || A > RLREF_MDP_MAX_A || a->len[2] != (size_t) (S * A * S)
      || a->len[3] != (size_t) (S * A) || a->len[4] != (size_t) S
      || a->len[5] != (size_t) (S * A))
    RLREF_ERROR ("P, R, rho, theta must hold S A S, S A, S, S A values", RLREF_EINVAL);
  return LIB (mdp_pg_reinforce) (y[0], y[1], &m, x[2], x[3], x[4], x[5], x[6], a->iv[7][0],
                                 *(const rlref_pg_estimator *) v->data);
}

/* The tabular tiny LM of inputs V, eos, T (ints 0 to 2), logits (input
 * 3) and the additive reward (input 4), cut sequences kept. */
static int
token_lm (const rl_args *a, rlref_lm *lm)
{
  long V = a->iv[0][0];
  if (V < 2 || V > RLREF_LM_MAX_V)
    RLREF_ERROR ("V must be 2 to 64", RLREF_EDOM);
  if (a->len[3] % (size_t) V)
    RLREF_ERROR ("the logits are not rows of V", RLREF_EINVAL);
  if (a->len[4] != (size_t) V + 2)
    RLREF_ERROR ("the reward holds V token rewards, per_length and truncated", RLREF_EINVAL);
  *lm = (rlref_lm) { .V = (int) V, .eos = (int) a->iv[1][0], .T = (int) a->iv[2][0],
                     .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP,
                     .n_rows = a->len[3] / (size_t) V, .reward = RLREF_REWARD_ADDITIVE };
  return rlref_lm_check (lm);
}

/* MDP-PG token-theorem: V, eos, T; x = logits, reward; y = J = E[r],
 * grad = d E[r] / d logits (the library's exact objective gradient). */
RL_ENTRY (mdp_pg_token_theorem)
{
  rlref_lm lm;
  num_t one;
  int status = token_lm (a, &lm);
  (void) v;
  if (status)
    return status;
  num_init (one);
  num_set_d (one, 1.0);
  status = LIB (lm_objective) (y[0], y[1], &lm, x[3], x[3], x[4], one, RLREF_LM_OBJ_REWARD);
  num_clear (one);
  return status;
}

/* MDP-PG token REINFORCE: V, eos, T; x = logits, reward; y = grad, var. */
RL_ENTRY (mdp_pg_token)
{
  rlref_lm lm;
  int status = token_lm (a, &lm);
  if (status)
    return status;
  return LIB (mdp_token_reinforce) (y[0], y[1], &lm, x[3], x[4],
                                    *(const rlref_pg_estimator *) v->data);
}

/* MDP-SOFT: V, eos, T; x = ref_logits, reward, beta; y = v_root,
 * logp_star[n_rows V]. */
RL_ENTRY (mdp_soft)
{
  rlref_lm lm;
  int status = token_lm (a, &lm);
  if (status)
    return status;
  if (v->data)
    return LIB (mdp_soft_sequence) (y[0], y[1], &lm, x[3], x[4], x[5]);
  return LIB (mdp_soft_bellman) (y[0], y[1], &lm, x[3], x[4], x[5]);
}

/* --- sensitivities: the formulas' own derivatives (MPFR only) --------- */

#ifdef RLREF_MP

/* MDP-RETURN: sens G_t = sum_k gamma^k |r_{t+k}| + gamma |dG_t/dgamma|,
 * from A_t = |r_t| + gamma A_{t+1} and
 * gamma dG_t/dgamma = sum_k k gamma^k r_{t+k} = B_t = gamma (G_{t+1} + B_{t+1}). */
rl_sens_mp_fn rl_sens_mdp_return;
int
rl_sens_mdp_return (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                    const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  size_t T = a->len[0];
  num_t A, B, t;
  (void) v;
  (void) nondiff;
  num_init (A);
  num_init (B);
  num_init (t);
  for (size_t k = T; k-- > 0;)
    {
      if (k + 1 < T)
        {
          num_add (t, AT (y[0], k + 1), B);
          num_mul (B, t, x[1]);
        }
      num_mul (A, A, x[1]);
      num_abs (t, AT (x[0], k));
      num_add (A, A, t);
      num_abs (t, B);
      num_add (AT (s[0], k), A, t);
    }
  num_clear (A);
  num_clear (B);
  num_clear (t);
  return RLREF_SUCCESS;
}

/* MDP-HORIZON: sens h = gamma |dh/dgamma|; infinite: gamma/(1 - gamma)^2;
 * finite: sum_{k<H} k gamma^k = gamma (1 - H gamma^{H-1} + (H-1) gamma^H)/(1 - gamma)^2,
 * H (H - 1)/2 at gamma = 1 (evaluated 64 bits above the working precision:
 * the numerator cancels as gamma -> 1). */
rl_sens_mp_fn rl_sens_mdp_horizon;
int
rl_sens_mdp_horizon (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                     const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  mpfr_prec_t p = mpfr_get_prec (x[0]) + 64;
  mpfr_t g, d, t, u;
  long H = a->len[1] ? a->iv[1][0] : -1;
  (void) v;
  (void) y;
  (void) nondiff;
  mpfr_inits2 (p, g, d, t, u, (mpfr_ptr) 0);
  mpfr_set (g, x[0], MPFR_RNDN);
  mpfr_ui_sub (d, 1, g, MPFR_RNDN);
  if (H < 0)
    {
      mpfr_sqr (d, d, MPFR_RNDN);
      mpfr_div (t, g, d, MPFR_RNDN);
    }
  else if (mpfr_cmp_ui (g, 1) == 0)
    {
      mpfr_set_si (t, H, MPFR_RNDN);
      mpfr_mul_si (t, t, H - 1, MPFR_RNDN);
      mpfr_div_2ui (t, t, 1, MPFR_RNDN);
    }
  else if (H < 2 || mpfr_zero_p (g))
    mpfr_set_zero (t, 1);
  else
    {
      mpfr_pow_si (t, g, H - 1, MPFR_RNDN);             /* gamma^{H-1} */
      mpfr_mul (u, t, g, MPFR_RNDN);                    /* gamma^H */
      mpfr_mul_si (u, u, H - 1, MPFR_RNDN);
      mpfr_mul_si (t, t, H, MPFR_RNDN);
      mpfr_sub (u, u, t, MPFR_RNDN);
      mpfr_add_ui (u, u, 1, MPFR_RNDN);
      mpfr_mul (u, u, g, MPFR_RNDN);
      mpfr_sqr (d, d, MPFR_RNDN);
      mpfr_div (t, u, d, MPFR_RNDN);
    }
  mpfr_abs (s[0], t, MPFR_RNDN);
  mpfr_clears (g, d, t, u, (mpfr_ptr) 0);
  return RLREF_SUCCESS;
}

/* MDP-QL-EX1: y = r + gamma m, m = max q_next; q_new = (1 - alpha) q + alpha y.
 * sens y = |r| + 2 gamma |m| (gamma and the maximal q_next); sens q_new =
 * |1 - alpha| |q| + alpha |y - q| + alpha sens y; done: y = r.  A tie for
 * the maximum is a kink: not differentiable. */
rl_sens_mp_fn rl_sens_mdp_ql_ex1;
int
rl_sens_mdp_ql_ex1 (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                    const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  size_t n = a->len[4], best = 0, ties = 0;
  int done = a->iv[5][0] != 0;
  num_t t, u;
  (void) v;
  num_init (t);
  num_init (u);
  if (!done)
    {
      for (size_t j = 1; j < n; j++)
        if (num_cmp (AT (x[4], j), AT (x[4], best)) > 0)
          best = j;
      for (size_t j = 0; j < n; j++)
        ties += num_cmp (AT (x[4], j), AT (x[4], best)) == 0;
    }
  num_abs (s[0], x[1]);
  if (!done)
    {
      num_abs (t, AT (x[4], best));
      num_mul (t, t, x[2]);
      num_mul_2si (t, t, 1);
      num_add (s[0], s[0], t);
    }
  num_d_sub (t, 1.0, x[3]);
  num_abs (t, t);
  num_abs (u, x[0]);
  num_mul (s[1], t, u);
  num_sub (t, y[0], x[0]);
  num_abs (t, t);
  num_mul (t, t, x[3]);
  num_add (s[1], s[1], t);
  num_mul (t, s[0], x[3]);
  num_add (s[1], s[1], t);
  if (ties > 1)
    nondiff[0][0] = nondiff[1][0] = 1;
  num_clear (t);
  num_clear (u);
  return RLREF_SUCCESS;
}

/* MDP-EGREEDY: the probabilities depend on eps alone (and on which action
 * is greedy): include: the greedy eps (1 - 1/A), the others eps/A;
 * exclude: eps and eps/(A - 1).  A tie for the maximum is a jump of the
 * tied actions' probabilities. */
rl_sens_mp_fn rl_sens_mdp_egreedy;
int
rl_sens_mdp_egreedy (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                     const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  rlref_egreedy_kind kind = *(const rlref_egreedy_kind *) v->data;
  size_t A = a->len[0], best = 0, ties = 0;
  num_t o, g;
  (void) y;
  for (size_t j = 1; j < A; j++)
    if (num_cmp (AT (x[0], j), AT (x[0], best)) > 0)
      best = j;
  for (size_t j = 0; j < A; j++)
    ties += num_cmp (AT (x[0], j), AT (x[0], best)) == 0;
  num_init (o);
  num_init (g);
  if (kind == RLREF_EGREEDY_EXCLUDE)
    {
      num_div_si (o, x[1], (long) (A - 1));
      num_set (g, x[1]);
    }
  else
    {
      num_div_si (o, x[1], (long) A);
      num_sub (g, x[1], o);
    }
  for (size_t j = 0; j < A; j++)
    {
      num_set (AT (s[0], j), j == best ? g : o);
      if (ties > 1 && num_cmp (AT (x[0], j), AT (x[0], best)) == 0)
        nondiff[0][j] = 1;
    }
  num_clear (o);
  num_clear (g);
  return RLREF_SUCCESS;
}

/* MDP-GAE: on a row, the convention's active positions t_1 < ... < t_K
 * (all W, the response prefix, or the mask's ones for verl) and the values
 * r', v' it uses; A_i = sum_l c^l delta_{i+l}, c = gamma lambda,
 * delta_i = r'_i + gamma v'_{i+1} - v'_i.  Then
 *   sum_j |dA_i/dr'_j| |r'_j| = R_i = |r'_i| + c R_{i+1} (score and reward
 *     at its slot counted apart),
 *   sum_j |dA_i/dv'_j| |v'_j| = |v'_i| + gamma (1 - lambda) U_i,
 *     U_i = |v'_{i+1}| + c U_{i+1},
 *   lambda dA_i/dlambda = D_i = c (A_{i+1} + D_{i+1}),
 *   gamma dA_i/dgamma = D_i + E_i, E_i = gamma v'_{i+1} + c E_{i+1};
 * returns A + v' drop the |v'_i| term.  A masked verl position repeats the
 * next active one (its return adds |v_t|); padding of the seed's rows is 0. */
rl_sens_mp_fn rl_sens_mdp_gae;
int
rl_sens_mdp_gae (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                 const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  const rlref_gae_convention *c = v->data;
  size_t N = a->len[0], W = (size_t) a->iv[4][0], B = N / W;
  const long *mask = a->iv[2];
  num_ptr w = num_vec_new (12);
  num_ptr cc = AT (w, 0), R = AT (w, 1), U = AT (w, 2), D = AT (w, 3), E = AT (w, 4);
  num_ptr t = AT (w, 5), an = AT (w, 6), vn = AT (w, 7), sa = AT (w, 8), sr = AT (w, 9);
  num_ptr lam1 = AT (w, 10), vabs = AT (w, 11);
  (void) nondiff;
  if (!w)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  num_mul (cc, x[5], x[6]);
  num_d_sub (lam1, 1.0, x[6]);
  num_mul (lam1, lam1, x[5]);                   /* gamma (1 - lambda) */
  for (size_t b = 0; b < B; b++)
    {
      const long *m = mask + b * W;
      size_t n = 0, last = 0;
      int any = 0;
      while (n < W && m[n])
        n++;
      for (size_t q = 0; q < W; q++)
        if (m[q])
          last = q, any = 1;
      if (!any)
        continue;
      num_set_zero (R);
      num_set_zero (U);
      num_set_zero (D);
      num_set_zero (E);
      num_set_zero (an);
      num_set_zero (vn);
      num_set_zero (sa);
      num_set_zero (sr);
      for (size_t q = W; q-- > 0;)
        {
          size_t i = b * W + q;
          int active, keep_r, keep_v, at_score;
          switch (c->kind)
            {
            case RLREF_GAE_SEED:
              active = q < n, keep_r = keep_v = 1;
              at_score = q + 1 == n;
              break;
            case RLREF_GAE_TRL:
              active = 1, keep_r = 1, keep_v = q <= n;
              at_score = q == (n < W ? n : n - 1);
              break;
            case RLREF_GAE_VERL:
              active = m[q] != 0, keep_r = keep_v = 1;
              at_score = q == last;
              break;
            default:
              active = 1, keep_r = keep_v = m[q] != 0;
              at_score = q == last;
              break;
            }
          if (!active)
            {
              if (c->kind == RLREF_GAE_SEED)
                continue;               /* padding: exactly 0 */
              num_set (AT (s[0], i), sa);
              num_abs (t, AT (x[1], i));
              num_add (AT (s[1], i), sa, t);
              continue;
            }
          /* D_i = c (A_{i+1} + D_{i+1}), E_i = gamma v'_{i+1} + c E_{i+1},
             U_i = |v'_{i+1}| + c U_{i+1}, R_i = |r'_i| + c R_{i+1} */
          num_add (t, an, D);
          num_mul (D, cc, t);
          num_mul (E, E, cc);
          num_mul (t, x[5], vn);
          num_add (E, E, t);
          num_mul (U, U, cc);
          num_abs (t, vn);
          num_add (U, U, t);
          num_mul (R, R, cc);
          if (keep_r)
            {
              num_abs (t, AT (x[0], i));
              num_add (R, R, t);
            }
          if (at_score && a->len[3])
            {
              /* OpenRLHF's clamp of the score: constant beyond +-10 */
              num_abs (t, AT (x[3], b));
              if (c->kind != RLREF_GAE_OPENRLHF || num_cmp_d (t, RLREF_GAE_SCORE_CLAMP) <= 0)
                num_add (R, R, t);
            }
          /* sens of A_i and of A_i + v'_i */
          num_mul (sr, lam1, U);
          num_add (sr, sr, R);
          num_add (t, D, E);
          num_abs (t, t);
          num_add (sr, sr, t);
          num_abs (t, D);
          num_add (sr, sr, t);
          if (keep_v)
            num_abs (vabs, AT (x[1], i));
          else
            num_set_zero (vabs);
          num_add (sa, sr, vabs);
          num_set (AT (s[0], i), sa);
          num_set (AT (s[1], i), sr);
          /* for the step before: A_{i+1} and v'_{i+1} */
          num_set (an, AT (y[0], i));
          num_set (vn, keep_v ? AT (x[1], i) : vabs);
        }
    }
  num_vec_free (w, 12);
  return RLREF_SUCCESS;
}

#endif
