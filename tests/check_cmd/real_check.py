#!/usr/bin/python3
"""real_check.py -- what `rlref check` says of the outputs of the real TRL, verl and OpenRLHF
code recorded in tests/check_cmd/real/FORMULA/LIB-SETTING-DTYPE.json (real/README.md).

  real_check.py RLREF --check    the tests (make check)
  real_check.py RLREF --write    rewrite real/CONFORMANCE.md, the conformance matrix
  real_check.py RLREF --show     print each recording's verdict lines

Every recording is judged raw (no input guard) with `rlref check GOLDEN FILE --dtype DTYPE
--format json`, its dtype the one it was recorded in.  --check fails when

  * a recording answers other inputs than the golden's (its inputsSha256, the sha256 of the
    golden's tcIds, inputs and group parameters at recording time, differs): record it again;
  * a part a recording computes is named otherwise than real/EXPECT says (the variant named
    first and its class, or, where no variant models the library, that the candidate follows
    none and what the explanation says);
  * a variant named first (or, in an explanation, departed from) lists other libraries among
    its users and not the recording's (the `usedBy` of its group): a run named with another
    library's convention;
  * a lower accuracy is claimed with digits a step in that dtype does not leave, or the
    nearest variant of a part that follows none is not the one with the most passes;
  * a recording or an EXPECT line has no counterpart;
  * CONFORMANCE.md is not what --write writes from the present recordings.

Prints "N passed, M failed" last; exits 1 when a test fails or none ran.
"""

import glob
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(HERE, "real")
TOP = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
GOLDEN = os.path.join(TOP, "golden")
EXPECT = os.path.join(REAL, "EXPECT")
MATRIX = os.path.join(REAL, "CONFORMANCE.md")
LIBRARIES = {"trl": "TRL", "verl": "verl", "openrlhf": "OpenRLHF"}
BAND = {"float32": (24 * 0.30103 - 1, 24 * 0.30103 + 1.5),
        "bfloat16": (8 * 0.30103 - 1, 8 * 0.30103 + 1.5)}


def inputs_sha256(golden):
    """The sha256 of the golden's tcIds, inputs and group parameters (real/README.md)."""
    rows = sorted(([t["tcId"], t.get("inputs", {}), grp.get("params", {})]
                   for grp in golden["testGroups"] for t in grp["tests"]), key=lambda r: r[0])
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def recordings():
    """Every recording: (formula, file name, path), sorted."""
    out = []
    for path in sorted(glob.glob(os.path.join(REAL, "*", "*.json"))):
        out.append((os.path.basename(os.path.dirname(path)), os.path.basename(path), path))
    return out


