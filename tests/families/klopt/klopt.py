"""The KL-optimal policy on an explicit finite distribution, KLOPT-Z, KLOPT-PISTAR, KLOPT-OBJ,
KLOPT-IDENT and KLOPT-LIMITS (000 eq. 13.8, 13.13-13.17 and section 4.1), from the golden files'
definitions (each group's description, the doc of its inputs and outputs, the notes of its
flags) and golden/FORMULAS.md.

pi_ref is given as probabilities p_ref (variant prob), each finite and >= 0, used as the exact
distribution p_ref/S with S the exact sum, |S - 1| <= 2^-20; or as log-probabilities logp_ref
(variant logprob), each finite or -inf, used as logp_ref - l with l = log sum e^{logp_ref},
|l| <= 2^-20.  A policy pi (KLOPT-OBJ, KLOPT-IDENT) is read the same way.  With the support
P = {y : pi_ref(y) > 0}, m = max_P r and d(y) = (r(y) - m)/beta <= 0 on P:

    W = sum_P pi_ref(y) e^{d(y)},   log Z = m/beta + log W                     (13.15)
    log pi*(y) = log pi_ref(y) + d(y) - log W on P,  pi*(y) = 0 off P          (13.17)
    J(pi) = E_pi[r] - beta KL(pi || pi_ref)                                    (13.8, 13.13)
    J(pi) = -beta [KL(pi || pi*) - log Z]                                      (13.14, 13.16)
    beta -> inf: pi* -> pi_ref;  beta -> 0: pi* -> pi_ref restricted to A = argmax_P r,
    renormalised (000 section 4.1; ties split in proportion to pi_ref, issue 7)

The exact normalised probabilities of variant prob are rationals; so are E_pi[r] and the two
limits, rounded once.  log pi*(y) is (t_y - t_k) - log1p(sum_{j != k} e^{t_j - t_k}) with
t_y = log pi_ref(y) + d(y) and t_k the largest, so that a pi*(k) next to 1 keeps its log
(-5.7e-4344 in a golden).  log(pi*/pi_ref) = d - log W, in the KLs, takes log W = log1p(sum_P
pi_ref expm1(d)) when W >= 1/2, a sum of terms of one sign (a constant reward gives exactly 0, a
large beta keeps its relative accuracy), else the log-sum-exp t_k + log1p(...).  Each KL is a sum
over the support of its first distribution (0 log 0 = 0), +inf when that distribution puts mass
where the second has none.  Nothing is taken from the C code.
"""

import math
import random
from fractions import Fraction

from mpmath import mp, mpf

from xcore import Ctx, M, Reject, X, get_input, sigmoid, softplus

TOL = Fraction(1, 2 ** 20)          # how far a sum of probabilities may be from 1
DBL_MAX = (2 - Fraction(1, 2 ** 52)) * 2 ** 1023
NINF = mpf("-inf")
PINF = mpf("inf")


# ----------------------------------------------------------------------------------------------
# Reading the inputs: shapes (EINVAL), NaN and infinities (ENAN), domains (EDOM)
# ----------------------------------------------------------------------------------------------

def is_nan(v):
    return isinstance(v, float) and math.isnan(v)


def is_inf(v):
    return isinstance(v, float) and math.isinf(v)


def arrays(inputs, params, names):
    """The named arrays, all of one length n >= 1; otherwise EINVAL."""
    arrs = []
    for name in names:
        v = get_input(inputs, params, name)
        if not isinstance(v, list):
            raise Reject("EINVAL", "%s is not an array" % name)
        arrs.append(v)
    n = len(arrs[0])
    for name, a in zip(names, arrs):
        if len(a) != n:
            raise Reject("EINVAL", "%s has %d entries, %s %d" % (name, len(a), names[0], n))
    if n == 0:
        raise Reject("EINVAL", "no outcome")
    return arrs


def finite(values, name):
    """Rewards, probabilities and beta: NaN and +-inf are refused (ENAN)."""
    for v in values:
        if is_nan(v) or is_inf(v):
            raise Reject("ENAN", "%s holds %r" % (name, v))


def log_finite(values, name):
    """Log-probabilities: -inf is probability 0; NaN and +inf are refused (ENAN)."""
    for v in values:
        if is_nan(v) or (is_inf(v) and v > 0):
            raise Reject("ENAN", "%s holds %r" % (name, v))


def read_beta(inputs, params):
    beta = get_input(inputs, params, "beta")
    finite([beta], "beta")
    if Fraction(beta) <= 0:
        raise Reject("EDOM", "beta = %r is not > 0" % beta)
    return X(beta)


def lse(xs):
    """log sum_i e^{x_i} (x_i finite or -inf, at least one finite): the largest term is taken
    out and the others summed through log1p, so that a sum near one keeps its small part."""
    k = max(range(len(xs)), key=lambda i: xs[i])
    big = xs[k]
    rest = mp.fsum(mp.exp(x - big) for i, x in enumerate(xs) if i != k and x != NINF)
    return big + mp.log1p(rest)


