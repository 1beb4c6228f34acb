"""The package's worked examples (oracles/python/examples/) run as a user runs them: pytest with
rlref's plugin; the NumPy one passes (it follows trl, but for the NUMERICAL cases, and agrees
with rlref.eval on hypothesis's draws), and so does the torch one, or it is skipped saying
that torch is missing."""

import os
import subprocess
import sys

from conftest import TOP

EXAMPLES = os.path.join(TOP, "oracles", "python", "examples")


def test_examples_run():
    env = dict(os.environ, PYTHONPATH=os.path.join(TOP, "oracles", "python"))
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "rlref.pytest_plugin", "-p",
                          "no:cacheprovider", "-rs", "-v", EXAMPLES], env=env,
                         capture_output=True, text=True, cwd=EXAMPLES)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    for name in ("test_follows_trl", "test_against_rlref_eval"):
        assert "test_numpy_grpo.py::%s PASSED" % name in out
        assert ("test_torch_grpo.py::%s PASSED" % name in out
                or "torch is not installed (python3-torch)" in out)
    assert "PASS examples/test_numpy_grpo.py::test_follows_trl GRPO-ADV: Candidate follows " \
           "the convention trl" in out or "PASS test_numpy_grpo.py::test_follows_trl GRPO-ADV: " \
           "Candidate follows the convention trl" in out
