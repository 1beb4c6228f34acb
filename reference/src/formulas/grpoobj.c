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

static const rlref_ppo_clip_convention plain_clip = { 0, 0 };

/* x = +0 where x is zero. */
static void
plus_zero (num_ptr x)
{
  if (num_is_zero (x))
    num_set_zero (x);
}

/* 13.12 for one token: s = min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A),
 * rho = e^(logp - old_logp), and ds/dl = rho A where that term is the min,
 * else 0: PPO's clipped term on a batch of one (loss -s, gradient -ds/dl). */
static int
clip_term (num_ptr s, num_ptr ds, num_srcptr logp, num_srcptr old_logp, num_srcptr A,
           num_srcptr eps_low, num_srcptr eps_high)
{
  int status = FN (ppo_clip) (s, NULL, NULL, ds, NULL, logp, old_logp, A, NULL, 1,
                              &plain_clip, eps_low, eps_high, NULL);
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

/* GRPO-OBJ (000 13.24, 13.25, 13.26; 003): per token s_t = min(rho A, clip(rho) A),
 * k3_t = e^-k - 1 + k with k = logp - ref_logp, d k3 / d logp = 1 - e^-k;
 *   KL outside:  J = (1/G) sum_i (1/n_i) sum_t s_t - beta sum k3 / N,
 *   KL inside:   J = (1/G) sum_i (1/n_i) sum_t (s_t - beta k3_t),
 *   CISPO:       J = (1/N) sum_t (c_t A logp_t - beta k3_t), c_t detached;
 * loss = -J and its gradient in logp. */
int
FN (grpo_obj) (num_ptr loss, num_ptr kl, num_ptr grad, num_srcptr logp, num_srcptr old_logp,
               num_srcptr ref_logp, num_srcptr adv, const long *lens, size_t G,
               const long *mask, size_t n, enum rlref_grpo_obj_kind kind, num_srcptr eps_low,
               num_srcptr eps_high, num_srcptr beta)
{
  num_srcptr arr[3] = { logp, old_logp, ref_logp };
  int cispo = kind == RLREF_GRPO_OBJ_CISPO_TRL || kind == RLREF_GRPO_OBJ_CISPO_VERL;
  size_t *cnt = NULL, N = 0;
  num_ptr w = NULL;
  num_t l, t, nb, J, K, lo, hi;
  int status;
  enum { S, K3, D, DK, GR, NV };
  if (!loss)
    RLREF_ERROR ("loss missing", RLREF_EINVAL);
  status = check_arrays (arr, 3, n, adv, G);
  if (status)
    return status;
  NUM_INIT (l, t, nb, J, K, lo, hi);
  cnt = malloc (G * sizeof *cnt);
  w = num_vec_new (NV * n + 2 * G);
  if (!cnt || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (grpoobj_layout (cnt, lens, G, mask, n));
  if (kind != RLREF_GRPO_OBJ_CISPO_TRL)
    TRY (grpoobj_param (eps_low, 1, "eps_low must be finite, >= 0 and < 1"));
  TRY (grpoobj_param (eps_high, 0, "eps_high must be finite and >= 0"));
  TRY (grpoobj_param (beta, 0, "beta must be finite and >= 0"));
  for (size_t i = 0; i < G; i++)
    N += cnt[i];
#define W(j, a) AT (w, (size_t) (j) * n + (a))
#define Q(i) AT (w, NV * n + (i))
#define Q2(i) AT (w, NV * n + G + (i))
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
        if (!cispo)
          {
            TRY (clip_term (W (S, u), W (D, u), AT (logp, u), AT (old_logp, u), AT (adv, i),
                            eps_low, eps_high));
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
      num_fma (W (S, u), nb, W (K3, u), W (S, u));      /* s_t - beta k3_t */
  if (cispo)
    {
      TRY (num_sum (J, W (S, 0), n));
      num_div_si (J, J, (long) N);
      TRY (num_sum (K, W (K3, 0), n));
      num_div_si (K, K, (long) N);
    }
  else
    {
      for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
        {
          TRY (num_sum (Q (i), W (S, t0), (size_t) lens[i]));
          num_div_si (Q (i), Q (i), (long) (G * cnt[i]));
          TRY (num_sum (Q2 (i), W (K3, t0), (size_t) lens[i]));
          num_div_si (Q2 (i), Q2 (i), (long) (G * cnt[i]));
        }
      TRY (num_sum (J, Q (0), G));
      if (kind == RLREF_GRPO_OBJ_KL_OUTSIDE)
        {
          TRY (num_sum (K, W (K3, 0), n));              /* once per prompt: sum k3 / N */
          num_div_si (K, K, (long) N);
          num_fma (J, nb, K, J);
        }
      else
        TRY (num_sum (K, Q2 (0), G));
    }
  /* the gradient of the loss: (beta k3' - ds/dl) times the token's weight */
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
      {
        num_set_zero (W (GR, u));
        if (!grpoobj_in (mask, u))
          continue;
        if (kind == RLREF_GRPO_OBJ_KL_OUTSIDE)
          {
            num_div_si (t, W (D, u), (long) (G * cnt[i]));
            num_mul (l, beta, W (DK, u));
            num_div_si (l, l, (long) N);
            num_sub (W (GR, u), l, t);
          }
        else
          {
            num_neg (t, W (D, u));
            num_fma (t, beta, W (DK, u), t);
            num_div_si (W (GR, u), t, (long) (cispo ? N : G * cnt[i]));
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
done:
  num_vec_free (w, NV * n + 2 * G);
  free (cnt);
  NUM_CLEAR (l, t, nb, J, K, lo, hi);
  return status;
}

/* GRPO-DR (000 section 11; 003 "Dr.GRPO"; TRL loss_type "dr_grpo"): the
 * advantages of GRPO-ADV's convention no-std (r - mean) or seed-003
 * ((r - mean)/std, ddof 1), s_t = min(rho A, clip(rho) A), and
 *   no normalisation:   J = (1/G) sum_i sum_t s_t,
 *   group-mean length:  J = (1/G) sum_i (1/Lbar) sum_t s_t = sum s / N (G Lbar = N),
 *   constant length:    J = sum s / (G L_const);
 * loss = -J, d loss / d logp_t = -(ds/dl) times the same weight. */
int
FN (grpo_dr) (num_ptr loss, num_ptr adv, num_ptr grad, num_srcptr logp, num_srcptr old_logp,
              num_srcptr rewards, const long *lens, size_t G, const long *mask, size_t n,
              enum rlref_grpo_dr_reading reading, num_srcptr eps_low, num_srcptr eps_high,
              num_srcptr L_const)
{
  num_srcptr arr[2] = { logp, old_logp };
  const rlref_adv_convention *conv;
  size_t *cnt = NULL, N = 0;
  num_ptr w = NULL;
  num_t J, den;
  int status;
  enum { S, D, NV };
  if (!loss)
    RLREF_ERROR ("loss missing", RLREF_EINVAL);
  status = check_arrays (arr, 2, n, rewards, G);
  if (status)
    return status;
  NUM_INIT (J, den);
  cnt = malloc (G * sizeof *cnt);
  w = num_vec_new (NV * n + G);
  if (!cnt || !w)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (grpoobj_layout (cnt, lens, G, mask, n));
  TRY (grpoobj_param (eps_low, 1, "eps_low must be finite, >= 0 and < 1"));
  TRY (grpoobj_param (eps_high, 0, "eps_high must be finite and >= 0"));
  if (reading == RLREF_DR_CONST_LENGTH)
    {
      TRY (grpoobj_param (L_const, 0, "L_const must be finite and > 0"));
      if (num_sgn (L_const) <= 0)
        FAIL ("L_const must be finite and > 0", RLREF_EDOM);
    }
  for (size_t i = 0; i < G; i++)
    N += cnt[i];
  conv = rlref_adv_convention_find (reading == RLREF_DR_GROUP_MEAN_LENGTH ? "seed-003"
                                    : "no-std");
  if (!conv)
    FAIL ("the advantage convention is missing", RLREF_EINVAL);
#define W(j, a) AT (w, (size_t) (j) * n + (a))
#define A(i) AT (w, NV * n + (i))
  TRY (FN (grpo_adv) (A (0), rewards, G, G, conv));
  for (size_t i = 0, t0 = 0; i < G; t0 += (size_t) lens[i], i++)
    for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
      if (grpoobj_in (mask, u))
        TRY (clip_term (W (S, u), W (D, u), AT (logp, u), AT (old_logp, u), A (i), eps_low,
                        eps_high));
  /* the weight of every token: 1/G, 1/N or 1/(G L_const) */
  if (reading == RLREF_DR_NO_NORM)
    num_set_si (den, (long) G);
  else if (reading == RLREF_DR_GROUP_MEAN_LENGTH)
    num_set_si (den, (long) N);
  else
    num_mul_si (den, L_const, (long) G);
  TRY (num_sum (J, W (S, 0), n));
  num_div (J, J, den);
  num_neg (J, J);
  plus_zero (J);
  for (size_t u = 0; u < n; u++)
    {
      num_div (W (D, u), W (D, u), den);
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
  NUM_CLEAR (J, den);
  return status;
}

/* GRPO-GSPO (000 section 11; 003 "GSPO"): s_i = (pi(y_i)/pi_old(y_i))^{1/|y_i|}
 * = e^{m_i}, m_i = (1/n_i) sum_t (logp_t - old_logp_t) (its sum exact), capped
 * at cap > 0 when given (verl);  loss = -(1/G) sum_i min(s_i A_i, clip(s_i) A_i)
 * by PPO's clipped term on the sequence log-ratio m_i; ds_i/dlogp_t = s_i/n_i. */
int
FN (grpo_gspo) (num_ptr loss, num_ptr s, num_ptr grad, num_srcptr logp, num_srcptr old_logp,
                num_srcptr adv, const long *lens, size_t G, const long *mask, size_t n,
                double cap, num_srcptr eps_low, num_srcptr eps_high)
{
  num_srcptr arr[2] = { logp, old_logp };
  size_t *cnt = NULL;
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
  TRY (grpoobj_layout (cnt, lens, G, mask, n));
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
      TRY (num_sum (m, V (0), k));
      num_div_si (m, m, (long) cnt[i]);
      if (cap > 0 && num_cmp_d (m, cap) > 0)
        {
          num_set_d (m, cap);
          capped = 1;
        }
      TRY (FN (ppo_clip) (P (LI, i), NULL, P (RI, i), P (GI, i), NULL, m, zero, AT (adv, i),
                          NULL, 1, &plain_clip, eps_low, eps_high, NULL));
      if (capped)
        num_set_zero (P (GI, i));
      for (size_t u = t0; u < t0 + (size_t) lens[i]; u++)
        {
          num_set_zero (GR (u));
          if (grpoobj_in (mask, u))
            {
              num_div_si (GR (u), P (GI, i), (long) (G * cnt[i]));
              plus_zero (GR (u));
            }
        }
    }
  TRY (num_sum (J, P (LI, 0), G));
  num_div_si (J, J, (long) G);
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
