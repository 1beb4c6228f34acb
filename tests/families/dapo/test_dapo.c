/* test_dapo.c -- DAPO: the objective with token-level normalisation
 * (13.29) and its gradient, the decoupled clip (13.31), the keep rules and
 * the refill accounting of dynamic sampling (13.30), sample- against
 * token-level weights (13.32, 13.33) and the soft overlong penalty (13.34);
 * binary64 (_d) and MPFR (_mp).
 *
 * Expected values: the numbers of CONVENTIONS.md and FORMULAS.md (the
 * overlong detector, 100 and 1000 tokens); exact quotients of integers;
 * closed forms evaluated here with MPFR at 512 bits from the exact binary64
 * inputs; the expected rounds of verl's refill from a recursion on the
 * groups still missing (a different computation from the library's sum
 * over rounds); central differences at 256 bits for the gradient. */
#include "testutil.h"

#define PREC 256
#define REF_PREC 512

static const rlref_adv_convention *
adv_conv (const char *name)
{
  const rlref_adv_convention *c = rlref_adv_convention_find (name);
  ck_assert_ptr_nonnull (c);
  return c;
}

/* ===== DAPO-OVERLONG ===================================================== */

/* CONVENTIONS.md: L_max 20480, L_cache 4096: 16000 -> 0, 18000 ->
 * -0.39453125, 20480 -> -1 in every reading; beyond L_max the paper and
 * OpenRLHF stay at -1, verl goes on (24576 -> -2).  All exact. */
START_TEST (test_overlong_detector)
{
  static const long L[5] = { 16000, 18000, 20480, 24576, 16385 };
  static const double want[3][5] = {
    { 0, -0.39453125, -1, -1, -1.0 / 4096 },
    { 0, -0.39453125, -1, -2, -1.0 / 4096 },
    { 0, -0.39453125, -1, -1, -1.0 / 4096 },
  };
  static const double filt[5] = { 1, 1, 0, 0, 1 };
  double pen[5], fil[5], one = 1.0;
  mpfr_ptr pm = tu_mp_vec_new (5, PREC), fm = tu_mp_vec_new (5, PREC);
  mpfr_t f;
  mpfr_init2 (f, PREC);
  mpfr_set_d (f, 1.0, MPFR_RNDN);
  for (int r = 0; r < 3; r++)
    {
      TU_OK (rlref_dapo_overlong_d (pen, fil, L, 5, 20480, 4096, (enum rlref_dapo_overlong) r,
                                    &one));
      TU_OK (rlref_dapo_overlong_mp (pm, fm, L, 5, 20480, 4096, (enum rlref_dapo_overlong) r,
                                     f));
      for (int i = 0; i < 5; i++)
        {
          TU_ASSERT_SAME (pen[i], want[r][i]);
          TU_ASSERT_SAME (fil[i], filt[i]);
          ck_assert (mpfr_cmp_d (pm + i, want[r][i]) == 0);
          ck_assert (mpfr_cmp_d (fm + i, filt[i]) == 0);
        }
    }
  tu_mp_vec_free (pm, 5);
  tu_mp_vec_free (fm, 5);
  mpfr_clear (f);
}
END_TEST

/* verl divides in float32: with L_cache = 3000, -520/3000 is the binary32
 * quotient (float) -520 / 3000.0f, in both backends, where OpenRLHF and the
 * paper give the binary64 one; OpenRLHF's L_cache = 0 penalises nothing;
 * an empty response under the sample-level mean over every response weighs
 * 0 and dilutes the other (1/(2 x 5)), over the non-empty ones it does not
 * (1/5). */
