/* batch_kl.c -- binary64 batch kernel of the KL estimators k1, k2, k3
 * (KL-K1, KL-K2, KL-K3; seed 000 table 5 and (13.26)) over n tokens:
 * per-token values and their sums, held to rlref_kl_estimate_d
 * (src/formulas/kl.c, conventions "plain" and "stable").
 *
 * Tokens go by blocks of BLK: a loop without branches forms l, k2 and the
 * series form of k3 for the whole block (compiled also for AVX2), a second
 * pass replaces k3 by expm1(-l) + l where |l| >= 1/2 (the reference's form
 * there, so those values agree bit for bit), and each sum takes the block
 * in 8 interleaved partial sums, added with Neumaier's compensation to the
 * total of one of 8 fixed chunks of blocks; the chunks' totals are added
 * in order, again compensated.  The chunks run on the threads of
 * rlref_batch_set_threads when n is large; the result is the same.  One
 * pass checks the inputs first; nothing is allocated. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "rlref/batch.h"
#include "batch_threads.h"

#define BLK 256

/* 1/n!, n = 3..17: the series of (e^x - 1 - x - x^2/2)/x^3. */
#define F3 (1.0 / 6.0)
#define F4 (1.0 / 24.0)
#define F5 (1.0 / 120.0)
#define F6 (1.0 / 720.0)
#define F7 (1.0 / 5040.0)
#define F8 (1.0 / 40320.0)
#define F9 (1.0 / 362880.0)
#define F10 (1.0 / 3628800.0)
#define F11 (1.0 / 39916800.0)
#define F12 (1.0 / 479001600.0)
#define F13 (1.0 / 6227020800.0)
#define F14 (1.0 / 87178291200.0)
#define F15 (1.0 / 1307674368000.0)
#define F16 (1.0 / 20922789888000.0)
#define F17 (1.0 / 355687428096000.0)

/* k3 = e^x - 1 - x at x = -l for |x| < 1/2 (13.26):
 *   x^2/2 + x^3 q(x),  q = sum_{j=0}^{14} x^j/(j + 3)!  (Horner);
 * the terms left out are below 2^-62 of the sum.  The first term carries
 * the value (|x^3 q| <= |x^2|/6): within 2 ulp of the exact k3 (1.6 ulp
 * measured). */
static inline double
k3_series (double x)
{
  double q = F17, x2 = x * x;
  q = q * x + F16;
  q = q * x + F15;
  q = q * x + F14;
  q = q * x + F13;
  q = q * x + F12;
  q = q * x + F11;
  q = q * x + F10;
  q = q * x + F9;
  q = q * x + F8;
  q = q * x + F7;
  q = q * x + F6;
  q = q * x + F5;
  q = q * x + F4;
  q = q * x + F3;
  return x2 * 0.5 + (x2 * x) * q;
}

/* l = logp - ref (or logp), k2 = l^2/2 and the series k3 for the nb
 * tokens of a block (loops without branches). */
static inline void
block_values (double *restrict L, double *restrict K2, double *restrict K3,
              const double *restrict logp, const double *restrict ref, size_t nb)
{
  if (ref)
    for (size_t i = 0; i < nb; i++)
      L[i] = logp[i] - ref[i];
  else
    for (size_t i = 0; i < nb; i++)
      L[i] = logp[i];
  for (size_t i = 0; i < nb; i++)
    {
      K2[i] = (L[i] * L[i]) * 0.5;
      K3[i] = k3_series (-L[i]);
    }
}

/* block_values for a whole block, compiled also for AVX2 (GCC chooses
 * the clone at load time; the operations, and so the results, are the
 * same: C11 forbids contracting them into fma). */
__attribute__ ((target_clones ("avx2", "default"))) static void
block_full (double *restrict L, double *restrict K2, double *restrict K3,
            const double *restrict logp, const double *restrict ref)
{
  block_values (L, K2, K3, logp, ref, BLK);
}

/* The sums of a whole block of L, K2, K3 as block_sum forms them (8
 * interleaved partial sums, combined as a tree), and whether K2 and K3
 * are finite; compiled also for AVX2, as block_full. */
__attribute__ ((target_clones ("avx2", "default"))) static int
block_sums (double *sL, double *s2, double *s3, const double *restrict L,
            const double *restrict K2, const double *restrict K3)
{
  double a[8] = { 0 }, b[8] = { 0 }, c[8] = { 0 };
  int ok = 1;
  for (size_t i = 0; i < BLK; i += 8)
    for (size_t j = 0; j < 8; j++)
      {
        a[j] += L[i + j];
        b[j] += K2[i + j];
        c[j] += K3[i + j];
        ok &= (K2[i + j] <= DBL_MAX) & (K3[i + j] <= DBL_MAX);
      }
  *sL = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  *s2 = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
  *s3 = ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]));
  return ok;
}

/* The sum of v[0..nb-1] in 8 interleaved partial sums, combined as a tree. */
static inline double
block_sum (const double *v, size_t nb)
{
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  size_t i = 0;
  for (; i + 8 <= nb; i += 8)
    {
      a0 += v[i];
      a1 += v[i + 1];
      a2 += v[i + 2];
      a3 += v[i + 3];
      a4 += v[i + 4];
      a5 += v[i + 5];
      a6 += v[i + 6];
      a7 += v[i + 7];
    }
  for (; i < nb; i++)
    a0 += v[i];
  return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}

/* s + c += x (Neumaier): the rounding error of each addition kept in c. */
static inline void
neumaier (double *s, double *c, double x)
{
  double t = *s + x;
  *c += fabs (*s) >= fabs (x) ? (*s - t) + x : (x - t) + *s;
  *s = t;
}

