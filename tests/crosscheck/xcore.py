"""What every cross-check family shares: reading the golden encoding, exact rounding to binary64
and binary32, the evaluation context, exact arithmetic on binary64 inputs, the mpmath
primitives (sigmoid, softplus, logsumexp, a shift-invariant Newton maximiser), and GSL's
MT19937 stream replayed (gsl_rng_set, gsl_rng_uniform, gsl_ran_gaussian).

Nothing here knows a formula id; the families are the modules tests/families/NAME/NAME.py.
"""

import math
import random
import re
import struct
from fractions import Fraction

from mpmath import mp, mpf


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


def golden_tol(gobj):
    """(golden mpf, tolerance mpf, digits, e) for a numeric golden value string: the tolerance
    is one unit of the last certified digit, 10^(e - digits + 1)."""
    v = gobj["value"]
    sign, ds, e = parse_decimal_string(v)
    digits = gobj.get("digits")
    g = mpf(v)
    tol = mpf(10) ** (e - digits + 1)
    return g, tol, ds, e


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
        self.closed_form = None     # {output: value} a second, closed form the golden must meet


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


def get_input(inputs, params, *names):
    for n in names:
        if n in inputs:
            return inputs[n]
    for n in names:
        if n in params:
            return params[n]
    raise KeyError("missing input %s" % "/".join(names))


def is_int(v):
    """An integer input (not a bool)."""
    return isinstance(v, int) and not isinstance(v, bool)


def qreal(v, name):
    """The exact rational of a real input or parameter; NaN and +-inf are refused (ENAN)."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise Reject("EINVAL", "%s is not a real number" % name)
    if math.isnan(v) or math.isinf(v):
        raise Reject("ENAN", "%s is %r" % (name, v))
    return Fraction(v)


def param(inputs, params, name):
    """A real parameter: the test's own value when it gives one, else the group's."""
    return qreal(get_input(inputs, params, name), name)


def variant_ddof(variant, params, default=None):
    """The ddof a variant name spells ("ddof1", "ddof-0"), else the params' ddof."""
    if variant:
        mm = re.search(r"ddof\s*[-_=]?\s*(\d)", variant)
        if mm:
            return int(mm.group(1))
    if isinstance(params.get("ddof"), int):
        return params["ddof"]
    return default


# ----------------------------------------------------------------------------------------------
# Exact arithmetic on binary64 inputs
# ----------------------------------------------------------------------------------------------

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


def sub_exact(a, b):
    """a - b for doubles, exact when finite (as mpf), IEEE-like limits otherwise."""
    if math.isinf(a) or math.isinf(b):
        return X(a) - X(b)
    return M(Q(a) - Q(b))


# ----------------------------------------------------------------------------------------------
# mpmath primitives
# ----------------------------------------------------------------------------------------------

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


def logsumexp(xs):
    """log sum_i e^{x_i}, shifted by the maximum."""
    m = max(xs)
    if mp.isinf(m):
        return m
    return m + mp.log(mp.fsum(mp.exp(x - m) for x in xs))


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


def mpf_str(x, n=25):
    with mp.workprec(max(mp.prec, 200)):
        if mp.isnan(x):
            return "nan"
        if mp.isinf(x):
            return "inf" if x > 0 else "-inf"
        return mp.nstr(x, n)


# ----------------------------------------------------------------------------------------------
# GSL's MT19937 stream replayed
# ----------------------------------------------------------------------------------------------

def gsl_mt19937(seed):
    """A random.Random holding the state gsl_rng_set(mt19937, seed) leaves (seed 0 -> 4357)."""
    s = seed & 0xffffffff
    if s == 0:
        s = 4357
    mt = [s]
    for i in range(1, 624):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + i) & 0xffffffff)
    r = random.Random()
    r.setstate((3, tuple(mt + [624]), None))
    return r


def gsl_uniform(r):
    """gsl_rng_uniform(r) for mt19937: the next 32-bit output k over 2^32, exact in binary64."""
    return r.getrandbits(32) / 4294967296.0


def gsl_gaussian(r):
    """gsl_ran_gaussian(r, 1.0): the polar (Box-Muller) method on gsl_rng_uniform = k/2^32."""
    while True:
        x = -1 + 2 * gsl_uniform(r)
        y = -1 + 2 * gsl_uniform(r)
        r2 = x * x + y * y
        if not (r2 > 1.0 or r2 == 0):
            break
    return 1.0 * y * math.sqrt(-2.0 * math.log(r2) / r2)


# ----------------------------------------------------------------------------------------------
# Self-tests: a family's SELFTESTS are functions of one SelfTest
# ----------------------------------------------------------------------------------------------

class SelfTest:
    """Counts the checks of `xcheck.py --selftest`, one line each."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def true(self, what, good):
        print("%s %s" % ("ok  " if good else "BAD ", what))
        if good:
            self.passed += 1
        else:
            self.failed += 1

    def near(self, what, got, want, rel=mpf(10) ** -25):
        """|got - want| <= rel max(|want|, 1e-300)."""
        good = abs(got - want) <= rel * max(abs(want), mpf(10) ** -300)
        self.true("%s: %s (want %s)" % (what, mpf_str(got, 30), mpf_str(want, 30)), good)


def selftest(t):
    """The rounding helpers: binary32 against the platform's float cast, nearest double."""
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
    t.true("binary32 rounding vs struct: %d mismatches in 20000" % mism, mism == 0)
    # nearest double of an mpf: 1/3 and a tie case
    with mp.workprec(400):
        ok1 = nearest_double(mpf(1) / 3) == 1 / 3
        tie = mpf(1) + mpf(2) ** -53                  # exactly halfway: ties to even -> 1.0
        ok2 = nearest_double(tie) == 1.0 and nearest_double(tie + mpf(2) ** -300) > 1.0
    t.true("nearest_double", ok1 and ok2)
    # GSL's tests: 4293858116 is the first output of mt19937 seeded 4357 (gsl_rng_set with 0)
    t.true("mt19937 seed 4357 first output 4293858116",
           gsl_mt19937(0).getrandbits(32) == 4293858116)


# ----------------------------------------------------------------------------------------------
# Central differences for the families' self-tests
# ----------------------------------------------------------------------------------------------

FD_STEP = Fraction(1, 2 ** 100)  # central-difference step; error O(h^2) ~ 1e-60


def bumped(inputs, name, i, dx):
    """A copy of inputs with inputs[name][i] moved by the exact rational dx."""
    ins = dict(inputs)
    arr = list(ins[name])
    arr[i] = Fraction(arr[i]) + dx
    ins[name] = arr
    return ins


def central(fn, variant, params, inputs, name, i, out="loss"):
    """d out / d inputs[name][i] by a central difference in exact rational steps, at 600 bits;
    fn(variant, params, inputs, ctx) is a family's evaluator."""
    with mp.workprec(600):
        up = fn(variant, params, bumped(inputs, name, i, FD_STEP), Ctx())[out]
        dn = fn(variant, params, bumped(inputs, name, i, -FD_STEP), Ctx())[out]
        return (up - dn) / (2 * M(FD_STEP))


def refused(fn, variant, params, inputs):
    """The status code with which fn rejects inputs, or None."""
    try:
        fn(variant, params, inputs, Ctx())
    except Reject as ex:
        return ex.code
    return None
