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

/* The checks of kl_grad_softmax, shared by its two forms. */
static int
check_args (num_srcptr value, num_srcptr kl, num_srcptr kl_reverse, num_srcptr logits,
            num_srcptr ref_logits, size_t K, const rlref_kl_convention *c)
{
  if (!logits || !ref_logits || K == 0)
    RLREF_ERROR ("empty or missing logits", RLREF_EINVAL);
  if (!c || c->arith != RLREF_KL_EXACT)
    RLREF_ERROR ("an exact-arithmetic convention is needed", RLREF_EINVAL);
  if (!value || !kl || !kl_reverse)
    RLREF_ERROR ("missing output", RLREF_EINVAL);
  for (size_t i = 0; i < K; i++)
    if (!num_is_finite (AT (logits, i)) || !num_is_finite (AT (ref_logits, i)))
      RLREF_ERROR ("a logit is not finite", RLREF_ENAN);
  return RLREF_SUCCESS;
}

#ifdef RLREF_MP
/* r = a - b - c + d rounded once (s: four scratch scalars). */
static int
sum4 (num_ptr r, num_srcptr a, num_srcptr b, num_srcptr c, num_srcptr d, num_ptr s)
{
  num_set (AT (s, 0), a);
  num_neg (AT (s, 1), b);
  num_neg (AT (s, 2), c);
  num_set (AT (s, 3), d);
  return num_sum (r, s, 4);
}

/* l_y = log q_y - log q_ref,y for q = softmax(x), q_ref = softmax(xr):
 *   l_y = delta_y - log(S/S_r),  delta_y = (x_y - m) - (xr_y - m_r),
 * m, m_r the largest logits, S = sum_i e^a_i, S_r = sum_i e^b_i, a = x - m,
 * b = xr - m_r, and log(S/S_r) = log1p(sum_i (e^a_i - e^b_i) / S_r), each
 * difference e^b_i expm1(delta_i) where |delta_i| < 1 (delta_i rounded
 * once).  Not lq - lr: that loses the raw logit differences, and a ratio
 * of the two partition functions near 1, to the rounding of the two
 * log-sum-exps (w: 2 K + 4 scratch scalars). */
static int
log_ratio (num_ptr l, num_srcptr x, num_srcptr xr, size_t K, num_ptr w)
{
  num_ptr e = w, er = AT (w, K), s4 = AT (w, 2 * K);
  num_t m, mr, a, b, d, sr;
  int status = RLREF_SUCCESS;
  num_init (m);
  num_init (mr);
  num_init (a);
  num_init (b);
  num_init (d);
  num_init (sr);
  num_set (m, AT (x, 0));
  num_set (mr, AT (xr, 0));
  for (size_t i = 1; i < K; i++)
    {
      num_max (m, m, AT (x, i));
      num_max (mr, mr, AT (xr, i));
    }
  for (size_t i = 0; status == RLREF_SUCCESS && i < K; i++)
    {
      status = sum4 (AT (l, i), AT (x, i), m, AT (xr, i), mr, s4);
      num_sub (a, AT (x, i), m);
      num_sub (b, AT (xr, i), mr);
      num_exp (AT (er, i), b);
      num_abs (d, AT (l, i));
      if (num_cmp_d (d, 1.0) < 0)
        {
          num_expm1 (d, AT (l, i));
          num_mul (AT (e, i), AT (er, i), d);
        }
      else
        {
          num_exp (a, a);
          num_sub (AT (e, i), a, AT (er, i));
        }
    }
  if (status == RLREF_SUCCESS)
    status = num_sum (d, e, K);
  if (status == RLREF_SUCCESS)
    status = num_sum (sr, er, K);
  if (status == RLREF_SUCCESS)
    {
      num_div (d, d, sr);
      num_log1p (d, d);
      for (size_t i = 0; i < K; i++)
        num_sub (AT (l, i), AT (l, i), d);
    }
  num_clear (m);
  num_clear (mr);
  num_clear (a);
  num_clear (b);
  num_clear (d);
  num_clear (sr);
  return status;
}

/* r = q a, q = e^lq: e^(lq + log|a|) with the sign of a where q is below
 * 2^-1021 (it may have underflowed while q a has not; t scratch). */
static void
mul_q (num_ptr r, num_srcptr q, num_srcptr lq, num_srcptr a, num_ptr t)
{
  if (num_cmp_d (lq, -708.0) >= 0 || num_is_zero (a) || !num_is_finite (a))
    {
      num_mul (r, q, a);
      return;
    }
  num_abs (t, a);
  num_log (t, t);
  num_add (t, t, lq);
  num_exp (t, t);
  if (num_sgn (a) < 0)
    num_neg (t, t);
  num_set (r, t);
}

