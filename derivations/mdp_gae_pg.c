/* mdp_gae_pg.c -- GAE (seed 000 13.11) and the policy-gradient theorem
 * (seed 003 section 2, seed 000 13.2-13.4) checked at 256 bits (MDP-GAE,
 * MDP-PG):
 *   - GAE at lambda = 0 is the one-step TD error delta_t, at lambda = 1 the
 *     Monte-Carlo return minus V (for every convention on a full row);
 *   - CONVENTIONS.md's detector: [0,0,1], V [0.1,0.2,0.3], gamma 1, lambda
 *     0.95 -> A = [0.82675, 0.765, 0.7];
 *   - the policy-gradient theorem: dJ/dtheta by dynamic programming equals
 *     central differences of J, and the exact expectation of REINFORCE
 *     with the full return, with the reward to go (causality) and with a
 *     baseline (unchanged expectation); their variances fall in that order;
 *     seed 003's form without gamma^t equals dJ/dtheta at gamma = 1 only;
 *   - the same on the token MDP of a tiny LM (gamma = 1): REINFORCE's
 *     expectation equals the exact gradient of E[r].
 * Each step prints its residual and its bound; exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

static void
gae (void)
{
  enum { W = 6 };
  static const double rd[W] = { 0.1, -0.3, 0.25, 0, 0.5, 1 }, vd[W] = { 0.5, 0.4, -0.2, 0.3,
                                                                          0.1, 0.7 };
  unsigned char mask[W] = { 1, 1, 1, 1, 1, 1 };
  mpfr_ptr r = mp_vec (W), v = mp_vec (W), adv = mp_vec (W), ret = mp_vec (W), want = mp_vec (W), t = mp_vec (4);
  char label[128];
  mp_vec_set_d (r, rd, W);
  mp_vec_set_d (v, vd, W);
  mpfr_set_d (t, 0.9, MPFR_RNDN);               /* gamma */
  printf ("GAE on a row of %d tokens, gamma 0.9 (000 13.11)\n", W);
  for (size_t c = 0; c < rlref_gae_num_conventions; c++)
    {
      rlref_gae_rule k = rlref_gae_conventions[c].kind;
      /* lambda = 0: delta_t = r_t + gamma V_{t+1} - V_t */
      mpfr_set_zero (t + 1, 1);
      OK (rlref_mdp_gae_mp (adv, ret, r, v, mask, NULL, 1, W, t, t + 1, k));
      for (int s = 0; s < W; s++)
        {
          if (s + 1 < W)
            mpfr_fma (want + s, t, v + s + 1, r + s, MPFR_RNDN);
          else
            mpfr_set (want + s, r + s, MPFR_RNDN);
          mpfr_sub (want + s, want + s, v + s, MPFR_RNDN);
        }
      mp_maxdiff (t + 2, adv, want, W);
      mpfr_set_zero (t + 3, 1);
      snprintf (label, sizeof label, "%s: lambda 0 -> A_t = delta_t", rlref_gae_conventions[c].name);
      step (label, t + 2, t + 3, 0, -240);
      /* lambda = 1: A_t = G_t - V_t */
      mpfr_set_ui (t + 1, 1, MPFR_RNDN);
      OK (rlref_mdp_gae_mp (adv, ret, r, v, mask, NULL, 1, W, t, t + 1, k));
      OK (rlref_mdp_return_mp (want, r, W, t));
      for (int s = 0; s < W; s++)
        mpfr_sub (want + s, want + s, v + s, MPFR_RNDN);
      mp_maxdiff (t + 2, adv, want, W);
      snprintf (label, sizeof label, "%s: lambda 1 -> A_t = G_t - V_t", rlref_gae_conventions[c].name);
      step (label, t + 2, t + 3, 0, -240);
    }
  {
    static const double dr[3] = { 0, 0, 1 }, dv[3] = { 0.1, 0.2, 0.3 };
    static const char *printed[3] = { "0.82675", "0.765", "0.7" };
    mp_vec_set_d (r, dr, 3);
    mp_vec_set_d (v, dv, 3);
    mpfr_set_ui (t, 1, MPFR_RNDN);
    mpfr_set_d (t + 1, 0.95, MPFR_RNDN);
    OK (rlref_mdp_gae_mp (adv, ret, r, v, mask, NULL, 1, 3, t, t + 1, RLREF_GAE_SEED));
    for (int s = 0; s < 3; s++)
      {
        /* the printed decimals against the exact value of the doubles' inputs:
           0.95 and 0.1, 0.2, 0.3 are not doubles, so within 2^-50 */
        mpfr_set_str (t + 2, printed[s], 10, MPFR_RNDN);
        snprintf (label, sizeof label, "CONVENTIONS.md detector A_%d = %s", s, printed[s]);
        step (label, adv + s, t + 2, 1, -50);
      }
  }
  mp_vec_free (r, W);
  mp_vec_free (v, W);
  mp_vec_free (adv, W);
  mp_vec_free (ret, W);
  mp_vec_free (want, W);
  mp_vec_free (t, 4);
}

