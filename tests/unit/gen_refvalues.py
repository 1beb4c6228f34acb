#!/usr/bin/python3
"""gen_refvalues.py -- the reference values of the unit tests, from the formulas.

Writes refvalues.h: one macro per value, RV_NAME, a decimal string of 80
significant digits (an exact decimal where the value is a dyadic rational:
binary32 and binary64 results), or a brace list of them for a vector.  Every
value is computed here with mpmath (mp.dps = 120) on the exact binary64
inputs, from the mathematical definitions the tests state (sigma, softplus,
log-sum-exp, the Plackett-Luce and Bradley-Terry likelihoods and their score
equations solved with mpmath.findroot, the GRPO conventions of
golden/README.md with the binary32 ones emulated by rounding every operation
through struct.pack('f')), never from rlref's C code.

    gen_refvalues.py [OUT]          writes OUT (default: refvalues.h beside this file)
    gen_refvalues.py --check [OUT]  regenerates into a temporary file and exits 1
                                    if it differs from OUT
"""
import math
import os
import struct
import sys
import tempfile
from fractions import Fraction

from mpmath import mp, mpf, exp, log, log1p, expm1, sqrt, cosh, findroot, nstr

mp.dps = 120
DIGITS = 80

# ----- formatting -------------------------------------------------------------


def dyadic(q):
    """True when the rational q has a power-of-two denominator."""
    d = Fraction(q).denominator
    return d & (d - 1) == 0


def exact_decimal(q):
    """The exact decimal expansion of a dyadic rational q = n / 2^k: n 5^k / 10^k."""
    q = Fraction(q)
    sign = "-" if q < 0 else ""
    n, d = abs(q.numerator), q.denominator
    k = d.bit_length() - 1
    digits = str(n * 5 ** k).rjust(k + 1, "0")
    whole, frac = digits[:len(digits) - k], digits[len(digits) - k:].rstrip("0")
    return sign + whole + ("." + frac if frac else "")


def fmt(v):
    """A C string literal of the value v (Fraction, float or mpf); a float
    -0.0 (a binary32 result) keeps its sign."""
    if isinstance(v, float):
        if v == 0 and math.copysign(1.0, v) < 0:
            return '"-0"'
        v = Fraction(v)
    if isinstance(v, Fraction):
        if v == 0:
            return '"0"'
        if dyadic(v):
            return '"%s"' % exact_decimal(v)
        v = mpf(v.numerator) / v.denominator
    if v == 0:
        return '"0"'
    return '"%s"' % nstr(v, DIGITS)


# ----- the preference models and primitives -----------------------------------------


def F(x):
    """The binary64 number x, exactly."""
    return mpf(float(x))


def sigma(x):
    x = mpf(x)
    return 1 / (1 + exp(-x)) if x >= 0 else exp(x) / (1 + exp(x))


def softplus(x):
    x = mpf(x)
    return max(x, 0) + log1p(exp(-abs(x)))


def log1mexp(x):
    x = mpf(x)
    return log(-expm1(x)) if x > -1 else log1p(-exp(x))


def lse(xs):
    m = max(mpf(x) for x in xs)
    return m + log(sum(exp(mpf(x) - m) for x in xs))


def mean(xs):
    return sum(Fraction(x) for x in xs) / len(xs)


def var(xs, ddof):
    m = mean(xs)
    return sum((Fraction(x) - m) ** 2 for x in xs) / (len(xs) - ddof)


def msqrt(q):
    return sqrt(mpf(q.numerator) / q.denominator)


def mq(q):
    return mpf(q.numerator) / q.denominator


def pl_logprob(s, r):
    return sum(mpf(s[r[k]]) - lse([s[i] for i in r[k:]]) for k in range(len(r)))


def pl_grad_loglik(s, rks, cs):
    """d/ds sum_m c_m log P(pi_m; s)."""
    K = len(s)
    g = [mpf(0)] * K
    for r, c in zip(rks, cs):
        c = mpf(c)
        for k in range(K):
            R = r[k:]
            Z = sum(exp(s[i]) for i in R)
            for i in R:
                g[i] -= c * exp(s[i]) / Z
            g[r[k]] += c
    return g


