/* grpo_13_27_baseline.c -- seed 000 (13.27): a baseline that depends on
 * the prompt only leaves the policy gradient unchanged, checked at 256
 * bits on the tiny language model (GRPO-BASELINE), every sequence
 * enumerated:
 *   step 1  sum_y pi(y) = 1, so grad sum_y pi(y) = grad 1 = 0;
 *   step 2  E[grad log pi(y)] = sum_y pi grad log pi = sum_y grad pi = 0,
 *           every component (log-derivative identity; r = 0, b = -1);
 *   step 3  E[(r - b) grad log pi] = E[r grad log pi] = grad E[r] for
 *           several b, against the exact gradient of E[r];
 *   step 4  b changes the estimator's second moment only:
 *           E[(r - b)^2 |g|^2] = E[r^2 |g|^2] - 2 b E[r |g|^2] + b^2 E[|g|^2],
 *           a quadratic in b (its value at b = 2 predicted from b = 0, 1);
 *   step 5  the leave-one-out baseline of two samples (13.28, G = 2):
 *           E over y_2 of (r_1 - r_2) grad log pi(y_1) is step 3 at
 *           b = E[r]; the group mean's (r_1 - r_2)/2 gives (G - 1)/G = 1/2
 *           of grad E[r].
 * On a bigram and a tabular model.  Each step prints its residual and its
 * bound; exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

static void
model (rlref_lm_kind kind, const double *lg, size_t nl, int n_rows)
{
  static const double rw[5] = { 1, -0.5, 0, -0.25, -1 }, zero[5] = { 0, 0, 0, 0, 0 };
  static const double bs[4] = { 0, 3, -2.5, 0 };
  rlref_lm lm = { .V = 3, .eos = 2, .T = 3, .kind = kind, .truncation = RLREF_LM_KEEP,
                  .n_rows = (size_t) n_rows, .reward = RLREF_REWARD_ADDITIVE };
  mpfr_ptr L = mp_vec (nl), R = mp_vec (5), Z = mp_vec (5), m = mp_vec (RLREF_LM_NMOMENTS);
  mpfr_ptr gr = mp_vec (nl), pg = mp_vec (nl), zero_v = mp_vec (nl), t = mp_vec (8);
  char label[128];
  mp_vec_set_d (L, lg, nl);
  mp_vec_set_d (R, rw, 5);
  mp_vec_set_d (Z, zero, 5);
  printf ("%s model, V = 3, EOS = 2, T = 3, %g sequences\n",
          kind == RLREF_LM_BIGRAM ? "bigram" : "tabular", rlref_lm_num_sequences (&lm));
  /* step 1 */
  mpfr_set_ui (t, 1, MPFR_RNDN);
  OK (rlref_lm_moments_mp (m, &lm, L, R, t, RLREF_LM_ALL, NULL, NULL));
  step ("step 1: sum_y pi(y) = 1", m + RLREF_LM_TOTAL, t, 0, -240);
  /* step 2: r = 0, b = -1: pg = E[grad log pi]; sq = E[|g|^2] */
  mpfr_set_si (t, -1, MPFR_RNDN);
  OK (rlref_lm_baseline_mp (t + 1, gr, pg, t + 2, &lm, L, Z, t));
  mp_maxdiff (t + 3, pg, zero_v, nl);
  mpfr_set_zero (t + 4, 1);
  step ("step 2: max_c |E[grad_c log pi]| = 0 (13.27)", t + 3, t + 4, 0, -240);
  /* step 3: pg = grad for several b, one of them E[r] */
  mpfr_set_ui (t + 5, 1, MPFR_RNDN);
  OK (rlref_lm_moments_mp (m, &lm, L, R, t + 5, RLREF_LM_ALL, NULL, NULL));
  for (int k = 0; k < 4; k++)
    {
      if (k == 3)
        mpfr_set (t, m + RLREF_LM_MEAN_R, MPFR_RNDN);
      else
        mpfr_set_d (t, bs[k], MPFR_RNDN);
      OK (rlref_lm_baseline_mp (t + 1, gr, pg, t + 5, &lm, L, R, t));
      mp_maxdiff (t + 3, pg, gr, nl);
      mpfr_snprintf (label, sizeof label, "step 3: E[(r - b) grad log pi] = grad E[r], b = %.6Rg",
                     t);
      step (label, t + 3, t + 4, 0, -230);
    }
  /* step 4: sq(2) = sq(0) + 2 (sq(1) - sq(0) - E|g|^2) + 4 E|g|^2 */
  {
    mpfr_ptr s0 = t + 5, s1 = t + 6, s2 = t + 7;
    mpfr_set_d (t, 0, MPFR_RNDN);
    OK (rlref_lm_baseline_mp (t + 1, gr, pg, s0, &lm, L, R, t));
    mpfr_set_d (t, 1, MPFR_RNDN);
    OK (rlref_lm_baseline_mp (t + 1, gr, pg, s1, &lm, L, R, t));
    mpfr_set_d (t, 2, MPFR_RNDN);
    OK (rlref_lm_baseline_mp (t + 1, gr, pg, s2, &lm, L, R, t));
    /* E|g|^2 = t + 2 (step 2's sq) */
    mpfr_sub (t + 3, s1, s0, MPFR_RNDN);
    mpfr_sub (t + 3, t + 3, t + 2, MPFR_RNDN);       /* -2 E[r |g|^2] */
    mpfr_mul_2ui (t + 3, t + 3, 1, MPFR_RNDN);
    mpfr_add (t + 3, t + 3, s0, MPFR_RNDN);
    mpfr_mul_2ui (t + 4, t + 2, 2, MPFR_RNDN);
    mpfr_add (t + 3, t + 3, t + 4, MPFR_RNDN);
    step ("step 4: E[(r - b)^2 |g|^2] is the quadratic in b (b = 2 from b = 0, 1)", s2, t + 3, 1,
          -230);
    mpfr_set_zero (t + 4, 1);
  }
  /* step 5: G = 2; the group mean's (r_1 - r_2)/2 gives half of grad E[r] */
  mpfr_set (t, m + RLREF_LM_MEAN_R, MPFR_RNDN);
  OK (rlref_lm_baseline_mp (t + 1, gr, pg, t + 5, &lm, L, R, t));
  for (size_t c = 0; c < nl; c++)
    mpfr_mul_2si (pg + c, pg + c, -1, MPFR_RNDN), mpfr_mul_2si (gr + c, gr + c, -1, MPFR_RNDN);
  mp_maxdiff (t + 3, pg, gr, nl);
  step ("step 5: group mean, G = 2: E[(r_1 - mean) grad log pi_1] = (1/2) grad E[r]", t + 3,
        t + 4, 0, -230);
  printf ("\n");
  mp_vec_free (L, nl);
  mp_vec_free (R, 5);
  mp_vec_free (Z, 5);
  mp_vec_free (m, RLREF_LM_NMOMENTS);
  mp_vec_free (gr, nl);
  mp_vec_free (pg, nl);
  mp_vec_free (zero_v, nl);
  mp_vec_free (t, 8);
}

int
main (void)
{
  static const double b3[12] = { 0.5, -0.2, 0.1, 0, 1, -1, 0, 0, 0, 0.3, 0.3, -0.5 };
  static const double a3[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2, 0, 0, 0,
                                 1, -1, 0, -0.3, 0.3, 0 };
  rlref_mp_set_prec (PREC);
  printf ("Seed 000 (13.27): E[b(x) grad log pi(y|x)] = b(x) grad sum_y pi(y|x) = 0, on the "
          "tiny LM, r = token[y_t] + per_length len (additive)\n\n");
  model (RLREF_LM_BIGRAM, b3, 12, 4);
  model (RLREF_LM_TABULAR, a3, 21, 7);
  return finish ();
}
