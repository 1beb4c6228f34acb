/* lm_grad.c -- exact objectives of a tiny-LM policy pi_theta and their
 * gradients with respect to its logits (LM-EXACT, DPO-EQUIV, LM-TRAIN).
 *
 * Over the outcome distribution q_theta (pi_theta itself when cut
 * sequences are kept; pi_theta / P(EOS within T) when they are conditioned
 * away) every gradient has the form
 *   grad L = sum_y c(y) grad log pi_theta(y),
 * and grad log pi_theta(y) is, at each prefix s on y's path, e_{y_next} -
 * pi_theta(. | s) in the row of s.  So with C(s) = sum of c over the
 * outcomes below s, the row of s receives C(s a) - pi(a | s) C(s) (13.1
 * differentiated): one depth-first pass, subtree sums in post-order.  For a
 * bigram model the rows of the prefixes ending in the same token add up.
 *
 * The coefficients, with h(y) = log q_theta(y) - log q_ref(y):
 *   E_q[r]:                c = q (r - E_q r)
 *   KL(q || q_ref):        c = q (h - KL)
 *   KL(q_ref || q):        c = -(q_ref - q)
 *   E_q[r] - beta KL:      c = q (r - beta h - J)
 *   pairwise losses, over pairs drawn from q_ref x q_ref, labelled by
 *   Bradley-Terry on r (P(y1 > y2) = sigma(r1 - r2), 13.6):
 *     L = sum q_ref(y1) q_ref(y2) sigma(r1 - r2) l(h(y1) - h(y2)),
 *     DPO l(z) = -log sigma(beta z) (13.21), IPO l(z) = (z - 1/(2 beta))^2;
 *     c(y) = sum_y' [w(y, y') l'(z(y, y')) - w(y', y) l'(z(y', y))],
 *   and for the conditioned reading c - q sum c (grad log q = grad log pi -
 *   E_q grad log pi);
 *   a KL estimator k(h) used as a loss, samples not differentiated:
 *     value E_q[k], gradient E_q[k'(h) grad log q], c = q k'(h):
 *     k1 = h (c = q: gradient 0), k2 = h^2/2 (c = q h: grad KL(q || q_ref)),
 *     k3 = e^-h - 1 + h = expm1(-h) + h (c = q (1 - e^-h) = q - q_ref:
 *     grad KL(q_ref || q)) (000 section 12.1, 13.26). */
#include <stdlib.h>
#include <string.h>
#include "rlref/num.h"
#include "rlref/lm.h"
#include "rlref/primitives.h"

#ifdef RLREF_MP

/* The outcomes in enumeration order: log pi_theta, log pi_ref, r, cut. */
typedef struct
{
  size_t n;
  num_ptr lp, lpref, r;
  unsigned char *cut;
} outcomes;

static void
outcomes_free (outcomes *o)
{
  num_vec_free (o->lp, o->n);
  num_vec_free (o->lpref, o->n);
  num_vec_free (o->r, o->n);
  free (o->cut);
}

/* The row of the state after the prefix y_1..y_d. */
static size_t
row_of (const rlref_lm *lm, const int *y, int d)
{
  if (lm->kind == RLREF_LM_BIGRAM)
    return d == 0 ? (size_t) lm->V : (size_t) y[d - 1];
  return rlref_lm_prefix_index (lm->V, lm->eos, y, d);
}

/* One depth-first pass.  Without c: records every outcome.  With c: the
 * gradient sum_y c(y) grad log pi_theta(y) into grad (n_rows x V). */
