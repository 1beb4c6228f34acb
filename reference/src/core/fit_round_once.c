/* fit_round_once.c -- a counted fit rounded once (fit_round_once.h). */
#include <stdlib.h>
#include <string.h>
#include "rlref/status.h"
#include "fit_round_once.h"
#include "round_once.h"

typedef struct
{
  rlref_fit_mp *fit;
  const long *rankings;
  size_t M, K;
  int want_loglik;
} fit_program;

/* x = counts; y = (scores, loglik if asked for). */
static int
fit_program_run (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const fit_program *o = ctx;
  return o->fit (y, o->want_loglik ? y + o->K : NULL, o->rankings, x, o->M, o->K);
}

int
rlref_fit_round_once (double *scores, double *loglik, rlref_fit_mp *fit,
                      const long *rankings, const double *counts, size_t M, size_t K)
{
  fit_program o = { fit, rankings, M, K, loglik != NULL };
  size_t ny = K + (loglik != NULL);
  double *yd;
  int status;
  if (!scores || !counts || M == 0 || K < 2)
    RLREF_ERROR ("need at least one count of at least two items", RLREF_EINVAL);
  yd = malloc (ny * sizeof *yd);
  if (!yd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  status = rlref_round_once (yd, ny, counts, M, fit_program_run, &o,
                             "the maximum-likelihood scores");
  if (status == RLREF_SUCCESS)
    {
      memcpy (scores, yd, K * sizeof *yd);
      if (loglik)
        *loglik = yd[K];
    }
  free (yd);
  return status;
}
