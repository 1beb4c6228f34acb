/* test_lmtrain.c -- the tiny LM's policy table (LM-PARAM), supervised
 * fine-tuning (LM-SFT) and the training report (LM-TRAIN): closed forms,
 * the identity ce = H + KL, gradients against MPFR central differences,
 * the report against the calls `rlref train` makes, binary64 against
 * MPFR, the sampled step against one worked by hand on fixed draws, the
 * boundary refusal, and bad input. */
#include <math.h>
#include <stdlib.h>
#include <check.h>
#include <gsl/gsl_rng.h>
#include "rlref/rlref.h"
#include "testutil.h"

/* A3: a tabular model, V = 3, EOS 2, T = 3, rows "", 0, 1, 00, 01, 10, 11;
 * B3: a bigram model of the same shape; A2: tabular, T = 2, rows "", 0, 1. */
static const double A3[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2, 0, 0, 0,
                               1, -1, 0, -0.3, 0.3, 0 };
static const double B3[12] = { 0.5, -0.2, 0.1, 0, 1, -1, 0, 0, 0, 0.3, 0.3, -0.5 };
static const double A2[9] = { 0.5, -0.3, 0.1, 0.2, 0.7, -0.4, -0.6, 0.3, 0.2 };
static const double R3[5] = { 1, -0.5, 0, -0.25, -1 };

static rlref_lm
model (int T, rlref_lm_kind kind, rlref_lm_truncation trunc, rlref_reward_kind reward)
{
  rlref_lm lm = { .V = 3, .eos = 2, .T = T, .kind = kind, .truncation = trunc,
                  .reward = reward };
  lm.n_rows = kind == RLREF_LM_BIGRAM ? 4 : (size_t) rlref_lm_num_prefixes (3, T);
  return lm;
}

static mpfr_ptr
mp_of (const double *x, size_t n, mpfr_prec_t prec)
{
  mpfr_ptr v = tu_mp_vec_new (n, prec);
  for (size_t i = 0; i < n; i++)
    mpfr_set_d (v + i, x[i], MPFR_RNDN);
  return v;
}

/* --- LM-PARAM ------------------------------------------------------------- */

/* V = 2: each row is a logistic choice, pi = sigma(l_0 - l_1), sigma(l_1 -
 * l_0); the row 1000, 0, -1000 has log pi_0 = -log1p(e^-1000 + e^-2000),
 * -5.08e-435 at 256 bits (0 in binary64, not a NaN or a rounding of log 1
 * to a positive number), and pi_1 = e^-1000 / (1 + ...). */
