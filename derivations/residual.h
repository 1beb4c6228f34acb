/* residual.h -- what every derivation program shares: the working
 * precision, a count of failed steps, and the printing of one step's
 * residual against its bound.  Included by each program (one per
 * derivation); the functions are static. */
#ifndef RLREF_DERIVATIONS_RESIDUAL_H
#define RLREF_DERIVATIONS_RESIDUAL_H

#include <stdio.h>
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

#endif
