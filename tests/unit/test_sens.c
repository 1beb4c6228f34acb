/* test_sens.c -- sensitivities: the formulas' own derivatives (rlref/sens.h)
 * against closed forms and against central differences, the hooks of
 * rlref_certify_with, and the rules of the central differences.
 *
 * Expected strings are mpmath (mp.dps = 100): sigma(D) sigma(-D) for the
 * Gumbel density (D = rw - rl of the binary64 inputs: 1 - 0.2 is not 0.8), 800 e^-800, 2^-200.  Every supplied sensitivity is also
 * held to the central differences of the formula it belongs to, on the
 * golden inputs of PREF-BT-GUMBEL, PREF-BT-MLE, PREF-PL mle and PREF-BT-EX
 * mle-pair and on random ones. */
#include <gsl/gsl_randist.h>
#include "testutil.h"

/* ===== callbacks =========================================================== */

/* Calls of the callbacks below (Check runs each test in its own process). */
static int n_eval, n_sens;

/* PREF-BT-GUMBEL: y = P(rw + g_w > rl + g_l), x = (rw, rl). */
static int
gumbel_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  n_eval++;
  return rlref_bt_gumbel_integral_mp (y, x, x + 1);
}

/* Its sensitivity: |dP/dD| (|rw| + |rl|); a ctx pointing at a double
 * scales it (a planted error), at an int sets nondiff. */
struct gumbel_hook
{
  double scale;
  int nondiff;
  int status;
};

static int
gumbel_sens_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_srcptr y, size_t ny,
                mpfr_ptr sens, int *nondiff)
{
  const struct gumbel_hook *h = ctx;
  mpfr_t d, t;
  int status;
  (void) nx;
  (void) y;
  (void) ny;
  n_sens++;
  if (h && h->status)
    return h->status;
  mpfr_inits2 (rlref_mp_prec (), d, t, (mpfr_ptr) 0);
  status = rlref_bt_gumbel_deriv_mp (d, x, x + 1);
  mpfr_abs (d, d, MPFR_RNDN);
  mpfr_abs (t, x, MPFR_RNDN);
  mpfr_mul (sens, d, t, MPFR_RNDN);
  mpfr_abs (t, x + 1, MPFR_RNDN);
  mpfr_mul (t, d, t, MPFR_RNDN);
  mpfr_add (sens, sens, t, MPFR_RNDN);
  if (h)
    {
      mpfr_mul_d (sens, sens, h->scale, MPFR_RNDN);
      nondiff[0] = h->nondiff;
    }
  mpfr_clears (d, t, (mpfr_ptr) 0);
  return status;
}

/* PREF-BT-MLE: y = (scores[n], loglik), x = wins[n n]. */
static int
bt_mle_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  size_t n = *(const size_t *) ctx;
  (void) nx;
  (void) ny;
  return rlref_bt_mle_mp (y, y + n, x, n);
}

/* Its sensitivity from the Jacobian at the certified scores. */
static int
bt_mle_sens_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_srcptr y, size_t ny,
                mpfr_ptr sens, int *nondiff)
{
  size_t n = *(const size_t *) ctx;
  mpfr_ptr J = tu_mp_vec_new ((n + 1) * nx, rlref_mp_prec ());
  int status;
  (void) nondiff;
  status = rlref_bt_mle_jacobian_mp (J, y, x, n);
  if (status == RLREF_SUCCESS)
    status = rlref_sens_of_jacobian_mp (sens, J, x, ny, nx);
  tu_mp_vec_free (J, (n + 1) * nx);
  return status;
}

/* PREF-PL mle: y = (scores[K], loglik), x = counts[M]. */
struct pl_ctx
{
  const long *rankings;
  size_t M, K;
};

static int
pl_mle_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  const struct pl_ctx *c = ctx;
  (void) nx;
  (void) ny;
  return rlref_pl_mle_mp (y, y + c->K, c->rankings, x, c->M, c->K);
}

static int
pl_mle_sens_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_srcptr y, size_t ny,
                mpfr_ptr sens, int *nondiff)
{
  const struct pl_ctx *c = ctx;
  mpfr_ptr J = tu_mp_vec_new ((c->K + 1) * c->M, rlref_mp_prec ());
  int status;
  (void) nx;
  (void) nondiff;
  status = rlref_pl_mle_jacobian_mp (J, y, c->rankings, x, c->M, c->K);
  if (status == RLREF_SUCCESS)
    status = rlref_sens_of_jacobian_mp (sens, J, x, ny, c->M);
  tu_mp_vec_free (J, (c->K + 1) * c->M);
  return status;
}

