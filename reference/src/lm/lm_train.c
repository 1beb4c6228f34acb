/* lm_train.c -- the KL-optimal policy as tabular logits, and exact-gradient
 * training of a tiny-LM policy (KLOPT-PISTAR on sequences, DPO-EQUIV,
 * LM-TRAIN). */
#include <math.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/lm.h"
#include <gsl/gsl_rng.h>
#include "rlref/primitives.h"

/* pi*(a | s) of a tabular model, cut sequences kept, additive reward:
 * pi*(y) = pi_ref(y) e^{r(y)/beta} / Z (13.17) factors token by token as
 *   pi*(a | s) = pi_ref(a | s) e^{r_a/beta} Z(s a) / Z(s),
 * Z(node) the partition sum of the continuations below it (Z = e^{truncated/beta}
 * at a cut leaf, 1 after EOS), r_a = token[a] + per_length; so the logits
 *   theta*(s, a) = log pi_ref(a | s) + r_a/beta + log Z(s a)
 * give it exactly (a softmax ignores the row's constant log Z(s)).  log Z
 * of every prefix comes from a post-order depth-first pass, each row by a
 * log-sum-exp of its children.  Every sequence ends in one EOS or is cut,
 * so the rewards are taken relative to EOS's token reward (token[a] -
 * token[eos] for a, truncated - token[eos] at a cut): pi* is unchanged,
 * every theta* moves by the one constant -token[eos]/beta, and a large
 * EOS reward no longer enters every row as r/beta to cancel in the
 * softmax (or overflow to infinite scores where pi* is a number). */
