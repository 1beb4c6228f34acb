/* test_lm.c -- the tiny language model (LM-ENUM, LM-CHAIN, LM-EXACT, LM-DP):
 * closed forms of a uniform model, the chain rule against enumeration,
 * enumeration against dynamic programming in both backends, binary64
 * against MPFR, extreme beta, and bad models. */
#include <math.h>
#include <stdlib.h>
#include <check.h>
#include "rlref/rlref.h"
#include "testutil.h"

enum { V = 3, EOS = 2, T = 3 };

/* A bigram model of V = 3, EOS 2, T = 3 and an additive reward. */
static const double B3[(V + 1) * V] = { 0.5, -0.2, 0.1, 0, 1, -1, 0, 0, 0, 0.3, 0.3, -0.5 };
static const double R3[V + 2] = { 1, -0.5, 0, -0.25, -1 };

static rlref_lm
model (rlref_lm_truncation trunc, rlref_reward_kind reward)
{
  return (rlref_lm) { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_BIGRAM,
                      .truncation = trunc, .n_rows = V + 1, .reward = reward };
}

/* Uniform logits, no reward: 15 outcomes kept (EOS after 0, 1 or 2 non-EOS
 * tokens: 1 + 2 + 4, and 8 cut), each EOS-ended of length L with 3^-L, each
 * cut with 3^-3; H = sum p log(1/p) = (1/3) log 3 + (2/9) 2 log 3 + (4/27)
 * 3 log 3 + (8/27) 3 log 3 = (19/9) log 3. */
START_TEST (test_uniform_closed_form)
{
  double logits[(V + 1) * V] = { 0 }, m[RLREF_LM_NMOMENTS], beta = 1;
  rlref_lm lm = model (RLREF_LM_KEEP, RLREF_REWARD_NONE);
  TU_OK (rlref_lm_moments_d (m, &lm, logits, NULL, &beta, RLREF_LM_ALL, NULL, NULL));
  ck_assert_double_eq (m[RLREF_LM_COUNT], 15);
  ck_assert_double_eq_tol (m[RLREF_LM_TOTAL], 1, 1e-15);
  ck_assert_double_eq_tol (m[RLREF_LM_ENTROPY], 19.0 / 9.0 * log (3.0), 1e-15);
  /* conditioned: 7 EOS-ended sequences of mass 1/3 + 2/9 + 4/27 = 19/27 */
  lm = model (RLREF_LM_CONDITION, RLREF_REWARD_NONE);
  TU_OK (rlref_lm_moments_d (m, &lm, logits, NULL, &beta, RLREF_LM_ALL, NULL, NULL));
  ck_assert_double_eq (m[RLREF_LM_COUNT], 7);
  ck_assert_double_eq_tol (m[RLREF_LM_TOTAL], 19.0 / 27.0, 1e-15);
  /* H = -sum (p/P) log(p/P), p = 3^-L: (1/P)(9 + 2*6 + 4*3)/27 log 3 + log P */
  ck_assert_double_eq_tol (m[RLREF_LM_ENTROPY],
                           (9.0 + 12.0 + 12.0) / 19.0 * log (3.0) + log (19.0 / 27.0), 1e-15);
}
END_TEST

/* The chain rule: exp of each sequence's log pi (LM-CHAIN) summed over the
 * outcomes the enumeration visits equals its mass. */
struct chain_ctx
{
  const rlref_lm *lm;
  const double *logits;
  double sum, worst;
};

static void
chain_visit (void *ctx, const int *y, int L, int cut, const double *logp, const double *r,
             const double *logp_star)
{
  struct chain_ctx *c = ctx;
  double lp, tok[RLREF_LM_MAX_T];
  (void) cut;
  (void) r;
  (void) logp_star;
  ck_assert_int_eq (rlref_lm_logprob_d (&lp, tok, c->lm, c->logits, y, L), 0);
  c->sum += exp (lp);
  if (fabs (lp - *logp) > c->worst)
    c->worst = fabs (lp - *logp);
}

START_TEST (test_chain_rule)
{
  double m[RLREF_LM_NMOMENTS], beta = 0.5;
  rlref_lm lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  struct chain_ctx c = { &lm, B3, 0, 0 };
  TU_OK (rlref_lm_moments_d (m, &lm, B3, R3, &beta, RLREF_LM_ALL, chain_visit, &c));
  ck_assert_double_eq_tol (c.sum, 1.0, 1e-15);
  ck_assert_double_le (c.worst, 1e-15);
}
END_TEST

/* Enumeration and DP agree: in MPFR to 70 digits, the binary64
 * enumeration to 1e-13 and the binary64 DP bit for bit with the MPFR
 * enumeration rounded, under both readings and at beta = 0.5, 1e-3, 1e3. */
