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
    assert suites and all(s.tag == "testsuite" for s in suites)
    # one testsuite per variant, in the golden's order; one testcase per golden case
    variants = list(dict.fromkeys(grp["variant"] for grp in g["testGroups"]))
    assert [s.get("name") for s in suites] == ["%s %s" % (g["formula"], v) for v in variants]
    cases = [(grp["variant"], t) for grp in g["testGroups"] for t in grp["tests"]]
    testcases = [tc for s in suites for tc in s.findall("testcase")]
    assert len(testcases) == len(cases) == count(root, "tests")
    names = set()
    for (variant, t), tc in zip(sorted(cases, key=lambda x: variants.index(x[0])), testcases):
        assert tc.get("classname") == "%s.%s" % (g["formula"], variant)
        want = "tcId %d" % t["tcId"] + (": " + t["comment"] if t.get("comment") else "")
        assert tc.get("name") == re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "?", want)
        names.add(tc.get("name"))
    assert len(names) == len(testcases)
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
        props = {p.get("name"): p.get("value") for p in s.find("properties")}
        assert props["golden"] == gpath and props["dtype"] == report["dtype"]
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
    files = sorted(glob.glob(os.path.join(REAL, "*.json")))
    assert files
    for f in files:
        root, text, report = junit(tmp_path, golden("GRPO-ADV"), f, "--dtype",
                                   DTYPE.search(f).group(1))
        judged = [s for s in root if {p.get("name"): p.get("value")
                                      for p in s.find("properties")}["judged"] == "true"]
        assert len(judged) == 1
        assert count(judged[0], "skipped") == report["summary"]["noted"]
        for s in root:
            if s is not judged[0]:
                assert count(s, "skipped") == count(s, "tests")


def test_matching_candidate_has_no_failure(tmp_path):
    root, text, report = junit(tmp_path, os.path.join(FIXTURES, "grpo2.json"),
                               os.path.join(FIXTURES, "grpo2_cand_verl.json"))
    assert count(root, "failures") == 0 and report["follows"] == ["verl"]
    trl = root.find("testsuite[@name='GRPO-FIXTURE trl']") or root[0]
    reasons = {sk.get("message") for sk in trl.iter("skipped")}
    assert reasons == {"not judged: the candidate is judged against variant verl of this part "
                       "(the one it follows or comes closest to)"}


def test_variant_option_and_notes(tmp_path):
    root, text, report = junit(tmp_path, os.path.join(FIXTURES, "grpo2.json"),
                               os.path.join(FIXTURES, "grpo2_cand_verl.json"),
                               "--variant", "trl")
    assert "1 acceptable mismatch noted" in text
    trl, verl = list(root)
    notes = [sk for sk in trl.iter("skipped")]
    assert len(notes) == 1 and notes[0].get("message").startswith(
        "acceptable mismatch noted: NOTE tcId 5 [trl]")
    assert all(sk.get("message") == "not judged: the check is of variant trl only (--variant)"
               for sk in verl.iter("skipped"))
    assert count(verl, "skipped") == count(verl, "tests")


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
