#!/usr/bin/python3
"""Candidate GRPO advantages, computed the way each library's code computes them.

Usage:
    /usr/bin/python3 tests/crosscheck/candidates.py GOLDEN_GRPO_ADV_JSON CONVENTION OUT.json \
        [--dtype float64|float32] [--scale] [--perturb VARIANT/REWARDS]

CONVENTION is one of trl, verl, openrlhf, no-std, ddof0.  The convention is applied to the
inputs of every test of the golden file (all groups), and the result is written in the
candidate format read by `rlref check`:

    {"results": [{"tcId": N, "outputs": {"adv": [numbers...]}}, {"tcId": M, "error": "EDOM"}]}

Numbers are JSON numbers (repr of the double); NaN and infinities are the strings "nan", "inf",
"-inf".

The conventions, as the libraries' code computes them (golden/README.md, CONVENTIONS.md):

  trl       TRL's group mode: nanmean and nanstd over the non-NaN rewards of a group, nanstd
            with TRL's Bessel factor count/(count - 1), which torch divides in float32 even for
            float64 rewards; a group of one has std 0; (r - mean)/(std + 1e-4), then
            nan_to_num(nan=0) (+-inf to the largest finite value): NaN rewards, an infinite
            reward and a group with one scorable reward all end as 0.
  verl      compute_grpo_outcome_advantage: torch.mean and torch.std (ddof 1) per group, a group
            of one mean 0 and std 1; (r - mean)/(std + 1e-6).
  openrlhf  group_norm: (r - mean)/(std + 1e-9), ddof 1; n_samples_per_prompt > 1 is asserted,
            so a group of one is refused (EDOM).
  no-std    Dr.GRPO (every library by switch): r - mean.
  ddof0     seed 001's group_advantages: (r - mean)/(std + 1e-8) if std > 1e-8, else 0; ddof 0.

verl, openrlhf, no-std and ddof0 give NaN advantages for a NaN or infinite reward (ddof0
zeros, its std > eps being false for a NaN std); such inputs are refused (ENAN), the reading of
the golden file, and so is any other result holding a NaN (binary32 overflow).  Malformed
inputs (no rewards, a length that is not a multiple of the group size, a group size below 1)
are refused (EINVAL).  TRL's float32 Bessel factor makes its binary64 results agree with the
exact trl to about 8 digits only.

--dtype float32 rounds the inputs and the constants to binary32 and every operation to binary32
(through struct), as float32 tensors do; rewards beyond the binary32 range become +-inf.  Sums
are taken in index order.

The libraries compute on the rewards as given, so in binary64 their squared deviations overflow
for rewards of 1e154 and their sums for rewards near 1.7e308 (the golden's RangeScaling cases),
and the candidates do too.  --scale first multiplies the rewards by the power of two 2^k that
brings the largest |r| into [1/2, 1) (k capped so that eps 2^k stays below 2^1000), and eps by
the same 2^k, which leaves (r - mean)/(std + eps) unchanged; no-std multiplies r - mean back by
2^-k.  That is what a careful implementation does, and what the golden's exact conventions
expect.

--perturb VARIANT/REWARDS multiplies the first advantage of the test of the VARIANT group whose
rewards are REWARDS (comma-separated decimals, e.g. verl/1,0,0,0) by (1 + 1e-9), to make a
candidate that must be caught (in float64 only: 1e-9 is below binary32 resolution); the tcId of
that test is printed.

Nothing here reads the golden outputs: only "inputs", "tcId" and, for --perturb, "variant".
"""

import argparse
import json
import math
import struct
import sys

CONVENTIONS = ("trl", "verl", "openrlhf", "no-std", "ddof0")
DBL_MAX = sys.float_info.max
FLT_MAX = float.fromhex("0x1.fffffep+127")


class Refuse(Exception):
    def __init__(self, code):
        Exception.__init__(self, code)
        self.code = code


