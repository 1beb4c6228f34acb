/* w2.c -- benchmarks W2a and W2b (issue: a batch API): rlref's binary64
 * batch kernels, timed here; tests/bench/w2_numpy.py times numpy on the
 * same bytes (tests/bench/w2w3.sh sets the two side by side).
 *
 *   W2a  GRPO advantages, ddof 0, eps = 1e-8 added to the std (convention
 *        seed-000-code), for 10^6 groups of 16 binary rewards drawn from
 *        GSL's MT19937 (seed 1): rlref_grpo_adv_batch, and the memory floor,
 *        a plain pass that reads the same rewards and writes as many doubles;
 *   W2a-real  the same convention on 1.6 10^7 real-valued rewards, in
 *        groups of 16 and of 64: Gaussian (gsl_ran_gaussian_ziggurat, seed
 *        3), and heavy-tailed, magnitudes 10^u with u uniform on [-6, 6]
 *        and a random sign (seed 4); rlref_grpo_adv_batch, the floor as
 *        for W2a, how many groups were done four at a time
 *        (rlref_grpo_adv_batch_quads) and how many fell back to the exact
 *        accumulator (rlref_grpo_adv_batch_fallbacks);
 *   W2b  the sums of k1, k2, k3 over 1.6 10^7 token log-ratios l = 0.3 z,
 *        z standard normal (gsl_ran_gaussian_ziggurat, seed 2):
 *        rlref_kl_batch (sums only), and the floor, a plain pass reading the
 *        log-ratios (eight partial sums).
 *
 * usage: w2 DIR.  Writes DIR/w2a_in.f64, DIR/w2a_out.f64 (the advantages),
 * DIR/w2r-KIND-G_in.f64 and _out.f64 for W2a-real, DIR/w2b_in.f64 and
 * DIR/w2b_out.f64 (the three sums), raw little-endian doubles, and prints
 * one line per workload:
 *   w2a rlref SECONDS rlref1 SECONDS floor SECONDS
 *   w2r-KIND-G rlref SECONDS rlref1 SECONDS floor SECONDS fallbacks N quads N
 *   w2b rlref SECONDS rlref1 SECONDS floor SECONDS path NAME
 * each the best of REPS runs: rlref on 2 threads (rlref_batch_set_threads;
 * the same bits), rlref1 on 1; NAME the path of rlref_kl_batch
 * (rlref_kl_batch_path). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include "rlref/rlref.h"
#include "rlref/batch.h"

enum { REPS = 7, G = 16 };
#define NGROUPS 1000000UL
#define NTOK 16000000UL

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static int
write_f64 (const char *dir, const char *name, const double *x, size_t n)
{
  char path[4096];
  FILE *f;
  snprintf (path, sizeof path, "%s/%s", dir, name);
  f = fopen (path, "wb");
  if (!f || fwrite (x, sizeof *x, n, f) != n || fclose (f) != 0)
    {
      fprintf (stderr, "w2: cannot write %s\n", path);
      return 1;
    }
  return 0;
}

/* The memory floor of W2a: read n doubles, write n doubles. */
static void __attribute__ ((noinline))
floor_copy (double *restrict y, const double *restrict x, size_t n)
{
  for (size_t i = 0; i < n; i++)
    y[i] = -x[i];
}

