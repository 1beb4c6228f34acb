/* rlref/grpoobj.h -- the GRPO objective and its loss-shaping relatives
 * (GRPO-OBJ, GRPO-AGG, GRPO-DR, GRPO-GSPO, GRPO-GMPO, GRPO-GFPO), with CISPO
 * as conventions of GRPO-OBJ; binary64 and MPFR.  Seed 000 (13.24)-(13.26),
 * sections 5 and 11; seed 003 "GRPO", "GMPO", "GSPO", "GFPO", "Dr.GRPO";
 * CONVENTIONS.md "Ratio and clipping" and "Loss aggregation".
 *
 * One group of G sequences of one prompt.  The tokens of sequence i lie
 * contiguously, lens[i] >= 1 of them, sum_i lens[i] = n; mask[t] is 0 or 1
 * (NULL: every token), and n_i, the masked tokens of sequence i, must be
 * >= 1.  Per token, logp is log pi_theta, old_logp log pi_old (the
 * sampling policy), ref_logp log pi_ref; the log-ratio l = logp - old_logp,
 * rho = e^l (13.25).  Every loss is the negative objective and every grad
 * its derivative d loss / d logp_t (0 at masked tokens); where a clip binds
 * it is the derivative of the clipped, constant term: 0.
 *
 * Statuses, in the order checked: EINVAL for a NULL or empty array, ENAN
 * for a non-finite entry, EINVAL for a length < 1 or lengths that do not
 * add up to n, EDOM for a mask entry other than 0 and 1 or a sequence
 * without a masked token, EDOM (ENAN when not finite) for a parameter
 * outside its domain.  Every output may share storage with an input of the
 * same length (reference/README.md, "Aliasing"). */
#ifndef RLREF_GRPOOBJ_H
#define RLREF_GRPOOBJ_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"

/* GRPO-OBJ: the per-token term and the place of the KL penalty. */
enum rlref_grpo_obj_kind
{
  RLREF_GRPO_OBJ_KL_OUTSIDE,    /* 000 (13.24) and its code: the k3 estimate once per
                                   prompt, its token mean over the group */
  RLREF_GRPO_OBJ_KL_INSIDE,     /* 003: s_t - beta k3_t inside the per-token mean (TRL
                                   loss_type "grpo") */
  RLREF_GRPO_OBJ_CISPO_TRL,     /* sg(min(rho, eps_high)) A logp_t, a token mean (TRL
                                   loss_type "cispo") */
  RLREF_GRPO_OBJ_CISPO_VERL     /* sg(clip(rho, 1 - eps_low, 1 + eps_high)) A logp_t, l
                                   clamped to [-20, 20], a token mean (verl "cispo") */
};

/* GRPO-AGG: how per-token losses become one loss. */
enum rlref_grpo_agg_mode
{
  RLREF_AGG_TOKEN_MEAN,         /* sum L / N */
  RLREF_AGG_SEQ_MEAN_TOKEN_MEAN, /* (1/B) sum_i sum_t L / n_i */
  RLREF_AGG_SEQ_MEAN_TOKEN_SUM, /* (1/B) sum_i sum_t L */
  RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM, /* sum L / (B L_const) */
  RLREF_AGG_SUM_NORM_NO_B,      /* sum L / L_const (verl before February 2026) */
  RLREF_AGG_GROUP_MEAN_LENGTH,  /* (1/B) sum_i sum_t L / Lbar, Lbar = N/B (003 Dr.GRPO) */
  RLREF_AGG_TOKEN_SUM,          /* sum L (003's pseudo-code) */
  RLREF_AGG_MICRO_BATCH         /* the mean over micro-batches of each one's token mean */
};

/* GRPO-DR: the three published readings of Dr.GRPO. */
enum rlref_grpo_dr_reading
{
  RLREF_DR_NO_NORM,             /* 000: A = r - mean, (1/G) sum_i sum_t s_t */
  RLREF_DR_GROUP_MEAN_LENGTH,   /* 003: GRPO's advantage, 1/|y_i| replaced by 1/Lbar */
  RLREF_DR_CONST_LENGTH         /* TRL dr_grpo: A = r - mean, sum s / (G L_const) */
};

/* GRPO-GFPO: which k of N responses are kept. */
enum rlref_gfpo_filter
{
  RLREF_GFPO_SHORTEST,          /* the k shortest; ties to the lower index */
  RLREF_GFPO_TOKEN_EFFICIENCY   /* the k largest r/|o|; ties to the shorter, then the
                                   lower index */
};

/* verl's cap of GSPO's mean log-ratio (zero gradient beyond). */
#define RLREF_GSPO_VERL_CAP 10.0

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/grpoobj.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/grpoobj.h"
#include "rlref/tmpl/end.h"

#endif
