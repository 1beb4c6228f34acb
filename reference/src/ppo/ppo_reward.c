/* ppo_reward.c -- the per-token reward of PPO for language models and its
 * KL penalty (PPO-TOKREW, PPO-TOKREW-EX; seed 000 (13.9) and section 3's
 * example), written once for both backends, in every convention of TRL,
 * verl and OpenRLHF (CONVENTIONS.md "KL estimators").
 *
 * k3 = e^-l - 1 + l is formed without cancellation near l = 0 (its Taylor
 * series); the log-ratio of two probabilities as log1p((p - p_ref)/p_ref)
 * where p/p_ref is near 1 (exact in its small differences), as the log of
 * the quotient or the difference of the logs where it is not. */
#include <float.h>
#include "rlref/num.h"
#include "rlref/ppo.h"
#include "ppo_common.h"

/* h = e^u - 1 - u >= 0: for |u| < 1 its Taylor series sum_{k>=2} u^k/k!
 * (terms until they no longer count at the working precision), else
 * expm1(u) - u.  h, u and term are distinct. */
static void
expm1_minus (num_ptr h, num_srcptr u, num_ptr term)
{
  if (num_cmp_d (u, -1.0) > 0 && num_cmp_d (u, 1.0) < 0)
    {
      long prec = num_prec ();
      num_sqr (term, u);
      num_mul_2si (term, term, -1);
      num_set (h, term);
      for (long k = 3; !num_is_zero (term); k++)
        {
          num_mul (term, term, u);
          num_div_si (term, term, k);
          num_add (h, h, term);
          if (num_get_exp (term) < num_get_exp (h) - prec - 4)
            break;
        }
      return;
    }
  num_expm1 (term, u);
  num_sub (h, term, u);
}

/* The convention's estimate k of l = logp - ref (13.9's penalty):
 *   k1 = l;  k2 = l^2/2;  k3 = e^-l - 1 + l = expm1_minus(-l);
 * verl's low_var_kl takes k3 of clamp(l, -20, 20); verl's low_var_kl and
 * OpenRLHF clamp the estimate to [-10, 10].  k, l, t, u distinct. */
static void
estimate (num_ptr k, num_ptr l, const rlref_ppo_tokrew_convention *c, num_ptr t, num_ptr u)
{
  if (c->kl == RLREF_PPO_K3)
    {
      if (c->clamp_log_ratio)
        {
          num_set_d (t, -RLREF_PPO_LOG_RATIO_CLAMP);
          num_set_d (u, RLREF_PPO_LOG_RATIO_CLAMP);
          ppo_clamp (l, l, t, u);
        }
      num_neg (u, l);
      expm1_minus (k, u, t);
    }
  else if (c->kl == RLREF_PPO_K2)
    {
      num_sqr (k, l);
      num_mul_2si (k, k, -1);
    }
  else
    num_set (k, l);
  if (c->clamp_estimate)
    {
      num_set_d (t, -RLREF_PPO_KL_CLAMP);
      num_set_d (u, RLREF_PPO_KL_CLAMP);
      ppo_clamp (k, k, t, u);
    }
}

/* pen = beta k, the penalty of a token.  Where k2 or k3 lies below 2^-900
 * (|l| < 2^-449, where k3 = l^2/2 to far beyond the last place), beta k
 * may be a normal number while k underflows: it is formed from the
 * mantissas of beta and l, the powers of two applied once at the end
 * (m_b m_l^2 / 2 2^(e_b + 2 e_l)). */
static void
penalty (num_ptr pen, num_srcptr b, num_srcptr k, num_srcptr l,
         const rlref_ppo_tokrew_convention *c, num_ptr t)
{
  long eb, el;
  if (c->kl == RLREF_PPO_K1 || num_is_zero (l) || num_is_zero (b)
      || (!num_is_zero (k) && num_get_exp (k) > -900) || num_get_exp (l) > -449)
    {
      num_mul (pen, b, k);
      return;
    }
  eb = num_get_exp (b);
  el = num_get_exp (l);
  num_mul_2si (t, l, -el);
  num_sqr (t, t);
  num_mul_2si (pen, b, -eb);
  num_mul (pen, pen, t);
  num_mul_2si (pen, pen, eb + 2 * el - 1);
}

/* r = -a, written +0 when a is zero (no negative zero in an output). */
static void
neg_nz (num_ptr r, num_srcptr a)
{
  if (num_is_zero (a))
    num_set_zero (r);
  else
    num_neg (r, a);
}

