/* num_cmp_exp.c -- the sign of e^(x - y) - (u + v), decided exactly (the
 * num_cmp_exp of both backends).
 *
 * A clip of a probability ratio e^(logp - logp_old) to [1 - eps_low,
 * 1 + eps_high] is a comparison of a transcendental number with a sum of
 * two numbers; compared after rounding, e^l and the bound can round onto
 * each other (e^(2^-436) and 1 + 2^-898 are both 1 in binary64).  Here
 * x - y and u + v are formed exactly, and e^(x - y) is enclosed by MPFR's
 * directed roundings at growing precision until the enclosure lies on
 * one side of u + v.  e^z is irrational for every rational z != 0
 * (Lindemann), so the loop ends; z = 0 is decided by 1 against u + v. */
#include <math.h>
#include <mpfr.h>
#include "rlref/num_mpfr.h"

/* declared in rlref/num_double.h, which cannot be included beside num_mpfr.h */
int rlref_num_cmp_exp_d (double x, double y, double u, double v);

#define START_PREC 64
#define LAST_PREC (1L << 16)

/* r = a + b exactly: the precision spans both significands. */
static void
exact_sum (mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b)
{
  mpfr_prec_t p = mpfr_get_prec (a) > mpfr_get_prec (b) ? mpfr_get_prec (a) : mpfr_get_prec (b);
  if (mpfr_regular_p (a) && mpfr_regular_p (b))
    {
      mpfr_exp_t ea = mpfr_get_exp (a), eb = mpfr_get_exp (b);
      mpfr_exp_t span = (ea > eb ? ea - eb : eb - ea) + 2;
      p = span < RLREF_MAX_PREC - p ? p + (mpfr_prec_t) span : RLREF_MAX_PREC;
    }
  mpfr_init2 (r, p);
  mpfr_add (r, a, b, MPFR_RNDN);
}

int
rlref_num_cmp_exp_mp (mpfr_srcptr x, mpfr_srcptr y, mpfr_srcptr u, mpfr_srcptr v)
{
  mpfr_t z, ny, b, lo, hi;
  int sign = 0;
  mpfr_init2 (ny, mpfr_get_prec (y));
  mpfr_neg (ny, y, MPFR_RNDN);
  exact_sum (z, x, ny);
  exact_sum (b, u, v);
  if (mpfr_sgn (b) <= 0)
    sign = 1;                                   /* e^z > 0 >= u + v */
  else if (mpfr_zero_p (z))
    sign = -mpfr_cmp_ui (b, 1);
  else
    {
      mpfr_init2 (lo, START_PREC);
      mpfr_init2 (hi, START_PREC);
      for (mpfr_prec_t p = START_PREC; sign == 0; p *= 4)
        {
          mpfr_set_prec (lo, p);
          mpfr_set_prec (hi, p);
          mpfr_exp (lo, z, MPFR_RNDD);
          mpfr_exp (hi, z, MPFR_RNDU);
          if (mpfr_cmp (lo, b) > 0)
            sign = 1;
          else if (mpfr_cmp (hi, b) < 0)
            sign = -1;
          else if (p >= LAST_PREC)
            sign = mpfr_cmp (lo, b) >= 0 ? 1 : -1;      /* not met: a tie beyond 2^-65536 */
        }
      mpfr_clear (lo);
      mpfr_clear (hi);
    }
  mpfr_clear (z);
  mpfr_clear (ny);
  mpfr_clear (b);
  return sign;
}

/* In binary64 the rounded values decide where they lie apart by more
 * than their errors: l = x - y rounded moves e^l by at most |l| 2^-53
 * relative, exp is within 1 ulp (2^-52), u + v rounded within 2^-53; the
 * margin (|l| 2^-52 + 2^-49) max(e^l, u + v) is twice that.  Otherwise
 * (and where e^l or u + v is not a normal number of moderate size) MPFR
 * decides. */
int
rlref_num_cmp_exp_d (double x, double y, double u, double v)
{
  double l = x - y, b = u + v, r = exp (l);
  mpfr_t mx, my, mu, mv;
  int sign;
  if (b <= 0.0)
    return 1;                                   /* u + v rounds to its sign */
  if (isfinite (l) && r > 0x1p-1000 && r < 0x1p1000 && b > 0x1p-1000 && b < 0x1p1000)
    {
      double m = (fabs (l) * 0x1p-52 + 0x1p-49) * fmax (r, b);
      if (r - b > m)
        return 1;
      if (b - r > m)
        return -1;
    }
  mpfr_init2 (mx, 53);
  mpfr_init2 (my, 53);
  mpfr_init2 (mu, 53);
  mpfr_init2 (mv, 53);
  mpfr_set_d (mx, x, MPFR_RNDN);
  mpfr_set_d (my, y, MPFR_RNDN);
  mpfr_set_d (mu, u, MPFR_RNDN);
  mpfr_set_d (mv, v, MPFR_RNDN);
  sign = rlref_num_cmp_exp_mp (mx, my, mu, mv);
  mpfr_clear (mx);
  mpfr_clear (my);
  mpfr_clear (mu);
  mpfr_clear (mv);
  return sign;
}
