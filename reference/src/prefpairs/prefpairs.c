/* prefpairs.c -- a K-way ranking as its C(K,2) pairwise Bradley-Terry
 * comparisons (PREF-PAIRS), written once for both backends.  Seed 000
 * section 10.1: Plackett-Luce uses the whole order of a ranking at once,
 * "rather than splitting it into C(K,2) independent pairs"; the pairs are
 * the alternative computed here, with equations 13.6 and 13.7 per pair.
 *
 * Every function computes into temporaries and writes its outputs last,
 * so an output may share storage with an input (reference/README.md,
 * Aliasing). */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/pref.h"
#include "rlref/prefpairs.h"
#include "flow.h"

/* pos[i] = the place of item i in ranking pi (0 = best); 0 when pi is a
 * permutation of 0..K-1, else -1. */
static int
ranking_places (long *pos, const long *pi, size_t K)
{
  for (size_t i = 0; i < K; i++)
    pos[i] = -1;
  for (size_t k = 0; k < K; k++)
    {
      if (pi[k] < 0 || (size_t) pi[k] >= K || pos[pi[k]] >= 0)
        return -1;
      pos[pi[k]] = (long) k;
    }
  return 0;
}

/* h(x) = sigma(x) - 1/2 = tanh(x/2)/2, without cancellation: with
 * t = expm1(-|x|) in (-1, 0], tanh(|x|/2) = -t/(2 + t), and h is odd.
 * t is scratch. */
static void
sigmoid_minus_half (num_ptr h, num_srcptr x, num_ptr t)
{
  int negative = num_sgn (x) < 0;
  num_abs (t, x);
  num_neg (t, t);
  num_expm1 (t, t);
  num_add_d (h, t, 2.0);
  num_mul_2si (h, h, 1);
  num_div (h, t, h);            /* -h(|x|) */
  if (!negative)
    num_neg (h, h);
}

/* One term e sigma(x), e = +-1, of a gradient, as an exact part plus a
 * remainder of magnitude at most 0.27 known to full relative accuracy:
 * e/2 + e h(x) for |x| <= 1, e - e sigma(-x) for x > 1, e sigma(x) for
 * x < -1.  The exact parts of a sum cancel exactly; the remainders are
 * rounded once each.  t is scratch. */
static int
sigmoid_split (num_ptr exact, num_ptr rem, int e, num_srcptr x, num_ptr t)
{
  int status = RLREF_SUCCESS;
  if (num_cmp_d (x, 1.0) > 0)
    {
      num_add_d (exact, exact, (double) e);
      num_neg (t, x);
      status = FN (sigmoid) (rem, t);
      num_mul_si (rem, rem, -e);
    }
  else if (num_cmp_d (x, -1.0) < 0)
    {
      status = FN (sigmoid) (rem, x);
      num_mul_si (rem, rem, e);
    }
  else
    {
      num_add_d (exact, exact, 0.5 * e);
      sigmoid_minus_half (rem, x, t);
      num_mul_si (rem, rem, e);
    }
  return status;
}

/* PREF-PAIRS (000 10.1; 13.6, 13.7 per pair).  With d = s_w - s_l for the
 * pair w above l,
 *   -log sigma(d) = softplus(-d) = max(s_l - s_w, 0) + log1p(e^{-|d|}),
 * so the sum over the pairs is sum_i c_i s_i + sum_pairs log1p(e^{-|d|}),
 * c_i the integer count of the pairs where item i is ranked below an item
 * of lower score minus those where it is ranked above one of higher score:
 * one exact dot product and an exact sum of positive terms, each rounded
 * once.  The gradient of the sum,
 *   d/ds_i = sum_{j above i} sigma(s_i - s_j) - sum_{j below i} sigma(s_j - s_i),
 * is a sum of terms near 1/2 or near 1 that may cancel: each is split into
 * an exact part and a small remainder (sigmoid_split) and the whole is
 * summed exactly, rounded once. */
