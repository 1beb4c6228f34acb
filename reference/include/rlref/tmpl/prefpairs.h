/* Declarations of the pairwise decomposition of a ranking, for one backend
 * (no guard).  Seed 000 section 10.1: a ranking of K responses can be split
 * into C(K,2) independent Bradley-Terry pairs instead of the Plackett-Luce
 * product.  Rankings are permutations of 0..K-1, best first; several
 * rankings are stored one after another (rankings[m K + k]).  Every function
 * returns an rlref_status, which the caller must check (RLREF_WUR).  An
 * output may be the very storage of an input of the same length
 * (reference/README.md, Aliasing).  An output whose exact value lies beyond
 * the range is +-inf and the status RLREF_ERANGE. */

/* PREF-PAIRS: the pairwise loss of one ranking pi,
 *   loss = (1/P) sum_{k<l} -log sigma(s_{pi_k} - s_{pi_l})   (13.6, 13.7),
 * P = 1 (mean = 0: the pairs summed) or P = C(K,2) (mean = 1: InstructGPT's
 * normalisation), loglik = sum_{k<l} log sigma(s_{pi_k} - s_{pi_l}) (either
 * way) and grad = d loss / d s (may be NULL).  K >= 2. */
RLREF_WUR int RLREF_FN (pairs_loss) (RLREF_T loss, RLREF_T loglik, RLREF_T grad,
                                     RLREF_CT scores, const long *ranking, size_t K, int mean);

/* The K x K pair counts of M counted rankings: wins[i K + j] = the sum of
 * the counts of the rankings that place i above j, each entry rounded once;
 * counts finite and >= 0. */
RLREF_WUR int RLREF_FN (pairs_wins) (RLREF_T wins, const long *rankings, RLREF_CT counts,
                                     size_t M, size_t K);

/* PREF-PAIRS maximum likelihood: the scores (mean zero) maximising the
 * pairwise log-likelihood sum_m counts_m sum_{k<l} log sigma(s_{pi_m,k} -
 * s_{pi_m,l}), which is the Bradley-Terry log-likelihood of the pair counts
 * (pairs_wins): the fit of bt_mle on them.  loglik (may be NULL) is the
 * pairwise log-likelihood at the maximum.  EDOM when some set of items is
 * never ranked below the rest (no finite maximum). */
RLREF_WUR int RLREF_FN (pairs_mle) (RLREF_T scores, RLREF_T loglik, const long *rankings,
                                    RLREF_CT counts, size_t M, size_t K);

/* PREF-PAIRS, the two fits of the same counted rankings: the
 * Plackett-Luce maximum-likelihood scores (pl_mle) and log-likelihood,
 * the pairwise ones (pairs_mle), and the Plackett-Luce log-likelihood at
 * the pairwise scores (never above loglik_pl). */
RLREF_WUR int RLREF_FN (pairs_compare) (RLREF_T scores_pl, RLREF_T scores_pairs,
                                        RLREF_T loglik_pl, RLREF_T loglik_pl_at_pairs,
                                        RLREF_T loglik_pairs, const long *rankings,
                                        RLREF_CT counts, size_t M, size_t K);
