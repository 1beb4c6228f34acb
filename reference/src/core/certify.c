/* certify.c -- two-precision evaluation, certified digits and sensitivity. */
#include <stdio.h>
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

/* |a - b| <= 10^-9 max(|a|, |b|): far beyond the 3 printed digits of a
 * sensitivity, far above the error of central differences (O(h^2) with
 * h = |x| 2^-(p/4)) and of the RLREF_SENS_PREC bits both are kept to. */
int
rlref_sens_agree (mpfr_srcptr a, mpfr_srcptr b)
{
  mpfr_t d, m;
  int ok;
  if (mpfr_nan_p (a) || mpfr_nan_p (b))
    return 0;
  if (mpfr_equal_p (a, b))
    return 1;
  mpfr_inits2 (64, d, m, (mpfr_ptr) 0);
  mpfr_sub (d, a, b, MPFR_RNDN);
  mpfr_abs (d, d, MPFR_RNDN);
  mpfr_abs (m, a, MPFR_RNDN);
  if (mpfr_cmpabs (b, m) > 0)
    mpfr_abs (m, b, MPFR_RNDN);
  mpfr_mul_d (m, m, 1e-9, MPFR_RNDN);
  ok = mpfr_cmp (d, m) <= 0;
  mpfr_clears (d, m, (mpfr_ptr) 0);
  return ok;
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

/* x_i as MPFR numbers of p bits (exact: x are doubles), x_j + h when h is
 * not NULL. */
static void
set_inputs (mpfr_ptr xv, const double *x, size_t nx, size_t j, mpfr_srcptr h)
{
  for (size_t i = 0; i < nx; i++)
    mpfr_set_d (xv + i, x[i], MPFR_RNDN);
  if (h)
    mpfr_add (xv + j, xv + j, h, MPFR_RNDN);
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
  set_inputs (xv, x, nx, j, h);
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

/* What two central differences d1 (step h) and d2 (step h 2^-24) say of
 * a derivative: -1 not differentiable (they differ by more than
 * 2^-20 (|d1| + 1), or one is not finite); 0 a zero derivative (they
 * agree in absolute terms but not relatively: d1 is truncation error
 * c h^2 or rounding noise of f, both of which change with the step, not a
 * slope); 1 the derivative d1. */
static int
judge_differences (mpfr_srcptr d1, mpfr_srcptr d2, mpfr_ptr diff, mpfr_ptr scale)
{
  if (!mpfr_number_p (d1) || !mpfr_number_p (d2))
    return -1;
  mpfr_sub (diff, d1, d2, MPFR_RNDN);
  mpfr_abs (diff, diff, MPFR_RNDN);
  mpfr_abs (scale, d1, MPFR_RNDN);
  mpfr_add_d (scale, scale, 1.0, MPFR_RNDN);
  mpfr_mul_2si (scale, scale, -20, MPFR_RNDN);
  if (mpfr_cmp (diff, scale) > 0)
    return -1;
  mpfr_abs (scale, d1, MPFR_RNDN);
  mpfr_mul_2si (scale, scale, -20, MPFR_RNDN);
  return mpfr_cmp (diff, scale) > 0 ? 0 : 1;
}

/* sens_k = sum_j |df_k/dx_j| |x_j|; steps h = |x_j| 2^-(p/4) and h 2^-24. */
int
rlref_sens_central (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx,
                    size_t ny, mpfr_prec_t p, mpfr_ptr sens, int *nondiff)
{
  mpfr_prec_t saved = rlref_mp_prec ();
  mpfr_ptr d1 = vec_new (ny, p), d2 = vec_new (ny, p);
  mpfr_t h, diff, scale, term;
  int status = RLREF_SUCCESS;
  if (!d1 || !d2)
    {
      vec_free (d1, ny);
      vec_free (d2, ny);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  mpfr_inits2 (p, h, diff, scale, term, (mpfr_ptr) 0);
  for (size_t k = 0; k < ny; k++)
    {
      mpfr_set_zero (sens + k, 1);
      nondiff[k] = 0;
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
        switch (judge_differences (d1 + k, d2 + k, diff, scale))
          {
          case -1:
            nondiff[k] = 1;
            break;
          case 1:
            mpfr_mul_d (term, d1 + k, x[j], MPFR_RNDN);
            mpfr_abs (term, term, MPFR_RNDN);
            mpfr_add (sens + k, sens + k, term, MPFR_RNDN);
            break;
          default:
            break;
          }
    }
  for (size_t k = 0; k < ny; k++)
    if (nondiff[k])
      mpfr_set_zero (sens + k, 1);
  mpfr_clears (h, diff, scale, term, (mpfr_ptr) 0);
  vec_free (d1, ny);
  vec_free (d2, ny);
  rlref_mp_set_prec (saved);
  return status;
}

/* The formula's own sensitivity at precision p, from the values y. */
static int
sens_supplied (rlref_mp_sens_fn *sens_fn, const void *ctx, const double *x, size_t nx,
               mpfr_srcptr y, size_t ny, mpfr_prec_t p, mpfr_ptr sens, int *nondiff)
{
  mpfr_ptr xv = vec_new (nx, p);
  int status;
  if (!xv)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  set_inputs (xv, x, nx, 0, NULL);
  for (size_t k = 0; k < ny; k++)
    {
      mpfr_set_zero (sens + k, 1);
      nondiff[k] = 0;
    }
  rlref_mp_set_prec (p);
  status = sens_fn (ctx, xv, nx, y, ny, sens, nondiff);
  for (size_t k = 0; k < ny && status == RLREF_SUCCESS; k++)
    {
      if (nondiff[k])
        mpfr_set_zero (sens + k, 1);
      else if (!mpfr_number_p (sens + k) || mpfr_sgn (sens + k) < 0)
        {
          char msg[96];
          snprintf (msg, sizeof msg, "the formula's sensitivity of output %zu is not a "
                    "number >= 0", k);
          vec_free (xv, nx);
          RLREF_ERROR (msg, RLREF_ERANGE);
        }
    }
  vec_free (xv, nx);
  return status;
}

/* The formula's sensitivity against the central differences: the same
 * nondiff flags, and sens agreeing to rlref_sens_agree.  At the edge of a
 * formula's domain (gamma = 1, eps = 1, ...) a perturbed input leaves it
 * and the differences do not exist (EDOM): there the supplied sensitivity,
 * which a formula gives for just that reason, stands unchecked. */
static int
sens_compare (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx,
              rlref_certified *out, mpfr_prec_t p)
{
  size_t ny = out->ny;
  mpfr_ptr fd = vec_new (ny, RLREF_SENS_PREC);
  int *nd = calloc (ny ? ny : 1, sizeof (int));
  int status;
  if (!fd || !nd)
    {
      vec_free (fd, ny);
      free (nd);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  status = rlref_sens_central (f, ctx, x, nx, ny, p, fd, nd);
  if (status == RLREF_EDOM)
    {
      vec_free (fd, ny);
      free (nd);
      return RLREF_SUCCESS;
    }
  for (size_t k = 0; k < ny && status == RLREF_SUCCESS; k++)
    if (nd[k] != out->nondiff[k] || !rlref_sens_agree (fd + k, out->sens_mp + k))
      {
        char msg[200];
        mpfr_snprintf (msg, sizeof msg, "output %zu: the formula's sensitivity %.6Rg%s and "
                       "central differences %.6Rg%s disagree", k, out->sens_mp + k,
                       out->nondiff[k] ? " (not differentiable)" : "", fd + k,
                       nd[k] ? " (not differentiable)" : "");
        vec_free (fd, ny);
        free (nd);
        RLREF_ERROR (msg, RLREF_EPREC);
      }
  vec_free (fd, ny);
  free (nd);
  return status;
}

void
rlref_certified_clear (rlref_certified *c)
{
  if (!c)
    return;
  vec_free (c->value, c->ny);
  vec_free (c->sens_mp, c->ny);
  free (c->digits);
  free (c->exact_zero);
  free (c->sens);
  free (c->nondiff);
  c->value = c->sens_mp = NULL;
  c->digits = c->exact_zero = c->nondiff = NULL;
  c->sens = NULL;
  c->ny = 0;
}

/* The starting precision (rlref/certify.h): at least enough to hold a sum of the inputs
 * and of 1 exactly.  Both evaluations of the two-precision test round the
 * same way when they lose the same input bits (1 + 2 + 1e-200 at 256 and
 * at 320 bits), and would certify a wrong value; with the binary exponent
 * spread + 128 bits neither loses them.  The formulas add constants of
 * order 1 to their inputs (a softmax of logits 2^-633 is 1/V + O(2^-633),
 * its log-ratios to a uniform reference O(2^-633)): the spread counts 1
 * as an input. */
mpfr_prec_t
rlref_spread_prec (const double *x, size_t nx, mpfr_prec_t prec)
{
  int lo = 1 - 53, hi = 1;
  long need;
  for (size_t i = 0; i < nx; i++)
    if (isfinite (x[i]) && x[i] != 0.0)
      {
        int e;
        frexp (x[i], &e);
        lo = lo < e - 53 ? lo : e - 53;
        hi = hi > e ? hi : e;
      }
  need = (long) (hi - lo) + 128;
  if (need > (long) prec)
    {
      /* a multiple of 64, within the largest precision certification tries */
      need = (need + 63) / 64 * 64;
      prec = need > RLREF_CERTIFY_MAX_PREC ? RLREF_CERTIFY_MAX_PREC : (mpfr_prec_t) need;
    }
  return prec;
}

/* The largest binary exponent of the inputs and of 1. */
static long
top_exponent (const double *x, size_t nx)
{
  int hi = 1;
  for (size_t i = 0; i < nx; i++)
    if (isfinite (x[i]) && x[i] != 0.0)
      {
        int e;
        frexp (x[i], &e);
        hi = hi > e ? hi : e;
      }
  return hi;
}

/* 1 for an output that two runs at p and p + 64 bits may share by losing
 * the same bits: an exact zero, or a value below 2^(top - p/2), top the
 * largest exponent of the inputs and 1 (what is left when terms of that
 * size cancel). */
static int
suspect (mpfr_srcptr y, int exact_zero, long top, mpfr_prec_t p)
{
  return exact_zero || (mpfr_regular_p (y) && mpfr_get_exp (y) < top - (long) (p / 2));
}

int
rlref_certify_with (rlref_mp_eval_fn *f, rlref_mp_sens_fn *sens_fn, const void *ctx,
                    const double *x, size_t nx, size_t ny, mpfr_prec_t prec, int min_digits,
                    int sens_mode, rlref_certified *out)
{
  mpfr_prec_t saved = rlref_mp_prec ();
  mpfr_ptr lo, again;
  long top;
  int status = RLREF_SUCCESS;

  out->ny = 0;
  out->value = out->sens_mp = NULL;
  out->digits = out->exact_zero = out->nondiff = NULL;
  out->sens = NULL;
  if (sens_mode < RLREF_SENS_NONE || sens_mode > RLREF_SENS_BOTH)
    RLREF_ERROR ("unknown sensitivity mode", RLREF_EINVAL);
  /* without the formula's own, every mode that asks for one measures it */
  if (sens_mode != RLREF_SENS_NONE && !sens_fn)
    sens_mode = RLREF_SENS_FD;
  out->ny = ny;
  out->value = vec_new (ny, prec);
  out->sens_mp = sens_mode ? vec_new (ny, RLREF_SENS_PREC) : NULL;
  out->digits = calloc (ny ? ny : 1, sizeof (int));
  out->exact_zero = calloc (ny ? ny : 1, sizeof (int));
  out->sens = calloc (ny ? ny : 1, sizeof (double));
  out->nondiff = calloc (ny ? ny : 1, sizeof (int));
  lo = vec_new (ny, prec);
  again = vec_new (ny, prec);
  if (!out->value || (sens_mode && !out->sens_mp) || !out->digits || !out->exact_zero
      || !out->sens || !out->nondiff || !lo || !again)
    {
      vec_free (lo, ny);
      vec_free (again, ny);
      rlref_certified_clear (out);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  prec = rlref_spread_prec (x, nx, prec);
  top = top_exponent (x, nx);
  for (mpfr_prec_t p = prec, next;; p = next)
    {
      int enough = 1, cap, suspects = 0;
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
          suspects |= suspect (out->value + k, out->exact_zero[k], top, p);
        }
      out->prec = p;
      next = 2 * p;
      if (enough && suspects)
        {
          /* a zero, or a value far below the inputs and 1, at p and p + 64
           * bits may be a cancellation of more than both kept (a second
           * order lost at both): it is run again at q = 2p and q + 64 bits
           * (q at most RLREF_CERTIFY_MAX_PREC) and settles where those
           * agree with it, a value to its digits, a zero where they do not
           * agree on a nonzero value to RLREF_CERTIFY_REAL_DIGITS (the
           * rounding noise of a zero differs between them); else the loop
           * goes on from q */
          mpfr_prec_t q = next < RLREF_CERTIFY_MAX_PREC ? next : RLREF_CERTIFY_MAX_PREC;
          if (q > p + 64)
            {
              status = eval_at (f, ctx, x, nx, 0, NULL, lo, ny, q);
              if (status == RLREF_SUCCESS)
                status = eval_at (f, ctx, x, nx, 0, NULL, again, ny, q + 64);
              if (status)
                break;
              for (size_t k = 0; k < ny; k++)
                if (suspect (out->value + k, out->exact_zero[k], top, p)
                    && (out->exact_zero[k]
                        ? rlref_agreeing_digits (lo + k, again + k, cap)
                        >= RLREF_CERTIFY_REAL_DIGITS
                        : rlref_agreeing_digits (lo + k, out->value + k, cap) < out->digits[k]))
                  enough = 0;
              if (!enough)
                {
                  next = q;
                  continue;
                }
            }
        }
      if (enough || 2 * p > RLREF_CERTIFY_MAX_PREC)
        break;
    }
  if (status == RLREF_SUCCESS && sens_mode == RLREF_SENS_FD)
    status = rlref_sens_central (f, ctx, x, nx, ny, out->prec + 64, out->sens_mp,
                                 out->nondiff);
  else if (status == RLREF_SUCCESS && sens_mode != RLREF_SENS_NONE)
    {
      status = sens_supplied (sens_fn, ctx, x, nx, out->value, ny, out->prec, out->sens_mp,
                              out->nondiff);
      if (status == RLREF_SUCCESS && sens_mode == RLREF_SENS_BOTH)
        status = sens_compare (f, ctx, x, nx, out, out->prec + 64);
    }
  if (status == RLREF_SUCCESS && sens_mode != RLREF_SENS_NONE)
    for (size_t k = 0; k < ny; k++)
      out->sens[k] = mpfr_get_d (out->sens_mp + k, MPFR_RNDN);
  rlref_mp_set_prec (saved);
  vec_free (lo, ny);
  vec_free (again, ny);
  if (status)
    {
      rlref_certified_clear (out);
      return status;
    }
  return RLREF_SUCCESS;
}

int
rlref_certify (rlref_mp_eval_fn *f, const void *ctx, const double *x, size_t nx, size_t ny,
               mpfr_prec_t prec, int min_digits, int want_sens, rlref_certified *out)
{
  return rlref_certify_with (f, NULL, ctx, x, nx, ny, prec, min_digits,
                             want_sens ? RLREF_SENS_FD : RLREF_SENS_NONE, out);
}
