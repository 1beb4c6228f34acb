/* test_batch.c -- the binary64 batch kernels (rlref/batch.h) held to the
 * scalar reference on seeded random batches and on edge inputs:
 *
 *   rlref_grpo_adv_batch  bit for bit rlref_grpo_adv_d, every convention,
 *                         on binary, integer, dyadic and real rewards, tiny
 *                         and huge scales, zero-variance groups, G = 1, 2,
 *                         3, 4, 8, 16, 300 (> RLREF_BATCH_GMAX), NaN and
 *                         inf (skipped or refused as the convention says),
 *                         adv = rewards; nothing allocated from the
 *                         workspace; the same bits on 2 threads; batches
 *                         of binary groups (their advantages from a table
 *                         by the count of ones) mixed with other groups;
 *                         real-valued rewards (Gaussian, heavy-tailed,
 *                         near and exact midpoints) on the certified
 *                         path, which must take the Gaussian and
 *                         heavy-tailed groups;
 *   rlref_kl_batch        k1, k2 bit for bit rlref_kl_estimate_d, k3
 *                         within 3 ulp of the exact k3 (MPFR) and 8 ulp of
 *                         the reference (whose term-by-term series and
 *                         expm1(-l) + l are themselves up to about 5 ulp
 *                         from the exact value), on whole vectors and on
 *                         the tokens left over, near |l| = 3/2 and for tiny
 *                         and large |l|, the same bits on every path for
 *                         |l| < 3/2; the sums within 2u |S| + 40u
 *                         sum |k| of the exact sum of the per-token values
 *                         (mpfr_sum), on 1 and 2 threads;
 *   rlref_dpo_loss_batch  bit for bit rlref_dpo_loss_d, every form, with
 *                         and without beta^2 and per-token means, and
 *                         with D near and at midpoints (its certified
 *                         rounding of D);
 *   rlref_dpo_sigmoid_batch_simd  on the SLEEF path within the bounds of
 *                         rlref/batch.h (each pair's loss and gradient
 *                         against MPFR, the loss of a batch and the
 *                         gradients against the reference), else bit for
 *                         bit, and bit for bit where beta/B is subnormal;
 *   rlref_gae_batch       within ulp(ref) + 2^-100 W M of rlref_mdp_gae_d,
 *                         every rule;
 * and each with the reference's status on bad input. */
#include <gsl/gsl_randist.h>
#include "testutil.h"
#include "rlref/batch.h"

/* ulp(x) of binary64: 2^(E - 52) for 2^E <= |x| < 2^(E+1), 2^-1074 below. */
static double
ulp_of (double x)
{
  int e;
  x = fabs (x);
  if (x < 0x1p-1022)
    return 0x1p-1074;
  frexp (x, &e);
  return ldexp (1.0, e - 53);
}

/* The sum of v[0..n-1] rounded once to binary64 (mpfr_sum). */
static double
exact_sum (const double *v, size_t n)
{
  mpfr_t *x = malloc (n * sizeof *x), s;
  mpfr_ptr *p = malloc (n * sizeof *p);
  double d;
  ck_assert (x && p);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_init2 (x[i], 53);
      mpfr_set_d (x[i], v[i], MPFR_RNDN);
      p[i] = x[i];
    }
  mpfr_init2 (s, 53);
  mpfr_sum (s, p, n, MPFR_RNDN);
  d = mpfr_get_d (s, MPFR_RNDN);
  for (size_t i = 0; i < n; i++)
    mpfr_clear (x[i]);
  mpfr_clear (s);
  free (x);
  free (p);
  return d;
}

/* --- GRPO-ADV ------------------------------------------------------------ */

/* Reward generators: binary, small integers, dyadic (k/8), real uniform,
 * real with a common tiny or huge scale, constant groups, mixed scales. */
static double
draw_reward (gsl_rng *r, int kind, size_t i, size_t G)
{
  switch (kind)
    {
    case 0:
      return (double) (gsl_rng_uniform (r) < 0.5);
    case 1:
      return (double) gsl_rng_uniform_int (r, 11) - 5.0;
    case 2:
      return (double) gsl_rng_uniform_int (r, 64) / 8.0;
    case 3:
      return tu_uniform (r, -3, 3);
    case 4:
      return tu_uniform (r, 0, 1) * 1e-200;
    case 5:
      return tu_uniform (r, -1, 1) * 1e300;
    case 6:
      return 0.75;                               /* zero variance */
    case 7:
      return (i % G == 0) ? 1e200 : tu_uniform (r, -1, 1) * 1e-100;
    case 8:
      return 1.0 + ldexp ((double) gsl_rng_uniform_int (r, 4), -52);   /* near-ties */
    case 10:
      return i % 7 == 3 ? NAN : i % 11 == 5 ? -INFINITY : (double) (gsl_rng_uniform (r) < 0.5);
    default:
      return (i % 3 == 0) ? -0.0 : 0.0;          /* signed zeros */
    }
}

/* Every convention, group sizes 1, 2, 3, 4, 8, 16, 300, every kind of
 * reward (kind 10 with NaN and inf):
 * the batch kernel bit for bit the reference, also with adv = rewards. */
START_TEST (test_grpo_matches_reference)
{
  static const size_t Gs[] = { 1, 2, 3, 4, 8, 16, 300 };
  gsl_rng *r = tu_rng_new ();
  enum { NMAX = 1200 };
  double *rw = malloc (NMAX * sizeof *rw), *a1 = malloc (NMAX * sizeof *a1),
    *a2 = malloc (NMAX * sizeof *a2);
  rlref_ws *ws = rlref_ws_new (53);
  size_t cases = 0;
  ck_assert (rw && a1 && a2 && ws);
  for (size_t ci = 0; ci < rlref_adv_num_conventions; ci++)
    for (size_t gi = 0; gi < sizeof Gs / sizeof Gs[0]; gi++)
      for (int kind = 0; kind < 11; kind++)
        {
          const rlref_adv_convention *c = &rlref_adv_conventions[ci];
          size_t G = Gs[gi], N = G * (G == 300 ? 2 : 1 + gsl_rng_uniform_int (r, 40));
          int s1, s2;
          for (size_t i = 0; i < N; i++)
            rw[i] = draw_reward (r, kind, i, G);
          s1 = rlref_grpo_adv_d (a1, rw, N, G, c);
          s2 = rlref_grpo_adv_batch (a2, rw, N, G, c, kind % 2 ? ws : NULL);
          ck_assert_msg (s1 == s2, "%s G=%zu kind %d: status %s, reference %s", c->name, G,
                         kind, rlref_status_name (s2), rlref_status_name (s1));
          if (s1)
            continue;
          for (size_t i = 0; i < N; i++)
            ck_assert_msg (tu_same_double (a2[i], a1[i]),
                           "%s G=%zu kind %d adv[%zu] = %a, reference %a", c->name, G, kind, i,
                           a2[i], a1[i]);
          /* in place */
          memcpy (a2, rw, N * sizeof *rw);
          TU_OK (rlref_grpo_adv_batch (a2, a2, N, G, c, ws));
          for (size_t i = 0; i < N; i++)
            TU_ASSERT_SAME (a2[i], a1[i]);
          cases++;
        }
  ck_assert (cases > 400);
  rlref_ws_free (ws);
  free (rw); free (a1); free (a2);
  gsl_rng_free (r);
}
END_TEST

/* Real-valued rewards, as a reward model gives them (the certified path,
 * group_certified): Gaussian, heavy-tailed (magnitudes spread over 1e-6 to
 * 1e6, signs mixed), a common offset with tiny spread (cancellation in
 * the mean), groups whose exact sum or sum of squares falls exactly on a
 * midpoint (values a + b 2^-53 with a, b on a coarse grid) or within
 * 2^-106 of one (a third term far below), groups spread over 2^+-100
 * (where certificates fail and the exact accumulator takes over), and
 * Gaussian groups with the edges of the four-groups path among them (a
 * reward below 2^-522 or subnormal, whose scaling by 2^k is not exact; a
 * group all of one value; a group of zeros; a zero reward): every exact
 * convention, G = 2, 3, 5, 16, 64, 256, on 1 thread and for 16 and 64 on
 * 2, bit for bit the reference.  The fast path must take the Gaussian and
 * heavy-tailed groups: fewer than 1 in 1000 fall back, and on a processor
 * with AVX2 and FMA all are done four at a time but the first and at most
 * the last six (on one thread; on two, those of each of the 8 chunks),
 * which take one group's paths. */