def pl_mle(rks, cs, K):
    """Scores (mean zero) solving the PL score equations, and the log-likelihood."""
    def eqs(*v):
        s = list(v) + [-sum(v)]
        return pl_grad_loglik(s, rks, cs)[:K - 1]
    v = findroot(eqs, [mpf(0)] * (K - 1))
    v = [v] if K == 2 else [v[i] for i in range(K - 1)]
    s = v + [-sum(v)]
    ll = sum(mpf(c) * pl_logprob(s, r) for r, c in zip(rks, cs))
    return s, ll


def bt_mle(W, n):
    """Scores (mean zero) solving the BT score equations
    sum_j w_ij = sum_j (w_ij + w_ji) sigma(s_i - s_j), and the log-likelihood."""
    w = [[F(W[i * n + j]) for j in range(n)] for i in range(n)]

    def eqs(*v):
        s = list(v) + [-sum(v)]
        return [sum(w[i][j] - (w[i][j] + w[j][i]) * sigma(s[i] - s[j])
                    for j in range(n) if j != i) for i in range(n - 1)]
    v = findroot(eqs, [mpf(0)] * (n - 1))
    v = [v] if n == 2 else [v[i] for i in range(n - 1)]
    s = v + [-sum(v)]
    ll = sum(w[i][j] * log(sigma(s[i] - s[j])) for i in range(n) for j in range(n) if i != j)
    return s, ll


def primitives(out):
    out.section("primitives (test_primitives.c)")
    out.add("LOG2", log(2), "log 2")
    out.add("MINUS_LOG2", -log(2), "-log 2 = log sigma(0)")
    out.add("SIGMOID_1P5", sigma(1.5), "sigma(1.5), seed 000's worked example")
    out.add("SIGMOID_0P1", sigma(F(0.1)), "sigma(0.1) at the double 0.1")
    out.add("SIGMOID_M2", sigma(-2), "sigma(-2)")
    out.add("LOG_SIGMOID_2P5", -softplus(-2.5), "log sigma(2.5) = -softplus(-2.5)")
    out.add("SOFTPLUS_M2P5", softplus(-2.5), "softplus(-2.5)")
    out.add("SOFTPLUS_0P1", softplus(F(0.1)), "softplus(0.1)")
    out.add("LOG1MEXP_M1", log1mexp(-1), "log(1 - e^-1)")
    out.add("LOG1MEXP_M0P5", log1mexp(-0.5), "log(1 - e^-0.5)")
    out.add("LOG1MEXP_M1EM20", log1mexp(F(-1e-20)), "log(1 - e^x), x = -1e-20 (double)")
    out.add("LOG1MEXP_M1EM300", log1mexp(F(-1e-300)), "x = -1e-300 (double)")
    out.add("LOG1MEXP_M50", log1mexp(-50), "x = -50")
    out.add("LOG1MEXP_M1000", log1mexp(-1000), "x = -1000")
    out.add("LOG1MEXP_M1E4", log1mexp(-10000), "x = -1e4")
    out.add("LOG1MEXP_BRANCH", [log1mexp(F(-0.6931471805599453)), log1mexp(F(-0.6931471805599452)),
                                log1mexp(F(-0.6931471805599454))],
            "at the double nearest -log 2 and its neighbours below and above")
    out.add("SIGMOID_M1E4", sigma(-10000), "sigma(-1e4) = e^-1e4/(1 + e^-1e4)")
    out.add("SIGMOID_36P75", sigma(36.75), "sigma(36.75)")
    out.add("SIGMOID_M700", sigma(-700), "sigma(-700)")
    out.add("SIGMOID_M710", sigma(-710), "sigma(-710), subnormal in binary64")
    out.add("LOG_SIGMOID_M30", -softplus(30), "log sigma(-30)")
    out.add("SOFTPLUS_M40", softplus(-40), "softplus(-40) = log1p(e^-40)")
    out.add("LOG_SIGMOID_40", -softplus(-40), "log sigma(40) = -log1p(e^-40)")
    out.add("SOFTPLUS_M1000", softplus(-1000), "softplus(-1000) = log1p(e^-1000)")
    out.add("SOFTPLUS_M1E4", softplus(-10000), "softplus(-1e4) = log1p(e^-1e4)")
    out.add("LOG_SIGMOID_1E4", -softplus(-10000), "log sigma(1e4) = -log1p(e^-1e4)")
    out.add("LSE_1000_1000", lse([1000, 1000]), "lse(1000, 1000) = 1000 + log 2")
    out.add("LSE_M1000_M1000", lse([-1000, -1000]), "lse(-1000, -1000)")
    out.add("LSE_1E4_X4", lse([10000] * 4), "lse of four 1e4")
    out.add("LSE_1E4_X3", lse([10000] * 3), "lse of three 1e4")
    out.add("LSE_M1E4_X3", lse([-10000] * 3), "lse of three -1e4")
    out.add("LSE_LAST_BIT", lse([1.0, 1.0 + 2.0 ** -52]), "lse(1, 1 + 2^-52)")
    out.add("SOFTMAX_123", [exp(x - lse([1, 2, 3])) for x in (1, 2, 3)], "softmax(1, 2, 3)")
    out.add("LOG_SOFTMAX_123", [x - lse([1, 2, 3]) for x in (1, 2, 3)], "log_softmax(1, 2, 3)")
    out.add("THIRD", mpf(1) / 3, "1/3")
    out.add("VAR_1234_DDOF1", var([1, 2, 3, 4], 1), "variance (ddof 1) of 1, 2, 3, 4")
    out.add("VAR_1E8_DDOF0", var([1e8, 1e8 + 1, 1e8 + 2], 0), "variance (ddof 0) of 1e8 + (0, 1, 2)")
    tiny = [(k + 1) * 1e-150 for k in range(4)]
    huge = [(k + 1) * 1e150 for k in range(4)]
    out.add("VAR_TINY_DDOF0", var(tiny, 0), "variance (ddof 0) of the doubles k 1e-150, k = 1..4")
    out.add("VAR_TINY_DDOF1", var(tiny, 1), "the same, ddof 1")
    out.add("MEAN_TINY", mean(tiny), "their mean")
    out.add("VAR_HUGE_DDOF0", var(huge, 0), "variance (ddof 0) of the doubles k 1e150, k = 1..4")
    out.add("VAR_HUGE_DDOF1", var(huge, 1), "the same, ddof 1")
    big = [1.7e308, 1.7e308, -1.7e308]
    out.add("MEAN_BIG", mean(big), "mean of 1.7e308, 1.7e308, -1.7e308 (the sum overflows)")
    out.add("STD_BIG_DDOF0", msqrt(var(big, 0)), "their std (ddof 0); the variance overflows")
    out.add("VAR_BIG_DDOF0", var(big, 0), "their variance (ddof 0), beyond binary64")
    small = [0.0, 2.0 ** -600, 3 * 2.0 ** -600]
    out.add("STD_SMALL_DDOF0", msqrt(var(small, 0)), "std (ddof 0) of 0, 2^-600, 3 2^-600")
    out.add("VAR_SMALL_DDOF0", var(small, 0), "their variance, below binary64")


