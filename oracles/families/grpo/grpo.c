/* grpo.c -- the GRPO family: GRPO-ADV under every group-advantage
 * convention of the library's table (rlref_adv_conventions, one golden
 * variant each), and the seeds' worked examples GRPO-ADV-EX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/grpo.h"
#include "family.h"

RL_EVAL_DECL (grpo_adv);
RL_EVAL_DECL (grpo_adv_ex);

static const rl_io io_adv = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "N rewards, groups of G contiguous" },
    { "group_size", RL_INT, "G (default: N, one group)", .defaults_to_len_of = "rewards" },
    RL_END },
  .out = (const rl_output[]) {
    { "adv", "advantage of each response", .len_of = "rewards" },
    RL_END },
  RL_EVALS (grpo_adv), .part = "advantage",
};

static const rl_io io_adv_ex = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "the G rewards of one group" },
    RL_END },
  .out = (const rl_output[]) {
    { "mean", "group mean" },
    { "std", "group standard deviation (the variant's ddof)" },
    { "adv", "advantages", .len_of = "rewards" },
    RL_END },
  RL_EVALS (grpo_adv_ex), .part = "example",
};

/* The conventions' own rules decide where the edge cases are valid. */
static const rlref_adv_convention *
conv (const rl_variant *v)
{
  return v->data;
}

/* Unscorable (NaN) rewards: left out by the conventions that skip them. */
static rl_outcome
nan_outcome (const rl_variant *v)
{
  return conv (v)->nan == RLREF_NAN_SKIP ? RL_VALID : RL_INVALID;
}

/* A group of one: refused, or the raw reward leaking through (acceptable). */
static rl_outcome
single_outcome (const rl_variant *v)
{
  if (conv (v)->single == RLREF_SINGLE_REFUSE)
    return RL_INVALID;
  return conv (v)->single == RLREF_SINGLE_RAW ? RL_ACCEPTABLE : RL_VALID;
}

/* An infinite reward: TRL's conventions zero the group (nan_to_num). */
static rl_outcome
inf_outcome (const rl_variant *v)
{
  return conv (v)->nan == RLREF_NAN_SKIP ? RL_VALID : RL_INVALID;
}

/* Rewards beyond the binary32 range: old verl's binary32 sums overflow. */
static rl_outcome
f32_range_outcome (const rl_variant *v)
{
  return conv (v)->scale == RLREF_SCALE_F32_ONEPASS || conv (v)->scale == RLREF_SCALE_F32_STATS
         ? RL_INVALID : RL_VALID;
}

/* A NaN beside one scorable reward: a group of one for those that skip NaN. */
static rl_outcome
nan_single_outcome (const rl_variant *v)
{
  return conv (v)->nan == RLREF_NAN_SKIP ? single_outcome (v) : RL_INVALID;
}

/* verl's old vectorised estimator, on float32 and on float64 scores. */
#define VEC_OLD "verl-vectorized-old,verl-vectorized-old-float64"

