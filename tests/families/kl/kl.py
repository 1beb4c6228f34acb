"""The KL estimators, KL-K1, KL-K2, KL-K3, KL-VARIANTS, KL-EXACT and KL-GRAD (000 section 12.1,
eq. 13.26 and table 5; 001; CONVENTIONS.md "KL estimators"), from the definitions and, where a
group cites a library, from that library's code: TRL 1.10 grpo_trainer.py (k3 as
exp(ref - logp) - (ref - logp) - 1, use_bias_correction_kl) and experimental/ppo/ppo_trainer.py
(k3 as (logr.exp() - 1) - logr, logr = ref - logp), verl core_algos.py kl_penalty (low_var_kl's
two clamps, exp(kl) - kl - 1 in the inputs' dtype; the "+" names' straight-through
k2 - k2.detach() + k.detach(), NaN where k2 overflows), OpenRLHF 0.11 compute_approx_kl
(.float(), every estimator clamped to [-10, 10] afterwards).

For a token sampled from the policy, l = log pi - log pi_ref = logp - ref_logp (exact on the
binary64 inputs), and
    k1 = l,   k2 = l^2/2,   k3 = e^-l - 1 + l  (u - 1 - log u, u = e^-l, 13.26),   abs = |l|.
The gradient of a per-token value is d k / d logp, the reference held fixed; where a library
clamps, the gradient is PyTorch's: clamp passes it where min <= x <= max, else 0; exp's
backward multiplies by the result.  Binary32 conventions are emulated operation by operation,
every result rounded once to binary32 (xcore.f32), exp correctly rounded, a log-probability
beyond the binary32 range taken as the +-inf the float32 cast makes of it, IEEE's rules for
inf (inf - inf = NaN, 0 * inf = NaN in a backward pass); a convention refuses (ERANGE) where the
library's value or gradient is inf or NaN.  The binary64 emulation
of the naive part uses Python's IEEE doubles and a correctly rounded exp and expm1.

KL-EXACT sums over every outcome of a finite distribution (p/sum p), of a tabular tiny language
model (enumerated here), or integrates two Gaussians in closed form through the moments of a
quadratic in a standard normal z: E z^2m = (2m - 1)!!, and E exp(a z + b z^2) =
exp(a^2 / (2 (1 - 2b))) / sqrt(1 - 2b) for 1 - 2b > 0 (+inf otherwise).  The seeded Monte-Carlo
run replays GSL's MT19937 (gsl_rng_set's seeding) and gsl_ran_gaussian's polar method in Python.
KL-GRAD differentiates each estimator used as a loss, y ~ q with the sampling held fixed, by the
chain rule through d l_y / d theta_j = [y = j] - q_j (softmax) or grad log q(y) (tiny LM).
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import (qreal, Ctx, M, Reject, f32, f32_op, get_input, gsl_gaussian, gsl_mt19937,
                   nearest_double)


# ----------------------------------------------------------------------------------------------
# Reading inputs
# ----------------------------------------------------------------------------------------------

def real_arrays(inputs, params, names):
    """Arrays of one length n >= 1 of exact rationals."""
    arrs = []
    for n in names:
        a = get_input(inputs, params, n)
        if not isinstance(a, list):
            raise Reject("EINVAL", "%s is not an array" % n)
        arrs.append(a)
    n = len(arrs[0])
    for name, a in zip(names, arrs):
        if len(a) != n:
            raise Reject("EINVAL", "%s has %d entries, %s %d" % (name, len(a), names[0], n))
    if n == 0:
        raise Reject("EINVAL", "empty input")
    return [[qreal(v, "%s[%d]" % (name, i)) for i, v in enumerate(a)]
            for name, a in zip(names, arrs)]


def as_float(q):
    """A binary64 input as the double it is (a perturbed Fraction rounded to nearest)."""
    return float(q)


# ----------------------------------------------------------------------------------------------
# Exact elementary values
# ----------------------------------------------------------------------------------------------

def guard(x):
    """Extra bits for e^x - (terms of its series) near x = 0: the cancellation of the first terms."""
    if x == 0:
        return 0
    e = mp.mag(x)
    return max(0, -3 * e) + 20


def k3_of(l):
    """k3 = e^-l - 1 + l, evaluated as written with enough guard bits (l an mpf)."""
    with mp.workprec(mp.prec + guard(l)):
        return +(mp.exp(-l) - 1 + l)


def to_fraction(v):
    """The exact rational of a finite mpf."""
    man, exp = int(v.man), int(v.exp)
    if v < 0:
        man = -man
    return Fraction(man) * (Fraction(2) ** exp)


def exp_f32(x):
    """e^x correctly rounded to binary32, x a binary32 value (a float)."""
    if math.isnan(x):
        return x
    if x > 89.0:
        return math.inf
    if x < -110.0:
        return 0.0
    with mp.workprec(256):
        return f32(to_fraction(mp.exp(mpf(x))))


def exp_f64(x):
    """e^x correctly rounded to binary64, x a double."""
    if x > 710.0:
        return math.inf
    if x < -746.0:
        return 0.0
    with mp.workprec(256):
        return nearest_double(mp.exp(mpf(x)))


def expm1_f64(x):
    """e^x - 1 correctly rounded to binary64."""
    if x > 710.0:
        return math.inf
    with mp.workprec(256 + guard(mpf(x))):
        return nearest_double(mp.expm1(mpf(x)))


def ulp64(v):
    """The unit in the last place of the binary64 of magnitude |v| (mpf): 2^(E - 52) with
    2^E <= |v| < 2^(E + 1), E >= -1022; 2^-1074 for 0 and subnormal magnitudes."""
    if v == 0:
        return mpf(2) ** -1074
    m, e = mp.frexp(abs(v))         # |v| = m 2^e, 1/2 <= m < 1
    return mpf(2) ** (max(e, -1021) - 53)


# ----------------------------------------------------------------------------------------------
# Per-token estimators (KL-K1, KL-K2, KL-K3, KL-VARIANTS estimator part)
# ----------------------------------------------------------------------------------------------

def clamp_grad(x, lo, hi):
    """PyTorch's clamp backward: the gradient passes where lo <= x <= hi."""
    return lo <= x <= hi


DBL_MAX = float.fromhex("0x1.fffffffffffffp+1023")


