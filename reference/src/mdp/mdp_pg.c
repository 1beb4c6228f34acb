/* mdp_pg.c -- the policy-gradient theorem on a finite-horizon MDP and the
 * exact expectation of the REINFORCE estimators (MDP-PG; seed 003 section 2
 * "policy-gradient theorem", seed 000 13.2-13.4), written once for both
 * backends.  The policy is tabular softmax, pi(a|s) = softmax(theta_s), so
 * d log pi(a|s)/d theta_{s,b} = delta_ab - pi(b|s).  Sums over
 * trajectories are compensated (Neumaier): their error does not grow with
 * the number of trajectories. */
#include <stdlib.h>
#include "rlref/num.h"
#include "num_eft.h"
#include "rlref/primitives.h"
#include "rlref/mdp.h"
#include "mdp_impl.h"

/* Trajectories enumerated at most. */
#define PG_MAX_TRAJ 2e5
#define PG_MAX_H 64

/* Checks the finite-horizon MDP of MDP-PG and forms pi = softmax(theta_s). */
static int
pg_check (num_ptr pi, const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr rho,
          num_srcptr theta, num_srcptr gamma, long H)
{
  size_t S, A;
  num_t t;
  int status = RLREF_SUCCESS;
  if (!m || !P || !r || !rho || !theta || m->S == 0 || m->A == 0)
    RLREF_ERROR ("an MDP needs S >= 1 states, A >= 1 actions, P, r, rho and theta",
                 RLREF_EINVAL);
  S = m->S;
  A = m->A;
  if (S > RLREF_MDP_MAX_S || A > RLREF_MDP_MAX_A)
    RLREF_ERROR ("the MDP is too large", RLREF_EINVAL);
  if (H < 1 || H > PG_MAX_H)
    RLREF_ERROR ("H must be 1 to 64", RLREF_EDOM);
  for (size_t i = 0; i < S * A * S; i++)
    if (!num_is_finite (AT (P, i)))
      RLREF_ERROR ("non-finite transition probability", RLREF_ENAN);
  for (size_t i = 0; i < S * A; i++)
    if (!num_is_finite (AT (r, i)) || !num_is_finite (AT (theta, i)))
      RLREF_ERROR ("non-finite reward or logit", RLREF_ENAN);
  for (size_t s = 0; s < S; s++)
    if (!num_is_finite (AT (rho, s)))
      RLREF_ERROR ("non-finite start probability", RLREF_ENAN);
  if (!num_is_finite (gamma))
    RLREF_ERROR ("non-finite gamma", RLREF_ENAN);
  /* a finite horizon needs no gamma <= 1: any gamma >= 0 is a discount */
  if (num_sgn (gamma) < 0)
    RLREF_ERROR ("gamma must be >= 0", RLREF_EDOM);
  num_init (t);
  for (size_t i = 0; i <= S * A && status == RLREF_SUCCESS; i++)
    {
      num_srcptr row = i < S * A ? AT (P, i * S) : rho;
      int ok = 1;
      for (size_t j = 0; j < S; j++)
        ok &= num_sgn (AT (row, j)) >= 0;
      if (ok && (status = num_sum (t, row, S)) == RLREF_SUCCESS)
        {
          num_sub_d (t, t, 1.0);
          num_abs (t, t);
          num_mul_2si (t, t, 52);
          ok = num_cmp_d (t, (double) S) <= 0;
        }
      if (!ok && status == RLREF_SUCCESS)
        {
          status = RLREF_EDOM;
          rlref_error ("a row of P, or rho, is not a probability vector", __FILE__, __LINE__,
                       status);
        }
    }
  num_clear (t);
  if (status)
    return status;
  for (size_t s = 0; s < S && status == RLREF_SUCCESS; s++)
    status = FN (softmax) (AT (pi, s * A), AT (theta, s * A), A);
  return status;
}

/* V_t(s) and Q_t(s, a) with H - t steps left: Q_t = r + gamma P V_{t+1},
 * V_t(s) = sum_a pi(a|s) Q_t(s, a), V_H = 0 (each sum an exactly rounded
 * dot product).  V holds (H + 1) S values, Q H S A. */
