/* batch_grpo.c -- binary64 batch kernel of the group-relative advantage
 * (GRPO-ADV; seed 000 (13.23), seeds 001 and 003, the conventions of
 * grpo_conventions.c), held bit for bit to rlref_grpo_adv_ws_d
 * (src/grpo/grpo.c).
 *
 * The reference scales each group by 2^k (max |r| 2^k in [1/2, 1)), takes
 * its sum S exactly, the mean as mu_0 = o(S/G) and mu_1 = o(o(S - G mu_0)/G),
 * the deviations d = o(o(x - mu_0) - mu_1), and the variance from the
 * correctly rounded sum of the d^2.  Here the same values come from plain
 * sums whose additions and products are checked to be exact as they go:
 * an addition t = o(a + b) is exact iff t - a = b and t - b = a (with
 * |a| >= |b|, t - a is computed exactly, and with |b| > |a|, t - b: a
 * rounded addition shows in one of them); a square of a d with at most 26
 * significant bits (Veltkamp's split leaves no low part) and |d| >= 2^-480
 * is exact.  An exact sum may be taken in any order, so four partial sums
 * run side by side.  Where a check fails, that sum is taken again with the
 * exact accumulator (rlref_num_sum_d, rlref_num_dot_d), which rounds once
 * as the reference does; o(S - G mu_0) is one rounding of a residual
 * formed exactly (Dekker's product, residual) when S is a double, else one
 * exact dot product.  For GROUP_STD and G a multiple of
 * 4, group_lanes tries first a form whose checks make every order of
 * summation exact (multiples of a power of 2 that bound the partial sums),
 * so its loops run in four lanes and vectorise.  A group of 0s and 1s
 * takes its two advantages from a table by its count of ones, filled by
 * the exact path the first time a count is met (binary_run).  Nothing is
 * allocated. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "rlref/batch.h"
#include "rlref/num.h"
#include "batch_threads.h"
#include "num_eft.h"
#include "batch_grpo_quad.h"

/* The scaled eps stays at most 2^EPS_EXP_MAX (as grpo.c). */
#define EPS_EXP_MAX 1000

/* 2^27 + 1, Veltkamp's splitting constant for binary64. */
#define SPLIT 134217729.0

/* a + b rounded, and *bad set when the addition was not exact. */
static inline double
add_checked (double a, double b, int *bad)
{
  double t = a + b;
  *bad |= (t - a != b) | (t - b != a);
  return t;
}

/* Whether d * d is exact: d = 0, or |d| >= 2^-480 (no underflow) with at
 * most 26 significant bits (|d| <= 2: the split does not overflow). */
static inline int
square_exact (double d)
{
  double c = SPLIT * d, hi = c - (c - d);
  return d == 0.0 || (fabs (d) >= 0x1p-480 && d - hi == 0.0);
}

/* 2^e as a double, for -1022 <= e <= 1023 (built from its bits). */
static inline double
pow2 (long e)
{
  uint64_t b = (uint64_t) (e + 1023) << 52;
  double d;
  memcpy (&d, &b, sizeof d);
  return d;
}

/* The exponent e of a finite x > 0, x = f 2^e with f in [1/2, 1) (frexp),
 * read from its bits when x is normal. */
static inline long
exponent_of (double x)
{
  uint64_t b;
  int e;
  memcpy (&b, &x, sizeof b);
  if ((b >> 52) != 0)
    return (long) (b >> 52) - 1022;
  frexp (x, &e);
  return e;
}

/* The reference's scale exponent k of a group whose largest magnitude is
 * mx (finite): max |r| 2^k in [1/2, 1), at most kcap (the cap that keeps
 * eps 2^(w k) <= 2^EPS_EXP_MAX when eps > 0); 0 when mx = 0. */
static inline long
scale_k (double mx, long kcap)
{
  long k;
  if (mx == 0.0)
    return 0;
  k = -exponent_of (mx);
  return k > kcap ? kcap : k;
}

/* y = x 2^k, rounded once (a product with 2^k is one rounding, as ldexp). */
static inline void
scale_by (double *restrict y, const double *x, size_t n, long k)
{
  if (k >= -1022 && k <= 1023)
    {
      double p = pow2 (k);
      for (size_t i = 0; i < n; i++)
        y[i] = x[i] * p;
    }
  else
    for (size_t i = 0; i < n; i++)
      y[i] = ldexp (x[i], (int) k);
}

/* The sum of x[0..n-1], exactly when *bad stays 0 (four partial sums,
 * every addition checked). */
static inline double
sum_checked (const double *x, size_t n, int *bad)
{
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  size_t i = 0;
  int b = 0;
  for (; i + 4 <= n; i += 4)
    {
      s0 = add_checked (s0, x[i], &b);
      s1 = add_checked (s1, x[i + 1], &b);
      s2 = add_checked (s2, x[i + 2], &b);
      s3 = add_checked (s3, x[i + 3], &b);
    }
  for (; i < n; i++)
    s0 = add_checked (s0, x[i], &b);
  s0 = add_checked (add_checked (s0, s1, &b), add_checked (s2, s3, &b), &b);
  *bad |= b;
  return s0;
}

