/* test_batch_kto_simpo_orpo.c -- the batch kernels of DPO-KTO, DPO-SIMPO and
 * DPO-ORPO (rlref/batch.h) held bit for bit to the scalar reference:
 *
 *   rlref_kto_loss_batch    every output of rlref_kto_loss_d (loss,
 *                           losses, grad, reward, z0) on seeded batches of
 *                           desirable and undesirable mixes, with z0
 *                           clamped at 0 and above it, M = 1 .. 64,
 *                           weights 0; at x = 0 and |x| = 40, 800;
 *   rlref_simpo_loss_batch  every output of rlref_simpo_loss_d, lengths 1
 *                           to 300, alpha 0, margins that cancel exactly
 *                           (z = -0) and |z| up to 10^4;
 *   rlref_orpo_loss_batch   every output of rlref_orpo_loss_d, both NLL
 *                           means, a chosen log-probability of 0 and -0
 *                           (infinite odds), per-token means on both sides
 *                           of -log 2, tiny and huge |a|;
 * each output also computed alone (the others NULL), the accurate forms
 * checked against MPFR where a naive form fails (sigma(-40) kept, log odds
 * at a = -1e-20), and on bad input the reference's status, with loss and
 * the scalars untouched. */
#include <gsl/gsl_randist.h>
#include "testutil.h"
#include "rlref/batch.h"

/* A value no kernel writes: an output left unwritten shows. */
#define SENTINEL 0x1.234p+500

static double *
filled (size_t n, double v)
{
  double *p = malloc ((n ? n : 1) * sizeof *p);
  ck_assert_ptr_nonnull (p);
  for (size_t i = 0; i < n; i++)
    p[i] = v;
  return p;
}

/* The outputs k of two runs, n values each, the same bits. */
static void
assert_same_vec (const char *what, int k, const double *got, const double *want, size_t n)
{
  for (size_t i = 0; i < n; i++)
    ck_assert_msg (tu_same_double (got[i], want[i]), "%s output %d [%zu] = %a, reference %a",
                   what, k, i, got[i], want[i]);
}

/* --- KTO ------------------------------------------------------------------ */

typedef struct
{
  const double *logp, *ref, *kl_logp, *kl_ref;
  const long *des;
  size_t B, M;
  double beta, w_d, w_u;
} kto_case;

/* Every output of the batch kernel against the reference, bit for bit,
 * all at once and each alone. */
static void
kto_compare (const kto_case *c)
{
  size_t B = c->B;
  double *o1 = filled (3 * B, 0.0), *o2 = filled (3 * B, SENTINEL), *o3 = filled (B, SENTINEL);
  double loss1, z1, loss2 = SENTINEL, z2 = SENTINEL;
  double *out2[3] = { o2, o2 + B, o2 + 2 * B };
  TU_OK (rlref_kto_loss_d (&loss1, o1, o1 + B, o1 + 2 * B, &z1, c->logp, c->ref, c->des, B,
                           c->kl_logp, c->kl_ref, c->M, &c->beta, &c->w_d, &c->w_u));
  TU_OK (rlref_kto_loss_batch (&loss2, out2[0], out2[1], out2[2], &z2, c->logp, c->ref, c->des,
                               B, c->kl_logp, c->kl_ref, c->M, c->beta, c->w_d, c->w_u));
  TU_ASSERT_SAME (loss2, loss1);
  TU_ASSERT_SAME (z2, z1);
  for (int k = 0; k < 3; k++)
    assert_same_vec ("kto", k, out2[k], o1 + k * B, B);
  for (int k = 0; k < 4; k++)
    {
      double *p[3] = { NULL, NULL, NULL };
      loss2 = SENTINEL;
      if (k < 3)
        p[k] = o3;
      TU_OK (rlref_kto_loss_batch (&loss2, p[0], p[1], p[2], NULL, c->logp, c->ref, c->des, B,
                                   c->kl_logp, c->kl_ref, c->M, c->beta, c->w_d, c->w_u));
      TU_ASSERT_SAME (loss2, loss1);
      if (k < 3)
        assert_same_vec ("kto alone", k, o3, o1 + k * B, B);
    }
  free (o1);
  free (o2);
  free (o3);
}

