/* lm_engine.h -- internal: what the enumeration of the tiny model's
 * sequences (lm.c) shares with its dynamic program (lm_dp.c), for the
 * backend the including file is compiled for: the rows of token
 * probabilities and weights, the compensated sums of the moments, and
 * the steps that fill and read them. */
#ifndef RLREF_LM_ENGINE_H
#define RLREF_LM_ENGINE_H
#include <stddef.h>
#include "rlref/num.h"
#include "rlref/lm.h"

/* The rows of token log-probabilities log pi(a | s), probabilities and,
 * for an additive reward, the weights q(a | s) = pi(a | s) e^{r_a / beta}
 * with r_a = token[a] + per_length: for a bigram model one row per state,
 * made once; for a tabular model one row per depth, made when a prefix is
 * entered (one log-softmax per prefix). */
typedef struct
{
  const rlref_lm *lm;
  int V;
  size_t nrows;
  num_ptr lp, p, q;             /* nrows x V */
  num_ptr ra;                   /* V: r_a (additive) */
  num_ptr cut_w;                /* e^{truncated / beta} */
  num_ptr inv_beta, ln2;
  long *qe, cut_e;              /* q and cut_w are mantissa x 2^exponent */
  int range_error;
  num_ptr last;                 /* nrows x L_NVALS, or NULL: see last_fill */
  long *last_e;                 /* nrows: the scale of L_B0 */
  num_ptr fuse;                 /* nrows x V x F_NVALS, or NULL: see last_fill */
  long *fuse_e;                 /* nrows x V: the scale of F_QB */
} rows;

/* The sums of one pass over the outcomes: the mass S0 = sum p, SH = sum p
 * log p, SR = sum p (r - c) and SR2 = sum p (r - c)^2 about the first
 * outcome's reward c (so that Var[r] does not cancel), W = sum p e^{r/beta},
 * WR = sum p e^{r/beta} r, and the count.  Each sum is compensated
 * (acc_add).  Only the sums the wanted moments need are formed: the
 * count, S0 and W always; SH for the entropy; SR, SR2 for E[r] and Var[r]
 * (and KL(pi_ref || pi*)); WR for E*[r] and KL(pi* || pi_ref). */
enum { S_0, S_H, S_R, S_R2, S_W, S_WR, S_HC, S_HO, S_N, S_NSUMS };

typedef struct
{
  num_ptr s, c;                 /* sums and their compensations */
  num_ptr shift, t, u, v, x;    /* c, scratch */
  num_ptr hc, hp;               /* the entropy's anchor: log p and p of one outcome */
  int have_shift, want_p, want_h, want_r, want_star;
  int have_hc;                  /* 1 anchored, 0 not yet, -1 none (SH unshifted) */
  long we;                      /* W and WR are scaled by 2^we */
  int have_w;
  uint64_t n;                   /* outcomes counted (the enumeration) */
} sums;

/* 1 when a KL or log Z of the moments m is below 2^-CANCEL_BITS (lm.c) of
 * the terms it is formed from, so that its plain form may lose bits (t a
 * temporary). */
int FN (lm_cancels) (num_srcptr m, num_srcptr inv_beta, num_ptr t);

/* h(u) = e^u - 1 - u and g(u) = u e^u - e^u + 1, both >= 0, without
 * cancellation: for |u| < 1 their Taylor series, h = sum_{k>=2} u^k/k!,
 * g = sum_{k>=2} (k - 1) u^k/k! (terms until they no longer count at the
 * working precision); else h = expm1(u) - u and g = e^u (u - 1) + 1. */
void FN (lm_h_and_g) (num_ptr h, num_ptr g, num_srcptr u, num_ptr term, num_ptr t);

/* Every logit and reward term finite. */
int FN (lm_inputs_finite) (const rlref_lm *lm, num_srcptr logits, num_srcptr reward,
                           num_srcptr beta);

/* The moments from the sums (rlref/lm.h); those not wanted are NaN.  The
 * counted outcomes carry mass S0 (1, or P(EOS within T) when cut sequences
 * are conditioned away): the distribution is p / S0, so H = -SH/S0 + log S0,
 * log Z = log (W / S0), E[r] = c + SR/S0, Var[r] = SR2/S0 - (SR/S0)^2. */
int FN (lm_moments_of) (num_ptr m, sums *S, num_srcptr inv_beta, num_srcptr ln2,
                        unsigned want, int keep);

/* The rows: made for nrows states or depths (lm_rows_init, its reward and
 * beta giving the weights; freed by lm_rows_free), row filled from its
 * logits (lm_rows_fill, tmp a temporary of two scalars). */
int FN (lm_rows_init) (rows *R, const rlref_lm *lm, num_srcptr reward, num_srcptr beta,
                       size_t nrows);
int FN (lm_rows_fill) (rows *R, size_t row, num_srcptr logits, num_ptr tmp);
void FN (lm_rows_free) (rows *R);

/* The sums of the moments in want (rlref/lm.h's RLREF_LM_* bits), zeroed;
 * freed by lm_sums_free. */
int FN (lm_sums_init) (sums *S, unsigned want);
void FN (lm_sums_free) (sums *S);

#endif
