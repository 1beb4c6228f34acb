/* len_weights.c -- the per-token weight of each response under the loss
 * normalisations (LEN-WEIGHTS): seed 000 (13.24) and (13.33), seed 003's
 * Dr.GRPO, CONVENTIONS.md "Loss aggregation".  Written once for both
 * backends; the outputs are written last, so they may share storage with
 * the lengths (reference/README.md, Aliasing). */
#include "rlref/num.h"
#include "rlref/len.h"
#include "flow.h"

/* The largest binary exponent e (|v_i| = m 2^e, 1/2 <= m < 1) of
 * v[0..n-1], all finite and > 0. */
static long
max_exp (num_srcptr v, size_t n)
{
  long e = num_get_exp (AT (v, 0));
  for (size_t i = 1; i < n; i++)
    if (num_get_exp (AT (v, i)) > e)
      e = num_get_exp (AT (v, i));
  return e;
}

/* LEN-WEIGHTS: B = n responses of lengths |y_i| > 0 in groups of G; the
 * weight w_i of each token of response i:
 *   seq-mean-token-mean      1/(B |y_i|)        (13.24, GRPO)
 *   token-mean               1/sum_j |y_j|      (13.33, DAPO)
 *   seq-mean-token-sum       1/B                (Dr.GRPO: no 1/|y|)
 *   group-mean-length        G/(B sum_{j in g(i)} |y_j|)  (seed 003: 1/|y_i|
 *                            replaced by the mean length of i's group)
 *   seq-mean-token-sum-norm  1/(B L_const)      (TRL dr_grpo)
 * share_i = |y_i| w_i, total = sum_i share_i (exact sums, rounded once).
 * Every denominator D is formed scaled, D 2^-e with 2^e the binade of its
 * largest length (the group's, the batch's, |y_i| or L_const), so that
 * n |y_i| or sum |y| beyond the binary64 range still gives w = 2^-e/(D 2^-e)
 * and share_i = (|y_i| 2^-e)(2^e w_i); the scalings by 2^-e are exact
 * unless a length far below the largest underflows, which moves a share by
 * less than 2^-1074. */
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
        /* 1/(B |y_i|) = 2^-e/(B (|y_i| 2^-e)), |y_i| 2^-e in [1/2, 1) */
        for (size_t i = 0; i < n; i++)
          {
            long e = num_get_exp (AT (lengths, i));
            num_mul_2si (AT (ts, i), AT (lengths, i), -e);
            num_mul_si (AT (tw, i), AT (ts, i), (long) n);
            num_d_div (AT (tw, i), 1.0, AT (tw, i));
            num_mul (AT (ts, i), AT (ts, i), AT (tw, i));
            num_mul_2si (AT (tw, i), AT (tw, i), -e);
          }
        break;
      case RLREF_LEN_TOKEN_MEAN:
        {
          long e = max_exp (lengths, n);
          for (size_t i = 0; i < n; i++)
            num_mul_2si (AT (ts, i), AT (lengths, i), -e);
          TRY (num_sum (s, ts, n));
          num_d_div (s, 1.0, s);
          for (size_t i = 0; i < n; i++)
            {
              num_mul (AT (ts, i), AT (ts, i), s);
              num_mul_2si (AT (tw, i), s, -e);
            }
        }
        break;
      case RLREF_LEN_SEQ_MEAN_TOKEN_SUM:
        for (size_t i = 0; i < n; i++)
          {
            num_set_si (AT (tw, i), 1);
            num_div_si (AT (tw, i), AT (tw, i), (long) n);
            num_mul (AT (ts, i), AT (tw, i), AT (lengths, i));
          }
        break;
      case RLREF_LEN_GROUP_MEAN_LENGTH:
        for (size_t g = 0; g < n; g += group_size)
          {
            /* G/(B S_g) = 1/((B/G) S_g), B/G an integer */
            long e = max_exp (AT (lengths, g), group_size);
            for (size_t i = g; i < g + group_size; i++)
              num_mul_2si (AT (ts, i), AT (lengths, i), -e);
            TRY (num_sum (s, AT (ts, g), group_size));
            num_mul_si (s, s, (long) (n / group_size));
            num_d_div (s, 1.0, s);
            for (size_t i = g; i < g + group_size; i++)
              {
                num_mul (AT (ts, i), AT (ts, i), s);
                num_mul_2si (AT (tw, i), s, -e);
              }
          }
        break;
      case RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM:
        {
          /* scaled only down: L_const < 1 keeps B L_const in range */
          long e = num_get_exp (max_len);
          if (e < 0)
            e = 0;
          num_mul_2si (s, max_len, -e);
          num_mul_si (s, s, (long) n);
          num_d_div (s, 1.0, s);
          for (size_t i = 0; i < n; i++)
            {
              num_mul_2si (AT (ts, i), AT (lengths, i), -e);
              num_mul (AT (ts, i), AT (ts, i), s);
              num_mul_2si (AT (tw, i), s, -e);
            }
        }
        break;
      default:
        FAIL ("LEN-WEIGHTS: unknown normalisation", RLREF_EINVAL);
      }
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
