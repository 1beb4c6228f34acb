/* dpofinite.c -- the DPO derivation on an explicit finite outcome set
 * (DPO-IMPLICIT-R, DPO-ZCANCEL, DPO-EQUIV): seed 000 section 4, equations
 * 13.17-13.21, and the IPO population loss.  Written once for both
 * backends.
 *
 * Throughout, pi_ref = p_ref / S (S the exact sum), beta > 0,
 *   log Z = log sum_y pi_ref(y) e^{r(y)/beta}                       (13.15)
 *   log pi*(y) = log pi_ref(y) + r(y)/beta - log Z                  (13.17)
 * and a policy pi = pi_ref e^h / sum pi_ref e^h, h = log(pi/pi_ref) in the
 * gauge that normalises pi. */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/dpofinite.h"
#include "rlref/klopt.h"
#include "rlref/primitives.h"
#include "flow.h"
#include "fit.h"
#include "klopt/klopt_impl.h"

/* ENAN unless every x_i is finite. */
static int
all_finite (num_srcptr x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (x, i)))
      return 0;
  return 1;
}

/* pi_ref: lq[i] = log(p_i / S), q[i] = p_i / S, S = sum p exactly (rounded
 * once); EDOM for a p_i <= 0 or |S - 1| > RLREF_DPOFINITE_SUM_TOL. */
static int
read_ref (num_ptr lq, num_ptr q, num_srcptr p, size_t n)
{
  num_t s, t;
  int status = RLREF_SUCCESS;
  NUM_INIT (s, t);
  for (size_t i = 0; i < n; i++)
    if (num_sgn (AT (p, i)) <= 0)
      FAIL ("every outcome needs pi_ref > 0 (log(pi/pi_ref) is undefined at 0)", RLREF_EDOM);
  TRY (num_sum (s, p, n));
  num_sub_d (t, s, 1.0);
  num_abs (t, t);
  if (num_cmp_d (t, RLREF_DPOFINITE_SUM_TOL) > 0)
    FAIL ("p_ref does not sum to 1 (within 2^-20)", RLREF_EDOM);
  for (size_t i = 0; i < n; i++)
    {
      num_div (AT (q, i), AT (p, i), s);
      num_log (AT (lq, i), AT (q, i));
    }
done:
  NUM_CLEAR (s, t);
  return status;
}

/* 13.15, 13.17 in KLOPT's forms (klopt_solution): log Z = c/beta + L with
 * the reward c of the likeliest outcome shifted out and L = log1p(sum_y
 * pi_ref(y) expm1((r(y) - c)/beta)) near 0, so that log Z of nearly equal
 * rewards keeps its digits (p_ref 1/4 each, r = 1e-8, beta 2: exactly
 * 5e-9, where a log-sum-exp of log pi_ref + r/beta loses eight); pi*,
 * logpi = log pi*, h = log(pi* / pi_ref) = r/beta - log Z formed as
 * (r - c)/beta - L (neither a huge r/beta nor a tiny one cancels against
 * log Z), and lq = log pi_ref as KLOPT normalises it (log1p(-sum of the
 * others) for the likeliest, so that h = 0 is log pi* - log pi_ref). */
static int
optimum (num_ptr logz, num_ptr pistar, num_ptr logpi, num_ptr h, num_ptr lq,
         num_srcptr p_ref, num_srcptr r, size_t n, num_srcptr beta)
{
  return FN (klopt_solution) (logz, pistar, logpi, h, lq, p_ref, RLREF_KLOPT_PROB, r, n, beta);
}

/* 2^(10 - p) x: the rounding bound of a quantity built from magnitudes
 * summing to x (p = 53 or the working precision). */
static void
bound (num_ptr b, num_srcptr x)
{
  num_mul_2si (b, x, 10 - (long) num_prec ());
}

