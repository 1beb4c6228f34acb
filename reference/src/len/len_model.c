/* len_model.c -- the exact expected length drift (LEN-DRIFT) and the
 * exact-gradient entropy curves (ENT-COLLAPSE) of GRPO-style updates on
 * the think-then-answer model of rlref/len.h: seed 000 sections 12.2 and
 * 12.3, (13.23), (13.24), (13.29)-(13.33); seed 003 (Dr.GRPO); seed 004.
 * Written once for both backends.
 *
 * Every expectation over a group of G i.i.d. responses is a finite sum
 * over the multisets of G of the 2T + 1 responses, each weighted by its
 * multinomial probability G!/prod m_j! prod pi(y_j)^m_j: a group's
 * advantages and token weights depend on its members, not on their order.
 * The outputs are written last, from temporaries (reference/README.md,
 * Aliasing). */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/len.h"
#include "flow.h"

enum { TOK_W, TOK_C, TOK_X };

/* Response j of the model of length T: j = 2k is w^k c, j = 2k + 1 is
 * w^k x (k < T), j = 2T is w^T (cut). */
static int
resp_len (int j, int T)
{
  return j == 2 * T ? T : j / 2 + 1;
}

static int
resp_correct (int j, int T)
{
  return j < 2 * T && j % 2 == 0;
}

static int
resp_tok (int j, int t, int T)
{
  if (j == 2 * T || t < j / 2)
    return TOK_W;
  return j % 2 == 0 ? TOK_C : TOK_X;
}

/* The policy's tables at some theta: lp[3t + a] = log pi(a | t) (a
 * log-softmax per step), pt = e^lp, logp[j] = log pi(y_j) = sum over the
 * steps of y_j, p = e^logp.  Views into one vector of 6T + 2n. */
typedef struct
{
  int T, n;
  num_ptr lp, pt, logp, p;
} model;

static void
model_view (model *m, num_ptr v, int T)
{
  m->T = T;
  m->n = 2 * T + 1;
  m->lp = v;
  m->pt = AT (v, 3 * T);
  m->logp = AT (v, 6 * T);
  m->p = AT (v, 6 * T + m->n);
}

#define MODEL_SIZE(T) (6 * (size_t) (T) + 2 * (2 * (size_t) (T) + 1))

/* (13.1) on the model: pi(y) = prod_t pi(y_t | t), in logs; pre holds
 * the log-probability of the prefix w^k. */
static int
model_at (model *m, num_srcptr theta, num_ptr pre)
{
  int T = m->T, status = RLREF_SUCCESS;
  for (int t = 0; t < T; t++)
    {
      TRY (FN (log_softmax) (AT (m->lp, 3 * t), AT (theta, 3 * t), 3));
      for (int a = 0; a < 3; a++)
        num_exp (AT (m->pt, 3 * t + a), AT (m->lp, 3 * t + a));
    }
  num_set_zero (pre);
  for (int k = 0; k < T; k++)
    {
      num_add (AT (m->logp, 2 * k), pre, AT (m->lp, 3 * k + TOK_C));
      num_add (AT (m->logp, 2 * k + 1), pre, AT (m->lp, 3 * k + TOK_X));
      num_add (pre, pre, AT (m->lp, 3 * k + TOK_W));
    }
  num_set (AT (m->logp, 2 * T), pre);
  for (int j = 0; j < m->n; j++)
    num_exp (AT (m->p, j), AT (m->logp, j));
done:
  return status;
}

/* Checks of the logits and G shared by LEN-DRIFT and ENT-COLLAPSE: T =
 * n_logits/3, and the number of multisets C(n + G - 1, G) of G among the n
 * = 2T + 1 responses (n_groups) within RLREF_LEN_MAX_GROUPS. */
