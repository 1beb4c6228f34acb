/* pref.c -- preference and reward models (PREF-*), written once for both
 * backends.  Seed 000 sections 2.1 and 10.1, equations 13.5-13.7. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/pref.h"
#include "fit.h"

#define CHECK_FINITE(x)                                               \
  do {                                                                \
    if (!num_is_finite (x))                                           \
      RLREF_ERROR ("non-finite argument", RLREF_ENAN);                \
  } while (0)

/* (13.6)  P(y_w > y_l) = sigma(r_w - r_l). */
int
FN (bt_prob) (num_ptr p, num_srcptr rw, num_srcptr rl)
{
  num_t d;
  int status;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  num_init (d);
  num_sub (d, rw, rl);
  status = FN (sigmoid) (p, d);
  num_clear (d);
  return status;
}

/* (13.5)  P = e^{r_w} / (e^{r_w} + e^{r_l}) = exp(r_w - lse(r_w, r_l)). */
int
FN (bt_prob_softmax) (num_ptr p, num_srcptr rw, num_srcptr rl)
{
  num_ptr x = num_vec_new (2);
  num_t l;
  int status;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  if (!x)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  num_init (l);
  num_set (AT (x, 0), rw);
  num_set (AT (x, 1), rl);
  status = FN (logsumexp) (l, x, 2);
  num_sub (l, rw, l);
  num_exp (p, l);
  num_clear (l);
  num_vec_free (x, 2);
  return status;
}

/* (13.5) as written: e^{r_w} / (e^{r_w} + e^{r_l}). */
int
FN (bt_prob_naive) (num_ptr p, num_srcptr rw, num_srcptr rl)
{
  num_t a, b;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  num_init (a);
  num_init (b);
  num_exp (a, rw);
  num_exp (b, rl);
  num_add (b, a, b);
  num_div (p, a, b);
  num_clear (a);
  num_clear (b);
  return RLREF_SUCCESS;
}

/* Gumbel integrand f(x) F(x + D) = exp(-x - e^{-x} - e^{-(x + D)}), with
 * f the standard Gumbel density and F its distribution function. */
static void
gumbel_integrand (num_ptr r, num_srcptr x, num_srcptr D)
{
  num_t a, b;
  num_init (a);
  num_init (b);
  num_neg (a, x);
  num_exp (a, a);
  num_add (b, x, D);
  num_neg (b, b);
  num_exp (b, b);
  num_add (a, a, b);
  num_add (a, a, x);
  num_neg (a, a);
  num_exp (r, a);
  num_clear (a);
  num_clear (b);
}

/* One trapezoid node of the double-exponential rule: at t, with
 * u = pi/2 sinh t and x = c + sinh u, r = f(x) F(x + D) dx/dt where
 * dx/dt = pi/2 cosh t cosh u. */
static void
gumbel_node (num_ptr r, double tval, num_srcptr c, num_srcptr D, num_srcptr halfpi)
{
  num_t t, u, x, w;
  num_init (t); num_init (u); num_init (x); num_init (w);
  num_set_d (t, tval);
  num_sinh (u, t);
  num_mul (u, u, halfpi);
  num_sinh (x, u);
  num_add (x, x, c);
  gumbel_integrand (r, x, D);
  if (!num_is_zero (r))
    {
      num_cosh (w, u);
      num_cosh (t, t);
      num_mul (w, w, t);
      num_mul (w, w, halfpi);
      num_mul (r, r, w);
    }
  num_clear (t); num_clear (u); num_clear (x); num_clear (w);
}

/* Adds the nodes t = k h, k = first, first + step, ... in both directions
 * from 0 to sum, until they fall below 2^-(prec + 16) of it (|t| <= 3
 * suffices for 4096 bits: beyond, the integrand is below e^-6000). */
static void
gumbel_nodes (num_ptr sum, double h, long first, long step, num_srcptr c,
              num_srcptr D, num_srcptr halfpi)
{
  num_t term, small;
  num_init (term);
  num_init (small);
  for (int sign = -1; sign <= 1; sign += 2)
    for (long k = first; (double) k * h <= 3.0; k += step)
      {
        if (k == 0 && sign < 0)
          continue;
        gumbel_node (term, sign * (double) k * h, c, D, halfpi);
        num_add (sum, sum, term);
        num_mul_2si (small, sum, -(num_prec () + 16));
        if ((double) k * h > 1.0 && num_cmp (term, small) < 0)
          break;
      }
  num_clear (term);
  num_clear (small);
}

