/* kl.c -- the per-token KL estimators (KL-K1, KL-K2, KL-K3, KL-VARIANTS),
 * written once for both backends.  Seed 000 section 12.1, table 5 and
 * (13.26); seed 001; the conventions of TRL, verl and OpenRLHF
 * (CONVENTIONS.md "KL estimators", src/kl/kl_conventions.c).
 *
 * l = logp - ref_logp is the log-ratio of a token sampled from the
 * policy; every gradient is d/d logp with the reference held fixed.
 * k3 = e^-l - 1 + l is formed as the remainder e^x - 1 - x at x = -l
 * (kl_series.c): its Taylor series for |l| < 1/2, where even expm1(-l) + l
 * loses about log2(2/|l|) bits, expm1(-l) + l beyond.  Each function reads
 * every input before it writes an output, so an output may share storage
 * with an input of the same length. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#ifndef RLREF_MP
#include <mpfr.h>
#endif
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/kl.h"
#include "kl_series.h"
#include "flow.h"

/* The clamp of an estimate k to [-clamp, clamp] (clamp > 0; 0: none), as
 * the libraries clamp it: a clamped value passes no gradient, so g = 0
 * there, and also wherever pass is already 0. */
static void
clamp_estimate (num_ptr k, num_ptr g, double clamp, int pass)
{
  if (clamp > 0 && num_cmp_d (k, clamp) > 0)
    {
      num_set_d (k, clamp);
      pass = 0;
    }
  else if (clamp > 0 && num_cmp_d (k, -clamp) < 0)
    {
      num_set_d (k, -clamp);
      pass = 0;
    }
  if (!pass)
    num_set_zero (g);
}

/* n >= 1 finite entries in each of the k arrays a, b, c. */
static int
check_arrays (size_t n, num_srcptr a, num_srcptr b, num_srcptr c, int k)
{
  num_srcptr v[3] = { a, b, c };
  if (n == 0)
    RLREF_ERROR ("empty input", RLREF_EINVAL);
  for (int j = 0; j < k; j++)
    {
      if (!v[j])
        RLREF_ERROR ("log-probabilities missing", RLREF_EINVAL);
      for (size_t i = 0; i < n; i++)
        if (!num_is_finite (AT (v[j], i)))
          RLREF_ERROR ("non-finite log-probability", RLREF_ENAN);
    }
  return RLREF_SUCCESS;
}

/* (13.26)  k3 = u - 1 - log u = e^-l - 1 + l,  u = pi_ref/pi = e^-l:
 * the remainder e^x - 1 - x at x = -l. */
int
FN (kl_k3) (num_ptr k, num_srcptr l)
{
  num_t x;
  if (!num_is_finite (l))
    RLREF_ERROR ("non-finite log-ratio", RLREF_ENAN);
  num_init (x);
  num_neg (x, l);
  FN (kl_exp_rem) (x, x, 2);
  num_set (k, x);
  num_clear (x);
  return num_is_finite (k) ? RLREF_SUCCESS : RANGE_ERROR ();
}

/* (13.26) as commonly written: exp(-l) - 1 + l, left to right. */
int
FN (kl_k3_naive) (num_ptr k, num_srcptr l)
{
  num_t e;
  if (!num_is_finite (l))
    RLREF_ERROR ("non-finite log-ratio", RLREF_ENAN);
  num_init (e);
  num_neg (e, l);
  num_exp (e, e);
  num_sub_d (e, e, 1.0);
  num_add (k, e, l);
  num_clear (e);
  return RLREF_SUCCESS;
}

/* One token, exact arithmetic: the estimate k and g = dk/dlogp of
 * convention c at l (t scratch).
 *   k1 = l, g = 1;  k2 = l^2/2, g = l;  abs = |l|, g = sign l (0 at 0);
 *   k3 = e^x - x - 1 at x = -l, g = -(e^x - 1) = 1 - e^-l;
 * verl clamps x = ref_logp - logp to [-C_in, C_in] first; a clamped k to
 * [-C, C] after; either clamp binding zeroes g (PyTorch's clamp backward
 * passes the gradient on the boundary).  Straight-through (verl's "+":
 * k2 - k2.detach() + k.detach()): g = l, and ERANGE where l^2 overflows
 * binary64 (verl's value inf - inf = NaN); its departures g = k' + l (k not
 * detached) and g = 0 (k2's detach missing: k2 - k2 + k.detach()). */
