/* pref_pl.c -- PREF-PL: the Plackett-Luce probability of a ranking, the
 * likelihood of counted rankings and its maximum, written once for both
 * backends.  Seed 000 section 10.1.
 *
 * pl_logprob computes into temporaries and writes its outputs last, so an
 * output may share storage with an input (reference/README.md,
 * Aliasing). */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/pref.h"
#include "flow.h"
#include "mle.h"
#include "pref_mle.h"

/* A ranking is a permutation of 0..K-1. */
int
FN (check_ranking) (const long *ranking, size_t K)
{
  unsigned char *seen;
  int ok = 1;
  if (!ranking || K == 0)
    RLREF_ERROR ("empty ranking", RLREF_EINVAL);
  seen = calloc (K, 1);
  if (!seen)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t k = 0; k < K && ok; k++)
    {
      if (ranking[k] < 0 || (size_t) ranking[k] >= K || seen[ranking[k]])
        ok = 0;
      else
        seen[ranking[k]] = 1;
    }
  free (seen);
  if (!ok)
    RLREF_ERROR ("ranking is not a permutation of 0..K-1", RLREF_EINVAL);
  return RLREF_SUCCESS;
}

/* What the Hessian of one ranking carries from stage to stage
 * (pl_accumulate): A_k, E_k, q_{k-1} and p_{k-1}(pi_{k-1}); t and c are
 * scratch. */
struct pl_hess
{
  num_t A, E, qprev, p0prev, t, c;
};

static void
pl_hess_init (struct pl_hess *h)
{
  num_init (h->A); num_init (h->E); num_init (h->qprev); num_init (h->p0prev);
  num_init (h->t); num_init (h->c);
}

static void
pl_hess_clear (struct pl_hess *h)
{
  num_clear (h->A); num_clear (h->E); num_clear (h->qprev); num_clear (h->p0prev);
  num_clear (h->t); num_clear (h->c);
}

/* Stage k's terms of H, weighted by w (NULL: 1), from p0 = p_k(pi_k),
 * q = q_k and p_k(pi_j) = v_{j - off} / z (z NULL: 1) for j > k:
 *   A_k = 1 + q_{k-1}^2 A_{k-1},  E_k = q_{k-1} (E_{k-1} + p_{k-1}(pi_{k-1}) A_{k-1}),
 *   H_{pi_k pi_k} += w p0 (E_k + q A_k),
 *   H_{pi_k pi_j} = H_{pi_j pi_k} -= w p0 A_k p_k(pi_j),
 * A_0 = 1, E_0 = 0. */
static void
pl_hess_stage (num_ptr H, struct pl_hess *h, size_t k, num_srcptr p0, num_srcptr q,
               num_srcptr w, num_srcptr v, size_t off, num_srcptr z, const long *pi, size_t K)
{
  if (k == 0)
    {
      num_set_d (h->A, 1.0);
      num_set_zero (h->E);
    }
  else
    {
      num_mul (h->t, h->p0prev, h->A);
      num_add (h->E, h->E, h->t);
      num_mul (h->E, h->E, h->qprev);
      num_sqr (h->t, h->qprev);
      num_mul (h->A, h->A, h->t);
      num_add_d (h->A, h->A, 1.0);
    }
  num_mul (h->t, q, h->A);
  num_add (h->t, h->t, h->E);
  num_mul (h->t, h->t, p0);
  if (w)
    num_mul (h->t, h->t, w);
  num_ptr hkk = AT (H, (size_t) pi[k] * K + (size_t) pi[k]);
  num_add (hkk, hkk, h->t);
  num_mul (h->c, p0, h->A);
  if (w)
    num_mul (h->c, h->c, w);
  if (z)
    num_div (h->c, h->c, z);
  for (size_t j = k + 1; j < K; j++)
    {
      num_mul (h->t, h->c, AT (v, j - off));
      num_ptr h1 = AT (H, (size_t) pi[k] * K + (size_t) pi[j]);
      num_ptr h2 = AT (H, (size_t) pi[j] * K + (size_t) pi[k]);
      num_sub (h1, h1, h->t);
      num_sub (h2, h2, h->t);
    }
  num_set (h->qprev, q);
  num_set (h->p0prev, p0);
}

