/* pref_mle.h -- internal: the counted likelihoods of the PREF fits
 * (mle.h), for the backend the including file is compiled for. */
#ifndef RLREF_PREF_MLE_H
#define RLREF_PREF_MLE_H
#include <stddef.h>
#include "rlref/num.h"
#include "mle.h"

/* PREF-BT-MLE (pref_bt_mle.c): K items, M = K^2 observations, m = i K + j
 * "i beat j" (the diagonal is not read); obs is NULL. */
FN (nll_fn) FN (bt_nll);
rlref_nll_fn_d rlref_bt_nll_d;

/* PREF-PL (pref_pl.c): M full rankings of K items, obs the rankings
 * (const long[M K], best first, each a permutation of 0..K-1). */
FN (nll_fn) FN (pl_nll);
rlref_nll_fn_d rlref_pl_nll_d;

/* EINVAL (recorded) unless ranking is a permutation of 0..K-1, K >= 1. */
RLREF_WUR int FN (check_ranking) (const long *ranking, size_t K);

#endif
