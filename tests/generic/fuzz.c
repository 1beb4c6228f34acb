/* fuzz.c -- the domain fuzzer of the generic test.
 *
 * For a variant, each draw starts from one of its valid golden cases (which
 * fix the shapes: lengths, groups, rows) and moves one to three of its real
 * elements or parameters with the generators that find hard cases in
 * MPFR's and CORE-MATH's tests: small and extreme powers of two (down to
 * the subnormals, up to the largest double), special values (+-0, +-1,
 * DBL_MAX, DBL_MIN, the least subnormal), a neighbour (x (1 +- 2^-k):
 * cancellation against an equal element), a copy or the negation of
 * another element (ties, cancelling pairs), the ends of the declared
 * domain and points just inside them, a point drawn from the domain (log-
 * uniform over the magnitudes where it is unbounded); or scales a whole
 * array by a power of two.  An array declared "sum1" is renormalised in
 * most draws.  Integers are moved rarely (by one, to 0, to a domain end).
 *
 * Each draw is judged as a user of `rlref eval` meets it:
 *   - the certified (MPFR) value refuses: binary64 must refuse too;
 *   - it is certified: binary64 gives every output within the goldens'
 *     tolerance of it (|y_d - y| <= U 2^-53 (sens + max(|y|, DBL_MIN))),
 *     or refuses with ERANGE or EPREC (a result binary64 cannot hold:
 *     counted, not a failure); a finite value beyond the binary64 range
 *     must be refused, never written as +-inf; binary64 refusing with
 *     another status where MPFR answers is a failure (the two share their
 *     checks);
 *   - a value not certified to 17 digits (EPREC at 4096 bits, or digits
 *     short of 17) is not judged (counted).
 * Each failure is printed as the `rlref eval` command that shows it. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <gsl/gsl_rng.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "core/registry.h"
#include "core/args.h"
#include "core/domain.h"
#include "core/evaluate.h"
#include "check/rules.h"
#include "generic.h"

#define MAX_SHOWN 6             /* failures printed per variant */

/* --- drawing -------------------------------------------------------------- */

static double
uniform (gsl_rng *r)
{
  return gsl_rng_uniform (r);
}

static long
below (gsl_rng *r, long n)
{
  return n > 0 ? (long) gsl_rng_uniform_int (r, (unsigned long) n) : 0;
}

/* x 2^k, held finite (the largest double of its sign where it overflows). */
static double
scaled (double x, int k)
{
  double y = ldexp (x, k);
  return isinf (y) ? copysign (DBL_MAX, x) : y;
}

static double
special (gsl_rng *r)
{
  static const double s[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, DBL_MAX, -DBL_MAX, DBL_MIN,
                              -DBL_MIN, 0x1p-1074, -0x1p-1074, 1e-300, 1e300, 1e-8, 1e8,
                              0x1p-53, 1 - 0x1p-53, 1 + 0x1p-52 };
  return s[below (r, sizeof s / sizeof s[0])];
}

/* A point of d: uniform where both ends are finite and close, else of a
 * log-uniform magnitude within them. */
static double
from_domain (gsl_rng *r, const rl_domain *d)
{
  double lo = isinf (d->lo) ? -DBL_MAX : d->lo, hi = isinf (d->hi) ? DBL_MAX : d->hi, x;
  if (isfinite (d->lo) && isfinite (d->hi) && d->hi - d->lo < 1e6)
    x = lo + (hi - lo) * uniform (r);
  else
    {
      x = ldexp (1.0, (int) below (r, 2098) - 1074);
      if (lo < 0 && (hi <= 0 || uniform (r) < 0.5))
        x = -x;
      x = x < lo ? lo : x > hi ? hi : x;
    }
  return x;
}

/* An end of d, or a point just inside it. */
static double
edge (gsl_rng *r, const rl_domain *d)
{
  double e = uniform (r) < 0.5 ? d->lo : d->hi;
  if (isinf (e))
    e = copysign (DBL_MAX, e);
  switch (below (r, 3))
    {
    case 0:
      return e;
    case 1:
      return nextafter (e, 0.0);
    default:
      return e == d->lo ? nextafter (e, INFINITY) : nextafter (e, -INFINITY);
    }
}

