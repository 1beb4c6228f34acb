/* mdp.c -- the MDP family: returns, the effective horizon, the Q-learning
 * update, epsilon-greedy, GAE in the libraries' conventions, Bellman
 * expectation and optimality, value and policy iteration, Q-learning, the
 * policy-gradient theorem and the soft Bellman recursion of the token MDP
 * (seed 003 sections 1-3, seed 000 section 1.3, section 3, 13.2-13.4,
 * 13.11; CONVENTIONS.md "GAE, whitening, value loss").
 * The variants are the rows of the library's tables (reference/src/mdp/:
 * mdp_conventions.c, and GAE's in mdp_gae.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rlref/mdp.h"
#include "family.h"

RL_EVAL_DECL (mdp_return);
RL_EVAL_DECL (mdp_return_sum);
RL_EVAL_DECL (mdp_horizon_inf);
RL_EVAL_DECL (mdp_horizon);
RL_EVAL_DECL (mdp_ql_ex1);
RL_EVAL_DECL (mdp_egreedy);
RL_EVAL_DECL (mdp_gae);
RL_EVAL_DECL (mdp_vpi);
RL_EVAL_DECL (mdp_qpi);
RL_EVAL_DECL (mdp_pi);
RL_EVAL_DECL (mdp_vi);
RL_EVAL_DECL (mdp_ql);
RL_EVAL_DECL (mdp_pg_theorem);
RL_EVAL_DECL (mdp_pg_reinforce);
RL_EVAL_DECL (mdp_pg_token_theorem);
RL_EVAL_DECL (mdp_pg_token);
RL_EVAL_DECL (mdp_soft);

/* The formulas' own sensitivities (mdp_eval.c); the rest by central
 * differences. */
rl_sens_mp_fn rl_sens_mdp_return, rl_sens_mdp_horizon, rl_sens_mdp_ql_ex1, rl_sens_mdp_egreedy,
  rl_sens_mdp_gae;

/* --- MDP-RETURN ---------------------------------------------------------- */

static const rl_input in_return[] = {
  { "rewards", RL_REAL_ARRAY, "r_0, ..., r_{T-1}; the episode ends after r_{T-1}" },
  { "gamma", RL_REAL, "the discount, 0 <= gamma <= 1" },
  RL_END,
};
static const rl_output out_return[] = {
  { "G", "G_t = sum_k gamma^k r_{t+k}, t = 0..T-1", .len_of = "rewards" },
  RL_END,
};
static const rl_io io_return = { in_return, out_return, RL_EVALS (mdp_return),
                                 .sens_mp = rl_sens_mdp_return, .part = "returns" };
static const rl_io io_return_sum = { in_return, out_return, RL_EVALS (mdp_return_sum),
                                     .sens_mp = rl_sens_mdp_return, .part = "returns" };

static const rl_case c_return[] = {
  { "*", "rewards=1,1,1 gamma=0.9", "", "G = [2.71, 1.9, 1]" },
  { "*", "rewards=0,0,1 gamma=1", "TerminalReward", "a reward at the end only, gamma 1 (the token MDP): G_t = 1" },
  { "*", "rewards=1,0,0,0,0,0,0,0,0,1 gamma=0.5", "", "G_0 = 1 + 2^-9" },
  { "*", "rewards=1,2,3 gamma=0", "", "gamma = 0: G_t = r_t" },
  { "*", "rewards=0.3,-1.7,2.25,0,5.5,-3.125 gamma=0.99", "", "real-valued rewards" },
  { "*", "rewards=1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1,1,-1 gamma=0.999", "LongHorizon",
    "T = 256 rewards +1, -1, ...: G_0 = (1 - 0.999^256)/1.999 ~ 0.113 from terms summing to ~226 in size" },
  { "*", "rewards=1e300,-1e300,1 gamma=1", "Cancellation", "G_0 = 1 after 1e300 - 1e300" },
  { "*", "rewards= gamma=0.9", "Empty", "no rewards", .invalid_in = "*" },
  { "*", "rewards=1,2 gamma=1.5", "OutOfDomain", "gamma > 1", .invalid_in = "*" },
  { "*", "rewards=1,2 gamma=-0.5", "OutOfDomain", "gamma < 0", .invalid_in = "*" },
  { "*", "rewards=1,nan gamma=0.9", "NonFinite", "a NaN reward", .invalid_in = "*" },
  { "*", "rewards=1,inf gamma=0.9", "NonFinite", "an infinite reward", .invalid_in = "*" },
  RL_END,
};

/* --- MDP-HORIZON --------------------------------------------------------- */

static const rl_io io_horizon_inf = {
  .in = (const rl_input[]) { { "gamma", RL_REAL, "the discount, 0 <= gamma < 1" }, RL_END },
  .out = (const rl_output[]) { { "horizon", "sum_{k>=0} gamma^k = 1/(1 - gamma)" }, RL_END },
  RL_EVALS (mdp_horizon_inf), .sens_mp = rl_sens_mdp_horizon, .part = "infinite",
};
static const rl_io io_horizon = {
  .in = (const rl_input[]) {
    { "gamma", RL_REAL, "the discount, 0 <= gamma <= 1" },
    { "H", RL_INT, "the number of steps, >= 0" },
    RL_END },
  .out = (const rl_output[]) { { "horizon", "sum_{k<H} gamma^k = (1 - gamma^H)/(1 - gamma)" },
                               RL_END },
  RL_EVALS (mdp_horizon), .sens_mp = rl_sens_mdp_horizon, .part = "finite",
};
static const rl_case c_horizon[] = {
  { "infinite", "gamma=0.99", "SeedExample", "gamma = 0.99 -> 100 (the double 0.99 gives 99.99999999999991)" },
  { "infinite", "gamma=0.9", "", "10" },
  { "infinite", "gamma=0.5", "", "2" },
  { "infinite", "gamma=0", "", "1: only the first reward counts" },
  { "infinite", "gamma=0.999999", "", "about 1e6" },
  { "infinite", "gamma=1", "OutOfDomain", "gamma = 1 has no infinite horizon", .invalid_in = "*" },
  { "infinite", "gamma=1.2", "OutOfDomain", "gamma > 1", .invalid_in = "*" },
  { "infinite", "gamma=nan", "NonFinite", "gamma NaN", .invalid_in = "*" },
  { "finite", "gamma=0.99 H=100", "", "(1 - 0.99^100)/0.01 ~ 63.4" },
  { "finite", "gamma=1 H=100", "", "gamma = 1: H" },
  { "finite", "gamma=0.5 H=0", "", "no step: 0" },
  { "finite", "gamma=0.9999999999 H=3", "Cancellation", "1 - gamma^3 ~ 3e-10: the naive quotient keeps 6 digits" },
  { "finite", "gamma=0.999999 H=1000000000", "LongHorizon", "H = 1e9: ~1e6 (1 - e^-1000)" },
  { "finite", "gamma=0.99 H=-1", "OutOfDomain", "H < 0", .invalid_in = "*" },
  { "finite", "gamma=1.5 H=3", "OutOfDomain", "gamma > 1", .invalid_in = "*" },
  RL_END,
};

