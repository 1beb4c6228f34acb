/* lm.c -- the tiny language model: exact moments of pi_ref and of the
 * KL-optimal policy pi* by enumeration of every sequence (LM-ENUM,
 * LM-EXACT, KLOPT-Z); the dynamic program of a bigram model (LM-DP) is in
 * lm_dp.c, the chain rule (LM-CHAIN) in lm_chain.c, the rows and sums
 * they share in lm_engine.h.  Written once against the scalar interface;
 * compiled for binary64 and MPFR. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/num.h"
#include "rlref/lm.h"
#include "rlref/primitives.h"
#include "num_eft.h"
#include "lm_engine.h"

#ifdef RLREF_MP
typedef rlref_lm_visit_mp visit_fn;
#else
typedef rlref_lm_visit_d visit_fn;
#endif


/* The last step, aggregated.  At a prefix of length T - 1 every child is
 * an outcome when cut sequences count (EOS, or cut at T), so for a bigram
 * model their sums are formed once per state s.  With p_a, lp_a of row s,
 * rho_a = r_a (+ truncated when a is not EOS) and q'_a = q_a (x e^{truncated
 * / beta} when a is not EOS):
 *   A0 = sum p_a,  mr = sum p_a rho_a / A0,  M2 = sum p_a (rho_a - mr)^2,
 *   mh = sum p_a lp_a / A0,  B0 2^eb = sum q'_a,  ms = sum q'_a rho_a / B0. */
enum { L_A0, L_MR, L_M2, L_MH, L_B0, L_MS, L_NVALS };

/* The same one token earlier: below a prefix of length T - 2 in state s,
 * the token a (not EOS) leads to state a, whose V children all end.  With
 * p, lp, q 2^qe of row s and token a, r_a its reward, and L the aggregates
 * of state a:
 *   PA = p A0,  LM = lp + mh,  RR = r_a + mr,  PM2 = p M2,
 *   QB 2^(qe + eb) = q B0,  RM = r_a + ms. */
enum { F_PA, F_LM, F_RR, F_PM2, F_QB, F_RM, F_NVALS };

/* m 2^e = e^t, m in [1, 2) (or e = 0 when e^t is within 2^+-512): the weights e^{r/beta} of a small beta are far
 * beyond binary64 (e^{1/0.001}), so they are carried as a mantissa and a
 * binary exponent.  ERANGE past |t| = 1e15. */
static int
exp_scaled (num_ptr m, long *e, num_srcptr t, num_srcptr ln2, num_ptr tmp)
{
  double k = num_get_d (t) / num_get_d (ln2);
  if (!(k > -1e15 && k < 1e15))
    return RLREF_ERANGE;
  /* within binary64's comfortable range no scaling (and no rounding of it) */
  *e = k > -512 && k < 512 ? 0 : (long) floor (k);
  num_mul_si (tmp, ln2, *e);
  num_sub (tmp, t, tmp);
  num_exp (m, tmp);
  return RLREF_SUCCESS;
}

int
FN (lm_rows_fill) (rows *R, size_t row, num_srcptr logits, num_ptr tmp)
{
  int V = R->V, status;
  status = FN (log_softmax) (AT (R->lp, row * V), logits, (size_t) V);
  for (int a = 0; a < V && status == RLREF_SUCCESS; a++)
    {
      size_t i = row * (size_t) V + (size_t) a;
      num_exp (AT (R->p, i), AT (R->lp, i));
      if (R->lm->reward == RLREF_REWARD_ADDITIVE)
        {
          /* q = e^{log pi + r_a / beta}, scaled */
          num_mul (AT (tmp, 0), AT (R->ra, a), R->inv_beta);
          num_add (AT (tmp, 0), AT (tmp, 0), AT (R->lp, i));
          status = exp_scaled (AT (R->q, i), &R->qe[i], AT (tmp, 0), R->ln2, AT (tmp, 1));
          if (status)
            RLREF_ERROR ("r/beta is beyond any exponent range", RLREF_ERANGE);
        }
      else
        {
          num_set (AT (R->q, i), AT (R->p, i));
          R->qe[i] = 0;
        }
    }
  return status;
}

void
FN (lm_rows_free) (rows *R)
{
  size_t n = R->nrows * (size_t) R->V;
  num_vec_free (R->lp, n);
  num_vec_free (R->p, n);
  num_vec_free (R->q, n);
  num_vec_free (R->ra, (size_t) R->V);
  num_vec_free (R->cut_w, 1);
  num_vec_free (R->inv_beta, 2);
  num_vec_free (R->last, R->nrows * L_NVALS + 2);
  num_vec_free (R->fuse, R->nrows * (size_t) R->V * F_NVALS);
  free (R->qe);
  free (R->last_e);
  free (R->fuse_e);
}

