/* lm_eval.c -- glue from the registry's inputs to the tiny-LM formulas.
 * Compiled twice (binary64 and MPFR). */
#include "rlref/lm.h"
#include "family_eval.h"
#include "lm_args.h"

/* The model of the variant's kind and reading from V, eos, T and the
 * logits (and the reward where additive). */
static int
shape (const rl_variant *v, const rl_args *a, rlref_lm *lm, int additive)
{
  const rlref_lm_setting *d = v->data;
  return rl_lm_of_args (v, a, "logits", d->kind, d->truncation,
                        additive ? RLREF_REWARD_ADDITIVE : RLREF_REWARD_NONE, lm);
}

/* LM-EXACT, LM-DP: x = logits, reward, beta (inputs 3, 4, 5); y = the nine moments. */
RL_ENTRY (lm_exact)
{
  const rlref_lm_setting *d = v->data;
  rlref_lm lm;
  num_ptr m = num_vec_new (RLREF_LM_NMOMENTS);
  int status = m ? shape (v, a, &lm, 1) : RLREF_ENOMEM;
  if (status == RLREF_SUCCESS)
    status = d->dp ? LIB (lm_moments_dp) (m, &lm, IN ("logits"), IN ("reward"), IN ("beta"))
      : LIB (lm_moments) (m, &lm, IN ("logits"), IN ("reward"), IN ("beta"), RLREF_LM_ALL, NULL,
                          NULL);
  for (int k = 0; status == RLREF_SUCCESS && k < RLREF_LM_NMOMENTS; k++)
    num_set (y[k], AT (m, k));
  num_vec_free (m, RLREF_LM_NMOMENTS);
  return status;
}

/* LM-ENUM: x = logits (input 3); y = sequences, mass, entropy. */
RL_ENTRY (lm_enum)
{
  rlref_lm lm;
  num_ptr m = num_vec_new (RLREF_LM_NMOMENTS + 1);
  int status = m ? shape (v, a, &lm, 0) : RLREF_ENOMEM;
  if (status == RLREF_SUCCESS)
    {
      num_set_d (AT (m, RLREF_LM_NMOMENTS), 1.0);       /* beta: no reward */
      status = LIB (lm_moments) (m, &lm, IN ("logits"), NULL, AT (m, RLREF_LM_NMOMENTS),
                                 1u << RLREF_LM_ENTROPY, NULL, NULL);
    }
  if (status == RLREF_SUCCESS)
    {
      num_set (y[0], AT (m, RLREF_LM_COUNT));
      num_set (y[1], AT (m, RLREF_LM_TOTAL));
      num_set (y[2], AT (m, RLREF_LM_ENTROPY));
    }
  num_vec_free (m, RLREF_LM_NMOMENTS + 1);
  return status;
}

/* LM-CHAIN: x = logits (input 3), y the sequence (input 4, ints);
 * y = logp, token_logp[L]. */
RL_ENTRY (lm_chain)
{
  rlref_lm lm;
  int status = shape (v, a, &lm, 0), toks[RLREF_LM_MAX_T];
  size_t L;
  if (status == RLREF_SUCCESS)
    status = rl_lm_tokens (v, a, "y", &lm, toks, &L);
  return status ? status : LIB (lm_logprob) (y[0], y[1], &lm, IN ("logits"), toks, (int) L);
}

/* LM-EXACT gradients: x = logits, ref_logits, reward, beta (inputs 3 to 6);
 * y = value, grad[n_rows V]. */
RL_ENTRY (lm_grad)
{
  const rlref_lm_setting *d = v->data;
  rlref_lm lm;
  int status;
  if (LEN ("ref_logits") != LEN ("logits"))
    RLREF_ERROR ("ref_logits and logits differ in length", RLREF_EINVAL);
  status = shape (v, a, &lm, 1);
  if (status)
    return status;
  return LIB (lm_objective) (y[0], y[1], &lm, IN ("logits"), IN ("ref_logits"), IN ("reward"),
                             IN ("beta"), d->objective);
}

/* DPO-DISPLACE: V, eos, T; x = logits (input 3, also the reference); y_w,
 * y_l (inputs 4, 5, ints); x = beta, lr (inputs 6, 7); steps (input 8);
 * y = log pi(y_w) and log pi(y_l) before and after, and the margin after. */
RL_ENTRY (lm_displace)
{
  const rlref_lm_setting *d = v->data;
  rlref_lm lm;
  long steps = INTS ("steps")[0];
  int yw[RLREF_LM_MAX_T], yl[RLREF_LM_MAX_T], status;
  num_ptr lw, ll;
  status = shape (v, a, &lm, 0);
  if (status)
    return status;
  if (steps < 0 || steps > 100000)
    RLREF_ERROR ("steps must be 0 to 100000", RLREF_EDOM);
  if (LEN ("y_w") < 1 || LEN ("y_w") > (size_t) lm.T
      || LEN ("y_l") < 1 || LEN ("y_l") > (size_t) lm.T)
    RLREF_ERROR ("a sequence has 1 to T tokens", RLREF_EINVAL);
  for (size_t t = 0; t < LEN ("y_w"); t++)
    yw[t] = (int) INTS ("y_w")[t];
  for (size_t t = 0; t < LEN ("y_l"); t++)
    yl[t] = (int) INTS ("y_l")[t];
  /* y[0], y[1] and y[2], y[3] are each one value: lm_displace writes
   * before and after into two-element arrays */
  lw = num_vec_new (2);
  ll = num_vec_new (2);
  status = lw && ll ? RLREF_SUCCESS : RLREF_ENOMEM;
  if (status == RLREF_SUCCESS)
    status = LIB (lm_displace) (lw, ll, y[4], &lm, IN ("logits"), IN ("beta"), d->objective, yw,
                                (int) LEN ("y_w"), yl, (int) LEN ("y_l"), IN ("lr"), (int) steps);
  if (status == RLREF_SUCCESS)
    {
      num_set (y[0], lw);
      num_set (y[1], AT (lw, 1));
      num_set (y[2], ll);
      num_set (y[3], AT (ll, 1));
    }
  num_vec_free (lw, 2);
  num_vec_free (ll, 2);
  return status;
}
