/* mdp_sens.c -- the sensitivities sens_k = sum_j |dy_k/dx_j| |x_j| of
 * MDP-RETURN, MDP-HORIZON, MDP-QL-EX1, MDP-EGREEDY and MDP-GAE from their
 * own derivatives (as rlref/sens.h's), written once for both backends; the
 * certification uses them in place of central differences.  The inputs
 * are those of the formulas, checked by them; y the values they gave. */
#include "rlref/num.h"
#include "rlref/mdp.h"
#include "mdp_impl.h"

/* MDP-RETURN: sens G_t = sum_k gamma^k |r_{t+k}| + gamma |dG_t/dgamma|,
 * from A_t = |r_t| + gamma A_{t+1} and
 * gamma dG_t/dgamma = sum_k k gamma^k r_{t+k} = B_t = gamma (G_{t+1} + B_{t+1}). */
int
FN (mdp_return_sens) (num_ptr s, num_srcptr r, size_t T, num_srcptr gamma, num_srcptr G)
{
  num_t A, B, t;
  num_init (A);
  num_init (B);
  num_init (t);
  for (size_t k = T; k-- > 0;)
    {
      if (k + 1 < T)
        {
          num_add (t, AT (G, k + 1), B);
          num_mul (B, t, gamma);
        }
      num_mul (A, A, gamma);
      num_abs (t, AT (r, k));
      num_add (A, A, t);
      num_abs (t, B);
      num_add (AT (s, k), A, t);
    }
  num_clear (A);
  num_clear (B);
  num_clear (t);
  return RLREF_SUCCESS;
}

/* gamma^n for gamma in (0, 1], n >= 0: e^{n log gamma}. */
static void
power (num_ptr r, num_srcptr gamma, long n)
{
  mdp_log_gamma (r, gamma);
  num_mul_si (r, r, n);
  num_exp (r, r);
}

/* MDP-HORIZON: sens h = gamma |dh/dgamma|; infinite (H < 0):
 * gamma/(1 - gamma)^2; finite: sum_{k<H} k gamma^k
 * = gamma (1 - H gamma^{H-1} + (H-1) gamma^H)/(1 - gamma)^2, H (H - 1)/2 at
 * gamma = 1, formed 64 bits above the working precision (the numerator
 * cancels as gamma -> 1). */
int
FN (mdp_horizon_sens) (num_ptr s, num_srcptr gamma, long H)
{
  long p = num_prec () + 64;
  num_t g, d, t, u;
  num_init_prec (g, p);
  num_init_prec (d, p);
  num_init_prec (t, p);
  num_init_prec (u, p);
  num_set (g, gamma);
  num_d_sub (d, 1.0, g);
  if (H < 0)
    {
      num_sqr (d, d);
      num_div (t, g, d);
    }
  else if (num_cmp_d (g, 1.0) == 0)
    {
      num_set_si (t, H);
      num_mul_si (t, t, H - 1);
      num_mul_2si (t, t, -1);
    }
  else if (H < 2 || num_is_zero (g))
    num_set_zero (t);
  else
    {
      power (t, g, H - 1);                      /* gamma^{H-1} */
      num_mul (u, t, g);                        /* gamma^H */
      num_mul_si (u, u, H - 1);
      num_mul_si (t, t, H);
      num_sub (u, u, t);
      num_add_d (u, u, 1.0);
      num_mul (u, u, g);
      num_sqr (d, d);
      num_div (t, u, d);
    }
  num_abs (s, t);
  num_clear (g);
  num_clear (d);
  num_clear (t);
  num_clear (u);
  return RLREF_SUCCESS;
}

/* The first maximum of q[n] and how many entries equal it. */
static size_t
argmax (num_srcptr q, size_t n, size_t *ties)
{
  size_t best = 0;
  *ties = 0;
  for (size_t j = 1; j < n; j++)
    if (num_cmp (AT (q, j), AT (q, best)) > 0)
      best = j;
  for (size_t j = 0; j < n; j++)
    *ties += num_cmp (AT (q, j), AT (q, best)) == 0;
  return best;
}

