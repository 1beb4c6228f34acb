/* rlref/batch.h -- binary64 batch kernels: GRPO advantages over N groups,
 * the KL estimators k1, k2, k3 over n log-ratios, the pairwise DPO losses
 * and their gradients over B pairs, the KTO, SimPO and ORPO losses and
 * their gradients, and GAE over a batch of sequences (the clipped
 * surrogate of PPO is rlref_ppo_clip_batch, rlref/ppo.h).
 *
 * They are not a second precision but a fast path held to the scalar
 * reference (rlref_grpo_adv_ws_d, rlref_kl_estimate_d, rlref_dpo_loss_d,
 * rlref_kto_loss_d, rlref_simpo_loss_d, rlref_orpo_loss_d,
 * rlref_mdp_gae_d): a plain loop over contiguous arrays, one validation
 * pass, the passes the arithmetic needs, and no allocation (except where
 * said).  Each function states how its outputs relate to the reference:
 * bit for bit (the same operations in the same order), or within a stated
 * bound where a sum is taken in another order.  u = 2^-53.  Statuses are
 * those of the scalar reference.  Outputs must not overlap inputs unless
 * said (the pointers are restrict). */
#ifndef RLREF_BATCH_H
#define RLREF_BATCH_H

#include <stddef.h>
#include "rlref/status.h"
#include "rlref/workspace.h"
#include "rlref/grpo.h"
#include "rlref/dpo.h"
#include "rlref/mdp.h"

/* Threads.  A kernel over many elements (65536 or more) splits its work
 * into 8 fixed chunks, combined in a fixed order, and runs them on up to
 * rlref_batch_set_threads (n) threads (1 by default: no thread is started
 * unless asked).  The results do not depend on the number of threads. */
#define RLREF_BATCH_MAX_THREADS 8
/* Sets the number of threads, clamped to [1, 8]; returns the previous
 * one.  Not to be called while a kernel runs. */
int rlref_batch_set_threads (int n);
int rlref_batch_threads (void);

/* Groups of at most this many rewards are held on the stack. */
#define RLREF_BATCH_GMAX 256

/* GRPO-ADV over N rewards laid out as N/G contiguous groups of G, under
 * any convention c of rlref_adv_conventions: adv bit for bit that of
 * rlref_grpo_adv_ws_d (adv may be rewards).
 *
 * For the exact conventions (scale GROUP_STD or NONE) each group of
 * G <= RLREF_BATCH_GMAX finite rewards is done in one pass for max |r|,
 * one for the scaled rewards and their sum, one for the deviations and
 * the sum of their squares, one for the advantages.  A sum is taken as a
 * plain sum only where it is exact, which is checked as it goes (binary,
 * integer and dyadic rewards); real-valued rewards are summed by
 * two-sums in three levels, which certify the correct rounding of the
 * sum, of the mean's residual and of the sum of squares (one pass for
 * the sum and max |r|, one for the squares, one for the advantages),
 * on a processor with AVX2 and FMA four groups at a time, one per
 * vector lane, so that the work of each group between the passes is
 * shared too;
 * where neither holds (a value too near a midpoint for the certificate)
 * that sum is taken again exactly (rlref_num_sum_d, rlref_num_dot_d), on
 * the stack.  All give the reference's correctly rounded values.  For GROUP_STD and G a multiple
 * of 4, a first attempt runs in four lanes (vectorised, and compiled also
 * for AVX2) with checks that make any order of summation exact; large
 * batches split over the threads (rlref_batch_set_threads) when adv does
 * not overlap rewards.  Binary groups (every reward +0.0 or 1.0, under an
 * exact convention, 2 <= G <= RLREF_BATCH_GMAX, more than G + 1 groups):
 * the reference's advantages depend only on the count m of ones and on the
 * reward at each position, so the first group with m ones is done as above
 * and its two values kept (per call, and per thread); every later one is a
 * pass that counts its ones and writes them.  The binary32 conventions run
 * their reference code per group (it allocates nothing); batch-std, groups
 * larger than RLREF_BATCH_GMAX, and groups holding a NaN or infinite
 * reward under a NaN-skipping convention are passed to rlref_grpo_adv_ws_d
 * with the workspace ws (NULL: allocated there).  Statuses as rlref_grpo_adv_d:
 * EINVAL (NULL, N or G 0, G not dividing N), ENAN (a non-finite reward
 * where c refuses one), EDOM (a group of one that c refuses), ERANGE. */
RLREF_WUR int rlref_grpo_adv_batch (double *adv, const double *rewards, size_t N, size_t G,
                                    const rlref_adv_convention *c, rlref_ws *ws);

