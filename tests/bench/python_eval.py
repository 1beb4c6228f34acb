#!/usr/bin/python3
"""python_eval.py RLREF -- rlref.eval in the process (the shared library through ctypes)
against the subprocess path (`rlref eval` and its JSON), on the same inputs in the same run:
calls per second of each and their ratio."""

import json
import os
import subprocess
import sys
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "oracles", "python"))
import rlref  # noqa: E402

RLREF = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build", "bin", "rlref")
CASES = [("PREF-BT", None, {"rw": 1.5, "rl": 0.0}),
         ("GRPO-ADV", "trl", {"rewards": [1.0, 0.0, 0.5, 0.25], "group_size": 4}),
         ("KL-K3", "stable", {"logp": [-0.5, -1.0], "ref_logp": [-0.25, 0.0]})]


def words(inputs):
    return ["%s=%s" % (k, ",".join(float(e).hex() if isinstance(e, float) else str(e)
                                   for e in (v if isinstance(v, list) else [v])))
            for k, v in inputs.items()]


def rate(fn, seconds=1.0):
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    return n / (time.perf_counter() - t0)


for formula, variant, inputs in CASES:
    argv = [RLREF, "eval", formula] + (["--variant", variant] if variant else []) + words(inputs)
    inproc = rate(lambda: rlref.eval(formula, variant, **inputs))
    sub = rate(lambda: json.loads(subprocess.run(argv, capture_output=True, check=True).stdout))
    print("%-10s rlref.eval %8.0f calls/s   rlref eval (subprocess) %6.0f calls/s   %5.0fx"
          % (formula, inproc, sub, inproc / sub))
