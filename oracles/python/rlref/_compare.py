"""Comparing values with the goldens' tolerance rule, reported the way torch.testing.assert_close
reports (rlref.assert_close)."""

import math

# unit roundoff u and smallest normal L of each dtype the goldens' rule names
DTYPES = {"float64": (2.0 ** -53, 2.0 ** -1022), "float32": (2.0 ** -24, 2.0 ** -126),
          "bfloat16": (2.0 ** -8, 2.0 ** -126)}
DEFAULT_ULPS = 32


def _is_value(x):
    """Whether x is a certified value of rlref.eval (a Value: value, digits, sens)."""
    return hasattr(x, "value") and hasattr(x, "digits") and hasattr(x, "sens")


def _flat(x, what):
    """x as a flat list of floats and its shape: a number, a (nested) list, anything with
    tolist() (a NumPy array, a torch tensor), or rlref.eval's Values (the double nearest the
    certified decimal)."""
    if hasattr(x, "tolist") and not isinstance(x, (list, tuple)):
        x = x.tolist()
    if _is_value(x):
        return [float(x.value)], ()
    if isinstance(x, bool):
        raise TypeError("%s: a boolean is not a value" % what)
    if isinstance(x, (int, float)):
        return [float(x)], ()
    if isinstance(x, (list, tuple)):
        out, shape = [], None
        for i, e in enumerate(x):
            v, s = _flat(e, "%s[%d]" % (what, i))
            if shape is not None and s != shape:
                raise ValueError("%s: a ragged array" % what)
            shape = s
            out += v
        return out, (len(x),) + (shape or ())
    raise TypeError("%s: %r is not a number, a list or an array" % (what, type(x).__name__))


def _index(flat_i, shape):
    idx = []
    for n in reversed(shape):
        idx.append(flat_i % n)
        flat_i //= n
    return tuple(reversed(idx))


def tolerance(expected, sens=0.0, dtype="float64", ulps=None):
    """The goldens' allowance |got - expected| <= U u (sens + max(|expected|, L)) for one value
    (U u sens for an exact zero): U = ulps (32 unless given), u and L the unit roundoff and the
    smallest normal of dtype."""
    if dtype not in DTYPES:
        raise ValueError("dtype %r: one of %s" % (dtype, ", ".join(DTYPES)))
    u, lam = DTYPES[dtype]
    U = DEFAULT_ULPS if ulps is None else ulps
    if expected == 0:
        return U * u * sens
    return U * u * (sens + max(abs(expected), lam))


def assert_close(expected, got, sens=None, dtype="float64", ulps=None, msg=None):
    """AssertionError unless every value of got is within the goldens' tolerance of expected
    (tolerance()); expected may be rlref.eval's output (Values); sens is the golden's
    sensitivity (a number or one per value; case.sens[name]), else that of the Values
    (rlref.eval(..., want_sens=True)), else 0.  NaN must meet NaN and an infinity the same
    infinity.  The message counts the mismatched elements and gives the worst: its index, the
    difference and what was allowed, the error in units of u |expected| (u the unit roundoff
    of dtype) and the correct digits."""
    x, xs = _flat(expected, "expected")
    g, gs = _flat(got, "got")
    if len(x) != len(g):
        raise AssertionError("%sexpected %d value%s (shape %s), got %d (shape %s)"
                             % (msg + ": " if msg else "", len(x), "" if len(x) == 1 else "s",
                                xs, len(g), gs))
    if sens is None:
        values = expected if isinstance(expected, (list, tuple)) else [expected]
        s = [v.sens if _is_value(v) and v.sens is not None else 0.0 for v in values] \
            if len(values) == len(x) else [0.0] * len(x)
    else:
        s, _ = _flat(sens, "sens")
        if len(s) == 1 and len(x) != 1:
            s = s * len(x)
        if len(s) != len(x):
            raise ValueError("sens: %d values for %d" % (len(s), len(x)))
    u, lam = DTYPES.get(dtype, (None, None))
    if u is None:
        raise ValueError("dtype %r: one of %s" % (dtype, ", ".join(DTYPES)))
    bad, worst = [], None
    for i, (xe, ge, se) in enumerate(zip(x, g, s)):
        if math.isnan(xe) or math.isinf(xe) or math.isnan(ge) or math.isinf(ge):
            if not (xe == ge or (math.isnan(xe) and math.isnan(ge))):
                bad.append(i)
                if worst is None or worst[1] != math.inf:
                    worst = (i, math.inf, tolerance(xe, se, dtype, ulps) if math.isfinite(xe)
                             else 0.0)
            continue
        d, t = abs(ge - xe), tolerance(xe, se, dtype, ulps)
        if d > t:
            bad.append(i)
            if worst is None or (worst[1] != math.inf and d / max(t, 1e-300) > worst[1]
                                 / max(worst[2], 1e-300)):
                worst = (i, d, t)
    if not bad:
        return
    i, d, t = worst
    xe, ge = x[i], g[i]
    where = _index(i, xs) if xs else "()"
    lines = ["%sValues are not close under rlref's tolerance rule (%s, U = %s)!"
             % (msg + ": " if msg else "", dtype, DEFAULT_ULPS if ulps is None else ulps),
             "Mismatched elements: %d / %d (%.1f%%)" % (len(bad), len(x), 100.0 * len(bad) / len(x)),
             "Greatest mismatch at index %s: expected %r, got %r" % (where, xe, ge)]
    if math.isfinite(d) and xe == 0:
        lines.append("  difference %.3g (allowed %.3g: U u sens for an exact zero)" % (d, t))
    elif math.isfinite(d):
        scale = max(abs(xe), lam)
        digits = -math.log10(d / scale) if d > 0 else float("inf")
        lines.append("  difference %.3g (allowed %.3g): %.3g u |expected| (u = 2^%d, %s), %.1f "
                     "correct digits" % (d, t, d / scale / u, round(math.log2(u)), dtype,
                                         max(digits, 0.0)))
    raise AssertionError("\n".join(lines))
