/* dpofinite_eval.c -- glue from the registry's inputs and outputs to the DPO
 * derivation on an explicit outcome set (rlref/dpofinite.h).  Compiled twice
 * (binary64 and MPFR).  The variant's data is the pair loss of DPO-EQUIV. */
#include "family_eval.h"

/* DPO-IMPLICIT-R: x = p_ref[n], r[n], beta; y = pistar[n], logz, r_hat[n],
 * residual[n]. */
RL_ENTRY (dpofinite_implicit)
{
  return LIB (dpofinite_implicit) (y[0], y[1], y[2], y[3], IN ("p_ref"), IN ("r"), LEN ("p_ref"),
                                   IN ("beta"));
}

/* DPO-ZCANCEL: x = p_ref[n], r[n], beta, (w), (l); y = h_w, h_l, margin,
 * reward_diff, p_policy, p_reward, logz. */
RL_ENTRY (dpofinite_zcancel)
{
  long w = INTS ("w")[0], l = INTS ("l")[0];
  if (w < 0 || l < 0)
    RLREF_ERROR ("w or l is not an outcome", RLREF_EINVAL);
  return LIB (dpofinite_zcancel) (y[0], y[1], y[2], y[3], y[4], y[5], y[6], IN ("p_ref"), IN ("r"),
                               LEN ("p_ref"), IN ("beta"), (size_t) w, (size_t) l);
}

/* DPO-EQUIV dpo-bt: x = p_ref[n], r[n], beta; y = logpi[n], h[n], loss,
 * grad_norm, kl. */
RL_ENTRY (dpofinite_equiv_bt)
{
  return LIB (dpofinite_equiv_bt) (y[0], y[1], y[2], y[3], y[4], IN ("p_ref"), IN ("r"),
                                   LEN ("p_ref"), IN ("beta"));
}

/* DPO-EQUIV dpo-pref, ipo: x = p_ref[n], P[n n], beta or tau; outputs as
 * dpo-bt.  P must hold n^2 entries. */
RL_ENTRY (dpofinite_equiv)
{
  size_t n = LEN ("p_ref");
  if (LEN ("P") != n * n)
    RLREF_ERROR ("P must hold n^2 entries (n x n by rows)", RLREF_EINVAL);
  return LIB (dpofinite_equiv) (y[0], y[1], y[2], y[3], y[4], IN ("p_ref"), IN ("P"), n,
                                IN_OF ("beta", "tau"),
                             *(const int *) v->data);
}
