/* fit.h -- internal: Newton polishing of shift-invariant maximum-likelihood
 * fits, for the backend the including file is compiled for.
 *
 * GSL's minimisers are double-only: GSL gives a start in double
 * (fit_gsl.c), and Newton's method polishes the scores in the working
 * precision. */
#ifndef RLREF_FIT_H
#define RLREF_FIT_H
#include <stddef.h>
#include "rlref/num.h"

/* f(s), its gradient g (K) and Hessian H (K x K, row-major) of a convex,
 * shift-invariant objective (a negative log-likelihood).  H may be NULL. */
typedef int FN (fgh_fn) (const void *ctx, num_srcptr s, num_ptr f, num_ptr g,
                         num_ptr H, size_t K);

/* Solves A x = b in place (b becomes x), Gaussian elimination with partial
 * pivoting.  EDOM if A is singular. */
int FN (solve) (num_ptr A, num_ptr b, size_t n);

/* Newton's method on the objective with the gauge sum s = 0: each step
 * solves (H + 1 1^T) d = -g, halving d while f does not decrease.  Stops
 * two steps after |d| falls below 2^-(prec/2) (1 + |s|); EMAXITER after
 * 200 steps. */
int FN (newton_gauge) (num_ptr s, size_t K, FN (fgh_fn) *fgh, const void *ctx);

/* Double-precision objective used for the GSL start. */
typedef int rlref_fg_double_fn (const void *ctx, const double *s, double *f,
                                double *g, size_t K);
/* Minimises over s with s[K-1] = 0 by GSL's BFGS2, from s = 0; then shifts
 * to mean zero.  The result is a start for newton_gauge, not an answer. */
int rlref_gsl_start (double *s, size_t K, rlref_fg_double_fn *fg, const void *ctx);

/* 1 when the directed graph adj (K x K, adj[i*K+j] != 0 for an edge
 * i -> j, "i beat j") is strongly connected: the condition for a finite
 * maximum-likelihood estimate (Zermelo 1929, Ford 1957, Hunter 2004). */
int rlref_strongly_connected (const unsigned char *adj, size_t K);

#endif
