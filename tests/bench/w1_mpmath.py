#!/usr/bin/python3
"""Benchmark W1 in mpmath: the same enumeration that `rlref lm oracles/models/w1.json` times,
written as a user of mpmath would, for the ratio printed by `make bench`.

The model: a bigram language model with V = 6 tokens, token 5 = EOS, maximum length T = 8;
a sequence ends at its first EOS or is cut after 8 tokens, and a cut sequence counts as an
outcome with its prefix probability (488,281 outcomes).  Next-token logits after token p
(p = 6 at the start):  logit(a | p) = ((3p + 5a) mod 7)/4 - 3/4.  Reward r(y) = (number of
tokens equal to 1) - len(y)/4, len counting every emitted token, EOS included.  beta = 1/2.

Printed, at 256 bits (mp.prec = 256), by enumerating every outcome:
    log Z             Z = sum_y pi_ref(y) e^{r(y)/beta}                         (000 eq. 13.15)
    KL(pi*||pi_ref)   = E*[r]/beta - log Z, from log pi*/pi_ref = r/beta - log Z (13.17)
    E*[r]             = sum_y pi_ref(y) e^{r(y)/beta} r(y) / Z

How: the log-softmax of each of the 7 rows is computed once, and with it, for every (state,
token), the factor pi_ref(a | p) e^{c(a)/beta}, c(a) = [a = 1] - 1/4 the reward of one token.
The prefixes are walked depth first, each carrying the product of its factors (its weight
pi_ref e^{R/beta}) and 4R as an integer (rewards are multiples of 1/4: exact); every outcome
adds its weight w to Z and 4r w to the second sum: one multiplication per outcome, two
additions, one product by a small integer.

Usage:  /usr/bin/python3 tests/bench/w1_mpmath.py [--prec BITS] [--digits N]
Prints one line:  mpmath S s logZ=... kl=... estar=...  (N = 45 significant digits by default;
S the wall-clock seconds of the computation, the import of mpmath excluded).  Exit status 0,
1 when the number of outcomes is not 488,281, 2 for a usage error.
"""

import sys
import time

from mpmath import mp, mpf

V, EOS, T, START = 6, 5, 8, 6
BETA = mpf(1) / 2
OUTCOMES = sum(5 ** t for t in range(T)) + 5 ** T          # 97,656 ended + 390,625 cut


def logit(a, p):
    """((3p + 5a) mod 7)/4 - 3/4: exact in binary."""
    return mpf((3 * p + 5 * a) % 7) / 4 - mpf(3) / 4


def w1():
    """(log Z, KL(pi*||pi_ref), E*[r], number of outcomes) by enumeration."""
    dk = [3 if a == 1 else -1 for a in range(V)]           # 4 c(a)
    factor = []                                            # factor[p][a] = pi(a|p) e^{c(a)/beta}
    for p in range(V + 1):
        row = [logit(a, p) for a in range(V)]
        lse = mp.log(mp.fsum(mp.exp(x) for x in row))
        factor.append([mp.exp(row[a] - lse + mpf(dk[a]) / 4 / BETA) for a in range(V)])
    acc = [mpf(0), mpf(0), 0]                              # sum w, sum 4r w, outcomes

    def walk(p, depth, w, k):
        """Every continuation of a prefix in state p with `depth` tokens, weight w, 4R = k."""
        row = factor[p]
        last = depth + 1 == T
        for a in range(V):
            wa = w * row[a]
            ka = k + dk[a]
            if a == EOS or last:
                acc[0] += wa
                acc[1] += wa * ka
                acc[2] += 1
            else:
                walk(a, depth + 1, wa, ka)

    walk(START, 0, mpf(1), 0)
    Z, ZR4, n = acc
    logZ = mp.log(Z)
    estar = ZR4 / 4 / Z
    return logZ, estar / BETA - logZ, estar, n


def main(argv):
    prec, digits = 256, 45
    args = argv[1:]
    try:
        while args:
            opt = args.pop(0)
            if opt == "--prec":
                prec = int(args.pop(0))
            elif opt == "--digits":
                digits = int(args.pop(0))
            else:
                raise ValueError(opt)
        if prec < 53 or digits < 1:
            raise ValueError("range")
    except (ValueError, IndexError):
        sys.stderr.write("usage: w1_mpmath.py [--prec BITS] [--digits N]\n")
        return 2
    mp.prec = prec
    t0 = time.perf_counter()
    logZ, kl, estar, n = w1()
    secs = time.perf_counter() - t0
    if n != OUTCOMES:
        sys.stderr.write("w1_mpmath: %d outcomes enumerated, the model has %d\n" % (n, OUTCOMES))
        return 1

    def fmt(x):
        return mp.nstr(x, digits, strip_zeros=False, min_fixed=-mp.inf, max_fixed=mp.inf)

    print("mpmath %.2f s logZ=%s kl=%s estar=%s" % (secs, fmt(logZ), fmt(kl), fmt(estar)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
