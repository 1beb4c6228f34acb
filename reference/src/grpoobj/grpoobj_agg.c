/* grpoobj_agg.c -- how per-token losses become one loss (GRPO-AGG,
 * CONVENTIONS.md "Loss aggregation"; 000 13.32-13.33; 003), GMPO's
 * arithmetic and geometric means (003's example), and GFPO's filters
 * (GRPO-GFPO, 003), written once for both backends. */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/grpoobj.h"
#include "flow.h"
#include "merge_order.h"
#include "grpoobj_layout.h"

/* GRPO-AGG: value = sum_t w_t L_t with the weight of token t of sequence i
 *   token-mean 1/N (13.33), seq-mean-token-mean 1/(B n_i) (13.32),
 *   seq-mean-token-sum 1/B, seq-mean-token-sum-norm 1/(B L_const), without B
 *   1/L_const, with the padded width 1/(B T), group-mean length 1/(B Lbar) =
 *   1/N, token sum 1 (grpoobj_seq_weight); under RLREF_AGG_MICRO_LOCAL,
 *   micro-batch k's weights by its own counts times 1/K (the legacy token
 *   mean per micro-batch: 1/(K N_k)), under RLREF_AGG_MICRO_GLOBAL the whole
 *   batch's;
 * 0 at masked tokens.  B counts every sequence, or with c->skip_empty those
 * with a token.  The sum-norm weights are formed for L_const 2^-e (e its
 * binary exponent) and the value and weights scaled by 2^-e last. */
