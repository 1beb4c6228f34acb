/* lm_train.c -- the KL-optimal policy as tabular logits, and exact-gradient
 * training of a tiny-LM policy (KLOPT-PISTAR on sequences, DPO-EQUIV,
 * LM-TRAIN). */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/lm.h"
#include "rlref/primitives.h"

/* pi*(a | s) of a tabular model, cut sequences kept, additive reward:
 * pi*(y) = pi_ref(y) e^{r(y)/beta} / Z (13.17) factors token by token as
 *   pi*(a | s) = pi_ref(a | s) e^{r_a/beta} Z(s a) / Z(s),
 * Z(node) the partition sum of the continuations below it (Z = e^{truncated/beta}
 * at a cut leaf, 1 after EOS), r_a = token[a] + per_length; so the logits
 *   theta*(s, a) = log pi_ref(a | s) + r_a/beta + log Z(s a)
 * give it exactly (a softmax ignores the row's constant log Z(s)).  log Z
 * of every prefix comes from a post-order depth-first pass, each row by a
 * log-sum-exp of its children. */
int
FN (lm_pistar_logits) (num_ptr theta, const rlref_lm *lm, num_srcptr ref_logits,
                       num_srcptr reward, num_srcptr beta)
{
  int V, T, eos, d = 0, status = rlref_lm_check (lm);
  int y[RLREF_LM_MAX_T] = { 0 }, child[RLREF_LM_MAX_T];
  num_ptr lsm, kid, t, out;
  size_t nl;
  if (status)
    return status;
  if (lm->kind != RLREF_LM_TABULAR || lm->truncation != RLREF_LM_KEEP
      || lm->reward != RLREF_REWARD_ADDITIVE)
    RLREF_ERROR ("pi* as logits needs a tabular model that keeps cut sequences, with an "
                 "additive reward", RLREF_EINVAL);
  if (!num_is_finite (beta) || num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be finite and positive", RLREF_EDOM);
  V = lm->V;
  T = lm->T;
  eos = lm->eos;
  nl = lm->n_rows * (size_t) V;
  /* per depth: the reference's log-softmax, and the children's terms
   * log pi_ref(a|s) + r_a/beta + log Z(s a) */
  lsm = num_vec_new ((size_t) T * V);
  kid = num_vec_new ((size_t) T * V);
  t = num_vec_new (3);
  out = num_vec_new (nl);       /* theta may be the ref_logits' storage */
  if (!lsm || !kid || !t || !out)
    status = RLREF_ENOMEM;
  num_d_div (AT (t, 2), 1.0, beta);
  child[0] = 0;
  if (status == RLREF_SUCCESS)
    status = FN (log_softmax) (lsm, ref_logits, (size_t) V);
  while (status == RLREF_SUCCESS)
    {
      int a;
      size_t k, row;
      if (child[d] == V)
        {
          /* leaving prefix s: its row is the children's terms; log Z(s) = lse */
          row = rlref_lm_prefix_index (V, eos, y, d) * (size_t) V;
          for (a = 0; a < V; a++)
            num_set (AT (out, row + a), AT (kid, d * V + a));
          status = FN (logsumexp) (AT (t, 0), AT (kid, d * V), (size_t) V);
          if (status || d == 0)
            break;
          d--;
          /* log Z(parent y_d) enters the parent's term for token y[d] */
          num_add (AT (kid, d * V + y[d]), AT (kid, d * V + y[d]), AT (t, 0));
          continue;
        }
      a = child[d]++;
      y[d] = a;
      k = (size_t) d * V + (size_t) a;
      /* log pi_ref(a|s) + (token[a] + per_length)/beta */
      num_add (AT (t, 1), AT (reward, a), AT (reward, V));
      num_mul (AT (t, 1), AT (t, 1), AT (t, 2));
      num_add (AT (kid, k), AT (lsm, k), AT (t, 1));
      if (a == eos)
        continue;
      if (d + 1 == T)
        {
          /* a cut leaf: Z = e^{truncated/beta} */
          num_mul (AT (t, 1), AT (reward, V + 1), AT (t, 2));
          num_add (AT (kid, k), AT (kid, k), AT (t, 1));
          continue;
        }
      d++;
      child[d] = 0;
      status = FN (log_softmax) (AT (lsm, d * V),
                                 AT (ref_logits, rlref_lm_prefix_index (V, eos, y, d) * (size_t) V),
                                 (size_t) V);
    }
  for (size_t i = 0; status == RLREF_SUCCESS && i < nl; i++)
    num_set (AT (theta, i), AT (out, i));
  num_vec_free (lsm, (size_t) T * V);
  num_vec_free (kid, (size_t) T * V);
  num_vec_free (t, 3);
  num_vec_free (out, nl);
  return status;
}

/* LM-TRAIN: steps of exact gradient descent on a minimised objective (KL,
 * KL reverse, DPO, IPO) or ascent on a maximised one (E[r], the RLHF
 * objective), theta <- theta -+ lr grad; history[k] is the objective's
 * value before step k (steps + 1 values). */
int
FN (lm_descend) (num_ptr theta, num_ptr history, const rlref_lm *lm, num_srcptr ref_logits,
                 num_srcptr reward, num_srcptr beta, int objective, num_srcptr lr, int steps)
{
  size_t nl = lm->n_rows * (size_t) lm->V;
  int status = RLREF_SUCCESS, ascend = objective == RLREF_LM_OBJ_REWARD
    || objective == RLREF_LM_OBJ_RLHF;
  num_ptr grad, t;
  if (steps < 0 || !num_is_finite (lr) || num_sgn (lr) <= 0)
    RLREF_ERROR ("steps >= 0 and a finite positive learning rate", RLREF_EDOM);
  grad = num_vec_new (nl);
  t = num_vec_new (1);
  if (!grad || !t)
    status = RLREF_ENOMEM;
  for (int k = 0; k <= steps && status == RLREF_SUCCESS; k++)
    {
      status = FN (lm_objective) (AT (history, k), k < steps ? grad : NULL, lm, theta,
                                  ref_logits, reward, beta, objective);
      for (size_t i = 0; k < steps && status == RLREF_SUCCESS && i < nl; i++)
        {
          num_mul (t, lr, AT (grad, i));
          if (ascend)
            num_add (AT (theta, i), AT (theta, i), t);
          else
            num_sub (AT (theta, i), AT (theta, i), t);
        }
    }
  num_vec_free (grad, nl);
  num_vec_free (t, 1);
  return status;
}

/* grad log pi_theta(y) added, times s, into g (n_rows x V): at each prefix
 * on y's path, s (e_{y_t} - pi(. | s_t)) in its row (13.1 differentiated). */
static int
add_path_gradient (num_ptr g, const rlref_lm *lm, num_srcptr theta, const int *y, int L,
                   num_srcptr s, num_ptr lsm, num_ptr t)
{
  int V = lm->V, status = RLREF_SUCCESS;
  for (int k = 0; k < L && status == RLREF_SUCCESS; k++)
    {
      size_t row = lm->kind == RLREF_LM_BIGRAM ? (size_t) (k == 0 ? V : y[k - 1])
        : rlref_lm_prefix_index (V, lm->eos, y, k);
      status = FN (log_softmax) (lsm, AT (theta, row * V), (size_t) V);
      for (int a = 0; a < V && status == RLREF_SUCCESS; a++)
        {
          num_exp (t, AT (lsm, a));
          num_d_sub (t, a == y[k] ? 1.0 : 0.0, t);
          num_mul (t, t, s);
          num_add (AT (g, row * V + a), AT (g, row * V + a), t);
        }
    }
  return status;
}

/* DPO-DISPLACE: exact gradient descent on the loss of one preference pair,
 * DPO -log sigma(beta z) or IPO (z - 1/(2 beta))^2, z = h_w - h_l,
 * h = log pi_theta - log pi_ref (13.21); theta in place.  logp_w[k],
 * logp_l[k] are log pi_theta(y_w), log pi_theta(y_l) before step k (steps + 1
 * values): with parameters shared between the two sequences both may fall
 * while the margin z grows. */
int
FN (lm_pair_descend) (num_ptr theta, num_ptr logp_w, num_ptr logp_l, const rlref_lm *lm,
                      num_srcptr ref_logits, num_srcptr beta, int objective, const int *yw,
                      int Lw, const int *yl, int Ll, num_srcptr lr, int steps)
{
  size_t nl = lm->n_rows * (size_t) lm->V;
  int status = rlref_lm_check (lm);
  num_ptr g, t, tok;
  if (status)
    return status;
  if (objective != RLREF_LM_OBJ_DPO && objective != RLREF_LM_OBJ_IPO)
    RLREF_ERROR ("a pair loss is DPO or IPO", RLREF_EINVAL);
  if (steps < 0 || !num_is_finite (lr) || num_sgn (lr) <= 0 || !num_is_finite (beta)
      || num_sgn (beta) <= 0)
    RLREF_ERROR ("steps >= 0, a finite positive learning rate and beta", RLREF_EDOM);
  g = num_vec_new (nl);
  t = num_vec_new (8 + (size_t) lm->V);
  tok = num_vec_new (RLREF_LM_MAX_T);
  if (!g || !t || !tok)
    status = RLREF_ENOMEM;
  /* t: 0 ref log pi(y_w), 1 ref log pi(y_l), 2 z, 3 dL/dz scaled, 4 scratch,
   * 8.. a log-softmax row */
  if (status == RLREF_SUCCESS)
    status = FN (lm_logprob) (AT (t, 0), tok, lm, ref_logits, yw, Lw);
  if (status == RLREF_SUCCESS)
    status = FN (lm_logprob) (AT (t, 1), tok, lm, ref_logits, yl, Ll);
  for (int k = 0; k <= steps && status == RLREF_SUCCESS; k++)
    {
      status = FN (lm_logprob) (AT (logp_w, k), tok, lm, theta, yw, Lw);
      if (status == RLREF_SUCCESS)
        status = FN (lm_logprob) (AT (logp_l, k), tok, lm, theta, yl, Ll);
      if (status || k == steps)
        break;
      /* z = (log pi(y_w) - ref_w) - (log pi(y_l) - ref_l) */
      num_sub (AT (t, 2), AT (logp_w, k), AT (t, 0));
      num_sub (AT (t, 4), AT (logp_l, k), AT (t, 1));
      num_sub (AT (t, 2), AT (t, 2), AT (t, 4));
      if (objective == RLREF_LM_OBJ_DPO)
        {
          /* dL/dz = -beta sigma(-beta z) */
          num_mul (AT (t, 4), beta, AT (t, 2));
          num_neg (AT (t, 4), AT (t, 4));
          status = FN (sigmoid) (AT (t, 3), AT (t, 4));
          num_mul (AT (t, 3), AT (t, 3), beta);
          num_neg (AT (t, 3), AT (t, 3));
        }
      else
        {
          /* dL/dz = 2 (z - 1/(2 beta)) */
          num_d_div (AT (t, 4), 0.5, beta);
          num_sub (AT (t, 3), AT (t, 2), AT (t, 4));
          num_mul_2si (AT (t, 3), AT (t, 3), 1);
        }
      /* theta -= lr dL/dz (grad log pi(y_w) - grad log pi(y_l)) */
      for (size_t i = 0; i < nl; i++)
        num_set_zero (AT (g, i));
      num_mul (AT (t, 3), AT (t, 3), lr);
      num_neg (AT (t, 3), AT (t, 3));
      if (status == RLREF_SUCCESS)
        status = add_path_gradient (g, lm, theta, yw, Lw, AT (t, 3), AT (t, 8), AT (t, 4));
      num_neg (AT (t, 3), AT (t, 3));
      if (status == RLREF_SUCCESS)
        status = add_path_gradient (g, lm, theta, yl, Ll, AT (t, 3), AT (t, 8), AT (t, 4));
      for (size_t i = 0; status == RLREF_SUCCESS && i < nl; i++)
        num_add (AT (theta, i), AT (theta, i), AT (g, i));
    }
  num_vec_free (g, nl);
  num_vec_free (t, 8 + (size_t) lm->V);
  num_vec_free (tok, RLREF_LM_MAX_T);
  return status;
}
