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
#include "rlref/convention.h"

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
  RLREF_AGG_MICRO_BATCH,        /* the mean over micro-batches of each one's token mean */
  RLREF_AGG_SEQ_MEAN_TOKEN_SUM_NORM_WIDTH /* sum L / (B T), T = max_i lens[i], the padded
                                   width (verl's loss_scale_factor unset) */
};

/* GRPO-AGG: a mode, how micro-batches are normalised, and who counts in B. */
enum rlref_grpo_agg_micro
{
  RLREF_AGG_WHOLE,              /* one batch: micro is not read */
  RLREF_AGG_MICRO_LOCAL,        /* each micro-batch normalised by its own counts, the K
                                   losses averaged (the legacy token mean per micro-batch;
                                   TRL bnpo under gradient accumulation) */
  RLREF_AGG_MICRO_GLOBAL        /* every micro-batch divided by the whole batch's counts,
                                   the K losses summed: the mode over the whole batch
                                   (verl's global batch info, OpenRLHF's window normalisers,
                                   TRL dapo's num_items_in_batch) */
};

typedef struct
{
  enum rlref_grpo_agg_mode mode;
  enum rlref_grpo_agg_micro micro;
  int skip_empty;               /* B counts only the sequences with a token in the mask
                                   (OpenRLHF's sample-level global_batch_size, verl
                                   agg_loss's own default); else every sequence (verl's
                                   trainer global_batch_size, TRL's mean over rows) */
} rlref_grpo_agg_convention;

/* GRPO-OBJ, GRPO-DR: the KL estimate in the loss. */
enum rlref_grpo_kl_form
{
  RLREF_GRPO_KL_K3,             /* k3 = e^-k - 1 + k (13.26), gradient 1 - e^-k */
  RLREF_GRPO_KL_K3_CAP,         /* min(k3, RLREF_GRPO_KL_CAP), gradient 0 above it (verl
                                   low_var_kl: clamp(kld, -10, 10); OpenRLHF
                                   compute_approx_kl k3: clamp(min=-10, max=10)) */
  RLREF_GRPO_KL_K3_CAP_K2_GRAD  /* the value of K3_CAP, the gradient of k2 = k^2/2, i.e. k
                                   (verl "k3+": the straight-through k2 gradient) */
};

/* The cap of verl's low_var_kl and OpenRLHF's estimate. */
#define RLREF_GRPO_KL_CAP 10.0

/* GRPO-OBJ: one library's objective. */
typedef struct
{
  enum rlref_grpo_obj_kind kind;
  enum rlref_grpo_agg_mode agg;       /* the policy term's aggregation (with KL_INSIDE, of
                                         s - beta k3; CISPO: of its per-token term):
                                         TOKEN_MEAN, SEQ_MEAN_TOKEN_MEAN, SEQ_MEAN_TOKEN_SUM
                                         or TOKEN_SUM */
  enum rlref_grpo_agg_mode kl_agg;    /* how the reported kl averages the estimate (one of
                                         the same four); KL_OUTSIDE's loss term is always
                                         the token mean */
  int clamp_log_ratio;                /* l clamped to [-20, 20] before exp (verl, OpenRLHF) */
  int dual_clip;                      /* for A < 0, s = max(s, dual_c A) (verl) */
  double dual_c;                      /* verl's clip_ratio_c, 3 */
  enum rlref_grpo_kl_form kl;
} rlref_grpo_obj_convention;

/* GRPO-DR: the advantage of a reading. */
enum rlref_grpo_dr_adv
{
  RLREF_DR_ADV_CENTRED,         /* A = r - mean (no std) */
  RLREF_DR_ADV_SEED003          /* GRPO-ADV's seed-003: (r - mean)/std, ddof 1 */
};

/* A group of one under a reading with A = r - mean. */
enum rlref_grpo_dr_single
{
  RLREF_DR_SINGLE_ZERO,         /* r - r = 0 */
  RLREF_DR_SINGLE_RAW,          /* verl: mean 0 for a group of one, A = r */
  RLREF_DR_SINGLE_REFUSE        /* OpenRLHF: n_samples_per_prompt > 1 asserted (EDOM) */
};

/* GRPO-DR: one library's Dr.GRPO. */
typedef struct
{
  enum rlref_grpo_dr_adv adv;
  enum rlref_grpo_agg_mode agg;       /* the weight of a token: SEQ_MEAN_TOKEN_SUM (1/G),
                                         TOKEN_MEAN or GROUP_MEAN_LENGTH (1/N),
                                         SEQ_MEAN_TOKEN_SUM_NORM (1/(G L_const)),
                                         SEQ_MEAN_TOKEN_SUM_NORM_WIDTH (1/(G T)) */
  int clamp_log_ratio;                /* l clamped to [-20, 20] before exp */
  int dual_clip;                      /* for A < 0, s = max(s, dual_c A) */
  double dual_c;
  enum rlref_grpo_dr_single single;
  double adv_clip;                    /* > 0: A clamped to [-adv_clip, adv_clip] (OpenRLHF's
                                         --reward.clip_range on the shaped reward) */
} rlref_grpo_dr_convention;

/* OpenRLHF's --reward.clip_range default, [-10, 10]. */
#define RLREF_GRPO_REWARD_CLIP 10.0

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

/* GRPO-GSPO: a sequence without a token in the mask. */
enum rlref_grpo_empty
{
  RLREF_GRPO_EMPTY_REFUSE,      /* EDOM (the seeds: 1/|y_i| is 1/0) */
  RLREF_GRPO_EMPTY_COUNT,       /* s_i = e^0 = 1, its loss term 0, counted in the 1/G mean
                                   (TRL: clamp(min=1) and the mean over rows; verl: the
                                   trainer's global_batch_size, seq_lengths.clamp(min=1)) */
  RLREF_GRPO_EMPTY_SKIP         /* left out: the mean over the sequences with a token
                                   (OpenRLHF's sample-level seq_mask and global_batch_size) */
};

/* GRPO-GSPO: one library's reading. */
typedef struct
{
  double cap;                   /* > 0: log s_i capped there (verl, 10) */
  enum rlref_grpo_empty empty;
} rlref_grpo_gspo_convention;

/* verl's cap of GSPO's mean log-ratio (zero gradient beyond). */
#define RLREF_GSPO_VERL_CAP 10.0

/* The named conventions of the GRPOOBJ formulas, in the order of the golden
 * variants (src/grpoobj/grpoobj_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   GRPO-OBJ: rlref_grpo_obj_convention
 *   GRPO-AGG: rlref_grpo_agg_convention
 *   GRPO-DR: rlref_grpo_dr_convention
 *   GRPO-GSPO: rlref_grpo_gspo_convention
 *   GRPO-GMPO: none
 *   GRPO-GFPO: enum rlref_gfpo_filter */
extern const rlref_convention rlref_grpoobj_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/grpoobj.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/grpoobj.h"
#include "rlref/tmpl/end.h"

#endif