/* Probabilities that are binary fractions, so that each row sums to 1
 * exactly: the score-function identity sum_tau grad p(tau) = 0 needs it
 * (rows of decimals such as 0.7 + 0.3 sum to 1 - 2^-54 in binary64, and
 * the trajectory sum and the dynamic programme then weigh early rewards
 * by masses that differ at that level). */
enum { S = 2, A = 2 };
static const double Pd[S * A * S] = { 0.75, 0.25, 0.25, 0.75, 0.375, 0.625, 0.875, 0.125 };
static const double Rd[S * A] = { 1, 0, -0.5, 2 }, rhod[S] = { 0.625, 0.375 };
static const double thd[S * A] = { 0.3, -0.2, 0.1, 0.5 };

static void
pg (double gd, long H)
{
  rlref_mdp m = { S, A, NULL };
  mpfr_ptr P = mp_vec (S * A * S), r = mp_vec (S * A), rho = mp_vec (S), th = mp_vec (S * A), g = mp_vec (1);
  mpfr_ptr J = mp_vec (3), gt = mp_vec (S * A), ge = mp_vec (S * A), fd = mp_vec (S * A), var = mp_vec (4);
  mpfr_ptr t = mp_vec (3);
  static const rlref_pg_estimator est[4] = { RLREF_PG_FULL, RLREF_PG_TO_GO, RLREF_PG_BASELINE,
                                             RLREF_PG_SEED003 };
  static const char *names[4] = { "full return", "reward to go", "baseline", "seed 003 (no gamma^t)" };
  char label[128];
  mp_vec_set_d (P, Pd, S * A * S);
  mp_vec_set_d (r, Rd, S * A);
  mp_vec_set_d (rho, rhod, S);
  mp_vec_set_d (th, thd, S * A);
  mpfr_set_d (g, gd, MPFR_RNDN);
  printf ("\nPolicy gradient, 2 states, 2 actions, H = %ld, gamma = %g (003 §2, 000 13.2-13.4)\n",
          H, gd);
  OK (rlref_mdp_pg_theorem_mp (J, gt, &m, P, r, rho, th, g, H));
  /* central differences of J at 256 bits, h = 2^-60 */
  for (int i = 0; i < S * A; i++)
    {
      mpfr_t keep;
      mpfr_init2 (keep, PREC);
      mpfr_set (keep, th + i, MPFR_RNDN);
      mpfr_add_d (th + i, keep, 0x1p-60, MPFR_RNDN);
      OK (rlref_mdp_pg_theorem_mp (J + 1, ge, &m, P, r, rho, th, g, H));
      mpfr_sub_d (th + i, keep, 0x1p-60, MPFR_RNDN);
      OK (rlref_mdp_pg_theorem_mp (J + 2, ge, &m, P, r, rho, th, g, H));
      mpfr_sub (fd + i, J + 1, J + 2, MPFR_RNDN);
      mpfr_mul_2si (fd + i, fd + i, 59, MPFR_RNDN);
      mpfr_set (th + i, keep, MPFR_RNDN);
      mpfr_clear (keep);
    }
  mp_maxdiff (t, gt, fd, S * A);
  mpfr_set_zero (t + 1, 1);
  step ("theorem dJ/dtheta = central differences of J (h 2^-60)", t, t + 1, 0, -100);
  for (int e = 0; e < 4; e++)
    {
      OK (rlref_mdp_pg_reinforce_mp (ge, var + e, &m, P, r, rho, th, g, H, est[e]));
      mp_maxdiff (t, ge, gt, S * A);
      if (est[e] == RLREF_PG_SEED003 && gd != 1.0)
        {
          /* biased: show that it differs, as a residual of 0 when it does */
          mpfr_set_d (t + 2, 1e-3, MPFR_RNDN);
          mpfr_sub (t, t + 2, t, MPFR_RNDN);
          mpfr_max (t, t, t + 1, MPFR_RNDN);
          snprintf (label, sizeof label, "%s: E g differs from dJ/dtheta by > 1e-3", names[e]);
          step (label, t, t + 1, 0, -300);
        }
      else
        {
          snprintf (label, sizeof label, "%s: E g = dJ/dtheta", names[e]);
          step (label, t, t + 1, 0, -235);
        }
    }
  mpfr_printf ("  variance: full return %.6Rg, reward to go %.6Rg, baseline %.6Rg\n", var,
               var + 1, var + 2);
  /* Var(baseline) <= Var(to go) <= Var(full): the excess is 0 */
  mpfr_sub (t, var + 2, var + 1, MPFR_RNDN);
  mpfr_max (t, t, t + 1, MPFR_RNDN);
  step ("Var[baseline] <= Var[reward to go] (the excess)", t, t + 1, 0, -300);
  mpfr_sub (t, var + 1, var, MPFR_RNDN);
  mpfr_max (t, t, t + 1, MPFR_RNDN);
  step ("Var[reward to go] <= Var[full return] (the excess)", t, t + 1, 0, -300);
  mp_vec_free (P, S * A * S);
  mp_vec_free (r, S * A);
  mp_vec_free (rho, S);
  mp_vec_free (th, S * A);
  mp_vec_free (g, 1);
  mp_vec_free (J, 3);
  mp_vec_free (gt, S * A);
  mp_vec_free (ge, S * A);
  mp_vec_free (fd, S * A);
  mp_vec_free (var, 4);
  mp_vec_free (t, 3);
}

