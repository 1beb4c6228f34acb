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


def layout_empty(inputs, tok_names):
    """As layout, but a sequence may be empty (lens[i] = 0, or no token in the mask), as a padded
    batch holds one: lengths >= 0 adding up to the tokens (EINVAL), a 0/1 mask (EDOM), at least one
    token in the mask (EDOM).  Returns (n, G, token arrays, lens, mask, seq, cnt)."""
    n, traw = real_arrays(inputs, tok_names, "token")
    lens = inputs.get("lens")
    mask = inputs.get("mask")
    if not isinstance(lens, list) or len(lens) == 0:
        raise Reject("EINVAL", "no sequence")
    if not isinstance(mask, list) or len(mask) != n:
        raise Reject("EINVAL", "the mask must hold one entry per token (%d)" % n)
    tok = finite(traw, tok_names)
    for i, L in enumerate(lens):
        if not is_int(L) or L < 0:
            raise Reject("EINVAL", "lens[%d] = %r: a negative length" % (i, L))
    if sum(lens) != n:
        raise Reject("EINVAL", "the lengths add up to %d, not %d tokens" % (sum(lens), n))
    for i, x in enumerate(mask):
        if not is_int(x) or x not in (0, 1):
            raise Reject("EDOM", "mask[%d] = %r is not 0 or 1" % (i, x))
    seq, cnt, t = [], [], 0
    for i, L in enumerate(lens):
        c = 0
        for _ in range(L):
            seq.append(i)
            c += mask[t]
            t += 1
        cnt.append(c)
    if sum(cnt) == 0:
        raise Reject("EDOM", "no token in the mask")
    return n, len(lens), tok, lens, mask, seq, cnt


def seq_weight(mode, c, B, N, T, Lc=None):
    """The weight of a token of a sequence of c masked tokens (exact rational): token-mean 1/N,
    seq-mean-token-mean 1/(B c) (0 for an empty sequence), seq-mean-token-sum 1/B, sum-norm
    1/(B L_const), without B 1/L_const, over the padded width 1/(B T), token-sum 1."""
    if mode in ("token-mean", "group-mean-length"):
        return Fraction(1, N)
    if mode == "seq-mean-token-mean":
        return Fraction(1, B * c) if c else Fraction(0)
    if mode == "seq-mean-token-sum":
        return Fraction(1, B)
    if mode == "norm":
        return 1 / (B * Lc)
    if mode == "no-b":
        return 1 / Lc
    if mode == "width":
        return Fraction(1, B * T)
    if mode == "token-sum":
        return Fraction(1)
    raise ValueError(mode)


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


def ppo_term(ell, A, el, eh, clamp=False, dual=None):
    """13.12 for one token: s = min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A), rho = e^l,
    and ds/dl (rho A where the unclipped term is the min, 0 where the clip binds).  clamp: l
    clamped to [-20, 20] first (verl, OpenRLHF; no gradient where it binds); dual = c: for A < 0,
    s = max(s, c A) (verl's dual clip; no gradient where it binds)."""
    lc = clampq(ell, Fraction(-20), Fraction(20)) if clamp else ell
    rho = mp.exp(M(lc))
    lo, hi = M(1 - el), M(1 + eh)
    u = rho * M(A)
    v = min(max(rho, lo), hi) * M(A)
    if u <= v:
        s, d = u, u
    else:
        s, d = v, mpf(0)
    if dual is not None and A < 0 and M(dual) * M(A) > s:
        s, d = M(dual) * M(A), mpf(0)
    if lc != ell:
        d = mpf(0)
    return s, d


# ----------------------------------------------------------------------------------------------
# GRPO-OBJ (13.24-13.26) and CISPO
# ----------------------------------------------------------------------------------------------

OBJ_CONV = {
    # kind, the loss's aggregation, the kl's, clamp, dual clip c, the KL estimate
    "seed-000": ("outside", "seq-mean-token-mean", "token-mean", False, None, "k3"),
    "seed-003": ("inside", "seq-mean-token-mean", "seq-mean-token-mean", False, None, "k3"),
    "cispo-trl": ("cispo-trl", "token-mean", "token-mean", False, None, "k3"),
    "cispo-verl": ("cispo-verl", "token-mean", "token-mean", True, None, "cap"),
    "trl": ("inside", "seq-mean-token-mean", "token-mean", False, None, "k3"),
    "verl": ("inside", "token-mean", "token-mean", True, Fraction(3), "cap"),
    "openrlhf": ("inside", "token-mean", "token-mean", True, None, "cap"),
}


