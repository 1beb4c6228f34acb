/* test_klopt.c -- the KL-regularised optimum on explicit finite
 * distributions (KLOPT-Z, KLOPT-PISTAR, KLOPT-OBJ, KLOPT-IDENT,
 * KLOPT-LIMITS), in binary64 (_d) and MPFR (_mp).
 *
 * Expected values: the definitions of seed 000 (13.13)-(13.17) evaluated
 * here directly with MPFR at 1024 bits from the exact binary64 inputs,
 * written as printed (Z = sum pi_ref e^{r/beta} with the plain exponential,
 * whose overflow MPFR's exponent range excludes; KL = sum p log(p/q);
 * the normalisation p / sum p exact at 1024 bits); exact closed forms
 * (constant rewards, one outcome, pi = pi_ref, the beta -> 0 split of ties);
 * the limits beta -> infinity and beta -> 0 by their first-order terms.
 * The library's MPFR results at 256 bits must agree with the references to
 * 70 digits, its binary64 results within named multiples of DBL_EPSILON. */
#include "testutil.h"

#define PREC 256
#define REF 1024
#define NMAX 8

typedef int kl_kind;

/* ===== test-side references (the definitions at REF bits) ================ */

/* The distribution of x[0..n-1] (probabilities or log-probabilities)
 * normalised: p_i = x_i / sum x, or e^{x_i} / sum e^{x}. */
static void
ref_dist (mpfr_ptr p, const double *x, size_t n, kl_kind kind)
{
  mpfr_t s;
  mpfr_init2 (s, REF);
  mpfr_set_zero (s, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_set_d (p + i, x[i], MPFR_RNDN);
      if (kind == RLREF_KLOPT_LOGPROB)
        mpfr_exp (p + i, p + i, MPFR_RNDN);
      mpfr_add (s, s, p + i, MPFR_RNDN);
    }
  for (size_t i = 0; i < n; i++)
    mpfr_div (p + i, p + i, s, MPFR_RNDN);
  mpfr_clear (s);
}

/* Z = sum_i pi_i e^{r_i/beta}, pi*_i = pi_i e^{r_i/beta} / Z (13.15), (13.17). */
static void
ref_pistar (mpfr_ptr logz, mpfr_ptr ps, mpfr_srcptr pi, const double *r, size_t n, double beta)
{
  mpfr_t z;
  mpfr_init2 (z, REF);
  mpfr_set_zero (z, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_set_d (ps + i, r[i], MPFR_RNDN);
      mpfr_div_d (ps + i, ps + i, beta, MPFR_RNDN);
      mpfr_exp (ps + i, ps + i, MPFR_RNDN);
      mpfr_mul (ps + i, ps + i, pi + i, MPFR_RNDN);
      mpfr_add (z, z, ps + i, MPFR_RNDN);
    }
  for (size_t i = 0; i < n; i++)
    mpfr_div (ps + i, ps + i, z, MPFR_RNDN);
  mpfr_log (logz, z, MPFR_RNDN);
  mpfr_clear (z);
}

/* log pi*_i = -log sum_j (pi_j/pi_i) e^{(r_j - r_i)/beta}, -inf where
 * pi_i = 0 (13.17 divided through by its own term: no cancellation when
 * pi*_i is within 1e-4000 of 1). */
static void
ref_logpistar (mpfr_ptr l, mpfr_srcptr pi, const double *r, size_t n, double beta, size_t i)
{
  mpfr_t s, t;
  if (mpfr_zero_p (pi + i))
    {
      mpfr_set_inf (l, -1);
      return;
    }
  mpfr_inits2 (REF, s, t, (mpfr_ptr) 0);
  mpfr_set_zero (s, 1);
  for (size_t j = 0; j < n; j++)
    if (j != i)
      {
        mpfr_set_d (t, r[j], MPFR_RNDN);
        mpfr_sub_d (t, t, r[i], MPFR_RNDN);
        mpfr_div_d (t, t, beta, MPFR_RNDN);
        mpfr_exp (t, t, MPFR_RNDN);
        mpfr_mul (t, t, pi + j, MPFR_RNDN);
        mpfr_div (t, t, pi + i, MPFR_RNDN);
        mpfr_add (s, s, t, MPFR_RNDN);
      }
  mpfr_log1p (l, s, MPFR_RNDN);
  mpfr_neg (l, l, MPFR_RNDN);
  mpfr_clears (s, t, (mpfr_ptr) 0);
}

/* KL(p || q) = sum_{p_i > 0} p_i log(p_i/q_i); +inf when some q_i = 0 < p_i. */
static void
ref_kl (mpfr_ptr kl, mpfr_srcptr p, mpfr_srcptr q, size_t n)
{
  mpfr_t t;
  mpfr_init2 (t, REF);
  mpfr_set_zero (kl, 1);
  for (size_t i = 0; i < n; i++)
    {
      if (mpfr_zero_p (p + i))
        continue;
      if (mpfr_zero_p (q + i))
        {
          mpfr_set_inf (kl, 1);
          break;
        }
      mpfr_div (t, p + i, q + i, MPFR_RNDN);
      mpfr_log (t, t, MPFR_RNDN);
      mpfr_mul (t, t, p + i, MPFR_RNDN);
      mpfr_add (kl, kl, t, MPFR_RNDN);
    }
  mpfr_clear (t);
}

/* E_p[r] = sum_i p_i r_i. */
static void
ref_expect (mpfr_ptr e, mpfr_srcptr p, const double *r, size_t n)
{
  mpfr_t t;
  mpfr_init2 (t, REF);
  mpfr_set_zero (e, 1);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_mul_d (t, p + i, r[i], MPFR_RNDN);
      mpfr_add (e, e, t, MPFR_RNDN);
    }
  mpfr_clear (t);
}

/* Every quantity of one problem (and a policy pi, when given) at REF bits. */
typedef struct
{
  size_t n;
  mpfr_ptr pi, ps, q;           /* pi_ref, pi*, the policy */
  mpfr_t logz, z, er_star, kl_star_ref, kl_ref_star, obj, er, kl, kl_pistar, beta_logz;
} ref_problem;

static void
ref_new (ref_problem *o, const double *ref, kl_kind kind, const double *r, size_t n,
         double beta, const double *pi)
{
  mpfr_t t;
  o->n = n;
  o->pi = tu_mp_vec_new (n, REF);
  o->ps = tu_mp_vec_new (n, REF);
  o->q = tu_mp_vec_new (n, REF);
  mpfr_inits2 (REF, o->logz, o->z, o->er_star, o->kl_star_ref, o->kl_ref_star, o->obj, o->er,
               o->kl, o->kl_pistar, o->beta_logz, t, (mpfr_ptr) 0);
  ref_dist (o->pi, ref, n, kind);
  ref_pistar (o->logz, o->ps, o->pi, r, n, beta);
  mpfr_exp (o->z, o->logz, MPFR_RNDN);
  ref_expect (o->er_star, o->ps, r, n);
  ref_kl (o->kl_star_ref, o->ps, o->pi, n);
  ref_kl (o->kl_ref_star, o->pi, o->ps, n);
  mpfr_mul_d (o->beta_logz, o->logz, beta, MPFR_RNDN);
  if (pi)
    {
      ref_dist (o->q, pi, n, kind);
      ref_expect (o->er, o->q, r, n);
      ref_kl (o->kl, o->q, o->pi, n);
      ref_kl (o->kl_pistar, o->q, o->ps, n);
      /* J(pi) = E_pi[r] - beta KL(pi || pi_ref) (13.13) */
      mpfr_mul_d (t, o->kl, beta, MPFR_RNDN);
      mpfr_sub (o->obj, o->er, t, MPFR_RNDN);
    }
  mpfr_clear (t);
}

static void
ref_free (ref_problem *o)
{
  tu_mp_vec_free (o->pi, o->n);
  tu_mp_vec_free (o->ps, o->n);
  tu_mp_vec_free (o->q, o->n);
  mpfr_clears (o->logz, o->z, o->er_star, o->kl_star_ref, o->kl_ref_star, o->obj, o->er, o->kl,
               o->kl_pistar, o->beta_logz, (mpfr_ptr) 0);
}