/* The supplied sensitivity (certify at 128 bits, AUTO) and the central
 * differences (rlref_sens_central at the certified precision + 64) agree
 * to 9 digits and in their flags.  Returns the certified result for
 * further checks. */
static void
hook_matches_differences (rlref_mp_eval_fn *f, rlref_mp_sens_fn *s, const void *ctx,
                          const double *x, size_t nx, size_t ny, rlref_certified *c)
{
  mpfr_ptr fd = tu_mp_vec_new (ny, RLREF_SENS_PREC);
  int *nd = calloc (ny, sizeof (int));
  ck_assert_ptr_nonnull (nd);
  TU_OK (rlref_certify_with (f, s, ctx, x, nx, ny, 128, 20, RLREF_SENS_AUTO, c));
  TU_OK (rlref_sens_central (f, ctx, x, nx, ny, c->prec + 64, fd, nd));
  for (size_t k = 0; k < ny; k++)
    {
      ck_assert_int_eq (nd[k], c->nondiff[k]);
      if (mpfr_zero_p (fd + k))
        ck_assert_msg (mpfr_zero_p (c->sens_mp + k), "output %zu: sens %s, differences 0", k,
                       tu_mp_str (c->sens_mp + k));
      else
        TU_ASSERT_MP_AGREE (c->sens_mp + k, fd + k, 9);
      TU_ASSERT_SAME (c->sens[k], mpfr_get_d (c->sens_mp + k, MPFR_RNDN));
    }
  tu_mp_vec_free (fd, ny);
  free (nd);
}

/* ===== PREF-BT-GUMBEL ====================================================== */

/* dP/dD = sigma(D) sigma(-D) (mpmath), the logistic density the integral
 * of two Gumbel densities must reproduce: 70 digits at 256 bits, 11 in
 * binary64 (the double rule stops at 2^-41). */
static const struct
{
  double rw, rl;
  const char *want;
} gumbel_cases[] = {
  { 1.5, 0, "0.1491464520703328565015334104340113633851506268703547059400463920606665779992809906397" },
  { 0, 0, "0.25" },
  { 1, 0.2, "0.2139096965202944247690212473761963099426311439312563897473584596140065944712411581195" },
  { -3.25, 2, "0.005192875981301848566811607765227003851154844939285852277186592284473158585031855958306" },
  { 20, 0, "2.061153613941849343652294605392857098311881090555251231268429516670348999180169882912e-9" },
  { -40, 0, "4.248354255291588959232207025950354801666440618825885534659595337397791638028909989054e-18" },
};

START_TEST (test_gumbel_deriv_closed_form)
{
  mpfr_t d, rw, rl;
  double dd, rwd, rld;
  mpfr_inits2 (256, d, rw, rl, (mpfr_ptr) 0);
  for (size_t i = 0; i < sizeof gumbel_cases / sizeof gumbel_cases[0]; i++)
    {
      mpfr_set_d (rw, gumbel_cases[i].rw, MPFR_RNDN);
      mpfr_set_d (rl, gumbel_cases[i].rl, MPFR_RNDN);
      TU_OK (rlref_bt_gumbel_deriv_mp (d, rw, rl));
      TU_ASSERT_MP_STR (d, gumbel_cases[i].want, 70);
      rwd = gumbel_cases[i].rw;
      rld = gumbel_cases[i].rl;
      TU_OK (rlref_bt_gumbel_deriv_d (&dd, &rwd, &rld));
      mpfr_set_str (d, gumbel_cases[i].want, 10, MPFR_RNDN);
      TU_ASSERT_REL (dd, mpfr_get_d (d, MPFR_RNDN), 1e-11);
    }
  mpfr_set_nan (rw);
  TU_ASSERT_STATUS (rlref_bt_gumbel_deriv_mp (d, rw, rl), RLREF_ENAN);
  mpfr_clears (d, rw, rl, (mpfr_ptr) 0);
}
END_TEST

/* Through the certifier, on every golden input: the supplied sensitivity
 * is sigma'(D) (|rw| + |rl|) and matches the central differences; at
 * rw = rl = 0 it is 0. */