int
FN (lm_rows_init) (rows *R, const rlref_lm *lm, num_srcptr reward, num_srcptr beta, size_t nrows)
{
  size_t n = nrows * (size_t) lm->V;
  R->lm = lm;
  R->V = lm->V;
  R->nrows = nrows;
  R->lp = num_vec_new (n);
  R->p = num_vec_new (n);
  R->q = num_vec_new (n);
  R->ra = num_vec_new ((size_t) lm->V);
  R->cut_w = num_vec_new (1);
  R->inv_beta = num_vec_new (2);
  R->qe = malloc ((n ? n : 1) * sizeof (long));
  R->cut_e = 0;
  R->last = NULL;
  R->last_e = NULL;
  R->fuse = NULL;
  R->fuse_e = NULL;
  if (!R->lp || !R->p || !R->q || !R->ra || !R->cut_w || !R->inv_beta || !R->qe)
    {
      FN (lm_rows_free) (R);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  R->ln2 = AT (R->inv_beta, 1);
  num_set_d (R->ln2, 2.0);
  num_log (R->ln2, R->ln2);
  num_d_div (R->inv_beta, 1.0, beta);
  num_set_d (R->cut_w, 1.0);
  if (lm->reward == RLREF_REWARD_ADDITIVE)
    {
      /* r_a = token[a] + per_length; the cut sequence's weight e^{truncated/beta} */
      num_ptr t = AT (R->ra, 0), u = AT (R->ra, 1);
      num_mul (t, AT (reward, lm->V + 1), R->inv_beta);
      if (exp_scaled (R->cut_w, &R->cut_e, t, R->ln2, u))
        {
          FN (lm_rows_free) (R);
          RLREF_ERROR ("r/beta is beyond any exponent range", RLREF_ERANGE);
        }
      for (int a = 0; a < lm->V; a++)
        num_add (AT (R->ra, a), AT (reward, a), AT (reward, lm->V));
    }
  return RLREF_SUCCESS;
}

/* rho_a of the last step (the reward of the outcome y a, less the prefix's
 * reward) into rho, and q'_a = w 2^e. */
static void
last_child (rows *R, num_srcptr reward, size_t i, int a, num_ptr rho, num_ptr w, long *e)
{
  const rlref_lm *lm = R->lm;
  int cut = a != lm->eos, additive = lm->reward == RLREF_REWARD_ADDITIVE;
  num_set_zero (rho);
  if (additive)
    num_set (rho, AT (R->ra, a));
  if (additive && cut)
    num_add (rho, rho, AT (reward, R->V + 1));
  num_set (w, AT (R->q, i));
  *e = R->qe[i];
  if (additive && cut)
    {
      num_mul (w, w, R->cut_w);
      *e += R->cut_e;
    }
}

/* The values F of every (state, token) from the aggregates of the last step. */
static int
fuse_fill (rows *R)
{
  int V = R->V, additive = R->lm->reward == RLREF_REWARD_ADDITIVE;
  size_t n = R->nrows * (size_t) V;
  R->fuse = num_vec_new (n * F_NVALS);
  R->fuse_e = malloc (n * sizeof (long));
  if (!R->fuse || !R->fuse_e)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      int a = (int) (i % (size_t) V);
      num_srcptr L = AT (R->last, (size_t) a * L_NVALS), p = AT (R->p, i);
      num_ptr F = AT (R->fuse, i * F_NVALS);
      if (a == R->lm->eos)
        continue;
      num_mul (AT (F, F_PA), p, AT (L, L_A0));
      num_add (AT (F, F_LM), AT (R->lp, i), AT (L, L_MH));
      num_mul (AT (F, F_PM2), p, AT (L, L_M2));
      num_mul (AT (F, F_QB), AT (R->q, i), AT (L, L_B0));
      R->fuse_e[i] = R->qe[i] + R->last_e[a];
      num_set (AT (F, F_RR), AT (L, L_MR));
      num_set (AT (F, F_RM), AT (L, L_MS));
      if (additive)
        {
          num_add (AT (F, F_RR), AT (F, F_RR), AT (R->ra, a));
          num_add (AT (F, F_RM), AT (F, F_RM), AT (R->ra, a));
        }
    }
  return RLREF_SUCCESS;
}

/* The aggregates of the last step for every state of a bigram model whose
 * cut sequences count (R->last stays NULL otherwise). */
static int
last_fill (rows *R, num_srcptr reward)
{
  const rlref_lm *lm = R->lm;
  int V = R->V;
  size_t nrows = R->nrows;
  num_ptr rho, w;
  long e;
  if (lm->kind != RLREF_LM_BIGRAM || lm->truncation != RLREF_LM_KEEP
      || lm->reward == RLREF_REWARD_TABLE)
    return RLREF_SUCCESS;
  R->last = num_vec_new (nrows * L_NVALS + 2);
  R->last_e = malloc (nrows * sizeof (long));
  if (!R->last || !R->last_e)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  rho = AT (R->last, nrows * L_NVALS);
  w = AT (rho, 1);
  for (size_t s = 0; s < nrows; s++)
    {
      num_ptr L = AT (R->last, s * L_NVALS), p = AT (R->p, s * (size_t) V);
      long eb = LONG_MIN;
      for (int a = 0; a < V; a++)
        {
          last_child (R, reward, s * (size_t) V + (size_t) a, a, rho, w, &e);
          eb = e > eb ? e : eb;
        }
      R->last_e[s] = eb;
      for (int k = 0; k < L_NVALS; k++)
        num_set_zero (AT (L, k));
      for (int a = 0; a < V; a++)
        {
          last_child (R, reward, s * (size_t) V + (size_t) a, a, rho, w, &e);
          num_add (AT (L, L_A0), AT (L, L_A0), AT (p, a));
          num_mul_2si (w, w, e - eb);
          num_add (AT (L, L_B0), AT (L, L_B0), w);
          num_mul (w, w, rho);
          num_add (AT (L, L_MS), AT (L, L_MS), w);
          num_mul (w, AT (p, a), rho);
          num_add (AT (L, L_MR), AT (L, L_MR), w);
          num_mul (w, AT (p, a), AT (R->lp, s * (size_t) V + (size_t) a));
          num_add (AT (L, L_MH), AT (L, L_MH), w);
        }
      num_div (AT (L, L_MR), AT (L, L_MR), AT (L, L_A0));
      num_div (AT (L, L_MH), AT (L, L_MH), AT (L, L_A0));
      num_div (AT (L, L_MS), AT (L, L_MS), AT (L, L_B0));
      /* M2 about mr */
      for (int a = 0; a < V; a++)
        {
          last_child (R, reward, s * (size_t) V + (size_t) a, a, rho, w, &e);
          num_sub (rho, rho, AT (L, L_MR));
          num_sqr (rho, rho);
          num_mul (rho, rho, AT (p, a));
          num_add (AT (L, L_M2), AT (L, L_M2), rho);
        }
    }
  return lm->T >= 2 ? fuse_fill (R) : RLREF_SUCCESS;
}


