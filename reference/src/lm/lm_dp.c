/* lm_dp.c -- the tiny language model's moments by dynamic programming
 * (LM-DP): a bigram model with an additive reward, its states the last
 * token, instead of every sequence.  Written once against the scalar
 * interface; compiled for binary64 and MPFR. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/num.h"
#include "rlref/lm.h"
#include "rlref/primitives.h"
#include "lm_engine.h"

/* The DP form's model and inputs: a bigram model, an additive reward or
 * none, finite inputs. */
static int
dp_check (const rlref_lm *lm, num_srcptr logits, num_srcptr reward, num_srcptr beta)
{
  int status = rlref_lm_check (lm);
  if (status)
    return status;
  if (lm->kind != RLREF_LM_BIGRAM || lm->reward == RLREF_REWARD_TABLE)
    RLREF_ERROR ("the DP form needs a bigram model with an additive reward (or none)",
                 RLREF_EINVAL);
  return FN (lm_inputs_finite) (lm, logits, reward, beta);
}

#ifdef RLREF_MP
/* LM-DP.  For s a state and k tokens left, over the continuations c from
 * s (EOS-ended, or cut after k tokens when they count), with p(c) their
 * probability and r(c) their reward:
 *   P = sum p, A = sum p log p, R1 = sum p r, R2 = sum p r^2,
 *   W = sum p e^{r/beta}, WR = sum p e^{r/beta} r, N = the count.
 * With no token left a cut sequence is the one continuation (r = truncated)
 * or none; then, for each token a (q_a = p_a e^{r_a/beta}),
 *   EOS:  P += p_a, A += p_a lp_a, R1 += p_a r_a, ...;
 *   else, with the values ' of (k - 1, a):
 *   P += p_a P', A += p_a (lp_a P' + A'), R1 += p_a (r_a P' + R1'),
 *   R2 += p_a (r_a^2 P' + 2 r_a R1' + R2'), W += q_a W',
 *   WR += q_a (r_a W' + WR'), N += N'. */
enum { P_P, P_A, P_R1, P_R2, P_W, P_WR, P_N, P_WD, P_HH, P_GG, P_NVALS };

/* Near beta = infinity (or r -> 0) log Z and the KLs are far below the
 * terms E[r]/beta they are formed from.  With v = r/beta, h(v) = e^v - 1 -
 * v and g(v) = v e^v - e^v + 1 (h_and_g) the DP also carries, unscaled,
 *   WD = sum p expm1(v),  HH = sum p h(v),  GG = sum p g(v),
 * which follow v = v_a + v' exactly:
 *   expm1(v) = expm1(v_a) + e^{v_a} expm1(v'),
 *   h(v) = e^{v_a} h(v') + h(v_a) + v' expm1(v_a),
 *   g(v) = e^{v_a} g(v') + g(v_a) + v_a e^{v_a} expm1(v');
 * then with d = WD/S0 and u = log1p(d) = log Z,
 *   KL(pi_ref || pi*) = HH/S0 - h(u),  KL(pi* || pi_ref) = (GG/S0 - g(u)) / (1 + d)
 * (log E e^v - E v and E*[v] - log Z with the O(v) parts taken out). */
enum { E_V, E_M1, E_EX, E_H, E_G, E_NVALS };

/* v, expm1(v), e^v, h(v), g(v) into ev. */
static void
ev_fill (num_ptr ev, num_srcptr v, num_ptr t1, num_ptr t2)
{
  num_set (AT (ev, E_V), v);
  num_expm1 (AT (ev, E_M1), v);
  num_exp (AT (ev, E_EX), v);
  FN (lm_h_and_g) (AT (ev, E_H), AT (ev, E_G), v, t1, t2);
}

/* One non-EOS token a of probability pa, e its (v, expm1, e^v, h, g), w
 * the values of its continuations: WD, HH, GG of v grow (above). */
