"""BON and OVEROPT: best-of-n on a discrete space and the over-optimisation functional forms
(seed 000 §8.2, §8.4, §10.4; golden/FORMULAS.md section LEN; the forms and the bound are from
the literature the seed cites, Gao et al. 2022, and the best-of-n KL bound of Stiennon et al.
2020 / Beirami et al. 2024).

BON.  A base distribution p over K outcomes (each finite and >= 0, their exact sum S within
2^-20 of 1; the distribution used is p/S exactly) with finite rewards r.  Best-of-n draws n
i.i.d. outcomes from p and keeps one of highest reward; among tied outcomes, the first maximum
of the draws (the same as any choice by draw index or at random): the tied outcomes share the
mass of their reward level in proportion to p.  With the reward levels v (distinct values of r
among the outcomes), F(v) = P_p(r <= v), F(v^-) = P_p(r < v), m_v = F(v) - F(v^-):

    Q_v = F(v)^n - F(v^-)^n        (the law of the maximum of n draws)
    q_k = p_k Q_v / m_v            (k at level v; q_k = 0 where p_k = 0)
    KL(q || p) = sum_v Q_v log(Q_v / m_v)     (q/p is constant on a level)
    bound = log n - (n - 1)/n      (an upper bound on the KL, equal when the rewards are
                                    distinct and the space continuous)
    win = P(R_q > R_p) + P(R_q = R_p)/2 = sum_v Q_v (F(v^-) + m_v/2),  R_q ~ q, R_p ~ p
          independent (n/(n + 1) on a continuous space).

Q_v is computed exactly in rationals for n <= 2048, else by mpmath powers at a precision raised
until the difference keeps the working precision.  Nothing is taken from the C code.

OVEROPT.  d = sqrt(KL), KL >= 0 finite, beta > 0, alpha finite (Gao et al. 2022, fitted gold
reward against d):
    bon:  R(d) = d (alpha - beta d);       peak at d* = alpha/(2 beta), R* = alpha^2/(4 beta)
          when alpha > 0; for alpha <= 0 the curve never rises: d* = 0, R* = 0 (the maximum
          over d >= 0).
    rl:   R(d) = d (alpha - beta log d)  (R(0) = 0, the limit);  dR/dd = alpha - beta log d -
          beta = 0 at d* = exp(alpha/beta - 1), R* = beta d*.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import M, Reject, X, get_input

TOL = Fraction(1, 2 ** 20)      # how far the sum of the base probabilities may be from 1
EXACT_N = 2048                  # Q_v in rationals up to this n


def _is_nonfinite(v):
    return isinstance(v, float) and (math.isnan(v) or math.isinf(v))


# ----------------------------------------------------------------------------------------------
# BON
# ----------------------------------------------------------------------------------------------

def read_bon(params, inputs):
    p = get_input(inputs, params, "p")
    r = get_input(inputs, params, "r")
    n = get_input(inputs, params, "n")
    if not isinstance(p, list) or not isinstance(r, list) or len(p) == 0 or len(p) != len(r):
        raise Reject("EINVAL", "p and r must be non-empty arrays of one length")
    for name, arr in (("p", p), ("r", r)):
        for v in arr:
            if _is_nonfinite(v):
                raise Reject("ENAN", "%s holds %r" % (name, v))
    pq = [Fraction(v) for v in p]
    if any(v < 0 for v in pq):
        raise Reject("EDOM", "a negative probability")
    S = sum(pq, Fraction(0))
    if abs(S - 1) > TOL:
        raise Reject("EDOM", "the probabilities sum to %s, not 1 within 2^-20" % float(S))
    if not isinstance(n, int) or n < 1:
        raise Reject("EDOM", "n must be at least 1")
    return [v / S for v in pq], [Fraction(v) for v in r], n


def levels(p, r):
    """[(v, [k...], m_v, F(v^-))] by increasing reward v."""
    vals = sorted(set(r))
    out = []
    below = Fraction(0)
    for v in vals:
        ks = [k for k in range(len(r)) if r[k] == v]
        m = sum((p[k] for k in ks), Fraction(0))
        out.append((v, ks, m, below))
        below += m
    return out


def max_law(a, b, n):
    """b^n - a^n for rationals 0 <= a <= b <= 1, at the working precision."""
    if n <= EXACT_N:
        return M(b ** n - a ** n)
    if a == 0:
        return mp.power(M(b), n)
    extra = 64
    while True:
        with mp.workprec(mp.prec + extra):
            hi, lo = mp.power(M(b), n), mp.power(M(a), n)
            d = hi - lo
            lost = int(mp.log(hi / d, 2)) + 1 if d > 0 else mp.prec
        if lost + 32 < extra:
            return +d
        extra = lost + 96


def bon_dist(p, r, n):
    """Per level: (ks, m_v, F(v^-), Q_v as mpf)."""
    return [(ks, m, below, max_law(below, below + m, n)) for (v, ks, m, below) in levels(p, r)]


def eval_bon(variant, params, inputs, ctx):
    if variant != "first-max":
        raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)
    p, r, n = read_bon(params, inputs)
    q = [mpf(0)] * len(p)
    kl_terms, win_terms = [], []
    for ks, m, below, Q in bon_dist(p, r, n):
        if m == 0:
            continue
        for k in ks:
            q[k] = M(p[k]) * Q / M(m)
        if Q > 0:
            kl_terms.append(Q * (mp.log(Q) - mp.log(M(m))))
        win_terms.append(Q * M(below + m / 2))
    kl = mp.fsum(kl_terms) if n > 1 else mpf(0)
    bound = mp.log(n) - M(Fraction(n - 1, n))
    return {"q": q, "kl": kl, "bound": bound, "win": mp.fsum(win_terms)}


# ----------------------------------------------------------------------------------------------
# OVEROPT
# ----------------------------------------------------------------------------------------------

def eval_overopt(variant, params, inputs, ctx):
    kl = get_input(inputs, params, "kl")
    alpha = get_input(inputs, params, "alpha")
    beta = get_input(inputs, params, "beta")
    for name, v in (("kl", kl), ("alpha", alpha), ("beta", beta)):
        if _is_nonfinite(v):
            raise Reject("ENAN", "%s is %r" % (name, v))
    if kl < 0:
        raise Reject("EDOM", "KL < 0")
    if beta <= 0:
        raise Reject("EDOM", "beta <= 0")
    a, b = X(alpha), X(beta)
    d = mp.sqrt(X(kl))
    if variant == "bon":
        value = d * (a - b * d)
        if a > 0:
            ds, peak = a / (2 * b), a * a / (4 * b)
        else:
            ds, peak = mpf(0), mpf(0)
    elif variant == "rl":
        value = d * (a - b * mp.log(d)) if d > 0 else mpf(0)
        ds = mp.exp(a / b - 1)
        peak = b * ds
    else:
        raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)
    return {"d": d, "value": value, "d_star": ds, "peak": peak}


EVALUATORS = {
    "BON": eval_bon,
    "OVEROPT": eval_overopt,
}


# ----------------------------------------------------------------------------------------------
# Closed forms held to the goldens (detectors.py)
# ----------------------------------------------------------------------------------------------

def closed_forms(run):
    """Two equiprobable outcomes with distinct rewards: q = (2^-n, 1 - 2^-n) in reward order,
    win 3/4 - 2^-(n+1), bound log n - (n - 1)/n; OVEROPT's peaks alpha^2/(4 beta) and
    beta e^(alpha/beta - 1)."""
    for n, lo_first in ((2, True), (4, True), (256, False)):
        want = {"p": [0.5, 0.5], "r": [0.0, 1.0] if lo_first else [1.0, 0.0], "n": n}
        lo_idx = 0 if lo_first else 1
        label = "BON two outcomes, n = %d" % n
        run.exact("BON", "first-max", want, "q", lo_idx, lambda n=n: mpf(2) ** -n,
                  label + ": the worse outcome keeps 2^-n")
        run.exact("BON", "first-max", want, "win", None,
                  lambda n=n: mpf(3) / 4 - mpf(2) ** -(n + 1), label + ": win 3/4 - 2^-(n+1)")
        run.exact("BON", "first-max", want, "bound", None,
                  lambda n=n: mp.log(n) - mpf(n - 1) / n, label + ": bound log n - (n-1)/n")
    run.exact("BON", "first-max", {"p": [0.25, 0.25, 0.5], "r": [1.0, 1.0, 0.0], "n": 2}, "q", 0,
              lambda: mpf(3) / 8, "BON ties: the tied best outcomes share 3/4, 3/8 each")
    k = {"kl": 1.0, "alpha": 1.0, "beta": 0.25}
    run.exact("OVEROPT", "bon", k, "peak", None, lambda: mpf(1), "OVEROPT bon: alpha^2/(4 beta)")
    run.exact("OVEROPT", "rl", k, "d_star", None, lambda: mp.e ** 3, "OVEROPT rl: d* = e^3")
    run.exact("OVEROPT", "rl", k, "peak", None, lambda: mp.e ** 3 / 4, "OVEROPT rl: beta d*")


DETECTORS = [closed_forms]


# ----------------------------------------------------------------------------------------------
# Self-tests
# ----------------------------------------------------------------------------------------------

def selftest(t):
    from xcore import Ctx
    # a uniform base over two outcomes, distinct rewards: q = (2^-n, 1 - 2^-n)
    for n in (2, 4, 256):
        o = eval_bon("first-max", {}, {"p": [0.5, 0.5], "r": [0.0, 1.0], "n": n}, Ctx())
        t.near("two outcomes n=%d: q_low = 2^-n" % n, o["q"][0], mpf(2) ** -n)
        lo = mpf(2) ** -n
        kl = lo * mp.log(2 * lo) + (1 - lo) * mp.log(2 * (1 - lo))
        t.near("two outcomes n=%d: KL" % n, o["kl"], kl)
        t.true("two outcomes n=%d: KL <= bound" % n, o["kl"] <= o["bound"])
        t.near("two outcomes n=%d: win = 1/2 + (1 - 2^-n)/2 - 2^-n/4 ... " % n, o["win"],
               (1 - lo) * mpf(3) / 4 + lo / 4)
    # ties: rewards (1, 1, 0) with p = (1/4, 1/4, 1/2): the top level has mass 1/2, Q = 1 - 1/4^n
    o = eval_bon("first-max", {}, {"p": [0.25, 0.25, 0.5], "r": [1.0, 1.0, 0.0], "n": 2}, Ctx())
    t.near("ties share in proportion to p", o["q"][0], mpf(3) / 8)
    # a Monte-Carlo draw of the first maximum agrees with the tie rule (seeded)
    import random
    rnd = random.Random(7)
    p, r, cnt = [0.2, 0.3, 0.5], [1, 1, 0], [0, 0, 0]
    for _ in range(20000):
        draws = rnd.choices(range(3), weights=p, k=3)
        best = max(r[k] for k in draws)
        cnt[next(k for k in draws if r[k] == best)] += 1
    o = eval_bon("first-max", {}, {"p": p, "r": [1.0, 1.0, 0.0], "n": 3}, Ctx())
    t.true("first maximum of draws, tie rule (Monte Carlo, 5 sigma)",
           all(abs(cnt[k] / 20000 - float(o["q"][k])) < 5 * math.sqrt(0.25 / 20000)
               for k in range(3)))
    # n = 1: q = p, KL 0, win 1/2
    o = eval_bon("first-max", {}, {"p": [0.1, 0.6, 0.3], "r": [3.0, 1.0, 2.0], "n": 1}, Ctx())
    t.true("n = 1: KL 0", o["kl"] == 0 and o["bound"] == 0)
    t.near("n = 1: win 1/2", o["win"], mpf(1) / 2)
    # many distinct outcomes approach the continuous case: KL -> bound, win -> n/(n + 1)
    o = eval_bon("first-max", {}, {"p": [1.0 / 2048] * 2048, "r": [float(i) for i in range(2048)],
                                   "n": 4}, Ctx())
    t.true("2048 uniform outcomes: KL within 1e-2 of the bound",
           0 < o["bound"] - o["kl"] < mpf("1e-2"))
    t.true("2048 uniform outcomes: win within 1e-3 of n/(n+1)",
           abs(o["win"] - mpf(4) / 5) < mpf("1e-3"))
    # the large-n path agrees with exact rationals
    with mp.workprec(300):
        a, b = Fraction(1, 3), Fraction(1, 3) + Fraction(1, 10 ** 9)
        t.near("max law, n = 5000: powers against rationals", max_law(a, b, 5000),
               M(b ** 5000 - a ** 5000), mpf(10) ** -80)
    # OVEROPT peaks: the derivative vanishes at d*
    for var, a, b in (("bon", 2.0, 0.5), ("rl", 1.0, 0.25)):
        o = eval_overopt(var, {}, {"kl": 4.0, "alpha": a, "beta": b}, Ctx())
        ds = o["d_star"]
        f = (lambda d: d * (a - b * d)) if var == "bon" else (lambda d: d * (a - b * mp.log(d)))
        t.near("%s: R(d*) = peak" % var, f(ds), o["peak"])
        t.true("%s: R'(d*) = 0" % var, abs(mp.diff(f, ds)) < mpf(10) ** -30)


SELFTESTS = [selftest]
