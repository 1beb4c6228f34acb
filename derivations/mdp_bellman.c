/* mdp_bellman.c -- seed 003 section 1 checked at 256 bits (MDP-RETURN,
 * MDP-HORIZON, MDP-VPI, MDP-QPI, MDP-OPT, MDP-QL):
 *   - the return's two forms: G_t = sum_k gamma^k r_{t+k} (the sum) and
 *     G_t = r_t + gamma G_{t+1} (step 1 of the Bellman derivation);
 *   - the effective horizon: sum_{k<H} gamma^k = (1 - gamma^H)/(1 - gamma),
 *     and 1/(1 - gamma) = 100 at gamma = 0.99 (the double 0.99);
 *   - steps 2-4: V^pi of the linear solve satisfies V = R_pi + gamma P_pi V,
 *     Q^pi satisfies Q = r + gamma P (sum_a' pi Q), and V = sum_a pi Q;
 *   - optimality: V* = max_a Q*, Q* = r + gamma P V* (policy iteration),
 *     value iteration's fixed point equals policy iteration's V*, and along
 *     value iteration max |V_k - V*| <= gamma^k max |V_0 - V*|;
 *   - Q-learning: one seed gives the same run twice, to the last bit, and
 *     the distance to Q* falls.
 * Each step prints its residual and its bound; exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include <gsl/gsl_rng.h>
#include "rlref/rlref.h"
#include "residual.h"

enum { S = 3, A = 2 };

static void
returns (void)
{
  enum { T = 200 };
  mpfr_ptr r = mp_vec (T), g1 = mp_vec (T), g2 = mp_vec (T), t = mp_vec (3);
  printf ("Returns, T = %d, gamma = 0.999, rewards sin(k) (003 §1)\n", T);
  for (int k = 0; k < T; k++)
    {
      mpfr_set_si (t, k, MPFR_RNDN);
      mpfr_sin (r + k, t, MPFR_RNDN);
      mpfr_set_d (r + k, mpfr_get_d (r + k, MPFR_RNDN), MPFR_RNDN);  /* binary64 data */
    }
  mpfr_set_d (t, 0.999, MPFR_RNDN);
  OK (rlref_mdp_return_mp (g1, r, T, t));
  OK (rlref_mdp_return_sum_mp (g2, r, T, t));
  mp_maxdiff (t + 1, g1, g2, T);
  mpfr_set_zero (t + 2, 1);
  step ("sum_k gamma^k r_{t+k} = the recursion, max over t", t + 1, t + 2, 0, -235);
  /* G_t - (r_t + gamma G_{t+1}) for every t */
  mpfr_set_zero (t + 1, 1);
  for (int k = 0; k + 1 < T; k++)
    {
      mpfr_fma (t + 2, t, g2 + k + 1, r + k, MPFR_RNDN);
      mpfr_sub (t + 2, t + 2, g2 + k, MPFR_RNDN);
      mpfr_abs (t + 2, t + 2, MPFR_RNDN);
      mpfr_max (t + 1, t + 1, t + 2, MPFR_RNDN);
    }
  mpfr_set_zero (t + 2, 1);
  step ("G_t = r_t + gamma G_{t+1} on the sum form, max over t", t + 1, t + 2, 0, -235);
  mp_vec_free (r, T);
  mp_vec_free (g1, T);
  mp_vec_free (g2, T);
  mp_vec_free (t, 3);
}

static void
horizon (void)
{
  mpfr_ptr t = mp_vec (4);
  printf ("\nThe effective horizon\n");
  mpfr_set_d (t, 0.99, MPFR_RNDN);
  OK (rlref_mdp_horizon_mp (t + 1, t, 100));
  /* sum_{k<100} gamma^k term by term */
  mpfr_set_ui (t + 2, 1, MPFR_RNDN);
  mpfr_set_zero (t + 3, 1);
  for (int k = 0; k < 100; k++)
    {
      mpfr_add (t + 3, t + 3, t + 2, MPFR_RNDN);
      mpfr_mul (t + 2, t + 2, t, MPFR_RNDN);
    }
  step ("(1 - gamma^H)/(1 - gamma) = sum_{k<H} gamma^k, gamma 0.99, H 100", t + 1, t + 3, 1,
        -240);
  OK (rlref_mdp_horizon_mp (t + 1, t, -1));
  mpfr_ui_sub (t + 2, 1, t, MPFR_RNDN);
  mpfr_ui_div (t + 2, 1, t + 2, MPFR_RNDN);
  step ("1/(1 - gamma) at the double 0.99", t + 1, t + 2, 1, -250);
  mpfr_set_ui (t + 2, 100, MPFR_RNDN);
  step ("... = 100 to the double's accuracy (0.99 is not a double)", t + 1, t + 2, 1, -45);
  mp_vec_free (t, 4);
}