/* PPO-TOKREW (000 13.9):
 *   r_t = r_phi(x, y) [t = T] - beta (log pi(y_t | s_t) - log pi_ref(y_t | s_t)),
 * the log-ratio replaced by the convention's estimate k, masked tokens
 * without a penalty (OpenRLHF keeps it: keep_masked), the score at the last
 * token of the mask (TRL: on the slot after it when the row has one; its
 * response ends at the first 0 of the mask: mask_prefix), clamped to
 * [-10, 10] by OpenRLHF (clamp_score), which also takes beta <= 0 as 0
 * (beta_floor). */
int
FN (ppo_tokrew) (num_ptr rewards, num_ptr kl, num_ptr reward_sum, num_ptr kl_sum,
                 num_srcptr logp, num_srcptr ref, const long *mask, size_t n, num_srcptr score,
                 num_srcptr beta, const rlref_ppo_tokrew_convention *c)
{
  num_ptr k = NULL, pv = NULL;
  num_t b, sc, l, t, u, s;
  size_t N = 0, end = 0, n0 = n;
  int status;
  if (!rewards || !c)
    RLREF_ERROR ("rewards or convention missing", RLREF_EINVAL);
  status = ppo_check_array (logp, n, "logp: n >= 1 finite log-probabilities");
  THEN (ppo_check_array (ref, n, "ref: n >= 1 finite log-probabilities"));
  THEN (ppo_mask_count (&N, mask, n, 1));
  THEN (ppo_check_scalar (score, "the score must be finite"));
  if (c->beta_floor)
    THEN (ppo_check_scalar (beta, "beta must be finite"));
  else
    THEN (ppo_check_above (beta, 0.0, 0, "beta must be finite and >= 0"));
  if (status)
    return status;
  if (c->mask_prefix)
    {
      /* TRL: the response ends at the first 0 (its first pad token) */
      for (n0 = 0; n0 < n && ppo_in_mask (mask, n0); n0++)
        ;
      if (n0 == 0)
        RLREF_ERROR ("the mask starts with 0: a response of no token", RLREF_EDOM);
      end = n0 - 1;
    }
  else
    for (size_t i = 0; i < n; i++)
      if (ppo_in_mask (mask, i))
        end = i;
  if (c->score_after_last && end + 1 < n)
    end++;
  num_init (b); num_init (sc); num_init (l); num_init (t); num_init (u); num_init (s);
  if (c->beta_floor && num_sgn (beta) < 0)
    num_set_zero (b);                           /* kl_coef <= 0: kl_coef = 0 */
  else
    num_set (b, beta);
  num_set (sc, score);
  if (c->clamp_score)
    {
      num_set_d (t, -RLREF_PPO_SCORE_CLAMP);
      num_set_d (u, RLREF_PPO_SCORE_CLAMP);
      ppo_clamp (sc, sc, t, u);
    }
  k = num_vec_new (n);
  pv = num_vec_new (n);
  if (!k || !pv)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      if (c->mask_prefix ? i >= n0 : !ppo_in_mask (mask, i) && !c->keep_masked)
        continue;                               /* k stays +0 */
      num_sub (l, AT (logp, i), AT (ref, i));
      estimate (AT (k, i), l, c, t, u);
      if (!num_is_finite (AT (k, i)))
        FAIL ("the KL estimate overflows", RLREF_ERANGE);
    }
  /* every input has been read: outputs may now be written */
  for (size_t i = 0; i < n; i++)
    {
      if (c->mask_prefix ? i >= n0 : !ppo_in_mask (mask, i) && !c->keep_masked)
        num_set_zero (AT (pv, i));              /* no penalty */
      else
        {
          num_sub (l, AT (logp, i), AT (ref, i));
          penalty (AT (pv, i), b, AT (k, i), l, c, u);
        }
      num_set (t, AT (pv, i));
      neg_nz (t, t);
      if (i == end)
        num_add (t, t, sc);
      if (!num_is_finite (t))
        FAIL ("a reward overflows", RLREF_ERANGE);
      num_set (AT (rewards, i), t);
      if (kl)
        num_set (AT (kl, i), AT (k, i));
    }
  THEN (num_sum (s, pv, n));
  num_sub (t, sc, s);
  THEN (num_sum (s, k, n));
  if (status == RLREF_SUCCESS && (!num_is_finite (s) || !num_is_finite (t)))
    FAIL ("the summed penalty overflows", RLREF_ERANGE);
  if (status == RLREF_SUCCESS && reward_sum)
    num_set (reward_sum, t);
  if (status == RLREF_SUCCESS && kl_sum)
    num_set (kl_sum, s);