/* The memory floor of W2b: read n doubles (eight partial sums). */
static double __attribute__ ((noinline))
floor_read (const double *x, size_t n)
{
  double a[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
  for (size_t i = 0; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++)
      a[j] += x[i + (size_t) j];
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

/* Times rlref_grpo_adv_batch on the N rewards r in groups of g (into a),
 * REPS times on 2 threads and on 1, beside the floor: the best of each
 * into best (2 threads), best1, bestf, and per run the groups that fell
 * back into *fb and those done four at a time into *quads; 0, or 1 after
 * a message. */
static int
time_grpo (double *a, const double *r, size_t N, size_t g, const rlref_adv_convention *c,
           double *best, double *best1, double *bestf, size_t *fb, size_t *quads)
{
  double t;
  *best = *best1 = *bestf = 1e30;
  *fb = *quads = 0;
  for (int k = 0; k < 2 * REPS; k++)
    {
      rlref_batch_set_threads (1 + k % 2);
      t = now ();
      if (rlref_grpo_adv_batch (a, r, N, g, c, NULL) != RLREF_SUCCESS)
        {
          fprintf (stderr, "w2: %s\n", rlref_last_error ());
          return 1;
        }
      t = now () - t;
      *fb += rlref_grpo_adv_batch_fallbacks ();
      *quads += rlref_grpo_adv_batch_quads ();
      if (k % 2)
        *best = t < *best ? t : *best;
      else
        *best1 = t < *best1 ? t : *best1;
      t = now ();
      floor_copy (a, r, N);
      t = now () - t;
      *bestf = t < *bestf ? t : *bestf;
      if (rlref_grpo_adv_batch (a, r, N, g, c, NULL) != RLREF_SUCCESS)
        return 1;
    }
  *fb /= 2 * REPS;
  *quads /= 2 * REPS;
  return 0;
}

int
main (int argc, char **argv)
{
  const rlref_adv_convention *c = rlref_adv_convention_find ("seed-000-code");
  size_t N = NGROUPS * G;
  double *r = malloc (N * sizeof *r), *a = malloc (N * sizeof *a);
  double *l = malloc (NTOK * sizeof *l), sums[3], t, best = 1e30, best1 = 1e30, bestf = 1e30;
  double sink = 0;
  size_t fb, quads;
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  if (argc != 2 || !c || !r || !a || !l || !rng)
    {
      fprintf (stderr, "usage: w2 DIR\n");
      return 2;
    }
  /* W2a */
  gsl_rng_set (rng, 1);
  for (size_t i = 0; i < N; i++)
    r[i] = (double) (gsl_rng_uniform (rng) < 0.5);
  memset (a, 0, N * sizeof *a);
  if (time_grpo (a, r, N, G, c, &best, &best1, &bestf, &fb, &quads))
    return 1;
  if (write_f64 (argv[1], "w2a_in.f64", r, N) || write_f64 (argv[1], "w2a_out.f64", a, N))
    return 1;
  printf ("w2a rlref %.6f rlref1 %.6f floor %.6f\n", best, best1, bestf);
  /* W2a-real */
  for (int kind = 0; kind < 2; kind++)
    for (size_t Gr = 16; Gr <= 64; Gr *= 4)
      {
        char name[64];
        gsl_rng_set (rng, 3 + (unsigned long) kind);
        for (size_t i = 0; i < N; i++)
          {
            double m = pow (10.0, -6.0 + 12.0 * gsl_rng_uniform (rng));
            r[i] = kind == 0 ? gsl_ran_gaussian_ziggurat (rng, 1.0)
              : gsl_rng_uniform (rng) < 0.5 ? -m : m;
          }
        if (time_grpo (a, r, N, Gr, c, &best, &best1, &bestf, &fb, &quads))
          return 1;
        snprintf (name, sizeof name, "w2r-%s-%zu_in.f64", kind ? "heavy" : "gauss", Gr);
        if (write_f64 (argv[1], name, r, N))
          return 1;
        snprintf (name, sizeof name, "w2r-%s-%zu_out.f64", kind ? "heavy" : "gauss", Gr);
        if (write_f64 (argv[1], name, a, N))
          return 1;
        printf ("w2r-%s-%zu rlref %.6f rlref1 %.6f floor %.6f fallbacks %zu quads %zu\n",
                kind ? "heavy" : "gauss", Gr, best, best1, bestf, fb, quads);
      }
  free (a);
  free (r);
  /* W2b */
  gsl_rng_set (rng, 2);
  for (size_t i = 0; i < NTOK; i++)
    l[i] = 0.3 * gsl_ran_gaussian_ziggurat (rng, 1.0);
  best = best1 = bestf = 1e30;
  for (int k = 0; k < 2 * REPS; k++)
    {
      rlref_batch_set_threads (1 + k % 2);
      t = now ();
      if (rlref_kl_batch (NULL, NULL, NULL, sums, l, NULL, NTOK) != RLREF_SUCCESS)
        {
          fprintf (stderr, "w2b: %s\n", rlref_last_error ());
          return 1;
        }
      t = now () - t;
      if (k % 2)
        best = t < best ? t : best;
      else
        best1 = t < best1 ? t : best1;
      t = now ();
      sink += floor_read (l, NTOK);
      t = now () - t;
      bestf = t < bestf ? t : bestf;
    }
  if (write_f64 (argv[1], "w2b_in.f64", l, NTOK) || write_f64 (argv[1], "w2b_out.f64", sums, 3))
    return 1;
  printf ("w2b rlref %.6f rlref1 %.6f floor %.6f path %s\n", best, best1, bestf,
          rlref_kl_batch_path ());
  if (sink == 12345.678)
    printf ("\n");
  free (l);
  gsl_rng_free (rng);
  return 0;
}