def pref(out):
    out.section("preference models (test_pref.c)")
    out.add("SIGMOID_M3", sigma(-3), "sigma(-3)")
    out.add("SIGMOID_10", sigma(10), "sigma(10)")
    out.add("SIGMOID_M40", sigma(-40), "sigma(-40)")
    out.add("SIGMOID_40", sigma(40), "sigma(40)")
    out.add("SIGMOID_M300", sigma(-300), "sigma(-300)")
    D = F(1.0) - F(0.2)
    out.add("RM_DETECTOR", softplus(-D), "-log sigma(1 - 0.2), the doubles")
    out.add("RM_DETECTOR_GRAD", -sigma(-D), "its d/dr_w = -sigma(-D)")
    rw, rl = [1.0, -0.5, 2.25], [0.2, 0.75, 2.0]
    c = F(0.01)
    L0 = sum(softplus(-(F(a) - F(b))) for a, b in zip(rw, rl)) / 3
    Lc = L0 + c * sum((F(a) + F(b)) ** 2 for a, b in zip(rw, rl)) / 3
    out.add("RM_BATCH_LOSS_C0", L0, "batch rw (1, -0.5, 2.25), rl (0.2, 0.75, 2): c = 0")
    out.add("RM_BATCH_LOSS_C001", Lc, "the same with c = 0.01 (double)")
    out.add("RM_BATCH_GRAD_RW_C001",
            [(-sigma(-(F(a) - F(b))) + 2 * c * (F(a) + F(b))) / 3 for a, b in zip(rw, rl)],
            "dL/dr_w, c = 0.01")
    out.add("RM_BATCH_GRAD_RL_C001",
            [(sigma(-(F(a) - F(b))) + 2 * c * (F(a) + F(b))) / 3 for a, b in zip(rw, rl)],
            "dL/dr_l, c = 0.01")
    out.add("RM_CENTRED_HUGE", softplus(0) + F(1e-300) * (2 * F(1e300)) ** 2,
            "rw = rl = 1e300, c = 1e-300: log 2 + c (rw + rl)^2")
    out.add("RM_OVERFLOW_PAIR", (softplus(2 * F(1e308)) + log(2)) / 2,
            "pairs (-1e308, 1e308) and (0, 0), c = 0: (softplus(2e308) + log 2)/2")
    z = F(1.0) - F(0.2) - F(0.5)
    out.add("MARGIN_DETECTOR", softplus(-z), "-log sigma(1 - 0.2 - 0.5)")
    out.add("MARGIN_DETECTOR_GRAD", -sigma(-z), "its d/dr_w")
    out.add("SMOOTH_HALF_1P5", log(2 * cosh(mpf(0.75))), "eps 1/2, |D| = 1.5: log(2 cosh(D/2))")
    e = F(0.1)
    out.add("SMOOTH_EPS01", (1 - e) * softplus(-D) + e * softplus(D), "eps 0.1 at (1, 0.2)")
    out.add("SMOOTH_EPS01_GRAD", -(1 - e) * sigma(-D) + e * sigma(D), "its d/dr_w")
    for name, s, lam in (("1234", [1, 2, 3, 4], 0.5), ("PT1", [0.1, 0.4, 0.35], 1.0)):
        m = mean(s)
        for ddof in (0, 1):
            v = var(s, ddof)
            sd = msqrt(v)
            out.add("ENS_%s_DDOF%d" % (name, ddof),
                    [m, v, sd, mq(m) - F(lam) * sd, mq(m) - F(lam) * mq(v)],
                    "scores %s, lambda %g, ddof %d: mean, var, std, mean - lambda std, "
                    "mean - lambda var" % (s, lam, ddof))
    out.add("PL_TWO", pl_logprob([0.3, -1.2], [0, 1]), "log P(0, 1) at s = (0.3, -1.2)")
    out.add("PL_NEAR_CERTAIN_40", -softplus(-40), "log P(0, 1) at s = (40, 0)")
    out.add("PL_NEAR_CERTAIN_1E4", -softplus(-10000), "log P(0, 1) at s = (1e4, 0)")
    out.add("LOG_1_24", -log(24), "log(1/4!)")
    out.add("LOG_1_6", -log(6), "log(1/3!)")
    out.add("PL_THREE", pl_logprob([0.5, -1.25, 2.0], [2, 0, 1]),
            "log P(2, 0, 1) at s = (0.5, -1.25, 2)")
    out.add("LOG4", log(4), "log 4")
    out.add("LOGLIK_8_2", 8 * log(mpf(8) / 10) + 2 * log(mpf(2) / 10), "8 log 0.8 + 2 log 0.2")
    rks = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1]]
    s, ll = pl_mle(rks, [5, 3, 1, 2], 3)
    out.add("PL_MLE3_SCORES", s, "PL fit of (0,1,2) x5, (1,0,2) x3, (2,1,0) x1, (0,2,1) x2")
    out.add("PL_MLE3_LOGLIK", ll, "its log-likelihood")
    s, ll = pl_mle([[0, 1, 2], [2, 1, 0]], [1, 1], 3)
    out.add("PL_MLE_SYM_SCORES", s, "PL fit of (0,1,2) and (2,1,0), once each")
    out.add("PL_MLE_SYM_LOGLIK", ll, "its log-likelihood (counts 1, 1)")
    out.add("PL_MLE_PAIR_1E100", [-log(F(1e100)) / 2, log(F(1e100)) / 2],
            "PL fit of (0,1) x1 and (1,0) x1e100 (the double): s0 - s1 = -log 1e100")
    W = [0, 3, 1, 4, 2, 0, 5, 1, 1, 2, 0, 3, 2, 1, 1, 0]
    s, ll = bt_mle(W, 4)
    out.add("BT_MLE4_SCORES", s, "BT fit of the 4 x 4 weights of test_bt_mle_four_items")
    out.add("BT_MLE4_LOGLIK", ll, "its log-likelihood")
    out.add("BT_MLE_1E308_LOGLIK", -2 * F(1e308) * log(2), "weights 1e308 both ways: -2e308 log 2")


