"""The tiny language model's parameterisations, supervised fine-tuning and exact-gradient
training: LM-PARAM, LM-SFT and LM-TRAIN (000 eq. 13.1, section 1, 13.8, 13.17, 13.21; catalogue
LM-*), from the definitions of README.md "The tiny language model" and the golden files.

A model has V tokens, one of them EOS, and a maximum length T; a sequence ends at its first EOS
(which it counts) or is cut after T tokens.  Its logits are rows of V: `bigram`, V + 1 rows, row
s the state after token s and row V the start; `tabular`, one row per prefix without EOS shorter
than T, by length, then lexicographically in the token numbers.  pi(a | s) = e^{l_a} / sum_b
e^{l_b} over the row of s, and pi(y) = prod_t pi(y_t | y_<t) (13.1).  Reading `keep`: every
sequence, cut ones too, is an outcome; `condition`: only EOS-ended ones, each with
pi(y) / P(EOS within T).

LM-PARAM: pi(a | s) and log pi(a | s) of every row.

LM-SFT (000 section 1: SFT maximises E_data log pi_theta(y)): data = sequences written one after
the other (each is delimited by its EOS or by reaching T tokens) with one weight each; p_data(y)
= (sum of the weights of y's entries) / (sum of all weights).  CE = -sum_y p_data(y) log q(y),
H = -sum p_data log p_data, KL(p_data || q) = sum p_data log(p_data / q), and the gradient of CE
in the logits, -sum_y p_data(y) d log q(y)/d logits, where d log pi(y) = sum_t (e_{y_t} -
pi(. | y_<t)) in the row of y_<t and, conditioned, d log q = d log pi - E_q[d log pi].

LM-TRAIN: a tabular policy whose parameters are its logits starts at the reference (the input
logits) and takes steps theta <- theta + lr grad J (J = E[r] or the RLHF objective E[r] - beta
KL(q || q_ref), 13.8) or theta <- theta - lr grad L (L = the population DPO or IPO loss over
ordered pairs of distinct sequences from q_ref x q_ref labelled by Bradley-Terry on r, 13.6,
13.21); cut sequences are kept.  Reported at the listed steps: the objective at theta_k and
KL(pi_theta_k || pi*), pi* = pi_ref e^{r/beta} / Z (13.15, 13.17).  The recurrence is run in
exact arithmetic to the working precision: the golden certifies the exact recurrence.

LM-TRAIN sampled (README "The tiny language model", `rlref train --sampled N --seed S`): the
same start and report, the step an estimate from a batch drawn with GSL's mt19937 seeded by
gsl_rng_set(seed), replayed here (xcore.gsl_mt19937; gsl_rng_uniform = k/2^32).  A sequence is
drawn token by token, one uniform u per token: a = the first b of 0..V-2 with u < c_b = sum_{j
<= b} pi(j | s), else V - 1; it ends at EOS or after T tokens.  E[r], RLHF: n sequences from
pi_theta, f_i = r_i (- beta (log pi_theta(y_i) - log pi_ref(y_i))), theta <- theta + (lr/n)
sum_i (f_i - mean f) grad log pi_theta(y_i) (REINFORCE with the batch mean as baseline, 13.2-13.4).
DPO: 2n sequences from pi_ref, pairs (y_2i, y_2i+1), then one uniform per pair: y_2i is preferred
when u < sigma(r_2i - r_2i+1) (13.6); theta <- theta + (lr/n) sum_pairs beta sigma(-beta z)
(grad log pi_theta(y_w) - grad log pi_theta(y_l)), z = h_w - h_l (the gradient of the mean of
-log sigma(beta z), 13.21).  A comparison whose two sides differ by less than 2^-40 makes the run
undecidable between binary64 and exact arithmetic: refused, EPREC.

Every sum is over exact binary64 inputs at the working precision; nothing here reads the C code.
"""

import itertools
import math
import random
from fractions import Fraction

from mpmath import mp, mpf

from xcore import is_int, Ctx, Reject, X, gsl_mt19937, gsl_uniform