/* --- MDP-QL-EX1 ---------------------------------------------------------- */

static const rl_io io_ql_ex1 = {
  .in = (const rl_input[]) {
    { "q", RL_REAL, "Q(s, a) before the update" },
    { "r", RL_REAL, "the reward" },
    { "gamma", RL_REAL, "the discount, 0 <= gamma <= 1" },
    { "alpha", RL_REAL, "the step, 0 <= alpha <= 1" },
    { "q_next", RL_REAL_ARRAY, "Q(s', a') for every a' (may be empty when done)" },
    { "done", RL_INT, "1 when s' is terminal (no bootstrap), else 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "target", "y = r + gamma max_a' Q(s', a') (r when done)" },
    { "q_new", "Q(s, a) + alpha (y - Q(s, a))" },
    RL_END },
  RL_EVALS (mdp_ql_ex1), .sens_mp = rl_sens_mdp_ql_ex1, .part = "update",
};
static const rl_case c_ql_ex1[] = {
  { "*", "q=0.5 r=1 gamma=0.99 alpha=0.1 q_next=0.3,0.8 done=0", "SeedExample",
    "seed 003 example 1: y = 1 + 0.99 * 0.8 = 1.792, Q = 0.5 + 0.1 (1.792 - 0.5) = 0.6292" },
  { "*", "q=0.5 r=1 gamma=0.99 alpha=0.1 q_next= done=1", "Terminal", "s' terminal: y = r = 1, Q = 0.55" },
  { "*", "q=0.5 r=1 gamma=0.99 alpha=1 q_next=0.3,0.8 done=0", "", "alpha = 1: Q = y" },
  { "*", "q=0.5 r=1 gamma=0.99 alpha=0 q_next=0.3,0.8 done=0", "", "alpha = 0: Q unchanged" },
  { "*", "q=-2.5 r=0.25 gamma=0.9 alpha=0.05 q_next=-1,-3,-0.5,-2 done=0", "", "negative values" },
  { "*", "q=0.5 r=1 gamma=0.99 alpha=1.5 q_next=0.3,0.8 done=0", "OutOfDomain", "alpha > 1", .invalid_in = "*" },
  { "*", "q=0.5 r=1 gamma=-0.1 alpha=0.1 q_next=0.3,0.8 done=0", "OutOfDomain", "gamma < 0", .invalid_in = "*" },
  { "*", "q=0.5 r=1 gamma=0.99 alpha=0.1 q_next= done=0", "Empty", "no Q(s', .) and s' not terminal", .invalid_in = "*" },
  { "*", "q=0.5 r=1 gamma=0.99 alpha=0.1 q_next=0.3,0.8 done=2", "OutOfDomain", "done is 0 or 1", .invalid_in = "*" },
  { "*", "q=nan r=1 gamma=0.99 alpha=0.1 q_next=0.3,0.8 done=0", "NonFinite", "Q NaN", .invalid_in = "*" },
  RL_END,
};

/* --- MDP-EGREEDY --------------------------------------------------------- */

static const rl_io io_egreedy = {
  .in = (const rl_input[]) {
    { "q", RL_REAL_ARRAY, "Q(s, a) for the A actions" },
    { "eps", RL_REAL, "the exploration probability, 0 <= eps <= 1" },
    RL_END },
  .out = (const rl_output[]) { { "probs", "pi(a | s)", .len_of = "q" }, RL_END },
  RL_EVALS (mdp_egreedy), .sens_mp = rl_sens_mdp_egreedy, .part = "probs",
};
static const rl_case c_egreedy[] = {
  { "*", "q=0.2,0.9,0.5 eps=0.1", "SeedExample Detector",
    "seed 003 example 2: the greedy a_2 gets 0.9 + 0.1/3 (include) or 0.9 (exclude)" },
  { "*", "q=1,1,0 eps=0.2", "Ties", "a tie for the maximum: the lowest index is greedy" },
  { "*", "q=0.3,-0.2,0.1,0.05 eps=0", "", "eps = 0: greedy" },
  { "*", "q=0.3,-0.2,0.1,0.05 eps=1", "", "eps = 1: uniform (include) or never greedy (exclude)" },
  { "*", "q=3 eps=0.1", "SingleAction", "one action: probability 1, or no other action to explore",
    .invalid_in = "exclude-greedy" },
  { "*", "q=0.2,0.9 eps=1.5", "OutOfDomain", "eps > 1", .invalid_in = "*" },
  { "*", "q=0.2,nan eps=0.1", "NonFinite", "a NaN value", .invalid_in = "*" },
  { "*", "q= eps=0.1", "Empty", "no actions", .invalid_in = "*" },
  RL_END,
};

/* --- MDP-GAE ------------------------------------------------------------- */

static const rl_io io_gae = {
  .in = (const rl_input[]) {
    { "rewards", RL_REAL_ARRAY, "per-token rewards (KL terms etc.), B rows of W, the score "
      "excluded" },
    { "values", RL_REAL_ARRAY, "V(s_t) at every position", .same_len_as = "rewards" },
    { "mask", RL_INT_ARRAY, "1 for a response token, 0 for padding or an observation token",
      .same_len_as = "rewards" },
    { "score", RL_REAL_ARRAY, "each row's sequence-level reward, placed by the convention "
      "(B values, or none)" },
    { "W", RL_INT, "the row width (default: one row)", .defaults_to_len_of = "rewards" },
    RL_END },
  .out = (const rl_output[]) {
    { "adv", "the advantages A_t, before whitening", .len_of = "rewards" },
    { "returns", "A_t + V_t (the value targets)", .len_of = "rewards" },
    RL_END },
  RL_EVALS (mdp_gae), .sens_mp = rl_sens_mdp_gae, .part = "gae",
};

#define DET "rewards=0,0,1 values=0.1,0.2,0.3 mask=1,1,1 score= W=3"
static const rl_case c_gae[] = {
  { "*", DET " gamma=1 lambda=0.95", "Detector",
    "CONVENTIONS.md: gamma 1, lambda 0.95 -> A = [0.82675, 0.765, 0.7] in every convention" },
  { "*", DET, "Defaults", "each library's defaults: lambda 0.95 (seed, TRL) gives the detector, "
    "lambda 1 (verl, OpenRLHF) A = [0.9, 0.8, 0.7]" },
  { "*", DET " gamma=0.9 lambda=0", "Lambda0", "lambda = 0: A_t = delta_t, the one-step TD error" },
  { "*", DET " gamma=0.9 lambda=1", "Lambda1", "lambda = 1: A_t = G_t - V_t, the Monte-Carlo return minus V" },
  { "*", "rewards=0,0,0,0 values=0.1,0.2,0.3,0.4 mask=1,1,1,0 score=1 W=4 gamma=1 lambda=0.95",
    "Detector ScorePlacement",
    "one padding slot: TRL puts the score there and keeps V = 0.4 at it (A_2 = 0.67); the others "
    "at the last token (A_2 = 0.7)" },
  { "*", "rewards=0,0,0.5,0 values=0.1,0.5,0.3,0.2 mask=1,0,1,1 score=1 W=4 gamma=1 lambda=0.95",
    "Detector MaskHole",
    "an observation token inside the response: verl carries V and A across it, OpenRLHF zeroes "
    "its r and V; TRL's response ends at the first 0 (its sequence_length: the score on slot 1, "
    "values after it 0, every reward read); the seed takes a mask of ones then zeros",
    .invalid_in = "seed-000" },
  { "*", "rewards=0.01,-0.02,0.03,0,0,-0.01,0.02,0 values=0.5,0.4,0.45,0.3,-0.2,0.1,0.05,0.7 "
    "mask=1,1,1,0,1,1,0,0 score=1,-1 W=4 gamma=0.99 lambda=0.95", "MultiRow",
    "two padded rows of width 4 (the second row's padded reward 0.02 counts in TRL)" },
  { "*", "rewards=0.1,0.2,0.3,0.4 values=0.5,0.25,0.125,0.0625 mask=1,1,0,0 score=1 W=4 "
    "gamma=1 lambda=0.95", "PaddedReward ScorePlacement",
    "rewards on the two padded slots: TRL's GAE reads every column (they add to its score "
    "slot and the next); the seed, verl (carried) and OpenRLHF (times the mask) drop them" },
  { "*", "rewards=0,0,0 values=0.1,0.2,0.3 mask=1,1,1 score=25 W=3 gamma=1 lambda=1",
    "ScoreClamp", "a score of 25: OpenRLHF's compute_reward clamps it to reward.clip_range "
    "[-10, 10]; the others add 25" },
  { "*", "rewards=0.01,-0.02,0.03,0.015 values=0.5,0.4,0.45,0.3 mask=1,1,1,1 score=2 W=4 "
    "gamma=0.95 lambda=0.9", "FullRow", "no padding: TRL's slot past the last token does not "
    "fit and the score goes on the last token" },
  { "*", "rewards=1e300,-1e300,0 values=0,0,0 mask=1,1,1 score=1 W=3 gamma=1 lambda=1",
    "Cancellation", "A_0 = 1 after 1e300 - 1e300" },
  { "*", DET " gamma=1 lambda=1.5", "OutOfDomain", "lambda > 1", .invalid_in = "*" },
  { "*", "rewards=0,0,1 values=0.1,0.2,0.3 mask=1,2,1 score= W=3", "OutOfDomain", "a mask of 2", .invalid_in = "*" },
  { "*", "rewards=0,0,1 values=0.1,nan,0.3 mask=1,1,1 score= W=3", "NonFinite", "a NaN value", .invalid_in = "*" },
  { "*", "rewards=0,0,1 values=0.1,0.2,0.3 mask=1,1,1 score=1,2 W=3", "LengthMismatch",
    "two scores for one row", .invalid_in = "*" },
  { "*", "rewards=0,0,1,0 values=0.1,0.2,0.3,0 mask=1,1,1,1 score= W=3", "LengthMismatch",
    "4 positions in rows of 3", .invalid_in = "*" },
  { "*", "rewards=0,0,1 values=0.1,0.2,0.3 mask=0,0,0 score=1 W=3", "EmptyResponse",
    "a row without response tokens", .invalid_in = "*" },
  RL_END,
};

/* --- finite MDPs: MDP-VPI, MDP-QPI, MDP-OPT ------------------------------ */

#define MDP_SHAPE                                                               \
  { "S", RL_INT, "the number of states, >= 1" },                                \
  { "A", RL_INT, "the number of actions, >= 1" },                               \
  { "P", RL_REAL_ARRAY, "P(s'|s, a) at (s A + a) S + s': each row of a non-terminal state "     \
    "a probability vector (>= 0, sum 1 within S 2^-52); the rows of a terminal state 0" },      \
  { "R", RL_REAL_ARRAY, "the expected reward r(s, a) at s A + a (0 for a terminal state)" }
#define MDP_TERMINAL                                                            \
  { "terminal", RL_INT_ARRAY, "the terminal states (value 0; may be empty)" }
#define MDP_GAMMA { "gamma", RL_REAL, "the discount, 0 <= gamma < 1" }

static const rl_input in_pi[] = {
  MDP_SHAPE,
  { "pi", RL_REAL_ARRAY, "pi(a|s) at s A + a: each row of a non-terminal state a probability "
    "vector" },
  MDP_TERMINAL, MDP_GAMMA, RL_END,
};
static const rl_io io_vpi = {
  .in = in_pi,
  .out = (const rl_output[]) { { "V", "V^pi(s)", .len_is = "S" }, RL_END },
  RL_EVALS (mdp_vpi), .cert = "newton-polish", .part = "V",
};
static const rl_io io_qpi = {
  .in = in_pi,
  .out = (const rl_output[]) { { "Q", "Q^pi(s, a) at s A + a", .len_of = "R" }, RL_END },
  RL_EVALS (mdp_qpi), .cert = "newton-polish", .part = "Q",
};
static const rl_io io_pi = {
  .in = (const rl_input[]) { MDP_SHAPE, MDP_TERMINAL, MDP_GAMMA, RL_END },
  .out = (const rl_output[]) {
    { "V", "V*(s)", .len_is = "S" },
    { "Q", "Q*(s, a) at s A + a", .len_of = "R" },
    { "policy", "the greedy action of Q* in each state (lowest index among ties)",
      .len_is = "S" },
    { "steps", "policy improvements that changed the policy, from action 0 everywhere" },
    RL_END },
  RL_EVALS (mdp_pi), .cert = "newton-polish", .part = "policy-iteration",
};
static const rl_io io_vi = {
  .in = (const rl_input[]) { MDP_SHAPE, MDP_TERMINAL, MDP_GAMMA,
                             { "k", RL_INT, "sweeps of value iteration from V_0 = 0" }, RL_END },
  .out = (const rl_output[]) {
    { "V", "V*(s)", .len_is = "S" },
    { "Vk", "V_k(s) after k sweeps", .len_is = "S" },
    { "error", "max_s |V_k(s) - V*(s)|" },
    { "bound", "the contraction bound gamma^k max_s |V_0(s) - V*(s)|" },
    RL_END },
  RL_EVALS (mdp_vi), .cert = "newton-polish", .part = "value-iteration",
};

/* M3: 3 states, 2 actions; M3T: the same shape with state 2 terminal; TIE:
 * 2 states, 3 actions, actions 0 and 2 the same and optimal. */
#define M3 "S=3 A=2 P=0.5,0.5,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.2 " \
  "R=1,0,-0.5,2,0.25,-1 terminal="
#define M3T "S=3 A=2 P=0.5,0.3,0.2,0,0.2,0.8,0.3,0.6,0.1,0.1,0,0.9,0,0,0,0,0,0 " \
  "R=1,0,-0.5,2,0,0 terminal=2"
#define TIE "S=2 A=3 P=1,0,0,1,1,0,0,1,0.5,0.5,0,1 R=1,0,1,0,-1,0 terminal="
#define UNIF " pi=0.5,0.5,0.5,0.5,0.5,0.5"

static const rl_case c_pi_eval[] = {
  { "*", M3 UNIF " gamma=0.9", "", "3 states, the uniform policy" },
  { "*", M3 " pi=0,1,1,0,0.25,0.75 gamma=0.99", "", "gamma = 0.99: cond(I - gamma P_pi) ~ 200" },
  { "*", M3 UNIF " gamma=0.999", "", "gamma = 0.999" },
  { "*", M3 UNIF " gamma=0", "", "gamma = 0: V = R_pi" },
  { "*", M3T UNIF " gamma=0.9", "Terminal", "state 2 terminal: V(2) = 0" },
  { "*", "S=1 A=1 P=1 R=1 pi=1 terminal= gamma=0.5", "", "one state: V = 1/(1 - gamma) = 2" },
  { "*", "S=3 A=1 P=0.1,0.2,0.7,0.3333333333333333,0.3333333333333333,0.3333333333333333,"
    "0,0,1 R=1,2,3 pi=1,1,1 terminal= gamma=0.9", "RowSumTolerance",
    "rows 0.1 + 0.2 + 0.7 and 3 x 0.3333333333333333 do not sum to 1 exactly in binary64: "
    "within the tolerance S 2^-52, and used as given" },
  { "*", M3 UNIF " gamma=1", "OutOfDomain", "gamma = 1 (infinite horizon)", .invalid_in = "*" },
  { "*", "S=3 A=2 P=0.5,0.4,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.2 "
    "R=1,0,-0.5,2,0.25,-1 terminal=" UNIF " gamma=0.9", "NotStochastic",
    "a row of P sums to 0.9", .invalid_in = "*" },
  { "*", "S=3 A=2 P=1.5,-0.5,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.2 "
    "R=1,0,-0.5,2,0.25,-1 terminal=" UNIF " gamma=0.9", "NotStochastic",
    "a negative probability (the row sums to 1)", .invalid_in = "*" },
  { "*", M3 " pi=0.5,0.6,0.5,0.5,0.5,0.5 gamma=0.9", "NotStochastic",
    "a row of pi sums to 1.1", .invalid_in = "*" },
  { "*", "S=3 A=2 P=0.5,0.5,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.2 "
    "R=1,0,-0.5,2,0.25,-1 terminal=2" UNIF " gamma=0.9", "TerminalConvention",
    "state 2 is declared terminal but has transitions and rewards", .invalid_in = "*" },
  { "*", "S=3 A=2 P=0.5,0.5,0 R=1,0 terminal=" UNIF " gamma=0.9", "LengthMismatch",
    "P of the wrong length", .invalid_in = "*" },
  { "*", "S=3 A=2 P=0.5,0.5,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.2 "
    "R=1,0,-0.5,2,0.25,-1 terminal=3" UNIF " gamma=0.9", "LengthMismatch",
    "terminal state 3 of 3 states", .invalid_in = "*" },
  { "*", "S=3 A=2 P=0.5,0.5,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.2 "
    "R=1,nan,-0.5,2,0.25,-1 terminal=" UNIF " gamma=0.9", "NonFinite", "a NaN reward",
    .invalid_in = "*" },
  { "*", "S=0 A=2 P= R= pi= terminal= gamma=0.9", "OutOfDomain", "no states", .invalid_in = "*" },
  RL_END,
};

static const rl_case c_opt[] = {
  { "policy-iteration", M3 " gamma=0.9", "", "3 states, 2 actions" },
  { "policy-iteration", M3 " gamma=0.99", "", "gamma = 0.99" },
  { "policy-iteration", M3T " gamma=0.9", "Terminal", "state 2 terminal" },
  { "policy-iteration", M3 " gamma=0", "", "gamma = 0: the greedy action of r" },
  { "policy-iteration", TIE " gamma=0.5", "Ties", "actions 0 and 2 are the same: the policy keeps 0" },
  { "value-iteration", M3 " gamma=0.9 k=0", "", "V_0 = 0: the error is max |V*|, the bound the same" },
  { "value-iteration", M3 " gamma=0.9 k=1", "", "one sweep: V_1 = max_a r" },
  { "value-iteration", M3 " gamma=0.9 k=5", "", "five sweeps: error <= 0.9^5 max |V*|" },
  { "value-iteration", M3 " gamma=0.9 k=20", "", "twenty sweeps" },
  { "value-iteration", M3T " gamma=0.9 k=8", "Terminal", "state 2 terminal" },
  { "policy-iteration", M3 " gamma=1", "OutOfDomain", "gamma = 1", .invalid_in = "*" },
  { "value-iteration", M3 " gamma=1 k=3", "OutOfDomain", "gamma = 1", .invalid_in = "*" },
  { "value-iteration", M3 " gamma=0.9 k=-1", "OutOfDomain", "k < 0", .invalid_in = "*" },
  { "value-iteration", "S=3 A=2 P=0.5,0.5,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.3 "
    "R=1,0,-0.5,2,0.25,-1 terminal= gamma=0.9 k=3", "NotStochastic", "a row of P sums to 1.1",
    .invalid_in = "*" },
  RL_END,
};

/* --- MDP-QL ---------------------------------------------------------------- */

#define QL_INPUTS                                                               \
  MDP_SHAPE, MDP_TERMINAL, MDP_GAMMA,                                           \
  { "start", RL_INT, "the start state of every episode (not terminal)" },       \
  { "steps", RL_INT, "the number of updates, 0 to 1e7" },                       \
  { "seed", RL_INT, "the seed of GSL's mt19937 (0 means GSL's default 4357)" }
static const rl_output out_ql[] = {
  { "Q", "Q(s, a) after the run, at s A + a", .len_of = "R" },
  { "error", "max_{s,a} |Q(s, a) - Q*(s, a)|" },
  RL_END,
};
static const rl_io io_ql = {
  .in = (const rl_input[]) { QL_INPUTS, RL_END },
  .out = out_ql, RL_EVALS (mdp_ql), .part = "q-learning",
};
/* The 3-state MDP with rewards that no early update brings to an exact
 * tie with an unvisited action's 0 (with M3's r(1,0) = -0.5 and r(0,0) = 1,
 * y = -0.5 + 0.5 max Q = 0 at gamma 0.5: a tie that any perturbation of
 * r(1,0) breaks, a kink of the run). */
#define M3Q "S=3 A=2 P=0.5,0.5,0,0,0.2,0.8,0.3,0.7,0,0.1,0,0.9,0,0,1,0.6,0.2,0.2 " \
  "R=0.9,0.1,-0.4,1.75,0.3,-1.1 terminal="
#define M3QT "S=3 A=2 P=0.5,0.3,0.2,0,0.2,0.8,0.3,0.6,0.1,0.1,0,0.9,0,0,0,0,0,0 " \
  "R=0.9,0.1,-0.4,1.75,0,0 terminal=2"
static const rl_case c_ql[] = {
  { "*", M3Q " gamma=0.9 start=0 steps=2000 seed=1", "Convergence",
    "2000 updates on the 3-state MDP: the distance to Q* shrinks" },
  { "*", M3Q " gamma=0.5 start=2 steps=20000 seed=12345", "Convergence", "20000 updates, gamma 0.5" },
  { "*", M3QT " gamma=0.9 start=0 steps=3000 seed=7", "Terminal",
    "state 2 terminal: y = r there, and the episode restarts at state 0" },
  { "*", M3Q " gamma=0.9 start=0 steps=0 seed=1", "", "no step: Q = 0, the error is max |Q*|" },
  { "*", M3Q " gamma=0.9 start=1 steps=500 seed=0", "", "seed 0 (GSL's 4357)" },
  { "egreedy-include,egreedy-exclude", M3Q " gamma=0.9 start=0 steps=1000 seed=3 eps=0",
    "", "eps = 0: always greedy (ties at Q = 0 to the lowest index)" },
  { "*", M3QT " gamma=0.9 start=2 steps=10 seed=1", "OutOfDomain", "the start state is terminal",
    .invalid_in = "*" },
  { "*", M3Q " gamma=0.9 start=3 steps=10 seed=1", "LengthMismatch", "start is not a state",
    .invalid_in = "*" },
  { "*", M3Q " gamma=0.9 start=0 steps=-1 seed=1", "OutOfDomain", "steps < 0", .invalid_in = "*" },
  { "egreedy-include", M3Q " gamma=0.9 start=0 steps=10 seed=1 eps=1.5", "OutOfDomain",
    "eps > 1", .invalid_in = "*" },
  RL_END,
};

/* --- MDP-PG ---------------------------------------------------------------- */

static const rl_input in_pg[] = {
  { "S", RL_INT, "the number of states, >= 1" },
  { "A", RL_INT, "the number of actions, >= 1" },
  { "P", RL_REAL_ARRAY, "P(s'|s, a) at (s A + a) S + s' (probability rows)" },
  { "R", RL_REAL_ARRAY, "the reward r(s, a) at s A + a" },
  { "rho", RL_REAL_ARRAY, "the start distribution over the S states" },
  { "theta", RL_REAL_ARRAY, "the logits of the tabular softmax policy, pi(a|s) = "
    "softmax(theta_s)_a at s A + a" },
  { "gamma", RL_REAL, "the discount, >= 0 (a finite horizon needs no gamma <= 1)" },
  { "H", RL_INT, "the horizon: actions a_0..a_{H-1}, 1 to 64" },
  RL_END,
};
static const rl_io io_pg_theorem = {
  .in = in_pg,
  .out = (const rl_output[]) {
    { "J", "J = E[sum_{t<H} gamma^t r_t]" },
    { "grad", "dJ/dtheta, exact (the policy-gradient theorem)", .len_of = "theta" },
    RL_END },
  RL_EVALS (mdp_pg_theorem), .part = "theorem",
};
static const rl_io io_pg_reinforce = {
  .in = in_pg,
  .out = (const rl_output[]) {
    { "grad", "E g, the estimator's exact expectation", .len_of = "theta" },
    { "var", "E |g - E g|^2, the estimator's variance (summed over components)" },
    RL_END },
  RL_EVALS (mdp_pg_reinforce), .part = "reinforce",
};
static const rl_input in_token[] = {
  { "V", RL_INT, "vocabulary size (2 to 64)" },
  { "eos", RL_INT, "the EOS token" },
  { "T", RL_INT, "maximum length: a sequence ends at EOS or is cut after T tokens (kept)" },
  { "logits", RL_REAL_ARRAY, "tabular model: one row of V per prefix without EOS shorter than "
    "T, by length then lexicographically (EOS skipped)" },
  { "reward", RL_REAL_ARRAY, "additive reward: V token rewards, per_length, truncated" },
  RL_END,
};
static const rl_io io_pg_token_theorem = {
  .in = in_token,
  .out = (const rl_output[]) {
    { "J", "J = E[r(y)] (13.2)" },
    { "grad", "dJ/dlogits, exact", .len_of = "logits" },
    RL_END },
  RL_EVALS (mdp_pg_token_theorem), .part = "token-theorem",
};
static const rl_io io_pg_token = {
  .in = in_token,
  .out = (const rl_output[]) {
    { "grad", "E g over every sequence", .len_of = "logits" },
    { "var", "E |g - E g|^2" },
    RL_END },
  RL_EVALS (mdp_pg_token), .part = "token-reinforce",
};
/* Probabilities that are binary fractions: each row sums to 1 exactly, so
 * that E g of the unbiased estimators equals the theorem's gradient to
 * every digit (with rows such as 0.7 + 0.3 = 1 - 2^-54 in binary64 the
 * trajectory sum weighs early rewards by a mass that differs from 1 at
 * that level). */
#define PG2 "S=2 A=2 P=0.75,0.25,0.25,0.75,0.375,0.625,0.875,0.125 R=1,0,-0.5,2 " \
  "rho=0.625,0.375 theta=0.3,-0.2,0.1,0.5"
#define PG3 "S=3 A=2 P=0.5,0.5,0,0,0.25,0.75,0.375,0.625,0,0.125,0,0.875,0,0,1,0.5,0.25,0.25 " \
  "R=1,0,-0.5,2,0.25,-1 rho=1,0,0 theta=0.2,-0.1,0,0.4,-0.3,0.3"
#define TOK "V=3 eos=2 T=3 logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0," \
  "-0.3,0.3,0 reward=1,-0.5,0,-0.25,-1"
#define TOKU "V=3 eos=2 T=2 logits=0,0,0,0,0,0,0,0,0 reward=1,0,0,0,0"
static const rl_case c_pg[] = {
  { "theorem,full-return,reward-to-go,baseline,seed-003", PG2 " gamma=0.9 H=3", "",
    "2 states, 2 actions, H = 3, gamma 0.9: every estimator but seed-003 has E g = grad J" },
  { "theorem,full-return,reward-to-go,baseline,seed-003", PG2 " gamma=1 H=3", "Gamma1",
    "gamma = 1: seed 003's form is unbiased too" },
  { "theorem,full-return,reward-to-go,baseline,seed-003", PG2 " gamma=0.5 H=1", "",
    "H = 1: a bandit; every form is the same" },
  { "theorem,full-return,reward-to-go,baseline,seed-003", PG3 " gamma=0.95 H=4", "",
    "3 states, H = 4" },
  { "theorem,full-return,reward-to-go,baseline,seed-003", PG2 " gamma=-0.5 H=3", "OutOfDomain",
    "gamma < 0", .invalid_in = "*" },
  { "theorem,full-return,reward-to-go,baseline,seed-003", PG2 " gamma=0.9 H=0", "OutOfDomain",
    "H = 0", .invalid_in = "*" },
  { "theorem,full-return,reward-to-go,baseline,seed-003",
    "S=2 A=2 P=0.75,0.25,0.25,0.75,0.375,0.625,0.875,0.125 R=1,0,-0.5,2 rho=0.6,0.6 theta=0,0,0,0 "
    "gamma=0.9 H=2", "NotStochastic", "rho sums to 1.2", .invalid_in = "*" },
  { "token-theorem,token-full-return,token-reward-to-go,token-baseline", TOK, "",
    "a tabular tiny LM, V = 3, T = 3 (15 sequences)" },
  { "token-theorem,token-full-return,token-reward-to-go,token-baseline", TOKU, "Uniform",
    "uniform logits, T = 2: the reward of token 0" },
  { "token-theorem,token-full-return,token-reward-to-go,token-baseline",
    "V=3 eos=2 T=3 logits=0,0,0 reward=1,0,0,0,0", "LengthMismatch",
    "one row where the tabular model has seven", .invalid_in = "*" },
  RL_END,
};

/* --- MDP-SOFT -------------------------------------------------------------- */

static const rl_io io_soft = {
  .in = (const rl_input[]) {
    { "V", RL_INT, "vocabulary size (2 to 64)" },
    { "eos", RL_INT, "the EOS token" },
    { "T", RL_INT, "maximum length (cut sequences kept)" },
    { "ref_logits", RL_REAL_ARRAY, "the reference policy: tabular, one row of V per prefix "
      "without EOS shorter than T" },
    { "reward", RL_REAL_ARRAY, "additive reward: V token rewards, per_length, truncated" },
    { "beta", RL_REAL, "the KL coefficient, > 0" },
    RL_END },
  .out = (const rl_output[]) {
    { "v_root", "V*(empty prefix) = beta log Z" },
    { "logp_star", "log pi*(a|s) for every prefix s and token a", .len_of = "ref_logits" },
    RL_END },
  RL_EVALS (mdp_soft), .part = "soft",
};
#define SOFTM "V=3 eos=2 T=3 ref_logits=1,0.5,-1,0.2,0.1,0.3,-0.4,0,0.6,0.5,0,2,0,0,0,1,-1,0," \
  "-0.3,0.3,0 reward=1,-0.5,0,-0.25,-1"
static const rl_case c_soft[] = {
  { "*", SOFTM " beta=0.5", "", "a tabular tiny LM: both methods agree to every digit" },
  { "*", SOFTM " beta=2", "", "beta = 2" },
  { "*", SOFTM " beta=100", "LargeBeta", "beta large: pi* close to pi_ref, V* close to E[r]" },
  { "*", SOFTM " beta=0.01", "SmallBeta", "beta small: pi* close to the argmax of r, V* close to max r" },
  { "*", "V=2 eos=1 T=4 ref_logits=0,0,0.5,-0.5,1,-1,0.3,0.7 reward=0.5,0,-0.1,0.2 beta=1", "",
    "V = 2, T = 4" },
  { "*", SOFTM " beta=1e15", "ExtremeBeta",
    "beta = 1e15: V = -0.2807 from the shifted log1p form (beta lse(log pi_ref + Q/beta) "
    "gave 0.4441 in binary64)" },
  { "*", SOFTM " beta=1e300", "ExtremeBeta",
    "beta = 1e300: Q/beta is subnormal; V = -0.2807 (the plain form gave 0)" },
  { "soft-bellman", SOFTM " beta=0x1p-753", "ExtremeBeta",
    "beta = 2^-753: ties of the hard parts keep pi_ref and the soft parts (log pi* = -1.7014 "
    "where Q/beta rounded them away to log(1/2))" },
  { "*", SOFTM " beta=0", "OutOfDomain", "beta = 0", .invalid_in = "*" },
  { "*", SOFTM " beta=nan", "NonFinite", "beta NaN", .invalid_in = "*" },
  RL_END,
};

/* --- notes --------------------------------------------------------------- */

static const rl_note n_mdp[] = {
  { "SeedExample", "WORKED_EXAMPLE", "A worked example printed in the seeds." },
  { "Detector", "CONVENTION",
    "A detector from CONVENTIONS.md or the seeds: the conventions give visibly different values." },
  { "TerminalReward", "PROPERTY", "A reward at the end only, as in the token MDP (000 §1.1)." },
  { "LongHorizon", "NUMERICAL",
    "Many steps: a recursion or sum in plain arithmetic accumulates one rounding per step; an "
    "accurate one does not lose digits with the length." },
  { "Cancellation", "NUMERICAL",
    "Large terms that cancel: the result is small against the terms, and only an exactly "
    "rounded sum (or the closed form) keeps its digits." },
  { "Terminal", "EDGE_CASE", "s' is terminal: the target is r, no bootstrap." },
  { "Ties", "CONVENTION", "Several actions share the maximum: the greedy one is the lowest index "
    "(numpy and torch argmax)." },
  { "SingleAction", "EDGE_CASE", "One action: exclude-greedy has nothing to explore and refuses." },
  { "Defaults", "CONVENTION", "The library's default gamma and lambda (the variant's params)." },
  { "Lambda0", "PROPERTY", "lambda = 0: GAE is the one-step TD error delta_t (000 13.11)." },
  { "Lambda1", "PROPERTY", "lambda = 1: GAE is the Monte-Carlo return minus V (000 13.11)." },
  { "ScorePlacement", "CONVENTION",
    "TRL adds the sequence score one slot past the last response token when the row has room, "
    "and keeps the value model's output at that slot: the score is then discounted by lambda." },
  { "MaskHole", "CONVENTION",
    "A 0 inside a row's mask (a multi-turn observation token): verl carries the next value and "
    "the advantage across it; OpenRLHF multiplies rewards and values by the mask; TRL's "
    "response ends at the first 0 (sequence_length from the first pad token, "
    "ppo_trainer.py:727); the seed's 13.11 takes a mask of ones then zeros and refuses it." },
  { "PaddedReward", "CONVENTION",
    "A per-token reward on a padded slot: TRL's GAE loop reads rewards[:, t] over the whole "
    "width (ppo_trainer.py:790-794; its own KL rewards are 0 there), the others drop it." },
  { "ScoreClamp", "CONVENTION",
    "A score beyond [-10, 10]: OpenRLHF's compute_reward clamps it to --reward.clip_range "
    "(default -10 10, models/utils.py:108-109) before placing it." },
  { "MultiRow", "PROPERTY", "Several padded rows: rows do not mix." },
  { "FullRow", "EDGE_CASE", "A row without padding: TRL's slot past the last token is outside." },
  { "EmptyResponse", "INVALID_INPUT", "A row whose mask is all 0: no token to place the score." },
  { "Convergence", "PROPERTY",
    "Q-learning with alpha = 1/n(s, a) (Robbins-Monro) approaches Q*; the run is one seeded "
    "stream of GSL's mt19937, the same to the last bit for the same seed." },
  { "Gamma1", "PROPERTY",
    "gamma = 1: seed 003's causal estimator without gamma^t is unbiased as well." },
  { "Uniform", "PROPERTY", "Uniform logits: every token has probability 1/V." },
  { "LargeBeta", "PROPERTY", "beta large: pi* is close to pi_ref (13.17, beta -> infinity)." },
  { "ExtremeBeta", "NUMERICAL",
    "beta far from the rewards' scale: the soft value is formed as H + beta log1p(...) (or "
    "beta log S where S < 1/2) with the hard maximum H shifted out, so neither beta Q nor Q/beta "
    "is rounded before the scaling; ties of the hard parts keep the soft parts." },
  { "SmallBeta", "PROPERTY",
    "beta small: pi* is close to the argmax of r; e^{Q/beta} is far beyond binary64, so the "
    "soft values must be formed as log-sum-exp." },
  { "RowSumTolerance", "NUMERICAL",
    "Probability rows written in decimal do not sum to 1 exactly in binary64; a row is accepted "
    "when its exactly rounded sum is within n 2^-52 of 1 (n entries) and used as given." },
  { "NotStochastic", "INVALID_INPUT",
    "A row of P or pi that is not a probability vector (a negative entry, or a sum off 1 by "
    "more than the tolerance): must be rejected (EDOM)." },
  { "TerminalConvention", "INVALID_INPUT",
    "A state declared terminal has value 0; transitions or rewards given for it contradict "
    "that and are rejected (EINVAL) rather than silently dropped." },
  RL_END,
};

static rl_formula formulas[] = {
  { "MDP-RETURN", "discounted return", "003 §1",
    "G_t = sum_k gamma^k r_{t+k} = r_t + gamma G_{t+1}, G_T = 0; accurate for any T (hi + lo "
    "carried, exactly rounded sums)", NULL, c_return, n_mdp },
  { "MDP-HORIZON", "effective horizon", "000 §13; 003 §1",
    "sum_k gamma^k = 1/(1 - gamma) (gamma = 0.99: 100); over H steps (1 - gamma^H)/(1 - gamma)",
    NULL, c_horizon, n_mdp },
  { "MDP-QL-EX1", "the Q-learning update, seed 003's example 1", "003 §2 (example 1)",
    "y = r + gamma max_a' Q(s', a'), Q <- Q + alpha (y - Q): Q = 0.5, r = 1, gamma = 0.99, "
    "max Q' = 0.8, alpha = 0.1 -> 1.792, 0.6292", NULL, c_ql_ex1, n_mdp },
  { "MDP-EGREEDY", "epsilon-greedy action probabilities", "003 §2 (example 2)",
    "1 - eps + eps/A for the greedy action and eps/A otherwise (draw over all actions), or "
    "1 - eps and eps/(A - 1) (draw over the others)", NULL, c_egreedy, n_mdp },
  { "MDP-GAE", "generalised advantage estimation", "000 (13.11); 003",
    "delta_t = r_t + gamma V_{t+1} - V_t, A_t = sum_l (gamma lambda)^l delta_{t+l}, returns "
    "A + V, over padded rows, in the conventions of the variants table",
    .cases = c_gae, .notes = n_mdp },
  { "MDP-VPI", "policy evaluation: V^pi", "003 §1",
    "V^pi(s) = sum_a pi(a|s) sum_s' P(s'|s,a) [r + gamma V^pi(s')]: (I - gamma P_pi) V = R_pi "
    "by LU and iterative refinement", NULL, c_pi_eval, n_mdp },
  { "MDP-QPI", "policy evaluation: Q^pi", "003 §1",
    "Q^pi(s, a) = r(s, a) + gamma sum_s' P(s'|s,a) V^pi(s')", NULL, c_pi_eval, n_mdp },
  { "MDP-OPT", "Bellman optimality: V*, Q*, policy and value iteration", "003 §1",
    "V*(s) = max_a Q*(s, a), Q* = r + gamma P V*: policy iteration to a fixed point (steps "
    "counted); value iteration's distance to V* beside gamma^k max |V_0 - V*|",
    NULL, c_opt, n_mdp },
  { "MDP-QL", "tabular Q-learning", "003 §2",
    "Q(s,a) <- Q(s,a) + alpha (r + gamma max_a' Q(s',a') - Q(s,a)), alpha = 1/n(s,a), "
    "epsilon-greedy or uniform behaviour from a seeded mt19937 stream; Q after the run and "
    "max |Q - Q*|", NULL, c_ql, n_mdp },
  { "MDP-PG", "the policy-gradient theorem and REINFORCE", "003 §2; 000 (13.2)-(13.4)",
    "grad J exactly, against the exact expectation and variance of the REINFORCE estimators "
    "(full return, reward to go, baseline, seed 003's form without gamma^t), on a small MDP and "
    "on the token MDP of a tiny LM", NULL, c_pg, n_mdp },
  { "MDP-SOFT", "the soft Bellman recursion of the token MDP", "catalogue MDP-SOFT; 000 (13.15), (13.17)",
    "V(s) = beta log sum_a pi_ref(a|s) e^{(r(s,a) + V(s a))/beta}, pi*(a|s) = pi_ref(a|s) "
    "e^{(Q - V)/beta}: equal to the sequence-level pi* and V(root) = beta log Z",
    NULL, c_soft, n_mdp },
  RL_END,
};

/* One variant per GAE convention of the library's table, in its order. */
static rl_variant *
gae_variants (void)
{
  rl_variant *v = rl_variants_new (rlref_gae_num_conventions);
  for (size_t i = 0; i < rlref_gae_num_conventions; i++)
    {
      const rlref_gae_convention *c = &rlref_gae_conventions[i];
      v[i] = (rl_variant) {
        c->name, c->rule, c->used_by, &io_gae,
        .params = { { "gamma", c->gamma, .in_x = 1 }, { "lambda", c->lambda, .in_x = 1 } },
        .data = c };
    }
  return v;
}

/* MDP-RETURN's two forms of the return read the same inputs on their own
 * ios: the row's name says which. */
static const rl_io *
pick (const rlref_convention *c)
{
  if (strcmp (c->part, "returns") == 0)
    return strcmp (c->name, "sum") == 0 ? &io_return_sum : &io_return;
  return NULL;
}

/* The formulas' variants: one per row of the library's table
 * (rlref_mdp_conventions), each on the io pick gives or that of its part
 * and precision; MDP-GAE's from the GAE table. */
static const rl_io *const ios[] = {
  &io_return, &io_return_sum, &io_horizon_inf, &io_horizon, &io_ql_ex1, &io_egreedy,
  &io_vpi, &io_qpi, &io_pi, &io_vi, &io_ql, &io_pg_theorem, &io_pg_reinforce,
  &io_pg_token_theorem, &io_pg_token, &io_soft, NULL,
};

static void
init (void)
{
  for (rl_formula *f = formulas; f->id; f++)
    f->variants = strcmp (f->id, "MDP-GAE") == 0 ? gae_variants ()
      : rl_variants_of (rlref_mdp_conventions, f->id, ios, pick);
}

RL_FAMILY (mdp) = {
  .name = "mdp",
  .title = "Markov decision processes: returns, Bellman, Q-learning, policy gradient, GAE",
  .rank = 1,
  .formulas = formulas,
  .init = init,
};