START_TEST (test_gumbel_hook_vs_differences)
{
  mpfr_t want;
  mpfr_init2 (want, 256);
  for (size_t i = 0; i < sizeof gumbel_cases / sizeof gumbel_cases[0]; i++)
    {
      const double x[2] = { gumbel_cases[i].rw, gumbel_cases[i].rl };
      rlref_certified c;
      hook_matches_differences (gumbel_cb, gumbel_sens_cb, NULL, x, 2, 1, &c);
      mpfr_set_str (want, gumbel_cases[i].want, 10, MPFR_RNDN);
      mpfr_mul_d (want, want, fabs (x[0]) + fabs (x[1]), MPFR_RNDN);
      if (mpfr_zero_p (want))
        ck_assert (mpfr_zero_p (c.sens_mp));
      else
        TU_ASSERT_MP_AGREE (c.sens_mp, want, 15);
      rlref_certified_clear (&c);
    }
  mpfr_clear (want);
}
END_TEST

/* ===== PREF-BT-MLE and PREF-BT-EX mle-pair ================================== */

/* Two items, w_01 = 8, w_10 = 2: s_0 = -s_1 = log(w_01/w_10)/2, so
 * ds_0/dw_01 = 1/(2 w_01) = 1/16, ds_0/dw_10 = -1/(2 w_10) = -1/4 (s_1 the
 * negatives), d loglik/dw_01 = log(w_01/(w_01 + w_10)) = log 0.8 and
 * d loglik/dw_10 = log 0.2; the diagonal columns are 0.  Exact to 70
 * digits at 256 bits; binary64 to 1e-12. */
START_TEST (test_bt_mle_jacobian_two_items)
{
  const double wd[4] = { 0, 8, 2, 0 };
  const double want[3][4] = { { 0, 1.0 / 16, -0.25, 0 }, { 0, -1.0 / 16, 0.25, 0 },
                              { 0, -0.22314355131420975577, -1.6094379124341003746, 0 } };
  mpfr_ptr w = tu_mp_vec_from_d (wd, 4, 256), s = tu_mp_vec_new (3, 256);
  mpfr_ptr J = tu_mp_vec_new (12, 256);
  mpfr_t t;
  double sd[3], Jd[12];
  mpfr_init2 (t, 256);
  TU_OK (rlref_bt_mle_mp (s, s + 2, w, 2));
  TU_OK (rlref_bt_mle_jacobian_mp (J, s, w, 2));
  for (int k = 0; k < 2; k++)
    for (int c = 0; c < 4; c++)
      if (want[k][c] == 0)
        ck_assert (mpfr_zero_p (J + 4 * k + c));
      else
        {
          mpfr_set_d (t, want[k][c], MPFR_RNDN);
          TU_ASSERT_MP_AGREE (J + 4 * k + c, t, 70);
        }
  TU_ASSERT_MP_STR (J + 9, "-0.22314355131420975576629509030983450337460108554800721367128787248739174376826833", 70);
  TU_ASSERT_MP_STR (J + 10, "-1.6094379124341003746007593332261876395256013542685177219126478914741789877076578", 70);
  ck_assert (mpfr_zero_p (J + 8) && mpfr_zero_p (J + 11));
  TU_OK (rlref_bt_mle_d (sd, sd + 2, wd, 2));
  TU_OK (rlref_bt_mle_jacobian_d (Jd, sd, wd, 2));
  for (int k = 0; k < 3; k++)
    for (int c = 0; c < 4; c++)
      TU_ASSERT_ABS (Jd[4 * k + c], want[k][c], 1e-12);
  /* scores that are not the maximum are refused */
  mpfr_add_d (s, s, 0.125, MPFR_RNDN);
  TU_ASSERT_STATUS (rlref_bt_mle_jacobian_mp (J, s, w, 2), RLREF_EDOM);
  mpfr_clear (t);
  tu_mp_vec_free (w, 4);
  tu_mp_vec_free (s, 3);
  tu_mp_vec_free (J, 12);
}
END_TEST

/* The golden inputs of PREF-BT-MLE and of PREF-BT-EX mle-pair (as 2 x 2
 * matrices): the supplied sensitivity matches the central differences;
 * for 8 of 10 the sensitivity of either score is 1/2 + 1/2 = 1 and of
 * the log-likelihood 8 |log 0.8| + 2 |log 0.2|. */
