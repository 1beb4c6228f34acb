/* Declarations of the stable primitives, for one backend (no guard).
 * RLREF_T is a scalar or vector result, RLREF_CT an input; vectors are
 * contiguous.  Every function returns an rlref_status, which the caller
 * must check (RLREF_WUR).  An output may be the very storage of an input
 * of the same length (reference/README.md, Aliasing).  An output whose
 * exact value lies beyond the range is +-inf and the status RLREF_ERANGE
 * (the naive forms excepted: their overflow is what they show). */

/* sigma(x) = 1/(1 + e^-x), evaluated without overflow for any x. */
RLREF_WUR int RLREF_FN (sigmoid) (RLREF_T r, RLREF_CT x);
/* log sigma(x) = -softplus(-x). */
RLREF_WUR int RLREF_FN (log_sigmoid) (RLREF_T r, RLREF_CT x);
/* softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|). */
RLREF_WUR int RLREF_FN (softplus) (RLREF_T r, RLREF_CT x);
/* log(1 - e^x) for x <= 0 (Maechler's two-branch form). */
RLREF_WUR int RLREF_FN (log1mexp) (RLREF_T r, RLREF_CT x);
/* h(e) = 1 + (e - 1) e^e >= 0, the term of KL(p || q) = sum_i q_i h(e_i),
 * e_i = log(p_i/q_i): by its series sum_{k>=2} (k - 1) e^k/k! for |e| < 1
 * (e^2/2 for tiny e, no cancellation), else as written; +inf and ERANGE
 * beyond the range. */
RLREF_WUR int RLREF_FN (kl_term) (RLREF_T r, RLREF_CT e);
/* log sum_i e^{x_i}, shifted by the maximum. */
RLREF_WUR int RLREF_FN (logsumexp) (RLREF_T r, RLREF_CT x, size_t n);
/* p_i = e^{x_i - lse(x)}. */
RLREF_WUR int RLREF_FN (softmax) (RLREF_T p, RLREF_CT x, size_t n);
/* log p_i = x_i - lse(x); ERANGE (with -inf) where x_i - lse overflows. */
RLREF_WUR int RLREF_FN (log_softmax) (RLREF_T lp, RLREF_CT x, size_t n);
/* Arithmetic mean, two-pass (a correction sum after the first mean);
 * finite for every finite x (scaled by a power of two where needed). */
RLREF_WUR int RLREF_FN (mean) (RLREF_T m, RLREF_CT x, size_t n);
/* Variance sum (x - m)^2 / (n - ddof), corrected two-pass algorithm,
 * scaled like mean: +inf and ERANGE only when the variance exceeds the
 * range. */
RLREF_WUR int RLREF_FN (variance) (RLREF_T v, RLREF_CT x, size_t n, int ddof);
/* Standard deviation sqrt(variance), finite whenever it is representable
 * (also where the variance itself overflows or underflows); +inf and
 * ERANGE beyond. */
RLREF_WUR int RLREF_FN (stddev) (RLREF_T s, RLREF_CT x, size_t n, int ddof);

/* Naive forms users often write, kept to measure their error. */
/* 1/(1 + e^-x) directly. */
RLREF_WUR int RLREF_FN (sigmoid_naive) (RLREF_T r, RLREF_CT x);
/* log(1/(1 + e^-x)) directly: -inf once e^-x overflows. */
RLREF_WUR int RLREF_FN (log_sigmoid_naive) (RLREF_T r, RLREF_CT x);
/* log(1 + e^x) directly: inf once e^x overflows. */
RLREF_WUR int RLREF_FN (softplus_naive) (RLREF_T r, RLREF_CT x);
/* log sum e^{x_i} without the shift. */
RLREF_WUR int RLREF_FN (logsumexp_naive) (RLREF_T r, RLREF_CT x, size_t n);
/* One-pass variance (sum x^2 - n m^2)/(n - ddof): cancels catastrophically. */
RLREF_WUR int RLREF_FN (variance_onepass) (RLREF_T v, RLREF_CT x, size_t n, int ddof);
