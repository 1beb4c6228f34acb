/* test_mdp.c -- the MDP family: returns against closed forms and the
 * long-horizon error of the naive recursion, the effective horizon, the
 * Q-learning update and epsilon-greedy (seed 003's examples), GAE in every
 * convention (CONVENTIONS.md's detector, lambda 0 and 1, score placement,
 * masks), policy evaluation against closed forms of small chains, policy
 * and value iteration, Q-learning's reproducibility, the policy-gradient
 * theorem against REINFORCE and central differences, the soft Bellman
 * recursion against the sequence-level optimum; binary64 and MPFR; bad
 * input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <gsl/gsl_rng.h>
#include "rlref/rlref.h"
#include "testutil.h"

#define PREC 256

/* --- returns and horizon ------------------------------------------------- */

/* A constant reward c over T steps: G_t = c (1 - gamma^{T-t})/(1 - gamma),
 * the finite horizon times c. */
START_TEST (test_return_closed_form)
{
  enum { T = 50 };
  double r[T], G[T], Gs[T], g = 0.9, h;
  for (int t = 0; t < T; t++)
    r[t] = 1.5;
  TU_OK (rlref_mdp_return_d (G, r, T, &g));
  TU_OK (rlref_mdp_return_sum_d (Gs, r, T, &g));
  for (int t = 0; t < T; t++)
    {
      TU_OK (rlref_mdp_horizon_d (&h, &g, T - t));
      TU_ASSERT_REL (G[t], 1.5 * h, TU_TOL0);
      TU_ASSERT_REL (Gs[t], 1.5 * h, TU_TOL0);
    }
  /* [1, 1, 1], gamma 0.9: 1 + 0.9 + 0.81 = 2.71 (0.9 is not a double: to 1 ulp) */
  TU_OK (rlref_mdp_return_d (G, r, 3, &g));
  TU_ASSERT_REL (G[0] / 1.5, 2.71, TU_TOL0);
  TU_ASSERT_REL (G[1] / 1.5, 1.9, TU_TOL0);
}
END_TEST

/* A long horizon with cancelling rewards: the hi + lo recursion stays
 * within a few roundings of the 256-bit value at every t, while the plain
 * recursion drifts by many more. */
START_TEST (test_return_long_horizon)
{
  enum { T = 20000 };
  double *r = malloc (T * sizeof *r), *G = malloc (T * sizeof *G), *Gn = malloc (T * sizeof *Gn);
  double g = 0.9999, worst = 0, worst_naive = 0;
  mpfr_ptr rm = tu_mp_vec_new (T, PREC), Gm = tu_mp_vec_new (T, PREC), gm = tu_mp_vec_new (1, PREC);
  for (int t = 0; t < T; t++)
    r[t] = (t % 2 ? -1.0 : 1.0) * (1 + 1e-3 * sin ((double) t));
  for (int t = 0; t < T; t++)
    mpfr_set_d (rm + t, r[t], MPFR_RNDN);
  mpfr_set_d (gm, g, MPFR_RNDN);
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_mdp_return_d (G, r, T, &g));
  TU_OK (rlref_mdp_return_naive_d (Gn, r, T, &g));
  TU_OK (rlref_mdp_return_mp (Gm, rm, T, gm));
  for (int t = 0; t < T; t++)
    {
      double x = mpfr_get_d (Gm + t, MPFR_RNDN);
      worst = fmax (worst, tu_rel_err (G[t], x));
      worst_naive = fmax (worst_naive, tu_rel_err (Gn[t], x));
    }
  ck_assert_msg (worst <= 2 * DBL_EPSILON, "hi + lo recursion: %g", worst);
  ck_assert_msg (worst_naive > 64 * worst, "naive %g, accurate %g", worst_naive, worst);
  free (r);
  free (G);
  free (Gn);
  tu_mp_vec_free (rm, T);
  tu_mp_vec_free (Gm, T);
  tu_mp_vec_free (gm, 1);
}
END_TEST

START_TEST (test_horizon)
{
  double g = 0.5, h, want;
  TU_OK (rlref_mdp_horizon_d (&h, &g, -1));
  TU_ASSERT_SAME (h, 2.0);
  g = 0.99;
  TU_OK (rlref_mdp_horizon_d (&h, &g, -1));
  TU_ASSERT_REL (h, 100.0, 1e-13);
  TU_ASSERT_REL (h, 1.0 / (1.0 - g), TU_TOL0);
  /* 1 - gamma^3 cancels: 1 + gamma + gamma^2 exactly */
  g = 0.9999999999;
  TU_OK (rlref_mdp_horizon_d (&h, &g, 3));
  want = 1 + g + g * g;
  TU_ASSERT_REL (h, want, TU_TOL0);
  g = 1;
  TU_OK (rlref_mdp_horizon_d (&h, &g, 100));
  TU_ASSERT_SAME (h, 100.0);
  TU_ASSERT_STATUS (rlref_mdp_horizon_d (&h, &g, -1), RLREF_EDOM);
  g = 1.5;
  TU_ASSERT_STATUS (rlref_mdp_horizon_d (&h, &g, 3), RLREF_EDOM);
}
END_TEST

/* --- seed 003's examples ------------------------------------------------- */

START_TEST (test_q_update_example)
{
  double q = 0.5, r = 1, g = 0.99, alpha = 0.1, qn[2] = { 0.3, 0.8 }, y, qnew;
  mpfr_ptr in = tu_mp_vec_new (6, PREC), out = tu_mp_vec_new (2, PREC);
  TU_OK (rlref_mdp_q_update_d (&y, &qnew, &q, &r, &g, &alpha, qn, 2, 0));
  TU_ASSERT_REL (y, 1.792, TU_TOL0);
  TU_ASSERT_REL (qnew, 0.6292, TU_TOL0);
  /* MPFR: y = 1 + g 0.8 exactly (the product of two doubles fits 256
     bits), and the binary64 results are its roundings */
  rlref_mp_set_prec (PREC);
  mpfr_set_d (in, q, MPFR_RNDN);
  mpfr_set_d (in + 1, r, MPFR_RNDN);
  mpfr_set_d (in + 2, g, MPFR_RNDN);
  mpfr_set_d (in + 3, alpha, MPFR_RNDN);
  mpfr_set_d (in + 4, qn[0], MPFR_RNDN);
  mpfr_set_d (in + 5, qn[1], MPFR_RNDN);
  TU_OK (rlref_mdp_q_update_mp (out, out + 1, in, in + 1, in + 2, in + 3, in + 4, 2, 0));
  mpfr_mul (in + 4, in + 2, in + 5, MPFR_RNDN);         /* exact: 106 bits */
  mpfr_add_ui (in + 4, in + 4, 1, MPFR_RNDN);           /* exact */
  ck_assert (mpfr_equal_p (out, in + 4));
  ck_assert_double_eq (mpfr_get_d (out, MPFR_RNDN), y);
  ck_assert_double_eq (mpfr_get_d (out + 1, MPFR_RNDN), qnew);
  /* a terminal s': y = r */
  TU_OK (rlref_mdp_q_update_d (&y, &qnew, &q, &r, &g, &alpha, NULL, 0, 1));
  TU_ASSERT_SAME (y, 1.0);
  TU_ASSERT_REL (qnew, 0.55, TU_TOL0);
  TU_ASSERT_STATUS (rlref_mdp_q_update_d (&y, &qnew, &q, &r, &g, &alpha, NULL, 0, 0),
                    RLREF_EINVAL);
  alpha = 1.5;
  TU_ASSERT_STATUS (rlref_mdp_q_update_d (&y, &qnew, &q, &r, &g, &alpha, qn, 2, 0), RLREF_EDOM);
  tu_mp_vec_free (in, 6);
  tu_mp_vec_free (out, 2);
}
END_TEST

