"""PREF-PAIRS: a K-way ranking split into its C(K,2) pairwise Bradley-Terry losses, the
alternative to Plackett-Luce that seed 000 §10.1 names ("rather than splitting it into C(K,2)
independent pairs"), and the comparison of the two maximum-likelihood fits of the same rankings.

Definitions used here, from the seed and FORMULAS.md:
  - ranking pi (best first) of K items with scores s: every pair k < l gives one Bradley-Terry
    comparison pi_k > pi_l (000 eq. 13.6), loss term -log sigma(s_{pi_k} - s_{pi_l}) (eq. 13.7);
  - variant sum: loss = the sum of the C(K,2) terms (the pairs as independent comparisons);
    variant instructgpt: loss = the same divided by C(K,2) (InstructGPT's eq. 1, every pair of a
    prompt's K responses in one batch element); loglik = the sum of log sigma over the pairs in
    both; grad = d loss / d s;
  - mle: argmax over s (mean zero) of the pairwise (composite) log-likelihood of M counted
    rankings, sum_m c_m sum_{k<l} log sigma(s_{pi_m,k} - s_{pi_m,l});
  - compare: the Plackett-Luce maximum-likelihood scores of the same counted rankings beside the
    pairwise ones; the Plackett-Luce log-likelihood at both fits; the pairwise one at its own.
Everything is computed from the pairs of each ranking; the pair-count matrix is never formed.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import Reject, X, R, get_input, log_sigmoid, logsumexp, newton_max, sigmoid, \
    softplus, strongly_connected


def is_permutation(pi, K):
    return len(pi) == K and sorted(pi) == list(range(K))


def pairs_of(pi):
    """The C(K,2) ordered pairs (winner, loser) of a ranking, best first."""
    return [(pi[k], pi[l]) for k in range(len(pi)) for l in range(k + 1, len(pi))]


# ----------------------------------------------------------------------------------------------
# Loss, log-likelihood and gradient of one ranking
# ----------------------------------------------------------------------------------------------

def eval_loss(variant, params, inputs, ctx):
    s = get_input(inputs, params, "scores")
    pi = get_input(inputs, params, "ranking")
    K = len(s)
    if K < 2:
        raise Reject("EINVAL", "a ranking of fewer than two items has no pair")
    if not is_permutation(pi, K):
        raise Reject("EINVAL", "ranking is not a permutation of 0..K-1")
    for x in s:
        if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
            raise Reject("ENAN", "non-finite score")
    q = [Fraction(x) for x in s]
    loss = mpf(0)
    grad = [mpf(0)] * K
    for w, l in pairs_of(pi):
        d = X(q[w] - q[l])                     # exact difference, then rounded once
        loss += softplus(-d)                   # -log sigma(d)
        t = sigmoid(-d)
        grad[w] -= t                           # d/ds_w softplus(-(s_w - s_l)) = -sigma(-d)
        grad[l] += t
    loglik = -loss
    if variant == "instructgpt":
        n = mpf(K * (K - 1) // 2)
        loss = loss / n
        grad = [g / n for g in grad]
    elif variant != "sum":
        raise Reject("EINVAL", "unknown loss variant %r" % variant, firm=False)
    return {"loss": loss, "loglik": loglik, "grad": grad}


# ----------------------------------------------------------------------------------------------
# The two fits of counted rankings
# ----------------------------------------------------------------------------------------------

def read_rankings(params, inputs):
    K = get_input(inputs, params, "K")
    flat = get_input(inputs, params, "rankings")
    counts = get_input(inputs, params, "counts")
    if not isinstance(K, int) or K < 2:
        raise Reject("EINVAL", "K must be an integer >= 2")
    if len(flat) == 0 or len(flat) % K != 0:
        raise Reject("EINVAL", "rankings length %d is not a positive multiple of K" % len(flat))
    rankings = [flat[i:i + K] for i in range(0, len(flat), K)]
    if len(counts) != len(rankings):
        raise Reject("EINVAL", "counts has %d entries for %d rankings"
                     % (len(counts), len(rankings)))
    for pi in rankings:
        if not is_permutation(pi, K):
            raise Reject("EINVAL", "a ranking is not a permutation")
    counts = [R(c) for c in counts]
    for c in counts:
        if isinstance(c, float) and (math.isnan(c) or math.isinf(c)):
            raise Reject("ENAN", "non-finite count")
        if c < 0:
            raise Reject("EDOM", "negative count")
    edges = {(w, l) for pi, c in zip(rankings, counts) if c > 0 for w, l in pairs_of(pi)}
    if not strongly_connected(K, edges):
        raise Reject("EDOM", "some items are never ranked below the others: no finite maximum")
    return K, rankings, [X(c) for c in counts]


def pairwise_fgh(s, rankings, counts):
    """Pairwise log-likelihood sum_m c_m sum_{pairs} log sigma(s_w - s_l), gradient, Hessian."""
    K = len(s)
    L = mpf(0)
    g = [mpf(0)] * K
    H = [[mpf(0)] * K for _ in range(K)]
    for pi, c in zip(rankings, counts):
        if c == 0:
            continue
        for w, l in pairs_of(pi):
            d = s[w] - s[l]
            L += c * log_sigmoid(d)
            a = c * sigmoid(-d)                # d/ds_w c log sigma(d)
            g[w] += a
            g[l] -= a
            h = c * sigmoid(d) * sigmoid(-d)
            H[w][w] -= h
            H[l][l] -= h
            H[w][l] += h
            H[l][w] += h
    return L, g, H


def pl_fgh(s, rankings, counts):
    """Plackett-Luce log-likelihood sum_m c_m log P(pi_m; s) (000 §10.1), gradient, Hessian."""
    K = len(s)
    L = mpf(0)
    g = [mpf(0)] * K
    H = [[mpf(0)] * K for _ in range(K)]
    for pi, c in zip(rankings, counts):
        if c == 0:
            continue
        for k in range(K - 1):
            rest = pi[k:]
            lse = logsumexp([s[j] for j in rest])
            L += c * (s[pi[k]] - lse)
            g[pi[k]] += c
            p = {j: mp.exp(s[j] - lse) for j in rest}
            for a in rest:
                g[a] -= c * p[a]
                H[a][a] -= c * p[a]
                for b in rest:
                    H[a][b] += c * p[a] * p[b]
    return L, g, H


def eval_mle(variant, params, inputs, ctx):
    K, rankings, counts = read_rankings(params, inputs)
    s, L = newton_max(K, lambda x: pairwise_fgh(x, rankings, counts))
    return {"scores": s, "loglik": L}


def eval_compare(variant, params, inputs, ctx):
    K, rankings, counts = read_rankings(params, inputs)
    sp, Lp = newton_max(K, lambda x: pl_fgh(x, rankings, counts))
    sb, Lb = newton_max(K, lambda x: pairwise_fgh(x, rankings, counts))
    Lpb = pl_fgh(sb, rankings, counts)[0]
    if Lpb > Lp * (1 - mpf(2) ** (-mp.prec + 40)) + mpf(2) ** (-mp.prec + 40):
        ctx.notes.append("the Plackett-Luce log-likelihood at the pairwise fit exceeds its maximum")
    return {"scores_pl": sp, "scores_pairs": sb, "loglik_pl": Lp, "loglik_pl_at_pairs": Lpb,
            "loglik_pairs": Lb}


def eval_pref_pairs(variant, params, inputs, ctx):
    if variant in ("sum", "instructgpt"):
        return eval_loss(variant, params, inputs, ctx)
    if variant == "mle":
        return eval_mle(variant, params, inputs, ctx)
    if variant == "compare":
        return eval_compare(variant, params, inputs, ctx)
    raise Reject("EINVAL", "unknown variant %r" % variant, firm=False)


EVALUATORS = {"PREF-PAIRS": eval_pref_pairs}


# ----------------------------------------------------------------------------------------------
# Closed forms held to the goldens (detectors.py)
# ----------------------------------------------------------------------------------------------

def pl_probability(w, pi):
    """Exact Plackett-Luce probability of ranking pi for item weights w = e^s (Fractions)."""
    p = Fraction(1)
    rest = sum(w)
    for k in pi[:-1]:
        p *= Fraction(w[k]) / rest
        rest -= w[k]
    return p


def permutations(K):
    if K == 1:
        return [[0]]
    out = []
    for p in permutations(K - 1):
        for i in range(K):
            out.append(p[:i] + [K - 1] + p[i:])
    return sorted(out)


def proportional_counts(w):
    """Integer counts proportional to the Plackett-Luce probabilities of every ranking."""
    K = len(w)
    perms = permutations(K)
    probs = [pl_probability(w, p) for p in perms]
    den = 1
    for q in probs:
        den = den * q.denominator // math.gcd(den, q.denominator)
    return perms, [int(q * den) for q in probs]


def fit_detectors(run):
    # counts exactly proportional to the Plackett-Luce probabilities of w = (3, 2, 1): both
    # fits return log w minus its mean, since a Plackett-Luce pair marginal is Bradley-Terry
    # (P(i above j) = w_i/(w_i + w_j)) and the expected score equations hold at the truth.
    w = [3, 2, 1]
    perms, counts = proportional_counts(w)
    want = {"K": 3, "rankings": [i for p in perms for i in p], "counts": [float(c) for c in counts]}
    label = "PL-proportional counts (3,2,1)"

    def truth(i):
        return lambda: mp.log(w[i]) - mp.log(6) / 3
    for i in range(3):
        run.exact("PREF-PAIRS", "mle", want, "scores", i, truth(i), label + " pairwise fit")
        run.exact("PREF-PAIRS", "compare", want, "scores_pl", i, truth(i), label + " PL fit")
        run.exact("PREF-PAIRS", "compare", want, "scores_pairs", i, truth(i),
                  label + " pairwise fit")
    # K = 2 is Bradley-Terry: 8 of 10 -> scores +-log(4)/2 (seed 000 §2.1's scenario)
    two = {"K": 2, "rankings": [0, 1, 1, 0], "counts": [8.0, 2.0]}
    run.exact("PREF-PAIRS", "mle", two, "scores", 0, lambda: mp.log(4) / 2, "K = 2, 8 of 10")
    run.exact("PREF-PAIRS", "compare", two, "scores_pl", 0, lambda: mp.log(4) / 2,
              "K = 2, 8 of 10 (PL)")
    # equal scores: every pair costs log 2, C(K,2) of them
    run.exact("PREF-PAIRS", "sum", {"scores": [0.0, 0.0, 0.0, 0.0], "ranking": [3, 1, 0, 2]},
              "loss", None, lambda: 6 * mp.log(2), "equal scores: 6 log 2")
    run.exact("PREF-PAIRS", "instructgpt",
              {"scores": [0.0, 0.0, 0.0, 0.0], "ranking": [3, 1, 0, 2]},
              "loss", None, lambda: mp.log(2), "equal scores, mean over pairs: log 2")


DETECTORS = [fit_detectors]


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest)
# ----------------------------------------------------------------------------------------------

def selftest(t):
    from xcore import Ctx
    # the gradient against central differences
    s = [0.3, -1.2, 0.7, 2.0]
    pi = [2, 0, 3, 1]
    out = eval_loss("sum", {}, {"scores": s, "ranking": pi}, Ctx())
    h = mpf(10) ** -40
    with mp.workprec(700):
        def lossf(i, e):
            x = [mpf(v) for v in s]
            x[i] += e
            return mp.fsum(softplus(-(x[a] - x[b])) for a, b in pairs_of(pi))
        for i in range(4):
            fd = (lossf(i, h) - lossf(i, -h)) / (2 * h)
            t.near("pairs grad[%d]" % i, out["grad"][i], fd, mpf(10) ** -30)
    # the pairwise fit of a PL-proportional data set is the truth, and so is the PL fit
    w = [4, 2, 1, 1]
    perms, counts = proportional_counts(w)
    flat = [i for p in perms for i in p]
    r = eval_compare("compare", {}, {"K": 4, "rankings": flat,
                                     "counts": [float(c) for c in counts]}, Ctx())
    mean = mp.fsum(mp.log(v) for v in w) / 4
    for i in range(4):
        t.near("PL fit, proportional counts [%d]" % i, r["scores_pl"][i], mp.log(w[i]) - mean)
        t.near("pairwise fit, proportional counts [%d]" % i, r["scores_pairs"][i],
               mp.log(w[i]) - mean)
    # a Plackett-Luce pair marginal is Bradley-Terry: sum over rankings with i above j
    pw = [Fraction(5), Fraction(2), Fraction(3)]
    tot = sum(pl_probability(pw, p) for p in permutations(3) if p.index(0) < p.index(2))
    t.true("PL pair marginal 5/(5+3)", tot == Fraction(5, 8))
    # K = 2: the pairwise loss is the Bradley-Terry loss, and the fits coincide
    out2 = eval_loss("sum", {}, {"scores": [1.5, 0.0], "ranking": [0, 1]}, Ctx())
    t.near("K = 2 loss = softplus(-1.5)", out2["loss"], softplus(-mpf(1.5)))
    # the pairwise fit maximises: gradient zero there
    flat3 = [0, 1, 2, 1, 0, 2, 2, 0, 1]
    c3 = [mpf(3), mpf(2), mpf(1)]
    rk3 = [flat3[0:3], flat3[3:6], flat3[6:9]]
    m = eval_mle("mle", {}, {"K": 3, "rankings": flat3, "counts": [3.0, 2.0, 1.0]}, Ctx())
    _, g, _ = pairwise_fgh(m["scores"], rk3, c3)
    t.true("pairwise fit: gradient zero", max(abs(x) for x in g) < mpf(10) ** -90)
    cmp = eval_compare("compare", {}, {"K": 3, "rankings": flat3, "counts": [3.0, 2.0, 1.0]},
                       Ctx())
    t.true("PL at the pairwise fit below its maximum",
           cmp["loglik_pl_at_pairs"] < cmp["loglik_pl"])
    t.true("the two fits differ here",
           max(abs(a - b) for a, b in zip(cmp["scores_pl"], cmp["scores_pairs"])) > mpf(10) ** -3)


SELFTESTS = [selftest]