def straight_through_value_ok(l):
    """verl's "+" value backward_score - backward_score.detach() + forward_score.detach(),
    backward_score = 0.5 * (logprob - ref_logprob).square(): inf - inf = NaN where the square
    overflows binary64 (rounds to inf: l^2 >= 2^1024 - 2^970)."""
    if l * l >= mpf(2) ** 1024 - mpf(2) ** 970:
        raise Reject("ERANGE", "l^2 overflows binary64: verl's straight-through value is NaN")


def token_exact(variant, l):
    """(k, dk/dlogp) of one token under an exact-arithmetic convention, l an mpf."""
    if variant.endswith("straight-through"):
        straight_through_value_ok(l)
    if variant in ("k1-plain", "k1-straight-through"):
        return l, (mpf(1) if variant == "k1-plain" else l)
    if variant == "k2-plain":
        return l * l / 2, l
    if variant == "k3-stable":
        return k3_of(l), -mp.expm1(-l)
    if variant in ("verl-low-var-kl", "k3-straight-through"):
        kl = -l                                       # verl: kl = ref_logprob - logprob
        inner = -20 <= kl <= 20
        c = max(mpf(-20), min(mpf(20), kl))
        v = k3_of(-c)                                 # e^c - c - 1
        outer = -10 <= v <= 10
        k = max(mpf(-10), min(mpf(10), v))
        if variant == "k3-straight-through":
            return k, l                               # backward of 0.5 (logprob - ref)^2
        g = -mp.expm1(c) if (inner and outer) else mpf(0)    # d/dlogp = -(e^c - 1)
        return k, g
    if variant == "abs":
        return abs(l), mpf(mp.sign(l))
    if variant == "abs-straight-through":
        return abs(l), l
    raise KeyError(variant)


def token_f32(variant, lp, rf):
    """(k, dk/dlogp) of one token as OpenRLHF, TRL or verl compute them in binary32: lp, rf are
    the binary32 log-probabilities (floats, +-inf beyond the binary32 range)."""
    if variant in ("k3-trl-float32", "k3-trl-ppo-float32", "k3-verl-float32"):
        d = f32_op("-", rf, lp)                       # ref - logp (TRL's logr, verl's kl)
        if math.isnan(d):
            raise Reject("ERANGE", "ref - logp is inf - inf in binary32")
        inner = True
        if variant == "k3-verl-float32":              # torch.clamp(kl, min=-20, max=20)
            inner = -20.0 <= d <= 20.0
            d = min(max(d, -20.0), 20.0)
        elif math.isinf(d):
            raise Reject("ERANGE", "ref - logp is infinite: TRL's k3 is inf or NaN")
        e = exp_f32(d)
        if math.isinf(e):
            raise Reject("ERANGE", "exp(ref - logp) overflows binary32: TRL's k3 is inf")
        if variant == "k3-trl-ppo-float32":
            k = f32_op("-", f32_op("-", e, 1.0), d)   # (logr.exp() - 1) - logr
        else:
            k = f32_op("-", f32_op("-", e, d), 1.0)   # exp(d) - d - 1, left to right
        g = -f32_op("-", e, 1.0)                      # d/dlogp = -(e - 1), accumulated in binary32
        if variant == "k3-verl-float32":              # torch.clamp(kld, min=-10, max=10)
            outer = -10.0 <= k <= 10.0
            k = min(max(k, -10.0), 10.0)
            if not (inner and outer):
                g = 0.0
        return mpf(k), mpf(g)
    lr = f32_op("-", lp, rf)                          # log_probs.float() - log_probs_base.float()
    if math.isnan(lr):
        raise Reject("ERANGE", "the log-ratio is inf - inf in binary32")
    if variant == "k1-openrlhf":
        k = min(max(lr, -10.0), 10.0)                 # +-inf clamped too, gradient 0
        return mpf(k), mpf(1 if clamp_grad(lr, -10.0, 10.0) else 0)
    if variant == "k2-openrlhf":
        if math.isinf(lr) or abs(lr) >= 2.0 ** 127:
            raise Reject("ERANGE", "2 l overflows binary32 in the backward pass: NaN gradient")
        half = f32_op("/", f32_op("*", lr, lr), 2.0)
        k = min(max(half, -10.0), 10.0)
        return mpf(k), mpf(lr if clamp_grad(half, -10.0, 10.0) else 0)
    if variant == "k3-openrlhf":
        if lr == -math.inf:
            raise Reject("ERANGE", "l = -inf: OpenRLHF's k3 is inf - inf = NaN")
        e = exp_f32(-lr)                              # exp(-inf) = 0 at l = +inf
        if math.isinf(e):
            raise Reject("ERANGE", "exp(-l) overflows binary32: OpenRLHF's gradient is NaN")
        v = f32_op("+", f32_op("-", e, 1.0), lr)      # (-l).exp() - 1 + l
        k = min(max(v, -10.0), 10.0)
        g = f32_op("-", 1.0, e) if clamp_grad(v, -10.0, 10.0) else 0.0
        return mpf(k), mpf(g)
    raise KeyError(variant)


F32_VARIANTS = {"k1-openrlhf", "k2-openrlhf", "k3-openrlhf", "k3-trl-float32",
                "k3-trl-ppo-float32", "k3-verl-float32"}

# golden variant name -> the convention it is, per formula
ESTIMATOR_VARIANTS = {
    "KL-K1": {"plain": "k1-plain", "straight-through": "k1-straight-through",
              "openrlhf": "k1-openrlhf"},
    "KL-K2": {"plain": "k2-plain", "openrlhf": "k2-openrlhf"},
    "KL-K3": {"stable": "k3-stable", "trl-float32": "k3-trl-float32",
              "trl-ppo-float32": "k3-trl-ppo-float32", "verl-low-var-kl": "verl-low-var-kl",
              "verl-float32": "k3-verl-float32", "openrlhf": "k3-openrlhf",
              "straight-through": "k3-straight-through"},
    "KL-VARIANTS": {"abs": "abs", "abs-straight-through": "abs-straight-through",
                    "verl-low-var-kl": "verl-low-var-kl", "verl-float32": "k3-verl-float32",
                    "openrlhf": "k3-openrlhf"},
}


