#!/usr/bin/python3
"""test_planted.py RLREF -- what `rlref check` explains of implementations with one planted bug
each, and that it explains nothing of the same implementations without it.

Each implementation below is written from the formulas (FORMULAS.md, the golden's variant
descriptions), in plain Python floats, the way a user writes one: the correct form follows its
variant and gets no explanation (no false alarm); each planted bug is a one-line change, and
the checker must say what the code implements instead -- the variant, the departure in words,
and the outputs it concerns.  Inputs the golden rejects are rejected (ValueError) as a careful
implementation does; the bugs do not touch that.

Prints "N passed, M failed" last; exits 1 when a test fails or none ran.
"""

import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir, "golden"))


# --- reading a golden's inputs ---------------------------------------------------------------

def value(x):
    """A golden input as Python: {"dec", "hex"} -> float, int -> int, list -> list."""
    if isinstance(x, list):
        return [value(e) for e in x]
    if isinstance(x, dict):
        h = x["hex"]
        return float(h) if h in ("nan", "inf", "-inf") else float.fromhex(h)
    return x


def finite(*arrays):
    for a in arrays:
        if not all(math.isfinite(x) for x in a):
            raise ValueError("a NaN or infinite input")


def same_length(*arrays):
    if not arrays[0] or any(len(a) != len(arrays[0]) for a in arrays):
        raise ValueError("empty, or lengths that do not fit")


# --- implementations, each with its planted bugs -----------------------------------------------

def softplus(x):
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def sigmoid(x):
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def dpo_sigmoid(inp, bug=None):
    """DPO-LOSS sigmoid: l = softplus(-beta D), the mean over the pairs (13.21)."""
    lw, ll, rw, rl = (value(inp[k]) for k in ("logp_w", "logp_l", "ref_w", "ref_l"))
    beta = value(inp["beta"]) if "beta" in inp else 0.1
    same_length(lw, ll, rw, rl)
    finite(lw, ll, rw, rl, [beta])
    if not beta > 0:
        raise ValueError("beta must be > 0")
    B = len(lw)
    b = 1.0 if bug == "beta forgotten" else beta
    D = [(lw[i] - rw[i]) - (ll[i] - rl[i]) for i in range(B)]
    losses = [softplus(-b * d) for d in D]
    gw = [-b * sigmoid(-b * d) / B for d in D]
    sign = -1.0 if bug == "sign" else 1.0
    return {"loss": sign * math.fsum(losses) / B, "losses": [sign * x for x in losses],
            "grad_w": [sign * g for g in gw], "grad_l": [-sign * g for g in gw],
            "reward_w": [beta * (lw[i] - rw[i]) for i in range(B)],
            "reward_l": [beta * (ll[i] - rl[i]) for i in range(B)]}


def grpo_openrlhf(inp, bug=None):
    """GRPO-ADV openrlhf: (r - mean)/(std + 1e-9), ddof 1, a group of one refused; the rewards
    scaled by a power of two so that no square overflows."""
    rewards, G = value(inp["rewards"]), inp.get("group_size", len(inp["rewards"]))
    if not rewards or G < 2 or len(rewards) % G:
        raise ValueError("the rewards do not make whole groups of two or more")
    finite(rewards)
    ddof = 0 if bug == "ddof 0" else 1
    out = []
    for g in range(0, len(rewards), G):
        group = rewards[g:g + G]
        s = math.ldexp(1.0, math.frexp(max(map(abs, group)))[1] - 1)
        group = [r / s for r in group]
        mean = math.fsum(group) / G
        var = math.fsum((r - mean) ** 2 for r in group) / (G - ddof)
        if bug == "eps in sqrt":
            out += [(r - mean) / math.sqrt(var + 1e-9 / s / s) for r in group]
        else:
            out += [(r - mean) / (math.sqrt(var) + 1e-9 / s) for r in group]
    return {"adv": out}


def kl_inputs(inp):
    lp, rp = value(inp["logp"]), value(inp["ref_logp"])
    same_length(lp, rp)
    finite(lp, rp)
    return lp, rp


def kl_k3(inp, bug=None):
    """KL-K3 stable: k3 = e^-l - 1 + l, its gradient 1 - e^-l."""
    lp, rp = kl_inputs(inp)
    ls = [a - b for a, b in zip(lp, rp)]
    if bug == "k2 for k3":
        return {"k": [l * l / 2 for l in ls], "grad": list(ls)}
    return {"k": [math.expm1(-l) + l for l in ls], "grad": [-math.expm1(-l) for l in ls]}