static double
draw_real (gsl_rng *r, int kind, size_t i)
{
  double m;
  switch (kind)
    {
    case 0:
      return gsl_ran_gaussian (r, 1.0);
    case 1:
      m = pow (10.0, tu_uniform (r, -6, 6));
      return gsl_rng_uniform (r) < 0.5 ? -m : m;
    case 2:
      return 3.25 + gsl_ran_gaussian (r, 1e-9);
    case 3:
      return ldexp ((double) gsl_rng_uniform_int (r, 64), -4)
        + ldexp ((double) gsl_rng_uniform_int (r, 3), -53);
    case 4:
      return i % 5 == 0 ? ldexp (1.0, -106) * (double) gsl_rng_uniform_int (r, 3)
        : ldexp ((double) gsl_rng_uniform_int (r, 64), -4)
        + ldexp ((double) gsl_rng_uniform_int (r, 3), -53);
    case 5:
      return ldexp (gsl_ran_gaussian (r, 1.0), (int) gsl_rng_uniform_int (r, 200) - 100);
    default:
      /* i / 4 picks the group's kind for every G used (edges once per 37
         draws, so most quads of four groups hold one) */
      switch ((i / 4) % 37)
        {
        case 0:
          return i % 4 == 1 ? ldexp (1.0, -1070) * (double) (1 + i % 3) : gsl_ran_gaussian (r, 1.0);
        case 1:
          return i % 4 == 2 ? -ldexp (1.0, -600) : gsl_ran_gaussian (r, 1.0);
        case 2:
          return 0.75;
        case 3:
          return 0.0;
        case 4:
          return i % 4 == 3 ? 0.0 : gsl_ran_gaussian (r, 1.0);
        default:
          return gsl_ran_gaussian (r, 1.0);
        }
    }
}

/* The batch kernel and the reference on the N rewards rw in groups of G
 * (into a2 and a1): the same status, and where it is success the same
 * bits, the first difference named with what (one assertion per batch:
 * Check records each); the status. */
static int
batch_matches_reference (const rlref_adv_convention *c, const double *rw, size_t N, size_t G,
                         double *a1, double *a2, const char *what)
{
  int s1 = rlref_grpo_adv_d (a1, rw, N, G, c), s2 = rlref_grpo_adv_batch (a2, rw, N, G, c, NULL);
  size_t i;
  ck_assert_msg (s2 == s1, "%s %s G=%zu: status %s, reference %s", c->name, what, G,
                 rlref_status_name (s2), rlref_status_name (s1));
  if (s1)
    return s1;
  for (i = 0; i < N && tu_same_double (a2[i], a1[i]); i++)
    ;
  ck_assert_msg (i == N, "%s %s G=%zu: adv[%zu] = %a (r %a), reference %a", c->name, what, G,
                 i, a2[i < N ? i : 0], rw[i < N ? i : 0], a1[i < N ? i : 0]);
  return s1;
}

START_TEST (test_grpo_real_rewards)
{
  static const size_t Gs[] = { 2, 3, 5, 16, 64, 256 };
  gsl_rng *r = tu_rng_new ();
  enum { NMAX = 65536 + 256 };
  double *rw = malloc (NMAX * sizeof *rw), *a1 = malloc (NMAX * sizeof *a1),
    *a2 = malloc (NMAX * sizeof *a2);
  size_t cases = 0;
  ck_assert (rw && a1 && a2);
  for (size_t ci = 0; ci < rlref_adv_num_conventions; ci++)
    for (size_t gi = 0; gi < sizeof Gs / sizeof Gs[0]; gi++)
      for (int kind = 0; kind < 7; kind++)
        for (int th = 1; th <= 2; th++)
          {
            const rlref_adv_convention *c = &rlref_adv_conventions[ci];
            size_t G = Gs[gi], ng, N, i, fb;
            if (c->scale != RLREF_SCALE_GROUP_STD && c->scale != RLREF_SCALE_NONE)
              continue;
            if (th == 2 && G != 16 && G != 64)
              continue;
            char what[64];
            ng = (th == 2 ? 65536 : 12800) / G;
            N = G * ng;
            for (i = 0; i < N; i++)
              rw[i] = draw_real (r, kind, i);
            rlref_batch_set_threads (th);
            snprintf (what, sizeof what, "real kind %d, %d thread(s)", kind, th);
            if (batch_matches_reference (c, rw, N, G, a1, a2, what))
              continue;
            fb = rlref_grpo_adv_batch_fallbacks ();
            if (kind <= 1)
              ck_assert_msg (fb * 1000 < ng, "%s G=%zu kind %d: %zu of %zu groups fell back",
                             c->name, G, kind, fb, ng);
            if (kind <= 1 && ng >= 4 && __builtin_cpu_supports ("avx2")
                && __builtin_cpu_supports ("fma"))
              ck_assert_msg (rlref_grpo_adv_batch_quads () + (th == 1 ? 7 : 8 * 7) >= ng,
                             "%s G=%zu kind %d, %d thread(s): %zu of %zu groups four at a time",
                             c->name, G, kind, th, rlref_grpo_adv_batch_quads (), ng);
            cases++;
          }
  rlref_batch_set_threads (1);
  ck_assert (cases > 300);
  free (rw); free (a1); free (a2);
  gsl_rng_free (r);
}
END_TEST

/* Binary groups: many groups of 0s and 1s (so that counts of ones repeat
 * and come from the table), some with a -0.0, a 0.5 or a 2 among them (not
 * binary: the exact path), every convention, G = 2, 3, 4, 5, 16, 20, on 1
 * thread, and for G = 4, 16, 20 on 2 (N >= 65536), also in place: bit for
 * bit the reference. */
START_TEST (test_grpo_binary)
{
  static const size_t Gs[] = { 2, 3, 4, 5, 16, 20 };
  gsl_rng *r = tu_rng_new ();
  enum { NMAX = 65536 + 20 };
  double *rw = malloc (NMAX * sizeof *rw), *a1 = malloc (NMAX * sizeof *a1),
    *a2 = malloc (NMAX * sizeof *a2);
  size_t cases = 0;
  ck_assert (rw && a1 && a2);
  for (size_t ci = 0; ci < rlref_adv_num_conventions; ci++)
    for (size_t gi = 0; gi < sizeof Gs / sizeof Gs[0]; gi++)
      for (int th = 1; th <= 2; th++)
        {
          const rlref_adv_convention *c = &rlref_adv_conventions[ci];
          size_t G = Gs[gi];
          size_t ng = th == 2 ? (65536 + G - 1) / G : 30 + gsl_rng_uniform_int (r, 200);
          size_t N = G * ng, i;
          if (th == 2 && G % 4 != 0)
            continue;                           /* the threads take groups of 4k */
          for (size_t i = 0; i < N; i++)
            {
              rw[i] = (double) (gsl_rng_uniform (r) < 0.3);
              if (gsl_rng_uniform (r) < 0.002)
                rw[i] = i % 3 == 0 ? -0.0 : i % 3 == 1 ? 0.5 : 2.0;
            }
          rlref_batch_set_threads (th);
          if (batch_matches_reference (c, rw, N, G, a1, a2, th == 1 ? "binary, 1 thread"
                                       : "binary, 2 threads"))
            continue;
          memcpy (a2, rw, N * sizeof *rw);
          TU_OK (rlref_grpo_adv_batch (a2, a2, N, G, c, NULL));
          for (i = 0; i < N && tu_same_double (a2[i], a1[i]); i++)
            ;
          ck_assert_msg (i == N, "%s G=%zu in place: adv[%zu] differs", c->name, G, i);
          cases++;
        }
  rlref_batch_set_threads (1);
  ck_assert (cases > 50);
  free (rw); free (a1); free (a2);
  gsl_rng_free (r);
}
END_TEST

