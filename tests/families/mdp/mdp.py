"""Markov decision processes, MDP-*: discounted returns and the effective horizon (003 §1, 000
§3.1 and the 1/(1 - gamma) horizon of its §13), the Q-learning update and its worked example
(003 §2, example 1), epsilon-greedy in both readings (003 example 2), GAE (000 eq. 13.11, 003)
under the conventions of CONVENTIONS.md "GAE, whitening, value loss" (TRL, verl, OpenRLHF),
Bellman expectation and optimality (003 §1), value and policy iteration, tabular Q-learning with
GSL's mt19937 stream, the policy-gradient theorem and the exact expectation of the REINFORCE
estimators (003 §2 PPO, 000 eq. 13.2-13.4), and the soft Bellman recursion of the token MDP
against the sequence-level optimum pi* = pi_ref e^{r/beta}/Z (000 eq. 13.15-13.17).

Everything is recomputed here from the definitions: polynomial quantities (returns, GAE) in
exact rationals of the binary64 inputs; linear systems with mpmath's LU at the working
precision; fixed points by policy iteration with exact linear solves; expectations by
enumerating every trajectory or every sequence.  Nothing is taken from the C code.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import M, Q, R, Reject, X, get_input, gsl_mt19937


# ----------------------------------------------------------------------------------------------
# Shared checks
# ----------------------------------------------------------------------------------------------

def finite_reals(values, name):
    for v in values:
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            raise Reject("ENAN", "non-finite value in %s" % name)


def gamma_of(inputs, params, lo_closed=True, hi_closed=True, name="gamma"):
    g = get_input(inputs, params, name)
    finite_reals([g], name)
    q = Fraction(g)
    if q < 0 or q > 1 or (not hi_closed and q == 1):
        raise Reject("EDOM", "%s = %r outside [0, 1%s" % (name, g, "]" if hi_closed else ")"))
    return g


def exact(v):
    """An exact rational of a real input (a double, or a Fraction when perturbed)."""
    return v if isinstance(v, Fraction) else Fraction(v)


# ----------------------------------------------------------------------------------------------
# MDP-RETURN: G_t = sum_k gamma^k r_{t+k} (003 §1) = r_t + gamma G_{t+1}, G_T = 0.
# Both variants are the same number; computed here once, exactly.
# ----------------------------------------------------------------------------------------------

def returns_exact(r, g):
    G = [Fraction(0)] * (len(r) + 1)
    for t in range(len(r) - 1, -1, -1):
        G[t] = r[t] + g * G[t + 1]
    return G[:-1]


def eval_return(variant, params, inputs, ctx):
    r = inputs["rewards"]
    if not r:
        raise Reject("EINVAL", "no rewards")
    finite_reals(r, "rewards")
    g = gamma_of(inputs, params)
    G = returns_exact([exact(x) for x in r], exact(g))
    # the sum form, independently: sum_k gamma^k r_{t+k}
    T = len(r)
    if T <= 64:
        for t in range(T):
            s = sum((exact(g) ** k * exact(r[t + k]) for k in range(T - t)), Fraction(0))
            if s != G[t]:
                raise AssertionError("sum and recursion differ")
    return {"G": [M(x) for x in G]}


# ----------------------------------------------------------------------------------------------
# MDP-HORIZON: sum_{k<H} gamma^k = (1 - gamma^H)/(1 - gamma); H infinite: 1/(1 - gamma).
# ----------------------------------------------------------------------------------------------

def eval_horizon(variant, params, inputs, ctx):
    if variant == "finite":
        g = gamma_of(inputs, params)
        H = inputs["H"]
        if H < 0:
            raise Reject("EDOM", "H < 0")
        gx = X(g)
        if gx == 1:
            return {"horizon": mpf(H)}
        if H == 0:
            return {"horizon": mpf(0)}
        if gx == 0:
            return {"horizon": mpf(1)}
        if H <= 2000:
            q = exact(g)
            return {"horizon": M((1 - q ** H) / (1 - q))}
        with mp.workprec(mp.prec + 64):
            v = -mp.expm1(H * mp.log(gx)) / (1 - gx)
        return {"horizon": +v}
    g = gamma_of(inputs, params, hi_closed=False)
    return {"horizon": M(1 / (1 - exact(g)))}


# ----------------------------------------------------------------------------------------------
# MDP-QL-EX1: y = r + gamma max_a' Q(s', a') (y = r at a terminal s'), Q <- Q + alpha (y - Q)
# (003 §2, the Q-learning update; its example 1).
# ----------------------------------------------------------------------------------------------

def eval_ql_ex1(variant, params, inputs, ctx):
    q, r, g, alpha = (inputs[k] for k in ("q", "r", "gamma", "alpha"))
    qn = inputs["q_next"]
    done = inputs["done"]
    finite_reals([q, r, g, alpha] + list(qn), "inputs")
    if done not in (0, 1):
        raise Reject("EDOM", "done must be 0 or 1")
    if not qn and not done:
        raise Reject("EINVAL", "no action values of s'")
    if not (0 <= exact(g) <= 1):
        raise Reject("EDOM", "gamma outside [0, 1]")
    if not (0 <= exact(alpha) <= 1):
        raise Reject("EDOM", "alpha outside [0, 1]")
    y = exact(r) if done else exact(r) + exact(g) * max(exact(x) for x in qn)
    new = exact(q) + exact(alpha) * (y - exact(q))
    return {"target": M(y), "q_new": M(new)}


# ----------------------------------------------------------------------------------------------
# MDP-EGREEDY (003 example 2): with probability 1 - eps the greedy action (lowest index of the
# maximum), with probability eps a uniformly random action among all A (include-greedy: the
# greedy gets 1 - eps + eps/A) or among the A - 1 others (exclude-greedy: exactly 1 - eps).
# ----------------------------------------------------------------------------------------------

def eval_egreedy(variant, params, inputs, ctx):
    q = inputs["q"]
    eps = inputs["eps"]
    if not q:
        raise Reject("EINVAL", "no actions")
    finite_reals(list(q) + [eps], "q/eps")
    e = exact(eps)
    if e < 0 or e > 1:
        raise Reject("EDOM", "eps outside [0, 1]")
    A = len(q)
    qs = [exact(x) for x in q]
    best = qs.index(max(qs))
    if variant == "exclude-greedy":
        if A == 1:
            raise Reject("EDOM", "exclude-greedy: no other action to explore")
        p = [e / (A - 1)] * A
        p[best] = 1 - e
    else:
        p = [e / A] * A
        p[best] = 1 - e + e / A
    return {"probs": [M(x) for x in p]}


# ----------------------------------------------------------------------------------------------
# MDP-GAE (000 eq. 13.11; CONVENTIONS.md "GAE"): B rows of width W; rewards, values, mask per
# position; score (one per row, or none) placed by the convention.
#   seed-000  per row the response is the prefix of ones of the mask; the score is added at its
#             last token; delta_t = r_t + gamma V_{t+1} - V_t with V after the last token 0;
#             A_t = sum_l (gamma lambda)^l delta_{t+l}; returns A + V; 0 at padding.
#   trl       TRL 1.10 PPOTrainer: the response ends at the first 0 of the mask, position n
#             (sequence_length = the first pad token - 1; a later 1 is padding too); every
#             column's reward is read (the GAE loop over rewards[:, t]); the score is added at
#             position n (one past the last token) when n < W, else at n - 1; values at
#             positions > n are 0 (masked_fill with padding_mask_p1: the value at position n is
#             kept); the recursion runs over the whole width with V after position W - 1 equal
#             to 0; returns = A + V.
#   verl      any mask; the score at the last position with mask 1; backwards with carried
#             next-value and advantage: at a masked position both are carried unchanged from
#             t + 1 (the advantage written there is the carried one); returns = A + V (values as
#             given).
#   openrlhf  any mask; the score clamped to [-10, 10] (compute_reward's reward.clip_range) at
#             the last position with mask 1; rewards and values multiplied by the mask, then
#             the plain recursion over the width; returns = A + V (masked values).
# Defaults: seed-000 gamma 1 (000 §1.1), lambda 0.95 (003); trl 1, 0.95; verl and openrlhf 1, 1.
# ----------------------------------------------------------------------------------------------

GAE_DEFAULTS = {
    "seed-000": (1.0, 0.95),
    "trl": (1.0, 0.95),
    "verl": (1.0, 1.0),
    "openrlhf": (1.0, 1.0),
}


def gae_check_params(variant, params):
    if variant not in GAE_DEFAULTS:
        return ["unknown GAE variant %r" % variant]
    g, l = GAE_DEFAULTS[variant]
    bad = []
    if params.get("gamma") != g:
        bad.append("gamma %r, CONVENTIONS.md says %r" % (params.get("gamma"), g))
    if params.get("lambda") != l:
        bad.append("lambda %r, CONVENTIONS.md says %r" % (params.get("lambda"), l))
    return bad


def gae_row(r, V, m, score, g, lam, variant):
    """One row: exact rationals; returns (adv, returns)."""
    W = len(r)
    ones = [t for t in range(W) if m[t]]
    if not ones:
        raise Reject("EINVAL", "a row without response tokens")
    prefix = ones == list(range(len(ones)))
    n = len(ones)
    r = list(r)
    V = list(V)
    if variant == "seed-000" and not prefix:
        raise Reject("EINVAL", "%s: the mask of a row must be ones then zeros" % variant)
    if variant == "seed-000":
        r[n - 1] += score
        adv = [Fraction(0)] * W
        nxt = Fraction(0)
        run = Fraction(0)
        for t in range(n - 1, -1, -1):
            d = r[t] + g * nxt - V[t]
            run = d + g * lam * run
            adv[t] = run
            nxt = V[t]
        ret = [adv[t] + V[t] if t < n else Fraction(0) for t in range(W)]
        return adv, ret
    if variant == "trl":
        n = list(m).index(0) if 0 in m else W      # the first pad token ends the response
        rr = list(r)
        rr[n if n < W else n - 1] += score
        VV = [V[t] if t <= n else Fraction(0) for t in range(W)]
        adv = [Fraction(0)] * W
        run = Fraction(0)
        for t in range(W - 1, -1, -1):
            nxt = VV[t + 1] if t < W - 1 else Fraction(0)
            run = rr[t] + g * nxt - VV[t] + g * lam * run
            adv[t] = run
        return adv, [adv[t] + VV[t] for t in range(W)]
    last = ones[-1]
    if variant == "openrlhf":
        score = min(max(score, Fraction(-10)), Fraction(10))   # r.clamp(-10, 10)
    r[last] += score
    if variant == "verl":
        adv = [Fraction(0)] * W
        nxt = Fraction(0)
        run = Fraction(0)
        for t in range(W - 1, -1, -1):
            d = r[t] + g * nxt - V[t]
            cand = d + g * lam * run
            if m[t]:
                nxt = V[t]
                run = cand
            adv[t] = run
        return adv, [adv[t] + V[t] for t in range(W)]
    if variant == "openrlhf":
        rr = [r[t] if m[t] else Fraction(0) for t in range(W)]
        VV = [V[t] if m[t] else Fraction(0) for t in range(W)]
        adv = [Fraction(0)] * W
        run = Fraction(0)
        for t in range(W - 1, -1, -1):
            nxt = VV[t + 1] if t < W - 1 else Fraction(0)
            run = rr[t] + g * nxt - VV[t] + g * lam * run
            adv[t] = run
        return adv, [adv[t] + VV[t] for t in range(W)]
    raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)


def eval_gae(variant, params, inputs, ctx):
    r, V, m, score = inputs["rewards"], inputs["values"], inputs["mask"], inputs["score"]
    W = inputs["W"]
    g = get_input(inputs, params, "gamma")
    lam = get_input(inputs, params, "lambda")
    N = len(r)
    if N == 0 or W <= 0 or N % W:
        raise Reject("EINVAL", "the rewards are not rows of W")
    if len(V) != N or len(m) != N:
        raise Reject("EINVAL", "rewards, values and mask differ in length")
    B = N // W
    if len(score) not in (0, B):
        raise Reject("EINVAL", "score must have one value per row, or none")
    finite_reals(list(r) + list(V) + list(score) + [g, lam], "inputs")
    if any(x not in (0, 1) for x in m):
        raise Reject("EDOM", "the mask holds 0 and 1 only")
    gq, lq = exact(g), exact(lam)
    if not (0 <= gq <= 1) or not (0 <= lq <= 1):
        raise Reject("EDOM", "gamma and lambda must lie in [0, 1]")
    adv, ret = [], []
    for b in range(B):
        sl = slice(b * W, (b + 1) * W)
        sc = exact(score[b]) if score else Fraction(0)
        a, rt = gae_row([exact(x) for x in r[sl]], [exact(x) for x in V[sl]], m[sl], sc, gq,
                        lq, variant)
        adv += a
        ret += rt
    return {"adv": [M(x) for x in adv], "returns": [M(x) for x in ret]}


# ----------------------------------------------------------------------------------------------
# Finite MDPs (003 §1): S states, A actions, P[(s A + a) S + s'] = P(s'|s, a), r[s A + a] =
# r(s, a), pi[s A + a] = pi(a|s), terminal states (value 0; their rows of P and r must be 0).
# A probability row (of P for a non-terminal state, of pi) is >= 0 and sums to 1 within
# n 2^-52 for n entries.  gamma in [0, 1).
# ----------------------------------------------------------------------------------------------

def prob_row(row, what):
    if any(x < 0 for x in row):
        raise Reject("EDOM", "a negative probability in %s" % what)
    if abs(sum(row, Fraction(0)) - 1) > Fraction(len(row), 2 ** 52):
        raise Reject("EDOM", "%s does not sum to 1" % what)


class Mdp:
    """The inputs of an MDP formula as exact rationals, checked."""

    def __init__(self, inputs, params, with_pi=False, gamma_name="gamma"):
        S, A = inputs["S"], inputs["A"]
        if S < 1 or A < 1:
            raise Reject("EDOM", "S and A must be >= 1")
        P, r = inputs["P"], inputs["R"]
        if len(P) != S * A * S or len(r) != S * A:
            raise Reject("EINVAL", "P must hold S A S values and R S A")
        term = inputs.get("terminal", [])
        if any(t < 0 or t >= S for t in term) or len(set(term)) != len(term):
            raise Reject("EINVAL", "terminal states must be distinct states")
        pi = inputs["pi"] if with_pi else []
        if with_pi and len(pi) != S * A:
            raise Reject("EINVAL", "pi must hold S A values")
        finite_reals(list(P) + list(r) + list(pi), "P/R/pi")
        g = get_input(inputs, params, gamma_name)
        finite_reals([g], "gamma")
        self.S, self.A = S, A
        self.term = set(term)
        self.P = [exact(x) for x in P]
        self.r = [exact(x) for x in r]
        self.pi = [exact(x) for x in pi]
        for s in range(S):
            for a in range(A):
                row = self.P[(s * A + a) * S:(s * A + a + 1) * S]
                if s in self.term:
                    if any(row) or self.r[s * A + a] != 0:
                        raise Reject("EINVAL", "terminal state %d has transitions or rewards" % s)
                else:
                    prob_row(row, "P(.|%d,%d)" % (s, a))
            if with_pi and s not in self.term:
                prob_row(self.pi[s * A:(s + 1) * A], "pi(.|%d)" % s)
        self.g = exact(g)
        if not (0 <= self.g < 1):
            raise Reject("EDOM", "gamma must lie in [0, 1) for an infinite horizon")

    def p(self, s, a, t):
        return self.P[(s * self.A + a) * self.S + t]

    def q_of(self, V):
        """Q(s, a) = r(s, a) + gamma sum_s' P(s'|s, a) V(s'); 0 at terminal states."""
        S, A = self.S, self.A
        return [Fraction(0) if s in self.term else
                self.r[s * A + a] + self.g * sum((self.p(s, a, t) * V[t] for t in range(S)),
                                                 Fraction(0))
                for s in range(S) for a in range(A)]

    def evaluate(self, pol):
        """V^pi for a policy given as probabilities pol[s A + a]: the linear system
        (I - gamma P_pi) V = R_pi over the non-terminal states, solved exactly (Gauss-Jordan
        over the rationals)."""
        S, A = self.S, self.A
        live = [s for s in range(S) if s not in self.term]
        n = len(live)
        Mx = []
        for i, s in enumerate(live):
            row = []
            for t in live:
                pp = sum((pol[s * A + a] * self.p(s, a, t) for a in range(A)), Fraction(0))
                row.append((1 if s == t else 0) - self.g * pp)
            row.append(sum((pol[s * A + a] * self.r[s * A + a] for a in range(A)), Fraction(0)))
            Mx.append(row)
        for k in range(n):
            piv = next(i for i in range(k, n) if Mx[i][k] != 0)
            Mx[k], Mx[piv] = Mx[piv], Mx[k]
            pv = Mx[k][k]
            Mx[k] = [x / pv for x in Mx[k]]
            for i in range(n):
                if i != k and Mx[i][k] != 0:
                    f = Mx[i][k]
                    Mx[i] = [x - f * y for x, y in zip(Mx[i], Mx[k])]
        V = [Fraction(0)] * S
        for i, s in enumerate(live):
            V[s] = Mx[i][n]
        return V

    def deterministic(self, acts):
        pol = [Fraction(0)] * (self.S * self.A)
        for s, a in enumerate(acts):
            pol[s * self.A + a] = Fraction(1)
        return pol

    def optimal(self):
        """Policy iteration in exact arithmetic from action 0 everywhere: evaluate, then in
        each state switch to the lowest-index maximiser of Q only if it is strictly better than
        the current action; stop when no state switches.  Returns V*, Q*, the number of
        improvement steps that changed the policy."""
        acts = [0] * self.S
        steps = 0
        while True:
            V = self.evaluate(self.deterministic(acts))
            Qv = self.q_of(V)
            changed = False
            for s in range(self.S):
                qs = Qv[s * self.A:(s + 1) * self.A]
                best = qs.index(max(qs))
                if qs[best] > qs[acts[s]]:
                    acts[s] = best
                    changed = True
            if not changed:
                return V, Qv, steps
            steps += 1
            if steps > 10000:
                raise AssertionError("policy iteration does not stop")


def eval_vpi(variant, params, inputs, ctx):
    m = Mdp(inputs, params, with_pi=True)
    return {"V": [M(x) for x in m.evaluate(m.pi)]}


def eval_qpi(variant, params, inputs, ctx):
    m = Mdp(inputs, params, with_pi=True)
    return {"Q": [M(x) for x in m.q_of(m.evaluate(m.pi))]}


def eval_opt(variant, params, inputs, ctx):
    m = Mdp(inputs, params)
    V, Qv, steps = m.optimal()
    if variant == "value-iteration":
        k = inputs["k"]
        if k < 0:
            raise Reject("EDOM", "k < 0")
        Vk = [Fraction(0)] * m.S
        for _ in range(k):
            Qk = m.q_of(Vk)
            Vk = [Fraction(0) if s in m.term else max(Qk[s * m.A:(s + 1) * m.A])
                  for s in range(m.S)]
        err = max(abs(a - b) for a, b in zip(Vk, V))
        bound = m.g ** k * max(abs(x) for x in V)
        return {"V": [M(x) for x in V], "Vk": [M(x) for x in Vk], "error": M(err),
                "bound": M(bound)}
    pol = []
    for s in range(m.S):
        qs = Qv[s * m.A:(s + 1) * m.A]
        pol.append(mpf(qs.index(max(qs))))
    return {"V": [M(x) for x in V], "Q": [M(x) for x in Qv], "policy": pol,
            "steps": mpf(steps)}


# ----------------------------------------------------------------------------------------------
# MDP-QL (003 §2): tabular Q-learning on an MDP, driven by GSL's mt19937 stream.
#   GSL seeds mt19937 with Knuth's initialisation (seed 0 means 4357), and gsl_rng_uniform is
#   one 32-bit output divided by 2^32; Python's random module is the same Mersenne Twister, so
#   its state is set here from that initialisation and getrandbits(32) gives the same outputs.
#   Each step draws u1, u2, u3: the behaviour action is greedy (lowest index of max_a Q(s, a))
#   unless u1 < eps, when it is floor(u2 A) (include) or the floor(u2 (A - 1))-th of the other
#   actions (exclude); the uniform variant always takes floor(u2 A).  s' is the first state
#   whose cumulative probability exceeds u3 (exact comparison; the last state of positive
#   probability if none).  n(s, a) += 1, alpha = 1/n(s, a) (Robbins-Monro), y = r(s, a) +
#   gamma max_a' Q(s', a') (r at a terminal s'), Q(s, a) += alpha (y - Q(s, a)); a terminal s'
#   restarts the episode at the start state.
# ----------------------------------------------------------------------------------------------


def qlearn(m, start, steps, seed, eps, kind):
    """Returns the list of Q (mpf) after the run."""
    rng = gsl_mt19937(seed)
    S, A = m.S, m.A
    Qv = [mpf(0)] * (S * A)
    n = [0] * (S * A)
    g = M(m.g)
    s = start
    for _ in range(steps):
        k1, k2, k3 = (rng.getrandbits(32) for _ in range(3))
        qs = Qv[s * A:(s + 1) * A]
        best = qs.index(max(qs))
        if kind == "uniform":
            a = (k2 * A) >> 32
        elif Fraction(k1, 2 ** 32) < eps:
            if kind == "include":
                a = (k2 * A) >> 32
            else:
                j = (k2 * (A - 1)) >> 32
                a = j if j < best else j + 1
        else:
            a = best
        u3 = Fraction(k3, 2 ** 32)
        c = Fraction(0)
        nxt = None
        last = None
        for t in range(S):
            pt = m.p(s, a, t)
            if pt > 0:
                last = t
            c += pt
            if u3 < c:
                nxt = t
                break
        if nxt is None:
            nxt = last
        i = s * A + a
        n[i] += 1
        if nxt in m.term:
            y = M(m.r[i])
        else:
            y = M(m.r[i]) + g * max(Qv[nxt * A:(nxt + 1) * A])
        Qv[i] = Qv[i] + (y - Qv[i]) / n[i]
        s = start if nxt in m.term else nxt
    return Qv


QL_KIND = {"egreedy-include": "include", "egreedy-exclude": "exclude", "uniform": "uniform"}


def eval_ql(variant, params, inputs, ctx):
    m = Mdp(inputs, params)
    start, steps, seed = inputs["start"], inputs["steps"], inputs["seed"]
    if start < 0 or start >= m.S:
        raise Reject("EINVAL", "start is not a state")
    if start in m.term:
        raise Reject("EDOM", "the start state is terminal")
    if steps < 0 or steps > 10 ** 7:
        raise Reject("EDOM", "steps must be 0 to 1e7")
    if seed < 0 or seed > 0xffffffff:
        raise Reject("EDOM", "seed must be 0 to 2^32 - 1")
    kind = QL_KIND[variant]
    eps = Fraction(0)
    if kind != "uniform":
        e = get_input(inputs, params, "eps")
        finite_reals([e], "eps")
        eps = exact(e)
        if eps < 0 or eps > 1:
            raise Reject("EDOM", "eps outside [0, 1]")
        if kind == "exclude" and m.A == 1 and eps > 0:
            raise Reject("EDOM", "exclude-greedy: no other action to explore")
    Qv = qlearn(m, start, steps, seed, eps, kind)
    _, Qs, _ = m.optimal()
    err = max(abs(a - M(b)) for a, b in zip(Qv, Qs))
    return {"Q": Qv, "error": err}


# ----------------------------------------------------------------------------------------------
# MDP-PG (003 §2 "policy-gradient theorem"; 000 eq. 13.2-13.4): a finite horizon H, start
# distribution rho, tabular softmax policy pi(a|s) = softmax(theta_s), reward r(s, a) at each
# step, J = E[sum_{t<H} gamma^t r_t].  grad log pi(a|s) w.r.t. theta_{s,b} = delta_ab - pi(b|s).
#   theorem         grad J = sum_t gamma^t sum_s d_t(s) sum_b pi(b|s) (Q_t(s, b) - V_t(s)) e_{s,b}
#                   (dynamic programming: d_t the state distribution, V_t, Q_t the values
#                   with H - t steps left)
#   full-return     E[R(tau) sum_t grad log pi(a_t|s_t)], R = sum_t gamma^t r_t
#   reward-to-go    E[sum_t grad log pi(a_t|s_t) gamma^t G_t], G_t = sum_{k>=t} gamma^{k-t} r_k
#   baseline        E[sum_t grad log pi(a_t|s_t) gamma^t (G_t - V_t(s_t))]
#   seed-003        E[sum_t grad log pi(a_t|s_t) G_t] (003 omits gamma^t: grad J only at gamma 1)
# Every expectation by enumerating every trajectory; var = E|g - E g|^2.
# The token MDP of a tabular tiny LM (000 13.2-13.4, gamma = 1, reward per token
# token[y_t] + per_length, + truncated on the last token of a cut sequence): the same with the
# sequences as trajectories; token-theorem grad E[r].
# ----------------------------------------------------------------------------------------------

def softmax_rows(theta, S, A):
    pi = []
    for s in range(S):
        row = [X(x) for x in theta[s * A:(s + 1) * A]]
        mx = max(row)
        e = [mp.exp(x - mx) for x in row]
        z = mp.fsum(e)
        pi += [x / z for x in e]
    return pi


def pg_inputs(inputs, params):
    S, A, H = inputs["S"], inputs["A"], inputs["H"]
    if S < 1 or A < 1:
        raise Reject("EDOM", "S and A must be >= 1")
    P, r, rho, theta = inputs["P"], inputs["R"], inputs["rho"], inputs["theta"]
    if len(P) != S * A * S or len(r) != S * A or len(rho) != S or len(theta) != S * A:
        raise Reject("EINVAL", "P, R, rho, theta: S A S, S A, S, S A values")
    finite_reals(list(P) + list(r) + list(rho) + list(theta), "P/R/rho/theta")
    g = inputs["gamma"]
    finite_reals([g], "gamma")
    if exact(g) < 0:
        raise Reject("EDOM", "gamma < 0 (a finite horizon takes any gamma >= 0)")
    if H < 1 or H > 64:
        raise Reject("EDOM", "H must be 1 to 64")
    for s in range(S):
        for a in range(A):
            prob_row([exact(x) for x in P[(s * A + a) * S:(s * A + a + 1) * S]],
                     "P(.|%d,%d)" % (s, a))
    prob_row([exact(x) for x in rho], "rho")
    if S * (S * A) ** H > 2e6:
        raise Reject("EINVAL", "too many trajectories to enumerate", firm=False)
    return S, A, H, [X(x) for x in P], [X(x) for x in r], [X(x) for x in rho], theta, X(g)


def pg_values(S, A, H, P, r, pi, g):
    """V[t][s], Q[t][s*A + a] with H - t steps left (V[H] = 0)."""
    V = [[mpf(0)] * S for _ in range(H + 1)]
    Qt = [[mpf(0)] * (S * A) for _ in range(H)]
    for t in range(H - 1, -1, -1):
        for s in range(S):
            for a in range(A):
                Qt[t][s * A + a] = r[s * A + a] + g * mp.fsum(
                    P[(s * A + a) * S + u] * V[t + 1][u] for u in range(S))
            V[t][s] = mp.fsum(pi[s * A + a] * Qt[t][s * A + a] for a in range(A))
    return V, Qt


def eval_pg_theorem(S, A, H, P, r, rho, pi, g):
    V, Qt = pg_values(S, A, H, P, r, pi, g)
    d = list(rho)
    grad = [mpf(0)] * (S * A)
    for t in range(H):
        for s in range(S):
            for b in range(A):
                grad[s * A + b] += g ** t * d[s] * pi[s * A + b] * (Qt[t][s * A + b] - V[t][s])
        d = [mp.fsum(d[s] * pi[s * A + a] * P[(s * A + a) * S + u]
                     for s in range(S) for a in range(A)) for u in range(S)]
    J = mp.fsum(rho[s] * V[0][s] for s in range(S))
    return J, grad


def pg_coefs(est, rew, g, base):
    """c_t of the estimator from the step rewards of one trajectory."""
    n = len(rew)
    G = [mpf(0)] * (n + 1)
    for t in range(n - 1, -1, -1):
        G[t] = rew[t] + g * G[t + 1]
    if est == "full":
        R0 = G[0]
        return [R0] * n
    if est == "to-go":
        return [g ** t * G[t] for t in range(n)]
    if est == "baseline":
        return [g ** t * (G[t] - base[t]) for t in range(n)]
    return [G[t] for t in range(n)]


def moments_of(samples, dim):
    """samples: (prob, vector); the mean vector and E|x - mean|^2."""
    mean = [mp.fsum(p * v[i] for p, v in samples) for i in range(dim)]
    var = mp.fsum(p * mp.fsum((v[i] - mean[i]) ** 2 for i in range(dim)) for p, v in samples)
    return mean, var


PG_EST = {"full-return": "full", "reward-to-go": "to-go", "baseline": "baseline",
          "seed-003": "seed", "token-full-return": "full", "token-reward-to-go": "to-go",
          "token-baseline": "baseline"}


def eval_pg(variant, params, inputs, ctx):
    if variant.startswith("token-"):
        return eval_pg_token(variant, params, inputs, ctx)
    S, A, H, P, r, rho, theta, g = pg_inputs(inputs, params)
    pi = softmax_rows(theta, S, A)
    if variant == "theorem":
        J, grad = eval_pg_theorem(S, A, H, P, r, rho, pi, g)
        return {"J": J, "grad": grad}
    V, _ = pg_values(S, A, H, P, r, pi, g)
    est = PG_EST[variant]
    samples = []

    def walk(t, s, prob, path):
        for a in range(A):
            pa = prob * pi[s * A + a]
            if pa == 0:
                continue
            step = path + [(s, a)]
            if t + 1 == H:
                rew = [r[u * A + b] for u, b in step]
                c = pg_coefs(est, rew, g, [V[k][u] for k, (u, _) in enumerate(step)])
                vec = [mpf(0)] * (S * A)
                for k, (u, b) in enumerate(step):
                    for bb in range(A):
                        vec[u * A + bb] += c[k] * ((1 if bb == b else 0) - pi[u * A + bb])
                samples.append((pa, vec))
            else:
                for u in range(S):
                    pu = pa * P[(s * A + a) * S + u]
                    if pu != 0:
                        walk(t + 1, u, pu, step)

    for s in range(S):
        if rho[s] != 0:
            walk(0, s, rho[s], [])
    mean, var = moments_of(samples, S * A)
    return {"grad": mean, "var": var}


class TinyLM:
    """A tabular tiny LM (README "The tiny language model"): V tokens, EOS eos, length limit T,
    cut sequences kept; logits one row of V per prefix without EOS shorter than T, prefixes by
    length and then in lexicographic order of their tokens; reward = V token rewards,
    per_length, truncated."""

    def __init__(self, inputs, logits_key="logits"):
        V, eos, T = inputs["V"], inputs["eos"], inputs["T"]
        if V < 2 or V > 64 or eos < 0 or eos >= V or T < 1 or T > 12:
            raise Reject("EDOM", "V, eos or T out of range")
        self.V, self.eos, self.T = V, eos, T
        rows = sum((V - 1) ** t for t in range(T))
        lg = inputs[logits_key]
        if len(lg) != rows * V:
            raise Reject("EINVAL", "the logits are not one row of V per prefix")
        rw = inputs["reward"]
        if len(rw) != V + 2:
            raise Reject("EINVAL", "the reward holds V token rewards, per_length, truncated")
        finite_reals(list(lg) + list(rw), "logits/reward")
        self.rows = rows
        self.logits = [X(x) for x in lg]
        self.rew = [X(x) for x in rw]
        self.lsm = []
        for k in range(rows):
            row = self.logits[k * V:(k + 1) * V]
            mx = max(row)
            z = mx + mp.log(mp.fsum(mp.exp(x - mx) for x in row))
            self.lsm.append([x - z for x in row])

    def row_of(self, prefix):
        k = 0
        for a in prefix:
            k = k * (self.V - 1) + (a if a < self.eos else a - 1)
        return sum((self.V - 1) ** t for t in range(len(prefix))) + k

    def step_reward(self, prefix, a):
        """token[a] + per_length, + truncated when this token cuts the sequence."""
        x = self.rew[a] + self.rew[self.V]
        if a != self.eos and len(prefix) + 1 == self.T:
            x += self.rew[self.V + 1]
        return x

    def ends(self, prefix, a):
        return a == self.eos or len(prefix) + 1 == self.T

    def sequences(self):
        """(tokens, log prob) of every outcome."""
        out = []

        def walk(prefix, lp):
            row = self.lsm[self.row_of(prefix)]
            for a in range(self.V):
                y = prefix + (a,)
                if self.ends(prefix, a):
                    out.append((y, lp + row[a]))
                else:
                    walk(y, lp + row[a])
        walk((), mpf(0))
        return out

    def values(self):
        """V(prefix) = E[sum of the remaining step rewards | prefix] under the model."""
        memo = {}

        def val(prefix):
            row = self.lsm[self.row_of(prefix)]
            v = mpf(0)
            for a in range(self.V):
                q = self.step_reward(prefix, a)
                if not self.ends(prefix, a):
                    q += val(prefix + (a,))
                v += mp.exp(row[a]) * q
            memo[prefix] = v
            return v
        val(())
        return memo


def eval_pg_token(variant, params, inputs, ctx):
    m = TinyLM(inputs)
    V = m.V
    seqs = m.sequences()
    if variant == "token-theorem":
        # grad E[r] = sum_y pi(y) r(y) grad log pi(y) (the score identity, 13.2-13.3)
        J = mpf(0)
        grad = [mpf(0)] * (m.rows * V)
        for y, lp in seqs:
            p = mp.exp(lp)
            R = mp.fsum(m.step_reward(y[:t], y[t]) for t in range(len(y)))
            J += p * R
            for t in range(len(y)):
                k = m.row_of(y[:t])
                for b in range(V):
                    grad[k * V + b] += p * R * ((1 if b == y[t] else 0) - mp.exp(m.lsm[k][b]))
        return {"J": J, "grad": grad}
    est = PG_EST[variant]
    vals = m.values() if est == "baseline" else {}
    samples = []
    for y, lp in seqs:
        rew = [m.step_reward(y[:t], y[t]) for t in range(len(y))]
        c = pg_coefs(est, rew, mpf(1), [vals.get(y[:t]) for t in range(len(y))])
        vec = [mpf(0)] * (m.rows * V)
        for t in range(len(y)):
            k = m.row_of(y[:t])
            for b in range(V):
                vec[k * V + b] += c[t] * ((1 if b == y[t] else 0) - mp.exp(m.lsm[k][b]))
        samples.append((mp.exp(lp), vec))
    mean, var = moments_of(samples, m.rows * V)
    return {"grad": mean, "var": var}


# ----------------------------------------------------------------------------------------------
# MDP-SOFT: the KL-regularised (soft) Bellman recursion on the token MDP of a tabular tiny LM
# (cut sequences kept, gamma 1): Q(s, a) = r(s, a) + V(s a) (V = 0 after EOS or a cut),
# V(s) = beta log sum_a pi_ref(a|s) e^{Q(s, a)/beta}, pi*(a|s) = pi_ref(a|s) e^{(Q - V)/beta}.
# Checked here against the sequence level: V(root) = beta log Z, Z = sum_y pi_ref(y) e^{r(y)/beta}
# (000 13.15), and prod_t pi*(y_t|s_t) = pi_ref(y) e^{r(y)/beta}/Z (13.17) for every y.
# ----------------------------------------------------------------------------------------------

def eval_soft(variant, params, inputs, ctx):
    """With the working precision raised by |log2 beta|: Q/beta beside log pi_ref keeps its
    digits only in the bits beyond that."""
    beta = inputs["beta"]
    finite_reals([beta], "beta")
    if not beta > 0:
        raise Reject("EDOM", "beta must be > 0")
    outer = mp.prec
    with mp.workprec(mp.prec + abs(int(mp.frexp(X(beta))[1])) + 64):
        return eval_soft_at(variant, params, inputs, ctx, outer)


def eval_soft_at(variant, params, inputs, ctx, outer):
    m = TinyLM(inputs, "ref_logits")
    beta = inputs["beta"]
    b = X(beta)
    V = m.V
    logp = [mpf(0)] * (m.rows * V)

    def soft(prefix):
        k = m.row_of(prefix)
        row = m.lsm[k]
        qs = []
        for a in range(V):
            q = m.step_reward(prefix, a)
            if not m.ends(prefix, a):
                q += soft(prefix + (a,))
            qs.append(q)
        xs = [row[a] + qs[a] / b for a in range(V)]
        mx = max(xs)
        v = b * (mx + mp.log(mp.fsum(mp.exp(x - mx) for x in xs)))
        for a in range(V):
            logp[k * V + a] = row[a] + (qs[a] - v) / b
        return v

    v_root = soft(())
    # the sequence level, independently
    seqs = m.sequences()
    terms = [lp + mp.fsum(m.step_reward(y[:t], y[t]) for t in range(len(y))) / b
             for y, lp in seqs]
    mx = max(terms)
    logZ = mx + mp.log(mp.fsum(mp.exp(x - mx) for x in terms))
    if abs(b * logZ - v_root) > (abs(v_root) + 1) * mpf(2) ** (-outer + 40):
        raise AssertionError("soft Bellman V(root) != beta log Z")
    for (y, lp), tr in zip(seqs, terms):
        tok = mp.fsum(logp[m.row_of(y[:t]) * V + y[t]] for t in range(len(y)))
        if abs(tok - (tr - logZ)) > (abs(tok) + 1) * mpf(2) ** (-outer + 40):
            raise AssertionError("token-level pi* differs from the sequence-level pi*")
    return {"v_root": v_root, "logp_star": logp}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py)
