/* ppo_13_9_to_13_12.c -- seed 000 section 3, PPO for language models,
 * checked at 256 bits on a tiny language model (V = 3, EOS 2, T = 3, a
 * tabular policy and reference, an additive reward; all 15 sequences):
 *   13.1   log pi(y) = sum_t log pi(y_t | s_t) for every y (the
 *          enumeration's log-probability against rlref_lm_logprob);
 *   13.9   for every y, the per-token rewards r_t = r(y) [t = T] - beta l_t
 *          (rlref_ppo_klsum) sum to r(y) - beta log(pi(y)/pi_ref(y));
 *   13.10  E_pi[sum_t l_t] (the per-token side, enumerated) equals
 *          KL(pi || pi_ref) from the library's sequence-level objective
 *          and from the two enumerations' sequence log-probabilities; and
 *          E_pi[sum_t r_t] = E[r] - beta KL (13.8);
 *   003    importance sampling E_old[f] = E_theta[(pi_old/pi_theta) f] and
 *          E_theta[f] = E_old[rho f] (rlref_ppo_is); the gradient of the
 *          unclipped surrogate at theta_old is the policy gradient, and
 *          away from theta_old it is not;
 *   13.12  at rho = 1 nothing is clipped and the clipped surrogate's
 *          gradient is the unclipped one (rlref_ppo_clip); the clipped
 *          surrogate is never above the unclipped one (pessimism) on a grid
 *          of ratios and both signs of A; the seed's example 0.6;
 *   dual   the dual clip bounds the surrogate below by c A for A < 0.
 * Each step prints its residual and its bound; exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

enum { V = 3, EOS = 2, T = 3, NL = 21, NSEQ = 15 };

static const double theta_d[NL] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2,
                                     0, 0, 0, 1, -1, 0, -0.3, 0.3, 0 };
static const double ref_d[NL] = { 0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1,
                                  0.1, -0.1, 0.3, 0.2, 0.2, 0.2, -1, 0, 1 };
static const double reward_d[V + 2] = { 1, -0.5, 0, -0.25, -1 };

/* every sequence of one model: tokens, length, log-probability, reward */
struct seqs
{
  int n, y[NSEQ][T], L[NSEQ];
  mpfr_t lp[NSEQ], r[NSEQ];
};

static void
visit (void *ctx, const int *y, int L, int cut, mpfr_srcptr logp, mpfr_srcptr r,
       mpfr_srcptr logp_star)
{
  struct seqs *s = ctx;
  (void) cut;
  (void) logp_star;
  for (int t = 0; t < L; t++)
    s->y[s->n][t] = y[t];
  s->L[s->n] = L;
  mpfr_set (s->lp[s->n], logp, MPFR_RNDN);
  mpfr_set (s->r[s->n], r, MPFR_RNDN);
  s->n++;
}

static void
set_vec (mpfr_ptr v, const double *d, size_t n)
{
  for (size_t i = 0; i < n; i++)
    mpfr_set_d (v + i, d[i], MPFR_RNDN);
}

