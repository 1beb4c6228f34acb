/* ppo_f32.c -- PPO-RATIO, PPO-CLIP, PPO-DUALCLIP, PPO-VALUE and PPO-WHITEN
 * as TRL, verl and OpenRLHF compute them in binary32: every operation of the
 * library's code, in its order, on binary32 operands, rounded once to
 * binary32 (num_round_f32); e^x and sqrt correctly rounded; a reduction
 * over tokens in the order of torch's CPU kernel (f32_sum), each addition
 * rounded.  The certified value
 * is that of this recurrence (as GRPO-ADV's float32 conventions), written
 * once for both backends.
 *
 * Read from: TRL trl/experimental/ppo/ppo_trainer.py (ratio, the clipped
 * policy and value losses, masked_mean = (x * mask).sum() / mask.sum(),
 * masked_whiten); verl core_algos.compute_policy_loss_vanilla,
 * compute_value_loss and agg_loss "token-mean", utils/torch_functional.py
 * (masked_sum, masked_mean with mask.sum() + 1e-8, which is mask.sum() in
 * binary32, masked_var, masked_whiten, clip_by_value); OpenRLHF
 * models/loss.py PolicyLoss, ValueLoss and trainer/ppo_utils/
 * experience_maker.py (the advantage normalisation).  Gradients as
 * autograd forms them (torch.max and torch.min share at a tie).
 * torch.clamp and a product with a Python scalar take the scalar in
 * binary32; torch.rsqrt is 1/sqrt rounded twice (its CPU kernel).  Where
 * the library's value is inf or NaN the status is ERANGE.  No output is a
 * negative zero. */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/ppo.h"
#include "ppo_common.h"

/* r = a rounded to binary32; 0 when finite there. */
static int
f32 (num_ptr r, num_srcptr a)
{
  num_round_f32 (r, a);
  return num_is_finite (r) ? 0 : -1;
}

/* s = torch's float32 sum of the row w[0..n-1], each addition rounded to
 * binary32, in the order of its CPU kernel (torch 1.13, as the libraries
 * were run): for n <= 7 four accumulators a_j over the full groups of four
 * (a_j += w[4k + j]), the last n mod 4 terms added to a_0, then ((a_0 +
 * a_1) + a_2) + a_3; a longer row left to right (its vectorised paths are
 * not followed: the goldens' rows are shorter).  -1 when a partial sum
 * leaves the binary32 range. */
static int
f32_sum (num_ptr s, num_srcptr w, size_t n)
{
  int bad = 0;
  if (n <= 7)
    {
      num_t a0, a1, a2, a3;
      num_ptr a[4] = { a0, a1, a2, a3 };
      size_t m = n - n % 4;
      for (int j = 0; j < 4; j++)
        {
          num_init (a[j]);
          num_set_zero (a[j]);
        }
      for (size_t i = 0; i < m; i += 4)
        for (size_t j = 0; j < 4; j++)
          {
            num_add (a[j], a[j], AT (w, i + j));
            bad |= f32 (a[j], a[j]);
          }
      for (size_t i = m; i < n; i++)
        {
          num_add (a[0], a[0], AT (w, i));
          bad |= f32 (a[0], a[0]);
        }
      num_add (s, a[0], a[1]);
      bad |= f32 (s, s);
      num_add (s, s, a[2]);
      bad |= f32 (s, s);
      num_add (s, s, a[3]);
      bad |= f32 (s, s);
      for (int j = 0; j < 4; j++)
        num_clear (a[j]);
      return bad;
    }
  num_set_zero (s);
  for (size_t i = 0; i < n; i++)
    {
      num_add (s, s, AT (w, i));
      bad |= f32 (s, s);
    }
  return bad;
}

/* m = f32(S/N), S = f32_sum of w: ERANGE (what names the sum) when S
 * leaves the binary32 range. */
static int
f32_mean (num_ptr m, num_srcptr w, size_t n, size_t N, const char *what)
{
  int status = RLREF_SUCCESS;
  num_t s, t;
  num_init (s);
  num_init (t);
  if (f32_sum (s, w, n))
    {
      rlref_error (what, __FILE__, __LINE__, RLREF_ERANGE);
      status = RLREF_ERANGE;
    }
  num_set_si (t, (long) N);
  num_div (s, s, t);
  num_round_f32 (m, s);
  num_clear (s);
  num_clear (t);
  return status;
}