static int
check_model (int *T, double *n_groups, num_srcptr logits, size_t n_logits, long G)
{
  double groups = 1;
  if (!logits || n_logits == 0 || n_logits % 3 != 0)
    RLREF_ERROR ("think-then-answer model: 3 logits (w, c, x) per step", RLREF_EINVAL);
  if (n_logits / 3 > RLREF_LEN_MAX_T)
    RLREF_ERROR ("think-then-answer model: at most 32 steps", RLREF_EINVAL);
  for (size_t i = 0; i < n_logits; i++)
    CHECK_FINITE (AT (logits, i));
  if (G < 1)
    RLREF_ERROR ("a group of fewer than one response", RLREF_EDOM);
  *T = (int) (n_logits / 3);
  for (long i = 1; i <= G && groups <= RLREF_LEN_MAX_GROUPS; i++)
    groups = groups * (double) (2 * *T + i) / (double) i;
  if (G > RLREF_LEN_MAX_G || groups > RLREF_LEN_MAX_GROUPS)
    RLREF_ERROR ("too many groups to enumerate (G at most 20, at most 5e4 multisets)",
                 RLREF_EINVAL);
  *n_groups = groups;
  return RLREF_SUCCESS;
}

/* (13.23) with ddof 0 for 0/1 rewards, k correct of G: mean k/G, std
 * sqrt(k (G - k))/G, so A = sqrt((G - k)/k) for a correct response and
 * -sqrt(k/(G - k)) for another; 0 when k = 0 or G.  ac[k], ax[k]. */
static void
advantage_table (num_ptr ac, num_ptr ax, long G)
{
  for (long k = 0; k <= G; k++)
    {
      num_set_zero (AT (ac, k));
      num_set_zero (AT (ax, k));
      if (k == 0 || k == G)
        continue;
      num_set_si (AT (ac, k), G - k);
      num_div_si (AT (ac, k), AT (ac, k), k);
      num_sqrt (AT (ac, k), AT (ac, k));
      num_set_si (AT (ax, k), k);
      num_div_si (AT (ax, k), AT (ax, k), G - k);
      num_sqrt (AT (ax, k), AT (ax, k));
      num_neg (AT (ax, k), AT (ax, k));
    }
}

/* c_pos[j] = E[sum_{i: y_i = j} w_i A_i] over the members with A_i > 0
 * (the correct ones), c_neg[j] over those with A_i < 0, and kept = P(0 <
 * correct < G), the expectation over the multisets of G responses:
 *   P(multiset) = G!/prod_j m_j! prod_j pi(y_j)^m_j,
 * w_i the token weights of norm over the group (13.24: 1/(G |y_i|); 13.33
 * and seed 003's group mean length: 1/sum |y|; Dr.GRPO 1/G; dr_grpo 1/(G
 * T)).  ac, ax from advantage_table; s: 3 scalars of scratch. */
static void
coefficients (num_ptr cpos, num_ptr cneg, num_ptr kept, const model *m, long G,
              rlref_len_norm norm, num_srcptr ac, num_srcptr ax, num_ptr s)
{
  int idx[RLREF_LEN_MAX_G];
  int n = m->n, T = m->T;
  num_ptr prob = s, w = AT (s, 1), v = AT (s, 2);
  for (int j = 0; j < n; j++)
    {
      num_set_zero (AT (cpos, j));
      num_set_zero (AT (cneg, j));
    }
  num_set_zero (kept);
  for (long i = 0; i < G; i++)
    idx[i] = 0;
  for (;;)
    {
      long k = 0, len_sum = 0, running = 0;
      /* the multinomial probability, run by run */
      num_set_si (prob, 1);
      for (long i = 0; i < G;)
        {
          long r = i;
          while (r < G && idx[r] == idx[i])
            r++;
          for (long q = 1; q <= r - i; q++)
            {
              running++;
              num_mul_si (prob, prob, running);
              num_div_si (prob, prob, q);
              num_mul (prob, prob, AT (m->p, idx[i]));
            }
          k += resp_correct (idx[i], T) * (r - i);
          len_sum += (long) resp_len (idx[i], T) * (r - i);
          i = r;
        }
      if (k > 0 && k < G)
        {
          num_add (kept, kept, prob);
          for (long i = 0; i < G;)
            {
              long r = i;
              int j = idx[i];
              while (r < G && idx[r] == idx[i])
                r++;
              /* w_j times the multiplicity */
              switch (norm)
                {
                case RLREF_LEN_SEQ_MEAN_TOKEN_MEAN:
                  num_set_si (w, r - i);
                  num_div_si (w, w, G * (long) resp_len (j, T));
                  break;
                case RLREF_LEN_TOKEN_MEAN:
                case RLREF_LEN_GROUP_MEAN_LENGTH:
                  num_set_si (w, r - i);
                  num_div_si (w, w, len_sum);
                  break;
                case RLREF_LEN_SEQ_MEAN_TOKEN_SUM:
                  num_set_si (w, r - i);
                  num_div_si (w, w, G);
                  break;
                default:
                  num_set_si (w, r - i);
                  num_div_si (w, w, G * (long) T);
                  break;
                }
              num_mul (v, prob, w);
              if (resp_correct (j, T))
                {
                  num_mul (v, v, AT (ac, k));
                  num_add (AT (cpos, j), AT (cpos, j), v);
                }
              else
                {
                  num_mul (v, v, AT (ax, k));
                  num_add (AT (cneg, j), AT (cneg, j), v);
                }
              i = r;
            }
        }
      /* the next multiset: idx non-decreasing */
      {
        long i = G - 1;
        while (i >= 0 && idx[i] == n - 1)
          i--;
        if (i < 0)
          break;
        idx[i]++;
        for (long l = i + 1; l < G; l++)
          idx[l] = idx[i];
      }
    }
}