/* One ranking pi's contribution, weighted by w (NULL: 1), to f = -log P,
 * its gradient g and Hessian H (Plackett-Luce, 000 10.1).  Stage k chooses
 * pi_k from R_k = {pi_k, ..., pi_{K-1}}, with l_k = lse_{i in R_k} s_i and
 * p_k(i) = e^{s_i - l_k}:
 *   f += w sum_k (l_k - s_{pi_k}),
 *   g_i += w sum_{k: i in R_k} (p_k(i) - [i = pi_k]),
 *   H_ab += w sum_{k <= j} (delta_ab p_k(a) - p_k(a) p_k(b)),  j = min(pos a, pos b).
 * The sets are nested, so p_k(a) = p_j(a) e^{l_j - l_k} for k <= j, and
 * with q_k = 1 - p_k(pi_k) = e^{l_{k+1} - l_k} (the mass of the others,
 * summed without cancelling against 1):
 *   H_ab = -w p_j(a) p_j(b) A_j (a != b),  H_aa = w p_j(a) (E_j + q_j A_j),
 *   A_j = 1 + q_{j-1}^2 A_{j-1},  E_j = q_{j-1} (E_{j-1} + p_{j-1}(pi_{j-1}) A_{j-1}),
 * A_0 = 1, E_0 = 0 (E_j = B_j - A_j with B_j = sum_{k <= j} e^{l_j - l_k},
 * a sum of positive terms; pl_hess_stage): O(K^2) per ranking.  x and p
 * are scratch of length K. */
static int
pl_accumulate (num_ptr f, num_ptr g, num_ptr H, num_srcptr s, const long *pi, size_t K,
               num_srcptr w, num_ptr x, num_ptr p)
{
  struct pl_hess h;
  num_t l, t, q;
  int status = RLREF_SUCCESS;
  num_init (l); num_init (t); num_init (q);
  pl_hess_init (&h);
  for (size_t k = 0; k < K; k++)
    {
      size_t n = K - k, jm = 0;
      /* scores relative to the chosen one: lse of them is l_k - s_{pi_k}
       * without cancellation (4.2e-18 for scores (40, 0)) */
      for (size_t j = 0; j < n; j++)
        num_sub (AT (x, j), AT (s, pi[k + j]), AT (s, pi[k]));
      TRY (FN (logsumexp) (l, x, n));
      if (w)
        num_mul (t, l, w);
      else
        num_set (t, l);
      num_add (f, f, t);
      if (!g && !H)
        continue;
      /* p_k(pi_{k+j}) = e^{s_{pi_{k+j}} - c} / sum_j e^{s_{pi_{k+j}} - c}, c the
       * largest score of R_k, each difference rounded once: x_j - l would
       * carry the rounding of l, |l| 2^-53, into p, and x_j (relative to
       * the chosen score) may have lost the scores below a large one */
      for (size_t j = 1; j < n; j++)
        if (num_cmp (AT (s, pi[k + j]), AT (s, pi[k + jm])) > 0)
          jm = j;
      for (size_t j = 0; j < n; j++)
        {
          num_sub (AT (p, j), AT (s, pi[k + j]), AT (s, pi[k + jm]));
          num_exp (AT (p, j), AT (p, j));
        }
      TRY (num_sum (q, AT (p, 1), n - 1));
      num_add (t, q, AT (p, 0));                    /* the sum, >= 1 */
      num_div (q, q, t);
      for (size_t j = 0; j < n; j++)
        num_div (AT (p, j), AT (p, j), t);
      if (g)
        /* the chosen item's p_k - 1 is -q_k */
        for (size_t j = 1; j < n; j++)
          {
            if (w)
              num_mul (t, AT (p, j), w);
            else
              num_set (t, AT (p, j));
            num_add (AT (g, pi[k + j]), AT (g, pi[k + j]), t);
            num_sub (AT (g, pi[k]), AT (g, pi[k]), t);
          }
      if (H)
        pl_hess_stage (H, &h, k, AT (p, 0), q, w, p, k, NULL, pi, K);
    }
done:
  num_clear (l); num_clear (t); num_clear (q);
  pl_hess_clear (&h);
  return status;
}

/* The contributions of pl_accumulate from one exponential per item, for
 * scores spanning at most S with K e^S 2^60 finite (S ~ 660 in binary64;
 * in MPFR, any realistic span): with c = max_i s_i, x_j = e^{s_{pi_j} - c}
 * (in [e^-S, 1], far from underflow) and the suffix sums
 * Z_k = sum_{j >= k} x_j (positive terms; Z_K = 0),
 *   l_k - s_{pi_k} = log1p(Z_{k+1} / x_k),  p_k(pi_j) = x_j / Z_k,
 *   q_k = Z_{k+1} / Z_k,  g_{pi_j} += w (x_j C_j - q_j),  C_j = sum_{k < j} 1/Z_k,
 * and H as in pl_accumulate: K exponentials per ranking instead of K^2.
 * x and z are scratch of lengths K and K + 1. */