START_TEST (test_dp_equals_enumeration)
{
  static const double betas[] = { 0.5, 1e-3, 1e3 };
  mpfr_ptr x = tu_mp_vec_new ((V + 1) * V + V + 2 + 1 + 2 * RLREF_LM_NMOMENTS, 256);
  mpfr_ptr logits = x, reward = x + (V + 1) * V, beta = reward + V + 2;
  mpfr_ptr me = beta + 1, md = me + RLREF_LM_NMOMENTS;
  for (int i = 0; i < (V + 1) * V; i++)
    mpfr_set_d (logits + i, B3[i], MPFR_RNDN);
  for (int i = 0; i < V + 2; i++)
    mpfr_set_d (reward + i, R3[i], MPFR_RNDN);
  for (int t = 0; t < 2; t++)
    for (size_t b = 0; b < sizeof betas / sizeof betas[0]; b++)
      {
        rlref_lm lm = model (t ? RLREF_LM_CONDITION : RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
        double de[RLREF_LM_NMOMENTS], dd[RLREF_LM_NMOMENTS], bd = betas[b];
        mpfr_set_d (beta, bd, MPFR_RNDN);
        TU_OK (rlref_lm_moments_mp (me, &lm, logits, reward, beta, RLREF_LM_ALL, NULL, NULL));
        TU_OK (rlref_lm_moments_dp_mp (md, &lm, logits, reward, beta));
        TU_OK (rlref_lm_moments_d (de, &lm, B3, R3, &bd, RLREF_LM_ALL, NULL, NULL));
        TU_OK (rlref_lm_moments_dp_d (dd, &lm, B3, R3, &bd));
        for (int k = 0; k < RLREF_LM_NMOMENTS; k++)
          {
            double exact = mpfr_get_d (me + k, MPFR_RNDN);
            ck_assert_msg (tu_mp_digits (me + k, md + k) >= 70, "moment %d beta %g reading %d",
                           k, bd, t);
            ck_assert_msg (fabs (de[k] - exact) <= 1e-13 * (fabs (exact) + 1e-3),
                           "binary64 enumeration, moment %d beta %g: %.17g vs %.17g", k, bd,
                           de[k], exact);
            /* the binary64 DP is the MPFR recursion rounded once: the
             * enumeration's value rounded, also where the plain DP forms
             * KL(pi*||pi_ref) = E*[r]/beta - log Z by subtraction */
            ck_assert_msg (dd[k] == exact, "binary64 DP, moment %d beta %g: %.17g vs %.17g",
                           k, bd, dd[k], exact);
          }
      }
  tu_mp_vec_free (x, (V + 1) * V + V + 2 + 1 + 2 * RLREF_LM_NMOMENTS);
}
END_TEST

/* A large beta (32) on uniform logits: KL(pi* || pi_ref) = 4.4e-4 is
 * E*[r]/beta - log Z with both near 0.03, 2^-6 of the terms; the binary64
 * enumeration took it from the plain form (8e-13 of itself off, 3,600
 * ulps); the cancellation-free pass is within 16 ulps of the DP's MPFR
 * value. */
START_TEST (test_enumeration_kl_large_beta)
{
  static const double zero[(V + 1) * V] = { 0 };
  rlref_lm lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  double beta = 32, m[RLREF_LM_NMOMENTS];
  mpfr_ptr lg = tu_mp_vec_from_d (zero, (V + 1) * V, 512), rw = tu_mp_vec_from_d (R3, V + 2, 512);
  mpfr_ptr bm = tu_mp_vec_from_d (&beta, 1, 512), mm = tu_mp_vec_new (RLREF_LM_NMOMENTS, 512);
  rlref_mp_set_prec (512);
  TU_OK (rlref_lm_moments_dp_mp (mm, &lm, lg, rw, bm));
  TU_OK (rlref_lm_moments_d (m, &lm, zero, R3, &beta, RLREF_LM_ALL, NULL, NULL));
  ck_assert (mpfr_cmp_d (mm + RLREF_LM_KL_STAR_REF, 4e-4) > 0);
  TU_ASSERT_REL (m[RLREF_LM_KL_STAR_REF], mpfr_get_d (mm + RLREF_LM_KL_STAR_REF, MPFR_RNDN),
                 16 * DBL_EPSILON);
  rlref_mp_set_prec (256);
  tu_mp_vec_free (lg, (V + 1) * V);
  tu_mp_vec_free (rw, V + 2);
  tu_mp_vec_free (bm, 1);
  tu_mp_vec_free (mm, RLREF_LM_NMOMENTS);
}
END_TEST

/* Sums over every sequence, one by one (the visits), for the moments of a
 * model whose last steps the enumeration sums per state: mass, sum p log p,
 * sum p r, sum p r^2, sum p e^{r/beta} (= Z), sum p e^{r/beta} r. */
typedef struct
{
  mpfr_t s[6], p, t;
} by_sequence;

static void
visit_sum (void *ctx, const int *y, int L, int cut, mpfr_srcptr logp, mpfr_srcptr r,
           mpfr_srcptr logp_star)
{
  by_sequence *b = ctx;
  (void) y, (void) L, (void) cut, (void) logp_star;
  mpfr_exp (b->p, logp, MPFR_RNDN);
  mpfr_add (b->s[0], b->s[0], b->p, MPFR_RNDN);
  mpfr_mul (b->t, b->p, logp, MPFR_RNDN);
  mpfr_add (b->s[1], b->s[1], b->t, MPFR_RNDN);
  mpfr_mul (b->t, b->p, r, MPFR_RNDN);
  mpfr_add (b->s[2], b->s[2], b->t, MPFR_RNDN);
  mpfr_mul (b->t, b->t, r, MPFR_RNDN);
  mpfr_add (b->s[3], b->s[3], b->t, MPFR_RNDN);
  mpfr_mul_2ui (b->t, r, 1, MPFR_RNDN);     /* r / beta, beta = 1/2 */
  mpfr_exp (b->t, b->t, MPFR_RNDN);
  mpfr_mul (b->t, b->t, b->p, MPFR_RNDN);
  mpfr_add (b->s[4], b->s[4], b->t, MPFR_RNDN);
  mpfr_mul (b->t, b->t, r, MPFR_RNDN);
  mpfr_add (b->s[5], b->s[5], b->t, MPFR_RNDN);
}

/* A bigram model whose cut sequences count: its last steps are summed per
 * state, for T = 1 (no prefix of length T - 2), 2 (the root) and 3, 4;
 * every moment equals the sums over the sequences one by one (the visit
 * pass, 320 bits) to 70 digits, and asking only for log Z, KL(pi*||pi_ref)
 * and E*[r] gives the same values (the mass, not needed, is not formed). */
START_TEST (test_last_steps_summed)
{
  enum { N = (V + 1) * V + V + 2 + 1 + 4 * RLREF_LM_NMOMENTS };
  mpfr_ptr x = tu_mp_vec_new (N, 320);
  mpfr_ptr logits = x, reward = x + (V + 1) * V, beta = reward + V + 2;
  mpfr_ptr m = beta + 1, mv = m + RLREF_LM_NMOMENTS, ms = mv + RLREF_LM_NMOMENTS;
  mpfr_ptr want = ms + RLREF_LM_NMOMENTS;
  unsigned star = 1u << RLREF_LM_LOG_Z | 1u << RLREF_LM_KL_STAR_REF
    | 1u << RLREF_LM_MEAN_R_STAR;
  rlref_mp_set_prec (320);
  for (int i = 0; i < (V + 1) * V; i++)
    mpfr_set_d (logits + i, B3[i], MPFR_RNDN);
  for (int i = 0; i < V + 2; i++)
    mpfr_set_d (reward + i, R3[i], MPFR_RNDN);
  mpfr_set_d (beta, 0.5, MPFR_RNDN);
  for (int t = 1; t <= 4; t++)
    {
      rlref_lm lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
      by_sequence b;
      lm.T = t;
      mpfr_inits2 (320, b.s[0], b.s[1], b.s[2], b.s[3], b.s[4], b.s[5], b.p, b.t,
                   (mpfr_ptr) 0);
      for (int k = 0; k < 6; k++)
        mpfr_set_zero (b.s[k], 1);
      TU_OK (rlref_lm_moments_mp (m, &lm, logits, reward, beta, RLREF_LM_ALL, NULL, NULL));
      TU_OK (rlref_lm_moments_mp (mv, &lm, logits, reward, beta, RLREF_LM_ALL, visit_sum, &b));
      TU_OK (rlref_lm_moments_mp (ms, &lm, logits, reward, beta, star, NULL, NULL));
      /* the moments from the sequence sums: H = -S1, E[r] = S2, Var = S3 - S2^2,
       * log Z = log S4, E*[r] = S5/S4 */
      mpfr_set (want + RLREF_LM_TOTAL, b.s[0], MPFR_RNDN);
      mpfr_neg (want + RLREF_LM_ENTROPY, b.s[1], MPFR_RNDN);
      mpfr_set (want + RLREF_LM_MEAN_R, b.s[2], MPFR_RNDN);
      mpfr_sqr (b.t, b.s[2], MPFR_RNDN);
      mpfr_sub (want + RLREF_LM_VAR_R, b.s[3], b.t, MPFR_RNDN);
      mpfr_log (want + RLREF_LM_LOG_Z, b.s[4], MPFR_RNDN);
      mpfr_div (want + RLREF_LM_MEAN_R_STAR, b.s[5], b.s[4], MPFR_RNDN);
      for (int k = RLREF_LM_TOTAL; k <= RLREF_LM_MEAN_R_STAR; k++)
        if (k != RLREF_LM_KL_STAR_REF && k != RLREF_LM_KL_REF_STAR)
          ck_assert_msg (tu_mp_digits (m + k, want + k) >= 70, "T = %d, moment %d", t, k);
      for (int k = 0; k < RLREF_LM_NMOMENTS; k++)
        if (star & (1u << k))
          ck_assert_msg (mpfr_equal_p (ms + k, m + k), "T = %d, moment %d alone", t, k);
      ck_assert (mpfr_nan_p (ms + RLREF_LM_TOTAL) && mpfr_nan_p (ms + RLREF_LM_ENTROPY));
      ck_assert (mpfr_cmp_ui (m + RLREF_LM_COUNT, t == 1 ? 3 : t == 2 ? 7 : t == 3 ? 15 : 31)
                 == 0);
      mpfr_clears (b.s[0], b.s[1], b.s[2], b.s[3], b.s[4], b.s[5], b.p, b.t, (mpfr_ptr) 0);
    }
  rlref_mp_set_prec (256);
  tu_mp_vec_free (x, N);
}
END_TEST

/* beta -> 0: log Z ~ max r / beta; E*[r] -> max r, far beyond binary64's
 * exponent range for e^{r/beta} yet finite in binary64. */
START_TEST (test_small_beta)
{
  double m[RLREF_LM_NMOMENTS], beta = 1e-4;
  rlref_lm lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  TU_OK (rlref_lm_moments_d (m, &lm, B3, R3, &beta, RLREF_LM_ALL, NULL, NULL));
  /* the best sequence: token 0 twice then EOS (0.5 + 0.5 ... per_length -0.25):
   * r = 1 - 0.25 + 1 - 0.25 + 0 - 0.25 = 1.25 */
  ck_assert_double_eq_tol (m[RLREF_LM_MEAN_R_STAR], 1.25, 1e-12);
  ck_assert (isfinite (m[RLREF_LM_LOG_Z]));
  ck_assert_double_eq_tol (m[RLREF_LM_LOG_Z] * beta, 1.25, 1e-3);
}
END_TEST

/* What the golden cases do not reach: a NaN logit, and a model too large
 * to enumerate that the DP form takes.  beta = 0, an eos outside the
 * vocabulary, T = 0 and a wrong number of rows are golden cases of
 * LM-EXACT: the generic test fails when their checks go. */
START_TEST (test_bad_models)
{
  double m[RLREF_LM_NMOMENTS], beta = 1, nan_logits[(V + 1) * V] = { 0 };
  rlref_lm lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  nan_logits[4] = NAN;
  ck_assert_int_eq (rlref_lm_moments_d (m, &lm, nan_logits, R3, &beta, RLREF_LM_ALL, NULL,
                                        NULL), RLREF_ENAN);
  /* too many sequences to enumerate: 6^24; the DP form takes it */
  lm = (rlref_lm) { .V = 6, .eos = 5, .T = 24, .kind = RLREF_LM_BIGRAM,
                    .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_NONE };
  {
    double big[42] = { 0 };
    ck_assert_int_eq (rlref_lm_moments_d (m, &lm, big, NULL, &beta, RLREF_LM_ALL, NULL, NULL),
                      RLREF_EINVAL);
    TU_OK (rlref_lm_moments_dp_d (m, &lm, big, NULL, &beta));
    ck_assert_double_eq_tol (m[RLREF_LM_TOTAL], 1.0, 1e-14);
  }
}
END_TEST

/* Every objective's exact gradient against MPFR central differences (step
 * 2^-90, error O(h^2) = 2^-180): tabular and bigram, both readings. */
static void
check_gradient (rlref_lm lm, const double *th_d, const double *ref_d, int objective)
{
  size_t nl = lm.n_rows * (size_t) lm.V;
  mpfr_ptr v = tu_mp_vec_new (4 * nl + V + 2 + 4, 256);
  mpfr_ptr th = v, ref = th + nl, grad = ref + nl, g2 = grad + nl, reward = g2 + nl;
  mpfr_ptr beta = reward + V + 2, val = beta + 1, hi = val + 1, lo = hi + 1;
  for (size_t k = 0; k < nl; k++)
    {
      mpfr_set_d (th + k, th_d[k], MPFR_RNDN);
      mpfr_set_d (ref + k, ref_d[k], MPFR_RNDN);
    }
  for (int k = 0; k < V + 2; k++)
    mpfr_set_d (reward + k, R3[k], MPFR_RNDN);
  mpfr_set_d (beta, 0.5, MPFR_RNDN);
  TU_OK (rlref_lm_objective_mp (val, grad, &lm, th, ref, reward, beta, objective));
  for (size_t k = 0; k < nl; k++)
    {
      mpfr_t save;
      mpfr_init2 (save, 256);
      mpfr_set (save, th + k, MPFR_RNDN);
      mpfr_add_d (th + k, save, 0x1p-90, MPFR_RNDN);
      TU_OK (rlref_lm_objective_mp (hi, NULL, &lm, th, ref, reward, beta, objective));
      mpfr_sub_d (th + k, save, 0x1p-90, MPFR_RNDN);
      TU_OK (rlref_lm_objective_mp (lo, NULL, &lm, th, ref, reward, beta, objective));
      mpfr_set (th + k, save, MPFR_RNDN);
      mpfr_sub (g2 + k, hi, lo, MPFR_RNDN);
      mpfr_mul_2si (g2 + k, g2 + k, 89, MPFR_RNDN);
      /* agreement to 2^-150 absolute (the rows of a softmax sum to 0) */
      mpfr_sub (hi, g2 + k, grad + k, MPFR_RNDN);
      ck_assert_msg (mpfr_zero_p (hi) || mpfr_get_exp (hi) < -150,
                     "objective %d, logit %zu: gradient %s, differences %s", objective, k,
                     tu_mp_str (grad + k), tu_mp_str (g2 + k));
      mpfr_clear (save);
    }
  tu_mp_vec_free (v, 4 * nl + V + 2 + 4);
}

START_TEST (test_gradients)
{
  static const double A3[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2,
                                 0, 0, 0, 1, -1, 0, -0.3, 0.3, 0 };
  static const double A3R[21] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1,
                                  0, 0, 0, 0.2, 0.2, 0.2, -1, 0, 1 };
  static const double U3[12] = { 0 };
  rlref_lm tab = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                   .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  rlref_lm cond = tab, bi = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  cond.truncation = RLREF_LM_CONDITION;
  for (int obj = RLREF_LM_OBJ_REWARD; obj <= RLREF_LM_OBJ_IPO; obj++)
    {
      check_gradient (tab, A3, A3R, obj);
      check_gradient (cond, A3, A3R, obj);
      check_gradient (bi, B3, U3, obj);
    }
}
END_TEST

