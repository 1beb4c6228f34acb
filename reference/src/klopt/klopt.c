/* klopt.c -- the KL-regularised optimum on an explicit finite distribution
 * (KLOPT-*), written once for both backends.  Seed 000 sections 2.2 and
 * 4.1, equations 13.8 and 13.13-13.17.
 *
 * The reference distribution pi_ref and a policy pi are normalised as
 * rlref/klopt.h says.  For any shift c, with d_i = (r_i - c)/beta on the
 * support of pi_ref,
 *   log Z = c/beta + L,   L = log T,  T = sum_i pi_ref_i e^{d_i}   (13.15),
 *   pi*_i = pi_ref_i e^{d_i} / T,  e_i = log(pi*_i/pi_ref_i) = d_i - L  (13.17):
 * log Z is the log-sum-exp of log pi_ref + r/beta, and pi* its softmax.
 * The shift and the form of L are chosen for accuracy (solve below); in
 * particular, as beta -> infinity, log Z ~ E[r]/beta -> 0 is formed as
 * log1p(sum_i pi_ref_i expm1(d_i)), which keeps its relative accuracy.
 *
 * Every KL is summed as
 *   KL(p || q) = sum_i [q_i - p_i + p_i log(p_i/q_i)] = sum_i q_i h(e_i),
 *   e_i = log(p_i/q_i),  h(e) = 1 + (e - 1) e^e >= 0,
 * (the added q_i - p_i sum to 0): no term is negative, so nothing cancels
 * when p is close to q (KL(pi* || pi_ref) ~ Var[r]/(2 beta^2)).  For
 * |e| < 1, h(e) = sum_{k >= 2} (k - 1) e^k / k!; otherwise q_i h(e_i) =
 * q_i + p_i (e_i - 1).  0 log 0 = 0: an outcome with p_i = 0 adds q_i
 * (h(-inf) = 1); p_i > 0 = q_i gives +inf, in both backends.  Supports are
 * read from the log-probabilities (-inf), never from a probability that
 * underflowed.
 *
 * Each function copies its inputs before it writes an output, so an output
 * may share storage with an input of the same length. */
#include <float.h>
#include <stdio.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/klopt.h"
#include "flow.h"
#include "klopt_impl.h"

/* Products are formed only from factors within the binary64 range:
 * probabilities and sums of at least P_NORMAL, exponentials e^d with
 * d >= D_NORMAL; below, the log domain.  The same rule in both backends. */
#define P_NORMAL 0x1p-1000
#define D_NORMAL -690.0
/* Below P_SUB, a subnormal holds fewer digits than its logarithm does. */
#define P_SUB 0x1p-1030

/* One problem: pi_ref, the rewards, beta, an optional policy pi, and
 * everything (13.15)-(13.17) give.  One allocation, NV vectors of n and
 * NS scalars. */
#define NV 13
#define NS 4
typedef struct
{
  size_t n;
  num_ptr p, lp;                /* pi_ref and log pi_ref (-inf off its support) */
  num_ptr pm, pe;               /* pi_ref_i = pm_i 2^pe_i, pm_i in [1/2, 1), or pm_i = 0 */
  num_ptr q, lq;                /* pi and log pi, when given */
  num_ptr qm, qe;               /* pi_i = qm_i 2^qe_i, as pm, pe */
  num_ptr r;                    /* the rewards */
  num_ptr e;                    /* e_i = log(pi*_i/pi_ref_i) on the support, else 0 */
  num_ptr ps, lps;              /* pi* and log pi* */
  num_ptr t;                    /* scratch */
  num_ptr beta, m;              /* beta; the maximum reward on the support */
  num_ptr c, L;                 /* the shift and L = log Z - c/beta */
  num_ptr all;
} problem;

static int
on_support (num_srcptr lp)
{
  return !num_is_inf (lp);
}

/* Index of the largest x_i (the first of equals). */
static size_t
argmax (num_srcptr x, size_t n)
{
  size_t k = 0;
  for (size_t i = 1; i < n; i++)
    if (num_cmp (AT (x, i), AT (x, k)) > 0)
      k = i;
  return k;
}

/* Normalises a distribution x of the given kind into p and lp = log p
 * (-inf where p = 0), as rlref/klopt.h says; t is scratch; name says which
 * input it is in a message.
 *   probabilities:  p_i = x_i / S,  log p_i = log x_i - log1p(S - 1), and
 *     log p_k = log1p(-sum_{i != k} x_i / S) for the largest x_k when
 *     p_k > 1/2 (near 0, it would inherit the rounding of S);
 *   log-probabilities:  with k the largest and s = sum_{i != k} e^{x_i - x_k},
 *     lse(x) = x_k + log1p(s),  log p_i = (x_i - x_k) - log1p(s).
 * When pm is given, also p_i = pm_i 2^pe_i with pm_i in [1/2, 1): from
 * probabilities pm_i = (x_i 2^-e)/S, 2^-e x_i in [1/2, 1), rounded once
 * however small p_i is; from log-probabilities the scaling of p_i where
 * p_i >= P_NORMAL, and pm_i = 0 below (there log p_i is the input). */
