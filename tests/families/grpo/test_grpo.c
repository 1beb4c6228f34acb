/* test_grpo.c -- group-relative advantages (GRPO-ADV) under every named
 * convention, binary64 and MPFR.
 *
 * Expected values: the detector vectors of CONVENTIONS.md and the seeds'
 * worked examples (seed 000: [1,0,0,1] -> [1,-1,-1,1]; seed 003:
 * [0.2,0.8,0.4,0.6] -> std 0.2582, A +-1.1619), and the RV_GRPO_ strings
 * of refvalues.h, written by gen_refvalues.py from the table of
 * golden/README.md: mean, deviations and variance as exact rationals
 * (fractions.Fraction) of the binary64 rewards and eps, the square root
 * and the division in mpmath (mp.dps = 120), 80 significant digits (exact
 * decimals where the value is dyadic).  seed-000-code is seed-001's
 * formula without its branch: where std > 1e-8 the two give the same
 * strings; batch-std with NaN rewards is computed on the scorable ones.
 * The binary32 conventions are exact binary32 results of emulations that
 * round every operation through struct.pack('f'): the old verl in its own
 * operation order (var = (s2 - s1*s1/n)/(n - 1), sums in index order, a
 * group of one mean 0 and std 1), TRL's torch operations (nanmean =
 * nansum/n, nanstd with its float32 Bessel factor, nan_to_num).
 * Properties: groups are independent, the two backends agree on seeded
 * random groups, the binary32 emulation is bit-identical in both, rewards
 * near the binary64 limits give the scaled values (closed forms: +-1/sqrt 2
 * for two opposite rewards with ddof 1, +-1 with ddof 0). */
#include "testutil.h"

#define PREC 256

/* Every convention rlref must carry (golden/README.md, CONVENTIONS.md). */
static const char *const names[] = {
  "seed-000", "seed-000-code", "seed-001", "seed-003", "trl", "trl-float32", "verl",
  "verl-vectorized-old", "openrlhf", "eps-in-sqrt", "no-std", "batch-std",
  "verl-vectorized-old-float64",
};
#define NCONV (sizeof names / sizeof names[0])

static const rlref_adv_convention *
conv (const char *name)
{
  const rlref_adv_convention *c = rlref_adv_convention_find (name);
  ck_assert_msg (c != NULL, "convention %s not found", name);
  return c;
}

/* A convention with a binary32 step (its statistics at least). */
static int
is_f32 (const rlref_adv_convention *c)
{
  return c->scale == RLREF_SCALE_F32_ONEPASS || c->scale == RLREF_SCALE_F32_TRL
    || c->scale == RLREF_SCALE_F32_STATS;
}

/* Both backends on the doubles r (NaN allowed); adv_mp holds N values at
 * PREC.  Returns the binary64 status; *st_mp gets the MPFR one. */
static int
run_both (const rlref_adv_convention *c, const double *r, size_t N, size_t G,
          double *adv_d, mpfr_ptr adv_mp, int *st_mp)
{
  mpfr_ptr rm = tu_mp_vec_from_d (r, N, PREC);
  int st = rlref_grpo_adv_d (adv_d, r, N, G, c);
  *st_mp = rlref_grpo_adv_mp (adv_mp, rm, N, G, c);
  tu_mp_vec_free (rm, N);
  return st;
}

/* Expected advantages of one convention: status and N decimal strings
 * ("0" means exactly zero). */
struct expect
{
  const char *conv;
  int status;
  const char *adv[8];
};

/* Checks each convention of e on rewards r: the status in both backends;
 * exact zeros; the MPFR values to >= 70 digits and the binary64 ones
 * within 16 eps; the binary32 convention exactly in both. */
static void
check_expect (const struct expect *e, size_t ne, const double *r, size_t N, size_t G)
{
  double ad[8];
  mpfr_ptr am = tu_mp_vec_new (N, PREC);
  for (size_t k = 0; k < ne; k++)
    {
      const rlref_adv_convention *c = conv (e[k].conv);
      int st_mp, st = run_both (c, r, N, G, ad, am, &st_mp);
      ck_assert_msg (st == e[k].status && st_mp == e[k].status,
                     "%s: status %s / %s, expected %s", e[k].conv, rlref_status_name (st),
                     rlref_status_name (st_mp), rlref_status_name (e[k].status));
      if (e[k].status != RLREF_SUCCESS)
        continue;
      for (size_t i = 0; i < N; i++)
        {
          const char *w = e[k].adv[i];
          double wd = strtod (w, NULL);
          if (strcmp (w, "0") == 0)
            ck_assert_msg (ad[i] == 0.0 && mpfr_zero_p (am + i),
                           "%s adv[%zu]: %g / %s, expected exactly 0", e[k].conv, i, ad[i],
                           tu_mp_str (am + i));
          else if (is_f32 (c))
            ck_assert_msg (tu_same_double (ad[i], wd) && mpfr_cmp_d (am + i, wd) == 0,
                           "%s adv[%zu]: %a / %s, expected exactly %a", e[k].conv, i, ad[i],
                           tu_mp_str (am + i), wd);
          else
            {
              ck_assert_msg (tu_mp_digits_str (am + i, w) >= 70,
                             "%s adv[%zu]: %s, expected %s (%d digits)", e[k].conv, i,
                             tu_mp_str (am + i), w, tu_mp_digits_str (am + i, w));
              ck_assert_msg (tu_rel_err (ad[i], wd) <= TU_TOL1,
                             "%s adv[%zu]: %.17g, expected %.17g (%.1f eps)", e[k].conv, i,
                             ad[i], wd, tu_rel_err (ad[i], wd) / DBL_EPSILON);
            }
        }
    }
  tu_mp_vec_free (am, N);
}

/* ----- expected values (refvalues.h, see the head of this file) --------- */

/* Detector [1,0,0,0], one group of 4. */
static const struct expect det_1000[] = {
  { "seed-000", RLREF_SUCCESS, RV_GRPO_DET_1000_SEED_000 },
  { "seed-001", RLREF_SUCCESS, RV_GRPO_DET_1000_SEED_001 },
  { "seed-000-code", RLREF_SUCCESS, RV_GRPO_DET_1000_SEED_000_CODE },
  { "seed-003", RLREF_SUCCESS, RV_GRPO_DET_1000_SEED_003 },
  { "trl", RLREF_SUCCESS, RV_GRPO_DET_1000_TRL },
  { "verl", RLREF_SUCCESS, RV_GRPO_DET_1000_VERL },
  { "trl-float32", RLREF_SUCCESS, RV_GRPO_DET_1000_TRL_FLOAT32 },
  { "verl-vectorized-old", RLREF_SUCCESS, RV_GRPO_DET_1000_VERL_VECTORIZED_OLD },
  { "openrlhf", RLREF_SUCCESS, RV_GRPO_DET_1000_OPENRLHF },
  /* eps-in-sqrt: 0.75/sqrt(0.25 + 1e-8), -0.25/sqrt(0.25 + 1e-8) */
  { "eps-in-sqrt", RLREF_SUCCESS, RV_GRPO_DET_1000_EPS_IN_SQRT },
  { "no-std", RLREF_SUCCESS, RV_GRPO_DET_1000_NO_STD },
  { "batch-std", RLREF_SUCCESS, RV_GRPO_DET_1000_BATCH_STD },
};
/* Detector [0, 1e-4], one group of 2. */
static const struct expect det_small[] = {
  { "seed-000", RLREF_SUCCESS, RV_GRPO_DET_SMALL_SEED_000 },
  { "seed-001", RLREF_SUCCESS, RV_GRPO_DET_SMALL_SEED_001 },
  { "seed-000-code", RLREF_SUCCESS, RV_GRPO_DET_SMALL_SEED_000_CODE },
  { "seed-003", RLREF_SUCCESS, RV_GRPO_DET_SMALL_SEED_003 },
  { "trl", RLREF_SUCCESS, RV_GRPO_DET_SMALL_TRL },
  { "verl", RLREF_SUCCESS, RV_GRPO_DET_SMALL_VERL },
  { "trl-float32", RLREF_SUCCESS, RV_GRPO_DET_SMALL_TRL_FLOAT32 },
  { "verl-vectorized-old", RLREF_SUCCESS, RV_GRPO_DET_SMALL_VERL_VECTORIZED_OLD },
  { "openrlhf", RLREF_SUCCESS, RV_GRPO_DET_SMALL_OPENRLHF },
  /* eps-in-sqrt: +-5e-5/sqrt(5e-9 + 1e-8) (the doubles 1e-4 and 1e-8) */
  { "eps-in-sqrt", RLREF_SUCCESS, RV_GRPO_DET_SMALL_EPS_IN_SQRT },
  { "no-std", RLREF_SUCCESS, RV_GRPO_DET_SMALL_NO_STD },
  { "batch-std", RLREF_SUCCESS, RV_GRPO_DET_SMALL_BATCH_STD },
};
/* Detector [10000, 10001], one group of 2. */
static const struct expect det_offset[] = {
  { "seed-000", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_SEED_000 },
  { "seed-001", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_SEED_001 },
  { "seed-000-code", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_SEED_000_CODE },
  { "seed-003", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_SEED_003 },
  { "trl", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_TRL },
  { "verl", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_VERL },
  { "trl-float32", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_TRL_FLOAT32 },
  { "verl-vectorized-old", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_VERL_VECTORIZED_OLD },
  { "openrlhf", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_OPENRLHF },
  /* eps-in-sqrt: +-0.5/sqrt(0.5 + 1e-8) */
  { "eps-in-sqrt", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_EPS_IN_SQRT },
  { "no-std", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_NO_STD },
  { "batch-std", RLREF_SUCCESS, RV_GRPO_DET_OFFSET_BATCH_STD },
};
/* Seed 003's example [0.2, 0.8, 0.4, 0.6], one group of 4. */
static const struct expect ex_003[] = {
  { "seed-000", RLREF_SUCCESS, RV_GRPO_EX_003_SEED_000 },
  { "seed-001", RLREF_SUCCESS, RV_GRPO_EX_003_SEED_001 },
  { "seed-000-code", RLREF_SUCCESS, RV_GRPO_EX_003_SEED_000_CODE },
  { "seed-003", RLREF_SUCCESS, RV_GRPO_EX_003_SEED_003 },
  { "trl", RLREF_SUCCESS, RV_GRPO_EX_003_TRL },
  { "verl", RLREF_SUCCESS, RV_GRPO_EX_003_VERL },
  { "trl-float32", RLREF_SUCCESS, RV_GRPO_EX_003_TRL_FLOAT32 },
  { "verl-vectorized-old", RLREF_SUCCESS, RV_GRPO_EX_003_VERL_VECTORIZED_OLD },
  { "openrlhf", RLREF_SUCCESS, RV_GRPO_EX_003_OPENRLHF },
  { "eps-in-sqrt", RLREF_SUCCESS, RV_GRPO_EX_003_EPS_IN_SQRT },
  { "no-std", RLREF_SUCCESS, RV_GRPO_EX_003_NO_STD },
  { "batch-std", RLREF_SUCCESS, RV_GRPO_EX_003_BATCH_STD },
};
/* TRL with a NaN reward: [1, NaN, 0, 0]. */
static const struct expect trl_nan[] = {
  { "trl", RLREF_SUCCESS, RV_GRPO_TRL_NAN_TRL },
};
/* Batch-std on two groups of 3: [0.3, 1, 0 | 0.5, 0.5, 0.9]. */
static const struct expect two_groups_batch[] = {
  { "batch-std", RLREF_SUCCESS, RV_GRPO_TWO_GROUPS_BATCH_STD },
};
/* Batch-std (TRL scale_rewards="batch") with NaN rewards, groups of 4:
 * [1, NaN, 0, 0 | 0.5, 0.5, 0.9, NaN]: group means of the scorable
 * rewards, the std (ddof 1) of the six scorable ones. */
