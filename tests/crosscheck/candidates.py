#!/usr/bin/python3
"""Candidate GRPO advantages, written the way a user of each library computes them.

Usage:
    /usr/bin/python3 tests/crosscheck/candidates.py GOLDEN_GRPO_ADV_JSON CONVENTION OUT.json \
        [--dtype float64|float32] [--perturb TCID]

CONVENTION is one of trl, verl, openrlhf, no-std, ddof0.  The convention is applied to the
inputs of every test of the golden file (all groups), and the result is written in the
candidate format read by `rlref check`:

    {"results": [{"tcId": N, "outputs": {"adv": [numbers...]}}, {"tcId": M, "error": "EDOM"}]}

Numbers are JSON numbers (repr of the double); NaN and infinities are the strings "nan", "inf",
"-inf".  Inputs the convention refuses get an "error" instead of outputs: "ENAN" for non-finite
rewards (NaN is accepted by trl only), "EINVAL" for malformed inputs (no rewards, a length that is
not a multiple of the group size, a group size below 1), "EDOM" for a group of one where the
convention refuses it (openrlhf).

--dtype float32 rounds the inputs, the constants and every operation to binary32 (through
struct), as a float32 tensor would.  --perturb TCID multiplies the first advantage of that test
by (1 + 1e-9), to make a candidate that must be caught (in float64 only: a relative change of
1e-9 is below binary32 resolution).

Nothing here reads the golden outputs: only "inputs" and "tcId".
"""

import argparse
import json
import math
import struct
import sys

CONVENTIONS = ("trl", "verl", "openrlhf", "no-std", "ddof0")


class Refuse(Exception):
    def __init__(self, code):
        Exception.__init__(self, code)
        self.code = code


class Arith:
    """float64 arithmetic, or float32 arithmetic emulated by rounding every result with struct
    (a single + - * / sqrt of binary32 operands computed in binary64 and rounded once to
    binary32 is correctly rounded, since 53 >= 2*24 + 2)."""

    def __init__(self, dtype):
        self.f32 = dtype == "float32"

    def r(self, x):
        if not self.f32 or math.isnan(x) or math.isinf(x):
            return x
        try:
            return struct.unpack("f", struct.pack("f", x))[0]
        except OverflowError:
            return math.copysign(float("inf"), x)

    def add(self, a, b):
        return self.r(a + b)

    def sub(self, a, b):
        return self.r(a - b)

    def mul(self, a, b):
        return self.r(a * b)

    def div(self, a, b):
        if b == 0:
            if a == 0 or math.isnan(a):
                return float("nan")
            return math.copysign(float("inf"), a) * math.copysign(1.0, b)
        return self.r(a / b)

    def sqrt(self, a):
        return self.r(math.sqrt(a)) if a >= 0 else float("nan")

    def sum(self, xs):
        s = self.r(0.0)
        for x in xs:
            s = self.add(s, x)
        return s

    def mean(self, xs):
        return self.div(self.sum(xs), self.r(float(len(xs))))

    def std(self, xs, ddof):
        """Two-pass standard deviation, as torch.std / numpy.std compute it."""
        m = self.mean(xs)
        ss = self.sum(self.mul(self.sub(x, m), self.sub(x, m)) for x in xs)
        return self.sqrt(self.div(ss, self.r(float(len(xs) - ddof))))


# GRPO group advantage, CONVENTIONS.md "Group advantage" (000 eq. 13.23):
# trl: ddof 1, (r - mean)/(std + 1e-4); a group of one gets std 0 (so adv 0); NaN rewards are
# left out of mean and std (nanmean / nanstd) and their advantage is 0.
def trl_group(A, r):
    eps = A.r(1e-4)
    scored = [x for x in r if not math.isnan(x)]
    if len(scored) == 0:
        return [0.0] * len(r)
    mean = A.mean(scored)
    std = A.std(scored, 1) if len(scored) >= 2 else A.r(0.0)
    den = A.add(std, eps)
    return [0.0 if math.isnan(x) else A.div(A.sub(x, mean), den) for x in r]