/* Hand-checked values: [1,0,0,1] under seed-000 gives +-1 (std 0.5); a
 * zero-variance group under seed-001 and seed-000-code gives 0; the small
 * reward beside large ones is not lost (grpo.c): [1, 2, 1e-200] under
 * no-std gives r - mean = -1e-200/3, 1 - 1e-200/3 -> 1, and -1. */
START_TEST (test_grpo_examples)
{
  double r[4] = { 1, 0, 0, 1 }, a[4], z[4] = { 2, 2, 2, 2 };
  double m[3] = { 1, 2, 1e-200 }, b[3];
  TU_OK (rlref_grpo_adv_batch (a, r, 4, 4, rlref_adv_convention_find ("seed-000"), NULL));
  TU_ASSERT_SAME (a[0], 1.0);
  TU_ASSERT_SAME (a[1], -1.0);
  TU_OK (rlref_grpo_adv_batch (a, z, 4, 4, rlref_adv_convention_find ("seed-001"), NULL));
  TU_ASSERT_SAME (a[2], 0.0);
  TU_OK (rlref_grpo_adv_batch (a, z, 4, 2, rlref_adv_convention_find ("seed-000-code"), NULL));
  TU_ASSERT_SAME (a[3], 0.0);
  TU_OK (rlref_grpo_adv_batch (b, m, 3, 3, rlref_adv_convention_find ("no-std"), NULL));
  TU_ASSERT_REL (b[0], -1e-200 / 3.0, TU_TOL0);
  TU_ASSERT_SAME (b[1], 1.0);
  TU_ASSERT_SAME (b[2], -1.0);
}
END_TEST

/* The reference's statuses on bad input, and no allocation from the
 * workspace on the fast path. */