static const struct expect batch_nan[] = {
  { "batch-std", RLREF_SUCCESS, RV_GRPO_BATCH_NAN_BATCH_STD },
};
/* [0, 1e-9]: seed 000's 13.23 has std 5e-10 > 0 and no eps: exactly +-1;
 * its pseudo-code adds 1e-8: +-5e-10/(5e-10 + 1e-8) (the doubles). */
static const struct expect tiny_spread[] = {
  { "seed-000", RLREF_SUCCESS, RV_GRPO_TINY_SPREAD_SEED_000 },
  { "seed-000-code", RLREF_SUCCESS, RV_GRPO_TINY_SPREAD_SEED_000_CODE },
};
/* verl's vectorised order on [0.37, 0.06, 0.51] (binary32, exact); the
 * order (s2/n - mean^2) n/(n - 1) gives RV_GRPO_F32_ORDER_ALT instead. */
static const struct expect f32_order[] = {
  { "verl-vectorized-old", RLREF_SUCCESS, RV_GRPO_F32_ORDER_VERL_VECTORIZED_OLD },
};
/* Seed 001's threshold guard: [0, 1e-7] (std 5e-8 > eps 1e-8). */
static const struct expect eps_guard[] = {
  { "seed-001", RLREF_SUCCESS, RV_GRPO_EPS_GUARD_SEED_001 },
};

/* ===== the conventions ==================================================== */

/* The twelve conventions are listed, each found by name at its own entry;
 * unknown names and NULL give NULL. */
START_TEST (test_conventions_listed)
{
  ck_assert_uint_eq (rlref_adv_num_conventions, NCONV);
  for (size_t i = 0; i < NCONV; i++)
    conv (names[i]);
  for (size_t i = 0; i < rlref_adv_num_conventions; i++)
    ck_assert_ptr_eq (rlref_adv_convention_find (rlref_adv_conventions[i].name),
                      &rlref_adv_conventions[i]);
  ck_assert_ptr_null (rlref_adv_convention_find ("grpo"));
  ck_assert_ptr_null (rlref_adv_convention_find (NULL));
}
END_TEST

/* The parameters CONVENTIONS.md gives: ddof and eps of each library;
 * eps-in-sqrt (golden/README.md): ddof 1, eps 1e-8 under the root, a
 * group of one gives 0, NaN refused. */
START_TEST (test_convention_parameters)
{
  ck_assert_int_eq (conv ("trl")->ddof, 1);
  ck_assert (conv ("trl")->eps == 1e-4);
  ck_assert_int_eq (conv ("verl")->ddof, 1);
  ck_assert (conv ("verl")->eps == 1e-6);
  ck_assert_int_eq (conv ("openrlhf")->ddof, 1);
  ck_assert (conv ("openrlhf")->eps == 1e-9);
  ck_assert_int_eq (conv ("seed-000")->ddof, 0);
  ck_assert_int_eq (conv ("seed-001")->ddof, 0);
  ck_assert_int_eq (conv ("seed-003")->ddof, 1);
  ck_assert (conv ("seed-003")->eps == 0.0);
  ck_assert_int_eq (conv ("eps-in-sqrt")->ddof, 1);
  ck_assert (conv ("eps-in-sqrt")->eps == 1e-8);
  ck_assert (conv ("eps-in-sqrt")->eps_at == RLREF_EPS_IN_SQRT);
  ck_assert (conv ("eps-in-sqrt")->single == RLREF_SINGLE_ZERO);
  ck_assert (conv ("eps-in-sqrt")->nan == RLREF_NAN_REFUSE);
  ck_assert (conv ("trl")->eps_at == RLREF_EPS_ADD_STD);
  ck_assert (conv ("batch-std")->scale == RLREF_SCALE_BATCH_STD);
  ck_assert (conv ("no-std")->scale == RLREF_SCALE_NONE);
  ck_assert (is_f32 (conv ("verl-vectorized-old")));
  /* seed 000's pseudo-code: (r - mu)/(sd + 1e-8), ddof 0, no branch */
  ck_assert_int_eq (conv ("seed-000-code")->ddof, 0);
  ck_assert (conv ("seed-000-code")->eps == 1e-8);
  ck_assert (conv ("seed-000-code")->guard == RLREF_GUARD_NONE);
  ck_assert (conv ("seed-000")->guard == RLREF_GUARD_POSITIVE);
  ck_assert (conv ("seed-000")->eps == 0.0);
  /* TRL's nanmean/nanstd and nan_to_num, in both of its scalings */
  ck_assert (conv ("trl")->nan == RLREF_NAN_SKIP);
  ck_assert (conv ("batch-std")->nan == RLREF_NAN_SKIP);
  ck_assert (conv ("verl")->nan == RLREF_NAN_REFUSE);
  ck_assert (conv ("openrlhf")->single == RLREF_SINGLE_REFUSE);
  ck_assert (conv ("trl-float32")->nan == RLREF_NAN_SKIP);
  ck_assert (conv ("trl-float32")->eps == 1e-4 && conv ("trl-float32")->ddof == 1);
  ck_assert (is_f32 (conv ("trl-float32")) && !is_f32 (conv ("trl")));
  /* verl's group_mean_std: a group of one gets mean 0, std 1 */
  ck_assert (conv ("verl-vectorized-old")->single == RLREF_SINGLE_RAW);
}
END_TEST

/* ===== detectors (CONVENTIONS.md) ======================================== */

/* [1,0,0,0] under every convention (mpmath values), and the rounded
 * figures of CONVENTIONS.md: ddof 1 gives 1.5/-0.5 (exactly without eps,
 * within 1e-3 with TRL's, within 1e-7 with eps-in-sqrt's 1e-8 under the
 * root), ddof 0 gives 1.7320508/-0.5773503, no std 0.75/-0.25. */
START_TEST (test_detector_one_of_four)
{
  const double r[4] = { 1, 0, 0, 0 };
  double a[4];
  check_expect (det_1000, sizeof det_1000 / sizeof det_1000[0], r, 4, 4);
  TU_OK (rlref_grpo_adv_d (a, r, 4, 4, conv ("seed-003")));
  TU_ASSERT_SAME (a[0], 1.5);
  TU_ASSERT_SAME (a[1], -0.5);
  TU_OK (rlref_grpo_adv_d (a, r, 4, 4, conv ("trl")));
  TU_ASSERT_ABS (a[0], 1.5, 1e-3);
  TU_ASSERT_ABS (a[3], -0.5, 1e-3);
  TU_OK (rlref_grpo_adv_d (a, r, 4, 4, conv ("eps-in-sqrt")));
  TU_ASSERT_ABS (a[0], 1.5, 1e-7);
  TU_ASSERT_ABS (a[3], -0.5, 1e-7);
  TU_OK (rlref_grpo_adv_d (a, r, 4, 4, conv ("seed-000")));
  TU_ASSERT_ABS (a[0], 1.7320508, 5e-8);
  TU_ASSERT_ABS (a[1], -0.5773503, 5e-8);
  TU_OK (rlref_grpo_adv_d (a, r, 4, 4, conv ("no-std")));
  TU_ASSERT_SAME (a[0], 0.75);
  TU_ASSERT_SAME (a[2], -0.25);
}
END_TEST

/* [0, 1e-4]: where eps goes decides the magnitude (CONVENTIONS.md): TRL
 * 0.292893, verl 0.697246, OpenRLHF 0.707097, ddof 0 without eps 1;
 * eps-in-sqrt 5e-5/sqrt(5e-9 + 1e-8) = 0.408248 (mpmath). */
START_TEST (test_detector_small_spread)
{
  const double r[2] = { 0.0, 1e-4 };
  double a[2];
  check_expect (det_small, sizeof det_small / sizeof det_small[0], r, 2, 2);
  TU_OK (rlref_grpo_adv_d (a, r, 2, 2, conv ("trl")));
  TU_ASSERT_ABS (a[1], 0.292893, 5e-7);
  TU_OK (rlref_grpo_adv_d (a, r, 2, 2, conv ("verl")));
  TU_ASSERT_ABS (a[1], 0.697246, 5e-7);
  TU_OK (rlref_grpo_adv_d (a, r, 2, 2, conv ("openrlhf")));
  TU_ASSERT_ABS (a[1], 0.707097, 5e-7);
  TU_OK (rlref_grpo_adv_d (a, r, 2, 2, conv ("eps-in-sqrt")));
  TU_ASSERT_ABS (a[1], 0.408248, 5e-7);
  TU_OK (rlref_grpo_adv_d (a, r, 2, 2, conv ("seed-000")));
  TU_ASSERT_SAME (a[0], -1.0);
  TU_ASSERT_SAME (a[1], 1.0);
}
END_TEST

/* [10000, 10001]: every correct ddof-1 reading gives +-0.7071 (to the
 * size of its eps), ddof 0 +-1, no std +-0.5; the old verl one-pass
 * binary32 variance cancels to 0, is floored at 1e-6 and gives +-499.5. */
START_TEST (test_detector_large_offset)
{
  static const char *const ddof1[] = {
    "seed-003", "trl", "trl-float32", "verl", "openrlhf", "eps-in-sqrt", "batch-std",
  };
  const double r[2] = { 10000.0, 10001.0 };
  double a[2];
  mpfr_ptr am = tu_mp_vec_new (2, PREC);
  int st;
  check_expect (det_offset, sizeof det_offset / sizeof det_offset[0], r, 2, 2);
  for (size_t k = 0; k < sizeof ddof1 / sizeof ddof1[0]; k++)
    {
      TU_OK (run_both (conv (ddof1[k]), r, 2, 2, a, am, &st));
      TU_OK (st);
      TU_ASSERT_ABS (a[0], -0.70710678, 2e-4);
      TU_ASSERT_ABS (a[1], 0.70710678, 2e-4);
      TU_ASSERT_ABS (mpfr_get_d (am + 1, MPFR_RNDN), 0.70710678, 2e-4);
    }
  TU_OK (run_both (conv ("verl-vectorized-old"), r, 2, 2, a, am, &st));
  ck_assert_msg (fabs (a[1]) > 100 && fabs (mpfr_get_d (am + 1, MPFR_RNDN)) > 100,
                 "old verl binary32: %g", a[1]);
  tu_mp_vec_free (am, 2);
}
END_TEST

