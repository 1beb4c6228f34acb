#!/usr/bin/python3
"""test_verdicts.py RLREF -- the verdict lines of `rlref check`: one answer, accuracies its
digits bear out, the nearest variant the one the counts name, partial candidates, and rlref's
own candidates judged clean.

  * one answer: a candidate that two variants fit names one first, the other as "also
    consistent with";
  * no claim of an accuracy its own digit count contradicts: a float32 candidate whose only
    departure is a value far from an exact zero (within bfloat16's tolerance of its
    sensitivity), and one whose departure is a relative error of 1 within bfloat16's tolerance
    of a large sensitivity: either no lower accuracy is claimed, or the digits printed are
    those a step in that dtype leaves;
  * the nearest variant of a candidate that follows none is the one with the most passes;
  * a candidate that gives a subset of the outputs is judged on those, and the report says
    which it judged; --outputs restricts the judgement;
  * an output a candidate declares it has no value for in a case ("omitted", with the
    reason) is not judged there and the report lists it; dropped without a reason it fails;
  * a candidate that rejects every case of a part is said to compute none of them;
  * of two variants a float32 run fits alike (PPO-CLIP trl-grpo and plain), the one whose
    values it reproduces more often is named;
  * `rlref candidate GOLDEN --variant V | rlref check GOLDEN -` follows V with exit 0 and no
    warning, on a golden of several parts (KL-K3).

Prints "N passed, M failed" last; exits 1 when a test fails or none ran.
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir, "golden"))
BAND = {"float32": (24 * math.log10(2) - 1, 24 * math.log10(2) + 1.5),
        "bfloat16": (8 * math.log10(2) - 1, 8 * math.log10(2) + 1.5)}

passed = failed = 0


def result(name, ok, text=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + name)
    else:
        failed += 1
        print("FAIL " + name)
        for line in text.splitlines()[-10:]:
            print("     " + line)


def check(rlref, golden, cand, *options, stdin=None):
    p = subprocess.run([rlref, "check", os.path.join(GOLDEN, golden + ".json"), cand] +
                       list(options), input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def own(rlref, golden, variant):
    p = subprocess.run([rlref, "candidate", os.path.join(GOLDEN, golden + ".json"),
                        "--variant", variant], stdout=subprocess.PIPE)
    return json.loads(p.stdout) if p.returncode == 0 else {"results": []}


def write(tmp, name, data):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return path


def claims_consistent(text):
    """Every 'at DTYPE accuracy (D digits)' claim has digits in that dtype's band."""
    for dtype, digits in re.findall(r"at (float32|bfloat16) accuracy \(([0-9.]+) digits\)", text):
        lo, hi = BAND[dtype]
        if not lo <= float(digits) <= hi:
            return False
    return True


def expected_of(golden):
    """tcId -> (its variant, the golden test) of the tests with no NUMERICAL flag."""
    with open(os.path.join(GOLDEN, golden + ".json"), encoding="utf-8") as f:
        g = json.load(f)
    numerical = {k for k, n in g.get("notes", {}).items() if n.get("bugType") == "NUMERICAL"}
    return {t["tcId"]: (grp["variant"], t) for grp in g["testGroups"] for t in grp["tests"]
            if not numerical & set(t.get("flags", []))}


