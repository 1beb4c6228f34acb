"""The DAPO family, DAPO-OBJ, DAPO-CLIPHIGHER, DAPO-DYNSAMPLE, DAPO-TOKLOSS, DAPO-TOKLOSS-EX and
DAPO-OVERLONG (000 section 6, eq. 13.29-13.34; 003 "DAPO"; 004; CONVENTIONS.md "Ratio and
clipping", "Loss aggregation", "DAPO overlong penalty and dynamic sampling"), from the definitions
in those documents and, where they leave room, the behaviour of the library a variant cites:
verl (compute_policy_loss_vanilla with clip_ratio_low/high/c; compute_grpo_outcome_advantage; the
DAPO reward manager's overlong buffer; the trainer's filter_groups loop), OpenRLHF 0.11
(PolicyLoss with eps_clip_low_high; group_norm; the overlong penalty; dynamic filtering with
dynamic_filtering_reward_range (0, 1)), TRL 1.10 (GRPOTrainer loss_type "dapo", epsilon and
epsilon_high; get_soft_overlong_punishment).

Inputs are exact binary64 (a Fraction when "sens" perturbs one).  Log-ratios, clips, means, the
overlong penalty and the weights are exact rationals rounded once; only exp, log and sqrt are
evaluated in mpmath.  The refill accounting of dynamic sampling is a sum over binomial
probabilities, each formed from exact rationals, summed until a geometric bound of the tail is
below 2^-(prec + 40) of the sum.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import is_int, qreal, param, Ctx, M, Reject, get_input, central, refused, f32


# ----------------------------------------------------------------------------------------------
# Reading the inputs
# ----------------------------------------------------------------------------------------------

def real_array(inputs, name, n=None):
    """A real array of n >= 1 entries (EINVAL for another length or none), then ENAN for a
    non-finite entry."""
    v = inputs.get(name)
    if not isinstance(v, list):
        raise Reject("EINVAL", "%s is not an array" % name)
    if n is not None and len(v) != n:
        raise Reject("EINVAL", "%s has %d entries, expected %d" % (name, len(v), n))
    if not v:
        raise Reject("EINVAL", "%s is empty" % name)
    return v


def int_array(inputs, name, n=None):
    v = inputs.get(name)
    if not isinstance(v, list) or not all(is_int(x) for x in v):
        raise Reject("EINVAL", "%s is not an array of integers" % name)
    if n is not None and len(v) != n:
        raise Reject("EINVAL", "%s has %d entries, expected %d" % (name, len(v), n))
    if not v:
        raise Reject("EINVAL", "%s is empty" % name)
    return v


def int_input(inputs, name):
    v = inputs.get(name)
    if not is_int(v):
        raise Reject("EINVAL", "%s is not an integer" % name)
    return v


def clamp(x, lo, hi):
    return min(max(x, lo), hi)


# ----------------------------------------------------------------------------------------------
# The clipped token term (13.29, 13.31) and the group advantage (13.23) it multiplies
# ----------------------------------------------------------------------------------------------

# variant -> (log-ratio clamped to [-20, 20], dual clip for A < 0)
#   seed-000   13.29/13.31 as written: no clamp, no dual clip
#   trl        GRPOTrainer: coef_1 = exp(log_ratio), no clamp, clamp(coef_1, 1 - epsilon_low,
#              1 + epsilon_high), no dual clip (its delta is off by default)
#   verl       compute_policy_loss_vanilla: negative_approx_kl clamped to [-20, 20]; for A < 0
#              max(., clip_ratio_c A), clip_ratio_c 3
#   openrlhf   PolicyLoss: log-ratio clamped to [-20, 20], dual clip off by default
#   symmetric  PPO's 0.2/0.2 (13.12) of the seeds, for the contrast; no clamp (the libraries'
#              symmetric defaults are PPO-CLIP's conventions, with their clamps)
CLIP = {
    "seed-000": (False, False),
    "trl": (False, False),
    "verl": (True, True),
    "openrlhf": (True, False),
    "symmetric": (False, False),
}


def clipped_terms(variant, logp, old, adv_tok, mask, el, eh, c):
    """Per token: s = min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A) (dual clip max(s, c A) for
    A < 0 where the variant has it), rho = e^l, l = logp - old_logp (clamped to [-20, 20] where
    the variant clamps); ds/dl = rho A where rho A is the active term, else 0 (a clip, the dual
    bound or a binding log-ratio clamp); clipped = clip(rho) A < rho A.  Masked tokens: 0."""
    clamped, dual = CLIP[variant]
    lo, hi = M(1 - el), M(1 + eh)
    out = []
    for i in range(len(logp)):
        ell = logp[i] - old[i]
        lc = clamp(ell, Fraction(-20), Fraction(20)) if clamped else ell
        rho = mp.exp(M(lc))
        A = M(adv_tok[i])
        u = rho * A
        v = u if lo <= rho <= hi else clamp(rho, lo, hi) * A
        s = min(u, v)
        d = u if u <= v else mpf(0)
        if dual and adv_tok[i] < 0:
            ca = M(c) * A
            if ca > s:
                s, d = ca, mpf(0)
        if lc != ell:
            d = mpf(0)
        if not mask[i]:
            s, d = mpf(0), mpf(0)
        out.append((s, rho, d, mask[i] and v < u))
    return out


def clip_params(variant, inputs, params):
    el, eh = param(inputs, params, "eps_low"), param(inputs, params, "eps_high")
    if el < 0 or eh < 0 or el >= 1:
        raise Reject("EDOM", "0 <= eps_low < 1 and eps_high >= 0")
    c = None
    if CLIP[variant][1]:
        c = param(inputs, params, "c")
        if not c > 1:
            raise Reject("EDOM", "the dual-clip bound c must be > 1")
    return el, eh, c


def finite_rationals(vals, name):
    return [qreal(x, "%s[%d]" % (name, i)) for i, x in enumerate(vals)]


def eval_cliphigher(variant, params, inputs, ctx):
    """DAPO-CLIPHIGHER (13.31): the clipped surrogate per token with the decoupled range
    [1 - eps_low, 1 + eps_high]; loss = -sum_t mask_t s_t / N (the token mean), grad[t] =
    d loss / d logp_t = -mask_t (ds_t/dl_t)/N, clipfrac = the fraction of masked tokens where
    clip(rho) A < rho A."""
    if variant not in CLIP:
        raise ValueError("DAPO-CLIPHIGHER: unknown variant %r" % variant)
    logp = real_array(inputs, "logp")
    n = len(logp)
    old = real_array(inputs, "old_logp", n)
    adv = real_array(inputs, "adv", n)
    mask = int_array(inputs, "mask", n)
    logp, old, adv = (finite_rationals(logp, "logp"), finite_rationals(old, "old_logp"),
                      finite_rationals(adv, "adv"))
    for i, m in enumerate(mask):
        if m not in (0, 1):
            raise Reject("EDOM", "mask[%d] = %r" % (i, m))
    N = sum(mask)
    if N == 0:
        raise Reject("EDOM", "no token in the mask")
    el, eh, c = clip_params(variant, inputs, params)
    terms = clipped_terms(variant, logp, old, adv, mask, el, eh, c)
    k = sum(1 for t in terms if t[3])
    # TRL (is_region_clipped.float()), verl (torch.gt(...).float()) and OpenRLHF
    # (torch.lt(surr2, surr1).float()) average a float32 0/1 tensor: f32(k/N), float64 runs too
    cf = mpf(f32(Fraction(k, N))) if variant in CLIPFRAC_F32 else mpf(k) / N
    return {"loss": -mp.fsum(t[0] for t in terms) / N,
            "surrogate": [t[0] for t in terms],
            "ratio": [t[1] for t in terms],
            "grad": [-t[2] / N for t in terms],
            "clipfrac": cf}


# DAPO-CLIPHIGHER's library variants: the clip fraction a binary32 mean
CLIPFRAC_F32 = ("trl", "verl", "openrlhf")


# variant -> the group-advantage convention (CONVENTIONS.md "Group advantage"):
#   (ddof, eps added to the std, zero when std = 0, a group of one: "zero" | "raw" | "refuse")
ADV = {
    "seed-000": (0, Fraction(0), True, "zero"),                 # 13.23, ddof 0 (its example)
    "trl": (1, Fraction(1e-4), False, "zero"),                  # TRL scale_rewards="group"
    "verl": (1, Fraction(1e-6), False, "raw"),                  # compute_grpo_outcome_advantage
    "openrlhf": (1, Fraction(1e-9), False, "refuse"),           # group_norm
}


def group_advantages(variant, r):
    """13.23 under the variant's convention, for one group of exact rewards r."""
    ddof, eps, guard, single = ADV[variant]
    G = len(r)
    if G == 1:
        if single == "refuse":
            raise Reject("EDOM", "a group of one sample")
        if single == "zero":
            return [mpf(0)]
        return [M(r[0]) / (1 + M(eps))]              # mean 0, std 1
    mean = sum(r, Fraction(0)) / G
    ss = sum(((x - mean) ** 2 for x in r), Fraction(0))
    std = mp.sqrt(M(ss / (G - ddof)))
    if ss == 0 and guard:
        return [mpf(0)] * G
    if ss == 0 and eps == 0:
        raise Reject("EDOM", "zero std and no eps")
    return [M(x - mean) / (std + M(eps)) for x in r]