START_TEST (test_overlong_f32_and_empty)
{
  static const long L[3] = { 18000, 21000, 17000 }, L2[2] = { 20480, 20481 }, E[2] = { 5, 0 };
  double pen[3], one = 1.0, tw[2], rw[2];
  mpfr_ptr pm = tu_mp_vec_new (3, PREC);
  mpfr_t onem;
  mpfr_init2 (onem, PREC);
  mpfr_set_d (onem, 1.0, MPFR_RNDN);
  TU_OK (rlref_dapo_overlong_d (pen, NULL, L, 3, 20480, 3000, RLREF_DAPO_OVERLONG_VERL, &one));
  TU_ASSERT_SAME (pen[0], (double) (-520.0f / 3000.0f));
  TU_ASSERT_SAME (pen[1], (double) (-3520.0f / 3000.0f));
  TU_ASSERT_SAME (pen[2], 0.0);
  ck_assert (pen[0] != -520.0 / 3000.0);
  TU_OK (rlref_dapo_overlong_mp (pm, NULL, L, 3, 20480, 3000, RLREF_DAPO_OVERLONG_VERL, onem));
  ck_assert (mpfr_cmp_d (pm, (double) (-520.0f / 3000.0f)) == 0);
  TU_OK (rlref_dapo_overlong_d (pen, NULL, L, 3, 20480, 3000, RLREF_DAPO_OVERLONG_OPENRLHF,
                                &one));
  TU_ASSERT_SAME (pen[0], -520.0 / 3000.0);
  TU_ASSERT_SAME (pen[1], -1.0);
  TU_OK (rlref_dapo_overlong_d (pen, NULL, L2, 2, 20480, 0, RLREF_DAPO_OVERLONG_OPENRLHF, &one));
  ck_assert (pen[0] == 0.0 && pen[1] == 0.0);
  TU_OK (rlref_dapo_tokloss_conv_d (tw, rw, E, 2, RLREF_DAPO_SAMPLE_LEVEL,
                                    RLREF_DAPO_EMPTY_COUNT));
  ck_assert (tw[0] == 0.1 && rw[0] == 0.5 && tw[1] == 0 && rw[1] == 0);
  TU_OK (rlref_dapo_tokloss_conv_d (tw, rw, E, 2, RLREF_DAPO_SAMPLE_LEVEL,
                                    RLREF_DAPO_EMPTY_SKIP));
  ck_assert (tw[0] == 0.2 && rw[0] == 1.0 && tw[1] == 0 && rw[1] == 0);
  TU_OK (rlref_dapo_tokloss_conv_d (tw, rw, E, 2, RLREF_DAPO_TOKEN_LEVEL,
                                    RLREF_DAPO_EMPTY_COUNT));
  ck_assert (tw[0] == 0.2 && rw[0] == 1.0 && tw[1] == 0 && rw[1] == 0);
  TU_ASSERT_STATUS (rlref_dapo_tokloss_conv_d (tw, rw, E, 2, RLREF_DAPO_SAMPLE_LEVEL,
                                               RLREF_DAPO_EMPTY_REFUSE), RLREF_EDOM);
  {
    static const long Z[2] = { 0, 0 }, N[2] = { 5, -1 };
    TU_ASSERT_STATUS (rlref_dapo_tokloss_conv_d (tw, rw, Z, 2, RLREF_DAPO_TOKEN_LEVEL,
                                                 RLREF_DAPO_EMPTY_COUNT), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_dapo_tokloss_conv_d (tw, rw, N, 2, RLREF_DAPO_TOKEN_LEVEL,
                                                 RLREF_DAPO_EMPTY_SKIP), RLREF_EDOM);
  }
  mpfr_clear (onem);
  tu_mp_vec_free (pm, 3);
}
END_TEST

/* A factor 1/2: verl -0.197265625 at 18000 and -1 at 24576, OpenRLHF
 * -0.5 there; L_cache = 0 is a step for the paper and refused by the
 * libraries' readings. */
START_TEST (test_overlong_factor_and_cache0)
{
  static const long L[2] = { 18000, 24576 }, L2[2] = { 20480, 20481 };
  double pen[2], half = 0.5, one = 1.0;
  TU_OK (rlref_dapo_overlong_d (pen, NULL, L, 2, 20480, 4096, RLREF_DAPO_OVERLONG_VERL, &half));
  TU_ASSERT_SAME (pen[0], -0.197265625);
  TU_ASSERT_SAME (pen[1], -1.0);
  TU_OK (rlref_dapo_overlong_d (pen, NULL, L, 2, 20480, 4096, RLREF_DAPO_OVERLONG_OPENRLHF,
                                &half));
  TU_ASSERT_SAME (pen[0], -0.197265625);
  TU_ASSERT_SAME (pen[1], -0.5);
  TU_OK (rlref_dapo_overlong_d (pen, NULL, L2, 2, 20480, 0, RLREF_DAPO_OVERLONG_PAPER, NULL));
  TU_ASSERT_SAME (pen[0], 0.0);
  TU_ASSERT_SAME (pen[1], -1.0);
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, L2, 2, 20480, 0, RLREF_DAPO_OVERLONG_VERL,
                                           &one), RLREF_EDOM);
}
END_TEST

START_TEST (test_overlong_bad)
{
  static const long L[2] = { 100, -5 }, ok[1] = { 100 };
  double pen[2], one = 1.0, neg = -1.0, nan = NAN;
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, L, 2, 20480, 4096,
                                           RLREF_DAPO_OVERLONG_PAPER, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, ok, 1, 20480, 30000,
                                           RLREF_DAPO_OVERLONG_PAPER, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, ok, 1, 20480, -1,
                                           RLREF_DAPO_OVERLONG_PAPER, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, ok, 1, 0, 0,
                                           RLREF_DAPO_OVERLONG_PAPER, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, ok, 0, 20480, 4096,
                                           RLREF_DAPO_OVERLONG_PAPER, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, ok, 1, 20480, 4096,
                                           RLREF_DAPO_OVERLONG_VERL, &neg), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, ok, 1, 20480, 4096,
                                           RLREF_DAPO_OVERLONG_OPENRLHF, &nan), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dapo_overlong_d (pen, NULL, ok, 1, 20480, 4096,
                                           RLREF_DAPO_OVERLONG_VERL, NULL), RLREF_EINVAL);
  (void) one;
}
END_TEST