def judge(rlref, formula, path, dtype):
    """The JSON report of `rlref check` on one recording."""
    p = subprocess.run([rlref, "check", os.path.join(GOLDEN, formula + ".json"), path,
                        "--dtype", dtype, "--format", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in (0, 1):
        raise RuntimeError("rlref check %s: exit %d: %s" % (path, p.returncode,
                                                           p.stderr.decode().strip()))
    return json.loads(p.stdout.decode("utf-8"))


def part_verdicts(report):
    """Per part the candidate answers: (part name, verdict string, report part).  The verdict
    is "VARIANT" (matched at the dtype), "VARIANT numerical" (matched but for numerically
    demanding cases), "VARIANT float32" / "VARIANT bfloat16" (at that accuracy), or "none"
    (nearest the variant judged, with the explanation)."""
    out = []
    for p in report["parts"]:
        if p["judged"] is None:
            continue
        name = p["part"] or "-"
        v = p["verdict"]
        if v == "match":
            s = p["answer"]
        elif v == "match-but-numerical":
            s = p["answer"] + " numerical"
        elif v in ("float32-accuracy", "bfloat16-accuracy"):
            s = p["answer"] + " " + v.split("-")[0]
        else:
            s = "none"
        out.append((name, s, p))
    return out


def used_by(golden):
    """variant name -> its usedBy text."""
    return {g["variant"]: g.get("usedBy", "") for g in golden["testGroups"]}


def names_other_library(lib, text):
    """Whether TEXT (a usedBy) names one of the libraries and not LIB."""
    names = {k for k, v in LIBRARIES.items() if re.search(r"\b%s\b" % re.escape(v), text,
                                                          re.I)}
    return bool(names) and lib not in names


def read_expect():
    """EXPECT: 'FORMULA/FILE PART VERDICT [| EXPLANATION REGEX]' lines -> dict."""
    want = {}
    with open(EXPECT, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            head, _, why = line.partition(" | ")
            words = head.split()
            if len(words) < 3:
                raise SystemExit("%s:%d: expected 'FORMULA/FILE PART VERDICT'" % (EXPECT, n))
            want[(words[0], words[1])] = (" ".join(words[2:]), why.strip() or None, n)
    return want


def matrix(rows):
    """The conformance matrix as Markdown."""
    out = ["# Conformance of the real library code",
           "",
           "What `rlref check` names for the outputs of TRL's, verl's and OpenRLHF's own code "
           "recorded on the inputs of the goldens (`tests/check_cmd/real/`, README there), "
           "judged raw, with no input guard, in the dtype each was run in.  Generated by "
           "`tests/check_cmd/real_check.py --write` (`make docs`); `make check` fails when it "
           "is stale.",
           "",
           "A verdict names the convention first: `VARIANT` (followed at the dtype), `VARIANT "
           "(but for numerically demanding cases)`, `VARIANT at float32 accuracy`; where no "
           "variant models the library, **follows none** and the explanation of what it "
           "follows instead.  *Accepts* counts the must-reject inputs the code gives outputs "
           "for (of those the convention rejects): the input validation, apart from the "
           "verdict.",
           "",
           "| library | formula | setting | dtype | part | verdict | accepts |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % r)
    return "\n".join(out) + "\n"


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("--check", "--write", "--show"):
        raise SystemExit(__doc__)
    rlref, mode = sys.argv[1], sys.argv[2]
    passed = failed = 0
    problems = []
    want = read_expect() if mode == "--check" else {}
    seen = set()
    rows = []
    goldens = {}
    for formula, name, path in recordings():
        key = formula + "/" + name[:-5]
        with open(path, encoding="utf-8") as f:
            rec = json.load(f)
        meta = rec.get("recorded", {})
        lib, dtype = meta.get("library"), meta.get("dtype")
        if formula not in goldens:
            with open(os.path.join(GOLDEN, formula + ".json"), encoding="utf-8") as f:
                goldens[formula] = json.load(f)
        g = goldens[formula]
        if lib not in LIBRARIES or dtype not in ("float32", "float64") \
                or not name.startswith(lib + "-") or not name.endswith("-%s.json" % dtype):
            problems.append("%s: its recorded library and dtype do not match its name" % key)
            continue
        if meta.get("inputsSha256") != inputs_sha256(g):
            problems.append("%s: recorded on other inputs than golden/%s.json has now (its "
                            "inputsSha256 differs): record it again (real/README.md)"
                            % (key, formula))
            continue
        passed += 1
        report = judge(rlref, formula, path, dtype)
        users = used_by(g)
        setting = name[len(lib) + 1:-len("-%s.json" % dtype)]
        for part, verdict, p in part_verdicts(report):
            why = p["explanation"]["text"] if p["explanation"] else None
            acc = p["validation"]
            accepts = "%d of %d" % (len(acc["accepted"]), acc["mustReject"]) if acc else "-"
            shown = verdict
            if verdict == "none":
                shown = "**follows none**; nearest %s. %s" % (p["judged"], why or "")
            elif verdict.endswith(" numerical"):
                shown = verdict[:-len(" numerical")] + " (but for numerically demanding cases)"
            elif verdict.endswith(" float32") or verdict.endswith(" bfloat16"):
                v, d = verdict.rsplit(" ", 1)
                shown = "%s at %s accuracy" % (v, d)
            who = "%s %s (%s)" % (LIBRARIES[lib], meta.get("version", "?"),
                                  meta.get("commit", "?")[:7])
            rows.append((who, formula, setting, dtype, part, cell(shown), accepts))
            if mode == "--show":
                print("%-58s %-16s %s%s" % (key, part, verdict,
                                             "  [" + why + "]" if why else ""))
                continue
            if mode != "--check":
                continue
            # another library's convention named
            named = p["answer"] if p["answer"] else None
            if named and names_other_library(lib, users.get(named, "")):
                problems.append("%s [%s]: named %s, a convention of %s" % (
                    key, part, named, users.get(named, "")[:80]))
            for d in report["diagnosis"]:
                lo, hi = BAND[d["dtype"]]
                if not lo <= d["digits"] <= hi:
                    problems.append("%s [%s]: claims %s accuracy with %.1f digits" % (
                        key, part, d["dtype"], d["digits"]))
            if verdict == "none":
                counts = [v["passed"] for v in report["variants"]
                          if v["part"] == p["part"] and v["class"] not in ("not-run",)]
                mine = next(v["passed"] for v in report["variants"]
                            if v["variant"] == p["judged"])
                if counts and mine != max(counts):
                    problems.append("%s [%s]: the nearest, %s, has %d passes, not the most (%d)"
                                    % (key, part, p["judged"], mine, max(counts)))
            if (key, part) not in want:
                problems.append("%s [%s]: no EXPECT line (it says: %s)" % (key, part, verdict))
                continue
            seen.add((key, part))
            expected, regex, _ = want[(key, part)]
            if verdict != expected:
                problems.append("%s [%s]: rlref check says '%s', EXPECT '%s'%s" % (
                    key, part, verdict, expected, " (" + why + ")" if why else ""))
            elif regex is not None and not re.search(regex, why or ""):
                problems.append("%s [%s]: the explanation '%s' does not match /%s/" % (
                    key, part, why, regex))
    if mode == "--write":
        with open(MATRIX, "w", encoding="utf-8") as f:
            f.write(matrix(rows))
        return 0
    if mode == "--show":
        return 0
    for (key, part), (_, _, n) in sorted(want.items(), key=lambda kv: kv[1][2]):
        if (key, part) not in seen:
            problems.append("EXPECT:%d: %s [%s]: no such recording or part" % (n, key, part))
    try:
        with open(MATRIX, encoding="utf-8") as f:
            stale = f.read() != matrix(rows)
    except OSError:
        stale = True
    if stale:
        problems.append("CONFORMANCE.md is stale: run tests/check_cmd/real_check.py RLREF "
                        "--write (make docs)")
    for p in problems:
        print("FAIL: " + p)
    failed = len(problems)
    passed = max(passed - failed, 0)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
