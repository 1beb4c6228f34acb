/* mdp_ql.c -- tabular Q-learning on a finite MDP (MDP-QL; seed 003
 * section 2), written once for both backends and driven by a GSL random
 * stream, so that a seed gives the same run to the last bit, and the same
 * trajectory in binary64 and in MPFR: every random decision compares a
 * binary64 draw with an exactly rounded quantity (whose sign is exact). */
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include "rlref/num.h"
#include "rlref/mdp.h"
#include "mdp_impl.h"

/* Steps of one run at most. */
#define QL_MAX_STEPS 10000000L

#ifdef RLREF_MP
/* The next state: the first s' with u < sum_{j <= s'} P(j|s, a) (the sign
 * of the exactly rounded sum of P(0..s'|s, a) and -u, exact in both
 * backends); the last state of positive probability when the row's sum
 * is not above u (a row summing to 1 - 2^-52).  w has S + 1 scalars. */
static int
next_state (size_t *out, num_srcptr row, size_t S, double u, num_ptr w)
{
  num_t t;
  size_t last = 0;
  int status = RLREF_SUCCESS;
  num_init (t);
  *out = S;
  for (size_t j = 0; j < S; j++)
    {
      if (num_sgn (AT (row, j)) > 0)
        last = j;
      num_set (AT (w, j), AT (row, j));
      num_set_d (AT (w, j + 1), -u);
      if ((status = num_sum (t, w, j + 2)) != RLREF_SUCCESS)
        break;
      if (num_sgn (t) > 0)
        {
          *out = j;
          break;
        }
    }
  if (*out == S)
    *out = last;
  num_clear (t);
  return status;
}

/* (003 §2, Q-learning)  From Q = 0 at state start, steps updates
 *   a = epsilon-greedy(Q, s), s' ~ P(.|s, a), n(s, a) += 1, alpha = 1/n(s, a),
 *   y = r(s, a) + gamma max_a' Q(s', a') (y = r(s, a) at a terminal s'),
 *   Q(s, a) <- Q(s, a) + alpha (y - Q(s, a)),
 * a terminal s' restarting at start.  Each step draws u1, u2, u3 from rng
 * (gsl_rng_uniform): the action is greedy (the lowest index of the
 * maximum) unless u1 < eps, when it is floor(u2 A) (INCLUDE) or the
 * floor(u2 (A - 1))-th other action (EXCLUDE); eps NULL: always
 * floor(u2 A) (a uniform behaviour policy); s' by u3 (next_state).  The
 * steps alpha = 1/n satisfy Robbins-Monro (sum alpha = inf, sum alpha^2 <
 * inf).  Q[S A] after the run; err (steps + 1 values, or NULL) receives
 * max |Q_t - Q*| for t = 0..steps, Q* by policy iteration. */
