/* grpobase_eval.c -- glue from the registry's inputs and outputs to the
 * GRPO baseline formulas.  Compiled twice (binary64 and MPFR). */
#include <string.h>
#include "family_eval.h"
#include "lm_args.h"

/* The group size: given, else the length of the rewards. */
static int
group_size (const rl_variant *v, const rl_args *a, size_t *G)
{
  long g = INTS ("group_size")[0];
  if (g <= 0)
    RLREF_ERROR ("group_size must be positive", RLREF_EINVAL);
  *G = (size_t) g;
  return RLREF_SUCCESS;
}

/* Rows of L: n elements in N rows, N > 0. */
static int
rows (size_t n, size_t N, size_t *L)
{
  if (N == 0 || n == 0 || n % N)
    RLREF_ERROR ("the per-token inputs are not one row of equal length per sequence",
                 RLREF_EINVAL);
  *L = n / N;
  return RLREF_SUCCESS;
}

/* GRPO-ADV-BOUND: x = rewards[G]; y = max_abs, bound; data: the ddof. */
RL_ENTRY (adv_bound)
{
  const int *ddof = v->data;
  return LIB (grpo_adv_bound) (y[0], y[1], IN ("rewards"), LEN ("rewards"), *ddof);
}

/* GRPO-ADV-SCALE: x = rewards[G], eps; y = std_adv, ratio. */
RL_ENTRY (adv_scale)
{
  const int *ddof = v->data;
  return LIB (grpo_adv_scale) (y[0], y[1], IN ("rewards"), LEN ("rewards"), *ddof, IN ("eps"));
}

/* GRPO-RLOO advantage: x = rewards[N], group_size; y = adv[N]. */
RL_ENTRY (rloo_adv)
{
  const enum rlref_rloo_convention *c = v->data;
  size_t G;
  int status = group_size (v, a, &G);
  return status ? status : LIB (rloo_adv) (y[0], IN ("rewards"), LEN ("rewards"), G, *c);
}

/* GRPO-RLOO sample-major: x = rewards[N] sample-major, group_size; y = adv[N]. */
RL_ENTRY (rloo_strided)
{
  size_t G;
  int status = group_size (v, a, &G);
  return status ? status : LIB (rloo_adv_strided) (y[0], IN ("rewards"), LEN ("rewards"), G);
}

/* GRPO-RLOO identity: x = rewards[N], group_size; y = loo[N], centered[N], scale. */
RL_ENTRY (rloo_identity)
{
  size_t G;
  int status = group_size (v, a, &G);
  return status ? status : LIB (rloo_identity) (y[0], y[1], y[2], IN ("rewards"),
                                                LEN ("rewards"), G);
}

/* GRPO-RLOO trl-kl, verl-kl: x = rewards[N], logp_old[NL], logp_ref[NL], mask (ints),
 * group_size, beta; y = penalty[N], adv[N]. */
RL_ENTRY (rloo_kl)
{
  const enum rlref_rloo_convention *c = v->data;
  size_t G, L;
  int status = group_size (v, a, &G);
  if (status == RLREF_SUCCESS)
    status = rows (LEN ("logp_old"), LEN ("rewards"), &L);
  return status ? status : LIB (rloo_kl_reward) (y[0], y[1], IN ("rewards"), IN ("logp_old"),
                                                 IN ("logp_ref"), INTS ("mask"),
                                                 LEN ("rewards"), L, G, IN ("beta"), *c);
}

/* GRPO-RLOO trl-seq-ratio: x = logp[NL], logp_old[NL], mask (ints), adv[N],
 * eps_low, eps_high; y = ratio[N], seq_loss[N], loss. */
RL_ENTRY (rloo_loss)
{
  size_t L;
  int status = rows (LEN ("logp"), LEN ("adv"), &L);
  return status ? status : LIB (rloo_seq_loss) (y[2], y[0], y[1], IN ("logp"), IN ("logp_old"),
                                                INTS ("mask"), IN ("adv"),
                                                LEN ("adv"), L, IN ("eps_low"), IN ("eps_high"));
}

