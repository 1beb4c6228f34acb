/* jacobian_sens.c -- the derivative of a maximum-likelihood fit by the
 * implicit function theorem, and sensitivities from a Jacobian; written
 * once for both backends. */
#include "rlref/num.h"
#include "rlref/status.h"
#include "rlref/sens.h"
#include "flow.h"
#include "fit.h"

/* X = -(H + 1 1^T)^-1 B.  At the minimiser grad_s F(s(theta); theta) = 0;
 * differentiating, H X + B = 0.  H 1 = 0 and 1^T B = 0 (shift
 * invariance), so (H + 1 1^T) X = -B gives 1^T X = 0 (multiply by 1^T:
 * K 1^T X = 0) and then H X = -B.  The inverse is formed column by column
 * (Gaussian elimination with partial pivoting, fit.h), then applied to
 * every column of B. */
int
FN (fit_jacobian) (num_ptr X, num_srcptr H, num_srcptr B, size_t K, size_t P)
{
  num_ptr A = NULL, Ainv = NULL, e = NULL;
  num_t t;
  int status = RLREF_SUCCESS;
  if (!X || !H || !B || K == 0)
    RLREF_ERROR ("empty or NULL matrix", RLREF_EINVAL);
  num_init (t);
  A = num_vec_new (K * K);
  Ainv = num_vec_new (K * K);
  e = num_vec_new (K);
  if (!A || !Ainv || !e)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t c = 0; c < K; c++)
    {
      for (size_t i = 0; i < K * K; i++)
        num_add_d (AT (A, i), AT (H, i), 1.0);
      for (size_t i = 0; i < K; i++)
        num_set_d (AT (e, i), i == c ? 1.0 : 0.0);
      if (FN (solve) (A, e, K))
        FAIL ("the Hessian plus 1 1^T is singular: the minimiser is not unique", RLREF_EDOM);
      for (size_t i = 0; i < K; i++)
        num_set (AT (Ainv, i * K + c), AT (e, i));
    }
  for (size_t i = 0; i < K; i++)
    for (size_t p = 0; p < P; p++)
      {
        num_ptr x = AT (X, i * P + p);
        num_set_zero (x);
        for (size_t l = 0; l < K; l++)
          {
            num_mul (t, AT (Ainv, i * K + l), AT (B, l * P + p));
            num_sub (x, x, t);
          }
      }
done:
  num_clear (t);
  num_vec_free (A, K * K);
  num_vec_free (Ainv, K * K);
  num_vec_free (e, K);
  return status;
}

/* sens_k = sum_j |J_kj| |x_j|. */
int
FN (sens_of_jacobian) (num_ptr sens, num_srcptr J, num_srcptr x, size_t ny, size_t nx)
{
  num_t t, a;
  if (!sens || (ny && (!J || (nx && !x))))
    RLREF_ERROR ("NULL argument", RLREF_EINVAL);
  num_init (t);
  num_init (a);
  for (size_t k = 0; k < ny; k++)
    {
      num_set_zero (AT (sens, k));
      for (size_t j = 0; j < nx; j++)
        {
          num_abs (t, AT (J, k * nx + j));
          num_abs (a, AT (x, j));
          num_mul (t, t, a);
          num_add (AT (sens, k), AT (sens, k), t);
        }
    }
  num_clear (t);
  num_clear (a);
  return RLREF_SUCCESS;
}