START_TEST (test_egreedy)
{
  double q[3] = { 0.2, 0.9, 0.5 }, eps = 0.1, p[3], t[3] = { 1, 1, 0 };
  TU_OK (rlref_mdp_egreedy_d (p, q, 3, &eps, RLREF_EGREEDY_INCLUDE));
  TU_ASSERT_REL (p[1], 0.9 + 0.1 / 3, TU_TOL0);
  TU_ASSERT_REL (p[0], 0.1 / 3, TU_TOL0);
  TU_ASSERT_REL (p[0] + p[1] + p[2], 1.0, TU_TOL0);
  TU_OK (rlref_mdp_egreedy_d (p, q, 3, &eps, RLREF_EGREEDY_EXCLUDE));
  TU_ASSERT_REL (p[1], 0.9, TU_TOL0);
  TU_ASSERT_REL (p[2], 0.05, TU_TOL0);
  /* a tie: the lowest index is greedy */
  eps = 0.2;
  TU_OK (rlref_mdp_egreedy_d (p, t, 3, &eps, RLREF_EGREEDY_INCLUDE));
  ck_assert (p[0] > p[1] && p[1] == p[2]);
  TU_ASSERT_STATUS (rlref_mdp_egreedy_d (p, q, 1, &eps, RLREF_EGREEDY_EXCLUDE), RLREF_EDOM);
  eps = -0.1;
  TU_ASSERT_STATUS (rlref_mdp_egreedy_d (p, q, 3, &eps, RLREF_EGREEDY_INCLUDE), RLREF_EDOM);
}
END_TEST

/* --- GAE ----------------------------------------------------------------- */

START_TEST (test_gae_detector)
{
  double r[3] = { 0, 0, 1 }, v[3] = { 0.1, 0.2, 0.3 }, g = 1, l = 0.95, adv[3], ret[3];
  unsigned char m[3] = { 1, 1, 1 };
  for (size_t c = 0; c < rlref_gae_num_conventions; c++)
    {
      TU_OK (rlref_mdp_gae_d (adv, ret, r, v, m, NULL, 1, 3, &g, &l,
                              rlref_gae_conventions[c].kind));
      TU_ASSERT_REL (adv[0], 0.82675, 4 * DBL_EPSILON);
      TU_ASSERT_REL (adv[1], 0.765, 4 * DBL_EPSILON);
      TU_ASSERT_REL (adv[2], 0.7, 4 * DBL_EPSILON);
      for (int t = 0; t < 3; t++)
        TU_ASSERT_REL (ret[t], adv[t] + v[t], TU_TOL0);
    }
  /* the libraries' defaults */
  ck_assert_double_eq (rlref_gae_conventions[1].lambda, 0.95);      /* trl */
  ck_assert_double_eq (rlref_gae_conventions[2].lambda, 1.0);       /* verl */
  ck_assert_double_eq (rlref_gae_conventions[3].lambda, 1.0);       /* openrlhf */
}
END_TEST

/* TRL's score one slot past the last token (value kept there) against the
 * last token; verl's carry across a masked hole against OpenRLHF's zeroing. */
START_TEST (test_gae_conventions)
{
  double r[4] = { 0, 0, 0, 0 }, v[4] = { 0.1, 0.2, 0.3, 0.4 }, s = 1, g = 1, l = 0.95;
  double adv[4], ret[4];
  unsigned char m[4] = { 1, 1, 1, 0 }, hole[4] = { 1, 0, 1, 1 };
  TU_OK (rlref_mdp_gae_d (adv, ret, r, v, m, &s, 1, 4, &g, &l, RLREF_GAE_TRL));
  TU_ASSERT_REL (adv[3], 0.6, TU_TOL0);
  TU_ASSERT_REL (adv[2], 0.67, TU_TOL0);
  TU_ASSERT_REL (ret[3], 1.0, TU_TOL0);
  TU_OK (rlref_mdp_gae_d (adv, ret, r, v, m, &s, 1, 4, &g, &l, RLREF_GAE_SEED));
  TU_ASSERT_REL (adv[2], 0.7, TU_TOL0);
  TU_ASSERT_SAME (adv[3], 0.0);
  TU_ASSERT_SAME (ret[3], 0.0);
  /* the hole at position 1: verl carries V_2 to position 0 and A_2 to 1 */
  v[1] = 0.5;
  TU_OK (rlref_mdp_gae_d (adv, ret, r, v, hole, &s, 1, 4, &g, &l, RLREF_GAE_VERL));
  TU_ASSERT_REL (adv[3], 0.6, TU_TOL0);
  TU_ASSERT_REL (adv[1], adv[2], 0);
  TU_ASSERT_REL (adv[0], (0 + 0.3 - 0.1) + 0.95 * adv[2], TU_TOL0);
  TU_ASSERT_REL (ret[1], adv[1] + 0.5, TU_TOL0);
  TU_OK (rlref_mdp_gae_d (adv, ret, r, v, hole, &s, 1, 4, &g, &l, RLREF_GAE_OPENRLHF));
  TU_ASSERT_REL (adv[1], 0.3 + 0.95 * adv[2], TU_TOL0);
  TU_ASSERT_REL (adv[0], -0.1 + 0.95 * adv[1], TU_TOL0);
  TU_ASSERT_STATUS (rlref_mdp_gae_d (adv, ret, r, v, hole, &s, 1, 4, &g, &l, RLREF_GAE_SEED),
                    RLREF_EINVAL);
  /* TRL: the response ends at the first 0 (the score on slot 1, values after it 0) */
  TU_OK (rlref_mdp_gae_d (adv, ret, r, v, hole, &s, 1, 4, &g, &l, RLREF_GAE_TRL));
  TU_ASSERT_SAME (adv[3], 0.0);
  TU_ASSERT_SAME (adv[2], 0.0);
  TU_ASSERT_REL (adv[1], 0.5, TU_TOL0);
  TU_ASSERT_REL (adv[0], 0.4 + 0.95 * 0.5, TU_TOL0);
  /* TRL reads a padded reward; OpenRLHF clamps the score to [-10, 10] */
  {
    double rp[4] = { 0, 0, 0.25, 0.5 }, z[4] = { 0, 0, 0, 0 }, s25 = 25, one = 1;
    TU_OK (rlref_mdp_gae_d (adv, ret, rp, z, m, &s, 1, 4, &one, &one, RLREF_GAE_TRL));
    TU_ASSERT_REL (adv[0], 1.75, TU_TOL0);      /* 0.25 + 1 (the score at slot 3) + 0.5 */
    TU_OK (rlref_mdp_gae_d (adv, ret, rp, z, m, &s, 1, 4, &one, &one, RLREF_GAE_OPENRLHF));
    TU_ASSERT_REL (adv[0], 1.25, TU_TOL0);      /* 0.25 + 1 at slot 2, slot 3 masked */
    TU_OK (rlref_mdp_gae_d (adv, ret, z, z, m, &s25, 1, 4, &one, &one, RLREF_GAE_OPENRLHF));
    TU_ASSERT_REL (adv[0], 10.0, TU_TOL0);
    TU_OK (rlref_mdp_gae_d (adv, ret, z, z, m, &s25, 1, 4, &one, &one, RLREF_GAE_VERL));
    TU_ASSERT_REL (adv[0], 25.0, TU_TOL0);
  }
  l = 1.5;
  TU_ASSERT_STATUS (rlref_mdp_gae_d (adv, ret, r, v, m, &s, 1, 4, &g, &l, RLREF_GAE_VERL),
                    RLREF_EDOM);
}
END_TEST

