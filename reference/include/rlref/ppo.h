/* rlref/ppo.h -- PPO for language models (PPO-*): the per-token reward with
 * its KL penalty (13.9), the sum identity (13.10) on the tiny LM, the
 * probability ratio, importance sampling, the clipped surrogate (13.12) and
 * its dual clip, the value loss and its targets, the entropy bonus and the
 * full objective, advantage whitening, the adaptive KL coefficient and the
 * target-KL early stop; binary64 and MPFR, and binary64 batch kernels.
 * The ratio, the clipped surrogate, the value loss and whitening also as
 * TRL, verl and OpenRLHF compute them in binary32 (the *_f32 functions,
 * src/ppo/ppo_f32.c): each operation of the library's code in its
 * order, rounded to binary32; the value certified is that recurrence's.
 *
 * Throughout, a response of n tokens has at token t the log-probabilities
 * logp[t] (the policy being trained, pi_theta), old_logp[t] (the policy
 * that sampled, pi_old) and ref[t] (the frozen reference, pi_ref); the
 * log-ratio is l = log pi - log pi_other, new minus old (seed 001).  A
 * mask (0 or 1 per token; NULL: every token) selects the tokens that count;
 * a mean over the mask is a token mean, sum_t mask_t x_t / sum_t mask_t.
 * A mask entry other than 0 and 1 is EDOM, and so is a mask without a 1
 * where a mean over it is formed.  Every output may share storage with an
 * input of the same length (reference/README.md, "Aliasing"). */
#ifndef RLREF_PPO_H
#define RLREF_PPO_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/lm.h"
#include "rlref/convention.h"

/* The clamps of verl and OpenRLHF: the log-ratio to [-20, 20] before exp,
 * a KL estimate to [-10, 10]. */
#define RLREF_PPO_LOG_RATIO_CLAMP 20.0
#define RLREF_PPO_KL_CLAMP 10.0

/* The per-token KL estimate of the reward's penalty, l = logp - ref. */
enum rlref_ppo_kl
{
  RLREF_PPO_K1,                 /* l */
  RLREF_PPO_K3,                 /* e^-l - 1 + l */
  RLREF_PPO_K2                  /* l^2/2 (OpenRLHF's k2) */
};

/* The score clamp of OpenRLHF's compute_reward (--reward.clip_range -10 10). */
#define RLREF_PPO_SCORE_CLAMP 10.0

/* PPO-TOKREW: how a library forms r_t = score [t = end] - beta k(l_t). */
typedef struct
{
  enum rlref_ppo_kl kl;
  int clamp_log_ratio;          /* k3 of clamp(l, -20, 20) (verl low_var_kl) */
  int clamp_estimate;           /* k clamped to [-10, 10] (verl low_var_kl, OpenRLHF) */
  int score_after_last;         /* TRL: the score one slot past the last token of the
                                   mask when that slot exists, else on it */
  int mask_prefix;              /* TRL: the response ends at the first 0 of the mask
                                   (its sequence_length); every later slot is padding */
  int keep_masked;              /* OpenRLHF: kl and -beta kl kept at masked tokens */
  int clamp_score;              /* OpenRLHF: the score clamped to [-10, 10] */
  int beta_floor;               /* OpenRLHF: beta <= 0 taken as 0 (else EDOM) */
} rlref_ppo_tokrew_convention;

/* PPO-CLIP, PPO-DUALCLIP. */
typedef struct
{
  int clamp_log_ratio;          /* l clamped to [-20, 20] before exp (verl, OpenRLHF) */
  int dual_clip;                /* for A < 0, s = max(s, c A) (verl; OpenRLHF when asked) */
} rlref_ppo_clip_convention;

/* PPO-CLIP, PPO-DUALCLIP as a library computes them (rlref_ppo_clip_ex):
 * the clamp and the dual clip, and what the libraries add. */
