/* kl_exact.c -- exact expectation, bias and variance of the KL estimators
 * k1, k2, k3 under the sampling distribution (KL-EXACT) on a finite
 * distribution and on the tiny LM; the Gaussians are in kl_gauss.c.  Seed
 * 000 section 12.1 and table 5: k1 and k3 unbiased (k3 only where the
 * reference has no mass outside the policy's support), k2 biased.
 * Written once for both backends.
 *
 * Where the estimators nearly agree with the KL the terms are formed
 * without cancellation: p k3(l) = p_ref - p + p l >= 0 sums to E[k3], and
 * the bias of k2 is sum p (k2 - k3) + (E[k3] - KL) with k2 - k3 =
 * -(e^-l - 1 + l - l^2/2) (kl_series.c). */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/kl.h"
#include "kl_series.h"
#include "flow.h"

/* ERANGE, recorded, when an output is beyond the backend's range. */
static int
range_check (num_srcptr out, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (num_is_nan (AT (out, i)) || num_is_inf (AT (out, i)))
      return RANGE_ERROR ();
  return RLREF_SUCCESS;
}

/* --- a finite distribution ----------------------------------------------- */

/* l = log(p/q) for p, q > 0: log1p((p - q)/q) when q/2 <= p <= 2q (p - q
 * is then exact and l keeps its relative accuracy near 0), else log(p/q),
 * or log p - log q where p/q leaves the range. */
static void
log_ratio (num_ptr l, num_srcptr p, num_srcptr q, num_ptr t)
{
  int near;
  num_mul_2si (t, q, -1);
  near = num_cmp (p, t) >= 0;
  num_mul_2si (t, q, 1);
  near = near && num_cmp (p, t) <= 0;
  if (near)
    {
      num_sub (l, p, q);
      num_div (l, l, q);
      num_log1p (l, l);
      return;
    }
  num_div (l, p, q);
  if (num_is_finite (l) && !num_is_zero (l) && num_get_exp (l) > -1000)
    num_log (l, l);
  else
    {
      num_log (l, p);
      num_log (t, q);
      num_sub (l, l, t);
    }
}