/* At the reference the KLs and their gradients vanish; the RLHF objective's
 * maximiser is pi* (13.17): its gradient vanishes at logits log pi* . */
START_TEST (test_gradient_zeros)
{
  static const double A3[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2,
                                 0, 0, 0, 1, -1, 0, -0.3, 0.3, 0 };
  rlref_lm tab = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                   .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  double val, grad[21], beta = 0.5;
  for (int obj = RLREF_LM_OBJ_KL; obj <= RLREF_LM_OBJ_KL_REVERSE; obj++)
    {
      TU_OK (rlref_lm_objective_d (&val, grad, &tab, A3, A3, R3, &beta, obj));
      ck_assert_double_eq_tol (val, 0.0, 1e-15);
      for (int k = 0; k < 21; k++)
        ck_assert_double_eq_tol (grad[k], 0.0, 1e-15);
    }
}
END_TEST

/* pi* as tabular logits (13.17): the RLHF objective's gradient and the
 * population DPO loss's gradient vanish there (DPO-EQUIV), the RLHF value is
 * beta log Z, and KL(q_theta* || pi*) computed against the enumeration is 0. */
START_TEST (test_pistar_fixed_point)
{
  static const double A3R[21] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1,
                                  0.1, -0.1, 0.3, 0.2, 0.2, 0.2, -1, 0, 1 };
  rlref_lm tab = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                   .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  mpfr_ptr v = tu_mp_vec_new (3 * 21 + V + 2 + 2 + RLREF_LM_NMOMENTS, 256);
  mpfr_ptr ref = v, star = ref + 21, grad = star + 21, reward = grad + 21, beta = reward + V + 2;
  mpfr_ptr val = beta + 1, m = val + 1;
  for (int k = 0; k < 21; k++)
    mpfr_set_d (ref + k, A3R[k], MPFR_RNDN);
  for (int k = 0; k < V + 2; k++)
    mpfr_set_d (reward + k, R3[k], MPFR_RNDN);
  mpfr_set_d (beta, 0.5, MPFR_RNDN);
  TU_OK (rlref_lm_pistar_logits_mp (star, &tab, ref, reward, beta));
  TU_OK (rlref_lm_moments_mp (m, &tab, ref, reward, beta, RLREF_LM_ALL, NULL, NULL));
  for (int obj = RLREF_LM_OBJ_RLHF; obj <= RLREF_LM_OBJ_DPO; obj++)
    {
      TU_OK (rlref_lm_objective_mp (val, grad, &tab, star, ref, reward, beta, obj));
      for (int k = 0; k < 21; k++)
        ck_assert_msg (mpfr_zero_p (grad + k) || mpfr_get_exp (grad + k) < -230,
                       "objective %d: gradient %d at pi* is %s", obj, k, tu_mp_str (grad + k));
    }
  /* the RLHF optimum is beta log Z (13.16) */
  TU_OK (rlref_lm_objective_mp (val, NULL, &tab, star, ref, reward, beta, RLREF_LM_OBJ_RLHF));
  mpfr_mul (m + RLREF_LM_LOG_Z, m + RLREF_LM_LOG_Z, beta, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (val, m + RLREF_LM_LOG_Z, 70);
  tu_mp_vec_free (v, 3 * 21 + V + 2 + 2 + RLREF_LM_NMOMENTS);
}
END_TEST

