/* rlref/ppo.h -- PPO for language models (PPO-*): the per-token reward with
 * its KL penalty (13.9), the sum identity (13.10) on the tiny LM, the
 * probability ratio, importance sampling, the clipped surrogate (13.12) and
 * its dual clip, the value loss and its targets, the entropy bonus and the
 * full objective, advantage whitening, the adaptive KL coefficient and the
 * target-KL early stop; binary64 and MPFR, and binary64 batch kernels.
 * The ratio, the clipped surrogate, the value loss and whitening also as
 * TRL, verl and OpenRLHF compute them in binary32 (the *_f32 functions,
 * src/formulas/ppo_f32.c): each operation of the library's code in its
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

/* The clamps of verl and OpenRLHF: the log-ratio to [-20, 20] before exp,
 * a KL estimate to [-10, 10]. */
#define RLREF_PPO_LOG_RATIO_CLAMP 20.0
#define RLREF_PPO_KL_CLAMP 10.0

/* The per-token KL estimate of the reward's penalty, l = logp - ref. */
enum rlref_ppo_kl
{
  RLREF_PPO_K1,                 /* l */
  RLREF_PPO_K3                  /* e^-l - 1 + l */
};

/* PPO-TOKREW: how a library forms r_t = score [t = end] - beta k(l_t). */
typedef struct
{
  enum rlref_ppo_kl kl;
  int clamp_log_ratio;          /* k3 of clamp(l, -20, 20) (verl low_var_kl) */
  int clamp_estimate;           /* k clamped to [-10, 10] (verl low_var_kl, OpenRLHF) */
  int score_after_last;         /* TRL: the score one slot past the last token of the
                                   mask when that slot exists, else on it */
} rlref_ppo_tokrew_convention;

/* PPO-CLIP, PPO-DUALCLIP. */
typedef struct
{
  int clamp_log_ratio;          /* l clamped to [-20, 20] before exp (verl, OpenRLHF) */
  int dual_clip;                /* for A < 0, s = max(s, c A) (verl; OpenRLHF when asked) */
} rlref_ppo_clip_convention;

/* PPO-VALUE: the clipped value, if any. */
enum rlref_ppo_value_clip
{
  RLREF_PPO_VALUE_UNCLIPPED,    /* (V - R)^2 */
  RLREF_PPO_VALUE_CLAMP,        /* Vc = clamp(V, V_old - c, V_old + c) (TRL, verl) */
  RLREF_PPO_VALUE_DELTA         /* Vc = V_old + clamp(V - V_old, -c, c) (OpenRLHF) */
};

typedef struct
{
  int half;                     /* 1/2 in front of the mean (the libraries), else 1 */
  enum rlref_ppo_value_clip clip;
} rlref_ppo_value_convention;

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

/* PPO-CLIP, PPO-DUALCLIP in binary32: the clamp and the dual clip, and
 * the library (how a masked token's loss enters the sum). */
typedef struct
{
  rlref_ppo_clip_convention clip;
  enum rlref_ppo_lib lib;
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
} rlref_ppo_whiten_f32_convention;

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
 * one computes; nothing is allocated.  Statuses as rlref_ppo_clip_d. */
RLREF_WUR int rlref_ppo_clip_batch (double *loss, double *surrogate, double *grad,
                                    double *clipfrac, const double *logp,
                                    const double *old_logp, const double *adv,
                                    const unsigned char *mask, size_t n,
                                    const rlref_ppo_clip_convention *c, double eps_low,
                                    double eps_high, double dual_c);

#endif