def eval_tokens(formula, variant, params, inputs):
    conv = ESTIMATOR_VARIANTS[formula][variant]
    logp, ref = real_arrays(inputs, params, ["logp", "ref_logp"])
    ks, gs = [], []
    for i, (a, b) in enumerate(zip(logp, ref)):
        if conv in F32_VARIANTS:
            k, g = token_f32(conv, f32(a), f32(b))    # the float32 tensors: +-inf beyond range
        else:
            k, g = token_exact(conv, M(a - b))
            if math.isinf(nearest_double(k)) or math.isinf(nearest_double(g)):
                raise Reject("ERANGE", "the estimate or its gradient beyond binary64")
        ks.append(k)
        gs.append(g)
    return {"k": ks, "grad": gs}


def eval_bias_corrected(inputs, params):
    """TRL use_bias_correction_kl: k3 times coef_1 = exp(logp - old_logp), the ratio
    differentiable: d/dlogp [k3(l) rho] = k3'(l) rho + k3(l) rho (product rule)."""
    logp, ref, old = real_arrays(inputs, params, ["logp", "ref_logp", "old_logp"])
    ks, gs = [], []
    for a, b, c in zip(logp, ref, old):
        l = M(a - b)
        rho = mp.exp(M(a - c))
        k3 = k3_of(l)
        ks.append(k3 * rho)
        gs.append(-mp.expm1(-l) * rho + k3 * rho)
    return {"k": ks, "grad": gs}


def eval_naive(inputs, params):
    """The naive k3 = exp(-l) - 1 + l in binary64 against the exact k3 of the exact l, and the
    expm1 form expm1(-l) + l, both in ULPs of the exact value."""
    logp, ref = real_arrays(inputs, params, ["logp", "ref_logp"])
    out = {"k": [], "k_naive": [], "ulp_naive": [], "k_expm1": [], "ulp_expm1": []}
    for a, b in zip(logp, ref):
        lq = a - b
        k = k3_of(M(lq))
        if math.isinf(nearest_double(k)):
            raise Reject("ERANGE", "k3 beyond the binary64 range")
        l = as_float(a) - as_float(b)                  # rounded once, as a double program does
        kn = (exp_f64(-l) - 1.0) + l
        ke = expm1_f64(-l) + l
        u = ulp64(k)
        out["k"].append(k)
        out["k_naive"].append(mpf(kn))
        out["k_expm1"].append(mpf(ke))
        # x - k = (x + 1 - l) - e^-l, the first part an exact rational: e^-l is kept
        # however far below k's last place it lies (k = 699 + e^-700)
        for name, x in (("ulp_naive", kn), ("ulp_expm1", ke)):
            with mp.workprec(mp.prec + guard(M(lq)) + 64):
                d = M(Fraction(x) + 1 - lq) - mp.exp(-M(lq))
            out[name].append(d / u)
    return out


def eval_full(inputs, params):
    """KL over the whole vocabulary: p = e^logp / sum e^logp (the log-probabilities taken as
    the logits of a softmax), likewise the reference; kl = sum p (log p - log p_ref);
    grad_j = d kl / d logp_j through the softmax = sum_v (d kl/d log p_v)(delta_vj - p_j)."""
    logp, ref = real_arrays(inputs, params, ["logp", "ref_logp"])
    lp = [M(x) for x in logp]
    lr = [M(x) for x in ref]
    for name, v in (("logp", lp), ("ref_logp", lr)):
        s = mp.fsum(mp.exp(x) for x in v)
        if abs(s - 1) > mpf("1e-6"):
            raise Reject("EDOM", "%s is not normalised: sum e^x = %s" % (name, mp.nstr(s, 8)))
    zl = mp.log(mp.fsum(mp.exp(x) for x in lp))
    zr = mp.log(mp.fsum(mp.exp(x) for x in lr))
    a = [x - zl for x in lp]
    b = [x - zr for x in lr]
    p = [mp.exp(x) for x in a]
    kl = mp.fsum(pi * (ai - bi) for pi, ai, bi in zip(p, a, b))
    # d kl / d a_v = p_v (a_v - b_v) + p_v; d a_v / d logp_j = [v = j] - p_j
    dv = [pi * (ai - bi) + pi for pi, ai, bi in zip(p, a, b)]
    tot = mp.fsum(dv)
    grad = [dv[j] - p[j] * tot for j in range(len(p))]
    return {"kl": kl, "grad": grad}


def eval_k1(variant, params, inputs, ctx):
    return eval_tokens("KL-K1", variant, params, inputs)


def eval_k2(variant, params, inputs, ctx):
    return eval_tokens("KL-K2", variant, params, inputs)


def eval_k3(variant, params, inputs, ctx):
    if variant == "bias-corrected":
        return eval_bias_corrected(inputs, params)
    if variant == "naive":
        return eval_naive(inputs, params)
    return eval_tokens("KL-K3", variant, params, inputs)


def eval_variants(variant, params, inputs, ctx):
    if variant == "full":
        return eval_full(inputs, params)
    return eval_tokens("KL-VARIANTS", variant, params, inputs)


# ----------------------------------------------------------------------------------------------
# KL-EXACT: finite distributions
# ----------------------------------------------------------------------------------------------

NORM_TOL = Fraction(1, 10 ** 6)


def distribution(v, name):
    if any(x < 0 for x in v):
        raise Reject("EDOM", "%s has a negative entry" % name)
    s = sum(v, Fraction(0))
    if abs(s - 1) > NORM_TOL:
        raise Reject("EDOM", "%s sums to %s, not 1 within 1e-6" % (name, float(s)))
    return [x / s for x in v]


def moments_of(weights, values):
    """E and Var of values under weights (mpf lists; weights sum to 1)."""
    mean = mp.fsum(w * x for w, x in zip(weights, values))
    var = mp.fsum(w * (x - mean) ** 2 for w, x in zip(weights, values))
    return mean, var


def exact_outputs(w, k1, k2, k3, kl):
    """The outputs shared by the finite and the tiny-LM parts."""
    e1, v1 = moments_of(w, k1)
    e2, v2 = moments_of(w, k2)
    e3, v3 = moments_of(w, k3)
    return {"kl": kl, "e_k2": e2, "e_k3": e3, "bias_k2": e2 - kl, "var_k1": v1, "var_k2": v2,
            "var_k3": v3}