class Dist:
    """A distribution over n outcomes: log-probabilities (-inf off the support), probabilities
    (0 off the support), and for probabilities given as such, the exact rationals p/S."""

    def __init__(self, logp, p, q=None):
        self.n = len(logp)
        self.logp = logp
        self.p = p
        self.q = q
        self.pos = [x != NINF for x in logp]


def prob_dist(vals, name):
    """p/S, S the exact sum; each p finite and >= 0 (checked before), |S - 1| <= 2^-20."""
    qs = [Fraction(v) for v in vals]
    if any(x < 0 for x in qs):
        raise Reject("EDOM", "%s holds a negative probability" % name)
    s = sum(qs, Fraction(0))
    if s == 0:
        raise Reject("EDOM", "%s has no positive mass" % name)
    if abs(s - 1) > TOL:
        raise Reject("EDOM", "%s sums to %s, farther than 2^-20 from 1" % (name, float(s)))
    q = [x / s for x in qs]
    p = [M(x) for x in q]
    logp = [mp.log(x) if x > 0 else NINF for x in p]
    return Dist(logp, p, q)


def logprob_dist(vals, name):
    """logp - l, l = log sum e^{logp} (each finite or -inf, checked before), |l| <= 2^-20."""
    xs = [X(v) if not is_inf(v) else NINF for v in vals]
    if all(x == NINF for x in xs):
        raise Reject("EDOM", "%s: every outcome has probability 0" % name)
    with mp.workprec(mp.prec + 64):
        l = lse(xs)
    if abs(l) > M(TOL):
        raise Reject("EDOM", "%s: log-sum-exp %s, farther than 2^-20 from 0"
                     % (name, mp.nstr(l, 5)))
    logp = [x - l if x != NINF else NINF for x in xs]
    p = [mp.exp(x) if x != NINF else mpf(0) for x in logp]
    return Dist(logp, p)


def read(variant, inputs, params, with_pi=False, with_beta=True):
    """Check and read the inputs of one test: (pi_ref, r, beta, pi), beta and pi None when the
    formula has none.  Shapes first (EINVAL), then non-finite values (ENAN), then beta > 0,
    then the distributions (EDOM)."""
    if "logp_ref" in inputs:
        log, names = True, ["logp_ref", "r"] + (["logpi"] if with_pi else [])
    else:
        log, names = False, ["p_ref", "r"] + (["pi"] if with_pi else [])
    if variant in ("prob", "logprob") and log != (variant == "logprob"):
        raise ValueError("variant %s with input %s" % (variant, names[0]))
    arrs = arrays(inputs, params, names)
    for name, a in zip(names, arrs):
        (log_finite if log and name != "r" else finite)(a, name)
    beta = read_beta(inputs, params) if with_beta else None
    if with_beta is False and "beta" in inputs:
        raise ValueError("variant %s takes no beta" % variant)
    make = logprob_dist if log else prob_dist
    ref = make(arrs[0], names[0])
    pi = make(arrs[2], names[2]) if with_pi else None
    return ref, arrs[1], beta, pi


# ----------------------------------------------------------------------------------------------
# The mathematics
# ----------------------------------------------------------------------------------------------

def expect(dist, r):
    """E_dist[r] = sum_y dist(y) r(y): an exact rational for probabilities given as such."""
    if dist.q is not None:
        return M(sum((q * Fraction(x) for q, x in zip(dist.q, r)), Fraction(0)))
    return mp.fsum(p * X(x) for p, x in zip(dist.p, r) if p != 0)


def log_ratio(a, b, y):
    """log(a(y)/b(y)) for a(y), b(y) > 0: one logarithm of the exact ratio when both are exact
    rationals (0 exactly for equal inputs), else the difference of the log-probabilities."""
    if a.q is not None and b.q is not None:
        return mp.log(M(a.q[y] / b.q[y]))
    return a.logp[y] - b.logp[y]


def kl(a, b):
    """KL(a || b) = sum_{a(y) > 0} a(y) log(a(y)/b(y)); +inf when a(y) > 0 = b(y)."""
    if any(a.pos[y] and not b.pos[y] for y in range(a.n)):
        return PINF
    return mp.fsum(a.p[y] * log_ratio(a, b, y) for y in range(a.n) if a.pos[y])


