/* dpo_13_18_to_13_22.c -- seed 000 section 4, the DPO derivation, checked
 * at 256 bits on a tiny language model (V = 3, EOS 2, T = 3, a tabular
 * reference and an additive reward; every one of its 15 sequences):
 *   13.17  pi* = pi_ref e^{r/beta} / Z, by enumeration;
 *   13.18  r(y) = beta log(pi*(y)/pi_ref(y)) + beta log Z, for every y;
 *   13.19  in r(y_w) - r(y_l) the two beta log Z cancel, for every pair;
 *   13.20  the Bradley-Terry probability in policy terms, sigma(beta h_w -
 *          beta h_l), h = log (pi* / pi_ref), equals sigma(r_w - r_l);
 *   13.21  the DPO loss -log sigma(beta (h_w - h_l)) (rlref_dpo_loss)
 *          equals -log sigma(r_w - r_l) at pi*;
 *   13.22  its gradient, with weight sigma(r^_l - r^_w) (rlref_dpo_grad),
 *          against the analytic derivative and against MPFR central
 *          differences of the loss;
 *   DPO-EQUIV  pi* is a fixed point of the population DPO loss on the
 *          Bradley-Terry preferences the reward induces (gradient 0), and
 *          exact-gradient descent from pi_ref approaches it.
 * Each step prints its residual and its bound; exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

enum { V = 3, EOS = 2, T = 3, NL = 21, NSEQ = 15 };

static const double ref_d[NL] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1,
                                   0.1, -0.1, 0.3, 0.2, 0.2, 0.2, -1, 0, 1 };
static const double reward_d[V + 2] = { 1, -0.5, 0, -0.25, -1 };

/* every sequence: log pi_ref, r, log pi* */
struct seqs
{
  int n;
  mpfr_t lp[NSEQ], r[NSEQ], ls[NSEQ];
};

static void
visit (void *ctx, const int *y, int L, int cut, mpfr_srcptr logp, mpfr_srcptr r,
       mpfr_srcptr logp_star)
{
  struct seqs *s = ctx;
  (void) y;
  (void) L;
  (void) cut;
  mpfr_set (s->lp[s->n], logp, MPFR_RNDN);
  mpfr_set (s->r[s->n], r, MPFR_RNDN);
  mpfr_set (s->ls[s->n], logp_star, MPFR_RNDN);
  s->n++;
}

