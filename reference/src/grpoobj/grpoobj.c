/* grpoobj.c -- the GRPO objective (GRPO-OBJ, 000 13.24-13.26; 003) with
 * both placements of the KL penalty and CISPO's detached clipped weight,
 * Dr.GRPO in its three readings (GRPO-DR), GSPO's sequence ratio
 * (GRPO-GSPO) and GMPO's geometric mean (GRPO-GMPO), written once for both
 * backends.  The clipped term of a token is PPO's (ppo_clip, 13.12) and the
 * KL estimate the KL family's k3 (kl_k3, 13.26); the group's advantages of
 * Dr.GRPO are GRPO-ADV's (grpo_adv).  Every output is written after every
 * input has been read. */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/grpo.h"
#include "rlref/grpoobj.h"
#include "rlref/kl.h"
#include "rlref/ppo.h"
#include "flow.h"
#include "grpoobj_layout.h"

static const rlref_ppo_clip_convention plain_clip = { .clamp_log_ratio = 0, .dual_clip = 0 };

/* x = +0 where x is zero. */
static void
plus_zero (num_ptr x)
{
  if (num_is_zero (x))
    num_set_zero (x);
}

/* 13.12 for one token: s = min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A),
 * rho = e^(logp - old_logp), and ds/dl = rho A where that term is the min,
 * else 0: PPO's clipped term on a batch of one (loss -s, gradient -ds/dl),
 * with the log-ratio clamp and the dual clip of pc (dual_c read with the
 * dual clip; NULL for plain_clip). */
static int
clip_term_c (num_ptr s, num_ptr ds, num_srcptr logp, num_srcptr old_logp, num_srcptr A,
             num_srcptr eps_low, num_srcptr eps_high, const rlref_ppo_clip_convention *pc,
             num_srcptr dual_c)
{
  int status = FN (ppo_clip) (s, NULL, NULL, ds, NULL, logp, old_logp, A, NULL, 1, pc,
                              eps_low, eps_high, dual_c);
  num_neg (s, s);
  num_neg (ds, ds);
  return status;
}


/* The checks of the token arrays x[0..k-1] (n entries each) and of the
 * per-sequence array y (G entries): EINVAL, then ENAN. */
static int
check_arrays (num_srcptr const *x, size_t k, size_t n, num_srcptr y, size_t G)
{
  int status = RLREF_SUCCESS;
  for (size_t j = 0; j < k && status == RLREF_SUCCESS; j++)
    status = grpoobj_nonempty (x[j], n, "the token arrays must hold n >= 1 entries");
  if (status == RLREF_SUCCESS)
    status = grpoobj_nonempty (y, G, "the per-sequence array must hold G >= 1 entries");
  for (size_t j = 0; j < k && status == RLREF_SUCCESS; j++)
    status = grpoobj_finite (x[j], n, "a log-probability is not finite");
  if (status == RLREF_SUCCESS)
    status = grpoobj_finite (y, G, "a per-sequence value is not finite");
  return status;
}

/* The aggregation modes GRPO-OBJ takes (no L_const among its inputs). */
static int
obj_mode_ok (enum rlref_grpo_agg_mode m)
{
  return m == RLREF_AGG_TOKEN_MEAN || m == RLREF_AGG_SEQ_MEAN_TOKEN_MEAN
    || m == RLREF_AGG_SEQ_MEAN_TOKEN_SUM || m == RLREF_AGG_TOKEN_SUM;
}

/* GRPO-OBJ (000 13.24, 13.25, 13.26; 003): per token s_t = min(rho A, clip(rho) A)
 * (with c's log-ratio clamp and dual clip), the estimate k_t = k3 = e^-k - 1
 * + k with k = logp - ref_logp (capped at 10 with c->kl), d k_t / d logp = 1 -
 * e^-k (0 above the cap; k with the k2 gradient); with w_t the weight of the
 * aggregation c->agg (1/(G n_i) for 13.24, 1/N for the token mean):
 *   KL outside:  J = sum_t w_t s_t - beta sum k / N,
 *   KL inside:   J = sum_t w_t (s_t - beta k_t),
 *   CISPO:       J = sum_t w_t (c_t A logp_t - beta k_t), c_t detached;
 * kl = sum_t w'_t k_t under c->kl_agg; loss = -J and its gradient in logp. */