class Optimum:
    """pi* of pi_ref, r, beta (13.15, 13.17): m, d, log W, log Z and pi* itself."""

    def __init__(self, ref, r, beta):
        self.ref, self.r, self.beta = ref, r, beta
        sup = [y for y in range(ref.n) if ref.pos[y]]
        self.m = max(Fraction(r[y]) for y in sup)
        self.A = [y for y in sup if Fraction(r[y]) == self.m]     # the argmax set on P
        self.d = [M(Fraction(r[y]) - self.m) / beta if ref.pos[y] else NINF
                  for y in range(ref.n)]
        # the terms log(pi_ref e^d), the largest t_k taken out: W = e^{t_k} (1 + R), and
        # log pi*(y) = (t_y - t_k) - log1p(R), which keeps log pi*(k) ~ -R when R is tiny
        t = {y: ref.logp[y] + self.d[y] for y in sup}
        k = max(sup, key=lambda y: t[y])
        l1 = mp.log1p(mp.fsum(mp.exp(t[y] - t[k]) for y in sup if y != k))
        self.logpi = [(t[y] - t[k] if y != k else mpf(0)) - l1 if ref.pos[y] else NINF
                      for y in range(ref.n)]
        logw = t[k] + l1
        if logw >= -mp.log(2):
            # W >= 1/2: W - 1 = sum_P pi_ref (e^d - 1), every term <= 0 (exactly 0 for a
            # constant reward); log(pi*/pi_ref) = d - log W uses this form
            logw = mp.log1p(mp.fsum(ref.p[y] * mp.expm1(self.d[y]) for y in sup))
        self.logw = logw
        self.logz = M(self.m) / beta + logw
        self.pi = [mp.exp(x) if x != NINF else mpf(0) for x in self.logpi]

    def log_star_over_ref(self, y):
        """log(pi*(y)/pi_ref(y)) = d(y) - log W on the support."""
        return self.d[y] - self.logw

    def kl_star_ref(self):
        """KL(pi* || pi_ref) = sum_P pi* (d - log W)."""
        return mp.fsum(self.pi[y] * self.log_star_over_ref(y)
                       for y in range(self.ref.n) if self.ref.pos[y])

    def kl_ref_star(self):
        """KL(pi_ref || pi*) = sum_P pi_ref (log W - d)."""
        return mp.fsum(-self.ref.p[y] * self.log_star_over_ref(y)
                       for y in range(self.ref.n) if self.ref.pos[y])

    def kl_pi_star(self, pi):
        """KL(pi || pi*) = sum_{pi > 0} pi (log(pi/pi_ref) - d + log W); +inf when pi(y) > 0 =
        pi_ref(y) (then pi*(y) = 0 too)."""
        if any(pi.pos[y] and not self.ref.pos[y] for y in range(pi.n)):
            return PINF
        return mp.fsum(pi.p[y] * (log_ratio(pi, self.ref, y) - self.log_star_over_ref(y))
                       for y in range(pi.n) if pi.pos[y])

    def er(self):
        """E_pi*[r]."""
        return mp.fsum(p * X(x) for p, x in zip(self.pi, self.r) if p != 0)

    def tv_ref(self):
        """(1/2) sum_P |pi* - pi_ref| = (1/2) sum_P pi_ref |expm1(d - log W)|."""
        return mp.fsum(self.ref.p[y] * abs(mp.expm1(self.log_star_over_ref(y)))
                       for y in range(self.ref.n) if self.ref.pos[y]) / 2

    def tv_argmax(self):
        """(1/2) sum |pi* - pi0| = pi*(outside A): on A, pi* = pi_ref/W <= pi_ref/pi_ref(A) = pi0
        because W >= pi_ref(A), so the deficit on A is the mass outside it."""
        return mp.fsum(self.pi[y] for y in range(self.ref.n) if y not in self.A)


def obj(pi, ref, r, beta):
    """J(pi) = E_pi[r] - beta KL(pi || pi_ref) (13.13); -inf when the KL is +inf."""
    k = kl(pi, ref)
    return expect(pi, r) - beta * k if k != PINF else NINF


# ----------------------------------------------------------------------------------------------
# The evaluators
# ----------------------------------------------------------------------------------------------

def eval_z(variant, params, inputs, ctx):
    """log Z (13.15), and Z = e^{log Z} when Z <= DBL_MAX, else +inf."""
    ref, r, beta, _ = read(variant, inputs, params)
    o = Optimum(ref, r, beta)
    z = mp.exp(o.logz)
    if z > M(DBL_MAX):
        if z < mpf(2) ** 1024 * (1 - mpf(2) ** -54):
            ctx.ambiguous.append("DBL_MAX < Z < the binary64 overflow threshold: +inf taken")
        z = PINF
    return {"logz": o.logz, "z": z}


def eval_pistar(variant, params, inputs, ctx):
    """pi*, log pi* (13.17), E_pi*[r], KL(pi* || pi_ref), KL(pi_ref || pi*)."""
    ref, r, beta, _ = read(variant, inputs, params)
    o = Optimum(ref, r, beta)
    return {"pistar": o.pi, "logpistar": o.logpi, "er": o.er(),
            "kl_star_ref": o.kl_star_ref(), "kl_ref_star": o.kl_ref_star()}


def eval_obj(variant, params, inputs, ctx):
    """J(pi), E_pi[r], KL(pi || pi_ref) (13.8, 13.13); J(pi*) and beta log Z."""
    ref, r, beta, pi = read(variant, inputs, params, with_pi=True)
    o = Optimum(ref, r, beta)
    return {"obj": obj(pi, ref, r, beta), "er": expect(pi, r), "kl": kl(pi, ref),
            "obj_star": o.er() - beta * o.kl_star_ref(), "beta_logz": beta * o.logz}


