"""`rlref check --junit FILE`: the file as CI systems read it (testsuites, testsuite,
testcase, failure, skipped; counts that add up at every level), one testcase per golden case,
its failures those of the text report, and the text report unchanged beside it."""

import glob
import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

from conftest import FIXTURES, REAL, closing_counts, golden, run_check

DTYPE = re.compile(r"-(float32|float64)\.json$")


def junit(tmp_path, gpath, cpath, *options):
    """Run the check with --junit; hold the file to the golden and the text report.  Returns
    (root element, the text report, the JSON report)."""
    xpath = tmp_path / "junit.xml"
    if xpath.exists():
        xpath.unlink()
    status, text, err = run_check(gpath, cpath, "--junit", str(xpath), *options)
    first = xpath.read_bytes()
    jstatus, jout, jerr = run_check(gpath, cpath, "--junit", str(xpath), "--format", "json",
                                    *options)
    report = json.loads(jout)
    # the text report is unchanged (the JSON report holds it, as test_report_json.py checks),
    # and the JUnit file does not depend on the format of the report
    assert (jstatus, jerr, report["text"]) == (status, err, text)
    assert xpath.read_bytes() == first
    root = ET.parse(str(xpath)).getroot()
    structure(root, gpath, text, report)
    return root, text, report


def count(el, tag):
    return int(el.get(tag))


def structure(root, gpath, text, report):
    with open(gpath, encoding="utf-8") as f:
        g = json.load(f)
    assert root.tag == "testsuites"
    suites = list(root)
    assert all(s.tag == "testsuite" for s in suites)
    # per part, the variant judged: a suite of its valid and acceptable cases, then one of its
    # must-reject cases ("input validation"), each present when it has cases
    judged = [p["judged"] for p in report["parts"] if p["judged"] is not None]
    want_suites = []
    for v in judged:
        mine = [t for grp in g["testGroups"] if grp["variant"] == v for t in grp["tests"]]
        if any(t["result"] != "invalid" for t in mine):
            want_suites.append(("%s %s" % (g["formula"], v), v, False))
        if any(t["result"] == "invalid" for t in mine):
            want_suites.append(("%s %s input validation" % (g["formula"], v), v, True))
    assert [s.get("name") for s in suites] == [w[0] for w in want_suites]
    testcases = []
    for s, (name, variant, invalid) in zip(suites, want_suites):
        cases = [t for grp in g["testGroups"] if grp["variant"] == variant for t in grp["tests"]
                 if (t["result"] == "invalid") == invalid]
        tcs = s.findall("testcase")
        assert len(tcs) == len(cases)
        for t, tc in zip(cases, tcs):
            assert tc.get("classname") == "%s.%s" % (g["formula"], variant)
            want = "tcId %d" % t["tcId"] + (": " + t["comment"] if t.get("comment") else "")
            assert tc.get("name") == re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "?", want)
        testcases += tcs
        props = {p.get("name"): p.get("value") for p in s.find("properties")}
        assert props["golden"] == gpath and props["dtype"] == report["dtype"]
        assert props["judged"] == "true"
        part = next(p for p in report["parts"] if p["judged"] == variant)
        assert props["verdict"] == part["line"]
        if part["explanation"] and part["explanation"]["text"]:
            assert props["explanation"] == part["explanation"]["text"]
    assert count(root, "tests") == len(testcases)
    # counts add up at every level
    totals = [0, 0, 0]
    for s in suites:
        tcs = s.findall("testcase")
        f = sum(tc.find("failure") is not None for tc in tcs)
        k = sum(tc.find("skipped") is not None for tc in tcs)
        assert (count(s, "tests"), count(s, "failures"), count(s, "skipped"),
                count(s, "errors")) == (len(tcs), f, k, 0)
        for tc in tcs:
            assert len(tc.findall("failure")) + len(tc.findall("skipped")) <= 1
            assert all(ch.tag in ("failure", "skipped", "system-out") for ch in tc)
        totals = [totals[0] + len(tcs), totals[1] + f, totals[2] + k]
    assert totals == [count(root, "tests"), count(root, "failures"), count(root, "skipped")]
    assert count(root, "errors") == 0
    # passed and failed are the text report's closing line
    n, m = closing_counts(text)
    assert count(root, "failures") == m
    assert count(root, "tests") - m - count(root, "skipped") == n
    # the failures are the counted failing cases of the JSON report, with their lines
    failing = {int(re.match(r"tcId (\d+)", tc.get("name")).group(1)): tc.find("failure")
               for tc in testcases if tc.find("failure") is not None}
    want = {c["tcId"]: c for c in report["cases"] if c["counted"] and c["status"] == "fail"}
    assert set(failing) == set(want)
    for tcid, fail in failing.items():
        first = want[tcid]["message"].split("\n")[0]
        assert fail.get("message") == first and first.startswith("FAIL tcId %d [" % tcid)
        assert fail.text == want[tcid]["message"]