/* s += x, with the rounding error carried in c (Neumaier's algorithm in
 * binary64; in MPFR the working precision carries it, c stays 0). */
static void
acc_add (num_ptr s, num_ptr c, num_srcptr x, num_ptr t)
{
#ifdef RLREF_MP
  (void) c;
  (void) t;
  num_add (s, s, x);
#else
  eft_comp_add_d (s, c, x[0]);
  (void) t;
#endif
}

#define ACC(S, k, x) acc_add (AT ((S)->s, k), AT ((S)->c, k), x, (S)->u)

/* w 2^e at the scale 2^we of W and WR (S->v, or w itself), moving W and
 * WR to the larger scale first. */
static num_srcptr
sums_scaled (sums *S, num_srcptr w, long e)
{
  if (!S->have_w || e > S->we)
    {
      /* a larger scale: W, WR and their compensations follow (exactly) */
      long shift = S->have_w ? S->we - e : 0;
      num_mul_2si (AT (S->s, S_W), AT (S->s, S_W), shift);
      num_mul_2si (AT (S->c, S_W), AT (S->c, S_W), shift);
      num_mul_2si (AT (S->s, S_WR), AT (S->s, S_WR), shift);
      num_mul_2si (AT (S->c, S_WR), AT (S->c, S_WR), shift);
      S->we = e;
      S->have_w = 1;
    }
  if (e != S->we)
    {
      num_mul_2si (S->v, w, e - S->we);
      w = S->v;
    }
  return w;
}

/* One outcome of probability p = e^{lp}, reward r, weight p e^{r/beta} =
 * w 2^e. */
static void
sums_add (sums *S, num_srcptr lp, num_srcptr p, num_srcptr r, num_srcptr w, long e)
{
  if (S->want_p)
    ACC (S, S_0, p);
  w = sums_scaled (S, w, e);
  ACC (S, S_W, w);
  S->n++;
  if (S->want_h && !num_is_zero (p))
    {
      /* 0 log 0 = 0: a probability that underflows adds nothing; also
       * SHC = sum p (log p - c) about the first outcome's (c, p_c) when p_c
       * is normal (moments_of) */
      num_mul (S->t, p, lp);
      ACC (S, S_H, S->t);
      if (!S->have_hc)
        {
          S->have_hc = num_get_exp (p) > -1000 ? 1 : -1;
          num_set (S->hc, lp);
          num_set (S->hp, p);
        }
      else if (S->have_hc == 1 && (num_mul_2si (S->t, S->hp, 1), num_cmp (p, S->t) > 0))
        {
          /* more than twice the anchor: the anchor moves here, SHC by
           * -(SHO + p_c) (lp - c), the old anchor joins SHO */
          num_add (S->t, AT (S->s, S_HO), AT (S->c, S_HO));
          num_add (S->t, S->t, S->hp);
          num_sub (S->u, lp, S->hc);
          num_mul (S->t, S->t, S->u);
          num_neg (S->t, S->t);
          ACC (S, S_HC, S->t);
          ACC (S, S_HO, S->hp);
          num_set (S->hc, lp);
          num_set (S->hp, p);
        }
      else if (S->have_hc == 1)
        {
          /* SHO: the mass of the outcomes other than the anchor */
          ACC (S, S_HO, p);
          num_sub (S->t, lp, S->hc);
          num_mul (S->t, S->t, p);
          ACC (S, S_HC, S->t);
        }
    }
  if (S->want_r)
    {
      if (!S->have_shift)
        {
          num_set (S->shift, r);
          S->have_shift = 1;
        }
      num_sub (S->t, r, S->shift);
      num_mul (S->t, S->t, p);
      ACC (S, S_R, S->t);
      num_sub (S->u, r, S->shift);
      num_mul (S->t, S->t, S->u);
      ACC (S, S_R2, S->t);
    }
  if (S->want_star)
    {
      num_mul (S->t, w, r);
      ACC (S, S_WR, S->t);
    }
}

/* Every outcome below the prefix y a, y of length T - 2 in state s (of
 * probability P = e^{LP}, reward R, weight W 2^e) and a not EOS, from the
 * values F of (s, a) (fuse_fill): with D = R - c,
 *   S0 += P PA,  SH += P PA (LP + LM),  SR += P PA (D + RR),
 *   SR2 += P PA (D + RR)^2 + P PM2,  W += W QB 2^(e + qe + eb),
 *   WR += W QB 2^(...) (R + RM):
 * the sums over the V children of y a (SR2 by the parallel-axis rule: no
 * cancellation, non-negative parts). */