START_TEST (test_policy_closed_forms)
{
  rlref_lm lm = { .V = 2, .eos = 0, .T = 2, .kind = RLREF_LM_TABULAR, .n_rows = 2 };
  double logits[4] = { 0, 0, 3, -3 }, pi[4], lp[4];
  TU_OK (rlref_lm_policy_d (pi, lp, &lm, logits));
  TU_ASSERT_REL (pi[0], 0.5, TU_TOL0);
  TU_ASSERT_REL (pi[2], 1 / (1 + exp (-6.0)), TU_TOL1);
  TU_ASSERT_REL (pi[3], 1 / (1 + exp (6.0)), TU_TOL1);
  TU_ASSERT_REL (lp[3], -6 - log1p (exp (-6.0)), TU_TOL1);
  TU_ASSERT_REL (lp[2], -log1p (exp (-6.0)), TU_TOL1);
  {
    rlref_lm b = model (1, RLREF_LM_BIGRAM, RLREF_LM_KEEP, RLREF_REWARD_NONE);
    double x[12] = { 1000, 0, -1000, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, p[12], l[12];
    mpfr_ptr xm = mp_of (x, 12, 256), pm = tu_mp_vec_new (12, 256), lm_ = tu_mp_vec_new (12, 256);
    mpfr_t want;
    TU_OK (rlref_lm_policy_d (p, l, &b, x));
    ck_assert (l[0] == 0 && p[0] == 1 && p[1] == 0);
    TU_ASSERT_REL (l[1], -1000, TU_TOL0);
    TU_OK (rlref_lm_policy_mp (pm, lm_, &b, xm));
    mpfr_init2 (want, 320);
    mpfr_set_si (want, -2000, MPFR_RNDN);
    mpfr_exp (want, want, MPFR_RNDN);
    mpfr_set_si (xm, -1000, MPFR_RNDN);
    mpfr_exp (xm, xm, MPFR_RNDN);
    mpfr_add (want, want, xm, MPFR_RNDN);
    mpfr_log1p (want, want, MPFR_RNDN);
    mpfr_neg (want, want, MPFR_RNDN);
    TU_ASSERT_MP_AGREE (lm_, want, 70);
    TU_ASSERT_MP_STR (lm_, "-5.075958897549456765291809479574e-435", 30);
    TU_ASSERT_MP_STR (pm + 1, "5.075958897549456765291809479574e-435", 30);
    mpfr_clear (want);
    tu_mp_vec_free (xm, 12);
    tu_mp_vec_free (pm, 12);
    tu_mp_vec_free (lm_, 12);
  }
  /* the output may be the logits' storage: the same results */
  {
    double x[4] = { 0, 0, 3, -3 }, l2[4];
    TU_OK (rlref_lm_policy_d (x, l2, &lm, x));
    for (int k = 0; k < 4; k++)
      {
        TU_ASSERT_SAME (x[k], pi[k]);
        TU_ASSERT_SAME (l2[k], lp[k]);
      }
  }
  /* bad input */
  logits[1] = NAN;
  TU_ASSERT_STATUS (rlref_lm_policy_d (pi, lp, &lm, logits), RLREF_ENAN);
  lm.n_rows = 3;
  TU_ASSERT_STATUS (rlref_lm_policy_d (pi, lp, &lm, logits), RLREF_EINVAL);
}
END_TEST

/* --- LM-SFT --------------------------------------------------------------- */

/* A uniform tabular model, V = 2, EOS 1, T = 2, has outcomes (1), (0 1) and
 * (0 0) cut with 1/2, 1/4, 1/4.  Data with those weights: KL = 0, ce = H =
 * (3/2) log 2, gradient 0 (the maximum-likelihood point).  Data on (0 1)
 * alone: ce = kl = 2 log 2, H = 0. */
START_TEST (test_sft_closed_forms)
{
  rlref_lm lm = { .V = 2, .eos = 1, .T = 2, .kind = RLREF_LM_TABULAR, .n_rows = 2 };
  double logits[4] = { 0 }, w[3] = { 0.5, 0.25, 0.25 }, ce, h, kl, g[4];
  int data[5] = { 1, 0, 1, 0, 0 };
  TU_OK (rlref_lm_sft_d (&ce, &h, &kl, g, &lm, logits, data, 5, w, 3));
  TU_ASSERT_REL (ce, 1.5 * log (2.0), TU_TOL0);
  TU_ASSERT_REL (h, 1.5 * log (2.0), TU_TOL0);
  TU_ASSERT_ABS (kl, 0, 1e-16);
  for (int k = 0; k < 4; k++)
    TU_ASSERT_ABS (g[k], 0, 1e-16);
  TU_OK (rlref_lm_sft_d (&ce, &h, &kl, g, &lm, logits, data + 1, 2, w, 1));
  TU_ASSERT_REL (ce, 2 * log (2.0), TU_TOL0);
  TU_ASSERT_REL (kl, 2 * log (2.0), TU_TOL0);
  ck_assert (h == 0);
  /* d ce / d l = -(e_y - pi) on the path: row "" (0: -(1 - 1/2)), row 0 (1) */
  TU_ASSERT_REL (g[0], -0.5, TU_TOL0);
  TU_ASSERT_REL (g[1], 0.5, TU_TOL0);
  TU_ASSERT_REL (g[2], 0.5, TU_TOL0);
  TU_ASSERT_REL (g[3], -0.5, TU_TOL0);
  /* conditioned, uniform bigram V = 3, T = 3: P(EOS within T) = 19/27, so
   * the sequence (2) has q = (1/3)/(19/27) = 9/19 and ce = log(19/9) */
  {
    rlref_lm b = model (3, RLREF_LM_BIGRAM, RLREF_LM_CONDITION, RLREF_REWARD_NONE);
    double u[12] = { 0 }, one = 1;
    int y = 2;
    TU_OK (rlref_lm_sft_d (&ce, &h, &kl, NULL, &b, u, &y, 1, &one, 1));
    TU_ASSERT_REL (ce, log (19.0 / 9.0), TU_TOL1);
    TU_ASSERT_REL (kl, log (19.0 / 9.0), TU_TOL1);
  }
  /* one sequence (2) of the tabular A3: ce = -log pi(2 | "") = log(e + e^0.5 +
   * e^-1) + 1 */
  {
    rlref_lm a = model (3, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_NONE);
    double one = 1;
    int y = 2;
    TU_OK (rlref_lm_sft_d (&ce, &h, &kl, NULL, &a, A3, &y, 1, &one, 1));
    TU_ASSERT_REL (ce, log (exp (1.0) + exp (0.5) + exp (-1.0)) + 1, TU_TOL1);
  }
}
END_TEST

/* Weights beyond scale: (2) and (0 2) of A3 with weights 1e308 each sum to
 * 2e308, beyond binary64, yet p = 1/2, 1/2: H = log 2, and ce, kl, the
 * gradient as with weights 1, 1 (H was 0, p = w/inf); weights 1 and 2^-130
 * give H = -(1 - e) log(1 - e) - e log e, e = 2^-130/(1 + 2^-130) (log of p
 * rounded to 1 lost the first term, 1.4% of H); weights 2 and 2^-1074 give
 * H = -p log p - (1 - p) log1p(-p), p = 2^-1074/(2 + 2^-1074), 1.84e-321 (was
 * 0: p on the subnormal grid rounds to 0).  Closed forms in MPFR at 512
 * bits, rounded once; the subnormal one within two units of 2^-1074. */
static double
mp_two_point_entropy (double w1, double w2)
{
  mpfr_t p, q, a, b;
  double r;
  mpfr_inits2 (512, p, q, a, b, (mpfr_ptr) 0);
  mpfr_set_d (a, w1, MPFR_RNDN);
  mpfr_add_d (a, a, w2, MPFR_RNDN);
  mpfr_set_d (p, w2, MPFR_RNDN);
  mpfr_div (p, p, a, MPFR_RNDN);        /* p = w2 / (w1 + w2) */
  mpfr_log (a, p, MPFR_RNDN);
  mpfr_mul (a, a, p, MPFR_RNDN);
  mpfr_neg (q, p, MPFR_RNDN);
  mpfr_log1p (b, q, MPFR_RNDN);
  mpfr_add_ui (q, q, 1, MPFR_RNDN);
  mpfr_mul (b, b, q, MPFR_RNDN);
  mpfr_add (a, a, b, MPFR_RNDN);
  mpfr_neg (a, a, MPFR_RNDN);
  r = mpfr_get_d (a, MPFR_RNDN);
  mpfr_clears (p, q, a, b, (mpfr_ptr) 0);
  return r;
}

START_TEST (test_sft_extreme_weights)
{
  rlref_lm lm = model (3, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_NONE);
  static const int y[3] = { 2, 0, 2 };
  double big[2] = { 1e308, 1e308 }, one[2] = { 1, 1 }, ce, h, kl, g[21], ce1, h1, kl1, g1[21];
  double tiny[2] = { 1, 0x1p-130 }, sub[2] = { 2, 0x1p-1074 }, want;
  TU_OK (rlref_lm_sft_d (&ce, &h, &kl, g, &lm, A3, y, 3, big, 2));
  TU_OK (rlref_lm_sft_d (&ce1, &h1, &kl1, g1, &lm, A3, y, 3, one, 2));
  TU_ASSERT_REL (h, log (2.0), TU_TOL0);
  TU_ASSERT_REL (ce, ce1, TU_TOL0);
  TU_ASSERT_REL (kl, kl1, TU_TOL0);
  for (int k = 0; k < 21; k++)
    TU_ASSERT_REL (g[k], g1[k], TU_TOL0);
  TU_OK (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, y, 3, tiny, 2));
  TU_ASSERT_REL (h, mp_two_point_entropy (1, 0x1p-130), TU_TOL1);
  TU_OK (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, y, 3, sub, 2));
  want = mp_two_point_entropy (2, 0x1p-1074);
  ck_assert (want > 1e-321);
  TU_ASSERT_ABS (h, want, 0x1p-1073);
}
END_TEST