/* ===== DAPO-TOKLOSS ======================================================= */

/* 100 and 1000 tokens: 1/200 and 1/2000 (10:1) under 13.32; 1/1100 each
 * under 13.33, the long answer 1000/1100.  The weights of every token add
 * up to 1 under both. */
START_TEST (test_tokloss)
{
  static const long L[2] = { 100, 1000 }, L5[5] = { 1, 3, 7, 2, 11 };
  double tw[5], rw[5];
  mpfr_ptr twm = tu_mp_vec_new (2, PREC), rwm = tu_mp_vec_new (2, PREC);
  mpfr_t s, t;
  TU_OK (rlref_dapo_tokloss_d (tw, rw, L, 2, RLREF_DAPO_SAMPLE_LEVEL));
  TU_ASSERT_SAME (tw[0], 1.0 / 200);
  TU_ASSERT_SAME (tw[1], 1.0 / 2000);
  TU_ASSERT_SAME (rw[0], 0.5);
  TU_ASSERT_SAME (rw[1], 0.5);
  TU_OK (rlref_dapo_tokloss_d (tw, rw, L, 2, RLREF_DAPO_TOKEN_LEVEL));
  TU_ASSERT_SAME (tw[0], 1.0 / 1100);
  TU_ASSERT_SAME (tw[1], 1.0 / 1100);
  TU_ASSERT_SAME (rw[1], 1000.0 / 1100);
  TU_ASSERT_REL (rw[1], 0.9090909090909091, TU_TOL0);
  TU_OK (rlref_dapo_tokloss_mp (twm, rwm, L, 2, RLREF_DAPO_TOKEN_LEVEL));
  TU_ASSERT_MP_STR (rwm + 1, "0.90909090909090909090909090909090909090909090909090909090909090909090909090909091", 70);
  tu_mp_vec_free (twm, 2);
  tu_mp_vec_free (rwm, 2);
  /* sum_i |y_i| token_weight[i] = 1 = sum_i response_weight[i], at 256 bits */
  twm = tu_mp_vec_new (5, PREC);
  rwm = tu_mp_vec_new (5, PREC);
  mpfr_inits2 (PREC, s, t, (mpfr_ptr) 0);
  for (int norm = 0; norm < 2; norm++)
    {
      TU_OK (rlref_dapo_tokloss_mp (twm, rwm, L5, 5, (enum rlref_dapo_norm) norm));
      mpfr_set_zero (s, 1);
      for (int i = 0; i < 5; i++)
        {
          mpfr_mul_si (t, twm + i, L5[i], MPFR_RNDN);
          mpfr_add (s, s, t, MPFR_RNDN);
          TU_ASSERT_MP_AGREE (t, rwm + i, 70);
        }
      TU_ASSERT_MP_STR (s, "1", 70);
    }
  mpfr_clears (s, t, (mpfr_ptr) 0);
  tu_mp_vec_free (twm, 5);
  tu_mp_vec_free (rwm, 5);
  {
    static const long bad0[2] = { 5, 0 }, badn[2] = { 5, -2 };
    TU_ASSERT_STATUS (rlref_dapo_tokloss_d (tw, rw, bad0, 2, RLREF_DAPO_TOKEN_LEVEL), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_dapo_tokloss_d (tw, rw, badn, 2, RLREF_DAPO_SAMPLE_LEVEL), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_dapo_tokloss_d (tw, rw, L, 0, RLREF_DAPO_SAMPLE_LEVEL), RLREF_EINVAL);
  }
}
END_TEST

/* ===== DAPO-DYNSAMPLE: keep rules ======================================== */

