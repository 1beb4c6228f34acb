"""Group advantage, GRPO-ADV and GRPO-ADV-EX (000 eq. 13.23; 001; 003) under each named
convention (golden/README.md "GRPO-ADV variants", CONVENTIONS.md "Group advantage"); the
detector vectors of CONVENTIONS.md and the worked examples of seeds 000 §5.1, 001 and 003.

The exact conventions are computed on the exact rationals of the binary64 rewards (so squares
that would overflow or underflow binary64 do not matter); the binary32 conventions (trl-float32,
verl-vectorized-old) are simulated operation by operation, each result rounded once to binary32
(xcore.f32_op), with IEEE infinities and NaN where the library would produce them.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import Ctx, M, Q, Reject, f32, f32_op, get_input, mpf_str, variant_ddof


# variant -> (ddof, eps as the binary64 of the decimal literal, rule)
#   std>0     (r - mean)/(std + eps) if std > 0, else 0
#   std>eps   (r - mean)/(std + eps) if std > eps, else 0
#   plain     (r - mean)/(std + eps), no branch (r - mean = 0 gives 0 by itself)
#   verl      plain; a group of one: mean 0, std 1
#   openrlhf  plain; a group of one refused
#   sqrt-eps  (r - mean)/sqrt(var + eps); a group of one 0
#   trl       plain over the scorable (non-NaN) rewards; see grpo_group_trl
#   batch     group mean, std of the whole batch; see grpo_batch_std
#   trl-f32, verl-f32: binary32 simulations, see grpo_group_trl_f32 and grpo_group_verl_f32
#   verl-f32-stats: verl-f32's binary32 mean and std, the differences exact (float64 scores),
#             see grpo_group_verl_f32_stats
GRPO_TABLE = {
    "seed-000": (0, 0.0, "std>0"),
    "seed-000-code": (0, 1e-8, "plain"),
    "seed-001": (0, 1e-8, "std>eps"),
    "seed-003": (1, 0.0, "std>0"),
    "trl": (1, 1e-4, "trl"),
    "trl-float32": (1, 1e-4, "trl-f32"),
    "verl": (1, 1e-6, "verl"),
    "verl-vectorized-old": (1, 1e-6, "verl-f32"),
    "verl-vectorized-old-float64": (1, 1e-6, "verl-f32-stats"),
    "openrlhf": (1, 1e-9, "openrlhf"),
    "eps-in-sqrt": (1, 1e-8, "sqrt-eps"),
    "no-std": (None, None, "nostd"),
    "batch-std": (1, 1e-4, "batch"),
}

# the conventions of TRL end with nan_to_num: they take NaN and infinite rewards
TAKES_NONFINITE = ("trl", "trl-f32", "batch")

FLT_MAX = float.fromhex("0x1.fffffep+127")


def grpo_rule_of(variant, params, ctx):
    if variant in GRPO_TABLE:
        # eps is a constant of the convention, not an input: the params only repeat it (checked
        # by grpo_check_params), and "sens" does not perturb it (golden/README.md)
        return GRPO_TABLE[variant]
    # not named in the README: fall back to the params (generic (r-mean)/(std+eps), 0 at zero
    # variance) and say so
    ddof = variant_ddof(variant, params)
    eps = params.get("eps", 0.0)
    if ddof is None:
        raise Reject("EINVAL", "unknown variant %r without ddof" % variant, firm=False)
    ctx.notes.append("variant %r is not in the README table; rule read from params" % variant)
    return (ddof, eps if isinstance(eps, (float, Fraction)) else 0.0, "std>0")


def grpo_stats(qs, ddof):
    """Exact mean and variance (ddof) of a list of rationals."""
    n = len(qs)
    mean = sum(qs, Fraction(0)) / n
    var = sum(((x - mean) ** 2 for x in qs), Fraction(0)) / (n - ddof)
    return mean, var


def quotient(num, den):
    """num/den for an exact rational num and an mpf den; exactly 0 when num is 0."""
    return M(num) / den if num != 0 else mpf(0)


# ----------------------------------------------------------------------------------------------
# Exact conventions
# ----------------------------------------------------------------------------------------------

def grpo_group_exact(r, rule, ctx):
    """A_i = (r_i - mean)/(std + eps) (000 eq. 13.23) under the rule's ddof, eps and branch, on
    finite rewards; returns (mean, std, adv) as mpf (std None where the rule has none)."""
    ddof, eps, kind = rule
    G = len(r)
    qs = [Q(x) for x in r]
    if kind == "nostd":
        # Dr.GRPO: A_i = r_i - mean
        mean = sum(qs, Fraction(0)) / G
        return M(mean), None, [M(x - mean) for x in qs]
    e = Q(eps)
    if G - ddof <= 0:
        if kind == "verl":
            # verl: a group of one gets mean 0 and std 1, so r/(1 + eps) leaks through
            return mpf(0), mpf(1), [M(qs[0]) / (1 + M(e))]
        if kind in ("std>0", "sqrt-eps"):
            # seed-003 and eps-in-sqrt: a group of one gives 0
            return M(qs[0]), None, [mpf(0)]
        raise Reject("EDOM", "a group of one with ddof %d is refused" % ddof)
    mean, var = grpo_stats(qs, ddof)
    std = mp.sqrt(M(var))
    if kind == "sqrt-eps":
        # (r - mean)/sqrt(var + eps), var + eps formed exactly; no branch
        den = mp.sqrt(M(var + e))
        return M(mean), std, [quotient(x - mean, den) for x in qs]
    if kind == "std>0":
        branch = var > 0
    elif kind == "std>eps":
        branch = var > e * e                 # std > eps, decided exactly
    else:
        branch = True                        # plain (r - mean)/(std + eps)
    den = std + M(e)
    adv = [quotient(x - mean, den) if branch else mpf(0) for x in qs]
    return M(mean), std, adv


def grpo_group_trl(r, eps, ctx):
    """trl (TRL scale_rewards="group"), exact: over the scorable (non-NaN) rewards,
    A_i = (r_i - mean)/(std + eps), ddof 1; a NaN reward gets 0; a group of one, a group with
    fewer than two scorable rewards or with an infinite reward gets 0 (TRL's nan_to_num)."""
    G = len(r)
    zeros = [mpf(0)] * G
    if G == 1 or any(math.isinf(x) for x in r):
        return None, None, zeros
    idx = [i for i, x in enumerate(r) if not math.isnan(x)]
    if len(idx) < 2:
        return None, None, zeros
    mean, var = grpo_stats([Q(r[i]) for i in idx], 1)
    std = mp.sqrt(M(var))
    den = std + M(Q(eps))
    adv = list(zeros)
    for i in idx:
        adv[i] = quotient(Q(r[i]) - mean, den)
    return M(mean), std, adv


def grpo_batch_std(r, G, rule, ctx):
    """batch-std (TRL scale_rewards="batch"), exact: A_i = (r_i - group mean)/(s + eps), s the
    std (ddof 1) of every scorable reward of the batch; NaN rewards left out (advantage 0); a batch
    of one or with fewer than two scorable rewards gives 0; an infinite reward gives its group 0
    and the other groups +-0 (a finite numerator over an infinite std)."""
    ddof, eps, _ = rule
    N = len(r)
    zeros = [mpf(0)] * N
    if any(math.isinf(x) for x in r):
        return zeros
    scorable = [Q(x) for x in r if not math.isnan(x)]
    if N == 1 or len(scorable) < 2:
        return zeros
    _, var = grpo_stats(scorable, ddof)
    den = mp.sqrt(M(var)) + M(Q(eps))
    adv = []
    for k in range(0, N, G):
        grp = r[k:k + G]
        qs = [Q(x) for x in grp if not math.isnan(x)]
        if not qs:
            adv.extend([mpf(0)] * G)            # the group mean is NaN: nan_to_num gives 0
            continue
        mean = sum(qs, Fraction(0)) / len(qs)
        adv.extend(mpf(0) if math.isnan(x) else quotient(Q(x) - mean, den) for x in grp)
    return adv


# ----------------------------------------------------------------------------------------------
# Binary32 conventions
# ----------------------------------------------------------------------------------------------

def nan_to_num(x):
    """torch.nan_to_num(x, nan=0) on binary32: NaN -> 0, +-inf -> +-FLT_MAX."""
    if math.isnan(x):
        return 0.0
    if math.isinf(x):
        return math.copysign(FLT_MAX, x)
    return x


def nansum32(xs):
    """Sum of the non-NaN values in index order, each partial sum rounded to binary32; and their
    count."""
    s = 0.0
    n = 0
    for x in xs:
        if not math.isnan(x):
            s = f32_op("+", s, x)
            n += 1
    return s, n


def grpo_group_trl_f32(r, eps, ctx):
    """trl-float32: TRL on float32 rewards, every operation rounded to binary32, sums in index
    order (rewards beyond the binary32 range become inf):
        mean = nansum(r)/n,  n the number of non-NaN rewards
        var  = nanmean((r - mean)^2) * f32(n/(n - 1))   (NaN when n <= 1)
        std  = sqrt(var) when G > 1, else 0
        A_i  = (r_i - mean)/(std + f32(eps)), then NaN -> 0 (nan_to_num)."""
    G = len(r)
    ctx.exact = True
    rf = [f32(x) for x in r]
    s, n = nansum32(rf)
    mean = f32_op("/", s, float(n))                 # 0/0 is NaN when no reward is scorable
    dev = [f32_op("-", x, mean) for x in rf]
    if G > 1:
        sq, nsq = nansum32(f32_op("*", d, d) for d in dev)
        var = f32_op("/", sq, float(nsq))
        # Bessel factor count/(count - 1), int64/int64 -> float32; NaN when count <= 1
        bessel = f32(Fraction(n, n - 1)) if n > 1 else float("nan")
        var = f32_op("*", var, bessel)
        std = f32_op("sqrt", var)
    else:
        std = 0.0                                   # TRL: num_generations == 1 -> std 0
    den = f32_op("+", std, f32(eps))
    adv = [nan_to_num(f32_op("/", d, den)) for d in dev]
    return mpf(mean), mpf(std), [mpf(a) for a in adv]


def grpo_group_verl_f32(r, eps, ctx):
    """verl-vectorized-old (verl group_mean_std, September 2025 to May 2026), binary32, sums in
    index order:
        s1 = sum r,  s2 = sum f32(r*r),  mean = s1/G
        var = (s2 - s1*s1/G)/(G - 1),  std = sqrt(max(var, f32(eps)))
        A_i = (r_i - mean)/(std + f32(eps));  a group of one: mean 0, std 1.
    A reward beyond the binary32 range, or s2 overflowing, is refused (ERANGE)."""
    G = len(r)
    ctx.exact = True
    rf = [f32(x) for x in r]
    if any(math.isinf(x) for x in rf):
        raise Reject("ERANGE", "a reward beyond the binary32 range")
    s1 = 0.0
    s2 = 0.0
    for x in rf:
        s1 = f32_op("+", s1, x)
        s2 = f32_op("+", s2, f32_op("*", x, x))
    e32 = f32(eps)
    if G == 1:
        # singleton: mean 0, std 1 (the statistics computed before are discarded)
        if math.isinf(s2):
            ctx.ambiguous.append("group of one whose square overflows binary32: the sum s2 is "
                                 "discarded by the singleton fallback")
        mean, std = 0.0, 1.0
    else:
        if math.isinf(s1) or math.isinf(s2):
            raise Reject("ERANGE", "s1 or s2 = sum r^2 overflows binary32")
        g = float(G)
        mean = f32_op("/", s1, g)
        sq = f32_op("*", s1, s1)
        if math.isinf(sq):
            ctx.ambiguous.append("s1*s1 overflows binary32 while s2 does not")
        var = f32_op("/", f32_op("-", s2, f32_op("/", sq, g)), float(G - 1))
        if not math.isnan(var) and var < e32:
            var = e32                           # torch.clamp(var, min=eps)
        std = f32_op("sqrt", var)
    den = f32_op("+", std, e32)
    adv = [f32_op("/", f32_op("-", x, mean), den) for x in rf]
    return mpf(mean), mpf(std), [mpf(a) for a in adv]


def grpo_group_verl_f32_stats(r, eps, ctx):
    """verl-vectorized-old-float64: verl's old group_mean_std on float64 scores converts them to
    float32 and returns a binary32 mean and std (as grpo_group_verl_f32 computes them), but
    `scores - mean_g[g]` and the division by `std_g[g] + epsilon` are float64 tensor operations:
        A_i = (r_i - mean)/f32(std + f32(eps)),  r_i the unrounded reward,
    here exactly (one rounding at the working precision).  Equal rewards 0.1 give -1.49e-6."""
    mean, std, _ = grpo_group_verl_f32(r, eps, ctx)
    den = f32_op("+", float(std), f32(eps))
    if math.isinf(den) or math.isnan(den) or math.isinf(float(mean)) or math.isnan(float(mean)):
        raise Reject("ERANGE", "the binary32 statistics overflow")
    m = Fraction(float(mean))
    d = Fraction(den)
    ctx.exact = False
    return mean, std, [M((Q(x) - m) / d) for x in r]


# ----------------------------------------------------------------------------------------------
# One group, the batch, the checks
# ----------------------------------------------------------------------------------------------

def grpo_group(r, rule, ctx):
    """Advantages of one group under the rule; (mean, std, adv), mean/std None if not defined."""
    _, eps, kind = rule
    if kind == "trl":
        return grpo_group_trl(r, eps, ctx)
    if kind == "trl-f32":
        return grpo_group_trl_f32(r, eps, ctx)
    if kind == "verl-f32":
        return grpo_group_verl_f32(r, eps, ctx)
    if kind == "verl-f32-stats":
        return grpo_group_verl_f32_stats(r, eps, ctx)
    return grpo_group_exact(r, rule, ctx)


def grpo_check_params(variant, params):
    """The group's params must agree with the README table: None for a variant the table does
    not name, else the list of mismatches (empty when they agree)."""
    if variant not in GRPO_TABLE:
        return None
    bad = []
    ddof, eps, kind = GRPO_TABLE[variant]
    if "ddof" in params and ddof is not None and params["ddof"] != ddof:
        bad.append("ddof %r, README says %r" % (params["ddof"], ddof))
    for name in ("eps", "epsilon"):
        if name in params and isinstance(params[name], float) and eps is not None:
            if params[name] != eps:
                bad.append("%s %r, README says %r" % (name, params[name], eps))
    return bad


def grpo_validate_rewards(r, rule):
    """NaN and infinite rewards are refused (ENAN) except by TRL's conventions."""
    if rule[2] in TAKES_NONFINITE:
        return
    for x in r:
        if math.isnan(x):
            raise Reject("ENAN", "NaN reward (only TRL's conventions accept NaN)")
        if math.isinf(x):
            raise Reject("ENAN", "infinite reward (only TRL's conventions accept inf)")


def eval_grpo_adv(variant, params, inputs, ctx):
    r = get_input(inputs, params, "rewards")
    G = get_input(inputs, params, "group_size", "G")
    rule = grpo_rule_of(variant, params, ctx)
    N = len(r)
    if not isinstance(G, int) or isinstance(G, bool) or G <= 0:
        raise Reject("EINVAL", "group size must be a positive integer")
    if N == 0:
        raise Reject("EINVAL", "no rewards")
    if N % G != 0:
        raise Reject("EINVAL", "N = %d is not a multiple of G = %d" % (N, G))
    grpo_validate_rewards(r, rule)
    if rule[2] == "batch":
        adv = grpo_batch_std(r, G, rule, ctx)
    else:
        adv = []
        for k in range(0, N, G):
            _, _, a = grpo_group(r[k:k + G], rule, ctx)
            adv.extend(a)
    return {"adv": adv}


# GRPO-ADV-EX: the seeds' worked examples (000 §5.1 [1,0,0,1]; 001; 003 [0.2,0.8,0.4,0.6]):
# mean, std (ddof of the variant; for seed-001 the sigma that is compared with eps) and adv.
def eval_grpo_adv_ex(variant, params, inputs, ctx):
    r = get_input(inputs, params, "rewards")
    rule = grpo_rule_of(variant, params, ctx)
    if len(r) == 0:
        raise Reject("EINVAL", "no rewards")
    grpo_validate_rewards(r, rule)
    if rule[2] == "batch":
        raise Reject("EINVAL", "batch-std is not a one-group rule", firm=False)
    mean, std, adv = grpo_group(r, rule, ctx)
    out = {"adv": adv}
    if mean is not None:
        out["mean"] = mean
    if std is not None:
        out["std"] = std
    elif rule[2] == "nostd" and len(r) >= 2:
        # no-std has no std of its own; report the sample std (ddof 1) if asked for
        _, var = grpo_stats([Q(x) for x in r], 1)
        out["std"] = mp.sqrt(M(var))
    return out


EVALUATORS = {
    "GRPO-ADV": eval_grpo_adv,
    "GRPO-ADV-EX": eval_grpo_adv_ex,
}

# the README's ddof and eps of each named variant, one check per test group
PARAM_CHECKS = {
    "GRPO-ADV": grpo_check_params,
    "GRPO-ADV-EX": grpo_check_params,
}

# binary32 results: no derivative to compare "sens" with
SENS_SKIP = {(f, v) for f in ("GRPO-ADV", "GRPO-ADV-EX")
             for v in ("verl-vectorized-old", "trl-float32")}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py)