def kl_k1_plain(inp, bug=None):
    """KL-K1 plain: k1 = l (the value only)."""
    lp, rp = kl_inputs(inp)
    if bug == "probabilities":
        return {"k": [math.exp(a) - math.exp(b) for a, b in zip(lp, rp)]}
    return {"k": [a - b for a, b in zip(lp, rp)]}


def kl_k1_straight(inp, bug=None):
    """KL-K1 straight-through: the value of k1, the gradient of k2 (k1.detach() + k2 -
    k2.detach())."""
    lp, rp = kl_inputs(inp)
    ls = [a - b for a, b in zip(lp, rp)]
    if bug == "stop-gradient missing":       # k1 + k2 - k2.detach(): k1's gradient added
        return {"k": list(ls), "grad": [1 + l for l in ls]}
    return {"k": list(ls), "grad": list(ls)}


def agg_seq_mean_token_mean(inp, bug=None):
    """GRPO-AGG seq-mean-token-mean: (1/B) sum_i (1/n_i) sum_t L_t over the counted tokens (a
    sequence without one weighs 0 and counts in B)."""
    L, lens, mask = value(inp["L"]), inp["lens"], inp["mask"]
    if not lens or sum(lens) != len(L) or len(mask) != len(L) or any(n < 0 for n in lens):
        raise ValueError("lengths that do not fit")
    if any(m not in (0, 1) for m in mask):
        raise ValueError("a mask entry other than 0 or 1")
    finite(L)
    B, w, at = len(lens), [0.0] * len(L), 0
    for n in lens:
        count = sum(mask[at:at + n])
        for t in range(at, at + n):
            if mask[t]:
                per_token = 1.0 if bug == "1/|y| missing" else 1.0 / count
                w[t] = per_token / (1 if bug == "sum for mean" else B)
        at += n
    return {"value": math.fsum(wt * x for wt, x in zip(w, L)), "weights": w}


def ppo_plain(inp, bug=None):
    """PPO-CLIP plain: s = min(rho A, clip(rho, 0.8, 1.2) A), loss = -the token mean; no
    clip fraction given (a partial candidate)."""
    lp, old, A, mask = (value(inp[k]) for k in ("logp", "old_logp", "adv", "mask"))
    same_length(lp, old, A, mask)
    finite(lp, old, A)
    lo = 1 - (value(inp["eps_low"]) if "eps_low" in inp else 0.2)
    hi = 1 + (value(inp["eps_high"]) if "eps_high" in inp else 0.2)
    if any(m not in (0, 1) for m in mask) or not any(mask):
        raise ValueError("a mask of 0 and 1 with a counted token")
    pick = max if bug == "max for min" else min
    N = sum(mask)
    rho = [math.exp(a - b) for a, b in zip(lp, old)]
    s, grad = [], []
    for r, a, m in zip(rho, A, mask):
        unclipped, clipped = r * a, min(max(r, lo), hi) * a
        st = pick(unclipped, clipped)
        s.append(st if m else 0.0)
        active = unclipped == st
        grad.append(-a * r / N if m and active else 0.0)
    return {"loss": -math.fsum(x for x in s) / N, "surrogate": s, "ratio": rho, "grad": grad}


