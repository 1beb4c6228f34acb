/* Declarations of the tiny-LM formulas, for one backend (no guard).
 * m has RLREF_LM_NMOMENTS elements, in the order of rlref/lm.h; logits has
 * n_rows x V elements and reward V + 2 (or is NULL without an additive
 * reward), as rlref/lm.h describes. */

/* LM-ENUM, LM-EXACT, KLOPT-Z: every sequence of the model enumerated depth
 * first in O(T) memory (one log-softmax per prefix, nothing allocated per
 * sequence); the moments of pi_ref and of pi* = pi_ref e^{r/beta}/Z
 * (13.15, 13.17); want (a mask, RLREF_LM_ALL) selects the moments to form,
 * the others come out NaN (the count and log Z are always formed, the mass
 * when wanted or needed).  For a bigram model whose cut sequences count,
 * the V outcomes below each prefix of length T - 1 are summed from
 * aggregates of its state and last token, formed once (every prefix of
 * length T - 2 or less is visited).  visit, when not NULL, is called for
 * every sequence.
 * EINVAL past RLREF_LM_MAX_SEQUENCES sequences (the DP form has no limit). */
int RLREF_FN (lm_moments) (RLREF_T m, const rlref_lm *lm, RLREF_CT logits, RLREF_CT reward,
                           RLREF_CT beta, unsigned want, RLREF_VISIT *visit, void *ctx)
  RLREF_WUR;

/* LM-DP: the same moments of a bigram model with an additive reward (or
 * none) by dynamic programming over (steps left, state), O(T V^2). */
int RLREF_FN (lm_moments_dp) (RLREF_T m, const rlref_lm *lm, RLREF_CT logits, RLREF_CT reward,
                              RLREF_CT beta) RLREF_WUR;

/* LM-CHAIN (13.1): log pi(y) = sum_t log pi(y_t | s_t) of one sequence y
 * of length L (ended by EOS, or of length T), and each term in tok[L]. */
int RLREF_FN (lm_logprob) (RLREF_T logp, RLREF_T tok, const rlref_lm *lm, RLREF_CT logits,
                           const int *y, int L) RLREF_WUR;

/* LM-EXACT, DPO-EQUIV: the value of an objective (RLREF_LM_OBJ_*) of the
 * policy with logits theta against the reference with ref_logits, and, when
 * grad is not NULL, its exact gradient with respect to theta (n_rows x V).
 * The pairwise DPO and IPO losses sum over ordered pairs of distinct
 * sequences drawn from q_ref x q_ref, labelled y1 > y2 with probability
 * sigma(r1 - r2).  At most 1e6 sequences (4096 for DPO and IPO). */
int RLREF_FN (lm_objective) (RLREF_T value, RLREF_T grad, const rlref_lm *lm, RLREF_CT logits,
                             RLREF_CT ref_logits, RLREF_CT reward, RLREF_CT beta,
                             int objective) RLREF_WUR;

/* KLOPT-PISTAR on sequences: the logits (n_rows x V) of a tabular model
 * whose distribution is pi* = pi_ref e^{r/beta}/Z (13.17), pi_ref with
 * ref_logits, cut sequences kept, additive reward:
 * theta*(s, a) = log pi_ref(a | s) + r_a/beta + log Z(s a). */
int RLREF_FN (lm_pistar_logits) (RLREF_T theta, const rlref_lm *lm, RLREF_CT ref_logits,
                                 RLREF_CT reward, RLREF_CT beta) RLREF_WUR;

/* LM-TRAIN: steps of exact gradient descent (ascent for E[r] and the RLHF
 * objective) on theta, in place, with learning rate lr; history[k] is the
 * objective before step k (steps + 1 values). */
int RLREF_FN (lm_descend) (RLREF_T theta, RLREF_T history, const rlref_lm *lm,
                           RLREF_CT ref_logits, RLREF_CT reward, RLREF_CT beta, int objective,
                           RLREF_CT lr, int steps) RLREF_WUR;

/* DPO-DISPLACE: steps of exact gradient descent on one preference pair's
 * DPO (RLREF_LM_OBJ_DPO) or IPO loss, theta in place; logp_w, logp_l
 * receive log pi_theta(y_w), log pi_theta(y_l) before each step (steps + 1
 * values).  Sequences as in lm_logprob. */
int RLREF_FN (lm_pair_descend) (RLREF_T theta, RLREF_T logp_w, RLREF_T logp_l,
                                const rlref_lm *lm, RLREF_CT ref_logits, RLREF_CT beta,
                                int objective, const int *yw, int Lw, const int *yl, int Ll,
                                RLREF_CT lr, int steps) RLREF_WUR;

/* DPO-DISPLACE (000 section 4.3): lm_pair_descend from theta_0 =
 * ref_logits for steps steps; logp_w[0], logp_w[1] = log pi(y_w) before and
 * after, logp_l likewise, and margin = (log pi_T(y_w) - log pi_0(y_w)) -
 * (log pi_T(y_l) - log pi_0(y_l)), formed from the unrounded run. */
int RLREF_FN (lm_displace) (RLREF_T logp_w, RLREF_T logp_l, RLREF_T margin, const rlref_lm *lm,
                            RLREF_CT ref_logits, RLREF_CT beta, int objective, const int *yw,
                            int Lw, const int *yl, int Ll, RLREF_CT lr, int steps) RLREF_WUR;

/* LM-TRAIN, sampled: steps of a seeded stochastic gradient method, theta
 * in place; history[k] is the exact objective before step k (history may
 * be NULL: no objective is formed).  E[r] and the RLHF objective: n
 * sequences from pi_theta each step, REINFORCE with the batch mean as
 * baseline (ascent); DPO: n pairs from pi_ref labelled by Bradley-Terry on
 * r (descent).  The same rng state gives the same run to the last bit;
 * every draw is compared with a quantity rounded once, so binary64 and MPFR
 * draw the same batches, and a draw within 2^-40 of it is EPREC. */
int RLREF_FN (lm_sampled_descend) (RLREF_T theta, RLREF_T history, const rlref_lm *lm,
                                   RLREF_CT ref_logits, RLREF_CT reward, RLREF_CT beta,
                                   int objective, RLREF_CT lr, int steps, int n,
                                   gsl_rng *rng) RLREF_WUR;
