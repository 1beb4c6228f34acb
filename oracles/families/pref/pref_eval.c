/* pref_eval.c -- glue from the registry's inputs and outputs to the
 * preference-model formulas.  Compiled twice (binary64 and MPFR). */
#include "family_eval.h"

/* PREF-BT: x = rw, rl; y = p. */
RL_ENTRY (bt_prob)
{
  (void) a;
  return LIB (bt_prob) (y[0], IN ("rw"), IN ("rl"));
}

/* PREF-BT-GUMBEL: x = rw, rl; y = p. */
RL_ENTRY (bt_gumbel)
{
  (void) a;
  /* the quadrature's cost grows about 8x per doubling of the precision */
  if (num_prec () > 2048)
    RLREF_ERROR ("PREF-BT-GUMBEL is evaluated up to 2048 bits (--prec at most 1984: "
                 "the certificate evaluates at p and p + 64 bits)", RLREF_EPREC);
  return LIB (bt_gumbel_integral) (y[0], IN ("rw"), IN ("rl"));
}

/* PREF-RM-LOSS: x = rw[B], rl[B], c; y = loss, grad_rw[B], grad_rl[B]. */
RL_ENTRY (rm_loss)
{
  return LIB (rm_loss) (y[0], y[1], y[2], IN ("rw"), IN ("rl"), LEN ("rw"), PARAM ("c"));
}

/* PREF-BT-EX mle-pair: x = wins_w, wins_l; y = delta, p, delta the
 * two-item BT maximum-likelihood score difference. */
RL_ENTRY (bt_ex_mle)
{
  (void) a;
  return LIB (bt_mle_pair) (y[0], y[1], IN ("wins_w"), IN ("wins_l"));
}

/* PREF-MARGIN: x = rw, rl, m; y = loss, grad_rw, grad_rl. */
RL_ENTRY (margin)
{
  (void) a;
  return LIB (margin_loss) (y[0], y[1], y[2], IN ("rw"), IN ("rl"), IN ("m"));
}

/* PREF-SMOOTH: x = rw, rl, eps; y = loss, grad_rw, grad_rl. */
RL_ENTRY (smooth)
{
  (void) a;
  return LIB (smooth_loss) (y[0], y[1], y[2], IN ("rw"), IN ("rl"), IN ("eps"));
}

/* PREF-ENSEMBLE: x = scores[K], (ddof: not a real input), lambda;
 * y = mean, var, std, penalized, penalized_var. */
RL_ENTRY (ensemble)
{
  /* the variance penalty first, into a temporary: the outputs may be the
   * storage of lambda */
  num_ptr pv = num_vec_new (1);
  int status = pv ? LIB (ensemble_var_penalized) (pv, IN ("scores"), LEN ("scores"),
                                                  PARAM_INT ("ddof"), PARAM ("lambda"))
    : RLREF_ENOMEM;
  if (status == RLREF_SUCCESS)
    status = LIB (ensemble) (y[0], y[1], y[2], y[3], IN ("scores"), LEN ("scores"),
                             PARAM_INT ("ddof"), PARAM ("lambda"));
  if (status == RLREF_SUCCESS)
    num_set (y[4], pv);
  num_vec_free (pv, 1);
  return status;
}

/* PREF-PL prob: x = scores[K], ranking an int input; y = logp, loss, grad[K]. */
RL_ENTRY (pl_prob)
{
  int status;
  status = LIB (pl_logprob) (y[0], y[2], IN ("scores"), INTS ("ranking"), LEN ("scores"));
  if (status == RLREF_SUCCESS)
    num_neg (y[1], y[0]);
  return status;
}

/* PREF-PL mle: K and rankings[M K] ints, x = counts[M]; y = scores[K], loglik. */
RL_ENTRY (pl_mle)
{
  long K = INTS ("K")[0];
  size_t M = LEN ("counts");
  if (K < 2 || LEN ("rankings") != M * (size_t) K)
    RLREF_ERROR ("rankings must hold M x K items (M = length of counts), K >= 2", RLREF_EINVAL);
  /* the sizes a fit finishes in seconds (README: the largest sizes) */
  if (K > 64 || M * (size_t) K > 4096 || (K > 32 && num_prec () > 1024))
    RLREF_ERROR ("PREF-PL mle takes K <= 64 items and M K <= 4096 (K <= 32 above 1024 bits)",
                 RLREF_EINVAL);
  return LIB (pl_mle) (y[0], y[1], INTS ("rankings"), IN ("counts"), M, (size_t) K);
}

/* PREF-BT-MLE: n int, x = wins[n n]; y = scores[n], loglik. */
RL_ENTRY (bt_mle)
{
  long n = INTS ("n")[0];
  if (n < 2 || LEN ("wins") != (size_t) (n * n))
    RLREF_ERROR ("wins must hold n x n weights, n >= 2", RLREF_EINVAL);
  if (n > 64 || (n > 32 && num_prec () > 512))
    RLREF_ERROR ("PREF-BT-MLE takes n <= 64 items (n <= 32 above 512 bits)", RLREF_EINVAL);
  return LIB (bt_mle) (y[0], y[1], IN ("wins"), (size_t) n);
}

