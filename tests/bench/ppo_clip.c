/* ppo_clip.c -- benchmark of the PPO clipped surrogate (PPO-CLIP, seed 000
 * (13.12)) over 10^7 tokens in binary64: rlref_ppo_clip_batch, the loss
 * -mean_t min(rho_t A_t, clip(rho_t, 1 - eps, 1 + eps) A_t) and its gradient
 * with respect to logp, timed here; tests/bench/ppo_clip_torch.py times
 * PyTorch (CPU, float64, autograd) on the same bytes
 * (tests/bench/ppo_clip.sh sets the two side by side).
 *
 * Tokens from GSL's MT19937 (seed 4): logp uniform on [-10, 0),
 * old_logp = logp + 0.1 z, A standard normal (z, A by
 * gsl_ran_gaussian_ziggurat), eps = 0.2, no mask, no log-ratio clamp, no
 * dual clip (the form of TRL's PPO and of the seed).  About 2% of the
 * tokens are clipped.
 *
 * usage: ppo_clip DIR.  Writes DIR/ppo_in.f64 (logp, old_logp, A, each 10^7
 * doubles) and DIR/ppo_out.f64 (loss, then the gradient), raw doubles, and
 * prints, the best of REPS runs:
 *   ppo rlref SECONDS clipfrac F */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include "rlref/rlref.h"
#include "rlref/ppo.h"

enum { REPS = 7 };
#define NTOK 10000000UL
#define EPS 0.2

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

int
main (int argc, char **argv)
{
  rlref_ppo_clip_convention c = { 0, 0 };
  size_t n = NTOK;
  double *in = malloc (3 * n * sizeof *in), *out = malloc ((n + 1) * sizeof *out);
  double t, best = 1e30, clipfrac = 0.0;
  double *lp, *old, *adv;
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  FILE *f;
  char path[4096];
  if (argc != 2 || !in || !out || !rng)
    {
      fprintf (stderr, "usage: ppo_clip DIR\n");
      return 2;
    }
  lp = in;
  old = in + n;
  adv = in + 2 * n;
  gsl_rng_set (rng, 4);
  for (size_t i = 0; i < n; i++)
    {
      lp[i] = -10.0 * gsl_rng_uniform (rng);
      old[i] = lp[i] + 0.1 * gsl_ran_gaussian_ziggurat (rng, 1.0);
      adv[i] = gsl_ran_gaussian_ziggurat (rng, 1.0);
    }
  memset (out, 0, (n + 1) * sizeof *out);
  for (int k = 0; k < REPS; k++)
    {
      t = now ();
      if (rlref_ppo_clip_batch (out, NULL, out + 1, &clipfrac, lp, old, adv, NULL, n, &c, EPS,
                                EPS, 0.0) != RLREF_SUCCESS)
        {
          fprintf (stderr, "ppo_clip: %s\n", rlref_last_error ());
          return 1;
        }
      t = now () - t;
      best = t < best ? t : best;
    }
  snprintf (path, sizeof path, "%s/ppo_in.f64", argv[1]);
  f = fopen (path, "wb");
  if (!f || fwrite (in, sizeof *in, 3 * n, f) != 3 * n || fclose (f) != 0)
    return 1;
  snprintf (path, sizeof path, "%s/ppo_out.f64", argv[1]);
  f = fopen (path, "wb");
  if (!f || fwrite (out, sizeof *out, n + 1, f) != n + 1 || fclose (f) != 0)
    return 1;
  printf ("ppo rlref %.6f clipfrac %.4f\n", best, clipfrac);
  free (in);
  free (out);
  gsl_rng_free (rng);
  return 0;
}
