/* ppo_klsum.c -- the per-token KL penalty summed over a sequence is the
 * sequence's log-ratio, and its expectation the sequence KL (PPO-KLSUM;
 * seed 000 (13.9), (13.10)), exactly on the tiny LM (rlref/lm.h): every
 * sequence is enumerated, its per-token log-ratios summed, and the
 * expectation set against the library's own sequence-level KL and RLHF
 * objective (rlref_lm_objective).  Written once for both backends. */
#include "rlref/num.h"
#include "rlref/lm.h"
#include "rlref/ppo.h"
#include "ppo_common.h"

#ifdef RLREF_MP

/* What the enumeration's visitor accumulates. */
typedef struct
{
  const rlref_lm *lm;
  num_srcptr logits, ref_logits, beta;
  num_ptr tok_p, tok_q;         /* T per-token log-probabilities */
  num_ptr h_terms, r_terms;     /* one per sequence */
  size_t k, cap;
  num_ptr lp, lq, h, w, t;      /* scalars */
  int status;
} klsum_ctx;

/* For one sequence y (log pi(y) = logp from the enumeration, reward r):
 * h = sum_t [log pi(y_t | s_t) - log pi_ref(y_t | s_t)] by the chain rule
 * (13.1) of each model, and the terms pi(y) h and pi(y) (r - beta h) of
 * E[sum_t l_t] and E[sum_t r_t] (13.9, 13.10). */
static void
visit (void *vc, const int *y, int L, int cut, num_srcptr logp, num_srcptr r,
       num_srcptr logp_star)
{
  klsum_ctx *c = vc;
  (void) cut;
  (void) logp_star;
  if (c->status)
    return;
  if (c->k >= c->cap)
    {
      c->status = RLREF_EINVAL;
      rlref_error ("more sequences than counted", __FILE__, __LINE__, c->status);
      return;
    }
  c->status = FN (lm_logprob) (c->lp, c->tok_p, c->lm, c->logits, y, L);
  if (c->status == RLREF_SUCCESS)
    c->status = FN (lm_logprob) (c->lq, c->tok_q, c->lm, c->ref_logits, y, L);
  if (c->status)
    return;
  num_set_zero (c->h);
  for (int t = 0; t < L; t++)
    {
      num_sub (c->t, AT (c->tok_p, t), AT (c->tok_q, t));
      num_add (c->h, c->h, c->t);
    }
  num_exp (c->w, logp);
  num_mul (AT (c->h_terms, c->k), c->w, c->h);
  num_mul (c->t, c->beta, c->h);
  num_sub (c->t, r, c->t);
  num_mul (AT (c->r_terms, c->k), c->w, c->t);
  c->k++;
}

/* r(y) = sum_t token[y_t] + per_length L + truncated [cut] (rlref/lm.h),
 * each term added once rounded. */
static void
additive_reward (num_ptr r, const rlref_lm *lm, num_srcptr reward, const int *y, int L,
                 num_ptr t)
{
  num_set_zero (r);
  for (int i = 0; i < L; i++)
    num_add (r, r, AT (reward, y[i]));
  num_mul_si (t, AT (reward, lm->V), L);
  num_add (r, r, t);
  if (L == lm->T && y[L - 1] != lm->eos)
    num_add (r, r, AT (reward, lm->V + 1));
}

/* PPO-KLSUM (000 13.10: -beta E_y[log pi(y|x)/pi_ref(y|x)] = -beta E_y[sum_t
 * log pi(y_t|x,y<t)/pi_ref(y_t|x,y<t)], by the chain rule log pi(y|x) =
 * sum_t log pi(y_t|x,y<t)).  The left side is rlref_lm_objective's
 * KL(pi || pi_ref); the right side the enumeration here. */
