/* test_dpo.c -- the DPO-family losses on given log-probabilities: the
 * pairwise conventions (sigmoid 13.21, seed 003's prose, hinge, cDPO,
 * robust, IPO summed and per-token, sigmoid per-token), the gradient
 * weight of 13.22, KTO, SimPO and ORPO, in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: the detectors printed in CONVENTIONS.md and FORMULAS.md
 * (to their printed digits); closed forms evaluated here directly with
 * MPFR at 512 bits from the exact binary64 inputs (log1p(exp(x)),
 * 1/(1 + exp(-x)), log(1 - exp(a)) written plainly: at 512 bits they hold
 * every digit the library certifies at 256); central finite differences at
 * 256 bits for every gradient; binary64 against MPFR on seeded random
 * batches, within the golden files' tolerance rule. */
#include "testutil.h"

#define PREC 256
#define REF_PREC 512

/* ===== test-side references (plain formulas at REF_PREC) ================= */

/* r = log(1 + e^x). */
static void
ref_softplus (mpfr_ptr r, mpfr_srcptr x)
{
  mpfr_exp (r, x, MPFR_RNDN);
  mpfr_log1p (r, r, MPFR_RNDN);
}

/* r = 1/(1 + e^-x). */
static void
ref_sigmoid (mpfr_ptr r, mpfr_srcptr x)
{
  mpfr_neg (r, x, MPFR_RNDN);
  mpfr_exp (r, r, MPFR_RNDN);
  mpfr_add_ui (r, r, 1, MPFR_RNDN);
  mpfr_ui_div (r, 1, r, MPFR_RNDN);
}

/* The pairwise conventions of rlref/dpo.h, with the eps each is run at. */
static const struct
{
  const char *name;
  rlref_dpo_convention c;
  double eps;
} conv[] = {
  { "sigmoid", { RLREF_DPO_SIGMOID, 0, 0 }, 0.0 },
  { "seed-003-prose", { RLREF_DPO_SIGMOID, 1, 0 }, 0.0 },
  { "hinge", { RLREF_DPO_HINGE, 0, 0 }, 0.0 },
  { "cdpo", { RLREF_DPO_CDPO, 0, 0 }, 0.1 },
  { "robust", { RLREF_DPO_ROBUST, 0, 0 }, 0.1 },
  { "ipo-sum", { RLREF_DPO_IPO, 0, 0 }, 0.0 },
  { "ipo-mean", { RLREF_DPO_IPO, 0, 1 }, 0.0 },
  { "sigmoid-norm", { RLREF_DPO_SIGMOID, 0, 1 }, 0.0 },
};
#define N_CONV (sizeof conv / sizeof conv[0])

/* The loss of one pair under convention k, from its definition:
 * D = (pw - rw) - (pl - rl) or the per-token form, b = beta or beta^2,
 *   sigmoid -log sigma(bD); hinge max(0, 1 - bD);
 *   cdpo -(1-e) log sigma(bD) - e log sigma(-bD);
 *   robust [-(1-e) log sigma(bD) + e log sigma(-bD)]/(1-2e);
 *   ipo (D - 1/(2b))^2. */
static void
ref_pair_loss (mpfr_ptr l, size_t k, double pw, double pl, double rw, double rl, long nw,
               long nl, double beta)
{
  const rlref_dpo_convention *c = &conv[k].c;
  double e = conv[k].eps;
  mpfr_t D, t, b, z, u;
  mpfr_inits2 (REF_PREC, D, t, b, z, u, (mpfr_ptr) 0);
  mpfr_set_d (D, pw, MPFR_RNDN);
  mpfr_sub_d (D, D, rw, MPFR_RNDN);
  mpfr_set_d (t, pl, MPFR_RNDN);
  mpfr_sub_d (t, t, rl, MPFR_RNDN);
  if (c->per_token)
    {
      mpfr_div_si (D, D, nw, MPFR_RNDN);
      mpfr_div_si (t, t, nl, MPFR_RNDN);
    }
  mpfr_sub (D, D, t, MPFR_RNDN);
  mpfr_set_d (b, beta, MPFR_RNDN);
  if (c->beta_squared)
    mpfr_sqr (b, b, MPFR_RNDN);
  mpfr_mul (z, b, D, MPFR_RNDN);
  mpfr_neg (t, z, MPFR_RNDN);
  ref_softplus (t, t);                          /* -log sigma(z) */
  ref_softplus (u, z);                          /* -log sigma(-z) */
  switch (c->form)
    {
    case RLREF_DPO_SIGMOID:
      mpfr_set (l, t, MPFR_RNDN);
      break;
    case RLREF_DPO_HINGE:
      mpfr_ui_sub (l, 1, z, MPFR_RNDN);
      if (mpfr_sgn (l) < 0)
        mpfr_set_zero (l, 1);
      break;
    case RLREF_DPO_CDPO:
    case RLREF_DPO_ROBUST:
      /* 1 - e and 1 - 2e exactly, e the double eps */
      mpfr_set_d (z, e, MPFR_RNDN);
      mpfr_ui_sub (z, 1, z, MPFR_RNDN);
      mpfr_mul (t, t, z, MPFR_RNDN);
      mpfr_mul_d (u, u, e, MPFR_RNDN);
      if (c->form == RLREF_DPO_CDPO)
        mpfr_add (l, t, u, MPFR_RNDN);
      else
        {
          mpfr_sub (l, t, u, MPFR_RNDN);
          mpfr_set_d (z, e, MPFR_RNDN);
          mpfr_mul_2ui (z, z, 1, MPFR_RNDN);
          mpfr_ui_sub (z, 1, z, MPFR_RNDN);
          mpfr_div (l, l, z, MPFR_RNDN);
        }
      break;
    case RLREF_DPO_IPO:
      mpfr_mul_2ui (t, b, 1, MPFR_RNDN);
      mpfr_ui_div (t, 1, t, MPFR_RNDN);
      mpfr_sub (l, D, t, MPFR_RNDN);
      mpfr_sqr (l, l, MPFR_RNDN);
      break;
    }
  mpfr_clears (D, t, b, z, u, (mpfr_ptr) 0);
}

/* ===== finite differences ================================================ */

/* A scalar loss of the MPFR inputs the context holds. */
typedef void loss_eval (mpfr_ptr loss, void *ctx);

/* The analytic derivative g agrees with the central difference in v to
 * >= 40 digits, or both are below 1e-40 (a zero derivative). */
static void
assert_fd (mpfr_srcptr g, mpfr_ptr v, loss_eval *f, void *ctx, const char *what, size_t i)
{
  mpfr_t d;
  mpfr_init2 (d, PREC);
  tu_mp_central_diff (d, v, f, ctx);
  if (fabs (mpfr_get_d (d, MPFR_RNDN)) < 1e-40)
    ck_assert_msg (fabs (mpfr_get_d (g, MPFR_RNDN)) < 1e-40, "%s[%zu]: analytic %s, "
                   "differences %s", what, i, tu_mp_str (g), tu_mp_str (d));
  else
    ck_assert_msg (tu_mp_digits (g, d) >= 40, "%s[%zu]: analytic %s, differences %s (%d digits)",
                   what, i, tu_mp_str (g), tu_mp_str (d), tu_mp_digits (g, d));
  mpfr_clear (d);
}

/* ===== the pairwise conventions ========================================== */

/* Three pairs, D = 1.5, -0.75, -1.5 (summed), lengths 4/5, 2/3, 9/7. */
#define B3 3
static const double pw3[B3] = { -10, -3.5, -20 }, pl3[B3] = { -11, -4, -18 };
static const double rw3[B3] = { -12, -3, -19 }, rl3[B3] = { -11.5, -4.25, -18.5 };
static const long nw3[B3] = { 4, 2, 9 }, nl3[B3] = { 5, 3, 7 };

/* The MPFR inputs and convention of one pairwise evaluation. */
struct pair_ctx
{
  size_t k, B;
  mpfr_ptr pw, pl, rw, rl;
  const long *nw, *nl;
  mpfr_t beta, eps;
};

static void
pair_ctx_init (struct pair_ctx *p, size_t k, const double *pw, const double *pl,
               const double *rw, const double *rl, const long *nw, const long *nl, size_t B,
               double beta)
{
  p->k = k;
  p->B = B;
  p->pw = tu_mp_vec_from_d (pw, B, PREC);
  p->pl = tu_mp_vec_from_d (pl, B, PREC);
  p->rw = tu_mp_vec_from_d (rw, B, PREC);
  p->rl = tu_mp_vec_from_d (rl, B, PREC);
  p->nw = nw;
  p->nl = nl;
  mpfr_inits2 (PREC, p->beta, p->eps, (mpfr_ptr) 0);
  mpfr_set_d (p->beta, beta, MPFR_RNDN);
  mpfr_set_d (p->eps, conv[k].eps, MPFR_RNDN);
}

static void
pair_ctx_clear (struct pair_ctx *p)
{
  tu_mp_vec_free (p->pw, p->B);
  tu_mp_vec_free (p->pl, p->B);
  tu_mp_vec_free (p->rw, p->B);
  tu_mp_vec_free (p->rl, p->B);
  mpfr_clears (p->beta, p->eps, (mpfr_ptr) 0);
}

static void
pair_eval (mpfr_ptr loss, void *ctx)
{
  struct pair_ctx *p = ctx;
  TU_OK (rlref_dpo_loss_mp (loss, NULL, NULL, NULL, NULL, NULL, p->pw, p->pl, p->rw, p->rl,
                            p->nw, p->nl, p->B, &conv[p->k].c, p->beta, p->eps));
}

