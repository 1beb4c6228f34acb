/* pref.c -- preference and reward models (PREF-*), written once for both
 * backends.  Seed 000 sections 2.1 and 10.1, equations 13.5-13.7.
 *
 * Every function computes into temporaries and writes its outputs last,
 * so an output may share storage with an input (reference/README.md,
 * Aliasing).  Where the binary64 range is at stake (scores near 1e308,
 * counts of 1e100), the computation is scaled by a power of two, which
 * is exact: a result is finite wherever its exact value is representable. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/pref.h"
#include "fit.h"

#define CHECK_FINITE(x)                                               \
  do {                                                                \
    if (!num_is_finite (x))                                           \
      RLREF_ERROR ("non-finite argument", RLREF_ENAN);                \
  } while (0)

/* Leave through the function's single exit (label done) on failure:
 * FAIL records an error, TRY passes on a failing call's status. */
#define FAIL(reason, code)                                            \
  do {                                                                \
    status = (code);                                                  \
    rlref_error ((reason), __FILE__, __LINE__, status);               \
    goto done;                                                        \
  } while (0)

#define TRY(call)                                                     \
  do {                                                                \
    if ((status = (call)) != RLREF_SUCCESS)                           \
      goto done;                                                      \
  } while (0)

/* ERANGE, recorded, for an output whose exact value lies beyond the
 * range of the backend: it is written as +-inf (the rounding IEEE 754
 * gives it), the other outputs as they are, and the status says so, as
 * GSL's overflow errors do. */
static int
range_error (void)
{
  rlref_error ("result beyond the floating-point range (written as +-inf)", __FILE__,
               __LINE__, RLREF_ERANGE);
  return RLREF_ERANGE;
}

/* The exponent k with max |x_i| = f 2^k, 1/2 <= f < 1 (0 when all vanish). */
static long
max_exponent (num_srcptr x, size_t n)
{
  num_t a, big;
  long k;
  num_init (a);
  num_init (big);
  for (size_t i = 0; i < n; i++)
    {
      num_abs (a, AT (x, i));
      num_max (big, big, a);
    }
  k = num_is_zero (big) ? 0 : num_get_exp (big);
  num_clear (a);
  num_clear (big);
  return k;
}

/* (13.6)  P(y_w > y_l) = sigma(r_w - r_l).  r_w - r_l = +-inf when the
 * difference overflows gives the correctly rounded 1 or 0. */
int
FN (bt_prob) (num_ptr p, num_srcptr rw, num_srcptr rl)
{
  num_t d;
  int status;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  num_init (d);
  num_sub (d, rw, rl);
  status = FN (sigmoid) (p, d);
  num_clear (d);
  return status;
}

/* (13.5)  P = e^{r_w} / (e^{r_w} + e^{r_l}) = exp(r_w - lse(r_w, r_l)). */
int
FN (bt_prob_softmax) (num_ptr p, num_srcptr rw, num_srcptr rl)
{
  num_ptr x;
  num_t l;
  int status;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  x = num_vec_new (2);
  num_init (l);
  if (!x)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set (AT (x, 0), rw);
  num_set (AT (x, 1), rl);
  TRY (FN (logsumexp) (l, x, 2));
  num_sub (l, rw, l);
  num_exp (p, l);
done:
  num_clear (l);
  num_vec_free (x, 2);
  return status;
}

/* (13.5) as written: e^{r_w} / (e^{r_w} + e^{r_l}). */
int
FN (bt_prob_naive) (num_ptr p, num_srcptr rw, num_srcptr rl)
{
  num_t a, b;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  num_init (a);
  num_init (b);
  num_exp (a, rw);
  num_exp (b, rl);
  num_add (b, a, b);
  num_div (p, a, b);
  num_clear (a);
  num_clear (b);
  return RLREF_SUCCESS;
}

/* ----- PREF-BT-GUMBEL: double-exponential quadrature ------------------- */

/* What every node of the rule shares: the centre c, D = r_w - r_l, and,
 * when |D| <= 700 (so that e^-c and e^-D are finite and nonzero in both
 * backends), e^-c and e^-D, from which e^-x and e^-(x + D) follow by
 * multiplication. */
struct gumbel
{
  num_t D, c, emc, emD, halfpi;
  int products;
};

/* Gumbel integrand f(x) F(x + D) = exp(-x - e^{-x} - e^{-(x + D)}), with
 * f the standard Gumbel density and F its distribution function, given
 * ex = e^-x.  t is scratch. */
static void
gumbel_integrand (num_ptr r, num_srcptr x, num_srcptr ex, const struct gumbel *g, num_ptr t)
{
  if (g->products)
    num_mul (t, ex, g->emD);
  else
    {
      num_add (t, x, g->D);
      num_neg (t, t);
      num_exp (t, t);
    }
  num_add (t, t, ex);
  num_add (t, t, x);
  num_neg (t, t);
  num_exp (r, t);
}

/* sinh a and cosh a for a >= 0 from E = expm1(a), without cancellation:
 * sinh a = (E + E/(1 + E))/2, cosh a = ((1 + E) + 1/(1 + E))/2. */
static void
sinh_cosh (num_ptr sh, num_ptr ch, num_srcptr a, num_ptr t)
{
  num_expm1 (sh, a);
  num_add_d (ch, sh, 1.0);              /* e^a */
  num_div (t, sh, ch);
  num_add (sh, sh, t);
  num_mul_2si (sh, sh, -1);
  num_d_div (t, 1.0, ch);
  num_add (ch, ch, t);
  num_mul_2si (ch, ch, -1);
}

/* The two nodes +-t of the trapezoid rule in t, t = k h >= 0 (one node at
 * t = 0): with u = pi/2 sinh t, x = c +- sinh u and the weight
 * dx/dt = pi/2 cosh t cosh u, rp and rm get f(x) F(x + D) dx/dt at
 * x = c + sinh u and c - sinh u.  sinh(-t) = -sinh t and cosh is even, so
 * the pair costs one expm1 of t and of u; with the products, e^-x at
 * both nodes is e^-c e^{-+sinh u}, from one exponential. */
