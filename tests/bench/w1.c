/* w1.c -- benchmark W1: the bigram LM with V = 6, token 5 = EOS, T = 8
 * (488,281 sequences), logit(a | prev) = ((3 prev + 5 a) mod 7)/4 - 0.75 with
 * prev = 6 at the start, r(y) = #1s - 0.25 len(y), beta = 0.5: log Z,
 * KL(pi*||pi_ref) and E_pi*[r] at 256 bits by enumeration, and the same by
 * dynamic programming.  Prints one machine-readable line per method:
 *   rlref-enum SECONDS logZ=... kl=... estar=...
 *   rlref-dp SECONDS logZ=... kl=... estar=...
 * (tests/bench/w1.sh sets them against mpmath). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <mpfr.h>
#include "rlref/rlref.h"

enum { V = 6, EOS = 5, T = 8, PREC = 256 };

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static void
print (const char *method, double seconds, mpfr_srcptr m)
{
  mpfr_printf ("%s %.4f logZ=%.45Re kl=%.45Re estar=%.45Re\n", method, seconds,
               m + RLREF_LM_LOG_Z, m + RLREF_LM_KL_STAR_REF, m + RLREF_LM_MEAN_R_STAR);
}

int
main (void)
{
  rlref_lm lm = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_BIGRAM,
                  .truncation = RLREF_LM_KEEP, .n_rows = V + 1,
                  .reward = RLREF_REWARD_ADDITIVE };
  unsigned want = 1u << RLREF_LM_LOG_Z | 1u << RLREF_LM_KL_STAR_REF
    | 1u << RLREF_LM_MEAN_R_STAR;
  size_t n = (V + 1) * V + V + 2 + 1 + 2 * RLREF_LM_NMOMENTS;
  mpfr_ptr v = malloc (n * sizeof *v), logits, reward, beta, m, md;
  double t0, t_enum, t_dp;
  int reps = 0;
  if (!v)
    return 1;
  rlref_mp_set_prec (PREC);
  for (size_t i = 0; i < n; i++)
    mpfr_init2 (v + i, PREC);
  logits = v;
  reward = logits + (V + 1) * V;
  beta = reward + V + 2;
  m = beta + 1;
  md = m + RLREF_LM_NMOMENTS;
  for (int prev = 0; prev <= V; prev++)
    for (int a = 0; a < V; a++)
      mpfr_set_d (logits + prev * V + a, ((3 * prev + 5 * a) % 7) / 4.0 - 0.75, MPFR_RNDN);
  for (int a = 0; a < V; a++)
    mpfr_set_d (reward + a, a == 1, MPFR_RNDN);
  mpfr_set_d (reward + V, -0.25, MPFR_RNDN);
  mpfr_set_zero (reward + V + 1, 1);
  mpfr_set_d (beta, 0.5, MPFR_RNDN);
  t0 = now ();
  if (rlref_lm_moments_mp (m, &lm, logits, reward, beta, want, NULL, NULL))
    {
      fprintf (stderr, "w1: %s\n", rlref_last_error ());
      return 1;
    }
  t_enum = now () - t0;
  /* the DP takes about a millisecond: time many runs */
  t0 = now ();
  do
    {
      if (rlref_lm_moments_dp_mp (md, &lm, logits, reward, beta))
        {
          fprintf (stderr, "w1: %s\n", rlref_last_error ());
          return 1;
        }
      reps++;
    }
  while (now () - t0 < 0.5);
  t_dp = (now () - t0) / reps;
  print ("rlref-enum", t_enum, m);
  print ("rlref-dp", t_dp, md);
  for (size_t i = 0; i < n; i++)
    mpfr_clear (v + i);
  free (v);
  return 0;
}