START_TEST (test_grpo_bad_input)
{
  const rlref_adv_convention *trl = rlref_adv_convention_find ("trl");
  const rlref_adv_convention *orl = rlref_adv_convention_find ("openrlhf");
  const rlref_adv_convention *verl = rlref_adv_convention_find ("verl");
  double r[4] = { 1, 0, NAN, 1 }, a[4], ok[4] = { 1, 0, 0, 1 };
  double big[64];
  rlref_ws *ws = rlref_ws_new (53);
  size_t n0;
  TU_ASSERT_STATUS (rlref_grpo_adv_batch (a, r, 4, 2, verl, NULL), RLREF_ENAN);
  r[2] = INFINITY;
  TU_ASSERT_STATUS (rlref_grpo_adv_batch (a, r, 4, 2, orl, NULL), RLREF_ENAN);
  TU_OK (rlref_grpo_adv_batch (a, r, 4, 2, trl, NULL));    /* TRL skips: group 2 -> 0 */
  TU_ASSERT_SAME (a[2], 0.0);
  TU_ASSERT_SAME (a[3], 0.0);
  ck_assert (a[0] > 0);
  TU_ASSERT_STATUS (rlref_grpo_adv_batch (a, ok, 4, 1, orl, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_grpo_adv_batch (a, ok, 4, 3, trl, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_grpo_adv_batch (a, ok, 0, 2, trl, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_grpo_adv_batch (a, ok, 4, 0, trl, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_grpo_adv_batch (NULL, ok, 4, 2, trl, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_grpo_adv_batch (a, ok, 4, 2, NULL, NULL), RLREF_EINVAL);
  TU_OK (rlref_grpo_adv_batch (a, ok, 4, 1, verl, NULL));  /* r/(1 + 1e-6) */
  TU_ASSERT_SAME (a[0], 1.0 / (1e-6 + 1.0));
  for (int i = 0; i < 64; i++)
    big[i] = 0.1 * i;                          /* sums that are not exact */
  ck_assert (ws);
  TU_OK (rlref_grpo_adv_batch (big, big, 64, 16, trl, ws));
  n0 = rlref_ws_nalloc (ws);
  for (int k = 0; k < 100; k++)
    TU_OK (rlref_grpo_adv_batch (a, ok, 4, 2, trl, ws));
  ck_assert_uint_eq (rlref_ws_nalloc (ws), n0);
  rlref_ws_free (ws);
}
END_TEST

/* --- KL ------------------------------------------------------------------- */

/* The distance of k from the exact k3 at l (MPFR), in ulps of k. */
static double
k3_ulps (double l, double k)
{
  mpfr_t lm, km;
  double d;
  mpfr_inits2 (256, lm, km, (mpfr_ptr) 0);
  mpfr_set_d (lm, l, MPFR_RNDN);
  TU_OK (rlref_kl_k3_mp (km, lm));
  mpfr_sub_d (km, km, k, MPFR_RNDN);
  d = fabs (mpfr_get_d (km, MPFR_RNDN)) / ulp_of (k);
  mpfr_clears (lm, km, (mpfr_ptr) 0);
  return d;
}

/* k1, k2 bit for bit; k3 within 3 ulp of the exact value and 8 ulp of the
 * reference; sums within the bound. */
START_TEST (test_kl_matches_reference)
{
  gsl_rng *r = tu_rng_new ();
  enum { NMAX = 3000 };
  const rlref_kl_convention *c1 = rlref_kl_convention_find ("KL-K1", "plain");
  const rlref_kl_convention *c2 = rlref_kl_convention_find ("KL-K2", "plain");
  const rlref_kl_convention *c3 = rlref_kl_convention_find ("KL-K3", "stable");
  double *lp = malloc (NMAX * sizeof *lp), *rf = malloc (NMAX * sizeof *rf),
    *k1 = malloc (NMAX * sizeof *k1), *k2 = malloc (NMAX * sizeof *k2),
    *k3 = malloc (NMAX * sizeof *k3), *e = malloc (NMAX * sizeof *e),
    *l = malloc (NMAX * sizeof *l);
  double worst_exact = 0, worst_ref = 0;
  ck_assert (c1 && c2 && c3 && lp && rf && k1 && k2 && k3 && e && l);
  for (int rep = 0; rep < 30; rep++)
    {
      size_t n = rep == 0 ? 1 : rep == 1 ? 256 : rep == 2 ? 7 : 1 + gsl_rng_uniform_int (r, NMAX);
      double scale = rep % 5 == 0 ? 0.05 : rep % 5 == 1 ? 0.6 : rep % 5 == 2 ? 3 : rep % 5 == 3
        ? 300 : 1.6;
      double sums[3], abs_[3] = { 0, 0, 0 }, exact[3];
      for (size_t i = 0; i < n; i++)
        {
          lp[i] = tu_uniform (r, -12, 0);
          rf[i] = lp[i] - tu_uniform (r, -1, 1) * scale;
          if (i % 97 == 5)
            rf[i] = lp[i];                        /* l = 0 */
        }
      TU_OK (rlref_kl_batch (k1, k2, k3, sums, lp, rf, n));
      TU_OK (rlref_kl_estimate_d (e, NULL, lp, rf, n, c1));
      for (size_t i = 0; i < n; i++)
        {
          TU_ASSERT_SAME (k1[i], e[i]);
          l[i] = lp[i] - rf[i];
        }
      TU_OK (rlref_kl_estimate_d (e, NULL, lp, rf, n, c2));
      for (size_t i = 0; i < n; i++)
        TU_ASSERT_SAME (k2[i], e[i]);
      TU_OK (rlref_kl_estimate_d (e, NULL, lp, rf, n, c3));
      for (size_t i = 0; i < n; i++)
        {
          double de = k3_ulps (l[i], k3[i]), dr = fabs (k3[i] - e[i]) / ulp_of (e[i]);
          worst_exact = de > worst_exact ? de : worst_exact;
          worst_ref = dr > worst_ref ? dr : worst_ref;
          ck_assert_msg (de <= 3.0, "k3(%a) = %a: %.2f ulp from the exact value", l[i], k3[i],
                         de);
          ck_assert_msg (dr <= 8.0, "k3(%a) = %a, reference %a: %.2f ulp", l[i], k3[i], e[i],
                         dr);
        }
      exact[0] = exact_sum (k1, n);
      exact[1] = exact_sum (k2, n);
      exact[2] = exact_sum (k3, n);
      for (size_t i = 0; i < n; i++)
        {
          abs_[0] += fabs (k1[i]);
          abs_[1] += k2[i];
          abs_[2] += k3[i];
        }
      for (int j = 0; j < 3; j++)
        ck_assert_msg (fabs (sums[j] - exact[j])
                       <= 0x1p-52 * fabs (exact[j]) + 40 * 0x1p-53 * abs_[j] * (1 + 1e-12),
                       "rep %d n %zu sum %d = %.17g, exact %.17g", rep, n, j, sums[j], exact[j]);
      /* log-ratios given directly; NULL outputs */
      TU_OK (rlref_kl_batch (NULL, NULL, e, NULL, l, NULL, n));
      for (size_t i = 0; i < n; i++)
        TU_ASSERT_SAME (e[i], k3[i]);
    }
  printf ("kl batch, %s path: k3 within %.2f ulp of exact, %.2f ulp of the reference\n",
          rlref_kl_batch_path (), worst_exact, worst_ref);
  free (lp); free (rf); free (k1); free (k2); free (k3); free (e); free (l);
  gsl_rng_free (r);
}
END_TEST

/* Edges: l = 0, +-1/2, +-3/2 and the doubles beside 3/2 (where the
 * polynomial gives way to expm1), tiny l (k3 subnormal or 0), large l
 * (k3 near the largest double); each k3 within 3 ulp of exact, on a whole
 * vector (n = 16, the values twice) and token by token (n = 1).  Then
 * NaN, inf, empty, overflow: ENAN before ERANGE wherever the non-finite
 * input is, and an overflowing l = logp - ref of finite inputs is ERANGE. */
START_TEST (test_kl_edges)
{
  double l[16] = { 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 0x1.7ffffffffffffp+0,
                   -0x1.7ffffffffffffp+0, 1e-300, -1e-10, 1e-160, -2e-160, 700.0, -709.0,
                   -0x1.62e42fefa39efp+9, 20.0 };
  double k1[32], k2[32], k3[32], s[3], one[1];
  double bad[2] = { 0.0, NAN }, huge[1] = { -800.0 }, *big, *nan_;
  double lp[2] = { 1e308, 0.0 }, rf[2] = { -1e308, 0.0 };
  memcpy (k1, l, sizeof l);
  memcpy (k1 + 16, l, sizeof l);
  TU_OK (rlref_kl_batch (NULL, k2, k3, s, k1, NULL, 32));
  for (int i = 0; i < 16; i++)
    {
      TU_OK (rlref_kl_batch (NULL, NULL, one, NULL, l + i, NULL, 1));
      ck_assert_msg (k3_ulps (l[i], k3[i]) <= 3.0 && k3_ulps (l[i], k3[i + 16]) <= 3.0
                     && k3_ulps (l[i], one[0]) <= 3.0, "k3(%a) = %a, %a, %a", l[i], k3[i],
                     k3[i + 16], one[0]);
      TU_ASSERT_SAME (k2[i], (l[i] * l[i]) * 0.5);
    }
  TU_ASSERT_SAME (k3[0], 0.0);
  TU_ASSERT_SAME (k3[1], 0.0);
  TU_ASSERT_SAME (k3[8], 0.0);                 /* 1e-600/2 underflows */
  TU_ASSERT_REL (k3[9], 0.5e-20 * (1 + 1e-10 / 3), TU_TOL0);
  TU_ASSERT_SAME (k2[2], 0.125);
  TU_ASSERT_STATUS (rlref_kl_batch (k1, k2, k3, s, bad, NULL, 2), RLREF_ENAN);
  bad[1] = INFINITY;
  TU_ASSERT_STATUS (rlref_kl_batch (k1, k2, k3, s, l, bad, 2), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_kl_batch (k1, k2, k3, s, l, NULL, 0), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_kl_batch (k1, k2, k3, s, NULL, NULL, 2), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_kl_batch (k1, k2, k3, s, huge, NULL, 1), RLREF_ERANGE);
  ck_assert (isinf (k3[0]) && isinf (s[2]));
  TU_ASSERT_STATUS (rlref_kl_batch (k1, k2, k3, s, lp, rf, 2), RLREF_ERANGE);
  ck_assert (isinf (k1[0]) && isinf (k2[0]));
  /* on whole vectors: an overflowing k3 at token 1000 of 2000 is ERANGE; a
   * NaN at token 1500 as well makes it ENAN; an infinite ref, ENAN */
  big = malloc (2000 * sizeof *big);
  nan_ = malloc (2000 * sizeof *nan_);
  ck_assert (big && nan_);
  for (int i = 0; i < 2000; i++)
    big[i] = nan_[i] = 0.01 * (i % 7);
  big[1000] = -800.0;
  TU_ASSERT_STATUS (rlref_kl_batch (NULL, NULL, NULL, s, big, NULL, 2000), RLREF_ERANGE);
  big[1500] = NAN;
  TU_ASSERT_STATUS (rlref_kl_batch (NULL, NULL, NULL, s, big, NULL, 2000), RLREF_ENAN);
  nan_[1999] = -INFINITY;
  TU_ASSERT_STATUS (rlref_kl_batch (NULL, NULL, NULL, s, big + 1, nan_, 1999), RLREF_ENAN);
  big[1500] = 0.0;
  TU_ASSERT_STATUS (rlref_kl_batch (NULL, NULL, NULL, s, nan_, big, 2000), RLREF_ENAN);
  free (big);
  free (nan_);
}
END_TEST

/* For |l| < 3/2 a token's k3 does not depend on the path that forms it:
 * a block of 256 such tokens (the loop without checks), the same block
 * with one |l| >= 3/2 in it (the checked loop), and each token alone (one
 * at a time) give the same bits. */
START_TEST (test_kl_paths)
{
  gsl_rng *r = tu_rng_new ();
  enum { NB = 256 };
  double l[NB], a[NB], b[NB], one[1];
  for (int i = 0; i < NB; i++)
    l[i] = tu_uniform (r, -1.5, 1.5) * (i % 3 == 0 ? 1e-3 : 1.0);
  TU_OK (rlref_kl_batch (NULL, NULL, a, NULL, l, NULL, NB));
  l[100] = 5.0;
  TU_OK (rlref_kl_batch (NULL, NULL, b, NULL, l, NULL, NB));
  for (int i = 0; i < NB; i++)
    if (i != 100)
      {
        TU_OK (rlref_kl_batch (NULL, NULL, one, NULL, l + i, NULL, 1));
        ck_assert_msg (tu_same_double (b[i], a[i]) && tu_same_double (one[0], a[i]),
                       "k3(%a) = %a (block), %a (checked block), %a (alone)", l[i], a[i], b[i],
                       one[0]);
      }
  ck_assert (k3_ulps (5.0, b[100]) <= 3.0);
  gsl_rng_free (r);
}
END_TEST

/* --- DPO ------------------------------------------------------------------ */

/* D = pw - rw - pl + rl near and at midpoints, where rounding the errors'
 * sum first would round D the wrong way (1 + 2^-53 + 2^-110 is 1 + 2^-52,
 * not 1): scaled by 2^k, both signs, with and without the far term;
 * every form without per-token means, bit for bit the reference. */
START_TEST (test_dpo_near_midpoints)
{
  enum { B = 4 * 41 * 3 };
  double pw[B], pl[B], rw[B], rl[B], out1[5][B], out2[5][B];
  size_t n = 0;
  for (int k = -20; k <= 20; k++)
    for (int sg = -1; sg <= 1; sg += 2)
      for (int far = -1; far <= 1; far++)
        {
          double a = ldexp (1.0, k);
          pw[n] = sg * a;
          rw[n] = -sg * ldexp (1.0, k - 53);
          pl[n] = -far * ldexp (1.0, k - 110);
          rl[n] = 0.0;
          n++;
          pw[n] = -4.0 * a;                     /* a tie in the middle of the log-ratios */
          rw[n] = -4.0 * a + ldexp (3.0, k - 54);
          pl[n] = ldexp (1.0, k - 107) * far;
          rl[n] = -ldexp (1.0, k);
          n++;
        }
  for (int form = RLREF_DPO_SIGMOID; form <= RLREF_DPO_IPO; form++)
    {
      rlref_dpo_convention c = { (enum rlref_dpo_form) form, 0, 0 };
      double beta = 0.5, eps = 0.1, loss1, loss2;
      TU_OK (rlref_dpo_loss_d (&loss1, out1[0], out1[1], out1[2], out1[3], out1[4], pw, pl, rw,
                               rl, NULL, NULL, n, &c, &beta, &eps));
      TU_OK (rlref_dpo_loss_batch (&loss2, out2[0], out2[1], out2[2], out2[3], out2[4], pw, pl,
                                   rw, rl, NULL, NULL, n, &c, beta, eps));
      TU_ASSERT_SAME (loss2, loss1);
      for (int j = 0; j < 5; j++)
        for (size_t i = 0; i < n; i++)
          ck_assert_msg (tu_same_double (out2[j][i], out1[j][i]),
                         "form %d output %d [%zu] = %a, reference %a (pair %a %a %a %a)", form,
                         j, i, out2[j][i], out1[j][i], pw[i], rw[i], pl[i], rl[i]);
    }
}
END_TEST

START_TEST (test_dpo_matches_reference)
{
  gsl_rng *r = tu_rng_new ();
  enum { B = 700 };
  double pw[B], pl[B], rw[B], rl[B], out1[5][B], out2[5][B];
  long nw[B], nl[B];
  for (int form = RLREF_DPO_SIGMOID; form <= RLREF_DPO_IPO; form++)
    for (int flags = 0; flags < 4; flags++)
      for (int rep = 0; rep < 3; rep++)
        {
          rlref_dpo_convention c = { (enum rlref_dpo_form) form, flags & 1, (flags >> 1) & 1 };
          double beta = tu_uniform (r, 0.01, 2), eps = tu_uniform (r, 0, 0.45), loss1, loss2;
          double spread = rep == 0 ? 1 : rep == 1 ? 50 : 2000;
          size_t n = rep == 0 ? 1 : B;
          for (size_t i = 0; i < n; i++)
            {
              pw[i] = tu_uniform (r, -200, 0);
              pl[i] = tu_uniform (r, -200, 0);
              rw[i] = pw[i] + tu_uniform (r, -1, 1) * spread;
              rl[i] = pl[i] + tu_uniform (r, -1, 1) * spread;
              nw[i] = 1 + (long) gsl_rng_uniform_int (r, 300);
              nl[i] = 1 + (long) gsl_rng_uniform_int (r, 300);
              if (i % 50 == 7)
                {
                  rw[i] = pw[i];                 /* D = 0 */
                  rl[i] = pl[i];
                }
            }
          TU_OK (rlref_dpo_loss_d (&loss1, out1[0], out1[1], out1[2], out1[3], out1[4], pw, pl,
                                   rw, rl, nw, nl, n, &c, &beta, &eps));
          TU_OK (rlref_dpo_loss_batch (&loss2, out2[0], out2[1], out2[2], out2[3], out2[4], pw,
                                       pl, rw, rl, nw, nl, n, &c, beta, eps));
          TU_ASSERT_SAME (loss2, loss1);
          for (int j = 0; j < 5; j++)
            for (size_t i = 0; i < n; i++)
              ck_assert_msg (tu_same_double (out2[j][i], out1[j][i]),
                             "form %d flags %d output %d [%zu] = %a, reference %a", form, flags,
                             j, i, out2[j][i], out1[j][i]);
          TU_OK (rlref_dpo_loss_batch (&loss2, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl, nw,
                                       nl, n, &c, beta, eps));
          TU_ASSERT_SAME (loss2, loss1);
        }
  gsl_rng_free (r);
}
END_TEST

/* Pairs where D is not the difference of the rounded log-ratios (the
 * reference's rounded sum of four, or its per-token numerator over the
 * counts, exact or scaled where it overflows, with a subnormal D), and
 * robust DPO at a subnormal beta: every form and flag, bit for bit, the
 * statuses too (ERANGE where a log-ratio overflows). */
START_TEST (test_dpo_cancellation_matches_reference)
{
  enum { B = 7 };
  static const double pw[B] = { -1e6, -0x1p1023, -10, 0x1p-1073, -10, -3.25, 1e300 };
  static const double pl[B] = { -1, 0x1p1023, -11, 0, -11, -4, -2 };
  static const double rw[B] = { 0x1.ffffffffffffep+1023, 0x1.8p1022, 1, 0, -12, -3, -1e300 };
  static const double rl[B] = { 0x1.ffffffffffffep+1023, -0x1.8p1022, -0x1p-93, 0x1p-1074,
                                -11.5, -4.25, -3 };
  static const long nw[B] = { 1000, 4, 1, 3, 4, 2, 7 }, nl[B] = { 1000, 4, 1, 3, 5, 0, 9 };
  static const double betas[3] = { 0.1, 0x1p-1074, 0x1p434 };
  double out1[5][B], out2[5][B];
  for (int form = RLREF_DPO_SIGMOID; form <= RLREF_DPO_IPO; form++)
    for (int flags = 0; flags < 4; flags++)
      for (int kb = 0; kb < 3; kb++)
        for (size_t first = 0; first < B; first++)
          for (size_t n = 1; first + n <= B; n++)
            {
              rlref_dpo_convention c = { (enum rlref_dpo_form) form, flags & 1, (flags >> 1) & 1 };
              double beta = betas[kb], eps = 0.49, loss1 = 0, loss2 = 0;
              int s1, s2;
              s1 = rlref_dpo_loss_d (&loss1, out1[0], out1[1], out1[2], out1[3], out1[4],
                                     pw + first, pl + first, rw + first, rl + first, nw + first,
                                     nl + first, n, &c, &beta, &eps);
              s2 = rlref_dpo_loss_batch (&loss2, out2[0], out2[1], out2[2], out2[3], out2[4],
                                         pw + first, pl + first, rw + first, rl + first,
                                         nw + first, nl + first, n, &c, beta, eps);
              ck_assert_msg (s1 == s2, "form %d flags %d beta %a pairs %zu+%zu: status %d, "
                             "reference %d", form, flags, beta, first, n, s2, s1);
              if (s1)
                continue;
              TU_ASSERT_SAME (loss2, loss1);
              for (int j = 0; j < 5; j++)
                for (size_t i = 0; i < n; i++)
                  ck_assert_msg (tu_same_double (out2[j][i], out1[j][i]),
                                 "form %d flags %d beta %a output %d [%zu] = %a, reference %a",
                                 form, flags, beta, j, first + i, out2[j][i], out1[j][i]);
            }
}
END_TEST

/* The sigmoid loss's gradient in its accurate form: at b D = 40,
 * sigma(-40) = 4.248e-18 is kept (1 - sigma(40) would give 0), and the
 * loss is log1p(e^-40); the statuses of bad input. */
START_TEST (test_dpo_edges)
{
  rlref_dpo_convention sig = { RLREF_DPO_SIGMOID, 0, 0 }, pt = { RLREF_DPO_SIGMOID, 0, 1 };
  rlref_dpo_convention cd = { RLREF_DPO_CDPO, 0, 0 }, rb = { RLREF_DPO_ROBUST, 0, 0 };
  double pw[1] = { 0.0 }, pl[1] = { -40.0 }, rw[1] = { 0.0 }, rl[1] = { 0.0 };
  double loss, gw, gl, nan_[1] = { NAN }, big[1] = { 1e308 }, nbig[1] = { -1e308 };
  long n0[1] = { -1 };          /* a negative count: a count of 0 counts as 1 */
  TU_OK (rlref_dpo_loss_batch (&loss, NULL, &gw, &gl, NULL, NULL, pw, pl, rw, rl, NULL, NULL, 1,
                               &sig, 1.0, 0.0));
  TU_ASSERT_REL (gw, -exp (-40.0) / (1 + exp (-40.0)), TU_TOL0);
  TU_ASSERT_REL (gl, exp (-40.0) / (1 + exp (-40.0)), TU_TOL0);
  TU_ASSERT_REL (loss, log1p (exp (-40.0)), TU_TOL0);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          NULL, NULL, 0, &sig, 1.0, 0.0), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, nan_, pl, rw, rl,
                                          NULL, NULL, 1, &sig, 1.0, 0.0), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, nan_, pl, rw,
                                          NULL, NULL, NULL, 1, &sig, 1.0, 0.0), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, NULL,
                                          NULL, NULL, 1, &sig, 1.0, 0.0), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          NULL, NULL, 1, &sig, 0.0, 0.0), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          NULL, NULL, 1, &sig, NAN, 0.0), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          NULL, NULL, 1, &pt, 1.0, 0.0), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          n0, n0, 1, &pt, 1.0, 0.0), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          NULL, NULL, 1, &cd, 1.0, 1.5), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          NULL, NULL, 1, &rb, 1.0, 0.5), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          NULL, NULL, 1, &cd, 1.0, -0.0 - 1e-3), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (&loss, NULL, NULL, NULL, NULL, NULL, big, nbig, rw,
                                          rl, NULL, NULL, 1, &sig, 1.0, 0.0), RLREF_ERANGE);
  TU_ASSERT_STATUS (rlref_dpo_loss_batch (NULL, NULL, NULL, NULL, NULL, NULL, pw, pl, rw, rl,
                                          NULL, NULL, 1, &sig, 1.0, 0.0), RLREF_EINVAL);
}
END_TEST