# ----------------------------------------------------------------------------------------------

# CONVENTIONS.md, "Group advantage": detector vectors.
def grpo_detectors(run):
    F = "GRPO-ADV"
    one = {"rewards": [1.0, 0.0, 0.0, 0.0], "group_size": 4}
    label = "[1,0,0,0]"
    for v in ("seed-003", "trl", "trl-float32", "verl", "openrlhf", "batch-std",
              "verl-vectorized-old"):
        run.printed(F, v, one, "adv", 0, "1.5", label + " ddof 1")
        for i in (1, 2, 3):
            run.printed(F, v, one, "adv", i, "-0.5", label + " ddof 1")
    for v in ("seed-000", "seed-000-code", "seed-001"):
        run.printed(F, v, one, "adv", 0, "1.7320508", label + " ddof 0")
        for i in (1, 2, 3):
            run.printed(F, v, one, "adv", i, "-0.5773503", label + " ddof 0")
    run.printed(F, "no-std", one, "adv", 0, "0.75", label + " no std")
    for i in (1, 2, 3):
        run.printed(F, "no-std", one, "adv", i, "-0.25", label + " no std")
    # exact-double trl, as the issue on the libraries' real code prints it (TRL itself, with
    # its binary32 Bessel factor, gives 1.499700037645199)
    run.printed(F, "trl", one, "adv", 0, "1.4997000599880024", label + " trl exact")
    run.not_printed(F, "trl-float32", one, "adv", 0, "1.4997000599880024",
                    label + " trl-float32 is binary32")
    # eps-in-sqrt: mean 0.25, var (ddof 1) 0.25, so (r - 0.25)/sqrt(0.25 + 1e-8): 1.5 and -0.5
    # to 7 digits, 1.49999997... and -0.49999999... in full (eps is the binary64 of 1e-8)
    run.printed(F, "eps-in-sqrt", one, "adv", 0, "1.5", label + " eps in sqrt")
    run.exact(F, "eps-in-sqrt", one, "adv", 0,
              lambda: mpf(0.75) / mp.sqrt(mpf(0.25) + mpf(1e-8)),
              label + " eps in sqrt -> 0.75/sqrt(0.25 + 1e-8)")
    for i in (1, 2, 3):
        run.printed(F, "eps-in-sqrt", one, "adv", i, "-0.5", label + " eps in sqrt")
        run.exact(F, "eps-in-sqrt", one, "adv", i,
                  lambda: mpf(-0.25) / mp.sqrt(mpf(0.25) + mpf(1e-8)),
                  label + " eps in sqrt -> -0.25/sqrt(0.25 + 1e-8)")

    tiny = {"rewards": [0.0, 1e-4], "group_size": 2}
    label = "[0,1e-4]"
    for v, mag in (("trl", "0.292893"), ("trl-float32", "0.292893"), ("verl", "0.697246"),
                   ("openrlhf", "0.707097"), ("seed-000", "1"), ("eps-in-sqrt", "0.408248")):
        run.printed(F, v, tiny, "adv", 1, mag, label)
        run.printed(F, v, tiny, "adv", 0, "-" + mag, label)
    # eps-in-sqrt: mean 5e-5, var (ddof 1) 5e-9, so +-5e-5/sqrt(5e-9 + 1e-8) = +-sqrt(1/6) nearly;
    # in full with the binary64 values of 1e-4 and 1e-8
    for i, sgn in ((0, -1), (1, 1)):
        run.exact(F, "eps-in-sqrt", tiny, "adv", i,
                  lambda sgn=sgn: sgn * (mpf(1e-4) / 2)
                  / mp.sqrt(mpf(1e-4) ** 2 / 2 + mpf(1e-8)),
                  label + " eps in sqrt -> 5e-5/sqrt(5e-9 + 1e-8)")

    big = {"rewards": [10000.0, 10001.0], "group_size": 2}
    label = "[10000,10001]"
    for v in ("verl", "openrlhf", "seed-003", "eps-in-sqrt"):
        run.printed(F, v, big, "adv", 1, "0.7071", label)
        run.printed(F, v, big, "adv", 0, "-0.7071", label)
    # without eps: +-0.70710678
    run.printed(F, "seed-003", big, "adv", 1, "0.70710678", label + " without eps")
    run.printed(F, "seed-003", big, "adv", 0, "-0.70710678", label + " without eps")
    # "one-pass float32 variance breaks"
    run.not_printed(F, "verl-vectorized-old", big, "adv", 1, "0.7071",
                    label + " one-pass binary32")
    # TRL's eps 1e-4 moves the 4th digit: 0.5/(0.70710678 + 1e-4) = 0.70700680
    run.printed(F, "trl", big, "adv", 1, "0.70700680", label + " trl (eps 1e-4)")
    run.printed(F, "trl", big, "adv", 0, "-0.70700680", label + " trl (eps 1e-4)")
    run.printed(F, "trl-float32", big, "adv", 1, "0.7070", label + " trl-float32 (eps 1e-4)")
    run.printed(F, "batch-std", big, "adv", 1, "0.70700680", label + " batch-std (one group)")

    g1 = {"rewards": [0.5], "group_size": 1}
    label = "group of one"
    for v in ("trl", "trl-float32", "eps-in-sqrt", "seed-003", "seed-000-code", "batch-std"):
        run.printed(F, v, g1, "adv", 0, "0", label + " %s -> 0" % v)
    run.exact(F, "verl", g1, "adv", 0,
              lambda: mpf(0.5) / (1 + mpf(1e-6)), label + " verl -> r/(1+1e-6)")
    # old verl: mean 0, std 1 in binary32: 0.5/f32(1 + f32(1e-6)), 1 + f32(1e-6) rounding to
    # 1 + 8*2^-23 (1e-6 is 8.39 units of 2^-23)
    run.exact(F, "verl-vectorized-old", g1, "adv", 0,
              lambda: mpf(f32(Fraction(1, 2) / (1 + Fraction(8, 2 ** 23)))),
              label + " verl-vectorized-old -> f32(0.5/(1 + 2^-20))")
    run.invalid(F, "openrlhf", g1, label + " openrlhf refuses")

    # TRL ends with nan_to_num: [inf, 0] -> [0, 0]
    inf0 = {"rewards": [float("inf"), 0.0], "group_size": 2}
    label = "[inf,0]"
    for v in ("trl", "trl-float32", "batch-std"):
        for i in (0, 1):
            run.printed(F, v, inf0, "adv", i, "0", label + " nan_to_num")
    for v in ("seed-000", "verl", "openrlhf", "verl-vectorized-old", "no-std"):
        run.invalid(F, v, inf0, label + " %s refuses" % v)