/* The number of groups of this thread's last successful rlref_grpo_adv_batch
 * that no fast path certified and the exact accumulator took (those
 * counted, not groups passed to rlref_grpo_adv_ws_d); for benchmarks. */
size_t rlref_grpo_adv_batch_fallbacks (void);

/* The number of groups of this thread's last successful
 * rlref_grpo_adv_batch done four at a time, one group per vector lane
 * (real-valued rewards under an exact convention, 2 <= G <=
 * RLREF_BATCH_GMAX, certified as above); for benchmarks and tests. */
size_t rlref_grpo_adv_batch_quads (void);

/* The sums of the KL estimators (kl.h), sums[0..2] = sum k1, sum k2,
 * sum k3. */
enum { RLREF_BATCH_K1, RLREF_BATCH_K2, RLREF_BATCH_K3 };

/* KL-K1, KL-K2, KL-K3 over n >= 1 tokens at l_i = logp[i] - ref_logp[i]
 * (ref_logp NULL: logp holds the log-ratios l_i):
 *   k1[i] = l,  k2[i] = l^2/2,  k3[i] = e^-l - 1 + l  (13.26),
 *   sums[j] = the sum over i of estimator j;
 * any of k1, k2, k3, sums may be NULL.  k1 and k2 are bit for bit those
 * of rlref_kl_estimate_d (conventions "plain").  k3 at x = -l: for
 * |l| < 3/2, x^2/2 + (e/2 + x^3 q(x)) with x^2 = o(x^2) + e exactly (fma)
 * and q a polynomial of degree 15 within 2^-53.9 relative of
 * (e^x - 1 - x - x^2/2)/x^3 there; for |l| >= 3/2, expm1(-l) + l (the
 * reference's form), with SLEEF's expm1 (1 ulp) on the AVX2 path
 * (rlref_kl_batch_path), glibc's otherwise.  Every k3 is within 3 ulp of
 * the exact value (2.2 measured, near |l| = 3/2) and within 8 ulp of the
 * reference's (which is itself up to about 5 ulp from the exact value,
 * where it sums its series term by term for |l| < 1/2 or forms expm1(-l)
 * + l at |l| just above 1/2); the tests check both against MPFR.  The
 * per-token values do not depend on the number of threads.  The sums:
 * blocks of 256 tokens in 8 interleaved partial sums, the blocks of each
 * of 8 fixed chunks added with Neumaier's compensation, the chunks
 * likewise: |sum - S| <= 2u |S| + 40u sum_i |k_i|, S the exact sum of the
 * kernel's own per-token values (for k2 and k3, >= 0: within 42u of S).
 * The checks are folded into the one pass: ENAN for a non-finite input
 * (the outputs are then not to be used), else ERANGE where k2 or k3
 * overflows (the outputs written, inf where they overflow), EINVAL for
 * n = 0 or no logp. */
RLREF_WUR int rlref_kl_batch (double *k1, double *k2, double *k3, double *sums,
                              const double *logp, const double *ref_logp, size_t n);
/* "AVX2, SLEEF expm1", or the scalar path, as chosen on this machine. */
const char *rlref_kl_batch_path (void);

/* DPO-LOSS, DPO-CDPO, DPO-IPO over B pairs, one fused pass per pair: for
 * each pair D (rlref/dpo.h), z = b D, one e = exp(-|z|) and one
 * log1p(e) give softplus(+-z) = max(+-z, 0) + log1p(e) and sigma(+-z)
 * (1/(1 + e) or e/(1 + e)), so sigma(z) - 1 is formed as -sigma(-z).
 * Outputs as rlref_dpo_loss_d (losses, grad_w, grad_l, reward_w, reward_l
 * may be NULL; n_w, n_l read only when c->per_token), each bit for bit
 * that of the reference, the loss too (the same left-to-right sum).  D,
 * the correctly rounded sum of four log-probabilities, is one subtraction
 * where the two log-ratios are exact, else four two-sums whose errors
 * certify its rounding, else (near a midpoint, per-token means) the exact
 * accumulator.  Statuses as rlref_dpo_loss_d. */
RLREF_WUR int rlref_dpo_loss_batch (double *loss, double *losses, double *grad_w,
                                    double *grad_l, double *reward_w, double *reward_l,
                                    const double *logp_w, const double *logp_l,
                                    const double *ref_w, const double *ref_l, const long *n_w,
                                    const long *n_l, size_t B, const rlref_dpo_convention *c,
                                    double beta, double eps);

