/* ppo_value.c -- the critic's side of PPO (PPO-VALUE): the value loss,
 * clipped or not, with and without the factor 1/2; its two targets (the
 * GAE return V + A and the Monte-Carlo return); the entropy bonus and the
 * full objective L^CLIP - c1 L^VF + c2 H.  Seed 000 section 3, seed 003,
 * CONVENTIONS.md "GAE, whitening, value loss"; written once for both
 * backends.  No output is a negative zero. */
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

/* The factor by which the clipped value Vc passes d/dV back to V under
 * convention k, given where V lies against its bounds (below = -1 past the
 * lower, 0 strictly inside, 1 past the upper; at_lo, at_hi: V on a bound)
 * and whether the bounds coincide (c = 0): torch.clamp 1 inside its bounds
 * and at them, verl's clip_by_value = max(min(V, hi), lo) halves it at each
 * tie (the backward of torch.min and torch.max). */
static double
clip_pass (enum rlref_ppo_value_clip k, int side, int at_lo, int at_hi, int c_zero)
{
  double f;
  if (k != RLREF_PPO_VALUE_MAXMIN)
    return side == 0 ? 1.0 : 0.0;
  f = side > 0 ? 0.0 : at_hi ? 0.5 : 1.0;               /* min(V, hi) */
  /* then max(m, lo), m = V below hi, else hi (= lo + 2c) */
  return f * (side > 0 ? (c_zero ? 0.5 : 1.0) : side < 0 ? 0.0 : at_lo ? 0.5 : 1.0);
}

/* The sign of the sum of the k terms at t, exactly (the sum rounded once
 * has its sign); the rounded sum is left at t[k]. */
static int
sum_sgn (num_ptr t, size_t k)
{
  if (num_sum (AT (t, k), t, k) != RLREF_SUCCESS)       /* not for a few terms */
    num_set_nan (AT (t, k));
  return num_sgn (AT (t, k));
}

/* PPO-VALUE (000 section 3: L^V = E_t[(V_psi(s_t) - R_t)^2]; the libraries
 * 1/2 max((V - R)^2, (Vc - R)^2), Vc the value clipped to within c of the
 * old value): per token l = (V - R)^2 or the larger square; dl/dV as
 * autograd forms it: 2 (V - R) where the unclipped square is the larger,
 * 2 (Vc - R) p where the clipped one is (p the clamp's pass factor: 0
 * outside its range, so 0 there), the mean of the two at a tie (torch.max
 * halves it).  loss = k sum mask l / N.  TRL (masked_zero) fills V and
 * V_old with 0 at padding and keeps the square there in losses. */
