#!/usr/bin/python3
"""The published numbers against the golden files.

Usage:  /usr/bin/python3 tests/crosscheck/detectors.py golden/

Each check finds the golden test case with the given inputs under the given variant and compares
its certified value with the number printed in the documents, to the printed digits:
  * CONVENTIONS.md "Group advantage" detector vectors and "Reward-model loss" detector;
  * seed 000 §2.1 (sigma(1.5) ~ 0.82, 8 of 10 -> log 4, equal quality -> 0.5, +100 to both);
  * seed 000 §5.1 / eq. 13.23 ([1,0,0,1] -> [+1,-1,-1,+1]; all equal -> 0);
  * seed 003 ([0.2,0.8,0.4,0.6] -> sigma ~ 0.26, |A| ~ 1.16, which holds for ddof 1 only).
A printed number with n significant digits matches when the golden value rounded to n digits
equals it; a number printed with a trailing "..." is a truncated expansion, and matches when the
golden value truncated or rounded to its digits equals it.  Exact symbolic values (log 4,
r/(1 + 1e-6), 0.75/sqrt(0.25 + 1e-8)) are evaluated with mpmath and compared to all the
golden's digits (one unit of the last digit allowed).

Exit status: 0 all passed, 1 some failed, 2 none of the golden files was found.
"""

import json
import os
import sys
from decimal import Decimal, ROUND_HALF_EVEN, ROUND_DOWN, localcontext

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xcheck                                   # noqa: E402  (parsing helpers only)
from mpmath import mp, mpf                      # noqa: E402


class Run:
    def __init__(self, directory):
        self.dir = directory
        self.cache = {}
        self.passed = 0
        self.failed = 0
        self.files_found = 0

    def load(self, formula):
        if formula not in self.cache:
            path = os.path.join(self.dir, formula + ".json")
            if os.path.exists(path):
                with open(path) as fh:
                    self.cache[formula] = json.load(fh)
                self.files_found += 1
            else:
                self.cache[formula] = None
                print("skip %s: no golden file %s.json" % (formula, formula))
        return self.cache[formula]

    def ok(self, what):
        self.passed += 1
        print("ok   " + what)

    def fail(self, what):
        self.failed += 1
        print("FAIL " + what)


def inputs_equal(raw, want):
    """raw: a golden inputs dict; want: {name: float | int | list}.  Exact binary64 equality."""
    for k, v in want.items():
        if k not in raw:
            return False
        got = xcheck.parse_value(raw[k])
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


def find(run, formula, variant, want):
    """The golden test of `formula` under `variant` whose inputs equal `want` (None if absent;
    'nofile' if the file does not exist)."""
    data = run.load(formula)
    if data is None:
        return "nofile"
    for g in data.get("testGroups", []):
        if variant is not None and g.get("variant") != variant:
            continue
        for t in g.get("tests", []):
            if inputs_equal(t.get("inputs", {}), want):
                return t
    return None


def output(t, name, idx=None):
    o = t.get("outputs", {}).get(name)
    if isinstance(o, list):
        return o[idx if idx is not None else 0]
    return o


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


def locate(run, formula, variant, want, name, idx, label):
    """The golden test with these inputs and a name for it in messages; None
    (after recording the failure) when the file has no such test."""
    t = find(run, formula, variant, want)
    where = "%s %s %s%s" % (formula, variant, name, "" if idx is None else "[%d]" % idx)
    if t == "nofile":
        return None, where
    if t is None:
        run.fail("%s: %s: no golden test with inputs %s" % (label, where, want))
        return None, where
    return t, where


