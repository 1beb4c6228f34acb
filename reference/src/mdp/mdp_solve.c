/* mdp_solve.c -- Bellman expectation and optimality on a finite MDP
 * (MDP-VPI, MDP-QPI, MDP-OPT; seed 003 section 1), written once for both
 * backends.
 *
 * Policy evaluation solves (I - gamma P_pi) V = R_pi over the non-terminal
 * states: GSL's LU factorisation in binary64 gives x_0, and iterative
 * refinement in the working precision, x <- x + LU^-1 (b - M x) with the
 * residual an exactly rounded dot product, converges to the solution of the
 * system as formed in that precision (one source for both backends; in
 * binary64 it polishes GSL's solution to about one rounding).  M is
 * strictly diagonally dominant (its rows' off-diagonal mass is at most
 * gamma < 1), so the LU needs no luck and the refinement contracts by
 * about cond(M) 2^-53 <= (1 + gamma)/(1 - gamma) 2^-53 per step. */
#include <stdlib.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include "rlref/num.h"
#include "rlref/mdp.h"
#include "mdp_impl.h"

/* Refinement steps before EMAXITER (each gains about 53 - log2 cond(M)
 * bits; 4096 bits at cond 1e10 take about 200). */
#define REFINE_MAX_ITER 400
/* Policy-iteration improvements before EMAXITER. */
#define PI_MAX_ITER 10000

/* 1 when the n numbers of row form a probability vector: each >= 0 and
 * the sum within n 2^-52 of 1 (sum exactly rounded). */
static int
prob_row (num_srcptr row, size_t n, num_ptr t, int *status)
{
  for (size_t j = 0; j < n; j++)
    if (num_sgn (AT (row, j)) < 0)
      return 0;
  if ((*status = num_sum (t, row, n)) != RLREF_SUCCESS)
    return 0;
  num_sub_d (t, t, 1.0);
  num_abs (t, t);
  num_mul_2si (t, t, 52);
  return num_cmp_d (t, (double) n) <= 0;
}

/* Checks the MDP: sizes, finite P, r (and pi when not NULL), the rows of
 * P and pi of the non-terminal states probability vectors, the terminal
 * states' rows of P and r zero, gamma in [0, 1). */
static int
check_mdp (const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr pi, num_srcptr gamma)
{
  size_t S, A;
  num_t t;
  int status = RLREF_SUCCESS, ok = 1;
  if (!m || !P || !r || m->S == 0 || m->A == 0)
    RLREF_ERROR ("an MDP needs S >= 1 states, A >= 1 actions, P and r", RLREF_EINVAL);
  S = m->S;
  A = m->A;
  if (S > RLREF_MDP_MAX_S || A > RLREF_MDP_MAX_A)
    RLREF_ERROR ("the MDP is larger than RLREF_MDP_MAX_S states or RLREF_MDP_MAX_A actions",
                 RLREF_EINVAL);
  for (size_t i = 0; i < S * A * S; i++)
    if (!num_is_finite (AT (P, i)))
      RLREF_ERROR ("non-finite transition probability", RLREF_ENAN);
  for (size_t i = 0; i < S * A; i++)
    if (!num_is_finite (AT (r, i)) || (pi && !num_is_finite (AT (pi, i))))
      RLREF_ERROR ("non-finite reward or policy probability", RLREF_ENAN);
  if (!num_is_finite (gamma))
    RLREF_ERROR ("non-finite gamma", RLREF_ENAN);
  if (num_sgn (gamma) < 0 || num_cmp_d (gamma, 1.0) >= 0)
    RLREF_ERROR ("gamma must lie in [0, 1) for an infinite horizon", RLREF_EDOM);
  num_init (t);
  for (size_t s = 0; s < S && ok && status == RLREF_SUCCESS; s++)
    {
      int term = m->terminal && m->terminal[s];
      for (size_t a = 0; a < A && ok && status == RLREF_SUCCESS; a++)
        {
          num_srcptr row = AT (P, (s * A + a) * S);
          if (term)
            {
              for (size_t j = 0; j < S; j++)
                if (!num_is_zero (AT (row, j)))
                  ok = 0;
              if (!num_is_zero (AT (r, s * A + a)))
                ok = 0;
              if (!ok)
                {
                  status = RLREF_EINVAL;
                  rlref_error ("a terminal state has transitions or rewards (its rows of P and R are 0: "
                               "the episode ends there, with value 0)", __FILE__,
                               __LINE__, status);
                }
            }
          else if (!prob_row (row, S, t, &status) && status == RLREF_SUCCESS)
            {
              ok = 0;
              status = RLREF_EDOM;
              rlref_error ("a row of P is not a probability vector (entries >= 0, sum 1 "
                           "within S 2^-52)", __FILE__, __LINE__, status);
            }
        }
      if (ok && status == RLREF_SUCCESS && pi && !term
          && !prob_row (AT (pi, s * A), A, t, &status) && status == RLREF_SUCCESS)
        {
          ok = 0;
          status = RLREF_EDOM;
          rlref_error ("a row of pi is not a probability vector (entries >= 0, sum 1 within "
                       "A 2^-52)", __FILE__, __LINE__, status);
        }
    }
  num_clear (t);
  return status;
}