def eval_obj(variant, params, inputs, ctx):
    """DAPO-OBJ (13.29), beta = 0: one group of G responses, response i of lengths[i] tokens laid
    out one after another in logp and old_logp; A_{i,t} = the group advantage of r_i (13.23);
      objective = (1/sum_i |o_i|) sum_i sum_t s_{i,t},   s the clipped term of 13.31,
    grad[t] = d objective / d logp_t = (ds_t/dl_t) / sum_i |o_i|; adv[i] the advantages;
    clipfrac the fraction of tokens where clip(rho) A < rho A."""
    if variant not in ADV:
        raise ValueError("DAPO-OBJ: unknown variant %r" % variant)
    logp = real_array(inputs, "logp")
    n = len(logp)
    old = real_array(inputs, "old_logp", n)
    lengths = int_array(inputs, "lengths")
    G = len(lengths)
    rewards = real_array(inputs, "rewards", G)
    logp, old = finite_rationals(logp, "logp"), finite_rationals(old, "old_logp")
    r = finite_rationals(rewards, "rewards")
    if any(L < 1 for L in lengths):
        raise Reject("EDOM", "a response without a token (or a negative length)")
    if sum(lengths) != n:
        raise Reject("EINVAL", "the lengths do not add up to the number of tokens")
    el, eh, c = clip_params(variant, inputs, params)
    adv = group_advantages(variant, r)
    adv_q = []
    for i, L in enumerate(lengths):
        adv_q += [adv[i]] * L
    # the advantages are irrational (a square root): clipped_terms takes them as mpf
    terms = clipped_terms_mp(variant, logp, old, adv_q, el, eh, c)
    return {"objective": mp.fsum(t[0] for t in terms) / n,
            "adv": adv,
            "grad": [t[2] / n for t in terms],
            "clipfrac": mpf(sum(1 for t in terms if t[3])) / n}