def certify(out):
    out.section("certification (test_certify.c)")
    out.add("SENS_SIGMOID_1P5", sigma(1.5) * (1 - sigma(1.5)) * mpf(1.5),
            "sigma(1.5) (1 - sigma(1.5)) 1.5, the sensitivity of sigma at 1.5")


# ----- GRPO-ADV conventions (test_grpo.c) --------------------------------------------


def f32(x):
    """x (a double) rounded to binary32, nearest even; +-inf beyond."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


def fin(x):
    return x == x and abs(x) != float("inf")


def adv_exact(conv, r):
    """One group under an exactly computed convention (golden/README.md)."""
    n = len(r)
    if conv == "no-std":
        m = mean(r)
        return [Fraction(x) - m for x in r]
    if conv in ("trl", "batch-std-group"):
        if any(x == float("inf") or x == float("-inf") for x in r):
            return [Fraction(0)] * n
        ok = [x for x in r if x == x]
        if len(ok) < 2:
            return [Fraction(0)] * n
        m = mean(ok)
        sd = msqrt(var(ok, 1))
        return [(mq(Fraction(x) - m)) / (sd + F(1e-4)) if x == x else Fraction(0) for x in r]
    ddof, eps = {"seed-000": (0, 0.0), "seed-000-code": (0, 1e-8), "seed-001": (0, 1e-8),
                 "seed-003": (1, 0.0), "verl": (1, 1e-6), "openrlhf": (1, 1e-9),
                 "eps-in-sqrt": (1, 1e-8)}[conv]
    if n == 1:
        if conv == "verl":
            return [F(r[0]) / (1 + F(1e-6))]
        return [Fraction(0)]
    m = mean(r)
    v = var(r, ddof)
    if conv == "eps-in-sqrt":
        den = msqrt(v + Fraction(1e-8))
    else:
        sd = msqrt(v)
        if conv == "seed-000" and v == 0:
            return [Fraction(0)] * n
        if conv == "seed-001" and not sd > F(1e-8):
            return [Fraction(0)] * n
        if conv == "seed-003" and v == 0:
            return [Fraction(0)] * n
        den = sd + F(eps)
    return [mq(Fraction(x) - m) / den for x in r]


def adv_batch_std(r, G):
    """batch-std: group means, the std (ddof 1) of every scorable reward of the batch."""
    ok = [x for x in r if x == x]
    out = []
    if len(ok) < 2:
        return [Fraction(0)] * len(r)
    sd = msqrt(var(ok, 1))
    for g in range(0, len(r), G):
        grp = r[g:g + G]
        gok = [x for x in grp if x == x]
        m = mean(gok) if gok else Fraction(0)
        out += [mq(Fraction(x) - m) / (sd + F(1e-4)) if x == x else Fraction(0) for x in grp]
    return out


def adv_verl_old(r):
    """verl's old vectorised estimator in binary32, sums in index order."""
    x = [f32(v) for v in r]
    n = len(x)
    if n == 1:
        return [f32(f32(x[0] - 0.0) / f32(1.0 + f32(1e-6)))]
    s1 = s2 = 0.0
    for v in x:
        s1 = f32(s1 + v)
        s2 = f32(s2 + f32(v * v))
    var_ = f32(f32(s2 - f32(f32(s1 * s1) / n)) / (n - 1))
    std = f32(math.sqrt(max(var_, f32(1e-6))))
    m = f32(s1 / n)
    den = f32(std + f32(1e-6))
    return [f32(f32(v - m) / den) for v in x]


