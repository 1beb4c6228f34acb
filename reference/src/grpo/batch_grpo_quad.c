/* batch_grpo_quad.c -- four groups of real-valued rewards at once, one per
 * vector lane: the certified path of batch_grpo.c (group_certified) with
 * its per-group work (the scale, the three certificates, the
 * denominator) done for four groups in the same instructions, which at
 * G = 16 cost more than the passes over the rewards.  The values are the
 * reference's (GRPO-ADV (13.23), rlref_grpo_adv_ws_d): where a lane's
 * certificate fails, the four groups are left to the one-group paths.
 *
 * Per group the reference's values (grpo.c): x = o(r 2^k) (max |r| 2^k
 * in [1/2, 1)), S = o(sum x), mu_0 = o(S/G), mu_1 = o(o(sum x -
 * G mu_0)/G), d = o(o(x - mu_0) - mu_1), Q = o(sum d^2), and A =
 * d/(std + eps 2^k) or d/sqrt(var + eps 2^2k), var = Q/(G - ddof), or
 * A = d 2^-k under NONE.  Here sum x = s1 + s2 + s3 + delta0 from two
 * extractions (EXTRACT: s1 and s2 exact sums) and a plain sum s3 of what
 * is left, which holds it to about G^2 (2 G)^2 2^-159 (|x| < 1) and
 * certifies S and the residual, as in group_certified; d^2 = sq + e
 * (fma), the sq by two-sums into q1, the errors plainly into q2, bounded
 * from q1 alone (an underflowed e by an absolute 2^-1075 each).  About
 * half the additions are done as fmas, so that the adders and the
 * multiply-add units share them: the path is compiled for AVX2 and FMA
 * and taken only where the processor has them. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "rlref/batch.h"
#include "batch_grpo_quad.h"

/* The helpers return vectors and take them by address (or are macros):
 * they are static and inlined, so GCC's warning on the ABI of 32-byte
 * vector values without AVX does not apply. */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef double v4d __attribute__ ((vector_size (32)));
typedef int64_t v4i __attribute__ ((vector_size (32)));

#define SIGN_BITS INT64_C (0x7fffffffffffffff)

static inline __attribute__ ((always_inline)) v4d
splat (double a)
{
  return (v4d) { a, a, a, a };
}

/* |a|, lane by lane. */
#define VABS(a) ((v4d) ((v4i) (a) & SIGN_BITS))

/* m ? a : b, lane by lane (m all ones or all zeros per lane). */
#define SELECT(m, a, b) ((v4d) (((v4i) (a) & (m)) | ((v4i) (b) & ~(m))))

/* a b + c rounded once, lane by lane (one vector fma: the path is
 * compiled for FMA). */
static inline __attribute__ ((always_inline)) v4d
vfma (const v4d *a, const v4d *b, const v4d *c)
{
  v4d y;
  for (int j = 0; j < 4; j++)
    y[j] = fma ((*a)[j], (*b)[j], (*c)[j]);
  return y;
}

/* s + e = a + b exactly, s = o(a + b) (Knuth's TwoSum); s and e may be
 * a or b. */
#define TWO_SUM(a, b, s, e)                                             \
  do                                                                    \
    {                                                                   \
      v4d a_ = (a), b_ = (b), t_ = a_ + b_, bb_ = t_ - a_;              \
      (e) = (a_ - (t_ - bb_)) + (b_ - bb_);                             \
      (s) = t_;                                                         \
    }                                                                   \
  while (0)

/* 2^k for k in [-1022, 1023], from its bits. */
static inline __attribute__ ((always_inline)) v4d
vpow2 (const v4i *k)
{
  return (v4d) ((*k + 1023) << 52);
}

/* Whether y is the correctly rounded T = y + rest + delta1, |delta1| <=
 * delta, lane by lane: eft_rounds_to_d (num_eft.h) on four lanes. */
static inline __attribute__ ((always_inline)) v4i
rounds_to (const v4d *y, const v4d *rest, const v4d *delta)
{
  const int64_t mant = (INT64_C (1) << 52) - 1;
  v4i b = (v4i) *y, p2 = (b & mant) == 0, range;
  v4d h, out;
  range = (VABS (*y) >= splat (0x1p-960)) & (VABS (*y) <= splat (DBL_MAX));
  h = (v4d) (((((b >> 52) & 0x7ff) - 53) << 52) & range);
  out = (v4d) ((v4i) *rest ^ (b & ~SIGN_BITS));  /* rest away from zero */
  return range & (out + *delta < h) & (-out + *delta < SELECT (p2, 0.5 * h, h));
}