static void
gumbel_pair (num_ptr rp, num_ptr rm, double tval, const struct gumbel *g, num_ptr *w)
{
  num_ptr st = w[0], ct = w[1], su = w[2], cu = w[3], x = w[4], ex = w[5], e = w[6], t = w[7];
  num_set_d (t, tval);
  sinh_cosh (st, ct, t, e);
  num_mul (t, st, g->halfpi);           /* u >= 0 */
  sinh_cosh (su, cu, t, e);
  num_mul (cu, cu, ct);
  num_mul (cu, cu, g->halfpi);          /* dx/dt */
  if (g->products && num_cmp_d (su, 700.0) <= 0)
    {
      num_exp (e, su);                  /* e^{sinh u} */
      num_add (x, g->c, su);
      num_div (ex, g->emc, e);
      gumbel_integrand (rp, x, ex, g, t);
      num_sub (x, g->c, su);
      num_mul (ex, g->emc, e);
      gumbel_integrand (rm, x, ex, g, t);
    }
  else
    {
      num_add (x, g->c, su);
      num_neg (ex, x);
      num_exp (ex, ex);
      gumbel_integrand (rp, x, ex, g, t);
      num_sub (x, g->c, su);
      num_neg (ex, x);
      num_exp (ex, ex);
      gumbel_integrand (rm, x, ex, g, t);
    }
  num_mul (rp, rp, cu);
  num_mul (rm, rm, cu);
}

#define GUMBEL_WORK 8

/* Adds the nodes t = k h, k = first, first + step, ..., on both sides of
 * 0, to sum, until each side's terms fall below 2^-(prec + 16) of the sum
 * beyond t = 1 (|t| <= 3 suffices for 4096 bits: beyond, the integrand is
 * below e^-6000). */
static void
gumbel_nodes (num_ptr sum, double h, long first, long step, const struct gumbel *g,
              num_ptr *w, num_ptr rp, num_ptr rm, num_ptr small)
{
  int right = 1, left = 1;
  for (long k = first; (right || left) && (double) k * h <= 3.0; k += step)
    {
      gumbel_pair (rp, rm, (double) k * h, g, w);
      if (k == 0)
        {
          num_add (sum, sum, rp);
          continue;
        }
      if (right)
        num_add (sum, sum, rp);
      if (left)
        num_add (sum, sum, rm);
      num_mul_2si (small, sum, -(num_prec () + 16));
      if ((double) k * h > 1.0)
        {
          if (num_cmp (rp, small) < 0)
            right = 0;
          if (num_cmp (rm, small) < 0)
            left = 0;
        }
    }
}

/* PREF-BT-GUMBEL: P(r_w + g_w > r_l + g_l) = int f(x) F(x + D) dx, D = r_w - r_l,
 * by the double-exponential rule x = c + sinh(pi/2 sinh t), trapezoids in t,
 * centred at the mode c = softplus(-D) = log(1 + e^-D).  Each level halves h
 * and adds only the new nodes; it stops when two levels agree to
 * 2^-(prec - 12) (the rounding of many terms forbids asking for the last
 * bits; the certification by two precisions measures what holds), or
 * earlier on the rule's own rate: the error falls as e_L ~ e_{L-1}^r, and
 * with d_L = |I_L - I_{L-1}| ~ e_{L-1} the error of level L is about
 * 2^(E_L^2 / E_{L-1}), E_L the binary exponent of d_L / I_L, which saves
 * the last (and largest) level.  A level costs twice the one before, so
 * the levels stop at log2(prec) + 3 (EMAXITER), about three past those
 * the rule needs (7 at 256 bits, 12 at 4096).  A difference that
 * overflows gives D = +-inf and p = 1 or 0. */
int
FN (bt_gumbel_integral) (num_ptr p, num_srcptr rw, num_srcptr rl)
{
  struct gumbel g;
  num_t sum, prev, cur, diff, tol, rp, rm, small;
  num_t work[GUMBEL_WORK];
  num_ptr w[GUMBEL_WORK];
  double h = 0.5;
  long e_prev = 0, levels = 3;
  int status = RLREF_SUCCESS;
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  for (long p2 = num_prec (); p2 > 1; p2 /= 2)
    levels++;
  if (levels > 16)
    levels = 16;
  num_init (g.D); num_init (g.c); num_init (g.emc); num_init (g.emD); num_init (g.halfpi);
  num_init (sum); num_init (prev); num_init (cur); num_init (diff); num_init (tol);
  num_init (rp); num_init (rm); num_init (small);
  for (int i = 0; i < GUMBEL_WORK; i++)
    {
      num_init (work[i]);
      w[i] = work[i];
    }
  num_sub (g.D, rw, rl);
  num_neg (g.c, g.D);
  TRY (FN (softplus) (g.c, g.c));
  num_abs (tol, g.D);
  g.products = num_cmp_d (tol, 700.0) <= 0;
  if (g.products)
    {
      num_neg (g.emc, g.c);
      num_exp (g.emc, g.emc);
      num_neg (g.emD, g.D);
      num_exp (g.emD, g.emD);
    }
  num_const_pi (g.halfpi);
  num_mul_2si (g.halfpi, g.halfpi, -1);
  gumbel_nodes (sum, h, 0, 1, &g, w, rp, rm, small);
  num_mul_d (prev, sum, h);
  status = RLREF_EMAXITER;
  for (long level = 1; level <= levels; level++)
    {
      long e;
      h /= 2;
      gumbel_nodes (sum, h, 1, 2, &g, w, rp, rm, small);
      num_mul_d (cur, sum, h);
      num_sub (diff, cur, prev);
      num_abs (diff, diff);
      num_abs (tol, cur);
      num_mul_2si (tol, tol, -(num_prec () - 12));
      num_set (prev, cur);
      if (level >= 2 && num_cmp (diff, tol) <= 0)
        {
          status = RLREF_SUCCESS;
          break;
        }
      e = num_get_exp (diff) - num_get_exp (cur);    /* d_L / I_L ~ 2^e */
      if (level >= 3 && e < e_prev && e_prev < 0
          && (double) e * (double) e / (double) -e_prev >= (double) (num_prec () - 12))
        {
          status = RLREF_SUCCESS;
          break;
        }
      e_prev = e;
    }
  if (status)
    FAIL ("quadrature did not converge", status);
  num_set (p, prev);
done:
  num_clear (g.D); num_clear (g.c); num_clear (g.emc); num_clear (g.emD); num_clear (g.halfpi);
  num_clear (sum); num_clear (prev); num_clear (cur); num_clear (diff); num_clear (tol);
  num_clear (rp); num_clear (rm); num_clear (small);
  for (int i = 0; i < GUMBEL_WORK; i++)
    num_clear (work[i]);
  return status;
}

