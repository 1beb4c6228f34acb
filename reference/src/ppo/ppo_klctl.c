/* ppo_klctl.c -- controlling the KL of PPO (PPO-KLCTL; seed 000 section 3
 * "the KL target controller", seed 003 "stop early when mean(KL) >
 * target_kl"): the adaptive KL coefficient of Ziegler et al. (2019) as
 * verl and OpenRLHF implement it, and the target-KL early stop in the
 * seed's order and in Spinning Up's; written once for both backends. */
#include "rlref/num.h"
#include "rlref/ppo.h"
#include "ppo_common.h"

/* PPO-KLCTL (000 section 3; CONVENTIONS.md "KL estimators"): the
 * proportional controller
 *   e = clip(KL/target - 1, -0.2, 0.2),  beta <- beta (1 + e n_steps/horizon),
 * the bounds the binary64 0.2 that numpy's clip receives; the fixed
 * controller leaves beta alone. */
int
FN (ppo_kl_controller) (num_ptr err, num_ptr coef_after, num_srcptr kl, size_t n,
                        num_srcptr coef, long n_steps, num_srcptr target, num_srcptr horizon,
                        int adaptive)
{
  num_t b, tg, hz, lo, hi, e, m;
  int status;
  if (!err || !coef_after)
    RLREF_ERROR ("an output is missing", RLREF_EINVAL);
  status = ppo_check_array (kl, n, "kl: n >= 1 finite KL values");
  THEN (ppo_check_above (coef, 0.0, 0, "the KL coefficient must be finite and >= 0"));
  if (adaptive)
    {
      THEN (ppo_check_above (target, 0.0, 1, "the KL target must be finite and > 0"));
      THEN (ppo_check_above (horizon, 0.0, 1, "the horizon must be finite and > 0"));
    }
  if (status)
    return status;
  if (n_steps < 0)
    RLREF_ERROR ("n_steps must be >= 0", RLREF_EDOM);
  num_init (b); num_init (tg); num_init (hz); num_init (lo); num_init (hi); num_init (e);
  num_init (m);
  num_set (b, coef);
  if (adaptive)
    {
      num_set (tg, target);
      num_set (hz, horizon);
    }
  num_set_d (lo, -0.2);
  num_set_d (hi, 0.2);
  for (size_t k = 0; k < n; k++)
    {
      if (adaptive)
        {
          num_div (e, AT (kl, k), tg);
          num_sub_d (e, e, 1.0);
          ppo_clamp (e, e, lo, hi);
          num_mul_si (m, e, n_steps);
          num_div (m, m, hz);
          num_add_d (m, m, 1.0);
          num_mul (b, b, m);
          if (!num_is_finite (b))
            FAIL ("the KL coefficient overflows", RLREF_ERANGE);
          if (num_is_zero (e))
            num_set_zero (e);
        }
      else
        num_set_zero (e);
      num_set (AT (err, k), e);
      num_set (AT (coef_after, k), b);
    }
done:
  num_clear (b); num_clear (tg); num_clear (hz); num_clear (lo); num_clear (hi); num_clear (e);
  num_clear (m);
  return status;
}

/* PPO-KLCTL early stop (003: "for each minibatch: L_CLIP, L_VF, entropy;
 * update theta; if mean(KL) > target_kl then stop"; TRL up to 0.11 tests
 * 1.5 target_kl after each epoch; Spinning Up and Stable-Baselines3 test
 * kl > 1.5 target_kl before the step). */
int
FN (ppo_early_stop) (size_t *updates, int *stopped, num_srcptr kl, size_t n,
                     num_srcptr target_kl, num_srcptr factor, int check_first)
{
  num_t thr;
  size_t u = 0;
  int status, stop = 0;
  if (!updates || !stopped)
    RLREF_ERROR ("an output is missing", RLREF_EINVAL);
  status = ppo_check_array (kl, n, "kl: n >= 1 finite KL values");
  THEN (ppo_check_above (target_kl, 0.0, 1, "target_kl must be finite and > 0"));
  THEN (ppo_check_above (factor, 0.0, 1, "the factor must be finite and > 0"));
  if (status)
    return status;
  num_init (thr);
  num_mul (thr, factor, target_kl);
  for (size_t i = 0; i < n && !stop; i++)
    {
      int over = num_cmp (AT (kl, i), thr) > 0;
      if (check_first)
        {
          stop = over;
          u += !over;
        }
      else
        {
          u++;
          stop = over;
        }
    }
  *updates = u;
  *stopped = stop;
  num_clear (thr);
  return status;
}
