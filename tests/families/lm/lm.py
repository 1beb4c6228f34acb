"""The tiny language model, LM-ENUM, LM-CHAIN, LM-EXACT and LM-DP (000 eq. 13.1, 13.13-13.17;
catalogue LM-*, KLOPT-*), from the definitions of the golden files and README.md "The tiny
language model".

A model has V tokens, one of them EOS, and a maximum length T.  A sequence ends at its first EOS
(its length counts the EOS) or is cut after T tokens without one.  pi_ref(y) is the product of
the next-token softmax probabilities along y (13.1).  Variant `keep`: every sequence, cut ones
included, is an outcome (the mass is 1).  Variant `condition`: only EOS-ended sequences, each
with pi_ref(y)/P(EOS within T).  Parameterisations: `bigram`, (V + 1) rows of V logits, row s
the state after token s, row V the start; `tabular`, one row per prefix without EOS shorter than
T, by length, then lexicographically in the token numbers.  Additive reward r(y) = sum_t
token[y_t] + per_length * len(y) + truncated * [y cut]; input `reward` is the V token rewards,
then per_length, then truncated.  pi* = pi_ref e^{r/beta}/Z (13.15, 13.17).

Every output is computed by enumerating the outcomes one by one; for a bigram model the same
quantities are also computed by a dynamic programme over (tokens emitted, state), and the two
must agree (LM-DP's primary value is the programme, which reaches T = 24; enumeration joins it
when the model is small).  The grad-* variants of LM-EXACT (a policy against a reference: E[r],
both KLs, the RLHF objective, the population DPO and IPO losses, and their exact gradients in the
policy's logits) are sums over the enumerated outcomes and their pairs, the gradients by the
score function d log pi(y)/d logits.  Every sum is over exact binary64 inputs at the working
precision.
"""

import itertools
import math
import random
from fractions import Fraction

from mpmath import mp, mpf

from xcore import is_int, Ctx, Reject, X, log_sigmoid, logsumexp, sigmoid

VMAX = 64                 # the inputs' documented range of V: 2 to 64
ENUM_LIMIT = 2 * 10 ** 5  # outcomes enumerated here; beyond, a bigram model uses the programme


# ----------------------------------------------------------------------------------------------
# Reading and checking a model
# ----------------------------------------------------------------------------------------------

def real_of(v, name):
    """An exact mpf of a real input; NaN and +-inf are rejected (ENAN)."""
    if isinstance(v, Fraction):
        return X(v)
    if not isinstance(v, (float, int)) or isinstance(v, bool):
        raise Reject("EINVAL", "%s is not a number" % name)
    if math.isnan(v):
        raise Reject("ENAN", "NaN in %s" % name)
    if math.isinf(v):
        raise Reject("ENAN", "infinite value in %s" % name)
    return X(v)


def prefix_rows(V, T):
    """The number of prefixes without EOS shorter than T: sum_{t<T} (V-1)^t."""
    return sum((V - 1) ** t for t in range(T))


def outcome_count(V, T, keep):
    """sum_{t<T} (V-1)^t EOS-ended sequences, + (V-1)^T cut ones when they are kept."""
    return prefix_rows(V, T) + ((V - 1) ** T if keep else 0)


def read_variant(formula, variant):
    """(parameterisation, keep) from the variant name; an unknown name is not guessed."""
    v = variant or ""
    if formula == "LM-CHAIN":
        if v not in ("bigram", "tabular"):
            raise ValueError("LM-CHAIN: unknown variant %r" % variant)
        return v, None
    if formula == "LM-DP":
        if v not in ("keep", "condition"):
            raise ValueError("LM-DP: unknown variant %r" % variant)
        return "bigram", v == "keep"
    if formula == "LM-EXACT" and v.startswith("grad-"):
        return read_grad_variant(v)
    parts = v.split("-")
    if len(parts) != 2 or parts[0] not in ("bigram", "tabular") or \
            parts[1] not in ("keep", "condition"):
        raise ValueError("%s: unknown variant %r" % (formula, variant))
    return parts[0], parts[1] == "keep"