static int
normalise (num_ptr p, num_ptr lp, num_srcptr x, int kind, size_t n, num_ptr t, const char *name,
           num_ptr pm, num_ptr pe)
{
  char msg[160];
  num_t s, a;
  size_t k = 0;
  int status = RLREF_SUCCESS;
  NUM_INIT (s, a);
  if (kind == RLREF_KLOPT_PROB)
    {
      for (size_t i = 0; i < n; i++)
        {
          if (!num_is_finite (AT (x, i)))
            {
              snprintf (msg, sizeof msg, "%s: a probability is NaN or infinite", name);
              FAIL (msg, RLREF_ENAN);
            }
          if (num_sgn (AT (x, i)) < 0)
            {
              snprintf (msg, sizeof msg, "%s: a probability is negative", name);
              FAIL (msg, RLREF_EDOM);
            }
        }
      status = num_sum (s, x, n);
      if (status)
        goto done;
      if (num_is_zero (s))
        {
          snprintf (msg, sizeof msg, "%s: no outcome has positive probability", name);
          FAIL (msg, RLREF_EDOM);
        }
      num_sub_d (a, s, 1.0);
      num_abs (a, a);
      if (!(num_cmp_d (a, RLREF_KLOPT_SUM_TOL) <= 0))
        {
          snprintf (msg, sizeof msg, "%s: the probabilities sum to %.17g, not 1 within 2^-20",
                    name, num_get_d (s));
          FAIL (msg, RLREF_EDOM);
        }
      num_sub_d (a, s, 1.0);
      num_log1p (a, a);
      for (size_t i = 0; i < n; i++)
        if (num_is_zero (AT (x, i)))
          {
            num_set_zero (AT (p, i));
            num_set_inf (AT (lp, i), -1);
          }
        else
          {
            num_log (AT (lp, i), AT (x, i));
            num_sub (AT (lp, i), AT (lp, i), a);
            num_div (AT (p, i), AT (x, i), s);
          }
      k = argmax (x, n);
      if (num_cmp_d (AT (p, k), 0.5) > 0)
        {
          for (size_t i = 0; i < n; i++)
            num_set (AT (t, i), AT (x, i));
          num_set_zero (AT (t, k));
          status = num_sum (a, t, n);
          if (status)
            goto done;
          num_div (a, a, s);
          num_neg (a, a);
          num_log1p (AT (lp, k), a);
        }
    }
  else if (kind == RLREF_KLOPT_LOGPROB)
    {
      for (size_t i = 0; i < n; i++)
        if (num_is_nan (AT (x, i)) || (num_is_inf (AT (x, i)) && num_sgn (AT (x, i)) > 0))
          {
            snprintf (msg, sizeof msg, "%s: a log-probability is NaN or +inf", name);
            FAIL (msg, RLREF_ENAN);
          }
      k = argmax (x, n);
      if (num_is_inf (AT (x, k)))
        {
          snprintf (msg, sizeof msg, "%s: every log-probability is -inf", name);
          FAIL (msg, RLREF_EDOM);
        }
      for (size_t i = 0; i < n; i++)
        {
          num_sub (AT (t, i), AT (x, i), AT (x, k));
          num_exp (AT (p, i), AT (t, i));
        }
      num_set_zero (AT (p, k));
      status = num_sum (s, p, n);
      if (status)
        goto done;
      num_log1p (s, s);                 /* log1p(s) = lse(x) - x_k */
      num_add (a, AT (x, k), s);
      num_abs (a, a);
      if (!(num_cmp_d (a, RLREF_KLOPT_SUM_TOL) <= 0))
        {
          num_add (a, AT (x, k), s);
          snprintf (msg, sizeof msg, "%s: log sum e^logp = %.17g, not 0 within 2^-20", name,
                    num_get_d (a));
          FAIL (msg, RLREF_EDOM);
        }
      for (size_t i = 0; i < n; i++)
        {
          num_sub (AT (lp, i), AT (t, i), s);
          num_exp (AT (p, i), AT (lp, i));
        }
    }
  else
    FAIL ("unknown kind of distribution", RLREF_EINVAL);
  for (size_t i = 0; pm && i < n; i++)
    {
      num_set_zero (AT (pm, i));
      num_set_zero (AT (pe, i));
      if (kind == RLREF_KLOPT_PROB && !num_is_zero (AT (x, i)))
        {
          long e = num_get_exp (AT (x, i));
          num_mul_2si (AT (pm, i), AT (x, i), -e);
          num_div (AT (pm, i), AT (pm, i), s);
          num_set_si (AT (pe, i), e);
        }
      else if (kind == RLREF_KLOPT_LOGPROB && num_cmp_d (AT (p, i), P_NORMAL) >= 0)
        {
          long e = num_get_exp (AT (p, i));
          num_mul_2si (AT (pm, i), AT (p, i), -e);
          num_set_si (AT (pe, i), e);
        }
    }
done:
  NUM_CLEAR (s, a);
  return status;
}

