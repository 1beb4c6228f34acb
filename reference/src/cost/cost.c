/* cost.c -- the seeds' cost arithmetic (COST-*), written once for both
 * backends: bytes per parameter by role and optimiser and the memory of a
 * set of models (seed 004, "PPO vs GRPO memory list" and its parameter
 * ledger), the model inventory of each method (seed 000 Table 2), and the
 * tokens generated per update (seed 004, section 7).
 *
 * Counts and byte sizes are integers: in MPFR every result is an integer
 * or a ratio of integers rounded once at the working precision (exact for
 * the integers); in binary64, rounded once where one operation suffices.
 * Every function reads its inputs before it writes an output. */
#include <limits.h>
#include <string.h>
#include "rlref/num.h"
#include "rlref/cost.h"
#include "flow.h"

/* ----- the conventions (one table, in the binary64 object) -------------- */

#ifndef RLREF_MP
const rlref_cost_convention rlref_cost_conventions[] = {
  { "adam",
    "trained with Adam: 2 (bf16 weights) + 2 (gradients) + 4 (m) + 4 (v) = 12 bytes per "
    "parameter; frozen: 2 (bf16 weights)",
    "seed 004 (its own count, \"without the FP32 master copy\", as in its LoRA chapter)",
    12, 2 },
  { "adam-master",
    "trained with Adam and an FP32 master copy of the weights: 12 + 4 = 16 bytes per parameter; "
    "frozen: 2",
    "seed 004's second count (\"with master copies\": PPO 36, GRPO 18 bytes per parameter); "
    "mixed-precision training as DeepSpeed ZeRO counts it (16 bytes per trained parameter)",
    16, 2 },
};
const size_t rlref_cost_num_conventions =
  sizeof rlref_cost_conventions / sizeof rlref_cost_conventions[0];

const rlref_cost_convention *
rlref_cost_convention_find (const char *name)
{
  for (size_t i = 0; name && i < rlref_cost_num_conventions; i++)
    if (strcmp (rlref_cost_conventions[i].name, name) == 0)
      return &rlref_cost_conventions[i];
  return NULL;
}
#endif

/* params finite and >= 0. */
static int
check_params (num_srcptr params, const char *what)
{
  if (!num_is_finite (params))
    RLREF_ERROR (what, RLREF_ENAN);
  if (num_sgn (params) < 0)
    RLREF_ERROR (what, RLREF_EDOM);
  return RLREF_SUCCESS;
}

/* Seed 004, memory list: bytes per parameter = trained t + frozen f (t = 12
 * or 16 by the convention, f = 2); bytes = P (trained t + frozen f);
 * gb = bytes/10^9; gib = bytes/2^30 (exact). */
int
FN (cost_mem) (num_ptr bytes_per_param, num_ptr bytes, num_ptr gb, num_ptr gib, long trained,
               long frozen, num_srcptr params, const rlref_cost_convention *c)
{
  num_t b, x, y, g;
  int status = RLREF_SUCCESS;
  if (!params || !c)
    RLREF_ERROR ("cost_mem: NULL argument", RLREF_EINVAL);
  if (trained < 0 || frozen < 0)
    RLREF_ERROR ("cost_mem: a negative count of models", RLREF_EDOM);
  if ((status = check_params (params, "cost_mem: params must be finite and >= 0")))
    return status;
  NUM_INIT (b, x, y, g);
  num_set_si (b, trained);
  num_mul_si (b, b, c->trained);
  num_set_si (x, frozen);
  num_mul_si (x, x, c->frozen);
  num_add (b, b, x);
  num_mul (x, params, b);
  num_div_d (y, x, 1e9);
  num_mul_2si (g, x, -30);
  if (!num_is_finite (b) || !num_is_finite (x))
    status = RANGE_ERROR ();
  if (bytes_per_param)
    num_set (bytes_per_param, b);
  if (bytes)
    num_set (bytes, x);
  if (gb)
    num_set (gb, y);
  if (gib)
    num_set (gib, g);
  NUM_CLEAR (b, x, y, g);
  return status;
}

