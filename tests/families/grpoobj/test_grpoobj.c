/* test_grpoobj.c -- the GRPO objective family: the loss aggregation modes
 * on the CONVENTIONS.md detector, GSPO's sequence ratio on its detector,
 * GMPO's example [1, 1, 1, 10], the GRPO objective with both KL placements
 * and CISPO, Dr.GRPO's three readings, GFPO's filters, every gradient
 * against central differences, bad input (the generic test holds them to
 * the aliasing rule); binary64 (_d) and MPFR (_mp).
 *
 * Expected values: the numbers printed in CONVENTIONS.md and seed 003;
 * closed forms written out here and evaluated with MPFR at 512 bits from
 * the exact binary64 inputs; central differences of the MPFR loss at 256
 * bits for the gradients. */
#include "testutil.h"

#define PREC 256
#define REF_PREC 512

static mpfr_ptr
mpv (const double *x, size_t n)
{
  return tu_mp_vec_from_d (x, n, PREC);
}

static void
mps (mpfr_ptr r, double d)
{
  mpfr_init2 (r, PREC);
  mpfr_set_d (r, d, MPFR_RNDN);
}

/* ===== GRPO-AGG ========================================================== */

/* CONVENTIONS.md: L = [[2], [1, 1, 1]] -> token-mean 1.25, seq-mean-token-mean
 * 1.5, seq-mean-token-sum 2.5, sum-norm (L_const 4) 0.625, 1.25 without B;
 * 003's group-mean length equals the token mean, its token sum is 5;
 * micro-batches of one sequence give 1.5, of two 1.25.  The weights are
 * the exact fractions of each mode. */
START_TEST (test_agg_detector)
{
  static const struct
  {
    enum rlref_grpo_agg_mode mode;
    long micro;
    double value, w0, w1;       /* the weight of the first token, of the others */
  } m[] = {
    { RLREF_AGG_TOKEN_MEAN, 1, 1.25, 0.25, 0.25 },
    { RLREF_AGG_SEQ_MEAN_TOKEN_MEAN, 1, 1.5, 0.5, 1.0 / 6 },
    { RLREF_AGG_SEQ_MEAN_TOKEN_SUM, 1, 2.5, 0.5, 0.5 },
    { RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM, 1, 0.625, 0.125, 0.125 },
    { RLREF_AGG_SUM_NORM_NO_B, 1, 1.25, 0.25, 0.25 },
    { RLREF_AGG_GROUP_MEAN_LENGTH, 1, 1.25, 0.25, 0.25 },
    { RLREF_AGG_TOKEN_SUM, 1, 5.0, 1.0, 1.0 },
    { RLREF_AGG_MICRO_BATCH, 1, 1.5, 0.5, 1.0 / 6 },
    { RLREF_AGG_MICRO_BATCH, 2, 1.25, 0.25, 0.25 },
  };
  double L[4] = { 2, 1, 1, 1 }, lc = 4, v, w[4];
  long lens[2] = { 1, 3 }, mask[4] = { 1, 1, 1, 1 };
  mpfr_ptr Lm = mpv (L, 4), wm = tu_mp_vec_new (4, PREC);
  mpfr_t LC, vm;
  mps (LC, lc);
  mpfr_init2 (vm, PREC);
  for (size_t k = 0; k < sizeof m / sizeof m[0]; k++)
    {
      TU_OK (rlref_grpo_agg_d (&v, w, L, lens, 2, mask, 4, m[k].mode, &lc, m[k].micro));
      TU_OK (rlref_grpo_agg_mp (vm, wm, Lm, lens, 2, mask, 4, m[k].mode, LC, m[k].micro));
      ck_assert_msg (v == m[k].value, "mode %zu: %.17g, expected %g", k, v, m[k].value);
      ck_assert (mpfr_cmp_d (vm, m[k].value) == 0);
      TU_ASSERT_REL (w[0], m[k].w0, TU_TOL0);
      for (int t = 1; t < 4; t++)
        {
          TU_ASSERT_REL (w[t], m[k].w1, TU_TOL0);
          TU_ASSERT_REL (mpfr_get_d (wm + t, MPFR_RNDN), m[k].w1, TU_TOL0);
        }
    }
  tu_mp_vec_free (Lm, 4);
  tu_mp_vec_free (wm, 4);
  mpfr_clears (LC, vm, (mpfr_ptr) 0);
}
END_TEST

/* Masked tokens weigh 0 and leave n_i; micro-batches of unequal token
 * counts: (5/4 + 10.5/5)/2 = 1.675 against the token mean 15.5/9. */
START_TEST (test_agg_padding_micro)
{
  double L[6] = { 0.5, -1.25, 2, 0.75, 3, -0.5 }, v, w[6];
  long lens[3] = { 2, 3, 1 }, mask[6] = { 1, 0, 1, 1, 0, 1 };
  double L9[9] = { 2, 1, 1, 1, 0.5, -1, 3, 4, 4 }, w9[9];
  long lens9[4] = { 1, 3, 2, 3 }, mask9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  TU_OK (rlref_grpo_agg_d (&v, w, L, lens, 3, mask, 6, RLREF_AGG_SEQ_MEAN_TOKEN_MEAN, NULL, 1));
  /* (0.5/1 + (2 + 0.75)/2 - 0.5/1)/3 = 1.375/3 */
  TU_ASSERT_REL (v, 1.375 / 3, TU_TOL0);
  ck_assert (w[1] == 0 && w[4] == 0);
  TU_ASSERT_REL (w[2], 1.0 / 6, TU_TOL0);
  TU_OK (rlref_grpo_agg_d (&v, w, L, lens, 3, mask, 6, RLREF_AGG_TOKEN_MEAN, NULL, 1));
  TU_ASSERT_REL (v, 2.75 / 4, TU_TOL0);
  TU_OK (rlref_grpo_agg_d (&v, w9, L9, lens9, 4, mask9, 9, RLREF_AGG_MICRO_BATCH, NULL, 2));
  TU_ASSERT_REL (v, 1.675, TU_TOL0);
  TU_OK (rlref_grpo_agg_d (&v, w9, L9, lens9, 4, mask9, 9, RLREF_AGG_TOKEN_MEAN, NULL, 1));
  TU_ASSERT_REL (v, 15.5 / 9, TU_TOL0);
  TU_ASSERT_STATUS (rlref_grpo_agg_d (&v, w9, L9, lens9, 4, mask9, 9, RLREF_AGG_MICRO_BATCH,
                                      NULL, 3), RLREF_EDOM);
}
END_TEST

/* The sum-norm weights at the ends of the range: L_const = DBL_MAX (B
 * L_const overflows: the value was 0 for 4.03125/(2 DBL_MAX) = 1.1e-308,
 * the weights 0 for 1/(2 DBL_MAX)), and 1/L_const beyond the range at
 * L_const = 2^-1070 (the value was +inf for 2^-98/2^-1070 = 2^972; the
 * weight 2^1070 itself is +inf).
 * Within two subnormal steps (one rounding to normal, one to subnormal). */