/* A new value for element j of the n reals x (domain d). */
static double
moved (gsl_rng *r, const double *x, size_t n, size_t j, const rl_domain *d)
{
  double v = x[j];
  switch (below (r, 8))
    {
    case 0:
      return scaled (v, (int) below (r, 17) - 8);
    case 1:
      return scaled (v != 0 ? v : 1.0, (int) below (r, 2201) - 1100);
    case 2:
      return special (r);
    case 3:
      {
        double e = ldexp (1.0, -(int) below (r, 52) - 1) * (uniform (r) < 0.5 ? -1 : 1);
        return v != 0 ? v + v * e : e;
      }
    case 4:
      {
        double w = x[below (r, (long) n)];
        return uniform (r) < 0.5 ? w : -w;
      }
    case 5:
      return edge (r, d);
    default:
      return from_domain (r, d);
    }
}

/* Moves one to three reals of b, or scales one array; integers rarely. */
static void
mutate (gsl_rng *r, const rl_variant *v, const rl_domain *dom, rl_args *b)
{
  size_t n_in = rl_n_in (v->io), reals[RL_MAX_IN + RL_MAX_PARAMS], nr = 0;
  rl_domain any;
  char err[8];
  rl_domain_parse (NULL, &any, err, sizeof err);
  for (size_t i = 0; i < n_in; i++)
    if (b->re[i] && b->len[i] > 0)
      reals[nr++] = i;
  for (size_t p = 0; v->params[p].name; p++)
    if (v->params[p].in_x && !v->params[p].is_int)
      reals[nr++] = n_in + p;
  if (nr > 0 && uniform (r) < 0.15)
    {
      /* a whole array (or a parameter) scaled by a power of two */
      size_t s = reals[below (r, (long) nr)];
      int k = (int) below (r, 2001) - 1000;
      if (s < n_in)
        for (size_t j = 0; j < b->len[s]; j++)
          b->re[s][j] = scaled (b->re[s][j], k);
      else
        b->param[s - n_in] = scaled (b->param[s - n_in], k);
    }
  else
    for (long m = 1 + below (r, 3); m > 0 && nr > 0; m--)
      {
        size_t s = reals[below (r, (long) nr)];
        if (s < n_in)
          {
            size_t j = (size_t) below (r, (long) b->len[s]);
            b->re[s][j] = moved (r, b->re[s], b->len[s], j, &dom[s]);
          }
        else
          b->param[s - n_in] = moved (r, &b->param[s - n_in], 1, 0, &any);
      }
  for (size_t i = 0; i < n_in; i++)
    {
      if (b->iv[i] && b->len[i] > 0 && uniform (r) < 0.05)
        {
          size_t j = (size_t) below (r, (long) b->len[i]);
          long *x = &b->iv[i][j];
          switch (below (r, 3))
            {
            case 0:
              *x += uniform (r) < 0.5 ? 1 : -1;
              break;
            case 1:
              *x = 0;
              break;
            default:
              if (isfinite (dom[i].lo) && isfinite (dom[i].hi))
                *x = (long) (uniform (r) < 0.5 ? dom[i].lo : dom[i].hi);
            }
        }
      if (b->re[i] && dom[i].sum1 && uniform (r) < 0.8)
        {
          /* back on the simplex, as most callers hold it */
          double sum = 0;
          for (size_t j = 0; j < b->len[i]; j++)
            sum += b->re[i][j];
          if (isfinite (sum) && sum > 0)
            for (size_t j = 0; j < b->len[i]; j++)
              b->re[i][j] /= sum;
        }
    }
}

/* --- judging -------------------------------------------------------------- */