/* ===== comparisons ========================================================= */

/* x (256 bits) agrees with the reference: to 70 digits, or both are the
 * same infinity, or both are 0. */
static void
mp_agrees (mpfr_srcptr x, mpfr_srcptr ref, const char *what)
{
  if (mpfr_inf_p (ref) || mpfr_zero_p (ref))
    {
      ck_assert_msg (mpfr_equal_p (x, ref), "%s = %s, expected %s", what, tu_mp_str (x),
                     tu_mp_str (ref));
      return;
    }
  ck_assert_msg (tu_mp_digits (x, ref) >= 70, "%s = %s, expected %s (%d digits)", what,
                 tu_mp_str (x), tu_mp_str (ref), tu_mp_digits (x, ref));
}

/* A binary64 result against the reference: relative error <= tol, or the
 * same infinity; a reference below the normal range may give any value
 * within tol DBL_MIN. */
static void
d_agrees (double x, mpfr_srcptr ref, double tol, const char *what)
{
  double want = mpfr_get_d (ref, MPFR_RNDN);
  if (isinf (want) || mpfr_zero_p (ref))
    {
      ck_assert_msg (tu_same_double (x, want) || (want == 0 && x == 0),
                     "%s = %a, expected %a", what, x, want);
      return;
    }
  if (fabs (want) < DBL_MIN)
    {
      ck_assert_msg (fabs (x - want) <= tol * DBL_MIN, "%s = %a, expected %a", what, x, want);
      return;
    }
  ck_assert_msg (tu_rel_err (x, want) <= tol, "%s = %.17g, expected %.17g: relative error %.3g "
                 "(%.1f eps) > %.1f eps", what, x, want, tu_rel_err (x, want),
                 tu_rel_err (x, want) / DBL_EPSILON, tol / DBL_EPSILON);
}

/* A binary64 result x within tol (|ref| + scale) of the reference, scale
 * the first-order sensitivity of the value to its inputs where that
 * exceeds the value (log Z ~ 5e-13 moved by r/beta ~ 1e-6). */
static void
d_close (double x, mpfr_srcptr ref, double tol, double scale, const char *what)
{
  double want = mpfr_get_d (ref, MPFR_RNDN);
  ck_assert_msg (fabs (x - want) <= tol * (fabs (want) + scale),
                 "%s = %.17g, expected %.17g: error %.3g > %.3g", what, x, want,
                 fabs (x - want), tol * (fabs (want) + scale));
}

/* sum_i pi*_i |r_i| / beta + sum_i |pi*_i - pi_ref_i|: the sensitivity of
 * log Z to r and to pi_ref (of E_pi*[r] / beta to r, to first order). */
static double
logz_scale (const ref_problem *o, const double *r, double beta)
{
  double s = 0;
  for (size_t i = 0; i < o->n; i++)
    s += mpfr_get_d (o->ps + i, MPFR_RNDN) * fabs (r[i]) / beta
         + fabs (mpfr_get_d (o->ps + i, MPFR_RNDN) - mpfr_get_d (o->pi + i, MPFR_RNDN));
  return s;
}

/* ===== the problems ======================================================== */

typedef struct
{
  size_t n;
  double p[NMAX], r[NMAX], beta;
  double tol;                   /* binary64 tolerance of log Z, E, pi* */
} problem;

static const problem problems[] = {
  { 2, { 0.5, 0.5 }, { 1, 0 }, 1, TU_TOL1 },
  { 3, { 0.2, 0.3, 0.5 }, { 1, -0.5, 2 }, 0.5, TU_TOL1 },
  { 3, { 0.1, 0.2, 0.7 }, { 1, 2, 3 }, 1, TU_TOL1 },             /* sum 1 - 2^-55 */
  { 3, { 0, 0.5, 0.5 }, { 100, 0, 1 }, 1, TU_TOL1 },             /* pi_ref = 0 */
  { 3, { 0.25, 0.25, 0.5 }, { 1, 1, 0.5 }, 0.5, TU_TOL1 },       /* a tie */
  { 3, { 0.2, 0.3, 0.5 }, { 1, -0.5, 2 }, 1e6, TU_TOL1 },        /* large beta */
  { 2, { 0.5, 0.5 }, { 1, -1 }, 1e6, TU_TOL1 },                  /* E[r] = 0 */
  { 3, { 0.5, 0.25, 0.25 }, { 1e4, 0, -1e4 }, 1, TU_TOL1 },      /* r/beta = 1e4 */
  { 2, { 0.5, 0.5 }, { 10, 0 }, 1e-3, TU_TOL1 },                 /* r/beta = 1e4 */
  { 2, { 0.999999, 0.000001 }, { 0, 20 }, 1, TU_TOL1 },          /* rare outcome made likely */
  { 2, { 0x1p-40, 1 - 0x1p-40 }, { 10, 0 }, 1, TU_TOL1 },        /* rare best outcome */
  { 4, { 0.4, 0.3, 0.2, 0.1 }, { -3, 7.5, 0.25, 2 }, 2.5, TU_TOL1 },
};
#define N_PROBLEMS (sizeof problems / sizeof problems[0])

/* MPFR inputs at PREC holding the doubles. */
static mpfr_ptr
mp_vec (const double *x, size_t n)
{
  return tu_mp_vec_from_d (x, n, PREC);
}

/* ===== KLOPT-Z ============================================================= */

/* log Z and Z of every problem against the definition (13.15), both
 * backends; Z is +inf in both beyond DBL_MAX (e^{1e4}). */
START_TEST (test_logz)
{
  const problem *c = &problems[_i];
  ref_problem o;
  double lz, z;
  mpfr_ptr p = mp_vec (c->p, c->n), r = mp_vec (c->r, c->n);
  mpfr_t beta, mlz, mz, zref;
  mpfr_inits2 (PREC, beta, mlz, mz, (mpfr_ptr) 0);
  mpfr_init2 (zref, REF);
  mpfr_set_d (beta, c->beta, MPFR_RNDN);
  ref_new (&o, c->p, RLREF_KLOPT_PROB, c->r, c->n, c->beta, NULL);
  mpfr_set (zref, o.z, MPFR_RNDN);
  if (mpfr_cmp_d (zref, DBL_MAX) > 0)
    mpfr_set_inf (zref, 1);
  TU_OK (rlref_klopt_logz_d (&lz, &z, c->p, RLREF_KLOPT_PROB, c->r, c->n, &c->beta));
  d_close (lz, o.logz, c->tol, logz_scale (&o, c->r, c->beta), "log Z (double)");
  /* e^{log Z} magnifies the error of log Z by |log Z| */
  d_agrees (z, zref, c->tol * (2 + fabs (lz)), "Z (double)");
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_klopt_logz_mp (mlz, mz, p, RLREF_KLOPT_PROB, r, c->n, beta));
  mp_agrees (mlz, o.logz, "log Z (MPFR)");
  mp_agrees (mz, zref, "Z (MPFR)");
  ref_free (&o);
  tu_mp_vec_free (p, c->n);
  tu_mp_vec_free (r, c->n);
  mpfr_clears (beta, mlz, mz, zref, (mpfr_ptr) 0);
}
END_TEST

/* Constant rewards c: log Z = c/beta exactly (pi* = pi_ref); one outcome:
 * log Z = r/beta exactly; both backends. */