class Model:
    """V, eos, T; the log-softmax of every row at the working precision; the additive reward
    (c[a] = token[a] + per_length per emitted token, trunc added to a cut sequence) and beta
    when the formula has them."""

    def __init__(self, kind, inputs, with_reward, key="logits"):
        V, eos, T = inputs.get("V"), inputs.get("eos"), inputs.get("T")
        for name, n in (("V", V), ("eos", eos), ("T", T)):
            if not is_int(n):
                raise Reject("EINVAL", "%s must be an integer" % name)
        if V < 2:
            raise Reject("EDOM", "V = %d: a model needs EOS and at least one other token" % V)
        if V > VMAX:
            raise Reject("EDOM", "V = %d beyond the documented 2 to %d" % (V, VMAX), firm=False)
        if not 0 <= eos < V:
            raise Reject("EDOM", "EOS %d is not one of the tokens 0..%d" % (eos, V - 1))
        if T < 1:
            raise Reject("EDOM", "T = %d: the maximum length must be at least 1" % T)
        self.kind, self.V, self.eos, self.T = kind, V, eos, T
        logits = inputs.get(key)
        if not isinstance(logits, list):
            raise Reject("EINVAL", "%s is not an array" % key)
        nrows = V + 1 if kind == "bigram" else prefix_rows(V, T)
        if len(logits) != nrows * V:
            raise Reject("EINVAL", "%d %s where a %s model of V = %d, T = %d has %d rows of "
                         "%d" % (len(logits), key, kind, V, T, nrows, V))
        vals = [real_of(x, key) for x in logits]
        self.lsm = []                            # log-softmax of every row
        for i in range(nrows):
            row = vals[i * V:(i + 1) * V]
            lse = logsumexp(row)
            self.lsm.append([x - lse for x in row])
        self.c = self.trunc = self.beta = None
        if with_reward:
            reward = inputs.get("reward")
            if not isinstance(reward, list) or len(reward) != V + 2:
                raise Reject("EINVAL", "reward must hold V + 2 = %d numbers (token rewards, "
                             "per_length, truncated)" % (V + 2))
            rv = [real_of(x, "reward") for x in reward]
            self.c = [rv[a] + rv[V] for a in range(V)]
            self.trunc = rv[V + 1]
            self.beta = beta_of(inputs)

    def row_of(self, prefix):
        """The row of logits for the next token after `prefix` (a tuple without EOS)."""
        if self.kind == "bigram":
            return prefix[-1] if prefix else self.V
        # tabular: prefixes of length L follow those shorter; among them, lexicographic order of
        # the tokens is the order of the base-(V-1) numbers of their ranks among non-EOS tokens
        k = 0
        for a in prefix:
            k = k * (self.V - 1) + (a if a < self.eos else a - 1)
        return prefix_rows(self.V, len(prefix)) + k

    def logp(self, y):
        """log pi(y) = sum_t log softmax(row of y_<t)[y_t]  (000 eq. 13.1)."""
        return mp.fsum(self.lsm[self.row_of(y[:t])][y[t]] for t in range(len(y)))

    def score(self, y):
        """d log pi(y) / d logits, as {index: value}: the row of each prefix y_<t gains
        e_{y_t} - softmax(row); the rows of a bigram model are shared by prefixes ending alike."""
        g = {}
        for t in range(len(y)):
            i = self.row_of(y[:t])
            for j in range(self.V):
                k = i * self.V + j
                g[k] = g.get(k, mpf(0)) + ((1 if j == y[t] else 0) - mp.exp(self.lsm[i][j]))
        return g

    def reward(self, y, cut):
        """r(y) = sum_t (token[y_t] + per_length) + truncated [cut]."""
        r = mp.fsum(self.c[a] for a in y)
        return r + self.trunc if cut else r


def beta_of(inputs):
    b = inputs.get("beta")
    if isinstance(b, float) and math.isinf(b):
        raise Reject("ENAN", "beta is infinite (pi* = pi_ref only as a limit)", firm=False)
    b = real_of(b, "beta")
    if not b > 0:
        raise Reject("EDOM", "beta = %s: the KL coefficient must be > 0" % mp.nstr(b, 5))
    return b


# ----------------------------------------------------------------------------------------------
# Enumeration: every sequence, depth first, with its log pi_ref (13.1) and reward
# ----------------------------------------------------------------------------------------------

def enumerate_outcomes(m, keep):
    """[(log pi_ref(y), y, cut)], EOS-ended sequences, and the cut ones when kept.
    log pi_ref(y) = sum_t log softmax(row of y_<t)[y_t]  (000 eq. 13.1)."""
    out = []
    stack = [((), mpf(0))]
    while stack:
        prefix, lp = stack.pop()
        row = m.lsm[m.row_of(prefix)]
        for a in range(m.V):
            y = prefix + (a,)
            lpa = lp + row[a]
            if a == m.eos:
                out.append((lpa, y, False))
            elif len(y) == m.T:
                if keep:
                    out.append((lpa, y, True))
            else:
                stack.append((y, lpa))
    want = outcome_count(m.V, m.T, keep)
    if len(out) != want:
        raise ValueError("enumerated %d outcomes, the definition counts %d" % (len(out), want))
    return out