/* x = +0 where x is zero. */
static void
plus_zero (num_ptr x)
{
  if (num_is_zero (x))
    num_set_zero (x);
}

/* r = e^x correctly rounded to binary32, x a binary32 value: +inf above
 * 89, +0 below -104 (e^-104 < 2^-150, half the least subnormal). */
static void
exp_f32 (num_ptr r, num_srcptr x)
{
  if (num_cmp_d (x, 89.0) > 0)
    num_set_inf (r, 1);
  else if (num_cmp_d (x, -104.0) < 0)
    num_set_zero (r);
  else
    {
      num_exp (r, x);
      num_round_f32 (r, r);
    }
}

/* r = f32(d), d = 1 + s x formed in binary64 (Python's 1 - eps, 1 + eps),
 * s = +-1. */
static void
one_plus_f32 (num_ptr r, num_srcptr x, int s)
{
  if (s < 0)
    num_d_sub (r, 1.0, x);
  else
    num_add_d (r, x, 1.0);
  num_set_d (r, num_get_d (r));
  num_round_f32 (r, r);
}

/* One token's log-ratio and ratio: l = f32(f32(lp) - f32(old)), lc = l
 * clamped to [-20, 20] when clamp, rho = e^lc; ERANGE where the library's
 * value is inf. */
static int
token_ratio (num_ptr l, num_ptr lc, num_ptr rho, num_srcptr lp, num_srcptr old, int clamp,
             num_ptr t)
{
  int status = RLREF_SUCCESS;
  if (f32 (l, lp) || f32 (t, old))
    FAIL ("a log-probability beyond the binary32 range", RLREF_ERANGE);
  num_sub (l, l, t);
  if (f32 (l, l))
    FAIL ("logp - old_logp overflows binary32", RLREF_ERANGE);
  num_set (lc, l);
  if (clamp && num_cmp_d (l, RLREF_PPO_LOG_RATIO_CLAMP) > 0)
    num_set_d (lc, RLREF_PPO_LOG_RATIO_CLAMP);
  else if (clamp && num_cmp_d (l, -RLREF_PPO_LOG_RATIO_CLAMP) < 0)
    num_set_d (lc, -RLREF_PPO_LOG_RATIO_CLAMP);
  exp_f32 (rho, lc);
  if (!num_is_finite (rho))
    FAIL ("e^l overflows binary32 (l > 88.72): the library's ratio is inf", RLREF_ERANGE);
  plus_zero (lc);
done:
  return status;
}

/* PPO-RATIO (001: r_t = exp(log pi_theta - log pi_old)) in binary32, the
 * clamp of verl and OpenRLHF when clamp; autograd's d ratio / d logp is
 * exp's result. */
int
FN (ppo_ratio_f32) (num_ptr ratio, num_ptr log_ratio, num_ptr grad, num_srcptr logp,
                    num_srcptr old_logp, size_t n, int clamp)
{
  num_t l, lc, r, t;
  int status;
  if (!ratio)
    RLREF_ERROR ("ratio missing", RLREF_EINVAL);
  status = ppo_check_array (logp, n, "logp: n >= 1 finite log-probabilities");
  THEN (ppo_check_array (old_logp, n, "old_logp: n >= 1 finite log-probabilities"));
  if (status)
    return status;
  num_init (l); num_init (lc); num_init (r); num_init (t);
  for (size_t i = 0; i < n && status == RLREF_SUCCESS; i++)
    {
      status = token_ratio (l, lc, r, AT (logp, i), AT (old_logp, i), clamp, t);
      if (status)
        break;
      num_set (AT (ratio, i), r);
      if (log_ratio)
        num_set (AT (log_ratio, i), lc);
      if (grad)
        {
          if (num_cmp (l, lc) == 0)
            num_set (AT (grad, i), r);
          else
            num_set_zero (AT (grad, i));
        }
    }
  num_clear (l); num_clear (lc); num_clear (r); num_clear (t);
  return status;
}