/* The CONVENTIONS.md detector: log-probabilities (-10, -12, -11, -11.5) as
 * logp_w, ref_w, logp_l, ref_l (D = 1.5), beta 0.1, lengths 4 and 5:
 * sigmoid 0.6209570, hinge 0.85, IPO summed 12.25, IPO per-token 21.16,
 * cDPO 0.6359570, robust 0.6022070 (eps 0.1), to the printed digits in
 * both backends. */
START_TEST (test_conventions_detector)
{
  static const struct { size_t k; double want, tol; } c[] = {
    { 0, 0.6209570, 1e-7 }, { 2, 0.85, 1e-15 }, { 3, 0.6359570, 1e-7 },
    { 4, 0.6022070, 1e-7 }, { 5, 12.25, 1e-14 }, { 6, 21.16, 1e-14 },
  };
  double pw = -10, rw = -12, pl = -11, rl = -11.5, beta = 0.1, loss;
  long nw = 4, nl = 5;
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    {
      struct pair_ctx p;
      mpfr_t l;
      double eps = conv[c[i].k].eps;
      TU_OK (rlref_dpo_loss_d (&loss, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl, &nw,
                               &nl, 1, &conv[c[i].k].c, &beta, &eps));
      ck_assert_msg (fabs (loss - c[i].want) <= c[i].tol * c[i].want, "%s: %.17g, want %.7g",
                     conv[c[i].k].name, loss, c[i].want);
      pair_ctx_init (&p, c[i].k, &pw, &pl, &rw, &rl, &nw, &nl, 1, beta);
      mpfr_init2 (l, PREC);
      pair_eval (l, &p);
      ck_assert_msg (fabs (mpfr_get_d (l, MPFR_RNDN) - c[i].want) <= c[i].tol * c[i].want,
                     "%s (MPFR): %s", conv[c[i].k].name, tu_mp_str (l));
      mpfr_clear (l);
      pair_ctx_clear (&p);
    }
}
END_TEST

/* FORMULAS.md DPO-LOSS: D = 2, beta 0.1 gives 0.598139 under 13.21 and
 * 0.683197 under seed 003's prose (beta twice). */
START_TEST (test_seed_erratum_detector)
{
  double pw = -1, rw = -3, pl = -5, rl = -5, beta = 0.1, l13, l003;
  TU_OK (rlref_dpo_loss_d (&l13, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl, NULL, NULL,
                           1, &conv[0].c, &beta, NULL));
  TU_OK (rlref_dpo_loss_d (&l003, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl, NULL,
                           NULL, 1, &conv[1].c, &beta, NULL));
  ck_assert_msg (fabs (l13 - 0.598139) < 5e-7, "13.21: %.17g", l13);
  ck_assert_msg (fabs (l003 - 0.683197) < 5e-7, "seed 003 prose: %.17g", l003);
}
END_TEST

/* Every convention on a batch of three, beta 0.1 and 0.7 (at 0.7 the first
 * pair is in the hinge's flat part): per-pair losses and their mean agree
 * with ref_pair_loss to >= 70 digits in MPFR and within 64 eps in
 * binary64; the rewards are beta (logp - ref). */
START_TEST (test_pair_closed_forms)
{
  static const double betas[2] = { 0.1, 0.7 };
  for (size_t bi = 0; bi < 2; bi++)
    for (size_t k = 0; k < N_CONV; k++)
      {
        struct pair_ctx p;
        mpfr_ptr ls = tu_mp_vec_new (B3, PREC), rwd = tu_mp_vec_new (B3, PREC);
        mpfr_t loss, want, mean;
        double ld, lsd[B3], rwdd[B3], beta = betas[bi], eps = conv[k].eps;
        mpfr_inits2 (REF_PREC, want, mean, (mpfr_ptr) 0);
        mpfr_init2 (loss, PREC);
        pair_ctx_init (&p, k, pw3, pl3, rw3, rl3, nw3, nl3, B3, beta);
        TU_OK (rlref_dpo_loss_mp (loss, ls, NULL, NULL, rwd, NULL, p.pw, p.pl, p.rw, p.rl,
                                  nw3, nl3, B3, &conv[k].c, p.beta, p.eps));
        TU_OK (rlref_dpo_loss_d (&ld, lsd, NULL, NULL, rwdd, NULL, pw3, pl3, rw3, rl3, nw3,
                                 nl3, B3, &conv[k].c, &beta, &eps));
        mpfr_set_zero (mean, 1);
        for (size_t i = 0; i < B3; i++)
          {
            ref_pair_loss (want, k, pw3[i], pl3[i], rw3[i], rl3[i], nw3[i], nl3[i], beta);
            mpfr_add (mean, mean, want, MPFR_RNDN);
            if (mpfr_zero_p (want))
              ck_assert_msg (mpfr_zero_p (ls + i) && lsd[i] == 0.0, "%s pair %zu: not 0",
                             conv[k].name, i);
            else
              {
                ck_assert_msg (tu_mp_digits (ls + i, want) >= 70, "%s beta %g pair %zu: %s, "
                               "want %s", conv[k].name, beta, i, tu_mp_str (ls + i),
                               tu_mp_str (want));
                TU_ASSERT_REL (lsd[i], mpfr_get_d (want, MPFR_RNDN), 64 * DBL_EPSILON);
              }
            mpfr_set_d (want, pw3[i], MPFR_RNDN);
            mpfr_sub_d (want, want, rw3[i], MPFR_RNDN);
            mpfr_mul_d (want, want, beta, MPFR_RNDN);
            TU_ASSERT_MP_AGREE (rwd + i, want, 70);
            TU_ASSERT_REL (rwdd[i], mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
          }
        mpfr_div_ui (mean, mean, B3, MPFR_RNDN);
        TU_ASSERT_MP_AGREE (loss, mean, 70);
        TU_ASSERT_REL (ld, mpfr_get_d (mean, MPFR_RNDN), 64 * DBL_EPSILON);
        mpfr_clears (loss, want, mean, (mpfr_ptr) 0);
        tu_mp_vec_free (ls, B3);
        tu_mp_vec_free (rwd, B3);
        pair_ctx_clear (&p);
      }
}
END_TEST

/* The gradients of every convention against central differences of the
 * batch loss in each policy log-probability, at beta 0.1 and 0.7. */
START_TEST (test_pair_gradients_fd)
{
  static const double betas[2] = { 0.1, 0.7 };
  for (size_t bi = 0; bi < 2; bi++)
    for (size_t k = 0; k < N_CONV; k++)
      {
        struct pair_ctx p;
        mpfr_ptr gw = tu_mp_vec_new (B3, PREC), gl = tu_mp_vec_new (B3, PREC);
        mpfr_t loss;
        mpfr_init2 (loss, PREC);
        pair_ctx_init (&p, k, pw3, pl3, rw3, rl3, nw3, nl3, B3, betas[bi]);
        TU_OK (rlref_dpo_loss_mp (loss, NULL, gw, gl, NULL, NULL, p.pw, p.pl, p.rw, p.rl,
                                  nw3, nl3, B3, &conv[k].c, p.beta, p.eps));
        for (size_t i = 0; i < B3; i++)
          {
            assert_fd (gw + i, p.pw + i, pair_eval, &p, conv[k].name, i);
            assert_fd (gl + i, p.pl + i, pair_eval, &p, conv[k].name, i);
          }
        mpfr_clear (loss);
        tu_mp_vec_free (gw, B3);
        tu_mp_vec_free (gl, B3);
        pair_ctx_clear (&p);
      }
}
END_TEST

/* D = 0 (policy = reference): sigmoid log 2, hinge 1, IPO 1/(4 beta^2);
 * cDPO and robust at eps = 0 are the sigmoid loss; cDPO at eps = 1/2 is
 * the same for D and -D. */
START_TEST (test_pair_identities)
{
  double pw = -7.25, pl = -9.5, beta = 0.1, l, s, e0 = 0.0, half = 0.5, glb[2];
  double pwb[2] = { -1, -3 }, plb[2] = { -3, -1 }, zero2[2] = { 0, 0 }, lsb[2];
  rlref_dpo_convention cd = { RLREF_DPO_CDPO, 0, 0 }, rb = { RLREF_DPO_ROBUST, 0, 0 };
  TU_OK (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &pw, &pl, NULL, NULL,
                           1, &conv[0].c, &beta, NULL));
  TU_ASSERT_REL (l, log (2.0), TU_TOL0);
  TU_OK (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &pw, &pl, NULL, NULL,
                           1, &conv[2].c, &beta, NULL));
  TU_ASSERT_SAME (l, 1.0);
  TU_OK (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &pw, &pl, NULL, NULL,
                           1, &conv[5].c, &beta, NULL));
  TU_ASSERT_REL (l, 1 / (4 * beta * beta), TU_TOL1);
  /* eps = 0 */
  TU_OK (rlref_dpo_loss_d (&s, NULL, NULL, NULL, NULL, NULL, pw3, pl3, rw3, rl3, NULL, NULL,
                           B3, &conv[0].c, &beta, NULL));
  TU_OK (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, pw3, pl3, rw3, rl3, NULL, NULL,
                           B3, &cd, &beta, &e0));
  TU_ASSERT_REL (l, s, TU_TOL0);
  TU_OK (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, pw3, pl3, rw3, rl3, NULL, NULL,
                           B3, &rb, &beta, &e0));
  TU_ASSERT_REL (l, s, TU_TOL0);
  /* eps = 1/2: D = 2 and D = -2 give the same cDPO loss */
  TU_OK (rlref_dpo_loss_d (&l, lsb, NULL, glb, NULL, NULL, pwb, plb, zero2, zero2, NULL, NULL,
                           2, &cd, &beta, &half));
  TU_ASSERT_SAME (lsb[0], lsb[1]);
  TU_ASSERT_SAME (glb[0], -glb[1]);
}
END_TEST

