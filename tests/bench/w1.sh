#!/bin/sh
# w1.sh W1BIN -- benchmark W1 (issue: the tiny LM): rlref's enumeration at
# 256 bits against mpmath's, measured in the same run; the values must agree
# to 40 digits.  Prints
#   W1 enumeration: rlref S s, mpmath S s, ratio Rx
#   W1 dynamic programming: rlref S s, ratio to enumeration Rx
# and the three values.
W1=${1:?usage: w1.sh path/to/w1}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$W1" > "$tmp/rlref" || exit 1
/usr/bin/python3 "$root/tests/bench/w1_mpmath.py" > "$tmp/mpmath" || exit 1
/usr/bin/python3 - "$tmp/rlref" "$tmp/mpmath" <<'PY'
import re, sys
from decimal import Decimal, getcontext
getcontext().prec = 60

def parse(path, method):
    for line in open(path):
        words = line.split()
        if words and words[0] == method:
            vals = dict(w.split("=", 1) for w in words[2:] if "=" in w)
            return float(words[1]), {k: Decimal(v) for k, v in vals.items()}
    sys.exit("w1: no '%s' line in %s" % (method, path))

t_enum, enum = parse(sys.argv[1], "rlref-enum")
t_dp, dp = parse(sys.argv[1], "rlref-dp")
t_mp, mp = parse(sys.argv[2], "mpmath")
bad = 0
for k in ("logZ", "kl", "estar"):
    for name, other in (("mpmath", mp), ("dynamic programming", dp)):
        rel = abs(enum[k] - other[k]) / abs(other[k])
        if rel > Decimal("1e-40"):
            print("W1 FAIL: %s differs from %s by %.2e relative" % (k, name, rel))
            bad += 1
print("W1 enumeration: rlref %.3f s, mpmath %.3f s, ratio %.0fx" % (t_enum, t_mp, t_mp / t_enum))
print("W1 dynamic programming: rlref %.5f s, ratio to enumeration %.0fx" % (t_dp, t_enum / t_dp))
for k, name in (("logZ", "log Z"), ("kl", "KL(pi*||pi_ref)"), ("estar", "E_pi*[r]")):
    print("  %-16s %s" % (name, format(enum[k], ".40e")))
print("  (all three agree with mpmath and with the DP to 40 digits)" if not bad else "")
sys.exit(1 if bad else 0)
PY
