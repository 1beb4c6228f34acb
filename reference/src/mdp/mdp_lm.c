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
#include "num_eft.h"
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

#ifdef RLREF_MP
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
          num_comp_add (AT (w->hi, i), AT (w->lo, i), x, AT (w->t, 5));
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
      num_comp_add (w->hi, w->lo, acc, AT (w->t, 5));
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


/* beta expm1(z) for z = q/beta <= 0: q expm1(z)/z while z >= -1 (q then
 * carries the digits that z, subnormal for a huge beta, may have lost; q
 * itself at z = 0), beta expm1(z) below (z = -inf: -beta). */
static void
soft_term (num_ptr r, num_srcptr q, num_srcptr z, num_srcptr beta, num_ptr t)
{
  if (num_is_zero (z))
    {
      num_set (r, q);
      return;
    }
  num_expm1 (t, z);
  if (num_cmp_d (z, -1.0) >= 0)
    {
      num_div (t, t, z);
      num_mul (r, q, t);
    }
  else
    num_mul (r, beta, t);
}

/* The soft part of a value, g = log S and gb = beta g, S = sum p e^z / W
 * (z <= 0, W = sum p), from the sums Ew = sum p expm1(z), Bw = sum p beta
 * expm1(z) and lse = log sum p e^z:
 *   S >= 1/2:  g = log1p(E), E = Ew/W,  gb = (Bw/W) log1p(E)/E  (Bw/W at E = 0),
 *   S < 1/2:   g = lse - log W,         gb = beta g,
 * so that nothing of the size of the shifted-out maximum, nor 1/beta times
 * a value, is rounded before the scaling by beta. */
static void
soft_combine (num_ptr g, num_ptr gb, num_srcptr W, num_srcptr Ew, num_srcptr Bw,
              num_srcptr lse, num_srcptr beta, num_ptr t)
{
  num_div (t, Ew, W);
  if (num_cmp_d (t, -0.5) >= 0)
    {
      num_log1p (g, t);
      num_div (gb, Bw, W);
      if (!num_is_zero (t))
        {
          num_div (t, g, t);
          num_mul (gb, gb, t);
        }
    }
  else
    {
      num_log (t, W);
      num_sub (g, lse, t);
      num_mul (gb, g, beta);
    }
}

/* The soft value of the prefix of length t (000 §4 on the token MDP):
 * Q(s, a) = r(s, a) + V(s a) (0 after the end),
 * V(s) = beta log sum_a pi_ref(a|s) e^{Q(s, a)/beta},
 * carried as V = H + beta G: H = max_a h_a, h_a = r(s, a) + H(s a) the
 * hard part, G = log sum_a pi_ref(a|s) e^{z_a} <= 0 with
 * z_a = (Q(s, a) - H)/beta = (h_a - H)/beta + G(s a) <= 0 (soft_combine;
 * gb = beta G beside G, q_a = (h_a - H) + gb(s a) = beta z_a), and
 * log pi*(a|s) = log pi_ref(a|s) + (Q(s, a) - V(s))/beta into out[row],
 * the log-softmax of x_a = log pi_ref(a|s) + z_a: an exact tie of the
 * hard parts keeps the reference policy and the soft parts below the
 * rounding of Q/beta. */