# ----------------------------------------------------------------------------------------------

def mdp_seed_examples(run):
    label = "003 example 1 (Q-learning update)"
    ex = {"q": 0.5, "r": 1.0, "gamma": 0.99, "alpha": 0.1, "q_next": [0.3, 0.8], "done": 0}
    run.printed("MDP-QL-EX1", "seed-003", ex, "target", None, "1.792", label)
    run.printed("MDP-QL-EX1", "seed-003", ex, "q_new", None, "0.6292", label)
    label = "003 example 2 (epsilon-greedy, eps 0.1, 3 actions)"
    eg = {"q": [0.2, 0.9, 0.5], "eps": 0.1}
    run.exact("MDP-EGREEDY", "include-greedy", eg, "probs", 1,
              lambda: 1 - mpf(0.1) + mpf(0.1) / 3, label + ": 0.9 + 0.1/3 (eps the double 0.1)")
    run.printed("MDP-EGREEDY", "exclude-greedy", eg, "probs", 1, "0.9", label + ": 0.9")
    run.printed("MDP-EGREEDY", "exclude-greedy", eg, "probs", 0, "0.05", label)
    label = "catalogue MDP-HORIZON: gamma 0.99 -> 100"
    run.printed("MDP-HORIZON", "infinite", {"gamma": 0.99}, "horizon", None, "100", label)