def check_printed(run, formula, variant, want, name, idx, printed, label):
    t, where = locate(run, formula, variant, want, name, idx, label)
    if t is None:
        return None
    if t.get("result") == "invalid":
        run.fail("%s: %s tcId %s: golden rejects (%s), doc prints %s"
                 % (label, where, t["tcId"], t.get("error"), printed))
        return t
    g = output(t, name, idx)
    if g is None:
        run.fail("%s: %s tcId %s: no output %s" % (label, where, t["tcId"], name))
        return t
    if matches_printed(g, printed):
        run.ok("%s: %s tcId %s = %s agrees with printed %s"
               % (label, where, t["tcId"], short(g["value"]), printed))
    else:
        run.fail("%s: %s tcId %s = %s, printed %s"
                 % (label, where, t["tcId"], short(g["value"]), printed))
    return t


def check_not_printed(run, formula, variant, want, name, idx, printed, label):
    """The golden value must NOT round to the printed number (a contrast case)."""
    t, where = locate(run, formula, variant, want, name, idx, label)
    if t is None:
        return
    g = output(t, name, idx)
    if g is not None and not matches_printed(g, printed):
        run.ok("%s: %s tcId %s = %s does not give %s"
               % (label, where, t["tcId"], short(g["value"]), printed))
    else:
        run.fail("%s: %s tcId %s unexpectedly gives %s" % (label, where, t and t["tcId"], printed))


def check_exact(run, formula, variant, want, name, idx, exact_fn, label):
    """Compare a golden output with a symbolic value evaluated by mpmath to all its digits."""
    t, where = locate(run, formula, variant, want, name, idx, label)
    if t is None:
        return
    g = output(t, name, idx)
    if g is None:
        run.fail("%s: %s tcId %s: golden has no output %s (result %s)"
                 % (label, where, t["tcId"], name, t.get("result")))
        return
    with mp.workprec(int(g["digits"] * 3.4) + 128):
        v = exact_fn()
        if g["value"] == "0":
            good = v == 0
            tol = 0
        else:
            gv, tol, _, _ = xcheck.golden_tol(g)
            good = abs(gv - v) <= tol
        if good:
            run.ok("%s: %s tcId %s = %s equals the exact value to %s digits"
                   % (label, where, t["tcId"], short(g["value"]), g["digits"]))
        else:
            run.fail("%s: %s tcId %s = %s, exact %s (differs by %s)"
                     % (label, where, t["tcId"], g["value"], mp.nstr(v, int(g["digits"]) + 3),
                        mp.nstr(abs(mpf(g["value"]) - v), 3)))


def check_invalid(run, formula, variant, want, label):
    t = find(run, formula, variant, want)
    where = "%s %s" % (formula, variant)
    if t == "nofile":
        return
    if t is None:
        run.fail("%s: %s: no golden test with inputs %s" % (label, where, want))
    elif t.get("result") == "invalid" and "error" in t:
        run.ok("%s: %s tcId %s refused (%s)" % (label, where, t["tcId"], t["error"]))
    else:
        run.fail("%s: %s tcId %s not refused" % (label, where, t["tcId"]))


def short(v, n=12):
    return v if len(v) <= n + 4 else v[:n + 2] + "..."


