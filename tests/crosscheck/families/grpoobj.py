"""The GRPO objective and its loss-shaping relatives, GRPO-OBJ, GRPO-AGG, GRPO-DR, GRPO-GSPO,
GRPO-GMPO and GRPO-GFPO (000 eq. 13.24-13.26, sections 5 and 11; 003 "GRPO", "GMPO", "GSPO",
"GFPO", "Dr.GRPO"; 004 "Dr.GRPO"; CONVENTIONS.md "Ratio and clipping" and "Loss aggregation"),
from those definitions and, where they leave room, the code of the library a variant cites:
TRL trl/trainer/grpo_trainer.py (_compute_loss: loss types grpo, bnpo, dr_grpo, dapo, cispo;
importance_sampling_level "sequence"); verl verl/trainer/ppo/core_algos.py (agg_loss,
compute_policy_loss_gspo, compute_policy_loss_geo_mean, compute_policy_loss_cispo).

One group of G sequences of one prompt; the tokens of sequence i lie contiguously, lens[i] of
them, and mask says which count (n_i = the masked tokens of sequence i).  Inputs are exact
binary64 (a Fraction when "sens" perturbs one): log-ratios, clips in log space, means and
aggregation weights are exact rationals, rounded once to the working precision; only exp is
evaluated in mpmath.  Every "grad" is d loss / d logp_t, the loss the negative objective, 0 at
masked tokens; where a clip binds the gradient is that of the clipped (constant) term, 0.

Bad input, in the order checked: arrays of the wrong length or empty (EINVAL), non-finite
entries (ENAN), a sequence length < 1 or lengths that do not add up to the tokens (EINVAL), a
mask entry other than 0 and 1 or a sequence without a masked token (EDOM), a parameter outside
its domain (EDOM).
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import is_int, qreal, param, M, Reject, get_input


# ----------------------------------------------------------------------------------------------
# Reading the inputs
# ----------------------------------------------------------------------------------------------

def real_arrays(inputs, names, what):
    """Arrays of one length >= 1 (EINVAL otherwise); checked for finiteness afterwards."""
    raw = []
    for n in names:
        v = inputs.get(n)
        if not isinstance(v, list):
            raise Reject("EINVAL", "%s is not an array" % n)
        raw.append(v)
    n0 = len(raw[0])
    for n, a in zip(names, raw):
        if len(a) != n0:
            raise Reject("EINVAL", "%s has %d entries, %s %d" % (n, len(a), names[0], n0))
    if n0 == 0:
        raise Reject("EINVAL", "no %s" % what)
    return n0, raw


def finite(raw, names):
    return [[qreal(x, "%s[%d]" % (n, i)) for i, x in enumerate(a)] for n, a in zip(names, raw)]


def layout(inputs, tok_names, seq_names):
    """(n, G, token arrays, sequence arrays, lens, mask, seq) with seq[t] the sequence of token
    t and n_i the masked count of sequence i."""
    n, traw = real_arrays(inputs, tok_names, "token")
    lens = inputs.get("lens")
    mask = inputs.get("mask")
    if not isinstance(lens, list) or len(lens) == 0:
        raise Reject("EINVAL", "no sequence")
    G = len(lens)
    sraw = []
    for nm in seq_names:
        v = inputs.get(nm)
        if not isinstance(v, list) or len(v) != G:
            raise Reject("EINVAL", "%s must hold one entry per sequence (%d)" % (nm, G))
        sraw.append(v)
    if not isinstance(mask, list) or len(mask) != n:
        raise Reject("EINVAL", "the mask must hold one entry per token (%d)" % n)
    tok = finite(traw, tok_names)
    seqv = finite(sraw, seq_names)
    for i, L in enumerate(lens):
        if not is_int(L) or L < 1:
            raise Reject("EINVAL", "lens[%d] = %r: an empty sequence" % (i, L))
    if sum(lens) != n:
        raise Reject("EINVAL", "the lengths add up to %d, not %d tokens" % (sum(lens), n))
    for i, x in enumerate(mask):
        if not is_int(x) or x not in (0, 1):
            raise Reject("EDOM", "mask[%d] = %r is not 0 or 1" % (i, x))
    seq, cnt = [], []
    t = 0
    for i, L in enumerate(lens):
        c = 0
        for _ in range(L):
            seq.append(i)
            c += mask[t]
            t += 1
        if c == 0:
            raise Reject("EDOM", "sequence %d has no token in the mask" % i)
        cnt.append(c)
    return n, G, tok, seqv, lens, mask, seq, cnt


def clip_params(inputs, params, lo_name="eps_low", hi_name="eps_high", need_low=True):
    eh = param(inputs, params, hi_name)
    el = param(inputs, params, lo_name) if need_low else Fraction(0)
    if el < 0 or eh < 0:
        raise Reject("EDOM", "a clip range is >= 0")
    if need_low and el >= 1:
        raise Reject("EDOM", "eps_low < 1: the lower bound 1 - eps_low is > 0")
    return el, eh


def clampq(x, lo, hi):
    return min(max(x, lo), hi)


def k3(ell):
    """k3 = e^{-l} - 1 + l (13.26) at a precision that survives its cancellation."""
    if ell == 0:
        return mpf(0)
    extra = max(0, -2 * int(math.floor(math.log2(abs(float(ell)) or 1e-300)))) + 20
    with mp.workprec(mp.prec + extra):
        v = mp.exp(-M(ell)) - 1 + M(ell)
    return +v


def dk3(ell):
    """d k3 / d logp = 1 - e^{-l} (l = logp - ref_logp), without cancellation near 0."""
    return -mp.expm1(-M(ell))


def ppo_term(ell, A, el, eh):
    """13.12 for one token: s = min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A), rho = e^l,
    and ds/dl (rho A where the unclipped term is the min, 0 where the clip binds)."""
    rho = mp.exp(M(ell))
    lo, hi = M(1 - el), M(1 + eh)
    u = rho * M(A)
    v = min(max(rho, lo), hi) * M(A)
    if u <= v:
        return u, u
    return v, mpf(0)


# ----------------------------------------------------------------------------------------------
# GRPO-OBJ (13.24-13.26) and CISPO
# ----------------------------------------------------------------------------------------------

def eval_obj(variant, params, inputs, ctx):
    """seed-000: J = (1/G) sum_i (1/n_i) sum_t s_t - beta K, K = sum_t k3_t / sum_i n_i (the
      KL once per prompt, outside the sums: its per-token estimate 13.26 averaged over the
      group's tokens);
    seed-003: J = (1/G) sum_i (1/n_i) sum_t (s_t - beta k3_t), K = (1/G) sum_i (1/n_i) sum k3;
    cispo-trl: J = sum_t (sg(min(rho, eps_high)) A logp_t - beta k3_t) / N (TRL loss_type
      "cispo": the detached ratio capped at eps_high, no lower bound, a token mean);
    cispo-verl: the same with sg(clip(rho, 1 - eps_low, 1 + eps_high)), the log-ratio clamped
      to [-20, 20] first (verl compute_policy_loss_cispo, token-mean);
    loss = -J, grad_t = d loss / d logp_t."""
    names = ("logp", "old_logp", "ref_logp")
    n, G, (logp, old, ref), (adv,), lens, mask, seq, cnt = layout(inputs, names, ("adv",))
    cispo = variant.startswith("cispo")
    if variant not in ("seed-000", "seed-003", "cispo-trl", "cispo-verl"):
        raise ValueError("GRPO-OBJ: unknown variant %r" % variant)
    el, eh = clip_params(inputs, params, need_low=(variant != "cispo-trl"))
    beta = param(inputs, params, "beta")
    if beta < 0:
        raise Reject("EDOM", "beta >= 0")
    N = sum(cnt)
    Bf = M(beta)
    terms, kterms, grad = [], [], []
    for t in range(n):
        i = seq[t]
        if not mask[t]:
            grad.append(mpf(0))
            continue
        A = adv[i]
        ell = logp[t] - old[t]
        lk = logp[t] - ref[t]
        kv, kd = k3(lk), dk3(lk)
        if cispo:
            if variant == "cispo-trl":
                c = min(mp.exp(M(ell)), M(eh))
            else:
                lc = clampq(ell, Fraction(-20), Fraction(20))
                c = min(max(mp.exp(M(lc)), M(1 - el)), M(1 + eh))
            s, ds = c * M(A) * M(logp[t]), c * M(A)
            w = M(Fraction(1, N))
            terms.append(w * s)
            kterms.append(w * kv)
            grad.append(-w * (ds - Bf * kd))
        else:
            s, ds = ppo_term(ell, A, el, eh)
            w = M(Fraction(1, G * cnt[i]))
            terms.append(w * s)
            kterms.append((M(Fraction(1, N)) if variant == "seed-000" else w) * kv)
            wk = M(Fraction(1, N)) if variant == "seed-000" else w
            grad.append(-(w * ds - Bf * wk * kd))
    K = mp.fsum(kterms)
    J = mp.fsum(terms) - Bf * K
    return {"loss": -J, "kl": K, "grad": grad}


# ----------------------------------------------------------------------------------------------
# GRPO-AGG (CONVENTIONS.md "Loss aggregation"; 000 13.32-13.33)
# ----------------------------------------------------------------------------------------------

def eval_agg(variant, params, inputs, ctx):
    """value = sum_t w_t L_t with the weights of the mode (exact rationals):
    token-mean 1/N; seq-mean-token-mean 1/(B n_i); seq-mean-token-sum 1/B;
    seq-mean-token-sum-norm 1/(B L_const); ...-no-b 1/L_const (verl before Feb 2026);
    group-mean-length (003 Dr.GRPO) 1/(B Lbar), Lbar = N/B; token-sum 1 (003's pseudo-code);
    micro-batch-token-mean 1/(K N_k): K consecutive micro-batches of `micro` sequences."""
    n, G, (L,), _, lens, mask, seq, cnt = layout(inputs, ("L",), ())
    N, B = sum(cnt), G
    if variant == "token-mean":
        wseq = [Fraction(1, N)] * B
    elif variant == "seq-mean-token-mean":
        wseq = [Fraction(1, B * c) for c in cnt]
    elif variant == "seq-mean-token-sum":
        wseq = [Fraction(1, B)] * B
    elif variant in ("seq-mean-token-sum-norm", "seq-mean-token-sum-norm-no-b"):
        Lc = param(inputs, params, "L_const")
        if Lc <= 0:
            raise Reject("EDOM", "L_const > 0")
        wseq = [1 / (B * Lc) if variant == "seq-mean-token-sum-norm" else 1 / Lc] * B
    elif variant == "group-mean-length":
        Lbar = Fraction(N, B)
        wseq = [1 / (B * Lbar)] * B
    elif variant == "token-sum":
        wseq = [Fraction(1)] * B
    elif variant == "micro-batch-token-mean":
        mb = inputs.get("micro")
        if not is_int(mb) or mb < 1 or B % mb:
            raise Reject("EDOM", "micro must divide the number of sequences")
        K = B // mb
        wseq = []
        for k in range(K):
            Nk = sum(cnt[k * mb:(k + 1) * mb])
            wseq += [Fraction(1, K * Nk)] * mb
    else:
        raise ValueError("GRPO-AGG: unknown variant %r" % variant)
    w = [wseq[seq[t]] if mask[t] else Fraction(0) for t in range(n)]
    value = sum((wt * Lt for wt, Lt in zip(w, L)), Fraction(0))
    ctx.exact = True
    return {"value": M(value), "weights": [M(x) for x in w]}


# ----------------------------------------------------------------------------------------------
# GRPO-DR (Dr.GRPO in three readings)
# ----------------------------------------------------------------------------------------------

def adv_no_std(r):
    m = sum(r, Fraction(0)) / len(r)
    return [M(x - m) for x in r]


def adv_seed003(r):
    """(r - mean)/std, ddof 1, eps 0; zero variance or a group of one -> 0 (GRPO-ADV seed-003)."""
    G = len(r)
    m = sum(r, Fraction(0)) / G
    if G < 2:
        return [mpf(0)] * G
    var = sum(((x - m) ** 2 for x in r), Fraction(0)) / (G - 1)
    if var == 0:
        return [mpf(0)] * G
    sd = mp.sqrt(M(var))
    return [M(x - m) / sd for x in r]


def eval_dr(variant, params, inputs, ctx):
    """s_t = min(rho A_i, clip(rho) A_i) (13.12) with A_i of the reading:
    seed-000 (a): A = r - mean, J = (1/G) sum_i sum_t s_t (no std, no 1/|y_i|);
    seed-003 (b): A = (r - mean)/std (ddof 1, 003's GRPO advantage), J = (1/G) sum_i (1/Lbar)
      sum_t s_t, Lbar = (1/G) sum_i n_i;
    trl (c): A = r - mean, J = sum_{i,t} s_t / (G L_const) (loss_type "dr_grpo").
    loss = -J."""
    n, G, (logp, old), (r,), lens, mask, seq, cnt = layout(inputs, ("logp", "old_logp"),
                                                           ("rewards",))
    el, eh = clip_params(inputs, params)
    if variant == "seed-000":
        A = adv_no_std(r)
        w = [Fraction(1, G)] * G
    elif variant == "seed-003":
        A = adv_seed003(r)
        w = [1 / (G * Fraction(sum(cnt), G))] * G
    elif variant == "trl":
        Lc = param(inputs, params, "L_const")
        if Lc <= 0:
            raise Reject("EDOM", "L_const > 0")
        A = adv_no_std(r)
        w = [1 / (G * Lc)] * G
    else:
        raise ValueError("GRPO-DR: unknown variant %r" % variant)
    terms, grad = [], []
    for t in range(n):
        i = seq[t]
        if not mask[t]:
            grad.append(mpf(0))
            continue
        rho = mp.exp(M(logp[t] - old[t]))
        u = rho * A[i]
        v = min(max(rho, M(1 - el)), M(1 + eh)) * A[i]
        s, ds = (u, u) if u <= v else (v, mpf(0))
        terms.append(M(w[i]) * s)
        grad.append(-M(w[i]) * ds)
    return {"loss": -mp.fsum(terms), "adv": A, "grad": grad}


# ----------------------------------------------------------------------------------------------
# GRPO-GSPO
# ----------------------------------------------------------------------------------------------

def eval_gspo(variant, params, inputs, ctx):
    """m_i = (1/n_i) sum_t (logp_t - old_logp_t), s_i = e^{m_i} (verl: e^{min(m_i, 10)});
    loss = -(1/G) sum_i min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i);
    grad_t = -(1/G) A_i s_i / n_i where the unclipped term is the min (and the cap does not
    bind strictly), else 0.  verl's "GSPO-token" form sg(s_i) pi_t/sg(pi_t) has the same value
    and, with A per sequence, the same gradient under seq-mean-token-mean."""
    n, G, (logp, old), (adv,), lens, mask, seq, cnt = layout(inputs, ("logp", "old_logp"),
                                                             ("adv",))
    el, eh = clip_params(inputs, params)
    if variant not in ("gspo", "verl"):
        raise ValueError("GRPO-GSPO: unknown variant %r" % variant)
    msum = [Fraction(0)] * G
    for t in range(n):
        if mask[t]:
            msum[seq[t]] += logp[t] - old[t]
    s, active, terms = [], [], []
    for i in range(G):
        m = msum[i] / cnt[i]
        capped = variant == "verl" and m > 10
        si = mp.exp(M(min(m, Fraction(10)) if variant == "verl" else m))
        u = si * M(adv[i])
        v = min(max(si, M(1 - el)), M(1 + eh)) * M(adv[i])
        if u <= v:
            terms.append(u)
            active.append(not capped)
        else:
            terms.append(v)
            active.append(False)
        s.append(si)
    grad = []
    for t in range(n):
        i = seq[t]
        if mask[t] and active[i]:
            grad.append(-M(adv[i]) * s[i] / (G * cnt[i]))
        else:
            grad.append(mpf(0))
    return {"loss": -mp.fsum(terms) / G, "s": s, "grad": grad}


# ----------------------------------------------------------------------------------------------
# GRPO-GMPO
# ----------------------------------------------------------------------------------------------

def sgn(x):
    return (x > 0) - (x < 0)


def eval_gmpo(variant, params, inputs, ctx):
    """gmpo: l_t = logp_t - old_logp_t, lc = clamp(l, -clip_low, clip_high), the sign-aware
    min in log space lm = sgn(A) min(sgn(A) l, sgn(A) lc) (the bound that binds is the upper one
    for A > 0, the lower for A < 0), ratio_i = exp((1/n_i) sum_t lm_t) (the geometric mean of
    the clipped token ratios), loss = -(1/G) sum_i A_i ratio_i;
    grad_t = -(1/G) A_i ratio_i / n_i where lm_t = l_t, else 0.
    seed-example: arith = mean of terms, geo = (prod terms)^{1/n} (003: [1,1,1,10])."""
    if variant == "seed-example":
        terms = inputs.get("terms")
        if not isinstance(terms, list) or not terms:
            raise Reject("EINVAL", "no term")
        q = [qreal(x, "terms") for x in terms]
        if any(x < 0 for x in q):
            raise Reject("EDOM", "the terms are >= 0 (absolute values)")
        ar = M(sum(q, Fraction(0)) / len(q))
        if any(x == 0 for x in q):
            geo = mpf(0)
        else:
            geo = mp.exp(mp.fsum(mp.log(M(x)) for x in q) / len(q))
        return {"arith": ar, "geo": geo}
    if variant != "gmpo":
        raise ValueError("GRPO-GMPO: unknown variant %r" % variant)
    n, G, (logp, old), (adv,), lens, mask, seq, cnt = layout(inputs, ("logp", "old_logp"),
                                                             ("adv",))
    cl, ch = param(inputs, params, "clip_low"), param(inputs, params, "clip_high")
    if cl < 0 or ch < 0:
        raise Reject("EDOM", "a clip range is >= 0")
    sums = [Fraction(0)] * G
    free = []
    for t in range(n):
        i = seq[t]
        ell = logp[t] - old[t]
        sg = sgn(adv[i])
        lc = clampq(ell, -cl, ch)
        lm = sg * min(sg * ell, sg * lc)
        free.append(sg * ell <= sg * lc)
        if mask[t]:
            sums[i] += lm
    ratio = [mp.exp(M(sums[i] / cnt[i])) for i in range(G)]
    loss = -mp.fsum(M(adv[i]) * ratio[i] for i in range(G)) / G
    grad = []
    for t in range(n):
        i = seq[t]
        if mask[t] and free[t] and adv[i] != 0:
            grad.append(-M(adv[i]) * ratio[i] / (G * cnt[i]))
        else:
            grad.append(mpf(0))
    return {"loss": loss, "ratio": ratio, "grad": grad}


# ----------------------------------------------------------------------------------------------
# GRPO-GFPO
# ----------------------------------------------------------------------------------------------

def eval_gfpo(variant, params, inputs, ctx):
    """Keep k of N responses: shortest (by length, ties to the lower index), or
    token-efficiency (by r_i/|o_i| descending, ties to the shorter, then the lower index).
    keep[i] = 1 for a kept response; key[i] = |o_i| or r_i/|o_i|; mean_kept = the mean reward
    of the kept responses (GFPO's group baseline over the retained subset)."""
    r = inputs.get("rewards")
    lens = inputs.get("lens")
    if not isinstance(r, list) or not isinstance(lens, list) or not r:
        raise Reject("EINVAL", "no response")
    if len(lens) != len(r):
        raise Reject("EINVAL", "one length per reward")
    rq = [qreal(x, "rewards") for x in r]
    for i, L in enumerate(lens):
        if not is_int(L) or L < 1:
            raise Reject("EINVAL", "lens[%d] = %r: an empty response" % (i, L))
    k = inputs.get("k")
    if not is_int(k) or not 1 <= k <= len(r):
        raise Reject("EDOM", "1 <= k <= N")
    N = len(r)
    if variant == "shortest":
        order = sorted(range(N), key=lambda i: (lens[i], i))
        key = [M(Fraction(L)) for L in lens]
    elif variant == "token-efficiency":
        order = sorted(range(N), key=lambda i: (-rq[i] / lens[i], lens[i], i))
        key = [M(rq[i] / lens[i]) for i in range(N)]
    else:
        raise ValueError("GRPO-GFPO: unknown variant %r" % variant)
    kept = set(order[:k])
    keep = [mpf(1) if i in kept else mpf(0) for i in range(N)]
    mean = M(sum((rq[i] for i in kept), Fraction(0)) / k)
    return {"keep": keep, "key": key, "mean_kept": mean}


EVALUATORS = {
    "GRPO-OBJ": eval_obj,
    "GRPO-AGG": eval_agg,
    "GRPO-DR": eval_dr,
    "GRPO-GSPO": eval_gspo,
    "GRPO-GMPO": eval_gmpo,
    "GRPO-GFPO": eval_gfpo,
}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py) and self-tests
# ----------------------------------------------------------------------------------------------

AGG_DETECTOR = {"L": [2.0, 1.0, 1.0, 1.0], "lens": [1, 3], "mask": [1, 1, 1, 1]}


def grpoobj_detectors(run):
    label = "CONVENTIONS Loss aggregation detector L = [[2], [1, 1, 1]]"
    for v, want, extra in (("token-mean", "1.25", {}), ("seq-mean-token-mean", "1.5", {}),
                           ("seq-mean-token-sum", "2.5", {}),
                           ("seq-mean-token-sum-norm", "0.625", {"L_const": 4.0}),
                           ("seq-mean-token-sum-norm-no-b", "1.25", {"L_const": 4.0})):
        run.exact("GRPO-AGG", v, dict(AGG_DETECTOR, **extra), "value", None,
                  lambda w=want: mpf(w), label)
    run.printed("GRPO-GSPO", "gspo", {"logp": [0.3, -0.1], "old_logp": [0.0, 0.0],
                                      "adv": [1.0], "lens": [2], "mask": [1, 1]},
                "s", 0, "1.105170918", "CONVENTIONS GSPO detector s = e^0.1")
    run.printed("GRPO-GMPO", "seed-example", {"terms": [1.0, 1.0, 1.0, 10.0]}, "arith", None,
                "3.25", "003 GMPO example")
    run.printed("GRPO-GMPO", "seed-example", {"terms": [1.0, 1.0, 1.0, 10.0]}, "geo", None,
                "1.778", "003 GMPO example")


def selftest_grads(t):
    """Every grad against a central difference of its loss, away from the kinks."""
    from xcore import Ctx, central
    base = {"logp": [-1.0, -0.5, -2.0, -0.75, -1.5], "old_logp": [-1.1, -0.4, -2.05, -0.7, -1.4],
            "ref_logp": [-0.9, -0.6, -2.2, -0.8, -1.45], "adv": [0.75, -1.25],
            "lens": [2, 3], "mask": [1, 1, 1, 1, 1]}
    for v, p in (("seed-000", {"eps_low": 0.2, "eps_high": 0.2, "beta": 0.04}),
                 ("seed-003", {"eps_low": 0.2, "eps_high": 0.2, "beta": 0.04})):
        g = eval_obj(v, p, base, Ctx())["grad"]
        for j in range(5):
            t.near("GRPO-OBJ %s grad[%d]" % (v, j), g[j],
                   central(eval_obj, v, p, base, "logp", j), mpf(10) ** -40)
    for v, p in (("gspo", {"eps_low": 0.2, "eps_high": 0.2}),
                 ("verl", {"eps_low": 0.2, "eps_high": 0.2})):
        g = eval_gspo(v, p, base, Ctx())["grad"]
        for j in range(5):
            t.near("GRPO-GSPO %s grad[%d]" % (v, j), g[j],
                   central(eval_gspo, v, p, base, "logp", j), mpf(10) ** -40)
    p = {"clip_low": 0.4, "clip_high": 0.4}
    g = eval_gmpo("gmpo", p, base, Ctx())["grad"]
    for j in range(5):
        t.near("GRPO-GMPO grad[%d]" % j, g[j], central(eval_gmpo, "gmpo", p, base, "logp", j),
               mpf(10) ** -40)
    dr = dict(base, rewards=[1.0, 0.0])
    for v, p in (("seed-000", {"eps_low": 0.2, "eps_high": 0.2}),
                 ("seed-003", {"eps_low": 0.2, "eps_high": 0.2}),
                 ("trl", {"eps_low": 0.2, "eps_high": 0.2, "L_const": 512.0})):
        g = eval_dr(v, p, dr, Ctx())["grad"]
        for j in range(5):
            t.near("GRPO-DR %s grad[%d]" % (v, j), g[j], central(eval_dr, v, p, dr, "logp", j),
                   mpf(10) ** -40)


def selftest_identities(t):
    """seed 003's Dr.GRPO reading equals the token mean over the group; GSPO at the detector."""
    from xcore import Ctx
    ins = {"L": [0.5, -1.25, 2.0, 0.75, 3.0], "lens": [2, 3], "mask": [1, 1, 1, 1, 1]}
    a = eval_agg("group-mean-length", {}, ins, Ctx())["value"]
    b = eval_agg("token-mean", {}, ins, Ctx())["value"]
    t.near("group-mean-length = token-mean", a, b)
    g = eval_gmpo("seed-example", {}, {"terms": [1.0, 1.0, 1.0, 10.0]}, Ctx())
    t.near("GMPO example geo = 10^(1/4)", g["geo"], mp.root(10, 4))
    s = eval_gspo("gspo", {"eps_low": 0.2, "eps_high": 0.2},
                  {"logp": [0.3, -0.1], "old_logp": [0.0, 0.0], "adv": [1.0], "lens": [2],
                   "mask": [1, 1]}, Ctx())["s"][0]
    t.near("GSPO detector", s, mp.exp(M((Fraction(0.3) + Fraction(-0.1)) / 2)))


DETECTORS = [grpoobj_detectors]
SELFTESTS = [selftest_grads, selftest_identities]