int
FN (pairs_loss) (num_ptr loss, num_ptr loglik, num_ptr grad, num_srcptr scores,
                 const long *ranking, size_t K, int mean)
{
  long *pos = NULL;
  num_ptr c = NULL, v = NULL, u = NULL, g = NULL, sc = NULL;
  num_t d, t, f, pairs;
  size_t P = K * (K - 1) / 2, n = 0;
  int status = RLREF_SUCCESS;
  if (!loss || !loglik || !scores || !ranking || K < 2)
    RLREF_ERROR ("pairs_loss: a ranking of at least two items", RLREF_EINVAL);
  for (size_t i = 0; i < K; i++)
    if (!num_is_finite (AT (scores, i)))
      RLREF_ERROR ("pairs_loss: non-finite score", RLREF_ENAN);
  NUM_INIT (d, t, f, pairs);
  pos = malloc (K * sizeof *pos);
  c = num_vec_new (K);
  v = num_vec_new (P);
  u = num_vec_new (K);
  g = num_vec_new (K);
  if (!pos || !c || !v || !u || !g)
    FAIL ("pairs_loss: out of memory", RLREF_ENOMEM);
  if (ranking_places (pos, ranking, K))
    FAIL ("pairs_loss: ranking is not a permutation of 0..K-1", RLREF_EINVAL);
  for (size_t k = 0; k < K; k++)
    for (size_t l = k + 1; l < K; l++)
      {
        num_srcptr sw = AT (scores, ranking[k]), sl = AT (scores, ranking[l]);
        if (num_cmp (sl, sw) > 0)
          {
            num_add_d (AT (c, ranking[l]), AT (c, ranking[l]), 1.0);
            num_sub_d (AT (c, ranking[k]), AT (c, ranking[k]), 1.0);
          }
        num_sub (d, sw, sl);
        num_abs (t, d);
        num_neg (t, t);
        num_exp (t, t);
        num_log1p (AT (v, n), t);
        n++;
      }
  TRY (num_dot (d, c, scores, K));
  TRY (num_sum (t, v, P));
  num_add (f, d, t);
  num_set_si (pairs, (long) P);
  if (grad)
    for (size_t i = 0; i < K; i++)
      {
        size_t m = 1;
        num_set_zero (AT (u, 0));
        for (size_t j = 0; j < K; j++)
          if (j != i)
            {
              /* j above i: + sigma(s_i - s_j); j below i: - sigma(s_j - s_i) */
              int above = pos[j] < pos[i];
              if (above)
                num_sub (d, AT (scores, i), AT (scores, j));
              else
                num_sub (d, AT (scores, j), AT (scores, i));
              TRY (sigmoid_split (AT (u, 0), AT (u, m++), above ? 1 : -1, d, t));
            }
        TRY (num_sum (AT (g, i), u, K));
        if (mean)
          num_div (AT (g, i), AT (g, i), pairs);
      }
  if (mean && num_is_inf (f))
    {
      /* the sum overflows binary64 while its mean may not: the same sums
       * on the scores scaled by 2^-2 (exact: they are large) */
      sc = num_vec_new (K);
      if (!sc)
        FAIL ("pairs_loss: out of memory", RLREF_ENOMEM);
      for (size_t i = 0; i < K; i++)
        num_mul_2si (AT (sc, i), AT (scores, i), -2);
      TRY (num_dot (d, c, sc, K));
      TRY (num_sum (t, v, P));
      num_mul_2si (t, t, -2);
      num_add (t, d, t);
      num_div (t, t, pairs);
      num_mul_2si (t, t, 2);
    }
  else if (mean)
    num_div (t, f, pairs);
  else
    num_set (t, f);
  /* outputs, inputs all read */
  num_set (loss, t);
  num_neg (loglik, f);
  for (size_t i = 0; grad && i < K; i++)
    num_set (AT (grad, i), AT (g, i));
  if (!num_is_finite (loss) || !num_is_finite (loglik))
    FAIL ("pairs_loss: result beyond the floating-point range (written as +-inf)",
          RLREF_ERANGE);
done:
  NUM_CLEAR (d, t, f, pairs);
  free (pos);
  num_vec_free (c, K);
  num_vec_free (v, P);
  num_vec_free (u, K);
  num_vec_free (g, K);
  num_vec_free (sc, K);
  return status;
}

/* Checks M counted rankings of K items. */
static int
check_rankings (const long *rankings, num_srcptr counts, size_t M, size_t K, long *pos)
{
  if (!rankings || !counts || M == 0 || K < 2)
    RLREF_ERROR ("need at least one ranking of at least two items", RLREF_EINVAL);
  for (size_t m = 0; m < M; m++)
    {
      if (ranking_places (pos, rankings + m * K, K))
        RLREF_ERROR ("a ranking is not a permutation of 0..K-1", RLREF_EINVAL);
      if (!num_is_finite (AT (counts, m)))
        RLREF_ERROR ("non-finite ranking count", RLREF_ENAN);
      if (num_sgn (AT (counts, m)) < 0)
        RLREF_ERROR ("negative ranking count", RLREF_EDOM);
    }
  return RLREF_SUCCESS;
}

/* wins_ij = sum_m counts_m [pos_m(i) < pos_m(j)], each an exact sum
 * rounded once (num_sum). */