int
main (void)
{
  rlref_lm lm = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                  .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  static const rlref_dpo_convention sigmoid = { RLREF_DPO_SIGMOID, 0, 0 };
  struct seqs s;
  mpfr_ptr ref = mp_vec (NL), reward = mp_vec (V + 2), m = mp_vec (RLREF_LM_NMOMENTS), t = mp_vec (16);
  mpfr_ptr beta = t, lz = t + 1, a = t + 2, b = t + 3, c = t + 4, d = t + 5, e = t + 6;
  mpfr_ptr eps = t + 7, loss = t + 8, gw = t + 9, gl = t + 10, wt = t + 11, hi = t + 12,
    lo = t + 13, h = t + 14;
  double worst_pair = 0;
  rlref_mp_set_prec (PREC);
  s.n = 0;
  for (int i = 0; i < NSEQ; i++)
    mpfr_inits2 (PREC, s.lp[i], s.r[i], s.ls[i], (mpfr_ptr) 0);
  for (int i = 0; i < NL; i++)
    mpfr_set_d (ref + i, ref_d[i], MPFR_RNDN);
  for (int i = 0; i < V + 2; i++)
    mpfr_set_d (reward + i, reward_d[i], MPFR_RNDN);
  mpfr_set_d (beta, 0.5, MPFR_RNDN);
  mpfr_set_zero (eps, 1);
  printf ("A tabular tiny LM, V = 3, EOS 2, T = 3 (15 sequences), beta = 0.5\n\n");
  if (rlref_lm_moments_mp (m, &lm, ref, reward, beta, RLREF_LM_ALL, visit, &s) || s.n != NSEQ)
    {
      printf ("enumeration failed\n");
      return 1;
    }
  mpfr_set (lz, m + RLREF_LM_LOG_Z, MPFR_RNDN);

  printf ("13.18: the reward reconstructed from pi* and Z, every sequence\n");
  for (int i = 0; i < NSEQ; i++)
    {
      /* beta (log pi* - log pi_ref) + beta log Z */
      mpfr_sub (a, s.ls[i], s.lp[i], MPFR_RNDN);
      mpfr_add (a, a, lz, MPFR_RNDN);
      mpfr_mul (a, a, beta, MPFR_RNDN);
      mpfr_sub (b, a, s.r[i], MPFR_RNDN);
      if (mpfr_get_d (b, MPFR_RNDN) > worst_pair || -mpfr_get_d (b, MPFR_RNDN) > worst_pair)
        worst_pair = mpfr_get_d (b, MPFR_RNDN) < 0 ? -mpfr_get_d (b, MPFR_RNDN)
          : mpfr_get_d (b, MPFR_RNDN);
    }
  mpfr_set_d (a, worst_pair, MPFR_RNDN);
  mpfr_set_zero (b, 1);
  step ("max over y |beta log(pi*/pi_ref) + beta log Z - r|", a, b, 0, -240);

  printf ("13.19-13.21: every ordered pair of distinct sequences\n");
  {
    double w19 = 0, w20 = 0, w21 = 0;
    for (int i = 0; i < NSEQ; i++)
      for (int j = 0; j < NSEQ; j++)
        {
          if (i == j)
            continue;
          /* 13.19: beta h_w - beta h_l = r_w - r_l, Z gone */
          mpfr_sub (a, s.ls[i], s.lp[i], MPFR_RNDN);
          mpfr_sub (b, s.ls[j], s.lp[j], MPFR_RNDN);
          mpfr_sub (h, a, b, MPFR_RNDN);
          mpfr_mul (c, h, beta, MPFR_RNDN);
          mpfr_sub (d, s.r[i], s.r[j], MPFR_RNDN);
          mpfr_sub (e, c, d, MPFR_RNDN);
          if (mpfr_cmpabs_ui (e, 0) > 0 && mpfr_get_d (e, MPFR_RNDN) * mpfr_get_d (e, MPFR_RNDN) > w19 * w19)
            w19 = mpfr_get_d (e, MPFR_RNDN) < 0 ? -mpfr_get_d (e, MPFR_RNDN) : mpfr_get_d (e, MPFR_RNDN);
          /* 13.20: sigma(beta h_w - beta h_l) = sigma(r_w - r_l) */
          if (rlref_sigmoid_mp (a, c) || rlref_sigmoid_mp (b, d))
            return 1;
          mpfr_sub (e, a, b, MPFR_RNDN);
          mpfr_abs (e, e, MPFR_RNDN);
          if (mpfr_get_d (e, MPFR_RNDN) > w20)
            w20 = mpfr_get_d (e, MPFR_RNDN);
          /* 13.21: rlref_dpo_loss at pi* = -log sigma(r_w - r_l) */
          if (rlref_dpo_loss_mp (loss, NULL, NULL, NULL, NULL, NULL, s.ls[i], s.ls[j], s.lp[i],
                                 s.lp[j], NULL, NULL, 1, &sigmoid, beta, eps)
              || rlref_log_sigmoid_mp (b, d))
            return 1;
          mpfr_add (e, loss, b, MPFR_RNDN);
          mpfr_abs (e, e, MPFR_RNDN);
          if (mpfr_get_d (e, MPFR_RNDN) > w21)
            w21 = mpfr_get_d (e, MPFR_RNDN);
        }
    mpfr_set_zero (b, 1);
    mpfr_set_d (a, w19, MPFR_RNDN);
    step ("13.19 max |beta (h_w - h_l) - (r_w - r_l)|: beta log Z cancels", a, b, 0, -240);
    mpfr_set_d (a, w20, MPFR_RNDN);
    step ("13.20 max |sigma(beta h_w - beta h_l) - sigma(r_w - r_l)|", a, b, 0, -240);
    mpfr_set_d (a, w21, MPFR_RNDN);
    step ("13.21 max |DPO loss at pi* + log sigma(r_w - r_l)|", a, b, 0, -240);
  }

  printf ("13.22: the gradient of one pair's loss (the best and the worst sequence)\n");
  {
    int w = 0, l = 0;
    for (int i = 1; i < NSEQ; i++)
      {
        if (mpfr_cmp (s.r[i], s.r[w]) > 0)
          w = i;
        if (mpfr_cmp (s.r[i], s.r[l]) < 0)
          l = i;
      }
    /* a policy between pi_ref and pi*: log pi = (log pi_ref + log pi*)/2 */
    mpfr_add (c, s.lp[w], s.ls[w], MPFR_RNDN);
    mpfr_div_2ui (c, c, 1, MPFR_RNDN);
    mpfr_add (d, s.lp[l], s.ls[l], MPFR_RNDN);
    mpfr_div_2ui (d, d, 1, MPFR_RNDN);
    if (rlref_dpo_grad_mp (wt, gw, gl, c, d, s.lp[w], s.lp[l], 1, 0, beta))
      return 1;
    /* weight sigma(r^_l - r^_w), r^ = beta (log pi - log pi_ref) */
    mpfr_sub (a, d, s.lp[l], MPFR_RNDN);
    mpfr_sub (b, c, s.lp[w], MPFR_RNDN);
    mpfr_sub (a, a, b, MPFR_RNDN);
    mpfr_mul (a, a, beta, MPFR_RNDN);
    if (rlref_sigmoid_mp (a, a))
      return 1;
    step ("13.22 weight = sigma(r^_l - r^_w)", wt, a, 1, -240);
    mpfr_mul (a, a, beta, MPFR_RNDN);
    mpfr_neg (a, a, MPFR_RNDN);
    step ("13.22 d loss / d log pi(y_w) = -beta sigma(r^_l - r^_w)", gw, a, 1, -240);
    mpfr_neg (a, a, MPFR_RNDN);
    step ("13.22 d loss / d log pi(y_l) = +beta sigma(r^_l - r^_w)", gl, a, 1, -240);
    /* central differences of the loss in log pi(y_w), step 2^-80 */
    mpfr_add_d (e, c, 0x1p-80, MPFR_RNDN);
    if (rlref_dpo_loss_mp (hi, NULL, NULL, NULL, NULL, NULL, e, d, s.lp[w], s.lp[l], NULL, NULL,
                           1, &sigmoid, beta, eps))
      return 1;
    mpfr_sub_d (e, c, 0x1p-80, MPFR_RNDN);
    if (rlref_dpo_loss_mp (lo, NULL, NULL, NULL, NULL, NULL, e, d, s.lp[w], s.lp[l], NULL, NULL,
                           1, &sigmoid, beta, eps))
      return 1;
    mpfr_sub (e, hi, lo, MPFR_RNDN);
    mpfr_mul_2si (e, e, 79, MPFR_RNDN);
    step ("13.22 against MPFR central differences (step 2^-80)", gw, e, 1, -150);
  }

  printf ("DPO-EQUIV: pi* and the population DPO loss on Bradley-Terry preferences\n");
  {
    mpfr_ptr star = mp_vec (NL), grad = mp_vec (NL);
    double th[NL], star_d[NL], hist[501], bd = 0.5, lr = 40.0, kl = 0;
    mpfr_set_zero (b, 1);
    if (rlref_lm_pistar_logits_mp (star, &lm, ref, reward, beta)
        || rlref_lm_objective_mp (a, grad, &lm, star, ref, reward, beta, RLREF_LM_OBJ_DPO))
      return 1;
    mpfr_set_zero (a, 1);
    for (int i = 0; i < NL; i++)
      if (mpfr_cmpabs (grad + i, a) > 0)
        mpfr_abs (a, grad + i, MPFR_RNDN);
    step ("max |grad of the population DPO loss| at pi* (a fixed point)", a, b, 0, -230);
    if (rlref_lm_objective_mp (a, NULL, &lm, star, ref, reward, beta, RLREF_LM_OBJ_KL)
        || rlref_lm_moments_mp (m, &lm, ref, reward, beta, RLREF_LM_ALL, NULL, NULL))
      return 1;
    step ("KL(pi_theta* || pi_ref) = KL(pi* || pi_ref) of 13.17", a, m + RLREF_LM_KL_STAR_REF,
          1, -230);
    /* exact-gradient descent from pi_ref, in binary64 */
    for (int i = 0; i < NL; i++)
      {
        th[i] = ref_d[i];
        star_d[i] = mpfr_get_d (star + i, MPFR_RNDN);
      }
    printf ("  exact-gradient descent from pi_ref, lr = 40: KL(pi_theta || pi*) after");
    for (int round = 0; round < 4; round++)
      {
        if (rlref_lm_descend_d (th, hist, &lm, ref_d, reward_d, &bd, RLREF_LM_OBJ_DPO, &lr, 500)
            || rlref_lm_objective_d (&kl, NULL, &lm, th, star_d, reward_d, &bd, RLREF_LM_OBJ_KL))
          return 1;
        printf (" %d steps %.3g;", 500 * (round + 1), kl);
      }
    printf ("\n");
    mpfr_set_d (a, kl, MPFR_RNDN);
    step ("KL(pi_theta || pi*) after 2000 exact steps (binary64)", a, b, 0, -40);
    for (int i = 0; i < NL; i++)
      mpfr_clear (star + i), mpfr_clear (grad + i);
    free (star);
    free (grad);
  }
  for (int i = 0; i < NSEQ; i++)
    mpfr_clears (s.lp[i], s.r[i], s.ls[i], (mpfr_ptr) 0);
  return finish ();
}