/* PPO-CLIP (000 13.12), PPO-DUALCLIP in binary32: per token u = f32(a rho),
 * v = f32(a clamp(rho, lo, hi)), s = min(u, v) (TRL and verl take -max of
 * -u, -v: the same values), the dual bound f32(a f32(c)) for a < 0; the
 * loss f32(S/N) of the row sum S (f32_sum) of -mask s; the gradient as
 * autograd forms it, f32(f32(f32(1/N) (-a)) rho), torch's max and min
 * sharing it at a tie (half to the dual bound). */
int
FN (ppo_clip_f32) (num_ptr loss, num_ptr surrogate, num_ptr ratio, num_ptr grad,
                   num_ptr clipfrac, num_srcptr logp, num_srcptr old_logp, num_srcptr adv,
                   const long *mask, size_t n, const rlref_ppo_clip_f32_convention *c,
                   num_srcptr eps_low, num_srcptr eps_high, num_srcptr dual_c)
{
  num_ptr w = NULL;
  num_t lo, hi, c32, g, l, lc, rho, a, u, v, s, d, t;
  size_t N = 0, nclip = 0;
  int status, dual;
  if (!loss || !c)
    RLREF_ERROR ("loss or convention missing", RLREF_EINVAL);
  dual = c->clip.dual_clip;
  status = ppo_check_array (logp, n, "logp: n >= 1 finite log-probabilities");
  THEN (ppo_check_array (old_logp, n, "old_logp: n >= 1 finite log-probabilities"));
  THEN (ppo_check_array (adv, n, "adv: n >= 1 finite advantages"));
  THEN (ppo_mask_count (&N, mask, n, 1));
  THEN (ppo_check_above (eps_low, 0.0, 0, "eps_low must be finite and >= 0"));
  THEN (ppo_check_above (eps_high, 0.0, 0, "eps_high must be finite and >= 0"));
  if (status == RLREF_SUCCESS && num_cmp_d (eps_low, 1.0) >= 0)
    RLREF_ERROR ("eps_low must be < 1: the ratio's lower bound 1 - eps_low > 0", RLREF_EDOM);
  if (status == RLREF_SUCCESS && dual)
    status = ppo_check_above (dual_c, 1.0, 1, "the dual-clip bound c must be > 1");
  if (status)
    return status;
  num_init (lo); num_init (hi); num_init (c32); num_init (g); num_init (l); num_init (lc);
  num_init (rho); num_init (a); num_init (u); num_init (v); num_init (s); num_init (d);
  num_init (t);
  one_plus_f32 (lo, eps_low, -1);
  one_plus_f32 (hi, eps_high, 1);
  if (dual)
    num_round_f32 (c32, dual_c);
  num_set_si (t, (long) N);
  num_d_div (g, 1.0, t);
  num_round_f32 (g, g);
  w = num_vec_new (n);
  if (!w)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      int in = ppo_in_mask (mask, i);
      double share;
      if (c->masked_ratio_one && !in)
        {
          /* TRL: both log-probabilities INVALID_LOGPROB at padding, rho = 1 */
          num_set_zero (l);
          num_set_zero (lc);
          num_set_d (rho, 1.0);
        }
      else
        THEN (token_ratio (l, lc, rho, AT (logp, i), AT (old_logp, i), c->clip.clamp_log_ratio,
                          t));
      if (status)
        goto done;
      if (f32 (a, AT (adv, i)))
        FAIL ("an advantage beyond the binary32 range", RLREF_ERANGE);
      num_mul (u, a, rho);
      num_round_f32 (u, u);
      ppo_clamp (t, rho, lo, hi);
      num_mul (v, a, t);
      num_round_f32 (v, v);
      num_min (s, u, v);
      share = num_cmp (u, v) <= 0 ? 1.0 : 0.0;
      if (dual && num_sgn (a) < 0)
        {
          num_mul (t, a, c32);
          num_round_f32 (t, t);
          if (num_cmp (t, s) > 0)
            {
              num_set (s, t);
              share = 0.0;
            }
          else if (num_cmp (t, s) == 0)
            share *= 0.5;
        }
      if (num_cmp (l, lc) != 0)
        share = 0.0;
      if (!num_is_finite (s) && (in || c->lib != RLREF_PPO_LIB_VERL))
        FAIL (in ? "A rho overflows binary32: the library's loss is inf"
              : "A rho overflows binary32 at a masked token: loss * 0 is NaN in the library",
              RLREF_ERANGE);
      if (in)
        {
          num_neg (AT (w, i), s);
          plus_zero (s);
          num_neg (d, a);
          num_mul (d, g, d);
          num_round_f32 (d, d);
          num_mul (d, d, rho);
          num_round_f32 (d, d);
          num_mul_d (d, d, share);
          plus_zero (d);
          nclip += num_cmp (v, u) < 0;
        }
      else
        {
          num_set_zero (AT (w, i));
          num_set_zero (s);
          num_set_zero (d);
        }
      if (surrogate)
        num_set (AT (surrogate, i), s);
      if (ratio)
        num_set (AT (ratio, i), rho);
      if (grad)
        num_set (AT (grad, i), d);
    }
  status = f32_mean (s, w, n, N, "the sum of the token losses overflows binary32");
  if (status)
    goto done;
  plus_zero (s);
  num_set (loss, s);
  if (clipfrac)
    {
      num_set_si (s, (long) nclip);
      num_div_si (s, s, (long) N);
      num_round_f32 (clipfrac, s);
    }