START_TEST (test_keep_rules)
{
  /* groups of two: [0.5, 0.5], [1, 2], [0.25, 0.75], [1, 0] */
  static const double r[8] = { 0.5, 0.5, 1, 2, 0.25, 0.75, 1, 0 };
  static const double want[3][4] = {
    { 0, 1, 1, 1 },             /* verl: std > 0 */
    { 1, 0, 1, 1 },             /* OpenRLHF: 0 < mean < 1 */
    { 0, 0, 0, 1 },             /* seed: 0 < #positive < 2 */
  };
  double keep[8], mean[8], sd[8];
  size_t kept;
  for (int rule = 0; rule < 3; rule++)
    {
      TU_OK (rlref_dapo_keep_d (keep, mean, sd, &kept, r, 8, 2, (enum rlref_dapo_keep) rule));
      for (int g = 0; g < 4; g++)
        {
          TU_ASSERT_SAME (keep[2 * g], want[rule][g]);
          TU_ASSERT_SAME (keep[2 * g + 1], want[rule][g]);
        }
      ck_assert_uint_eq (kept, (size_t) (want[rule][0] + want[rule][1] + want[rule][2]
                                         + want[rule][3]));
    }
  TU_ASSERT_SAME (mean[2], 1.5);
  TU_ASSERT_SAME (sd[2], 0.5);
  TU_ASSERT_SAME (sd[0], 0.0);
  /* DAPO's +-1 rewards: one correct of four has mean -1/2 */
  {
    static const double pm[8] = { -1, -1, -1, 1, -1, 1, 1, 1 };
    TU_OK (rlref_dapo_keep_d (keep, NULL, NULL, &kept, pm, 8, 4, RLREF_DAPO_KEEP_MEAN));
    TU_ASSERT_SAME (keep[0], 0.0);
    TU_ASSERT_SAME (keep[4], 1.0);
    TU_OK (rlref_dapo_keep_d (keep, NULL, NULL, &kept, pm, 8, 4, RLREF_DAPO_KEEP_STD));
    ck_assert_uint_eq (kept, 2);
  }
  /* the mean an ulp below 1 rounds to 1 in binary64, but the exact rule
   * keeps the group in both backends */
  {
    static const double near1[2] = { 1.0, 0x1.fffffffffffffp-1 };
    mpfr_ptr rm = tu_mp_vec_from_d (near1, 2, PREC), km = tu_mp_vec_new (2, PREC);
    TU_OK (rlref_dapo_keep_d (keep, mean, NULL, &kept, near1, 2, 2, RLREF_DAPO_KEEP_MEAN));
    TU_ASSERT_SAME (keep[0], 1.0);
    TU_OK (rlref_dapo_keep_mp (km, NULL, NULL, &kept, rm, 2, 2, RLREF_DAPO_KEEP_MEAN));
    ck_assert (mpfr_cmp_ui (km, 1) == 0);
    tu_mp_vec_free (rm, 2);
    tu_mp_vec_free (km, 2);
  }
  /* groups of one: verl keeps them */
  TU_OK (rlref_dapo_keep_d (keep, NULL, NULL, &kept, r, 2, 1, RLREF_DAPO_KEEP_STD));
  ck_assert_uint_eq (kept, 2);
  TU_OK (rlref_dapo_keep_d (keep, NULL, NULL, &kept, r + 6, 2, 1, RLREF_DAPO_KEEP_MEAN));
  ck_assert_uint_eq (kept, 0);
  TU_ASSERT_STATUS (rlref_dapo_keep_d (keep, NULL, NULL, &kept, r, 3, 2, RLREF_DAPO_KEEP_STD),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dapo_keep_d (keep, NULL, NULL, &kept, r, 2, 0, RLREF_DAPO_KEEP_STD),
                    RLREF_EDOM);
  {
    double bad[2] = { 1, NAN };
    TU_ASSERT_STATUS (rlref_dapo_keep_d (keep, NULL, NULL, &kept, bad, 2, 2,
                                         RLREF_DAPO_KEEP_STD), RLREF_ENAN);
  }
}
END_TEST

/* ===== DAPO-DYNSAMPLE: refill ============================================= */

/* E[rounds] by a recursion on the groups still missing: from d missing,
 * a round of M keeps k ~ Bin(M, q), so E_d = (1 + sum_{k >= 1} P(k)
 * E_{max(d - k, 0)})/(1 - P(0)), E_0 = 0; at REF_PREC. */
static void
ref_rounds (mpfr_ptr out, double p, long G, long B, long M)
{
  mpfr_t q, d, pk, c, t, *E;
  mpz_t z;
  mpz_init (z);
  E = malloc ((size_t) (B + 1) * sizeof *E);
  ck_assert_ptr_nonnull (E);
  mpfr_inits2 (REF_PREC, q, d, pk, c, t, (mpfr_ptr) 0);
  /* q = 1 - p^G - (1 - p)^G, exact inputs */
  mpfr_set_d (t, p, MPFR_RNDN);
  mpfr_pow_si (q, t, G, MPFR_RNDN);
  mpfr_ui_sub (t, 1, t, MPFR_RNDN);
  mpfr_pow_si (t, t, G, MPFR_RNDN);
  mpfr_add (q, q, t, MPFR_RNDN);
  mpfr_ui_sub (q, 1, q, MPFR_RNDN);
  mpfr_ui_sub (d, 1, q, MPFR_RNDN);
  for (long k = 0; k <= B; k++)
    mpfr_init2 (E[k], REF_PREC);
  mpfr_set_zero (E[0], 1);
  for (long m = 1; m <= B; m++)
    {
      mpfr_set_ui (E[m], 1, MPFR_RNDN);
      for (long k = 1; k <= M; k++)
        {
          mpz_bin_uiui (z, (unsigned long) M, (unsigned long) k);
          mpfr_set_z (c, z, MPFR_RNDN);                  /* C(M, k), exact */
          mpfr_pow_si (pk, q, k, MPFR_RNDN);
          mpfr_mul (pk, pk, c, MPFR_RNDN);
          mpfr_pow_si (t, d, M - k, MPFR_RNDN);
          mpfr_mul (pk, pk, t, MPFR_RNDN);
          mpfr_mul (pk, pk, E[m - k > 0 ? m - k : 0], MPFR_RNDN);
          mpfr_add (E[m], E[m], pk, MPFR_RNDN);
        }
      mpfr_pow_si (t, d, M, MPFR_RNDN);
      mpfr_ui_sub (t, 1, t, MPFR_RNDN);
      mpfr_div (E[m], E[m], t, MPFR_RNDN);
    }
  mpfr_set (out, E[B], MPFR_RNDN);
  for (long k = 0; k <= B; k++)
    mpfr_clear (E[k]);
  free (E);
  mpfr_clears (q, d, pk, c, t, (mpfr_ptr) 0);
  mpz_clear (z);
}