/* The checks and the reading of p_ref, r (n each) and beta. */
static int
read_inputs (num_ptr lq, num_ptr q, num_srcptr p_ref, num_srcptr r, size_t n,
             num_srcptr beta)
{
  if (!p_ref || !r || !beta || n == 0)
    RLREF_ERROR ("NULL or empty input", RLREF_EINVAL);
  if (!all_finite (p_ref, n) || !all_finite (r, n) || !num_is_finite (beta))
    RLREF_ERROR ("non-finite input", RLREF_ENAN);
  if (num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be > 0", RLREF_EDOM);
  return read_ref (lq, q, p_ref, n);
}

/* DPO-IMPLICIT-R (13.18): r^(y) = beta log(pi*(y)/pi_ref(y)) + beta log Z,
 * from pi* and Z as numbers (log(pi* / pi_ref) as optimum forms it); residual
 * r^ - r, 0 within its bound
 * 2^(10-p) (|r| + beta (|log pi*| + |log pi_ref| + 2 |log Z|)), and then
 * r^ = r exactly (the sum cancels to r: its rounding error is absolute). */
int
FN (dpofinite_implicit) (num_ptr pistar, num_ptr logz, num_ptr r_hat, num_ptr residual,
                      num_srcptr p_ref, num_srcptr r, size_t n, num_srcptr beta)
{
  int status = RLREF_SUCCESS;
  num_ptr lq = num_vec_new (n), q = num_vec_new (n), lp = num_vec_new (n);
  num_ptr rh = num_vec_new (n), res = num_vec_new (n), ps = num_vec_new (n);
  num_ptr hh = num_vec_new (n);
  num_t lz, u, b;
  NUM_INIT (lz, u, b);
  if (!lq || !q || !lp || !rh || !res || !ps || !hh)
    FAIL ("out of memory", RLREF_ENOMEM);
  if (!pistar || !logz || !r_hat || !residual)
    FAIL ("NULL output", RLREF_EINVAL);
  TRY (read_inputs (lq, q, p_ref, r, n, beta));
  TRY (optimum (lz, ps, lp, hh, lq, p_ref, r, n, beta));
  for (size_t i = 0; i < n; i++)
    {
      num_add (u, AT (hh, i), lz);
      num_mul (AT (rh, i), u, beta);
      num_sub (AT (res, i), AT (rh, i), AT (r, i));
      /* the bound */
      num_abs (b, lz);
      num_mul_2si (b, b, 1);
      num_abs (u, AT (lp, i));
      num_add (b, b, u);
      num_abs (u, AT (lq, i));
      num_add (b, b, u);
      num_mul (b, b, beta);
      num_abs (u, AT (r, i));
      num_add (b, b, u);
      bound (b, b);
      num_abs (u, AT (res, i));
      if (num_cmp (u, b) <= 0)
        {
          num_set_zero (AT (res, i));
          num_set (AT (rh, i), AT (r, i));
        }
    }
  for (size_t i = 0; i < n; i++)
    {
      num_set (AT (pistar, i), AT (ps, i));
      num_set (AT (r_hat, i), AT (rh, i));
      num_set (AT (residual, i), AT (res, i));
    }
  num_set (logz, lz);
done:
  NUM_CLEAR (lz, u, b);
  num_vec_free (lq, n);
  num_vec_free (q, n);
  num_vec_free (lp, n);
  num_vec_free (rh, n);
  num_vec_free (res, n);
  num_vec_free (ps, n);
  num_vec_free (hh, n);
  return status;
}

/* DPO-ZCANCEL (13.19, 13.20): h = log pi* - log pi_ref at w and l (as
 * optimum forms it), margin beta (h_w - h_l), in which the two log Z
 * cancel, = r_w - r_l; sigma of it and of r_w - r_l.  ERANGE where h is
 * beyond the working range. */
int
FN (dpofinite_zcancel) (num_ptr h_w, num_ptr h_l, num_ptr margin, num_ptr reward_diff,
                     num_ptr p_policy, num_ptr p_reward, num_ptr logz, num_srcptr p_ref,
                     num_srcptr r, size_t n, num_srcptr beta, size_t w, size_t l)
{
  int status = RLREF_SUCCESS;
  num_ptr lq = num_vec_new (n), q = num_vec_new (n), lp = num_vec_new (n);
  num_t lz, hw, hl, m, d, pp, pr;
  NUM_INIT (lz, hw, hl, m, d, pp, pr);
  if (!lq || !q || !lp)
    FAIL ("out of memory", RLREF_ENOMEM);
  if (!h_w || !h_l || !margin || !reward_diff || !p_policy || !p_reward || !logz)
    FAIL ("NULL output", RLREF_EINVAL);
  if (n > 0 && (w >= n || l >= n))
    FAIL ("w or l is not an outcome", RLREF_EINVAL);
  TRY (read_inputs (lq, q, p_ref, r, n, beta));
  if (w == l)
    FAIL ("w = l: a pair needs two outcomes", RLREF_EDOM);
  TRY (optimum (lz, NULL, NULL, lp, lq, p_ref, r, n, beta));
  num_set (hw, AT (lp, w));
  num_set (hl, AT (lp, l));
  if (!num_is_finite (hw) || !num_is_finite (hl))
    FAIL ("h = r/beta - log Z is beyond the working range (r/beta overflows)", RLREF_ERANGE);
  /* beta (h_w - h_l) = (r_w - c) - (r_l - c) with L cancelled exactly:
   * formed apart, beta h_w and beta h_l cancel when both are large (a
   * reward of 1e308 elsewhere) */
  num_sub (d, AT (r, w), AT (r, l));
  num_set (m, d);
  TRY (FN (sigmoid) (pp, m));
  TRY (FN (sigmoid) (pr, d));
  num_set (h_w, hw);
  num_set (h_l, hl);
  num_set (margin, m);
  num_set (reward_diff, d);
  num_set (p_policy, pp);
  num_set (p_reward, pr);
  num_set (logz, lz);
done:
  NUM_CLEAR (lz, hw, hl, m, d, pp, pr);
  num_vec_free (lq, n);
  num_vec_free (q, n);
  num_vec_free (lp, n);
  return status;
}

/* The population loss of h and its gradient in h (which is the gradient in
 * the logits of pi: L depends on differences of h only), for pair weights
 * W (n x n, 0 on the diagonal):
 *   L = sum_{i != j} W_ij l(z_ij), z_ij = h_i - h_j,
 *   dL/dh_k = sum_j W_kj l'(z_kj) - W_jk l'(z_jk),
 * DPO l(z) = softplus(-s z), l' = -s sigma(-s z) (13.21); IPO l(z) =
 * (z - 1/(2s))^2, l' = 2 (z - 1/(2s)).  Each component is set to 0 within
 * its rounding bound 2^(10-p) sum_j (W_kj + W_jk) m_kj, m_kj = s (1 +
 * s (|h_k| + |h_j|)) (DPO) or 2 (|h_k| + |h_j| + 1/(2s)) (IPO).
 * When the scores x = s h (+ a constant) are given (DPO only), s z_ij is
 * x_i - x_j: s h_i and s h_j, formed apart, cancel where both are large.
 * grad_norm = |dL/dh|; kl = KL(pi || pi_ref) (pi given, or e^{logpi}) = sum_y q(y) kl_term(h(y)),
 * h = log(pi/pi_ref), q = pi_ref: terms >= 0, no cancellation (for h near
 * 0 the KL is of order h^2, far below sum pi h's rounding); for |h| >= 1
 * the term is q + (h - 1) pi. */
static int
loss_grad (num_ptr loss, num_ptr grad_norm, num_ptr kl, num_srcptr W, num_srcptr h,
           num_srcptr x, num_srcptr q, num_srcptr logpi, num_srcptr pi, size_t n,
           num_srcptr s, int kind)
{
  int status = RLREF_SUCCESS;
  num_ptr g = num_vec_new (n), bd = num_vec_new (n), terms = num_vec_new (n * n);
  num_t z, c, v, dl, u, m;
  NUM_INIT (z, c, v, dl, u, m);
  if (!g || !bd || !terms)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_d_div (c, 0.5, s);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      {
        num_srcptr w = AT (W, i * n + j);
        num_set_zero (AT (terms, i * n + j));
        if (i == j)
          continue;
        num_sub (z, AT (h, i), AT (h, j));
        if (kind == RLREF_DPOFINITE_DPO)
          {
            if (x)
              num_sub (u, AT (x, j), AT (x, i));
            else
              {
                num_mul (u, s, z);
                num_neg (u, u);
              }
            TRY (FN (softplus) (v, u));
            TRY (FN (sigmoid) (dl, u));
            num_mul (dl, dl, s);
            num_neg (dl, dl);
          }
        else
          {
            num_sub (u, z, c);
            num_sqr (v, u);
            num_mul_2si (dl, u, 1);
          }
        num_mul (AT (terms, i * n + j), v, w);
        num_mul (dl, dl, w);
        num_add (AT (g, i), AT (g, i), dl);
        num_sub (AT (g, j), AT (g, j), dl);
        /* the bound's magnitudes, on both ends of the pair */
        num_abs (m, AT (h, i));
        num_abs (u, AT (h, j));
        num_add (m, m, u);
        if (kind == RLREF_DPOFINITE_DPO)
          {
            num_mul (m, m, s);
            num_add_d (m, m, 1.0);
            num_mul (m, m, s);
          }
        else
          {
            num_add (m, m, c);
            num_mul_2si (m, m, 1);
          }
        num_mul (m, m, w);
        num_add (AT (bd, i), AT (bd, i), m);
        num_add (AT (bd, j), AT (bd, j), m);
      }
  TRY (num_sum (v, terms, n * n));
  for (size_t k = 0; k < n; k++)
    {
      bound (m, AT (bd, k));
      num_abs (u, AT (g, k));
      if (num_cmp (u, m) <= 0)
        num_set_zero (AT (g, k));
    }
  TRY (num_dot (u, g, g, n));
  num_sqrt (grad_norm, u);
  for (size_t k = 0; k < n; k++)
    {
      num_abs (u, AT (h, k));
      if (num_cmp_d (u, 1.0) < 0)
        {
          TRY (FN (kl_term) (u, AT (h, k)));
          num_mul (AT (terms, k), AT (q, k), u);
        }
      else
        {
          /* q h(e) = q + (e - 1) pi: pi (given, or e^{log pi}) stays
           * finite where e^e alone would overflow */
          if (pi)
            num_set (u, AT (pi, k));
          else
            num_exp (u, AT (logpi, k));
          num_sub_d (m, AT (h, k), 1.0);
          num_mul (u, u, m);
          num_add (AT (terms, k), u, AT (q, k));
        }
    }
  TRY (num_sum (kl, terms, n));
  num_set (loss, v);
done:
  NUM_CLEAR (z, c, v, dl, u, m);
  num_vec_free (g, n);
  num_vec_free (bd, n);
  num_vec_free (terms, n * n);
  return status;
}

#ifdef RLREF_MP
/* The policy of scores g (13.17): h = g - log sum_y pi_ref(y) e^{g(y)},
 * log pi = log pi_ref + h.  With c = max g and d = g - c, h = d - L,
 * L = log sum_y q_y e^{d_y} = log1p((sum q - 1) + sum q expm1(d)) (or the
 * log of the sum when that is below 1/2), so that neither tiny scores (a
 * beta of 1e40: h ~ 1e-40) are lost against log pi_ref nor huge ones (a
 * tiny beta or tau: h ~ 1e300) lose log pi_ref: c + L is never formed. */
static int
policy (num_ptr logpi, num_ptr h, num_srcptr lq, num_srcptr q, num_srcptr g, size_t n)
{
  int status = RLREF_SUCCESS;
  num_ptr terms = num_vec_new (n + 1);
  num_t c, d, w, L;
  NUM_INIT (c, d, w, L);
  if (!terms)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set (c, AT (g, 0));
  for (size_t i = 1; i < n; i++)
    num_max (c, c, AT (g, i));
  /* W = (sum q - 1) + sum q expm1(d), each term rounded once, summed once */
  for (size_t i = 0; i < n; i++)
    {
      num_sub (d, AT (g, i), c);
      num_expm1 (w, d);
      num_mul (AT (terms, i), AT (q, i), w);
    }
  TRY (num_sum (w, q, n));
  num_sub_d (AT (terms, n), w, 1.0);
  TRY (num_sum (w, terms, n + 1));
  if (num_cmp_d (w, -0.5) >= 0)
    num_log1p (L, w);
  else
    {
      for (size_t i = 0; i < n; i++)
        {
          num_sub (d, AT (g, i), c);
          num_exp (d, d);
          num_mul (AT (terms, i), AT (q, i), d);
        }
      TRY (num_sum (w, terms, n));
      num_log (L, w);
    }
  for (size_t i = 0; i < n; i++)
    {
      num_sub (d, AT (g, i), c);
      num_sub (AT (h, i), d, L);
      if (!num_is_zero (d))
        num_add (AT (logpi, i), AT (lq, i), AT (h, i));
      else
        {
          /* a largest score: log pi_i = -log1p(sum_{j != i} (q_j/q_i) e^{d_j}), whose
           * argument may be far below the rounding of log q_i - L (pi_i = 1 - 1e-300) */
          size_t m = 0;
          for (size_t j = 0; j < n; j++)
            if (j != i)
              {
                num_sub (w, AT (g, j), c);
                num_exp (w, w);
                num_mul (w, w, AT (q, j));
                num_div (AT (terms, m++), w, AT (q, i));
              }
          TRY (num_sum (w, terms, m));
          num_log1p (w, w);
          num_neg (AT (logpi, i), w);
        }
    }
done:
  NUM_CLEAR (c, d, w, L);
  num_vec_free (terms, n + 1);
  return status;
}
#endif

/* DPO-EQUIV, Bradley-Terry preferences: each pair's term
 * P_ij softplus(-beta z) + P_ji softplus(beta z), P_ij = sigma(r_i - r_j),
 * is least at beta z = r_i - r_j, so h = r/beta (+ a constant) and the
 * minimiser is pi* of 13.17 (000 section 4.3). */
int
FN (dpofinite_equiv_bt) (num_ptr logpi, num_ptr h, num_ptr loss, num_ptr grad_norm, num_ptr kl,
                      num_srcptr p_ref, num_srcptr r, size_t n, num_srcptr beta)
{
  int status = RLREF_SUCCESS;
  num_ptr lq = num_vec_new (n), q = num_vec_new (n), lp = num_vec_new (n);
  num_ptr hh = num_vec_new (n), W = num_vec_new (n * n), ps = num_vec_new (n);
  num_t lz, u, lo, gn, k;
  NUM_INIT (lz, u, lo, gn, k);
  if (!lq || !q || !lp || !hh || !W || !ps)
    FAIL ("out of memory", RLREF_ENOMEM);
  if (!logpi || !h || !loss || !grad_norm || !kl)
    FAIL ("NULL output", RLREF_EINVAL);
  if (n < 2 || n > RLREF_DPOFINITE_MAX_N)
    FAIL ("a population loss takes 2 to 64 outcomes", RLREF_EINVAL);
  TRY (read_inputs (lq, q, p_ref, r, n, beta));
  TRY (optimum (lz, ps, lp, hh, lq, p_ref, r, n, beta));
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (hh, i)))
      FAIL ("h = r/beta - log Z is beyond the working range (r/beta overflows)", RLREF_ERANGE);
  for (size_t i = 0; i < n; i++)
    {
      for (size_t j = 0; j < n; j++)
        {
          num_ptr w = AT (W, i * n + j);
          if (i == j)
            continue;
          num_sub (u, AT (r, i), AT (r, j));
          TRY (FN (sigmoid) (w, u));
          num_mul (w, w, AT (q, i));
          num_mul (w, w, AT (q, j));
        }
    }
  TRY (loss_grad (lo, gn, k, W, hh, r, q, lp, ps, n, beta, RLREF_DPOFINITE_DPO));
  for (size_t i = 0; i < n; i++)
    {
      num_set (AT (logpi, i), AT (lp, i));
      num_set (AT (h, i), AT (hh, i));
    }
  num_set (loss, lo);
  num_set (grad_norm, gn);
  num_set (kl, k);