def adv_f32_order_alt(r):
    """verl's binary32 estimator with the variance in the other order,
    (s2/n - mean^2) n/(n - 1); sums in index order."""
    x = [f32(v) for v in r]
    n = len(x)
    s1 = s2 = 0.0
    for v in x:
        s1 = f32(s1 + v)
        s2 = f32(s2 + f32(v * v))
    m = f32(s1 / n)
    var_ = f32(f32(f32(s2 / n) - f32(m * m)) * f32(n / (n - 1)))
    std = f32(math.sqrt(max(var_, f32(1e-6))))
    den = f32(std + f32(1e-6))
    return [f32(f32(v - m) / den) for v in x]


def adv_trl_f32(r):
    """TRL's torch operations on float32 rewards: nanmean, nanstd with its
    float32 Bessel factor, (r - mean)/(std + 1e-4), nan_to_num."""
    x = [f32(v) for v in r]
    ok = [v for v in x if v == v]
    n = len(ok)
    if n == 0:
        return [0.0] * len(x)
    s = 0.0
    for v in ok:
        s = f32(s + v)
    m = f32(s / n)
    q = 0.0
    for v in ok:
        d = f32(v - m)
        q = f32(q + f32(d * d))
    var_ = f32(f32(q / n) * f32(n / (n - 1))) if n > 1 else float("nan")
    std = f32(math.sqrt(var_)) if var_ == var_ else float("nan")
    den = f32(std + f32(1e-4))
    out = []
    for v in x:
        a = f32(f32(v - m) / den) if v == v and den == den else float("nan")
        out.append(a if fin(a) else 0.0)
    return out


