/* kl_eval.c -- glue from the registry's inputs to the KL estimators.
 * Compiled twice (binary64 and MPFR). */
#include "family_eval.h"

/* The inputs named in1 and in2 (and in3, when not NULL) of one length, returned
 * in *n. */
static int
same_lengths (const rl_variant *v, const rl_args *a, const char *in1, const char *in2,
              const char *in3, size_t *n)
{
  *n = LEN (in1);
  if (LEN (in2) != *n || (in3 && LEN (in3) != *n))
    RLREF_ERROR ("inputs of different lengths", RLREF_EINVAL);
  return RLREF_SUCCESS;
}

/* KL-K1, KL-K2, KL-K3, KL-VARIANTS: x = logp, ref_logp; y = k, grad. */
RL_ENTRY (kl_est)
{
  size_t n;
  int status = same_lengths (v, a, "logp", "ref_logp", NULL, &n);
  return status ? status : LIB (kl_estimate) (y[0], y[1], IN ("logp"), IN ("ref_logp"), n, v->data);
}

/* KL-K3 bias-corrected: x = logp, ref_logp, old_logp; y = k, grad. */
RL_ENTRY (kl_bias)
{
  size_t n;
  int status = same_lengths (v, a, "logp", "ref_logp", "old_logp", &n);
  return status ? status : LIB (kl_k3_bias_corrected) (y[0], y[1], IN ("logp"), IN ("ref_logp"),
                                                       IN ("old_logp"), n);
}

/* KL-K3 naive: x = logp, ref_logp; y = k, k_naive, ulp_naive, k_expm1, ulp_expm1. */
RL_ENTRY (kl_naive)
{
  size_t n;
  int status = same_lengths (v, a, "logp", "ref_logp", NULL, &n);
  return status ? status : LIB (kl_k3_binary64) (y[0], y[1], y[2], y[3], y[4], IN ("logp"),
                                                 IN ("ref_logp"), n);
}

/* KL-VARIANTS full: x = logp, ref_logp over the vocabulary; y = kl, grad. */
RL_ENTRY (kl_full)
{
  size_t n;
  int status = same_lengths (v, a, "logp", "ref_logp", NULL, &n);
  return status ? status : LIB (kl_full) (y[0], y[1], IN ("logp"), IN ("ref_logp"), n);
}

/* KL-EXACT discrete: x = p, p_ref; y = the eight outputs of kl_exact. */
RL_ENTRY (kl_exact)
{
  size_t n;
  num_ptr o = num_vec_new (RLREF_KL_NEXACT);
  int status = o ? same_lengths (v, a, "p", "p_ref", NULL, &n) : RLREF_ENOMEM;
  if (status == RLREF_SUCCESS)
    status = LIB (kl_exact) (o, IN ("p"), IN ("p_ref"), n);
  for (int k = 0; status == RLREF_SUCCESS && k < RLREF_KL_NEXACT; k++)
    num_set (y[k], AT (o, k));
  num_vec_free (o, RLREF_KL_NEXACT);
  return status;
}

/* The tabular model (cut sequences kept) of inputs V, eos, T and the
 * logits, the reference logits of the same length. */
static int
shape (const rl_variant *v, const rl_args *a, rlref_lm *lm)
{
  long V = INTS ("V")[0];
  if (V < 2 || V > RLREF_LM_MAX_V)
    RLREF_ERROR ("V must be 2 to 64", RLREF_EDOM);
  if (LEN ("ref_logits") != LEN ("logits"))
    RLREF_ERROR ("ref_logits and logits differ in length", RLREF_EINVAL);
  *lm = (rlref_lm) { .V = (int) V, .eos = (int) INTS ("eos")[0], .T = (int) INTS ("T")[0],
                     .kind = RLREF_LM_TABULAR, .truncation = RLREF_LM_KEEP,
                     .n_rows = LEN ("logits") / (size_t) V, .reward = RLREF_REWARD_NONE };
  if (LEN ("logits") % (size_t) V)
    RLREF_ERROR ("the logits are not rows of V", RLREF_EINVAL);
  return rlref_lm_check (lm);
}

/* KL-EXACT tiny-lm: V, eos, T, logits, ref_logits; y = kl, e_k2, e_k3,
 * bias_k2, var_k1, var_k2, var_k3 (E[k3] - KL is 0 here). */
RL_ENTRY (kl_exact_lm)
{
  rlref_lm lm;
  num_ptr o = num_vec_new (RLREF_KL_NEXACT);
  int status = o ? shape (v, a, &lm) : RLREF_ENOMEM;
  static const int from[] = { RLREF_KL_KL, RLREF_KL_E_K2, RLREF_KL_E_K3, RLREF_KL_BIAS_K2,
                              RLREF_KL_VAR_K1, RLREF_KL_VAR_K2, RLREF_KL_VAR_K3 };
  if (status == RLREF_SUCCESS)
    status = LIB (kl_exact_lm) (o, &lm, IN ("logits"), IN ("ref_logits"), *(const int *) v->data);
  for (int k = 0; status == RLREF_SUCCESS && k < 7; k++)
    num_set (y[k], AT (o, from[k]));
  num_vec_free (o, RLREF_KL_NEXACT);
  return status;
}

