/* ppo_whiten.c -- advantage whitening (PPO-WHITEN; seed 000 section 3.2's
 * adv = whiten(adv)) in the conventions of TRL, verl, OpenRLHF and
 * Stable-Baselines3 (CONVENTIONS.md "GAE, whitening, value loss"), written
 * once for both backends.
 *
 * The mean and the standard deviation of the masked values come from the
 * scaled two-pass primitives (finite wherever representable); sqrt(var +
 * eps) is formed as hypot(std, sqrt(eps)), so that var itself is never
 * formed and nothing overflows or underflows on the way. */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/ppo.h"
#include "ppo_common.h"

/* r = sqrt(a^2 + b^2), a, b >= 0, as max sqrt(1 + (min/max)^2). */
static void
hypot2 (num_ptr r, num_srcptr a, num_srcptr b, num_ptr t)
{
  num_srcptr big = num_cmp (a, b) >= 0 ? a : b, small = big == a ? b : a;
  if (num_is_zero (big))
    {
      num_set_zero (r);
      return;
    }
  num_div (t, small, big);
  num_sqr (t, t);
  num_add_d (t, t, 1.0);
  num_sqrt (t, t);
  num_mul (r, t, big);
}

/* PPO-WHITEN: mu, std over the masked values, scale = sqrt(var + eps)
 * (TRL, verl masked_whiten), sqrt(max(var, eps)) (OpenRLHF), std + eps
 * (Stable-Baselines3); w = (A - mu)/scale (+ mu with shift_mean=False).
 * A - mu is formed against the exact mean sum/N held as mh + ml (mh the
 * quotient of the rounded sum, ml the rest: the sum's rounding error and
 * the division's remainder, both exact), not against mu rounded, which
 * values within a few ulps of each other would cancel to nothing (2 - 2u,
 * 2, 2: w_0 = -1.1547, not -0.5774 on one rounding of mu).  Where the sum
 * or A - mu overflows binary64, A - mu is formed from halves. */
int
FN (ppo_whiten) (num_ptr whitened, num_ptr mean, num_ptr std, num_ptr scale,
                 num_srcptr values, const long *mask, size_t n,
                 const rlref_ppo_whiten_convention *c, num_srcptr eps)
{
  num_ptr x = NULL;
  num_t mu, sd, sc, se, d, t, mh, ml;
  int split;
  size_t N = 0, k = 0;
  int status;
  if (!whitened || !c)
    RLREF_ERROR ("whitened or convention missing", RLREF_EINVAL);
  status = ppo_check_array (values, n, "values: n >= 1 finite values");
  THEN (ppo_mask_count (&N, mask, n, 1));
  THEN (ppo_check_above (eps, 0.0, 0, "eps must be finite and >= 0"));
  if (status)
    return status;
  if (N <= (size_t) c->ddof)
    RLREF_ERROR ("too few masked values for the convention's ddof", RLREF_EDOM);
  NUM_INIT (mu, sd, sc, se, d, t, mh, ml);
  x = num_vec_new (N + 1);
  if (!x)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    if (ppo_in_mask (mask, i))
      num_set (AT (x, k++), AT (values, i));
  THEN (FN (mean) (mu, x, N));
  /* mh + ml = sum/N: mh = s/N rounded, ml = (s - N mh + (sum - s))/N,
   * s - N mh exact (fma: the remainder of a rounded quotient) */
  THEN (num_sum (t, x, N));
  split = status == RLREF_SUCCESS && num_is_finite (t);
  if (split)
    {
      num_neg (AT (x, N), t);
      THEN (num_sum (ml, x, N + 1));             /* sum - s, rounded once */
      num_div_si (mh, t, (long) N);
      num_set_si (d, -(long) N);
      num_fma (t, d, mh, t);
      num_add (ml, ml, t);
      num_div_si (ml, ml, (long) N);
    }
  if (c->bessel_f32 && c->ddof == 1)
    {
      /* TRL's and verl's masked_var: the ddof-0 variance times mask_sum /
       * (mask_sum - 1), an int64 quotient, so a binary32 tensor */
      THEN (FN (stddev) (sd, x, N, 0));
      num_set_si (t, (long) N);
      num_div_si (t, t, (long) N - 1);
      num_round_f32 (t, t);
      num_sqrt (t, t);
      num_mul (sd, sd, t);
    }
  else
    THEN (FN (stddev) (sd, x, N, c->ddof));
  if (status)
    goto done;
  switch (c->eps_at)
    {
    case RLREF_PPO_EPS_IN_SQRT:
      num_sqrt (se, eps);
      hypot2 (sc, sd, se, t);
      break;
    case RLREF_PPO_EPS_FLOOR:
      num_sqrt (se, eps);
      num_max (sc, sd, se);
      break;
    default:
      num_add (sc, sd, eps);
      break;
    }
  if (num_is_zero (sc))
    FAIL ("no spread and eps = 0: the scale is 0", RLREF_EDOM);
  if (!num_is_finite (sc))
    FAIL ("the scale overflows", RLREF_ERANGE);
  /* the statistics are formed: outputs may now be written */
  for (size_t i = 0; i < n; i++)
    {
      if (c->zero_masked && !ppo_in_mask (mask, i))
        {
          num_set_zero (AT (whitened, i));
          continue;
        }
      if (split)
        {
          num_sub (d, AT (values, i), mh);
          num_sub (d, d, ml);
        }
      else
        num_sub (d, AT (values, i), mu);
      if (num_is_finite (d))
        num_div (d, d, sc);
      else
        {
          num_mul_2si (d, AT (values, i), -1);
          num_mul_2si (t, mu, -1);
          num_sub (d, d, t);
          num_mul_2si (t, sc, -1);
          num_div (d, d, t);
        }
      if (c->readd_mean)
        num_add (d, d, mu);
      if (!num_is_finite (d))
        FAIL ("a whitened value overflows", RLREF_ERANGE);
      if (num_is_zero (d))
        num_set_zero (d);
      num_set (AT (whitened, i), d);
    }
  if (num_is_zero (mu))
    num_set_zero (mu);
  if (mean)
    num_set (mean, mu);
  if (std)
    num_set (std, sd);
  if (scale)
    num_set (scale, sc);
done:
  num_vec_free (x, N + 1);
  NUM_CLEAR (mu, sd, sc, se, d, t, mh, ml);
  return status;
}