/* The LU factors of the n x n binary64 matrix a (row-major), by GSL, with
 * GSL's error handler off for the call. */
struct lu
{
  gsl_matrix *m;
  gsl_permutation *p;
  gsl_vector *b, *x;
};

static void
lu_free (struct lu *f)
{
  if (f->m)
    gsl_matrix_free (f->m);
  if (f->p)
    gsl_permutation_free (f->p);
  if (f->b)
    gsl_vector_free (f->b);
  if (f->x)
    gsl_vector_free (f->x);
}

static int
lu_factor (struct lu *f, const double *a, size_t n)
{
  gsl_error_handler_t *old;
  int sign, gs;
  *f = (struct lu) { gsl_matrix_alloc (n, n), gsl_permutation_alloc (n), gsl_vector_alloc (n),
                     gsl_vector_alloc (n) };
  if (!f->m || !f->p || !f->b || !f->x)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      gsl_matrix_set (f->m, i, j, a[i * n + j]);
  old = gsl_set_error_handler_off ();
  gs = gsl_linalg_LU_decomp (f->m, f->p, &sign);
  for (size_t i = 0; gs == 0 && i < n; i++)
    if (gsl_matrix_get (f->m, i, i) == 0.0)
      gs = GSL_ESING;
  gsl_set_error_handler (old);
  if (gs)
    RLREF_ERROR ("singular matrix (GSL LU)", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* x = LU^-1 b in binary64 (b, x of n doubles). */
static int
lu_solve (struct lu *f, const double *b, double *x, size_t n)
{
  gsl_error_handler_t *old;
  int gs;
  for (size_t i = 0; i < n; i++)
    gsl_vector_set (f->b, i, b[i]);
  old = gsl_set_error_handler_off ();
  gs = gsl_linalg_LU_solve (f->m, f->p, f->b, f->x);
  gsl_set_error_handler (old);
  if (gs)
    RLREF_ERROR ("GSL LU solve failed", RLREF_EDOM);
  for (size_t i = 0; i < n; i++)
    x[i] = gsl_vector_get (f->x, i);
  return RLREF_SUCCESS;
}

/* Solves M x = b (n x n, row-major, vectors of the backend): x_0 from
 * GSL's LU of M rounded to binary64, then x <- x + d, d = LU^-1 res,
 * res_i = b_i - sum_j M_ij x_j one exactly rounded dot product, until
 * max |d| <= 2^-(p+2) max |x| or |d| stops halving after it is below
 * 2^-(p-8) max |x| (rounding noise); EMAXITER otherwise. */
static int
refine_solve (num_ptr x, num_srcptr Mm, num_srcptr b, size_t n)
{
  struct lu f = { 0 };
  double *ad = NULL, *bd = NULL, *xd = NULL;
  num_ptr row = NULL, xb = NULL, res = NULL;
  num_t dmax, xmax, prev, t;
  long p = num_prec (), e;
  int status = RLREF_SUCCESS, iter;
  num_init (dmax);
  num_init (xmax);
  num_init (prev);
  num_init (t);
  ad = malloc (n * n * sizeof *ad);
  bd = malloc (n * sizeof *bd);
  xd = malloc (n * sizeof *xd);
  row = num_vec_new (n + 1);
  xb = num_vec_new (n + 1);
  res = num_vec_new (n);
  if (!ad || !bd || !xd || !row || !xb || !res)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n * n; i++)
    ad[i] = num_get_d (AT (Mm, i));
  for (size_t i = 0; i < n; i++)
    bd[i] = num_get_d (AT (b, i));
  TRY (lu_factor (&f, ad, n));
  TRY (lu_solve (&f, bd, xd, n));
  for (size_t i = 0; i < n; i++)
    num_set_d (AT (x, i), xd[i]);
  num_set_inf (prev, 1);
  for (iter = 0; iter < REFINE_MAX_ITER; iter++)
    {
      /* res_i = -[M_i, b_i] . [x, -1], scaled by 2^-e, e the exponent of
         the largest (the residuals fall below the binary64 range at high
         precision) */
      for (size_t j = 0; j < n; j++)
        num_set (AT (xb, j), AT (x, j));
      num_set_d (AT (xb, n), -1.0);
      num_set_zero (dmax);
      for (size_t i = 0; i < n; i++)
        {
          for (size_t j = 0; j < n; j++)
            num_set (AT (row, j), AT2 (Mm, i, j, n));
          num_set (AT (row, n), AT (b, i));
          TRY (num_dot (AT (res, i), row, xb, n + 1));
          num_abs (t, AT (res, i));
          num_max (dmax, dmax, t);
        }
      if (num_is_zero (dmax))
        break;
      e = num_get_exp (dmax);
      for (size_t i = 0; i < n; i++)
        {
          num_mul_2si (t, AT (res, i), -e);
          bd[i] = -num_get_d (t);
        }
      TRY (lu_solve (&f, bd, xd, n));
      num_set_zero (dmax);
      num_set_zero (xmax);
      for (size_t i = 0; i < n; i++)
        {
          num_set_d (t, xd[i]);
          num_mul_2si (t, t, e);
          num_add (AT (x, i), AT (x, i), t);
          num_abs (t, t);
          num_max (dmax, dmax, t);
          num_abs (t, AT (x, i));
          num_max (xmax, xmax, t);
        }
      if (!num_is_finite (dmax))
        FAIL ("iterative refinement diverged (ill-conditioned system)", RLREF_EMAXITER);
      /* converged: |d| <= 2^-(p+2) |x|, or stalled at the rounding level */
      num_mul_2si (t, xmax, -(p + 2));
      if (num_cmp (dmax, t) <= 0)
        break;
      num_mul_2si (t, xmax, -(p - 8));
      if (num_cmp (dmax, t) <= 0)
        {
          num_mul_2si (t, prev, -1);
          if (num_cmp (dmax, t) > 0)
            break;
        }
      num_set (prev, dmax);
    }
  if (iter == REFINE_MAX_ITER)
    FAIL ("iterative refinement did not converge", RLREF_EMAXITER);
done:
  lu_free (&f);
  free (ad);
  free (bd);
  free (xd);
  num_vec_free (row, n + 1);
  num_vec_free (xb, n + 1);
  num_vec_free (res, n);
  num_clear (dmax);
  num_clear (xmax);
  num_clear (prev);
  num_clear (t);
  return status;
}

/* V^pi of a stochastic policy pol[S A] (or of deterministic actions act[S]
 * when pol is NULL): M = I - gamma P_pi and b = R_pi over the non-terminal
 * states, P_pi(s, s') = sum_a pi(a|s) P(s'|s, a) and R_pi(s) =
 * sum_a pi(a|s) r(s, a) each an exactly rounded dot product, M_ss' =
 * delta_ss' - gamma P_pi(s, s') one fma; V = 0 at terminal states. */
static int
evaluate (num_ptr V, const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr pol,
          const size_t *act, num_srcptr gamma)
{
  size_t S = m->S, A = m->A, n = 0;
  size_t *live = NULL;
  num_ptr Mm = NULL, b = NULL, x = NULL, pa = NULL, col = NULL;
  num_t t, one;
  int status = RLREF_SUCCESS;
  num_init (t);
  num_init (one);
  num_set_d (one, 1.0);
  live = malloc (S * sizeof *live);
  if (!live)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t s = 0; s < S; s++)
    if (!(m->terminal && m->terminal[s]))
      live[n++] = s;
  Mm = num_vec_new (n * n);
  b = num_vec_new (n);
  x = num_vec_new (n);
  pa = num_vec_new (A);
  col = num_vec_new (A);
  if (!Mm || !b || !x || !pa || !col)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      size_t s = live[i];
      for (size_t a = 0; a < A; a++)
        {
          if (pol)
            num_set (AT (pa, a), AT (pol, s * A + a));
          else
            num_set_d (AT (pa, a), act[s] == a ? 1.0 : 0.0);
        }
      TRY (num_dot (AT (b, i), pa, AT (r, s * A), A));
      for (size_t j = 0; j < n; j++)
        {
          for (size_t a = 0; a < A; a++)
            num_set (AT (col, a), AT (P, (s * A + a) * S + live[j]));
          TRY (num_dot (t, pa, col, A));
          num_neg (t, t);
          if (i == j)
            num_fma (AT2 (Mm, i, j, n), gamma, t, one);
          else
            num_mul (AT2 (Mm, i, j, n), gamma, t);
        }
    }
  if (n > 0)
    TRY (refine_solve (x, Mm, b, n));
  for (size_t s = 0; s < S; s++)
    num_set_zero (AT (V, s));
  for (size_t i = 0; i < n; i++)
    num_set (AT (V, live[i]), AT (x, i));