/* lambda = 0: the TD error; lambda = 1: the return minus V (MPFR, exact
 * to the working precision). */
START_TEST (test_gae_lambda_limits)
{
  enum { W = 8 };
  double rd[W] = { 0.5, -1, 0.25, 0, 2, -0.75, 1, 0.125 };
  double vd[W] = { 0.3, 0.1, -0.2, 0.6, 0.4, 0.2, -0.1, 0.05 };
  unsigned char m[W] = { 1, 1, 1, 1, 1, 1, 1, 1 };
  mpfr_ptr r = tu_mp_vec_from_d (rd, W, PREC), v = tu_mp_vec_from_d (vd, W, PREC);
  mpfr_ptr a = tu_mp_vec_new (W, PREC), ret = tu_mp_vec_new (W, PREC), G = tu_mp_vec_new (W, PREC);
  mpfr_ptr gl = tu_mp_vec_new (3, PREC);
  rlref_mp_set_prec (PREC);
  mpfr_set_d (gl, 0.97, MPFR_RNDN);
  TU_OK (rlref_mdp_gae_mp (a, ret, r, v, m, NULL, 1, W, gl, gl + 1, RLREF_GAE_SEED));
  for (int t = 0; t < W; t++)
    {
      mpfr_set_zero (gl + 2, 1);
      if (t + 1 < W)
        mpfr_mul (gl + 2, gl, v + t + 1, MPFR_RNDN);
      mpfr_add (gl + 2, gl + 2, r + t, MPFR_RNDN);
      mpfr_sub (gl + 2, gl + 2, v + t, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (a + t, gl + 2, 70);
    }
  mpfr_set_ui (gl + 1, 1, MPFR_RNDN);
  TU_OK (rlref_mdp_gae_mp (a, ret, r, v, m, NULL, 1, W, gl, gl + 1, RLREF_GAE_VERL));
  TU_OK (rlref_mdp_return_mp (G, r, W, gl));
  for (int t = 0; t < W; t++)
    {
      TU_ASSERT_MP_AGREE (ret + t, G + t, 70);
      mpfr_sub (gl + 2, G + t, v + t, MPFR_RNDN);
      TU_ASSERT_MP_AGREE (a + t, gl + 2, 70);
    }
  tu_mp_vec_free (r, W);
  tu_mp_vec_free (v, W);
  tu_mp_vec_free (a, W);
  tu_mp_vec_free (ret, W);
  tu_mp_vec_free (G, W);
  tu_mp_vec_free (gl, 3);
}
END_TEST

/* --- Bellman ------------------------------------------------------------- */

/* Two states swapping every step, r = (1, 0): V_0 = 1/(1 - g^2),
 * V_1 = g/(1 - g^2); one state with r = 1: 1/(1 - g). */
START_TEST (test_vpi_closed_form)
{
  rlref_mdp m2 = { 2, 1, NULL }, m1 = { 1, 1, NULL };
  double P[4] = { 0, 1, 1, 0 }, r[2] = { 1, 0 }, pi[2] = { 1, 1 }, g = 0.9, V[2], Q[2];
  mpfr_ptr Pm = tu_mp_vec_from_d (P, 4, PREC), rm = tu_mp_vec_from_d (r, 2, PREC);
  mpfr_ptr pim = tu_mp_vec_from_d (pi, 2, PREC), gm = tu_mp_vec_new (1, PREC);
  mpfr_ptr Vm = tu_mp_vec_new (2, PREC), w = tu_mp_vec_new (2, PREC);
  TU_OK (rlref_mdp_vpi_d (V, &m2, P, r, pi, &g));
  TU_ASSERT_REL (V[0], 1 / (1 - g * g), 2 * DBL_EPSILON);
  TU_ASSERT_REL (V[1], g / (1 - g * g), 2 * DBL_EPSILON);
  TU_OK (rlref_mdp_qpi_d (Q, &m2, P, r, pi, &g));
  TU_ASSERT_REL (Q[0], V[0], TU_TOL0);
  TU_OK (rlref_mdp_vpi_d (V, &m1, pi, r, pi, &g));      /* P = 1: a self-loop */
  TU_ASSERT_REL (V[0], 1 / (1 - g), TU_TOL0);
  /* MPFR: 1/(1 - g^2) to the working precision */
  rlref_mp_set_prec (PREC);
  mpfr_set_d (gm, g, MPFR_RNDN);
  TU_OK (rlref_mdp_vpi_mp (Vm, &m2, Pm, rm, pim, gm));
  mpfr_sqr (w, gm, MPFR_RNDN);
  mpfr_ui_sub (w, 1, w, MPFR_RNDN);
  mpfr_ui_div (w, 1, w, MPFR_RNDN);
  TU_ASSERT_MP_AGREE (Vm, w, 74);
  /* state 1 terminal: V_1 = 0 and V_0 = 1 */
  {
    unsigned char term[2] = { 0, 1 };
    rlref_mdp mt = { 2, 1, term };
    double Pt[4] = { 0, 1, 0, 0 };
    TU_OK (rlref_mdp_vpi_d (V, &mt, Pt, r, pi, &g));
    TU_ASSERT_SAME (V[1], 0.0);
    TU_ASSERT_SAME (V[0], 1.0);
    TU_ASSERT_STATUS (rlref_mdp_vpi_d (V, &mt, P, r, pi, &g), RLREF_EINVAL);
  }
  tu_mp_vec_free (Pm, 4);
  tu_mp_vec_free (rm, 2);
  tu_mp_vec_free (pim, 2);
  tu_mp_vec_free (gm, 1);
  tu_mp_vec_free (Vm, 2);
  tu_mp_vec_free (w, 2);
}
END_TEST

/* gamma = 1, whose refusal a singular solve would also give; the
 * tolerance of a row's sum, at its edge; a NaN in P, which would otherwise
 * end in EMAXITER.  A row summing to 0.9 and a negative entry are golden
 * cases of MDP-VPI: the generic test fails when their check goes. */
START_TEST (test_bad_mdp)
{
  rlref_mdp m = { 2, 1, NULL };
  double P[4] = { 0.5, 0.5, 1, 0 }, r[2] = { 1, 0 }, pi[2] = { 1, 1 }, g = 0.9, V[2];
  g = 1;
  TU_ASSERT_STATUS (rlref_mdp_vpi_d (V, &m, P, r, pi, &g), RLREF_EDOM);
  g = 0.9;
  P[1] = 0.5 + 0x1p-52;                         /* within the tolerance 2 2^-52 */
  TU_OK (rlref_mdp_vpi_d (V, &m, P, r, pi, &g));
  P[1] = 0.5 + 0x1p-49;                         /* beyond it */
  TU_ASSERT_STATUS (rlref_mdp_vpi_d (V, &m, P, r, pi, &g), RLREF_EDOM);
  P[1] = NAN;
  TU_ASSERT_STATUS (rlref_mdp_vpi_d (V, &m, P, r, pi, &g), RLREF_ENAN);
}
END_TEST

/* Two actions 2^-40 apart: state 0 stays with reward 1 - 2^-40 (action
 * 0) or 1 (action 2), state 1 stays with -2^-36 (action 0) or 0 (action
 * 2), gamma = 1/2: V* = (2, 0), the policy (2, 2), and Q* = (2 - 2^-40, 0,
 * 2, -2^-36, -1/2, 0), all exact.  Binary64's tie tolerance 2^-26 kept
 * action 0 (V(0) = 1.99999999999988). */
START_TEST (test_policy_iteration_near_tie)
{
  static const double P[12] = { 1, 0, 0, 1, 1, 0,  0, 1, 0.5, 0.5, 0, 1 };
  static const double R[6] = { 0x1.ffffffffffep-1, 0, 1, -0x1p-36, -1, 0 };
  static const double Qw[6] = { 0x1.fffffffffffp+0, 0, 2, -0x1p-36, -0.5, 0 };
  rlref_mdp m = { 2, 3, NULL };
  double g = 0.5, V[2], Q[6];
  size_t pol[2];
  long steps;
  TU_OK (rlref_mdp_policy_iteration_d (V, Q, pol, &steps, &m, P, R, &g));
  TU_ASSERT_SAME (V[0], 2.0);
  TU_ASSERT_SAME (V[1], 0.0);
  ck_assert_int_eq ((int) pol[0], 2);
  ck_assert_int_eq ((int) pol[1], 2);
  for (int k = 0; k < 6; k++)
    TU_ASSERT_SAME (Q[k], Qw[k]);
}
END_TEST

/* A 3-state, 2-action MDP: policy iteration, value iteration's fixed
 * point and its contraction bound, and V* >= V^pi for a policy. */
static const double P3[18] = { 0.5, 0.5, 0, 0, 0.2, 0.8, 0.3, 0.7, 0, 0.1, 0, 0.9, 0, 0, 1,
                               0.6, 0.2, 0.2 };
static const double R3[6] = { 1, 0, -0.5, 2, 0.25, -1 };

START_TEST (test_optimality)
{
  rlref_mdp m = { 3, 2, NULL };
  double g = 0.9, V[3], Q[6], Vf[3], Vk[3], err[31], bound[31], Vp[3];
  double pi[6] = { 0.5, 0.5, 0.5, 0.5, 0.5, 0.5 };
  size_t pol[3];
  long steps, sweeps;
  TU_OK (rlref_mdp_policy_iteration_d (V, Q, pol, &steps, &m, P3, R3, &g));
  ck_assert_int_eq ((int) pol[0], 0);
  ck_assert_int_eq ((int) pol[1], 1);
  ck_assert_int_eq ((int) pol[2], 1);
  ck_assert (steps >= 1 && steps <= 8);        /* 3 states, 2 actions: at most 2^3 */
  for (int s = 0; s < 3; s++)
    TU_ASSERT_REL (V[s], fmax (Q[2 * s], Q[2 * s + 1]), TU_TOL0);
  TU_OK (rlref_mdp_value_iteration_fixed_d (Vf, &sweeps, &m, P3, R3, &g));
  for (int s = 0; s < 3; s++)
    TU_ASSERT_REL (Vf[s], V[s], TU_TOL1);
  /* about log(2^55)/log(1/0.9) ~ 360 sweeps in binary64 */
  ck_assert (sweeps > 100 && sweeps < 1000);
  TU_OK (rlref_mdp_value_iteration_d (Vk, err, bound, 30, &m, P3, R3, &g));
  for (int k = 0; k <= 30; k++)
    ck_assert_msg (err[k] <= bound[k] * (1 + 1e-14), "k %d: %g > %g", k, err[k], bound[k]);
  TU_ASSERT_REL (bound[30], pow (0.9, 30) * bound[0], TU_TOL1);
  /* optimality: V* >= V^pi */
  TU_OK (rlref_mdp_vpi_d (Vp, &m, P3, R3, pi, &g));
  for (int s = 0; s < 3; s++)
    ck_assert (V[s] >= Vp[s]);
}
END_TEST

/* Value iteration's error max_s |V_k - V*| far below the rounding of V*:
 * gamma = 0.9 2^-37, k = 5 gives an error near 4.6e-57 against V* ~ 1,
 * which the difference of the two rounded values lost to 0; the error
 * recursion holds it to a few roundings of the 256-bit value. */
START_TEST (test_value_iteration_small_error)
{
  rlref_mdp m = { 3, 2, NULL };
  double g = 0x1.ccccccccccccdp-38, Vk[3], err[6], bound[6];
  mpfr_ptr Pm = tu_mp_vec_from_d (P3, 18, PREC), Rm = tu_mp_vec_from_d (R3, 6, PREC);
  mpfr_ptr gm = tu_mp_vec_from_d (&g, 1, PREC), Vkm = tu_mp_vec_new (3, PREC);
  mpfr_ptr errm = tu_mp_vec_new (6, PREC), boundm = tu_mp_vec_new (6, PREC);
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_mdp_value_iteration_d (Vk, err, bound, 5, &m, P3, R3, &g));
  TU_OK (rlref_mdp_value_iteration_mp (Vkm, errm, boundm, 5, &m, Pm, Rm, gm));
  ck_assert (mpfr_get_d (errm + 5, MPFR_RNDN) > 1e-57);
  for (int j = 0; j <= 5; j++)
    {
      TU_ASSERT_REL (err[j], mpfr_get_d (errm + j, MPFR_RNDN), TU_TOL1);
      TU_ASSERT_REL (bound[j], mpfr_get_d (boundm + j, MPFR_RNDN), TU_TOL1);
      ck_assert (err[j] <= bound[j]);
    }
  tu_mp_vec_free (Pm, 18);
  tu_mp_vec_free (Rm, 6);
  tu_mp_vec_free (gm, 1);
  tu_mp_vec_free (Vkm, 3);
  tu_mp_vec_free (errm, 6);
  tu_mp_vec_free (boundm, 6);
}
END_TEST