static void
soft_value (struct tree *w, int t, num_ptr hv, num_ptr g, num_ptr gb)
{
  int V = w->lm->V;
  size_t n = (size_t) V;
  num_ptr m = num_vec_new (8 * n + 8);
  num_ptr h = m, ga = AT (m, n), ba = AT (m, 2 * n), z = AT (m, 3 * n), x = AT (m, 4 * n);
  num_ptr p = AT (m, 5 * n), e = AT (m, 6 * n), b = AT (m, 7 * n), s = AT (m, 8 * n);
  num_srcptr y;
  if (!m)
    {
      w->status = RLREF_ENOMEM;
      rlref_error ("out of memory", __FILE__, __LINE__, w->status);
      return;
    }
  if (w->status == RLREF_SUCCESS)
    w->status = row_lsm (w, t);
  y = AT (w->lsm, (size_t) t * V);
  for (int a = 0; a < V && w->status == RLREF_SUCCESS; a++)
    {
      step_reward (AT (h, a), w->lm, w->reward, t, a);
      if (!ends (w->lm, t, a))
        {
          w->y[t] = a;
          soft_value (w, t + 1, s, AT (ga, a), AT (ba, a));
          num_add (AT (h, a), AT (h, a), s);
          /* the deeper call overwrote lsm rows > t only */
        }
      if (w->status == RLREF_SUCCESS && !num_is_finite (AT (h, a)))
        {
          w->status = RLREF_ERANGE;
          rlref_error ("a soft value is beyond the floating-point range", __FILE__, __LINE__,
                       w->status);
        }
    }
  if (w->status != RLREF_SUCCESS)
    goto done;
  num_set (hv, h);
  for (int a = 1; a < V; a++)
    num_max (hv, hv, AT (h, a));
  for (int a = 0; a < V; a++)
    {
      num_sub (s, AT (h, a), hv);
      num_div (AT (z, a), s, w->beta);
      num_add (AT (z, a), AT (z, a), AT (ga, a));
      num_add (AT (x, a), AT (y, a), AT (z, a));
      num_add (s, s, AT (ba, a));               /* q_a */
      num_exp (AT (p, a), AT (y, a));
      num_expm1 (AT (e, a), AT (z, a));
      num_mul (AT (e, a), AT (e, a), AT (p, a));
      soft_term (AT (b, a), s, AT (z, a), w->beta, AT (s, 1));
      num_mul (AT (b, a), AT (b, a), AT (p, a));
    }
  if ((w->status = num_sum (AT (s, 1), p, n)) != RLREF_SUCCESS
      || (w->status = num_sum (AT (s, 2), e, n)) != RLREF_SUCCESS
      || (w->status = num_sum (AT (s, 3), b, n)) != RLREF_SUCCESS
      || (w->status = FN (logsumexp) (AT (s, 4), x, n)) != RLREF_SUCCESS)
    goto done;
  soft_combine (g, gb, AT (s, 1), AT (s, 2), AT (s, 3), AT (s, 4), w->beta, AT (s, 5));
  /* log pi* = x_a - lse(x), the log-softmax of x (accurate also for the
     dominant action, whose log-probability is a tiny negative number) */
  w->status = FN (log_softmax) (AT (w->out, w->rows[t] * V), x, n);
done:
  num_vec_free (m, 8 * n + 8);
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
  num_ptr v = NULL;
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
  v = num_vec_new (3);
  w.lsm = num_vec_new (T * (size_t) lm->V);
  w.out = num_vec_new (n);
  if (!v || !w.lsm || !w.out)
    FAIL ("out of memory", RLREF_ENOMEM);
  soft_value (&w, 0, v, AT (v, 1), AT (v, 2));
  TRY (w.status);
  num_add (v, v, AT (v, 2));
  TRY (mdp_range_check (v, 1));
  TRY (mdp_range_check (w.out, n));
  num_set (v_root, v);
  for (size_t i = 0; i < n; i++)
    num_set (AT (logp_star, i), AT (w.out, i));
done:
  num_vec_free (v, 3);
  num_vec_free (w.lsm, T * (size_t) lm->V);
  num_vec_free (w.out, n);
  return status;
}

/* One sequence of log-probability lp and reward r (pass 0: rmax, the
 * largest r; pass 1: m, the largest lp + z; pass 2: the sums of
 * soft_combine, hi + lo in hi[0..3] + lo[0..3]: W = sum pi_ref, Ew, Bw and
 * sum e^{lp + z - m}), z = (r - rmax)/beta.  Scalars: t[0] rmax, t[1] m,
 * t[2] z, t[3] q, t[4..7] scratch, t[8..10] acc_add's. */
static void
seq_leaf (struct tree *w, num_srcptr lp, num_srcptr r)
{
  num_ptr t = w->t;
  if (w->pass == 0)
    {
      if (w->status == RLREF_SUCCESS && !num_is_finite (r))
        {
          w->status = RLREF_ERANGE;
          rlref_error ("a sequence reward is beyond the floating-point range", __FILE__,
                       __LINE__, w->status);
        }
      num_max (t, t, r);
      return;
    }
  num_sub (AT (t, 3), r, t);
  num_div (AT (t, 2), AT (t, 3), w->beta);
  num_add (AT (t, 4), lp, AT (t, 2));
  if (w->pass == 1)
    {
      num_max (AT (t, 1), AT (t, 1), AT (t, 4));
      return;
    }
  num_sub (AT (t, 4), AT (t, 4), AT (t, 1));
  num_exp (AT (t, 4), AT (t, 4));
  num_comp_add (AT (w->hi, 3), AT (w->lo, 3), AT (t, 4), AT (t, 8));
  num_exp (AT (t, 5), lp);
  num_comp_add (w->hi, w->lo, AT (t, 5), AT (t, 8));
  num_expm1 (AT (t, 4), AT (t, 2));
  num_mul (AT (t, 4), AT (t, 4), AT (t, 5));
  num_comp_add (AT (w->hi, 1), AT (w->lo, 1), AT (t, 4), AT (t, 8));
  soft_term (AT (t, 4), AT (t, 3), AT (t, 2), w->beta, AT (t, 6));
  num_mul (AT (t, 4), AT (t, 4), AT (t, 5));
  num_comp_add (AT (w->hi, 2), AT (w->lo, 2), AT (t, 4), AT (t, 8));
}