/* ----- PREF-RM-LOSS ----------------------------------------------------- */

/* softplus(x' 2^k) 2^-k = max(x', 0) + log1p(e^{-|x'| 2^k}) 2^-k: the
 * operations of softplus when k = 0; for k != 0 nothing overflows. */
static void
softplus_scaled (num_ptr r, num_srcptr x, long k, num_ptr t)
{
  num_abs (t, x);
  num_mul_2si (t, t, k);
  num_neg (t, t);
  num_exp (t, t);
  num_log1p (t, t);
  num_mul_2si (t, t, -k);
  num_set_zero (r);
  num_max (r, r, x);
  num_add (r, r, t);
}

/* One pass of (13.7) on the scores scaled by 2^-k (k = 0: as given).
 * With D_i = r_w,i - r_l,i and S_i = r_w,i + r_l,i (primes: scaled),
 *   L = 2^k (sum_i softplus(-D_i) 2^-k + c 2^k sum_i S'_i^2) / B,
 *   dL/dr_w,i = (2c S_i - sigma(-D_i))/B, dL/dr_l,i = (2c S_i + sigma(-D_i))/B,
 * into loss and g[0..B) (r_w), g[B..2B) (r_l) when g is not NULL.  The
 * c terms are left out when c = 0 (0 inf is not 0). */
static int
rm_loss_pass (num_ptr loss, num_ptr g, num_srcptr rw, num_srcptr rl, size_t B,
              num_srcptr c, long k)
{
  num_t a, b, d, s, t, sum, csum;
  int status = RLREF_SUCCESS, centred = !num_is_zero (c);
  num_init (a); num_init (b); num_init (d); num_init (s); num_init (t);
  num_init (sum); num_init (csum);
  for (size_t i = 0; i < B; i++)
    {
      num_srcptr w = AT (rw, i), l = AT (rl, i);
      if (k != 0)
        {
          num_mul_2si (a, w, -k);
          num_mul_2si (b, l, -k);
          w = a;
          l = b;
        }
      num_sub (d, w, l);
      num_neg (d, d);
      softplus_scaled (t, d, k, s);        /* softplus(-D_i) 2^-k */
      num_add (sum, sum, t);
      num_add (s, w, l);
      if (centred)
        {
          num_sqr (t, s);
          num_add (csum, csum, t);
        }
      if (g)
        {
          num_mul_2si (d, d, k);
          TRY (FN (sigmoid) (t, d));        /* sigma(-D_i) */
          if (centred)
            {
              num_mul (s, s, c);
              num_mul_2si (s, s, 1);        /* 2 c S'_i */
            }
          else
            num_set_zero (s);
          if (k == 0)
            {
              num_sub (AT (g, i), s, t);
              num_div_si (AT (g, i), AT (g, i), (long) B);
              num_add (AT (g, B + i), s, t);
              num_div_si (AT (g, B + i), AT (g, B + i), (long) B);
            }
          else
            {
              num_div_si (s, s, (long) B);
              num_mul_2si (s, s, k);
              num_div_si (t, t, (long) B);
              num_sub (AT (g, i), s, t);
              num_add (AT (g, B + i), s, t);
            }
        }
    }
  if (centred)
    {
      num_mul (csum, csum, c);
      num_mul_2si (csum, csum, k);
      num_add (sum, sum, csum);
    }
  num_div_si (loss, sum, (long) B);
  num_mul_2si (loss, loss, k);
done:
  num_clear (a); num_clear (b); num_clear (d); num_clear (s); num_clear (t);
  num_clear (sum); num_clear (csum);
  return status;
}

/* (13.7)  L = (1/B) sum_i softplus(-(r_w,i - r_l,i)) + c (1/B) sum_i (r_w,i + r_l,i)^2;
 * dL/dr_w,i = [-sigma(-D_i) + 2c (r_w,i + r_l,i)]/B, dL/dr_l,i = [sigma(-D_i) + 2c (r_w,i + r_l,i)]/B.
 * Computed as given; if an output overflows, again on the scores scaled
 * by 2^-k, k the exponent of the largest score, so that an output is
 * infinite (with ERANGE) only when its exact value exceeds the range. */
int
FN (rm_loss) (num_ptr loss, num_ptr grad_rw, num_ptr grad_rl,
              num_srcptr rw, num_srcptr rl, size_t B, num_srcptr c)
{
  num_ptr g = NULL;
  num_t L;
  int status, finite;
  if (!rw || !rl || B == 0)
    RLREF_ERROR ("empty batch", RLREF_EINVAL);
  CHECK_FINITE (c);
  if (num_sgn (c) < 0)
    RLREF_ERROR ("centring coefficient must be >= 0", RLREF_EDOM);
  for (size_t i = 0; i < B; i++)
    {
      CHECK_FINITE (AT (rw, i));
      CHECK_FINITE (AT (rl, i));
    }
  num_init (L);
  if (grad_rw || grad_rl)
    {
      g = num_vec_new (2 * B);
      if (!g)
        FAIL ("out of memory", RLREF_ENOMEM);
    }
  TRY (rm_loss_pass (L, g, rw, rl, B, c, 0));
  finite = num_is_finite (L);
  for (size_t i = 0; g && i < 2 * B; i++)
    finite = finite && num_is_finite (AT (g, i));
  if (!finite)
    {
      long k = max_exponent (rw, B), kl = max_exponent (rl, B);
      TRY (rm_loss_pass (L, g, rw, rl, B, c, kl > k ? kl : k));
      finite = num_is_finite (L);
      for (size_t i = 0; g && i < 2 * B; i++)
        finite = finite && num_is_finite (AT (g, i));
    }
  for (size_t i = 0; i < B; i++)
    {
      if (grad_rw)
        num_set (AT (grad_rw, i), AT (g, i));
      if (grad_rl)
        num_set (AT (grad_rl, i), AT (g, B + i));
    }
  num_set (loss, L);
  if (!finite)
    status = range_error ();
done:
  num_clear (L);
  num_vec_free (g, 2 * B);
  return status;
}

/* log(1 + e^{r_l - r_w}) as commonly written. */
int
FN (rm_loss_naive) (num_ptr loss, num_srcptr rw, num_srcptr rl)
{
  num_t d;
  int status;
  num_init (d);
  num_sub (d, rl, rw);
  status = FN (softplus_naive) (loss, d);
  num_clear (d);
  return status;
}

