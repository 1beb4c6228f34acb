/* test_rlvr.c -- verifiable rewards (RLVR-*): the binary verifier (13.35)
 * under each answer-matching convention, the seed's example with its group
 * advantages, the aggregation of process-reward scores, and Math-Shepherd
 * labels with their exact expectation on a tree, in binary64 (_d) and MPFR
 * (_mp).
 *
 * Expected values: the matching rules decided by hand (Python's
 * math.isclose on the listed doubles); closed forms (advantages
 * sqrt((1 - p)/p) and -sqrt(p/(1 - p)) for a pass rate p, label 1/4 and
 * 1 - (3/4)^8 on the seed's integral tree); the definitions evaluated
 * directly with MPFR at 512 bits (1 - (1 - p)^N for a rare success).  The
 * generic test holds every function to the aliasing rule of
 * reference/README.md; a group of one answer is held to it here. */
#include "testutil.h"

#define PREC 256
#define HIGH 512

static const rlref_verifier *
verifier (const char *name)
{
  const rlref_verifier *v = rlref_verifier_find (name);
  ck_assert_ptr_nonnull (v);
  return v;
}

/* Equality and verl prime_math's isclose: 1.00005 and 0.9999 are within
 * 1e-4 of 1 (1 - 0.9999 is 9.99999999999989e-5 in binary64), 0.99989 is
 * not; 100 and 0.01 are the percentages; -0 equals 0; NaN matches nothing;
 * reference 1e307 times 100 overflows to inf, which matches inf. */
START_TEST (test_answer_matching)
{
  ck_assert (rlref_answer_matches (1.0, 1.0, RLREF_MATCH_EQUAL));
  ck_assert (!rlref_answer_matches (0x1.0000000000001p+0, 1.0, RLREF_MATCH_EQUAL));
  ck_assert (rlref_answer_matches (-0.0, 0.0, RLREF_MATCH_EQUAL));
  ck_assert (!rlref_answer_matches (NAN, 1.0, RLREF_MATCH_EQUAL));
  ck_assert (rlref_answer_matches (1.00005, 1.0, RLREF_MATCH_PRIME_MATH));
  ck_assert (rlref_answer_matches (0.9999, 1.0, RLREF_MATCH_PRIME_MATH));
  ck_assert (!rlref_answer_matches (0.99989, 1.0, RLREF_MATCH_PRIME_MATH));
  ck_assert (rlref_answer_matches (100.0, 1.0, RLREF_MATCH_PRIME_MATH));
  ck_assert (rlref_answer_matches (0.01, 1.0, RLREF_MATCH_PRIME_MATH));
  ck_assert (!rlref_answer_matches (0.5, 1.0, RLREF_MATCH_PRIME_MATH));
  ck_assert (!rlref_answer_matches (1e-300, 0.0, RLREF_MATCH_PRIME_MATH));
  ck_assert (!rlref_answer_matches (NAN, 1.0, RLREF_MATCH_PRIME_MATH));
  ck_assert (rlref_answer_matches (INFINITY, 1e307, RLREF_MATCH_PRIME_MATH));
  ck_assert (!rlref_answer_matches (-INFINITY, 1e307, RLREF_MATCH_PRIME_MATH));
  ck_assert (!rlref_answer_matches (INFINITY, 1.0, RLREF_MATCH_PRIME_MATH));
  ck_assert_ptr_null (rlref_verifier_find ("nope"));
}
END_TEST

/* Seed 000 section 7.1: the integral of 2x over [0, 1] is 1; answers
 * (1, 0.5, 1, 2, 1) earn (1, 0, 1, 0, 1) (13.35), (1, -1, 1, -1, 1) under
 * dapo; a NaN answer (nothing extracted) earns the wrong reward; in both
 * backends exactly. */
