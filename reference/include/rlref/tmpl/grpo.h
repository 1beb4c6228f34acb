/* Declarations of the group-advantage formulas, for one backend (no guard). */

/* GRPO-ADV (000 13.23, 001, 003): advantages of N rewards laid out as
 * N/G contiguous groups of G, under convention c (rlref/grpo.h). */
int RLREF_FN (grpo_adv) (RLREF_T adv, RLREF_CT rewards, size_t N, size_t G,
                         const rlref_adv_convention *c);

/* The mean and standard deviation (ddof of c) of one group, as c uses them. */
int RLREF_FN (grpo_group_stats) (RLREF_T mean, RLREF_T std, RLREF_CT rewards,
                                 size_t G, const rlref_adv_convention *c);