def clipped_terms_mp(variant, logp, old, adv_mp, el, eh, c):
    """clipped_terms with the advantages as mpf values (every token counts)."""
    clamped, dual = CLIP[variant]
    lo, hi = M(1 - el), M(1 + eh)
    out = []
    for i in range(len(logp)):
        ell = logp[i] - old[i]
        lc = clamp(ell, Fraction(-20), Fraction(20)) if clamped else ell
        rho = mp.exp(M(lc))
        A = adv_mp[i]
        u = rho * A
        v = u if lo <= rho <= hi else clamp(rho, lo, hi) * A
        s = min(u, v)
        d = u if u <= v else mpf(0)
        if dual and A < 0:
            ca = M(c) * A
            if ca > s:
                s, d = ca, mpf(0)
        if lc != ell:
            d = mpf(0)
        out.append((s, rho, d, v < u))
    return out


# ----------------------------------------------------------------------------------------------
# DAPO-TOKLOSS, DAPO-TOKLOSS-EX (13.32 against 13.33)
# ----------------------------------------------------------------------------------------------

def weights(variant, lengths):
    """Per-token weight of response i and the share of the whole loss its tokens carry:
    sample-level (13.32) 1/(G |y_i|) and 1/G; token-level (13.33) 1/sum|y| and |y_i|/sum|y|."""
    if any(L < 1 for L in lengths):
        raise Reject("EDOM", "a response without a token (or a negative length)")
    G, T = len(lengths), sum(lengths)
    if variant == "sample-level":
        return ([M(Fraction(1, G * L)) for L in lengths], [M(Fraction(1, G))] * G)
    if variant == "token-level":
        return ([M(Fraction(1, T))] * G, [M(Fraction(L, T)) for L in lengths])
    raise ValueError("unknown variant %r" % variant)