static int
walk (const rlref_lm *lm, num_srcptr th, num_srcptr ref, num_srcptr reward, outcomes *o,
      num_srcptr c, num_ptr grad)
{
  int V = lm->V, T = lm->T, eos = lm->eos, d = 0, status = RLREF_SUCCESS;
  int y[RLREF_LM_MAX_T] = { 0 }, child[RLREF_LM_MAX_T];
  size_t i = 0;
  /* per depth: log-softmax rows of theta and of ref, p of theta, the
   * subtree sums C(s a), and the prefix's log pi, log pi_ref, r */
  num_ptr lsm = num_vec_new ((size_t) T * V), lsr = num_vec_new ((size_t) T * V);
  num_ptr pr = num_vec_new ((size_t) T * V), sub = num_vec_new ((size_t) T * V);
  num_ptr pre = num_vec_new ((size_t) (T + 1) * 3), t = num_vec_new (2);
  if (!lsm || !lsr || !pr || !sub || !pre || !t)
    status = RLREF_ENOMEM;
  if (grad)
    for (size_t k = 0; k < lm->n_rows * (size_t) V; k++)
      num_set_zero (AT (grad, k));
  child[0] = 0;
  for (int a = 0; a < V; a++)
    num_set_zero (AT (sub, a));
  if (status == RLREF_SUCCESS)
    {
      size_t row = row_of (lm, y, 0) * (size_t) V;
      status = FN (log_softmax) (lsm, AT (th, row), (size_t) V);
      if (status == RLREF_SUCCESS)
        status = FN (log_softmax) (lsr, AT (ref, row), (size_t) V);
      for (int a = 0; a < V; a++)
        num_exp (AT (pr, a), AT (lsm, a));
    }
  while (status == RLREF_SUCCESS)
    {
      num_ptr here = AT (pre, d * 3);
      int a, cut;
      size_t k;
      if (child[d] == V)
        {
          /* leaving the prefix: its row gets C(s a) - pi(a|s) C(s), and
           * C(s) goes up to the parent */
          if (grad)
            {
              size_t row = row_of (lm, y, d) * (size_t) V;
              num_set_zero (AT (t, 0));
              for (a = 0; a < V; a++)
                num_add (AT (t, 0), AT (t, 0), AT (sub, d * V + a));
              for (a = 0; a < V; a++)
                {
                  num_mul (AT (t, 1), AT (pr, d * V + a), AT (t, 0));
                  num_sub (AT (t, 1), AT (sub, d * V + a), AT (t, 1));
                  num_add (AT (grad, row + a), AT (grad, row + a), AT (t, 1));
                }
              if (d > 0)
                num_add (AT (sub, (d - 1) * V + y[d - 1]), AT (sub, (d - 1) * V + y[d - 1]),
                         AT (t, 0));
            }
          if (d == 0)
            break;
          d--;
          continue;
        }
      a = child[d]++;
      y[d] = a;
      k = (size_t) d * V + (size_t) a;
      cut = a != eos && d + 1 == T;
      if (a != eos && !cut)
        {
          num_ptr down = AT (pre, (d + 1) * 3);
          size_t row;
          num_add (AT (down, 0), AT (here, 0), AT (lsm, k));
          num_add (AT (down, 1), AT (here, 1), AT (lsr, k));
          if (lm->reward == RLREF_REWARD_ADDITIVE)
            {
              num_add (AT (down, 2), AT (here, 2), AT (reward, a));
              num_add (AT (down, 2), AT (down, 2), AT (reward, V));
            }
          d++;
          child[d] = 0;
          for (int b = 0; b < V; b++)
            num_set_zero (AT (sub, d * V + b));
          row = row_of (lm, y, d) * (size_t) V;
          status = FN (log_softmax) (AT (lsm, d * V), AT (th, row), (size_t) V);
          if (status == RLREF_SUCCESS)
            status = FN (log_softmax) (AT (lsr, d * V), AT (ref, row), (size_t) V);
          for (int b = 0; b < V; b++)
            num_exp (AT (pr, d * V + b), AT (lsm, d * V + b));
          continue;
        }
      if (!c)
        {
          num_add (AT (o->lp, i), AT (here, 0), AT (lsm, k));
          num_add (AT (o->lpref, i), AT (here, 1), AT (lsr, k));
          if (lm->reward == RLREF_REWARD_ADDITIVE)
            {
              num_add (AT (o->r, i), AT (here, 2), AT (reward, a));
              num_add (AT (o->r, i), AT (o->r, i), AT (reward, V));
              if (cut)
                num_add (AT (o->r, i), AT (o->r, i), AT (reward, V + 1));
            }
          else
            num_set_zero (AT (o->r, i));
          o->cut[i] = (unsigned char) cut;
        }
      else
        num_add (AT (sub, k), AT (sub, k), AT (c, i));
      i++;
    }
  num_vec_free (lsm, (size_t) T * V);
  num_vec_free (lsr, (size_t) T * V);
  num_vec_free (pr, (size_t) T * V);
  num_vec_free (sub, (size_t) T * V);
  num_vec_free (pre, (size_t) (T + 1) * 3);
  num_vec_free (t, 2);
  return status;
}

/* q and q_ref of every outcome: exp(lp - log mass), 0 for cut sequences
 * conditioned away. */
