/* formulas_grpo.c -- GRPO-ADV and GRPO-ADV-EX: every group-advantage
 * convention of CONVENTIONS.md, and the seeds' worked examples. */
#include <stdio.h>
#include <stdlib.h>
#include "rlref/status.h"
#include "rlref/grpo.h"
#include "formulas.h"
#include "entries.h"

static int
shape_adv (const rl_variant *v, const rl_args *a, size_t *len)
{
  (void) v;
  len[0] = a->len[0];
  return RLREF_SUCCESS;
}

static int
shape_adv_ex (const rl_variant *v, const rl_args *a, size_t *len)
{
  (void) v;
  len[0] = len[1] = 1;
  len[2] = a->len[0];
  return RLREF_SUCCESS;
}

static const rl_input in_adv[] = {
  { "rewards", RL_REAL_ARRAY, "N rewards, groups of G contiguous" },
  { "group_size", RL_INT, "G" },
};
static const rl_output out_adv[] = { { "adv", 1, "advantage of each response" } };
static const rl_io io_adv = { in_adv, 2, out_adv, 1, shape_adv, RL_EVALS (grpo_adv), "advantage" };

static const rl_input in_adv_ex[] = {
  { "rewards", RL_REAL_ARRAY, "the G rewards of one group" },
};
static const rl_output out_adv_ex[] = {
  { "mean", 0, "group mean" },
  { "std", 0, "group standard deviation (the variant's ddof)" },
  { "adv", 1, "advantages" },
};
static const rl_io io_adv_ex = { in_adv_ex, 1, out_adv_ex, 3, shape_adv_ex, RL_EVALS (grpo_adv_ex), "example" };

/* One variant per named convention, in the library's order. */
#define ADV_VARIANT(i, io)                                                     \
  { NULL, NULL, NULL, &io,                                                     \
    { { "ddof", 0, 1, 0 }, { "eps", 0, 0, 0 } }, 2, &rlref_adv_conventions[i], NULL }

/* Filled in from rlref_adv_conventions by rl_grpo_init (names, rules, ddof, eps). */
static rl_variant v_adv[10] = {
  ADV_VARIANT (0, io_adv), ADV_VARIANT (1, io_adv), ADV_VARIANT (2, io_adv),
  ADV_VARIANT (3, io_adv), ADV_VARIANT (4, io_adv), ADV_VARIANT (5, io_adv),
  ADV_VARIANT (6, io_adv), ADV_VARIANT (7, io_adv), ADV_VARIANT (8, io_adv),
  ADV_VARIANT (9, io_adv),
};
static rl_variant v_adv_ex[3] = {
  ADV_VARIANT (0, io_adv_ex), ADV_VARIANT (1, io_adv_ex), ADV_VARIANT (2, io_adv_ex),
};

static void
fill (rl_variant *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const rlref_adv_convention *c = v[i].data;
      v[i].name = c->name;
      v[i].description = c->rule;
      v[i].used_by = c->used_by;
      v[i].params[0].value = c->ddof;
      v[i].params[1].value = c->eps;
      if (c->scale == RLREF_SCALE_F32_ONEPASS)
        v[i].cert = "float32-emulation";
    }
}

void rl_grpo_init (void);
void
rl_grpo_init (void)
{
  if (RL_COUNT (v_adv) != rlref_adv_num_conventions)
    {
      /* a convention added to the library but not here (or the reverse) */
      fprintf (stderr, "rlref: GRPO-ADV has %zu variants for %zu conventions\n",
               RL_COUNT (v_adv), rlref_adv_num_conventions);
      exit (3);
    }
  fill (v_adv, RL_COUNT (v_adv));
  fill (v_adv_ex, RL_COUNT (v_adv_ex));
}