def eval_tokloss(variant, params, inputs, ctx):
    """As weights, but a response may be empty (0 tokens): it weighs 0 (token and share), and the
    sample-level G counts it (sample-level: TRL's mean over rows, verl's trainer
    global_batch_size) or not (sample-level-nonempty: OpenRLHF's global_batch_size of the
    sequences with a token).  A negative length, or no token at all, is refused (EDOM)."""
    lengths = int_array(inputs, "lengths")
    if not lengths:
        raise Reject("EINVAL", "no response")
    if any(L < 0 for L in lengths):
        raise Reject("EDOM", "a negative length")
    T = sum(lengths)
    if T == 0:
        raise Reject("EDOM", "no response has a token")
    G = len(lengths)
    if variant == "sample-level-nonempty":
        G = sum(1 for L in lengths if L > 0)
        variant = "sample-level"
    tw, rw = [], []
    for L in lengths:
        if L == 0:
            tw.append(mpf(0))
            rw.append(mpf(0))
        elif variant == "sample-level":
            tw.append(M(Fraction(1, G * L)))
            rw.append(M(Fraction(1, G)))
        elif variant == "token-level":
            tw.append(M(Fraction(1, T)))
            rw.append(M(Fraction(L, T)))
        else:
            raise ValueError("unknown variant %r" % variant)
    return {"token_weight": tw, "response_weight": rw}


def eval_tokloss_ex(variant, params, inputs, ctx):
    """A short and a long answer: the per-token weight of the short over the long one (10 under
    13.32 for 100 and 1000 tokens, 1 under 13.33) and the share of the long one (1/2, 10/11)."""
    s, l = int_input(inputs, "short"), int_input(inputs, "long")
    if s < 1 or l < 1:
        raise Reject("EDOM", "an answer without a token")
    tw, rw = weights(variant, [s, l])
    ratio = Fraction(l, s) if variant == "sample-level" else Fraction(1)
    return {"short_weight": tw[0], "long_weight": tw[1], "weight_ratio": M(ratio),
            "long_share": rw[1]}


# ----------------------------------------------------------------------------------------------
# DAPO-OVERLONG (13.34) and the overlong filter
# ----------------------------------------------------------------------------------------------