static void
pl_accumulate_sums (num_ptr f, num_ptr g, num_ptr H, num_srcptr s, num_srcptr c,
                    const long *pi, size_t K, num_srcptr w, num_ptr x, num_ptr z)
{
  struct pl_hess h;
  num_t t, q, C, p0;
  num_init (t); num_init (q); num_init (C); num_init (p0);
  pl_hess_init (&h);
  for (size_t j = 0; j < K; j++)
    {
      num_sub (AT (x, j), AT (s, pi[j]), c);
      num_exp (AT (x, j), AT (x, j));
    }
  num_set_zero (AT (z, K));
  for (size_t j = K; j-- > 0;)
    num_add (AT (z, j), AT (z, j + 1), AT (x, j));
  for (size_t k = 0; k < K; k++)
    {
      num_div (t, AT (z, k + 1), AT (x, k));
      num_log1p (t, t);
      num_mul (t, t, w);
      num_add (f, f, t);
      if (!g && !H)
        continue;
      num_div (q, AT (z, k + 1), AT (z, k));
      if (g)
        {
          num_mul (t, AT (x, k), C);
          num_sub (t, t, q);
          num_mul (t, t, w);
          num_add (AT (g, pi[k]), AT (g, pi[k]), t);
          num_d_div (t, 1.0, AT (z, k));
          num_add (C, C, t);
        }
      if (H)
        {
          num_div (p0, AT (x, k), AT (z, k));
          pl_hess_stage (H, &h, k, p0, q, w, x, 0, AT (z, k), pi, K);
        }
    }
  num_clear (t); num_clear (q); num_clear (C); num_clear (p0);
  pl_hess_clear (&h);
}

/* F(s; c) = -sum_m c_m log P(pi_m; s) of M rankings (obs), its gradient
 * and Hessian; by pl_accumulate_sums when the span S of the scores has
 * K e^S 2^60 finite, else stage by stage (pl_accumulate). */
int
FN (pl_nll) (num_ptr f, num_ptr g, num_ptr H, num_srcptr s, size_t K, num_srcptr counts,
             size_t M, const void *obs)
{
  const long *rankings = obs;
  num_ptr x = num_vec_new (K), p = num_vec_new (K + 1);
  num_t hi, lo;
  int status = RLREF_SUCCESS, sums;
  NUM_INIT (hi, lo);
  if (!x || !p)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set (hi, AT (s, 0));
  num_set (lo, AT (s, 0));
  for (size_t i = 1; i < K; i++)
    {
      num_max (hi, hi, AT (s, i));
      num_min (lo, lo, AT (s, i));
    }
  num_sub (lo, hi, lo);
  num_exp (lo, lo);
  num_mul_si (lo, lo, (long) K);
  num_mul_2si (lo, lo, 60);
  sums = num_is_finite (lo);
  FN (nll_zero) (f, g, H, K);
  for (size_t m = 0; m < M; m++)
    {
      const long *pi = rankings + m * K;
      num_srcptr w = AT (counts, m);
      if (num_is_zero (w))
        continue;
      if (sums)
        pl_accumulate_sums (f, g, H, s, hi, pi, K, w, x, p);
      else
        TRY (pl_accumulate (f, g, H, s, pi, K, w, x, p));
    }
done:
  NUM_CLEAR (hi, lo);
  num_vec_free (x, K);
  num_vec_free (p, K + 1);
  return status;
}

