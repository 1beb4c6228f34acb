/* pref_gumbel_and_pl.c -- seed 000 sections 2.1 and 10.1, checked at 256
 * bits: Bradley-Terry is the argmax of scores plus independent Gumbel noise
 * (the integral of f(x) F(x + D) equals sigma(D)); Plackett-Luce over K
 * items is a probability distribution over the K! rankings, and with K = 2
 * it is Bradley-Terry, so its loss is the reward-model loss (13.7).
 *
 * Each step prints its residual and its bound; the program exits 1 if a
 * residual exceeds its bound. */
#include <stdio.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

/* The Gumbel integral by quadrature against sigma(D), and against the
 * closed form after u = e^-x:  int_0^inf e^{-u (1 + e^-D)} du = 1/(1 + e^-D). */
static void
gumbel (double D)
{
  mpfr_t rw, rl, quad, sig, closed;
  char label[96];
  mpfr_inits2 (PREC, rw, rl, quad, sig, closed, (mpfr_ptr) 0);
  mpfr_set_d (rw, D, MPFR_RNDN);
  mpfr_set_zero (rl, 1);
  OK (rlref_bt_gumbel_integral_mp (quad, rw, rl));
  OK (rlref_sigmoid_mp (sig, rw));
  mpfr_neg (closed, rw, MPFR_RNDN);
  mpfr_exp (closed, closed, MPFR_RNDN);
  mpfr_add_ui (closed, closed, 1, MPFR_RNDN);
  mpfr_ui_div (closed, 1, closed, MPFR_RNDN);
  snprintf (label, sizeof label, "D = %g: u = e^-x gives 1/(1 + e^-D) = sigma(D)", D);
  step (label, closed, sig, 1, -250);
  snprintf (label, sizeof label, "D = %g: quadrature of int f(x) F(x + D) dx = sigma(D)", D);
  step (label, quad, sig, 1, -200);
  mpfr_clears (rw, rl, quad, sig, closed, (mpfr_ptr) 0);
}

/* sum over the K! rankings of P(ranking) = 1. */
static void
pl_sums_to_one (void)
{
  const double s_d[4] = { 1.25, -0.5, 2.0, 0.0 };
  __mpfr_struct s[4];
  long pi[4] = { 0, 1, 2, 3 };
  mpfr_t lp, total, one;
  mpfr_inits2 (PREC, lp, total, one, (mpfr_ptr) 0);
  for (int i = 0; i < 4; i++)
    mpfr_init2 (&s[i], PREC), mpfr_set_d (&s[i], s_d[i], MPFR_RNDN);
  mpfr_set_zero (total, 1);
  do
    {
      OK (rlref_pl_logprob_mp (lp, NULL, s, pi, 4));
      mpfr_exp (lp, lp, MPFR_RNDN);
      mpfr_add (total, total, lp, MPFR_RNDN);
    }
  while (next_permutation (pi, 4));
  mpfr_set_ui (one, 1, MPFR_RNDN);
  step ("K = 4: the 24 Plackett-Luce ranking probabilities sum to 1", total, one, 0, -248);
  for (int i = 0; i < 4; i++)
    mpfr_clear (&s[i]);
  mpfr_clears (lp, total, one, (mpfr_ptr) 0);
}

/* K = 2: log P(w before l) = log sigma(s_w - s_l), and -log P is (13.7). */
static void
pl_is_bt (double sw, double sl)
{
  __mpfr_struct s[2];
  long pi[2] = { 0, 1 };
  mpfr_t lp, ls, loss, c, d;
  char label[96];
  mpfr_inits2 (PREC, lp, ls, loss, c, d, (mpfr_ptr) 0);
  mpfr_init2 (&s[0], PREC);
  mpfr_init2 (&s[1], PREC);
  mpfr_set_d (&s[0], sw, MPFR_RNDN);
  mpfr_set_d (&s[1], sl, MPFR_RNDN);
  OK (rlref_pl_logprob_mp (lp, NULL, s, pi, 2));
  mpfr_sub (d, &s[0], &s[1], MPFR_RNDN);
  OK (rlref_log_sigmoid_mp (ls, d));
  snprintf (label, sizeof label, "K = 2, s = (%g, %g): log P = log sigma(s_w - s_l)", sw, sl);
  step (label, lp, ls, 1, -250);
  mpfr_set_zero (c, 1);
  OK (rlref_rm_loss_mp (loss, NULL, NULL, &s[0], &s[1], 1, c));
  mpfr_neg (lp, lp, MPFR_RNDN);
  snprintf (label, sizeof label, "K = 2, s = (%g, %g): -log P = RM loss (13.7)", sw, sl);
  step (label, lp, loss, 1, -250);
  mpfr_clear (&s[0]);
  mpfr_clear (&s[1]);
  mpfr_clears (lp, ls, loss, c, d, (mpfr_ptr) 0);
}

int
main (void)
{
  const double D[] = { 1.5, 0.0, -3.25, 12.0, -40.0 };
  rlref_mp_set_prec (PREC);
  printf ("Seed 000 section 2.1: Bradley-Terry as the argmax of Gumbel-perturbed scores, at %d bits\n",
          PREC);
  for (size_t i = 0; i < sizeof D / sizeof D[0]; i++)
    gumbel (D[i]);
  printf ("Seed 000 section 10.1: Plackett-Luce\n");
  pl_sums_to_one ();
  pl_is_bt (1.5, 0.0);
  pl_is_bt (-2.0, 3.0);
  pl_is_bt (40.0, 0.0);
  return finish ();
}
