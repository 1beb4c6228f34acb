/* ppo_clip.c -- the probability ratio, importance sampling and the clipped
 * surrogate of PPO (PPO-RATIO, PPO-IS, PPO-CLIP, PPO-CLIP-EX2,
 * PPO-DUALCLIP; seed 000 (13.12), seed 003, seed 001), written once for
 * both backends, with the log-ratio clamp and the dual clip of verl and
 * OpenRLHF (CONVENTIONS.md "Ratio and clipping").
 *
 * The ratio is e^l of the log-ratio l = logp - old_logp, new minus old;
 * binary64 gives ERANGE where e^l overflows.  No output is a negative
 * zero. */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/ppo.h"
#include "ppo_common.h"

/* x = +0 where x is zero. */
static void
plus_zero (num_ptr x)
{
  if (num_is_zero (x))
    num_set_zero (x);
}

/* PPO-RATIO (001: r_t = exp(log pi_theta(a_t | s_t) - log pi_old(a_t | s_t)),
 * new_logp - old_logp, never the reverse): l clamped to [-20, 20] when
 * clamp (verl, OpenRLHF); d ratio / d logp = ratio where the clamp does not
 * bind strictly (logp - old_logp beyond +-20 exactly, not after rounding). */
int
FN (ppo_ratio) (num_ptr ratio, num_ptr log_ratio, num_ptr grad, num_srcptr logp,
                num_srcptr old_logp, size_t n, int clamp)
{
  num_ptr t4;
  num_t l, lc, r, lo, hi;
  int status;
  if (!ratio)
    RLREF_ERROR ("ratio missing", RLREF_EINVAL);
  status = ppo_check_array (logp, n, "logp: n >= 1 finite log-probabilities");
  THEN (ppo_check_array (old_logp, n, "old_logp: n >= 1 finite log-probabilities"));
  if (status)
    return status;
  t4 = num_vec_new (4);
  if (!t4)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  num_init (l); num_init (lc); num_init (r); num_init (lo); num_init (hi);
  num_set_d (lo, -RLREF_PPO_LOG_RATIO_CLAMP);
  num_set_d (hi, RLREF_PPO_LOG_RATIO_CLAMP);
  for (size_t i = 0; i < n; i++)
    {
      int bind;
      num_sub (l, AT (logp, i), AT (old_logp, i));
      bind = clamp && (ppo_sub_cmp (l, AT (logp, i), AT (old_logp, i), hi, t4) > 0
                       || ppo_sub_cmp (l, AT (logp, i), AT (old_logp, i), lo, t4) < 0);
      if (clamp)
        ppo_clamp (lc, l, lo, hi);
      else
        num_set (lc, l);
      num_exp (r, lc);
      if (!num_is_finite (r))
        FAIL ("the ratio overflows", RLREF_ERANGE);
      plus_zero (lc);
      num_set (AT (ratio, i), r);
      if (log_ratio)
        num_set (AT (log_ratio, i), lc);
      if (grad)
        {
          if (bind)
            num_set_zero (AT (grad, i));
          else
            num_set (AT (grad, i), r);
        }
    }
done:
  num_vec_free (t4, 4);
  num_clear (l); num_clear (lc); num_clear (r); num_clear (lo); num_clear (hi);
  return status;
}

/* PPO-IS (003): E_{a ~ pi_old}[f(a)] = E_{a ~ pi_theta}[(pi_old(a)/pi_theta(a)) f(a)],
 * and the direction PPO uses, E_theta[f] = E_old[rho f], rho = pi_theta/pi_old,
 * the unclipped (CPI) surrogate L^PG = E_t[r_t(theta) A_t], whose
 * gradient in the logits is p_k (f_k - E_theta f); at theta = theta_old it
 * is the policy gradient E_old[f grad log pi_old].  The probabilities from
 * log_softmax, ratio = e^(lp - lp_old); the two identities are formed as
 * written, each term p (p_old/p) f as e^(lp + (lp_old - lp)) f, the
 * exponent a sum of three rounded once; the
 * gradients as p_k sum_a p_a (f_k - f_a), exact where p_k is near 1. */
