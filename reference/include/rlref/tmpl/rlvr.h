/* Declarations of the verifiable-reward formulas, for one backend (no
 * guard).  Every function returns an rlref_status, which the caller must
 * check (RLREF_WUR).  An output may be the very storage of an input of the
 * same length (reference/README.md, Aliasing). */

/* RLVR-REWARD (000 13.35): reward_i = c->right when answers_i matches the
 * reference under c, else c->wrong; a NaN answer (no number extracted)
 * matches nothing.  EINVAL for n = 0, ENAN for a non-finite reference. */
RLREF_WUR int RLREF_FN (verify_reward) (RLREF_T reward, RLREF_CT answers, size_t n,
                                        RLREF_CT reference, const rlref_verifier *c);

/* RLVR-REWARD-EX: the rewards of n sampled answers to one prompt
 * (verify_reward), the number that match, the group mean reward and the
 * group-relative advantages of the rewards under convention a (13.23,
 * grpo_adv).  correct and mean are scalars; reward and adv have n
 * elements. */
RLREF_WUR int RLREF_FN (verify_group) (RLREF_T reward, RLREF_T correct, RLREF_T mean,
                                       RLREF_T adv, RLREF_CT answers, size_t n,
                                       RLREF_CT reference, const rlref_verifier *c,
                                       const rlref_adv_convention *a);

/* RLVR-REWARD, a process reward model's step scores s_1..s_n (probabilities
 * in [0, 1] as a rule; any finite numbers are taken) as one solution
 * score: min, product, mean or the last.  ERANGE (+-inf) when the product
 * or the mean lies beyond the range. */
RLREF_WUR int RLREF_FN (prm_aggregate) (RLREF_T score, RLREF_CT steps, size_t n,
                                        enum rlref_prm_aggregation how);
/* Its sensitivity sum_k |d score/d s_k| |s_k| from its own derivative
 * (src/rlvr/rlvr_sens.c), score the value it gave; EINVAL for an unknown
 * aggregation. */
RLREF_WUR int RLREF_FN (prm_aggregate_sens) (RLREF_T s, RLREF_CT steps, size_t n,
                                             RLREF_CT score, enum rlref_prm_aggregation how);

/* RLVR-PRM-MC: the exact expectation and variance of Math-Shepherd's label
 * of each step of a solution, on a tree of continuations.  Node 0 is the
 * root (the prompt; parent[0] = -1), every other node i a step with
 * parent[i] < i, chosen among its siblings with probability weight[i] /
 * (sum of the siblings' weights); a leaf is a final answer, correct[i] = 1
 * when it is the right one (0 or 1; read at leaves only).  The solution's
 * steps path[0..L-1] run from a child of the root, each a child of the one
 * before.  With p = P(a correct answer | the prefix ending at the step) and
 * N completions per step: soft label mean p, variance p (1 - p)/N; hard
 * label mean 1 - (1 - p)^N = E, variance E (1 - E).  var may be NULL. */
RLREF_WUR int RLREF_FN (prm_mc_expect) (RLREF_T label, RLREF_T var, const long *parent,
                                        RLREF_CT weight, const long *correct, size_t n,
                                        const long *path, size_t L, long N,
                                        enum rlref_prm_label kind);

/* RLVR-PRM-MC: the labels themselves from hits[k] of N completions from
 * step k reaching the correct answer: hits/N (soft) or [hits > 0] (hard). */
RLREF_WUR int RLREF_FN (prm_mc_label) (RLREF_T label, const long *hits, size_t L, long N,
                                       enum rlref_prm_label kind);
