/* newton.c -- Gaussian elimination and gauge-fixed Newton polishing,
 * written once for both backends. */
#include "rlref/num.h"
#include "rlref/status.h"
#include "fit.h"

/* A x = b by Gaussian elimination with partial pivoting; b <- x. */
int
FN (solve) (num_ptr A, num_ptr b, size_t n)
{
  num_t t, f;
  int status = RLREF_SUCCESS;
  num_init (t);
  num_init (f);
  for (size_t k = 0; k < n && status == RLREF_SUCCESS; k++)
    {
      size_t piv = k;
      for (size_t i = k + 1; i < n; i++)
        {
          num_abs (t, AT (A, i * n + k));
          num_abs (f, AT (A, piv * n + k));
          if (num_cmp (t, f) > 0)
            piv = i;
        }
      if (num_is_zero (AT (A, piv * n + k)))
        {
          status = RLREF_EDOM;
          break;
        }
      if (piv != k)
        {
          for (size_t j = 0; j < n; j++)
            {
              num_set (t, AT (A, k * n + j));
              num_set (AT (A, k * n + j), AT (A, piv * n + j));
              num_set (AT (A, piv * n + j), t);
            }
          num_set (t, AT (b, k));
          num_set (AT (b, k), AT (b, piv));
          num_set (AT (b, piv), t);
        }
      for (size_t i = k + 1; i < n; i++)
        {
          num_div (f, AT (A, i * n + k), AT (A, k * n + k));
          for (size_t j = k; j < n; j++)
            {
              num_mul (t, f, AT (A, k * n + j));
              num_sub (AT (A, i * n + j), AT (A, i * n + j), t);
            }
          num_mul (t, f, AT (b, k));
          num_sub (AT (b, i), AT (b, i), t);
        }
    }
  for (size_t k = n; k-- > 0 && status == RLREF_SUCCESS;)
    {
      for (size_t j = k + 1; j < n; j++)
        {
          num_mul (t, AT (A, k * n + j), AT (b, j));
          num_sub (AT (b, k), AT (b, k), t);
        }
      num_div (AT (b, k), AT (b, k), AT (A, k * n + k));
    }
  num_clear (t);
  num_clear (f);
  if (status != RLREF_SUCCESS)
    RLREF_ERROR ("singular matrix", status);
  return status;
}

/* Newton on a shift-invariant convex f: (H + 1 1^T) d = -g keeps sum d = 0
 * because g sums to zero and H 1 = 0.  Once a step is below
 * 2^(-prec/2) (1 + |s|), two more steps reach the working precision
 * (convergence is quadratic); the certification by two precisions then
 * says how many digits hold. */
int
FN (newton_gauge) (num_ptr s, size_t K, FN (fgh_fn) *fgh, const void *ctx)
{
  num_ptr g = num_vec_new (K), H = num_vec_new (K * K), trial = num_vec_new (K);
  num_t f, ftrial, dmax, smax, t;
  int status = RLREF_SUCCESS, converged = 0, final_steps = -1;
  if (!g || !H || !trial)
    {
      num_vec_free (g, K);
      num_vec_free (H, K * K);
      num_vec_free (trial, K);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  num_init (f);
  num_init (ftrial);
  num_init (dmax);
  num_init (smax);
  num_init (t);
  for (int iter = 0; iter < 200 && status == RLREF_SUCCESS && !converged; iter++)
    {
      status = fgh (ctx, s, f, g, H, K);
      if (status)
        break;
      for (size_t i = 0; i < K * K; i++)
        num_add_d (AT (H, i), AT (H, i), 1.0);
      for (size_t i = 0; i < K; i++)
        num_neg (AT (g, i), AT (g, i));
      status = FN (solve) (H, g, K);      /* g <- d */
      if (status)
        break;
      num_set_zero (dmax);
      num_set_zero (smax);
      for (size_t i = 0; i < K; i++)
        {
          num_abs (t, AT (g, i));
          num_max (dmax, dmax, t);
          num_abs (t, AT (s, i));
          num_max (smax, smax, t);
        }
      num_add_d (smax, smax, 1.0);
      num_mul_2si (smax, smax, -(num_prec () / 2));
      if (final_steps < 0 && num_cmp (dmax, smax) <= 0)
        final_steps = 2;
      if (final_steps >= 0 && final_steps-- == 0)
        converged = 1;
      for (int halvings = 0; halvings < 60; halvings++)
        {
          for (size_t i = 0; i < K; i++)
            num_add (AT (trial, i), AT (s, i), AT (g, i));
          status = fgh (ctx, trial, ftrial, NULL, NULL, K);
          if (status)
            break;
          if (converged || num_cmp (ftrial, f) <= 0)
            break;
          for (size_t i = 0; i < K; i++)
            num_mul_2si (AT (g, i), AT (g, i), -1);
        }
      if (status)
        break;
      for (size_t i = 0; i < K; i++)
        num_set (AT (s, i), AT (trial, i));
    }
  if (status == RLREF_SUCCESS && !converged)
    status = RLREF_EMAXITER;
  num_clear (f);
  num_clear (ftrial);
  num_clear (dmax);
  num_clear (smax);
  num_clear (t);
  num_vec_free (g, K);
  num_vec_free (H, K * K);
  num_vec_free (trial, K);
  if (status == RLREF_EMAXITER)
    RLREF_ERROR ("Newton polishing did not converge", status);
  return status;
}