/* --- Q-learning ------------------------------------------------------------ */

START_TEST (test_qlearning)
{
  enum { N = 20000 };
  rlref_mdp m = { 3, 2, NULL };
  double g = 0.5, eps = 0.1, Q1[6], Q2[6], *e1 = malloc ((N + 1) * sizeof *e1);
  double *e2 = malloc ((N + 1) * sizeof *e2);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  mpfr_ptr Pm = tu_mp_vec_from_d (P3, 18, PREC), rm = tu_mp_vec_from_d (R3, 6, PREC);
  mpfr_ptr gm = tu_mp_vec_new (2, PREC), Qm = tu_mp_vec_new (6, PREC);
  gsl_rng_set (rng, 2024);
  TU_OK (rlref_mdp_qlearn_d (Q1, e1, &m, P3, R3, &g, 0, N, &eps, RLREF_EGREEDY_INCLUDE, rng));
  gsl_rng_set (rng, 2024);
  TU_OK (rlref_mdp_qlearn_d (Q2, e2, &m, P3, R3, &g, 0, N, &eps, RLREF_EGREEDY_INCLUDE, rng));
  ck_assert (memcmp (Q1, Q2, sizeof Q1) == 0);
  ck_assert (memcmp (e1, e2, (N + 1) * sizeof *e1) == 0);
  /* the distance to Q* falls (Robbins-Monro steps) */
  ck_assert (e1[N] < 0.1 * e1[0]);
  ck_assert (e1[N] < e1[N / 10]);
  /* the MPFR run follows the same trajectory: Q agrees to rounding */
  rlref_mp_set_prec (PREC);
  mpfr_set_d (gm, g, MPFR_RNDN);
  mpfr_set_d (gm + 1, eps, MPFR_RNDN);
  gsl_rng_set (rng, 2024);
  TU_OK (rlref_mdp_qlearn_mp (Qm, NULL, &m, Pm, rm, gm, 0, N, gm + 1, RLREF_EGREEDY_INCLUDE,
                              rng));
  /* and the binary64 run is it rounded once (the stream left where the
     run leaves it) */
  {
    unsigned long after_mp = gsl_rng_get (rng);
    gsl_rng_set (rng, 2024);
    TU_OK (rlref_mdp_qlearn_d (Q1, NULL, &m, P3, R3, &g, 0, N, &eps, RLREF_EGREEDY_INCLUDE,
                               rng));
    ck_assert_uint_eq (gsl_rng_get (rng), after_mp);
  }
  for (int k = 0; k < 6; k++)
    TU_ASSERT_SAME (Q1[k], mpfr_get_d (Qm + k, MPFR_RNDN));
  /* the start state must not be terminal; steps >= 0 */
  {
    unsigned char term[3] = { 1, 0, 0 };
    rlref_mdp mt = { 3, 2, term };
    TU_ASSERT_STATUS (rlref_mdp_qlearn_d (Q1, NULL, &mt, P3, R3, &g, 0, 10, &eps,
                                          RLREF_EGREEDY_INCLUDE, rng), RLREF_EDOM);
  }
  TU_ASSERT_STATUS (rlref_mdp_qlearn_d (Q1, NULL, &m, P3, R3, &g, 0, -1, &eps,
                                        RLREF_EGREEDY_INCLUDE, rng), RLREF_EDOM);
  gsl_rng_free (rng);
  free (e1);
  free (e2);
  tu_mp_vec_free (Pm, 18);
  tu_mp_vec_free (rm, 6);
  tu_mp_vec_free (gm, 2);
  tu_mp_vec_free (Qm, 6);
}
END_TEST

