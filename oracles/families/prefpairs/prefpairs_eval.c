/* prefpairs_eval.c -- glue from the registry's inputs and outputs to the
 * pairwise decomposition of rankings.  Compiled twice (binary64 and MPFR). */
#include "family_eval.h"

/* PREF-PAIRS sum and instructgpt: x = scores[K], ranking an int input;
 * y = loss, loglik, grad[K]; the variant's parameter says whether the loss
 * is the mean over the pairs. */
RL_ENTRY (pairs_loss)
{
  size_t K = LEN ("scores");
  /* C(K,2) pairs and K^2 gradient terms: K = 256 takes about 1.5 s at 256
   * bits and 5 s at 1024; K = 64 about 2 s at 4096 */
  if (K > 256 || (K > 64 && num_prec () > 1024))
    RLREF_ERROR ("PREF-PAIRS takes K <= 256 items (K <= 64 above 1024 bits)", RLREF_EINVAL);
  return LIB (pairs_loss) (y[0], y[1], y[2], IN ("scores"), INTS ("ranking"), K,
                           v->params[0].value != 0);
}

/* The sizes of the fits: K items, rankings[M K], counts[M]. */
static int
fit_sizes (const rl_variant *v, const rl_args *a, size_t *M, size_t *K)
{
  long k = INTS ("K")[0];
  *M = LEN ("counts");
  if (k < 2 || LEN ("rankings") != *M * (size_t) k)
    RLREF_ERROR ("rankings must hold M x K items (M = length of counts), K >= 2",
                 RLREF_EINVAL);
  if (k > 64 || *M * (size_t) k > 4096 || (k > 32 && num_prec () > 1024))
    RLREF_ERROR ("PREF-PAIRS fits take K <= 64 items and M K <= 4096 (K <= 32 above 1024 "
                 "bits)", RLREF_EINVAL);
  *K = (size_t) k;
  return RLREF_SUCCESS;
}

/* PREF-PAIRS mle: K and rankings[M K] ints, x = counts[M]; y = scores[K], loglik. */
RL_ENTRY (pairs_mle)
{
  size_t M, K;
  int status = fit_sizes (v, a, &M, &K);
  if (status == RLREF_SUCCESS)
    status = LIB (pairs_mle) (y[0], y[1], INTS ("rankings"), IN ("counts"), M, K);
  return status;
}

/* PREF-PAIRS compare: as mle; y = scores_pl[K], scores_pairs[K], loglik_pl,
 * loglik_pl_at_pairs, loglik_pairs. */
RL_ENTRY (pairs_compare)
{
  size_t M, K;
  int status = fit_sizes (v, a, &M, &K);
  if (status == RLREF_SUCCESS)
    status = LIB (pairs_compare) (y[0], y[1], y[2], y[3], y[4], INTS ("rankings"), IN ("counts"),
                                  M, K);
  return status;
}