int
FN (ppo_is) (num_ptr e_old, num_ptr e_is, num_ptr e_new, num_ptr e_cpi, num_ptr p_old,
             num_ptr p, num_ptr ratio, num_ptr cpi_grad, num_ptr pg_old, num_srcptr logits_old,
             num_srcptr logits, num_srcptr f, size_t K)
{
  num_ptr w = NULL, x3 = NULL;
  num_t t, s, eo, en, ei, ec;
  int status;
  enum { LPO, LP, PO, P, F, RHO, TI, TC, GN, GO, NV };
  if (!e_old)
    RLREF_ERROR ("e_old missing", RLREF_EINVAL);
  status = ppo_check_array (logits_old, K, "logits_old: K >= 1 finite logits");
  THEN (ppo_check_array (logits, K, "logits: K >= 1 finite logits"));
  THEN (ppo_check_array (f, K, "f: K >= 1 finite values"));
  if (status)
    return status;
  num_init (t); num_init (s); num_init (eo); num_init (en); num_init (ei); num_init (ec);
  w = num_vec_new (NV * K);
  x3 = num_vec_new (3);
  if (!w || !x3)
    FAIL ("out of memory", RLREF_ENOMEM);
#define W(j, a) AT (w, (size_t) (j) * K + (a))
  THEN (FN (log_softmax) (W (LPO, 0), logits_old, K));
  THEN (FN (log_softmax) (W (LP, 0), logits, K));
  if (status)
    goto done;
  for (size_t a = 0; a < K; a++)
    {
      num_set (W (F, a), AT (f, a));
      num_exp (W (PO, a), W (LPO, a));
      num_exp (W (P, a), W (LP, a));
      num_sub (t, W (LP, a), W (LPO, a));
      num_exp (W (RHO, a), t);
      if (!num_is_finite (W (RHO, a)))
        FAIL ("a probability ratio overflows", RLREF_ERANGE);
      /* lp + (lp_old - lp) and lp_old + (lp - lp_old), each a sum of three
         rounded once: lp_old - lp alone loses lp_old beside lp = -1e308 */
      num_set (AT (x3, 0), W (LP, a));
      num_set (AT (x3, 1), W (LPO, a));
      num_neg (AT (x3, 2), W (LP, a));
      THEN (num_sum (s, x3, 3));
      num_exp (s, s);                                   /* p (p_old/p) */
      num_mul (W (TI, a), s, W (F, a));
      num_set (AT (x3, 0), W (LPO, a));
      num_set (AT (x3, 1), W (LP, a));
      num_neg (AT (x3, 2), W (LPO, a));
      THEN (num_sum (s, x3, 3));
      num_exp (s, s);                                   /* p_old (p/p_old) */
      num_mul (W (TC, a), s, W (F, a));
    }
  THEN (num_dot (eo, W (PO, 0), W (F, 0), K));
  THEN (num_dot (en, W (P, 0), W (F, 0), K));
  THEN (num_sum (ei, W (TI, 0), K));
  THEN (num_sum (ec, W (TC, 0), K));
  if (status)
    goto done;
  /* the gradients, p_k (f_k - E f) = p_k sum_a p_a (f_k - f_a): no
   * cancellation where p_k is near 1 and f_k near E f */
  for (size_t k = 0; k < K && status == RLREF_SUCCESS; k++)
    {
      for (size_t a = 0; a < K; a++)
        num_sub (W (TI, a), W (F, k), W (F, a));
      THEN (num_dot (t, W (P, 0), W (TI, 0), K));
      num_mul (W (GN, k), W (P, k), t);
      plus_zero (W (GN, k));
      THEN (num_dot (t, W (PO, 0), W (TI, 0), K));
      num_mul (W (GO, k), W (PO, k), t);
      plus_zero (W (GO, k));
    }
  if (status)
    goto done;
  /* every input has been read: outputs may now be written */
  for (size_t a = 0; a < K; a++)
    {
      if (p_old)
        num_set (AT (p_old, a), W (PO, a));
      if (p)
        num_set (AT (p, a), W (P, a));
      if (ratio)
        num_set (AT (ratio, a), W (RHO, a));
      if (cpi_grad)
        num_set (AT (cpi_grad, a), W (GN, a));
      if (pg_old)
        num_set (AT (pg_old, a), W (GO, a));
    }
#undef W
  num_set (e_old, eo);
  if (e_is)
    num_set (e_is, ei);
  if (e_new)
    num_set (e_new, en);
  if (e_cpi)
    num_set (e_cpi, ec);
done:
  num_vec_free (w, NV * K);
  num_vec_free (x3, 3);
  num_clear (t); num_clear (s); num_clear (eo); num_clear (en); num_clear (ei); num_clear (ec);
  return status;
}