def eval_obj(variant, params, inputs, ctx):
    """With w_t the weight of the variant's aggregation (1/(G n_i) for 13.24, 1/N for the token
    mean) and k_t the estimate (k3, or min(k3, 10) for verl's low_var_kl and OpenRLHF's
    compute_approx_kl, no gradient above 10):
    seed-000: J = sum_t w_t s_t - beta K, K = sum_t k3_t / sum_i n_i (the KL once per prompt,
      outside the sums: its per-token estimate 13.26 averaged over the group's tokens);
    seed-003: J = sum_t w_t (s_t - beta k3_t), K = the same seq-mean-token-mean of k3;
    trl: seed-003's J, K the token mean (TRL's logged kl, global_masked_mean);
    verl: J = (1/N) sum_t (s_t - beta k_t), s_t with the log-ratio clamped to [-20, 20] and the dual
      clip max(s, 3 A) for A < 0; K the token mean of k_t (verl's kl_loss);
    openrlhf: the same without the dual clip (PolicyLoss + kl_loss * kl_ctl);
    cispo-trl: J = sum_t (sg(min(rho, eps_high)) A logp_t - beta k3_t) / N (TRL loss_type
      "cispo": the detached ratio capped at eps_high, no lower bound, a token mean);
    cispo-verl: the same with sg(clip(rho, 1 - eps_low, 1 + eps_high)), the log-ratio clamped
      to [-20, 20] first, k_t = min(k3, 10) (verl compute_policy_loss_cispo, token-mean);
    loss = -J, grad_t = d loss / d logp_t."""
    names = ("logp", "old_logp", "ref_logp")
    n, G, (logp, old, ref), (adv,), lens, mask, seq, cnt = layout(inputs, names, ("adv",))
    if variant not in OBJ_CONV:
        raise ValueError("GRPO-OBJ: unknown variant %r" % variant)
    kind, agg, kagg, clamp, dual, kform = OBJ_CONV[variant]
    cispo = kind.startswith("cispo")
    el, eh = clip_params(inputs, params, need_low=(variant != "cispo-trl"))
    beta = param(inputs, params, "beta")
    if beta < 0:
        raise Reject("EDOM", "beta >= 0")
    N = sum(cnt)
    T = max(lens)
    Bf = M(beta)
    terms, kterms, grad = [], [], []
    kout = []
    for t in range(n):
        i = seq[t]
        if not mask[t]:
            grad.append(mpf(0))
            continue
        A = adv[i]
        ell = logp[t] - old[t]
        lk = logp[t] - ref[t]
        kv, kd = k3(lk), dk3(lk)
        if kform == "cap" and kv > 10:
            kv, kd = mpf(10), mpf(0)
        w = M(seq_weight(agg, cnt[i], G, N, T))
        wk = M(seq_weight(kagg, cnt[i], G, N, T))
        if cispo:
            if variant == "cispo-trl":
                c = min(mp.exp(M(ell)), M(eh))
            else:
                lc = clampq(ell, Fraction(-20), Fraction(20))
                c = min(max(mp.exp(M(lc)), M(1 - el)), M(1 + eh))
            s, ds = c * M(A) * M(logp[t]), c * M(A)
        else:
            s, ds = ppo_term(ell, A, el, eh, clamp, dual)
        terms.append(w * s)
        if kind == "outside":
            kterms.append(M(Fraction(1, N)) * kv)
            grad.append(-(w * ds - Bf * M(Fraction(1, N)) * kd))
        else:
            kterms.append(w * kv)
            grad.append(-w * (ds - Bf * kd))
        kout.append(wk * kv)
    J = mp.fsum(terms) - Bf * mp.fsum(kterms)
    return {"loss": -J, "kl": mp.fsum(kout), "grad": grad}


