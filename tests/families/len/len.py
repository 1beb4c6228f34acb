"""LEN: length bias and entropy collapse (seed 000 §12.2-12.3, eqs. 13.23, 13.24, 13.29-13.33;
seed 003 Dr.GRPO; seed 004's table of GRPO's successors; CONVENTIONS.md "Loss aggregation").

LEN-WEIGHTS: the weight each token of response i carries in the loss, B responses of lengths
|y_i| in groups of G, under each normalisation of CONVENTIONS.md "Loss aggregation":
  seq-mean-token-mean      1/(B |y_i|)           seed 000 (13.24), TRL grpo
  token-mean               1/sum_j |y_j|         seed 000 (13.33), DAPO, verl default
  seq-mean-token-sum       1/B                   Dr.GRPO without 1/|y| (verl)
  group-mean-length        1/(B mean_g |y|)      seed 003's Dr.GRPO (group mean length)
  seq-mean-token-sum-norm  1/(B L_const)         TRL dr_grpo (L_const = max_len)
share_i = |y_i| w_i, total = sum_i share_i.

LEN-DRIFT and ENT-COLLAPSE run on the think-then-answer model: at step t (t = 0..T-1 thinking
tokens emitted so far) the policy draws w (think), c (a correct answer) or x (a wrong answer)
from softmax(logits[3t..3t+2]); c and x end the response, T tokens w with no answer are cut.
The outcomes: w^k c (length k+1, reward 1), w^k x (length k+1, reward 0), k < T, and w^T
(length T, reward 0).  A group is G i.i.d. responses; advantage (13.23), ddof 0, 0 when the
group's rewards are all equal; the token weights of the normalisation over the group.

LEN-DRIFT: the expected update direction g = E_group[sum_i w_i A_i grad log pi(y_i)] (the
gradient of the surrogate at the old policy, ratio 1), every G-tuple enumerated here (ordered
tuples; the library enumerates multisets); the derivatives of E[|y|], E[r], E[|y| | correct],
E[|y| | wrong] along g are taken here by mpmath's numerical differentiation of the expectations
at theta + eta g, not from the library's score-function formula.

ENT-COLLAPSE: outer step = one batch under pi_old = pi_theta: mu steps of gradient ascent with
rate lr on L(theta) = E_group[sum_i w_i sum_t min(rho A, clip(rho, 1-eps_low, 1+eps_high) A)]
(13.29 with 13.24's weights), rho = pi_theta(y_t|s_t)/pi_old(y_t|s_t), the expectation exact;
dynamic sampling (13.30): the expectation over the groups kept (0 < correct < G), i.e.
conditioned on 0 < k < G.  The gradient here is that of the clipped term per tuple, summed.
"""

import itertools
import math
from mpmath import mp, mpf

from xcore import Reject, X, get_input

NORMS = ("seq-mean-token-mean", "token-mean", "seq-mean-token-sum", "group-mean-length",
         "seq-mean-token-sum-norm")


def reals(xs, name):
    out = []
    for v in xs:
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            raise Reject("ENAN", "non-finite %s" % name)
        out.append(X(v))
    return out


def token_weights(norm, L, G, Lc):
    """Per-token weight of each response, lengths L (mpf), groups of G, L_const Lc."""
    B = len(L)
    if norm == "seq-mean-token-mean":
        return [1 / (B * x) for x in L]
    if norm == "token-mean":
        s = mp.fsum(L)
        return [1 / s for _ in L]
    if norm == "seq-mean-token-sum":
        return [mpf(1) / B for _ in L]
    if norm == "group-mean-length":
        out = []
        for g in range(0, B, G):
            mean = mp.fsum(L[g:g + G]) / G
            out += [1 / (B * mean)] * G
        return out
    if norm == "seq-mean-token-sum-norm":
        return [1 / (B * Lc) for _ in L]
    raise Reject("EINVAL", "unknown normalisation %r" % norm, firm=False)