def overlong_one(variant, L, Lmax, Lc, f):
    """paper (13.34, TRL): 0 up to Lmax - Lc, ((Lmax - Lc) - L)/Lc up to Lmax, -1 beyond;
    verl: min(-(L - (Lmax - Lc))/Lc f, 0), not floored; openrlhf: for L > Lmax - Lc,
    -min(L - (Lmax - Lc), Lc)/Lc f, else 0."""
    e = L - (Lmax - Lc)
    if variant == "paper":
        if e <= 0:
            return Fraction(0)
        if L <= Lmax:
            return Fraction(-e, Lc)
        return Fraction(-1)
    if variant == "verl":
        # -exceed_len / overlong_buffer_len on a 0-dim int64 tensor: a float32 true division,
        # then times the factor in float32; min(., 0) keeps 0 for a non-negative quotient
        q = f32(Fraction(f32(Fraction(-e))) / Fraction(f32(Fraction(Lc))))
        p = f32(Fraction(q) * Fraction(f32(f)))
        return min(Fraction(p), Fraction(0))
    if variant == "openrlhf":
        ex = min(e, Lc)                     # exceed_len capped at the buffer: none with Lc = 0
        if ex <= 0:
            return Fraction(0)
        return -Fraction(ex, Lc) * f
    raise ValueError("DAPO-OVERLONG: unknown variant %r" % variant)


def eval_overlong(variant, params, inputs, ctx):
    """penalty[i] by the variant's reading; filter[i] = 0 for a response that reached L_max
    tokens (cut at the generation limit: its loss masked), 1 otherwise."""
    lengths = int_array(inputs, "lengths")
    Lmax, Lc = int_input(inputs, "L_max"), int_input(inputs, "L_cache")
    f = Fraction(1)
    if variant != "paper":
        f = param(inputs, params, "factor")
        if f < 0:
            raise Reject("EDOM", "factor < 0")
    if any(L < 0 for L in lengths):
        raise Reject("EDOM", "a negative length")
    if Lmax < 1 or Lc < 0 or Lc > Lmax:
        raise Reject("EDOM", "need L_max >= 1 and 0 <= L_cache <= L_max")
    if Lc == 0 and variant == "verl":
        raise Reject("EDOM", "L_cache = 0: verl asserts overlong_buffer.len > 0")
    if variant == "verl":
        ctx.exact = True                    # binary32 values, exactly
    pen = [M(overlong_one(variant, L, Lmax, Lc, f)) for L in lengths]
    return {"penalty": pen, "filter": [mpf(0) if L >= Lmax else mpf(1) for L in lengths]}


# ----------------------------------------------------------------------------------------------
# DAPO-DYNSAMPLE (13.30): the keep rules and the refill accounting
# ----------------------------------------------------------------------------------------------

def eval_keep(variant, params, inputs, ctx):
    """Groups of G consecutive rewards.  verl: keep when the population std (ddof 0) > 0 or the
    group has one sample; openrlhf: keep when 0 < mean < 1 (strict); seed-000: keep when
    0 < #{r > 0} < G (13.30, a correct answer being a positive reward).  keep[i], mean[i] and
    std[i] are those of the group of response i; kept the number of groups kept."""
    r = real_array(inputs, "rewards")
    G = int_input(inputs, "group_size")
    q = finite_rationals(r, "rewards")
    if G < 1:
        raise Reject("EDOM", "group_size < 1")
    if len(q) % G:
        raise Reject("EINVAL", "the rewards do not make whole groups")
    keep, mean, std, kept = [], [], [], 0
    for g in range(0, len(q), G):
        grp = q[g:g + G]
        mu = sum(grp, Fraction(0)) / G
        var = sum(((x - mu) ** 2 for x in grp), Fraction(0)) / G
        if variant == "verl":
            k = var > 0 or G == 1
        elif variant == "openrlhf":
            k = 0 < mu < 1
        elif variant == "seed-000":
            k = 0 < sum(1 for x in grp if x > 0) < G
        else:
            raise ValueError("DAPO-DYNSAMPLE: unknown variant %r" % variant)
        kept += 1 if k else 0
        keep += [mpf(1) if k else mpf(0)] * G
        mean += [M(mu)] * G
        std += [mp.sqrt(M(var))] * G
    return {"keep": keep, "mean": mean, "std": std, "kept": mpf(kept)}