VMAX = 64
PREFIX_LIMIT = 10 ** 5      # rows of a tabular model, prefixes walked for the conditioned mass
STEP_LIMIT = 10 ** 4        # the longest training run accepted here
BATCH_LIMIT = 10 ** 4       # the largest batch of a sampled run
DRAW_GUARD = Fraction(1, 2 ** 40)   # a draw this close to a boundary is undecidable (EPREC)


# ----------------------------------------------------------------------------------------------
# The model
# ----------------------------------------------------------------------------------------------

def real(v, name):
    """Exact mpf of a real input; NaN and +-inf refused (ENAN)."""
    if isinstance(v, Fraction):
        return X(v)
    if not isinstance(v, (float, int)) or isinstance(v, bool):
        raise Reject("EINVAL", "%s is not a number" % name)
    if math.isnan(v) or math.isinf(v):
        raise Reject("ENAN", "%s is not finite" % name)
    return X(v)


def n_prefixes(V, T):
    """Prefixes without EOS of length 0 .. T-1: sum_{t<T} (V-1)^t."""
    return sum((V - 1) ** t for t in range(T))


def log_softmax(row):
    """x - max - log(1 + sum of e^{x - max} over the others): log1p keeps a log-probability
    next to 0 (-e^-1000) that log of the whole sum would round to 0."""
    i = max(range(len(row)), key=lambda k: row[k])
    top = row[i]
    s = mp.log1p(mp.fsum(mp.exp(x - top) for k, x in enumerate(row) if k != i))
    return [x - top - s for x in row]


class Model:
    """Shape (V, eos, T, kind) and the log-softmax rows of the logits."""

    def __init__(self, kind, inputs, key="logits"):
        V, eos, T = inputs.get("V"), inputs.get("eos"), inputs.get("T")
        if not all(is_int(n) for n in (V, eos, T)):
            raise Reject("EINVAL", "V, eos and T must be integers")
        if V < 2:
            raise Reject("EDOM", "V = %d < 2" % V)
        if V > VMAX:
            raise Reject("EDOM", "V = %d beyond 64" % V, firm=False)
        if not 0 <= eos < V:
            raise Reject("EDOM", "EOS %d is not a token" % eos)
        if T < 1:
            raise Reject("EDOM", "T = %d < 1" % T)
        if kind == "tabular" and n_prefixes(V, T) > PREFIX_LIMIT:
            raise Reject("EDOM", "too many prefixes here", firm=False)
        self.kind, self.V, self.eos, self.T = kind, V, eos, T
        self.nrows = V + 1 if kind == "bigram" else n_prefixes(V, T)
        lg = inputs.get(key)
        if not isinstance(lg, list):
            raise Reject("EINVAL", "%s is not an array" % key)
        if len(lg) != self.nrows * V:
            raise Reject("EINVAL", "%d %s: a %s model of V = %d, T = %d has %d rows of %d"
                         % (len(lg), key, kind, V, T, self.nrows, V))
        self.logits = [real(x, key) for x in lg]
        self.lsm = [log_softmax(self.logits[i * V:(i + 1) * V]) for i in range(self.nrows)]

    def row(self, prefix):
        """The row of the state after `prefix` (no EOS in it)."""
        if self.kind == "bigram":
            return prefix[-1] if prefix else self.V
        rank = 0
        for a in prefix:
            rank = rank * (self.V - 1) + (a if a < self.eos else a - 1)
        return n_prefixes(self.V, len(prefix)) + rank

    def logp(self, y):
        """log pi(y) = sum_t log pi(y_t | y_<t)  (13.1)."""
        return mp.fsum(self.lsm[self.row(y[:t])][y[t]] for t in range(len(y)))

    def score(self, y):
        """d log pi(y) / d logits as {flat index: value}."""
        g = {}
        for t in range(len(y)):
            r = self.row(y[:t])
            for b in range(self.V):
                k = r * self.V + b
                g[k] = g.get(k, mpf(0)) + (1 if b == y[t] else 0) - mp.exp(self.lsm[r][b])
        return g

    def outcomes(self, keep):
        """Every outcome: (y, cut), EOS-ended ones and, kept, the cut ones."""
        out = []
        others = [a for a in range(self.V) if a != self.eos]
        for L in range(1, self.T + 1):
            for p in itertools.product(others, repeat=L - 1):
                out.append((p + (self.eos,), False))
        if keep:
            for p in itertools.product(others, repeat=self.T):
                out.append((p, True))
        return out