START_TEST (test_kto_matches_reference)
{
  gsl_rng *r = tu_rng_new ();
  enum { BMAX = 600, MMAX = 64 };
  double logp[BMAX], ref[BMAX], kl_logp[MMAX], kl_ref[MMAX];
  long des[BMAX];
  size_t Ms[4] = { 1, 3, 17, 64 };
  for (int rep = 0; rep < 24; rep++)
    {
      size_t B = rep % 4 == 0 ? 1 : rep % 4 == 1 ? 2 : BMAX, M = Ms[rep % 4];
      double spread = rep % 3 == 0 ? 1 : rep % 3 == 1 ? 50 : 2000;
      /* the mismatched pairs' mean below 0 (z0 = 0), or above it */
      double shift = rep % 2 ? tu_uniform (r, 0.1, 20) : -tu_uniform (r, 0.1, 20);
      int mix = rep / 8;        /* 0: random labels, 1: all desirable, 2: all undesirable */
      kto_case c = { logp, ref, kl_logp, kl_ref, des, B, M, tu_uniform (r, 0.01, 2),
                     rep % 5 == 0 ? 0.0 : tu_uniform (r, 0, 2),
                     rep % 7 == 0 ? 0.0 : tu_uniform (r, 0, 2) };
      for (size_t j = 0; j < M; j++)
        {
          kl_logp[j] = tu_uniform (r, -300, 0);
          kl_ref[j] = kl_logp[j] - shift + tu_uniform (r, -1, 1);
        }
      for (size_t i = 0; i < B; i++)
        {
          logp[i] = tu_uniform (r, -300, 0);
          ref[i] = logp[i] + tu_uniform (r, -1, 1) * spread;
          des[i] = mix == 0 ? (long) gsl_rng_uniform_int (r, 2) : mix == 1;
        }
      kto_compare (&c);
    }
  gsl_rng_free (r);
}
END_TEST

/* x = beta (r - z0) at 0 exactly (r = z0 = 0 and r = z0 > 0), at +-40
 * and +-800 (sigma underflows), each label; the gradient in its accurate
 * form: at x = 40, a desirable example's loss w_d sigma(-40) = 4.25e-18
 * and its gradient -w_d beta sigma(40) sigma(-40)/B (1 - sigma(40) is 0
 * in binary64), against MPFR. */
START_TEST (test_kto_edges)
{
  double logp[8] = { 0.0, 2.5, 40.0, -40.0, 800.0, -800.0, 40.0, -800.0 };
  double ref[8] = { 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0 };
  double kl0[1] = { -1.0 }, klr0[1] = { 0.0 }, kl1[2] = { 2.0, 3.0 }, klr1[2] = { 0.0, 0.0 };
  long des[8] = { 1, 0, 1, 0, 1, 1, 0, 0 };
  double loss, losses[8], grad[8], z0;
  mpfr_t s, t;
  kto_case c0 = { logp, ref, kl0, klr0, des, 8, 1, 1.0, 1.0, 1.5 };
  kto_case c1 = { logp, ref, kl1, klr1, des, 8, 2, 1.0, 0.75, 1.0 };
  kto_compare (&c0);
  kto_compare (&c1);                    /* z0 = 2.5: x = 0 at logp = 2.5 */
  for (size_t B = 1; B <= 8; B++)
    {
      kto_case c = { logp, ref, kl0, klr0, des, B, 1, 0.5, 1.0, 1.0 };
      kto_compare (&c);
    }
  TU_OK (rlref_kto_loss_batch (&loss, losses, grad, NULL, &z0, logp, ref, des, 8, kl0, klr0, 1,
                               1.0, 1.0, 1.5));
  TU_ASSERT_SAME (z0, 0.0);
  mpfr_init2 (s, 200);
  mpfr_init2 (t, 200);
  mpfr_set_si (s, -40, MPFR_RNDN);
  mpfr_neg (s, s, MPFR_RNDN);
  mpfr_exp (s, s, MPFR_RNDN);
  mpfr_add_ui (s, s, 1, MPFR_RNDN);
  mpfr_ui_div (s, 1, s, MPFR_RNDN);             /* sigma(-40) */
  mpfr_ui_sub (t, 1, s, MPFR_RNDN);             /* sigma(40) */
  TU_ASSERT_REL (losses[2], mpfr_get_d (s, MPFR_RNDN), TU_TOL1);
  mpfr_mul (t, t, s, MPFR_RNDN);
  mpfr_div_ui (t, t, 8, MPFR_RNDN);
  mpfr_neg (t, t, MPFR_RNDN);
  TU_ASSERT_REL (grad[2], mpfr_get_d (t, MPFR_RNDN), TU_TOL1);
  ck_assert (losses[2] > 0.0 && grad[2] < 0.0);
  mpfr_clear (s);
  mpfr_clear (t);
  TU_ASSERT_SAME (losses[0], 0.5);              /* sigma(0) */
  TU_ASSERT_SAME (grad[0], -0.25 / 8);
}
END_TEST

