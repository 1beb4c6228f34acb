/* Declarations of LM-PARAM, LM-SFT and LM-TRAIN, for one backend (no
 * guard).  logits has n_rows x V elements, laid out as rlref/lm.h says. */

/* LM-PARAM: the policy table of a model, pi(a | s) = softmax(logits(s))_a
 * and log pi(a | s) = logits(s)_a - max - log1p(sum of the others'
 * e^{logit - max}), every row s (n_rows x V each): the factors of the chain
 * rule (13.1).  ENAN for a non-finite logit. */
int RLREF_FN (lm_policy) (RLREF_T pi, RLREF_T log_pi, const rlref_lm *lm, RLREF_CT logits)
  RLREF_WUR;

/* LM-SFT (000 section 1): supervised fine-tuning as maximum likelihood.
 * The data are n_seq sequences of the model written one after the other in
 * data[0..n_data-1] (each ends at its first EOS or after T tokens), with
 * weights w_i >= 0, not all 0; p_data(y) = (sum of the weights of y's
 * entries) / (sum of all weights).  q is the policy's outcome distribution
 * (pi_theta, or pi_theta / P(EOS within T) when cut sequences are
 * conditioned away; a cut data sequence is then EDOM).  Gives
 *   ce      = -sum_y p_data(y) log q(y)            (the SFT loss),
 *   entropy = H(p_data) = -sum_y p_data log p_data,
 *   kl      = KL(p_data || q) = sum_y p_data log(p_data / q),
 * so that ce = entropy + kl: minimising the loss minimises the forward KL;
 * and, when grad is not NULL, d ce / d logits (n_rows x V). */
int RLREF_FN (lm_sft) (RLREF_T ce, RLREF_T entropy, RLREF_T kl, RLREF_T grad,
                       const rlref_lm *lm, RLREF_CT logits, const int *data, size_t n_data,
                       RLREF_CT weights, size_t n_seq) RLREF_WUR;

/* LM-TRAIN: the run of lm_descend (exact gradients) from the reference
 * theta_0 = ref_logits on objective RLREF_LM_OBJ_REWARD, _RLHF (ascended),
 * _DPO or _IPO (descended), reported at the n_at steps at[] (increasing,
 * from 0, at most RLREF_LM_TRAIN_MAX_STEPS): value[i] the objective at
 * theta_{at[i]}, kl_star[i] = KL(pi_theta || pi*), pi* = pi_ref e^{r/beta}/Z
 * (13.17) as the tabular logits of lm_pistar_logits.  A tabular model that
 * keeps cut sequences, with an additive reward.  The same calls as `rlref
 * train` makes; in binary64 the one exact run rounded once, where `rlref
 * train` holds theta in binary64 between its lines (they agree to about
 * 1e-13 on a contracting run). */
int RLREF_FN (lm_train_report) (RLREF_T value, RLREF_T kl_star, const rlref_lm *lm,
                                RLREF_CT ref_logits, RLREF_CT reward, RLREF_CT beta,
                                int objective, RLREF_CT lr, const int *at, size_t n_at)
  RLREF_WUR;

/* LM-TRAIN, sampled: the run of lm_sampled_descend with batch n from
 * theta_0 = ref_logits, GSL's mt19937 seeded with seed (gsl_rng_set: 0 is
 * GSL's 4357), reported at the steps at[] as lm_train_report does (the
 * stream carries over between them: one run): value[i] the exact
 * objective at theta_{at[i]}, kl_star[i] = KL(pi_theta || pi*).  The
 * objective is E[r], the RLHF objective or DPO; 2 <= n <= 10^4. */
int RLREF_FN (lm_sampled_report) (RLREF_T value, RLREF_T kl_star, const rlref_lm *lm,
                                  RLREF_CT ref_logits, RLREF_CT reward, RLREF_CT beta,
                                  int objective, RLREF_CT lr, int n, unsigned long seed,
                                  const int *at, size_t n_at) RLREF_WUR;