/* DPO-KTO, DPO-SIMPO, DPO-ORPO over B examples or pairs, the inputs and
 * outputs of rlref_kto_loss_d, rlref_simpo_loss_d, rlref_orpo_loss_d
 * (rlref/dpo.h; any output but loss may be NULL), each output bit for bit
 * that of the reference, the loss too (the same left-to-right sums).  Per
 * element, one e = exp(-|x|) gives every sigma(+-x) and, with one
 * log1p(e), softplus(x): 1 - sigma(x) is formed as sigma(-x), and ORPO's
 * log(1 - e^a) as log1mexp (log(-expm1(a)) or log1p(-e^a)).  One pass
 * computes and checks, after one for the sum it needs first (KTO: z0 over
 * the M mismatched pairs; SimPO, and ORPO's token mean: sum_i n_w,i).
 * Where a check fails, the arrays written are not to be used, loss, z0
 * and nll are left as they were, and the reference, called with the same
 * arguments, gives the status (only that call allocates).  Statuses as
 * the reference's.  loss, z0 and nll are written last; the arrays must
 * not overlap one another. */
RLREF_WUR int rlref_kto_loss_batch (double *loss, double *losses, double *grad, double *reward,
                                    double *z0, const double *logp, const double *ref,
                                    const long *desirable, size_t B, const double *kl_logp,
                                    const double *kl_ref, size_t M, double beta, double w_d,
                                    double w_u);
RLREF_WUR int rlref_simpo_loss_batch (double *loss, double *losses, double *grad_w,
                                      double *grad_l, double *reward_w, double *reward_l,
                                      double *nll, const double *logp_w, const double *logp_l,
                                      const long *n_w, const long *n_l, size_t B, double beta,
                                      double gamma, double alpha);
RLREF_WUR int rlref_orpo_loss_batch (double *loss, double *losses, double *grad_w,
                                     double *grad_l, double *log_odds, double *nll,
                                     double *reward_w, double *reward_l, const double *logp_w,
                                     const double *logp_l, const long *n_w, const long *n_l,
                                     size_t B, enum rlref_nll_mean nll_mean, double lambda);

/* DPO-LOSS (13.21), sigmoid form, beta once, D from whole-sequence
 * log-probabilities: the loss and its gradients of rlref_dpo_loss_batch
 * (grad_w, grad_l may be NULL) on the fast path.  Built with SLEEF
 * (-DRLREF_HAVE_SLEEF, -lsleef) on a processor with AVX2 and FMA, four
 * pairs at a time, z = b D: E = exp(-|z|) by SLEEF (within 1 ulp),
 * log1p(E) by the series 2 atanh(s), s = E/(2 + E), to s^35 (within
 * 3 ulp), and the gradient -(b sigma(-z))/B as f sigma(-z), f = -(b/B)
 * rounded once.  Each pair's loss is within 6 ulp of the exact
 * softplus(-z) of its rounded z (2.6 measured), every gradient within
 * 5 ulp of the exact value (2.7 measured) and 8 ulp of the reference's
 * (3 measured), and the loss, summed in 8 chunks of four lanes, within
 * 8 ulp plus (B/4 + 12) u sum_i l_i / B of the reference's (the tests
 * check these bounds against MPFR and the reference).  The chunks, and
 * the order in which they are added, do not depend on the number of
 * threads: the same bits on any.  Otherwise, and for B < 4, NULL
 * gradients or b/B below DBL_MIN, it is rlref_dpo_loss_batch, bit for
 * bit.  Statuses as rlref_dpo_loss_d. */
RLREF_WUR int rlref_dpo_sigmoid_batch_simd (double *loss, double *grad_w, double *grad_l,
                                            const double *logp_w, const double *logp_l,
                                            const double *ref_w, const double *ref_l, size_t B,
                                            double beta);
/* "SLEEF AVX2", or the scalar path, as chosen on this machine. */
const char *rlref_dpo_sigmoid_batch_simd_path (void);

/* MDP-GAE (13.11) over B rows of W positions under rule c, the inputs and
 * outputs of rlref_mdp_gae_d.  The running advantage is carried as a
 * double-double hi + lo, each step's eight terms (r, gamma V_next as an
 * exact product, -V, (gamma lambda)(hi + lo) with gamma lambda itself an
 * exact product) added with error-free transformations: where the
 * reference rounds the exact sum once, this sum has a relative error of
 * about 8u^2 before its last rounding.  |adv - ref| <= ulp(ref) +
 * 2^-100 W M and |ret - ref| <= ulp(ref) + 2^-100 W M, M the largest
 * |r| + |V| + |score| of the row (the tests check it).  Nothing is
 * allocated.  Statuses as rlref_mdp_gae_d. */
RLREF_WUR int rlref_gae_batch (double *adv, double *ret, const double *rewards,
                               const double *values, const unsigned char *mask,
                               const double *score, size_t B, size_t W, double gamma,
                               double lambda, rlref_gae_rule c);

#endif
