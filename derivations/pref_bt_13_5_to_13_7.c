/* pref_bt_13_5_to_13_7.c -- seed 000 section 2.1, checked step by step at
 * 256 bits: the Bradley-Terry probability (13.5) becomes the sigmoid of the
 * score difference (13.6), which is shift invariant, whose negative log is
 * the reward-model loss (13.7); and the worked example: 8 of 10 annotators
 * give the maximum-likelihood difference log 4.
 *
 * Each step prints its residual and its bound; the program exits 1 if a
 * residual exceeds its bound. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

/* (13.5) as printed: e^{r_w} / (e^{r_w} + e^{r_l}) (MPFR's exponent range
 * makes the literal form safe here). */
static void
bt_13_5 (mpfr_ptr p, mpfr_srcptr rw, mpfr_srcptr rl)
{
  mpfr_t a, b;
  mpfr_inits2 (PREC, a, b, (mpfr_ptr) 0);
  mpfr_exp (a, rw, MPFR_RNDN);
  mpfr_exp (b, rl, MPFR_RNDN);
  mpfr_add (b, a, b, MPFR_RNDN);
  mpfr_div (p, a, b, MPFR_RNDN);
  mpfr_clears (a, b, (mpfr_ptr) 0);
}

/* Step 1 of the seed: numerator and denominator divided by e^{r_w}:
 * 1 / (1 + e^{-(r_w - r_l)}). */
static void
bt_step1 (mpfr_ptr p, mpfr_srcptr rw, mpfr_srcptr rl)
{
  mpfr_t d;
  mpfr_init2 (d, PREC);
  mpfr_sub (d, rl, rw, MPFR_RNDN);
  mpfr_exp (d, d, MPFR_RNDN);
  mpfr_add_ui (d, d, 1, MPFR_RNDN);
  mpfr_ui_div (p, 1, d, MPFR_RNDN);
  mpfr_clear (d);
}

static void
pair (double rw_d, double rl_d)
{
  mpfr_t rw, rl, p5, p1, p6, c, q, loss, nll, g, fd, h, lp, lm, t;
  char label[96];
  mpfr_inits2 (PREC, rw, rl, p5, p1, p6, c, q, loss, nll, g, fd, h, lp, lm, t, (mpfr_ptr) 0);
  mpfr_set_d (rw, rw_d, MPFR_RNDN);
  mpfr_set_d (rl, rl_d, MPFR_RNDN);
  printf ("pair r_w = %g, r_l = %g\n", rw_d, rl_d);

  bt_13_5 (p5, rw, rl);
  bt_step1 (p1, rw, rl);
  OK (rlref_bt_prob_mp (p6, rw, rl));
  step ("(13.5) -> step 1: divide by e^{r_w}", p1, p5, 1, -250);
  step ("step 1 -> (13.6): sigma(r_w - r_l), stable form", p6, p1, 1, -250);

  /* shift invariance: only the difference matters */
  for (int k = 0; k < 3; k++)
    {
      const double shift[] = { 100.0, -1000.0, 1e4 };
      mpfr_add_d (c, rw, shift[k], MPFR_RNDN);
      mpfr_add_d (q, rl, shift[k], MPFR_RNDN);
      bt_13_5 (q, c, q);
      snprintf (label, sizeof label, "shift both scores by %g: (13.5) unchanged", shift[k]);
      step (label, q, p5, 1, -240);
    }

  /* (13.6) -> (13.7): the loss is the negative log-likelihood */
  mpfr_log (nll, p5, MPFR_RNDN);
  mpfr_neg (nll, nll, MPFR_RNDN);
  mpfr_set_zero (c, 1);
  OK (rlref_rm_loss_mp (loss, g, NULL, rw, rl, 1, c));
  /* absolute: log p for p near 1 loses the relative digits of 1 - p */
  step ("(13.7): -log (13.5) = softplus(-(r_w - r_l))", loss, nll, 0, -248);

  /* d loss / d r_w by central differences, h = 2^-60 */
  mpfr_set_ui_2exp (h, 1, -60, MPFR_RNDN);
  mpfr_add (t, rw, h, MPFR_RNDN);
  OK (rlref_rm_loss_mp (lp, NULL, NULL, t, rl, 1, c));
  mpfr_sub (t, rw, h, MPFR_RNDN);
  OK (rlref_rm_loss_mp (lm, NULL, NULL, t, rl, 1, c));
  mpfr_sub (fd, lp, lm, MPFR_RNDN);
  mpfr_div (fd, fd, h, MPFR_RNDN);
  mpfr_div_2ui (fd, fd, 1, MPFR_RNDN);
  step ("gradient of (13.7): -sigma(-(r_w - r_l)) vs central difference", g, fd, 0, -100);
  mpfr_clears (rw, rl, p5, p1, p6, c, q, loss, nll, g, fd, h, lp, lm, t, (mpfr_ptr) 0);
}