/* Exact-gradient descent on the population DPO loss from pi_ref converges
 * to pi*: KL(q_theta || pi*) falls monotonically to the rounding level (binary64). */
START_TEST (test_dpo_converges)
{
  static const double A3R[21] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1,
                                  0.1, -0.1, 0.3, 0.2, 0.2, 0.2, -1, 0, 1 };
  rlref_lm tab = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                   .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  double th[21], star[21], hist[201], beta = 0.5, lr = 40.0, kl, prev = INFINITY;
  TU_OK (rlref_lm_pistar_logits_d (star, &tab, A3R, R3, &beta));
  for (int k = 0; k < 21; k++)
    th[k] = A3R[k];
  for (int round = 0; round < 10; round++)
    {
      TU_OK (rlref_lm_descend_d (th, hist, &tab, A3R, R3, &beta, RLREF_LM_OBJ_DPO, &lr, 200));
      TU_OK (rlref_lm_objective_d (&kl, NULL, &tab, th, star, R3, &beta, RLREF_LM_OBJ_KL));
      /* falling, until it reaches the rounding level */
      ck_assert_msg (kl <= prev || fabs (kl) < 1e-14, "round %d: KL %g after %g", round, kl,
                     prev);
      prev = kl;
    }
  ck_assert_double_le (fabs (kl), 1e-12);
}
END_TEST