static int
token_exact (num_ptr k, num_ptr g, num_srcptr l, const rlref_kl_convention *c, num_ptr t)
{
  int pass = 1;
  switch (c->estimator)
    {
    case RLREF_KL_K1:
      num_set (k, l);
      num_set_d (g, 1.0);
      break;
    case RLREF_KL_K2:
      num_sqr (k, l);
      num_mul_2si (k, k, -1);
      num_set (g, l);
      break;
    case RLREF_KL_ABS:
      num_abs (k, l);
      num_set_si (g, num_sgn (l));
      break;
    case RLREF_KL_K3:
      num_neg (t, l);
      if (c->log_ratio_clamp > 0)
        {
          pass = num_cmp_d (t, -c->log_ratio_clamp) >= 0 && num_cmp_d (t, c->log_ratio_clamp) <= 0;
          if (num_cmp_d (t, c->log_ratio_clamp) > 0)
            num_set_d (t, c->log_ratio_clamp);
          else if (num_cmp_d (t, -c->log_ratio_clamp) < 0)
            num_set_d (t, -c->log_ratio_clamp);
        }
      FN (kl_exp_rem) (k, t, 2);
      num_expm1 (g, t);
      num_neg (g, g);
      break;
    }
  clamp_estimate (k, g, c->kl_clamp, pass);
  if (c->straight_through == RLREF_KL_ST_NONE)
    return RLREF_SUCCESS;
  num_sqr (t, l);
  if (!isfinite (num_get_d (t)))
    RLREF_ERROR ("l^2 overflows binary64: the straight-through value is inf - inf = NaN",
                 RLREF_ERANGE);
  if (c->straight_through == RLREF_KL_ST)
    num_set (g, l);
  else if (c->straight_through == RLREF_KL_ST_VALUE_LIVE)
    num_add (g, g, l);
  else
    num_set_zero (g);
  return RLREF_SUCCESS;
}

/* r = a rounded to binary32, 0 when it is finite there. */
static int
f32 (num_ptr r, num_srcptr a)
{
  num_round_f32 (r, a);
  return num_is_finite (r) ? 0 : -1;
}

/* x clamped to [-c, c] (c > 0): 0 where the clamp binds (x = +-inf too). */
static int
clamp_to (num_ptr x, double c)
{
  if (num_cmp_d (x, c) > 0)
    num_set_d (x, c);
  else if (num_cmp_d (x, -c) < 0)
    num_set_d (x, -c);
  else
    return 1;
  return 0;
}

/* One token as a library computes it in binary32 (c->arith), from the
 * binary64 inputs logp, ref: each rounded to binary32 (+-inf beyond its
 * range, as torch's float32 cast), every operation rounded to binary32,
 * e^x correctly rounded (w: four scratch scalars).
 *   OpenRLHF: l = f32(logp) - f32(ref); k1 = l; k2 = (l*l)/2; k3 = (e^-l -
 *     1) + l; then clamped to [-C, C], g = 0 where it binds (l = +-inf:
 *     k1 = +-10, k3(+inf) = 10, both with g = 0).
 *   TRL's GRPOTrainer and verl: d = f32(ref) - f32(logp), verl's d clamped
 *     to [-C_in, C_in] (g = 0 where it binds, +-inf included), k3 = (e^d -
 *     d) - 1, verl's clamped to [-C, C]; TRL's PPOTrainer: k3 = (e^d - 1) - d.
 * The k3 gradients are 1 - e^{-l} = 1 - e^d (autograd sums 1 and -e^-l in
 * binary32).  ERANGE where the library's value or gradient is inf or NaN:
 * TRL's k3 beyond e^d's range or at d = +-inf; OpenRLHF's k2 where 2 l
 * overflows (0 times inf in the backward pass); OpenRLHF's k3 where e^-l
 * overflows (a NaN gradient) or at l = -inf (inf - inf); inf - inf in the
 * log-ratio itself. */