/* Whether x[0..n-1] are all finite: x 0 is NaN for a NaN or an infinite
 * x, so a sum of them is 0 exactly when all are finite (by blocks, a loop
 * the compiler vectorizes). */
static int
all_finite (const double *x, size_t n)
{
  double a[8] = { 0, 0, 0, 0, 0, 0, 0, 0 }, t = 0.0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (size_t j = 0; j < 8; j++)
      a[j] += x[i + j] * 0.0;
  for (; i < n; i++)
    t += x[i] * 0.0;
  for (size_t j = 0; j < 8; j++)
    t += a[j];
  return t == 0.0;
}

/* A chunk of rlref_kl_batch: blocks [nblk k/8, nblk (k + 1)/8) of the
 * tokens, their per-token values written, their block sums added with
 * Neumaier's compensation into s[k][j] + cs[k][j], range[k] set where k2
 * or k3 is not finite. */
typedef struct
{
  double *k1, *k2, *k3;
  const double *logp, *ref;
  size_t n;
  double s[BATCH_CHUNKS][3], cs[BATCH_CHUNKS][3];
  int range[BATCH_CHUNKS];
} kl_job;

static void
kl_chunk (void *arg, size_t k)
{
  kl_job *j = arg;
  double L[BLK], K2[BLK], K3[BLK], *s = j->s[k], *cs = j->cs[k];
  unsigned short big[BLK];
  size_t m;
  size_t nblk = (j->n + BLK - 1) / BLK;
  size_t first = nblk * k / BATCH_CHUNKS * BLK, last = nblk * (k + 1) / BATCH_CHUNKS * BLK;
  int range = 0;
  if (last > j->n)
    last = j->n;
  s[0] = s[1] = s[2] = cs[0] = cs[1] = cs[2] = 0.0;
  for (size_t b0 = first; b0 < last; b0 += BLK)
    {
      size_t nb = last - b0 < BLK ? last - b0 : BLK;
      const double *ref = j->ref ? j->ref + b0 : NULL;
      if (nb == BLK)
        block_full (L, K2, K3, j->logp + b0, ref);
      else
        block_values (L, K2, K3, j->logp + b0, ref, nb);
      /* the tokens with |l| >= 1/2, listed without a branch */
      m = 0;
      for (size_t i = 0; i < nb; i++)
        {
          big[m] = (unsigned short) i;
          m += !(fabs (L[i]) < 0.5);
        }
      for (size_t q = 0; q < m; q++)
        K3[big[q]] = expm1 (-L[big[q]]) + L[big[q]];
      if (nb == BLK)
        {
          double b1, b2, b3;
          range |= !block_sums (&b1, &b2, &b3, L, K2, K3);
          neumaier (&s[0], &cs[0], b1);
          neumaier (&s[1], &cs[1], b2);
          neumaier (&s[2], &cs[2], b3);
        }
      else
        {
          for (size_t i = 0; i < nb; i++)
            range |= !isfinite (K2[i]) | !isfinite (K3[i]);
          neumaier (&s[0], &cs[0], block_sum (L, nb));
          neumaier (&s[1], &cs[1], block_sum (K2, nb));
          neumaier (&s[2], &cs[2], block_sum (K3, nb));
        }
      if (j->k1)
        memcpy (j->k1 + b0, L, nb * sizeof *L);
      if (j->k2)
        memcpy (j->k2 + b0, K2, nb * sizeof *K2);
      if (j->k3)
        memcpy (j->k3 + b0, K3, nb * sizeof *K3);
    }
  j->range[k] = range;
}

/* KL-K1, KL-K2, KL-K3 (13.26) and their sums over n tokens: 8 chunks of
 * whole blocks (on the threads of rlref_batch_set_threads when n is large),
 * their compensated sums s + c added in chunk order, again compensated. */
int
rlref_kl_batch (double *restrict k1, double *restrict k2, double *restrict k3,
                double *restrict sums, const double *restrict logp,
                const double *restrict ref_logp, size_t n)
{
  kl_job job = { k1, k2, k3, logp, ref_logp, n, { { 0 } }, { { 0 } }, { 0 } };
  double s[3] = { 0, 0, 0 }, cs[3] = { 0, 0, 0 };
  int range = 0;
  if (n == 0)
    RLREF_ERROR ("empty input", RLREF_EINVAL);
  if (!logp)
    RLREF_ERROR ("log-probabilities missing", RLREF_EINVAL);
  if (!all_finite (logp, n) || (ref_logp && !all_finite (ref_logp, n)))
    RLREF_ERROR ("non-finite log-probability", RLREF_ENAN);
  (void) rlref_batch_run (kl_chunk, &job, BATCH_CHUNKS, n >= BATCH_MIN_PARALLEL);
  for (size_t k = 0; k < BATCH_CHUNKS; k++)
    {
      range |= job.range[k];
      for (int j = 0; j < 3; j++)
        {
          neumaier (&s[j], &cs[j], job.s[k][j]);
          if (isfinite (job.cs[k][j]))    /* NaN after an infinite k */
            neumaier (&s[j], &cs[j], job.cs[k][j]);
        }
    }
  if (sums)
    for (int j = 0; j < 3; j++)
      sums[j] = isfinite (s[j]) ? s[j] + cs[j] : s[j];
  if (range)
    RLREF_ERROR ("k2 or k3 exceeds the largest double", RLREF_ERANGE);
  return RLREF_SUCCESS;
}
