/* certify.c -- two-precision evaluation, certified digits and sensitivity. */
#include <stdlib.h>
#include <math.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/certify.h"

int
rlref_digits_of_prec (mpfr_prec_t p)
{
  return (int) floor ((double) (p - 1) * 0.30102999566398119521);
}

int
rlref_agreeing_digits (mpfr_srcptr a, mpfr_srcptr b, int cap)
{
  mpfr_t d;
  double rel;
  int digits;
  if (mpfr_equal_p (a, b))
    return mpfr_regular_p (a) ? cap : 0;
  if (!mpfr_regular_p (a) || !mpfr_regular_p (b))
    return 0;
  mpfr_init2 (d, 64);
  mpfr_sub (d, a, b, MPFR_RNDU);
  mpfr_div (d, d, b, MPFR_RNDU);
  mpfr_abs (d, d, MPFR_RNDU);
  /* log10 of a tiny relative difference: work with the exponent when the
   * double would underflow */
  if (mpfr_get_exp (d) < -1000)
    rel = -(double) (-mpfr_get_exp (d)) * 0.30102999566398119521;
  else
    rel = log10 (mpfr_get_d (d, MPFR_RNDU));
  mpfr_clear (d);
  /* agreement to 10^-k relative certifies k - 1 digits of the printout */
  digits = (int) floor (-rel) - 1;
  if (digits < 0)
    digits = 0;
  return digits < cap ? digits : cap;
}

static mpfr_ptr
vec_new (size_t n, mpfr_prec_t p)
{
  mpfr_ptr v = malloc ((n ? n : 1) * sizeof (__mpfr_struct));
  if (v)
    for (size_t i = 0; i < n; i++)
      {
        mpfr_init2 (v + i, p);
        mpfr_set_zero (v + i, 1);
      }
  return v;
}

static void
vec_free (mpfr_ptr v, size_t n)
{
  if (!v)
    return;
  for (size_t i = 0; i < n; i++)
    mpfr_clear (v + i);
  free (v);
}

/* y = f(x) at precision p, x given as doubles with optional perturbation
 * x_j + h (h may be NULL). */
static int
eval_at (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx,
         size_t j, mpfr_srcptr h, mpfr_ptr y, size_t ny, mpfr_prec_t p)
{
  mpfr_ptr xv = vec_new (nx, p);
  int status;
  if (!xv)
    return RLREF_ENOMEM;
  for (size_t i = 0; i < nx; i++)
    mpfr_set_d (xv + i, x[i], MPFR_RNDN);
  if (h)
    mpfr_add (xv + j, xv + j, h, MPFR_RNDN);
  for (size_t k = 0; k < ny; k++)
    mpfr_set_prec (y + k, p);
  rlref_mp_set_prec (p);
  status = f (ctx, xv, nx, y, ny);
  vec_free (xv, nx);
  return status;
}

/* d_k = (f_k(x + h e_j) - f_k(x - h e_j)) / (2h), at precision p. */
static int
central_difference (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx,
                    size_t j, mpfr_srcptr h, mpfr_ptr d, size_t ny, mpfr_prec_t p)
{
  mpfr_ptr lo = vec_new (ny, p);
  mpfr_t mh;
  int status;
  if (!lo)
    return RLREF_ENOMEM;
  mpfr_init2 (mh, mpfr_get_prec (h));
  mpfr_neg (mh, h, MPFR_RNDN);
  status = eval_at (f, ctx, x, nx, j, h, d, ny, p);
  if (status == RLREF_SUCCESS)
    status = eval_at (f, ctx, x, nx, j, mh, lo, ny, p);
  for (size_t k = 0; k < ny && status == RLREF_SUCCESS; k++)
    {
      mpfr_sub (d + k, d + k, lo + k, MPFR_RNDN);
      mpfr_div (d + k, d + k, h, MPFR_RNDN);
      mpfr_div_2ui (d + k, d + k, 1, MPFR_RNDN);
    }
  mpfr_clear (mh);
  vec_free (lo, ny);
  return status;
}

