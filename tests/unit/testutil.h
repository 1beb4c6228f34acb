/* testutil.h -- helpers shared by the Check unit-test suites.
 *
 * Tolerances are named multiples of DBL_EPSILON, as in GSL's tests
 * (TU_TOL0 = 2 eps ... TU_TOL6 = 2^20 eps).  MPFR values are compared with
 * decimal strings computed independently (the RV_ macros of refvalues.h,
 * written by gen_refvalues.py with mpmath) to a stated number n of
 * significant digits, meaning a relative difference of at most 10^-n.
 * Random tests draw from GSL's MT19937 seeded from RLREF_TEST_SEED
 * (default TU_DEFAULT_SEED); a seeded suite prints its seed.  */
#ifndef RLREF_TESTUTIL_H
#define RLREF_TESTUTIL_H

#include <check.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include <gsl/gsl_rng.h>
#include "rlref/rlref.h"
#include "refvalues.h"

/* --- tolerances (GSL style) ------------------------------------------- */

#define TU_TOL0 (2.0 * DBL_EPSILON)
#define TU_TOL1 (16.0 * DBL_EPSILON)
#define TU_TOL2 (256.0 * DBL_EPSILON)
#define TU_TOL3 (2048.0 * DBL_EPSILON)
#define TU_TOL4 (16384.0 * DBL_EPSILON)
#define TU_TOL5 (131072.0 * DBL_EPSILON)
#define TU_TOL6 (1048576.0 * DBL_EPSILON)

/* Per-test timeout, seconds (sanitizer builds are several times slower). */
#define TU_TIMEOUT 120.0

/* Relative error of got against want; |got| when want is 0; 0 when both
 * are the same infinity; inf when exactly one is NaN or infinite. */
static inline double
tu_rel_err (double got, double want)
{
  if (isnan (got) || isnan (want))
    return isnan (got) && isnan (want) ? 0.0 : INFINITY;
  if (isinf (got) || isinf (want))
    return got == want ? 0.0 : INFINITY;
  if (want == 0.0)
    return fabs (got);
  return fabs (got - want) / fabs (want);
}

/* |got - want| <= tol |want| (|got| <= tol when want is 0). */
#define TU_ASSERT_REL(got, want, tol)                                   \
  do {                                                                  \
    double tu_g_ = (got), tu_w_ = (want), tu_t_ = (tol);                \
    double tu_e_ = tu_rel_err (tu_g_, tu_w_);                           \
    ck_assert_msg (tu_e_ <= tu_t_,                                      \
                   "%s = %.17g, expected %.17g: relative error %.3g "   \
                   "(%.1f eps) > tolerance %.3g (%.1f eps)",            \
                   #got, tu_g_, tu_w_, tu_e_, tu_e_ / DBL_EPSILON,      \
                   tu_t_, tu_t_ / DBL_EPSILON);                         \
  } while (0)