START_TEST (test_verify_reward)
{
  static const double ans[5] = { 1, 0.5, 1, 2, 1 }, bin[5] = { 1, 0, 1, 0, 1 };
  static const double dapo[5] = { 1, -1, 1, -1, 1 };
  double ref = 1, r[5], na[2] = { NAN, 1 };
  mpfr_ptr am = tu_mp_vec_from_d (ans, 5, PREC), rm = tu_mp_vec_new (5, PREC);
  mpfr_t refm;
  mpfr_init2 (refm, PREC);
  mpfr_set_d (refm, 1.0, MPFR_RNDN);
  TU_OK (rlref_verify_reward_d (r, ans, 5, &ref, verifier ("binary")));
  for (int i = 0; i < 5; i++)
    TU_ASSERT_SAME (r[i], bin[i]);
  TU_OK (rlref_verify_reward_mp (rm, am, 5, refm, verifier ("dapo")));
  for (int i = 0; i < 5; i++)
    ck_assert (mpfr_cmp_d (rm + i, dapo[i]) == 0);
  TU_OK (rlref_verify_reward_d (r, na, 2, &ref, verifier ("dapo")));
  TU_ASSERT_SAME (r[0], -1.0);
  TU_ASSERT_SAME (r[1], 1.0);
  tu_mp_vec_free (am, 5);
  tu_mp_vec_free (rm, 5);
  mpfr_clear (refm);
}
END_TEST

/* No answers: EINVAL; a NaN or infinite reference: ENAN. */
START_TEST (test_verify_bad_inputs)
{
  double ans[2] = { 1, 2 }, r[2], ref = 1, nref = NAN, iref = INFINITY;
  TU_ASSERT_STATUS (rlref_verify_reward_d (r, ans, 0, &ref, verifier ("binary")), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_verify_reward_d (r, ans, 2, &nref, verifier ("binary")), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_verify_reward_d (r, ans, 2, &iref, verifier ("prime-math")),
                    RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_verify_reward_d (r, ans, 2, &ref, NULL), RLREF_EINVAL);
}
END_TEST

/* The example's group: three right answers of five have mean 3/5 and, by
 * 13.23 with ddof 0, advantages sqrt((1 - p)/p) = sqrt(2/3) for the right
 * and -sqrt(p/(1 - p)) = -sqrt(3/2) for the wrong (75 digits; 2 eps in
 * double); dapo's +-1 rewards have mean 1/5 and the same advantages; all
 * five right: advantages 0. */
