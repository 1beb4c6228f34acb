/* num_cases.h -- the checks of test_num.c that both backends pass, written
 * once against the scalar interface.  test_num.c includes this file twice
 * (no include guard), after the binary64 header with TN_PREFIX nd_ and
 * after the MPFR header with TN_PREFIX nm_, so each function below exists
 * as nd_check_... and nm_check_...  Expected values are exact doubles; an
 * MPFR result is compared after num_get_d, which is exact for a value of
 * at most 53 bits.  test_num.c defines TN_IS_MP (0 or 1) and TN_EXACT
 * (53 in binary64; in MPFR a precision that holds any sum or dot product
 * of up to 600 doubles exactly, so that num_get_d rounds it once to the
 * double a correctly rounded binary64 num_sum gives, subnormals
 * included). */

/* got and want are the same double (-0 is not +0; NaN equals NaN). */
static void
TN (same) (double got, double want, const char *what, double x, double y)
{
  if (!tu_same_double (got, want))
    ck_abort_msg ("%s: %s (%a, %a) = %a, expected %a", NUM_NAME, what, x, y, got,
                  want);
}

/* --- max and min ----------------------------------------------------------- */

/* NaN if either operand is NaN; max (-0, +0) = +0 and min (-0, +0) = -0 in
 * either order; the result may be an operand. */
static void
TN (check_max_min) (void)
{
  static const struct { double a, b, max, min; } t[] = {
    { 1, 2, 2, 1 }, { 2, 1, 2, 1 }, { -3, -3, -3, -3 },
    { -INFINITY, 3, 3, -INFINITY }, { INFINITY, -INFINITY, INFINITY, -INFINITY },
    { -0.0, 0.0, 0.0, -0.0 }, { 0.0, -0.0, 0.0, -0.0 }, { -0.0, -0.0, -0.0, -0.0 },
    { 0.0, 0.0, 0.0, 0.0 }, { NAN, 1, NAN, NAN }, { 1, NAN, NAN, NAN },
    { NAN, NAN, NAN, NAN }, { -INFINITY, NAN, NAN, NAN }, { NAN, -0.0, NAN, NAN },
  };
  num_t a, b, r;
  num_init (a);
  num_init (b);
  num_init (r);
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    {
      num_set_d (a, t[i].a);
      num_set_d (b, t[i].b);
      num_max (r, a, b);
      TN (same) (num_get_d (r), t[i].max, "max", t[i].a, t[i].b);
      num_min (r, a, b);
      TN (same) (num_get_d (r), t[i].min, "min", t[i].a, t[i].b);
      num_max (a, a, b);                /* aliased with the first operand */
      TN (same) (num_get_d (a), t[i].max, "max (a = a, b)", t[i].a, t[i].b);
      num_set_d (a, t[i].a);
      num_min (b, a, b);                /* aliased with the second */
      TN (same) (num_get_d (b), t[i].min, "min (b = a, b)", t[i].a, t[i].b);
    }
  num_clear (a);
  num_clear (b);
  num_clear (r);
}

/* --- signs of zero ------------------------------------------------------- */

/* The IEEE 754 signs of zero, the same in both backends: x - x = +0,
 * -0 - +0 = -0, (-1) (+0) = -0, sqrt (-0) = -0, ... */