/* The fast path of the sigmoid loss against rlref_dpo_loss_batch and the
 * exact values (MPFR): each gradient within 8 ulp of the reference's and 5
 * ulp of the exact -b sigma(-b D)/B; the loss within 8 ulp plus
 * (B/4 + 12) u sum_i l_i / B of the reference's.  (On the scalar path they
 * agree bit for bit.)  Also B < 4 (the scalar path) and a bad input. */
START_TEST (test_dpo_simd)
{
  gsl_rng *r = tu_rng_new ();
  enum { B = 1003 };
  rlref_dpo_convention c = { RLREF_DPO_SIGMOID, 0, 0 };
  double pw[B], pl[B], rw[B], rl[B], l1[B], g1[B], h1[B], g2[B], h2[B];
  double worst_ref = 0, worst_exact = 0;
  int simd = strcmp (rlref_dpo_sigmoid_batch_simd_path (), "SLEEF AVX2") == 0;
  mpfr_t z, e;
  mpfr_inits2 (256, z, e, (mpfr_ptr) 0);
  for (int rep = 0; rep < 6; rep++)
    {
      double beta = tu_uniform (r, 0.01, 2), loss1, loss2, sl = 0;
      double spread = rep < 2 ? 1 : rep < 4 ? 30 : 1000;
      size_t n = rep == 5 ? 3 : B;
      for (size_t i = 0; i < n; i++)
        {
          pw[i] = tu_uniform (r, -200, 0);
          pl[i] = tu_uniform (r, -200, 0);
          rw[i] = pw[i] + tu_uniform (r, -1, 1) * spread;
          rl[i] = pl[i] + tu_uniform (r, -1, 1) * spread;
        }
      TU_OK (rlref_dpo_loss_batch (&loss1, l1, g1, h1, NULL, NULL, pw, pl, rw, rl, NULL, NULL, n,
                                   &c, beta, 0.0));
      TU_OK (rlref_dpo_sigmoid_batch_simd (&loss2, g2, h2, pw, pl, rw, rl, n, beta));
      for (size_t i = 0; i < n; i++)
        {
          double d = fabs (g2[i] - g1[i]) / ulp_of (g1[i]), de;
          /* exact: -b sigma(-z)/B = -b/(1 + e^z)/B, z = b D of the rounded D */
          double zd = beta * ((pw[i] - rw[i]) - (pl[i] - rl[i]));
          mpfr_set_d (z, zd, MPFR_RNDN);
          mpfr_exp (e, z, MPFR_RNDN);
          mpfr_add_d (e, e, 1.0, MPFR_RNDN);
          mpfr_d_div (e, -beta, e, MPFR_RNDN);
          mpfr_div_d (e, e, (double) n, MPFR_RNDN);
          mpfr_sub_d (e, e, g2[i], MPFR_RNDN);
          de = fabs (mpfr_get_d (e, MPFR_RNDN)) / ulp_of (g2[i]);
          worst_ref = d > worst_ref ? d : worst_ref;
          worst_exact = de > worst_exact ? de : worst_exact;
          ck_assert_msg (d <= 8.0, "grad_w[%zu] = %a, reference %a", i, g2[i], g1[i]);
          ck_assert_msg (de <= 5.0, "grad_w[%zu] = %a: %.2f ulp from exact", i, g2[i], de);
          TU_ASSERT_SAME (h2[i], -g2[i]);
          if (!simd || n < 4)
            {
              TU_ASSERT_SAME (g2[i], g1[i]);
              TU_ASSERT_SAME (h2[i], h1[i]);
            }
          sl += l1[i];
        }
      ck_assert_msg (fabs (loss2 - loss1) <= 8 * ulp_of (loss1)
                     + ((double) n / 4 + 12) * 0x1p-53 * sl / (double) n,
                     "loss %a, reference %a", loss2, loss1);
      if (!simd || n < 4)
        TU_ASSERT_SAME (loss2, loss1);
    }
  printf ("dpo sigmoid, %s path: gradients within %.2f ulp of the reference, %.2f ulp of "
          "exact\n", rlref_dpo_sigmoid_batch_simd_path (), worst_ref, worst_exact);
  pw[1] = NAN;
  TU_ASSERT_STATUS (rlref_dpo_sigmoid_batch_simd (&l1[0], g2, h2, pw, pl, rw, rl, 8, 0.1),
                    RLREF_ENAN);
  pw[1] = 0;
  TU_ASSERT_STATUS (rlref_dpo_sigmoid_batch_simd (&l1[0], g2, h2, pw, pl, rw, rl, 8, -1.0),
                    RLREF_EDOM);
  mpfr_clears (z, e, (mpfr_ptr) 0);
  gsl_rng_free (r);
}
END_TEST

