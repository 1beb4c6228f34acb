/* len_12_2_drift.c -- seed 000 sections 12.2-12.3 on the think-then-answer
 * model (rlref/len.h): the exact expected update of a group of G and its
 * length drift (LEN-DRIFT), and the clipped exact-gradient training
 * (ENT-COLLAPSE), checked at 256 bits:
 *   step 1  the rate is linear in the update: d E[|y|] along g = the parts
 *           along g+ (A > 0) and g- (A < 0) added;
 *   step 2  the score function, d/deta E_{theta + eta g}[|y|] = sum_y pi(y)
 *           |y| <grad log pi(y), g>, against the central difference of the
 *           one-step change (E[|y|] at theta +- h g formed from the policy
 *           itself), h = 2^-60: the residual is O(h^2);
 *   step 3  1/(G T) is 1/G scaled by 1/T: every rate in the ratio T;
 *   step 4  on one group 1/sum|y| (13.33) and 1/(G mean |y|) (seed 003) are
 *           the same weights: the same rates;
 *   step 5  T = 1, uniform, G = 2: g = (w -1/9, c 2/9, x -1/9), d E[r] =
 *           p_c (g_c - sum pi g) = 2/27, every length 1: no drift;
 *   step 6  mu = 1: the one inner step is at rho = 1, inside every clip:
 *           symmetric and clip-higher runs agree;
 *   step 7  dynamic sampling (13.30) is, in expectation, the update of the
 *           mixed groups renormalised: one step with lr equals the
 *           symmetric step with lr/P, P = 1 - p^G - (1 - p)^G.
 * Each step prints its residual and its bound; exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

#define ND RLREF_LEN_NDRIFT

static void
drift_steps (const double *th, size_t n, long G, const char *name)
{
  static const rlref_len_norm all[5] = {
    RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, RLREF_LEN_TOKEN_MEAN, RLREF_LEN_SEQ_MEAN_TOKEN_SUM,
    RLREF_LEN_GROUP_MEAN_LENGTH, RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM };
  static const char *names[5] = { "1/(G|y|)", "1/sum|y|", "1/G", "group mean", "1/(G T)" };
  mpfr_ptr L = mp_vec (n), o = mp_vec (ND), o2 = mp_vec (ND), o3 = mp_vec (ND), t = mp_vec (4);
  char label[160];
  mp_vec_set_d (L, th, n);
  printf ("%s: T = %zu, G = %ld\n", name, n / 3, G);
  for (int k = 0; k < 5; k++)
    {
      mpfr_set_ui (t, 1, MPFR_RNDN);
      OK (rlref_len_drift_mp (o, L, n, G, all[k], t));
      mpfr_add (t + 1, o + RLREF_LEN_DLEN_POS, o + RLREF_LEN_DLEN_NEG, MPFR_RNDN);
      snprintf (label, sizeof label, "step 1 [%s]: dlen = dlen_pos + dlen_neg", names[k]);
      step (label, t + 1, o + RLREF_LEN_DLEN, 0, -240);
      /* step 2: (len_step(h) - len_step(-h))/(2h) */
      mpfr_set_ui_2exp (t, 1, -60, MPFR_RNDN);
      OK (rlref_len_drift_mp (o2, L, n, G, all[k], t));
      mpfr_neg (t, t, MPFR_RNDN);
      OK (rlref_len_drift_mp (o3, L, n, G, all[k], t));
      mpfr_sub (t + 1, o2 + RLREF_LEN_STEP, o3 + RLREF_LEN_STEP, MPFR_RNDN);
      mpfr_mul_2si (t + 1, t + 1, 59, MPFR_RNDN);
      snprintf (label, sizeof label, "step 2 [%s]: score function = central difference",
                names[k]);
      step (label, t + 1, o + RLREF_LEN_DLEN, 0, -100);
      printf ("    %-10s dlen %+.6e  dlen_pos %+.6e  dlen_neg %+.6e\n", names[k],
              mpfr_get_d (o + RLREF_LEN_DLEN, MPFR_RNDN),
              mpfr_get_d (o + RLREF_LEN_DLEN_POS, MPFR_RNDN),
              mpfr_get_d (o + RLREF_LEN_DLEN_NEG, MPFR_RNDN));
    }
  /* step 3 */
  mpfr_set_ui (t, 1, MPFR_RNDN);
  OK (rlref_len_drift_mp (o, L, n, G, RLREF_LEN_SEQ_MEAN_TOKEN_SUM, t));
  OK (rlref_len_drift_mp (o2, L, n, G, RLREF_LEN_SEQ_MEAN_TOKEN_SUM_NORM, t));
  for (int k = RLREF_LEN_DLEN; k <= RLREF_LEN_DACC; k++)
    mpfr_mul_ui (o2 + k, o2 + k, n / 3, MPFR_RNDN);
  mp_maxdiff (t + 1, o + RLREF_LEN_DLEN, o2 + RLREF_LEN_DLEN,
              RLREF_LEN_DACC - RLREF_LEN_DLEN + 1);
  mpfr_set_zero (t + 2, 1);
  step ("step 3: T x the rates of 1/(G T) = the rates of 1/G", t + 1, t + 2, 0, -240);
  /* step 4 */
  OK (rlref_len_drift_mp (o, L, n, G, RLREF_LEN_TOKEN_MEAN, t));
  OK (rlref_len_drift_mp (o2, L, n, G, RLREF_LEN_GROUP_MEAN_LENGTH, t));
  mp_maxdiff (t + 1, o, o2, ND);
  step ("step 4: one group: 1/sum|y| = 1/(G mean|y|)", t + 1, t + 2, 0, -240);
  printf ("\n");
  mp_vec_free (L, n);
  mp_vec_free (o, ND);
  mp_vec_free (o2, ND);
  mp_vec_free (o3, ND);
  mp_vec_free (t, 4);
}

