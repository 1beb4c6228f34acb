/* lm_dp_and_enumeration.c -- the tiny language model checked at 256 bits
 * (LM-ENUM, LM-DP, LM-EXACT, KLOPT-Z):
 *   - the outcomes are the sequences ended by EOS or cut at T: their count is
 *     sum_{t<T} (V-1)^t (+ (V-1)^T kept cut), and their probabilities sum to 1
 *     (chain rule 13.1);
 *   - for a bigram model with an additive reward, the dynamic programme over
 *     (tokens left, state) gives log Z, KL(pi*||pi_ref), KL(pi_ref||pi*) and
 *     E_pi*[r] equal to enumeration (13.15, 13.17), under both readings of a
 *     cut sequence, at beta from 1e-3 to 1e3;
 *   - the identities that tie them: KL(pi*||pi_ref) = E*[r]/beta - log Z,
 *     KL(pi_ref||pi*) = log Z - E_ref[r]/beta, and Gibbs' inequality
 *     (both KLs >= 0), with log Z between E_ref[r]/beta and max r/beta.
 * Each step prints its residual and its bound; exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

enum { V = 6, EOS = 5 };

static const char *names[RLREF_LM_NMOMENTS] = {
  "sequences", "mass", "entropy", "E[r]", "Var[r]", "log Z", "KL(pi*||pi_ref)",
  "KL(pi_ref||pi*)", "E*[r]",
};

/* The W1 model: logit(a | prev) = ((3 prev + 5 a) mod 7)/4 - 0.75, prev = 6
 * at the start; r = (number of 1s) - 0.25 len, EOS counted. */
static void
w1_model (mpfr_ptr logits, mpfr_ptr reward)
{
  for (int prev = 0; prev <= V; prev++)
    for (int a = 0; a < V; a++)
      mpfr_set_d (logits + prev * V + a, ((3 * prev + 5 * a) % 7) / 4.0 - 0.75, MPFR_RNDN);
  for (int a = 0; a < V; a++)
    mpfr_set_d (reward + a, a == 1, MPFR_RNDN);
  mpfr_set_d (reward + V, -0.25, MPFR_RNDN);
  mpfr_set_d (reward + V + 1, 0.0, MPFR_RNDN);
}

static void
compare (int T, rlref_lm_truncation trunc, double beta_d, mpfr_ptr logits, mpfr_ptr reward)
{
  rlref_lm lm = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_BIGRAM, .truncation = trunc,
                  .n_rows = V + 1, .reward = RLREF_REWARD_ADDITIVE };
  mpfr_ptr e = mp_vec (RLREF_LM_NMOMENTS), d = mp_vec (RLREF_LM_NMOMENTS), t = mp_vec (3);
  char label[128];
  const char *reading = trunc == RLREF_LM_KEEP ? "cut kept" : "cut conditioned away";
  mpfr_set_d (t, beta_d, MPFR_RNDN);
  printf ("T = %d, beta = %g, %s\n", T, beta_d, reading);
  if (rlref_lm_moments_mp (e, &lm, logits, reward, t, RLREF_LM_ALL, NULL, NULL)
      || rlref_lm_moments_dp_mp (d, &lm, logits, reward, t))
    {
      printf ("  evaluation failed: %s\n", rlref_last_error ());
      failures++;
      return;
    }
  /* the count against its formula, the mass of the kept reading against 1 */
  mpfr_set_d (t + 1, rlref_lm_num_sequences (&lm), MPFR_RNDN);
  step ("number of sequences = sum_{t<T} (V-1)^t (+ (V-1)^T)", e, t + 1, 0, -300);
  if (trunc == RLREF_LM_KEEP)
    {
      mpfr_set_ui (t + 1, 1, MPFR_RNDN);
      step ("probabilities of all sequences sum to 1 (13.1)", e + RLREF_LM_TOTAL, t + 1, 0,
            -240);
    }
  for (int k = 0; k < RLREF_LM_NMOMENTS; k++)
    {
      snprintf (label, sizeof label, "%s: dynamic programming = enumeration", names[k]);
      step (label, d + k, e + k, 1, -230);
    }
  /* KL(pi*||pi_ref) = E*[r]/beta - log Z and KL(pi_ref||pi*) = log Z - E[r]/beta */
  mpfr_div (t + 1, e + RLREF_LM_MEAN_R_STAR, t, MPFR_RNDN);
  mpfr_sub (t + 1, t + 1, e + RLREF_LM_LOG_Z, MPFR_RNDN);
  step ("KL(pi*||pi_ref) = E*[r]/beta - log Z", e + RLREF_LM_KL_STAR_REF, t + 1, 1, -200);
  mpfr_div (t + 1, e + RLREF_LM_MEAN_R, t, MPFR_RNDN);
  mpfr_sub (t + 1, e + RLREF_LM_LOG_Z, t + 1, MPFR_RNDN);
  step ("KL(pi_ref||pi*) = log Z - E_ref[r]/beta", e + RLREF_LM_KL_REF_STAR, t + 1, 1, -200);
  /* Gibbs: both KLs >= 0 (a residual of 0 when they are) */
  mpfr_set_zero (t + 2, 1);
  mpfr_min (t + 1, e + RLREF_LM_KL_STAR_REF, t + 2, MPFR_RNDN);
  step ("Gibbs: KL(pi*||pi_ref) >= 0", t + 1, t + 2, 0, -300);
  mpfr_min (t + 1, e + RLREF_LM_KL_REF_STAR, t + 2, MPFR_RNDN);
  step ("Gibbs: KL(pi_ref||pi*) >= 0", t + 1, t + 2, 0, -300);
  mp_vec_free (e, RLREF_LM_NMOMENTS);
  mp_vec_free (d, RLREF_LM_NMOMENTS);
  mp_vec_free (t, 3);
}

int
main (void)
{
  /* W1 itself (T = 8, 488,281 sequences) at beta 0.5; the extremes of beta
   * on the same model cut at T = 6 (19,531 sequences) */
  static const struct { int T; double beta; } runs[] = { { 8, 0.5 }, { 6, 1e-3 }, { 6, 1e3 } };
  mpfr_ptr logits = mp_vec ((V + 1) * V), reward = mp_vec (V + 2);
  rlref_mp_set_prec (PREC);
  w1_model (logits, reward);
  printf ("The W1 model: V = 6, EOS = 5, logit(a | prev) = ((3 prev + 5 a) mod 7)/4 - 0.75, "
          "r = #1s - 0.25 len\n\n");
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
    {
      compare (runs[i].T, RLREF_LM_KEEP, runs[i].beta, logits, reward);
      compare (runs[i].T, RLREF_LM_CONDITION, runs[i].beta, logits, reward);
    }
  mp_vec_free (logits, (V + 1) * V);
  mp_vec_free (reward, V + 2);
  return finish ();
}