/* beta finite and > 0; the rewards finite. */
static int
check_beta_rewards (num_srcptr beta, num_srcptr r, size_t n)
{
  if (beta)
    {
      if (!num_is_finite (beta))
        RLREF_ERROR ("beta is NaN or infinite", RLREF_ENAN);
      if (num_sgn (beta) <= 0)
        RLREF_ERROR ("beta must be > 0", RLREF_EDOM);
    }
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (r, i)))
      RLREF_ERROR ("a reward is NaN or infinite", RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* y = m e^d 2^j, for |d| <= -D_NORMAL (a the scratch for e^d). */
static void
scaled_exp (num_ptr y, num_srcptr m, num_srcptr d, long j, num_ptr a)
{
  num_exp (a, d);
  num_mul (y, m, a);
  num_mul_2si (y, y, j);
}

/* Whether pi_ref_i e^{d_i} is formed from pm_i (else in the log domain). */
static int
scalable (const problem *o, size_t i, num_srcptr d)
{
  return !num_is_zero (AT (o->pm, i)) && num_cmp_d (d, -D_NORMAL) <= 0
    && num_cmp_d (d, D_NORMAL) >= 0;
}

/* With the shift c: d_i = (r_i - c)/beta on the support (0 elsewhere)
 * into e, the sum W = sum_i pi_ref_i expm1(d_i) and, scaled by 2^-ek
 * (pi_ref_k = f_k 2^ek for the likeliest outcome k under pi*, ek = 0
 * without f_k), the terms pi_ref_i e^{d_i} 2^-ek into ps and their sum
 * T 2^-ek.  Each term is pm_i e^{d_i} 2^(pe_i - ek) (scaled_exp), or where
 * pm_i = 0 or |d_i| > -D_NORMAL, e^{log pi_ref_i + d_i} (ek = 0) or
 * f_k e^{log pi_ref_i + d_i - log pi_ref_k}. */
static int
shifted (problem *o, long ek, num_srcptr fk, num_srcptr lpk, num_ptr W, num_ptr T)
{
  int status;
  num_t a, y;
  NUM_INIT (a, y);
  for (size_t i = 0; i < o->n; i++)
    {
      num_ptr d = AT (o->e, i);
      num_set_zero (d);
      num_set_zero (AT (o->t, i));
      num_set_zero (AT (o->ps, i));
      if (!on_support (AT (o->lp, i)))
        continue;
      num_sub (d, AT (o->r, i), o->c);
      num_div (d, d, o->beta);
      if (scalable (o, i, d))
        {
          long pe = (long) num_get_d (AT (o->pe, i));
          scaled_exp (AT (o->ps, i), AT (o->pm, i), d, pe - ek, a);
          num_expm1 (y, d);
          num_mul (y, y, AT (o->pm, i));
          num_mul_2si (AT (o->t, i), y, pe);
        }
      else
        {
          num_add (y, AT (o->lp, i), d);
          if (ek == 0)
            num_exp (AT (o->ps, i), y);
          else
            {
              num_sub (a, y, lpk);
              num_exp (a, a);
              num_mul (AT (o->ps, i), a, fk);
            }
          num_exp (y, y);
          num_sub (AT (o->t, i), y, AT (o->p, i));
        }
    }
  status = num_sum (W, o->t, o->n);
  if (status == RLREF_SUCCESS)
    status = num_sum (T, o->ps, o->n);
  NUM_CLEAR (a, y);
  return status;
}

/* (13.15), (13.17) for a normalised problem: m, c, L, e, pi*, log pi*.
 * The shift c is r_k, k the likeliest outcome under pi* (the largest
 * log pi_ref_k + r_k/beta): then T = pi_ref_k / pi*_k lies in
 * [pi_ref_k, n pi_ref_k], log Z = r_k/beta + L carries no more rounding
 * than its sensitivity to r_k, and equal rewards give d = 0 exactly.
 * The terms and T are held scaled by 2^-ek, pi_ref_k = f_k 2^ek (shifted),
 * so that neither a subnormal pi_ref_i nor a subnormal T loses digits.
 *   L = log1p(W) when W >= -1/2 (as beta -> infinity, log Z ~ E[r]/beta -> 0:
 *   the rounding of log pi_ref in a log-sum-exp would swamp it), else
 *   log T (positive terms), log pi_ref_k + log(T 2^-ek / f_k) where T is
 *   below P_NORMAL, or the log-sum-exp of log pi_ref_i + d_i where there is
 *   no f_k or a sum is not finite (then with c = m, every d_i <= 0);
 *   pi*_i = (pi_ref_i e^{d_i} 2^-ek) / (T 2^-ek) where the term is scaled,
 *   else e^{log pi_ref_i + d_i - L};
 *   log pi*_k = log1p(-sum_{i != k} pi*_i) for an outcome k with pi*_k > 1/2
 *   (its log is near 0: log pi_ref_k + d_k - L would cancel), log pi*_i
 *   otherwise, or log pi_ref_i + d_i - L below the binary64 range. */
static int
solve (problem *o)
{
  size_t n = o->n, k = 0;
  int status = RLREF_SUCCESS, first = 1, direct = 0;
  long ek = 0;
  num_t W, T, a, wk;
  NUM_INIT (W, T, a, wk);
  /* m = max r over the support; k = argmax log pi_ref_i + (r_i - m)/beta */
  for (size_t i = 0; i < n; i++)
    if (on_support (AT (o->lp, i)) && (first || num_cmp (AT (o->r, i), o->m) > 0))
      {
        num_set (o->m, AT (o->r, i));
        first = 0;
      }
  first = 1;
  for (size_t i = 0; i < n; i++)
    if (on_support (AT (o->lp, i)))
      {
        num_sub (a, AT (o->r, i), o->m);
        num_div (a, a, o->beta);
        num_add (a, a, AT (o->lp, i));
        if (first || num_cmp (a, wk) > 0)
          {
            num_set (wk, a);
            k = i;
            first = 0;
          }
      }
  num_set (o->c, AT (o->r, k));
  if (!num_is_zero (AT (o->pm, k)))
    ek = (long) num_get_d (AT (o->pe, k));
  status = shifted (o, ek, AT (o->pm, k), AT (o->lp, k), W, T);
  if (status)
    goto done;
  if (num_is_finite (W) && num_is_finite (T) && num_cmp_d (W, -0.5) >= 0)
    {
      num_log1p (o->L, W);
      num_add_d (T, W, 1.0);
      num_mul_2si (T, T, -ek);
      direct = 1;
    }
  else if (num_is_finite (T))
    {
      num_mul_2si (a, T, ek);
      if (num_cmp_d (a, P_NORMAL) >= 0)
        {
          num_log (o->L, a);
          direct = 1;
        }
      else if (!num_is_zero (AT (o->pm, k)))
        {
          num_div (a, T, AT (o->pm, k));
          num_log (a, a);
          num_add (o->L, AT (o->lp, k), a);
          direct = 1;
        }
    }
  if (!direct)
    {
      /* L = lse(log pi_ref_i + d_i), -inf off the support, with c = m */
      num_set (o->c, o->m);
      status = shifted (o, 0, NULL, NULL, W, T);
      if (status)
        goto done;
      for (size_t i = 0; i < n; i++)
        num_add (AT (o->t, i), AT (o->lp, i), AT (o->e, i));
      status = FN (logsumexp) (o->L, o->t, n);
      if (status)
        goto done;
    }
  /* pi*_i (o->ps holds pi_ref_i e^{d_i} 2^-ek); e_i = d_i - L */
  k = 0;
  for (size_t i = 0; i < n; i++)
    if (on_support (AT (o->lp, i)))
      {
        int scaled = direct && scalable (o, i, AT (o->e, i));
        num_sub (AT (o->e, i), AT (o->e, i), o->L);
        if (scaled)
          num_div (AT (o->ps, i), AT (o->ps, i), T);
        else
          {
            num_add (AT (o->lps, i), AT (o->lp, i), AT (o->e, i));
            num_exp (AT (o->ps, i), AT (o->lps, i));
          }
        if (num_cmp (AT (o->ps, i), AT (o->ps, k)) > 0)
          k = i;
      }
    else
      num_set_zero (AT (o->ps, i));
  /* log pi*_i */
  for (size_t i = 0; i < n; i++)
    if (!on_support (AT (o->lp, i)))
      num_set_inf (AT (o->lps, i), -1);
    else if (num_cmp_d (AT (o->ps, i), P_NORMAL) >= 0)
      num_log (AT (o->lps, i), AT (o->ps, i));
    else
      num_add (AT (o->lps, i), AT (o->lp, i), AT (o->e, i));
  if (num_cmp_d (AT (o->ps, k), 0.5) > 0)
    {
      for (size_t i = 0; i < n; i++)
        num_set (AT (o->t, i), AT (o->ps, i));
      num_set_zero (AT (o->t, k));
      status = num_sum (a, o->t, n);
      if (status)
        goto done;
      num_neg (a, a);
      num_log1p (AT (o->lps, k), a);
    }
done:
  NUM_CLEAR (W, T, a, wk);
  return status;
}

static void
problem_free (problem *o)
{
  if (o->all)
    num_vec_free (o->all, NV * o->n + NS);
  o->all = NULL;
}

/* Checks and copies the inputs (pi may be NULL, beta may be NULL for a
 * limit) and, when beta is given, solves the problem. */
static int
problem_new (problem *o, num_srcptr ref, int kind, num_srcptr r, size_t n, num_srcptr beta,
             num_srcptr pi)
{
  int status;
  o->all = NULL;
  o->n = n;
  if (!ref || !r || n == 0)
    RLREF_ERROR ("empty or NULL distribution or rewards", RLREF_EINVAL);
  status = check_beta_rewards (beta, r, n);
  if (status)
    return status;
  o->all = num_vec_new (NV * n + NS);
  if (!o->all)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  o->p = AT (o->all, 0);
  o->lp = AT (o->all, n);
  o->q = AT (o->all, 2 * n);
  o->lq = AT (o->all, 3 * n);
  o->r = AT (o->all, 4 * n);
  o->e = AT (o->all, 5 * n);
  o->ps = AT (o->all, 6 * n);
  o->lps = AT (o->all, 7 * n);
  o->t = AT (o->all, 8 * n);
  o->pm = AT (o->all, 9 * n);
  o->pe = AT (o->all, 10 * n);
  o->qm = AT (o->all, 11 * n);
  o->qe = AT (o->all, 12 * n);
  o->beta = AT (o->all, NV * n);
  o->m = AT (o->all, NV * n + 1);
  o->c = AT (o->all, NV * n + 2);
  o->L = AT (o->all, NV * n + 3);
  status = normalise (o->p, o->lp, ref, kind, n, o->t, "reference distribution", o->pm, o->pe);
  if (status == RLREF_SUCCESS && pi)
    status = normalise (o->q, o->lq, pi, kind, n, o->t, "policy pi", o->qm, o->qe);
  if (status == RLREF_SUCCESS)
    {
      for (size_t i = 0; i < n; i++)
        num_set (AT (o->r, i), AT (r, i));
      if (beta)
        {
          num_set (o->beta, beta);
          status = solve (o);
        }
    }
  if (status)
    problem_free (o);
  return status;
}

/* KL(p || q) = sum_i q_i h(e_i), e_i = log(p_i/q_i) given in w (which is
 * overwritten); lpp, lpq are log p and log q, which decide the supports;
 * pm, pe (or NULL) the scaling of p, p_i = pm_i 2^pe_i (normalise). */
static int
kl_sum (num_ptr kl, num_srcptr p, num_srcptr lpp, num_srcptr pm, num_srcptr pe, num_srcptr q,
        num_srcptr lpq, num_ptr w, size_t n)
{
  num_t h, a;
  int status;
  num_init (h);
  num_init (a);
  for (size_t i = 0; i < n; i++)
    {
      if (!on_support (AT (lpp, i)))
        num_set (AT (w, i), AT (q, i));         /* 0 log 0 = 0: q_i h(-inf) = q_i */
      else if (num_is_zero (AT (p, i)) && on_support (AT (lpq, i))
               && num_cmp_d (AT (w, i), 1.0) < 0)
        num_set (AT (w, i), AT (q, i));         /* p_i underflowed: p_i (e_i - 1) is below it */
      else if (!on_support (AT (lpq, i)))
        {
          num_clear (h);
          num_clear (a);
          num_set_inf (kl, 1);                  /* p_i > 0 = q_i */
          return RLREF_SUCCESS;
        }
      else
        {
          num_abs (a, AT (w, i));
          if (num_cmp_d (a, 1.0) < 0)
            {
              status = FN (kl_term) (h, AT (w, i));
              if (status)
                {
                  num_clear (h);
                  num_clear (a);
                  return status;
                }
              num_mul (AT (w, i), AT (q, i), h);
            }
          else if (num_sgn (AT (w, i)) > 0 && num_cmp_d (AT (p, i), P_SUB) < 0)
            {
              /* p_i below the binary64 range (or 0): p_i (e_i - 1) =
               * (pm_i (e_i - 1)) 2^pe_i, or e^{log p_i + log(e_i - 1)},
               * which may be far above it */
              num_sub_d (a, AT (w, i), 1.0);
              if (pm && !num_is_zero (AT (pm, i)))
                {
                  num_mul (a, a, AT (pm, i));
                  num_mul_2si (a, a, (long) num_get_d (AT (pe, i)));
                }
              else
                {
                  num_log (a, a);
                  num_add (a, a, AT (lpp, i));
                  num_exp (a, a);
                }
              num_add (AT (w, i), a, AT (q, i));
            }
          else
            {
              /* q_i + p_i (e_i - 1): both terms >= 0 for e >= 1, and
               * h(e) >= h(-1) = 1 - 2/e for e <= -1 */
              num_sub_d (a, AT (w, i), 1.0);
              num_fma (AT (w, i), AT (p, i), a, AT (q, i));
            }
        }
    }
  status = num_sum (kl, w, n);
  num_clear (h);
  num_clear (a);
  return status;
}

/* E_pi[r] - beta KL(pi || pi_ref) and its two parts, into obj, er, kl. */
static int
objective_of_pi (num_ptr obj, num_ptr er, num_ptr kl, problem *o)
{
  int status = num_dot (er, o->q, o->r, o->n);
  if (status)
    return status;
  for (size_t i = 0; i < o->n; i++)
    num_sub (AT (o->t, i), AT (o->lq, i), AT (o->lp, i));
  status = kl_sum (kl, o->q, o->lq, o->qm, o->qe, o->p, o->lp, o->t, o->n);
  if (status)
    return status;
  num_mul (obj, o->beta, kl);
  num_sub (obj, er, obj);
  return RLREF_SUCCESS;
}

/* (13.15)  log Z = log sum_i pi_ref_i e^{r_i/beta} = c/beta + L;  Z = e^{log Z}
 * when Z <= DBL_MAX, +inf otherwise. */
int
FN (klopt_logz) (num_ptr logz, num_ptr z, num_srcptr ref, int kind, num_srcptr r, size_t n,
                 num_srcptr beta)
{
  problem o;
  num_t lz;
  int status = problem_new (&o, ref, kind, r, n, beta, NULL);
  if (status)
    return status;
  num_init (lz);
  num_div (lz, o.c, o.beta);
  num_add (lz, lz, o.L);
  if (z)
    {
      /* Z where binary64 represents it, +inf beyond (in both backends) */
      num_exp (z, lz);
      if (num_cmp_d (z, DBL_MAX) > 0)
        num_set_inf (z, 1);
    }
  num_set (logz, lz);
  num_clear (lz);
  problem_free (&o);
  return RLREF_SUCCESS;
}

/* klopt_impl.h: log Z = c/beta + L and pi*, log pi*, e, log pi_ref. */
int
FN (klopt_solution) (num_ptr logz, num_ptr pistar, num_ptr logpistar, num_ptr h,
                     num_ptr logref, num_srcptr ref, int kind, num_srcptr r, size_t n,
                     num_srcptr beta)
{
  problem o;
  int status = problem_new (&o, ref, kind, r, n, beta, NULL);
  if (status)
    return status;
  for (size_t i = 0; i < n; i++)
    {
      if (pistar)
        num_set (AT (pistar, i), AT (o.ps, i));
      if (logpistar)
        num_set (AT (logpistar, i), AT (o.lps, i));
      if (h)
        num_set (AT (h, i), AT (o.e, i));
      if (logref)
        num_set (AT (logref, i), AT (o.lp, i));
    }
  num_div (logz, o.c, o.beta);
  num_add (logz, logz, o.L);
  problem_free (&o);
  return RLREF_SUCCESS;
}

/* (13.17)  pi*_i = pi_ref_i e^{r_i/beta} / Z;  E_pi*[r] = sum_i pi*_i r_i;
 * KL(pi* || pi_ref) = sum_i pi_ref_i h(e_i);  KL(pi_ref || pi*) = sum_i pi*_i h(-e_i). */
int
FN (klopt_pistar) (num_ptr pistar, num_ptr logpistar, num_ptr er, num_ptr kl_star_ref,
                   num_ptr kl_ref_star, num_srcptr ref, int kind, num_srcptr r, size_t n,
                   num_srcptr beta)
{
  problem o;
  num_t ex, k1, k2;
  int status = problem_new (&o, ref, kind, r, n, beta, NULL);
  if (status)
    return status;
  NUM_INIT (ex, k1, k2);
  status = num_dot (ex, o.ps, o.r, n);
  for (size_t i = 0; i < n; i++)
    num_set (AT (o.t, i), AT (o.e, i));
  if (status == RLREF_SUCCESS)
    status = kl_sum (k1, o.ps, o.lps, NULL, NULL, o.p, o.lp, o.t, n);
  for (size_t i = 0; i < n; i++)
    num_neg (AT (o.t, i), AT (o.e, i));
  if (status == RLREF_SUCCESS)
    status = kl_sum (k2, o.p, o.lp, o.pm, o.pe, o.ps, o.lps, o.t, n);
  if (status == RLREF_SUCCESS)
    {
      for (size_t i = 0; i < n; i++)
        {
          num_set (AT (pistar, i), AT (o.ps, i));
          if (logpistar)
            num_set (AT (logpistar, i), AT (o.lps, i));
        }
      if (er)
        num_set (er, ex);
      if (kl_star_ref)
        num_set (kl_star_ref, k1);
      if (kl_ref_star)
        num_set (kl_ref_star, k2);
    }
  NUM_CLEAR (ex, k1, k2);
  problem_free (&o);
  return status;
}

/* (13.8), (13.13)  J(pi) = E_pi[r] - beta KL(pi || pi_ref). */
int
FN (klopt_objective) (num_ptr obj, num_ptr er, num_ptr kl, num_srcptr pi, num_srcptr ref,
                      int kind, num_srcptr r, size_t n, num_srcptr beta)
{
  problem o;
  num_t j, ex, k;
  int status;
  if (!pi)
    RLREF_ERROR ("NULL policy", RLREF_EINVAL);
  status = problem_new (&o, ref, kind, r, n, beta, pi);
  if (status)
    return status;
  NUM_INIT (j, ex, k);
  status = objective_of_pi (j, ex, k, &o);
  if (status == RLREF_SUCCESS)
    {
      num_set (obj, j);
      if (er)
        num_set (er, ex);
      if (kl)
        num_set (kl, k);
    }
  NUM_CLEAR (j, ex, k);
  problem_free (&o);
  return status;
}

#ifdef RLREF_MP
/* (13.13) at pi*:  J(pi*) = E_pi*[r] - beta KL(pi* || pi_ref) = beta log Z,
 * beta log Z formed as c + beta L. */
int
FN (klopt_optimum) (num_ptr obj_star, num_ptr beta_logz, num_srcptr ref, int kind,
                    num_srcptr r, size_t n, num_srcptr beta)
{
  problem o;
  num_t j, k, b;
  int status = problem_new (&o, ref, kind, r, n, beta, NULL);
  if (status)
    return status;
  NUM_INIT (j, k, b);
  status = num_dot (j, o.ps, o.r, n);
  for (size_t i = 0; i < n; i++)
    num_set (AT (o.t, i), AT (o.e, i));
  if (status == RLREF_SUCCESS)
    status = kl_sum (k, o.ps, o.lps, NULL, NULL, o.p, o.lp, o.t, n);
  if (status == RLREF_SUCCESS)
    {
      num_mul (k, k, o.beta);
      num_sub (j, j, k);
      num_mul (b, o.beta, o.L);
      num_add (b, b, o.c);
      num_set (obj_star, j);
      if (beta_logz)
        num_set (beta_logz, b);
    }
  NUM_CLEAR (j, k, b);
  problem_free (&o);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  For beta near the largest double, c + beta L has its
 * terms d = (r - c)/beta and the weights of L underflowing in binary64. */
#include <stdlib.h>
#include "round_once.h"

typedef struct
{
  size_t n;
  int kind;
} optimum_program;

/* x = (ref, r, beta); y = (obj_star, beta_logz). */
static int
optimum_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const optimum_program *o = ctx;
  return rlref_klopt_optimum_mp (y, y + 1, x, o->kind, x + o->n, o->n, x + 2 * o->n);
}

int
FN (klopt_optimum) (num_ptr obj_star, num_ptr beta_logz, num_srcptr ref, int kind,
                    num_srcptr r, size_t n, num_srcptr beta)
{
  optimum_program o = { n, kind };
  problem chk;
  double *x;
  int status;
  if (!beta)
    RLREF_ERROR ("NULL beta", RLREF_EINVAL);
  /* the checks of the inputs in problem_new's order, without the binary64
   * solve */
  status = ref && r && n ? check_beta_rewards (beta, r, n) : RLREF_SUCCESS;
  if (status == RLREF_SUCCESS)
    status = problem_new (&chk, ref, kind, r, n, NULL, NULL);
  if (status)
    return status;
  problem_free (&chk);
  x = malloc ((2 * n + 3) * sizeof *x);
  if (!x)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      x[i] = ref[i];
      x[n + i] = r[i];
    }
  x[2 * n] = *beta;
  status = rlref_round_once (x + 2 * n + 1, 2, x, 2 * n + 1, optimum_mp, &o,
                             "the optimum beta log Z");
  if (status == RLREF_SUCCESS)
    {
      *obj_star = x[2 * n + 1];
      if (beta_logz)
        *beta_logz = x[2 * n + 2];
    }
  free (x);
  return status;
}
#endif

