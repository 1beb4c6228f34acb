/* round_once.c -- the MPFR program rounded once to binary64 (round_once.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "rlref/certify.h"
#include "rlref/precision.h"
#include "rlref/status.h"
#include "round_once.h"

/* The program at precision p: y rounded to yd; 1 when yd equals prev
 * (each element, a zero of either sign equal to the other). */
static int
run_at (mpfr_prec_t p, mpfr_ptr x, size_t nx, const double *xd, mpfr_ptr y, size_t ny,
        double *yd, const double *prev, rlref_mp_program *run, void *ctx, int *status)
{
  mpfr_prec_t old = rlref_mp_prec ();
  int same = 1;
  for (size_t k = 0; k < nx; k++)
    {
      mpfr_set_prec (x + k, p);
      mpfr_set_d (x + k, xd[k], MPFR_RNDN);
    }
  for (size_t k = 0; k < ny; k++)
    mpfr_set_prec (y + k, p);
  rlref_mp_set_prec (p);
  *status = run (ctx, y, x);
  rlref_mp_set_prec (old);
  for (size_t k = 0; *status == RLREF_SUCCESS && k < ny; k++)
    {
      yd[k] = mpfr_get_d (y + k, MPFR_RNDN);
      same &= yd[k] == prev[k];
    }
  return same;
}

int
rlref_round_once (double *yd, size_t ny, const double *xd, size_t nx,
                  rlref_mp_program *run, void *ctx, const char *what)
{
  mpfr_ptr x = malloc ((nx + ny) * sizeof *x);
  double *cur = malloc (2 * (ny ? ny : 1) * sizeof *cur), *prev = cur + (ny ? ny : 1);
  mpfr_prec_t first = rlref_spread_prec (xd, nx, RLREF_ROUND_ONCE_FIRST_PREC), p;
  int status = RLREF_SUCCESS, agreed = 0;
  char msg[160];
  if (!x || !cur)
    {
      free (x);
      free (cur);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  for (size_t k = 0; k < nx + ny; k++)
    mpfr_init2 (x + k, first);
  for (p = first; !agreed && status == RLREF_SUCCESS; p *= 2)
    {
      agreed = run_at (p, x, nx, xd, x + nx, ny, cur, prev, run, ctx, &status) && p > first;
      for (size_t k = 0; status == RLREF_SUCCESS && k < ny; k++)
        prev[k] = cur[k];
      if (status == RLREF_SUCCESS && !agreed && p >= RLREF_ROUND_ONCE_LAST_PREC && p > first)
        status = RLREF_EPREC;
    }
  for (size_t k = 0; k < nx + ny; k++)
    mpfr_clear (x + k);
  free (x);
  for (size_t k = 0; status == RLREF_SUCCESS && k < ny; k++)
    if (!isfinite (cur[k]))
      status = RLREF_ERANGE;
  if (status == RLREF_SUCCESS)
    for (size_t k = 0; k < ny; k++)
      yd[k] = cur[k];
  free (cur);
  if (status == RLREF_EPREC)
    {
      snprintf (msg, sizeof msg, "the binary64 rounding of %s is not settled by two runs at "
                "%d bits and more", what, RLREF_ROUND_ONCE_LAST_PREC);
      RLREF_ERROR (msg, RLREF_EPREC);
    }
  if (status == RLREF_ERANGE)
    {
      snprintf (msg, sizeof msg, "%s leaves the range of the format", what);
      RLREF_ERROR (msg, RLREF_ERANGE);
    }
  return status;
}