static int
pg_values (num_ptr V, num_ptr Q, const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr pi,
           num_srcptr gamma, long H)
{
  size_t S = m->S, A = m->A;
  num_t t;
  int status = RLREF_SUCCESS;
  num_init (t);
  for (size_t s = 0; s < S; s++)
    num_set_zero (AT (V, (size_t) H * S + s));
  for (long k = H; k-- > 0 && status == RLREF_SUCCESS;)
    for (size_t s = 0; s < S && status == RLREF_SUCCESS; s++)
      {
        for (size_t a = 0; a < A && status == RLREF_SUCCESS; a++)
          {
            status = num_dot (t, AT (P, (s * A + a) * S), AT (V, (size_t) (k + 1) * S), S);
            num_fma (AT (Q, ((size_t) k * S + s) * A + a), gamma, t, AT (r, s * A + a));
          }
        if (status == RLREF_SUCCESS)
          status = num_dot (AT (V, (size_t) k * S + s), AT (pi, s * A),
                            AT (Q, ((size_t) k * S + s) * A), A);
      }
  num_clear (t);
  return status;
}

/* MDP-PG, the policy-gradient theorem for a finite horizon H (003 §2):
 *   J = sum_s rho(s) V_0(s),
 *   dJ/dtheta_{s,b} = sum_{t<H} gamma^t d_t(s) pi(b|s) (Q_t(s, b) - V_t(s)),
 * d_0 = rho, d_{t+1}(s') = sum_{s,a} d_t(s) pi(a|s) P(s'|s, a). */