def variant_of(variant, formula, names):
    if variant not in names:
        raise ValueError("%s: unknown variant %r" % (formula, variant))
    return variant


# ----------------------------------------------------------------------------------------------
# LM-PARAM
# ----------------------------------------------------------------------------------------------

def eval_param(variant, params, inputs, ctx):
    """pi(a | s) = softmax(row of s)_a and its log, every row (13.1's factors)."""
    kind = variant_of(variant, "LM-PARAM", ("bigram", "tabular"))
    m = Model(kind, inputs)
    logs = [x for row in m.lsm for x in row]
    return {"pi": [mp.exp(x) for x in logs], "log_pi": logs}


# ----------------------------------------------------------------------------------------------
# LM-SFT
# ----------------------------------------------------------------------------------------------

def split_data(m, data):
    """The sequences written one after the other in data: each ends at its first EOS or after
    T tokens."""
    if not isinstance(data, list) or not all(is_int(a) for a in data):
        raise Reject("EINVAL", "data is not an array of tokens")
    seqs, cur = [], []
    for a in data:
        if not 0 <= a < m.V:
            raise Reject("EDOM", "token %d is not one of 0..%d" % (a, m.V - 1))
        cur.append(a)
        if a == m.eos or len(cur) == m.T:
            seqs.append((tuple(cur), a != m.eos))
            cur = []
    if cur:
        raise Reject("EDOM", "the data end inside a sequence (no EOS, fewer than T tokens)")
    return seqs


def eval_sft(variant, params, inputs, ctx):
    """CE, H(p_data), KL(p_data || q) and d CE / d logits (000 section 1), with the
    working precision raised by the binary exponent spread of the weights: p = w/W near 1
    holds 1 - p only in the bits beyond that spread."""
    w = inputs.get("weights")
    extra = 0
    if isinstance(w, list):
        e = [mp.frexp(real(x, "weights"))[1] for x in w if real(x, "weights") > 0]
        extra = max(e) - min(e) if e else 0
    with mp.workprec(mp.prec + extra + 64):
        return eval_sft_at(variant, params, inputs, ctx)


def eval_sft_at(variant, params, inputs, ctx):
    kind, reading = variant_of(variant, "LM-SFT", ("bigram-keep", "bigram-condition",
                                                   "tabular-keep", "tabular-condition")).split("-")
    keep = reading == "keep"
    m = Model(kind, inputs)
    seqs = split_data(m, inputs.get("data"))
    w = inputs.get("weights")
    if not isinstance(w, list):
        raise Reject("EINVAL", "weights is not an array")
    if len(w) != len(seqs):
        raise Reject("EINVAL", "%d weights for %d sequences" % (len(w), len(seqs)))
    if not seqs:
        raise Reject("EINVAL", "no data")
    wv = [real(x, "weights") for x in w]
    if any(x < 0 for x in wv):
        raise Reject("EDOM", "a negative weight")
    total = mp.fsum(wv)
    if total == 0:
        raise Reject("EDOM", "every weight is 0")
    if not keep and any(cut for _, cut in seqs):
        raise Reject("EDOM", "a cut sequence is no outcome when cut sequences are "
                     "conditioned away")
    pd = {}
    for (y, _), x in zip(seqs, wv):
        pd[y] = pd.get(y, mpf(0)) + x
    pd = {y: x / total for y, x in pd.items() if x > 0}
    # log q(y) = log pi(y) - log P(EOS within T) when conditioned
    log_mass = mpf(0)
    outs = None
    if not keep:
        if n_prefixes(m.V, m.T) > PREFIX_LIMIT:
            raise Reject("EDOM", "too many sequences here", firm=False)
        outs = [y for y, _ in m.outcomes(False)]
        lps = [m.logp(y) for y in outs]
        top = max(lps)
        log_mass = top + mp.log(mp.fsum(mp.exp(x - top) for x in lps))
    lq = {y: m.logp(y) - log_mass for y in pd}
    ce = -mp.fsum(p * lq[y] for y, p in pd.items())
    h = -mp.fsum(p * mp.log(p) for p in pd.values())
    kl = mp.fsum(p * (mp.log(p) - lq[y]) for y, p in pd.items())
    grad = [mpf(0)] * (m.nrows * m.V)
    for y, p in pd.items():
        for k, x in m.score(y).items():
            grad[k] -= p * x
    if not keep:
        # + E_q[d log pi]: the derivative of log P(EOS within T)
        for y, lp in zip(outs, lps):
            q = mp.exp(lp - log_mass)
            for k, x in m.score(y).items():
                grad[k] += q * x
    ctx.closed_form = {"ce": h + kl}
    return {"ce": ce, "entropy": h, "kl": kl, "grad": grad}