static int
token_f32 (num_ptr k, num_ptr g, num_srcptr logp, num_srcptr ref, const rlref_kl_convention *c,
           num_ptr *w)
{
  num_ptr lp = w[0], rf = w[1], l = w[2], e = w[3];
  int status = RLREF_SUCCESS, pass = 1;
  num_round_f32 (lp, logp);
  num_round_f32 (rf, ref);
  if (c->arith == RLREF_KL_F32_TRL || c->arith == RLREF_KL_F32_TRL_PPO)
    {
      num_sub (l, rf, lp);                              /* d = ref - logp */
      num_round_f32 (l, l);
      if (num_is_nan (l))
        FAIL ("ref_logp - logp is inf - inf in binary32", RLREF_ERANGE);
      if (c->log_ratio_clamp > 0)
        pass = clamp_to (l, c->log_ratio_clamp);
      else if (!num_is_finite (l))
        FAIL ("ref_logp - logp is infinite in binary32: TRL's k3 is inf or NaN", RLREF_ERANGE);
      num_exp (e, l);
      if (f32 (e, e))
        FAIL ("exp(ref_logp - logp) overflows binary32: TRL's k3 is inf", RLREF_ERANGE);
      if (c->arith == RLREF_KL_F32_TRL)
        {
          num_sub (k, e, l);                            /* (e^d - d) - 1 */
          num_round_f32 (k, k);
          num_sub_d (k, k, 1.0);
        }
      else
        {
          num_sub_d (k, e, 1.0);                        /* (e^d - 1) - d */
          num_round_f32 (k, k);
          num_sub (k, k, l);
        }
      num_round_f32 (k, k);
      num_d_sub (g, 1.0, e);
      num_round_f32 (g, g);
      clamp_estimate (k, g, c->kl_clamp, pass);
      goto done;
    }
  num_sub (l, lp, rf);
  num_round_f32 (l, l);
  if (num_is_nan (l))
    FAIL ("logp - ref_logp is inf - inf in binary32", RLREF_ERANGE);
  switch (c->estimator)
    {
    case RLREF_KL_K1:
      num_set (k, l);
      num_set_d (g, 1.0);
      break;
    case RLREF_KL_K2:
      if (num_is_inf (l) || num_get_exp (l) > 127)
        FAIL ("2 l overflows binary32 in the backward pass (a NaN gradient)", RLREF_ERANGE);
      num_sqr (k, l);
      num_round_f32 (k, k);
      num_mul_2si (k, k, -1);
      num_round_f32 (k, k);
      num_set (g, l);
      break;
    case RLREF_KL_K3:
      if (num_is_inf (l) && num_sgn (l) < 0)
        FAIL ("l = -inf in binary32: OpenRLHF's k3 is inf - inf = NaN", RLREF_ERANGE);
      num_neg (e, l);
      num_exp (e, e);
      if (f32 (e, e))
        FAIL ("exp(-l) overflows binary32: OpenRLHF's gradient is NaN", RLREF_ERANGE);
      num_sub_d (k, e, 1.0);
      num_round_f32 (k, k);
      num_add (k, k, l);
      num_round_f32 (k, k);
      num_d_sub (g, 1.0, e);
      num_round_f32 (g, g);
      break;
    case RLREF_KL_ABS:
      FAIL ("no binary32 convention of abs", RLREF_EINVAL);
    }
  clamp_estimate (k, g, c->kl_clamp, pass);
  if (!num_is_finite (k))
    FAIL ("the binary32 estimate is infinite", RLREF_ERANGE);
done:
  return status;
}

/* KL-K1, KL-K2, KL-K3, KL-VARIANTS: k[i] and grad[i] of convention c at
 * l_i = logp[i] - ref_logp[i] (000 table 5, 13.26). */
int
FN (kl_estimate) (num_ptr k, num_ptr grad, num_srcptr logp, num_srcptr ref_logp, size_t n,
                  const rlref_kl_convention *c)
{
  num_ptr t = NULL, w[4];
  num_t l, s;
  int status = check_arrays (n, logp, ref_logp, NULL, 2), finite = 1;
  if (status)
    return status;
  if (!c || !k)
    RLREF_ERROR ("no convention or no output", RLREF_EINVAL);
  num_init (l);
  num_init (s);
  t = num_vec_new (2 * n + 4);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (int j = 0; j < 4; j++)
    w[j] = AT (t, 2 * n + (size_t) j);
  for (size_t i = 0; i < n; i++)
    {
      num_ptr ki = AT (t, i), gi = AT (t, n + i);
      /* the ratio inverted: the estimator at -l, the inputs' roles swapped */
      num_srcptr a = c->inverted ? AT (ref_logp, i) : AT (logp, i);
      num_srcptr b = c->inverted ? AT (logp, i) : AT (ref_logp, i);
      if (c->arith == RLREF_KL_EXACT)
        {
          num_sub (l, a, b);
          TRY (token_exact (ki, gi, l, c, s));
        }
      else
        TRY (token_f32 (ki, gi, a, b, c, w));
      if (c->inverted)
        num_neg (gi, gi);
      finite = finite && num_is_finite (ki) && num_is_finite (gi);
    }
  for (size_t i = 0; i < n; i++)
    {
      num_set (AT (k, i), AT (t, i));
      if (grad)
        num_set (AT (grad, i), AT (t, n + i));
    }
  if (!finite)
    status = RANGE_ERROR ();
done:
  num_clear (l);
  num_clear (s);
  num_vec_free (t, 2 * n + 4);
  return status;
}