/* ----- PREF-MARGIN and PREF-SMOOTH -------------------------------------- */

/* Loss (1 - e) softplus(-z) + e softplus(z) = -(1 - e) log sigma(z) - e log sigma(-z),
 * z = r_w - r_l - m, and dL/dz = -(1 - e) sigma(-z) + e sigma(z); m and e
 * may be NULL (0).  A term of weight 0 is left out (0 inf is not 0).
 * When r_w - r_l - m overflows, z = 2 z_h with z_h = r_w/2 - r_l/2 - m/2;
 * if 2 z_h is finite it is z, else softplus(-|z|) vanishes against
 * softplus(|z|) = |z|, and the loss is 2 e z_h (z > 0) or -2 (1 - e) z_h
 * (z < 0), infinite (with ERANGE) only when that overflows. */
static int
logistic_loss (num_ptr loss, num_ptr grad_rw, num_ptr grad_rl, num_srcptr rw,
               num_srcptr rl, num_srcptr m, num_srcptr e)
{
  num_t z, w, a, b, L, G;
  int status = RLREF_SUCCESS, halved = 0;
  int left = 1, right = e && !num_is_zero (e);
  num_init (z); num_init (w); num_init (a); num_init (b); num_init (L); num_init (G);
  num_sub (z, rw, rl);
  if (m)
    num_sub (z, z, m);
  if (!num_is_finite (z))
    {
      num_mul_2si (a, rw, -1);
      num_mul_2si (b, rl, -1);
      num_sub (z, a, b);
      if (m)
        {
          num_mul_2si (a, m, -1);
          num_sub (z, z, a);
        }
      num_mul_2si (a, z, 1);
      if (num_is_finite (a))
        num_set (z, a);
      else
        halved = 1;
    }
  if (e)
    num_d_sub (w, 1.0, e);
  else
    num_set_d (w, 1.0);
  left = !num_is_zero (w);
  if (!halved)
    {
      num_set_zero (a);
      num_set_zero (b);
      if (left)
        {
          num_neg (a, z);
          TRY (FN (softplus) (a, a));   /* -log sigma(z) */
          num_mul (a, a, w);
        }
      if (right)
        {
          TRY (FN (softplus) (b, z));   /* -log sigma(-z) */
          num_mul (b, b, e);
        }
      num_add (L, a, b);
    }
  else
    {
      num_set_zero (L);
      if (num_sgn (z) > 0 && right)
        num_mul (L, e, z);
      else if (num_sgn (z) < 0 && left)
        {
          num_mul (L, w, z);
          num_neg (L, L);
        }
      num_mul_2si (L, L, 1);
    }
  num_set_zero (a);
  num_set_zero (b);
  if (left)
    {
      num_neg (a, z);
      TRY (FN (sigmoid) (a, a));
      num_mul (a, a, w);
    }
  if (right)
    {
      TRY (FN (sigmoid) (b, z));
      num_mul (b, b, e);
    }
  num_sub (G, b, a);
  if (grad_rw)
    num_set (grad_rw, G);
  if (grad_rl)
    num_neg (grad_rl, G);
  num_set (loss, L);
  if (!num_is_finite (L))
    status = range_error ();
done:
  num_clear (z); num_clear (w); num_clear (a); num_clear (b); num_clear (L); num_clear (G);
  return status;
}

/* PREF-MARGIN (000 10.1):  L = -log sigma(r_w - r_l - m). */
int
FN (margin_loss) (num_ptr loss, num_ptr grad_rw, num_ptr grad_rl,
                  num_srcptr rw, num_srcptr rl, num_srcptr m)
{
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  CHECK_FINITE (m);
  return logistic_loss (loss, grad_rw, grad_rl, rw, rl, m, NULL);
}

/* PREF-SMOOTH (000 10.1):  L = -(1 - eps) log sigma(D) - eps log sigma(-D). */
int
FN (smooth_loss) (num_ptr loss, num_ptr grad_rw, num_ptr grad_rl,
                  num_srcptr rw, num_srcptr rl, num_srcptr eps)
{
  CHECK_FINITE (rw);
  CHECK_FINITE (rl);
  CHECK_FINITE (eps);
  if (num_sgn (eps) < 0 || num_cmp_d (eps, 1.0) > 0)
    RLREF_ERROR ("label smoothing needs 0 <= eps <= 1", RLREF_EDOM);
  return logistic_loss (loss, grad_rw, grad_rl, rw, rl, NULL, eps);
}

/* ----- PREF-ENSEMBLE ------------------------------------------------------ */

