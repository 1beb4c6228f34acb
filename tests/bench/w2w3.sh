#!/bin/sh
# w2w3.sh W2BIN W3BIN -- benchmarks W2a, W2b and W3 (issue: a batch API):
# rlref's binary64 batch kernels against numpy and PyTorch (CPU, float64)
# from Debian, in the same run, on the same bytes (the C programs write the
# inputs to a temporary directory; each side times its compute only, the
# best of several runs).  Prints one line per workload:
#   W2a ...: rlref S s, numpy S s, ratio Rx, floor S s
# and the largest difference from the peer's values.  A missing peer is
# skipped with a message.
W2=${1:?usage: w2w3.sh path/to/w2 path/to/w3}
W3=${2:?usage: w2w3.sh path/to/w2 path/to/w3}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$W2" "$tmp" > "$tmp/w2" || exit 1
/usr/bin/python3 "$root/tests/bench/w2_numpy.py" "$tmp" > "$tmp/w2np" || exit 1
"$W3" "$tmp" > "$tmp/w3" || exit 1
/usr/bin/python3 "$root/tests/bench/w3_torch.py" "$tmp" > "$tmp/w3pt" || exit 1
/usr/bin/python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]

def lines(name):
    out = {}
    for line in open(d + "/" + name):
        w = line.split()
        if len(w) >= 3 and w[2] == "missing:":
            out["missing"] = line.strip()
        elif w and "path" in w:
            k = w.index("path")
            out[w[0]] = dict(zip(w[1:k:2], w[2:k:2]), path=" ".join(w[k + 1:]))
        elif w:
            out[w[0]] = dict(zip(w[1::2], w[2::2]))
    return out

w2, w2np, w3, w3pt = lines("w2"), lines("w2np"), lines("w3"), lines("w3pt")
for key, what in (("w2a", "W2a GRPO advantages, 10^6 groups of 16, ddof 0, eps 1e-8"),
                  ("w2b", "W2b sums of k1, k2, k3 over 1.6e7 log-ratios")):
    r, f, r1 = float(w2[key]["rlref"]), float(w2[key]["floor"]), float(w2[key]["rlref1"])
    if "missing" in w2np:
        print("%s: rlref %.4f s, floor %.4f s (%.1fx the floor); numpy skipped (%s)"
              % (what, r, f, r / f, w2np["missing"]))
        continue
    p = float(w2np[key]["numpy"])
    print("%s: rlref %.4f s, numpy %.4f s, ratio %.1fx, floor %.4f s (rlref %.2fx the floor)"
          % (what, r, p, p / r, f, r / f))
    if "path" in w2[key]:
        print("  rlref_kl_batch path: %s" % w2[key]["path"])
    print("  rlref on 2 threads; on 1: %.4f s, ratio %.1fx" % (r1, p / r1))
    print("  largest difference from numpy: %s %s"
          % (w2np[key]["maxdiff"], "(absolute)" if key == "w2a" else "(relative, of the sums)"))
for kind, what in (("gauss", "Gaussian"), ("heavy", "heavy-tailed, |r| in 1e-6..1e6")):
    for G in (16, 64):
        key = "w2r-%s-%d" % (kind, G)
        r, f, r1 = float(w2[key]["rlref"]), float(w2[key]["floor"]), float(w2[key]["rlref1"])
        fb, nq, ng = int(w2[key]["fallbacks"]), int(w2[key]["quads"]), 16000000 // G
        head = "W2a-real GRPO advantages, %s rewards, groups of %d" % (what, G)
        if "missing" in w2np:
            print("%s: rlref %.4f s, floor %.4f s (%.1fx the floor); numpy skipped (%s)"
                  % (head, r, f, r / f, w2np["missing"]))
            continue
        p = float(w2np[key]["numpy"])
        print("%s: rlref %.4f s, numpy %.4f s, ratio %.1fx, floor %.4f s (rlref %.2fx the "
              "floor)" % (head, r, p, p / r, f, r / f))
        print("  on 1 thread: rlref %.4f s, ratio %.1fx, %.2fx the floor; %d of %d groups done "
              "four at a time, %d fell back to the exact accumulator; largest difference from "
              "numpy %s (absolute)" % (r1, p / r1, r1 / f, nq, ng, fb, w2np[key]["maxdiff"]))
r, l = float(w3["w3"]["rlref"]), float(w3["w3"]["libm"])
e, path, r1 = float(w3["w3"]["exact"]), w3["w3"]["path"], float(w3["w3"]["rlref1"])
f, f1 = float(w3["w3"]["floor"]), float(w3["w3"]["floor1"])
what = "W3 DPO sigmoid loss and gradient, 10^6 pairs, binary64"
if "missing" in w3pt:
    print("%s: rlref %.4f s (%s), floor %.4f s (rlref %.2fx the floor); torch skipped (%s)"
          % (what, r, path, f, r / f, w3pt["missing"]))
else:
    p = float(w3pt["w3"]["torch"])
    p0 = float(w3pt["w3"]["torchdefault"])
    print("%s: rlref %.4f s, torch %.4f s, ratio %.1fx, floor %.4f s (rlref %.2fx the floor)"
          % (what, r, p, p / r, f, r / f))
    print("  both on 2 threads; rlref_dpo_sigmoid_batch_simd path: %s; torch / floor = %.1fx"
          " (no kernel reading the inputs and writing the gradients does better here)"
          % (path, p / f))
    print("  on 1 thread: rlref %.4f s, floor %.4f s (rlref %.2fx the floor); torch on its "
          "default %s thread(s) %.4f s, ratio %.1fx"
          % (r1, f1, r1 / f1, w3pt["w3"]["defthreads"], p0, p0 / r1))
    print("  largest difference from torch: %s (relative, of a gradient element); loss %s"
          % (w3pt["w3"]["maxdiff"], w3pt["w3"]["lossdiff"]))
print("  the bit-exact kernel rlref_dpo_loss_batch %.4f s; glibc exp + log1p alone %.4f s"
      % (e, l))
PY