# ----------------------------------------------------------------------------------------------
# LM-TRAIN
# ----------------------------------------------------------------------------------------------

def sigmoid(x):
    return 1 / (1 + mp.exp(-x))


def softplus(x):
    return x + mp.log1p(mp.exp(-x)) if x > 0 else mp.log1p(mp.exp(x))


class Trainer:
    """The reference (theta_0), the outcomes (every sequence, cut ones kept), their rewards and
    log pi*, and the objective with its gradient at any theta."""

    def __init__(self, inputs, objective):
        self.ref = Model("tabular", inputs)
        m = self.ref
        reward = inputs.get("reward")
        if not isinstance(reward, list) or len(reward) != m.V + 2:
            raise Reject("EINVAL", "reward holds V + 2 numbers")
        rv = [real(x, "reward") for x in reward]
        self.beta = real(inputs.get("beta"), "beta")
        if not self.beta > 0:
            raise Reject("EDOM", "beta must be > 0")
        self.objective = objective
        self.outs = m.outcomes(True)
        # r(y) = sum_t (token[y_t] + per_length) + truncated [cut]
        self.r = [mp.fsum(rv[a] + rv[m.V] for a in y) + (rv[m.V + 1] if cut else 0)
                  for y, cut in self.outs]
        self.lref = [m.logp(y) for y, _ in self.outs]
        self.qref = [mp.exp(x) for x in self.lref]
        # pi* = pi_ref e^{r/beta} / Z  (13.15, 13.17)
        ls = [a + r / self.beta for a, r in zip(self.lref, self.r)]
        top = max(ls)
        logz = top + mp.log(mp.fsum(mp.exp(x - top) for x in ls))
        self.lstar = [x - logz for x in ls]

    def at(self, theta):
        """log q of every outcome, and the scores, at logits theta."""
        m = self.ref
        lsm = [log_softmax(theta[i * m.V:(i + 1) * m.V]) for i in range(m.nrows)]
        lq, sc = [], []
        for y, _ in self.outs:
            lp, g = mpf(0), {}
            for t in range(len(y)):
                r = m.row(y[:t])
                lp += lsm[r][y[t]]
                for b in range(m.V):
                    k = r * m.V + b
                    g[k] = g.get(k, mpf(0)) + (1 if b == y[t] else 0) - mp.exp(lsm[r][b])
            lq.append(lp)
            sc.append(g)
        return lq, sc

    def value_grad(self, theta, want_grad=True):
        """J and dJ/dtheta = sum_y c(y) d log q(y) (cut kept: sum_y q d log q = 0)."""
        lq, sc = self.at(theta)
        q = [mp.exp(x) for x in lq]
        h = [a - b for a, b in zip(lq, self.lref)]
        beta, n = self.beta, len(q)
        if self.objective in ("reward", "rlhf"):
            f = self.r if self.objective == "reward" else \
                [r - beta * x for r, x in zip(self.r, h)]
            value = mp.fsum(a * b for a, b in zip(q, f))
            # d/dtheta sum q f = sum q f d log q + sum q df; df = -beta d log q (rlhf),
            # and sum q d log q = 0
            coef = [a * b for a, b in zip(q, f)]
        else:
            value, coef = mpf(0), [mpf(0)] * n
            terms = []
            for i in range(n):
                for j in range(n):
                    if i == j:
                        continue
                    wgt = self.qref[i] * self.qref[j] * sigmoid(self.r[i] - self.r[j])
                    z = h[i] - h[j]
                    if self.objective == "dpo":
                        terms.append(wgt * softplus(-beta * z))        # -log sigma(beta z)
                        d = -wgt * beta * sigmoid(-beta * z)
                    else:
                        u = z - 1 / (2 * beta)
                        terms.append(wgt * u * u)
                        d = 2 * wgt * u
                    coef[i] += d
                    coef[j] -= d
            value = mp.fsum(terms)
        if not want_grad:
            return value, None, lq
        grad = [mpf(0)] * len(theta)
        for c, g in zip(coef, sc):
            for k, x in g.items():
                grad[k] += c * x
        return value, grad, lq

    def kl_star(self, lq):
        """KL(pi_theta || pi*) = sum q (log q - log pi*)."""
        return mp.fsum(mp.exp(a) * (a - b) for a, b in zip(lq, self.lstar))