/* Pair by pair on the SLEEF path: four equal pairs (beta = 1, D = z) give
 * loss = (l + l) + (l + l) over 4 = l exactly, the kernel's own loss of
 * one pair, so each l is held to the exact softplus(-z) = log1p(e^-z)
 * (MPFR): within 6 ulp (E within 1 ulp, log1p01_avx2 within 3 ulp, the
 * sum with max(-z, 0)), and each gradient within 5 ulp of the exact
 * -sigma(-z)/4; z over [-750, 750]: 0, tiny, near the ends of exp's range
 * (E subnormal or 0), random.  Then beta/B below DBL_MIN: the bit-exact
 * kernel, bit for bit; and bad input in each array. */
START_TEST (test_dpo_simd_pairs)
{
  static const double special[] = { 0.0, 1e-300, 1e-20, 1e-8, 0.5, 1.0, 2.0, 36.7, 37.5,
                                     700.0, 708.0, 708.5, 709.7, 720.0, 744.0, 745.1, 750.0 };
  gsl_rng *r = tu_rng_new ();
  double zero4[4] = { 0, 0, 0, 0 }, zv[4], gw[4], gl[4], worst_l = 0, worst_g = 0;
  size_t ns = sizeof special / sizeof special[0];
  mpfr_t m, e;
  mpfr_inits2 (256, m, e, (mpfr_ptr) 0);
  for (size_t k = 0; k < 2 * ns + 4000; k++)
    {
      double z, loss, dl, dg;
      if (k < 2 * ns)
        z = k % 2 ? -special[k / 2] : special[k / 2];
      else if (k % 2)
        z = tu_uniform (r, -40, 40);
      else
        z = (gsl_rng_uniform (r) < 0.5 ? -1 : 1) * exp (tu_uniform (r, -40, log (750.0)));
      for (int i = 0; i < 4; i++)
        zv[i] = z;
      TU_OK (rlref_dpo_sigmoid_batch_simd (&loss, gw, gl, zv, zero4, zero4, zero4, 4, 1.0));
      /* softplus(-z) = log1p(e^-z) */
      mpfr_set_d (m, -z, MPFR_RNDN);
      mpfr_exp (e, m, MPFR_RNDN);
      mpfr_log1p (e, e, MPFR_RNDN);
      mpfr_sub_d (e, e, loss, MPFR_RNDN);
      dl = fabs (mpfr_get_d (e, MPFR_RNDN)) / ulp_of (loss);
      /* -sigma(-z)/4 = -1/(4 (1 + e^z)) */
      mpfr_set_d (m, z, MPFR_RNDN);
      mpfr_exp (e, m, MPFR_RNDN);
      mpfr_add_d (e, e, 1.0, MPFR_RNDN);
      mpfr_mul_d (e, e, 4.0, MPFR_RNDN);
      mpfr_d_div (e, -1.0, e, MPFR_RNDN);
      mpfr_sub_d (e, e, gw[0], MPFR_RNDN);
      dg = fabs (mpfr_get_d (e, MPFR_RNDN)) / ulp_of (gw[0]);
      worst_l = dl > worst_l ? dl : worst_l;
      worst_g = dg > worst_g ? dg : worst_g;
      ck_assert_msg (dl <= 6.0, "z = %a: loss %a, %.2f ulp from exact", z, loss, dl);
      ck_assert_msg (dg <= 5.0, "z = %a: grad %a, %.2f ulp from exact", z, gw[0], dg);
      for (int i = 0; i < 4; i++)
        {
          TU_ASSERT_SAME (gw[i], gw[0]);
          TU_ASSERT_SAME (gl[i], -gw[0]);
        }
    }
  printf ("dpo sigmoid, %s path, pair by pair: losses within %.2f ulp of exact, gradients "
          "within %.2f ulp\n", rlref_dpo_sigmoid_batch_simd_path (), worst_l, worst_g);
  {
    /* beta/B = 1e-310/8 is subnormal: the bit-exact kernel */
    rlref_dpo_convention c = { RLREF_DPO_SIGMOID, 0, 0 };
    double pw[8], pl[8], rw[8], rl[8], g1[8], h1[8], g2[8], h2[8], l1, l2;
    for (int i = 0; i < 8; i++)
      {
        pw[i] = tu_uniform (r, -200, 0);
        pl[i] = tu_uniform (r, -200, 0);
        rw[i] = pw[i] + tu_uniform (r, -30, 30);
        rl[i] = pl[i] + tu_uniform (r, -30, 30);
      }
    TU_OK (rlref_dpo_loss_batch (&l1, NULL, g1, h1, NULL, NULL, pw, pl, rw, rl, NULL, NULL, 8,
                                 &c, 1e-310, 0.0));
    TU_OK (rlref_dpo_sigmoid_batch_simd (&l2, g2, h2, pw, pl, rw, rl, 8, 1e-310));
    TU_ASSERT_SAME (l2, l1);
    for (int i = 0; i < 8; i++)
      {
        TU_ASSERT_SAME (g2[i], g1[i]);
        TU_ASSERT_SAME (h2[i], h1[i]);
      }
  }
  {
    /* one finiteness check of z covers the four inputs: a NaN or an
     * infinity in any array, at a lane of the second vector, alone or
     * against another infinity, is ENAN; z = b D overflowing is ERANGE */
    double v[4][8], g[8], h[8], l, bad[3] = { NAN, INFINITY, -INFINITY };
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 8; i++)
        v[j][i] = -1.0 - i - j;
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 3; k++)
        {
          v[j][5] = bad[k];
          TU_ASSERT_STATUS (rlref_dpo_sigmoid_batch_simd (&l, g, h, v[0], v[1], v[2], v[3], 8,
                                                          0.1), RLREF_ENAN);
          v[j][5] = -1.0 - 5 - j;
        }
    v[0][6] = v[2][6] = INFINITY;
    TU_ASSERT_STATUS (rlref_dpo_sigmoid_batch_simd (&l, g, h, v[0], v[1], v[2], v[3], 8, 0.1),
                      RLREF_ENAN);
    v[0][6] = -1e300;
    v[2][6] = 1e300;
    TU_ASSERT_STATUS (rlref_dpo_sigmoid_batch_simd (&l, g, h, v[0], v[1], v[2], v[3], 8, 1e10),
                      RLREF_ERANGE);
  }
  mpfr_clears (m, e, (mpfr_ptr) 0);
  gsl_rng_free (r);
}
END_TEST