/* Sampled training is reproducible to the last bit with the same seed, in
 * both backends, and REINFORCE on E[r] raises E[r]. */
START_TEST (test_sampled_reproducible)
{
  static const double A3R[21] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1,
                                  0.1, -0.1, 0.3, 0.2, 0.2, 0.2, -1, 0, 1 };
  rlref_lm tab = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                   .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  double a[21], b[21], ha[51], hb[51], beta = 0.5, lr = 0.5;
  gsl_rng *r1 = gsl_rng_alloc (gsl_rng_mt19937), *r2 = gsl_rng_alloc (gsl_rng_mt19937);
  mpfr_ptr v = tu_mp_vec_new (2 * 21 + 2 * 51 + V + 2 + 2, 256);
  mpfr_ptr ma = v, mb = ma + 21, mha = mb + 21, mhb = mha + 51, rw = mhb + 51, mbeta = rw + V + 2;
  mpfr_ptr mlr = mbeta + 1;
  for (int k = 0; k < 21; k++)
    a[k] = b[k] = A3R[k];
  gsl_rng_set (r1, 42);
  gsl_rng_set (r2, 42);
  TU_OK (rlref_lm_sampled_descend_d (a, ha, &tab, A3R, R3, &beta, RLREF_LM_OBJ_REWARD, &lr, 50,
                                     8, r1));
  TU_OK (rlref_lm_sampled_descend_d (b, hb, &tab, A3R, R3, &beta, RLREF_LM_OBJ_REWARD, &lr, 50,
                                     8, r2));
  for (int k = 0; k < 21; k++)
    ck_assert_msg (a[k] == b[k], "logit %d differs between two runs of one seed", k);
  ck_assert_double_gt (ha[50], ha[0]);
  /* the MPFR run draws the same sequences (the draws compare uniforms with
   * cumulative probabilities) and agrees with binary64 to its rounding */
  for (int k = 0; k < 21; k++)
    {
      mpfr_set_d (ma + k, A3R[k], MPFR_RNDN);
      mpfr_set_d (mb + k, A3R[k], MPFR_RNDN);
    }
  for (int k = 0; k < V + 2; k++)
    mpfr_set_d (rw + k, R3[k], MPFR_RNDN);
  mpfr_set_d (mbeta, beta, MPFR_RNDN);
  mpfr_set_d (mlr, lr, MPFR_RNDN);
  gsl_rng_set (r1, 42);
  TU_OK (rlref_lm_sampled_descend_mp (ma, mha, &tab, mb, rw, mbeta, RLREF_LM_OBJ_REWARD, mlr, 50,
                                      8, r1));
  for (int k = 0; k < 21; k++)
    ck_assert_double_eq_tol (mpfr_get_d (ma + k, MPFR_RNDN), a[k], 1e-12);
  tu_mp_vec_free (v, 2 * 21 + 2 * 51 + V + 2 + 2);
  gsl_rng_free (r1);
  gsl_rng_free (r2);
}
END_TEST