/* MDP-QL-EX1: y = r + gamma m, m = max q_next; q_new = (1 - alpha) q + alpha y.
 * sens y = |r| + 2 gamma |m| (gamma and the maximal q_next); sens q_new =
 * |1 - alpha| |q| + alpha |y - q| + alpha sens y; done: y = r.  A tie for
 * the maximum is a kink: *kink = 1 (not differentiable), else 0. */
int
FN (mdp_q_update_sens) (num_ptr s_target, num_ptr s_q_new, int *kink, num_srcptr q,
                        num_srcptr r, num_srcptr gamma, num_srcptr alpha, num_srcptr q_next,
                        size_t n, int done, num_srcptr target)
{
  size_t best = 0, ties = 0;
  num_t t, u;
  num_init (t);
  num_init (u);
  if (!done)
    best = argmax (q_next, n, &ties);
  num_abs (s_target, r);
  if (!done)
    {
      num_abs (t, AT (q_next, best));
      num_mul (t, t, gamma);
      num_mul_2si (t, t, 1);
      num_add (s_target, s_target, t);
    }
  num_d_sub (t, 1.0, alpha);
  num_abs (t, t);
  num_abs (u, q);
  num_mul (s_q_new, t, u);
  num_sub (t, target, q);
  num_abs (t, t);
  num_mul (t, t, alpha);
  num_add (s_q_new, s_q_new, t);
  num_mul (t, s_target, alpha);
  num_add (s_q_new, s_q_new, t);
  *kink = ties > 1;
  num_clear (t);
  num_clear (u);
  return RLREF_SUCCESS;
}

/* MDP-EGREEDY: the probabilities depend on eps alone (and on which action
 * is greedy): include: the greedy eps (1 - 1/A), the others eps/A;
 * exclude: eps and eps/(A - 1).  A tie for the maximum is a jump of the
 * tied actions' probabilities: jump[j] = 1 there, else 0. */
int
FN (mdp_egreedy_sens) (num_ptr s, int *jump, num_srcptr q, size_t A, num_srcptr eps,
                       rlref_egreedy_kind kind)
{
  size_t ties, best = argmax (q, A, &ties);
  num_t o, g;
  num_init (o);
  num_init (g);
  if (kind == RLREF_EGREEDY_EXCLUDE)
    {
      num_div_si (o, eps, (long) (A - 1));
      num_set (g, eps);
    }
  else
    {
      num_div_si (o, eps, (long) A);
      num_sub (g, eps, o);
    }
  for (size_t j = 0; j < A; j++)
    {
      num_set (AT (s, j), j == best ? g : o);
      jump[j] = ties > 1 && num_cmp (AT (q, j), AT (q, best)) == 0;
    }
  num_clear (o);
  num_clear (g);
  return RLREF_SUCCESS;
}

/* MDP-GAE: on a row, the convention's active positions t_1 < ... < t_K
 * (all W, the response prefix, or the mask's ones for verl) and the values
 * r', v' it uses; A_i = sum_l c^l delta_{i+l}, c = gamma lambda,
 * delta_i = r'_i + gamma v'_{i+1} - v'_i.  Then
 *   sum_j |dA_i/dr'_j| |r'_j| = R_i = |r'_i| + c R_{i+1} (score and reward
 *     at its slot counted apart),
 *   sum_j |dA_i/dv'_j| |v'_j| = |v'_i| + gamma (1 - lambda) U_i,
 *     U_i = |v'_{i+1}| + c U_{i+1},
 *   lambda dA_i/dlambda = D_i = c (A_{i+1} + D_{i+1}),
 *   gamma dA_i/dgamma = D_i + E_i, E_i = gamma v'_{i+1} + c E_{i+1};
 * returns A + v' drop the |v'_i| term.  A masked verl position repeats the
 * next active one (its return adds |v_t|); padding of the seed's rows is 0.
 * score has B entries or none (NULL). */
