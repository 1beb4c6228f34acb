/* entries.c -- glue from the registry's flat input and output vectors to
 * the library's formulas.  Compiled twice (binary64 and MPFR), like the
 * formulas themselves; FN (entry_x) is rl_entry_x_d or rl_entry_x_mp. */
#include "rlref/num.h"
#include "rlref/rlref.h"
#include "entries.h"

#undef FN
#define FN(name) RLREF_CAT (rl_, name, NUM_SUFFIX)
#define LIB(name) RLREF_CAT (rlref_, name, NUM_SUFFIX)

/* PREF-BT: x = (rw, rl); y = (p). */
int
FN (entry_bt_prob) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  (void) v;
  (void) a;
  return LIB (bt_prob) (y, x, AT (x, 1));
}

/* PREF-BT-GUMBEL: x = (rw, rl); y = (p). */
int
FN (entry_bt_gumbel) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  (void) v;
  (void) a;
  return LIB (bt_gumbel_integral) (y, x, AT (x, 1));
}

/* PREF-RM-LOSS: x = (rw[B], rl[B], c); y = (loss, grad_rw[B], grad_rl[B]). */
int
FN (entry_rm_loss) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  size_t B = a->len[0];
  (void) v;
  return LIB (rm_loss) (y, AT (y, 1), AT (y, 1 + B), x, AT (x, B), B, AT (x, 2 * B));
}

/* PREF-BT-EX mle-pair: x = (wins_w, wins_l); y = (delta, p), delta the
 * two-item BT maximum-likelihood score difference. */
int
FN (entry_bt_ex_mle) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  num_ptr w = num_vec_new (4), s = num_vec_new (2);
  int status = RLREF_ENOMEM;
  (void) v;
  (void) a;
  if (w && s)
    {
      num_set (AT (w, 1), x);           /* wins[0][1] = wins_w */
      num_set (AT (w, 2), AT (x, 1));   /* wins[1][0] = wins_l */
      status = LIB (bt_mle) (s, NULL, w, 2);
      if (status == RLREF_SUCCESS)
        {
          num_sub (y, s, AT (s, 1));
          status = LIB (sigmoid) (AT (y, 1), y);
        }
    }
  num_vec_free (w, 4);
  num_vec_free (s, 2);
  return status;
}

/* PREF-MARGIN: x = (rw, rl, m); y = (loss, grad_rw, grad_rl). */
int
FN (entry_margin) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  (void) v;
  (void) a;
  return LIB (margin_loss) (y, AT (y, 1), AT (y, 2), x, AT (x, 1), AT (x, 2));
}

/* PREF-SMOOTH: x = (rw, rl, eps); y = (loss, grad_rw, grad_rl). */
int
FN (entry_smooth) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  (void) v;
  (void) a;
  return LIB (smooth_loss) (y, AT (y, 1), AT (y, 2), x, AT (x, 1), AT (x, 2));
}

/* PREF-ENSEMBLE: x = (scores[K], lambda); y = (mean, var, std, penalized). */
int
FN (entry_ensemble) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  size_t K = a->len[0];
  return LIB (ensemble) (y, AT (y, 1), AT (y, 2), AT (y, 3), x, K,
                         (int) v->params[0].value, AT (x, K));
}

/* PREF-PL prob: x = (scores[K]), ranking an int input; y = (logp, loss, grad[K]). */
int
FN (entry_pl_prob) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  size_t K = a->len[0];
  int status;
  (void) v;
  if (a->len[1] != K)
    RLREF_ERROR ("ranking and scores differ in length", RLREF_EINVAL);
  status = LIB (pl_logprob) (y, AT (y, 2), x, a->iv[1], K);
  if (status == RLREF_SUCCESS)
    num_neg (AT (y, 1), y);
  return status;
}

/* PREF-PL mle: K and rankings[M K] ints, x = (counts[M]); y = (scores[K], loglik). */
int
FN (entry_pl_mle) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  long K = a->iv[0][0];
  size_t M = a->len[2];
  (void) v;
  if (K < 2 || a->len[1] != M * (size_t) K)
    RLREF_ERROR ("rankings must hold M x K items (M = length of counts)", RLREF_EINVAL);
  return LIB (pl_mle) (y, AT (y, K), a->iv[1], x, M, (size_t) K);
}

/* PREF-BT-MLE: n int, x = (wins[n n]); y = (scores[n], loglik). */
int
FN (entry_bt_mle) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  long n = a->iv[0][0];
  (void) v;
  if (n < 2 || a->len[1] != (size_t) (n * n))
    RLREF_ERROR ("wins must hold n x n weights, n >= 2", RLREF_EINVAL);
  return LIB (bt_mle) (y, AT (y, n), x, (size_t) n);
}

/* GRPO-ADV: x = (rewards[N]), group_size int; y = (adv[N]). */
int
FN (entry_grpo_adv) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  long G = a->iv[1][0];
  if (G <= 0)
    RLREF_ERROR ("group_size must be positive", RLREF_EINVAL);
  return LIB (grpo_adv) (y, x, a->len[0], (size_t) G, v->data);
}

/* GRPO-ADV-EX: x = (rewards[G]); y = (mean, std, adv[G]). */
int
FN (entry_grpo_adv_ex) (const rl_variant *v, const rl_args *a, num_srcptr x, num_ptr y)
{
  size_t G = a->len[0];
  int status = LIB (grpo_group_stats) (y, AT (y, 1), x, G, v->data);
  if (status == RLREF_SUCCESS)
    status = LIB (grpo_adv) (AT (y, 2), x, G, G, v->data);
  return status;
}