/* The sum of the squares of d[0..n-1], exactly when *bad stays 0. */
static inline double
sumsq_checked (const double *d, size_t n, int *bad)
{
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  size_t i = 0;
  int ok = 1, b = 0;
  for (; i + 4 <= n; i += 4)
    {
      ok &= square_exact (d[i]) & square_exact (d[i + 1]) & square_exact (d[i + 2])
        & square_exact (d[i + 3]);
      s0 = add_checked (s0, d[i] * d[i], &b);
      s1 = add_checked (s1, d[i + 1] * d[i + 1], &b);
      s2 = add_checked (s2, d[i + 2] * d[i + 2], &b);
      s3 = add_checked (s3, d[i + 3] * d[i + 3], &b);
    }
  for (; i < n; i++)
    {
      ok &= square_exact (d[i]);
      s0 = add_checked (s0, d[i] * d[i], &b);
    }
  s0 = add_checked (add_checked (s0, s1, &b), add_checked (s2, s3, &b), &b);
  *bad |= b | !ok;
  return s0;
}

/* o(S - m mu0) for a double S and mu0 = o(S/m), 1 <= m <= 2^26: with
 * Dekker's product, m mu0 = p + e exactly (m needs no split; mu0 = h + t
 * by Veltkamp), S - p is exact (Sterbenz), and o((S - p) - e) is the one
 * rounding.  Where mu0 is too small for the split to be exact, fma. */
static inline double
residual (double S, double md, double mu0)
{
  double c, h, t, p, e;
  if (!(fabs (mu0) >= 0x1p-900))
    return fma (-md, mu0, S);
  c = SPLIT * mu0;
  h = c - (c - mu0);
  t = mu0 - h;
  p = md * mu0;
  e = (md * h - p) + md * t;
  return (S - p) - e;
}

/* Centres the m >= 2 scaled rewards x[0..m-1] in place as the reference
 * does (grpo.c, centre): S = sum x exactly, mu_0 = o(S/m),
 * mu_1 = o(o(S - m mu_0)/m), x_j <- o(o(x_j - mu_0) - mu_1); S = 0 leaves
 * x.  co[0..m] is scratch for the exact dot product. */
static inline void
centre (double *restrict x, double *restrict co, size_t m)
{
  int bad = 0;
  double md = (double) m, S = sum_checked (x, m, &bad), mu0, mu1;
  if (bad)
    S = rlref_num_sum_d (x, m);
  if (S == 0.0)
    return;
  mu0 = S / md;
  if (!bad)
    mu1 = residual (S, md, mu0);
  else
    {
      /* o(S - m mu_0): sum_j x_j 1 + mu_0 (-m), rounded once */
      for (size_t j = 0; j < m; j++)
        co[j] = 1.0;
      co[m] = -md;
      x[m] = mu0;
      mu1 = rlref_num_dot_d (x, co, m + 1);
    }
  mu1 = mu1 / md;
  for (size_t j = 0; j < m; j++)
    x[j] = (x[j] - mu0) - mu1;
}

/* A group of one, as group_std_adv: refused, r/(1 + eps) (mean 0, std 1),
 * or 0; Dr.GRPO gives r - r = +0 (a zero r is left as it is). */
static int
group_of_one (double *adv, const double *r, const rlref_adv_convention *c)
{
  if (c->scale == RLREF_SCALE_NONE)
    {
      adv[0] = r[0] == 0.0 ? r[0] : 0.0;
      return RLREF_SUCCESS;
    }
  if (c->single == RLREF_SINGLE_REFUSE)
    RLREF_ERROR ("this convention refuses a group of one", RLREF_EDOM);
  if (c->single == RLREF_SINGLE_RAW && isfinite (r[0]))
    adv[0] = r[0] / (c->eps + 1.0);
  else
    adv[0] = 0.0;
  return RLREF_SUCCESS;
}

/* The advantages (13.23) of the deviations x[0..G-1] of a group scaled by
 * 2^k, of variance var, with c's eps already scaled (eps 2^(w k)):
 * A = x/(std + eps) or x/sqrt(var + eps), std = sqrt(var), 0 for every
 * element where c's guard (std > 0, std > eps) fails or the denominator
 * is 0; four at a time, so that the divisions are vector ones.  adv may
 * be x. */
static inline void
advantages_of (double *adv, const double *x, size_t G, double var, double eps,
               const rlref_adv_convention *c)
{
  double std = sqrt (var), den;
  int zero = 0;
  size_t G4 = G & ~(size_t) 3;
  if (c->guard == RLREF_GUARD_POSITIVE)
    zero = !(std > 0.0);
  else if (c->guard == RLREF_GUARD_EPS)
    zero = !(std > eps);
  den = c->eps_at == RLREF_EPS_IN_SQRT ? sqrt (var + eps) : std + eps;
  zero |= den == 0.0;
  if (zero)
    {
      for (size_t i = 0; i < G; i++)
        adv[i] = 0.0;
      return;
    }
  for (size_t i = 0; i < G4; i += 4)
    for (size_t j = 0; j < 4; j++)
      adv[i + j] = x[i + j] / den;
  for (size_t i = G4; i < G; i++)
    adv[i] = x[i] / den;
}

/* One group of 2 <= G <= RLREF_BATCH_GMAX finite rewards under an exact
 * convention (13.23): x = r 2^k, centred (d), and
 *   GROUP_STD  A = d/(std + eps 2^k)  or  d/sqrt(var + eps 2^2k), var =
 *              sum d^2/(G - ddof) (0 when G <= ddof), with the guard
 *              (std > 0, std > eps 2^k) and 0 where the denominator is 0;
 *   NONE       A = d 2^-k (ERANGE beyond the largest double).
 * x and co hold G + 1 doubles each; adv may be r. */