/* Rows a, b, c, d (four consecutive rewards of each of four groups) to
 * columns (one reward position of the four groups), and back. */
static inline __attribute__ ((always_inline)) void
transpose (v4d *a, v4d *b, v4d *c, v4d *d)
{
  const v4i lo = { 0, 4, 2, 6 }, hi = { 1, 5, 3, 7 }, first = { 0, 1, 4, 5 },
    second = { 2, 3, 6, 7 };
  v4d t0 = __builtin_shuffle (*a, *b, lo), t1 = __builtin_shuffle (*a, *b, hi);
  v4d t2 = __builtin_shuffle (*c, *d, lo), t3 = __builtin_shuffle (*c, *d, hi);
  *a = __builtin_shuffle (t0, t2, first);
  *b = __builtin_shuffle (t1, t3, first);
  *c = __builtin_shuffle (t0, t2, second);
  *d = __builtin_shuffle (t1, t3, second);
}

/* The rewards of four groups at r (group j at r + j G) as columns
 * xt[0..G-1], and each group's largest and smallest reward into *hi and
 * *lo (which start at 0). */
static inline __attribute__ ((always_inline)) void
load_columns (v4d *restrict xt, const double *r, size_t G, v4d *hi, v4d *lo)
{
  size_t G4 = G & ~(size_t) 3;
  for (size_t i = 0; i < G4; i += 4)
    {
      v4d a, b, c, d;
      memcpy (&a, r + i, sizeof a);
      memcpy (&b, r + G + i, sizeof b);
      memcpy (&c, r + 2 * G + i, sizeof c);
      memcpy (&d, r + 3 * G + i, sizeof d);
      transpose (&a, &b, &c, &d);
      xt[i] = a;
      xt[i + 1] = b;
      xt[i + 2] = c;
      xt[i + 3] = d;
    }
  for (size_t i = G4; i < G; i++)
    xt[i] = (v4d) { r[i], r[G + i], r[2 * G + i], r[3 * G + i] };
  for (size_t i = 0; i < G; i++)
    for (int j = 0; j < 4; j++)
      {
        (*hi)[j] = xt[i][j] > (*hi)[j] ? xt[i][j] : (*hi)[j];
        (*lo)[j] = xt[i][j] < (*lo)[j] ? xt[i][j] : (*lo)[j];
      }
}

/* The columns xt[0..G-1] back to four groups at adv. */
static inline __attribute__ ((always_inline)) void
store_columns (double *adv, const v4d *restrict xt, size_t G)
{
  size_t G4 = G & ~(size_t) 3;
  for (size_t i = 0; i < G4; i += 4)
    {
      v4d a = xt[i], b = xt[i + 1], c = xt[i + 2], d = xt[i + 3];
      transpose (&a, &b, &c, &d);
      memcpy (adv + i, &a, sizeof a);
      memcpy (adv + G + i, &b, sizeof b);
      memcpy (adv + 2 * G + i, &c, sizeof c);
      memcpy (adv + 3 * G + i, &d, sizeof d);
    }
  for (size_t i = G4; i < G; i++)
    for (size_t j = 0; j < 4; j++)
      adv[j * G + i] = xt[i][j];
}

/* a + b and a - b rounded once, by an fma (a 1 + b, b (-1) + a): the
 * same values, on the processor's multiply-add units, so that the sums of
 * the passes below share the adders with them. */
#define ADDF(a, b) ({ v4d a_ = (a), b_ = (b); vfma (&a_, &one, &b_); })
#define SUBF(a, b) ({ v4d a_ = (a), b_ = (b); vfma (&b_, &mone, &a_); })

/* Rump, Ogita and Oishi's extraction: with sigma a power of 2 and |x| <=
 * 2^-M sigma, 2^M >= 2 G, q = o(o(sigma + x) - sigma) and x' = o(x - q)
 * are exact, q + x' = x, q a multiple of u sigma (u = 2^-53), |x'| <= u
 * sigma, and the sum of G such q is exact in any order (a multiple of u
 * sigma below sigma). */
