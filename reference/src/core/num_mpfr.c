/* num_mpfr.c -- the parts of the MPFR scalar backend that are not inline:
 * one-block vectors, exactly rounded sums and dot products, rounding to
 * binary32. */
#define RLREF_MP
#include <stdint.h>
#include <stdlib.h>
#include "rlref/num.h"
#include "rlref/status.h"

/* Pointer tables of up to this many entries live on the stack. */
#define PTR_STACK 256

/* n zeros of prec bits (clamped): the n structs, then their n
 * significands, in one allocation freed by free (). */
mpfr_ptr
rlref_num_vec_new_mp (size_t n, long prec)
{
  mpfr_prec_t p = rlref_mp_prec_clamp (prec);
  size_t limb_bytes = mpfr_custom_get_size (p);
  size_t each = sizeof (__mpfr_struct) + limb_bytes;
  mpfr_ptr v;
  char *limbs;
  if (n > SIZE_MAX / each)
    return NULL;
  v = malloc (n ? n * each : sizeof (__mpfr_struct));
  if (!v)
    return NULL;
  limbs = (char *) v + n * sizeof (__mpfr_struct);
  for (size_t i = 0; i < n; i++)
    {
      void *m = limbs + i * limb_bytes;
      mpfr_custom_init (m, p);
      mpfr_custom_init_set (v + i, MPFR_ZERO_KIND, 0, p, m);
    }
  return v;
}

/* k variables of the working precision set to +0, their significands
 * consecutive in one block from GMP's allocator (which aborts when memory
 * is exhausted, as mpfr_init2 does); v[0]'s significand starts it. */
void
rlref_num_group_init_mp (mpfr_ptr *v, size_t k)
{
  void *(*alloc) (size_t);
  mpfr_prec_t p = rlref_mp_prec ();
  size_t bytes = mpfr_custom_get_size (p);
  char *block;
  if (k == 0)
    return;
  mp_get_memory_functions (&alloc, NULL, NULL);
  block = alloc (k * bytes);
  for (size_t i = 0; i < k; i++)
    {
      mpfr_custom_init (block + i * bytes, p);
      mpfr_custom_init_set (v[i], MPFR_ZERO_KIND, 0, p, block + i * bytes);
    }
}

/* Frees the block of rlref_num_group_init_mp: v[0]'s significand, k
 * significands of v[0]'s precision long. */
void
rlref_num_group_clear_mp (mpfr_ptr *v, size_t k)
{
  void (*release) (void *, size_t);
  if (k == 0)
    return;
  mp_get_memory_functions (NULL, NULL, &release);
  release (mpfr_custom_get_significand (v[0]), k * mpfr_custom_get_size (mpfr_get_prec (v[0])));
}

/* r = sum_i v_i rounded once (mpfr_sum, which takes a table of pointers). */
int
rlref_num_sum_mp (mpfr_ptr r, mpfr_srcptr v, size_t n)
{
  mpfr_ptr stack[PTR_STACK], *p = stack;
  if (n == 0)
    {
      mpfr_set_zero (r, 1);
      return RLREF_SUCCESS;
    }
  if (n > PTR_STACK)
    {
      p = n <= SIZE_MAX / sizeof *p ? malloc (n * sizeof *p) : NULL;
      if (!p)
        RLREF_ERROR ("num_sum: out of memory", RLREF_ENOMEM);
    }
  for (size_t i = 0; i < n; i++)
    p[i] = (mpfr_ptr) (v + i);
  mpfr_sum (r, p, n, MPFR_RNDN);
  if (p != stack)
    free (p);
  return RLREF_SUCCESS;
}

/* Whether a b may leave MPFR's exponent range: mpfr_dot forms every
 * product exactly and aborts (an assertion) where one overflows or
 * underflows. */
static int
product_out_of_range (mpfr_srcptr a, mpfr_srcptr b)
{
  mpfr_exp_t e;
  if (!mpfr_regular_p (a) || !mpfr_regular_p (b))
    return 0;
  e = mpfr_get_exp (a) + mpfr_get_exp (b);
  return e > mpfr_get_emax () - 1 || e < mpfr_get_emin () + 1;
}

/* The dot product where a product leaves the exponent range: every
 * product rounded (to +-inf or 0, as MPFR rounds out of range) at the
 * precision that holds it, then summed once. */
static int
dot_by_products (mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, size_t n)
{
  mpfr_ptr t = malloc (n * sizeof *t);
  int status;
  if (!t)
    RLREF_ERROR ("num_dot: out of memory", RLREF_ENOMEM);
  for (size_t i = 0; i < n; i++)
    {
      mpfr_init2 (t + i, mpfr_get_prec (a + i) + mpfr_get_prec (b + i));
      mpfr_mul (t + i, a + i, b + i, MPFR_RNDN);
    }
  status = rlref_num_sum_mp (r, t, n);
  for (size_t i = 0; i < n; i++)
    mpfr_clear (t + i);
  free (t);
  return status;
}

/* r = sum_i a_i b_i rounded once (mpfr_dot). */
int
rlref_num_dot_mp (mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, size_t n)
{
  mpfr_ptr stack[2 * PTR_STACK], *p = stack;
  if (n == 0)
    {
      mpfr_set_zero (r, 1);
      return RLREF_SUCCESS;
    }
  for (size_t i = 0; i < n; i++)
    if (product_out_of_range (a + i, b + i))
      return dot_by_products (r, a, b, n);
  if (n > PTR_STACK)
    {
      p = n <= SIZE_MAX / (2 * sizeof *p) ? malloc (2 * n * sizeof *p) : NULL;
      if (!p)
        RLREF_ERROR ("num_dot: out of memory", RLREF_ENOMEM);
    }
  for (size_t i = 0; i < n; i++)
    {
      p[i] = (mpfr_ptr) (a + i);
      p[n + i] = (mpfr_ptr) (b + i);
    }
  mpfr_dot (r, p, p + n, n, MPFR_RNDN);
  if (p != stack)
    free (p);
  return RLREF_SUCCESS;
}

/* r = a rounded to IEEE binary32, nearest with ties to even, as a C cast
 * of a double does: 24 bits in the exponent range of binary32 (MPFR
 * exponents -148 .. 128), subnormals on the grid of 2^-149, +-inf from
 * (2 - 2^-24) 2^127 on.  a is first rounded to 24 bits in the full range;
 * its ternary value lets mpfr_check_range and mpfr_subnormalize round it
 * again without double rounding.  The exponent range and the flags of the
 * thread are restored. */
void
rlref_num_round_f32_mp (mpfr_ptr r, mpfr_srcptr a)
{
  MPFR_DECL_INIT (t, 24);
  mpfr_exp_t emin = mpfr_get_emin (), emax = mpfr_get_emax ();
  mpfr_flags_t flags = mpfr_flags_save ();
  int inex = mpfr_set (t, a, MPFR_RNDN);
  mpfr_set_emin (-148);
  mpfr_set_emax (128);
  inex = mpfr_check_range (t, inex, MPFR_RNDN);
  mpfr_subnormalize (t, inex, MPFR_RNDN);
  mpfr_set_emin (emin);
  mpfr_set_emax (emax);
  mpfr_set (r, t, MPFR_RNDN);
  mpfr_flags_restore (flags, MPFR_FLAGS_ALL);
}