done:
  num_vec_free (w, n);
  num_clear (lo); num_clear (hi); num_clear (c32); num_clear (g); num_clear (l);
  num_clear (lc); num_clear (rho); num_clear (a); num_clear (u); num_clear (v); num_clear (s);
  num_clear (d); num_clear (t);
  return status;
}

/* PPO-WHITEN (000 section 3.2) in binary32: masked_whiten of TRL and verl
 * ((x - mean) rsqrt(var + 1e-8), var with the Bessel factor N/(N - 1) of
 * an integer mask sum; shift_mean=False adds the mean back) and OpenRLHF's
 * normalisation ((x - mean) rsqrt(max(var, 1e-8)), ddof 0; the statistics
 * of all_advantages.float(), then, in a float64 run, (A - mean) rstd on the
 * float64 advantages: apply_f64). */
int
FN (ppo_whiten_f32) (num_ptr whitened, num_ptr mean, num_ptr std, num_ptr scale,
                     num_srcptr values, const long *mask, size_t n,
                     const rlref_ppo_whiten_f32_convention *c, num_srcptr eps)
{
  num_ptr cv = NULL, tv = NULL;
  num_t mu, s, t, q, var, sc, r;
  size_t N = 0;
  int status;
  enum rlref_ppo_lib lib;
  if (!whitened || !c)
    RLREF_ERROR ("whitened or convention missing", RLREF_EINVAL);
  lib = c->lib;
  status = ppo_check_array (values, n, "values: n >= 1 finite values");
  THEN (ppo_mask_count (&N, mask, n, 1));
  THEN (ppo_check_above (eps, 0.0, 0, "eps must be finite and >= 0"));
  if (status)
    return status;
  if (lib != RLREF_PPO_LIB_OPENRLHF && N < 2)
    RLREF_ERROR ("one masked value: N/(N - 1) divides by 0 (TRL NaN, verl raises)", RLREF_EDOM);
  num_init (mu); num_init (s); num_init (t); num_init (q); num_init (var); num_init (sc);
  num_init (r);
  cv = num_vec_new (n);
  tv = num_vec_new (n);
  if (!cv || !tv)
    FAIL ("out of memory", RLREF_ENOMEM);
  /* the mean: S1 = the row sum of f32(x m) (f32_sum), over N */
  for (size_t i = 0; i < n; i++)
    {
      if (f32 (AT (cv, i), AT (values, i)))
        FAIL ("a value beyond the binary32 range", RLREF_ERANGE);
      if (ppo_in_mask (mask, i))
        num_set (AT (tv, i), AT (cv, i));
      else
        num_set_zero (AT (tv, i));
    }
  if (f32_sum (s, tv, n))
    FAIL ("the sum of the values overflows binary32", RLREF_ERANGE);
  num_set_si (t, (long) N);
  num_div (mu, s, t);
  num_round_f32 (mu, mu);
  /* c = f32(x - mean); S2 = the row sum of f32(f32(c c) m) */
  for (size_t i = 0; i < n; i++)
    {
      int in = ppo_in_mask (mask, i);
      num_sub (AT (cv, i), AT (cv, i), mu);
      num_round_f32 (AT (cv, i), AT (cv, i));
      num_sqr (q, AT (cv, i));
      if (f32 (q, q) && (in || lib != RLREF_PPO_LIB_VERL))
        FAIL ("a square (x - mean)^2 overflows binary32: the library's variance is inf "
              "(NaN where masked)", RLREF_ERANGE);
      if (in)
        num_set (AT (tv, i), q);
      else
        num_set_zero (AT (tv, i));
    }
  if (f32_sum (s, tv, n))
    FAIL ("the sum of squares overflows binary32", RLREF_ERANGE);
  num_div (var, s, t);
  num_round_f32 (var, var);
  num_round_f32 (r, eps);
  if (lib == RLREF_PPO_LIB_OPENRLHF)
    {
      num_max (sc, var, r);
      num_sqrt (sc, sc);
      num_round_f32 (sc, sc);
    }
  else
    {
      num_set_si (q, (long) N - 1);
      num_div (q, t, q);
      num_round_f32 (q, q);
      num_mul (var, var, q);
      if (f32 (var, var))
        FAIL ("the variance overflows binary32", RLREF_ERANGE);
      num_add (sc, var, r);
      num_round_f32 (sc, sc);
      num_sqrt (sc, sc);
      num_round_f32 (sc, sc);
    }
  if (num_is_zero (sc))
    FAIL ("no spread and eps = 0: rsqrt(0) is inf, 0 inf NaN", RLREF_EDOM);
  num_d_div (r, 1.0, sc);
  if (f32 (r, r))
    FAIL ("1/scale overflows binary32", RLREF_ERANGE);
  for (size_t i = 0; i < n; i++)
    {
      if (c->apply_f64)
        {
          /* OpenRLHF in a float64 run: (advantages - mean) * rstd with the
           * binary32 statistics, on the binary64 advantages */
          num_sub (AT (cv, i), AT (values, i), mu);
          num_mul (AT (cv, i), AT (cv, i), r);
          if (c->readd_mean)
            num_add (AT (cv, i), AT (cv, i), mu);
          if (!num_is_finite (AT (cv, i)))
            FAIL ("a whitened value overflows", RLREF_ERANGE);
        }
      else
        {
          num_mul (AT (cv, i), AT (cv, i), r);
          num_round_f32 (AT (cv, i), AT (cv, i));
          if (c->readd_mean)
            num_add (AT (cv, i), AT (cv, i), mu);
          if (f32 (AT (cv, i), AT (cv, i)))
            FAIL ("a whitened value overflows binary32", RLREF_ERANGE);
        }
      plus_zero (AT (cv, i));
    }
  /* every input has been read: outputs may now be written */
  for (size_t i = 0; i < n; i++)
    {
      if (c->zero_masked && !ppo_in_mask (mask, i))
        num_set_zero (AT (whitened, i));
      else
        num_set (AT (whitened, i), AT (cv, i));
    }
  plus_zero (mu);
  if (mean)
    num_set (mean, mu);
  if (std)
    {
      num_sqrt (std, var);
      num_round_f32 (std, std);
    }
  if (scale)
    num_set (scale, sc);
done:
  num_vec_free (cv, n);
  num_vec_free (tv, n);
  num_clear (mu); num_clear (s); num_clear (t); num_clear (q); num_clear (var); num_clear (sc);
  num_clear (r);
  return status;
}