done:
  NUM_CLEAR (lz, u, lo, gn, k);
  num_vec_free (lq, n);
  num_vec_free (q, n);
  num_vec_free (lp, n);
  num_vec_free (hh, n);
  num_vec_free (W, n * n);
  num_vec_free (ps, n);
  return status;
}

#ifdef RLREF_MP
/* The DPO population loss as a function of the scores x = beta h: the
 * Bradley-Terry negative log-likelihood f = sum W_ij softplus(x_j - x_i),
 * gradient g_k = -sum_j W_kj sigma(x_j - x_k) + sum_j W_jk sigma(x_k -
 * x_j), Hessian the Laplacian of weights (W_ij + W_ji) sigma(z) sigma(-z). */
struct bt_ctx
{
  num_srcptr W;
};

static int
FN (bt_fgh) (const void *ctx, num_srcptr x, num_ptr f, num_ptr g, num_ptr H, size_t K)
{
  num_srcptr W = ((const struct bt_ctx *) ctx)->W;
  int status = RLREF_SUCCESS;
  num_t z, a, b, t;
  NUM_INIT (z, a, b, t);
  num_set_zero (f);
  for (size_t i = 0; i < K; i++)
    {
      if (g)
        num_set_zero (AT (g, i));
      if (H)
        for (size_t j = 0; j < K; j++)
          num_set_zero (AT (H, i * K + j));
    }
  for (size_t i = 0; i < K; i++)
    for (size_t j = 0; j < K; j++)
      {
        num_srcptr w = AT (W, i * K + j);
        if (i == j || num_is_zero (w))
          continue;
        num_sub (z, AT (x, j), AT (x, i));
        TRY (FN (softplus) (t, z));
        num_mul (t, t, w);
        num_add (f, f, t);
        TRY (FN (sigmoid) (a, z));            /* sigma(x_j - x_i) */
        if (g)
          {
            num_mul (t, a, w);
            num_sub (AT (g, i), AT (g, i), t);
            num_add (AT (g, j), AT (g, j), t);
          }
        if (H)
          {
            num_neg (b, z);
            TRY (FN (sigmoid) (b, b));
            num_mul (t, a, b);
            num_mul (t, t, w);
            num_sub (AT (H, i * K + j), AT (H, i * K + j), t);
            num_sub (AT (H, j * K + i), AT (H, j * K + i), t);
            num_add (AT (H, i * K + i), AT (H, i * K + i), t);
            num_add (AT (H, j * K + j), AT (H, j * K + j), t);
          }
      }
done:
  NUM_CLEAR (z, a, b, t);
  return status;
}

