/* mdp_lm.c -- the token MDP of a tabular tiny LM (seed 000 section 1.1:
 * state = prefix, action = token, deterministic transitions, gamma = 1):
 * REINFORCE against the exact gradient (MDP-PG, 13.2-13.4) and the soft
 * Bellman recursion whose token-level policy is the sequence-level pi* of
 * 13.17 (MDP-SOFT), written once for both backends.
 *
 * The model is tabular with an additive reward and cut sequences kept
 * (rlref/lm.h): the step reward of token a after a prefix of length t is
 * token[a] + per_length, plus truncated when a cuts the sequence
 * (a != EOS, t + 1 = T), so that r(y) = sum_t of them. */
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/mdp.h"
#include "mdp_impl.h"

/* Enumeration work (sequences times logits) at most. */
#define TOKEN_MAX_WORK 2e7

/* Checks the tabular model with an additive reward, cut sequences kept. */
static int
token_check (const rlref_lm *lm, num_srcptr logits, num_srcptr reward)
{
  int status;
  if (!lm || !logits || !reward)
    RLREF_ERROR ("no model", RLREF_EINVAL);
  if (lm->kind != RLREF_LM_TABULAR || lm->truncation != RLREF_LM_KEEP
      || lm->reward != RLREF_REWARD_ADDITIVE)
    RLREF_ERROR ("the token MDP needs a tabular model, an additive reward and cut sequences "
                 "kept", RLREF_EINVAL);
  if ((status = rlref_lm_check (lm)) != RLREF_SUCCESS)
    return status;
  for (size_t i = 0; i < lm->n_rows * (size_t) lm->V; i++)
    if (!num_is_finite (AT (logits, i)))
      RLREF_ERROR ("non-finite logit", RLREF_ENAN);
  for (int i = 0; i < lm->V + 2; i++)
    if (!num_is_finite (AT (reward, i)))
      RLREF_ERROR ("non-finite reward", RLREF_ENAN);
  return RLREF_SUCCESS;
}

/* The step reward of token a after a prefix of length t. */
static void
step_reward (num_ptr x, const rlref_lm *lm, num_srcptr reward, int t, int a)
{
  num_add (x, AT (reward, a), AT (reward, lm->V));
  if (a != lm->eos && t + 1 == lm->T)
    num_add (x, x, AT (reward, lm->V + 1));
}

/* 1 when token a after a prefix of length t ends the sequence. */
static int
ends (const rlref_lm *lm, int t, int a)
{
  return a == lm->eos || t + 1 == lm->T;
}

/* Hi + lo += t (Neumaier), w three scalars of scratch. */
static void
acc_add (num_ptr hi, num_ptr lo, num_srcptr t, num_ptr w)
{
  num_ptr s = w, e = AT (w, 1), a = AT (w, 2);
  num_add (s, hi, t);
  num_abs (a, hi);
  num_abs (e, t);
  if (num_cmp (a, e) >= 0)
    {
      num_sub (e, hi, s);
      num_add (e, e, t);
    }
  else
    {
      num_sub (e, t, s);
      num_add (e, e, hi);
    }
  num_add (lo, lo, e);
  num_set (hi, s);
}

/* What the walks over the prefix tree carry. */
struct tree
{
  const rlref_lm *lm;
  num_srcptr logits, reward, beta;
  int y[RLREF_LM_MAX_T];        /* the current prefix */
  size_t rows[RLREF_LM_MAX_T];  /* its rows */
  num_ptr lsm;                  /* T x V: log pi(. | prefix of length t) */
  num_ptr val;                  /* n_rows: V(prefix), or the soft value */
  num_ptr out;                  /* n_rows x V: log pi* (soft) */
  num_ptr prob;                 /* T + 1 prefix probabilities */
  num_ptr t;                    /* scratch, 8 + V */
  /* REINFORCE */
  rlref_pg_estimator est;
  int pass;
  num_ptr hi, lo, mean, vec, c;
  int status;
};

/* log pi(. | y_1..y_t) into lsm row t; the prefix's row into rows[t]. */
static int
row_lsm (struct tree *w, int t)
{
  int V = w->lm->V;
  w->rows[t] = rlref_lm_prefix_index (V, w->lm->eos, w->y, t);
  return FN (log_softmax) (AT (w->lsm, (size_t) t * V), AT (w->logits, w->rows[t] * V),
                           (size_t) V);
}

/* V(prefix) = sum_a pi(a|s) [r(s, a) + V(s a)] (0 after the end), stored
 * in val[row]; returned in v. */
