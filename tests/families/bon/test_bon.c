/* test_bon.c -- best-of-n on a discrete space (BON) and the
 * over-optimisation forms (OVEROPT), in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: closed forms (two equiprobable outcomes: q = (2^-n,
 * 1 - 2^-n), win 3/4 - 2^-(n+1)); a brute-force enumeration of all K^n
 * draw sequences in MPFR at 512 bits, keeping the first maximum of each
 * (the tie rule itself, not its closed form); F(v)^n - F(v^-)^n formed
 * directly with mpfr_pow at 512 bits; the peaks checked by evaluating the
 * curves around them.  The generic test holds every function to the
 * aliasing rule of reference/README.md. */
#include "testutil.h"

#define PREC 256
#define HIGH 512

/* --- brute force ----------------------------------------------------- */

/* q, kl = sum q log(q/p) and win = sum_{k,j} q_k p_j ([r_k > r_j] +
 * [r_k = r_j]/2) by enumerating the K^n sequences of draws from p/S and
 * keeping the first draw of the largest reward, at HIGH bits. */
static void
brute_force (mpfr_ptr q, mpfr_ptr kl, mpfr_ptr win, const double *p, const double *r, int K,
             int n)
{
  int seq[8];
  long total = 1;
  mpfr_t S, pr, t, u;
  mpfr_inits2 (HIGH, S, pr, t, u, (mpfr_ptr) 0);
  ck_assert (n <= 8);
  mpfr_set_zero (S, 1);
  for (int k = 0; k < K; k++)
    {
      mpfr_add_d (S, S, p[k], MPFR_RNDN);
      mpfr_set_zero (q + k, 1);
    }
  for (int i = 0; i < n; i++)
    total *= K;
  for (long s = 0; s < total; s++)
    {
      long c = s;
      int best = -1;
      mpfr_set_ui (pr, 1, MPFR_RNDN);
      for (int i = 0; i < n; i++)
        {
          seq[i] = (int) (c % K);
          c /= K;
          mpfr_mul_d (pr, pr, p[seq[i]], MPFR_RNDN);
          mpfr_div (pr, pr, S, MPFR_RNDN);
          if (best < 0 || r[seq[i]] > r[best])
            best = seq[i];
        }
      mpfr_add (q + best, q + best, pr, MPFR_RNDN);
    }
  mpfr_set_zero (kl, 1);
  mpfr_set_zero (win, 1);
  for (int k = 0; k < K; k++)
    {
      if (mpfr_zero_p (q + k))
        continue;
      mpfr_set_d (t, p[k], MPFR_RNDN);
      mpfr_div (t, t, S, MPFR_RNDN);
      mpfr_div (t, q + k, t, MPFR_RNDN);
      mpfr_log (t, t, MPFR_RNDN);
      mpfr_mul (t, t, q + k, MPFR_RNDN);
      mpfr_add (kl, kl, t, MPFR_RNDN);
      for (int j = 0; j < K; j++)
        {
          double w = r[k] > r[j] ? 1.0 : r[k] == r[j] ? 0.5 : 0.0;
          mpfr_set_d (u, p[j], MPFR_RNDN);
          mpfr_div (u, u, S, MPFR_RNDN);
          mpfr_mul (u, u, q + k, MPFR_RNDN);
          mpfr_mul_d (u, u, w, MPFR_RNDN);
          mpfr_add (win, win, u, MPFR_RNDN);
        }
    }
  mpfr_clears (S, pr, t, u, (mpfr_ptr) 0);
}

/* Both backends on (p, r, K, n) against the brute force: MPFR to 70
 * digits, binary64 within tol (relative; absolute below 1e-300). */
