/* pref_sens.c -- derivatives of the preference models whose sensitivity
 * would be costly by central differences (a quadrature; two
 * maximum-likelihood fits, by mle_jacobian of their likelihoods); written
 * once for both backends.  Seed 000 sections 2.1 and 10.1. */
#include "rlref/num.h"
#include "rlref/status.h"
#include "rlref/primitives.h"
#include "rlref/pref.h"
#include "rlref/sens.h"
#include "flow.h"
#include "mle.h"
#include "pref_mle.h"

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
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
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

/* PREF-BT-MLE:  F(s; w) = sum_{i != j} w_ij softplus(-(s_i - s_j)) (minus
 * the log-likelihood, bt_nll), observation i n + j "i beat j"; its column
 * of B is d g/d w_ij = sigma(-D) (e_j - e_i), D = s_i - s_j, and
 * d loglik/d w_ij = -softplus(-D) = log sigma(D) (mle_jacobian).  The
 * stationarity is judged against the sum of the weights off the
 * diagonal. */
int
FN (bt_mle_jacobian) (num_ptr J, num_srcptr scores, num_srcptr wins, size_t n)
{
  num_t total;
  int status;
  if (!J || !scores || !wins || n < 2)
    RLREF_ERROR ("need at least two items", RLREF_EINVAL);
  num_init (total);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      if (i != j)
        num_add (total, total, AT (wins, i * n + j));
  status = FN (mle_jacobian) (J, FN (bt_nll), scores, n, wins, n * n, NULL, total);
  num_clear (total);
  return status;
}

/* PREF-PL mle:  F(s; c) = sum_m c_m F_m(s), F_m = -log P(pi_m; s) (pl_nll).
 * Column m of B is grad F_m, and d loglik/d c_m = -F_m = log P(pi_m)
 * (mle_jacobian); H = sum_m c_m H_m with H_m = sum_k [diag(p_k) -
 * p_k p_k^T] over the items R_k = {pi_k, ..., pi_K} still to be placed,
 * p_k = softmax(s on R_k) (000 10.1).  The stationarity is judged against
 * the sum of the counts. */
int
FN (pl_mle_jacobian) (num_ptr J, num_srcptr scores, const long *rankings, num_srcptr counts,
                      size_t M, size_t K)
{
  num_t total;
  int status;
  if (!J || !scores || !rankings || !counts || M == 0 || K < 2)
    RLREF_ERROR ("need at least one ranking of at least two items", RLREF_EINVAL);
  for (size_t m = 0; m < M; m++)
    if ((status = FN (check_ranking) (rankings + m * K, K)))
      return status;
  for (size_t i = 0; i < K; i++)
    CHECK_FINITE (AT (scores, i));
  num_init (total);
  for (size_t m = 0; m < M; m++)
    num_add (total, total, AT (counts, m));
  status = FN (mle_jacobian) (J, FN (pl_nll), scores, K, counts, M, rankings, total);
  num_clear (total);
  return status;
}
