/* rlref/dapo.h -- DAPO (DAPO-*): the objective with token-level
 * normalisation (13.29), the decoupled clip (13.31, through rlref/ppo.h's
 * rlref_ppo_clip), dynamic sampling's keep rules and refill accounting
 * (13.30), sample- against token-level weights (13.32, 13.33) and the soft
 * overlong penalty with the overlong filter (13.34); binary64 and MPFR.
 *
 * A group of G responses is laid out one response after another: token
 * arrays hold sum_i lengths[i] entries, response i owning lengths[i]
 * consecutive ones.  Every output may share storage with an input of the
 * same length (reference/README.md, "Aliasing"). */
#ifndef RLREF_DAPO_H
#define RLREF_DAPO_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/grpo.h"
#include "rlref/ppo.h"

/* DAPO-TOKLOSS: how the token terms of a group are averaged. */
enum rlref_dapo_norm
{
  RLREF_DAPO_SAMPLE_LEVEL,      /* (1/G) sum_i (1/|y_i|) sum_t (13.32, GRPO) */
  RLREF_DAPO_TOKEN_LEVEL        /* (1/sum_i |y_i|) sum_i sum_t (13.33, DAPO) */
};

/* DAPO-TOKLOSS: a response without a token. */
enum rlref_dapo_empty
{
  RLREF_DAPO_EMPTY_REFUSE,      /* EDOM (13.32's 1/|y_i| is 1/0) */
  RLREF_DAPO_EMPTY_COUNT,       /* weight 0, counted in G (TRL's mean over rows with
                                   clamp(min=1), verl's trainer global_batch_size) */
  RLREF_DAPO_EMPTY_SKIP         /* weight 0, left out of G (OpenRLHF's sample-level
                                   global_batch_size counts the sequences with a token) */
};

/* DAPO-OVERLONG: the three readings of the soft overlong penalty. */
enum rlref_dapo_overlong
{
  RLREF_DAPO_OVERLONG_PAPER,    /* 13.34: 0, linear, -1 beyond L_max (seed 000, TRL) */
  RLREF_DAPO_OVERLONG_VERL,     /* min(-(L - (L_max - L_cache))/L_cache f, 0), not floored,
                                   in binary32 */
  RLREF_DAPO_OVERLONG_OPENRLHF  /* -min(L - (L_max - L_cache), L_cache)/L_cache f */
};

/* DAPO-DYNSAMPLE: when a group is kept. */
enum rlref_dapo_keep
{
  RLREF_DAPO_KEEP_STD,          /* population std > 0, or one sample (verl) */
  RLREF_DAPO_KEEP_MEAN,         /* 0 < mean < 1, strict (OpenRLHF) */
  RLREF_DAPO_KEEP_COUNT         /* 0 < #{r > 0} < G (13.30) */
};

/* DAPO-DYNSAMPLE refill: how groups are drawn until B are kept. */
enum rlref_dapo_refill
{
  RLREF_DAPO_REFILL_BATCH,      /* rounds of M prompts (verl) */
  RLREF_DAPO_REFILL_PROMPT      /* prompt by prompt (OpenRLHF) */
};

/* A named DAPO convention: what one seed's or library's reading of a DAPO
 * formula computes (one golden variant each), the parameter values it
 * sets and who uses it (src/dapo/dapo_conventions.c).  The fields the
 * formula does not read are 0. */
typedef struct
{
  const char *name;             /* the variant's name */
  const char *formula;          /* the catalogue id that carries it */
  const char *rule;             /* what it computes, in one line */
  const char *used_by;          /* who uses it */
  const char *adv;              /* DAPO-OBJ: its group advantage, an rlref_adv_conventions
                                   name */
  rlref_ppo_clip_ex_convention clip;   /* DAPO-OBJ (the clamp and dual clip only),
                                          DAPO-CLIPHIGHER */
  double eps_low, eps_high;     /* DAPO-OBJ, DAPO-CLIPHIGHER: the clip range it sets */
  double dual_c;                /* > 0: the dual clip's c */
  enum rlref_dapo_norm norm;    /* DAPO-TOKLOSS, DAPO-TOKLOSS-EX */
  enum rlref_dapo_empty empty;  /* DAPO-TOKLOSS: a response without a token */
  enum rlref_dapo_overlong overlong;   /* DAPO-OVERLONG: its reading */
  double factor;                /* > 0: DAPO-OVERLONG's penalty factor */
  int binary32;                 /* computed in binary32 in the library's operation order */
  enum rlref_dapo_keep keep;    /* DAPO-DYNSAMPLE, a keep rule */
  int refills;                  /* DAPO-DYNSAMPLE: 1 for the refill accounting */
  enum rlref_dapo_refill refill;       /* its draw */
  int single_kept;              /* refill: a group of one is always kept (else never) */
} rlref_dapo_convention;

/* The conventions, in the order of the golden variants. */
extern const rlref_dapo_convention rlref_dapo_conventions[];
extern const size_t rlref_dapo_num_conventions;
/* The convention named name of catalogue id formula, or NULL. */
const rlref_dapo_convention *rlref_dapo_convention_find (const char *formula, const char *name);

/* The refill accounting's limits: B kept groups, M prompts a round, and
 * the rounds summed (EMAXITER beyond). */
#define RLREF_DAPO_MAX_B 10000L
#define RLREF_DAPO_MAX_M 1000000L
#define RLREF_DAPO_MAX_WORK 20000000L

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/dapo.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/dapo.h"
#include "rlref/tmpl/end.h"

#endif