def adv(conv, r, G):
    if conv == "batch-std":
        return adv_batch_std(r, G)
    out = []
    for g in range(0, len(r), G):
        grp = r[g:g + G]
        if conv == "verl-vectorized-old":
            out += adv_verl_old(grp)
        elif conv == "trl-float32":
            out += adv_trl_f32(grp)
        else:
            out += adv_exact(conv, grp)
    return out


ALL = ["seed-000", "seed-001", "seed-000-code", "seed-003", "trl", "verl", "trl-float32",
       "verl-vectorized-old", "openrlhf", "eps-in-sqrt", "no-std", "batch-std"]


def cname(conv):
    return conv.upper().replace("-", "_")


def grpo(out):
    out.section("group advantages (test_grpo.c), RV_GRPO_<CASE>_<CONVENTION>: the advantages")
    cases = [("DET_1000", [1.0, 0.0, 0.0, 0.0], 4, ALL, "detector [1, 0, 0, 0], one group"),
             ("DET_SMALL", [0.0, 1e-4], 2, ALL, "detector [0, 1e-4], one group"),
             ("DET_OFFSET", [10000.0, 10001.0], 2, ALL, "detector [10000, 10001], one group"),
             ("EX_003", [0.2, 0.8, 0.4, 0.6], 4, ALL, "seed 003's example [0.2, 0.8, 0.4, 0.6]"),
             ("TRL_NAN", [1.0, float("nan"), 0.0, 0.0], 4, ["trl"], "[1, NaN, 0, 0]"),
             ("TWO_GROUPS", [0.3, 1.0, 0.0, 0.5, 0.5, 0.9], 3, ["batch-std"],
              "[0.3, 1, 0 | 0.5, 0.5, 0.9]"),
             ("BATCH_NAN", [1.0, float("nan"), 0.0, 0.0, 0.5, 0.5, 0.9, float("nan")], 4,
              ["batch-std"], "[1, NaN, 0, 0 | 0.5, 0.5, 0.9, NaN]"),
             ("TINY_SPREAD", [0.0, 1e-9], 2, ["seed-000", "seed-000-code"], "[0, 1e-9]"),
             ("F32_ORDER", [0.37, 0.06, 0.51], 3, ["verl-vectorized-old"], "[0.37, 0.06, 0.51]"),
             ("EPS_GUARD", [0.0, 1e-7], 2, ["seed-001"], "[0, 1e-7]"),
             ("GROUP_OF_ONE", [0.7], 1, ["verl", "verl-vectorized-old"], "[0.7], a group of one"),
             ("TRL_F32_OFFSET", [10000.3594, 10000.2822], 2, ["trl-float32"],
              "[10000.3594, 10000.2822]"),
             ("TRL_F32_NAN", [1.0, float("nan"), 0.0, 0.0], 4, ["trl-float32"], "[1, NaN, 0, 0]"),
             ("TRL_F32_INF", [float("inf"), 0.0], 2, ["trl-float32"], "[inf, 0]"),
             ("TRL_F32_OVERFLOW", [1e20, 0.0], 2, ["trl-float32"],
              "[1e20, 0], squared deviations beyond binary32"),
             ("TRL_F32_BEYOND", [1e39, 0.0], 2, ["trl-float32"], "[1e39, 0], beyond binary32"),
             ("F32_SUBNORMAL", [1e-40, 0.0, 3e-41], 3, ["verl-vectorized-old", "trl-float32"],
              "[1e-40, 0, 3e-41], binary32 subnormals"),
             ("CONST_0P3", [0.3] * 6, 6, ["verl-vectorized-old", "trl-float32"],
              "[0.3] x 6, binary32 mean not f32(0.3)")]
    exact = [c for c in ALL if c != "verl-vectorized-old"]
    cases += [("WIDE_SPREAD", [-1.7e308, -1.94, 1.7e308], 3, exact,
               "[-1.7e308, -1.94, 1.7e308] (verl-vectorized-old: binary32 overflow)"),
              ("SMALL_BESIDE_LARGE", [1.0, 2.0, 1e-200], 3, ALL, "[1, 2, 1e-200]"),
              ("THREE_WORDS", [3.0, 1.0, -2.0 ** -600, 2.0 ** -1000], 4, ["no-std", "seed-000"],
               "[3, 1, -2^-600, 2^-1000]")]
    for tag, r, G, convs, what in cases:
        for conv in convs:
            out.add("GRPO_%s_%s" % (tag, cname(conv)), adv(conv, r, G), "%s: %s" % (what, conv))
    out.add("GRPO_F32_ORDER_ALT", adv_f32_order_alt([0.37, 0.06, 0.51]),
            "[0.37, 0.06, 0.51] in binary32 with the variance (s2/n - mean^2) n/(n - 1)")
    r = [0.2, 0.8, 0.4, 0.6]
    out.add("GRPO_EX_003_STD1", msqrt(var(r, 1)), "std (ddof 1) of seed 003's example")
    out.add("GRPO_EX_003_STD0", msqrt(var(r, 0)), "std (ddof 0) of seed 003's example")
    out.add("GRPO_EX_003_MEAN", mean(r), "mean of seed 003's example (the doubles)")
    r = [-1.7e308, -1.94, 1.7e308]
    out.add("GRPO_WIDE_SPREAD_MEAN", mean(r), "mean of [-1.7e308, -1.94, 1.7e308]")
    out.add("GRPO_WIDE_SPREAD_STD0", msqrt(var(r, 0)), "their std (ddof 0)")
    out.add("GRPO_OPPOSITE_DDOF1", adv_exact("seed-003", [1.0, -1.0])[0],
            "(R - 0)/std of [R, -R] with ddof 1: 1/sqrt 2")