static const rl_case c_adv[] = {
  { "*", "rewards=1,0,0,0 group_size=4", "Detector", "ddof 1: 1.5/-0.5; ddof 0: 1.7320508/-0.5773503; no std: 0.75/-0.25" },
  { "*", "rewards=0,1e-4 group_size=2", "Detector TinyVariance", "|A|: TRL 0.292893, verl 0.697246, OpenRLHF 0.707097, ddof 0 without eps 1" },
  { "*", "rewards=10000,10001 group_size=2", "Detector LargeOffset", "every correct implementation gives +-0.7071; one-pass binary32 variance breaks", .acceptable_in = VEC_OLD },
  { "*", "rewards=0.5 group_size=1", "GroupOfOne", "a group of one: 0, r/(1+1e-6), or refused", .expect = single_outcome },
  { "*", "rewards=1,0,0,1 group_size=4", "SeedExample", "seed 000: [+1,-1,-1,+1] (ddof 0)" },
  { "*", "rewards=1,1,1 group_size=3", "SeedExample ZeroVariance", "seed 001: all equal -> 0" },
  { "*", "rewards=0.1,0.1,0.1 group_size=3", "ZeroVariance", "all equal, but a binary64 mean of 0.1s is not 0.1: the branch std > 0 must see 0; verl's binary32 mean beside float64 scores gives -1.49e-6 (acceptable as verl's behaviour)",
    .acceptable_in = "verl-vectorized-old-float64" },
  { "*", "rewards=0,1,2 group_size=3", "SeedExample", "seed 001 exercise" },
  { "*", "rewards=0.2,0.8,0.4,0.6 group_size=4", "SeedExample Seed003Ddof1", "seed 003: sigma ~ 0.26, A ~ +-1.16 hold for ddof 1 only" },
  { "*", "rewards=1,0,0,0,0.2,0.8,0.4,0.6 group_size=4", "MultiGroup", "two groups: batch-std differs from group std" },
  { "*", "rewards=1,1,0,1,0.5,0.25 group_size=2", "MultiGroup ZeroVariance", "three groups of two, the first with zero variance" },
  { "*", "rewards=1e-8,0 group_size=2", "TinyVariance", "std 7.07e-9 is below seed 001's eps 1e-8: exactly 0 there" },
  { "*", "rewards=100000000,100000001,100000002 group_size=3", "LargeOffset", "1e8 offset, spread 1: one-pass variance cancels", .acceptable_in = VEC_OLD },
  { "*", "rewards=-1,1,3,5,7,9,11,13 group_size=8", "", "a group of eight" },
  { "*", "rewards=1,0,0,0,0,0,0,0 group_size=8", "", "one success in eight" },
  { "*", "rewards=0.3,-1.7,2.25,0,5.5,-3.125 group_size=6", "", "real-valued rewards" },
  { "*", "rewards=1,0,nan,1 group_size=4", "NaNReward", "an unscorable response: TRL leaves it out (advantage 0); the others refuse",
    .expect = nan_outcome },
  { "*", "rewards=nan,nan group_size=2", "NaNReward", "no scorable response: TRL gives 0",
    .expect = nan_outcome },
  { "*", "rewards=1,nan group_size=2", "NaNReward GroupOfOne", "one scorable response: TRL's std is 0",
    .expect = nan_single_outcome },
  { "*", "rewards=inf,0 group_size=2", "NonFinite",
    "an infinite reward: TRL's nan_to_num gives 0, the others refuse", .expect = inf_outcome },
  { "*", "rewards=inf,0,0.3,0.9 group_size=2", "NonFinite MultiGroup",
    "an infinite reward in one group: batch-std's std is infinite, the other group gets +-0",
    .expect = inf_outcome },
  { "*", "rewards=1,nan,0,0,0.5,0.5,0.9,nan group_size=4", "NaNReward MultiGroup",
    "NaN rewards in two groups of a batch", .expect = nan_outcome },
  { "*", "rewards=0,1e-9 group_size=2", "Detector TinyVariance",
    "seed-000 +-1 (std > 0), seed-000-code +-0.047619 (sd + 1e-8), seed-001 0 (std <= eps)" },
  { "*", "rewards=0.37,0.06,0.51 group_size=3", "OperationOrder",
    "binary32 one-pass variance: (s2 - s1 s1/n)/(n - 1) and (s2/n - mean^2) n/(n - 1) differ "
    "in the last bits" },
  { "*", "rewards=10000.3594,10000.2822 group_size=2", "OperationOrder LargeOffset",
    "TRL's float32 mean rounds, and the error is divided by a small std: trl-float32 0.7147, "
    "trl 0.7058" },
  { "*", "rewards=1e154,-1e154 group_size=2", "RangeScaling",
    "the squared deviations overflow binary64; the advantage is +-0.7071 (ddof 1) or +-1",
    .expect = f32_range_outcome },
  { "*", "rewards=1e-200,0 group_size=2", "RangeScaling",
    "the squared deviations underflow binary64; the advantage is +-0.7071 (ddof 1) or +-1" },
  { "*", "rewards=1e20,0 group_size=2", "RangeScaling",
    "s2 = 1e40 overflows binary32: old verl refuses (ERANGE); TRL in float32 gives [0, -0]",
    .expect = f32_range_outcome },
  { "*", "rewards=1e-40,0,3e-41 group_size=3", "Float32Subnormal",
    "binary32 subnormal rewards: the binary32 conventions round to the subnormal grid" },
  { "*", "rewards=-1.7e308,-1.94,1.7e308 group_size=3", "RangeScaling ExactSum",
    "rewards spanning 2^1024 to 2: the mean is -1.94/3, not 0", .expect = f32_range_outcome },
  { "*", "rewards=1,2,1e-200 group_size=3", "ExactSum",
    "1e-200 beside 1 and 2: r_0 - mean = -1e-200/3, not 0" },
  { "no-std", "rewards=1.5e308,1.7e308 group_size=2", "RangeScaling",
    "r - mean = -+1e307, though the sum of the rewards overflows binary64" },
  { "*", "rewards= group_size=1", "Empty", "no rewards", .invalid_in = "*" },
  { "*", "rewards=1,2,3 group_size=2", "LengthMismatch", "3 rewards in groups of 2", .invalid_in = "*" },
  { "*", "rewards=1,2 group_size=0", "LengthMismatch", "group size 0", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_adv_ex[] = {
  { "*", "rewards=1,0,0,1", "SeedExample", "seed 000: mean 0.5, std 0.5, A = [+1,-1,-1,+1]" },
  { "*", "rewards=1,1,1", "SeedExample ZeroVariance", "seed 001 exercise: zero variance, A = 0" },
  { "*", "rewards=0,1,2", "SeedExample", "seed 001 exercise" },
  { "*", "rewards=0.2,0.8,0.4,0.6", "SeedExample Seed003Ddof1", "seed 003: mu 0.5, sigma ~ 0.26, A ~ +-1.16 with ddof 1 (the seed prints 1.15 = 0.3/0.26)" },
  RL_END,
};

static const rl_note n_grpo[] = {
  { "Detector", "CONVENTION",
    "A detector vector from CONVENTIONS.md: the conventions give visibly different values." },
  { "SeedExample", "WORKED_EXAMPLE", "A worked example printed in the seeds." },
  { "Seed003Ddof1", "WORKED_EXAMPLE",
    "Seed 003 prints sigma ~ 0.26 and A ~ +-1.15 for [0.2,0.8,0.4,0.6]: sigma ~ 0.26 is the "
    "sample standard deviation (ddof 1, sigma = 0.2582), which gives A = +-1.1619, i.e. +-1.16; "
    "the printed 1.15 is 0.3/0.26, computed from the rounded sigma. With ddof 0 the numbers "
    "would be sigma = 0.2236 and A = +-1.3416. The seed's prose does not name the ddof." },
  { "ZeroVariance", "EDGE_CASE",
    "All rewards of a group equal: the advantage must be exactly 0 (13.23), not 0/0."
    " A binary64 mean of equal values need not equal them, so an implementation that tests"
    " std > 0 on a computed std can produce +-1 here." },
  { "TinyVariance", "CONVENTION", "A spread comparable to eps: where eps goes decides the value." },
  { "LargeOffset", "NUMERICAL",
    "Large rewards with small spread: a one-pass variance E[r^2] - E[r]^2 cancels; in binary32 "
    "it is 0 and the advantage explodes." },
  { "GroupOfOne", "EDGE_CASE",
    "A group of one response: 0 (TRL, seeds), r/(1 + 1e-6) (verl: mean 0 and std 1, the raw "
    "reward leaks through; acceptable as verl's behaviour, not a sound advantage), or refused "
    "(OpenRLHF)." },
  { "MultiGroup", "CONVENTION", "Several groups in one batch: groups must not mix (except batch-std)." },
  { "NaNReward", "CONVENTION",
    "Unscorable (NaN) rewards: TRL leaves them out of the mean and std and gives them advantage "
    "0; every other convention must refuse the input (ENAN) rather than return NaN." },
  { "NonFinite", "CONVENTION",
    "An infinite reward: TRL's conventions (trl, trl-float32, batch-std) end with "
    "nan_to_num and give the group advantage 0; every other convention must refuse the input "
    "(ENAN) rather than return NaN." },
  { "OperationOrder", "NUMERICAL",
    "A convention that computes in binary32: the order of its operations decides the last "
    "bits, and the value is that of the library's own order." },
  { "RangeScaling", "NUMERICAL",
    "Rewards whose squares or sums leave the binary64 (or binary32) range while the exact "
    "advantage is representable: a correct implementation scales; a binary32 convention that "
    "overflows refuses (ERANGE)." },
  { "ExactSum", "NUMERICAL",
    "Rewards spanning more bits than the working precision: the sum and r - mean must keep "
    "the small rewards (an exactly rounded sum)." },
  { "Float32Subnormal", "NUMERICAL",
    "Rewards below the binary32 normal range: a binary32 convention rounds them to the "
    "subnormal grid, as a C cast to float does." },
  { "LengthMismatch", "INVALID_INPUT", "The rewards do not divide into groups of group_size." },
  RL_END,
};

/* --- axes: the departures rlref check searches (rl_axis) ---------------- */

_Static_assert (sizeof (rlref_adv_convention) <= RL_AXIS_SCRATCH,
                "a moved convention fits the axis scratch");

/* A copy of base's convention in scratch, for base moved along an axis;
 * NULL when base has none, or is a seed's reading: the seeds' readings
 * span ddof, the guard and eps among themselves (seed-000 and seed-003,
 * seed-000-code, seed-001), so the axes move the libraries' (and the
 * catalogue's) conventions, and a departure is named from the library it
 * departs from ("trl with ddof 0 in place of 1", not "seed-000-code with
 * eps 0.0001 in place of 1e-08", which computes the same on every finite
 * input). */
static rlref_adv_convention *
moved (const rl_variant *base, rl_variant *out, void *scratch)
{
  rlref_adv_convention *m = scratch;
  if (base->data == NULL || strncmp (base->name, "seed-", 5) == 0)
    return NULL;
  *out = *base;
  *m = *conv (base);
  out->data = m;
  return m;
}

/* Whether the convention's ddof, eps and guard are those of its exact
 * computation (not a binary32 emulation with its own order). */
static int
exact_std (const rlref_adv_convention *c)
{
  return c->scale == RLREF_SCALE_GROUP_STD || c->scale == RLREF_SCALE_BATCH_STD;
}

/* ddof 0 <-> 1. */
static int
axis_ddof (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size)
{
  rlref_adv_convention *m = moved (base, out, scratch);
  if (m == NULL || !exact_std (m) || (m->ddof != 0 && m->ddof != 1))
    return -1;
  m->ddof = 1 - m->ddof;
  out->params[0].value = m->ddof;
  snprintf (label, size, "ddof %d in place of %d", m->ddof, 1 - m->ddof);
  return 0;
}

/* eps added to the std <-> inside the square root. */
static int
axis_eps_at (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size)
{
  rlref_adv_convention *m = moved (base, out, scratch);
  if (m == NULL || m->scale != RLREF_SCALE_GROUP_STD)
    return -1;
  if (m->eps_at == RLREF_EPS_ADD_STD)
    {
      m->eps_at = RLREF_EPS_IN_SQRT;
      snprintf (label, size, "eps inside the square root, sqrt(var + eps), in place of "
                "added to the std");
    }
  else
    {
      m->eps_at = RLREF_EPS_ADD_STD;
      snprintf (label, size, "eps added to the std, std + eps, in place of inside the "
                "square root");
    }
  return 0;
}

/* The std > 0 guard on <-> off. */
static int
axis_guard (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size)
{
  rlref_adv_convention *m = moved (base, out, scratch);
  if (m == NULL || m->scale != RLREF_SCALE_GROUP_STD)
    return -1;
  if (m->guard == RLREF_GUARD_NONE)
    {
      m->guard = RLREF_GUARD_POSITIVE;
      snprintf (label, size, "the std > 0 guard (advantage 0 for a zero std) added");
    }
  else
    {
      m->guard = RLREF_GUARD_NONE;
      snprintf (label, size, "without the std %s guard",
                conv (base)->guard == RLREF_GUARD_EPS ? "> eps" : "> 0");
    }
  return 0;
}

/* The std > eps guard (seed 001's) in place of none or std > 0. */
static int
axis_guard_eps (const rl_variant *base, rl_variant *out, void *scratch, char *label,
                size_t size)
{
  rlref_adv_convention *m = moved (base, out, scratch);
  if (m == NULL || m->scale != RLREF_SCALE_GROUP_STD || m->guard == RLREF_GUARD_EPS)
    return -1;
  snprintf (label, size, "the std > eps guard (advantage 0 for std <= eps) %s",
            m->guard == RLREF_GUARD_NONE ? "added" : "in place of std > 0");
  m->guard = RLREF_GUARD_EPS;
  return 0;
}

/* eps at another convention's value. */
static int
eps_to (double eps, const rl_variant *base, rl_variant *out, void *scratch, char *label,
        size_t size)
{
  rlref_adv_convention *m = moved (base, out, scratch);
  if (m == NULL || m->scale == RLREF_SCALE_NONE || m->eps == eps)
    return -1;
  snprintf (label, size, "eps %g in place of %g", eps, m->eps);
  m->eps = eps;
  out->params[1].value = eps;
  return 0;
}

#define EPS_AXIS(fn, value)                                                          static int                                                                        fn (const rl_variant *base, rl_variant *out, void *scratch, char *label, size_t size)   {                                                                                   return eps_to ((value), base, out, scratch, label, size);                       }
EPS_AXIS (axis_eps_1e4, 1e-4)
EPS_AXIS (axis_eps_1e6, 1e-6)
EPS_AXIS (axis_eps_1e8, 1e-8)
EPS_AXIS (axis_eps_1e9, 1e-9)
EPS_AXIS (axis_eps_0, 0.0)

static const rl_axis adv_axes[] = {
  { "ddof", axis_ddof },
  { "eps-placement", axis_eps_at },
  { "std-guard", axis_guard },
  { "std-eps-guard", axis_guard_eps },
  { "eps-1e-4", axis_eps_1e4 },
  { "eps-1e-6", axis_eps_1e6 },
  { "eps-1e-8", axis_eps_1e8 },
  { "eps-1e-9", axis_eps_1e9 },
  { "eps-0", axis_eps_0 },
  { NULL, NULL },
};

static rl_formula formulas[] = {
  { "GRPO-ADV", "group-relative advantage under each convention", "000 (13.23); 001; 003",
    "per group, the convention of the test group's variant (the variants table below)",
    .cases = c_adv, .notes = n_grpo, .axes = adv_axes },
  { "GRPO-ADV-EX", "the seeds' worked group-advantage examples", "000 section 5.1; 001; 003",
    "the seeds' worked examples under the variant named by the group",
    .cases = c_adv_ex, .notes = n_grpo },
  RL_END,
};

/* The readings of the seeds' worked examples. */
static const char *example_readings = "seed-000,seed-001,seed-003";

/* One variant per convention of the library's table, in its order (those
 * the comma list `only` names, or all). */
static rl_variant *
variants_of (const rl_io *io, const char *only)
{
  rl_variant *v = rl_variants_new (rlref_adv_num_conventions);
  size_t n = 0;
  for (size_t i = 0; i < rlref_adv_num_conventions; i++)
    {
      const rlref_adv_convention *c = &rlref_adv_conventions[i];
      if (!rl_list_names (only, c->name))
        continue;
      v[n] = (rl_variant) {
        c->name, c->rule, c->used_by, io,
        .params = { { "ddof", c->ddof, .is_int = 1 }, { "eps", c->eps } },
        .data = c,
        .cert = c->scale == RLREF_SCALE_F32_ONEPASS || c->scale == RLREF_SCALE_F32_TRL
                || c->scale == RLREF_SCALE_F32_STATS ? "float32-emulation" : NULL };
      n++;
    }
  return v;
}

static void
init (void)
{
  formulas[0].variants = variants_of (&io_adv, "*");
  formulas[1].variants = variants_of (&io_adv_ex, example_readings);
}

RL_FAMILY (grpo) = {
  .name = "grpo",
  .title = "Group-relative advantages",
  .rank = 6,
  .formulas = formulas,
  .init = init,
};