/* Checks the arguments of the ensemble functions. */
static int
ensemble_check (num_srcptr scores, size_t K, int ddof, num_srcptr lambda)
{
  CHECK_FINITE (lambda);
  if (num_sgn (lambda) < 0)
    RLREF_ERROR ("the uncertainty penalty lambda must be >= 0", RLREF_EDOM);
  if (ddof != 0 && ddof != 1)
    RLREF_ERROR ("ddof must be 0 or 1", RLREF_EDOM);
  if (!scores || K == 0)
    RLREF_ERROR ("empty or NULL vector", RLREF_EINVAL);
  for (size_t i = 0; i < K; i++)
    CHECK_FINITE (AT (scores, i));
  if (K <= (size_t) ddof)
    RLREF_ERROR ("variance needs K - ddof > 0", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* Mean m', variance v' and standard deviation s' of the scores scaled by
 * 2^-k, where k = 0 while max |score| lies in [2^-400, 2^400], else k is
 * the exponent of max |score|: the moments are m' 2^k, v' 2^2k, s' 2^k,
 * and m' - lambda s' and m' - lambda v' 2^k cannot overflow unless their
 * scaled-back values do. */
static int
ensemble_moments (num_ptr m, num_ptr v, num_ptr s, long *k, num_srcptr scores, size_t K,
                  int ddof)
{
  num_ptr x = NULL;
  num_srcptr y = scores;
  int status = RLREF_SUCCESS;
  *k = max_exponent (scores, K);
  if (*k >= -400 && *k <= 400)
    *k = 0;
  if (*k != 0)
    {
      x = num_vec_new (K);
      if (!x)
        FAIL ("out of memory", RLREF_ENOMEM);
      for (size_t i = 0; i < K; i++)
        num_mul_2si (AT (x, i), AT (scores, i), -*k);
      y = x;
    }
  TRY (FN (mean) (m, y, K));
  TRY (FN (variance) (v, y, K, ddof));
  TRY (FN (stddev) (s, y, K, ddof));
done:
  num_vec_free (x, K);
  return status;
}

/* PREF-ENSEMBLE (000 10.1): mean, var (ddof), std = sqrt(var),
 * penalized = mean - lambda std, lambda >= 0; ERANGE when a requested
 * output is beyond the range (the variance of +-1e308: +inf, with the
 * finite std 1e308 written). */
int
FN (ensemble) (num_ptr mean, num_ptr var, num_ptr std, num_ptr penalized,
               num_srcptr scores, size_t K, int ddof, num_srcptr lambda)
{
  num_t m, v, s, p;
  long k;
  int status = ensemble_check (scores, K, ddof, lambda);
  if (status)
    return status;
  num_init (m); num_init (v); num_init (s); num_init (p);
  TRY (ensemble_moments (m, v, s, &k, scores, K, ddof));
  num_mul (p, s, lambda);
  num_sub (p, m, p);
  if (mean)
    num_mul_2si (mean, m, k);
  if (var)
    num_mul_2si (var, v, 2 * k);
  if (std)
    num_mul_2si (std, s, k);
  if (penalized)
    num_mul_2si (penalized, p, k);
  num_mul_2si (v, v, 2 * k);
  num_mul_2si (p, p, k);
  if ((var && !num_is_finite (v)) || (penalized && !num_is_finite (p)))
    status = range_error ();
done:
  num_clear (m); num_clear (v); num_clear (s); num_clear (p);
  return status;
}

/* PREF-ENSEMBLE (000 10.1, the variance as the uncertainty):
 * penalized_var = mean - lambda var, lambda >= 0. */
int
FN (ensemble_var_penalized) (num_ptr penalized_var, num_srcptr scores, size_t K, int ddof,
                             num_srcptr lambda)
{
  num_t m, v, s;
  long k;
  int status = ensemble_check (scores, K, ddof, lambda);
  if (status)
    return status;
  num_init (m); num_init (v); num_init (s);
  TRY (ensemble_moments (m, v, s, &k, scores, K, ddof));
  num_mul_2si (v, v, k);
  num_mul (v, v, lambda);
  num_sub (m, m, v);
  num_mul_2si (penalized_var, m, k);
  num_mul_2si (m, m, k);
  if (!num_is_finite (m))
    status = range_error ();
done:
  num_clear (m); num_clear (v); num_clear (s);
  return status;
}

/* ----- PREF-PL --------------------------------------------------------------- */

static int
check_permutation (const long *ranking, size_t K)
{
  unsigned char *seen;
  int ok = 1;
  if (!ranking || K == 0)
    RLREF_ERROR ("empty ranking", RLREF_EINVAL);
  seen = calloc (K, 1);
  if (!seen)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  for (size_t k = 0; k < K && ok; k++)
    {
      if (ranking[k] < 0 || (size_t) ranking[k] >= K || seen[ranking[k]])
        ok = 0;
      else
        seen[ranking[k]] = 1;
    }
  free (seen);
  if (!ok)
    RLREF_ERROR ("ranking is not a permutation of 0..K-1", RLREF_EINVAL);
  return RLREF_SUCCESS;
}

/* One ranking pi's contribution, weighted by w (NULL: 1), to f = -log P,
 * its gradient g and Hessian H (Plackett-Luce, 000 10.1).  Stage k chooses
 * pi_k from R_k = {pi_k, ..., pi_{K-1}}, with l_k = lse_{i in R_k} s_i and
 * p_k(i) = e^{s_i - l_k}:
 *   f += w sum_k (l_k - s_{pi_k}),
 *   g_i += w sum_{k: i in R_k} (p_k(i) - [i = pi_k]),
 *   H_ab += w sum_{k <= j} (delta_ab p_k(a) - p_k(a) p_k(b)),  j = min(pos a, pos b).
 * The sets are nested, so p_k(a) = p_j(a) e^{l_j - l_k} for k <= j, and
 * with q_k = 1 - p_k(pi_k) = e^{l_{k+1} - l_k} (the mass of the others,
 * summed without cancelling against 1):
 *   H_ab = -w p_j(a) p_j(b) A_j (a != b),  H_aa = w p_j(a) (E_j + q_j A_j),
 *   A_j = 1 + q_{j-1}^2 A_{j-1},  E_j = q_{j-1} (E_{j-1} + p_{j-1}(pi_{j-1}) A_{j-1}),
 * A_0 = 1, E_0 = 0 (E_j = B_j - A_j with B_j = sum_{k <= j} e^{l_j - l_k},
 * a sum of positive terms): O(K^2) per ranking.  x and p are scratch of
 * length K. */
static int
pl_accumulate (num_ptr f, num_ptr g, num_ptr H, num_srcptr s, const long *pi, size_t K,
               num_srcptr w, num_ptr x, num_ptr p)
{
  num_t l, t, q, A, E, qprev, p0prev;
  int status = RLREF_SUCCESS;
  num_init (l); num_init (t); num_init (q); num_init (A); num_init (E);
  num_init (qprev); num_init (p0prev);
  for (size_t k = 0; k < K; k++)
    {
      size_t n = K - k;
      /* scores relative to the chosen one: lse of them is l_k - s_{pi_k}
       * without cancellation (4.2e-18 for scores (40, 0)) */
      for (size_t j = 0; j < n; j++)
        num_sub (AT (x, j), AT (s, pi[k + j]), AT (s, pi[k]));
      TRY (FN (logsumexp) (l, x, n));
      if (w)
        num_mul (t, l, w);
      else
        num_set (t, l);
      num_add (f, f, t);
      if (!g && !H)
        continue;
      num_set_zero (q);
      for (size_t j = 0; j < n; j++)
        {
          num_sub (AT (p, j), AT (x, j), l);
          num_exp (AT (p, j), AT (p, j));           /* p_k(pi_{k+j}) */
          if (j > 0)
            num_add (q, q, AT (p, j));
        }
      if (g)
        /* the chosen item's p_k - 1 is -q_k */
        for (size_t j = 1; j < n; j++)
          {
            if (w)
              num_mul (t, AT (p, j), w);
            else
              num_set (t, AT (p, j));
            num_add (AT (g, pi[k + j]), AT (g, pi[k + j]), t);
            num_sub (AT (g, pi[k]), AT (g, pi[k]), t);
          }
      if (!H)
        continue;
      if (k == 0)
        {
          num_set_d (A, 1.0);
          num_set_zero (E);
        }
      else
        {
          num_mul (t, p0prev, A);
          num_add (E, E, t);
          num_mul (E, E, qprev);
          num_sqr (t, qprev);
          num_mul (A, A, t);
          num_add_d (A, A, 1.0);
        }
      /* diagonal: w p_k(pi_k) (E_k + q_k A_k) */
      num_mul (t, q, A);
      num_add (t, t, E);
      num_mul (t, t, AT (p, 0));
      if (w)
        num_mul (t, t, w);
      num_ptr hkk = AT (H, (size_t) pi[k] * K + (size_t) pi[k]);
      num_add (hkk, hkk, t);
      /* off-diagonal: -w p_k(pi_k) p_k(pi_{k+j}) A_k */
      num_mul (l, AT (p, 0), A);
      if (w)
        num_mul (l, l, w);
      for (size_t j = 1; j < n; j++)
        {
          num_mul (t, l, AT (p, j));
          num_ptr h1 = AT (H, (size_t) pi[k] * K + (size_t) pi[k + j]);
          num_ptr h2 = AT (H, (size_t) pi[k + j] * K + (size_t) pi[k]);
          num_sub (h1, h1, t);
          num_sub (h2, h2, t);
        }
      num_set (qprev, q);
      num_set (p0prev, AT (p, 0));
    }
done:
  num_clear (l); num_clear (t); num_clear (q); num_clear (A); num_clear (E);
  num_clear (qprev); num_clear (p0prev);
  return status;
}

/* PREF-PL:  log P(pi) = sum_k [s_{pi_k} - lse(s_{pi_k}, ..., s_{pi_K})]. */
int
FN (pl_logprob) (num_ptr logp, num_ptr grad, num_srcptr scores,
                 const long *ranking, size_t K)
{
  num_ptr x, p, g = NULL;
  num_t f;
  int status = check_permutation (ranking, K);
  if (status)
    return status;
  if (!scores)
    RLREF_ERROR ("NULL scores", RLREF_EINVAL);
  for (size_t i = 0; i < K; i++)
    CHECK_FINITE (AT (scores, i));
  num_init (f);
  x = num_vec_new (K);
  p = num_vec_new (K);
  if (grad)
    g = num_vec_new (K);
  if (!x || !p || (grad && !g))
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (pl_accumulate (f, g, NULL, scores, ranking, K, NULL, x, p));
  for (size_t i = 0; grad && i < K; i++)
    num_set (AT (grad, i), AT (g, i));
  num_neg (logp, f);
  if (!num_is_finite (f))
    status = range_error ();
done:
  num_clear (f);
  num_vec_free (x, K);
  num_vec_free (p, K);
  num_vec_free (g, K);
  return status;
}

/* ----- the maximum-likelihood fits ----------------------------------------------- */

/* Counts (or weights) c_i scaled by 2^-k, k the exponent of the largest:
 * the maximum-likelihood scores do not change, the log-likelihood is
 * 2^k times that of the scaled counts.  Into cn (length n) and, as
 * doubles for the start, into cd.  ERANGE when a positive count vanishes
 * in the scaling (counts further apart than the range of the backend). */
static int
normalise_counts (num_ptr cn, double *cd, long *k, num_srcptr c, size_t n)
{
  *k = max_exponent (c, n);
  for (size_t i = 0; i < n; i++)
    {
      num_mul_2si (AT (cn, i), AT (c, i), -*k);
      if (num_is_zero (AT (cn, i)) && !num_is_zero (AT (c, i)))
        RLREF_ERROR ("counts span more than the exponent range", RLREF_ERANGE);
      cd[i] = num_get_d (AT (cn, i));
      if (cd[i] == 0.0 && !num_is_zero (AT (cn, i)))
        RLREF_ERROR ("counts span more than the binary64 range", RLREF_ERANGE);
    }
  return RLREF_SUCCESS;
}

/* What the double GSL start needs; the same layout in both builds. */
struct pl_start
{
  const long *rankings;
  const double *counts_d;
  size_t M, K;
};

/* Rankings and their counts in the working backend. */
struct pl_data
{
  struct pl_start start;
  num_srcptr counts;
};

/* The contributions of pl_accumulate from one exponential per item, for
 * scores spanning at most S with K e^S 2^60 finite (S ~ 660 in binary64;
 * in MPFR, any realistic span): with c = max_i s_i, x_j = e^{s_{pi_j} - c}
 * (in [e^-S, 1], far from underflow) and the suffix sums
 * Z_k = sum_{j >= k} x_j (positive terms; Z_K = 0),
 *   l_k - s_{pi_k} = log1p(Z_{k+1} / x_k),  p_k(pi_j) = x_j / Z_k,
 *   q_k = Z_{k+1} / Z_k,  g_{pi_j} += w (x_j C_j - q_j),  C_j = sum_{k < j} 1/Z_k,
 * and H as in pl_accumulate: K exponentials per ranking instead of K^2.
 * x and z are scratch of lengths K and K + 1. */
static void
pl_accumulate_sums (num_ptr f, num_ptr g, num_ptr H, num_srcptr s, num_srcptr c,
                    const long *pi, size_t K, num_srcptr w, num_ptr x, num_ptr z)
{
  num_t t, q, A, E, C, p0, qprev, p0prev;
  num_init (t); num_init (q); num_init (A); num_init (E); num_init (C);
  num_init (p0); num_init (qprev); num_init (p0prev);
  for (size_t j = 0; j < K; j++)
    {
      num_sub (AT (x, j), AT (s, pi[j]), c);
      num_exp (AT (x, j), AT (x, j));
    }
  num_set_zero (AT (z, K));
  for (size_t j = K; j-- > 0;)
    num_add (AT (z, j), AT (z, j + 1), AT (x, j));
  for (size_t k = 0; k < K; k++)
    {
      num_div (t, AT (z, k + 1), AT (x, k));
      num_log1p (t, t);
      num_mul (t, t, w);
      num_add (f, f, t);
      if (!g && !H)
        continue;
      num_div (q, AT (z, k + 1), AT (z, k));
      if (g)
        {
          num_mul (t, AT (x, k), C);
          num_sub (t, t, q);
          num_mul (t, t, w);
          num_add (AT (g, pi[k]), AT (g, pi[k]), t);
          num_d_div (t, 1.0, AT (z, k));
          num_add (C, C, t);
        }
      if (!H)
        continue;
      num_div (p0, AT (x, k), AT (z, k));
      if (k == 0)
        {
          num_set_d (A, 1.0);
          num_set_zero (E);
        }
      else
        {
          num_mul (t, p0prev, A);
          num_add (E, E, t);
          num_mul (E, E, qprev);
          num_sqr (t, qprev);
          num_mul (A, A, t);
          num_add_d (A, A, 1.0);
        }
      num_mul (t, q, A);
      num_add (t, t, E);
      num_mul (t, t, p0);
      num_mul (t, t, w);
      num_ptr hkk = AT (H, (size_t) pi[k] * K + (size_t) pi[k]);
      num_add (hkk, hkk, t);
      /* -w p_k(pi_k) p_k(pi_j) A_k = -(w p_k(pi_k) A_k / Z_k) x_j */
      num_mul (p0, p0, A);
      num_mul (p0, p0, w);
      num_div (p0, p0, AT (z, k));
      for (size_t j = k + 1; j < K; j++)
        {
          num_mul (t, p0, AT (x, j));
          num_ptr h1 = AT (H, (size_t) pi[k] * K + (size_t) pi[j]);
          num_ptr h2 = AT (H, (size_t) pi[j] * K + (size_t) pi[k]);
          num_sub (h1, h1, t);
          num_sub (h2, h2, t);
        }
      num_set (qprev, q);
      num_div (p0prev, AT (x, k), AT (z, k));
    }
  num_clear (t); num_clear (q); num_clear (A); num_clear (E); num_clear (C);
  num_clear (p0); num_clear (qprev); num_clear (p0prev);
}

/* Negative log-likelihood of M rankings, its gradient and Hessian; by
 * pl_accumulate_sums when the span S of the scores has K e^S 2^60
 * finite, else stage by stage (pl_accumulate). */
static int
pl_fgh (const void *ctx, num_srcptr s, num_ptr f, num_ptr g, num_ptr H, size_t K)
{
  const struct pl_data *d = ctx;
  num_ptr x = num_vec_new (K), p = num_vec_new (K + 1);
  num_t hi, lo;
  int status = RLREF_SUCCESS, sums;
  num_init (hi);
  num_init (lo);
  if (!x || !p)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set (hi, AT (s, 0));
  num_set (lo, AT (s, 0));
  for (size_t i = 1; i < K; i++)
    {
      num_max (hi, hi, AT (s, i));
      num_min (lo, lo, AT (s, i));
    }
  num_sub (lo, hi, lo);
  num_exp (lo, lo);
  num_mul_si (lo, lo, (long) K);
  num_mul_2si (lo, lo, 60);
  sums = num_is_finite (lo);
  num_set_zero (f);
  if (g)
    for (size_t i = 0; i < K; i++)
      num_set_zero (AT (g, i));
  if (H)
    for (size_t i = 0; i < K * K; i++)
      num_set_zero (AT (H, i));
  for (size_t m = 0; m < d->start.M; m++)
    {
      const long *pi = d->start.rankings + m * K;
      num_srcptr w = AT (d->counts, m);
      if (num_is_zero (w))
        continue;
      if (sums)
        pl_accumulate_sums (f, g, H, s, hi, pi, K, w, x, p);
      else
        TRY (pl_accumulate (f, g, H, s, pi, K, w, x, p));
    }
done:
  num_clear (hi);
  num_clear (lo);
  num_vec_free (x, K);
  num_vec_free (p, K + 1);
  return status;
}

#ifndef RLREF_MP
/* The double objective for the GSL start (double build only). */
int rlref_pl_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K);
int
rlref_pl_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K)
{
  const struct pl_start *st = ctx;
  struct pl_data d = { *st, st->counts_d };
  return pl_fgh (&d, s, f, g, NULL, K);
}
#endif
int rlref_pl_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K);

