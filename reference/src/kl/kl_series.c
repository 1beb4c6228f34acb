/* kl_series.c -- what the KL estimators (kl.c, kl_exact.c, kl_gauss.c,
 * kl_grad.c) share, written once for both backends: the remainders of e^x
 * and log(1 + d) and the weighted k3 terms, each formed from terms that do
 * not cancel (a series near 0, the direct form where its terms differ by
 * a factor 2 or more; the series run to the working precision, num_prec,
 * so MPFR at any precision gets every bit), and a compensated sum. */
#include "rlref/num.h"
#include "kl_series.h"

/* 1 when term no longer changes sum at the working precision (or either
 * is not finite: the series then stops on its non-finite value). */
static int
negligible (num_srcptr term, num_srcptr sum)
{
  if (num_is_zero (term) || !num_is_finite (term) || !num_is_finite (sum))
    return 1;
  if (num_is_zero (sum))
    return 0;
  return num_get_exp (term) < num_get_exp (sum) - num_prec () - 4;
}

/* e^x - sum_{n<m} x^n/n! = sum_{n>=m} x^n/n!: the series for |x| < 1/2
 * (m = 2) or |x| < 2 (m = 3), where its terms fall from the first and the
 * sum is at least a third of it; beyond, expm1(x) - x (- x^2/2), whose
 * terms then cancel by at most a factor 5 (m = 2, |x| = 1/2) or 3 (m = 3,
 * |x| = 2). */
void
FN (kl_exp_rem) (num_ptr r, num_srcptr x, int m)
{
  num_t t, s, a;
  num_init (t);
  num_init (s);
  num_init (a);
  num_abs (a, x);
  if (num_is_finite (a) && num_cmp_d (a, m == 2 ? 0.5 : 2.0) < 0)
    {
      num_set_d (t, 1.0);
      for (long n = 1; n <= m; n++)
        {
          num_mul (t, t, x);
          num_div_si (t, t, n);
        }
      num_set (s, t);
      for (long n = m + 1; !negligible (t, s); n++)
        {
          num_mul (t, t, x);
          num_div_si (t, t, n);
          num_add (s, s, t);
        }
    }
  else
    {
      num_expm1 (s, x);
      num_sub (s, s, x);
      if (m == 3)
        {
          num_sqr (t, x);
          num_mul_2si (t, t, -1);
          num_sub (s, s, t);
        }
    }
  num_set (r, s);
  num_clear (t);
  num_clear (s);
  num_clear (a);
}

/* s = 2 sum_{n >= n0} c_n v^n, v = d/(2 + d), the atanh series behind
 * log(1 + d) = 2 atanh v, summed until its terms no longer count: for
 * d - log(1 + d) (rem3 = 0, n0 = 2) c_n = 1 for even n and (n - 1)/n for
 * odd n; for log(1 + d) - d + d^2/2 (rem3 = 1, n0 = 3) c_n = n - 2 for
 * even n and (n - 1)^2/n for odd n (the square of d = 2v/(1 - v) less the
 * series of d - log(1 + d)).  Returns 0, s untouched, when |v| > 1/2 (d
 * outside [-2/3, 2]) or v is not finite: the caller forms it directly. */
static int
atanh_rem (num_ptr s, num_srcptr d, int rem3)
{
  long n0 = rem3 ? 3 : 2;
  int done = 0;
  num_t v, pw, t;
  num_init (v);
  num_init (pw);
  num_init (t);
  num_add_d (t, d, 2.0);
  num_div (v, d, t);
  num_abs (t, v);
  if (num_is_finite (t) && num_cmp_d (t, 0.5) <= 0)
    {
      num_set_zero (s);
      num_sqr (pw, v);
      if (rem3)
        num_mul (pw, pw, v);
      for (long n = n0;; n++)
        {
          long c = n % 2 ? (rem3 ? (n - 1) * (n - 1) : n - 1) : (rem3 ? n - 2 : 1);
          num_mul_si (t, pw, c);
          if (n % 2)
            num_div_si (t, t, n);
          num_add (s, s, t);
          if (n > n0 && negligible (t, s))
            break;
          num_mul (pw, pw, v);
        }
      num_mul_2si (s, s, 1);
      done = 1;
    }
  num_clear (v);
  num_clear (pw);
  num_clear (t);
  return done;
}

