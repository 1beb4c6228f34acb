/* Declarations of the group-advantage formulas, for one backend (no guard). */

/* GRPO-ADV (000 13.23, 001, 003): advantages of N rewards laid out as
 * N/G contiguous groups of G, under convention c (rlref/grpo.h).  adv may
 * be the same storage as rewards.  Binary64 gives ERANGE only where an
 * advantage is not representable (r - mean beyond DBL_MAX without std
 * scaling; a binary32 convention's overflow). */
RLREF_WUR int RLREF_FN (grpo_adv) (RLREF_T adv, RLREF_CT rewards, size_t N, size_t G,
                                   const rlref_adv_convention *c);

/* grpo_adv with its scratch taken from the workspace ws (rlref/workspace.h;
 * NULL: allocated per call).  In MPFR the workspace's precision must be the
 * working precision (EINVAL otherwise).  A kernel calling it many times on
 * batches of one shape allocates nothing in binary64 after the first call. */
RLREF_WUR int RLREF_FN (grpo_adv_ws) (RLREF_T adv, RLREF_CT rewards, size_t N, size_t G,
                                      const rlref_adv_convention *c, rlref_ws *ws);

/* The mean and standard deviation (ddof of c) of one group of finite
 * rewards, in exact arithmetic; mean and std may be elements of rewards.
 * Binary64 gives ERANGE where the std exceeds DBL_MAX. */
RLREF_WUR int RLREF_FN (grpo_group_stats) (RLREF_T mean, RLREF_T std, RLREF_CT rewards,
                                           size_t G, const rlref_adv_convention *c);