/* The distance max |Q - Q*| where Q = r + gamma max Q' with gamma =
 * 2^-824 (times 1.8): Q and Q* agree to far below their ulps, and the
 * binary64 run gave the distance 0 for 3.4e-250 (rounding Q at each step);
 * the uniform behaviour of MDP-QL at 3,000 steps, seed 7, against the
 * MPFR run at 1024 bits rounded. */
START_TEST (test_qlearning_tiny_gamma)
{
  enum { N = 3000 };
  static const unsigned char term[3] = { 0, 0, 1 };
  static const double P[18] = { 0.5, 0.3, 0.2, 0, 0.2, 0.8, 0.3, 0.7, 0,
                                0.1, 0, 0.9, 0, 0, 0, 0, 0, 0 };
  static const double R[6] = { 0.9, 0.1, -0.4, 1.75, 0, 0 };
  rlref_mdp m = { 3, 2, term };
  double g = 0x1.ccccccccccccdp-824, Q[6], *e = malloc ((N + 1) * sizeof *e);
  gsl_rng *rng = gsl_rng_alloc (gsl_rng_mt19937);
  mpfr_ptr Pm = tu_mp_vec_from_d (P, 18, 1024), rm = tu_mp_vec_from_d (R, 6, 1024);
  mpfr_ptr gm = tu_mp_vec_from_d (&g, 1, 1024), Qm = tu_mp_vec_new (6, 1024);
  mpfr_ptr em = tu_mp_vec_new (N + 1, 1024);
  rlref_mp_set_prec (1024);
  gsl_rng_set (rng, 7);
  TU_OK (rlref_mdp_qlearn_mp (Qm, em, &m, Pm, rm, gm, 0, N, NULL, RLREF_EGREEDY_INCLUDE, rng));
  gsl_rng_set (rng, 7);
  TU_OK (rlref_mdp_qlearn_d (Q, e, &m, P, R, &g, 0, N, NULL, RLREF_EGREEDY_INCLUDE, rng));
  ck_assert (mpfr_cmp_d (em + N, 1e-260) > 0 && mpfr_cmp_d (em + N, 1e-240) < 0);
  for (int k = 0; k < 6; k++)
    TU_ASSERT_SAME (Q[k], mpfr_get_d (Qm + k, MPFR_RNDN));
  for (int i = 0; i <= N; i++)
    TU_ASSERT_SAME (e[i], mpfr_get_d (em + i, MPFR_RNDN));
  rlref_mp_set_prec (PREC);
  gsl_rng_free (rng);
  free (e);
  tu_mp_vec_free (Pm, 18);
  tu_mp_vec_free (rm, 6);
  tu_mp_vec_free (gm, 1);
  tu_mp_vec_free (Qm, 6);
  tu_mp_vec_free (em, N + 1);
}
END_TEST


/* --- policy gradient --------------------------------------------------------- */

static const double PP[8] = { 0.75, 0.25, 0.25, 0.75, 0.375, 0.625, 0.875, 0.125 };
static const double PR[4] = { 1, 0, -0.5, 2 }, PRHO[2] = { 0.625, 0.375 };

START_TEST (test_pg)
{
  rlref_mdp m = { 2, 2, NULL };
  double th[4] = { 0.3, -0.2, 0.1, 0.5 }, g = 0.9, J, Jp, Jm, gt[4], ge[4], gs[4], var[3], w;
  double tmp[4];
  static const rlref_pg_estimator est[3] = { RLREF_PG_FULL, RLREF_PG_TO_GO, RLREF_PG_BASELINE };
  TU_OK (rlref_mdp_pg_theorem_d (&J, gt, &m, PP, PR, PRHO, th, &g, 4));
  /* central differences of J */
  for (int i = 0; i < 4; i++)
    {
      double h = 1e-6, keep = th[i];
      th[i] = keep + h;
      TU_OK (rlref_mdp_pg_theorem_d (&Jp, tmp, &m, PP, PR, PRHO, th, &g, 4));
      th[i] = keep - h;
      TU_OK (rlref_mdp_pg_theorem_d (&Jm, tmp, &m, PP, PR, PRHO, th, &g, 4));
      th[i] = keep;
      TU_ASSERT_ABS (gt[i], (Jp - Jm) / (2 * h), 1e-8);
    }
  for (int e = 0; e < 3; e++)
    {
      TU_OK (rlref_mdp_pg_reinforce_d (ge, var + e, &m, PP, PR, PRHO, th, &g, 4, est[e]));
      for (int i = 0; i < 4; i++)
        TU_ASSERT_ABS (ge[i], gt[i], 64 * DBL_EPSILON);
    }
  ck_assert (var[2] < var[1] && var[1] < var[0]);
  /* seed 003's form: biased at gamma 0.9, unbiased at gamma 1 */
  TU_OK (rlref_mdp_pg_reinforce_d (gs, &w, &m, PP, PR, PRHO, th, &g, 4, RLREF_PG_SEED003));
  ck_assert (fabs (gs[0] - gt[0]) > 1e-3);
  g = 1;
  TU_OK (rlref_mdp_pg_theorem_d (&J, gt, &m, PP, PR, PRHO, th, &g, 4));
  TU_OK (rlref_mdp_pg_reinforce_d (gs, &w, &m, PP, PR, PRHO, th, &g, 4, RLREF_PG_SEED003));
  for (int i = 0; i < 4; i++)
    TU_ASSERT_ABS (gs[i], gt[i], 64 * DBL_EPSILON);
  g = -0.5;
  TU_ASSERT_STATUS (rlref_mdp_pg_theorem_d (&J, gt, &m, PP, PR, PRHO, th, &g, 4), RLREF_EDOM);
  g = 0.9;
  TU_ASSERT_STATUS (rlref_mdp_pg_theorem_d (&J, gt, &m, PP, PR, PRHO, th, &g, 0), RLREF_EDOM);
}
END_TEST