/* The KL estimators used as losses (000 section 12.1): the gradient of
 * E[k2] is that of KL(q || q_ref), of E[k3] that of KL(q_ref || q), of E[k1]
 * zero; E[k1] = E[k3] = KL(q || q_ref) (13.26, unbiased). */
START_TEST (test_kl_estimator_losses)
{
  static const double A3[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2,
                                 0, 0, 0, 1, -1, 0, -0.3, 0.3, 0 };
  static const double A3R[21] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1,
                                  0.1, -0.1, 0.3, 0.2, 0.2, 0.2, -1, 0, 1 };
  rlref_lm tab = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                   .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  double beta = 0.5, v1, v3, vkl, vklr, g1[21], g2[21], g3[21], gkl[21], gklr[21];
  TU_OK (rlref_lm_objective_d (&v1, g1, &tab, A3, A3R, R3, &beta, RLREF_LM_OBJ_K1));
  TU_OK (rlref_lm_objective_d (&v3, g3, &tab, A3, A3R, R3, &beta, RLREF_LM_OBJ_K3));
  TU_OK (rlref_lm_objective_d (&vkl, g2, &tab, A3, A3R, R3, &beta, RLREF_LM_OBJ_K2));
  TU_OK (rlref_lm_objective_d (&vkl, gkl, &tab, A3, A3R, R3, &beta, RLREF_LM_OBJ_KL));
  TU_OK (rlref_lm_objective_d (&vklr, gklr, &tab, A3, A3R, R3, &beta, RLREF_LM_OBJ_KL_REVERSE));
  ck_assert_double_eq_tol (v1, vkl, 1e-15);
  ck_assert_double_eq_tol (v3, vkl, 1e-15);
  for (int k = 0; k < 21; k++)
    {
      ck_assert_double_eq_tol (g1[k], 0.0, 1e-15);
      ck_assert_double_eq_tol (g2[k], gkl[k], 1e-15);
      ck_assert_double_eq_tol (g3[k], gklr[k], 1e-15);
    }
  /* (the estimators' gradients are E_q[grad k], the sampling held fixed:
   * not the derivative of their expectation, so no central differences) */
}
END_TEST