def moments(outs, beta=None):
    """The outputs of LM-ENUM (and LM-EXACT with beta) from [(log p, r)], p the unnormalised
    probability of each outcome.  mass = sum p; q = p/mass the outcome distribution;
    entropy = -sum q log q; mean_r, var_r under q; log Z = log sum q e^{r/beta} (13.15);
    log pi* = log q + r/beta - log Z (13.17); KL(a||b) = sum a log(a/b) by definition."""
    lps = [lp for lp, _ in outs]
    lmass = logsumexp(lps)
    lq = [lp - lmass for lp in lps]
    q = [mp.exp(x) for x in lq]
    res = {"sequences": mpf(len(outs)),
           "mass": mp.exp(lmass),
           "entropy": -mp.fsum(a * b for a, b in zip(q, lq))}
    if beta is None:
        return res
    rs = [r for _, r in outs]
    mean = mp.fsum(a * r for a, r in zip(q, rs))
    var = mp.fsum(a * (r - mean) ** 2 for a, r in zip(q, rs))
    ls = [a + r / beta for a, r in zip(lq, rs)]
    logZ = logsumexp(ls)
    lstar = [x - logZ for x in ls]
    star = [mp.exp(x) for x in lstar]
    res.update({
        "mean_r": mean,
        "var_r": var,
        "log_Z": logZ,
        "kl_pistar_ref": mp.fsum(s * (ls_ - l) for s, ls_, l in zip(star, lstar, lq)),
        "kl_ref_pistar": mp.fsum(a * (l - ls_) for a, l, ls_ in zip(q, lq, lstar)),
        "mean_r_pistar": mp.fsum(s * r for s, r in zip(star, rs)),
    })
    return res


def by_enumeration(m, keep, with_reward):
    outs = enumerate_outcomes(m, keep)
    if with_reward:
        return moments([(lp, m.reward(y, cut)) for lp, y, cut in outs], m.beta)
    return moments([(lp, None) for lp, _, _ in outs])


# ----------------------------------------------------------------------------------------------
# Dynamic programme for a bigram model with the additive reward: forward over the tokens
# emitted, the state being the last token (or the start).  For the set of prefixes ending in a
# state it carries  P = sum p,  S1 = sum p R,  S2 = sum p R^2,  H = sum p log p,
# W = sum p e^{R/beta},  WR = sum p e^{R/beta} R  (p, R: prefix probability and reward).  One more
# token a, probability q, reward k, maps them to
#   qP, q(S1 + kP), q(S2 + 2k S1 + k^2 P), q(H + P log q), q e^{k/beta} W, q e^{k/beta}(WR + kW).
# ----------------------------------------------------------------------------------------------

def dp_step(acc, lq, k, ek):
    P, S1, S2, H, W, WR = acc
    q = mp.exp(lq)
    qe = q * ek
    return (q * P, q * (S1 + k * P), q * (S2 + 2 * k * S1 + k * k * P), q * (H + P * lq),
            qe * W, qe * (WR + k * W))


def dp_add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def dp_sums(m, keep, r0):
    """(P, S1, S2, H, W, WR) over the outcomes, every reward shifted by r0."""
    V, eos, T, beta = m.V, m.eos, m.T, m.beta
    zero = tuple(mpf(0) for _ in range(6))
    e0 = mp.exp(r0 / beta)
    cur = {V: (mpf(1), r0, r0 * r0, mpf(0), e0, e0 * r0)}     # depth 0: the start
    ended, cut = zero, zero
    eks = [mp.exp(ck / beta) for ck in m.c]
    ekt = [mp.exp((ck + m.trunc) / beta) for ck in m.c]
    for t in range(T):
        nxt = {}
        for s, acc in cur.items():
            row = m.lsm[s]
            for a in range(V):
                if a == eos:
                    ended = dp_add(ended, dp_step(acc, row[a], m.c[a], eks[a]))
                elif t + 1 == T:
                    cut = dp_add(cut, dp_step(acc, row[a], m.c[a] + m.trunc, ekt[a]))
                else:
                    st = dp_step(acc, row[a], m.c[a], eks[a])
                    nxt[a] = dp_add(nxt[a], st) if a in nxt else st
        cur = nxt
    return dp_add(ended, cut) if keep else ended


def by_dp(m, keep):
    """The outputs of LM-EXACT by the programme.  The outcome distribution is p/P, so
    sum (p/P) log(p/P) = H/P - log P; Var[r] is taken from a second pass with the rewards
    shifted by -E[r], where sum p R^2 / P has no cancellation."""
    beta = m.beta
    P, S1, S2, H, W, WR = dp_sums(m, keep, mpf(0))
    mean = S1 / P
    P2, S1c, S2c = dp_sums(m, keep, -mean)[:3]
    logZ = mp.log(W) - mp.log(P)
    estar = WR / W
    return {"sequences": mpf(outcome_count(m.V, m.T, keep)),
            "mass": P,
            "entropy": mp.log(P) - H / P,
            "mean_r": mean,
            "var_r": S2c / P2 - (S1c / P2) ** 2,
            "log_Z": logZ,
            "kl_pistar_ref": estar / beta - logZ,      # E*[log pi*/pi_ref], 13.17
            "kl_ref_pistar": logZ - mean / beta,
            "mean_r_pistar": estar}