static const double Pd[S * A * S] = { 0.5, 0.5, 0, 0, 0.2, 0.8, 0.3, 0.7, 0, 0.1, 0, 0.9,
                                      0, 0, 1, 0.6, 0.2, 0.2 };
static const double Rd[S * A] = { 1, 0, -0.5, 2, 0.25, -1 };
static const double pid[S * A] = { 0.5, 0.5, 0.25, 0.75, 1, 0 };

static void
bellman (double gd)
{
  rlref_mdp m = { S, A, NULL };
  mpfr_ptr P = mp_vec (S * A * S), r = mp_vec (S * A), pi = mp_vec (S * A), g = mp_vec (1);
  mpfr_ptr V = mp_vec (S), Q = mp_vec (S * A), Vs = mp_vec (S), Qs = mp_vec (S * A), Vf = mp_vec (S);
  mpfr_ptr err = mp_vec (41), bound = mp_vec (41), Vk = mp_vec (S), t = mp_vec (4);
  size_t pol[S];
  long steps = 0, sweeps = 0;
  char label[128];
  mp_vec_set_d (P, Pd, S * A * S);
  mp_vec_set_d (r, Rd, S * A);
  mp_vec_set_d (pi, pid, S * A);
  mpfr_set_d (g, gd, MPFR_RNDN);
  printf ("\nBellman equations, 3 states, 2 actions, gamma = %g (003 §1)\n", gd);
  OK (rlref_mdp_vpi_mp (V, &m, P, r, pi, g));
  OK (rlref_mdp_qpi_mp (Q, &m, P, r, pi, g));
  /* V(s) = sum_a pi(a|s) sum_s' P(s'|s,a) [r + gamma V(s')] */
  mpfr_set_zero (t + 1, 1);
  for (int s = 0; s < S; s++)
    {
      mpfr_set_zero (t, 1);
      for (int a = 0; a < A; a++)
        {
          mpfr_set_zero (t + 2, 1);
          for (int u = 0; u < S; u++)
            mpfr_fma (t + 2, P + (s * A + a) * S + u, V + u, t + 2, MPFR_RNDN);
          mpfr_fma (t + 2, g, t + 2, r + s * A + a, MPFR_RNDN);
          mpfr_fma (t, pi + s * A + a, t + 2, t, MPFR_RNDN);
        }
      mpfr_sub (t, t, V + s, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_max (t + 1, t + 1, t, MPFR_RNDN);
    }
  mpfr_set_zero (t + 2, 1);
  step ("V^pi = sum_a pi sum_s' P [r + gamma V^pi], max over s", t + 1, t + 2, 0, -230);
  /* Q(s,a) = sum_s' P [r + gamma sum_a' pi(a'|s') Q(s',a')] and V = sum_a pi Q */
  mpfr_set_zero (t + 1, 1);
  mpfr_set_zero (t + 3, 1);
  for (int s = 0; s < S; s++)
    {
      mpfr_set_zero (t, 1);
      for (int a = 0; a < A; a++)
        mpfr_fma (t, pi + s * A + a, Q + s * A + a, t, MPFR_RNDN);
      mpfr_sub (t, t, V + s, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_max (t + 3, t + 3, t, MPFR_RNDN);
      for (int a = 0; a < A; a++)
        {
          mpfr_set_zero (t, 1);
          for (int u = 0; u < S; u++)
            for (int b = 0; b < A; b++)
              {
                mpfr_mul (t + 2, pi + u * A + b, Q + u * A + b, MPFR_RNDN);
                mpfr_fma (t, P + (s * A + a) * S + u, t + 2, t, MPFR_RNDN);
              }
          mpfr_fma (t, g, t, r + s * A + a, MPFR_RNDN);
          mpfr_sub (t, t, Q + s * A + a, MPFR_RNDN);
          mpfr_abs (t, t, MPFR_RNDN);
          mpfr_max (t + 1, t + 1, t, MPFR_RNDN);
        }
    }
  mpfr_set_zero (t + 2, 1);
  step ("Q^pi = sum_s' P [r + gamma sum_a' pi Q^pi], max over (s, a)", t + 1, t + 2, 0, -230);
  step ("V^pi = sum_a pi Q^pi, max over s", t + 3, t + 2, 0, -230);
  /* optimality */
  OK (rlref_mdp_policy_iteration_mp (Vs, Qs, pol, &steps, &m, P, r, g));
  mpfr_set_zero (t + 1, 1);
  for (int s = 0; s < S; s++)
    {
      mpfr_max (t, Qs + s * A, Qs + s * A + 1, MPFR_RNDN);
      mpfr_sub (t, t, Vs + s, MPFR_RNDN);
      mpfr_abs (t, t, MPFR_RNDN);
      mpfr_max (t + 1, t + 1, t, MPFR_RNDN);
    }
  step ("V* = max_a Q* (policy iteration), max over s", t + 1, t + 2, 0, -230);
  printf ("  policy iteration: %ld improvement steps, policy (%zu, %zu, %zu)\n", steps, pol[0],
          pol[1], pol[2]);
  OK (rlref_mdp_value_iteration_fixed_mp (Vf, &sweeps, &m, P, r, g));
  mp_maxdiff (t + 1, Vf, Vs, S);
  snprintf (label, sizeof label, "value iteration's fixed point (%ld sweeps) = V*", sweeps);
  step (label, t + 1, t + 2, 0, -240);
  OK (rlref_mdp_value_iteration_mp (Vk, err, bound, 40, &m, P, r, g));
  mpfr_set_zero (t + 1, 1);
  for (int k = 0; k <= 40; k++)
    {
      /* max(err_k - bound_k, 0): 0 where the contraction bound holds */
      mpfr_sub (t, err + k, bound + k, MPFR_RNDN);
      mpfr_max (t + 1, t + 1, t, MPFR_RNDN);
    }
  step ("contraction: max_k (|V_k - V*| - gamma^k |V_0 - V*|)+, k = 0..40", t + 1, t + 2, 0,
        -240);
  mpfr_printf ("  k = 10: |V_k - V*| = %.6Rg, gamma^k |V_0 - V*| = %.6Rg\n", err + 10, bound + 10);
  mp_vec_free (P, S * A * S);
  mp_vec_free (r, S * A);
  mp_vec_free (pi, S * A);
  mp_vec_free (g, 1);
  mp_vec_free (V, S);
  mp_vec_free (Q, S * A);
  mp_vec_free (Vs, S);
  mp_vec_free (Qs, S * A);
  mp_vec_free (Vf, S);
  mp_vec_free (err, 41);
  mp_vec_free (bound, 41);
  mp_vec_free (Vk, S);
  mp_vec_free (t, 4);
}

static void
qlearning (void)
{
  enum { N = 5000 };
  rlref_mdp m = { S, A, NULL };
  double P[S * A * S], r[S * A], g = 0.9, eps = 0.1, Q1[S * A], Q2[S * A];
  double *e1 = malloc ((N + 1) * sizeof *e1), *e2 = malloc ((N + 1) * sizeof *e2);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  mpfr_ptr t = mp_vec (2);
  memcpy (P, Pd, sizeof P);
  memcpy (r, Rd, sizeof r);
  printf ("\nQ-learning, alpha = 1/n(s, a), epsilon-greedy 0.1, gamma 0.9, seed 42, %d steps "
          "(003 §2)\n", N);
  gsl_rng_set (rng, 42);
  OK (rlref_mdp_qlearn_d (Q1, e1, &m, P, r, &g, 0, N, &eps, RLREF_EGREEDY_INCLUDE, rng));
  gsl_rng_set (rng, 42);
  OK (rlref_mdp_qlearn_d (Q2, e2, &m, P, r, &g, 0, N, &eps, RLREF_EGREEDY_INCLUDE, rng));
  mpfr_set_ui (t, (unsigned long) (memcmp (Q1, Q2, sizeof Q1) != 0
                                    || memcmp (e1, e2, (N + 1) * sizeof *e1) != 0), MPFR_RNDN);
  mpfr_set_zero (t + 1, 1);
  step ("the same seed: the same binary64 run, bit for bit (0 = identical)", t, t + 1, 0, -300);
  mpfr_set_d (t, e1[N] - e1[0], MPFR_RNDN);
  mpfr_max (t, t, t + 1, MPFR_RNDN);
  step ("max |Q_N - Q*| < max |Q_0 - Q*| (the excess, 0 when it fell)", t, t + 1, 0, -300);
  printf ("  max |Q_t - Q*|: t = 0 %.4g, 100 %.4g, 1000 %.4g, %d %.4g\n", e1[0], e1[100],
          e1[1000], N, e1[N]);
  gsl_rng_free (rng);
  free (e1);
  free (e2);
  mp_vec_free (t, 2);
}

int
main (void)
{
  rlref_mp_set_prec (PREC);
  returns ();
  horizon ();
  bellman (0.9);
  bellman (0.99);
  qlearning ();
  return finish ();
}
