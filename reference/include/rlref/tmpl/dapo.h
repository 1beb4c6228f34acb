/* Declarations of the DAPO formulas, for one backend (no guard).  Real
 * inputs must be finite (ENAN otherwise); an empty array is EINVAL; a
 * negative length or count is EDOM. */

/* DAPO-OBJ (000 13.29, beta = 0): a group of G responses, response i of
 * lengths[i] >= 1 tokens (sum n), rewards r_i; A_i the group advantage of
 * r_i under convention ac (13.23, rlref/grpo.h), the same for every token
 * of response i; per token the clipped term s_t of rlref_ppo_clip under cc
 * with eps_low, eps_high (and dual_c with a dual clip), and
 *   objective = (1/n) sum_t s_t  (every token of the group counts once),
 * adv[i] = A_i, grad[t] = d objective / d logp_t (0 where a clip, the
 * dual bound or the log-ratio clamp binds), clipfrac the fraction of
 * tokens with clip(rho) A < rho A.  sum lengths != n is EINVAL, a length
 * < 1 EDOM; statuses of rlref_grpo_adv and rlref_ppo_clip.  adv, grad,
 * clipfrac may be NULL. */
RLREF_WUR int RLREF_FN (dapo_obj) (RLREF_T objective, RLREF_T adv, RLREF_T grad,
                                   RLREF_T clipfrac, RLREF_CT logp, RLREF_CT old_logp, size_t n,
                                   const long *lengths, RLREF_CT rewards, size_t G,
                                   const rlref_adv_convention *ac,
                                   const rlref_ppo_clip_convention *cc, RLREF_CT eps_low,
                                   RLREF_CT eps_high, RLREF_CT dual_c);

/* DAPO-TOKLOSS (000 13.32, 13.33): the weight of each token of response i
 * in the group's loss and the share of the whole that its tokens carry:
 * sample-level token_weight[i] = 1/(G |y_i|), response_weight[i] = 1/G;
 * token-level 1/sum_j |y_j| and |y_i|/sum_j |y_j|.  lengths[i] >= 1 (EDOM
 * otherwise).  response_weight may be NULL. */
RLREF_WUR int RLREF_FN (dapo_tokloss) (RLREF_T token_weight, RLREF_T response_weight,
                                       const long *lengths, size_t G, enum rlref_dapo_norm norm);

/* DAPO-TOKLOSS with lengths[i] >= 0 (EDOM for a negative one, or when no
 * response has a token): an empty response weighs 0 (token_weight[i] =
 * response_weight[i] = 0) and counts in the sample-level G (EMPTY_COUNT) or
 * not (EMPTY_SKIP: G the responses with a token); EMPTY_REFUSE is
 * dapo_tokloss. */
RLREF_WUR int RLREF_FN (dapo_tokloss_conv) (RLREF_T token_weight, RLREF_T response_weight,
                                            const long *lengths, size_t G,
                                            enum rlref_dapo_norm norm,
                                            enum rlref_dapo_empty empty);

/* DAPO-OVERLONG (000 13.34): penalty[i] of a response of lengths[i] tokens
 * under the reading (rlref/dapo.h), with e = L - (L_max - L_cache):
 *   paper     0 for e <= 0, -e/L_cache up to L_max, -1 beyond;
 *   verl      min(-e f/L_cache, 0), in binary32 (f32(f32(-e/L_cache) f32(f)));
 *   openrlhf  0 for min(e, L_cache) <= 0, else -min(e, L_cache) f/L_cache;
 * filter[i] = 0 for a response of L_max tokens or more (cut at the limit:
 * the overlong filter masks its loss; 000 section 6.4, no library's), else
 * 1.  0 <= L_cache <= L_max, L_max >= 1, lengths >= 0, factor f >= 0 (read
 * by verl and openrlhf); L_cache = 0 refused by verl (EDOM: it asserts
 * len > 0), no penalty for openrlhf, a step to -1 past L_max for the paper.
 * filter may be NULL. */
RLREF_WUR int RLREF_FN (dapo_overlong) (RLREF_T penalty, RLREF_T filter, const long *lengths,
                                        size_t n, long L_max, long L_cache,
                                        enum rlref_dapo_overlong reading, RLREF_CT factor);

/* DAPO-DYNSAMPLE keep rule (000 13.30): n rewards in groups of G
 * consecutive ones (n a multiple of G, EINVAL otherwise; G >= 1, EDOM);
 * keep[i] = 1 when the group of response i is kept under rule, else 0;
 * mean[i], std[i] its mean and population std (ddof 0); *kept the groups
 * kept.  The rules are decided exactly.  mean, std may be NULL. */
RLREF_WUR int RLREF_FN (dapo_keep) (RLREF_T keep, RLREF_T mean, RLREF_T std, size_t *kept,
                                    RLREF_CT rewards, size_t n, long G,
                                    enum rlref_dapo_keep rule);

/* DAPO-DYNSAMPLE refill accounting: groups of G binary rewards of success
 * rate p are kept with probability keep_prob q = 1 - p^G - (1 - p)^G
 * (a group of one always, q = 1, with g1_always: verl); B are wanted.
 *   prompt: one group at a time until B are kept (a negative binomial):
 *     expected_groups = B/q;
 *   batch: rounds of M groups until B are kept: expected_rounds = E[R] =
 *     sum_{r >= 0} P(Bin(rM, q) <= B - 1), expected_groups = M E[R],
 *     summed until a geometric bound of the rest is below the precision.
 * 0 <= p <= 1, G >= 1, 1 <= B <= RLREF_DAPO_MAX_B, 1 <= M <=
 * RLREF_DAPO_MAX_M (M read by batch only); q = 0 (never kept) is EDOM;
 * EMAXITER when the sum needs more than RLREF_DAPO_MAX_WORK terms.
 * expected_rounds may be NULL (and is not written by prompt). */
RLREF_WUR int RLREF_FN (dapo_refill) (RLREF_T keep_prob, RLREF_T expected_rounds,
                                      RLREF_T expected_groups, RLREF_CT p, long G, long B,
                                      long M, enum rlref_dapo_refill kind, int g1_always);