def eval_weights(variant, params, inputs, ctx):
    L = reals(get_input(inputs, params, "lengths"), "length")
    if not L:
        raise Reject("EINVAL", "no lengths")
    G = inputs.get("group_size", len(L))
    if G < 1 or len(L) % G:
        raise Reject("EINVAL", "the lengths do not make whole groups")
    if any(x <= 0 for x in L):
        raise Reject("EDOM", "a length <= 0")
    Lc = None
    if variant == "seq-mean-token-sum-norm":
        Lc = reals([get_input(inputs, params, "max_len")], "max_len")[0]
        if Lc <= 0:
            raise Reject("EDOM", "max_len <= 0")
    w = token_weights(variant, L, G, Lc)
    share = [a * b for a, b in zip(w, L)]
    return {"w": w, "share": share, "total": mp.fsum(share)}


# ----------------------------------------------------------------------------------------------
# The think-then-answer model
# ----------------------------------------------------------------------------------------------

W, C, XW = 0, 1, 2


def outcomes(T):
    """(tokens, length, reward) of every response."""
    out = []
    for k in range(T):
        out.append(([W] * k + [C], k + 1, 1))
        out.append(([W] * k + [XW], k + 1, 0))
    out.append(([W] * T, T, 0))
    return out


def read_model(inputs, params):
    th = reals(get_input(inputs, params, "logits"), "logit")
    if not th or len(th) % 3:
        raise Reject("EINVAL", "logits: 3 per step")
    T = len(th) // 3
    return [th[3 * t:3 * t + 3] for t in range(T)], T


def log_softmax(row):
    m = max(row)
    lse = m + mp.log(mp.fsum(mp.exp(v - m) for v in row))
    return [v - lse for v in row]


def policy(theta):
    return [log_softmax(r) for r in theta]


def seq_logp(lp, toks):
    return mp.fsum(lp[t][a] for t, a in enumerate(toks))


def advantages(rs):
    G = len(rs)
    mean = mp.fsum(rs) / G
    std = mp.sqrt(mp.fsum((r - mean) ** 2 for r in rs) / G)
    if std == 0:
        return [mpf(0)] * G
    return [(r - mean) / std for r in rs]


def coefficients(lp, outs, G, norm, T, keep_only_mixed=False):
    """c_pos[j], c_neg[j] = E[sum_{i: y_i = j} w_i A_i] over the terms with A > 0, A < 0,
    every ordered G-tuple enumerated; and P(0 < correct < G)."""
    n = len(outs)
    p = [mp.exp(seq_logp(lp, o[0])) for o in outs]
    cpos = [mpf(0)] * n
    cneg = [mpf(0)] * n
    kept = mpf(0)
    for tup in itertools.product(range(n), repeat=G):
        rs = [mpf(outs[j][2]) for j in tup]
        k = sum(outs[j][2] for j in tup)
        prob = mp.fprod(p[j] for j in tup)
        if 0 < k < G:
            kept += prob
        A = advantages(rs)
        w = token_weights(norm, [mpf(outs[j][1]) for j in tup], G, mpf(T))
        for i, j in enumerate(tup):
            v = prob * w[i] * A[i]
            if A[i] > 0:
                cpos[j] += v
            elif A[i] < 0:
                cneg[j] += v
    if keep_only_mixed:
        if kept == 0:
            raise Reject("EDOM", "no group with mixed rewards")
        cpos = [v / kept for v in cpos]
        cneg = [v / kept for v in cneg]
    return cpos, cneg, kept


def grad_logp(lp, toks, T):
    """grad of log pi(y) in the logits: row t gets e_{y_t} - pi_t."""
    g = [[mpf(0)] * 3 for _ in range(T)]
    for t, a in enumerate(toks):
        for b in range(3):
            g[t][b] += (1 if a == b else 0) - mp.exp(lp[t][b])
    return g


def direction(lp, outs, coef, T):
    g = [[mpf(0)] * 3 for _ in range(T)]
    for j, o in enumerate(outs):
        if coef[j] == 0:
            continue
        gl = grad_logp(lp, o[0], T)
        for t in range(T):
            for b in range(3):
                g[t][b] += coef[j] * gl[t][b]
    return g