/* Robust DPO above eps = 1/2, as TRL computes it (it only warns): the
 * detector (D = 1.5, beta 0.1) at eps 3/4 is [(1/4) softplus(-z) -
 * (3/4) softplus(z)]/(-1/2), z = 0.15, and its gradient -beta ((1/4)
 * sigma(-z) + (3/4) sigma(z))/(-1/2); 16 eps. */
START_TEST (test_robust_above_half)
{
  double pw = -10, pl = -11, rw = -12, rl = -11.5, beta = 0.1, e = 0.75, l, gw, gl;
  double z = 0.15, sp_m = log1p (exp (-z)), sp_p = z + log1p (exp (-z));
  double s_m = 1.0 / (1.0 + exp (z)), s_p = 1.0 / (1.0 + exp (-z));
  long nw = 4, nl = 5;
  rlref_dpo_convention rb = { RLREF_DPO_ROBUST, 0, 0 };
  TU_OK (rlref_dpo_loss_d (&l, NULL, &gw, &gl, NULL, NULL, &pw, &pl, &rw, &rl, &nw, &nl, 1, &rb,
                           &beta, &e));
  TU_ASSERT_REL (l, (0.25 * sp_m - 0.75 * sp_p) / -0.5, 16 * DBL_EPSILON);
  TU_ASSERT_REL (gw, -0.1 * (0.25 * s_m + 0.75 * s_p) / -0.5, 16 * DBL_EPSILON);
  TU_ASSERT_REL (gl, -gw, 0);
}
END_TEST

/* The hinge at its kink, beta D = 1 exactly (beta 0.5, D = 2): loss 0,
 * gradient 0 (relu'(0) = 0) in both backends; one ulp of D below, the
 * gradient is -beta/B. */
START_TEST (test_hinge_kink)
{
  double pw = -1, pl = -5, rw = -3, rl = -5, beta = 0.5, l, gw, gl;
  double below = nextafter (-1.0, -2.0);
  mpfr_t ml, mgw, mgl, mpw, mpl, mrw, mrl, mb;
  TU_OK (rlref_dpo_loss_d (&l, NULL, &gw, &gl, NULL, NULL, &pw, &pl, &rw, &rl, NULL, NULL, 1,
                           &conv[2].c, &beta, NULL));
  TU_ASSERT_SAME (l, 0.0);
  TU_ASSERT_SAME (gw, 0.0);
  ck_assert (gl == 0.0);
  mpfr_inits2 (PREC, ml, mgw, mgl, mpw, mpl, mrw, mrl, mb, (mpfr_ptr) 0);
  mpfr_set_d (mpw, pw, MPFR_RNDN);
  mpfr_set_d (mpl, pl, MPFR_RNDN);
  mpfr_set_d (mrw, rw, MPFR_RNDN);
  mpfr_set_d (mrl, rl, MPFR_RNDN);
  mpfr_set_d (mb, beta, MPFR_RNDN);
  TU_OK (rlref_dpo_loss_mp (ml, NULL, mgw, mgl, NULL, NULL, mpw, mpl, mrw, mrl, NULL, NULL, 1,
                            &conv[2].c, mb, NULL));
  ck_assert (mpfr_zero_p (ml) && mpfr_zero_p (mgw) && mpfr_zero_p (mgl));
  TU_OK (rlref_dpo_loss_d (&l, NULL, &gw, &gl, NULL, NULL, &below, &pl, &rw, &rl, NULL, NULL,
                           1, &conv[2].c, &beta, NULL));
  ck_assert (l > 0.0);
  TU_ASSERT_SAME (gw, -beta);
  TU_ASSERT_SAME (gl, beta);
  mpfr_clears (ml, mgw, mgl, mpw, mpl, mrw, mrl, mb, (mpfr_ptr) 0);
}
END_TEST

/* Saturation both ways and extreme margins: beta D = 1000 gives e^-1000
 * (MPFR; 0 in binary64, the nearest double), beta D = -1000 gives 1000 +
 * e^-1000 (binary64 exactly 1000), gradients -beta sigma(-beta D); D =
 * -2e6 stays finite.  No NaN, no overflow. */
START_TEST (test_pair_saturation)
{
  double pw[3] = { -1, -10001, -1e6 }, pl[3] = { -10001, -1, -1 };
  double rw[3] = { -1, -1, -1 }, rl[3] = { -1, -1, -1e6 }, beta = 0.1, l, ls[3], gw[3];
  mpfr_ptr mpw = tu_mp_vec_from_d (pw, 3, PREC), mpl = tu_mp_vec_from_d (pl, 3, PREC);
  mpfr_ptr mrw = tu_mp_vec_from_d (rw, 3, PREC), mrl = tu_mp_vec_from_d (rl, 3, PREC);
  mpfr_ptr mls = tu_mp_vec_new (3, PREC);
  mpfr_t ml, mb, want;
  TU_OK (rlref_dpo_loss_d (&l, ls, gw, NULL, NULL, NULL, pw, pl, rw, rl, NULL, NULL, 3,
                           &conv[0].c, &beta, NULL));
  TU_ASSERT_SAME (ls[0], 0.0);
  TU_ASSERT_SAME (ls[1], 1000.0);
  TU_ASSERT_REL (ls[2], 0.1 * 1999998.0, TU_TOL0);
  TU_ASSERT_REL (gw[1], -beta / 3, TU_TOL0);
  TU_ASSERT_REL (gw[2], -beta / 3, TU_TOL0);
  ck_assert (isfinite (l) && gw[0] <= 0.0 && gw[0] > -1e-300);
  mpfr_inits2 (PREC, ml, mb, want, (mpfr_ptr) 0);
  mpfr_set_d (mb, beta, MPFR_RNDN);
  TU_OK (rlref_dpo_loss_mp (ml, mls, NULL, NULL, NULL, NULL, mpw, mpl, mrw, mrl, NULL, NULL, 3,
                            &conv[0].c, mb, NULL));
  /* log1p(e^-1000) = e^-1000 (1 - e^-1000/2 + ...): e^-1000 to 400 digits */
  mpfr_mul_d (want, mb, 10000.0, MPFR_RNDN);
  mpfr_neg (want, want, MPFR_RNDN);
  mpfr_exp (want, want, MPFR_RNDN);             /* e^{-beta 10000}, beta the double 0.1 */
  TU_ASSERT_MP_AGREE (mls, want, 70);
  mpfr_clears (ml, mb, want, (mpfr_ptr) 0);
  tu_mp_vec_free (mpw, 3);
  tu_mp_vec_free (mpl, 3);
  tu_mp_vec_free (mrw, 3);
  tu_mp_vec_free (mrl, 3);
  tu_mp_vec_free (mls, 3);
}
END_TEST

/* D from the four log-probabilities, not from the rounded log-ratios:
 * per token at ref = 0x1.ffffffffffffep+1023 beside logp_w = -1e6,
 * logp_l = -1 (1000 tokens each), D = -999.999 (lw - ll of the rounded
 * log-ratios is 0: loss log 2, gradient -5e-5 for -1e-4); per token where
 * the numerator 4 lw - 4 ll of D = lw/4 - ll/4 overflows; summed where
 * beta D is large though D = -2^-93 is below the rounding of -11 + 2^-93;
 * and a D whose numerator is subnormal (exact, not lost in the divisions).
 * Binary64 within 4 ulp of the closed form at 512 bits. */
START_TEST (test_pair_cancellation)
{
  static const struct { size_t k; double pw, pl, rw, rl, beta; long nw, nl; } c[] = {
    { 7, -1e6, -1.0, 0x1.ffffffffffffep+1023, 0x1.ffffffffffffep+1023, 0.1, 1000, 1000 },
    { 7, -0x1p1023, 0x1p1023, 0x1.8p1022, -0x1.8p1022, 0x1p-10, 4, 4 },
    { 0, -10.0, -11.0, 1.0, -0x1p-93, 0x1p+80, 1, 1 },
    { 7, 0x1p-1073, 0.0, 0.0, 0x1p-1074, 0x1p+1000, 3, 3 },
  };
  for (size_t j = 0; j < sizeof c / sizeof c[0]; j++)
    {
      double l, gw, gl, eps = 0.0;
      mpfr_t want, D, t, b;
      long nw = c[j].nw, nl = c[j].nl;
      mpfr_inits2 (REF_PREC, want, b, (mpfr_ptr) 0);
      mpfr_inits2 (2200, D, t, (mpfr_ptr) 0);     /* D exactly: 2^1024 to 2^-1074 */
      TU_OK (rlref_dpo_loss_d (&l, NULL, &gw, &gl, NULL, NULL, &c[j].pw, &c[j].pl, &c[j].rw,
                               &c[j].rl, &nw, &nl, 1, &conv[c[j].k].c, &c[j].beta, &eps));
      mpfr_set_d (D, c[j].pw, MPFR_RNDN);
      mpfr_sub_d (D, D, c[j].rw, MPFR_RNDN);
      mpfr_set_d (t, c[j].pl, MPFR_RNDN);
      mpfr_sub_d (t, t, c[j].rl, MPFR_RNDN);
      if (conv[c[j].k].c.per_token)
        {
          mpfr_div_si (D, D, nw, MPFR_RNDN);
          mpfr_div_si (t, t, nl, MPFR_RNDN);
        }
      mpfr_sub (D, D, t, MPFR_RNDN);
      /* loss softplus(-b D), grad_w = -b sigma(-b D)/n_w (n_w = 1 summed) */
      mpfr_set_d (b, c[j].beta, MPFR_RNDN);
      mpfr_mul (t, b, D, MPFR_RNDN);
      mpfr_neg (t, t, MPFR_RNDN);
      mpfr_abs (want, t, MPFR_RNDN);
      mpfr_neg (want, want, MPFR_RNDN);
      ref_softplus (want, want);                /* log1p(e^-|x|): e^x overflows MPFR */
      if (mpfr_sgn (t) > 0)
        mpfr_add (want, want, t, MPFR_RNDN);
      TU_ASSERT_REL (l, mpfr_get_d (want, MPFR_RNDN), 4 * DBL_EPSILON);
      ref_sigmoid (want, t);
      mpfr_mul (want, want, b, MPFR_RNDN);
      mpfr_neg (want, want, MPFR_RNDN);
      if (conv[c[j].k].c.per_token)
        mpfr_div_si (want, want, nw, MPFR_RNDN);
      TU_ASSERT_REL (gw, mpfr_get_d (want, MPFR_RNDN), 4 * DBL_EPSILON);
      mpfr_clears (want, D, t, b, (mpfr_ptr) 0);
    }
}
END_TEST

