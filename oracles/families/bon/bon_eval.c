/* bon_eval.c -- glue from the registry's inputs and outputs to the
 * best-of-n and over-optimisation formulas.  Compiled twice (binary64 and
 * MPFR). */
#include "family_eval.h"

/* BON: x = p[K], r[K]; n an int; y = q[K], kl, bound, win. */
RL_ENTRY (bon_dist)
{
  return LIB (bon_dist) (y[0], y[1], y[2], y[3], IN ("p"), IN ("r"), LEN ("p"), INTS ("n")[0]);
}

/* OVEROPT: x = kl, alpha, beta; y = d, value, d_star, peak; the variant's
 * data is the functional form. */
RL_ENTRY (overopt)
{
  const int *form = v->data;
  (void) a;
  return LIB (overopt) (y[0], y[1], y[2], y[3], IN ("kl"), IN ("alpha"), IN ("beta"),
                        (rlref_overopt_form) *form);
}