START_TEST (test_bt_mle_hook_golden)
{
  static const double w2[] = { 0, 8, 2, 0 }, w2b[] = { 0, 5, 5, 0 }, w2c[] = { 0, 1, 3, 0 };
  static const double w3[] = { 0, 3, 1, 1, 0, 2, 2, 1, 0 };
  static const double w4[] = { 0, 5, 0, 1, 1, 0, 4, 0, 0, 2, 0, 3, 2, 0, 1, 0 };
  static const double w3c[] = { 0, 2.5, 0, 0, 0, 1.5, 0.5, 0, 0 };
  const struct { const double *w; size_t n; } cases[] = {
    { w2, 2 }, { w2b, 2 }, { w2c, 2 }, { w3, 3 }, { w4, 4 }, { w3c, 3 },
  };
  mpfr_t want;
  mpfr_init2 (want, 256);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      rlref_certified c;
      size_t n = cases[i].n;
      hook_matches_differences (bt_mle_cb, bt_mle_sens_cb, &n, cases[i].w, n * n, n + 1, &c);
      if (i == 0)
        {
          mpfr_set_ui (want, 1, MPFR_RNDN);
          TU_ASSERT_MP_AGREE (c.sens_mp, want, 18);
          TU_ASSERT_MP_AGREE (c.sens_mp + 1, want, 18);
          mpfr_set_str (want, "5.0040242353818787953318793889310513060480113929210931531956", 10, MPFR_RNDN);
          TU_ASSERT_MP_AGREE (c.sens_mp + 2, want, 18);
        }
      rlref_certified_clear (&c);
    }
  mpfr_clear (want);
}
END_TEST

/* Random strongly connected comparison graphs (a cycle 0 -> 1 -> ... -> 0
 * plus random weights, a third of them zero) of 3 and 4 items. */
START_TEST (test_bt_mle_hook_random)
{
  gsl_rng *r = tu_rng_new ();
  for (int trial = 0; trial < 4; trial++)
    {
      size_t n = 3 + (size_t) (trial % 2);
      double w[16];
      rlref_certified c;
      for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
          {
            double u = tu_uniform (r, 0.0, 1.0);
            w[i * n + j] = i == j || u < 0.33 ? 0.0 : tu_uniform (r, 0.25, 6.0);
            if (j == (i + 1) % n)
              w[i * n + j] = tu_uniform (r, 0.5, 3.0);
          }
      hook_matches_differences (bt_mle_cb, bt_mle_sens_cb, &n, w, n * n, n + 1, &c);
      rlref_certified_clear (&c);
    }
  gsl_rng_free (r);
}
END_TEST

/* ===== PREF-PL mle ========================================================= */

/* K = 2 is Bradley-Terry: rankings (0,1) and (1,0) counted 8 and 2 give
 * the two-item Jacobian of the test above, d scores/d counts = +-1/16 and
 * -+1/4, d loglik/d counts = log 0.8, log 0.2. */