/* Writes the `rlref eval` command of the draw b. */
static void
print_command (FILE *out, const rl_formula *f, const rl_variant *v, const rl_args *b)
{
  fprintf (out, "  rlref eval %s --variant %s", f->id, v->name);
  for (size_t i = 0; v->io->in[i].name; i++)
    {
      fprintf (out, " %s=", v->io->in[i].name);
      for (size_t j = 0; j < b->len[i]; j++)
        {
          if (b->re[i])
            fprintf (out, "%s%a", j ? "," : "", b->re[i][j]);
          else
            fprintf (out, "%s%ld", j ? "," : "", b->iv[i][j]);
        }
    }
  for (size_t p = 0; v->params[p].name; p++)
    if (v->params[p].in_x)
      fprintf (out, " %s=%a", v->params[p].name, b->param[p]);
  fputc ('\n', out);
}

typedef struct
{
  size_t refused;               /* both refuse */
  size_t refused_d;             /* binary64 ERANGE or EPREC, MPFR certified */
  size_t range_rule;            /* of which ERANGE by rl_evaluate's range rule */
  size_t uncertain;             /* not certified to 17 digits: not judged */
  size_t judged;                /* certified and compared */
} tally;

/* Whether element k of the draw b is within rounding of a jump or a kink
 * (a clamp's edge, a tie of a max): its sensitivity by central differences
 * alone (RLREF_SENS=fd, steps 2^-64 and 2^-88 relative) finds it not
 * differentiable, or large enough to hold the error.  The variant's own
 * sensitivity is that of the smooth piece the input lies on, while the
 * binary64 input rounding may land on the other piece. */
static int
near_a_jump (const rl_variant *v, const rl_args *b, size_t k, double err, int ulps)
{
  rl_result r;
  int jump = 0;
  const char *old = getenv ("RLREF_SENS");
  char *saved = old ? strdup (old) : NULL;
  setenv ("RLREF_SENS", "fd", 1);
  if (rl_evaluate (v, b, RL_WORKING_BITS, RL_MIN_DIGITS, 1, &r) == 0)
    {
      double x = fabs (mpfr_get_d (r.cert.value + k, MPFR_RNDN));
      jump = r.cert.nondiff[k]
        || err <= ulps * 0x1p-53 * (mpfr_get_d (r.cert.sens_mp + k, MPFR_RNDU)
                                    + fmax (x, DBL_MIN));
    }
  rl_result_free (&r);
  if (saved)
    setenv ("RLREF_SENS", saved, 1);
  else
    unsetenv ("RLREF_SENS");
  free (saved);
  return jump;
}

/* Judges the draw b; 0, or 1 with why. */
static int
judge (const rl_formula *f, const rl_variant *v, const rl_args *b, tally *t, char *why,
       size_t size)
{
  rl_result r;
  int ulps = f->ulps ? f->ulps : RL_DEFAULT_ULPS, bad = 0;
  /* first without the sensitivity, whose central differences may step
     out of the range where the value itself is fine */
  int st = rl_evaluate (v, b, RL_WORKING_BITS, RL_MIN_DIGITS, 0, &r);
  if (st == 0 && r.status_d == 0)
    {
      rl_result_free (&r);
      if (rl_evaluate (v, b, RL_WORKING_BITS, RL_MIN_DIGITS, 1, &r) != 0)
        {
          t->uncertain++;
          rl_result_free (&r);
          return 0;
        }
    }
  if (st == RLREF_EPREC)
    t->uncertain++;
  else if (st != 0)
    {
      if (r.status_d == 0)
        {
          snprintf (why, size, "binary64 answers an input the certified path refuses (%s)",
                    rlref_status_name (st));
          bad = 1;
        }
      else
        t->refused++;
    }
  else if (r.status_d == RLREF_ERANGE || r.status_d == RLREF_EPREC)
    {
      t->refused_d++;
      t->range_rule += r.range_refused != 0;
    }
  else if (r.status_d != 0)
    {
      snprintf (why, size, "binary64 refuses (%s: %s) an input the certified path answers",
                rlref_status_name (r.status_d), r.error_d);
      bad = 1;
    }
  else
    {
      t->judged++;
      for (size_t k = 0; k < r.ny && !bad; k++)
        {
          mpfr_srcptr y = r.cert.value + k;
          double yd = r.yd[k], x = mpfr_get_d (y, MPFR_RNDN), tol;
          int exact_zero;
          if (!mpfr_number_p (y))
            {
              if (!(isnan (yd) && mpfr_nan_p (y)) && yd != x)
                {
                  snprintf (why, size, "element %zu: binary64 %a, certified %g", k, yd, x);
                  bad = 1;
                }
              continue;
            }
          if (isinf (x))
            {
              mpfr_snprintf (why, size, "element %zu: the value lies beyond the binary64 "
                             "range (about %.3Rg) and binary64 gives %a without ERANGE", k, y,
                             yd);
              bad = 1;
              continue;
            }
          if (!rl_certified_zero (&r, k, &exact_zero) && r.cert.digits[k] < 17)
            {
              t->uncertain++;
              continue;
            }
          tol = ulps * 0x1p-53 * (r.cert.sens[k] + (mpfr_zero_p (y) ? 0 : fmax (fabs (x),
                                                                                DBL_MIN)));
          if (!isfinite (yd) || fabs (yd - x) > tol)
            {
              if (isfinite (yd) && near_a_jump (v, b, k, fabs (yd - x), ulps))
                {
                  t->uncertain++;
                  continue;
                }
              snprintf (why, size, "element %zu: binary64 %.17g, certified %.17g (error %.3g, "
                        "tolerance %.3g, U = %d)", k, yd, x, fabs (yd - x), tol, ulps);
              bad = 1;
            }
        }
    }
  rl_result_free (&r);
  return bad;
}

