/* primitives.c -- stable primitives, written once for both backends.
 *
 * Compiled twice: as binary64 (rlref_*_d) and with -DRLREF_MP as MPFR
 * (rlref_*_mp).  The formulas use only the scalar interface of num.h.
 * Every function reads all its inputs before it writes an output, so an
 * output may share storage with an input (reference/README.md, Aliasing). */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "flow.h"
#include "scale.h"

/* EINVAL for an empty or NULL vector, ENAN for a NaN element; returns. */
#define CHECK_VECTOR(x, n)                                            \
  do {                                                                \
    if ((x) == NULL || (n) == 0)                                      \
      RLREF_ERROR ("empty or NULL vector", RLREF_EINVAL);             \
    for (size_t i_ = 0; i_ < (n); i_++)                               \
      CHECK_NOT_NAN (AT (x, i_));                                     \
  } while (0)

/* sigma(x) = 1/(1 + e^-x) for x >= 0;  e^x/(1 + e^x) for x < 0
 * (seed 000, after 13.6).  Neither branch exponentiates a positive number. */
int
FN (sigmoid) (num_ptr r, num_srcptr x)
{
  num_t e, d;
  CHECK_NOT_NAN (x);
  NUM_INIT (e, d);
  if (num_sgn (x) >= 0)
    {
      num_neg (e, x);
      num_exp (e, e);
      num_add_d (d, e, 1.0);
      num_d_div (r, 1.0, d);
    }
  else
    {
      num_exp (e, x);
      num_add_d (d, e, 1.0);
      num_div (r, e, d);
    }
  NUM_CLEAR (e, d);
  return RLREF_SUCCESS;
}

/* softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^{-|x|}). */
int
FN (softplus) (num_ptr r, num_srcptr x)
{
  num_t t, m;
  CHECK_NOT_NAN (x);
  if (num_is_inf (x))
    {
      if (num_sgn (x) > 0)
        num_set_inf (r, 1);
      else
        num_set_zero (r);
      return RLREF_SUCCESS;
    }
  NUM_INIT (t, m);
  num_abs (t, x);
  num_neg (t, t);
  num_exp (t, t);
  num_log1p (t, t);
  num_set_zero (m);
  num_max (m, m, x);
  num_add (r, m, t);
  NUM_CLEAR (t, m);
  return RLREF_SUCCESS;
}

/* log sigma(x) = -log(1 + e^-x) = -softplus(-x)  (the stable form of 13.7). */
int
FN (log_sigmoid) (num_ptr r, num_srcptr x)
{
  num_t t;
  int status;
  num_init (t);
  num_neg (t, x);
  TRY (FN (softplus) (t, t));
  num_neg (r, t);
done:
  num_clear (t);
  return status;
}

/* h(e) = 1 + (e - 1) e^e = sum_{k >= 2} (k - 1) e^k / k!, for |e| < 1:
 * summed until a term is below 2^-(prec + 2) of the sum (the terms fall
 * faster than 1/k!; for e < 0 they alternate, and h(e) >= e^2/6 bounds the
 * cancellation to two bits). */
static void
h_series (num_ptr h, num_srcptr e)
{
  num_t pw, term;
  long prec = num_prec ();
  NUM_INIT (pw, term);
  num_sqr (pw, e);
  num_mul_2si (pw, pw, -1);             /* e^2/2! */
  num_set (h, pw);
  for (long k = 3;; k++)
    {
      num_mul (pw, pw, e);
      num_div_si (pw, pw, k);           /* e^k/k! */
      num_mul_si (term, pw, k - 1);
      num_add (h, h, term);
      if (num_is_zero (term) || num_get_exp (term) < num_get_exp (h) - prec - 2)
        break;
    }
  NUM_CLEAR (pw, term);
}

/* h(e) = 1 + (e - 1) e^e: the series for |e| < 1, else (e - 1) e^e + 1
 * (both terms >= 0 for e >= 1; h >= 1 - 2/e for e <= -1). */
int
FN (kl_term) (num_ptr r, num_srcptr e)
{
  num_t a;
  if (!num_is_finite (e))
    RLREF_ERROR ("kl_term of a non-finite e", RLREF_ENAN);
  NUM_INIT (a);
  num_abs (a, e);
  if (num_cmp_d (a, 1.0) < 0)
    h_series (r, e);
  else
    {
      num_exp (a, e);
      num_sub_d (r, e, 1.0);
      num_mul (r, r, a);
      num_add_d (r, r, 1.0);
    }
  NUM_CLEAR (a);
  if (!num_is_finite (r))
    RLREF_ERROR ("kl_term overflows", RLREF_ERANGE);
  return RLREF_SUCCESS;
}

