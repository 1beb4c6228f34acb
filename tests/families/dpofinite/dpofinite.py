"""The DPO derivation on an explicit finite outcome set, DPO-IMPLICIT-R, DPO-ZCANCEL and
DPO-EQUIV (000 section 4, eq. 13.17-13.21; the IPO loss of the IPO paper as CONVENTIONS.md
writes it), from the golden files' definitions and golden/FORMULAS.md.

pi_ref is given as probabilities p_ref, each finite and > 0 (the log-ratio log(pi/pi_ref) is
undefined where pi_ref = 0), used as the exact distribution p_ref/S with S the exact sum,
|S - 1| <= 2^-20.  With beta > 0 and rewards r:

    log Z = log sum_y pi_ref(y) e^{r(y)/beta}                                  (13.15)
    pi*(y) = pi_ref(y) e^{r(y)/beta} / Z,  h*(y) = log(pi*(y)/pi_ref(y))       (13.17)
    r^(y) = beta h*(y) + beta log Z  (= r(y))                                  (13.18)
    beta (h*(w) - h*(l)) = r(w) - r(l),  sigma(beta h*(w) - beta h*(l)) = sigma(r(w) - r(l))
                                                                            (13.19, 13.20)

DPO-EQUIV, the population losses of a policy pi = pi_ref e^h / sum(pi_ref e^h) over ordered
pairs (i, j), i != j, drawn from pi_ref x pi_ref and labelled "i preferred" with probability
P[i][j] (P[i][j] >= 0, P[i][j] + P[j][i] = 1 within 2^-20, each pair used as
P[i][j] / (P[i][j] + P[j][i]); the diagonal is not read):

    L(h) = sum_{i != j} pi_ref(i) pi_ref(j) P[i][j] l(h(i) - h(j)),
    DPO l(z) = -log sigma(beta z) (13.21),  IPO l(z) = (z - 1/(2 tau))^2.

dpo-bt takes P[i][j] = sigma(r(i) - r(j)) (13.6): every pair's term is least at
beta z = r(i) - r(j), so the minimiser is pi* of 13.17, L(pi*) = sum pi_ref pi_ref
sigma(r_i - r_j) softplus(r_j - r_i), computed here from the reward differences (not from h).
dpo-pref takes P: L is the Bradley-Terry negative log-likelihood of the scores beta h with
fractional counts pi_ref(i) pi_ref(j) P[i][j]; its minimum is finite exactly when the graph with an
edge i -> j for P[i][j] > 0 is strongly connected (Zermelo, Ford); here found by the damped Newton
method of xcore on those scores.  ipo takes P and tau: a weighted least-squares problem in h,
whose normal equations are solved here by mpmath's LU (the last h fixed, the gauge restored by
normalising pi).  The gradient is with respect to the logits of pi (L depends on differences of
h only, so it is the gradient in h); its norm at the minimiser is 0.  Values that are exactly 0
by an identity (the residual r^ - r, the gradient norm) are computed at three times the working
precision, so that their rounding error is far below 1e-100.  Nothing is taken from the C code.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import M, Reject, X, get_input, newton_max, sigmoid, softplus, strongly_connected

TOL = Fraction(1, 2 ** 20)
MAX_N = 64


def is_bad(v):
    return isinstance(v, float) and (math.isnan(v) or math.isinf(v))


def check_dist(p):
    qs = [Fraction(v) for v in p]
    if any(x <= 0 for x in qs):
        raise Reject("EDOM", "p_ref holds a probability <= 0")
    s = sum(qs, Fraction(0))
    if abs(s - 1) > TOL:
        raise Reject("EDOM", "p_ref sums to %s, farther than 2^-20 from 1" % float(s))
    return [x / s for x in qs]


def check_pos(v, name):
    if Fraction(v) <= 0:
        raise Reject("EDOM", "%s = %r is not > 0" % (name, v))


def read_pr(inputs, params, need_pair=False):
    """p_ref, r, beta (and w, l for a pair)."""
    p = get_input(inputs, params, "p_ref")
    r = get_input(inputs, params, "r")
    beta = get_input(inputs, params, "beta")
    n = len(p)
    if len(r) != n:
        raise Reject("EINVAL", "r has %d entries, p_ref %d" % (len(r), n))
    if n == 0:
        raise Reject("EINVAL", "no outcome")
    w = l = None
    if need_pair:
        w = get_input(inputs, params, "w")
        l = get_input(inputs, params, "l")
        if not (0 <= w < n and 0 <= l < n):
            raise Reject("EINVAL", "w or l is not an outcome")
    if any(is_bad(v) for v in p + r + [beta]):
        raise Reject("ENAN", "a NaN or infinite input")
    check_pos(beta, "beta")
    q = check_dist(p)
    if need_pair and w == l:
        raise Reject("EDOM", "w = l: a pair needs two outcomes")
    return q, [X(x) for x in r], X(beta), w, l


def optimum(q, r, beta):
    """log Z, log pi*, h* = log(pi*/pi_ref) at the working precision (13.15, 13.17)."""
    with mp.workprec(mp.prec + 64):
        lp = [mp.log(M(x)) for x in q]
        t = [a + b / beta for a, b in zip(lp, r)]
        m = max(t)
        logz = m + mp.log(mp.fsum(mp.exp(x - m) for x in t))
        logpi = [x - logz for x in t]
        h = [b / beta - logz for b in r]
    return +logz, [+x for x in logpi], [+x for x in h], lp


def eval_implicit(variant, params, inputs, ctx):
    q, r, beta, _, _ = read_pr(inputs, params)
    logz, logpi, h, lp = optimum(q, r, beta)
    out = {"pistar": [mp.exp(x) for x in logpi], "logz": logz}
    # 13.18 from pi* and Z as numbers: beta log(pi*/pi_ref) + beta log Z
    with mp.workprec(3 * mp.prec):
        lz3, lpi3, _, lp3 = optimum(q, r, beta)
        rhat = [beta * (a - b) + beta * lz3 for a, b in zip(lpi3, lp3)]
        res = [a - b for a, b in zip(rhat, r)]
    out["r_hat"] = [+x for x in rhat]
    out["residual"] = [x if abs(x) > mpf(10) ** -150 else mpf(0) for x in res]
    return out


def eval_zcancel(variant, params, inputs, ctx):
    q, r, beta, w, l = read_pr(inputs, params, need_pair=True)
    logz, logpi, h, lp = optimum(q, r, beta)
    with mp.workprec(mp.prec + 64):
        hw = logpi[w] - lp[w]
        hl = logpi[l] - lp[l]
        margin = beta * (hw - hl)
    d = M(Fraction(inputs["r"][w]) - Fraction(inputs["r"][l]))
    return {"h_w": hw, "h_l": hl, "margin": +margin, "reward_diff": d,
            "p_policy": sigmoid(margin), "p_reward": sigmoid(d), "logz": logz}


def read_pref(inputs, params, scalar):
    p = get_input(inputs, params, "p_ref")
    P = get_input(inputs, params, "P")
    s = get_input(inputs, params, scalar)
    n = len(p)
    if n < 2:
        raise Reject("EINVAL", "fewer than two outcomes")
    if n > MAX_N:
        raise Reject("EINVAL", "more than %d outcomes" % MAX_N)
    if len(P) != n * n:
        raise Reject("EINVAL", "P has %d entries, not n^2 = %d" % (len(P), n * n))
    if any(is_bad(v) for v in p + P + [s]):
        raise Reject("ENAN", "a NaN or infinite input")
    check_pos(s, scalar)
    q = check_dist(p)
    F = [[Fraction(P[i * n + j]) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j and F[i][j] < 0:
                raise Reject("EDOM", "P[%d][%d] is negative" % (i, j))
            if i < j and abs(F[i][j] + F[j][i] - 1) > TOL:
                raise Reject("EDOM", "P[%d][%d] + P[%d][%d] is not 1" % (i, j, j, i))
    # each pair normalised, P_ij / (P_ij + P_ji), as p_ref is by its sum
    F = [[F[i][j] / (F[i][j] + F[j][i]) if i != j else Fraction(0) for j in range(n)]
         for i in range(n)]
    return q, F, X(s), n


def weights(q, F, n):
    """w[i][j] = pi_ref(i) pi_ref(j) P[i][j], exact rationals (0 on the diagonal)."""
    return [[q[i] * q[j] * F[i][j] if i != j else Fraction(0) for j in range(n)]
            for i in range(n)]


def policy(q, g):
    """log pi = log pi_ref + g - log sum pi_ref e^g; h = log(pi/pi_ref) = g - that.  Each log pi_i
    is also -log(sum_j (pi_ref_j/pi_ref_i) e^(g_j - g_i)), the form kept where pi_i is within
    the working precision of 1 (log pi_i a tiny negative number the difference would lose)."""
    lp = [mp.log(M(x)) for x in q]
    t = [a + b for a, b in zip(lp, g)]
    m = max(t)
    lse = m + mp.log(mp.fsum(mp.exp(x - m) for x in t))
    logpi = []
    for i, ti in enumerate(t):
        rest = mp.fsum(mp.exp(tj - ti) for j, tj in enumerate(t) if j != i)
        logpi.append(-mp.log1p(rest) if rest < 1 else ti - lse)
    return logpi, [b - lse for b in g]


def loss_grad(W, h, n, kind, s):
    """L(h) and dL/dh of the population loss, l the DPO or IPO pair loss."""
    L = mpf(0)
    g = [mpf(0)] * n
    terms = []
    for i in range(n):
        for j in range(n):
            if i == j or W[i][j] == 0:
                continue
            w = M(W[i][j])
            z = h[i] - h[j]
            if kind == "dpo":
                val, d = softplus(-s * z), -s * sigmoid(-s * z)
            else:
                c = z - 1 / (2 * s)
                val, d = c * c, 2 * c
            terms.append(w * val)
            g[i] += w * d
            g[j] -= w * d
    return mp.fsum(terms), g


def norm(g):
    return mp.sqrt(mp.fsum(x * x for x in g))


def equiv_result(q, h, logpi, L, g):
    kl = mp.fsum(mp.exp(a) * b for a, b in zip(logpi, h))
    gn = norm(g)
    return {"logpi": logpi, "h": h, "loss": L, "kl": kl,
            "grad_norm": gn if gn > mpf(10) ** -150 else mpf(0)}


def eval_equiv(variant, params, inputs, ctx):
    if variant == "dpo-bt":
        q, r, beta, _, _ = read_pr(inputs, params)
        n = len(q)
        if n < 2:
            raise Reject("EINVAL", "fewer than two outcomes")
        if n > MAX_N:
            raise Reject("EINVAL", "more than %d outcomes" % MAX_N)
        rr = [Fraction(x) for x in inputs["r"]]
        # the loss at the minimiser from the reward differences: beta z = r_i - r_j
        L = mp.fsum(M(q[i] * q[j]) * sigmoid(M(rr[i] - rr[j])) * softplus(M(rr[j] - rr[i]))
                    for i in range(n) for j in range(n) if i != j)
        with mp.workprec(3 * mp.prec):
            logz, logpi, h, _ = optimum(q, r, beta)
            W = [[q[i] * q[j] for j in range(n)] for i in range(n)]
            # P = sigma(r_i - r_j) enters through the weights: keep it at full precision
            gq = [mpf(0)] * n
            for i in range(n):
                for j in range(n):
                    if i == j:
                        continue
                    wz = M(W[i][j]) * sigmoid(M(rr[i] - rr[j]))
                    d = -beta * sigmoid(-beta * (h[i] - h[j])) * wz
                    gq[i] += d
                    gq[j] -= d
            gn = norm(gq)
        kl = mp.fsum(mp.exp(a) * b for a, b in zip(logpi, h))
        return {"logpi": [+x for x in logpi], "h": [+x for x in h], "loss": L, "kl": +kl,
                "grad_norm": +gn if gn > mpf(10) ** -150 else mpf(0)}
    if variant == "dpo-pref":
        q, F, beta, n = read_pref(inputs, params, "beta")
        W = weights(q, F, n)
        if not strongly_connected(n, {(i, j) for i in range(n) for j in range(n)
                                      if W[i][j] > 0}):
            raise Reject("EDOM", "no finite minimiser: the preferences are deterministic "
                         "(the graph of P > 0 is not strongly connected)")

        def fgh(s):
            # log-likelihood of the scores s = beta h, counts W: concave
            f = mpf(0)
            g = [mpf(0)] * n
            H = [[mpf(0)] * n for _ in range(n)]
            for i in range(n):
                for j in range(n):
                    if i == j or W[i][j] == 0:
                        continue
                    w = M(W[i][j])
                    z = s[i] - s[j]
                    f -= w * softplus(-z)
                    a = w * sigmoid(-z)
                    g[i] += a
                    g[j] -= a
                    b = w * sigmoid(z) * sigmoid(-z)
                    H[i][i] -= b
                    H[j][j] -= b
                    H[i][j] += b
                    H[j][i] += b
            return f, g, H

        with mp.workprec(2 * mp.prec + 64):
            s, _ = newton_max(n, fgh)
            logpi, h = policy(q, [x / beta for x in s])
            L, g = loss_grad(W, h, n, "dpo", beta)
            res = equiv_result(q, h, logpi, L, g)
        return {k: ([+x for x in v] if isinstance(v, list) else +v) for k, v in res.items()}
    if variant == "ipo":
        q, F, tau, n = read_pref(inputs, params, "tau")
        W = weights(q, F, n)
        with mp.workprec(2 * mp.prec + 64):
            c = 1 / (2 * tau)
            # normal equations: sum_j (w_kj + w_jk)(g_k - g_j) = c sum_j (w_kj - w_jk),
            # g_{n-1} = 0
            A = mp.matrix(n - 1, n - 1)
            b = mp.matrix(n - 1, 1)
            for k in range(n - 1):
                b[k] = c * M(sum((W[k][j] - W[j][k] for j in range(n)), Fraction(0)))
                for j in range(n):
                    a = M(W[k][j] + W[j][k])
                    if j == k:
                        continue
                    A[k, k] += a
                    if j < n - 1:
                        A[k, j] -= a
            x = mp.lu_solve(A, b)
            gvec = [x[k] for k in range(n - 1)] + [mpf(0)]
            logpi, h = policy(q, gvec)
            L, g = loss_grad(W, h, n, "ipo", tau)
            res = equiv_result(q, h, logpi, L, g)
        return {k: ([+x for x in v] if isinstance(v, list) else +v) for k, v in res.items()}
    raise ValueError("unknown variant %r" % variant)


EVALUATORS = {"DPO-IMPLICIT-R": eval_implicit, "DPO-ZCANCEL": eval_zcancel,
              "DPO-EQUIV": eval_equiv}


# ----------------------------------------------------------------------------------------------
# Self-tests of the mathematics
# ----------------------------------------------------------------------------------------------

def selftest_ipo_three(t):
    """The IPO paper's illustration: uniform pi_ref over three actions, y1 > y2 > y3 always,
    tau = 0.1: p(y > mu) = (5/6, 1/2, 1/6) (self-pairs counted 1/2), so h1 - h2 = h2 - h3 =
    (1/3)/tau = 10/3, and the loss (1/9)[2 (10/3 - 5)^2 + (20/3 - 5)^2] = 25/27."""
    third = Fraction(1, 3)
    P = [0.5, 1, 1, 0, 0.5, 1, 0, 0, 0.5]
    inp = {"p_ref": [float(third)] * 3, "P": [float(x) for x in P], "tau": Fraction(1, 10)}
    out = eval_equiv("ipo", {}, inp, None)
    t.near("h1 - h2", out["h"][0] - out["h"][1], mpf(10) / 3, mpf(10) ** -60)
    t.near("h2 - h3", out["h"][1] - out["h"][2], mpf(10) / 3, mpf(10) ** -60)
    t.near("loss", out["loss"], mpf(25) / 27, mpf(10) ** -60)
    t.true("gradient 0", out["grad_norm"] == 0)


def selftest_dpo_pref_is_bt(t):
    """dpo-pref on the Bradley-Terry matrix of a reward reaches pi* of 13.17 (dpo-bt)."""
    r = [1.0, -0.5, 2.0]
    p = [0.2, 0.3, 0.5]
    P = [float(sigmoid(mpf(a) - mpf(b))) for a in r for b in r]
    # P as doubles is not exactly BT: compare with pi* of the rewards logit(P) instead
    rr = [mp.log(mpf(P[0 * 3 + j]) / (1 - mpf(P[0 * 3 + j]))) for j in range(3)]
    out = eval_equiv("dpo-pref", {}, {"p_ref": p, "P": P, "beta": 0.5}, None)
    # each pair's term is least at beta z = logit P_ij, consistent here up to the rounding of P
    z = 0.5 * (out["h"][0] - out["h"][1])
    t.near("beta (h0 - h1) ~ logit P01", z, rr[1], mpf(10) ** -14)


SELFTESTS = [selftest_ipo_three, selftest_dpo_pref_is_bt]