/* Robust DPO at the smallest subnormal beta and eps = 0.49: the gradient
 * -(((1-e) sigma(-z) + e sigma(z))/(1 - 2e)) b, about -25 b, is formed
 * with b last (b sigma(-z) = b/2 rounds to 0 first: -0 for -1.2e-322);
 * within one subnormal step of the closed form. */
START_TEST (test_robust_subnormal_beta)
{
  double pw = -10, pl = -11, rw = -12, rl = -11.5, beta = 0x1p-1074, eps = 0.49, l, gw, gl;
  mpfr_t want, e, t;
  TU_OK (rlref_dpo_loss_d (&l, NULL, &gw, &gl, NULL, NULL, &pw, &pl, &rw, &rl, NULL, NULL, 1,
                           &conv[4].c, &beta, &eps));
  mpfr_inits2 (REF_PREC, want, e, t, (mpfr_ptr) 0);
  /* z = 1.5 b: sigma(+-z) = 1/2 to far below a subnormal step, so the
     weight is ((1 - e)/2 + e/2)/(1 - 2e) = 1/(2 (1 - 2e)) */
  mpfr_set_d (e, eps, MPFR_RNDN);
  mpfr_mul_2ui (t, e, 1, MPFR_RNDN);
  mpfr_ui_sub (t, 1, t, MPFR_RNDN);
  mpfr_mul_2ui (t, t, 1, MPFR_RNDN);
  mpfr_set_d (want, -beta, MPFR_RNDN);
  mpfr_div (want, want, t, MPFR_RNDN);
  TU_ASSERT_ABS (gw, mpfr_get_d (want, MPFR_RNDN), 0x1p-1074);
  TU_ASSERT_ABS (gl, -mpfr_get_d (want, MPFR_RNDN), 0x1p-1074);
  ck_assert (gw < 0.0);
  mpfr_clears (want, e, t, (mpfr_ptr) 0);
}
END_TEST

/* Bad input: EINVAL for an empty batch or a missing convention, ENAN for
 * NaN or infinite log-probabilities and beta, EDOM for beta <= 0, eps
 * outside [0, 1] (cdpo, robust), robust at eps = 1/2 and a negative count
 * where counts are read (a count of 0 counts as 1, TRL's clamp); counts
 * are not read by the summed conventions.
 * Binary64 gives ERANGE where D overflows; MPFR does not. */
START_TEST (test_pair_bad_inputs)
{
  double pw = -10, pl = -11, rw = -12, rl = -11.5, beta = 0.1, l, nan = NAN, inf = INFINITY;
  double zero = 0.0, negb = -0.1, half = 0.5, big = 1.5, negeps = -0.1;
  double hw = 1e308, hr = -1e308;
  long nw = 4, nl = 5, n0 = 0, n1 = 1, nneg = -1;
  double l1, g0[2], g1[2], threeq = 0.75;
  rlref_dpo_convention cd = { RLREF_DPO_CDPO, 0, 0 }, rb = { RLREF_DPO_ROBUST, 0, 0 };
  mpfr_t m[6];
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 0, &conv[0].c, &beta, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, NULL, &beta, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &nan, &pl, &rw, &rl,
                                      &nw, &nl, 1, &conv[0].c, &beta, NULL), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &inf,
                                      &nw, &nl, 1, &conv[0].c, &beta, NULL), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, &conv[0].c, &nan, NULL), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, &conv[0].c, &zero, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, &conv[5].c, &negb, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, &rb, &beta, &half), RLREF_EDOM);
  TU_OK (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl, &nw, &nl, 1,
                           &cd, &beta, &half));
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, &cd, &beta, &big), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, &cd, &beta, &negeps), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, &cd, &beta, NULL), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nl, 1, &rb, &beta, &big), RLREF_EDOM);
  TU_OK (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl, &nw, &nl, 1,
                           &rb, &beta, &threeq));
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nneg, &nl, 1, &conv[6].c, &beta, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      &nw, &nneg, 1, &conv[7].c, &beta, NULL), RLREF_EDOM);
  /* a count of 0 counts as 1 (ipo-mean, sigmoid-norm): the same loss and gradients */
  for (int k = 6; k <= 7; k++)
    {
      TU_OK (rlref_dpo_loss_d (&l, NULL, g0, g0 + 1, NULL, NULL, &pw, &pl, &rw, &rl, &n0, &nl,
                               1, &conv[k].c, &beta, NULL));
      TU_OK (rlref_dpo_loss_d (&l1, NULL, g1, g1 + 1, NULL, NULL, &pw, &pl, &rw, &rl, &n1, &nl,
                               1, &conv[k].c, &beta, NULL));
      ck_assert_msg (l == l1 && g0[0] == g1[0] && g0[1] == g1[1], "%s: count 0 is not 1",
                     conv[k].name);
    }
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl,
                                      NULL, &nl, 1, &conv[7].c, &beta, NULL), RLREF_EINVAL);
  TU_OK (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &pw, &pl, &rw, &rl, &n0, NULL, 1,
                           &conv[0].c, &beta, NULL));
  /* D = 2e308 overflows binary64 only */
  TU_ASSERT_STATUS (rlref_dpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &hw, &pl, &hr, &rl,
                                      NULL, NULL, 1, &conv[5].c, &beta, NULL), RLREF_ERANGE);
  TU_ASSERT_STATUS (rlref_dpo_grad_d (&l, NULL, NULL, &hw, &pl, &hr, &rl, 1, 0, &beta),
                    RLREF_ERANGE);
  for (int i = 0; i < 6; i++)
    mpfr_init2 (m[i], PREC);
  mpfr_set_d (m[0], hw, MPFR_RNDN);
  mpfr_set_d (m[1], pl, MPFR_RNDN);
  mpfr_set_d (m[2], hr, MPFR_RNDN);
  mpfr_set_d (m[3], rl, MPFR_RNDN);
  mpfr_set_d (m[4], beta, MPFR_RNDN);
  TU_OK (rlref_dpo_loss_mp (m[5], NULL, NULL, NULL, NULL, NULL, m[0], m[1], m[2], m[3], NULL,
                            NULL, 1, &conv[5].c, m[4], NULL));
  ck_assert (mpfr_number_p (m[5]) && mpfr_get_exp (m[5]) > 2000);
  for (int i = 0; i < 6; i++)
    mpfr_clear (m[i]);
}
END_TEST

/* ===== DPO-GRAD (13.22) ================================================== */

/* weight = sigma(r_l - r_w) from the implicit rewards dpo_loss returns
 * (sigma evaluated here), grad_w = -beta weight/B and grad_l = beta
 * weight/B, equal to the sigmoid loss's gradients in both backends; seed
 * 003's prose: sigma(beta (r_l - r_w)) and beta^2. */