def train_inputs(inputs, obj):
    """The trainer, lr and the steps reported, checked."""
    tr = Trainer(inputs, obj)
    lr = real(inputs.get("lr"), "lr")
    if not lr > 0:
        raise Reject("EDOM", "the learning rate must be > 0")
    at = inputs.get("at")
    if not isinstance(at, list) or not at or not all(is_int(k) for k in at):
        raise Reject("EINVAL", "at is not a non-empty array of steps")
    if at[0] < 0 or any(b <= a for a, b in zip(at, at[1:])):
        raise Reject("EDOM", "the steps must increase from 0 or more")
    if at[-1] > STEP_LIMIT:
        raise Reject("EDOM", "a run of %d steps" % at[-1], firm=False)
    return tr, lr, at


def eval_train(variant, params, inputs, ctx):
    if variant.startswith("sampled-"):
        return eval_sampled(variant, inputs)
    obj = variant_of(variant, "LM-TRAIN", ("rlhf", "reward", "dpo", "ipo"))
    tr, lr, at = train_inputs(inputs, obj)
    sign = 1 if obj in ("reward", "rlhf") else -1
    theta = list(tr.ref.logits)
    want = set(at)
    objective, kl = [], []
    for k in range(at[-1] + 1):
        last = k == at[-1]
        value, grad, lq = tr.value_grad(theta, not last)
        if k in want:
            objective.append(value)
            kl.append(tr.kl_star(lq))
        if not last:
            theta = [t + sign * lr * g for t, g in zip(theta, grad)]
    return {"objective": objective, "kl_pistar": kl}


def decide(u, c):
    """u < c, refused (EPREC) when |c - u| < 2^-40."""
    d = c - X(u)
    if abs(d) < X(DRAW_GUARD):
        raise Reject("EPREC", "a draw within 2^-40 of a boundary (%s)" % mp.nstr(d, 5))
    return d > 0


def draw(m, theta, rng):
    """One sequence from the tabular policy with logits theta: (tokens, cut)."""
    y = []
    while True:
        r = m.row(y)
        p = [mp.exp(x) for x in log_softmax(theta[r * m.V:(r + 1) * m.V])]
        u = gsl_uniform(rng)
        a, c = m.V - 1, mpf(0)
        for b in range(m.V - 1):
            c += p[b]
            if decide(u, c):
                a = b
                break
        y.append(a)
        if a == m.eos:
            return tuple(y), False
        if len(y) == m.T:
            return tuple(y), True


