"""`rlref check --format json`: the report validated against oracles/check/report.schema.json
and against itself, the golden and the text report, on candidates of every golden (rlref's own
binary64 outputs), the recorded outputs of the real TRL, verl and OpenRLHF code, and the
hand-made fixtures of tests/check_cmd."""

import glob
import json
import os
import re
import subprocess

import pytest

from conftest import FIXTURES, GOLDEN, REAL, RLREF, SCHEMA, closing_counts, golden, run_check

jsonschema = pytest.importorskip("jsonschema", reason="python3-jsonschema is not installed")

GOLDENS = sorted(glob.glob(os.path.join(GOLDEN, "[A-Z]*.json")))
DTYPE = re.compile(r"-(float32|float64)\.json$")


@pytest.fixture(scope="module")
def validator():
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def own_candidates(tmp_path_factory, rlref):
    """rlref's binary64 outputs (`rlref candidate`) for the first variant of every golden."""
    out = {}
    tmp = tmp_path_factory.mktemp("own")
    for path in GOLDENS:
        with open(path, encoding="utf-8") as f:
            first = json.load(f)["testGroups"][0]["variant"]
        cpath = tmp / (os.path.basename(path)[:-5] + "." + first + ".json")
        with open(cpath, "wb") as f:
            p = subprocess.run([RLREF, "candidate", path, "--variant", first], stdout=f)
        assert p.returncode == 0, path
        out[path] = (first, str(cpath))
    return out


def judge(validator, gpath, cpath, *options):
    """Run the check as JSON and as text; validate the report and hold it to the golden and
    the text report.  Returns the report."""
    status, out, err = run_check(gpath, cpath, "--format", "json", *options)
    assert status in (0, 1), err
    report = json.loads(out)
    validator.validate(report)
    tstatus, text, terr = run_check(gpath, cpath, *options)
    # the text report, unchanged, is embedded, with the same exit status and warnings
    assert report["text"] == text and status == tstatus and err == terr
    assert report["summary"]["exitStatus"] == status
    assert (report["summary"]["passed"], report["summary"]["failed"]) == closing_counts(text)
    noted = re.search(r"^(\d+) acceptable mismatch(es)? noted$", text, re.M)
    assert report["summary"]["noted"] == (int(noted.group(1)) if noted else 0)
    consistent(report, gpath, text, options)
    return report


BAND = {"float32": (24 * 0.30103 - 1, 24 * 0.30103 + 1.5), "bfloat16": (8 * 0.30103 - 1, 8 * 0.30103 + 1.5)}


