#!/usr/bin/python3
"""The published numbers against the golden files.

Usage:  /usr/bin/python3 tests/crosscheck/detectors.py golden/

Each family module tests/families/NAME/NAME.py lists its checks in DETECTORS (functions of one
Run); each check finds the golden test case with the given inputs under the given variant and
compares its certified value with the number printed in the documents (CONVENTIONS.md detector
vectors, the seeds' worked examples), to the printed digits.
A printed number with n significant digits matches when the golden value rounded to n digits
equals it; a number printed with a trailing "..." is a truncated expansion, and matches when the
golden value truncated or rounded to its digits equals it.  Exact symbolic values (log 4,
r/(1 + 1e-6), 0.75/sqrt(0.25 + 1e-8)) are evaluated with mpmath and compared to all the
golden's digits (one unit of the last digit allowed).

Fails closed: a golden file a check needs that is missing, a test it looks for that is absent,
and a family module that does not load are failures.  The last line is "N passed, M failed";
exit status 0 when M = 0 and N > 0, 1 otherwise, 2 for a usage error.
"""

import json
import os
import sys
from decimal import Decimal, ROUND_HALF_EVEN, ROUND_DOWN, localcontext

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from mpmath import mp, mpf                      # noqa: E402

import families                                 # noqa: E402
from xcore import golden_tol, parse_value       # noqa: E402


def inputs_equal(raw, want):
    """raw: a golden inputs dict; want: {name: float | int | list}.  Exact binary64 equality."""
    for k, v in want.items():
        if k not in raw:
            return False
        got = parse_value(raw[k])
        if isinstance(v, list):
            if not isinstance(got, list) or len(got) != len(v):
                return False
            if any(float(a) != float(b) for a, b in zip(got, v)):
                return False
        elif isinstance(v, int) and not isinstance(v, bool) and isinstance(got, int):
            if got != v:
                return False
        elif float(got) != float(v):
            return False
    return True


def rounded(value, n, mode=ROUND_HALF_EVEN):
    """The decimal string `value` rounded (or truncated) to n significant digits, as Decimal."""
    with localcontext() as c:
        c.prec = 400
        d = Decimal(value)
        if d == 0:
            return Decimal(0)
        e = d.adjusted()
        q = Decimal(1).scaleb(e - n + 1)
        return d.quantize(q, rounding=mode)


def sig_digits(printed):
    s = printed.lstrip("+-").replace(".", "").lstrip("0")
    return max(1, len(s))


def matches_printed(gobj, printed):
    """True when the golden output agrees with the printed number to the printed digits."""
    gval = gobj["value"]
    truncated = printed.endswith("...") or printed.endswith("\u2026")
    p = printed.rstrip(".\u2026")
    if gval in ("nan", "inf", "-inf"):
        return gval == p
    want = Decimal(p)
    if gval == "0":
        return want == 0
    n = sig_digits(p)
    if int(gobj["digits"]) < n:
        return False
    if rounded(gval, n) == want:
        return True
    return truncated and rounded(gval, n, ROUND_DOWN) == want