typedef struct
{
  rlref_ppo_clip_convention clip;
  int clipfrac_f32;             /* the clip fraction a binary32 mean of the 0/1 mask,
                                   f32(k/N) (every library, in float64 runs too) */
  int masked_ratio_one;         /* TRL PPOTrainer: both log-probabilities filled with
                                   INVALID_LOGPROB at padding, so rho = 1 there */
  int ratio_cap;                /* TRL GRPOTrainer delta: the unclipped term's ratio
                                   capped, min(rho, c), after exp (any sign of A) */
  int optimistic;               /* a departure: max in place of min (the checker's axis) */
  int clip_log;                 /* a departure: e^clip(l, -eps_low, eps_high) in place
                                   of clip(rho, 1 - eps_low, 1 + eps_high) (axis) */
} rlref_ppo_clip_ex_convention;

/* PPO-VALUE: the clipped value, if any.  The gradient through it is
 * autograd's: torch.clamp passes it inside its bounds and at them, verl's
 * clip_by_value = max(min(V, hi), lo) halves it at each tie; torch.max of
 * the two squares halves it between them at a tie. */
enum rlref_ppo_value_clip
{
  RLREF_PPO_VALUE_UNCLIPPED,    /* (V - R)^2 */
  RLREF_PPO_VALUE_CLAMP,        /* Vc = clamp(V, V_old - c, V_old + c) (TRL) */
  RLREF_PPO_VALUE_DELTA,        /* Vc = V_old + clamp(V - V_old, -c, c) (OpenRLHF) */
  RLREF_PPO_VALUE_MAXMIN        /* Vc = max(min(V, V_old + c), V_old - c) (verl) */
};

typedef struct
{
  int half;                     /* 1/2 in front of the mean (the libraries), else 1 */
  enum rlref_ppo_value_clip clip;
  int clipfrac_f32;             /* the clip fraction f32(k/N) (TRL, verl) */
  int masked_zero;              /* TRL: V and V_old filled with 0 at padding, the
                                   squares there not zeroed (losses = R^2) */
} rlref_ppo_value_convention;

/* PPO-VALUE objective: how the entropy bonus is averaged. */
typedef struct
{
  int entropy_all_f32;          /* TRL: entropy.mean() over every position, masked ones
                                   too, stored in a binary32 stats tensor */
} rlref_ppo_objective_convention;

/* PPO-WHITEN: where eps goes. */
enum rlref_ppo_whiten_eps
{
  RLREF_PPO_EPS_IN_SQRT,        /* (A - mu)/sqrt(var + eps) (TRL, verl) */
  RLREF_PPO_EPS_FLOOR,          /* (A - mu)/sqrt(max(var, eps)) (OpenRLHF) */
  RLREF_PPO_EPS_ADD_STD         /* (A - mu)/(std + eps) (Stable-Baselines3, CleanRL) */
};

typedef struct
{
  int ddof;                     /* var = sum (A - mu)^2/(n - ddof) over the mask */
  enum rlref_ppo_whiten_eps eps_at;
  int readd_mean;               /* shift_mean=False: the mean is added back */
  int zero_masked;              /* masked positions are set to 0 (TRL) */
  int bessel_f32;               /* ddof 1 as var0 f32(N/(N - 1)): the factor of an
                                   integer mask sum is a binary32 tensor (TRL, verl) */
} rlref_ppo_whiten_convention;

/* The library whose binary32 operation order a float32 reading follows
 * (the *_f32 functions: every operation of its code, in its order, on
 * binary32 operands, rounded to binary32). */
enum rlref_ppo_lib
{
  RLREF_PPO_LIB_TRL,            /* trl/experimental/ppo/ppo_trainer.py */
  RLREF_PPO_LIB_VERL,           /* core_algos.py, utils/torch_functional.py */
  RLREF_PPO_LIB_OPENRLHF        /* models/loss.py, ppo_utils/experience_maker.py */
};

/* PPO-CLIP, PPO-DUALCLIP in binary32: the clamp and the dual clip, the
 * library (how a masked token's loss enters the sum) and TRL's
 * INVALID_LOGPROB at padding (rho = 1 at a masked token). */