def agree(a, b, what):
    """Enumeration and programme agree to the working precision (less 48 bits)."""
    for k in a:
        if k in b:
            tol = mpf(2) ** (-mp.prec + 48) * max(1, abs(a[k]), abs(b[k]))
            if abs(a[k] - b[k]) > tol:
                raise ValueError("%s: enumeration %s, dynamic programme %s"
                                 % (k, mp.nstr(a[k], 30), mp.nstr(b[k], 30)) + what)


# ----------------------------------------------------------------------------------------------
# Exact expected gradients (LM-EXACT variants grad-*): a policy q (input logits) and a reference
# q_ref (ref_logits), both of the same shape, over the same outcomes.  With h = log q - log q_ref
# and g(y) = d log q(y)/d logits = s(y) - sum_y' q(y') s(y'), s the score of log pi(y) (the second
# term is the normalisation by P(EOS within T) when cut sequences are conditioned away; it is
# zero when they are kept):
#   reward       E_q[r]                          grad  sum q r g
#   kl           KL(q||q_ref) = sum q h          grad  sum q (h + 1) g
#   kl-reverse   KL(q_ref||q) = -sum q_ref h     grad  -sum q_ref g
#   rlhf         E_q[r] - beta KL(q||q_ref)      grad  sum q (r - beta (h + 1)) g  (13.8, 13.13)
#   dpo          sum_{y1 != y2} w12 (-log sigma(beta z))  (13.21)
#                                                grad  sum w12 (-beta sigma(-beta z)) (g1 - g2)
#   ipo          sum_{y1 != y2} w12 (z - 1/(2 beta))^2
#                                                grad  sum w12 2 (z - 1/(2 beta)) (g1 - g2)
# over ordered pairs of distinct outcomes, z = h1 - h2, w12 = q_ref(y1) q_ref(y2) sigma(r1 - r2).
#   k1, k2, k3   a KL estimator k(h) used as a loss, y ~ q and the sampling not differentiated
#                (000 section 12.1, 13.26): value E_q[k(h)], gradient sum q k'(h) g, with
#                k1 = h, k2 = h^2/2, k3 = e^-h - 1 + h (k1' = 1, k2' = h, k3' = 1 - e^-h).
# ----------------------------------------------------------------------------------------------

GRAD_OBJECTIVES = ("reward", "kl", "kl-reverse", "rlhf", "dpo", "ipo", "k1", "k2", "k3")
GRAD_LIMIT = 400           # outcomes (the pair sums take their square)


def read_grad_variant(v):
    """grad-OBJECTIVE[-bigram][-condition]: tabular and cut sequences kept unless named."""
    rest = v[len("grad-"):]
    kind, keep = "tabular", True
    if rest.endswith("-condition"):
        rest, keep = rest[:-len("-condition")], False
    if rest.endswith("-bigram"):
        rest, kind = rest[:-len("-bigram")], "bigram"
    if rest not in GRAD_OBJECTIVES:
        raise ValueError("LM-EXACT: unknown variant %r" % v)
    return kind, keep, rest


def eval_lm_grad(obj, kind, keep, inputs):
    m = Model(kind, inputs, True)
    ref = Model(kind, inputs, False, key="ref_logits")
    n = outcome_count(m.V, m.T, keep)
    if n > GRAD_LIMIT:
        raise Reject("EDOM", "%d sequences: beyond the pair sums here" % n, firm=False)
    outs = enumerate_outcomes(m, keep)
    ys = [y for _, y, _ in outs]
    rs = [m.reward(y, cut) for _, y, cut in outs]
    lp = [x for x, _, _ in outs]
    lpr = [ref.logp(y) for y in ys]
    lm, lmr = logsumexp(lp), logsumexp(lpr)
    lq = [x - lm for x in lp]
    lqr = [x - lmr for x in lpr]
    q = [mp.exp(x) for x in lq]
    qr = [mp.exp(x) for x in lqr]
    h = [a - b for a, b in zip(lq, lqr)]
    beta = m.beta
    N = len(ys)
    # the value, and coef[i] such that the gradient is sum_i coef[i] g(y_i)
    if obj in ("dpo", "ipo"):
        terms, coef = [], [mpf(0)] * N
        half = 1 / (2 * beta)
        for i in range(N):
            for j in range(N):
                if i == j:
                    continue
                w = qr[i] * qr[j] * sigmoid(rs[i] - rs[j])
                z = h[i] - h[j]
                if obj == "dpo":
                    terms.append(-w * log_sigmoid(beta * z))
                    c = -w * beta * sigmoid(-beta * z)
                else:
                    terms.append(w * (z - half) ** 2)
                    c = 2 * w * (z - half)
                coef[i] += c
                coef[j] -= c
        value = mp.fsum(terms)
    else:
        er = mp.fsum(a * r for a, r in zip(q, rs))
        kl = mp.fsum(a * b for a, b in zip(q, h))
        if obj == "reward":
            value, coef = er, [a * r for a, r in zip(q, rs)]
        elif obj == "kl":
            value, coef = kl, [a * (x + 1) for a, x in zip(q, h)]
        elif obj == "kl-reverse":
            value, coef = -mp.fsum(a * x for a, x in zip(qr, h)), [-a for a in qr]
        elif obj == "k1":
            value, coef = kl, list(q)
        elif obj == "k2":
            value, coef = mp.fsum(a * x * x / 2 for a, x in zip(q, h)), [a * x for a, x in zip(q, h)]
        elif obj == "k3":
            value = mp.fsum(a * (mp.exp(-x) - 1 + x) for a, x in zip(q, h))
            coef = [a * (1 - mp.exp(-x)) for a, x in zip(q, h)]
        else:
            value = er - beta * kl
            coef = [a * (r - beta * (x + 1)) for a, r, x in zip(q, rs, h)]
    # sum_i coef[i] g(y_i) = sum_i coef[i] s(y_i) - (sum_i coef[i]) sum_y q(y) s(y)
    grad = [mpf(0)] * (len(m.lsm) * m.V)
    scores = [m.score(y) for y in ys]
    for c, sc in zip(coef, scores):
        for k, x in sc.items():
            grad[k] += c * x
    if not keep:
        ctot = mp.fsum(coef)
        for a, sc in zip(q, scores):
            for k, x in sc.items():
                grad[k] -= ctot * a * x
    return {"value": value, "grad": grad}