/* Data listed with a duplicate entry, against the data merged: the same
 * values (the weights add); ce = H + KL to 70 digits in MPFR; binary64
 * within 1e-15 of MPFR. */
static const int DUP[11] = { 0, 2, 1, 0, 2, 2, 0, 1, 1, 0, 2 };
static const double DUPW[5] = { 3, 1, 2, 0.5, 1 };
static const int MERGED[9] = { 0, 2, 1, 0, 2, 2, 0, 1, 1 };
static const double MERGEDW[4] = { 4, 1, 2, 0.5 };

START_TEST (test_sft_identity)
{
  rlref_lm lm = model (3, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_NONE);
  double ce, h, kl, g[21], ce2, h2, kl2, g2[21];
  mpfr_ptr x = mp_of (A3, 21, 256), w = mp_of (DUPW, 5, 256), o = tu_mp_vec_new (24, 256);
  mpfr_t s;
  TU_OK (rlref_lm_sft_d (&ce, &h, &kl, g, &lm, A3, DUP, 11, DUPW, 5));
  TU_OK (rlref_lm_sft_d (&ce2, &h2, &kl2, g2, &lm, A3, MERGED, 9, MERGEDW, 4));
  TU_ASSERT_SAME (ce, ce2);
  TU_ASSERT_SAME (h, h2);
  TU_ASSERT_SAME (kl, kl2);
  for (int k = 0; k < 21; k++)
    TU_ASSERT_SAME (g[k], g2[k]);
  /* H of p = (4, 1, 2, 0.5)/7.5 */
  TU_ASSERT_REL (h, -(4 / 7.5 * log (4 / 7.5) + 1 / 7.5 * log (1 / 7.5) + 2 / 7.5 * log (2 / 7.5)
                      + 0.5 / 7.5 * log (0.5 / 7.5)), TU_TOL1);
  TU_OK (rlref_lm_sft_mp (o, o + 1, o + 2, o + 3, &lm, x, DUP, 11, w, 5));
  mpfr_init2 (s, 256);
  mpfr_add (s, o + 1, o + 2, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (o, s, 70);
  TU_ASSERT_REL (ce, mpfr_get_d (o, MPFR_RNDN), TU_TOL0);
  TU_ASSERT_REL (kl, mpfr_get_d (o + 2, MPFR_RNDN), TU_TOL0);
  for (int k = 0; k < 21; k++)
    TU_ASSERT_ABS (g[k], mpfr_get_d (o + 3 + k, MPFR_RNDN), 1e-15);
  mpfr_clear (s);
  tu_mp_vec_free (x, 21);
  tu_mp_vec_free (w, 5);
  tu_mp_vec_free (o, 24);
}
END_TEST

/* d ce / d logits against central differences of ce at 512 bits, step
 * 2^-100 (error ~ 2^-200), for each parameterisation and reading. */
START_TEST (test_sft_gradient)
{
  static const int eos_data[9] = { 0, 2, 1, 0, 2, 2, 0, 1, 2 };
  for (int c = 0; c < 4; c++)
    {
      int bigram = c & 1, cond = c >> 1;
      rlref_lm lm = model (3, bigram ? RLREF_LM_BIGRAM : RLREF_LM_TABULAR,
                           cond ? RLREF_LM_CONDITION : RLREF_LM_KEEP, RLREF_REWARD_NONE);
      size_t n = lm.n_rows * 3;
      const int *data = cond ? eos_data : DUP;
      size_t nd = cond ? 9 : 11, nw = cond ? 4 : 5;
      mpfr_ptr x = mp_of (bigram ? B3 : A3, n, 512), w = mp_of (DUPW, nw, 512);
      mpfr_ptr o = tu_mp_vec_new (3 + n, 512), p = tu_mp_vec_new (3, 512);
      mpfr_ptr m = tu_mp_vec_new (3, 512);
      mpfr_t fd;
      mpfr_init2 (fd, 512);
      rlref_mp_set_prec (512);
      TU_OK (rlref_lm_sft_mp (o, o + 1, o + 2, o + 3, &lm, x, data, nd, w, nw));
      for (size_t k = 0; k < n; k++)
        {
          mpfr_t keep;
          mpfr_init2 (keep, 512);
          mpfr_set (keep, x + k, MPFR_RNDN);
          mpfr_add_d (x + k, keep, 0x1p-100, MPFR_RNDN);
          TU_OK (rlref_lm_sft_mp (p, p + 1, p + 2, NULL, &lm, x, data, nd, w, nw));
          mpfr_sub_d (x + k, keep, 0x1p-100, MPFR_RNDN);
          TU_OK (rlref_lm_sft_mp (m, m + 1, m + 2, NULL, &lm, x, data, nd, w, nw));
          mpfr_set (x + k, keep, MPFR_RNDN);
          mpfr_sub (fd, p, m, MPFR_RNDN);
          mpfr_mul_2si (fd, fd, 99, MPFR_RNDN);
          mpfr_sub (fd, fd, o + 3 + k, MPFR_RNDN);
          ck_assert_msg (fabs (mpfr_get_d (fd, MPFR_RNDN)) < 1e-50,
                         "case %d, logit %zu: gradient %s, differences off by %s", c, k,
                         tu_mp_str (o + 3 + k), tu_mp_str (fd));
          mpfr_clear (keep);
        }
      rlref_mp_set_prec (RLREF_DEFAULT_PREC);
      mpfr_clear (fd);
      tu_mp_vec_free (x, n);
      tu_mp_vec_free (w, nw);
      tu_mp_vec_free (o, 3 + n);
      tu_mp_vec_free (p, 3);
      tu_mp_vec_free (m, 3);
    }
}
END_TEST

START_TEST (test_sft_bad_input)
{
  rlref_lm lm = model (3, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_NONE);
  rlref_lm cond = model (3, RLREF_LM_TABULAR, RLREF_LM_CONDITION, RLREF_REWARD_NONE);
  double ce, h, kl, w2[2] = { 1, 1 }, neg[2] = { 1, -1 }, zero[2] = { 0, 0 }, nan1 = NAN;
  int d1[3] = { 0, 2, 1 }, d2[3] = { 0, 2, 2 }, bad[2] = { 0, 3 }, cut[3] = { 0, 1, 1 };
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, d1, 3, w2, 2), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, d2, 3, w2, 1), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, d2, 2, w2, 2), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, d2, 3, neg, 2), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, d2, 3, zero, 2), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, bad, 2, w2, 1), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, d2, 1, &nan1, 1), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, d2, 0, w2, 0), RLREF_EINVAL);
  TU_OK (rlref_lm_sft_d (&ce, &h, &kl, NULL, &lm, A3, cut, 3, w2, 1));
  TU_ASSERT_STATUS (rlref_lm_sft_d (&ce, &h, &kl, NULL, &cond, A3, cut, 3, w2, 1), RLREF_EDOM);
}
END_TEST

