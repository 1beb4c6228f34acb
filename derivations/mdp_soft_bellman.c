/* mdp_soft_bellman.c -- the KL-regularised (soft) Bellman recursion on the
 * token MDP of a tiny LM, checked at 256 bits against the sequence-level
 * optimum of seed 000 section 4 (MDP-SOFT, KLOPT-PISTAR, KLOPT-Z):
 *   Q(s, a) = r(s, a) + V(s a),  V(s) = beta log sum_a pi_ref(a|s) e^{Q(s,a)/beta},
 *   pi*(a|s) = pi_ref(a|s) e^{(Q(s,a) - V(s))/beta};
 *   - V(root) = beta log Z, Z = sum_y pi_ref(y) e^{r(y)/beta} (13.15);
 *   - for every sequence y, sum_t log pi*(y_t|s_t) = log pi_ref(y) + r(y)/beta
 *     - log Z = log pi*(y) (13.17), the sequence-level optimum;
 *   - the token-level log pi*(a|s) of the recursion equals the log-softmax
 *     of KLOPT-PISTAR's logits, at every prefix;
 *   - each pi*(.|s) sums to 1;
 * at beta from 0.01 to 100. Each step prints its residual and its bound;
 * exit 1 if one exceeds it. */
#include <stdio.h>
#include <stdlib.h>
#include <mpfr.h>
#include "rlref/rlref.h"
#include "residual.h"

enum { V = 3, ROWS = 7, N = ROWS * V };

/* The sequences' worst residual between the token-level sum and the
 * sequence-level log pi*(y). */
struct walk
{
  mpfr_srcptr logp_star;        /* token level, N */
  mpfr_t worst, t, u;
  int eos;
};

static void
visit (void *ctx, const int *y, int L, int cut, mpfr_srcptr logp, mpfr_srcptr r,
       mpfr_srcptr logp_star)
{
  struct walk *w = ctx;
  (void) cut;
  (void) logp;
  (void) r;
  mpfr_set_zero (w->t, 1);
  for (int t = 0; t < L; t++)
    {
      size_t row = rlref_lm_prefix_index (V, w->eos, y, t);
      mpfr_add (w->t, w->t, w->logp_star + row * V + y[t], MPFR_RNDN);
    }
  mpfr_sub (w->u, w->t, logp_star, MPFR_RNDN);
  mpfr_abs (w->u, w->u, MPFR_RNDN);
  mpfr_max (w->worst, w->worst, w->u, MPFR_RNDN);
}

static void
check (double beta_d)
{
  static const double lg[N] = { 1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2, 0, 0, 0,
                                1, -1, 0, -0.3, 0.3, 0 };
  static const double rw[V + 2] = { 1, -0.5, 0, -0.25, -1 };
  rlref_lm lm = { .V = V, .eos = 2, .T = 3, .kind = RLREF_LM_TABULAR,
                  .truncation = RLREF_LM_KEEP, .n_rows = ROWS,
                  .reward = RLREF_REWARD_ADDITIVE };
  mpfr_ptr logits = mp_vec (N), reward = mp_vec (V + 2), beta = mp_vec (1), ls = mp_vec (N), lq = mp_vec (N);
  mpfr_ptr v = mp_vec (2), mom = mp_vec (RLREF_LM_NMOMENTS), t = mp_vec (3);
  struct walk w;
  char label[128];
  for (int i = 0; i < N; i++)
    mpfr_set_d (logits + i, lg[i], MPFR_RNDN);
  for (int i = 0; i < V + 2; i++)
    mpfr_set_d (reward + i, rw[i], MPFR_RNDN);
  mpfr_set_d (beta, beta_d, MPFR_RNDN);
  printf ("%sbeta = %g: tabular tiny LM, V = 3, T = 3, 15 sequences\n", beta_d == 0.01 ? "" : "\n",
          beta_d);
  OK (rlref_mdp_soft_bellman_mp (v, ls, &lm, logits, reward, beta));
  OK (rlref_mdp_soft_sequence_mp (v + 1, lq, &lm, logits, reward, beta));
  /* V(root) = beta log Z */
  mpfr_inits2 (PREC, w.worst, w.t, w.u, (mpfr_ptr) 0);
  mpfr_set_zero (w.worst, 1);
  w.logp_star = ls;
  w.eos = lm.eos;
  OK (rlref_lm_moments_mp (mom, &lm, logits, reward, beta, RLREF_LM_ALL, visit, &w));
  mpfr_mul (t, mom + RLREF_LM_LOG_Z, beta, MPFR_RNDN);
  step ("soft Bellman V(root) = beta log Z (13.15)", v, t, 1, -240);
  mpfr_set_zero (t + 1, 1);
  step ("sum_t log pi*(y_t|s_t) = log pi*(y) (13.17), worst of 15 y", w.worst, t + 1, 0, -235);
  /* token level against KLOPT-PISTAR's logits, every prefix and token */
  mpfr_set_zero (t, 1);
  for (int i = 0; i < N; i++)
    {
      mpfr_sub (t + 2, ls + i, lq + i, MPFR_RNDN);
      mpfr_abs (t + 2, t + 2, MPFR_RNDN);
      mpfr_max (t, t, t + 2, MPFR_RNDN);
    }
  step ("log pi*(a|s): recursion = log-softmax of pistar_logits", t, t + 1, 0, -235);
  /* each row of pi* sums to 1 */
  mpfr_set_zero (t, 1);
  for (int k = 0; k < ROWS; k++)
    {
      mpfr_set_zero (t + 2, 1);
      for (int a = 0; a < V; a++)
        {
          mpfr_exp (t + 1, ls + k * V + a, MPFR_RNDN);
          mpfr_add (t + 2, t + 2, t + 1, MPFR_RNDN);
        }
      mpfr_sub_ui (t + 2, t + 2, 1, MPFR_RNDN);
      mpfr_abs (t + 2, t + 2, MPFR_RNDN);
      mpfr_max (t, t, t + 2, MPFR_RNDN);
    }
  mpfr_set_zero (t + 1, 1);
  snprintf (label, sizeof label, "sum_a pi*(a|s) = 1, worst of %d prefixes", ROWS);
  step (label, t, t + 1, 0, -245);
  mpfr_clears (w.worst, w.t, w.u, (mpfr_ptr) 0);
  mp_vec_free (logits, N);
  mp_vec_free (reward, V + 2);
  mp_vec_free (beta, 1);
  mp_vec_free (ls, N);
  mp_vec_free (lq, N);
  mp_vec_free (v, 2);
  mp_vec_free (mom, RLREF_LM_NMOMENTS);
  mp_vec_free (t, 3);
}

int
main (void)
{
  static const double betas[] = { 0.01, 0.5, 2, 100 };
  rlref_mp_set_prec (PREC);
  for (size_t i = 0; i < sizeof betas / sizeof betas[0]; i++)
    check (betas[i]);
  return finish ();
}
