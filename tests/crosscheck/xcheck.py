#!/usr/bin/python3
"""Independent cross-check of the rlref golden files (preference and group-advantage families).

Usage:
    /usr/bin/python3 tests/crosscheck/xcheck.py golden/        check every relevant golden/*.json
    /usr/bin/python3 tests/crosscheck/xcheck.py --selftest     check this file's own mathematics
    /usr/bin/python3 tests/crosscheck/xcheck.py golden/ --sens also recompute the "sens" fields
                                                               (reported, not counted)

Every expected output is recomputed here from the definitions in golden/README.md,
shared/FORMULAS.md, shared/CONVENTIONS.md and the seed chapters (000 §2.1, §10.1, eq. 13.23;
001; 003), using mpmath at two working precisions (and more when the two disagree), never from
the library under test.  Inputs are read from the "hex" fields (exact binary64).

A golden value passes when |golden - mine| <= 10^(e - digits + 1), e being the decimal exponent
of the golden value (one unit of the last certified digit), and its "hex" is the double nearest
to my value.  Exit status: 0 all passed, 1 some failed, 2 no file of these families found.
"""

import json
import math
import os
import re
import struct
import sys
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

FORMULAS = ["PREF-BT", "PREF-BT-GUMBEL", "PREF-RM-LOSS", "PREF-BT-EX", "PREF-MARGIN",
            "PREF-SMOOTH", "PREF-ENSEMBLE", "PREF-PL", "PREF-BT-MLE", "GRPO-ADV", "GRPO-ADV-EX"]

BASE_PREC = 400      # bits, first working precision
EXTRA_PREC = 128     # second precision = first + this
MAX_PREC = 6400      # escalation limit


# ----------------------------------------------------------------------------------------------
# Reading the golden encoding
# ----------------------------------------------------------------------------------------------

SPECIALS = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"),
            "+inf": float("inf"), "-nan": float("nan")}


def parse_hex(h):
    """A binary64 written as C99 %a, or one of the special spellings."""
    if h in SPECIALS:
        return SPECIALS[h]
    return float.fromhex(h)


def parse_real(obj):
    """A real input: {"dec","hex"}, or (tolerated) a plain JSON number / special string."""
    if isinstance(obj, dict):
        return parse_hex(obj["hex"])
    if isinstance(obj, str):
        return parse_hex(obj)
    if isinstance(obj, bool):
        raise ValueError("boolean where a real is expected")
    return float(obj)


def is_real_obj(obj):
    return isinstance(obj, dict) and "hex" in obj


def parse_value(obj):
    """Inputs and params: real objects become floats, arrays stay arrays, ints stay ints."""
    if is_real_obj(obj):
        return parse_real(obj)
    if isinstance(obj, list):
        return [parse_value(x) for x in obj]
    return obj


def check_dec_hex(obj):
    """True when the "dec" and "hex" spellings of an input denote the same double."""
    if not is_real_obj(obj) or "dec" not in obj:
        return True
    a = parse_hex(obj["hex"])
    d = obj["dec"]
    b = SPECIALS[d] if d in SPECIALS else float(d)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


VALUE_RE = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")


def parse_decimal_string(s):
    """Return (sign, significant digit string, e) where e is the decimal exponent of the
    leading significant digit; None digit string for zero."""
    m = VALUE_RE.match(s.strip())
    if not m or (m.group(2) == "" and not m.group(3)):
        raise ValueError("bad decimal string %r" % s)
    sign = -1 if m.group(1) == "-" else 1
    ip = m.group(2) or ""
    fp = m.group(3) or ""
    ex = int(m.group(4) or 0)
    allds = ip + fp
    stripped = allds.lstrip("0")
    if stripped == "":
        return sign, None, 0
    lead_zeros = len(allds) - len(stripped)
    e = len(ip) - 1 - lead_zeros + ex
    return sign, stripped, e


# ----------------------------------------------------------------------------------------------
# Rounding an exact value to binary64 / binary32
# ----------------------------------------------------------------------------------------------

def nearest_double(x):
    """The binary64 nearest to the mpf x (ties to even), with overflow to inf."""
    if mp.isnan(x):
        return float("nan")
    if mp.isinf(x):
        return float("inf") if x > 0 else float("-inf")
    sign, man, exp, bc = x._mpf_
    if man == 0:
        return -0.0 if sign else 0.0
    top = exp + bc                      # 2^(top-1) <= |x| < 2^top
    if top > 1100:
        r = float("inf")
    elif top < -1100:
        r = 0.0
    elif exp >= 0:
        try:
            r = float(man << exp)       # int -> float is correctly rounded
        except OverflowError:
            r = float("inf")
    else:
        try:
            r = man / (1 << -exp)       # int / int is correctly rounded
        except OverflowError:
            r = float("inf")
    return -r if sign else r


def round_f32_fraction(q):
    """Round an exact rational to the nearest binary32 (ties to even); returns a float."""
    if q == 0:
        return 0.0
    neg = q < 0
    q = -q if neg else q
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):   # q < 2^e
        e -= 1
    ulp_exp = max(e, -126) - 23                # binary32: 24-bit significand, emin -126
    if ulp_exp >= 0:
        num, den = n, d << ulp_exp
    else:
        num, den = n << -ulp_exp, d
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and (m & 1)):
        m += 1
    val = Fraction(m) * (Fraction(2) ** ulp_exp)
    if val >= Fraction(2) ** 128:
        res = float("inf")
    else:
        res = float(val)                       # exact: a binary32 value is a binary64 value
    return -res if neg else res


def f32(x):
    """Round a double or a Fraction to binary32."""
    if isinstance(x, Fraction):
        return round_f32_fraction(x)
    if math.isnan(x) or math.isinf(x):
        return x
    return round_f32_fraction(Fraction(x))


def f32_op(op, a, b=None):
    """One binary32 operation on binary32 operands, computed exactly and rounded once."""
    if op == "sqrt":
        if math.isnan(a) or a < 0:
            return float("nan")
        if math.isinf(a):
            return a
        # sqrt correctly rounded to 53 bits, then to 24 bits: no double-rounding error
        # because 53 >= 2*24 + 2.
        return f32(math.sqrt(a))
    if any(math.isnan(v) or math.isinf(v) for v in (a, b)):
        r = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
             "/": lambda: a / b if b != 0 else float("nan")}[op]()
        return f32(r)
    fa, fb = Fraction(a), Fraction(b)
    if op == "+":
        return f32(fa + fb)
    if op == "-":
        return f32(fa - fb)
    if op == "*":
        return f32(fa * fb)
    if op == "/":
        if fb == 0:
            if fa == 0:
                return float("nan")
            return math.copysign(float("inf"), a) * math.copysign(1.0, b)
        return f32(fa / fb)
    raise ValueError(op)


# ----------------------------------------------------------------------------------------------
# Evaluation context
# ----------------------------------------------------------------------------------------------

class Reject(Exception):
    """The input must be rejected (firm) or may defensibly be rejected (not firm)."""

    def __init__(self, code, why, firm=True):
        Exception.__init__(self, why)
        self.code = code
        self.why = why
        self.firm = firm


class Ctx:
    """Collects remarks where the definition leaves room for more than one reading."""

    def __init__(self):
        self.ambiguous = []
        self.exact = False          # outputs are exact (precision independent)
        self.notes = []


def finite_or_reject(values, name, ctx, nan_code="ENAN", inf_firm=False):
    """NaN inputs are always rejected; +-inf inputs may be rejected (ambiguous) unless firm."""
    for v in values:
        if math.isnan(v):
            raise Reject(nan_code, "NaN in %s" % name)
    for v in values:
        if math.isinf(v):
            if inf_firm:
                raise Reject(nan_code, "infinite value in %s" % name)
            ctx.ambiguous.append("infinite value in %s (limit value computed)" % name)
            return False
    return True


def Q(x):
    """Exact rational of a finite double."""
    return Fraction(x)


def M(q):
    """mpf of an exact rational (or a float) at the working precision."""
    if isinstance(q, Fraction):
        return mpf(q.numerator) / mpf(q.denominator)
    return mpf(q)


def X(v):
    """Exact mpf of an input value (a double, or a Fraction when an input is perturbed)."""
    if isinstance(v, Fraction):
        return M(v)
    return mpf(v)


