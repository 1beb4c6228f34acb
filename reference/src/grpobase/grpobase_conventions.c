/* grpobase_conventions.c -- the named conventions of the GRPOBASE formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/grpobase.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/grpobase.h"
#include "rlref/lm.h"

#define STDBIAS_RULE "w(p) = G sum_k C(G-1, k) p^k (1-p)^(G-1-k) (A+(k+1) - A-(k)), A+(K), A-(K) " \
  "the advantages of a success and of a failure in a group with K successes: "

static const int ddof0 = 0;
static const int ddof1 = 1;
static const enum rlref_rloo_convention rloo_seed = RLREF_RLOO_SEED;
static const enum rlref_rloo_convention rloo_trl = RLREF_RLOO_TRL;
static const enum rlref_rloo_convention rloo_vec = RLREF_RLOO_VERL_VECTORIZED;
static const enum rlref_rloo_convention rloo_verl = RLREF_RLOO_VERL;
static const enum rlref_rloo_convention rloo_orl = RLREF_RLOO_OPENRLHF;
static const rlref_lm_kind lm_bigram = RLREF_LM_BIGRAM;
static const rlref_lm_kind lm_tabular = RLREF_LM_TABULAR;

const rlref_convention rlref_grpobase_conventions[] = {
  { "ddof0", "GRPO-ADV-BOUND", "bound",
    "A = (r - mean)/std, population std (ddof 0); |A| <= sqrt(G - 1)",
    "seed 000 (13.23, its worked example implies ddof 0); seed 001",
    .params = { { "ddof", 0, .is_int = 1 } }, .setting = &ddof0 },
  { "ddof1", "GRPO-ADV-BOUND", "bound",
    "A = (r - mean)/std, sample std (ddof 1); |A| <= (G - 1)/sqrt(G)",
    "seed 003; TRL, verl, OpenRLHF (without their eps)",
    .params = { { "ddof", 1, .is_int = 1 } }, .setting = &ddof1 },
  { "ddof0", "GRPO-ADV-SCALE", "scale",
    "A = (r - mean)/(sigma + eps), sigma of ddof 0: the population std of A is "
      "sigma/(sigma + eps)",
    "seed 001 (group_advantages, ddof 0)",
    .params = { { "ddof", 0, .is_int = 1 } }, .setting = &ddof0 },
  { "ddof1", "GRPO-ADV-SCALE", "scale",
    "A = (r - mean)/(s + eps), s of ddof 1: the ddof-1 std of A is s/(s + eps)",
    "TRL (eps 1e-4), verl (1e-6), OpenRLHF (1e-9)",
    .params = { { "ddof", 1, .is_int = 1 } }, .setting = &ddof1 },
  { "bigram", "GRPO-BASELINE", "baseline",
    "a bigram tiny LM, every sequence enumerated (cut sequences kept); grad log pi "
      "with respect to each logit",
    "seed 000 (13.27)",
    .setting = &lm_bigram },
  { "tabular", "GRPO-BASELINE", "baseline",
    "a tabular tiny LM (logits per prefix), every sequence enumerated",
    "seed 000 (13.27)",
    .setting = &lm_tabular },
  { "seed-000", "GRPO-RLOO", "advantage",
    "A_i = r_i - (sum_j r_j - r_i)/(G - 1) (13.28); a group of one, NaN or "
      "infinite rewards refused",
    "seed 000 (13.28, section 11 Table 4); seeds 001, 004",
    .setting = &rloo_seed },
  { "trl", "GRPO-RLOO", "advantage",
    "13.28 over the scorable (non-NaN) rewards of the group, c of them: (c r_i - S)/(c - "
      "1); a NaN reward, and a group with fewer than two scorable rewards, get 0 "
      "(nan_to_num); an infinite reward refused (nan_to_num would give +-DBL_MAX, as it does "
      "for a float64 sum that overflows)",
    "TRL (1.10 development line) trl/trainer/rloo_trainer.py "
      "RLOOTrainer._generate_and_score_completions (rloo_trainer.py:1547-1561)",
    .setting = &rloo_trl },
  { "verl-vectorized", "GRPO-RLOO", "advantage",
    "(c r - S)/max(c - 1, 1) (c > 1): a group of one gives 0; NaN or "
      "infinite rewards refused",
    "verl (1dda039) core_algos.py "
      "compute_rloo_vectorized_outcome_advantage (rloo_vectorized)",
    .setting = &rloo_vec },
  { "verl", "GRPO-RLOO", "advantage",
    "13.28 as r n/(n - 1) - mean n/(n - 1); a group of one keeps A = r (mean 0); NaN "
      "or infinite rewards refused",
    "verl (1dda039) core_algos.py "
      "compute_rloo_outcome_advantage (rloo)",
    .setting = &rloo_verl },
  { "sample-major", "GRPO-RLOO", "strided",
    "13.28 with the rewards laid out sample-major (reshape(rloo_k, -1)): "
      "response j of prompt q at j P + q; rloo_k = 1, NaN or infinite rewards refused",
    "TRL up to 0.19 RLOOTrainer (the layout changed to grouped by prompt afterwards); verl "
      "(1dda039) core_algos.py compute_rloo_outcome_advantage and "
      "compute_rloo_vectorized_outcome_advantage, which group by the uid index in any order",
    .setting = NULL },
  { "identity", "GRPO-RLOO", "identity",
    "loo (13.28), centered r - mean and scale (G - 1)/G: r - mean = ((G - 1)/G) "
      "loo, the group-mean baseline a fixed rescaling of the leave-one-out one",
    "seed 000 section 5 (G = 8: 0.875; G = 64: 0.984)",
    .setting = NULL },
  { "trl-kl", "GRPO-RLOO", "kl-reward",
    "penalty beta sum_t mask (logp_old - logp_ref) (k1 summed over the sequence), "
      "then trl's leave-one-out advantage of r - penalty (a NaN reward gets 0)",
    "TRL (1.10 development line) trl/trainer/rloo_trainer.py "
      "RLOOTrainer._generate_and_score_completions, beta != 0 (per_token_kl, line 1531)",
    .setting = &rloo_trl },
  { "verl-kl", "GRPO-RLOO", "kl-reward",
    "the same penalty subtracted token by token before the estimator sums the "
      "row, then verl's leave-one-out advantage (a NaN reward refused: verl's is NaN)",
    "verl (1dda039) algorithm.use_kl_in_reward: verl/trainer/ppo/ray_trainer.py "
      "apply_kl_penalty (kl_penalty \"kl\", token_level_rewards = scores - beta kld), then "
      "core_algos.py compute_rloo_outcome_advantage (rloo) or "
      "compute_rloo_vectorized_outcome_advantage (rloo_vectorized), which sum the row",
    .setting = &rloo_verl },
  { "trl-seq-ratio", "GRPO-RLOO", "loss",
    "one ratio per sequence, exp(sum_t mask (logp - logp_old)) (not GSPO's "
      "1/|y| power), clipped to [1 - eps_low, 1 + eps_high]; loss = mean_i -min(rho A, clip(rho) A)",
    "TRL (1.10 development line) RLOOTrainer; seed 000 section 11 Table 4 (sequence-level "
      "ratio)",
    .setting = NULL },
  { "openrlhf", "GRPO-RLOO", "advantage",
    "13.28, A_i = r_i - (sum_j r_j - r_i)/(G - 1), then clamped to [-10, 10]; a "
      "group of one, NaN or infinite rewards refused",
    "OpenRLHF 0.11 --algo.advantage.estimator rloo: trainer/ppo_utils/experience_maker.py "
      "compute_advantages_and_returns (baseline = (sum - r)/(n_samples_per_prompt - 1)), "
      "models/utils.py compute_reward (r.clamp(-10, 10), the default --reward.clip_range, "
      "utils.py:108-109); cli/train_ppo_ray.py:612-615 (n_samples_per_prompt > 1 asserted)",
    .setting = &rloo_orl },
  { "openrlhf-kl", "GRPO-RLOO", "kl-reward",
    "the KL penalty after the baseline: A_i = clamp(loo_i, -10, 10) - beta "
      "sum_t mask clamp(logp_old - logp_ref, -10, 10) (the return of the first token with "
      "gamma 1); a group of one, NaN or infinite rewards refused",
    "OpenRLHF 0.11 --algo.advantage.estimator rloo with --algo.kl.init_coef beta: "
      "trainer/ppo_utils/experience_maker.py compute_advantages_and_returns (the baseline of "
      "the raw rewards), models/utils.py compute_approx_kl (k1 clamped, line 78) and "
      "compute_reward (the per-token KL reward added to the clamped shaped reward, "
      "utils.py:108-126), get_cumulative_returns",
    .setting = NULL },
  { "openrlhf-token-ratio", "GRPO-RLOO", "loss",
    "one ratio per token, rho_t = exp(clamp(logp - logp_old, -20, "
      "20)), the PPO clip per token, the loss the mean over every masked token (not TRL's "
      "sequence ratio)",
    "OpenRLHF 0.11 models/loss.py PolicyLoss (token-level loss, the "
      "log-ratio clamp of lines 166-169) for --algo.advantage.estimator rloo",
    .setting = NULL },
  { "exact", "GRPO-VAR", "exact",
    "rewards i.i.d. from values with weights: sigma^2 exactly, Var[mean] = sigma^2/G, "
      "Var[b_loo] = sigma^2/(G - 1)",
    "seed 000 (13.28')",
    .setting = NULL },
  { "monte-carlo", "GRPO-VAR", "monte-carlo",
    "trials groups of G draws from GSL's mt19937 (a draw: the first j with k W < "
      "C_j 2^32, k = gsl_rng_get, C_j the cumulative weight; the same draws in binary64 and "
      "MPFR); the sample variances (ddof 1) of the group mean and of the first draw's "
      "leave-one-out baseline",
    "seed 000 (13.28'), checked by simulation",
    .setting = NULL },
  { "seed-000", "GRPO-STDBIAS", "weight",
    STDBIAS_RULE "(r - mean)/std, ddof 0, 0 at zero variance (13.23); for large G "
      "w/G -> 1/sqrt(p (1 - p)), the difficulty bias",
    "seed 000 (13.23, section 11)",
    .params = { { "ddof", 0, .is_int = 1 }, { "eps", 0, .shown = 1 } }, .setting = "seed-000" },
  { "seed-003", "GRPO-STDBIAS", "weight",
    STDBIAS_RULE "ddof 1, eps 0",
    "seed 003",
    .params = { { "ddof", 1, .is_int = 1 }, { "eps", 0, .shown = 1 } }, .setting = "seed-003" },
  { "trl", "GRPO-STDBIAS", "weight",
    STDBIAS_RULE "ddof 1, (r - mean)/(std + 1e-4)",
    "TRL",
    .params = { { "ddof", 1, .is_int = 1 }, { "eps", 1e-4, .shown = 1 } }, .setting = "trl" },
  { "verl", "GRPO-STDBIAS", "weight",
    STDBIAS_RULE "ddof 1, (r - mean)/(std + 1e-6)",
    "verl",
    .params = { { "ddof", 1, .is_int = 1 }, { "eps", 1e-6, .shown = 1 } }, .setting = "verl" },
  { "openrlhf", "GRPO-STDBIAS", "weight",
    STDBIAS_RULE "ddof 1, (r - mean)/(std + 1e-9)",
    "OpenRLHF",
    .params = { { "ddof", 1, .is_int = 1 }, { "eps", 1e-9, .shown = 1 } }, .setting = "openrlhf" },
  { "no-std", "GRPO-STDBIAS", "weight",
    STDBIAS_RULE "r - mean: w = G - 1 at every p, no difficulty bias",
    "Dr.GRPO (seed 000 section 11); TRL, verl, OpenRLHF by switch",
    .setting = "no-std" },
  { "rloo", "GRPO-STDBIAS", "weight",
    STDBIAS_RULE "the leave-one-out advantage (13.28): w = G at every p",
    "RLOO (seed 000 section 11)",
    .setting = "rloo" },
  { "verl", "GRPO-REMAX", "token",
    "returns-to-go minus the greedy response's reward on every response token",
    "verl (August 2026 main) compute_remax_outcome_advantage",
    .setting = NULL },
  { "seed-004", "GRPO-REMAX", "sequence",
    "A_i = r_i - r(greedy response): the greedy reward as the baseline, no group "
      "statistics",
    "seed 004 (ReMax)",
    .setting = NULL },
  { 0 },
};