def test_real_library_outputs(tmp_path):
    files = sorted(glob.glob(os.path.join(REAL, "GRPO-ADV", "*.json")))
    assert files
    for f in files:
        root, text, report = junit(tmp_path, golden("GRPO-ADV"), f, "--dtype",
                                   DTYPE.search(f).group(1))
        first = root[0]
        assert count(first, "skipped") == report["summary"]["noted"] + sum(
            c["status"] == "skip" for c in report["cases"] if c["counted"])
        # the must-reject cases: skipped (not counted) without --strict
        if len(root) > 1:
            assert count(root[1], "skipped") == count(root[1], "tests")
        root, text, report = junit(tmp_path, golden("GRPO-ADV"), f, "--dtype",
                                   DTYPE.search(f).group(1), "--strict")
        if len(root) > 1:
            assert count(root[1], "skipped") == 0


def test_matching_candidate_has_no_failure(tmp_path):
    root, text, report = junit(tmp_path, os.path.join(FIXTURES, "grpo2.json"),
                               os.path.join(FIXTURES, "grpo2_cand_verl.json"))
    assert count(root, "failures") == 0 and report["follows"] == ["verl"]
    # the other variant's cases only with --junit-all, skipped with the reason
    assert all("trl" not in s.get("name") for s in root)
    xpath = tmp_path / "all.xml"
    run_check(os.path.join(FIXTURES, "grpo2.json"), os.path.join(FIXTURES, "grpo2_cand_verl.json"),
              "--junit", str(xpath), "--junit-all")
    all_root = ET.parse(str(xpath)).getroot()
    trl = [s for s in all_root if " trl" in s.get("name")]
    assert trl
    reasons = {sk.get("message") for s in trl for sk in s.iter("skipped")}
    assert reasons == {"not judged: the candidate is judged against variant verl of this part"}


def test_variant_option_and_notes(tmp_path):
    root, text, report = junit(tmp_path, os.path.join(FIXTURES, "grpo2.json"),
                               os.path.join(FIXTURES, "grpo2_cand_verl.json"),
                               "--variant", "trl")
    assert "1 acceptable mismatch noted" in text
    trl = root[0]
    notes = [sk for sk in trl.iter("skipped")]
    assert len(notes) == 1 and notes[0].get("message").startswith(
        "acceptable mismatch noted: NOTE tcId 5 [trl]")
    assert all("verl" not in s.get("name") for s in root)


def test_every_golden_of_rlref_itself(tmp_path, rlref):
    import subprocess
    for path in sorted(glob.glob(os.path.join(os.path.dirname(golden("PREF-BT")),
                                              "[A-Z]*.json"))):
        with open(path, encoding="utf-8") as f:
            first = json.load(f)["testGroups"][0]["variant"]
        cpath = tmp_path / "cand.json"
        with open(cpath, "wb") as f:
            assert subprocess.run([rlref, "candidate", path, "--variant", first],
                                  stdout=f).returncode == 0
        junit(tmp_path, path, str(cpath))


def test_escaping(tmp_path):
    """Names and messages with XML's special characters, control characters and non-ASCII
    text give a well-formed file that says the same."""
    g = json.load(open(os.path.join(FIXTURES, "bt.json"), encoding="utf-8"))
    g["formula"] = "BT <&> \"q\" 'a'"
    g["testGroups"][0]["variant"] = "b<t>&\u03c3"
    g["testGroups"][0]["tests"][0]["comment"] = "tab\there \u0007 bell, \u00e9, ]]> <!--"
    gpath = tmp_path / "g.json"
    gpath.write_text(json.dumps(g), encoding="utf-8")
    cand = {"results": [{"tcId": 1, "error": "no <&> \"x\" \u0001 \u03c3"}]}
    cpath = tmp_path / "c.json"
    cpath.write_text(json.dumps(cand), encoding="utf-8")
    root, text, report = junit(tmp_path, str(gpath), str(cpath))
    tc = root.find("testsuite").find("testcase")
    assert root.get("name") == "rlref check BT <&> \"q\" 'a'"
    assert tc.get("classname") == "BT <&> \"q\" 'a'.b<t>&\u03c3"
    assert tc.get("name") == "tcId 1: tab\there ? bell, \u00e9, ]]> <!--"
    assert tc.find("failure").get("message") == \
        "FAIL tcId 1 [b<t>&\u03c3]: rejected the input with \"no <&> \"x\" ? \u03c3\""


def test_unwritable_file(tmp_path):
    g1, c1 = os.path.join(FIXTURES, "bt.json"), os.path.join(FIXTURES, "bt_cand.json")
    status, out, err = run_check(g1, c1, "--junit", str(tmp_path / "no" / "dir.xml"))
    assert status == 2 and "cannot write" in err
    if os.path.exists("/dev/full"):
        status, out, err = run_check(g1, c1, "--junit", "/dev/full")
        assert status == 2 and "/dev/full: cannot write" in err
    status, out, err = run_check(g1, c1, "--junit")
    assert status == 2 and "needs a value" in err