static void
values (struct tree *w, int t, num_ptr v)
{
  int V = w->lm->V;
  num_t q, p;
  num_init (q);
  num_init (p);
  num_set_zero (v);
  if (w->status == RLREF_SUCCESS)
    w->status = row_lsm (w, t);
  for (int a = 0; a < V && w->status == RLREF_SUCCESS; a++)
    {
      step_reward (q, w->lm, w->reward, t, a);
      if (!ends (w->lm, t, a))
        {
          num_t sub;
          num_init (sub);
          w->y[t] = a;
          values (w, t + 1, sub);
          num_add (q, q, sub);
          num_clear (sub);
          /* the deeper call overwrote lsm rows > t only */
        }
      num_exp (p, AT (w->lsm, (size_t) t * V + a));
      num_fma (v, p, q, v);
    }
  num_set (AT (w->val, w->rows[t]), v);
  num_clear (q);
  num_clear (p);
}

/* One sequence y_1..y_L of probability p: its estimate g = sum_t c_t
 * (e_{y_t} - pi(.|s_t)) on the rows of its prefixes; pass 0 adds p g to
 * hi + lo, pass 1 adds p |g - mean|^2 (dense) to hi[0] + lo[0]. */
static void
token_leaf (struct tree *w, int L, num_srcptr p)
{
  const rlref_lm *lm = w->lm;
  int V = lm->V;
  size_t n = lm->n_rows * (size_t) V;
  num_ptr x = w->t, s = AT (w->t, 1), acc = AT (w->t, 4);
  /* G_t = sum_{k >= t} r_k backwards, then c_t */
  num_set_zero (s);
  for (int k = L; k-- > 0;)
    {
      step_reward (x, lm, w->reward, k, w->y[k]);
      num_add (s, s, x);
      num_set (AT (w->c, k), s);
    }
  for (int k = 0; k < L; k++)
    {
      if (w->est == RLREF_PG_FULL)
        num_set (AT (w->c, k), w->c);
      else if (w->est == RLREF_PG_BASELINE)
        num_sub (AT (w->c, k), AT (w->c, k), AT (w->val, w->rows[k]));
    }
  if (w->pass == 0)
    for (int k = 0; k < L; k++)
      for (int b = 0; b < V; b++)
        {
          size_t i = w->rows[k] * V + b;
          num_exp (x, AT (w->lsm, (size_t) k * V + b));
          num_neg (x, x);
          if (b == w->y[k])
            num_add_d (x, x, 1.0);
          num_mul (x, x, AT (w->c, k));
          num_mul (x, x, p);
          acc_add (AT (w->hi, i), AT (w->lo, i), x, AT (w->t, 5));
        }
  else
    {
      for (size_t i = 0; i < n; i++)
        num_neg (AT (w->vec, i), AT (w->mean, i));
      for (int k = 0; k < L; k++)
        for (int b = 0; b < V; b++)
          {
            size_t i = w->rows[k] * V + b;
            num_exp (x, AT (w->lsm, (size_t) k * V + b));
            num_neg (x, x);
            if (b == w->y[k])
              num_add_d (x, x, 1.0);
            num_fma (AT (w->vec, i), x, AT (w->c, k), AT (w->vec, i));
          }
      num_set_zero (acc);
      for (size_t i = 0; i < n; i++)
        num_fma (acc, AT (w->vec, i), AT (w->vec, i), acc);
      num_mul (acc, acc, p);
      acc_add (w->hi, w->lo, acc, AT (w->t, 5));
    }
}

/* Every sequence below the prefix of length t (probability prob[t]). */
static void
token_walk (struct tree *w, int t)
{
  int V = w->lm->V;
  if (w->status == RLREF_SUCCESS)
    w->status = row_lsm (w, t);
  for (int a = 0; a < V && w->status == RLREF_SUCCESS; a++)
    {
      num_exp (AT (w->prob, t + 1), AT (w->lsm, (size_t) t * V + a));
      num_mul (AT (w->prob, t + 1), AT (w->prob, t + 1), AT (w->prob, t));
      w->y[t] = a;
      if (ends (w->lm, t, a))
        token_leaf (w, t + 1, AT (w->prob, t + 1));
      else
        token_walk (w, t + 1);
    }
}

/* MDP-PG on the token MDP (000 13.2-13.4, gamma = 1): the exact
 * expectation grad = E g over every sequence of the REINFORCE estimator
 * g = sum_t c_t grad log pi(y_t|s_t) (c_t: FULL r(y), TO_GO the reward to
 * go, BASELINE the reward to go minus V(s_t), the exact value of the
 * prefix), with respect to the logits (n_rows x V), and var = E |g - E g|^2. */
