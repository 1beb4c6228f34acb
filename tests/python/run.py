#!/usr/bin/python3
"""run.py [RLREF [PYTEST ARGS...]] -- the tests of the Python path.

Runs every test of this directory with pytest (Debian's python3-pytest), judging with RLREF
(default: build/bin/rlref of this tree): the module oracles/python/rlref_check.py, the JSON
report and the JUnit file of `rlref check`, the pytest example, the README examples, and the
library-style worked examples (skipped, with the reason, where python3-torch or NumPy is
missing).  Prints each skipped test with its reason, then "N passed, M failed" last; the exit
status is 0 when M = 0 and N > 0.  No bytecode or pytest cache is written into the tree."""

import os
import sys

sys.dont_write_bytecode = True
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 1:
    os.environ["RLREF"] = os.path.abspath(sys.argv[1])

try:
    import pytest
except ImportError:
    print("python3-pytest is not installed (apt-get install python3-pytest)")
    print("0 passed, 1 failed")
    sys.exit(1)


class Count:
    """Counts the outcomes of the tests (a failure in setup or teardown counts as failed)."""

    def __init__(self):
        self.passed, self.failed, self.skipped = 0, 0, []

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failed += 1
        elif report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
            self.skipped.append((report.nodeid, reason))
        elif report.when == "call":
            self.passed += 1

    def pytest_collectreport(self, report):
        if report.failed:
            self.failed += 1


count = Count()
status = pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", HERE, HERE] + sys.argv[2:],
                     plugins=[count])
for nodeid, reason in count.skipped:
    print("skipped %s: %s" % (nodeid, reason))
if status not in (0, 1) and count.failed == 0:
    count.failed = 1            # pytest itself failed (usage, internal error, nothing collected)
print("%d passed, %d failed" % (count.passed, count.failed))
sys.exit(0 if count.failed == 0 and count.passed > 0 and status == 0 else 1)