/* PREF-BT-GUMBEL: P(r_w + g_w > r_l + g_l) = int f(x) F(x + D) dx, D = r_w - r_l,
 * by the double-exponential rule x = c + sinh(pi/2 sinh t), trapezoids in t,
 * centred at the mode c = softplus(-D) = log(1 + e^-D).  Each level halves h
 * and adds only the new nodes; it stops when two levels agree to
 * 2^-(prec - 12) (the rounding of many terms forbids asking for the last
 * bits; the certification by two precisions measures what holds). */
int
FN (bt_gumbel_integral) (num_ptr p, num_srcptr rw, num_srcptr rl)
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
  FN (softplus) (c, c);
  num_const_pi (halfpi);
  num_mul_2si (halfpi, halfpi, -1);
  gumbel_nodes (sum, h, 0, 1, c, D, halfpi);
  num_mul_d (prev, sum, h);
  for (int level = 1; level <= 16; level++)
    {
      h /= 2;
      gumbel_nodes (sum, h, 1, 2, c, D, halfpi);
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
  num_set (p, prev);
  num_clear (D); num_clear (c); num_clear (sum); num_clear (prev); num_clear (cur);
  num_clear (diff); num_clear (tol); num_clear (halfpi);
  if (status)
    RLREF_ERROR ("quadrature did not converge", status);
  return status;
}

/* (13.7)  L = (1/B) sum_i softplus(-(r_w,i - r_l,i)) + c (1/B) sum_i (r_w,i + r_l,i)^2;
 * dL/dr_w,i = [-sigma(-D_i) + 2c (r_w,i + r_l,i)]/B, dL/dr_l,i = [sigma(-D_i) + 2c (r_w,i + r_l,i)]/B. */
int
FN (rm_loss) (num_ptr loss, num_ptr grad_rw, num_ptr grad_rl,
              num_srcptr rw, num_srcptr rl, size_t B, num_srcptr c)
{
  num_t D, t, s, sum, csum;
  if (!rw || !rl || B == 0)
    RLREF_ERROR ("empty batch", RLREF_EINVAL);
  CHECK_FINITE (c);
  if (num_sgn (c) < 0)
    RLREF_ERROR ("centring coefficient must be >= 0", RLREF_EDOM);
  for (size_t i = 0; i < B; i++)
    {
      CHECK_FINITE (AT (rw, i));
      CHECK_FINITE (AT (rl, i));
    }
  num_init (D); num_init (t); num_init (s); num_init (sum); num_init (csum);
  for (size_t i = 0; i < B; i++)
    {
      num_sub (D, AT (rw, i), AT (rl, i));
      num_neg (t, D);
      FN (softplus) (t, t);
      num_add (sum, sum, t);
      num_add (s, AT (rw, i), AT (rl, i));
      num_sqr (t, s);
      num_add (csum, csum, t);
      if (grad_rw || grad_rl)
        {
          num_neg (D, D);
          FN (sigmoid) (t, D);          /* sigma(-D) */
          num_mul (s, s, c);
          num_mul_2si (s, s, 1);        /* 2 c (r_w + r_l) */
          if (grad_rw)
            {
              num_sub (AT (grad_rw, i), s, t);
              num_div_si (AT (grad_rw, i), AT (grad_rw, i), (long) B);
            }
          if (grad_rl)
            {
              num_add (AT (grad_rl, i), s, t);
              num_div_si (AT (grad_rl, i), AT (grad_rl, i), (long) B);
            }
        }
    }
  num_mul (csum, csum, c);
  num_add (sum, sum, csum);
  num_div_si (loss, sum, (long) B);
  num_clear (D); num_clear (t); num_clear (s); num_clear (sum); num_clear (csum);
  return RLREF_SUCCESS;
}

/* log(1 + e^{r_l - r_w}) as commonly written. */
int
FN (rm_loss_naive) (num_ptr loss, num_srcptr rw, num_srcptr rl)
{
  num_t d;
  int status;
  num_init (d);
  num_sub (d, rl, rw);
  status = FN (softplus_naive) (loss, d);
  num_clear (d);
  return status;
}

