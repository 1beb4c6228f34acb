/* lmtrain_eval.c -- glue from the registry's inputs to LM-PARAM, LM-SFT
 * and LM-TRAIN.  Compiled twice (binary64 and MPFR). */
#include <limits.h>
#include <stdlib.h>
#include <gsl/gsl_rng.h>
#include "rlref/lm.h"
#include "family_eval.h"
#include "lm_args.h"

/* The model of the variant's kind and reading from V, eos, T and the
 * logits (and the reward where additive). */
static int
shape (const rl_variant *v, const rl_args *a, rlref_lm *lm, rlref_reward_kind reward)
{
  const rlref_lm_setting *d = v->data;
  return rl_lm_of_args (v, a, "logits", d->kind, d->truncation, reward, lm);
}

/* LM-PARAM: x = logits (input 3); y = pi, log_pi (n_rows V each). */
RL_ENTRY (lm_param)
{
  rlref_lm lm;
  int status = shape (v, a, &lm, RLREF_REWARD_NONE);
  if (status)
    return status;
  return LIB (lm_policy) (y[0], y[1], &lm, IN ("logits"));
}

/* LM-SFT: x = logits (input 3), data (input 4, ints), x = weights (input
 * 5); y = ce, entropy, kl, grad. */
RL_ENTRY (lm_sft)
{
  rlref_lm lm;
  int status = shape (v, a, &lm, RLREF_REWARD_NONE), *data;
  size_t n = LEN ("data");
  if (status)
    return status;
  data = malloc ((n ? n : 1) * sizeof *data);
  if (!data)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  /* tokens beyond int are no tokens: V - 1 + 1 = V is refused the same way */
  for (size_t i = 0; i < n; i++)
    data[i] = INTS ("data")[i] < 0 || INTS ("data")[i] >= lm.V ? lm.V : (int) INTS ("data")[i];
  status = LIB (lm_sft) (y[0], y[1], y[2], y[3], &lm, IN ("logits"), data, n, IN ("weights"),
                         LEN ("weights"));
  free (data);
  return status;
}

/* LM-TRAIN: x = logits (input 3, the reference and theta_0), reward, beta,
 * lr (inputs 4 to 6), at (input 7, ints); y = objective, kl_pistar. */
RL_ENTRY (lm_train)
{
  const rlref_lm_setting *d = v->data;
  rlref_lm lm;
  int status = shape (v, a, &lm, RLREF_REWARD_ADDITIVE), *at;
  size_t n = LEN ("at");
  if (status)
    return status;
  at = malloc ((n ? n : 1) * sizeof *at);
  if (!at)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  /* a step beyond int is beyond the longest run: -1 is refused as well */
  for (size_t i = 0; i < n; i++)
    at[i] = INTS ("at")[i] < 0 || INTS ("at")[i] > INT_MAX ? -1 : (int) INTS ("at")[i];
  status = LIB (lm_train_report) (y[0], y[1], &lm, IN ("logits"), IN ("reward"), IN ("beta"),
                                  d->objective, IN ("lr"), at,
                                  n);
  free (at);
  return status;
}

/* The largest batch of a sampled run. */
#define SAMPLED_MAX_BATCH 10000

/* The steps at[0..n-1] as ints, checked: EINVAL for none, EDOM unless they
 * increase from 0 to at most RLREF_LM_TRAIN_MAX_STEPS. */
static int
steps_of (int *at, const long *iv, size_t n)
{
  if (n == 0)
    RLREF_ERROR ("no step to report", RLREF_EINVAL);
  for (size_t i = 0; i < n; i++)
    {
      if (iv[i] < 0 || iv[i] > RLREF_LM_TRAIN_MAX_STEPS || (i > 0 && iv[i] <= iv[i - 1]))
        RLREF_ERROR ("the steps must increase from 0 to at most 1e5", RLREF_EDOM);
      at[i] = (int) iv[i];
    }
  return RLREF_SUCCESS;
}

/* LM-TRAIN, sampled: x = logits (input 3, the reference and theta_0),
 * reward, beta, lr (inputs 4 to 6); n, seed (inputs 7, 8), at (input 9,
 * ints); y = objective, kl_pistar.  The run of `rlref train --sampled n
 * --seed seed`: lm_sampled_report. */
RL_ENTRY (lm_train_sampled)
{
  const rlref_lm_setting *d = v->data;
  rlref_lm lm;
  long batch = INTS ("n")[0], seed = INTS ("seed")[0];
  size_t n_at = LEN ("at");
  int status = shape (v, a, &lm, RLREF_REWARD_ADDITIVE), *at = NULL;
  if (status)
    return status;
  if (batch < 2 || batch > SAMPLED_MAX_BATCH || seed < 0 || seed > 0xffffffffL)
    RLREF_ERROR ("n must be 2 to 1e4 and seed 0 to 2^32 - 1", RLREF_EDOM);
  at = malloc ((n_at ? n_at : 1) * sizeof *at);
  if (!at)
    RLREF_ERROR ("out of memory", RLREF_ENOMEM);
  status = steps_of (at, INTS ("at"), n_at);
  if (status == RLREF_SUCCESS)
    status = LIB (lm_sampled_report) (y[0], y[1], &lm, IN ("logits"), IN ("reward"), IN ("beta"),
                                      d->objective, IN ("lr"),
                                      (int) batch, (unsigned long) seed, at, n_at);
  free (at);
  return status;
}