def eval_discrete(inputs, params):
    p, pr = real_arrays(inputs, params, ["p", "p_ref"])
    p = distribution(p, "p")
    pr = distribution(pr, "p_ref")
    for i, (a, b) in enumerate(zip(p, pr)):
        if a > 0 and b == 0:
            raise Reject("EDOM", "p_ref[%d] = 0 where p > 0: KL is infinite" % i)
    idx = [i for i in range(len(p)) if p[i] > 0]
    w = [M(p[i]) for i in idx]
    with mp.workprec(mp.prec + 40):
        ls = [mp.log(M(p[i])) - mp.log(M(pr[i])) for i in idx]
    k1 = ls
    k2 = [l * l / 2 for l in ls]
    k3 = [M(pr[i] / p[i]) - 1 + l for i, l in zip(idx, ls)]      # u - 1 - log u, u = p_ref/p
    kl = mp.fsum(wi * li for wi, li in zip(w, ls))
    out = exact_outputs(w, k1, k2, k3, kl)
    # E[k3] - KL = E_p[u] - 1 = (mass of p_ref where p > 0) - 1, exactly
    out["bias_k3"] = M(sum((pr[i] for i in idx), Fraction(0)) - 1)
    return out


# ----------------------------------------------------------------------------------------------
# The tiny LM (tabular, cut sequences kept), enumerated here
# ----------------------------------------------------------------------------------------------

LM_LIMIT = 20000


