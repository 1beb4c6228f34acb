/* smoke.c -- compiled against an installed rlref (pkg-config rlref): both
 * precisions of one formula, and a status for bad input. */
#include <stdio.h>
#include <math.h>
#include <rlref/rlref.h>

int
main (void)
{
  double rw = 1.5, rl = 0.0, p;
  mpfr_t P, RW, RL;
  int ok;
  ok = rlref_bt_prob_d (&p, &rw, &rl) == RLREF_SUCCESS;
  mpfr_inits2 (256, P, RW, RL, (mpfr_ptr) 0);
  mpfr_set_d (RW, 1.5, MPFR_RNDN);
  mpfr_set_d (RL, 0.0, MPFR_RNDN);
  ok = ok && rlref_bt_prob_mp (P, RW, RL) == RLREF_SUCCESS;
  /* sigma(1.5) = 0.81757447619364365960721717865... */
  ok = ok && fabs (p - 0.8175744761936437) < 1e-16
       && fabs (mpfr_get_d (P, MPFR_RNDN) - p) < 1e-16;
  rw = NAN;
  ok = ok && rlref_bt_prob_d (&p, &rw, &rl) == RLREF_ENAN;
  mpfr_clears (P, RW, RL, (mpfr_ptr) 0);
  printf ("install smoke test: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