START_TEST (test_logz_exact)
{
  const double p2[] = { 0.3, 0.7 }, r2[] = { 2, 2 }, b2 = 0.5;
  const double p1[] = { 1 }, r1[] = { 3 }, b1 = 2;
  double lz;
  mpfr_ptr mp2 = mp_vec (p2, 2), mr2 = mp_vec (r2, 2), mp1 = mp_vec (p1, 1), mr1 = mp_vec (r1, 1);
  mpfr_t beta, mlz;
  mpfr_inits2 (PREC, beta, mlz, (mpfr_ptr) 0);
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_klopt_logz_d (&lz, NULL, p2, RLREF_KLOPT_PROB, r2, 2, &b2));
  TU_ASSERT_SAME (lz, 4.0);
  TU_OK (rlref_klopt_logz_d (&lz, NULL, p1, RLREF_KLOPT_PROB, r1, 1, &b1));
  TU_ASSERT_SAME (lz, 1.5);
  mpfr_set_d (beta, b2, MPFR_RNDN);
  TU_OK (rlref_klopt_logz_mp (mlz, NULL, mp2, RLREF_KLOPT_PROB, mr2, 2, beta));
  ck_assert (mpfr_cmp_ui (mlz, 4) == 0);
  mpfr_set_d (beta, b1, MPFR_RNDN);
  TU_OK (rlref_klopt_logz_mp (mlz, NULL, mp1, RLREF_KLOPT_PROB, mr1, 1, beta));
  ck_assert (mpfr_cmp_d (mlz, 1.5) == 0);
  tu_mp_vec_free (mp2, 2);
  tu_mp_vec_free (mr2, 2);
  tu_mp_vec_free (mp1, 1);
  tu_mp_vec_free (mr1, 1);
  mpfr_clears (beta, mlz, (mpfr_ptr) 0);
}
END_TEST

/* ===== KLOPT-PISTAR ======================================================== */

/* pi*, log pi*, E_pi*[r] and both KL of every problem against the
 * definitions; pi* = 0 and log pi* = -inf exactly where pi_ref = 0. */
START_TEST (test_pistar)
{
  const problem *c = &problems[_i];
  size_t n = c->n;
  ref_problem o;
  double ps[NMAX], lps[NMAX], er, k1, k2;
  mpfr_ptr p = mp_vec (c->p, n), r = mp_vec (c->r, n);
  mpfr_ptr mps = tu_mp_vec_new (n, PREC), mlps = tu_mp_vec_new (n, PREC);
  mpfr_t beta, mer, mk1, mk2, lref;
  mpfr_inits2 (PREC, beta, mer, mk1, mk2, (mpfr_ptr) 0);
  mpfr_init2 (lref, REF);
  mpfr_set_d (beta, c->beta, MPFR_RNDN);
  ref_new (&o, c->p, RLREF_KLOPT_PROB, c->r, n, c->beta, NULL);
  TU_OK (rlref_klopt_pistar_d (ps, lps, &er, &k1, &k2, c->p, RLREF_KLOPT_PROB, c->r, n,
                               &c->beta));
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_klopt_pistar_mp (mps, mlps, mer, mk1, mk2, p, RLREF_KLOPT_PROB, r, n, beta));
  for (size_t i = 0; i < n; i++)
    {
      ref_logpistar (lref, o.pi, c->r, n, c->beta, i);
      d_agrees (ps[i], o.ps + i, c->tol, "pi* (double)");
      mp_agrees (mps + i, o.ps + i, "pi* (MPFR)");
      /* log pi* to c->tol relative, or to c->tol absolute near 0 */
      if (fabs (mpfr_get_d (lref, MPFR_RNDN)) >= 1 || mpfr_inf_p (lref))
        d_agrees (lps[i], lref, c->tol, "log pi* (double)");
      else
        TU_ASSERT_ABS (lps[i], mpfr_get_d (lref, MPFR_RNDN), c->tol);
      mp_agrees (mlps + i, lref, "log pi* (MPFR)");
      if (c->p[i] == 0)
        {
          TU_ASSERT_SAME (ps[i], 0.0);
          TU_ASSERT_SAME (lps[i], -INFINITY);
        }
    }
  d_close (er, o.er_star, c->tol, c->beta * logz_scale (&o, c->r, c->beta), "E_pi*[r] (double)");
  mp_agrees (mer, o.er_star, "E_pi*[r] (MPFR)");
  d_agrees (k1, o.kl_star_ref, TU_TOL2, "KL(pi* || pi_ref) (double)");
  mp_agrees (mk1, o.kl_star_ref, "KL(pi* || pi_ref) (MPFR)");
  d_agrees (k2, o.kl_ref_star, TU_TOL2, "KL(pi_ref || pi*) (double)");
  mp_agrees (mk2, o.kl_ref_star, "KL(pi_ref || pi*) (MPFR)");
  ref_free (&o);
  tu_mp_vec_free (p, n);
  tu_mp_vec_free (r, n);
  tu_mp_vec_free (mps, n);
  tu_mp_vec_free (mlps, n);
  mpfr_clears (beta, mer, mk1, mk2, lref, (mpfr_ptr) 0);
}
END_TEST

/* As beta grows, KL(pi* || pi_ref) ~ Var[r]/(2 beta^2) -> 0 and log Z ~
 * E[r]/beta: binary64 keeps them to a few ulps at every beta up to 1e12,
 * where forming E_pi*[r]/beta - log Z, or a log-sum-exp of log pi_ref +
 * r/beta, would keep no digit at all. */
START_TEST (test_large_beta_binary64)
{
  const double p[] = { 0.2, 0.3, 0.5 }, r[] = { 1, -0.5, 2 };
  for (int k = 3; k <= 12; k++)
    {
      double beta = pow (10, k), lz, k1, k2, tv, ta, ps[3];
      ref_problem o;
      mpfr_t tvref, t;
      mpfr_inits2 (REF, tvref, t, (mpfr_ptr) 0);
      ref_new (&o, p, RLREF_KLOPT_PROB, r, 3, beta, NULL);
      TU_OK (rlref_klopt_logz_d (&lz, NULL, p, RLREF_KLOPT_PROB, r, 3, &beta));
      TU_OK (rlref_klopt_pistar_d (ps, NULL, NULL, &k1, &k2, p, RLREF_KLOPT_PROB, r, 3, &beta));
      TU_OK (rlref_klopt_approach_d (&tv, &ta, p, RLREF_KLOPT_PROB, r, 3, &beta));
      d_agrees (lz, o.logz, TU_TOL1, "log Z");
      d_agrees (k1, o.kl_star_ref, TU_TOL2, "KL(pi* || pi_ref)");
      d_agrees (k2, o.kl_ref_star, TU_TOL2, "KL(pi_ref || pi*)");
      /* tv_ref = (1/2) sum |pi* - pi_ref| */
      mpfr_set_zero (tvref, 1);
      for (int i = 0; i < 3; i++)
        {
          mpfr_sub (t, o.ps + i, o.pi + i, MPFR_RNDN);
          mpfr_abs (t, t, MPFR_RNDN);
          mpfr_add (tvref, tvref, t, MPFR_RNDN);
        }
      mpfr_div_2ui (tvref, tvref, 1, MPFR_RNDN);
      d_agrees (tv, tvref, TU_TOL2, "tv_ref");
      ref_free (&o);
      mpfr_clears (tvref, t, (mpfr_ptr) 0);
    }
}
END_TEST

/* An outcome whose reference probability underflows binary64 (log pi_ref
 * = -800) but which the reward makes likely: pi*(0) = 1/(1 + e^-100), in
 * binary64 from the log-probabilities. */
START_TEST (test_underflowing_reference)
{
  const double lp[] = { -800, 0 }, r[] = { 900, 0 }, beta = 1;
  double ps[2], lps[2], er, k1, k2;
  ref_problem o;
  ref_new (&o, lp, RLREF_KLOPT_LOGPROB, r, 2, beta, NULL);
  TU_OK (rlref_klopt_pistar_d (ps, lps, &er, &k1, &k2, lp, RLREF_KLOPT_LOGPROB, r, 2, &beta));
  d_agrees (ps[0], o.ps, TU_TOL1, "pi*(0)");
  d_agrees (ps[1], o.ps + 1, TU_TOL1, "pi*(1)");
  d_agrees (er, o.er_star, TU_TOL1, "E_pi*[r]");
  d_agrees (k1, o.kl_star_ref, TU_TOL1, "KL(pi* || pi_ref)");
  d_agrees (k2, o.kl_ref_star, TU_TOL1, "KL(pi_ref || pi*)");
  ref_free (&o);
}
END_TEST

/* A reference probability below the normal range keeps its digits: the
 * terms pi_ref_i e^{d_i} are formed from the scaled pi_ref_i (and T scaled
 * by the exponent of the likeliest outcome), not from e^{log pi_ref_i + d_i},
 * whose exponent near -710 rounds by 8e-14.  (Each failed before.) */