# ----------------------------------------------------------------------------------------------
# The evaluators
# ----------------------------------------------------------------------------------------------

def eval_lm_enum(variant, params, inputs, ctx):
    kind, keep = read_variant("LM-ENUM", variant)
    m = Model(kind, inputs, False)
    if outcome_count(m.V, m.T, keep) > ENUM_LIMIT:
        raise Reject("EDOM", "%d sequences: beyond enumeration here"
                     % outcome_count(m.V, m.T, keep), firm=False)
    return by_enumeration(m, keep, False)


def eval_lm_exact(variant, params, inputs, ctx):
    rv = read_variant("LM-EXACT", variant)
    if len(rv) == 3:
        return eval_lm_grad(rv[2], rv[0], rv[1], inputs)
    kind, keep = rv
    m = Model(kind, inputs, True)
    n = outcome_count(m.V, m.T, keep)
    if n > ENUM_LIMIT:
        if kind != "bigram":
            raise Reject("EDOM", "%d sequences: beyond enumeration here" % n, firm=False)
        ctx.notes.append("%d sequences: computed by the dynamic programme only" % n)
        return by_dp(m, keep)
    res = by_enumeration(m, keep, True)
    if kind == "bigram":
        agree(res, by_dp(m, keep), " (LM-EXACT)")
    return res


def eval_lm_dp(variant, params, inputs, ctx):
    kind, keep = read_variant("LM-DP", variant)
    m = Model(kind, inputs, True)
    res = by_dp(m, keep)
    if outcome_count(m.V, m.T, keep) <= ENUM_LIMIT:
        agree(by_enumeration(m, keep, True), res, " (LM-DP)")
    return res


def eval_lm_chain(variant, params, inputs, ctx):
    """log pi(y) = sum_t log pi(y_t | y_<t)  (000 eq. 13.1), and each term."""
    kind, _ = read_variant("LM-CHAIN", variant)
    m = Model(kind, inputs, False)
    y = inputs.get("y")
    if not isinstance(y, list) or not all(is_int(a) for a in y):
        raise Reject("EINVAL", "y is not an array of tokens")
    if not y:
        raise Reject("EDOM", "an empty y is not a sequence: every sequence has a token")
    if any(not 0 <= a < m.V for a in y):
        raise Reject("EDOM", "a token of y is not one of 0..%d" % (m.V - 1))
    if len(y) > m.T:
        raise Reject("EDOM", "y has %d tokens, more than T = %d" % (len(y), m.T))
    if m.eos in y[:-1]:
        raise Reject("EDOM", "EOS before the last token: not a sequence")
    if len(y) < m.T and y[-1] != m.eos:
        raise Reject("EDOM", "shorter than T without EOS: not a sequence")
    terms = [m.lsm[m.row_of(tuple(y[:t]))][y[t]] for t in range(len(y))]
    return {"logp": mp.fsum(terms), "token_logp": terms}


EVALUATORS = {
    "LM-ENUM": eval_lm_enum,
    "LM-CHAIN": eval_lm_chain,
    "LM-EXACT": eval_lm_exact,
    "LM-DP": eval_lm_dp,
}


def no_params(variant, params):
    """The LM formulas take everything as inputs: a group's params are empty."""
    return ["unexpected params %s" % sorted(params)] if params else []