# Seed 000 §5.1 (eq. 13.23), seed 001, seed 003: group advantage worked examples.
def grpo_seed_examples(run):
    F = "GRPO-ADV-EX"
    r = {"rewards": [1.0, 0.0, 0.0, 1.0]}
    label = "000 §5.1 [1,0,0,1]"
    run.printed(F, "seed-000", r, "mean", None, "0.5", label + " mean")
    run.printed(F, "seed-000", r, "std", None, "0.5", label + " std (ddof 0)")
    for i, a in enumerate(("1", "-1", "-1", "1")):
        run.printed(F, "seed-000", r, "adv", i, a, label)
        run.exact(F, "seed-000", r, "adv", i, lambda a=a: mpf(a), label + " exactly")
        run.printed("GRPO-ADV", "seed-000", dict(r, group_size=4), "adv", i, a, label)
        # the seed's pseudo-code, (ri - mu)/(sd + 1e-8): +-0.99999998, +-1 to the printed digit
        run.printed("GRPO-ADV", "seed-000-code", dict(r, group_size=4), "adv", i, a,
                    label + " pseudo-code")
        run.exact("GRPO-ADV", "seed-000-code", dict(r, group_size=4), "adv", i,
                  lambda a=a: mpf(a) * mpf(0.5) / (mpf(0.5) + mpf(1e-8)),
                  label + " pseudo-code -> +-0.5/(0.5 + 1e-8)")

    label = "000 §5.1 / 001 all equal -> 0"
    r = {"rewards": [1.0, 1.0, 1.0]}
    for v in ("seed-000", "seed-001", "seed-003"):
        for i in range(3):
            run.printed(F, v, r, "adv", i, "0", label)
    for v in ("seed-000", "seed-000-code", "seed-001", "seed-003", "trl", "trl-float32", "verl",
              "openrlhf", "no-std", "batch-std", "verl-vectorized-old", "eps-in-sqrt"):
        for i in range(3):
            run.printed("GRPO-ADV", v, dict(r, group_size=3), "adv", i, "0", label)

    label = "003 [0.2,0.8,0.4,0.6]"
    r = {"rewards": [0.2, 0.8, 0.4, 0.6]}
    run.printed(F, "seed-003", r, "mean", None, "0.5", label + " mu")
    run.printed(F, "seed-003", r, "std", None, "0.26", label + " sigma (ddof 1)")
    run.printed(F, "seed-003", r, "adv", 1, "1.16", label + " A_2 (ddof 1)")
    run.printed(F, "seed-003", r, "adv", 0, "-1.16", label + " A_1 (ddof 1)")
    run.printed("GRPO-ADV", "seed-003", dict(r, group_size=4), "adv", 1, "1.16",
                label + " A_2 (ddof 1)")
    # eps-in-sqrt is ddof 1 too; 1e-8 under the root does not reach the printed digits
    run.printed("GRPO-ADV", "eps-in-sqrt", dict(r, group_size=4), "adv", 1, "1.16",
                label + " A_2 eps-in-sqrt (ddof 1)")
    run.printed("GRPO-ADV", "eps-in-sqrt", dict(r, group_size=4), "adv", 0, "-1.16",
                label + " A_1 eps-in-sqrt (ddof 1)")
    # ddof 0 does not give the seed's numbers
    run.not_printed(F, "seed-000", r, "std", None, "0.26", label + " sigma ddof 0")
    run.not_printed(F, "seed-000", r, "adv", 1, "1.16", label + " A_2 ddof 0")
    run.printed(F, "seed-000", r, "std", None, "0.2236", label + " sigma ddof 0")
    run.printed(F, "seed-000", r, "adv", 1, "1.342", label + " A_2 ddof 0")
    t = run.find(F, "seed-003", r)
    if isinstance(t, dict):
        g = run.output(t, "adv", 1)
        run.note("003 prints A_2 ~ 1.15; the ddof-1 value %s rounds to 1.16 (0.3/0.26 = 1.1538 "
                 "uses the rounded sigma), so the seed's 1.15 is a rounding of a rounded sigma"
                 % run.short(g["value"]))