START_TEST (test_subnormal_reference)
{
  const double p1[] = { 0x0.2p-1022, 1 }, r1[] = { 1, 0 }, b1 = 1;
  const double p2[] = { 1, 0x0.1p-1022, 0x0.2p-1022 }, r2[] = { -0x1p+780, 1, 0.5 }, b2 = 0.5;
  const double p3[] = { 0x0.0666666666666p-1022, 1, 0x0.2666666666667p-1022 };
  const double r3[] = { 2, -2, 0x1.01p+0 }, b3 = 1000;
  double lz, ps[3];
  ref_problem o;
  mpfr_t want, t;
  /* log Z = log((1 + x_0 e)/(1 + x_0)) = log1p(x_0 e) - log1p(x_0), subnormal */
  mpfr_inits2 (REF, want, t, (mpfr_ptr) 0);
  mpfr_set_ui (want, 1, MPFR_RNDN);
  mpfr_exp (want, want, MPFR_RNDN);
  mpfr_mul_d (want, want, p1[0], MPFR_RNDN);
  mpfr_log1p (want, want, MPFR_RNDN);
  mpfr_set_d (t, p1[0], MPFR_RNDN);
  mpfr_log1p (t, t, MPFR_RNDN);
  mpfr_sub (want, want, t, MPFR_RNDN);
  TU_OK (rlref_klopt_logz_d (&lz, NULL, p1, RLREF_KLOPT_PROB, r1, 2, &b1));
  d_agrees (lz, want, TU_TOL1, "log Z");
  mpfr_clears (want, t, (mpfr_ptr) 0);
  /* T = pi_ref_1 + pi_ref_2 e^{-1} subnormal: pi* = (1, 2/e) / (1 + 2/e) on 1, 2 */
  ref_new (&o, p2, RLREF_KLOPT_PROB, r2, 3, b2, NULL);
  TU_OK (rlref_klopt_pistar_d (ps, NULL, NULL, NULL, NULL, p2, RLREF_KLOPT_PROB, r2, 3, &b2));
  d_agrees (ps[1], o.ps + 1, TU_TOL1, "pi*(1)");
  d_agrees (ps[2], o.ps + 2, TU_TOL1, "pi*(2)");
  ref_free (&o);
  /* pi*_0, pi*_2 subnormal (KLOPT-LIMITS finite-beta's pi) */
  ref_new (&o, p3, RLREF_KLOPT_PROB, r3, 3, b3, NULL);
  TU_OK (rlref_klopt_pistar_d (ps, NULL, NULL, NULL, NULL, p3, RLREF_KLOPT_PROB, r3, 3, &b3));
  d_agrees (ps[0], o.ps, TU_TOL1, "pi*(0)");
  d_agrees (ps[2], o.ps + 2, TU_TOL1, "pi*(2)");
  ref_free (&o);
}
END_TEST

/* KL(pi_ref || pi*) = sum_i pi_ref_i (log Z - r_i/beta) where pi_ref_0 =
 * e^-800 has underflowed and its term, pi_ref_0 (2^179 + log Z), has not:
 * it is formed as e^{log pi_ref_0 + log(e_0 - 1)} (u 800 in the exponent).
 * With pi_ref = (e^-800, 1)/(1 + e^-800), log Z = log pi_ref_1 (e^{-2^179}
 * is far below both).  (Failed before: 0.) */
START_TEST (test_underflowed_reference_kl)
{
  const double lp[] = { -800, 0 }, r[] = { -0x1p+179, 0 }, beta = 1;
  double ps[2], k2;
  mpfr_t p0, p1, lz, t, want;
  mpfr_inits2 (REF, p0, p1, lz, t, want, (mpfr_ptr) 0);
  mpfr_set_si (p0, -800, MPFR_RNDN);
  mpfr_exp (p0, p0, MPFR_RNDN);
  mpfr_add_ui (p1, p0, 1, MPFR_RNDN);
  mpfr_ui_div (p1, 1, p1, MPFR_RNDN);
  mpfr_mul (p0, p0, p1, MPFR_RNDN);
  mpfr_log (lz, p1, MPFR_RNDN);
  mpfr_set_d (t, 0x1p+179, MPFR_RNDN);
  mpfr_add (t, t, lz, MPFR_RNDN);
  mpfr_mul (want, p0, t, MPFR_RNDN);
  mpfr_mul (t, p1, lz, MPFR_RNDN);
  mpfr_add (want, want, t, MPFR_RNDN);
  TU_OK (rlref_klopt_pistar_d (ps, NULL, NULL, NULL, &k2, lp, RLREF_KLOPT_LOGPROB, r, 2, &beta));
  d_agrees (k2, want, TU_TOL3, "KL(pi_ref || pi*)");
  mpfr_clears (p0, p1, lz, t, want, (mpfr_ptr) 0);
}
END_TEST

/* KLOPT-IDENT where beta log Z and beta KL(pi || pi*) are both 2^300 (a
 * reward 2^300 where pi is 0) or both ~1 for J ~ 7e-4: the right side
 * equals J(pi) to the rounding of J, not of 2^300.  And KL(pi || pi*) with
 * pi_1 = 2^-1074 exact, whose term pi_1 (e_1 - 1) ~ 2^-1074 DBL_MAX is
 * formed from the scaled pi_1, not from log pi_1.  (Each failed before.) */
START_TEST (test_identity_cancelling)
{
  const double p1[] = { 0x1.24151b867d381p-2, 0x1.b61fa949bbd41p-10, 0x1.6d1a62681c861p-1 };
  const double r1[] = { 0x1p+300, -0.5, 2 }, q1[] = { 0, 0, 1 }, b1 = 0.5;
  const double p2[] = { 0.5, 0.5 }, r2[] = { 1, 0 }, q2[] = { 0x1.0000000000001p-530, 1 };
  const double b2 = 0x1.0624dd2f1a9fcp-10;
  const double p3[] = { 0x1p-957, 1 }, r3[] = { 0x1.ffffffffffffep+1023, 0 };
  const double q3[] = { 1, 0x0.0000000000001p-1022 }, b3 = 1;
  double obj, ident, ks;
  ref_problem o;
  ref_new (&o, p1, RLREF_KLOPT_PROB, r1, 3, b1, q1);
  TU_OK (rlref_klopt_identity_d (&obj, &ident, &ks, q1, p1, RLREF_KLOPT_PROB, r1, 3, &b1));
  d_agrees (ident, o.obj, TU_TOL1, "the identity's right side");
  ref_free (&o);
  ref_new (&o, p2, RLREF_KLOPT_PROB, r2, 2, b2, q2);
  TU_OK (rlref_klopt_identity_d (&obj, &ident, &ks, q2, p2, RLREF_KLOPT_PROB, r2, 2, &b2));
  d_agrees (ident, o.obj, TU_TOL1, "the identity's right side");
  ref_free (&o);
  /* KL(pi || pi*) = 2^-1074 (e_1 - 1) + ..., e_1 = log pi_1 - log pi*_1 =
   * log(2^-1074) + r_0 + log1p(2^-957 ...): to first order 2^-1074 r_0 */
  TU_OK (rlref_klopt_identity_d (&obj, &ident, &ks, q3, p3, RLREF_KLOPT_PROB, r3, 2, &b3));
  TU_ASSERT_REL (ks, 0x1p-1074 * (r3[0] - 744.44007192138126 - 1), TU_TOL1);
}
END_TEST

/* The same problem given as log-probabilities (log p at 256 bits in MPFR,
 * rounded in binary64) gives the same results. */