#ifdef RLREF_MP
/* r = a rounded to the nearest binary64: one step of a binary64 program
 * emulated in MPFR. */
static void
round64 (num_ptr r, num_srcptr a)
{
  num_set_d (r, num_get_d (a));
}

/* r = e^x, or e^x - 1 with m1, correctly rounded to binary64: one step of
 * the emulated binary64 program, by MPFR at 53 bits in the binary64
 * exponent range (x is a binary64 value), not by libm, whose exp is not
 * correctly rounded everywhere (glibc: exp(2^-53) = 1, correctly rounded
 * 1 + 2^-52). */
static void
exp_step (num_ptr r, num_srcptr x, int m1)
{
  mpfr_exp_t emin = mpfr_get_emin (), emax = mpfr_get_emax ();
  mpfr_flags_t flags = mpfr_flags_save ();
  mpfr_t t;
  int inex;
  mpfr_init2 (t, 53);
  mpfr_set (t, x, MPFR_RNDN);
  mpfr_set_emin (-1073);
  mpfr_set_emax (1024);
  inex = m1 ? mpfr_expm1 (t, t, MPFR_RNDN) : mpfr_exp (t, t, MPFR_RNDN);
  inex = mpfr_check_range (t, inex, MPFR_RNDN);
  mpfr_subnormalize (t, inex, MPFR_RNDN);
  mpfr_set_emin (emin);
  mpfr_set_emax (emax);
  mpfr_set (r, t, MPFR_RNDN);
  mpfr_clear (t);
  mpfr_flags_restore (flags, MPFR_FLAGS_ALL);
}

/* u = ulp(k) of binary64: 2^(E - 52) for 2^E <= |k| < 2^(E+1), E >= -1022;
 * 2^-1074 for 0 and subnormal magnitudes. */
static void
ulp64 (num_ptr u, num_srcptr k)
{
  long e = num_is_zero (k) ? -1021 : num_get_exp (k);
  num_set_d (u, 1.0);
  num_mul_2si (u, u, (e < -1021 ? -1021 : e) - 53);
}

/* r = k_form + 1 - (logp - ref), rounded once (s4: four scratch scalars):
 * for l >= 2 the part of k_form - k3 before e^-l, exact where it cancels. */
static int
exact_rem (num_ptr r, num_srcptr kf, num_srcptr logp, num_srcptr ref, num_ptr s4)
{
  num_set (AT (s4, 0), kf);
  num_set_d (AT (s4, 1), 1.0);
  num_neg (AT (s4, 2), logp);
  num_set (AT (s4, 3), ref);
  return num_sum (r, s4, 4);
}

/* KL-K3: the exact k3 beside what exp(-l) - 1 + l and expm1(-l) + l give
 * in binary64, and their errors in units of the last place of k3 (the
 * binary64 backend runs this in MPFR, below). */