# ----------------------------------------------------------------------------------------------
# GRPO-AGG (CONVENTIONS.md "Loss aggregation"; 000 13.32-13.33)
# ----------------------------------------------------------------------------------------------

AGG_MODES = {
    "token-mean": "token-mean", "seq-mean-token-mean": "seq-mean-token-mean",
    "seq-mean-token-sum": "seq-mean-token-sum", "seq-mean-token-sum-norm": "norm",
    "seq-mean-token-sum-norm-no-b": "no-b", "group-mean-length": "group-mean-length",
    "token-sum": "token-sum", "seq-mean-token-sum-norm-width": "width",
    "seq-mean-token-mean-nonempty": "seq-mean-token-mean",
}


def eval_agg(variant, params, inputs, ctx):
    """value = sum_t w_t L_t with the weights of the mode (exact rationals), over B sequences, N
    masked tokens, padded width T = max lens:
    token-mean 1/N; seq-mean-token-mean 1/(B n_i); seq-mean-token-sum 1/B;
    seq-mean-token-sum-norm 1/(B L_const); ...-no-b 1/L_const (verl before Feb 2026);
    ...-width 1/(B T) (verl's loss_scale_factor unset); group-mean-length (003 Dr.GRPO)
    1/(B Lbar), Lbar = N/B; token-sum 1 (003's pseudo-code); seq-mean-token-mean-nonempty
    1/(B' n_i), B' the sequences with a token (OpenRLHF's sample-level);
    micro-batch-token-mean 1/(K N_k): K consecutive micro-batches of `micro` sequences, each by its
    own token count (an empty micro-batch weighs nothing, counts in K); global-token-mean 1/N
    whatever the micro-batching (micro checked).  A sequence may be empty (no token in the mask, or
    of length 0): it weighs 0 and, but for -nonempty, counts in B."""
    n, G, (L,), lens, mask, seq, cnt = layout_empty(inputs, ("L",))
    N, B, T = sum(cnt), G, max(lens)
    if variant in ("micro-batch-token-mean", "global-token-mean"):
        mb = inputs.get("micro")
        if not is_int(mb) or mb < 1 or B % mb:
            raise Reject("EDOM", "micro must divide the number of sequences")
        if variant == "global-token-mean":
            wseq = [Fraction(1, N)] * B
        else:
            K = B // mb
            wseq = []
            for k in range(K):
                Nk = sum(cnt[k * mb:(k + 1) * mb])
                wseq += [Fraction(1, K * Nk) if Nk else Fraction(0)] * mb
    elif variant in AGG_MODES:
        mode = AGG_MODES[variant]
        Lc = None
        if mode in ("norm", "no-b"):
            Lc = param(inputs, params, "L_const")
            if Lc <= 0:
                raise Reject("EDOM", "L_const > 0")
        Bm = sum(1 for c in cnt if c) if variant.endswith("-nonempty") else B
        wseq = [seq_weight(mode, c, Bm, N, T, Lc) for c in cnt]
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
    trl (c): A = r - mean, J = sum_{i,t} s_t / (G L_const) (loss_type "dr_grpo");
    verl: A = r - mean (a group of one has verl's mean 0: A = r), s_t with the log-ratio clamped to
      [-20, 20] and the dual clip max(s, 3 A) for A < 0, J = sum s / (G L_const) (loss_scale_factor)
      or sum s / (G T), T = max lens, the padded width (verl-width, loss_scale_factor unset);
    openrlhf: A = clamp(r - mean, -10, 10) (--reward.clip_range), s_t with the clamp, no dual clip,
      J = sum s / N (the token-level loss); a group of one refused (its CLI assertion).
    loss = -J."""
    n, G, (logp, old), (r,), lens, mask, seq, cnt = layout(inputs, ("logp", "old_logp"),
                                                           ("rewards",))
    el, eh = clip_params(inputs, params)
    clamp, dual = False, None
    N, T = sum(cnt), max(lens)
    if variant == "seed-000":
        A = adv_no_std(r)
        w = [Fraction(1, G)] * G
    elif variant == "seed-003":
        A = adv_seed003(r)
        w = [1 / (G * Fraction(N, G))] * G
    elif variant in ("trl", "verl", "verl-width"):
        A = adv_no_std(r)
        if variant == "verl-width":
            w = [Fraction(1, G * T)] * G
        else:
            Lc = param(inputs, params, "L_const")
            if Lc <= 0:
                raise Reject("EDOM", "L_const > 0")
            w = [1 / (G * Lc)] * G
        if variant != "trl":
            clamp, dual = True, Fraction(3)
            if G == 1:
                A = [M(r[0])]                   # verl: mean 0 for a group of one
    elif variant == "openrlhf":
        if G == 1:
            raise Reject("EDOM", "OpenRLHF asserts n_samples_per_prompt > 1")
        m = sum(r, Fraction(0)) / G
        A = [M(clampq(x - m, Fraction(-10), Fraction(10))) for x in r]
        w = [Fraction(1, N)] * G
        clamp = True
    else:
        raise ValueError("GRPO-DR: unknown variant %r" % variant)
    terms, grad = [], []
    for t in range(n):
        i = seq[t]
        if not mask[t]:
            grad.append(mpf(0))
            continue
        s_, ds = ppo_term(logp[t] - old[t], A[i], el, eh, clamp, dual)
        terms.append(M(w[i]) * s_)
        grad.append(-M(w[i]) * ds)
    return {"loss": -mp.fsum(terms), "adv": A, "grad": grad}


# ----------------------------------------------------------------------------------------------
# GRPO-GSPO
# ----------------------------------------------------------------------------------------------

def eval_gspo(variant, params, inputs, ctx):
    """m_i = (1/n_i) sum_t (logp_t - old_logp_t), s_i = e^{m_i} (verl: e^{min(m_i, 10)});
    loss = -(1/B) sum_i min(s_i A_i, clip(s_i, 1 - eps_low, 1 + eps_high) A_i);
    grad_t = -(1/B) A_i s_i / n_i where the unclipped term is the min (and the cap does not
    bind strictly), else 0.  verl's "GSPO-token" form sg(s_i) pi_t/sg(pi_t) has the same value
    and, with A per sequence, the same gradient under seq-mean-token-mean.  A sequence without a
    token (TRL's mask.sum(-1).clamp(min=1), verl's seq_lengths.clamp(min=1)) has m = 0, s = 1 and
    no term: B counts it (gspo, verl: the mean over every row) or not (openrlhf: the sample-level
    mean over the sequences with a token)."""
    if variant not in ("gspo", "verl", "openrlhf"):
        raise ValueError("GRPO-GSPO: unknown variant %r" % variant)
    names = ("logp", "old_logp")
    n, G, (logp, old), lens, mask, seq, cnt = layout_empty(inputs, names)
    sraw = inputs.get("adv")
    if not isinstance(sraw, list) or len(sraw) != G:
        raise Reject("EINVAL", "adv must hold one entry per sequence (%d)" % G)
    (adv,) = finite([sraw], ("adv",))
    el, eh = clip_params(inputs, params)
    B = sum(1 for c in cnt if c) if variant == "openrlhf" else G
    msum = [Fraction(0)] * G
    for t in range(n):
        if mask[t]:
            msum[seq[t]] += logp[t] - old[t]
    s, active, terms = [], [], []
    for i in range(G):
        m = msum[i] / cnt[i] if cnt[i] else Fraction(0)
        capped = variant == "verl" and m > 10
        si = mp.exp(M(min(m, Fraction(10)) if variant == "verl" else m))
        u = si * M(adv[i])
        v = min(max(si, M(1 - el)), M(1 + eh)) * M(adv[i])
        s.append(si)
        if cnt[i] == 0:
            terms.append(mpf(0))
            active.append(False)
        elif u <= v:
            terms.append(u)
            active.append(not capped)
        else:
            terms.append(v)
            active.append(False)
    grad = []
    for t in range(n):
        i = seq[t]
        if mask[t] and active[i]:
            grad.append(-M(adv[i]) * s[i] / (B * cnt[i]))
        else:
            grad.append(mpf(0))
    return {"loss": -mp.fsum(terms) / B, "s": s, "grad": grad}


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