done:
  free (live);
  num_vec_free (Mm, n * n);
  num_vec_free (b, n);
  num_vec_free (x, n);
  num_vec_free (pa, A);
  num_vec_free (col, A);
  num_clear (t);
  num_clear (one);
  return status;
}

/* Q(s, a) = r(s, a) + gamma sum_s' P(s'|s, a) V(s') (003, Bellman
 * expectation for Q), the sum an exactly rounded dot product and the rest
 * one fma; 0 at terminal states. */
static int
q_of_v (num_ptr Q, const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr V,
        num_srcptr gamma)
{
  size_t S = m->S, A = m->A;
  num_t t;
  int status = RLREF_SUCCESS;
  num_init (t);
  for (size_t s = 0; s < S && status == RLREF_SUCCESS; s++)
    for (size_t a = 0; a < A && status == RLREF_SUCCESS; a++)
      {
        if (m->terminal && m->terminal[s])
          {
            num_set_zero (AT (Q, s * A + a));
            continue;
          }
        status = num_dot (t, AT (P, (s * A + a) * S), V, S);
        num_fma (AT (Q, s * A + a), gamma, t, AT (r, s * A + a));
      }
  num_clear (t);
  return status;
}

/* MDP-VPI (003, Bellman expectation for V):
 * V(s) = sum_a pi(a|s) sum_s' P(s'|s, a) [r + gamma V(s')], i.e.
 * (I - gamma P_pi) V = R_pi, solved by LU and iterative refinement. */
