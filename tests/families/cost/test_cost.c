/* test_cost.c -- the seeds' cost arithmetic (COST-*): bytes per parameter
 * by role and optimiser, the model inventory of each method, the tokens
 * per update, in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: the numbers seed 004 prints (28 against 14 bytes per
 * parameter and 196 against 98 GB for 7B; 36 against 18 and 252 against
 * 126 GB with master copies; 16 bytes for the critic alone; 64 x 4000 =
 * 256,000 tokens), seed 000 Table 2's inventory (SFT 12, DPO 14), exact
 * integers and the correctly rounded ratios 3/7 and 4/9.  The generic test
 * holds every function to the aliasing rule of reference/README.md. */
#include "testutil.h"

#define PREC 256

static const rlref_cost_convention *
conv (const char *name)
{
  const rlref_cost_convention *c = rlref_cost_convention_find (name);
  ck_assert_ptr_nonnull (c);
  return c;
}

/* The two conventions: 12 = 2 + 2 + 4 + 4 and 16 bytes per trained
 * parameter, 2 per frozen one. */
START_TEST (test_cost_conventions)
{
  ck_assert_int_eq (conv ("adam")->trained, 2 + 2 + 4 + 4);
  ck_assert_int_eq (conv ("adam")->frozen, 2);
  ck_assert_int_eq (conv ("adam-master")->trained, 16);
  ck_assert_int_eq (conv ("adam-master")->frozen, 2);
  ck_assert_ptr_null (rlref_cost_convention_find ("sgd"));
  ck_assert_ptr_null (rlref_cost_convention_find (NULL));
}
END_TEST

/* Seed 004 for 7e9 parameters: PPO (2 trained, 2 frozen) 28 bytes,
 * 196e9 bytes = 196 GB = 196e9/2^30 GiB; GRPO+RLVR (1, 1) 14, 98 GB;
 * the critic alone removed (1, 2) 16; with master copies 36, 252 GB and
 * 18, 126 GB; exact in both backends. */
START_TEST (test_cost_mem_seed)
{
  static const struct { const char *c; long t, f; double bpp, gb; } rows[] = {
    { "adam", 2, 2, 28, 196 }, { "adam", 1, 1, 14, 98 }, { "adam", 1, 2, 16, 112 },
    { "adam-master", 2, 2, 36, 252 }, { "adam-master", 1, 1, 18, 126 },
    { "adam", 1, 0, 12, 84 }, { "adam", 0, 1, 2, 14 },
  };
  double P = 7e9;
  mpfr_t Pm, b, by, gb, gib;
  mpfr_inits2 (PREC, Pm, b, by, gb, gib, (mpfr_ptr) 0);
  mpfr_set_d (Pm, P, MPFR_RNDN);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    {
      double bd, byd, gbd, gibd;
      TU_OK (rlref_cost_mem_d (&bd, &byd, &gbd, &gibd, rows[i].t, rows[i].f, &P,
                               conv (rows[i].c)));
      TU_ASSERT_SAME (bd, rows[i].bpp);
      TU_ASSERT_SAME (byd, rows[i].gb * 1e9);
      TU_ASSERT_SAME (gbd, rows[i].gb);
      TU_ASSERT_SAME (gibd, ldexp (rows[i].gb * 1e9, -30));
      TU_OK (rlref_cost_mem_mp (b, by, gb, gib, rows[i].t, rows[i].f, Pm, conv (rows[i].c)));
      ck_assert (mpfr_cmp_d (b, rows[i].bpp) == 0);
      ck_assert (mpfr_cmp_d (by, rows[i].gb * 1e9) == 0);
      ck_assert (mpfr_cmp_d (gb, rows[i].gb) == 0);
      ck_assert (mpfr_cmp_d (gib, ldexp (rows[i].gb * 1e9, -30)) == 0);
    }
  mpfr_clears (Pm, b, by, gb, gib, (mpfr_ptr) 0);
}
END_TEST

/* A count of parameters that is not a whole number of GB: 1.5e9 x 14 =
 * 21e9 bytes = 21 5^9 / 2^21 = 19.557774066925048828125 GiB exactly; 123456789 x 28 bytes =
 * 3.456790092 GB, the nearest double in binary64 and exact in MPFR. */