/* A large score (theta(1, 0) = 25.6, so pi(0 | 1) = 1 - 5e-12) at gamma
 * = 1, H = 3: the gradient's element (1, 0) is -5.2e-11, and the terms of
 * E g it cancels from are of order 1 (binary64 enumeration was 1e-6 of it
 * off).  Every estimator, unbiased at gamma = 1, is the policy-gradient
 * theorem's gradient at 1024 bits rounded. */
START_TEST (test_pg_large_theta)
{
  static const rlref_pg_estimator est[4] = { RLREF_PG_FULL, RLREF_PG_TO_GO, RLREF_PG_BASELINE,
                                             RLREF_PG_SEED003 };
  rlref_mdp m = { 2, 2, NULL };
  double th[4] = { 0, -0.2, 25.6, 0.5 }, g = 1, ge[4], var;
  mpfr_ptr Pm = tu_mp_vec_from_d (PP, 8, 1024), rm = tu_mp_vec_from_d (PR, 4, 1024);
  mpfr_ptr rhom = tu_mp_vec_from_d (PRHO, 2, 1024), thm = tu_mp_vec_from_d (th, 4, 1024);
  mpfr_ptr gm = tu_mp_vec_from_d (&g, 1, 1024), Jm = tu_mp_vec_new (1, 1024);
  mpfr_ptr gt = tu_mp_vec_new (4, 1024);
  rlref_mp_set_prec (1024);
  TU_OK (rlref_mdp_pg_theorem_mp (Jm, gt, &m, Pm, rm, rhom, thm, gm, 3));
  ck_assert (mpfr_cmp_d (gt + 2, -5e-11) < 0 && mpfr_cmp_d (gt + 2, -6e-11) > 0);
  for (int e = 0; e < 4; e++)
    {
      TU_OK (rlref_mdp_pg_reinforce_d (ge, &var, &m, PP, PR, PRHO, th, &g, 3, est[e]));
      for (int i = 0; i < 4; i++)
        TU_ASSERT_SAME (ge[i], mpfr_get_d (gt + i, MPFR_RNDN));
    }
  /* the stated limit: 4^9 = 262,144 trajectories are more than 2e5 */
  TU_ASSERT_STATUS (rlref_mdp_pg_reinforce_d (ge, &var, &m, PP, PR, PRHO, th, &g, 9,
                                              RLREF_PG_FULL), RLREF_EINVAL);
  rlref_mp_set_prec (PREC);
  tu_mp_vec_free (Pm, 8);
  tu_mp_vec_free (rm, 4);
  tu_mp_vec_free (rhom, 2);
  tu_mp_vec_free (thm, 4);
  tu_mp_vec_free (gm, 1);
  tu_mp_vec_free (Jm, 1);
  tu_mp_vec_free (gt, 4);
}
END_TEST

/* The token MDP of a tabular tiny LM. */
static const double TL[21] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2, 0, 0, 0, 1,
                               -1, 0, -0.3, 0.3, 0 };
static const double TR[5] = { 1, -0.5, 0, -0.25, -1 };

static rlref_lm
token_model (void)
{
  return (rlref_lm) { .V = 3, .eos = 2, .T = 3, .kind = RLREF_LM_TABULAR,
                      .truncation = RLREF_LM_KEEP, .n_rows = 7,
                      .reward = RLREF_REWARD_ADDITIVE };
}

START_TEST (test_token_pg)
{
  rlref_lm lm = token_model ();
  double one = 1, J, gt[21], ge[21], var[3];
  static const rlref_pg_estimator est[3] = { RLREF_PG_FULL, RLREF_PG_TO_GO, RLREF_PG_BASELINE };
  TU_OK (rlref_lm_objective_d (&J, gt, &lm, TL, TL, TR, &one, RLREF_LM_OBJ_REWARD));
  for (int e = 0; e < 3; e++)
    {
      TU_OK (rlref_mdp_token_reinforce_d (ge, var + e, &lm, TL, TR, est[e]));
      for (int i = 0; i < 21; i++)
        TU_ASSERT_ABS (ge[i], gt[i], 32 * DBL_EPSILON);
    }
  ck_assert (var[2] < var[1] && var[1] < var[0]);
  TU_ASSERT_STATUS (rlref_mdp_token_reinforce_d (ge, var, &lm, TL, TR, RLREF_PG_SEED003),
                    RLREF_EINVAL);
}
END_TEST

/* The soft Bellman recursion: the sequence-level pi*, V(root) = beta log Z,
 * and pi* -> pi_ref as beta grows. */
START_TEST (test_soft)
{
  rlref_lm lm = token_model ();
  double beta = 0.5, v1, v2, l1[21], l2[21], m[RLREF_LM_NMOMENTS], ref[21];
  TU_OK (rlref_mdp_soft_bellman_d (&v1, l1, &lm, TL, TR, &beta));
  TU_OK (rlref_mdp_soft_sequence_d (&v2, l2, &lm, TL, TR, &beta));
  TU_ASSERT_REL (v1, v2, TU_TOL1);
  for (int i = 0; i < 21; i++)
    TU_ASSERT_ABS (l1[i], l2[i], TU_TOL2);
  TU_OK (rlref_lm_moments_d (m, &lm, TL, TR, &beta, RLREF_LM_ALL, NULL, NULL));
  TU_ASSERT_REL (v1, beta * m[RLREF_LM_LOG_Z], TU_TOL1);
  beta = 1e6;
  TU_OK (rlref_mdp_soft_bellman_d (&v1, l1, &lm, TL, TR, &beta));
  for (int k = 0; k < 7; k++)
    TU_OK (rlref_log_softmax_d (ref + 3 * k, TL + 3 * k, 3));
  for (int i = 0; i < 21; i++)
    TU_ASSERT_ABS (l1[i], ref[i], 1e-5);
  TU_ASSERT_REL (v1, m[RLREF_LM_MEAN_R], 1e-5);   /* beta log E[e^{r/beta}] -> E[r] */
  beta = 0;
  TU_ASSERT_STATUS (rlref_mdp_soft_bellman_d (&v1, l1, &lm, TL, TR, &beta), RLREF_EDOM);
}
END_TEST

/* The soft value against MPFR at 256 bits, both methods, from a tiny to
 * the largest beta: V = H + beta log S with the hard maximum H shifted out
 * and log S by log1p, so the error does not grow with beta (plain
 * beta lse(log pi_ref + Q/beta) lost about beta u: 9,000 ulps at 1e4, 0.44
 * of 0.47 at 1e15, 0 for -0.28 at 2^263 and at DBL_MAX), and at beta =
 * 2^-753 the soft parts below the rounding of Q/beta are kept where the
 * hard parts tie exactly (element 9 of log pi* was log(1/2) for -1.70). */
