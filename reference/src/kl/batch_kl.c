/* batch_kl.c -- binary64 batch kernel of the KL estimators k1, k2, k3
 * (KL-K1, KL-K2, KL-K3; seed 000 table 5 and (13.26)) over n tokens:
 * per-token values and their sums, held to rlref_kl_estimate_d
 * (src/kl/kl.c, conventions "plain" and "stable") and to the exact
 * k3 (MPFR) within the bounds of rlref/batch.h.
 *
 * One pass over the tokens, by blocks of BLK: per token l = logp - ref,
 * k1 = l, k2 = l^2/2, and k3 at x = -l by a polynomial for |l| < 3/2 or
 * expm1(x) + l beyond; each sum takes the block in 8 interleaved partial
 * sums, added with Neumaier's compensation to the total of one of 8 fixed
 * chunks of blocks; the chunks' totals are added in order, again
 * compensated.  The checks (finite inputs, finite k2 and k3) are folded
 * into the same pass.  With SLEEF (-DRLREF_HAVE_SLEEF) on a processor with
 * AVX2 and FMA, eight tokens at a time in two vectors of four: a block
 * whose every |l| is below 3/2 (then the inputs, k2 and k3 are finite)
 * runs a loop of the polynomial alone, without checks or calls; a block
 * with any other l (rare for log-ratios) is done again with the checks and
 * SLEEF's expm1 (Sleef_expm1d4_u10avx2, within 1 ulp) where a lane needs
 * it.  The tokens left over (fewer than 8 at the end of a block), and
 * every token elsewhere, take the same operations one at a time, with
 * glibc's expm1.  The polynomial's operations are the same on both paths
 * (fma is one rounding), so the two differ only where expm1 is used.  The chunks
 * run on the threads of rlref_batch_set_threads when n is large; the
 * result is the same.  Nothing is allocated. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "rlref/batch.h"
#include "batch_threads.h"

#if defined(RLREF_HAVE_SLEEF) && defined(__x86_64__) && defined(__GNUC__)
#define SIMD_AVX2 1
#pragma GCC push_options
#pragma GCC target ("avx2,fma")
#include <immintrin.h>
#include <sleef.h>
#pragma GCC pop_options
#endif

#define BLK 256

/* k3 by the polynomial for |l| < THR, by expm1 beyond. */
#define THR 1.5

/* q(x) = sum_{j=0}^{15} C_j x^j, the near-minimax polynomial (Chebyshev
 * fit at 60 digits, mpmath, then rounded to binary64) of
 *   (e^x - 1 - x - x^2/2)/x^3 = sum_{j>=0} x^j/(j + 3)!
 * on [-3/2, 3/2]: relative error below 2^-53.9 there, the rounding of C0 =
 * 1/6 included. */
#define C0 0x1.5555555555555p-3
#define C1 0x1.5555555555555p-5
#define C2 0x1.1111111111117p-7
#define C3 0x1.6c16c16c16c19p-10
#define C4 0x1.a01a01a019339p-13
#define C5 0x1.a01a01a019af6p-16
#define C6 0x1.71de3a56238b1p-19
#define C7 0x1.27e4fb77d30f3p-22
#define C8 0x1.ae6455df98ba4p-26
#define C9 0x1.1eed8ebfc6b22p-29
#define C10 0x1.6124acde024e1p-33
#define C11 0x1.939786f4341dep-37
#define C12 0x1.ae579834838f3p-41
#define C13 0x1.ae5f92b9bfe7ap-45
#define C14 0x1.9ff9124816b94p-49
#define C15 0x1.70c8a543a9781p-53

/* k3 = e^x - 1 - x at x = -l, |x| < 3/2 (13.26), as
 *   x^2/2 + (e/2 + x^3 q(x)),   x^2 = s + e exactly (s = o(x^2), e by fma),
 * q in two Horner halves, q = lo + x^8 hi (shorter chains of fma); the
 * last addition carries the value (|x^3 q| <= 0.56 k3 there). */
static inline double
k3_poly (double x)
{
  double s = x * x, e = fma (x, x, -s), x4 = s * s, x8 = x4 * x4, lo, hi, q;
  hi = fma (fma (fma (fma (fma (fma (fma (C15, x, C14), x, C13), x, C12), x, C11), x, C10), x,
                 C9), x, C8);
  lo = fma (fma (fma (fma (fma (fma (fma (C7, x, C6), x, C5), x, C4), x, C3), x, C2), x, C1),
            x, C0);
  q = fma (x8, hi, lo);
  return s * 0.5 + fma (s * x, q, e * 0.5);
}