static inline int
group_exact (double *adv, const double *r, size_t G, const rlref_adv_convention *c, double mx,
             long kcap, double *restrict x, double *restrict co)
{
  int w = c->eps_at == RLREF_EPS_IN_SQRT ? 2 : 1, bad = 0;
  int none = c->scale == RLREF_SCALE_NONE;
  long k = scale_k (mx, kcap);
  double var = 0.0, eps, q;
  scale_by (x, r, G, k);
  centre (x, co, G);
  if (none)
    {
      for (size_t i = 0; i < G; i++)
        {
          double a = ldexp (x[i], (int) -k);
          if (!isfinite (a))
            RLREF_ERROR ("r - mean exceeds the largest double", RLREF_ERANGE);
          adv[i] = a;
        }
      return RLREF_SUCCESS;
    }
  if ((long) G - c->ddof > 0)
    {
      q = sumsq_checked (x, G, &bad);
      if (bad)
        q = rlref_num_dot_d (x, x, G);
      var = q / (double) ((long) G - c->ddof);
    }
  eps = w * k >= -1022 && w * k <= 1023 ? c->eps * pow2 (w * k) : ldexp (c->eps, (int) (w * k));
  advantages_of (adv, x, G, var, eps, c);
  return RLREF_SUCCESS;
}

/* The fast path of group_exact for GROUP_STD, 4 <= G <= RLREF_BATCH_GMAX,
 * G a multiple of 4, in four lanes (loops the compiler vectorizes; also
 * compiled for AVX2, the same operations).  Its sums are plain sums in any
 * order, taken only when they are exact: every scaled reward is a multiple
 * of 2^L1 (c1 = 1.5 2^(52 + L1) rounds x to such a multiple, so x + c1 - c1
 * = x says it is one), and every d has at most 26 significant bits, is 0
 * or >= 2^-26 in magnitude, and its square is a multiple of 2^L2; with
 * L1 = b - 53, L2 = b - 51, 2^b >= G, every partial sum is then a multiple
 * of 2^L1 (2^L2) below 2^b (2^(b + 2)): exact.  Returns 1 when it wrote
 * the advantages, 0 when a check failed (nothing written; x is scratch). */
__attribute__ ((target_clones ("avx2", "default"))) static int
group_lanes (double *adv, const double *r, size_t G, const rlref_adv_convention *c, long kcap,
             double c1, double c2, double *restrict x)
{
  /* the checks accumulate in doubles: nan picks up r 0 (NaN for a NaN or
   * an infinite r), dev the |distances| that must all be 0 */
  double m[4] = { 0, 0, 0, 0 }, nan[4] = { 0, 0, 0, 0 }, dev[4] = { 0, 0, 0, 0 };
  double sx[4] = { 0, 0, 0, 0 }, sq[4] = { 0, 0, 0, 0 };
  int w = c->eps_at == RLREF_EPS_IN_SQRT ? 2 : 1;
  double mx, p, S, Q, md = (double) G, mu0 = 0.0, mu1 = 0.0, var = 0.0;
  long k;
  for (size_t i = 0; i < G; i += 4)
    for (size_t j = 0; j < 4; j++)
      {
        double a = fabs (r[i + j]);
        nan[j] += r[i + j] * 0.0;
        m[j] = a > m[j] ? a : m[j];
      }
  if (!((nan[0] + nan[1]) + (nan[2] + nan[3]) == 0.0))
    return 0;
  mx = (m[0] > m[1] ? m[0] : m[1]) > (m[2] > m[3] ? m[2] : m[3])
    ? (m[0] > m[1] ? m[0] : m[1]) : (m[2] > m[3] ? m[2] : m[3]);
  k = scale_k (mx, kcap);
  if (k < -1022 || k > 1023 || w * k < -1022 || w * k > 1023)
    return 0;
  p = pow2 (k);
  for (size_t i = 0; i < G; i += 4)
    for (size_t j = 0; j < 4; j++)
      {
        double v = r[i + j] * p;
        x[i + j] = v;
        sx[j] += v;
        dev[j] += fabs (((v + c1) - c1) - v);
      }
  if (!((dev[0] + dev[1]) + (dev[2] + dev[3]) == 0.0))
    return 0;
  S = (sx[0] + sx[1]) + (sx[2] + sx[3]);
  if (S != 0.0)
    {
      mu0 = S / md;
      mu1 = residual (S, md, mu0) / md;
    }
  for (size_t i = 0; i < G; i += 4)
    for (size_t j = 0; j < 4; j++)
      {
        double d = (x[i + j] - mu0) - mu1, t = SPLIT * d, hi = t - (t - d), q = d * d;
        double small = fabs (d) >= 0x1p-26 || d == 0.0 ? 0.0 : 1.0;
        x[i + j] = d;
        sq[j] += q;
        dev[j] += (fabs (d - hi) + small) + fabs (((q + c2) - c2) - q);
      }
  if (!((dev[0] + dev[1]) + (dev[2] + dev[3]) == 0.0))
    return 0;
  Q = (sq[0] + sq[1]) + (sq[2] + sq[3]);
  if ((long) G - c->ddof > 0)
    var = Q / (double) ((long) G - c->ddof);
  advantages_of (adv, x, G, var, c->eps * pow2 (w * k), c);
  return 1;
}