/* The worked example: 8 of 10 prefer A.  The likelihood
 * L(D) = 8 log sigma(D) + 2 log sigma(-D) is stationary at D = log(8/2);
 * the GSL + Newton fit finds it; sigma(log 4) = 0.8; sigma(1.5) ~ 0.82. */
static void
worked_example (void)
{
  mpfr_t log4, dL, s, t, w, scores, fit, p, half, zero, approx;
  __mpfr_struct wins[4], sc[2];
  printf ("worked example (000 section 2.1)\n");
  mpfr_inits2 (PREC, log4, dL, s, t, w, scores, fit, p, half, zero, approx, (mpfr_ptr) 0);
  mpfr_set_ui (log4, 4, MPFR_RNDN);
  mpfr_log (log4, log4, MPFR_RNDN);

  /* dL/dD = 8 sigma(-D) - 2 sigma(D) at D = log 4 */
  mpfr_neg (t, log4, MPFR_RNDN);
  OK (rlref_sigmoid_mp (s, t));
  mpfr_mul_ui (dL, s, 8, MPFR_RNDN);
  OK (rlref_sigmoid_mp (s, log4));
  mpfr_mul_ui (s, s, 2, MPFR_RNDN);
  mpfr_sub (dL, dL, s, MPFR_RNDN);
  mpfr_set_zero (zero, 1);
  step ("d/dD [8 log sigma(D) + 2 log sigma(-D)] = 0 at D = log 4", dL, zero, 0, -250);

  for (int i = 0; i < 4; i++)
    mpfr_init2 (&wins[i], PREC), mpfr_set_zero (&wins[i], 1);
  for (int i = 0; i < 2; i++)
    mpfr_init2 (&sc[i], PREC);
  mpfr_set_ui (&wins[1], 8, MPFR_RNDN);
  mpfr_set_ui (&wins[2], 2, MPFR_RNDN);
  rlref_mp_set_prec (PREC);
  if (rlref_bt_mle_mp (sc, NULL, wins, 2) != RLREF_SUCCESS)
    {
      printf ("  maximum-likelihood fit failed: %s\n", rlref_last_error ());
      failures++;
    }
  else
    {
      mpfr_sub (fit, &sc[0], &sc[1], MPFR_RNDN);
      step ("fitted r(A) - r(B) (GSL start, Newton polish) = log 4", fit, log4, 1, -240);
      mpfr_add (t, &sc[0], &sc[1], MPFR_RNDN);
      step ("fitted scores sum to 0 (the gauge)", t, zero, 0, -240);
    }
  OK (rlref_sigmoid_mp (p, log4));
  mpfr_set_ui (t, 4, MPFR_RNDN);
  mpfr_div_ui (t, t, 5, MPFR_RNDN);
  step ("sigma(log 4) = 8/10", p, t, 1, -250);

  mpfr_set_d (t, 1.5, MPFR_RNDN);
  OK (rlref_sigmoid_mp (p, t));
  mpfr_set_d (approx, 0.82, MPFR_RNDN);
  step ("the seed's sigma(1.5) ~ 0.82 (two printed digits)", p, approx, 0, -7);

  OK (rlref_sigmoid_mp (p, zero));
  mpfr_set_d (half, 0.5, MPFR_RNDN);
  step ("equal quality: sigma(0) = 1/2", p, half, 0, -250);
  for (int i = 0; i < 4; i++)
    mpfr_clear (&wins[i]);
  for (int i = 0; i < 2; i++)
    mpfr_clear (&sc[i]);
  mpfr_clears (log4, dL, s, t, w, scores, fit, p, half, zero, approx, (mpfr_ptr) 0);
}

int
main (void)
{
  const double pairs[][2] = { { 1.5, 0.0 }, { 1.0, 0.2 }, { -3.25, 2.0 }, { 40.0, 0.0 },
                              { -700.0, 0.0 }, { 10000.0, -10000.0 } };
  rlref_mp_set_prec (PREC);
  printf ("Seed 000 (13.5) -> (13.6) -> (13.7) at %d bits\n\n", PREC);
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    pair (pairs[i][0], pairs[i][1]);
  worked_example ();
  return finish ();
}