static void
sums_add_fused (sums *S, num_srcptr F, long fe, int V, num_srcptr lp, num_srcptr p,
                num_srcptr r, num_srcptr w, long e)
{
  num_ptr t = S->t, u = S->u, x = S->x;
  S->n += (uint64_t) V;
  if (S->want_p)
    {
      num_mul (t, p, AT (F, F_PA));
      ACC (S, S_0, t);
    }
  if (S->want_h)
    {
      /* not an anchor (many outcomes) */
      if (!S->have_hc)
        S->have_hc = -1;
      if (S->have_hc == 1)
        {
          ACC (S, S_HO, t);
          num_sub (x, lp, S->hc);
          num_add (x, x, AT (F, F_LM));
          num_mul (x, x, t);
          ACC (S, S_HC, x);
        }
      num_add (x, lp, AT (F, F_LM));
      num_mul (x, x, t);
      ACC (S, S_H, x);
    }
  if (S->want_r)
    {
      if (!S->have_shift)
        {
          num_add (S->shift, r, AT (F, F_RR));
          S->have_shift = 1;
        }
      num_sub (x, r, S->shift);
      num_add (x, x, AT (F, F_RR));
      num_mul (u, t, x);
      ACC (S, S_R, u);
      num_mul (u, u, x);
      num_mul (x, p, AT (F, F_PM2));
      num_add (u, u, x);
      ACC (S, S_R2, u);
    }
  num_mul (x, w, AT (F, F_QB));
  w = sums_scaled (S, x, e + fe);
  ACC (S, S_W, w);
  if (S->want_star)
    {
      num_add (t, r, AT (F, F_RM));
      num_mul (t, t, w);
      ACC (S, S_WR, t);
    }
}

void
FN (lm_sums_free) (sums *S)
{
  num_vec_free (S->s, S_NSUMS);
  num_vec_free (S->c, S_NSUMS);
  num_vec_free (S->shift, 7);
}

