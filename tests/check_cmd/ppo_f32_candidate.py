#!/usr/bin/python3
"""ppo_f32_candidate.py GOLDEN STYLE -- a candidate for `rlref check`: the clipped surrogate of
PPO (PPO-CLIP, PPO-DUALCLIP) or advantage whitening (PPO-WHITEN) on every input of GOLDEN,
computed the way STYLE's torch code runs in float32 (trl, verl or openrlhf), each tensor
operation rounded to binary32 with struct, written without reading rlref's code.

  clip:    l = logp - old (verl, openrlhf: clamped to [-20, 20]; trl: 0 at a masked token,
           both log-probabilities being INVALID_LOGPROB there), rho = exp(l),
           pg = max(-A rho, -A clip(rho, 1 - eps_low, 1 + eps_high)), verl's dual clip
           min(pg, -c A) for A < 0 (c = clip_ratio_c, 3 or a test's); loss = sum(mask pg)/N;
           d loss/d logp through autograd.
  whiten:  masked mean; masked variance over N (openrlhf) or times N/(N - 1) (trl, verl);
           (x - mean) * rsqrt(var + eps) (openrlhf: rsqrt(max(var, eps))); trl zeroes the
           masked positions; verl's masked sums leave a masked term out (even an inf).
A row is summed as torch 1.13's CPU kernel sums it (observed on torch): up to 7 terms into
four accumulators a_j += x[4k + j], the rest into a_0, then ((a_0 + a_1) + a_2) + a_3.
An input the library would turn into inf or NaN is answered with an error (ERANGE), a bad
mask or length with the status the golden expects (EDOM, EINVAL), a non-finite input ENAN."""
import json
import math
import struct
import sys


class Refused(Exception):
    pass


def f32(x):
    """x rounded to binary32 (+-inf beyond its range)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def exp32(x):
    try:
        return f32(math.exp(x))
    except OverflowError:
        return math.inf


def torch_sum(xs):
    """torch's float32 sum of a short row (up to 7 terms; longer rows left to right)."""
    xs = list(xs)
    if len(xs) > 7:
        s = 0.0
        for x in xs:
            s = f32(s + x)
        return s
    a = [0.0] * 4
    m = len(xs) - len(xs) % 4
    for i in range(0, m, 4):
        for j in range(4):
            a[j] = f32(a[j] + xs[i + j])
    for x in xs[m:]:
        a[0] = f32(a[0] + x)
    return f32(f32(f32(a[0] + a[1]) + a[2]) + a[3])


def real(x):
    """A golden real: its exact binary64 "hex" field."""
    h = x["hex"]
    return float(h) if h in ("nan", "inf", "-inf") else float.fromhex(h)


def reals(inputs, name):
    v = [real(x) for x in inputs[name]]
    if not all(map(math.isfinite, v)):
        raise Refused("ENAN")
    return v


def scalar(inputs, params, name, default):
    x = inputs.get(name, params.get(name))
    return default if x is None else (real(x) if isinstance(x, dict) else float(x))


def checked_mask(mask, n):
    if n == 0 or len(mask) != n:
        raise Refused("EINVAL")
    if any(m not in (0, 1) for m in mask) or sum(mask) == 0:
        raise Refused("EDOM")
    return sum(mask)


def clip(inputs, params, style):
    logp, old, adv = reals(inputs, "logp"), reals(inputs, "old_logp"), reals(inputs, "adv")
    mask = inputs["mask"]
    if not len(logp) == len(old) == len(adv):
        raise Refused("EINVAL")
    n = checked_mask(mask, len(logp))
    el = scalar(inputs, params, "eps_low", 0.2)
    eh = scalar(inputs, params, "eps_high", 0.2)
    if not (0 <= el < 1 and eh >= 0):
        raise Refused("EDOM")
    lo, hi, g = f32(1 - el), f32(1 + eh), f32(1.0 / n)
    c = f32(scalar(inputs, params, "c", 3.0))   # verl's clip_ratio_c (a test's c)
    terms, surrogate, ratio, grad, clipped = [], [], [], [], 0
    for lp, ol, a, m in zip(logp, old, adv, mask):
        a = f32(a)
        if style == "trl" and not m:
            l = 0.0                     # INVALID_LOGPROB - INVALID_LOGPROB
        else:
            l = f32(f32(lp) - f32(ol))
        lc = l if style == "trl" else max(-20.0, min(20.0, l))
        rho = exp32(lc)
        if math.isinf(rho):
            raise Refused("ERANGE")
        pg1, pg2 = f32(-a * rho), f32(-a * max(lo, min(hi, rho)))
        pg, active = max(pg1, pg2), pg1 >= pg2
        if style == "verl" and a < 0 and f32(-a * c) < pg:
            pg, active = f32(-a * c), False
        active = active and lc == l
        ratio.append(rho)
        if not m:
            if math.isinf(pg) and style != "verl":
                raise Refused("ERANGE")     # inf * 0: the loss is NaN
            pg = 0.0                        # verl's masked_sum: torch.where(mask, x, 0)
        surrogate.append(-pg * m + 0.0)
        grad.append(f32(f32(g * -a) * rho) * active + 0.0 if m else 0.0)
        terms.append(pg * m)
        clipped += m and pg2 > pg1
    total = torch_sum(terms)
    if not math.isfinite(total):
        raise Refused("ERANGE")
    return {"loss": f32(total / n), "surrogate": surrogate, "ratio": ratio, "grad": grad,
            "clipfrac": f32(clipped / n)}


def whiten(inputs, params, style):
    x = [f32(v) for v in reals(inputs, "values")]
    mask = inputs["mask"]
    n = checked_mask(mask, len(x))
    eps = scalar(inputs, params, "eps", 1e-8)
    if eps < 0 or (style != "openrlhf" and n < 2):
        raise Refused("EDOM")
    s1 = torch_sum(v * m for v, m in zip(x, mask))
    mean = f32(s1 / n)
    d = [f32(v - mean) for v in x]
    # verl's masked sum leaves a masked term out
    s2 = torch_sum(f32(e * e) * m if m or style != "verl" else 0.0 for e, m in zip(d, mask))
    var = f32(s2 / n)
    if style == "openrlhf":
        scale = f32(math.sqrt(max(var, f32(eps))))
    else:
        var = f32(var * f32(n / (n - 1)))
        scale = f32(math.sqrt(f32(var + f32(eps))))
    if scale == 0:
        raise Refused("EDOM")
    r = f32(1 / scale)
    w = [0.0 if style == "trl" and not m else f32(e * r) for e, m in zip(d, mask)]
    if not all(map(math.isfinite, w + [var, s1])):
        raise Refused("ERANGE")
    return {"whitened": w, "mean": mean, "std": f32(math.sqrt(var)), "scale": scale}


def main(argv):
    golden, style = json.load(open(argv[1])), argv[2]
    kind = whiten if golden["formula"] == "PPO-WHITEN" else clip
    results = []
    for group in golden["testGroups"]:
        for t in group["tests"]:
            try:
                results.append({"tcId": t["tcId"],
                                "outputs": kind(t["inputs"], group.get("params", {}), style)})
            except Refused as e:
                results.append({"tcId": t["tcId"], "error": str(e)})
            except (KeyError, TypeError, ValueError):
                results.append({"tcId": t["tcId"], "error": "EINVAL"})
    json.dump({"results": results}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