#ifdef RLREF_MP
/* PREF-PL:  log P(pi) = sum_k [s_{pi_k} - lse(s_{pi_k}, ..., s_{pi_K})]. */
int
FN (pl_logprob) (num_ptr logp, num_ptr grad, num_srcptr scores,
                 const long *ranking, size_t K)
{
  num_ptr x, p, g = NULL;
  num_t f;
  int status = FN (check_ranking) (ranking, K);
  if (status)
    return status;
  if (!scores)
    RLREF_ERROR ("NULL scores", RLREF_EINVAL);
  for (size_t i = 0; i < K; i++)
    CHECK_FINITE (AT (scores, i));
  num_init (f);
  x = num_vec_new (K);
  p = num_vec_new (K);
  if (grad)
    g = num_vec_new (K);
  if (!x || !p || (grad && !g))
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (pl_accumulate (f, g, NULL, scores, ranking, K, NULL, x, p));
  for (size_t i = 0; grad && i < K; i++)
    num_set (AT (grad, i), AT (g, i));
  num_neg (logp, f);
  if (!num_is_finite (f))
    status = RANGE_ERROR ();
done:
  num_clear (f);
  num_vec_free (x, K);
  num_vec_free (p, K);
  num_vec_free (g, K);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  The gradient sum_{k <= pos(i)} p_k(i) - 1 of an item
 * cancels terms near 1/n_k down to the differences of the scores, which
 * may be far below the ulps of the terms (2^-429 beside 1/2 for scores
 * 2^-428, 0, -10000 ranked 2, 1, 0). */
#include <string.h>
#include "round_once.h"

typedef struct
{
  const long *ranking;
  size_t K;
  int want_grad;
} logprob_program;

/* x = scores; y = (logp, grad if asked for). */
static int
logprob_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const logprob_program *o = ctx;
  return rlref_pl_logprob_mp (y, o->want_grad ? y + 1 : NULL, x, o->ranking, o->K);
}

int
FN (pl_logprob) (num_ptr logp, num_ptr grad, num_srcptr scores,
                 const long *ranking, size_t K)
{
  logprob_program o = { ranking, K, grad != NULL };
  size_t ny = 1 + (grad ? K : 0);
  double *yd;
  int status = FN (check_ranking) (ranking, K);
  if (status)
    return status;
  if (!scores || !logp)
    RLREF_ERROR ("NULL scores", RLREF_EINVAL);
  yd = malloc (ny * sizeof *yd);
  if (!yd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  status = rlref_round_once (yd, ny, scores, K, logprob_mp, &o,
                             "the ranking's log-probability and its gradient");
  if (status == RLREF_SUCCESS)
    {
      *logp = yd[0];
      if (grad)
        memcpy (grad, yd + 1, K * sizeof *yd);
    }
  free (yd);
  return status;
}

#endif
#ifdef RLREF_MP
/* The edges a -> b, "a ranked above b", of the rankings of positive
 * count. */
static void
pl_edges (unsigned char *adj, num_srcptr counts, size_t M, const void *obs, size_t K)
{
  const long *rankings = obs;
  for (size_t m = 0; m < M; m++)
    if (!num_is_zero (AT (counts, m)))
      for (size_t a = 0; a < K; a++)
        for (size_t b = a + 1; b < K; b++)
          adj[rankings[m * K + a] * K + rankings[m * K + b]] = 1;
}

/* PREF-PL maximum likelihood: argmax_s sum_m c_m log P(pi_m; s), sum s = 0
 * (mle_fit: the same maximum for the counts scaled by a power of two,
 * loglik that of the counts as given).  A finite maximum exists when no
 * set of items is always ranked above the rest: the graph of "a ranked
 * above b" in some counted ranking is strongly connected. */
int
FN (pl_mle) (num_ptr scores, num_ptr loglik, const long *rankings, num_srcptr counts,
             size_t M, size_t K)
{
  static const FN (mle_lik) pl = {
    .nll = FN (pl_nll), .nll_d = NLL_D (pl_nll), .edges = pl_edges,
    .unbounded = "some items are never ranked below others: no finite maximum"
  };
  int status;
  if (!rankings || !counts || !scores || M == 0 || K < 2)
    RLREF_ERROR ("need at least one ranking of at least two items", RLREF_EINVAL);
  for (size_t m = 0; m < M; m++)
    {
      if ((status = FN (check_ranking) (rankings + m * K, K)))
        return status;
      CHECK_FINITE (AT (counts, m));
      if (num_sgn (AT (counts, m)) < 0)
        RLREF_ERROR ("negative ranking count", RLREF_EDOM);
    }
  return FN (mle_fit) (scores, loglik, &pl, counts, M, rankings, K);
}

#else
/* binary64: the MPFR fit above, each output rounded once
 * (fit_round_once.h). */
#include "fit_round_once.h"

int
FN (pl_mle) (num_ptr scores, num_ptr loglik, const long *rankings, num_srcptr counts,
             size_t M, size_t K)
{
  if (!rankings || !counts || !scores || M == 0 || K < 2)
    RLREF_ERROR ("need at least one ranking of at least two items", RLREF_EINVAL);
  return rlref_fit_round_once (scores, loglik, rlref_pl_mle_mp, rankings, counts, M, K);
}
#endif