/* --- LM-TRAIN ------------------------------------------------------------- */

/* At step 0 the policy is the reference: the RLHF objective is E_ref[r] and
 * KL(pi_ref || pi*) = log Z - E_ref[r]/beta (LM-EXACT's moments). */
START_TEST (test_train_at_reference)
{
  rlref_lm lm = model (2, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  double beta = 0.5, lr = 0.5, obj, kl, m[RLREF_LM_NMOMENTS];
  int at0 = 0;
  TU_OK (rlref_lm_train_report_d (&obj, &kl, &lm, A2, R3, &beta, RLREF_LM_OBJ_RLHF, &lr, &at0,
                                  1));
  TU_OK (rlref_lm_moments_d (m, &lm, A2, R3, &beta, RLREF_LM_ALL, NULL, NULL));
  TU_ASSERT_REL (obj, m[RLREF_LM_MEAN_R], TU_TOL1);
  TU_ASSERT_REL (kl, m[RLREF_LM_KL_REF_STAR], TU_TOL2);
}
END_TEST

/* The report is the run `rlref train` makes: lm_descend step by step, the
 * objective, and lm_objective (KL) against lm_pistar_logits; binary64
 * rounds theta where `rlref train` prints a line and the report does not,
 * so the two agree to 1e-13, and a run reported at 0, 5, 12 ends where one
 * reported at 12 alone does, to the last bit (one exact run, rounded once). */
START_TEST (test_train_is_rlref_train)
{
  rlref_lm lm = model (2, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  static const int objs[4] = { RLREF_LM_OBJ_RLHF, RLREF_LM_OBJ_REWARD, RLREF_LM_OBJ_DPO,
                               RLREF_LM_OBJ_IPO };
  double beta = 0.5, lr = 0.5;
  int at[3] = { 0, 5, 12 }, last = 12;
  for (int o = 0; o < 4; o++)
    {
      double obj[3], kl[3], obj1, kl1, th[9], star[9], hist[13], v, k;
      TU_OK (rlref_lm_train_report_d (obj, kl, &lm, A2, R3, &beta, objs[o], &lr, at, 3));
      TU_OK (rlref_lm_train_report_d (&obj1, &kl1, &lm, A2, R3, &beta, objs[o], &lr, &last, 1));
      TU_ASSERT_SAME (obj1, obj[2]);
      TU_ASSERT_SAME (kl1, kl[2]);
      TU_OK (rlref_lm_pistar_logits_d (star, &lm, A2, R3, &beta));
      for (int i = 0; i < 9; i++)
        th[i] = A2[i];
      for (int s = 0; s < 3; s++)
        {
          int n = at[s] - (s ? at[s - 1] : 0);
          TU_OK (rlref_lm_descend_d (th, hist, &lm, A2, R3, &beta, objs[o], &lr, n));
          TU_OK (rlref_lm_objective_d (&v, NULL, &lm, th, A2, R3, &beta, objs[o]));
          TU_OK (rlref_lm_objective_d (&k, NULL, &lm, th, star, R3, &beta, RLREF_LM_OBJ_KL));
          TU_ASSERT_REL (obj[s], v, 1e-13);
          TU_ASSERT_REL (kl[s], k, 1e-13);
        }
      /* ascent raises E[r] and the RLHF objective; descent lowers DPO and IPO */
      if (o < 2)
        ck_assert (obj[0] < obj[1] && obj[1] < obj[2]);
      else
        ck_assert (obj[0] > obj[1] && obj[1] > obj[2]);
    }
}
END_TEST

/* The certified reference: the MPFR run at 256 and at 320 bits agrees to 70
 * digits (the recurrence is a contraction here, its exact value well
 * defined), binary64 within 1e-13 of it; the RLHF run approaches pi*: KL
 * falls at every listed step. */
START_TEST (test_train_precisions)
{
  rlref_lm lm = model (2, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  double beta = 0.5, lr = 4, obj[4], kl[4];
  int at[4] = { 0, 5, 15, 40 };
  mpfr_ptr r[2];
  for (int p = 0; p < 2; p++)
    {
      mpfr_prec_t prec = p ? 320 : 256;
      mpfr_ptr x = mp_of (A2, 9, prec), rw = mp_of (R3, 5, prec), b = mp_of (&beta, 1, prec);
      mpfr_ptr l = mp_of (&lr, 1, prec);
      r[p] = tu_mp_vec_new (8, prec);
      rlref_mp_set_prec (prec);
      TU_OK (rlref_lm_train_report_mp (r[p], r[p] + 4, &lm, x, rw, b, RLREF_LM_OBJ_RLHF, l, at,
                                       4));
      rlref_mp_set_prec (RLREF_DEFAULT_PREC);
      tu_mp_vec_free (x, 9);
      tu_mp_vec_free (rw, 5);
      tu_mp_vec_free (b, 1);
      tu_mp_vec_free (l, 1);
    }
  TU_OK (rlref_lm_train_report_d (obj, kl, &lm, A2, R3, &beta, RLREF_LM_OBJ_RLHF, &lr, at, 4));
  for (int i = 0; i < 8; i++)
    TU_ASSERT_MP_AGREE (r[0] + i, r[1] + i, 70);
  for (int i = 0; i < 4; i++)
    {
      TU_ASSERT_REL (obj[i], mpfr_get_d (r[1] + i, MPFR_RNDN), 1e-13);
      TU_ASSERT_REL (kl[i], mpfr_get_d (r[1] + 4 + i, MPFR_RNDN), 1e-12);
      if (i)
        ck_assert (mpfr_less_p (r[1] + 4 + i, r[1] + 3 + i));
    }
  /* objective(pi) = beta log Z - beta KL(pi || pi*) (13.14-13.16): the
   * objective approaches its maximum beta log Z as KL falls */
  {
    double m[RLREF_LM_NMOMENTS];
    TU_OK (rlref_lm_moments_d (m, &lm, A2, R3, &beta, RLREF_LM_ALL, NULL, NULL));
    for (int i = 0; i < 4; i++)
      TU_ASSERT_ABS (obj[i], beta * m[RLREF_LM_LOG_Z] - beta * kl[i], 1e-15);
    ck_assert (obj[3] < beta * m[RLREF_LM_LOG_Z]);
  }
  tu_mp_vec_free (r[0], 8);
  tu_mp_vec_free (r[1], 8);
}
END_TEST

START_TEST (test_train_bad_input)
{
  rlref_lm lm = model (2, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  rlref_lm big = model (3, RLREF_LM_BIGRAM, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  double beta = 0.5, lr = 0.5, zero = 0, obj[3], kl[3];
  int at[3] = { 0, 5, 3 }, ok[2] = { 0, 5 }, far = RLREF_LM_TRAIN_MAX_STEPS + 1;
  TU_ASSERT_STATUS (rlref_lm_train_report_d (obj, kl, &lm, A2, R3, &beta, RLREF_LM_OBJ_RLHF,
                                             &lr, at, 3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_train_report_d (obj, kl, &lm, A2, R3, &beta, RLREF_LM_OBJ_RLHF,
                                             &zero, ok, 2), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_train_report_d (obj, kl, &lm, A2, R3, &zero, RLREF_LM_OBJ_RLHF,
                                             &lr, ok, 2), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_train_report_d (obj, kl, &lm, A2, R3, &beta, RLREF_LM_OBJ_KL,
                                             &lr, ok, 2), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_lm_train_report_d (obj, kl, &lm, A2, R3, &beta, RLREF_LM_OBJ_RLHF,
                                             &lr, &far, 1), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_train_report_d (obj, kl, &lm, A2, R3, &beta, RLREF_LM_OBJ_RLHF,
                                             &lr, ok, 0), RLREF_EINVAL);
  /* pi* as logits needs a tabular model */
  TU_ASSERT_STATUS (rlref_lm_train_report_d (obj, kl, &big, B3, R3, &beta, RLREF_LM_OBJ_RLHF,
                                             &lr, ok, 2), RLREF_EINVAL);
}
END_TEST

/* --- LM-TRAIN, sampled ----------------------------------------------------- */

/* A random stream that returns the uniforms it is given, in order. */
typedef struct
{
  const double *u;
  size_t n, i;
} fixed_state;

static void
fixed_set (void *state, unsigned long seed)
{
  (void) state;
  (void) seed;
}

static unsigned long
fixed_get (void *state)
{
  (void) state;
  return 0;
}

static double
fixed_get_double (void *state)
{
  fixed_state *f = state;
  ck_assert_msg (f->i < f->n, "more draws than the test gives");
  return f->u[f->i++];
}

static const gsl_rng_type fixed_type = { "fixed", 0xffffffffUL, 0, sizeof (fixed_state),
                                         fixed_set, fixed_get, fixed_get_double };

static gsl_rng *
fixed_rng (const double *u, size_t n)
{
  gsl_rng *r = gsl_rng_alloc (&fixed_type);
  fixed_state *f = r->state;
  f->u = u;
  f->n = n;
  f->i = 0;
  return r;
}

/* softmax of a row of 3 logits, in double */
static void
softmax3 (double *p, const double *l)
{
  double m = fmax (l[0], fmax (l[1], l[2])), s = 0;
  for (int a = 0; a < 3; a++)
    s += p[a] = exp (l[a] - m);
  for (int a = 0; a < 3; a++)
    p[a] /= s;
}

/* One REINFORCE step on E[r], and one DPO step, by hand (A2: rows "", "0",
 * "1"; n = 2, lr = 0.5).  Draws 0.99 (above pi_0 + pi_1 of the start row: y_1 = (2), EOS),
 * then 0.01 (token 0) and 0.5 (row "0": pi_0 = 0.33, pi_0 + pi_1 = 0.87:
 * token 1, cut at T = 2): y_2 = (0 1).  r(y_1) = 0 - 0.25 = -0.25, r(y_2) =
 * 1 - 0.5 - 2 (0.25) - 1 = -1, mean -0.625, so theta += (0.5/2) (0.375
 * grad log pi(y_1) - 0.375 grad log pi(y_2)), grad log pi(y) = e_{y_t} -
 * pi(. | s_t) in the row of each prefix s_t.  Both backends. */
START_TEST (test_sampled_step_by_hand)
{
  rlref_lm lm = model (2, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  static const double u[3] = { 0.99, 0.01, 0.5 };
  double beta = 0.5, lr = 0.5, th[9], want[9], p0[3], p1[3], c = 0.25 * 0.375;
  gsl_rng *r = fixed_rng (u, 3);
  softmax3 (p0, A2);
  softmax3 (p1, A2 + 3);
  ck_assert (p0[0] + p0[1] < 0.99 && p0[0] > 0.01 && p1[0] < 0.5 && p1[0] + p1[1] > 0.5);
  for (int k = 0; k < 9; k++)
    want[k] = th[k] = A2[k];
  for (int a = 0; a < 3; a++)
    {
      /* y_1 = (2): row "" gets +c (e_2 - pi); y_2 = (0 1): row "" and row
       * "0" get -c (e_y - pi) */
      want[a] += c * ((a == 2) - p0[a]) - c * ((a == 0) - p0[a]);
      want[3 + a] -= c * ((a == 1) - p1[a]);
    }
  TU_OK (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &beta, RLREF_LM_OBJ_REWARD, &lr, 1,
                                     2, r));
  ck_assert_uint_eq (((fixed_state *) r->state)->i, 3);
  for (int k = 0; k < 9; k++)
    TU_ASSERT_ABS (th[k], want[k], 4 * DBL_EPSILON);
  {
    mpfr_ptr x = mp_of (A2, 9, 256), t = mp_of (A2, 9, 256), rw = mp_of (R3, 5, 256);
    mpfr_ptr b = mp_of (&beta, 1, 256), l = mp_of (&lr, 1, 256);
    ((fixed_state *) r->state)->i = 0;
    TU_OK (rlref_lm_sampled_descend_mp (t, NULL, &lm, x, rw, b, RLREF_LM_OBJ_REWARD, l, 1, 2,
                                        r));
    for (int k = 0; k < 9; k++)
      TU_ASSERT_ABS (mpfr_get_d (t + k, MPFR_RNDN), want[k], 4 * DBL_EPSILON);
    tu_mp_vec_free (x, 9);
    tu_mp_vec_free (t, 9);
    tu_mp_vec_free (rw, 5);
    tu_mp_vec_free (b, 1);
    tu_mp_vec_free (l, 1);
  }
  gsl_rng_free (r);
  /* DPO, n = 2 pairs from pi_ref: (2), (0 1) as above, then (2), (2); labels
   * 0.3 < sigma(r(2) - r(0 1)) = sigma(0.75) = 0.68: (2) preferred; 0.9 >
   * sigma(0) for the equal pair (no gradient).  At theta = ref z = 0, the
   * weight beta sigma(0) = 1/4: theta += (0.5/2) (1/4) (grad log pi((2)) -
   * grad log pi((0 1))). */
  {
    static const double v[7] = { 0.99, 0.01, 0.5, 0.99, 0.99, 0.3, 0.9 };
    double d = 0.0625;
    r = fixed_rng (v, 7);
    for (int k = 0; k < 9; k++)
      want[k] = th[k] = A2[k];
    for (int a = 0; a < 3; a++)
      {
        want[a] += d * ((a == 2) - p0[a]) - d * ((a == 0) - p0[a]);
        want[3 + a] -= d * ((a == 1) - p1[a]);
      }
    TU_OK (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &beta, RLREF_LM_OBJ_DPO, &lr, 1,
                                       2, r));
    ck_assert_uint_eq (((fixed_state *) r->state)->i, 7);
    for (int k = 0; k < 9; k++)
      TU_ASSERT_ABS (th[k], want[k], 4 * DBL_EPSILON);
    gsl_rng_free (r);
  }
}
END_TEST

/* A draw on a boundary is refused in both backends (EPREC): u = pi_0 of the
 * start row; 2^-39 away it is decided (token 0 above, token 1 below).  A
 * DPO label drawn at sigma(r_1 - r_2) = 1/2 (two equal sequences) too. */
START_TEST (test_sampled_boundary)
{
  rlref_lm lm = model (2, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  double beta = 0.5, lr = 0.5, th[9], p0[3], u[4];
  mpfr_ptr x = mp_of (A2, 9, 256), t = mp_of (A2, 9, 256), rw = mp_of (R3, 5, 256);
  mpfr_ptr b = mp_of (&beta, 1, 256), l = mp_of (&lr, 1, 256);
  gsl_rng *r;
  softmax3 (p0, A2);
  /* u = pi_0: refused; then u = pi_0 + 2^-39 gives token 1 and u = pi_0 - 2^-39
   * token 0, each followed by EOS (0.999), and a second sequence (2) */
  for (int c = 0; c < 3; c++)
    {
      int want = c == 0 ? RLREF_EPREC : RLREF_SUCCESS;
      u[0] = p0[0] + (c == 0 ? 0 : c == 1 ? 0x1p-39 : -0x1p-39);
      u[1] = u[2] = u[3] = 0.999;
      for (int k = 0; k < 9; k++)
        th[k] = A2[k];
      r = fixed_rng (u, 4);
      TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &beta,
                                                    RLREF_LM_OBJ_REWARD, &lr, 1, 2, r), want);
      ((fixed_state *) r->state)->i = 0;
      TU_ASSERT_STATUS (rlref_lm_sampled_descend_mp (t, NULL, &lm, x, rw, b,
                                                     RLREF_LM_OBJ_REWARD, l, 1, 2, r), want);
      gsl_rng_free (r);
    }
  /* DPO, n = 2: four sequences (2) (0.999 each), then labels 0.25 and 0.5:
   * sigma(0) = 1/2 is met exactly */
  {
    static const double v[6] = { 0.999, 0.999, 0.999, 0.999, 0.25, 0.5 };
    r = fixed_rng (v, 6);
    TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &beta,
                                                  RLREF_LM_OBJ_DPO, &lr, 1, 2, r), RLREF_EPREC);
    ((fixed_state *) r->state)->i = 0;
    TU_ASSERT_STATUS (rlref_lm_sampled_descend_mp (t, NULL, &lm, x, rw, b, RLREF_LM_OBJ_DPO,
                                                   l, 1, 2, r), RLREF_EPREC);
    gsl_rng_free (r);
  }
  tu_mp_vec_free (x, 9);
  tu_mp_vec_free (t, 9);
  tu_mp_vec_free (rw, 5);
  tu_mp_vec_free (b, 1);
  tu_mp_vec_free (l, 1);
}
END_TEST

/* A seeded mt19937 run: two segments (5 + 7 steps) are the run of 12 to
 * 1e-13 (binary64 rounds theta between them), with or without the
 * history; MPFR at 256 and 320 bits draws the same batches and agrees to 70
 * digits, and the binary64 run of 12 is it rounded once, to the last bit;
 * DPO lowers the population loss. */
START_TEST (test_sampled_precisions)
{
  rlref_lm lm = model (2, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  static const int objs[3] = { RLREF_LM_OBJ_RLHF, RLREF_LM_OBJ_REWARD, RLREF_LM_OBJ_DPO };
  double beta = 0.5, lr = 0.5;
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  for (int o = 0; o < 3; o++)
    {
      double a[9], b[9], h[13], h2[8], v;
      mpfr_ptr m[2];
      for (int k = 0; k < 9; k++)
        a[k] = b[k] = A2[k];
      gsl_rng_set (rng, 1);
      TU_OK (rlref_lm_sampled_descend_d (a, h, &lm, A2, R3, &beta, objs[o], &lr, 12, 2, rng));
      gsl_rng_set (rng, 1);
      TU_OK (rlref_lm_sampled_descend_d (b, NULL, &lm, A2, R3, &beta, objs[o], &lr, 5, 2, rng));
      TU_OK (rlref_lm_sampled_descend_d (b, h2, &lm, A2, R3, &beta, objs[o], &lr, 7, 2, rng));
      for (int k = 0; k < 9; k++)
        TU_ASSERT_ABS (b[k], a[k], 1e-13);
      TU_ASSERT_REL (h2[7], h[12], 1e-13);
      TU_OK (rlref_lm_objective_d (&v, NULL, &lm, a, A2, R3, &beta, objs[o]));
      TU_ASSERT_SAME (v, h[12]);
      if (objs[o] == RLREF_LM_OBJ_DPO)
        ck_assert (h[12] < h[0]);
      for (int p = 0; p < 2; p++)
        {
          mpfr_prec_t prec = p ? 320 : 256;
          mpfr_ptr x = mp_of (A2, 9, prec), rw = mp_of (R3, 5, prec), bb = mp_of (&beta, 1, prec);
          mpfr_ptr l = mp_of (&lr, 1, prec);
          m[p] = mp_of (A2, 9, prec);
          rlref_mp_set_prec (prec);
          gsl_rng_set (rng, 1);
          TU_OK (rlref_lm_sampled_descend_mp (m[p], NULL, &lm, x, rw, bb, objs[o], l, 12, 2,
                                              rng));
          rlref_mp_set_prec (RLREF_DEFAULT_PREC);
          tu_mp_vec_free (x, 9);
          tu_mp_vec_free (rw, 5);
          tu_mp_vec_free (bb, 1);
          tu_mp_vec_free (l, 1);
        }
      for (int k = 0; k < 9; k++)
        {
          TU_ASSERT_MP_AGREE (m[0] + k, m[1] + k, 70);
          TU_ASSERT_SAME (a[k], mpfr_get_d (m[1] + k, MPFR_RNDN));
        }
      /* the run moved: not the reference */
      ck_assert (fabs (a[0] - A2[0]) > 1e-3 || fabs (a[1] - A2[1]) > 1e-3);
      tu_mp_vec_free (m[0], 9);
      tu_mp_vec_free (m[1], 9);
    }
  gsl_rng_free (rng);
}
END_TEST

START_TEST (test_sampled_bad_input)
{
  rlref_lm lm = model (2, RLREF_LM_TABULAR, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE);
  double beta = 0.5, lr = 0.5, zero = 0, th[9], bad[9], nanr[5];
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  for (int k = 0; k < 9; k++)
    th[k] = bad[k] = A2[k];
  for (int k = 0; k < 5; k++)
    nanr[k] = R3[k];
  bad[4] = INFINITY;
  nanr[3] = NAN;
  TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &beta,
                                                RLREF_LM_OBJ_REWARD, &lr, 3, 1, rng), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &beta,
                                                RLREF_LM_OBJ_REWARD, &zero, 3, 2, rng),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &beta,
                                                RLREF_LM_OBJ_REWARD, &lr, 3, 2, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &zero, RLREF_LM_OBJ_RLHF,
                                                &lr, 3, 2, rng), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, R3, &beta, RLREF_LM_OBJ_IPO,
                                                &lr, 3, 2, rng), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, bad, R3, &beta,
                                                RLREF_LM_OBJ_DPO, &lr, 3, 2, rng), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_lm_sampled_descend_d (th, NULL, &lm, A2, nanr, &beta,
                                                RLREF_LM_OBJ_REWARD, &lr, 3, 2, rng), RLREF_ENAN);
  /* nothing was written */
  for (int k = 0; k < 9; k++)
    TU_ASSERT_SAME (th[k], A2[k]);
  gsl_rng_free (rng);
}
END_TEST

