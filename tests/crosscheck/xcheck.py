#!/usr/bin/python3
"""Independent cross-check of the rlref golden files.

Usage:
    /usr/bin/python3 tests/crosscheck/xcheck.py golden/        check every golden file of golden/
    /usr/bin/python3 tests/crosscheck/xcheck.py FILE.json ...  check these golden files only
    /usr/bin/python3 tests/crosscheck/xcheck.py --selftest     check the families' own mathematics
    /usr/bin/python3 tests/crosscheck/xcheck.py golden/ --sens also recompute the "sens" fields
                                                               (reported, not counted)

Every expected output is recomputed from the definitions in golden/README.md,
golden/FORMULAS.md, golden/CONVENTIONS.md and the seed chapters, using mpmath at two working
precisions (and more when the two disagree), never from the library under test.  Inputs are
read from the "hex" fields (exact binary64).  The mathematics lives in one module per family,
tests/families/NAME/NAME.py, found by listing the folders there (see tests/crosscheck/README.md).

A golden value passes when |golden - mine| <= 10^(e - digits + 1), e being the decimal exponent
of the golden value (one unit of the last certified digit), and its "hex" is the double nearest
to my value.  The check fails closed: a golden file whose formula no family evaluates, an output
of a valid or acceptable test that no evaluator recomputes, an output recomputed here that the
golden lacks, a family module that does not load, and a directory without golden files are
failures.  The last line is "N passed, M failed".  Exit status: 0 when M = 0 and N > 0,
1 otherwise, 2 for a usage error.
"""

import json
import math
import os
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from mpmath import mp, mpf                      # noqa: E402

import families                                 # noqa: E402
import xcore                                    # noqa: E402
from xcore import (M, Reject, check_dec_hex, golden_tol, is_real_obj, mpf_str,  # noqa: E402
                   nearest_double, parse_hex, parse_value)

BASE_PREC = 400      # bits, first working precision
EXTRA_PREC = 128     # second precision = first + this
MAX_PREC = 6400      # escalation limit

REG = None           # the families' Registry, set by main()


# ----------------------------------------------------------------------------------------------
# Evaluation
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
    ctx = xcore.Ctx()
    with mp.workprec(prec):
        vals = REG.evaluators[formula](variant, params, inputs, ctx)
        vals = flatten_outputs(vals)
        closed = flatten_outputs(ctx.closed_form) if ctx.closed_form else {}
    return vals, closed, ctx


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


def where_of(name, idx):
    return "%s[%d]" % (name, idx) if idx is not None else name


# ----------------------------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------------------------

class Reporter:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.notes = []
        self.sens = False
        self.sens_ok = 0
        self.sens_bad = 0
        self.sens_bad_file = {}

    def fail(self, fname, tcid, name, idx, golden, mine, why=""):
        self.failed += 1
        print("FAIL %s tcId %s %s: golden %s, mine %s%s"
              % (fname, tcid, where_of(name, idx), golden, mine,
                 ("  (" + why + ")") if why else ""))

    def fail_text(self, text):
        """A failure that is not one value: a file, a formula, a family module."""
        self.failed += 1
        print("FAIL " + text)

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
    if (formula, variant) in REG.sens_skip:
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