/* k3 at the log-ratio l, one token: the polynomial for |l| < 3/2, else
 * the reference's expm1(-l) + l. */
static inline double
k3_token (double l)
{
  return fabs (l) < THR ? k3_poly (-l) : expm1 (-l) + l;
}

/* Per-block results: the three block sums, and flags. */
enum { BAD_INPUT = 1, BAD_RANGE = 2 };

/* Tokens i0 .. nb-1 of a block one at a time: values written where asked,
 * added to the partial sums a, b, c (token i to slot i mod 8, i0 a
 * multiple of 8, the last nb mod 8 tokens to slot 0);
 * returns the flags. */
static inline int
tokens_scalar (double a[8], double b[8], double c[8], double *k1, double *k2, double *k3,
               const double *logp, const double *ref, size_t i0, size_t nb)
{
  double in = 0.0;
  int range = 0;
  for (size_t i = i0; i < nb; i++)
    {
      double l = ref ? logp[i] - ref[i] : logp[i], v2 = (l * l) * 0.5, v3 = k3_token (l);
      size_t j = i < nb - nb % 8 ? i % 8 : 0;
      in += logp[i] * 0.0 + (ref ? ref[i] * 0.0 : 0.0);
      range |= !(v2 <= DBL_MAX) | !(v3 <= DBL_MAX);
      a[j] += l;
      b[j] += v2;
      c[j] += v3;
      if (k1)
        k1[i] = l;
      if (k2)
        k2[i] = v2;
      if (k3)
        k3[i] = v3;
    }
  return (in == 0.0 ? 0 : BAD_INPUT) | (range ? BAD_RANGE : 0);
}