/* Pairwise losses whose labels sigma(r_i - r_j) come from rewards of
 * 2^682 beside O(1) ones (found by the domain fuzzer): a binary64 pass
 * lost the O(1) parts of r_i - r_j (the IPO loss 10.996927 for 10.996926).
 * binary64 is the MPFR program rounded once (lm_grad.c): every output
 * within 2^-50 of the largest of the program's outputs at 1024 bits. */
START_TEST (test_gradient_huge_rewards)
{
  double A[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0x1p-14, 0.6, 0.5, 0, 2,
                   0, 0, 0, 1, -1, 0, -0.3, 0.3, 0 };
  double Ar[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2,
                    0, 0, 0, 1, -1, 0, -0.3, 0.3, 0 };
  double rw[V + 2] = { 1, 0x1p682, 0, -0.25, -1 }, beta = 0x1.999999999999ap-4, v, g[21];
  static const int objectives[] = { RLREF_LM_OBJ_IPO, RLREF_LM_OBJ_DPO };
  mpfr_ptr x = tu_mp_vec_new (2 * 21 + V + 2 + 1 + 1 + 21, 1024);
  mpfr_ptr ma = x, mar = x + 21, mr = x + 42, mb = mr + V + 2, mv = mb + 1, mg = mv + 1;
  mpfr_prec_t old = rlref_mp_set_prec (1024);
  for (int k = 0; k < 21; k++)
    {
      mpfr_set_d (ma + k, A[k], MPFR_RNDN);
      mpfr_set_d (mar + k, Ar[k], MPFR_RNDN);
    }
  for (int k = 0; k < V + 2; k++)
    mpfr_set_d (mr + k, rw[k], MPFR_RNDN);
  mpfr_set_d (mb, beta, MPFR_RNDN);
  for (int t = 0; t < 2; t++)
    for (int o = 0; o < 2; o++)
      {
        rlref_lm tab = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                         .truncation = t ? RLREF_LM_CONDITION : RLREF_LM_KEEP, .n_rows = 7,
                         .reward = RLREF_REWARD_ADDITIVE };
        double big;
        TU_OK (rlref_lm_objective_d (&v, g, &tab, A, Ar, rw, &beta, objectives[o]));
        TU_OK (rlref_lm_objective_mp (mv, mg, &tab, ma, mar, mr, mb, objectives[o]));
        big = fabs (mpfr_get_d (mv, MPFR_RNDN));
        for (int k = 0; k < 21; k++)
          big = fmax (big, fabs (mpfr_get_d (mg + k, MPFR_RNDN)));
        ck_assert_double_eq_tol (v, mpfr_get_d (mv, MPFR_RNDN), 0x1p-50 * big);
        for (int k = 0; k < 21; k++)
          ck_assert_msg (fabs (g[k] - mpfr_get_d (mg + k, MPFR_RNDN)) <= 0x1p-50 * big,
                         "truncation %d objective %d grad[%d] = %.17g, at 1024 bits %.17g", t,
                         objectives[o], k, g[k], mpfr_get_d (mg + k, MPFR_RNDN));
      }
  rlref_mp_set_prec (old);
  tu_mp_vec_free (x, 2 * 21 + V + 2 + 1 + 1 + 21);
}
END_TEST

/* The DP at a huge beta: log Z ~ E[r]/beta = -1.4e-19 and the KLs ~ 1e-37
 * are far below the terms log W (W ~ 1) and E*[r]/beta they are formed
 * from; binary64 forms them from sum p expm1(r/beta), sum p h(r/beta) and
 * sum p g(r/beta) (was log Z 0, KLs 0 or noise).  And one outcome (T = 1,
 * cut sequences conditioned away): pi* = pi_ref, both KLs exactly 0 (was
 * 6.7e-21). */