START_TEST (test_grad_weight)
{
  for (int sq = 0; sq <= 1; sq++)
    {
      double beta = 0.1, w[B3], gw[B3], gl[B3], lgw[B3], lgl[B3], l;
      struct pair_ctx p;
      mpfr_ptr mw = tu_mp_vec_new (B3, PREC), mgw = tu_mp_vec_new (B3, PREC);
      mpfr_ptr mgl = tu_mp_vec_new (B3, PREC), rwd = tu_mp_vec_new (B3, PREC);
      mpfr_ptr rld = tu_mp_vec_new (B3, PREC), lgwm = tu_mp_vec_new (B3, PREC);
      mpfr_t loss, want, b;
      size_t k = sq ? 1 : 0;
      mpfr_inits2 (REF_PREC, want, b, (mpfr_ptr) 0);
      mpfr_init2 (loss, PREC);
      pair_ctx_init (&p, k, pw3, pl3, rw3, rl3, nw3, nl3, B3, beta);
      TU_OK (rlref_dpo_grad_d (w, gw, gl, pw3, pl3, rw3, rl3, B3, sq, &beta));
      TU_OK (rlref_dpo_loss_d (&l, NULL, lgw, lgl, NULL, NULL, pw3, pl3, rw3, rl3, NULL, NULL,
                               B3, &conv[k].c, &beta, NULL));
      TU_OK (rlref_dpo_grad_mp (mw, mgw, mgl, p.pw, p.pl, p.rw, p.rl, B3, sq, p.beta));
      TU_OK (rlref_dpo_loss_mp (loss, NULL, lgwm, NULL, rwd, rld, p.pw, p.pl, p.rw, p.rl, NULL,
                                NULL, B3, &conv[k].c, p.beta, NULL));
      mpfr_set_d (b, beta, MPFR_RNDN);
      for (size_t i = 0; i < B3; i++)
        {
          TU_ASSERT_SAME (gw[i], lgw[i]);
          TU_ASSERT_SAME (gl[i], lgl[i]);
          TU_ASSERT_SAME (gl[i], -gw[i]);
          ck_assert (mpfr_equal_p (mgw + i, lgwm + i));
          mpfr_sub (want, rld + i, rwd + i, MPFR_RNDN);
          if (sq)
            mpfr_mul (want, want, b, MPFR_RNDN);
          ref_sigmoid (want, want);
          TU_ASSERT_MP_AGREE (mw + i, want, 70);
          TU_ASSERT_REL (w[i], mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
          /* 13.22: grad_w = -beta_eff weight / B */
          mpfr_mul (want, want, b, MPFR_RNDN);
          if (sq)
            mpfr_mul (want, want, b, MPFR_RNDN);
          mpfr_div_si (want, want, -(long) B3, MPFR_RNDN);
          TU_ASSERT_MP_AGREE (mgw + i, want, 70);
        }
      mpfr_clears (loss, want, b, (mpfr_ptr) 0);
      tu_mp_vec_free (mw, B3);
      tu_mp_vec_free (mgw, B3);
      tu_mp_vec_free (mgl, B3);
      tu_mp_vec_free (rwd, B3);
      tu_mp_vec_free (rld, B3);
      tu_mp_vec_free (lgwm, B3);
      pair_ctx_clear (&p);
    }
}
END_TEST

/* Seed 003's prose at beta = 2^434 (b = 2^868) and D = -2^-93 from
 * (-10 - 1) - (-11 + 2^-93): b D = -2^775, weight sigma(2^775) = 1 (the
 * rounded log-ratios give D = 0: weight 1/2), grad_w = -2^868. */
START_TEST (test_grad_weight_cancellation)
{
  double pw = -10, pl = -11, rw = 1, rl = -0x1p-93, beta = 0x1p434, w, gw, gl;
  TU_OK (rlref_dpo_grad_d (&w, &gw, &gl, &pw, &pl, &rw, &rl, 1, 1, &beta));
  TU_ASSERT_SAME (w, 1.0);
  TU_ASSERT_SAME (gw, -0x1p868);
  TU_ASSERT_SAME (gl, 0x1p868);
}
END_TEST

/* ===== KTO ============================================================== */

struct kto_ctx
{
  size_t B, M;
  mpfr_ptr lp, rf, klp, klr;
  const long *des;
  mpfr_t beta, wd, wu;
};

static void
kto_eval (mpfr_ptr loss, void *ctx)
{
  struct kto_ctx *k = ctx;
  TU_OK (rlref_kto_loss_mp (loss, NULL, NULL, NULL, NULL, k->lp, k->rf, k->des, k->B, k->klp,
                            k->klr, k->M, k->beta, k->wd, k->wu));
}

/* Losses against w (1 - sigma(beta (r - z0))) (desirable) and
 * w (1 - sigma(beta (z0 - r))) (undesirable) evaluated here, z0 =
 * max(0, mean KL): clamped (mean -0.125) and positive (mean 0.75); the
 * gradient (z0 held constant) against central differences in logp with
 * the KL inputs fixed; binary64 within 64 eps. */
START_TEST (test_kto_values_and_gradient)
{
  static const double lp[4] = { -10, -12, -8, -15 }, rf[4] = { -11, -11, -9, -14 };
  static const long des[4] = { 1, 0, 1, 0 };
  static const double kl[2][4] = { { -13, -9, -10, -12.5 }, { -10, -9, -10, -12 } };
  static const double klr[4] = { -12, -10, -11, -11 }, z0want[2] = { 0.0, 0.75 };
  for (int s = 0; s < 2; s++)
    {
      struct kto_ctx k;
      mpfr_ptr ls = tu_mp_vec_new (4, PREC), g = tu_mp_vec_new (4, PREC);
      mpfr_t loss, z0, want, x;
      double beta = 0.1, wd = 1.33, wu = 1.0, ld, lsd[4], gd[4], z0d;
      memset (&k, 0, sizeof k);
      k.B = k.M = 4;
      k.des = des;
      k.lp = tu_mp_vec_from_d (lp, 4, PREC);
      k.rf = tu_mp_vec_from_d (rf, 4, PREC);
      k.klp = tu_mp_vec_from_d (kl[s], 4, PREC);
      k.klr = tu_mp_vec_from_d (klr, 4, PREC);
      mpfr_inits2 (PREC, k.beta, k.wd, k.wu, loss, z0, (mpfr_ptr) 0);
      mpfr_inits2 (REF_PREC, want, x, (mpfr_ptr) 0);
      mpfr_set_d (k.beta, beta, MPFR_RNDN);
      mpfr_set_d (k.wd, wd, MPFR_RNDN);
      mpfr_set_d (k.wu, wu, MPFR_RNDN);
      TU_OK (rlref_kto_loss_mp (loss, ls, g, NULL, z0, k.lp, k.rf, des, 4, k.klp, k.klr, 4,
                                k.beta, k.wd, k.wu));
      TU_OK (rlref_kto_loss_d (&ld, lsd, gd, NULL, &z0d, lp, rf, des, 4, kl[s], klr, 4, &beta,
                               &wd, &wu));
      ck_assert (mpfr_cmp_d (z0, z0want[s]) == 0 && z0d == z0want[s]);
      for (size_t i = 0; i < 4; i++)
        {
          /* x = beta (r - z0) or beta (z0 - r); loss w (1 - sigma(x)) */
          mpfr_set_d (x, lp[i], MPFR_RNDN);
          mpfr_sub_d (x, x, rf[i], MPFR_RNDN);
          mpfr_sub_d (x, x, z0want[s], MPFR_RNDN);
          if (!des[i])
            mpfr_neg (x, x, MPFR_RNDN);
          mpfr_mul_d (x, x, beta, MPFR_RNDN);
          ref_sigmoid (want, x);
          mpfr_ui_sub (want, 1, want, MPFR_RNDN);
          mpfr_mul_d (want, want, des[i] ? wd : wu, MPFR_RNDN);
          TU_ASSERT_MP_AGREE (ls + i, want, 70);
          TU_ASSERT_REL (lsd[i], mpfr_get_d (want, MPFR_RNDN), 64 * DBL_EPSILON);
          TU_ASSERT_REL (gd[i], mpfr_get_d (g + i, MPFR_RNDN), 64 * DBL_EPSILON);
          assert_fd (g + i, k.lp + i, kto_eval, &k, "kto grad", i);
        }
      TU_ASSERT_REL (ld, mpfr_get_d (loss, MPFR_RNDN), 64 * DBL_EPSILON);
      mpfr_clears (k.beta, k.wd, k.wu, loss, z0, want, x, (mpfr_ptr) 0);
      tu_mp_vec_free (k.lp, 4);
      tu_mp_vec_free (k.rf, 4);
      tu_mp_vec_free (k.klp, 4);
      tu_mp_vec_free (k.klr, 4);
      tu_mp_vec_free (ls, 4);
      tu_mp_vec_free (g, 4);
    }
}
END_TEST

/* 1 - sigma(40) is 0 when formed by subtraction in binary64; the loss of
 * a desirable completion with beta (r - z0) = 40 is sigma(-40) =
 * 4.248e-18, held to 16 eps.  Bad input: a label 2, beta 0, a negative
 * weight, an empty KL set, NaN. */
START_TEST (test_kto_saturation_and_bad_inputs)
{
  double lp[2] = { -1, -1 }, rf[2] = { -401, -1 }, kl = -1, klr = -1, beta = 0.1, w = 1.0;
  double l, ls[2], z0, zero = 0.0, neg = -1.0, nan = NAN;
  long des[2] = { 1, 0 }, bad[2] = { 1, 2 };
  TU_OK (rlref_kto_loss_d (&l, ls, NULL, NULL, &z0, lp, rf, des, 2, &kl, &klr, 1, &beta, &w,
                           &w));
  TU_ASSERT_REL (ls[0], exp (-40.0) / (1.0 + exp (-40.0)), TU_TOL1);
  TU_ASSERT_REL (ls[1], 0.5, TU_TOL0);
  TU_ASSERT_STATUS (rlref_kto_loss_d (&l, NULL, NULL, NULL, NULL, lp, rf, bad, 2, &kl, &klr, 1,
                                      &beta, &w, &w), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_kto_loss_d (&l, NULL, NULL, NULL, NULL, lp, rf, des, 2, &kl, &klr, 1,
                                      &zero, &w, &w), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_kto_loss_d (&l, NULL, NULL, NULL, NULL, lp, rf, des, 2, &kl, &klr, 1,
                                      &beta, &w, &neg), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_kto_loss_d (&l, NULL, NULL, NULL, NULL, lp, rf, des, 2, &kl, &klr, 0,
                                      &beta, &w, &w), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_kto_loss_d (&l, NULL, NULL, NULL, NULL, lp, rf, des, 2, &nan, &klr,
                                      1, &beta, &w, &w), RLREF_ENAN);
  TU_ASSERT_STATUS (rlref_kto_loss_d (&l, NULL, NULL, NULL, NULL, lp, rf, NULL, 2, &kl, &klr,
                                      1, &beta, &w, &w), RLREF_EINVAL);
}
END_TEST

/* ===== SimPO ============================================================ */

struct simpo_ctx
{
  size_t B;
  mpfr_ptr pw, pl;
  const long *nw, *nl;
  mpfr_t beta, gamma, alpha;
};

static void
simpo_eval (mpfr_ptr loss, void *ctx)
{
  struct simpo_ctx *s = ctx;
  TU_OK (rlref_simpo_loss_mp (loss, NULL, NULL, NULL, NULL, NULL, NULL, s->pw, s->pl, s->nw,
                              s->nl, s->B, s->beta, s->gamma, s->alpha));
}

/* Equal per-token means (-12/4 = -30/10): losses softplus(gamma), nll
 * 12/4 = 3, loss softplus(0.5) + 3 alpha; a batch of three against
 * softplus(-(beta (a_w - a_l) - gamma)) evaluated here, rewards beta a,
 * token-mean nll, gradients against central differences (the NLL term
 * included); binary64 within 64 eps. */
START_TEST (test_simpo)
{
  static const double pw[3] = { -8, -20, -5 }, pl[3] = { -15, -18, -9 };
  static const long nw[3] = { 4, 10, 2 }, nl[3] = { 5, 6, 3 };
  double a12 = -12, a30 = -30, beta = 0.1, gamma = 0.5, alpha = 1.0, l, nll;
  long n4 = 4, n10 = 10;
  struct simpo_ctx s;
  mpfr_ptr ls = tu_mp_vec_new (3, PREC), gw = tu_mp_vec_new (3, PREC);
  mpfr_ptr gl = tu_mp_vec_new (3, PREC), rw = tu_mp_vec_new (3, PREC);
  mpfr_t loss, mnll, want, z;
  double ld, gwd[3];
  memset (&s, 0, sizeof s);
  s.B = 3;
  s.nw = nw;
  s.nl = nl;
  TU_OK (rlref_simpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, &nll, &a12, &a30, &n4, &n10, 1,
                             &beta, &gamma, &alpha));
  TU_ASSERT_SAME (nll, 3.0);
  TU_ASSERT_REL (l, log1p (exp (0.5)) + 3.0, TU_TOL0);
  s.pw = tu_mp_vec_from_d (pw, 3, PREC);
  s.pl = tu_mp_vec_from_d (pl, 3, PREC);
  mpfr_inits2 (PREC, s.beta, s.gamma, s.alpha, loss, mnll, (mpfr_ptr) 0);
  mpfr_inits2 (REF_PREC, want, z, (mpfr_ptr) 0);
  mpfr_set_d (s.beta, beta, MPFR_RNDN);
  mpfr_set_d (s.gamma, gamma, MPFR_RNDN);
  mpfr_set_d (s.alpha, 0.75, MPFR_RNDN);
  TU_OK (rlref_simpo_loss_mp (loss, ls, gw, gl, rw, NULL, mnll, s.pw, s.pl, nw, nl, 3, s.beta,
                              s.gamma, s.alpha));
  alpha = 0.75;
  TU_OK (rlref_simpo_loss_d (&ld, NULL, gwd, NULL, NULL, NULL, NULL, pw, pl, nw, nl, 3, &beta,
                             &gamma, &alpha));
  TU_ASSERT_REL (mpfr_get_d (mnll, MPFR_RNDN), 33.0 / 16.0, TU_TOL0);
  for (size_t i = 0; i < 3; i++)
    {
      mpfr_set_d (z, pw[i], MPFR_RNDN);
      mpfr_div_si (z, z, nw[i], MPFR_RNDN);
      mpfr_set_d (want, pl[i], MPFR_RNDN);
      mpfr_div_si (want, want, nl[i], MPFR_RNDN);
      mpfr_sub (z, z, want, MPFR_RNDN);
      mpfr_mul_d (z, z, beta, MPFR_RNDN);
      mpfr_sub_d (z, z, gamma, MPFR_RNDN);
      mpfr_neg (z, z, MPFR_RNDN);
      ref_softplus (want, z);
      TU_ASSERT_MP_AGREE (ls + i, want, 70);
      mpfr_set_d (want, pw[i], MPFR_RNDN);
      mpfr_div_si (want, want, nw[i], MPFR_RNDN);
      mpfr_mul_d (want, want, beta, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (rw + i, want, 70);
      TU_ASSERT_REL (gwd[i], mpfr_get_d (gw + i, MPFR_RNDN), 64 * DBL_EPSILON);
      assert_fd (gw + i, s.pw + i, simpo_eval, &s, "simpo grad_w", i);
      assert_fd (gl + i, s.pl + i, simpo_eval, &s, "simpo grad_l", i);
    }
  TU_ASSERT_REL (ld, mpfr_get_d (loss, MPFR_RNDN), 64 * DBL_EPSILON);
  /* bad input */
  TU_ASSERT_STATUS (rlref_simpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, &a12, &a30,
                                        &n4, &n10, 1, &beta, NULL, &alpha), RLREF_EINVAL);
  alpha = -1;
  TU_ASSERT_STATUS (rlref_simpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, &a12, &a30,
                                        &n4, &n10, 1, &beta, &gamma, &alpha), RLREF_EDOM);
  n4 = 0;
  alpha = 0;
  TU_ASSERT_STATUS (rlref_simpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, &a12, &a30,
                                        &n4, &n10, 1, &beta, &gamma, &alpha), RLREF_EDOM);
  mpfr_clears (s.beta, s.gamma, s.alpha, loss, mnll, want, z, (mpfr_ptr) 0);
  tu_mp_vec_free (s.pw, 3);
  tu_mp_vec_free (s.pl, 3);
  tu_mp_vec_free (ls, 3);
  tu_mp_vec_free (gw, 3);
  tu_mp_vec_free (gl, 3);
  tu_mp_vec_free (rw, 3);
}
END_TEST