/* The batch kernel's status against the reference's and the one expected;
 * loss and z0 untouched. */
static void
kto_status (const kto_case *c, const double *loss_p, int want)
{
  double l1 = SENTINEL, l2 = SENTINEL, z1 = SENTINEL, z2 = SENTINEL, *L1, *L2;
  L1 = loss_p ? &l1 : NULL;
  L2 = loss_p ? &l2 : NULL;
  TU_ASSERT_STATUS (rlref_kto_loss_d (L1, NULL, NULL, NULL, &z1, c->logp, c->ref, c->des, c->B,
                                      c->kl_logp, c->kl_ref, c->M, &c->beta, &c->w_d, &c->w_u),
                    want);
  TU_ASSERT_STATUS (rlref_kto_loss_batch (L2, NULL, NULL, NULL, &z2, c->logp, c->ref, c->des,
                                          c->B, c->kl_logp, c->kl_ref, c->M, c->beta, c->w_d,
                                          c->w_u), want);
  if (want != RLREF_SUCCESS)
    {
      TU_ASSERT_SAME (l2, SENTINEL);
      TU_ASSERT_SAME (z2, SENTINEL);
    }
}

START_TEST (test_kto_bad_input)
{
  double logp[3] = { -1.0, -2.0, -3.0 }, ref[3] = { -1.5, -1.0, -3.0 };
  double kl[2] = { -1.0, -2.0 }, klr[2] = { -1.5, -2.5 }, one = 1.0;
  double nanv[3] = { -1.0, NAN, -3.0 }, infv[3] = { -1.0, -2.0, -INFINITY };
  double big[3] = { -1.0, 1e308, -3.0 }, nbig[3] = { -1.5, -1e308, -3.0 };
  double klbig[2] = { 1e308, 1e308 }, klnbig[2] = { -1e308, -1e308 };
  long des[3] = { 1, 0, 1 }, des2[3] = { 1, 2, 1 }, desm[3] = { 1, 0, -1 };
  kto_case ok = { logp, ref, kl, klr, des, 3, 2, 0.5, 1.0, 1.0 }, c;
  kto_status (&ok, &one, RLREF_SUCCESS);
  kto_status (&ok, NULL, RLREF_EINVAL);
  c = ok; c.des = NULL; kto_status (&c, &one, RLREF_EINVAL);
  c = ok; c.B = 0; kto_status (&c, &one, RLREF_EINVAL);
  c = ok; c.M = 0; kto_status (&c, &one, RLREF_EINVAL);
  c = ok; c.logp = NULL; kto_status (&c, &one, RLREF_EINVAL);
  c = ok; c.kl_ref = NULL; kto_status (&c, &one, RLREF_EINVAL);
  c = ok; c.logp = nanv; kto_status (&c, &one, RLREF_ENAN);
  c = ok; c.ref = infv; kto_status (&c, &one, RLREF_ENAN);
  c = ok; c.kl_logp = nanv; kto_status (&c, &one, RLREF_ENAN);
  c = ok; c.kl_ref = infv + 1; kto_status (&c, &one, RLREF_ENAN);
  c = ok; c.kl_logp = infv + 1; kto_status (&c, &one, RLREF_ENAN);     /* z -inf, clamped */
  c = ok; c.beta = 0.0; kto_status (&c, &one, RLREF_EDOM);
  c = ok; c.beta = -1.0; kto_status (&c, &one, RLREF_EDOM);
  c = ok; c.beta = NAN; kto_status (&c, &one, RLREF_ENAN);
  c = ok; c.beta = INFINITY; kto_status (&c, &one, RLREF_ENAN);
  c = ok; c.w_d = -1e-300; kto_status (&c, &one, RLREF_EDOM);
  c = ok; c.w_u = NAN; kto_status (&c, &one, RLREF_ENAN);
  c = ok; c.w_u = -0.0; kto_status (&c, &one, RLREF_SUCCESS);
  c = ok; c.des = des2; kto_status (&c, &one, RLREF_EDOM);
  c = ok; c.des = desm; kto_status (&c, &one, RLREF_EDOM);
  /* r_i = logp - ref overflows; the mismatched mean overflows */
  c = ok; c.logp = big; c.ref = nbig; kto_status (&c, &one, RLREF_ERANGE);
  c = ok; c.kl_logp = klbig; c.kl_ref = klnbig; kto_status (&c, &one, RLREF_ERANGE);
  /* -inf mean: clamped to z0 = 0, no error */
  c = ok; c.kl_logp = klnbig; c.kl_ref = klbig; kto_status (&c, &one, RLREF_SUCCESS);
  /* x = beta (r - z0) = -1.5 DBL_MAX overflows */
  c = ok; c.beta = DBL_MAX; kto_status (&c, &one, RLREF_ERANGE);
  /* several at once: the reference's order */
  c = ok; c.logp = nanv; c.beta = 0.0; kto_status (&c, &one, RLREF_ENAN);
  c = ok; c.des = des2; c.beta = DBL_MAX; kto_status (&c, &one, RLREF_EDOM);
  c = ok; c.kl_logp = nanv; c.w_d = -1.0; kto_status (&c, &one, RLREF_ENAN);
}
END_TEST