/* PPO-CLIP (000 13.12: L = E_t[min(rho_t A_t, clip(rho_t, 1 - eps, 1 + eps) A_t)],
 * rho_t = pi_theta/pi_old; 001: the loss is its negative mean), the
 * asymmetric range 1 - eps_low, 1 + eps_high, and PPO-DUALCLIP (for A < 0
 * the surrogate is bounded below by c A; TRL's delta caps the unclipped
 * term's ratio at c instead).  Per token, with u = r A (r = rho, or
 * min(rho, c) under the cap) and v = clip(rho) A: s = min(u, v) (max under
 * the optimistic departure); ds/dl = du (rho A, 0 where the cap binds
 * strictly) where u is taken, dv (rho A inside the range, else 0) where v
 * is; a tie takes u (inside the range du = dv); a dual bound c A > s
 * replaces s, with ds/dl = 0; a binding log-ratio clamp makes ds/dl = 0.
 * loss = -sum mask s / N, d loss / d logp_t = -mask_t (ds/dl)/N.  The
 * clip fraction counts v < u, as the libraries' torch.gt(-v, -u).
 *
 * Every branch is decided on the exact numbers, not on rounded ones: the
 * clamp on logp - old_logp against +-20 (ppo_sub_cmp), the ratio
 * e^(logp - old_logp) against 1 - eps_low, 1 + eps_high and c
 * (num_cmp_exp), and u against v and c A by the signs these give (u - v
 * has the sign of A (r - clip(rho))), so that e^l rounding onto a bound
 * does not move a token across it. */