static const rl_case c_adv[] = {
  { "*", "rewards=1,0,0,0 group_size=4", "Detector",
    "ddof 1: 1.5/-0.5; ddof 0: 1.7320508/-0.5773503; no std: 0.75/-0.25", NULL, 0 },
  { "*", "rewards=0,1e-4 group_size=2", "Detector TinyVariance",
    "|A|: TRL 0.292893, verl 0.697246, OpenRLHF 0.707097, ddof 0 without eps 1", NULL, 0 },
  { "*", "rewards=10000,10001 group_size=2", "Detector LargeOffset",
    "every correct implementation gives +-0.7071; one-pass binary32 variance breaks",
    "verl-vectorized-old", 0 },
  { "*", "rewards=0.5 group_size=1", "GroupOfOne",
    "a group of one: 0, r/(1+1e-6), or refused", "verl", 0 },
  { "*", "rewards=1,0,0,1 group_size=4", "SeedExample", "seed 000: [+1,-1,-1,+1] (ddof 0)", NULL, 0 },
  { "*", "rewards=1,1,1 group_size=3", "SeedExample ZeroVariance", "seed 001: all equal -> 0", NULL, 0 },
  { "*", "rewards=0.1,0.1,0.1 group_size=3", "ZeroVariance",
    "all equal, but a binary64 mean of 0.1s is not 0.1: the branch std > 0 must see 0", NULL, 0 },
  { "*", "rewards=0,1,2 group_size=3", "SeedExample", "seed 001 exercise", NULL, 0 },
  { "*", "rewards=0.2,0.8,0.4,0.6 group_size=4", "SeedExample Seed003Ddof1",
    "seed 003: sigma ~ 0.26, A ~ +-1.16 hold for ddof 1 only", NULL, 0 },
  { "*", "rewards=1,0,0,0,0.2,0.8,0.4,0.6 group_size=4", "MultiGroup",
    "two groups: batch-std differs from group std", NULL, 0 },
  { "*", "rewards=1,1,0,1,0.5,0.25 group_size=2", "MultiGroup ZeroVariance",
    "three groups of two, the first with zero variance", NULL, 0 },
  { "*", "rewards=1e-8,0 group_size=2", "TinyVariance",
    "std 7.07e-9 is below seed 001's eps 1e-8: exactly 0 there", NULL, 0 },
  { "*", "rewards=100000000,100000001,100000002 group_size=3", "LargeOffset",
    "1e8 offset, spread 1: one-pass variance cancels", "verl-vectorized-old", 0 },
  { "*", "rewards=-1,1,3,5,7,9,11,13 group_size=8", "", "a group of eight", NULL, 0 },
  { "*", "rewards=1,0,0,0,0,0,0,0 group_size=8", "", "one success in eight", NULL, 0 },
  { "*", "rewards=0.3,-1.7,2.25,0,5.5,-3.125 group_size=6", "", "real-valued rewards", NULL, 0 },
  { "*", "rewards=1,0,nan,1 group_size=4", "NaNReward",
    "an unscorable response: TRL leaves it out (advantage 0); the others refuse", NULL, 0 },
  { "*", "rewards=nan,nan group_size=2", "NaNReward", "no scorable response: TRL gives 0", NULL, 0 },
  { "*", "rewards=1,nan group_size=2", "NaNReward GroupOfOne",
    "one scorable response: TRL's std is 0", NULL, 0 },
  { "*", "rewards=inf,0 group_size=2", "NonFinite", "infinite reward", NULL, 1 },
  { "*", "rewards= group_size=1", "Empty", "no rewards", NULL, 1 },
  { "*", "rewards=1,2,3 group_size=2", "LengthMismatch", "3 rewards in groups of 2", NULL, 1 },
  { "*", "rewards=1,2 group_size=0", "LengthMismatch", "group size 0", NULL, 1 },
};

static const rl_case c_adv_ex[] = {
  { "*", "rewards=1,0,0,1", "SeedExample", "seed 000: mean 0.5, std 0.5, A = [+1,-1,-1,+1]", NULL, 0 },
  { "*", "rewards=1,1,1", "SeedExample ZeroVariance", "seed 001 exercise: zero variance, A = 0", NULL, 0 },
  { "*", "rewards=0,1,2", "SeedExample", "seed 001 exercise", NULL, 0 },
  { "*", "rewards=0.2,0.8,0.4,0.6", "SeedExample Seed003Ddof1",
    "seed 003: mu 0.5, sigma ~ 0.26, A ~ +-1.16 with ddof 1 (the seed prints 1.15 = 0.3/0.26)",
    NULL, 0 },
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
  { "NonFinite", "INVALID_INPUT", "An infinite reward: must be rejected." },
  { "Empty", "INVALID_INPUT", "No rewards: must be rejected." },
  { "LengthMismatch", "INVALID_INPUT", "The rewards do not divide into groups of group_size." },
};

const rl_formula rl_formula_grpo[] = {
  { "GRPO-ADV", "group-relative advantage under each convention", "000 (13.23); 001; 003",
    v_adv, RL_COUNT (v_adv), c_adv, RL_COUNT (c_adv), n_grpo, RL_COUNT (n_grpo) },
  { "GRPO-ADV-EX", "the seeds' worked group-advantage examples", "000 section 5.1; 001; 003",
    v_adv_ex, RL_COUNT (v_adv_ex), c_adv_ex, RL_COUNT (c_adv_ex), n_grpo, RL_COUNT (n_grpo) },
};
const size_t rl_n_formula_grpo = RL_COUNT (rl_formula_grpo);