/* The tree of 8 partial sums. */
static inline double
tree8 (const double a[8])
{
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

/* A block of nb <= BLK tokens one at a time. */
static int
block_scalar (double sums[3], double *k1, double *k2, double *k3, const double *logp,
              const double *ref, size_t nb)
{
  double a[8] = { 0 }, b[8] = { 0 }, c[8] = { 0 };
  int flags = tokens_scalar (a, b, c, k1, k2, k3, logp, ref, 0, nb);
  sums[0] = tree8 (a);
  sums[1] = tree8 (b);
  sums[2] = tree8 (c);
  return flags;
}

#ifdef SIMD_AVX2
/* k3_poly on four lanes, the same operations; *h = x^2/2 (= k2). */
__attribute__ ((target ("avx2,fma"))) static inline __m256d
k3_poly4 (__m256d x, __m256d *h)
{
#define FMA4(a, b, c) _mm256_fmadd_pd (a, b, c)
#define K(c) _mm256_set1_pd (c)
  __m256d s = _mm256_mul_pd (x, x), e = _mm256_fmsub_pd (x, x, s);
  __m256d x4 = _mm256_mul_pd (s, s), x8 = _mm256_mul_pd (x4, x4), hi, lo, q;
  hi = FMA4 (FMA4 (FMA4 (FMA4 (FMA4 (FMA4 (FMA4 (K (C15), x, K (C14)), x, K (C13)), x, K (C12)),
                               x, K (C11)), x, K (C10)), x, K (C9)), x, K (C8));
  lo = FMA4 (FMA4 (FMA4 (FMA4 (FMA4 (FMA4 (FMA4 (K (C7), x, K (C6)), x, K (C5)), x, K (C4)), x,
                               K (C3)), x, K (C2)), x, K (C1)), x, K (C0));
  q = FMA4 (x8, hi, lo);
  *h = _mm256_mul_pd (s, K (0.5));
  return _mm256_add_pd (*h, FMA4 (_mm256_mul_pd (s, x), q, _mm256_mul_pd (e, K (0.5))));
#undef K
#undef FMA4
}

/* k2 and k3 of four log-ratios l (k3 as k3_token, SLEEF's expm1 where
 * |l| >= 3/2); *bad gathers lanes where k2 or k3 is not finite. */
__attribute__ ((target ("avx2,fma"))) static inline void
values4 (__m256d l, __m256d *v2, __m256d *v3, __m256d *bad)
{
  const __m256d sign = _mm256_set1_pd (-0.0), big = _mm256_set1_pd (DBL_MAX);
  __m256d x = _mm256_xor_pd (l, sign);
  __m256d far = _mm256_cmp_pd (_mm256_andnot_pd (sign, l), _mm256_set1_pd (THR), _CMP_NLT_UQ);
  __m256d k3 = k3_poly4 (x, v2);       /* (-l)^2/2 = (l l) 0.5 */
  if (_mm256_movemask_pd (far) != 0)
    k3 = _mm256_blendv_pd (k3, _mm256_add_pd (Sleef_expm1d4_u10avx2 (x), l), far);
  *v3 = k3;
  *bad = _mm256_or_pd (*bad, _mm256_or_pd (_mm256_cmp_pd (*v2, big, _CMP_NLE_UQ),
                                           _mm256_cmp_pd (k3, big, _CMP_NLE_UQ)));
}

/* A block of nb <= BLK tokens, eight at a time (slots 0-3 and 4-7 of the
 * partial sums in two vectors), the rest by tokens_scalar. */
__attribute__ ((target ("avx2,fma"))) static int
block_avx2 (double sums[3], double *k1, double *k2, double *k3, const double *logp,
            const double *ref, size_t nb)
{
  const __m256d zero = _mm256_setzero_pd (), sign = _mm256_set1_pd (-0.0);
  const __m256d big = _mm256_set1_pd (DBL_MAX);
  __m256d a0 = zero, a1 = zero, b0 = zero, b1 = zero, c0 = zero, c1 = zero;
  __m256d bad = zero, in = zero;
  double a[8], b[8], c[8];
  size_t n8 = nb - nb % 8;
  int flags;
  for (size_t i = 0; i < n8; i += 8)
    {
      __m256d p0 = _mm256_loadu_pd (logp + i), p1 = _mm256_loadu_pd (logp + i + 4), l0, l1;
      __m256d u0, u1, w0, w1;
      in = _mm256_or_pd (in, _mm256_or_pd (_mm256_cmp_pd (_mm256_andnot_pd (sign, p0), big,
                                                          _CMP_NLE_UQ),
                                           _mm256_cmp_pd (_mm256_andnot_pd (sign, p1), big,
                                                          _CMP_NLE_UQ)));
      if (ref)
        {
          __m256d r0 = _mm256_loadu_pd (ref + i), r1 = _mm256_loadu_pd (ref + i + 4);
          in = _mm256_or_pd (in, _mm256_or_pd (_mm256_cmp_pd (_mm256_andnot_pd (sign, r0), big,
                                                              _CMP_NLE_UQ),
                                               _mm256_cmp_pd (_mm256_andnot_pd (sign, r1), big,
                                                              _CMP_NLE_UQ)));
          l0 = _mm256_sub_pd (p0, r0);
          l1 = _mm256_sub_pd (p1, r1);
        }
      else
        {
          l0 = p0;
          l1 = p1;
        }
      values4 (l0, &u0, &w0, &bad);
      values4 (l1, &u1, &w1, &bad);
      a0 = _mm256_add_pd (a0, l0);
      a1 = _mm256_add_pd (a1, l1);
      b0 = _mm256_add_pd (b0, u0);
      b1 = _mm256_add_pd (b1, u1);
      c0 = _mm256_add_pd (c0, w0);
      c1 = _mm256_add_pd (c1, w1);
      if (k1)
        {
          _mm256_storeu_pd (k1 + i, l0);
          _mm256_storeu_pd (k1 + i + 4, l1);
        }
      if (k2)
        {
          _mm256_storeu_pd (k2 + i, u0);
          _mm256_storeu_pd (k2 + i + 4, u1);
        }
      if (k3)
        {
          _mm256_storeu_pd (k3 + i, w0);
          _mm256_storeu_pd (k3 + i + 4, w1);
        }
    }
  _mm256_storeu_pd (a, a0);
  _mm256_storeu_pd (a + 4, a1);
  _mm256_storeu_pd (b, b0);
  _mm256_storeu_pd (b + 4, b1);
  _mm256_storeu_pd (c, c0);
  _mm256_storeu_pd (c + 4, c1);
  flags = tokens_scalar (a, b, c, k1, k2, k3, logp, ref, n8, nb);
  flags |= (_mm256_movemask_pd (in) ? BAD_INPUT : 0) | (_mm256_movemask_pd (bad) ? BAD_RANGE : 0);
  sums[0] = tree8 (a);
  sums[1] = tree8 (b);
  sums[2] = tree8 (c);
  return flags;
}

/* The common case of block_avx2: a block with every |l| < 3/2, so k3 is
 * the polynomial and k2, k3 are finite (a NaN or infinite l counts as
 * |l| >= 3/2): the same values and sums as block_avx2, without its checks
 * and calls.  Returns 0, or 1 (and nothing to keep) when some |l| >= 3/2. */
__attribute__ ((target ("avx2,fma"))) static int
block_near_avx2 (double sums[3], double *k1, double *k2, double *k3, const double *logp,
                 const double *ref, size_t nb)
{
  const __m256d zero = _mm256_setzero_pd (), sign = _mm256_set1_pd (-0.0);
  const __m256d thr = _mm256_set1_pd (THR);
  __m256d a0 = zero, a1 = zero, b0 = zero, b1 = zero, c0 = zero, c1 = zero, far = zero;
  double a[8], b[8], c[8];
  size_t n8 = nb - nb % 8;
  for (size_t i = 0; i < n8; i += 8)
    {
      __m256d l0 = _mm256_loadu_pd (logp + i), l1 = _mm256_loadu_pd (logp + i + 4);
      __m256d u0, u1, w0, w1;
      if (ref)
        {
          l0 = _mm256_sub_pd (l0, _mm256_loadu_pd (ref + i));
          l1 = _mm256_sub_pd (l1, _mm256_loadu_pd (ref + i + 4));
        }
      far = _mm256_or_pd (far, _mm256_or_pd (_mm256_cmp_pd (_mm256_andnot_pd (sign, l0), thr,
                                                            _CMP_NLT_UQ),
                                             _mm256_cmp_pd (_mm256_andnot_pd (sign, l1), thr,
                                                            _CMP_NLT_UQ)));
      w0 = k3_poly4 (_mm256_xor_pd (l0, sign), &u0);
      w1 = k3_poly4 (_mm256_xor_pd (l1, sign), &u1);
      a0 = _mm256_add_pd (a0, l0);
      a1 = _mm256_add_pd (a1, l1);
      b0 = _mm256_add_pd (b0, u0);
      b1 = _mm256_add_pd (b1, u1);
      c0 = _mm256_add_pd (c0, w0);
      c1 = _mm256_add_pd (c1, w1);
      if (k1)
        {
          _mm256_storeu_pd (k1 + i, l0);
          _mm256_storeu_pd (k1 + i + 4, l1);
        }
      if (k2)
        {
          _mm256_storeu_pd (k2 + i, u0);
          _mm256_storeu_pd (k2 + i + 4, u1);
        }
      if (k3)
        {
          _mm256_storeu_pd (k3 + i, w0);
          _mm256_storeu_pd (k3 + i + 4, w1);
        }
    }
  if (_mm256_movemask_pd (far))
    return 1;
  for (size_t i = n8; i < nb; i++)
    if (!(fabs (ref ? logp[i] - ref[i] : logp[i]) < THR))
      return 1;
  _mm256_storeu_pd (a, a0);
  _mm256_storeu_pd (a + 4, a1);
  _mm256_storeu_pd (b, b0);
  _mm256_storeu_pd (b + 4, b1);
  _mm256_storeu_pd (c, c0);
  _mm256_storeu_pd (c + 4, c1);
  (void) tokens_scalar (a, b, c, k1, k2, k3, logp, ref, n8, nb);
  sums[0] = tree8 (a);
  sums[1] = tree8 (b);
  sums[2] = tree8 (c);
  return 0;
}

/* Whether this processor takes the AVX2 path. */
static int
have_avx2 (void)
{
  return __builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma");
}
#endif

/* s + c += x (Neumaier): the rounding error of each addition kept in c. */
static inline void
neumaier (double *s, double *c, double x)
{
  double t = *s + x;
  *c += fabs (*s) >= fabs (x) ? (*s - t) + x : (x - t) + *s;
  *s = t;
}

/* A chunk of rlref_kl_batch: blocks [nblk k/8, nblk (k + 1)/8) of the
 * tokens, their per-token values written, their block sums added with
 * Neumaier's compensation into s[k][j] + cs[k][j], flags[k] gathering the
 * blocks' flags. */
typedef struct
{
  double *k1, *k2, *k3;
  const double *logp, *ref;
  size_t n;
  int avx2;
  double s[BATCH_CHUNKS][3], cs[BATCH_CHUNKS][3];
  int flags[BATCH_CHUNKS];
} kl_job;

static void
kl_chunk (void *arg, size_t k)
{
  kl_job *j = arg;
  double *s = j->s[k], *cs = j->cs[k], bs[3];
  size_t nblk = (j->n + BLK - 1) / BLK;
  size_t first = nblk * k / BATCH_CHUNKS * BLK, last = nblk * (k + 1) / BATCH_CHUNKS * BLK;
  int flags = 0;
  if (last > j->n)
    last = j->n;
  s[0] = s[1] = s[2] = cs[0] = cs[1] = cs[2] = 0.0;
  for (size_t b0 = first; b0 < last; b0 += BLK)
    {
      size_t nb = last - b0 < BLK ? last - b0 : BLK;
      const double *ref = j->ref ? j->ref + b0 : NULL;
      double *k1 = j->k1 ? j->k1 + b0 : NULL, *k2 = j->k2 ? j->k2 + b0 : NULL;
      double *k3 = j->k3 ? j->k3 + b0 : NULL;
#ifdef SIMD_AVX2
      if (j->avx2)
        {
          if (block_near_avx2 (bs, k1, k2, k3, j->logp + b0, ref, nb))
            flags |= block_avx2 (bs, k1, k2, k3, j->logp + b0, ref, nb);
        }
      else
#endif
        flags |= block_scalar (bs, k1, k2, k3, j->logp + b0, ref, nb);
      neumaier (&s[0], &cs[0], bs[0]);
      neumaier (&s[1], &cs[1], bs[1]);
      neumaier (&s[2], &cs[2], bs[2]);
    }
  j->flags[k] = flags;
}

/* KL-K1, KL-K2, KL-K3 (13.26) and their sums over n tokens: 8 chunks of
 * whole blocks (on the threads of rlref_batch_set_threads when n is large),
 * their compensated sums s + c added in chunk order, again compensated. */
int
rlref_kl_batch (double *restrict k1, double *restrict k2, double *restrict k3,
                double *restrict sums, const double *restrict logp,
                const double *restrict ref_logp, size_t n)
{
  kl_job job = { k1, k2, k3, logp, ref_logp, n, 0, { { 0 } }, { { 0 } }, { 0 } };
  double s[3] = { 0, 0, 0 }, cs[3] = { 0, 0, 0 };
  int flags = 0;
  if (n == 0)
    RLREF_ERROR ("empty input", RLREF_EINVAL);
  if (!logp)
    RLREF_ERROR ("log-probabilities missing", RLREF_EINVAL);
#ifdef SIMD_AVX2
  job.avx2 = have_avx2 ();
#endif
  (void) rlref_batch_run (kl_chunk, &job, BATCH_CHUNKS, n >= BATCH_MIN_PARALLEL);
  for (size_t k = 0; k < BATCH_CHUNKS; k++)
    {
      flags |= job.flags[k];
      for (int j = 0; j < 3; j++)
        {
          neumaier (&s[j], &cs[j], job.s[k][j]);
          if (isfinite (job.cs[k][j]))    /* NaN after an infinite k */
            neumaier (&s[j], &cs[j], job.cs[k][j]);
        }
    }
  if (flags & BAD_INPUT)
    RLREF_ERROR ("non-finite log-probability", RLREF_ENAN);
  if (sums)
    for (int j = 0; j < 3; j++)
      sums[j] = isfinite (s[j]) ? s[j] + cs[j] : s[j];
  if (flags & BAD_RANGE)
    RLREF_ERROR ("k2 or k3 exceeds the largest double", RLREF_ERANGE);
  return RLREF_SUCCESS;
}

/* Which path rlref_kl_batch takes on this machine. */
const char *
rlref_kl_batch_path (void)
{
#ifdef SIMD_AVX2
  if (have_avx2 ())
    return "AVX2, SLEEF expm1";
#endif
  return "scalar, glibc expm1";
}