/* Loss -(1 - e) log sigma(z) - e log sigma(-z) with z = D - m, and
 * dL/dz = -(1 - e) sigma(-z) + e sigma(z); shared by margin and smoothing. */
static int
smoothed_logistic (num_ptr loss, num_ptr grad_rw, num_ptr grad_rl,
                   num_srcptr z, num_srcptr e)
{
  num_t a, b, one_minus_e, g;
  num_init (a); num_init (b); num_init (one_minus_e); num_init (g);
  num_d_sub (one_minus_e, 1.0, e);
  num_neg (a, z);
  FN (softplus) (a, a);                 /* -log sigma(z) */
  num_mul (a, a, one_minus_e);
  FN (softplus) (b, z);                 /* -log sigma(-z) */
  num_mul (b, b, e);
  num_add (loss, a, b);
  num_neg (a, z);
  FN (sigmoid) (a, a);
  num_mul (a, a, one_minus_e);
  FN (sigmoid) (b, z);
  num_mul (b, b, e);
  num_sub (g, b, a);
  if (grad_rw)
    num_set (grad_rw, g);
  if (grad_rl)
    num_neg (grad_rl, g);
  num_clear (a); num_clear (b); num_clear (one_minus_e); num_clear (g);
  return RLREF_SUCCESS;
}

/* PREF-MARGIN (000 10.1):  L = -log sigma(r_w - r_l - m). */
int
FN (margin_loss) (num_ptr loss, num_ptr grad_rw, num_ptr grad_rl,
                  num_srcptr rw, num_srcptr rl, num_srcptr m)
{
  num_t z, e;
  int status;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  CHECK_FINITE (m);
  num_init (z);
  num_init (e);
  num_sub (z, rw, rl);
  num_sub (z, z, m);
  status = smoothed_logistic (loss, grad_rw, grad_rl, z, e);
  num_clear (z);
  num_clear (e);
  return status;
}

/* PREF-SMOOTH (000 10.1):  L = -(1 - eps) log sigma(D) - eps log sigma(-D). */
int
FN (smooth_loss) (num_ptr loss, num_ptr grad_rw, num_ptr grad_rl,
                  num_srcptr rw, num_srcptr rl, num_srcptr eps)
{
  num_t z;
  int status;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  CHECK_FINITE (eps);
  if (num_sgn (eps) < 0 || num_cmp_d (eps, 1.0) > 0)
    RLREF_ERROR ("label smoothing needs 0 <= eps <= 1", RLREF_EDOM);
  num_init (z);
  num_sub (z, rw, rl);
  status = smoothed_logistic (loss, grad_rw, grad_rl, z, eps);
  num_clear (z);
  return status;
}

/* PREF-ENSEMBLE (000 10.1): mean, var (ddof), std = sqrt(var),
 * penalized = mean - lambda std, lambda >= 0. */
int
FN (ensemble) (num_ptr mean, num_ptr var, num_ptr std, num_ptr penalized,
               num_srcptr scores, size_t K, int ddof, num_srcptr lambda)
{
  num_t m, v, s;
  int status;
  CHECK_FINITE (lambda);
  if (num_sgn (lambda) < 0)
    RLREF_ERROR ("the uncertainty penalty lambda must be >= 0", RLREF_EDOM);
  if (ddof != 0 && ddof != 1)
    RLREF_ERROR ("ddof must be 0 or 1", RLREF_EDOM);
  num_init (m); num_init (v); num_init (s);
  status = FN (mean) (m, scores, K);
  if (status == RLREF_SUCCESS)
    status = FN (variance) (v, scores, K, ddof);
  if (status == RLREF_SUCCESS)
    {
      num_sqrt (s, v);
      if (mean) num_set (mean, m);
      if (var) num_set (var, v);
      if (std) num_set (std, s);
      if (penalized)
        {
          num_mul (s, s, lambda);
          num_sub (penalized, m, s);
        }
    }
  num_clear (m); num_clear (v); num_clear (s);
  return status;
}