/* --- the loop ------------------------------------------------------------- */

static unsigned long
hash (const char *a, const char *b)
{
  unsigned long h = 5381;
  for (; *a; a++)
    h = h * 33 + (unsigned char) *a;
  for (; *b; b++)
    h = h * 33 + (unsigned char) *b;
  return h;
}

size_t
fuzz_variant (const rl_formula *f, const rl_variant *v, unsigned long seed, size_t draws,
              double seconds, size_t *ran)
{
  rl_args base[64];
  rl_domain dom[RL_MAX_IN];
  size_t nb = 0, failures = 0;
  tally t = { 0, 0, 0, 0, 0 };
  char err[256], why[512];
  clock_t start = clock ();
  gsl_rng *r = gsl_rng_alloc (gsl_rng_mt19937);
  gsl_rng_set (r, seed ^ hash (f->id, v->name));
  for (size_t i = 0; v->io->in[i].name; i++)
    rl_domain_parse (v->io->in[i].domain, &dom[i], err, sizeof err);
  for (size_t c = 0; f->cases[c].variants && nb < 64; c++)
    if (rl_list_names (f->cases[c].variants, v->name)
        && rl_case_outcome (&f->cases[c], v) == RL_VALID
        && generic_parse_case (v, &f->cases[c], &base[nb], err, sizeof err) == 0)
      nb++;
  *ran = 0;
  for (size_t d = 0; nb > 0 && d < draws; d++)
    {
      rl_args b;
      if (seconds > 0 && d > 1 && (double) (clock () - start) / CLOCKS_PER_SEC > seconds)
        break;
      generic_args_copy (v, &base[below (r, (long) nb)], &b);
      mutate (r, v, dom, &b);
      if (judge (f, v, &b, &t, why, sizeof why))
        {
          if (failures < MAX_SHOWN)
            {
              fprintf (stderr, "fuzz: %s [%s]: %s\n", f->id, v->name, why);
              print_command (stderr, f, v, &b);
            }
          failures++;
        }
      rl_args_free (&b);
      (*ran)++;
    }
  if (failures > MAX_SHOWN)
    fprintf (stderr, "fuzz: %s [%s]: %zu more failures\n", f->id, v->name,
             failures - MAX_SHOWN);
  if (t.range_rule)
    fprintf (stderr, "fuzz: %s [%s]: %zu of %zu draws refused by the range rule (the binary64 "
             "implementation gave inf or NaN, or the value is beyond the range)\n", f->id,
             v->name, t.range_rule, *ran);
  for (size_t i = 0; i < nb; i++)
    rl_args_free (&base[i]);
  gsl_rng_free (r);
  return failures;
}