def sampled_step(tr, theta, lr, obj, batch, prefer_first):
    """theta after one step on a batch: the outcome indices drawn (2n for DPO, in pairs) and,
    for DPO, whether each pair's first sequence is the preferred one."""
    lq, sc = tr.at(theta)
    coef = {}
    if obj in ("reward", "rlhf"):
        n = len(batch)
        f = [tr.r[i] - (tr.beta * (lq[i] - tr.lref[i]) if obj == "rlhf" else 0) for i in batch]
        mean = mp.fsum(f) / n
        for i, fi in zip(batch, f):
            coef[i] = coef.get(i, mpf(0)) + (fi - mean) / n
    else:
        n = len(batch) // 2
        for k in range(n):
            w, l = batch[2 * k], batch[2 * k + 1]
            if not prefer_first[k]:
                w, l = l, w
            z = (lq[w] - tr.lref[w]) - (lq[l] - tr.lref[l])
            c = tr.beta * sigmoid(-tr.beta * z) / n
            coef[w] = coef.get(w, mpf(0)) + c
            coef[l] = coef.get(l, mpf(0)) - c
    theta = list(theta)
    for i, c in coef.items():
        for k, x in sc[i].items():
            theta[k] += lr * c * x
    return theta


def eval_sampled(variant, inputs):
    obj = variant_of(variant, "LM-TRAIN", ("sampled-rlhf", "sampled-reward",
                                           "sampled-dpo"))[len("sampled-"):]
    tr, lr, at = train_inputs(inputs, obj)
    n, seed = inputs.get("n"), inputs.get("seed")
    if not is_int(n) or not is_int(seed):
        raise Reject("EINVAL", "n and seed are integers")
    if not 2 <= n <= BATCH_LIMIT:
        raise Reject("EDOM", "a batch of %d: 2 to 1e4" % n)
    if not 0 <= seed <= 0xffffffff:
        raise Reject("EDOM", "the seed is 0 to 2^32 - 1")
    rng = gsl_mt19937(seed)
    index = {y: i for i, (y, _) in enumerate(tr.outs)}
    theta = list(tr.ref.logits)
    want = set(at)
    objective, kl = [], []
    for k in range(at[-1] + 1):
        if k in want:
            value, _, lq = tr.value_grad(theta, False)
            objective.append(value)
            kl.append(tr.kl_star(lq))
        if k == at[-1]:
            break
        source = tr.ref.logits if obj == "dpo" else theta
        m = 2 * n if obj == "dpo" else n
        batch = [index[draw(tr.ref, source, rng)[0]] for _ in range(m)]
        first = []
        if obj == "dpo":
            for i in range(n):
                d = tr.r[batch[2 * i]] - tr.r[batch[2 * i + 1]]
                first.append(decide(gsl_uniform(rng), sigmoid(d)))
        theta = sampled_step(tr, theta, lr, obj, batch, first)
    return {"objective": objective, "kl_pistar": kl}


EVALUATORS = {
    "LM-PARAM": eval_param,
    "LM-SFT": eval_sft,
    "LM-TRAIN": eval_train,
}


def no_params(variant, params):
    return ["unexpected params %s" % sorted(params)] if params else []


PARAM_CHECKS = {f: no_params for f in EVALUATORS}


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400
# ----------------------------------------------------------------------------------------------

def selftest_param(t):
    """Rows sum to 1; a uniform row gives 1/V; logits 1000, 0, -1000 give log pi_0 = -log(1 +
    e^-1000 + e^-2000)."""
    out = eval_param("bigram", {}, {"V": 3, "eos": 2, "T": 2,
                                    "logits": [1000.0, 0.0, -1000.0] + [0.0] * 9}, Ctx())
    t.near("row sums to 1", mp.fsum(out["pi"][:3]), mpf(1))
    want = -mp.log1p(mp.exp(-1000) + mp.exp(-2000))
    t.true("log pi_0 = -log1p(e^-1000 + e^-2000) = %s" % mp.nstr(out["log_pi"][0], 5),
           abs(out["log_pi"][0] - want) < abs(want) * mpf(2) ** -300)
    t.near("uniform row: 1/3", out["pi"][5], mpf(1) / 3)