/* A group of one (CONVENTIONS.md): TRL (both), eps-in-sqrt and
 * seed-000-code 0;
 * verl mean 0, std 1 so the raw reward leaks through as r/(1 + eps),
 * 0.7/(1 + 1e-6) with the double 1e-6 = 0.6999993000007 (mpmath); the old
 * verl the same in binary32, f32(0.7)/f32(1 + f32(1e-6)) = 0x1.66665p-1
 * (emulation; a binary32 number); OpenRLHF refuses (EDOM); no std gives
 * r - r = 0. */
START_TEST (test_group_of_one)
{
  const double r[1] = { 0.7 };
  static const char *const verl[1] = RV_GRPO_GROUP_OF_ONE_VERL;
  static const char *const old[1] = RV_GRPO_GROUP_OF_ONE_VERL_VECTORIZED_OLD;
  const double want_old = tu_d (old[0]);
  double a[1];
  mpfr_ptr am = tu_mp_vec_new (1, PREC);
  int st;
  TU_OK (run_both (conv ("trl"), r, 1, 1, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && mpfr_zero_p (am));
  TU_OK (run_both (conv ("eps-in-sqrt"), r, 1, 1, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && mpfr_zero_p (am));
  TU_OK (run_both (conv ("seed-000-code"), r, 1, 1, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && mpfr_zero_p (am));
  TU_OK (run_both (conv ("trl-float32"), r, 1, 1, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && mpfr_zero_p (am));
  TU_OK (run_both (conv ("no-std"), r, 1, 1, a, am, &st));
  ck_assert (a[0] == 0.0 && mpfr_zero_p (am));
  TU_ASSERT_STATUS (run_both (conv ("openrlhf"), r, 1, 1, a, am, &st), RLREF_EDOM);
  TU_ASSERT_STATUS (st, RLREF_EDOM);
  TU_OK (run_both (conv ("verl-vectorized-old"), r, 1, 1, a, am, &st));
  TU_OK (st);
  TU_ASSERT_SAME (a[0], want_old);
  ck_assert (mpfr_cmp_d (am, want_old) == 0);
  ck_assert ((double) (float) want_old == want_old);
  TU_OK (run_both (conv ("verl"), r, 1, 1, a, am, &st));
  TU_OK (st);
  TU_ASSERT_REL (a[0], tu_d (verl[0]), TU_TOL0);
  TU_ASSERT_MP_STR (am, verl[0], 70);
  tu_mp_vec_free (am, 1);
}
END_TEST

/* Batch-std with groups of one: each advantage is r - r = 0 over the
 * batch std (1e-4 eps), exactly 0. */
START_TEST (test_batch_std_groups_of_one)
{
  const double r[3] = { 0.2, 0.9, 0.4 };
  double a[3];
  mpfr_ptr am = tu_mp_vec_new (3, PREC);
  int st;
  TU_OK (run_both (conv ("batch-std"), r, 3, 1, a, am, &st));
  TU_OK (st);
  for (int i = 0; i < 3; i++)
    ck_assert (a[i] == 0.0 && mpfr_zero_p (am + i));
  tu_mp_vec_free (am, 3);
}
END_TEST

/* ===== the seeds' worked examples ==================================== */

/* Seed 000: [1,0,0,1] -> [1,-1,-1,1] exactly (mean 0.5, population std
 * 0.5, no eps), in both backends. */
START_TEST (test_seed000_example)
{
  const double r[4] = { 1, 0, 0, 1 }, want[4] = { 1, -1, -1, 1 };
  double a[4];
  mpfr_ptr am = tu_mp_vec_new (4, PREC);
  int st;
  TU_OK (run_both (conv ("seed-000"), r, 4, 4, a, am, &st));
  TU_OK (st);
  for (int i = 0; i < 4; i++)
    {
      TU_ASSERT_SAME (a[i], want[i]);
      ck_assert (mpfr_cmp_d (am + i, want[i]) == 0);
    }
  tu_mp_vec_free (am, 4);
}
END_TEST

/* [1,1,1] -> exactly 0 under every convention, both backends. */
START_TEST (test_all_equal_is_zero)
{
  const double r[3] = { 1, 1, 1 };
  double a[3];
  mpfr_ptr am = tu_mp_vec_new (3, PREC);
  for (size_t k = 0; k < NCONV; k++)
    {
      int st;
      TU_OK (run_both (conv (names[k]), r, 3, 3, a, am, &st));
      TU_OK (st);
      for (int i = 0; i < 3; i++)
        ck_assert_msg (tu_same_double (a[i], 0.0) || a[i] == 0.0, "%s: %g", names[k], a[i]);
      for (int i = 0; i < 3; i++)
        ck_assert_msg (mpfr_zero_p (am + i), "%s: %s", names[k], tu_mp_str (am + i));
    }
  tu_mp_vec_free (am, 3);
}
END_TEST

/* Seed 003: [0.2,0.8,0.4,0.6] gives std 0.2582 and A +-1.1619, which
 * holds for ddof 1 (seed-003, and eps-in-sqrt to 1e-7); ddof 0
 * (seed-001) gives std 0.2236 instead.  Stds against mpmath
 * (sqrt(0.2/3), sqrt(0.05) on the exact doubles), the advantages of every
 * convention against mpmath. */
START_TEST (test_seed003_example)
{
  const double r[4] = { 0.2, 0.8, 0.4, 0.6 };
  const char *std1 = RV_GRPO_EX_003_STD1, *std0 = RV_GRPO_EX_003_STD0;
  double m, s;
  mpfr_ptr rm = tu_mp_vec_from_d (r, 4, PREC);
  mpfr_t mm, sm;
  mpfr_inits2 (PREC, mm, sm, (mpfr_ptr) 0);
  check_expect (ex_003, sizeof ex_003 / sizeof ex_003[0], r, 4, 4);
  TU_OK (rlref_grpo_group_stats_d (&m, &s, r, 4, conv ("seed-003")));
  TU_ASSERT_ABS (s, 0.2582, 5e-5);
  TU_ASSERT_REL (s, strtod (std1, NULL), TU_TOL1);
  TU_OK (rlref_grpo_group_stats_mp (mm, sm, rm, 4, conv ("seed-003")));
  TU_ASSERT_MP_STR (sm, std1, 70);
  TU_OK (rlref_grpo_group_stats_d (&m, &s, r, 4, conv ("seed-001")));
  TU_ASSERT_ABS (s, 0.2236, 5e-5);
  TU_ASSERT_REL (s, strtod (std0, NULL), TU_TOL1);
  TU_OK (rlref_grpo_group_stats_mp (mm, sm, rm, 4, conv ("seed-001")));
  TU_ASSERT_MP_STR (sm, std0, 70);
  TU_ASSERT_MP_STR (mm, RV_GRPO_EX_003_MEAN, 75);
  {
    double a[4];
    TU_OK (rlref_grpo_adv_d (a, r, 4, 4, conv ("seed-003")));
    TU_ASSERT_ABS (a[0], -1.1619, 5e-5);
    TU_ASSERT_ABS (a[1], 1.1619, 5e-5);
    TU_OK (rlref_grpo_adv_d (a, r, 4, 4, conv ("eps-in-sqrt")));
    TU_ASSERT_ABS (a[0], -1.1619, 5e-5);
    TU_ASSERT_ABS (a[1], 1.1619, 5e-5);
  }
  tu_mp_vec_free (rm, 4);
  mpfr_clears (mm, sm, (mpfr_ptr) 0);
}
END_TEST

/* Seed 001's threshold guard std > eps (eps 1e-8, ddof 0): [0, 1e-8] has
 * std 5e-9 <= eps -> exactly 0; [0, 1e-7] has std 5e-8 -> +-5/6 of it,
 * 0.8333... (mpmath). */
START_TEST (test_seed001_eps_threshold)
{
  const double r1[2] = { 0.0, 1e-8 }, r2[2] = { 0.0, 1e-7 };
  double a[2];
  mpfr_ptr am = tu_mp_vec_new (2, PREC);
  int st;
  TU_OK (run_both (conv ("seed-001"), r1, 2, 2, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && a[1] == 0.0 && mpfr_zero_p (am) && mpfr_zero_p (am + 1));
  check_expect (eps_guard, 1, r2, 2, 2);
  tu_mp_vec_free (am, 2);
}
END_TEST

/* ===== NaN and bad sizes ================================================ */

/* TRL leaves NaN rewards out of mean and std and gives them advantage 0:
 * [1, NaN, 0, 0] is [1, 0, 0] with a 0 inserted (mpmath); one scorable
 * reward gives std 0 and advantage 0; all NaN gives all 0. */
START_TEST (test_trl_nan_skipped)
{
  const double r[4] = { 1, NAN, 0, 0 }, one[2] = { 1, NAN }, none[2] = { NAN, NAN };
  double a[2];
  mpfr_ptr am = tu_mp_vec_new (2, PREC);
  int st;
  check_expect (trl_nan, 1, r, 4, 4);
  TU_OK (run_both (conv ("trl"), one, 2, 2, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && a[1] == 0.0 && mpfr_zero_p (am) && mpfr_zero_p (am + 1));
  TU_OK (run_both (conv ("trl"), none, 2, 2, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && a[1] == 0.0 && mpfr_zero_p (am) && mpfr_zero_p (am + 1));
  tu_mp_vec_free (am, 2);
}
END_TEST

/* TRL ends with nan_to_num(advantages, nan=0): an infinite reward makes
 * its group's nanmean infinite or NaN, every advantage of the group NaN,
 * then 0.  [inf, 0] -> [0, 0]; [-inf, NaN] and [inf, -inf, 1, 0] -> 0;
 * a finite group beside an infinite one keeps its own advantages (bit for
 * bit those of a call on it alone). */
START_TEST (test_trl_infinite_reward)
{
  const double r1[2] = { INFINITY, 0 }, r2[2] = { -INFINITY, NAN };
  const double r3[4] = { INFINITY, -INFINITY, 1, 0 };
  const double r4[8] = { 1, 0, INFINITY, 0, 0.2, 0.8, 0.4, 0.6 };
  const rlref_adv_convention *c = conv ("trl");
  double a[8], b[4];
  mpfr_ptr am = tu_mp_vec_new (8, PREC), bm = tu_mp_vec_new (4, PREC);
  int st;
  TU_OK (run_both (c, r1, 2, 2, a, am, &st));
  TU_OK (st);
  for (int i = 0; i < 2; i++)
    ck_assert (tu_same_double (a[i], 0.0) && mpfr_zero_p (am + i) && !mpfr_signbit (am + i));
  TU_OK (run_both (c, r2, 2, 2, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && a[1] == 0.0 && mpfr_zero_p (am) && mpfr_zero_p (am + 1));
  TU_OK (run_both (c, r3, 4, 4, a, am, &st));
  TU_OK (st);
  for (int i = 0; i < 4; i++)
    ck_assert (a[i] == 0.0 && mpfr_zero_p (am + i));
  TU_OK (run_both (c, r4, 8, 4, a, am, &st));
  TU_OK (st);
  TU_OK (run_both (c, r4 + 4, 4, 4, b, bm, &st));
  TU_OK (st);
  for (int i = 0; i < 4; i++)
    {
      ck_assert (a[i] == 0.0 && mpfr_zero_p (am + i));
      TU_ASSERT_SAME (a[4 + i], b[i]);
      ck_assert (mpfr_equal_p (am + 4 + i, bm + i));
    }
  ck_assert (fabs (a[5]) > 1.0);
  tu_mp_vec_free (am, 8);
  tu_mp_vec_free (bm, 4);
}
END_TEST

/* TRL as run, on float32 rewards (trl-float32; exact binary32 values of
 * the emulation of its torch operations): [10000.3594, 10000.2822],
 * where the binary32 mean's rounding, divided by a std of 0.055, moves
 * the advantages to 0.7147/-0.6968 from the exact +-0.7058 of trl (more
 * than float32 rounding of the result); [1, NaN, 0, 0] as trl with NaN;
 * [inf, 0] -> [0, 0]; [1e20, 0], whose squared deviations overflow
 * binary32 (std inf): [0, -0]; [1e39, 0], beyond binary32: [0, 0]. */
START_TEST (test_trl_float32)
{
  static const struct { double r[4]; size_t G; const char *a[4]; } t[] = {
    { { 10000.3594, 10000.2822 }, 2, RV_GRPO_TRL_F32_OFFSET_TRL_FLOAT32 },
    { { 1, NAN, 0, 0 }, 4, RV_GRPO_TRL_F32_NAN_TRL_FLOAT32 },
    { { INFINITY, 0 }, 2, RV_GRPO_TRL_F32_INF_TRL_FLOAT32 },
    { { 1e20, 0 }, 2, RV_GRPO_TRL_F32_OVERFLOW_TRL_FLOAT32 },
    { { 1e39, 0 }, 2, RV_GRPO_TRL_F32_BEYOND_TRL_FLOAT32 },
  };
  const rlref_adv_convention *c = conv ("trl-float32");
  double a[4];
  mpfr_ptr am = tu_mp_vec_new (4, PREC);
  int st;
  for (size_t j = 0; j < sizeof t / sizeof t[0]; j++)
    {
      TU_OK (run_both (c, t[j].r, t[j].G, t[j].G, a, am, &st));
      TU_OK (st);
      for (size_t i = 0; i < t[j].G; i++)
        {
          const double w = tu_d (t[j].a[i]);
          ck_assert ((double) (float) w == w);
          TU_ASSERT_SAME (a[i], w);
          ck_assert_msg (mpfr_cmp_d (am + i, w) == 0
                         && (mpfr_signbit (am + i) != 0) == (signbit (w) != 0),
                         "case %zu [%zu]: %s, expected %a", j, i, tu_mp_str (am + i), w);
        }
    }
  /* [1e20, 0]: +0 and -0 */
  ck_assert (!signbit (tu_d (t[3].a[0])) && signbit (tu_d (t[3].a[1])));
  /* exact trl: 1/(sqrt 2 + 2e-4/0.0772) = 0.7058138... */
  TU_OK (rlref_grpo_adv_d (a, t[0].r, 2, 2, conv ("trl")));
  TU_ASSERT_ABS (a[0], 1.0 / (sqrt (2.0) + 2e-4 / 0.0772), 1e-9);
  ck_assert (fabs (a[0] - tu_d (t[0].a[0])) > 5e-3);
  tu_mp_vec_free (am, 4);
}
END_TEST

/* TRL scale_rewards="batch" (batch-std) follows group mode's NaN rules:
 * a batch of one has std 0, advantage 0; NaN rewards are left out of the
 * group means and the batch std (mpmath values); fewer than two scorable
 * rewards give 0.  An infinite reward gives its group 0 and the batch std
 * +inf, so the other groups get (r - mean)/inf = +-0 (signed as r - mean,
 * as in TRL); with both infinities the batch mean is NaN and all are +0. */
START_TEST (test_batch_std_trl_rules)
{
  const double one[1] = { 0.7 }, nan[8] = { 1, NAN, 0, 0, 0.5, 0.5, 0.9, NAN };
  const double few[4] = { NAN, 2, NAN, NAN }, inf[4] = { INFINITY, 0, 0.3, 0.9 };
  const double both[4] = { INFINITY, -INFINITY, 0.3, 0.9 };
  const rlref_adv_convention *c = conv ("batch-std");
  double a[4];
  mpfr_ptr am = tu_mp_vec_new (4, PREC);
  int st;
  TU_OK (run_both (c, one, 1, 1, a, am, &st));
  TU_OK (st);
  ck_assert (a[0] == 0.0 && mpfr_zero_p (am));
  check_expect (batch_nan, 1, nan, 8, 4);
  TU_OK (run_both (c, few, 4, 2, a, am, &st));
  TU_OK (st);
  for (int i = 0; i < 4; i++)
    ck_assert (a[i] == 0.0 && mpfr_zero_p (am + i));
  TU_OK (run_both (c, inf, 4, 2, a, am, &st));
  TU_OK (st);
  TU_ASSERT_SAME (a[0], 0.0);
  TU_ASSERT_SAME (a[1], 0.0);
  TU_ASSERT_SAME (a[2], -0.0);
  TU_ASSERT_SAME (a[3], 0.0);
  for (int i = 0; i < 4; i++)
    ck_assert_msg (mpfr_zero_p (am + i) && (mpfr_signbit (am + i) != 0) == (i == 2),
                   "[%d] %s", i, tu_mp_str (am + i));
  TU_OK (run_both (c, both, 4, 2, a, am, &st));
  TU_OK (st);
  for (int i = 0; i < 4; i++)
    ck_assert (tu_same_double (a[i], 0.0) && mpfr_zero_p (am + i) && !mpfr_signbit (am + i));
  tu_mp_vec_free (am, 4);
}
END_TEST

/* Seed 000's two readings part on [0, 1e-9] (13.23: +-1; the pseudo-code:
 * +-0.0476, mpmath) and agree on zero variance ([1,1,1] -> 0 in
 * test_all_equal_is_zero) and on [1,0,0,0] (the detector tables). */
START_TEST (test_seed000_code)
{
  const double r[2] = { 0.0, 1e-9 };
  double a[2];
  check_expect (tiny_spread, 2, r, 2, 2);
  TU_OK (rlref_grpo_adv_d (a, r, 2, 2, conv ("seed-000-code")));
  TU_ASSERT_ABS (a[1], 0.047619, 5e-7);
}
END_TEST

/* verl's old vectorised estimator in its own operation order (exact
 * binary32 values, both backends): [0.37, 0.06, 0.51], where the other
 * order (RV_GRPO_F32_ORDER_ALT) differs in every value; four equal
 * rewards 5e18, whose s1*s1 overflows binary32 (var = s2 - inf = -inf,
 * clamped to 1e-6): advantage 0, as verl computes; rewards 1e20, where s2
 * and s1*s1 both overflow (inf - inf = NaN, verl's NaN): ERANGE. */
START_TEST (test_verl_vectorized_order)
{
  const double r[3] = { 0.37, 0.06, 0.51 }, big[4] = { 5e18, 5e18, 5e18, 5e18 };
  const double huge[2] = { 1e20, 1e20 };
  static const char *const alt[3] = RV_GRPO_F32_ORDER_ALT;
  const rlref_adv_convention *c = conv ("verl-vectorized-old");
  double a[4];
  mpfr_ptr am = tu_mp_vec_new (4, PREC);
  int st;
  check_expect (f32_order, 1, r, 3, 3);
  TU_OK (rlref_grpo_adv_d (a, r, 3, 3, c));
  for (int i = 0; i < 3; i++)
    ck_assert_msg (a[i] != tu_d (alt[i]), "[%d]: %a, the other order's value", i, a[i]);
  TU_OK (run_both (c, big, 4, 4, a, am, &st));
  TU_OK (st);
  for (int i = 0; i < 4; i++)
    ck_assert (a[i] == 0.0 && mpfr_zero_p (am + i));
  TU_ASSERT_STATUS (run_both (c, huge, 2, 2, a, am, &st), RLREF_ERANGE);
  TU_ASSERT_STATUS (st, RLREF_ERANGE);
  tu_mp_vec_free (am, 4);
}
END_TEST

/* NaN and infinite rewards -> ENAN under every convention but TRL's (trl,
 * trl-float32, batch-std); group stats refuse both. */
START_TEST (test_non_finite_refused)
{
  const double rn[4] = { 1, NAN, 0, 0 }, ri[4] = { 1, INFINITY, 0, 0 };
  double a[4], m, s;
  mpfr_ptr am = tu_mp_vec_new (4, PREC);
  int st;
  for (size_t k = 0; k < NCONV; k++)
    {
      const rlref_adv_convention *c = conv (names[k]);
      int skip = strncmp (names[k], "trl", 3) == 0 || strcmp (names[k], "batch-std") == 0;
      TU_ASSERT_STATUS (run_both (c, rn, 4, 4, a, am, &st), skip ? RLREF_SUCCESS : RLREF_ENAN);
      TU_ASSERT_STATUS (st, skip ? RLREF_SUCCESS : RLREF_ENAN);
      TU_ASSERT_STATUS (run_both (c, ri, 4, 4, a, am, &st), skip ? RLREF_SUCCESS : RLREF_ENAN);
      TU_ASSERT_STATUS (st, skip ? RLREF_SUCCESS : RLREF_ENAN);
    }
  TU_ASSERT_STATUS (rlref_grpo_group_stats_d (&m, &s, rn, 4, conv ("seed-003")), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_grpo_group_stats_d (&m, &s, ri, 4, conv ("trl")), RLREF_ENAN);
  tu_mp_vec_free (am, 4);
}
END_TEST

/* What the golden cases do not reach: a group size of 0 (the registry's
 * cases divide the rewards into groups; a size that does not divide them,
 * or no rewards, fails the generic test when its check goes), NULL
 * arguments and conventions, and the group statistics' own refusals. */
START_TEST (test_bad_sizes)
{
  const double r[6] = { 1, 0, 2, 3, 0.5, 1 };
  double a[6], m, s;
  mpfr_ptr rm = tu_mp_vec_from_d (r, 6, PREC), am = tu_mp_vec_new (6, PREC);
  for (size_t k = 0; k < NCONV; k++)
    {
      const rlref_adv_convention *c = conv (names[k]);
      TU_ASSERT_STATUS (rlref_grpo_adv_d (a, r, 6, 0, c), RLREF_EINVAL);
      TU_ASSERT_STATUS (rlref_grpo_adv_d (a, NULL, 6, 2, c), RLREF_EINVAL);
      TU_ASSERT_STATUS (rlref_grpo_adv_d (NULL, r, 6, 2, c), RLREF_EINVAL);
      TU_ASSERT_STATUS (rlref_grpo_adv_mp (am, rm, 6, 0, c), RLREF_EINVAL);
    }
  TU_ASSERT_STATUS (rlref_grpo_adv_d (a, r, 6, 2, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_grpo_group_stats_d (&m, &s, r, 0, conv ("trl")), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_grpo_group_stats_d (&m, &s, NULL, 3, conv ("trl")), RLREF_EINVAL);
  tu_mp_vec_free (rm, 6);
  tu_mp_vec_free (am, 6);
}
END_TEST

/* ===== structure ======================================================== */

/* A batch of two groups equals two separate calls, bit for bit, under
 * every convention but batch-std; batch-std divides by the std of all six
 * rewards (mpmath values) and so differs from TRL's per-group std. */
START_TEST (test_groups_independent)
{
  const double r[6] = { 0.3, 1.0, 0.0, 0.5, 0.5, 0.9 };
  double a[6], b[6];
  mpfr_ptr rm = tu_mp_vec_from_d (r, 6, PREC);
  mpfr_ptr am = tu_mp_vec_new (6, PREC), bm = tu_mp_vec_new (6, PREC);
  for (size_t k = 0; k < NCONV; k++)
    {
      const rlref_adv_convention *c = conv (names[k]);
      if (c->scale == RLREF_SCALE_BATCH_STD)
        continue;
      TU_OK (rlref_grpo_adv_d (a, r, 6, 3, c));
      TU_OK (rlref_grpo_adv_d (b, r, 3, 3, c));
      TU_OK (rlref_grpo_adv_d (b + 3, r + 3, 3, 3, c));
      TU_OK (rlref_grpo_adv_mp (am, rm, 6, 3, c));
      TU_OK (rlref_grpo_adv_mp (bm, rm, 3, 3, c));
      TU_OK (rlref_grpo_adv_mp (bm + 3, rm + 3, 3, 3, c));
      for (int i = 0; i < 6; i++)
        {
          ck_assert_msg (tu_same_double (a[i], b[i]), "%s [%d]", names[k], i);
          ck_assert_msg (mpfr_equal_p (am + i, bm + i), "%s [%d] (mp)", names[k], i);
        }
    }
  check_expect (two_groups_batch, 1, r, 6, 3);
  TU_OK (rlref_grpo_adv_d (a, r, 6, 3, conv ("batch-std")));
  TU_OK (rlref_grpo_adv_d (b, r, 6, 3, conv ("trl")));
  ck_assert (tu_rel_err (a[0], b[0]) > 0.1);
  tu_mp_vec_free (rm, 6);
  tu_mp_vec_free (am, 6);
  tu_mp_vec_free (bm, 6);
}
END_TEST

/* ===== rewards near the limits of binary64 ============================= */

/* Two opposite rewards +-R give +-1 (ddof 0) or +-1/sqrt 2 (ddof 1), for
 * every std convention, in both backends, whatever R: R = 1e154 (whose
 * squared deviations sum beyond DBL_MAX), 1e300, DBL_MAX, 1e-200 (whose
 * squares underflow: without eps the std would be 0), and the smallest
 * subnormal.  The eps of a convention is below the rounding of the std
 * at every R but 1e-200 and 2^-1074, which are tested without eps. */
START_TEST (test_range_opposite_rewards)
{
  static const char *const isqrt2 = RV_GRPO_OPPOSITE_DDOF1;
  static const double big[] = { 1e154, 1e300, DBL_MAX }, tiny[] = { 1e-200, 0x1p-1074 };
  double r[2], a[2];
  mpfr_ptr am = tu_mp_vec_new (2, PREC);
  int st;
  for (size_t k = 0; k < NCONV; k++)
    {
      const rlref_adv_convention *c = conv (names[k]);
      int nb = (int) (sizeof big / sizeof big[0]);
      if (c->scale == RLREF_SCALE_NONE || is_f32 (c))
        continue;
      for (int j = 0; j < nb + 2; j++)
        {
          double R = j < nb ? big[j] : tiny[j - nb];
          if (j >= nb && c->eps != 0.0)
            continue;
          r[0] = R;
          r[1] = -R;
          if (j >= nb)
            r[1] = 0.0;         /* [R, 0]: the same advantages, +-1 or +-1/sqrt 2 */
          TU_OK (run_both (c, r, 2, 2, a, am, &st));
          TU_OK (st);
          if (c->ddof == 0)
            {
              TU_ASSERT_REL (a[0], 1.0, TU_TOL1);
              TU_ASSERT_REL (a[1], -1.0, TU_TOL1);
              TU_ASSERT_MP_STR (am, "1", 70);
            }
          else
            {
              TU_ASSERT_REL (a[0], strtod (isqrt2, NULL), TU_TOL1);
              TU_ASSERT_REL (a[1], -strtod (isqrt2, NULL), TU_TOL1);
              TU_ASSERT_MP_STR (am, isqrt2, 70);
            }
          ck_assert_msg (mpfr_sgn (am + 1) < 0, "%s R = %g: %s", names[k], R,
                         tu_mp_str (am + 1));
        }
    }
  tu_mp_vec_free (am, 2);
}
END_TEST

/* Rewards of 1e300 and 1e-300 in one group, under every convention but the
 * binary32 one: binary64 within 16 eps of MPFR (whose range is not
 * reached), no NaN, no spurious zero. */
START_TEST (test_range_mixed_magnitudes)
{
  const double r[4] = { 1e300, -3e299, 1e-300, 7e299 };
  double a[4];
  mpfr_ptr am = tu_mp_vec_new (4, PREC);
  int st;
  for (size_t k = 0; k < NCONV; k++)
    {
      const rlref_adv_convention *c = conv (names[k]);
      if (is_f32 (c))
        continue;
      TU_OK (run_both (c, r, 4, 4, a, am, &st));
      TU_OK (st);
      for (int i = 0; i < 4; i++)
        {
          double want = mpfr_get_d (am + i, MPFR_RNDN);
          ck_assert_msg (want != 0.0 && isfinite (want), "%s [%d] %g", names[k], i, want);
          ck_assert_msg (tu_rel_err (a[i], want) <= TU_TOL1, "%s [%d]: %.17g vs %.17g",
                         names[k], i, a[i], want);
        }
    }
  tu_mp_vec_free (am, 4);
}
END_TEST

/* Dr.GRPO (no-std) near DBL_MAX: [1.5e308, 1.7e308] -> -+(1.7e308 -
 * 1.5e308)/2, exact in both backends (the sum of the two overflows, the
 * difference does not); [DBL_MAX, -DBL_MAX, -DBL_MAX] -> DBL_MAX + DBL_MAX/3
 * for the first: ERANGE in binary64, the exact value in MPFR. */
START_TEST (test_range_no_std)
{
  const double r[2] = { 1.5e308, 1.7e308 }, o[3] = { DBL_MAX, -DBL_MAX, -DBL_MAX };
  const rlref_adv_convention *c = conv ("no-std");
  double a[3], h = (1.5e308 - 1.7e308) / 2;
  mpfr_ptr am = tu_mp_vec_new (3, PREC);
  mpfr_t w;
  int st;
  TU_OK (run_both (c, r, 2, 2, a, am, &st));
  TU_OK (st);
  TU_ASSERT_SAME (a[0], h);
  TU_ASSERT_SAME (a[1], -h);
  ck_assert (mpfr_cmp_d (am, h) == 0 && mpfr_cmp_d (am + 1, -h) == 0);
  TU_ASSERT_STATUS (run_both (c, o, 3, 3, a, am, &st), RLREF_ERANGE);
  TU_OK (st);
  mpfr_init2 (w, PREC);
  mpfr_set_d (w, DBL_MAX, MPFR_RNDN);
  mpfr_mul_ui (w, w, 4, MPFR_RNDN);
  mpfr_div_ui (w, w, 3, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (am, w, 70);
  mpfr_clear (w);
  tu_mp_vec_free (am, 3);
}
END_TEST

/* Group stats at the limits: [1e154, -1e154] has std sqrt 2 1e154 (ddof 1)
 * in both backends; [DBL_MAX, -DBL_MAX] has std sqrt 2 DBL_MAX: ERANGE in
 * binary64, the value in MPFR; the mean is exact (0) in both. */
START_TEST (test_range_group_stats)
{
  const double r[2] = { 1e154, -1e154 }, o[2] = { DBL_MAX, -DBL_MAX };
  const rlref_adv_convention *c = conv ("trl");
  double m, s;
  mpfr_ptr rm = tu_mp_vec_from_d (r, 2, PREC), om = tu_mp_vec_from_d (o, 2, PREC);
  mpfr_t mm, sm, w;
  mpfr_inits2 (PREC, mm, sm, w, (mpfr_ptr) 0);
  TU_OK (rlref_grpo_group_stats_d (&m, &s, r, 2, c));
  TU_ASSERT_SAME (m, 0.0);
  TU_ASSERT_REL (s, sqrt (2.0) * 1e154, TU_TOL1);
  TU_OK (rlref_grpo_group_stats_mp (mm, sm, rm, 2, c));
  mpfr_sqrt_ui (w, 2, MPFR_RNDN);
  mpfr_mul_d (w, w, 1e154, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (sm, w, 70);
  TU_ASSERT_STATUS (rlref_grpo_group_stats_d (&m, &s, o, 2, c), RLREF_ERANGE);
  TU_OK (rlref_grpo_group_stats_mp (mm, sm, om, 2, c));
  ck_assert (mpfr_zero_p (mm));
  mpfr_sqrt_ui (w, 2, MPFR_RNDN);
  mpfr_mul_d (w, w, DBL_MAX, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (sm, w, 70);
  mpfr_clears (mm, sm, w, (mpfr_ptr) 0);
  tu_mp_vec_free (rm, 2);
  tu_mp_vec_free (om, 2);
}
END_TEST

/* ===== exact sums ========================================================= */

/* Expected values of this section: refvalues.h, as at the head of this
 * file (the exact rationals matter here: the rewards span more bits than
 * either precision holds). */

/* [-1.7e308, -1.94, 1.7e308]: the rewards span 2^1024 to 2, more bits
 * than either precision holds.  The mean is -1.94/3, not 0: seed-000
 * (ddof 0) gives adv[1] = (-1.94 + 1.94/3)/(1.7e308 sqrt(2/3)) =
 * -9.3176668647e-309 (a sum that drops -1.94 gives -1.39765e-308, in both
 * precisions alike); ddof 1 -7.6078431373e-309; no-std -1.2933333333.
 * TRL in float32 sees inf rewards (0); the old verl overflows. */
static const struct expect wide_spread[] = {
  { "seed-000", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_SEED_000 },
  { "seed-000-code", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_SEED_000_CODE },
  { "seed-001", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_SEED_001 },
  { "seed-003", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_SEED_003 },
  { "trl", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_TRL },
  { "trl-float32", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_TRL_FLOAT32 },
  { "verl", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_VERL },
  { "verl-vectorized-old", RLREF_ERANGE, { NULL } },
  { "openrlhf", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_OPENRLHF },
  { "eps-in-sqrt", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_EPS_IN_SQRT },
  { "no-std", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_NO_STD },
  { "batch-std", RLREF_SUCCESS, RV_GRPO_WIDE_SPREAD_BATCH_STD },
};
/* [1, 2, 1e-200]: r_0 - mean = 1 - (3 + 1e-200)/3 = -1e-200/3, not the
 * exact zero a rounded mean gives (and two precisions then certify).  In
 * binary32 1e-200 is 0 and the zero is right. */
static const struct expect small_beside_large[] = {
  { "seed-000", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_SEED_000 },
  { "seed-000-code", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_SEED_000_CODE },
  { "seed-001", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_SEED_001 },
  { "seed-003", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_SEED_003 },
  { "trl", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_TRL },
  { "trl-float32", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_TRL_FLOAT32 },
  { "verl", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_VERL },
  { "verl-vectorized-old", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_VERL_VECTORIZED_OLD },
  { "openrlhf", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_OPENRLHF },
  { "eps-in-sqrt", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_EPS_IN_SQRT },
  { "no-std", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_NO_STD },
  { "batch-std", RLREF_SUCCESS, RV_GRPO_SMALL_BESIDE_LARGE_BATCH_STD },
};
/* [3, 1, -2^-600, 2^-1000]: the sum 4 - 2^-600 + 2^-1000 takes three
 * words at 53 bits and at 256; r_1 - mean = 2^-602 - 2^-1002. */
static const struct expect three_words[] = {
  { "no-std", RLREF_SUCCESS, RV_GRPO_THREE_WORDS_NO_STD },
  { "seed-000", RLREF_SUCCESS, RV_GRPO_THREE_WORDS_SEED_000 },
};

START_TEST (test_exact_wide_spread)
{
  static const double r[3] = { -1.7e308, -1.94, 1.7e308 };
  check_expect (wide_spread, sizeof wide_spread / sizeof wide_spread[0], r, 3, 3);
}
END_TEST

START_TEST (test_exact_small_beside_large)
{
  static const double r[3] = { 1.0, 2.0, 1e-200 };
  check_expect (small_beside_large, sizeof small_beside_large / sizeof small_beside_large[0], r,
                3, 3);
}
END_TEST

START_TEST (test_exact_three_words)
{
  static const double r[4] = { 3.0, 1.0, -0x1p-600, 0x1p-1000 };
  check_expect (three_words, sizeof three_words / sizeof three_words[0], r, 4, 4);
}
END_TEST

/* Group stats of [-1.7e308, -1.94, 1.7e308]: mean -1.94/3 (not 0), std
 * (ddof 0) 1.388e308, in both backends. */
START_TEST (test_exact_group_stats)
{
  static const double r[3] = { -1.7e308, -1.94, 1.7e308 };
  static const char *const mean = RV_GRPO_WIDE_SPREAD_MEAN;
  static const char *const std = RV_GRPO_WIDE_SPREAD_STD0;
  double m, s;
  mpfr_ptr rm = tu_mp_vec_from_d (r, 3, PREC);
  mpfr_t mm, sm;
  mpfr_inits2 (PREC, mm, sm, (mpfr_ptr) 0);
  TU_OK (rlref_grpo_group_stats_d (&m, &s, r, 3, conv ("seed-000")));
  TU_ASSERT_REL (m, strtod (mean, NULL), TU_TOL1);
  TU_ASSERT_REL (s, strtod (std, NULL), TU_TOL1);
  TU_OK (rlref_grpo_group_stats_mp (mm, sm, rm, 3, conv ("seed-000")));
  TU_ASSERT_MP_STR (mm, mean, 70);
  TU_ASSERT_MP_STR (sm, std, 70);
  mpfr_clears (mm, sm, (mpfr_ptr) 0);
  tu_mp_vec_free (rm, 3);
}
END_TEST

/* The advantages of one group of G finite rewards under a group-std or
 * no-std convention, by the plain two-pass formula in MPFR at 4096 bits:
 * there the sum of G doubles is exact and r - mean loses nothing, so this
 * is the exact value to far beyond 256 bits.  *scale gets max|r| over the
 * denominator (no-std: max|r|). */
static void
ref_adv_4096 (mpfr_ptr a, double *scale, const double *r, size_t G,
              const rlref_adv_convention *c)
{
  mpfr_t mean, d, var, std, eps, den;
  mpfr_inits2 (4096, mean, d, var, std, eps, den, (mpfr_ptr) 0);
  mpfr_set_zero (mean, 1);
  mpfr_set_zero (var, 1);
  for (size_t i = 0; i < G; i++)
    mpfr_add_d (mean, mean, r[i], MPFR_RNDN);
  mpfr_div_ui (mean, mean, G, MPFR_RNDN);
  for (size_t i = 0; i < G; i++)
    {
      mpfr_d_sub (d, r[i], mean, MPFR_RNDN);
      mpfr_fma (var, d, d, var, MPFR_RNDN);
    }
  mpfr_div_ui (var, var, G - (size_t) c->ddof, MPFR_RNDN);
  mpfr_sqrt (std, var, MPFR_RNDN);
  mpfr_set_d (eps, c->eps, MPFR_RNDN);
  if (c->eps_at == RLREF_EPS_IN_SQRT)
    {
      mpfr_add (den, var, eps, MPFR_RNDN);
      mpfr_sqrt (den, den, MPFR_RNDN);
    }
  else
    mpfr_add (den, std, eps, MPFR_RNDN);
  *scale = 0.0;
  for (size_t i = 0; i < G; i++)
    *scale = fmax (*scale, fabs (r[i]));
  if (c->scale != RLREF_SCALE_NONE)
    {
      mpfr_d_div (d, *scale, den, MPFR_RNDN);
      *scale = mpfr_get_d (d, MPFR_RNDU);
    }
  for (size_t i = 0; i < G; i++)
    {
      mpfr_d_sub (a + i, r[i], mean, MPFR_RNDN);
      if (c->scale == RLREF_SCALE_NONE)
        continue;
      if ((c->guard == RLREF_GUARD_POSITIVE && mpfr_zero_p (std))
          || (c->guard == RLREF_GUARD_EPS && mpfr_cmp (std, eps) <= 0))
        mpfr_set_zero (a + i, 1);
      else
        mpfr_div (a + i, a + i, den, MPFR_RNDN);
    }
  mpfr_clears (mean, d, var, std, eps, den, (mpfr_ptr) 0);
}

/* Seeded: 300 groups of G in 3..8 rewards holding a pair +-R and rewards
 * s of any size, in random order, R and s of random sign and binary
 * exponents from -1070 to 1020: the large pair cancels in the sum, where
 * a sum in index order drops the small rewards.  Every exact convention
 * (batch-std on one group is trl): MPFR at 256 bits agrees with the
 * 4096-bit two-pass formula (ref_adv_4096) to 70 digits, exact zeros
 * exactly; binary64 within 32 eps (|A| + max|r| / (std + eps)) + DBL_MIN,
 * the first-order rounding bound of the golden tolerance rule (no-std:
 * 32 eps (|A| + max|r|)). */
START_TEST (test_exact_random_cancellation)
{
  gsl_rng *rng = tu_rng_new ();
  double r[8], a[8];
  mpfr_ptr am = tu_mp_vec_new (8, PREC), ref = tu_mp_vec_new (8, 4096);
  for (int t = 0; t < 300; t++)
    {
      size_t G = 3 + gsl_rng_uniform_int (rng, 6), p, q;
      double R = ldexp (1.0 + gsl_rng_uniform (rng), (int) gsl_rng_uniform_int (rng, 2091) - 1070);
      for (size_t i = 0; i < G; i++)
        {
          r[i] = ldexp (1.0 + gsl_rng_uniform (rng), (int) gsl_rng_uniform_int (rng, 2091) - 1070);
          if (gsl_rng_uniform_int (rng, 2))
            r[i] = -r[i];
        }
      p = gsl_rng_uniform_int (rng, G);
      q = (p + 1 + gsl_rng_uniform_int (rng, G - 1)) % G;
      r[p] = R;
      r[q] = -R;
      for (size_t k = 0; k < NCONV; k++)
        {
          const rlref_adv_convention *c = conv (names[k]);
          double scale;
          int st;
          if (is_f32 (c))
            continue;
          TU_OK (run_both (c, r, G, G, a, am, &st));
          TU_OK (st);
          ref_adv_4096 (ref, &scale, r, G, c);
          for (size_t i = 0; i < G; i++)
            {
              double want = mpfr_get_d (ref + i, MPFR_RNDN);
              if (mpfr_zero_p (ref + i))
                ck_assert_msg (a[i] == 0.0 && mpfr_zero_p (am + i),
                               "%s t %d [%zu]: %g / %s, expected exactly 0", names[k], t, i,
                               a[i], tu_mp_str (am + i));
              else
                {
                  ck_assert_msg (tu_mp_digits (am + i, ref + i) >= 70,
                                 "%s t %d [%zu]: %s, expected %s (%d digits)", names[k], t, i,
                                 tu_mp_str (am + i), tu_mp_str (ref + i),
                                 tu_mp_digits (am + i, ref + i));
                  ck_assert_msg (fabs (a[i] - want)
                                 <= 32 * DBL_EPSILON * (fabs (want) + scale) + DBL_MIN,
                                 "%s t %d [%zu]: %.17g, expected %.17g", names[k], t, i, a[i],
                                 want);
                }
            }
        }
    }
  tu_mp_vec_free (am, 8);
  tu_mp_vec_free (ref, 8);
  gsl_rng_free (rng);
}
END_TEST

/* The generic test holds every convention to the aliasing rule on the
 * golden cases.  Here: in place with the rewards TRL's two conventions
 * accept (NaN, inf) and with rewards beyond 1e154 (the scaled path), every
 * convention that accepts them, both backends; group stats with mean and std stored over
 * the rewards give what they give apart. */
START_TEST (test_aliasing_edges)
{
  static const double rs[][6] = {
    { 1, NAN, 0, INFINITY, 0.25, 0.5 },
    { 1e200, -3e199, 7e199, 1e-300, 5e199, -1e200 },
    { 0.7, 0.2, 0.9, 0.4, 0.6, 0.1 },
  };
  double a[6], b[6], m, s;
  mpfr_ptr rm = tu_mp_vec_new (6, PREC), am = tu_mp_vec_new (6, PREC);
  for (size_t j = 0; j < sizeof rs / sizeof rs[0]; j++)
    for (size_t k = 0; k < NCONV; k++)
      for (size_t G = 1; G <= 3; G += 2)
        {
          const rlref_adv_convention *c = conv (names[k]);
          int st = rlref_grpo_adv_d (a, rs[j], 6, G, c);
          if (st != RLREF_SUCCESS)
            continue;           /* refused: NaN, inf, a group of one, binary32 range */
          memcpy (b, rs[j], sizeof b);
          TU_OK (rlref_grpo_adv_d (b, b, 6, G, c));
          for (int i = 0; i < 6; i++)
            ck_assert_msg (tu_same_double (b[i], a[i]), "%s G %zu [%d]: %a vs %a", names[k], G,
                           i, b[i], a[i]);
          for (int i = 0; i < 6; i++)
            mpfr_set_d (rm + i, rs[j][i], MPFR_RNDN);
          TU_OK (rlref_grpo_adv_mp (am, rm, 6, G, c));
          TU_OK (rlref_grpo_adv_mp (rm, rm, 6, G, c));
          for (int i = 0; i < 6; i++)
            ck_assert_msg (mpfr_equal_p (rm + i, am + i) || (mpfr_nan_p (rm + i)
                                                             && mpfr_nan_p (am + i)),
                           "%s G %zu [%d] in place (mp)", names[k], G, i);
        }
  TU_OK (rlref_grpo_group_stats_d (&m, &s, rs[1], 6, conv ("seed-003")));
  memcpy (b, rs[1], sizeof b);
  TU_OK (rlref_grpo_group_stats_d (b, b + 1, b, 6, conv ("seed-003")));
  TU_ASSERT_SAME (b[0], m);
  TU_ASSERT_SAME (b[1], s);
  for (int i = 0; i < 6; i++)
    mpfr_set_d (rm + i, rs[1][i], MPFR_RNDN);
  TU_OK (rlref_grpo_group_stats_mp (am, am + 1, rm, 6, conv ("seed-003")));
  TU_OK (rlref_grpo_group_stats_mp (rm, rm + 1, rm, 6, conv ("seed-003")));
  ck_assert (mpfr_equal_p (rm, am) && mpfr_equal_p (rm + 1, am + 1));
  tu_mp_vec_free (rm, 6);
  tu_mp_vec_free (am, 6);
}
END_TEST

/* ===== the two backends ================================================ */

/* Draws rewards of one of three kinds: uniform [0,1), binary {0,1}, or
 * 1e4 + uniform [0,1). */
static void
draw_rewards (gsl_rng *rng, double *r, size_t N, int kind)
{
  for (size_t i = 0; i < N; i++)
    r[i] = kind == 0 ? gsl_rng_uniform (rng)
         : kind == 1 ? (double) gsl_rng_uniform_int (rng, 2)
         : 1e4 + gsl_rng_uniform (rng);
}

/* Seeded: 300 batches of two groups (G in 2..8, three kinds of rewards)
 * under every convention.  Binary32 convention: the MPFR result rounded
 * to double is bit-identical to the binary64 one.  Others: |A_d - A_mp|
 * <= 32 eps (|A_mp| + max|r| / (std + eps)), the first-order rounding
 * noise of (r - mean)/(std + eps) (~1e-15 relative where rewards are of
 * the size of their spread); an exact 0 must be exact in both. */
/* grpo_adv_ws: the values of grpo_adv under every convention, and, once
 * the pool has grown, no allocation in binary64 over 2000 more calls on
 * batches of the same shape; in MPFR a workspace of another precision is
 * refused. */
START_TEST (test_workspace_no_allocation)
{
  gsl_rng *rng = tu_rng_new ();
  rlref_ws *ws = rlref_ws_new (53), *wm = rlref_ws_new (PREC), *w2 = rlref_ws_new (PREC + 64);
  double r[32], a[32], b[32];
  mpfr_ptr am = tu_mp_vec_new (32, PREC), bm = tu_mp_vec_new (32, PREC), rm = tu_mp_vec_new (32, PREC);
  size_t nalloc = 0;
  ck_assert_ptr_nonnull (ws);
  for (int t = 0; t < 2001; t++)
    {
      draw_rewards (rng, r, 32, 0);
      for (size_t k = 0; k < rlref_adv_num_conventions; k++)
        {
          const rlref_adv_convention *c = &rlref_adv_conventions[k];
          int s1 = rlref_grpo_adv_d (a, r, 32, 8, c), s2 = rlref_grpo_adv_ws_d (b, r, 32, 8, c, ws);
          ck_assert_int_eq (s1, s2);
          for (size_t i = 0; s1 == RLREF_SUCCESS && i < 32; i++)
            ck_assert_msg (tu_same_double (a[i], b[i]), "%s: %a vs %a", c->name, a[i], b[i]);
        }
      if (t == 0)
        nalloc = rlref_ws_nalloc (ws);
    }
  ck_assert_uint_eq (rlref_ws_nalloc (ws), nalloc);
  ck_assert_uint_le (nalloc, 2);
  for (size_t i = 0; i < 32; i++)
    mpfr_set_d (rm + i, r[i], MPFR_RNDN);
  for (size_t k = 0; k < rlref_adv_num_conventions; k++)
    {
      const rlref_adv_convention *c = &rlref_adv_conventions[k];
      int s1 = rlref_grpo_adv_mp (am, rm, 32, 8, c), s2 = rlref_grpo_adv_ws_mp (bm, rm, 32, 8, c, wm);
      ck_assert_int_eq (s1, s2);
      for (size_t i = 0; s1 == RLREF_SUCCESS && i < 32; i++)
        ck_assert (mpfr_equal_p (am + i, bm + i) || (mpfr_nan_p (am + i) && mpfr_nan_p (bm + i)));
    }
  ck_assert_int_eq (rlref_grpo_adv_ws_mp (bm, rm, 32, 8, conv ("trl"), w2), RLREF_EINVAL);
  tu_mp_vec_free (am, 32);
  tu_mp_vec_free (bm, 32);
  tu_mp_vec_free (rm, 32);
  rlref_ws_free (ws);
  rlref_ws_free (wm);
  rlref_ws_free (w2);
  gsl_rng_free (rng);
}
END_TEST

START_TEST (test_random_d_vs_mp)
{
  gsl_rng *rng = tu_rng_new ();
  double r[16], a[16];
  mpfr_ptr am = tu_mp_vec_new (16, PREC);
  for (int t = 0; t < 300; t++)
    {
      size_t G = 2 + gsl_rng_uniform_int (rng, 7), N = 2 * G;
      int kind = t % 3;
      draw_rewards (rng, r, N, kind);
      for (size_t k = 0; k < NCONV; k++)
        {
          const rlref_adv_convention *c = conv (names[k]);
          int st;
          TU_OK (run_both (c, r, N, G, a, am, &st));
          TU_OK (st);
          for (size_t g = 0; g < N; g += G)
            {
              double m = 0, v = 0, rmax = 0, scale;
              for (size_t i = g; i < g + G; i++)
                m += r[i] / (double) G;
              for (size_t i = g; i < g + G; i++)
                {
                  v += (r[i] - m) * (r[i] - m) / (double) (G - 1);
                  rmax = fmax (rmax, fabs (r[i]));
                }
              scale = (c->scale == RLREF_SCALE_NONE) ? rmax
                : (sqrt (v) + c->eps > 0 ? rmax / (sqrt (v) + c->eps) : 0.0);
              if (c->scale == RLREF_SCALE_BATCH_STD)
                {
                  /* the std of all N rewards */
                  double mb = 0, vb = 0;
                  for (size_t i = 0; i < N; i++)
                    mb += r[i] / (double) N;
                  for (size_t i = 0; i < N; i++)
                    vb += (r[i] - mb) * (r[i] - mb) / (double) (N - 1);
                  scale = rmax / (sqrt (vb) + c->eps);
                }
              for (size_t i = g; i < g + G; i++)
                {
                  double want = mpfr_get_d (am + i, MPFR_RNDN);
                  if (is_f32 (c))
                    ck_assert_msg (tu_same_double (a[i], want),
                                   "%s: binary32 %a vs %a (kind %d, G %zu)", names[k], a[i],
                                   want, kind, G);
                  else if (want == 0.0 || a[i] == 0.0)
                    ck_assert_msg (want == 0.0 && a[i] == 0.0, "%s: %.17g vs %.17g",
                                   names[k], a[i], want);
                  else
                    {
                      double err = fabs (a[i] - want) / (fabs (want) + scale);
                      ck_assert_msg (err <= 32 * DBL_EPSILON,
                                     "%s: %.17g vs %.17g (kind %d, G %zu, %.1f eps)",
                                     names[k], a[i], want, kind, G, err / DBL_EPSILON);
                    }
                }
            }
        }
    }
  tu_mp_vec_free (am, 16);
  gsl_rng_free (rng);
}
END_TEST

/* The binary32 emulation gives bit-identical results in both backends on
 * fixed groups (detectors, a 1e8 offset, small values, a mix of signs). */
START_TEST (test_f32_bit_identical)
{
  static const double groups[][4] = {
    { 1, 0, 0, 0 }, { 10000, 10001, 10000.5, 9999.25 }, { 1e8, 1e8 + 1, 1e8 + 2, 1e8 + 3 },
    { 0.1, 0.2, 0.3, 0.4 }, { -3.75, 2.5, 1e-3, 7.0 }, { 1e-5, 2e-5, 3e-5, 5e-5 },
  };
  const rlref_adv_convention *c = conv ("verl-vectorized-old");
  double a[4];
  mpfr_ptr am = tu_mp_vec_new (4, PREC);
  for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++)
    {
      int st;
      TU_OK (run_both (c, groups[k], 4, 4, a, am, &st));
      TU_OK (st);
      for (int i = 0; i < 4; i++)
        {
          ck_assert_msg (mpfr_cmp_d (am + i, a[i]) == 0, "group %zu [%d]: %a vs %s", k, i,
                         a[i], tu_mp_str (am + i));
          ck_assert ((double) (float) a[i] == a[i]);
        }
    }
  tu_mp_vec_free (am, 4);
}
END_TEST

/* Rewards in binary32's subnormal range, [1e-40, 0, 3e-41] (f32: 0x1.16c2p-133,
 * 0, 0x1.4e84p-135, on the grid of 2^-149), under both binary32
 * conventions: the exact binary32 results of the emulations, in both
 * backends.  The old verl's squares underflow to 0, its variance is
 * floored at 1e-6 (std 1e-3); TRL's std is 0, so A = (x - mean)/1e-4. */
START_TEST (test_f32_subnormal)
{
  static const double r[3] = { 1e-40, 0.0, 3e-41 };
  static const struct { const char *conv; const char *a[3]; } t[] = {
    { "verl-vectorized-old", RV_GRPO_F32_SUBNORMAL_VERL_VECTORIZED_OLD },
    { "trl-float32", RV_GRPO_F32_SUBNORMAL_TRL_FLOAT32 },
  };
  double a[3];
  mpfr_ptr am = tu_mp_vec_new (3, PREC);
  int st;
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
    {
      TU_OK (run_both (conv (t[k].conv), r, 3, 3, a, am, &st));
      TU_OK (st);
      for (int i = 0; i < 3; i++)
        {
          const double w = tu_d (t[k].a[i]);
          ck_assert ((double) (float) w == w && w != 0.0);
          TU_ASSERT_SAME (a[i], w);
          ck_assert_msg (mpfr_cmp_d (am + i, w) == 0, "%s [%d]: %s, expected %a", t[k].conv, i,
                         tu_mp_str (am + i), w);
        }
    }
  tu_mp_vec_free (am, 3);
}
END_TEST

/* Constant groups whose mean is not representable ([0.1]x3, [0.7]x5,
 * [1e-3]x7, [10000.1]x3, [0.3]x6) have zero variance: exactly 0 under
 * every convention in both backends -- except [0.3]x6 under the binary32
 * conventions, whose binary32 mean is not f32(0.3): the old verl gives
 * 2.98e-05, TRL in float32 2.98e-04 (the binary32 emulations,
 * RV_GRPO_CONST_0P3_*); group stats give std exactly 0. */
START_TEST (test_zero_variance_nonrepresentable_mean)
{
  static const struct { double v; size_t G; } g[] = {
    { 0.1, 3 }, { 0.7, 5 }, { 1e-3, 7 }, { 10000.1, 3 }, { 0.3, 6 },
  };
  static const char *const w_trl[6] = RV_GRPO_CONST_0P3_TRL_FLOAT32;
  static const char *const w_old[6] = RV_GRPO_CONST_0P3_VERL_VECTORIZED_OLD;
  double r[8], a[8], m, s;
  mpfr_ptr am = tu_mp_vec_new (8, PREC);
  mpfr_t mm, sm;
  mpfr_inits2 (PREC, mm, sm, (mpfr_ptr) 0);
  for (size_t j = 0; j < sizeof g / sizeof g[0]; j++)
    {
      mpfr_ptr rm;
      for (size_t i = 0; i < g[j].G; i++)
        r[i] = g[j].v;
      rm = tu_mp_vec_from_d (r, g[j].G, PREC);
      for (size_t k = 0; k < NCONV; k++)
        {
          const rlref_adv_convention *c = conv (names[k]);
          int st;
          TU_OK (run_both (c, r, g[j].G, g[j].G, a, am, &st));
          TU_OK (st);
          if (c->scale == RLREF_SCALE_F32_STATS)
            continue;           /* binary32 mean, float64 differences: test_verl_f32_stats */
          for (size_t i = 0; i < g[j].G; i++)
            {
              double want = !is_f32 (c) || g[j].v != 0.3 ? 0.0
                : tu_d (c->scale == RLREF_SCALE_F32_TRL ? w_trl[i] : w_old[i]);
              ck_assert_msg (a[i] == want && mpfr_cmp_d (am + i, want) == 0,
                             "%s on [%g] x %zu: %a / %s, expected %a", names[k], g[j].v,
                             g[j].G, a[i], tu_mp_str (am + i), want);
            }
          TU_OK (rlref_grpo_group_stats_d (&m, &s, r, g[j].G, c));
          ck_assert_msg (s == 0.0, "%s std %g", names[k], s);
          TU_OK (rlref_grpo_group_stats_mp (mm, sm, rm, g[j].G, c));
          ck_assert_msg (mpfr_zero_p (sm), "%s std %s", names[k], tu_mp_str (sm));
        }
      tu_mp_vec_free (rm, g[j].G);
    }
  tu_mp_vec_free (am, 8);
  mpfr_clears (mm, sm, (mpfr_ptr) 0);
}
END_TEST

/* verl's old vectorised estimator on float64 scores (RLREF_SCALE_F32_STATS):
 * the binary32 mean and std of verl-vectorized-old, the differences and
 * the quotient unrounded.  [1, 0, 0, 0]: mean 0.25 and std 0.5 are exact
 * in binary32, d = f32(0.5 + f32(1e-6)) = 0.5 + 17 2^-24, and A = 0.75/d,
 * -0.25/d (binary64: the recorded verl values 1.4999969601692769 and
 * -0.4999989867230923); [0.1, 0.1, 0.1]: (0.1 - f32 mean)/d = -1.49e-6, not
 * 0; a group of one r/f32(1 + f32(1e-6)); 1e20 (s2 beyond binary32) and
 * 1e39 (beyond binary32) ERANGE. */
START_TEST (test_verl_f32_stats)
{
  const rlref_adv_convention *c = conv ("verl-vectorized-old-float64");
  const double r1[4] = { 1, 0, 0, 0 }, r2[3] = { 0.1, 0.1, 0.1 }, r3[1] = { 0.5 };
  const double big[2] = { 1e20, 0 }, beyond[2] = { 1e39, 0 };
  double a[4], d = 0.5 + 17 * 0x1p-24, m32;
  mpfr_ptr am = tu_mp_vec_new (4, PREC);
  mpfr_t w;
  int st;
  mpfr_init2 (w, PREC);
  ck_assert (c->scale == RLREF_SCALE_F32_STATS && c->single == RLREF_SINGLE_RAW);
  ck_assert ((double) (float) (0.5 + (float) 1e-6) == d);
  TU_OK (run_both (c, r1, 4, 4, a, am, &st));
  TU_OK (st);
  TU_ASSERT_SAME (a[0], 1.4999969601692769);
  TU_ASSERT_SAME (a[1], -0.4999989867230923);
  mpfr_set_d (w, 0.75, MPFR_RNDN);
  mpfr_div_d (w, w, d, MPFR_RNDN);
  ck_assert (mpfr_equal_p (am, w));
  /* [0.1]x3: the binary32 mean of three f32(0.1), beside the float64 0.1 */
  m32 = (double) (float) ((float) ((float) 0.1f + 0.1f) + 0.1f);
  m32 = (double) (float) (m32 / 3);
  TU_OK (run_both (c, r2, 3, 3, a, am, &st));
  TU_OK (st);
  for (int i = 0; i < 3; i++)
    {
      double want = (0.1 - m32) / ((double) (float) (0.001 + (float) 1e-6));
      TU_ASSERT_SAME (a[i], want);
      ck_assert (a[i] < -1e-6 && a[i] > -2e-6);
      ck_assert (tu_rel_err (mpfr_get_d (am + i, MPFR_RNDN), want) <= TU_TOL1);
    }
  TU_OK (run_both (c, r3, 1, 1, a, am, &st));
  TU_OK (st);
  TU_ASSERT_SAME (a[0], 0.5 / (double) (1.0f + (float) 1e-6));
  TU_ASSERT_STATUS (run_both (c, big, 2, 2, a, am, &st), RLREF_ERANGE);
  TU_ASSERT_STATUS (st, RLREF_ERANGE);
  TU_ASSERT_STATUS (run_both (c, beyond, 2, 2, a, am, &st), RLREF_ERANGE);
  TU_ASSERT_STATUS (st, RLREF_ERANGE);
  mpfr_clear (w);
  tu_mp_vec_free (am, 4);
}
END_TEST

static Suite *
grpo_suite (void)
{
  Suite *s = suite_create ("grpo");
  TCase *tc;

  tc = tu_tcase ("conventions");
  tcase_add_test (tc, test_conventions_listed);
  tcase_add_test (tc, test_workspace_no_allocation);
  tcase_add_test (tc, test_convention_parameters);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("detectors");
  tcase_add_test (tc, test_detector_one_of_four);
  tcase_add_test (tc, test_detector_small_spread);
  tcase_add_test (tc, test_detector_large_offset);
  tcase_add_test (tc, test_group_of_one);
  tcase_add_test (tc, test_batch_std_groups_of_one);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("seeds");
  tcase_add_test (tc, test_seed000_example);
  tcase_add_test (tc, test_all_equal_is_zero);
  tcase_add_test (tc, test_seed003_example);
  tcase_add_test (tc, test_seed001_eps_threshold);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("libraries");
  tcase_add_test (tc, test_trl_infinite_reward);
  tcase_add_test (tc, test_trl_float32);
  tcase_add_test (tc, test_batch_std_trl_rules);
  tcase_add_test (tc, test_seed000_code);
  tcase_add_test (tc, test_verl_vectorized_order);
  tcase_add_test (tc, test_verl_f32_stats);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("range");
  tcase_add_test (tc, test_range_opposite_rewards);
  tcase_add_test (tc, test_range_mixed_magnitudes);
  tcase_add_test (tc, test_range_no_std);
  tcase_add_test (tc, test_range_group_stats);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("exact sums");
  tcase_add_test (tc, test_exact_wide_spread);
  tcase_add_test (tc, test_exact_small_beside_large);
  tcase_add_test (tc, test_exact_three_words);
  tcase_add_test (tc, test_exact_group_stats);
  tcase_add_test (tc, test_exact_random_cancellation);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("errors");
  tcase_add_test (tc, test_trl_nan_skipped);
  tcase_add_test (tc, test_non_finite_refused);
  tcase_add_test (tc, test_bad_sizes);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("structure");
  tcase_add_test (tc, test_groups_independent);
  tcase_add_test (tc, test_aliasing_edges);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("backends");
  tcase_add_test (tc, test_random_d_vs_mp);
  tcase_add_test (tc, test_f32_bit_identical);
  tcase_add_test (tc, test_f32_subnormal);
  tcase_add_test (tc, test_zero_variance_nonrepresentable_mean);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (grpo_suite)