def keep_prob(variant, p, G):
    """The probability that a group of G binary rewards of success rate p is kept: 1 - p^G -
    (1 - p)^G, both rules alike; verl keeps a group of one always (q = 1)."""
    if variant == "verl-refill" and G == 1:
        return Fraction(1)
    return 1 - p ** G - (1 - p) ** G


def eval_refill(variant, params, inputs, ctx):
    """verl-refill: rounds of M prompts are generated until B groups are kept; the number of
    rounds R is the first r with Bin(rM, q) >= B, so E[R] = sum_{r >= 0} P(Bin(rM, q) <= B - 1),
    and the groups sampled are M E[R].  openrlhf-refill: prompt by prompt until B are kept, a
    negative binomial: E[groups] = B/q."""
    p = param(inputs, params, "p")
    G = int_input(inputs, "G")
    B = int_input(inputs, "B")
    if not 0 <= p <= 1:
        raise Reject("EDOM", "p is not a probability")
    if G < 1 or B < 1:
        raise Reject("EDOM", "G >= 1 and B >= 1")
    q = keep_prob(variant, p, G)
    if q == 0:
        raise Reject("EDOM", "no group is ever kept: the refill never ends")
    if variant == "openrlhf-refill":
        return {"keep_prob": M(q), "expected_groups": M(Fraction(B) / q)}
    if variant != "verl-refill":
        raise ValueError("DAPO-DYNSAMPLE: unknown variant %r" % variant)
    Mb = int_input(inputs, "M")
    if Mb < 1:
        raise Reject("EDOM", "M >= 1")
    drop = 1 - q
    with mp.workprec(mp.prec + 40):
        qm, dm = M(q), M(drop)
        total = mpf(1)              # r = 0: nothing kept yet, a first round always runs
        r = 1
        while True:
            n = r * Mb
            if drop == 0:           # every group kept: Bin(n, 1) = n
                if n >= B:
                    break
                total += 1
                r += 1
                continue
            term = dm ** n          # P(Bin(n, q) <= B - 1), term by term
            t = term
            for j in range(0, min(B - 1, n)):
                term = term * (n - j) / (j + 1) * qm / dm
                t += term
            total += t
            if n >= B - 1:
                # every later term is at most rho times the one before it
                rho = (1 + mpf(Mb) / (n - B + 2)) ** (B - 1) * dm ** Mb
                if rho < 1 and t * rho / (1 - rho) < total * mpf(2) ** (-mp.prec):
                    break
            r += 1
            if r > 10 ** 6:
                raise Reject("EMAXITER", "too many rounds")
    return {"keep_prob": M(q), "expected_rounds": +total, "expected_groups": Mb * total}


def eval_dynsample(variant, params, inputs, ctx):
    if variant in ("verl", "openrlhf", "seed-000"):
        return eval_keep(variant, params, inputs, ctx)
    return eval_refill(variant, params, inputs, ctx)


EVALUATORS = {
    "DAPO-OBJ": eval_obj,
    "DAPO-CLIPHIGHER": eval_cliphigher,
    "DAPO-DYNSAMPLE": eval_dynsample,
    "DAPO-TOKLOSS": eval_tokloss,
    "DAPO-TOKLOSS-EX": eval_tokloss_ex,
    "DAPO-OVERLONG": eval_overlong,
}

CLIP_PARAMS = {"seed-000": {"eps_low": 0.2, "eps_high": 0.28},
               "trl": {"eps_low": 0.2, "eps_high": 0.28},
               "verl": {"eps_low": 0.2, "eps_high": 0.28, "c": 3.0},
               "openrlhf": {"eps_low": 0.2, "eps_high": 0.28},
               "symmetric": {"eps_low": 0.2, "eps_high": 0.2}}

