/* grpo_13_28_rloo.c -- seed 000 (13.28) and (13.28'), checked at 256 bits:
 *   13.28   the leave-one-out advantage A_i = r_i - (sum_{j != i} r_j)/(G - 1)
 *           (GRPO-RLOO, against the formula written out with mpfr_sum) and
 *           r_i - mean = ((G - 1)/G) A_i, for G = 2, 8, 64, 1000; the seed's
 *           numbers 0.875 (G = 8) and 0.984375 (G = 64);
 *   13.28'  for i.i.d. rewards of variance sigma^2, Var[mean of G] =
 *           sigma^2/G and Var[b_loo] = sigma^2/(G - 1): both by enumerating
 *           every G-tuple of a three-valued reward (K^G tuples, exact
 *           expectations) against GRPO-VAR; the seed's readings: G = 2 gives
 *           Var[b_loo] = sigma^2, 8 -> 16 removes sigma^2/16, 64 -> 128
 *           sigma^2/128;
 *   MC      the seeded Monte-Carlo run (20000 groups of 8) within 2^-4
 *           relative of the exact values (its standard error is about 1%).
 * Each step prints its residual and its bound; exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

/* 13.28 on G rewards r_i = ((37 i) mod 11)/4 - 1 + 2^-40 i. */
static void
loo (size_t G)
{
  mpfr_ptr r = mp_vec (G), l = mp_vec (G), c = mp_vec (G), s = mp_vec (4), d = mp_vec (G);
  char label[128];
  for (size_t i = 0; i < G; i++)
    mpfr_set_d (r + i, ((37 * i) % 11) / 4.0 - 1 + i * 0x1p-40, MPFR_RNDN);
  OK (rlref_rloo_identity_mp (l, c, s, r, G, G));
  /* written out: S = sum r (exact), A_i = r_i - (S - r_i)/(G - 1) */
  {
    mpfr_ptr *p = malloc (G * sizeof *p);
    for (size_t i = 0; i < G; i++)
      p[i] = r + i;
    mpfr_sum (s + 1, p, G, MPFR_RNDN);
    free (p);
  }
  for (size_t i = 0; i < G; i++)
    {
      mpfr_sub (d + i, s + 1, r + i, MPFR_RNDN);
      mpfr_div_ui (d + i, d + i, (unsigned long) G - 1, MPFR_RNDN);
      mpfr_sub (d + i, r + i, d + i, MPFR_RNDN);
    }
  mp_maxdiff (s + 2, l, d, G);
  mpfr_set_zero (s + 3, 1);
  snprintf (label, sizeof label, "G = %zu: A_loo = r_i - (S - r_i)/(G - 1) (13.28)", G);
  step (label, s + 2, s + 3, 0, -240);
  for (size_t i = 0; i < G; i++)
    mpfr_mul (d + i, l + i, s, MPFR_RNDN);
  mp_maxdiff (s + 2, c, d, G);
  snprintf (label, sizeof label, "G = %zu: r_i - mean = ((G - 1)/G) A_loo", G);
  step (label, s + 2, s + 3, 0, -240);
  mpfr_set_ui (s + 2, (unsigned long) G - 1, MPFR_RNDN);
  mpfr_div_ui (s + 2, s + 2, (unsigned long) G, MPFR_RNDN);
  snprintf (label, sizeof label, "G = %zu: scale = (G - 1)/G = %.6g", G, (G - 1.0) / G);
  step (label, s, s + 2, 0, -300);
  mp_vec_free (r, G);
  mp_vec_free (l, G);
  mp_vec_free (c, G);
  mp_vec_free (s, 4);
  mp_vec_free (d, G);
}

static const double vals[3] = { 0.3, -1, 2.5 };
static const long wts[3] = { 3, 5, 2 };

/* E[mean^2] - E[mean]^2 over every G-tuple (n = G values averaged), and
 * the same for the average of n = G - 1 values (b_loo). */
