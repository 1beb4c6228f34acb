/* num_sum.c -- exactly rounded sums and dot products of doubles (the
 * binary64 num_sum and num_dot).
 *
 * A finite double is +-m 2^e with m < 2^53 an integer and e >= -1074, and
 * the product of two is +-m 2^e with m < 2^106 and e >= -2148.  Every term
 * is added exactly into one long fixed-point accumulator (Kulisch's exact
 * scalar product) whose bit 0 weighs 2^-2148, and the total is rounded
 * once, to nearest with ties to even, at the end.  No partial sum can
 * overflow (1e308 + 1e308 - 1e308 = 1e308) and cancellation loses nothing
 * (1e308 + 1 - 1e308 = 1).  The accumulator holds 32-bit digits in signed
 * 64-bit words, so carries wait until the end or ACC_FLUSH terms.  The
 * two-product a b = p + fma (a, b, -p) is not used: it is not exact when
 * a b overflows or its error term underflows. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "rlref/num.h"

#define ACC_BASE 2148             /* bit 0 weighs 2^-ACC_BASE */
#define ACC_MIN_BIT (ACC_BASE - 1074)     /* the bit weighing 2^-1074 */
/* |a b| < 2^2048 and n < 2^64 terms: the total stays below bit
 * 2048 + 64 + ACC_BASE = 4260 < 32 (ACC_DIGITS - 1). */
#define ACC_DIGITS 136
#define ACC_FLUSH ((size_t) 1 << 20)      /* terms between two carry passes */
#define LOW32 UINT64_C (0xffffffff)

typedef struct
{
  int64_t d[ACC_DIGITS];          /* total = sum_i d[i] 2^(32 i - ACC_BASE) */
  int lo, hi;                     /* digits outside [lo, hi] are 0 */
  size_t pending;                 /* terms since the last carry pass */
  int nan, pinf, ninf;            /* a NaN, +inf, -inf term was seen */
  int negzero;                    /* every term so far is -0 */
} acc_t;

static void
acc_init (acc_t *acc)
{
  memset (acc->d, 0, sizeof acc->d);
  acc->lo = ACC_DIGITS;
  acc->hi = 0;
  acc->pending = 0;
  acc->nan = acc->pinf = acc->ninf = 0;
  acc->negzero = 1;
}

/* Carry pass: every digit below the highest one into [0, 2^32).  The
 * total is then negative if and only if d[hi] < 0. */
static void
acc_carry (acc_t *acc)
{
  for (int i = acc->lo; i < ACC_DIGITS - 1; i++)
    {
      int64_t low = (int64_t) ((uint64_t) acc->d[i] & LOW32);
      int64_t carry = (acc->d[i] - low) / ((int64_t) 1 << 32);
      acc->d[i] = low;
      acc->d[i + 1] += carry;
      if (carry != 0 && i + 1 > acc->hi)
        acc->hi = i + 1;
      if (carry == 0 && i >= acc->hi)
        break;
    }
  acc->pending = 0;
}

/* total += (-1)^neg u 2^(b - ACC_BASE), u < 2^64, b >= 0. */
static void
acc_add (acc_t *acc, uint64_t u, int b, int neg)
{
  int k = b / 32, s = b % 32;
  uint64_t lo = (u & LOW32) << s, hi = (u >> 32) << s;
  int64_t c0 = (int64_t) (lo & LOW32);
  int64_t c1 = (int64_t) ((lo >> 32) + (hi & LOW32));
  int64_t c2 = (int64_t) (hi >> 32);
  if (neg)
    {
      acc->d[k] -= c0;
      acc->d[k + 1] -= c1;
      acc->d[k + 2] -= c2;
    }
  else
    {
      acc->d[k] += c0;
      acc->d[k + 1] += c1;
      acc->d[k + 2] += c2;
    }
  if (k < acc->lo)
    acc->lo = k;
  if (k + 2 > acc->hi)
    acc->hi = k + 2;
}

/* x = (-1)^neg m 2^e, m < 2^53 an integer, e >= -1074 (x finite). */
static uint64_t
split (double x, int *e, int *neg)
{
  uint64_t bits, m;
  int biased;
  memcpy (&bits, &x, sizeof bits);
  biased = (int) ((bits >> 52) & 0x7ff);
  m = bits & ((UINT64_C (1) << 52) - 1);
  *neg = (int) (bits >> 63);
  if (biased == 0)
    {
      *e = -1074;
      return m;
    }
  *e = biased - 1075;
  return m | (UINT64_C (1) << 52);
}

/* A term that is not a finite number. */
static void
acc_special (acc_t *acc, double x)
{
  acc->negzero = 0;
  if (isnan (x))
    acc->nan = 1;
  else if (x > 0)
    acc->pinf = 1;
  else
    acc->ninf = 1;
}

/* The total rounded to nearest binary64, ties to even; +-inf beyond the
 * largest double; IEEE 754 specials and signs of zero. */
