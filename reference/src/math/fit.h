/* fit.h -- internal: the numerical steps of the maximum-likelihood fits
 * (mle.h), for the backend the including file is compiled for.
 *
 * GSL's minimisers are double-only: GSL gives a start in double
 * (fit_gsl.c), and Newton's method polishes the scores in the working
 * precision (newton.c). */
#ifndef RLREF_FIT_H
#define RLREF_FIT_H
#include <stddef.h>
#include "rlref/num.h"
#include "rlref/status.h"

/* f(s), its gradient g (K) and Hessian H (K x K, row-major) of a convex,
 * shift-invariant objective (a negative log-likelihood).  g and H may be
 * NULL.  H must be a weighted graph Laplacian: off-diagonal entries <= 0,
 * rows summing to 0, as the Hessians of the Bradley-Terry and
 * Plackett-Luce likelihoods are (sums of w (diag(p) - p p^T)). */
typedef int FN (fgh_fn) (const void *ctx, num_srcptr s, num_ptr f, num_ptr g,
                         num_ptr H, size_t K);

/* Solves A x = b in place (b becomes x), Gaussian elimination with partial
 * pivoting.  EDOM (raised) if A is singular. */
RLREF_WUR int FN (solve) (num_ptr A, num_ptr b, size_t n);

/* Solves L d = b in place (b becomes d, d_{n-1} = 0) for the Laplacian
 * L of a connected weighted graph given by its off-diagonal entries H_ij
 * = -W_ij <= 0, by elimination without cancellation (Grassmann, Taksar
 * and Heyman).  ERANGE when a pivot vanishes (weights underflowed).
 * This and newton_gauge do not raise their errors: they set *why, and
 * the caller raises (or retries). */
RLREF_WUR int FN (laplacian_solve) (num_ptr H, num_ptr b, size_t n, const char **why);

/* Newton's method on the objective with the gauge sum s = 0: each step
 * solves H d = -g (grounded, then shifted to sum d = 0), halving d while
 * f rises beyond its rounding and doubling a first step while f falls.
 * Stops two steps after |d| falls below 2^-(prec/2) (1 + |s|); EMAXITER
 * after NEWTON_MAX_ITER steps or when no step lowers f; ERANGE when the
 * Hessian vanishes (a fit beyond the exponent range). */
#define NEWTON_MAX_ITER 100
RLREF_WUR int FN (newton_gauge) (num_ptr s, size_t K, FN (fgh_fn) *fgh, const void *ctx,
                                 const char **why);

/* Double-precision objective used for the GSL start: f and the gradient g. */
typedef int rlref_fg_double_fn (const void *ctx, const double *s, double *f,
                                double *g, size_t K);
/* Minimises over s with s[K-1] = 0 by GSL's BFGS2, from s = 0; then shifts
 * to mean zero.  The result is a start for newton_gauge, not an answer. */
RLREF_WUR int rlref_gsl_start (double *s, size_t K, rlref_fg_double_fn *fg, const void *ctx);

/* 1 when the directed graph adj (K x K, adj[i*K+j] != 0 for an edge
 * i -> j, "i beat j") is strongly connected: the condition for a finite
 * maximum-likelihood estimate (Zermelo 1929, Ford 1957, Hunter 2004). */
RLREF_WUR int rlref_strongly_connected (const unsigned char *adj, size_t K);

#endif
