/* len_weights.c -- the per-token weight of each response under the loss
 * normalisations (LEN-WEIGHTS): seed 000 (13.24) and (13.33), seed 003's
 * Dr.GRPO, CONVENTIONS.md "Loss aggregation".  Written once for both
 * backends; the outputs are written last, so they may share storage with
 * the lengths (reference/README.md, Aliasing). */
#include "rlref/num.h"
#include "rlref/len.h"
#include "flow.h"

/* LEN-WEIGHTS: B = n responses of lengths |y_i| > 0 in groups of G; the
 * weight w_i of each token of response i:
 *   seq-mean-token-mean      1/(B |y_i|)        (13.24, GRPO)
 *   token-mean               1/sum_j |y_j|      (13.33, DAPO)
 *   seq-mean-token-sum       1/B                (Dr.GRPO: no 1/|y|)
 *   group-mean-length        G/(B sum_{j in g(i)} |y_j|)  (seed 003: 1/|y_i|
 *                            replaced by the mean length of i's group)
 *   seq-mean-token-sum-norm  1/(B L_const)      (TRL dr_grpo)
 * share_i = |y_i| w_i, total = sum_i share_i (exact sums, rounded once). */
int
FN (len_weights) (num_ptr w, num_ptr share, num_ptr total, num_srcptr lengths, size_t n,
                  size_t group_size, rlref_len_norm norm, num_srcptr max_len)
{
  num_ptr t = NULL;
  int status = RLREF_SUCCESS;
  if (!w || !share || !total || !lengths || n == 0)
    RLREF_ERROR ("LEN-WEIGHTS: no lengths", RLREF_EINVAL);
  if (group_size == 0 || n % group_size != 0)
    RLREF_ERROR ("LEN-WEIGHTS: the lengths do not make whole groups", RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    {
      CHECK_FINITE (AT (lengths, i));
      if (num_sgn (AT (lengths, i)) <= 0)
        RLREF_ERROR ("LEN-WEIGHTS: a length <= 0", RLREF_EDOM);
    }
  if (norm == RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM)
    {
      if (!max_len)
        RLREF_ERROR ("LEN-WEIGHTS: no max_len", RLREF_EINVAL);
      CHECK_FINITE (max_len);
      if (num_sgn (max_len) <= 0)
        RLREF_ERROR ("LEN-WEIGHTS: max_len <= 0", RLREF_EDOM);
    }
  /* t: the weights, then the shares, then one scalar */
  t = num_vec_new (2 * n + 1);
  if (!t)
    FAIL ("LEN-WEIGHTS: out of memory", RLREF_ENOMEM);
  {
    num_ptr tw = t, ts = AT (t, n), s = AT (t, 2 * n);
    switch (norm)
      {
      case RLREF_LEN_SEQ_MEAN_TOKEN_MEAN:
        for (size_t i = 0; i < n; i++)
          {
            num_mul_si (AT (tw, i), AT (lengths, i), (long) n);
            num_d_div (AT (tw, i), 1.0, AT (tw, i));
          }
        break;
      case RLREF_LEN_TOKEN_MEAN:
        TRY (num_sum (s, lengths, n));
        num_d_div (s, 1.0, s);
        for (size_t i = 0; i < n; i++)
          num_set (AT (tw, i), s);
        break;
      case RLREF_LEN_SEQ_MEAN_TOKEN_SUM:
        for (size_t i = 0; i < n; i++)
          {
            num_set_si (AT (tw, i), 1);
            num_div_si (AT (tw, i), AT (tw, i), (long) n);
          }
        break;
      case RLREF_LEN_GROUP_MEAN_LENGTH:
        for (size_t g = 0; g < n; g += group_size)
          {
            /* G/(B S_g) = 1/((B/G) S_g), B/G an integer */
            TRY (num_sum (s, AT (lengths, g), group_size));
            num_mul_si (s, s, (long) (n / group_size));
            num_d_div (s, 1.0, s);
            for (size_t i = g; i < g + group_size; i++)
              num_set (AT (tw, i), s);
          }
        break;
      case RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM:
        num_mul_si (s, max_len, (long) n);
        num_d_div (s, 1.0, s);
        for (size_t i = 0; i < n; i++)
          num_set (AT (tw, i), s);
        break;
      default:
        FAIL ("LEN-WEIGHTS: unknown normalisation", RLREF_EINVAL);
      }
    for (size_t i = 0; i < n; i++)
      num_mul (AT (ts, i), AT (tw, i), AT (lengths, i));
    TRY (num_sum (s, ts, n));
    /* every input read: the outputs */
    for (size_t i = 0; i < n; i++)
      {
        num_set (AT (w, i), AT (tw, i));
        num_set (AT (share, i), AT (ts, i));
      }
    num_set (total, s);
  }
done:
  num_vec_free (t, 2 * n + 1);
  return status;
}
