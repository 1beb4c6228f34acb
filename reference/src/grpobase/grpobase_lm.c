/* grpobase_lm.c -- the zero-mean score of seed 000 (13.27) on the tiny
 * language model, written once for both backends: every sequence is
 * enumerated (lm_moments with a visitor), and E[(r - b) grad log pi(y)] is
 * formed term by term, each component one exact sum over the sequences,
 * beside the exact gradient of E[r] (lm_objective). */
#include <math.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/grpobase.h"
#include "rlref/primitives.h"
#include "flow.h"

#ifdef RLREF_MP

/* The sequences the visitor records: tokens (T per sequence), lengths, log
 * pi(y) and r(y). */
typedef struct
{
  int T;
  size_t n, cap;
  int *tok, *len;
  num_ptr logp, r;
} seqs;

static void
record (void *ctx, const int *y, int L, int cut, num_srcptr logp, num_srcptr r,
        num_srcptr logp_star)
{
  seqs *s = ctx;
  (void) cut;
  (void) logp_star;
  if (s->n >= s->cap)
    return;
  for (int t = 0; t < L; t++)
    s->tok[s->n * (size_t) s->T + (size_t) t] = y[t];
  s->len[s->n] = L;
  num_set (AT (s->logp, s->n), logp);
  num_set (AT (s->r, s->n), r);
  s->n++;
}

/* The row of the state before token t of y. */
static size_t
row_of (const rlref_lm *lm, const int *y, int t)
{
  if (lm->kind == RLREF_LM_BIGRAM)
    return t == 0 ? (size_t) lm->V : (size_t) y[t - 1];
  return rlref_lm_prefix_index (lm->V, lm->eos, y, t);
}

/* GRPO-BASELINE (13.27): grad log pi(y) with respect to the logits of row
 * s is sum over the positions t with s_t = s of e_(y_t) - pi(. | s); pg =
 * sum_y pi(y) (r(y) - b) grad log pi(y) and sq = sum_y pi(y) (r - b)^2
 * |grad log pi(y)|^2, each component's terms summed exactly. */
