"""Group advantage, GRPO-ADV and GRPO-ADV-EX (000 eq. 13.23; 001; 003) under each named
convention (golden/README.md "GRPO-ADV variants", CONVENTIONS.md "Group advantage"); the
detector vectors of CONVENTIONS.md and the worked examples of seeds 000 §5.1, 001 and 003.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import Ctx, M, Q, Reject, f32, f32_op, get_input, mpf_str, variant_ddof


# variant -> (ddof, eps as the binary64 of the decimal literal, rule)
GRPO_TABLE = {
    "seed-000": (0, 0.0, "std>0"),
    "seed-001": (0, 1e-8, "std>eps"),
    "seed-003": (1, 0.0, "std>0"),
    "trl": (1, 1e-4, "plain"),
    "verl": (1, 1e-6, "plain"),
    "verl-vectorized-old": (1, 1e-6, "float32"),
    "openrlhf": (1, 1e-9, "plain"),
    "eps-in-sqrt": (1, 1e-8, "sqrt-eps"),
    "no-std": (None, None, "nostd"),
    "batch-std": (1, 1e-4, "batch"),
}


def grpo_rule_of(variant, params, ctx):
    if variant in GRPO_TABLE:
        ddof, eps, kind = GRPO_TABLE[variant]
        if isinstance(params.get("eps"), Fraction):
            eps = params["eps"]                # perturbed for the sensitivity check
        return (ddof, eps, kind)
    # not named in the README: fall back to the params (generic (r-mean)/(std+eps), 0 at zero
    # variance) and say so
    ddof = variant_ddof(variant, params)
    eps = params.get("eps", 0.0)
    if ddof is None:
        raise Reject("EINVAL", "unknown variant %r without ddof" % variant, firm=False)
    ctx.notes.append("variant %r is not in the README table; rule read from params" % variant)
    return (ddof, eps if isinstance(eps, float) else 0.0, "std>0")


def grpo_stats(qs, ddof):
    """Exact mean and variance (ddof) of a list of rationals."""
    n = len(qs)
    mean = sum(qs, Fraction(0)) / n
    var = sum(((x - mean) ** 2 for x in qs), Fraction(0)) / (n - ddof)
    return mean, var


def grpo_group(r, variant, rule, ctx):
    """Advantages of one group; returns (mean, std, adv) as mpf (mean/std None if not defined)."""
    ddof, eps, kind = rule
    G = len(r)
    if kind == "float32":
        return grpo_group_f32(r, ctx)
    if kind == "nostd":
        qs = [Q(x) for x in r]
        mean = sum(qs, Fraction(0)) / G
        return M(mean), None, [M(x - mean) for x in qs]
    if variant == "trl":
        # NaN rewards are left out of mean and std and get advantage 0; fewer than two scorable
        # rewards -> std 0 (TRL forces std to 0 for a group of one).
        idx = [i for i, x in enumerate(r) if not math.isnan(x)]
        qs = [Q(r[i]) for i in idx]
        if len(qs) == 0:
            return None, None, [mpf(0)] * G
        mean = sum(qs, Fraction(0)) / len(qs)
        if len(qs) >= 2:
            _, var = grpo_stats(qs, 1)
        else:
            var = Fraction(0)
        std = mp.sqrt(M(var))
        den = std + M(Q(eps))
        adv = [mpf(0)] * G
        for i in idx:
            num = Q(r[i]) - mean
            adv[i] = M(num) / den if num != 0 else mpf(0)
        return M(mean), std, adv
    qs = [Q(x) for x in r]
    if variant == "verl" and G == 1:
        # verl: a group of one gets mean 0 and std 1, so r/(1 + eps) leaks through
        return mpf(0), mpf(1), [M(qs[0]) / (1 + M(Q(eps)))]
    if G - ddof <= 0:
        if variant == "openrlhf":
            raise Reject("EDOM", "openrlhf refuses a group of one")
        if kind == "sqrt-eps":
            # eps-in-sqrt: the README gives a group of one advantage 0
            return M(qs[0]), None, [mpf(0)]
        if kind == "std>0":
            # seed-003 (ddof 1) for one sample: 0/0 variance; "zero variance -> 0" is one reading
            ctx.ambiguous.append("group of one with ddof 1 (variance 0/0)")
            mean = qs[0]
            return M(mean), None, [mpf(0)]
        raise Reject("EDOM", "group of one with ddof %d" % ddof)
    mean, var = grpo_stats(qs, ddof)
    std = mp.sqrt(M(var))
    e = Q(eps)
    if kind == "sqrt-eps":
        # eps-in-sqrt: (r - mean)/sqrt(var + eps), var + eps formed exactly; no branch (zero
        # variance has r - mean = 0, so the advantage is exactly 0 by itself)
        den = mp.sqrt(M(var + e))
        return M(mean), std, [M(x - mean) / den if x != mean else mpf(0) for x in qs]
    if kind == "std>0":
        branch = var > 0
    elif kind == "std>eps":
        branch = var > e * e                 # std > eps, decided exactly
    else:
        branch = True                        # plain (r - mean)/(std + eps)
    adv = []
    for x in qs:
        num = x - mean
        if not branch or num == 0:
            adv.append(mpf(0))
        else:
            adv.append(M(num) / (std + M(e)))
    return M(mean), std, adv


def grpo_group_f32(r, ctx):
    """verl before May 2026, vectorised one-pass form, every operation in binary32:
    s1 = sum r, s2 = sum r*r accumulated left to right; mean = s1/G;
    var = ((s2/G - mean*mean) * G) / (G - 1), floored at 1e-6; adv = (r - mean)/(sqrt(var) + 1e-6)."""
    G = len(r)
    if G == 1:
        raise Reject("EDOM", "verl-vectorized-old rejects a group of one")
    ctx.exact = True
    rf = [f32(x) for x in r]
    s1 = 0.0
    s2 = 0.0
    for x in rf:
        s1 = f32_op("+", s1, x)
        s2 = f32_op("+", s2, f32_op("*", x, x))
    g = f32(float(G))
    mean = f32_op("/", s1, g)
    ex2 = f32_op("/", s2, g)
    m2 = f32_op("*", mean, mean)
    var = f32_op("-", ex2, m2)
    var = f32_op("*", var, g)
    var = f32_op("/", var, f32(float(G - 1)))
    floor = f32(1e-6)
    if not (var >= floor):
        var = floor if not math.isnan(var) else var
    std = f32_op("sqrt", var)
    den = f32_op("+", std, f32(1e-6))
    adv = [f32_op("/", f32_op("-", x, mean), den) for x in rf]
    return mpf(mean), mpf(std), [mpf(a) for a in adv]


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


def grpo_validate_rewards(r, variant, ctx):
    for x in r:
        if math.isinf(x):
            raise Reject("ENAN", "infinite reward")
        if math.isnan(x) and variant != "trl":
            raise Reject("ENAN", "NaN reward (only trl accepts NaN)")


def eval_grpo_adv(variant, params, inputs, ctx):
    r = get_input(inputs, params, "rewards")
    G = get_input(inputs, params, "group_size", "G")
    rule = grpo_rule_of(variant, params, ctx)
    N = len(r)
    if not isinstance(G, int) or G <= 0:
        raise Reject("EINVAL", "group size must be a positive integer")
    if N == 0:
        raise Reject("EINVAL", "no rewards")
    if N % G != 0:
        raise Reject("EINVAL", "N = %d is not a multiple of G = %d" % (N, G))
    grpo_validate_rewards(r, variant, ctx)
    if rule[2] == "batch":
        return {"adv": grpo_batch_std(r, G, rule, ctx)}
    adv = []
    for k in range(0, N, G):
        _, _, a = grpo_group(r[k:k + G], variant, rule, ctx)
        adv.extend(a)
    return {"adv": adv}


def grpo_batch_std(r, G, rule, ctx):
    """batch-std (TRL scale_rewards="batch"): (r - group mean)/(std of the whole batch + eps)."""
    ddof, eps, _ = rule
    qs = [Q(x) for x in r]
    N = len(qs)
    if N - ddof <= 0:
        ctx.ambiguous.append("batch of one: batch std (ddof 1) undefined")
        return [mpf(0)] * N
    _, var = grpo_stats(qs, ddof)
    den = mp.sqrt(M(var)) + M(Q(eps))
    adv = []
    for k in range(0, N, G):
        grp = qs[k:k + G]
        mean = sum(grp, Fraction(0)) / G
        for x in grp:
            num = x - mean
            adv.append(M(num) / den if num != 0 else mpf(0))
    return adv


# GRPO-ADV-EX: the seeds' worked examples (000 §5.1 [1,0,0,1]; 001; 003 [0.2,0.8,0.4,0.6]):
# mean, std (ddof of the variant; for seed-001 the sigma that is compared with eps) and adv.
def eval_grpo_adv_ex(variant, params, inputs, ctx):
    r = get_input(inputs, params, "rewards")
    rule = grpo_rule_of(variant, params, ctx)
    if len(r) == 0:
        raise Reject("EINVAL", "no rewards")
    grpo_validate_rewards(r, variant, ctx)
    if rule[2] == "batch":
        raise Reject("EINVAL", "batch-std is not a one-group rule", firm=False)
    mean, std, adv = grpo_group(r, variant, rule, ctx)
    out = {"adv": adv}
    if mean is not None:
        out["mean"] = mean
    if std is not None:
        out["std"] = std
    elif rule[2] == "nostd" and len(r) >= 1:
        # no-std has no std of its own; report the sample std (ddof 1) if asked for
        qs = [Q(x) for x in r]
        if len(qs) >= 2:
            _, var = grpo_stats(qs, 1)
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
SENS_SKIP = {("GRPO-ADV", "verl-vectorized-old"), ("GRPO-ADV-EX", "verl-vectorized-old")}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py)
# ----------------------------------------------------------------------------------------------

# CONVENTIONS.md, "Group advantage": detector vectors.
def grpo_detectors(run):
    F = "GRPO-ADV"
    one = {"rewards": [1.0, 0.0, 0.0, 0.0], "group_size": 4}
    label = "[1,0,0,0]"
    for v in ("seed-003", "trl", "verl", "openrlhf", "batch-std", "verl-vectorized-old"):
        run.printed(F, v, one, "adv", 0, "1.5", label + " ddof 1")
        for i in (1, 2, 3):
            run.printed(F, v, one, "adv", i, "-0.5", label + " ddof 1")
    for v in ("seed-000", "seed-001"):
        run.printed(F, v, one, "adv", 0, "1.7320508", label + " ddof 0")
        for i in (1, 2, 3):
            run.printed(F, v, one, "adv", i, "-0.5773503", label + " ddof 0")
    run.printed(F, "no-std", one, "adv", 0, "0.75", label + " no std")
    for i in (1, 2, 3):
        run.printed(F, "no-std", one, "adv", i, "-0.25", label + " no std")
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
    for v, mag in (("trl", "0.292893"), ("verl", "0.697246"), ("openrlhf", "0.707097"),
                   ("seed-000", "1"), ("eps-in-sqrt", "0.408248")):
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
    # "one-pass float32 variance breaks"
    run.not_printed(F, "verl-vectorized-old", big, "adv", 1, "0.7071",
                    label + " one-pass binary32")
    # TRL's eps 1e-4 moves the 4th digit: 0.5/(0.70710678 + 1e-4) = 0.70700680
    run.printed(F, "trl", big, "adv", 1, "0.7070", label + " trl (eps 1e-4)")

    g1 = {"rewards": [0.5], "group_size": 1}
    label = "group of one"
    run.printed(F, "trl", g1, "adv", 0, "0", label + " trl -> 0")
    run.printed(F, "eps-in-sqrt", g1, "adv", 0, "0", label + " eps-in-sqrt -> 0")
    run.exact(F, "verl", g1, "adv", 0,
              lambda: mpf(0.5) / (1 + mpf(1e-6)), label + " verl -> r/(1+1e-6)")
    run.invalid(F, "openrlhf", g1, label + " openrlhf refuses")
    run.invalid(F, "verl-vectorized-old", g1, label + " verl-vectorized-old refuses")


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

    label = "000 §5.1 / 001 all equal -> 0"
    r = {"rewards": [1.0, 1.0, 1.0]}
    for v in ("seed-000", "seed-001", "seed-003"):
        for i in range(3):
            run.printed(F, v, r, "adv", i, "0", label)
    for v in ("seed-000", "seed-001", "seed-003", "trl", "verl", "openrlhf", "no-std",
              "batch-std", "verl-vectorized-old", "eps-in-sqrt"):
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
# "Group advantage" and the seeds' examples
# ----------------------------------------------------------------------------------------------

def selftest(t):
    expect = t.near

    def adv(variant, r, G=None):
        return eval_grpo_adv(variant, {}, {"rewards": r, "group_size": G or len(r)},
                             Ctx())["adv"]
    expect("seed-003 [1,0,0,0]", adv("seed-003", [1.0, 0, 0, 0])[0], mpf(1.5))
    expect("seed-000 [1,0,0,0]", adv("seed-000", [1.0, 0, 0, 0])[0], mp.sqrt(3))
    expect("no-std [1,0,0,0]", adv("no-std", [1.0, 0, 0, 0])[1], mpf(-0.25))
    expect("trl [0,1e-4]", adv("trl", [0.0, 1e-4])[1], mpf("0.292893"), mpf(2e-6))
    expect("verl [0,1e-4]", adv("verl", [0.0, 1e-4])[1], mpf("0.697246"), mpf(2e-6))
    expect("openrlhf [0,1e-4]", adv("openrlhf", [0.0, 1e-4])[1], mpf("0.707097"), mpf(2e-6))
    expect("seed-000 [0,1e-4]", adv("seed-000", [0.0, 1e-4])[1], mpf(1))
    expect("seed-000 [1,0,0,1]", adv("seed-000", [1.0, 0, 0, 1])[1], mpf(-1))
    expect("seed-001 [1,1,1]", adv("seed-001", [1.0, 1, 1])[0] + 1, mpf(1))
    expect("verl group of one", adv("verl", [2.0])[0], 2 / (1 + mpf(1e-6)))
    expect("eps-in-sqrt [0,1e-4]", adv("eps-in-sqrt", [0.0, 1e-4])[1], mpf("0.408248"),
           mpf(2e-6))
    expect("eps-in-sqrt [1,0,0,0]", adv("eps-in-sqrt", [1.0, 0, 0, 0])[0],
           mpf(0.75) / mp.sqrt(mpf(0.25) + mpf(1e-8)))
    expect("eps-in-sqrt group of one", adv("eps-in-sqrt", [2.0])[0] + 1, mpf(1))
    expect("verl [10000,10001]", adv("verl", [10000.0, 10001.0])[1], mpf("0.7071"), mpf(1e-4))
    f32adv = adv("verl-vectorized-old", [10000.0, 10001.0])[1]
    t.true("one-pass float32 variance breaks on [10000,10001]: %s" % mpf_str(f32adv, 10),
           abs(f32adv) > 10)
    ex = eval_grpo_adv_ex("seed-003", {}, {"rewards": [0.2, 0.8, 0.4, 0.6]}, Ctx())
    expect("003 sigma ddof 1", ex["std"], mp.sqrt(mpf(2) / 30), mpf(1e-15))
    expect("003 A_2 ddof 1", ex["adv"][1], mpf("1.161895003862225"), mpf(1e-14))
    nanadv = adv("trl", [1.0, float("nan"), 0.0, 0.0])
    expect("trl NaN left out", nanadv[0], (1 - mpf(1) / 3) / (mp.sqrt(mpf(1) / 3) + mpf(1e-4)))


SELFTESTS = [selftest]
