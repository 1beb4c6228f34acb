"""Shared setup of the tests of the Python path (run by run.py, or by pytest directly): the
module oracles/python/rlref_check.py and the library-style examples in styles/ on sys.path, the
rlref command ($RLREF, else build/bin/rlref of this tree) and the golden directory."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
sys.path[:0] = [os.path.join(TOP, "oracles", "python"), os.path.join(HERE, "styles")]
sys.dont_write_bytecode = True

RLREF = os.path.abspath(os.environ.get("RLREF") or os.path.join(TOP, "build", "bin", "rlref"))
os.environ["RLREF"] = RLREF
GOLDEN = os.path.join(TOP, "golden")
FIXTURES = os.path.join(TOP, "tests", "check_cmd", "fixtures")
REAL = os.path.join(TOP, "tests", "check_cmd", "real")
SCHEMA = os.path.join(TOP, "oracles", "check", "report.schema.json")


def golden(name):
    """The path of golden/NAME.json."""
    return os.path.join(GOLDEN, name + ".json")


def run_check(*args):
    """Run `rlref check ARGS`; (exit status, stdout, stderr) as text."""
    p = subprocess.run([RLREF, "check"] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def closing_counts(text):
    """(N, M) of the closing line "N passed, M failed" of a text report, which must be last."""
    last = text.rstrip("\n").split("\n")[-1]
    words = last.split()
    assert len(words) == 4 and words[1] == "passed," and words[3] == "failed", last
    return int(words[0]), int(words[2])


@pytest.fixture(scope="session")
def rlref():
    if not os.access(RLREF, os.X_OK):
        pytest.fail("no rlref command at %s: build it first (make build)" % RLREF)
    return RLREF