/* The factor by which the clipped value passes d/dv back to v (w: two
 * scratch scalars): torch.clamp 1 inside its bounds and at them; verl's
 * clip_by_value = max(min(v, hi), lo) halves it at each tie. */
static double
value_pass (num_srcptr v, num_srcptr lo, num_srcptr hi, int verl, num_ptr m)
{
  double f;
  if (!verl)
    return num_cmp (v, lo) >= 0 && num_cmp (v, hi) <= 0 ? 1.0 : 0.0;
  f = num_cmp (v, hi) < 0 ? 1.0 : num_cmp (v, hi) == 0 ? 0.5 : 0.0;
  num_min (m, v, hi);
  return f * (num_cmp (m, lo) > 0 ? 1.0 : num_cmp (m, lo) == 0 ? 0.5 : 0.0);
}

/* PPO-VALUE (the libraries' 1/2 max((V - R)^2, (Vc - R)^2)) in binary32:
 * TRL's torch.clamp(vpred, values - c, values + c), verl's clip_by_value,
 * OpenRLHF's old_values + (values - old_values).clamp(-c, c); squares,
 * torch.max, the masked mean, the factor 0.5; the gradient by autograd's
 * rules (pow's 2 x, max and min sharing at a tie). */
int
FN (ppo_value_loss_f32) (num_ptr loss, num_ptr losses, num_ptr grad, num_ptr clipfrac,
                         num_srcptr values, num_srcptr old_values, num_srcptr returns,
                         const long *mask, size_t n, const rlref_ppo_value_f32_convention *c,
                         num_srcptr clip)
{
  num_ptr w = NULL;
  num_t cc, ncc, g, v, o, r, lo, hi, vc, d1, d2, q1, q2, p, t;
  size_t N = 0, nclip = 0;
  int status, verl;
  if (!loss || !c)
    RLREF_ERROR ("loss or convention missing", RLREF_EINVAL);
  if (c->value.clip == RLREF_PPO_VALUE_UNCLIPPED || !c->value.half)
    RLREF_ERROR ("the float32 readings are those of the clipped losses with 1/2", RLREF_EINVAL);
  /* the clip fraction is a binary32 mean here whatever c->value.clipfrac_f32 says */
  verl = c->lib == RLREF_PPO_LIB_VERL;
  status = ppo_check_array (values, n, "values: n >= 1 finite values");
  THEN (ppo_check_array (returns, n, "returns: n >= 1 finite targets"));
  THEN (ppo_check_array (old_values, n, "old_values: n >= 1 finite values"));
  THEN (ppo_check_above (clip, 0.0, 0, "the value clip range must be finite and >= 0"));
  THEN (ppo_mask_count (&N, mask, n, 1));
  if (status)
    return status;
  num_init (cc); num_init (ncc); num_init (g); num_init (v); num_init (o); num_init (r);
  num_init (lo); num_init (hi); num_init (vc); num_init (d1); num_init (d2); num_init (q1);
  num_init (q2); num_init (p); num_init (t);
  num_round_f32 (cc, clip);
  num_neg (ncc, cc);
  num_set_si (t, (long) N);
  num_d_div (g, 0.5, t);
  num_round_f32 (g, g);
  w = num_vec_new (n);
  if (!w)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      int in = ppo_in_mask (mask, i);
      double pass;
      if (c->value.masked_zero && !in)
        {
          /* TRL: vpred and the rollout's values filled with 0 at padding */
          num_set_zero (v);
          num_set_zero (o);
          if (f32 (r, AT (returns, i)))
            FAIL ("a return beyond the binary32 range", RLREF_ERANGE);
        }
      else if (f32 (v, AT (values, i)) || f32 (o, AT (old_values, i))
               || f32 (r, AT (returns, i)))
        FAIL ("a value or return beyond the binary32 range", RLREF_ERANGE);
      if (c->value.clip != RLREF_PPO_VALUE_DELTA)
        {
          num_sub (lo, o, cc);
          num_round_f32 (lo, lo);
          num_add (hi, o, cc);
          num_round_f32 (hi, hi);
          ppo_clamp (vc, v, lo, hi);
          pass = value_pass (v, lo, hi, c->value.clip == RLREF_PPO_VALUE_MAXMIN, t);
        }
      else
        {
          num_sub (t, v, o);
          num_round_f32 (t, t);
          pass = value_pass (t, ncc, cc, 0, p);
          ppo_clamp (vc, t, ncc, cc);
          num_add (vc, o, vc);
          num_round_f32 (vc, vc);
        }
      num_sub (d1, v, r);
      num_round_f32 (d1, d1);
      num_sub (d2, vc, r);
      num_round_f32 (d2, d2);
      num_sqr (q1, d1);
      num_round_f32 (q1, q1);
      num_sqr (q2, d2);
      num_round_f32 (q2, q2);
      num_max (t, q1, q2);
      if (!num_is_finite (t) && (in || !verl))
        FAIL ("a squared error overflows binary32 (inf, or inf * 0 = NaN where masked)",
              RLREF_ERANGE);
      if (!in)
        {
          num_set_zero (AT (w, i));
          num_set_zero (p);
          if (losses && c->value.masked_zero)
            num_set (AT (losses, i), t);        /* vf_loss_max, not zeroed */
        }
      else
        {
          num_set (AT (w, i), t);
          num_mul_2si (d1, d1, 1);
          num_mul_2si (d2, d2, 1);
          if (num_cmp (q1, q2) > 0)
            {
              num_mul (p, g, d1);
              num_round_f32 (p, p);
            }
          else if (num_cmp (q2, q1) > 0)
            {
              num_mul (p, g, d2);
              num_round_f32 (p, p);
              num_mul_d (p, p, pass);
              nclip++;
            }
          else
            {
              num_mul_2si (t, g, -1);
              num_mul (p, t, d1);
              num_round_f32 (p, p);
              num_mul (t, t, d2);
              num_round_f32 (t, t);
              num_mul_d (t, t, pass);
              num_add (p, p, t);
              num_round_f32 (p, p);
            }
          plus_zero (p);
        }
      if (losses && (in || !c->value.masked_zero))
        num_set (AT (losses, i), AT (w, i));
      if (grad)
        num_set (AT (grad, i), p);
    }
  status = f32_mean (t, w, n, N, "the sum of the squared errors overflows binary32");
  if (status)
    goto done;
  num_mul_2si (t, t, -1);
  num_round_f32 (loss, t);
  if (clipfrac)
    {
      num_set_si (t, (long) nclip);
      num_div_si (t, t, (long) N);
      num_round_f32 (clipfrac, t);
    }