/* DPO-EQUIV for a preference matrix P: W_ij = pi_ref_i pi_ref_j P_ij /
 * (P_ij + P_ji) (each pair normalised, as p_ref is).
 * DPO: L is a Bradley-Terry likelihood of the scores beta h with counts
 * W, finite at its minimum exactly when the graph of W_ij > 0 is strongly
 * connected (Zermelo, Ford); Newton's method with the gauge sum = 0
 * (newton.c) from 0.  IPO: dL/dh = 0 is the Laplacian system
 *   sum_j (W_kj + W_jk)(h_k - h_j) = (1/(2 tau)) sum_j (W_kj - W_jk),
 * solved grounded (newton.c, laplacian_solve); then normalised. */
int
FN (dpofinite_equiv) (num_ptr logpi, num_ptr h, num_ptr loss, num_ptr grad_norm, num_ptr kl,
                   num_srcptr p_ref, num_srcptr P, size_t n, num_srcptr s, int loss_kind)
{
  int status = RLREF_SUCCESS;
  size_t nn = n * n;
  num_ptr lq = num_vec_new (n), q = num_vec_new (n), lp = num_vec_new (n);
  num_ptr hh = num_vec_new (n), x = num_vec_new (n), W = num_vec_new (n * n);
  num_ptr A = num_vec_new (n * n);
  unsigned char *adj = calloc (nn > 0 ? nn : 1, 1);
  num_t u, lo, gn, k, c;
  const char *why = NULL;
  NUM_INIT (u, lo, gn, k, c);
  if (!lq || !q || !lp || !hh || !x || !W || !A || !adj)
    FAIL ("out of memory", RLREF_ENOMEM);
  if (!logpi || !h || !loss || !grad_norm || !kl || !p_ref || !P || !s)
    FAIL ("NULL argument", RLREF_EINVAL);
  if (n < 2 || n > RLREF_DPOFINITE_MAX_N)
    FAIL ("a population loss takes 2 to 64 outcomes", RLREF_EINVAL);
  if (loss_kind != RLREF_DPOFINITE_DPO && loss_kind != RLREF_DPOFINITE_IPO)
    FAIL ("unknown loss", RLREF_EINVAL);
  if (!all_finite (p_ref, n) || !all_finite (P, nn) || !num_is_finite (s))
    FAIL ("non-finite input", RLREF_ENAN);
  if (num_sgn (s) <= 0)
    FAIL ("beta (tau) must be > 0", RLREF_EDOM);
  TRY (read_ref (lq, q, p_ref, n));
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      {
        if (i == j)
          continue;
        if (num_sgn (AT (P, i * n + j)) < 0)
          FAIL ("P_ij is negative", RLREF_EDOM);
        num_add (u, AT (P, i * n + j), AT (P, j * n + i));
        num_sub_d (c, u, 1.0);
        num_abs (c, c);
        if (num_cmp_d (c, RLREF_DPOFINITE_SUM_TOL) > 0)
          FAIL ("P_ij + P_ji is not 1 (within 2^-20)", RLREF_EDOM);
        /* W_ij = pi_ref_i pi_ref_j P_ij / (P_ij + P_ji) */
        num_div (c, AT (P, i * n + j), u);
        num_mul (AT (W, i * n + j), AT (q, i), AT (q, j));
        num_mul (AT (W, i * n + j), AT (W, i * n + j), c);
        adj[i * n + j] = !num_is_zero (AT (W, i * n + j));
      }
  if (loss_kind == RLREF_DPOFINITE_DPO)
    {
      struct bt_ctx ctx = { W };
      if (!rlref_strongly_connected (adj, n))
        FAIL ("no finite minimiser: the preferences are deterministic (the graph of P_ij > 0 "
              "is not strongly connected; the DPO loss falls towards 0 as the policy "
              "concentrates)", RLREF_EDOM);
      status = FN (newton_gauge) (x, n, FN (bt_fgh), &ctx, &why);
      if (status)
        FAIL (why, status);
      for (size_t i = 0; i < n; i++)
        num_div (AT (x, i), AT (x, i), s);
    }
  else
    {
      num_d_div (c, 0.5, s);
      if (!num_is_finite (c))
        FAIL ("1/(2 tau) overflows the working format (tau below 2.8e-309 in binary64)",
              RLREF_ERANGE);
      for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
          {
            if (i == j)
              continue;
            num_add (AT (A, i * n + j), AT (W, i * n + j), AT (W, j * n + i));
            num_neg (AT (A, i * n + j), AT (A, i * n + j));
            num_sub (u, AT (W, i * n + j), AT (W, j * n + i));
            num_add (AT (x, i), AT (x, i), u);
          }
      for (size_t i = 0; i < n; i++)
        num_mul (AT (x, i), AT (x, i), c);
      status = FN (laplacian_solve) (A, x, n, &why);
      if (status)
        FAIL (why, status);
    }
  TRY (policy (lp, hh, lq, q, x, n));
  TRY (loss_grad (lo, gn, k, W, hh, NULL, q, lp, NULL, n, s, loss_kind));
  for (size_t i = 0; i < n; i++)
    {
      num_set (AT (logpi, i), AT (lp, i));
      num_set (AT (h, i), AT (hh, i));
    }
  num_set (loss, lo);
  num_set (grad_norm, gn);
  num_set (kl, k);
done:
  NUM_CLEAR (u, lo, gn, k, c);
  num_vec_free (lq, n);
  num_vec_free (q, n);
  num_vec_free (lp, n);
  num_vec_free (hh, n);
  num_vec_free (x, n);
  num_vec_free (W, nn);
  num_vec_free (A, nn);
  free (adj);
  return status;
}