#define EXTRACT(x, sigma, q, rest)                                      \
  do                                                                    \
    {                                                                   \
      v4d t_ = (x) + (sigma);                                           \
      (q) = SUBF (t_, sigma);                                           \
      (rest) = (x) - (q);                                               \
    }                                                                   \
  while (0)

/* Four groups at r (advantages to adv, which may be r) as group_certified
 * does each: 1 when every lane's certificate and check held and the
 * advantages are written, else 0 (nothing written).  xt is scratch for G
 * columns. */
__attribute__ ((target ("arch=x86-64-v3"))) static int
quad_certified (double *adv, const double *r, size_t G, const rlref_adv_convention *c,
                long kcap, v4d *restrict xt)
{
  const v4d zero = splat (0.0), one = splat (1.0), mone = splat (-1.0);
  const v4d u2 = splat (0x1p-52), grow = splat (1.0 + 0x1p-50);
  v4d s1 = zero, s2 = zero, s3 = zero, b3 = zero, hi = zero, lo = zero, q1 = zero, q2 = zero;
  v4d md = splat ((double) G), p, delta, mx, S, rest, mu0, mu1, eps, bound, den = zero;
  v4d sigma1, sigma2;
  v4i ok, nz, bad, k, mk;
  const v4i cap = { kcap, kcap, kcap, kcap };
  int w = c->eps_at == RLREF_EPS_IN_SQRT ? 2 : 1, M = 1;
  while (((size_t) 1 << M) < 2 * G)
    M++;
  k = (v4i) zero + M;
  sigma1 = vpow2 (&k);
  k = (v4i) zero + (2 * M - 53);
  sigma2 = vpow2 (&k);
  load_columns (xt, r, G, &hi, &lo);
  /* the scale: k = -e(max |r|) capped at kcap, 0 for a group of zeros;
     max |r| normal and <= 2^500 (an infinite r fails it, a NaN leaves s1
     a NaN below) */
  mx = SELECT (hi > -lo, hi, -lo);
  bad = ~(mx <= splat (0x1p500)) | ((mx < splat (0x1p-1022)) & (mx != 0.0));
  k = 1022 - ((v4i) mx >> 52);
  k = (k & ~(k > cap)) | (cap & (k > cap));
  k &= ~(mx == 0.0);
  mk = w * k;
  bad |= (k < -1022) | (k > 1022) | (mk < -1022) | (mk > 1023);
  if (bad[0] | bad[1] | bad[2] | bad[3])
    return 0;
  p = vpow2 (&k);
  eps = splat (c->eps) * vpow2 (&mk);
  /* x = o(r 2^k), as the reference scales (|x| < 1), and sum x = s1 + s2
     + s3 + delta0: two extractions (s1, s2 exact), the rest plainly (s3,
     b3 the sum of its magnitudes), |delta0| <= G 2^-52 b3 */
  for (size_t i = 0; i < G; i++)
    {
      v4d x = xt[i] * p, q, x1, x2;
      xt[i] = x;
      EXTRACT (x, sigma1, q, x1);
      s1 = ADDF (s1, q);
      EXTRACT (x1, sigma2, q, x2);
      s2 = ADDF (s2, q);
      s3 += x2;
      b3 += VABS (x2);
    }
  bad = ~(VABS (s1) <= splat (DBL_MAX));
  /* S = o(s1 + s2 + s3 + delta0): exact where nothing reached s3 */
  delta = md * u2 * b3;
  TWO_SUM (s1, s2 + s3, S, rest);
  bound = (delta + 2.0 * u2 * (VABS (s2) + VABS (s3)) + u2 * VABS (rest)) * grow;
  ok = ~bad & (((s3 == 0.0) & (delta == 0.0)) | rounds_to (&S, &rest, &bound));
  /* the mean's residual R = o(sum x - G mu_0), G mu_0 = P + E (fma) and
     s1 - P = h2 + t8 exactly: R = o(h2 + s2 - E + t8 + s3 + delta0), the
     three middle terms by two-sums */
  nz = S != 0.0;
  mu0 = SELECT (nz, S / md, zero);
  mu1 = zero;
  {
    v4d P = md * mu0, nP = -P, E = vfma (&md, &mu0, &nP), h2, t8, v, e, l, bl, y, rr, d2;
    TWO_SUM (s1, -P, h2, t8);
    TWO_SUM (s2, -E, v, l);
    bl = VABS (l);
    TWO_SUM (v, t8, v, e);
    l += e;
    bl += VABS (e);
    l += s3;
    bl += VABS (s3);
    d2 = delta + 4.0 * u2 * bl;
    TWO_SUM (v, l, v, l);
    TWO_SUM (h2, v, y, rr);
    rr += l;
    bound = (d2 + u2 * VABS (rr)) * grow;
    ok &= ~nz | ((VABS (mu0) >= splat (0x1p-900))
                 & (((l == 0.0) & (d2 == 0.0)) | rounds_to (&y, &rr, &bound)));
    mu1 = SELECT (nz, y / md, zero);
  }
  if (!(ok[0] & ok[1] & ok[2] & ok[3]))
    return 0;
  /* the deviations and the sum of their squares, sq by two-sums */
  for (size_t i = 0; i < G; i++)
    {
      v4d d = SUBF (xt[i] - mu0, mu1), sq = d * d, nsq = -sq, e, e1, t, bb;
      e = vfma (&d, &d, &nsq);
      xt[i] = d;
      t = q1 + sq;
      bb = SUBF (t, q1);
      e1 = (q1 - (t - bb)) + SUBF (sq, bb);
      q1 = t;
      q2 = ADDF (q2, e1 + e);
    }
  if (c->scale == RLREF_SCALE_NONE)
    {
      /* A = d 2^-k, rounded once as ldexp rounds it */
      v4d back;
      mk = -k;
      back = vpow2 (&mk);
      bad = (v4i) zero;
      for (size_t i = 0; i < G; i++)
        {
          xt[i] *= back;
          bad |= ~(VABS (xt[i]) <= splat (DBL_MAX));
        }
      if (bad[0] | bad[1] | bad[2] | bad[3])
        return 0;
      store_columns (adv, xt, G);
      return 1;
    }
  if ((long) G - c->ddof > 0)
    {
      /* Q = o(q1 + q2 + delta0): d^2 = sq + e, e exact but where d^2
         underflows (then off by at most 2^-1075); q2 sums the 2 G terms
         e1 and e, whose magnitudes sum to at most bq = (G + 1) 2^-53 q1
         (1 + 2^-40) (the sq are >= 0, so the rounded partial sums grow
         to q1: |e1| <= 2^-53 q1, and sum sq <= q1 (1 + G 2^-53)); so
         |delta0| <= (2 G + 8) 2^-52 bq + G 2^-1074 */
      v4d Q, bq = (md + 1.0) * splat (0x1p-53) * q1 * splat (1.0 + 0x1p-40);
      v4d dq = (2.0 * md + 8.0) * u2 * bq + md * splat (0x1p-1074);
      TWO_SUM (q1, q2, Q, rest);
      bound = (dq + u2 * VABS (q2) + u2 * VABS (rest)) * grow;
      ok = rounds_to (&Q, &rest, &bound);
      if (!(ok[0] & ok[1] & ok[2] & ok[3]))
        return 0;
      q1 = Q / splat ((double) ((long) G - c->ddof));
    }
  else
    q1 = zero;
  /* the denominator and c's guard (advantages_of in batch_grpo.c) */
  {
    v4d std = zero;
    v4i zmask = zero == zero;
    for (int j = 0; j < 4; j++)
      std[j] = sqrt (q1[j]);
    if (c->guard == RLREF_GUARD_POSITIVE)
      zmask = ~(std > 0.0);
    else if (c->guard == RLREF_GUARD_EPS)
      zmask = ~(std > eps);
    else
      zmask = zmask & 0;
    if (c->eps_at == RLREF_EPS_IN_SQRT)
      for (int j = 0; j < 4; j++)
        den[j] = sqrt (q1[j] + eps[j]);
    else
      den = std + eps;
    zmask |= den == 0.0;
    for (size_t i = 0; i < G; i++)
      xt[i] = SELECT (zmask, zero, xt[i] / den);
  }
  store_columns (adv, xt, G);
  return 1;
}

size_t
grpo_quad_run (double *adv, const double *r, size_t G, size_t ng,
               const rlref_adv_convention *c, long kcap)
{
  v4d xt[RLREF_BATCH_GMAX];
  size_t q = 0;
  /* without FMA, the fmas of the passes are calls: the one-group paths
     are faster there */
  if (!(__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma")))
    return 0;
  for (; q + 4 <= ng; q += 4)
    if (!quad_certified (adv + q * G, r + q * G, G, c, kcap, xt))
      break;
  return q;
}
