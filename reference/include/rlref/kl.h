/* rlref/kl.h -- the KL estimators (KL-K1, KL-K2, KL-K3, KL-VARIANTS,
 * KL-EXACT, KL-GRAD), binary64 and MPFR.  Seed 000 section 12.1, table 5
 * and (13.26); seed 001; CONVENTIONS.md "KL estimators".
 *
 * For a token y sampled from the policy pi, with the reference pi_ref,
 *   l = log pi(y) - log pi_ref(y) = logp - ref_logp,  u = pi_ref/pi = e^-l,
 *   k1 = l,  k2 = l^2/2,  k3 = u - 1 - log u = e^-l - 1 + l  (13.26),  abs = |l|.
 * Each estimator's gradient is d k / d logp, the reference held fixed.
 * Every output may share storage with an input of the same length: all
 * inputs are read before any output is written. */
#ifndef RLREF_KL_H
#define RLREF_KL_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/convention.h"
#include "rlref/precision.h"
#include "rlref/lm.h"

/* The estimator of a convention. */
typedef enum { RLREF_KL_K1, RLREF_KL_K2, RLREF_KL_K3, RLREF_KL_ABS } rlref_kl_estimator;

/* How a convention computes: exactly (every result the exact value of its
 * formula, rounded once to the backend), or in binary32 in the operation
 * order of a library's code, every operation rounded to binary32 and e^x
 * correctly rounded (a log-probability beyond the binary32 range is +-inf
 * there, as a float32 cast makes it):
 *   RLREF_KL_F32_OPENRLHF  l = f32(logp) - f32(ref_logp); k3 = (e^-l - 1) + l
 *                          (OpenRLHF's compute_approx_kl);
 *   RLREF_KL_F32_TRL       d = f32(ref_logp) - f32(logp); k3 = (e^d - d) - 1
 *                          (TRL's GRPOTrainer; verl's low_var_kl, with its
 *                          clamps, computes in this order too);
 *   RLREF_KL_F32_TRL_PPO   d = f32(ref_logp) - f32(logp); k3 = (e^d - 1) - d
 *                          (TRL's PPOTrainer). */
typedef enum
{
  RLREF_KL_EXACT, RLREF_KL_F32_OPENRLHF, RLREF_KL_F32_TRL, RLREF_KL_F32_TRL_PPO
} rlref_kl_arith;

/* How the gradient of a straight-through form is taken.  verl's "+" names
 * compute k2 - k2.detach() + k.detach(): the value of the estimator k, the
 * gradient of k2 (RLREF_KL_ST); the other two are departures from it that
 * rlref check searches (a stop-gradient missing). */
enum
{
  RLREF_KL_ST_NONE = 0,         /* the estimator's own value and gradient */
  RLREF_KL_ST = 1,              /* value of k, gradient of k2: l */
  RLREF_KL_ST_VALUE_LIVE = 2,   /* k not detached: gradient k' + l */
  RLREF_KL_ST_K2_LIVE = 3       /* k2's detach missing: k2 - k2 + k.detach(), gradient 0 */
};

/* A per-token convention (one golden variant each).  Where a library
 * clamps, the gradient is PyTorch's: clamp passes it where
 * min <= x <= max and gives 0 elsewhere. */
typedef struct
{
  const char *name;             /* the variant's name */
  const char *formulas;         /* the catalogue ids that carry it, comma list */
  const char *rule;             /* what it computes, in one line */
  const char *used_by;          /* who uses it */
  rlref_kl_estimator estimator;
  rlref_kl_arith arith;
  double log_ratio_clamp;       /* > 0: ref_logp - logp clamped to [-c, c] first (verl) */
  double kl_clamp;              /* > 0: the estimate clamped to [-c, c] */
  int straight_through;         /* RLREF_KL_ST*: a straight-through form (exact arithmetic
                                   only); where l^2 overflows binary64 verl's value is
                                   inf - inf = NaN: ERANGE */
  int inverted;                 /* 1: the ratio inverted (a departure): the estimator of
                                   pi/pi_ref, i.e. at -l (k3 = e^l - 1 - l), d/dlogp */
} rlref_kl_convention;

/* The conventions of the libraries and the seeds (src/kl/kl_conventions.c). */
extern const rlref_kl_convention rlref_kl_conventions[];
extern const size_t rlref_kl_num_conventions;
/* The convention named name carried by catalogue id formula, or NULL. */
const rlref_kl_convention *rlref_kl_convention_find (const char *formula, const char *name);

/* The family's other named conventions (src/kl/kl_other_conventions.c),
 * ended by a row of zeros: KL-K3's bias-corrected and naive readings and
 * KL-VARIANTS' exact full KL, each without a setting, and KL-EXACT's
 * readings, "tiny-lm" with an int setting (1: each estimator summed over a
 * response's tokens; 0: the estimator of the sequence's log-ratio). */