int
FN (mdp_pg_theorem) (num_ptr J, num_ptr grad, const rlref_mdp *m, num_srcptr P, num_srcptr r,
                     num_srcptr rho, num_srcptr theta, num_srcptr gamma, long H)
{
  size_t S, A;
  num_ptr pi = NULL, V = NULL, Q = NULL, d = NULL, dn = NULL, g = NULL, w = NULL;
  num_t gt, t;
  int status;
  if (!m || m->S == 0 || m->A == 0 || m->S > RLREF_MDP_MAX_S || m->A > RLREF_MDP_MAX_A
      || H < 1 || H > PG_MAX_H)
    return pg_check (NULL, m, P, r, rho, theta, gamma, H);
  S = m->S;
  A = m->A;
  num_init (gt);
  num_init (t);
  pi = num_vec_new (S * A);
  V = num_vec_new ((size_t) (H + 1) * S);
  Q = num_vec_new ((size_t) H * S * A);
  d = num_vec_new (S);
  dn = num_vec_new (S * A);
  g = num_vec_new (S * A);
  w = num_vec_new (S * A);
  if (!pi || !V || !Q || !d || !dn || !g || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (pg_check (pi, m, P, r, rho, theta, gamma, H));
  TRY (pg_values (V, Q, m, P, r, pi, gamma, H));
  for (size_t s = 0; s < S; s++)
    num_set (AT (d, s), AT (rho, s));
  num_set_d (gt, 1.0);
  for (long k = 0; k < H; k++)
    {
      for (size_t s = 0; s < S; s++)
        for (size_t b = 0; b < A; b++)
          {
            num_sub (t, AT (Q, ((size_t) k * S + s) * A + b), AT (V, (size_t) k * S + s));
            num_mul (t, t, AT (pi, s * A + b));
            num_mul (t, t, AT (d, s));
            num_fma (AT (g, s * A + b), gt, t, AT (g, s * A + b));
          }
      /* d_{t+1}(u) = sum_{s,a} d_t(s) pi(a|s) P(u|s, a) */
      for (size_t s = 0; s < S; s++)
        for (size_t a = 0; a < A; a++)
          num_mul (AT (dn, s * A + a), AT (d, s), AT (pi, s * A + a));
      for (size_t u = 0; u < S; u++)
        {
          for (size_t i = 0; i < S * A; i++)
            num_set (AT (w, i), AT (P, i * S + u));
          TRY (num_dot (AT (d, u), dn, w, S * A));
        }
      num_mul (gt, gt, gamma);
    }
  TRY (num_dot (t, rho, V, S));
  TRY (mdp_range_check (t, 1));
  TRY (mdp_range_check (g, S * A));
  num_set (J, t);
  for (size_t i = 0; i < S * A; i++)
    num_set (AT (grad, i), AT (g, i));
done:
  num_vec_free (pi, S * A);
  num_vec_free (V, (size_t) (H + 1) * S);
  num_vec_free (Q, (size_t) H * S * A);
  num_vec_free (d, S);
  num_vec_free (dn, S * A);
  num_vec_free (g, S * A);
  num_vec_free (w, S * A);
  num_clear (gt);
  num_clear (t);
  return status;
}

#ifdef RLREF_MP
/* The coefficients c_t of estimator est from the step rewards rew[n]
 * (G_t = rew_t + gamma G_{t+1}), base[t] = V_t(s_t) for the baseline;
 * gp has n + 1 scalars of scratch (the G_t). */
static void
pg_coefs (num_ptr c, num_srcptr rew, num_srcptr base, size_t n, num_srcptr gamma,
          rlref_pg_estimator est, num_ptr gp, num_ptr t)
{
  num_set_zero (AT (gp, n));
  for (size_t k = n; k-- > 0;)
    num_fma (AT (gp, k), gamma, AT (gp, k + 1), AT (rew, k));
  num_set_d (t, 1.0);
  for (size_t k = 0; k < n; k++)
    {
      switch (est)
        {
        case RLREF_PG_FULL:
          num_set (AT (c, k), gp);
          break;
        case RLREF_PG_TO_GO:
          num_mul (AT (c, k), t, AT (gp, k));
          break;
        case RLREF_PG_BASELINE:
          num_sub (AT (c, k), AT (gp, k), AT (base, k));
          num_mul (AT (c, k), t, AT (c, k));
          break;
        default:
          num_set (AT (c, k), AT (gp, k));
          break;
        }
      num_mul (t, t, gamma);
    }
}

/* What the walk over trajectories carries. */
struct pg_walk
{
  const rlref_mdp *m;
  num_srcptr P, r, gamma;
  num_ptr pi, V;                /* the policy, the values V_t(s) */
  long H;
  rlref_pg_estimator est;
  int pass;                     /* 0: the mean; 1: E |g - mean|^2 */
  size_t *st, *ac;              /* the trajectory's states and actions */
  num_ptr prob;                 /* H + 1 prefix probabilities */
  num_ptr rew, base, c, gp, vec, hi, lo, w;   /* scratch and accumulators */
  num_ptr mean;                 /* pass 1: the mean */
};

/* One trajectory's estimate g(tau) into vec, then (pass 0) hi + lo +=
 * p g(tau) per component, or (pass 1) hi + lo += p |g(tau) - mean|^2. */
static void
pg_leaf (struct pg_walk *wk, num_srcptr p)
{
  size_t S = wk->m->S, A = wk->m->A, n = (size_t) wk->H;
  num_ptr t = wk->w, x = AT (wk->w, 3), y = AT (wk->w, 4);
  for (size_t k = 0; k < n; k++)
    {
      num_set (AT (wk->rew, k), AT (wk->r, wk->st[k] * A + wk->ac[k]));
      num_set (AT (wk->base, k), AT (wk->V, k * S + wk->st[k]));
    }
  pg_coefs (wk->c, wk->rew, wk->base, n, wk->gamma, wk->est, wk->gp, t);
  for (size_t i = 0; i < S * A; i++)
    num_set_zero (AT (wk->vec, i));
  for (size_t k = 0; k < n; k++)
    for (size_t b = 0; b < A; b++)
      {
        size_t i = wk->st[k] * A + b;
        num_mul (x, AT (wk->c, k), AT (wk->pi, i));
        num_sub (AT (wk->vec, i), AT (wk->vec, i), x);
        if (b == wk->ac[k])
          num_add (AT (wk->vec, i), AT (wk->vec, i), AT (wk->c, k));
      }
  if (wk->pass == 0)
    for (size_t i = 0; i < S * A; i++)
      {
        num_mul (y, p, AT (wk->vec, i));
        num_comp_add (AT (wk->hi, i), AT (wk->lo, i), y, t);
      }
  else
    for (size_t i = 0; i < S * A; i++)
      {
        num_sub (y, AT (wk->vec, i), AT (wk->mean, i));
        num_sqr (y, y);
        num_mul (y, y, p);
        num_comp_add (wk->hi, wk->lo, y, t);
      }
}

/* Every trajectory from step k in state s with prefix probability prob[k]. */
static void
pg_walk (struct pg_walk *wk, long k, size_t s)
{
  size_t S = wk->m->S, A = wk->m->A;
  for (size_t a = 0; a < A; a++)
    {
      num_ptr pa = AT (wk->prob, k + 1);
      num_mul (pa, AT (wk->prob, k), AT (wk->pi, s * A + a));
      if (num_is_zero (pa))
        continue;
      wk->st[k] = s;
      wk->ac[k] = a;
      if (k + 1 == wk->H)
        pg_leaf (wk, pa);
      else
        for (size_t u = 0; u < S; u++)
          {
            num_srcptr pu = AT (wk->P, (s * A + a) * S + u);
            if (num_is_zero (pu))
              continue;
            /* prob[k+1] = p(prefix) pi(a|s) P(u|s, a) */
            num_mul (AT (wk->prob, k + 1), AT (wk->prob, k), AT (wk->pi, s * A + a));
            num_mul (AT (wk->prob, k + 1), AT (wk->prob, k + 1), pu);
            pg_walk (wk, k + 1, u);
          }
    }
}

/* MDP-PG, REINFORCE (000 13.3-13.4, 003 §2): the exact expectation over
 * every trajectory tau = (s_0, a_0, ..., s_{H-1}, a_{H-1}) of
 *   g(tau) = sum_t c_t grad log pi(a_t|s_t)
 * (c_t of the estimator est, rlref/mdp.h), grad[S A] = E g, and var =
 * E |g - E g|^2 by a second pass.  At most 2e5 trajectories
 * (about 5 s for the certified and the binary64 answers). */
int
FN (mdp_pg_reinforce) (num_ptr grad, num_ptr var, const rlref_mdp *m, num_srcptr P,
                       num_srcptr r, num_srcptr rho, num_srcptr theta, num_srcptr gamma, long H,
                       rlref_pg_estimator est)
{
  struct pg_walk wk = { 0 };
  size_t S, A;
  num_ptr Q = NULL;
  double count;
  int status;
  if (!m || m->S == 0 || m->A == 0 || m->S > RLREF_MDP_MAX_S || m->A > RLREF_MDP_MAX_A
      || H < 1 || H > PG_MAX_H)
    return pg_check (NULL, m, P, r, rho, theta, gamma, H);
  S = m->S;
  A = m->A;
  count = (double) S * (double) A;
  for (long k = 1; k < H; k++)
    count *= (double) S * (double) A;
  if (count > PG_MAX_TRAJ)
    RLREF_ERROR ("more than 2e5 trajectories to enumerate", RLREF_EINVAL);
  wk = (struct pg_walk) { .m = m, .P = P, .r = r, .gamma = gamma, .H = H, .est = est };
  wk.st = calloc ((size_t) H, sizeof *wk.st);
  wk.ac = calloc ((size_t) H, sizeof *wk.ac);
  wk.pi = num_vec_new (S * A);
  wk.V = num_vec_new ((size_t) (H + 1) * S);
  Q = num_vec_new ((size_t) H * S * A);
  wk.prob = num_vec_new ((size_t) H + 1);
  wk.rew = num_vec_new ((size_t) H);
  wk.base = num_vec_new ((size_t) H);
  wk.c = num_vec_new ((size_t) H);
  wk.gp = num_vec_new ((size_t) H + 1);
  wk.vec = num_vec_new (S * A);
  wk.hi = num_vec_new (S * A);
  wk.lo = num_vec_new (S * A);
  wk.mean = num_vec_new (S * A);
  wk.w = num_vec_new (5);
  if (!wk.st || !wk.ac || !wk.pi || !wk.V || !Q || !wk.prob || !wk.rew || !wk.base || !wk.c
      || !wk.gp || !wk.vec || !wk.hi || !wk.lo || !wk.mean || !wk.w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (pg_check (wk.pi, m, P, r, rho, theta, gamma, H));
  TRY (pg_values (wk.V, Q, m, P, r, wk.pi, gamma, H));
  for (wk.pass = 0; wk.pass < 2; wk.pass++)
    {
      for (size_t i = 0; i < S * A; i++)
        {
          num_set_zero (AT (wk.hi, i));
          num_set_zero (AT (wk.lo, i));
        }
      for (size_t s = 0; s < S; s++)
        if (!num_is_zero (AT (rho, s)))
          {
            num_set (wk.prob, AT (rho, s));
            pg_walk (&wk, 0, s);
          }
      if (wk.pass == 0)
        for (size_t i = 0; i < S * A; i++)
          num_add (AT (wk.mean, i), AT (wk.hi, i), AT (wk.lo, i));
    }
  num_add (AT (wk.w, 0), wk.hi, wk.lo);
  TRY (mdp_range_check (wk.w, 1));
  TRY (mdp_range_check (wk.mean, S * A));
  num_set (var, AT (wk.w, 0));
  for (size_t i = 0; i < S * A; i++)
    num_set (AT (grad, i), AT (wk.mean, i));
done:
  free (wk.st);
  free (wk.ac);
  num_vec_free (wk.pi, S * A);
  num_vec_free (wk.V, (size_t) (H + 1) * S);
  num_vec_free (Q, (size_t) H * S * A);
  num_vec_free (wk.prob, (size_t) H + 1);
  num_vec_free (wk.rew, (size_t) H);
  num_vec_free (wk.base, (size_t) H);
  num_vec_free (wk.c, (size_t) H);
  num_vec_free (wk.gp, (size_t) H + 1);
  num_vec_free (wk.vec, S * A);
  num_vec_free (wk.hi, S * A);
  num_vec_free (wk.lo, S * A);
  num_vec_free (wk.mean, S * A);
  num_vec_free (wk.w, 5);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  The terms pi(tau) c_t grad log pi of E g cancel down
 * to the gradient, far below them when a score is large (1e-6 of the
 * answer with a theta of 25.6). */
#include <string.h>
#include "round_once.h"

typedef struct
{
  const rlref_mdp *m;
  long H;
  rlref_pg_estimator est;
} pg_program;

/* x = (P, r, rho, theta, gamma); y = (grad, var). */
static int
pg_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const pg_program *o = ctx;
  size_t S = o->m->S, n = S * o->m->A;
  return rlref_mdp_pg_reinforce_mp (y, y + n, o->m, x, x + n * S, x + n * S + n,
                                    x + n * S + n + S, x + n * S + 2 * n + S, o->H, o->est);
}

int
FN (mdp_pg_reinforce) (num_ptr grad, num_ptr var, const rlref_mdp *m, num_srcptr P,
                       num_srcptr r, num_srcptr rho, num_srcptr theta, num_srcptr gamma, long H,
                       rlref_pg_estimator est)
{
  pg_program o = { m, H, est };
  size_t S, n, nx;
  double *xd;
  int status;
  if (!m || m->S == 0 || m->A == 0 || m->S > RLREF_MDP_MAX_S || m->A > RLREF_MDP_MAX_A
      || H < 1 || H > PG_MAX_H || !P || !r || !rho || !theta)
    return pg_check (NULL, m, P, r, rho, theta, gamma, H);
  if (!grad || !var || !gamma)
    RLREF_ERROR ("an output or gamma is missing", RLREF_EINVAL);
  S = m->S;
  n = S * m->A;
  nx = n * S + 2 * n + S + 1;
  xd = malloc ((nx + n + 1) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, P, n * S * sizeof *xd);
  memcpy (xd + n * S, r, n * sizeof *xd);
  memcpy (xd + n * S + n, rho, S * sizeof *xd);
  memcpy (xd + n * S + n + S, theta, n * sizeof *xd);
  xd[nx - 1] = gamma[0];
  status = rlref_round_once (xd + nx, n + 1, xd, nx, pg_mp, &o,
                             "the REINFORCE expectation and variance");
  if (status == RLREF_SUCCESS)
    {
      memcpy (grad, xd + nx, n * sizeof *grad);
      var[0] = xd[nx + n];
    }
  free (xd);
  return status;
}
#endif