def expectations(theta, outs):
    lp = policy(theta)
    p = [mp.exp(seq_logp(lp, o[0])) for o in outs]
    Elen = mp.fsum(pi * o[1] for pi, o in zip(p, outs))
    acc = mp.fsum(pi for pi, o in zip(p, outs) if o[2] == 1)
    lc = mp.fsum(pi * o[1] for pi, o in zip(p, outs) if o[2] == 1) / acc
    lw = mp.fsum(pi * o[1] for pi, o in zip(p, outs) if o[2] == 0) / (1 - acc)
    H = -mp.fsum(pi * seq_logp(lp, o[0]) for pi, o in zip(p, outs))
    return {"len": Elen, "acc": acc, "len_c": lc, "len_w": lw, "H": H}


def moved(theta, g, eta):
    return [[theta[t][b] + eta * g[t][b] for b in range(3)] for t in range(len(theta))]


def along(theta, g, outs, key):
    return mp.diff(lambda e: expectations(moved(theta, g, e), outs)[key], 0)


def read_G(inputs, params, n, limit):
    G = get_input(inputs, params, "G")
    if G < 1:
        raise Reject("EDOM", "G < 1")
    if float(n) ** G > limit:
        raise Reject("EINVAL", "too many groups to enumerate")
    return G


def eval_drift(variant, params, inputs, ctx):
    theta, T = read_model(inputs, params)
    outs = outcomes(T)
    G = read_G(inputs, params, len(outs), 1e6)
    eta = reals([get_input(inputs, params, "eta")], "eta")[0]
    lp = policy(theta)
    cpos, cneg, _ = coefficients(lp, outs, G, variant, T)
    g = direction(lp, outs, [a + b for a, b in zip(cpos, cneg)], T)
    gp = direction(lp, outs, cpos, T)
    gn = direction(lp, outs, cneg, T)
    e0 = expectations(theta, outs)
    e1 = expectations(moved(theta, g, eta), outs)
    return {
        "len": e0["len"], "acc": e0["acc"],
        "dlen": along(theta, g, outs, "len"),
        "dlen_pos": along(theta, gp, outs, "len"),
        "dlen_neg": along(theta, gn, outs, "len"),
        "dlen_correct": along(theta, g, outs, "len_c"),
        "dlen_wrong": along(theta, g, outs, "len_w"),
        "dacc": along(theta, g, outs, "acc"),
        "len_step": e1["len"] - e0["len"],
    }


# the recipes: (eps_low, eps_high, dynamic sampling); the clip bounds are the binary64 numbers
# 0.2 and 0.28 (the golden's params), 1 - eps and 1 + eps formed exactly
ENT_CLIP = {"symmetric": (0.2, 0.2, False),
            "clip-higher": (0.2, 0.28, False),
            "dynamic-sampling": (0.2, 0.2, True)}


def clipped_step(theta, lp_old, outs, cpos, cneg, lr, lo, hi, T):
    """theta + lr grad L(theta), L the exact clipped surrogate (13.29)."""
    lp = policy(theta)
    g = [[mpf(0)] * 3 for _ in range(T)]
    for j, o in enumerate(outs):
        for t, a in enumerate(o[0]):
            rho = mp.exp(lp[t][a] - lp_old[t][a])
            # min(rho A, clip(rho) A): A > 0 flows while rho < 1 + eps_high, A < 0 while
            # rho > 1 - eps_low
            c = (cpos[j] if rho < hi else 0) + (cneg[j] if rho > lo else 0)
            if c == 0:
                continue
            for b in range(3):
                g[t][b] += c * rho * ((1 if a == b else 0) - mp.exp(lp[t][b]))
    return moved(theta, g, lr)