/* ===== ORPO ============================================================= */

struct orpo_ctx
{
  size_t B;
  mpfr_ptr pw, pl;
  const long *nw, *nl;
  enum rlref_nll_mean mean;
  mpfr_t lambda;
};

static void
orpo_eval (mpfr_ptr loss, void *ctx)
{
  struct orpo_ctx *o = ctx;
  TU_OK (rlref_orpo_loss_mp (loss, NULL, NULL, NULL, NULL, NULL, NULL, NULL, o->pw, o->pl,
                             o->nw, o->nl, o->B, o->mean, o->lambda));
}

/* lo(a) = a - log(1 - e^a), written plainly at REF_PREC. */
static void
ref_log_odds (mpfr_ptr r, double logp, long n)
{
  mpfr_t a, t;
  mpfr_inits2 (REF_PREC, a, t, (mpfr_ptr) 0);
  mpfr_set_d (a, logp, MPFR_RNDN);
  mpfr_div_si (a, a, n, MPFR_RNDN);
  mpfr_exp (t, a, MPFR_RNDN);
  mpfr_ui_sub (t, 1, t, MPFR_RNDN);
  mpfr_log (t, t, MPFR_RNDN);
  mpfr_sub (r, a, t, MPFR_RNDN);
  mpfr_clears (a, t, (mpfr_ptr) 0);
}

/* A batch of three under both NLL means: log_odds and losses against
 * lo(a_w) - lo(a_l) and lambda softplus(-log_odds) evaluated here, the
 * NLL in closed form (token mean 32.5/13, per-sequence mean (1 + 3 + 0.5)/3),
 * gradients against central differences; binary64 within 64 eps. */
START_TEST (test_orpo)
{
  static const double pw[3] = { -2, -30, -0.5 }, pl[3] = { -4, -25, -3 };
  static const long nw[3] = { 2, 10, 1 }, nl[3] = { 4, 5, 3 };
  static const double nll_want[2] = { 32.5 / 13.0, 4.5 / 3.0 };
  for (int m = 0; m < 2; m++)
    {
      struct orpo_ctx o;
      mpfr_ptr ls = tu_mp_vec_new (3, PREC), gw = tu_mp_vec_new (3, PREC);
      mpfr_ptr gl = tu_mp_vec_new (3, PREC), lo = tu_mp_vec_new (3, PREC);
      mpfr_t loss, nll, want, t;
      double lambda = 0.1, ld, nlld, lod[3], gwd[3];
      memset (&o, 0, sizeof o);
      o.B = 3;
      o.nw = nw;
      o.nl = nl;
      o.mean = m ? RLREF_NLL_SEQ_MEAN : RLREF_NLL_TOKEN_MEAN;
      o.pw = tu_mp_vec_from_d (pw, 3, PREC);
      o.pl = tu_mp_vec_from_d (pl, 3, PREC);
      mpfr_inits2 (PREC, o.lambda, loss, nll, (mpfr_ptr) 0);
      mpfr_inits2 (REF_PREC, want, t, (mpfr_ptr) 0);
      mpfr_set_d (o.lambda, lambda, MPFR_RNDN);
      TU_OK (rlref_orpo_loss_mp (loss, ls, gw, gl, lo, nll, NULL, NULL, o.pw, o.pl, nw, nl, 3,
                                 o.mean, o.lambda));
      TU_OK (rlref_orpo_loss_d (&ld, NULL, gwd, NULL, lod, &nlld, NULL, NULL, pw, pl, nw, nl, 3,
                                o.mean, &lambda));
      TU_ASSERT_REL (mpfr_get_d (nll, MPFR_RNDN), nll_want[m], TU_TOL0);
      TU_ASSERT_REL (nlld, nll_want[m], TU_TOL0);
      for (size_t i = 0; i < 3; i++)
        {
          ref_log_odds (want, pw[i], nw[i]);
          ref_log_odds (t, pl[i], nl[i]);
          mpfr_sub (want, want, t, MPFR_RNDN);
          if (mpfr_zero_p (want))
            ck_assert (mpfr_zero_p (lo + i) && lod[i] == 0.0);
          else
            {
              TU_ASSERT_MP_AGREE (lo + i, want, 70);
              TU_ASSERT_REL (lod[i], mpfr_get_d (want, MPFR_RNDN), 64 * DBL_EPSILON);
            }
          mpfr_neg (t, want, MPFR_RNDN);
          ref_softplus (want, t);
          mpfr_mul_d (want, want, lambda, MPFR_RNDN);
          TU_ASSERT_MP_AGREE (ls + i, want, 70);
          TU_ASSERT_REL (gwd[i], mpfr_get_d (gw + i, MPFR_RNDN), 64 * DBL_EPSILON);
          assert_fd (gw + i, o.pw + i, orpo_eval, &o, "orpo grad_w", i);
          assert_fd (gl + i, o.pl + i, orpo_eval, &o, "orpo grad_l", i);
        }
      TU_ASSERT_REL (ld, mpfr_get_d (loss, MPFR_RNDN), 64 * DBL_EPSILON);
      mpfr_clears (o.lambda, loss, nll, want, t, (mpfr_ptr) 0);
      tu_mp_vec_free (o.pw, 3);
      tu_mp_vec_free (o.pl, 3);
      tu_mp_vec_free (ls, 3);
      tu_mp_vec_free (gw, 3);
      tu_mp_vec_free (gl, 3);
      tu_mp_vec_free (lo, 3);
    }
}
END_TEST

