/* batch_dpo.c -- binary64 batch kernel of the pairwise DPO losses
 * (DPO-LOSS (seed 000 13.21), DPO-CDPO, DPO-IPO) and their gradients, held
 * bit for bit to rlref_dpo_loss_d (src/dpo/dpo.c).
 *
 * The reference forms softplus(x) = max(x, 0) + log1p(e^-|x|) and
 * sigma(x) = 1/(1 + e^-x) (x >= 0) or e^x/(e^x + 1) (x < 0) in separate
 * calls; each exponentiates -|x|, the same number for x = z and x = -z.
 * So one e = exp(-|z|) and one log1p(e) per pair give every softplus and
 * sigma the convention needs, each with the reference's operations, and
 * sigma(z) - 1 is never formed: the gradient takes -sigma(-z).  One pass
 * checks the inputs (finiteness, and D and b D in range), one computes;
 * the loss is the reference's left-to-right sum.  Nothing is allocated.
 * rlref_dpo_sigmoid_batch_simd is the sigmoid form on AVX2 (SLEEF's exp,
 * log1p by a series), within the bounds stated in rlref/batch.h. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include "rlref/batch.h"
#include "rlref/num.h"
#include "batch_threads.h"
#include "num_eft.h"

/* With SLEEF (-DRLREF_HAVE_SLEEF, linked with -lsleef), the sigmoid loss
 * of rlref_dpo_sigmoid_batch_simd runs four pairs at a time on AVX2.
 * sleef.h declares its AVX2 functions only where AVX is enabled: the
 * headers are read with AVX2 enabled, and only the function that uses
 * them is compiled for AVX2 (and chosen at run time). */
#if defined(RLREF_HAVE_SLEEF) && defined(__x86_64__) && defined(__GNUC__)
#define SIMD_AVX2 1
#pragma GCC push_options
#pragma GCC target ("avx2,fma")
#include <immintrin.h>
#include <sleef.h>
#pragma GCC pop_options
#endif

/* A per-token convention's divisor of a count n >= 0: max(n, 1) (TRL's
 * clamp(min=1.0), as the reference). */
static inline double
clamped (long n)
{
  return n < 1 ? 1.0 : (double) n;
}

/* x - y when it is exact (and finite), else NaN: the error term of
 * Knuth's two-sum is zero. */
static inline double
exact_sub (double x, double y)
{
  double s = x - y, v = s - x;
  double err = (x - (s - v)) + (-y - v);
  return isfinite (s) && err == 0.0 ? s : NAN;
}

/* The number of bits of a count n >= 1, as the reference's count_bits. */
static inline long
count_bits (long n)
{
  long k = 0;
  for (; n > 0; n >>= 1)
    k++;
  return k;
}

/* The log-ratio difference of pair i, as the reference's log_ratios
 * (src/dpo/dpo.c):
 *   D = pw - rw - pl + rl  rounded once, or (per_token)
 *   D = (m lw - n ll)/(n m),  n = max(n_w, 1), m = max(n_l, 1),
 * the numerator rounded once (over the counts scaled by 2^-k where it
 * overflows), then f = N 2^-e in [1/2, 1), D = ((f/n)/m) 2^(e + k).
 * Where lw = pw - rw and ll = pl - rl are exact, and (per_token) so are
 * m lw and n ll, lw - ll (m lw - n ll) is that rounded sum; elsewhere,
 * and for a zero (its sign), the exact accumulator (rlref_num_sum_d,
 * rlref_num_dot_d) as in the reference. */
/* o(pw - rw - pl + rl) when two-sums certify it, else NAN: the sum is
 * h + e1 + e2 + e3 exactly, = h + lo + f exactly with lo the errors' sum
 * and f = f1 + f2 its own two errors; y = o(h + lo), h + lo = y + r.  Where
 * f = 0, y is the sum's rounding (ties included); otherwise when
 * eft_rounds_to_d says so, r + f formed to within u |r + f| (every pair
 * but those whose exact D lies near a midpoint or is tiny against the
 * log-probabilities; a zero is left to the exact sum, for its sign). */