static int
check_permutation (const long *ranking, size_t K)
{
  unsigned char *seen;
  int ok = 1;
  if (!ranking || K == 0)
    RLREF_ERROR ("empty ranking", RLREF_EINVAL);
  seen = calloc (K, 1);
  if (!seen)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t k = 0; k < K && ok; k++)
    {
      if (ranking[k] < 0 || (size_t) ranking[k] >= K || seen[ranking[k]])
        ok = 0;
      else
        seen[ranking[k]] = 1;
    }
  free (seen);
  if (!ok)
    RLREF_ERROR ("ranking is not a permutation of 0..K-1", RLREF_EINVAL);
  return RLREF_SUCCESS;
}

/* One ranking's contribution to -log P (Plackett-Luce, 000 10.1):
 * f += sum_k lse(s_{pi_k..} - s_{pi_k}),
 * g_i += sum_{k: i in R_k} p_k(i) - 1,  H += sum_k diag(p_k) - p_k p_k^T. */
static void
pl_accumulate (num_ptr f, num_ptr g, num_ptr H, num_srcptr s,
               const long *pi, size_t K, num_srcptr weight, num_ptr x, num_ptr p)
{
  num_t l, t;
  num_init (l);
  num_init (t);
  for (size_t k = 0; k < K; k++)
    {
      size_t n = K - k;
      /* scores relative to the chosen one: lse of them is lse - s_{pi_k}
       * without cancellation (4.2e-18 for scores (40, 0)) */
      for (size_t j = 0; j < n; j++)
        num_sub (AT (x, j), AT (s, pi[k + j]), AT (s, pi[k]));
      FN (logsumexp) (l, x, n);
      num_set (t, l);
      if (weight)
        num_mul (t, t, weight);
      num_add (f, f, t);
      if (!g && !H)
        continue;
      for (size_t j = 0; j < n; j++)
        {
          num_sub (AT (p, j), AT (x, j), l);
          num_exp (AT (p, j), AT (p, j));
          if (weight)
            num_mul (AT (p, j), AT (p, j), weight);   /* w p_k(j) */
        }
      if (g)
        /* the chosen item's p_k - 1 is -sum_{j >= 1} p_k(j), summed
         * without cancelling against 1 */
        for (size_t j = 1; j < n; j++)
          {
            num_add (AT (g, pi[k + j]), AT (g, pi[k + j]), AT (p, j));
            num_sub (AT (g, pi[k]), AT (g, pi[k]), AT (p, j));
          }
      if (H)
        for (size_t a = 0; a < n; a++)
          for (size_t b = 0; b < n; b++)
            {
              num_ptr h = AT (H, (size_t) pi[k + a] * K + (size_t) pi[k + b]);
              num_mul (t, AT (p, a), AT (p, b));
              if (weight)
                num_div (t, t, weight);         /* w p_a p_b */
              num_sub (h, h, t);
              if (a == b)
                num_add (h, h, AT (p, a));
            }
    }
  num_clear (l);
  num_clear (t);
}

/* PREF-PL:  log P(pi) = sum_k [s_{pi_k} - lse(s_{pi_k}, ..., s_{pi_K})]. */
int
FN (pl_logprob) (num_ptr logp, num_ptr grad, num_srcptr scores,
                 const long *ranking, size_t K)
{
  num_ptr x, p;
  num_t f;
  int status = check_permutation (ranking, K);
  if (status)
    return status;
  for (size_t i = 0; i < K; i++)
    CHECK_FINITE (AT (scores, i));
  x = num_vec_new (K);
  p = num_vec_new (K);
  if (!x || !p)
    {
      num_vec_free (x, K);
      num_vec_free (p, K);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  num_init (f);
  if (grad)
    for (size_t i = 0; i < K; i++)
      num_set_zero (AT (grad, i));
  pl_accumulate (f, grad, NULL, scores, ranking, K, NULL, x, p);
  num_neg (logp, f);
  num_clear (f);
  num_vec_free (x, K);
  num_vec_free (p, K);
  return RLREF_SUCCESS;
}

/* What the double GSL start needs; the same layout in both builds. */
struct pl_start
{
  const long *rankings;
  const double *counts_d;
  size_t M, K;
};

/* Rankings and their counts in the working backend. */
struct pl_data
{
  struct pl_start start;
  num_srcptr counts;
};

/* Negative log-likelihood of M rankings, its gradient and Hessian. */
static int
pl_fgh (const void *ctx, num_srcptr s, num_ptr f, num_ptr g, num_ptr H, size_t K)
{
  const struct pl_data *d = ctx;
  num_ptr x = num_vec_new (K), p = num_vec_new (K);
  if (!x || !p)
    {
      num_vec_free (x, K);
      num_vec_free (p, K);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  num_set_zero (f);
  if (g)
    for (size_t i = 0; i < K; i++)
      num_set_zero (AT (g, i));
  if (H)
    for (size_t i = 0; i < K * K; i++)
      num_set_zero (AT (H, i));
  for (size_t m = 0; m < d->start.M; m++)
    if (!num_is_zero (AT (d->counts, m)))
      pl_accumulate (f, g, H, s, d->start.rankings + m * K, K, AT (d->counts, m), x, p);
  num_vec_free (x, K);
  num_vec_free (p, K);
  return RLREF_SUCCESS;
}

#ifndef RLREF_MP
/* The double objective for the GSL start (double build only). */
int rlref_pl_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K);
int
rlref_pl_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K)
{
  const struct pl_start *st = ctx;
  struct pl_data d = { *st, st->counts_d };
  return pl_fgh (&d, s, f, g, NULL, K);
}
#endif
int rlref_pl_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K);