int
FN (mdp_qlearn) (num_ptr Q, num_ptr err, const rlref_mdp *m, num_srcptr P, num_srcptr r,
                 num_srcptr gamma, size_t start, long steps, num_srcptr eps,
                 rlref_egreedy_kind kind, gsl_rng *rng)
{
  size_t S, A, s;
  long *n = NULL;
  num_ptr q = NULL, qs = NULL, w = NULL;
  num_t y, d, mx;
  int status = RLREF_SUCCESS;
  if (!m || !rng)
    RLREF_ERROR ("no MDP or random stream", RLREF_EINVAL);
  if (steps < 0 || steps > QL_MAX_STEPS)
    RLREF_ERROR ("steps must be 0 to 1e7", RLREF_EDOM);
  if (start >= m->S)
    RLREF_ERROR ("the start is not a state", RLREF_EINVAL);
  if (m->terminal && m->terminal[start])
    RLREF_ERROR ("the start state is terminal", RLREF_EDOM);
  if (eps)
    {
      if (!num_is_finite (eps))
        RLREF_ERROR ("non-finite eps", RLREF_ENAN);
      if (!mdp_unit (eps))
        RLREF_ERROR ("eps must lie in [0, 1]", RLREF_EDOM);
      if (kind == RLREF_EGREEDY_EXCLUDE && m->A == 1 && num_sgn (eps) > 0)
        RLREF_ERROR ("exclude-greedy: no other action to explore", RLREF_EDOM);
    }
  S = m->S;
  A = m->A;
  num_init (y);
  num_init (d);
  num_init (mx);
  n = calloc (S * A, sizeof *n);
  q = num_vec_new (S * A);
  qs = num_vec_new (S * A);
  w = num_vec_new (S + 1);
  if (!n || !q || !qs || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  /* checks the MDP and gives Q* */
  TRY (FN (mdp_policy_iteration) (NULL, qs, NULL, NULL, m, P, r, gamma));
  s = start;
  for (long i = 0;; i++)
    {
      double u1, u2, u3;
      size_t a, g = 0, nx, k;
      if (err)
        {
          num_set_zero (AT (err, i));
          for (k = 0; k < S * A; k++)
            {
              num_sub (d, AT (q, k), AT (qs, k));
              num_abs (d, d);
              num_max (AT (err, i), AT (err, i), d);
            }
        }
      if (i == steps)
        break;
      u1 = gsl_rng_uniform (rng);
      u2 = gsl_rng_uniform (rng);
      u3 = gsl_rng_uniform (rng);
      for (a = 1; a < A; a++)
        if (num_cmp (AT (q, s * A + a), AT (q, s * A + g)) > 0)
          g = a;
      if (!eps)
        a = (size_t) (u2 * (double) A);
      else if (num_cmp_d (eps, u1) > 0)
        {
          if (kind == RLREF_EGREEDY_EXCLUDE)
            {
              a = (size_t) (u2 * (double) (A - 1));
              a += a >= g;
            }
          else
            a = (size_t) (u2 * (double) A);
        }
      else
        a = g;
      TRY (next_state (&nx, AT (P, (s * A + a) * S), S, u3, w));
      k = s * A + a;
      n[k]++;
      if (m->terminal && m->terminal[nx])
        num_set (y, AT (r, k));
      else
        {
          num_set (mx, AT (q, nx * A));
          for (size_t b = 1; b < A; b++)
            num_max (mx, mx, AT (q, nx * A + b));
          num_fma (y, gamma, mx, AT (r, k));
        }
      num_sub (d, y, AT (q, k));
      num_div_si (d, d, n[k]);
      num_add (AT (q, k), AT (q, k), d);
      s = m->terminal && m->terminal[nx] ? start : nx;
    }
  for (size_t k = 0; k < S * A; k++)
    num_set (AT (Q, k), AT (q, k));
done:
  free (n);
  num_vec_free (q, S * A);
  num_vec_free (qs, S * A);
  num_vec_free (w, S + 1);
  num_clear (y);
  num_clear (d);
  num_clear (mx);
  return status;
}

#else
/* binary64: the MPFR run above, each output rounded once
 * (round_once.h), the stream restarted from its state at the call at
 * each precision and left where the run leaves it.  Rounding Q at every
 * step adds up over a long run (4e-15 off 0.0085 after 20,000 steps),
 * and the error max |Q - Q*| cancels Q against Q* (0 for 3.4e-250 at
 * gamma = 2^-824, where Q = r + gamma max Q'). */
#include <string.h>
#include "round_once.h"

typedef struct
{
  const rlref_mdp *m;
  size_t start;
  long steps;
  int has_eps, want_err;
  rlref_egreedy_kind kind;
  gsl_rng *rng, *at_call;
} qlearn_program;

/* x = (P, r, gamma, eps if given); y = (Q, err if asked for). */
static int
qlearn_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const qlearn_program *o = ctx;
  size_t nq = o->m->S * o->m->A, np = nq * o->m->S;
  gsl_rng_memcpy (o->rng, o->at_call);
  return rlref_mdp_qlearn_mp (y, o->want_err ? y + nq : NULL, o->m, x, x + np, x + np + nq,
                              o->start, o->steps, o->has_eps ? x + np + nq + 1 : NULL, o->kind,
                              o->rng);
}

int
FN (mdp_qlearn) (num_ptr Q, num_ptr err, const rlref_mdp *m, num_srcptr P, num_srcptr r,
                 num_srcptr gamma, size_t start, long steps, num_srcptr eps,
                 rlref_egreedy_kind kind, gsl_rng *rng)
{
  qlearn_program o = { m, start, steps, eps != NULL, err != NULL, kind, rng, NULL };
  size_t nq, np, nx, ny;
  double *xd;
  int status;
  if (!m || !rng || !Q || !P || !r || !gamma)
    RLREF_ERROR ("no MDP, inputs or random stream", RLREF_EINVAL);
  if (steps < 0 || steps > QL_MAX_STEPS)
    RLREF_ERROR ("steps must be 0 to 1e7", RLREF_EDOM);
  nq = m->S * m->A;
  np = nq * m->S;
  nx = np + nq + 1 + (eps != NULL);
  ny = nq + (err ? (size_t) steps + 1 : 0);
  xd = malloc ((nx + ny) * sizeof *xd);
  o.at_call = gsl_rng_clone (rng);
  if (!xd || !o.at_call)
    {
      free (xd);
      if (o.at_call)
        gsl_rng_free (o.at_call);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  memcpy (xd, P, np * sizeof *xd);
  memcpy (xd + np, r, nq * sizeof *xd);
  xd[np + nq] = gamma[0];
  if (eps)
    xd[np + nq + 1] = eps[0];
  status = rlref_round_once (xd + nx, ny, xd, nx, qlearn_mp, &o, "the Q-learning run");
  if (status == RLREF_SUCCESS)
    {
      memcpy (Q, xd + nx, nq * sizeof *Q);
      if (err)
        memcpy (err, xd + nx + nq, ((size_t) steps + 1) * sizeof *err);
    }
  else
    gsl_rng_memcpy (rng, o.at_call);
  gsl_rng_free (o.at_call);
  free (xd);
  return status;
}
#endif