static void
dp_small_v_step (num_ptr v, num_srcptr w, num_srcptr e, num_srcptr pa, num_srcptr inv_beta,
                 num_ptr t1, num_ptr t2)
{
  /* WD += p_a (expm1(v_a) P' + e^{v_a} WD') */
  num_mul (t1, AT (e, E_M1), AT (w, P_P));
  num_mul (t2, AT (e, E_EX), AT (w, P_WD));
  num_add (t1, t1, t2);
  num_mul (t1, t1, pa);
  num_add (AT (v, P_WD), AT (v, P_WD), t1);
  /* HH += p_a (e^{v_a} HH' + h(v_a) P' + expm1(v_a) R1'/beta) */
  num_mul (t1, AT (e, E_M1), AT (w, P_R1));
  num_mul (t1, t1, inv_beta);
  num_mul (t2, AT (e, E_H), AT (w, P_P));
  num_add (t1, t1, t2);
  num_mul (t2, AT (e, E_EX), AT (w, P_HH));
  num_add (t1, t1, t2);
  num_mul (t1, t1, pa);
  num_add (AT (v, P_HH), AT (v, P_HH), t1);
  /* GG += p_a (e^{v_a} GG' + g(v_a) P' + v_a e^{v_a} WD') */
  num_mul (t1, AT (e, E_V), AT (e, E_EX));
  num_mul (t1, t1, AT (w, P_WD));
  num_mul (t2, AT (e, E_G), AT (w, P_P));
  num_add (t1, t1, t2);
  num_mul (t2, AT (e, E_EX), AT (w, P_GG));
  num_add (t1, t1, t2);
  num_mul (t1, t1, pa);
  num_add (AT (v, P_GG), AT (v, P_GG), t1);
}

/* The start state's (d, h, g) sums into log Z and the KLs (above), when
 * they are finite and |d| <= 1/2; mass = S0 (1 when cut sequences count). */
static void
dp_small_v (num_ptr m, num_srcptr v, num_srcptr mass, num_ptr t)
{
  num_ptr d = AT (t, 0), u = AT (t, 1), hu = AT (t, 2), gu = AT (t, 3), x = AT (t, 4),
    y = AT (t, 5);
  if (!num_is_finite (AT (v, P_WD)) || !num_is_finite (AT (v, P_HH))
      || !num_is_finite (AT (v, P_GG)))
    return;
  num_div (d, AT (v, P_WD), mass);
  num_abs (x, d);
  if (num_cmp_d (x, 0.5) > 0)
    return;
  num_log1p (u, d);
  FN (lm_h_and_g) (hu, gu, u, x, y);
  num_set (AT (m, RLREF_LM_LOG_Z), u);
  num_div (x, AT (v, P_HH), mass);
  num_sub (AT (m, RLREF_LM_KL_REF_STAR), x, hu);
  num_div (x, AT (v, P_GG), mass);
  num_sub (x, x, gu);
  num_add_d (y, d, 1.0);
  num_div (AT (m, RLREF_LM_KL_STAR_REF), x, y);
}

/* (W, WR) 2^*e += (w, wr) 2^f, aligning to the larger exponent. */
static void
scaled_add (num_ptr W, num_ptr WR, long *e, num_srcptr w, num_srcptr wr, long f, num_ptr t)
{
  if (num_is_zero (w) && num_is_zero (wr))
    return;
  if (num_is_zero (W) && num_is_zero (WR))
    *e = f;
  else if (f > *e)
    {
      num_mul_2si (W, W, *e - f);
      num_mul_2si (WR, WR, *e - f);
      *e = f;
    }
  num_mul_2si (t, w, f - *e);
  num_add (W, W, t);
  num_mul_2si (t, wr, f - *e);
  num_add (WR, WR, t);
}


