/* Declarations of the GRPO objective family, for one backend (no guard).
 * The layout of lens, mask, and the statuses: rlref/grpoobj.h. */

/* GRPO-OBJ (000 13.24-13.26; 003): with s_t = min(rho_t A_i, clip(rho_t,
 * 1 - eps_low, 1 + eps_high) A_i) (13.12, A_i the advantage of the sequence
 * of token t) and k3_t = e^-k - 1 + k, k = logp_t - ref_logp_t (13.26):
 *   KL_OUTSIDE  J = (1/G) sum_i (1/n_i) sum_t s_t - beta K,  K = sum k3 / N;
 *   KL_INSIDE   J = (1/G) sum_i (1/n_i) sum_t (s_t - beta k3_t),
 *               K = (1/G) sum_i (1/n_i) sum_t k3_t;
 *   CISPO_TRL   J = (1/N) sum_t (c_t A_i logp_t - beta k3_t), c_t = min(rho_t,
 *               eps_high) held constant (detached); eps_low unread;
 *   CISPO_VERL  the same with c_t = clip(e^clamp(l, -20, 20), 1 - eps_low,
 *               1 + eps_high);
 * N = sum_i n_i; loss = -J, kl = K, grad[t] = d loss / d logp_t.  eps_low in
 * [0, 1), eps_high >= 0, beta >= 0.  kl and grad may be NULL. */
RLREF_WUR int RLREF_FN (grpo_obj) (RLREF_T loss, RLREF_T kl, RLREF_T grad, RLREF_CT logp,
                                   RLREF_CT old_logp, RLREF_CT ref_logp, RLREF_CT adv,
                                   const long *lens, size_t G, const long *mask, size_t n,
                                   enum rlref_grpo_obj_kind kind, RLREF_CT eps_low,
                                   RLREF_CT eps_high, RLREF_CT beta);

/* GRPO-OBJ under a library's convention c (rlref/grpoobj.h): the kind of
 * grpo_obj, with the policy term aggregated by c->agg (with KL_INSIDE, s_t -
 * beta k_t; CISPO, its per-token term), kl = c->kl_agg of the estimate k_t
 * (k3, or min(k3, 10) with c->kl), the clip with c's log-ratio clamp and
 * dual clip; grad the derivative of the loss (K3_CAP_K2_GRAD: the KL part's
 * gradient that of k^2/2). */
RLREF_WUR int RLREF_FN (grpo_obj_conv) (RLREF_T loss, RLREF_T kl, RLREF_T grad, RLREF_CT logp,
                                        RLREF_CT old_logp, RLREF_CT ref_logp, RLREF_CT adv,
                                        const long *lens, size_t G, const long *mask,
                                        size_t n, const rlref_grpo_obj_convention *c,
                                        RLREF_CT eps_low, RLREF_CT eps_high, RLREF_CT beta);

/* GRPO-AGG (CONVENTIONS.md "Loss aggregation"; 000 13.32-13.33):
 * weights[t] = d value / d L_t of the mode (0 at masked tokens) and value =
 * sum_t weights[t] L[t] (one exact dot product, rounded once).  L_const > 0
 * is read by the two sum-norm modes, micro >= 1 (dividing G) by
 * RLREF_AGG_MICRO_BATCH: micro-batch k holds sequences k micro to (k + 1)
 * micro - 1.  value may be NULL. */
RLREF_WUR int RLREF_FN (grpo_agg) (RLREF_T value, RLREF_T weights, RLREF_CT L,
                                   const long *lens, size_t G, const long *mask, size_t n,
                                   enum rlref_grpo_agg_mode mode, RLREF_CT L_const, long micro);

/* GRPO-AGG under convention c (rlref/grpoobj.h): the mode, micro-batches
 * (micro >= 1 dividing G, read unless c->micro is RLREF_AGG_WHOLE; LOCAL:
 * each micro-batch k's weights by its own counts, times 1/K; GLOBAL: the
 * whole batch's counts, the mode's weights), and the B of the seq-mean
 * modes (c->skip_empty: the sequences with a token in the mask).  Here a
 * sequence may be empty (lens[i] = 0, or no token in the mask): its tokens
 * weigh 0 and it counts in B unless c->skip_empty; lengths >= 0 adding up to
 * n, a 0/1 mask, and at least one token in the mask (EDOM otherwise).  A
 * micro-batch without a token (LOCAL) weighs nothing and counts in K. */
RLREF_WUR int RLREF_FN (grpo_agg_conv) (RLREF_T value, RLREF_T weights, RLREF_CT L,
                                        const long *lens, size_t G, const long *mask,
                                        size_t n, const rlref_grpo_agg_convention *c,
                                        RLREF_CT L_const, long micro);

/* GRPO-DR under a library's convention c (rlref/grpoobj.h): A_i of c->adv
 * (a group of one as c->single; clamped to +-c->adv_clip when > 0), s_t the
 * clipped term with c's clamp and dual clip, J = sum_t w_t s_t with the
 * weight of c->agg (1/G, 1/N, 1/(G L_const), 1/(G T) with T = max lens).
 * L_const > 0 is read by SEQ_MEAN_TOKEN_SUM_NORM only. */