int
FN (ppo_klsum) (num_ptr token_log_ratio, num_ptr seq_log_ratio, num_ptr token_rewards,
                num_ptr kl_tokens, num_ptr kl, num_ptr return_tokens, num_ptr rlhf,
                const rlref_lm *lm, num_srcptr logits, num_srcptr ref_logits, num_srcptr reward,
                num_srcptr beta, const int *y, int L)
{
  enum { LP, LQ, H, W, T, B, KLT, KL, RET, RLHF, RY, YP, YQ, NS };
  klsum_ctx c = { 0 };
  num_ptr s = NULL, m = NULL, yp = NULL, yq = NULL;
  double count;
  int status, Tm = 0;
  if (!token_log_ratio || !seq_log_ratio || !token_rewards || !kl_tokens || !kl
      || !return_tokens || !rlhf || !lm || !y)
    RLREF_ERROR ("an argument is missing", RLREF_EINVAL);
  status = rlref_lm_check (lm);
  if (status)
    return status;
  if (lm->truncation != RLREF_LM_KEEP || lm->reward != RLREF_REWARD_ADDITIVE)
    RLREF_ERROR ("13.10 needs every sequence counted (cut ones kept) and an additive reward",
                 RLREF_EINVAL);
  THEN (ppo_check_array (logits, lm->n_rows * (size_t) lm->V, "logits must be finite"));
  THEN (ppo_check_array (ref_logits, lm->n_rows * (size_t) lm->V,
                        "ref_logits must be finite"));
  THEN (ppo_check_array (reward, (size_t) lm->V + 2, "the reward terms must be finite"));
  THEN (ppo_check_above (beta, 0.0, 1, "beta must be finite and > 0"));
  if (status)
    return status;
  count = rlref_lm_num_sequences (lm);
  if (count > 1e6)
    RLREF_ERROR ("more than 1e6 sequences", RLREF_EINVAL);
  Tm = lm->T;
  s = num_vec_new (NS);
  m = num_vec_new (RLREF_LM_NMOMENTS);
  yp = num_vec_new ((size_t) Tm);
  yq = num_vec_new ((size_t) Tm);
  c.tok_p = num_vec_new ((size_t) Tm);
  c.tok_q = num_vec_new ((size_t) Tm);
  c.cap = (size_t) count;
  c.h_terms = num_vec_new (c.cap);
  c.r_terms = num_vec_new (c.cap);
  if (!s || !m || !yp || !yq || !c.tok_p || !c.tok_q || !c.h_terms || !c.r_terms)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set (AT (s, B), beta);
  c.lm = lm;
  c.logits = logits;
  c.ref_logits = ref_logits;
  c.beta = AT (s, B);
  c.lp = AT (s, LP);
  c.lq = AT (s, LQ);
  c.h = AT (s, H);
  c.w = AT (s, W);
  c.t = AT (s, T);
  /* the given sequence: its per-token log-ratios and rewards (13.9) */
  status = FN (lm_logprob) (AT (s, YP), yp, lm, logits, y, L);
  THEN (FN (lm_logprob) (AT (s, YQ), yq, lm, ref_logits, y, L));
  if (status)
    goto done;
  additive_reward (AT (s, RY), lm, reward, y, L, AT (s, T));
  /* the right side of 13.10: every sequence of pi, enumerated */
  status = FN (lm_moments) (m, lm, logits, reward, AT (s, B), 1u << RLREF_LM_TOTAL, visit, &c);
  if (status == RLREF_SUCCESS)
    status = c.status;
  if (status == RLREF_SUCCESS && c.k != c.cap)
    FAIL ("fewer sequences than counted", RLREF_EINVAL);
  THEN (num_sum (AT (s, KLT), c.h_terms, c.k));
  THEN (num_sum (AT (s, RET), c.r_terms, c.k));
  /* the left side: the library's sequence-level KL and RLHF objective */
  THEN (FN (lm_objective) (AT (s, KL), NULL, lm, logits, ref_logits, reward, AT (s, B),
                          RLREF_LM_OBJ_KL));
  THEN (FN (lm_objective) (AT (s, RLHF), NULL, lm, logits, ref_logits, reward, AT (s, B),
                          RLREF_LM_OBJ_RLHF));
  if (status)
    goto done;
  /* every input has been read: outputs may now be written */
  for (int t = 0; t < L; t++)
    {
      num_sub (AT (yp, t), AT (yp, t), AT (yq, t));
      num_mul (AT (s, T), AT (s, B), AT (yp, t));
      num_neg (AT (s, T), AT (s, T));
      if (t == L - 1)
        num_add (AT (s, T), AT (s, T), AT (s, RY));
      if (num_is_zero (AT (yp, t)))
        num_set_zero (AT (yp, t));
      if (num_is_zero (AT (s, T)))
        num_set_zero (AT (s, T));
      num_set (AT (token_log_ratio, t), AT (yp, t));
      num_set (AT (token_rewards, t), AT (s, T));
    }
  num_sub (seq_log_ratio, AT (s, YP), AT (s, YQ));
  if (num_is_zero (seq_log_ratio))
    num_set_zero (seq_log_ratio);
  num_set (kl_tokens, AT (s, KLT));
  num_set (kl, AT (s, KL));
  num_set (return_tokens, AT (s, RET));
  num_set (rlhf, AT (s, RLHF));
done:
  num_vec_free (s, NS);
  num_vec_free (m, RLREF_LM_NMOMENTS);
  num_vec_free (yp, (size_t) Tm);
  num_vec_free (yq, (size_t) Tm);
  num_vec_free (c.tok_p, (size_t) Tm);
  num_vec_free (c.tok_q, (size_t) Tm);
  num_vec_free (c.h_terms, c.cap);
  num_vec_free (c.r_terms, c.cap);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  E[sum_t l_t] sums pi(y) h(y) over every sequence, and
 * those terms cancel when pi is close to pi_ref (the KL is second order in
 * their difference, each term first order). */
#include <stdlib.h>
#include <string.h>
#include "round_once.h"

typedef struct
{
  const rlref_lm *lm;
  size_t nl;
  const int *y;
  int L;
} klsum_program;

/* x = (logits, ref_logits, reward, beta); y = (token_log_ratio,
 * seq_log_ratio, token_rewards, kl_tokens, kl, return_tokens, rlhf). */
static int
klsum_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const klsum_program *o = ctx;
  size_t L = o->L > 0 ? (size_t) o->L : 0;
  return rlref_ppo_klsum_mp (y, y + L, y + L + 1, y + 2 * L + 1, y + 2 * L + 2, y + 2 * L + 3,
                             y + 2 * L + 4, o->lm, x, x + o->nl, x + 2 * o->nl,
                             x + 2 * o->nl + (size_t) o->lm->V + 2, o->y, o->L);
}