static void
distributions (const rlref_lm *lm, outcomes *o, num_ptr q, num_ptr qr, num_ptr t)
{
  num_ptr mass = AT (t, 0), mass_r = AT (t, 1);
  int keep = lm->truncation == RLREF_LM_KEEP;
  num_set_zero (mass);
  num_set_zero (mass_r);
  for (size_t i = 0; i < o->n; i++)
    {
      if (!keep && o->cut[i])
        {
          num_set_zero (AT (q, i));
          num_set_zero (AT (qr, i));
          continue;
        }
      num_exp (AT (q, i), AT (o->lp, i));
      num_exp (AT (qr, i), AT (o->lpref, i));
      num_add (mass, mass, AT (q, i));
      num_add (mass_r, mass_r, AT (qr, i));
    }
  for (size_t i = 0; !keep && i < o->n; i++)
    {
      num_div (AT (q, i), AT (q, i), mass);
      num_div (AT (qr, i), AT (qr, i), mass_r);
      /* h = log q - log q_ref carries the masses */
      num_log (AT (t, 2), mass);
      num_sub (AT (o->lp, i), AT (o->lp, i), AT (t, 2));
      num_log (AT (t, 2), mass_r);
      num_sub (AT (o->lpref, i), AT (o->lpref, i), AT (t, 2));
    }
}

/* The coefficients c(y) and the objective's value. */
static int
coefficients (const rlref_lm *lm, int objective, outcomes *o, num_srcptr q, num_srcptr qr,
              num_srcptr beta, num_ptr c, num_ptr value, num_ptr t)
{
  size_t n = o->n;
  num_ptr h = AT (t, 0), u = AT (t, 1), s = AT (t, 2);
  num_set_zero (value);
  switch (objective)
    {
    case RLREF_LM_OBJ_REWARD:
    case RLREF_LM_OBJ_KL:
    case RLREF_LM_OBJ_RLHF:
      /* f(y), its mean, c = q (f - mean) */
      for (size_t i = 0; i < n; i++)
        {
          num_sub (h, AT (o->lp, i), AT (o->lpref, i));
          if (objective == RLREF_LM_OBJ_REWARD)
            num_set (AT (c, i), AT (o->r, i));
          else if (objective == RLREF_LM_OBJ_KL)
            num_set (AT (c, i), h);
          else
            {
              num_mul (u, beta, h);
              num_sub (AT (c, i), AT (o->r, i), u);
            }
          if (num_is_zero (AT (q, i)))
            continue;
          num_mul (u, AT (q, i), AT (c, i));
          num_add (value, value, u);
        }
      for (size_t i = 0; i < n; i++)
        {
          num_sub (AT (c, i), AT (c, i), value);
          num_mul (AT (c, i), AT (c, i), AT (q, i));
        }
      return RLREF_SUCCESS;
    case RLREF_LM_OBJ_KL_REVERSE:
      /* KL(q_ref || q) = sum q_ref (log q_ref - log q); c = q - q_ref */
      for (size_t i = 0; i < n; i++)
        {
          num_sub (AT (c, i), AT (q, i), AT (qr, i));
          if (num_is_zero (AT (qr, i)))
            continue;
          num_sub (h, AT (o->lpref, i), AT (o->lp, i));
          num_mul (h, h, AT (qr, i));
          num_add (value, value, h);
        }
      return RLREF_SUCCESS;
    case RLREF_LM_OBJ_DPO:
    case RLREF_LM_OBJ_IPO:
      for (size_t i = 0; i < n; i++)
        num_set_zero (AT (c, i));
      for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
          {
            num_ptr w = AT (t, 3), z = AT (t, 4), l = AT (t, 5), dl = AT (t, 6);
            int status;
            if (i == j || num_is_zero (AT (qr, i)) || num_is_zero (AT (qr, j)))
              continue;
            /* w = q_ref(i) q_ref(j) sigma(r_i - r_j); z = h_i - h_j */
            num_sub (w, AT (o->r, i), AT (o->r, j));
            status = FN (sigmoid) (w, w);
            if (status)
              return status;
            num_mul (w, w, AT (qr, i));
            num_mul (w, w, AT (qr, j));
            num_sub (z, AT (o->lp, i), AT (o->lpref, i));
            num_sub (s, AT (o->lp, j), AT (o->lpref, j));
            num_sub (z, z, s);
            if (objective == RLREF_LM_OBJ_DPO)
              {
                /* l = -log sigma(beta z) = softplus(-beta z); l' = -beta sigma(-beta z) */
                num_mul (u, beta, z);
                num_neg (u, u);
                status = FN (softplus) (l, u);
                if (status == RLREF_SUCCESS)
                  status = FN (sigmoid) (dl, u);
                if (status)
                  return status;
                num_mul (dl, dl, beta);
                num_neg (dl, dl);
              }
            else
              {
                /* l = (z - 1/(2 beta))^2; l' = 2 (z - 1/(2 beta)) */
                num_d_div (u, 0.5, beta);
                num_sub (u, z, u);
                num_sqr (l, u);
                num_mul_2si (dl, u, 1);
              }
            num_mul (l, l, w);
            num_add (value, value, l);
            num_mul (dl, dl, w);
            num_add (AT (c, i), AT (c, i), dl);
            num_sub (AT (c, j), AT (c, j), dl);
          }
      if (lm->truncation == RLREF_LM_CONDITION)
        {
          /* c - q sum c (grad log q = grad log pi - E_q grad log pi) */
          num_set_zero (s);
          for (size_t i = 0; i < n; i++)
            num_add (s, s, AT (c, i));
          for (size_t i = 0; i < n; i++)
            {
              num_mul (u, AT (q, i), s);
              num_sub (AT (c, i), AT (c, i), u);
            }
        }
      return RLREF_SUCCESS;
    case RLREF_LM_OBJ_K1:
    case RLREF_LM_OBJ_K2:
    case RLREF_LM_OBJ_K3:
      for (size_t i = 0; i < n; i++)
        {
          num_sub (h, AT (o->lp, i), AT (o->lpref, i));
          if (objective == RLREF_LM_OBJ_K1)
            {
              num_set (u, h);
              num_set (AT (c, i), AT (q, i));
            }
          else if (objective == RLREF_LM_OBJ_K2)
            {
              num_sqr (u, h);
              num_mul_2si (u, u, -1);
              num_mul (AT (c, i), AT (q, i), h);
            }
          else
            {
              /* k3 = expm1(-h) + h, stable near h = 0; k3' = 1 - e^-h = -expm1(-h) */
              num_neg (s, h);
              num_expm1 (s, s);
              num_add (u, s, h);
              num_neg (s, s);
              num_mul (AT (c, i), AT (q, i), s);
            }
          if (num_is_zero (AT (q, i)))
            {
              num_set_zero (AT (c, i));
              continue;
            }
          num_mul (u, u, AT (q, i));
          num_add (value, value, u);
        }
      /* c - q sum c: grad log q = grad log pi - E_q grad log pi */
      num_set_zero (s);
      for (size_t i = 0; i < n; i++)
        num_add (s, s, AT (c, i));
      for (size_t i = 0; i < n; i++)
        {
          num_mul (u, AT (q, i), s);
          num_sub (AT (c, i), AT (c, i), u);
        }
      return RLREF_SUCCESS;
    default:
      RLREF_ERROR ("unknown objective", RLREF_EINVAL);
    }
}