def R(v):
    """A real input as a float, kept as a Fraction when it is one (perturbed inputs)."""
    return v if isinstance(v, Fraction) else float(v)


def sigmoid(x):
    """sigma(x) = 1/(1+e^{-x})  (000 eq. 13.6)."""
    if mp.isinf(x):
        return mpf(1) if x > 0 else mpf(0)
    return 1 / (1 + mp.exp(-x))


def softplus(x):
    """softplus(x) = log(1+e^x) = -log sigma(-x), evaluated without overflow or cancellation."""
    if mp.isinf(x):
        return x if x > 0 else mpf(0)
    if x > 0:
        return x + mp.log1p(mp.exp(-x))
    return mp.log1p(mp.exp(x))


def log_sigmoid(x):
    """log sigma(x) = -softplus(-x)."""
    return -softplus(-x)


def get_input(inputs, params, *names):
    for n in names:
        if n in inputs:
            return inputs[n]
    for n in names:
        if n in params:
            return params[n]
    raise KeyError("missing input %s" % "/".join(names))


def sub_exact(a, b):
    """a - b for doubles, exact when finite (as mpf), IEEE-like limits otherwise."""
    if math.isinf(a) or math.isinf(b):
        return X(a) - X(b)
    return M(Q(a) - Q(b))


# ----------------------------------------------------------------------------------------------
# PREF-BT: p = e^{rw}/(e^{rw}+e^{rl})  (000 eq. 13.5)  =  sigma(rw - rl)  (eq. 13.6)
# ----------------------------------------------------------------------------------------------

