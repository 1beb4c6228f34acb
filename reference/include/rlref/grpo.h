/* rlref/grpo.h -- group-relative advantages (GRPO-ADV) under every
 * convention of the seeds and of the libraries, binary64 and MPFR. */
#ifndef RLREF_GRPO_H
#define RLREF_GRPO_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/workspace.h"

/* How the centred reward r - mean is scaled. */
enum rlref_adv_scale
{
  RLREF_SCALE_GROUP_STD,        /* by the group's std (+ eps) */
  RLREF_SCALE_NONE,             /* not at all: r - mean (Dr.GRPO) */
  RLREF_SCALE_BATCH_STD,        /* by the std of the whole batch (+ eps) */
  RLREF_SCALE_F32_ONEPASS,      /* one-pass variance in binary32 (old verl) */
  RLREF_SCALE_F32_TRL,          /* TRL's nanmean and nanstd in binary32 */
  RLREF_SCALE_F32_STATS         /* old verl on binary64 scores: the one-pass mean and
                                   std in binary32, r - mean and the quotient in the
                                   working precision */
};

/* When the advantage is forced to zero. */
enum rlref_adv_guard
{
  RLREF_GUARD_NONE,             /* never: (r - mean)/(std + eps), eps > 0 */
  RLREF_GUARD_POSITIVE,         /* std > 0 ? (r - mean)/(std + eps) : 0 */
  RLREF_GUARD_EPS               /* std > eps ? (r - mean)/(std + eps) : 0 */
};

/* A group of one sample (for batch-std: a batch of one). */
enum rlref_adv_single
{
  RLREF_SINGLE_ZERO,            /* advantage 0 */
  RLREF_SINGLE_RAW,             /* mean 0, std 1: r/(1 + eps) leaks through */
  RLREF_SINGLE_REFUSE           /* EDOM */
};

/* Where eps goes. */
enum rlref_adv_eps
{
  RLREF_EPS_ADD_STD,            /* (r - mean)/(std + eps) */
  RLREF_EPS_IN_SQRT             /* (r - mean)/sqrt(var + eps) */
};

/* NaN and infinite rewards. */
enum rlref_adv_nan
{
  RLREF_NAN_REFUSE,             /* ENAN for a NaN or an infinite reward */
  RLREF_NAN_SKIP                /* TRL: a NaN reward is left out of mean and std and
                                   gets 0; fewer than two scorable rewards, or an
                                   infinite one, give the group (batch-std: the
                                   batch) 0, as nan_to_num(nan=0) does */
};

typedef struct
{
  const char *name;             /* the variant name used in goldens and the CLI */
  const char *rule;             /* one line, for humans */
  const char *used_by;          /* seeds and libraries (with versions) */
  enum rlref_adv_scale scale;
  int ddof;
  double eps;                   /* the binary64 value of the library's literal
                                   (binary32 conventions round it to binary32) */
  enum rlref_adv_guard guard;
  enum rlref_adv_single single;
  enum rlref_adv_nan nan;
  enum rlref_adv_eps eps_at;
} rlref_adv_convention;

/* The named conventions, in a fixed order. */
extern const rlref_adv_convention rlref_adv_conventions[];
extern const size_t rlref_adv_num_conventions;
/* By name ("trl", "verl", ...); NULL if unknown. */
const rlref_adv_convention *rlref_adv_convention_find (const char *name);

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/grpo.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/grpo.h"
#include "rlref/tmpl/end.h"

#endif