DETECTORS = [grpo_detectors, grpo_seed_examples]


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400: the detector vectors of CONVENTIONS.md
# "Group advantage", the seeds' examples, and binary32 values derived by hand
# ----------------------------------------------------------------------------------------------

def selftest(t):
    expect = t.near
    nan = float("nan")
    inf = float("inf")

    def adv(variant, r, G=None):
        return eval_grpo_adv(variant, {}, {"rewards": r, "group_size": G or len(r)},
                             Ctx())["adv"]

    def refused(variant, r, G=None):
        try:
            adv(variant, r, G)
        except Reject as ex:
            return ex.code
        return None

    expect("seed-003 [1,0,0,0]", adv("seed-003", [1.0, 0, 0, 0])[0], mpf(1.5))
    expect("seed-000 [1,0,0,0]", adv("seed-000", [1.0, 0, 0, 0])[0], mp.sqrt(3))
    expect("no-std [1,0,0,0]", adv("no-std", [1.0, 0, 0, 0])[1], mpf(-0.25))
    expect("trl [0,1e-4]", adv("trl", [0.0, 1e-4])[1], mpf("0.292893"), mpf(2e-6))
    expect("verl [0,1e-4]", adv("verl", [0.0, 1e-4])[1], mpf("0.697246"), mpf(2e-6))
    expect("openrlhf [0,1e-4]", adv("openrlhf", [0.0, 1e-4])[1], mpf("0.707097"), mpf(2e-6))
    expect("seed-000 [0,1e-4]", adv("seed-000", [0.0, 1e-4])[1], mpf(1))
    expect("seed-000 [1,0,0,1]", adv("seed-000", [1.0, 0, 0, 1])[1], mpf(-1))
    expect("seed-001 [1,1,1]", adv("seed-001", [1.0, 1, 1])[0] + 1, mpf(1))
    # seed 000's pseudo-code: sd + 1e-8 without a branch; [0, 1e-9] -> +-5e-10/(5e-10 + 1e-8),
    # about 1/21, where seed-000 gives +-1 and seed-001 0
    expect("seed-000-code [0,1e-9]", adv("seed-000-code", [0.0, 1e-9])[1],
           (mpf(1e-9) / 2) / (mpf(1e-9) / 2 + mpf(1e-8)))
    t.true("seed-000-code [0,1e-9] is about 1/21",
           abs(adv("seed-000-code", [0.0, 1e-9])[1] - mpf(1) / 21) < mpf(1e-6))
    t.true("seed-001 [0,1e-9] -> 0 (std 5e-10 <= eps)", adv("seed-001", [0.0, 1e-9])[1] == 0)
    t.true("seed-000-code group of one -> 0", adv("seed-000-code", [2.0])[0] == 0)
    expect("verl group of one", adv("verl", [2.0])[0], 2 / (1 + mpf(1e-6)))
    t.true("openrlhf group of one refused (EDOM)", refused("openrlhf", [2.0]) == "EDOM")
    t.true("seed-003 group of one -> 0", adv("seed-003", [2.0])[0] == 0)
    expect("eps-in-sqrt [0,1e-4]", adv("eps-in-sqrt", [0.0, 1e-4])[1], mpf("0.408248"),
           mpf(2e-6))
    expect("eps-in-sqrt [1,0,0,0]", adv("eps-in-sqrt", [1.0, 0, 0, 0])[0],
           mpf(0.75) / mp.sqrt(mpf(0.25) + mpf(1e-8)))
    expect("eps-in-sqrt group of one", adv("eps-in-sqrt", [2.0])[0] + 1, mpf(1))
    expect("verl [10000,10001]", adv("verl", [10000.0, 10001.0])[1], mpf("0.7071"), mpf(1e-4))
    # exact conventions do not overflow or underflow on the squares
    expect("verl [1e154,-1e154]", adv("verl", [1e154, -1e154])[0], 1 / mp.sqrt(2))
    expect("no-std [1.5e308,1.7e308]", adv("no-std", [1.5e308, 1.7e308])[1],
           (mpf(1.7e308) - mpf(1.5e308)) / 2)
    for v in ("seed-000", "verl", "openrlhf", "no-std", "verl-vectorized-old"):
        t.true("%s refuses NaN and inf (ENAN)" % v,
               refused(v, [1.0, nan]) == "ENAN" and refused(v, [inf, 0.0]) == "ENAN")

    # trl: NaN left out; fewer than two scorable, or an infinite reward -> 0
    nanadv = adv("trl", [1.0, nan, 0.0, 0.0])
    expect("trl NaN left out", nanadv[0], (1 - mpf(1) / 3) / (mp.sqrt(mpf(1) / 3) + mpf(1e-4)))
    t.true("trl NaN reward -> 0", nanadv[1] == 0)
    t.true("trl [1,nan] -> 0", all(a == 0 for a in adv("trl", [1.0, nan])))
    t.true("trl [inf,0] -> 0", all(a == 0 for a in adv("trl", [inf, 0.0])))
    t.true("trl group of one -> 0", adv("trl", [0.5])[0] == 0)
    # batch-std: the group mean over the std of the whole batch
    b = adv("batch-std", [1.0, 0, 0, 0, 0.2, 0.8, 0.4, 0.6], 4)
    qs = [Fraction(x) for x in (1.0, 0, 0, 0, 0.2, 0.8, 0.4, 0.6)]
    s = mp.sqrt(M(grpo_stats(qs, 1)[1]))
    expect("batch-std two groups", b[0], mpf(0.75) / (s + mpf(1e-4)))
    t.true("batch-std [inf,0,0.3,0.9] -> 0", all(a == 0 for a in
                                                 adv("batch-std", [inf, 0.0, 0.3, 0.9], 2)))
    t.true("batch-std batch of one -> 0", adv("batch-std", [0.5])[0] == 0)

    # binary32: f32(1e-4) = 0x1.a36e2ep-14; 0.5 + f32(1e-4) rounds to 0x1.000d1cp-1 (0.5 +
    # 1678 * 2^-24); 4/3 rounds to 0x1.555556p+0, and 0.1875 * f32(4/3) back to 0.25
    t.true("f32(1e-4) = 0x1.a36e2ep-14", f32(1e-4) == float.fromhex("0x1.a36e2ep-14"))
    a = adv("trl-float32", [1.0, 0, 0, 0])
    den = float.fromhex("0x1.000d1cp-1")
    t.true("trl-float32 [1,0,0,0] = f32(0.75/0x1.000d1cp-1): %s" % mpf_str(a[0], 12),
           a[0] == mpf(f32(Fraction(3, 4) / Fraction(den))))
    t.true("trl-float32 [1,0,0,0][1] = f32(-0.25/0x1.000d1cp-1)",
           a[1] == mpf(f32(Fraction(-1, 4) / Fraction(den))))
    # float32 mean of [10000.3594, 10000.2822]: 10000.359375 + 10000.2822265625 =
    # 20000.6416015625, a tie on the 2^-9 grid, to even 20000.640625: mean 10000.3203125, and the
    # deviations 0.0390625 and -0.0380859375 are unequal (0.7147 and -0.6968)
    a = adv("trl-float32", [10000.3594, 10000.2822])
    expect("trl-float32 [10000.3594,10000.2822][0]", a[0], mpf("0.7147"), mpf(1e-4))
    t.true("trl-float32 [10000.3594,10000.2822] asymmetric: %s %s"
           % (mpf_str(a[0], 8), mpf_str(a[1], 8)), a[0] + a[1] > mpf("0.01"))
    expect("trl [10000.3594,10000.2822][0]", adv("trl", [10000.3594, 10000.2822])[0],
           mpf("0.7058"), mpf(1e-4))
    # subnormal rewards on the 2^-149 grid: 1e-40 -> 71362 * 2^-149, 3e-41 -> 21409 * 2^-149
    t.true("f32(1e-40) = 71362 * 2^-149", f32(1e-40) == 71362 * 2.0 ** -149)
    t.true("f32(3e-41) = 21409 * 2^-149", f32(3e-41) == 21409 * 2.0 ** -149)
    t.true("trl-float32 [1e20,0] -> 0: squares overflow, std inf",
           all(a == 0 for a in adv("trl-float32", [1e20, 0.0])))
    t.true("trl-float32 [1e154,-1e154] -> 0: the rewards are inf in binary32",
           all(a == 0 for a in adv("trl-float32", [1e154, -1e154])))
    t.true("trl-float32 [1,nan] -> 0", all(a == 0 for a in adv("trl-float32", [1.0, nan])))

    f32adv = adv("verl-vectorized-old", [10000.0, 10001.0])[1]
    t.true("one-pass float32 variance breaks on [10000,10001]: %s" % mpf_str(f32adv, 10),
           abs(f32adv) > 10)
    # old verl: a group of one gives f32(r)/f32(1 + f32(1e-6)) = r/(1 + 8 * 2^-23)
    t.true("verl-vectorized-old group of one",
           adv("verl-vectorized-old", [0.5])[0] == mpf(f32(Fraction(1, 2)
                                                           / (1 + Fraction(8, 2 ** 23)))))
    t.true("verl-vectorized-old [1e20,0] refused (ERANGE)",
           refused("verl-vectorized-old", [1e20, 0.0]) == "ERANGE")
    t.true("verl-vectorized-old [1e39,0] refused (ERANGE)",
           refused("verl-vectorized-old", [1e39, 0.0]) == "ERANGE")
    # the variance's operation order decides the last bits: (s2 - s1*s1/n)/(n - 1) is not
    # (s2/n - mean*mean)*n/(n - 1) on [0.37, 0.06, 0.51]
    rf = [f32(x) for x in (0.37, 0.06, 0.51)]
    s1 = f32_op("+", f32_op("+", rf[0], rf[1]), rf[2])
    s2 = 0.0
    for x in rf:
        s2 = f32_op("+", s2, f32_op("*", x, x))
    mean = f32_op("/", s1, 3.0)
    v_new = f32_op("/", f32_op("-", s2, f32_op("/", f32_op("*", s1, s1), 3.0)), 2.0)
    v_old = f32_op("/", f32_op("*", f32_op("-", f32_op("/", s2, 3.0),
                                           f32_op("*", mean, mean)), 3.0), 2.0)
    t.true("binary32 variance orders differ on [0.37,0.06,0.51]: %r %r" % (v_new, v_old),
           v_new != v_old)
    got = adv("verl-vectorized-old", [0.37, 0.06, 0.51])[0]
    den = f32_op("+", f32_op("sqrt", v_new), f32(1e-6))
    t.true("verl-vectorized-old [0.37,0.06,0.51] uses (s2 - s1*s1/n)/(n - 1)",
           got == mpf(f32_op("/", f32_op("-", rf[0], mean), den)))
    ex = eval_grpo_adv_ex("seed-003", {}, {"rewards": [0.2, 0.8, 0.4, 0.6]}, Ctx())
    expect("003 sigma ddof 1", ex["std"], mp.sqrt(mpf(2) / 30), mpf(1e-15))
    expect("003 A_2 ddof 1", ex["adv"][1], mpf("1.161895003862225"), mpf(1e-14))


SELFTESTS = [selftest]