int
FN (kl_k3_binary64) (num_ptr k, num_ptr k_naive, num_ptr ulp_naive, num_ptr k_expm1,
                     num_ptr ulp_expm1, num_srcptr logp, num_srcptr ref_logp, size_t n)
{
  num_ptr t = NULL, s4;
  num_t l, lb, e, u;
  int status = check_arrays (n, logp, ref_logp, NULL, 2);
  if (status)
    return status;
  if (!k)
    RLREF_ERROR ("no output", RLREF_EINVAL);
  num_init (l);
  num_init (lb);
  num_init (e);
  num_init (u);
  t = num_vec_new (5 * n + 4);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  s4 = AT (t, 5 * n);
  for (size_t i = 0; i < n; i++)
    {
      num_ptr ki = AT (t, i), kn = AT (t, n + i), un = AT (t, 2 * n + i);
      num_ptr ke = AT (t, 3 * n + i), ue = AT (t, 4 * n + i);
      num_sub (l, AT (logp, i), AT (ref_logp, i));
      if (FN (kl_k3) (ki, l) != RLREF_SUCCESS || !isfinite (num_get_d (ki)))
        FAIL ("k3 beyond the binary64 range", RLREF_ERANGE);
      /* the binary64 program: lb = logp - ref_logp, then each form */
      round64 (lb, l);
      num_neg (e, lb);
      exp_step (e, e, 0);
      num_sub_d (kn, e, 1.0);
      round64 (kn, kn);
      num_add (kn, kn, lb);
      round64 (kn, kn);
      num_neg (e, lb);
      exp_step (e, e, 1);
      num_add (ke, e, lb);
      round64 (ke, ke);
      /* the errors: kn - k, or for l >= 2, where k = (l - 1) + e^-l holds
       * e^-l below its last place, (kn + 1 - l) - e^-l (the first part exact) */
      ulp64 (u, ki);
      if (num_cmp_d (l, 2.0) >= 0)
        {
          num_neg (e, l);
          num_exp (e, e);
          TRY (exact_rem (un, kn, AT (logp, i), AT (ref_logp, i), s4));
          num_sub (un, un, e);
          TRY (exact_rem (ue, ke, AT (logp, i), AT (ref_logp, i), s4));
          num_sub (ue, ue, e);
        }
      else
        {
          num_sub (un, kn, ki);
          num_sub (ue, ke, ki);
        }
      num_div (un, un, u);
      num_div (ue, ue, u);
    }
  for (size_t i = 0; i < n; i++)
    {
      num_set (AT (k, i), AT (t, i));
      if (k_naive)
        num_set (AT (k_naive, i), AT (t, n + i));
      if (ulp_naive)
        num_set (AT (ulp_naive, i), AT (t, 2 * n + i));
      if (k_expm1)
        num_set (AT (k_expm1, i), AT (t, 3 * n + i));
      if (ulp_expm1)
        num_set (AT (ulp_expm1, i), AT (t, 4 * n + i));
    }
done:
  num_clear (l);
  num_clear (lb);
  num_clear (e);
  num_clear (u);
  num_vec_free (t, 5 * n + 4);
  return status;
}
#else
/* binary64: the same program in MPFR at K3_PREC bits, each output rounded
 * to binary64 once.  The error counts (k_form - k)/ulp(k) need the exact
 * k3 to far more than 53 bits: with k rounded, a fraction of an ulp came
 * out 0 and a large count lost its last digits. */
#define K3_PREC 160
int
FN (kl_k3_binary64) (num_ptr k, num_ptr k_naive, num_ptr ulp_naive, num_ptr k_expm1,
                     num_ptr ulp_expm1, num_srcptr logp, num_srcptr ref_logp, size_t n)
{
  num_ptr out[5] = { k, k_naive, ulp_naive, k_expm1, ulp_expm1 };
  mpfr_ptr x;
  mpfr_prec_t old;
  int status = check_arrays (n, logp, ref_logp, NULL, 2);
  if (status)
    return status;
  if (!k)
    RLREF_ERROR ("no output", RLREF_EINVAL);
  x = n <= SIZE_MAX / (7 * sizeof *x) ? malloc (7 * n * sizeof *x) : NULL;
  if (!x)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < 7 * n; i++)
    mpfr_init2 (x + i, K3_PREC);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_set_d (x + 5 * n + i, logp[i], MPFR_RNDN);
      mpfr_set_d (x + 6 * n + i, ref_logp[i], MPFR_RNDN);
    }
  old = rlref_mp_set_prec (K3_PREC);
  status = rlref_kl_k3_binary64_mp (x, x + n, x + 2 * n, x + 3 * n, x + 4 * n, x + 5 * n,
                                    x + 6 * n, n);
  rlref_mp_set_prec (old);
  for (int j = 0; status == RLREF_SUCCESS && j < 5; j++)
    for (size_t i = 0; out[j] && i < n; i++)
      out[j][i] = mpfr_get_d (x + (size_t) j * n + i, MPFR_RNDN);
  for (size_t i = 0; i < 7 * n; i++)
    mpfr_clear (x + i);
  free (x);
  return status;
}
#endif