# CONVENTIONS.md, "Group advantage": detector vectors.
def grpo_detectors(run):
    F = "GRPO-ADV"
    one = {"rewards": [1.0, 0.0, 0.0, 0.0], "group_size": 4}
    label = "[1,0,0,0]"
    for v in ("seed-003", "trl", "verl", "openrlhf", "batch-std", "verl-vectorized-old"):
        check_printed(run, F, v, one, "adv", 0, "1.5", label + " ddof 1")
        for i in (1, 2, 3):
            check_printed(run, F, v, one, "adv", i, "-0.5", label + " ddof 1")
    for v in ("seed-000", "seed-001"):
        check_printed(run, F, v, one, "adv", 0, "1.7320508", label + " ddof 0")
        for i in (1, 2, 3):
            check_printed(run, F, v, one, "adv", i, "-0.5773503", label + " ddof 0")
    check_printed(run, F, "no-std", one, "adv", 0, "0.75", label + " no std")
    for i in (1, 2, 3):
        check_printed(run, F, "no-std", one, "adv", i, "-0.25", label + " no std")
    # eps-in-sqrt: mean 0.25, var (ddof 1) 0.25, so (r - 0.25)/sqrt(0.25 + 1e-8): 1.5 and -0.5
    # to 7 digits, 1.49999997... and -0.49999999... in full (eps is the binary64 of 1e-8)
    check_printed(run, F, "eps-in-sqrt", one, "adv", 0, "1.5", label + " eps in sqrt")
    check_exact(run, F, "eps-in-sqrt", one, "adv", 0,
                lambda: mpf(0.75) / mp.sqrt(mpf(0.25) + mpf(1e-8)),
                label + " eps in sqrt -> 0.75/sqrt(0.25 + 1e-8)")
    for i in (1, 2, 3):
        check_printed(run, F, "eps-in-sqrt", one, "adv", i, "-0.5", label + " eps in sqrt")
        check_exact(run, F, "eps-in-sqrt", one, "adv", i,
                    lambda: mpf(-0.25) / mp.sqrt(mpf(0.25) + mpf(1e-8)),
                    label + " eps in sqrt -> -0.25/sqrt(0.25 + 1e-8)")

    tiny = {"rewards": [0.0, 1e-4], "group_size": 2}
    label = "[0,1e-4]"
    for v, mag in (("trl", "0.292893"), ("verl", "0.697246"), ("openrlhf", "0.707097"),
                   ("seed-000", "1"), ("eps-in-sqrt", "0.408248")):
        check_printed(run, F, v, tiny, "adv", 1, mag, label)
        check_printed(run, F, v, tiny, "adv", 0, "-" + mag, label)
    # eps-in-sqrt: mean 5e-5, var (ddof 1) 5e-9, so +-5e-5/sqrt(5e-9 + 1e-8) = +-sqrt(1/6) nearly;
    # in full with the binary64 values of 1e-4 and 1e-8
    for i, sgn in ((0, -1), (1, 1)):
        check_exact(run, F, "eps-in-sqrt", tiny, "adv", i,
                    lambda sgn=sgn: sgn * (mpf(1e-4) / 2)
                    / mp.sqrt(mpf(1e-4) ** 2 / 2 + mpf(1e-8)),
                    label + " eps in sqrt -> 5e-5/sqrt(5e-9 + 1e-8)")

    big = {"rewards": [10000.0, 10001.0], "group_size": 2}
    label = "[10000,10001]"
    for v in ("verl", "openrlhf", "seed-003", "eps-in-sqrt"):
        check_printed(run, F, v, big, "adv", 1, "0.7071", label)
        check_printed(run, F, v, big, "adv", 0, "-0.7071", label)
    # "one-pass float32 variance breaks"
    check_not_printed(run, F, "verl-vectorized-old", big, "adv", 1, "0.7071",
                      label + " one-pass binary32")
    # TRL's eps 1e-4 moves the 4th digit: 0.5/(0.70710678 + 1e-4) = 0.70700680
    check_printed(run, F, "trl", big, "adv", 1, "0.7070", label + " trl (eps 1e-4)")

    g1 = {"rewards": [0.5], "group_size": 1}
    label = "group of one"
    check_printed(run, F, "trl", g1, "adv", 0, "0", label + " trl -> 0")
    check_printed(run, F, "eps-in-sqrt", g1, "adv", 0, "0", label + " eps-in-sqrt -> 0")
    check_exact(run, F, "verl", g1, "adv", 0,
                lambda: mpf(0.5) / (1 + mpf(1e-6)), label + " verl -> r/(1+1e-6)")
    check_invalid(run, F, "openrlhf", g1, label + " openrlhf refuses")
    check_invalid(run, F, "verl-vectorized-old", g1, label + " verl-vectorized-old refuses")