static inline double
D_certified (double pw, double rw, double pl, double rl)
{
  double s1, e1, s2, e2, h, e3, a, f1, lo, f2, y, r, rest;
  eft_two_sum_d (pw, -rw, &s1, &e1);
  eft_two_sum_d (-pl, rl, &s2, &e2);
  eft_two_sum_d (s1, s2, &h, &e3);
  eft_two_sum_d (e1, e2, &a, &f1);
  eft_two_sum_d (a, e3, &lo, &f2);
  eft_two_sum_d (h, lo, &y, &r);
  if (!isfinite (y) || y == 0.0)
    return NAN;
  if (f1 == 0.0 && f2 == 0.0)
    return y;
  rest = r + (f1 + f2);
  return eft_rounds_to_d (y, rest, 0x1p-51 * fabs (rest) * (1.0 + 0x1p-50)) ? y : NAN;
}

static double
pair_D (double pw, double rw, double pl, double rl, const long *n_w, const long *n_l, size_t i,
        int per_token)
{
  double x4[4] = { pw, -rw, -pl, rl }, c4[4];
  double lw = exact_sub (pw, rw), ll = exact_sub (pl, rl), N = NAN, n, m;
  long k = 0;
  int e;
  if (!per_token)
    {
      double d = lw - ll;
      if (isfinite (d) && d != 0.0)
        return d;
      d = D_certified (pw, rw, pl, rl);
      return isfinite (d) ? d : rlref_num_sum_d (x4, 4);
    }
  n = (double) (n_w[i] < 1 ? 1 : n_w[i]);
  m = (double) (n_l[i] < 1 ? 1 : n_l[i]);
  if (isfinite (lw) && isfinite (ll))
    {
      double a = m * lw, b = n * ll;
      if (isfinite (a) && isfinite (b) && fma (m, lw, -a) == 0.0 && fma (n, ll, -b) == 0.0)
        N = a - b;
    }
  if (!isfinite (N) || N == 0.0)
    for (;;)
      {
        c4[0] = c4[1] = ldexp (m, (int) -k);
        c4[2] = c4[3] = ldexp (n, (int) -k);
        N = rlref_num_dot_d (x4, c4, 4);
        if (isfinite (N) || k > 0)
          break;
        k = count_bits (n_w[i] < 1 ? 1 : n_w[i]) + count_bits (n_l[i] < 1 ? 1 : n_l[i]) + 2;
      }
  if (N == 0.0 || !isfinite (N))
    return N;
  N = frexp (N, &e);
  return ldexp (N / n / m, e + (int) k);
}

/* The reference's checks, in its order: NULL arguments and an empty batch
 * (EINVAL), a non-finite log-probability (ENAN, array by array), beta
 * (ENAN, EDOM), the token counts (EINVAL, EDOM), eps (ENAN, EDOM), then D
 * or b D overflowing (ERANGE).  One pass over the pairs gathers the flags. */
static int
check_inputs (const double *const v[4], const long *n_w, const long *n_l, size_t B,
              const rlref_dpo_convention *c, double b, double beta, double eps)
{
  int nan[4] = { 0, 0, 0, 0 }, range = 0, counts = 0;
  int pt = c->per_token, ipo = c->form == RLREF_DPO_IPO;
  int have_counts = !pt || (n_w && n_l);
  for (int j = 0; j < 4; j++)
    if (!v[j])
      {
        /* the arrays before it are still checked first */
        for (int jj = 0; jj < j; jj++)
          for (size_t i = 0; i < B; i++)
            if (!isfinite (v[jj][i]))
              RLREF_ERROR ("non-finite log-probability", RLREF_ENAN);
        RLREF_ERROR ("log-probabilities missing", RLREF_EINVAL);
      }
  for (size_t i = 0; i < B; i++)
    {
      double pw = v[0][i], pl = v[1][i], rw = v[2][i], rl = v[3][i], D, z;
      nan[0] |= !isfinite (pw);
      nan[1] |= !isfinite (pl);
      nan[2] |= !isfinite (rw);
      nan[3] |= !isfinite (rl);
      if (pt && have_counts)
        counts |= (n_w[i] < 0) | (n_l[i] < 0);
      D = have_counts ? pair_D (pw, rw, pl, rl, n_w, n_l, i, pt) : 0.0;
      z = b * D;
      range |= (!isfinite (pw - rw)) | (!isfinite (pl - rl)) | (!isfinite (D))
        | (!ipo & !isfinite (z));
    }
  for (int j = 0; j < 4; j++)
    if (nan[j])
      RLREF_ERROR ("non-finite log-probability", RLREF_ENAN);
  if (!isfinite (beta))
    RLREF_ERROR ("beta must be finite and > 0", RLREF_ENAN);
  if (!(beta > 0.0))
    RLREF_ERROR ("beta must be finite and > 0", RLREF_EDOM);
  if (!have_counts)
    RLREF_ERROR ("token counts missing", RLREF_EINVAL);
  if (counts)
    RLREF_ERROR ("a token count must be at least 0", RLREF_EDOM);
  if (c->form == RLREF_DPO_CDPO || c->form == RLREF_DPO_ROBUST)
    {
      if (!isfinite (eps))
        RLREF_ERROR ("label smoothing eps must be finite and >= 0", RLREF_ENAN);
      if (eps < 0.0)
        RLREF_ERROR ("label smoothing eps must be finite and >= 0", RLREF_EDOM);
      if (c->form == RLREF_DPO_CDPO && eps > 1.0)
        RLREF_ERROR ("cDPO needs 0 <= eps <= 1", RLREF_EDOM);
      if (c->form == RLREF_DPO_ROBUST && eps > 1.0)
        RLREF_ERROR ("robust DPO needs 0 <= eps <= 1", RLREF_EDOM);
      if (c->form == RLREF_DPO_ROBUST && eps == 0.5)
        RLREF_ERROR ("robust DPO at eps = 1/2 divides by 1 - 2 eps = 0: the loss is not finite",
                     RLREF_EDOM);
    }
  if (range)
    RLREF_ERROR ("the log-ratio difference overflows", RLREF_ERANGE);
  return RLREF_SUCCESS;
}

