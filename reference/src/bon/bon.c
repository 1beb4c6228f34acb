/* bon.c -- best-of-n on a discrete space (BON) and the over-optimisation
 * functional forms (OVEROPT), written once for both backends.  Seed 000
 * section 8.4 names best-of-n (draw n responses, keep the best by the
 * reward model or verifier) and sections 8.2 and 10.4 the over-optimisation
 * curves in d = sqrt(KL(pi || pi_ref)); the exact best-of-n law, the KL
 * bound and the functional forms are from the literature the seed cites.
 *
 * Every function computes into temporaries and writes its outputs last,
 * so an output may share storage with an input (reference/README.md,
 * Aliasing). */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/bon.h"
#include "flow.h"
#include "merge_order.h"

/* before callback of rlref_merge_order: r[j] < r[i] (ctx = r). */
static int
lower_reward (int *before, size_t j, size_t i, void *ctx)
{
  num_srcptr r = ctx;
  *before = num_cmp (AT (r, j), AT (r, i)) < 0;
  return RLREF_SUCCESS;
}

/* The base: p and r finite, p >= 0, n >= 1, S = sum p (exact, rounded
 * once) within RLREF_BON_NORM_TOL of 1. */
static int
check_base (num_ptr S, num_srcptr p, num_srcptr r, size_t K, long n)
{
  int status;
  for (size_t k = 0; k < K; k++)
    if (!num_is_finite (AT (p, k)) || !num_is_finite (AT (r, k)))
      RLREF_ERROR ("bon: a probability or a reward is not finite", RLREF_ENAN);
  for (size_t k = 0; k < K; k++)
    if (num_sgn (AT (p, k)) < 0)
      RLREF_ERROR ("bon: a negative probability", RLREF_EDOM);
  if (n < 1)
    RLREF_ERROR ("bon: n must be at least 1", RLREF_EDOM);
  if ((status = num_sum (S, p, K)) != RLREF_SUCCESS)
    return status;
  if (num_cmp_d (S, 1.0 - RLREF_BON_NORM_TOL) < 0 || num_cmp_d (S, 1.0 + RLREF_BON_NORM_TOL) > 0)
    RLREF_ERROR ("bon: the probabilities do not sum to 1 (within 2^-20)", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* bound = log n - (n - 1)/n, the bound on KL(best-of-n || base) of
 * Stiennon et al. (2020) and Beirami et al. (2024): equal to the KL on a
 * continuous space with distinct rewards, above it on a discrete one. */
int
FN (bon_kl_bound) (num_ptr bound, long n)
{
  num_t l, f;
  if (!bound)
    RLREF_ERROR ("bon_kl_bound: NULL output", RLREF_EINVAL);
  if (n < 1)
    RLREF_ERROR ("bon_kl_bound: n must be at least 1", RLREF_EDOM);
  NUM_INIT (l, f);
  num_set_si (l, n);
  num_log (l, l);
  num_set_si (f, n - 1);
  num_div_si (f, f, n);
  num_sub (bound, l, f);
  NUM_CLEAR (l, f);
  return RLREF_SUCCESS;
}

/* r = b^n for b in (0, 1], n >= 1, by binary powering with the mantissas
 * (in [1/2, 1)) and the exponents held apart: one rounding per product,
 * about 2 log2 n in all, where e^{n log b} would carry the rounding of
 * n log b, |n log b| 2^-53, into r (b small).  An exponent below -2^31
 * is 0 in either backend.  t is scratch. */
static void
pow_n (num_ptr r, num_srcptr b, long n, num_ptr t)
{
  long eb = num_get_exp (b), er = 0, k;
  const long floor_e = -(1L << 31) + 1;
  num_mul_2si (t, b, -eb);
  num_set_d (r, 1.0);
  for (;;)
    {
      if (n & 1)
        {
          num_mul (r, r, t);
          k = num_get_exp (r);
          num_mul_2si (r, r, -k);
          er += eb + k;
        }
      n >>= 1;
      if (n == 0 || er < floor_e || eb < floor_e)
        break;
      num_sqr (t, t);
      k = num_get_exp (t);
      num_mul_2si (t, t, -k);
      eb = 2 * eb + k;
    }
  if (n != 0 || er < floor_e)
    num_set_zero (r);
  else
    num_mul_2si (r, r, er);
}

/* Best-of-n (000 section 8.4): the first maximum of n i.i.d. draws from
 * p/S.  With the reward levels v by increasing reward, a = F(v^-),
 * m = P(r = v), B = 1 - F(v) (the sums A, m, B of p below, at and above
 * v, each over S; A and B as running sums of positive level masses, no
 * cancellation), b = a + m:
 *   log Q_v = n log b + log(1 - (a/b)^n)
 *           = n log b + log1mexp(-n log1p(m/a))          (a > 0),
 *   log Q_v = n log b                                     (a = 0),
 * with log b = log1p(-B) when B <= 1/2, else log((A + m)/S), so that
 * F(v)^n - F(v^-)^n never cancels, however large n; Q_v is formed as
 * b^n (-expm1(-n log1p(m/a))), not as e^{log Q_v}: for a rare level
 * log Q_v is large, and e^{log Q_v} would carry its rounding
 * |log Q_v| 2^-53 into Q_v (3e-14 relative for Q_v 2e-299); b^n is
 * e^{n log1p(-B)} for B <= 1/2, else b multiplied out (pow_n) down
 * to 2^-1075, where binary64 holds 0 whatever the form.  Then
 *   q_k = (p_k / m_raw) Q_v,
 *   kl = sum_v Q_v log(Q_v/m_v), where log(Q_v/m_v) is
 *     (n - 1) log b                                       (a = 0),
 *     n log b + log(-expm1(-n log1p(m/a)) / m)            (m < 1/2),
 *     log Q_v - log1p(-(A + B)/S)                         (m >= 1/2),
 *   so that neither a rare level (log Q and log m both large) nor a level
 *   of mass near 1 (both near 0) loses digits to the difference,
 *   win = sum_v Q_v (A + m/2)/S   (ties count one half).
 * For n = 1, q = p/S and kl = 0 exactly. */
int
FN (bon_dist) (num_ptr q, num_ptr kl, num_ptr bound, num_ptr win, num_srcptr p, num_srcptr r,
               size_t K, long n)
{
  size_t *idx = NULL, *tmp = NULL, L = 0;
  num_ptr v = NULL, qq, mr, Ar, Br, Qv, lqm, wt, g;
  num_t S, x, y, lb, lm, o_kl, o_bound, o_win;
  int status;
  if (!q || !p || !r || K == 0)
    RLREF_ERROR ("bon_dist: no outcomes, or a NULL argument", RLREF_EINVAL);
  NUM_INIT (S, x, y, lb, lm, o_kl, o_bound, o_win);
  TRY (check_base (S, p, r, K, n));
  idx = malloc (K * sizeof *idx);
  tmp = malloc (K * sizeof *tmp);
  v = num_vec_new (8 * K);
  if (!idx || !tmp || !v)
    FAIL ("bon_dist: out of memory", RLREF_ENOMEM);
  qq = v;
  mr = AT (v, K);               /* per level: raw mass, raw sums below and above */
  Ar = AT (v, 2 * K);
  Br = AT (v, 3 * K);
  Qv = AT (v, 4 * K);           /* per level: Q_v, log(Q_v/m_v), (A + m/2)/S */
  lqm = AT (v, 5 * K);
  wt = AT (v, 6 * K);
  g = AT (v, 7 * K);            /* the probabilities of one level, gathered */
  /* idx: increasing reward, stable */
  (void) rlref_merge_order (idx, tmp, K, lower_reward, (void *) r);
  /* the levels: tmp[j] = the first sorted position of level j */
  for (size_t s = 0, e; s < K; s = e)
    {
      for (e = s + 1; e < K && num_cmp (AT (r, idx[e]), AT (r, idx[s])) == 0; e++)
        ;
      for (size_t i = s; i < e; i++)
        num_set (AT (g, i - s), AT (p, idx[i]));
      TRY (num_sum (AT (mr, L), g, e - s));
      tmp[L++] = s;
    }
  for (size_t j = 1; j < L; j++)
    num_add (AT (Ar, j), AT (Ar, j - 1), AT (mr, j - 1));
  for (size_t j = L - 1; j-- > 0;)
    num_add (AT (Br, j), AT (Br, j + 1), AT (mr, j + 1));
  for (size_t j = 0; j < L; j++)
    {
      /* (A + m/2)/S */
      num_mul_2si (x, AT (mr, j), -1);
      num_add (x, x, AT (Ar, j));
      num_div (AT (wt, j), x, S);
      if (num_is_zero (AT (mr, j)))
        continue;                       /* Q_v = 0 */
      if (n == 1)
        {
          num_div (AT (Qv, j), AT (mr, j), S);
          continue;                     /* log(Q/m) = 0 */
        }
      /* log b, and b^n into Q_v */
      num_div (y, AT (Br, j), S);
      if (num_cmp_d (y, 0.5) <= 0)
        {
          num_neg (y, y);
          num_log1p (lb, y);
          num_mul_si (AT (Qv, j), lb, n);
          num_exp (AT (Qv, j), AT (Qv, j));
        }
      else
        {
          num_add (x, AT (Ar, j), AT (mr, j));
          num_div (x, x, S);
          num_log (lb, x);
          num_mul_si (AT (Qv, j), lb, n);
          if (num_cmp_d (AT (Qv, j), -745.2) >= 0)
            pow_n (AT (Qv, j), x, n, y);
          else
            num_exp (AT (Qv, j), AT (Qv, j));   /* below 2^-1075 */
        }
      num_div (lm, AT (mr, j), S);      /* m_v */
      if (num_is_zero (AT (Ar, j)))
        {
          num_mul_si (AT (lqm, j), lb, n - 1);  /* log(b^n / b) */
          continue;                             /* Q_v = b^n */
        }
      num_div (x, AT (mr, j), AT (Ar, j));
      num_log1p (x, x);
      num_mul_si (x, x, n);
      num_neg (x, x);                           /* -n log(b/a) */
      num_mul_si (lb, lb, n);                   /* n log b */
      if (num_cmp_d (lm, 0.5) >= 0)
        {
          /* log Q_v - log m_v, log m_v = log1p(-(A + B)/S) */
          num_add (y, AT (Ar, j), AT (Br, j));
          num_div (y, y, S);
          num_neg (y, y);
          num_log1p (lm, y);
          TRY (FN (log1mexp) (y, x));
          num_add (y, lb, y);
          num_sub (AT (lqm, j), y, lm);
        }
      else
        {
          /* n log b + log((1 - (a/b)^n)/m_v) */
          num_expm1 (y, x);
          num_neg (y, y);
          num_div (y, y, lm);
          num_log (y, y);
          num_add (AT (lqm, j), lb, y);
        }
      /* Q_v = b^n (1 - (a/b)^n), the second factor as -expm1 */
      num_expm1 (y, x);
      num_neg (y, y);
      num_mul (AT (Qv, j), AT (Qv, j), y);
    }
  /* q_k = p_k Q_v / m_raw over each level */
  for (size_t j = 0; j < L; j++)
    {
      size_t e = j + 1 < L ? tmp[j + 1] : K;
      for (size_t i = tmp[j]; i < e; i++)
        {
          num_ptr qk = AT (qq, idx[i]);
          if (num_is_zero (AT (mr, j)))
            num_set_zero (qk);
          else if (n == 1)
            num_div (qk, AT (p, idx[i]), S);
          else
            {
              num_div (qk, AT (p, idx[i]), AT (mr, j));
              num_mul (qk, qk, AT (Qv, j));
            }
        }
    }
  if (n == 1)
    num_set_zero (o_kl);
  else
    TRY (num_dot (o_kl, Qv, lqm, L));
  if (num_is_zero (o_kl))
    num_set_zero (o_kl);                /* +0, not the -0 of (n - 1) log1p(-0) */
  TRY (num_dot (o_win, Qv, wt, L));
  TRY (FN (bon_kl_bound) (o_bound, n));
  for (size_t k = 0; k < K; k++)
    num_set (AT (q, k), AT (qq, k));
  if (kl)
    num_set (kl, o_kl);
  if (bound)
    num_set (bound, o_bound);
  if (win)
    num_set (win, o_win);
done:
  NUM_CLEAR (S, x, y, lb, lm, o_kl, o_bound, o_win);
  free (idx);
  free (tmp);
  num_vec_free (v, 8 * K);
  return status;
}

/* Over-optimisation (000 sections 8.2 and 10.4; Gao et al. 2022), gold
 * reward against d = sqrt(KL):
 *   best-of-n  R(d) = d (alpha - beta d),  R'(d) = alpha - 2 beta d = 0 at
 *     d* = alpha/(2 beta), R(d*) = alpha d* / 2 = alpha^2/(4 beta)  (alpha > 0;
 *     else the maximum over d >= 0 is R(0) = 0);
 *   RL         R(d) = d (alpha - beta log d),  R'(d) = alpha - beta log d -
 *     beta = 0 at d* = e^{alpha/beta - 1}, R(d*) = beta d*;  R(0) = 0.
 * alpha - beta d is one fused operation; log d = (log KL)/2. */
int
FN (overopt) (num_ptr d, num_ptr value, num_ptr d_star, num_ptr peak, num_srcptr kl,
              num_srcptr alpha, num_srcptr beta, rlref_overopt_form form)
{
  num_t od, ov, ods, opk, nb, t;
  int status = RLREF_SUCCESS;
  if (!kl || !alpha || !beta)
    RLREF_ERROR ("overopt: NULL argument", RLREF_EINVAL);
  CHECK_FINITE (kl);
  CHECK_FINITE (alpha);
  CHECK_FINITE (beta);
  if (num_sgn (kl) < 0)
    RLREF_ERROR ("overopt: KL must be >= 0", RLREF_EDOM);
  if (num_sgn (beta) <= 0)
    RLREF_ERROR ("overopt: beta must be > 0", RLREF_EDOM);
  if (form != RLREF_OVEROPT_BON && form != RLREF_OVEROPT_RL)
    RLREF_ERROR ("overopt: unknown functional form", RLREF_EINVAL);
  NUM_INIT (od, ov, ods, opk, nb, t);
  num_sqrt (od, kl);
  num_neg (nb, beta);
  if (form == RLREF_OVEROPT_BON)
    {
      num_fma (t, nb, od, alpha);               /* alpha - beta d */
      num_mul (ov, od, t);
      if (num_sgn (alpha) > 0)
        {
          num_div (ods, alpha, beta);
          num_mul_2si (ods, ods, -1);
          num_mul (opk, alpha, ods);
          num_mul_2si (opk, opk, -1);
        }
    }
  else
    {
      if (num_is_zero (kl))
        num_set_zero (ov);
      else
        {
          num_log (t, kl);
          num_mul_2si (t, t, -1);               /* log d */
          num_fma (t, nb, t, alpha);            /* alpha - beta log d */
          num_mul (ov, od, t);
        }
      num_div (t, alpha, beta);
      num_sub_d (t, t, 1.0);
      num_exp (ods, t);
      num_mul (opk, beta, ods);
    }
  if (!num_is_finite (ov) || !num_is_finite (ods) || !num_is_finite (opk))
    status = RANGE_ERROR ();
  if (d)
    num_set (d, od);
  if (value)
    num_set (value, ov);
  if (d_star)
    num_set (d_star, ods);
  if (peak)
    num_set (peak, opk);
  NUM_CLEAR (od, ov, ods, opk, nb, t);
  return status;
}