/* The fit: a start from GSL in double, rounded to 24 bits (Newton then
 * reaches the same iterates whatever the last bits of the platform's libm
 * and GSL), polished by Newton's method; if Newton fails from there (a
 * start far out on the tails, where the Hessian underflows), again from
 * s = 0.  Into s (mean zero) and the minimum f of the objective. */
static int
fit_finish (num_ptr s, num_ptr f, FN (fgh_fn) *fgh, const void *ctx,
            const void *start_ctx, size_t K, rlref_fg_double_fn *fg_start)
{
  double *s0 = malloc (K * sizeof *s0);
  const char *why = "";
  num_t m;
  int status = RLREF_SUCCESS;
  num_init (m);
  if (!s0)
    FAIL ("out of memory", RLREF_ENOMEM);
  TRY (rlref_gsl_start (s0, K, fg_start, start_ctx));
  for (size_t i = 0; i < K; i++)
    num_set_d (AT (s, i), fabs (s0[i]) < FLT_MAX ? (double) (float) s0[i] : s0[i]);
  status = FN (newton_gauge) (s, K, fgh, ctx, &why);
  if (status == RLREF_ERANGE || status == RLREF_EMAXITER)
    {
      for (size_t i = 0; i < K; i++)
        num_set_zero (AT (s, i));
      status = FN (newton_gauge) (s, K, fgh, ctx, &why);
    }
  if (status)
    FAIL (why, status);
  /* re-centre exactly at mean zero */
  TRY (FN (mean) (m, s, K));
  for (size_t i = 0; i < K; i++)
    num_sub (AT (s, i), AT (s, i), m);
  TRY (fgh (ctx, s, f, NULL, NULL, K));
done:
  num_clear (m);
  free (s0);
  return status;
}

