"""GRPO baselines: GRPO-ADV-BOUND, GRPO-ADV-SCALE, GRPO-RLOO, GRPO-VAR, GRPO-STDBIAS, GRPO-REMAX
and GRPO-BASELINE, recomputed from the definitions (seed 000 §5 eq. 13.23, 13.27, 13.28, 13.28'
and §11; seeds 001 and 004; CONVENTIONS.md "Group advantage" and "RLOO and ReMax"; the
libraries' code as CONVENTIONS.md describes it).  Every reward-valued quantity is computed on
the exact rationals of the binary64 inputs; square roots and exponentials in mpmath.

  GRPO-ADV-BOUND  max_i |A_i|, A_i = (r_i - mean)/std (std of the variant's ddof, 0 when the
                  std is 0), and Samuelson's bound sqrt(G - 1) (ddof 0), (G - 1)/sqrt(G) (ddof 1).
  GRPO-ADV-SCALE  A_i = (r_i - mean)/(sigma + eps); std_adv = the std of A with the same ddof,
                  ratio = sigma/(sigma + eps) (001).
  GRPO-RLOO       A_i = r_i - (sum_j r_j - r_i)/(G - 1) (13.28) per contiguous group of G:
                    seed-000         G = 1 refused, NaN or inf refused;
                    trl              NaN rewards left out of the sums (count c of scorable
                                     rewards), a NaN reward and a group with c <= 1 give 0;
                    verl             a group of one keeps A = r;
                    verl-vectorized  (c r - S)/max(c - 1, 1) * (c > 1): a group of one gives 0;
                    openrlhf         13.28 clamped to [-10, 10] (OpenRLHF's compute_reward
                                     r.clamp(-10, 10) after the baseline), G = 1 refused (its
                                     CLI assertion), NaN or inf refused;
                  sample-major: old TRL's sample-major layout, response j of prompt q at
                  j (N/G) + q, 13.28 within each prompt;
                  identity: loo, centred r_i - mean, scale (G - 1)/G (r_i - mean = scale loo);
                  trl-kl, verl-kl: penalty_i = beta sum_t mask (logp_old - logp_ref), then trl's
                  (verl's: a NaN reward refused) advantage of r_i - penalty_i;
                  trl-seq-ratio: rho_i = exp(sum_t mask (logp - logp_old)), per sequence
                  -min(rho A, clip(rho, 1 - eps_low, 1 + eps_high) A), loss their mean;
                  openrlhf-kl: the penalty after the baseline, A_i = clamp(loo_i, +-10) - beta
                  sum_t mask clamp(logp_old - logp_ref, +-10);
                  openrlhf-token-ratio: per token rho_t = exp(clamp(logp - logp_old, +-20)), the
                  clipped loss of each token, their mean over every masked token.
  GRPO-VAR        rewards drawn from values with integer weights: sigma^2, sigma^2/G,
                  sigma^2/(G - 1), sigma^2/(2G) (what doubling G removes); Monte Carlo: GSL's
                  mt19937 replayed (gsl_rng_set, gsl_rng_get), a draw is the first index j with
                  k W < C_j 2^32 (k the 32-bit output, C_j the cumulative weight), G draws per
                  trial; the sample variances (ddof 1) over the trials of the group mean and of
                  the leave-one-out baseline of the first sample.
  GRPO-STDBIAS    binary reward with success rate p: E[sum_i A_i grad log pi(y_i)] = w(p) grad p
                  with w(p) = G sum_k C(G-1, k) p^k (1-p)^(G-1-k) (A+(k+1) - A-(k)), A+(K), A-(K)
                  the advantage of a success and of a failure in a group with K successes under
                  the variant's advantage; per_sample = w/G.
  GRPO-REMAX      verl: returns_t = sum_{t' >= t} mask r, adv_t = returns_t - b mask_t;
                  seed-004: A_i = r_i - greedy reward of its prompt.
  GRPO-BASELINE   the tiny LM enumerated: grad = d E[r]/d logits (by the score function of each
                  sequence), pg = E[(r - b) grad log pi(y)], sq = E[(r - b)^2 |grad log pi(y)|^2].
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import M, Reject, R, X, get_input, gsl_mt19937


DBL_MAX = float.fromhex("0x1.fffffffffffffp+1023")


def _fin(xs, name):
    for v in xs:
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            raise Reject("ENAN", "non-finite value in %s" % name)


def _q(v):
    return Fraction(v) if not isinstance(v, Fraction) else v


def _group_size(inputs, N):
    G = inputs.get("group_size", N)
    if G <= 0 or N == 0 or N % G:
        raise Reject("EINVAL", "the rewards do not make whole groups")
    return G


def _std(q, ddof):
    """The std (ddof) of exact rationals, as mpf; mean as Fraction."""
    n = len(q)
    mean = sum(q, Fraction(0)) / n
    ss = sum(((x - mean) ** 2 for x in q), Fraction(0))
    return mean, mp.sqrt(M(ss / (n - ddof)))


# ----------------------------------------------------------------------------------------------
# GRPO-ADV-BOUND, GRPO-ADV-SCALE
# ----------------------------------------------------------------------------------------------

DDOF = {"ddof0": 0, "ddof1": 1}


def eval_bound(variant, params, inputs, ctx):
    r = inputs["rewards"]
    ddof = DDOF[variant]
    if len(r) == 0:
        raise Reject("EINVAL", "no rewards")
    _fin(r, "rewards")
    G = len(r)
    if G - ddof < 1:
        raise Reject("EDOM", "G - ddof must be positive")
    q = [_q(x) for x in r]
    mean, sd = _std(q, ddof)
    if sd == 0:
        mx = mpf(0)
    else:
        mx = max(abs(M(x - mean)) for x in q) / sd
    bound = mp.sqrt(G - 1) if ddof == 0 else mpf(G - 1) / mp.sqrt(G)
    return {"max_abs": mx, "bound": bound}


def eval_scale(variant, params, inputs, ctx):
    r = inputs["rewards"]
    eps = inputs["eps"]
    ddof = DDOF[variant]
    if len(r) == 0:
        raise Reject("EINVAL", "no rewards")
    _fin(r, "rewards")
    _fin([eps], "eps")
    if X(eps) <= 0:
        raise Reject("EDOM", "eps must be positive")
    if len(r) - ddof < 1:
        raise Reject("EDOM", "G - ddof must be positive")
    q = [_q(x) for x in r]
    mean, sd = _std(q, ddof)
    e = X(eps)
    adv = [M(x - mean) / (sd + e) for x in q]
    am = mp.fsum(adv) / len(adv)
    sa = mp.sqrt(mp.fsum((a - am) ** 2 for a in adv) / (len(adv) - ddof))
    return {"std_adv": sa, "ratio": sd / (sd + e)}


# ----------------------------------------------------------------------------------------------
# GRPO-RLOO
# ----------------------------------------------------------------------------------------------

def rloo_exact(variant, r, G):
    """Exact leave-one-out advantages (Fractions), contiguous groups of G."""
    if variant != "trl":
        _fin(r, "rewards")
    else:
        for v in r:
            if isinstance(v, float) and math.isinf(v):
                raise Reject("ENAN", "infinite reward")
    out = []
    for g in range(0, len(r), G):
        grp = r[g:g + G]
        ok = [not (isinstance(v, float) and math.isnan(v)) for v in grp]
        q = [_q(v) if k else None for v, k in zip(grp, ok)]
        c = sum(ok)
        S = sum((x for x in q if x is not None), Fraction(0))
        for x in q:
            if x is None:
                out.append(Fraction(0))
            elif c == 1:
                if variant in ("seed-000", "openrlhf"):
                    raise Reject("EDOM", "a group of one has no leave-one-out baseline")
                out.append(x if variant == "verl" else Fraction(0))
            else:
                a = x - (S - x) / (c - 1)
                if variant == "openrlhf":
                    a = min(max(a, Fraction(-10)), Fraction(10))
                out.append(a)
    return out


def _loss_inputs(inputs):
    """The inputs of a clipped loss of N sequences of L tokens, checked: logp, logp_old, mask,
    adv, N, L and the clip bounds 1 - eps_low, 1 + eps_high."""
    lp, lo, mask, adv = inputs["logp"], inputs["logp_old"], inputs["mask"], inputs["adv"]
    el, eh = inputs["eps_low"], inputs["eps_high"]
    N = len(adv)
    if N == 0 or len(lp) != len(lo) or len(lp) != len(mask) or len(lp) % N:
        raise Reject("EINVAL", "the log-probabilities are not N rows of one length")
    _fin(lp + lo + adv + [el, eh], "inputs")
    if any(m not in (0, 1) for m in mask):
        raise Reject("EDOM", "the mask must be 0 or 1")
    if not (0 <= X(el) < 1) or X(eh) < 0:
        raise Reject("EDOM", "need 0 <= eps_low < 1 and eps_high >= 0")
    return lp, lo, mask, adv, N, len(lp) // N, 1 - X(el), 1 + X(eh)


def eval_rloo(variant, params, inputs, ctx):
    if variant in ("seed-000", "trl", "verl", "verl-vectorized", "openrlhf"):
        r = inputs["rewards"]
        G = _group_size(inputs, len(r))
        return {"adv": [M(a) for a in rloo_exact(variant, r, G)]}
    if variant == "sample-major":
        r = inputs["rewards"]
        G = _group_size(inputs, len(r))
        if G < 2:
            raise Reject("EDOM", "rloo_k = 1 has no leave-one-out baseline")
        P = len(r) // G
        grouped = [r[j * P + q] for q in range(P) for j in range(G)]
        a = rloo_exact("seed-000", grouped, G)
        out = [None] * len(r)
        for q in range(P):
            for j in range(G):
                out[j * P + q] = M(a[q * G + j])
        return {"adv": out}
    if variant == "identity":
        r = inputs["rewards"]
        G = _group_size(inputs, len(r))
        if G < 2:
            raise Reject("EDOM", "a group of one has no leave-one-out baseline")
        loo = rloo_exact("seed-000", r, G)
        cen = []
        for g in range(0, len(r), G):
            q = [_q(v) for v in r[g:g + G]]
            m = sum(q, Fraction(0)) / G
            cen += [x - m for x in q]
        return {"loo": [M(a) for a in loo], "centered": [M(a) for a in cen],
                "scale": M(Fraction(G - 1, G))}
    if variant in ("trl-kl", "verl-kl"):
        r = inputs["rewards"]
        lo, lr, mask = inputs["logp_old"], inputs["logp_ref"], inputs["mask"]
        beta = inputs["beta"]
        N = len(r)
        if N == 0 or len(lo) != len(lr) or len(lo) != len(mask) or len(lo) % N:
            raise Reject("EINVAL", "the log-probabilities are not N rows of one length")
        G = _group_size(inputs, N)
        _fin(lo + lr + [beta], "logp_old, logp_ref, beta")
        if any(m not in (0, 1) for m in mask):
            raise Reject("EDOM", "the mask must be 0 or 1")
        L = len(lo) // N
        b = _q(beta)
        shaped, pen = [], []
        for i in range(N):
            kl = sum((_q(lo[i * L + t]) - _q(lr[i * L + t]) for t in range(L)
                      if mask[i * L + t]), Fraction(0))
            pen.append(b * kl)
            ri = r[i]
            if isinstance(ri, float) and math.isinf(ri):
                raise Reject("ENAN", "infinite reward")
            shaped.append(ri if isinstance(ri, float) and math.isnan(ri) else _q(ri) - b * kl)
        flt = [float("nan") if isinstance(s, float) else s for s in shaped]
        if variant == "verl-kl" and any(isinstance(s, float) for s in flt):
            raise Reject("ENAN", "a NaN reward")
        adv = rloo_exact("trl" if variant == "trl-kl" else "verl", flt, G)
        return {"penalty": [M(x) for x in pen], "adv": [M(a) for a in adv]}
    if variant == "trl-seq-ratio":
        lp, lo, mask, adv, N, L, lo_, hi_ = _loss_inputs(inputs)
        ratio, per = [], []
        for i in range(N):
            s = sum((_q(lp[i * L + t]) - _q(lo[i * L + t]) for t in range(L)
                     if mask[i * L + t]), Fraction(0))
            rho = mp.exp(M(s))
            if rho > DBL_MAX:
                raise Reject("ERANGE", "the sequence ratio lies beyond binary64")
            a = X(adv[i])
            c = min(max(rho, lo_), hi_)
            ratio.append(rho)
            per.append(-min(rho * a, c * a))
        return {"ratio": ratio, "seq_loss": per, "loss": mp.fsum(per) / N}
    if variant == "openrlhf-kl":
        r = inputs["rewards"]
        lo, lr, mask = inputs["logp_old"], inputs["logp_ref"], inputs["mask"]
        beta = inputs["beta"]
        N = len(r)
        if N == 0 or len(lo) != len(lr) or len(lo) != len(mask) or len(lo) % N:
            raise Reject("EINVAL", "the log-probabilities are not N rows of one length")
        G = _group_size(inputs, N)
        loo = rloo_exact("openrlhf", r, G)
        _fin(lo + lr + [beta], "logp_old, logp_ref, beta")
        if any(m not in (0, 1) for m in mask):
            raise Reject("EDOM", "the mask must be 0 or 1")
        L = len(lo) // N
        b = _q(beta)
        pen, adv = [], []
        for i in range(N):
            kl = sum((min(max(_q(lo[i * L + t]) - _q(lr[i * L + t]), Fraction(-10)), Fraction(10))
                      for t in range(L) if mask[i * L + t]), Fraction(0))
            pen.append(b * kl)
            adv.append(loo[i] - b * kl)
        return {"penalty": [M(x) for x in pen], "adv": [M(a) for a in adv]}
    if variant == "openrlhf-token-ratio":
        lp, lo, mask, adv, N, L, lo_, hi_ = _loss_inputs(inputs)
        per = []
        for i in range(N):
            a = X(adv[i])
            for t in range(L):
                if mask[i * L + t]:
                    d = min(max(_q(lp[i * L + t]) - _q(lo[i * L + t]), Fraction(-20)), Fraction(20))
                    rho = mp.exp(M(d))
                    c = min(max(rho, lo_), hi_)
                    per.append(-min(rho * a, c * a))
        if not per:
            raise Reject("EDOM", "no token in the mask")
        return {"loss": mp.fsum(per) / len(per)}
    raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)


# ----------------------------------------------------------------------------------------------
# GRPO-VAR
# ----------------------------------------------------------------------------------------------

def _weights(inputs):
    v, w = inputs["values"], inputs["weights"]
    if len(v) == 0 or len(v) != len(w):
        raise Reject("EINVAL", "values and weights differ in length or are empty")
    _fin(v, "values")
    if any(x < 0 for x in w) or sum(w) <= 0:
        raise Reject("EDOM", "weights must be non-negative with a positive sum")
    if sum(w) > 2 ** 31:
        raise Reject("EDOM", "the weights must sum to at most 2^31")
    return [_q(x) for x in v], w


def eval_var(variant, params, inputs, ctx):
    v, w = _weights(inputs)
    G = inputs["group_size"]
    if G < 2:
        raise Reject("EDOM", "G must be at least 2")
    W = sum(w)
    if variant == "exact":
        mu = sum((wi * x for wi, x in zip(w, v)), Fraction(0)) / W
        s2 = sum((wi * (x - mu) ** 2 for wi, x in zip(w, v)), Fraction(0)) / W
        if s2 > Fraction(DBL_MAX):
            raise Reject("ERANGE", "the variance lies beyond binary64")
        return {"sigma2": M(s2), "var_mean": M(s2 / G), "var_loo": M(s2 / (G - 1)),
                "removed": M(s2 / (2 * G))}
    n, seed = inputs["trials"], inputs["seed"]
    if n < 2 or n * G > 10 ** 7:
        raise Reject("EDOM", "trials must be 2 or more, trials G at most 1e7")
    if seed < 0 or seed > 0xffffffff:
        raise Reject("EDOM", "seed must be 0 to 2^32 - 1")
    cum, c = [], 0
    for wi in w:
        c += wi
        cum.append(c)
    rng = gsl_mt19937(seed)
    means, loos = [], []
    for _ in range(n):
        draw = []
        for _ in range(G):
            k = rng.getrandbits(32)
            j = next(j for j in range(len(cum)) if k * W < cum[j] * 2 ** 32)
            draw.append(v[j])
        s = sum(draw, Fraction(0))
        means.append(s / G)
        loos.append((s - draw[0]) / (G - 1))

    def svar(xs):
        m = sum(xs, Fraction(0)) / len(xs)
        return sum(((x - m) ** 2 for x in xs), Fraction(0)) / (len(xs) - 1)
    return {"var_mean": M(svar(means)), "var_loo": M(svar(loos))}


# ----------------------------------------------------------------------------------------------
# GRPO-STDBIAS
# ----------------------------------------------------------------------------------------------

STDBIAS = {   # variant -> (ddof, eps, kind)
    "seed-000": (0, 0.0, "std>0"),
    "seed-003": (1, 0.0, "std>0"),
    "trl": (1, 1e-4, "plain"),
    "verl": (1, 1e-6, "plain"),
    "openrlhf": (1, 1e-9, "plain"),
    "no-std": (0, 0.0, "nostd"),
    "rloo": (0, 0.0, "rloo"),
}


def _adv_binary(variant, G, K):
    """(A of a success, A of a failure) in a group of G with K successes (mpf)."""
    ddof, eps, kind = STDBIAS[variant]
    m = Fraction(K, G)
    if kind == "rloo":
        ap = 1 - Fraction(K - 1, G - 1) if K >= 1 else None
        am = -Fraction(K, G - 1) if K <= G - 1 else None
        return (M(ap) if ap is not None else None, M(am) if am is not None else None)
    cp, cm = 1 - m, -m
    if kind == "nostd":
        return M(cp), M(cm)
    sd = mp.sqrt(M(Fraction(K * (G - K), G) / (G - ddof)))
    if kind == "std>0" and sd == 0:
        return mpf(0), mpf(0)
    d = sd + mpf(eps)
    return M(cp) / d, M(cm) / d


def eval_stdbias(variant, params, inputs, ctx):
    p, G = inputs["p"], inputs["group_size"]
    _fin([p], "p")
    P = X(p)
    if P < 0 or P > 1:
        raise Reject("EDOM", "p must lie in [0, 1]")
    if G < 2 or G > 1024:
        raise Reject("EDOM", "G must be 2 to 1024")
    n = G - 1
    w = mpf(0)
    for k in range(n + 1):
        ap, _ = _adv_binary(variant, G, k + 1)
        _, am = _adv_binary(variant, G, k)
        b = mp.binomial(n, k) * (P ** k if k else 1) * ((1 - P) ** (n - k) if n - k else 1)
        w += b * (ap - am)
    w *= G
    return {"weight": w, "per_sample": w / G}


# ----------------------------------------------------------------------------------------------
# GRPO-REMAX
# ----------------------------------------------------------------------------------------------

def eval_remax(variant, params, inputs, ctx):
    if variant == "verl":
        r, mask, b = inputs["token_rewards"], inputs["mask"], inputs["baselines"]
        B = len(b)
        if B == 0 or len(r) != len(mask) or len(r) % B or not r:
            raise Reject("EINVAL", "the rewards are not B rows of one length")
        _fin(r + b, "rewards, baselines")
        if any(m not in (0, 1) for m in mask):
            raise Reject("EDOM", "the mask must be 0 or 1")
        L = len(r) // B
        if L > 4096:
            raise Reject("EINVAL", "a row holds at most 4096 tokens")
        ret, adv = [], []
        for i in range(B):
            row = [_q(r[i * L + t]) * mask[i * L + t] for t in range(L)]
            acc = Fraction(0)
            rr = [None] * L
            for t in range(L - 1, -1, -1):
                acc += row[t]
                rr[t] = acc
            ret += rr
            adv += [rr[t] - _q(b[i]) * mask[i * L + t] for t in range(L)]
        return {"returns": [M(x) for x in ret], "adv": [M(x) for x in adv]}
    if variant == "seed-004":
        r, g = inputs["rewards"], inputs["greedy"]
        if not r or not g or len(r) % len(g):
            raise Reject("EINVAL", "the rewards do not make one group per greedy reward")
        _fin(r + g, "rewards, greedy")
        G = len(r) // len(g)
        return {"adv": [M(_q(r[i]) - _q(g[i // G])) for i in range(len(r))]}
    raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)


# ----------------------------------------------------------------------------------------------
# GRPO-BASELINE: the tiny LM enumerated (bigram or tabular, cut sequences kept)
# ----------------------------------------------------------------------------------------------

def _prefix_index(V, eos, prefix):
    """Row of a prefix without EOS: by length, then lexicographically in the tokens != eos."""
    toks = [t for t in range(V) if t != eos]
    base = 0
    for l in range(len(prefix)):
        base += (V - 1) ** l
    off = 0
    for t in prefix:
        off = off * (V - 1) + toks.index(t)
    return base + off


def eval_baseline(variant, params, inputs, ctx):
    V, eos, T = inputs["V"], inputs["eos"], inputs["T"]
    logits, reward, b = inputs["logits"], inputs["reward"], inputs["b"]
    if V < 2 or V > 64 or not (0 <= eos < V) or T < 1:
        raise Reject("EDOM", "bad shape")
    _fin(list(logits) + list(reward) + [b], "logits, reward, b")
    if len(reward) != V + 2 or len(logits) % V:
        raise Reject("EINVAL", "reward or logits of the wrong length")
    rows = len(logits) // V
    nseq = sum((V - 1) ** l for l in range(T)) + (V - 1) ** T
    if nseq > 4096 or nseq * len(logits) > 10 ** 6:
        raise Reject("EINVAL", "more sequences than the enumeration takes (4096)")
    want = V + 1 if variant == "bigram" else sum((V - 1) ** l for l in range(T))
    if rows != want:
        raise Reject("EINVAL", "wrong number of logit rows")
    lg = [X(x) for x in logits]
    rw = [X(x) for x in reward]
    B = X(b)
    probs = []
    for s in range(rows):
        row = lg[s * V:(s + 1) * V]
        mx = max(row)
        e = [mp.exp(x - mx) for x in row]
        z = mp.fsum(e)
        probs.append([x / z for x in e])
    n = rows * V
    grad = [mpf(0)] * n
    pg = [mpf(0)] * n
    sq = mpf(0)
    er = mpf(0)
    seqs = []

    def rec(prefix, logp):
        t = len(prefix)
        s = (prefix[-1] if prefix else V) if variant == "bigram" else _prefix_index(V, eos, prefix)
        for a in range(V):
            y = prefix + [a]
            lp = logp * probs[s][a]
            if a == eos or len(y) == T:
                seqs.append((y, lp, a != eos))
            else:
                rec(y, lp)
    rec([], mpf(1))
    for y, py, cut in seqs:
        r = mp.fsum(rw[t] for t in y) + rw[V] * len(y) + (rw[V + 1] if cut else 0)
        g = [mpf(0)] * n
        for t in range(len(y)):
            pre = y[:t]
            s = (pre[-1] if pre else V) if variant == "bigram" else _prefix_index(V, eos, pre)
            for a in range(V):
                g[s * V + a] += (1 if a == y[t] else 0) - probs[s][a]
        er += py * r
        for j in range(n):
            grad[j] += py * r * g[j]
            pg[j] += py * (r - B) * g[j]
        sq += py * (r - B) ** 2 * mp.fsum(x * x for x in g)
    return {"value": er, "grad": grad, "pg": pg, "sq": sq}


EVALUATORS = {
    "GRPO-ADV-BOUND": eval_bound,
    "GRPO-ADV-SCALE": eval_scale,
    "GRPO-RLOO": eval_rloo,
    "GRPO-VAR": eval_var,
    "GRPO-STDBIAS": eval_stdbias,
    "GRPO-REMAX": eval_remax,
    "GRPO-BASELINE": eval_baseline,
}


# ----------------------------------------------------------------------------------------------
# The numbers the catalogue and seed 000 print (detectors.py)
# ----------------------------------------------------------------------------------------------

def seed_numbers(run):
    one64 = {"rewards": [1.0] + [0.0] * 63}
    run.printed("GRPO-ADV-BOUND", "ddof0", one64, "max_abs", None, "7.937",
                "FORMULAS.md GRPO-ADV-BOUND: one success in 64, ddof 0")
    run.printed("GRPO-ADV-BOUND", "ddof1", one64, "max_abs", None, "7.875",
                "FORMULAS.md GRPO-ADV-BOUND: one success in 64, ddof 1")
    run.printed("GRPO-RLOO", "identity", {"rewards": [-1.0, 1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0],
                                          "group_size": 8}, "scale", None, "0.875",
                "000 section 5: (G - 1)/G at G = 8")
    run.printed("GRPO-RLOO", "identity", dict(one64, group_size=64), "scale", None, "0.984375",
                "000 section 5: (G - 1)/G at G = 64 (the seed prints 0.984)")
    coin = {"values": [0.0, 1.0], "weights": [1, 1]}
    run.exact("GRPO-VAR", "exact", dict(coin, group_size=2), "var_loo", None, lambda: mpf(1) / 4,
              "000 (13.28'): G = 2, Var[b_loo] = sigma^2 = 1/4")
    run.exact("GRPO-VAR", "exact", dict(coin, group_size=8), "removed", None,
              lambda: mpf(1) / 64, "000 (13.28'): 8 -> 16 removes sigma^2/16")
    run.exact("GRPO-VAR", "exact", dict(coin, group_size=64), "removed", None,
              lambda: mpf(1) / 512, "000 (13.28'): 64 -> 128 removes sigma^2/128")


DETECTORS = [seed_numbers]


# ----------------------------------------------------------------------------------------------
# Self-tests: the seed's numbers and closed forms
# ----------------------------------------------------------------------------------------------

def selftest(t):
    from xcore import Ctx
    b = eval_bound("ddof0", {}, {"rewards": [1.0] + [0.0] * 63}, Ctx())
    t.near("one success in 64, ddof 0: max |A| = sqrt(63) = 7.937", b["max_abs"], mp.sqrt(63))
    b = eval_bound("ddof1", {}, {"rewards": [1.0] + [0.0] * 63}, Ctx())
    t.near("one success in 64, ddof 1: max |A| = 63/8 = 7.875", b["max_abs"], mpf(63) / 8)
    r = [0.3, -1.0, 2.5, 0.0, 1.0, 1.0, 4.0, -2.0]
    i = eval_rloo("identity", {}, {"rewards": r, "group_size": 8}, Ctx())
    t.near("G = 8: scale 0.875", i["scale"], mpf("0.875"))
    t.true("r - mean = (G-1)/G loo, every element",
           all(abs(c - i["scale"] * l) < mpf(10) ** -60 for c, l in zip(i["centered"], i["loo"])))
    s = eval_scale("ddof0", {}, {"rewards": [1.0, 0.0, 0.0, 1.0], "eps": 0.5}, Ctx())
    t.near("std of A = sigma/(sigma+eps) = 0.5", s["std_adv"], mpf("0.5"))
    e = eval_var("exact", {}, {"values": [0.0, 1.0], "weights": [1, 1], "group_size": 2}, Ctx())
    t.near("G = 2: Var[b_loo] = sigma^2", e["var_loo"], e["sigma2"])
    e8 = eval_var("exact", {}, {"values": [0.0, 1.0], "weights": [1, 1], "group_size": 8}, Ctx())
    t.near("8 -> 16 removes sigma^2/16", e8["removed"], e8["sigma2"] / 16)
    # STDBIAS: no-std gives G - 1, rloo G, at any p
    for p in (0.1, 0.5, 0.9):
        w = eval_stdbias("no-std", {}, {"p": p, "group_size": 8}, Ctx())["weight"]
        t.near("no-std weight G - 1 at p = %g" % p, w, mpf(7))
        w = eval_stdbias("rloo", {}, {"p": p, "group_size": 8}, Ctx())["weight"]
        t.near("rloo weight G at p = %g" % p, w, mpf(8))
    # the weight equals E[sum_i A_i (r_i - p)]/(p(1-p)) computed by enumerating 2^G outcomes
    G, p = 6, mpf(0.3)
    tot = mpf(0)
    for mask in range(2 ** G):
        rs = [(mask >> i) & 1 for i in range(G)]
        K = sum(rs)
        ap, am = _adv_binary("seed-003", G, K)
        pr = p ** K * (1 - p) ** (G - K)
        tot += pr * mp.fsum((ap if x else am) * (x - p) for x in rs)
    w = eval_stdbias("seed-003", {}, {"p": 0.3, "group_size": G}, Ctx())["weight"]
    t.near("stdbias weight = E[sum A (r - p)]/(p (1 - p)) by enumeration", w,
           tot / (p * (1 - p)), rel=mpf(10) ** -15)
    # MT19937: GSL's default seed 4357 starts with 4293858116
    t.true("mt19937 seed 4357 first output", gsl_mt19937(0).getrandbits(32) == 4293858116)
    # GRPO-BASELINE: pg = grad for any b; grad against central differences of E[r]
    inp = {"V": 3, "eos": 2, "T": 3, "logits": [0.5, -0.2, 0.1, 0, 1, -1, 0, 0, 0, 0.3, 0.3, -0.5],
           "reward": [1, -0.5, 0, -0.25, -1], "b": 2.0}
    o = eval_baseline("bigram", {}, inp, Ctx())
    t.true("pg = grad with b = 2",
           all(abs(a - c) < mpf(10) ** -60 for a, c in zip(o["pg"], o["grad"])))
    h = mpf(10) ** -30
    lg = list(inp["logits"])
    j = 4
    up = dict(inp)
    up["logits"] = [Fraction(x) for x in lg]
    up["logits"][j] += Fraction(1, 10 ** 30)
    dn = dict(inp)
    dn["logits"] = [Fraction(x) for x in lg]
    dn["logits"][j] -= Fraction(1, 10 ** 30)
    d = (eval_baseline("bigram", {}, up, Ctx())["value"]
         - eval_baseline("bigram", {}, dn, Ctx())["value"]) / (2 * h)
    t.near("dE[r]/dlogit_4 by central differences", o["grad"][j], d, rel=mpf(10) ** -40)


SELFTESTS = [selftest]