START_TEST (test_soft_extreme_beta)
{
  static const double betas[] = { 0.5, 50, 1e4, 1e15, 1e16, 0x1p263, 0x1.9p321, DBL_MAX,
                                  0x1.47ae147ae147bp-753 };
  static const double TR2[5] = { 1, -0.5, 0, -0.25, -0x1.0008p+0 };
  rlref_lm lm = token_model ();
  mpfr_ptr lm_ = tu_mp_vec_from_d (TL, 21, PREC), vm = tu_mp_vec_new (1, PREC);
  mpfr_ptr lpm = tu_mp_vec_new (21, PREC), bm = tu_mp_vec_new (1, PREC);
  rlref_mp_set_prec (PREC);
  for (int r = 0; r < 2; r++)
    {
      const double *rw = r ? TR2 : TR;
      mpfr_ptr rm = tu_mp_vec_from_d (rw, 5, PREC);
      for (size_t i = 0; i < sizeof betas / sizeof *betas; i++)
        for (int seq = 0; seq < 2; seq++)
          {
            double v, lp[21], beta = betas[i], want;
            mpfr_set_d (bm, beta, MPFR_RNDN);
            if (seq)
              {
                TU_OK (rlref_mdp_soft_sequence_d (&v, lp, &lm, TL, rw, &beta));
                TU_OK (rlref_mdp_soft_sequence_mp (vm, lpm, &lm, lm_, rm, bm));
              }
            else
              {
                TU_OK (rlref_mdp_soft_bellman_d (&v, lp, &lm, TL, rw, &beta));
                TU_OK (rlref_mdp_soft_bellman_mp (vm, lpm, &lm, lm_, rm, bm));
                for (int k = 0; k < 21; k++)
                  TU_ASSERT_ABS (lp[k], mpfr_get_d (lpm + k, MPFR_RNDN), TU_TOL1);
              }
            want = mpfr_get_d (vm, MPFR_RNDN);
            ck_assert (fabs (want) > 0.1);
            TU_ASSERT_REL (v, want, TU_TOL1);
          }
      tu_mp_vec_free (rm, 5);
    }
  tu_mp_vec_free (lm_, 21);
  tu_mp_vec_free (vm, 1);
  tu_mp_vec_free (lpm, 21);
  tu_mp_vec_free (bm, 1);
}
END_TEST

/* Soft values that cancel beyond binary64: a per-length reward of 2^746
 * at beta = 0.01 (every log pi* is a difference of soft values near
 * 2^753; log pi*(0 | row 1) was -0.377 for -2.5e-66), and a truncation
 * reward of 2^196 at beta = 2^-477 (every cut leaf is 2^673 plus an O(1)
 * part; v_root was -log 2 where it is finite).  Each binary64 method is
 * the other method's MPFR value at 2048 bits rounded, bit for bit. */
START_TEST (test_soft_rounded_once)
{
  static const double rw[2][5] = { { 1, -0.5, 0, 0x1p746, -0x1.000000000004p+0 },
                                   { 1, -0.5, 0, -0.25, 0x1p196 } };
  static const double betas[2] = { 0x1.47ae147ae147bp-7, 0x1p-477 };
  rlref_lm lm = token_model ();
  mpfr_ptr lm_ = tu_mp_vec_from_d (TL, 21, 2048), vm = tu_mp_vec_new (1, 2048);
  mpfr_ptr lpm = tu_mp_vec_new (21, 2048);
  rlref_mp_set_prec (2048);
  for (int c = 0; c < 2; c++)
    for (int seq = 0; seq < 2; seq++)
      {
        mpfr_ptr rm = tu_mp_vec_from_d (rw[c], 5, 2048), bm = tu_mp_vec_from_d (betas + c, 1, 2048);
        double v, lp[21], beta = betas[c];
        if (seq)
          {
            TU_OK (rlref_mdp_soft_sequence_d (&v, lp, &lm, TL, rw[c], &beta));
            TU_OK (rlref_mdp_soft_bellman_mp (vm, lpm, &lm, lm_, rm, bm));
          }
        else
          {
            TU_OK (rlref_mdp_soft_bellman_d (&v, lp, &lm, TL, rw[c], &beta));
            TU_OK (rlref_mdp_soft_sequence_mp (vm, lpm, &lm, lm_, rm, bm));
          }
        TU_ASSERT_SAME (v, mpfr_get_d (vm, MPFR_RNDN));
        for (int k = 0; k < 21; k++)
          TU_ASSERT_SAME (lp[k], mpfr_get_d (lpm + k, MPFR_RNDN));
        tu_mp_vec_free (rm, 5);
        tu_mp_vec_free (bm, 1);
      }
  rlref_mp_set_prec (PREC);
  tu_mp_vec_free (lm_, 21);
  tu_mp_vec_free (vm, 1);
  tu_mp_vec_free (lpm, 21);
}
END_TEST

/* The sequence-level pi* with a large EOS reward: every sequence but the
 * cut ones ends in EOS, so token[eos] = 0x1.7d784p+26 (beta 1/2) moves
 * every log Z by the same 2e8 and pi* only through the cut sequences;
 * as r/beta in every row it cancelled in the softmax (6.1e-10 off at
 * log pi*(0 | root)).  EOS's reward DBL_MAX at beta 0.01: log pi* of the
 * other tokens is beyond the range, ERANGE (was ENAN, infinite scores). */
START_TEST (test_soft_sequence_eos_reward)
{
  double TR2[5] = { 1, -0.5, 0x1.7d784p+26, -0.25, -1 }, beta = 0x1.000000000001p-1, v, lp[21];
  rlref_lm lm = token_model ();
  mpfr_ptr lm_ = tu_mp_vec_from_d (TL, 21, PREC), rm = tu_mp_vec_from_d (TR2, 5, PREC);
  mpfr_ptr bm = tu_mp_vec_from_d (&beta, 1, PREC), vm = tu_mp_vec_new (1, PREC);
  mpfr_ptr lpm = tu_mp_vec_new (21, PREC);
  rlref_mp_set_prec (PREC);
  TU_OK (rlref_mdp_soft_sequence_d (&v, lp, &lm, TL, TR2, &beta));
  TU_OK (rlref_mdp_soft_sequence_mp (vm, lpm, &lm, lm_, rm, bm));
  for (int k = 0; k < 21; k++)
    {
      double want = mpfr_get_d (lpm + k, MPFR_RNDN);
      TU_ASSERT_ABS (lp[k], want, TU_TOL1 * fmax (1, fabs (want)));
    }
  TR2[2] = DBL_MAX;
  beta = 0.01;
  TU_ASSERT_STATUS (rlref_mdp_soft_sequence_d (&v, lp, &lm, TL, TR2, &beta), RLREF_ERANGE);
  tu_mp_vec_free (lm_, 21);
  tu_mp_vec_free (rm, 5);
  tu_mp_vec_free (bm, 1);
  tu_mp_vec_free (vm, 1);
  tu_mp_vec_free (lpm, 21);
}
END_TEST

/* The sensitivities from the formulas' own derivatives, on cases worked
 * by hand: r = (1, -2), gamma 1/2: G = (0, -2), sens G_1 = 2, sens G_0 =
 * |1| + gamma |-2| + |gamma r_1| = 3; the horizon's gamma dh/dgamma
 * (infinite: gamma/(1 - gamma)^2 = 2; H = 3: 0 + 1/2 + 2/4 = 1; gamma =
 * 1: H (H - 1)/2 = 3); seed 003's Q update (sens target = |r| + 2 gamma
 * max q' = 2.584, sens q_new = 0.9 |q| + 0.1 |y - q| + 0.1 sens y =
 * 0.8376); epsilon-greedy over q = (1, 3, 3), eps 0.3: the greedy
 * (first) eps (1 - 1/3), the others eps/3, a jump at both tied actions;
 * both backends. */