PARAMS = {
    "DAPO-CLIPHIGHER": CLIP_PARAMS,
    "DAPO-OBJ": {v: CLIP_PARAMS[v] for v in ADV},
    "DAPO-OVERLONG": {"paper": {}, "verl": {"factor": 1.0}, "openrlhf": {"factor": 1.0}},
    "DAPO-DYNSAMPLE": {"verl": {}, "openrlhf": {}, "seed-000": {}, "verl-refill": {},
                       "openrlhf-refill": {}},
    "DAPO-TOKLOSS": {"sample-level": {}, "token-level": {}, "sample-level-nonempty": {}},
    "DAPO-TOKLOSS-EX": {"sample-level": {}, "token-level": {}},
}


def params_check(formula):
    def check(variant, params):
        want = PARAMS[formula].get(variant)
        if want is None:
            return ["%s: unknown variant" % variant]
        bad = []
        for k, v in want.items():
            if k not in params:
                bad.append("%s: no param %s" % (variant, k))
            elif float(params[k]) != v:
                bad.append("%s: %s = %r, expected %r" % (variant, k, params[k], v))
        for k in params:
            if k not in want:
                bad.append("%s: unexpected param %s" % (variant, k))
        return bad
    return check


PARAM_CHECKS = {f: params_check(f) for f in PARAMS}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py)
# ----------------------------------------------------------------------------------------------

DET = {"lengths": [16000, 18000, 20480], "L_max": 20480, "L_cache": 4096}


def dapo_detectors(run):
    label = "CONVENTIONS DAPO overlong (L_max 20480, L_cache 4096)"
    for v in ("paper", "verl", "openrlhf"):
        run.printed("DAPO-OVERLONG", v, DET, "penalty", 0, "0", label + " 16000 -> 0")
        run.printed("DAPO-OVERLONG", v, DET, "penalty", 1, "-0.39453125", label + " 18000")
        run.printed("DAPO-OVERLONG", v, DET, "penalty", 2, "-1", label + " 20480 -> -1")
    label = "FORMULAS DAPO-TOKLOSS-EX: 100 and 1000 tokens"
    ex = {"short": 100, "long": 1000}
    run.printed("DAPO-TOKLOSS-EX", "sample-level", ex, "weight_ratio", None, "10", label)
    run.printed("DAPO-TOKLOSS-EX", "token-level", ex, "weight_ratio", None, "1", label)
    run.printed("DAPO-TOKLOSS-EX", "token-level", ex, "long_share", None, "0.909", label)
    run.printed("DAPO-TOKLOSS-EX", "sample-level", ex, "long_share", None, "0.5", label)


DETECTORS = [dapo_detectors]


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400
# ----------------------------------------------------------------------------------------------

def selftest_overlong(t):
    for v in ("paper", "verl", "openrlhf"):
        p = PARAMS["DAPO-OVERLONG"][v]
        g = eval_overlong(v, p, DET, Ctx())
        t.true("%s detector 0, -0.39453125, -1" % v,
               g["penalty"] == [0, mpf(-0.39453125), -1])
    far = {"lengths": [24576], "L_max": 20480, "L_cache": 4096}
    t.true("beyond L_max verl goes on to -2",
           eval_overlong("verl", {"factor": 1.0}, far, Ctx())["penalty"][0] == -2)
    t.true("beyond L_max paper and openrlhf stay at -1",
           eval_overlong("paper", {}, far, Ctx())["penalty"][0] == -1
           and eval_overlong("openrlhf", {"factor": 1.0}, far, Ctx())["penalty"][0] == -1)
    t.true("L_cache > L_max -> EDOM", refused(eval_overlong, "paper", {},
                                              dict(DET, L_cache=30000)) == "EDOM")