START_TEST (test_pl_mle_jacobian_equals_bt)
{
  static const long rk[] = { 0, 1, 1, 0 };
  const double cd[2] = { 8, 2 };
  mpfr_ptr counts = tu_mp_vec_from_d (cd, 2, 256), s = tu_mp_vec_new (3, 256);
  mpfr_ptr J = tu_mp_vec_new (6, 256);
  mpfr_t t;
  mpfr_init2 (t, 256);
  TU_OK (rlref_pl_mle_mp (s, s + 2, rk, counts, 2, 2));
  TU_OK (rlref_pl_mle_jacobian_mp (J, s, rk, counts, 2, 2));
  mpfr_set_d (t, 1.0 / 16, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (J + 0, t, 70);
  mpfr_neg (t, t, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (J + 2, t, 70);
  mpfr_set_d (t, -0.25, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (J + 1, t, 70);
  mpfr_neg (t, t, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (J + 3, t, 70);
  TU_ASSERT_MP_STR (J + 4, "-0.22314355131420975576629509030983450337460108554800721367128787248739174376826833", 70);
  TU_ASSERT_MP_STR (J + 5, "-1.6094379124341003746007593332261876395256013542685177219126478914741789877076578", 70);
  mpfr_clear (t);
  tu_mp_vec_free (counts, 2);
  tu_mp_vec_free (s, 3);
  tu_mp_vec_free (J, 6);
}
END_TEST

/* The golden inputs of PREF-PL mle and random counts on random rankings
 * (each with its reverse, so that every item is beaten by every other). */
START_TEST (test_pl_mle_hook)
{
  static const long r2[] = { 0, 1, 1, 0 }, r3[] = { 0, 1, 2, 1, 0, 2, 2, 0, 1 };
  static const long r4[] = { 0, 1, 2, 3, 3, 2, 1, 0, 1, 3, 0, 2 };
  static const double c2[] = { 8, 2 }, c3[] = { 3, 2, 1 }, c4[] = { 2, 1, 1.5 };
  const struct pl_ctx golden[] = { { r2, 2, 2 }, { r3, 3, 3 }, { r4, 3, 4 } };
  const double *gc[] = { c2, c3, c4 };
  gsl_rng *r = tu_rng_new ();
  long rr[4 * 4];
  double cr[4];
  for (size_t i = 0; i < 3; i++)
    {
      rlref_certified c;
      hook_matches_differences (pl_mle_cb, pl_mle_sens_cb, &golden[i], gc[i], golden[i].M,
                                golden[i].K + 1, &c);
      rlref_certified_clear (&c);
    }
  for (int trial = 0; trial < 3; trial++)
    {
      struct pl_ctx ctx = { rr, 4, 4 };
      rlref_certified c;
      for (size_t m = 0; m < 4; m += 2)
        {
          for (size_t k = 0; k < 4; k++)
            rr[m * 4 + k] = (long) k;
          gsl_ran_shuffle (r, rr + m * 4, 4, sizeof (long));
          for (size_t k = 0; k < 4; k++)
            rr[(m + 1) * 4 + k] = rr[m * 4 + 3 - k];
        }
      for (size_t m = 0; m < 4; m++)
        cr[m] = tu_uniform (r, 0.5, 4.0);
      hook_matches_differences (pl_mle_cb, pl_mle_sens_cb, &ctx, cr, 4, 5, &c);
      rlref_certified_clear (&c);
    }
  gsl_rng_free (r);
}
END_TEST

/* ===== fit_jacobian and sens_of_jacobian =================================== */

/* H = [[1, -1], [-1, 1]] (H 1 = 0), B = [[1, 2], [-1, -2]]: H + 1 1^T = 2 I,
 * so X = -B/2 exactly; columns of X sum to 0.  A Hessian whose null space
 * is larger than 1 (H = 0 for three items but the gauge) is refused. */
START_TEST (test_fit_jacobian)
{
  const double H[4] = { 1, -1, -1, 1 }, B[4] = { 1, 2, -1, -2 };
  const double Z[9] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 }, B3[3] = { 1, -1, 0 };
  double X[4], X3[3];
  TU_OK (rlref_fit_jacobian_d (X, H, B, 2, 2));
  for (int i = 0; i < 4; i++)
    TU_ASSERT_SAME (X[i], -B[i] / 2);
  TU_ASSERT_STATUS (rlref_fit_jacobian_d (X3, Z, B3, 3, 1), RLREF_EDOM);
}
END_TEST

/* sens_k = sum_j |J_kj| |x_j|: J = [[1, -2], [0, 3]], x = (-1, 0.5) gives
 * (2, 1.5); with no inputs, 0. */
START_TEST (test_sens_of_jacobian)
{
  const double J[4] = { 1, -2, 0, 3 }, x[2] = { -1, 0.5 };
  double s[2];
  mpfr_ptr Jm = tu_mp_vec_from_d (J, 4, 128), xm = tu_mp_vec_from_d (x, 2, 128);
  mpfr_ptr sm = tu_mp_vec_new (2, 128);
  TU_OK (rlref_sens_of_jacobian_d (s, J, x, 2, 2));
  TU_ASSERT_SAME (s[0], 2.0);
  TU_ASSERT_SAME (s[1], 1.5);
  TU_OK (rlref_sens_of_jacobian_mp (sm, Jm, xm, 2, 2));
  ck_assert (mpfr_cmp_d (sm, 2.0) == 0 && mpfr_cmp_d (sm + 1, 1.5) == 0);
  TU_OK (rlref_sens_of_jacobian_d (s, J, x, 1, 0));
  TU_ASSERT_SAME (s[0], 0.0);
  tu_mp_vec_free (Jm, 4);
  tu_mp_vec_free (xm, 2);
  tu_mp_vec_free (sm, 2);
}
END_TEST

/* ===== the hooks in rlref_certify_with ===================================== */

/* A supplied sensitivity 1% off is what AUTO reports (the hook is used,
 * the differences are not run), and what BOTH refuses with EPREC and a
 * message; FD ignores the hook. */
START_TEST (test_certify_hook_modes)
{
  const double x[2] = { 1.5, 0 };
  const struct gumbel_hook off = { 1.01, 0, 0 };
  rlref_certified c;
  mpfr_t want;
  mpfr_init2 (want, 256);
  mpfr_set_str (want, gumbel_cases[0].want, 10, MPFR_RNDN);
  mpfr_mul_d (want, want, 1.5 * 1.01, MPFR_RNDN);
  n_eval = n_sens = 0;
  TU_OK (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &off, x, 2, 1, 128, 20,
                             RLREF_SENS_AUTO, &c));
  TU_ASSERT_MP_AGREE (c.sens_mp, want, 15);
  ck_assert_int_eq (n_eval, 2);
  ck_assert_int_eq (n_sens, 1);
  rlref_certified_clear (&c);
  rlref_clear_error ();
  TU_ASSERT_STATUS (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &off, x, 2, 1, 128, 20,
                                        RLREF_SENS_BOTH, &c), RLREF_EPREC);
  ck_assert_ptr_null (c.value);
  ck_assert_msg (strstr (rlref_last_error (), "disagree") != NULL, "%s", rlref_last_error ());
  n_eval = n_sens = 0;
  TU_OK (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &off, x, 2, 1, 128, 20,
                             RLREF_SENS_FD, &c));
  ck_assert_int_eq (n_sens, 0);
  ck_assert_int_eq (n_eval, 2 + 4);     /* rl = 0 is not perturbed */
  mpfr_div_d (want, want, 1.01, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (c.sens_mp, want, 15);
  rlref_certified_clear (&c);
  /* NONE computes no sensitivity */
  n_sens = 0;
  TU_OK (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &off, x, 2, 1, 128, 20,
                             RLREF_SENS_NONE, &c));
  ck_assert_int_eq (n_sens, 0);
  ck_assert_ptr_null (c.sens_mp);
  rlref_certified_clear (&c);
  TU_ASSERT_STATUS (rlref_certify_with (gumbel_cb, gumbel_sens_cb, NULL, x, 2, 1, 128, 20,
                                        7, &c), RLREF_EINVAL);
  ck_assert_ptr_null (c.value);
  mpfr_clear (want);
}
END_TEST

