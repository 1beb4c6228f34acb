"""The pytest example (test_example_advantage.py) run by pytest in a child process: as it is,
every case passes; with a fault planted in a copy (ddof 0 for ddof 1), the run fails, and the
failures name the cases by tcId, variant and comment, with the report's lines."""

import os
import re
import subprocess
import sys

import rlref_check
from conftest import HERE, TOP, golden

EXAMPLE = os.path.join(HERE, "test_example_advantage.py")


def run_pytest(tmp_path, source):
    """Run pytest on SOURCE written to tmp_path; (exit status, output)."""
    path = tmp_path / "test_example_advantage.py"
    gpath = golden("GRPO-ADV")
    source = source.replace('os.path.join(os.path.dirname(__file__), "..", "..", "golden", '
                            '"GRPO-ADV.json")', repr(gpath))
    assert repr(gpath) in source, "the example no longer names its golden as expected"
    path.write_text(source, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "oracles", "python"),
               PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-rf", str(path)], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def source():
    with open(EXAMPLE, encoding="utf-8") as f:
        return f.read()


def test_correct_implementation_passes(tmp_path):
    status, out = run_pytest(tmp_path, source())
    n = len(rlref_check.load(golden("GRPO-ADV")).cases("openrlhf"))
    assert status == 0, out
    assert re.search(r"\b%d passed\b" % n, out), out


def test_wrong_implementation_fails_naming_the_case(tmp_path):
    text = source()
    wrong = text.replace("/ (len(group) - 1)", "/ len(group)")     # ddof 0: a planted fault
    assert wrong != text, "the fault could not be planted"
    status, out = run_pytest(tmp_path, wrong)
    assert status == 1, out
    G = rlref_check.load(golden("GRPO-ADV"))
    detector = [c for c in G.cases("openrlhf") if c.comment.startswith("ddof 1: 1.5/-0.5")]
    assert len(detector) == 1
    case = detector[0]
    # the failing test is named by tcId and comment, and its message carries the report line
    assert "test_advantage[%s]" % rlref_check.case_id(case) in out, out
    assert re.search(r"FAIL tcId %d \[openrlhf\] adv\[0\]: expected 1\.4999999970000000"
                     % case.tc_id, out), out
    assert "correct digits" in out
    # the cases that do not depend on ddof pass: invalid inputs, zero variance, NaN rewards
    failed = set(int(m) for m in re.findall(r"FAIL tcId (\d+) \[openrlhf\]", out))
    assert case.tc_id in failed
    for c in G.cases("openrlhf"):
        if c.expects_rejection:
            assert c.tc_id not in failed, c
