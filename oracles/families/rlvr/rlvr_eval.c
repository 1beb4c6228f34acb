/* rlvr_eval.c -- glue from the registry's inputs and outputs to the
 * verifiable-reward formulas.  Compiled twice (binary64 and MPFR). */
#include "family_eval.h"

/* RLVR-REWARD verify: x = answers[n], reference; y = reward[n]; the
 * variant's data is the verifier. */
RL_ENTRY (verify_reward)
{
  return LIB (verify_reward) (y[0], IN ("answers"), LEN ("answers"), IN ("reference"), v->data);
}

/* RLVR-REWARD aggregate: x = step_scores[n]; y = score. */
RL_ENTRY (prm_aggregate)
{
  const enum rlref_prm_aggregation *how = v->data;
  return LIB (prm_aggregate) (y[0], IN ("step_scores"), LEN ("step_scores"), *how);
}

/* RLVR-REWARD-EX: x = answers[n], reference; y = reward[n], correct, mean,
 * adv[n]; advantages under seed 000's convention (13.23, ddof 0). */
RL_ENTRY (verify_group)
{
  const rlref_adv_convention *c = rlref_adv_convention_find ("seed-000");
  if (!c)
    RLREF_ERROR ("RLVR-REWARD-EX: no seed-000 advantage convention", RLREF_EINVAL);
  return LIB (verify_group) (y[0], y[1], y[2], y[3], IN ("answers"), LEN ("answers"),
                             IN ("reference"), v->data, c);
}

/* RLVR-PRM-MC soft and hard: parent, correct, path ints, x = weight; N an
 * int; y = label[L], var[L]. */
RL_ENTRY (prm_mc_expect)
{
  const enum rlref_prm_label *kind = v->data;
  if (LEN ("parent") > 100000 || LEN ("path") > 100000)
    RLREF_ERROR ("RLVR-PRM-MC takes trees and paths of up to 100000 nodes", RLREF_EINVAL);
  return LIB (prm_mc_expect) (y[0], y[1], INTS ("parent"), IN ("weight"), INTS ("correct"),
                              LEN ("parent"), INTS ("path"),
                              LEN ("path"), INTS ("N")[0], *kind);
}

/* RLVR-PRM-MC soft-count and hard-count: hits[L] and N ints; y = label[L]. */
RL_ENTRY (prm_mc_label)
{
  const enum rlref_prm_label *kind = v->data;
  (void) x;
  return LIB (prm_mc_label) (y[0], INTS ("hits"), LEN ("hits"), INTS ("N")[0], *kind);
}

/* --- sensitivities: the formulas' own derivatives (MPFR only) --------- */

#ifdef RLREF_MP

/* RLVR-REWARD aggregate: x = step_scores[n]; y = score. */
rl_sens_mp_fn rl_sens_prm_aggregate;
int
rl_sens_prm_aggregate (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                       const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  (void) nondiff;
  return LIB (prm_aggregate_sens) (s[0], IN ("step_scores"), LEN ("step_scores"), y[0],
                                   *(const enum rlref_prm_aggregation *) v->data);
}

#endif