def f32(x):
    """x rounded to binary32 (ties to even), +-inf beyond its range; NaN and inf unchanged."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


class Arith:
    """float64 arithmetic, or float32 arithmetic emulated by rounding every result with struct
    (a single + - * / sqrt of binary32 operands computed in binary64 and rounded once to
    binary32 is correctly rounded, since 53 >= 2*24 + 2).  IEEE results for overflow, 0/0,
    x/0 and inf - inf, as tensors give them."""

    def __init__(self, dtype):
        self.f32 = dtype == "float32"
        self.max = FLT_MAX if self.f32 else DBL_MAX

    def r(self, x):
        return f32(x) if self.f32 else x

    def add(self, a, b):
        return self.r(a + b)

    def sub(self, a, b):
        return self.r(a - b)

    def mul(self, a, b):
        return self.r(a * b)

    def div(self, a, b):
        if b == 0:
            if a == 0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return self.r(a / b)

    def sqrt(self, a):
        if math.isnan(a) or a < 0:
            return math.nan
        return self.r(math.sqrt(a))

    def ldexp(self, a, k):
        if not math.isfinite(a) or k == 0:
            return a
        try:
            return self.r(math.ldexp(a, k))
        except OverflowError:
            return math.copysign(math.inf, a)

    def sum(self, xs):
        s = self.r(0.0)
        for x in xs:
            s = self.add(s, x)
        return s

    def mean(self, xs):
        return self.div(self.sum(xs), self.r(float(len(xs))))

    def var(self, xs, ddof):
        """Two-pass variance, as torch.var and numpy.var compute it."""
        m = self.mean(xs)
        ss = self.sum(self.mul(self.sub(x, m), self.sub(x, m)) for x in xs)
        return self.div(ss, self.r(float(len(xs) - ddof)))

    def nan_to_num(self, x):
        """torch.nan_to_num(x, nan=0.0): NaN -> 0, +-inf -> +-(largest finite value)."""
        if math.isnan(x):
            return 0.0
        if math.isinf(x):
            return math.copysign(self.max, x)
        return x


def scale_exponent(r, eps):
    """k with max |r| 2^k in [1/2, 1) over the finite nonzero rewards (0 if none), capped so that
    eps 2^k <= 2^1000."""
    big = max((abs(x) for x in r if math.isfinite(x) and x != 0), default=0.0)
    if big == 0:
        return 0
    k = -math.frexp(big)[1]
    if eps > 0:
        k = min(k, 1000 - math.frexp(eps)[1])
    return k


# TRL, GRPOTrainer with scale_rewards="group" (1.10 development line):
#   mean = nanmean(r), std = nanstd(r) (std 0 for a group of one),
#   nanstd: var = nanmean((r - nanmean(r))^2) * (count/(count - 1)), the factor a float32 tensor,
#   A = nan_to_num((r - mean)/(std + 1e-4), nan=0).
def trl_group(A, r, k):
    eps = A.ldexp(A.r(1e-4), k)
    x = [A.ldexp(v, k) for v in r]
    scored = [v for v in x if not math.isnan(v)]
    n = len(scored)
    mean = A.div(A.sum(scored), A.r(float(n)))
    if len(x) > 1:
        sq = [d for d in (A.mul(A.sub(v, mean), A.sub(v, mean)) for v in x) if not math.isnan(d)]
        var = A.div(A.sum(sq), A.r(float(len(sq))))
        count = float(n)
        bessel = f32(count / (count - 1)) if n > 1 else (math.inf if n == 1 else -0.0)
        std = A.sqrt(A.mul(var, bessel))
    else:
        std = A.r(0.0)
    den = A.add(std, eps)
    return [A.nan_to_num(A.div(A.sub(v, mean), den)) for v in x]


# verl compute_grpo_outcome_advantage: ddof 1, (r - mean)/(std + 1e-6); a group of one is given
# mean 0 and std 1.
def verl_group(A, r, k):
    if len(r) == 1:
        return [A.div(r[0], A.add(A.r(1.0), A.r(1e-6)))]
    eps = A.ldexp(A.r(1e-6), k)
    x = [A.ldexp(v, k) for v in r]
    mean, std = A.mean(x), A.sqrt(A.var(x, 1))
    den = A.add(std, eps)
    return [A.div(A.sub(v, mean), den) for v in x]


# OpenRLHF group_norm: ddof 1, (r - mean)/(std + 1e-9); a group of one is refused.
def openrlhf_group(A, r, k):
    if len(r) == 1:
        raise Refuse("EDOM")
    eps = A.ldexp(A.r(1e-9), k)
    x = [A.ldexp(v, k) for v in r]
    mean, std = A.mean(x), A.sqrt(A.var(x, 1))
    den = A.add(std, eps)
    return [A.div(A.sub(v, mean), den) for v in x]


# Dr.GRPO: r - mean, no division.
def nostd_group(A, r, k):
    x = [A.ldexp(v, k) for v in r]
    mean = A.mean(x)
    return [A.ldexp(A.sub(v, mean), -k) for v in x]


# Seed 001 group_advantages: population std (ddof 0); (r - mean)/(sigma + eps) if sigma > eps,
# else exactly 0; eps = 1e-8.
def ddof0_group(A, r, k):
    eps = A.ldexp(A.r(1e-8), k)
    x = [A.ldexp(v, k) for v in r]
    mean, std = A.mean(x), A.sqrt(A.var(x, 0))
    if not std > eps:
        return [0.0] * len(x)
    den = A.add(std, eps)
    return [A.div(A.sub(v, mean), den) for v in x]


GROUP_FN = {"trl": trl_group, "verl": verl_group, "openrlhf": openrlhf_group,
            "no-std": nostd_group, "ddof0": ddof0_group}
EPS = {"trl": 1e-4, "verl": 1e-6, "openrlhf": 1e-9, "no-std": 0.0, "ddof0": 1e-8}


def reals(v):
    out = []
    for o in v:
        h = o["hex"] if isinstance(o, dict) else o
        if h in ("nan", "-nan"):
            out.append(math.nan)
        elif h in ("inf", "+inf"):
            out.append(math.inf)
        elif h == "-inf":
            out.append(-math.inf)
        elif isinstance(h, str):
            out.append(float.fromhex(h))
        else:
            out.append(float(h))
    return out


def candidate(convention, A, rewards, G, scale):
    if not isinstance(G, int) or G < 1 or len(rewards) == 0 or len(rewards) % G != 0:
        raise Refuse("EINVAL")
    if convention != "trl" and not all(math.isfinite(x) for x in rewards):
        raise Refuse("ENAN")
    r = [A.r(x) for x in rewards]
    adv = []
    for g in range(0, len(r), G):
        group = r[g:g + G]
        k = scale_exponent(group, EPS[convention]) if scale else 0
        a = GROUP_FN[convention](A, group, k)
        if any(math.isnan(x) for x in a):
            raise Refuse("ENAN")    # the library's NaN advantages, as the golden reads them
        adv.extend(a)
    return adv


def json_number(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def perturb_target(data, spec):
    """The tcId of the test of group VARIANT whose rewards are REWARDS (spec VARIANT/REWARDS)."""
    variant, _, rs = spec.partition("/")
    want = [float(x) for x in rs.split(",")] if rs else []
    for grp in data.get("testGroups", []):
        if grp.get("variant") != variant:
            continue
        for t in grp.get("tests", []):
            got = reals(t.get("inputs", {}).get("rewards", []))
            if len(got) == len(want) and all(a == b for a, b in zip(got, want)):
                return t["tcId"]
    return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("golden")
    ap.add_argument("convention", choices=CONVENTIONS)
    ap.add_argument("out")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    ap.add_argument("--scale", action="store_true",
                    help="scale the rewards (and eps) by a power of two first")
    ap.add_argument("--perturb", default=None, metavar="VARIANT/REWARDS")
    args = ap.parse_args(argv[1:])

    with open(args.golden) as fh:
        data = json.load(fh)
    target = None
    if args.perturb is not None:
        target = perturb_target(data, args.perturb)
        if target is None:
            print("candidates.py: no test of %s in %s" % (args.perturb, args.golden),
                  file=sys.stderr)
            return 2
    A = Arith(args.dtype)
    results = []
    for grp in data.get("testGroups", []):
        for t in grp.get("tests", []):
            ins = t.get("inputs", {})
            tcid = t["tcId"]
            try:
                adv = candidate(args.convention, A, reals(ins.get("rewards", [])),
                                ins.get("group_size"), args.scale)
            except Refuse as e:
                results.append({"tcId": tcid, "error": e.code})
                continue
            if tcid == target:
                if not adv or adv[0] == 0 or not math.isfinite(adv[0]):
                    print("candidates.py: the first advantage of tcId %d is %r; the "
                          "perturbation does not change it" % (tcid, adv[:1]), file=sys.stderr)
                    return 2
                adv[0] = adv[0] * (1 + 1e-9)
            results.append({"tcId": tcid, "outputs": {"adv": [json_number(a) for a in adv]}})
    with open(args.out, "w") as fh:
        json.dump({"results": results}, fh, indent=1)
        fh.write("\n")
    if target is not None:
        print("perturbed tcId %d" % target)
    print("%s: %d results (%s, %s%s)" % (args.out, len(results), args.convention, args.dtype,
                                        ", scaled" if args.scale else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