/* (13.14)-(13.16)  J(pi) = -beta [KL(pi || pi*) - log Z], with
 * KL(pi || pi*) from log pi - log pi*.  As written, beta log Z and
 * beta KL(pi || pi*) cancel when both are much larger than J(pi) (small
 * beta, or a large reward where pi is 0: r = 2^300 gives 2^300 twice for
 * J = 1.8), and no rounding of the two survives the difference.  So the
 * right side is formed with (13.17) substituted outcome by outcome,
 *   beta log Z - beta log(pi_i/pi*_i) = r_i - beta log(pi_i/pi_ref_i),
 * where log Z cancels exactly: sum_i pi_i [r_i - beta log(pi_i/pi_ref_i)]
 * = E_pi[r] - beta KL(pi || pi_ref), as klopt_objective forms it (its
 * KL terms >= 0).  KL(pi || pi*) is returned as computed. */
int
FN (klopt_identity) (num_ptr obj, num_ptr ident, num_ptr kl_pistar, num_srcptr pi,
                     num_srcptr ref, int kind, num_srcptr r, size_t n, num_srcptr beta)
{
  problem o;
  num_t j, ex, k, ks, b;
  int status;
  if (!pi)
    RLREF_ERROR ("NULL policy", RLREF_EINVAL);
  status = problem_new (&o, ref, kind, r, n, beta, pi);
  if (status)
    return status;
  NUM_INIT (j, ex, k, ks, b);
  status = objective_of_pi (j, ex, k, &o);
  for (size_t i = 0; i < n; i++)
    num_sub (AT (o.t, i), AT (o.lq, i), AT (o.lps, i));
  if (status == RLREF_SUCCESS)
    status = kl_sum (ks, o.q, o.lq, o.qm, o.qe, o.ps, o.lps, o.t, n);
  if (status == RLREF_SUCCESS)
    {
      num_mul (k, o.beta, k);
      num_sub (b, ex, k);
      num_set (obj, j);
      if (ident)
        num_set (ident, b);
      if (kl_pistar)
        num_set (kl_pistar, ks);
    }
  NUM_CLEAR (j, ex, k, ks, b);
  problem_free (&o);
  return status;
}