START_TEST (test_sensitivities)
{
  double r[2] = { 1, -2 }, G[2], s[2], h, t, qn, q_next[2] = { 0.8, 0.2 };
  double q[3] = { 1, 3, 3 }, p[3];
  int kink, jump[3];
  ck_assert_int_eq (rlref_mdp_return_d (G, r, 2, &(double) { 0.5 }), 0);
  ck_assert_int_eq (rlref_mdp_return_sens_d (s, r, 2, &(double) { 0.5 }, G), 0);
  TU_ASSERT_REL (s[0], 3.0, TU_TOL0);
  TU_ASSERT_REL (s[1], 2.0, TU_TOL0);
  ck_assert_int_eq (rlref_mdp_horizon_sens_d (&h, &(double) { 0.5 }, -1), 0);
  TU_ASSERT_REL (h, 2.0, TU_TOL0);
  ck_assert_int_eq (rlref_mdp_horizon_sens_d (&h, &(double) { 0.5 }, 3), 0);
  TU_ASSERT_REL (h, 1.0, 1e-15);
  ck_assert_int_eq (rlref_mdp_horizon_sens_d (&h, &(double) { 1.0 }, 3), 0);
  TU_ASSERT_REL (h, 3.0, TU_TOL0);
  ck_assert_int_eq (rlref_mdp_q_update_d (&t, &qn, &(double) { 0.5 }, &(double) { 1.0 },
                                          &(double) { 0.99 }, &(double) { 0.1 }, q_next, 2, 0),
                    0);
  ck_assert_int_eq (rlref_mdp_q_update_sens_d (&h, s, &kink, &(double) { 0.5 },
                                               &(double) { 1.0 }, &(double) { 0.99 },
                                               &(double) { 0.1 }, q_next, 2, 0, &t), 0);
  TU_ASSERT_REL (h, 2.584, 1e-15);
  TU_ASSERT_REL (s[0], 0.8376, 1e-15);
  ck_assert_int_eq (kink, 0);
  ck_assert_int_eq (rlref_mdp_egreedy_sens_d (p, jump, q, 3, &(double) { 0.3 },
                                              RLREF_EGREEDY_INCLUDE), 0);
  TU_ASSERT_REL (p[1], 0.2, 1e-15);
  TU_ASSERT_REL (p[0], 0.1, 1e-15);
  TU_ASSERT_REL (p[2], 0.1, 1e-15);
  ck_assert (jump[0] == 0 && jump[1] == 1 && jump[2] == 1);
  {
    mpfr_t mr[2], mG[2], ms[2], mg;
    rlref_mp_set_prec (256);
    for (int k = 0; k < 2; k++)
      mpfr_inits2 (256, mr[k], mG[k], ms[k], (mpfr_ptr) 0);
    mpfr_init2 (mg, 256);
    mpfr_set_d (mr[0], 1, MPFR_RNDN);
    mpfr_set_d (mr[1], -2, MPFR_RNDN);
    mpfr_set_d (mg, 0.5, MPFR_RNDN);
    ck_assert_int_eq (rlref_mdp_return_mp (mG[0], mr[0], 2, mg), 0);
    ck_assert_int_eq (rlref_mdp_return_sens_mp (ms[0], mr[0], 2, mg, mG[0]), 0);
    ck_assert (mpfr_cmp_ui (ms[0], 3) == 0 && mpfr_cmp_ui (ms[1], 2) == 0);
    ck_assert_int_eq (rlref_mdp_horizon_sens_mp (ms[0], mg, 3), 0);
    ck_assert (mpfr_cmp_ui (ms[0], 1) == 0);
    for (int k = 0; k < 2; k++)
      mpfr_clears (mr[k], mG[k], ms[k], (mpfr_ptr) 0);
    mpfr_clear (mg);
  }
}
END_TEST

/* The expected reward of a reward on the next state: P rows (1/4, 3/4)
 * and (1, 0), R (4, -2) and (3, 7): r = (1 - 3/2, 3) = (-1/2, 3) in both
 * backends; a NaN reward refused (ENAN). */
START_TEST (test_expected_reward)
{
  double P[4] = { 0.25, 0.75, 1, 0 }, R[4] = { 4, -2, 3, 7 }, r[2];
  mpfr_t mP[4], mR[4], mr[2];
  ck_assert_int_eq (rlref_mdp_expected_reward_d (r, P, R, 2, 1), 0);
  ck_assert (r[0] == -0.5 && r[1] == 3.0);
  rlref_mp_set_prec (256);
  for (int k = 0; k < 4; k++)
    {
      mpfr_init2 (mP[k], 256);
      mpfr_init2 (mR[k], 256);
      mpfr_set_d (mP[k], P[k], MPFR_RNDN);
      mpfr_set_d (mR[k], R[k], MPFR_RNDN);
    }
  mpfr_inits2 (256, mr[0], mr[1], (mpfr_ptr) 0);
  ck_assert_int_eq (rlref_mdp_expected_reward_mp (mr[0], mP[0], mR[0], 2, 1), 0);
  ck_assert (mpfr_cmp_d (mr[0], -0.5) == 0 && mpfr_cmp_ui (mr[1], 3) == 0);
  for (int k = 0; k < 4; k++)
    mpfr_clears (mP[k], mR[k], (mpfr_ptr) 0);
  mpfr_clears (mr[0], mr[1], (mpfr_ptr) 0);
  R[3] = NAN;
  TU_ASSERT_STATUS (rlref_mdp_expected_reward_d (r, P, R, 2, 1), RLREF_ENAN);
}
END_TEST

static Suite *
mdp_suite (void)
{
  Suite *s = suite_create ("mdp");
  TCase *tc = tu_tcase ("mdp");
  tcase_add_test (tc, test_return_closed_form);
  tcase_add_test (tc, test_return_long_horizon);
  tcase_add_test (tc, test_horizon);
  tcase_add_test (tc, test_sensitivities);
  tcase_add_test (tc, test_expected_reward);
  tcase_add_test (tc, test_q_update_example);
  tcase_add_test (tc, test_egreedy);
  tcase_add_test (tc, test_gae_detector);
  tcase_add_test (tc, test_gae_conventions);
  tcase_add_test (tc, test_gae_lambda_limits);
  tcase_add_test (tc, test_vpi_closed_form);
  tcase_add_test (tc, test_bad_mdp);
  tcase_add_test (tc, test_optimality);
  tcase_add_test (tc, test_policy_iteration_near_tie);
  tcase_add_test (tc, test_value_iteration_small_error);
  tcase_add_test (tc, test_qlearning);
  tcase_add_test (tc, test_qlearning_tiny_gamma);
  tcase_add_test (tc, test_pg);
  tcase_add_test (tc, test_pg_large_theta);
  tcase_add_test (tc, test_token_pg);
  tcase_add_test (tc, test_soft);
  tcase_add_test (tc, test_soft_extreme_beta);
  tcase_add_test (tc, test_soft_rounded_once);
  tcase_add_test (tc, test_soft_sequence_eos_reward);
  suite_add_tcase (s, tc);
  return s;
}

TU_MAIN (mdp_suite)