/* DPO-ORPO as TRL computes it in binary32 (rlref_orpo_loss_f32): TRL's own
 * float64 outputs at commit f2cd577 (tests/check_cmd/real/DPO-ORPO,
 * logp_w = -6, logp_l = -12, n 4 and 6, lambda 0.1): log_odds and the
 * rewards bit for bit, the rest (binary64 steps after the binary32 ones)
 * within 4 eps; the MPFR backend gives the same binary32 values; a batch
 * of three; ERANGE where e^a rounds to 1 in binary32 (a_w = -1e-8, and 0:
 * TRL's gradient is NaN), EDOM for logp_l = 0 as the exact convention. */
START_TEST (test_orpo_f32)
{
  double pw = -6, pl = -12, lambda = 0.1, l, ls, gw, gl, lo, nll, rw, rl;
  double pw3[3] = { -2, -30, -0.5 }, pl3[3] = { -4, -25, -3 }, lo3[3], gw3[3], gl3[3];
  double tiny = -1e-8, zero = 0.0;
  long n4 = 4, n6 = 6, n1 = 1, nw3[3] = { 2, 10, 1 }, nl3[3] = { 4, 5, 3 };
  mpfr_t ml, mls, mgw, mgl, mlo, mnll, mrw, mrl, mpw, mpl, mlam;
  TU_OK (rlref_orpo_loss_f32_d (&l, &ls, &gw, &gl, &lo, &nll, &rw, &rl, &pw, &pl, &n4, &n6, 1,
                                &lambda));
  TU_ASSERT_SAME (lo, 0.6070690155029297);
  TU_ASSERT_SAME (rw, -0.15000000596046448);
  TU_ASSERT_SAME (rl, -0.20000000298023224);
  TU_ASSERT_SAME (nll, 1.5);
  TU_ASSERT_REL (l, 1.5434988848865032, 4 * DBL_EPSILON);
  TU_ASSERT_REL (gw, -0.2613509399816394, 4 * DBL_EPSILON);
  TU_ASSERT_REL (gl, 0.006798937916755677, 4 * DBL_EPSILON);
  TU_ASSERT_REL (ls, l - 1.5, 4 * DBL_EPSILON);
  mpfr_inits2 (PREC, ml, mls, mgw, mgl, mlo, mnll, mrw, mrl, mpw, mpl, mlam, (mpfr_ptr) 0);
  mpfr_set_d (mpw, pw, MPFR_RNDN);
  mpfr_set_d (mpl, pl, MPFR_RNDN);
  mpfr_set_d (mlam, lambda, MPFR_RNDN);
  TU_OK (rlref_orpo_loss_f32_mp (ml, mls, mgw, mgl, mlo, mnll, mrw, mrl, mpw, mpl, &n4, &n6, 1,
                                 mlam));
  ck_assert (mpfr_get_d (mlo, MPFR_RNDN) == lo && mpfr_get_d (mrw, MPFR_RNDN) == rw
             && mpfr_get_d (mrl, MPFR_RNDN) == rl && mpfr_get_d (mls, MPFR_RNDN) == ls);
  TU_ASSERT_REL (mpfr_get_d (ml, MPFR_RNDN), l, 2 * DBL_EPSILON);
  TU_ASSERT_REL (mpfr_get_d (mgw, MPFR_RNDN), gw, 2 * DBL_EPSILON);
  TU_ASSERT_REL (mpfr_get_d (mgl, MPFR_RNDN), gl, 2 * DBL_EPSILON);
  /* TRL's float64 run of the batch of three (DPO-ORPO's Batch case) */
  TU_OK (rlref_orpo_loss_f32_d (&l, NULL, gw3, gl3, lo3, NULL, NULL, NULL, pw3, pl3, nw3, nl3,
                                3, &lambda));
  TU_ASSERT_SAME (lo3[0], 0.0);
  TU_ASSERT_SAME (lo3[1], 2.0443084239959717);
  TU_ASSERT_SAME (lo3[2], 0.9740769863128662);
  TU_ASSERT_REL (l, 2.5378398410975933, 4 * DBL_EPSILON);
  TU_ASSERT_REL (gw3[1], -0.07732519295353155, 4 * DBL_EPSILON);
  TU_ASSERT_REL (gl3[1], 0.0007693757303059101, 4 * DBL_EPSILON);
  /* e^a rounds to 1 in binary32: TRL's gradient is NaN */
  pl = -3;
  TU_ASSERT_STATUS (rlref_orpo_loss_f32_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &tiny,
                                           &pl, &n1, &n1, 1, &lambda), RLREF_ERANGE);
  TU_ASSERT_STATUS (rlref_orpo_loss_f32_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &zero,
                                           &pl, &n1, &n1, 1, &lambda), RLREF_ERANGE);
  mpfr_set_d (mpw, tiny, MPFR_RNDN);
  mpfr_set_d (mpl, pl, MPFR_RNDN);
  TU_ASSERT_STATUS (rlref_orpo_loss_f32_mp (ml, NULL, NULL, NULL, NULL, NULL, NULL, NULL, mpw,
                                            mpl, &n1, &n1, 1, mlam), RLREF_ERANGE);
  TU_ASSERT_STATUS (rlref_orpo_loss_f32_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &pl,
                                           &zero, &n1, &n1, 1, &lambda), RLREF_EDOM);
  mpfr_clears (ml, mls, mgw, mgl, mlo, mnll, mrw, mrl, mpw, mpl, mlam, (mpfr_ptr) 0);
}
END_TEST

/* log(1 - e^a) near a = 0: at a = -1e-10 the binary64 log odds hold 16
 * digits (log(1 - exp(a)) in binary64 would hold about 6).  A chosen
 * log-probability of 0: log_odds +inf, losses exactly 0, and d/dlogp_w
 * the one-sided limit -lambda e^{lo(a_l)}/n_w - 1/n_w (token-mean NLL,
 * B = 1), which the MPFR gradient at logp_w = -2^-400 approaches to its
 * 77 digits.  A rejected log-probability of 0, a positive one, lambda < 0
 * and a count 0 are refused (EDOM). */
/* A chosen mean a_w = -2^-445 beside a_l = -2: L = lo(a_w) - lo(a_l) = 310.3,
 * where exp of the rounded L is up to 128 ulp off e^{-L}; the loss
 * lambda log1p(e^{-L}) and grad_l = lambda sigma(-L)/(1 - e^{a_l})/n_l take
 * e^{-L} = expm1(-a_w)/expm1(-a_l) (150 ulp off before).  Within 16 eps
 * of the definitions at 512 bits. */