/* r = sum_j pi(y_j) f_j d_j (d NULL: d_j = 1), exact sum of the terms in
 * s (n scalars). */
static int
expect (num_ptr r, const model *m, num_srcptr f, num_srcptr d, num_ptr s)
{
  for (int j = 0; j < m->n; j++)
    {
      num_mul (AT (s, j), AT (m->p, j), AT (f, j));
      if (d)
        num_mul (AT (s, j), AT (s, j), AT (d, j));
    }
  return num_sum (r, s, (size_t) m->n);
}

#ifdef RLREF_MP
/* g = sum_j c_j grad log pi(y_j): grad log pi(y) puts e_{y_t} - pi(. | t)
 * in row t of every step t of y.  s: T + 1 scalars of scratch. */
static void
direction (num_ptr g, const model *m, num_srcptr c, num_ptr s)
{
  int T = m->T;
  for (int t = 0; t < 3 * T; t++)
    num_set_zero (AT (g, t));
  for (int t = 0; t < T; t++)
    num_set_zero (AT (s, t));
  for (int j = 0; j < m->n; j++)
    for (int t = 0; t < resp_len (j, T); t++)
      {
        num_add (AT (g, 3 * t + resp_tok (j, t, T)), AT (g, 3 * t + resp_tok (j, t, T)),
                 AT (c, j));
        num_add (AT (s, t), AT (s, t), AT (c, j));
      }
  for (int t = 0; t < T; t++)
    for (int b = 0; b < 3; b++)
      {
        num_mul (AT (s, T), AT (s, t), AT (m->pt, 3 * t + b));
        num_sub (AT (g, 3 * t + b), AT (g, 3 * t + b), AT (s, T));
      }
}

/* d_j = <grad log pi(y_j), g> = sum over the steps t of y_j of
 * g[t, y_t] - sum_b pi(b | t) g[t, b].  s: T scalars of scratch. */
static int
along (num_ptr d, const model *m, num_srcptr g, num_ptr s)
{
  int T = m->T, status = RLREF_SUCCESS;
  for (int t = 0; t < T; t++)
    TRY (num_dot (AT (s, t), AT (m->pt, 3 * t), AT (g, 3 * t), 3));
  for (int j = 0; j < m->n; j++)
    {
      num_set_zero (AT (d, j));
      for (int t = 0; t < resp_len (j, T); t++)
        {
          num_add (AT (d, j), AT (d, j), AT (g, 3 * t + resp_tok (j, t, T)));
          num_sub (AT (d, j), AT (d, j), AT (s, t));
        }
    }
done:
  return status;
}