static void
tuple_var (mpfr_ptr var, int n)
{
  mpfr_t e1, e2, p, x, t;
  int idx[16] = { 0 };
  mpfr_inits2 (PREC, e1, e2, p, x, t, (mpfr_ptr) 0);
  mpfr_set_zero (e1, 1);
  mpfr_set_zero (e2, 1);
  for (;;)
    {
      mpfr_set_ui (p, 1, MPFR_RNDN);
      mpfr_set_zero (x, 1);
      for (int k = 0; k < n; k++)
        {
          mpfr_mul_ui (p, p, (unsigned long) wts[idx[k]], MPFR_RNDN);
          mpfr_div_ui (p, p, 10, MPFR_RNDN);
          mpfr_set_d (t, vals[idx[k]], MPFR_RNDN);
          mpfr_add (x, x, t, MPFR_RNDN);
        }
      mpfr_div_ui (x, x, (unsigned long) n, MPFR_RNDN);
      mpfr_fma (e1, p, x, e1, MPFR_RNDN);
      mpfr_mul (t, x, x, MPFR_RNDN);
      mpfr_fma (e2, p, t, e2, MPFR_RNDN);
      int k = 0;
      while (k < n && ++idx[k] == 3)
        idx[k++] = 0;
      if (k == n)
        break;
    }
  mpfr_sqr (t, e1, MPFR_RNDN);
  mpfr_sub (var, e2, t, MPFR_RNDN);
  mpfr_clears (e1, e2, p, x, t, (mpfr_ptr) 0);
}

static void
variances (void)
{
  mpfr_ptr v = mp_vec (3), o = mp_vec (8);
  char label[128];
  mp_vec_set_d (v, vals, 3);
  printf ("\n13.28': rewards 0.3, -1, 2.5 with probabilities 0.3, 0.5, 0.2\n");
  for (long G = 2; G <= 6; G++)
    {
      OK (rlref_baseline_var_mp (o, o + 1, o + 2, o + 3, v, wts, 3, G));
      tuple_var (o + 4, (int) G);
      snprintf (label, sizeof label, "G = %ld: Var[mean] over all %d-tuples = sigma^2/G", G,
                (int) G);
      step (label, o + 4, o + 1, 1, -230);
      tuple_var (o + 4, (int) G - 1);
      snprintf (label, sizeof label, "G = %ld: Var[b_loo] over all %d-tuples = sigma^2/(G - 1)", G,
                (int) G - 1);
      step (label, o + 4, o + 2, 1, -230);
    }
  OK (rlref_baseline_var_mp (o, o + 1, o + 2, o + 3, v, wts, 3, 2));
  step ("G = 2: Var[b_loo] = sigma^2 (the baseline as noisy as the signal)", o + 2, o, 1, -240);
  {
    static const long from[2] = { 8, 64 };
    for (int k = 0; k < 2; k++)
      {
        OK (rlref_baseline_var_mp (o, o + 1, NULL, o + 3, v, wts, 3, from[k]));
        OK (rlref_baseline_var_mp (o + 4, o + 5, NULL, NULL, v, wts, 3, 2 * from[k]));
        mpfr_sub (o + 6, o + 1, o + 5, MPFR_RNDN);
        mpfr_div_ui (o + 7, o, (unsigned long) (2 * from[k]), MPFR_RNDN);
        snprintf (label, sizeof label, "G = %ld -> %ld removes sigma^2/%ld of Var[mean]", from[k],
                  2 * from[k], 2 * from[k]);
        step (label, o + 6, o + 7, 1, -240);
      }
  }
  /* the seeded run against the exact values */
  OK (rlref_baseline_var_mp (o, o + 1, o + 2, NULL, v, wts, 3, 8));
  OK (rlref_baseline_var_mc_mp (o + 4, o + 5, v, wts, 3, 8, 20000, 2026));
  step ("Monte Carlo, 20000 groups of 8: Var[mean] near sigma^2/8", o + 4, o + 1, 1, -4);
  step ("Monte Carlo, 20000 groups of 8: Var[b_loo] near sigma^2/7", o + 5, o + 2, 1, -4);
  mp_vec_free (v, 3);
  mp_vec_free (o, 8);
}

int
main (void)
{
  static const size_t Gs[4] = { 2, 8, 64, 1000 };
  rlref_mp_set_prec (PREC);
  printf ("Seed 000 (13.28): the leave-one-out advantage and the group-mean baseline\n");
  for (int k = 0; k < 4; k++)
    loo (Gs[k]);
  variances ();
  return finish ();
}
