/* rlref/grpobase.h -- GRPO baselines (GRPO-ADV-BOUND, GRPO-ADV-SCALE,
 * GRPO-BASELINE, GRPO-RLOO, GRPO-VAR, GRPO-STDBIAS, GRPO-REMAX): the bound
 * and the scale of the group advantage, the leave-one-out advantage of RLOO
 * under the libraries' conventions, the variance of the group-mean and
 * leave-one-out baselines, the difficulty weight of the std normalisation,
 * ReMax, and the zero-mean score of 13.27 on the tiny LM; binary64 and
 * MPFR. */
#ifndef RLREF_GRPOBASE_H
#define RLREF_GRPOBASE_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/grpo.h"
#include "rlref/lm.h"
#include "rlref/convention.h"

/* What a leave-one-out advantage does with a group of one and with NaN
 * rewards (CONVENTIONS.md "RLOO and ReMax"). */
enum rlref_rloo_convention
{
  RLREF_RLOO_SEED,              /* 13.28 as written: a group of one, NaN or inf refused */
  RLREF_RLOO_TRL,               /* NaN rewards left out, advantage 0; fewer than two
                                   scorable rewards in a group: 0 (nan_to_num) */
  RLREF_RLOO_VERL,              /* verl rloo: a group of one keeps A = r */
  RLREF_RLOO_VERL_VECTORIZED,   /* verl rloo_vectorized: a group of one gives 0 */
  RLREF_RLOO_OPENRLHF           /* 13.28 clamped to [-10, 10] (OpenRLHF's
                                   --reward.clip_range on the shaped reward); a group of
                                   one, NaN or inf refused */
};

/* OpenRLHF's --reward.clip_range default, [-10, 10], on the shaped reward. */
#define RLREF_RLOO_OPENRLHF_CLIP 10.0
/* OpenRLHF's clamp of a token's KL estimate (compute_approx_kl) and of a
 * token's log-ratio in its policy loss. */
#define RLREF_RLOO_OPENRLHF_KL_CLIP 10.0
#define RLREF_RLOO_OPENRLHF_LOG_RATIO_CLIP 20.0

/* Largest group of GRPO-STDBIAS, and most trials x G of the Monte-Carlo
 * run of GRPO-VAR. */
#define RLREF_STDBIAS_MAX_G 1024
#define RLREF_VAR_MC_MAX 10000000L
/* Most tokens in a row of GRPO-REMAX (each return is an exact sum of its
 * tail). */
#define RLREF_REMAX_MAX_L 4096
/* Most sequences of GRPO-BASELINE's enumeration. */
#define RLREF_BASELINE_MAX_SEQUENCES 4096

/* The named conventions of the GRPOBASE formulas, in the order of the golden
 * variants (src/grpobase/grpobase_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   GRPO-ADV-BOUND: int, the ddof
 *   GRPO-ADV-SCALE: int, the ddof
 *   GRPO-BASELINE: rlref_lm_kind
 *   GRPO-RLOO: "advantage" enum rlref_rloo_convention; "strided" none;
 *       "identity" none; "kl-reward" enum rlref_rloo_convention or none;
 *       "loss" none
 *   GRPO-VAR: none
 *   GRPO-STDBIAS: const char *, the name of its group advantage in
 *       rlref_adv_conventions
 *   GRPO-REMAX: none */
extern const rlref_convention rlref_grpobase_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/grpobase.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/grpobase.h"
#include "rlref/tmpl/end.h"

#endif