/* GRPO-RLOO openrlhf-kl: x = rewards[N], logp_old[NL], logp_ref[NL], mask
 * (ints), group_size, beta; y = penalty[N], adv[N]. */
RL_ENTRY (rloo_kl_after)
{
  size_t G, L;
  int status = group_size (v, a, &G);
  if (status == RLREF_SUCCESS)
    status = rows (LEN ("logp_old"), LEN ("rewards"), &L);
  if (status)
    return status;
  return LIB (rloo_kl_reward_after_baseline) (y[0], y[1], IN ("rewards"), IN ("logp_old"),
                                              IN ("logp_ref"), INTS ("mask"), LEN ("rewards"),
                                              L, G, IN ("beta"));
}

/* GRPO-RLOO openrlhf-token-ratio: x = logp[NL], logp_old[NL], mask (ints),
 * adv[N], eps_low, eps_high; y = loss. */
RL_ENTRY (rloo_token_loss)
{
  size_t L;
  int status = rows (LEN ("logp"), LEN ("adv"), &L);
  return status ? status : LIB (rloo_token_loss) (y[0], IN ("logp"), IN ("logp_old"),
                                                  INTS ("mask"), IN ("adv"), LEN ("adv"),
                                                  L, IN ("eps_low"), IN ("eps_high"));
}

/* GRPO-VAR exact: x = values[K], weights (ints), group_size; y = sigma2,
 * var_mean, var_loo, removed. */
RL_ENTRY (var_exact)
{
  return LIB (baseline_var) (y[0], y[1], y[2], y[3], IN ("values"), INTS ("weights"),
                             LEN ("values"), INTS ("group_size")[0]);
}

/* GRPO-VAR monte-carlo: x = values[K], weights, group_size, trials, seed
 * (ints); y = var_mean, var_loo. */
RL_ENTRY (var_mc)
{
  if (INTS ("seed")[0] < 0)
    RLREF_ERROR ("seed must be 0 to 2^32 - 1", RLREF_EDOM);
  return LIB (baseline_var_mc) (y[0], y[1], IN ("values"), INTS ("weights"), LEN ("values"),
                                INTS ("group_size")[0],
                                INTS ("trials")[0], (unsigned long) INTS ("seed")[0]);
}

/* GRPO-STDBIAS: x = p, group_size; y = weight, per_sample; data: the name
 * of the advantage convention ("rloo": the leave-one-out advantage). */
RL_ENTRY (stdbias)
{
  const char *name = v->data;
  const rlref_adv_convention *c = NULL;
  if (strcmp (name, "rloo") != 0 && !(c = rlref_adv_convention_find (name)))
    RLREF_ERROR ("GRPO-STDBIAS: unknown advantage convention", RLREF_EINVAL);
  return LIB (stdbias_weight) (y[0], y[1], IN ("p"), INTS ("group_size")[0], c);
}

/* GRPO-REMAX verl: x = token_rewards[BL], mask (ints), baselines[B]; y =
 * adv[BL], returns[BL]. */
RL_ENTRY (remax)
{
  size_t L;
  int status = rows (LEN ("token_rewards"), LEN ("baselines"), &L);
  return status ? status : LIB (remax_adv) (y[0], y[1], IN ("token_rewards"), INTS ("mask"),
                                            IN ("baselines"), LEN ("baselines"), L);
}

/* GRPO-REMAX seed-004: x = rewards[N], greedy[M]; y = adv[N]. */
RL_ENTRY (remax_seq)
{
  return LIB (remax_seq_adv) (y[0], IN ("rewards"), LEN ("rewards"), IN ("greedy"), LEN ("greedy"));
}

/* GRPO-BASELINE: V, eos, T (ints); x = logits, reward[V + 2], b; y = value,
 * grad, pg, sq; data: the model kind. */
RL_ENTRY (baseline)
{
  const rlref_lm_kind *kind = v->data;
  rlref_lm lm;
  int status = rl_lm_of_args (v, a, "logits", *kind, RLREF_LM_KEEP, RLREF_REWARD_ADDITIVE, &lm);
  return status ? status : LIB (lm_baseline) (y[0], y[1], y[2], y[3], &lm, IN ("logits"),
                                              IN ("reward"), IN ("b"));
}