int
FN (lm_objective) (num_ptr value, num_ptr grad, const rlref_lm *lm, num_srcptr logits,
                   num_srcptr ref_logits, num_srcptr reward, num_srcptr beta, int objective)
{
  outcomes o = { 0, NULL, NULL, NULL, NULL };
  num_ptr q = NULL, qr = NULL, c = NULL, t = NULL, val;
  size_t nl;
  double n;
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  nl = lm->n_rows * (size_t) lm->V;
  for (size_t k = 0; k < nl; k++)
    if (!num_is_finite (AT (logits, k)) || !num_is_finite (AT (ref_logits, k)))
      RLREF_ERROR ("a logit is not finite", RLREF_ENAN);
  if (lm->reward == RLREF_REWARD_TABLE)
    RLREF_ERROR ("the gradients take an additive reward (or none)", RLREF_EINVAL);
  for (int k = 0; lm->reward == RLREF_REWARD_ADDITIVE && k < lm->V + 2; k++)
    if (!num_is_finite (AT (reward, k)))
      RLREF_ERROR ("a reward term is not finite", RLREF_ENAN);
  if (!num_is_finite (beta) || num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be finite and positive", RLREF_EDOM);
  n = rlref_lm_num_sequences (lm);
  if (n > 1e6 || ((objective == RLREF_LM_OBJ_DPO || objective == RLREF_LM_OBJ_IPO) && n > 4096))
    RLREF_ERROR ("too many sequences for exact gradients (1e6; 4096 for the pairwise DPO and "
                 "IPO losses)", RLREF_EINVAL);
  /* every sequence is walked (cut ones too: they carry c = 0 when conditioned away) */
  n = rlref_lm_num_sequences (&(rlref_lm) { .V = lm->V, .eos = lm->eos, .T = lm->T,
                                            .truncation = RLREF_LM_KEEP });
  o.n = (size_t) n;
  o.lp = num_vec_new (o.n);
  o.lpref = num_vec_new (o.n);
  o.r = num_vec_new (o.n);
  o.cut = calloc (o.n ? o.n : 1, 1);
  q = num_vec_new (o.n);
  qr = num_vec_new (o.n);
  c = num_vec_new (o.n);
  t = num_vec_new (8);
  if (!o.lp || !o.lpref || !o.r || !o.cut || !q || !qr || !c || !t)
    status = RLREF_ENOMEM;
  if (status == RLREF_SUCCESS)
    {
      /* the walk records every sequence, kept or not */
      rlref_lm all = *lm;
      all.truncation = RLREF_LM_KEEP;
      status = walk (&all, logits, ref_logits, reward, &o, NULL, NULL);
    }
  if (status == RLREF_SUCCESS)
    {
      distributions (lm, &o, q, qr, t);
      val = AT (t, 7);
      status = coefficients (lm, objective, &o, q, qr, beta, c, val, t);
      if (status == RLREF_SUCCESS && grad)
        {
          /* into a temporary: grad may be the very storage of the logits */
          rlref_lm all = *lm;
          num_ptr g = num_vec_new (nl);
          all.truncation = RLREF_LM_KEEP;
          status = g ? walk (&all, logits, ref_logits, reward, &o, c, g) : RLREF_ENOMEM;
          for (size_t k = 0; status == RLREF_SUCCESS && k < nl; k++)
            num_set (AT (grad, k), AT (g, k));
          num_vec_free (g, nl);
        }
      if (status == RLREF_SUCCESS)
        num_set (value, val);
      /* a reward near the end of the range overflows a sum: say so, never NaN */
      for (size_t k = 0; status == RLREF_SUCCESS && grad && k < nl; k++)
        if (!num_is_finite (AT (grad, k)))
          status = RLREF_ERANGE;
      if (status == RLREF_SUCCESS && !num_is_finite (value))
        status = RLREF_ERANGE;
      if (status == RLREF_ERANGE)
        rlref_error ("the objective or its gradient leaves the range of the format",
                     __FILE__, __LINE__, status);
    }
  outcomes_free (&o);
  num_vec_free (q, o.n);
  num_vec_free (qr, o.n);
  num_vec_free (c, o.n);
  num_vec_free (t, 8);
  return status;
}
#else
/* binary64: the MPFR program above, each output rounded to binary64 once
 * (round_once.h).  The subtree sums C(s a) - pi(a | s) C(s) and the
 * centred coefficients q (f - E_q f) cancel by far more than binary64
 * holds: huge logits or rewards leave an O(1) gradient below the rounding
 * of its terms. */
#include "round_once.h"

typedef struct
{
  const rlref_lm *lm;
  size_t nl, nr;
  int grad, objective;
} objective_program;

/* x = (logits, ref_logits, reward, beta); y = (value, grad). */
static int
objective_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const objective_program *o = ctx;
  return rlref_lm_objective_mp (y, o->grad ? y + 1 : NULL, o->lm, x, x + o->nl,
                                o->nr ? x + 2 * o->nl : NULL, x + 2 * o->nl + o->nr,
                                o->objective);
}