START_TEST (test_dp_huge_beta)
{
  static const double betas[] = { 0x1p61, 0x1p34, 0x1.fffffffffffffp1023 };
  mpfr_ptr x = tu_mp_vec_new ((V + 1) * V + V + 2 + 1 + RLREF_LM_NMOMENTS, 256);
  mpfr_ptr logits = x, reward = x + (V + 1) * V, beta = reward + V + 2, md = beta + 1;
  for (int i = 0; i < (V + 1) * V; i++)
    mpfr_set_d (logits + i, B3[i], MPFR_RNDN);
  for (int i = 0; i < V + 2; i++)
    mpfr_set_d (reward + i, R3[i], MPFR_RNDN);
  for (int t = 0; t < 2; t++)
    for (size_t b = 0; b < sizeof betas / sizeof betas[0]; b++)
      {
        rlref_lm lm = model (t ? RLREF_LM_CONDITION : RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
        double dd[RLREF_LM_NMOMENTS], bd = betas[b];
        mpfr_set_d (beta, bd, MPFR_RNDN);
        TU_OK (rlref_lm_moments_dp_mp (md, &lm, logits, reward, beta));
        TU_OK (rlref_lm_moments_dp_d (dd, &lm, B3, R3, &bd));
        for (int k = RLREF_LM_LOG_Z; k <= RLREF_LM_KL_REF_STAR; k++)
          {
            double exact = mpfr_get_d (md + k, MPFR_RNDN);
            ck_assert_msg (exact != 0 || k != RLREF_LM_LOG_Z, "log Z %g", bd);
            ck_assert_msg (fabs (dd[k] - exact) <= 1e-13 * fabs (exact) + 0x1p-1060,
                           "moment %d beta %g reading %d: %.17g vs %.17g", k, bd, t, dd[k],
                           exact);
          }
      }
  {
    /* V = 2, EOS 1, T = 1 conditioned: the one outcome (EOS), r = 1 */
    static const double l2[6] = { 0, 0, 0, 0, 0.5, -0.5 }, r2[4] = { 2, 1, 0, -3 };
    rlref_lm lm = { .V = 2, .eos = 1, .T = 1, .kind = RLREF_LM_BIGRAM,
                    .truncation = RLREF_LM_CONDITION, .n_rows = 3,
                    .reward = RLREF_REWARD_ADDITIVE };
    double dd[RLREF_LM_NMOMENTS], bd = 128;
    TU_OK (rlref_lm_moments_dp_d (dd, &lm, l2, r2, &bd));
    ck_assert_double_eq (dd[RLREF_LM_KL_STAR_REF], 0);
    ck_assert_double_eq (dd[RLREF_LM_KL_REF_STAR], 0);
    ck_assert_double_eq_tol (dd[RLREF_LM_LOG_Z], 1.0 / 128, 1e-17);
  }
  tu_mp_vec_free (x, (V + 1) * V + V + 2 + 1 + RLREF_LM_NMOMENTS);
}
END_TEST

/* The entropy of a conditioned bigram model whose mass is one outcome
 * (logits +-DBL_MAX leave [EOS] alone): 0 exactly (was -2.2e-16, log S0 -
 * SH/S0 rounded); and one likely outcome beside others of 1e-112, H =
 * 2.1060261697542248e-109 (MPFR; was -2.2e-16): about the likeliest
 * outcome, H = log1p(others/p_c) - sum p (log p - c)/S0. */
START_TEST (test_entropy_one_outcome)
{
  static const double l1[12] = { 0.5, -0.2, -0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023,
                                 1, -1, 0, 0, 0, 0.3, 0.3, -0.5 };
  static const double l2[12] = { 0.5, -0.2, -0x1p647, 0x1p-699, 1, -256, 0, 0, 0, 0.3, 0.3,
                                 -0.5 };
  double m[RLREF_LM_NMOMENTS], beta = 1;
  rlref_lm lm = model (RLREF_LM_CONDITION, RLREF_REWARD_NONE);
  TU_OK (rlref_lm_moments_d (m, &lm, l1, NULL, &beta, 1u << RLREF_LM_ENTROPY, NULL, NULL));
  ck_assert_double_eq (m[RLREF_LM_ENTROPY], 0);
  TU_OK (rlref_lm_moments_d (m, &lm, l2, NULL, &beta, 1u << RLREF_LM_ENTROPY, NULL, NULL));
  ck_assert_double_eq_tol (m[RLREF_LM_ENTROPY], 2.1060261697542248e-109, 1e-121);
}
END_TEST

static Suite *
lm_suite (void)
{
  Suite *s = suite_create ("lm");
  TCase *tc = tu_tcase ("lm");
  tcase_add_test (tc, test_uniform_closed_form);
  tcase_add_test (tc, test_chain_rule);
  tcase_add_test (tc, test_dp_equals_enumeration);
  tcase_add_test (tc, test_enumeration_kl_large_beta);
  tcase_add_test (tc, test_dp_huge_beta);
  tcase_add_test (tc, test_entropy_one_outcome);
  tcase_add_test (tc, test_last_steps_summed);
  tcase_add_test (tc, test_small_beta);
  tcase_add_test (tc, test_bad_models);
  tcase_add_test (tc, test_gradients);
  tcase_add_test (tc, test_gradient_zeros);
  tcase_add_test (tc, test_pistar_fixed_point);
  tcase_add_test (tc, test_dpo_converges);
  tcase_add_test (tc, test_sampled_reproducible);
  tcase_add_test (tc, test_kl_estimator_losses);
  tcase_add_test (tc, test_gradient_huge_rewards);
  suite_add_tcase (s, tc);
  return s;
}

TU_MAIN (lm_suite)
