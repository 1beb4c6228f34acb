#!/bin/sh
# ppo_clip.sh PPOBIN -- benchmark of the PPO clipped surrogate: rlref's
# binary64 batch kernel rlref_ppo_clip_batch (one thread) against PyTorch
# (CPU, float64, autograd) from Debian, in the same run, on the same bytes,
# each the best of several runs.  Prints one line as W3 does, and the
# largest difference from torch's values.  A missing torch is skipped with
# a message.
BIN=${1:?usage: ppo_clip.sh path/to/ppo_clip}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN" "$tmp" > "$tmp/ppo" || exit 1
/usr/bin/python3 "$root/tests/bench/ppo_clip_torch.py" "$tmp" > "$tmp/ppopt" || exit 1
/usr/bin/python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]

def fields(name):
    w = open(d + "/" + name).read().split()
    if len(w) >= 3 and w[2] == "missing:":
        return {"missing": " ".join(w)}
    return dict(zip(w[1::2], w[2::2]))

r, p = fields("ppo"), fields("ppopt")
what = "PPO clipped surrogate loss and gradient, 10^7 tokens, eps 0.2, binary64"
t = float(r["rlref"])
if "missing" in p:
    print("%s: rlref %.4f s; torch skipped (%s)" % (what, t, p["missing"]))
else:
    q, q0 = float(p["torch"]), float(p["torchdefault"])
    print("%s: rlref %.4f s (1 thread), torch %.4f s (2 threads), ratio %.1fx"
          % (what, t, q, q / t))
    print("  torch on its default %s thread(s) %.4f s, ratio %.1fx; clip fraction %s"
          % (p["defthreads"], q0, q0 / t, r["clipfrac"]))
    print("  largest difference from torch: %s (relative, of a nonzero gradient element; "
          "%s elements zero in one only); loss %s" % (p["maxdiff"], p["zeros"], p["lossdiff"]))
PY