def eval_ident(variant, params, inputs, ctx):
    """J(pi) (13.13), -beta [KL(pi || pi*) - log Z] (13.16), KL(pi || pi*) >= 0."""
    ref, r, beta, pi = read(variant, inputs, params, with_pi=True)
    o = Optimum(ref, r, beta)
    k = o.kl_pi_star(pi)
    return {"obj": obj(pi, ref, r, beta), "ident": -beta * (k - o.logz) if k != PINF else NINF,
            "kl_pistar": k}


def eval_limits(variant, params, inputs, ctx):
    """beta-inf: pi_ref and E_pi_ref[r]; beta-zero: pi_ref on A / pi_ref(A) and max_P r;
    finite-beta: pi*, E_pi*[r], and the total-variation distance to each limit."""
    if variant == "finite-beta":
        ref, r, beta, _ = read(variant, inputs, params)
        o = Optimum(ref, r, beta)
        return {"pi": o.pi, "er": o.er(), "tv_ref": o.tv_ref(), "tv_argmax": o.tv_argmax()}
    if variant not in ("beta-inf", "beta-zero"):
        raise ValueError("unknown variant %r" % variant)
    ref, r, _, _ = read(variant, inputs, params, with_beta=False)
    if variant == "beta-inf":
        return {"pi": ref.p, "er": expect(ref, r)}
    sup = [y for y in range(ref.n) if ref.pos[y]]
    m = max(Fraction(r[y]) for y in sup)
    A = [y for y in sup if Fraction(r[y]) == m]
    if ref.q is not None:
        qa = sum((ref.q[y] for y in A), Fraction(0))
        pi0 = [M(ref.q[y] / qa) if y in A else mpf(0) for y in range(ref.n)]
    else:
        la = lse([ref.logp[y] for y in A])
        pi0 = [mp.exp(ref.logp[y] - la) if y in A else mpf(0) for y in range(ref.n)]
    return {"pi": pi0, "er": M(m)}


VARIANTS = {"KLOPT-Z": ("prob", "logprob"), "KLOPT-PISTAR": ("prob", "logprob"),
            "KLOPT-OBJ": ("prob", "logprob"), "KLOPT-IDENT": ("prob", "logprob"),
            "KLOPT-LIMITS": ("beta-inf", "beta-zero", "finite-beta")}


def param_check(fid):
    """A group of fid: one of the variants of golden/README.md, and no parameters (every KLOPT
    input is per test)."""
    def check(variant, params):
        bad = []
        if variant not in VARIANTS[fid]:
            bad.append("variant %r, golden/README.md has %s" % (variant, ", ".join(VARIANTS[fid])))
        if params:
            bad.append("unexpected params %s" % sorted(params))
        return bad
    return check


EVALUATORS = {
    "KLOPT-Z": eval_z,
    "KLOPT-PISTAR": eval_pistar,
    "KLOPT-OBJ": eval_obj,
    "KLOPT-IDENT": eval_ident,
    "KLOPT-LIMITS": eval_limits,
}

PARAM_CHECKS = {fid: param_check(fid) for fid in EVALUATORS}


# ----------------------------------------------------------------------------------------------
# Self-tests
# ----------------------------------------------------------------------------------------------

def run(fid, variant, **inputs):
    return EVALUATORS[fid](variant, {}, inputs, Ctx())


def selftest_two_outcomes(t):
    """Two outcomes, pi_ref = (p, 1 - p), rewards (a, b): pi*(0) = sigma((a - b)/beta + logit p),
    log Z = b/beta + log(1 - p) + softplus((a - b)/beta + logit p).  As log-probabilities
    (x, y) the normalised pi_ref(0) is sigma(x - y), so logit p = x - y."""
    for p, a, b, beta in ((0.25, 1.0, 0.0, 1.0), (0.5, 1.0, 0.0, 1.0), (0.125, -3.0, 2.5, 0.75),
                          (0.75, 10.0, 0.0, 2.0 ** -10)):
        s = (X(a) - X(b)) / X(beta) + mp.log(X(p) / (1 - X(p)))
        z = run("KLOPT-Z", "prob", p_ref=[p, 1 - p], r=[a, b], beta=beta)
        t.near("two outcomes p = %g, beta = %g: log Z" % (p, beta), z["logz"],
               X(b) / X(beta) + mp.log(1 - X(p)) + softplus(s))
        ps = run("KLOPT-PISTAR", "prob", p_ref=[p, 1 - p], r=[a, b], beta=beta)
        t.near("two outcomes p = %g, beta = %g: pi*(0)" % (p, beta), ps["pistar"][0], sigmoid(s))
        t.near("two outcomes p = %g, beta = %g: pi*(1)" % (p, beta), ps["pistar"][1], sigmoid(-s))
    x, y, a, b, beta = math.log(0.3), math.log(0.7), 2.0, -1.0, 0.5
    s = (X(a) - X(b)) / X(beta) + X(x) - X(y)
    ps = run("KLOPT-PISTAR", "logprob", logp_ref=[x, y], r=[a, b], beta=beta)
    t.near("two outcomes, log-probabilities (not normalised): log pi*(0)", ps["logpistar"][0],
           -softplus(-s))
    z = run("KLOPT-Z", "logprob", logp_ref=[x, y], r=[a, b], beta=beta)
    t.near("two outcomes, log-probabilities: log Z", z["logz"],
           X(b) / X(beta) - softplus(X(x) - X(y)) + softplus(s))
    # e: pi_ref = (1/2, 1/2), r = (1, 0), beta = 1: Z = (1 + e)/2
    z = run("KLOPT-Z", "prob", p_ref=[0.5, 0.5], r=[1.0, 0.0], beta=1.0)
    t.near("Z = (1 + e)/2", z["z"], (1 + mp.e) / 2)