/* LEN-DRIFT (000 section 12.2): g = E[sum_i w_i A_i grad log pi(y_i)] =
 * sum_j (c_pos[j] + c_neg[j]) grad log pi(y_j), and along a direction h
 * the derivative of an expectation is d/deta E[f] = sum_j pi(y_j) f_j
 * <grad log pi(y_j), h> (the score function); for E[|y| | C] = N/D,
 * d/deta = sum_{j in C} pi(y_j) (|y_j| - E[|y| | C]) <grad log pi(y_j),
 * h> / D.  After the step: E'[|y|] - E[|y|] = sum_j pi(y_j) (|y_j| - 1)
 * expm1(log pi'(y_j) - log pi(y_j)), without cancellation between the two
 * means, the change of log pi(y_j) summed from the per-step changes
 * eta g[t, a] - log1p(sum_b pi(b|t) expm1(eta g[t, b])): nothing of the
 * size of log pi is rounded before the difference.  Since sum_j pi(y_j) = 1
 * at every theta, E[|y|] - 1 (the thinking tokens) has the same
 * derivatives: formed from |y| - 1, they are exactly 0
 * where every response has one token. */
int
FN (len_drift) (num_ptr out, num_srcptr logits, size_t n_logits, long G,
                rlref_len_norm norm, num_srcptr eta)
{
  num_ptr v = NULL;
  size_t nv = 0;
  int T = 0, n, status = RLREF_SUCCESS;
  double groups = 0;
  if (!out || !eta)
    RLREF_ERROR ("LEN-DRIFT: missing output or eta", RLREF_EINVAL);
  if ((status = check_model (&T, &groups, logits, n_logits, G)) != RLREF_SUCCESS)
    return status;
  CHECK_FINITE (eta);
  n = 2 * T + 1;
  /* two models, theta', g, g+, g-, c+, c-, c, d, f, len, correct, wrong,
   * the advantages, scratch, the outputs */
  nv = 2 * MODEL_SIZE (T) + 4 * 3 * (size_t) T + 10 * (size_t) n + 2 * (size_t) (G + 1)
    + (size_t) T + 3 + RLREF_LEN_NDRIFT;
  v = num_vec_new (nv);
  if (!v)
    FAIL ("LEN-DRIFT: out of memory", RLREF_ENOMEM);
  {
    model m, m2;
    num_ptr th2, g, gp, gn, cp, cn, c, d, f, lenv, corr, wrong, think, ac, ax, s, s3, o;
    size_t at = 0;
    model_view (&m, AT (v, at), T);
    at += MODEL_SIZE (T);
    model_view (&m2, AT (v, at), T);
    at += MODEL_SIZE (T);
    th2 = AT (v, at);
    g = AT (v, at + 3 * T);
    gp = AT (v, at + 6 * T);
    gn = AT (v, at + 9 * T);
    at += 12 * (size_t) T;
    cp = AT (v, at);
    cn = AT (v, at + n);
    c = AT (v, at + 2 * n);
    d = AT (v, at + 3 * n);
    f = AT (v, at + 4 * n);
    lenv = AT (v, at + 5 * n);
    corr = AT (v, at + 6 * n);
    wrong = AT (v, at + 7 * n);
    think = AT (v, at + 8 * n);
    s = AT (v, at + 9 * n);
    at += 10 * (size_t) n;
    ac = AT (v, at);
    ax = AT (v, at + G + 1);
    at += 2 * (size_t) (G + 1);
    s3 = AT (v, at);            /* T + 3 scalars */
    at += (size_t) T + 3;
    o = AT (v, at);

    TRY (model_at (&m, logits, s3));
    for (int j = 0; j < n; j++)
      {
        num_set_si (AT (lenv, j), resp_len (j, T));
        num_set_si (AT (corr, j), resp_correct (j, T));
        num_set_si (AT (wrong, j), 1 - resp_correct (j, T));
        num_set_si (AT (think, j), resp_len (j, T) - 1);
      }
    advantage_table (ac, ax, G);
    coefficients (cp, cn, s3, &m, G, norm, ac, ax, AT (s3, 1));
    for (int j = 0; j < n; j++)
      num_add (AT (c, j), AT (cp, j), AT (cn, j));
    direction (g, &m, c, s3);
    direction (gp, &m, cp, s3);
    direction (gn, &m, cn, s3);

    TRY (expect (AT (o, RLREF_LEN_MEAN), &m, lenv, NULL, s));
    TRY (expect (AT (o, RLREF_LEN_ACC), &m, corr, NULL, s));
    TRY (along (d, &m, gp, s3));
    TRY (expect (AT (o, RLREF_LEN_DLEN_POS), &m, think, d, s));
    TRY (along (d, &m, gn, s3));
    TRY (expect (AT (o, RLREF_LEN_DLEN_NEG), &m, think, d, s));
    TRY (along (d, &m, g, s3));
    TRY (expect (AT (o, RLREF_LEN_DLEN), &m, think, d, s));
    TRY (expect (AT (o, RLREF_LEN_DACC), &m, corr, d, s));
    /* conditional lengths: f_j = |y_j| - E[|y| | C] on C, 0 elsewhere;
     * s3[0] = P(C), s3[1] = E[|y| 1_C] */
    for (int part = 0; part < 2; part++)
      {
        num_srcptr in = part == 0 ? corr : wrong;
        TRY (expect (AT (s3, 0), &m, in, NULL, s));
        if (num_is_zero (AT (s3, 0)))
          FAIL ("LEN-DRIFT: the probability of a correct or of a wrong response underflows",
                RLREF_ERANGE);
        for (int j = 0; j < n; j++)
          num_mul (AT (f, j), AT (lenv, j), AT (in, j));
        TRY (expect (AT (s3, 1), &m, f, NULL, s));
        num_div (AT (s3, 1), AT (s3, 1), AT (s3, 0));
        for (int j = 0; j < n; j++)
          {
            num_sub (AT (f, j), AT (lenv, j), AT (s3, 1));
            num_mul (AT (f, j), AT (f, j), AT (in, j));
          }
        {
          num_ptr r = AT (o, part == 0 ? RLREF_LEN_DLEN_CORRECT : RLREF_LEN_DLEN_WRONG);
          TRY (expect (r, &m, f, d, s));
          num_div (r, r, AT (s3, 0));
        }
      }
    /* one step, theta' = theta + eta g, without forming theta': per step t
     * (x_b = eta g[t, b] in th2) log pi'(a|t) - log pi(a|t) = x_a - D_t,
     * D_t = log sum_b pi(b|t) e^{x_b} = log1p(sum_b pi(b|t) expm1(x_b))
     * while that sum is within [-1/2, 1]; beyond, log_softmax(log pi + x)
     * - log pi, D_t then not small; into m2.lp.  m2.logp[j] = log pi'(y_j) - log pi(y_j), the sum
     * over the steps of y_j. */
    for (int t = 0; t < T; t++)
      {
        num_ptr x = AT (th2, 3 * t), e = AT (m2.pt, 3 * t);
        for (int b = 0; b < 3; b++)
          {
            num_mul (AT (x, b), eta, AT (g, 3 * t + b));
            num_expm1 (AT (e, b), AT (x, b));
            num_mul (AT (e, b), AT (e, b), AT (m.pt, 3 * t + b));
          }
        TRY (num_sum (AT (s3, 0), e, 3));
        if (num_is_finite (AT (s3, 0)) && num_cmp_d (AT (s3, 0), -0.5) >= 0
            && num_cmp_d (AT (s3, 0), 1.0) <= 0)
          {
            num_log1p (AT (s3, 0), AT (s3, 0));
            for (int b = 0; b < 3; b++)
              num_sub (AT (m2.lp, 3 * t + b), AT (x, b), AT (s3, 0));
          }
        else
          {
            for (int b = 0; b < 3; b++)
              num_add (AT (e, b), AT (m.lp, 3 * t + b), AT (x, b));
            TRY (FN (log_softmax) (AT (m2.lp, 3 * t), e, 3));
            for (int b = 0; b < 3; b++)
              num_sub (AT (m2.lp, 3 * t + b), AT (m2.lp, 3 * t + b), AT (m.lp, 3 * t + b));
          }
      }
    /* len_step = sum_j (|y_j| - 1) (pi'(y_j) - pi(y_j)), the difference
     * pi(y_j) expm1(delta_j) (e^{log pi(y_j) + delta_j} - pi(y_j) for
     * delta_j > 1, where pi expm1 could overflow) */
    for (int j = 0; j < n; j++)
      {
        num_ptr dj = AT (m2.logp, j);
        num_set_zero (dj);
        for (int t = 0; t < resp_len (j, T); t++)
          num_add (dj, dj, AT (m2.lp, 3 * t + resp_tok (j, t, T)));
        if (num_cmp_d (dj, 1.0) <= 0)
          {
            num_expm1 (AT (s, j), dj);
            num_mul (AT (s, j), AT (s, j), AT (m.p, j));
          }
        else
          {
            num_add (AT (s, j), AT (m.logp, j), dj);
            num_exp (AT (s, j), AT (s, j));
            num_sub (AT (s, j), AT (s, j), AT (m.p, j));
          }
        num_mul (AT (s, j), AT (s, j), AT (think, j));
      }
    TRY (num_sum (AT (o, RLREF_LEN_STEP), s, (size_t) n));
    for (int k = 0; k < RLREF_LEN_NDRIFT; k++)
      if (!num_is_finite (AT (o, k)))
        FAIL ("LEN-DRIFT: a result beyond the range", RLREF_ERANGE);
    for (int k = 0; k < RLREF_LEN_NDRIFT; k++)
      num_set (AT (out, k), AT (o, k));
  }
done:
  num_vec_free (v, nv);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  Where the model is symmetric in its correct and wrong
 * answers the length terms are exactly 0, c+ and c- cancelling; binary64's
 * roundings of the two leave 1e-17 (and a step eta near 2^-128 beside a
 * logit of 2^18 cancels beyond the format).  An exact 0 settles where two
 * runs both underflow. */
#include <stdlib.h>
#include "round_once.h"

typedef struct
{
  size_t n_logits;
  long G;
  rlref_len_norm norm;
} drift_program;

/* x = (logits, eta); y = out. */
static int
drift_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const drift_program *o = ctx;
  return rlref_len_drift_mp (y, x, o->n_logits, o->G, o->norm, x + o->n_logits);
}