int
FN (grpo_obj_conv) (num_ptr loss, num_ptr kl, num_ptr grad, num_srcptr logp,
                    num_srcptr old_logp, num_srcptr ref_logp, num_srcptr adv, const long *lens,
                    size_t G, const long *mask, size_t n, const rlref_grpo_obj_convention *c,
                    num_srcptr eps_low, num_srcptr eps_high, num_srcptr beta)
{
  num_srcptr arr[3] = { logp, old_logp, ref_logp };
  enum rlref_grpo_obj_kind kind;
  int cispo;
  size_t *cnt = NULL, N = 0;
  long T = 0;
  num_ptr w = NULL;
  num_t l, t, nb, J, K, lo, hi, dc, cap;
  rlref_ppo_clip_convention pc = { .clamp_log_ratio = 0, .dual_clip = 0 };
  int status;
  enum { S, K3, D, DK, GR, NV };
  if (!loss || !c)
    RLREF_ERROR ("loss or convention missing", RLREF_EINVAL);
  kind = c->kind;
  cispo = kind == RLREF_GRPO_OBJ_CISPO_TRL || kind == RLREF_GRPO_OBJ_CISPO_VERL;
  if (!obj_mode_ok (c->agg) || !obj_mode_ok (c->kl_agg))
    RLREF_ERROR ("GRPO-OBJ: an aggregation mode it does not take", RLREF_EINVAL);
  status = check_arrays (arr, 3, n, adv, G);
  if (status)
    return status;
  NUM_INIT (l, t, nb, J, K, lo, hi, dc, cap);
  cnt = malloc (G * sizeof *cnt);
  w = num_vec_new (NV * n + 4 * G);
  if (!cnt || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (grpoobj_layout (cnt, lens, G, mask, n));
  if (kind != RLREF_GRPO_OBJ_CISPO_TRL)
    TRY (grpoobj_param (eps_low, 1, "eps_low must be finite, >= 0 and < 1"));
  TRY (grpoobj_param (eps_high, 0, "eps_high must be finite and >= 0"));
  TRY (grpoobj_param (beta, 0, "beta must be finite and >= 0"));
  for (size_t i = 0; i < G; i++)
    {
      N += cnt[i];
      if (lens[i] > T)
        T = lens[i];
    }
  pc.clamp_log_ratio = c->clamp_log_ratio;
  pc.dual_clip = c->dual_clip;
  num_set_d (dc, c->dual_c);
  num_set_d (cap, RLREF_GRPO_KL_CAP);
#define W(j, a) AT (w, (size_t) (j) * n + (a))
#define Q(i) AT (w, NV * n + (i))
#define Q2(i) AT (w, NV * n + G + (i))
#define WS(i) AT (w, NV * n + 2 * G + (i))
#define WK(i) AT (w, NV * n + 3 * G + (i))
  for (size_t i = 0; i < G; i++)
    {
      TRY (grpoobj_seq_weight (WS (i), c->agg, cnt[i], G, N, T, NULL, t));
      TRY (grpoobj_seq_weight (WK (i), c->kl_agg, cnt[i], G, N, T, NULL, t));
    }
  num_neg (nb, beta);
  if (kind == RLREF_GRPO_OBJ_CISPO_VERL)
    {
      num_d_sub (lo, 1.0, eps_low);
      num_add_d (hi, eps_high, 1.0);
    }
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
      {
        if (!grpoobj_in (mask, u))
          continue;
        num_sub (l, AT (logp, u), AT (ref_logp, u));
        TRY (FN (kl_k3) (W (K3, u), l));
        num_neg (t, l);
        num_expm1 (t, t);
        num_neg (W (DK, u), t);                         /* 1 - e^-k */
        if (c->kl != RLREF_GRPO_KL_K3 && num_cmp (W (K3, u), cap) > 0)
          {
            num_set (W (K3, u), cap);                   /* clamp(max=10): no gradient */
            num_set_zero (W (DK, u));
          }
        if (c->kl == RLREF_GRPO_KL_K3_CAP_K2_GRAD)
          num_set (W (DK, u), l);                       /* d (k^2/2) / d logp = k */
        if (!cispo)
          {
            TRY (clip_term_c (W (S, u), W (D, u), AT (logp, u), AT (old_logp, u), AT (adv, i),
                              eps_low, eps_high, &pc, dc));
            continue;
          }
        num_sub (l, AT (logp, u), AT (old_logp, u));
        if (kind == RLREF_GRPO_OBJ_CISPO_VERL)
          {
            if (num_cmp_d (l, -RLREF_PPO_LOG_RATIO_CLAMP) < 0)
              num_set_d (l, -RLREF_PPO_LOG_RATIO_CLAMP);
            if (num_cmp_d (l, RLREF_PPO_LOG_RATIO_CLAMP) > 0)
              num_set_d (l, RLREF_PPO_LOG_RATIO_CLAMP);
            num_exp (t, l);
            num_max (t, t, lo);
            num_min (t, t, hi);
          }
        else
          {
            num_exp (t, l);                             /* inf above the range: the cap */
            num_min (t, t, eps_high);
          }
        num_mul (W (D, u), t, AT (adv, i));             /* c A, held constant */
        num_mul (W (S, u), W (D, u), AT (logp, u));
      }
  /* the objective and the KL term */
  if (kind == RLREF_GRPO_OBJ_KL_INSIDE || cispo)
    for (size_t u = 0; u < n; u++)
      num_fma (W (S, u), nb, W (K3, u), W (S, u));      /* s_t - beta k_t */
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    {
      TRY (num_sum (Q (i), W (S, t0), (size_t) lens[i]));
      num_mul (Q (i), Q (i), WS (i));
      TRY (num_sum (Q2 (i), W (K3, t0), (size_t) lens[i]));
      num_mul (Q2 (i), Q2 (i), WK (i));
    }
  TRY (num_sum (J, Q (0), G));
  TRY (num_sum (K, Q2 (0), G));
  if (kind == RLREF_GRPO_OBJ_KL_OUTSIDE)
    {
      TRY (num_sum (t, W (K3, 0), n));                  /* once per prompt: sum k / N */
      num_div_si (t, t, (long) N);
      num_fma (J, nb, t, J);
    }
  /* the gradient of the loss: (beta k' - ds/dl) times the token's weight */
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
      {
        num_set_zero (W (GR, u));
        if (!grpoobj_in (mask, u))
          continue;
        if (kind == RLREF_GRPO_OBJ_KL_OUTSIDE)
          {
            num_mul (t, W (D, u), WS (i));
            num_mul (l, beta, W (DK, u));
            num_div_si (l, l, (long) N);
            num_sub (W (GR, u), l, t);
          }
        else
          {
            num_neg (t, W (D, u));
            num_fma (t, beta, W (DK, u), t);
            num_mul (W (GR, u), t, WS (i));
          }
        plus_zero (W (GR, u));
      }
  num_neg (J, J);
  plus_zero (J);
  num_set (loss, J);
  if (kl)
    num_set (kl, K);
  if (grad)
    for (size_t u = 0; u < n; u++)
      num_set (AT (grad, u), W (GR, u));
#undef W
#undef Q
#undef Q2
#undef WS
#undef WK
done:
  num_vec_free (w, NV * n + 4 * G);
  free (cnt);
  NUM_CLEAR (l, t, nb, J, K, lo, hi, dc, cap);
  return status;
}

/* GRPO-OBJ by kind alone: the seeds' and TRL's aggregation (13.24's
 * seq-mean-token-mean, CISPO's token mean), k3 unclamped, no clamp of the
 * log-ratio but CISPO_VERL's, no dual clip; kl as the kind averages it. */
int
FN (grpo_obj) (num_ptr loss, num_ptr kl, num_ptr grad, num_srcptr logp, num_srcptr old_logp,
               num_srcptr ref_logp, num_srcptr adv, const long *lens, size_t G,
               const long *mask, size_t n, enum rlref_grpo_obj_kind kind, num_srcptr eps_low,
               num_srcptr eps_high, num_srcptr beta)
{
  int cispo = kind == RLREF_GRPO_OBJ_CISPO_TRL || kind == RLREF_GRPO_OBJ_CISPO_VERL;
  rlref_grpo_obj_convention c = {
    kind, cispo ? RLREF_AGG_TOKEN_MEAN : RLREF_AGG_SEQ_MEAN_TOKEN_MEAN,
    kind == RLREF_GRPO_OBJ_KL_INSIDE ? RLREF_AGG_SEQ_MEAN_TOKEN_MEAN : RLREF_AGG_TOKEN_MEAN,
    0, 0, 3.0, RLREF_GRPO_KL_K3
  };
  if (kind != RLREF_GRPO_OBJ_KL_OUTSIDE && kind != RLREF_GRPO_OBJ_KL_INSIDE && !cispo)
    RLREF_ERROR ("GRPO-OBJ: unknown kind", RLREF_EINVAL);
  return FN (grpo_obj_conv) (loss, kl, grad, logp, old_logp, ref_logp, adv, lens, G, mask, n,
                             &c, eps_low, eps_high, beta);
}

/* GRPO-DR under convention c: the advantages of GRPO-ADV's convention
 * no-std (r - mean; a group of one 0, r with RLREF_DR_SINGLE_RAW, refused
 * with RLREF_DR_SINGLE_REFUSE) or seed-003 ((r - mean)/std, ddof 1), clamped
 * to +-c->adv_clip when it is > 0; s_t = min(rho A, clip(rho) A) with c's
 * log-ratio clamp and dual clip; J = sum_t w s_t with the weight of c->agg:
 *   seq-mean-token-sum           1/G          (000: no 1/|y_i|),
 *   token-mean, group-mean-length 1/N         (003: G Lbar = N; OpenRLHF),
 *   seq-mean-token-sum-norm      1/(G L_const) (TRL dr_grpo, verl with
 *                                               loss_scale_factor),
 *   its padded-width form        1/(G T)      (verl's default);
 * loss = -J, d loss / d logp_t = -(ds/dl) times the same weight (for
 * L_const, the weight of L_const 2^-e, e its binary exponent, and the
 * products scaled by 2^-e last). */
int
FN (grpo_dr_conv) (num_ptr loss, num_ptr adv, num_ptr grad, num_srcptr logp,
                   num_srcptr old_logp, num_srcptr rewards, const long *lens, size_t G,
                   const long *mask, size_t n, const rlref_grpo_dr_convention *c,
                   num_srcptr eps_low, num_srcptr eps_high, num_srcptr L_const)
{
  num_srcptr arr[2] = { logp, old_logp };
  const rlref_adv_convention *conv;
  rlref_ppo_clip_convention pc = { .clamp_log_ratio = 0, .dual_clip = 0 };
  size_t *cnt = NULL, N = 0;
  long T = 0;
  num_ptr w = NULL;
  num_srcptr Lp = L_const;
  num_t J, den, t, dc, Lc;
  long e = 0;
  int status;
  enum { S, D, NV };
  if (!loss || !c)
    RLREF_ERROR ("loss or convention missing", RLREF_EINVAL);
  if (c->agg != RLREF_AGG_SEQ_MEAN_TOKEN_SUM && c->agg != RLREF_AGG_TOKEN_MEAN
      && c->agg != RLREF_AGG_GROUP_MEAN_LENGTH && c->agg != RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM
      && c->agg != RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH)
    RLREF_ERROR ("GRPO-DR: an aggregation mode it does not take", RLREF_EINVAL);
  status = check_arrays (arr, 2, n, rewards, G);
  if (status)
    return status;
  NUM_INIT (J, den, t, dc, Lc);
  cnt = malloc (G * sizeof *cnt);
  w = num_vec_new (NV * n + G);
  if (!cnt || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (grpoobj_layout (cnt, lens, G, mask, n));
  TRY (grpoobj_param (eps_low, 1, "eps_low must be finite, >= 0 and < 1"));
  TRY (grpoobj_param (eps_high, 0, "eps_high must be finite and >= 0"));
  if (c->agg == RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM)
    {
      TRY (grpoobj_param (L_const, 0, "L_const must be finite and > 0"));
      if (num_sgn (L_const) <= 0)
        FAIL ("L_const must be finite and > 0", RLREF_EDOM);
      /* the weight of L_const 2^-e in [1/2, 1), times 2^-e last: G L_const
         overflows, or 1/(G L_const) is subnormal, where this is not */
      e = num_get_exp (L_const);
      num_mul_2si (Lc, L_const, -e);
      Lp = Lc;
    }
  if (G == 1 && c->adv == RLREF_DR_ADV_CENTRED && c->single == RLREF_DR_SINGLE_REFUSE)
    FAIL ("this reading refuses a group of one (n_samples_per_prompt > 1)", RLREF_EDOM);
  for (size_t i = 0; i < G; i++)
    {
      N += cnt[i];
      if (lens[i] > T)
        T = lens[i];
    }
  pc.clamp_log_ratio = c->clamp_log_ratio;
  pc.dual_clip = c->dual_clip;
  num_set_d (dc, c->dual_c);
  conv = rlref_adv_convention_find (c->adv == RLREF_DR_ADV_SEED003 ? "seed-003" : "no-std");
  if (!conv)
    FAIL ("the advantage convention is missing", RLREF_EINVAL);
#define W(j, a) AT (w, (size_t) (j) * n + (a))
#define A(i) AT (w, NV * n + (i))
  if (G == 1 && c->adv == RLREF_DR_ADV_CENTRED && c->single == RLREF_DR_SINGLE_RAW)
    num_set (A (0), rewards);                   /* verl: mean 0 for a group of one */
  else
    TRY (FN (grpo_adv) (A (0), rewards, G, G, conv));
  if (c->adv_clip > 0)
    for (size_t i = 0; i < G; i++)
      {
        if (num_cmp_d (A (i), c->adv_clip) > 0)
          num_set_d (A (i), c->adv_clip);
        if (num_cmp_d (A (i), -c->adv_clip) < 0)
          num_set_d (A (i), -c->adv_clip);
      }
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
      if (grpoobj_in (mask, u))
        TRY (clip_term_c (W (S, u), W (D, u), AT (logp, u), AT (old_logp, u), A (i), eps_low,
                          eps_high, &pc, dc));
  /* the weight of every token: 1/G, 1/N, 1/(G L_const) or 1/(G T), one per sequence */
  TRY (grpoobj_seq_weight (den, c->agg, 1, G, N, T, Lp, t));
  TRY (num_sum (J, W (S, 0), n));
  num_mul (J, J, den);
  num_mul_2si (J, J, -e);
  num_neg (J, J);
  plus_zero (J);
  for (size_t u = 0; u < n; u++)
    {
      num_mul (W (D, u), W (D, u), den);
      num_mul_2si (W (D, u), W (D, u), -e);
      num_neg (W (D, u), W (D, u));
      plus_zero (W (D, u));
    }
  num_set (loss, J);
  if (adv)
    for (size_t i = 0; i < G; i++)
      num_set (AT (adv, i), A (i));
  if (grad)
    for (size_t u = 0; u < n; u++)
      num_set (AT (grad, u), W (D, u));
#undef W
#undef A
done:
  num_vec_free (w, NV * n + G);
  free (cnt);
  NUM_CLEAR (J, den, t, dc, Lc);
  return status;
}

/* GRPO-DR (000 section 11; 003 "Dr.GRPO"; TRL loss_type "dr_grpo"): the
 * three readings, no clamp and no dual clip:
 *   no normalisation:   A = r - mean, J = (1/G) sum_i sum_t s_t,
 *   group-mean length:  seed-003's A, J = (1/G) sum_i (1/Lbar) sum_t s_t = sum s / N,
 *   constant length:    A = r - mean, J = sum s / (G L_const). */
int
FN (grpo_dr) (num_ptr loss, num_ptr adv, num_ptr grad, num_srcptr logp, num_srcptr old_logp,
              num_srcptr rewards, const long *lens, size_t G, const long *mask, size_t n,
              enum rlref_grpo_dr_reading reading, num_srcptr eps_low, num_srcptr eps_high,
              num_srcptr L_const)
{
  rlref_grpo_dr_convention c = { RLREF_DR_ADV_CENTRED, RLREF_AGG_SEQ_MEAN_TOKEN_SUM, 0, 0, 3.0,
                                 RLREF_DR_SINGLE_ZERO, 0.0 };
  if (reading == RLREF_DR_GROUP_MEAN_LENGTH)
    {
      c.adv = RLREF_DR_ADV_SEED003;
      c.agg = RLREF_AGG_GROUP_MEAN_LENGTH;
    }
  else if (reading == RLREF_DR_CONST_LENGTH)
    c.agg = RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM;
  else if (reading != RLREF_DR_NO_NORM)
    RLREF_ERROR ("GRPO-DR: unknown reading", RLREF_EINVAL);
  return FN (grpo_dr_conv) (loss, adv, grad, logp, old_logp, rewards, lens, G, mask, n, &c,
                            eps_low, eps_high, L_const);
}

/* GRPO-GSPO (000 section 11; 003 "GSPO"): s_i = (pi(y_i)/pi_old(y_i))^{1/|y_i|}
 * = e^{m_i}, m_i = (1/n_i) sum_t (logp_t - old_logp_t) (its sum exact), capped
 * at cap > 0 when given (verl);  loss = -(1/G) sum_i min(s_i A_i, clip(s_i) A_i)
 * by PPO's clipped term on the sequence log-ratio m_i; ds_i/dlogp_t = s_i/n_i. */
int
FN (grpo_gspo_conv) (num_ptr loss, num_ptr s, num_ptr grad, num_srcptr logp,
                     num_srcptr old_logp, num_srcptr adv, const long *lens, size_t G,
                     const long *mask, size_t n, double cap, enum rlref_grpo_empty empty,
                     num_srcptr eps_low, num_srcptr eps_high)
{
  num_srcptr arr[2] = { logp, old_logp };
  size_t *cnt = NULL, N = 0, B1 = 0, B;
  long T = 0;
  num_ptr w = NULL;
  num_t m, zero, J;
  int status;
  enum { LI, RI, GI, NG };
  if (!loss)
    RLREF_ERROR ("loss missing", RLREF_EINVAL);
  status = check_arrays (arr, 2, n, adv, G);
  if (status)
    return status;
  NUM_INIT (m, zero, J);
  cnt = malloc (G * sizeof *cnt);
  w = num_vec_new (2 * n + NG * G + n);
  if (!cnt || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  if (empty == RLREF_GRPO_EMPTY_REFUSE)
    {
      TRY (grpoobj_layout (cnt, lens, G, mask, n));
      B1 = G;
    }
  else
    TRY (grpoobj_layout_empty (cnt, &N, &T, &B1, lens, G, mask, n));
  B = empty == RLREF_GRPO_EMPTY_SKIP ? B1 : G;
  TRY (grpoobj_param (eps_low, 1, "eps_low must be finite, >= 0 and < 1"));
  TRY (grpoobj_param (eps_high, 0, "eps_high must be finite and >= 0"));
#define V(a) AT (w, (a))
#define P(j, i) AT (w, 2 * n + (size_t) (j) * G + (i))
#define GR(u) AT (w, 2 * n + NG * G + (u))
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    {
      size_t k = 0;
      int capped = 0;
      for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
        if (grpoobj_in (mask, u))
          {
            num_set (V (k++), AT (logp, u));
            num_neg (V (k++), AT (old_logp, u));
          }
      if (cnt[i] > 0)
        TRY (num_mean_si (m, V (0), k, (long) cnt[i]));   /* scaled where the sum overflows */
      else
        num_set_zero (m);                       /* an empty sequence: m = 0, s = 1 */
      if (cap > 0 && num_cmp_d (m, cap) > 0)
        {
          num_set_d (m, cap);
          capped = 1;
        }
      TRY (FN (ppo_clip) (P (LI, i), NULL, P (RI, i), P (GI, i), NULL, m, zero, AT (adv, i),
                          NULL, 1, &plain_clip, eps_low, eps_high, NULL));
      if (capped || cnt[i] == 0)
        num_set_zero (P (GI, i));
      if (cnt[i] == 0)
        num_set_zero (P (LI, i));               /* its row of the mask is 0: no term */
      for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
        {
          num_set_zero (GR (u));
          if (grpoobj_in (mask, u))
            {
              num_div_si (GR (u), P (GI, i), (long) (B * cnt[i]));
              plus_zero (GR (u));
            }
        }
    }
  TRY (num_mean_si (J, P (LI, 0), G, (long) B));
  plus_zero (J);
  num_set (loss, J);
  if (s)
    for (size_t i = 0; i < G; i++)
      num_set (AT (s, i), P (RI, i));
  if (grad)
    for (size_t u = 0; u < n; u++)
      num_set (AT (grad, u), GR (u));
#undef V
#undef P
#undef GR
done:
  num_vec_free (w, 2 * n + NG * G + n);
  free (cnt);
  NUM_CLEAR (m, zero, J);
  return status;
}

/* GRPO-GSPO: every sequence with a token in the mask (EDOM otherwise). */
int
FN (grpo_gspo) (num_ptr loss, num_ptr s, num_ptr grad, num_srcptr logp, num_srcptr old_logp,
                num_srcptr adv, const long *lens, size_t G, const long *mask, size_t n,
                double cap, num_srcptr eps_low, num_srcptr eps_high)
{
  return FN (grpo_gspo_conv) (loss, s, grad, logp, old_logp, adv, lens, G, mask, n, cap,
                              RLREF_GRPO_EMPTY_REFUSE, eps_low, eps_high);
}

/* GRPO-GMPO (003 "GMPO"): the clipped token log-ratio in log space, by the
 * sign of A: lm = min(l, clip_high) for A > 0, max(l, -clip_low) for A < 0,
 * 0 for A = 0; ratio_i = exp((1/n_i) sum_t lm_t) = (prod_t clipped rho_t)^{1/n_i}
 * (the sum exact: l_t as logp_t and -old_logp_t, a bound as itself);
 * loss = -(1/G) sum_i A_i ratio_i, d ratio_i / d logp_t = ratio_i/n_i where
 * lm_t = l_t. */
int
FN (grpo_gmpo) (num_ptr loss, num_ptr ratio, num_ptr grad, num_srcptr logp,
                num_srcptr old_logp, num_srcptr adv, const long *lens, size_t G,
                const long *mask, size_t n, num_srcptr clip_low, num_srcptr clip_high)
{
  num_srcptr arr[2] = { logp, old_logp };
  size_t *cnt = NULL;
  char *freetok = NULL;
  num_ptr w = NULL;
  num_t m, J;
  int status;
  if (!loss)
    RLREF_ERROR ("loss missing", RLREF_EINVAL);
  status = check_arrays (arr, 2, n, adv, G);
  if (status)
    return status;
  NUM_INIT (m, J);
  cnt = malloc (G * sizeof *cnt);
  freetok = malloc (n);
  w = num_vec_new (3 * n + G + 3);
  if (!cnt || !freetok || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (grpoobj_layout (cnt, lens, G, mask, n));
  TRY (grpoobj_param (clip_low, 0, "clip_low must be finite and >= 0"));
  TRY (grpoobj_param (clip_high, 0, "clip_high must be finite and >= 0"));
#define V(a) AT (w, (a))
#define R(i) AT (w, 2 * n + (i))
#define GR(u) AT (w, 2 * n + G + (u))
#define T3 AT (w, 3 * n + G)
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    {
      int sg = num_sgn (AT (adv, i));
      size_t k = 0;
      for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
        {
          int side;
          freetok[u] = 1;
          if (!grpoobj_in (mask, u) || sg == 0)
            continue;
          /* the sign of l - bound, exactly */
          num_set (AT (T3, 0), AT (logp, u));
          num_neg (AT (T3, 1), AT (old_logp, u));
          if (sg > 0)
            num_neg (AT (T3, 2), clip_high);
          else
            num_set (AT (T3, 2), clip_low);
          TRY (num_sum (m, T3, 3));
          side = num_sgn (m);
          if ((sg > 0 && side > 0) || (sg < 0 && side < 0))
            {
              freetok[u] = 0;
              if (sg > 0)
                num_set (V (k++), clip_high);
              else
                num_neg (V (k++), clip_low);
            }
          else
            {
              num_set (V (k++), AT (logp, u));
              num_neg (V (k++), AT (old_logp, u));
            }
        }
      TRY (num_sum (m, V (0), k));
      num_div_si (m, m, (long) cnt[i]);
      num_exp (R (i), m);
      if (!num_is_finite (R (i)))
        {
          status = RANGE_ERROR ();
          goto done;
        }
      num_mul (m, AT (adv, i), R (i));
      for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
        {
          num_set_zero (GR (u));
          if (grpoobj_in (mask, u) && freetok[u] && sg != 0)
            {
              num_div_si (GR (u), m, (long) (G * cnt[i]));
              num_neg (GR (u), GR (u));
            }
        }
    }
  TRY (num_dot (J, adv, R (0), G));
  num_div_si (J, J, (long) G);
  num_neg (J, J);
  plus_zero (J);
  num_set (loss, J);
  if (ratio)
    for (size_t i = 0; i < G; i++)
      num_set (AT (ratio, i), R (i));
  if (grad)
    for (size_t u = 0; u < n; u++)
      num_set (AT (grad, u), GR (u));
#undef V
#undef R
#undef GR
#undef T3
done:
  num_vec_free (w, 3 * n + G + 3);
  free (freetok);
  free (cnt);
  NUM_CLEAR (m, J);
  return status;
}