int
FN (pairs_wins) (num_ptr wins, const long *rankings, num_srcptr counts, size_t M, size_t K)
{
  long *pos = NULL;
  num_ptr w = NULL, gather = NULL;
  int status;
  if (!wins || !rankings || !counts || M == 0 || K < 2)
    RLREF_ERROR ("pairs_wins: need at least one ranking of at least two items", RLREF_EINVAL);
  pos = malloc (M * K * sizeof *pos);
  if (!pos)
    RLREF_ERROR ("pairs_wins: out of memory", RLREF_ENOMEM);
  for (size_t m = 0; m < M; m++)
    if ((status = check_rankings (rankings + m * K, AT (counts, m), 1, K, pos + m * K)))
      goto done;
  w = num_vec_new (K * K);
  gather = num_vec_new (M);
  if (!w || !gather)
    FAIL ("pairs_wins: out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < K; i++)
    for (size_t j = 0; j < K; j++)
      {
        size_t n = 0;
        for (size_t m = 0; i != j && m < M; m++)
          if (pos[m * K + i] < pos[m * K + j])
            num_set (AT (gather, n++), AT (counts, m));
        TRY (num_sum (AT (w, i * K + j), gather, n));
      }
  for (size_t i = 0; i < K * K; i++)
    num_set (AT (wins, i), AT (w, i));
done:
  free (pos);
  num_vec_free (w, K * K);
  num_vec_free (gather, M);
  return status;
}

#ifdef RLREF_MP
/* PREF-PAIRS maximum likelihood: the pairwise log-likelihood
 *   sum_m c_m sum_{k<l} log sigma(s_{pi_m,k} - s_{pi_m,l})
 *     = sum_{i != j} W_ij log sigma(s_i - s_j),  W = pairs_wins (c),
 * the Bradley-Terry log-likelihood of W (13.6 with counts), maximised by
 * bt_mle.  The counts are first scaled by 2^-k when their sums could pass
 * the binary64 range (the maximum is the same; loglik scales back by 2^k). */
int
FN (pairs_mle) (num_ptr scores, num_ptr loglik, const long *rankings, num_srcptr counts,
                size_t M, size_t K)
{
  long *pos = NULL, k = 0, big = 0;
  int have = 0;
  num_ptr cs = NULL, w = NULL, s = NULL;
  num_t l;
  int status;
  if (!scores)
    RLREF_ERROR ("pairs_mle: NULL output", RLREF_EINVAL);
  pos = malloc ((K ? K : 1) * sizeof *pos);
  if (!pos)
    RLREF_ERROR ("pairs_mle: out of memory", RLREF_ENOMEM);
  status = check_rankings (rankings, counts, M, K, pos);
  free (pos);
  if (status)
    return status;
  num_init (l);
  cs = num_vec_new (M);
  w = num_vec_new (K * K);
  s = num_vec_new (K);
  if (!cs || !w || !s)
    FAIL ("pairs_mle: out of memory", RLREF_ENOMEM);
  for (size_t m = 0; m < M; m++)
    if (!num_is_zero (AT (counts, m)) && (!have || num_get_exp (AT (counts, m)) > big))
      {
        big = num_get_exp (AT (counts, m));
        have = 1;
      }
  /* a sum of M counts below 2^big stays below 2^(big + bits of M) */
  for (size_t n = M; n > 0; n >>= 1)
    k++;
  k = big + k > 1000 ? big : 0;
  for (size_t m = 0; m < M; m++)
    {
      num_mul_2si (AT (cs, m), AT (counts, m), -k);
      if (num_is_zero (AT (cs, m)) && !num_is_zero (AT (counts, m)))
        FAIL ("pairs_mle: the positive counts span more than the exponent range",
              RLREF_ERANGE);
    }
  TRY (FN (pairs_wins) (w, rankings, cs, M, K));
  TRY (FN (bt_mle) (s, l, w, K));
  num_mul_2si (l, l, k);
  for (size_t i = 0; i < K; i++)
    num_set (AT (scores, i), AT (s, i));
  if (loglik)
    num_set (loglik, l);
  if (!num_is_finite (l))
    FAIL ("pairs_mle: log-likelihood beyond the floating-point range (written as -inf)",
          RLREF_ERANGE);
done:
  num_clear (l);
  num_vec_free (cs, M);
  num_vec_free (w, K * K);
  num_vec_free (s, K);
  return status;
}

/* PREF-PAIRS against PREF-PL on the same counted rankings: the two
 * maximum-likelihood fits, and sum_m c_m log P_PL(pi_m; s_pairs), one
 * exact dot product of the counts with the rankings' log-probabilities. */
int
FN (pairs_compare) (num_ptr scores_pl, num_ptr scores_pairs, num_ptr loglik_pl,
                    num_ptr loglik_pl_at_pairs, num_ptr loglik_pairs, const long *rankings,
                    num_srcptr counts, size_t M, size_t K)
{
  num_ptr sp = NULL, sb = NULL, lp = NULL;
  num_t a, b, c;
  int status = RLREF_SUCCESS;
  if (!scores_pl || !scores_pairs || !loglik_pl || !loglik_pl_at_pairs || !loglik_pairs
      || K < 2 || M == 0)
    RLREF_ERROR ("pairs_compare: NULL output, or no ranking of two items", RLREF_EINVAL);
  NUM_INIT (a, b, c);
  sp = num_vec_new (K);
  sb = num_vec_new (K);
  lp = num_vec_new (M);
  if (!sp || !sb || !lp)
    FAIL ("pairs_compare: out of memory", RLREF_ENOMEM);
  TRY (FN (pl_mle) (sp, a, rankings, counts, M, K));
  TRY (FN (pairs_mle) (sb, b, rankings, counts, M, K));
  for (size_t m = 0; m < M; m++)
    TRY (FN (pl_logprob) (AT (lp, m), NULL, sb, rankings + m * K, K));
  TRY (num_dot (c, counts, lp, M));
  for (size_t i = 0; i < K; i++)
    {
      num_set (AT (scores_pl, i), AT (sp, i));
      num_set (AT (scores_pairs, i), AT (sb, i));
    }
  num_set (loglik_pl, a);
  num_set (loglik_pairs, b);
  num_set (loglik_pl_at_pairs, c);
  if (!num_is_finite (c))
    FAIL ("pairs_compare: log-likelihood beyond the floating-point range (written as -inf)",
          RLREF_ERANGE);
done:
  NUM_CLEAR (a, b, c);
  num_vec_free (sp, K);
  num_vec_free (sb, K);
  num_vec_free (lp, M);
  return status;
}

#else
/* binary64: the MPFR fits above, each output rounded once
 * (fit_round_once.h); the log-likelihoods compared are those of the
 * exact fits, not of rounded scores. */
#include <string.h>
#include "round_once.h"
#include "fit_round_once.h"

int
FN (pairs_mle) (num_ptr scores, num_ptr loglik, const long *rankings, num_srcptr counts,
                size_t M, size_t K)
{
  if (!scores || !rankings || !counts || M == 0 || K < 2)
    RLREF_ERROR ("pairs_mle: need at least one ranking of at least two items",
                 RLREF_EINVAL);
  return rlref_fit_round_once (scores, loglik, rlref_pairs_mle_mp, rankings, counts, M, K);
}

typedef struct
{
  const long *rankings;
  size_t M, K;
} compare_program;

/* x = counts; y = (scores_pl, scores_pairs, loglik_pl, loglik_pl_at_pairs,
 * loglik_pairs). */
static int
compare_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const compare_program *o = ctx;
  size_t K = o->K;
  return rlref_pairs_compare_mp (y, y + K, y + 2 * K, y + 2 * K + 1, y + 2 * K + 2,
                                 o->rankings, x, o->M, K);
}

