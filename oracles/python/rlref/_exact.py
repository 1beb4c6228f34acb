"""Exact binary floating-point arithmetic for the judge: numbers n * 2**e (Python ints),
rounded to a precision as MPFR rounds them, so that the judge forms |got - expected| and the
tolerance as `rlref check` does (256 bits, round to nearest; quotients rounded up to a
double).  Only what the judge needs: reading a decimal or a double, +, -, |.|, division
rounded to a double, and scaling by powers of two."""

import math
from fractions import Fraction

ZERO = (0, 0)


def _shift_round(n, sh, mode):
    """n * 2**-sh (sh > 0) rounded to an integer: 'N' nearest even, 'U' toward +inf."""
    q, r = divmod(n, 1 << sh)           # floor, 0 <= r < 2**sh
    if r == 0:
        return q
    if mode == "U":
        return q + 1
    half = 1 << (sh - 1)
    if r > half or (r == half and q & 1):
        return q + 1
    return q


def round_to(x, prec, mode="N"):
    """x rounded to prec significant bits."""
    n, e = x
    if n == 0:
        return ZERO
    sh = abs(n).bit_length() - prec
    if sh <= 0:
        return x
    return (_shift_round(n, sh, mode), e + sh)


def _quotient(p, q, e, prec, mode):
    """(p / q) * 2**e rounded to prec bits (q > 0)."""
    if p == 0:
        return ZERO
    k = abs(p).bit_length() - q.bit_length() - prec - 2
    num, den = (p, q << k) if k >= 0 else (p << -k, q)
    a, rem = divmod(num, den)
    # a carries at least prec + 1 bits; the remainder becomes a sticky bit
    return round_to((2 * a + (1 if rem else 0), k - 1 + e), prec, mode)


def from_fraction(f, prec, mode="N"):
    """The Fraction f rounded to prec bits."""
    return _quotient(f.numerator, f.denominator, 0, prec, mode)


def div(a, b, prec, mode="N"):
    """a / b (b nonzero) rounded to prec bits."""
    p, q = (a[0], b[0]) if b[0] > 0 else (-a[0], -b[0])
    return _quotient(p, q, a[1] - b[1], prec, mode)


def from_double(d):
    """The double d, exactly (finite)."""
    if d == 0:
        return ZERO
    m, e = math.frexp(d)
    return (int(m * (1 << 53)), e - 53)


def from_decimal(s, prec):
    """The decimal string s rounded to prec bits, or None when it is not finite."""
    return from_fraction(Fraction(s), prec)


def is_zero(x):
    return x[0] == 0


def neg(x):
    return (-x[0], x[1])


def absv(x):
    return (abs(x[0]), x[1])


def add(a, b, prec, mode="N"):
    """a + b rounded at prec bits ('N' to nearest, 'U' up)."""
    if a[0] == 0:
        return round_to(b, prec, mode)
    if b[0] == 0:
        return round_to(a, prec, mode)
    e = min(a[1], b[1])
    n = (a[0] << (a[1] - e)) + (b[0] << (b[1] - e))
    return round_to((n, e), prec, mode)


def mul(a, b, prec, mode="N"):
    """a * b rounded at prec bits."""
    return round_to((a[0] * b[0], a[1] + b[1]), prec, mode) if a[0] and b[0] else ZERO


def sub(a, b, prec):
    return add(a, neg(b), prec)


def mul_2exp(x, k):
    return (x[0], x[1] + k) if x[0] else ZERO


def cmp(a, b):
    """-1, 0 or 1 as a < b, a == b, a > b."""
    e = min(a[1], b[1])
    na, nb = a[0] << (a[1] - e), b[0] << (b[1] - e)
    return (na > nb) - (na < nb)


def floor_log2(x):
    """floor(log2 |x|) of a nonzero x."""
    return x[1] + abs(x[0]).bit_length() - 1


def to_double(x, mode="N"):
    """x rounded to a double ('N' nearest, 'U' toward +inf), inf beyond the range."""
    n, e = x
    if n == 0:
        return 0.0
    qe = max(floor_log2(x) - 52, -1074)
    m = n << (e - qe) if e >= qe else _shift_round(n, qe - e, mode)
    try:
        return math.ldexp(m, qe)
    except OverflowError:
        return math.inf if m > 0 else -math.inf


def div_up_to_double(a, b):
    """a / b (b nonzero) rounded up to a double.  MPFR's quotient rounded up at 256 bits, then
    to a double, is the same: rounding up is monotone and every double is a 256-bit number."""
    return to_double(div(a, b, 60, "U"), "U")


def log10(x):
    """log10 |x| of a nonzero x, as a double (within an ulp or two)."""
    n, e = x
    return math.log10(abs(n)) + e * math.log10(2.0)
