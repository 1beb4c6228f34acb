"""The text report of rlref.judge, rendered from its record as `rlref check` renders its own
(oracles/check/check_text.c): the lines of the failing cases of the variants judged, the
outputs judged, each part's table of variants, its verdict, the explanation, its input
validation, and the closing line "N passed, M failed"."""

import decimal
import math

from ._judge import DTYPES, LOG10_2, NOTRUN, _clean

SHOW_DIGITS = 20
TAGS = ("  MATCH", "  MATCH but for numerically demanding cases", "  at float32 accuracy",
        "  at bfloat16 accuracy", "  no match", "")


def _shorten(s):
    """The decimal s cut after SHOW_DIGITS significant digits ("..." marks the cut; an
    exponent is kept)."""
    i, out, sig, cut = 0, [], 0, False
    if s[:1] in "+-":
        out.append(s[0])
        i = 1
    while i < len(s) and (s[i].isdigit() or s[i] == "."):
        if s[i] != "." and (sig > 0 or s[i] != "0"):
            sig += 1
        if sig > SHOW_DIGITS or len(out) + 4 >= 80:
            cut = True
        elif not cut:
            out.append(s[i])
        i += 1
    return "".join(out) + ("..." if cut else "") + s[i:]


def _got(g):
    if math.isnan(g):
        return "nan"
    if math.isinf(g):
        return "inf" if g > 0 else "-inf"
    return "%.17g" % g


def _digits(j, e, l):
    """The correct digits of element e shown at level l: -log10 of its relative error, formed
    to 50 digits so that the one decimal printed is that of the checker's 256-bit log10."""
    cap = DTYPES[l][1] * LOG10_2
    if e.rel_exact is None:
        return min(e.digits, cap)
    n, ex = e.rel_exact
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        w = decimal.Decimal(n) * decimal.Decimal(2) ** ex
        d = -float(w.log10())
    d = 17.0 if d > 17 else d if d > 0 else 0.0
    return min(d, cap)


def _start(j, k, word, name=None, idx=-1):
    s = "%s tcId %d [%s]" % (word, k.tcid, _clean(j.vars[k.var].name))
    if name is not None:
        s += " " + _clean(name) + ("[%d]" % idx if idx >= 0 else "")
    return s + ": "


def _end(k, passed):
    if not passed and k.kind == "acceptable":
        flags = k.test.get("flags") or []
        return (" (acceptable: flags " if flags else " (acceptable") + \
            ", ".join(_clean(f) for f in flags) + ")\n"
    return "\n"


def _word(k, passed):
    return "PASS" if passed else "NOTE" if k.kind == "acceptable" else "FAIL"


def _measures(j, e, l):
    tol = j.ulps * e.base_ulps[l]
    if j.have_rtol and j.rtol * e.x_ulps[l] > tol:
        tol = j.rtol * e.x_ulps[l]
    if e.rel == 0:
        return " err 0 ulps, rel 0, exact; tol %.2g ulps" % tol
    if math.isinf(e.rel):
        return " abs err %.2g (expected 0), 0.0 correct digits; tol %.2g ulps" % (
            abs(e.got), tol)
    return " err %.2g ulps, rel %.2g, %.1f correct digits; tol %.2g ulps" % (
        e.err_ulps[l], e.rel, _digits(j, e, l), tol)


def _element_line(j, k, e, l):
    passed = j.elem_pass(e, l)
    s = _start(j, k, _word(k, passed), e.output, e.index)
    if e.kind in ("missing", "shape"):
        s += e.problem
    else:
        s += "expected %s got %s" % (_shorten(e.expected["value"]), _got(e.got))
        if e.kind == "finite":
            s += _measures(j, e, l)
    return s + _end(k, passed)


def case_lines(j, k, all_=False):
    """The lines of case k at the declared level (its failures, or with all_ every element)."""
    l = j.level
    ge = k.test.get("error")
    if k.answer == "skip":
        if all_:
            return _start(j, k, "SKIP") + "not answered by the candidate: " + \
                _clean(k.cand_error) + "\n"
        return ""
    if k.kind == "invalid":
        if k.answer == "error" and all_ and isinstance(ge, str) and ge != k.cand_error:
            return _start(j, k, "PASS") + "rejected with \"%s\" (the golden names \"%s\")\n" % (
                _clean(k.cand_error), _clean(ge))
        if k.answer == "error" and all_:
            return _start(j, k, "PASS") + "rejected with \"%s\"\n" % _clean(k.cand_error)
        if k.answer == "outputs":
            return _start(j, k, "FAIL" if j.strict else "INPUT") + \
                "not rejected (%s); the reference rejects it with \"%s\"\n" % (
                    "gave NaN or an infinity" if k.nonfinite_out else "gave values",
                    _clean(ge if isinstance(ge, str) else "an error"))
        if k.answer == "missing":
            return _start(j, k, "FAIL" if j.strict else "INPUT") + \
                "missing; the reference rejects it\n"
        return ""
    if k.answer == "missing":
        return _start(j, k, _word(k, False)) + "missing" + _end(k, False)
    if k.answer == "error":
        return _start(j, k, _word(k, False)) + "rejected the input with \"%s\"" % \
            _clean(k.cand_error) + _end(k, False)
    if k.st[l] == "skip":
        if all_:
            return _start(j, k, "SKIP") + ("no output of it is judged\n" if not k.el else
                                           "beyond the %s range: not judged at %s\n" % (
                                               DTYPES[l][0], DTYPES[l][0]))
        return ""
    s = "".join(_element_line(j, k, e, l) for e in k.el if all_ or not j.elem_pass(e, l))
    if all_ and not k.el:
        s += _start(j, k, "PASS") + "no outputs to compare\n"
    return s


