/* pref_pairs_and_pl.c -- seed 000 section 10.1, the C(K,2) pairs of a
 * ranking against Plackett-Luce, checked at 256 bits:
 *   1. the pairwise log-likelihood of counted rankings,
 *      sum_m c_m sum_{k<l} log sigma(s_{pi_m,k} - s_{pi_m,l}), is the
 *      Bradley-Terry log-likelihood sum_{i != j} W_ij log sigma(s_i - s_j)
 *      of the pair counts W_ij = sum of c_m over the rankings placing i
 *      above j, so its maximum is the Bradley-Terry fit of W;
 *   2. a Plackett-Luce pair marginal is Bradley-Terry: the probability,
 *      summed over the K! rankings, that i is ranked above j is
 *      sigma(s_i - s_j);
 *   3. hence with counts equal to the Plackett-Luce probabilities of
 *      scores s, the expected pairwise score vanishes at s, and both fits
 *      return s minus its mean.
 *
 * Each step prints its residual and its bound; the program exits 1 if a
 * residual exceeds its bound. */
#include <stdio.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

#define K 4
#define NPERM 24

static const double S[K] = { 1.25, -0.5, 2.0, 0.0 };

/* Every ranking of K items, and its Plackett-Luce probability under S. */
static void
all_rankings (long *rk, __mpfr_struct *prob, __mpfr_struct *s)
{
  long pi[K] = { 0, 1, 2, 3 };
  int m = 0;
  do
    {
      for (int k = 0; k < K; k++)
        rk[m * K + k] = pi[k];
      OK (rlref_pl_logprob_mp (&prob[m], NULL, s, pi, K));
      mpfr_exp (&prob[m], &prob[m], MPFR_RNDN);
      m++;
    }
  while (next_permutation (pi, K));
}

int
main (void)
{
  __mpfr_struct s[K], prob[NPERM], w[K * K], fit[K], pl[K], g[K];
  long rk[NPERM * K];
  mpfr_t a, b, t, ls, mean, sum;
  char label[112];
  rlref_mp_set_prec (PREC);
  mpfr_inits2 (PREC, a, b, t, ls, mean, sum, (mpfr_ptr) 0);
  for (int i = 0; i < K; i++)
    {
      mpfr_init2 (&s[i], PREC), mpfr_set_d (&s[i], S[i], MPFR_RNDN);
      mpfr_init2 (&fit[i], PREC), mpfr_init2 (&pl[i], PREC), mpfr_init2 (&g[i], PREC);
    }
  for (int i = 0; i < NPERM; i++)
    mpfr_init2 (&prob[i], PREC);
  for (int i = 0; i < K * K; i++)
    mpfr_init2 (&w[i], PREC);
  printf ("Seed 000 section 10.1: a ranking as its C(K,2) pairs, at %d bits\n", PREC);
  all_rankings (rk, prob, s);

  /* 1. the pairwise log-likelihood is the Bradley-Terry one of W */
  OK (rlref_pairs_wins_mp (w, rk, prob, NPERM, K));
  mpfr_set_zero (a, 1);
  for (int m = 0; m < NPERM; m++)
    {
      OK (rlref_pairs_loss_mp (t, ls, NULL, s, rk + m * K, K, 0));
      mpfr_mul (ls, ls, &prob[m], MPFR_RNDN);
      mpfr_add (a, a, ls, MPFR_RNDN);
    }
  mpfr_set_zero (b, 1);
  for (int i = 0; i < K; i++)
    for (int j = 0; j < K; j++)
      if (i != j)
        {
          mpfr_sub (t, &s[i], &s[j], MPFR_RNDN);
          OK (rlref_log_sigmoid_mp (ls, t));
          mpfr_mul (ls, ls, &w[i * K + j], MPFR_RNDN);
          mpfr_add (b, b, ls, MPFR_RNDN);
        }
  step ("sum_m c_m sum_pairs log sigma = sum_ij W_ij log sigma(s_i - s_j)", a, b, 1, -240);

  /* 2. a Plackett-Luce pair marginal is Bradley-Terry */
  for (int i = 0; i < K; i++)
    for (int j = i + 1; j < K; j++)
      {
        mpfr_sub (t, &s[i], &s[j], MPFR_RNDN);
        OK (rlref_sigmoid_mp (ls, t));
        snprintf (label, sizeof label, "P(%d above %d) = sum of the PL probabilities = "
                  "sigma(s_%d - s_%d)", i, j, i, j);
        step (label, &w[i * K + j], ls, 1, -240);
      }

  /* 3. expected counts: the pairwise score is zero at s, both fits are s - mean */
  for (int i = 0; i < K; i++)
    mpfr_set_zero (&g[i], 1);
  for (int m = 0; m < NPERM; m++)
    {
      OK (rlref_pairs_loss_mp (t, ls, fit, s, rk + m * K, K, 0));
      for (int i = 0; i < K; i++)
        {
          mpfr_mul (t, &fit[i], &prob[m], MPFR_RNDN);
          mpfr_add (&g[i], &g[i], t, MPFR_RNDN);
        }
    }
  mpfr_set_zero (t, 1);
  for (int i = 0; i < K; i++)
    {
      snprintf (label, sizeof label, "expected pairwise score d/ds_%d vanishes at s", i);
      step (label, &g[i], t, 0, -240);
    }
  OK (rlref_pairs_mle_mp (fit, NULL, rk, prob, NPERM, K));
  OK (rlref_pl_mle_mp (pl, NULL, rk, prob, NPERM, K));
  mpfr_set_zero (sum, 1);
  for (int i = 0; i < K; i++)
    mpfr_add (sum, sum, &s[i], MPFR_RNDN);
  mpfr_div_ui (mean, sum, K, MPFR_RNDN);
  for (int i = 0; i < K; i++)
    {
      mpfr_sub (t, &s[i], mean, MPFR_RNDN);
      snprintf (label, sizeof label, "pairwise fit of the expected counts: s_%d - mean", i);
      step (label, &fit[i], t, 0, -200);
      snprintf (label, sizeof label, "Plackett-Luce fit of the expected counts: s_%d - mean", i);
      step (label, &pl[i], t, 0, -200);
    }

  for (int i = 0; i < K; i++)
    mpfr_clear (&s[i]), mpfr_clear (&fit[i]), mpfr_clear (&pl[i]), mpfr_clear (&g[i]);
  for (int i = 0; i < NPERM; i++)
    mpfr_clear (&prob[i]);
  for (int i = 0; i < K * K; i++)
    mpfr_clear (&w[i]);
  mpfr_clears (a, b, t, ls, mean, sum, (mpfr_ptr) 0);
  return finish ();
}