static void
TN (check_signed_zero) (void)
{
  const double p0 = 0.0, m0 = -0.0;
  num_t a, b, c, r;
  num_init (a);
  num_init (b);
  num_init (c);
  num_init (r);
  TN (same) (num_get_d (r), p0, "init", 0, 0);
  num_set_d (r, -1.0);
  num_set_zero (r);
  TN (same) (num_get_d (r), p0, "set_zero", 0, 0);
  num_set_si (r, 0);
  TN (same) (num_get_d (r), p0, "set_si", 0, 0);

#define TN_UN(op, x, want)                                              \
  do {                                                                  \
    num_set_d (a, (x));                                                 \
    op (r, a);                                                          \
    TN (same) (num_get_d (r), (want), #op, (x), 0);                     \
  } while (0)
#define TN_BIN(op, x, y, want)                                          \
  do {                                                                  \
    num_set_d (a, (x));                                                 \
    num_set_d (b, (y));                                                 \
    op (r, a, b);                                                       \
    TN (same) (num_get_d (r), (want), #op, (x), (y));                   \
  } while (0)
  TN_UN (num_neg, p0, m0);
  TN_UN (num_neg, m0, p0);
  TN_UN (num_abs, m0, p0);
  TN_UN (num_sqr, m0, p0);
  TN_UN (num_sqrt, m0, m0);
  TN_UN (num_expm1, m0, m0);
  TN_UN (num_log1p, m0, m0);
  TN_UN (num_sinh, m0, m0);
  TN_UN (num_round_f32, m0, m0);
  TN_UN (num_round_f32, -1e-300, m0);
  TN_UN (num_round_f32, 1e-300, p0);
  TN_BIN (num_add, m0, m0, m0);
  TN_BIN (num_add, m0, p0, p0);
  TN_BIN (num_add, p0, m0, p0);
  TN_BIN (num_add, 1.5, -1.5, p0);
  TN_BIN (num_add, -1.5, 1.5, p0);
  TN_BIN (num_sub, p0, p0, p0);
  TN_BIN (num_sub, m0, p0, m0);
  TN_BIN (num_sub, p0, m0, p0);
  TN_BIN (num_sub, m0, m0, p0);
  TN_BIN (num_sub, -2.0, -2.0, p0);
  TN_BIN (num_mul, -1.0, p0, m0);
  TN_BIN (num_mul, m0, m0, p0);
  TN_BIN (num_mul, m0, 5.0, m0);
  TN_BIN (num_div, m0, 5.0, m0);
  TN_BIN (num_div, p0, -5.0, m0);
  TN_BIN (num_div, 1.0, m0, -INFINITY);
  TN_BIN (num_div, -1.0, m0, INFINITY);
#undef TN_UN
#undef TN_BIN
  num_set_d (a, -1.0);
  num_mul_d (r, a, 0.0);
  TN (same) (num_get_d (r), m0, "mul_d", -1.0, 0.0);
  num_mul_si (r, a, 0);
  TN (same) (num_get_d (r), m0, "mul_si", -1.0, 0.0);
  num_set_d (a, m0);
  num_div_si (r, a, -3);
  TN (same) (num_get_d (r), p0, "div_si", m0, -3.0);
  num_add_d (r, a, m0);
  TN (same) (num_get_d (r), m0, "add_d", m0, m0);
  num_sub_d (r, a, 0.0);
  TN (same) (num_get_d (r), m0, "sub_d", m0, 0.0);
  num_mul_2si (r, a, 3);
  TN (same) (num_get_d (r), m0, "mul_2si", m0, 3.0);
  num_d_sub (r, m0, a);
  TN (same) (num_get_d (r), p0, "d_sub", m0, m0);
  num_set_zero (a);
  num_d_sub (r, m0, a);
  TN (same) (num_get_d (r), m0, "d_sub", m0, p0);
  /* fma: a zero product keeps its sign, then the IEEE rule for the sum */
  num_set_d (a, m0);
  num_set_d (b, p0);
  num_set_d (c, p0);
  num_fma (r, a, b, c);
  TN (same) (num_get_d (r), p0, "fma (-0, +0, +0)", m0, p0);
  num_set_d (c, m0);
  num_fma (r, a, b, c);
  TN (same) (num_get_d (r), m0, "fma (-0, +0, -0)", m0, p0);
  num_set_d (a, -1.0);
  num_set_d (b, 1.0);
  num_set_d (c, 1.0);
  num_fma (r, a, b, c);
  TN (same) (num_get_d (r), p0, "fma (-1, 1, 1)", -1.0, 1.0);
  num_clear (a);
  num_clear (b);
  num_clear (c);
  num_clear (r);
}

/* --- rounding to binary32 ------------------------------------------------- */

/* Subnormals on the grid of 2^-149 with ties to even, overflow to +-inf
 * from (2 - 2^-24) 2^127 on, exactly as a C cast of the double. */
static void
TN (check_round_f32) (void)
{
  static const struct { double x, want; } t[] = {
    { 0x1.fffffep-127, 0x1p-126 },          /* tie: largest subnormal or 2^-126 */
    { -0x1.fffffep-127, -0x1p-126 },
    { 0x1.fffffap-127, 0x1.fffff8p-127 },   /* tie, to the even subnormal */
    { 0x1.fffffcp-127, 0x1.fffffcp-127 },   /* the largest subnormal */
    { 0x1.234567p-130, 0x1.23456p-130 },    /* 25 bits on a grid of 20 */
    { 0x1.8p-149, 0x1p-148 },               /* tie between 1 and 2 units */
    { 0x1.4p-149, 0x1p-149 },
    { 0x1p-149, 0x1p-149 },                 /* the smallest subnormal */
    { 0x1p-150, 0.0 },                      /* tie between 0 and 2^-149, to 0 */
    { -0x1p-150, -0.0 },
    { 0x1.0000000000001p-150, 0x1p-149 },
    { 0x1p-160, 0.0 },
    { 0x1.000001p-126, 0x1p-126 },          /* normal: tie, to even */
    { 0x1.000001p+0, 1.0 },
    { 0x1.000003p+0, 0x1.000004p+0 },
    { 0x1.999999999999ap-4, 0x1.99999ap-4 },  /* 0.1 */
    { 0x1.fffffep+127, 0x1.fffffep+127 },   /* FLT_MAX */
    { 0x1.fffffefffffffp+127, 0x1.fffffep+127 },
    { 0x1.ffffffp+127, INFINITY },          /* tie at the overflow threshold */
    { -0x1.ffffffp+127, -INFINITY },
    { 1e300, INFINITY }, { -1e39, -INFINITY },
    { INFINITY, INFINITY }, { -INFINITY, -INFINITY }, { NAN, NAN },
  };
  num_t a, r;
  gsl_rng *rng = tu_rng_new ();
  num_init (a);
  num_init (r);
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    {
      num_set_d (a, t[i].x);
      num_round_f32 (r, a);
      TN (same) (num_get_d (r), t[i].want, "round_f32", t[i].x, 0);
      num_round_f32 (a, a);
      TN (same) (num_get_d (a), t[i].want, "round_f32 (a = a)", t[i].x, 0);
    }
  /* random doubles near the subnormal range and the overflow threshold
   * against the hardware conversion of C */
  for (int i = 0; i < 20000; i++)
    {
      int e = i % 2 ? (int) gsl_rng_uniform_int (rng, 45) - 165
                    : (int) gsl_rng_uniform_int (rng, 6) + 123;
      double m = 1.0 + gsl_rng_uniform (rng) + ldexp (gsl_rng_uniform (rng), -32);
      double x = ldexp (i % 4 < 2 ? m : -m, e), want;
      want = fabs (x) >= 0x1.ffffffp+127 ? copysign (INFINITY, x) : (double) (float) x;
      num_set_d (a, x);
      num_round_f32 (r, a);
      TN (same) (num_get_d (r), want, "round_f32 (random)", x, 0);
    }
  gsl_rng_free (rng);
  num_clear (a);
  num_clear (r);
}

/* --- fma --------------------------------------------------------------------- */

/* One rounding: at 53 bits, (1 + 2^-30)(1 - 2^-30) - 1 = -2^-60 by fma,
 * 0 by a product then a sum.  No overflow inside: 2^1023 2 - 2^1023. */
static void
TN (check_fma) (void)
{
  num_t a, b, c, r;
  num_init_prec (a, 53);
  num_init_prec (b, 53);
  num_init_prec (c, 53);
  num_init_prec (r, 53);
  num_set_d (a, 1 + 0x1p-30);
  num_set_d (b, 1 - 0x1p-30);
  num_set_d (c, -1.0);
  num_fma (r, a, b, c);
  TN (same) (num_get_d (r), -0x1p-60, "fma", 1 + 0x1p-30, 1 - 0x1p-30);
  num_mul (r, a, b);
  num_add (r, r, c);
  TN (same) (num_get_d (r), 0.0, "mul then add", 1 + 0x1p-30, 1 - 0x1p-30);
  num_set_d (a, 1 + 0x1p-27);
  num_set_d (c, -(1 + 0x1p-26));
  num_fma (r, a, a, c);
  TN (same) (num_get_d (r), 0x1p-54, "fma (a, a, c)", 1 + 0x1p-27, 1 + 0x1p-27);
  num_fma (a, a, a, c);                 /* aliased */
  TN (same) (num_get_d (a), 0x1p-54, "fma (a = a, a, c)", 1 + 0x1p-27, 1 + 0x1p-27);
  num_set_d (a, 0x1p1023);
  num_set_d (b, 2.0);
  num_set_d (c, -0x1p1023);
  num_fma (r, a, b, c);
  TN (same) (num_get_d (r), 0x1p1023, "fma", 0x1p1023, 2.0);
  num_set_inf (a, 1);
  num_set_zero (b);
  num_set_d (c, 1.0);
  num_fma (r, a, b, c);
  TN (same) (num_get_d (r), NAN, "fma", INFINITY, 0.0);
  num_set_d (b, 1.0);
  num_set_inf (c, -1);
  num_fma (r, a, b, c);
  TN (same) (num_get_d (r), NAN, "fma (inf, 1, -inf)", INFINITY, 1.0);
  num_clear (a);
  num_clear (b);
  num_clear (c);
  num_clear (r);
}

/* --- exactly rounded sums and dot products ---------------------------------- */

/* A vector of 53-bit scalars holding x[0..n-1] exactly. */
static num_ptr
TN (vec_of) (const double *x, size_t n)
{
  num_ptr v = num_vec_new_prec (n, 53);
  ck_assert_ptr_nonnull (v);
  for (size_t i = 0; i < n; i++)
    num_set_d (AT (v, i), x[i]);
  return v;
}

/* num_sum of x[0..n-1] into a scalar of prec bits, as a double. */
static double
TN (sum_of) (const double *x, size_t n, long prec)
{
  num_t r;
  num_ptr v = TN (vec_of) (x, n);
  double d;
  num_init_prec (r, prec);
  TU_OK (num_sum (r, v, n));
  d = num_get_d (r);
  num_clear (r);
  num_vec_free (v, n);
  return d;
}

static double
TN (dot_of) (const double *x, const double *y, size_t n, long prec)
{
  num_t r;
  num_ptr u = TN (vec_of) (x, n), v = TN (vec_of) (y, n);
  double d;
  num_init_prec (r, prec);
  TU_OK (num_dot (r, u, v, n));
  d = num_get_d (r);
  num_clear (r);
  num_vec_free (u, n);
  num_vec_free (v, n);
  return d;
}

#define TN_MAXN 8

/* Sums that left-to-right binary64 addition gets wrong (the comment gives
 * its result), ties, the overflow threshold, specials, signs of zero. */
static void
TN (check_sum) (void)
{
  static const struct { size_t n; double x[TN_MAXN]; double want; } t[] = {
    { 3, { 1e308, 1, -1e308 }, 1 },                       /* naive: 0 */
    { 3, { 1e308, 1e308, -1e308 }, 1e308 },               /* naive: inf */
    { 5, { DBL_MAX, DBL_MAX, 1, -DBL_MAX, -DBL_MAX }, 1 },  /* naive: inf */
    { 3, { 0x1.999999999999ap-4, 0x1.999999999999ap-3, -0x1.3333333333333p-2 },
      0x1p-55 },                                          /* 0.1 + 0.2 - 0.3; naive: 2^-54 */
    { 3, { 1, 0x1p-53, 0x1p-105 }, 1 + 0x1p-52 },         /* naive: 1 */
    { 2, { 1, 0x1p-53 }, 1 },                             /* tie, to even */
    { 2, { 1 + 0x1p-52, 0x1p-53 }, 1 + 0x1p-51 },         /* tie, to even */
    { 3, { 0x1p-53, 1, -0x1p-105 }, 1 },
    { 2, { DBL_MAX, 0x1p970 }, INFINITY },                /* tie at 2^1024 */
    { 3, { DBL_MAX, 0x1p970, -0x1p-1074 }, DBL_MAX },
    { 2, { DBL_MAX, 0x1p969 }, DBL_MAX },
    { 3, { 0x1p-1074, 0x1p-1074, 0x1p-1074 }, 0x1.8p-1073 },
    { 2, { 0x1p-1022, -0x1p-1074 }, 0x0.fffffffffffffp-1022 },
    { 4, { 1e-300, 1e300, -1e300, -1e-300 }, 0.0 },
    { 0, { 0 }, 0.0 }, { 1, { -0.0 }, -0.0 }, { 3, { -0.0, -0.0, -0.0 }, -0.0 },
    { 2, { -0.0, 0.0 }, 0.0 }, { 2, { 1, -1 }, 0.0 }, { 3, { -1, 1, -0.0 }, 0.0 },
    { 2, { INFINITY, 1 }, INFINITY }, { 2, { INFINITY, -INFINITY }, NAN },
    { 2, { NAN, 1 }, NAN }, { 3, { -INFINITY, -INFINITY, 1e308 }, -INFINITY },
    { 3, { INFINITY, DBL_MAX, DBL_MAX }, INFINITY },
    { 3, { -DBL_MAX, -DBL_MAX, DBL_MAX }, -DBL_MAX },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    TN (same) (TN (sum_of) (t[i].x, t[i].n, TN_EXACT), t[i].want, "sum", t[i].x[0],
               (double) t[i].n);
}

/* Dot products whose products overflow or underflow in binary64. */
static void
TN (check_dot) (void)
{
  static const struct { size_t n; double a[TN_MAXN], b[TN_MAXN]; double want; } t[] = {
    { 3, { 1e200, 1, -1e200 }, { 1e200, 1, 1e200 }, 1 },     /* naive: NaN */
    { 2, { 1e308, 10 }, { 10, -1e308 }, 0.0 },               /* naive: NaN */
    { 2, { 0x1p-1074, 0x1p-600 }, { 0.5, 0x1p-600 }, 0x1p-1074 },  /* naive: 0 */
    { 2, { 0x1p-1074, -0x1p-600 }, { 0.5, 0x1p-600 }, 0.0 },
    { 2, { 1 + 0x1p-30, -1 }, { 1 - 0x1p-30, 1 }, -0x1p-60 },
    { 2, { DBL_MAX, 0x1p485 }, { 1, 0x1p485 }, INFINITY },    /* tie at 2^1024 */
    { 2, { 0x1p600, -0x1p600 }, { 0x1p500, 0x1p500 }, 0.0 },
    { 0, { 0 }, { 0 }, 0.0 }, { 1, { -1 }, { 0.0 }, -0.0 },
    { 2, { -1, 1 }, { 0.0, 0.0 }, 0.0 }, { 2, { -1, -1 }, { 0.0, 0.0 }, -0.0 },
    { 1, { INFINITY }, { 0.0 }, NAN }, { 2, { INFINITY, 1 }, { 1, 1 }, INFINITY },
    { 2, { INFINITY, -INFINITY }, { 1, 1 }, NAN }, { 1, { NAN }, { 1 }, NAN },
    { 1, { -INFINITY }, { -2 }, INFINITY },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    TN (same) (TN (dot_of) (t[i].a, t[i].b, t[i].n, TN_EXACT), t[i].want, "dot",
               t[i].a[0], (double) t[i].n);
}

/* One rounding to the precision of the result: at 53 bits, sums and dot
 * products in the normal range round as binary64 does (left to right, one
 * rounding per operation, the first two sums give 1 and the dot product
 * 0); ties go to even, and past the largest double MPFR gives 2^1024,
 * which is inf as a double. */
static void
TN (check_sum_dot_once) (void)
{
  const double s1[3] = { 1, 0x1p-53, 0x1p-105 }, s2[3] = { 0x1p-105, 1, 0x1p-53 };
  const double s3[2] = { 1 + 0x1p-52, 0x1p-53 }, s4[2] = { DBL_MAX, 0x1p970 };
  const double a[2] = { 1 + 0x1p-30, -1 }, b[2] = { 1 - 0x1p-30, 1 };
  TN (same) (TN (sum_of) (s1, 3, 53), 1 + 0x1p-52, "sum at 53 bits", 1, 3);
  TN (same) (TN (sum_of) (s2, 3, 53), 1 + 0x1p-52, "sum at 53 bits", 0x1p-105, 3);
  TN (same) (TN (sum_of) (s3, 2, 53), 1 + 0x1p-51, "sum at 53 bits", 1 + 0x1p-52, 2);
  TN (same) (TN (sum_of) (s4, 2, 53), INFINITY, "sum at 53 bits", DBL_MAX, 2);
  TN (same) (TN (dot_of) (a, b, 2, 53), -0x1p-60, "dot at 53 bits", 1 + 0x1p-30, 2);
}

/* Random sums and dot products (wide exponents, cancelling pairs, up to
 * 600 terms) against exact MPFR additions rounded once (exact_sum,
 * exact_dot in test_num.c). */
static void
TN (check_sum_dot_random) (void)
{
  gsl_rng *rng = tu_rng_new ();
  double x[600], y[600];
  for (int round = 0; round < 300; round++)
    {
      size_t n = 1 + gsl_rng_uniform_int (rng, round % 10 ? 40 : 600);
      random_terms (rng, x, y, n);
      TN (same) (TN (sum_of) (x, n, TN_EXACT), exact_sum (x, n), "sum (random)",
                 x[0], (double) n);
      TN (same) (TN (dot_of) (x, y, n, TN_EXACT), exact_dot (x, y, n),
                 "dot (random)", x[0], (double) n);
    }
  gsl_rng_free (rng);
}

/* The result may be an element of the vector. */
static void
TN (check_sum_dot_alias) (void)
{
  const double x[3] = { 1e308, 1, -1e308 }, y[3] = { 3, 5, 3 };
  num_ptr v = TN (vec_of) (x, 3), w = TN (vec_of) (y, 3);
  TU_OK (num_sum (AT (v, 1), v, 3));
  TN (same) (num_get_d (AT (v, 1)), 1.0, "sum (r = v[1])", 1e308, 3);
  num_set_d (AT (v, 1), 1.0);
  TU_OK (num_dot (AT (w, 0), v, w, 3));
  TN (same) (num_get_d (AT (w, 0)), 5.0, "dot (r = b[0])", 1e308, 3);
  num_vec_free (v, 3);
  num_vec_free (w, 3);
}

#undef TN_MAXN

/* --- vectors, matrices, explicit precision ----------------------------------- */

/* num_vec_new_prec gives n zeros of prec bits (53 in binary64) whatever
 * the working precision; AT2 indexes a matrix by rows. */
static void
TN (check_vectors) (void)
{
  long old = (long) rlref_mp_set_prec (64);
  num_ptr v = num_vec_new_prec (6, 300), w = num_vec_new (2);
  num_t x;
  ck_assert_ptr_nonnull (v);
  ck_assert_ptr_nonnull (w);
  for (size_t i = 0; i < 6; i++)
    {
      ck_assert_int_eq (num_get_prec (AT (v, i)), TN_IS_MP ? 300 : 53);
      TN (same) (num_get_d (AT (v, i)), 0.0, "vec_new_prec", (double) i, 0);
    }
  ck_assert_int_eq (num_get_prec (AT (w, 1)), TN_IS_MP ? 64 : 53);
  ck_assert_int_eq (num_prec (), TN_IS_MP ? 64 : 53);
  /* a 2 x 3 matrix: m[i][j] = 10 i + j */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      num_set_si (AT2 (v, i, j, 3), 10 * i + j);
  ck_assert_ptr_eq (AT2 (v, 1, 2, 3), AT (v, 5));
  TN (same) (num_get_d (AT (v, 5)), 12.0, "AT2 (v, 1, 2, 3)", 1, 2);
  TN (same) (num_get_d (AT (v, 3)), 10.0, "AT2 (v, 1, 0, 3)", 1, 0);
  num_init_prec (x, 200);
  ck_assert_int_eq (num_get_prec (x), TN_IS_MP ? 200 : 53);
  TN (same) (num_get_d (x), 0.0, "init_prec", 200, 0);
  num_clear (x);
  num_vec_free (v, 6);
  num_vec_free (w, 2);
  rlref_mp_set_prec (old);
}

/* --- workspace ---------------------------------------------------------------- */

/* A kernel in the style of a formula: sum of squares of x minus the
 * square of the largest |x_i|, with three scalars and a vector taken from
 * the workspace.  Returns the vector it took, to check its reuse (NULL if
 * a take or the dot product failed). */
static num_ptr
TN (ws_kernel) (rlref_ws *ws, num_ptr out, num_srcptr x, size_t n)
{
  size_t mark = rlref_ws_mark (ws);
  num_ptr t = num_ws_take (ws, 3), v = num_ws_take (ws, n);
  if (!t || !v)
    return NULL;
  for (size_t i = 0; i < n; i++)
    {
      num_abs (AT (v, i), AT (x, i));
      num_max (AT (t, 1), AT (t, 1), AT (v, i));
    }
  if (num_dot (AT (t, 2), v, v, n) != RLREF_SUCCESS)
    v = NULL;
  num_sqr (AT (t, 1), AT (t, 1));
  num_sub (out, AT (t, 2), AT (t, 1));
  rlref_ws_release (ws, mark);
  return v;
}

/* After the first call the kernel allocates nothing: the pool's count of
 * allocations stays fixed over 10^6 calls and the same memory comes back;
 * the MPFR temporaries have the workspace's precision. */
static void
TN (check_workspace) (void)
{
  const double xd[4] = { 3, -4, 1, 2 };
  rlref_ws *ws = rlref_ws_new (100);
  num_ptr x = TN (vec_of) (xd, 4), first, t;
  num_t out;
  size_t nalloc, mark;
  ck_assert_ptr_nonnull (ws);
  num_init (out);
  first = TN (ws_kernel) (ws, out, x, 4);
  ck_assert_ptr_nonnull (first);
  TN (same) (num_get_d (out), 14.0, "ws kernel", 4, 0);
  nalloc = rlref_ws_nalloc (ws);
  ck_assert_uint_eq (nalloc, 1);
  for (long k = 0; k < 1000000; k++)
    if (TN (ws_kernel) (ws, out, x, 4) != first)
      ck_abort_msg ("%s: call %ld took other memory", NUM_NAME, k);
  ck_assert_uint_eq (rlref_ws_nalloc (ws), nalloc);
  TN (same) (num_get_d (out), 14.0, "ws kernel", 4, 0);
  /* precision of the temporaries, and nesting */
  ck_assert_int_eq (num_ws_prec (ws), TN_IS_MP ? 100 : 53);
  mark = rlref_ws_mark (ws);
  t = num_ws_take (ws, 2);
  ck_assert_int_eq (num_get_prec (AT (t, 1)), num_ws_prec (ws));
  TN (same) (num_get_d (AT (t, 1)), 0.0, "ws take", 2, 0);
  num_const_pi (AT (t, 0));
  {
    size_t inner = rlref_ws_mark (ws);
    num_ptr u = num_ws_take (ws, 5);
    ck_assert (u > AT (t, 1));
    num_set_d (AT (u, 4), 7.0);
    rlref_ws_release (ws, inner);
    ck_assert_ptr_eq (num_ws_take (ws, 5), u);
    TN (same) (num_get_d (AT (u, 4)), 0.0, "ws take after release", 5, 0);
  }
  TN (same) (num_get_d (AT (t, 0)), 0x1.921fb54442d18p+1, "pi kept", 0, 0);
  rlref_ws_release (ws, mark);
  ck_assert_uint_eq (rlref_ws_mark (ws), mark);
  /* a take larger than the first block adds a block, once */
  t = num_ws_take (ws, 20000);
  ck_assert_ptr_nonnull (t);
  num_set_d (AT (t, 19999), 1.0);
  ck_assert_uint_eq (rlref_ws_nalloc (ws), nalloc + 1);
  rlref_ws_release (ws, mark);
  ck_assert_ptr_eq (num_ws_take (ws, 20000), t);
  ck_assert_uint_eq (rlref_ws_nalloc (ws), nalloc + 1);
  rlref_ws_release (ws, mark);
  num_clear (out);
  num_vec_free (x, 4);
  rlref_ws_free (ws);
}

/* num_cmp_exp: sgn(e^(x - y) - (u + v)) against the sign at 4000 bits
 * (tu_exp_sign), on pairs whose rounded e^(x - y) and u + v coincide or
 * lie an ulp apart (e^(2^-436) and 1 + 2^-898 are both 1 in binary64), on
 * x - y = 0, on a bound <= 0, and on random points near log(1 + eps). */
static void
TN (check_cmp_exp) (void)
{
  static const double c[][5] = {
    /* x, y, u, v, sign */
    { 0x1p-436, 0, 1, 0x1.1eb851eb851ecp-898, 1 },
    { 0x1p-1000, 0, 1, 0x1p-898, -1 },
    { 0x1.9f323ecbf984cp-2, 0x1p-464, 1, 0.5, 1 },
    { 0x1.9f323ecbf984bp-2, 0, 1, 0.5, -1 },
    { 0, 0, 1, 0, 0 },
    { 0, 0, 1, 0x1p-1074, -1 },
    { 0x1p-1074, 0, 1, 0, 1 },
    { -0x1p-1074, 0, 1, 0, -1 },
    { 5, 5, 0.5, 0.5, 0 },
    { 1e308, -1e308, 1e308, 1e308, 1 },
    { -1e308, 1e308, 0x1p-1074, 0, -1 },
    { 3, 0, -1, 0.5, 1 },
    { 0x1.62e42fefa39efp-1, 0, 2, 0, -1 },      /* the double below log 2 */
    { 0x1.62e42fefa39fp-1, 0, 2, 0, 1 },
  };
  gsl_rng *r = tu_rng_new ();
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
    {
      num_t x, y, u, v;
      num_init (x); num_init (y); num_init (u); num_init (v);
      num_set_d (x, c[i][0]);
      num_set_d (y, c[i][1]);
      num_set_d (u, c[i][2]);
      num_set_d (v, c[i][3]);
      ck_assert_int_eq (tu_exp_sign (c[i][0], c[i][1], c[i][2], c[i][3]), (int) c[i][4]);
      ck_assert_msg (num_cmp_exp (x, y, u, v) == (int) c[i][4], "%s: case %zu: %d for %d",
                     NUM_NAME, i, num_cmp_exp (x, y, u, v), (int) c[i][4]);
      num_clear (x); num_clear (y); num_clear (u); num_clear (v);
    }
  for (int k = 0; k < 2000; k++)
    {
      double eps = tu_uniform (r, -0.5, 0.5);
      double xd = log1p (eps) + ldexp (tu_uniform (r, -4, 4), -53);
      double yd = ldexp (tu_uniform (r, -1, 1), -(int) gsl_rng_uniform_int (r, 120) - 50);
      num_t x, y, u, v;
      num_init (x); num_init (y); num_init (u); num_init (v);
      num_set_d (x, xd);
      num_set_d (y, yd);
      num_set_d (u, 1.0);
      num_set_d (v, eps);
      ck_assert_msg (num_cmp_exp (x, y, u, v) == tu_exp_sign (xd, yd, 1.0, eps),
                     "%s: e^(%a - %a) against 1 + %a", NUM_NAME, xd, yd, eps);
      num_clear (x); num_clear (y); num_clear (u); num_clear (v);
    }
  gsl_rng_free (r);
}