def perturb(cand, tests, variant, pick):
    """Change one element of CAND chosen by PICK(x, sens) -> new value or None, among the
    cases of VARIANT; the tcId changed, or None."""
    for r in cand["results"]:
        if r["tcId"] not in tests:
            continue
        v, t = tests[r["tcId"]]
        if v != variant or "outputs" not in r or t.get("result") != "valid":
            continue
        for name, vals in r["outputs"].items():
            exp = t["outputs"].get(name)
            if exp is None:
                continue
            exps = exp if isinstance(exp, list) else [exp]
            for i, e in enumerate(exps):
                x, s = float(e["value"]), float(e["sens"]) if e["sens"] != "nan" else 0.0
                new = pick(x, s)
                if new is None:
                    continue
                if isinstance(vals, list):
                    vals[i] = new
                else:
                    r["outputs"][name] = new
                return r["tcId"]
    return None


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: test_verdicts.py RLREF")
    rlref = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="verdicts.") as tmp:
        # --- one answer: trl's binary64 values declared float32 fit trl and trl-float32
        path = write(tmp, "trl.json", own(rlref, "GRPO-ADV", "trl"))
        rc, text, err = check(rlref, "GRPO-ADV", path, "--dtype", "float32")
        line = re.search(r"^Candidate follows: (.*)$", text, re.M)
        result("one answer: one variant named first, the others also consistent",
               rc == 0 and line is not None and line.group(1).split(";")[0] == "trl"
               and "also consistent with: trl-float32" in line.group(1)
               and "," not in line.group(1).split(";")[0], text)

        # --- accuracies the digits bear out -----------------------------------------------
        tests = expected_of("GRPO-ADV")
        cand = own(rlref, "GRPO-ADV", "trl")
        # a value off an exact zero by a hundredth of its sensitivity: passes at bfloat16's
        # tolerance (U 2^-8 sens), not at float32's
        tc = perturb(cand, tests, "trl",
                     lambda x, s: 0.01 * s if x == 0 and s > 0 else None)
        path = write(tmp, "zero.json", cand)
        rc, text, err = check(rlref, "GRPO-ADV", path, "--dtype", "float32", "--variant", "trl")
        result("a departure from an exact zero: no claim the digits contradict (tcId %s)" % tc,
               tc is not None and rc == 1 and claims_consistent(text)
               and re.search(r"^Candidate follows trl at bfloat16 accuracy", text, re.M), text)
        # a relative error of 1 within a large sensitivity's bfloat16 tolerance
        for golden, variant in (("DPO-LOSS", "ipo-mean"),):
            tests = expected_of(golden)
            cand = own(rlref, golden, variant)
            tc = perturb(cand, tests, variant,
                         lambda x, s: 2 * x if x != 0 and 1e-3 * s < abs(x) < 1e-2 * s else None)
            path = write(tmp, "rel.json", cand)
            rc, text, err = check(rlref, golden, path, "--dtype", "float32", "--variant", variant)
            result("%s: a relative error of 1 under a large sensitivity: no claim the digits "
                   "contradict (tcId %s)" % (golden, tc),
                   tc is not None and rc == 1 and claims_consistent(text), text)

        # --- the nearest: the most passes --------------------------------------------------
        cand = own(rlref, "GRPO-ADV", "verl")
        tests = expected_of("GRPO-ADV")
        for r in cand["results"]:
            if "outputs" in r:
                r["outputs"]["adv"] = [a * (1 + 1e-6) if isinstance(a, float) else a
                                       for a in (float.fromhex(x) if isinstance(x, str)
                                                 and x.startswith(("0x", "-0x")) else x
                                                 for x in r["outputs"]["adv"])]
        path = write(tmp, "near.json", cand)
        rc, text, err = check(rlref, "GRPO-ADV", path)
        rows = {m.group(1): int(m.group(2))
                for m in re.finditer(r"^variant (\S+): (\d+) passed", text, re.M)}
        near = re.search(r"^Candidate matches no variant; nearest: (\S+) \((\d+) of", text, re.M)
        result("the nearest variant is the one with the most passes",
               rc == 1 and near is not None and rows
               and int(near.group(2)) == max(rows.values()) == rows[near.group(1)], text)

        # --- partial candidates -------------------------------------------------------------
        cand = own(rlref, "DPO-LOSS", "sigmoid")
        for r in cand["results"]:
            if "outputs" in r:
                r["outputs"] = {"loss": r["outputs"]["loss"]}
        path = write(tmp, "partial.json", cand)
        rc, text, err = check(rlref, "DPO-LOSS", path)
        result("a candidate giving only the loss is judged on it",
               rc == 0 and re.search(r"^Candidate follows: sigmoid(;|$)", text, re.M)
               and re.search(r"^Outputs judged: loss; not given by the candidate: losses, "
                             r"grad_w, grad_l, reward_w, reward_l$", text, re.M)
               and err == "", text + err)
        path = write(tmp, "full.json", own(rlref, "DPO-LOSS", "sigmoid"))
        rc, text, err = check(rlref, "DPO-LOSS", path, "--outputs", "loss,grad_w")
        result("--outputs restricts the judgement",
               rc == 0 and re.search(r"^Outputs judged: loss, grad_w; not judged: losses, "
                                     r"grad_l, reward_w, reward_l$", text, re.M), text)
        rc, text, err = check(rlref, "DPO-LOSS", path, "--outputs", "loss,nope")
        result("--outputs with an output the golden lacks: a usage error",
               rc == 2 and "the golden has no output 'nope'" in err, err)

        # --- an output a candidate has no value for in some cases ("omitted") -------------
        cand = own(rlref, "GRPO-GSPO", "openrlhf")
        mine = {tc for tc, (v, t) in expected_of("GRPO-GSPO").items()
                if v == "openrlhf" and t.get("result") == "valid"}
        gone = []
        for r in cand["results"]:
            if "outputs" in r and r["tcId"] in mine and len(gone) < 2:
                del r["outputs"]["s"]
                r["omitted"] = {"s": "no sequence ratio for an empty row"}
                gone.append(r["tcId"])
        path = write(tmp, "omitted.json", cand)
        rc, text, err = check(rlref, "GRPO-GSPO", path, "--variant", "openrlhf")
        result("an output omitted with its reason is not judged there, and the report says so",
               rc == 0 and re.search(r"^Omitted by the candidate: s in tcIds %d, %d \(no sequence "
                                     r"ratio for an empty row\): not judged there$" % tuple(gone),
                                     text, re.M)
               and re.search(r"^Candidate follows: openrlhf(;|$)", text, re.M), text + err)
        for r in cand["results"]:
            r.pop("omitted", None)
        path = write(tmp, "dropped.json", cand)
        rc, text, err = check(rlref, "GRPO-GSPO", path, "--variant", "openrlhf")
        result("an output dropped without a reason is still a failure",
               rc == 1 and "s: missing output" in text, text)
        cand["results"][:1] = [dict(r, omitted={"s": 1}) for r in cand["results"][:1]]
        path = write(tmp, "badomit.json", cand)
        rc, text, err = check(rlref, "GRPO-GSPO", path)
        result("an omitted output without a reason: a usage error",
               rc == 2 and "omitted output s needs a reason" in err, err)

        # --- a candidate that rejects every case of a part --------------------------------
        cand = own(rlref, "KL-K1", "plain")
        for r in cand["results"]:
            r.pop("outputs", None)
            r["error"] = "NotImplementedError"
        path = write(tmp, "refuses.json", cand)
        rc, text, err = check(rlref, "KL-K1", path)
        result("a candidate rejecting every case: said so, not searched",
               rc == 1 and re.search(r"^Unexplained: the candidate rejects every case of the part "
                                     r"it answers \(the first with \"NotImplementedError\"\): it "
                                     r"computes none of them$", text, re.M), text)

        # --- of two variants a float32 run fits alike, the one it reproduces -------------
        # PPO-CLIP trl-grpo and plain differ only in the clip fraction's rounding (f32(k/N)
        # against k/N), below float32's tolerance: trl-grpo's own values rounded to binary32
        # are named trl-grpo, not the first listed
        cand = own(rlref, "PPO-CLIP", "trl-grpo")
        import struct

        def f32(x):
            if isinstance(x, list):
                return [f32(e) for e in x]
            if isinstance(x, str):
                x = float.fromhex(x) if x.startswith(("0x", "-0x")) else float(x)
            if math.isinf(x) or math.isnan(x) or abs(x) > 3.4e38:
                return x if not math.isnan(x) else "nan"
            return struct.unpack("f", struct.pack("f", x))[0]
        for r in cand["results"]:
            if "outputs" in r:
                r["outputs"] = {k: f32(v) for k, v in r["outputs"].items()}
        path = write(tmp, "f32.json", cand)
        rc, text, err = check(rlref, "PPO-CLIP", path, "--dtype", "float32")
        line = re.search(r"^Candidate follows: (\S+?)(;|$)", text, re.M)
        result("a float32 run that two variants fit alike is named by the closer one",
               line is not None and line.group(1) == "trl-grpo", text)

        # --- rlref's own candidate on a golden of several parts ----------------------------
        p = subprocess.run([rlref, "candidate", os.path.join(GOLDEN, "KL-K3.json"), "--variant",
                            "stable"], stdout=subprocess.PIPE, check=True)
        rc, text, err = check(rlref, "KL-K3", "-", stdin=p.stdout)
        result("rlref candidate KL-K3 --variant stable | rlref check: follows stable, exit 0, "
               "no warning",
               rc == 0 and err == "" and re.search(r"^ *Candidate follows: stable(;|$)", text,
                                                   re.M), text + err)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