def lm_shape(inputs):
    V, eos, T = (get_input(inputs, {}, n) for n in ("V", "eos", "T"))
    for name, v in (("V", V), ("eos", eos), ("T", T)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise Reject("EINVAL", "%s is not an integer" % name)
    if V < 2 or V > 64:
        raise Reject("EDOM", "V must be 2 to 64")
    if not 0 <= eos < V:
        raise Reject("EDOM", "eos is not a token")
    if T < 1 or T > 32:
        raise Reject("EDOM", "T must be 1 to 32")
    return V, eos, T


def lm_rows(V, T):
    """Prefixes without EOS shorter than T: sum_{t < T} (V - 1)^t."""
    return sum((V - 1) ** t for t in range(T))


def row_of(prefix, V, eos):
    """The documented order: by length, then lexicographically over the non-EOS tokens."""
    alphabet = [a for a in range(V) if a != eos]
    t = len(prefix)
    r = sum((V - 1) ** j for j in range(t))
    rank = 0
    for tok in prefix:
        rank = rank * (V - 1) + alphabet.index(tok)
    return r + rank


def sequences(V, eos, T):
    """Every outcome: EOS-ended sequences of length <= T and cut sequences of length T."""
    alphabet = [a for a in range(V) if a != eos]
    out = []

    def rec(prefix):
        if len(prefix) == T:
            out.append(list(prefix))            # cut at T, kept
            return
        out.append(prefix + [eos])
        for a in alphabet:
            rec(prefix + [a])
    rec([])
    return out


def log_softmax_rows(logits, V, n_rows):
    rows = []
    for r in range(n_rows):
        row = [M(x) for x in logits[r * V:(r + 1) * V]]
        mx = max(row)
        z = mx + mp.log(mp.fsum(mp.exp(x - mx) for x in row))
        rows.append([x - z for x in row])
    return rows


def lm_model(inputs, params):
    V, eos, T = lm_shape(inputs)
    logits, ref = real_arrays(inputs, params, ["logits", "ref_logits"])
    n_rows = lm_rows(V, T)
    if len(logits) != n_rows * V:
        raise Reject("EINVAL", "a tabular model of V = %d, T = %d has %d logits"
                     % (V, T, n_rows * V))
    n = sum((V - 1) ** t for t in range(T)) + (V - 1) ** T
    if n > LM_LIMIT:
        raise Reject("EINVAL", "too many sequences for this check")
    return V, eos, T, n_rows, logits, ref


def lm_guard(logits, ref):
    """Extra bits where the policy is within d of the reference: the gradients are sums of
    terms of order 1 that cancel to order d (logits 2^-632 from uniform: 3.5e-192)."""
    d = max((abs(M(a) - M(b)) for a, b in zip(logits, ref)), default=0)
    return 2 * max(0, -mp.mag(d)) if d else 0


def lm_outcomes(inputs, params):
    """V, the rows, log q per row, [(y, [(row, token)], [l_t], log q(y), log q_ref(y))] for
    every outcome, and the guard bits of lm_guard it was formed with."""
    V, eos, T, n_rows, logits, ref = lm_model(inputs, params)
    guard = lm_guard(logits, ref)
    with mp.workprec(mp.prec + 30 + guard):
        lq = log_softmax_rows(logits, V, n_rows)
        lr = log_softmax_rows(ref, V, n_rows)
        outs = []
        for y in sequences(V, eos, T):
            steps = [(row_of(y[:t], V, eos), y[t]) for t in range(len(y))]
            lt = [lq[r][a] - lr[r][a] for r, a in steps]
            outs.append((y, steps, lt, mp.fsum(lq[r][a] for r, a in steps),
                         mp.fsum(lr[r][a] for r, a in steps)))
    return V, n_rows, lq, outs, guard


def eval_exact_lm(variant, inputs, params):
    V, n_rows, lq, outs, _ = lm_outcomes(inputs, params)
    w = [mp.exp(o[3]) for o in outs]
    ls = [o[3] - o[4] for o in outs]
    kl = mp.fsum(wi * li for wi, li in zip(w, ls))
    if variant == "lm-sequence":
        k1 = ls
        k2 = [l * l / 2 for l in ls]
        k3 = [k3_of(l) for l in ls]
    else:
        k1 = [mp.fsum(o[2]) for o in outs]
        k2 = [mp.fsum(l * l / 2 for l in o[2]) for o in outs]
        k3 = [mp.fsum(k3_of(l) for l in o[2]) for o in outs]
    return exact_outputs(w, k1, k2, k3, kl)


# ----------------------------------------------------------------------------------------------
# Two Gaussians: x ~ N(mu, sigma^2) (the policy), the reference N(mu_ref, sigma_ref^2)
# ----------------------------------------------------------------------------------------------

def gaussian_inputs(inputs, params):
    vals = [qreal(get_input(inputs, params, n), n) for n in ("mu", "sigma", "mu_ref", "sigma_ref")]
    if vals[1] <= 0 or vals[3] <= 0:
        raise Reject("EDOM", "a standard deviation must be > 0")
    if vals[0] == vals[2] and vals[1] == vals[3]:
        raise Reject("EDOM", "the two Gaussians are equal: KL = 0, the ratios undefined")
    return [M(v) for v in vals]


def quadratic(mu, s, mu_r, t):
    """l(x) = log N(x; mu, s^2) - log N(x; mu_r, t^2) at x = mu + s z, as c0 + c1 z + c2 z^2."""
    # log N(x; m, v) = -log v - log sqrt(2 pi) - (x - m)^2 / (2 v^2)
    d = mu - mu_r
    c0 = mp.log(t) - mp.log(s) + d * d / (2 * t * t)
    c1 = d * s / (t * t)
    c2 = (s * s / (t * t) - 1) / 2
    return c0, c1, c2


def z_moment(k):
    """E z^k for z standard normal."""
    if k % 2:
        return mpf(0)
    r = mpf(1)
    for j in range(1, k, 2):
        r *= j
    return r


def poly_mul(a, b):
    out = [mpf(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def poly_expect(c):
    return mp.fsum(ci * z_moment(i) for i, ci in enumerate(c))


def mgf(a, b):
    """E exp(a z + b z^2), +inf when 1 - 2b <= 0."""
    if 1 - 2 * b <= 0:
        return mp.inf
    return mp.exp(a * a / (2 * (1 - 2 * b))) / mp.sqrt(1 - 2 * b)


def tilted_mean(c, a, b):
    """E[(c0 + c1 z + c2 z^2) exp(a z + b z^2)] / E exp(a z + b z^2): under the tilted measure z
    is normal with variance v = 1/(1 - 2b) and mean a v."""
    v = 1 / (1 - 2 * b)
    m = a * v
    return c[0] + c[1] * m + c[2] * (v + m * m)


def eval_gaussian(inputs, params):
    """The raw moments cancel (Var k3 of Gaussians 2^-487 apart is 1e-587 from terms of order
    1): evaluated at P and 2P bits, P doubling from the working precision + 60, until every
    output agrees to the working precision."""
    mu, s, mu_r, t = gaussian_inputs(inputs, params)
    p = mp.prec + 60
    prev = gaussian_at(mu, s, mu_r, t, p)
    while p < 40000:
        p *= 2
        cur = gaussian_at(mu, s, mu_r, t, p)
        if all(agree(prev[k], cur[k]) for k in cur):
            return cur
        prev = cur
    raise ValueError("the Gaussian moments do not settle by 40000 bits")


def agree(a, b):
    if mp.isinf(a) or mp.isinf(b):
        return a == b
    return abs(a - b) <= abs(b) * mpf(2) ** (-mp.prec)


def gaussian_at(mu, s, mu_r, t, prec):
    with mp.workprec(prec):
        c = list(quadratic(mu, s, mu_r, t))
        l2 = poly_mul(c, c)
        l3 = poly_mul(l2, c)
        l4 = poly_mul(l3, c)
        E1, E2, E3, E4 = (poly_expect(x) for x in (c, l2, l3, l4))
        kl = E1
        var1 = E2 - E1 ** 2
        ek2 = E2 / 2
        var2 = (E4 - E2 ** 2) / 4
        # r = e^-l: E r = e^-c0 mgf(-c1, -c2) (= 1), E r^2 = e^-2c0 mgf(-2c1, -2c2),
        # E[l r] = E r * tilted mean of l
        Er = mp.exp(-c[0]) * mgf(-c[1], -c[2])
        Er2 = mp.exp(-2 * c[0]) * mgf(-2 * c[1], -2 * c[2])
        Elr = Er * tilted_mean(c, -c[1], -c[2])
        ek3 = Er - 1 + E1
        if mp.isinf(Er2):
            var3 = mp.inf
        else:
            Ek3sq = Er2 + 1 + E2 - 2 * Er + 2 * Elr - 2 * E1
            var3 = Ek3sq - ek3 ** 2
        # KL(ref || policy): the same with the roles exchanged
        cr = quadratic(mu_r, t, mu, s)
        klr = cr[0] + cr[2]
        out = {"kl": kl, "kl_reverse": klr, "e_k2": ek2, "bias_k2": ek2 - kl, "var_k1": var1,
               "var_k2": var2, "var_k3": var3, "bias_k2_rel": (ek2 - kl) / kl,
               "std_k1_rel": mp.sqrt(var1) / kl, "std_k2_rel": mp.sqrt(var2) / kl,
               "std_k3_rel": mp.sqrt(var3) / kl if not mp.isinf(var3) else mp.inf}
        return out


# --- the seeded Monte-Carlo run (GSL's MT19937 and gsl_ran_gaussian: xcore) -----------------

MC_LIMIT = 10 ** 6


def eval_monte_carlo(inputs, params):
    mu, s, mu_r, t = gaussian_inputs(inputs, params)
    n = get_input(inputs, params, "n")
    seed = get_input(inputs, params, "seed")
    if not isinstance(n, int) or n < 2 or n > MC_LIMIT:
        raise Reject("EDOM", "n must be 2 to 1e6")
    if not isinstance(seed, int) or seed < 0:
        raise Reject("EDOM", "seed must be a non-negative integer")
    rng = gsl_mt19937(seed)
    zs = [gsl_gaussian(rng) for _ in range(n)]
    with mp.workprec(mp.prec + 40):
        c0, c1, c2 = quadratic(mu, s, mu_r, t)
        kl = c0 + c2
        ls = [c0 + c1 * z + c2 * z * z for z in map(mpf, zs)]
        out = {}
        for name, ks in (("k1", ls), ("k2", [l * l / 2 for l in ls]),
                         ("k3", [k3_of(l) for l in ls])):
            m = mp.fsum(ks) / n
            sd = mp.sqrt(mp.fsum((k - m) ** 2 for k in ks) / (n - 1))
            out["mean_" + name] = m
            out["std_" + name] = sd
            out["bias_%s_rel" % name] = (m - kl) / kl
            out["std_%s_rel" % name] = sd / kl
    return {k: +v for k, v in out.items()}


def eval_exact(variant, params, inputs, ctx):
    if variant == "discrete":
        return eval_discrete(inputs, params)
    if variant in ("lm-token-sum", "lm-sequence"):
        return eval_exact_lm(variant, inputs, params)
    if variant == "gaussian":
        return eval_gaussian(inputs, params)
    if variant == "monte-carlo":
        return eval_monte_carlo(inputs, params)
    raise KeyError(variant)


# ----------------------------------------------------------------------------------------------
# KL-GRAD: each estimator used as a loss, y ~ q, the sampling held fixed
# ----------------------------------------------------------------------------------------------

def estimator_loss(variant, l):
    """(value k(l), the derivative through l, the weight on grad log q(y) from a differentiable
    ratio or the policy-gradient term) of one outcome."""
    if variant in ("k1", "lm-k1"):
        return l, mpf(1), mpf(0)
    if variant in ("k2", "lm-k2"):
        return l * l / 2, l, mpf(0)
    if variant in ("k3", "lm-k3"):
        return k3_of(l), -mp.expm1(-l), mpf(0)
    if variant == "abs":
        return abs(l), mpf(mp.sign(l)), mpf(0)
    if variant in ("verl-low-var-kl", "k3-straight-through"):
        k, g = token_exact(variant, l)
        return k, g, mpf(0)
    if variant == "k1-straight-through":
        return l, l, mpf(0)
    if variant == "bias-corrected":
        # k3 times rho = exp(log q - log q_old), rho = 1 at q_old = q: d rho = rho grad log q
        k = k3_of(l)
        return k, -mp.expm1(-l), k
    if variant == "k1-reward":
        # k1 in the reward: the policy gradient E[k1 grad log q] (REINFORCE, no baseline)
        return l, mpf(0), l
    raise KeyError(variant)


def gap_guard(xs):
    """Extra bits for a softmax whose logits span a gap: 1 - q_max = sum of e^-gap, which the
    gradients' [y = j] - q_j resolve only with gap / log 2 bits more (746: 1077 bits)."""
    finite = [x for x in xs if math.isfinite(x)]
    return int((max(finite) - min(finite)) / math.log(2)) + 1 if finite else 0


def softmax_grad_outputs(variant, th, thr):
    K = len(th)
    with mp.workprec(mp.prec + 30 + gap_guard(th) + gap_guard(thr)):
        a = [M(x) for x in th]
        b = [M(x) for x in thr]
        za = max(a) + mp.log(mp.fsum(mp.exp(x - max(a)) for x in a))
        zb = max(b) + mp.log(mp.fsum(mp.exp(x - max(b)) for x in b))
        lq = [x - za for x in a]
        lr = [x - zb for x in b]
        q = [mp.exp(x) for x in lq]
        qr = [mp.exp(x) for x in lr]
        ls = [x - y for x, y in zip(lq, lr)]
        # d l_y / d theta_j = d log q_y / d theta_j = [y = j] - q_j
        value = mpf(0)
        grad = [mpf(0)] * K
        for y in range(K):
            k, dl, wlog = estimator_loss(variant, ls[y])
            value += q[y] * k
            for j in range(K):
                grad[j] += q[y] * (dl + wlog) * ((1 if y == j else 0) - q[j])
        kl = mp.fsum(qy * ly for qy, ly in zip(q, ls))
        klr = mp.fsum(-qr[y] * ls[y] for y in range(K))
        # d KL(q||q_ref)/d theta_j = sum_y q_y (l_y + 1) ([y = j] - q_j)
        gkl = [q[j] * (ls[j] + 1) - q[j] * mp.fsum(q[y] * (ls[y] + 1) for y in range(K))
               for j in range(K)]
        # d KL(q_ref||q)/d theta_j = -sum_y q_ref_y ([y = j] - q_j) = q_j - q_ref_j
        gklr = [-(qr[j] - q[j] * mp.fsum(qr)) for j in range(K)]
    return {"value": +value, "grad": [+g for g in grad], "kl": +kl, "grad_kl": [+g for g in gkl],
            "kl_reverse": +klr, "grad_kl_reverse": [+g for g in gklr]}


def lm_grad_outputs(variant, inputs, params):
    V, n_rows, lq, outs, guard = lm_outcomes(inputs, params)
    n = n_rows * V
    with mp.workprec(mp.prec + 30 + guard):
        qrow = [[mp.exp(x) for x in row] for row in lq]

        def glogq(steps):
            """grad log q(y) over the logits: sum_t (e_{row_t, y_t} - softmax(row_t))."""
            g = {}
            for r, a in steps:
                for j in range(V):
                    g[r * V + j] = g.get(r * V + j, 0) + ((1 if j == a else 0) - qrow[r][j])
            return g
        value = mpf(0)
        grad = [mpf(0)] * n
        gkl = [mpf(0)] * n
        gklr = [mpf(0)] * n
        kl = mpf(0)
        klr = mpf(0)
        for y, steps, lt, lqy, lry in outs:
            qy = mp.exp(lqy)
            qry = mp.exp(lry)
            h = lqy - lry
            k, dl, _ = estimator_loss(variant, h)
            g = glogq(steps)
            value += qy * k
            kl += qy * h
            klr += -qry * h
            for idx, gi in g.items():
                grad[idx] += qy * dl * gi                   # E_q[k'(h) grad h], grad h = grad log q
                gkl[idx] += qy * (h + 1) * gi               # grad sum_y q h
                gklr[idx] += -qry * gi                      # grad -sum_y q_ref log q
    return {"value": +value, "grad": [+g for g in grad], "kl": +kl, "grad_kl": [+g for g in gkl],
            "kl_reverse": +klr, "grad_kl_reverse": [+g for g in gklr]}


def eval_grad(variant, params, inputs, ctx):
    if variant.startswith("lm-"):
        return lm_grad_outputs(variant, inputs, params)
    th, thr = real_arrays(inputs, params, ["logits", "ref_logits"])
    return softmax_grad_outputs(variant, th, thr)


EVALUATORS = {
    "KL-K1": eval_k1,
    "KL-K2": eval_k2,
    "KL-K3": eval_k3,
    "KL-VARIANTS": eval_variants,
    "KL-EXACT": eval_exact,
    "KL-GRAD": eval_grad,
}


# ----------------------------------------------------------------------------------------------
# The groups' parameters: the clamps CONVENTIONS.md states
# ----------------------------------------------------------------------------------------------

def check_clamps(variant, params):
    want = {"verl-low-var-kl": {"log_ratio_clamp": 20.0, "kl_clamp": 10.0},
            "verl-float32": {"log_ratio_clamp": 20.0, "kl_clamp": 10.0},
            "openrlhf": {"kl_clamp": 10.0}}.get(variant)
    if want is None:
        return None
    bad = []
    for k, v in want.items():
        got = params.get(k)
        if got is None or float(got) != v:
            bad.append("%s = %r, CONVENTIONS.md says %r" % (k, got, v))
    return bad


PARAM_CHECKS = {"KL-K1": check_clamps, "KL-K2": check_clamps, "KL-K3": check_clamps,
                "KL-VARIANTS": check_clamps}

SENS_SKIP = {("KL-K1", "openrlhf"), ("KL-K2", "openrlhf"), ("KL-K3", "openrlhf"),
             ("KL-K3", "trl-float32"), ("KL-K3", "trl-ppo-float32"), ("KL-K3", "verl-float32"),
             ("KL-VARIANTS", "verl-float32"), ("KL-VARIANTS", "openrlhf"), ("KL-K3", "naive")}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py)
# ----------------------------------------------------------------------------------------------

def kl_detectors(run):
    label = "CONVENTIONS KL detector"
    three = {"logp": [2.0, -2.0, -29.0], "ref_logp": [0.0, 0.0, 0.0]}
    for i, printed in enumerate(("2", "-2", "-29")):
        run.printed("KL-K1", "plain", three, "k", i, printed, label + " k1")
    for i, printed in enumerate(("1.1353353", "4.3890561")):
        run.printed("KL-K3", "stable", three, "k", i, printed, label + " k3 (plain)")
    run.exact("KL-K3", "stable", three, "k", 2, lambda: mp.exp(29) - 30,
              label + " k3 (plain, 3.93e12 = e^29 - 30)")
    for i, printed in enumerate(("1.1353353", "4.3890561", "10")):
        run.printed("KL-K3", "verl-low-var-kl", three, "k", i, printed, label + " k3 (verl)")
    run.printed("KL-K3", "verl-low-var-kl", {"logp": [-100.0], "ref_logp": [0.0]}, "k", 0, "10",
                label + " k3 at l = -100 (clamped)")
    run.invalid("KL-K3", "trl-float32", {"logp": [-100.0], "ref_logp": [0.0]},
                label + " k3 at l = -100 (plain, binary32: inf)")
    label = "FORMULAS KL-K3 counter-example"
    pq = {"p": [1.0, 0.0], "p_ref": [0.5, 0.5]}
    run.printed("KL-EXACT", "discrete", pq, "kl", None, "0.693147", label + " KL")
    run.printed("KL-EXACT", "discrete", pq, "e_k3", None, "0.193147", label + " E[k3]")
    label = "Schulman's table"
    for mu, rows in SCHULMAN.items():
        g = {"mu": 0.0, "sigma": 1.0, "mu_ref": mu, "sigma_ref": 1.0}
        for out, printed in rows:
            run.printed("KL-EXACT", "gaussian", g, out, None, printed,
                        "%s mu = %s %s" % (label, mu, out))


# The note's printed ratios (bias/true, stdev/true), its q = N(0,1), p = N(mu,1); 0.002 is
# 0.0025 truncated, 1.7 is 1.695 to two digits.
SCHULMAN = {0.1: [("std_k1_rel", "20"), ("bias_k2_rel", "0.002..."), ("std_k2_rel", "1.42"),
                  ("std_k3_rel", "1.42")],
            1.0: [("std_k1_rel", "2"), ("bias_k2_rel", "0.25"), ("std_k2_rel", "1.73"),
                  ("std_k3_rel", "1.7")]}

DETECTORS = [kl_detectors]


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400
# ----------------------------------------------------------------------------------------------

def selftest_gaussian_quadrature(t):
    """The closed-form Gaussian moments against numerical integration over x."""
    for mu, s, mr, sr in ((0.0, 1.0, 0.1, 1.0), (0.0, 1.0, 1.0, 1.0), (0.3, 0.8, -0.2, 1.1)):
        with mp.workdps(30):
            got = eval_gaussian({"mu": mu, "sigma": s, "mu_ref": mr, "sigma_ref": sr}, {})
            mu, s, mr, sr = (mpf(v) for v in (mu, s, mr, sr))

            def l(x):
                return (-mp.log(s) - (x - mu) ** 2 / (2 * s * s)) - \
                       (-mp.log(sr) - (x - mr) ** 2 / (2 * sr * sr))

            def dens(x):
                return mp.exp(-(x - mu) ** 2 / (2 * s * s)) / (s * mp.sqrt(2 * mp.pi))

            def E(f):
                return mp.quad(lambda x: dens(x) * f(x), [-mp.inf, mu - 5 * s, mu, mu + 5 * s,
                                                          mp.inf])
            kl = E(l)
            e3 = E(lambda x: mp.exp(-l(x)) - 1 + l(x))
            v1 = E(lambda x: (l(x) - kl) ** 2)
            e2 = E(lambda x: l(x) ** 2 / 2)
            v2 = E(lambda x: (l(x) ** 2 / 2 - e2) ** 2)
            v3 = E(lambda x: (mp.exp(-l(x)) - 1 + l(x) - e3) ** 2)
            for name, want in (("kl", kl), ("var_k1", v1), ("e_k2", e2), ("var_k2", v2),
                               ("var_k3", v3)):
                t.near("gaussian %s (%s, %s, %s, %s) by quadrature" % (name, mu, s, mr, sr),
                       got[name], want, mpf(10) ** -20)
            t.near("E[k3] = KL by quadrature", e3, kl, mpf(10) ** -20)


def selftest_schulman(t):
    """Schulman's closed forms: l ~ N(mu^2/2, mu^2), Var k3 = e^(mu^2) - 1 - mu^2."""
    for mu in (mpf("0.1"), mpf(1)):
        got = eval_gaussian({"mu": 0.0, "sigma": 1.0, "mu_ref": float(mu), "sigma_ref": 1.0}, {})
        m = M(Fraction(float(mu))) ** 2 / 2
        s2 = 2 * m
        t.near("mu = %s: KL = mu^2/2" % mu, got["kl"], m)
        t.near("mu = %s: Var k1 = mu^2" % mu, got["var_k1"], s2)
        t.near("mu = %s: E k2 = (m^2 + s^2)/2" % mu, got["e_k2"], (m * m + s2) / 2)
        t.near("mu = %s: Var k2 = m^2 s^2 + s^4/2" % mu, got["var_k2"], m * m * s2 + s2 * s2 / 2)
        t.near("mu = %s: Var k3 = e^(s^2) - 1 - s^2" % mu, got["var_k3"], mp.expm1(s2) - s2)


def selftest_estimators(t):
    """Per-token values against their definitions, and gradients against central differences."""
    h = Fraction(1, 2 ** 80)
    for conv in ("k1-plain", "k2-plain", "k3-stable", "verl-low-var-kl", "abs"):
        for l in (Fraction(3, 7), Fraction(-5, 3), Fraction(-29), Fraction(13)):
            k, g = token_exact(conv, M(l))
            kp, _ = token_exact(conv, M(l + h))
            km, _ = token_exact(conv, M(l - h))
            fd = (kp - km) / (2 * M(h))
            if g == 0:
                t.true("%s at %s: dk/dlogp = 0" % (conv, float(l)), fd == 0)
            else:
                t.near("%s at %s: dk/dlogp" % (conv, float(l)), g, fd, mpf(10) ** -40)
    t.near("k3 at 1e-30 = l^2/2 - l^3/6", k3_of(mpf("1e-30")),
           mpf("1e-30") ** 2 / 2 - mpf("1e-30") ** 3 / 6)
    # TRL's on-policy bias correction: value k3, gradient that of k2 (rho = 1)
    got = eval_bias_corrected({"logp": [-1.5], "ref_logp": [-2.0], "old_logp": [-1.5]}, {})
    t.near("bias-corrected on-policy gradient = l", got["grad"][0], mpf("0.5"))


def selftest_grad_identities(t):
    """Seed 000 section 12.1 on a softmax: E[grad k1] = 0, k2 gives grad KL(q||q_ref), k3 gives
    grad KL(q_ref||q), k1 in the reward gives grad KL(q||q_ref); the true gradients against
    central differences of the KLs."""
    th, thr = [0.3, -1.2, 0.7, 0.0], [0.0, 0.5, -0.4, 0.2]
    out = {v: softmax_grad_outputs(v, th, thr) for v in ("k1", "k2", "k3", "k1-reward",
                                                          "bias-corrected")}
    for j in range(4):
        t.true("k1 grad[%d] = 0" % j, abs(out["k1"]["grad"][j]) < mpf(10) ** -100)
        t.near("k2 grad[%d] = grad KL(q||q_ref)" % j, out["k2"]["grad"][j],
               out["k2"]["grad_kl"][j])
        t.near("k3 grad[%d] = grad KL(q_ref||q)" % j, out["k3"]["grad"][j],
               out["k3"]["grad_kl_reverse"][j])
        t.near("k1-reward grad[%d] = grad KL(q||q_ref)" % j, out["k1-reward"]["grad"][j],
               out["k1"]["grad_kl"][j])
        t.near("bias-corrected grad[%d] = grad KL(q||q_ref)" % j,
               out["bias-corrected"]["grad"][j], out["k1"]["grad_kl"][j])
    h = Fraction(1, 2 ** 70)
    for j in range(4):
        up = list(map(Fraction, th))
        dn = list(map(Fraction, th))
        up[j] += h
        dn[j] -= h
        a = softmax_grad_outputs("k1", up, thr)
        b = softmax_grad_outputs("k1", dn, thr)
        t.near("grad KL(q||q_ref)[%d] by differences" % j, out["k1"]["grad_kl"][j],
               (a["kl"] - b["kl"]) / (2 * M(h)), mpf(10) ** -30)
        t.near("grad KL(q_ref||q)[%d] by differences" % j, out["k1"]["grad_kl_reverse"][j],
               (a["kl_reverse"] - b["kl_reverse"]) / (2 * M(h)), mpf(10) ** -30)


def selftest_reject(t):
    def code(fn, *args):
        try:
            fn(*args)
        except Reject as ex:
            return ex.code
        return None
    t.true("p not normalised -> EDOM",
           code(eval_discrete, {"p": [0.5, 0.6], "p_ref": [0.5, 0.5]}, {}) == "EDOM")
    t.true("p_ref 0 under p > 0 -> EDOM",
           code(eval_discrete, {"p": [0.5, 0.5], "p_ref": [1.0, 0.0]}, {}) == "EDOM")
    t.true("negative p -> EDOM",
           code(eval_discrete, {"p": [1.5, -0.5], "p_ref": [0.5, 0.5]}, {}) == "EDOM")
    t.true("NaN logp -> ENAN", code(eval_tokens, "KL-K1", "plain", {},
                                    {"logp": [math.nan], "ref_logp": [0.0]}) == "ENAN")
    t.true("TRL float32 at l = -100 -> ERANGE", code(eval_tokens, "KL-K3", "trl-float32", {},
                                                     {"logp": [-100.0], "ref_logp": [0.0]})
           == "ERANGE")
    # log-probabilities beyond binary32 are +-inf in float32: finite where the library's are
    for formula, v, lp, want in (("KL-K1", "openrlhf", -1e39, (-10, 0)),
                                 ("KL-K3", "openrlhf", 1e39, (10, 0)),
                                 ("KL-K3", "verl-float32", -1e39, (10, 0)),
                                 ("KL-K3", "verl-float32", -100.0, (10, 0)),
                                 ("KL-K2", "openrlhf", -1e39, "ERANGE"),
                                 ("KL-K3", "openrlhf", -1e39, "ERANGE"),
                                 ("KL-K3", "trl-ppo-float32", 1e39, "ERANGE"),
                                 ("KL-K1", "straight-through", -2e154, "ERANGE")):
        inp = {"logp": [lp], "ref_logp": [0.0]}
        if want == "ERANGE":
            t.true("%s %s at %g -> ERANGE" % (formula, v, lp),
                   code(eval_tokens, formula, v, {}, inp) == "ERANGE")
        else:
            out = eval_tokens(formula, v, {}, inp)
            t.true("%s %s at %g = %s" % (formula, v, lp, want),
                   (out["k"][0], out["grad"][0]) == want)
    # the two binary32 orders of k3 differ at l = 1.4 (PPO/OpenRLHF against GRPO/verl)
    a = eval_tokens("KL-K3", "trl-ppo-float32", {}, {"logp": [1.4], "ref_logp": [0.0]})["k"][0]
    b = eval_tokens("KL-K3", "trl-float32", {}, {"logp": [1.4], "ref_logp": [0.0]})["k"][0]
    t.true("binary32 orders differ at l = 1.4", a != b)


SELFTESTS = [selftest_gaussian_quadrature, selftest_schulman, selftest_estimators,
             selftest_grad_identities, selftest_reject]
