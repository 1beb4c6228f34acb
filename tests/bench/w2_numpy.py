#!/usr/bin/python3
"""w2_numpy.py DIR -- the numpy side of benchmarks W2a, W2a-real and W2b (tests/bench/w2.c
writes the inputs and rlref's outputs to DIR).  Prints, each the best of 7 runs:
  w2a numpy SECONDS maxdiff D    (the largest |advantage difference|)
  w2r-KIND-G numpy SECONDS maxdiff D    (W2a-real, likewise)
  w2b numpy SECONDS maxdiff D    (the largest relative difference of the sums)
or "w2 numpy missing: ..." when numpy cannot be imported."""
import sys
import time

try:
    import numpy as np
except ImportError as e:
    print("w2 numpy missing: %s" % e)
    sys.exit(0)

REPS = 7
d = sys.argv[1]


def best_of(f, *args):
    best, out = float("inf"), None
    for _ in range(REPS):
        t = time.perf_counter()
        out = f(*args)
        best = min(best, time.perf_counter() - t)
    return best, out


def w2a(r, G=16):
    # GRPO advantages, ddof 0, eps 1e-8 added to the std
    g = r.reshape(-1, G)
    mean = g.mean(axis=1, keepdims=True)
    std = g.std(axis=1, keepdims=True)
    return ((g - mean) / (std + 1e-8)).reshape(-1)


def w2b(l):
    # the sums of k1, k2, k3 = exp(-l) - 1 + l, as the libraries write them
    return np.array([l.sum(), (l * l / 2).sum(), (np.exp(-l) - 1 + l).sum()])


r = np.fromfile(d + "/w2a_in.f64", dtype="<f8")
ref = np.fromfile(d + "/w2a_out.f64", dtype="<f8")
t, a = best_of(w2a, r)
print("w2a numpy %.6f maxdiff %.3e" % (t, float(np.max(np.abs(a - ref)))))
for kind in ("gauss", "heavy"):
    for G in (16, 64):
        name = "w2r-%s-%d" % (kind, G)
        r = np.fromfile(d + "/%s_in.f64" % name, dtype="<f8")
        ref = np.fromfile(d + "/%s_out.f64" % name, dtype="<f8")
        t, a = best_of(w2a, r, G)
        print("%s numpy %.6f maxdiff %.3e" % (name, t, float(np.max(np.abs(a - ref)))))
l = np.fromfile(d + "/w2b_in.f64", dtype="<f8")
ref = np.fromfile(d + "/w2b_out.f64", dtype="<f8")
t, s = best_of(w2b, l)
print("w2b numpy %.6f maxdiff %.3e" % (t, float(np.max(np.abs(s - ref) / np.abs(ref)))))