/* --- SimPO ---------------------------------------------------------------- */

typedef struct
{
  const double *pw, *pl;
  const long *nw, *nl;
  size_t B;
  double beta, gamma, alpha;
} simpo_case;

static void
simpo_compare (const simpo_case *c)
{
  size_t B = c->B;
  double *o1 = filled (5 * B, 0.0), *o2 = filled (5 * B, SENTINEL), *o3 = filled (B, SENTINEL);
  double loss1, nll1, loss2 = SENTINEL, nll2 = SENTINEL;
  double *q2[5];
  for (int k = 0; k < 5; k++)
    q2[k] = o2 + k * B;
  TU_OK (rlref_simpo_loss_d (&loss1, o1, o1 + B, o1 + 2 * B, o1 + 3 * B, o1 + 4 * B, &nll1,
                             c->pw, c->pl, c->nw, c->nl, B, &c->beta, &c->gamma, &c->alpha));
  TU_OK (rlref_simpo_loss_batch (&loss2, q2[0], q2[1], q2[2], q2[3], q2[4], &nll2, c->pw, c->pl,
                                 c->nw, c->nl, B, c->beta, c->gamma, c->alpha));
  TU_ASSERT_SAME (loss2, loss1);
  TU_ASSERT_SAME (nll2, nll1);
  for (int k = 0; k < 5; k++)
    assert_same_vec ("simpo", k, q2[k], o1 + k * B, B);
  for (int k = 0; k < 6; k++)
    {
      double *p[5] = { NULL, NULL, NULL, NULL, NULL };
      loss2 = SENTINEL;
      if (k < 5)
        p[k] = o3;
      TU_OK (rlref_simpo_loss_batch (&loss2, p[0], p[1], p[2], p[3], p[4], NULL, c->pw, c->pl,
                                     c->nw, c->nl, B, c->beta, c->gamma, c->alpha));
      TU_ASSERT_SAME (loss2, loss1);
      if (k < 5)
        assert_same_vec ("simpo alone", k, o3, o1 + k * B, B);
    }
  free (o1);
  free (o2);
  free (o3);
}

START_TEST (test_simpo_matches_reference)
{
  gsl_rng *r = tu_rng_new ();
  enum { BMAX = 600 };
  double pw[BMAX], pl[BMAX];
  long nw[BMAX], nl[BMAX];
  for (int rep = 0; rep < 18; rep++)
    {
      size_t B = rep % 3 == 0 ? 1 : rep % 3 == 1 ? 5 : BMAX;
      long nmax = rep % 6 < 3 ? 1 : 300;  /* lengths 1, or 1 .. 300 */
      double beta = rep % 4 == 0 ? tu_uniform (r, 10, 100) : tu_uniform (r, 0.01, 3);
      simpo_case c = { pw, pl, nw, nl, B, beta, tu_uniform (r, -2, 2),
                       rep % 5 == 0 ? 0.0 : tu_uniform (r, 0, 2) };
      for (size_t i = 0; i < B; i++)
        {
          nw[i] = 1 + (long) gsl_rng_uniform_int (r, (unsigned long) nmax);
          nl[i] = 1 + (long) gsl_rng_uniform_int (r, (unsigned long) nmax);
          pw[i] = tu_uniform (r, -3, 0) * (double) nw[i];
          pl[i] = tu_uniform (r, -3, 0) * (double) nl[i];
          if (i % 37 == 5)
            pl[i] = pw[i] / (double) nw[i] * (double) nl[i];   /* a_w - a_l near 0 */
        }
      simpo_compare (&c);
    }
  gsl_rng_free (r);
}
END_TEST