extern const rlref_convention rlref_kl_other_conventions[];

/* The outputs of kl_exact and kl_exact_lm, in this order. */
enum
{
  RLREF_KL_KL,                  /* KL(pi || pi_ref) = E[k1] */
  RLREF_KL_E_K2,                /* E[k2] */
  RLREF_KL_E_K3,                /* E[k3] */
  RLREF_KL_BIAS_K2,             /* E[k2] - KL */
  RLREF_KL_BIAS_K3,             /* E[k3] - KL */
  RLREF_KL_VAR_K1,              /* Var[k1] */
  RLREF_KL_VAR_K2,              /* Var[k2] */
  RLREF_KL_VAR_K3,              /* Var[k3] */
  RLREF_KL_NEXACT
};

/* The outputs of kl_gauss: x ~ N(mu, sigma^2) (the policy), the reference
 * N(mu_ref, sigma_ref^2).  E[k1] = E[k3] = KL: their biases are 0. */
enum
{
  RLREF_KL_G_KL,                /* KL(policy || reference) */
  RLREF_KL_G_KL_REVERSE,        /* KL(reference || policy) */
  RLREF_KL_G_E_K2,              /* E[k2] */
  RLREF_KL_G_BIAS_K2,           /* E[k2] - KL */
  RLREF_KL_G_VAR_K1,            /* Var[k1] */
  RLREF_KL_G_VAR_K2,            /* Var[k2] */
  RLREF_KL_G_VAR_K3,            /* Var[k3]; +inf when sigma_ref^2 >= 2 sigma^2 */
  RLREF_KL_G_BIAS_K2_REL,       /* (E[k2] - KL)/KL: Schulman's bias/true */
  RLREF_KL_G_STD_K1_REL,        /* sqrt(Var[k1])/KL: Schulman's stdev/true */
  RLREF_KL_G_STD_K2_REL,
  RLREF_KL_G_STD_K3_REL,
  RLREF_KL_NGAUSS
};

/* The outputs of kl_gauss_mc, sample statistics of n draws. */
enum
{
  RLREF_KL_MC_MEAN_K1, RLREF_KL_MC_MEAN_K2, RLREF_KL_MC_MEAN_K3,
  RLREF_KL_MC_STD_K1, RLREF_KL_MC_STD_K2, RLREF_KL_MC_STD_K3,
  RLREF_KL_MC_BIAS_K1_REL, RLREF_KL_MC_BIAS_K2_REL, RLREF_KL_MC_BIAS_K3_REL,
  RLREF_KL_MC_STD_K1_REL, RLREF_KL_MC_STD_K2_REL, RLREF_KL_MC_STD_K3_REL,
  RLREF_KL_NMC
};

/* How an estimator enters the gradient of kl_grad_softmax, y ~ q: */
typedef enum
{
  RLREF_KL_AS_LOSS,             /* E_q[grad k(l_y)]: a loss term, the sampling held fixed */
  RLREF_KL_AS_RATIO_LOSS,       /* E_q[grad (k(l_y) rho_y)], rho = q/q_old = 1 differentiable
                                   (TRL's use_bias_correction_kl, on-policy) */
  RLREF_KL_AS_REWARD            /* E_q[k(l_y) grad log q_y]: k in the reward, the policy
                                   gradient (REINFORCE, no baseline) */
} rlref_kl_grad_mode;

/* A KL-GRAD convention (one golden variant each): an estimator as the
 * gradient of a loss or a reward, on a softmax (its per-token convention
 * of rlref_kl_conventions and the mode) or on the tiny LM (an
 * RLREF_LM_OBJ_K1, K2 or K3 objective), with who uses it (src/kl/kl_conventions.c). */
typedef struct
{
  const char *name;             /* the variant's name */
  const char *rule;             /* what it computes, in one line */
  const char *used_by;          /* who uses it */
  const char *estimator_formula;        /* softmax: the catalogue id of the estimator */
  const char *estimator;        /* and its convention's name there */
  rlref_kl_grad_mode mode;      /* softmax: how it enters the gradient */
  int lm;                       /* 1: on the tiny LM */
  int lm_objective;             /* the tiny LM's RLREF_LM_OBJ_K1, K2 or K3 */
} rlref_kl_grad_convention;

/* The KL-GRAD conventions, in the order of the golden variants. */
extern const rlref_kl_grad_convention rlref_kl_grad_conventions[];
extern const size_t rlref_kl_grad_num_conventions;

/* Normalisation tolerance of a distribution given as probabilities: the
 * sum of its entries within this of 1. */
#define RLREF_KL_NORM_TOL 1e-6

/* Most draws of kl_gauss_mc. */
#define RLREF_KL_MC_MAX 1000000L

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/kl.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/kl.h"
#include "rlref/tmpl/end.h"

#endif