/* --- sensitivities: the formulas' own derivatives (MPFR only) --------- */

#ifdef RLREF_MP

/* PREF-BT-GUMBEL: sens p = |dP/dD| (|rw| + |rl|), dP/drw = -dP/drl = dP/dD
 * by a second quadrature. */
rl_sens_mp_fn rl_sens_bt_gumbel;
int
rl_sens_bt_gumbel (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                   const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  num_t d, t;
  int status;
  (void) a;
  (void) y;
  (void) nondiff;
  num_init (d);
  num_init (t);
  status = LIB (bt_gumbel_deriv) (d, IN ("rw"), IN ("rl"));
  num_abs (d, d);
  num_abs (t, IN ("rw"));
  num_mul (s[0], d, t);
  num_abs (t, IN ("rl"));
  num_mul (t, d, t);
  num_add (s[0], s[0], t);
  num_clear (d);
  num_clear (t);
  return status;
}

/* PREF-BT-MLE: the fit's Jacobian at the certified scores (implicit
 * function theorem; envelope theorem for loglik), x = wins[n n]. */
rl_sens_mp_fn rl_sens_bt_mle;
int
rl_sens_bt_mle (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  size_t n = (size_t) INTS ("n")[0], P = n * n;
  num_ptr J = num_vec_new ((n + 1) * P);
  int status = RLREF_ENOMEM;
  (void) nondiff;
  if (J)
    status = LIB (bt_mle_jacobian) (J, y[0], IN ("wins"), n);
  if (status == RLREF_SUCCESS)
    status = LIB (sens_of_jacobian) (s[0], J, IN ("wins"), n, P);
  if (status == RLREF_SUCCESS)
    status = LIB (sens_of_jacobian) (s[1], AT (J, n * P), IN ("wins"), 1, P);
  num_vec_free (J, (n + 1) * P);
  return status;
}

/* PREF-BT-EX mle-pair: delta = s_0 - s_1 of the two-item fit, scores
 * (delta/2, -delta/2); d delta/dw = J[0] - J[1] on the columns of
 * wins_w (w_01) and wins_l (w_10); dp/dw = p (1 - p) d delta/dw. */
rl_sens_mp_fn rl_sens_bt_ex_mle;
int
rl_sens_bt_ex_mle (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                   const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  num_ptr w = num_vec_new (4), sc = num_vec_new (2), J = num_vec_new (12);
  num_t t, q;
  int status = RLREF_ENOMEM;
  (void) a;
  (void) nondiff;
  num_init (t);
  num_init (q);
  if (w && sc && J)
    {
      num_set (AT (w, 1), IN ("wins_w"));
      num_set (AT (w, 2), IN ("wins_l"));
      num_mul_2si (AT (sc, 0), y[0], -1);
      num_neg (AT (sc, 1), AT (sc, 0));
      status = LIB (bt_mle_jacobian) (J, sc, w, 2);
    }
  if (status == RLREF_SUCCESS)
    {
      num_set_zero (s[0]);
      for (int c = 1; c <= 2; c++)
        {
          num_sub (t, AT (J, c), AT (J, 4 + c));
          num_abs (t, t);
          num_abs (q, x[c - 1]);
          num_mul (t, t, q);
          num_add (s[0], s[0], t);
        }
      num_d_sub (t, 1.0, y[1]);
      num_mul (t, t, y[1]);
      num_mul (s[1], s[0], t);
    }
  num_clear (t);
  num_clear (q);
  num_vec_free (w, 4);
  num_vec_free (sc, 2);
  num_vec_free (J, 12);
  return status;
}

/* PREF-PL mle: the fit's Jacobian at the certified scores, x = counts[M]. */
rl_sens_mp_fn rl_sens_pl_mle;
int
rl_sens_pl_mle (const rl_variant *v, const rl_args *a, const mpfr_srcptr *x,
                const mpfr_srcptr *y, const mpfr_ptr *s, int *const *nondiff)
{
  size_t K = (size_t) INTS ("K")[0], M = LEN ("counts");
  num_ptr J = num_vec_new ((K + 1) * M);
  int status = RLREF_ENOMEM;
  (void) nondiff;
  if (J)
    status = LIB (pl_mle_jacobian) (J, y[0], INTS ("rankings"), IN ("counts"), M, K);
  if (status == RLREF_SUCCESS)
    status = LIB (sens_of_jacobian) (s[0], J, IN ("counts"), K, M);
  if (status == RLREF_SUCCESS)
    status = LIB (sens_of_jacobian) (s[1], AT (J, K * M), IN ("counts"), 1, M);
  num_vec_free (J, (K + 1) * M);
  return status;
}

#endif
