/* rlref/cost.h -- the seeds' cost arithmetic (COST-*): memory per
 * parameter by role and optimiser, the model inventory of each training
 * method, and the tokens generated per update, binary64 and MPFR.  Seed
 * 004 (the PPO against GRPO memory list, its parameter ledger, the tokens
 * per update), seed 000 Table 2.
 *
 * Bytes per parameter: a frozen model (forward only) keeps its bf16
 * weights, 2 bytes; a model trained with Adam keeps 2 (bf16 weights) + 2
 * (gradients) + 4 (first moment m) + 4 (second moment v) = 12, or 16 with
 * an FP32 master copy of the weights.  GB is 10^9 bytes, GiB 2^30. */
#ifndef RLREF_COST_H
#define RLREF_COST_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/convention.h"
#include "rlref/precision.h"

/* How many bytes a parameter takes, by role (one golden variant each). */
typedef struct
{
  const char *name;             /* the variant's name */
  const char *rule;             /* one line, for humans */
  const char *used_by;          /* seeds and libraries */
  long trained;                 /* bytes per parameter of a model trained with Adam */
  long frozen;                  /* bytes per parameter of a frozen model */
} rlref_cost_convention;

/* The conventions, in a fixed order: "adam" (12, 2), "adam-master" (16, 2). */
extern const rlref_cost_convention rlref_cost_conventions[];

/* The family's other named conventions (src/cost/cost_other_conventions.c),
 * ended by a row of zeros: the rollout count of COST-ROLLOUT and
 * COST-ROLLOUT-EX, without a setting. */
extern const rlref_convention rlref_cost_other_conventions[];
extern const size_t rlref_cost_num_conventions;
/* By name; NULL if unknown. */
const rlref_cost_convention *rlref_cost_convention_find (const char *name);

/* The outputs of cost_models, in this order: bytes per parameter of each
 * method (seed 000 Table 2, seed 004), the fraction saved by dropping the
 * critic only and the critic with the reward model, and the trained
 * parameters of PPO and GRPO for P parameters per model. */
enum
{
  RLREF_COST_SFT,               /* 1 trained */
  RLREF_COST_DPO,               /* policy trained, reference frozen */
  RLREF_COST_GRPO_RM,           /* policy trained; reference and reward model frozen */
  RLREF_COST_GRPO_RLVR,         /* policy trained, reference frozen (a verifier, no model) */
  RLREF_COST_PPO,               /* policy and critic trained; reference and reward model frozen */
  RLREF_COST_SAVED_CRITIC,      /* (PPO - GRPO_RM)/PPO */
  RLREF_COST_SAVED_CRITIC_RM,   /* (PPO - GRPO_RLVR)/PPO */
  RLREF_COST_TRAINED_PPO,       /* 2 P */
  RLREF_COST_TRAINED_GRPO,      /* P */
  RLREF_COST_NMODELS
};

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/cost.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/cost.h"
#include "rlref/tmpl/end.h"

#endif