def consistent(report, gpath, text, options):
    with open(gpath, encoding="utf-8") as f:
        g = json.load(f)
    only = options[options.index("--variant") + 1] if "--variant" in options else None
    strict = "--strict" in options
    variant_of = {t["tcId"]: grp["variant"] for grp in g["testGroups"] for t in grp["tests"]}
    test_of = {t["tcId"]: t for grp in g["testGroups"] for t in grp["tests"]}
    assert report["formula"] == g["formula"] and report["variant"] == only
    assert report["strict"] == strict
    # every case of the variants in scope, once, with the golden's variant and result
    want = sorted(k for k, v in variant_of.items() if only is None or v == only)
    assert sorted(c["tcId"] for c in report["cases"]) == want
    for c in report["cases"]:
        t = test_of[c["tcId"]]
        assert c["variant"] == variant_of[c["tcId"]] and c["result"] == t["result"]
        assert c["expectedError"] == t.get("error") and c["flags"] == t.get("flags", [])
        if c["result"] == "invalid":
            # a must-reject case: passes when rejected, judged apart from the convention
            assert (c["status"] == "pass") == (c["answer"] == "error")
            assert c["validation"] == {"error": "rejected", "missing": "missing",
                                       "skip": "skipped"}.get(
                c["answer"], "accepted-nonfinite" if c["validation"] == "accepted-nonfinite"
                else "accepted")
            assert c["outputs"] == []
            continue
        assert c["validation"] is None
        quiet = all(line.startswith(("PASS ", "SKIP ")) for line in c["message"].splitlines())
        assert (c["status"] in ("pass", "skip")) == quiet
        if c["status"] == "note":
            assert c["result"] == "acceptable"
        if c["answer"] == "outputs" and c["status"] != "skip":
            elements(c, t, report["outputs"]["judged"])
    # the counts of each variant in scope are those of its valid and acceptable cases
    judged = [v for v in report["variants"] if v["inScope"]]
    assert judged
    for v in judged:
        mine = [c for c in report["cases"] if c["variant"] == v["variant"]]
        valid = [c for c in mine if c["result"] != "invalid"]
        assert v["cases"] == len(mine) and v["valid"] == len(valid)
        assert v["invalid"] == len(mine) - len(valid)
        assert v["run"] == sum(c["answer"] != "missing" and c["status"] != "skip" for c in valid)
        for key, status in (("passed", "pass"), ("failed", "fail"), ("noted", "note"),
                            ("notJudged", "skip")):
            assert v[key] == sum(c["status"] == status for c in valid), (v, key)
        assert v["failedNumerical"] == sum(c["status"] == "fail" and c["numerical"]
                                           for c in valid)
        assert v["rejected"] == sum(c["validation"] == "rejected" for c in mine)
        assert v["accepted"] == sum((c["validation"] or "").startswith("accepted") for c in mine)
        lv = v["levels"][v["dtype"]]
        if v["class"] == "not-run":
            assert v["run"] == 0
        elif v["class"] == "match":
            assert v["failed"] == 0 and v["dtype"] == report["dtype"]
        elif v["class"] == "match-but-numerical":
            assert 0 < v["failed"] == v["failedNumerical"]
        elif v["class"] in ("float32-accuracy", "bfloat16-accuracy"):
            assert v["failed"] > v["failedNumerical"]
            assert lv["failed"] == lv["failedNumerical"] and v["dtype"] != report["dtype"]
            lo, hi = BAND[v["dtype"]]
            assert lo <= lv["digits"] <= hi
        else:
            assert v["class"] == "no-match" and v["failed"] > v["failedNumerical"]
    # the summary counts the cases of the variant judged in each part
    counted = [c for c in report["cases"] if c["counted"]]
    for key, status in (("passed", "pass"), ("failed", "fail"), ("noted", "note")):
        assert report["summary"][key] == sum(c["status"] == status for c in counted)
    assert all(strict or c["result"] != "invalid" for c in counted)
    assert {c["variant"] for c in counted} <= {v["variant"] for v in report["variants"]
                                               if v["judged"]}
    # each part names one variant first; its line is in the text
    classes = {v["variant"]: v["class"] for v in report["variants"]}
    lower = ("match", "match-but-numerical", "float32-accuracy", "bfloat16-accuracy")
    for p in report["parts"]:
        if p["verdict"] == "not-judged":
            assert p["judged"] is None and p["order"] == []
            continue
        assert p["line"] in text
        if p["judged"] is None:
            assert p["verdict"] == "not-run"
            continue
        assert p["order"][0] == p["judged"] and p["verdict"] == classes[p["judged"]]
        if p["verdict"] in lower:
            assert p["answer"] == p["judged"] and p["nearest"] is None
            assert [a["variant"] for a in p["alsoConsistent"]] == \
                [n for n in p["order"][1:] if classes[n] in lower][:len(p["alsoConsistent"])]
        else:
            assert p["answer"] is None and p["alsoConsistent"] == []
        if p["verdict"] == "no-match" and p["explanation"] is not None:
            assert p["explanation"]["nearest"] == p["judged"]
            assert p["explanation"]["text"] in text
        if p["validation"] is not None:
            assert p["validation"]["variant"] == p["judged"]
            if p["validation"]["text"]:
                assert p["validation"]["text"] in text
    answers = [(p["answer"], p["verdict"]) for p in report["parts"] if p["answer"]]
    assert report["follows"] == [a for a, v in answers if v == "match"]
    assert report["followsConvention"] == [a for a, v in answers if v == "match-but-numerical"]
    named = re.findall(r"^ *Candidate follows: ([^;\n]*)", text, re.M)
    assert report["follows"] == named
    diag = re.findall(r"^ *Candidate follows (\S+) at (\w+) accuracy \(([0-9.]+) digits\)",
                      text, re.M)
    assert [(d["variant"], d["dtype"], "%.1f" % d["digits"]) for d in report["diagnosis"]] \
        == diag
    # no claim of an accuracy its own digits contradict
    for d in report["diagnosis"]:
        lo, hi = BAND[d["dtype"]]
        assert lo <= d["digits"] <= hi


