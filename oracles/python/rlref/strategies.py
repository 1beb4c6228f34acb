"""Hypothesis strategies of a formula's inputs (requires hypothesis; Debian's python3-hypothesis).

    from hypothesis import given
    import rlref, rlref.strategies as rs

    @given(rs.inputs("GRPO-ADV", "trl"))
    def test_adv(x):
        try:
            want = rlref.eval("GRPO-ADV", "trl", want_sens=True, **x)["adv"]
        except rlref.Rejected:
            return                              # or: assert my_adv refuses x
        rlref.assert_close(want, my_adv(**x))

inputs(formula, variant) draws keyword arguments for rlref.eval and for the function under
test: first the inputs of the golden's valid cases of that variant (its edge cases, as explicit
examples), then draws of the same shapes: every integer kept, every real element drawn from its
input's declared domain (the registry's, as the domain fuzzer reads it: an interval, "sum1" for
a distribution, "sorted") or, where none is declared, a double near the golden's element (the
same sign, within a factor of 4, or exactly it, or 0).
"""

import math

from hypothesis import strategies as st

import rlref
from rlref._eval import registry


def _domain(text):
    """(lo, hi, lo_open, hi_open, sum1, sorted) of a domain string, or None for none."""
    if not text:
        return None
    words = text.split()
    iv = words[0]
    lo_s, hi_s = iv[1:-1].split(",")
    lo, hi = float(lo_s), float(hi_s)
    return (lo, hi, iv[0] == "(", iv[-1] == ")", "sum1" in words[1:], "sorted" in words[1:])


def _in_domain(d):
    lo, hi, lo_open, hi_open = d[0], d[1], d[2], d[3]
    lo = max(lo, -1e300)
    hi = min(hi, 1e300)
    return st.floats(min_value=lo, max_value=hi, exclude_min=lo_open, exclude_max=hi_open,
                     allow_nan=False, allow_infinity=False)


def _near(x):
    """A double near the golden's element x: x itself, 0, or one of its sign within a factor
    of 4 (a NaN or an infinity of a valid case stays as it is)."""
    if not math.isfinite(x) or x == 0:
        return st.just(x)
    a = abs(x)
    mag = st.floats(min_value=a / 4, max_value=a * 4, allow_nan=False, allow_infinity=False)
    return st.one_of(st.just(x), st.just(0.0), mag.map(lambda m: math.copysign(m, x)))


def _array(values, d):
    n = len(values)
    if d is None:
        return st.tuples(*[_near(v) for v in values]).map(list) if n else st.just([])
    elems = st.lists(_in_domain(d), min_size=n, max_size=n)
    if d[4]:                            # sum1: a distribution
        elems = st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
                         min_size=n, max_size=n).filter(lambda v: sum(v) > 0) \
            .map(lambda v: [e / sum(v) for e in v])
    if d[5]:
        elems = elems.map(sorted)
    return elems


def inputs(formula, variant=None):
    """The strategy of keyword-argument dicts for formula's variant (None: its default); see
    the module's documentation.  rlref.UnknownFormula for an id or variant the registry does
    not have."""
    reg = registry()
    if formula not in reg:
        raise rlref.UnknownFormula("unknown formula %r (see rlref list)" % formula)
    variants = reg[formula]["variants"]
    var = variants[0] if variant is None else next((v for v in variants
                                                     if v["name"] == variant), None)
    if var is None:
        raise rlref.UnknownFormula("%s has no variant %r; it has: %s" % (
            formula, variant, " ".join(v["name"] for v in variants)))
    kinds = {i["name"]: i for i in var["inputs"]}
    examples = [c.args for c in rlref.golden(formula).cases(variant=var["name"],
                                                            result="valid")]
    if not examples:
        raise rlref.GoldenError("%s [%s] has no valid golden case to draw around"
                                % (formula, var["name"]))

    def around(case):
        parts = {}
        for name, value in case.items():
            decl = kinds.get(name)
            d = _domain(decl.get("domain")) if decl else None
            if decl is None or decl["kind"].startswith("int"):
                parts[name] = st.just(value)
            elif decl["kind"] == "real[]":
                parts[name] = _array(value, d)
            else:
                parts[name] = _in_domain(d) if d else _near(value)
        return st.fixed_dictionaries(parts)

    return st.one_of(st.sampled_from(examples), st.sampled_from(examples).flatmap(around))