int
FN (ppo_clip_ex) (num_ptr loss, num_ptr surrogate, num_ptr ratio, num_ptr grad,
                  num_ptr clipfrac, num_srcptr logp, num_srcptr old_logp, num_srcptr adv,
                  const long *mask, size_t n, const rlref_ppo_clip_ex_convention *c,
                  num_srcptr eps_low, num_srcptr eps_high, num_srcptr dual_c)
{
  num_ptr sv = NULL, t4 = NULL;
  num_t lo, hi, dc, llo, lhi, l, lc, rho, a, u, v, s, d, t, du, dv, elo, ehi, one, zero, x, y;
  size_t N = 0, nclip = 0;
  int status, hi_dc = 0, lo_dc = 0;
  if (!loss || !c)
    RLREF_ERROR ("loss or convention missing", RLREF_EINVAL);
  status = ppo_check_array (logp, n, "logp: n >= 1 finite log-probabilities");
  THEN (ppo_check_array (old_logp, n, "old_logp: n >= 1 finite log-probabilities"));
  THEN (ppo_check_array (adv, n, "adv: n >= 1 finite advantages"));
  THEN (ppo_mask_count (&N, mask, n, 1));
  THEN (ppo_check_above (eps_low, 0.0, 0, "eps_low must be finite and >= 0"));
  THEN (ppo_check_above (eps_high, 0.0, 0, "eps_high must be finite and >= 0"));
  if (status == RLREF_SUCCESS && num_cmp_d (eps_low, 1.0) >= 0)
    RLREF_ERROR ("eps_low must be < 1: the ratio's lower bound 1 - eps_low > 0", RLREF_EDOM);
  if (status == RLREF_SUCCESS && c->clip.dual_clip)
    status = ppo_check_above (dual_c, 1.0, 1, "the dual-clip bound c must be > 1");
  if (status == RLREF_SUCCESS && c->ratio_cap)
    status = ppo_check_above (dual_c, 0.0, 1, "the ratio cap (TRL's delta) must be > 0");
  if (status)
    return status;
  NUM_INIT (lo, hi, dc, llo, lhi, l, lc, rho, a, u, v, s, d, t, du, dv, elo, ehi, one, zero, x, y);
  num_d_sub (lo, 1.0, eps_low);
  num_add_d (hi, eps_high, 1.0);
  num_neg (elo, eps_low);
  num_set (ehi, eps_high);
  num_set_d (one, 1.0);
  num_set_d (llo, -RLREF_PPO_LOG_RATIO_CLAMP);
  num_set_d (lhi, RLREF_PPO_LOG_RATIO_CLAMP);
  sv = num_vec_new (n);
  t4 = num_vec_new (4);
  if (!sv || !t4)
    FAIL ("out of memory", RLREF_ENOMEM);
  /* hi_dc, lo_dc: sgn(bound - c) for the exact bounds of the clipped ratio */
  if (c->clip.dual_clip || c->ratio_cap)
    {
      num_set (dc, dual_c);
      num_neg (t, dc);
      hi_dc = c->clip_log ? num_cmp_exp (ehi, zero, dc, zero) : ppo_sum3_sgn (one, ehi, t, t4);
      lo_dc = c->clip_log ? num_cmp_exp (elo, zero, dc, zero) : ppo_sum3_sgn (one, elo, t, t4);
    }
  for (size_t i = 0; i < n; i++)
    {
      int in = ppo_in_mask (mask, i), bind = 0, below, above, capped, su, take_u;
      /* the log-ratio lc = x - y, exact as a pair */
      if (c->masked_ratio_one && !in)
        {
          num_set_zero (x);                     /* INVALID_LOGPROB - INVALID_LOGPROB */
          num_set_zero (y);
        }
      else
        {
          num_set (x, AT (logp, i));
          num_set (y, AT (old_logp, i));
        }
      num_sub (l, x, y);
      if (c->clip.clamp_log_ratio && (ppo_sub_cmp (l, x, y, lhi, t4) > 0
                                      || ppo_sub_cmp (l, x, y, llo, t4) < 0))
        {
          num_set (x, num_sgn (l) > 0 ? lhi : llo);
          num_set_zero (y);
          bind = 1;
        }
      num_sub (lc, x, y);
      num_exp (rho, lc);
      if (!num_is_finite (rho))
        FAIL ("the ratio overflows", RLREF_ERANGE);
      num_set (a, AT (adv, i));
      num_mul (dv, rho, a);                     /* rho A, the unclipped term's slope */
      capped = c->ratio_cap && num_cmp_exp (x, y, dc, zero) > 0;
      if (capped)
        {
          num_mul (u, dc, a);
          num_set_zero (du);
        }
      else
        {
          num_set (u, dv);
          num_set (du, dv);
        }
      if (c->clip_log)
        {
          below = ppo_sub_cmp (lc, x, y, elo, t4) < 0;
          above = !below && ppo_sub_cmp (lc, x, y, ehi, t4) > 0;
          num_exp (t, below ? elo : ehi);
        }
      else
        {
          below = num_cmp_exp (x, y, one, elo) < 0;
          above = !below && num_cmp_exp (x, y, one, ehi) > 0;
          num_set (t, below ? lo : hi);
        }
      if (below || above)
        {
          num_mul (v, t, a);
          num_set_zero (dv);
        }
      else
        num_set (v, dv);
      /* su = sgn(u - v) = sgn(A) sgn(r - clip(rho)) */
      if (!capped)
        su = above - below;
      else
        su = below ? -lo_dc : above ? -hi_dc : -1;
      su *= num_sgn (a);
      take_u = c->optimistic ? su >= 0 : su <= 0;
      num_set (s, take_u ? u : v);
      num_set (d, take_u ? du : dv);
      /* the dual bound c A > s for A < 0: the ratio factor of s above c */
      if (c->clip.dual_clip && num_sgn (a) < 0
          && (take_u && capped ? 0
              : take_u || !(below || above) ? num_cmp_exp (x, y, dc, zero) > 0
              : (below ? lo_dc : hi_dc) > 0))
        {
          num_mul (s, dc, a);
          num_set_zero (d);
        }
      if (bind)
        num_set_zero (d);
      if (in)
        {
          plus_zero (s);
          num_set (AT (sv, i), s);
          num_div_si (d, d, (long) N);
          num_neg (d, d);
          plus_zero (d);
          nclip += su > 0;
        }
      else
        {
          num_set_zero (AT (sv, i));
          num_set_zero (d);
        }
      if (surrogate)
        num_set (AT (surrogate, i), AT (sv, i));
      if (ratio)
        num_set (AT (ratio, i), rho);
      if (grad)
        num_set (AT (grad, i), d);
    }
  THEN (num_mean_si (s, sv, n, (long) N));
  if (status)
    goto done;
  num_neg (s, s);
  plus_zero (s);
  num_set (loss, s);
  if (clipfrac)
    {
      num_set_si (t, (long) nclip);
      num_div_si (clipfrac, t, (long) N);
      if (c->clipfrac_f32)
        num_round_f32 (clipfrac, clipfrac);     /* the libraries' mask.float() mean */
    }
done:
  num_vec_free (sv, n);
  num_vec_free (t4, 4);
  NUM_CLEAR (lo, hi, dc, llo, lhi, l, lc, rho, a, u, v, s, d, t, du, dv, elo, ehi, one, zero, x, y);
  return status;
}