START_TEST (test_logprob_matches_prob)
{
  const problem *c = &problems[_i];
  size_t n = c->n;
  double lp[NMAX], a[NMAX], b[NMAX], ea, eb, ka, kb, la, lb;
  mpfr_ptr p = mp_vec (c->p, n), r = mp_vec (c->r, n), mlp = tu_mp_vec_new (n, PREC);
  mpfr_ptr ma = tu_mp_vec_new (n, PREC), mb = tu_mp_vec_new (n, PREC);
  mpfr_t beta, x, y;
  mpfr_inits2 (PREC, beta, x, y, (mpfr_ptr) 0);
  mpfr_set_d (beta, c->beta, MPFR_RNDN);
  for (size_t i = 0; i < n; i++)
    {
      lp[i] = log (c->p[i]);
      mpfr_log (mlp + i, p + i, MPFR_RNDN);
    }
  TU_OK (rlref_klopt_pistar_d (a, NULL, &ea, &ka, NULL, c->p, RLREF_KLOPT_PROB, c->r, n, &c->beta));
  TU_OK (rlref_klopt_pistar_d (b, NULL, &eb, &kb, NULL, lp, RLREF_KLOPT_LOGPROB, c->r, n, &c->beta));
  TU_OK (rlref_klopt_logz_d (&la, NULL, c->p, RLREF_KLOPT_PROB, c->r, n, &c->beta));
  TU_OK (rlref_klopt_logz_d (&lb, NULL, lp, RLREF_KLOPT_LOGPROB, c->r, n, &c->beta));
  /* log p rounds: u |log p| in every exponent */
  for (size_t i = 0; i < n; i++)
    TU_ASSERT_ABS (b[i], a[i], TU_TOL3 * a[i] + DBL_MIN);
  TU_ASSERT_ABS (eb, ea, TU_TOL3 * fabs (ea) + TU_TOL3);
  TU_ASSERT_ABS (lb, la, TU_TOL3 * fabs (la) + TU_TOL3);
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_klopt_pistar_mp (ma, NULL, x, NULL, NULL, p, RLREF_KLOPT_PROB, r, n, beta));
  TU_OK (rlref_klopt_pistar_mp (mb, NULL, y, NULL, NULL, mlp, RLREF_KLOPT_LOGPROB, r, n, beta));
  for (size_t i = 0; i < n; i++)
    if (!mpfr_zero_p (ma + i))
      TU_ASSERT_MP_AGREE (mb + i, ma + i, 70);
  TU_ASSERT_MP_AGREE (y, x, 70);
  TU_OK (rlref_klopt_logz_mp (x, NULL, p, RLREF_KLOPT_PROB, r, n, beta));
  TU_OK (rlref_klopt_logz_mp (y, NULL, mlp, RLREF_KLOPT_LOGPROB, r, n, beta));
  TU_ASSERT_MP_AGREE (y, x, 70);
  tu_mp_vec_free (p, n);
  tu_mp_vec_free (r, n);
  tu_mp_vec_free (mlp, n);
  tu_mp_vec_free (ma, n);
  tu_mp_vec_free (mb, n);
  mpfr_clears (beta, x, y, (mpfr_ptr) 0);
}
END_TEST

/* Normalisation: a sum within 2^-20 of 1 is divided out (1 + 5e-7, and
 * 0.1 + 0.2 + 0.7 = 1 - 2^-55: the results are those of p / sum p to 70
 * digits, which the raw p would miss at the 17th); beyond, EDOM; logits
 * are not log-probabilities. */
START_TEST (test_normalisation)
{
  const double p1[] = { 0.5, 0.5000005 }, r1[] = { 1, 0 }, beta = 1;
  const double p2[] = { 0.5, 0.500001 }, logits[] = { 1, 2 };
  const double p3[] = { 0.1, 0.2, 0.7 }, r3[] = { 1, 2, 3 };
  double lz;
  ref_problem o;
  mpfr_ptr mp1 = mp_vec (p1, 2), mr1 = mp_vec (r1, 2), mp3 = mp_vec (p3, 3), mr3 = mp_vec (r3, 3);
  mpfr_t mb, mlz;
  mpfr_inits2 (PREC, mb, mlz, (mpfr_ptr) 0);
  mpfr_set_d (mb, beta, MPFR_RNDN);
  rlref_mp_set_prec (PREC);
  ref_new (&o, p1, RLREF_KLOPT_PROB, r1, 2, beta, NULL);
  TU_OK (rlref_klopt_logz_mp (mlz, NULL, mp1, RLREF_KLOPT_PROB, mr1, 2, mb));
  mp_agrees (mlz, o.logz, "log Z, sum 1 + 5e-7");
  TU_OK (rlref_klopt_logz_d (&lz, NULL, p1, RLREF_KLOPT_PROB, r1, 2, &beta));
  d_agrees (lz, o.logz, TU_TOL1, "log Z, sum 1 + 5e-7 (double)");
  ref_free (&o);
  ref_new (&o, p3, RLREF_KLOPT_PROB, r3, 3, beta, NULL);
  TU_OK (rlref_klopt_logz_mp (mlz, NULL, mp3, RLREF_KLOPT_PROB, mr3, 3, mb));
  mp_agrees (mlz, o.logz, "log Z, sum 1 - 2^-55");
  ref_free (&o);
  TU_ASSERT_STATUS (rlref_klopt_logz_d (&lz, NULL, p2, RLREF_KLOPT_PROB, r1, 2, &beta),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_klopt_logz_d (&lz, NULL, logits, RLREF_KLOPT_LOGPROB, r1, 2, &beta),
                    RLREF_EDOM);
  tu_mp_vec_free (mp1, 2);
  tu_mp_vec_free (mr1, 2);
  tu_mp_vec_free (mp3, 3);
  tu_mp_vec_free (mr3, 3);
  mpfr_clears (mb, mlz, (mpfr_ptr) 0);
}
END_TEST

/* ===== KLOPT-OBJ and KLOPT-IDENT =========================================== */

/* Seeded random problems and policies (some outcomes of zero reference
 * probability, where pi is 0 too; |r| <= 3): J(pi) against (13.13), the
 * identity (13.16) J(pi) = -beta [KL(pi || pi*) - log Z] within 2^-230 of
 * the terms it cancels, Gibbs KL(pi || pi*) >= 0, J(pi*) = beta log Z,
 * J(pi) <= J(pi*); binary64 within 2^11 eps of the scale max|r| +
 * E_pi|r| + beta (KL terms) + |beta log Z|. */