def elements(c, t, judged):
    """The comparisons of case C are one per expected value of test T of the outputs JUDGED
    (when nothing was missing or of the wrong length), in the golden's order, each judged as
    its numbers say."""
    if any(o["problem"] for o in c["outputs"]):
        assert c["status"] != "pass"
        return
    want = []
    for name, v in t["outputs"].items():
        if name not in judged:
            continue
        if isinstance(v, list):
            want += [(name, i, e["value"]) for i, e in enumerate(v)]
        else:
            want.append((name, None, v["value"]))
    assert [(o["output"], o["index"], o["expected"]) for o in c["outputs"]] == want
    for o in c["outputs"]:
        if o["errUlps"] is not None and o["tolUlps"] is not None:
            if o["errUlps"] < o["tolUlps"] * (1 - 1e-9):
                assert o["pass"], o
            elif o["errUlps"] > o["tolUlps"] * (1 + 1e-9):
                assert not o["pass"], o
        if o["relErr"] == 0:
            assert o["errUlps"] == 0 and o["pass"]
    if c["status"] == "pass":
        assert all(o["pass"] for o in c["outputs"])
    elif c["status"] == "fail":
        assert not all(o["pass"] for o in c["outputs"])


def test_every_golden(validator, own_candidates):
    for path in GOLDENS:
        first, cpath = own_candidates[path]
        report = judge(validator, path, cpath)
        assert report["summary"]["failed"] == 0 or report["summary"]["exitStatus"] == 1
        judge(validator, path, cpath, "--variant", first)
        judge(validator, path, cpath, "--dtype", "float32", "--verbose")


def test_real_library_outputs(validator):
    files = sorted(glob.glob(os.path.join(REAL, "GRPO-ADV", "*.json")))
    assert files
    for f in files:
        dtype = DTYPE.search(f).group(1)
        report = judge(validator, golden("GRPO-ADV"), f, "--dtype", dtype)
        # (what each is named is tests/check_cmd/real_check.py's test)
        assert report["parts"][0]["judged"], f
        if "trl-group" in f:
            judge(validator, golden("GRPO-ADV"), f, "--dtype", dtype, "--variant", "trl",
                  "--rtol", "1e-7")


def test_trl_float64_diagnosis(validator):
    report = judge(validator, golden("GRPO-ADV"), os.path.join(REAL, "GRPO-ADV",
                                                               "trl-group-float64.json"))
    assert report["follows"] == [] and report["summary"]["exitStatus"] == 1
    assert [(d["variant"], d["dtype"], d["declared"]) for d in report["diagnosis"]] == \
        [("trl", "float32", "float64")]
    assert 7 < report["diagnosis"][0]["digits"] < 8.5
    trl = next(v for v in report["variants"] if v["variant"] == "trl")
    assert trl["judged"] and trl["class"] == "float32-accuracy"
    part = report["parts"][0]
    assert part["judged"] == part["answer"] == "trl" and part["verdict"] == "float32-accuracy"
    assert part["dtype"] == "float32" and part["nearest"] is None


