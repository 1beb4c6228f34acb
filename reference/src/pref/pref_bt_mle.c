/* pref_bt_mle.c -- PREF-BT-MLE: the Bradley-Terry likelihood of counted
 * comparisons and its maximum, written once for both backends.  Seed 000
 * section 2.1 and (13.7). */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/pref.h"
#include "flow.h"
#include "mle.h"
#include "pref_mle.h"

/* F(s; w) = -sum_{i != j} w_ij log sigma(s_i - s_j) = sum w_ij softplus(-D),
 * D = s_i - s_j (13.7 with counts).  The pair (i, j) adds -w sigma(-D) to
 * g_i and w sigma(-D) to g_j, w sigma(D) sigma(-D) to H_ii and H_jj and
 * its negative to H_ij and H_ji.  M = n^2; obs is not read. */
int
FN (bt_nll) (num_ptr f, num_ptr g, num_ptr H, num_srcptr s, size_t n, num_srcptr wins,
             size_t M, const void *obs)
{
  num_t D, t, c;
  int status = RLREF_SUCCESS;
  (void) M;
  (void) obs;
  num_init (D); num_init (t); num_init (c);
  FN (nll_zero) (f, g, H, n);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      {
        num_srcptr w = AT (wins, i * n + j);
        if (i == j || num_is_zero (w))
          continue;
        num_sub (D, AT (s, i), AT (s, j));
        num_neg (t, D);
        TRY (FN (softplus) (t, t));
        num_mul (t, t, w);
        num_add (f, f, t);
        if (g)
          {
            num_neg (t, D);
            TRY (FN (sigmoid) (t, t));
            num_mul (t, t, w);          /* w sigma(-D) */
            num_sub (AT (g, i), AT (g, i), t);
            num_add (AT (g, j), AT (g, j), t);
          }
        if (H)
          {
            TRY (FN (sigmoid) (c, D));
            num_neg (t, D);
            TRY (FN (sigmoid) (t, t));
            num_mul (c, c, t);
            num_mul (c, c, w);          /* w sigma(D) sigma(-D) */
            num_add (AT (H, i * n + i), AT (H, i * n + i), c);
            num_add (AT (H, j * n + j), AT (H, j * n + j), c);
            num_sub (AT (H, i * n + j), AT (H, i * n + j), c);
            num_sub (AT (H, j * n + i), AT (H, j * n + i), c);
          }
      }
done:
  num_clear (D); num_clear (t); num_clear (c);
  return status;
}

#ifdef RLREF_MP
/* The edges i -> j, "i beat j", of the positive weights w_ij, i != j. */
static void
bt_edges (unsigned char *adj, num_srcptr wins, size_t M, const void *obs, size_t n)
{
  (void) obs;
  for (size_t i = 0; i < M; i++)
    adj[i] = (i / n != i % n) && !num_is_zero (AT (wins, i));
}

/* PREF-BT-MLE: argmax_s sum_ij w_ij log sigma(s_i - s_j), sum s = 0
 * (mle_fit: the same maximum for the weights scaled by a power of two,
 * loglik that of the weights as given).  A finite maximum exists when the
 * comparison graph is strongly connected. */
int
FN (bt_mle) (num_ptr scores, num_ptr loglik, num_srcptr wins, size_t n)
{
  static const FN (mle_lik) bt = {
    .nll = FN (bt_nll), .nll_d = NLL_D (bt_nll), .edges = bt_edges,
    .unbounded = "comparison graph not strongly connected: no finite maximum"
  };
  if (!wins || !scores || n < 2)
    RLREF_ERROR ("need at least two items", RLREF_EINVAL);
  for (size_t i = 0; i < n * n; i++)
    {
      CHECK_FINITE (AT (wins, i));
      if (num_sgn (AT (wins, i)) < 0)
        RLREF_ERROR ("negative preference count", RLREF_EDOM);
    }
  return FN (mle_fit) (scores, loglik, &bt, wins, n * n, NULL, n);
}

/* PREF-BT-EX (seed 000 section 2.1): the fit of two items, w_w wins of
 * item 0 over item 1 and w_l of 1 over 0; delta = s_0 - s_1 (= log(w_w /
 * w_l)) and p = sigma(delta) (= w_w / (w_w + w_l)), the probability the
 * fitted model gives item 0 winning. */
int
FN (bt_mle_pair) (num_ptr delta, num_ptr p, num_srcptr wins_w, num_srcptr wins_l)
{
  num_ptr w, s;
  int status = RLREF_SUCCESS;
  if (!delta || !p || !wins_w || !wins_l)
    RLREF_ERROR ("an argument is missing", RLREF_EINVAL);
  w = num_vec_new (4);
  s = num_vec_new (2);
  if (!w || !s)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set (AT (w, 1), wins_w);          /* wins[0][1] */
  num_set (AT (w, 2), wins_l);          /* wins[1][0] */
  TRY (FN (bt_mle) (s, NULL, w, 2));
  num_sub (delta, s, AT (s, 1));
  status = FN (sigmoid) (p, delta);
done:
  num_vec_free (w, 4);
  num_vec_free (s, 2);
  return status;
}

#else
/* binary64: the MPFR fits above, each output rounded once
 * (fit_round_once.h); p = sigma(delta) from the exact delta, not the
 * rounded one (whose half ulp is |delta| 2^-53 of p). */
#include "round_once.h"
#include "fit_round_once.h"

static int
bt_fit_mp (mpfr_ptr scores, mpfr_ptr loglik, const long *rankings, mpfr_srcptr wins,
           size_t M, size_t n)
{
  (void) rankings;
  (void) M;
  return rlref_bt_mle_mp (scores, loglik, wins, n);
}

int
FN (bt_mle) (num_ptr scores, num_ptr loglik, num_srcptr wins, size_t n)
{
  if (!wins || !scores || n < 2)
    RLREF_ERROR ("need at least two items", RLREF_EINVAL);
  return rlref_fit_round_once (scores, loglik, bt_fit_mp, NULL, wins, n * n, n);
}

/* x = (wins_w, wins_l); y = (delta, p). */
static int
pair_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  (void) ctx;
  return rlref_bt_mle_pair_mp (y, y + 1, x, x + 1);
}

int
FN (bt_mle_pair) (num_ptr delta, num_ptr p, num_srcptr wins_w, num_srcptr wins_l)
{
  double x[2], y[2];
  int status;
  if (!delta || !p || !wins_w || !wins_l)
    RLREF_ERROR ("an argument is missing", RLREF_EINVAL);
  x[0] = *wins_w;
  x[1] = *wins_l;
  status = rlref_round_once (y, 2, x, 2, pair_mp, NULL, "the two-item fit");
  if (status == RLREF_SUCCESS)
    {
      *delta = y[0];
      *p = y[1];
    }
  return status;
}
#endif