/* KL-EXACT gaussian: x = mu, sigma, mu_ref, sigma_ref; y = the eleven
 * outputs of kl_gauss. */
RL_ENTRY (kl_gauss)
{
  num_ptr o = num_vec_new (RLREF_KL_NGAUSS);
  int status = o ? LIB (kl_gauss) (o, IN ("mu"), IN ("sigma"), IN ("mu_ref"),
                                   IN ("sigma_ref")) : RLREF_ENOMEM;
  (void) a;
  for (int k = 0; status == RLREF_SUCCESS && k < RLREF_KL_NGAUSS; k++)
    num_set (y[k], AT (o, k));
  num_vec_free (o, RLREF_KL_NGAUSS);
  return status;
}

/* KL-EXACT monte-carlo: x = mu, sigma, mu_ref, sigma_ref, n and seed
 * (ints 4, 5); y = the twelve outputs of kl_gauss_mc. */
RL_ENTRY (kl_mc)
{
  long n = INTS ("n")[0], seed = INTS ("seed")[0];
  num_ptr o;
  int status;
  if (seed < 0)
    RLREF_ERROR ("the seed must be >= 0", RLREF_EDOM);
  o = num_vec_new (RLREF_KL_NMC);
  status = o ? LIB (kl_gauss_mc) (o, IN ("mu"), IN ("sigma"), IN ("mu_ref"), IN ("sigma_ref"), n,
                                  (unsigned long) seed)
    : RLREF_ENOMEM;
  for (int k = 0; status == RLREF_SUCCESS && k < RLREF_KL_NMC; k++)
    num_set (y[k], AT (o, k));
  num_vec_free (o, RLREF_KL_NMC);
  return status;
}

/* KL-GRAD softmax: x = logits, ref_logits; y = value, grad, kl, grad_kl,
 * kl_reverse, grad_kl_reverse. */
RL_ENTRY (kl_grad)
{
  const rlref_kl_grad_convention *g = v->data;
  size_t n;
  int status = same_lengths (v, a, "logits", "ref_logits", NULL, &n);
  if (status)
    return status;
  return LIB (kl_grad_softmax) (y[0], y[1], y[2], y[3], y[4], y[5], IN ("logits"),
                                IN ("ref_logits"), n,
                                rlref_kl_convention_find (g->estimator_formula, g->estimator),
                                g->mode);
}

/* KL-GRAD tiny-lm: V, eos, T, logits, ref_logits; y as kl_grad, by
 * lm_objective with the variant's estimator, RLREF_LM_OBJ_KL and
 * RLREF_LM_OBJ_KL_REVERSE (LM-EXACT's gradients).  The logits are copied
 * first: a gradient may be their very storage. */
RL_ENTRY (kl_grad_lm)
{
  static const int extra[2] = { RLREF_LM_OBJ_KL, RLREF_LM_OBJ_KL_REVERSE };
  rlref_lm lm;
  size_t nl = LEN ("logits");
  num_ptr t = NULL;
  num_t beta;
  int status = shape (v, a, &lm);
  if (status)
    return status;
  num_init (beta);
  num_set_d (beta, 1.0);
  t = num_vec_new (5 * nl + 3);
  status = t ? RLREF_SUCCESS : RLREF_ENOMEM;
  for (size_t i = 0; status == RLREF_SUCCESS && i < nl; i++)
    {
      num_set (AT (t, i), AT (IN ("logits"), i));
      num_set (AT (t, nl + i), AT (IN ("ref_logits"), i));
    }
  for (int j = 0; status == RLREF_SUCCESS && j < 3; j++)
    status = LIB (lm_objective) (AT (t, 5 * nl + (size_t) j), AT (t, (2 + (size_t) j) * nl),
                                 &lm, t, AT (t, nl), NULL, beta,
                                 j == 0 ? ((const rlref_kl_grad_convention *) v->data)->lm_objective
                                 : extra[j - 1]);
  for (int j = 0; status == RLREF_SUCCESS && j < 3; j++)
    {
      num_set (y[2 * j], AT (t, 5 * nl + (size_t) j));
      for (size_t i = 0; i < nl; i++)
        num_set (AT (y[2 * j + 1], i), AT (t, (2 + (size_t) j) * nl + i));
    }
  num_clear (beta);
  num_vec_free (t, 5 * nl + 3);
  return status;
}
