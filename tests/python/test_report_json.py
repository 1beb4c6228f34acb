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


def consistent(report, gpath, text, options):
    with open(gpath, encoding="utf-8") as f:
        g = json.load(f)
    only = options[options.index("--variant") + 1] if "--variant" in options else None
    variant_of = {t["tcId"]: grp["variant"] for grp in g["testGroups"] for t in grp["tests"]}
    test_of = {t["tcId"]: t for grp in g["testGroups"] for t in grp["tests"]}
    assert report["formula"] == g["formula"] and report["variant"] == only
    # every case of the variants in scope, once, with the golden's variant and result
    want = sorted(k for k, v in variant_of.items() if only is None or v == only)
    assert sorted(c["tcId"] for c in report["cases"]) == want
    for c in report["cases"]:
        t = test_of[c["tcId"]]
        assert c["variant"] == variant_of[c["tcId"]] and c["result"] == t["result"]
        assert c["expectedError"] == t.get("error") and c["flags"] == t.get("flags", [])
        assert (c["status"] == "pass") == (c["message"] == "" or "PASS tcId" in c["message"])
        if c["status"] == "note":
            assert c["result"] == "acceptable"
        if c["answer"] == "outputs" and c["result"] != "invalid":
            elements(c, t)
    # the counts of each variant judged are those of its cases
    judged = [v for v in report["variants"] if v["verdict"] != "not-judged"]
    assert judged
    for v in judged:
        mine = [c for c in report["cases"] if c["variant"] == v["variant"]]
        assert v["cases"] == len(mine)
        assert v["run"] == sum(c["answer"] != "missing" for c in mine)
        for key in ("passed", "failed", "noted"):
            status = {"passed": "pass", "failed": "fail", "noted": "note"}[key]
            assert v[key] == sum(c["status"] == status for c in mine), (v, key)
        assert v["failedNumerical"] == sum(c["status"] == "fail" and c["numerical"]
                                           for c in mine)
        assert v["verdict"] == ("not-run" if v["run"] == 0 else "match" if v["failed"] == 0
                                else "match-but-numerical"
                                if v["failed"] == v["failedNumerical"] else "no-match")
    # the closing line counts the cases of the judged variants
    counted = [c for c in report["cases"] if c["counted"]]
    for key, status in (("passed", "pass"), ("failed", "fail"), ("noted", "note")):
        assert report["summary"][key] == sum(c["status"] == status for c in counted)
    assert {c["variant"] for c in counted} == {v["variant"] for v in report["variants"]
                                               if v["judged"]}
    # the variants followed are those the text names (with --variant, or on a golden of one
    # variant, the text has no such line: the variant judged, when it matches)
    verdicts = {v["variant"]: v["verdict"] for v in report["variants"]}
    assert report["follows"] == [v for v, d in verdicts.items() if d == "match"]
    assert report["followsConvention"] == [v for v, d in verdicts.items()
                                           if d == "match-but-numerical"]
    named = re.findall(r"^ *Candidate follows: (.*)$", text, re.M)
    conv = re.findall(r"^ *Candidate follows the convention (\S+), but fails", text, re.M)
    if only is None and len(verdicts) > 1:
        assert report["follows"] == [n for line in named for n in line.split(", ")]
        if not report["follows"]:
            assert report["followsConvention"] == conv
    else:
        assert not named and not conv
    diag = re.findall(r"^ *Candidate follows (\S+) at (\w+) accuracy \(([0-9.]+) digits\)",
                      text, re.M)
    assert [(d["variant"], d["dtype"], "%.1f" % d["digits"]) for d in report["diagnosis"]] \
        == diag
    for d in report["diagnosis"]:
        v = next(v for v in report["variants"] if v["variant"] == d["variant"])
        assert v["diagnosis"] == {k: d[k] for k in ("dtype", "declared", "digits", "failed")}
    for p in report["parts"]:
        assert set(p["follows"]) <= set(report["follows"])
        if p["follows"]:
            assert p["verdict"] == "follows"


def elements(c, t):
    """The comparisons of case C are one per expected value of test T (when nothing was
    missing or of the wrong length), in the golden's order, each judged as its numbers say."""
    if any(o["problem"] for o in c["outputs"]):
        assert c["status"] != "pass"
        return
    want = []
    for name, v in t["outputs"].items():
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
    files = sorted(glob.glob(os.path.join(REAL, "*.json")))
    assert files
    for f in files:
        dtype = DTYPE.search(f).group(1)
        report = judge(validator, golden("GRPO-ADV"), f, "--dtype", dtype)
        # each recording is named: followed, followed but for numerical cases, or at float32
        # accuracy -- except verl's vectorised estimator on float64 scores (real/README.md)
        if "grpo_vectorized-float64" in f:
            assert not (report["follows"] or report["followsConvention"]
                        or report["diagnosis"])
        else:
            assert report["follows"] or report["followsConvention"] or report["diagnosis"], f
        if "trl-1.10-group" in f:
            judge(validator, golden("GRPO-ADV"), f, "--dtype", dtype, "--variant", "trl",
                  "--rtol", "1e-7")


def test_trl_float64_diagnosis(validator):
    report = judge(validator, golden("GRPO-ADV"), os.path.join(REAL, "trl-1.10-group-float64.json"))
    assert report["follows"] == [] and report["summary"]["exitStatus"] == 1
    assert [(d["variant"], d["dtype"], d["declared"]) for d in report["diagnosis"]] == \
        [("trl", "float32", "float64")]
    assert 7 < report["diagnosis"][0]["digits"] < 8.5
    trl = next(v for v in report["variants"] if v["variant"] == "trl")
    assert trl["judged"] and trl["verdict"] == "no-match"
    part = report["parts"][0]
    assert part["judged"] == part["closest"] == "trl" and part["verdict"] == "no-match"


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
    verdict = {v["variant"]: v["verdict"] for v in report["variants"]}
    assert verdict == {"trl": "match", "verl": "not-run"}
    assert all(c["answer"] == "missing" for c in report["cases"] if c["variant"] == "verl")
    # --variant: only its cases, the others' variants not judged
    report = judge(validator, g2, os.path.join(FIXTURES, "grpo2_cand_trl.json"),
                   "--variant", "verl")
    assert {c["variant"] for c in report["cases"]} == {"verl"}
    assert {v["variant"]: v["verdict"] for v in report["variants"]}["trl"] == "not-judged"


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
    report = judge(validator, g1, str(cpath))
    by = {c["tcId"]: c for c in report["cases"]}
    assert report["unknownResults"] == 1
    assert by[2]["outputs"][0]["problem"] == "expected a single value, got an array of 1"
    assert by[3]["outputs"][0]["problem"] == "missing output"
    assert by[4]["outputs"][0]["got"] == "nan" and not by[4]["outputs"][0]["pass"]
    assert by[5]["answer"] == "missing" and by[5]["status"] == "fail"
    assert by[9]["status"] == "pass" and by[9]["error"] == "EINVAL \u00e9 <&> \u0001"
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
    assert status == 2 and out == "" and "unknown format 'xml' (text or json)" in err
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
