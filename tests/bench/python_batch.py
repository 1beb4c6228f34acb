#!/usr/bin/python3
"""python_batch.py -- rlref.batch against NumPy doing the same on the same arrays in the same
run: GRPO advantages (TRL's convention: group mean, ddof-1 std + 1e-4) of 2^20 rewards in
groups of 8, and the three KL estimators of 2^20 tokens.  Prints each time and the ratio;
skips, saying so, without NumPy."""

import os
import sys
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "oracles", "python"))
try:
    import numpy as np
except ImportError:
    print("python_batch: NumPy is not installed (python3-numpy): skipped")
    sys.exit(0)
import rlref.batch as rb  # noqa: E402


def best(fn, reps=7):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def np_adv(r, G):
    g = r.reshape(-1, G)
    m = g.mean(axis=1, keepdims=True)
    s = g.std(axis=1, ddof=1, keepdims=True)
    return ((g - m) / (s + 1e-4)).reshape(-1)


def np_kl(lp, rf):
    l = lp - rf
    return l, l * l / 2, np.expm1(-l) + l


rng = np.random.default_rng(1)
N = 1 << 20
r = rng.random(N)
lp, rf = -rng.random(N) * 3, -rng.random(N) * 3
out = np.empty(N)
for name, ours, theirs in [
        ("GRPO-ADV trl, 2^20 rewards, G = 8", lambda: rb.grpo_advantages(r, 8, "trl", out=out),
         lambda: np_adv(r, 8)),
        ("KL k1, k2, k3, 2^20 tokens", lambda: rb.kl(lp, rf), lambda: np_kl(lp, rf))]:
    a, b = best(ours), best(theirs)
    print("%-36s rlref.batch %7.2f ms   numpy %7.2f ms   %5.2fx" % (name, a * 1e3, b * 1e3,
                                                                      b / a))