done:
  num_vec_free (w, n);
  num_clear (cc); num_clear (ncc); num_clear (g); num_clear (v); num_clear (o); num_clear (r);
  num_clear (lo); num_clear (hi); num_clear (vc); num_clear (d1); num_clear (d2);
  num_clear (q1); num_clear (q2); num_clear (p); num_clear (t);
  return status;
}

/* PPO-TOKREW (000 13.9) as OpenRLHF computes it, in binary32 whatever the
 * run's dtype (compute_approx_kl takes log_probs.float()): l = f32(f32(logp)
 * - f32(ref)); k1 = l, k2 = f32(l l)/2 (log_ratio**2 / 2.0), k3 =
 * f32(f32(e^{-l} - 1) + l) ((-l).exp() - 1 + l;
 * an infinite e^{-l} clamps to 10); every estimate clamped to [-10, 10];
 * compute_reward: kl_coef <= 0 taken as 0, the score clamped to
 * reward.clip_range [-10, 10] and cast to binary32, kl_reward = f32(f32(-beta)
 * k) at every token (the penalty is not masked), the score added at the last
 * token of the mask; reward_sum = reward.sum(-1) and kl_sum in binary32,
 * summed as torch sums a row (f32_sum). */
int
FN (ppo_tokrew_f32) (num_ptr rewards, num_ptr kl, num_ptr reward_sum, num_ptr kl_sum,
                     num_srcptr logp, num_srcptr ref, const long *mask, size_t n,
                     num_srcptr score, num_srcptr beta, const rlref_ppo_tokrew_convention *c)
{
  num_ptr k = NULL, r = NULL;
  num_t b, sc, l, t, u;
  size_t N = 0, end = 0;
  int status;
  if (!rewards || !c)
    RLREF_ERROR ("rewards or convention missing", RLREF_EINVAL);
  if (c->clamp_log_ratio || c->mask_prefix)
    RLREF_ERROR ("the binary32 reading is OpenRLHF's: no log-ratio clamp, no mask prefix",
                 RLREF_EINVAL);
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
  for (size_t i = 0; i < n; i++)
    if (ppo_in_mask (mask, i))
      end = i;
  if (c->score_after_last && end + 1 < n)
    end++;
  num_init (b); num_init (sc); num_init (l); num_init (t); num_init (u);
  k = num_vec_new (n);
  r = num_vec_new (n);
  if (!k || !r)
    FAIL ("out of memory", RLREF_ENOMEM);
  /* -kl_coef, a Python scalar taken in binary32 by the product */
  if (c->beta_floor && num_sgn (beta) < 0)
    num_set_zero (b);
  else
    num_neg (b, beta);
  if (f32 (b, b))
    FAIL ("beta beyond the binary32 range", RLREF_ERANGE);
  num_set (sc, score);
  if (c->clamp_score)
    {
      num_set_d (t, -RLREF_PPO_SCORE_CLAMP);
      num_set_d (u, RLREF_PPO_SCORE_CLAMP);
      ppo_clamp (sc, sc, t, u);
    }
  if (f32 (sc, sc))
    FAIL ("the score beyond the binary32 range", RLREF_ERANGE);
  for (size_t i = 0; i < n; i++)
    {
      if (ppo_in_mask (mask, i) || c->keep_masked)
        {
          if (f32 (l, AT (logp, i)) || f32 (t, AT (ref, i)))
            FAIL ("a log-probability beyond the binary32 range", RLREF_ERANGE);
          num_sub (l, l, t);
          if (f32 (l, l))
            FAIL ("logp - ref overflows binary32", RLREF_ERANGE);
          if (c->kl == RLREF_PPO_K3)
            {
              num_neg (t, l);
              exp_f32 (u, t);
              if (num_is_finite (u))
                {
                  num_sub_d (u, u, 1.0);
                  num_round_f32 (u, u);
                  num_add (u, u, l);
                  num_round_f32 (u, u);
                }
              num_set (AT (k, i), u);
            }
          else if (c->kl == RLREF_PPO_K2)
            {
              /* log_ratio**2 / 2.0 */
              num_sqr (u, l);
              if (f32 (u, u))
                num_set_inf (u, 1);             /* inf, clamped below */
              num_mul_2si (AT (k, i), u, -1);
            }
          else
            num_set (AT (k, i), l);
          if (c->clamp_estimate)
            {
              if (!num_is_finite (AT (k, i)))
                num_set_d (AT (k, i), RLREF_PPO_KL_CLAMP);      /* clamp(inf) */
              else if (num_cmp_d (AT (k, i), RLREF_PPO_KL_CLAMP) > 0)
                num_set_d (AT (k, i), RLREF_PPO_KL_CLAMP);
              else if (num_cmp_d (AT (k, i), -RLREF_PPO_KL_CLAMP) < 0)
                num_set_d (AT (k, i), -RLREF_PPO_KL_CLAMP);
            }
          if (!num_is_finite (AT (k, i)))
            FAIL ("the KL estimate overflows binary32", RLREF_ERANGE);
          plus_zero (AT (k, i));
        }
      num_mul (AT (r, i), b, AT (k, i));
      if (f32 (AT (r, i), AT (r, i)))
        FAIL ("beta kl overflows binary32", RLREF_ERANGE);
      if (i == end)
        {
          num_add (AT (r, i), AT (r, i), sc);
          if (f32 (AT (r, i), AT (r, i)))
            FAIL ("a reward overflows binary32", RLREF_ERANGE);
        }
      plus_zero (AT (r, i));
    }
  if (f32_sum (t, r, n) || f32_sum (u, k, n))
    FAIL ("a sum of the rewards or estimates overflows binary32", RLREF_ERANGE);
  /* every input has been read: outputs may now be written */
  for (size_t i = 0; i < n; i++)
    {
      num_set (AT (rewards, i), AT (r, i));
      if (kl)
        num_set (AT (kl, i), AT (k, i));
    }
  plus_zero (t);
  plus_zero (u);
  if (reward_sum)
    num_set (reward_sum, t);
  if (kl_sum)
    num_set (kl_sum, u);
done:
  num_vec_free (k, n);
  num_vec_free (r, n);
  num_clear (b); num_clear (sc); num_clear (l); num_clear (t); num_clear (u);
  return status;
}