int
FN (lm_baseline) (num_ptr value, num_ptr grad, num_ptr pg, num_ptr sq, const rlref_lm *lm,
                  num_srcptr logits, num_srcptr reward, num_srcptr b)
{
  seqs s = { 0 };
  size_t nc, ns;
  num_ptr prob = NULL, g = NULL, terms = NULL, sqt = NULL, gr = NULL, out = NULL;
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  if (lm->truncation != RLREF_LM_KEEP || lm->reward != RLREF_REWARD_ADDITIVE)
    RLREF_ERROR ("GRPO-BASELINE takes cut sequences kept and an additive reward",
                 RLREF_EINVAL);
  CHECK_FINITE (b);
  nc = lm->n_rows * (size_t) lm->V;
  if (rlref_lm_num_sequences (lm) > RLREF_BASELINE_MAX_SEQUENCES
      || rlref_lm_num_sequences (lm) * (double) nc > 1e6)
    RLREF_ERROR ("GRPO-BASELINE enumerates at most 4096 sequences (and 1e6 sequence x logit "
                 "terms)", RLREF_EINVAL);
  ns = (size_t) rlref_lm_num_sequences (lm);
  num_t t, u, beta, lp;
  NUM_INIT (t, u, beta, lp);
  s.T = lm->T;
  s.cap = ns;
  s.tok = malloc (ns * (size_t) lm->T * sizeof *s.tok);
  s.len = malloc (ns * sizeof *s.len);
  s.logp = num_vec_new (ns);
  s.r = num_vec_new (ns);
  prob = num_vec_new (nc);
  g = num_vec_new (nc > RLREF_LM_NMOMENTS ? nc : RLREF_LM_NMOMENTS);
  terms = num_vec_new (nc * ns);
  sqt = num_vec_new (ns);
  gr = num_vec_new (nc);
  out = num_vec_new (nc + 2);
  if (!s.tok || !s.len || !s.logp || !s.r || !prob || !g || !terms || !sqt || !gr || !out)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set_si (beta, 1);
  /* value = E[r] and its exact gradient (the logits are their own reference) */
  TRY (FN (lm_objective) (AT (out, nc), gr, lm, logits, logits, reward, beta,
                          RLREF_LM_OBJ_REWARD));
  TRY (FN (lm_moments) (g, lm, logits, reward, beta, RLREF_LM_ALL, record, &s));
  if (s.n != ns)
    FAIL ("the enumeration did not visit every sequence", RLREF_EINVAL);
  for (size_t row = 0; row < lm->n_rows; row++)
    TRY (FN (softmax) (AT (prob, row * (size_t) lm->V), AT (logits, row * (size_t) lm->V),
                       (size_t) lm->V));
  for (size_t k = 0; k < ns; k++)
    {
      const int *y = s.tok + k * (size_t) lm->T;
      for (size_t c = 0; c < nc; c++)
        num_set_zero (AT (g, c));
      for (int i = 0; i < s.len[k]; i++)
        {
          size_t row = row_of (lm, y, i) * (size_t) lm->V;
          for (int a = 0; a < lm->V; a++)
            num_sub (AT (g, row + (size_t) a), AT (g, row + (size_t) a),
                     AT (prob, row + (size_t) a));
          num_add_d (AT (g, row + (size_t) y[i]), AT (g, row + (size_t) y[i]), 1.0);
        }
      /* u = pi(y) (r - b) */
      num_exp (lp, AT (s.logp, k));
      num_sub (t, AT (s.r, k), b);
      num_mul (u, lp, t);
      for (size_t c = 0; c < nc; c++)
        num_mul (AT (terms, c * ns + k), u, AT (g, c));
      TRY (num_dot (AT (sqt, k), g, g, nc));
      num_mul (AT (sqt, k), AT (sqt, k), u);
      num_mul (AT (sqt, k), AT (sqt, k), t);
    }
  for (size_t c = 0; c < nc; c++)
    TRY (num_sum (AT (g, c), AT (terms, c * ns), ns));
  TRY (num_sum (AT (out, nc + 1), sqt, ns));
  for (size_t c = 0; c < nc; c++)
    {
      num_set (AT (grad, c), AT (gr, c));
      num_set (AT (pg, c), AT (g, c));
    }
  num_set (value, AT (out, nc));
  num_set (sq, AT (out, nc + 1));
  if (!isfinite (num_get_d (sq)))
    status = RANGE_ERROR ();
done:
  free (s.tok);
  free (s.len);
  num_vec_free (s.logp, ns);
  num_vec_free (s.r, ns);
  num_vec_free (prob, nc);
  num_vec_free (g, nc > RLREF_LM_NMOMENTS ? nc : RLREF_LM_NMOMENTS);
  num_vec_free (terms, nc * ns);
  num_vec_free (sqt, ns);
  num_vec_free (gr, nc);
  num_vec_free (out, nc + 2);
  NUM_CLEAR (t, u, beta, lp);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  The terms pi(y) (r - b) grad log pi(y) of a component
 * cancel (they sum to the gradient of E[r], which a b far from r leaves
 * far below them), and so do the subtree sums of lm_objective. */
#include <string.h>
#include "round_once.h"

typedef struct
{
  const rlref_lm *lm;
  size_t nc, nr;
} baseline_program;

/* x = (logits, reward, b); y = (value, grad, pg, sq). */
static int
baseline_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const baseline_program *o = ctx;
  return rlref_lm_baseline_mp (y, y + 1, y + 1 + o->nc, y + 1 + 2 * o->nc, o->lm, x, x + o->nc,
                               x + o->nc + o->nr);
}

int
FN (lm_baseline) (num_ptr value, num_ptr grad, num_ptr pg, num_ptr sq, const rlref_lm *lm,
                  num_srcptr logits, num_srcptr reward, num_srcptr b)
{
  baseline_program o = { lm, 0, 0 };
  size_t nx, ny;
  double *xd;
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  if (lm->reward != RLREF_REWARD_ADDITIVE)
    RLREF_ERROR ("GRPO-BASELINE takes cut sequences kept and an additive reward",
                 RLREF_EINVAL);
  o.nc = lm->n_rows * (size_t) lm->V;
  o.nr = (size_t) lm->V + 2;
  nx = o.nc + o.nr + 1;
  ny = 2 + 2 * o.nc;
  xd = malloc ((nx + ny) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, logits, o.nc * sizeof *xd);
  memcpy (xd + o.nc, reward, o.nr * sizeof *xd);
  xd[nx - 1] = b[0];
  status = rlref_round_once (xd + nx, ny, xd, nx, baseline_mp, &o,
                             "the baseline's score and its second moment");
  if (status == RLREF_SUCCESS)
    {
      value[0] = xd[nx];
      memcpy (grad, xd + nx + 1, o.nc * sizeof *grad);
      memcpy (pg, xd + nx + 1 + o.nc, o.nc * sizeof *pg);
      sq[0] = xd[nx + 1 + 2 * o.nc];
    }
  free (xd);
  return status;
}
#endif