/* --- GAE ------------------------------------------------------------------ */

START_TEST (test_gae_matches_reference)
{
  gsl_rng *r = tu_rng_new ();
  enum { BMAX = 12, WMAX = 200 };
  double *rw = malloc (BMAX * WMAX * sizeof *rw), *v = malloc (BMAX * WMAX * sizeof *v),
    *a1 = malloc (BMAX * WMAX * sizeof *a1), *a2 = malloc (BMAX * WMAX * sizeof *a2),
    *t1 = malloc (BMAX * WMAX * sizeof *t1), *t2 = malloc (BMAX * WMAX * sizeof *t2);
  unsigned char *m = malloc (BMAX * WMAX);
  double score[BMAX];
  size_t same = 0, total = 0;
  ck_assert (rw && v && a1 && a2 && t1 && t2 && m);
  for (int c = RLREF_GAE_SEED; c <= RLREF_GAE_OPENRLHF; c++)
    for (int rep = 0; rep < 8; rep++)
      {
        size_t B = 1 + gsl_rng_uniform_int (r, BMAX), W = 1 + gsl_rng_uniform_int (r, WMAX);
        double gamma = rep % 2 ? 1.0 : tu_uniform (r, 0.9, 1), lambda = rep % 3 ? 0.95 :
          tu_uniform (r, 0, 1), sc = rep % 4 == 3 ? 1e6 : 1;
        for (size_t b = 0; b < B; b++)
          {
            size_t n = 1 + gsl_rng_uniform_int (r, W);
            score[b] = tu_uniform (r, -1, 1) * sc;
            for (size_t t = 0; t < W; t++)
              {
                rw[b * W + t] = tu_uniform (r, -0.1, 0.1) * sc;
                v[b * W + t] = tu_uniform (r, -2, 2) * sc;
                if (c == RLREF_GAE_SEED || c == RLREF_GAE_TRL)
                  m[b * W + t] = t < n;
                else
                  m[b * W + t] = t == 0 || gsl_rng_uniform (r) < 0.7;
              }
          }
        TU_OK (rlref_mdp_gae_d (a1, t1, rw, v, m, rep % 5 ? score : NULL, B, W, &gamma, &lambda,
                                (rlref_gae_rule) c));
        TU_OK (rlref_gae_batch (a2, t2, rw, v, m, rep % 5 ? score : NULL, B, W, gamma, lambda,
                                (rlref_gae_rule) c));
        for (size_t b = 0; b < B; b++)
          {
            double M = 0;
            for (size_t t = 0; t < W; t++)
              M = fmax (M, fabs (rw[b * W + t]) + fabs (v[b * W + t]) + fabs (score[b]));
            for (size_t t = 0; t < W; t++)
              {
                size_t i = b * W + t;
                double tol_a = ulp_of (a1[i]) + 0x1p-100 * (double) W * M;
                double tol_t = ulp_of (t1[i]) + 0x1p-100 * (double) W * M;
                ck_assert_msg (fabs (a2[i] - a1[i]) <= tol_a,
                               "rule %d row %zu t %zu: adv %a, reference %a", c, b, t, a2[i],
                               a1[i]);
                ck_assert_msg (fabs (t2[i] - t1[i]) <= tol_t,
                               "rule %d row %zu t %zu: ret %a, reference %a", c, b, t, t2[i],
                               t1[i]);
                same += tu_same_double (a2[i], a1[i]) && tu_same_double (t2[i], t1[i]);
                total++;
              }
          }
      }
  printf ("gae batch: %zu of %zu positions bit for bit the reference\n", same, total);
  ck_assert (same > total * 9 / 10);
  free (rw); free (v); free (a1); free (a2); free (t1); free (t2); free (m);
  gsl_rng_free (r);
}
END_TEST