/* Per pair, with z = b D, t = -z, E = exp(-|z|), L = log1p(E), P = E + 1,
 * sigma(x) = 1/P for x >= 0 and E/P for x < 0, softplus(x) = max(x, 0) + L:
 *   sigmoid  l = softplus(t)                           g = -(b sigma(t))
 *   hinge    l = 1 - z if > 0, else 0                  g = -b, or 0
 *   cdpo     l = (1-e) softplus(t) + e softplus(z)     g = (e sigma(z) - (1-e) sigma(t)) b
 *   robust   l = ((1-e) softplus(t) - e softplus(z))/(1 - 2e)
 *            g = -((((1-e) sigma(t) + e sigma(z))/(1 - 2e)) b)
 *   ipo      l = (D - 1/(2b))^2                        g = 2 (D - 1/(2b))
 * then dloss/dlogp_w = g/B (/n_w), dloss/dlogp_l = -(g/B (/n_l)),
 * loss = (sum_i l_i)/B, rewards beta lw, beta ll. */
int
rlref_dpo_loss_batch (double *loss, double *restrict losses, double *restrict grad_w,
                      double *restrict grad_l, double *restrict reward_w,
                      double *restrict reward_l, const double *restrict logp_w,
                      const double *restrict logp_l, const double *restrict ref_w,
                      const double *restrict ref_l, const long *restrict n_w,
                      const long *restrict n_l, size_t B, const rlref_dpo_convention *c,
                      double beta, double eps)
{
  const double *v[4] = { logp_w, logp_l, ref_w, ref_l };
  double b, q, e1, sum = 0.0, Bd = (double) B, den = 1.0;
  int status, pt, form;
  if (!loss || !c)
    RLREF_ERROR ("loss or convention missing", RLREF_EINVAL);
  if (B == 0)
    RLREF_ERROR ("empty batch", RLREF_EINVAL);
  if (c->form != RLREF_DPO_SIGMOID && c->form != RLREF_DPO_HINGE && c->form != RLREF_DPO_CDPO
      && c->form != RLREF_DPO_ROBUST && c->form != RLREF_DPO_IPO)
    RLREF_ERROR ("unknown DPO form", RLREF_EINVAL);
  b = c->beta_squared ? beta * beta : beta;
  status = check_inputs (v, n_w, n_l, B, c, b, beta, eps);
  if (status)
    return status;
  pt = c->per_token;
  form = c->form;
  q = 1.0 / (b * 2.0);
  e1 = 1.0 - eps;
  if (form == RLREF_DPO_ROBUST)
    den = 1.0 - eps * 2.0;
  for (size_t i = 0; i < B; i++)
    {
      double lw = logp_w[i] - ref_w[i], ll = logp_l[i] - ref_l[i];
      double D = pair_D (logp_w[i], ref_w[i], logp_l[i], ref_l[i], n_w, n_l, i, pt);
      double z = b * D, t = -z;
      double l, g;
      if (form == RLREF_DPO_SIGMOID || form == RLREF_DPO_CDPO || form == RLREF_DPO_ROBUST)
        {
          double E = exp (-fabs (z)), L = log1p (E), P = E + 1.0;
          double sp_t = (t > 0.0 ? t : 0.0) + L;
          if (form == RLREF_DPO_SIGMOID)
            {
              l = sp_t;
              g = -(b * ((t >= 0.0 ? 1.0 : E) / P));
            }
          else
            {
              double sp_z = (z > 0.0 ? z : 0.0) + L, hi = 1.0 / P, lo = E / P;
              double a = sp_t * e1, s = sp_z * eps;
              double st = (t >= 0.0 ? hi : lo) * e1, sz = (z >= 0.0 ? hi : lo) * eps;
              if (form == RLREF_DPO_CDPO)
                {
                  l = a + s;
                  g = (sz - st) * b;
                }
              else
                {
                  l = (a - s) / den;
                  g = -(((st + sz) / den) * b);
                }
            }
        }
      else if (form == RLREF_DPO_HINGE)
        {
          double a = 1.0 - z;
          l = a > 0.0 ? a : 0.0;
          g = a > 0.0 ? -b : 0.0;
        }
      else
        {
          double a = D - q;
          l = a * a;
          g = a * 2.0;
        }
      sum += l;
      g = g / Bd;
      if (losses)
        losses[i] = l;
      if (grad_w)
        grad_w[i] = pt ? g / clamped (n_w[i]) : g;
      if (grad_l)
        grad_l[i] = -(pt ? g / clamped (n_l[i]) : g);
      if (reward_w)
        reward_w[i] = beta * lw;
      if (reward_l)
        reward_l[i] = beta * ll;
    }
  *loss = sum / Bd;
  return RLREF_SUCCESS;
}