# verl compute_grpo_outcome_advantage: ddof 1, (r - mean)/(std + 1e-6); a group of one is given
# mean 0 and std 1.
def verl_group(A, r):
    eps = A.r(1e-6)
    if len(r) == 1:
        mean, std = A.r(0.0), A.r(1.0)
    else:
        mean, std = A.mean(r), A.std(r, 1)
    den = A.add(std, eps)
    return [A.div(A.sub(x, mean), den) for x in r]


# OpenRLHF group_norm: ddof 1, (r - mean)/(std + 1e-9); a group of one is refused.
def openrlhf_group(A, r):
    if len(r) == 1:
        raise Refuse("EDOM")
    eps = A.r(1e-9)
    mean, std = A.mean(r), A.std(r, 1)
    den = A.add(std, eps)
    return [A.div(A.sub(x, mean), den) for x in r]


# Dr.GRPO: r - mean, no division.
def nostd_group(A, r):
    mean = A.mean(r)
    return [A.sub(x, mean) for x in r]


# Seed 001 group_advantages: population std (ddof 0); (r - mean)/(sigma + eps) if sigma > eps,
# else exactly 0; eps = 1e-8.
def ddof0_group(A, r):
    eps = A.r(1e-8)
    mean, std = A.mean(r), A.std(r, 0)
    if not std > eps:
        return [0.0] * len(r)
    den = A.add(std, eps)
    return [A.div(A.sub(x, mean), den) for x in r]


GROUP_FN = {"trl": trl_group, "verl": verl_group, "openrlhf": openrlhf_group,
            "no-std": nostd_group, "ddof0": ddof0_group}


def reals(v):
    out = []
    for o in v:
        h = o["hex"] if isinstance(o, dict) else o
        if h in ("nan", "-nan"):
            out.append(float("nan"))
        elif h in ("inf", "+inf"):
            out.append(float("inf"))
        elif h == "-inf":
            out.append(float("-inf"))
        elif isinstance(h, str):
            out.append(float.fromhex(h))
        else:
            out.append(float(h))
    return out


def candidate(convention, A, rewards, G):
    if not isinstance(G, int) or G < 1 or len(rewards) == 0 or len(rewards) % G != 0:
        raise Refuse("EINVAL")
    for x in rewards:
        if math.isinf(x) or (math.isnan(x) and convention != "trl"):
            raise Refuse("ENAN")
    r = [A.r(x) for x in rewards]
    adv = []
    for k in range(0, len(r), G):
        adv.extend(GROUP_FN[convention](A, r[k:k + G]))
    return adv


def json_number(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("golden")
    ap.add_argument("convention", choices=CONVENTIONS)
    ap.add_argument("out")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    ap.add_argument("--perturb", type=int, default=None, metavar="TCID")
    args = ap.parse_args(argv[1:])

    with open(args.golden) as fh:
        data = json.load(fh)
    A = Arith(args.dtype)
    results = []
    perturbed = False
    for grp in data.get("testGroups", []):
        for t in grp.get("tests", []):
            ins = t.get("inputs", {})
            tcid = t["tcId"]
            try:
                adv = candidate(args.convention, A, reals(ins.get("rewards", [])),
                                ins.get("group_size"))
            except Refuse as e:
                results.append({"tcId": tcid, "error": e.code})
                continue
            if args.perturb is not None and tcid == args.perturb and adv:
                if adv[0] == 0 or math.isnan(adv[0]) or math.isinf(adv[0]):
                    print("warning: first advantage of tcId %d is %r; the perturbation does "
                          "not change it" % (tcid, adv[0]), file=sys.stderr)
                adv[0] = adv[0] * (1 + 1e-9)
                perturbed = True
            results.append({"tcId": tcid, "outputs": {"adv": [json_number(a) for a in adv]}})
    if args.perturb is not None and not perturbed:
        print("warning: tcId %d has no advantages to perturb" % args.perturb, file=sys.stderr)
    with open(args.out, "w") as fh:
        json.dump({"results": results}, fh, indent=1)
        fh.write("\n")
    print("%s: %d results (%s, %s)" % (args.out, len(results), args.convention, args.dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