def gae_detectors(run):
    label = "CONVENTIONS.md GAE detector (gamma 1, lambda 0.95)"
    base = {"rewards": [0.0, 0.0, 1.0], "values": [0.1, 0.2, 0.3], "mask": [1, 1, 1],
            "score": [], "W": 3}
    for v in ("seed-000", "trl", "verl", "openrlhf"):
        want = dict(base)
        # a parameter that differs from the variant's default is written in the inputs
        if GAE_DEFAULTS[v][0] != 1.0:
            want["gamma"] = 1.0
        if GAE_DEFAULTS[v][1] != 0.95:
            want["lambda"] = 0.95
        for i, printed in enumerate(("0.82675", "0.765", "0.7")):
            run.printed("MDP-GAE", v, want, "adv", i, printed, label)
    # the libraries' defaults: the case without gamma and lambda in its inputs
    label = "CONVENTIONS.md GAE defaults (verl, OpenRLHF lambda 1: A = [0.9, 0.8, 0.7])"
    data = run.load("MDP-GAE")
    if data is None:
        return
    for v in ("verl", "openrlhf"):
        found = None
        for grp in data.get("testGroups", []):
            if grp.get("variant") != v:
                continue
            for t in grp.get("tests", []):
                raw = t.get("inputs", {})
                if "lambda" in raw or "gamma" in raw or t.get("result") != "valid":
                    continue
                if all(k in raw and [float.fromhex(x["hex"]) for x in raw[k]] == base[k]
                       for k in ("rewards", "values")) and raw.get("mask") == [1, 1, 1]:
                    found = t
        if found is None:
            run.fail("%s: MDP-GAE %s: no case with the defaults" % (label, v))
            continue
        for i, want in enumerate(("0.9", "0.8", "0.7")):
            got = mpf(found["outputs"]["adv"][i]["value"])
            if abs(got - mpf(want)) <= mpf(10) ** -25:
                run.ok("%s: MDP-GAE %s tcId %s adv[%d] = %s" % (label, v, found["tcId"], i, want))
            else:
                run.fail("%s: MDP-GAE %s tcId %s adv[%d] = %s, printed %s"
                         % (label, v, found["tcId"], i, mp.nstr(got, 12), want))


