/* rlref/mdp.h -- Markov decision processes (MDP-* rows): returns and the
 * effective horizon, the Q-learning update, epsilon-greedy, GAE under the
 * libraries' conventions, Bellman expectation and optimality by linear
 * solves, value and policy iteration, tabular Q-learning, the
 * policy-gradient theorem against the REINFORCE estimators, and the soft
 * Bellman recursion of the tiny LM's token MDP; binary64 and MPFR.
 *
 * A finite MDP (S states, A actions) is given by its transition
 * probabilities P[(s A + a) S + s'] = P(s' | s, a) and expected rewards
 * r[s A + a] = r(s, a) (a reward R(s, a, s') enters as
 * r(s, a) = sum_s' P(s' | s, a) R(s, a, s'), rlref_mdp_expected_reward,
 * as `rlref mdp` forms it from a model file),
 * both vectors of the backend.  A state may be terminal: its value is 0,
 * and its rows of P and r must be 0 (an episode that reaches it ends).
 * The rows of P of the other states, and of a policy pi[s A + a], are
 * probability vectors: entries >= 0 summing to 1 within n 2^-52 for a row
 * of n entries (decimal probabilities rounded to binary64 pass); EDOM
 * otherwise.  The discount gamma of an infinite horizon lies in [0, 1). */
#ifndef RLREF_MDP_H
#define RLREF_MDP_H

#include <stddef.h>
#include <mpfr.h>
#include <gsl/gsl_rng.h>
#include "rlref/status.h"
#include "rlref/precision.h"
#include "rlref/lm.h"
#include "rlref/convention.h"

typedef struct
{
  size_t S;                     /* states, >= 1 */
  size_t A;                     /* actions, >= 1 */
  const unsigned char *terminal; /* S flags (1: terminal), or NULL: none */
} rlref_mdp;

/* Largest MDP the dense solvers take (S A S transition entries). */
#define RLREF_MDP_MAX_S 512
/* Rewards of the O(T^2) sum form of the return (MDP-RETURN sum). */
#define RLREF_RETURN_SUM_MAX 4096
#define RLREF_MDP_MAX_A 64

/* epsilon-greedy: whether the random draw (probability eps) is among all
 * A actions, the greedy one included, or among the A - 1 others. */
typedef enum { RLREF_EGREEDY_INCLUDE, RLREF_EGREEDY_EXCLUDE } rlref_egreedy_kind;

/* GAE conventions (CONVENTIONS.md "GAE, whitening, value loss"). */
typedef enum
{
  RLREF_GAE_SEED,               /* 13.11 per response: V after the last token 0 */
  RLREF_GAE_TRL,                /* TRL: the score one slot past the last token */
  RLREF_GAE_VERL,               /* verl: value and advantage carried across masked positions */
  RLREF_GAE_OPENRLHF            /* OpenRLHF: rewards and values multiplied by the mask,
                                   the score clamped to [-10, 10] */
} rlref_gae_rule;

/* OpenRLHF's reward.clip_range (-10, 10), applied to the score. */
#define RLREF_GAE_SCORE_CLAMP 10.0

typedef struct
{
  const char *name;             /* the variant name of the goldens and the CLI */
  const char *rule;             /* one line, for humans */
  const char *used_by;          /* seeds and libraries (with versions) */
  rlref_gae_rule kind;
  double gamma, lambda;         /* the library's defaults */
} rlref_gae_convention;

/* The GAE conventions, in a fixed order. */
extern const rlref_gae_convention rlref_gae_conventions[];
extern const size_t rlref_gae_num_conventions;

/* The REINFORCE estimators of MDP-PG: g(tau) = sum_t grad log pi(a_t | s_t) c_t with
 *   FULL       c_t = R(tau) = sum_k gamma^k r_k (000 13.3 with gamma = 1)
 *   TO_GO      c_t = gamma^t G_t, G_t = sum_{k >= t} gamma^{k-t} r_k (causality)
 *   BASELINE   c_t = gamma^t (G_t - V_t(s_t)), V_t the exact value with H - t steps left
 *   SEED003    c_t = G_t (seed 003: without gamma^t, unbiased only for gamma = 1). */
typedef enum
{
  RLREF_PG_FULL,
  RLREF_PG_TO_GO,
  RLREF_PG_BASELINE,
  RLREF_PG_SEED003
} rlref_pg_estimator;

/* The named conventions of the MDP formulas, in the order of the golden
 * variants (src/mdp/mdp_conventions.c), ended by a row of zeros.  The
 * setting of each row, by formula (and part):
 *   MDP-RETURN: none
 *   MDP-HORIZON: none
 *   MDP-QL-EX1: none
 *   MDP-EGREEDY: rlref_egreedy_kind
 *   MDP-VPI: none
 *   MDP-QPI: none
 *   MDP-OPT: none
 *   MDP-QL: rlref_egreedy_kind or none
 *   MDP-PG: "theorem" none; "reinforce" rlref_pg_estimator; "token-theorem"
 *       none; "token-reinforce" rlref_pg_estimator
 *   MDP-SOFT: none, or int 1 for the sequence-level form */
extern const rlref_convention rlref_mdp_conventions[];

#include "rlref/tmpl/begin_d.h"
#include "rlref/tmpl/mdp.h"
#include "rlref/tmpl/end.h"

#include "rlref/tmpl/begin_mp.h"
#include "rlref/tmpl/mdp.h"
#include "rlref/tmpl/end.h"

#endif
