/* fit_gsl.c -- the double-precision start of the maximum-likelihood fits
 * (GSL's BFGS2 minimiser), and the strong-connectivity test. */
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>
#include "rlref/status.h"
#include "flow.h"
#include "fit.h"

struct start_ctx
{
  rlref_fg_double_fn *fg;
  const void *ctx;
  size_t K;
  double *s;                    /* full score vector, s[K-1] = 0 */
  double *g;
};

static void
unpack (struct start_ctx *c, const gsl_vector *x)
{
  for (size_t i = 0; i + 1 < c->K; i++)
    c->s[i] = gsl_vector_get (x, i);
  c->s[c->K - 1] = 0.0;
}

static double
start_f (const gsl_vector *x, void *p)
{
  struct start_ctx *c = p;
  double f;
  unpack (c, x);
  if (c->fg (c->ctx, c->s, &f, c->g, c->K))
    return GSL_POSINF;
  return f;
}

/* f and the gradient at x; where the objective cannot be evaluated, f is
 * +inf (as in start_f), which the line search steps back from. */
static void
start_fdf (const gsl_vector *x, void *p, double *f, gsl_vector *grad)
{
  struct start_ctx *c = p;
  unpack (c, x);
  if (c->fg (c->ctx, c->s, f, c->g, c->K))
    *f = GSL_POSINF;
  for (size_t i = 0; i + 1 < c->K; i++)
    gsl_vector_set (grad, i, c->g[i]);
}

static void
start_df (const gsl_vector *x, void *p, gsl_vector *grad)
{
  double f;
  start_fdf (x, p, &f, grad);
}

int
rlref_gsl_start (double *s, size_t K, rlref_fg_double_fn *fg, const void *ctx)
{
  struct start_ctx c = { fg, ctx, K, s, NULL };
  gsl_multimin_function_fdf fn;
  gsl_multimin_fdfminimizer *m = NULL;
  gsl_vector *x = NULL;
  gsl_error_handler_t *old;
  double mean = 0.0;
  int status = RLREF_SUCCESS, gsl_status = GSL_CONTINUE;

  memset (s, 0, K * sizeof *s);
  if (K < 2)
    return RLREF_SUCCESS;
  c.g = calloc (K, sizeof *c.g);
  x = gsl_vector_calloc (K - 1);
  m = gsl_multimin_fdfminimizer_alloc (gsl_multimin_fdfminimizer_vector_bfgs2, K - 1);
  if (!c.g || !x || !m)
    FAIL ("out of memory", RLREF_ENOMEM);
  old = gsl_set_error_handler_off ();
  fn.n = K - 1;
  fn.f = start_f;
  fn.df = start_df;
  fn.fdf = start_fdf;
  fn.params = &c;
  gsl_multimin_fdfminimizer_set (m, &fn, x, 0.1, 1e-4);
  for (int iter = 0; iter < 2000 && gsl_status == GSL_CONTINUE; iter++)
    {
      if (gsl_multimin_fdfminimizer_iterate (m))
        break;                  /* no further progress: Newton takes over */
      gsl_status = gsl_multimin_test_gradient (m->gradient, 1e-12);
    }
  unpack (&c, m->x);
  for (size_t i = 0; i < K; i++)
    mean += s[i];
  mean /= (double) K;
  for (size_t i = 0; i < K; i++)
    s[i] -= mean;
  gsl_set_error_handler (old);
done:
  if (m)
    gsl_multimin_fdfminimizer_free (m);
  if (x)
    gsl_vector_free (x);
  free (c.g);
  return status;
}

int
rlref_strongly_connected (const unsigned char *adj, size_t K)
{
  /* reachability closure (Warshall); K is small */
  unsigned char *r = malloc (K > 0 ? K * K : 1);
  int ok = 1;
  if (!r)
    return 0;
  for (size_t i = 0; i < K; i++)
    for (size_t j = 0; j < K; j++)
      r[i * K + j] = (i == j) || adj[i * K + j];
  for (size_t k = 0; k < K; k++)
    for (size_t i = 0; i < K; i++)
      if (r[i * K + k])
        for (size_t j = 0; j < K; j++)
          if (r[k * K + j])
            r[i * K + j] = 1;
  for (size_t i = 0; i < K * K; i++)
    if (!r[i])
      ok = 0;
  free (r);
  return ok;
}
