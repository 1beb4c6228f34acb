/* Declarations of the cost arithmetic, for one backend (no guard).  Every
 * function returns an rlref_status, which the caller must check
 * (RLREF_WUR).  Integers and their ratios are exact in MPFR (a binary64
 * result is the nearest double, or within an ulp of it where two roundings
 * are needed).  A scalar output may be the very storage of a scalar
 * input. */

/* COST-MEM: bytes_per_param = trained c->trained + frozen c->frozen,
 * bytes = params bytes_per_param, gb = bytes/10^9, gib = bytes/2^30.  Any
 * output may be NULL.  EDOM for a negative count or params < 0, ENAN for a
 * non-finite params, ERANGE (+inf) beyond the range. */
RLREF_WUR int RLREF_FN (cost_mem) (RLREF_T bytes_per_param, RLREF_T bytes, RLREF_T gb,
                                   RLREF_T gib, long trained, long frozen, RLREF_CT params,
                                   const rlref_cost_convention *c);

/* COST-MODELS: out[RLREF_COST_NMODELS] (the enum of rlref/cost.h) for
 * models of params parameters each under convention c.  EDOM for
 * params < 0, ENAN for a non-finite params. */
RLREF_WUR int RLREF_FN (cost_models) (RLREF_T out, RLREF_CT params,
                                      const rlref_cost_convention *c);

/* COST-ROLLOUT: per_prompt = G mean_len, tokens = prompts G mean_len, the
 * tokens generated for one update (seed 004).  Either output may be NULL.
 * EDOM for prompts < 1, G < 1 or mean_len < 0, ENAN for a non-finite
 * mean_len, ERANGE (+inf) beyond the range. */
RLREF_WUR int RLREF_FN (cost_rollout) (RLREF_T per_prompt, RLREF_T tokens, long prompts,
                                       long G, RLREF_CT mean_len);