static void
token (void)
{
  enum { V = 3, ROWS = 7, N = ROWS * V };
  static const double lg[N] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2, 0, 0, 0,
                                1, -1, 0, -0.3, 0.3, 0 };
  static const double rw[V + 2] = { 1, -0.5, 0, -0.25, -1 };
  rlref_lm lm = { .V = V, .eos = 2, .T = 3, .kind = RLREF_LM_TABULAR,
                  .truncation = RLREF_LM_KEEP, .n_rows = ROWS,
                  .reward = RLREF_REWARD_ADDITIVE };
  static const rlref_pg_estimator est[3] = { RLREF_PG_FULL, RLREF_PG_TO_GO, RLREF_PG_BASELINE };
  static const char *names[3] = { "r(y) (13.3)", "reward to go", "baseline V(s_t) (13.4)" };
  mpfr_ptr logits = mp_vec (N), reward = mp_vec (V + 2), J = mp_vec (1), gt = mp_vec (N), ge = mp_vec (N);
  mpfr_ptr var = mp_vec (3), t = mp_vec (2);
  char label[128];
  mp_vec_set_d (logits, lg, N);
  mp_vec_set_d (reward, rw, V + 2);
  mpfr_set_ui (t, 1, MPFR_RNDN);
  printf ("\nThe token MDP of a tabular tiny LM (V = 3, T = 3, 15 sequences; 000 §1.1, 13.2-13.4)\n");
  OK (rlref_lm_objective_mp (J, gt, &lm, logits, logits, reward, t, RLREF_LM_OBJ_REWARD));
  mpfr_set_zero (t + 1, 1);
  for (int e = 0; e < 3; e++)
    {
      OK (rlref_mdp_token_reinforce_mp (ge, var + e, &lm, logits, reward, est[e]));
      mp_maxdiff (t, ge, gt, N);
      snprintf (label, sizeof label, "REINFORCE with %s: E g = grad E[r]", names[e]);
      step (label, t, t + 1, 0, -235);
    }
  mpfr_printf ("  variance: r(y) %.6Rg, reward to go %.6Rg, baseline %.6Rg\n", var, var + 1,
               var + 2);
  mp_vec_free (logits, N);
  mp_vec_free (reward, V + 2);
  mp_vec_free (J, 1);
  mp_vec_free (gt, N);
  mp_vec_free (ge, N);
  mp_vec_free (var, 3);
  mp_vec_free (t, 2);
}

int
main (void)
{
  rlref_mp_set_prec (PREC);
  gae ();
  pg (0.9, 3);
  pg (1.0, 3);
  pg (0.95, 5);
  token ();
  return finish ();
}