int
FN (mdp_vpi) (num_ptr V, const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr pi,
              num_srcptr gamma)
{
  num_ptr v;
  int status;
  if (!pi)
    RLREF_ERROR ("no policy", RLREF_EINVAL);
  if ((status = check_mdp (m, P, r, pi, gamma)) != RLREF_SUCCESS)
    return status;
  v = num_vec_new (m->S);
  if (!v)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  status = evaluate (v, m, P, r, pi, NULL, gamma);
  for (size_t s = 0; status == RLREF_SUCCESS && s < m->S; s++)
    num_set (AT (V, s), AT (v, s));
  num_vec_free (v, m->S);
  return status;
}

/* MDP-QPI (003, Bellman expectation for Q):
 * Q(s, a) = sum_s' P(s'|s, a) [R + gamma sum_a' pi(a'|s') Q(s', a')]
 *         = r(s, a) + gamma sum_s' P(s'|s, a) V^pi(s'), V^pi by mdp_vpi. */
int
FN (mdp_qpi) (num_ptr Q, const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr pi,
              num_srcptr gamma)
{
  num_ptr v = NULL, q = NULL;
  int status;
  if (!pi)
    RLREF_ERROR ("no policy", RLREF_EINVAL);
  if ((status = check_mdp (m, P, r, pi, gamma)) != RLREF_SUCCESS)
    return status;
  v = num_vec_new (m->S);
  q = num_vec_new (m->S * m->A);
  if (!v || !q)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (evaluate (v, m, P, r, pi, NULL, gamma));
  TRY (q_of_v (q, m, P, r, v, gamma));
  for (size_t i = 0; i < m->S * m->A; i++)
    num_set (AT (Q, i), AT (q, i));
done:
  num_vec_free (v, m->S);
  num_vec_free (q, m->S * m->A);
  return status;
}

