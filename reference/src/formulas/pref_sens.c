/* pref_sens.c -- derivatives of the preference models whose sensitivity
 * would be costly by central differences (a quadrature, two
 * maximum-likelihood fits); written once for both backends.  Seed 000
 * sections 2.1 and 10.1. */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/status.h"
#include "rlref/primitives.h"
#include "rlref/pref.h"
#include "rlref/sens.h"

/* f(x) f(x + D) = exp(-x - e^-x - (x + D) - e^-(x + D)), f the standard
 * Gumbel density; a and b are scratch. */
static void
density_product (num_ptr r, num_srcptr x, num_srcptr D, num_ptr a, num_ptr b)
{
  num_neg (a, x);
  num_exp (a, a);                       /* e^-x */
  num_add (b, x, D);
  num_neg (b, b);
  num_exp (b, b);                       /* e^-(x + D) */
  num_add (a, a, b);
  num_mul_2si (b, x, 1);
  num_add (b, b, D);                    /* 2x + D */
  num_add (a, a, b);
  num_neg (a, a);
  num_exp (r, a);
}

/* The double-exponential nodes t = k h, k = first, first + step, ..., in
 * both directions from 0, added to sum: x = c + sinh(pi/2 sinh t), weight
 * dx/dt = pi/2 cosh t cosh(pi/2 sinh t); a direction stops past |t| = 1
 * once a term falls below 2^-(prec + 16) of the sum (|t| <= 3 suffices
 * for 4096 bits). */
static void
de_nodes (num_ptr sum, double h, long first, long step, num_srcptr c, num_srcptr D,
          num_srcptr halfpi)
{
  num_t t, u, x, w, term, small, a, b;
  num_init (t); num_init (u); num_init (x); num_init (w);
  num_init (term); num_init (small); num_init (a); num_init (b);
  for (int sign = -1; sign <= 1; sign += 2)
    for (long k = first; (double) k * h <= 3.0; k += step)
      {
        if (k == 0 && sign < 0)
          continue;
        num_set_d (t, sign * (double) k * h);
        num_sinh (u, t);
        num_mul (u, u, halfpi);
        num_sinh (x, u);
        num_add (x, x, c);
        density_product (term, x, D, a, b);
        if (!num_is_zero (term))
          {
            num_cosh (w, u);
            num_cosh (t, t);
            num_mul (w, w, t);
            num_mul (w, w, halfpi);
            num_mul (term, term, w);
          }
        num_add (sum, sum, term);
        num_mul_2si (small, sum, -(num_prec () + 16));
        if ((double) k * h > 1.0 && num_cmp (term, small) < 0)
          break;
      }
  num_clear (t); num_clear (u); num_clear (x); num_clear (w);
  num_clear (term); num_clear (small); num_clear (a); num_clear (b);
}

/* PREF-BT-GUMBEL:  dP/dD = d/dD int f(x) F(x + D) dx = int f(x) f(x + D) dx,
 * D = r_w - r_l: the density of the difference g_l - g_w of two standard
 * Gumbel variables at D.  Double-exponential rule centred at the
 * integrand's mode c = log((1 + e^-D)/2) = softplus(-D) - log 2 (where
 * e^-x (1 + e^-D) = 2); trapezoids in t, each level halving h and adding
 * the new nodes, until two levels agree to 2^-(prec - 12). */
int
FN (bt_gumbel_deriv) (num_ptr dp, num_srcptr rw, num_srcptr rl)
{
  num_t D, c, sum, prev, cur, diff, tol, halfpi;
  double h = 0.5;
  int status = RLREF_EMAXITER;
  if (!num_is_finite (rw) || !num_is_finite (rl))
    RLREF_ERROR ("non-finite argument", RLREF_ENAN);
  num_init (D); num_init (c); num_init (sum); num_init (prev); num_init (cur);
  num_init (diff); num_init (tol); num_init (halfpi);
  num_sub (D, rw, rl);
  num_neg (c, D);
  if (FN (softplus) (c, c) == RLREF_SUCCESS)
    {
      num_set_d (tol, 2.0);
      num_log (tol, tol);
      num_sub (c, c, tol);
      num_const_pi (halfpi);
      num_mul_2si (halfpi, halfpi, -1);
      de_nodes (sum, h, 0, 1, c, D, halfpi);
      num_mul_d (prev, sum, h);
      for (int level = 1; level <= 16; level++)
        {
          h /= 2;
          de_nodes (sum, h, 1, 2, c, D, halfpi);
          num_mul_d (cur, sum, h);
          num_sub (diff, cur, prev);
          num_abs (diff, diff);
          num_mul_2si (tol, cur, -(num_prec () - 12));
          num_abs (tol, tol);
          num_set (prev, cur);
          if (level >= 2 && num_cmp (diff, tol) <= 0)
            {
              status = RLREF_SUCCESS;
              break;
            }
        }
    }
  num_set (dp, prev);
  num_clear (D); num_clear (c); num_clear (sum); num_clear (prev); num_clear (cur);
  num_clear (diff); num_clear (tol); num_clear (halfpi);
  if (status)
    RLREF_ERROR ("quadrature did not converge", status);
  return status;
}

