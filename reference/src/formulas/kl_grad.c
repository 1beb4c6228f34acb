/* kl_grad.c -- KL-GRAD on a softmax over a few outcomes: the exact
 * expected gradient of each KL estimator used as a loss, beside the
 * gradients of KL(q || q_ref) and KL(q_ref || q).  Seed 000 section 12.1
 * (estimating the KL and differentiating an estimator are separate
 * questions) and section 5.  Written once for both backends; the tiny-LM
 * counterpart is lm_objective with RLREF_LM_OBJ_K1, K2, K3 (lm_grad.c).
 *
 * q = softmax(theta), q_ref = softmax(theta_ref), l_y = log q_y - log q_ref,y,
 * and d l_y / d theta_j = d log q_y / d theta_j = [y = j] - q_j.  Any
 * per-outcome weight w_y gives sum_y q_y w_y ([y = j] - q_j) =
 * q_j (w_j - E_q[w]). */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/kl.h"
#include "kl_series.h"
#include "flow.h"


/* g_j = q_j (w_j - sum_y q_y w_y) = q_j sum_{y != j} q_y (w_j - w_y)
 * (sum q = 1), a compensated sum of differences: no w_j - E_q[w] that
 * cancels where q_j is near 1, and equal weights give exactly 0, as
 * E_q[grad log q] = 0 (s scratch). */
static int
weighted (num_ptr g, num_srcptr q, num_srcptr w, size_t K, num_ptr s)
{
  kl_acc a;
  FN (kl_acc_init) (&a);
  for (size_t j = 0; j < K; j++)
    {
      for (size_t y = 0; y < K; y++)
        {
          if (y == j)
            continue;
          num_sub (s, AT (w, j), AT (w, y));
          num_mul (s, s, AT (q, y));
          FN (kl_acc_add) (&a, s);
        }
      FN (kl_acc_get) (s, &a);
      num_mul (AT (g, j), s, AT (q, j));
      FN (kl_acc_clear) (&a);
      FN (kl_acc_init) (&a);
    }
  FN (kl_acc_clear) (&a);
  return RLREF_SUCCESS;
}

/* 000 section 12.1.  With k_y and k'_y the estimate of convention c at l_y
 * and its derivative in l (kl_estimate):
 *   value = E_q[k],
 *   loss:           w_y = k'_y             (E_q[grad k(l_y)], the sampling held fixed)
 *   ratio loss:     w_y = k'_y + k_y       (grad (k rho), rho = q/q_old, = 1 on-policy)
 *   in the reward:  w_y = k_y              (E_q[k grad log q], REINFORCE);
 * KL(q || q_ref) = sum_y q_y k3(l_y) (terms >= 0), its gradient w_y = l_y;
 * KL(q_ref || q) = sum_y q_ref,y k3(-l_y), its gradient q_j - q_ref,j. */