/* |got - want| <= tol (absolute). */
#define TU_ASSERT_ABS(got, want, tol)                                   \
  do {                                                                  \
    double tu_g_ = (got), tu_w_ = (want), tu_t_ = (tol);                \
    ck_assert_msg (fabs (tu_g_ - tu_w_) <= tu_t_,                       \
                   "%s = %.17g, expected %.17g: |error| %.3g > %.3g",   \
                   #got, tu_g_, tu_w_, fabs (tu_g_ - tu_w_), tu_t_);    \
  } while (0)

/* The double nearest to the decimal string s (strtod rounds correctly). */
static inline double
tu_d (const char *s)
{
  return strtod (s, NULL);
}

/* Bitwise equality of doubles (distinguishes -0 from +0, any NaN equal). */
static inline int
tu_same_double (double a, double b)
{
  if (isnan (a) && isnan (b))
    return 1;
  return memcmp (&a, &b, sizeof a) == 0;
}

#define TU_ASSERT_SAME(got, want)                                       \
  do {                                                                  \
    double tu_g_ = (got), tu_w_ = (want);                               \
    ck_assert_msg (tu_same_double (tu_g_, tu_w_),                       \
                   "%s = %a (%.17g), expected exactly %a (%.17g)",      \
                   #got, tu_g_, tu_g_, tu_w_, tu_w_);                   \
  } while (0)

/* Status assertion that names both codes. */
#define TU_ASSERT_STATUS(call, want)                                    \
  do {                                                                  \
    int tu_s_ = (call), tu_ws_ = (want);                                \
    ck_assert_msg (tu_s_ == tu_ws_, "%s returned %s, expected %s",      \
                   #call, rlref_status_name (tu_s_),                    \
                   rlref_status_name (tu_ws_));                         \
  } while (0)

#define TU_OK(call) TU_ASSERT_STATUS (call, RLREF_SUCCESS)

/* --- MPFR comparisons ---------------------------------------------------- */

/* Significant decimal digits to which a and b agree: floor(-log10 |a-b|/|b|),
 * INT_MAX when they are equal, 0 when either is NaN, infinite or zero and
 * they differ. */
static inline int
tu_mp_digits (mpfr_srcptr a, mpfr_srcptr b)
{
  mpfr_t d;
  double l;
  if (mpfr_equal_p (a, b))
    return INT_MAX;
  if (!mpfr_regular_p (a) || !mpfr_regular_p (b))
    return 0;
  mpfr_init2 (d, 64);
  mpfr_sub (d, a, b, MPFR_RNDA);
  mpfr_div (d, d, b, MPFR_RNDA);
  mpfr_abs (d, d, MPFR_RNDA);
  mpfr_log10 (d, d, MPFR_RNDU);
  l = mpfr_get_d (d, MPFR_RNDU);
  mpfr_clear (d);
  if (l >= 0)
    return 0;
  return l < -(double) INT_MAX ? INT_MAX : (int) floor (-l);
}

/* Digits to which x agrees with the decimal string s (parsed with enough
 * bits to hold every digit of s and every bit of x). */
static inline int
tu_mp_digits_str (mpfr_srcptr x, const char *s)
{
  mpfr_t t;
  mpfr_prec_t p = mpfr_get_prec (x) + 64;
  mpfr_prec_t ps = (mpfr_prec_t) (4 * strlen (s) + 64);
  int d;
  mpfr_init2 (t, p > ps ? p : ps);
  mpfr_set_str (t, s, 10, MPFR_RNDN);
  d = tu_mp_digits (x, t);
  mpfr_clear (t);
  return d;
}

/* x agrees with the decimal string s to at least n significant digits. */
#define TU_ASSERT_MP_STR(x, s, n)                                       \
  do {                                                                  \
    int tu_d_ = tu_mp_digits_str ((x), (s)), tu_n_ = (n);               \
    ck_assert_msg (tu_d_ >= tu_n_,                                      \
                   "%s = %s agrees with %s to %d digits, expected >= %d",\
                   #x, tu_mp_str (x), (s), tu_d_, tu_n_);               \
  } while (0)

/* a and b agree to at least n significant digits. */
#define TU_ASSERT_MP_AGREE(a, b, n)                                     \
  do {                                                                  \
    int tu_d_ = tu_mp_digits ((a), (b)), tu_n_ = (n);                   \
    ck_assert_msg (tu_d_ >= tu_n_,                                      \
                   "%s = %s and %s agree to %d digits, expected >= %d", \
                   #a, tu_mp_str (a), #b, tu_d_, tu_n_);                \
  } while (0)

/* |x| <= bound (for values that must vanish, e.g. a gradient at a fit). */
#define TU_ASSERT_MP_SMALL(x, bound)                                    \
  do {                                                                  \
    ck_assert_msg (mpfr_number_p (x)                                    \
                   && fabs (mpfr_get_d (x, MPFR_RNDA)) <= (bound),      \
                   "%s = %s, expected |.| <= %g", #x, tu_mp_str (x),    \
                   (double) (bound));                                   \
  } while (0)

/* sgn(e^(x - y) - (u + v)) at 4000 bits: every difference and sum of
 * doubles held exactly, e^z to far more bits than a tie of doubles needs. */
static inline int
tu_exp_sign (double x, double y, double u, double v)
{
  mpfr_t z, b;
  int k;
  mpfr_inits2 (4000, z, b, (mpfr_ptr) 0);
  mpfr_set_d (z, x, MPFR_RNDN);
  mpfr_sub_d (z, z, y, MPFR_RNDN);
  mpfr_exp (z, z, MPFR_RNDN);
  mpfr_set_d (b, u, MPFR_RNDN);
  mpfr_add_d (b, b, v, MPFR_RNDN);
  k = mpfr_cmp (z, b);
  mpfr_clears (z, b, (mpfr_ptr) 0);
  return (k > 0) - (k < 0);
}

/* A short decimal rendering of x for failure messages (40 digits).  The
 * result lives in one of four rotating per-thread buffers, so up to four
 * renderings can appear in one message. */
static inline const char *
tu_mp_str (mpfr_srcptr x)
{
  static _Thread_local char buf[4][96];
  static _Thread_local unsigned next;
  char *b = buf[next++ % 4];
  mpfr_snprintf (b, sizeof buf[0], "%.40Rg", x);
  return b;
}

/* --- MPFR vectors ---------------------------------------------------------- */

/* n zeros at precision prec (an array of __mpfr_struct, as the library
 * takes vectors). */
static inline mpfr_ptr
tu_mp_vec_new (size_t n, mpfr_prec_t prec)
{
  mpfr_ptr v = malloc ((n ? n : 1) * sizeof (__mpfr_struct));
  ck_assert_ptr_nonnull (v);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_init2 (v + i, prec);
      mpfr_set_zero (v + i, 1);
    }
  return v;
}

/* The same, holding the doubles x[0..n-1] exactly. */
static inline mpfr_ptr
tu_mp_vec_from_d (const double *x, size_t n, mpfr_prec_t prec)
{
  mpfr_ptr v = tu_mp_vec_new (n, prec);
  for (size_t i = 0; i < n; i++)
    mpfr_set_d (v + i, x[i], MPFR_RNDN);
  return v;
}

static inline void
tu_mp_vec_free (mpfr_ptr v, size_t n)
{
  if (!v)
    return;
  for (size_t i = 0; i < n; i++)
    mpfr_clear (v + i);
  free (v);
}

/* --- aliasing (reference/README.md, Aliasing) ---------------------------------- */

/* A function under test seen as slots: slot[0 .. nout) are its outputs and
 * slot[nout .. nslot) its inputs, each a vector of len[i] scalars; the
 * wrappers fd and fm call the binary64 and the MPFR function on them. */
#define TU_MAX_SLOTS 8
typedef int tu_slots_d (double *const *slot, const void *ctx);
typedef int tu_slots_mp (mpfr_ptr const *slot, const void *ctx);

typedef struct
{
  const char *name;
  size_t nslot, nout;
  size_t len[TU_MAX_SLOTS];
  const double *in[TU_MAX_SLOTS];       /* the input values (outputs: NULL) */
  tu_slots_d *fd;
  tu_slots_mp *fm;
  const void *ctx;
} tu_alias_case;

/* Fresh slots: inputs holding their values, outputs zero. */
static inline void
tu_slots_new (const tu_alias_case *c, double **d, mpfr_ptr *m)
{
  for (size_t i = 0; i < c->nslot; i++)
    {
      d[i] = calloc (c->len[i] ? c->len[i] : 1, sizeof (double));
      ck_assert_ptr_nonnull (d[i]);
      if (i >= c->nout)
        memcpy (d[i], c->in[i], c->len[i] * sizeof (double));
      m[i] = tu_mp_vec_from_d (d[i], c->len[i], rlref_mp_prec ());
    }
}

static inline void
tu_slots_free (const tu_alias_case *c, double **d, mpfr_ptr *m)
{
  for (size_t i = 0; i < c->nslot; i++)
    {
      free (d[i]);
      tu_mp_vec_free (m[i], c->len[i]);
    }
}

/* d = (f(v + h) - f(v - h))/(2h) with h = 2^-80, f a scalar function of
 * inputs its context holds, v one of them changed in place and restored
 * (at 256 bits: truncation ~1e-48, rounding ~1e-53). */
static inline void
tu_mp_central_diff (mpfr_ptr d, mpfr_ptr v, void (*f) (mpfr_ptr, void *), void *ctx)
{
  mpfr_t save, hi;
  mpfr_inits2 (mpfr_get_prec (d), save, hi, (mpfr_ptr) 0);
  mpfr_set_prec (save, mpfr_get_prec (v));
  mpfr_set (save, v, MPFR_RNDN);
  mpfr_add_d (v, save, 0x1p-80, MPFR_RNDN);
  f (hi, ctx);
  mpfr_sub_d (v, save, 0x1p-80, MPFR_RNDN);
  f (d, ctx);
  mpfr_set (v, save, MPFR_RNDN);
  mpfr_sub (d, hi, d, MPFR_RNDN);
  mpfr_mul_2si (d, d, 79, MPFR_RNDN);
  mpfr_clears (save, hi, (mpfr_ptr) 0);
}

static inline int
tu_mp_same (mpfr_srcptr a, mpfr_srcptr b)
{
  return (mpfr_nan_p (a) && mpfr_nan_p (b)) || (mpfr_equal_p (a, b) && mpfr_signbit (a) == mpfr_signbit (b));
}

/* Every output aliased with every input of the same length, one pair at
 * a time, in both backends: the same status, and every output bit for bit
 * what the call without aliasing gives (the rule of reference/README.md).
 * Returns the number of pairs tried. */
static inline int
tu_check_aliasing (const tu_alias_case *c)
{
  double *ref[TU_MAX_SLOTS], *run[TU_MAX_SLOTS], *dslot[TU_MAX_SLOTS];
  mpfr_ptr mref[TU_MAX_SLOTS], mrun[TU_MAX_SLOTS], mslot[TU_MAX_SLOTS];
  int sd, sm, pairs = 0;
  tu_slots_new (c, ref, mref);
  sd = c->fd (ref, c->ctx);
  sm = c->fm (mref, c->ctx);
  for (size_t o = 0; o < c->nout; o++)
    for (size_t i = c->nout; i < c->nslot; i++)
      {
        if (c->len[o] != c->len[i])
          continue;
        pairs++;
        tu_slots_new (c, run, mrun);
        for (size_t k = 0; k < c->nslot; k++)
          {
            dslot[k] = run[k];
            mslot[k] = mrun[k];
          }
        dslot[o] = run[i];
        mslot[o] = mrun[i];
        ck_assert_msg (c->fd (dslot, c->ctx) == sd, "%s (double): output %zu on input %zu "
                       "changes the status", c->name, o, i);
        ck_assert_msg (c->fm (mslot, c->ctx) == sm, "%s (MPFR): output %zu on input %zu "
                       "changes the status", c->name, o, i);
        for (size_t q = 0; q < c->nout; q++)
          for (size_t j = 0; j < c->len[q]; j++)
            {
              ck_assert_msg (tu_same_double (dslot[q][j], ref[q][j]),
                             "%s (double): output %zu on input %zu: output %zu[%zu] = %a, "
                             "without aliasing %a", c->name, o, i, q, j, dslot[q][j], ref[q][j]);
              ck_assert_msg (tu_mp_same (mslot[q] + j, mref[q] + j),
                             "%s (MPFR): output %zu on input %zu: output %zu[%zu] = %s, "
                             "without aliasing %s", c->name, o, i, q, j,
                             tu_mp_str (mslot[q] + j), tu_mp_str (mref[q] + j));
            }
        tu_slots_free (c, run, mrun);
      }
  tu_slots_free (c, ref, mref);
  return pairs;
}

/* --- seeded RNG -------------------------------------------------------------- */

#define TU_DEFAULT_SEED 20261130UL

/* The seed: RLREF_TEST_SEED if set (decimal), else TU_DEFAULT_SEED. */
static inline unsigned long
tu_seed (void)
{
  const char *s = getenv ("RLREF_TEST_SEED");
  if (s && *s)
    {
      char *end;
      unsigned long v = strtoul (s, &end, 10);
      if (*end == '\0')
        return v;
      fprintf (stderr, "ignoring malformed RLREF_TEST_SEED=%s\n", s);
    }
  return TU_DEFAULT_SEED;
}

/* An MT19937 generator seeded with tu_seed () (free with gsl_rng_free). */
static inline gsl_rng *
tu_rng_new (void)
{
  gsl_rng *r = gsl_rng_alloc (gsl_rng_mt19937);
  ck_assert_ptr_nonnull (r);
  gsl_rng_set (r, tu_seed ());
  return r;
}

/* Uniform on [a, b). */
static inline double
tu_uniform (gsl_rng *r, double a, double b)
{
  return a + (b - a) * gsl_rng_uniform (r);
}

/* --- running a suite ---------------------------------------------------------- */

/* A test case with the suite-wide timeout. */
static inline TCase *
tu_tcase (const char *name)
{
  TCase *tc = tcase_create (name);
  tcase_set_timeout (tc, TU_TIMEOUT);
  return tc;
}

static inline int
tu_run_suite (Suite *s, const char *name, int seeded)
{
  SRunner *sr;
  int failed;
  if (seeded)
    {
      printf ("%s: seed %lu (set RLREF_TEST_SEED to change)\n",
              name, tu_seed ());
      fflush (stdout);
    }
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  mpfr_free_cache ();
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* main () for a suite built by make_suite (); TU_MAIN_SEEDED also prints
 * the seed of the random tests. */
#define TU_MAIN(make_suite)                                             \
  int main (void) { return tu_run_suite (make_suite (), #make_suite, 0); }
#define TU_MAIN_SEEDED(make_suite)                                      \
  int main (void) { return tu_run_suite (make_suite (), #make_suite, 1); }

#endif