# CONVENTIONS.md, "Reward-model loss": r_w 1.0, r_l 0.2 -> 0.3711007; margin 0.5 -> 0.5543552.
def rm_detectors(run):
    label = "RM loss detector"
    check_printed(run, "PREF-RM-LOSS", "plain", {"rw": [1.0], "rl": [0.2]}, "loss", None,
                  "0.3711007", label)
    check_printed(run, "PREF-MARGIN", None, {"rw": 1.0, "rl": 0.2, "m": 0.0}, "loss", None,
                  "0.3711007", label + " (m = 0)")
    check_printed(run, "PREF-MARGIN", None, {"rw": 1.0, "rl": 0.2, "m": 0.5}, "loss", None,
                  "0.5543552", label + " margin 0.5")
    check_printed(run, "PREF-SMOOTH", None, {"rw": 1.0, "rl": 0.2, "eps": 0.0}, "loss", None,
                  "0.3711007", label + " (smoothing eps = 0)")


# Seed 000 §2.1 worked example.
def bt_seed_examples(run):
    label = "000 §2.1 sigma(1.5)"
    for F, v in (("PREF-BT", None), ("PREF-BT-EX", "sigma"), ("PREF-BT-GUMBEL", None)):
        check_printed(run, F, v, {"rw": 1.5, "rl": 0.0}, "p", None, "0.82", label)
        check_printed(run, F, v, {"rw": 1.5, "rl": 0.0}, "p", None,
                      "0.81757447619364365960721717865...", label + " (29 digits)")
    label = "000 §2.1 equal quality"
    for F, v in (("PREF-BT", None), ("PREF-BT-EX", "sigma")):
        check_printed(run, F, v, {"rw": 0.0, "rl": 0.0}, "p", None, "0.5", label)
    # adding 100 to both scores changes no probability
    for F, v in (("PREF-BT", None), ("PREF-BT-EX", "sigma")):
        a = find(run, F, v, {"rw": 1.5, "rl": 0.0})
        b = find(run, F, v, {"rw": 101.5, "rl": 100.0})
        if a == "nofile":
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            ga, gb = output(a, "p"), output(b, "p")
            if ga["value"] == gb["value"] and ga["hex"] == gb["hex"]:
                run.ok("000 §2.1 +100 to both: %s %s tcId %s = tcId %s" % (F, v, a["tcId"],
                                                                         b["tcId"]))
            else:
                run.fail("000 §2.1 +100 to both: %s tcId %s %s vs tcId %s %s"
                         % (F, a["tcId"], ga["value"], b["tcId"], gb["value"]))
        else:
            run.fail("000 §2.1 +100 to both: %s: case (1.5, 0) or (101.5, 100) missing" % F)
    label = "000 §2.1 8 of 10 -> log 4"
    w = {"wins_w": 8.0, "wins_l": 2.0}
    check_exact(run, "PREF-BT-EX", "mle-pair", w, "delta", None, lambda: mp.log(4), label)
    check_printed(run, "PREF-BT-EX", "mle-pair", w, "p", None, "0.8", label + " p = 8/10")
    check_exact(run, "PREF-BT-EX", "mle-pair", w, "p", None, lambda: mpf(8) / 10,
                label + " p = 8/10")
    check_exact(run, "PREF-BT-MLE", None, {"n": 2, "wins": [0.0, 8.0, 2.0, 0.0]}, "scores", 0,
                lambda: mp.log(4) / 2, label + " (n = 2 MLE)")
    check_exact(run, "PREF-BT-MLE", None, {"n": 2, "wins": [0.0, 8.0, 2.0, 0.0]}, "scores", 1,
                lambda: -mp.log(4) / 2, label + " (n = 2 MLE)")
    check_exact(run, "PREF-PL", "mle", {"K": 2, "rankings": [0, 1, 1, 0], "counts": [8.0, 2.0]},
                "scores", 0, lambda: mp.log(4) / 2, label + " (Plackett-Luce K = 2)")