#ifdef SIMD_AVX2
/* The coefficients 1/(2k + 1), k = 1 .. 17, of
 *   log1p(x) = 2 atanh(s) = 2s + 2s y (1/3 + y/5 + y^2/7 + ...),
 * s = x/(2 + x), y = s^2, each rounded once. */
static const double atanh_c[17] = {
  1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19,
  1.0 / 21, 1.0 / 23, 1.0 / 25, 1.0 / 27, 1.0 / 29, 1.0 / 31, 1.0 / 33, 1.0 / 35
};

/* log1p(x) for 0 <= x <= 1, four at a time: s = x/(2 + x) <= 1/3, so
 * y <= 1/9 and the series cut after y^16 leaves less than 2^-59 of the
 * value; q(y) = sum_{k=0}^{16} atanh_c[k] y^k by Estrin's scheme (pairs
 * with fma, then powers y^2, y^4, y^8, y^16: a short chain of dependent
 * operations, all terms positive), then 2s + (2s y) q.  The rounding of
 * 2 + x and of the quotient (2u relative between them) and the last fma
 * give |log1p(x) - L| < 3 ulp (1.94 measured over 2 10^7 x); x = 0
 * gives 0. */
#define C4(k) _mm256_set1_pd (atanh_c[k])
__attribute__ ((target ("avx2,fma"))) static inline __m256d
log1p01_avx2 (__m256d x)
{
  __m256d s = _mm256_div_pd (x, _mm256_add_pd (_mm256_set1_pd (2.0), x));
  __m256d y = _mm256_mul_pd (s, s), s2 = _mm256_add_pd (s, s);
  __m256d y2 = _mm256_mul_pd (y, y), y4 = _mm256_mul_pd (y2, y2), y8 = _mm256_mul_pd (y4, y4);
  __m256d q0 = _mm256_fmadd_pd (_mm256_fmadd_pd (C4 (3), y, C4 (2)), y2,
                                _mm256_fmadd_pd (C4 (1), y, C4 (0)));
  __m256d q1 = _mm256_fmadd_pd (_mm256_fmadd_pd (C4 (7), y, C4 (6)), y2,
                                _mm256_fmadd_pd (C4 (5), y, C4 (4)));
  __m256d q2 = _mm256_fmadd_pd (_mm256_fmadd_pd (C4 (11), y, C4 (10)), y2,
                                _mm256_fmadd_pd (C4 (9), y, C4 (8)));
  __m256d q3 = _mm256_fmadd_pd (_mm256_fmadd_pd (C4 (15), y, C4 (14)), y2,
                                _mm256_fmadd_pd (C4 (13), y, C4 (12)));
  __m256d q = _mm256_fmadd_pd (_mm256_fmadd_pd (q3, y4, q2), y8, _mm256_fmadd_pd (q1, y4, q0));
  q = _mm256_fmadd_pd (C4 (16), _mm256_mul_pd (y8, y8), q);
  return _mm256_fmadd_pd (_mm256_mul_pd (s2, y), q, s2);
}
#undef C4