START_TEST (test_refill)
{
  /* the last: 16384 rounds, whose d^n = (1 - 2^-15)^n rounded before the
   * power, and whose sum a term at a time, were 1e-12 off in binary64 */
  static const struct { double p; long G, B, M; } cs[5] = {
    { 0.5, 8, 4, 8 }, { 0.05, 8, 32, 64 }, { 0.98, 16, 16, 32 }, { 0.01, 16, 8, 16 },
    { 0x1p-19, 16, 16, 32 },
  };
  for (int i = 0; i < 5; i++)
    {
      double qd, rd, gd, p = cs[i].p;
      mpfr_t pm, qm, rm, gm, want;
      mpfr_inits2 (PREC, pm, qm, rm, gm, (mpfr_ptr) 0);
      mpfr_init2 (want, REF_PREC);
      mpfr_set_d (pm, p, MPFR_RNDN);
      TU_OK (rlref_dapo_refill_mp (qm, rm, gm, pm, cs[i].G, cs[i].B, cs[i].M,
                                   RLREF_DAPO_REFILL_BATCH, 1));
      ref_rounds (want, p, cs[i].G, cs[i].B, cs[i].M);
      TU_ASSERT_MP_AGREE (rm, want, 70);
      mpfr_mul_si (want, want, cs[i].M, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (gm, want, 70);
      TU_OK (rlref_dapo_refill_d (&qd, &rd, &gd, &p, cs[i].G, cs[i].B, cs[i].M,
                                  RLREF_DAPO_REFILL_BATCH, 1));
      TU_ASSERT_REL (rd, mpfr_get_d (rm, MPFR_RNDN), TU_TOL2);
      TU_ASSERT_REL (qd, mpfr_get_d (qm, MPFR_RNDN), TU_TOL1);
      /* prompt by prompt: B/q */
      TU_OK (rlref_dapo_refill_mp (qm, NULL, gm, pm, cs[i].G, cs[i].B, 0,
                                   RLREF_DAPO_REFILL_PROMPT, 0));
      mpfr_set_si (want, cs[i].B, MPFR_RNDN);
      mpfr_div (want, want, qm, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (gm, want, 70);
      mpfr_clears (pm, qm, rm, gm, want, (mpfr_ptr) 0);
    }
  {
    double q, r, g, p = 0.5, bad = 1.5, nan = NAN, one = 1.0;
    /* groups of one always kept (verl): ceil(5/2) rounds */
    TU_OK (rlref_dapo_refill_d (&q, &r, &g, &p, 1, 5, 2, RLREF_DAPO_REFILL_BATCH, 1));
    TU_ASSERT_SAME (q, 1.0);
    TU_ASSERT_SAME (r, 3.0);
    TU_ASSERT_SAME (g, 6.0);
    /* p = 1/2, G = 2: q = 1/2 exactly, B/q = 2B */
    TU_OK (rlref_dapo_refill_d (&q, NULL, &g, &p, 2, 7, 0, RLREF_DAPO_REFILL_PROMPT, 0));
    TU_ASSERT_SAME (q, 0.5);
    TU_ASSERT_SAME (g, 14.0);
    TU_ASSERT_STATUS (rlref_dapo_refill_d (&q, NULL, &g, &p, 1, 4, 0,
                                           RLREF_DAPO_REFILL_PROMPT, 0), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_dapo_refill_d (&q, &r, &g, &one, 8, 4, 8,
                                           RLREF_DAPO_REFILL_BATCH, 1), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_dapo_refill_d (&q, &r, &g, &bad, 8, 4, 8,
                                           RLREF_DAPO_REFILL_BATCH, 1), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_dapo_refill_d (&q, &r, &g, &nan, 8, 4, 8,
                                           RLREF_DAPO_REFILL_BATCH, 1), RLREF_ENAN);
    TU_ASSERT_STATUS (rlref_dapo_refill_d (&q, &r, &g, &p, 8, 0, 8,
                                           RLREF_DAPO_REFILL_BATCH, 1), RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_dapo_refill_d (&q, &r, &g, &p, 8, 4, 0,
                                           RLREF_DAPO_REFILL_BATCH, 1), RLREF_EDOM);
    /* q ~ 8e-300: some 1e299 rounds, refused before any is summed */
    {
      double tiny = 1e-300;
      TU_ASSERT_STATUS (rlref_dapo_refill_d (&q, &r, &g, &tiny, 8, 4, 8,
                                             RLREF_DAPO_REFILL_BATCH, 1), RLREF_EMAXITER);
    }
  }
}
END_TEST

/* ===== DAPO-OBJ and DAPO-CLIPHIGHER ======================================== */

/* Two responses of 2 and 3 tokens, rewards 1 and 0: A = +-1 at ddof 0
 * (seed 000); every ratio inside [0.8, 1.28], so J = (1/5) sum_t rho_t A_t
 * and dJ/dlogp_t = rho_t A_t / 5. */
static const double OL[5] = { -1, -0.3, -2, -0.9, 0.5 };
static const double OO[5] = { -1.1, -0.4, -1.9, -1, 0.25 };
static const long LEN[2] = { 2, 3 };
static const double REW[2] = { 1, 0 };

START_TEST (test_obj_closed_form)
{
  static const rlref_ppo_clip_convention plain = { .clamp_log_ratio = 0, .dual_clip = 0 };
  double J, adv[2], grad[5], cf, el = 0.2, eh = 0.28;
  mpfr_t Jm, cfm, elm, ehm, s, t, want;
  mpfr_ptr lm = tu_mp_vec_from_d (OL, 5, PREC), om = tu_mp_vec_from_d (OO, 5, PREC);
  mpfr_ptr rm = tu_mp_vec_from_d (REW, 2, PREC), am = tu_mp_vec_new (2, PREC);
  mpfr_ptr gm = tu_mp_vec_new (5, PREC);
  mpfr_inits2 (PREC, Jm, cfm, elm, ehm, (mpfr_ptr) 0);
  mpfr_inits2 (REF_PREC, s, t, want, (mpfr_ptr) 0);
  mpfr_set_d (elm, el, MPFR_RNDN);
  mpfr_set_d (ehm, eh, MPFR_RNDN);
  TU_OK (rlref_dapo_obj_mp (Jm, am, gm, cfm, lm, om, 5, LEN, rm, 2, adv_conv ("seed-000"),
                            &plain, elm, ehm, NULL));
  TU_OK (rlref_dapo_obj_d (&J, adv, grad, &cf, OL, OO, 5, LEN, REW, 2, adv_conv ("seed-000"),
                           &plain, &el, &eh, NULL));
  mpfr_set_zero (want, 1);
  for (int i = 0; i < 5; i++)
    {
      mpfr_set_d (t, OL[i], MPFR_RNDN);
      mpfr_sub_d (t, t, OO[i], MPFR_RNDN);                 /* exact */
      mpfr_exp (t, t, MPFR_RNDN);
      if (i >= 2)
        mpfr_neg (t, t, MPFR_RNDN);                        /* A = -1 */
      mpfr_add (want, want, t, MPFR_RNDN);
      mpfr_div_ui (t, t, 5, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (gm + i, t, 70);
      TU_ASSERT_REL (grad[i], mpfr_get_d (t, MPFR_RNDN), TU_TOL1);
    }
  mpfr_div_ui (want, want, 5, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (Jm, want, 70);
  TU_ASSERT_REL (J, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  TU_ASSERT_SAME (adv[0], 1.0);
  TU_ASSERT_SAME (adv[1], -1.0);
  TU_ASSERT_SAME (cf, 0.0);
  /* every reward equal: every advantage 0, J = 0 */
  {
    static const double same[2] = { 1, 1 };
    TU_OK (rlref_dapo_obj_d (&J, adv, grad, &cf, OL, OO, 5, LEN, same, 2,
                             adv_conv ("seed-000"), &plain, &el, &eh, NULL));
    TU_ASSERT_SAME (J, 0.0);
    TU_ASSERT_SAME (grad[3], 0.0);
  }
  mpfr_clears (Jm, cfm, elm, ehm, s, t, want, (mpfr_ptr) 0);
  tu_mp_vec_free (lm, 5);
  tu_mp_vec_free (om, 5);
  tu_mp_vec_free (rm, 2);
  tu_mp_vec_free (am, 2);
  tu_mp_vec_free (gm, 5);
}
END_TEST

/* The gradient of J under verl's convention (ddof 1, eps 1e-6, clamp,
 * dual clip c = 3) against central differences at 256 bits, step 2^-90,
 * on a group where one ratio is clipped (e^0.3 > 1.28 with A > 0: its
 * gradient is 0). */
START_TEST (test_obj_gradient_fd)
{
  static const rlref_ppo_clip_convention dual = { .clamp_log_ratio = 1, .dual_clip = 1 };
  static const double lp[6] = { 0.3, -0.2, -1, -0.5, 0.1, -0.05 };
  static const double op[6] = { 0, 0, -1.5, -0.5, 0, 0.05 };
  static const long len[3] = { 2, 2, 2 };
  static const double rw[3] = { 1, 0, 0.5 };
  mpfr_ptr lm = tu_mp_vec_from_d (lp, 6, PREC), om = tu_mp_vec_from_d (op, 6, PREC);
  mpfr_ptr rm = tu_mp_vec_from_d (rw, 3, PREC), gm = tu_mp_vec_new (6, PREC);
  mpfr_t J, up, dn, h, x0, el, eh, c, d;
  mpfr_inits2 (PREC, J, up, dn, h, x0, el, eh, c, d, (mpfr_ptr) 0);
  mpfr_set_d (el, 0.2, MPFR_RNDN);
  mpfr_set_d (eh, 0.28, MPFR_RNDN);
  mpfr_set_d (c, 3.0, MPFR_RNDN);
  mpfr_set_si_2exp (h, 1, -90, MPFR_RNDN);
  TU_OK (rlref_dapo_obj_mp (J, NULL, gm, NULL, lm, om, 6, len, rm, 3, adv_conv ("verl"), &dual,
                            el, eh, c));
  ck_assert (mpfr_zero_p (gm + 0));                          /* clipped above 1.28 */
  for (int i = 0; i < 6; i++)
    {
      mpfr_set (x0, lm + i, MPFR_RNDN);
      mpfr_add (lm + i, x0, h, MPFR_RNDN);
      TU_OK (rlref_dapo_obj_mp (up, NULL, NULL, NULL, lm, om, 6, len, rm, 3, adv_conv ("verl"),
                                &dual, el, eh, c));
      mpfr_sub (lm + i, x0, h, MPFR_RNDN);
      TU_OK (rlref_dapo_obj_mp (dn, NULL, NULL, NULL, lm, om, 6, len, rm, 3, adv_conv ("verl"),
                                &dual, el, eh, c));
      mpfr_set (lm + i, x0, MPFR_RNDN);
      mpfr_sub (d, up, dn, MPFR_RNDN);
      mpfr_div (d, d, h, MPFR_RNDN);
      mpfr_div_2ui (d, d, 1, MPFR_RNDN);
      if (mpfr_zero_p (gm + i))
        TU_ASSERT_MP_SMALL (d, 1e-40);
      else
        TU_ASSERT_MP_AGREE (gm + i, d, 40);
    }
  mpfr_clears (J, up, dn, h, x0, el, eh, c, d, (mpfr_ptr) 0);
  tu_mp_vec_free (lm, 6);
  tu_mp_vec_free (om, 6);
  tu_mp_vec_free (rm, 3);
  tu_mp_vec_free (gm, 6);
}
END_TEST

START_TEST (test_obj_bad)
{
  static const rlref_ppo_clip_convention plain = { .clamp_log_ratio = 0, .dual_clip = 0 };
  static const long bad_sum[2] = { 2, 2 }, zero[2] = { 5, 0 }, negl[2] = { 6, -1 };
  double J, el = 0.2, eh = 0.28, one = 1.0, lp[5];
  memcpy (lp, OL, sizeof lp);
  TU_ASSERT_STATUS (rlref_dapo_obj_d (&J, NULL, NULL, NULL, OL, OO, 5, bad_sum, REW, 2,
                                      adv_conv ("trl"), &plain, &el, &eh, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dapo_obj_d (&J, NULL, NULL, NULL, OL, OO, 5, zero, REW, 2,
                                      adv_conv ("trl"), &plain, &el, &eh, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dapo_obj_d (&J, NULL, NULL, NULL, OL, OO, 5, negl, REW, 2,
                                      adv_conv ("trl"), &plain, &el, &eh, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dapo_obj_d (&J, NULL, NULL, NULL, OL, OO, 5, LEN, REW, 2,
                                      adv_conv ("trl"), &plain, &one, &eh, NULL), RLREF_EDOM);
  lp[3] = NAN;
  TU_ASSERT_STATUS (rlref_dapo_obj_d (&J, NULL, NULL, NULL, lp, OO, 5, LEN, REW, 2,
                                      adv_conv ("trl"), &plain, &el, &eh, NULL), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dapo_obj_d (&J, NULL, NULL, NULL, OL, OO, 0, LEN, REW, 2,
                                      adv_conv ("trl"), &plain, &el, &eh, NULL), RLREF_EINVAL);
  /* a group of one: OpenRLHF refuses it */
  TU_ASSERT_STATUS (rlref_dapo_obj_d (&J, NULL, NULL, NULL, OL, OO, 2, LEN, REW, 1,
                                      adv_conv ("openrlhf"), &plain, &el, &eh, NULL),
                    RLREF_EDOM);
}
END_TEST

/* 13.31 through rlref_ppo_clip: rho = 1.25 (to 1e-16), A = 1: inside
 * [0.8, 1.28], the surrogate rho and its gradient flow; the symmetric
 * 1.2 clips it (surrogate 1.2, gradient 0). */
START_TEST (test_cliphigher)
{
  static const rlref_ppo_clip_convention plain = { .clamp_log_ratio = 0, .dual_clip = 0 };
  double lp = log (1.25), op = 0, a = 1, loss, s, r, g, cf;
  double el = 0.2, eh = 0.28, e2 = 0.2;
  TU_OK (rlref_ppo_clip_d (&loss, &s, &r, &g, &cf, &lp, &op, &a, NULL, 1, &plain, &el, &eh,
                           NULL));
  TU_ASSERT_REL (s, 1.25, TU_TOL0);
  TU_ASSERT_REL (g, -1.25, TU_TOL0);
  TU_ASSERT_SAME (cf, 0.0);
  TU_OK (rlref_ppo_clip_d (&loss, &s, &r, &g, &cf, &lp, &op, &a, NULL, 1, &plain, &el, &e2,
                           NULL));
  TU_ASSERT_SAME (s, 1.2);
  TU_ASSERT_SAME (g, 0.0);
  TU_ASSERT_SAME (cf, 1.0);
}
END_TEST

/* The table of conventions: every row found by its formula and name, the
 * names of a formula distinct, each DAPO-OBJ row's advantage a convention
 * of rlref_adv_conventions, each clip range inside (0, 1), the dual clip's
 * c > 1, and an unknown name or formula not found. */
START_TEST (test_conventions_table)
{
  static const char *const formulas[] = { "DAPO-OBJ", "DAPO-CLIPHIGHER", "DAPO-DYNSAMPLE",
                                          "DAPO-TOKLOSS", "DAPO-TOKLOSS-EX", "DAPO-OVERLONG" };
  size_t per[6] = { 0 };
  ck_assert_uint_eq (rlref_dapo_num_conventions, 22);
  for (size_t i = 0; i < rlref_dapo_num_conventions; i++)
    {
      const rlref_dapo_convention *c = &rlref_dapo_conventions[i];
      size_t f = 6;
      for (size_t k = 0; k < 6; k++)
        if (strcmp (c->formula, formulas[k]) == 0)
          f = k;
      ck_assert_msg (f < 6, "%s: formula %s", c->name, c->formula);
      per[f]++;
      ck_assert_ptr_eq (rlref_dapo_convention_find (c->formula, c->name), c);
      ck_assert (c->rule && *c->rule && c->used_by && *c->used_by);
      if (f == 0)
        ck_assert_msg (rlref_adv_convention_find (c->adv) != NULL, "%s: adv %s", c->name,
                       c->adv ? c->adv : "(none)");
      if (f <= 1)
        ck_assert (c->eps_low > 0 && c->eps_low < 1 && c->eps_high > 0 && c->eps_high < 1);
      if (c->dual_c != 0)
        ck_assert (c->dual_c > 1 && c->clip.clip.dual_clip);
    }
  ck_assert_uint_eq (per[0], 4);
  ck_assert_uint_eq (per[1], 5);
  ck_assert_uint_eq (per[2], 5);
  ck_assert_uint_eq (per[3], 3);
  ck_assert_uint_eq (per[4], 2);
  ck_assert_uint_eq (per[5], 3);
  ck_assert_ptr_null (rlref_dapo_convention_find ("DAPO-OBJ", "symmetric"));
  ck_assert_ptr_null (rlref_dapo_convention_find ("PPO-CLIP", "verl"));
  ck_assert_ptr_null (rlref_dapo_convention_find (NULL, "verl"));
  ck_assert_ptr_null (rlref_dapo_convention_find ("DAPO-OBJ", NULL));
}
END_TEST

static Suite *
dapo_suite (void)
{
  Suite *s = suite_create ("dapo");
  TCase *tc;

  tc = tu_tcase ("overlong");
  tcase_add_test (tc, test_overlong_detector);
  tcase_add_test (tc, test_overlong_factor_and_cache0);
  tcase_add_test (tc, test_overlong_f32_and_empty);
  tcase_add_test (tc, test_overlong_bad);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("tokloss");
  tcase_add_test (tc, test_tokloss);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("dynsample");
  tcase_add_test (tc, test_keep_rules);
  tcase_add_test (tc, test_refill);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("objective");
  tcase_add_test (tc, test_obj_closed_form);
  tcase_add_test (tc, test_obj_gradient_fd);
  tcase_add_test (tc, test_obj_bad);
  tcase_add_test (tc, test_cliphigher);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("conventions");
  tcase_add_test (tc, test_conventions_table);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN (dapo_suite)