/* KL(p || q) = sum_i p_i log(p_i/q_i) = sum_i q_i h(log p_i - log q_i). */
int
FN (klopt_kl) (num_ptr kl, num_srcptr p, num_srcptr q, int kind, size_t n)
{
  num_ptr v;
  num_t k;
  int status;
  if (!p || !q || n == 0)
    RLREF_ERROR ("empty or NULL distribution", RLREF_EINVAL);
  v = num_vec_new (5 * n);
  if (!v)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  num_init (k);
  status = normalise (AT (v, 0), AT (v, n), p, kind, n, AT (v, 4 * n), "p", NULL, NULL);
  if (status == RLREF_SUCCESS)
    status = normalise (AT (v, 2 * n), AT (v, 3 * n), q, kind, n, AT (v, 4 * n), "q", NULL, NULL);
  if (status == RLREF_SUCCESS)
    {
      for (size_t i = 0; i < n; i++)
        num_sub (AT (v, 4 * n + i), AT (v, n + i), AT (v, 3 * n + i));
      status = kl_sum (k, AT (v, 0), AT (v, n), NULL, NULL, AT (v, 2 * n), AT (v, 3 * n),
                       AT (v, 4 * n), n);
    }
  if (status == RLREF_SUCCESS)
    num_set (kl, k);
  num_clear (k);
  num_vec_free (v, 5 * n);
  return status;
}

