/* cost.c -- the COST family: the seeds' memory and rollout arithmetic,
 * seed 004 (the PPO against GRPO memory list, its parameter ledger, the
 * tokens per update) and seed 000 Table 2: bytes per parameter by role and
 * optimiser (one variant per convention of the library's table), the
 * model inventory of each method, and the tokens generated per update:
 * inputs, outputs, variants, golden cases and notes.
 * The variants are the rows of the library's tables (reference/src/cost/:
 * the ledgers in cost.c, cost_other_conventions.c). */
#include <stdio.h>
#include <stdlib.h>
#include "rlref/cost.h"
#include "family.h"

RL_EVAL_DECL (cost_mem);
RL_EVAL_DECL (cost_models);
RL_EVAL_DECL (cost_rollout);

static const rl_io io_mem = {
  .in = (const rl_input[]) {
    { "trained", RL_INT, "models trained with Adam (policy, critic), >= 0" },
    { "frozen", RL_INT, "frozen models, forward only (reference, reward model), >= 0" },
    { "params", RL_REAL, "parameters of each model, finite and >= 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "bytes_per_param", "bytes per parameter: trained x (12 or 16) + frozen x 2" },
    { "bytes", "params x bytes_per_param" },
    { "gb", "bytes / 10^9 (GB as the seed counts: 7e9 x 28 bytes = 196 GB)" },
    { "gib", "bytes / 2^30" },
    RL_END },
  RL_EVALS (cost_mem), .part = "memory",
};

static const rl_io io_models = {
  .in = (const rl_input[]) {
    { "params", RL_REAL, "parameters P of each model, finite and >= 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "sft", "SFT: one model, trained" },
    { "dpo", "DPO: policy trained, reference frozen" },
    { "grpo_rm", "GRPO with a reward model: policy trained; reference and reward model "
      "frozen" },
    { "grpo_rlvr", "GRPO with a verifier (RLVR): policy trained, reference frozen" },
    { "ppo", "PPO (RLHF): policy and critic trained; reference and reward model frozen" },
    { "saved_critic", "(ppo - grpo_rm)/ppo: the fraction saved by dropping only the critic" },
    { "saved_critic_rm", "(ppo - grpo_rlvr)/ppo: dropping the critic and the reward model" },
    { "trained_ppo", "trained parameters of PPO, 2P" },
    { "trained_grpo", "trained parameters of GRPO, P" },
    RL_END },
  RL_EVALS (cost_models), .part = "models",
};

static const rl_io io_rollout = {
  .in = (const rl_input[]) {
    { "prompts", RL_INT, "prompts per update, >= 1" },
    { "G", RL_INT, "responses sampled per prompt (the group size), >= 1" },
    { "mean_len", RL_REAL, "mean response length in tokens, finite and >= 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "per_prompt", "tokens generated per prompt, G x mean_len" },
    { "tokens", "tokens generated per update, prompts x G x mean_len" },
    RL_END },
  RL_EVALS (cost_rollout), .part = "rollout",
};

#define BOTH "adam,adam-master"

static const rl_case c_mem[] = {
  { BOTH, "trained=2 frozen=2 params=7e9", "SeedDerived ExactArithmetic",
    "PPO for 7B (policy, critic trained; reference, reward model frozen): 28 bytes, 196 GB "
    "(adam-master: 36 bytes, 252 GB)" },
  { BOTH, "trained=1 frozen=1 params=7e9", "SeedDerived ExactArithmetic",
    "GRPO+RLVR for 7B (policy trained, reference frozen): 14 bytes, 98 GB (adam-master: 18, "
    "126 GB)" },
  { BOTH, "trained=1 frozen=2 params=7e9", "SeedDerived ExactArithmetic",
    "only the critic removed (GRPO with a reward model): 16 bytes, 112 GB (adam-master: 20, "
    "140 GB)" },
  { BOTH, "trained=1 frozen=0 params=7e9", "ExactArithmetic",
    "one trained model (SFT): 12 bytes (adam-master 16), 84 GB (112 GB)" },
  { BOTH, "trained=0 frozen=1 params=1", "SeedDerived ExactArithmetic",
    "one frozen parameter: 2 bytes (bf16 weights only)" },
  { BOTH, "trained=2 frozen=2 params=70e9", "ExactArithmetic",
    "PPO for 70B: 1960 GB (2520 GB with master copies)" },
  { BOTH, "trained=1 frozen=1 params=1.5e9", "ExactArithmetic",
    "GRPO+RLVR for 1.5B: 21 GB, 19.56 GiB (27 GB with master copies)" },
  { BOTH, "trained=0 frozen=0 params=7e9", "ExactArithmetic ExactZero", "no model: 0 bytes" },
  { BOTH, "trained=-1 frozen=2 params=7e9", "OutOfDomain", "a negative count of models",
    .invalid_in = "*" },
  { BOTH, "trained=1 frozen=1 params=-7e9", "OutOfDomain", "a negative number of parameters",
    .invalid_in = "*" },
  { BOTH, "trained=1 frozen=1 params=nan", "NonFinite", "NaN parameters", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_models[] = {
  { BOTH, "params=7e9", "SeedDerived ExactArithmetic",
    "7B: SFT 12, DPO 14, GRPO+RM 16, GRPO+RLVR 14, PPO 28 bytes per parameter (16, 18, 20, 18, "
    "36 with master copies); dropping only the critic saves 3/7 = 42.86% (4/9 = 44.4%), half "
    "only when the reward model goes too; trained parameters 14e9 -> 7e9" },
  { BOTH, "params=1", "ExactArithmetic", "per parameter: trained 2 -> 1" },
  { BOTH, "params=0", "ExactArithmetic ExactZero", "no parameters: the ratios stand" },
  { BOTH, "params=-1", "OutOfDomain", "a negative number of parameters", .invalid_in = "*" },
  { BOTH, "params=inf", "NonFinite", "infinite parameters", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_rollout[] = {
  { "*", "prompts=1 G=64 mean_len=4000", "SeedDerived ExactArithmetic",
    "one prompt, G = 64 responses of 4000 tokens: 256,000 tokens per update" },
  { "*", "prompts=512 G=16 mean_len=1000.5", "ExactArithmetic",
    "a batch of 512 prompts, G = 16, mean length 1000.5: 8,196,096 tokens" },
  { "*", "prompts=1024 G=8 mean_len=3.25", "ExactArithmetic", "26,624 tokens" },
  { "*", "prompts=1 G=1 mean_len=0", "ExactArithmetic ExactZero", "empty responses: 0 tokens" },
  { "*", "prompts=1 G=0 mean_len=4000", "OutOfDomain", "no responses per prompt",
    .invalid_in = "*" },
  { "*", "prompts=-1 G=64 mean_len=4000", "OutOfDomain", "a negative count of prompts",
    .invalid_in = "*" },
  { "*", "prompts=1 G=64 mean_len=-1", "OutOfDomain", "a negative length", .invalid_in = "*" },
  { "*", "prompts=1 G=64 mean_len=nan", "NonFinite", "NaN length", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_rollout_ex[] = {
  { "*", "prompts=1 G=64 mean_len=4000", "SeedDerived ExactArithmetic",
    "seed 004: one prompt at G = 64 x 4000 tokens is already 256k tokens per update" },
  { "*", "prompts=1 G=8 mean_len=4000", "SeedDerived ExactArithmetic",
    "the small end of the seed's G of 8 to 64: 32,000 tokens" },
  { "*", "prompts=1 G=64 mean_len=2000", "SeedDerived ExactArithmetic",
    "responses of \"a few thousand tokens\": 2000 gives 128,000 tokens" },
  RL_END,
};

static const rl_note notes[] = {
  { "SeedDerived", "WORKED_EXAMPLE",
    "A number seed 004 prints (28 against 14 bytes per parameter, 196 against 98 GB for 7B; "
    "36 against 18 and 252 against 126 GB with master copies; 16 bytes and 43% for the critic "
    "alone; 64 x 4000 = 256k tokens), or its arithmetic with the seed's own inputs." },
  { "ExactArithmetic", "NUMERICAL",
    "Integers and ratios of integers: every value is exact (an integer) or a ratio rounded "
    "once at the certified digits (3/7, 4/9, a GiB count); a binary64 result must be the "
    "nearest double. GB is 10^9 bytes, GiB 2^30 bytes." },
  { "OutOfDomain", "INVALID_INPUT", "A negative count, length or number of parameters, or a "
    "count of prompts or responses below 1." },
  RL_END,
};

static rl_formula formulas[] = {
  { "COST-MEM", "bytes per parameter by role and optimiser, and the memory of a set of models",
    "004 (memory list, parameter ledger)",
    "bytes/param = trained × 12 (2 weights + 2 grads + 4 m + 4 v; 16 with an FP32 master "
    "copy) + frozen × 2; bytes = params × that; GB = 10⁹ bytes, GiB = 2³⁰",
    .cases = c_mem, .notes = notes },
  { "COST-ROLLOUT", "tokens generated per update", "004 section 7",
    "tokens = prompts × G × mean length", NULL, c_rollout, notes },
  { "COST-MODELS", "model inventory per method and the bytes per parameter it implies",
    "000 Table 2; 003; 004",
    "SFT t, DPO t + 2, GRPO+RM t + 4, GRPO+RLVR t + 2, PPO 2t + 4 bytes per parameter "
    "(t = 12, or 16 with master copies); critic only: t/(2t + 4) saved; trained 2P → P",
    .cases = c_models, .notes = notes },
  { "COST-ROLLOUT-EX", "the seed's rollout example", "004 section 7",
    "one prompt × G = 64 × 4000 tokens = 256,000 tokens per update", NULL, c_rollout_ex,
    notes },
  RL_END,
};

/* The conventions of the library's table, one variant each, on io. */
static rl_variant *
variants_of (const rl_io *io)
{
  rl_variant *v = rl_variants_new (rlref_cost_num_conventions);
  for (size_t i = 0; i < rlref_cost_num_conventions; i++)
    {
      const rlref_cost_convention *c = &rlref_cost_conventions[i];
      v[i] = (rl_variant) { c->name, c->rule, c->used_by, io,
                            .params = { { "trained_bytes", (double) c->trained, 1 },
                                        { "frozen_bytes", (double) c->frozen, 1 } },
                            .data = c };
    }
  return v;
}

static const rl_io *const other_ios[] = { &io_rollout, NULL };

/* COST-MEM and COST-MODELS: the memory ledgers; COST-ROLLOUT and
 * COST-ROLLOUT-EX: the rows of rlref_cost_other_conventions. */
static void
init (void)
{
  formulas[0].variants = variants_of (&io_mem);
  formulas[1].variants = rl_variants_of (rlref_cost_other_conventions, "COST-ROLLOUT",
                                         other_ios, NULL);
  formulas[2].variants = variants_of (&io_models);
  formulas[3].variants = rl_variants_of (rlref_cost_other_conventions, "COST-ROLLOUT-EX",
                                         other_ios, NULL);
}

RL_FAMILY (cost) = {
  .name = "cost",
  .title = "The seeds' cost arithmetic",
  .rank = 10,
  .formulas = formulas,
  .init = init,
};