/* A hook that says "not differentiable" gets sens 0 and the flag; BOTH
 * then disagrees with the smooth differences.  A hook's failure is
 * returned, the result cleared and the working precision restored. */
START_TEST (test_certify_hook_nondiff_and_failure)
{
  const double x[2] = { 1.5, 0 };
  const struct gumbel_hook nd = { 1.0, 1, 0 }, fails = { 1.0, 0, RLREF_EMAXITER };
  rlref_certified c;
  mpfr_prec_t old = rlref_mp_set_prec (300);
  TU_OK (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &nd, x, 2, 1, 128, 20,
                             RLREF_SENS_AUTO, &c));
  ck_assert_int_eq (c.nondiff[0], 1);
  ck_assert (mpfr_zero_p (c.sens_mp) && c.sens[0] == 0.0);
  rlref_certified_clear (&c);
  TU_ASSERT_STATUS (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &nd, x, 2, 1, 128, 20,
                                        RLREF_SENS_BOTH, &c), RLREF_EPREC);
  TU_ASSERT_STATUS (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &fails, x, 2, 1, 128, 20,
                                        RLREF_SENS_AUTO, &c), RLREF_EMAXITER);
  ck_assert_ptr_null (c.value);
  ck_assert_ptr_null (c.sens_mp);
  ck_assert_int_eq ((int) rlref_mp_prec (), 300);
  rlref_mp_set_prec (old);
}
END_TEST

/* y = 1 - x on the domain x <= 1 (EDOM beyond), with its sensitivity
 * |x| supplied.  At the edge x = 1 a perturbed input leaves the domain:
 * BOTH keeps the supplied sensitivity instead of failing; inside the domain
 * it still compares. */
static int
edge_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  if (mpfr_cmp_ui (x, 1) > 0)
    return RLREF_EDOM;
  mpfr_ui_sub (y, 1, x, MPFR_RNDN);
  return RLREF_SUCCESS;
}