/* beta -> infinity:  pi*_beta -> pi_ref,  E_pi*[r] -> E_pi_ref[r]. */
int
FN (klopt_limit_ref) (num_ptr pi, num_ptr er, num_srcptr ref, int kind, num_srcptr r,
                      size_t n)
{
  problem o;
  num_t ex;
  int status = problem_new (&o, ref, kind, r, n, NULL, NULL);
  if (status)
    return status;
  num_init (ex);
  status = num_dot (ex, o.p, o.r, n);
  if (status == RLREF_SUCCESS)
    {
      for (size_t i = 0; i < n; i++)
        num_set (AT (pi, i), AT (o.p, i));
      if (er)
        num_set (er, ex);
    }
  num_clear (ex);
  problem_free (&o);
  return status;
}

/* The outcomes A = {i : pi_ref_i > 0, r_i = m}, m = max r over the
 * support: t_i = log pi_ref_i on A, -inf elsewhere; returns m in o->m. */
static void
argmax_set (problem *o)
{
  int first = 1;
  for (size_t i = 0; i < o->n; i++)
    if (on_support (AT (o->lp, i)) && (first || num_cmp (AT (o->r, i), o->m) > 0))
      {
        num_set (o->m, AT (o->r, i));
        first = 0;
      }
  for (size_t i = 0; i < o->n; i++)
    if (on_support (AT (o->lp, i)) && num_cmp (AT (o->r, i), o->m) == 0)
      num_set (AT (o->t, i), AT (o->lp, i));
    else
      num_set_inf (AT (o->t, i), -1);
}