int
FN (ppo_klsum) (num_ptr token_log_ratio, num_ptr seq_log_ratio, num_ptr token_rewards,
                num_ptr kl_tokens, num_ptr kl, num_ptr return_tokens, num_ptr rlhf,
                const rlref_lm *lm, num_srcptr logits, num_srcptr ref_logits, num_srcptr reward,
                num_srcptr beta, const int *y, int L)
{
  klsum_program o = { lm, 0, y, L };
  size_t nx, ny, nr, n;
  double *xd, *yd;
  int status;
  if (!token_log_ratio || !seq_log_ratio || !token_rewards || !kl_tokens || !kl
      || !return_tokens || !rlhf || !lm || !y || !logits || !ref_logits || !reward || !beta)
    RLREF_ERROR ("an argument is missing", RLREF_EINVAL);
  status = rlref_lm_check (lm);
  if (status)
    return status;
  o.nl = lm->n_rows * (size_t) lm->V;
  nr = (size_t) lm->V + 2;
  n = L > 0 ? (size_t) L : 0;   /* the program refuses a length out of 1..T */
  nx = 2 * o.nl + nr + 1;
  ny = 2 * n + 5;
  xd = malloc ((nx + ny) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  yd = xd + nx;
  memcpy (xd, logits, o.nl * sizeof *xd);
  memcpy (xd + o.nl, ref_logits, o.nl * sizeof *xd);
  memcpy (xd + 2 * o.nl, reward, nr * sizeof *xd);
  xd[nx - 1] = beta[0];
  status = rlref_round_once (yd, ny, xd, nx, klsum_mp, &o,
                             "the sequence's log-ratios, token rewards and KL sums");
  if (status == RLREF_SUCCESS)
    {
      memcpy (token_log_ratio, yd, n * sizeof *yd);
      seq_log_ratio[0] = yd[n];
      memcpy (token_rewards, yd + n + 1, n * sizeof *yd);
      kl_tokens[0] = yd[2 * n + 1];
      kl[0] = yd[2 * n + 2];
      return_tokens[0] = yd[2 * n + 3];
      rlhf[0] = yd[2 * n + 4];
    }
  free (xd);
  return status;
}
#endif