static int
edge_sens_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_srcptr y, size_t ny,
              mpfr_ptr sens, int *nondiff)
{
  (void) ctx;
  (void) nx;
  (void) y;
  (void) ny;
  mpfr_abs (sens, x, MPFR_RNDN);
  nondiff[0] = 0;
  return RLREF_SUCCESS;
}

START_TEST (test_certify_both_at_domain_edge)
{
  const double edge[1] = { 1.0 }, inside[1] = { 0.5 };
  rlref_certified c;
  TU_OK (rlref_certify_with (edge_cb, edge_sens_cb, NULL, edge, 1, 1, 128, 20,
                             RLREF_SENS_BOTH, &c));
  ck_assert (mpfr_cmp_ui (c.sens_mp, 1) == 0 && c.sens[0] == 1.0);
  rlref_certified_clear (&c);
  TU_ASSERT_STATUS (rlref_certify_with (edge_cb, NULL, NULL, edge, 1, 1, 128, 20,
                                        RLREF_SENS_FD, &c), RLREF_EDOM);
  TU_OK (rlref_certify_with (edge_cb, edge_sens_cb, NULL, inside, 1, 1, 128, 20,
                             RLREF_SENS_BOTH, &c));
  ck_assert (mpfr_cmp_d (c.sens_mp, 0.5) == 0);
  rlref_certified_clear (&c);
}
END_TEST

/* A negative or NaN sensitivity from a hook is refused (ERANGE). */
START_TEST (test_certify_hook_negative)
{
  const double x[2] = { 1.5, 0 };
  const struct gumbel_hook neg = { -1.0, 0, 0 }, nan_ = { NAN, 0, 0 };
  rlref_certified c;
  TU_ASSERT_STATUS (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &neg, x, 2, 1, 128, 20,
                                        RLREF_SENS_AUTO, &c), RLREF_ERANGE);
  TU_ASSERT_STATUS (rlref_certify_with (gumbel_cb, gumbel_sens_cb, &nan_, x, 2, 1, 128, 20,
                                        RLREF_SENS_AUTO, &c), RLREF_ERANGE);
}
END_TEST

/* ===== the rules of the central differences ================================ */

/* y = (x - 1)^3 at x = 1: f' = 0, but (f(1 + h) - f(1 - h))/(2h) = h^2 at
 * both steps (truncation, not slope): sens 0, differentiable. */
static int
cube_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  mpfr_sub_ui (y, x, 1, MPFR_RNDN);
  mpfr_pow_ui (y, y, 3, MPFR_RNDN);
  return RLREF_SUCCESS;
}

/* y = e^x e^-x, each factor and the product rounded: 1 up to rounding
 * noise that varies with x. */
static int
noise_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  mpfr_t t;
  (void) ctx;
  (void) nx;
  (void) ny;
  mpfr_init2 (t, rlref_mp_prec ());
  mpfr_exp (y, x, MPFR_RNDN);
  mpfr_neg (t, x, MPFR_RNDN);
  mpfr_exp (t, t, MPFR_RNDN);
  mpfr_mul (y, y, t, MPFR_RNDN);
  mpfr_clear (t);
  return RLREF_SUCCESS;
}

/* y = 1 + 2^-200 x: a slope far below |y| but resolved exactly. */
static int
tiny_slope_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  mpfr_mul_2si (y, x, -200, MPFR_RNDN);
  mpfr_add_ui (y, y, 1, MPFR_RNDN);
  return RLREF_SUCCESS;
}

/* y = e^x: at x = -800 the sensitivity 800 e^-800 is below the double
 * range. */
static int
exp_cb (const void *ctx, mpfr_srcptr x, size_t nx, mpfr_ptr y, size_t ny)
{
  (void) ctx;
  (void) nx;
  (void) ny;
  mpfr_exp (y, x, MPFR_RNDN);
  return RLREF_SUCCESS;
}

START_TEST (test_central_zero_slope)
{
  const double x = 1.0;
  rlref_certified c;
  TU_OK (rlref_certify (cube_cb, NULL, &x, 1, 1, 256, 30, 1, &c));
  ck_assert_int_eq (c.nondiff[0], 0);
  ck_assert_msg (mpfr_zero_p (c.sens_mp), "sens %s", tu_mp_str (c.sens_mp));
  rlref_certified_clear (&c);
}
END_TEST