int
FN (mdp_gae_sens) (num_ptr s_adv, num_ptr s_ret, num_srcptr rewards, num_srcptr values,
                   const long *mask, num_srcptr score, size_t N, size_t W, num_srcptr gamma,
                   num_srcptr lambda, num_srcptr adv, const rlref_gae_convention *c)
{
  size_t B = N / W;
  num_ptr w = num_vec_new (12);
  num_ptr cc, R, U, D, E, t, an, vn, sa, sr, lam1, vabs;
  if (!w)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  cc = AT (w, 0), R = AT (w, 1), U = AT (w, 2), D = AT (w, 3), E = AT (w, 4);
  t = AT (w, 5), an = AT (w, 6), vn = AT (w, 7), sa = AT (w, 8), sr = AT (w, 9);
  lam1 = AT (w, 10), vabs = AT (w, 11);
  num_mul (cc, gamma, lambda);
  num_d_sub (lam1, 1.0, lambda);
  num_mul (lam1, lam1, gamma);                  /* gamma (1 - lambda) */
  for (size_t b = 0; b < B; b++)
    {
      const long *m = mask + b * W;
      size_t n = 0, last = 0;
      int any = 0;
      while (n < W && m[n])
        n++;
      for (size_t q = 0; q < W; q++)
        if (m[q])
          last = q, any = 1;
      if (!any)
        continue;
      num_set_zero (R);
      num_set_zero (U);
      num_set_zero (D);
      num_set_zero (E);
      num_set_zero (an);
      num_set_zero (vn);
      num_set_zero (sa);
      num_set_zero (sr);
      for (size_t q = W; q-- > 0;)
        {
          size_t i = b * W + q;
          int active, keep_r, keep_v, at_score;
          switch (c->kind)
            {
            case RLREF_GAE_SEED:
              active = q < n, keep_r = keep_v = 1;
              at_score = q + 1 == n;
              break;
            case RLREF_GAE_TRL:
              active = 1, keep_r = 1, keep_v = q <= n;
              at_score = q == (n < W ? n : n - 1);
              break;
            case RLREF_GAE_VERL:
              active = m[q] != 0, keep_r = keep_v = 1;
              at_score = q == last;
              break;
            default:
              active = 1, keep_r = keep_v = m[q] != 0;
              at_score = q == last;
              break;
            }
          if (!active)
            {
              if (c->kind == RLREF_GAE_SEED)
                continue;               /* padding: exactly 0 */
              num_set (AT (s_adv, i), sa);
              num_abs (t, AT (values, i));
              num_add (AT (s_ret, i), sa, t);
              continue;
            }
          /* D_i = c (A_{i+1} + D_{i+1}), E_i = gamma v'_{i+1} + c E_{i+1},
             U_i = |v'_{i+1}| + c U_{i+1}, R_i = |r'_i| + c R_{i+1} */
          num_add (t, an, D);
          num_mul (D, cc, t);
          num_mul (E, E, cc);
          num_mul (t, gamma, vn);
          num_add (E, E, t);
          num_mul (U, U, cc);
          num_abs (t, vn);
          num_add (U, U, t);
          num_mul (R, R, cc);
          if (keep_r)
            {
              num_abs (t, AT (rewards, i));
              num_add (R, R, t);
            }
          if (at_score && score)
            {
              /* OpenRLHF's clamp of the score: constant beyond +-10 */
              num_abs (t, AT (score, b));
              if (c->kind != RLREF_GAE_OPENRLHF || num_cmp_d (t, RLREF_GAE_SCORE_CLAMP) <= 0)
                num_add (R, R, t);
            }
          /* sens of A_i and of A_i + v'_i */
          num_mul (sr, lam1, U);
          num_add (sr, sr, R);
          num_add (t, D, E);
          num_abs (t, t);
          num_add (sr, sr, t);
          num_abs (t, D);
          num_add (sr, sr, t);
          if (keep_v)
            num_abs (vabs, AT (values, i));
          else
            num_set_zero (vabs);
          num_add (sa, sr, vabs);
          num_set (AT (s_adv, i), sa);
          num_set (AT (s_ret, i), sr);
          /* for the step before: A_{i+1} and v'_{i+1} */
          num_set (an, AT (adv, i));
          num_set (vn, keep_v ? AT (values, i) : vabs);
        }
    }
  num_vec_free (w, 12);
  return RLREF_SUCCESS;
}