/* The sigmoid form of rlref_dpo_loss_batch, four pairs at a time, n a
 * multiple of 4: z = b D, E = exp(-|z|) by SLEEF (Sleef_expd4_u10avx2,
 * within 1 ulp) and L = log1p(E) by log1p01_avx2, then the reference's
 * operations but for the division by B: l = max(-z, 0) + L,
 * g = f s, s = (-z >= 0 ? 1 : E)/(E + 1), f = -(b/B) rounded once (the
 * caller makes sure it is a normal number).  In blocks of SIG_BLOCK
 * pairs: first z and E for the block (the calls of exp independent of
 * one another), then the rest.  The losses are summed in four lanes, each
 * left to right, the lanes added as (0 + 1) + (2 + 3); n = 0 gives sum 0.
 * Returns 0, or 1 when an input or z is not finite (the outputs are then
 * to be discarded: the caller finds the status). */
#define SIG_BLOCK 64
__attribute__ ((target ("avx2,fma"))) static int
sigmoid_avx2 (double *sum, double *restrict grad_w, double *restrict grad_l,
              const double *restrict pw, const double *restrict pl, const double *restrict rw,
              const double *restrict rl, size_t n, double b, double f)
{
  const __m256d vb = _mm256_set1_pd (b), vf = _mm256_set1_pd (f), one = _mm256_set1_pd (1.0);
  const __m256d zero = _mm256_setzero_pd (), sign = _mm256_set1_pd (-0.0);
  const __m256d big = _mm256_set1_pd (DBL_MAX);
  __m256d acc = _mm256_setzero_pd (), ok = _mm256_castsi256_pd (_mm256_set1_epi64x (-1));
  double lane[4], zb[SIG_BLOCK] __attribute__ ((aligned (32)));
  double eb[SIG_BLOCK] __attribute__ ((aligned (32)));
  for (size_t i0 = 0; i0 < n; i0 += SIG_BLOCK)
    {
      size_t m = n - i0 < SIG_BLOCK ? n - i0 : SIG_BLOCK;
      for (size_t j = 0; j < m; j += 4)
        {
          size_t i = i0 + j;
          __m256d a = _mm256_loadu_pd (pw + i), c = _mm256_loadu_pd (rw + i);
          __m256d d = _mm256_loadu_pd (pl + i), e = _mm256_loadu_pd (rl + i);
          __m256d z = _mm256_mul_pd (vb, _mm256_sub_pd (_mm256_sub_pd (a, c),
                                                        _mm256_sub_pd (d, e)));
          _mm256_store_pd (zb + j, z);
          _mm256_store_pd (eb + j, Sleef_expd4_u10avx2 (_mm256_or_pd (z, sign)));
        }
      for (size_t j = 0; j < m; j += 4)
        {
          size_t i = i0 + j;
          __m256d z = _mm256_load_pd (zb + j), E = _mm256_load_pd (eb + j);
          __m256d t = _mm256_xor_pd (z, sign), L = log1p01_avx2 (E);
          __m256d P = _mm256_add_pd (E, one), pos = _mm256_cmp_pd (t, zero, _CMP_GE_OQ);
          __m256d l = _mm256_add_pd (_mm256_and_pd (_mm256_cmp_pd (t, zero, _CMP_GT_OQ), t), L);
          __m256d g = _mm256_mul_pd (vf, _mm256_div_pd (_mm256_blendv_pd (E, one, pos), P));
          /* z finite (|z| <= DBL_MAX is false for NaN): a difference or a
           * product by b > 0 of a NaN or an infinity is one, so this holds
           * only where the four inputs are finite too */
          ok = _mm256_and_pd (ok, _mm256_cmp_pd (_mm256_andnot_pd (sign, z), big, _CMP_LE_OQ));
          acc = _mm256_add_pd (acc, l);
          _mm256_storeu_pd (grad_w + i, g);
          _mm256_storeu_pd (grad_l + i, _mm256_xor_pd (g, sign));
        }
    }
  _mm256_storeu_pd (lane, acc);
  *sum = (lane[0] + lane[1]) + (lane[2] + lane[3]);
  return _mm256_movemask_pd (ok) != 0xf;
}