# (golden, the part implemented, implementation, bug, --variant, expected line regex): a bug
# of None expects no explanation and the variant named first.  The candidate answers the tests
# of that part (a candidate answers what it implements).
SCENARIOS = [
    ("DPO-LOSS", "pair-loss", dpo_sigmoid, None, None, r"^Candidate follows: sigmoid(;|$)"),
    ("DPO-LOSS", "pair-loss", dpo_sigmoid, "beta forgotten", None,
     r"^Explained: loss, losses, grad_w, grad_l follow sigmoid with beta = 1 in place of 0\.1;"
     r" reward_w, reward_l follow sigmoid$"),
    ("DPO-LOSS", "pair-loss", dpo_sigmoid, "sign", None,
     r"^Explained: loss, losses, grad_w, grad_l follow sigmoid times -1 \(the sign flipped\);"
     r" reward_w, reward_l follow sigmoid$"),
    ("GRPO-ADV", "advantage", grpo_openrlhf, None, None, r"^Candidate follows: openrlhf(;|$)"),
    ("GRPO-ADV", "advantage", grpo_openrlhf, "ddof 0", None,
     r"^Explained: the candidate follows openrlhf with ddof 0 in place of 1"),
    ("GRPO-ADV", "advantage", grpo_openrlhf, "eps in sqrt", None,
     r"^Explained: the candidate follows openrlhf with .*inside the square root"),
    ("KL-K3", "estimator", kl_k3, None, None, r"^ *Candidate follows(: | the convention )stable"),
    ("KL-K3", "estimator", kl_k3, "k2 for k3", None,
     r"^ *Explained: the candidate gives the values of KL-K2 variant plain"),
    ("KL-K1", "estimator", kl_k1_plain, None, None, r"^Candidate follows: plain(;|$)"),
    ("KL-K1", "estimator", kl_k1_plain, "probabilities", "plain",
     r"^Explained: the candidate follows plain with probabilities e\^x read in place of the "
     r"log-probabilities"),
    ("KL-K1", "estimator", kl_k1_straight, None, None, r"^Candidate follows: straight-through(;|$)"),
    ("KL-K1", "estimator", kl_k1_straight, "stop-gradient missing", "straight-through",
     r"^Explained: .*straight-through with .*stop-gradient"),
    ("GRPO-AGG", "aggregate", agg_seq_mean_token_mean, None, None,
     r"^ *Candidate follows: seq-mean-token-mean(;|$)"),
    ("GRPO-AGG", "aggregate", agg_seq_mean_token_mean, "sum for mean", "seq-mean-token-mean",
     r"^ *Explained: the candidate follows seq-mean-token-mean with every output times the "
     r"number of lens elements \(a sum in place of a mean over them\)"),
    ("GRPO-AGG", "aggregate", agg_seq_mean_token_mean, "1/|y| missing", "seq-mean-token-mean",
     r"^ *Explained: the candidate follows variant seq-mean-token-sum"),
    ("PPO-CLIP", "clip", ppo_plain, None, None, r"^Candidate follows: plain(;|$)"),
    ("PPO-CLIP", "clip", ppo_plain, "max for min", "plain",
     r"^Explained: the candidate follows plain with max in place of min"),
]


def candidate(formula, part, fn, bug):
    """The candidate file of FN (with BUG) on every test of PART of golden FORMULA."""
    with open(os.path.join(GOLDEN, formula + ".json"), encoding="utf-8") as f:
        g = json.load(f)
    results = []
    for grp in g["testGroups"]:
        if grp.get("part") != part:
            continue
        for t in grp["tests"]:
            try:
                out = fn(t["inputs"], bug)
            except (ValueError, KeyError, ZeroDivisionError, OverflowError) as e:
                results.append({"tcId": t["tcId"], "error": "%s: %s" % (type(e).__name__, e)})
                continue

            def enc(x):
                if isinstance(x, list):
                    return [enc(e) for e in x]
                if math.isnan(x):
                    return "nan"
                return ("inf" if x > 0 else "-inf") if math.isinf(x) else x
            results.append({"tcId": t["tcId"], "outputs": {k: enc(v) for k, v in out.items()}})
    return {"results": results}


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: test_planted.py RLREF")
    rlref = sys.argv[1]
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="planted.") as tmp:
        for formula, part, fn, bug, variant, want in SCENARIOS:
            path = os.path.join(tmp, "c.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(candidate(formula, part, fn, bug), f)
            cmd = [rlref, "check", os.path.join(GOLDEN, formula + ".json"), path]
            if variant:
                cmd += ["--variant", variant]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            text = p.stdout.decode("utf-8", "replace")
            what = "%s %s%s" % (formula, fn.__name__, " with %s" % bug if bug else " (correct)")
            ok = re.search(want, text, re.M) is not None
            if bug is None:
                # no false alarm: the variant named, nothing explained, exit 0 or the
                # convention but for numerically demanding cases
                ok = ok and not re.search(r"^ *(Explained|Unexplained):", text, re.M)
            else:
                ok = ok and p.returncode == 1
            if ok:
                passed += 1
                print("ok   " + what)
            else:
                failed += 1
                print("FAIL " + what + ": want /%s/, exit %d; the report ends:" % (
                    want, p.returncode))
                for line in text.splitlines()[-8:]:
                    print("     " + line)
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
