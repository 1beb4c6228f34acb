/* lm_sft.c -- the tiny language model's policy table (LM-PARAM), supervised
 * fine-tuning on it (LM-SFT) and the report of an exact-gradient training
 * run (LM-TRAIN).  Written once against the scalar interface; compiled for
 * binary64 and MPFR. */
#include <limits.h>
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include "rlref/num.h"
#include "rlref/lm.h"
#include "rlref/lmtrain.h"
#include "rlref/primitives.h"
#include "flow.h"

/* ENAN unless every one of the n logits is finite. */
static int
check_logits (num_srcptr logits, size_t n)
{
  for (size_t k = 0; k < n; k++)
    if (!num_is_finite (AT (logits, k)))
      RLREF_ERROR ("a logit is not finite", RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* LM-PARAM (13.1): for every row s of the logits,
 *   pi(a | s) = e^{l_a - m} / sum_b e^{l_b - m},  m = max_b l_b,
 *   log pi(a | s) = l_a - m - log1p(sum_{b != argmax} e^{l_b - m}),
 * each row copied first (pi or log_pi may be the logits' storage). */
int
FN (lm_policy) (num_ptr pi, num_ptr log_pi, const rlref_lm *lm, num_srcptr logits)
{
  int status = rlref_lm_check (lm);
  size_t V, nl;
  num_ptr row = NULL;
  if (status)
    return status;
  V = (size_t) lm->V;
  nl = lm->n_rows * V;
  if ((status = check_logits (logits, nl)))
    return status;
  row = num_vec_new (V);
  if (!row)
    FAIL ("lm_policy: out of memory", RLREF_ENOMEM);
  for (size_t s = 0; s < lm->n_rows; s++)
    {
      for (size_t a = 0; a < V; a++)
        num_set (AT (row, a), AT (logits, s * V + a));
      TRY (FN (softmax) (AT (pi, s * V), row, V));
      TRY (FN (log_softmax) (AT (log_pi, s * V), row, V));
    }
done:
  num_vec_free (row, V);
  return status;
}

/* The sequences of the data: start and length of each, whether it was cut
 * (T tokens without EOS), and its code (rlref_lm_code). */
typedef struct
{
  uint64_t code;
  size_t entry;
} sft_key;

typedef struct
{
  size_t *start;
  int *len, *cut;
  sft_key *order;               /* the entries sorted by code */
} sft_data;

static void
sft_data_free (sft_data *d)
{
  free (d->start);
  free (d->len);
  free (d->cut);
  free (d->order);
}

static int
by_code (const void *pa, const void *pb)
{
  const sft_key *a = pa, *b = pb;
  if (a->code != b->code)
    return a->code < b->code ? -1 : 1;
  return a->entry < b->entry ? -1 : a->entry > b->entry;
}

/* Splits data into n_seq sequences, each ended by its first EOS or by
 * reaching T tokens; EDOM for a token outside 0..V-1, data that end inside
 * a sequence, or (conditioned) a cut sequence; EINVAL when the count is not
 * n_seq.  Sorts the entries by code, so that equal sequences are adjacent. */
static int
sft_split (sft_data *d, const rlref_lm *lm, const int *data, size_t n_data, size_t n_seq)
{
  size_t i = 0, k = 0;
  d->start = malloc (n_seq * sizeof *d->start);
  d->len = malloc (n_seq * sizeof *d->len);
  d->cut = malloc (n_seq * sizeof *d->cut);
  d->order = malloc (n_seq * sizeof *d->order);
  if (!d->start || !d->len || !d->cut || !d->order)
    RLREF_ERROR ("lm_sft: out of memory", RLREF_ENOMEM);
  while (i < n_data)
    {
      size_t s = i;
      int L = 0, ended = 0;
      while (i < n_data && L < lm->T && !ended)
        {
          if (data[i] < 0 || data[i] >= lm->V)
            RLREF_ERROR ("lm_sft: a token of the data is not one of 0..V-1", RLREF_EDOM);
          ended = data[i] == lm->eos;
          i++;
          L++;
        }
      if (!ended && L < lm->T)
        RLREF_ERROR ("lm_sft: the data end inside a sequence (no EOS, fewer than T tokens)",
                     RLREF_EDOM);
      if (k == n_seq)
        RLREF_ERROR ("lm_sft: the data hold more sequences than there are weights",
                     RLREF_EINVAL);
      if (!ended && lm->truncation == RLREF_LM_CONDITION)
        RLREF_ERROR ("lm_sft: a cut sequence is no outcome when cut sequences are "
                     "conditioned away", RLREF_EDOM);
      d->start[k] = s;
      d->len[k] = L;
      d->cut[k] = !ended;
      d->order[k].code = rlref_lm_code (lm->V, lm->T, data + s, L);
      d->order[k].entry = k;
      k++;
    }
  if (k != n_seq)
    RLREF_ERROR ("lm_sft: the data hold fewer sequences than there are weights", RLREF_EINVAL);
  qsort (d->order, n_seq, sizeof *d->order, by_code);
  return RLREF_SUCCESS;
}

/* The row of the state after the prefix y_1..y_d. */
static size_t
row_of (const rlref_lm *lm, const int *y, int d)
{
  if (lm->kind == RLREF_LM_BIGRAM)
    return d == 0 ? (size_t) lm->V : (size_t) y[d - 1];
  return rlref_lm_prefix_index (lm->V, lm->eos, y, d);
}

/* M = P(EOS within T) and d log M / d logits into g (n_rows x V).  With
 * E(s) the probability of EOS within T from prefix s (1 after EOS, 0 at a
 * cut leaf) and R(s) the probability of reaching s,
 *   E(s) = sum_a pi(a | s) E(s a),   dM/dl(s, b) = R(s) pi(b | s) (E(s b) - E(s)),
 * the rows of a bigram model adding over the prefixes that share them.  One
 * post-order depth-first pass over the prefixes. */
static int
eos_mass (num_ptr logM, num_ptr g, const rlref_lm *lm, num_srcptr logits)
{
  int V = lm->V, T = lm->T, d = 0, status = RLREF_SUCCESS;
  int y[RLREF_LM_MAX_T] = { 0 }, child[RLREF_LM_MAX_T];
  size_t nl = lm->n_rows * (size_t) V;
  /* per depth: pi(. | s), E(s a) of the children, R(s) */
  num_ptr pr = num_vec_new ((size_t) T * V), ek = num_vec_new ((size_t) T * V);
  num_ptr reach = num_vec_new ((size_t) T), t = num_vec_new (2);
  if (!pr || !ek || !reach || !t)
    FAIL ("lm_sft: out of memory", RLREF_ENOMEM);
  for (size_t k = 0; k < nl; k++)
    num_set_zero (AT (g, k));
  num_set_d (reach, 1.0);
  child[0] = 0;
  TRY (FN (softmax) (pr, AT (logits, row_of (lm, y, 0) * (size_t) V), (size_t) V));
  for (;;)
    {
      int a;
      if (child[d] == V)
        {
          /* leaving s: E(s), then the row's terms R pi(b) (E(s b) - E(s)) */
          size_t row = row_of (lm, y, d) * (size_t) V;
          TRY (num_dot (AT (t, 0), AT (pr, d * V), AT (ek, d * V), (size_t) V));
          for (int b = 0; b < V; b++)
            {
              num_sub (AT (t, 1), AT (ek, d * V + b), AT (t, 0));
              num_mul (AT (t, 1), AT (t, 1), AT (pr, d * V + b));
              num_mul (AT (t, 1), AT (t, 1), AT (reach, d));
              num_add (AT (g, row + b), AT (g, row + b), AT (t, 1));
            }
          if (d == 0)
            break;
          d--;
          num_set (AT (ek, d * V + y[d]), AT (t, 0));
          continue;
        }
      a = child[d]++;
      y[d] = a;
      if (a == lm->eos || d + 1 == T)
        {
          /* after EOS E = 1; a cut leaf E = 0 */
          num_set_d (AT (ek, d * V + a), a == lm->eos ? 1.0 : 0.0);
          continue;
        }
      num_mul (AT (reach, d + 1), AT (reach, d), AT (pr, d * V + a));
      d++;
      child[d] = 0;
      TRY (FN (softmax) (AT (pr, d * V), AT (logits, row_of (lm, y, d) * (size_t) V),
                         (size_t) V));
    }
  /* t[0] = E(root) = M */
  if (num_sgn (AT (t, 0)) <= 0)
    FAIL ("lm_sft: P(EOS within T) is 0 in this precision", RLREF_ERANGE);
  for (size_t k = 0; k < nl; k++)
    num_div (AT (g, k), AT (g, k), AT (t, 0));
  num_log (logM, AT (t, 0));
done:
  num_vec_free (pr, (size_t) T * V);
  num_vec_free (ek, (size_t) T * V);
  num_vec_free (reach, (size_t) T);
  num_vec_free (t, 2);
  return status;
}

/* Weights from 2^SFT_W_EXP on are scaled down to it (a sum of up to 2^60
 * of them stays in range); a p below 2^-SFT_W_EXP is formed times
 * 2^SFT_P_SCALE. */
#define SFT_W_EXP 960
#define SFT_P_SCALE 128

/* LM-SFT (000 section 1: maximise E_data log pi_theta(y)): over the distinct
 * data sequences y with p = p_data(y),
 *   ce = -sum p log q(y),  entropy = -sum p log p,  kl = sum p (log p - log q(y)),
 * each an exact sum of its terms rounded once; log q = log pi (13.1), less
 * log P(EOS within T) when conditioned.  Weights from 2^960 on are scaled
 * down by a power of 2 before they are summed (p = w/W is unchanged; W
 * stays in range however large the weights); the sequence of the largest
 * p, when p > 1/2, takes log p = log1p(-(sum of the other weights)/W),
 * since log of p rounded next to 1 loses 1 - p; a p below 2^-960 is
 * formed as p 2^128 = (w 2^128)/W, log p = log(p 2^128) - 128 log 2, and
 * its terms scaled back by 2^-128 once formed, so that a p on the
 * subnormal grid loses no digit of its term; and
 *   d ce / d logits = -sum p d log pi(y) + [conditioned] d log P(EOS within T),
 * d log pi(y) = sum_t (e_{y_t} - pi(. | y_<t)) in the row of y_<t.
 * Every output is formed in temporaries and written last (an output may be
 * the storage of an input of its length). */
int
FN (lm_sft) (num_ptr ce, num_ptr entropy, num_ptr kl, num_ptr grad, const rlref_lm *lm,
             num_srcptr logits, const int *data, size_t n_data, num_srcptr weights,
             size_t n_seq)
{
  sft_data d = { NULL, NULL, NULL, NULL };
  int status = rlref_lm_check (lm), V, cond;
  size_t nl, ng = 0;
  num_ptr g = NULL, gm = NULL, w = NULL, terms = NULL, t = NULL, tok = NULL, row = NULL;
  num_ptr ws = NULL;
  size_t jmax = 0;
  int near1 = 0;
  long ex = LONG_MIN, ks;
  if (status)
    return status;
  V = lm->V;
  nl = lm->n_rows * (size_t) V;
  cond = lm->truncation == RLREF_LM_CONDITION;
  if ((status = check_logits (logits, nl)))
    return status;
  if (!data || !weights || n_seq == 0 || n_data == 0)
    RLREF_ERROR ("lm_sft: no data", RLREF_EINVAL);
  for (size_t i = 0; i < n_seq; i++)
    {
      if (!num_is_finite (AT (weights, i)))
        RLREF_ERROR ("lm_sft: a weight is not finite", RLREF_ENAN);
      if (num_sgn (AT (weights, i)) < 0)
        RLREF_ERROR ("lm_sft: a negative weight", RLREF_EDOM);
    }
  if (cond && rlref_lm_num_prefixes (V, lm->T) > RLREF_LM_SFT_MAX_PREFIXES)
    RLREF_ERROR ("lm_sft: too many prefixes for P(EOS within T) (1e6)", RLREF_EINVAL);
  if ((status = sft_split (&d, lm, data, n_data, n_seq)))
    {
      sft_data_free (&d);
      return status;
    }
  g = num_vec_new (nl);
  gm = num_vec_new (nl);
  w = num_vec_new (n_seq);
  ws = num_vec_new (n_seq);
  terms = num_vec_new (3 * n_seq);
  t = num_vec_new (9);
  tok = num_vec_new ((size_t) lm->T);
  row = num_vec_new ((size_t) V);
  if (!g || !gm || !w || !ws || !terms || !t || !tok || !row)
    FAIL ("lm_sft: out of memory", RLREF_ENOMEM);
  /* t: 0 the total weight W, 1 log P(EOS within T), 2 p, 3 log p, 4 log q,
   * 5 scratch, 6..7 the results ce, entropy, 8 log p of the largest p when > 1/2 */
  /* ws: the weights times 2^-ex, the largest below 2^960 (ex >= 0): exact
   * but for weights 2^-2034 of the largest or less, whose p underflow */
  for (size_t i = 0; i < n_seq; i++)
    if (!num_is_zero (AT (weights, i)) && num_get_exp (AT (weights, i)) > ex)
      ex = num_get_exp (AT (weights, i));
  ex = ex > SFT_W_EXP ? ex - SFT_W_EXP : 0;
  for (size_t i = 0; i < n_seq; i++)
    num_mul_2si (AT (ws, i), AT (weights, i), -ex);
  TRY (num_sum (AT (t, 0), ws, n_seq));
  if (num_sgn (AT (t, 0)) <= 0)
    FAIL ("lm_sft: every weight is 0", RLREF_EDOM);
  if (cond)
    TRY (eos_mass (AT (t, 1), gm, lm, logits));
  /* the distinct sequences: their weights summed, in code order */
  for (size_t i = 0; i < n_seq; i++)
    {
      size_t e = d.order[i].entry;
      if (i > 0 && d.order[i].code == d.order[i - 1].code)
        num_add (AT (w, ng - 1), AT (w, ng - 1), AT (ws, e));
      else
        num_set (AT (w, ng++), AT (ws, e));
    }
  /* the largest w_j; t[5] = the sum of the others, which are 1 - p_j of W */
  for (size_t j = 1; j < ng; j++)
    if (num_cmp (AT (w, j), AT (w, jmax)) > 0)
      jmax = j;
  num_set (AT (t, 2), AT (w, jmax));
  num_set_zero (AT (w, jmax));
  TRY (num_sum (AT (t, 5), w, ng));
  num_set (AT (w, jmax), AT (t, 2));
  near1 = num_cmp (AT (t, 5), AT (w, jmax)) < 0;
  if (near1)
    {
      num_div (AT (t, 5), AT (t, 5), AT (t, 0));
      num_neg (AT (t, 5), AT (t, 5));
      num_log1p (AT (t, 8), AT (t, 5));
    }
  for (size_t i = 0, j = 0; i < n_seq; i++)
    {
      size_t e = d.order[i].entry;
      const int *y = data + d.start[e];
      if (i > 0 && d.order[i].code == d.order[i - 1].code)
        continue;               /* the group's first entry stands for it */
      /* p = w / W; the terms -p log q, -p log p, p (log p - log q) */
      num_div (AT (t, 2), AT (w, j), AT (t, 0));
      ks = 0;
      if (!num_is_zero (AT (w, j))
          && (num_is_zero (AT (t, 2)) || num_get_exp (AT (t, 2)) < -SFT_W_EXP))
        {
          /* t[2] = p 2^ks, exact in range: w < 2^-960 W < 2^61 */
          ks = SFT_P_SCALE;
          num_mul_2si (AT (t, 2), AT (w, j), ks);
          num_div (AT (t, 2), AT (t, 2), AT (t, 0));
        }
      if (num_is_zero (AT (t, 2)))
        {
          num_set_zero (AT (terms, j));
          num_set_zero (AT (terms, n_seq + j));
          num_set_zero (AT (terms, 2 * n_seq + j));
          j++;
          continue;
        }
      if (near1 && j == jmax)
        num_set (AT (t, 3), AT (t, 8));
      else
        num_log (AT (t, 3), AT (t, 2));
      if (ks)
        {
          num_set_si (AT (t, 5), 2);
          num_log (AT (t, 5), AT (t, 5));
          num_mul_si (AT (t, 5), AT (t, 5), ks);
          num_sub (AT (t, 3), AT (t, 3), AT (t, 5));
        }
      TRY (FN (lm_logprob) (AT (t, 4), tok, lm, logits, y, d.len[e]));
      if (cond)
        num_sub (AT (t, 4), AT (t, 4), AT (t, 1));
      num_mul (AT (terms, j), AT (t, 2), AT (t, 4));
      num_neg (AT (terms, j), AT (terms, j));
      num_mul (AT (terms, n_seq + j), AT (t, 2), AT (t, 3));
      num_neg (AT (terms, n_seq + j), AT (terms, n_seq + j));
      num_sub (AT (t, 5), AT (t, 3), AT (t, 4));
      num_mul (AT (terms, 2 * n_seq + j), AT (t, 2), AT (t, 5));
      if (ks)
        {
          num_mul_2si (AT (terms, j), AT (terms, j), -ks);
          num_mul_2si (AT (terms, n_seq + j), AT (terms, n_seq + j), -ks);
          num_mul_2si (AT (terms, 2 * n_seq + j), AT (terms, 2 * n_seq + j), -ks);
          num_mul_2si (AT (t, 2), AT (t, 2), -ks);
        }
      /* -p d log pi(y): at each step -p (e_{y_t} - pi(. | y_<t)) in its row,
       * 1 - pi(y_t | .) as the sum of the other tokens' probabilities (no
       * cancellation when pi(y_t | .) is next to 1) */
      for (int k = 0; k < d.len[e]; k++)
        {
          size_t r = row_of (lm, y, k) * (size_t) V;
          TRY (FN (softmax) (row, AT (logits, r), (size_t) V));
          num_set_zero (AT (row, y[k]));
          TRY (num_sum (AT (row, y[k]), row, (size_t) V));
          num_neg (AT (row, y[k]), AT (row, y[k]));
          for (int b = 0; b < V; b++)
            {
              /* row[y_t] now holds -(1 - pi(y_t | .)): e_b - pi(b) = -row[b] */
              num_neg (AT (t, 5), AT (row, b));
              num_mul (AT (t, 5), AT (t, 5), AT (t, 2));
              num_sub (AT (g, r + b), AT (g, r + b), AT (t, 5));
            }
        }
      j++;
    }
  TRY (num_sum (AT (t, 6), terms, ng));
  TRY (num_sum (AT (t, 7), AT (terms, n_seq), ng));
  TRY (num_sum (AT (t, 5), AT (terms, 2 * n_seq), ng));
  for (size_t k = 0; cond && k < nl; k++)
    num_add (AT (g, k), AT (g, k), AT (gm, k));
  num_set (ce, AT (t, 6));
  num_set (entropy, AT (t, 7));
  num_set (kl, AT (t, 5));
  for (size_t k = 0; grad && k < nl; k++)
    num_set (AT (grad, k), AT (g, k));
done:
  sft_data_free (&d);
  num_vec_free (g, nl);
  num_vec_free (gm, nl);
  num_vec_free (w, n_seq);
  num_vec_free (ws, n_seq);
  num_vec_free (terms, 3 * n_seq);
  num_vec_free (t, 9);
  num_vec_free (tok, (size_t) lm->T);
  num_vec_free (row, (size_t) V);
  return status;
}

#ifdef RLREF_MP

/* LM-TRAIN: theta_0 = ref_logits; lm_descend from at[i-1] to at[i] (the
 * recurrence theta <- theta -+ lr grad J(theta) has no other state, so the
 * segments make the one run of at[n_at - 1] steps); at each listed step the
 * objective (the last value of the segment's history) and KL(pi_theta ||
 * pi*) = lm_objective (KL) against the logits of pi* (13.17).  Results are
 * kept in temporaries and written last. */
int
FN (lm_train_report) (num_ptr value, num_ptr kl_star, const rlref_lm *lm, num_srcptr ref_logits,
                      num_srcptr reward, num_srcptr beta, int objective, num_srcptr lr,
                      const int *at, size_t n_at)
{
  int status = rlref_lm_check (lm), last;
  size_t nl;
  num_ptr th = NULL, star = NULL, hist = NULL, res = NULL;
  if (status)
    return status;
  if (objective != RLREF_LM_OBJ_REWARD && objective != RLREF_LM_OBJ_RLHF
      && objective != RLREF_LM_OBJ_DPO && objective != RLREF_LM_OBJ_IPO)
    RLREF_ERROR ("lm_train_report: the objective is E[r], the RLHF objective, DPO or IPO",
                 RLREF_EINVAL);
  if (!at || n_at == 0)
    RLREF_ERROR ("lm_train_report: no step to report", RLREF_EINVAL);
  for (size_t i = 0; i < n_at; i++)
    if (at[i] < 0 || (i > 0 && at[i] <= at[i - 1]))
      RLREF_ERROR ("lm_train_report: the steps must increase from 0 or more", RLREF_EDOM);
  last = at[n_at - 1];
  if (last > RLREF_LM_TRAIN_MAX_STEPS)
    RLREF_ERROR ("lm_train_report: more than RLREF_LM_TRAIN_MAX_STEPS steps", RLREF_EDOM);
  if (!num_is_finite (lr) || num_sgn (lr) <= 0)
    RLREF_ERROR ("lm_train_report: the learning rate must be finite and positive", RLREF_EDOM);
  nl = lm->n_rows * (size_t) lm->V;
  if ((status = check_logits (ref_logits, nl)))
    return status;
  th = num_vec_new (nl);
  star = num_vec_new (nl);
  hist = num_vec_new ((size_t) last + 1);
  res = num_vec_new (2 * n_at);
  if (!th || !star || !hist || !res)
    FAIL ("lm_train_report: out of memory", RLREF_ENOMEM);
  TRY (FN (lm_pistar_logits) (star, lm, ref_logits, reward, beta));
  for (size_t k = 0; k < nl; k++)
    num_set (AT (th, k), AT (ref_logits, k));
  for (size_t i = 0; i < n_at; i++)
    {
      int n = at[i] - (i ? at[i - 1] : 0);
      TRY (FN (lm_descend) (th, hist, lm, ref_logits, reward, beta, objective, lr, n));
      num_set (AT (res, i), AT (hist, n));
      TRY (FN (lm_objective) (AT (res, n_at + i), NULL, lm, th, star, reward, beta,
                              RLREF_LM_OBJ_KL));
    }
  for (size_t i = 0; i < n_at; i++)
    {
      num_set (AT (value, i), AT (res, i));
      num_set (AT (kl_star, i), AT (res, n_at + i));
    }
done:
  num_vec_free (th, nl);
  num_vec_free (star, nl);
  num_vec_free (hist, (size_t) last + 1);
  num_vec_free (res, 2 * n_at);
  return status;
}

/* The steps at[0..n_at) checked: EINVAL for none, EDOM unless they increase
 * from 0 to at most RLREF_LM_TRAIN_MAX_STEPS. */
static int
check_steps (const int *at, size_t n_at)
{
  if (!at || n_at == 0)
    RLREF_ERROR ("no step to report", RLREF_EINVAL);
  for (size_t i = 0; i < n_at; i++)
    if (at[i] < 0 || at[i] > RLREF_LM_TRAIN_MAX_STEPS || (i > 0 && at[i] <= at[i - 1]))
      RLREF_ERROR ("the steps must increase from 0 to at most 1e5", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* LM-TRAIN, sampled: lm_sampled_descend from at[i-1] to at[i] on one
 * seeded stream; at each listed step the exact objective (lm_objective)
 * and KL(pi_theta || pi*) against the logits of pi* (13.17).  Results are
 * kept in temporaries and written last. */
int
FN (lm_sampled_report) (num_ptr value, num_ptr kl_star, const rlref_lm *lm,
                        num_srcptr ref_logits, num_srcptr reward, num_srcptr beta,
                        int objective, num_srcptr lr, int n, unsigned long seed, const int *at,
                        size_t n_at)
{
  size_t nl;
  gsl_rng *rng = NULL;
  num_ptr th = NULL, star = NULL, res = NULL;
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  if (n < 2 || n > 10000 || seed > 0xffffffffUL)
    RLREF_ERROR ("n must be 2 to 1e4 and seed 0 to 2^32 - 1", RLREF_EDOM);
  if ((status = check_steps (at, n_at)))
    return status;
  nl = lm->n_rows * (size_t) lm->V;
  rng = gsl_rng_alloc (gsl_rng_mt19937);
  th = num_vec_new (nl);
  star = num_vec_new (nl);
  res = num_vec_new (2 * n_at);
  if (!rng || !th || !star || !res)
    FAIL ("out of memory", RLREF_ENOMEM);
  gsl_rng_set (rng, seed);
  for (size_t k = 0; k < nl; k++)
    num_set (AT (th, k), AT (ref_logits, k));
  TRY (FN (lm_pistar_logits) (star, lm, ref_logits, reward, beta));
  for (size_t i = 0; i < n_at; i++)
    {
      int steps = at[i] - (i ? at[i - 1] : 0);
      TRY (FN (lm_sampled_descend) (th, NULL, lm, ref_logits, reward, beta, objective, lr,
                                    steps, n, rng));
      TRY (FN (lm_objective) (AT (res, i), NULL, lm, th, ref_logits, reward, beta, objective));
      TRY (FN (lm_objective) (AT (res, n_at + i), NULL, lm, th, star, reward, beta,
                              RLREF_LM_OBJ_KL));
    }
  for (size_t i = 0; i < n_at; i++)
    {
      num_set (AT (value, i), AT (res, i));
      num_set (AT (kl_star, i), AT (res, n_at + i));
    }
done:
  if (rng)
    gsl_rng_free (rng);
  num_vec_free (th, nl);
  num_vec_free (star, nl);
  num_vec_free (res, 2 * n_at);
  return status;
}

#else
/* binary64: the MPFR programs above, each reported value rounded once
 * (round_once.h): theta is never rounded along the run, so the values at
 * the listed steps are those of the one exact run, whichever steps are
 * listed. */
#include <string.h>
#include "round_once.h"

typedef struct
{
  const rlref_lm *lm;
  size_t nl, nr, n_at;
  int objective, sampled, n;
  unsigned long seed;
  const int *at;
} report_program;

/* x = (ref_logits, reward if any, beta, lr); y = (value, kl_star). */
static int
report_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const report_program *o = ctx;
  mpfr_srcptr rw = o->nr ? x + o->nl : NULL, beta = x + o->nl + o->nr;
  if (o->sampled)
    return rlref_lm_sampled_report_mp (y, y + o->n_at, o->lm, x, rw, beta, o->objective,
                                       beta + 1, o->n, o->seed, o->at, o->n_at);
  return rlref_lm_train_report_mp (y, y + o->n_at, o->lm, x, rw, beta, o->objective, beta + 1,
                                   o->at, o->n_at);
}

/* The shared frame of the two reports: the inputs packed, the program
 * rounded once, value and kl_star written. */
static int
report_round_once (report_program *o, double *value, double *kl_star, const double *ref_logits,
                   const double *reward, const double *beta, const double *lr)
{
  size_t nx;
  double *xd;
  int status = rlref_lm_check (o->lm);
  if (status)
    return status;
  if (!o->at || o->n_at == 0)
    RLREF_ERROR ("lm_train_report: no step to report", RLREF_EINVAL);
  if (!beta || !lr)
    RLREF_ERROR ("lm_train_report: an argument is missing", RLREF_EINVAL);
  o->nl = o->lm->n_rows * (size_t) o->lm->V;
  o->nr = o->lm->reward == RLREF_REWARD_ADDITIVE && reward ? (size_t) o->lm->V + 2 : 0;
  nx = o->nl + o->nr + 2;
  xd = malloc ((nx + 2 * o->n_at) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("lm_train_report: out of memory", RLREF_ENOMEM);
  memcpy (xd, ref_logits, o->nl * sizeof *xd);
  if (o->nr)
    memcpy (xd + o->nl, reward, o->nr * sizeof *xd);
  xd[nx - 2] = beta[0];
  xd[nx - 1] = lr[0];
  status = rlref_round_once (xd + nx, 2 * o->n_at, xd, nx, report_mp, o,
                             "the training run's report");
  if (status == RLREF_SUCCESS)
    {
      memcpy (value, xd + nx, o->n_at * sizeof *value);
      memcpy (kl_star, xd + nx + o->n_at, o->n_at * sizeof *kl_star);
    }
  free (xd);
  return status;
}

int
FN (lm_train_report) (num_ptr value, num_ptr kl_star, const rlref_lm *lm, num_srcptr ref_logits,
                      num_srcptr reward, num_srcptr beta, int objective, num_srcptr lr,
                      const int *at, size_t n_at)
{
  report_program o = { .lm = lm, .n_at = n_at, .objective = objective, .at = at };
  return report_round_once (&o, value, kl_star, ref_logits, reward, beta, lr);
}

int
FN (lm_sampled_report) (num_ptr value, num_ptr kl_star, const rlref_lm *lm,
                        num_srcptr ref_logits, num_srcptr reward, num_srcptr beta,
                        int objective, num_srcptr lr, int n, unsigned long seed, const int *at,
                        size_t n_at)
{
  report_program o = { .lm = lm, .n_at = n_at, .objective = objective, .sampled = 1, .n = n,
                       .seed = seed, .at = at };
  return report_round_once (&o, value, kl_star, ref_logits, reward, beta, lr);
}
#endif