/* Scores s, mean zero, and the maximum log-likelihood. */
static int
fit_finish (num_ptr scores, num_ptr loglik, FN (fgh_fn) *fgh, const void *ctx,
            const void *start_ctx, size_t K, rlref_fg_double_fn *fg_start)
{
  double *s0 = malloc (K * sizeof *s0);
  num_ptr s = num_vec_new (K);
  num_t f, m;
  int status;
  if (!s0 || !s)
    {
      free (s0);
      num_vec_free (s, K);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  status = rlref_gsl_start (s0, K, fg_start, start_ctx);
  /* the start rounded to 24 bits: Newton then reaches the same iterates
   * whatever the last bits of the platform's libm and GSL */
  for (size_t i = 0; i < K; i++)
    num_set_d (AT (s, i), fabs (s0[i]) < FLT_MAX ? (double) (float) s0[i] : s0[i]);
  if (status == RLREF_SUCCESS)
    status = FN (newton_gauge) (s, K, fgh, ctx);
  num_init (f);
  num_init (m);
  if (status == RLREF_SUCCESS)
    {
      /* re-centre exactly at mean zero */
      FN (mean) (m, s, K);
      for (size_t i = 0; i < K; i++)
        num_sub (AT (scores, i), AT (s, i), m);
      status = fgh (ctx, scores, f, NULL, NULL, K);
      if (loglik)
        num_neg (loglik, f);
    }
  num_clear (f);
  num_clear (m);
  num_vec_free (s, K);
  free (s0);
  return status;
}

/* PREF-PL maximum likelihood: argmax_s sum_m c_m log P(pi_m; s), sum s = 0. */
int
FN (pl_mle) (num_ptr scores, num_ptr loglik, const long *rankings, num_srcptr counts,
             size_t M, size_t K)
{
  struct pl_data d = { { rankings, NULL, M, K }, counts };
  unsigned char *adj;
  double *cd;
  int status, connected;
  if (!rankings || !counts || M == 0 || K < 2)
    RLREF_ERROR ("need at least one ranking of at least two items", RLREF_EINVAL);
  for (size_t m = 0; m < M; m++)
    {
      if ((status = check_permutation (rankings + m * K, K)))
        return status;
      CHECK_FINITE (AT (counts, m));
      if (num_sgn (AT (counts, m)) < 0)
        RLREF_ERROR ("negative ranking count", RLREF_EDOM);
    }
  adj = calloc (K * K, 1);
  cd = malloc (M * sizeof *cd);
  if (!adj || !cd)
    {
      free (adj);
      free (cd);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  for (size_t m = 0; m < M; m++)
    {
      cd[m] = num_get_d (AT (counts, m));
      if (!num_is_zero (AT (counts, m)))
        for (size_t a = 0; a < K; a++)
          for (size_t b = a + 1; b < K; b++)
            adj[rankings[m * K + a] * K + rankings[m * K + b]] = 1;
    }
  connected = rlref_strongly_connected (adj, K);
  free (adj);
  if (!connected)
    {
      free (cd);
      RLREF_ERROR ("some items are never ranked below others: no finite maximum", RLREF_EDOM);
    }
  d.start.counts_d = cd;
  status = fit_finish (scores, loglik, pl_fgh, &d, &d.start, K, rlref_pl_fg_start);
  free (cd);
  return status;
}

/* What the double GSL start needs; the same layout in both builds. */
struct bt_start
{
  const double *wins_d;
  size_t n;
};

struct bt_data
{
  struct bt_start start;
  num_srcptr wins;
};

/* -sum_ij w_ij log sigma(s_i - s_j), gradient and Hessian (13.7 with counts). */
static int
bt_fgh (const void *ctx, num_srcptr s, num_ptr f, num_ptr g, num_ptr H, size_t n)
{
  const struct bt_data *d = ctx;
  num_t D, t, c;
  (void) n;
  num_init (D); num_init (t); num_init (c);
  num_set_zero (f);
  if (g)
    for (size_t i = 0; i < n; i++)
      num_set_zero (AT (g, i));
  if (H)
    for (size_t i = 0; i < n * n; i++)
      num_set_zero (AT (H, i));
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      {
        num_srcptr w = AT (d->wins, i * n + j);
        if (i == j || num_is_zero (w))
          continue;
        num_sub (D, AT (s, i), AT (s, j));
        num_neg (t, D);
        FN (softplus) (t, t);
        num_mul (t, t, w);
        num_add (f, f, t);
        if (g)
          {
            num_neg (t, D);
            FN (sigmoid) (t, t);
            num_mul (t, t, w);          /* w sigma(-D) */
            num_sub (AT (g, i), AT (g, i), t);
            num_add (AT (g, j), AT (g, j), t);
          }
        if (H)
          {
            FN (sigmoid) (c, D);
            num_neg (t, D);
            FN (sigmoid) (t, t);
            num_mul (c, c, t);
            num_mul (c, c, w);          /* w sigma(D) sigma(-D) */
            num_add (AT (H, i * n + i), AT (H, i * n + i), c);
            num_add (AT (H, j * n + j), AT (H, j * n + j), c);
            num_sub (AT (H, i * n + j), AT (H, i * n + j), c);
            num_sub (AT (H, j * n + i), AT (H, j * n + i), c);
          }
      }
  num_clear (D); num_clear (t); num_clear (c);
  return RLREF_SUCCESS;
}

#ifndef RLREF_MP
int rlref_bt_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K);
int
rlref_bt_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K)
{
  const struct bt_start *st = ctx;
  struct bt_data dd = { *st, st->wins_d };
  return bt_fgh (&dd, s, f, g, NULL, K);
}
#endif
int rlref_bt_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K);