/* z = 0 exactly (gamma = beta (a_w - a_l): z = -0), z = +-40 and 10^4,
 * lengths 1; at z = -40 (margin 40 above gamma) the loss log1p(e^-40)
 * and grad_l = sigma(-40) beta/B, not 0 (MPFR). */
START_TEST (test_simpo_edges)
{
  double pw[4] = { -1.0, 0.0, -5e3, -3.0 }, pl[4] = { -3.0, -40.0, 5e3, -3.0 };
  long n1[4] = { 1, 1, 1, 1 }, n2[4] = { 2, 1, 3, 7 };
  double loss, losses[4], gl[4], nll;
  mpfr_t s;
  simpo_case c0 = { pw, pl, n1, n1, 4, 1.0, 2.0, 0.0 };   /* z_0 = -(2 - 2) = -0 */
  simpo_case c1 = { pw, pl, n2, n1, 4, 1.0, 0.0, 0.5 };
  simpo_case c2 = { pw + 1, pl + 1, n1, n1, 1, 1.0, 0.0, 1.0 };
  simpo_compare (&c0);
  simpo_compare (&c1);
  simpo_compare (&c2);
  TU_OK (rlref_simpo_loss_batch (&loss, losses, NULL, gl, NULL, NULL, &nll, pw + 1, pl + 1, n1,
                                 n1, 1, 1.0, 0.0, 1.0));
  mpfr_init2 (s, 200);
  mpfr_set_si (s, -40, MPFR_RNDN);
  mpfr_exp (s, s, MPFR_RNDN);
  mpfr_log1p (s, s, MPFR_RNDN);
  TU_ASSERT_REL (losses[0], mpfr_get_d (s, MPFR_RNDN), TU_TOL1);
  mpfr_set_si (s, 40, MPFR_RNDN);
  mpfr_exp (s, s, MPFR_RNDN);
  mpfr_add_ui (s, s, 1, MPFR_RNDN);
  mpfr_ui_div (s, 1, s, MPFR_RNDN);             /* sigma(-40) */
  TU_ASSERT_REL (gl[0], mpfr_get_d (s, MPFR_RNDN), TU_TOL1);
  mpfr_clear (s);
  TU_ASSERT_SAME (nll, 0.0 * -1.0);             /* -(0/1) */
  TU_OK (rlref_simpo_loss_batch (&loss, losses, NULL, NULL, NULL, NULL, NULL, pw, pl, n1, n1, 1,
                                 1.0, 2.0, 0.0));
  TU_ASSERT_REL (losses[0], 0.693147180559945309417232121458, TU_TOL0);   /* softplus(-0) = log 2 */
}
END_TEST

static void
simpo_status (const simpo_case *c, const double *loss_p, int want)
{
  double l1 = SENTINEL, l2 = SENTINEL, m1 = SENTINEL, m2 = SENTINEL;
  TU_ASSERT_STATUS (rlref_simpo_loss_d (loss_p ? &l1 : NULL, NULL, NULL, NULL, NULL, NULL, &m1,
                                        c->pw, c->pl, c->nw, c->nl, c->B, &c->beta, &c->gamma,
                                        &c->alpha), want);
  TU_ASSERT_STATUS (rlref_simpo_loss_batch (loss_p ? &l2 : NULL, NULL, NULL, NULL, NULL, NULL,
                                            &m2, c->pw, c->pl, c->nw, c->nl, c->B, c->beta,
                                            c->gamma, c->alpha), want);
  if (want != RLREF_SUCCESS)
    {
      TU_ASSERT_SAME (l2, SENTINEL);
      TU_ASSERT_SAME (m2, SENTINEL);
    }
}