int
main (void)
{
  static const double uniform[9] = { 0, 0, 0, 0, 0, 0, 0, 0, 0 };
  static const double helps[9] = { 0, -1, 1, 0, 0, 0, 0, 1, -1 };
  static const double one[3] = { 0, 0, 0 }, th1[3] = { 0.3, -0.4, 0.1 };
  static const rlref_ent_recipe sym = { 0.2, 0.2, 0, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN };
  static const rlref_ent_recipe higher = { 0.2, 0.28, 0, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN };
  static const rlref_ent_recipe dyn = { 0.2, 0.2, 1, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN };
  mpfr_ptr L = mp_vec (3), o = mp_vec (ND), t = mp_vec (12);
  rlref_mp_set_prec (PREC);
  printf ("Seed 000 sections 12.2-12.3: the exact expected GRPO update on the think-then-answer "
          "model (w think, c correct, x wrong; T thinking tokens are cut, reward 0)\n\n");
  drift_steps (uniform, 9, 4, "uniform steps");
  drift_steps (helps, 9, 3, "thinking helps");
  /* step 5 */
  printf ("T = 1, uniform, G = 2\n");
  mp_vec_set_d (L, one, 3);
  mpfr_set_ui (t, 1, MPFR_RNDN);
  OK (rlref_len_drift_mp (o, L, 3, 2, RLREF_LEN_SEQ_MEAN_TOKEN_MEAN, t));
  mpfr_set_ui (t + 1, 2, MPFR_RNDN);
  mpfr_div_ui (t + 1, t + 1, 27, MPFR_RNDN);
  step ("step 5: d E[r] = p_c (g_c - sum pi g) = 2/27", o + RLREF_LEN_DACC, t + 1, 1, -240);
  mpfr_set_zero (t + 1, 1);
  step ("step 5: every length 1: d E[|y|] = 0", o + RLREF_LEN_DLEN, t + 1, 0, -240);
  step ("step 5: every length 1: E[|y|] after the step - before = 0", o + RLREF_LEN_STEP,
        t + 1, 0, -240);
  /* step 6: mu = 1, three batches */
  printf ("\nENT-COLLAPSE, T = 1, logits (0.3, -0.4, 0.1), G = 3, lr = 2\n");
  mp_vec_set_d (L, th1, 3);
  mpfr_set_ui (t, 2, MPFR_RNDN);
  OK (rlref_ent_collapse_mp (t + 1, t + 2, t + 5, t + 8, L, 3, 3, t, 1, 3, &sym));
  OK (rlref_ent_collapse_mp (t + 1, t + 11, t + 5, t + 8, L, 3, 3, t, 1, 1, &higher));
  step ("step 6: mu = 1: clip-higher = symmetric (first batch)", t + 11, t + 2, 1, -240);
  /* step 7: P = 1 - p^3 - (1 - p)^3, p = softmax(th1)_c */
  {
    mpfr_ptr p = mp_vec (3);
    OK (rlref_softmax_mp (p, L, 3));
    mpfr_pow_ui (t + 3, p + 1, 3, MPFR_RNDN);
    mpfr_ui_sub (t + 4, 1, p + 1, MPFR_RNDN);
    mpfr_pow_ui (t + 4, t + 4, 3, MPFR_RNDN);
    mpfr_add (t + 3, t + 3, t + 4, MPFR_RNDN);
    mpfr_ui_sub (t + 3, 1, t + 3, MPFR_RNDN);          /* P */
    OK (rlref_ent_collapse_mp (t + 1, t + 2, t + 5, t + 8, L, 3, 3, t, 1, 1, &dyn));
    mpfr_div (t + 4, t, t + 3, MPFR_RNDN);
    OK (rlref_ent_collapse_mp (t + 1, t + 11, t + 6, t + 9, L, 3, 3, t + 4, 1, 1, &sym));
    step ("step 7: dynamic sampling, lr = symmetric, lr/P (entropy)", t + 2, t + 11, 1, -230);
    step ("step 7: dynamic sampling, lr = symmetric, lr/P (accuracy)", t + 5, t + 6, 1, -230);
    mp_vec_free (p, 3);
  }
  mp_vec_free (L, 3);
  mp_vec_free (o, ND);
  mp_vec_free (t, 12);
  return finish ();
}