/* The correctly rounded value of T = hi + sum mid + sum low + delta0, for
 * some |delta0| <= delta, when this certifies it.  First cheaply: the mid
 * and low terms (of the size of T's own rounding error, or below) summed
 * plainly (off by at most k 2^-52 of their magnitudes' sum), which
 * decides every T but those near a midpoint.  With precise, or where the
 * cheap sum does not decide: the mid terms by two-sums, pairwise (m), and
 * their errors and the low terms plainly (lo); a residual T of the size
 * of u |hi| is rounded right this way.  In both, m + lo = m' + lo' and
 * hi + m' = y + r exactly (two-sums), y = o(hi + m'), rest = r + lo' to
 * within u |rest|.  Where no sum of the precise form was inexact (lo' =
 * 0, delta = 0), T = hi + m' and y is its rounding, ties included.  1 and
 * *y, or 0 (not certified); mid is scratch. */
static inline int
round_certified (double hi, double *mid, size_t nm, const double *low, size_t nl,
                 double delta, int precise, double *y)
{
  double *v = mid, lo = 0.0, bl = 0.0, m = 0.0, e, r, rest;
  size_t n = nm;
  if (!precise)
    {
      for (size_t i = 0; i < nm; i++)
        {
          m += mid[i];
          bl += fabs (mid[i]);
        }
      for (size_t i = 0; i < nl; i++)
        {
          m += low[i];
          bl += fabs (low[i]);
        }
      eft_two_sum_d (hi, m, y, &r);
      rest = r;
      if (eft_rounds_to_d (*y, rest, (delta + (double) (nm + nl) * 0x1p-52 * bl
                             + 0x1p-52 * fabs (rest)) * (1.0 + 0x1p-50)))
        return 1;
      bl = 0.0;
    }
  while (n > 1)
    {
      size_t h = 0;
      for (size_t i = 0; i + 1 < n; i += 2)
        {
          eft_two_sum_d (v[i], v[i + 1], &v[h++], &e);
          lo += e;
          bl += fabs (e);
        }
      if (n % 2)
        v[h++] = v[n - 1];
      n = h;
    }
  m = nm ? v[0] : 0.0;
  for (size_t i = 0; i < nl; i++)
    {
      lo += low[i];
      bl += fabs (low[i]);
    }
  delta += (double) (nm + nl) * 0x1p-52 * bl;
  eft_two_sum_d (m, lo, &m, &lo);
  eft_two_sum_d (hi, m, y, &r);
  if (lo == 0.0 && delta == 0.0)
    return 1;                   /* T = hi + m exactly, and y = o(hi + m) */
  rest = r + lo;
  return eft_rounds_to_d (*y, rest, (delta + 0x1p-52 * fabs (rest)) * (1.0 + 0x1p-50));
}

/* The four lane sums a[0..3] as hi + e[0] + e[1] + e[2] exactly. */
static inline double
lanes_two_sum (const double a[4], double e[3])
{
  double u, v, hi;
  eft_two_sum_d (a[0], a[1], &u, &e[0]);
  eft_two_sum_d (a[2], a[3], &v, &e[1]);
  eft_two_sum_d (u, v, &hi, &e[2]);
  return hi;
}

/* One reward a into lane sums of three levels: two-sums into s1, their
 * errors by two-sums into s2, those errors plainly into s3 (b3 their
 * magnitudes, for the bound); the max |a|, a 0 (NaN for a NaN or an
 * infinite a) and the count of tiny a (0 < |a| < 2^-460) beside. */
static inline void
lane_add (double a, double *s1, double *s2, double *s3, double *b3, double *m, double *nan,
          double *tiny)
{
  double e1, e2, f = fabs (a);
  eft_two_sum_d (*s1, a, s1, &e1);
  eft_two_sum_d (*s2, e1, s2, &e2);
  *s3 += e2;
  *b3 += fabs (e2);
  *m = f > *m ? f : *m;
  *nan += a * 0.0;
  *tiny += f >= 0x1p-460 || f == 0.0 ? 0.0 : 1.0;
}

/* One deviation d into lane sums of its square d^2 = p + e (fma, exact):
 * p by two-sums into q1, the errors and e plainly into q2 (bq their
 * magnitudes); small counts the d too small for e to be exact. */
static inline void
lane_square (double d, double *q1, double *q2, double *bq, double *small)
{
  double p = d * d, e = fma (d, d, -p), e1;
  eft_two_sum_d (*q1, p, q1, &e1);
  *q2 += e1 + e;
  *bq += fabs (e1) + fabs (e);
  *small += fabs (d) >= 0x1p-480 || d == 0.0 ? 0.0 : 1.0;
}

/* The fast path of group_exact for real-valued rewards (any 2 <= G <=
 * RLREF_BATCH_GMAX): the same values, the reference's, from sums whose
 * correct rounding is certified as they are formed.  One pass sums the
 * rewards, unscaled, in four lanes of three levels (lane_add: the lane
 * sums hold sum r to within about G^2 u^3 |sum r|) and finds max |r|;
 * the scale 2^k is exact on every term, so the same sums are those of the
 * scaled x = r 2^k, and certify both S = o(sum x) and the residual
 * o(S - G mu_0), of the size of u |S| (G mu_0 = P + E exactly by fma).
 * A second pass forms the deviations and sums their squares in two levels
 * (lane_square), for o(sum d^2); a third divides.  Where a certificate
 * fails (the exact value too near a midpoint for the sums' precision:
 * ties are certified where the sums were exact), or an input is not
 * finite, |r| exceeds 2^500 or a nonzero |r| is below 2^-460 (the terms of
 * the sums stay normal), a scale leaves the range, or a deviation is
 * tiny enough for e to underflow, returns
 * 0 and nothing is written (x is scratch); else 1. */