START_TEST (test_orpo_large_log_odds)
{
  double pw = -0x1p-443, pl = -12, lambda = 0.25, l, ls, gw, gl, lo;
  long nw = 4, nl = 6;
  mpfr_t L, t, want;
  TU_OK (rlref_orpo_loss_d (&l, &ls, &gw, &gl, &lo, NULL, NULL, NULL, &pw, &pl, &nw, &nl, 1,
                            RLREF_NLL_TOKEN_MEAN, &lambda));
  mpfr_inits2 (REF_PREC, L, t, want, (mpfr_ptr) 0);
  ref_log_odds (L, pw, nw);
  ref_log_odds (t, pl, nl);
  mpfr_sub (L, L, t, MPFR_RNDN);
  TU_ASSERT_REL (lo, mpfr_get_d (L, MPFR_RNDN), TU_TOL0);
  mpfr_neg (t, L, MPFR_RNDN);
  ref_softplus (want, t);
  mpfr_mul_d (want, want, lambda, MPFR_RNDN);
  TU_ASSERT_REL (ls, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  ref_sigmoid (want, t);                        /* sigma(-L) */
  mpfr_set_si (t, -2, MPFR_RNDN);
  mpfr_expm1 (t, t, MPFR_RNDN);
  mpfr_div (want, want, t, MPFR_RNDN);
  mpfr_mul_d (want, want, -lambda / nl, MPFR_RNDN);  /* lambda/6 exact enough: 1 rounding */
  TU_ASSERT_REL (gl, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  mpfr_clears (L, t, want, (mpfr_ptr) 0);
}
END_TEST

/* Tiny per-token means (subnormal in binary64): a_w = -2^-1062/5 and
 * a_l = -2^-1060/3 give lo(a) = -log(-a) + O(a), so L = log(20/3), e^{-L}
 * = 3/20, the loss term lambda log(23/20), sigma(-L) = 3/23; with the two
 * exchanged L = -log(20/3), the term lambda log(23/3).  (Before: the
 * subnormal quotients, 2^-13 relative, gave L 1e-4 off, and a_l = 0 from
 * -2^-1074/4 was ERANGE.)  Within 16 eps. */
START_TEST (test_orpo_tiny_means)
{
  double pw = -0x1p-1062, pl = -0x1p-1060, lambda = 0.5, l, ls, gw, gl, lo;
  long nw = 5, nl = 3;
  TU_OK (rlref_orpo_loss_d (&l, &ls, &gw, &gl, &lo, NULL, NULL, NULL, &pw, &pl, &nw, &nl, 1,
                            RLREF_NLL_TOKEN_MEAN, &lambda));
  TU_ASSERT_REL (lo, log (20.0 / 3), TU_TOL1);
  TU_ASSERT_REL (ls, lambda * log (23.0 / 20), TU_TOL1);
  TU_OK (rlref_orpo_loss_d (&l, &ls, &gw, &gl, &lo, NULL, NULL, NULL, &pl, &pw, &nl, &nw, 1,
                            RLREF_NLL_TOKEN_MEAN, &lambda));
  TU_ASSERT_REL (lo, -log (20.0 / 3), TU_TOL1);
  TU_ASSERT_REL (ls, lambda * log (23.0 / 3), TU_TOL1);
  pl = -0x1p-1074;
  nl = 4;
  pw = -1;
  nw = 1;
  TU_OK (rlref_orpo_loss_d (&l, &ls, NULL, NULL, &lo, NULL, NULL, NULL, &pw, &pl, &nw, &nl, 1,
                            RLREF_NLL_TOKEN_MEAN, &lambda));
  /* lo(-1) - lo(-2^-1076) = -1 - log(1 - e^-1) + log(2^-1076) */
  TU_ASSERT_REL (lo, -1 - log1p (-exp (-1.0)) - 1076 * log (2.0), TU_TOL1);
}
END_TEST

START_TEST (test_orpo_edges)
{
  double pw = -1e-10, pl = -3, zero = 0.0, pos = 0.5, lambda = 0.1, negl = -0.1;
  double l, ls, gw, gl, lo;
  long n1 = 1, n3 = 3, n2 = 2, n0 = 0;
  mpfr_t ml, mgw, mpw, mpl, mlam, want, t;
  TU_OK (rlref_orpo_loss_d (&l, NULL, NULL, NULL, &lo, NULL, NULL, NULL, &pw, &pl, &n1, &n1, 1,
                            RLREF_NLL_TOKEN_MEAN, &lambda));
  mpfr_inits2 (REF_PREC, want, t, (mpfr_ptr) 0);
  ref_log_odds (want, pw, 1);
  ref_log_odds (t, pl, 1);
  mpfr_sub (want, want, t, MPFR_RNDN);
  TU_ASSERT_REL (lo, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  pl = -2;
  TU_OK (rlref_orpo_loss_d (&l, &ls, &gw, &gl, &lo, NULL, NULL, NULL, &zero, &pl, &n3, &n2, 1,
                            RLREF_NLL_TOKEN_MEAN, &lambda));
  ck_assert (isinf (lo) && lo > 0);
  TU_ASSERT_SAME (ls, 0.0);
  TU_ASSERT_SAME (l, 0.0);
  ck_assert (gl == 0.0);
  /* the limit: -lambda e^{lo(a_l)}/3 - 1/3, lo(-1) = -1 - log(1 - e^-1) */
  TU_ASSERT_REL (gw, -(lambda * exp (-1.0) / (1 - exp (-1.0))) / 3 - 1.0 / 3, TU_TOL1);
  mpfr_inits2 (PREC, ml, mgw, mpw, mpl, mlam, (mpfr_ptr) 0);
  mpfr_set_d (mpw, 0x1p-400, MPFR_RNDN);
  mpfr_neg (mpw, mpw, MPFR_RNDN);
  mpfr_set_d (mpl, pl, MPFR_RNDN);
  mpfr_set_d (mlam, lambda, MPFR_RNDN);
  TU_OK (rlref_orpo_loss_mp (ml, NULL, mgw, NULL, NULL, NULL, NULL, NULL, mpw, mpl, &n3, &n2, 1,
                             RLREF_NLL_TOKEN_MEAN, mlam));
  mpfr_set_zero (mpw, -1);
  TU_OK (rlref_orpo_loss_mp (ml, NULL, t, NULL, NULL, NULL, NULL, NULL, mpw, mpl, &n3, &n2, 1,
                             RLREF_NLL_TOKEN_MEAN, mlam));
  TU_ASSERT_MP_AGREE (mgw, t, 70);
  /* refused */
  TU_ASSERT_STATUS (rlref_orpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &pl, &zero,
                                       &n3, &n2, 1, RLREF_NLL_TOKEN_MEAN, &lambda), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_orpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &pos, &pl,
                                       &n3, &n2, 1, RLREF_NLL_TOKEN_MEAN, &lambda), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_orpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &pl, &pl,
                                       &n3, &n2, 1, RLREF_NLL_TOKEN_MEAN, &negl), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_orpo_loss_d (&l, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &pl, &pl,
                                       &n0, &n2, 1, RLREF_NLL_TOKEN_MEAN, &lambda), RLREF_EDOM);
  mpfr_clears (ml, mgw, mpw, mpl, mlam, want, t, (mpfr_ptr) 0);
}
END_TEST

/* ===== binary64 against MPFR ============================================== */

/* Seeded random batches (B 1..8, log-probabilities in [-60, -0.5], counts
 * 1..64, beta in [0.01, 2]) under every pairwise convention: every
 * binary64 per-pair loss and gradient within 64 u (s + |y|) of the MPFR
 * value, s the first-order sensitivity sum_j |dy/dx_j| |x_j| bounded by
 * |grad| times the log-probabilities' magnitudes (the golden tolerance
 * rule with a margin). */
START_TEST (test_pair_random_d_vs_mp)
{
  gsl_rng *r = tu_rng_new ();
  for (int trial = 0; trial < 200; trial++)
    {
      size_t B = 1 + gsl_rng_uniform_int (r, 8), k = (size_t) trial % N_CONV;
      double pw[8], pl[8], rw[8], rl[8], beta = tu_uniform (r, 0.01, 2.0), eps = conv[k].eps;
      double l, ls[8], gw[8], gl[8];
      long nw[8], nl[8];
      struct pair_ctx p;
      mpfr_ptr mls = tu_mp_vec_new (8, PREC), mgw = tu_mp_vec_new (8, PREC);
      mpfr_ptr mgl = tu_mp_vec_new (8, PREC);
      mpfr_t ml;
      for (size_t i = 0; i < B; i++)
        {
          pw[i] = tu_uniform (r, -60, -0.5);
          pl[i] = tu_uniform (r, -60, -0.5);
          rw[i] = tu_uniform (r, -60, -0.5);
          rl[i] = tu_uniform (r, -60, -0.5);
          nw[i] = 1 + (long) gsl_rng_uniform_int (r, 64);
          nl[i] = 1 + (long) gsl_rng_uniform_int (r, 64);
        }
      mpfr_init2 (ml, PREC);
      pair_ctx_init (&p, k, pw, pl, rw, rl, nw, nl, B, beta);
      TU_OK (rlref_dpo_loss_d (&l, ls, gw, gl, NULL, NULL, pw, pl, rw, rl, nw, nl, B,
                               &conv[k].c, &beta, &eps));
      TU_OK (rlref_dpo_loss_mp (ml, mls, mgw, mgl, NULL, NULL, p.pw, p.pl, p.rw, p.rl, nw, nl,
                                B, &conv[k].c, p.beta, p.eps));
      for (size_t i = 0; i < B; i++)
        {
          double mag = fabs (pw[i]) + fabs (pl[i]) + fabs (rw[i]) + fabs (rl[i]);
          double y = mpfr_get_d (mls + i, MPFR_RNDN);
          double s = B * fmax (fabs (mpfr_get_d (mgw + i, MPFR_RNDN)),
                               fabs (mpfr_get_d (mgl + i, MPFR_RNDN))) * mag;
          /* the gradients' own sensitivity: |d grad/dD| |D| <= b^2 |D| (sigmoid
             forms), 2 (IPO, scaled by 1/n): bounded by (beta + 2)^2 mag */
          double sg = (beta + 2) * (beta + 2) * mag / B;
          ck_assert_msg (fabs (ls[i] - y) <= 64 * DBL_EPSILON * (s + fabs (y)),
                         "%s trial %d pair %zu: %.17g vs %.17g", conv[k].name, trial, i, ls[i], y);
          ck_assert_msg (fabs (gw[i] - mpfr_get_d (mgw + i, MPFR_RNDN))
                         <= 64 * DBL_EPSILON * (sg + fabs (gw[i])),
                         "%s trial %d grad_w %zu", conv[k].name, trial, i);
          ck_assert_msg (fabs (gl[i] - mpfr_get_d (mgl + i, MPFR_RNDN))
                         <= 64 * DBL_EPSILON * (sg + fabs (gl[i])),
                         "%s trial %d grad_l %zu", conv[k].name, trial, i);
        }
      mpfr_clear (ml);
      tu_mp_vec_free (mls, 8);
      tu_mp_vec_free (mgw, 8);
      tu_mp_vec_free (mgl, 8);
      pair_ctx_clear (&p);
    }
  gsl_rng_free (r);
}
END_TEST

static Suite *
dpo_suite (void)
{
  Suite *s = suite_create ("dpo");
  TCase *tc;

  tc = tu_tcase ("pairwise");
  tcase_add_test (tc, test_conventions_detector);
  tcase_add_test (tc, test_seed_erratum_detector);
  tcase_add_test (tc, test_pair_closed_forms);
  tcase_add_test (tc, test_pair_gradients_fd);
  tcase_add_test (tc, test_pair_identities);
  tcase_add_test (tc, test_hinge_kink);
  tcase_add_test (tc, test_robust_above_half);
  tcase_add_test (tc, test_pair_saturation);
  tcase_add_test (tc, test_pair_bad_inputs);
  tcase_add_test (tc, test_pair_cancellation);
  tcase_add_test (tc, test_robust_subnormal_beta);
  tcase_add_test (tc, test_pair_random_d_vs_mp);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("grad");
  tcase_add_test (tc, test_grad_weight);
  tcase_add_test (tc, test_grad_weight_cancellation);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("kto");
  tcase_add_test (tc, test_kto_values_and_gradient);
  tcase_add_test (tc, test_kto_saturation_and_bad_inputs);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("simpo_orpo");
  tcase_add_test (tc, test_simpo);
  tcase_add_test (tc, test_orpo);
  tcase_add_test (tc, test_orpo_edges);
  tcase_add_test (tc, test_orpo_large_log_odds);
  tcase_add_test (tc, test_orpo_tiny_means);
  tcase_add_test (tc, test_orpo_f32);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (dpo_suite)