START_TEST (test_agg_sum_norm_range)
{
  double L[4] = { 2, 0x1p-5, 1, 1 }, L2[4] = { 0x1p-100, 0x1p-100, 0x1p-99, 0 };
  double v, w[4], lc = DBL_MAX, tiny = 0x1p-1070, m = DBL_MAX / 0x1p1023;  /* 2 - 2^-52 */
  long lens[2] = { 1, 3 };
  TU_OK (rlref_grpo_agg_d (&v, w, L, lens, 2, NULL, 4, RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM, &lc,
                           1));
  TU_ASSERT_ABS (v, ldexp (4.03125 / m / 2, -1023), 0x1p-1073);
  TU_ASSERT_ABS (w[2], ldexp (1 / m / 2, -1023), 0x1p-1073);
  ck_assert (v > 0 && w[0] > 0);
  TU_OK (rlref_grpo_agg_d (&v, w, L2, lens, 2, NULL, 4, RLREF_AGG_SUM_NORM_NO_B, &tiny, 1));
  TU_ASSERT_SAME (v, 0x1p972);
  ck_assert (isinf (w[1]));                     /* the weight 2^1070 itself is not */
}
END_TEST

/* ===== GRPO-GMPO example and GRPO-GSPO detector =========================== */

/* 003: [1, 1, 1, 10] -> arithmetic 3.25, geometric 10^{1/4} = 1.778. */
START_TEST (test_gmpo_example)
{
  double x[4] = { 1, 1, 1, 10 }, a, g;
  mpfr_ptr xm = mpv (x, 4);
  mpfr_t am, gm, want;
  mpfr_inits2 (PREC, am, gm, (mpfr_ptr) 0);
  mpfr_init2 (want, REF_PREC);
  TU_OK (rlref_grpo_means_d (&a, &g, x, 4));
  TU_OK (rlref_grpo_means_mp (am, gm, xm, 4));
  ck_assert (a == 3.25 && mpfr_cmp_d (am, 3.25) == 0);
  ck_assert_msg (fabs (g - 1.778) < 5e-4, "geo %.17g", g);
  mpfr_set_ui (want, 10, MPFR_RNDN);
  mpfr_rootn_ui (want, want, 4, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (gm, want, 70);
  TU_ASSERT_REL (g, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
  x[0] = 0;
  TU_OK (rlref_grpo_means_d (&a, &g, x, 4));
  ck_assert (g == 0 && a == 3.0);
  x[0] = -1;
  TU_ASSERT_STATUS (rlref_grpo_means_d (&a, &g, x, 4), RLREF_EDOM);
  tu_mp_vec_free (xm, 4);
  mpfr_clears (am, gm, want, (mpfr_ptr) 0);
}
END_TEST

/* Geometric means far from 1, against closed forms: (2^313 * 2^-1)^{1/2}
 * = 2^156 exactly; (2^-900 2^-504)^{1/2} = 2^-702; (3 2^-679)^{1/2} =
 * sqrt(3) 2^-339.5 (mpfr_sqrt).  e^{(1/n) sum log x} erred by 7.7e-15
 * relative for the first (the argument 108 rounded). */
START_TEST (test_gmpo_example_far)
{
  double x1[2] = { 0x1p+313, 0x1p-1 }, x2[2] = { 0x1p-900, 0x1p-504 };
  double x3[2] = { 0x1p-679, 3 }, a, g;
  mpfr_t want;
  mpfr_init2 (want, REF_PREC);
  TU_OK (rlref_grpo_means_d (&a, &g, x1, 2));
  TU_ASSERT_REL (g, 0x1p+156, TU_TOL0);
  TU_OK (rlref_grpo_means_d (&a, &g, x2, 2));
  TU_ASSERT_REL (g, 0x1p-702, TU_TOL0);
  TU_OK (rlref_grpo_means_d (&a, &g, x3, 2));
  mpfr_set_d (want, 0x1p-679 * 3, MPFR_RNDN);
  mpfr_sqrt (want, want, MPFR_RNDN);
  TU_ASSERT_REL (g, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
  mpfr_clear (want);
}
END_TEST

/* CONVENTIONS.md: log-ratios [0.3, -0.1] -> s = e^{0.1} (the mean of the
 * exact doubles); inside the clip range the gradient is -A s/(G n). */
START_TEST (test_gspo_detector)
{
  double lp[2] = { 0.3, -0.1 }, old[2] = { 0, 0 }, adv = 1, el = 3e-4, eh = 4e-4, loss, s, g[2];
  double wide = 0.5;
  long lens[1] = { 2 }, mask[2] = { 1, 1 };
  mpfr_ptr lpm = mpv (lp, 2), oldm = mpv (old, 2), advm = mpv (&adv, 1), gm = tu_mp_vec_new (2, PREC),
    sm = tu_mp_vec_new (1, PREC);
  mpfr_t EL, EH, lm, want;
  mps (EL, el);
  mps (EH, wide);
  mpfr_init2 (lm, PREC);
  mpfr_init2 (want, REF_PREC);
  mpfr_set_d (want, 0.3, MPFR_RNDN);
  mpfr_add_d (want, want, -0.1, MPFR_RNDN);
  mpfr_div_2ui (want, want, 1, MPFR_RNDN);
  mpfr_exp (want, want, MPFR_RNDN);
  TU_OK (rlref_grpo_gspo_d (&loss, &s, g, lp, old, &adv, lens, 1, mask, 2, 0.0, &el, &eh));
  TU_ASSERT_REL (s, mpfr_get_d (want, MPFR_RNDN), TU_TOL0);
  ck_assert_msg (fabs (s - 1.105170918) < 1e-9, "s %.17g", s);
  /* clipped at 1 + 4e-4 (A > 0): loss -(1 + 4e-4), no gradient */
  TU_ASSERT_REL (loss, -(1 + eh), TU_TOL0);
  ck_assert (g[0] == 0 && g[1] == 0);
  /* eps_high 0.5: inside; loss -s, grad -s/2 per token */
  TU_OK (rlref_grpo_gspo_mp (lm, sm, gm, lpm, oldm, advm, lens, 1, mask, 2, 0.0, EL, EH));
  TU_ASSERT_MP_AGREE (sm, want, 70);
  mpfr_neg (want, want, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (lm, want, 70);
  mpfr_div_2ui (want, want, 1, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (gm, want, 70);
  TU_ASSERT_MP_AGREE (gm + 1, want, 70);
  tu_mp_vec_free (lpm, 2);
  tu_mp_vec_free (oldm, 2);
  tu_mp_vec_free (advm, 1);
  tu_mp_vec_free (gm, 2);
  tu_mp_vec_free (sm, 1);
  mpfr_clears (EL, EH, lm, want, (mpfr_ptr) 0);
}
END_TEST

/* verl's cap: a mean log-ratio of 20 gives s = e^10 and no gradient; the
 * uncapped form e^20. */
START_TEST (test_gspo_cap)
{
  double lp[3] = { 25, 15, -1 }, old[3] = { 0, 0, -1 }, adv[2] = { -1, 0.5 }, el = 3e-4,
    eh = 4e-4, loss, s[2], g[3];
  long lens[2] = { 2, 1 }, mask[3] = { 1, 1, 1 };
  TU_OK (rlref_grpo_gspo_d (&loss, s, g, lp, old, adv, lens, 2, mask, 3, 0.0, &el, &eh));
  TU_ASSERT_REL (s[0], exp (20.0), TU_TOL0);
  TU_ASSERT_REL (g[0], exp (20.0) / 4, TU_TOL0);        /* -(1/G) A s / n, A = -1 */
  TU_OK (rlref_grpo_gspo_d (&loss, s, g, lp, old, adv, lens, 2, mask, 3, RLREF_GSPO_VERL_CAP,
                            &el, &eh));
  TU_ASSERT_REL (s[0], exp (10.0), TU_TOL0);
  ck_assert (g[0] == 0 && g[1] == 0);
  /* -(1/2)(min(-e^10, -(1 + 4e-4)) + 0.5): the second sequence has s = 1 */
  TU_ASSERT_REL (loss, -0.5 * (-exp (10.0) + 0.5), TU_TOL1);
  /* a sum of log-ratios beyond the range whose mean is not: -DBL_MAX and
   * -2^1012 over two tokens, mean -(DBL_MAX + 2^1012)/2, s = 0 (it was
   * ENAN, the mean -inf) */
  {
    double lp2[2] = { -1, -0x1p+1012 }, old2[2] = { DBL_MAX, -1 }, a2 = 1;
    long l2[1] = { 2 }, m2[2] = { 1, 1 };
    TU_OK (rlref_grpo_gspo_d (&loss, s, g, lp2, old2, &a2, l2, 1, m2, 2, 0.0, &el, &eh));
    TU_ASSERT_SAME (s[0], 0.0);
  }
}
END_TEST

/* ===== GRPO-OBJ =========================================================== */

/* The reference objective of a case, at REF_PREC, from the definitions:
 * s_t = min(rho A, clip(rho) A), k3_t = e^-k - 1 + k. */
typedef struct
{
  const double *lp, *old, *ref, *adv;
  const long *lens;
  size_t G, n;
  double el, eh, beta;
  enum rlref_grpo_obj_kind kind;
} obj_case;

static void
ref_obj (mpfr_ptr J, const obj_case *c)
{
  mpfr_t rho, s, k, t, lo, hi, acc, kacc, seq, kseq;
  size_t N = 0, u = 0;
  mpfr_inits2 (REF_PREC, rho, s, k, t, lo, hi, acc, kacc, seq, kseq, (mpfr_ptr) 0);
  mpfr_set_zero (acc, 1);
  mpfr_set_zero (kacc, 1);
  mpfr_set_d (lo, 1, MPFR_RNDN);
  mpfr_sub_d (lo, lo, c->el, MPFR_RNDN);
  mpfr_set_d (hi, 1, MPFR_RNDN);
  mpfr_add_d (hi, hi, c->eh, MPFR_RNDN);
  for (size_t i = 0; i < c->G; i++)
    N += (size_t) c->lens[i];
  for (size_t i = 0; i < c->G; i++)
    {
      mpfr_set_zero (seq, 1);
      mpfr_set_zero (kseq, 1);
      for (long j = 0; j < c->lens[i]; j++, u++)
        {
          mpfr_set_d (t, c->lp[u], MPFR_RNDN);
          mpfr_sub_d (t, t, c->old[u], MPFR_RNDN);
          mpfr_exp (rho, t, MPFR_RNDN);
          mpfr_mul_d (s, rho, c->adv[i], MPFR_RNDN);
          mpfr_max (t, rho, lo, MPFR_RNDN);
          mpfr_min (t, t, hi, MPFR_RNDN);
          mpfr_mul_d (t, t, c->adv[i], MPFR_RNDN);
          mpfr_min (s, s, t, MPFR_RNDN);
          mpfr_set_d (t, c->lp[u], MPFR_RNDN);
          mpfr_sub_d (t, t, c->ref[u], MPFR_RNDN);     /* k */
          mpfr_neg (k, t, MPFR_RNDN);
          mpfr_exp (k, k, MPFR_RNDN);
          mpfr_sub_ui (k, k, 1, MPFR_RNDN);
          mpfr_add (k, k, t, MPFR_RNDN);
          mpfr_add (seq, seq, s, MPFR_RNDN);
          mpfr_add (kseq, kseq, k, MPFR_RNDN);
        }
      mpfr_div_ui (seq, seq, (unsigned long) (c->G * (size_t) c->lens[i]), MPFR_RNDN);
      mpfr_add (acc, acc, seq, MPFR_RNDN);
      if (c->kind == RLREF_GRPO_OBJ_KL_INSIDE)
        mpfr_div_ui (kseq, kseq, (unsigned long) (c->G * (size_t) c->lens[i]), MPFR_RNDN);
      else
        mpfr_div_ui (kseq, kseq, (unsigned long) N, MPFR_RNDN);
      mpfr_add (kacc, kacc, kseq, MPFR_RNDN);
    }
  mpfr_mul_d (kacc, kacc, c->beta, MPFR_RNDN);
  mpfr_sub (J, acc, kacc, MPFR_RNDN);
  mpfr_clears (rho, s, k, t, lo, hi, acc, kacc, seq, kseq, (mpfr_ptr) 0);
}

/* The MPFR loss with logp = L (for central differences). */
typedef struct
{
  const obj_case *c;
  mpfr_ptr L;
} obj_fd;

static void
obj_loss_mp (mpfr_ptr out, void *ctx)
{
  const obj_fd *f = ctx;
  const obj_case *c = f->c;
  mpfr_ptr O = mpv (c->old, c->n), R = mpv (c->ref, c->n), A = mpv (c->adv, c->G);
  mpfr_t EL, EH, B;
  mps (EL, c->el);
  mps (EH, c->eh);
  mps (B, c->beta);
  TU_OK (rlref_grpo_obj_mp (out, NULL, NULL, f->L, O, R, A, c->lens, c->G, NULL, c->n, c->kind,
                            EL, EH, B));
  tu_mp_vec_free (O, c->n);
  tu_mp_vec_free (R, c->n);
  tu_mp_vec_free (A, c->G);
  mpfr_clears (EL, EH, B, (mpfr_ptr) 0);
}

static void
central (mpfr_ptr d, mpfr_ptr x, void (*f) (mpfr_ptr, void *), void *ctx)
{
  mpfr_t x0, h, up, dn;
  mpfr_inits2 (PREC, x0, h, up, dn, (mpfr_ptr) 0);
  mpfr_set (x0, x, MPFR_RNDN);
  mpfr_set_si_2exp (h, 1, -90, MPFR_RNDN);
  mpfr_add (x, x0, h, MPFR_RNDN);
  f (up, ctx);
  mpfr_sub (x, x0, h, MPFR_RNDN);
  f (dn, ctx);
  mpfr_set (x, x0, MPFR_RNDN);
  mpfr_sub (d, up, dn, MPFR_RNDN);
  mpfr_mul_2si (d, d, 89, MPFR_RNDN);
  mpfr_clears (x0, h, up, dn, (mpfr_ptr) 0);
}

/* Both KL placements on three sequences (clipped above, below, not at
 * all): the loss against the definitions at 512 bits (70 digits in MPFR,
 * binary64 within 16 u), the KL term of 000 (the token mean over the group)
 * against that of 003 (the mean of per-sequence means), and every
 * gradient against central differences. */
START_TEST (test_obj_placements)
{
  static const double lp[6] = { -1, -0.3, -2, -0.9, 0.5, -0.125 },
    old[6] = { -1.25, -0.625, -1.5, -2.25, 0.375, -0.5 },
    ref[6] = { -0.875, -0.5, -2.125, -1, 0.25, -0.25 }, adv[3] = { 0.75, -0.8, 1.5 };
  static const long lens[3] = { 2, 3, 1 };
  static const enum rlref_grpo_obj_kind kinds[2] = { RLREF_GRPO_OBJ_KL_OUTSIDE,
                                                     RLREF_GRPO_OBJ_KL_INSIDE };
  double kl[2];
  for (int q = 0; q < 2; q++)
    {
      obj_case c = { lp, old, ref, adv, lens, 3, 6, 0.2, 0.2, 0.5, kinds[q] };
      double loss, g[6];
      mpfr_ptr L = mpv (lp, 6), gm = tu_mp_vec_new (6, PREC);
      mpfr_t lm, km, want, d;
      obj_fd f = { &c, L };
      mpfr_inits2 (PREC, lm, km, d, (mpfr_ptr) 0);
      mpfr_init2 (want, REF_PREC);
      TU_OK (rlref_grpo_obj_d (&loss, &kl[q], g, lp, old, ref, adv, lens, 3, NULL, 6, kinds[q],
                               &c.el, &c.eh, &c.beta));
      obj_loss_mp (lm, &f);
      ref_obj (want, &c);
      mpfr_neg (want, want, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (lm, want, 70);
      TU_ASSERT_REL (loss, mpfr_get_d (want, MPFR_RNDN), TU_TOL1);
      {
        mpfr_ptr O = mpv (old, 6), R = mpv (ref, 6), A = mpv (adv, 3);
        mpfr_t EL, EH, B;
        mps (EL, 0.2);
        mps (EH, 0.2);
        mps (B, 0.5);
        TU_OK (rlref_grpo_obj_mp (lm, km, gm, L, O, R, A, lens, 3, NULL, 6, kinds[q], EL, EH, B));
        TU_ASSERT_REL (kl[q], mpfr_get_d (km, MPFR_RNDN), TU_TOL1);
        tu_mp_vec_free (O, 6);
        tu_mp_vec_free (R, 6);
        tu_mp_vec_free (A, 3);
        mpfr_clears (EL, EH, B, (mpfr_ptr) 0);
      }
      for (int j = 0; j < 6; j++)
        {
          central (d, L + j, obj_loss_mp, &f);
          TU_ASSERT_MP_AGREE (gm + j, d, 40);
          TU_ASSERT_REL (g[j], mpfr_get_d (d, MPFR_RNDN), TU_TOL1);
        }
      /* tokens 0, 1, 2, 5 are clipped: only the KL term moves them */
      tu_mp_vec_free (L, 6);
      tu_mp_vec_free (gm, 6);
      mpfr_clears (lm, km, want, d, (mpfr_ptr) 0);
    }
  ck_assert_msg (kl[0] != kl[1], "the two placements give the same KL term %.17g", kl[0]);
}
END_TEST

/* CISPO: rho = e^3 with A = 1: TRL's weight min(rho, 5) = 5, verl's clip
 * 1.2; the gradient -c A/N (beta 0), the value -c A logp/N. */
START_TEST (test_obj_cispo)
{
  double lp[2] = { 3, -1 }, old[2] = { 0, -1 }, ref[2] = { 2, -1 }, adv[2] = { 1, -1 };
  double el = 0.2, eh5 = 5, eh = 0.2, beta = 0, loss, kl, g[2];
  long lens[2] = { 1, 1 };
  TU_OK (rlref_grpo_obj_d (&loss, &kl, g, lp, old, ref, adv, lens, 2, NULL, 2,
                           RLREF_GRPO_OBJ_CISPO_TRL, NULL, &eh5, &beta));
  TU_ASSERT_REL (g[0], -5.0 / 2, TU_TOL0);
  TU_ASSERT_REL (g[1], 1.0 / 2, TU_TOL0);        /* rho = 1, A = -1 */
  TU_ASSERT_REL (loss, -(5.0 * 3 + 1.0 * -1 * -1) / 2, TU_TOL0);
  TU_OK (rlref_grpo_obj_d (&loss, &kl, g, lp, old, ref, adv, lens, 2, NULL, 2,
                           RLREF_GRPO_OBJ_CISPO_VERL, &el, &eh, &beta));
  TU_ASSERT_REL (g[0], -1.2 / 2, TU_TOL0);
  /* the KL term: (k3(1) + k3(0))/2 = e^-1/2 */
  TU_ASSERT_REL (kl, exp (-1.0) / 2, TU_TOL1);
}
END_TEST

/* A log-ratio to the reference of 1e-10: k3 ~ 5e-21, kept. */
START_TEST (test_obj_k3_small)
{
  double lp[1] = { -1.0000000001 }, old[1] = { -1.0000000001 }, ref[1] = { -1 }, adv[1] = { 1 };
  double el = 0.2, eh = 0.2, beta = 1, loss, kl, g;
  long lens[1] = { 1 };
  double k = lp[0] - ref[0];
  TU_OK (rlref_grpo_obj_d (&loss, &kl, &g, lp, old, ref, adv, lens, 1, NULL, 1,
                           RLREF_GRPO_OBJ_KL_OUTSIDE, &el, &eh, &beta));
  TU_ASSERT_REL (kl, k * k / 2 * (1 - k / 3), TU_TOL1);
  TU_ASSERT_REL (loss, -1 + kl, TU_TOL0);
}
END_TEST

/* ===== GRPO-DR ============================================================ */

/* A short wrong answer (1 token) and a long right one (3 tokens), all
 * on-policy (rho = 1, so s_t = A_i): 000 sums each sequence's tokens over
 * G, 003 averages over the N = 4 tokens with A = +-1/sqrt(1/2) (ddof 1),
 * TRL divides by G L_const. */
START_TEST (test_dr_readings)
{
  double lp[4] = { -0.5, -1.5, -0.25, -1 }, r[2] = { 0, 1 }, el = 0.2, eh = 0.2, lc = 512;
  double loss, adv[2], g[4];
  long lens[2] = { 1, 3 };
  TU_OK (rlref_grpo_dr_d (&loss, adv, g, lp, lp, r, lens, 2, NULL, 4, RLREF_DR_NO_NORM, &el,
                          &eh, &lc));
  ck_assert (adv[0] == -0.5 && adv[1] == 0.5);
  TU_ASSERT_REL (loss, -(-0.5 + 3 * 0.5) / 2, TU_TOL0);
  TU_ASSERT_REL (g[0], 0.5 / 2, TU_TOL0);
  TU_OK (rlref_grpo_dr_d (&loss, adv, g, lp, lp, r, lens, 2, NULL, 4,
                          RLREF_DR_GROUP_MEAN_LENGTH, &el, &eh, &lc));
  TU_ASSERT_REL (adv[1], sqrt (0.5), TU_TOL0);
  TU_ASSERT_REL (loss, -(-sqrt (0.5) + 3 * sqrt (0.5)) / 4, TU_TOL0);
  TU_ASSERT_REL (g[1], -sqrt (0.5) / 4, TU_TOL0);
  TU_OK (rlref_grpo_dr_d (&loss, adv, g, lp, lp, r, lens, 2, NULL, 4, RLREF_DR_CONST_LENGTH,
                          &el, &eh, &lc));
  TU_ASSERT_REL (loss, -(-0.5 + 1.5) / 1024, TU_TOL0);
  TU_ASSERT_REL (g[3], -0.5 / 1024, TU_TOL0);
  /* equal rewards: every advantage 0 */
  r[0] = r[1] = 1;
  TU_OK (rlref_grpo_dr_d (&loss, adv, g, lp, lp, r, lens, 2, NULL, 4,
                          RLREF_DR_GROUP_MEAN_LENGTH, &el, &eh, &lc));
  ck_assert (loss == 0 && adv[0] == 0 && g[2] == 0 && !signbit (loss));
}
END_TEST

/* Dr. GRPO's constant length L_const = DBL_MAX: G L_const overflows, so
 * the weight 1/(G L_const) was 0 (loss 0 for -1/(2 DBL_MAX) = -2.8e-309);
 * within two subnormal steps. */
START_TEST (test_dr_const_length_range)
{
  double lp[4] = { -0.5, -1.5, -0.25, -1 }, r[2] = { 0, 1 }, el = 0.2, eh = 0.2, lc = DBL_MAX;
  double loss, adv[2], g[4], m = DBL_MAX / 0x1p1023;
  long lens[2] = { 1, 3 };
  TU_OK (rlref_grpo_dr_d (&loss, adv, g, lp, lp, r, lens, 2, NULL, 4, RLREF_DR_CONST_LENGTH,
                          &el, &eh, &lc));
  TU_ASSERT_ABS (loss, -ldexp (1 / m / 2, -1023), 0x1p-1073);
  TU_ASSERT_ABS (g[3], -ldexp (0.5 / m / 2, -1023), 0x1p-1073);
  ck_assert (loss < 0 && g[0] > 0);
}
END_TEST

/* ===== GRPO-GMPO ========================================================== */

/* A > 0 clips l = 1 to 0.4, A < 0 clips -1 to -0.4: ratio e^{(0.4 + 0.2)/2}
 * and e^{(-0.4 - 0.2)/2}; only the tokens 0.2, -0.2 carry a gradient. */
START_TEST (test_gmpo_clip)
{
  double lp[4] = { 1, 0.2, -1, -0.2 }, old[4] = { 0, 0, 0, 0 }, adv[2] = { 1, -1 };
  double cl = 0.4, ch = 0.4, loss, ratio[2], g[4];
  long lens[2] = { 2, 2 }, mask[4] = { 1, 1, 1, 1 };
  TU_OK (rlref_grpo_gmpo_d (&loss, ratio, g, lp, old, adv, lens, 2, mask, 4, &cl, &ch));
  TU_ASSERT_REL (ratio[0], exp ((0.4 + 0.2) / 2), TU_TOL0);
  TU_ASSERT_REL (ratio[1], exp ((-0.4 - 0.2) / 2), TU_TOL0);
  TU_ASSERT_REL (loss, -(ratio[0] - ratio[1]) / 2, TU_TOL0);
  ck_assert (g[0] == 0 && g[2] == 0);
  TU_ASSERT_REL (g[1], -ratio[0] / 4, TU_TOL0);
  TU_ASSERT_REL (g[3], ratio[1] / 4, TU_TOL0);
}
END_TEST

/* ===== GRPO-GFPO ========================================================== */

START_TEST (test_gfpo)
{
  double r[6] = { 1, 0.5, 1, 0, 0.75, 1 }, keep[6], key[6], mean;
  long lens[6] = { 120, 40, 80, 30, 40, 200 };
  double r3[3] = { 1, 2, 0.5 };
  long l3[3] = { 10, 20, 5 };
  TU_OK (rlref_grpo_gfpo_d (keep, key, &mean, r, lens, 6, 3, RLREF_GFPO_SHORTEST));
  ck_assert (keep[0] == 0 && keep[1] == 1 && keep[2] == 0 && keep[3] == 1 && keep[4] == 1
             && keep[5] == 0);
  TU_ASSERT_REL (mean, 1.25 / 3, TU_TOL0);
  /* r/|o|: 1/120, 1/80, 1/80, 0, 3/160, 1/200: keep 4, then the tie 1 (40) before 2 (80) */
  TU_OK (rlref_grpo_gfpo_d (keep, key, &mean, r, lens, 6, 2, RLREF_GFPO_TOKEN_EFFICIENCY));
  ck_assert (keep[4] == 1 && keep[1] == 1 && keep[2] == 0);
  TU_ASSERT_REL (key[4], 0.75 / 40, TU_TOL0);
  /* three ties at 0.1: the shortest two (5 and 10) */
  TU_OK (rlref_grpo_gfpo_d (keep, key, &mean, r3, l3, 3, 2, RLREF_GFPO_TOKEN_EFFICIENCY));
  ck_assert (keep[0] == 1 && keep[1] == 0 && keep[2] == 1);
  TU_ASSERT_STATUS (rlref_grpo_gfpo_d (keep, key, &mean, r3, l3, 3, 0, RLREF_GFPO_SHORTEST),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_grpo_gfpo_d (keep, key, &mean, r3, l3, 3, 4, RLREF_GFPO_SHORTEST),
                    RLREF_EDOM);
  l3[1] = 0;
  TU_ASSERT_STATUS (rlref_grpo_gfpo_d (keep, key, &mean, r3, l3, 3, 1, RLREF_GFPO_SHORTEST),
                    RLREF_EINVAL);
}
END_TEST

/* ===== bad input ========================================================== */

/* Refusals with their status.  A mask entry other than 0 and 1, a
 * sequence without a token in the mask and one of length 0 are golden
 * cases of GRPO-OBJ: the generic test, and the goldens' statuses, fail
 * when their checks go. */
START_TEST (test_bad_inputs)
{
  double lp[3] = { -1, -2, -3 }, old[3] = { -1, -2, -3 }, ref[3] = { -1, -2, -3 },
    adv[2] = { 1, -1 }, el = 0.2, eh = 0.2, beta = 0.04, loss, g[3];
  double bad = -0.1, one = 1, nan_lp[3] = { -1, NAN, -3 }, inf_lp[3] = { -1, -2, INFINITY };
  long lens[2] = { 1, 2 }, mask[3] = { 1, 1, 1 }, mask0[3] = { 1, 0, 0 };
  long lens0[2] = { 3, 0 }, lens4[2] = { 2, 2 };
  mpfr_ptr L = mpv (lp, 3), A = mpv (adv, 2);
  mpfr_t lm, EL, EH, B, NEG;
  mpfr_init2 (lm, PREC);
  mps (EL, el);
  mps (EH, eh);
  mps (B, beta);
  mps (NEG, -0.1);
#define OBJ_D(lpx, lensx, maskx, elx, ehx, bx)                                \
  rlref_grpo_obj_d (&loss, NULL, g, lpx, old, ref, adv, lensx, 2, maskx, 3,     \
                    RLREF_GRPO_OBJ_KL_INSIDE, elx, ehx, bx)
  TU_OK (OBJ_D (lp, lens, mask, &el, &eh, &beta));
  TU_ASSERT_STATUS (OBJ_D (lp, lens4, mask, &el, &eh, &beta), RLREF_EINVAL);
  TU_ASSERT_STATUS (OBJ_D (nan_lp, lens, mask, &el, &eh, &beta), RLREF_ENAN);
  TU_ASSERT_STATUS (OBJ_D (inf_lp, lens, mask, &el, &eh, &beta), RLREF_ENAN);
  TU_ASSERT_STATUS (OBJ_D (lp, lens, mask, &bad, &eh, &beta), RLREF_EDOM);
  TU_ASSERT_STATUS (OBJ_D (lp, lens, mask, &one, &eh, &beta), RLREF_EDOM);
  TU_ASSERT_STATUS (OBJ_D (lp, lens, mask, &el, &bad, &beta), RLREF_EDOM);
  TU_ASSERT_STATUS (OBJ_D (lp, lens, mask, &el, &eh, &bad), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_grpo_obj_d (&loss, NULL, g, lp, old, ref, adv, lens, 2, mask, 0,
                                      RLREF_GRPO_OBJ_KL_INSIDE, &el, &eh, &beta), RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_grpo_gspo_mp (lm, NULL, NULL, L, L, A, lens, 2, mask, 3, 0.0, NEG, EH),
                    RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_grpo_gmpo_mp (lm, NULL, NULL, L, L, A, lens0, 2, mask, 3, EL, EH),
                    RLREF_EINVAL);
  TU_ASSERT_STATUS (rlref_grpo_dr_d (&loss, NULL, NULL, lp, old, adv, lens, 2, mask0, 3,
                                     RLREF_DR_NO_NORM, &el, &eh, NULL), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_grpo_dr_d (&loss, NULL, NULL, lp, old, adv, lens, 2, mask, 3,
                                     RLREF_DR_CONST_LENGTH, &el, &eh, &bad), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_grpo_agg_d (&loss, g, lp, lens, 2, mask, 3,
                                      RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM, &bad, 1), RLREF_EDOM);
  TU_ASSERT_STATUS (rlref_grpo_agg_d (&loss, g, nan_lp, lens, 2, mask, 3, RLREF_AGG_TOKEN_MEAN,
                                      NULL, 1), RLREF_ENAN);
#undef OBJ_D
  tu_mp_vec_free (L, 3);
  tu_mp_vec_free (A, 2);
  mpfr_clears (lm, EL, EH, B, NEG, (mpfr_ptr) 0);
}
END_TEST

/* ===== the libraries' conventions (rlref/grpoobj.h) ===================== */

/* GRPO-AGG with an empty sequence: L = [0.5, -1.25 | 2, 0.75, 3 | -0.5],
 * the second without a token (mask 1,1,0,0,0,1): seq-mean-token-mean over
 * every sequence (verl's trainer, TRL) (0.5 - 1.25)/2/3 + (-0.5)/3 =
 * -0.2916..., over the two with a token (OpenRLHF) -0.4375; the token mean
 * -1.25/3; a sequence of length 0 (lens 2,4,0) the same as one without a
 * token; the padded width T = 4: sum / (3 * 4).  Micro-batches of two of
 * [[2], [1, 1, 1], [0.5, -1], [3, 4, 4]] with the global token count give
 * the batch's token mean 15.5/9 (and 1.25 on the detector with micro 1),
 * the local one 1.675. */
START_TEST (test_agg_conventions)
{
  static const rlref_grpo_agg_convention smtm = { RLREF_AGG_SEQ_MEAN_TOKEN_MEAN,
                                                  RLREF_AGG_WHOLE, 0 };
  static const rlref_grpo_agg_convention smtm_ne = { RLREF_AGG_SEQ_MEAN_TOKEN_MEAN,
                                                     RLREF_AGG_WHOLE, 1 };
  static const rlref_grpo_agg_convention tm = { RLREF_AGG_TOKEN_MEAN, RLREF_AGG_WHOLE, 0 };
  static const rlref_grpo_agg_convention width = { RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH,
                                                   RLREF_AGG_WHOLE, 0 };
  static const rlref_grpo_agg_convention global = { RLREF_AGG_TOKEN_MEAN, RLREF_AGG_MICRO_GLOBAL,
                                                    0 };
  static const rlref_grpo_agg_convention local = { RLREF_AGG_TOKEN_MEAN, RLREF_AGG_MICRO_LOCAL,
                                                   0 };
  double L[6] = { 0.5, -1.25, 2, 0.75, 3, -0.5 }, v, w[6];
  long lens[3] = { 2, 3, 1 }, mask[6] = { 1, 1, 0, 0, 0, 1 };
  long lens0[3] = { 2, 4, 0 }, ones[6] = { 1, 1, 1, 1, 1, 1 };
  double L9[9] = { 2, 1, 1, 1, 0.5, -1, 3, 4, 4 }, w9[9], D[4] = { 2, 1, 1, 1 }, wd[4];
  long lens9[4] = { 1, 3, 2, 3 }, mask9[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  long lensd[2] = { 1, 3 }, maskd[4] = { 1, 1, 1, 1 };
  mpfr_ptr Lm = mpv (L, 6), wm = tu_mp_vec_new (6, PREC);
  mpfr_t vm;
  mpfr_init2 (vm, PREC);
  TU_OK (rlref_grpo_agg_conv_d (&v, w, L, lens, 3, mask, 6, &smtm, NULL, 1));
  TU_ASSERT_REL (v, -0.375 / 3 - 0.5 / 3, TU_TOL0);
  ck_assert (w[2] == 0 && w[3] == 0 && w[4] == 0);
  TU_ASSERT_REL (w[0], 1.0 / 6, TU_TOL0);
  TU_OK (rlref_grpo_agg_conv_mp (vm, wm, Lm, lens, 3, mask, 6, &smtm, NULL, 1));
  TU_ASSERT_REL (mpfr_get_d (vm, MPFR_RNDN), -0.875 / 3, TU_TOL0);
  TU_OK (rlref_grpo_agg_conv_d (&v, w, L, lens, 3, mask, 6, &smtm_ne, NULL, 1));
  TU_ASSERT_REL (v, -0.4375, TU_TOL0);
  TU_ASSERT_REL (w[5], 0.5, TU_TOL0);
  TU_OK (rlref_grpo_agg_conv_d (&v, w, L, lens, 3, mask, 6, &tm, NULL, 1));
  TU_ASSERT_REL (v, -1.25 / 3, TU_TOL0);
  /* a sequence of length 0: [0.5, -1.25 | 2, 0.75, 3, -0.5 | ] */
  TU_OK (rlref_grpo_agg_conv_d (&v, w, L, lens0, 3, ones, 6, &smtm, NULL, 1));
  TU_ASSERT_REL (v, (-0.375 + 5.25 / 4) / 3, TU_TOL0);
  TU_OK (rlref_grpo_agg_conv_d (&v, w, L, lens0, 3, ones, 6, &smtm_ne, NULL, 1));
  TU_ASSERT_REL (v, (-0.375 + 5.25 / 4) / 2, TU_TOL0);
  TU_OK (rlref_grpo_agg_conv_d (&v, w, L, lens0, 3, ones, 6, &width, NULL, 1));
  TU_ASSERT_REL (v, 4.5 / 12, TU_TOL0);
  TU_ASSERT_REL (w[0], 1.0 / 12, TU_TOL0);
  /* micro-batches */
  TU_OK (rlref_grpo_agg_conv_d (&v, w9, L9, lens9, 4, mask9, 9, &global, NULL, 2));
  TU_ASSERT_REL (v, 15.5 / 9, TU_TOL0);
  TU_OK (rlref_grpo_agg_conv_d (&v, w9, L9, lens9, 4, mask9, 9, &local, NULL, 2));
  TU_ASSERT_REL (v, 1.675, TU_TOL0);
  TU_OK (rlref_grpo_agg_conv_d (&v, wd, D, lensd, 2, maskd, 4, &global, NULL, 1));
  ck_assert (v == 1.25);
  TU_ASSERT_STATUS (rlref_grpo_agg_conv_d (&v, w9, L9, lens9, 4, mask9, 9, &global, NULL, 3),
                    RLREF_EDOM);
  /* no token at all, a negative length */
  {
    long none[6] = { 0, 0, 0, 0, 0, 0 }, neg[3] = { 2, 5, -1 };
    TU_ASSERT_STATUS (rlref_grpo_agg_conv_d (&v, w, L, lens, 3, none, 6, &tm, NULL, 1),
                      RLREF_EDOM);
    TU_ASSERT_STATUS (rlref_grpo_agg_conv_d (&v, w, L, neg, 3, ones, 6, &tm, NULL, 1),
                      RLREF_EINVAL);
  }
  tu_mp_vec_free (Lm, 6);
  tu_mp_vec_free (wm, 6);
  mpfr_clear (vm);
}
END_TEST

/* GRPO-OBJ under verl's and OpenRLHF's conventions, one token each:
 * logp - old = ln 4 (rho = 4 > 3), A = -1: the clipped term s = min(-4, -0.8)
 * = -4; verl's dual clip raises it to 3 A = -3 (no gradient), OpenRLHF keeps
 * -4 (gradient 4 rho A... d(-s)/dl = 4); k = logp - ref = 13: k3 = e^-13 +
 * 12 capped at 10 with no gradient; with the k2 gradient (verl's k3+) the KL
 * part's gradient is beta k = 13 beta.  Both token means over one token. */
START_TEST (test_obj_conventions)
{
  static const rlref_grpo_obj_convention verl = {
    RLREF_GRPO_OBJ_KL_INSIDE, RLREF_AGG_TOKEN_MEAN, RLREF_AGG_TOKEN_MEAN, 1, 1, 3.0,
    RLREF_GRPO_KL_K3_CAP };
  static const rlref_grpo_obj_convention orl = {
    RLREF_GRPO_OBJ_KL_INSIDE, RLREF_AGG_TOKEN_MEAN, RLREF_AGG_TOKEN_MEAN, 1, 0, 3.0,
    RLREF_GRPO_KL_K3_CAP };
  static const rlref_grpo_obj_convention k3p = {
    RLREF_GRPO_OBJ_KL_INSIDE, RLREF_AGG_TOKEN_MEAN, RLREF_AGG_TOKEN_MEAN, 1, 1, 3.0,
    RLREF_GRPO_KL_K3_CAP_K2_GRAD };
  static const rlref_grpo_obj_convention trl = {
    RLREF_GRPO_OBJ_KL_INSIDE, RLREF_AGG_SEQ_MEAN_TOKEN_MEAN, RLREF_AGG_TOKEN_MEAN, 0, 0, 3.0,
    RLREF_GRPO_KL_K3 };
  double lp[1] = { -1 }, old[1], ref[1] = { -14 }, adv[1] = { -1 }, el = 0.2, eh = 0.2,
    beta = 0.04, loss, kl, g;
  long lens[1] = { 1 }, mask[1] = { 1 };
  mpfr_ptr lpm = mpv (lp, 1), oldm, refm = mpv (ref, 1), advm = mpv (adv, 1), gm;
  mpfr_t lossm, klm, ELm, EHm, Bm;
  old[0] = -1 - log (4.0);
  oldm = mpv (old, 1);
  gm = tu_mp_vec_new (1, PREC);
  mpfr_inits2 (PREC, lossm, klm, (mpfr_ptr) 0);
  mps (ELm, el);
  mps (EHm, eh);
  mps (Bm, beta);
  TU_OK (rlref_grpo_obj_conv_d (&loss, &kl, &g, lp, old, ref, adv, lens, 1, mask, 1, &verl, &el,
                                &eh, &beta));
  ck_assert (kl == 10.0);
  TU_ASSERT_REL (loss, 3.0 + beta * 10, TU_TOL1);
  ck_assert (g == 0.0);
  TU_OK (rlref_grpo_obj_conv_mp (lossm, klm, gm, lpm, oldm, refm, advm, lens, 1, mask, 1, &verl,
                                 ELm, EHm, Bm));
  ck_assert (mpfr_cmp_d (klm, 10.0) == 0 && mpfr_zero_p (gm));
  TU_OK (rlref_grpo_obj_conv_d (&loss, &kl, &g, lp, old, ref, adv, lens, 1, mask, 1, &orl, &el,
                                &eh, &beta));
  TU_ASSERT_REL (loss, 4.0 + beta * 10, TU_TOL1);
  TU_ASSERT_REL (g, 4.0, TU_TOL1);
  TU_OK (rlref_grpo_obj_conv_d (&loss, &kl, &g, lp, old, ref, adv, lens, 1, mask, 1, &k3p, &el,
                                &eh, &beta));
  TU_ASSERT_REL (loss, 3.0 + beta * 10, TU_TOL1);
  TU_ASSERT_REL (g, beta * 13, TU_TOL1);
  TU_OK (rlref_grpo_obj_conv_d (&loss, &kl, &g, lp, old, ref, adv, lens, 1, mask, 1, &trl, &el,
                                &eh, &beta));
  TU_ASSERT_REL (kl, 12.0 + exp (-13.0), TU_TOL1);
  tu_mp_vec_free (lpm, 1);
  tu_mp_vec_free (oldm, 1);
  tu_mp_vec_free (refm, 1);
  tu_mp_vec_free (advm, 1);
  tu_mp_vec_free (gm, 1);
  mpfr_clears (lossm, klm, ELm, EHm, Bm, (mpfr_ptr) 0);
}
END_TEST

/* GRPO-DR: OpenRLHF clips r - mean = [15, -10, -5] to [10, -10, -5] and
 * refuses a group of one; verl keeps A = r for a group of one and divides
 * by G T (T = 2, the padded width) with verl-width. */
START_TEST (test_dr_conventions)
{
  static const rlref_grpo_dr_convention orl = {
    RLREF_DR_ADV_CENTRED, RLREF_AGG_TOKEN_MEAN, 1, 0, 3.0, RLREF_DR_SINGLE_REFUSE, 10.0 };
  static const rlref_grpo_dr_convention vw = {
    RLREF_DR_ADV_CENTRED, RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH, 1, 1, 3.0,
    RLREF_DR_SINGLE_RAW, 0.0 };
  double lp[3] = { -1, -2, -0.5 }, r[3] = { 25, 0, 5 }, r1[1] = { 0.75 }, el = 0.2, eh = 0.2;
  double loss, adv[3], g[3];
  long lens[3] = { 1, 1, 1 }, mask[3] = { 1, 1, 1 }, lens1[1] = { 2 }, mask2[2] = { 1, 1 };
  TU_OK (rlref_grpo_dr_conv_d (&loss, adv, g, lp, lp, r, lens, 3, mask, 3, &orl, &el, &eh,
                               NULL));
  ck_assert (adv[0] == 10 && adv[1] == -10 && adv[2] == -5);
  TU_ASSERT_REL (loss, 5.0 / 3, TU_TOL1);          /* -(10 - 10 - 5)/3 at rho = 1 */
  TU_ASSERT_STATUS (rlref_grpo_dr_conv_d (&loss, adv, g, lp, lp, r1, lens1, 1, mask2, 2, &orl,
                                          &el, &eh, NULL), RLREF_EDOM);
  TU_OK (rlref_grpo_dr_conv_d (&loss, adv, g, lp, lp, r1, lens1, 1, mask2, 2, &vw, &el, &eh,
                               NULL));
  ck_assert (adv[0] == 0.75);
  TU_ASSERT_REL (loss, -0.75 * 2 / 2, TU_TOL1);   /* -(2 tokens of 0.75)/(1 x 2) */
}
END_TEST

/* GRPO-GSPO with a sequence without a token (mask 1,1 | 0,0): s = 1 and a
 * zero term; TRL's mean over every row halves the first sequence's term,
 * OpenRLHF's over the rows with a token keeps it. */
START_TEST (test_gspo_empty)
{
  double lp[4] = { 0.3, -0.1, -1, -2 }, old[4] = { 0, 0, -1, -2 }, adv[2] = { 1, -1 };
  double el = 3e-4, eh = 4e-4, loss, s[2], g[4], loss2;
  long lens[2] = { 2, 2 }, mask[4] = { 1, 1, 0, 0 };
  TU_OK (rlref_grpo_gspo_conv_d (&loss, s, g, lp, old, adv, lens, 2, mask, 4, 0.0,
                                 RLREF_GRPO_EMPTY_COUNT, &el, &eh));
  ck_assert (s[1] == 1.0 && g[2] == 0 && g[3] == 0);
  TU_OK (rlref_grpo_gspo_conv_d (&loss2, s, g, lp, old, adv, lens, 2, mask, 4, 0.0,
                                 RLREF_GRPO_EMPTY_SKIP, &el, &eh));
  TU_ASSERT_REL (loss2, 2 * loss, TU_TOL0);
  TU_ASSERT_REL (loss2, -(1 + 4e-4), TU_TOL1);
  TU_ASSERT_STATUS (rlref_grpo_gspo_conv_d (&loss, s, g, lp, old, adv, lens, 2, mask, 4, 0.0,
                                            RLREF_GRPO_EMPTY_REFUSE, &el, &eh), RLREF_EDOM);
}
END_TEST

static Suite *
grpoobj_suite (void)
{
  Suite *s = suite_create ("grpoobj");
  TCase *tc;

  tc = tu_tcase ("aggregate");
  tcase_add_test (tc, test_agg_detector);
  tcase_add_test (tc, test_agg_padding_micro);
  tcase_add_test (tc, test_agg_sum_norm_range);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("sequence");
  tcase_add_test (tc, test_gmpo_example);
  tcase_add_test (tc, test_gmpo_example_far);
  tcase_add_test (tc, test_gspo_detector);
  tcase_add_test (tc, test_gspo_cap);
  tcase_add_test (tc, test_gmpo_clip);
  tcase_add_test (tc, test_gfpo);
  suite_add_tcase (s, tc);

  tc = tu_tcase ("objective");
  tcase_add_test (tc, test_obj_placements);
  tcase_add_test (tc, test_obj_cispo);
  tcase_add_test (tc, test_obj_k3_small);
  tcase_add_test (tc, test_dr_readings);
  tcase_add_test (tc, test_dr_const_length_range);
  tcase_add_test (tc, test_agg_conventions);
  tcase_add_test (tc, test_obj_conventions);
  tcase_add_test (tc, test_dr_conventions);
  tcase_add_test (tc, test_gspo_empty);
  tcase_add_test (tc, test_bad_inputs);
  suite_add_tcase (s, tc);

  return s;
}

TU_MAIN_SEEDED (grpoobj_suite)