int
FN (mdp_token_reinforce) (num_ptr grad, num_ptr var, const rlref_lm *lm, num_srcptr logits,
                          num_srcptr reward, rlref_pg_estimator est)
{
  struct tree w = { 0 };
  size_t n, T;
  int status;
  if ((status = token_check (lm, logits, reward)) != RLREF_SUCCESS)
    return status;
  if (est != RLREF_PG_FULL && est != RLREF_PG_TO_GO && est != RLREF_PG_BASELINE)
    RLREF_ERROR ("the token MDP has gamma = 1: full, to-go or baseline", RLREF_EINVAL);
  n = lm->n_rows * (size_t) lm->V;
  T = (size_t) lm->T;
  if (rlref_lm_num_sequences (lm) * (double) n > TOKEN_MAX_WORK)
    RLREF_ERROR ("too many sequences times logits to enumerate", RLREF_EINVAL);
  w = (struct tree) { .lm = lm, .logits = logits, .reward = reward, .est = est };
  w.lsm = num_vec_new (T * (size_t) lm->V);
  w.val = num_vec_new (lm->n_rows);
  w.prob = num_vec_new (T + 1);
  w.t = num_vec_new (8);
  w.hi = num_vec_new (n);
  w.lo = num_vec_new (n);
  w.mean = num_vec_new (n);
  w.vec = num_vec_new (n);
  w.c = num_vec_new (T);
  if (!w.lsm || !w.val || !w.prob || !w.t || !w.hi || !w.lo || !w.mean || !w.vec || !w.c)
    FAIL ("out of memory", RLREF_ENOMEM);
  if (est == RLREF_PG_BASELINE)
    {
      values (&w, 0, AT (w.t, 7));
      TRY (w.status);
    }
  for (w.pass = 0; w.pass < 2; w.pass++)
    {
      for (size_t i = 0; i < n; i++)
        {
          num_set_zero (AT (w.hi, i));
          num_set_zero (AT (w.lo, i));
        }
      num_set_d (w.prob, 1.0);
      token_walk (&w, 0);
      TRY (w.status);
      if (w.pass == 0)
        for (size_t i = 0; i < n; i++)
          num_add (AT (w.mean, i), AT (w.hi, i), AT (w.lo, i));
    }
  num_add (AT (w.t, 0), w.hi, w.lo);
  TRY (mdp_range_check (w.t, 1));
  TRY (mdp_range_check (w.mean, n));
  num_set (var, AT (w.t, 0));
  for (size_t i = 0; i < n; i++)
    num_set (AT (grad, i), AT (w.mean, i));
done:
  num_vec_free (w.lsm, T * (size_t) lm->V);
  num_vec_free (w.val, lm->n_rows);
  num_vec_free (w.prob, T + 1);
  num_vec_free (w.t, 8);
  num_vec_free (w.hi, n);
  num_vec_free (w.lo, n);
  num_vec_free (w.mean, n);
  num_vec_free (w.vec, n);
  num_vec_free (w.c, T);
  return status;
}

/* The soft value of the prefix of length t (000 §4 on the token MDP):
 * Q(s, a) = r(s, a) + V(s a) (0 after the end),
 * V(s) = beta log sum_a pi_ref(a|s) e^{Q(s, a)/beta}
 *      = beta logsumexp_a (log pi_ref(a|s) + Q(s, a)/beta),
 * log pi*(a|s) = log pi_ref(a|s) + (Q(s, a) - V(s))/beta into out[row],
 * the log-softmax of x_a = log pi_ref(a|s) + Q(s, a)/beta. */
static void
soft_value (struct tree *w, int t, num_ptr v)
{
  int V = w->lm->V;
  num_ptr q = num_vec_new ((size_t) V), x = num_vec_new ((size_t) V);
  if (!q || !x)
    {
      w->status = RLREF_ENOMEM;
      rlref_error ("out of memory", __FILE__, __LINE__, w->status);
    }
  if (w->status == RLREF_SUCCESS)
    w->status = row_lsm (w, t);
  for (int a = 0; a < V && w->status == RLREF_SUCCESS; a++)
    {
      step_reward (AT (q, a), w->lm, w->reward, t, a);
      if (!ends (w->lm, t, a))
        {
          num_t sub;
          num_init (sub);
          w->y[t] = a;
          soft_value (w, t + 1, sub);
          num_add (AT (q, a), AT (q, a), sub);
          num_clear (sub);
        }
    }
  for (int a = 0; a < V && w->status == RLREF_SUCCESS; a++)
    {
      num_div (AT (x, a), AT (q, a), w->beta);
      num_add (AT (x, a), AT (x, a), AT (w->lsm, (size_t) t * V + a));
    }
  if (w->status == RLREF_SUCCESS)
    w->status = FN (logsumexp) (v, x, (size_t) V);
  /* log pi* = x_a - lse(x), the log-softmax of x (accurate also for the
     dominant action, whose log-probability is a tiny negative number) */
  if (w->status == RLREF_SUCCESS)
    w->status = FN (log_softmax) (AT (w->out, w->rows[t] * V), x, (size_t) V);
  if (w->status == RLREF_SUCCESS)
    num_mul (v, v, w->beta);
  num_vec_free (q, (size_t) V);
  num_vec_free (x, (size_t) V);
}