START_TEST (test_simpo_bad_input)
{
  double pw[3] = { -1.0, -2.0, -3.0 }, pl[3] = { -1.5, -1.0, -3.0 }, one = 1.0;
  double nanv[3] = { -1.0, NAN, -3.0 }, infv[3] = { -1.0, -2.0, INFINITY };
  double big[3] = { -1.0, 1e308, -3.0 }, nbig[3] = { -1.5, -1e308, -3.0 };
  double far[3] = { -10.0, -2.0, -3.0 };
  long n[3] = { 1, 2, 3 }, n0[3] = { 1, 0, 3 }, nneg[3] = { 1, 2, -4 };
  simpo_case ok = { pw, pl, n, n, 3, 2.0, 0.5, 0.1 }, c;
  simpo_status (&ok, &one, RLREF_SUCCESS);
  simpo_status (&ok, NULL, RLREF_EINVAL);
  c = ok; c.B = 0; simpo_status (&c, &one, RLREF_EINVAL);
  c = ok; c.pl = NULL; simpo_status (&c, &one, RLREF_EINVAL);
  c = ok; c.nw = NULL; simpo_status (&c, &one, RLREF_EINVAL);
  c = ok; c.nl = NULL; simpo_status (&c, &one, RLREF_EINVAL);
  c = ok; c.pw = nanv; simpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.pl = infv; simpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.nw = n0; simpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.nl = nneg; simpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.nw = nneg; simpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.beta = 0.0; simpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.beta = NAN; simpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.gamma = INFINITY; simpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.gamma = NAN; simpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.alpha = -0.5; simpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.alpha = -0.0; simpo_status (&c, &one, RLREF_SUCCESS);
  c = ok; c.alpha = INFINITY; simpo_status (&c, &one, RLREF_ENAN);
  /* a_w - a_l overflows; beta (a_w - a_l) overflows */
  c = ok; c.pw = nbig; c.pl = big; simpo_status (&c, &one, RLREF_ERANGE);
  c = ok; c.pw = far; c.beta = 1e308; simpo_status (&c, &one, RLREF_ERANGE);
  /* several at once: the reference's order */
  c = ok; c.pl = nanv; c.nw = n0; simpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.nl = n0; c.beta = -1.0; simpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.pw = far; c.beta = 1e308; c.alpha = -1.0; simpo_status (&c, &one, RLREF_EDOM);
}
END_TEST

/* --- ORPO ----------------------------------------------------------------- */

typedef struct
{
  const double *pw, *pl;
  const long *nw, *nl;
  size_t B;
  enum rlref_nll_mean mean;
  double lambda;
} orpo_case;

static void
orpo_compare (const orpo_case *c)
{
  size_t B = c->B;
  double *o1 = filled (6 * B, 0.0), *o2 = filled (6 * B, SENTINEL), *o3 = filled (B, SENTINEL);
  double loss1, nll1, loss2 = SENTINEL, nll2 = SENTINEL;
  double *q2[6];
  for (int k = 0; k < 6; k++)
    q2[k] = o2 + k * B;
  TU_OK (rlref_orpo_loss_d (&loss1, o1, o1 + B, o1 + 2 * B, o1 + 3 * B, &nll1, o1 + 4 * B,
                            o1 + 5 * B, c->pw, c->pl, c->nw, c->nl, B, c->mean, &c->lambda));
  TU_OK (rlref_orpo_loss_batch (&loss2, q2[0], q2[1], q2[2], q2[3], &nll2, q2[4], q2[5], c->pw,
                                c->pl, c->nw, c->nl, B, c->mean, c->lambda));
  TU_ASSERT_SAME (loss2, loss1);
  TU_ASSERT_SAME (nll2, nll1);
  for (int k = 0; k < 6; k++)
    assert_same_vec ("orpo", k, q2[k], o1 + k * B, B);
  for (int k = 0; k < 7; k++)
    {
      double *p[6] = { NULL, NULL, NULL, NULL, NULL, NULL };
      loss2 = SENTINEL;
      if (k < 6)
        p[k] = o3;
      TU_OK (rlref_orpo_loss_batch (&loss2, p[0], p[1], p[2], p[3], NULL, p[4], p[5], c->pw,
                                    c->pl, c->nw, c->nl, B, c->mean, c->lambda));
      TU_ASSERT_SAME (loss2, loss1);
      if (k < 6)
        assert_same_vec ("orpo alone", k, o3, o1 + k * B, B);
    }
  free (o1);
  free (o2);
  free (o3);
}