def eval_entropy(variant, params, inputs, ctx):
    theta, T = read_model(inputs, params)
    outs = outcomes(T)
    G = read_G(inputs, params, len(outs), 1e5)
    lr = reals([get_input(inputs, params, "lr")], "lr")[0]
    mu = get_input(inputs, params, "mu")
    steps = get_input(inputs, params, "steps")
    if lr <= 0:
        raise Reject("EDOM", "lr <= 0")
    if mu < 1 or steps < 1:
        raise Reject("EDOM", "mu and steps must be >= 1")
    if variant not in ENT_CLIP:
        raise Reject("EINVAL", "unknown recipe %r" % variant, firm=False)
    el, eh, dyn = ENT_CLIP[variant]
    el = params.get("eps_low", el)
    eh = params.get("eps_high", eh)
    lo, hi = 1 - X(el), 1 + X(eh)
    H0 = expectations(theta, outs)["H"]
    Hs, accs, lens = [], [], []
    for _ in range(steps):
        lp_old = policy(theta)
        cpos, cneg, _ = coefficients(lp_old, outs, G, "seq-mean-token-mean", T, dyn)
        for _ in range(mu):
            theta = clipped_step(theta, lp_old, outs, cpos, cneg, lr, lo, hi, T)
        e = expectations(theta, outs)
        Hs.append(e["H"])
        accs.append(e["acc"])
        lens.append(e["len"])
    return {"entropy0": H0, "entropy": Hs, "acc": accs, "mean_len": lens}


EVALUATORS = {
    "LEN-WEIGHTS": eval_weights,
    "LEN-DRIFT": eval_drift,
    "ENT-COLLAPSE": eval_entropy,
}


def selftest(t):
    from xcore import Ctx
    # CONVENTIONS.md detector: L = [[2], [1,1,1]] -> token-mean 1.25, seq-mean-token-mean 1.5,
    # seq-mean-token-sum 2.5, sum-norm with L_const 4 -> 0.625 (weights times the losses)
    losses = [[2], [1, 1, 1]]
    lens = [1.0, 3.0]
    for norm, want in (("token-mean", 1.25), ("seq-mean-token-mean", 1.5),
                       ("seq-mean-token-sum", 2.5), ("seq-mean-token-sum-norm", 0.625)):
        w = eval_weights(norm, {"max_len": 4.0}, {"lengths": lens, "group_size": 2},
                         Ctx())["w"]
        got = mp.fsum(w[i] * sum(losses[i]) for i in range(2))
        t.near("detector " + norm, got, mpf(want))
    # the score-function identity d/deta E[f] = E[f <grad log pi, g>] against mp.diff
    theta = [[mpf("0.3"), mpf("-0.2"), mpf("0.1")], [mpf(0), mpf("0.5"), mpf("-1")]]
    outs = outcomes(2)
    lp = policy(theta)
    g = [[mpf("0.7"), mpf("-0.1"), mpf("0.2")], [mpf("0.4"), mpf("0.3"), mpf("-0.6")]]
    p = [mp.exp(seq_logp(lp, o[0])) for o in outs]
    want = mp.fsum(pi * o[1] * mp.fsum(gl * gg for rg, rr in zip(grad_logp(lp, o[0], 2), g)
                                       for gl, gg in zip(rg, rr))
                   for pi, o in zip(p, outs))
    t.near("score-function identity", along(theta, g, outs, "len"), want, mpf(10) ** -60)
    t.near("probabilities sum to 1", mp.fsum(p), mpf(1))
    # G = 2, uniform policy, one step: the coefficients of token-mean and group-mean-length agree
    a = coefficients(lp, outs, 2, "token-mean", 2)
    b = coefficients(lp, outs, 2, "group-mean-length", 2)
    t.true("one group: token-mean = group-mean-length",
           all(abs(x - y) < mpf(10) ** -80 for x, y in zip(a[0] + a[1], b[0] + b[1])))
    # seq-mean-token-sum: every group's advantages sum to 0, so do the coefficients
    c = coefficients(lp, outs, 3, "seq-mean-token-sum", 2)
    t.true("sum of A over a group is 0", abs(mp.fsum(c[0]) + mp.fsum(c[1])) < mpf(10) ** -80)


SELFTESTS = [selftest]