typedef struct
{
  rlref_ppo_clip_convention clip;
  enum rlref_ppo_lib lib;
  int masked_ratio_one;
} rlref_ppo_clip_f32_convention;

/* PPO-VALUE in binary32: the clipped value and the library (verl's
 * clip_by_value halves the gradient at a bound, its masked_sum drops a
 * masked square). */
typedef struct
{
  rlref_ppo_value_convention value;
  enum rlref_ppo_lib lib;
} rlref_ppo_value_f32_convention;

/* PPO-WHITEN in binary32: the library (its ddof, where eps goes, what it
 * writes at masked positions) and shift_mean=False (TRL's whiten_rewards,
 * verl's masked_whiten(shift_mean=False)): the mean added back. */
typedef struct
{
  enum rlref_ppo_lib lib;
  int readd_mean;
  int apply_f64;                /* OpenRLHF in a float64 run: mean and rstd in binary32
                                   (.float()), (A - mean) rstd on the binary64 values */
  int zero_masked;              /* masked positions set to 0 (TRL always; a departure
                                   for the others) */
} rlref_ppo_whiten_f32_convention;

/* The named conventions of the PPO formulas, in the order of the golden
 * variants (src/ppo/ppo_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula and part:
 *   PPO-TOKREW       rlref_ppo_tokrew_convention (binary32 too)
 *   PPO-KLSUM        rlref_lm_kind
 *   PPO-RATIO        int: 1 when the log-ratio is clamped to [-20, 20]
 *   PPO-CLIP, PPO-DUALCLIP
 *                    rlref_ppo_clip_ex_convention; in binary32
 *                    rlref_ppo_clip_f32_convention
 *   PPO-VALUE        "loss": rlref_ppo_value_convention, in binary32
 *                    rlref_ppo_value_f32_convention; "objective":
 *                    rlref_ppo_objective_convention or none; the targets none
 *   PPO-WHITEN       rlref_ppo_whiten_convention; in binary32
 *                    rlref_ppo_whiten_f32_convention
 *   PPO-KLCTL        int: "controller" 1 adaptive, 0 fixed; "early-stop" 1
 *                    when the test comes before the step, 0 after it
 *   PPO-TOKREW-EX, PPO-IS, PPO-CLIP-EX2   none */
extern const rlref_convention rlref_ppo_conventions[];

#include "rlref/tmpl/begin_d.h"
#define RLREF_VISIT rlref_lm_visit_d
#include "rlref/tmpl/ppo.h"
#undef RLREF_VISIT
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#define RLREF_VISIT rlref_lm_visit_mp
#include "rlref/tmpl/ppo.h"
#undef RLREF_VISIT
#include "rlref/tmpl/end.h"

/* --- binary64 batch kernels (src/ppo_batch.c) --------------------------
 *
 * The clipped surrogate of PPO-CLIP and PPO-DUALCLIP over n tokens in one
 * call: per token the surrogate s_t and the gradient of the token-mean
 * loss d loss / d logp_t, and the loss -sum_t mask_t s_t / N and the clip
 * fraction.  mask holds bytes 0 or 1 (NULL: every token); surrogate, grad,
 * clipfrac may be NULL.  The per-token outputs are bit for bit those of
 * rlref_ppo_clip_d (the same operations in the same order); the loss is a
 * plain left-to-right sum, within (n - 1) u sum_t |s_t| / N of the
 * correctly rounded one.  One pass checks the inputs and counts the mask,
 * one computes; nothing is allocated but for a token whose ratio lies
 * within about 2^-49 of a bound, which rlref_ppo_clip_d decides exactly.
 * Statuses as rlref_ppo_clip_d. */
RLREF_WUR int rlref_ppo_clip_batch (double *loss, double *surrogate, double *grad,
                                    double *clipfrac, const double *logp,
                                    const double *old_logp, const double *adv,
                                    const unsigned char *mask, size_t n,
                                    const rlref_ppo_clip_convention *c, double eps_low,
                                    double eps_high, double dual_c);

#endif
