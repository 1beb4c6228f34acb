/* rlref/dpo.h -- the DPO family of preference losses on given
 * log-probabilities (DPO-LOSS, DPO-GRAD, DPO-CDPO, DPO-IPO, DPO-KTO,
 * DPO-SIMPO, DPO-ORPO), binary64 and MPFR.
 *
 * A log-probability is the sum over a completion's tokens of log pi(token |
 * prefix); its token count is the number of those tokens.  For a pair,
 * logp_w, logp_l are the policy's and ref_w, ref_l the reference's
 * log-probabilities of the chosen (w) and rejected (l) completion, and
 *   D = (logp_w - ref_w) - (logp_l - ref_l),
 * or, where a convention averages per token,
 *   D = (logp_w - ref_w)/n_w - (logp_l - ref_l)/n_l.
 * Every output may share storage with an input of the same length: all
 * inputs are read before any output is written. */
#ifndef RLREF_DPO_H
#define RLREF_DPO_H

#include <stddef.h>
#include <mpfr.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/convention.h"

/* The per-pair loss l(D) of a pairwise convention, b = beta. */
enum rlref_dpo_form
{
  RLREF_DPO_SIGMOID,            /* -log sigma(b D)  (13.21) */
  RLREF_DPO_HINGE,              /* max(0, 1 - b D) */
  RLREF_DPO_CDPO,               /* -(1 - e) log sigma(b D) - e log sigma(-b D) */
  RLREF_DPO_ROBUST,             /* [-(1 - e) log sigma(b D) + e log sigma(-b D)]/(1 - 2e) */
  RLREF_DPO_IPO                 /* (D - 1/(2b))^2 */
};

/* A pairwise convention: the form, whether beta is applied twice (seed
 * 003's prose: b = beta^2), and whether D is formed from per-token means. */
typedef struct
{
  enum rlref_dpo_form form;
  int beta_squared;
  int per_token;
} rlref_dpo_convention;

/* How an SFT term averages the chosen completions' negative
 * log-likelihood over a batch of B pairs. */
enum rlref_nll_mean
{
  RLREF_NLL_TOKEN_MEAN,         /* -sum_i logp_w,i / sum_i n_w,i (one mean over every token) */
  RLREF_NLL_SEQ_MEAN            /* (1/B) sum_i (-logp_w,i / n_w,i) (mean of per-sequence means) */
};

/* The named conventions of the DPO formulas, in the order of the golden
 * variants (src/dpo/dpo_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   DPO-LOSS: rlref_dpo_convention
 *   DPO-GRAD: rlref_dpo_convention
 *   DPO-CDPO: rlref_dpo_convention
 *   DPO-IPO: rlref_dpo_convention
 *   DPO-KTO: none
 *   DPO-SIMPO: none, or int 1 where the NLL output is TRL's placeholder 0
 *       at cpo_alpha = 0
 *   DPO-ORPO: enum rlref_nll_mean */
extern const rlref_convention rlref_dpo_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/dpo.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/dpo.h"
#include "rlref/tmpl/end.h"

#endif