/* Seed 000 Table 2 and seed 004: with t and f the bytes of a trained and a
 * frozen parameter, SFT t (one model), DPO t + f (policy, reference),
 * GRPO with a reward model t + 2f, GRPO+RLVR t + f, PPO 2t + 2f (policy,
 * critic; reference, reward model).  Dropping the critic only saves
 * t/(2t + 2f) (12/28 = 3/7, 16/36 = 4/9), the critic and the reward model
 * (t + f)/(2t + 2f) = 1/2; trained parameters 2P (PPO) against P. */
int
FN (cost_models) (num_ptr out, num_srcptr params, const rlref_cost_convention *c)
{
  num_ptr o = NULL;
  long t, f;
  int status;
  if (!out || !params || !c)
    RLREF_ERROR ("cost_models: NULL argument", RLREF_EINVAL);
  if ((status = check_params (params, "cost_models: params must be finite and >= 0")))
    return status;
  t = c->trained;
  f = c->frozen;
  o = num_vec_new (RLREF_COST_NMODELS);
  if (!o)
    FAIL ("cost_models: out of memory", RLREF_ENOMEM);
  num_set_si (AT (o, RLREF_COST_SFT), t);
  num_set_si (AT (o, RLREF_COST_DPO), t + f);
  num_set_si (AT (o, RLREF_COST_GRPO_RM), t + 2 * f);
  num_set_si (AT (o, RLREF_COST_GRPO_RLVR), t + f);
  num_set_si (AT (o, RLREF_COST_PPO), 2 * t + 2 * f);
  num_set_si (AT (o, RLREF_COST_SAVED_CRITIC), t);
  num_div_si (AT (o, RLREF_COST_SAVED_CRITIC), AT (o, RLREF_COST_SAVED_CRITIC), 2 * t + 2 * f);
  num_set_si (AT (o, RLREF_COST_SAVED_CRITIC_RM), t + f);
  num_div_si (AT (o, RLREF_COST_SAVED_CRITIC_RM), AT (o, RLREF_COST_SAVED_CRITIC_RM),
              2 * t + 2 * f);
  num_mul_2si (AT (o, RLREF_COST_TRAINED_PPO), params, 1);
  num_set (AT (o, RLREF_COST_TRAINED_GRPO), params);
  if (!num_is_finite (AT (o, RLREF_COST_TRAINED_PPO)))
    status = RANGE_ERROR ();
  for (int k = 0; k < RLREF_COST_NMODELS; k++)
    num_set (AT (out, k), AT (o, k));
done:
  num_vec_free (o, RLREF_COST_NMODELS);
  return status;
}

/* Seed 004, section 7: tokens per update = prompts x G x mean length; the
 * integer prompts G is formed exactly when it fits a long, so that the
 * product is rounded once. */
int
FN (cost_rollout) (num_ptr per_prompt, num_ptr tokens, long prompts, long G,
                   num_srcptr mean_len)
{
  num_t pp, tk;
  int status = RLREF_SUCCESS;
  if (!mean_len)
    RLREF_ERROR ("cost_rollout: NULL argument", RLREF_EINVAL);
  CHECK_FINITE (mean_len);
  if (prompts < 1 || G < 1)
    RLREF_ERROR ("cost_rollout: prompts and G must be at least 1", RLREF_EDOM);
  if (num_sgn (mean_len) < 0)
    RLREF_ERROR ("cost_rollout: a negative mean length", RLREF_EDOM);
  NUM_INIT (pp, tk);
  num_mul_si (pp, mean_len, G);
  if (G <= LONG_MAX / prompts)
    num_mul_si (tk, mean_len, prompts * G);
  else
    num_mul_si (tk, pp, prompts);
  if (!num_is_finite (pp) || !num_is_finite (tk))
    status = RANGE_ERROR ();
  if (per_prompt)
    num_set (per_prompt, pp);
  if (tokens)
    num_set (tokens, tk);
  NUM_CLEAR (pp, tk);
  return status;
}