/* Writes the fitted scores s and the log-likelihood -f 2^k; ERANGE when
 * that is asked for and beyond the range. */
static int
fit_write (num_ptr scores, num_ptr loglik, num_srcptr s, num_ptr f, long k, size_t K)
{
  for (size_t i = 0; i < K; i++)
    num_set (AT (scores, i), AT (s, i));
  num_neg (f, f);
  num_mul_2si (f, f, k);
  if (loglik)
    num_set (loglik, f);
  return (loglik && !num_is_finite (f)) ? range_error () : RLREF_SUCCESS;
}

/* PREF-PL maximum likelihood: argmax_s sum_m c_m log P(pi_m; s), sum s = 0,
 * on the counts scaled by 2^-k (the same maximum), loglik = 2^k times the
 * scaled log-likelihood. */
int
FN (pl_mle) (num_ptr scores, num_ptr loglik, const long *rankings, num_srcptr counts,
             size_t M, size_t K)
{
  struct pl_data d = { { rankings, NULL, M, K }, NULL };
  unsigned char *adj = NULL;
  double *cd = NULL;
  num_ptr cn = NULL, s = NULL;
  num_t f;
  long k;
  int status;
  if (!rankings || !counts || !scores || M == 0 || K < 2)
    RLREF_ERROR ("need at least one ranking of at least two items", RLREF_EINVAL);
  for (size_t m = 0; m < M; m++)
    {
      if ((status = check_permutation (rankings + m * K, K)))
        return status;
      CHECK_FINITE (AT (counts, m));
      if (num_sgn (AT (counts, m)) < 0)
        RLREF_ERROR ("negative ranking count", RLREF_EDOM);
    }
  num_init (f);
  adj = calloc (K * K, 1);
  cd = malloc (M * sizeof *cd);
  cn = num_vec_new (M);
  s = num_vec_new (K);
  if (!adj || !cd || !cn || !s)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t m = 0; m < M; m++)
    if (!num_is_zero (AT (counts, m)))
      for (size_t a = 0; a < K; a++)
        for (size_t b = a + 1; b < K; b++)
          adj[rankings[m * K + a] * K + rankings[m * K + b]] = 1;
  if (!rlref_strongly_connected (adj, K))
    FAIL ("some items are never ranked below others: no finite maximum", RLREF_EDOM);
  TRY (normalise_counts (cn, cd, &k, counts, M));
  d.start.counts_d = cd;
  d.counts = cn;
  TRY (fit_finish (s, f, pl_fgh, &d, &d.start, K, rlref_pl_fg_start));
  status = fit_write (scores, loglik, s, f, k, K);