#ifdef RLREF_MP
/* The action of state s greedy in Q: the lowest index whose value is
 * within tol = 2^-(p/2) max_a |Q(s, a)| of the maximum (values that are
 * equal in exact arithmetic are equal to that tolerance in every
 * precision).  t (two scalars) receives the threshold max - tol in t[0]. */
static size_t
greedy (num_srcptr q, size_t A, num_ptr t)
{
  num_ptr thr = t, tol = AT (t, 1);
  size_t best;
  num_set (thr, q);
  num_set_zero (tol);
  for (size_t a = 0; a < A; a++)
    {
      num_max (thr, thr, AT (q, a));
      num_abs (AT (t, 1), AT (q, a));
      num_max (tol, tol, AT (t, 1));
    }
  num_mul_2si (tol, tol, -(num_prec () / 2));
  num_sub (thr, thr, tol);
  for (best = 0; best < A; best++)
    if (num_cmp (AT (q, best), thr) >= 0)
      break;
  return best < A ? best : 0;
}

/* MDP-OPT (003, Bellman optimality) by policy iteration: from action 0 in
 * every state, evaluate the policy (mdp_vpi's solve), then in each state
 * switch to the greedy action of Q only where it beats the current action
 * by more than the tie tolerance (so no cycle between equal actions); stop
 * when no state switches.  V = V*, Q = Q*, policy[s] = the greedy action of
 * Q* (lowest index among ties), steps = the improvements that changed the
 * policy.  Each output may be NULL. */
int
FN (mdp_policy_iteration) (num_ptr V, num_ptr Q, size_t *policy, long *steps,
                           const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr gamma)
{
  size_t S, A, *act = NULL;
  num_ptr v = NULL, q = NULL, t = NULL;
  long n = 0;
  int status, changed = 1;
  if ((status = check_mdp (m, P, r, NULL, gamma)) != RLREF_SUCCESS)
    return status;
  S = m->S;
  A = m->A;
  act = calloc (S, sizeof *act);
  v = num_vec_new (S);
  q = num_vec_new (S * A);
  t = num_vec_new (2);
  if (!act || !v || !q || !t)
    FAIL ("out of memory", RLREF_ENOMEM);
  while (changed)
    {
      TRY (evaluate (v, m, P, r, NULL, act, gamma));
      TRY (q_of_v (q, m, P, r, v, gamma));
      changed = 0;
      for (size_t s = 0; s < S; s++)
        {
          /* switch only where the current action is not within the tie
             tolerance of the maximum */
          size_t b = greedy (AT (q, s * A), A, t);
          if (num_cmp (AT (q, s * A + act[s]), t) < 0)
            {
              act[s] = b;
              changed = 1;
            }
        }
      if (changed && ++n > PI_MAX_ITER)
        FAIL ("policy iteration did not stop", RLREF_EMAXITER);
    }
  for (size_t s = 0; s < S; s++)
    {
      if (V)
        num_set (AT (V, s), AT (v, s));
      if (policy)
        policy[s] = greedy (AT (q, s * A), A, t);
    }
  for (size_t i = 0; Q && i < S * A; i++)
    num_set (AT (Q, i), AT (q, i));
  if (steps)
    *steps = n;
done:
  free (act);
  num_vec_free (v, S);
  num_vec_free (q, S * A);
  num_vec_free (t, 2);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h), the policy and the count of improvements carried as
 * doubles.  The greedy choice needs a tie tolerance far below binary64's
 * 2^-26 (action gaps of 2^-30 were ties in binary64 and not in MPFR), and
 * V solved near gamma = 1 keeps few of its bits. */
#include <string.h>
#include "round_once.h"

typedef struct
{
  const rlref_mdp *m;
  size_t *pol;
} pi_program;