START_TEST (test_objective_identity_random)
{
  gsl_rng *g = tu_rng_new ();
  for (int it = 0; it < 200; it++)
    {
      size_t n = 1 + gsl_rng_uniform_int (g, NMAX);
      double p[NMAX], q[NMAX], r[NMAX], sp = 0, sq = 0, beta, scale = 3;
      double obj, er, kl, ident, kls, js, bz;
      ref_problem o;
      mpfr_ptr mp, mq, mr;
      mpfr_t mbeta, mobj, mer, mkl, mident, mkls, mjs, mbz, t;
      for (size_t i = 0; i < n; i++)
        {
          p[i] = i > 0 && gsl_rng_uniform (g) < 0.15 ? 0 : gsl_rng_uniform_pos (g);
          q[i] = p[i] == 0 ? 0 : gsl_rng_uniform_pos (g);
          r[i] = tu_uniform (g, -3, 3);
          sp += p[i];
          sq += q[i];
        }
      for (size_t i = 0; i < n; i++)
        {
          p[i] /= sp;
          q[i] /= sq;
          scale += q[i] * fabs (r[i]);
        }
      beta = pow (10, tu_uniform (g, -2, 3));
      mp = mp_vec (p, n);
      mq = mp_vec (q, n);
      mr = mp_vec (r, n);
      mpfr_inits2 (PREC, mbeta, mobj, mer, mkl, mident, mkls, mjs, mbz, t, (mpfr_ptr) 0);
      mpfr_set_d (mbeta, beta, MPFR_RNDN);
      ref_new (&o, p, RLREF_KLOPT_PROB, r, n, beta, q);
      rlref_mp_set_prec (PREC);
      TU_OK (rlref_klopt_objective_mp (mobj, mer, mkl, mq, mp, RLREF_KLOPT_PROB, mr, n, mbeta));
      TU_OK (rlref_klopt_identity_mp (t, mident, mkls, mq, mp, RLREF_KLOPT_PROB, mr, n, mbeta));
      TU_OK (rlref_klopt_optimum_mp (mjs, mbz, mp, RLREF_KLOPT_PROB, mr, n, mbeta));
      mp_agrees (mer, o.er, "E_pi[r]");
      mp_agrees (mkl, o.kl, "KL(pi || pi_ref)");
      mp_agrees (mkls, o.kl_pistar, "KL(pi || pi*)");
      mp_agrees (mbz, o.beta_logz, "beta log Z");
      mp_agrees (mjs, o.beta_logz, "J(pi*) = beta log Z");
      ck_assert (mpfr_equal_p (t, mobj));
      /* J and the identity, absolutely to 2^-230 of the terms they cancel */
      mpfr_mul_d (t, o.kl_pistar, beta, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_add_d (t, t, fabs (mpfr_get_d (o.beta_logz, MPFR_RNDN)) + scale + 1, MPFR_RNDN);
      mpfr_mul_2si (t, t, -230, MPFR_RNDN);
      {
        mpfr_t d;
        mpfr_init2 (d, REF);
        mpfr_sub (d, mobj, o.obj, MPFR_RNDN);
        ck_assert_msg (mpfr_cmpabs (d, t) <= 0, "J(pi) = %s, expected %s", tu_mp_str (mobj),
                       tu_mp_str (o.obj));
        mpfr_sub (d, mident, o.obj, MPFR_RNDN);
        ck_assert_msg (mpfr_cmpabs (d, t) <= 0, "(13.16) = %s, J(pi) = %s", tu_mp_str (mident),
                       tu_mp_str (o.obj));
        mpfr_clear (d);
      }
      ck_assert (mpfr_sgn (mkls) >= 0);
      ck_assert (mpfr_cmp (mobj, mbz) <= 0);
      /* binary64 */
      TU_OK (rlref_klopt_objective_d (&obj, &er, &kl, q, p, RLREF_KLOPT_PROB, r, n, &beta));
      TU_OK (rlref_klopt_identity_d (&obj, &ident, &kls, q, p, RLREF_KLOPT_PROB, r, n, &beta));
      TU_OK (rlref_klopt_optimum_d (&js, &bz, p, RLREF_KLOPT_PROB, r, n, &beta));
      scale += beta * (fabs (mpfr_get_d (o.kl, MPFR_RNDN)) + fabs (mpfr_get_d (o.kl_pistar, MPFR_RNDN)))
               + fabs (mpfr_get_d (o.beta_logz, MPFR_RNDN));
      TU_ASSERT_ABS (obj, mpfr_get_d (o.obj, MPFR_RNDN), TU_TOL3 * scale);
      TU_ASSERT_ABS (ident, mpfr_get_d (o.obj, MPFR_RNDN), TU_TOL3 * scale);
      TU_ASSERT_ABS (js, mpfr_get_d (o.beta_logz, MPFR_RNDN), TU_TOL3 * scale);
      d_agrees (bz, o.beta_logz, TU_TOL2, "beta log Z (double)");
      d_agrees (kl, o.kl, TU_TOL3, "KL(pi || pi_ref) (double)");
      ck_assert (kls >= 0);
      ref_free (&o);
      tu_mp_vec_free (mp, n);
      tu_mp_vec_free (mq, n);
      tu_mp_vec_free (mr, n);
      mpfr_clears (mbeta, mobj, mer, mkl, mident, mkls, mjs, mbz, t, (mpfr_ptr) 0);
    }
  gsl_rng_free (g);
}
END_TEST

/* beta = 2^1024 - 2^972, r = (2^-400, 0), pi_ref = (1/2, 1/2): beta log Z
 * = beta log1p(expm1(r_0/beta)/2) = 2^-401 (1 + O(2^-1424)), r_0/beta
 * beyond the binary64 range (binary64 gave twice the value); J(pi*) and
 * beta log Z are that value rounded once (against MPFR at REF bits). */
START_TEST (test_optimum_huge_beta)
{
  static const double p[2] = { 0.5, 0.5 }, r[2] = { 0x1p-400, 0 };
  double beta = 0x1.ffffffffffffep+1023, js, bz;
  mpfr_t t;
  mpfr_init2 (t, REF);
  mpfr_set_d (t, r[0], MPFR_RNDN);
  mpfr_div_d (t, t, beta, MPFR_RNDN);
  mpfr_expm1 (t, t, MPFR_RNDN);
  mpfr_mul_2si (t, t, -1, MPFR_RNDN);
  mpfr_log1p (t, t, MPFR_RNDN);
  mpfr_mul_d (t, t, beta, MPFR_RNDN);
  TU_OK (rlref_klopt_optimum_d (&js, &bz, p, RLREF_KLOPT_PROB, r, 2, &beta));
  TU_ASSERT_SAME (bz, mpfr_get_d (t, MPFR_RNDN));
  TU_ASSERT_SAME (js, mpfr_get_d (t, MPFR_RNDN));
  mpfr_clear (t);
}
END_TEST

/* pi = pi_ref: KL(pi || pi_ref) = 0 exactly and J = E_pi_ref[r]; with
 * constant rewards pi* = pi_ref too, so KL(pi || pi*) = 0 exactly and
 * J(pi) = beta log Z = 2 exactly; pi = pi* (MPFR, at 256 bits) gives
 * KL(pi || pi*) below 2^-240 (Gibbs' equality). */
START_TEST (test_objective_exact)
{
  const double p[] = { 0.3, 0.7 }, r[] = { 2, 2 }, beta = 0.5;
  const double p3[] = { 0.2, 0.3, 0.5 }, r3[] = { 1, -0.5, 2 }, b3 = 0.5;
  double obj, er, kl, ident, kls;
  mpfr_ptr mp = mp_vec (p3, 3), mr = mp_vec (r3, 3), ps = tu_mp_vec_new (3, PREC);
  mpfr_t mb, mobj, mident, mkls, bz;
  mpfr_inits2 (PREC, mb, mobj, mident, mkls, bz, (mpfr_ptr) 0);
  TU_OK (rlref_klopt_objective_d (&obj, &er, &kl, p, p, RLREF_KLOPT_PROB, r, 2, &beta));
  TU_ASSERT_SAME (kl, 0.0);
  TU_ASSERT_SAME (obj, 2.0);
  TU_OK (rlref_klopt_identity_d (&obj, &ident, &kls, p, p, RLREF_KLOPT_PROB, r, 2, &beta));
  TU_ASSERT_SAME (kls, 0.0);
  TU_ASSERT_SAME (ident, 2.0);
  TU_OK (rlref_klopt_objective_d (&obj, &er, &kl, p3, p3, RLREF_KLOPT_PROB, r3, 3, &b3));
  TU_ASSERT_SAME (kl, 0.0);
  TU_ASSERT_REL (obj, 1.05, TU_TOL0);
  rlref_mp_set_prec (PREC);
  mpfr_set_d (mb, b3, MPFR_RNDN);
  TU_OK (rlref_klopt_pistar_mp (ps, NULL, NULL, NULL, NULL, mp, RLREF_KLOPT_PROB, mr, 3, mb));
  TU_OK (rlref_klopt_identity_mp (mobj, mident, mkls, ps, mp, RLREF_KLOPT_PROB, mr, 3, mb));
  TU_OK (rlref_klopt_optimum_mp (mident, bz, mp, RLREF_KLOPT_PROB, mr, 3, mb));
  ck_assert (mpfr_sgn (mkls) >= 0);
  TU_ASSERT_MP_SMALL (mkls, 0x1p-240);
  TU_ASSERT_MP_AGREE (mobj, bz, 70);
  tu_mp_vec_free (mp, 3);
  tu_mp_vec_free (mr, 3);
  tu_mp_vec_free (ps, 3);
  mpfr_clears (mb, mobj, mident, mkls, bz, (mpfr_ptr) 0);
}
END_TEST

/* pi puts mass where pi_ref has none: KL = +inf, J = -inf in both
 * backends (values, not an error); where both are 0, 0 log 0 = 0. */
START_TEST (test_infinite_kl)
{
  const double p[] = { 0, 0.5, 0.5 }, r[] = { 5, 0, 1 }, beta = 1;
  const double q[] = { 0.5, 0.25, 0.25 }, q0[] = { 0, 0.2, 0.8 };
  double obj, er, kl, ident, kls;
  ref_problem o;
  mpfr_ptr mp = mp_vec (p, 3), mr = mp_vec (r, 3), mq = mp_vec (q, 3), mq0 = mp_vec (q0, 3);
  mpfr_t mb, mobj, mer, mkl, mident, mkls;
  mpfr_inits2 (PREC, mb, mobj, mer, mkl, mident, mkls, (mpfr_ptr) 0);
  mpfr_set_d (mb, beta, MPFR_RNDN);
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_klopt_objective_d (&obj, &er, &kl, q, p, RLREF_KLOPT_PROB, r, 3, &beta));
  TU_ASSERT_SAME (kl, INFINITY);
  TU_ASSERT_SAME (obj, -INFINITY);
  TU_ASSERT_REL (er, 2.75, TU_TOL0);
  TU_OK (rlref_klopt_identity_d (&obj, &ident, &kls, q, p, RLREF_KLOPT_PROB, r, 3, &beta));
  TU_ASSERT_SAME (kls, INFINITY);
  TU_ASSERT_SAME (ident, -INFINITY);
  TU_OK (rlref_klopt_objective_mp (mobj, mer, mkl, mq, mp, RLREF_KLOPT_PROB, mr, 3, mb));
  ck_assert (mpfr_inf_p (mkl) && mpfr_sgn (mkl) > 0);
  ck_assert (mpfr_inf_p (mobj) && mpfr_sgn (mobj) < 0);
  TU_OK (rlref_klopt_identity_mp (mobj, mident, mkls, mq, mp, RLREF_KLOPT_PROB, mr, 3, mb));
  ck_assert (mpfr_inf_p (mkls) && mpfr_sgn (mkls) > 0);
  ck_assert (mpfr_inf_p (mident) && mpfr_sgn (mident) < 0);
  ref_new (&o, p, RLREF_KLOPT_PROB, r, 3, beta, q0);
  TU_OK (rlref_klopt_objective_d (&obj, &er, &kl, q0, p, RLREF_KLOPT_PROB, r, 3, &beta));
  d_agrees (kl, o.kl, TU_TOL1, "KL, 0 log 0 = 0 (double)");
  TU_OK (rlref_klopt_objective_mp (mobj, mer, mkl, mq0, mp, RLREF_KLOPT_PROB, mr, 3, mb));
  mp_agrees (mkl, o.kl, "KL, 0 log 0 = 0 (MPFR)");
  mp_agrees (mobj, o.obj, "J, 0 log 0 = 0 (MPFR)");
  ref_free (&o);
  tu_mp_vec_free (mp, 3);
  tu_mp_vec_free (mr, 3);
  tu_mp_vec_free (mq, 3);
  tu_mp_vec_free (mq0, 3);
  mpfr_clears (mb, mobj, mer, mkl, mident, mkls, (mpfr_ptr) 0);
}
END_TEST