int
FN (lm_sums_init) (sums *S, unsigned want)
{
  S->s = num_vec_new (S_NSUMS);
  S->c = num_vec_new (S_NSUMS);
  S->shift = num_vec_new (7);
  if (!S->s || !S->c || !S->shift)
    {
      FN (lm_sums_free) (S);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  S->t = AT (S->shift, 1);
  S->u = AT (S->shift, 2);
  S->v = AT (S->shift, 3);
  S->x = AT (S->shift, 4);
  S->hc = AT (S->shift, 5);
  S->hp = AT (S->shift, 6);
  S->have_hc = 0;
  S->have_shift = 0;
  S->we = 0;
  S->have_w = 0;
  S->n = 0;
  S->want_h = (want & (1u << RLREF_LM_ENTROPY)) != 0;
  S->want_r = (want & (1u << RLREF_LM_MEAN_R | 1u << RLREF_LM_VAR_R
                       | 1u << RLREF_LM_KL_REF_STAR)) != 0;
  S->want_star = (want & (1u << RLREF_LM_MEAN_R_STAR | 1u << RLREF_LM_KL_STAR_REF)) != 0;
  /* the mass: wanted, or the divisor of a wanted moment */
  S->want_p = (want & (1u << RLREF_LM_TOTAL)) != 0 || S->want_h || S->want_r;
  return RLREF_SUCCESS;
}

/* The moments from the sums (rlref/lm.h); those not wanted are NaN.  The
 * counted outcomes carry mass S0 (1, or P(EOS within T) when cut sequences
 * are conditioned away): the distribution is p / S0, so H = -SH/S0 + log S0,
 * log Z = log (W / S0), E[r] = c + SR/S0, Var[r] = SR2/S0 - (SR/S0)^2. */
int
FN (lm_moments_of) (num_ptr m, sums *S, num_srcptr inv_beta, num_srcptr ln2, unsigned want, int keep)
{
  num_ptr s = S->s, t = S->t, u = S->u;
  for (int k = 0; k < S_NSUMS; k++)
    num_add (AT (s, k), AT (s, k), AT (S->c, k));
  if (S->n)
    num_set_d (AT (s, S_N), (double) S->n);
  if (num_is_zero (AT (s, S_W)) || !num_is_finite (AT (s, S_W))
      || (S->want_p && (num_is_zero (AT (s, S_0)) || !num_is_finite (AT (s, S_0)))))
    RLREF_ERROR ("the probabilities leave the range of the format (use the MPFR path)",
                 RLREF_ERANGE);
  for (int k = 0; k < RLREF_LM_NMOMENTS; k++)
    num_set_nan (AT (m, k));
  num_set (AT (m, RLREF_LM_COUNT), AT (s, S_N));
  if (S->want_p)
    num_set (AT (m, RLREF_LM_TOTAL), AT (s, S_0));
  /* when cut sequences are kept the mass is 1 by construction: its
   * rounded sum is reported (when formed), not divided by (log 1 = 0
   * exactly) */
  if (keep)
    num_set_zero (u);
  else
    num_log (u, AT (s, S_0));
  if (S->want_h)
    {
      if (keep)
        num_set (t, AT (s, S_H));
      else
        num_div (t, AT (s, S_H), AT (s, S_0));
      int anchored = !keep && S->have_hc == 1;
      if (anchored)
        {
          num_mul_2si (S->v, S->hp, 1);
          anchored = num_cmp (S->v, AT (s, S_0)) >= 0;
        }
      if (anchored)
        {
          /* p_c >= S0/2: H = -SHC/S0 + log S0 - c = -SHC/S0 + log1p (SHO/p_c)
           * (+ log p_c - c, 0 but for rounding), S0 = p_c + SHO: non-negative
           * parts when p_c is the likeliest, 0 exactly for one outcome */
          num_div (t, AT (s, S_HC), AT (s, S_0));
          num_div (S->v, AT (s, S_HO), S->hp);
          num_log1p (S->v, S->v);
          num_sub (AT (m, RLREF_LM_ENTROPY), S->v, t);
        }
      else
        num_sub (AT (m, RLREF_LM_ENTROPY), u, t);
    }
  /* log Z = log W + we log 2 - log S0 */
  num_log (AT (m, RLREF_LM_LOG_Z), AT (s, S_W));
  num_mul_si (t, ln2, S->we);
  num_add (AT (m, RLREF_LM_LOG_Z), AT (m, RLREF_LM_LOG_Z), t);
  num_sub (AT (m, RLREF_LM_LOG_Z), AT (m, RLREF_LM_LOG_Z), u);
  if (S->want_r)
    {
      num_div (t, AT (s, S_R), AT (s, S_0));
      num_add (AT (m, RLREF_LM_MEAN_R), S->shift, t);
      num_div (AT (m, RLREF_LM_VAR_R), AT (s, S_R2), AT (s, S_0));
      num_sqr (t, t);
      num_sub (AT (m, RLREF_LM_VAR_R), AT (m, RLREF_LM_VAR_R), t);
      /* KL(pi_ref || pi*) = log Z - E[r]/beta */
      num_mul (t, AT (m, RLREF_LM_MEAN_R), inv_beta);
      num_sub (AT (m, RLREF_LM_KL_REF_STAR), AT (m, RLREF_LM_LOG_Z), t);
    }
  if (S->want_star)
    {
      /* KL(pi* || pi_ref) = E*[r]/beta - log Z */
      num_div (AT (m, RLREF_LM_MEAN_R_STAR), AT (s, S_WR), AT (s, S_W));
      num_mul (t, AT (m, RLREF_LM_MEAN_R_STAR), inv_beta);
      num_sub (AT (m, RLREF_LM_KL_STAR_REF), t, AT (m, RLREF_LM_LOG_Z));
    }
  want |= 1u << RLREF_LM_COUNT | 1u << RLREF_LM_LOG_Z | (S->want_p ? 1u << RLREF_LM_TOTAL : 0);
  for (int k = 0; k < RLREF_LM_NMOMENTS; k++)
    if (!(want & (1u << k)))
      num_set_nan (AT (m, k));
    else if (!num_is_finite (AT (m, k)))
      RLREF_ERROR ("a moment leaves the range of the format (rewards near its end)",
                   RLREF_ERANGE);
  return RLREF_SUCCESS;
}

/* The reward of a table model for the sequence of code `code`: the listed
 * one, else the default.  *next walks the table in enumeration order. */
static double
table_reward (const rlref_lm *lm, uint64_t code, size_t *next)
{
  while (*next < lm->n_table && lm->table_code[*next] < code)
    ++*next;
  if (*next < lm->n_table && lm->table_code[*next] == code)
    return lm->table_reward[*next];
  return lm->table_default;
}

/* h(u) = e^u - 1 - u and g(u) = u e^u - e^u + 1, both >= 0, without
 * cancellation: for |u| < 1 their Taylor series, h = sum_{k>=2} u^k/k!,
 * g = sum_{k>=2} (k - 1) u^k/k! (terms until they no longer count at the
 * working precision); else h = expm1(u) - u and g = e^u (u - 1) + 1. */
void
FN (lm_h_and_g) (num_ptr h, num_ptr g, num_srcptr u, num_ptr term, num_ptr t)
{
  if (num_cmp_d (u, -1.0) > 0 && num_cmp_d (u, 1.0) < 0)
    {
      long prec = num_prec ();
      num_sqr (term, u);
      num_mul_2si (term, term, -1);
      num_set (h, term);
      num_set (g, term);
      for (long k = 3; !num_is_zero (term); k++)
        {
          num_mul (term, term, u);
          num_div_si (term, term, k);
          num_add (h, h, term);
          num_mul_si (t, term, k - 1);
          num_add (g, g, t);
          if (num_get_exp (term) < num_get_exp (h) - prec - 4)
            break;
        }
      return;
    }
  num_expm1 (t, u);
  num_sub (h, t, u);
  num_exp (t, u);
  num_sub_d (g, u, 1.0);
  num_mul (g, g, t);
  num_add_d (g, g, 1.0);
}

/* When E*[r]/beta and log Z (or log Z and E[r]/beta) nearly cancel, two
 * more passes form the KLs from non-negative terms.  With c = E*[r] from
 * the first pass and v = (r - c)/beta:
 *   A: L' = log Z - c/beta = log (sum p e^v / S0), from sum p e^v, or from
 *      log1p (sum p expm1(v) / S0) when it is near 0;
 *   B: u = v - L' = log (pi*(y)/pi_ref(y)),
 *      KL(pi* || pi_ref) = sum pi_ref g(u),  KL(pi_ref || pi*) = sum pi_ref h(u). */
enum { K_E, K_D, K_STAR, K_REF, K_NSUMS };

/* Per depth d = 0..T: the values of the prefix y_1..y_d. */
enum { D_LP, D_P, D_R, D_W, D_NVALS };

/* One depth-first pass.  With visit, log Z is known (m holds it) and every
 * sequence is shown; otherwise the sums are accumulated. */
static int
pass (const rlref_lm *lm, num_srcptr logits, num_srcptr reward, rows *R, sums *S, num_ptr tmp,
      num_srcptr log_z, num_srcptr log_mass, visit_fn *visit, void *ctx, num_ptr kl,
      int kl_second)
{
  /* log p of a prefix is formed only where something reads it */
  int need_lp = visit || S->want_h || lm->reward == RLREF_REWARD_TABLE;
  /* p of a prefix likewise (without a reward the weight is p) */
  int need_p = visit || kl || S->want_p || lm->reward == RLREF_REWARD_NONE;
  num_ptr ku = AT (tmp, lm->V), km = AT (tmp, lm->V + 1), kh = AT (tmp, lm->V + 2),
    kt = AT (tmp, lm->V + 3), kc = AT (tmp, lm->V + 4);
  uint64_t done = 0;
  double total = rlref_lm_num_sequences (lm);
  int V = lm->V, T = lm->T, eos = lm->eos, d = 0, status = RLREF_SUCCESS;
  int y[RLREF_LM_MAX_T], child[RLREF_LM_MAX_T];
  size_t row[RLREF_LM_MAX_T], next_table = 0;
  uint64_t pow_v[RLREF_LM_MAX_T + 1], code[RLREF_LM_MAX_T + 1];
  long we[RLREF_LM_MAX_T + 1], leaf_e = 0;
  num_ptr dv = num_vec_new ((size_t) (T + 1) * D_NVALS), leaf = num_vec_new (D_NVALS + 1);
  if (!dv || !leaf)
    {
      num_vec_free (dv, (size_t) (T + 1) * D_NVALS);
      num_vec_free (leaf, D_NVALS + 1);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  pow_v[0] = 1;
  for (int t = 1; t <= T; t++)
    pow_v[t] = pow_v[t - 1] * (uint64_t) (V + 1);
  code[0] = 0;
  /* the empty prefix: log p 0, p 1, r 0, w 1 */
  num_set_zero (AT (dv, D_LP));
  num_set_d (AT (dv, D_P), 1.0);
  num_set_zero (AT (dv, D_R));
  num_set_d (AT (dv, D_W), 1.0);
  we[0] = 0;
  child[0] = 0;
  if (lm->kind == RLREF_LM_BIGRAM)
    row[0] = (size_t) V;
  else
    {
      row[0] = 0;
      status = FN (lm_rows_fill) (R, 0, logits, tmp);
    }
  while (status == RLREF_SUCCESS)
    {
      int a, cut;
      size_t k;
      num_ptr here;
      if (child[d] == V)
        {
          if (d == 0)
            break;
          d--;
          continue;
        }
      a = child[d]++;
      y[d] = a;
      k = row[d] * (size_t) V + (size_t) a;
      here = AT (dv, d * D_NVALS);
      cut = a != eos && d + 1 == T;
      if (a != eos && d + 2 == T && R->fuse && !visit && !kl)
        {
          /* every child of y a an outcome: the values of (state, a)
           * (without a reward, r = 0 (the root's) and the weight is p) */
          uint64_t before = done;
          int additive = lm->reward == RLREF_REWARD_ADDITIVE;
          sums_add_fused (S, AT (R->fuse, k * F_NVALS), R->fuse_e[k], V, AT (here, D_LP),
                          AT (here, D_P), additive ? AT (here, D_R) : AT (dv, D_R),
                          additive ? AT (here, D_W) : AT (here, D_P), additive ? we[d] : 0);
          done += (uint64_t) V;
          if (lm->progress && (done >> 16) != (before >> 16))
            lm->progress (lm->progress_ctx, (double) done / total);
          continue;
        }
      if (a != eos && !cut)
        {
          /* descend to the prefix y_1..y_{d+1} */
          num_ptr down = AT (dv, (d + 1) * D_NVALS);
          if (need_lp)
            num_add (AT (down, D_LP), AT (here, D_LP), AT (R->lp, k));
          if (need_p)
            num_mul (AT (down, D_P), AT (here, D_P), AT (R->p, k));
          if (lm->reward == RLREF_REWARD_ADDITIVE)
            {
              num_add (AT (down, D_R), AT (here, D_R), AT (R->ra, a));
              num_mul (AT (down, D_W), AT (here, D_W), AT (R->q, k));
              we[d + 1] = we[d] + R->qe[k];
            }
          code[d + 1] = code[d] + (uint64_t) (a + 1) * pow_v[T - 1 - d];
          d++;
          child[d] = 0;
          if (lm->kind == RLREF_LM_BIGRAM)
            row[d] = (size_t) a;
          else
            {
              row[d] = (size_t) d;
              status = FN (lm_rows_fill) (R, (size_t) d,
                                  AT (logits, rlref_lm_prefix_index (V, eos, y, d) * (size_t) V),
                                  tmp);
            }
          continue;
        }
      if (cut && lm->truncation == RLREF_LM_CONDITION)
        continue;
      /* an outcome: y_1..y_{d+1}, ended by EOS or cut at T */
      if (need_lp)
        num_add (AT (leaf, D_LP), AT (here, D_LP), AT (R->lp, k));
      if (need_p)
        num_mul (AT (leaf, D_P), AT (here, D_P), AT (R->p, k));
      switch (lm->reward)
        {
        case RLREF_REWARD_ADDITIVE:
          num_add (AT (leaf, D_R), AT (here, D_R), AT (R->ra, a));
          num_mul (AT (leaf, D_W), AT (here, D_W), AT (R->q, k));
          leaf_e = we[d] + R->qe[k];
          if (cut)
            {
              num_add (AT (leaf, D_R), AT (leaf, D_R), AT (reward, V + 1));
              num_mul (AT (leaf, D_W), AT (leaf, D_W), R->cut_w);
              leaf_e += R->cut_e;
            }
          break;
        case RLREF_REWARD_TABLE:
          num_set_d (AT (leaf, D_R),
                     table_reward (lm, code[d] + (uint64_t) (a + 1) * pow_v[T - 1 - d],
                                   &next_table));
          /* w 2^e = e^{log p + r / beta} */
          num_mul (AT (leaf, D_NVALS), AT (leaf, D_R), R->inv_beta);
          num_add (AT (leaf, D_NVALS), AT (leaf, D_NVALS), AT (leaf, D_LP));
          if (exp_scaled (AT (leaf, D_W), &leaf_e, AT (leaf, D_NVALS), R->ln2, tmp))
            status = RLREF_ERANGE;
          break;
        default:
          num_set_zero (AT (leaf, D_R));
          num_set (AT (leaf, D_W), AT (leaf, D_P));
          leaf_e = 0;
          break;
        }
      if (visit)
        {
          /* in the distribution of the counted outcomes, log pi_ref(y) - log
           * mass; log pi*(y) = that + r/beta - log Z */
          num_ptr star = AT (leaf, D_NVALS);
          num_sub (AT (leaf, D_LP), AT (leaf, D_LP), log_mass);
          num_mul (star, AT (leaf, D_R), R->inv_beta);
          num_add (star, star, AT (leaf, D_LP));
          num_sub (star, star, log_z);
          visit (ctx, y, d + 1, cut, AT (leaf, D_LP), AT (leaf, D_R), star);
        }
      else if (kl)
        {
          /* v = (r - c)/beta, c = kl[2 K_NSUMS], L' = kl[2 K_NSUMS + 1] */
          num_sub (ku, AT (leaf, D_R), AT (kl, 2 * K_NSUMS));
          num_mul (ku, ku, R->inv_beta);
          if (!kl_second)
            {
              /* A: sum p e^v (scaled like W), sum p expm1(v) */
              long e;
              if (exp_scaled (km, &e, ku, R->ln2, kt))
                status = RLREF_ERANGE;
              else if (e > -1000)
                {
                  num_mul (km, km, AT (leaf, D_P));
                  num_mul_2si (km, km, e);
                  acc_add (AT (kl, K_E), AT (kl, K_NSUMS + K_E), km, kc);
                }
              num_expm1 (kt, ku);
              num_mul (kt, kt, AT (leaf, D_P));
              acc_add (AT (kl, K_D), AT (kl, K_NSUMS + K_D), kt, kc);
            }
          else
            {
              /* B: u = v - L'; p h(u) and p g(u) */
              num_sub (ku, ku, AT (kl, 2 * K_NSUMS + 1));
              FN (lm_h_and_g) (kh, km, ku, kt, kc);
              num_mul (km, km, AT (leaf, D_P));
              acc_add (AT (kl, K_STAR), AT (kl, K_NSUMS + K_STAR), km, kc);
              num_mul (kh, kh, AT (leaf, D_P));
              acc_add (AT (kl, K_REF), AT (kl, K_NSUMS + K_REF), kh, kc);
            }
        }
      else
        sums_add (S, AT (leaf, D_LP), AT (leaf, D_P), AT (leaf, D_R), AT (leaf, D_W), leaf_e);
      if (lm->progress && (++done & 0xffff) == 0)
        lm->progress (lm->progress_ctx, (double) done / total);
    }
  num_vec_free (dv, (size_t) (T + 1) * D_NVALS);
  num_vec_free (leaf, D_NVALS + 1);
  return status;
}

/* 1 when a KL or log Z is below 2^-CANCEL_BITS of the terms it is formed
 * from (the bits the plain form may lose, at most 2^CANCEL_BITS ulps). */
#define CANCEL_BITS 3

int
FN (lm_cancels) (num_srcptr m, num_srcptr inv_beta, num_ptr t)
{
  long e_z = num_get_exp (AT (m, RLREF_LM_LOG_Z));
  if (!num_is_zero (AT (m, RLREF_LM_LOG_Z)) && e_z < -CANCEL_BITS)
    return 1;
  for (int k = RLREF_LM_KL_STAR_REF; k <= RLREF_LM_KL_REF_STAR; k++)
    {
      int mean = k == RLREF_LM_KL_STAR_REF ? RLREF_LM_MEAN_R_STAR : RLREF_LM_MEAN_R;
      if (num_is_nan (AT (m, k)))
        continue;
      num_mul (t, AT (m, mean), inv_beta);
      num_abs (t, t);
      if (num_is_zero (AT (m, k))
          || num_get_exp (AT (m, k)) < num_get_exp (t) - CANCEL_BITS
          || num_get_exp (AT (m, k)) < e_z - CANCEL_BITS)
        return 1;
    }
  return 0;
}

/* After pass A: L' = log (E / S0), or log1p (D / S0) when E / S0 is
 * within [1/2, 2] (kl[2 K_NSUMS + 1]). */
static void
shifted_log_z (num_ptr kl, num_srcptr s0, num_ptr t)
{
  for (int k = K_E; k <= K_D; k++)
    {
      num_add (AT (kl, k), AT (kl, k), AT (kl, K_NSUMS + k));
      num_set_zero (AT (kl, K_NSUMS + k));
    }
  num_div (t, AT (kl, K_E), s0);
  if (num_cmp_d (t, 0.5) >= 0 && num_cmp_d (t, 2.0) <= 0)
    {
      num_div (t, AT (kl, K_D), s0);
      num_log1p (AT (kl, 2 * K_NSUMS + 1), t);
    }
  else
    num_log (AT (kl, 2 * K_NSUMS + 1), t);
}

/* After pass B: the KLs divided by the mass; log Z = c/beta + L'. */
static void
stable_kls (num_ptr m, num_ptr kl, num_srcptr s0, num_srcptr inv_beta, unsigned want,
            num_ptr t)
{
  for (int k = K_STAR; k <= K_REF; k++)
    num_add (AT (kl, k), AT (kl, k), AT (kl, K_NSUMS + k));
  if (want & (1u << RLREF_LM_KL_STAR_REF))
    num_div (AT (m, RLREF_LM_KL_STAR_REF), AT (kl, K_STAR), s0);
  if (want & (1u << RLREF_LM_KL_REF_STAR))
    num_div (AT (m, RLREF_LM_KL_REF_STAR), AT (kl, K_REF), s0);
  num_mul (t, AT (kl, 2 * K_NSUMS), inv_beta);
  num_add (AT (m, RLREF_LM_LOG_Z), t, AT (kl, 2 * K_NSUMS + 1));
}

/* Every logit and reward term finite. */
int
FN (lm_inputs_finite) (const rlref_lm *lm, num_srcptr logits, num_srcptr reward, num_srcptr beta)
{
  size_t n = lm->n_rows * (size_t) lm->V;
  for (size_t i = 0; i < n; i++)
    if (!num_is_finite (AT (logits, i)))
      RLREF_ERROR ("a logit is not finite", RLREF_ENAN);
  if (lm->reward == RLREF_REWARD_ADDITIVE)
    {
      if (!reward)
        RLREF_ERROR ("an additive reward needs its V + 2 values", RLREF_EINVAL);
      for (int i = 0; i < lm->V + 2; i++)
        if (!num_is_finite (AT (reward, i)))
          RLREF_ERROR ("a reward term is not finite", RLREF_ENAN);
    }
  if (!num_is_finite (beta) || num_sgn (beta) <= 0)
    RLREF_ERROR ("beta must be finite and positive", RLREF_EDOM);
  return RLREF_SUCCESS;
}

int
FN (lm_moments) (num_ptr m, const rlref_lm *lm, num_srcptr logits, num_srcptr reward,
                 num_srcptr beta, unsigned want, visit_fn *visit, void *ctx)
{
  rows R;
  sums S;
  num_ptr tmp;
  int status = rlref_lm_check (lm);
  if (status == RLREF_SUCCESS)
    status = FN (lm_inputs_finite) (lm, logits, reward, beta);
  if (status)
    return status;
  if (rlref_lm_num_sequences (lm) > RLREF_LM_MAX_SEQUENCES)
    RLREF_ERROR ("too many sequences to enumerate (more than 1e8): use the DP form "
                 "(a bigram model with an additive reward)", RLREF_EINVAL);
  status = FN (lm_rows_init) (&R, lm, reward, beta, lm->kind == RLREF_LM_BIGRAM ? (size_t) lm->V + 1
                      : (size_t) lm->T);
  if (status)
    return status;
  tmp = num_vec_new ((size_t) lm->V + 7 + 2 * K_NSUMS);
  if (!tmp || FN (lm_sums_init) (&S, want))
    {
      num_vec_free (tmp, (size_t) lm->V + 7 + 2 * K_NSUMS);
      FN (lm_rows_free) (&R);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  /* without cut sequences the mass divides every moment; the visits read it */
  S.want_p |= lm->truncation != RLREF_LM_KEEP || visit != NULL;
  /* the entropy's anchor when the mass is a sum (cut sequences conditioned away) */
  if (lm->truncation == RLREF_LM_KEEP)
    S.have_hc = -1;
  for (size_t s = 0; lm->kind == RLREF_LM_BIGRAM && s < R.nrows && status == RLREF_SUCCESS;
       s++)
    status = FN (lm_rows_fill) (&R, s, AT (logits, s * (size_t) lm->V), tmp);
  if (status == RLREF_SUCCESS)
    status = last_fill (&R, reward);
  if (status == RLREF_SUCCESS)
    status = pass (lm, logits, reward, &R, &S, tmp, NULL, NULL, NULL, NULL, NULL, 0);
  if (status == RLREF_SUCCESS)
    status = FN (lm_moments_of) (m, &S, R.inv_beta, R.ln2, want, lm->truncation == RLREF_LM_KEEP);
  if (status == RLREF_SUCCESS && (want & (1u << RLREF_LM_KL_STAR_REF | 1u << RLREF_LM_KL_REF_STAR))
      && lm->reward != RLREF_REWARD_NONE && FN (lm_cancels) (m, R.inv_beta, S.t))
    {
      /* two more passes form the KLs (and log Z) without cancellation;
       * the mass is S0, or 1 when cut sequences count (as in moments_of) */
      num_ptr kl = AT (tmp, lm->V + 5), mass = S.x;
      if (lm->truncation == RLREF_LM_KEEP)
        num_set_d (mass, 1.0);
      else
        num_set (mass, AT (S.s, S_0));
      for (int k = 0; k < 2 * K_NSUMS; k++)
        num_set_zero (AT (kl, k));
      num_set (AT (kl, 2 * K_NSUMS), AT (m, RLREF_LM_MEAN_R_STAR));
      status = pass (lm, logits, reward, &R, &S, tmp, NULL, NULL, NULL, NULL, kl, 0);
      if (status == RLREF_SUCCESS)
        {
          shifted_log_z (kl, mass, S.t);
          status = pass (lm, logits, reward, &R, &S, tmp, NULL, NULL, NULL, NULL, kl, 1);
        }
      if (status == RLREF_SUCCESS)
        stable_kls (m, kl, mass, R.inv_beta, want, S.t);
    }
  if (status == RLREF_SUCCESS && visit)
    {
      num_log (S.t, AT (m, RLREF_LM_TOTAL));
      status = pass (lm, logits, reward, &R, &S, tmp, AT (m, RLREF_LM_LOG_Z), S.t, visit, ctx,
                     NULL, 0);
    }
  num_vec_free (tmp, (size_t) lm->V + 7 + 2 * K_NSUMS);
  FN (lm_sums_free) (&S);
  FN (lm_rows_free) (&R);
  return status;
}