class Run:
    """The checks a family's DETECTORS call, and their count."""

    def __init__(self, directory):
        self.dir = directory
        self.cache = {}
        self.passed = 0
        self.failed = 0

    def load(self, formula):
        if formula not in self.cache:
            path = os.path.join(self.dir, formula + ".json")
            try:
                with open(path) as fh:
                    self.cache[formula] = json.load(fh)
            except (OSError, ValueError) as ex:
                self.cache[formula] = None
                self.fail("%s: the checks of this formula need %s: %s" % (formula, path, ex))
        return self.cache[formula]

    def ok(self, what):
        self.passed += 1
        print("ok   " + what)

    def fail(self, what):
        self.failed += 1
        print("FAIL " + what)

    def note(self, what):
        print("note " + what)

    @staticmethod
    def short(v, n=12):
        return v if len(v) <= n + 4 else v[:n + 2] + "..."

    @staticmethod
    def output(t, name, idx=None):
        o = t.get("outputs", {}).get(name)
        if isinstance(o, list):
            return o[idx if idx is not None else 0]
        return o

    def find(self, formula, variant, want):
        """The golden test of `formula` under `variant` whose inputs equal `want` (None if absent;
        'nofile' if the file cannot be read, a failure recorded once by load)."""
        data = self.load(formula)
        if data is None:
            return "nofile"
        for g in data.get("testGroups", []):
            if variant is not None and g.get("variant") != variant:
                continue
            for t in g.get("tests", []):
                if inputs_equal(t.get("inputs", {}), want):
                    return t
        return None

    def locate(self, formula, variant, want, name, idx, label):
        """The golden test with these inputs and a name for it in messages; None
        (after recording the failure) when the file has no such test."""
        t = self.find(formula, variant, want)
        where = "%s %s %s%s" % (formula, variant, name, "" if idx is None else "[%d]" % idx)
        if t == "nofile":
            return None, where
        if t is None:
            self.fail("%s: %s: no golden test with inputs %s" % (label, where, want))
            return None, where
        return t, where

    def printed(self, formula, variant, want, name, idx, printed, label):
        t, where = self.locate(formula, variant, want, name, idx, label)
        if t is None:
            return None
        if t.get("result") == "invalid":
            self.fail("%s: %s tcId %s: golden rejects (%s), doc prints %s"
                      % (label, where, t["tcId"], t.get("error"), printed))
            return t
        g = self.output(t, name, idx)
        if g is None:
            self.fail("%s: %s tcId %s: no output %s" % (label, where, t["tcId"], name))
            return t
        if matches_printed(g, printed):
            self.ok("%s: %s tcId %s = %s agrees with printed %s"
                    % (label, where, t["tcId"], self.short(g["value"]), printed))
        else:
            self.fail("%s: %s tcId %s = %s, printed %s"
                      % (label, where, t["tcId"], self.short(g["value"]), printed))
        return t

    def not_printed(self, formula, variant, want, name, idx, printed, label):
        """The golden value must NOT round to the printed number (a contrast case)."""
        t, where = self.locate(formula, variant, want, name, idx, label)
        if t is None:
            return
        g = self.output(t, name, idx)
        if g is not None and not matches_printed(g, printed):
            self.ok("%s: %s tcId %s = %s does not give %s"
                    % (label, where, t["tcId"], self.short(g["value"]), printed))
        else:
            self.fail("%s: %s tcId %s unexpectedly gives %s"
                      % (label, where, t and t["tcId"], printed))

    def exact(self, formula, variant, want, name, idx, exact_fn, label):
        """Compare a golden output with a symbolic value evaluated by mpmath to all its digits."""
        t, where = self.locate(formula, variant, want, name, idx, label)
        if t is None:
            return
        g = self.output(t, name, idx)
        if g is None:
            self.fail("%s: %s tcId %s: golden has no output %s (result %s)"
                      % (label, where, t["tcId"], name, t.get("result")))
            return
        with mp.workprec(int(g["digits"] * 3.4) + 128):
            v = exact_fn()
            if g["value"] == "0":
                good = v == 0
            else:
                gv, tol, _, _ = golden_tol(g)
                good = abs(gv - v) <= tol
            if good:
                self.ok("%s: %s tcId %s = %s equals the exact value to %s digits"
                        % (label, where, t["tcId"], self.short(g["value"]), g["digits"]))
            else:
                self.fail("%s: %s tcId %s = %s, exact %s (differs by %s)"
                          % (label, where, t["tcId"], g["value"],
                             mp.nstr(v, int(g["digits"]) + 3),
                             mp.nstr(abs(mpf(g["value"]) - v), 3)))

    def invalid(self, formula, variant, want, label):
        t = self.find(formula, variant, want)
        where = "%s %s" % (formula, variant)
        if t == "nofile":
            return
        if t is None:
            self.fail("%s: %s: no golden test with inputs %s" % (label, where, want))
        elif t.get("result") == "invalid" and "error" in t:
            self.ok("%s: %s tcId %s refused (%s)" % (label, where, t["tcId"], t["error"]))
        else:
            self.fail("%s: %s tcId %s not refused" % (label, where, t["tcId"]))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        print("0 passed, 1 failed")
        return 2
    run = Run(argv[1])
    reg = families.load()
    for problem in reg.problems:
        run.fail(problem)
    if not os.path.isdir(argv[1]):
        run.fail("%s: not a directory" % argv[1])
    else:
        for name, fn in reg.detectors:
            print("-- families/%s/%s.py: %s" % (name, name, fn.__name__))
            try:
                fn(run)
            except Exception as ex:           # a malformed golden must not stop the run
                run.fail("families/%s/%s.py %s stopped: %s: %s"
                         % (name, name, fn.__name__, type(ex).__name__, ex))
    print("%d passed, %d failed" % (run.passed, run.failed))
    return 0 if run.failed == 0 and run.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