DETECTORS = [mdp_seed_examples, gae_detectors]


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400
# ----------------------------------------------------------------------------------------------

def selftest(t):
    # GAE at lambda = 0 is the TD error, at lambda = 1 the return minus V (000 13.11)
    r = [Fraction(1, 10), Fraction(-3, 10), Fraction(2)]
    V = [Fraction(1, 2), Fraction(1, 4), Fraction(-1, 8)]
    g = Fraction(9, 10)
    a0, _ = gae_row(r, V, [1, 1, 1], Fraction(0), g, Fraction(0), "seed-000")
    td = [r[k] + g * (V[k + 1] if k + 1 < 3 else 0) - V[k] for k in range(3)]
    t.true("GAE lambda 0 = TD error", a0 == td)
    a1, _ = gae_row(r, V, [1, 1, 1], Fraction(0), g, Fraction(1), "seed-000")
    G = returns_exact(r, g)
    t.true("GAE lambda 1 = G - V", a1 == [G[k] - V[k] for k in range(3)])
    # Bellman: V^pi of the exact solve satisfies its own equation
    m = Mdp({"S": 2, "A": 2, "P": [0.7, 0.3, 0.2, 0.8, 0.4, 0.6, 0.9, 0.1],
             "R": [1.0, 0.0, -0.5, 2.0], "pi": [0.5, 0.5, 0.25, 0.75], "terminal": [],
             "gamma": 0.9}, {}, with_pi=True)
    Vp = m.evaluate(m.pi)
    Qp = m.q_of(Vp)
    t.true("V = sum_a pi Q", all(Vp[s] == m.pi[2 * s] * Qp[2 * s] + m.pi[2 * s + 1] * Qp[2 * s + 1]
                                 for s in range(2)))
    Vs, Qs, _ = m.optimal()
    t.true("V* = max_a Q*", all(Vs[s] == max(Qs[2 * s:2 * s + 2]) for s in range(2)))
    # the mt19937 stream is GSL's (seed 1: 1791095845, 4282876139, 3093770124)
    rng = gsl_mt19937(1)
    t.true("GSL mt19937 seed 1", [rng.getrandbits(32) for _ in range(3)]
           == [1791095845, 4282876139, 3093770124])


SELFTESTS = [selftest]


# ----------------------------------------------------------------------------------------------
# The family's registry
# ----------------------------------------------------------------------------------------------

EVALUATORS = {
    "MDP-RETURN": eval_return,
    "MDP-HORIZON": eval_horizon,
    "MDP-QL-EX1": eval_ql_ex1,
    "MDP-EGREEDY": eval_egreedy,
    "MDP-GAE": eval_gae,
    "MDP-VPI": eval_vpi,
    "MDP-QPI": eval_qpi,
    "MDP-OPT": eval_opt,
    "MDP-QL": eval_ql,
    "MDP-PG": eval_pg,
    "MDP-SOFT": eval_soft,
}

PARAM_CHECKS = {
    "MDP-GAE": gae_check_params,
}