/* p >= 0, finite, summing to 1 within RLREF_KL_NORM_TOL. */
static int
check_distribution (num_srcptr p, size_t n, num_ptr s)
{
  int status = RLREF_SUCCESS;
  for (size_t i = 0; i < n; i++)
    {
      if (!num_is_finite (AT (p, i)))
        RLREF_ERROR ("a probability is not finite", RLREF_ENAN);
      if (num_sgn (AT (p, i)) < 0)
        RLREF_ERROR ("a negative probability", RLREF_EDOM);
    }
  status = num_sum (s, p, n);
  if (status)
    return status;
  num_sub_d (s, s, 1.0);
  num_abs (s, s);
  if (num_cmp_d (s, RLREF_KL_NORM_TOL) > 0)
    RLREF_ERROR ("probabilities that do not sum to 1 (within 1e-6)", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* 000 section 12.1 on the distributions pi = p/S, pi_ref = p_ref/S_ref
 * (S, S_ref the sums of the entries), over the outcomes with p_i > 0:
 *   l_i = log(pi_i/pi_ref,i) = log(p_i/p_ref,i) + log(S_ref/S), the shift
 *     log1p((S_ref - S)/S) with S_ref - S one exactly rounded sum,
 *   E[k3] = sum pi k3(l) (terms pi_ref - pi + pi l >= 0),
 *   E[k3] - KL = E[u - 1] = sum_{p>0} pi_ref - 1 = -(sum_{p=0} p_ref)/S_ref,
 *   KL = E[k3] - (E[k3] - KL), a sum of non-negative terms,
 *   E[k2] = sum pi l^2/2,  E[k2] - KL = (E[k3] - KL) - sum pi (e^-l - 1 + l - l^2/2),
 *   Var[k] = sum pi (k - E[k])^2. */
int
FN (kl_exact) (num_ptr out, num_srcptr p, num_srcptr p_ref, size_t n)
{
  num_ptr t = NULL;
  num_t s, sr, x, c;
  int status;
  if (!out || !p || !p_ref || n == 0)
    RLREF_ERROR ("empty or missing distribution", RLREF_EINVAL);
  num_init (s);
  num_init (sr);
  num_init (x);
  num_init (c);
  TRY (check_distribution (p, n, x));
  TRY (check_distribution (p_ref, n, x));
  for (size_t i = 0; i < n; i++)
    if (num_sgn (AT (p, i)) > 0 && num_is_zero (AT (p_ref, i)))
      FAIL ("p_ref is 0 where p > 0: the KL is infinite", RLREF_EDOM);
  /* t: l, k2, k3, the terms pi (k3 - k2), pi (n each), then 2n scratch (the
   * terms pi k3 in its second half), then the outputs */
  t = num_vec_new (7 * n + RLREF_KL_NEXACT);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  {
    num_ptr l = t, k2 = AT (t, n), k3 = AT (t, 2 * n), r3 = AT (t, 3 * n), pi = AT (t, 4 * n);
    num_ptr w = AT (t, 5 * n), o = AT (t, 7 * n);
    TRY (num_sum (s, p, n));
    TRY (num_sum (sr, p_ref, n));
    /* c = log(S_ref/S) = log1p((S_ref - S)/S) */
    for (size_t i = 0; i < n; i++)
      {
        num_set (AT (w, i), AT (p_ref, i));
        num_neg (AT (w, n + i), AT (p, i));
      }
    TRY (num_sum (c, w, 2 * n));
    num_div (c, c, s);
    num_log1p (c, c);
    for (size_t i = 0; i < n; i++)
      {
        if (num_is_zero (AT (p, i)))
          continue;                     /* never sampled: every term 0 */
        num_div (AT (pi, i), AT (p, i), s);
        log_ratio (AT (l, i), AT (p, i), AT (p_ref, i), x);
        num_add (AT (l, i), AT (l, i), c);
        num_sqr (AT (k2, i), AT (l, i));
        num_mul_2si (AT (k2, i), AT (k2, i), -1);
        num_neg (x, AT (l, i));
        FN (kl_exp_rem) (AT (k3, i), x, 2);
        /* the weighted terms pi k3 and pi (k3 - k2), pi_ref = p_ref/S_ref */
        num_div (AT (w, n + i), AT (p_ref, i), sr);
        FN (kl_k3_term) (AT (w, i), AT (pi, i), AT (w, n + i), AT (l, i));
        FN (kl_rem3_term) (AT (r3, i), AT (pi, i), AT (w, n + i), AT (l, i));
        num_set (AT (w, n + i), AT (w, i));
      }
    TRY (num_sum (AT (o, RLREF_KL_E_K3), AT (w, n), n));
    /* E[k3] - KL = -(sum_{p=0} p_ref)/S_ref */
    for (size_t i = 0; i < n; i++)
      if (num_is_zero (AT (p, i)))
        num_set (AT (w, i), AT (p_ref, i));
      else
        num_set_zero (AT (w, i));
    TRY (num_sum (x, w, n));
    num_div (x, x, sr);
    num_neg (AT (o, RLREF_KL_BIAS_K3), x);
    num_sub (AT (o, RLREF_KL_KL), AT (o, RLREF_KL_E_K3), AT (o, RLREF_KL_BIAS_K3));
    TRY (num_dot (AT (o, RLREF_KL_E_K2), pi, k2, n));
    TRY (num_sum (x, r3, n));
    num_sub (AT (o, RLREF_KL_BIAS_K2), AT (o, RLREF_KL_BIAS_K3), x);
    /* the variances, two-pass */
    for (int e = 0; e < 3; e++)
      {
        num_ptr k = e == 0 ? l : e == 1 ? k2 : k3;
        num_srcptr mean = AT (o, e == 0 ? RLREF_KL_KL : e == 1 ? RLREF_KL_E_K2 : RLREF_KL_E_K3);
        for (size_t i = 0; i < n; i++)
          {
            num_sub (AT (w, i), AT (k, i), mean);
            num_sqr (AT (w, i), AT (w, i));
          }
        TRY (num_dot (AT (o, RLREF_KL_VAR_K1 + e), pi, w, n));
      }
    for (int j = 0; j < RLREF_KL_NEXACT; j++)
      num_set (AT (out, j), AT (o, j));
    status = range_check (out, RLREF_KL_NEXACT);
  }
done:
  num_clear (s);
  num_clear (sr);
  num_clear (x);
  num_clear (c);
  num_vec_free (t, 7 * n + RLREF_KL_NEXACT);
  return status;
}

#ifdef RLREF_MP
/* --- the tiny LM ------------------------------------------------------- */

/* What the enumeration carries: the model, the pass (1: the means, 2: the
 * variances), the first failing status, and the sums. */
struct lm_walk
{
  const rlref_lm *lm;
  num_srcptr logits, ref_logits;
  int token_sum, pass, status;
  num_ptr tokq, tokr, v;        /* v: lq, lr, w, l, k1, k2, k3, r3, x, y */
  num_ptr mean;                 /* E[k1], E[k2], E[k3] after pass 1 */
  kl_acc a[5];                  /* pass 1: w l, w k2, w k3, w r3; pass 2: the three variances */
};

/* One sequence y of the enumeration: its estimators (token by token or of
 * l(y)), added to the pass's sums with the weight w = pi(y). */
static void
lm_visit (void *ctx, const int *y, int L, int cut, num_srcptr logp, num_srcptr r,
          num_srcptr logp_star)
{
  struct lm_walk *c = ctx;
  num_ptr lq = AT (c->v, 0), lr = AT (c->v, 1), w = AT (c->v, 2), l = AT (c->v, 3);
  num_ptr k1 = AT (c->v, 4), k2 = AT (c->v, 5), k3 = AT (c->v, 6), r3 = AT (c->v, 7);
  num_ptr x = AT (c->v, 8), z = AT (c->v, 9);
  (void) cut;
  (void) r;
  (void) logp_star;
  if (c->status)
    return;
  c->status = FN (lm_logprob) (lq, c->tokq, c->lm, c->logits, y, L);
  if (c->status == RLREF_SUCCESS)
    c->status = FN (lm_logprob) (lr, c->tokr, c->lm, c->ref_logits, y, L);
  if (c->status)
    return;
  num_exp (w, logp);
  num_sub (l, lq, lr);
  num_set_zero (k1);
  num_set_zero (k2);
  num_set_zero (k3);
  num_set_zero (r3);
  for (int t = 0; t < (c->token_sum ? L : 1); t++)
    {
      if (c->token_sum)
        num_sub (x, AT (c->tokq, t), AT (c->tokr, t));
      else
        num_set (x, l);
      num_add (k1, k1, x);
      num_sqr (z, x);
      num_mul_2si (z, z, -1);
      num_add (k2, k2, z);
      num_neg (x, x);
      FN (kl_exp_rem) (z, x, 2);
      num_add (k3, k3, z);
      FN (kl_exp_rem) (z, x, 3);
      num_add (r3, r3, z);
    }
  if (c->pass == 1)
    {
      num_srcptr terms[4] = { l, k2, k3, r3 };
      for (int j = 0; j < 4; j++)
        {
          num_mul (z, w, terms[j]);
          FN (kl_acc_add) (&c->a[j], z);
        }
    }
  else
    {
      num_srcptr k[3] = { k1, k2, k3 };
      for (int j = 0; j < 3; j++)
        {
          num_sub (z, k[j], AT (c->mean, j));
          num_sqr (z, z);
          num_mul (z, z, w);
          FN (kl_acc_add) (&c->a[j], z);
        }
    }
}

/* KL-EXACT on the tiny LM, two enumerations (means, then variances):
 *   KL = sum_y pi l(y),  E[k] = sum_y pi k(y),  Var[k] = sum_y pi (k - E[k])^2,
 *   E[k3] - KL = 0: sum_y pi_ref(y) = 1 (sequence), and E[e^-l_t - 1 | prefix]
 *   = 0 at every token (token sums),
 *   E[k2] - KL = -sum_y pi sum (e^-l - 1 + l - l^2/2) over the same terms. */
int
FN (kl_exact_lm) (num_ptr out, const rlref_lm *lm, num_srcptr logits, num_srcptr ref_logits,
                  int token_sum)
{
  struct lm_walk c = { .lm = lm, .logits = logits, .ref_logits = ref_logits,
                       .token_sum = token_sum, .pass = 1 };
  num_ptr m = NULL, o = NULL;
  num_t beta;
  int status = lm ? rlref_lm_check (lm) : RLREF_EINVAL;
  if (status)
    return status;
  if (!out || !logits || !ref_logits)
    RLREF_ERROR ("missing logits or output", RLREF_EINVAL);
  if (lm->truncation != RLREF_LM_KEEP)
    RLREF_ERROR ("the per-token estimators need cut sequences kept (RLREF_LM_KEEP)",
                 RLREF_EINVAL);
  if (rlref_lm_num_sequences (lm) > 1e6)
    RLREF_ERROR ("too many sequences (more than 1e6)", RLREF_EINVAL);
  for (size_t i = 0; i < lm->n_rows * (size_t) lm->V; i++)
    if (!num_is_finite (AT (ref_logits, i)))
      RLREF_ERROR ("a reference logit is not finite", RLREF_ENAN);
  num_init (beta);
  num_set_d (beta, 1.0);
  for (int j = 0; j < 5; j++)
    FN (kl_acc_init) (&c.a[j]);
  c.tokq = num_vec_new ((size_t) lm->T);
  c.tokr = num_vec_new ((size_t) lm->T);
  c.v = num_vec_new (10);
  c.mean = num_vec_new (3);
  m = num_vec_new (RLREF_LM_NMOMENTS);
  o = num_vec_new (RLREF_KL_NEXACT);
  if (!c.tokq || !c.tokr || !c.v || !c.mean || !m || !o)
    FAIL ("out of memory", RLREF_ENOMEM);
  {
    rlref_lm plain = *lm;
    plain.reward = RLREF_REWARD_NONE;
    TRY (FN (lm_moments) (m, &plain, logits, NULL, beta, 1u << RLREF_LM_TOTAL, lm_visit, &c));
    TRY (c.status);
    FN (kl_acc_get) (AT (o, RLREF_KL_KL), &c.a[0]);
    FN (kl_acc_get) (AT (o, RLREF_KL_E_K2), &c.a[1]);
    FN (kl_acc_get) (AT (o, RLREF_KL_E_K3), &c.a[2]);
    FN (kl_acc_get) (AT (o, RLREF_KL_BIAS_K2), &c.a[3]);
    num_neg (AT (o, RLREF_KL_BIAS_K2), AT (o, RLREF_KL_BIAS_K2));
    num_set_zero (AT (o, RLREF_KL_BIAS_K3));
    num_set (AT (c.mean, 0), AT (o, RLREF_KL_KL));
    num_set (AT (c.mean, 1), AT (o, RLREF_KL_E_K2));
    num_set (AT (c.mean, 2), AT (o, RLREF_KL_E_K3));
    for (int j = 0; j < 5; j++)
      {
        FN (kl_acc_clear) (&c.a[j]);
        FN (kl_acc_init) (&c.a[j]);
      }
    c.pass = 2;
    TRY (FN (lm_moments) (m, &plain, logits, NULL, beta, 1u << RLREF_LM_TOTAL, lm_visit, &c));
    TRY (c.status);
    for (int j = 0; j < 3; j++)
      FN (kl_acc_get) (AT (o, RLREF_KL_VAR_K1 + j), &c.a[j]);
  }
  for (int j = 0; j < RLREF_KL_NEXACT; j++)
    num_set (AT (out, j), AT (o, j));
  status = range_check (out, RLREF_KL_NEXACT);
done:
  for (int j = 0; j < 5; j++)
    FN (kl_acc_clear) (&c.a[j]);
  num_clear (beta);
  num_vec_free (c.tokq, (size_t) lm->T);
  num_vec_free (c.tokr, (size_t) lm->T);
  num_vec_free (c.v, 10);
  num_vec_free (c.mean, 3);
  num_vec_free (m, RLREF_LM_NMOMENTS);
  num_vec_free (o, RLREF_KL_NEXACT);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  The sums over every sequence of pi(y) l(y) and of the
 * estimators cancel when pi is close to pi_ref (the KL is second order in
 * their difference, each term first order: -5.0e-18 for 9.4e-34). */
#include <stdlib.h>
#include <string.h>
#include "round_once.h"

typedef struct
{
  const rlref_lm *lm;
  size_t nl;
  int token_sum;
} exact_lm_program;

/* x = (logits, ref_logits); y = out. */
static int
exact_lm_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const exact_lm_program *o = ctx;
  return rlref_kl_exact_lm_mp (y, o->lm, x, x + o->nl, o->token_sum);
}

int
FN (kl_exact_lm) (num_ptr out, const rlref_lm *lm, num_srcptr logits, num_srcptr ref_logits,
                  int token_sum)
{
  exact_lm_program o = { lm, 0, token_sum };
  double *xd;
  int status = lm ? rlref_lm_check (lm) : RLREF_EINVAL;
  if (status)
    return status;
  if (!out || !logits || !ref_logits)
    RLREF_ERROR ("missing logits or output", RLREF_EINVAL);
  o.nl = lm->n_rows * (size_t) lm->V;
  xd = malloc ((2 * o.nl + RLREF_KL_NEXACT) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, logits, o.nl * sizeof *xd);
  memcpy (xd + o.nl, ref_logits, o.nl * sizeof *xd);
  status = rlref_round_once (xd + 2 * o.nl, RLREF_KL_NEXACT, xd, 2 * o.nl, exact_lm_mp, &o,
                             "the estimators' moments over every sequence");
  if (status == RLREF_SUCCESS)
    memcpy (out, xd + 2 * o.nl, RLREF_KL_NEXACT * sizeof *out);
  free (xd);
  return status;
}
#endif