static void
check_against_brute_force (const double *p, const double *r, int K, int n, double tol)
{
  double q[8], kl, bound, win;
  mpfr_ptr pm = tu_mp_vec_from_d (p, K, PREC), rm = tu_mp_vec_from_d (r, K, PREC);
  mpfr_ptr qm = tu_mp_vec_new (K, PREC), qb = tu_mp_vec_new (K, HIGH);
  mpfr_t klm, bm, wm, klb, wb;
  mpfr_inits2 (PREC, klm, bm, wm, (mpfr_ptr) 0);
  mpfr_inits2 (HIGH, klb, wb, (mpfr_ptr) 0);
  brute_force (qb, klb, wb, p, r, K, n);
  TU_OK (rlref_bon_dist_mp (qm, klm, bm, wm, pm, rm, (size_t) K, n));
  TU_OK (rlref_bon_dist_d (q, &kl, &bound, &win, p, r, (size_t) K, n));
  for (int k = 0; k < K; k++)
    {
      if (mpfr_zero_p (qb + k))
        {
          ck_assert (mpfr_zero_p (qm + k));
          TU_ASSERT_SAME (q[k], 0.0);
          continue;
        }
      TU_ASSERT_MP_AGREE (qm + k, qb + k, 70);
      TU_ASSERT_REL (q[k], mpfr_get_d (qb + k, MPFR_RNDN), tol);
    }
  if (mpfr_get_exp (klb) < -400 || n == 1)
    {
      /* q = p (n = 1, or one reward level): the enumeration's sum of
         roundings, the library's exact +0 */
      ck_assert (mpfr_zero_p (klm) && !mpfr_signbit (klm));
      TU_ASSERT_SAME (kl, 0.0);
    }
  else
    {
      TU_ASSERT_MP_AGREE (klm, klb, 70);
      TU_ASSERT_REL (kl, mpfr_get_d (klb, MPFR_RNDN), tol);
    }
  TU_ASSERT_MP_AGREE (wm, wb, 70);
  TU_ASSERT_REL (win, mpfr_get_d (wb, MPFR_RNDN), tol);
  ck_assert_msg (mpfr_cmp (klm, bm) <= 0, "kl above the bound");
  tu_mp_vec_free (pm, K);
  tu_mp_vec_free (rm, K);
  tu_mp_vec_free (qm, K);
  tu_mp_vec_free (qb, K);
  mpfr_clears (klm, bm, wm, klb, wb, (mpfr_ptr) 0);
}

/* Two equiprobable outcomes with distinct rewards: q = (2^-n, 1 - 2^-n),
 * kl = 2^-n log(2^(1-n)) + (1 - 2^-n) log(2 (1 - 2^-n)), win = 3/4 -
 * 2^-(n+1), bound log n - (n - 1)/n; kl < bound; for n = 2, 4, 256. */
