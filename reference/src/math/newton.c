/* newton.c -- Gaussian elimination and gauge-fixed Newton polishing,
 * written once for both backends. */
#include "rlref/num.h"
#include "rlref/status.h"
#include "rlref/primitives.h"
#include "flow.h"
#include "fit.h"

/* A x = b by Gaussian elimination with partial pivoting; b <- x.  EDOM
 * (raised) when a pivot is exactly zero. */
int
FN (solve) (num_ptr A, num_ptr b, size_t n)
{
  num_t t, f;
  int status = RLREF_SUCCESS;
  NUM_INIT (t, f);
  for (size_t k = 0; k < n; k++)
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
        FAIL ("singular matrix", RLREF_EDOM);
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
  for (size_t k = n; k-- > 0;)
    {
      for (size_t j = k + 1; j < n; j++)
        {
          num_mul (t, AT (A, k * n + j), AT (b, j));
          num_sub (AT (b, k), AT (b, k), t);
        }
      num_div (AT (b, k), AT (b, k), AT (A, k * n + k));
    }
done:
  NUM_CLEAR (t, f);
  return status;
}

/* L d = b for the weighted Laplacian L = D - W of a connected graph on
 * n nodes, W_ij = -H_ij >= 0 (i != j; the diagonal of H is not read),
 * D_ii = sum_{j != i} W_ij, grounded at node n - 1 (d_{n-1} = 0; the
 * solutions differ by constants).  Gaussian elimination in the manner of
 * Grassmann, Taksar and Heyman (1985): each pivot D_kk is recomputed as
 * the sum of the remaining weights of row k, and the Schur complement
 * W_ij += W_ik W_kj / D_kk adds positive terms only, so nothing cancels
 * whatever the spread of the weights.  b <- d; H is overwritten. */
int
FN (laplacian_solve) (num_ptr H, num_ptr b, size_t n, const char **why)
{
  num_t piv, m, t;
  int status = RLREF_SUCCESS;
  NUM_INIT (piv, m, t);
  for (size_t k = 0; k + 1 < n; k++)
    {
      num_set_zero (piv);
      for (size_t j = k + 1; j < n; j++)
        num_sub (piv, piv, AT (H, k * n + j));
      if (!(num_sgn (piv) > 0) || !num_is_finite (piv))
        FAIL_QUIET ("the Hessian vanishes: the fit is beyond the exponent range", RLREF_ERANGE);
      num_set (AT (H, k * n + k), piv);
      for (size_t i = k + 1; i + 1 < n; i++)
        {
          if (num_is_zero (AT (H, i * n + k)))
            continue;
          num_div (m, AT (H, i * n + k), piv);          /* -W_ik / D_kk */
          num_mul (t, m, AT (b, k));
          num_sub (AT (b, i), AT (b, i), t);
          for (size_t j = k + 1; j < n; j++)
            if (j != i)
              {
                num_mul (t, m, AT (H, k * n + j));      /* W_ik W_kj / D_kk */
                num_sub (AT (H, i * n + j), AT (H, i * n + j), t);
              }
        }
    }
  num_set_zero (AT (b, n - 1));
  for (size_t k = n - 1; k-- > 0;)
    {
      for (size_t j = k + 1; j + 1 < n; j++)
        {
          num_mul (t, AT (H, k * n + j), AT (b, j));    /* -W_kj d_j */
          num_sub (AT (b, k), AT (b, k), t);
        }
      num_div (AT (b, k), AT (b, k), AT (H, k * n + k));
    }
done:
  NUM_CLEAR (piv, m, t);
  return status;
}

/* trial = s + d 2^j; 0 when an element is not finite. */
static int
step_to (num_ptr trial, num_srcptr s, num_srcptr d, long j, size_t K, num_ptr t)
{
  int finite = 1;
  for (size_t i = 0; i < K; i++)
    {
      num_mul_2si (t, AT (d, i), j);
      num_add (AT (trial, i), AT (s, i), t);
      finite = finite && num_is_finite (AT (trial, i));
    }
  return finite;
}

/* f at s + d 2^j into fs; *lower gets 1 when it is finite and below
 * fref - slack (fref + slack when slack is negative: no rise beyond it). */
static int
try_step (num_ptr trial, num_ptr fs, int *lower, num_srcptr s, num_srcptr d, long j,
          num_srcptr fref, num_srcptr slack, size_t K, FN (fgh_fn) *fgh,
          const void *ctx, num_ptr t)
{
  int status = RLREF_SUCCESS;
  *lower = 0;
  if (step_to (trial, s, d, j, K, t))
    {
      status = fgh (ctx, trial, fs, NULL, NULL, K);
      if (status == RLREF_SUCCESS && num_is_finite (fs))
        {
          num_sub (t, fref, fs);
          *lower = num_cmp (t, slack) > 0;
        }
    }
  return status;
}

/* max_i |v_i| into r (t scratch). */
static void
max_abs (num_ptr r, num_srcptr v, size_t K, num_ptr t)
{
  num_set_zero (r);
  for (size_t i = 0; i < K; i++)
    {
      num_abs (t, AT (v, i));
      num_max (r, r, t);
    }
}

/* Newton on a shift-invariant convex f whose Hessian is a weighted
 * Laplacian: H d = -g solved grounded at the last item (H 1 = 0 and g
 * sums to zero, so d is fixed up to a constant), then shifted to
 * sum d = 0.  The first trial step is d, scaled down by a power of two to
 * at most min(16 (1 + max |s_i|), radius); it is halved while f rises by
 * more than its rounding (2^-(prec - 8) |f|), and when it lowers f
 * clearly it is doubled, within the radius, while f keeps falling (far
 * from the minimum, on the exponential tails of a likelihood, a Newton
 * step moves by about one unit).  A step that lands where the Hessian
 * underflows is taken back and the radius set to a quarter of it; a step
 * that reaches half the radius doubles it.  Once a step is below
 * 2^(-prec/2) (1 + |s|), two more full steps reach the working precision
 * (convergence is quadratic); the certification by two precisions then
 * says how many digits hold. */