/* A chunk of the AVX2 loop: quads [nq k/8, nq (k + 1)/8) of the pairs. */
typedef struct
{
  double *grad_w, *grad_l;
  const double *pw, *pl, *rw, *rl;
  size_t nq;
  double b, f, sum[BATCH_CHUNKS];
  int bad[BATCH_CHUNKS];
} sigmoid_job;

static void
sigmoid_chunk (void *arg, size_t k)
{
  sigmoid_job *j = arg;
  size_t first = j->nq * k / BATCH_CHUNKS * 4, last = j->nq * (k + 1) / BATCH_CHUNKS * 4;
  j->bad[k] = sigmoid_avx2 (&j->sum[k], j->grad_w + first, j->grad_l + first, j->pw + first,
                            j->pl + first, j->rw + first, j->rl + first, last - first, j->b,
                            j->f);
}
#endif

/* DPO-LOSS (13.21), sigmoid form, on the fast path (rlref/batch.h): one
 * pass, the checks folded into it, over 8 chunks (on the threads of
 * rlref_batch_set_threads when B is large) whose sums are added in order;
 * where a check fails, the reference's checks name the status.  The
 * gradient -(b s)/B is formed as f s, f = -(b/B) rounded once: one
 * rounding in place of another, so long as b/B is a normal number (else
 * the bit-exact kernel). */
int
rlref_dpo_sigmoid_batch_simd (double *loss, double *grad_w, double *grad_l,
                              const double *logp_w, const double *logp_l, const double *ref_w,
                              const double *ref_l, size_t B, double beta)
{
  rlref_dpo_convention c = { RLREF_DPO_SIGMOID, 0, 0 };
#ifdef SIMD_AVX2
  const double *v[4] = { logp_w, logp_l, ref_w, ref_l };
  size_t n4 = B - B % 4;
  double sum = 0.0, tail = 0.0, Bd = (double) B, f = -(beta / Bd);
  int bad;
  if (!__builtin_cpu_supports ("avx2") || !__builtin_cpu_supports ("fma") || !loss || !grad_w
      || !grad_l || !logp_w || !logp_l || !ref_w || !ref_l || B < 4 || !(beta > 0.0)
      || !(beta <= DBL_MAX) || !(-f >= DBL_MIN))
    return rlref_dpo_loss_batch (loss, NULL, grad_w, grad_l, NULL, NULL, logp_w, logp_l, ref_w,
                                 ref_l, NULL, NULL, B, &c, beta, 0.0);
  {
    sigmoid_job job = { grad_w, grad_l, logp_w, logp_l, ref_w, ref_l, n4 / 4, beta, f,
                        { 0 }, { 0 } };
    (void) rlref_batch_run (sigmoid_chunk, &job, BATCH_CHUNKS, B >= BATCH_MIN_PARALLEL);
    bad = 0;
    for (size_t k = 0; k < BATCH_CHUNKS; k++)
      {
        sum += job.sum[k];
        bad |= job.bad[k];
      }
  }
  /* the pairs left over: glibc's exp and log1p, g = f s as above */
  for (size_t i = n4; i < B; i++)
    {
      double z = beta * ((logp_w[i] - ref_w[i]) - (logp_l[i] - ref_l[i])), t = -z;
      double E = exp (-fabs (z)), g;
      bad |= !isfinite (logp_w[i]) | !isfinite (logp_l[i]) | !isfinite (ref_w[i])
        | !isfinite (ref_l[i]) | !isfinite (z);
      tail += (t > 0.0 ? t : 0.0) + log1p (E);
      g = f * ((t >= 0.0 ? 1.0 : E) / (E + 1.0));
      grad_w[i] = g;
      grad_l[i] = -g;
    }
  if (bad)
    {
      int status = check_inputs (v, NULL, NULL, B, &c, beta, beta, 0.0);
      return status ? status : RLREF_ERANGE;
    }
  *loss = (sum + tail) / Bd;
  return RLREF_SUCCESS;
#else
  return rlref_dpo_loss_batch (loss, NULL, grad_w, grad_l, NULL, NULL, logp_w, logp_l, ref_w,
                               ref_l, NULL, NULL, B, &c, beta, 0.0);
#endif
}

/* Which path rlref_dpo_sigmoid_batch_simd takes on this machine. */
const char *
rlref_dpo_sigmoid_batch_simd_path (void)
{
#ifdef SIMD_AVX2
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    return "SLEEF AVX2";
#endif
  return "scalar (bit for bit rlref_dpo_loss_batch)";
}