static double
acc_round (acc_t *acc)
{
  int neg = 0, top, lsb, rb;
  uint64_t q = 0, rdigit;
  int round, sticky;
  if (acc->nan || (acc->pinf && acc->ninf))
    return NAN;
  if (acc->pinf)
    return INFINITY;
  if (acc->ninf)
    return -INFINITY;
  acc_carry (acc);
  if (acc->lo < ACC_DIGITS && acc->d[acc->hi] < 0)
    {
      neg = 1;
      for (int i = acc->lo; i <= acc->hi; i++)
        acc->d[i] = -acc->d[i];
      acc_carry (acc);
    }
  top = acc->hi;
  while (top >= acc->lo && acc->d[top] == 0)
    top--;
  if (top < acc->lo)
    return acc->negzero ? -0.0 : 0.0;
  /* the highest bit, then the 53 bits below it, not below 2^-1074 */
  for (int t = 31;; t--)
    if (((uint64_t) acc->d[top] >> t) & 1)
      {
        top = 32 * top + t;
        break;
      }
  lsb = top - 52 > ACC_MIN_BIT ? top - 52 : ACC_MIN_BIT;
  for (int i = top; i >= lsb; i--)
    q = (q << 1) | (((uint64_t) acc->d[i / 32] >> (i % 32)) & 1);
  rb = lsb - 1;
  rdigit = (uint64_t) acc->d[rb / 32];
  round = (int) ((rdigit >> (rb % 32)) & 1);
  sticky = (rdigit & ((UINT64_C (1) << (rb % 32)) - 1)) != 0;
  for (int i = acc->lo; i < rb / 32 && !sticky; i++)
    sticky = acc->d[i] != 0;
  if (round && (sticky || (q & 1)))
    q++;
  /* q <= 2^53 and the scaling is exact, or overflows to inf */
  return neg ? -ldexp ((double) q, lsb - ACC_BASE) : ldexp ((double) q, lsb - ACC_BASE);
}

/* sum_i v_i, rounded once (num_sum). */
/* 2^k sum_i v_i, rounded once, for -1074 <= k <= 0: every term enters
 * the accumulator k bits lower (exactly: bit 0 weighs 2^-2148). */
static double
sum_scaled (const double *v, size_t n, int k)
{
  acc_t acc;
  acc_init (&acc);
  if (n == 0)
    return 0.0;
  for (size_t i = 0; i < n; i++)
    {
      int e, neg;
      uint64_t m;
      if (!isfinite (v[i]))
        {
          acc_special (&acc, v[i]);
          continue;
        }
      m = split (v[i], &e, &neg);
      if (!(m == 0 && neg))
        acc.negzero = 0;
      if (m == 0)
        continue;
      acc_add (&acc, m, e + k + ACC_BASE, neg);
      if (++acc.pending == ACC_FLUSH)
        acc_carry (&acc);
    }
  return acc_round (&acc);
}

double
rlref_num_sum_d (const double *v, size_t n)
{
  return sum_scaled (v, n, 0);
}

/* (sum_i v_i)/d for d >= 1 (num_mean_si).  Where the sum alone overflows
 * but its terms are finite, it is formed as 2^64 ((2^-64 sum)/d): two
 * roundings (the scaled sum, the quotient), at most one ulp, and inf only
 * where the mean itself is beyond the range. */
double
rlref_num_mean_d (const double *v, size_t n, long d)
{
  double s = sum_scaled (v, n, 0);
  if (isinf (s))
    {
      double t = sum_scaled (v, n, -64);
      if (isfinite (t))
        return ldexp (t / (double) d, 64);
    }
  return s / (double) d;
}

/* sum_i a_i b_i, rounded once (num_dot); each product is exact:
 * (a1 2^32 + a0)(b1 2^32 + b0) in four integer products. */
double
rlref_num_dot_d (const double *a, const double *b, size_t n)
{
  acc_t acc;
  acc_init (&acc);
  if (n == 0)
    return 0.0;
  for (size_t i = 0; i < n; i++)
    {
      int ea, eb, na, nb, bit;
      uint64_t ma, mb, a0, a1, b0, b1;
      if (!isfinite (a[i]) || !isfinite (b[i]))
        {
          acc_special (&acc, a[i] * b[i]);
          continue;
        }
      ma = split (a[i], &ea, &na);
      mb = split (b[i], &eb, &nb);
      if (ma == 0 || mb == 0)
        {
          if (!(na ^ nb))
            acc.negzero = 0;
          continue;
        }
      acc.negzero = 0;
      a0 = ma & LOW32;
      a1 = ma >> 32;
      b0 = mb & LOW32;
      b1 = mb >> 32;
      bit = ea + eb + ACC_BASE;
      acc_add (&acc, a0 * b0, bit, na ^ nb);
      acc_add (&acc, a0 * b1 + a1 * b0, bit + 32, na ^ nb);
      acc_add (&acc, a1 * b1, bit + 64, na ^ nb);
      if (++acc.pending == ACC_FLUSH)
        acc_carry (&acc);
    }
  return acc_round (&acc);
}