int
FN (lm_moments_dp) (num_ptr m, const rlref_lm *lm, num_srcptr logits, num_srcptr reward,
                    num_srcptr beta)
{
  rows R;
  int V, status = dp_check (lm, logits, reward, beta);
  size_t ns;
  num_ptr cur, prev, tmp, ev, t1, t2, t3;
  long ecur[RLREF_LM_MAX_V + 1], eprev[RLREF_LM_MAX_V + 1];
  sums S;
  if (status)
    return status;
  V = lm->V;
  ns = (size_t) V + 1;
  status = FN (lm_rows_init) (&R, lm, reward, beta, ns);
  if (status)
    return status;
  cur = num_vec_new (ns * P_NVALS);
  prev = num_vec_new (ns * P_NVALS);
  tmp = num_vec_new ((size_t) V + 9);
  ev = num_vec_new (ns * E_NVALS);
  if (!cur || !prev || !tmp || !ev || FN (lm_sums_init) (&S, RLREF_LM_ALL))
    {
      num_vec_free (cur, ns * P_NVALS);
      num_vec_free (prev, ns * P_NVALS);
      num_vec_free (tmp, (size_t) V + 9);
      num_vec_free (ev, ns * E_NVALS);
      FN (lm_rows_free) (&R);
      RLREF_ERROR ("out of memory", RLREF_ENOMEM);
    }
  for (size_t s = 0; s < ns && status == RLREF_SUCCESS; s++)
    status = FN (lm_rows_fill) (&R, s, AT (logits, s * (size_t) V), tmp);
  t1 = AT (tmp, V);
  t2 = AT (tmp, V + 1);
  t3 = AT (tmp, V + 2);
  /* v_a = r_a/beta of each token, v = truncated/beta of the cut (index V) */
  for (int a = 0; a <= V; a++)
    {
      if (lm->reward != RLREF_REWARD_ADDITIVE)
        num_set_zero (t1);
      else if (a < V)
        num_mul (t1, AT (R.ra, a), R.inv_beta);
      else
        num_mul (t1, AT (reward, V + 1), R.inv_beta);
      ev_fill (AT (ev, (size_t) a * E_NVALS), t1, t2, t3);
    }
  /* no token left: the cut continuation, or none */
  for (size_t s = 0; s < ns && status == RLREF_SUCCESS; s++)
    {
      num_ptr v = AT (prev, s * P_NVALS);
      int keep = lm->truncation == RLREF_LM_KEEP;
      num_set_d (AT (v, P_P), keep);
      num_set_zero (AT (v, P_A));
      if (lm->reward == RLREF_REWARD_ADDITIVE && keep)
        num_set (t1, AT (reward, V + 1));
      else
        num_set_zero (t1);
      num_set (AT (v, P_R1), t1);
      num_sqr (AT (v, P_R2), t1);
      if (keep)
        num_set (AT (v, P_W), R.cut_w);
      else
        num_set_zero (AT (v, P_W));
      eprev[s] = R.cut_e;
      num_mul (AT (v, P_WR), AT (v, P_W), t1);
      num_set_d (AT (v, P_N), keep);
      for (int j = P_WD; j <= P_GG; j++)
        num_set_zero (AT (v, j));
      if (keep)
        {
          num_srcptr e = AT (ev, (size_t) V * E_NVALS);
          num_set (AT (v, P_WD), AT (e, E_M1));
          num_set (AT (v, P_HH), AT (e, E_H));
          num_set (AT (v, P_GG), AT (e, E_G));
        }
    }
  for (int k = 1; k <= lm->T && status == RLREF_SUCCESS; k++)
    {
      for (size_t s = 0; s < ns; s++)
        {
          num_ptr v = AT (cur, s * P_NVALS);
          for (int j = 0; j < P_NVALS; j++)
            num_set_zero (AT (v, j));
          ecur[s] = 0;
          for (int a = 0; a < V; a++)
            {
              size_t i = s * (size_t) V + (size_t) a;
              num_srcptr pa = AT (R.p, i), lpa = AT (R.lp, i), qa = AT (R.q, i);
              num_srcptr ra = AT (R.ra, a);
              num_ptr w = AT (prev, (size_t) a * P_NVALS);
              num_srcptr e = AT (ev, (size_t) a * E_NVALS);
              if (a == lm->eos)
                {
                  for (int j = 0; j < 3; j++)
                    {
                      num_mul (t1, pa, AT (e, j == 0 ? E_M1 : j == 1 ? E_H : E_G));
                      num_add (AT (v, P_WD + j), AT (v, P_WD + j), t1);
                    }
                  num_add (AT (v, P_P), AT (v, P_P), pa);
                  num_mul (t1, pa, lpa);
                  num_add (AT (v, P_A), AT (v, P_A), t1);
                  if (lm->reward == RLREF_REWARD_ADDITIVE)
                    {
                      num_mul (t1, pa, ra);
                      num_add (AT (v, P_R1), AT (v, P_R1), t1);
                      num_mul (t1, t1, ra);
                      num_add (AT (v, P_R2), AT (v, P_R2), t1);
                      num_mul (t2, qa, ra);
                    }
                  else
                    num_set_zero (t2);
                  scaled_add (AT (v, P_W), AT (v, P_WR), &ecur[s], qa, t2, R.qe[i], t3);
                  num_add_d (AT (v, P_N), AT (v, P_N), 1.0);
                  continue;
                }
              /* P += p_a P' */
              num_mul (t1, pa, AT (w, P_P));
              num_add (AT (v, P_P), AT (v, P_P), t1);
              /* A += p_a (lp_a P' + A') */
              num_mul (t1, lpa, AT (w, P_P));
              num_add (t1, t1, AT (w, P_A));
              num_mul (t1, t1, pa);
              num_add (AT (v, P_A), AT (v, P_A), t1);
              if (lm->reward == RLREF_REWARD_ADDITIVE)
                {
                  /* R2 += p_a (r_a^2 P' + 2 r_a R1' + R2') */
                  num_mul (t1, ra, AT (w, P_P));
                  num_mul_2si (t2, AT (w, P_R1), 1);
                  num_add (t1, t1, t2);
                  num_mul (t1, t1, ra);
                  num_add (t1, t1, AT (w, P_R2));
                  num_mul (t1, t1, pa);
                  num_add (AT (v, P_R2), AT (v, P_R2), t1);
                  /* R1 += p_a (r_a P' + R1') */
                  num_mul (t1, ra, AT (w, P_P));
                  num_add (t1, t1, AT (w, P_R1));
                  num_mul (t1, t1, pa);
                  num_add (AT (v, P_R1), AT (v, P_R1), t1);
                }
              dp_small_v_step (v, w, e, pa, R.inv_beta, t1, t2);
              /* W += q_a W', WR += q_a (r_a W' + WR') (scaled); N += N' */
              if (lm->reward == RLREF_REWARD_ADDITIVE)
                {
                  num_mul (t2, ra, AT (w, P_W));
                  num_add (t2, t2, AT (w, P_WR));
                  num_mul (t2, t2, qa);
                }
              else
                num_set_zero (t2);
              num_mul (t1, qa, AT (w, P_W));
              scaled_add (AT (v, P_W), AT (v, P_WR), &ecur[s], t1, t2, R.qe[i] + eprev[a], t3);
              num_add (AT (v, P_N), AT (v, P_N), AT (w, P_N));
            }
        }
      {
        num_ptr swap = prev;
        prev = cur;
        cur = swap;
        memcpy (eprev, ecur, ns * sizeof (long));
      }
    }
  if (status == RLREF_SUCCESS)
    {
      /* the start state after T steps, in the form of the enumeration's sums */
      num_ptr v = AT (prev, (size_t) V * P_NVALS), s = S.s;
      num_set (AT (s, S_0), AT (v, P_P));
      num_set (AT (s, S_H), AT (v, P_A));
      num_set (AT (s, S_W), AT (v, P_W));
      num_set (AT (s, S_WR), AT (v, P_WR));
      S.we = eprev[V];
      S.have_w = 1;
      num_set (AT (s, S_N), AT (v, P_N));
      /* about c = 0: Var[r] = R2/P - (R1/P)^2 is the one-pass form, which
       * may cancel in binary64 (the enumeration shifts; MPFR certifies) */
      num_set_zero (S.shift);
      S.have_shift = 1;
      S.have_hc = -1;
      num_set (AT (s, S_R), AT (v, P_R1));
      num_set (AT (s, S_R2), AT (v, P_R2));
      status = FN (lm_moments_of) (m, &S, R.inv_beta, R.ln2, RLREF_LM_ALL,
                           lm->truncation == RLREF_LM_KEEP);
      if (status == RLREF_SUCCESS && lm->reward == RLREF_REWARD_ADDITIVE
          && FN (lm_cancels) (m, R.inv_beta, t1))
        {
          num_ptr mass = AT (tmp, V + 8);
          if (lm->truncation == RLREF_LM_KEEP)
            num_set_d (mass, 1.0);
          else
            num_set (mass, AT (v, P_P));
          dp_small_v (m, v, mass, AT (tmp, V + 2));
        }
      /* one outcome: pi* = pi_ref, both KLs are 0 exactly */
      if (status == RLREF_SUCCESS && num_cmp_d (AT (v, P_N), 1.0) == 0)
        {
          num_set_zero (AT (m, RLREF_LM_KL_STAR_REF));
          num_set_zero (AT (m, RLREF_LM_KL_REF_STAR));
        }
    }
  num_vec_free (cur, ns * P_NVALS);
  num_vec_free (prev, ns * P_NVALS);
  num_vec_free (tmp, (size_t) V + 9);
  num_vec_free (ev, ns * E_NVALS);
  FN (lm_sums_free) (&S);
  FN (lm_rows_free) (&R);
  return status;
}

