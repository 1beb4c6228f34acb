/* w3.c -- benchmark W3 (issue: a batch API): the DPO sigmoid loss and its
 * gradient for 10^6 pairs in binary64, rlref_dpo_loss_batch, timed here;
 * tests/bench/w3_torch.py times PyTorch (CPU, float64) on the same bytes
 * (tests/bench/w2w3.sh sets the two side by side).
 *
 * Pairs from GSL's MT19937 (seed 3): logp_w, logp_l uniform on [-200, 0),
 * ref_w = logp_w + 2 z_w, ref_l = logp_l + 2 z_l (z standard normal), so
 * D has standard deviation about 2.8; beta = 0.1.  Also timed: the bare
 * elementary functions of the scalar kernel, one exp and one log1p per
 * pair of glibc's libm (what it cannot go below without another libm).
 * The workload runs rlref_dpo_sigmoid_batch_simd (SLEEF on AVX2 when the
 * library was built with it, else rlref_dpo_loss_batch); the bit-exact
 * rlref_dpo_loss_batch is timed beside it.  The memory floor: a plain pass
 * that reads the four arrays and writes two (grad_w = D, grad_l = -D), in
 * the kernel's 8 chunks on the same threads (rlref_batch_run), on 2
 * threads and on 1: no kernel that reads its inputs and writes its
 * gradients goes below it.
 *
 * usage: w3 DIR.  Writes DIR/w3_in.f64 (logp_w, logp_l, ref_w, ref_l, each
 * 10^6 doubles) and DIR/w3_out.f64 (loss, grad_w, grad_l), raw doubles,
 * and prints, each the best of REPS runs:
 *   w3 rlref SECONDS rlref1 SECONDS exact SECONDS libm SECONDS floor SECONDS
 *      floor1 SECONDS path NAME
 * (one line) rlref on 2 threads (rlref_batch_set_threads; the same bits),
 * rlref1 on 1, exact the bit-exact kernel (1 thread), floor and floor1 the
 * memory floor on 2 threads and on 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include "rlref/rlref.h"
#include "rlref/batch.h"
#include "batch_threads.h"

enum { REPS = 9 };
#define NPAIRS 1000000UL
#define BETA 0.1

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

/* One exp and one log1p per pair, as the kernel calls them. */
static double __attribute__ ((noinline))
libm_only (const double *x, size_t n)
{
  double s = 0.0;
  for (size_t i = 0; i < n; i++)
    s += log1p (exp (-fabs (x[i])));
  return s;
}

/* The memory floor: the four inputs read, two outputs written, chunk k of
 * BATCH_CHUNKS as the kernel splits them. */
typedef struct
{
  double *gw, *gl;
  const double *pw, *pl, *rw, *rl;
  size_t n;
} floor_job;

static void
floor_chunk (void *arg, size_t k)
{
  floor_job *j = arg;
  size_t first = j->n * k / BATCH_CHUNKS, last = j->n * (k + 1) / BATCH_CHUNKS;
  for (size_t i = first; i < last; i++)
    {
      double d = (j->pw[i] - j->rw[i]) - (j->pl[i] - j->rl[i]);
      j->gw[i] = d;
      j->gl[i] = -d;
    }
}

int
main (int argc, char **argv)
{
  rlref_dpo_convention c = { RLREF_DPO_SIGMOID, 0, 0 };
  size_t n = NPAIRS;
  double *in = malloc (4 * n * sizeof *in), *out = malloc ((2 * n + 1) * sizeof *out);
  double *z = malloc (n * sizeof *z), t, best = 1e30, bestl = 1e30, beste = 1e30, best1 = 1e30;
  double bestf = 1e30, bestf1 = 1e30, sink = 0;
  double *pw, *pl, *rw, *rl;
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  FILE *f;
  char path[4096];
  if (argc != 2 || !in || !out || !z || !rng)
    {
      fprintf (stderr, "usage: w3 DIR\n");
      return 2;
    }
  pw = in;
  pl = in + n;
  rw = in + 2 * n;
  rl = in + 3 * n;
  gsl_rng_set (rng, 3);
  for (size_t i = 0; i < n; i++)
    {
      pw[i] = -200.0 * gsl_rng_uniform (rng);
      pl[i] = -200.0 * gsl_rng_uniform (rng);
      rw[i] = pw[i] + 2.0 * gsl_ran_gaussian_ziggurat (rng, 1.0);
      rl[i] = pl[i] + 2.0 * gsl_ran_gaussian_ziggurat (rng, 1.0);
      z[i] = BETA * ((pw[i] - rw[i]) - (pl[i] - rl[i]));
    }
  memset (out, 0, (2 * n + 1) * sizeof *out);
  for (int k = 0; k < REPS; k++)
    {
      t = now ();
      if (rlref_dpo_loss_batch (out, NULL, out + 1, out + 1 + n, NULL, NULL, pw, pl, rw, rl,
                                NULL, NULL, n, &c, BETA, 0.0) != RLREF_SUCCESS)
        {
          fprintf (stderr, "w3: %s\n", rlref_last_error ());
          return 1;
        }
      t = now () - t;
      beste = t < beste ? t : beste;
      for (int th = 1; th <= 2; th++)
        {
          floor_job fj = { out + 1, out + 1 + n, pw, pl, rw, rl, n };
          rlref_batch_set_threads (th);
          t = now ();
          (void) rlref_batch_run (floor_chunk, &fj, BATCH_CHUNKS, 1);
          t = now () - t;
          if (th == 2)
            bestf = t < bestf ? t : bestf;
          else
            bestf1 = t < bestf1 ? t : bestf1;
        }
      for (int th = 1; th <= 2; th++)
        {
          rlref_batch_set_threads (th);
          t = now ();
          if (rlref_dpo_sigmoid_batch_simd (out, out + 1, out + 1 + n, pw, pl, rw, rl, n, BETA)
              != RLREF_SUCCESS)
            {
              fprintf (stderr, "w3: %s\n", rlref_last_error ());
              return 1;
            }
          t = now () - t;
          if (th == 2)
            best = t < best ? t : best;
          else
            best1 = t < best1 ? t : best1;
        }
      t = now ();
      sink += libm_only (z, n);
      t = now () - t;
      bestl = t < bestl ? t : bestl;
    }
  snprintf (path, sizeof path, "%s/w3_in.f64", argv[1]);
  f = fopen (path, "wb");
  if (!f || fwrite (in, sizeof *in, 4 * n, f) != 4 * n || fclose (f) != 0)
    return 1;
  snprintf (path, sizeof path, "%s/w3_out.f64", argv[1]);
  f = fopen (path, "wb");
  if (!f || fwrite (out, sizeof *out, 2 * n + 1, f) != 2 * n + 1 || fclose (f) != 0)
    return 1;
  printf ("w3 rlref %.6f rlref1 %.6f exact %.6f libm %.6f floor %.6f floor1 %.6f path %s\n",
          best, best1, beste, bestl, bestf, bestf1, rlref_dpo_sigmoid_batch_simd_path ());
  if (sink == 12345.678)
    printf ("\n");
  free (in);
  free (out);
  free (z);
  gsl_rng_free (rng);
  return 0;
}