START_TEST (test_orpo_matches_reference)
{
  gsl_rng *r = tu_rng_new ();
  enum { BMAX = 600 };
  double pw[BMAX], pl[BMAX];
  long nw[BMAX], nl[BMAX];
  for (int rep = 0; rep < 24; rep++)
    {
      size_t B = rep % 3 == 0 ? 1 : rep % 3 == 1 ? 4 : BMAX;
      long nmax = rep % 4 == 0 ? 1 : 300;
      /* per-token means: mostly around -log 2, or spread over [-20, 0) */
      double amin = rep % 8 < 4 ? -1.5 : -20.0;
      orpo_case c = { pw, pl, nw, nl, B, rep % 2 ? RLREF_NLL_SEQ_MEAN : RLREF_NLL_TOKEN_MEAN,
                      rep % 5 == 0 ? 0.0 : tu_uniform (r, 0, 2) };
      for (size_t i = 0; i < B; i++)
        {
          nw[i] = 1 + (long) gsl_rng_uniform_int (r, (unsigned long) nmax);
          nl[i] = 1 + (long) gsl_rng_uniform_int (r, (unsigned long) nmax);
          pw[i] = tu_uniform (r, amin, 0) * (double) nw[i];
          pl[i] = -tu_uniform (r, 1e-6, -amin) * (double) nl[i];
          if (i % 41 == 3)
            pw[i] = 0.0;                        /* infinite odds */
          if (i % 43 == 4)
            pl[i] = -1e-12 * (double) nl[i];    /* a_l near 0 */
        }
      orpo_compare (&c);
    }
  gsl_rng_free (r);
}
END_TEST

/* log1mexp near a = -log 2 on both sides, tiny a (a = -1e-20, -1e-300,
 * -5e-324: log(1 - e^a) by log(-expm1 a)), huge |a| (e^a = 0), a chosen
 * log-probability of 0 and -0 (L = +inf, loss term 0, the one-sided
 * gradient), against the reference; the log odds at a_w = -1,
 * a_l = -1e-20 against MPFR (the naive log(1 - e^a) is -inf there). */