/* KL(p || q) of two explicit distributions: (1/2, 1/2) against (1/4, 3/4);
 * KL(p || p) = 0 exactly; (1, 0) against (1/2, 1/2) is log 2; (1/2, 1/2)
 * against (1, 0) is +inf. */
START_TEST (test_kl_of_distributions)
{
  const double a[] = { 0.5, 0.5 }, b[] = { 0.25, 0.75 }, one[] = { 1, 0 };
  double kl;
  mpfr_ptr ma = mp_vec (a, 2), mbv = mp_vec (b, 2);
  mpfr_ptr pa = tu_mp_vec_new (2, REF), pb = tu_mp_vec_new (2, REF);
  mpfr_t mk, ref;
  mpfr_init2 (mk, PREC);
  mpfr_init2 (ref, REF);
  ref_dist (pa, a, 2, RLREF_KLOPT_PROB);
  ref_dist (pb, b, 2, RLREF_KLOPT_PROB);
  ref_kl (ref, pa, pb, 2);
  TU_OK (rlref_klopt_kl_d (&kl, a, b, RLREF_KLOPT_PROB, 2));
  d_agrees (kl, ref, TU_TOL1, "KL (double)");
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_klopt_kl_mp (mk, ma, mbv, RLREF_KLOPT_PROB, 2));
  mp_agrees (mk, ref, "KL (MPFR)");
  TU_OK (rlref_klopt_kl_mp (mk, ma, ma, RLREF_KLOPT_PROB, 2));
  ck_assert (mpfr_zero_p (mk));
  TU_OK (rlref_klopt_kl_d (&kl, b, b, RLREF_KLOPT_PROB, 2));
  TU_ASSERT_SAME (kl, 0.0);
  TU_OK (rlref_klopt_kl_d (&kl, one, a, RLREF_KLOPT_PROB, 2));
  TU_ASSERT_REL (kl, log (2.0), TU_TOL0);
  TU_OK (rlref_klopt_kl_d (&kl, a, one, RLREF_KLOPT_PROB, 2));
  TU_ASSERT_SAME (kl, INFINITY);
  tu_mp_vec_free (ma, 2);
  tu_mp_vec_free (mbv, 2);
  tu_mp_vec_free (pa, 2);
  tu_mp_vec_free (pb, 2);
  mpfr_clear (mk);
  mpfr_clear (ref);
}
END_TEST

/* ===== KLOPT-LIMITS ======================================================== */

/* The exact limits: beta -> infinity gives pi_ref; beta -> 0 gives pi_ref
 * on the best outcomes of positive reference probability, ties split in
 * proportion to pi_ref: (0.1, 0.3) tied -> (1/4, 3/4); a best reward
 * where pi_ref = 0 is ignored. */
START_TEST (test_limits_exact)
{
  const double p[] = { 0.1, 0.3, 0.6 }, r[] = { 2, 2, 1 };
  const double pz[] = { 0, 0.4, 0.6 }, rz[] = { 5, 1, 0 };
  double pi[3], er;
  mpfr_ptr mp = mp_vec (p, 3), mr = mp_vec (r, 3), mpi = tu_mp_vec_new (3, PREC);
  mpfr_t mer, want;
  mpfr_init2 (mer, PREC);
  mpfr_init2 (want, REF);
  TU_OK (rlref_klopt_limit_ref_d (pi, &er, p, RLREF_KLOPT_PROB, r, 3));
  for (int i = 0; i < 3; i++)
    TU_ASSERT_REL (pi[i], p[i], TU_TOL0);
  TU_ASSERT_REL (er, 0.1 * 2 + 0.3 * 2 + 0.6, TU_TOL1);
  TU_OK (rlref_klopt_limit_argmax_d (pi, &er, p, RLREF_KLOPT_PROB, r, 3));
  /* 0.1/(0.1 + 0.3) of the doubles */
  mpfr_set_d (want, 0.1, MPFR_RNDN);
  mpfr_add_d (mer, want, 0.3, MPFR_RNDN);
  mpfr_div (want, want, mer, MPFR_RNDN);
  d_agrees (pi[0], want, TU_TOL0, "tie split 1/4");
  mpfr_ui_sub (want, 1, want, MPFR_RNDN);
  d_agrees (pi[1], want, TU_TOL0, "tie split 3/4");
  TU_ASSERT_SAME (pi[2], 0.0);
  TU_ASSERT_SAME (er, 2.0);
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_klopt_limit_argmax_mp (mpi, mer, mp, RLREF_KLOPT_PROB, mr, 3));
  mpfr_set_d (want, 0.1, MPFR_RNDN);
  mpfr_set_d (mer, 0.3, MPFR_RNDN);
  mpfr_add (mer, mer, want, MPFR_RNDN);
  mpfr_div (want, want, mer, MPFR_RNDN);
  mp_agrees (mpi, want, "tie split (MPFR)");
  ck_assert (mpfr_zero_p (mpi + 2));
  TU_OK (rlref_klopt_limit_argmax_d (pi, &er, pz, RLREF_KLOPT_PROB, rz, 3));
  TU_ASSERT_SAME (pi[0], 0.0);
  TU_ASSERT_SAME (pi[1], 1.0);
  TU_ASSERT_SAME (pi[2], 0.0);
  TU_ASSERT_SAME (er, 1.0);
  tu_mp_vec_free (mp, 3);
  tu_mp_vec_free (mr, 3);
  tu_mp_vec_free (mpi, 3);
  mpfr_clear (mer);
  mpfr_clear (want);
}
END_TEST