/* TRL use_bias_correction_kl:  k = k3(l) rho,  rho = e^{logp - old_logp};
 * dk/dlogp = k3'(l) rho + k3(l) rho = (1 - e^-l + e^-l - 1 + l) rho = l rho. */
int
FN (kl_k3_bias_corrected) (num_ptr k, num_ptr grad, num_srcptr logp, num_srcptr ref_logp,
                           num_srcptr old_logp, size_t n)
{
  num_ptr t = NULL;
  num_t l, rho;
  int status = check_arrays (n, logp, ref_logp, old_logp, 3), finite = 1;
  if (status)
    return status;
  if (!k)
    RLREF_ERROR ("no output", RLREF_EINVAL);
  num_init (l);
  num_init (rho);
  t = num_vec_new (2 * n);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      num_sub (rho, AT (logp, i), AT (old_logp, i));
      num_exp (rho, rho);
      num_sub (l, AT (logp, i), AT (ref_logp, i));
      num_neg (AT (t, i), l);
      FN (kl_exp_rem) (AT (t, i), AT (t, i), 2);
      num_mul (AT (t, i), AT (t, i), rho);
      num_mul (AT (t, n + i), l, rho);
      finite = finite && num_is_finite (AT (t, i)) && num_is_finite (AT (t, n + i));
    }
  for (size_t i = 0; i < n; i++)
    {
      num_set (AT (k, i), AT (t, i));
      if (grad)
        num_set (AT (grad, i), AT (t, n + i));
    }
  if (!finite)
    status = RANGE_ERROR ();
done:
  num_clear (l);
  num_clear (rho);
  num_vec_free (t, 2 * n);
  return status;
}

/* KL-VARIANTS "full": with a = log_softmax(logp), b = log_softmax(ref_logp),
 * h = a - b, p = e^a:
 *   kl = sum_v p_v h_v = sum_v p_v k3(h_v)   (sum p = sum p_ref = 1: every
 *        term p k3 = p_ref - p + p h is >= 0, no cancellation; kl_k3_term),
 *   grad_v = d kl / d logp_v = p_v (h_v - kl). */
int
FN (kl_full) (num_ptr kl, num_ptr grad, num_srcptr logp, num_srcptr ref_logp, size_t n)
{
  num_ptr t = NULL;
  num_t z, h, s;
  int status = check_arrays (n, logp, ref_logp, NULL, 2);
  if (status)
    return status;
  if (!kl)
    RLREF_ERROR ("no output", RLREF_EINVAL);
  num_init (z);
  num_init (h);
  num_init (s);
  t = num_vec_new (3 * n);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  /* t[0..n) = a, t[n..2n) = b; each log-sum-exp within the tolerance of 0 */
  for (int j = 0; j < 2; j++)
    {
      num_srcptr x = j ? ref_logp : logp;
      TRY (FN (logsumexp) (z, x, n));
      num_expm1 (h, z);
      num_abs (h, h);
      if (num_cmp_d (h, RLREF_KL_NORM_TOL) > 0)
        FAIL ("log-probabilities whose exponentials do not sum to 1", RLREF_EDOM);
      for (size_t i = 0; i < n; i++)
        num_sub (AT (t, j * n + i), AT (x, i), z);
    }
  for (size_t i = 0; i < n; i++)
    {
      num_ptr a = AT (t, i), b = AT (t, n + i), term = AT (t, 2 * n + i);
      num_sub (h, a, b);
      num_exp (s, a);
      num_exp (term, b);
      FN (kl_k3_term) (term, s, term, h);
    }
  TRY (num_sum (z, AT (t, 2 * n), n));
  for (size_t i = 0; grad && i < n; i++)
    {
      num_ptr a = AT (t, i), b = AT (t, n + i);
      num_sub (h, a, b);
      num_sub (h, h, z);
      num_exp (s, a);
      num_mul (AT (t, 2 * n + i), s, h);
    }
  for (size_t i = 0; grad && i < n; i++)
    num_set (AT (grad, i), AT (t, 2 * n + i));
  num_set (kl, z);
  if (!num_is_finite (kl))
    status = RANGE_ERROR ();
  for (size_t i = 0; grad && i < n; i++)
    if (!num_is_finite (AT (grad, i)))
      status = RANGE_ERROR ();
done:
  num_clear (z);
  num_clear (h);
  num_clear (s);
  num_vec_free (t, 3 * n);
  return status;
}