START_TEST (test_cost_mem_rounding)
{
  double P = 1.5e9, Q = 123456789, byd, gbd, gibd;
  mpfr_t Qm, by, gb, want;
  mpfr_inits2 (PREC, Qm, by, gb, want, (mpfr_ptr) 0);
  TU_OK (rlref_cost_mem_d (NULL, NULL, NULL, &gibd, 1, 1, &P, conv ("adam")));
  TU_ASSERT_SAME (gibd, 41015625.0 / 2097152);
  TU_OK (rlref_cost_mem_d (NULL, &byd, &gbd, NULL, 2, 2, &Q, conv ("adam")));
  TU_ASSERT_SAME (byd, 3456790092.0);
  TU_ASSERT_SAME (gbd, 3.456790092);
  mpfr_set_d (Qm, Q, MPFR_RNDN);
  TU_OK (rlref_cost_mem_mp (NULL, by, gb, NULL, 2, 2, Qm, conv ("adam")));
  mpfr_set_ui (want, 3456790092UL, MPFR_RNDN);
  mpfr_div_ui (want, want, 1000000000UL, MPFR_RNDN);
  ck_assert (mpfr_equal_p (gb, want));
  mpfr_clears (Qm, by, gb, want, (mpfr_ptr) 0);
}
END_TEST

/* Seed 000 Table 2 and seed 004: SFT 12, DPO 14, GRPO+RM 16, GRPO+RLVR 14,
 * PPO 28; the critic alone saves 12/28 = 3/7 (42.86%), 16/36 = 4/9
 * (44.4%) with master copies, the critic and the reward model 1/2;
 * trained parameters 2P -> P.  The ratios are the nearest doubles, and in
 * MPFR the ratios rounded once. */
START_TEST (test_cost_models)
{
  double P = 7e9, o[RLREF_COST_NMODELS];
  mpfr_ptr om = tu_mp_vec_new (RLREF_COST_NMODELS, PREC);
  mpfr_t Pm, want;
  mpfr_inits2 (PREC, Pm, want, (mpfr_ptr) 0);
  TU_OK (rlref_cost_models_d (o, &P, conv ("adam")));
  TU_ASSERT_SAME (o[RLREF_COST_SFT], 12.0);
  TU_ASSERT_SAME (o[RLREF_COST_DPO], 14.0);
  TU_ASSERT_SAME (o[RLREF_COST_GRPO_RM], 16.0);
  TU_ASSERT_SAME (o[RLREF_COST_GRPO_RLVR], 14.0);
  TU_ASSERT_SAME (o[RLREF_COST_PPO], 28.0);
  TU_ASSERT_SAME (o[RLREF_COST_SAVED_CRITIC], 3.0 / 7.0);
  ck_assert (fabs (100 * o[RLREF_COST_SAVED_CRITIC] - 42.857142857142854) < 1e-12);
  TU_ASSERT_SAME (o[RLREF_COST_SAVED_CRITIC_RM], 0.5);
  TU_ASSERT_SAME (o[RLREF_COST_TRAINED_PPO], 14e9);
  TU_ASSERT_SAME (o[RLREF_COST_TRAINED_GRPO], 7e9);
  TU_OK (rlref_cost_models_d (o, &P, conv ("adam-master")));
  TU_ASSERT_SAME (o[RLREF_COST_PPO], 36.0);
  TU_ASSERT_SAME (o[RLREF_COST_GRPO_RLVR], 18.0);
  TU_ASSERT_SAME (o[RLREF_COST_SAVED_CRITIC], 4.0 / 9.0);
  mpfr_set_d (Pm, P, MPFR_RNDN);
  TU_OK (rlref_cost_models_mp (om, Pm, conv ("adam")));
  mpfr_set_ui (want, 3, MPFR_RNDN);
  mpfr_div_ui (want, want, 7, MPFR_RNDN);
  ck_assert (mpfr_equal_p (om + RLREF_COST_SAVED_CRITIC, want));
  ck_assert (mpfr_cmp_ui (om + RLREF_COST_PPO, 28) == 0);
  ck_assert (mpfr_cmp_d (om + RLREF_COST_TRAINED_PPO, 14e9) == 0);
  TU_OK (rlref_cost_models_mp (om, Pm, conv ("adam-master")));
  mpfr_set_ui (want, 4, MPFR_RNDN);
  mpfr_div_ui (want, want, 9, MPFR_RNDN);
  ck_assert (mpfr_equal_p (om + RLREF_COST_SAVED_CRITIC, want));
  tu_mp_vec_free (om, RLREF_COST_NMODELS);
  mpfr_clears (Pm, want, (mpfr_ptr) 0);
}
END_TEST