def _accepted(j, a, flag):
    """The tcIds (text) of answer a's must-reject cases the candidate does not reject whose
    first INVALID_INPUT flag is flag (None: those without one), and their number."""
    ids = []
    for k in j.cases:
        if k.var != a.index or k.kind != "invalid" or k.answer != "outputs":
            continue
        first = next((f for f in k.test.get("flags") or []
                      if j._invalid_note(f) is not None), None)
        if first != flag:
            continue
        ids.append("%d%s" % (k.tcid, " (NaN)" if k.nonfinite_out else ""))
    return ", ".join(ids), len(ids)


def validation_line(j, p):
    """The input-validation line of part p, or None when its answer has no must-reject
    cases."""
    a = j.answer(p)
    if a is None or a.ninvalid == 0 or a.rejected + a.accepted == 0:
        return None
    s = "Input validation against " + _clean(a.name)
    if a.accepted == 0:
        s += ": rejects the one input it rejects" if a.rejected == 1 else \
            ": rejects all %d inputs it rejects" % a.rejected
        if a.invalid_missing:
            s += " (%d not answered)" % a.invalid_missing
        return s
    n = a.ninvalid
    if n == 1:
        s += ": accepts the one input it rejects"
    elif a.accepted == n:
        s += ": accepts all %d inputs it rejects" % n
    else:
        s += ": accepts %d of the %d inputs it rejects" % (a.accepted, n)
    done, groups = set(), 0
    for k in j.cases:
        if k.var != a.index or k.kind != "invalid" or k.answer != "outputs":
            continue
        first = next((f for f in k.test.get("flags") or []
                      if j._invalid_note(f) is not None), None)
        if (first or "") in done:
            continue
        done.add(first or "")
        s += "; " if groups else " ("
        groups += 1
        if first is not None:
            s += "%s (%s): " % (_clean(first), _clean(j._invalid_note(first)))
        ids, count = _accepted(j, a, first)
        s += ("tcId " if count == 1 else "tcIds ") + ids
    s += ")" if groups else ""
    if not j.strict:
        s += "; not counted in the verdict (--strict counts it)"
    return s


def _variant_row(j, v, ind):
    t = v.t[j.level]
    s = ind + "variant " + _clean(v.name)
    if v.cls == NOTRUN and (j.only is None or t.failed == 0):
        return s + ": not run\n"
    s += ": %d passed, %d failed" % (t.passed, t.failed)
    if t.noted:
        s += ", %d noted" % t.noted
    if t.skipped:
        s += ", %d not judged" % t.skipped
    return s + TAGS[v.cls] + "\n"


def _header(j):
    f = j.golden.get("formula")
    s = "Checking %s against %s: dtype %s, U = %s" % (
        j.cpath, _clean(f) if isinstance(f, str) else j.gpath, j.dtype, "%g" % j.ulps)
    if j.have_rtol:
        s += ", rtol %g" % j.rtol
    if j.only is not None:
        s += ", variant " + _clean(j.only)
    if j.outputs_opt is not None:
        s += ", outputs " + _clean(j.outputs_opt)
    if j.strict:
        s += ", strict"
    return s + "\n"


def _omitted_why(k, name):
    om = (k.res or {}).get("omitted") or {}
    w = om.get(name)
    return w if isinstance(w, str) else None


def _outputs_lines(j):
    s = ""
    cases = j.cases
    for i, k in enumerate(cases):
        for name, why in ((k.res or {}).get("omitted") or {}).items():
            if any(_omitted_why(cases[q], name) == why for q in range(i)):
                continue
            ids = [c.tcid for c in cases[i:] if _omitted_why(c, name) == why]
            s += "Omitted by the candidate: %s%s %s (%s): not judged there\n" % (
                _clean(name), " in tcIds" if len(ids) > 1 else " in tcId",
                ", ".join(str(t) for t in ids), _clean(why))
    if not j.ungiven:
        return s
    s += "Outputs judged: " + (", ".join(_clean(n) for n in j.judged) or "none")
    s += "; not judged: " if j.outputs_opt is not None else "; not given by the candidate: "
    return s + ", ".join(_clean(n) for n in j.ungiven) + "\n"


def _part_heading(j, p):
    v = next(v for v in j.vars if v.part == p)
    s = "part %s, " % _clean(v.part_name) if v.part_name is not None else "part %d, " % (p + 1)
    names = ", ".join(_clean(n) for n in v.inputs)
    return s + "tests with inputs " + (names + ":\n" if names else "(none):\n")


def report(j):
    """The whole text report."""
    ind = "  " if j.nparts > 1 else ""
    out = [_header(j)]
    for k in j.cases:
        if not j.in_scope(j.vars[k.var]):
            continue
        if k.kind == "invalid" and k.answer not in ("error", "skip") and not j.strict \
                and not j.verbose:
            continue
        if j.verbose or j.counted(k):
            out.append(case_lines(j, k, j.verbose))
    out.append(_outputs_lines(j))
    for p, pt in enumerate(j.parts):
        if not pt.order:
            continue
        if j.nparts > 1:
            out.append(_part_heading(j, p))
        for v in j.vars:
            if v.part == p and j.in_scope(v):
                out.append(_variant_row(j, v, ind))
        out.append(ind + j.verdict_line(p) + "\n")
        if pt.why is not None and pt.why.line is not None:
            out.append(ind + pt.why.line + "\n")
        line = validation_line(j, p)
        if line is not None:
            out.append(ind + line + "\n")
    if j.sum_noted:
        out.append("%d acceptable mismatch%s noted\n" % (j.sum_noted,
                                                        "" if j.sum_noted == 1 else "es"))
    out.append("%d passed, %d failed\n" % (j.sum_passed, j.sum_failed))
    return "".join(out)