/* MDP-SOFT: the soft Bellman recursion on the token MDP of a tabular
 * tiny LM (ref_logits the reference policy, additive reward, cut kept):
 * v_root = V(empty prefix) and logp_star[n_rows V] = log pi*(a|s) for
 * every prefix s.  The token-level policy equals the sequence-level
 * pi* = pi_ref e^{r/beta}/Z of 13.17 and v_root = beta log Z (13.15). */
int
FN (mdp_soft_bellman) (num_ptr v_root, num_ptr logp_star, const rlref_lm *lm,
                       num_srcptr ref_logits, num_srcptr reward, num_srcptr beta)
{
  struct tree w = { 0 };
  size_t n, T;
  num_t v;
  int status;
  if ((status = token_check (lm, ref_logits, reward)) != RLREF_SUCCESS)
    return status;
  if (!num_is_finite (beta))
    RLREF_ERROR ("non-finite beta", RLREF_ENAN);
  if (num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be > 0", RLREF_EDOM);
  n = lm->n_rows * (size_t) lm->V;
  T = (size_t) lm->T;
  w = (struct tree) { .lm = lm, .logits = ref_logits, .reward = reward, .beta = beta };
  num_init (v);
  w.lsm = num_vec_new (T * (size_t) lm->V);
  w.out = num_vec_new (n);
  if (!w.lsm || !w.out)
    FAIL ("out of memory", RLREF_ENOMEM);
  soft_value (&w, 0, v);
  TRY (w.status);
  TRY (mdp_range_check (v, 1));
  TRY (mdp_range_check (w.out, n));
  num_set (v_root, v);
  for (size_t i = 0; i < n; i++)
    num_set (AT (logp_star, i), AT (w.out, i));
done:
  num_clear (v);
  num_vec_free (w.lsm, T * (size_t) lm->V);
  num_vec_free (w.out, n);
  return status;
}

/* MDP-SOFT from the sequence level: log pi*(a|s) = log_softmax of the
 * logits theta* of lm_pistar_logits (13.17 token by token) and
 * v_root = beta log Z, log Z by enumeration (13.15). */
int
FN (mdp_soft_sequence) (num_ptr v_root, num_ptr logp_star, const rlref_lm *lm,
                        num_srcptr ref_logits, num_srcptr reward, num_srcptr beta)
{
  size_t n, V;
  num_ptr th = NULL, mom = NULL;
  int status;
  if ((status = token_check (lm, ref_logits, reward)) != RLREF_SUCCESS)
    return status;
  if (!num_is_finite (beta))
    RLREF_ERROR ("non-finite beta", RLREF_ENAN);
  if (num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be > 0", RLREF_EDOM);
  V = (size_t) lm->V;
  n = lm->n_rows * V;
  th = num_vec_new (n);
  mom = num_vec_new (RLREF_LM_NMOMENTS);
  if (!th || !mom)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (FN (lm_pistar_logits) (th, lm, ref_logits, reward, beta));
  TRY (FN (lm_moments) (mom, lm, ref_logits, reward, beta, 1u << RLREF_LM_LOG_Z, NULL, NULL));
  for (size_t k = 0; k < lm->n_rows; k++)
    TRY (FN (log_softmax) (AT (th, k * V), AT (th, k * V), V));
  num_mul (AT (mom, RLREF_LM_LOG_Z), AT (mom, RLREF_LM_LOG_Z), beta);
  TRY (mdp_range_check (AT (mom, RLREF_LM_LOG_Z), 1));
  TRY (mdp_range_check (th, n));
  num_set (v_root, AT (mom, RLREF_LM_LOG_Z));
  for (size_t i = 0; i < n; i++)
    num_set (AT (logp_star, i), AT (th, i));
done:
  num_vec_free (th, n);
  num_vec_free (mom, RLREF_LM_NMOMENTS);
  return status;
}