def selftest_sft(t):
    """CE = H + KL; data equal to the model's own distribution give KL = 0 and a zero gradient
    (the maximum-likelihood point); the gradient of CE equals central differences."""
    rnd = random.Random(3)
    V, eos, T = 3, 2, 2
    n = n_prefixes(V, T) * V
    base = {"V": V, "eos": eos, "T": T, "logits": [rnd.uniform(-1, 1) for _ in range(n)],
            "data": [0, 2, 1, 1, 2, 0, 0], "weights": [3.0, 1.0, 0.5, 2.0]}
    for variant in ("tabular-keep", "bigram-keep"):
        inp = dict(base, logits=[rnd.uniform(-1, 1) for _ in range(n if variant[0] == "t"
                                                                    else (V + 1) * V)])
        r = eval_sft(variant, {}, inp, Ctx())
        t.near("%s: CE = H + KL" % variant, r["ce"], r["entropy"] + r["kl"])
        step = Fraction(1, 2 ** 100)
        with mp.workprec(600):
            worst = mpf(0)
            for k in range(len(inp["logits"])):
                vals = []
                for sgn in (1, -1):
                    lg = list(inp["logits"])
                    lg[k] = Fraction(lg[k]) + sgn * step
                    vals.append(eval_sft(variant, {}, dict(inp, logits=lg), Ctx())["ce"])
                worst = max(worst, abs((vals[0] - vals[1]) / (2 * X(step)) - r["grad"][k]))
        t.true("%s: gradient = central differences (%s)" % (variant, mp.nstr(worst, 3)),
               worst < mpf(10) ** -40)
    cond = dict(base, data=[0, 2, 2, 1, 2], weights=[1.0, 2.0, 0.25])
    r = eval_sft("tabular-condition", {}, cond, Ctx())
    step = Fraction(1, 2 ** 100)
    with mp.workprec(600):
        worst = mpf(0)
        for k in range(n):
            vals = []
            for sgn in (1, -1):
                lg = list(cond["logits"])
                lg[k] = Fraction(lg[k]) + sgn * step
                vals.append(eval_sft("tabular-condition", {}, dict(cond, logits=lg),
                                     Ctx())["ce"])
            worst = max(worst, abs((vals[0] - vals[1]) / (2 * X(step)) - r["grad"][k]))
    t.true("conditioned: gradient = central differences (%s)" % mp.nstr(worst, 3),
           worst < mpf(10) ** -40)
    # uniform tabular model, V = 2, T = 2: outcomes (1), (0 1), (0 0) cut, each 1/2, 1/4, 1/4
    uni = {"V": 2, "eos": 1, "T": 2, "logits": [0.0] * 4, "data": [1, 0, 1, 0, 0],
           "weights": [0.5, 0.25, 0.25]}
    r = eval_sft("tabular-keep", {}, uni, Ctx())
    t.true("data = the model: KL = 0 (%s)" % mp.nstr(r["kl"], 3), abs(r["kl"]) < mpf(2) ** -380)
    t.true("data = the model: gradient 0", max(abs(x) for x in r["grad"]) < mpf(2) ** -380)
    t.near("data = the model: CE = H = 1.5 log 2", r["ce"], mpf(3) / 2 * mp.log(2))


def selftest_train(t):
    """rlhf and dpo runs approach pi*: KL(pi_theta || pi*) falls; the first step's change of
    the objective matches lr |grad|^2 to first order; the gradient equals central
    differences."""
    rnd = random.Random(9)
    V, eos, T = 3, 2, 2
    n = n_prefixes(V, T) * V
    inp = {"V": V, "eos": eos, "T": T, "logits": [rnd.uniform(-1, 1) for _ in range(n)],
           "reward": [1.0, -0.5, 0.25, -0.125, 0.5], "beta": 0.5, "lr": 0.5,
           "at": [0, 10, 40]}
    for obj in ("rlhf", "dpo"):
        r = eval_train(obj, {}, inp, Ctx())
        k = r["kl_pistar"]
        t.true("%s: KL to pi* falls (%s)" % (obj, ", ".join(mp.nstr(x, 4) for x in k)),
               k[0] > k[1] > k[2] > 0)
    for obj in ("rlhf", "reward", "dpo", "ipo"):
        tr = Trainer(inp, obj)
        theta = [X(x) + mpf(rnd.uniform(-0.3, 0.3)) for x in inp["logits"]]
        _, g, _ = tr.value_grad(theta)
        h = mpf(2) ** -90
        with mp.workprec(600):
            worst = mpf(0)
            for i in range(n):
                tp, tm = list(theta), list(theta)
                tp[i] += h
                tm[i] -= h
                d = (tr.value_grad(tp, False)[0] - tr.value_grad(tm, False)[0]) / (2 * h)
                worst = max(worst, abs(d - g[i]))
        t.true("%s: gradient = central differences (%s)" % (obj, mp.nstr(worst, 3)),
               worst < mpf(10) ** -40)