START_TEST (test_bon_two_outcomes)
{
  static const double p[2] = { 0.5, 0.5 }, r[2] = { 0, 1 };
  static const long ns[3] = { 2, 4, 256 };
  mpfr_ptr pm = tu_mp_vec_from_d (p, 2, PREC), rm = tu_mp_vec_from_d (r, 2, PREC);
  mpfr_ptr qm = tu_mp_vec_new (2, PREC);
  mpfr_t klm, bm, wm, lo, want, t;
  mpfr_inits2 (PREC, klm, bm, wm, (mpfr_ptr) 0);
  mpfr_inits2 (HIGH, lo, want, t, (mpfr_ptr) 0);
  for (int i = 0; i < 3; i++)
    {
      long n = ns[i];
      double q[2], kl, bound, win;
      TU_OK (rlref_bon_dist_d (q, &kl, &bound, &win, p, r, 2, n));
      TU_OK (rlref_bon_dist_mp (qm, klm, bm, wm, pm, rm, 2, n));
      mpfr_set_ui_2exp (lo, 1, -n, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (qm + 0, lo, 74);
      TU_ASSERT_REL (q[0], ldexp (1.0, (int) -n), TU_TOL3);
      TU_ASSERT_REL (q[1], 1 - ldexp (1.0, (int) -n), TU_TOL0);
      /* kl */
      mpfr_mul_2ui (t, lo, 1, MPFR_RNDN);
      mpfr_log (t, t, MPFR_RNDN);
      mpfr_mul (want, t, lo, MPFR_RNDN);
      mpfr_ui_sub (t, 1, lo, MPFR_RNDN);
      mpfr_mul_2ui (t, t, 1, MPFR_RNDN);
      mpfr_log (t, t, MPFR_RNDN);
      mpfr_ui_sub (lo, 1, lo, MPFR_RNDN);
      mpfr_fma (want, t, lo, want, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (klm, want, 74);
      TU_ASSERT_REL (kl, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
      /* win */
      mpfr_set_ui_2exp (want, 3, -2, MPFR_RNDN);
      mpfr_set_ui_2exp (t, 1, -(n + 1), MPFR_RNDN);
      mpfr_sub (want, want, t, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (wm, want, 74);
      TU_ASSERT_REL (win, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
      /* bound */
      mpfr_set_si (want, n, MPFR_RNDN);
      mpfr_log (want, want, MPFR_RNDN);
      mpfr_set_si (t, n - 1, MPFR_RNDN);
      mpfr_div_si (t, t, n, MPFR_RNDN);
      mpfr_sub (want, want, t, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (bm, want, 74);
      TU_ASSERT_REL (bound, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
      ck_assert (kl < bound);
    }
  /* n = 256: kl = log 2 - 2^-256 (256 log 2 + 1) to far beyond 30 digits */
  mpfr_const_log2 (want, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (klm, want, 70);
  tu_mp_vec_free (pm, 2);
  tu_mp_vec_free (rm, 2);
  tu_mp_vec_free (qm, 2);
  mpfr_clears (klm, bm, wm, lo, want, t, (mpfr_ptr) 0);
}
END_TEST

/* Against the enumeration of every draw sequence: three outcomes with
 * rewards out of order, ties at the top (shared in proportion to p), two
 * tied levels, all rewards equal, n = 1, a zero probability at the best
 * reward, probabilities summing to 1 - 1e-7 (renormalised). */
START_TEST (test_bon_brute_force)
{
  static const double p3[3] = { 0.2, 0.5, 0.3 }, r3[3] = { 1, 3, 2 };
  static const double pt[3] = { 0.25, 0.25, 0.5 }, rt[3] = { 1, 1, 0 };
  static const double p4[4] = { 0.1, 0.2, 0.3, 0.4 }, r4[4] = { 2, 1, 2, 1 };
  static const double pe[2] = { 0.3, 0.7 }, re[2] = { 5, 5 };
  static const double pz[3] = { 0, 0.5, 0.5 }, rz[3] = { 3, 1, 2 };
  static const double pn[3] = { 0.3333333, 0.3333333, 0.3333333 }, rn[3] = { 1, 2, 3 };
  static const double pm4[4] = { 0.125, 0.375, 0.25, 0.25 }, rm4[4] = { -1, 0.5, 0.5, -1 };
  check_against_brute_force (p3, r3, 3, 3, TU_TOL1);
  check_against_brute_force (p3, r3, 3, 1, TU_TOL1);
  check_against_brute_force (pt, rt, 3, 2, TU_TOL1);
  check_against_brute_force (p4, r4, 4, 5, TU_TOL1);
  check_against_brute_force (pe, re, 2, 8, TU_TOL1);
  check_against_brute_force (pz, rz, 3, 4, TU_TOL1);
  check_against_brute_force (pn, rn, 3, 2, TU_TOL1);
  check_against_brute_force (pm4, rm4, 4, 6, TU_TOL1);
}
END_TEST

/* Rare levels, q against the enumeration within 16 ulps: a level of mass
 * 2^-994 above the rest, Q_v = 1 - (1 - 2^-994)^4 ~ 2^-992 (e^{log Q_v}
 * gave 3e-14 relative: log Q_v = -687 rounded), one of 2^-909 above the
 * rest (n = 2), and a bottom level of mass 2^-326 or 2^-131, Q_v = b^n
 * (e^{n log b} gave 2e-14 relative). */
START_TEST (test_bon_rare_levels)
{
  static const double p1[3] = { 0, 1, 0x1p-994 }, r1[3] = { 3, 1, 2 };
  static const double p2[2] = { 1, 0x1.19799812dea11p-909 }, r2[2] = { 0, 1 };
  static const double p3[2] = { 0x1p-326, 1 }, r3[2] = { 0, 1 };
  static const double p4[2] = { 1, 0x1.6666666666666p-131 }, r4[2] = { 0x1p+669, 5 };
  static const struct { const double *p, *r; int K, n; } c[4] = {
    { p1, r1, 3, 4 }, { p2, r2, 2, 2 }, { p3, r3, 2, 2 }, { p4, r4, 2, 7 } };
  for (int i = 0; i < 4; i++)
    {
      double q[3];
      mpfr_ptr qb = tu_mp_vec_new (3, HIGH);
      mpfr_t klb, wb;
      mpfr_inits2 (HIGH, klb, wb, (mpfr_ptr) 0);
      brute_force (qb, klb, wb, c[i].p, c[i].r, c[i].K, c[i].n);
      TU_OK (rlref_bon_dist_d (q, NULL, NULL, NULL, c[i].p, c[i].r, (size_t) c[i].K, c[i].n));
      for (int k = 0; k < c[i].K; k++)
        TU_ASSERT_REL (q[k], mpfr_get_d (qb + k, MPFR_RNDN), TU_TOL1);
      tu_mp_vec_free (qb, 3);
      mpfr_clears (klb, wb, (mpfr_ptr) 0);
    }
}
END_TEST

/* The tie rule in numbers: p = (1/4, 1/4, 1/2), rewards (1, 1, 0), n = 2:
 * the tied top outcomes keep 1 - (1/2)^2 = 3/4 between them, 3/8 each,
 * exactly; with p = (0.1, 0.3) tied at the top of (0.1, 0.3, 0.6), the
 * share is 1 : 3. */
START_TEST (test_bon_ties)
{
  static const double pt[3] = { 0.25, 0.25, 0.5 }, rt[3] = { 1, 1, 0 };
  static const double pu[3] = { 0.125, 0.375, 0.5 }, ru[3] = { 7, 7, 0 };
  double q[3];
  TU_OK (rlref_bon_dist_d (q, NULL, NULL, NULL, pt, rt, 3, 2));
  TU_ASSERT_REL (q[0], 0.375, TU_TOL0);
  TU_ASSERT_REL (q[1], 0.375, TU_TOL0);
  TU_ASSERT_REL (q[2], 0.25, TU_TOL0);
  TU_OK (rlref_bon_dist_d (q, NULL, NULL, NULL, pu, ru, 3, 3));
  /* top level mass 1/2: Q = 1 - 1/8 = 7/8, split 1 : 3 */
  TU_ASSERT_REL (q[0], 7.0 / 32, TU_TOL0);
  TU_ASSERT_REL (q[1], 21.0 / 32, TU_TOL0);
  TU_ASSERT_REL (q[2], 0.125, TU_TOL0);
}
END_TEST

/* F(v)^n - F(v^-)^n without cancellation: a rare best outcome, p = (1 -
 * 1e-12, 1e-12), n = 2 (the direct difference of powers keeps about 4
 * digits, shown); p = (0.4, 0.59999, 1e-5) at n = 10^5; against
 * mpfr_pow at 512 bits. */
START_TEST (test_bon_stable_powers)
{
  static const double pc[2] = { 0.999999999999, 1e-12 }, rc[2] = { 0, 1 };
  static const double pl[3] = { 0.4, 0.59999, 0.00001 }, rl[3] = { 0, 1, 2 };
  double q[3], kl, naive;
  mpfr_ptr pm = tu_mp_vec_from_d (pl, 3, PREC), rm = tu_mp_vec_from_d (rl, 3, PREC);
  mpfr_ptr qm = tu_mp_vec_new (3, PREC);
  mpfr_t S, a, b, want, t;
  mpfr_inits2 (HIGH, S, a, b, want, t, (mpfr_ptr) 0);
  /* the rare best outcome: Q_top = 1 - (p0/S)^2 */
  TU_OK (rlref_bon_dist_d (q, &kl, NULL, NULL, pc, rc, 2, 2));
  mpfr_set_d (S, pc[0], MPFR_RNDN);
  mpfr_add_d (S, S, pc[1], MPFR_RNDN);
  mpfr_set_d (a, pc[0], MPFR_RNDN);
  mpfr_div (a, a, S, MPFR_RNDN);
  mpfr_sqr (t, a, MPFR_RNDN);
  mpfr_ui_sub (want, 1, t, MPFR_RNDN);
  TU_ASSERT_REL (q[1], mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  naive = 1 - (pc[0] / (pc[0] + pc[1])) * (pc[0] / (pc[0] + pc[1]));
  ck_assert (tu_rel_err (naive, mpfr_get_d (want, MPFR_RNDN)) > 1e-6);
  /* n = 10^5: Q of each level by mpfr_pow */
  TU_OK (rlref_bon_dist_mp (qm, NULL, NULL, NULL, pm, rm, 3, 100000));
  TU_OK (rlref_bon_dist_d (q, NULL, NULL, NULL, pl, rl, 3, 100000));
  mpfr_set_zero (S, 1);
  for (int k = 0; k < 3; k++)
    mpfr_add_d (S, S, pl[k], MPFR_RNDN);
  mpfr_set_zero (a, 1);
  for (int k = 0; k < 3; k++)
    {
      mpfr_set_d (t, pl[k], MPFR_RNDN);
      mpfr_div (t, t, S, MPFR_RNDN);
      mpfr_add (b, a, t, MPFR_RNDN);
      mpfr_pow_ui (want, b, 100000, MPFR_RNDN);
      mpfr_pow_ui (t, a, 100000, MPFR_RNDN);
      mpfr_sub (want, want, t, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (qm + k, want, 70);
      if (k == 0)
        TU_ASSERT_SAME (q[0], 0.0);             /* 0.4^n: below the binary64 range */
      else
        TU_ASSERT_REL (q[k], mpfr_get_d (want, MPFR_RNDN), TU_TOL2);
      mpfr_set (a, b, MPFR_RNDN);
    }
  tu_mp_vec_free (pm, 3);
  tu_mp_vec_free (rm, 3);
  tu_mp_vec_free (qm, 3);
  mpfr_clears (S, a, b, want, t, (mpfr_ptr) 0);
}
END_TEST

/* Many equiprobable distinct outcomes approach the continuous case:
 * K = 1024, n = 4: kl below the bound log 4 - 3/4 by less than 0.01, win
 * within 1e-3 of n/(n + 1) = 4/5; in both backends. */
START_TEST (test_bon_continuous_limit)
{
  enum { K = 1024 };
  static double p[K], r[K], q[K];
  double kl, bound, win;
  mpfr_ptr pm, rm, qm = tu_mp_vec_new (K, PREC);
  mpfr_t klm, bm, wm;
  mpfr_inits2 (PREC, klm, bm, wm, (mpfr_ptr) 0);
  for (int k = 0; k < K; k++)
    {
      p[k] = 1.0 / K;
      r[k] = K - k;
    }
  pm = tu_mp_vec_from_d (p, K, PREC);
  rm = tu_mp_vec_from_d (r, K, PREC);
  TU_OK (rlref_bon_dist_d (q, &kl, &bound, &win, p, r, K, 4));
  ck_assert (bound - kl > 0 && bound - kl < 0.01);
  ck_assert (fabs (win - 0.8) < 1e-3);
  TU_OK (rlref_bon_dist_mp (qm, klm, bm, wm, pm, rm, K, 4));
  TU_ASSERT_REL (mpfr_get_d (klm, MPFR_RNDN), kl, TU_TOL2);
  TU_ASSERT_REL (mpfr_get_d (wm, MPFR_RNDN), win, TU_TOL1);
  tu_mp_vec_free (pm, K);
  tu_mp_vec_free (rm, K);
  tu_mp_vec_free (qm, K);
  mpfr_clears (klm, bm, wm, (mpfr_ptr) 0);
}
END_TEST

/* Random bases (seeded): q sums to 1, kl <= bound, 1/2 <= win <= 1 (the
 * best of n stochastically dominates one draw), kl = 0 and win = 1/2 at
 * n = 1; rewards drawn from few values so that ties occur. */
START_TEST (test_bon_random_properties)
{
  gsl_rng *rng = tu_rng_new ();
  for (int trial = 0; trial < 300; trial++)
    {
      double p[6], r[6], q[6], kl, bound, win, s = 0, sq = 0;
      size_t K = 1 + gsl_rng_uniform_int (rng, 6);
      long n = 1 + (long) gsl_rng_uniform_int (rng, 60);
      for (size_t k = 0; k < K; k++)
        {
          p[k] = gsl_rng_uniform_pos (rng);
          r[k] = (double) gsl_rng_uniform_int (rng, 4);
          s += p[k];
        }
      for (size_t k = 0; k < K; k++)
        p[k] /= s;
      TU_OK (rlref_bon_dist_d (q, &kl, &bound, &win, p, r, K, n));
      for (size_t k = 0; k < K; k++)
        {
          ck_assert (q[k] >= 0);
          sq += q[k];
        }
      TU_ASSERT_ABS (sq, 1.0, TU_TOL2);
      ck_assert_msg (kl <= bound + TU_TOL1, "kl %g above the bound %g (n %ld)", kl, bound, n);
      ck_assert (kl >= -TU_TOL1);
      ck_assert (win >= 0.5 - TU_TOL1 && win <= 1 + TU_TOL1);
      if (n == 1)
        {
          TU_ASSERT_SAME (kl, 0.0);
          TU_ASSERT_ABS (win, 0.5, TU_TOL1);
        }
    }
  gsl_rng_free (rng);
}
END_TEST

/* Bad input: no outcomes or a NULL argument (EINVAL), a non-finite
 * probability or reward (ENAN), a negative probability, a sum further than
 * 2^-20 from 1, n < 1 (EDOM); a sum 2^-21 from 1 is accepted. */
START_TEST (test_bon_bad_inputs)
{
  double p[2] = { 0.5, 0.5 }, r[2] = { 0, 1 }, q[2], kl, b;
  double pn[2] = { 0.5, NAN }, ri[2] = { 0, INFINITY }, pneg[2] = { 1.5, -0.5 };
  double pnn[2] = { 0.5, 0.4 }, pok[2] = { 0.5, 0.5 + 0x1p-21 };
  TU_ASSERT_STATUS (rlref_bon_dist_d (q, &kl, NULL, NULL, p, r, 0, 2), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_bon_dist_d (NULL, &kl, NULL, NULL, p, r, 2, 2), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_bon_dist_d (q, &kl, NULL, NULL, pn, r, 2, 2), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_bon_dist_d (q, &kl, NULL, NULL, p, ri, 2, 2), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_bon_dist_d (q, &kl, NULL, NULL, pneg, r, 2, 2), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_bon_dist_d (q, &kl, NULL, NULL, pnn, r, 2, 2), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_bon_dist_d (q, &kl, NULL, NULL, p, r, 2, 0), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_bon_dist_d (q, &kl, NULL, NULL, p, r, 2, -3), RLREF_EDOM);
  TU_OK (rlref_bon_dist_d (q, &kl, NULL, NULL, pok, r, 2, 2));
  TU_ASSERT_STATUS (rlref_bon_kl_bound_d (&b, 0), RLREF_EDOM);
  TU_OK (rlref_bon_kl_bound_d (&b, 1));
  TU_ASSERT_SAME (b, 0.0);
}
END_TEST

/* --- OVEROPT ----------------------------------------------------------- */

/* bon: kl = 1, alpha = 1, beta = 1/4: d = 1, R = 3/4, d* = 2, R* = 1,
 * exactly; rl: R = 1 (log 1 = 0), d* = e^3, R* = e^3/4 (e^3 by
 * mpfr_exp at 512 bits); in both forms R(d*) is the peak and R at d* (1 +-
 * 1e-3) is below it, and KL = 0 gives d = R = 0. */
START_TEST (test_overopt_peaks)
{
  double kl = 1, al = 1, be = 0.25, d, v, ds, pk, v2, zero = 0;
  mpfr_t klm, alm, bem, dm, vm, dsm, pkm, want;
  mpfr_inits2 (PREC, klm, alm, bem, dm, vm, dsm, pkm, (mpfr_ptr) 0);
  mpfr_init2 (want, HIGH);
  TU_OK (rlref_overopt_d (&d, &v, &ds, &pk, &kl, &al, &be, RLREF_OVEROPT_BON));
  TU_ASSERT_SAME (d, 1.0);
  TU_ASSERT_SAME (v, 0.75);
  TU_ASSERT_SAME (ds, 2.0);
  TU_ASSERT_SAME (pk, 1.0);
  TU_OK (rlref_overopt_d (&d, &v, &ds, &pk, &kl, &al, &be, RLREF_OVEROPT_RL));
  TU_ASSERT_SAME (v, 1.0);
  mpfr_set_ui (want, 3, MPFR_RNDN);
  mpfr_exp (want, want, MPFR_RNDN);
  TU_ASSERT_REL (ds, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
  mpfr_set_d (klm, kl, MPFR_RNDN);
  mpfr_set_d (alm, al, MPFR_RNDN);
  mpfr_set_d (bem, be, MPFR_RNDN);
  TU_OK (rlref_overopt_mp (dm, vm, dsm, pkm, klm, alm, bem, RLREF_OVEROPT_RL));
  TU_ASSERT_MP_AGREE (dsm, want, 74);
  mpfr_div_2ui (want, want, 2, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (pkm, want, 74);
  for (int f = 0; f < 2; f++)
    {
      rlref_overopt_form form = f ? RLREF_OVEROPT_RL : RLREF_OVEROPT_BON;
      double k2, lo, hi;
      TU_OK (rlref_overopt_d (NULL, NULL, &ds, &pk, &kl, &al, &be, form));
      k2 = ds * ds;
      TU_OK (rlref_overopt_d (NULL, &v, NULL, NULL, &k2, &al, &be, form));
      TU_ASSERT_REL (v, pk, TU_TOL1);
      lo = ds * ds * (1 - 2e-3);
      hi = ds * ds * (1 + 2e-3);
      TU_OK (rlref_overopt_d (NULL, &v, NULL, NULL, &lo, &al, &be, form));
      TU_OK (rlref_overopt_d (NULL, &v2, NULL, NULL, &hi, &al, &be, form));
      ck_assert (v < pk && v2 < pk);
      TU_OK (rlref_overopt_d (&d, &v, NULL, NULL, &zero, &al, &be, form));
      TU_ASSERT_SAME (d, 0.0);
      TU_ASSERT_SAME (v, 0.0);
    }
  mpfr_clears (klm, alm, bem, dm, vm, dsm, pkm, want, (mpfr_ptr) 0);
}
END_TEST

/* bon with alpha <= 0: the curve falls from 0, d* = 0 and R* = 0; past
 * the peak R(10) = 10 (1 - 2.5) = -15 exactly. */
START_TEST (test_overopt_norise)
{
  double kl = 2.25, al = -1, be = 0.5, d, v, ds, pk, k100 = 100, a1 = 1, b4 = 0.25;
  TU_OK (rlref_overopt_d (&d, &v, &ds, &pk, &kl, &al, &be, RLREF_OVEROPT_BON));
  TU_ASSERT_SAME (d, 1.5);
  TU_ASSERT_SAME (v, -2.625);
  TU_ASSERT_SAME (ds, 0.0);
  TU_ASSERT_SAME (pk, 0.0);
  TU_OK (rlref_overopt_d (&d, &v, &ds, &pk, &k100, &a1, &b4, RLREF_OVEROPT_BON));
  TU_ASSERT_SAME (v, -15.0);
}
END_TEST

/* Bad input: beta <= 0 and KL < 0 (EDOM), NaN or infinite (ENAN); a peak
 * beyond the range: +inf and ERANGE. */
START_TEST (test_overopt_bad_inputs)
{
  double kl = 1, al = 1, be = 0.25, z = 0, neg = -0.5, nkl = -0.01, nan_ = NAN, inf = INFINITY;
  double big = 800, pk;
  TU_ASSERT_STATUS (rlref_overopt_d (NULL, NULL, NULL, NULL, &kl, &al, &z, RLREF_OVEROPT_BON),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_overopt_d (NULL, NULL, NULL, NULL, &kl, &al, &neg, RLREF_OVEROPT_RL),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_overopt_d (NULL, NULL, NULL, NULL, &nkl, &al, &be, RLREF_OVEROPT_RL),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_overopt_d (NULL, NULL, NULL, NULL, &nan_, &al, &be,
                                     RLREF_OVEROPT_BON), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_overopt_d (NULL, NULL, NULL, NULL, &kl, &inf, &be, RLREF_OVEROPT_BON),
                    RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_overopt_d (NULL, NULL, NULL, &pk, &kl, &big, &be, RLREF_OVEROPT_RL),
                    RLREF_ERANGE);
  ck_assert (isinf (pk) && pk > 0);
}
END_TEST

/* --- aliasing ------------------------------------------------------------ */

/* The generic test holds BON and OVEROPT to the aliasing rule on their
 * golden cases; no valid case has one outcome, where kl, bound and win
 * meet the length of p and r.  Slots: q, kl, bound, win; p, r. */
struct bon_ctx
{
  size_t K;
  long n;
};

static int
bon_d (double *const *x, const void *ctx)
{
  const struct bon_ctx *c = ctx;
  return rlref_bon_dist_d (x[0], x[1], x[2], x[3], x[4], x[5], c->K, c->n);
}

static int
bon_mp (mpfr_ptr const *x, const void *ctx)
{
  const struct bon_ctx *c = ctx;
  return rlref_bon_dist_mp (x[0], x[1], x[2], x[3], x[4], x[5], c->K, c->n);
}

/* Every output over p and over r, one outcome. */
START_TEST (test_bon_aliasing)
{
  static const double one[1] = { 1 }, two[1] = { 2 };
  struct bon_ctx c1 = { 1, 3 };
  tu_alias_case a1 = { "bon_dist K = 1", 6, 4, { 1, 1, 1, 1, 1, 1 },
                       { NULL, NULL, NULL, NULL, one, two }, bon_d, bon_mp, &c1 };
  ck_assert_int_eq (tu_check_aliasing (&a1), 8);
}
END_TEST

static Suite *
bon_suite (void)
{
  Suite *s = suite_create ("bon");
  TCase *tc;

  tc = tu_tcase ("best-of-n");
  tcase_add_test (tc, test_bon_two_outcomes);
  tcase_add_test (tc, test_bon_brute_force);
  tcase_add_test (tc, test_bon_ties);
  tcase_add_test (tc, test_bon_rare_levels);
  tcase_add_test (tc, test_bon_stable_powers);
  tcase_add_test (tc, test_bon_continuous_limit);
  tcase_add_test (tc, test_bon_random_properties);
  tcase_add_test (tc, test_bon_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("overopt");
  tcase_add_test (tc, test_overopt_peaks);
  tcase_add_test (tc, test_overopt_norise);
  tcase_add_test (tc, test_overopt_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("aliasing");
  tcase_add_test (tc, test_bon_aliasing);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (bon_suite)
