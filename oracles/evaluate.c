/* evaluate.c -- evaluating a registry formula in both precisions. */
#include <stdlib.h>
#include <string.h>
#include "rlref/status.h"
#include "args.h"
#include "evaluate.h"

struct mp_ctx
{
  const rl_variant *v;
  const rl_args *a;
};

/* rlref_certify's callback: the variant's MPFR evaluator. */
static int
eval_mp (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  const struct mp_ctx *c = ctx;
  (void) nx;
  (void) ny;
  return c->v->io->eval_mp (c->v, c->a, x, y);
}

int
rl_evaluate (const rl_variant *v, const rl_args *a, mpfr_prec_t prec, int min_digits,
             int want_sens, rl_result *r)
{
  struct mp_ctx ctx = { v, a };
  size_t nx = rl_args_nx (v, a);
  double *x;
  memset (r, 0, sizeof *r);
  r->status = v->io->shape (v, a, r->out_len);
  r->status_d = r->status;
  if (r->status)
    return r->status;
  for (size_t k = 0; k < v->io->n_out; k++)
    r->ny += r->out_len[k];
  x = malloc ((nx ? nx : 1) * sizeof *x);
  r->yd = calloc (r->ny ? r->ny : 1, sizeof *r->yd);
  if (!x || !r->yd)
    {
      free (x);
      free (r->yd);
      r->yd = NULL;
      return r->status = r->status_d = RLREF_ENOMEM;
    }
  rl_args_flatten (v, a, x);
  r->status_d = v->io->eval_d (v, a, x, r->yd);
  r->status = rlref_certify (eval_mp, &ctx, x, nx, r->ny, prec, min_digits, want_sens,
                             &r->cert);
  free (x);
  return r->status;
}

void
rl_result_free (rl_result *r)
{
  if (r->status == RLREF_SUCCESS)
    rlref_certified_clear (&r->cert);
  free (r->yd);
  r->yd = NULL;
}