/* g_j = q_j (w_j - sum_y q_y w_y) = q_j sum_{y != j} q_y (w_j - w_y)
 * (sum q = 1), a sum of products of differences rounded once: no w_j -
 * E_q[w] that cancels where q_j is near 1, and equal weights give exactly
 * 0, as E_q[grad log q] = 0.  With x (w_y = l_y + a constant) the
 * differences are l_j - l_y = (x_j - xr_j) - (x_y - xr_y) from the raw
 * logits, each rounded once.  Each product by q = e^lq by mul_q (dw: K
 * scratch scalars, s4: four). */
static int
weighted (num_ptr g, num_srcptr q, num_srcptr lq, num_srcptr w, num_srcptr x, num_srcptr xr,
          size_t K, num_ptr dw, num_ptr s4)
{
  int status = RLREF_SUCCESS;
  num_t s, t;
  num_init (s);
  num_init (t);
  for (size_t j = 0; status == RLREF_SUCCESS && j < K; j++)
    {
      for (size_t y = 0; status == RLREF_SUCCESS && y < K; y++)
        {
          if (y == j)
            num_set_zero (AT (dw, y));
          else if (x)
            status = sum4 (AT (dw, y), AT (x, j), AT (x, y), AT (xr, j), AT (xr, y), s4);
          else
            num_sub (AT (dw, y), AT (w, j), AT (w, y));
          mul_q (AT (dw, y), AT (q, y), AT (lq, y), AT (dw, y), t);
        }
      if (status == RLREF_SUCCESS)
        status = num_sum (s, dw, K);
      mul_q (AT (g, j), AT (q, j), AT (lq, j), s, t);
    }
  num_clear (s);
  num_clear (t);
  return status;
}

/* Whether the weight of mode and convention c is w_y = l_y plus a constant:
 * k2's and the straight-through gradients l, k1 in the reward, and with
 * the ratio k1's 1 + l and k3's (1 - e^-l) + (e^-l - 1 + l) = l. */
static int
weight_is_l (const rlref_kl_convention *c, rlref_kl_grad_mode mode)
{
  int plain = !c->inverted && c->kl_clamp <= 0 && c->log_ratio_clamp <= 0;
  if (mode == RLREF_KL_AS_LOSS && !c->inverted && c->straight_through == RLREF_KL_ST)
    return 1;
  if (!plain)
    return 0;
  if (mode == RLREF_KL_AS_LOSS)
    return c->straight_through == RLREF_KL_ST_NONE && c->estimator == RLREF_KL_K2;
  if (mode == RLREF_KL_AS_REWARD)
    return c->estimator == RLREF_KL_K1;
  return c->straight_through == RLREF_KL_ST_NONE
    && (c->estimator == RLREF_KL_K1 || c->estimator == RLREF_KL_K3);
}

/* 000 section 12.1.  With k_y and k'_y the estimate of convention c at l_y
 * and its derivative in l (kl_estimate):
 *   value = E_q[k],
 *   loss:           w_y = k'_y             (E_q[grad k(l_y)], the sampling held fixed)
 *   ratio loss:     w_y = k'_y + k_y       (grad (k rho), rho = q/q_old, = 1 on-policy)
 *   in the reward:  w_y = k_y              (E_q[k grad log q], REINFORCE);
 * KL(q || q_ref) = sum_y q_y k3(l_y) (terms >= 0), its gradient w_y = l_y;
 * KL(q_ref || q) = sum_y q_ref,y k3(-l_y), its gradient q_j - q_ref,j =
 * q_ref,j expm1(l_j) (l_j <= 0) or -q_j expm1(-l_j).  Unclamped, k1's
 * value E_q[l] and k3's E_q[k3] are KL(q || q_ref) (sum q = sum q_ref = 1),
 * not the cancelling sum q l, nor q_y e^-l_y with errors in q_y and l_y
 * apart; k3's loss gradient is that of KL(q_ref || q). */