RLREF_WUR int RLREF_FN (grpo_dr_conv) (RLREF_T loss, RLREF_T adv, RLREF_T grad, RLREF_CT logp,
                                       RLREF_CT old_logp, RLREF_CT rewards, const long *lens,
                                       size_t G, const long *mask, size_t n,
                                       const rlref_grpo_dr_convention *c, RLREF_CT eps_low,
                                       RLREF_CT eps_high, RLREF_CT L_const);

/* GRPO-DR: adv[i] = r_i - mean (NO_NORM, CONST_LENGTH) or GRPO-ADV's
 * seed-003 advantage (ddof 1, eps 0, a zero-variance group 0), then with
 * s_t as for grpo_obj:
 *   NO_NORM            J = (1/G) sum_i sum_t s_t,
 *   GROUP_MEAN_LENGTH  J = (1/G) sum_i (1/Lbar) sum_t s_t = sum s / N,
 *   CONST_LENGTH       J = sum s / (G L_const);
 * loss = -J, grad[t] = d loss / d logp_t.  L_const > 0 is read by
 * CONST_LENGTH only.  adv and grad may be NULL. */
RLREF_WUR int RLREF_FN (grpo_dr) (RLREF_T loss, RLREF_T adv, RLREF_T grad, RLREF_CT logp,
                                  RLREF_CT old_logp, RLREF_CT rewards, const long *lens,
                                  size_t G, const long *mask, size_t n,
                                  enum rlref_grpo_dr_reading reading, RLREF_CT eps_low,
                                  RLREF_CT eps_high, RLREF_CT L_const);

/* GRPO-GSPO: m_i = (1/n_i) sum_t l_t, s_i = e^{m_i} = (pi(y_i)/pi_old(y_i))^{1/n_i}
 * (with cap > 0, e^{min(m_i, cap)}: verl's cap at 10);
 *   loss = -(1/G) sum_i min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i),
 *   grad[t] = -(1/G) A_i s_i / n_i where s_i A_i is the min and the cap does not
 * bind strictly, else 0.  s and grad may be NULL.  Binary64: ERANGE where s_i
 * overflows. */
RLREF_WUR int RLREF_FN (grpo_gspo) (RLREF_T loss, RLREF_T s, RLREF_T grad, RLREF_CT logp,
                                    RLREF_CT old_logp, RLREF_CT adv, const long *lens,
                                    size_t G, const long *mask, size_t n, double cap,
                                    RLREF_CT eps_low, RLREF_CT eps_high);

/* GRPO-GSPO with a sequence allowed to be empty (lens[i] = 0 or no token in
 * the mask) under empty: refused (EDOM, as grpo_gspo), counted in G with s_i
 * = 1 and a zero term, or left out of the mean (G the sequences with a
 * token); lengths >= 0 otherwise as grpo_gspo, at least one token. */
RLREF_WUR int RLREF_FN (grpo_gspo_conv) (RLREF_T loss, RLREF_T s, RLREF_T grad, RLREF_CT logp,
                                         RLREF_CT old_logp, RLREF_CT adv, const long *lens,
                                         size_t G, const long *mask, size_t n, double cap,
                                         enum rlref_grpo_empty empty, RLREF_CT eps_low,
                                         RLREF_CT eps_high);

/* GRPO-GMPO (003): per token lc = clamp(l, -clip_low, clip_high) and the
 * sign-aware min in log space lm = sgn(A) min(sgn(A) l, sgn(A) lc);
 *   ratio[i] = exp((1/n_i) sum_t lm_t)  (the geometric mean of the clipped
 *   token ratios),  loss = -(1/G) sum_i A_i ratio[i],
 *   grad[t] = -(1/G) A_i ratio[i] / n_i where lm_t = l_t (the clip does not
 * bind), else 0.  clip_low, clip_high >= 0.  ratio and grad may be NULL. */
RLREF_WUR int RLREF_FN (grpo_gmpo) (RLREF_T loss, RLREF_T ratio, RLREF_T grad, RLREF_CT logp,
                                    RLREF_CT old_logp, RLREF_CT adv, const long *lens,
                                    size_t G, const long *mask, size_t n, RLREF_CT clip_low,
                                    RLREF_CT clip_high);

/* GRPO-GMPO, 003's example: arith = (1/n) sum x, geo = (prod x)^{1/n} of n >= 1
 * terms x >= 0 (EDOM for a negative one; geo = 0 when a term is 0).  geo may
 * be NULL. */
RLREF_WUR int RLREF_FN (grpo_means) (RLREF_T arith, RLREF_T geo, RLREF_CT x, size_t n);

/* GRPO-GFPO (003): keep k of N responses (1 <= k <= N, EDOM otherwise) with
 * rewards r and lengths lens >= 1 by the filter; keep[i] = 1 or 0, key[i] =
 * lens[i] (SHORTEST) or r_i/lens[i] (TOKEN_EFFICIENCY; orders compared
 * exactly, r_j lens_i against r_i lens_j), mean_kept = the mean reward of
 * the kept responses.  key and mean_kept may be NULL. */
RLREF_WUR int RLREF_FN (grpo_gfpo) (RLREF_T keep, RLREF_T key, RLREF_T mean_kept,
                                    RLREF_CT rewards, const long *lens, size_t N, long k,
                                    enum rlref_gfpo_filter filter);