def selftest_uniform(t):
    """Uniform pi_ref over n: pi* = softmax(r/beta), log Z = log((1/n) sum e^{r/beta}),
    KL(pi* || u) = log n - H(pi*), KL(u || pi*) = -log n - (1/n) sum log pi*."""
    rnd = random.Random(7)
    for n in (1, 3, 8):
        r = [rnd.uniform(-4, 4) for _ in range(n)]
        beta = rnd.choice([0.25, 1.0, 3.0])
        u = [1.0 / n] * n if n != 3 else [Fraction(1, 3)] * 3   # 1/3: exactly, as a Fraction
        ps = run("KLOPT-PISTAR", "prob", p_ref=u, r=r, beta=beta)
        z = run("KLOPT-Z", "prob", p_ref=u, r=r, beta=beta)
        e = [mp.exp(X(x) / X(beta)) for x in r]
        tot = mp.fsum(e)
        soft = [x / tot for x in e]
        t.near("uniform n = %d: log Z" % n, z["logz"], mp.log(tot / n))
        t.true("uniform n = %d: pi* = softmax(r/beta)" % n,
               all(abs(a - b) < mpf(10) ** -100 for a, b in zip(ps["pistar"], soft)))
        H = -mp.fsum(x * mp.log(x) for x in soft)
        t.near("uniform n = %d: KL(pi*||u) = log n - H" % n, ps["kl_star_ref"] + 1,
               mp.log(n) - H + 1)
        t.near("uniform n = %d: KL(u||pi*)" % n, ps["kl_ref_star"] + 1,
               -mp.log(n) - mp.fsum(mp.log(x) for x in soft) / n + 1)
        t.near("uniform n = %d: E*[r]" % n, ps["er"], mp.fsum(x * X(y) for x, y in zip(soft, r)))


def random_case(rnd, n, zero=False):
    p = [rnd.random() + 0.05 for _ in range(n)]
    if zero:
        p[rnd.randrange(n)] = 0.0
    s = math.fsum(p)
    p = [x / s for x in p]                   # sums to 1 within a few ulps: normalised exactly
    r = [rnd.uniform(-3, 3) for _ in range(n)]
    return p, r


def selftest_identity(t):
    """On random pi_ref, r, beta and pi: J(pi) = -beta [KL(pi||pi*) - log Z] (13.16);
    KL(pi||pi*) > 0 and J(pi) < beta log Z (Gibbs); J(pi*) = beta log Z; the closed forms
    KL(pi*||pi_ref) = E*[r]/beta - log Z and KL(pi_ref||pi*) = log Z - E_ref[r]/beta."""
    rnd = random.Random(2024)
    for k in range(6):
        n = 2 + k
        p, r = random_case(rnd, n, zero=(k % 3 == 2))
        pi, _ = random_case(rnd, n)
        pi = [0.0 if p[y] == 0 else x for y, x in enumerate(pi)]
        s = math.fsum(pi)
        pi = [x / s for x in pi]
        beta = rnd.choice([0.1, 0.5, 2.0, 40.0])
        o = run("KLOPT-OBJ", "prob", p_ref=p, r=r, beta=beta, pi=pi)
        i = run("KLOPT-IDENT", "prob", p_ref=p, r=r, beta=beta, pi=pi)
        ps = run("KLOPT-PISTAR", "prob", p_ref=p, r=r, beta=beta)
        z = run("KLOPT-Z", "prob", p_ref=p, r=r, beta=beta)
        b = X(beta)
        t.near("random n = %d: J(pi) = -beta [KL(pi||pi*) - log Z]" % n, i["ident"], o["obj"])
        t.true("random n = %d: Gibbs, KL(pi||pi*) > 0 and J(pi) < beta log Z" % n,
               i["kl_pistar"] > 0 and o["obj"] < o["beta_logz"])
        t.near("random n = %d: J(pi*) = beta log Z" % n, o["obj_star"], o["beta_logz"])
        t.near("random n = %d: KL(pi*||pi_ref) = E*[r]/beta - log Z" % n, ps["kl_star_ref"],
               ps["er"] / b - z["logz"], mpf(10) ** -90)
        eref = M(sum((Fraction(a) * Fraction(c) for a, c in zip(p, r)), Fraction(0))
                 / sum((Fraction(a) for a in p), Fraction(0)))
        t.near("random n = %d: KL(pi_ref||pi*) = log Z - E_ref[r]/beta" % n, ps["kl_ref_star"],
               z["logz"] - eref / b, mpf(10) ** -90)
        # pi* itself, as the policy evaluated, rounded to binary64: KL(pi||pi*) tiny, >= 0
        near = [float(x) for x in ps["pistar"]]
        j = run("KLOPT-IDENT", "prob", p_ref=p, r=r, beta=beta, pi=near)
        t.true("random n = %d: pi* rounded, 0 <= KL(pi||pi*) < 1e-28 (%s)"
               % (n, mp.nstr(j["kl_pistar"], 3)), 0 <= j["kl_pistar"] < mpf(10) ** -28)
    # the same in log-probabilities (not normalised, shifted by 2^-22): the same numbers
    p, r = [0.25, 0.25, 0.5], [1.0, -2.0, 0.5]
    pi = [0.125, 0.625, 0.25]
    sh = 2.0 ** -22
    lg = run("KLOPT-IDENT", "logprob", logp_ref=[float(mp.log(x)) + sh for x in p], r=r, beta=0.5,
             logpi=[float(mp.log(x)) - sh for x in pi])
    pr = run("KLOPT-IDENT", "prob", p_ref=p, r=r, beta=0.5, pi=pi)
    t.near("log-probabilities: J(pi) as with probabilities", lg["obj"], pr["obj"], mpf(10) ** -15)
    t.near("log-probabilities: KL(pi||pi*) as with probabilities", lg["kl_pistar"],
           pr["kl_pistar"], mpf(10) ** -15)