int
FN (lm_objective) (num_ptr value, num_ptr grad, const rlref_lm *lm, num_srcptr logits,
                   num_srcptr ref_logits, num_srcptr reward, num_srcptr beta, int objective)
{
  objective_program o = { lm, 0, 0, grad != NULL, objective };
  size_t nx, ny;
  double *xd;
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  o.nl = lm->n_rows * (size_t) lm->V;
  o.nr = lm->reward == RLREF_REWARD_ADDITIVE && reward ? (size_t) lm->V + 2 : 0;
  nx = 2 * o.nl + o.nr + 1;
  ny = 1 + (grad ? o.nl : 0);
  xd = malloc ((nx + ny) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, logits, o.nl * sizeof *xd);
  memcpy (xd + o.nl, ref_logits, o.nl * sizeof *xd);
  if (o.nr)
    memcpy (xd + 2 * o.nl, reward, o.nr * sizeof *xd);
  xd[nx - 1] = beta[0];
  status = rlref_round_once (xd + nx, ny, xd, nx, objective_mp, &o,
                             "the objective or its gradient");
  if (status == RLREF_SUCCESS)
    {
      value[0] = xd[nx];
      if (grad)
        memcpy (grad, xd + nx + 1, o.nl * sizeof *grad);
    }
  free (xd);
  return status;
}
#endif