#else
/* binary64: the MPFR recursion above, each moment rounded once
 * (round_once.h).  At a small beta, KL(pi* || pi_ref) = E*[r]/beta - log Z
 * subtracts two values near r/beta (6.6161394007303898 for
 * 6.6161394007306242 with both near 2000), and Var[r] = R2/P - (R1/P)^2
 * cancels in the one-pass form. */
#include "round_once.h"

typedef struct
{
  const rlref_lm *lm;
  size_t nl, nr;
  unsigned nan;                 /* the moments the model does not define */
} dp_program;

/* x = (logits, reward, beta); y = the moments, those not defined as 0. */
static int
dp_mp (void *ctx, mpfr_ptr y, mpfr_srcptr x)
{
  dp_program *o = ctx;
  int status = rlref_lm_moments_dp_mp (y, o->lm, x, o->nr ? x + o->nl : NULL,
                                       x + o->nl + o->nr);
  o->nan = 0;
  for (int k = 0; status == RLREF_SUCCESS && k < RLREF_LM_NMOMENTS; k++)
    if (mpfr_nan_p (y + k))
      {
        o->nan |= 1u << k;
        mpfr_set_zero (y + k, 1);
      }
  return status;
}

int
FN (lm_moments_dp) (num_ptr m, const rlref_lm *lm, num_srcptr logits, num_srcptr reward,
                    num_srcptr beta)
{
  dp_program o = { lm, 0, 0, 0 };
  double *xd;
  size_t nx;
  int status = dp_check (lm, logits, reward, beta);
  if (status)
    return status;
  o.nl = lm->n_rows * (size_t) lm->V;
  o.nr = lm->reward == RLREF_REWARD_ADDITIVE ? (size_t) lm->V + 2 : 0;
  nx = o.nl + o.nr + 1;
  xd = malloc ((nx + RLREF_LM_NMOMENTS) * sizeof *xd);
  if (!xd)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  memcpy (xd, logits, o.nl * sizeof *xd);
  if (o.nr)
    memcpy (xd + o.nl, reward, o.nr * sizeof *xd);
  xd[nx - 1] = beta[0];
  status = rlref_round_once (xd + nx, RLREF_LM_NMOMENTS, xd, nx, dp_mp, &o,
                             "the moments of the recursion");
  for (int k = 0; status == RLREF_SUCCESS && k < RLREF_LM_NMOMENTS; k++)
    m[k] = o.nan & (1u << k) ? NAN : xd[nx + k];
  free (xd);
  return status;
}
#endif