/* Every sequence below the prefix of length t, of log-probability
 * prob[t] and reward c[t]. */
static void
seq_walk (struct tree *w, int t)
{
  int V = w->lm->V;
  if (w->status == RLREF_SUCCESS)
    w->status = row_lsm (w, t);
  for (int a = 0; a < V && w->status == RLREF_SUCCESS; a++)
    {
      num_add (AT (w->prob, t + 1), AT (w->prob, t), AT (w->lsm, (size_t) t * V + a));
      step_reward (AT (w->c, t + 1), w->lm, w->reward, t, a);
      num_add (AT (w->c, t + 1), AT (w->c, t + 1), AT (w->c, t));
      w->y[t] = a;
      if (ends (w->lm, t, a))
        seq_leaf (w, AT (w->prob, t + 1), AT (w->c, t + 1));
      else
        seq_walk (w, t + 1);
    }
}

/* V(root) = beta log Z, Z = sum_y pi_ref(y) e^{r(y)/beta} (13.15), every
 * sequence enumerated: rmax + beta log sum_y pi_ref(y) e^{(r(y) - rmax)/beta}
 * by soft_combine, the sums exactly rounded as hi + lo. */
static int
soft_log_z (num_ptr v, const rlref_lm *lm, num_srcptr ref_logits, num_srcptr reward,
            num_srcptr beta)
{
  struct tree w = { 0 };
  size_t T = (size_t) lm->T;
  num_ptr s = NULL;
  int status = RLREF_SUCCESS;
  if (rlref_lm_num_sequences (lm) > RLREF_LM_MAX_SEQUENCES)
    RLREF_ERROR ("too many sequences to enumerate", RLREF_EINVAL);
  w = (struct tree) { .lm = lm, .logits = ref_logits, .reward = reward, .beta = beta };
  w.lsm = num_vec_new (T * (size_t) lm->V);
  w.prob = num_vec_new (T + 1);
  w.c = num_vec_new (T + 1);
  w.t = num_vec_new (12);
  w.hi = num_vec_new (4);
  w.lo = num_vec_new (4);
  s = num_vec_new (8);
  if (!w.lsm || !w.prob || !w.c || !w.t || !w.hi || !w.lo || !s)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set_inf (w.t, -1);
  num_set_inf (AT (w.t, 1), -1);
  for (w.pass = 0; w.pass < 3; w.pass++)
    {
      num_set_zero (w.prob);
      num_set_zero (w.c);
      seq_walk (&w, 0);
      TRY (w.status);
    }
  for (int k = 0; k < 4; k++)
    num_add (AT (s, k), AT (w.hi, k), AT (w.lo, k));
  num_log (AT (s, 3), AT (s, 3));
  num_add (AT (s, 3), AT (s, 3), AT (w.t, 1));
  soft_combine (AT (s, 4), AT (s, 5), s, AT (s, 1), AT (s, 2), AT (s, 3), beta, AT (s, 6));
  num_add (v, w.t, AT (s, 5));
done:
  num_vec_free (w.lsm, T * (size_t) lm->V);
  num_vec_free (w.prob, T + 1);
  num_vec_free (w.c, T + 1);
  num_vec_free (w.t, 12);
  num_vec_free (w.hi, 4);
  num_vec_free (w.lo, 4);
  num_vec_free (s, 8);
  return status;
}

/* MDP-SOFT from the sequence level: log pi*(a|s) = log_softmax of the
 * logits theta* of lm_pistar_logits (13.17 token by token) and
 * v_root = beta log Z by enumeration (13.15, soft_log_z). */
int
FN (mdp_soft_sequence) (num_ptr v_root, num_ptr logp_star, const rlref_lm *lm,
                        num_srcptr ref_logits, num_srcptr reward, num_srcptr beta)
{
  size_t n, V;
  num_ptr th = NULL;
  num_t v;
  int status;
  if ((status = token_check (lm, ref_logits, reward)) != RLREF_SUCCESS)
    return status;
  if (!num_is_finite (beta))
    RLREF_ERROR ("non-finite beta", RLREF_ENAN);
  if (num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be > 0", RLREF_EDOM);
  V = (size_t) lm->V;
  n = lm->n_rows * V;
  num_init (v);
  th = num_vec_new (n);
  if (!th)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (FN (lm_pistar_logits) (th, lm, ref_logits, reward, beta));
  TRY (soft_log_z (v, lm, ref_logits, reward, beta));
  for (size_t k = 0; k < lm->n_rows; k++)
    TRY (FN (log_softmax) (AT (th, k * V), AT (th, k * V), V));
  TRY (mdp_range_check (v, 1));
  TRY (mdp_range_check (th, n));
  num_set (v_root, v);
  for (size_t i = 0; i < n; i++)
    num_set (AT (logp_star, i), AT (th, i));
done:
  num_clear (v);
  num_vec_free (th, n);
  return status;
}

#else
/* binary64: the MPFR program above, each output rounded once
 * (round_once.h).  The components of E g sum terms pi(y) c_t (e_a -
 * pi(.|s)) that cancel down to the gradient of E[r], far below them when a
 * reward or a logit is large. */
#include <string.h>
#include "round_once.h"

typedef struct
{
  const rlref_lm *lm;
  size_t n;
  rlref_pg_estimator est;
} reinforce_program;

/* x = (logits, reward); y = (grad, var). */
static int
reinforce_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const reinforce_program *o = ctx;
  return rlref_mdp_token_reinforce_mp (y, y + o->n, o->lm, x, x + o->n, o->est);
}