START_TEST (test_central_rounding_noise)
{
  const double xs[3] = { 0.3, 0.7, 1.9 };
  for (int i = 0; i < 3; i++)
    {
      rlref_certified c;
      TU_OK (rlref_certify (noise_cb, NULL, xs + i, 1, 1, 256, 30, 1, &c));
      ck_assert_int_eq (c.nondiff[0], 0);
      ck_assert_msg (mpfr_zero_p (c.sens_mp), "x = %g: sens %s", xs[i], tu_mp_str (c.sens_mp));
      rlref_certified_clear (&c);
    }
}
END_TEST

/* The rule keeps a resolved slope however small: sens = 2^-200 (mpmath
 * 6.223e-61) exactly. */
START_TEST (test_central_tiny_slope_kept)
{
  const double x = 1.0;
  rlref_certified c;
  TU_OK (rlref_certify (tiny_slope_cb, NULL, &x, 1, 1, 256, 30, 1, &c));
  ck_assert_int_eq (c.nondiff[0], 0);
  TU_ASSERT_MP_STR (c.sens_mp, "6.22301527786114170714406405378012424059e-61", 18);
  rlref_certified_clear (&c);
}
END_TEST

/* 800 e^-800 = 2.934e-345 (mpmath) is kept in sens_mp; the double sens
 * underflows to 0. */
START_TEST (test_central_below_double_range)
{
  const double x = -800.0;
  rlref_certified c;
  TU_OK (rlref_certify (exp_cb, NULL, &x, 1, 1, 256, 30, 1, &c));
  TU_ASSERT_MP_STR (c.sens_mp, "2.934299667342149770764396523408638572376e-345", 18);
  TU_ASSERT_SAME (c.sens[0], 0.0);
  rlref_certified_clear (&c);
}
END_TEST

/* rlref_sens_agree: equal, or within 1e-9 relative. */
START_TEST (test_sens_agree)
{
  mpfr_t a, b;
  mpfr_inits2 (64, a, b, (mpfr_ptr) 0);
  mpfr_set_d (a, 1.25, MPFR_RNDN);
  mpfr_set_d (b, 1.25 * (1 + 5e-10), MPFR_RNDN);
  ck_assert (rlref_sens_agree (a, b) && rlref_sens_agree (b, a));
  mpfr_set_d (b, 1.25 * (1 + 2e-9), MPFR_RNDN);
  ck_assert (!rlref_sens_agree (a, b) && !rlref_sens_agree (b, a));
  mpfr_set_zero (a, 1);
  mpfr_set_zero (b, 1);
  ck_assert (rlref_sens_agree (a, b));
  mpfr_set_d (b, 1e-300, MPFR_RNDN);
  ck_assert (!rlref_sens_agree (a, b));
  mpfr_set_nan (a);
  ck_assert (!rlref_sens_agree (a, a));
  mpfr_clears (a, b, (mpfr_ptr) 0);
}
END_TEST

static Suite *
sens_suite (void)
{
  Suite *s = suite_create ("sens");
  TCase *tc;

  tc = tu_tcase ("gumbel");
  tcase_add_test (tc, test_gumbel_deriv_closed_form);
  tcase_add_test (tc, test_gumbel_hook_vs_differences);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("fits");
  tcase_add_test (tc, test_bt_mle_jacobian_two_items);
  tcase_add_test (tc, test_bt_mle_hook_golden);
  tcase_add_test (tc, test_bt_mle_hook_random);
  tcase_add_test (tc, test_pl_mle_jacobian_equals_bt);
  tcase_add_test (tc, test_pl_mle_hook);
  tcase_add_test (tc, test_fit_jacobian);
  tcase_add_test (tc, test_sens_of_jacobian);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("certify");
  tcase_add_test (tc, test_certify_hook_modes);
  tcase_add_test (tc, test_certify_hook_nondiff_and_failure);
  tcase_add_test (tc, test_certify_hook_negative);
  tcase_add_test (tc, test_certify_both_at_domain_edge);
  tcase_add_test (tc, test_central_zero_slope);
  tcase_add_test (tc, test_central_rounding_noise);
  tcase_add_test (tc, test_central_tiny_slope_kept);
  tcase_add_test (tc, test_central_below_double_range);
  tcase_add_test (tc, test_sens_agree);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN (sens_suite)
