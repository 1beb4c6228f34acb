/* mdp_conventions.c -- the named conventions of the MDP formulas: for
 * each formula, what each seed's and library's reading computes, the
 * parameter values it sets, who uses it and its setting, in the order of
 * the golden variants (rlref/mdp.h names each formula's setting type). */
#include "rlref/convention.h"
#include "rlref/mdp.h"

static const rlref_egreedy_kind eg_include = RLREF_EGREEDY_INCLUDE;
static const rlref_egreedy_kind eg_exclude = RLREF_EGREEDY_EXCLUDE;
static const rlref_pg_estimator est_full = RLREF_PG_FULL;
static const rlref_pg_estimator est_to_go = RLREF_PG_TO_GO;
static const rlref_pg_estimator est_baseline = RLREF_PG_BASELINE;
static const rlref_pg_estimator est_seed003 = RLREF_PG_SEED003;
static const int soft_sequence = 1;

const rlref_convention rlref_mdp_conventions[] = {
  { "recursion", "MDP-RETURN", "returns",
    "G_t = r_t + gamma G_{t+1}, G_T = 0, backwards; G_{t+1} carried as hi + lo "
      "and each step an exactly rounded sum, so the error does not grow with T",
    "seed 003 §1 (the Bellman derivation's first step)",
    .setting = NULL },
  { "sum", "MDP-RETURN", "returns",
    "G_t = sum_{k=0}^{T-1-t} gamma^k r_{t+k}: the powers in double-double and the "
      "terms of each G_t added by one exactly rounded sum (O(T^2): at most 4096 rewards); the "
      "same numbers as recursion",
    "seed 003 §1 (the definition of the return)",
    .setting = NULL },
  { "infinite", "MDP-HORIZON", "infinite",
    "1/(1 - gamma), 0 <= gamma < 1: gamma = 0.99 gives 100",
    "seed 000 §13 (the 1/(1 - gamma) horizon of long-horizon credit assignment)",
    .setting = NULL },
  { "finite", "MDP-HORIZON", "finite",
    "sum_{k<H} gamma^k = -expm1(H log gamma)/(1 - gamma), H when gamma = 1",
    "seed 003 §1 (the return's weights)",
    .setting = NULL },
  { "seed-003", "MDP-QL-EX1", "update",
    "the TD target and the tabular Q-learning update",
    "seed 003 §2 (example 1)",
    .setting = NULL },
  { "include-greedy", "MDP-EGREEDY", "probs",
    "with probability eps a uniform draw over all A actions (the greedy one "
      "included): the greedy action 1 - eps + eps/A, the others eps/A; ties: the lowest index",
    "seed 003 example 2 (read as a draw over all actions); the usual code "
      "(random action if u < eps)",
    .setting = &eg_include },
  { "exclude-greedy", "MDP-EGREEDY", "probs",
    "with probability eps a uniform draw over the A - 1 other actions: the "
      "greedy action exactly 1 - eps, the others eps/(A - 1); ties: the lowest index",
    "seed 003 example 2 (read literally: 0.9 to the argmax)",
    .setting = &eg_exclude },
  { "lu-refine", "MDP-VPI", "V",
    "(I - gamma P_pi) V = R_pi solved by GSL's LU in binary64 and iterative "
      "refinement in the working precision (exactly rounded residuals)",
    "seed 003 §1 (Bellman expectation equation)",
    .setting = NULL },
  { "from-v", "MDP-QPI", "Q",
    "Q = r + gamma P V^pi, V^pi by the linear solve of MDP-VPI",
    "seed 003 §1 (Bellman expectation equation for Q)",
    .setting = NULL },
  { "policy-iteration", "MDP-OPT", "policy-iteration",
    "from action 0 everywhere: evaluate (MDP-VPI's solve), switch each "
      "state to the greedy action where it is better by more than 2^-(p/2) |Q|; stop when no "
      "state switches",
    "seed 003 §1 (Bellman optimality equation)",
    .setting = NULL },
  { "value-iteration", "MDP-OPT", "value-iteration",
    "k sweeps V <- max_a [r + gamma P V] from V_0 = 0, with the distance "
      "max |V_k - V*| beside the contraction bound gamma^k max |V_0 - V*|; V* by policy "
      "iteration",
    "seed 003 §1 (Q* is the fixed point of the optimality operator)",
    .setting = NULL },
  { "egreedy-include", "MDP-QL", "q-learning",
    "behaviour epsilon-greedy in Q, the draw (u1 < eps) over all actions: "
      "floor(u2 A); alpha = 1/n(s, a); s' the first state whose cumulative probability exceeds u3",
    "seed 003 §2 (Q-learning pseudo-code, epsilon-greedy)",
    .params = { { "eps", 0.1 } }, .setting = &eg_include },
  { "egreedy-exclude", "MDP-QL", "q-learning",
    "as egreedy-include, the draw over the A - 1 other actions: the "
      "floor(u2 (A - 1))-th of them",
    "seed 003 §2 (example 2 read literally)",
    .params = { { "eps", 0.1 } }, .setting = &eg_exclude },
  { "uniform", "MDP-QL", "q-learning",
    "behaviour uniformly random, floor(u2 A) (off-policy: the target is still the "
      "max)",
    "seed 003 §2 (Q-learning is off-policy)",
    .setting = NULL },
  { "theorem", "MDP-PG", "theorem",
    "grad J = sum_t gamma^t sum_s d_t(s) sum_b pi(b|s) (Q_t(s,b) - V_t(s)) "
      "e_{s,b} by dynamic programming (d_t the state distribution, Q_t, V_t with H - t steps "
      "left)",
    "seed 003 §2 (policy-gradient theorem, with the gamma^t of J)",
    .setting = NULL },
  { "full-return", "MDP-PG", "reinforce",
    "REINFORCE g = R(tau) sum_t grad log pi(a_t|s_t), R = sum_t gamma^t r_t: "
      "E g = grad J",
    "seed 000 (13.3); seed 003 §2 (first form)",
    .setting = &est_full },
  { "reward-to-go", "MDP-PG", "reinforce",
    "g = sum_t grad log pi(a_t|s_t) gamma^t G_t (causality: past rewards "
      "dropped): E g = grad J, smaller variance",
    "seed 000 (13.4) step 3; seed 003 §2",
    .setting = &est_to_go },
  { "baseline", "MDP-PG", "reinforce",
    "g = sum_t grad log pi(a_t|s_t) gamma^t (G_t - V_t(s_t)): the same "
      "expectation, smaller variance (the advantage form)",
    "seed 000 (13.4); seed 003 §2 "
      "(advantage)",
    .setting = &est_baseline },
  { "seed-003", "MDP-PG", "reinforce",
    "g = sum_t grad log pi(a_t|s_t) G_t, without gamma^t as seed 003 writes it: "
      "E g = grad J only for gamma = 1",
    "seed 003 §2 (its causal form omits gamma^t)",
    .setting = &est_seed003 },
  { "token-theorem", "MDP-PG", "token-theorem",
    "the token MDP of a tabular tiny LM (gamma = 1): grad E[r] with respect "
      "to the logits, exact (the library's objective gradient)",
    "seed 000 (13.2), §1.1",
    .setting = NULL },
  { "token-full-return", "MDP-PG", "token-reinforce",
    "token MDP: g = r(y) sum_t grad log pi(y_t|s_t) (13.3), over every "
      "sequence",
    "seed 000 (13.3)",
    .setting = &est_full },
  { "token-reward-to-go", "MDP-PG", "token-reinforce",
    "token MDP: g = sum_t grad log pi(y_t|s_t) sum_{k>=t} r_k (per-token "
      "rewards token[y_k] + per_length, truncated on a cut's last token)",
    "seed 000 (13.4)",
    .setting = &est_to_go },
  { "token-baseline", "MDP-PG", "token-reinforce",
    "token MDP: g = sum_t grad log pi(y_t|s_t) (sum_{k>=t} r_k - V(s_t)), "
      "V the exact value of the prefix",
    "seed 000 (13.4), (13.27)",
    .setting = &est_baseline },
  { "soft-bellman", "MDP-SOFT", "soft",
    "backwards over the prefixes: Q(s, a) = r(s, a) + V(s a), V(s) = beta log "
      "sum_a pi_ref(a|s) e^{Q(s,a)/beta}, pi*(a|s) = pi_ref(a|s) e^{(Q - V)/beta}",
    "catalogue MDP-SOFT (links 000 §4 to 003)",
    .setting = NULL },
  { "sequence", "MDP-SOFT", "soft",
    "from the sequence level: pi* = pi_ref e^{r/beta}/Z (13.17) as logits token by "
      "token (LM's pistar_logits), beta log Z by enumeration (13.15)",
    "seed 000 (13.15), (13.17)",
    .setting = &soft_sequence },
  { 0 },
};