/* PPO-CLIP, PPO-DUALCLIP with the clamp and the dual clip alone. */
int
FN (ppo_clip) (num_ptr loss, num_ptr surrogate, num_ptr ratio, num_ptr grad, num_ptr clipfrac,
               num_srcptr logp, num_srcptr old_logp, num_srcptr adv, const long *mask, size_t n,
               const rlref_ppo_clip_convention *c, num_srcptr eps_low, num_srcptr eps_high,
               num_srcptr dual_c)
{
  rlref_ppo_clip_ex_convention x = { { 0, 0 }, 0, 0, 0, 0, 0 };
  if (!c)
    RLREF_ERROR ("convention missing", RLREF_EINVAL);
  x.clip = *c;
  return FN (ppo_clip_ex) (loss, surrogate, ratio, grad, clipfrac, logp, old_logp, adv, mask, n,
                           &x, eps_low, eps_high, dual_c);
}

/* PPO-CLIP-EX2 (003: clip(x, a, b) = min(max(x, a), b); r_t = 2 clipped to
 * 1.2) and the worked example of 13.12 (A = 0.5, eps = 0.2, rho = 1.5:
 * 0.6, not 0.75). */
int
FN (ppo_clip_one) (num_ptr clipped, num_ptr unclipped, num_ptr surrogate, num_srcptr rho,
                   num_srcptr adv, num_srcptr eps)
{
  num_t lo, hi, cl, u, v;
  int status;
  if (!clipped || !unclipped || !surrogate)
    RLREF_ERROR ("an output is missing", RLREF_EINVAL);
  status = ppo_check_above (rho, 0.0, 0, "rho, a ratio of probabilities, must be >= 0");
  THEN (ppo_check_scalar (adv, "the advantage must be finite"));
  THEN (ppo_check_above (eps, 0.0, 0, "eps must be finite and >= 0"));
  if (status == RLREF_SUCCESS && num_cmp_d (eps, 1.0) >= 0)
    RLREF_ERROR ("eps must be < 1", RLREF_EDOM);
  if (status)
    return status;
  num_init (lo); num_init (hi); num_init (cl); num_init (u); num_init (v);
  num_d_sub (lo, 1.0, eps);
  num_add_d (hi, eps, 1.0);
  ppo_clamp (cl, rho, lo, hi);
  num_mul (u, rho, adv);
  num_mul (v, cl, adv);
  num_min (v, u, v);
  plus_zero (u);
  plus_zero (v);
  num_set (clipped, cl);
  num_set (unclipped, u);
  num_set (surrogate, v);
  num_clear (lo); num_clear (hi); num_clear (cl); num_clear (u); num_clear (v);
  return status;
}
