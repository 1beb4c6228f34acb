/* mle.c -- the maximum-likelihood fit of a counted likelihood (mle.h) and
 * its derivative in the counts, written once for both backends. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/status.h"
#include "rlref/primitives.h"
#include "rlref/sens.h"
#include "flow.h"
#include "fit.h"
#include "mle.h"
#include "scale.h"

/* A likelihood and its counts, as the objective of newton_gauge. */
struct counted
{
  FN (nll_fn) *nll;
  num_srcptr c;
  size_t M;
  const void *obs;
};

/* The same in binary64, as the objective of the GSL start. */
struct counted_d
{
  rlref_nll_fn_d *nll;
  const double *c;
  size_t M;
  const void *obs;
};

/* F(s; c), gradient, Hessian: fit.h's fgh_fn. */
static int
counted_fgh (const void *ctx, num_srcptr s, num_ptr f, num_ptr g, num_ptr H, size_t K)
{
  const struct counted *L = ctx;
  return L->nll (f, g, H, s, K, L->c, L->M, L->obs);
}

/* F(s; c) and gradient in binary64: fit.h's rlref_fg_double_fn. */
static int
counted_fg_d (const void *ctx, const double *s, double *f, double *g, size_t K)
{
  const struct counted_d *L = ctx;
  return L->nll (f, g, NULL, s, K, L->c, L->M, L->obs);
}

/* f = 0, g = 0, H = 0. */
void
FN (nll_zero) (num_ptr f, num_ptr g, num_ptr H, size_t K)
{
  num_set_zero (f);
  for (size_t i = 0; g && i < K; i++)
    num_set_zero (AT (g, i));
  for (size_t i = 0; H && i < K * K; i++)
    num_set_zero (AT (H, i));
}

/* Counts c_m scaled by 2^-k, k the exponent of the largest: the
 * maximum-likelihood scores do not change, the log-likelihood is 2^k
 * times that of the scaled counts.  Into cn and, as doubles for the
 * start, into cd.  ERANGE when a positive count vanishes in the scaling
 * (counts further apart than the range of the backend, or of binary64). */
static int
normalise_counts (num_ptr cn, double *cd, long *k, num_srcptr c, size_t M)
{
  *k = FN (max_exponent) (c, M);
  for (size_t m = 0; m < M; m++)
    {
      num_mul_2si (AT (cn, m), AT (c, m), -*k);
      if (num_is_zero (AT (cn, m)) && !num_is_zero (AT (c, m)))
        RLREF_ERROR ("counts span more than the exponent range", RLREF_ERANGE);
      cd[m] = num_get_d (AT (cn, m));
      if (cd[m] == 0.0 && !num_is_zero (AT (cn, m)))
        RLREF_ERROR ("counts span more than the binary64 range", RLREF_ERANGE);
    }
  return RLREF_SUCCESS;
}

/* argmin_s F(s; c 2^-k), sum s = 0: a start s0 by GSL in binary64,
 * rounded to 24 bits (Newton then reaches the same iterates whatever the
 * last bits of the platform's libm and GSL), polished by Newton's method;
 * if Newton fails from there (a start far out on the tails, where the
 * Hessian underflows), again from s = 0.  Then s is re-centred exactly
 * at mean zero (the mean of s, subtracted) and f = F(s; c 2^-k). */
static int
fit_scaled (num_ptr s, num_ptr f, const struct counted *L, const struct counted_d *Ld,
            size_t K)
{
  double *s0 = malloc (K * sizeof *s0);
  const char *why = "";
  num_t m;
  int status = RLREF_SUCCESS;
  num_init (m);
  if (!s0)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (rlref_gsl_start (s0, K, counted_fg_d, Ld));
  for (size_t i = 0; i < K; i++)
    num_set_d (AT (s, i), fabs (s0[i]) < FLT_MAX ? (double) (float) s0[i] : s0[i]);
  status = FN (newton_gauge) (s, K, counted_fgh, L, &why);
  if (status == RLREF_ERANGE || status == RLREF_EMAXITER)
    {
      for (size_t i = 0; i < K; i++)
        num_set_zero (AT (s, i));
      status = FN (newton_gauge) (s, K, counted_fgh, L, &why);
    }
  if (status)
    FAIL (why, status);
  TRY (FN (mean) (m, s, K));
  for (size_t i = 0; i < K; i++)
    num_sub (AT (s, i), AT (s, i), m);
  TRY (counted_fgh (L, s, f, NULL, NULL, K));
done:
  num_clear (m);
  free (s0);
  return status;
}