PARAM_CHECKS = {f: no_params for f in EVALUATORS}


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400
# ----------------------------------------------------------------------------------------------

def flat(rows):
    return [float(x) for row in rows for x in row]


def bigram_inputs(V, eos, T, rows, reward=None, beta=None):
    d = {"V": V, "eos": eos, "T": T, "logits": flat(rows)}
    if reward is not None:
        d["reward"], d["beta"] = reward, beta
    return d


def selftest_uniform(t):
    """Uniform logits: every token 1/V, so P(len >= t + 1) = ((V-1)/V)^t, the entropy of the
    kept outcomes is log V E[len] = log V sum_{t<T} ((V-1)/V)^t, and P(EOS within T) is
    1 - ((V-1)/V)^T; conditioned, an outcome of length l has (1/V)^l / that mass."""
    V, eos, T = 4, 1, 4
    inp = bigram_inputs(V, eos, T, [[0.0] * V] * (V + 1))
    keep = eval_lm_enum("bigram-keep", {}, inp, Ctx())
    cond = eval_lm_enum("bigram-condition", {}, inp, Ctx())
    f = mpf(V - 1) / V
    t.near("uniform: kept entropy = log V E[len]", keep["entropy"],
           mp.log(V) * mp.fsum(f ** k for k in range(T)))
    t.near("uniform: kept mass 1", keep["mass"], mpf(1))
    M = 1 - f ** T
    t.near("uniform: P(EOS within T)", cond["mass"], M)
    # conditioned: (V-1)^(l-1) outcomes of length l, each (1/V)^l / M
    H = -mp.fsum((V - 1) ** (l - 1) * (mpf(1) / V) ** l / M * mp.log((mpf(1) / V) ** l / M)
                 for l in range(1, T + 1))
    t.near("uniform: conditioned entropy", cond["entropy"], H)
    t.true("uniform: counts %s and %s" % (keep["sequences"], cond["sequences"]),
           keep["sequences"] == 1 + 3 + 9 + 27 + 81
           and cond["sequences"] == 1 + 3 + 9 + 27)
    # a reward that counts the length only: E[len] by the tail sum above
    ex = eval_lm_exact("bigram-keep", {}, bigram_inputs(V, eos, T, [[0.0] * V] * (V + 1),
                                                        [0.0] * V + [1.0, 0.0], 1.0), Ctx())
    t.near("uniform: E[len] as the mean reward", ex["mean_r"],
           mp.fsum(f ** k for k in range(T)))


def selftest_hand(t):
    """V = 2, EOS = 1, T = 1, start logits (1/2, -1/2): the outcomes are (1) with sigma(-1) and
    (0), cut, with sigma(1).  Rewards 1 and 2 - 3 = -1, beta = 1:  Z = sigma(1) e^{-1} +
    sigma(-1) e = (e^{-1/2} + e^{1/2})/(e^{1/2} + e^{-1/2}) = 1, so log Z = 0, and
    KL(pi*||pi_ref) = E*[r] = sigma(1) e^{-1}(-1) + sigma(-1) e = tanh(1/2)."""
    inp = bigram_inputs(2, 1, 1, [[0, 0], [0, 0], [0.5, -0.5]], [2.0, 1.0, 0.0, -3.0], 1.0)
    ex = eval_lm_exact("bigram-keep", {}, inp, Ctx())
    t.true("T = 1: log Z = 0 (%s)" % mp.nstr(ex["log_Z"], 5), abs(ex["log_Z"]) < mpf(2) ** -380)
    t.near("T = 1: E*[r] = tanh(1/2)", ex["mean_r_pistar"], mp.tanh(mpf(1) / 2))
    t.near("T = 1: KL(pi*||pi_ref) = tanh(1/2)", ex["kl_pistar_ref"], mp.tanh(mpf(1) / 2))
    sig = 1 / (1 + mp.e)
    t.near("T = 1: E[r] = sigma(-1) - sigma(1)", ex["mean_r"], 2 * sig - 1)
    dp = eval_lm_dp("condition", {}, inp, Ctx())
    t.true("T = 1 conditioned: one outcome, entropy and Var 0",
           abs(dp["entropy"]) < mpf(2) ** -380 and dp["var_r"] == 0)
    t.near("T = 1 conditioned: log Z = r/beta = 1", dp["log_Z"], mpf(1))
    # the chain rule: y = (0), cut at T = 1
    ch = eval_lm_chain("bigram", {}, dict(inp, y=[0]), Ctx())
    t.near("T = 1: log pi((0)) = log sigma(1)", ch["logp"], -mp.log(1 + mp.exp(-1)))


def random_rows(rnd, n, V):
    return [[rnd.choice([-1.5, -0.75, -0.25, 0.0, 0.5, 1.0, 2.0]) + rnd.random() for _ in range(V)]
            for _ in range(n)]