# ----- output ---------------------------------------------------------------------------


class Header:
    def __init__(self):
        self.lines = []
        self.names = set()

    def section(self, title):
        self.lines += ["", "/* ----- %s ----- */" % title]

    def add(self, name, value, comment):
        name = "RV_" + name
        if name in self.names:
            raise SystemExit("gen_refvalues.py: duplicate name " + name)
        self.names.add(name)
        self.lines.append("/* %s */" % comment.replace("*/", "* /"))
        if isinstance(value, list):
            items = [fmt(v) for v in value]
            self.lines.append("#define %s { \\" % name)
            for i, s in enumerate(items):
                self.lines.append("  %s%s \\" % (s, "," if i + 1 < len(items) else ""))
            self.lines.append("}")
        else:
            self.lines.append("#define %s %s" % (name, fmt(value)))

    def text(self):
        head = ["/* refvalues.h -- reference values of the unit tests, written by",
                " * gen_refvalues.py (mpmath, mp.dps = %d, %d significant digits; exact" % (mp.dps, DIGITS),
                " * decimals for binary32 and binary64 results).  Do not edit: change the",
                " * generator and run it; `gen_refvalues.py --check` fails on drift. */",
                "#ifndef RLREF_REFVALUES_H",
                "#define RLREF_REFVALUES_H"]
        return "\n".join(head + self.lines + ["", "#endif", ""])


def generate():
    h = Header()
    primitives(h)
    pref(h)
    certify(h)
    grpo(h)
    return h.text()


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    path = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "refvalues.h")
    text = generate()
    if check:
        with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as t:
            t.write(text)
        try:
            with open(path) as f:
                old = f.read()
        except OSError:
            old = None
        os.unlink(t.name)
        if old != text:
            print("gen_refvalues.py: %s differs from what the generator writes "
                  "(run tests/unit/gen_refvalues.py)" % path, file=sys.stderr)
            return 1
        print("refvalues: %s matches its generator (%d values)" % (path, text.count("#define RV_")))
        return 0
    with open(path, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