/* A finite maximum when the graph of the positive counts is strongly
 * connected; s = argmin F(s; c) = argmin F(s; c 2^-k), sum s = 0;
 * loglik = -F(s; c) = -2^k F(s; c 2^-k).  The scores are written last, so
 * they may share storage with the counts. */
int
FN (mle_fit) (num_ptr scores, num_ptr loglik, const FN (mle_lik) *L, num_srcptr c, size_t M,
              const void *obs, size_t K)
{
  unsigned char *adj = L->edges ? calloc (K * K, 1) : NULL;
  double *cd = malloc (M * sizeof *cd);
  num_ptr cn = num_vec_new (M), s = num_vec_new (K);
  num_t f;
  long k;
  int status = RLREF_SUCCESS;
  num_init (f);
  if ((L->edges && !adj) || !cd || !cn || !s)
    FAIL ("out of memory", RLREF_ENOMEM);
  if (L->edges)
    {
      L->edges (adj, c, M, obs, K);
      if (!rlref_strongly_connected (adj, K))
        FAIL (L->unbounded, RLREF_EDOM);
    }
  TRY (normalise_counts (cn, cd, &k, c, M));
  {
    struct counted Lc = { L->nll, cn, M, obs };
    struct counted_d Ld = { L->nll_d, cd, M, obs };
    TRY (fit_scaled (s, f, &Lc, &Ld, K));
  }
  for (size_t i = 0; i < K; i++)
    num_set (AT (scores, i), AT (s, i));
  num_neg (f, f);
  num_mul_2si (f, f, k);
  if (loglik)
    num_set (loglik, f);
  if (loglik && !num_is_finite (f))
    status = RANGE_ERROR ();
done:
  num_clear (f);
  free (adj);
  free (cd);
  num_vec_free (cn, M);
  num_vec_free (s, K);
  return status;
}

/* max_i |g_i| <= 2^-(prec/2) (1 + scale): g is the gradient at a minimum. */
static int
is_stationary (num_srcptr g, size_t K, num_srcptr scale)
{
  num_t t, bound;
  int ok = 1;
  NUM_INIT (t, bound);
  num_add_d (bound, scale, 1.0);
  num_mul_2si (bound, bound, -(num_prec () / 2));
  for (size_t i = 0; i < K && ok; i++)
    {
      num_abs (t, AT (g, i));
      ok = num_cmp (t, bound) <= 0;
    }
  NUM_CLEAR (t, bound);
  return ok;
}

/* F is linear in c: d(grad_s F)/dc_m = grad F_m, the gradient of the
 * likelihood of one count (c = e_m), the column m of B; d loglik/dc_m is
 * the partial derivative -F_m(s) at the optimum (envelope theorem).  With
 * H the Hessian of F(s; c), fit_jacobian gives ds/dc = -(H + 1 1^T)^-1 B. */
int
FN (mle_jacobian) (num_ptr J, FN (nll_fn) *nll, num_srcptr s, size_t K, num_srcptr c,
                   size_t M, const void *obs, num_srcptr scale)
{
  num_ptr g = num_vec_new (K), H = num_vec_new (K * K), B = num_vec_new (K * M);
  num_ptr e = num_vec_new (M), gm = num_vec_new (K);
  num_t f;
  int status = RLREF_SUCCESS;
  num_init (f);
  if (!g || !H || !B || !e || !gm)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (nll (f, g, H, s, K, c, M, obs));
  for (size_t m = 0; m < M; m++)
    {
      num_set_d (AT (e, m), 1.0);
      status = nll (f, gm, NULL, s, K, e, M, obs);
      num_set_zero (AT (e, m));
      if (status)
        goto done;
      num_neg (AT (J, K * M + m), f);
      for (size_t i = 0; i < K; i++)
        num_set (AT (B, i * M + m), AT (gm, i));
    }
  if (!is_stationary (g, K, scale))
    FAIL ("the scores are not the maximum of the likelihood", RLREF_EDOM);
  TRY (FN (fit_jacobian) (J, H, B, K, M));
done:
  num_clear (f);
  num_vec_free (g, K);
  num_vec_free (H, K * K);
  num_vec_free (B, K * M);
  num_vec_free (e, M);
  num_vec_free (gm, K);
  return status;
}