__attribute__ ((target_clones ("arch=x86-64-v3", "default"))) static int
group_certified (double *adv, const double *r, size_t G, const rlref_adv_convention *c,
                 long kcap, double *restrict x)
{
  double m[4] = { 0, 0, 0, 0 }, nan[4] = { 0, 0, 0, 0 }, small[4] = { 0, 0, 0, 0 };
  double tiny[4] = { 0, 0, 0, 0 };
  double s1[4] = { 0, 0, 0, 0 }, s2[4] = { 0, 0, 0, 0 }, s3[4] = { 0, 0, 0, 0 };
  double b3[4] = { 0, 0, 0, 0 }, q1[4] = { 0, 0, 0, 0 }, q2[4] = { 0, 0, 0, 0 };
  double bq[4] = { 0, 0, 0, 0 }, t[9], u[7];
  int w = c->eps_at == RLREF_EPS_IN_SQRT ? 2 : 1;
  int none = c->scale == RLREF_SCALE_NONE;
  double mx, p, S, R, H, delta, md = (double) G, mu0 = 0.0, mu1 = 0.0, var = 0.0;
  size_t G4 = G & ~(size_t) 3;
  long k;
  for (size_t i = 0; i < G4; i += 4)
    for (size_t j = 0; j < 4; j++)
      lane_add (r[i + j], &s1[j], &s2[j], &s3[j], &b3[j], &m[j], &nan[j], &tiny[j]);
  for (size_t i = G4; i < G; i++)
    lane_add (r[i], &s1[0], &s2[0], &s3[0], &b3[0], &m[0], &nan[0], &tiny[0]);
  if (!((nan[0] + nan[1]) + (nan[2] + nan[3]) == 0.0)
      || !((tiny[0] + tiny[1]) + (tiny[2] + tiny[3]) == 0.0))
    return 0;
  mx = (m[0] > m[1] ? m[0] : m[1]) > (m[2] > m[3] ? m[2] : m[3])
    ? (m[0] > m[1] ? m[0] : m[1]) : (m[2] > m[3] ? m[2] : m[3]);
  k = scale_k (mx, kcap);
  if (!(mx <= 0x1p500) || k < -1022 || k > 1023 || w * k < -1022 || w * k > 1023)
    return 0;
  p = pow2 (k);
  /* the lane sums of x = r 2^k: each term times 2^k, exact, for every term
     is 0 or a multiple of the least ulp of the r, >= 2^-512, and 2^k >=
     2^-501 keeps it normal */
  for (size_t j = 0; j < 4; j++)
    {
      s1[j] *= p;
      s2[j] *= p;
      s3[j] *= p;
      b3[j] *= p;
    }
  /* sum x = H + (the three errors of H, s2 lanes: by two-sums, so that a
     sum exactly at a midpoint is certified where nothing was rounded) +
     s3 lanes + delta */
  delta = md * 0x1p-52 * ((b3[0] + b3[1]) + (b3[2] + b3[3]));
  H = lanes_two_sum (s1, t);
  memcpy (t + 3, s2, sizeof s2);
  memcpy (u, t, 7 * sizeof *u);
  if (!round_certified (H, u, 7, s3, 4, delta, 0, &S))
    return 0;
  if (S != 0.0)
    {
      double P, h2;
      mu0 = S / md;
      if (!(fabs (mu0) >= 0x1p-900))
        return 0;
      /* S - G mu_0 with G mu_0 = P + E and H - P = h2 + t[8] exactly: the
         terms of the size of u S (errors of H, s2 lanes, -E, t[8]) by
         two-sums, the s3 lanes plainly */
      P = md * mu0;
      t[7] = -fma (md, mu0, -P);
      eft_two_sum_d (H, -P, &h2, &t[8]);
      if (!round_certified (h2, t, 9, s3, 4, delta, 1, &R))
        return 0;
      mu1 = R / md;
    }
  for (size_t i = 0; i < G4; i += 4)
    for (size_t j = 0; j < 4; j++)
      {
        double d = (r[i + j] * p - mu0) - mu1;
        x[i + j] = d;
        lane_square (d, &q1[j], &q2[j], &bq[j], &small[j]);
      }
  for (size_t i = G4; i < G; i++)
    {
      double d = (r[i] * p - mu0) - mu1;
      x[i] = d;
      lane_square (d, &q1[0], &q2[0], &bq[0], &small[0]);
    }
  if (none)
    {
      /* A = d 2^-k, rounded once as ldexp rounds it */
      double back;
      if (-k < -1022)
        return 0;
      back = pow2 (-k);
      for (size_t i = 0; i < G; i++)
        if (!(fabs (x[i] * back) <= DBL_MAX))
          return 0;
      for (size_t i = 0; i < G; i++)
        adv[i] = x[i] * back;
      return 1;
    }
  if (!((small[0] + small[1]) + (small[2] + small[3]) == 0.0))
    return 0;
  if ((long) G - c->ddof > 0)
    {
      double Q;
      H = lanes_two_sum (q1, t);
      if (!round_certified (H, t, 3, q2, 4, (2.0 * md + 8.0) * 0x1p-52
                            * ((bq[0] + bq[1]) + (bq[2] + bq[3])), 0, &Q))
        return 0;
      var = Q / (double) ((long) G - c->ddof);
    }
  advantages_of (adv, x, G, var, c->eps * pow2 (w * k), c);
  return 1;
}