int
FN (grpo_agg_conv) (num_ptr value, num_ptr weights, num_srcptr L, const long *lens, size_t G,
                    const long *mask, size_t n, const rlref_grpo_agg_convention *c,
                    num_srcptr L_const, long micro)
{
  size_t *cnt = NULL, N = 0, B1 = 0;
  long T = 0;
  num_ptr w = NULL;
  num_srcptr Lp = L_const;
  num_t v, t, Lc;
  long e = 0;
  int status;
  if (!weights || !c)
    RLREF_ERROR ("weights or convention missing", RLREF_EINVAL);
  status = grpoobj_nonempty (L, n, "L must hold n >= 1 per-token losses");
  if (status == RLREF_SUCCESS)
    status = grpoobj_finite (L, n, "a per-token loss is not finite");
  if (status)
    return status;
  NUM_INIT (v, t, Lc);
  cnt = malloc (G ? G * sizeof *cnt : 1);
  w = num_vec_new (n + G);
  if (!cnt || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (grpoobj_layout_empty (cnt, &N, &T, &B1, lens, G, mask, n));
  if (c->mode == RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM || c->mode == RLREF_AGG_SUM_NORM_NO_B)
    {
      TRY (grpoobj_param (L_const, 0, "L_const must be finite and > 0"));
      if (num_sgn (L_const) <= 0)
        FAIL ("L_const must be finite and > 0", RLREF_EDOM);
      /* the weights of L_const 2^-e in [1/2, 1), times 2^-e at the end: B L_const
         overflows, or 1/(B L_const) is subnormal, where these are not */
      e = num_get_exp (L_const);
      num_mul_2si (Lc, L_const, -e);
      Lp = Lc;
    }
  if (c->micro != RLREF_AGG_WHOLE && (micro < 1 || G % (size_t) micro != 0))
    FAIL ("the micro-batch size must be >= 1 and divide the number of sequences", RLREF_EDOM);
#define WS(i) AT (w, n + (i))
  for (size_t i = 0; i < G; i++)
    {
      if (c->micro == RLREF_AGG_MICRO_LOCAL)
        {
          /* micro-batch k of the sequences k0 .. k0 + micro - 1, by its own counts */
          size_t k0 = i - i % (size_t) micro, Nk = 0, Bk = 0, K = G / (size_t) micro;
          long Tk = 0;
          for (size_t j = k0; j < k0 + (size_t) micro; j++)
            {
              Nk += cnt[j];
              Bk += !c->skip_empty || cnt[j] > 0;
              if (lens[j] > Tk)
                Tk = lens[j];
            }
          if (Nk == 0)
            num_set_zero (WS (i));              /* no token: it adds nothing, counts in K */
          else
            {
              TRY (grpoobj_seq_weight (WS (i), c->mode, cnt[i], Bk, Nk, Tk, Lp, t));
              num_div_si (WS (i), WS (i), (long) K);
            }
        }
      else
        TRY (grpoobj_seq_weight (WS (i), c->mode, cnt[i], c->skip_empty ? B1 : G, N, T, Lp, t));
    }
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
      {
        if (grpoobj_in (mask, u))
          num_set (AT (w, u), WS (i));
        else
          num_set_zero (AT (w, u));
      }
  TRY (num_dot (v, w, L, n));
  num_mul_2si (v, v, -e);
  if (num_is_zero (v))
    num_set_zero (v);
  if (value)
    num_set (value, v);
  for (size_t u = 0; u < n; u++)
    num_mul_2si (AT (weights, u), AT (w, u), -e);
#undef WS
done:
  num_vec_free (w, n + G);
  free (cnt);
  NUM_CLEAR (v, t, Lc);
  return status;
}

/* GRPO-AGG by mode alone: RLREF_AGG_MICRO_BATCH is the token mean per
 * micro-batch (RLREF_AGG_MICRO_LOCAL), every other mode the whole batch. */
int
FN (grpo_agg) (num_ptr value, num_ptr weights, num_srcptr L, const long *lens, size_t G,
               const long *mask, size_t n, enum rlref_grpo_agg_mode mode, num_srcptr L_const,
               long micro)
{
  rlref_grpo_agg_convention c = { mode, RLREF_AGG_WHOLE, 0 };
  if (mode == RLREF_AGG_MICRO_BATCH)
    {
      c.mode = RLREF_AGG_TOKEN_MEAN;
      c.micro = RLREF_AGG_MICRO_LOCAL;
    }
  return FN (grpo_agg_conv) (value, weights, L, lens, G, mask, n, &c, L_const, micro);
}

/* GRPO-GMPO, 003's example: arith = (1/n) sum x, geo = (prod x)^{1/n} =
 * exp((1/n) sum log x) for x >= 0 ([1, 1, 1, 10]: 3.25 and 10^{1/4} = 1.778).
 * With x_i = f_i 2^{e_i}, f_i in [1/2, 1), and sum e_i = q n + r,
 * 0 <= r < n (an exact integer division),
 *   geo = 2^q exp((1/n) sum log f_i + (r/n) log 2),
 * an argument in (-log 2, log 2): e^{(1/n) sum log x} would carry the
 * rounding of an argument near 108 into geo (7.7e-15 relative for the
 * terms 2^313, 1/2). */
int
FN (grpo_means) (num_ptr arith, num_ptr geo, num_srcptr x, size_t n)
{
  num_ptr w = NULL;
  num_t a, g, a2;
  long E = 0;
  int status, zero = 0;
  if (!arith)
    RLREF_ERROR ("arith missing", RLREF_EINVAL);
  status = grpoobj_nonempty (x, n, "the terms must hold n >= 1 values");
  if (status == RLREF_SUCCESS)
    status = grpoobj_finite (x, n, "a term is not finite");
  for (size_t i = 0; i < n && status == RLREF_SUCCESS; i++)
    if (num_sgn (AT (x, i)) < 0)
      RLREF_ERROR ("the terms are absolute values, >= 0", RLREF_EDOM);
  if (status)
    return status;
  NUM_INIT (a, g, a2);
  w = num_vec_new (n);
  if (!w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (num_sum (a, x, n));
  num_div_si (a, a, (long) n);
  for (size_t i = 0; i < n; i++)
    {
      if (num_is_zero (AT (x, i)))
        zero = 1;
      else
        {
          long e = num_get_exp (AT (x, i));
          E += e;
          num_mul_2si (AT (w, i), AT (x, i), -e);
          num_log (AT (w, i), AT (w, i));
        }
    }
  if (zero)
    num_set_zero (g);
  else
    {
      long q = E / (long) n, r = E % (long) n;
      if (r < 0)
        {
          r += (long) n;
          q--;
        }
      TRY (num_sum (g, w, n));
      num_div_si (g, g, (long) n);
      num_set_si (a2, 2);
      num_log (a2, a2);
      num_mul_si (a2, a2, r);
      num_div_si (a2, a2, (long) n);
      num_add (g, g, a2);
      num_exp (g, g);
      num_mul_2si (g, g, q);
    }
  num_set (arith, a);
  if (geo)
    num_set (geo, g);
done:
  num_vec_free (w, n);
  NUM_CLEAR (a, g, a2);
  return status;
}

/* What gfpo_before compares: the rewards, lengths, filter and scratch. */
struct gfpo_ctx
{
  num_srcptr r;
  const long *lens;
  enum rlref_gfpo_filter filter;
  num_ptr t4;
};

/* rlref_merge_order's before: 1 when response j comes before response i:
 * shorter (SHORTEST), or a larger r/|o| (TOKEN_EFFICIENCY: the sign of
 * r_j |o_i| - r_i |o_j|, one exact dot product), then shorter, then the
 * lower index (a strict total order: the sorted position is the rank). */
static int
gfpo_before (int *before, size_t j, size_t i, void *ctx)
{
  const struct gfpo_ctx *c = ctx;
  int status = RLREF_SUCCESS, sign = 0;
  if (c->filter == RLREF_GFPO_TOKEN_EFFICIENCY)
    {
      num_set (AT (c->t4, 0), AT (c->r, j));
      num_neg (AT (c->t4, 1), AT (c->r, i));
      num_set_si (AT (c->t4, 2), c->lens[i]);
      num_set_si (AT (c->t4, 3), c->lens[j]);
      status = num_dot (AT (c->t4, 4), AT (c->t4, 0), AT (c->t4, 2), 2);
      if (status == RLREF_SUCCESS)
        sign = num_sgn (AT (c->t4, 4));
    }
  if (sign != 0)
    *before = sign > 0;
  else
    *before = c->lens[j] < c->lens[i] || (c->lens[j] == c->lens[i] && j < i);
  return status;
}

/* GRPO-GFPO (003 "GFPO"): sample N, keep k (shortest k of N, or the k most
 * reward per token); keep[i] = 1 when rank(i) < k, the rank the number of
 * responses before i (its position in the order of gfpo_before); mean_kept = (1/k) sum over the kept of r_i. */
int
FN (grpo_gfpo) (num_ptr keep, num_ptr key, num_ptr mean_kept, num_srcptr rewards,
                const long *lens, size_t N, long k, enum rlref_gfpo_filter filter)
{
  num_ptr w = NULL;
  num_t mk;
  int status;
  size_t *idx = NULL, *tmp = NULL;
  if (!keep)
    RLREF_ERROR ("keep missing", RLREF_EINVAL);
  status = grpoobj_nonempty (rewards, N, "rewards must hold N >= 1 values");
  if (status == RLREF_SUCCESS)
    status = grpoobj_finite (rewards, N, "a reward is not finite");
  if (status)
    return status;
  if (!lens)
    RLREF_ERROR ("lens missing", RLREF_EINVAL);
  for (size_t i = 0; i < N; i++)
    if (lens[i] < 1)
      RLREF_ERROR ("a response length must be >= 1", RLREF_EINVAL);
  if (k < 1 || (size_t) k > N)
    RLREF_ERROR ("k must be 1 to N", RLREF_EDOM);
  num_init (mk);
  w = num_vec_new (3 * N + 5);
  idx = malloc (N * sizeof *idx);
  tmp = malloc (N * sizeof *tmp);
  if (!w || !idx || !tmp)
    FAIL ("out of memory", RLREF_ENOMEM);
#define KP(i) AT (w, (i))
#define KY(i) AT (w, N + (i))
#define KR(i) AT (w, 2 * N + (i))
#define T4 AT (w, 3 * N)
  {
    struct gfpo_ctx c = { rewards, lens, filter, T4 };
    TRY (rlref_merge_order (idx, tmp, N, gfpo_before, &c));
  }
  for (size_t p = 0; p < N; p++)
    {
      size_t i = idx[p];
      num_set_si (KP (i), p < (size_t) k);
      if (p < (size_t) k)
        num_set (KR (i), AT (rewards, i));
    }
  for (size_t i = 0; i < N; i++)
    {
      if (filter == RLREF_GFPO_TOKEN_EFFICIENCY)
        num_div_si (KY (i), AT (rewards, i), lens[i]);
      else
        num_set_si (KY (i), lens[i]);
    }
  TRY (num_mean_si (mk, KR (0), N, k));
  if (num_is_zero (mk))
    num_set_zero (mk);
  for (size_t i = 0; i < N; i++)
    {
      if (num_is_zero (KY (i)))
        num_set_zero (KY (i));
      num_set (AT (keep, i), KP (i));
      if (key)
        num_set (AT (key, i), KY (i));
    }
  if (mean_kept)
    num_set (mean_kept, mk);
#undef KP
#undef KY
#undef KR
#undef T4
done:
  num_vec_free (w, 3 * N + 5);
  free (idx);
  free (tmp);
  num_clear (mk);
  return status;
}