def selftest_dp_and_tabular(t):
    """A random bigram model: the programme equals enumeration for every output; the same
    model written as a tabular one (its rows listed by length, then lexicographically, built
    here by sorting the prefixes) gives the same values; the chain rule of every outcome sums
    to the mass; pi* satisfies objective(pi) = beta log Z - beta KL(pi||pi*) (13.14-13.16) for a
    random pi, and KL >= 0 (Gibbs)."""
    rnd = random.Random(7)
    V, eos, T = 4, 2, 4
    rows = random_rows(rnd, V + 1, V)
    reward = [rnd.uniform(-1, 1) for _ in range(V)] + [-0.3, -0.7]
    beta = 0.4
    inp = bigram_inputs(V, eos, T, rows, reward, beta)
    prefixes = sorted((p for L in range(T)
                       for p in itertools.product([a for a in range(V) if a != eos], repeat=L)),
                      key=lambda p: (len(p), p))
    tab = dict(inp, logits=[x for p in prefixes for x in rows[p[-1] if p else V]])
    for keep in (True, False):
        b = "keep" if keep else "condition"
        m = Model("bigram", inp, True)
        e = by_enumeration(m, keep, True)
        d = by_dp(m, keep)
        worst = max(abs(e[k] - d[k]) / max(1, abs(e[k])) for k in e)
        t.true("random bigram %s: programme = enumeration (worst %s)" % (b, mp.nstr(worst, 3)),
               worst < mpf(2) ** -360)
        tv = eval_lm_exact("tabular-" + b, {}, tab, Ctx())
        worst = max(abs(e[k] - tv[k]) / max(1, abs(e[k])) for k in e)
        t.true("the bigram model as a tabular one, %s (worst %s)" % (b, mp.nstr(worst, 3)),
               worst < mpf(2) ** -360)
        outs = enumerate_outcomes(m, keep)
        lp = [eval_lm_chain("tabular", {}, dict(tab, y=list(y)), Ctx())["logp"]
              for _, y, _ in outs]
        t.near("chain rule (13.1) over the outcomes sums to the mass, %s" % b,
               mp.fsum(mp.exp(x) for x in lp), e["mass"])
        # 13.14-13.16 for a random pi over the outcomes
        n = len(outs)
        w = [mpf(rnd.random()) + mpf(1) / 10 for _ in range(n)]
        pi = [x / mp.fsum(w) for x in w]
        lq = [x - mp.log(e["mass"]) for x, _, _ in outs]
        rs = [m.reward(y, cut) for _, y, cut in outs]
        lstar = [a + r / beta - e["log_Z"] for a, r in zip(lq, rs)]
        obj = mp.fsum(p * r for p, r in zip(pi, rs)) - \
            beta * mp.fsum(p * (mp.log(p) - a) for p, a in zip(pi, lq))
        kl = mp.fsum(p * (mp.log(p) - s) for p, s in zip(pi, lstar))
        t.near("objective(pi) = beta log Z - beta KL(pi||pi*), %s" % b, obj,
               beta * e["log_Z"] - beta * kl)
        t.true("Gibbs: KL(pi||pi*) > 0 and the optimum is beta log Z, %s" % b,
               kl > 0 and obj < beta * e["log_Z"])
        t.near("objective(pi*) = beta log Z, %s" % b,
               e["mean_r_pistar"] - beta * e["kl_pistar_ref"], beta * e["log_Z"])


def selftest_limits(t):
    """beta -> infinity: both KLs ~ Var[r]/(2 beta^2); beta -> 0: E*[r] -> max r."""
    rnd = random.Random(11)
    V, eos, T = 3, 0, 4
    rows = random_rows(rnd, V + 1, V)
    reward = [0.25, 1.0, -0.5, -0.125, -1.0]
    big = eval_lm_dp("keep", {}, bigram_inputs(V, eos, T, rows, reward, 1e6), Ctx())
    half = big["var_r"] / (2 * mpf(1e6) ** 2)
    t.near("beta = 1e6: KL(pi*||pi_ref) ~ Var/(2 beta^2)", big["kl_pistar_ref"], half, mpf(1e-5))
    t.near("beta = 1e6: KL(pi_ref||pi*) ~ Var/(2 beta^2)", big["kl_ref_pistar"], half, mpf(1e-5))
    m = Model("bigram", bigram_inputs(V, eos, T, rows, reward, 1.0), True)
    rmax = max(m.reward(y, cut) for _, y, cut in enumerate_outcomes(m, True))
    small = eval_lm_exact("bigram-keep", {}, bigram_inputs(V, eos, T, rows, reward, 1e-4), Ctx())
    t.near("beta = 1e-4: E*[r] = max r", small["mean_r_pistar"], rmax, mpf(10) ** -100)
    # every outcome gains 1e6 once (EOS, or the cut), the tokens 2^-30 k: Var[r] ~ 1e-18, under
    # a mean 1e6
    flat_r = [1e6 if k == eos else k * 2.0 ** -30 for k in range(V)] + [0.0, 1e6]
    m = Model("bigram", bigram_inputs(V, eos, T, rows, flat_r, 1e6), True)
    e, d = by_enumeration(m, True, True), by_dp(m, True)
    t.near("reward 1e6 + O(2^-30): Var[r] by the programme = enumeration (%s)"
           % mp.nstr(e["var_r"], 3), d["var_r"], e["var_r"], mpf(10) ** -60)


