#!/usr/bin/python3
"""`rlref train --trl-log`: what TRL's DPOTrainer logs, held to values computed here.

    test_train_trl.py RLREF MODELS_DIR

The population run on tab3.json is held, at its start and once trained to pi*, to the
expectations computed here from `rlref lm --table` (pi_ref, r and pi* of every sequence,
to 25 digits) and the definitions alone: pairs y_1 != y_2 from pi_ref x pi_ref, y_1 chosen
with probability sigma(r_1 - r_2) (13.6); at pi* the implicit reward is
beta log(pi*/pi_ref) = r - beta log Z (13.18), so rewards/margins is E[r_w - r_l] and
rewards/accuracies P(r_w > r_l).  The one-pair run is held to the plain output of the same
run (beta times its log-probabilities and margin).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)


def run(rlref, *args):
    out = subprocess.run([rlref] + list(args), capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("test_train_trl.py: rlref %s failed: %s" % (" ".join(args), out.stderr))
    return out.stdout


def rows(text):
    return [[float(x) for x in line.split("\t")] for line in text.splitlines()
            if line and not line.startswith("#")]


def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(b))


def table(rlref, model):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.tsv")
        run(rlref, "lm", model, "--table=" + path)
        with open(path) as f:
            lines = [l.rstrip("\n").split("\t") for l in f if not l.startswith("#")]
    return [(float(l[2]), float(l[3]), float(l[4])) for l in lines]   # pi_ref, r, pi*


def beta_of(model):
    with open(model) as f:
        return float(json.load(f)["beta"])


def expected_at_pistar(seqs, beta):
    """TRL's four logs at pi_theta = pi*, from the definitions, and the weight of the pairs
    of equal reward (their implicit rewards are equal at pi*: a policy near pi* orders
    them either way, and TRL's c > j counts those it orders right)."""
    w, c, j, acc, mar, tie = [], [], [], [], [], []
    for a, (pa, ra, sa) in enumerate(seqs):
        for b, (pb, rb, sb) in enumerate(seqs):
            if a == b:
                continue
            wab = pa * pb / (1 + math.exp(-(ra - rb)))
            ca, jb = beta * math.log(sa / pa), beta * math.log(sb / pb)
            w.append(wab)
            c.append(wab * ca)
            j.append(wab * jb)
            acc.append(wab if ra > rb else 0.0)
            mar.append(wab * (ra - rb))
            tie.append(wab if ra == rb else 0.0)
    W = math.fsum(w)
    return [math.fsum(c) / W, math.fsum(j) / W, math.fsum(acc) / W,
            math.fsum(mar) / W], math.fsum(tie) / W


def main(rlref, models):
    tab3 = os.path.join(models, "tab3.json")
    beta = beta_of(tab3)
    args = [tab3, "--objective", "dpo", "--steps", "600", "--lr", "40", "--every", "600"]
    trl = rows(run(rlref, "train", *args, "--trl-log"))
    plain = rows(run(rlref, "train", *args))
    check(len(trl) == 2 and len(plain) == 2, "population run: a line at steps 0 and 600")
    start, end = trl[0], trl[-1]
    check(close(start[1], math.log(2), 1e-15), "step 0: the mean loss per pair is log 2")
    check(start[2:] == [0.0, 0.0, 0.0, 0.0],
          "step 0: chosen, rejected, accuracy and margin are 0 (h = 0; accuracy counts c > j)")
    check(plain[-1][2] < 1e-14, "step 600: trained to pi* (KL %.3g)" % plain[-1][2])
    want, tie = expected_at_pistar(table(rlref, tab3), beta)
    names = ["rewards/chosen", "rewards/rejected", "rewards/margins"]
    for name, got, w in zip(names, end[2:4] + end[5:], want[:2] + want[3:]):
        check(close(got, w, 1e-6), "step 600: %s %.12g, at pi* %.12g" % (name, got, w))
    acc = end[4]
    check(want[2] - 1e-12 <= acc <= want[2] + tie + 1e-12,
          "step 600: rewards/accuracies %.12g within P(r_w > r_l) = %.12g and that plus the "
          "pairs of equal reward, %.12g" % (acc, want[2], want[2] + tie))

    disp = os.path.join(models, "displace.json")
    beta = beta_of(disp)
    args = [disp, "--objective", "dpo", "--steps", "200", "--lr", "0.5", "--every", "50",
            "--pair", "1 1 0", "1 1 1"]
    trl = rows(run(rlref, "train", *args, "--trl-log"))
    plain = rows(run(rlref, "train", *args))
    lw0, ll0 = plain[0][3], plain[0][4]
    ok = len(trl) == len(plain) == 5
    for t, p in zip(trl, plain):
        ok = ok and t[0] == p[0] and t[2] == beta * (p[3] - lw0) and t[3] == beta * (p[4] - ll0)
        ok = ok and t[4] == (1.0 if t[2] > t[3] else 0.0) and close(t[5], beta * p[5], 1e-12)
    check(ok, "one pair: chosen, rejected, accuracy and margin are beta times the plain run's")

    bad = subprocess.run([rlref, "train", tab3, "--objective", "rlhf", "--trl-log"],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "--trl-log logs the pairwise losses" in bad.stderr,
          "--trl-log with rlhf: refused, exit 2")
    print("%d failed" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
