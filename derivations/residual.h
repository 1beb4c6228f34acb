/* residual.h -- what every derivation program shares: the working
 * precision, a count of failed steps, and the printing of one step's
 * residual against its bound, small MPFR vector helpers and the
 * permutations of a ranking.  Included by each program (one per
 * derivation); the functions are static. */
#ifndef RLREF_DERIVATIONS_RESIDUAL_H
#define RLREF_DERIVATIONS_RESIDUAL_H

#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>

#define PREC 256

static int failures;

/* Prints one step: the residual |a - b| (relative to |b| when rel), and
 * whether it is within 2^bound_log2; counts the failures. */
static void
step (const char *label, mpfr_srcptr a, mpfr_srcptr b, int rel, long bound_log2)
{
  mpfr_t r, bound;
  int ok;
  mpfr_inits2 (PREC, r, bound, (mpfr_ptr) 0);
  mpfr_sub (r, a, b, MPFR_RNDN);
  mpfr_abs (r, r, MPFR_RNDN);
  if (rel && !mpfr_zero_p (b))
    mpfr_div (r, r, b, MPFR_RNDN), mpfr_abs (r, r, MPFR_RNDN);
  mpfr_set_ui_2exp (bound, 1, bound_log2, MPFR_RNDN);
  ok = mpfr_cmp (r, bound) <= 0;
  failures += !ok;
  mpfr_printf ("  %-62s %s residual %.3Re  bound 2^%ld  %s\n", label, rel ? "rel" : "abs", r,
               bound_log2, ok ? "ok" : "FAIL");
  mpfr_clears (r, bound, (mpfr_ptr) 0);
}

/* n MPFR numbers of PREC bits set to +0, and their release. */
static inline mpfr_ptr
mp_vec (size_t n)
{
  mpfr_ptr v = malloc (n * sizeof *v);
  for (size_t i = 0; i < n; i++)
    mpfr_init2 (v + i, PREC), mpfr_set_zero (v + i, 1);
  return v;
}

static inline void
mp_vec_free (mpfr_ptr v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    mpfr_clear (v + i);
  free (v);
}

/* v_i = d_i, i < n. */
static inline void
mp_vec_set_d (mpfr_ptr v, const double *d, size_t n)
{
  for (size_t i = 0; i < n; i++)
    mpfr_set_d (v + i, d[i], MPFR_RNDN);
}

/* r = max_i |a_i - b_i|. */
static inline void
mp_maxdiff (mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, size_t n)
{
  mpfr_t t;
  mpfr_init2 (t, PREC);
  mpfr_set_zero (r, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_sub (t, a + i, b + i, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_max (r, r, t, MPFR_RNDN);
    }
  mpfr_clear (t);
}

/* A library call that must succeed: a failure is counted and printed. */
#define OK(call)                                                              \
  do                                                                          \
    {                                                                         \
      if ((call) != 0)                                                        \
        {                                                                     \
          printf ("  %s failed: %s\n", #call, rlref_last_error ());            \
          failures++;                                                         \
        }                                                                     \
    }                                                                         \
  while (0)

/* The closing line and the exit status. */
static int
finish (void)
{
  printf ("\n%s: %d step(s) over their bound\n", failures ? "FAILED" : "all steps within bounds",
          failures);
  mpfr_free_cache ();
  return failures ? 1 : 0;
}

/* The next permutation of a[0..n) in lexicographic order; 0 after the
 * last (the rankings the Plackett-Luce derivations sum over). */
static inline int
next_permutation (long *a, int n)
{
  int i = n - 2, j = n - 1;
  while (i >= 0 && a[i] >= a[i + 1])
    i--;
  if (i < 0)
    return 0;
  while (a[j] <= a[i])
    j--;
  long t = a[i];
  a[i] = a[j];
  a[j] = t;
  for (int l = i + 1, r = n - 1; l < r; l++, r--)
    t = a[l], a[l] = a[r], a[r] = t;
  return 1;
}

#endif