def selftest_exact(t):
    """Values that are exact: a constant reward gives pi* = pi_ref, both KLs 0 and log Z = c/beta
    exactly; pi = pi_ref gives KL = 0 and J = E_ref[r]; one outcome gives log Z = r/beta;
    pi(y) > 0 = pi_ref(y) gives KL = +inf and J = -inf."""
    p = [0.2, 0.3, 0.5]
    ps = run("KLOPT-PISTAR", "prob", p_ref=p, r=[1.5] * 3, beta=0.375)
    z = run("KLOPT-Z", "prob", p_ref=p, r=[1.5] * 3, beta=0.375)
    t.true("constant reward: KLs exactly 0, log Z = 4 exactly",
           ps["kl_star_ref"] == 0 and ps["kl_ref_star"] == 0 and z["logz"] == 4)
    o = run("KLOPT-OBJ", "prob", p_ref=p, r=[1.0, -1.0, 0.5], beta=2.0, pi=p)
    t.true("pi = pi_ref: KL exactly 0, J = E_ref[r]", o["kl"] == 0 and o["obj"] == o["er"])
    lp = [math.log(x) for x in p]
    o = run("KLOPT-OBJ", "logprob", logp_ref=lp, r=[1.0, -1.0, 0.5], beta=2.0, logpi=lp)
    t.true("logpi = logp_ref, not normalised: KL exactly 0", o["kl"] == 0)
    z = run("KLOPT-Z", "prob", p_ref=[1.0], r=[3.0], beta=2.0)
    t.true("one outcome: log Z = 3/2 exactly", z["logz"] == mpf(1.5))
    o = run("KLOPT-OBJ", "prob", p_ref=[0.0, 1.0], r=[1.0, 0.0], beta=1.0, pi=[0.5, 0.5])
    i = run("KLOPT-IDENT", "prob", p_ref=[0.0, 1.0], r=[1.0, 0.0], beta=1.0, pi=[0.5, 0.5])
    t.true("pi > 0 = pi_ref: KL = +inf, J = -inf on both sides",
           o["kl"] == PINF and o["obj"] == NINF and i["ident"] == NINF
           and i["kl_pistar"] == PINF)
    ps = run("KLOPT-PISTAR", "prob", p_ref=[0.0, 1.0], r=[100.0, 0.0], beta=1.0)
    t.true("pi_ref = 0: pi* = 0 and log pi* = -inf whatever the reward",
           ps["pistar"] == [0, 1] and ps["logpistar"][0] == NINF and ps["logpistar"][1] == 0)


