/* fit_round_once.h -- the binary64 maximum-likelihood fits of counted
 * preferences (PREF-BT-MLE, PREF-PL, PREF-PAIRS) as their MPFR programs
 * rounded once (round_once.h).  Newton's last steps and the
 * log-likelihood at the maximum cancel terms of the size of the counts;
 * binary64 iterates stop some ulps from the scores a wider run rounds to. */
#ifndef RLREF_FIT_ROUND_ONCE_H
#define RLREF_FIT_ROUND_ONCE_H

#include <stddef.h>
#include <mpfr.h>

/* A fit in MPFR: scores[K] and loglik (NULL: not asked for) from the
 * counts[M] of the observations rankings (NULL where the fit has none). */
typedef int rlref_fit_mp (mpfr_ptr scores, mpfr_ptr loglik, const long *rankings,
                          mpfr_srcptr counts, size_t M, size_t K);

/* scores[K] and loglik (may be NULL) = the fit on the exact counts[M],
 * each rounded to binary64 once. */
int rlref_fit_round_once (double *scores, double *loglik, rlref_fit_mp *fit,
                          const long *rankings, const double *counts, size_t M, size_t K);

#endif