/* beta -> 0:  pi*_beta -> pi0,  pi0_i = pi_ref_i / pi_ref(A) on A, 0 elsewhere;
 * E_pi*[r] -> m.  From probabilities, pi0_i = p_i / sum_{j in A} p_j on the
 * inputs (the normalisation cancels); from log-probabilities,
 * e^{log pi_ref_i - lse_A(log pi_ref)}. */
int
FN (klopt_limit_argmax) (num_ptr pi, num_ptr er, num_srcptr ref, int kind, num_srcptr r,
                         size_t n)
{
  problem o;
  num_t sa;
  int status = problem_new (&o, ref, kind, r, n, NULL, NULL);
  if (status)
    return status;
  num_init (sa);
  argmax_set (&o);
  if (kind == RLREF_KLOPT_PROB)
    {
      for (size_t i = 0; i < n; i++)
        if (num_is_inf (AT (o.t, i)))
          num_set_zero (AT (o.t, i));
        else
          num_set (AT (o.t, i), AT (ref, i));
      status = num_sum (sa, o.t, n);
      for (size_t i = 0; status == RLREF_SUCCESS && i < n; i++)
        num_div (AT (o.t, i), AT (o.t, i), sa);
    }
  else
    {
      status = FN (logsumexp) (sa, o.t, n);
      for (size_t i = 0; status == RLREF_SUCCESS && i < n; i++)
        {
          num_sub (AT (o.t, i), AT (o.t, i), sa);
          num_exp (AT (o.t, i), AT (o.t, i));
        }
    }
  if (status == RLREF_SUCCESS)
    {
      for (size_t i = 0; i < n; i++)
        num_set (AT (pi, i), AT (o.t, i));
      if (er)
        num_set (er, o.m);
    }
  num_clear (sa);
  problem_free (&o);
  return status;
}