def selftest_large(t):
    """Large beta: log Z = E[r]/beta + Var[r]/(2 beta^2) + O(beta^-3), both KLs ~ Var/(2 beta^2),
    tv_ref ~ (1/(2 beta)) sum pi_ref |r - E[r]|.  Large r/beta: log Z = m/beta + log pi_ref(A)
    + O(e^{-gap/beta}); Z is +inf beyond DBL_MAX and a double below."""
    p, r = [0.2, 0.3, 0.5], [1.0, -0.5, 2.0]
    E = mp.fsum(X(a) * X(b) for a, b in zip(p, r))
    V = mp.fsum(X(a) * (X(b) - E) ** 2 for a, b in zip(p, r))
    beta = 2.0 ** 40
    b = X(beta)
    z = run("KLOPT-Z", "prob", p_ref=p, r=r, beta=beta)
    ps = run("KLOPT-PISTAR", "prob", p_ref=p, r=r, beta=beta)
    lim = run("KLOPT-LIMITS", "finite-beta", p_ref=p, r=r, beta=beta)
    t.near("beta = 2^40: log Z ~ E/beta + Var/(2 beta^2)", z["logz"], E / b + V / (2 * b * b),
           mpf(2) ** -38)
    t.near("beta = 2^40: KL(pi*||pi_ref) ~ Var/(2 beta^2)", ps["kl_star_ref"], V / (2 * b * b),
           mpf(2) ** -38)
    t.near("beta = 2^40: KL(pi_ref||pi*) ~ Var/(2 beta^2)", ps["kl_ref_star"], V / (2 * b * b),
           mpf(2) ** -38)
    t.near("beta = 2^40: tv_ref ~ sum pi_ref |r - E|/(2 beta)", lim["tv_ref"],
           mp.fsum(X(a) * abs(X(c) - E) for a, c in zip(p, r)) / (2 * b), mpf(2) ** -38)
    z = run("KLOPT-Z", "prob", p_ref=[0.5, 0.5], r=[1e4, 0.0], beta=1.0)
    t.near("r/beta = 1e4: log Z = 1e4 - log 2 + log1p(e^-1e4)", z["logz"],
           10000 - mp.log(2) + mp.log1p(mp.exp(-10000)))
    t.true("r/beta = 1e4: Z = +inf", z["z"] == PINF)
    z = run("KLOPT-Z", "prob", p_ref=[1.0], r=[709.0], beta=1.0)
    t.true("log Z = 709: Z = e^709, a double", z["z"] == mp.exp(709))
    z = run("KLOPT-Z", "prob", p_ref=[1.0], r=[710.0], beta=1.0)
    t.true("log Z = 710: Z = +inf", z["z"] == PINF)
    ps = run("KLOPT-PISTAR", "prob", p_ref=[0.5, 0.5], r=[1e4, 0.0], beta=1.0)
    t.near("r/beta = 1e4: log pi*(0) = -log1p(e^-1e4), next to 0", ps["logpistar"][0],
           -mp.log1p(mp.exp(-10000)))
    # pi_ref(0) = e^-800 (underflows binary64) with r/beta = 900: pi*(1) = 1/(1 + e^100)
    ps = run("KLOPT-PISTAR", "logprob", logp_ref=[-800.0, 0.0], r=[900.0, 0.0], beta=1.0)
    t.near("pi_ref(0) = e^-800, r(0) = 900: pi*(1) = sigma(-100)", ps["pistar"][1],
           sigmoid(mpf(-100)))


def selftest_limits(t):
    """beta -> 0 and beta -> inf: pi* at beta = 2^-30 is within 1e-100 of the beta-zero limit
    (ties split by pi_ref, the maximum over pi_ref > 0) and its tv_argmax is pi*(outside A) =
    (1/2) sum |pi* - pi0|; at beta = 2^60, pi* is within 2^-55 of pi_ref; tied outcomes keep
    their ratio of pi_ref at every beta."""
    cases = [([0.25, 0.25, 0.5], [1.0, 1.0, 0.5]),
             ([0.1, 0.3, 0.6], [2.0, 2.0, 1.0]),
             ([0.0, 0.4, 0.6], [5.0, 1.0, 0.0]),
             ([0.2, 0.3, 0.5], [1.0, -0.5, 2.0])]
    for p, r in cases:
        z0 = run("KLOPT-LIMITS", "beta-zero", p_ref=p, r=r)
        zi = run("KLOPT-LIMITS", "beta-inf", p_ref=p, r=r)
        sup = [y for y in range(3) if p[y] > 0]
        m = max(r[y] for y in sup)
        A = [y for y in sup if r[y] == m]
        want = [Fraction(p[y]) / sum(Fraction(p[k]) for k in A) if y in A else 0
                for y in range(3)]
        t.true("beta -> 0, p_ref %s, r %s: pi0 = %s" % (p, r, [str(w) for w in want]),
               all(abs(a - M(Fraction(w))) < mpf(10) ** -110 for a, w in zip(z0["pi"], want))
               and z0["er"] == m)
        S = sum(Fraction(x) for x in p)
        t.true("beta -> inf, p_ref %s: pi = p_ref/S" % p,
               all(abs(a - M(Fraction(b) / S)) < mpf(10) ** -110 for a, b in zip(zi["pi"], p)))
        small = run("KLOPT-LIMITS", "finite-beta", p_ref=p, r=r, beta=2.0 ** -30)
        t.true("beta = 2^-30, p_ref %s: pi* within 1e-100 of pi0" % p,
               all(abs(a - b) < mpf(10) ** -100 for a, b in zip(small["pi"], z0["pi"])))
        big = run("KLOPT-LIMITS", "finite-beta", p_ref=p, r=r, beta=2.0 ** 60)
        t.true("beta = 2^60, p_ref %s: pi* within 2^-55 of pi_ref" % p,
               all(abs(a - b) < mpf(2) ** -55 for a, b in zip(big["pi"], zi["pi"])))
        mid = run("KLOPT-LIMITS", "finite-beta", p_ref=p, r=r, beta=0.75)
        direct = mp.fsum(abs(a - b) for a, b in zip(mid["pi"], z0["pi"])) / 2
        t.near("beta = 0.75, p_ref %s: tv_argmax = (1/2) sum |pi* - pi0|" % p, mid["tv_argmax"],
               direct)
        direct = mp.fsum(abs(a - b) for a, b in zip(mid["pi"], zi["pi"])) / 2
        t.near("beta = 0.75, p_ref %s: tv_ref = (1/2) sum |pi* - pi_ref|" % p, mid["tv_ref"],
               direct)
        if len(A) > 1:
            for beta in (2.0 ** -20, 0.75, 2.0 ** 20):
                ps = run("KLOPT-PISTAR", "prob", p_ref=p, r=r, beta=beta)
                t.near("tie, beta = %g: pi*(0)/pi*(1) = pi_ref(0)/pi_ref(1)" % beta,
                       ps["pistar"][A[0]] / ps["pistar"][A[1]], X(p[A[0]]) / X(p[A[1]]))