int
FN (newton_gauge) (num_ptr s, size_t K, FN (fgh_fn) *fgh, const void *ctx, const char **why)
{
  num_ptr g = num_vec_new (K), H = num_vec_new (K * K), trial = num_vec_new (K);
  num_ptr best = num_vec_new (K), prev = num_vec_new (K);
  num_t f, ftrial, fbest, slack, nslack, dmax, smax, cap, radius, len, t;
  int status = RLREF_SUCCESS, converged = 0, final_steps = -1, have_prev = 0;
  *why = "the objective could not be evaluated";
  num_init (f); num_init (ftrial); num_init (fbest); num_init (slack); num_init (nslack);
  num_init (dmax); num_init (smax); num_init (cap); num_init (radius); num_init (len);
  num_init (t);
  num_set_inf (radius, 1);
  if (!g || !H || !trial || !best || !prev)
    FAIL_QUIET ("out of memory", RLREF_ENOMEM);
  for (int iter = 0; iter < NEWTON_MAX_ITER && !converged; iter++)
    {
      long j, j0;
      int lower;
      TRY (fgh (ctx, s, f, g, H, K));
      for (size_t i = 0; i < K; i++)
        num_neg (AT (g, i), AT (g, i));
      status = FN (laplacian_solve) (H, g, K, why);     /* g <- d, d_{K-1} = 0 */
      if (status == RLREF_ERANGE && have_prev && final_steps < 0)
        {
          /* the last step went where the Hessian underflows: back, shorter */
          num_mul_2si (radius, len, -2);
          max_abs (t, prev, K, cap);
          num_add_d (t, t, 1.0);
          num_mul_2si (t, t, -num_prec ());
          if (num_cmp (radius, t) < 0)
            goto done;
          for (size_t i = 0; i < K; i++)
            num_set (AT (s, i), AT (prev, i));
          have_prev = 0;
          continue;
        }
      if (status)
        goto done;
      max_abs (dmax, g, K, t);
      if (!num_is_finite (dmax))
        FAIL_QUIET ("the Newton step overflows: the fit is beyond the exponent range", RLREF_ERANGE);
      TRY (FN (mean) (t, g, K));
      for (size_t i = 0; i < K; i++)
        num_sub (AT (g, i), AT (g, i), t);      /* sum d = 0 */
      max_abs (dmax, g, K, t);
      max_abs (smax, s, K, t);
      num_add_d (smax, smax, 1.0);
      num_mul_2si (cap, smax, 4);
      num_min (cap, cap, radius);
      num_mul_2si (smax, smax, -(num_prec () / 2));
      if (final_steps < 0 && num_cmp (dmax, smax) <= 0)
        final_steps = 2;
      if (final_steps >= 0 && final_steps-- == 0)
        converged = 1;
      /* the first trial: d 2^j0, j0 <= 0, at most cap long */
      j0 = 0;
      if (final_steps < 0 && num_cmp (dmax, cap) > 0)
        j0 = num_get_exp (cap) - num_get_exp (dmax) - 1;
      num_abs (slack, f);
      num_mul_2si (slack, slack, -(num_prec () - 8));
      num_neg (nslack, slack);
      /* halve the step until f(s + d 2^j) <= f + slack */
      for (j = j0; j > j0 - 60; j--)
        {
          TRY (try_step (trial, fbest, &lower, s, g, j, f, nslack, K, fgh, ctx, t));
          if (final_steps >= 0 || lower)
            break;
        }
      if (j == j0 - 60)
        FAIL_QUIET ("Newton's method found no descent direction", RLREF_EMAXITER);
      /* a first step that lowered f clearly: double it, within the radius,
       * while f keeps falling */
      num_sub (t, f, fbest);
      if (j == j0 && final_steps < 0 && num_cmp (t, slack) > 0)
        for (long k = j0 + 1; k < j0 + 60; k++)
          {
            num_mul_2si (t, dmax, k);
            if (num_cmp (t, radius) > 0)
              break;
            TRY (try_step (best, ftrial, &lower, s, g, k, fbest, slack, K, fgh, ctx, t));
            if (!lower)
              break;
            num_set (fbest, ftrial);
            j = k;
            for (size_t i = 0; i < K; i++)
              num_set (AT (trial, i), AT (best, i));
          }
      num_mul_2si (len, dmax, j);
      num_mul_2si (t, len, 1);
      if (num_cmp (t, radius) >= 0)
        num_mul_2si (radius, radius, 1);
      for (size_t i = 0; i < K; i++)
        {
          num_set (AT (prev, i), AT (s, i));
          num_set (AT (s, i), AT (trial, i));
        }
      have_prev = 1;
    }
  if (!converged)
    FAIL_QUIET ("Newton polishing did not converge", RLREF_EMAXITER);
done:
  num_clear (f); num_clear (ftrial); num_clear (fbest); num_clear (slack); num_clear (nslack);
  num_clear (dmax); num_clear (smax); num_clear (cap); num_clear (radius); num_clear (len);
  num_clear (t);
  num_vec_free (g, K);
  num_vec_free (H, K * K);
  num_vec_free (trial, K);
  num_vec_free (best, K);
  num_vec_free (prev, K);
  return status;
}