/* The approach at finite beta (MPFR, 256 bits), against the first-order
 * terms of the limits:
 *   beta tv_ref -> (1/2) sum_i pi_ref_i |r_i - E_pi_ref[r]|  (beta -> inf),
 *   tv_argmax e^{gap/beta} -> pi_ref(B)/pi_ref(A)  (beta -> 0, B the
 *   second-best outcomes, gap the reward difference; 0.6/(0.1 + 0.3) of
 *   the doubles),
 * and a tie keeps pi*_0/pi*_1 = pi_ref_0/pi_ref_1 at every beta. */
START_TEST (test_limits_approach)
{
  const double p[] = { 0.1, 0.3, 0.6 }, r[] = { 2, 2, 1 };
  mpfr_ptr mp = mp_vec (p, 3), mr = mp_vec (r, 3), ps = tu_mp_vec_new (3, PREC);
  mpfr_t mb, tv, ta, t, u;
  mpfr_inits2 (PREC, mb, tv, ta, t, u, (mpfr_ptr) 0);
  rlref_mp_set_prec (PREC);
  /* E = 1.4; (1/2)(0.1 0.6 + 0.3 0.6 + 0.6 0.4) = 0.24 */
  mpfr_set_d (mb, 1e8, MPFR_RNDN);
  TU_OK (rlref_klopt_approach_mp (tv, ta, mp, RLREF_KLOPT_PROB, mr, 3, mb));
  mpfr_mul (t, tv, mb, MPFR_RNDN);
  mpfr_sub_d (t, t, 0.24, MPFR_RNDN);
  TU_ASSERT_MP_SMALL (t, 1e-8);
  /* pi_ref(B)/pi_ref(A) = 0.6/0.4; the next correction is e^{-1/beta} */
  mpfr_set_d (mb, 1e-3, MPFR_RNDN);
  TU_OK (rlref_klopt_approach_mp (tv, ta, mp, RLREF_KLOPT_PROB, mr, 3, mb));
  mpfr_ui_div (t, 1, mb, MPFR_RNDN);
  mpfr_exp (t, t, MPFR_RNDN);
  mpfr_mul (t, t, ta, MPFR_RNDN);
  mpfr_set_d (u, 0.1, MPFR_RNDN);
  mpfr_add_d (u, u, 0.3, MPFR_RNDN);            /* exact at 256 bits */
  mpfr_d_div (u, 0.6, u, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (t, u, 70);
  for (int k = -6; k <= 6; k += 3)
    {
      mpfr_set_d (mb, pow (10, k), MPFR_RNDN);
      TU_OK (rlref_klopt_pistar_mp (ps, NULL, NULL, NULL, NULL, mp, RLREF_KLOPT_PROB, mr, 3, mb));
      mpfr_div (t, ps, ps + 1, MPFR_RNDN);
      mpfr_set_d (u, 0.1, MPFR_RNDN);
      mpfr_div_d (u, u, 0.3, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (t, u, 70);
    }
  tu_mp_vec_free (mp, 3);
  tu_mp_vec_free (mr, 3);
  tu_mp_vec_free (ps, 3);
  mpfr_clears (mb, tv, ta, t, u, (mpfr_ptr) 0);
}
END_TEST

/* ===== bad input ============================================== */

/* Every rejection, with its status, in both backends. */
/* The refusals the goldens do not hold, in each entry point: a reward of
 * -inf, a NaN probability, a kind outside the enum; a policy that is not a
 * distribution and NULL inputs.  The other bad inputs (beta <= 0, NaN or
 * infinite beta and rewards, probabilities off 1 or negative, log-
 * probabilities of +inf or NaN, lengths) are KLOPT-Z's golden cases: the
 * generic test, and their statuses in the goldens, fail when their checks
 * go. */
START_TEST (test_bad_inputs)
{
  static const struct
  {
    size_t n;
    double p[3], r[3], beta;
    int kind, status;
  } c[] = {
    { 2, { 0.5, 0.5 }, { -INFINITY, 0 }, 1, RLREF_KLOPT_PROB, RLREF_ENAN },
    { 2, { NAN, 1 }, { 1, 0 }, 1, RLREF_KLOPT_PROB, RLREF_ENAN },
    { 2, { 0.5, 0.5 }, { 1, 0 }, 1, 7, RLREF_EINVAL },
  };
  const double good[] = { 0.5, 0.5 }, bad_pi[] = { 1, 1 }, r2[] = { 1, 0 }, one = 1;
  double y[3], y2;
  for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
    {
      mpfr_ptr mp = mp_vec (c[k].p, 3), mr = mp_vec (c[k].r, 3);
      mpfr_t mb, ms;
      mpfr_inits2 (PREC, mb, ms, (mpfr_ptr) 0);
      mpfr_set_d (mb, c[k].beta, MPFR_RNDN);
      rlref_mp_set_prec (PREC);
      TU_ASSERT_STATUS (rlref_klopt_logz_d (y, NULL, c[k].p, c[k].kind, c[k].r, c[k].n,
                                            &c[k].beta), c[k].status);
      TU_ASSERT_STATUS (rlref_klopt_pistar_d (y, NULL, NULL, NULL, NULL, c[k].p, c[k].kind,
                                              c[k].r, c[k].n, &c[k].beta), c[k].status);
      TU_ASSERT_STATUS (rlref_klopt_logz_mp (ms, NULL, mp, c[k].kind, mr, c[k].n, mb),
                        c[k].status);
      TU_ASSERT_STATUS (rlref_klopt_approach_mp (ms, NULL, mp, c[k].kind, mr, c[k].n, mb),
                        c[k].status);
      tu_mp_vec_free (mp, 3);
      tu_mp_vec_free (mr, 3);
      mpfr_clears (mb, ms, (mpfr_ptr) 0);
    }
  /* a policy that is not a distribution; NULL inputs */
  TU_ASSERT_STATUS (rlref_klopt_objective_d (&y2, NULL, NULL, bad_pi, good, RLREF_KLOPT_PROB,
                                             r2, 2, &one), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_klopt_identity_d (&y2, NULL, NULL, NULL, good, RLREF_KLOPT_PROB, r2,
                                            2, &one), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_klopt_logz_d (&y2, NULL, NULL, RLREF_KLOPT_PROB, r2, 2, &one),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_klopt_limit_argmax_d (y, NULL, good, RLREF_KLOPT_PROB, NULL, 2),
                    RLREF_EINVAL);
}
END_TEST

static Suite *
klopt_suite (void)
{
  Suite *s = suite_create ("klopt");
  TCase *tc = tu_tcase ("KLOPT-Z and KLOPT-PISTAR");
  tcase_add_loop_test (tc, test_logz, 0, N_PROBLEMS);
  tcase_add_test (tc, test_logz_exact);
  tcase_add_loop_test (tc, test_pistar, 0, N_PROBLEMS);
  tcase_add_test (tc, test_large_beta_binary64);
  tcase_add_test (tc, test_underflowing_reference);
  tcase_add_test (tc, test_subnormal_reference);
  tcase_add_test (tc, test_underflowed_reference_kl);
  tcase_add_loop_test (tc, test_logprob_matches_prob, 0, N_PROBLEMS);
  tcase_add_test (tc, test_normalisation);
  suite_add_tcase (s, tc);
  tc = tu_tcase ("KLOPT-OBJ and KLOPT-IDENT");
  tcase_add_test (tc, test_objective_identity_random);
  tcase_add_test (tc, test_identity_cancelling);
  tcase_add_test (tc, test_objective_exact);
  tcase_add_test (tc, test_infinite_kl);
  tcase_add_test (tc, test_kl_of_distributions);
  suite_add_tcase (s, tc);
  tc = tu_tcase ("KLOPT-LIMITS");
  tcase_add_test (tc, test_limits_exact);
  tcase_add_test (tc, test_limits_approach);
  suite_add_tcase (s, tc);
  tc = tu_tcase ("bad input");
  tcase_add_test (tc, test_optimum_huge_beta);
  tcase_add_test (tc, test_bad_inputs);
  suite_add_tcase (s, tc);
  return s;
}

TU_MAIN_SEEDED (klopt_suite)