/* Binary groups.  The reference's advantages of a group depend only on
 * the multiset of its rewards and, per position, on the reward there: its
 * scale is set by max |r|, its sum S and its sum of squared deviations
 * are rounded once from the exact sums (the same in any order), and each
 * deviation is formed from its own reward.  So a group of 0s and 1s (the
 * bits of +0.0 and 1.0 exactly) with m ones has two advantages, a1[m] at
 * its ones and a0[m] at its zeros, the same for every such group of the
 * batch: the first group with m ones is done by the exact path and its
 * two values kept; later ones are written from them. */
typedef struct
{
  double a0[RLREF_BATCH_GMAX + 1], a1[RLREF_BATCH_GMAX + 1];
  unsigned char have[RLREF_BATCH_GMAX + 1];
} binary_table;

#define ONE_BITS UINT64_C (0x3ff0000000000000)

/* Four lanes of 64-bit words (GCC's vector extension: AVX2 registers in
 * the avx2 clone, SSE2 pairs otherwise). */
typedef uint64_t v4u __attribute__ ((vector_size (32)));

/* The number of ones of r[0..G-1] when every r is +0.0 or 1.0, else -1. */
static inline long
count_binary (const double *r, size_t G)
{
  uint64_t ones = 0, zeros = 0;
  for (size_t i = 0; i < G; i++)
    {
      uint64_t b;
      memcpy (&b, r + i, sizeof b);
      ones += b == ONE_BITS;
      zeros += b == 0;
    }
  return ones + zeros == G ? (long) ones : -1;
}

/* Groups q = 0, 1, ... of G rewards at r (advantages at adv, which may be
 * r) while each is binary with its count of ones in the table: its
 * advantages written as a selection of bits, without branches (four
 * lanes when 4 divides G).  Returns the first group not done (ng when
 * all are). */
__attribute__ ((target_clones ("avx2", "default"))) static size_t
binary_run (double *adv, const double *r, size_t G, size_t ng, const binary_table *t)
{
  const v4u one = { ONE_BITS, ONE_BITS, ONE_BITS, ONE_BITS };
  for (size_t q = 0; q < ng; q++, r += G, adv += G)
    {
      uint64_t b0, b1;
      long m;
      if (G % 4 == 0)
        {
          v4u n1 = { 0, 0, 0, 0 }, n0 = { 0, 0, 0, 0 };
          for (size_t i = 0; i < G; i += 4)
            {
              v4u b;
              memcpy (&b, r + i, sizeof b);
              n1 += (v4u) (b == one);           /* -1 where true */
              n0 += (v4u) (b == 0);
            }
          {
            uint64_t ones = 0 - ((n1[0] + n1[1]) + (n1[2] + n1[3]));
            uint64_t zeros = 0 - ((n0[0] + n0[1]) + (n0[2] + n0[3]));
            m = ones + zeros == G ? (long) ones : -1;
          }
        }
      else
        m = count_binary (r, G);
      if (m < 0 || !t->have[m])
        return q;
      memcpy (&b0, &t->a0[m], sizeof b0);
      memcpy (&b1, &t->a1[m], sizeof b1);
      if (G % 4 == 0)
        {
          const v4u w0 = { b0, b0, b0, b0 }, w1 = { b1, b1, b1, b1 };
          for (size_t i = 0; i < G; i += 4)
            {
              v4u b, k;
              memcpy (&b, r + i, sizeof b);
              k = (v4u) (b == one);
              b = (w1 & k) | (w0 & ~k);
              memcpy (adv + i, &b, sizeof b);
            }
        }
      else
        for (size_t i = 0; i < G; i++)
          {
            uint64_t b, k;
            memcpy (&b, r + i, sizeof b);
            k = (uint64_t) 0 - (uint64_t) (b == ONE_BITS);
            b = (b1 & k) | (b0 & ~k);
            memcpy (adv + i, &b, sizeof b);
          }
    }
  return ng;
}

/* Where binary_run stopped at a binary group whose count m is not in the
 * table: m, and the first zero *i0 and the first one *i1 of r (G where
 * there is none), for binary_keep; 0 when the group is not binary. */
static inline int
binary_new (const double *r, size_t G, long *m, size_t *i0, size_t *i1)
{
  *m = count_binary (r, G);
  if (*m < 0)
    return 0;
  *i0 = *i1 = G;
  for (size_t i = G; i-- > 0;)
    {
      if (r[i] == 0.0)
        *i0 = i;
      else
        *i1 = i;
    }
  return 1;
}

/* Keeps the advantages of a binary group with m ones just computed. */
static inline void
binary_keep (binary_table *t, const double *adv, size_t G, long m, size_t i0, size_t i1)
{
  t->a0[m] = i0 < G ? adv[i0] : 0.0;
  t->a1[m] = i1 < G ? adv[i1] : 0.0;
  t->have[m] = 1;
}