# ----------------------------------------------------------------------------------------------
# One test, one file
# ----------------------------------------------------------------------------------------------

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
    if not gflat:
        rep.fail(fname, tcid, "outputs", None, "none", "-",
                 "a %s test without outputs checks nothing" % result)
    # fail closed: an output recomputed here that the golden lacks, and a golden output that
    # nothing here recomputes
    for name in sorted({kk[0] for kk in v1} - set(gouts)):
        rep.fail(fname, tcid, name, None, "(absent)", "recomputed here",
                 "the golden has no output %r" % name)
    if any(isinstance(gouts.get(k), list) for k in gouts):
        for k, v in gouts.items():
            mine_len = sum(1 for kk in v1 if kk[0] == k)
            if isinstance(v, list) and mine_len != len(v):
                rep.fail(fname, tcid, k, None, "%d values" % len(v), "%d values" % mine_len,
                         "length differs")
    pending = [key for key in gflat if key in v1]
    for key in gflat:
        if key not in v1:
            val = gflat[key].get("value") if isinstance(gflat[key], dict) else gflat[key]
            rep.fail(fname, tcid, key[0], key[1], val, "(none)",
                     "no evaluator of %s recomputes this output" % formula)
    if rep.sens and result in ("valid", "acceptable"):
        check_sens(rep, fname, tcid, formula, variant, params, raw_params, raw_inputs, inputs,
                   gouts, flags)
    p = prec
    first = (v1, closed)                 # the evaluation at prec is already done
    while pending:
        p2 = p + EXTRA_PREC
        try:
            if first is not None:
                (w1, closed1), first = first, None
            else:
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
    """Check one golden file; returns its formula id (None when it is not a golden file)."""
    fname = os.path.basename(path)
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError) as ex:
        rep.fail_text("%s: cannot read a golden file: %s" % (fname, ex))
        return None
    formula = data.get("formula") if isinstance(data, dict) else None
    if not isinstance(formula, str) or not isinstance(data.get("testGroups"), list):
        rep.fail_text("%s: not a golden file (no \"formula\" or no \"testGroups\")" % fname)
        return None
    if formula not in REG.evaluators:
        rep.fail_text("%s: formula %s has no evaluator: no module of tests/families/ "
                      "declares it, so none of its values is recomputed" % (fname, formula))
        return formula
    before = (rep.passed, rep.failed)
    n_tests = 0
    seen = set()
    check_params = REG.param_checks.get(formula)
    for grp in data["testGroups"]:
        variant = grp.get("variant")
        params = {k: parse_value(v) for k, v in (grp.get("params") or {}).items()}
        if check_params is not None:
            # the group's params must be the README's (one check per group)
            bad = check_params(variant, params)
            if bad:
                rep.fail(fname, "-", "params:" + str(variant), None, "; ".join(bad), "-")
            elif bad is not None:
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
    if n_tests == 0:
        rep.fail_text("%s: formula %s: no test in the file" % (fname, formula))
    if data.get("numberOfTests") is not None and data["numberOfTests"] != n_tests:
        rep.fail(fname, "-", "numberOfTests", None, data["numberOfTests"], n_tests)
    if rep.sens and rep.sens_bad_file.get(fname):
        print("SENS %s: %d sens fields differ from mine (first 5 shown)"
              % (fname, rep.sens_bad_file[fname]))
    print("%s: %d passed, %d failed (%d tests)"
          % (fname, rep.passed - before[0], rep.failed - before[1], n_tests))
    sys.stdout.flush()
    return formula


def golden_files(directory):
    """The golden files of a directory: every *.json but the schema."""
    return [os.path.join(directory, f) for f in sorted(os.listdir(directory))
            if f.endswith(".json") and not f.endswith(".schema.json")]


# ----------------------------------------------------------------------------------------------
# Self-test of the families' own mathematics
# ----------------------------------------------------------------------------------------------

def selftest():
    t = xcore.SelfTest()
    mp.prec = 400
    for name, fn in REG.selftests:
        print("-- families/%s/%s.py: %s" % (name, name, fn.__name__))
        mp.prec = 400
        fn(t)
    print("-- xcore.py: rounding")
    xcore.selftest(t)
    for name in sorted({n for n, _ in REG.modules} - {n for n, _ in REG.selftests}):
        print("NOTE families/%s/%s.py has no SELFTESTS" % (name, name))
    return t


def summary(passed, failed):
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


def main(argv):
    global REG
    args = [a for a in argv[1:] if a != "--sens"]
    if not args:
        sys.stderr.write(__doc__)
        summary(0, 1)
        return 2
    rep = Reporter()
    REG = families.load()
    for problem in REG.problems:
        rep.fail_text(problem)
    if args == ["--selftest"]:
        t = selftest()
        return summary(t.passed, t.failed + rep.failed)
    rep.sens = "--sens" in argv
    paths = []
    for a in args:
        if os.path.isdir(a):
            found = golden_files(a)
            if not found:
                rep.fail_text("%s: no golden file (*.json) in this directory" % a)
            paths += found
        elif os.path.isfile(a):
            paths.append(a)
        else:
            rep.fail_text("%s: no such file or directory" % a)
    checked = set()
    for path in paths:
        checked.add(check_file(rep, path))
    if any(os.path.isdir(a) for a in args):
        for fid in sorted(set(REG.evaluators) - checked):
            rep.note("formula %s (families/%s/%s.py) has no golden file here"
                     % (fid, REG.owner[fid], REG.owner[fid]))
    print("%d notes" % len(rep.notes))
    if rep.sens:
        print("sens (informational, not counted): %d agree, %d differ"
              % (rep.sens_ok, rep.sens_bad))
    return summary(rep.passed, rep.failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