int
FN (ppo_value_loss) (num_ptr loss, num_ptr losses, num_ptr grad, num_ptr clipfrac,
                     num_srcptr values, num_srcptr old_values, num_srcptr returns,
                     const long *mask, size_t n, const rlref_ppo_value_convention *c,
                     num_srcptr clip)
{
  num_ptr lv = NULL, t6 = NULL;
  num_t cc, ncc, d1, d2, sq1, sq2, g, s, vi, oi, t;
  size_t N = 0, nclip = 0;
  int status, clipped;
  if (!loss || !c)
    RLREF_ERROR ("loss or convention missing", RLREF_EINVAL);
  clipped = c->clip != RLREF_PPO_VALUE_UNCLIPPED;
  status = ppo_check_array (values, n, "values: n >= 1 finite values");
  THEN (ppo_check_array (returns, n, "returns: n >= 1 finite targets"));
  if (clipped)
    {
      THEN (ppo_check_array (old_values, n, "old_values: n >= 1 finite values"));
      THEN (ppo_check_above (clip, 0.0, 0, "the value clip range must be finite and >= 0"));
    }
  THEN (ppo_mask_count (&N, mask, n, 1));
  if (status)
    return status;
  NUM_INIT (cc, ncc, d1, d2, sq1, sq2, g, s, vi, oi, t);
  if (clipped)
    {
      num_set (cc, clip);
      num_neg (ncc, cc);
    }
  lv = num_vec_new (n);
  t6 = num_vec_new (6);
  if (!lv || !t6)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      int in = ppo_in_mask (mask, i);
      if (c->masked_zero && !in)
        {
          num_set_zero (vi);                    /* masked_fill(..., padding_mask_p1, 0) */
          num_set_zero (oi);
        }
      else
        {
          num_set (vi, AT (values, i));
          if (clipped)
            num_set (oi, AT (old_values, i));
        }
      num_sub (d1, vi, AT (returns, i));
      num_sqr (sq1, d1);
      num_set (g, d1);                          /* dl/dV / 2 */
      if (clipped)
        {
          /* Vc is V, or V_old -+ c where V - V_old lies beyond -+c; each
           * branch on the exact numbers (V - V_old - c, and for the larger
           * square (V - R)^2 - (Vc - R)^2 = (V - Vc)(V + Vc - 2R)), not on
           * rounded ones, which tie where R is far larger than V - Vc */
          double pass;
          int up, dn, side, larger;
          num_set (AT (t6, 0), vi);
          num_neg (AT (t6, 1), oi);
          num_neg (AT (t6, 2), cc);
          up = sum_sgn (t6, 3);                 /* sgn(V - V_old - c) */
          num_set (AT (t6, 2), cc);
          dn = sum_sgn (t6, 3);                 /* sgn(V - V_old + c) */
          side = up > 0 ? 1 : dn < 0 ? -1 : 0;
          pass = clip_pass (c->clip, side, dn == 0, up == 0, num_is_zero (cc));
          if (side != 0)
            {
              num_set (AT (t6, 0), oi);
              num_set (AT (t6, 1), side > 0 ? cc : ncc);
              num_neg (AT (t6, 2), AT (returns, i));
              sum_sgn (t6, 3);
              num_set (d2, AT (t6, 3));         /* Vc - R = V_old +- c - R, rounded once */
              num_set (AT (t6, 0), vi);
              num_set (AT (t6, 1), oi);
              num_set (AT (t6, 2), side > 0 ? cc : ncc);
              num_neg (AT (t6, 3), AT (returns, i));
              num_neg (AT (t6, 4), AT (returns, i));
              larger = side * sum_sgn (t6, 5);  /* sgn(V - Vc) sgn(V + Vc - 2R) */
            }
          else
            {
              num_set (d2, d1);
              larger = 0;
            }
          num_sqr (sq2, d2);
          if (larger < 0)
            {
              num_set (sq1, sq2);
              num_mul_d (g, d2, pass);          /* 0: Vc a bound, V outside its range */
              nclip += in;
            }
          else if (larger == 0)
            {
              num_mul_d (t, d2, pass);          /* torch.max halves it at the tie */
              num_add (g, d1, t);
              num_mul_2si (g, g, -1);
            }
        }
      if (!num_is_finite (sq1))
        FAIL ("a squared error overflows", RLREF_ERANGE);
      if (in)
        {
          num_set (AT (lv, i), sq1);
          if (!c->half)
            num_mul_2si (g, g, 1);
          num_div_si (g, g, (long) N);
          plus_zero (g);
        }
      else
        num_set_zero (g);
      if (grad)
        num_set (AT (grad, i), g);
      if (losses)
        {
          if (in || c->masked_zero)
            num_set (AT (losses, i), sq1);
          else
            num_set_zero (AT (losses, i));
        }
    }
  THEN (num_mean_si (s, lv, n, (long) N));
  if (status)
    goto done;
  if (c->half)
    num_mul_2si (s, s, -1);
  if (!num_is_finite (s))
    FAIL ("the loss overflows", RLREF_ERANGE);
  num_set (loss, s);
  if (clipfrac)
    {
      num_set_si (g, (long) nclip);
      num_div_si (clipfrac, g, (long) N);
      if (c->clipfrac_f32)
        num_round_f32 (clipfrac, clipfrac);     /* (vf_losses2 > vf_losses1).float() */
    }
done:
  num_vec_free (lv, n);
  num_vec_free (t6, 6);
  NUM_CLEAR (cc, ncc, d1, d2, sq1, sq2, g, s, vi, oi, t);
  return status;
}

/* PPO-VALUE target (000 section 3: "R_t the return, or the target V + A";
 * TRL, verl, OpenRLHF: returns = advantages + values). */
int
FN (ppo_gae_target) (num_ptr target, num_srcptr old_values, num_srcptr adv, size_t n)
{
  int status;
  if (!target)
    RLREF_ERROR ("target missing", RLREF_EINVAL);
  status = ppo_check_array (old_values, n, "old_values: n >= 1 finite values");
  THEN (ppo_check_array (adv, n, "adv: n >= 1 finite advantages"));
  for (size_t i = 0; status == RLREF_SUCCESS && i < n; i++)
    {
      num_add (AT (target, i), AT (old_values, i), AT (adv, i));
      if (!num_is_finite (AT (target, i)))
        {
          rlref_error ("a target overflows", __FILE__, __LINE__, RLREF_ERANGE);
          status = RLREF_ERANGE;
        }
      else
        plus_zero (AT (target, i));
    }
  return status;
}

/* PPO-VALUE target, the Monte-Carlo return (003 section 2:
 * G_t = sum_k gamma^k r_{t+k} = r_t + gamma G_{t+1}), backwards with one
 * rounding per step (fma).  gamma >= 0: the usual range is [0, 1], and the
 * finite sum is defined for any gamma >= 0. */