/* A group by a fast path, the one that took the last group first (binary,
 * integer and dyadic rewards take group_lanes, real-valued ones
 * group_certified: both give the reference's values, so the order only
 * saves the attempt that would fail).  lanes and cert say which apply;
 * *prefer is 1 after group_certified took a group group_lanes did not.
 * 1 when the advantages are written. */
static inline int
fast_group (double *adv, const double *r, size_t G, const rlref_adv_convention *c, long kcap,
            double c1, double c2, double *restrict x, int lanes, int cert, int *prefer)
{
  if (*prefer)
    {
      if (cert && group_certified (adv, r, G, c, kcap, x))
        return 1;
      if (lanes && group_lanes (adv, r, G, c, kcap, c1, c2, x))
        {
          *prefer = 0;
          return 1;
        }
      return 0;
    }
  if (lanes && group_lanes (adv, r, G, c, kcap, c1, c2, x))
    return 1;
  if (cert && group_certified (adv, r, G, c, kcap, x))
    {
      *prefer = 1;
      return 1;
    }
  return 0;
}

/* The groups of the last rlref_grpo_adv_batch of this thread that no fast
 * path took (rlref_grpo_adv_batch_fallbacks). */
static _Thread_local size_t last_fallbacks;

/* The groups of the last rlref_grpo_adv_batch of this thread done four
 * at a time (rlref_grpo_adv_batch_quads). */
static _Thread_local size_t last_quads;

/* Real-valued groups (*prefer set) at r, four at a time while
 * grpo_quad_run certifies them: the number done (0 while *solo counts
 * down the groups left to the one-group paths after four it declined). */
static inline size_t
quad_groups (double *adv, const double *r, size_t G, size_t ng, const rlref_adv_convention *c,
             long kcap, int cert, int prefer, int *solo)
{
  size_t done;
  if (!cert || !prefer)
    return 0;
  if (*solo)
    {
      --*solo;
      return 0;
    }
  done = grpo_quad_run (adv, r, G, ng, c, kcap);
  if (done < ng)
    *solo = 4;
  return done;
}

/* A chunk of the fast path on a thread (batch_threads.h): groups
 * [k ng/8, (k + 1) ng/8) of the batch, binary ones from the chunk's own
 * table; stop[k] is the first group that group_lanes declined (ng when
 * none). */
typedef struct
{
  double *adv;
  const double *rewards;
  size_t ng, G;
  const rlref_adv_convention *c;
  long kcap;
  double c1, c2;
  size_t stop[BATCH_CHUNKS], quads[BATCH_CHUNKS];
} lanes_job;

static void
lanes_chunk (void *arg, size_t k)
{
  lanes_job *j = arg;
  double x[RLREF_BATCH_GMAX + 1];
  binary_table t;
  size_t first = j->ng * k / BATCH_CHUNKS, last = j->ng * (k + 1) / BATCH_CHUNKS, G = j->G;
  int prefer = 0, solo = 0;
  memset (t.have, 0, sizeof t.have);
  j->stop[k] = j->ng;
  j->quads[k] = 0;
  for (size_t q = first; q < last; q++)
    {
      double *adv;
      const double *r;
      size_t i0, i1, d;
      long m;
      int b = 0;
      d = quad_groups (j->adv + q * G, j->rewards + q * G, G, last - q, j->c, j->kcap, 1,
                       prefer, &solo);
      j->quads[k] += d;
      q += d;
      if (q == last)
        break;
      /* real-valued rewards (group_certified took the last group) skip the
         binary table: a binary group among them is done exactly anyway */
      if (!prefer)
        q += binary_run (j->adv + q * G, j->rewards + q * G, G, last - q, &t);
      if (q == last)
        break;
      adv = j->adv + q * G;
      r = j->rewards + q * G;
      if (!prefer)
        b = binary_new (r, G, &m, &i0, &i1);
      if (!fast_group (adv, r, G, j->c, j->kcap, j->c1, j->c2, x, 1, 1, &prefer))
        {
          j->stop[k] = q;
          return;
        }
      if (b)
        binary_keep (&t, adv, G, m, i0, i1);
    }
}

/* GRPO-ADV over N/G groups (13.23): one pass validates (the refusing
 * conventions), then each group as above. */