done:
  num_clear (f);
  free (adj);
  free (cd);
  num_vec_free (cn, M);
  num_vec_free (s, K);
  return status;
}

/* What the double GSL start needs; the same layout in both builds. */
struct bt_start
{
  const double *wins_d;
  size_t n;
};

struct bt_data
{
  struct bt_start start;
  num_srcptr wins;
};

/* -sum_ij w_ij log sigma(s_i - s_j), gradient and Hessian (13.7 with counts). */
static int
bt_fgh (const void *ctx, num_srcptr s, num_ptr f, num_ptr g, num_ptr H, size_t n)
{
  const struct bt_data *d = ctx;
  num_t D, t, c;
  int status = RLREF_SUCCESS;
  num_init (D); num_init (t); num_init (c);
  num_set_zero (f);
  if (g)
    for (size_t i = 0; i < n; i++)
      num_set_zero (AT (g, i));
  if (H)
    for (size_t i = 0; i < n * n; i++)
      num_set_zero (AT (H, i));
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      {
        num_srcptr w = AT (d->wins, i * n + j);
        if (i == j || num_is_zero (w))
          continue;
        num_sub (D, AT (s, i), AT (s, j));
        num_neg (t, D);
        TRY (FN (softplus) (t, t));
        num_mul (t, t, w);
        num_add (f, f, t);
        if (g)
          {
            num_neg (t, D);
            TRY (FN (sigmoid) (t, t));
            num_mul (t, t, w);          /* w sigma(-D) */
            num_sub (AT (g, i), AT (g, i), t);
            num_add (AT (g, j), AT (g, j), t);
          }
        if (H)
          {
            TRY (FN (sigmoid) (c, D));
            num_neg (t, D);
            TRY (FN (sigmoid) (t, t));
            num_mul (c, c, t);
            num_mul (c, c, w);          /* w sigma(D) sigma(-D) */
            num_add (AT (H, i * n + i), AT (H, i * n + i), c);
            num_add (AT (H, j * n + j), AT (H, j * n + j), c);
            num_sub (AT (H, i * n + j), AT (H, i * n + j), c);
            num_sub (AT (H, j * n + i), AT (H, j * n + i), c);
          }
      }
done:
  num_clear (D); num_clear (t); num_clear (c);
  return status;
}

#ifndef RLREF_MP
int rlref_bt_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K);
int
rlref_bt_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K)
{
  const struct bt_start *st = ctx;
  struct bt_data dd = { *st, st->wins_d };
  return bt_fgh (&dd, s, f, g, NULL, K);
}
#endif
int rlref_bt_fg_start (const void *ctx, const double *s, double *f, double *g, size_t K);

/* PREF-BT-MLE: argmax_s sum_ij w_ij log sigma(s_i - s_j), sum s = 0, on the
 * weights scaled by 2^-k (the same maximum), loglik = 2^k times the scaled
 * log-likelihood. */
int
FN (bt_mle) (num_ptr scores, num_ptr loglik, num_srcptr wins, size_t n)
{
  struct bt_data d = { { NULL, n }, NULL };
  unsigned char *adj = NULL;
  double *wd = NULL;
  num_ptr wn = NULL, s = NULL;
  num_t f;
  long k;
  int status;
  if (!wins || !scores || n < 2)
    RLREF_ERROR ("need at least two items", RLREF_EINVAL);
  for (size_t i = 0; i < n * n; i++)
    {
      CHECK_FINITE (AT (wins, i));
      if (num_sgn (AT (wins, i)) < 0)
        RLREF_ERROR ("negative preference count", RLREF_EDOM);
    }
  num_init (f);
  adj = calloc (n * n, 1);
  wd = malloc (n * n * sizeof *wd);
  wn = num_vec_new (n * n);
  s = num_vec_new (n);
  if (!adj || !wd || !wn || !s)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n * n; i++)
    adj[i] = (i / n != i % n) && !num_is_zero (AT (wins, i));
  if (!rlref_strongly_connected (adj, n))
    FAIL ("comparison graph not strongly connected: no finite maximum", RLREF_EDOM);
  TRY (normalise_counts (wn, wd, &k, wins, n * n));
  d.start.wins_d = wd;
  d.wins = wn;
  TRY (fit_finish (s, f, bt_fgh, &d, &d.start, n, rlref_bt_fg_start));
  status = fit_write (scores, loglik, s, f, k, n);
done:
  num_clear (f);
  free (adj);
  free (wd);
  num_vec_free (wn, n * n);
  num_vec_free (s, n);
  return status;
}