START_TEST (test_orpo_edges)
{
  double m2 = -0.693147180559945309417232121458;
  double pw[10] = { m2, nextafter (m2, 0), nextafter (m2, -1), -1e-20, -1e-300, -5e-324,
                    -1e4, 0.0, -0.0, -1.0 };
  double pl[10] = { nextafter (m2, 0), m2, -1e-20, -5e-324, -1e4, -2e4, -1e-300, -1.0, -3.0,
                    -1e-20 };
  long n1[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  long n3[10] = { 3, 1, 2, 1, 1, 1, 7, 5, 2, 1 };
  double loss, lo[1];
  mpfr_t a, b;
  for (int mean = 0; mean < 2; mean++)
    for (size_t B = 1; B <= 10; B += 9)
      {
        orpo_case c1 = { pw + 10 - B, pl + 10 - B, n1, n1, B, (enum rlref_nll_mean) mean, 1.0 };
        orpo_case c2 = { pw + 10 - B, pl + 10 - B, n1, n3, B, (enum rlref_nll_mean) mean, 0.3 };
        orpo_compare (&c1);
        orpo_compare (&c2);
      }
  TU_OK (rlref_orpo_loss_batch (&loss, NULL, NULL, NULL, lo, NULL, NULL, NULL, pw + 9, pl + 9,
                                n1, n1, 1, RLREF_NLL_TOKEN_MEAN, 1.0));
  /* lo(a) = a - log(-expm1(a)) at 200 bits */
  mpfr_init2 (a, 200);
  mpfr_init2 (b, 200);
  mpfr_set_d (a, -1.0, MPFR_RNDN);
  mpfr_expm1 (b, a, MPFR_RNDN);
  mpfr_neg (b, b, MPFR_RNDN);
  mpfr_log (b, b, MPFR_RNDN);
  mpfr_sub (a, a, b, MPFR_RNDN);                /* lo(-1) */
  mpfr_set_d (b, -1e-20, MPFR_RNDN);
  mpfr_expm1 (b, b, MPFR_RNDN);
  mpfr_neg (b, b, MPFR_RNDN);
  mpfr_log (b, b, MPFR_RNDN);
  mpfr_neg (b, b, MPFR_RNDN);
  mpfr_add_d (b, b, -1e-20, MPFR_RNDN);         /* lo(-1e-20) */
  mpfr_sub (a, a, b, MPFR_RNDN);
  TU_ASSERT_REL (lo[0], mpfr_get_d (a, MPFR_RNDN), TU_TOL1);
  ck_assert (lo[0] < -46.5 && lo[0] > -46.7);
  mpfr_clear (a);
  mpfr_clear (b);
  TU_OK (rlref_orpo_loss_batch (&loss, NULL, NULL, NULL, lo, NULL, NULL, NULL, pw + 7, pl + 7,
                                n1, n1, 1, RLREF_NLL_TOKEN_MEAN, 1.0));
  ck_assert (isinf (lo[0]) && lo[0] > 0);
  TU_ASSERT_SAME (loss, 0.0);                   /* nll -(0/1) = -0, plus +0 */
}
END_TEST

static void
orpo_status (const orpo_case *c, const double *loss_p, int want)
{
  double l1 = SENTINEL, l2 = SENTINEL, m1 = SENTINEL, m2 = SENTINEL;
  TU_ASSERT_STATUS (rlref_orpo_loss_d (loss_p ? &l1 : NULL, NULL, NULL, NULL, NULL, &m1, NULL,
                                       NULL, c->pw, c->pl, c->nw, c->nl, c->B, c->mean,
                                       &c->lambda), want);
  TU_ASSERT_STATUS (rlref_orpo_loss_batch (loss_p ? &l2 : NULL, NULL, NULL, NULL, NULL, &m2,
                                           NULL, NULL, c->pw, c->pl, c->nw, c->nl, c->B, c->mean,
                                           c->lambda), want);
  if (want != RLREF_SUCCESS)
    {
      TU_ASSERT_SAME (l2, SENTINEL);
      TU_ASSERT_SAME (m2, SENTINEL);
    }
}

START_TEST (test_orpo_bad_input)
{
  double pw[3] = { -1.0, -2.0, -3.0 }, pl[3] = { -1.5, -1.0, -3.0 }, one = 1.0;
  double nanv[3] = { -1.0, NAN, -3.0 }, infv[3] = { -1.0, -2.0, -INFINITY };
  double pos[3] = { -1.0, 1e-300, -3.0 }, zero[3] = { -1.0, 0.0, -3.0 };
  double nzero[3] = { -1.0, -0.0, -3.0 }, tiny[3] = { -1.0, -5e-324, -3.0 };
  long n[3] = { 1, 2, 3 }, n0[3] = { 1, 0, 3 }, n4[3] = { 1, 4, 3 }, n1[3] = { 1, 1, 1 };
  orpo_case ok = { pw, pl, n, n, 3, RLREF_NLL_TOKEN_MEAN, 0.2 }, c;
  orpo_status (&ok, &one, RLREF_SUCCESS);
  orpo_status (&ok, NULL, RLREF_EINVAL);
  c = ok; c.mean = (enum rlref_nll_mean) 7; orpo_status (&c, &one, RLREF_EINVAL);
  c = ok; c.B = 0; orpo_status (&c, &one, RLREF_EINVAL);
  c = ok; c.pw = NULL; orpo_status (&c, &one, RLREF_EINVAL);
  c = ok; c.nl = NULL; orpo_status (&c, &one, RLREF_EINVAL);
  c = ok; c.pw = nanv; orpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.pl = infv; orpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.nw = n0; orpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.mean = RLREF_NLL_SEQ_MEAN; c.nl = n0; orpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.lambda = -1.0; orpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.lambda = NAN; orpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.lambda = 0.0; orpo_status (&c, &one, RLREF_SUCCESS);
  c = ok; c.pw = pos; orpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.pl = pos; orpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.pl = zero; orpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.pl = nzero; orpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.pw = zero; orpo_status (&c, &one, RLREF_SUCCESS);
  /* a_l = -5e-324/4 underflows to -0: its log odds from logp_l and n_l */
  c = ok; c.pl = tiny; c.nl = n4; orpo_status (&c, &one, RLREF_SUCCESS);
  c = ok; c.pl = tiny; c.nl = n1; orpo_status (&c, &one, RLREF_SUCCESS);
  /* several at once: the reference's order */
  c = ok; c.pl = tiny; c.nl = n4; c.pw = pos; orpo_status (&c, &one, RLREF_EDOM);
  c = ok; c.pw = pos; c.lambda = NAN; orpo_status (&c, &one, RLREF_ENAN);
  c = ok; c.pl = nanv; c.nw = n0; orpo_status (&c, &one, RLREF_ENAN);
}
END_TEST

static Suite *
batch_kto_simpo_orpo_suite (void)
{
  Suite *s = suite_create ("batch_kto_simpo_orpo");
  TCase *tc;

  tc = tu_tcase ("kto");
  tcase_add_test (tc, test_kto_matches_reference);
  tcase_add_test (tc, test_kto_edges);
  tcase_add_test (tc, test_kto_bad_input);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("simpo");
  tcase_add_test (tc, test_simpo_matches_reference);
  tcase_add_test (tc, test_simpo_edges);
  tcase_add_test (tc, test_simpo_bad_input);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("orpo");
  tcase_add_test (tc, test_orpo_matches_reference);
  tcase_add_test (tc, test_orpo_edges);
  tcase_add_test (tc, test_orpo_bad_input);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (batch_kto_simpo_orpo_suite)