int
FN (mdp_token_reinforce) (num_ptr grad, num_ptr var, const rlref_lm *lm, num_srcptr logits,
                          num_srcptr reward, rlref_pg_estimator est)
{
  reinforce_program o = { lm, 0, est };
  size_t nr, nx;
  double *xd;
  int status;
  if ((status = token_check (lm, logits, reward)) != RLREF_SUCCESS)
    return status;
  o.n = lm->n_rows * (size_t) lm->V;
  nr = (size_t) lm->V + 2;
  nx = o.n + nr;
  xd = malloc ((nx + o.n + 1) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, logits, o.n * sizeof *xd);
  memcpy (xd + o.n, reward, nr * sizeof *xd);
  status = rlref_round_once (xd + nx, o.n + 1, xd, nx, reinforce_mp, &o,
                             "the REINFORCE expectation and variance");
  if (status == RLREF_SUCCESS)
    {
      memcpy (grad, xd + nx, o.n * sizeof *grad);
      var[0] = xd[nx + o.n];
    }
  free (xd);
  return status;
}

/* The soft values cancel too: beta log Z beside rewards far above beta
 * leaves an O(1) part below the rounding of r/beta, and log pi* of a
 * sequence whose soft value cancels keeps none of its digits. */
typedef int soft_mp_fn (mpfr_ptr v_root, mpfr_ptr logp_star, const rlref_lm *lm,
                        mpfr_srcptr ref_logits, mpfr_srcptr reward, mpfr_srcptr beta);

typedef struct
{
  const rlref_lm *lm;
  size_t n;
  soft_mp_fn *soft;
} soft_program;

/* x = (ref_logits, reward, beta); y = (v_root, logp_star). */
static int
soft_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const soft_program *o = ctx;
  return o->soft (y, y + 1, o->lm, x, x + o->n, x + o->n + (size_t) o->lm->V + 2);
}

/* v_root and logp_star of either MDP-SOFT program, rounded once. */
static int
soft_round_once (num_ptr v_root, num_ptr logp_star, const rlref_lm *lm, num_srcptr ref_logits,
                 num_srcptr reward, num_srcptr beta, soft_mp_fn *soft)
{
  soft_program o = { lm, 0, soft };
  size_t nr, nx;
  double *xd;
  int status;
  if ((status = token_check (lm, ref_logits, reward)) != RLREF_SUCCESS)
    return status;
  if (!v_root || !logp_star || !beta)
    RLREF_ERROR ("an argument is missing", RLREF_EINVAL);
  o.n = lm->n_rows * (size_t) lm->V;
  nr = (size_t) lm->V + 2;
  nx = o.n + nr + 1;
  xd = malloc ((nx + 1 + o.n) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, ref_logits, o.n * sizeof *xd);
  memcpy (xd + o.n, reward, nr * sizeof *xd);
  xd[nx - 1] = beta[0];
  status = rlref_round_once (xd + nx, 1 + o.n, xd, nx, soft_mp, &o,
                             "the soft value and the policy pi*");
  if (status == RLREF_SUCCESS)
    {
      v_root[0] = xd[nx];
      memcpy (logp_star, xd + nx + 1, o.n * sizeof *logp_star);
    }
  free (xd);
  return status;
}

int
FN (mdp_soft_bellman) (num_ptr v_root, num_ptr logp_star, const rlref_lm *lm,
                       num_srcptr ref_logits, num_srcptr reward, num_srcptr beta)
{
  return soft_round_once (v_root, logp_star, lm, ref_logits, reward, beta,
                          rlref_mdp_soft_bellman_mp);
}

int
FN (mdp_soft_sequence) (num_ptr v_root, num_ptr logp_star, const rlref_lm *lm,
                        num_srcptr ref_logits, num_srcptr reward, num_srcptr beta)
{
  return soft_round_once (v_root, logp_star, lm, ref_logits, reward, beta,
                          rlref_mdp_soft_sequence_mp);
}
#endif