int
rlref_grpo_adv_batch (double *adv, const double *rewards, size_t N, size_t G,
                      const rlref_adv_convention *c, rlref_ws *ws)
{
  double x[RLREF_BATCH_GMAX + 1], co[RLREF_BATCH_GMAX + 1];
  double c1 = 0.0, c2 = 0.0;
  binary_table t;
  size_t g0;
  long kcap = LONG_MAX;
  int exact, lanes, binary, status, cert, prefer = 0, solo = 0;
  size_t fallbacks = 0, quads = 0;
  last_fallbacks = 0;
  last_quads = 0;
  if (!adv || !rewards || !c || N == 0 || G == 0)
    RLREF_ERROR ("empty rewards, zero group size or NULL argument", RLREF_EINVAL);
  if (N % G != 0)
    RLREF_ERROR ("number of rewards is not a multiple of the group size", RLREF_EINVAL);
  lanes = c->scale == RLREF_SCALE_GROUP_STD && G >= 4 && G % 4 == 0 && G <= RLREF_BATCH_GMAX;
  if (c->nan != RLREF_NAN_SKIP && !lanes)
    {
      int bad = 0;
      for (size_t i = 0; i < N; i++)
        bad |= !isfinite (rewards[i]);
      if (bad)
        RLREF_ERROR ("non-finite reward", RLREF_ENAN);
    }
  if (c->scale == RLREF_SCALE_BATCH_STD)
    return rlref_grpo_adv_ws_d (adv, rewards, N, G, c, ws);
  exact = c->scale == RLREF_SCALE_GROUP_STD || c->scale == RLREF_SCALE_NONE;
  cert = exact && G >= 2 && G <= RLREF_BATCH_GMAX;
  if (c->scale == RLREF_SCALE_GROUP_STD && c->eps > 0)
    {
      /* grpo.c, scale_exponent: k <= (EPS_EXP_MAX - e(eps))/w */
      int ee, w = c->eps_at == RLREF_EPS_IN_SQRT ? 2 : 1;
      frexp (c->eps, &ee);
      kcap = (EPS_EXP_MAX - ee) / w;
    }
  if (lanes)
    {
      /* group_lanes: 2^b >= G, b >= 2; c1 = 1.5 2^(b - 1), c2 = 1.5 2^(b + 1) */
      int b = 2;
      while (((size_t) 1 << b) < G)
        b++;
      c1 = 1.5 * pow2 (b - 1);
      c2 = 1.5 * pow2 (b + 1);
    }
  /* binary groups from the table where the group is done exactly and
   * there are enough groups to repeat a count */
  binary = exact && G >= 2 && G <= RLREF_BATCH_GMAX && N / G > G + 1;
  if (binary)
    memset (t.have, 0, sizeof t.have);
  g0 = 0;
  if (lanes && N >= BATCH_MIN_PARALLEL && rlref_batch_threads () > 1
      && ((uintptr_t) (adv + N) <= (uintptr_t) rewards
          || (uintptr_t) (rewards + N) <= (uintptr_t) adv))
    {
      /* the fast path over 8 chunks of groups on the threads; each chunk
       * stops at its first group the fast path does not take, and the
       * sequential loop below goes on from the first such group (adv
       * does not overlap rewards: a group may be done twice) */
      lanes_job job = { adv, rewards, N / G, G, c, kcap, c1, c2, { 0 }, { 0 } };
      if (rlref_batch_run (lanes_chunk, &job, BATCH_CHUNKS, 1) == 0)
        {
          /* the groups of the chunks up to the first that stopped stand
             (those of that chunk before its stop too); later chunks are
             done again below */
          g0 = N;
          for (size_t k = 0; k < BATCH_CHUNKS; k++)
            {
              quads += job.quads[k];
              if (job.stop[k] < N / G)
                {
                  g0 = job.stop[k] * G;
                  break;
                }
            }
        }
    }
  for (size_t g = g0; g < N; g += G)
    {
      const double *r = rewards + g;
      double mx = 0.0;
      int finite = 1, b = 0;
      size_t i0 = 0, i1 = 0, d;
      long m = 0;
      d = quad_groups (adv + g, r, G, (N - g) / G, c, kcap, cert, prefer, &solo);
      quads += d;
      g += d * G;
      if (g == N)
        break;
      r = rewards + g;
      if (binary && !prefer)
        {
          g += binary_run (adv + g, r, G, (N - g) / G, &t) * G;
          if (g == N)
            break;
          r = rewards + g;
          b = binary_new (r, G, &m, &i0, &i1);
        }
      if (fast_group (adv + g, r, G, c, kcap, c1, c2, x, lanes, cert, &prefer))
        {
          if (b)
            binary_keep (&t, adv + g, G, m, i0, i1);
          continue;
        }
      fallbacks += cert;
      if (!exact || G > RLREF_BATCH_GMAX)
        status = rlref_grpo_adv_ws_d (adv + g, r, G, G, c, ws);
      else if (G == 1)
        status = group_of_one (adv + g, r, c);
      else
        {
          double m1 = 0.0;
          size_t i = 0;
          for (; i + 2 <= G; i += 2)
            {
              double a0 = fabs (r[i]), a1 = fabs (r[i + 1]);
              finite &= (a0 <= DBL_MAX) & (a1 <= DBL_MAX);
              mx = a0 > mx ? a0 : mx;
              m1 = a1 > m1 ? a1 : m1;
            }
          for (; i < G; i++)
            {
              double a = fabs (r[i]);
              finite &= a <= DBL_MAX;
              mx = a > mx ? a : mx;
            }
          mx = m1 > mx ? m1 : mx;
          if (finite)
            status = group_exact (adv + g, r, G, c, mx, kcap, x, co);
          else if (c->nan != RLREF_NAN_SKIP)
            RLREF_ERROR ("non-finite reward", RLREF_ENAN);
          else
            status = rlref_grpo_adv_ws_d (adv + g, r, G, G, c, ws);
        }
      if (status)
        return status;
      if (b)
        binary_keep (&t, adv + g, G, m, i0, i1);
    }
  last_fallbacks = fallbacks;
  last_quads = quads;
  return RLREF_SUCCESS;
}

size_t
rlref_grpo_adv_batch_quads (void)
{
  return last_quads;
}

size_t
rlref_grpo_adv_batch_fallbacks (void)
{
  return last_fallbacks;
}