int
FN (lm_pistar_logits) (num_ptr theta, const rlref_lm *lm, num_srcptr ref_logits,
                       num_srcptr reward, num_srcptr beta)
{
  int V, T, eos, d = 0, status = rlref_lm_check (lm);
  int y[RLREF_LM_MAX_T] = { 0 }, child[RLREF_LM_MAX_T];
  num_ptr lsm, kid, t, out;
  size_t nl;
  if (status)
    return status;
  if (lm->kind != RLREF_LM_TABULAR || lm->truncation != RLREF_LM_KEEP
      || lm->reward != RLREF_REWARD_ADDITIVE)
    RLREF_ERROR ("pi* as logits needs a tabular model that keeps cut sequences, with an "
                 "additive reward", RLREF_EINVAL);
  if (!num_is_finite (beta) || num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be finite and positive", RLREF_EDOM);
  V = lm->V;
  T = lm->T;
  eos = lm->eos;
  nl = lm->n_rows * (size_t) V;
  /* per depth: the reference's log-softmax, and the children's terms
   * log pi_ref(a|s) + r_a/beta + log Z(s a) */
  lsm = num_vec_new ((size_t) T * V);
  kid = num_vec_new ((size_t) T * V);
  t = num_vec_new (3);
  out = num_vec_new (nl);       /* theta may be the ref_logits' storage */
  if (!lsm || !kid || !t || !out)
    status = RLREF_ENOMEM;
  num_d_div (AT (t, 2), 1.0, beta);
  child[0] = 0;
  if (status == RLREF_SUCCESS)
    status = FN (log_softmax) (lsm, ref_logits, (size_t) V);
  while (status == RLREF_SUCCESS)
    {
      int a;
      size_t k, row;
      if (child[d] == V)
        {
          /* leaving prefix s: its row is the children's terms; log Z(s) = lse */
          row = rlref_lm_prefix_index (V, eos, y, d) * (size_t) V;
          for (a = 0; a < V; a++)
            num_set (AT (out, row + a), AT (kid, d * V + a));
          for (a = 0; a < V && status == RLREF_SUCCESS; a++)
            if (!num_is_finite (AT (kid, d * V + a)))
              {
                /* r/beta beyond the range: so is log pi* of a token of s */
                status = RLREF_ERANGE;
                rlref_error ("pi* as logits: a reward over beta beyond the floating-point "
                             "range", __FILE__, __LINE__, status);
              }
          if (status)
            break;
          status = FN (logsumexp) (AT (t, 0), AT (kid, d * V), (size_t) V);
          if (status || d == 0)
            break;
          d--;
          /* log Z(parent y_d) enters the parent's term for token y[d] */
          num_add (AT (kid, d * V + y[d]), AT (kid, d * V + y[d]), AT (t, 0));
          continue;
        }
      a = child[d]++;
      y[d] = a;
      k = (size_t) d * V + (size_t) a;
      /* log pi_ref(a|s) + (token[a] - token[eos] + per_length)/beta */
      if (a == eos)
        num_set (AT (t, 1), AT (reward, V));
      else
        {
          num_sub (AT (t, 1), AT (reward, a), AT (reward, eos));
          num_add (AT (t, 1), AT (t, 1), AT (reward, V));
        }
      num_mul (AT (t, 1), AT (t, 1), AT (t, 2));
      num_add (AT (kid, k), AT (lsm, k), AT (t, 1));
      if (a == eos)
        continue;
      if (d + 1 == T)
        {
          /* a cut leaf: Z = e^{(truncated - token[eos])/beta} */
          num_sub (AT (t, 1), AT (reward, V + 1), AT (reward, eos));
          num_mul (AT (t, 1), AT (t, 1), AT (t, 2));
          num_add (AT (kid, k), AT (kid, k), AT (t, 1));
          continue;
        }
      d++;
      child[d] = 0;
      status = FN (log_softmax) (AT (lsm, d * V),
                                 AT (ref_logits, rlref_lm_prefix_index (V, eos, y, d) * (size_t) V),
                                 (size_t) V);
    }
  for (size_t i = 0; status == RLREF_SUCCESS && i < nl; i++)
    num_set (AT (theta, i), AT (out, i));
  num_vec_free (lsm, (size_t) T * V);
  num_vec_free (kid, (size_t) T * V);
  num_vec_free (t, 3);
  num_vec_free (out, nl);
  return status;
}

#ifdef RLREF_MP

/* LM-TRAIN: steps of exact gradient descent on a minimised objective (KL,
 * KL reverse, DPO, IPO) or ascent on a maximised one (E[r], the RLHF
 * objective), theta <- theta -+ lr grad; history[k] is the objective's
 * value before step k (steps + 1 values). */
int
FN (lm_descend) (num_ptr theta, num_ptr history, const rlref_lm *lm, num_srcptr ref_logits,
                 num_srcptr reward, num_srcptr beta, int objective, num_srcptr lr, int steps)
{
  size_t nl = lm->n_rows * (size_t) lm->V;
  int status = RLREF_SUCCESS, ascend = objective == RLREF_LM_OBJ_REWARD
    || objective == RLREF_LM_OBJ_RLHF;
  num_ptr grad, t;
  if (steps < 0 || !num_is_finite (lr) || num_sgn (lr) <= 0)
    RLREF_ERROR ("steps >= 0 and a finite positive learning rate", RLREF_EDOM);
  grad = num_vec_new (nl);
  t = num_vec_new (1);
  if (!grad || !t)
    status = RLREF_ENOMEM;
  for (int k = 0; k <= steps && status == RLREF_SUCCESS; k++)
    {
      status = FN (lm_objective) (AT (history, k), k < steps ? grad : NULL, lm, theta,
                                  ref_logits, reward, beta, objective);
      for (size_t i = 0; k < steps && status == RLREF_SUCCESS && i < nl; i++)
        {
          num_mul (t, lr, AT (grad, i));
          if (ascend)
            num_add (AT (theta, i), AT (theta, i), t);
          else
            num_sub (AT (theta, i), AT (theta, i), t);
        }
    }
  num_vec_free (grad, nl);
  num_vec_free (t, 1);
  return status;
}

/* grad log pi_theta(y) added, times s, into g (n_rows x V): at each prefix
 * on y's path, s (e_{y_t} - pi(. | s_t)) in its row (13.1 differentiated). */
static int
add_path_gradient (num_ptr g, const rlref_lm *lm, num_srcptr theta, const int *y, int L,
                   num_srcptr s, num_ptr lsm, num_ptr t)
{
  int V = lm->V, status = RLREF_SUCCESS;
  for (int k = 0; k < L && status == RLREF_SUCCESS; k++)
    {
      size_t row = lm->kind == RLREF_LM_BIGRAM ? (size_t) (k == 0 ? V : y[k - 1])
        : rlref_lm_prefix_index (V, lm->eos, y, k);
      status = FN (log_softmax) (lsm, AT (theta, row * V), (size_t) V);
      for (int a = 0; a < V && status == RLREF_SUCCESS; a++)
        {
          /* [a = y_k] - pi(a | s): 1 - pi as -expm1(log pi), no cancellation
           * when pi is near 1 */
          if (a == y[k])
            num_expm1 (t, AT (lsm, a));
          else
            num_exp (t, AT (lsm, a));
          num_neg (t, t);
          num_mul (t, t, s);
          num_add (AT (g, row * V + a), AT (g, row * V + a), t);
        }
    }
  return status;
}

/* DPO-DISPLACE: exact gradient descent on the loss of one preference pair,
 * DPO -log sigma(beta z) or IPO (z - 1/(2 beta))^2, z = h_w - h_l,
 * h = log pi_theta - log pi_ref (13.21); theta in place.  logp_w[k],
 * logp_l[k] are log pi_theta(y_w), log pi_theta(y_l) before step k (steps + 1
 * values): with parameters shared between the two sequences both may fall
 * while the margin z grows. */
int
FN (lm_pair_descend) (num_ptr theta, num_ptr logp_w, num_ptr logp_l, const rlref_lm *lm,
                      num_srcptr ref_logits, num_srcptr beta, int objective, const int *yw,
                      int Lw, const int *yl, int Ll, num_srcptr lr, int steps)
{
  size_t nl = lm->n_rows * (size_t) lm->V;
  int status = rlref_lm_check (lm);
  num_ptr g, t, tok;
  if (status)
    return status;
  if (objective != RLREF_LM_OBJ_DPO && objective != RLREF_LM_OBJ_IPO)
    RLREF_ERROR ("a pair loss is DPO or IPO", RLREF_EINVAL);
  if (steps < 0 || !num_is_finite (lr) || num_sgn (lr) <= 0 || !num_is_finite (beta)
      || num_sgn (beta) <= 0)
    RLREF_ERROR ("steps >= 0, a finite positive learning rate and beta", RLREF_EDOM);
  g = num_vec_new (nl);
  t = num_vec_new (8 + (size_t) lm->V);
  tok = num_vec_new (RLREF_LM_MAX_T);
  if (!g || !t || !tok)
    status = RLREF_ENOMEM;
  /* t: 0 ref log pi(y_w), 1 ref log pi(y_l), 2 z, 3 dL/dz scaled, 4 scratch,
   * 8.. a log-softmax row */
  if (status == RLREF_SUCCESS)
    status = FN (lm_logprob) (AT (t, 0), tok, lm, ref_logits, yw, Lw);
  if (status == RLREF_SUCCESS)
    status = FN (lm_logprob) (AT (t, 1), tok, lm, ref_logits, yl, Ll);
  for (int k = 0; k <= steps && status == RLREF_SUCCESS; k++)
    {
      status = FN (lm_logprob) (AT (logp_w, k), tok, lm, theta, yw, Lw);
      if (status == RLREF_SUCCESS)
        status = FN (lm_logprob) (AT (logp_l, k), tok, lm, theta, yl, Ll);
      if (status || k == steps)
        break;
      /* z = (log pi(y_w) - ref_w) - (log pi(y_l) - ref_l) */
      num_sub (AT (t, 2), AT (logp_w, k), AT (t, 0));
      num_sub (AT (t, 4), AT (logp_l, k), AT (t, 1));
      num_sub (AT (t, 2), AT (t, 2), AT (t, 4));
      if (objective == RLREF_LM_OBJ_DPO)
        {
          /* dL/dz = -beta sigma(-beta z) */
          num_mul (AT (t, 4), beta, AT (t, 2));
          num_neg (AT (t, 4), AT (t, 4));
          status = FN (sigmoid) (AT (t, 3), AT (t, 4));
          num_mul (AT (t, 3), AT (t, 3), beta);
          num_neg (AT (t, 3), AT (t, 3));
        }
      else
        {
          /* dL/dz = 2 (z - 1/(2 beta)) */
          num_d_div (AT (t, 4), 0.5, beta);
          num_sub (AT (t, 3), AT (t, 2), AT (t, 4));
          num_mul_2si (AT (t, 3), AT (t, 3), 1);
        }
      /* theta -= lr dL/dz (grad log pi(y_w) - grad log pi(y_l)) */
      for (size_t i = 0; i < nl; i++)
        num_set_zero (AT (g, i));
      num_mul (AT (t, 3), AT (t, 3), lr);
      num_neg (AT (t, 3), AT (t, 3));
      if (status == RLREF_SUCCESS)
        status = add_path_gradient (g, lm, theta, yw, Lw, AT (t, 3), AT (t, 8), AT (t, 4));
      num_neg (AT (t, 3), AT (t, 3));
      if (status == RLREF_SUCCESS)
        status = add_path_gradient (g, lm, theta, yl, Ll, AT (t, 3), AT (t, 8), AT (t, 4));
      for (size_t i = 0; status == RLREF_SUCCESS && i < nl; i++)
        num_add (AT (theta, i), AT (theta, i), AT (g, i));
    }
  num_vec_free (g, nl);
  num_vec_free (t, 8 + (size_t) lm->V);
  num_vec_free (tok, RLREF_LM_MAX_T);
  return status;
}

/* DPO-DISPLACE: the run of lm_pair_descend from ref_logits; the margin
 * (h_w - h_w0) - (h_l - h_l0) of its first and last log-probabilities. */
int
FN (lm_displace) (num_ptr logp_w, num_ptr logp_l, num_ptr margin, const rlref_lm *lm,
                  num_srcptr ref_logits, num_srcptr beta, int objective, const int *yw, int Lw,
                  const int *yl, int Ll, num_srcptr lr, int steps)
{
  size_t nl, h = steps >= 0 ? (size_t) steps + 1 : 1;
  num_ptr th, lw, ll;
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  nl = lm->n_rows * (size_t) lm->V;
  th = num_vec_new (nl);
  lw = num_vec_new (h);
  ll = num_vec_new (h);
  status = th && lw && ll ? RLREF_SUCCESS : RLREF_ENOMEM;
  for (size_t i = 0; status == RLREF_SUCCESS && i < nl; i++)
    num_set (AT (th, i), AT (ref_logits, i));
  if (status == RLREF_SUCCESS)
    status = FN (lm_pair_descend) (th, lw, ll, lm, ref_logits, beta, objective, yw, Lw, yl, Ll,
                                   lr, steps);
  if (status == RLREF_SUCCESS)
    {
      num_set (AT (logp_w, 0), lw);
      num_set (AT (logp_w, 1), AT (lw, h - 1));
      num_set (AT (logp_l, 0), ll);
      num_set (AT (logp_l, 1), AT (ll, h - 1));
      num_sub (margin, AT (lw, h - 1), lw);
      num_sub (AT (ll, h - 1), AT (ll, h - 1), ll);
      num_sub (margin, margin, AT (ll, h - 1));
    }
  num_vec_free (th, nl);
  num_vec_free (lw, h);
  num_vec_free (ll, h);
  return status;
}

/* A draw closer than this to a boundary it is compared with (a cumulative
 * probability, a preference probability) is refused, EDOM (the seed and
 * model are outside the domain where the run is one run): binary64 and
 * exact arithmetic, whose policies differ by rounding, could decide it
 * apart. */
#define DRAW_GUARD 0x1p-40

/* The decision u < c of a draw u from the sign of d = c - u (exactly
 * rounded: its sign is exact); *status EPREC when |d| < DRAW_GUARD (the
 * run cannot be certified: binary64 and exact arithmetic could part). */
static int
below (num_srcptr d, int *status)
{
  num_t a;
  num_init (a);
  num_abs (a, d);
  if (num_cmp_d (a, DRAW_GUARD) < 0)
    {
      rlref_error ("lm_sampled_descend: a draw within 2^-40 of the probability it is "
                   "compared with: binary64 and exact arithmetic could part (another seed)",
                   __FILE__, __LINE__, RLREF_EPREC);
      *status = RLREF_EPREC;
    }
  num_clear (a);
  return num_sgn (d) > 0;
}

/* One sequence drawn from the policy with logits theta: at each prefix s a
 * uniform u = gsl_rng_uniform (k/2^32) picks the first token b of 0..V-2
 * with u < c_b = sum_{j<=b} pi(j | s), or V - 1 when there is none (the
 * sign of c_b - u is that of its exactly rounded sum, num_sum of pi(0..b |
 * s) and -u), until EOS or T tokens.  Returns the length; *cut is set when
 * it reached T without EOS.  w has V + 1 scalars. */
static int
draw (int *y, int *cut, const rlref_lm *lm, num_srcptr theta, gsl_rng *rng, num_ptr lsm,
      num_ptr w, num_ptr t, int *status)
{
  int V = lm->V, L = 0;
  *cut = 0;
  for (;;)
    {
      size_t row = lm->kind == RLREF_LM_BIGRAM ? (size_t) (L == 0 ? V : y[L - 1])
        : rlref_lm_prefix_index (V, lm->eos, y, L);
      double u = gsl_rng_uniform (rng);
      int a = V - 1;
      *status = FN (log_softmax) (lsm, AT (theta, row * V), (size_t) V);
      for (int b = 0; b < V - 1 && *status == RLREF_SUCCESS; b++)
        {
          num_exp (AT (w, b), AT (lsm, b));
          num_set_d (AT (w, b + 1), -u);
          *status = num_sum (t, w, (size_t) b + 2);
          if (*status == RLREF_SUCCESS && below (t, status))
            {
              a = b;
              break;
            }
        }
      if (*status)
        return 0;
      y[L++] = a;
      if (a == lm->eos)
        return L;
      if (L == lm->T)
        {
          *cut = 1;
          return L;
        }
    }
}

/* The reward of a drawn sequence (additive). */
static void
reward_of (num_ptr r, const rlref_lm *lm, num_srcptr reward, const int *y, int L, int cut)
{
  num_set_zero (r);
  for (int k = 0; lm->reward == RLREF_REWARD_ADDITIVE && k < L; k++)
    {
      num_add (r, r, AT (reward, y[k]));
      num_add (r, r, AT (reward, lm->V));
    }
  if (cut && lm->reward == RLREF_REWARD_ADDITIVE)
    num_add (r, r, AT (reward, lm->V + 1));
}

/* LM-TRAIN, sampled: each step draws a batch with rng and follows its
 * gradient estimate, theta in place; history[k] is the exact objective
 * before step k.  E[r] and the RLHF objective (ascended): n sequences from
 * pi_theta, REINFORCE with the batch mean as baseline,
 *   g = (1/n) sum_i (f_i - mean f) grad log pi_theta(y_i),
 * f = r or r - beta h (13.2-13.4); DPO (descended): n pairs from pi_ref,
 * y1 labelled preferred with probability sigma(r1 - r2) (13.6), and the
 * gradient of the mean pair loss -log sigma(beta (h_w - h_l)).  Cut
 * sequences conditioned away are drawn again.  history may be NULL: the
 * run alone, no objective formed.  With the same rng seed the run is the
 * same to the last bit; every decision compares a binary64 draw with a
 * quantity rounded once (draw, below), so binary64 and MPFR follow the same
 * trajectory, or stop with EDOM where a draw falls within 2^-40 of the
 * boundary it is compared with. */
int
FN (lm_sampled_descend) (num_ptr theta, num_ptr history, const rlref_lm *lm,
                         num_srcptr ref_logits, num_srcptr reward, num_srcptr beta,
                         int objective, num_srcptr lr, int steps, int n, gsl_rng *rng)
{
  size_t nl = lm->n_rows * (size_t) lm->V;
  int status = rlref_lm_check (lm), T = lm->T;
  int *ys = NULL, *lens = NULL;
  num_ptr g = NULL, t = NULL, f = NULL;
  if (status)
    return status;
  if (objective != RLREF_LM_OBJ_REWARD && objective != RLREF_LM_OBJ_RLHF
      && objective != RLREF_LM_OBJ_DPO)
    RLREF_ERROR ("sampled training takes E[r], the RLHF objective or DPO", RLREF_EINVAL);
  if (n < 2 || steps < 0 || !rng || !num_is_finite (lr) || num_sgn (lr) <= 0)
    RLREF_ERROR ("a batch of at least 2, steps >= 0, a positive learning rate and an rng",
                 RLREF_EDOM);
  for (size_t i = 0; i < nl; i++)
    if (!num_is_finite (AT (theta, i)) || !num_is_finite (AT (ref_logits, i)))
      RLREF_ERROR ("a logit is not finite", RLREF_ENAN);
  for (int i = 0; lm->reward == RLREF_REWARD_ADDITIVE && i < lm->V + 2; i++)
    if (!num_is_finite (AT (reward, i)))
      RLREF_ERROR ("a reward term is not finite", RLREF_ENAN);
  if (!num_is_finite (beta) || num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be finite and positive", RLREF_EDOM);
  ys = malloc (2 * (size_t) n * (size_t) T * sizeof *ys);
  lens = malloc (2 * (size_t) n * sizeof *lens);
  g = num_vec_new (nl);
  t = num_vec_new (9 + 2 * (size_t) lm->V);
  f = num_vec_new (2 * (size_t) n);
  if (!ys || !lens || !g || !t || !f)
    status = RLREF_ENOMEM;
  for (int k = 0; k <= steps && status == RLREF_SUCCESS; k++)
    {
      int m = objective == RLREF_LM_OBJ_DPO ? 2 * n : n;
      if (history)
        status = FN (lm_objective) (AT (history, k), NULL, lm, theta, ref_logits, reward, beta,
                                    objective);
      if (status || k == steps)
        break;
      /* the batch: sequences from pi_theta, or pairs from pi_ref */
      for (int i = 0; i < m && status == RLREF_SUCCESS; i++)
        {
          int cut;
          do
            lens[i] = draw (ys + (size_t) i * T, &cut, lm,
                            objective == RLREF_LM_OBJ_DPO ? ref_logits : theta, rng, AT (t, 8),
                            AT (t, 8 + lm->V), t, &status);
          while (status == RLREF_SUCCESS && cut && lm->truncation == RLREF_LM_CONDITION);
          if (status == RLREF_SUCCESS)
            reward_of (AT (f, i), lm, reward, ys + (size_t) i * T, lens[i], cut);
        }
      for (size_t i = 0; i < nl; i++)
        num_set_zero (AT (g, i));
      if (status == RLREF_SUCCESS && objective != RLREF_LM_OBJ_DPO)
        {
          /* f = r (- beta h); the batch mean as baseline; ascent */
          num_set_zero (AT (t, 2));
          for (int i = 0; i < n && status == RLREF_SUCCESS; i++)
            {
              if (objective == RLREF_LM_OBJ_RLHF)
                {
                  status = FN (lm_logprob) (AT (t, 3), AT (t, 8), lm, theta,
                                            ys + (size_t) i * T, lens[i]);
                  if (status == RLREF_SUCCESS)
                    status = FN (lm_logprob) (AT (t, 4), AT (t, 8), lm, ref_logits,
                                              ys + (size_t) i * T, lens[i]);
                  num_sub (AT (t, 3), AT (t, 3), AT (t, 4));
                  num_mul (AT (t, 3), AT (t, 3), beta);
                  num_sub (AT (f, i), AT (f, i), AT (t, 3));
                }
              num_add (AT (t, 2), AT (t, 2), AT (f, i));
            }
          num_div_si (AT (t, 2), AT (t, 2), n);
          for (int i = 0; i < n && status == RLREF_SUCCESS; i++)
            {
              num_sub (AT (t, 5), AT (f, i), AT (t, 2));
              num_mul (AT (t, 5), AT (t, 5), lr);
              num_div_si (AT (t, 5), AT (t, 5), n);
              status = add_path_gradient (g, lm, theta, ys + (size_t) i * T, lens[i], AT (t, 5),
                                          AT (t, 8), AT (t, 6));
            }
        }
      else if (status == RLREF_SUCCESS)
        {
          /* pairs (2i, 2i + 1) labelled by a draw against sigma(r1 - r2) */
          for (int i = 0; i < n && status == RLREF_SUCCESS; i++)
            {
              const int *y1 = ys + (size_t) (2 * i) * T, *y2 = ys + (size_t) (2 * i + 1) * T;
              int L1 = lens[2 * i], L2 = lens[2 * i + 1], swap;
              num_sub (AT (t, 2), AT (f, 2 * i), AT (f, 2 * i + 1));
              status = FN (sigmoid) (AT (t, 2), AT (t, 2));
              num_sub_d (AT (t, 2), AT (t, 2), gsl_rng_uniform (rng));
              swap = status == RLREF_SUCCESS && !below (AT (t, 2), &status);
              /* z = h_w - h_l; the weight lr beta sigma(-beta z) / n */
              for (int j = 0; j < 2 && status == RLREF_SUCCESS; j++)
                {
                  const int *yy = j == swap ? y1 : y2;
                  int LL = j == swap ? L1 : L2;
                  status = FN (lm_logprob) (AT (t, 3 + j), AT (t, 8), lm, theta, yy, LL);
                  if (status == RLREF_SUCCESS)
                    status = FN (lm_logprob) (AT (t, 6), AT (t, 8), lm, ref_logits, yy, LL);
                  num_sub (AT (t, 3 + j), AT (t, 3 + j), AT (t, 6));
                }
              num_sub (AT (t, 5), AT (t, 3), AT (t, 4));
              num_mul (AT (t, 5), AT (t, 5), beta);
              num_neg (AT (t, 5), AT (t, 5));
              if (status == RLREF_SUCCESS)
                status = FN (sigmoid) (AT (t, 5), AT (t, 5));
              num_mul (AT (t, 5), AT (t, 5), beta);
              num_mul (AT (t, 5), AT (t, 5), lr);
              num_div_si (AT (t, 5), AT (t, 5), n);
              if (status == RLREF_SUCCESS)
                status = add_path_gradient (g, lm, theta, swap ? y2 : y1, swap ? L2 : L1,
                                            AT (t, 5), AT (t, 8), AT (t, 6));
              num_neg (AT (t, 5), AT (t, 5));
              if (status == RLREF_SUCCESS)
                status = add_path_gradient (g, lm, theta, swap ? y1 : y2, swap ? L1 : L2,
                                            AT (t, 5), AT (t, 8), AT (t, 6));
            }
        }
      for (size_t i = 0; status == RLREF_SUCCESS && i < nl; i++)
        num_add (AT (theta, i), AT (theta, i), AT (g, i));
    }
  free (ys);
  free (lens);
  num_vec_free (g, nl);
  num_vec_free (t, 9 + 2 * (size_t) lm->V);
  num_vec_free (f, 2 * (size_t) n);
  return status;
}

#else
/* binary64: each run the MPFR program above, theta and the recorded values
 * rounded once at its end (round_once.h).  Between the steps of one call
 * theta is not rounded: the rounding of every step would be a perturbation
 * the exact run does not make, and the descent carries it (a reward far
 * above the logits, a margin that saturates the sigmoid). */
#include <string.h>
#include "round_once.h"

enum { TRAIN_EXACT, TRAIN_PAIR, TRAIN_SAMPLED };

typedef struct
{
  const rlref_lm *lm;
  size_t nl, nr;
  int kind, objective, steps, history, n;
  const int *yw, *yl;
  int Lw, Ll;
  gsl_rng *rng;                 /* the caller's generator, reset to start at each run */
  gsl_rng *start;               /* its state at the call */
} train_program;

/* Inputs (theta, ref_logits, reward if any, beta, lr) into xd; returns
 * their number. */
static size_t
pack (double *xd, const train_program *o, const double *theta, const double *ref_logits,
      const double *reward, const double *beta, const double *lr)
{
  size_t k = 0;
  memcpy (xd, theta, o->nl * sizeof *xd);
  memcpy (xd + o->nl, ref_logits, o->nl * sizeof *xd);
  k = 2 * o->nl;
  if (o->nr)
    memcpy (xd + k, reward, o->nr * sizeof *xd);
  k += o->nr;
  xd[k++] = beta[0];
  xd[k++] = lr[0];
  return k;
}

/* The program of o->kind, on a copy of the starting theta (x is
 * read-only): x = (theta, ref_logits, reward if any, beta, lr), y = (theta,
 * the recorded values). */
static int
train_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const train_program *o = ctx;
  mpfr_srcptr rw = o->nr ? x + 2 * o->nl : NULL, beta = x + 2 * o->nl + o->nr;
  for (size_t i = 0; i < o->nl; i++)
    mpfr_set (y + i, x + i, MPFR_RNDN);
  if (o->kind == TRAIN_PAIR)
    return rlref_lm_pair_descend_mp (y, y + o->nl, y + o->nl + (size_t) o->steps + 1, o->lm,
                                     x + o->nl, beta, o->objective, o->yw, o->Lw, o->yl,
                                     o->Ll, beta + 1, o->steps);
  if (o->kind == TRAIN_SAMPLED)
    {
      gsl_rng_memcpy (o->rng, o->start);
      return rlref_lm_sampled_descend_mp (y, o->history ? y + o->nl : NULL, o->lm, x + o->nl,
                                          rw, beta, o->objective, beta + 1, o->steps, o->n,
                                          o->rng);
    }
  return rlref_lm_descend_mp (y, y + o->nl, o->lm, x + o->nl, rw, beta, o->objective, beta + 1,
                              o->steps);
}

/* The shared frame: the model checked, the inputs packed, the program
 * rounded once, theta and the ny - nl recorded values written back. */
static int
train_round_once (train_program *o, double *theta, double *rec1,
                  double *rec2, size_t nrec, const double *ref_logits, const double *reward,
                  const double *beta, const double *lr, const char *what)
{
  size_t nx, ny;
  double *xd;
  int status;
  o->nl = o->lm->n_rows * (size_t) o->lm->V;
  o->nr = o->lm->reward == RLREF_REWARD_ADDITIVE && reward ? (size_t) o->lm->V + 2 : 0;
  ny = o->nl + (rec1 ? nrec : 0) + (rec2 ? nrec : 0);
  xd = malloc ((2 * o->nl + o->nr + 2 + ny) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  nx = pack (xd, o, theta, ref_logits, reward, beta, lr);
  status = rlref_round_once (xd + nx, ny, xd, nx, train_mp, o, what);
  if (status == RLREF_SUCCESS)
    {
      memcpy (theta, xd + nx, o->nl * sizeof *theta);
      if (rec1)
        memcpy (rec1, xd + nx + o->nl, nrec * sizeof *rec1);
      if (rec2)
        memcpy (rec2, xd + nx + o->nl + nrec, nrec * sizeof *rec2);
    }
  free (xd);
  return status;
}

int
FN (lm_descend) (num_ptr theta, num_ptr history, const rlref_lm *lm, num_srcptr ref_logits,
                 num_srcptr reward, num_srcptr beta, int objective, num_srcptr lr, int steps)
{
  train_program o = { 0 };
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  if (steps < 0 || !lr || !isfinite (lr[0]) || lr[0] <= 0)
    RLREF_ERROR ("steps >= 0 and a finite positive learning rate", RLREF_EDOM);
  if (!beta)
    RLREF_ERROR ("an argument is missing", RLREF_EINVAL);
  o = (train_program) { .lm = lm, .objective = objective, .steps = steps };
  return train_round_once (&o, theta, history, NULL, (size_t) steps + 1,
                           ref_logits, reward, beta, lr, "the descent");
}

int
FN (lm_pair_descend) (num_ptr theta, num_ptr logp_w, num_ptr logp_l, const rlref_lm *lm,
                      num_srcptr ref_logits, num_srcptr beta, int objective, const int *yw,
                      int Lw, const int *yl, int Ll, num_srcptr lr, int steps)
{
  train_program o = { 0 };
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  if (steps < 0 || !lr || !isfinite (lr[0]) || lr[0] <= 0 || !beta || !isfinite (beta[0])
      || beta[0] <= 0)
    RLREF_ERROR ("steps >= 0, a finite positive learning rate and beta", RLREF_EDOM);
  o = (train_program) { .lm = lm, .kind = TRAIN_PAIR, .objective = objective, .steps = steps,
                        .yw = yw, .yl = yl, .Lw = Lw, .Ll = Ll };
  return train_round_once (&o, theta, logp_w, logp_l, (size_t) steps + 1,
                           ref_logits, NULL, beta, lr, "the pair descent");
}

int
FN (lm_sampled_descend) (num_ptr theta, num_ptr history, const rlref_lm *lm,
                         num_srcptr ref_logits, num_srcptr reward, num_srcptr beta,
                         int objective, num_srcptr lr, int steps, int n, gsl_rng *rng)
{
  train_program o = { 0 };
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  if (n < 2 || steps < 0 || !rng || !lr || !isfinite (lr[0]) || lr[0] <= 0)
    RLREF_ERROR ("a batch of at least 2, steps >= 0, a positive learning rate and an rng",
                 RLREF_EDOM);
  if (!beta)
    RLREF_ERROR ("an argument is missing", RLREF_EINVAL);
  o = (train_program) { .lm = lm, .kind = TRAIN_SAMPLED, .objective = objective,
                        .steps = steps, .history = history != NULL, .n = n, .rng = rng,
                        .start = gsl_rng_clone (rng) };
  if (!o.start)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  status = train_round_once (&o, theta, history, NULL, (size_t) steps + 1,
                             ref_logits, reward, beta, lr, "the sampled descent");
  gsl_rng_free (o.start);
  return status;
}

/* x = (ref_logits, beta, lr); y = (logp_w before, after, logp_l before,
 * after, margin). */
static int
displace_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  const train_program *o = ctx;
  return rlref_lm_displace_mp (y, y + 2, y + 4, o->lm, x, x + o->nl, o->objective, o->yw,
                               o->Lw, o->yl, o->Ll, x + o->nl + 1, o->steps);
}

int
FN (lm_displace) (num_ptr logp_w, num_ptr logp_l, num_ptr margin, const rlref_lm *lm,
                  num_srcptr ref_logits, num_srcptr beta, int objective, const int *yw, int Lw,
                  const int *yl, int Ll, num_srcptr lr, int steps)
{
  train_program o = { 0 };
  double *xd, yd[5];
  size_t nx;
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  if (!beta || !lr)
    RLREF_ERROR ("an argument is missing", RLREF_EINVAL);
  o = (train_program) { .lm = lm, .nl = lm->n_rows * (size_t) lm->V, .objective = objective,
                        .steps = steps, .yw = yw, .yl = yl, .Lw = Lw, .Ll = Ll };
  nx = o.nl + 2;
  xd = malloc (nx * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, ref_logits, o.nl * sizeof *xd);
  xd[o.nl] = beta[0];
  xd[o.nl + 1] = lr[0];
  status = rlref_round_once (yd, 5, xd, nx, displace_mp, &o, "the pair descent's margin");
  free (xd);
  if (status == RLREF_SUCCESS)
    {
      logp_w[0] = yd[0];
      logp_w[1] = yd[1];
      logp_l[0] = yd[2];
      logp_l[1] = yd[3];
      margin[0] = yd[4];
    }
  return status;
}
#endif