int
FN (ppo_mc_return) (num_ptr target, num_srcptr rewards, size_t n, num_srcptr gamma)
{
  num_t g, acc;
  int status;
  if (!target)
    RLREF_ERROR ("target missing", RLREF_EINVAL);
  status = ppo_check_array (rewards, n, "rewards: n >= 1 finite rewards");
  THEN (ppo_check_above (gamma, 0.0, 0, "gamma must be finite and >= 0"));
  if (status)
    return status;
  num_init (g); num_init (acc);
  num_set (g, gamma);
  for (size_t i = n; i-- > 0;)
    {
      num_fma (acc, g, acc, AT (rewards, i));
      if (!num_is_finite (acc))
        FAIL ("a return overflows", RLREF_ERANGE);
      num_set (AT (target, i), acc);
      plus_zero (AT (target, i));
    }
done:
  num_clear (g); num_clear (acc);
  return status;
}

/* PPO-VALUE objective (003: L^PPO = E_t[L^CLIP_t - c1 L^VF_t + c2 H(pi_theta)];
 * 000's pseudo-code: loss = L_clip + c_v L_v - c_ent entropy): per token
 * H = -sum_a p_a log p_a = -<p, log p>, log p by log_softmax; the mean over
 * the mask, or (TRL's logged entropy.mean()) over every row, in binary32. */
int
FN (ppo_objective) (num_ptr entropy, num_ptr entropy_mean, num_ptr objective, num_ptr loss,
                    num_srcptr logits, size_t V, const long *mask, size_t T, num_srcptr l_clip,
                    num_srcptr l_vf, num_srcptr c1, num_srcptr c2,
                    const rlref_ppo_objective_convention *c)
{
  int all = c && c->entropy_all_f32;
  num_ptr lp = NULL, p = NULL, h = NULL, m = NULL;
  num_t t, hm, o;
  size_t N = 0;
  int status;
  if (!entropy_mean || !loss)
    RLREF_ERROR ("an output is missing", RLREF_EINVAL);
  if (V == 0)
    RLREF_ERROR ("a distribution over V >= 1 tokens", RLREF_EDOM);
  if (T == 0 || T > (size_t) -1 / V)
    RLREF_ERROR ("T >= 1 rows of V logits", RLREF_EINVAL);
  status = ppo_check_array (logits, T * V, "logits: T rows of V finite logits");
  THEN (ppo_mask_count (&N, mask, T, 1));
  THEN (ppo_check_scalar (l_clip, "l_clip must be finite"));
  THEN (ppo_check_scalar (l_vf, "l_vf must be finite"));
  THEN (ppo_check_above (c1, 0.0, 0, "c1 must be finite and >= 0"));
  THEN (ppo_check_above (c2, 0.0, 0, "c2 must be finite and >= 0"));
  if (status)
    return status;
  num_init (t); num_init (hm); num_init (o);
  lp = num_vec_new (V);
  p = num_vec_new (V);
  h = num_vec_new (T);
  m = num_vec_new (T);
  if (!lp || !p || !h || !m)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t r = 0; r < T && status == RLREF_SUCCESS; r++)
    {
      status = FN (log_softmax) (lp, AT (logits, r * V), V);
      for (size_t a = 0; status == RLREF_SUCCESS && a < V; a++)
        num_exp (AT (p, a), AT (lp, a));
      THEN (num_dot (AT (h, r), p, lp, V));
      num_neg (AT (h, r), AT (h, r));
      plus_zero (AT (h, r));
    }
  if (status)
    goto done;
  /* the masked entropies (every row for TRL), summed once rounded */
  for (size_t r = 0; r < T; r++)
    if (all || ppo_in_mask (mask, r))
      num_set (AT (m, r), AT (h, r));
  THEN (num_sum (hm, m, T));
  if (status)
    goto done;
  num_div_si (hm, hm, (long) (all ? T : N));
  if (all)
    num_round_f32 (hm, hm);                     /* entropy_stats, a float32 tensor */
  num_mul (t, c1, l_vf);
  num_sub (o, l_clip, t);
  num_mul (t, c2, hm);
  num_add (o, o, t);
  plus_zero (o);
  /* every input has been read: outputs may now be written */
  for (size_t r = 0; entropy && r < T; r++)
    num_set (AT (entropy, r), AT (h, r));
  num_set (entropy_mean, hm);
  if (objective)
    num_set (objective, o);
  num_neg (loss, o);
  plus_zero (loss);
done:
  num_vec_free (lp, V);
  num_vec_free (p, V);
  num_vec_free (h, T);
  num_vec_free (m, T);
  num_clear (t); num_clear (hm); num_clear (o);
  return status;
}