/* x = (P, r, gamma); y = (V, Q, policy, steps). */
static int
pi_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const pi_program *o = ctx;
  size_t S = o->m->S, A = o->m->A;
  long n = 0;
  int status = rlref_mdp_policy_iteration_mp (y, y + S, o->pol, &n, o->m, x, x + S * A * S,
                                              x + S * A * S + S * A);
  for (size_t s = 0; status == RLREF_SUCCESS && s < S; s++)
    mpfr_set_ui (y + S + S * A + s, (unsigned long) o->pol[s], MPFR_RNDN);
  if (status == RLREF_SUCCESS)
    mpfr_set_si (y + 2 * S + S * A, n, MPFR_RNDN);
  return status;
}

int
FN (mdp_policy_iteration) (num_ptr V, num_ptr Q, size_t *policy, long *steps,
                           const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr gamma)
{
  pi_program o = { m, NULL };
  size_t S, A, nx, ny;
  double *xd;
  int status;
  if ((status = check_mdp (m, P, r, NULL, gamma)) != RLREF_SUCCESS)
    return status;
  S = m->S;
  A = m->A;
  nx = S * A * S + S * A + 1;
  ny = 2 * S + S * A + 1;
  xd = malloc ((nx + ny) * sizeof *xd);
  o.pol = malloc (S * sizeof *o.pol);
  if (!xd || !o.pol)
    {
      free (xd);
      free (o.pol);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  memcpy (xd, P, S * A * S * sizeof *xd);
  memcpy (xd + S * A * S, r, S * A * sizeof *xd);
  xd[nx - 1] = gamma[0];
  status = rlref_round_once (xd + nx, ny, xd, nx, pi_mp, &o, "the optimal values and policy");
  if (status == RLREF_SUCCESS)
    {
      const double *y = xd + nx;
      if (V)
        memcpy (V, y, S * sizeof *V);
      if (Q)
        memcpy (Q, y + S, S * A * sizeof *Q);
      for (size_t s = 0; policy && s < S; s++)
        policy[s] = (size_t) y[S + S * A + s];
      if (steps)
        *steps = (long) y[2 * S + S * A];
    }
  free (xd);
  free (o.pol);
  return status;
}
#endif

/* One sweep of value iteration (003, Bellman optimality):
 * V'(s) = max_a [r(s, a) + gamma sum_s' P(s'|s, a) V(s')], 0 at terminal
 * states; q (S A) is scratch. */
static int
vi_sweep (num_ptr Vn, num_ptr q, const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr V,
          num_srcptr gamma)
{
  size_t S = m->S, A = m->A;
  int status = q_of_v (q, m, P, r, V, gamma);
  for (size_t s = 0; status == RLREF_SUCCESS && s < S; s++)
    {
      num_set (AT (Vn, s), AT (q, s * A));
      for (size_t a = 1; a < A; a++)
        num_max (AT (Vn, s), AT (Vn, s), AT (q, s * A + a));
    }
  return status;
}

/* max_s |x_s - y_s| into d. */
static void
max_diff (num_ptr d, num_srcptr x, num_srcptr y, size_t n, num_ptr t)
{
  num_set_zero (d);
  for (size_t i = 0; i < n; i++)
    {
      num_sub (t, AT (x, i), AT (y, i));
      num_abs (t, t);
      num_max (d, d, t);
    }
}

/* The advantages of Q* for the error recursion: d(s, a) = Q*(s, a) -
 * Q*(s, b_s) <= 0 with b_s the first maximum of Q*(s, .), so d(s, b_s) = 0
 * exactly, the rest one exactly rounded dot product
 * r(s, a) - r(s, b) + sum_s' [P(s'|s, a) - P(s'|s, b)] gamma V*(s')
 * (rounded once from gamma V*, not as the difference of two rounded Q*,
 * which would leave an error of the size of Q* itself).  0 at terminal
 * states.  x and y have room for 2 S + 2 scalars. */
static int
advantages (num_ptr d, const rlref_mdp *m, num_srcptr P, num_srcptr r, num_srcptr Q,
            num_srcptr gv, num_ptr x, num_ptr y)
{
  size_t S = m->S, A = m->A;
  int status = RLREF_SUCCESS;
  for (size_t s = 0; s < S && status == RLREF_SUCCESS; s++)
    {
      size_t b = 0;
      for (size_t a = 1; a < A; a++)
        if (num_cmp (AT (Q, s * A + a), AT (Q, s * A + b)) > 0)
          b = a;
      for (size_t a = 0; a < A && status == RLREF_SUCCESS; a++)
        {
          if (a == b || (m->terminal && m->terminal[s]))
            {
              num_set_zero (AT (d, s * A + a));
              continue;
            }
          num_set_d (AT (x, 0), 1.0);
          num_set (AT (y, 0), AT (r, s * A + a));
          num_set_d (AT (x, 1), -1.0);
          num_set (AT (y, 1), AT (r, s * A + b));
          for (size_t t = 0; t < S; t++)
            {
              num_set (AT (x, 2 + t), AT (P, (s * A + a) * S + t));
              num_set (AT (y, 2 + t), AT (gv, t));
              num_neg (AT (x, 2 + S + t), AT (P, (s * A + b) * S + t));
              num_set (AT (y, 2 + S + t), AT (gv, t));
            }
          status = num_dot (AT (d, s * A + a), x, y, 2 * S + 2);
        }
    }
  return status;
}

/* One step of the error recursion of value iteration: for e = V_j - V*,
 * V_{j+1}(s) - V*(s) = max_a [Q*(s, a) + gamma sum_s' P(s'|s, a) e(s')]
 * - max_a Q*(s, a) = max_a [d(s, a) + gamma (P e)(s, a)], 0 at terminal
 * states: the error itself, not the difference of two values near V*
 * (which cancels to nothing once the error is below the rounding of V*). */
static int
error_sweep (num_ptr en, const rlref_mdp *m, num_srcptr P, num_srcptr d, num_srcptr e,
             num_srcptr gamma, num_ptr t)
{
  size_t S = m->S, A = m->A;
  int status = RLREF_SUCCESS;
  for (size_t s = 0; s < S && status == RLREF_SUCCESS; s++)
    {
      if (m->terminal && m->terminal[s])
        {
          num_set_zero (AT (en, s));
          continue;
        }
      for (size_t a = 0; a < A && status == RLREF_SUCCESS; a++)
        {
          status = num_dot (t, AT (P, (s * A + a) * S), e, S);
          num_fma (t, gamma, t, AT (d, s * A + a));
          if (a == 0)
            num_set (AT (en, s), t);
          else
            num_max (AT (en, s), AT (en, s), t);
        }
    }
  return status;
}

/* max_s |x_s| into d. */
static void
max_abs (num_ptr d, num_srcptr x, size_t n, num_ptr t)
{
  num_set_zero (d);
  for (size_t i = 0; i < n; i++)
    {
      num_abs (t, AT (x, i));
      num_max (d, d, t);
    }
}

/* MDP-OPT by value iteration, k sweeps from V_0 = 0: Vk = V_k, and for
 * j = 0..k err[j] = max_s |V_j(s) - V*(s)| beside the contraction bound
 * bound[j] = gamma^j max_s |V_0(s) - V*(s)| (003: the Bellman optimality
 * operator is a gamma-contraction in the max norm, so err[j] <= bound[j]);
 * V* and Q* by policy iteration, the errors e_j = V_j - V* by their own
 * recursion (error_sweep) from e_0 = -V*.  err and bound hold k + 1
 * values or are NULL. */
int
FN (mdp_value_iteration) (num_ptr Vk, num_ptr err, num_ptr bound, long k, const rlref_mdp *m,
                          num_srcptr P, num_srcptr r, num_srcptr gamma)
{
  size_t S, A;
  num_ptr vs = NULL, v = NULL, vn = NULL, q = NULL, qs = NULL, d = NULL, e = NULL, en = NULL;
  num_ptr x = NULL, y = NULL;
  num_t bk, t;
  int status;
  if (k < 0)
    RLREF_ERROR ("k must be >= 0", RLREF_EDOM);
  if ((status = check_mdp (m, P, r, NULL, gamma)) != RLREF_SUCCESS)
    return status;
  S = m->S;
  A = m->A;
  num_init (bk);
  num_init (t);
  vs = num_vec_new (S);
  v = num_vec_new (S);
  vn = num_vec_new (S);
  q = num_vec_new (S * A);
  qs = num_vec_new (S * A);
  d = num_vec_new (S * A);
  e = num_vec_new (S);
  en = num_vec_new (S);
  x = num_vec_new (2 * S + 2);
  y = num_vec_new (2 * S + 2);
  if (!vs || !v || !vn || !q || !qs || !d || !e || !en || !x || !y)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (FN (mdp_policy_iteration) (vs, qs, NULL, NULL, m, P, r, gamma));
  for (size_t s = 0; s < S; s++)
    {
      num_mul (AT (en, s), gamma, AT (vs, s));  /* gamma V*, scratch */
      num_neg (AT (e, s), AT (vs, s));
    }
  TRY (advantages (d, m, P, r, qs, en, x, y));
  max_abs (bk, e, S, t);
  for (long j = 0;; j++)
    {
      if (err)
        max_abs (AT (err, j), e, S, t);
      if (bound)
        num_set (AT (bound, j), bk);
      if (j == k)
        break;
      TRY (vi_sweep (vn, q, m, P, r, v, gamma));
      TRY (error_sweep (en, m, P, d, e, gamma, t));
      for (size_t s = 0; s < S; s++)
        {
          num_set (AT (v, s), AT (vn, s));
          num_set (AT (e, s), AT (en, s));
        }
      num_mul (bk, bk, gamma);
    }
  for (size_t s = 0; s < S; s++)
    num_set (AT (Vk, s), AT (v, s));
done:
  num_vec_free (vs, S);
  num_vec_free (v, S);
  num_vec_free (vn, S);
  num_vec_free (q, S * A);
  num_vec_free (qs, S * A);
  num_vec_free (d, S * A);
  num_vec_free (e, S);
  num_vec_free (en, S);
  num_vec_free (x, 2 * S + 2);
  num_vec_free (y, 2 * S + 2);
  num_clear (bk);
  num_clear (t);
  return status;
}

/* Sweeps of mdp_value_iteration_fixed before EMAXITER. */
#define VI_MAX_SWEEPS 10000000L

/* MDP-OPT by value iteration to a certified fixed point: sweeps from
 * V_0 = 0 until gamma/(1 - gamma) max_s |V_{j+1} - V_j| <= 2^-(p+2)
 * max_s |V_{j+1}| (then max_s |V_{j+1} - V*| is below it: the
 * contraction's a posteriori bound), or an exact repeat.  V = the last
 * iterate, *sweeps = the number of sweeps. */
int
FN (mdp_value_iteration_fixed) (num_ptr V, long *sweeps, const rlref_mdp *m, num_srcptr P,
                                num_srcptr r, num_srcptr gamma)
{
  size_t S, A;
  num_ptr v = NULL, vn = NULL, q = NULL;
  num_t d, vmax, f, t;
  long j;
  int status;
  if ((status = check_mdp (m, P, r, NULL, gamma)) != RLREF_SUCCESS)
    return status;
  S = m->S;
  A = m->A;
  num_init (d);
  num_init (vmax);
  num_init (f);
  num_init (t);
  v = num_vec_new (S);
  vn = num_vec_new (S);
  q = num_vec_new (S * A);
  if (!v || !vn || !q)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_d_sub (f, 1.0, gamma);
  num_div (f, gamma, f);                        /* gamma/(1 - gamma) */
  for (j = 1; j <= VI_MAX_SWEEPS; j++)
    {
      TRY (vi_sweep (vn, q, m, P, r, v, gamma));
      max_diff (d, vn, v, S, t);
      num_set_zero (vmax);
      for (size_t s = 0; s < S; s++)
        {
          num_abs (t, AT (vn, s));
          num_max (vmax, vmax, t);
          num_set (AT (v, s), AT (vn, s));
        }
      num_mul (d, d, f);
      num_mul_2si (t, vmax, -(num_prec () + 2));
      if (num_is_zero (d) || num_cmp (d, t) <= 0)
        break;
    }
  if (j > VI_MAX_SWEEPS)
    FAIL ("value iteration did not reach its fixed point", RLREF_EMAXITER);
  for (size_t s = 0; s < S; s++)
    num_set (AT (V, s), AT (v, s));
  if (sweeps)
    *sweeps = j;
done:
  num_vec_free (v, S);
  num_vec_free (vn, S);
  num_vec_free (q, S * A);
  num_clear (d);
  num_clear (vmax);
  num_clear (f);
  num_clear (t);
  return status;
}