def selftest_reject(t):
    good = dict(p_ref=[0.5, 0.5], r=[1.0, 0.0], beta=1.0)
    lgood = dict(logp_ref=[-0.6931471805599453, -0.6931471805599453], r=[1.0, 0.0], beta=1.0)
    nan, inf = float("nan"), float("inf")
    cases = [("KLOPT-Z", "prob", "beta = 0", "EDOM", dict(good, beta=0.0)),
             ("KLOPT-Z", "prob", "beta = -0", "EDOM", dict(good, beta=-0.0)),
             ("KLOPT-Z", "prob", "beta < 0", "EDOM", dict(good, beta=-1.0)),
             ("KLOPT-Z", "prob", "beta = +inf", "ENAN", dict(good, beta=inf)),
             ("KLOPT-Z", "prob", "beta NaN", "ENAN", dict(good, beta=nan)),
             ("KLOPT-Z", "prob", "a NaN reward", "ENAN", dict(good, r=[nan, 0.0])),
             ("KLOPT-Z", "prob", "an infinite reward", "ENAN", dict(good, r=[-inf, 0.0])),
             ("KLOPT-Z", "prob", "an infinite probability", "ENAN", dict(good, p_ref=[inf, 0.0])),
             ("KLOPT-Z", "prob", "a negative probability", "EDOM",
              dict(good, p_ref=[-0.25, 1.25])),
             ("KLOPT-Z", "prob", "sum 1 + 2^-19", "EDOM",
              dict(good, p_ref=[0.5, 0.5 + 2.0 ** -19])),
             ("KLOPT-Z", "prob", "no mass", "EDOM", dict(good, p_ref=[0.0, 0.0])),
             ("KLOPT-Z", "prob", "one reward for two", "EINVAL", dict(good, r=[1.0])),
             ("KLOPT-Z", "prob", "no outcome", "EINVAL", dict(good, p_ref=[], r=[])),
             ("KLOPT-Z", "logprob", "logits", "EDOM", dict(lgood, logp_ref=[1.0, 2.0])),
             ("KLOPT-Z", "logprob", "every outcome -inf", "EDOM",
              dict(lgood, logp_ref=[-inf, -inf])),
             ("KLOPT-Z", "logprob", "a NaN log-probability", "ENAN",
              dict(lgood, logp_ref=[nan, 0.0])),
             ("KLOPT-Z", "logprob", "a +inf log-probability", "ENAN",
              dict(lgood, logp_ref=[inf, 0.0])),
             ("KLOPT-OBJ", "prob", "pi sums to 2", "EDOM", dict(good, pi=[1.0, 1.0])),
             ("KLOPT-OBJ", "prob", "pi of one outcome", "EINVAL", dict(good, pi=[1.0])),
             ("KLOPT-IDENT", "logprob", "logpi sums to 2", "EDOM",
              dict(lgood, logpi=[0.0, 0.0])),
             ("KLOPT-LIMITS", "beta-zero", "a NaN reward", "ENAN",
              dict(p_ref=[0.5, 0.5], r=[nan, 0.0])),
             ("KLOPT-LIMITS", "finite-beta", "beta = 0", "EDOM", dict(good, beta=0.0))]
    for fid, variant, what, code, inp in cases:
        try:
            EVALUATORS[fid](variant, {}, inp, Ctx())
            got = None
        except Reject as rej:
            got = rej.code
        t.true("%s %s rejects %s (%s)" % (fid, variant, what, got), got == code)
    # within the tolerance: accepted, and the same as the exact distribution
    a = run("KLOPT-Z", "prob", p_ref=[0.5, 0.5 + 2.0 ** -21], r=[1.0, 0.0], beta=1.0)
    q = Fraction(1, 2) / (1 + Fraction(1, 2 ** 21))
    t.near("sum 1 + 2^-21: accepted, divided by the exact sum", a["logz"],
           mp.log(M(q) * mp.e + 1 - M(q)))


SELFTESTS = [selftest_two_outcomes, selftest_uniform, selftest_identity, selftest_exact,
             selftest_large, selftest_limits, selftest_reject]
