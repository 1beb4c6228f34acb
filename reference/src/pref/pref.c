/* pref.c -- preference and reward models (PREF-BT, PREF-BT-GUMBEL,
 * PREF-RM-LOSS, PREF-MARGIN, PREF-SMOOTH, PREF-ENSEMBLE), written once for
 * both backends; PREF-PL is in pref_pl.c, PREF-BT-MLE in pref_bt_mle.c.
 * Seed 000 sections 2.1 and 10.1, equations 13.5-13.7.
 *
 * Every function computes into temporaries and writes its outputs last,
 * so an output may share storage with an input (reference/README.md,
 * Aliasing).  Where the binary64 range is at stake (scores near 1e308),
 * the computation is scaled by a power of two, which is exact: a result
 * is finite wherever its exact value is representable. */
#include "rlref/num.h"
#include "rlref/primitives.h"
#include "rlref/pref.h"
#include "flow.h"
#include "scale.h"

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
  NUM_INIT (a, b);
  num_exp (a, rw);
  num_exp (b, rl);
  num_add (b, a, b);
  num_div (p, a, b);
  NUM_CLEAR (a, b);
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
      long k = FN (max_exponent) (rw, B), kl = FN (max_exponent) (rl, B);
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
    status = RANGE_ERROR ();
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

/* z = r_w - r_l - m (m NULL: 0) rounded once, so that r_w = 1,
 * r_l = -1e308, m = 1e308 give z = 1, not 0. */
static int
margin_of (num_ptr z, num_srcptr rw, num_srcptr rl, num_srcptr m)
{
  num_ptr t = num_vec_new (3);
  int status;
  if (!t)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  num_set (AT (t, 0), rw);
  num_neg (AT (t, 1), rl);
  if (m)
    num_neg (AT (t, 2), m);
  else
    num_set_zero (AT (t, 2));
  status = num_sum (z, t, 3);
  num_vec_free (t, 3);
  return status;
}

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
  TRY (margin_of (z, rw, rl, m));
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
    status = RANGE_ERROR ();
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
  *k = FN (max_exponent) (scores, K);
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
    status = RANGE_ERROR ();
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
    status = RANGE_ERROR ();
done:
  num_clear (m); num_clear (v); num_clear (s);
  return status;
}