/* tv_ref = (1/2) sum_i |pi*_i - pi_ref_i| = the sum of the positive parts
 * of pi*_i - pi_ref_i = that of pi_ref_i - pi*_i.  Each difference is
 * pi_ref_i expm1(e_i) where e_i = d_i - L is known to better than its own
 * size (|d_i| + |L| <= 1: as beta -> infinity), else pi*_i - pi_ref_i,
 * whose rounding is about max(pi*_i, pi_ref_i) u; of the two sides, the
 * one with the smaller such rounding is summed (a rare outcome that pi*
 * makes likely leaves the other side cancelling).
 * tv_argmax = (1/2) sum_i |pi*_i - pi0_i| = pi*(outside A), since pi* on A
 * is pi0 times pi*(A). */
int
FN (klopt_approach) (num_ptr tv_ref, num_ptr tv_argmax, num_srcptr ref, int kind,
                     num_srcptr r, size_t n, num_srcptr beta)
{
  problem o;
  num_t a, b, tr, ta, bp, bm;
  int status = problem_new (&o, ref, kind, r, n, beta, NULL);
  if (status)
    return status;
  NUM_INIT (a, b, tr, ta, bp, bm);
  for (size_t i = 0; i < n; i++)
    {
      num_set_zero (AT (o.t, i));
      num_set_zero (AT (o.q, i));
      if (!on_support (AT (o.lp, i)))
        continue;
      /* |d_i| + |L| = |e_i + L| + |L| */
      num_add (a, AT (o.e, i), o.L);
      num_abs (a, a);
      num_abs (b, o.L);
      num_add (a, a, b);
      if (num_cmp_d (a, 1.0) <= 0)
        {
          num_expm1 (a, AT (o.e, i));
          num_mul (a, a, AT (o.p, i));
          num_set_zero (b);
        }
      else
        {
          num_sub (a, AT (o.ps, i), AT (o.p, i));
          num_max (b, AT (o.ps, i), AT (o.p, i));
        }
      if (num_sgn (a) > 0)
        {
          num_set (AT (o.t, i), a);
          num_add (bp, bp, b);
        }
      else
        {
          num_neg (AT (o.q, i), a);
          num_add (bm, bm, b);
        }
    }
  status = num_sum (tr, num_cmp (bp, bm) <= 0 ? o.t : o.q, n);
  /* the mass of pi* off A (o.m is the maximum reward on the support) */
  for (size_t i = 0; i < n; i++)
    if (on_support (AT (o.lp, i)) && num_cmp (AT (o.r, i), o.m) < 0)
      num_set (AT (o.t, i), AT (o.ps, i));
    else
      num_set_zero (AT (o.t, i));
  if (status == RLREF_SUCCESS)
    status = num_sum (ta, o.t, n);
  if (status == RLREF_SUCCESS)
    {
      num_set (tv_ref, tr);
      if (tv_argmax)
        num_set (tv_argmax, ta);
    }
  NUM_CLEAR (a, b, tr, ta, bp, bm);
  problem_free (&o);
  return status;
}