done:
  num_vec_free (k, n);
  num_vec_free (pv, n);
  num_clear (b); num_clear (sc); num_clear (l); num_clear (t); num_clear (u); num_clear (s);
  return status;
}

/* l = log(p/p_ref) for 0 < p, p_ref <= 1, in three ranges of the ratio:
 *   p_ref/2 <= p <= 2 p_ref:  log1p((p - p_ref)/p_ref), the difference exact
 *                             (Sterbenz) and l accurate near 0;
 *   p/p_ref a normal number:  log(p/p_ref), |l| >= log 2, the quotient
 *                             rounded once;
 *   else (|l| > 708):         log p - log p_ref, which cancels by less than
 *                             a factor 3 there.
 * log1p of the difference alone loses 1 + (p - p_ref)/p_ref = p/p_ref to
 * the rounding of a sum near -1; log p - log p_ref alone loses |log p_ref|/|l|
 * ulps (p = 3e-300, p_ref = 1e-300: 480).  l, q, t distinct from p, p_ref. */
static void
log_ratio_of (num_ptr l, num_srcptr p, num_srcptr p_ref, num_ptr q, num_ptr t)
{
  num_mul_2si (t, p_ref, -1);
  num_mul_2si (q, p_ref, 1);
  if (num_cmp (p, t) >= 0 && num_cmp (p, q) <= 0)
    {
      num_sub (t, p, p_ref);
      num_div (t, t, p_ref);
      num_log1p (l, t);
      return;
    }
  num_div (q, p, p_ref);
  if (num_cmp_d (q, DBL_MIN) >= 0 && num_cmp_d (q, DBL_MAX) <= 0)
    {
      num_log (l, q);
      return;
    }
  num_log (l, p);
  num_log (t, p_ref);
  num_sub (l, l, t);
}

/* PPO-TOKREW-EX (000 section 3: pi_ref = 0.4, pi = 0.9, the penalty
 * log(0.9/0.4) ~ 0.81): l = log(p/p_ref) (log_ratio_of), k2 = l^2/2 and
 * k3 = e^-l - 1 + l on the same token, by its series for |l| < 1 and as
 * (p_ref/p - 1) + l beyond (e^-l of the rounded l would lose |l| ulps).
 * Binary64 gives ERANGE where p/p_ref or k3 (p_ref/p) overflows. */
int
FN (ppo_tokrew_ex) (num_ptr ratio, num_ptr log_ratio, num_ptr k2, num_ptr k3, num_srcptr p,
                    num_srcptr p_ref)
{
  num_t l, q, h, u, t;
  int status;
  if (!ratio || !log_ratio || !k2 || !k3)
    RLREF_ERROR ("an output is missing", RLREF_EINVAL);
  status = ppo_check_above (p, 0.0, 1, "p must be a probability in (0, 1]");
  THEN (ppo_check_above (p_ref, 0.0, 1, "p_ref must be a probability in (0, 1]"));
  if (status)
    return status;
  if (num_cmp_d (p, 1.0) > 0 || num_cmp_d (p_ref, 1.0) > 0)
    RLREF_ERROR ("a probability is at most 1", RLREF_EDOM);
  NUM_INIT (l, q, h, u, t);
  log_ratio_of (l, p, p_ref, q, t);
  num_div (q, p, p_ref);
  if (!num_is_finite (q))
    FAIL ("p/p_ref lies beyond the binary64 range", RLREF_ERANGE);
  if (num_cmp_d (l, -1.0) > 0 && num_cmp_d (l, 1.0) < 0)
    {
      num_neg (u, l);
      expm1_minus (h, u, t);
    }
  else
    {
      num_div (h, p_ref, p);
      num_sub_d (h, h, 1.0);
      num_add (h, h, l);
      if (!num_is_finite (h))
        FAIL ("k3 = p_ref/p - 1 + l lies beyond the binary64 range", RLREF_ERANGE);
    }
  num_sqr (t, l);
  num_mul_2si (t, t, -1);
  num_set (ratio, q);
  num_set (log_ratio, l);
  num_set (k2, t);
  num_set (k3, h);
done:
  NUM_CLEAR (l, q, h, u, t);
  return status;
}