def selftest_clip(t):
    """The objective's gradient against central differences away from the kinks."""
    ins = {"logp": [-1.0, -0.3, -2.0, -0.9, 0.5, -0.125],
           "old_logp": [-1.1, -0.4, -1.9, -1.0, 0.25, -0.2],
           "lengths": [2, 3, 1], "rewards": [1.0, 0.0, 0.5]}
    for v in ADV:
        p = PARAMS["DAPO-OBJ"][v]
        g = eval_obj(v, p, ins, Ctx())
        for i in range(6):
            t.near("DAPO-OBJ %s grad[%d]" % (v, i), g["grad"][i],
                   central(eval_obj, v, p, ins, "logp", i, "objective"), mpf(10) ** -40)
    ch = {"logp": [-1.0, -0.3, -2.0, -0.9, 0.5, -0.125],
          "old_logp": [-1.25, -0.625, -1.5, -2.25, 0.375, -0.5],
          "adv": [0.75, 1.5, -0.8, -2.0, -1.0, 0.3125], "mask": [1, 1, 1, 1, 0, 1]}
    for v in CLIP:
        p = CLIP_PARAMS[v]
        g = eval_cliphigher(v, p, ch, Ctx())
        for i in range(6):
            t.near("DAPO-CLIPHIGHER %s grad[%d]" % (v, i), g["grad"][i],
                   central(eval_cliphigher, v, p, ch, "logp", i, "loss"), mpf(10) ** -40)
    one = {"logp": [math.log(1.25)], "old_logp": [0.0], "adv": [1.0], "mask": [1]}
    t.near("rho 1.25, A 1: clip-higher does not clip", eval_cliphigher(
        "seed-000", CLIP_PARAMS["seed-000"], one, Ctx())["surrogate"][0], mp.exp(mpf(math.log(1.25))))
    t.near("rho 1.25, A 1: symmetric clips at 1.2", eval_cliphigher(
        "symmetric", CLIP_PARAMS["symmetric"], one, Ctx())["surrogate"][0], 1 + mpf(0.2))


def selftest_refill(t):
    """E[R] by the series against a direct recursion on the deficit (Markov chain over the
    groups still needed), and openrlhf's B/q."""
    p, G, B, Mb = Fraction(1, 4), 4, 3, 2
    q = keep_prob("verl-refill", p, G)
    got = eval_refill("verl-refill", {}, {"p": 0.25, "G": G, "B": B, "M": Mb}, Ctx())
    # E[rounds from deficit d] = 1 + sum_k P(k kept of M) E[rounds from d - k] (d - k > 0),
    # solved exactly in rationals (k = 0 on the left)
    from math import comb
    E = {0: Fraction(0)}
    for d in range(1, B + 1):
        acc = Fraction(1)
        for k in range(1, Mb + 1):
            pk = comb(Mb, k) * q ** k * (1 - q) ** (Mb - k)
            acc += pk * E[max(d - k, 0)]
        E[d] = acc / (1 - (1 - q) ** Mb)
    t.near("verl E[rounds] against the deficit recursion", got["expected_rounds"], M(E[B]),
           mpf(10) ** -60)
    got = eval_refill("openrlhf-refill", {}, {"p": 0.25, "G": G, "B": B}, Ctx())
    t.near("openrlhf B/q", got["expected_groups"], M(Fraction(B) / q))
    t.true("binary rewards: verl and openrlhf keep the same groups",
           eval_keep("verl", {}, {"rewards": [1.0, 0.0, 1.0, 1.0, 0.0, 0.0], "group_size": 2},
                     Ctx())["keep"] ==
           eval_keep("openrlhf", {}, {"rewards": [1.0, 0.0, 1.0, 1.0, 0.0, 0.0],
                                      "group_size": 2}, Ctx())["keep"])


SELFTESTS = [selftest_overlong, selftest_clip, selftest_refill]