# Seed 000 §5.1 (eq. 13.23), seed 001, seed 003: group advantage worked examples.
def grpo_seed_examples(run):
    F = "GRPO-ADV-EX"
    r = {"rewards": [1.0, 0.0, 0.0, 1.0]}
    label = "000 §5.1 [1,0,0,1]"
    check_printed(run, F, "seed-000", r, "mean", None, "0.5", label + " mean")
    check_printed(run, F, "seed-000", r, "std", None, "0.5", label + " std (ddof 0)")
    for i, a in enumerate(("1", "-1", "-1", "1")):
        check_printed(run, F, "seed-000", r, "adv", i, a, label)
        check_exact(run, F, "seed-000", r, "adv", i, lambda a=a: mpf(a), label + " exactly")
        check_printed(run, "GRPO-ADV", "seed-000", dict(r, group_size=4), "adv", i, a, label)

    label = "000 §5.1 / 001 all equal -> 0"
    r = {"rewards": [1.0, 1.0, 1.0]}
    for v in ("seed-000", "seed-001", "seed-003"):
        for i in range(3):
            check_printed(run, F, v, r, "adv", i, "0", label)
    for v in ("seed-000", "seed-001", "seed-003", "trl", "verl", "openrlhf", "no-std",
              "batch-std", "verl-vectorized-old", "eps-in-sqrt"):
        for i in range(3):
            check_printed(run, "GRPO-ADV", v, dict(r, group_size=3), "adv", i, "0", label)

    label = "003 [0.2,0.8,0.4,0.6]"
    r = {"rewards": [0.2, 0.8, 0.4, 0.6]}
    check_printed(run, F, "seed-003", r, "mean", None, "0.5", label + " mu")
    check_printed(run, F, "seed-003", r, "std", None, "0.26", label + " sigma (ddof 1)")
    check_printed(run, F, "seed-003", r, "adv", 1, "1.16", label + " A_2 (ddof 1)")
    check_printed(run, F, "seed-003", r, "adv", 0, "-1.16", label + " A_1 (ddof 1)")
    check_printed(run, "GRPO-ADV", "seed-003", dict(r, group_size=4), "adv", 1, "1.16",
                  label + " A_2 (ddof 1)")
    # eps-in-sqrt is ddof 1 too; 1e-8 under the root does not reach the printed digits
    check_printed(run, "GRPO-ADV", "eps-in-sqrt", dict(r, group_size=4), "adv", 1, "1.16",
                  label + " A_2 eps-in-sqrt (ddof 1)")
    check_printed(run, "GRPO-ADV", "eps-in-sqrt", dict(r, group_size=4), "adv", 0, "-1.16",
                  label + " A_1 eps-in-sqrt (ddof 1)")
    # ddof 0 does not give the seed's numbers
    check_not_printed(run, F, "seed-000", r, "std", None, "0.26", label + " sigma ddof 0")
    check_not_printed(run, F, "seed-000", r, "adv", 1, "1.16", label + " A_2 ddof 0")
    check_printed(run, F, "seed-000", r, "std", None, "0.2236", label + " sigma ddof 0")
    check_printed(run, F, "seed-000", r, "adv", 1, "1.342", label + " A_2 ddof 0")
    t = find(run, F, "seed-003", r)
    if isinstance(t, dict):
        g = output(t, "adv", 1)
        print("note 003 prints A_2 ~ 1.15; the ddof-1 value %s rounds to 1.16 (0.3/0.26 = 1.1538 "
              "uses the rounded sigma), so the seed's 1.15 is a rounding of a rounded sigma"
              % short(g["value"]))


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    run = Run(argv[1])
    grpo_detectors(run)
    rm_detectors(run)
    bt_seed_examples(run)
    grpo_seed_examples(run)
    if run.files_found == 0:
        print("no golden file found in %s" % argv[1])
        print("0 passed, 0 failed")
        return 2
    print("%d passed, %d failed" % (run.passed, run.failed))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