int
FN (kl_grad_softmax) (num_ptr value, num_ptr grad, num_ptr kl, num_ptr grad_kl,
                      num_ptr kl_reverse, num_ptr grad_kl_reverse, num_srcptr logits,
                      num_srcptr ref_logits, size_t K, const rlref_kl_convention *c,
                      rlref_kl_grad_mode mode)
{
  num_ptr t = NULL;
  num_t s;
  int status = RLREF_SUCCESS;
  if (!logits || !ref_logits || K == 0)
    RLREF_ERROR ("empty or missing logits", RLREF_EINVAL);
  if (!c || c->arith != RLREF_KL_EXACT)
    RLREF_ERROR ("an exact-arithmetic convention is needed", RLREF_EINVAL);
  if (!value || !kl || !kl_reverse)
    RLREF_ERROR ("missing output", RLREF_EINVAL);
  for (size_t i = 0; i < K; i++)
    if (!num_is_finite (AT (logits, i)) || !num_is_finite (AT (ref_logits, i)))
      RLREF_ERROR ("a logit is not finite", RLREF_ENAN);
  num_init (s);
  /* t: lq, lr, q, qr, l, zero, k, dk, w, then the three gradients */
  t = num_vec_new (12 * K);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  {
    num_ptr lq = t, lr = AT (t, K), q = AT (t, 2 * K), qr = AT (t, 3 * K), l = AT (t, 4 * K);
    num_ptr zero = AT (t, 5 * K), k = AT (t, 6 * K), dk = AT (t, 7 * K), w = AT (t, 8 * K);
    num_ptr g = AT (t, 9 * K), gkl = AT (t, 10 * K), gklr = AT (t, 11 * K);
    num_t v, d, dr;
    int finite;
    num_init (v);
    num_init (d);
    num_init (dr);
    status = FN (log_softmax) (lq, logits, K);
    if (status == RLREF_SUCCESS)
      status = FN (log_softmax) (lr, ref_logits, K);
    for (size_t i = 0; status == RLREF_SUCCESS && i < K; i++)
      {
        num_exp (AT (q, i), AT (lq, i));
        num_exp (AT (qr, i), AT (lr, i));
        num_sub (AT (l, i), AT (lq, i), AT (lr, i));
      }
    if (status == RLREF_SUCCESS)
      status = FN (kl_estimate) (k, dk, l, zero, K, c);
    if (status == RLREF_SUCCESS)
      status = num_dot (v, q, k, K);
    for (size_t i = 0; status == RLREF_SUCCESS && i < K; i++)
      {
        if (mode == RLREF_KL_AS_LOSS)
          num_set (AT (w, i), AT (dk, i));
        else if (mode == RLREF_KL_AS_RATIO_LOSS)
          num_add (AT (w, i), AT (dk, i), AT (k, i));
        else
          num_set (AT (w, i), AT (k, i));
      }
    if (status == RLREF_SUCCESS)
      status = weighted (g, q, w, K, s);
    /* KL(q || q_ref) = sum q k3(l), KL(q_ref || q) = sum q_ref k3(-l) (zero
     * is free now: it holds -l) */
    for (size_t i = 0; status == RLREF_SUCCESS && i < K; i++)
      {
        FN (kl_k3_term) (AT (w, i), AT (q, i), AT (qr, i), AT (l, i));
        num_neg (AT (zero, i), AT (l, i));
        FN (kl_k3_term) (AT (dk, i), AT (qr, i), AT (q, i), AT (zero, i));
      }
    if (status == RLREF_SUCCESS)
      status = num_sum (d, w, K);
    if (status == RLREF_SUCCESS)
      status = num_sum (dr, dk, K);
    for (size_t i = 0; status == RLREF_SUCCESS && i < K; i++)
      num_set (AT (k, i), AT (l, i));
    if (status == RLREF_SUCCESS)
      status = weighted (gkl, q, k, K, s);
    for (size_t i = 0; status == RLREF_SUCCESS && i < K; i++)
      num_sub (AT (gklr, i), AT (q, i), AT (qr, i));
    if (status == RLREF_SUCCESS)
      {
        for (size_t i = 0; i < K; i++)
          {
            if (grad)
              num_set (AT (grad, i), AT (g, i));
            if (grad_kl)
              num_set (AT (grad_kl, i), AT (gkl, i));
            if (grad_kl_reverse)
              num_set (AT (grad_kl_reverse, i), AT (gklr, i));
          }
        num_set (value, v);
        num_set (kl, d);
        num_set (kl_reverse, dr);
        /* never a NaN: a sum that overflows (or 0 times inf where an
         * outcome has probability 0) is a range error */
        finite = num_is_finite (v) && num_is_finite (d) && num_is_finite (dr);
        for (size_t i = 0; i < 4 * K; i++)
          finite = finite && num_is_finite (AT (t, 8 * K + i));
        if (!finite)
          status = RANGE_ERROR ();
      }
    num_clear (v);
    num_clear (d);
    num_clear (dr);
  }
done:
  num_clear (s);
  num_vec_free (t, 12 * K);
  return status;
}
