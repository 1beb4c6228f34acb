/* bench.c -- what one source for two precisions costs: time per call of a
 * few formulas in binary64 (against the same formula hand-written in plain
 * double, to show the scalar interface compiles away) and in MPFR at 256
 * and 1024 bits.  Timing is wall clock, so only the ratios mean much; run
 * with `make bench`, not part of `make check`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <mpfr.h>
#include "rlref/rlref.h"

#define N_D 2000000L
#define N_MP 20000L

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

/* sigma(x) written directly in double, the reference for the overhead. */
static double
sigmoid_plain (double x)
{
  return x >= 0 ? 1.0 / (1.0 + exp (-x)) : exp (x) / (1.0 + exp (x));
}

static volatile double sink;

static void
bench_sigmoid (void)
{
  double t0, t1, t2, s = 0, r;
  mpfr_t x, y;
  t0 = now ();
  for (long i = 0; i < N_D; i++)
    s += sigmoid_plain ((double) (i % 2001 - 1000) * 0.01);
  t1 = now ();
  for (long i = 0; i < N_D; i++)
    {
      double x_d = (double) (i % 2001 - 1000) * 0.01;
      if (rlref_sigmoid_d (&r, &x_d))
        abort ();
      s += r;
    }
  t2 = now ();
  sink = s;
  printf ("%-34s %10.1f ns  (hand-written double %.1f ns)\n", "sigmoid, binary64",
          1e9 * (t2 - t1) / N_D, 1e9 * (t1 - t0) / N_D);
  for (mpfr_prec_t p = 256; p <= 1024; p *= 4)
    {
      rlref_mp_set_prec (p);
      mpfr_inits2 (p, x, y, (mpfr_ptr) 0);
      t0 = now ();
      for (long i = 0; i < N_MP; i++)
        {
          mpfr_set_d (x, (double) (i % 2001 - 1000) * 0.01, MPFR_RNDN);
          if (rlref_sigmoid_mp (y, x))
            abort ();
        }
      t1 = now ();
      printf ("sigmoid, MPFR %4ld bits             %10.1f ns\n", (long) p, 1e9 * (t1 - t0) / N_MP);
      mpfr_clears (x, y, (mpfr_ptr) 0);
    }
}

static void
bench_grpo (void)
{
  const rlref_adv_convention *c = rlref_adv_convention_find ("trl");
  double r[16], a[16], t0, t1;
  __mpfr_struct rm[16], am[16];
  for (int i = 0; i < 16; i++)
    r[i] = (double) ((i * 7) % 5) * 0.25;
  t0 = now ();
  for (long i = 0; i < N_D / 16; i++)
    {
      r[0] = (double) (i % 3);
      if (rlref_grpo_adv_d (a, r, 16, 16, c))
        abort ();
    }
  t1 = now ();
  sink = a[0];
  printf ("%-34s %10.1f ns\n", "GRPO-ADV trl, G = 16, binary64", 1e9 * (t1 - t0) / (N_D / 16));
  rlref_mp_set_prec (256);
  for (int i = 0; i < 16; i++)
    {
      mpfr_init2 (&rm[i], 256);
      mpfr_init2 (&am[i], 256);
      mpfr_set_d (&rm[i], r[i], MPFR_RNDN);
    }
  t0 = now ();
  for (long i = 0; i < N_MP / 16; i++)
    if (rlref_grpo_adv_mp (am, rm, 16, 16, c))
      abort ();
  t1 = now ();
  printf ("%-34s %10.1f ns\n", "GRPO-ADV trl, G = 16, MPFR 256 bits", 1e9 * (t1 - t0) / (N_MP / 16));
  for (int i = 0; i < 16; i++)
    {
      mpfr_clear (&rm[i]);
      mpfr_clear (&am[i]);
    }
}

int
main (void)
{
  printf ("time per call (wall clock; ratios are what matter)\n");
  bench_sigmoid ();
  bench_grpo ();
  mpfr_free_cache ();
  return 0;
}