def test_fixtures(validator):
    g2 = os.path.join(FIXTURES, "grpo2.json")
    for cand in sorted(glob.glob(os.path.join(FIXTURES, "grpo2_cand*.json"))):
        for opts in ((), ("--dtype", "float32"), ("--variant", "verl"), ("--verbose",)):
            judge(validator, g2, cand, *opts)
    report = judge(validator, os.path.join(FIXTURES, "bt.json"),
                   os.path.join(FIXTURES, "bt_cand.json"))
    assert report["parts"][0]["part"] is None and report["summary"]["failed"] == 0
    # a candidate of the trl variant only: verl not run
    report = judge(validator, g2, os.path.join(FIXTURES, "grpo2_cand_trl_only.json"))
    verdict = {v["variant"]: v["class"] for v in report["variants"]}
    assert verdict == {"trl": "match", "verl": "not-run"}
    assert all(c["answer"] == "missing" for c in report["cases"] if c["variant"] == "verl")
    # --variant: only its cases, the others' variants not judged
    report = judge(validator, g2, os.path.join(FIXTURES, "grpo2_cand_trl.json"),
                   "--variant", "verl")
    assert {c["variant"] for c in report["cases"]} == {"verl"}
    assert not {v["variant"]: v["inScope"] for v in report["variants"]}["trl"]
    # --strict: the must-reject cases count
    report = judge(validator, g2, os.path.join(FIXTURES, "grpo2_cand_trl.json"),
                   "--variant", "verl", "--strict")
    assert report["summary"]["failed"] == 4 and report["parts"][0]["validation"]["accepted"] == [15]


def test_odd_candidates(validator, tmp_path):
    g1 = os.path.join(FIXTURES, "bt.json")
    odd = {"results": [
        {"tcId": 1, "outputs": {"p": "0x1.764d4f5d5a2bdp-1"}},
        {"tcId": 2, "outputs": {"p": [0.18242552380635635]}},
        {"tcId": 3, "outputs": {}},
        {"tcId": 4, "outputs": {"p": "nan"}},
        {"tcId": 9, "error": "EINVAL \u00e9 <&> \u0001"},
        {"tcId": 77, "outputs": {"p": 1}}]}
    cpath = tmp_path / "odd.json"
    cpath.write_text(json.dumps(odd), encoding="utf-8")
    report = judge(validator, g1, str(cpath), "--verbose")
    by = {c["tcId"]: c for c in report["cases"]}
    assert report["unknownResults"] == 1
    assert by[2]["outputs"][0]["problem"] == "expected a single value, got an array of 1"
    assert by[3]["outputs"][0]["problem"] == "missing output"
    assert by[4]["outputs"][0]["got"] == "nan" and not by[4]["outputs"][0]["pass"]
    assert by[5]["answer"] == "missing" and by[5]["status"] == "fail"
    assert by[9]["status"] == "pass" and by[9]["error"] == "EINVAL \u00e9 <&> \u0001"
    assert by[9]["validation"] == "rejected"
    assert "rejected with \"EINVAL \u00e9 <&> ?\"" in by[9]["message"]


def test_long_names_cut_on_a_character(validator, tmp_path):
    """A name longer than the report shows is cut before a UTF-8 character, not inside it."""
    g1 = os.path.join(FIXTURES, "bt.json")
    err = "E" * 59 + "\u03c3\u03c3 and more"
    cpath = tmp_path / "long.json"
    cpath.write_text(json.dumps({"results": [{"tcId": 1, "error": err}]}), encoding="utf-8")
    report = judge(validator, g1, str(cpath))
    line = next(c for c in report["cases"] if c["tcId"] == 1)["message"]
    assert "\"" + "E" * 59 + "...\"" in line


def test_bad_use_gives_no_report(tmp_path):
    g1 = os.path.join(FIXTURES, "bt.json")
    c1 = os.path.join(FIXTURES, "bt_cand.json")
    status, out, err = run_check(g1, c1, "--format", "xml")
    assert status == 2 and out == "" and "unknown format 'xml' (text, json or github)" in err
    status, out, err = run_check(g1, str(tmp_path / "none.json"), "--format=json")
    assert status == 2 and out == "" and "cannot open" in err
    status, out, err = run_check(g1, c1, "--format", "json", "--variant", "nope")
    assert status == 2 and out == "" and "no variant 'nope'" in err
    status, out, err = run_check(g1, c1, "--format=text")
    assert status == 0 and out.startswith("Checking ")


def test_write_failure():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        p = subprocess.run([RLREF, "check", os.path.join(FIXTURES, "bt.json"),
                            os.path.join(FIXTURES, "bt_cand.json"), "--format", "json"],
                           stdout=full, stderr=subprocess.PIPE)
    assert p.returncode == 2 and b"cannot write the JSON report" in p.stderr