int
main (void)
{
  rlref_lm lm = { .V = V, .eos = EOS, .T = T, .kind = RLREF_LM_TABULAR,
                  .truncation = RLREF_LM_KEEP, .n_rows = 7, .reward = RLREF_REWARD_ADDITIVE };
  struct seqs sp, sq;
  mpfr_ptr th = mp_vec (NL), ref = mp_vec (NL), reward = mp_vec (V + 2), m = mp_vec (RLREF_LM_NMOMENTS);
  mpfr_ptr tl = mp_vec (T), tr = mp_vec (T), tok = mp_vec (T), t = mp_vec (16);
  mpfr_ptr beta = t, sl = t + 1, klt = t + 2, kl = t + 3, rt = t + 4, rl = t + 5, a = t + 6,
    b = t + 7, c = t + 8, d = t + 9, w = t + 10, er = t + 11, worst = t + 12;
  rlref_mp_set_prec (PREC);
  sp.n = sq.n = 0;
  for (int i = 0; i < NSEQ; i++)
    mpfr_inits2 (PREC, sp.lp[i], sp.r[i], sq.lp[i], sq.r[i], (mpfr_ptr) 0);
  set_vec (th, theta_d, NL);
  set_vec (ref, ref_d, NL);
  set_vec (reward, reward_d, V + 2);
  mpfr_set_d (beta, 0.5, MPFR_RNDN);

  printf ("Seed 000 section 3 (13.9)-(13.12) on a tabular tiny LM: V = %d, EOS %d, T = %d, "
          "%d sequences, beta 0.5, at %d bits\n\n", V, EOS, T, NSEQ, PREC);
  OK (rlref_lm_moments_mp (m, &lm, th, reward, beta, 1u << RLREF_LM_TOTAL, visit, &sp));
  OK (rlref_lm_moments_mp (m, &lm, ref, reward, beta, 1u << RLREF_LM_TOTAL, visit, &sq));

  /* 13.1: the chain rule, every sequence */
  printf ("13.1  log pi(y) = sum_t log pi(y_t | s_t)\n");
  mpfr_set_zero (worst, 1);
  for (int i = 0; i < sp.n; i++)
    {
      OK (rlref_lm_logprob_mp (a, tok, &lm, th, sp.y[i], sp.L[i]));
      mpfr_set_zero (b, 1);
      for (int k = 0; k < sp.L[i]; k++)
        mpfr_add (b, b, tok + k, MPFR_RNDN);
      mpfr_sub (c, b, sp.lp[i], MPFR_RNDN);
      mpfr_abs (c, c, MPFR_RNDN);
      mpfr_max (worst, worst, c, MPFR_RNDN);
    }
  mpfr_set_zero (a, 1);
  step ("max over the 15 sequences of |sum_t - enumeration|", worst, a, 0, -240);

  /* 13.9: per-token rewards summed, every sequence */
  printf ("\n13.9  sum_t r_t = r(y) - beta log(pi(y)/pi_ref(y)), r_t = r(y) [t = T] - beta l_t\n");
  mpfr_set_zero (worst, 1);
  mpfr_set_zero (d, 1);
  for (int i = 0; i < sp.n; i++)
    {
      OK (rlref_ppo_klsum_mp (tl, sl, tr, klt, kl, rt, rl, &lm, th, ref, reward, beta, sp.y[i],
                              sp.L[i]));
      mpfr_set_zero (a, 1);
      mpfr_set_zero (b, 1);
      for (int k = 0; k < sp.L[i]; k++)
        {
          mpfr_add (a, a, tr + k, MPFR_RNDN);
          mpfr_add (b, b, tl + k, MPFR_RNDN);
        }
      /* r(y) - beta log(pi(y)/pi_ref(y)), the sequence log-ratio of the enumerations */
      mpfr_sub (c, sp.lp[i], sq.lp[i], MPFR_RNDN);
      mpfr_sub (w, b, c, MPFR_RNDN);                    /* per-token sum - sequence ratio */
      mpfr_abs (w, w, MPFR_RNDN);
      mpfr_max (d, d, w, MPFR_RNDN);
      mpfr_mul (c, c, beta, MPFR_RNDN);
      mpfr_sub (c, sp.r[i], c, MPFR_RNDN);
      mpfr_sub (c, a, c, MPFR_RNDN);
      mpfr_abs (c, c, MPFR_RNDN);
      mpfr_max (worst, worst, c, MPFR_RNDN);
    }
  mpfr_set_zero (a, 1);
  step ("max |sum_t l_t - log pi(y)/pi_ref(y)| (the two models' enumerations)", d, a, 0, -240);
  step ("max |sum_t r_t - (r(y) - beta log pi(y)/pi_ref(y))|", worst, a, 0, -240);

  /* 13.10: the expectation */
  printf ("\n13.10 E_pi[sum_t l_t] = KL(pi || pi_ref);  E_pi[sum_t r_t] = E[r] - beta KL\n");
  mpfr_set_zero (a, 1);
  mpfr_set_zero (er, 1);
  for (int i = 0; i < sp.n; i++)
    {
      mpfr_exp (w, sp.lp[i], MPFR_RNDN);
      mpfr_sub (c, sp.lp[i], sq.lp[i], MPFR_RNDN);
      mpfr_mul (c, c, w, MPFR_RNDN);
      mpfr_add (a, a, c, MPFR_RNDN);                    /* sum_y pi log pi/pi_ref */
      mpfr_mul (c, w, sp.r[i], MPFR_RNDN);
      mpfr_add (er, er, c, MPFR_RNDN);
    }
  mpfr_printf ("  KL(pi || pi_ref) = %.30Rf\n", kl);
  step ("E_pi[sum_t l_t] (enumerated per token) vs KL (rlref_lm_objective)", klt, kl, 1, -240);
  step ("KL from the two enumerations' sequence log-probabilities vs KL", a, kl, 1, -240);
  mpfr_mul (c, beta, kl, MPFR_RNDN);
  mpfr_sub (c, er, c, MPFR_RNDN);
  step ("E_pi[sum_t r_t] vs E[r] - beta KL by the enumeration", rt, c, 1, -240);
  step ("E_pi[sum_t r_t] vs the RLHF objective (rlref_lm_objective, 13.8)", rt, rl, 1, -240);

  /* 003: importance sampling */
  printf ("\n003   E_old[f] = E_theta[(pi_old/pi_theta) f];  E_theta[f] = E_old[rho f]\n");
  {
    static const double zo_d[4] = { 0.2, -0.5, 1, 0 }, z_d[4] = { 0.5, -0.125, 0.25, -1 },
      f_d[4] = { 1, -2, 0.5, 3 };
    mpfr_ptr zo = mp_vec (4), z = mp_vec (4), f = mp_vec (4), g = mp_vec (4), pg = mp_vec (4);
    mpfr_ptr eo = t + 13, ei = t + 14, en = t + 15;
    set_vec (zo, zo_d, 4);
    set_vec (z, z_d, 4);
    set_vec (f, f_d, 4);
    OK (rlref_ppo_is_mp (eo, ei, en, c, NULL, NULL, NULL, g, pg, zo, z, f, 4));
    step ("E_theta[(pi_old/pi_theta) f] vs E_old[f]", ei, eo, 1, -240);
    step ("E_old[rho f] (the CPI surrogate) vs E_theta[f]", c, en, 1, -240);
    mpfr_set_zero (worst, 1);
    for (int k = 0; k < 4; k++)
      {
        mpfr_sub (w, g + k, pg + k, MPFR_RNDN);
        mpfr_abs (w, w, MPFR_RNDN);
        mpfr_max (worst, worst, w, MPFR_RNDN);
      }
    /* away from theta_old the two differ: the identity holds at theta_old only */
    mpfr_set_ui_2exp (b, 1, -20, MPFR_RNDN);
    failures += mpfr_cmp (worst, b) <= 0;
    mpfr_printf ("  away from theta_old: max |CPI gradient - policy gradient at theta_old| = "
                 "%.3Re (must exceed 2^-20)  %s\n", worst, mpfr_cmp (worst, b) > 0 ? "ok" : "FAIL");
    OK (rlref_ppo_is_mp (eo, ei, en, c, NULL, NULL, NULL, g, pg, zo, zo, f, 4));
    mpfr_set_zero (worst, 1);
    for (int k = 0; k < 4; k++)
      {
        mpfr_sub (w, g + k, pg + k, MPFR_RNDN);
        mpfr_abs (w, w, MPFR_RNDN);
        mpfr_max (worst, worst, w, MPFR_RNDN);
      }
    mpfr_set_zero (a, 1);
    step ("at theta = theta_old: max |CPI gradient - policy gradient|", worst, a, 0, -240);
    mp_vec_free (zo, 4);
    mp_vec_free (z, 4);
    mp_vec_free (f, 4);
    mp_vec_free (g, 4);
    mp_vec_free (pg, 4);
  }

  /* 13.12: the clipped surrogate */
  printf ("\n13.12 min(rho A, clip(rho, 1 - eps, 1 + eps) A)\n");
  {
    static const rlref_ppo_clip_convention plain = { 0, 0 }, dual = { 1, 1 };
    enum { NG = 41 };
    double lp_d[NG], old_d[NG], adv_d[NG];
    mpfr_ptr lp = mp_vec (NG), old = mp_vec (NG), adv = mp_vec (NG), s = mp_vec (NG), rho = mp_vec (NG),
      g = mp_vec (NG);
    mpfr_ptr eps = t + 13, cc = t + 14, loss = t + 15;
    mpfr_set_d (eps, 0.2, MPFR_RNDN);
    mpfr_set_ui (cc, 3, MPFR_RNDN);
    /* rho = 1: nothing clipped, the gradient -A/N of the unclipped surrogate */
    for (int i = 0; i < NG; i++)
      {
        lp_d[i] = -1 - i / 8.0;
        old_d[i] = lp_d[i];
        adv_d[i] = (i % 2 ? -1 : 1) * (0.25 + i / 16.0);
      }
    set_vec (lp, lp_d, NG);
    set_vec (old, old_d, NG);
    set_vec (adv, adv_d, NG);
    OK (rlref_ppo_clip_mp (loss, s, rho, g, c, lp, old, adv, NULL, NG, &plain, eps, eps, NULL));
    mpfr_set_zero (worst, 1);
    for (int i = 0; i < NG; i++)
      {
        mpfr_div_si (w, adv + i, NG, MPFR_RNDN);
        mpfr_add (w, w, g + i, MPFR_RNDN);              /* g + A/N = 0 */
        mpfr_abs (w, w, MPFR_RNDN);
        mpfr_max (worst, worst, w, MPFR_RNDN);
      }
    mpfr_set_zero (a, 1);
    step ("rho = 1: max |d loss/d logp + A/N| (the policy gradient)", worst, a, 0, -240);
    step ("rho = 1: clip fraction 0", c, a, 0, -240);
    /* pessimism on a grid of log-ratios in [-1, 1], both signs of A */
    for (int i = 0; i < NG; i++)
      {
        old_d[i] = 0;
        lp_d[i] = -1 + i / 20.0;
      }
    set_vec (lp, lp_d, NG);
    set_vec (old, old_d, NG);
    mpfr_set_zero (worst, 1);
    OK (rlref_ppo_clip_mp (loss, s, rho, g, c, lp, old, adv, NULL, NG, &plain, eps, eps, NULL));
    for (int i = 0; i < NG; i++)
      {
        mpfr_mul (w, rho + i, adv + i, MPFR_RNDN);
        mpfr_sub (w, s + i, w, MPFR_RNDN);              /* s - rho A <= 0 */
        if (mpfr_sgn (w) > 0)
          mpfr_max (worst, worst, w, MPFR_RNDN);
      }
    step ("max over 41 ratios of (clipped - unclipped)^+ (a lower bound)", worst, a, 0, -240);
    /* the dual clip: s >= c A for A < 0 */
    OK (rlref_ppo_clip_mp (loss, s, rho, g, c, lp, old, adv, NULL, NG, &dual, eps, eps, cc));
    mpfr_set_zero (worst, 1);
    for (int i = 0; i < NG; i++)
      if (adv_d[i] < 0)
        {
          mpfr_mul (w, cc, adv + i, MPFR_RNDN);
          mpfr_sub (w, w, s + i, MPFR_RNDN);            /* c A - s <= 0 */
          if (mpfr_sgn (w) > 0)
            mpfr_max (worst, worst, w, MPFR_RNDN);
        }
    step ("dual clip: max over A < 0 of (c A - s)^+", worst, a, 0, -240);
    /* the seed's example: A = 0.5, eps = 0.2, rho = 1.5 */
    mpfr_set_d (a, 1.5, MPFR_RNDN);
    mpfr_set_d (b, 0.5, MPFR_RNDN);
    OK (rlref_ppo_clip_one_mp (c, w, d, a, b, eps));
    mpfr_add_d (b, eps, 1, MPFR_RNDN);                  /* (1 + eps) 0.5, eps the binary64 0.2 */
    mpfr_mul_d (b, b, 0.5, MPFR_RNDN);
    mpfr_printf ("  A = 0.5, eps = 0.2, rho = 1.5: surrogate %.20Rf, unclipped %.20Rf\n", d, w);
    step ("the example: surrogate = (1 + eps) A = 0.6", d, b, 1, -250);
    mp_vec_free (lp, NG);
    mp_vec_free (old, NG);
    mp_vec_free (adv, NG);
    mp_vec_free (s, NG);
    mp_vec_free (rho, NG);
    mp_vec_free (g, NG);
  }

  for (int i = 0; i < NSEQ; i++)
    mpfr_clears (sp.lp[i], sp.r[i], sq.lp[i], sq.r[i], (mpfr_ptr) 0);
  mp_vec_free (th, NL);
  mp_vec_free (ref, NL);
  mp_vec_free (reward, V + 2);
  mp_vec_free (m, RLREF_LM_NMOMENTS);
  mp_vec_free (tl, T);
  mp_vec_free (tr, T);
  mp_vec_free (tok, T);
  mp_vec_free (t, 16);
  return finish ();
}
