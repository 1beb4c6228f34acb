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

/* Enumeration and DP agree: in MPFR to 70 digits, in binary64 to 1e-14,
 * under both readings and at beta = 0.5, 1e-3, 1e3. */
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
            ck_assert_msg (fabs (dd[k] - exact) <= 1e-13 * (fabs (exact) + 1e-3),
                           "binary64 DP, moment %d beta %g: %.17g vs %.17g", k, bd, dd[k],
                           exact);
          }
      }
  tu_mp_vec_free (x, (V + 1) * V + V + 2 + 1 + 2 * RLREF_LM_NMOMENTS);
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

START_TEST (test_bad_models)
{
  double m[RLREF_LM_NMOMENTS], beta = 1, zero = 0, nan_logits[(V + 1) * V] = { 0 };
  rlref_lm lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  ck_assert_int_eq (rlref_lm_moments_d (m, &lm, B3, R3, &zero, RLREF_LM_ALL, NULL, NULL),
                    RLREF_EDOM);
  lm.eos = 3;
  ck_assert_int_eq (rlref_lm_moments_d (m, &lm, B3, R3, &beta, RLREF_LM_ALL, NULL, NULL),
                    RLREF_EDOM);
  lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  lm.T = 0;
  ck_assert_int_eq (rlref_lm_moments_d (m, &lm, B3, R3, &beta, RLREF_LM_ALL, NULL, NULL),
                    RLREF_EDOM);
  lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  lm.n_rows = V;
  ck_assert_int_eq (rlref_lm_moments_d (m, &lm, B3, R3, &beta, RLREF_LM_ALL, NULL, NULL),
                    RLREF_EINVAL);
  lm = model (RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
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

static Suite *
lm_suite (void)
{
  Suite *s = suite_create ("lm");
  TCase *tc = tu_tcase ("lm");
  tcase_add_test (tc, test_uniform_closed_form);
  tcase_add_test (tc, test_chain_rule);
  tcase_add_test (tc, test_dp_equals_enumeration);
  tcase_add_test (tc, test_small_beta);
  tcase_add_test (tc, test_bad_models);
  suite_add_tcase (s, tc);
  return s;
}

TU_MAIN (lm_suite)