/* sens_k = sum_j |df_k/dx_j| |x_j|; steps h = |x_j| 2^-(p/4) and h 2^-24. */
static int
sensitivity (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx,
             rlref_certified *out, mpfr_prec_t p)
{
  size_t ny = out->ny;
  mpfr_ptr d1 = vec_new (ny, p), d2 = vec_new (ny, p);
  mpfr_t h, diff, scale;
  int status = RLREF_SUCCESS;
  if (!d1 || !d2)
    {
      vec_free (d1, ny);
      vec_free (d2, ny);
      return RLREF_ENOMEM;
    }
  mpfr_inits2 (p, h, diff, scale, (mpfr_ptr) 0);
  for (size_t k = 0; k < ny; k++)
    {
      out->sens[k] = 0.0;
      out->nondiff[k] = 0;
    }
  for (size_t j = 0; j < nx && status == RLREF_SUCCESS; j++)
    {
      if (!isfinite (x[j]) || x[j] == 0.0)
        continue;
      mpfr_set_d (h, fabs (x[j]), MPFR_RNDN);
      mpfr_mul_2si (h, h, -(long) (p / 4), MPFR_RNDN);
      status = central_difference (f, ctx, x, nx, j, h, d1, ny, p);
      if (status)
        break;
      mpfr_mul_2si (h, h, -24, MPFR_RNDN);
      status = central_difference (f, ctx, x, nx, j, h, d2, ny, p);
      if (status)
        break;
      for (size_t k = 0; k < ny; k++)
        {
          if (!mpfr_number_p (d1 + k) || !mpfr_number_p (d2 + k))
            {
              out->nondiff[k] = 1;
              continue;
            }
          /* the two estimates of a smooth function agree to O(h^2) */
          mpfr_sub (diff, d1 + k, d2 + k, MPFR_RNDN);
          mpfr_abs (diff, diff, MPFR_RNDN);
          mpfr_abs (scale, d1 + k, MPFR_RNDN);
          mpfr_add_d (scale, scale, 1.0, MPFR_RNDN);
          mpfr_mul_2si (scale, scale, -20, MPFR_RNDN);
          if (mpfr_cmp (diff, scale) > 0)
            out->nondiff[k] = 1;
          else
            out->sens[k] += fabs (mpfr_get_d (d1 + k, MPFR_RNDN)) * fabs (x[j]);
        }
    }
  for (size_t k = 0; k < ny; k++)
    if (out->nondiff[k])
      out->sens[k] = 0.0;
  mpfr_clears (h, diff, scale, (mpfr_ptr) 0);
  vec_free (d1, ny);
  vec_free (d2, ny);
  return status;
}

void
rlref_certified_clear (rlref_certified *c)
{
  if (!c)
    return;
  vec_free (c->value, c->ny);
  free (c->digits);
  free (c->exact_zero);
  free (c->sens);
  free (c->nondiff);
  c->value = NULL;
  c->digits = c->exact_zero = c->nondiff = NULL;
  c->sens = NULL;
  c->ny = 0;
}

int
rlref_certify (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx,
               size_t ny, mpfr_prec_t prec, int min_digits, int want_sens,
               rlref_certified *out)
{
  mpfr_prec_t saved = rlref_mp_prec ();
  mpfr_ptr lo;
  int status = RLREF_SUCCESS;

  out->ny = ny;
  out->value = vec_new (ny, prec);
  out->digits = calloc (ny ? ny : 1, sizeof (int));
  out->exact_zero = calloc (ny ? ny : 1, sizeof (int));
  out->sens = calloc (ny ? ny : 1, sizeof (double));
  out->nondiff = calloc (ny ? ny : 1, sizeof (int));
  lo = vec_new (ny, prec);
  if (!out->value || !out->digits || !out->exact_zero || !out->sens || !out->nondiff || !lo)
    {
      vec_free (lo, ny);
      rlref_certified_clear (out);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  for (mpfr_prec_t p = prec;; p *= 2)
    {
      int enough = 1, cap;
      status = eval_at (f, ctx, x, nx, 0, NULL, lo, ny, p);
      if (status == RLREF_SUCCESS)
        status = eval_at (f, ctx, x, nx, 0, NULL, out->value, ny, p + 64);
      if (status)
        break;
      cap = rlref_digits_of_prec (p) - 1;
      for (size_t k = 0; k < ny; k++)
        {
          out->exact_zero[k] = mpfr_zero_p (lo + k) && mpfr_zero_p (out->value + k);
          out->digits[k] = rlref_agreeing_digits (lo + k, out->value + k, cap);
          if (mpfr_regular_p (out->value + k) && out->digits[k] < min_digits)
            enough = 0;
        }
      out->prec = p;
      if (enough || 2 * p > RLREF_CERTIFY_MAX_PREC)
        break;
    }
  if (status == RLREF_SUCCESS && want_sens)
    status = sensitivity (f, ctx, x, nx, out, out->prec + 64);
  rlref_mp_set_prec (saved);
  vec_free (lo, ny);
  if (status)
    {
      rlref_certified_clear (out);
      return status;
    }
  return RLREF_SUCCESS;
}
