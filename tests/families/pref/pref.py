"""Preference models, PREF-*: Bradley-Terry (000 eq. 13.5-13.7), its Gumbel reading (000 §2.1),
the reward-model loss with and without centring, margin and label smoothing (000 §10.1),
ensembles, Plackett-Luce and the maximum-likelihood fits; the RM-loss detector of
CONVENTIONS.md and the worked example of seed 000 §2.1.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import (Ctx, M, Q, R, Reject, X, finite_or_reject, get_input, log_sigmoid,
                   logsumexp, newton_max, sigmoid, softplus, strongly_connected, sub_exact,
                   variant_ddof)


# ----------------------------------------------------------------------------------------------
# PREF-BT: p = e^{rw}/(e^{rw}+e^{rl})  (000 eq. 13.5)  =  sigma(rw - rl)  (eq. 13.6)
# ----------------------------------------------------------------------------------------------

def eval_pref_bt(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    finite_or_reject([rw, rl], "rw/rl", ctx)
    d = sub_exact(rw, rl)
    if mp.isnan(d):
        raise Reject("ENAN", "rw - rl is inf - inf")
    p = sigmoid(d)
    # Cross-check against the ratio form (13.5), shifted by the larger score so it cannot
    # overflow; both are exact up to the working precision.
    if not mp.isinf(d):
        m = max(X(rw), X(rl))
        a, b = mp.exp(X(rw) - m), mp.exp(X(rl) - m)
        p2 = a / (a + b)
        if abs(p2 - p) > abs(p) * mpf(2) ** (-mp.prec + 32):
            ctx.notes.append("ratio form (13.5) and sigmoid form (13.6) differ by %s relative"
                             % mp.nstr(abs(p2 - p) / p, 3))
    return {"p": p}


# ----------------------------------------------------------------------------------------------
# PREF-BT-GUMBEL: P(rw + g_w > rl + g_l) = integral f(x) F(x + rw - rl) dx,
# f, F the standard Gumbel density and cdf (000 §2.1: BT = argmax with Gumbel noise).
# ----------------------------------------------------------------------------------------------

QUAD_LIMIT = 2.0 ** 40   # beyond this |rw - rl| the integration grid cannot resolve x


def gumbel_integral(d):
    """Numerical integral of f(x) F(x + d) with mpmath.quad (tanh-sinh), in the original
    variable x.  The integrand is scaled by e^c, c = log(1 + e^{-d}) the location of its peak,
    only so that quad's absolute tolerance becomes a relative one; breakpoints are placed around
    the peak.  Below x = c - log(0.7 prec + 20) - 1 the integrand is below 2^-prec relative."""
    c = mp.log1p(mp.exp(-d)) if d > -50 else -d + mp.log1p(mp.exp(d))
    scale = mp.exp(c)

    def integrand(x):
        f = mp.exp(-x - mp.exp(-x))               # Gumbel density
        F = mp.exp(-mp.exp(-(x + d)))             # Gumbel cdf at x + d
        return scale * f * F

    lo = c - mp.log(mp.prec * 0.7 + 20) - 1
    pts = [lo, c - 1, c, c + 2, c + 8, c + 32, mp.inf]
    v, err = mp.quad(integrand, pts, error=True)
    return v / scale, err


def eval_pref_bt_gumbel(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    finite_or_reject([rw, rl], "rw/rl", ctx)
    d = sub_exact(rw, rl)
    if mp.isnan(d):
        raise Reject("ENAN", "rw - rl is inf - inf")
    closed = sigmoid(d)
    if mp.isinf(d) or abs(d) > QUAD_LIMIT:
        ctx.notes.append("|rw-rl| too large for the quadrature grid; closed form sigma used")
        return {"p": closed}
    v, err = gumbel_integral(d)
    # quad must agree with sigma(d) (the integral's exact value) to near working precision
    if abs(v - closed) > abs(closed) * mpf(2) ** (-mp.prec + 48):
        ctx.notes.append("quadrature and sigma(rw-rl) differ by %s relative"
                         % mp.nstr(abs(v - closed) / closed, 3))
    ctx.closed_form = {"p": closed}
    return {"p": v}


# ----------------------------------------------------------------------------------------------
# PREF-RM-LOSS: loss = (1/B) sum -log sigma(rw_i - rl_i)  (000 eq. 13.7);
# variant trl-center adds c (1/B) sum (rw_i + rl_i)^2  (CONVENTIONS "Reward-model loss").
# d loss/d rw_i = -sigma(-(rw_i - rl_i))/B [+ 2c(rw_i + rl_i)/B], d loss/d rl_i = the opposite
# of the first term [+ the same centring term].
# ----------------------------------------------------------------------------------------------

def real_param(params, names, default):
    for n in names:
        if n in params and isinstance(params[n], (float, Fraction)):
            return params[n], n
    return default, None


def eval_pref_rm_loss(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    if not isinstance(rw, list):
        rw, rl = [rw], [rl]
    B = len(rw)
    if B == 0:
        raise Reject("EINVAL", "empty batch")
    if len(rl) != B:
        raise Reject("EINVAL", "rw and rl differ in length")
    finite_or_reject(rw + rl, "rw/rl", ctx)
    center = variant is not None and "center" in variant
    c = 0.01 if center else 0.0               # README: trl-center c = 0.01, otherwise none
    pc, cname = real_param(params, ["c", "center_coef", "center_rewards_coefficient", "coef"],
                           None)
    if isinstance(pc, Fraction):
        c = pc                                # perturbed for the sensitivity check
    elif cname is not None and pc != c:
        raise Reject("EINVAL", "params c = %r, README says %r for variant %r"
                     % (pc, c, variant), firm=False)
    cB = X(c) / B
    loss = mpf(0)
    grw, grl = [], []
    for a, b in zip(rw, rl):
        d = sub_exact(a, b)
        if mp.isnan(d):
            raise Reject("ENAN", "rw - rl is inf - inf")
        loss += softplus(-d)
        s = sigmoid(-d)
        g_c = 0
        if center:
            t = X(a) + X(b) if (math.isinf(a) or math.isinf(b)) else M(Q(a) + Q(b))
            loss += X(c) * t * t
            g_c = 2 * cB * t
        grw.append(-s / B + g_c)
        grl.append(s / B + g_c)
    loss = loss / B
    return {"loss": loss, "grad_rw": grw, "grad_rl": grl}


# ----------------------------------------------------------------------------------------------
# PREF-MARGIN: loss = -log sigma(rw - rl - m)  (000 §10.1, Llama-2 margin)
# ----------------------------------------------------------------------------------------------

def eval_pref_margin(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    m = get_input(inputs, params, "m", "margin")
    finite_or_reject([rw, rl, m], "rw/rl/m", ctx)
    if any(math.isinf(v) for v in (rw, rl, m)):
        z = X(rw) - X(rl) - X(m)
    else:
        z = M(Q(rw) - Q(rl) - Q(m))
    if mp.isnan(z):
        raise Reject("ENAN", "rw - rl - m is undefined")
    s = sigmoid(-z)
    return {"loss": softplus(-z), "grad_rw": -s, "grad_rl": s}


# ----------------------------------------------------------------------------------------------
# PREF-SMOOTH: loss = -(1-eps) log sigma(D) - eps log sigma(-D), D = rw - rl  (000 §10.1);
# d loss/d D = sigma(D) - (1 - eps).
# ----------------------------------------------------------------------------------------------

def eval_pref_smooth(variant, params, inputs, ctx):
    rw = get_input(inputs, params, "rw", "r_w")
    rl = get_input(inputs, params, "rl", "r_l")
    eps = get_input(inputs, params, "eps", "epsilon", "label_smoothing")
    finite_or_reject([rw, rl], "rw/rl", ctx)
    if math.isnan(eps) or math.isinf(eps):
        raise Reject("ENAN", "eps not finite")
    if eps < 0 or eps > 1:
        raise Reject("EDOM", "eps outside [0, 1]")
    if eps > 0.5:
        ctx.ambiguous.append("eps > 1/2 (the smoothed label favours the loser)")
    d = sub_exact(rw, rl)
    if mp.isnan(d):
        raise Reject("ENAN", "rw - rl is inf - inf")
    e = M(Q(eps))
    one_minus = M(1 - Q(eps))
    if mp.isinf(d):
        # limits: only the term whose weight is non-zero can diverge
        if d > 0:
            loss = mpf(0) if eps == 0 else mp.inf
        else:
            loss = mp.inf if eps < 1 else mpf(0)
    else:
        loss = one_minus * softplus(-d) + e * softplus(d)
    g = sigmoid(d) - one_minus
    return {"loss": loss, "grad_rw": g, "grad_rl": -g}


# ----------------------------------------------------------------------------------------------
# PREF-ENSEMBLE: mean, var (ddof 0 or 1), std = sqrt(var), penalized = mean - lambda std,
# penalized_var = mean - lambda var (the variance as the uncertainty, as seed 000 §10.1 names it)
# (000 §10.1, RM ensembles with an uncertainty penalty)
# ----------------------------------------------------------------------------------------------

def eval_pref_ensemble(variant, params, inputs, ctx):
    s = get_input(inputs, params, "scores", "rewards")
    lam = get_input(inputs, params, "lambda", "lam", "penalty")
    ddof = variant_ddof(variant, params)
    if ddof is None:
        raise Reject("EINVAL", "cannot tell ddof from variant %r" % variant, firm=False)
    if "ddof" in params and params["ddof"] != ddof:
        ctx.notes.append("params ddof %r but variant says %d" % (params["ddof"], ddof))
    K = len(s)
    if K == 0:
        raise Reject("EINVAL", "empty ensemble")
    if K - ddof <= 0:
        raise Reject("EDOM", "K = %d with ddof %d" % (K, ddof))
    finite_or_reject(s, "scores", ctx, inf_firm=True)
    if math.isnan(lam) or math.isinf(lam):
        raise Reject("ENAN", "lambda not finite")
    if lam < 0:
        ctx.ambiguous.append("negative lambda (a bonus, not a penalty)")
    qs = [Q(x) for x in s]
    mean = sum(qs, Fraction(0)) / K
    var = sum(((x - mean) ** 2 for x in qs), Fraction(0)) / (K - ddof)
    std = mp.sqrt(M(var))
    return {"mean": M(mean), "var": M(var), "std": std,
            "penalized": M(mean) - M(Q(lam)) * std,
            "penalized_var": M(mean - Q(lam) * var)}


# ----------------------------------------------------------------------------------------------
# PREF-PL: Plackett-Luce (000 §10.1): log p(pi | s) = sum_k [s_{pi_k} - log sum_{j>=k} e^{s_{pi_j}}]
# ----------------------------------------------------------------------------------------------

def pl_loglik_grad_hess(s, rankings, want_hess=True, counts=None):
    """Log-likelihood, gradient and Hessian in s of full rankings under PL, ranking m weighted
    by counts[m] (1 when counts is None)."""
    K = len(s)
    L = mpf(0)
    g = [mpf(0)] * K
    H = [[mpf(0)] * K for _ in range(K)] if want_hess else None
    for m, pi in enumerate(rankings):
        c = mpf(1) if counts is None else counts[m]
        if c == 0:
            continue
        for k in range(len(pi) - 1):
            rest = pi[k:]
            lse = logsumexp([s[j] for j in rest])
            L += c * (s[pi[k]] - lse)
            g[pi[k]] += c
            p = {j: mp.exp(s[j] - lse) for j in rest}
            for j in rest:
                g[j] -= c * p[j]
            if want_hess:
                for a in rest:
                    H[a][a] -= c * p[a]
                    for b in rest:
                        H[a][b] += c * p[a] * p[b]
    return L, g, H


def is_permutation(pi, K):
    return len(pi) == K and sorted(pi) == list(range(K))


def eval_pref_pl(variant, params, inputs, ctx):
    if "rankings" in inputs or (variant and "mle" in variant):
        return eval_pref_pl_mle(variant, params, inputs, ctx)
    s = get_input(inputs, params, "scores")
    pi = get_input(inputs, params, "ranking")
    K = len(s)
    if K == 0:
        raise Reject("EINVAL", "no items")
    if not is_permutation(pi, K):
        raise Reject("EINVAL", "ranking is not a permutation of 0..K-1")
    finite_or_reject(s, "scores", ctx, inf_firm=True)
    sm = [X(x) for x in s]
    L, g, _ = pl_loglik_grad_hess(sm, [pi], want_hess=False)
    return {"logp": L, "loss": -L, "grad": [-x for x in g]}


# PREF-PL mle: maximum-likelihood PL scores of sum_m counts_m log P(ranking_m), mean zero
# (000 §10.1); a finite maximum exists iff "ranked above" (over rankings with a positive count)
# is strongly connected (Hunter 2004).
def eval_pref_pl_mle(variant, params, inputs, ctx):
    K = get_input(inputs, params, "K", "k")
    flat = get_input(inputs, params, "rankings")
    if not isinstance(K, int) or K <= 0:
        raise Reject("EINVAL", "K must be a positive integer")
    if len(flat) == 0 or len(flat) % K != 0:
        raise Reject("EINVAL", "rankings length %d is not a positive multiple of K" % len(flat))
    rankings = [flat[i:i + K] for i in range(0, len(flat), K)]
    for pi in rankings:
        if not is_permutation(pi, K):
            raise Reject("EINVAL", "a ranking is not a permutation")
    try:
        counts = [R(c) for c in get_input(inputs, params, "counts")]
    except KeyError:
        counts = [1.0] * len(rankings)
        ctx.notes.append("no counts: every ranking counted once")
    if len(counts) != len(rankings):
        raise Reject("EINVAL", "counts has %d entries for %d rankings"
                     % (len(counts), len(rankings)))
    for c in counts:
        if math.isnan(c) or math.isinf(c):
            raise Reject("ENAN", "non-finite count")
        if c < 0:
            raise Reject("EDOM", "negative count")
    edges = set()
    for pi, c in zip(rankings, counts):
        if c > 0:
            for a in range(K):
                for b in range(a + 1, K):
                    edges.add((pi[a], pi[b]))
    if not strongly_connected(K, edges):
        raise Reject("EDOM", "the ranked-above graph is not strongly connected: no finite MLE")
    cm = [X(c) for c in counts]
    s, L = newton_max(K, lambda x: pl_loglik_grad_hess(x, rankings, counts=cm))
    return {"scores": s, "loglik": L}


# ----------------------------------------------------------------------------------------------
# PREF-BT-MLE: maximise sum_ij w_ij log sigma(s_i - s_j)  (000 §2.1, MLE of eq. 13.6/13.7)
# ----------------------------------------------------------------------------------------------

def bt_loglik_grad_hess(s, W):
    n = len(s)
    L = mpf(0)
    g = [mpf(0)] * n
    H = [[mpf(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if W[i][j] != 0:
                L += W[i][j] * log_sigmoid(s[i] - s[j])
    for i in range(n):
        for j in range(i + 1, n):
            d = s[i] - s[j]
            p = sigmoid(d)
            q = sigmoid(-d)
            # d/ds_i [w_ij log sig(d) + w_ji log sig(-d)] = w_ij q - w_ji p
            gi = W[i][j] * q - W[j][i] * p
            g[i] += gi
            g[j] -= gi
            h = (W[i][j] + W[j][i]) * p * q
            H[i][i] -= h
            H[j][j] -= h
            H[i][j] += h
            H[j][i] += h
    return L, g, H


def bt_mle(W_float, ctx):
    n = len(W_float)
    for row in W_float:
        for w in row:
            if math.isnan(w) or math.isinf(w):
                raise Reject("ENAN", "non-finite count")
            if w < 0:
                raise Reject("EDOM", "negative count")
    edges = {(i, j) for i in range(n) for j in range(n) if i != j and W_float[i][j] > 0}
    if not strongly_connected(n, edges):
        raise Reject("EDOM", "comparison graph not strongly connected: no finite maximum")
    if any(W_float[i][i] != 0 for i in range(n)):
        ctx.ambiguous.append("non-zero diagonal count (self-comparison) included in loglik")
    W = [[X(w) for w in row] for row in W_float]
    return newton_max(n, lambda x: bt_loglik_grad_hess(x, W))


def eval_pref_bt_mle(variant, params, inputs, ctx):
    n = get_input(inputs, params, "n")
    wins = get_input(inputs, params, "wins")
    if not isinstance(n, int) or n <= 0:
        raise Reject("EINVAL", "n must be a positive integer")
    if len(wins) != n * n:
        raise Reject("EINVAL", "wins has %d entries, n*n = %d" % (len(wins), n * n))
    W = [[R(wins[i * n + j]) for j in range(n)] for i in range(n)]
    s, L = bt_mle(W, ctx)
    return {"scores": s, "loglik": L}


# ----------------------------------------------------------------------------------------------
# PREF-BT-EX: seed 000 §2.1 worked example.  sigma group: p = sigma(rw - rl).
# mle-pair: delta = MLE of r_w - r_l from wins_w vs wins_l (Newton on the 2-item BT likelihood,
# compared with the closed form log(wins_w/wins_l)), p = sigma(delta).
# ----------------------------------------------------------------------------------------------

def eval_pref_bt_ex(variant, params, inputs, ctx):
    if "wins_w" in inputs or (variant and "mle" in variant):
        ww = R(get_input(inputs, params, "wins_w"))
        wl = R(get_input(inputs, params, "wins_l"))
        W = [[0.0, ww], [wl, 0.0]]
        s, L = bt_mle(W, ctx)
        delta = s[0] - s[1]
        closed = mp.log(X(ww) / X(wl))
        if abs(delta - closed) > mpf(2) ** (-mp.prec + 40) * (1 + abs(closed)):
            ctx.notes.append("Newton delta differs from log(wins_w/wins_l)")
        return {"delta": delta, "p": sigmoid(delta)}
    return eval_pref_bt(variant, params, inputs, ctx)


EVALUATORS = {
    "PREF-BT": eval_pref_bt,
    "PREF-BT-GUMBEL": eval_pref_bt_gumbel,
    "PREF-RM-LOSS": eval_pref_rm_loss,
    "PREF-BT-EX": eval_pref_bt_ex,
    "PREF-MARGIN": eval_pref_margin,
    "PREF-SMOOTH": eval_pref_smooth,
    "PREF-ENSEMBLE": eval_pref_ensemble,
    "PREF-PL": eval_pref_pl,
    "PREF-BT-MLE": eval_pref_bt_mle,
}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py)
# ----------------------------------------------------------------------------------------------

# CONVENTIONS.md, "Reward-model loss": r_w 1.0, r_l 0.2 -> 0.3711007; margin 0.5 -> 0.5543552.
def rm_detectors(run):
    label = "RM loss detector"
    run.printed("PREF-RM-LOSS", "plain", {"rw": [1.0], "rl": [0.2]}, "loss", None,
                "0.3711007", label)
    run.printed("PREF-MARGIN", None, {"rw": 1.0, "rl": 0.2, "m": 0.0}, "loss", None,
                "0.3711007", label + " (m = 0)")
    run.printed("PREF-MARGIN", None, {"rw": 1.0, "rl": 0.2, "m": 0.5}, "loss", None,
                "0.5543552", label + " margin 0.5")
    run.printed("PREF-SMOOTH", None, {"rw": 1.0, "rl": 0.2, "eps": 0.0}, "loss", None,
                "0.3711007", label + " (smoothing eps = 0)")


# Seed 000 §2.1 worked example.
def bt_seed_examples(run):
    label = "000 §2.1 sigma(1.5)"
    for F, v in (("PREF-BT", None), ("PREF-BT-EX", "sigma"), ("PREF-BT-GUMBEL", None)):
        run.printed(F, v, {"rw": 1.5, "rl": 0.0}, "p", None, "0.82", label)
        run.printed(F, v, {"rw": 1.5, "rl": 0.0}, "p", None,
                    "0.81757447619364365960721717865...", label + " (29 digits)")
    label = "000 §2.1 equal quality"
    for F, v in (("PREF-BT", None), ("PREF-BT-EX", "sigma")):
        run.printed(F, v, {"rw": 0.0, "rl": 0.0}, "p", None, "0.5", label)
    # adding 100 to both scores changes no probability
    for F, v in (("PREF-BT", None), ("PREF-BT-EX", "sigma")):
        a = run.find(F, v, {"rw": 1.5, "rl": 0.0})
        b = run.find(F, v, {"rw": 101.5, "rl": 100.0})
        if a == "nofile":
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            ga, gb = run.output(a, "p"), run.output(b, "p")
            if ga["value"] == gb["value"] and ga["hex"] == gb["hex"]:
                run.ok("000 §2.1 +100 to both: %s %s tcId %s = tcId %s" % (F, v, a["tcId"],
                                                                         b["tcId"]))
            else:
                run.fail("000 §2.1 +100 to both: %s tcId %s %s vs tcId %s %s"
                         % (F, a["tcId"], ga["value"], b["tcId"], gb["value"]))
        else:
            run.fail("000 §2.1 +100 to both: %s: case (1.5, 0) or (101.5, 100) missing" % F)
    label = "000 §2.1 8 of 10 -> log 4"
    w = {"wins_w": 8.0, "wins_l": 2.0}
    run.exact("PREF-BT-EX", "mle-pair", w, "delta", None, lambda: mp.log(4), label)
    run.printed("PREF-BT-EX", "mle-pair", w, "p", None, "0.8", label + " p = 8/10")
    run.exact("PREF-BT-EX", "mle-pair", w, "p", None, lambda: mpf(8) / 10,
              label + " p = 8/10")
    run.exact("PREF-BT-MLE", None, {"n": 2, "wins": [0.0, 8.0, 2.0, 0.0]}, "scores", 0,
              lambda: mp.log(4) / 2, label + " (n = 2 MLE)")
    run.exact("PREF-BT-MLE", None, {"n": 2, "wins": [0.0, 8.0, 2.0, 0.0]}, "scores", 1,
              lambda: -mp.log(4) / 2, label + " (n = 2 MLE)")
    run.exact("PREF-PL", "mle", {"K": 2, "rankings": [0, 1, 1, 0], "counts": [8.0, 2.0]},
              "scores", 0, lambda: mp.log(4) / 2, label + " (Plackett-Luce K = 2)")


DETECTORS = [rm_detectors, bt_seed_examples]


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400
# ----------------------------------------------------------------------------------------------

def selftest(t):
    expect = t.near
    expect("sigma(1.5)", eval_pref_bt(None, {}, {"rw": 1.5, "rl": 0.0}, Ctx())["p"],
           mpf("0.8175744761936436596072171786562482475462"))
    with mp.workprec(200):
        expect("Gumbel integral d=1.5", gumbel_integral(mpf(1.5))[0], sigmoid(mpf(1.5)))
        expect("Gumbel integral d=-30", gumbel_integral(mpf(-30))[0], sigmoid(mpf(-30)))
    ex = eval_pref_bt_ex("mle-pair", {}, {"wins_w": 8, "wins_l": 2}, Ctx())
    expect("8 of 10 -> log 4", ex["delta"], mp.log(4))
    expect("8 of 10 -> p 0.8", ex["p"], mpf(8) / 10)
    expect("RM loss 1.0/0.2", eval_pref_margin(None, {}, {"rw": 1.0, "rl": 0.2, "m": 0.0},
                                                Ctx())["loss"], mpf("0.37110066594777"), mpf(1e-13))
    expect("margin 0.5", eval_pref_margin(None, {}, {"rw": 1.0, "rl": 0.2, "m": 0.5},
                                           Ctx())["loss"], mpf("0.5543552444685271"), mpf(1e-14))
    rm = eval_pref_rm_loss("trl-center", {"c": 0.01}, {"rw": [1.0, 2.0], "rl": [0.5, -1.0]},
                           Ctx())
    want = (softplus(-mpf(0.5)) + softplus(-mpf(3.0))) / 2 + mpf(0.01) * (mpf(2.25) + 1) / 2
    expect("RM loss trl-center", rm["loss"], want)
    # gradient of the centred loss by a central difference
    h = mpf(10) ** -40
    lp = eval_pref_rm_loss("trl-center", {"c": 0.01}, {"rw": [1.0, 2.0], "rl": [0.5, -1.0]},
                           Ctx())
    with mp.workprec(600):
        def lossf(a):
            return ((softplus(-(a - mpf(0.5))) + softplus(-mpf(3.0))) / 2
                    + mpf(0.01) * ((a + mpf(0.5)) ** 2 + 1) / 2)
        fd = (lossf(1 + h) - lossf(1 - h)) / (2 * h)
    expect("RM loss d/drw[0]", lp["grad_rw"][0], fd, mpf(10) ** -30)
    sm = eval_pref_smooth(None, {}, {"rw": 1.0, "rl": 0.0, "eps": 0.1}, Ctx())
    with mp.workprec(600):
        def sl(d):
            return -(1 - mpf(0.1)) * log_sigmoid(d) - mpf(0.1) * log_sigmoid(-d)
        fd = (sl(1 + h) - sl(1 - h)) / (2 * h)
    expect("smooth grad", sm["grad_rw"], fd, mpf(10) ** -30)
    # PL with K = 2 equals BT
    pl = eval_pref_pl("prob", {}, {"scores": [0.3, 1.1], "ranking": [0, 1]}, Ctx())
    expect("PL K=2 = BT", pl["logp"], log_sigmoid(mpf(0.3) - mpf(1.1)))
    pl3 = eval_pref_pl("prob", {}, {"scores": [0.3, 1.1, -0.4], "ranking": [2, 0, 1]}, Ctx())
    with mp.workprec(600):
        def plf(x):
            s = [mpf(0.3), mpf(1.1), mpf(-0.4) + x]
            return -(s[2] - logsumexp(s) + s[0] - logsumexp([s[0], s[1]]))
        fd = (plf(h) - plf(-h)) / (2 * h)
    expect("PL grad[2]", pl3["grad"][2], fd, mpf(10) ** -30)
    # PL MLE on rankings whose MLE is known by symmetry: a 3-cycle of rankings -> scores 0
    mle = eval_pref_pl_mle("mle", {}, {"K": 3, "rankings": [0, 1, 2, 1, 2, 0, 2, 0, 1]}, Ctx())
    expect("PL MLE symmetric", mp.fsum(abs(x) for x in mle["scores"]) + 1, mpf(1))
    expect("PL MLE loglik", mle["loglik"], 3 * (-mp.log(3) - mp.log(2)))
    # BT MLE: gradient zero at the answer, mean zero, and the two-item case = log ratio
    W = [0, 3, 1, 1, 0, 2, 2, 1, 0]
    bt = eval_pref_bt_mle(None, {}, {"n": 3, "wins": [float(w) for w in W]}, Ctx())
    _, g, _ = bt_loglik_grad_hess(bt["scores"], [[mpf(W[i * 3 + j]) for j in range(3)]
                                                 for i in range(3)])
    expect("BT MLE gradient", max(abs(x) for x in g) + 1, mpf(1))
    expect("BT MLE mean zero", mp.fsum(bt["scores"]) + 1, mpf(1))
    try:
        eval_pref_bt_mle(None, {}, {"n": 2, "wins": [0.0, 3.0, 0.0, 0.0]}, Ctx())
        t.true("disconnected graph rejected", False)
    except Reject:
        t.true("disconnected graph rejected", True)


SELFTESTS = [selftest]
