/* lm_chain.c -- the chain rule of the tiny language model (LM-CHAIN,
 * 13.1): the log-probability of one sequence and of each of its tokens.
 * Written once against the scalar interface; compiled for binary64 and
 * MPFR. */
#include "rlref/num.h"
#include "rlref/lm.h"
#include "rlref/primitives.h"

/* LM-CHAIN (13.1): log pi(y) = sum_t log softmax(logits(s_t))[y_t], s_t the
 * prefix (tabular) or the previous token, V at the start (bigram). */
int
FN (lm_logprob) (num_ptr logp, num_ptr tok, const rlref_lm *lm, num_srcptr logits,
                 const int *y, int L)
{
  int status = rlref_lm_check (lm), V;
  num_ptr lsm, sum;
  if (status)
    return status;
  V = lm->V;
  if (L < 1 || L > lm->T)
    RLREF_ERROR ("a sequence has 1 to max_len tokens", RLREF_EINVAL);
  for (int t = 0; t < L; t++)
    if (y[t] < 0 || y[t] >= V || (y[t] == lm->eos && t != L - 1))
      RLREF_ERROR ("not a sequence of the model: tokens 0..V-1, EOS only last", RLREF_EDOM);
  if (L < lm->T && y[L - 1] != lm->eos)
    RLREF_ERROR ("a sequence shorter than max_len ends with EOS", RLREF_EDOM);
  lsm = num_vec_new ((size_t) V);
  sum = num_vec_new (1);
  if (!lsm || !sum)
    status = RLREF_ENOMEM;
  for (int t = 0; t < L && status == RLREF_SUCCESS; t++)
    {
      size_t r = lm->kind == RLREF_LM_BIGRAM ? (size_t) (t == 0 ? V : y[t - 1])
        : rlref_lm_prefix_index (V, lm->eos, y, t);
      status = FN (log_softmax) (lsm, AT (logits, r * (size_t) V), (size_t) V);
      if (status == RLREF_SUCCESS)
        {
          num_add (sum, sum, AT (lsm, y[t]));
          num_set (AT (tok, t), AT (lsm, y[t]));
        }
    }
  if (status == RLREF_SUCCESS)
    num_set (logp, sum);
  num_vec_free (lsm, (size_t) V);
  num_vec_free (sum, 1);
  return status;
}