/* max_i |g_i| <= 2^-(prec/2) (1 + scale): g is the gradient at a maximum. */
static int
is_stationary (num_srcptr g, size_t K, num_srcptr scale)
{
  num_t t, bound;
  int ok = 1;
  num_init (t);
  num_init (bound);
  num_add_d (bound, scale, 1.0);
  num_mul_2si (bound, bound, -(num_prec () / 2));
  for (size_t i = 0; i < K && ok; i++)
    {
      num_abs (t, AT (g, i));
      ok = num_cmp (t, bound) <= 0;
    }
  num_clear (t);
  num_clear (bound);
  return ok;
}

/* The scratch of a fit's Jacobian: gradient g (K), Hessian H (K x K),
 * mixed derivatives B and derivative X (K x P). */
struct fit_work
{
  num_ptr g, H, B, X;
  size_t K, P;
};

static int
fit_work_new (struct fit_work *w, size_t K, size_t P)
{
  w->K = K;
  w->P = P;
  w->g = num_vec_new (K);
  w->H = num_vec_new (K * K);
  w->B = num_vec_new (K * P);
  w->X = num_vec_new (K * P);
  return w->g && w->H && w->B && w->X ? RLREF_SUCCESS : RLREF_ENOMEM;
}

static void
fit_work_free (struct fit_work *w)
{
  num_vec_free (w->g, w->K);
  num_vec_free (w->H, w->K * w->K);
  num_vec_free (w->B, w->K * w->P);
  num_vec_free (w->X, w->K * w->P);
}

/* Rows 0..K-1 of J (K + 1 rows of P) from X = -(H + 1 1^T)^-1 B, once the
 * gradient g vanishes to 2^-(prec/2) of 1 + scale. */
static int
fit_finish_jacobian (num_ptr J, struct fit_work *w, num_srcptr scale)
{
  int status;
  if (!is_stationary (w->g, w->K, scale))
    RLREF_ERROR ("the scores are not the maximum of the likelihood", RLREF_EDOM);
  status = FN (fit_jacobian) (w->X, w->H, w->B, w->K, w->P);
  for (size_t i = 0; i < w->K * w->P && status == RLREF_SUCCESS; i++)
    num_set (AT (J, i), AT (w->X, i));
  return status;
}

/* PREF-BT-MLE:  F(s; w) = sum_{i != j} w_ij softplus(-(s_i - s_j)) (minus
 * the log-likelihood).  With D = s_i - s_j, the pair (i, j) adds
 * -w sigma(-D) to g_i and +w sigma(-D) to g_j; w sigma(D) sigma(-D) to
 * H_ii and H_jj and its negative to H_ij and H_ji; its column of B is
 * d g/d w_ij = sigma(-D) (e_j - e_i).  d loglik/d w_ij = -softplus(-D)
 * = log sigma(D) (envelope theorem: d/dw of F at the optimum is the
 * partial derivative). */
