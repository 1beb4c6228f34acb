/* kl_series.h -- internal: the remainders of the exponential and the
 * logarithm that the KL estimators need, without cancellation, for the
 * backend the including file is compiled for (kl_series.c). */
#ifndef RLREF_KL_SERIES_H
#define RLREF_KL_SERIES_H
#include "rlref/num.h"

/* r = e^x - sum_{n<m} x^n/n!, m = 2 (e^x - 1 - x) or 3 (e^x - 1 - x - x^2/2). */
void FN (kl_exp_rem) (num_ptr r, num_srcptr x, int m);

/* r = d - log(1 + d) >= 0, d > -1. */
void FN (kl_log1p_rem) (num_ptr r, num_srcptr d);

/* r = log(1 + d) - d + d^2/2, d > -1. */
void FN (kl_log1p_rem3) (num_ptr r, num_srcptr d);

/* r = w k3(l) = w (e^-l - 1 + l) >= 0 given wr = w e^-l (the other
 * distribution's weight), without overflow or cancellation. */
void FN (kl_k3_term) (num_ptr r, num_srcptr w, num_srcptr wr, num_srcptr l);

/* r = w (e^-l - 1 + l - l^2/2) given wr = w e^-l, likewise. */
void FN (kl_rem3_term) (num_ptr r, num_srcptr w, num_srcptr wr, num_srcptr l);

/* A compensated (Neumaier) sum: the enumerations and the Monte-Carlo run
 * add up to 1e6 terms one at a time; the rounding error of each addition
 * is kept in c, so the sum is within about 2 ulp of the exact one. */
typedef struct
{
  num_t s, c, t, a, b;
} kl_acc;

void FN (kl_acc_init) (kl_acc *a);
void FN (kl_acc_clear) (kl_acc *a);
/* s + c += x. */
void FN (kl_acc_add) (kl_acc *a, num_srcptr x);
/* r = the sum so far. */
void FN (kl_acc_get) (num_ptr r, const kl_acc *a);

#endif