#else
/* binary64: the MPFR solve above, each output rounded once
 * (round_once.h).  Newton's method on the scores beta h stops some ulps
 * out, and from beta far from 1 the division by beta or the Hessian's
 * underflow loses h (signs wrong from beta = 1e16, h = 0 at 1e-300); the
 * IPO right side 1/(2 tau) overflows below tau = 2.8e-309. */
#include <stdlib.h>
#include <string.h>
#include "round_once.h"

typedef struct
{
  size_t n;
  int loss_kind;
} equiv_program;

/* x = (p_ref, P, s); y = (logpi, h, loss, grad_norm, kl). */
static int
equiv_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const equiv_program *o = ctx;
  size_t n = o->n;
  return rlref_dpofinite_equiv_mp (y, y + n, y + 2 * n, y + 2 * n + 1, y + 2 * n + 2, x, x + n,
                                n, x + n + n * n, o->loss_kind);
}

int
FN (dpofinite_equiv) (num_ptr logpi, num_ptr h, num_ptr loss, num_ptr grad_norm, num_ptr kl,
                   num_srcptr p_ref, num_srcptr P, size_t n, num_srcptr s, int loss_kind)
{
  equiv_program o = { n, loss_kind };
  size_t nx = n + n * n + 1, ny = 2 * n + 3;
  double *xd;
  int status;
  if (!logpi || !h || !loss || !grad_norm || !kl || !p_ref || !P || !s)
    RLREF_ERROR ("NULL argument", RLREF_EINVAL);
  if (n < 2 || n > RLREF_DPOFINITE_MAX_N)
    RLREF_ERROR ("a population loss takes 2 to 64 outcomes", RLREF_EINVAL);
  xd = malloc ((nx + ny) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, p_ref, n * sizeof *xd);
  memcpy (xd + n, P, n * n * sizeof *xd);
  xd[nx - 1] = s[0];
  status = rlref_round_once (xd + nx, ny, xd, nx, equiv_mp, &o,
                             "the minimiser of the population loss");
  if (status == RLREF_SUCCESS)
    {
      const double *y = xd + nx;
      memcpy (logpi, y, n * sizeof *logpi);
      memcpy (h, y + n, n * sizeof *h);
      *loss = y[2 * n];
      *grad_norm = y[2 * n + 1];
      *kl = y[2 * n + 2];
    }
  free (xd);
  return status;
}
#endif