/* PREF-BT-MLE: argmax_s sum_ij w_ij log sigma(s_i - s_j), sum s = 0. */
int
FN (bt_mle) (num_ptr scores, num_ptr loglik, num_srcptr wins, size_t n)
{
  struct bt_data d = { { NULL, n }, wins };
  unsigned char *adj;
  double *wd;
  int status, connected;
  if (!wins || n < 2)
    RLREF_ERROR ("need at least two items", RLREF_EINVAL);
  for (size_t i = 0; i < n * n; i++)
    {
      CHECK_FINITE (AT (wins, i));
      if (num_sgn (AT (wins, i)) < 0)
        RLREF_ERROR ("negative preference count", RLREF_EDOM);
    }
  adj = calloc (n * n, 1);
  wd = malloc (n * n * sizeof *wd);
  if (!adj || !wd)
    {
      free (adj);
      free (wd);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  for (size_t i = 0; i < n * n; i++)
    {
      wd[i] = num_get_d (AT (wins, i));
      adj[i] = (i / n != i % n) && !num_is_zero (AT (wins, i));
    }
  connected = rlref_strongly_connected (adj, n);
  free (adj);
  if (!connected)
    {
      free (wd);
      RLREF_ERROR ("comparison graph not strongly connected: no finite maximum", RLREF_EDOM);
    }
  d.start.wins_d = wd;
  status = fit_finish (scores, loglik, bt_fgh, &d, &d.start, n, rlref_bt_fg_start);
  free (wd);
  return status;
}