START_TEST (test_verify_group)
{
  static const double ans[5] = { 1, 0.5, 1, 2, 1 }, all[5] = { 1, 1, 1, 1, 1 };
  double ref = 1, r[5], adv[5], correct, mean;
  const rlref_adv_convention *seed = rlref_adv_convention_find ("seed-000");
  mpfr_ptr am = tu_mp_vec_from_d (ans, 5, PREC), rm = tu_mp_vec_new (5, PREC);
  mpfr_ptr advm = tu_mp_vec_new (5, PREC);
  mpfr_t refm, cm, mm, want;
  mpfr_inits2 (PREC, refm, cm, mm, want, (mpfr_ptr) 0);
  ck_assert_ptr_nonnull (seed);
  mpfr_set_d (refm, 1.0, MPFR_RNDN);
  TU_OK (rlref_verify_group_mp (rm, cm, mm, advm, am, 5, refm, verifier ("binary"), seed));
  ck_assert (mpfr_cmp_ui (cm, 3) == 0);
  mpfr_set_ui (want, 3, MPFR_RNDN);
  mpfr_div_ui (want, want, 5, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (mm, want, 75);
  mpfr_set_ui (want, 2, MPFR_RNDN);
  mpfr_div_ui (want, want, 3, MPFR_RNDN);
  mpfr_sqrt (want, want, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (advm + 0, want, 75);
  TU_ASSERT_MP_AGREE (advm + 4, want, 75);
  mpfr_set_ui (want, 3, MPFR_RNDN);
  mpfr_div_ui (want, want, 2, MPFR_RNDN);
  mpfr_sqrt (want, want, MPFR_RNDN);
  mpfr_neg (want, want, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (advm + 1, want, 75);
  TU_OK (rlref_verify_group_d (r, &correct, &mean, adv, ans, 5, &ref, verifier ("dapo"), seed));
  TU_ASSERT_SAME (correct, 3.0);
  TU_ASSERT_REL (mean, 0.2, TU_TOL0);
  TU_ASSERT_REL (adv[0], sqrt (2.0 / 3.0), TU_TOL0);
  TU_ASSERT_REL (adv[3], -sqrt (1.5), TU_TOL0);
  TU_OK (rlref_verify_group_d (r, &correct, &mean, adv, all, 5, &ref, verifier ("binary"),
                               seed));
  TU_ASSERT_SAME (correct, 5.0);
  for (int i = 0; i < 5; i++)
    TU_ASSERT_SAME (adv[i], 0.0);
  tu_mp_vec_free (am, 5);
  tu_mp_vec_free (rm, 5);
  tu_mp_vec_free (advm, 5);
  mpfr_clears (refm, cm, mm, want, (mpfr_ptr) 0);
}
END_TEST

/* Aggregations of (0.9, 0.8, 0.95): min 0.8, product 0.684 (exact
 * 0.9 x 0.8 x 0.95 of the doubles, at 512 bits), mean 2.65/3, last 0.95;
 * the product of (1e200, 1e200, 1e-300) is 1e100 though 1e400 overflows on
 * the way, the mean of (1e308, 1e308) is 1e308 though the sum overflows;
 * the product of (1e308, 1e308) is beyond binary64 (ERANGE, +inf) but not
 * beyond MPFR. */
START_TEST (test_prm_aggregate)
{
  static const double s[3] = { 0.9, 0.8, 0.95 }, r[3] = { 1e200, 1e200, 1e-300 };
  static const double b[2] = { 1e308, 1e308 }, neg[3] = { 2, -0.5, 3 };
  double v;
  mpfr_ptr sm = tu_mp_vec_from_d (s, 3, PREC), bm = tu_mp_vec_from_d (b, 2, PREC);
  mpfr_t vm, want;
  mpfr_init2 (vm, PREC);
  mpfr_init2 (want, HIGH);
  TU_OK (rlref_prm_aggregate_d (&v, s, 3, RLREF_PRM_MIN));
  TU_ASSERT_SAME (v, 0.8);
  TU_OK (rlref_prm_aggregate_d (&v, s, 3, RLREF_PRM_LAST));
  TU_ASSERT_SAME (v, 0.95);
  mpfr_set_d (want, 0.9, MPFR_RNDN);
  mpfr_mul_d (want, want, 0.8, MPFR_RNDN);
  mpfr_mul_d (want, want, 0.95, MPFR_RNDN);
  TU_OK (rlref_prm_aggregate_d (&v, s, 3, RLREF_PRM_PRODUCT));
  TU_ASSERT_REL (v, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  TU_OK (rlref_prm_aggregate_mp (vm, sm, 3, RLREF_PRM_PRODUCT));
  TU_ASSERT_MP_AGREE (vm, want, 75);
  mpfr_set_d (want, 0.9, MPFR_RNDN);
  mpfr_add_d (want, want, 0.8, MPFR_RNDN);
  mpfr_add_d (want, want, 0.95, MPFR_RNDN);
  mpfr_div_ui (want, want, 3, MPFR_RNDN);
  TU_OK (rlref_prm_aggregate_d (&v, s, 3, RLREF_PRM_MEAN));
  TU_ASSERT_REL (v, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
  TU_OK (rlref_prm_aggregate_mp (vm, sm, 3, RLREF_PRM_MEAN));
  TU_ASSERT_MP_AGREE (vm, want, 75);
  TU_OK (rlref_prm_aggregate_d (&v, r, 3, RLREF_PRM_PRODUCT));
  TU_ASSERT_REL (v, 1e100, TU_TOL1);
  TU_OK (rlref_prm_aggregate_d (&v, b, 2, RLREF_PRM_MEAN));
  TU_ASSERT_SAME (v, 1e308);
  TU_ASSERT_STATUS (rlref_prm_aggregate_d (&v, b, 2, RLREF_PRM_PRODUCT), RLREF_ERANGE);
  ck_assert (isinf (v) && v > 0);
  TU_OK (rlref_prm_aggregate_mp (vm, bm, 2, RLREF_PRM_PRODUCT));
  TU_OK (rlref_prm_aggregate_d (&v, neg, 3, RLREF_PRM_PRODUCT));
  TU_ASSERT_SAME (v, -3.0);
  /* a subnormal factor: the partial product scaled to [1/2, 1) times the
   * least subnormal would keep one bit; each factor is scaled first, and
   * the product (2^-1074 times two scores of 1.6e199 and 2.6e200) is
   * within an ulp or two of exact (it was 17% off) */
  {
    double tiny[3] = { 0x1.4e718d7d7625ap+660, 0x1.4e718d7d7625ap+664, -0x1p-1074 };
    mpfr_set_d (want, tiny[0], MPFR_RNDN);
    mpfr_mul_d (want, want, tiny[1], MPFR_RNDN);
    mpfr_mul_d (want, want, tiny[2], MPFR_RNDN);
    TU_OK (rlref_prm_aggregate_d (&v, tiny, 3, RLREF_PRM_PRODUCT));
    TU_ASSERT_REL (v, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  }
  tu_mp_vec_free (sm, 3);
  tu_mp_vec_free (bm, 2);
  mpfr_clears (vm, want, (mpfr_ptr) 0);
}
END_TEST

/* No steps: EINVAL; a NaN or infinite score: ENAN. */
START_TEST (test_prm_aggregate_bad_inputs)
{
  double s[2] = { 0.5, NAN }, t[2] = { 0.5, INFINITY }, v = 7;
  TU_ASSERT_STATUS (rlref_prm_aggregate_d (&v, s, 0, RLREF_PRM_MIN), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_prm_aggregate_d (&v, s, 2, RLREF_PRM_MEAN), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_prm_aggregate_d (&v, t, 2, RLREF_PRM_LAST), RLREF_ENAN);
  TU_ASSERT_SAME (v, 7.0);
}
END_TEST

/* The seed's integral as a tree: F = x^2 (weight 3) then 1 (4, right) or
 * 0.5 (1); F = 2x^2 (weight 1) then 2 (3) or a corrected 1 (1, right).
 * The labels of the path (2, 6): soft 1/4 and 1, variances 3/128 and 0,
 * exactly; hard 1 - (3/4)^8 = 58975/65536 (2 eps) and 1, variance
 * E (3/4)^8; of the path (1, 4): 4/5 and 0. */
static const long tree_parent[7] = { -1, 0, 0, 1, 1, 2, 2 };
static const double tree_weight[7] = { 1, 3, 1, 4, 1, 3, 1 };
static const long tree_correct[7] = { 0, 0, 0, 1, 0, 0, 1 };

START_TEST (test_prm_mc_integral_tree)
{
  static const long path[2] = { 2, 6 }, path2[2] = { 1, 4 };
  double lab[2], var[2];
  mpfr_ptr wm = tu_mp_vec_from_d (tree_weight, 7, PREC), lm = tu_mp_vec_new (2, PREC);
  mpfr_ptr vm = tu_mp_vec_new (2, PREC);
  mpfr_t want;
  mpfr_init2 (want, PREC);
  TU_OK (rlref_prm_mc_expect_d (lab, var, tree_parent, tree_weight, tree_correct, 7, path, 2,
                                8, RLREF_PRM_SOFT));
  TU_ASSERT_SAME (lab[0], 0.25);
  TU_ASSERT_SAME (lab[1], 1.0);
  TU_ASSERT_SAME (var[0], 3.0 / 128);
  TU_ASSERT_SAME (var[1], 0.0);
  TU_OK (rlref_prm_mc_expect_d (lab, var, tree_parent, tree_weight, tree_correct, 7, path, 2,
                                8, RLREF_PRM_HARD));
  TU_ASSERT_REL (lab[0], 58975.0 / 65536, TU_TOL0);
  TU_ASSERT_REL (var[0], 58975.0 / 65536 * 6561 / 65536, TU_TOL1);
  TU_ASSERT_SAME (lab[1], 1.0);
  TU_ASSERT_SAME (var[1], 0.0);
  TU_OK (rlref_prm_mc_expect_mp (lm, vm, tree_parent, wm, tree_correct, 7, path, 2, 8,
                                 RLREF_PRM_HARD));
  mpfr_set_ui (want, 58975, MPFR_RNDN);
  mpfr_div_ui (want, want, 65536, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (lm, want, 75);
  TU_OK (rlref_prm_mc_expect_d (lab, NULL, tree_parent, tree_weight, tree_correct, 7, path2,
                                2, 8, RLREF_PRM_SOFT));
  TU_ASSERT_REL (lab[0], 0.8, TU_TOL0);
  TU_ASSERT_SAME (lab[1], 0.0);
  tu_mp_vec_free (wm, 7);
  tu_mp_vec_free (lm, 2);
  tu_mp_vec_free (vm, 2);
  mpfr_clear (want);
}
END_TEST

/* A rare success: p = 1e-12/(1 + 1e-12) and N = 10^6; E = 1 - (1 - p)^N
 * ~ 1e-6 to 14 digits in binary64 (the direct form keeps 4), against the
 * definition at 512 bits; sibling weights of 1e308 give p = 1/2. */
START_TEST (test_prm_mc_rare_and_large)
{
  static const long par[4] = { -1, 0, 1, 1 }, cor[4] = { 0, 0, 1, 0 }, path[2] = { 1, 2 };
  static const double w[4] = { 0, 1, 1e-12, 1 }, wb[4] = { 1, 1, 1e308, 1e308 };
  double lab[2], var[2];
  mpfr_t p, e;
  mpfr_inits2 (HIGH, p, e, (mpfr_ptr) 0);
  mpfr_set_d (p, 1e-12, MPFR_RNDN);
  mpfr_add_d (e, p, 1.0, MPFR_RNDN);
  mpfr_div (p, p, e, MPFR_RNDN);                /* p */
  mpfr_ui_sub (e, 1, p, MPFR_RNDN);
  mpfr_pow_ui (e, e, 1000000, MPFR_RNDN);
  mpfr_ui_sub (e, 1, e, MPFR_RNDN);              /* 1 - (1 - p)^N at 512 bits */
  TU_OK (rlref_prm_mc_expect_d (lab, var, par, w, cor, 4, path, 2, 1000000, RLREF_PRM_HARD));
  TU_ASSERT_REL (lab[0], mpfr_get_d (e, MPFR_RNDN), 1e-14);
  TU_OK (rlref_prm_mc_expect_d (lab, var, par, w, cor, 4, path, 2, 1000000, RLREF_PRM_SOFT));
  TU_ASSERT_REL (lab[0], mpfr_get_d (p, MPFR_RNDN), TU_TOL1);
  TU_OK (rlref_prm_mc_expect_d (lab, var, par, wb, cor, 4, path, 2, 4, RLREF_PRM_SOFT));
  TU_ASSERT_SAME (lab[0], 0.5);
  mpfr_clears (p, e, (mpfr_ptr) 0);
}
END_TEST

/* A step probability below the normal range: p = 1e-310/(1e-310 + 3) keeps
 * 12 bits as a double, and the hard label with N = 1000, E = 1 - (1 - p)^N
 * (normal), must still be the correctly rounded value, as the variance E
 * (1 - p)^N (against -expm1(N log1p(-p)) at 512 bits: 1 - p itself needs
 * 1030 bits). */
START_TEST (test_prm_mc_subnormal_step)
{
  static const long par[4] = { -1, 0, 1, 1 }, cor[4] = { 0, 0, 1, 0 }, path[2] = { 1, 2 };
  static const double w[4] = { 0, 1, 1e-310, 3 };
  double lab[2], var[2];
  mpfr_t p, e, q;
  mpfr_inits2 (HIGH, p, e, q, (mpfr_ptr) 0);
  mpfr_set_d (p, 1e-310, MPFR_RNDN);
  mpfr_add_ui (e, p, 3, MPFR_RNDN);
  mpfr_div (p, p, e, MPFR_RNDN);                 /* p */
  mpfr_neg (q, p, MPFR_RNDN);
  mpfr_log1p (q, q, MPFR_RNDN);
  mpfr_mul_ui (q, q, 1000, MPFR_RNDN);          /* N log(1 - p) */
  mpfr_expm1 (e, q, MPFR_RNDN);
  mpfr_neg (e, e, MPFR_RNDN);                    /* E */
  mpfr_exp (q, q, MPFR_RNDN);                    /* (1 - p)^N */
  TU_OK (rlref_prm_mc_expect_d (lab, var, par, w, cor, 4, path, 2, 1000, RLREF_PRM_HARD));
  TU_ASSERT_SAME (lab[0], mpfr_get_d (e, MPFR_RNDN));
  mpfr_mul (e, e, q, MPFR_RNDN);
  TU_ASSERT_SAME (var[0], mpfr_get_d (e, MPFR_RNDN));
  TU_ASSERT_SAME (lab[1], 1.0);
  mpfr_clears (p, e, q, (mpfr_ptr) 0);
}
END_TEST

/* Bad trees and paths: a root that is not node 0, a parent after its
 * child, a path that leaves the tree (EINVAL); a step whose continuations
 * all weigh 0, correct outside {0, 1}, N = 0, negative weight (EDOM); a
 * NaN weight (ENAN).  Counts: hits outside 0..N (EDOM). */
START_TEST (test_prm_mc_bad_inputs)
{
  static const long p1[3] = { 0, 0, 0 }, p2[3] = { -1, 2, 0 }, p3[4] = { -1, 0, 1, 1 };
  static const long c3[3] = { 0, 1, 0 }, c4[4] = { 0, 0, 1, 0 }, cbad[3] = { 0, 2, 0 };
  static const long one[1] = { 1 }, two[1] = { 2 }, bad_path[2] = { 1, 2 };
  static const long hits[2] = { 3, 9 };
  double w3[3] = { 1, 1, 1 }, w4[4] = { 1, 1, 0, 0 }, wn[3] = { 1, NAN, 1 };
  double wneg[3] = { 1, -1, 1 }, lab[2], var[2];
  TU_ASSERT_STATUS (rlref_prm_mc_expect_d (lab, var, p1, w3, c3, 3, one, 1, 8, RLREF_PRM_SOFT),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_prm_mc_expect_d (lab, var, p2, w3, c3, 3, two, 1, 8, RLREF_PRM_SOFT),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_prm_mc_expect_d (lab, var, tree_parent, tree_weight, tree_correct, 7,
                                           bad_path, 2, 8, RLREF_PRM_SOFT), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_prm_mc_expect_d (lab, var, p3, w4, c4, 4, one, 1, 8, RLREF_PRM_HARD),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_prm_mc_expect_d (lab, var, tree_parent, tree_weight, cbad, 3, one, 1,
                                           8, RLREF_PRM_SOFT), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_prm_mc_expect_d (lab, var, tree_parent, w3, c3, 3, one, 1, 0,
                                           RLREF_PRM_SOFT), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_prm_mc_expect_d (lab, var, tree_parent, wneg, c3, 3, one, 1, 8,
                                           RLREF_PRM_SOFT), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_prm_mc_expect_d (lab, var, tree_parent, wn, c3, 3, one, 1, 8,
                                           RLREF_PRM_SOFT), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_prm_mc_label_d (lab, hits, 2, 8, RLREF_PRM_SOFT), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_prm_mc_label_d (lab, hits, 1, 0, RLREF_PRM_SOFT), RLREF_EDOM);
  TU_OK (rlref_prm_mc_label_d (lab, hits, 1, 8, RLREF_PRM_SOFT));
  TU_ASSERT_SAME (lab[0], 0.375);
  TU_OK (rlref_prm_mc_label_d (lab, hits, 1, 8, RLREF_PRM_HARD));
  TU_ASSERT_SAME (lab[0], 1.0);
}
END_TEST

/* --- aliasing ------------------------------------------------------------ */

/* The generic test holds RLVR-REWARD to the aliasing rule on its golden
 * cases; none has a group of one answer, where every output meets the
 * reference's length.  Slots: verify (reward; answers, reference); group
 * (reward, correct, mean, adv; answers, reference). */
enum { F_VERIFY, F_GROUP };

struct rlvr_ctx
{
  int f;
  const char *verifier;
};

static int
rlvr_d (double *const *x, const void *ctx)
{
  const struct rlvr_ctx *c = ctx;
  const rlref_verifier *v = rlref_verifier_find (c->verifier);
  if (c->f == F_VERIFY)
    return rlref_verify_reward_d (x[0], x[1], 1, x[2], v);
  return rlref_verify_group_d (x[0], x[1], x[2], x[3], x[4], 1, x[5], v,
                               rlref_adv_convention_find ("seed-000"));
}

static int
rlvr_mp (mpfr_ptr const *x, const void *ctx)
{
  const struct rlvr_ctx *c = ctx;
  const rlref_verifier *v = rlref_verifier_find (c->verifier);
  if (c->f == F_VERIFY)
    return rlref_verify_reward_mp (x[0], x[1], 1, x[2], v);
  return rlref_verify_group_mp (x[0], x[1], x[2], x[3], x[4], 1, x[5], v,
                                rlref_adv_convention_find ("seed-000"));
}

/* Every output over the answer and over the reference, one answer, each
 * verifier. */
START_TEST (test_rlvr_aliasing)
{
  static const double one[1] = { 1.00005 }, ref[1] = { 1 };
  static const char *const names[3] = { "binary", "dapo", "prime-math" };
  int pairs = 0;
  for (int k = 0; k < 3; k++)
    {
      struct rlvr_ctx cv = { F_VERIFY, names[k] }, cg = { F_GROUP, names[k] };
      tu_alias_case v = { "verify_reward", 3, 1, { 1, 1, 1 }, { NULL, one, ref },
                          rlvr_d, rlvr_mp, &cv };
      tu_alias_case g = { "verify_group", 6, 4, { 1, 1, 1, 1, 1, 1 },
                          { NULL, NULL, NULL, NULL, one, ref }, rlvr_d, rlvr_mp, &cg };
      pairs += tu_check_aliasing (&v);
      pairs += tu_check_aliasing (&g);
    }
  ck_assert_int_eq (pairs, 3 * (2 + 8));
}
END_TEST

/* The aggregation's sensitivity from its own derivative, steps (1/2, 1/4,
 * 1): min |1/4|, product 3 |1/8|, mean (1/2 + 1/4 + 1)/3, last 1. */
START_TEST (test_aggregate_sens)
{
  static const enum rlref_prm_aggregation how[] = { RLREF_PRM_MIN, RLREF_PRM_PRODUCT,
                                                    RLREF_PRM_MEAN, RLREF_PRM_LAST };
  static const double want[] = { 0.25, 0.375, 1.75 / 3, 1.0 };
  double steps[3] = { 0.5, 0.25, 1.0 }, score, s;
  for (int k = 0; k < 4; k++)
    {
      ck_assert_int_eq (rlref_prm_aggregate_d (&score, steps, 3, how[k]), 0);
      ck_assert_int_eq (rlref_prm_aggregate_sens_d (&s, steps, 3, &score, how[k]), 0);
      ck_assert_msg (s == want[k], "aggregation %d: %a", k, s);
    }
  ck_assert_int_eq (rlref_prm_aggregate_sens_d (&s, steps, 3, &score,
                                                (enum rlref_prm_aggregation) 99), RLREF_EINVAL);
}
END_TEST

static Suite *
rlvr_suite (void)
{
  Suite *s = suite_create ("rlvr");
  TCase *tc;

  tc = tu_tcase ("verify");
  tcase_add_test (tc, test_answer_matching);
  tcase_add_test (tc, test_aggregate_sens);
  tcase_add_test (tc, test_verify_reward);
  tcase_add_test (tc, test_verify_bad_inputs);
  tcase_add_test (tc, test_verify_group);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("prm");
  tcase_add_test (tc, test_prm_aggregate);
  tcase_add_test (tc, test_prm_aggregate_bad_inputs);
  tcase_add_test (tc, test_prm_mc_integral_tree);
  tcase_add_test (tc, test_prm_mc_rare_and_large);
  tcase_add_test (tc, test_prm_mc_subnormal_step);
  tcase_add_test (tc, test_prm_mc_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("aliasing");
  tcase_add_test (tc, test_rlvr_aliasing);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN (rlvr_suite)
