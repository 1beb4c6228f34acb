/* mdp_reward.c -- the expected reward of a finite MDP whose reward depends
 * on the next state, written once for both backends (seed 003 section 1:
 * r(s, a) = E[R | s, a]). */
#include "rlref/num.h"
#include "rlref/mdp.h"
#include "mdp_impl.h"

/* r(s, a) = sum_s' P(s' | s, a) R(s, a, s'), each one exactly rounded dot
 * product (exact products and sum, one rounding). */
int
FN (mdp_expected_reward) (num_ptr r, num_srcptr P, num_srcptr R, size_t S, size_t A)
{
  if (!P || !R || S == 0 || A == 0)
    RLREF_ERROR ("an MDP has at least one state and one action", RLREF_EINVAL);
  for (size_t i = 0; i < S * A * S; i++)
    if (!num_is_finite (AT (P, i)) || !num_is_finite (AT (R, i)))
      RLREF_ERROR ("non-finite transition probability or reward", RLREF_ENAN);
  for (size_t i = 0; i < S * A; i++)
    {
      int status = num_dot (AT (r, i), AT (P, i * S), AT (R, i * S), S);
      if (status)
        return status;
    }
  return RLREF_SUCCESS;
}
