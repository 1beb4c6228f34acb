#!/usr/bin/python3
"""naive.py RLREF [GOLDEN_DIR] -- the goldens catch the naive forms people
write.  Each candidate below is a textbook-naive binary64 implementation
(plain Python floats, IEEE overflow to inf emulated); `rlref check` must
fail it, and only on the cases whose flags name the weakness: the golden
files pinpoint a numerically unstable change."""
import json
import math
import os
import subprocess
import sys
import tempfile


def exp(x):
    """IEEE exp: inf on overflow, as C and numpy give it."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def div(a, b):
    """IEEE division: inf/inf and 0/0 are NaN."""
    if math.isinf(a) and math.isinf(b) or (a == 0 and b == 0):
        return math.nan
    return a / b


def log(x):
    return math.inf if math.isinf(x) else math.log(x)


def real(o):
    h = o["hex"]
    return float(h) if h in ("nan", "inf", "-inf") else float.fromhex(h)


def bt_naive(inp, params):
    """(13.5) as printed: e^rw / (e^rw + e^rl)."""
    rw, rl = real(inp["rw"]), real(inp["rl"])
    return {"p": div(exp(rw), exp(rw) + exp(rl))}


def rm_loss_naive(inp, params):
    """(13.7) with log(1 + e^(rl - rw)) and 1/(1 + e^(rw - rl)) as written: log(1 + x)
    drops x below 1e-16 (a saturated loss) and overflows for large x."""
    rw = [real(x) for x in inp["rw"]]
    rl = [real(x) for x in inp["rl"]]
    c = real(params["c"])
    B = len(rw)
    loss = sum(log(1 + exp(l - w)) + c * (w + l) ** 2 for w, l in zip(rw, rl)) / B
    grad_rw = [(-1 / (1 + exp(w - l)) + 2 * c * (w + l)) / B for w, l in zip(rw, rl)]
    grad_rl = [(1 / (1 + exp(w - l)) + 2 * c * (w + l)) / B for w, l in zip(rw, rl)]
    return {"loss": loss, "grad_rw": grad_rw, "grad_rl": grad_rl}


def ensemble_onepass(inp, params):
    """Variance as E[x^2] - E[x]^2, in one pass."""
    x = [real(v) for v in inp["scores"]]
    ddof, lam, K = params["ddof"], real(params["lambda"]), len(x)
    if "lambda" in inp:
        lam = real(inp["lambda"])
    mean = sum(x) / K
    var = (sum(v * v for v in x) - K * mean * mean) / (K - ddof)
    std = math.sqrt(var) if var >= 0 else math.nan
    return {"mean": mean, "var": var, "std": std, "penalized": mean - lam * std,
            "penalized_var": mean - lam * var}


def adv_seed000_naive(inp, params):
    """13.23 with the branch std > 0 tested on a computed std."""
    r = [real(v) for v in inp["rewards"]]
    G = inp["group_size"]
    out = []
    for g in range(0, len(r), G):
        grp = r[g:g + G]
        mean = sum(grp) / G
        std = math.sqrt(sum((v - mean) ** 2 for v in grp) / G)
        out += [(v - mean) / std if std > 0 else 0.0 for v in grp]
    return {"adv": out}


CASES = [
    # file, variant, implementation, flags that may fail
    ("PREF-BT", "stable", bt_naive, {"Extreme"}),
    ("PREF-RM-LOSS", "plain", rm_loss_naive, {"NaiveOverflow", "Extreme", "Saturated"}),
    ("PREF-ENSEMBLE", "ddof1", ensemble_onepass, {"LargeOffset"}),
    ("GRPO-ADV", "seed-000", adv_seed000_naive, {"ZeroVariance", "RangeScaling", "ExactSum"}),
]


def number(v):
    return v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))


def candidate(golden, variant, impl):
    results = []
    for group in golden["testGroups"]:
        if group["variant"] != variant:
            continue
        for t in group["tests"]:
            if t["result"] == "invalid":
                results.append({"tcId": t["tcId"], "error": "rejected"})
                continue
            try:
                out = impl(t["inputs"], group["params"])
            except (ZeroDivisionError, ValueError, OverflowError) as e:
                results.append({"tcId": t["tcId"], "error": str(e)})
                continue
            results.append({"tcId": t["tcId"], "outputs": {
                k: [number(x) for x in v] if isinstance(v, list) else number(v)
                for k, v in out.items()}})
    return {"results": results}


def run_case(rlref, root, name, variant, impl, allowed):
    """One naive form: True when `rlref check` fails it on flagged cases only."""
    path = os.path.join(root, name + ".json")
    with open(path) as fh:
        golden = json.load(fh)
    flags = {t["tcId"]: set(t["flags"]) for g in golden["testGroups"] for t in g["tests"]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(candidate(golden, variant, impl), f)
    try:
        r = subprocess.run([rlref, "check", path, f.name, "--variant", variant],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    failing = {int(line.split()[2]) for line in r.stdout.splitlines()
               if line.startswith("FAIL tcId")}
    stray = [t for t in failing if not flags.get(t, set()) & allowed]
    ok = r.returncode == 1 and bool(failing) and not stray
    print("%s %s [%s] (%s): check exit %d, fails tcIds %s%s"
          % ("ok  " if ok else "FAIL", name, variant, impl.__name__, r.returncode,
             sorted(failing), ", not flagged %s: %s" % (sorted(allowed), stray) if stray else ""))
    return ok


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__ + "\n")
        print("0 passed, 1 failed")
        return 2
    rlref = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else "golden"
    passed = failed = 0
    for name, variant, impl, allowed in CASES:
        try:
            ok = run_case(rlref, root, name, variant, impl, allowed)
        except (OSError, ValueError, KeyError) as e:
            print("FAIL %s [%s] (%s): %s: %s"
                  % (name, variant, impl.__name__, type(e).__name__, e))
            ok = False
        passed += ok
        failed += not ok
    print("naive forms caught: %d of %d" % (passed, len(CASES)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