/* d - log(1 + d) by atanh_rem for -2/3 <= d <= 2; beyond, d - log1p(d)
 * directly. */
void
FN (kl_log1p_rem) (num_ptr r, num_srcptr d)
{
  num_t t, s;
  num_init (t);
  num_init (s);
  if (!atanh_rem (s, d, 0))
    {
      num_log1p (t, d);
      num_sub (s, d, t);
    }
  num_set (r, s);
  num_clear (t);
  num_clear (s);
}

/* log(1 + d) - d + d^2/2 by atanh_rem for -2/3 <= d <= 2; beyond,
 * directly. */
void
FN (kl_log1p_rem3) (num_ptr r, num_srcptr d)
{
  num_t t, s;
  num_init (t);
  num_init (s);
  if (!atanh_rem (s, d, 1))
    {
      num_log1p (s, d);
      num_sub (s, s, d);
      num_sqr (t, d);
      num_mul_2si (t, t, -1);
      num_add (s, s, t);
    }
  num_set (r, s);
  num_clear (t);
  num_clear (s);
}

/* r = w k3(l) = w (e^-l - 1 + l), given wr = w e^-l: w e^x - w - w x at
 * x = -l by the remainder for l >= -1, and (wr - w) + w l below, where
 * e^-l may leave the range though wr does not.  w = 0 with l finite is a
 * weight that underflowed (w = wr e^l): the term is then wr. */
void
FN (kl_k3_term) (num_ptr r, num_srcptr w, num_srcptr wr, num_srcptr l)
{
  num_t t;
  num_init (t);
  if (num_is_zero (w))
    num_set (t, wr);
  else if (num_cmp_d (l, -1.0) >= 0)
    {
      num_neg (t, l);
      FN (kl_exp_rem) (t, t, 2);
      num_mul (t, t, w);
    }
  else
    {
      num_sub (t, wr, w);
      num_fma (t, w, l, t);
    }
  num_set (r, t);
  num_clear (t);
}

/* r = w (e^-l - 1 + l - l^2/2) given wr = w e^-l: w times the remainder
 * for l >= -1, (wr - w) + w l - w l^2/2 below; wr where w underflowed. */
void
FN (kl_rem3_term) (num_ptr r, num_srcptr w, num_srcptr wr, num_srcptr l)
{
  num_t t, u;
  num_init (t);
  num_init (u);
  if (num_is_zero (w))
    num_set (t, wr);
  else if (num_cmp_d (l, -1.0) >= 0)
    {
      num_neg (t, l);
      FN (kl_exp_rem) (t, t, 3);
      num_mul (t, t, w);
    }
  else
    {
      num_sub (t, wr, w);
      num_fma (t, w, l, t);
      num_sqr (u, l);
      num_mul (u, u, w);
      num_mul_2si (u, u, -1);
      num_sub (t, t, u);
    }
  num_set (r, t);
  num_clear (t);
  num_clear (u);
}

/* Compensated sums (Neumaier 1974). */

void
FN (kl_acc_init) (kl_acc *a)
{
  num_init (a->s);
  num_init (a->c);
  num_init (a->t);
  num_init (a->a);
  num_init (a->b);
}

void
FN (kl_acc_clear) (kl_acc *a)
{
  num_clear (a->s);
  num_clear (a->c);
  num_clear (a->t);
  num_clear (a->a);
  num_clear (a->b);
}

/* s + c += x: t = s + x, and the rounding error of t, (s - t) + x or
 * (x - t) + s whichever operand is larger, into c. */
void
FN (kl_acc_add) (kl_acc *a, num_srcptr x)
{
  num_add (a->t, a->s, x);
  num_abs (a->a, a->s);
  num_abs (a->b, x);
  if (num_cmp (a->a, a->b) >= 0)
    {
      num_sub (a->a, a->s, a->t);
      num_add (a->a, a->a, x);
    }
  else
    {
      num_sub (a->a, x, a->t);
      num_add (a->a, a->a, a->s);
    }
  num_add (a->c, a->c, a->a);
  num_set (a->s, a->t);
}

/* The sum so far. */
void
FN (kl_acc_get) (num_ptr r, const kl_acc *a)
{
  num_add (r, a->s, a->c);
}