/* log(1 - e^x), x <= 0:  log(-expm1(x)) for x > -log 2, else log1p(-e^x)
 * (Maechler 2012).  x = 0 gives -inf. */
int
FN (log1mexp) (num_ptr r, num_srcptr x)
{
  num_t t;
  CHECK_NOT_NAN (x);
  if (num_sgn (x) > 0)
    RLREF_ERROR ("log1mexp needs x <= 0", RLREF_EDOM);
  num_init (t);
  if (num_cmp_d (x, -0.693147180559945309417232121458) > 0)
    {
      num_expm1 (t, x);
      num_neg (t, t);
      num_log (r, t);
    }
  else
    {
      num_exp (t, x);
      num_neg (t, t);
      num_log1p (r, t);
    }
  num_clear (t);
  return RLREF_SUCCESS;
}

/* lse(x) = m + log1p(sum_{i != k} e^{x_i - m}),  m = x_k = max_i x_i.
 * Leaving the maximum's own e^0 = 1 out of the sum keeps the small terms
 * when they are below the rounding level of 1 (lse(0, -40) = 4.2e-18). */
int
FN (logsumexp) (num_ptr r, num_srcptr x, size_t n)
{
  num_t s, t;
  size_t k = 0;
  CHECK_VECTOR (x, n);
  for (size_t i = 1; i < n; i++)
    if (num_cmp (AT (x, i), AT (x, k)) > 0)
      k = i;
  if (num_is_inf (AT (x, k)))
    {
      /* all -inf gives -inf; any +inf gives +inf */
      num_set (r, AT (x, k));
      return RLREF_SUCCESS;
    }
  NUM_INIT (s, t);
  for (size_t i = 0; i < n; i++)
    if (i != k)
      {
        num_sub (t, AT (x, i), AT (x, k));
        num_exp (t, t);
        num_add (s, s, t);
      }
  num_log1p (s, s);
  num_add (r, AT (x, k), s);
  NUM_CLEAR (s, t);
  return RLREF_SUCCESS;
}

/* log p_i = (x_i - m) - log1p(sum_{j != k} e^{x_j - m}),  m = x_k = max x:
 * the maximum's own log-probability is -log1p(S) to full relative accuracy
 * (log sigma(10) = -4.54e-5, which x_k - lse(x) would give only to the
 * rounding of lse); -inf for x_i = -inf; ERANGE (and -inf) where a finite
 * x_i - m overflows.  Element i of lp is written after x_i is read, so lp
 * may be x. */
int
FN (log_softmax) (num_ptr lp, num_srcptr x, size_t n)
{
  num_t m, s, t;
  int status = RLREF_SUCCESS, over = 0;
  size_t k = 0;
  CHECK_VECTOR (x, n);
  for (size_t i = 1; i < n; i++)
    if (num_cmp (AT (x, i), AT (x, k)) > 0)
      k = i;
  if (num_is_inf (AT (x, k)) && num_sgn (AT (x, k)) > 0)
    RLREF_ERROR ("softmax of infinite scores", RLREF_ENAN);
  NUM_INIT (m, s, t);
  num_set (m, AT (x, k));
  if (num_is_inf (m))             /* every score -inf: no distribution */
    FAIL ("softmax of scores that are all -inf", RLREF_ENAN);
  for (size_t i = 0; i < n; i++)
    if (i != k)
      {
        num_sub (t, AT (x, i), m);
        num_exp (t, t);
        num_add (s, s, t);
      }
  num_log1p (s, s);
  for (size_t i = 0; i < n; i++)
    {
      int finite = num_is_finite (AT (x, i));
      num_sub (t, AT (x, i), m);
      over = over || (finite && num_is_inf (t));
      num_sub (AT (lp, i), t, s);
    }
  if (over)
    status = RANGE_ERROR ();
done:
  NUM_CLEAR (m, s, t);
  return status;
}

/* p_i = e^{x_i - m} / sum_j e^{x_j - m},  m = max_j x_j: the numerators
 * are exact to the last bit whatever the size of m.  Element i of p is
 * written only after x_i has been read, so p may be x. */