int
FN (pairs_compare) (num_ptr scores_pl, num_ptr scores_pairs, num_ptr loglik_pl,
                    num_ptr loglik_pl_at_pairs, num_ptr loglik_pairs, const long *rankings,
                    num_srcptr counts, size_t M, size_t K)
{
  compare_program o = { rankings, M, K };
  double *yd;
  int status;
  if (!scores_pl || !scores_pairs || !loglik_pl || !loglik_pl_at_pairs || !loglik_pairs
      || !rankings || !counts || K < 2 || M == 0)
    RLREF_ERROR ("pairs_compare: NULL output, or no ranking of two items", RLREF_EINVAL);
  yd = malloc ((2 * K + 3) * sizeof *yd);
  if (!yd)
    RLREF_ERROR ("pairs_compare: out of memory", RLREF_ENOMEM);
  status = rlref_round_once (yd, 2 * K + 3, counts, M, compare_mp, &o,
                             "the two fits and their log-likelihoods");
  if (status == RLREF_SUCCESS)
    {
      memcpy (scores_pl, yd, K * sizeof *yd);
      memcpy (scores_pairs, yd + K, K * sizeof *yd);
      *loglik_pl = yd[2 * K];
      *loglik_pl_at_pairs = yd[2 * K + 1];
      *loglik_pairs = yd[2 * K + 2];
    }
  free (yd);
  return status;
}
#endif