int
FN (len_drift) (num_ptr out, num_srcptr logits, size_t n_logits, long G,
                rlref_len_norm norm, num_srcptr eta)
{
  drift_program o = { n_logits, G, norm };
  double groups = 0, *x;
  int T = 0, status;
  if (!out || !eta)
    RLREF_ERROR ("LEN-DRIFT: missing output or eta", RLREF_EINVAL);
  if ((status = check_model (&T, &groups, logits, n_logits, G)) != RLREF_SUCCESS)
    return status;
  CHECK_FINITE (eta);
  x = malloc ((n_logits + 1 + RLREF_LEN_NDRIFT) * sizeof *x);
  if (!x)
    RLREF_ERROR ("LEN-DRIFT: out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n_logits; i++)
    x[i] = logits[i];
  x[n_logits] = *eta;
  status = rlref_round_once (x + n_logits + 1, RLREF_LEN_NDRIFT, x, n_logits + 1, drift_mp, &o,
                             "the length drift");
  if (status == RLREF_SUCCESS)
    for (int k = 0; k < RLREF_LEN_NDRIFT; k++)
      out[k] = x[n_logits + 1 + (size_t) k];
  free (x);
  return status;
}
#endif

/* ENT-COLLAPSE (000 section 12.3, 13.29-13.31): the surrogate's token
 * terms depend on theta through rho(t, a) = pi_theta(a | t)/pi_old(a | t)
 * alone, so with C+(t, a) = sum of c_pos[j] over the responses with token
 * a at step t (and C- likewise)
 *   L(theta) = sum_{t,a} C+(t,a) min(rho, 1 + eps_high)
 *              + C-(t,a) max(rho, 1 - eps_low)
 * (for A > 0 the clipped term is A min(rho, 1 + eps_high), for A < 0 it is
 * A max(rho, 1 - eps_low)); its gradient flows where rho < 1 + eps_high,
 * resp. rho > 1 - eps_low: d rho(t, a)/d theta(t, b) = rho ([a = b] -
 * pi(b | t)).  H(pi) = -sum_j pi(y_j) log pi(y_j) (no log of 0: log pi
 * comes from the log-softmax). */
int
FN (ent_collapse) (num_ptr entropy0, num_ptr entropy, num_ptr acc, num_ptr mean_len,
                   num_srcptr logits, size_t n_logits, long G, num_srcptr lr, long mu,
                   long steps, const rlref_ent_recipe *recipe)
{
  num_ptr v = NULL;
  size_t nv = 0;
  int T = 0, n, status = RLREF_SUCCESS;
  double groups = 0;
  if (!entropy0 || !entropy || !acc || !mean_len || !lr || !recipe)
    RLREF_ERROR ("ENT-COLLAPSE: missing argument", RLREF_EINVAL);
  if ((status = check_model (&T, &groups, logits, n_logits, G)) != RLREF_SUCCESS)
    return status;
  CHECK_FINITE (lr);
  if (num_sgn (lr) <= 0 || mu < 1 || steps < 1)
    RLREF_ERROR ("ENT-COLLAPSE: lr, mu and steps must be > 0", RLREF_EDOM);
  /* a run that finishes in seconds: steps (G multisets + 3 T mu) <= 2e6 */
  if (mu > 1000 || steps > 10000
      || (double) steps * ((double) G * groups + 3.0 * T * (double) mu) > RLREF_ENT_MAX_WORK)
    RLREF_ERROR ("ENT-COLLAPSE: too long a run (at most 1000 inner and 10000 outer steps, "
                 "steps (G groups + 3 T mu) at most 2e6)", RLREF_EINVAL);
  n = 2 * T + 1;
  /* old and current models, theta, g, C+, C-, c+, c-, len, corr, nlogp,
   * the advantages, lo, hi, scratch, the outputs (1 + 3 steps) */
  nv = 2 * MODEL_SIZE (T) + 4 * 3 * (size_t) T + 5 * (size_t) n + 2 * (size_t) (G + 1) + 2
    + (size_t) T + 4 + (size_t) n + 1 + 3 * (size_t) steps;
  v = num_vec_new (nv);
  if (!v)
    FAIL ("ENT-COLLAPSE: out of memory", RLREF_ENOMEM);
  {
    model mo, m;
    num_ptr th, g, Cp, Cn, cp, cn, lenv, corr, nlogp, ac, ax, lo, hi, s3, s, o;
    size_t at = 0;
    model_view (&mo, AT (v, at), T);
    at += MODEL_SIZE (T);
    model_view (&m, AT (v, at), T);
    at += MODEL_SIZE (T);
    th = AT (v, at);
    g = AT (v, at + 3 * T);
    Cp = AT (v, at + 6 * T);
    Cn = AT (v, at + 9 * T);
    at += 12 * (size_t) T;
    cp = AT (v, at);
    cn = AT (v, at + n);
    lenv = AT (v, at + 2 * n);
    corr = AT (v, at + 3 * n);
    nlogp = AT (v, at + 4 * n);
    at += 5 * (size_t) n;
    ac = AT (v, at);
    ax = AT (v, at + G + 1);
    at += 2 * (size_t) (G + 1);
    lo = AT (v, at);
    hi = AT (v, at + 1);
    at += 2;
    s3 = AT (v, at);            /* T + 4 */
    at += (size_t) T + 4;
    s = AT (v, at);             /* n */
    at += (size_t) n;
    o = AT (v, at);             /* entropy0, then entropy, acc, mean_len */

    for (int t = 0; t < 3 * T; t++)
      num_set (AT (th, t), AT (logits, t));
    for (int j = 0; j < n; j++)
      {
        num_set_si (AT (lenv, j), resp_len (j, T));
        num_set_si (AT (corr, j), resp_correct (j, T));
      }
    num_set_d (lo, -recipe->eps_low);
    num_add_d (lo, lo, 1.0);
    num_set_d (hi, recipe->eps_high);
    num_add_d (hi, hi, 1.0);
    advantage_table (ac, ax, G);
    TRY (model_at (&mo, th, s3));
    for (int j = 0; j < n; j++)
      num_neg (AT (nlogp, j), AT (mo.logp, j));
    TRY (expect (o, &mo, nlogp, NULL, s));
    for (long k = 0; k < steps; k++)
      {
        /* the batch: pi_old = pi_theta, the expected coefficients */
        TRY (model_at (&mo, th, s3));
        coefficients (cp, cn, s3, &mo, G, recipe->norm, ac, ax, AT (s3, 1));
        if (recipe->dynamic)
          {
            /* with finite logits every response has pi > 0, so for G >= 2
             * a kept mass of 0 is an underflow (e.g. a logit 2^27 above the
             * others: e^-2^27), not the absence of mixed groups */
            if (num_sgn (s3) <= 0 && G >= 2)
              FAIL ("ENT-COLLAPSE: the probability of a group with mixed rewards underflows",
                    RLREF_ERANGE);
            if (num_sgn (s3) <= 0)
              FAIL ("ENT-COLLAPSE: no group with mixed rewards to keep", RLREF_EDOM);
            for (int j = 0; j < n; j++)
              {
                num_div (AT (cp, j), AT (cp, j), s3);
                num_div (AT (cn, j), AT (cn, j), s3);
              }
          }
        for (int t = 0; t < 3 * T; t++)
          {
            num_set_zero (AT (Cp, t));
            num_set_zero (AT (Cn, t));
          }
        for (int j = 0; j < n; j++)
          for (int t = 0; t < resp_len (j, T); t++)
            {
              int i = 3 * t + resp_tok (j, t, T);
              num_add (AT (Cp, i), AT (Cp, i), AT (cp, j));
              num_add (AT (Cn, i), AT (Cn, i), AT (cn, j));
            }
        for (long it = 0; it < mu; it++)
          {
            TRY (model_at (&m, th, s3));
            for (int t = 0; t < T; t++)
              {
                /* g(t, a) = q(t, a) rho(t, a), q the coefficients whose
                 * gradient flows; row t: g(t, b) - pi(b | t) sum_a g(t, a) */
                num_ptr sum = AT (s3, T), rho = AT (s3, T + 1);
                num_set_zero (sum);
                for (int a = 0; a < 3; a++)
                  {
                    int i = 3 * t + a;
                    num_sub (rho, AT (m.lp, i), AT (mo.lp, i));
                    num_exp (rho, rho);
                    num_set_zero (AT (g, i));
                    if (num_cmp (rho, hi) < 0)
                      num_add (AT (g, i), AT (g, i), AT (Cp, i));
                    if (num_cmp (rho, lo) > 0)
                      num_add (AT (g, i), AT (g, i), AT (Cn, i));
                    num_mul (AT (g, i), AT (g, i), rho);
                    num_add (sum, sum, AT (g, i));
                  }
                for (int b = 0; b < 3; b++)
                  {
                    int i = 3 * t + b;
                    num_mul (rho, sum, AT (m.pt, i));
                    num_sub (AT (g, i), AT (g, i), rho);
                  }
              }
            for (int t = 0; t < 3 * T; t++)
              {
                num_mul (AT (g, t), AT (g, t), lr);
                num_add (AT (th, t), AT (th, t), AT (g, t));
              }
          }
        TRY (model_at (&m, th, s3));
        for (int j = 0; j < n; j++)
          num_neg (AT (nlogp, j), AT (m.logp, j));
        TRY (expect (AT (o, 1 + k), &m, nlogp, NULL, s));
        TRY (expect (AT (o, 1 + steps + k), &m, corr, NULL, s));
        TRY (expect (AT (o, 1 + 2 * steps + k), &m, lenv, NULL, s));
      }
    for (size_t i = 0; i < 1 + 3 * (size_t) steps; i++)
      if (!num_is_finite (AT (o, i)))
        FAIL ("ENT-COLLAPSE: a result beyond the range", RLREF_ERANGE);
    num_set (entropy0, o);
    for (long k = 0; k < steps; k++)
      {
        num_set (AT (entropy, k), AT (o, 1 + k));
        num_set (AT (acc, k), AT (o, 1 + steps + k));
        num_set (AT (mean_len, k), AT (o, 1 + 2 * steps + k));
      }
  }
done:
  num_vec_free (v, nv);
  return status;
}
