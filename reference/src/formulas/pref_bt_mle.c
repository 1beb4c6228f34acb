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