/* DPO-DISPLACE with beta = 2^-306: each step moves the logits by about
 * lr beta / 2, so the margin after 50 steps is about 7.7e-91 beside
 * log-probabilities of order 1; formed from binary64 log-probabilities it
 * is 0, from the exact run it is kept: binary64 is the program at 1024 bits
 * rounded. */
START_TEST (test_displace_tiny_margin)
{
  static const double lg[12] = { 0x1.5eb851eb851ecp+0, -0x1.2147ae147ae14p+1,
                                 -0x1.6666666666666p+0, 0x1.a147ae147ae14p+0,
                                 -0x1.828f5c28f5c29p+0, -0x1.3d70a3d70a3d7p-1,
                                 -0x1.dc28f5c28f5c3p-1, -0x1.b5c28f5c28f5cp+0,
                                 -0x1.851eb851eb852p-3, -0x1.5c28f5c28f5c3p-2,
                                 -0x1.170a3d70a3d71p+0, -0x1.0a3d70a3d70a4p-3 };
  static const int yw[3] = { 1, 1, 0 }, yl[3] = { 1, 1, 1 };
  rlref_lm lm = model (3, RLREF_LM_BIGRAM, RLREF_LM_KEEP, RLREF_REWARD_NONE);
  double beta = 0x1p-306, lr = 2, w[2], l[2], margin;
  mpfr_ptr x = mp_of (lg, 12, 1024), b = mp_of (&beta, 1, 1024), r = mp_of (&lr, 1, 1024);
  mpfr_ptr o = tu_mp_vec_new (5, 1024);
  TU_OK (rlref_lm_displace_d (w, l, &margin, &lm, lg, &beta, RLREF_LM_OBJ_DPO, yw, 3, yl, 3,
                              &lr, 50));
  rlref_mp_set_prec (1024);
  TU_OK (rlref_lm_displace_mp (o, o + 2, o + 4, &lm, x, b, RLREF_LM_OBJ_DPO, yw, 3, yl, 3, r,
                               50));
  rlref_mp_set_prec (RLREF_DEFAULT_PREC);
  ck_assert (margin > 1e-91 && margin < 1e-90);
  TU_ASSERT_SAME (margin, mpfr_get_d (o + 4, MPFR_RNDN));
  TU_ASSERT_SAME (w[1], mpfr_get_d (o + 1, MPFR_RNDN));
  TU_ASSERT_SAME (l[1], mpfr_get_d (o + 3, MPFR_RNDN));
  tu_mp_vec_free (x, 12);
  tu_mp_vec_free (b, 1);
  tu_mp_vec_free (r, 1);
  tu_mp_vec_free (o, 5);
}
END_TEST

static Suite *
lmtrain_suite (void)
{
  Suite *s = suite_create ("lmtrain");
  TCase *tc = tu_tcase ("lmtrain");
  tcase_add_test (tc, test_policy_closed_forms);
  tcase_add_test (tc, test_sft_closed_forms);
  tcase_add_test (tc, test_sft_identity);
  tcase_add_test (tc, test_sft_extreme_weights);
  tcase_add_test (tc, test_sft_gradient);
  tcase_add_test (tc, test_sft_bad_input);
  tcase_add_test (tc, test_train_at_reference);
  tcase_add_test (tc, test_train_is_rlref_train);
  tcase_add_test (tc, test_train_precisions);
  tcase_add_test (tc, test_train_bad_input);
  tcase_add_test (tc, test_sampled_step_by_hand);
  tcase_add_test (tc, test_sampled_boundary);
  tcase_add_test (tc, test_sampled_precisions);
  tcase_add_test (tc, test_sampled_bad_input);
  tcase_add_test (tc, test_displace_tiny_margin);
  suite_add_tcase (s, tc);
  return s;
}

TU_MAIN (lmtrain_suite)