/* Seed 004: 1 x 64 x 4000 = 256,000 tokens; 3 x 7 x 0.1 is 21 x 0.1
 * rounded once (the integer count formed first); 2^40 prompts x 2^30
 * overflows a long and is formed in two exact steps: 3 x 2^70. */
START_TEST (test_cost_rollout)
{
  double L = 4000, pp, tk, tenth = 0.1, three = 3;
  mpfr_t Lm, ppm, tkm, want;
  mpfr_inits2 (PREC, Lm, ppm, tkm, want, (mpfr_ptr) 0);
  TU_OK (rlref_cost_rollout_d (&pp, &tk, 1, 64, &L));
  TU_ASSERT_SAME (pp, 256000.0);
  TU_ASSERT_SAME (tk, 256000.0);
  TU_OK (rlref_cost_rollout_d (&pp, &tk, 3, 7, &tenth));
  TU_ASSERT_SAME (tk, 21 * 0.1);
  TU_ASSERT_SAME (pp, 7 * 0.1);
  TU_OK (rlref_cost_rollout_d (NULL, &tk, 1L << 40, 1L << 30, &three));
  TU_ASSERT_SAME (tk, ldexp (3.0, 70));
  mpfr_set_d (Lm, 0.1, MPFR_RNDN);
  TU_OK (rlref_cost_rollout_mp (ppm, tkm, 3, 7, Lm));
  mpfr_mul_ui (want, Lm, 21, MPFR_RNDN);
  ck_assert (mpfr_equal_p (tkm, want));
  mpfr_set_d (Lm, 4000, MPFR_RNDN);
  TU_OK (rlref_cost_rollout_mp (ppm, tkm, 1, 64, Lm));
  ck_assert (mpfr_cmp_ui (tkm, 256000) == 0);
  mpfr_clears (Lm, ppm, tkm, want, (mpfr_ptr) 0);
}
END_TEST

/* Bad input: negative counts, a negative or non-finite number of
 * parameters or length, fewer than one prompt or response (EDOM, ENAN);
 * a NULL convention (EINVAL); a product beyond the range: +inf, ERANGE. */
START_TEST (test_cost_bad_inputs)
{
  double P = 7e9, nP = -1, nanP = NAN, infP = INFINITY, o[RLREF_COST_NMODELS], L = 4000;
  double nL = -1, big = 1e308, tk;
  const rlref_cost_convention *a = conv ("adam");
  TU_ASSERT_STATUS (rlref_cost_mem_d (o, NULL, NULL, NULL, -1, 2, &P, a), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_cost_mem_d (o, NULL, NULL, NULL, 1, -2, &P, a), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_cost_mem_d (o, NULL, NULL, NULL, 1, 1, &nP, a), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_cost_mem_d (o, NULL, NULL, NULL, 1, 1, &nanP, a), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_cost_mem_d (o, NULL, NULL, NULL, 1, 1, &P, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_cost_mem_d (NULL, &tk, NULL, NULL, 2, 2, &big, a), RLREF_ERANGE);
  ck_assert (isinf (tk));
  TU_ASSERT_STATUS (rlref_cost_models_d (o, &infP, a), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_cost_models_d (o, &nP, a), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_cost_rollout_d (NULL, &tk, 1, 0, &L), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_cost_rollout_d (NULL, &tk, 0, 64, &L), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_cost_rollout_d (NULL, &tk, -1, 64, &L), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_cost_rollout_d (NULL, &tk, 1, 64, &nL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_cost_rollout_d (NULL, &tk, 1, 64, &nanP), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_cost_rollout_d (NULL, &tk, 1000, 64, &big), RLREF_ERANGE);
  ck_assert (isinf (tk));
}
END_TEST

static Suite *
cost_suite (void)
{
  Suite *s = suite_create ("cost");
  TCase *tc;

  tc = tu_tcase ("memory");
  tcase_add_test (tc, test_cost_conventions);
  tcase_add_test (tc, test_cost_mem_seed);
  tcase_add_test (tc, test_cost_mem_rounding);
  tcase_add_test (tc, test_cost_models);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("rollout");
  tcase_add_test (tc, test_cost_rollout);
  tcase_add_test (tc, test_cost_bad_inputs);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN (cost_suite)
