/* mle.h -- internal: maximum-likelihood fits of scores to counted
 * observations, for the backend the including file is compiled for.
 *
 * A counted likelihood: K items with scores s, M kinds of observation
 * (an ordered pair "i beat j", a ranking, ...), kind m seen c_m >= 0
 * times, and minus the log-likelihood
 *   F(s; c) = sum_m c_m F_m(s),
 * convex and shift-invariant in s, with a Hessian that is a weighted graph
 * Laplacian (fit.h).  A family writes F once (an nll_fn), with the edges
 * of the graph that must be strongly connected for a finite maximum, and
 * checks its own inputs; mle_fit does the rest of the fit, mle_jacobian
 * its derivative in the counts.  The likelihoods of PREF-BT-MLE and
 * PREF-PL are in pref_bt_mle.c and pref_pl.c. */
#ifndef RLREF_MLE_H
#define RLREF_MLE_H
#include <stddef.h>
#include "rlref/num.h"
#include "rlref/status.h"

/* F(s; c) into f, its gradient into g (K) and its Hessian into H (K x K,
 * by rows) at the scores s; g and H may be NULL.  obs says what the M
 * observations are (NULL when M and K say it; no num_t, so that one obs
 * serves both builds).  A term with c_m = 0 is left out. */
#ifdef RLREF_MP
typedef int rlref_nll_fn_d (double *f, double *g, double *H, const double *s, size_t K,
                            const double *c, size_t M, const void *obs);
#endif
typedef int FN (nll_fn) (num_ptr f, num_ptr g, num_ptr H, num_srcptr s, size_t K,
                         num_srcptr c, size_t M, const void *obs);

/* f = 0, and g (K) and H (K x K) = 0 where they are not NULL: where an
 * nll_fn starts its sums. */
void FN (nll_zero) (num_ptr f, num_ptr g, num_ptr H, size_t K);

/* The graph of the positive counts into adj (K x K, zeroed by the caller):
 * adj[a K + b] = 1 where an observation m with c_m > 0 puts a above b. */
typedef void FN (edges_fn) (unsigned char *adj, num_srcptr c, size_t M, const void *obs,
                            size_t K);

/* A likelihood: F in the working backend (nll) and in binary64 (nll_d,
 * for the start by GSL; NLL_D (name) names the binary64 build of the
 * nll_fn FN (name)), and the condition for a finite maximum, that the
 * graph of edges be strongly connected (Zermelo 1929, Ford 1957, Hunter
 * 2004), with the message of its EDOM; edges NULL: no condition. */
typedef struct
{
  FN (nll_fn) *nll;
  rlref_nll_fn_d *nll_d;
  FN (edges_fn) *edges;
  const char *unbounded;
} FN (mle_lik);

#define NLL_D(name) RLREF_CAT (rlref_, name, _d)

/* The scores s (mean zero) that minimise F(s; c), into scores (K), and
 * loglik = -F(s; c) (loglik may be NULL): the test for a finite maximum,
 * the counts scaled by 2^-k, k the exponent of the largest (the same
 * minimiser; F scaled by 2^-k), a start by GSL in binary64, Newton's
 * polish in the working backend, and the log-likelihood of the counts as
 * given.  The counts must be finite and >= 0 (the caller checks them and
 * obs).  EDOM when the maximum is not finite; ERANGE when the positive
 * counts span more than the range, or loglik is asked for and beyond it;
 * EMAXITER when Newton's method fails. */
RLREF_WUR int FN (mle_fit) (num_ptr scores, num_ptr loglik, const FN (mle_lik) *L,
                            num_srcptr c, size_t M, const void *obs, size_t K);

/* The Jacobian J ((K + 1) x M, by rows) of the fit at its result s:
 * J[k][m] = d s_k / d c_m (k < K) by fit_jacobian, and
 * J[K][m] = d loglik / d c_m = -F_m(s) (envelope theorem).  EDOM when s is
 * not the minimum: a gradient of F above 2^-(prec/2) (1 + scale), scale
 * the size of the counts (their sum over the terms of F). */
RLREF_WUR int FN (mle_jacobian) (num_ptr J, FN (nll_fn) *nll, num_srcptr s, size_t K,
                                 num_srcptr c, size_t M, const void *obs,
                                 num_srcptr scale);

#endif