def eval_pref_bt(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    finite_or_reject([rw, rl], "rw/rl", ctx)
    d = sub_exact(rw, rl)
    if mp.isnan(d):
        raise Reject("ENAN", "rw - rl is inf - inf")
    p = sigmoid(d)
    # Cross-check against the ratio form (13.5), shifted by the larger score so it cannot
    # overflow; both are exact up to the working precision.
    if not mp.isinf(d):
        m = max(X(rw), X(rl))
        a, b = mp.exp(X(rw) - m), mp.exp(X(rl) - m)
        p2 = a / (a + b)
        if abs(p2 - p) > abs(p) * mpf(2) ** (-mp.prec + 32):
            ctx.notes.append("ratio form (13.5) and sigmoid form (13.6) differ by %s relative"
                             % mp.nstr(abs(p2 - p) / p, 3))
    return {"p": p}


# ----------------------------------------------------------------------------------------------
# PREF-BT-GUMBEL: P(rw + g_w > rl + g_l) = integral f(x) F(x + rw - rl) dx,
# f, F the standard Gumbel density and cdf (000 §2.1: BT = argmax with Gumbel noise).
# ----------------------------------------------------------------------------------------------

QUAD_LIMIT = 2.0 ** 40   # beyond this |rw - rl| the integration grid cannot resolve x


def gumbel_integral(d):
    """Numerical integral of f(x) F(x + d) with mpmath.quad (tanh-sinh), in the original
    variable x.  The integrand is scaled by e^c, c = log(1 + e^{-d}) the location of its peak,
    only so that quad's absolute tolerance becomes a relative one; breakpoints are placed around
    the peak.  Below x = c - log(0.7 prec + 20) - 1 the integrand is below 2^-prec relative."""
    c = mp.log1p(mp.exp(-d)) if d > -50 else -d + mp.log1p(mp.exp(d))
    scale = mp.exp(c)

    def integrand(x):
        f = mp.exp(-x - mp.exp(-x))               # Gumbel density
        F = mp.exp(-mp.exp(-(x + d)))             # Gumbel cdf at x + d
        return scale * f * F

    lo = c - mp.log(mp.prec * 0.7 + 20) - 1
    pts = [lo, c - 1, c, c + 2, c + 8, c + 32, mp.inf]
    v, err = mp.quad(integrand, pts, error=True)
    return v / scale, err


def eval_pref_bt_gumbel(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    finite_or_reject([rw, rl], "rw/rl", ctx)
    d = sub_exact(rw, rl)
    if mp.isnan(d):
        raise Reject("ENAN", "rw - rl is inf - inf")
    closed = sigmoid(d)
    if mp.isinf(d) or abs(d) > QUAD_LIMIT:
        ctx.notes.append("|rw-rl| too large for the quadrature grid; closed form sigma used")
        return {"p": closed}
    v, err = gumbel_integral(d)
    # quad must agree with sigma(d) (the integral's exact value) to near working precision
    if abs(v - closed) > abs(closed) * mpf(2) ** (-mp.prec + 48):
        ctx.notes.append("quadrature and sigma(rw-rl) differ by %s relative"
                         % mp.nstr(abs(v - closed) / closed, 3))
    ctx.closed_form = {"p": closed}
    return {"p": v}


# ----------------------------------------------------------------------------------------------
# PREF-RM-LOSS: loss = (1/B) sum -log sigma(rw_i - rl_i)  (000 eq. 13.7);
# variant trl-center adds c (1/B) sum (rw_i + rl_i)^2  (CONVENTIONS "Reward-model loss").
# d loss/d rw_i = -sigma(-(rw_i - rl_i))/B [+ 2c(rw_i + rl_i)/B], d loss/d rl_i = the opposite
# of the first term [+ the same centring term].
# ----------------------------------------------------------------------------------------------

def real_param(params, names, default):
    for n in names:
        if n in params and isinstance(params[n], (float, Fraction)):
            return params[n], n
    return default, None


def eval_pref_rm_loss(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    if not isinstance(rw, list):
        rw, rl = [rw], [rl]
    B = len(rw)
    if B == 0:
        raise Reject("EINVAL", "empty batch")
    if len(rl) != B:
        raise Reject("EINVAL", "rw and rl differ in length")
    finite_or_reject(rw + rl, "rw/rl", ctx)
    center = variant is not None and "center" in variant
    c = 0.01 if center else 0.0               # README: trl-center c = 0.01, otherwise none
    pc, cname = real_param(params, ["c", "center_coef", "center_rewards_coefficient", "coef"],
                           None)
    if isinstance(pc, Fraction):
        c = pc                                # perturbed for the sensitivity check
    elif cname is not None and pc != c:
        raise Reject("EINVAL", "params c = %r, README says %r for variant %r"
                     % (pc, c, variant), firm=False)
    cB = X(c) / B
    loss = mpf(0)
    grw, grl = [], []
    for a, b in zip(rw, rl):
        d = sub_exact(a, b)
        if mp.isnan(d):
            raise Reject("ENAN", "rw - rl is inf - inf")
        loss += softplus(-d)
        s = sigmoid(-d)
        g_c = 0
        if center:
            t = X(a) + X(b) if (math.isinf(a) or math.isinf(b)) else M(Q(a) + Q(b))
            loss += X(c) * t * t
            g_c = 2 * cB * t
        grw.append(-s / B + g_c)
        grl.append(s / B + g_c)
    loss = loss / B
    return {"loss": loss, "grad_rw": grw, "grad_rl": grl}


# ----------------------------------------------------------------------------------------------
# PREF-MARGIN: loss = -log sigma(rw - rl - m)  (000 §10.1, Llama-2 margin)
# ----------------------------------------------------------------------------------------------

def eval_pref_margin(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    m = get_input(inputs, params, "m", "margin")
    finite_or_reject([rw, rl, m], "rw/rl/m", ctx)
    if any(math.isinf(v) for v in (rw, rl, m)):
        z = X(rw) - X(rl) - X(m)
    else:
        z = M(Q(rw) - Q(rl) - Q(m))
    if mp.isnan(z):
        raise Reject("ENAN", "rw - rl - m is undefined")
    s = sigmoid(-z)
    return {"loss": softplus(-z), "grad_rw": -s, "grad_rl": s}


# ----------------------------------------------------------------------------------------------
# PREF-SMOOTH: loss = -(1-eps) log sigma(D) - eps log sigma(-D), D = rw - rl  (000 §10.1);
# d loss/d D = sigma(D) - (1 - eps).
# ----------------------------------------------------------------------------------------------

def eval_pref_smooth(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    eps = get_input(inputs, params, "eps", "epsilon", "label_smoothing")
    finite_or_reject([rw, rl], "rw/rl", ctx)
    if math.isnan(eps) or math.isinf(eps):
        raise Reject("ENAN", "eps not finite")
    if eps < 0 or eps > 1:
        raise Reject("EDOM", "eps outside [0, 1]")
    if eps > 0.5:
        ctx.ambiguous.append("eps > 1/2 (the smoothed label favours the loser)")
    d = sub_exact(rw, rl)
    if mp.isnan(d):
        raise Reject("ENAN", "rw - rl is inf - inf")
    e = M(Q(eps))
    one_minus = M(1 - Q(eps))
    if mp.isinf(d):
        # limits: only the term whose weight is non-zero can diverge
        if d > 0:
            loss = mpf(0) if eps == 0 else mp.inf
        else:
            loss = mp.inf if eps < 1 else mpf(0)
    else:
        loss = one_minus * softplus(-d) + e * softplus(d)
    g = sigmoid(d) - one_minus
    return {"loss": loss, "grad_rw": g, "grad_rl": -g}


# ----------------------------------------------------------------------------------------------
# PREF-ENSEMBLE: mean, var (ddof 0 or 1), std = sqrt(var), penalized = mean - lambda std
# (000 §10.1, RM ensembles with an uncertainty penalty)
# ----------------------------------------------------------------------------------------------

def variant_ddof(variant, params, default=None):
    if variant:
        mm = re.search(r"ddof\s*[-_=]?\s*(\d)", variant)
        if mm:
            return int(mm.group(1))
    if isinstance(params.get("ddof"), int):
        return params["ddof"]
    return default


def eval_pref_ensemble(variant, params, inputs, ctx):
    s = get_input(inputs, params, "scores", "rewards")
    lam = get_input(inputs, params, "lambda", "lam", "penalty")
    ddof = variant_ddof(variant, params)
    if ddof is None:
        raise Reject("EINVAL", "cannot tell ddof from variant %r" % variant, firm=False)
    if "ddof" in params and params["ddof"] != ddof:
        ctx.notes.append("params ddof %r but variant says %d" % (params["ddof"], ddof))
    K = len(s)
    if K == 0:
        raise Reject("EINVAL", "empty ensemble")
    if K - ddof <= 0:
        raise Reject("EDOM", "K = %d with ddof %d" % (K, ddof))
    finite_or_reject(s, "scores", ctx, inf_firm=True)
    if math.isnan(lam) or math.isinf(lam):
        raise Reject("ENAN", "lambda not finite")
    if lam < 0:
        ctx.ambiguous.append("negative lambda (a bonus, not a penalty)")
    qs = [Q(x) for x in s]
    mean = sum(qs, Fraction(0)) / K
    var = sum(((x - mean) ** 2 for x in qs), Fraction(0)) / (K - ddof)
    std = mp.sqrt(M(var))
    return {"mean": M(mean), "var": M(var), "std": std,
            "penalized": M(mean) - M(Q(lam)) * std}


# ----------------------------------------------------------------------------------------------
# PREF-PL: Plackett-Luce (000 §10.1): log p(pi | s) = sum_k [s_{pi_k} - log sum_{j>=k} e^{s_{pi_j}}]
# ----------------------------------------------------------------------------------------------

def logsumexp(xs):
    m = max(xs)
    if mp.isinf(m):
        return m
    return m + mp.log(mp.fsum(mp.exp(x - m) for x in xs))


def pl_loglik_grad_hess(s, rankings, want_hess=True, counts=None):
    """Log-likelihood, gradient and Hessian in s of full rankings under PL, ranking m weighted
    by counts[m] (1 when counts is None)."""
    K = len(s)
    L = mpf(0)
    g = [mpf(0)] * K
    H = [[mpf(0)] * K for _ in range(K)] if want_hess else None
    for m, pi in enumerate(rankings):
        c = mpf(1) if counts is None else counts[m]
        if c == 0:
            continue
        for k in range(len(pi) - 1):
            rest = pi[k:]
            lse = logsumexp([s[j] for j in rest])
            L += c * (s[pi[k]] - lse)
            g[pi[k]] += c
            p = {j: mp.exp(s[j] - lse) for j in rest}
            for j in rest:
                g[j] -= c * p[j]
            if want_hess:
                for a in rest:
                    H[a][a] -= c * p[a]
                    for b in rest:
                        H[a][b] += c * p[a] * p[b]
    return L, g, H


def is_permutation(pi, K):
    return len(pi) == K and sorted(pi) == list(range(K))


def strongly_connected(n, edges):
    """edges: set of (i, j); True when every node reaches every other."""
    if n <= 1:
        return True
    fwd = {i: [] for i in range(n)}
    rev = {i: [] for i in range(n)}
    for i, j in edges:
        fwd[i].append(j)
        rev[j].append(i)
    for adj in (fwd, rev):
        seen = {0}
        stack = [0]
        while stack:
            u = stack.pop()
            for v in adj[u]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        if len(seen) != n:
            return False
    return True


def newton_max(n, fgh):
    """Maximise a concave function of n scores invariant under a common shift.  Fixes the last
    score during the solve (the reduced Hessian is negative definite when the comparison graph is
    strongly connected), damped Newton with backtracking, then shifts to mean zero."""
    s = [mpf(0)] * n
    L, g, H = fgh(s)
    tiny = mpf(2) ** (-mp.prec + 24)
    for _ in range(500):
        if n == 1:
            break
        A = mp.matrix(n - 1, n - 1)
        bvec = mp.matrix(n - 1, 1)
        for i in range(n - 1):
            bvec[i] = -g[i]
            for j in range(n - 1):
                A[i, j] = H[i][j]
        step = mp.lu_solve(A, bvec)
        dx = [step[i] for i in range(n - 1)] + [mpf(0)]
        t = mpf(1)
        while True:
            trial = [s[i] + t * dx[i] for i in range(n)]
            L2, g2, H2 = fgh(trial)
            if L2 >= L - abs(L) * tiny or t < mpf(2) ** -60:
                break
            t /= 2
        s, L, g, H = trial, L2, g2, H2
        size = max(abs(x) for x in dx) * t
        if size <= tiny * (1 + max(abs(x) for x in s)):
            break
    mean = mp.fsum(s) / n
    s = [x - mean for x in s]
    L, g, H = fgh(s)
    return s, L


def eval_pref_pl(variant, params, inputs, ctx):
    if "rankings" in inputs or (variant and "mle" in variant):
        return eval_pref_pl_mle(variant, params, inputs, ctx)
    s = get_input(inputs, params, "scores")
    pi = get_input(inputs, params, "ranking")
    K = len(s)
    if K == 0:
        raise Reject("EINVAL", "no items")
    if not is_permutation(pi, K):
        raise Reject("EINVAL", "ranking is not a permutation of 0..K-1")
    finite_or_reject(s, "scores", ctx, inf_firm=True)
    sm = [X(x) for x in s]
    L, g, _ = pl_loglik_grad_hess(sm, [pi], want_hess=False)
    return {"logp": L, "loss": -L, "grad": [-x for x in g]}


# PREF-PL mle: maximum-likelihood PL scores of sum_m counts_m log P(ranking_m), mean zero
# (000 §10.1); a finite maximum exists iff "ranked above" (over rankings with a positive count)
# is strongly connected (Hunter 2004).
def eval_pref_pl_mle(variant, params, inputs, ctx):
    K = get_input(inputs, params, "K", "k")
    flat = get_input(inputs, params, "rankings")
    if not isinstance(K, int) or K <= 0:
        raise Reject("EINVAL", "K must be a positive integer")
    if len(flat) == 0 or len(flat) % K != 0:
        raise Reject("EINVAL", "rankings length %d is not a positive multiple of K" % len(flat))
    rankings = [flat[i:i + K] for i in range(0, len(flat), K)]
    for pi in rankings:
        if not is_permutation(pi, K):
            raise Reject("EINVAL", "a ranking is not a permutation")
    try:
        counts = [R(c) for c in get_input(inputs, params, "counts")]
    except KeyError:
        counts = [1.0] * len(rankings)
        ctx.notes.append("no counts: every ranking counted once")
    if len(counts) != len(rankings):
        raise Reject("EINVAL", "counts has %d entries for %d rankings"
                     % (len(counts), len(rankings)))
    for c in counts:
        if math.isnan(c) or math.isinf(c):
            raise Reject("ENAN", "non-finite count")
        if c < 0:
            raise Reject("EDOM", "negative count")
    edges = set()
    for pi, c in zip(rankings, counts):
        if c > 0:
            for a in range(K):
                for b in range(a + 1, K):
                    edges.add((pi[a], pi[b]))
    if not strongly_connected(K, edges):
        raise Reject("EDOM", "the ranked-above graph is not strongly connected: no finite MLE")
    cm = [X(c) for c in counts]
    s, L = newton_max(K, lambda x: pl_loglik_grad_hess(x, rankings, counts=cm))
    return {"scores": s, "loglik": L}


# ----------------------------------------------------------------------------------------------
# PREF-BT-MLE: maximise sum_ij w_ij log sigma(s_i - s_j)  (000 §2.1, MLE of eq. 13.6/13.7)
# ----------------------------------------------------------------------------------------------

def bt_loglik_grad_hess(s, W):
    n = len(s)
    L = mpf(0)
    g = [mpf(0)] * n
    H = [[mpf(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if W[i][j] != 0:
                L += W[i][j] * log_sigmoid(s[i] - s[j])
    for i in range(n):
        for j in range(i + 1, n):
            d = s[i] - s[j]
            p = sigmoid(d)
            q = sigmoid(-d)
            # d/ds_i [w_ij log sig(d) + w_ji log sig(-d)] = w_ij q - w_ji p
            gi = W[i][j] * q - W[j][i] * p
            g[i] += gi
            g[j] -= gi
            h = (W[i][j] + W[j][i]) * p * q
            H[i][i] -= h
            H[j][j] -= h
            H[i][j] += h
            H[j][i] += h
    return L, g, H


def bt_mle(W_float, ctx):
    n = len(W_float)
    for row in W_float:
        for w in row:
            if math.isnan(w) or math.isinf(w):
                raise Reject("ENAN", "non-finite count")
            if w < 0:
                raise Reject("EDOM", "negative count")
    edges = {(i, j) for i in range(n) for j in range(n) if i != j and W_float[i][j] > 0}
    if not strongly_connected(n, edges):
        raise Reject("EDOM", "comparison graph not strongly connected: no finite maximum")
    if any(W_float[i][i] != 0 for i in range(n)):
        ctx.ambiguous.append("non-zero diagonal count (self-comparison) included in loglik")
    W = [[X(w) for w in row] for row in W_float]
    return newton_max(n, lambda x: bt_loglik_grad_hess(x, W))


def eval_pref_bt_mle(variant, params, inputs, ctx):
    n = get_input(inputs, params, "n")
    wins = get_input(inputs, params, "wins")
    if not isinstance(n, int) or n <= 0:
        raise Reject("EINVAL", "n must be a positive integer")
    if len(wins) != n * n:
        raise Reject("EINVAL", "wins has %d entries, n*n = %d" % (len(wins), n * n))
    W = [[R(wins[i * n + j]) for j in range(n)] for i in range(n)]
    s, L = bt_mle(W, ctx)
    return {"scores": s, "loglik": L}


# ----------------------------------------------------------------------------------------------
# PREF-BT-EX: seed 000 §2.1 worked example.  sigma group: p = sigma(rw - rl).
# mle-pair: delta = MLE of r_w - r_l from wins_w vs wins_l (Newton on the 2-item BT likelihood,
# compared with the closed form log(wins_w/wins_l)), p = sigma(delta).
# ----------------------------------------------------------------------------------------------

def eval_pref_bt_ex(variant, params, inputs, ctx):
    if "wins_w" in inputs or (variant and "mle" in variant):
        ww = R(get_input(inputs, params, "wins_w"))
        wl = R(get_input(inputs, params, "wins_l"))
        W = [[0.0, ww], [wl, 0.0]]
        s, L = bt_mle(W, ctx)
        delta = s[0] - s[1]
        closed = mp.log(X(ww) / X(wl))
        if abs(delta - closed) > mpf(2) ** (-mp.prec + 40) * (1 + abs(closed)):
            ctx.notes.append("Newton delta differs from log(wins_w/wins_l)")
        return {"delta": delta, "p": sigmoid(delta)}
    return eval_pref_bt(variant, params, inputs, ctx)


# ----------------------------------------------------------------------------------------------
# GRPO-ADV: group advantage (000 eq. 13.23; 001; 003) under each named convention
# (golden/README.md "GRPO-ADV variants", CONVENTIONS.md "Group advantage").
# ----------------------------------------------------------------------------------------------

# variant -> (ddof, eps as the binary64 of the decimal literal, rule)
GRPO_TABLE = {
    "seed-000": (0, 0.0, "std>0"),
    "seed-001": (0, 1e-8, "std>eps"),
    "seed-003": (1, 0.0, "std>0"),
    "trl": (1, 1e-4, "plain"),
    "verl": (1, 1e-6, "plain"),
    "verl-vectorized-old": (1, 1e-6, "float32"),
    "openrlhf": (1, 1e-9, "plain"),
    "eps-in-sqrt": (1, 1e-8, "sqrt-eps"),
    "no-std": (None, None, "nostd"),
    "batch-std": (1, 1e-4, "batch"),
}


def grpo_rule_of(variant, params, ctx):
    if variant in GRPO_TABLE:
        ddof, eps, kind = GRPO_TABLE[variant]
        if isinstance(params.get("eps"), Fraction):
            eps = params["eps"]                # perturbed for the sensitivity check
        return (ddof, eps, kind)
    # not named in the README: fall back to the params (generic (r-mean)/(std+eps), 0 at zero
    # variance) and say so
    ddof = variant_ddof(variant, params)
    eps = params.get("eps", 0.0)
    if ddof is None:
        raise Reject("EINVAL", "unknown variant %r without ddof" % variant, firm=False)
    ctx.notes.append("variant %r is not in the README table; rule read from params" % variant)
    return (ddof, eps if isinstance(eps, float) else 0.0, "std>0")


def grpo_stats(qs, ddof):
    """Exact mean and variance (ddof) of a list of rationals."""
    n = len(qs)
    mean = sum(qs, Fraction(0)) / n
    var = sum(((x - mean) ** 2 for x in qs), Fraction(0)) / (n - ddof)
    return mean, var


def grpo_group(r, variant, rule, ctx):
    """Advantages of one group; returns (mean, std, adv) as mpf (mean/std None if not defined)."""
    ddof, eps, kind = rule
    G = len(r)
    if kind == "float32":
        return grpo_group_f32(r, ctx)
    if kind == "nostd":
        qs = [Q(x) for x in r]
        mean = sum(qs, Fraction(0)) / G
        return M(mean), None, [M(x - mean) for x in qs]
    if variant == "trl":
        # NaN rewards are left out of mean and std and get advantage 0; fewer than two scorable
        # rewards -> std 0 (TRL forces std to 0 for a group of one).
        idx = [i for i, x in enumerate(r) if not math.isnan(x)]
        qs = [Q(r[i]) for i in idx]
        if len(qs) == 0:
            return None, None, [mpf(0)] * G
        mean = sum(qs, Fraction(0)) / len(qs)
        if len(qs) >= 2:
            _, var = grpo_stats(qs, 1)
        else:
            var = Fraction(0)
        std = mp.sqrt(M(var))
        den = std + M(Q(eps))
        adv = [mpf(0)] * G
        for i in idx:
            num = Q(r[i]) - mean
            adv[i] = M(num) / den if num != 0 else mpf(0)
        return M(mean), std, adv
    qs = [Q(x) for x in r]
    if variant == "verl" and G == 1:
        # verl: a group of one gets mean 0 and std 1, so r/(1 + eps) leaks through
        return mpf(0), mpf(1), [M(qs[0]) / (1 + M(Q(eps)))]
    if G - ddof <= 0:
        if variant == "openrlhf":
            raise Reject("EDOM", "openrlhf refuses a group of one")
        if kind == "sqrt-eps":
            # eps-in-sqrt: the README gives a group of one advantage 0
            return M(qs[0]), None, [mpf(0)]
        if kind == "std>0":
            # seed-003 (ddof 1) for one sample: 0/0 variance; "zero variance -> 0" is one reading
            ctx.ambiguous.append("group of one with ddof 1 (variance 0/0)")
            mean = qs[0]
            return M(mean), None, [mpf(0)]
        raise Reject("EDOM", "group of one with ddof %d" % ddof)
    mean, var = grpo_stats(qs, ddof)
    std = mp.sqrt(M(var))
    e = Q(eps)
    if kind == "sqrt-eps":
        # eps-in-sqrt: (r - mean)/sqrt(var + eps), var + eps formed exactly; no branch (zero
        # variance has r - mean = 0, so the advantage is exactly 0 by itself)
        den = mp.sqrt(M(var + e))
        return M(mean), std, [M(x - mean) / den if x != mean else mpf(0) for x in qs]
    if kind == "std>0":
        branch = var > 0
    elif kind == "std>eps":
        branch = var > e * e                 # std > eps, decided exactly
    else:
        branch = True                        # plain (r - mean)/(std + eps)
    adv = []
    for x in qs:
        num = x - mean
        if not branch or num == 0:
            adv.append(mpf(0))
        else:
            adv.append(M(num) / (std + M(e)))
    return M(mean), std, adv


def grpo_group_f32(r, ctx):
    """verl before May 2026, vectorised one-pass form, every operation in binary32:
    s1 = sum r, s2 = sum r*r accumulated left to right; mean = s1/G;
    var = ((s2/G - mean*mean) * G) / (G - 1), floored at 1e-6; adv = (r - mean)/(sqrt(var) + 1e-6)."""
    G = len(r)
    if G == 1:
        raise Reject("EDOM", "verl-vectorized-old rejects a group of one")
    ctx.exact = True
    rf = [f32(x) for x in r]
    s1 = 0.0
    s2 = 0.0
    for x in rf:
        s1 = f32_op("+", s1, x)
        s2 = f32_op("+", s2, f32_op("*", x, x))
    g = f32(float(G))
    mean = f32_op("/", s1, g)
    ex2 = f32_op("/", s2, g)
    m2 = f32_op("*", mean, mean)
    var = f32_op("-", ex2, m2)
    var = f32_op("*", var, g)
    var = f32_op("/", var, f32(float(G - 1)))
    floor = f32(1e-6)
    if not (var >= floor):
        var = floor if not math.isnan(var) else var
    std = f32_op("sqrt", var)
    den = f32_op("+", std, f32(1e-6))
    adv = [f32_op("/", f32_op("-", x, mean), den) for x in rf]
    return mpf(mean), mpf(std), [mpf(a) for a in adv]


def grpo_check_params(variant, params, rule, ctx):
    """The group's params must agree with the README table; returns a list of mismatches."""
    bad = []
    ddof, eps, kind = rule
    if variant not in GRPO_TABLE:
        return bad
    if "ddof" in params and ddof is not None and params["ddof"] != ddof:
        bad.append("ddof %r, README says %r" % (params["ddof"], ddof))
    for name in ("eps", "epsilon"):
        if name in params and isinstance(params[name], float) and eps is not None:
            if params[name] != eps:
                bad.append("%s %r, README says %r" % (name, params[name], eps))
    return bad


def grpo_validate_rewards(r, variant, ctx):
    for x in r:
        if math.isinf(x):
            raise Reject("ENAN", "infinite reward")
        if math.isnan(x) and variant != "trl":
            raise Reject("ENAN", "NaN reward (only trl accepts NaN)")


def eval_grpo_adv(variant, params, inputs, ctx):
    r = get_input(inputs, params, "rewards")
    G = get_input(inputs, params, "group_size", "G")
    rule = grpo_rule_of(variant, params, ctx)
    N = len(r)
    if not isinstance(G, int) or G <= 0:
        raise Reject("EINVAL", "group size must be a positive integer")
    if N == 0:
        raise Reject("EINVAL", "no rewards")
    if N % G != 0:
        raise Reject("EINVAL", "N = %d is not a multiple of G = %d" % (N, G))
    grpo_validate_rewards(r, variant, ctx)
    if rule[2] == "batch":
        return {"adv": grpo_batch_std(r, G, rule, ctx)}
    adv = []
    for k in range(0, N, G):
        _, _, a = grpo_group(r[k:k + G], variant, rule, ctx)
        adv.extend(a)
    return {"adv": adv}


def grpo_batch_std(r, G, rule, ctx):
    """batch-std (TRL scale_rewards="batch"): (r - group mean)/(std of the whole batch + eps)."""
    ddof, eps, _ = rule
    qs = [Q(x) for x in r]
    N = len(qs)
    if N - ddof <= 0:
        ctx.ambiguous.append("batch of one: batch std (ddof 1) undefined")
        return [mpf(0)] * N
    _, var = grpo_stats(qs, ddof)
    den = mp.sqrt(M(var)) + M(Q(eps))
    adv = []
    for k in range(0, N, G):
        grp = qs[k:k + G]
        mean = sum(grp, Fraction(0)) / G
        for x in grp:
            num = x - mean
            adv.append(M(num) / den if num != 0 else mpf(0))
    return adv


# GRPO-ADV-EX: the seeds' worked examples (000 §5.1 [1,0,0,1]; 001; 003 [0.2,0.8,0.4,0.6]):
# mean, std (ddof of the variant; for seed-001 the sigma that is compared with eps) and adv.
def eval_grpo_adv_ex(variant, params, inputs, ctx):
    r = get_input(inputs, params, "rewards")
    rule = grpo_rule_of(variant, params, ctx)
    if len(r) == 0:
        raise Reject("EINVAL", "no rewards")
    grpo_validate_rewards(r, variant, ctx)
    if rule[2] == "batch":
        raise Reject("EINVAL", "batch-std is not a one-group rule", firm=False)
    mean, std, adv = grpo_group(r, variant, rule, ctx)
    out = {"adv": adv}
    if mean is not None:
        out["mean"] = mean
    if std is not None:
        out["std"] = std
    elif rule[2] == "nostd" and len(r) >= 1:
        # no-std has no std of its own; report the sample std (ddof 1) if asked for
        qs = [Q(x) for x in r]
        if len(qs) >= 2:
            _, var = grpo_stats(qs, 1)
            out["std"] = mp.sqrt(M(var))
    return out


EVALUATORS = {
    "PREF-BT": eval_pref_bt,
    "PREF-BT-GUMBEL": eval_pref_bt_gumbel,
    "PREF-RM-LOSS": eval_pref_rm_loss,
    "PREF-BT-EX": eval_pref_bt_ex,
    "PREF-MARGIN": eval_pref_margin,
    "PREF-SMOOTH": eval_pref_smooth,
    "PREF-ENSEMBLE": eval_pref_ensemble,
    "PREF-PL": eval_pref_pl,
    "PREF-BT-MLE": eval_pref_bt_mle,
    "GRPO-ADV": eval_grpo_adv,
    "GRPO-ADV-EX": eval_grpo_adv_ex,
}


# ----------------------------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------------------------

def flatten_outputs(d):
    """{name: scalar or list} -> {(name, index or None): scalar}."""
    out = {}
    for k, v in d.items():
        if isinstance(v, list):
            for i, x in enumerate(v):
                out[(k, i)] = x
        else:
            out[(k, None)] = v
    return out


def evaluate_at(formula, variant, params, inputs, prec):
    ctx = Ctx()
    ctx.closed_form = None
    with mp.workprec(prec):
        vals = EVALUATORS[formula](variant, params, inputs, ctx)
        vals = flatten_outputs(vals)
        closed = flatten_outputs(ctx.closed_form) if ctx.closed_form else {}
    return vals, closed, ctx


def mpf_str(x, n=25):
    with mp.workprec(max(mp.prec, 200)):
        if mp.isnan(x):
            return "nan"
        if mp.isinf(x):
            return "inf" if x > 0 else "-inf"
        return mp.nstr(x, n)


def golden_tol(gobj):
    """(golden mpf, tolerance mpf, digits, e) for a numeric golden value string."""
    v = gobj["value"]
    sign, ds, e = parse_decimal_string(v)
    digits = gobj.get("digits")
    g = mpf(v)
    tol = mpf(10) ** (e - digits + 1)
    return g, tol, ds, e


def needed_prec(gouts):
    dmax = 0
    for v in gouts.values():
        for o in (v if isinstance(v, list) else [v]):
            if isinstance(o, dict) and isinstance(o.get("digits"), int):
                dmax = max(dmax, o["digits"])
    return max(BASE_PREC, int(dmax * 3.33) + 96)


def special_of(x):
    if mp.isnan(x):
        return "nan"
    if mp.isinf(x):
        return "inf" if x > 0 else "-inf"
    return None


class Reporter:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.notes = []
        self.unchecked = 0
        self.sens = False
        self.sens_ok = 0
        self.sens_bad = 0
        self.sens_bad_file = {}

    def fail(self, fname, tcid, name, idx, golden, mine, why=""):
        self.failed += 1
        where = "%s[%d]" % (name, idx) if idx is not None else name
        print("FAIL %s tcId %s %s: golden %s, mine %s%s"
              % (fname, tcid, where, golden, mine, ("  (" + why + ")") if why else ""))

    def ok(self):
        self.passed += 1

    def note(self, text):
        self.notes.append(text)
        print("NOTE " + text)


def compare_one(rep, fname, tcid, key, gobj, v1, v2, closed, flags):
    """Compare one golden output object with my value at two precisions."""
    name, idx = key
    gval = gobj.get("value") if isinstance(gobj, dict) else None
    if gval is None or "digits" not in gobj or "hex" not in gobj:
        rep.fail(fname, tcid, name, idx, repr(gobj), mpf_str(v1), "malformed output object")
        return True
    for fld in ("sens", "cert"):
        if fld not in gobj:
            rep.note("%s tcId %s %s: output lacks %r" % (fname, tcid, name, fld))
    sp = special_of(v1)
    if gval in ("nan", "inf", "-inf"):
        ok = sp == gval and (parse_hex(gobj["hex"]) == nearest_double(v1) or
                             (gval == "nan" and math.isnan(parse_hex(gobj["hex"]))))
        if ok:
            rep.ok()
        else:
            rep.fail(fname, tcid, name, idx, gval, mpf_str(v1))
        return True
    if sp is not None:
        rep.fail(fname, tcid, name, idx, gval, sp)
        return True
    try:
        hx = parse_hex(gobj["hex"])
    except ValueError:
        rep.fail(fname, tcid, name, idx, gobj["hex"], nearest_double(v1).hex(), "malformed hex")
        return True
    if gval == "0" or gobj["digits"] == 0:
        if gval not in ("0", "-0", "0.0") or gobj["digits"] != 0:
            rep.fail(fname, tcid, name, idx, "%s (digits %s)" % (gval, gobj["digits"]),
                     mpf_str(v1), "exact zero must be written \"0\" with digits 0")
            return True
        if v1 == 0 or abs(v1) < mpf(10) ** -100:
            if hx != 0:
                rep.fail(fname, tcid, name, idx, gobj["hex"], "0", "hex of an exact zero")
            else:
                rep.ok()
        else:
            rep.fail(fname, tcid, name, idx, "0 (exact)", mpf_str(v1))
        return True
    g, tol, ds, e = golden_tol(gobj)
    digits = gobj["digits"]
    # stability of my own value: the two precisions must agree far below the tolerance
    if abs(v1 - v2) > tol * mpf(10) ** -6 or nearest_double(v1) != nearest_double(v2):
        return False                              # caller escalates precision
    if ds is not None and len(ds) != digits:
        rep.fail(fname, tcid, name, idx, gval, mpf_str(v1, digits + 3),
                 "value has %d significant digits, field says %d" % (len(ds), digits))
        return True
    if digits < 30 and not flags:
        rep.note("%s tcId %s %s: only %d digits and no flag says why" % (fname, tcid, name, digits))
    diff = abs(g - v1)
    nd = nearest_double(v1)
    hex_ok = hx == nd and math.copysign(1, hx) == math.copysign(1, nd)
    hex_why = "" if hex_ok else "; hex %s, nearest double %s" % (gobj["hex"], nd.hex())
    if diff > tol:
        rep.fail(fname, tcid, name, idx, gval, mpf_str(v1, digits + 3),
                 "off by %s units of the last digit%s" % (mp.nstr(diff / tol, 3), hex_why))
        return True
    if diff > tol * mpf("0.5000001"):
        rep.note("%s tcId %s %s%s: golden not correctly rounded (off %s units), within 1 unit"
                 % (fname, tcid, name, "" if idx is None else "[%d]" % idx,
                    mp.nstr(diff / tol, 3)))
    if key in closed:
        c = closed[key]
        if abs(g - c) > tol:
            rep.fail(fname, tcid, name, idx, gval, mpf_str(c, digits + 3),
                     "closed form sigma(rw-rl) disagrees")
            return True
    if not hex_ok:
        rep.fail(fname, tcid, name, idx, gobj["hex"], nd.hex(), "hex is not the nearest double")
        return True
    rep.ok()
    return True


# ----------------------------------------------------------------------------------------------
# Optional: the "sens" field, sum_j |df/dx_j| |x_j| over every real input and parameter
# (golden/README.md), by central differences in the relative perturbation x_j (1 +- h).
# ----------------------------------------------------------------------------------------------

SENS_H = Fraction(1, 2 ** 120)


def real_slots(raw_inputs, raw_params):
    slots = []
    for k, v in raw_inputs.items():
        if is_real_obj(v):
            slots.append(("in", k, None))
        elif isinstance(v, list):
            for i, o in enumerate(v):
                if is_real_obj(o):
                    slots.append(("in", k, i))
    for k, v in (raw_params or {}).items():
        if is_real_obj(v):
            slots.append(("param", k, None))
    return slots


def perturbed(inputs, params, slot, factor):
    where, k, i = slot
    ins = dict(inputs)
    par = dict(params)
    d = ins if where == "in" else par
    if i is None:
        d[k] = Fraction(d[k]) * factor
    else:
        arr = list(d[k])
        arr[i] = Fraction(arr[i]) * factor
        d[k] = arr
    return ins, par


def my_sens(formula, variant, params, raw_params, raw_inputs, inputs, prec):
    """{output key: sum_j |x_j df/dx_j|}; None when an evaluation fails."""
    total = {}
    for slot in real_slots(raw_inputs, raw_params):
        where, k, i = slot
        x = (inputs if where == "in" else params)[k]
        x = x if i is None else x[i]
        if not isinstance(x, float) or x == 0 or math.isnan(x) or math.isinf(x):
            continue
        try:
            ip, pp = perturbed(inputs, params, slot, 1 + SENS_H)
            im, pm = perturbed(inputs, params, slot, 1 - SENS_H)
            fp, _, _ = evaluate_at(formula, variant, pp, ip, prec)
            fm, _, _ = evaluate_at(formula, variant, pm, im, prec)
        except Reject:
            return None
        with mp.workprec(prec):
            for key in fp:
                if key in fm and not (special_of(fp[key]) or special_of(fm[key])):
                    d = abs(fp[key] - fm[key]) / (2 * M(SENS_H))
                    total[key] = total.get(key, mpf(0)) + d
    return total


def check_sens(rep, fname, tcid, formula, variant, params, raw_params, raw_inputs, inputs,
               gouts, flags):
    if variant == "verl-vectorized-old":
        return
    mine = my_sens(formula, variant, params, raw_params, raw_inputs, inputs, BASE_PREC)
    if mine is None:
        rep.sens_bad += 1
        print("SENS %s tcId %s: cannot evaluate the perturbed inputs" % (fname, tcid))
        return
    for key, gobj in flatten_outputs(gouts).items():
        if not isinstance(gobj, dict) or "sens" not in gobj:
            continue
        g = float(gobj["sens"])
        m = float(mine.get(key, 0))
        # sens has 3 significant digits; values below 1e-30 are rounding noise of an exact 0
        agree = abs(m - g) <= 0.0051 * max(abs(m), abs(g)) or max(abs(m), abs(g)) < 1e-30
        if "NonDifferentiable" in flags and g == 0:
            agree = True                      # sens is 0 by definition at a branch
        if agree:
            rep.sens_ok += 1
            continue
        rep.sens_bad += 1
        rep.sens_bad_file[fname] = rep.sens_bad_file.get(fname, 0) + 1
        if rep.sens_bad_file[fname] <= 5:
            print("SENS %s tcId %s %s%s: golden sens %s, mine %.4g"
                  % (fname, tcid, key[0], "" if key[1] is None else "[%d]" % key[1],
                     gobj["sens"], m))


def check_test(rep, fname, formula, variant, params, t, raw_params=None):
    tcid = t.get("tcId")
    result = t.get("result")
    flags = t.get("flags", [])
    raw_inputs = t.get("inputs", {})
    for k, v in raw_inputs.items():
        for o in (v if isinstance(v, list) else [v]):
            if not check_dec_hex(o):
                rep.fail(fname, tcid, "input:" + k, None, repr(o), "-", "dec and hex differ")
    inputs = {k: parse_value(v) for k, v in raw_inputs.items()}
    gouts = t.get("outputs", {}) or {}
    prec = needed_prec(gouts)
    try:
        v1, closed, ctx = evaluate_at(formula, variant, params, inputs, prec)
        rej = None
    except Reject as r:
        rej = r
    except (KeyError, ValueError, TypeError, ZeroDivisionError) as ex:
        rep.fail(fname, tcid, "-", None, result, "cannot evaluate: %r" % (ex,))
        return

    if result == "invalid":
        if "error" not in t:
            rep.fail(fname, tcid, "error", None, "(missing)", "an error field",
                     "invalid test without error")
            return
        if rej is not None:
            rep.ok()
            if rej.firm and rej.code != t["error"]:
                rep.note("%s tcId %s: golden error %s, my reading %s (%s)"
                         % (fname, tcid, t["error"], rej.code, rej.why))
        elif ctx.ambiguous:
            rep.ok()
            rep.note("%s tcId %s: golden rejects (%s); defensible: %s"
                     % (fname, tcid, t["error"], "; ".join(ctx.ambiguous)))
        else:
            rep.fail(fname, tcid, "result", None, "invalid (%s)" % t["error"],
                     "valid input by my reading")
        return

    if result not in ("valid", "acceptable"):
        rep.fail(fname, tcid, "result", None, repr(result), "-", "unknown result")
        return
    if rej is not None:
        rep.fail(fname, tcid, "result", None, result,
                 "%s: %s" % ("must reject" if rej.firm else "cannot compute", rej.why))
        return
    if ctx.ambiguous:
        rep.note("%s tcId %s: golden accepts; reading used: %s"
                 % (fname, tcid, "; ".join(ctx.ambiguous)))
    for n in ctx.notes:
        rep.note("%s tcId %s: %s" % (fname, tcid, n))

    gflat = flatten_outputs(gouts)
    for key in v1:
        if key not in gflat and (key[0], None) not in gflat:
            if key[0] not in gouts:
                rep.note("%s tcId %s: golden has no output %r" % (fname, tcid, key[0]))
                break
    if any(isinstance(gouts.get(k), list) for k in gouts):
        for k, v in gouts.items():
            mine_len = sum(1 for kk in v1 if kk[0] == k)
            if isinstance(v, list) and mine_len != len(v):
                rep.fail(fname, tcid, k, None, "%d values" % len(v), "%d values" % mine_len,
                         "length differs")
    pending = [key for key in gflat if key in v1]
    for key in gflat:
        if key not in v1:
            rep.unchecked += 1
            rep.note("%s tcId %s: output %s%s not recomputed here"
                     % (fname, tcid, key[0], "" if key[1] is None else "[%d]" % key[1]))
    if rep.sens and result in ("valid", "acceptable"):
        check_sens(rep, fname, tcid, formula, variant, params, raw_params, raw_inputs, inputs,
                   gouts, flags)
    p = prec
    while pending:
        p2 = p + EXTRA_PREC
        try:
            w1, closed1, _ = evaluate_at(formula, variant, params, inputs, p)
            w2, _, _ = evaluate_at(formula, variant, params, inputs, p2)
        except Reject as r:
            rep.fail(fname, tcid, "-", None, result, "reject at higher precision: " + r.why)
            return
        with mp.workprec(p2 + 64):
            still = []
            for key in pending:
                done = compare_one(rep, fname, tcid, key, gflat[key], w1[key], w2[key],
                                   closed1, flags)
                if not done:
                    still.append(key)
        pending = still
        if pending:
            if p >= MAX_PREC:
                for key in pending:
                    rep.fail(fname, tcid, key[0], key[1], gflat[key].get("value"),
                             mpf_str(w1[key]), "my value is not stable up to %d bits" % p)
                return
            p *= 2


def check_file(rep, path):
    fname = os.path.basename(path)
    with open(path) as fh:
        data = json.load(fh)
    formula = data.get("formula")
    if formula not in EVALUATORS:
        return False
    before = (rep.passed, rep.failed)
    n_tests = 0
    seen = set()
    for grp in data.get("testGroups", []):
        variant = grp.get("variant")
        params = {k: parse_value(v) for k, v in (grp.get("params") or {}).items()}
        if formula in ("GRPO-ADV", "GRPO-ADV-EX") and variant in GRPO_TABLE:
            # the group's ddof and eps must be the README's (one check per group)
            bad = grpo_check_params(variant, params, GRPO_TABLE[variant], None)
            if bad:
                rep.fail(fname, "-", "params:" + str(variant), None, "; ".join(bad), "-")
            else:
                rep.ok()
        for t in grp.get("tests", []):
            n_tests += 1
            tcid = t.get("tcId")
            if tcid in seen:
                rep.fail(fname, tcid, "tcId", None, tcid, "-", "duplicate tcId")
            seen.add(tcid)
            try:
                check_test(rep, fname, formula, variant, params, t, grp.get("params"))
            except Exception as ex:           # a malformed test must not stop the run
                rep.fail(fname, tcid, "-", None, "-", "-", "cannot check: %r" % (ex,))
    if data.get("numberOfTests") is not None and data["numberOfTests"] != n_tests:
        rep.fail(fname, "-", "numberOfTests", None, data["numberOfTests"], n_tests)
    if rep.sens and rep.sens_bad_file.get(fname):
        print("SENS %s: %d sens fields differ from mine (first 5 shown)"
              % (fname, rep.sens_bad_file[fname]))
    print("%s: %d passed, %d failed (%d tests)"
          % (fname, rep.passed - before[0], rep.failed - before[1], n_tests))
    sys.stdout.flush()
    return True


# ----------------------------------------------------------------------------------------------
# Self-test of this file's own mathematics
# ----------------------------------------------------------------------------------------------

def selftest():
    import random
    bad = 0

    def expect(what, got, want, rel=mpf(10) ** -25):
        nonlocal bad
        good = abs(got - want) <= rel * max(abs(want), mpf(10) ** -300)
        print("%s %s: %s (want %s)" % ("ok  " if good else "BAD ", what, mpf_str(got, 30),
                                         mpf_str(want, 30)))
        if not good:
            bad += 1

    mp.prec = 400
    ctx = Ctx()
    expect("sigma(1.5)", eval_pref_bt(None, {}, {"rw": 1.5, "rl": 0.0}, ctx)["p"],
           mpf("0.8175744761936436596072171786562482475462"))
    with mp.workprec(200):
        expect("Gumbel integral d=1.5", gumbel_integral(mpf(1.5))[0], sigmoid(mpf(1.5)))
        expect("Gumbel integral d=-30", gumbel_integral(mpf(-30))[0], sigmoid(mpf(-30)))
    ex = eval_pref_bt_ex("mle-pair", {}, {"wins_w": 8, "wins_l": 2}, Ctx())
    expect("8 of 10 -> log 4", ex["delta"], mp.log(4))
    expect("8 of 10 -> p 0.8", ex["p"], mpf(8) / 10)
    expect("RM loss 1.0/0.2", eval_pref_margin(None, {}, {"rw": 1.0, "rl": 0.2, "m": 0.0},
                                                Ctx())["loss"], mpf("0.37110066594777"), mpf(1e-13))
    expect("margin 0.5", eval_pref_margin(None, {}, {"rw": 1.0, "rl": 0.2, "m": 0.5},
                                           Ctx())["loss"], mpf("0.5543552444685271"), mpf(1e-14))
    rm = eval_pref_rm_loss("trl-center", {"c": 0.01}, {"rw": [1.0, 2.0], "rl": [0.5, -1.0]},
                           Ctx())
    want = (softplus(-mpf(0.5)) + softplus(-mpf(3.0))) / 2 + mpf(0.01) * (mpf(2.25) + 1) / 2
    expect("RM loss trl-center", rm["loss"], want)
    # gradient of the centred loss by a central difference
    h = mpf(10) ** -40
    lp = eval_pref_rm_loss("trl-center", {"c": 0.01}, {"rw": [1.0, 2.0], "rl": [0.5, -1.0]},
                           Ctx())
    with mp.workprec(600):
        def lossf(a):
            return ((softplus(-(a - mpf(0.5))) + softplus(-mpf(3.0))) / 2
                    + mpf(0.01) * ((a + mpf(0.5)) ** 2 + 1) / 2)
        fd = (lossf(1 + h) - lossf(1 - h)) / (2 * h)
    expect("RM loss d/drw[0]", lp["grad_rw"][0], fd, mpf(10) ** -30)
    sm = eval_pref_smooth(None, {}, {"rw": 1.0, "rl": 0.0, "eps": 0.1}, Ctx())
    with mp.workprec(600):
        def sl(d):
            return -(1 - mpf(0.1)) * log_sigmoid(d) - mpf(0.1) * log_sigmoid(-d)
        fd = (sl(1 + h) - sl(1 - h)) / (2 * h)
    expect("smooth grad", sm["grad_rw"], fd, mpf(10) ** -30)
    # PL with K = 2 equals BT
    pl = eval_pref_pl("prob", {}, {"scores": [0.3, 1.1], "ranking": [0, 1]}, Ctx())
    expect("PL K=2 = BT", pl["logp"], log_sigmoid(mpf(0.3) - mpf(1.1)))
    pl3 = eval_pref_pl("prob", {}, {"scores": [0.3, 1.1, -0.4], "ranking": [2, 0, 1]}, Ctx())
    with mp.workprec(600):
        def plf(x):
            s = [mpf(0.3), mpf(1.1), mpf(-0.4) + x]
            return -(s[2] - logsumexp(s) + s[0] - logsumexp([s[0], s[1]]))
        fd = (plf(h) - plf(-h)) / (2 * h)
    expect("PL grad[2]", pl3["grad"][2], fd, mpf(10) ** -30)
    # PL MLE on rankings whose MLE is known by symmetry: a 3-cycle of rankings -> scores 0
    mle = eval_pref_pl_mle("mle", {}, {"K": 3, "rankings": [0, 1, 2, 1, 2, 0, 2, 0, 1]}, Ctx())
    expect("PL MLE symmetric", mp.fsum(abs(x) for x in mle["scores"]) + 1, mpf(1))
    expect("PL MLE loglik", mle["loglik"], 3 * (-mp.log(3) - mp.log(2)))
    # BT MLE: gradient zero at the answer, mean zero, and the two-item case = log ratio
    W = [0, 3, 1, 1, 0, 2, 2, 1, 0]
    bt = eval_pref_bt_mle(None, {}, {"n": 3, "wins": [float(w) for w in W]}, Ctx())
    _, g, _ = bt_loglik_grad_hess(bt["scores"], [[mpf(W[i * 3 + j]) for j in range(3)]
                                                 for i in range(3)])
    expect("BT MLE gradient", max(abs(x) for x in g) + 1, mpf(1))
    expect("BT MLE mean zero", mp.fsum(bt["scores"]) + 1, mpf(1))
    try:
        eval_pref_bt_mle(None, {}, {"n": 2, "wins": [0.0, 3.0, 0.0, 0.0]}, Ctx())
        print("BAD  disconnected graph accepted")
        bad += 1
    except Reject:
        print("ok   disconnected graph rejected")
    # GRPO detector vectors (CONVENTIONS.md "Group advantage")
    def adv(variant, r, G=None):
        return eval_grpo_adv(variant, {}, {"rewards": r, "group_size": G or len(r)},
                             Ctx())["adv"]
    expect("seed-003 [1,0,0,0]", adv("seed-003", [1.0, 0, 0, 0])[0], mpf(1.5))
    expect("seed-000 [1,0,0,0]", adv("seed-000", [1.0, 0, 0, 0])[0], mp.sqrt(3))
    expect("no-std [1,0,0,0]", adv("no-std", [1.0, 0, 0, 0])[1], mpf(-0.25))
    expect("trl [0,1e-4]", adv("trl", [0.0, 1e-4])[1], mpf("0.292893"), mpf(2e-6))
    expect("verl [0,1e-4]", adv("verl", [0.0, 1e-4])[1], mpf("0.697246"), mpf(2e-6))
    expect("openrlhf [0,1e-4]", adv("openrlhf", [0.0, 1e-4])[1], mpf("0.707097"), mpf(2e-6))
    expect("seed-000 [0,1e-4]", adv("seed-000", [0.0, 1e-4])[1], mpf(1))
    expect("seed-000 [1,0,0,1]", adv("seed-000", [1.0, 0, 0, 1])[1], mpf(-1))
    expect("seed-001 [1,1,1]", adv("seed-001", [1.0, 1, 1])[0] + 1, mpf(1))
    expect("verl group of one", adv("verl", [2.0])[0], 2 / (1 + mpf(1e-6)))
    expect("eps-in-sqrt [0,1e-4]", adv("eps-in-sqrt", [0.0, 1e-4])[1], mpf("0.408248"),
           mpf(2e-6))
    expect("eps-in-sqrt [1,0,0,0]", adv("eps-in-sqrt", [1.0, 0, 0, 0])[0],
           mpf(0.75) / mp.sqrt(mpf(0.25) + mpf(1e-8)))
    expect("eps-in-sqrt group of one", adv("eps-in-sqrt", [2.0])[0] + 1, mpf(1))
    expect("verl [10000,10001]", adv("verl", [10000.0, 10001.0])[1], mpf("0.7071"), mpf(1e-4))
    f32adv = adv("verl-vectorized-old", [10000.0, 10001.0])[1]
    print("%s one-pass float32 variance breaks on [10000,10001]: %s"
          % ("ok  " if abs(f32adv) > 10 else "BAD ", mpf_str(f32adv, 10)))
    bad += 0 if abs(f32adv) > 10 else 1
    ex = eval_grpo_adv_ex("seed-003", {}, {"rewards": [0.2, 0.8, 0.4, 0.6]}, Ctx())
    expect("003 sigma ddof 1", ex["std"], mp.sqrt(mpf(2) / 30), mpf(1e-15))
    expect("003 A_2 ddof 1", ex["adv"][1], mpf("1.161895003862225"), mpf(1e-14))
    nanadv = adv("trl", [1.0, float("nan"), 0.0, 0.0])
    expect("trl NaN left out", nanadv[0], (1 - mpf(1) / 3) / (mp.sqrt(mpf(1) / 3) + mpf(1e-4)))
    # binary32 rounding against the platform's float cast
    rnd = random.Random(12345)
    mism = 0
    for _ in range(20000):
        x = rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-160, 130)
        try:
            want32 = struct.unpack("f", struct.pack("f", x))[0]
        except OverflowError:
            want32 = math.copysign(float("inf"), x)
        if f32(x) != want32:
            mism += 1
    print("%s binary32 rounding vs struct: %d mismatches in 20000" % ("ok  " if mism == 0
                                                                       else "BAD ", mism))
    bad += mism != 0
    # nearest double of an mpf: 1/3 and a tie case
    with mp.workprec(400):
        ok1 = nearest_double(mpf(1) / 3) == 1 / 3
        tie = mpf(1) + mpf(2) ** -53                  # exactly halfway: ties to even -> 1.0
        ok2 = nearest_double(tie) == 1.0 and nearest_double(tie + mpf(2) ** -300) > 1.0
    print("%s nearest_double" % ("ok  " if ok1 and ok2 else "BAD "))
    bad += not (ok1 and ok2)
    print("selftest: %d bad" % bad)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "--selftest":
        return selftest()
    if len(argv) < 2:
        print(__doc__)
        return 2
    args = [a for a in argv[1:] if a != "--sens"]
    if not args:
        print(__doc__)
        return 2
    directory = args[0]
    rep = Reporter()
    rep.sens = "--sens" in argv
    files = sorted(f for f in os.listdir(directory) if f.endswith(".json"))
    found = 0
    for f in files:
        path = os.path.join(directory, f)
        try:
            with open(path) as fh:
                formula = json.load(fh).get("formula")
        except (ValueError, OSError) as ex:
            print("SKIP %s: %s" % (f, ex))
            continue
        if formula not in FORMULAS:
            continue
        found += 1
        check_file(rep, path)
    if found == 0:
        print("no golden file of the families %s in %s" % (", ".join(FORMULAS), directory))
        print("0 passed, 0 failed")
        return 2
    if rep.unchecked:
        print("%d golden outputs have no recomputation here (see NOTE lines)" % rep.unchecked)
    print("%d notes" % len(rep.notes))
    if rep.sens:
        print("sens (informational, not counted): %d agree, %d differ"
              % (rep.sens_ok, rep.sens_bad))
    print("%d passed, %d failed" % (rep.passed, rep.failed))
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