int
FN (bt_mle_jacobian) (num_ptr J, num_srcptr scores, num_srcptr wins, size_t n)
{
  struct fit_work w;
  num_t D, sm, c, t, total;
  size_t P = n * n;
  int status;
  if (!J || !scores || !wins || n < 2)
    RLREF_ERROR ("need at least two items", RLREF_EINVAL);
  status = fit_work_new (&w, n, P);
  if (status)
    {
      fit_work_free (&w);
      RLREF_ERROR ("out of memory", status);
    }
  num_init (D); num_init (sm); num_init (c); num_init (t); num_init (total);
  for (size_t i = 0; i < n * n; i++)
    num_set_zero (AT (J, n * P + i));
  for (size_t i = 0; i < n && status == RLREF_SUCCESS; i++)
    for (size_t j = 0; j < n && status == RLREF_SUCCESS; j++)
      {
        num_srcptr wij = AT (wins, i * n + j);
        size_t col = i * n + j;
        if (i == j)
          continue;
        num_add (total, total, wij);
        num_sub (D, AT (scores, i), AT (scores, j));
        num_neg (t, D);
        status = FN (sigmoid) (sm, t);                  /* sigma(-D) */
        if (status == RLREF_SUCCESS)
          status = FN (softplus) (t, t);
        if (status == RLREF_SUCCESS)
          status = FN (sigmoid) (c, D);
        if (status)
          break;
        num_neg (AT (J, n * P + col), t);               /* log sigma(D) */
        num_neg (AT (w.B, i * P + col), sm);
        num_set (AT (w.B, j * P + col), sm);
        num_mul (c, c, sm);
        num_mul (c, c, wij);                            /* w sigma(D) sigma(-D) */
        num_add (AT (w.H, i * n + i), AT (w.H, i * n + i), c);
        num_add (AT (w.H, j * n + j), AT (w.H, j * n + j), c);
        num_sub (AT (w.H, i * n + j), AT (w.H, i * n + j), c);
        num_sub (AT (w.H, j * n + i), AT (w.H, j * n + i), c);
        num_mul (t, sm, wij);
        num_sub (AT (w.g, i), AT (w.g, i), t);
        num_add (AT (w.g, j), AT (w.g, j), t);
      }
  if (status == RLREF_SUCCESS)
    status = fit_finish_jacobian (J, &w, total);
  num_clear (D); num_clear (sm); num_clear (c); num_clear (t); num_clear (total);
  fit_work_free (&w);
  return status;
}

/* PREF-PL mle:  F(s; c) = sum_m c_m F_m(s), F_m = -log P(pi_m; s).  Column m
 * of B is grad F_m (rlref_pl_logprob), and d loglik/d c_m = -F_m = log P(pi_m)
 * (envelope theorem).  H = sum_m c_m H_m with H_m = sum_k [diag(p_k) -
 * p_k p_k^T] over the items R_k = {pi_k, ..., pi_K} still to be placed,
 * p_k = softmax(s on R_k) (000 10.1). */
int
FN (pl_mle_jacobian) (num_ptr J, num_srcptr scores, const long *rankings, num_srcptr counts,
                      size_t M, size_t K)
{
  struct fit_work w;
  num_ptr grad = NULL, z = NULL, p = NULL;
  num_t logp, t, total;
  int status;
  if (!J || !scores || !rankings || !counts || M == 0 || K < 2)
    RLREF_ERROR ("need at least one ranking of at least two items", RLREF_EINVAL);
  status = fit_work_new (&w, K, M);
  grad = num_vec_new (K);
  z = num_vec_new (K);
  p = num_vec_new (K);
  if (status || !grad || !z || !p)
    {
      fit_work_free (&w);
      num_vec_free (grad, K);
      num_vec_free (z, K);
      num_vec_free (p, K);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  num_init (logp); num_init (t); num_init (total);
  for (size_t m = 0; m < M && status == RLREF_SUCCESS; m++)
    {
      const long *pi = rankings + m * K;
      num_srcptr cm = AT (counts, m);
      status = FN (pl_logprob) (logp, grad, scores, pi, K);
      if (status)
        break;
      num_set (AT (J, K * M + m), logp);
      num_add (total, total, cm);
      for (size_t i = 0; i < K; i++)
        {
          num_set (AT (w.B, i * M + m), AT (grad, i));
          num_mul (t, AT (grad, i), cm);
          num_add (AT (w.g, i), AT (w.g, i), t);
        }
      if (num_is_zero (cm))
        continue;
      for (size_t k = 0; k + 1 < K && status == RLREF_SUCCESS; k++)
        {
          size_t r = K - k;
          for (size_t a = 0; a < r; a++)
            num_set (AT (z, a), AT (scores, pi[k + a]));
          status = FN (softmax) (p, z, r);
          for (size_t a = 0; a < r && status == RLREF_SUCCESS; a++)
            for (size_t b = 0; b < r; b++)
              {
                num_ptr h = AT (w.H, (size_t) pi[k + a] * K + (size_t) pi[k + b]);
                num_mul (t, AT (p, a), AT (p, b));
                if (a == b)
                  num_sub (t, AT (p, a), t);
                else
                  num_neg (t, t);
                num_mul (t, t, cm);
                num_add (h, h, t);
              }
        }
    }
  if (status == RLREF_SUCCESS)
    status = fit_finish_jacobian (J, &w, total);
  num_clear (logp); num_clear (t); num_clear (total);
  num_vec_free (grad, K);
  num_vec_free (z, K);
  num_vec_free (p, K);
  fit_work_free (&w);
  return status;
}
