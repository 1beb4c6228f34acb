/* mdp.c -- discounted returns, the effective horizon, the Q-learning
 * update and epsilon-greedy (MDP-RETURN, MDP-HORIZON, MDP-QL-EX1,
 * MDP-EGREEDY), written once for both backends.  Seed 003 section 1-2,
 * seed 000 section 1.1 and 13.2.
 *
 * Every function reads its inputs into temporaries before it writes an
 * output, so an output may share storage with an input of its length. */
#include "rlref/num.h"
#include "rlref/mdp.h"
#include "mdp_impl.h"

/* Checks r[T] finite and gamma in [0, 1]. */
static int
check_rewards (num_srcptr r, size_t T, num_srcptr gamma)
{
  if (!r || T == 0)
    RLREF_ERROR ("no rewards", RLREF_EINVAL);
  for (size_t t = 0; t < T; t++)
    if (!num_is_finite (AT (r, t)))
      RLREF_ERROR ("non-finite reward", RLREF_ENAN);
  if (!num_is_finite (gamma))
    RLREF_ERROR ("non-finite gamma", RLREF_ENAN);
  if (!mdp_unit (gamma))
    RLREF_ERROR ("gamma must lie in [0, 1]", RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* ERANGE, recorded, for a return beyond the range (written as +-inf). */
static int
range_error (void)
{
  rlref_error ("a return is beyond the floating-point range (written as +-inf)", __FILE__,
               __LINE__, RLREF_ERANGE);
  return RLREF_ERANGE;
}

/* (003 §1)  G_t = r_t + gamma G_{t+1}, G_T = 0, backwards, G_{t+1} carried
 * as hi + lo: the step's terms r_t, gamma hi (as an exact product p + e)
 * and gamma lo are summed exactly and rounded to the new hi; the rest of
 * that sum is the new lo.  The only other rounding is gamma lo, of relative
 * size u^2.  gamma = 0 gives G_t = r_t. */
int
FN (mdp_return) (num_ptr G, num_srcptr r, size_t T, num_srcptr gamma)
{
  num_ptr g = NULL, t = NULL;
  num_t hi, lo, gm;
  int status, over = 0;
  if ((status = check_rewards (r, T, gamma)) != RLREF_SUCCESS)
    return status;
  num_init (hi);
  num_init (lo);
  num_init (gm);
  num_set (gm, gamma);
  g = num_vec_new (T);
  t = num_vec_new (5);
  if (!g || !t)
    FAIL ("out of memory", RLREF_ENOMEM);
  for (size_t k = T; k-- > 0;)
    {
      num_set (AT (t, 0), AT (r, k));
      if (num_is_zero (gm) || !num_is_finite (hi))
        {
          /* gamma = 0: G_t = r_t; an overflowed G_{t+1} stays +-inf */
          if (num_is_zero (gm))
            num_set (hi, AT (r, k));
          num_set_zero (lo);
        }
      else
        {
          num_two_prod (AT (t, 1), gm, hi);
          num_mul (AT (t, 3), gm, lo);
          TRY (mdp_sum_hilo (hi, lo, t, 4));
        }
      over |= !num_is_finite (hi);
      num_set (AT (g, k), hi);
    }
  for (size_t k = 0; k < T; k++)
    num_set (AT (G, k), AT (g, k));
  status = over ? range_error () : RLREF_SUCCESS;
done:
  num_vec_free (g, T);
  num_vec_free (t, 5);
  num_clear (hi);
  num_clear (lo);
  num_clear (gm);
  return status;
}

/* (003 §1)  G_t = sum_{k=0}^{T-1-t} gamma^k r_{t+k}.  The powers
 * w_k = gamma^k are carried as wh_k + wl_k (w_{k+1} = w_k gamma with an
 * exact product, renormalised); each term is wh_k r (an exact product,
 * two numbers) + wl_k r (rounded, relative size u^2), and the 3(T - t)
 * numbers of G_t are summed exactly and rounded once.  O(T^2): at most
 * RLREF_RETURN_SUM_MAX rewards (a few seconds at 256 bits). */
int
FN (mdp_return_sum) (num_ptr G, num_srcptr r, size_t T, num_srcptr gamma)
{
  num_ptr wh = NULL, wl = NULL, terms = NULL, g = NULL, p = NULL;
  int status, over = 0;
  if ((status = check_rewards (r, T, gamma)) != RLREF_SUCCESS)
    return status;
  if (T > RLREF_RETURN_SUM_MAX)
    RLREF_ERROR ("the sum form of the return takes T^2 terms: at most 4096 rewards (the "
                 "recursion variant takes any number)", RLREF_EDOM);
  wh = num_vec_new (T);
  wl = num_vec_new (T);
  terms = num_vec_new (3 * T);
  g = num_vec_new (T);
  p = num_vec_new (3);
  if (!wh || !wl || !terms || !g || !p)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set_d (AT (wh, 0), 1.0);
  for (size_t k = 1; k < T; k++)
    {
      /* (wh + wl) gamma = ph + pe + wl gamma; then hi = RN(ph + lo) and
         the exact remainder (fast two-sum, |ph| >= |lo|) */
      num_two_prod (p, AT (wh, k - 1), gamma);
      num_mul (AT (p, 2), AT (wl, k - 1), gamma);
      num_add (AT (p, 1), AT (p, 1), AT (p, 2));
      num_add (AT (wh, k), AT (p, 0), AT (p, 1));
      num_sub (AT (p, 2), AT (wh, k), AT (p, 0));
      num_sub (AT (wl, k), AT (p, 1), AT (p, 2));
    }
  for (size_t t = 0; t < T; t++)
    {
      size_t n = 0;
      for (size_t k = 0; t + k < T; k++)
        {
          num_two_prod (AT (terms, n), AT (wh, k), AT (r, t + k));
          num_mul (AT (terms, n + 2), AT (wl, k), AT (r, t + k));
          n += 3;
        }
      TRY (num_sum (AT (g, t), terms, n));
      over |= !num_is_finite (AT (g, t));
    }
  for (size_t t = 0; t < T; t++)
    num_set (AT (G, t), AT (g, t));
  status = over ? range_error () : RLREF_SUCCESS;
done:
  num_vec_free (wh, T);
  num_vec_free (wl, T);
  num_vec_free (terms, 3 * T);
  num_vec_free (g, T);
  num_vec_free (p, 3);
  return status;
}

/* (003 §1) as usually written: G_t = r_t + gamma G_{t+1} in the format's
 * arithmetic, one rounding per operation. */
int
FN (mdp_return_naive) (num_ptr G, num_srcptr r, size_t T, num_srcptr gamma)
{
  num_ptr g;
  num_t run;
  int status;
  if ((status = check_rewards (r, T, gamma)) != RLREF_SUCCESS)
    return status;
  g = num_vec_new (T);
  if (!g)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  num_init (run);
  for (size_t k = T; k-- > 0;)
    {
      num_mul (run, run, gamma);
      num_add (run, run, AT (r, k));
      num_set (AT (g, k), run);
    }
  for (size_t k = 0; k < T; k++)
    num_set (AT (G, k), AT (g, k));
  num_clear (run);
  num_vec_free (g, T);
  return RLREF_SUCCESS;
}

/* MDP-HORIZON: sum_{k<H} gamma^k = (1 - gamma^H)/(1 - gamma)
 * = -expm1(H log gamma)/(1 - gamma).  1 - gamma and gamma - 1 are exact
 * for gamma >= 1/2 (Sterbenz), where log gamma = log1p(gamma - 1); the
 * rounding of H log gamma changes the result by a relative
 * u |x| e^x/(1 - e^x) <= u, x = H log gamma.  H < 0: 1/(1 - gamma). */
int
FN (mdp_horizon) (num_ptr h, num_srcptr gamma, long H)
{
  num_t l, d;
  if (!num_is_finite (gamma))
    RLREF_ERROR ("non-finite gamma", RLREF_ENAN);
  if (!mdp_unit (gamma))
    RLREF_ERROR ("gamma must lie in [0, 1]", RLREF_EDOM);
  if (H < 0 && num_cmp_d (gamma, 1.0) == 0)
    RLREF_ERROR ("an infinite horizon needs gamma < 1", RLREF_EDOM);
  num_init (l);
  num_init (d);
  num_d_sub (d, 1.0, gamma);                    /* 1 - gamma */
  if (H < 0)
    num_d_div (h, 1.0, d);
  else if (num_cmp_d (gamma, 1.0) == 0)
    num_set_si (h, H);
  else if (H == 0)
    num_set_zero (h);
  else if (num_is_zero (gamma))
    num_set_d (h, 1.0);
  else
    {
      mdp_log_gamma (l, gamma);
      num_mul_si (l, l, H);
      num_expm1 (l, l);
      num_neg (l, l);
      num_div (h, l, d);
    }
  num_clear (l);
  num_clear (d);
  return RLREF_SUCCESS;
}

/* (003 §2, the Q-learning update)  y = r + gamma max_a' q_next[a'] (y = r
 * when s' is terminal), q_new = q + alpha (y - q): y - q as one exactly
 * rounded sum of r, gamma m (an exact product) and -q, then one fma. */
int
FN (mdp_q_update) (num_ptr target, num_ptr q_new, num_srcptr q, num_srcptr r, num_srcptr gamma,
                   num_srcptr alpha, num_srcptr q_next, size_t n, int done)
{
  num_ptr t = NULL;
  num_t m, y, d;
  int status = RLREF_SUCCESS;
  if (!num_is_finite (q) || !num_is_finite (r) || !num_is_finite (gamma)
      || !num_is_finite (alpha))
    RLREF_ERROR ("non-finite input", RLREF_ENAN);
  if (done != 0 && done != 1)
    RLREF_ERROR ("done must be 0 or 1", RLREF_EDOM);
  if (!done && (!q_next || n == 0))
    RLREF_ERROR ("no action values of s'", RLREF_EINVAL);
  for (size_t a = 0; q_next && a < n; a++)
    if (!num_is_finite (AT (q_next, a)))
      RLREF_ERROR ("non-finite action value", RLREF_ENAN);
  if (!mdp_unit (gamma))
    RLREF_ERROR ("gamma must lie in [0, 1]", RLREF_EDOM);
  if (!mdp_unit (alpha))
    RLREF_ERROR ("alpha must lie in [0, 1]", RLREF_EDOM);
  num_init (m);
  num_init (y);
  num_init (d);
  t = num_vec_new (5);
  if (!t)
    FAIL ("out of memory", RLREF_ENOMEM);
  num_set (AT (t, 0), r);
  if (!done)
    {
      num_set (m, q_next);
      for (size_t a = 1; a < n; a++)
        num_max (m, m, AT (q_next, a));
      num_two_prod (AT (t, 1), gamma, m);
    }
  TRY (num_sum (y, t, done ? 1 : 3));
  num_neg (AT (t, done ? 1 : 3), q);
  TRY (num_sum (d, t, done ? 2 : 4));
  num_fma (d, alpha, d, q);
  num_set (target, y);
  num_set (q_new, d);
done:
  num_vec_free (t, 5);
  num_clear (m);
  num_clear (y);
  num_clear (d);
  return status;
}

/* (003 example 2)  epsilon-greedy: the greedy action b = the lowest index
 * of max q; INCLUDE: p_a = eps/A, p_b = 1 - eps + eps/A; EXCLUDE:
 * p_a = eps/(A - 1), p_b = 1 - eps. */
int
FN (mdp_egreedy) (num_ptr p, num_srcptr q, size_t A, num_srcptr eps, rlref_egreedy_kind kind)
{
  size_t best = 0;
  num_t e, g;
  if (!q || A == 0)
    RLREF_ERROR ("no actions", RLREF_EINVAL);
  for (size_t a = 0; a < A; a++)
    if (!num_is_finite (AT (q, a)))
      RLREF_ERROR ("non-finite action value", RLREF_ENAN);
  if (!num_is_finite (eps))
    RLREF_ERROR ("non-finite eps", RLREF_ENAN);
  if (!mdp_unit (eps))
    RLREF_ERROR ("eps must lie in [0, 1]", RLREF_EDOM);
  if (kind == RLREF_EGREEDY_EXCLUDE && A == 1)
    RLREF_ERROR ("exclude-greedy: no other action to explore", RLREF_EDOM);
  for (size_t a = 1; a < A; a++)
    if (num_cmp (AT (q, a), AT (q, best)) > 0)
      best = a;
  num_init (e);
  num_init (g);
  if (kind == RLREF_EGREEDY_EXCLUDE)
    {
      num_div_si (e, eps, (long) (A - 1));
      num_d_sub (g, 1.0, eps);
    }
  else
    {
      num_div_si (e, eps, (long) A);
      num_d_sub (g, 1.0, eps);
      num_add (g, g, e);
    }
  for (size_t a = 0; a < A; a++)
    num_set (AT (p, a), a == best ? g : e);
  num_clear (e);
  num_clear (g);
  return RLREF_SUCCESS;
}