int
FN (softmax) (num_ptr p, num_srcptr x, size_t n)
{
  num_t m, s;
  int status = RLREF_SUCCESS;
  CHECK_VECTOR (x, n);
  NUM_INIT (m, s);
  num_set (m, AT (x, 0));
  for (size_t i = 1; i < n; i++)
    num_max (m, m, AT (x, i));
  if (num_is_inf (m))
    FAIL ("softmax of infinite scores", RLREF_ENAN);
  for (size_t i = 0; i < n; i++)
    {
      num_sub (AT (p, i), AT (x, i), m);
      num_exp (AT (p, i), AT (p, i));
      num_add (s, s, AT (p, i));
    }
  for (size_t i = 0; i < n; i++)
    num_div (AT (p, i), AT (p, i), s);
done:
  NUM_CLEAR (m, s);
  return status;
}

static int
check_finite_vector (num_srcptr x, size_t n)
{
  if (x == NULL || n == 0)
    RLREF_ERROR ("empty or NULL vector", RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (x, i)))
      RLREF_ERROR ("non-finite element", RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* The moments are computed on x 2^-k: k = 0 while max |x_i| lies in
 * [2^-400, 2^400], where no sum, deviation or square can overflow or lose
 * bits to underflow; outside, k is the exponent of max |x_i|, so that the
 * scaled values lie in (-1, 1).  Scaling by a power of two is exact, and
 * the results are scaled back once at the end. */
static long
moment_scale (num_srcptr x, size_t n)
{
  long e = FN (max_exponent) (x, n);
  return (e > 400 || e < -400) ? e : 0;
}

/* x_i 2^-k: x_i itself when k = 0, else the scaled copy in t. */
static num_srcptr
scaled (num_ptr t, num_srcptr xi, long k)
{
  if (k == 0)
    return xi;
  num_mul_2si (t, xi, -k);
  return t;
}

/* m' = m0 + (1/n) sum (x_i 2^-k - m0),  m0 = (1/n) sum x_i 2^-k (two
 * passes on the scaled values); m0 and the correction go to m0 and c. */
static void
scaled_mean (num_ptr m0, num_ptr c, num_srcptr x, size_t n, long k)
{
  num_t t;
  num_init (t);
  num_set_zero (m0);
  num_set_zero (c);
  for (size_t i = 0; i < n; i++)
    num_add (m0, m0, scaled (t, AT (x, i), k));
  num_div_si (m0, m0, (long) n);
  for (size_t i = 0; i < n; i++)
    {
      num_sub (t, scaled (t, AT (x, i), k), m0);
      num_add (c, c, t);
    }
  num_div_si (c, c, (long) n);
  num_clear (t);
}

/* S' = sum d_i^2 - (sum d_i)^2 / n,  d_i = x_i 2^-k - m'  (the corrected
 * two-pass algorithm, Chan, Golub and LeVeque 1983); the variance is
 * S' 2^2k / (n - ddof). */
static void
scaled_sum_squares (num_ptr S, num_srcptr x, size_t n, long k)
{
  num_t m, c, d, s1;
  NUM_INIT (m, c, d, s1);
  scaled_mean (m, c, x, n, k);
  num_add (m, m, c);
  num_set_zero (S);
  for (size_t i = 0; i < n; i++)
    {
      num_sub (d, scaled (d, AT (x, i), k), m);
      num_add (s1, s1, d);
      num_sqr (d, d);
      num_add (S, S, d);
    }
  num_sqr (s1, s1);
  num_div_si (s1, s1, (long) n);
  num_sub (S, S, s1);
  NUM_CLEAR (m, c, d, s1);
}

/* m = (1/n) sum x_i, two passes (the second sums the residuals x_i - m0),
 * on x scaled by a power of two when its size requires: finite for every
 * finite x. */
int
FN (mean) (num_ptr m, num_srcptr x, size_t n)
{
  num_t m0, c;
  long k;
  int status = check_finite_vector (x, n);
  if (status)
    return status;
  k = moment_scale (x, n);
  NUM_INIT (m0, c);
  scaled_mean (m0, c, x, n, k);
  num_add (m, m0, c);
  num_mul_2si (m, m, k);
  NUM_CLEAR (m0, c);
  return RLREF_SUCCESS;
}

/* The arguments of a variance: n finite values, n - ddof > 0. */
static int
check_variance (num_srcptr x, size_t n, int ddof)
{
  int status = check_finite_vector (x, n);
  if (status)
    return status;
  if (ddof < 0 || (long) n - ddof <= 0)
    RLREF_ERROR ("variance needs n - ddof > 0", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* The spread of x from S' = sum of the squared deviations of x 2^-k
 * (scaled_sum_squares), after the checks of a variance:
 * var = S' / (n - ddof) 2^2k, or std = sqrt(S' / (n - ddof)) 2^k (root);
 * +inf and ERANGE when the result exceeds the largest finite number. */
static int
spread (num_ptr r, num_srcptr x, size_t n, int ddof, int root)
{
  num_t S;
  long k;
  int status = check_variance (x, n, ddof);
  if (status)
    return status;
  k = moment_scale (x, n);
  num_init (S);
  scaled_sum_squares (S, x, n, k);
  if (root)
    {
      num_div_si (S, S, (long) n - ddof);
      num_sqrt (r, S);
      num_mul_2si (r, r, k);
    }
  else
    {
      num_div_si (r, S, (long) n - ddof);
      num_mul_2si (r, r, 2 * k);
    }
  if (!num_is_finite (r))
    status = RANGE_ERROR ();
  num_clear (S);
  return status;
}

/* var = sum (x_i - m)^2 / (n - ddof), corrected two-pass, scaled as mean
 * is: no intermediate overflows or underflows; when the variance itself
 * exceeds the largest finite number, +inf and ERANGE. */
int
FN (variance) (num_ptr v, num_srcptr x, size_t n, int ddof)
{
  return spread (v, x, n, ddof, 0);
}

/* std = sqrt(var) = sqrt(S' / (n - ddof)) 2^k: finite whenever the
 * standard deviation is, even where the variance overflows or underflows
 * (+inf and ERANGE beyond: sqrt 2 DBL_MAX for +-DBL_MAX, ddof 1). */
int
FN (stddev) (num_ptr s, num_srcptr x, size_t n, int ddof)
{
  return spread (s, x, n, ddof, 1);
}

/* Naive sigma: 1/(1 + e^-x). */
int
FN (sigmoid_naive) (num_ptr r, num_srcptr x)
{
  num_t t;
  CHECK_NOT_NAN (x);
  num_init (t);
  num_neg (t, x);
  num_exp (t, t);
  num_add_d (t, t, 1.0);
  num_d_div (r, 1.0, t);
  num_clear (t);
  return RLREF_SUCCESS;
}

/* Naive log sigma: log(1/(1 + e^-x)). */
int
FN (log_sigmoid_naive) (num_ptr r, num_srcptr x)
{
  int status = FN (sigmoid_naive) (r, x);
  if (status == RLREF_SUCCESS)
    num_log (r, r);
  return status;
}

/* Naive softplus: log(1 + e^x). */
int
FN (softplus_naive) (num_ptr r, num_srcptr x)
{
  num_t t;
  CHECK_NOT_NAN (x);
  num_init (t);
  num_exp (t, x);
  num_add_d (t, t, 1.0);
  num_log (r, t);
  num_clear (t);
  return RLREF_SUCCESS;
}

/* Naive lse: log sum e^{x_i}. */
int
FN (logsumexp_naive) (num_ptr r, num_srcptr x, size_t n)
{
  num_t s, t;
  CHECK_VECTOR (x, n);
  NUM_INIT (s, t);
  for (size_t i = 0; i < n; i++)
    {
      num_exp (t, AT (x, i));
      num_add (s, s, t);
    }
  num_log (r, s);
  NUM_CLEAR (s, t);
  return RLREF_SUCCESS;
}

/* One-pass variance: (sum x^2 - n m^2)/(n - ddof). */
int
FN (variance_onepass) (num_ptr v, num_srcptr x, size_t n, int ddof)
{
  num_t s1, s2, t;
  int status = check_variance (x, n, ddof);
  if (status)
    return status;
  NUM_INIT (s1, s2, t);
  for (size_t i = 0; i < n; i++)
    {
      num_add (s1, s1, AT (x, i));
      num_sqr (t, AT (x, i));
      num_add (s2, s2, t);
    }
  num_sqr (t, s1);
  num_div_si (t, t, (long) n);
  num_sub (s2, s2, t);
  num_div_si (v, s2, (long) n - ddof);
  NUM_CLEAR (s1, s2, t);
  return RLREF_SUCCESS;
}