int
FN (kl_grad_softmax) (num_ptr value, num_ptr grad, num_ptr kl, num_ptr grad_kl,
                      num_ptr kl_reverse, num_ptr grad_kl_reverse, num_srcptr logits,
                      num_srcptr ref_logits, size_t K, const rlref_kl_convention *c,
                      rlref_kl_grad_mode mode)
{
  num_ptr t = NULL;
  int status = RLREF_SUCCESS;
  size_t nt;
  if ((status = check_args (value, kl, kl_reverse, logits, ref_logits, K, c)))
    return status;
  /* t: lq, lr, q, qr, l, zero, k, dk, w, then the three gradients, then
   * 2 K + 4 scratch scalars */
  nt = 14 * K + 4;
  t = num_vec_new (nt);
  if (!t)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  {
    num_ptr lq = t, lr = AT (t, K), q = AT (t, 2 * K), qr = AT (t, 3 * K), l = AT (t, 4 * K);
    num_ptr zero = AT (t, 5 * K), k = AT (t, 6 * K), dk = AT (t, 7 * K), w = AT (t, 8 * K);
    num_ptr g = AT (t, 9 * K), gkl = AT (t, 10 * K), gklr = AT (t, 11 * K);
    num_ptr sc = AT (t, 12 * K), s4 = AT (t, 14 * K);
    int wl = weight_is_l (c, mode);
    /* k1 and k3 unclamped: E_q[k] = KL(q || q_ref); k3's loss gradient
     * q - q_ref (no e^-l_y, of an error its q_y does not share) */
    int exact_kl = (c->estimator == RLREF_KL_K1 || c->estimator == RLREF_KL_K3) && !c->inverted
      && c->kl_clamp <= 0 && c->log_ratio_clamp <= 0;
    int k3_loss = exact_kl && c->estimator == RLREF_KL_K3 && mode == RLREF_KL_AS_LOSS
      && c->straight_through == RLREF_KL_ST_NONE;
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
      }
    if (status == RLREF_SUCCESS)
      status = log_ratio (l, logits, ref_logits, K, sc);
    if (status == RLREF_SUCCESS)
      status = FN (kl_estimate) (k, dk, l, zero, K, c);
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
      status = weighted (g, q, lq, w, wl ? logits : NULL, ref_logits, K, sc, s4);
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
    if (status == RLREF_SUCCESS)
      {
        if (exact_kl)
          num_set (v, d);
        else
          status = num_dot (v, q, k, K);
      }
    if (status == RLREF_SUCCESS)
      status = weighted (gkl, q, lq, l, logits, ref_logits, K, sc, s4);
    for (size_t i = 0; status == RLREF_SUCCESS && i < K; i++)
      {
        if (num_sgn (AT (l, i)) <= 0)
          {
            num_expm1 (AT (gklr, i), AT (l, i));
            num_mul (AT (gklr, i), AT (gklr, i), AT (qr, i));
          }
        else
          {
            num_expm1 (AT (gklr, i), AT (zero, i));
            num_mul (AT (gklr, i), AT (gklr, i), AT (q, i));
            num_neg (AT (gklr, i), AT (gklr, i));
          }
      }
    if (status == RLREF_SUCCESS)
      {
        for (size_t i = 0; i < K; i++)
          {
            if (grad)
              num_set (AT (grad, i), k3_loss ? AT (gklr, i) : AT (g, i));
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
  num_vec_free (t, nt);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  In binary64 the exponentials cannot resolve the sign
 * of an l_y decided by a cancellation across swapped argmaxes (2^-62 of
 * the partition sum), on which |l| and the clamps turn, nor E_q[w]
 * cancelling down to one outcome's q. */
#include <stdlib.h>
#include "round_once.h"

typedef struct
{
  size_t K;
  const rlref_kl_convention *c;
  rlref_kl_grad_mode mode;
} kl_grad_program;

/* x = (logits, ref_logits); y = (value, kl, kl_reverse, grad, grad_kl,
 * grad_kl_reverse). */
static int
kl_grad_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const kl_grad_program *o = ctx;
  size_t K = o->K;
  return rlref_kl_grad_softmax_mp (y, y + 3, y + 1, y + 3 + K, y + 2, y + 3 + 2 * K, x, x + K,
                                   K, o->c, o->mode);
}

int
FN (kl_grad_softmax) (num_ptr value, num_ptr grad, num_ptr kl, num_ptr grad_kl,
                      num_ptr kl_reverse, num_ptr grad_kl_reverse, num_srcptr logits,
                      num_srcptr ref_logits, size_t K, const rlref_kl_convention *c,
                      rlref_kl_grad_mode mode)
{
  kl_grad_program o = { K, c, mode };
  double *xy;
  int status;
  if ((status = check_args (value, kl, kl_reverse, logits, ref_logits, K, c)))
    return status;
  xy = malloc ((5 * K + 3) * sizeof *xy);
  if (!xy)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < K; i++)
    {
      xy[i] = logits[i];
      xy[K + i] = ref_logits[i];
    }
  status = rlref_round_once (xy + 2 * K, 3 * K + 3, xy, 2 * K, kl_grad_mp, &o,
                             "the KL estimator's expected gradient");
  if (status == RLREF_SUCCESS)
    {
      const double *y = xy + 2 * K;
      *value = y[0];
      *kl = y[1];
      *kl_reverse = y[2];
      for (size_t i = 0; i < K; i++)
        {
          if (grad)
            grad[i] = y[3 + i];
          if (grad_kl)
            grad_kl[i] = y[3 + K + i];
          if (grad_kl_reverse)
            grad_kl_reverse[i] = y[3 + 2 * K + i];
        }
    }
  free (xy);
  return status;
}
#endif