def selftest_sampled(t):
    """The sampled step's expectation over every batch: REINFORCE with the batch mean as
    baseline gives (1 - 1/n) grad J for E[r] and RLHF; one DPO pair gives -2 grad L (L sums over
    ordered pairs with weight q_ref q_ref sigma, half the expectation over a labelled pair);
    the draw's inverse CDF; a boundary met within 2^-40 is refused (EDOM)."""
    rnd = random.Random(11)
    V, eos, T = 3, 2, 2
    n = n_prefixes(V, T) * V
    inp = {"V": V, "eos": eos, "T": T, "logits": [rnd.uniform(-1, 1) for _ in range(n)],
           "reward": [1.0, -0.5, 0.25, -0.125, 0.5], "beta": 0.5}
    for obj in ("reward", "rlhf", "dpo"):
        tr = Trainer(inp, obj)
        theta = [X(x) + mpf(rnd.uniform(-0.3, 0.3)) for x in inp["logits"]]
        _, grad, lq = tr.value_grad(theta)
        q = tr.qref if obj == "dpo" else [mp.exp(x) for x in lq]
        mean = [mpf(0)] * n
        idx = range(len(tr.outs))
        for i, j in itertools.product(idx, idx):
            if obj == "dpo":
                p1 = sigmoid(tr.r[i] - tr.r[j])
                cases = ((q[i] * q[j] * p1, [True]), (q[i] * q[j] * (1 - p1), [False]))
            else:
                cases = ((q[i] * q[j], []),)
            for pr, first in cases:
                new = sampled_step(tr, theta, mpf(1), obj, [i, j], first)
                for k in range(n):
                    mean[k] += pr * (new[k] - theta[k])
        want = [g / 2 for g in grad] if obj != "dpo" else [-2 * g for g in grad]
        worst = max(abs(a - b) for a, b in zip(mean, want))
        t.true("%s: E[step] = %s (%s)" % (obj, "grad J / 2" if obj != "dpo" else "-2 grad L",
                                          mp.nstr(worst, 3)), worst < mpf(10) ** -100)
    # the inverse CDF of the row log 1, log 2, log 3 (pi = 1/6, 1/3, 1/2): u = 0.1 -> 0,
    # u = 0.25 -> 1, u = 0.75 -> 2 (EOS); u = 1/2 on the boundary c_1 = 1/2 is refused
    m = Model("tabular", {"V": 3, "eos": 2, "T": 1, "logits": [0.0, 0.0, 0.0]})
    th = [mp.log(1), mp.log(2), mp.log(3)]

    class Fixed:
        def __init__(self, us):
            self.us = list(us)

        def getrandbits(self, k):
            return int(self.us.pop(0) * 2 ** 32)
    got = [draw(m, th, Fixed([u]))[0] for u in (0.1, 0.25, 0.75)]
    t.true("inverse CDF: %s" % got, got == [(0,), (1,), (2,)])
    try:
        draw(m, th, Fixed([0.5]))
        code = None
    except Reject as ex:
        code = ex.code
    t.true("a uniform on a boundary: %s" % code, code == "EPREC")


SELFTESTS = [selftest_param, selftest_sft, selftest_train, selftest_sampled]