def selftest_grad(t):
    """Every grad-* gradient against central differences of its value in the logits, at 600
    bits with step 2^-90 (error ~ 2^-180); the KL gradients vanish at the reference."""
    rnd = random.Random(5)
    V, eos, T = 3, 1, 2
    n = prefix_rows(V, T) * V
    base = {"V": V, "eos": eos, "T": T,
            "logits": [rnd.uniform(-1, 1) for _ in range(n)],
            "ref_logits": [rnd.uniform(-1, 1) for _ in range(n)],
            "reward": [0.5, -0.25, 1.0, -0.125, -0.75], "beta": 0.75}
    bigram = dict(base, T=3, logits=[rnd.uniform(-1, 1) for _ in range((V + 1) * V)],
                  ref_logits=[rnd.uniform(-1, 1) for _ in range((V + 1) * V)])
    step = Fraction(1, 2 ** 90)
    # (the estimators k1-k3 hold the sampling fixed: their gradient is not the derivative
    # of their value, so they have no central-difference check)
    diff = [o for o in GRAD_OBJECTIVES if not o.startswith("k")]
    cases = [("grad-" + o, base) for o in diff] + \
        [("grad-" + o + "-condition", base) for o in diff] + \
        [("grad-dpo-bigram", bigram), ("grad-ipo-bigram-condition", bigram)]
    for variant, inp in cases:
        with mp.workprec(600):
            got = eval_lm_exact(variant, {}, inp, Ctx())["grad"]
            worst = mpf(0)
            for k in range(len(inp["logits"])):
                vals = []
                for sgn in (1, -1):
                    lg = list(inp["logits"])
                    lg[k] = Fraction(lg[k]) + sgn * step
                    vals.append(eval_lm_exact(variant, {}, dict(inp, logits=lg), Ctx())["value"])
                fd = (vals[0] - vals[1]) / (2 * X(step))
                worst = max(worst, abs(fd - got[k]))
        t.true("%s: gradient = central differences (worst %s)" % (variant, mp.nstr(worst, 3)),
               worst < mpf(10) ** -45)
    at_ref = dict(base, ref_logits=base["logits"])
    for variant in ("grad-kl", "grad-kl-reverse", "grad-kl-condition"):
        r = eval_lm_exact(variant, {}, at_ref, Ctx())
        t.true("%s at the reference: value and gradient 0" % variant,
               r["value"] == 0 and max(abs(x) for x in r["grad"]) < mpf(2) ** -380)


def selftest_reject(t):
    good = bigram_inputs(3, 2, 3, [[0.0] * 3] * 4, [1.0, -0.5, 0.0, -0.25, -1.0], 1.0)
    cases = [("beta = 0", "EDOM", dict(good, beta=0.0)),
             ("beta < 0", "EDOM", dict(good, beta=-1.0)),
             ("beta NaN", "ENAN", dict(good, beta=float("nan"))),
             ("EOS out of range", "EDOM", dict(good, eos=3)),
             ("T = 0", "EDOM", dict(good, T=0)),
             ("V = 1", "EDOM", dict(good, V=1, eos=0, logits=[0.0, 0.0], reward=[0.0] * 3)),
             ("three rows for V = 3", "EINVAL", dict(good, logits=[0.0] * 9)),
             ("a NaN logit", "ENAN", dict(good, logits=[0.0] * 4 + [float("nan")] + [0.0] * 7)),
             ("an infinite reward", "ENAN", dict(good, reward=[float("inf")] + [0.0] * 4)),
             ("reward of V + 1", "EINVAL", dict(good, reward=[0.0] * 4))]
    for what, code, inp in cases:
        try:
            eval_lm_exact("bigram-keep", {}, inp, Ctx())
            got = None
        except Reject as r:
            got = r.code
        t.true("rejects %s (%s)" % (what, got), got == code)
    for y in ([0, 2, 1], [0, 1], [], [0, 1, 1, 2], [3]):
        try:
            eval_lm_chain("bigram", {}, dict(good, y=y), Ctx())
            got = None
        except Reject as r:
            got = r.code
        t.true("rejects y = %s as not a sequence (%s)" % (y, got), got == "EDOM")


SELFTESTS = [selftest_uniform, selftest_hand, selftest_dp_and_tabular, selftest_limits,
             selftest_grad, selftest_reject]
