/* pref_eval.c -- glue from the registry's inputs and outputs to the
 * preference-model formulas.  Compiled twice (binary64 and MPFR). */
#include "family_eval.h"

/* PREF-BT: x = rw, rl; y = p. */
RL_ENTRY (bt_prob)
{
  (void) v;
  (void) a;
  return LIB (bt_prob) (y[0], x[0], x[1]);
}

/* PREF-BT-GUMBEL: x = rw, rl; y = p. */
RL_ENTRY (bt_gumbel)
{
  (void) v;
  (void) a;
  return LIB (bt_gumbel_integral) (y[0], x[0], x[1]);
}

/* PREF-RM-LOSS: x = rw[B], rl[B], c; y = loss, grad_rw[B], grad_rl[B]. */
RL_ENTRY (rm_loss)
{
  (void) v;
  return LIB (rm_loss) (y[0], y[1], y[2], x[0], x[1], a->len[0], x[2]);
}

/* PREF-BT-EX mle-pair: x = wins_w, wins_l; y = delta, p, delta the
 * two-item BT maximum-likelihood score difference. */
RL_ENTRY (bt_ex_mle)
{
  num_ptr w = num_vec_new (4), s = num_vec_new (2);
  int status = RLREF_ENOMEM;
  (void) v;
  (void) a;
  if (w && s)
    {
      num_set (AT (w, 1), x[0]);        /* wins[0][1] = wins_w */
      num_set (AT (w, 2), x[1]);        /* wins[1][0] = wins_l */
      status = LIB (bt_mle) (s, NULL, w, 2);
      if (status == RLREF_SUCCESS)
        {
          num_sub (y[0], s, AT (s, 1));
          status = LIB (sigmoid) (y[1], y[0]);
        }
    }
  num_vec_free (w, 4);
  num_vec_free (s, 2);
  return status;
}

/* PREF-MARGIN: x = rw, rl, m; y = loss, grad_rw, grad_rl. */
RL_ENTRY (margin)
{
  (void) v;
  (void) a;
  return LIB (margin_loss) (y[0], y[1], y[2], x[0], x[1], x[2]);
}

/* PREF-SMOOTH: x = rw, rl, eps; y = loss, grad_rw, grad_rl. */
RL_ENTRY (smooth)
{
  (void) v;
  (void) a;
  return LIB (smooth_loss) (y[0], y[1], y[2], x[0], x[1], x[2]);
}

/* PREF-ENSEMBLE: x = scores[K], (ddof: not a real input), lambda;
 * y = mean, var, std, penalized. */
RL_ENTRY (ensemble)
{
  return LIB (ensemble) (y[0], y[1], y[2], y[3], x[0], a->len[0],
                         (int) v->params[0].value, x[2]);
}

/* PREF-PL prob: x = scores[K], ranking an int input; y = logp, loss, grad[K]. */
RL_ENTRY (pl_prob)
{
  int status;
  (void) v;
  status = LIB (pl_logprob) (y[0], y[2], x[0], a->iv[1], a->len[0]);
  if (status == RLREF_SUCCESS)
    num_neg (y[1], y[0]);
  return status;
}

/* PREF-PL mle: K and rankings[M K] ints, x = counts[M]; y = scores[K], loglik. */
RL_ENTRY (pl_mle)
{
  long K = a->iv[0][0];
  size_t M = a->len[2];
  (void) v;
  if (K < 2 || a->len[1] != M * (size_t) K)
    RLREF_ERROR ("rankings must hold M x K items (M = length of counts), K >= 2", RLREF_EINVAL);
  return LIB (pl_mle) (y[0], y[1], a->iv[1], x[2], M, (size_t) K);
}

/* PREF-BT-MLE: n int, x = wins[n n]; y = scores[n], loglik. */
RL_ENTRY (bt_mle)
{
  long n = a->iv[0][0];
  (void) v;
  if (n < 2 || a->len[1] != (size_t) (n * n))
    RLREF_ERROR ("wins must hold n x n weights, n >= 2", RLREF_EINVAL);
  return LIB (bt_mle) (y[0], y[1], x[1], (size_t) n);
}