START_TEST (test_gae_bad_input)
{
  double r[4] = { 0, 0, 0, 1 }, v[4] = { 0.5, 0.5, 0.5, 0.5 }, a[4], t[4], s = 1;
  unsigned char ok[4] = { 1, 1, 1, 0 }, hole[4] = { 1, 0, 1, 0 }, two[4] = { 1, 2, 0, 0 };
  unsigned char none[4] = { 0, 0, 0, 0 };
  TU_OK (rlref_gae_batch (a, t, r, v, ok, &s, 1, 4, 1.0, 0.95, RLREF_GAE_SEED));
  TU_ASSERT_SAME (a[3], 0.0);
  TU_ASSERT_STATUS (rlref_gae_batch (a, t, r, v, hole, &s, 1, 4, 1, 1, RLREF_GAE_SEED),
                    RLREF_EINVAL);
  TU_OK (rlref_gae_batch (a, t, r, v, hole, &s, 1, 4, 1, 1, RLREF_GAE_VERL));
  TU_ASSERT_STATUS (rlref_gae_batch (a, t, r, v, two, &s, 1, 4, 1, 1, RLREF_GAE_VERL),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_gae_batch (a, t, r, v, none, &s, 1, 4, 1, 1, RLREF_GAE_VERL),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_gae_batch (a, t, r, v, ok, &s, 1, 4, 1.5, 1, RLREF_GAE_VERL),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_gae_batch (a, t, r, v, ok, &s, 1, 4, NAN, 1, RLREF_GAE_VERL),
                    RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_gae_batch (a, t, r, v, ok, &s, 0, 4, 1, 1, RLREF_GAE_VERL),
                    RLREF_EINVAL);
  r[1] = NAN;
  TU_ASSERT_STATUS (rlref_gae_batch (a, t, r, v, ok, &s, 1, 4, 1, 1, RLREF_GAE_VERL),
                    RLREF_ENAN);
}
END_TEST

/* --- threads --------------------------------------------------------------- */

/* With 2 threads the kernels give the bits they give with 1: GRPO (with
 * groups the fast path declines in the middle, so the sequential loop
 * takes over), the KL sums and values, the fast sigmoid loss. */
START_TEST (test_threads)
{
  gsl_rng *r = tu_rng_new ();
  enum { G = 16, NG = 8192, N = G * NG, NK = 100003, NB = 70001, NMAX = 4 * NB };
  const rlref_adv_convention *c = rlref_adv_convention_find ("seed-000-code");
  double *rw = malloc (NMAX * sizeof *rw), *a1 = malloc (NMAX * sizeof *a1),
    *a2 = malloc (NMAX * sizeof *a2), *a3 = malloc (NMAX * sizeof *a3);
  double s1[3], s2[3], l1, l2;
  ck_assert (rw && a1 && a2 && a3 && c);
  for (size_t i = 0; i < N; i++)
    rw[i] = (double) (gsl_rng_uniform (r) < 0.5);
  for (size_t i = 5000 * G; i < 5001 * G; i++)
    rw[i] = tu_uniform (r, 0, 1);               /* not dyadic: the exact path */
  ck_assert_int_eq (rlref_batch_set_threads (2), 1);
  ck_assert_int_eq (rlref_batch_threads (), 2);
  TU_OK (rlref_grpo_adv_batch (a2, rw, N, G, c, NULL));
  rlref_batch_set_threads (1);
  TU_OK (rlref_grpo_adv_batch (a1, rw, N, G, c, NULL));
  TU_OK (rlref_grpo_adv_d (a3, rw, N, G, c));
  for (size_t i = 0; i < N; i++)
    {
      TU_ASSERT_SAME (a2[i], a1[i]);
      TU_ASSERT_SAME (a1[i], a3[i]);
    }
  for (size_t i = 0; i < NK; i++)
    rw[i] = 0.3 * gsl_ran_gaussian_ziggurat (r, 1.0);
  TU_OK (rlref_kl_batch (a1, NULL, a3, s1, rw, NULL, NK));
  rlref_batch_set_threads (2);
  TU_OK (rlref_kl_batch (a2, NULL, a2 + NK, s2, rw, NULL, NK));
  for (size_t i = 0; i < NK; i++)
    TU_ASSERT_SAME (a2[NK + i], a3[i]);
  for (int j = 0; j < 3; j++)
    TU_ASSERT_SAME (s2[j], s1[j]);
  for (size_t i = 0; i < 4 * NB; i++)
    rw[i] = tu_uniform (r, -100, 0);
  TU_OK (rlref_dpo_sigmoid_batch_simd (&l2, a2, a2 + NB, rw, rw + NB, rw + 2 * NB, rw + 3 * NB,
                                       NB, 0.1));
  rlref_batch_set_threads (1);
  TU_OK (rlref_dpo_sigmoid_batch_simd (&l1, a1, a1 + NB, rw, rw + NB, rw + 2 * NB, rw + 3 * NB,
                                       NB, 0.1));
  TU_ASSERT_SAME (l2, l1);
  for (size_t i = 0; i < 2 * NB; i++)
    TU_ASSERT_SAME (a2[i], a1[i]);
  ck_assert_int_eq (rlref_batch_set_threads (0), 1);   /* clamped to 1 */
  ck_assert_int_eq (rlref_batch_set_threads (99), 1);
  ck_assert_int_eq (rlref_batch_set_threads (1), RLREF_BATCH_MAX_THREADS);
  free (rw); free (a1); free (a2); free (a3);
  gsl_rng_free (r);
}
END_TEST

static Suite *
batch_suite (void)
{
  Suite *s = suite_create ("batch");
  TCase *tc;

  tc = tu_tcase ("grpo");
  tcase_add_test (tc, test_grpo_matches_reference);
  tcase_add_test (tc, test_grpo_binary);
  tcase_add_test (tc, test_grpo_real_rewards);
  tcase_add_test (tc, test_grpo_examples);
  tcase_add_test (tc, test_grpo_bad_input);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("kl");
  tcase_add_test (tc, test_kl_matches_reference);
  tcase_add_test (tc, test_kl_edges);
  tcase_add_test (tc, test_kl_paths);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("dpo");
  tcase_add_test (tc, test_dpo_matches_reference);
  tcase_add_test (tc, test_dpo_near_midpoints);
  tcase_add_test (tc, test_dpo_cancellation_matches_reference);
  tcase_add_test (tc, test_dpo_edges);
  tcase_add_test (tc, test_dpo_simd);
  tcase_add_test (tc, test_dpo_simd_pairs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("threads");
  tcase_add_test (tc, test_threads);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("gae");
  tcase_add_test (tc, test_gae_matches_reference);
  tcase_add_test (tc, test_gae_bad_input);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (batch_suite)
