"""The PPO family, PPO-TOKREW, PPO-TOKREW-EX, PPO-KLSUM, PPO-RATIO, PPO-IS, PPO-CLIP,
PPO-CLIP-EX2, PPO-DUALCLIP, PPO-VALUE, PPO-WHITEN and PPO-KLCTL (000 eq. 13.9-13.12 and section
3; 003 "PPO"; 001 "PPO"; CONVENTIONS.md "Ratio and clipping", "GAE, whitening, value loss" and
"KL estimators"), from the definitions in those documents and, where they leave room, the code
of the library a variant cites: TRL 1.10 trl/experimental/ppo/ppo_trainer.py; verl
verl/trainer/ppo/core_algos.py (compute_policy_loss_vanilla, compute_value_loss, kl_penalty,
AdaptiveKLController, compute_rewards) and verl/utils/torch_functional.py (masked_whiten);
OpenRLHF openrlhf/models/loss.py (PolicyLoss, ValueLoss), openrlhf/models/utils.py
(compute_approx_kl, compute_reward), openrlhf/trainer/ppo_utils (the advantage normalisation,
AdaptiveKLController); Spinning Up and Stable-Baselines3 for the early stop and the
std + eps whitening.

Inputs are exact binary64 (a Fraction when "sens" perturbs one).  Log-ratios, clips, the
value losses, whitening statistics and the controller are exact rationals, rounded once to the
working precision; only exp, log and sqrt are evaluated in mpmath.  A masked token (mask 0)
takes no part in a mean; a mask entry other than 0 and 1 is refused (EDOM), and so is a mask
without a 1 where a mean over the mask is formed.

The float32 readings (variants trl-float32, verl-float32, openrlhf-float32 of PPO-RATIO, PPO-CLIP,
PPO-DUALCLIP, PPO-VALUE and PPO-WHITEN) follow the libraries' torch code operation by operation
in binary32, written here from that code (see the section "float32 readings").

PPO-KLSUM enumerates every sequence of a tiny language model here, independently of the library
(its own prefix order and sequence products), and forms KL(pi || pi_ref) from products of
probabilities, the per-token side of (13.10) from sums of per-token log-ratios.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import (is_int, qreal, param, Ctx, M, Reject, get_input, bumped, central, refused,
                   f32, f32_op)


# ----------------------------------------------------------------------------------------------
# Reading the inputs
# ----------------------------------------------------------------------------------------------

def arrays(inputs, names, what, allow_empty=False):
    """The named real arrays, all of one length n >= 1, as exact rationals.  Lengths that differ
    and an empty batch are refused (EINVAL), then non-finite entries (ENAN)."""
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
    if n0 == 0 and not allow_empty:
        raise Reject("EINVAL", "no %s" % what)
    return n0, [[qreal(x, "%s[%d]" % (n, i)) for i, x in enumerate(a)]
                for n, a in zip(names, raw)]


def mask_of(inputs, n, need_one=True):
    """The 0/1 mask of n tokens: another length is EINVAL, an entry other than 0 and 1 EDOM,
    and (need_one) a mask without a 1 EDOM: a mean over no token is 0/0."""
    m = inputs.get("mask")
    if not isinstance(m, list) or len(m) != n:
        raise Reject("EINVAL", "the mask must hold one entry per token (%d)" % n)
    for i, x in enumerate(m):
        if not is_int(x) or x not in (0, 1):
            raise Reject("EDOM", "mask[%d] = %r is not 0 or 1" % (i, x))
    if need_one and sum(m) == 0:
        raise Reject("EDOM", "no token in the mask: a mean over the mask is 0/0")
    return m


def clamp(x, lo, hi):
    """min(max(x, lo), hi), as torch.clamp and 003's clip(x, a, b) = min(max(x, a), b)."""
    return min(max(x, lo), hi)


def exp_q(q):
    return mp.exp(M(q))


def k3_of(ell):
    """k3 = e^{-l} - 1 + l of an exact log-ratio l, at a precision that survives its
    cancellation (k3 ~ l^2/2 for small l)."""
    if ell == 0:
        return mpf(0)
    extra = max(0, -2 * int(math.floor(math.log2(abs(float(ell)) or 1e-300)))) + 20
    with mp.workprec(mp.prec + extra):
        v = mp.exp(-M(ell)) - 1 + M(ell)
    return +v


# ----------------------------------------------------------------------------------------------
# PPO-TOKREW (000 13.9): r_t = score [t = end] - beta k(log pi_old - log pi_ref)
# ----------------------------------------------------------------------------------------------

# variant -> (estimator, where the score goes, default beta)
#   seed-000         k1 = l; score at the last token of the mask (13.9: t = T)
#   trl-k1, trl-k3   TRL 1.10 experimental PPO: sequence_length = (the first pad token) - 1, so
#                    the response ends at the first 0 of the mask; logprobs and ref_logprobs are
#                    INVALID_LOGPROB after it (kl 0 there); logr = ref - logp, kl = -logr (k1)
#                    or (e^{logr} - 1) - logr (k3), no clamp; the score at sequence_length + 1
#                    when that slot exists (< width), else at sequence_length
#   verl-k1          verl kl_penalty "kl": l, times the mask; score at the last response token
#   verl-low-var-kl  verl "low_var_kl"/"k3": c = clamp(ref - logp, -20, 20), clamp(e^c - c - 1,
#                    -10, 10)
#   openrlhf-k1/-k3  OpenRLHF compute_approx_kl and compute_reward, in binary32 (eval_tokrew_orl)
TOKREW = {
    "seed-000": ("k1", "last", 0.1),
    "trl-k1": ("k1", "trl", 0.05),
    "trl-k3": ("k3", "trl", 0.05),
    "verl-k1": ("k1", "last", 0.001),
    "verl-low-var-kl": ("verl-k3", "last", 0.001),
    "openrlhf-k1": ("k1", "openrlhf", 0.01),
    "openrlhf-k2": ("k2", "openrlhf", 0.01),
    "openrlhf-k3": ("k3", "openrlhf", 0.01),
}


def estimator(kind, ell):
    """The per-token KL estimate of a variant at the exact log-ratio l = logp - ref."""
    if kind == "k1":
        return M(ell)
    if kind == "k3":
        return k3_of(ell)
    if kind == "verl-k3":
        c = clamp(-ell, Fraction(-20), Fraction(20))
        k = k3_of(-c)                       # e^c - c - 1 = k3 at l = -c
        return clamp(k, mpf(-10), mpf(10))
    raise ValueError(kind)


def eval_tokrew(variant, params, inputs, ctx):
    if variant not in TOKREW:
        raise ValueError("PPO-TOKREW: unknown variant %r" % variant)
    kind, where, _ = TOKREW[variant]
    if where == "openrlhf":
        return eval_tokrew_orl(kind, params, inputs)
    n, (logp, ref) = arrays(inputs, ("logp", "ref"), "tokens")
    mask = mask_of(inputs, n)
    score = param(inputs, params, "score")
    beta = param(inputs, params, "beta")
    if beta < 0:
        raise Reject("EDOM", "beta = %s < 0" % float(beta))
    if where == "trl":
        n0 = mask.index(0) if 0 in mask else n       # the first pad token ends the response
        if n0 == 0:
            raise Reject("EDOM", "the mask starts with 0: a response of no token")
        counts = [i < n0 for i in range(n)]
        end = n0 if n0 < n else n0 - 1
    else:
        counts = [bool(m) for m in mask]
        end = max(i for i in range(n) if mask[i])
    kl = [estimator(kind, logp[i] - ref[i]) if counts[i] else mpf(0) for i in range(n)]
    rewards = [-M(beta) * kl[i] + (M(score) if i == end else 0) for i in range(n)]
    kl_sum = mp.fsum(kl)
    return {"rewards": rewards, "kl": kl, "reward_sum": M(score) - M(beta) * kl_sum,
            "kl_sum": kl_sum}


def eval_tokrew_orl(kind, params, inputs):
    """OpenRLHF 0.11 compute_approx_kl and compute_reward, which work in binary32 (log_probs
    .float()) whatever the run's dtype: l = f32(f32(logp) - f32(ref)); k1 = l, k2 = f32(l l)/2,
    k3 =
    f32(f32(e^{-l} - 1) + l) ((-log_ratio).exp() - 1 + log_ratio); log_ratio.clamp(-10, 10)
    (an infinite e^{-l} gives 10).  compute_reward: kl_coef <= 0 becomes 0; r.clamp(-10, 10)
    (reward.clip_range), cast to binary32 (.to(kl.dtype)); kl_reward = -kl_coef * kl at every
    token (nothing masks it), the Python scalar taken in binary32; the score scattered at the
    last position whose mask is 1; reward = last_reward + kl_reward.  reward_sum =
    reward.sum(-1), kl_sum likewise, binary32 sums left to right.  kl is reported unmasked."""
    n, (logp, ref) = arrays(inputs, ("logp", "ref"), "tokens")
    mask = mask_of(inputs, n)
    score = param(inputs, params, "score")
    beta = param(inputs, params, "beta")
    coef = beta if beta > 0 else Fraction(0)
    nb = f32(-coef)
    s = f32(clamp(score, Fraction(-10), Fraction(10)))
    end = max(i for i in range(n) if mask[i])
    kl, rewards = [], []
    for i in range(n):
        lp = f32_in(logp[i], "logp[%d]" % i)
        rf = f32_in(ref[i], "ref[%d]" % i)
        ell = f32_fin(f32_op("-", lp, rf), "logp - ref")
        if kind == "k1":
            k = ell
        elif kind == "k2":
            k = f32_op("*", ell, ell) / 2       # log_ratio**2 / 2.0 (inf stays inf)
        else:
            e = exp32(-ell)
            k = math.inf if math.isinf(e) else f32_op("+", f32_op("-", e, 1.0), ell)
        k = plus0(clamp(k, -10.0, 10.0))
        kr = f32_fin(f32_op("*", nb, k), "beta kl")
        r = f32_fin(f32_op("+", s, kr), "a reward") if i == end else kr
        kl.append(k)
        rewards.append(plus0(r))
    return {"rewards": [mpf(x) for x in rewards], "kl": [mpf(x) for x in kl],
            "reward_sum": mpf(plus0(f32_fin(sum32(rewards), "the sum of the rewards"))),
            "kl_sum": mpf(plus0(f32_fin(sum32(kl), "the sum of the estimates")))}


# ----------------------------------------------------------------------------------------------
# PPO-TOKREW-EX (000 section 3's example): pi_ref = 0.4, pi = 0.9
# ----------------------------------------------------------------------------------------------

def eval_tokrew_ex(variant, params, inputs, ctx):
    """ratio = p/p_ref, l = log(p/p_ref) = k1, k2 = l^2/2, k3 = p_ref/p - 1 + l (= e^{-l} - 1 +
    l), for probabilities 0 < p, p_ref <= 1."""
    if variant != "seed-000":
        raise ValueError("PPO-TOKREW-EX: unknown variant %r" % variant)
    p = qreal(inputs.get("p"), "p")
    pr = qreal(inputs.get("p_ref"), "p_ref")
    for name, v in (("p", p), ("p_ref", pr)):
        if not 0 < v <= 1:
            raise Reject("EDOM", "%s = %s is not a probability in (0, 1]" % (name, float(v)))
    q = p / pr
    with mp.workprec(mp.prec + 64):
        ell = mp.log(M(q))
        k3 = M(pr / p - 1) + ell
    return {"ratio": M(q), "log_ratio": +ell, "k2": ell * ell / 2, "k3": +k3}


# ----------------------------------------------------------------------------------------------
# PPO-KLSUM (000 13.10) on the tiny language model, enumerated here
# ----------------------------------------------------------------------------------------------

def prefix_count(V, T):
    return sum((V - 1) ** t for t in range(T))


class Tiny:
    """A tiny LM: sequences end at EOS or are cut after T tokens; pi(y) the product of the
    next-token softmax probabilities (13.1).  bigram: row = previous token (V at the start);
    tabular: one row per prefix without EOS, by length, then lexicographically in the tokens
    (EOS skipped)."""

    def __init__(self, kind, V, eos, T, logits, name):
        self.kind, self.V, self.eos, self.T = kind, V, eos, T
        rows = V + 1 if kind == "bigram" else prefix_count(V, T)
        if len(logits) != rows * V:
            raise Reject("EINVAL", "%s holds %d numbers, a %s model of V = %d, T = %d has %d x "
                         "%d" % (name, len(logits), kind, V, T, rows, V))
        vals = [M(qreal(x, name)) for x in logits]
        self.prob = []
        for r in range(rows):
            row = vals[r * V:(r + 1) * V]
            top = max(row)
            e = [mp.exp(x - top) for x in row]
            s = mp.fsum(e)
            self.prob.append([x / s for x in e])

    def row(self, prefix):
        if self.kind == "bigram":
            return prefix[-1] if prefix else self.V
        k = 0
        for a in prefix:
            k = k * (self.V - 1) + (a if a < self.eos else a - 1)
        return prefix_count(self.V, len(prefix)) + k

    def token_probs(self, y):
        return [self.prob[self.row(y[:t])][y[t]] for t in range(len(y))]


def sequences(V, eos, T):
    """Every outcome (y, cut): EOS-ended sequences of up to T tokens and the cut ones of T."""
    out = []

    def walk(prefix):
        for a in range(V):
            y = prefix + (a,)
            if a == eos:
                out.append((y, False))
            elif len(y) == T:
                out.append((y, True))
            else:
                walk(y)
    walk(())
    return out


def tiny_shape(inputs):
    V, eos, T = inputs.get("V"), inputs.get("eos"), inputs.get("T")
    for name, k in (("V", V), ("eos", eos), ("T", T)):
        if not is_int(k):
            raise Reject("EINVAL", "%s must be an integer" % name)
    if not 2 <= V <= 64:
        raise Reject("EDOM", "V = %d outside 2 to 64" % V)
    if not 0 <= eos < V:
        raise Reject("EDOM", "EOS %d is not a token" % eos)
    if T < 1:
        raise Reject("EDOM", "T = %d < 1" % T)
    return V, eos, T


def eval_klsum(variant, params, inputs, ctx):
    """13.10 on a tiny LM, cut sequences kept (the probabilities sum to 1):
      token_log_ratio[t] = log pi(y_t | s_t) - log pi_ref(y_t | s_t) of the given y,
      seq_log_ratio = log(pi(y)/pi_ref(y)), pi(y) the product of its token probabilities,
      token_rewards[t] = r(y) [t = L] - beta token_log_ratio[t]   (13.9, score r(y) at the end),
      kl_tokens = sum_y pi(y) sum_t l_t,   kl = sum_y pi(y) log(pi(y)/pi_ref(y))  (the two sides),
      return_tokens = sum_y pi(y) sum_t r_t,   rlhf = E_pi[r] - beta KL(pi || pi_ref)."""
    if variant not in ("tabular", "bigram"):
        raise ValueError("PPO-KLSUM: unknown variant %r" % variant)
    V, eos, T = tiny_shape(inputs)
    for name in ("logits", "ref_logits", "reward", "y"):
        if not isinstance(inputs.get(name), list):
            raise Reject("EINVAL", "%s is not an array" % name)
    if len(inputs["ref_logits"]) != len(inputs["logits"]):
        raise Reject("EINVAL", "ref_logits and logits differ in length")
    pol = Tiny(variant, V, eos, T, inputs["logits"], "logits")
    ref = Tiny(variant, V, eos, T, inputs["ref_logits"], "ref_logits")
    if len(inputs["reward"]) != V + 2:
        raise Reject("EINVAL", "reward must hold V + 2 numbers")
    rw = [qreal(x, "reward") for x in inputs["reward"]]
    beta = param(inputs, params, "beta")
    if beta <= 0:
        raise Reject("EDOM", "beta = %s must be > 0" % float(beta))
    y = inputs["y"]
    if not 1 <= len(y) <= T:
        raise Reject("EINVAL", "a sequence has 1 to T tokens")
    if any(not is_int(a) or not 0 <= a < V for a in y) or eos in y[:-1] or \
            (len(y) < T and y[-1] != eos):
        raise Reject("EDOM", "y is not a sequence of the model")
    y = tuple(y)

    def reward(seq, cut):
        r = sum(rw[a] for a in seq) + rw[V] * len(seq) + (rw[V + 1] if cut else 0)
        return M(r)

    B = M(beta)
    terms_h, terms_kl, terms_ret, terms_r = [], [], [], []
    for seq, cut in sequences(V, eos, T):
        pp, pq = pol.token_probs(seq), ref.token_probs(seq)
        p = mp.fprod(pp)
        h = mp.fsum(mp.log(a) - mp.log(b) for a, b in zip(pp, pq))
        r = reward(seq, cut)
        terms_h.append(p * h)
        terms_kl.append(p * mp.log(p / mp.fprod(pq)))
        terms_ret.append(p * (r - B * h))
        terms_r.append(p * r)
    pp, pq = pol.token_probs(y), ref.token_probs(y)
    tlr = [mp.log(a) - mp.log(b) for a, b in zip(pp, pq)]
    ry = reward(y, len(y) == T and y[-1] != eos)
    kl = mp.fsum(terms_kl)
    return {"token_log_ratio": tlr,
            "seq_log_ratio": mp.log(mp.fprod(pp) / mp.fprod(pq)),
            "token_rewards": [-B * tlr[t] + (ry if t == len(y) - 1 else 0)
                              for t in range(len(y))],
            "kl_tokens": mp.fsum(terms_h), "kl": kl,
            "return_tokens": mp.fsum(terms_ret), "rlhf": mp.fsum(terms_r) - B * kl}


# ----------------------------------------------------------------------------------------------
# PPO-RATIO (001): rho = exp(logp - old_logp), new minus old
# ----------------------------------------------------------------------------------------------

def eval_ratio(variant, params, inputs, ctx):
    """plain: rho = e^l, l = logp - old_logp (TRL); clamp-20: l clamped to [-20, 20] first
    (verl, OpenRLHF).  grad = d rho / d logp: rho, or 0 where the clamp binds strictly (torch's
    clamp passes the gradient at the bounds)."""
    if variant not in ("plain", "clamp-20"):
        raise ValueError("PPO-RATIO: unknown variant %r" % variant)
    n, (logp, old) = arrays(inputs, ("logp", "old_logp"), "tokens")
    out = {"ratio": [], "log_ratio": [], "grad": []}
    for i in range(n):
        ell = logp[i] - old[i]
        lc = clamp(ell, Fraction(-20), Fraction(20)) if variant == "clamp-20" else ell
        rho = exp_q(lc)
        out["ratio"].append(rho)
        out["log_ratio"].append(M(lc))
        out["grad"].append(rho if lc == ell else mpf(0))
        if variant == "clamp-20" and abs(ell) == 20:
            ctx.ambiguous.append("log-ratio exactly at the clamp bound 20: gradient passed "
                                 "(torch.clamp's inclusive bounds)")
    return out


# ----------------------------------------------------------------------------------------------
# PPO-IS (003): E_old[f] = E_theta[(pi_old/pi_theta) f]; the CPI surrogate E_old[rho f]
# ----------------------------------------------------------------------------------------------

def softmax_mp(z):
    top = max(z)
    e = [mp.exp(x - top) for x in z]
    s = mp.fsum(e)
    return [x / s for x in e]


def eval_is(variant, params, inputs, ctx):
    """pi_old = softmax(logits_old), pi = softmax(logits):
      e_old = sum pi_old f, e_is = sum pi (pi_old/pi) f (003's identity), e_new = sum pi f,
      e_cpi = sum pi_old (pi/pi_old) f (the unclipped surrogate E_old[rho f], the direction PPO
      uses), ratio = pi/pi_old, cpi_grad[k] = d e_cpi / d logits_k = sum_a pi_old(a) f(a)
      d rho(a)/d logits_k, pg_old[k] = E_old[f d log pi_old / d logits_k] (the policy
      gradient at theta_old)."""
    if variant != "seed-003":
        raise ValueError("PPO-IS: unknown variant %r" % variant)
    K, (zo, z, f) = arrays(inputs, ("logits_old", "logits", "f"), "actions")
    po = softmax_mp([M(x) for x in zo])
    p = softmax_mp([M(x) for x in z])
    F = [M(x) for x in f]
    rho = [p[a] / po[a] for a in range(K)]
    e_new = mp.fsum(p[a] * F[a] for a in range(K))
    e_old = mp.fsum(po[a] * F[a] for a in range(K))
    # d rho(a)/d z_k = rho(a) (delta_ak - p_k);  d log pi_old(a)/d z_k = delta_ak - po_k
    cpi_grad = [mp.fsum(po[a] * F[a] * rho[a] * ((1 if a == k else 0) - p[k]) for a in range(K))
                for k in range(K)]
    pg_old = [mp.fsum(po[a] * F[a] * ((1 if a == k else 0) - po[k]) for a in range(K))
              for k in range(K)]
    return {"p_old": po, "p": p, "ratio": rho, "e_old": e_old,
            "e_is": mp.fsum(p[a] * (po[a] / p[a]) * F[a] for a in range(K)),
            "e_new": e_new, "e_cpi": mp.fsum(po[a] * rho[a] * F[a] for a in range(K)),
            "cpi_grad": cpi_grad, "pg_old": pg_old}


# ----------------------------------------------------------------------------------------------
# PPO-CLIP (13.12), PPO-DUALCLIP: the token-mean loss -mean_t s_t over the mask
# ----------------------------------------------------------------------------------------------

# variant -> (log-ratio clamped to [-20, 20], dual clip for A < 0, the clip fraction a binary32
# mean, rho = 1 at a masked token, TRL's delta cap on the unclipped ratio)
CLIP = {
    ("PPO-CLIP", "plain"): (False, False, False, False, False),      # 000 13.12, 003
    # TRL PPOTrainer: INVALID_LOGPROB fills both log-probabilities at padding (rho = 1);
    # masked_mean((pg_losses2 > pg_losses).float()) is a float32 mean
    ("PPO-CLIP", "trl"): (False, False, True, True, False),
    ("PPO-CLIP", "trl-grpo"): (False, False, True, False, False),    # GRPOTrainer dapo/bnpo
    ("PPO-CLIP", "clamped"): (True, False, True, False, False),      # OpenRLHF PolicyLoss
    ("PPO-CLIP", "verl"): (True, True, True, False, False),          # compute_policy_loss_vanilla
    ("PPO-DUALCLIP", "dual-clip"): (True, True, True, False, False),  # verl; OpenRLHF dual_clip
    ("PPO-DUALCLIP", "clamped"): (True, False, True, False, False),  # OpenRLHF, dual_clip None
    ("PPO-DUALCLIP", "none"): (False, False, False, False, False),   # the seeds
    ("PPO-DUALCLIP", "trl"): (False, False, True, True, False),      # TRL PPOTrainer
    # TRL GRPOTrainer delta: coef_1 = torch.clamp(coef_1, max=delta) after coef_2 is formed
    ("PPO-DUALCLIP", "trl-delta"): (False, False, True, False, True),
}


def eval_clip(formula, variant, params, inputs, ctx):
    """Per token, l = logp - old_logp (clamped to [-20, 20] by the clamped conventions),
    rho = e^l, lo = 1 - eps_low, hi = 1 + eps_high:
      s = min(rho A, clip(rho, lo, hi) A), and for A < 0 with a dual clip s = max(s, c A);
    loss = -sum_t mask_t s_t / sum_t mask_t; grad = d loss / d logp_t = -(1/N) ds/dl (0 where the
    clipped term, the dual bound c A or the log-ratio clamp binds strictly); clipfrac = the
    fraction of masked tokens where clip(rho) A < rho A (what the libraries log)."""
    if (formula, variant) not in CLIP:
        raise ValueError("%s: unknown variant %r" % (formula, variant))
    clamped, dual, cf32, masked_one, cap = CLIP[(formula, variant)]
    n, (logp, old, adv) = arrays(inputs, ("logp", "old_logp", "adv"), "tokens")
    mask = mask_of(inputs, n)
    el, eh = param(inputs, params, "eps_low"), param(inputs, params, "eps_high")
    if not 0 <= el < 1 or eh < 0:
        raise Reject("EDOM", "clip range: 0 <= eps_low < 1 and eps_high >= 0")
    c = None
    if dual:
        c = param(inputs, params, "c")
        if not c > 1:
            raise Reject("EDOM", "the dual-clip bound c must be > 1")
    if cap:
        c = param(inputs, params, "c")
        if not c > 0:
            raise Reject("EDOM", "the ratio cap delta must be > 0")
    lo, hi = M(1 - el), M(1 + eh)
    N = sum(mask)
    surr, ratio, grad = [], [], []
    nclip = 0
    for i in range(n):
        ell = Fraction(0) if masked_one and not mask[i] else logp[i] - old[i]
        lc = clamp(ell, Fraction(-20), Fraction(20)) if clamped else ell
        rho = exp_q(lc)
        A = M(adv[i])
        if cap and rho > M(c):
            u, du = M(c) * A, mpf(0)      # min(coef_1, delta): constant where it binds
        else:
            u, du = rho * A, rho * A
        inside = lo <= rho <= hi
        cl = rho * A if inside else clamp(rho, lo, hi) * A
        s = min(u, cl)
        # the unclipped term where it is the smaller (or ties: inside [lo, hi] both slopes are
        # rho A), the clipped one (slope 0 outside the range) otherwise
        deriv = du if u <= cl else (rho * A if inside else mpf(0))
        if dual and adv[i] < 0:
            ca = M(c * adv[i])
            if ca > s:
                s, deriv = ca, mpf(0)
        if lc != ell:
            deriv = mpf(0)
        ratio.append(rho)
        if mask[i]:
            surr.append(s)
            grad.append(-deriv / N)
            nclip += 1 if cl < u else 0
        else:
            surr.append(mpf(0))
            grad.append(mpf(0))
    # the libraries average a float32 0/1 tensor: f32(k/N), in a float64 run too
    cf = mpf(f32(Fraction(nclip, N))) if cf32 else mpf(nclip) / N
    return {"loss": -mp.fsum(surr) / N, "surrogate": surr, "ratio": ratio, "grad": grad,
            "clipfrac": cf}


def eval_clip_ex2(variant, params, inputs, ctx):
    """003: clip(x, a, b) = min(max(x, a), b); clipped = clip(rho, 1 - eps, 1 + eps),
    unclipped = rho A, surrogate = min(rho A, clipped A) (13.12 for one token)."""
    if variant != "seed-003":
        raise ValueError("PPO-CLIP-EX2: unknown variant %r" % variant)
    rho = qreal(inputs.get("rho"), "rho")
    A = qreal(inputs.get("adv"), "adv")
    eps = param(inputs, params, "eps")
    if rho < 0:
        raise Reject("EDOM", "a probability ratio is >= 0")
    if not 0 <= eps < 1:
        raise Reject("EDOM", "0 <= eps < 1")
    cl = clamp(rho, 1 - eps, 1 + eps)
    return {"clipped": M(cl), "unclipped": M(rho * A), "surrogate": M(min(rho * A, cl * A))}


# ----------------------------------------------------------------------------------------------
# PPO-VALUE: the value loss, its targets, and the full objective with the entropy bonus
# ----------------------------------------------------------------------------------------------

# variant -> (factor on the mean: 1/2 or 1, clipped form: None, "clamp" (torch.clamp(V, V_old -
# c, V_old + c): TRL), "maxmin" (verl's clip_by_value = max(min(V, hi), lo)) or "delta" (V_old +
# clamp(V - V_old, -c, c): OpenRLHF), the clip fraction a binary32 mean, TRL's masked fill)
VALUE = {
    "seed-000": (Fraction(1), None, False, False),
    "trl": (Fraction(1, 2), "clamp", True, True),
    "verl": (Fraction(1, 2), "maxmin", True, False),
    "openrlhf": (Fraction(1, 2), "delta", False, False),
    "openrlhf-unclipped": (Fraction(1, 2), None, False, False),
}


def pass_factor(form, x, lo, hi):
    """The factor by which the clipped value passes d/dV on, as autograd forms it: torch.clamp
    1 inside its bounds and at them (0 outside); max(min(x, hi), lo) halves it at each tie (the
    backward of torch.min and torch.max split a tie evenly)."""
    if form != "maxmin":
        return Fraction(1) if lo <= x <= hi else Fraction(0)
    f = Fraction(1) if x < hi else Fraction(1, 2) if x == hi else Fraction(0)
    m = min(x, hi)
    return f * (Fraction(1) if m > lo else Fraction(1, 2) if m == lo else Fraction(0))


def eval_value_loss(variant, params, inputs, ctx):
    """l_t = (V - R)^2, or max((V - R)^2, (Vc - R)^2) with Vc the clipped value; loss = k
    sum_t mask_t l_t / N (k = 1/2 in the libraries, 1 in the seeds' (V - R)^2); grad = d loss /
    d V_t as autograd forms it: 2 (V - R) where the unclipped square is the larger, 2 (Vc - R)
    times the clamp's pass factor where the clipped one is (0: Vc a bound), the mean of the two
    at a tie (torch.max); clipfrac = fraction of masked tokens where the clipped square is the
    larger (binary32 in TRL and verl).  TRL fills vpred and the rollout's values with 0 at
    padding (masked_fill(padding_mask_p1, 0)) and leaves vf_loss_max unzeroed there."""
    half, form, cf32, masked_zero = VALUE[variant]
    n, (V, Vo, R) = arrays(inputs, ("values", "old_values", "returns"), "tokens")
    mask = mask_of(inputs, n)
    c = None
    if form:
        c = param(inputs, params, "clip")
        if c < 0:
            raise Reject("EDOM", "the value clip range must be >= 0")
    N = sum(mask)
    losses, grad = [], []
    nclip, s = 0, Fraction(0)
    for i in range(n):
        v, vo = (Fraction(0), Fraction(0)) if masked_zero and not mask[i] else (V[i], Vo[i])
        d1 = v - R[i]
        l, g = d1 * d1, 2 * d1
        if form:
            if form == "delta":
                vc = vo + clamp(v - vo, -c, c)
                p = pass_factor(form, v - vo, -c, c)
            else:
                vc = clamp(v, vo - c, vo + c)
                p = pass_factor(form, v, vo - c, vo + c)
            d2 = vc - R[i]
            if d2 * d2 > l:
                l, g = d2 * d2, 2 * d2 * p       # p = 0: vc a bound, V outside its range
                nclip += mask[i]
            elif d2 * d2 == l:
                g = (2 * d1 + 2 * d2 * p) / 2    # torch.max halves the gradient at the tie
        if mask[i]:
            s += l
        losses.append(M(l) if mask[i] or masked_zero else mpf(0))
        grad.append(M(half * g / N) if mask[i] else mpf(0))
    cf = mpf(f32(Fraction(nclip, N))) if cf32 else M(Fraction(nclip, N))
    return {"loss": M(half * s / N), "losses": losses, "grad": grad, "clipfrac": cf}


def eval_value_target(variant, params, inputs, ctx):
    """gae-return: target = V_old + A (returns = advantages + values, every library);
    mc-return: target_t = sum_{k >= t} gamma^{k - t} r_k (the seeds' Monte-Carlo return)."""
    if variant == "gae-return":
        n, (Vo, A) = arrays(inputs, ("old_values", "adv"), "tokens")
        return {"target": [M(Vo[i] + A[i]) for i in range(n)]}
    n, (r,) = arrays(inputs, ("rewards",), "tokens")
    g = param(inputs, params, "gamma")
    if g < 0:
        raise Reject("EDOM", "gamma must be >= 0 (usually <= 1; the finite sum is defined "
                     "for any gamma >= 0)")
    out, acc = [], Fraction(0)
    for i in reversed(range(n)):
        acc = r[i] + g * acc
        out.append(M(acc))
    return {"target": out[::-1]}


def eval_objective(variant, params, inputs, ctx):
    """H_t = -sum_a p log p of the softmax of logits row t; entropy_mean = sum_t mask_t H_t / N;
    objective = l_clip - c1 l_vf + c2 entropy_mean (003's L^PPO = L^CLIP - c1 L^VF + c2 H);
    loss = -objective (000's pseudo-code: L_clip + c_v L_v - c_ent entropy)."""
    Vn = inputs.get("V")
    if not is_int(Vn):
        raise Reject("EINVAL", "V must be an integer")
    if Vn < 1:
        raise Reject("EDOM", "V = %d: no token" % Vn)
    z = inputs.get("logits")
    m = inputs.get("mask")
    if not isinstance(z, list) or not isinstance(m, list):
        raise Reject("EINVAL", "logits and mask are arrays")
    T = len(m)
    if T == 0 or len(z) != T * Vn:
        raise Reject("EINVAL", "logits must hold len(mask) rows of V, and the mask a token")
    mask = mask_of(inputs, T)
    zq = [qreal(x, "logits") for x in z]
    l_clip = param(inputs, params, "l_clip")
    l_vf = param(inputs, params, "l_vf")
    c1, c2 = param(inputs, params, "c1"), param(inputs, params, "c2")
    if c1 < 0 or c2 < 0:
        raise Reject("EDOM", "c1 and c2 must be >= 0")
    H = []
    for t in range(T):
        p = softmax_mp([M(x) for x in zq[t * Vn:(t + 1) * Vn]])
        H.append(-mp.fsum(x * mp.log(x) for x in p if x > 0))
    if variant == "objective-trl":
        # TRL logs entropy_stats[...] = entropy.mean(): every position, a float32 stats tensor
        with mp.workprec(mp.prec + 64):
            hm = mp.fsum(H) / T
        sign, man, ex, _ = hm._mpf_
        hm = mpf(f32((-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(ex)))
    else:
        hm = mp.fsum(H[t] for t in range(T) if mask[t]) / sum(mask)
    obj = M(l_clip) - M(c1) * M(l_vf) + M(c2) * hm
    return {"entropy": H, "entropy_mean": hm, "objective": obj, "loss": -obj}


OBJECTIVE = ("objective-seed", "objective-trl", "objective-separate-critic")


# ----------------------------------------------------------------------------------------------
# PPO-WHITEN (000 section 3.2's whiten; CONVENTIONS.md)
# ----------------------------------------------------------------------------------------------

# variant -> (ddof, eps form, mean re-added, masked positions set to 0, the Bessel factor
# N/(N - 1) in binary32)
#   inside: (A - mu)/sqrt(var + eps); outside: (A - mu)/(std + eps)
#   TRL's and verl's masked_var form mask_sum / (mask_sum - 1) of two int64 sums: torch's true
#   division of integer tensors gives the default dtype, float32, in a float64 run too.
#   OpenRLHF ("openrlhf") computes its statistics in binary32 (eval_whiten_f32).
WHITEN = {
    "trl": (1, "inside", False, True, True),
    "verl": (1, "inside", False, False, True),
    "trl-rewards": (1, "inside", True, True, True),
    "eps-outside": (1, "outside", False, False, False),
}


def eval_whiten(variant, params, inputs, ctx):
    """Statistics over the masked values: mean mu, var = sum (x - mu)^2/(n - ddof), std =
    sqrt(var); scale = the divisor of the variant; whitened_t = (A_t - mu)/scale (+ mu when the
    mean is re-added), and 0 at masked positions where the convention fills them."""
    if variant not in WHITEN:
        raise ValueError("PPO-WHITEN: unknown variant %r" % variant)
    ddof, form, readd, zero, bessel32 = WHITEN[variant]
    n, (A,) = arrays(inputs, ("values",), "values")
    mask = mask_of(inputs, n)
    eps = param(inputs, params, "eps")
    if eps < 0:
        raise Reject("EDOM", "eps must be >= 0")
    xs = [A[i] for i in range(n) if mask[i]]
    if len(xs) - ddof <= 0:
        raise Reject("EDOM", "%d masked values: n - ddof <= 0" % len(xs))
    mu = sum(xs) / len(xs)
    if bessel32:
        k = len(xs)
        var = sum((x - mu) ** 2 for x in xs) / k * Fraction(f32(Fraction(k, k - 1)))
    else:
        var = sum((x - mu) ** 2 for x in xs) / (len(xs) - ddof)
    std = mp.sqrt(M(var))
    if form == "inside":
        scale = mp.sqrt(M(var + eps))
    elif form == "clamp":
        scale = mp.sqrt(M(max(var, eps)))
    else:
        scale = std + M(eps)
    if scale == 0:
        raise Reject("EDOM", "zero spread and eps = 0: division by 0")
    out = []
    for i in range(n):
        if zero and not mask[i]:
            out.append(mpf(0))
        else:
            w = M(A[i] - mu) / scale
            out.append(w + M(mu) if readd else w)
    return {"whitened": out, "mean": M(mu), "std": std, "scale": scale}


# ----------------------------------------------------------------------------------------------
# PPO-KLCTL: the adaptive KL coefficient, and target-KL early stopping
# ----------------------------------------------------------------------------------------------

def eval_klctl(variant, params, inputs, ctx):
    """adaptive: err_k = clip(kl_k/target - 1, -0.2, 0.2), coef_k = coef_{k-1} (1 + err_k
    n_steps/horizon) (Ziegler et al., as verl and OpenRLHF compute it); fixed: coef unchanged,
    err 0.  early stop: the mean KL kl_i is measured on update i; seed-003 steps, then stops
    when kl_i > factor target_kl; spinning-up stops before the step when kl_i > factor
    target_kl; trl-0.11 runs an epoch, then tests its last policy KL against 1.5 target_kl
    (TRL <= 0.11 _early_stop); updates = the steps (epochs) taken, stopped = 1 when the loop
    broke."""
    if variant in ("adaptive", "fixed"):
        n, (kl,) = arrays(inputs, ("kl",), "KL values")
        coef = qreal(inputs.get("coef"), "coef")
        steps = inputs.get("n_steps")
        if not is_int(steps):
            raise Reject("EINVAL", "n_steps must be an integer")
        if coef < 0 or steps < 0:
            raise Reject("EDOM", "coef and n_steps must be >= 0")
        errs, coefs = [], []
        if variant == "fixed":
            return {"err": [mpf(0)] * n, "coef_after": [M(coef)] * n}
        target = param(inputs, params, "target")
        horizon = param(inputs, params, "horizon")
        if target <= 0 or horizon <= 0:
            raise Reject("EDOM", "target and horizon must be > 0")
        bound = Fraction(0.2)        # np.clip(x, -0.2, 0.2): the binary64 0.2, not 1/5
        for k in kl:
            e = clamp(k / target - 1, -bound, bound)
            coef = coef * (1 + e * steps / horizon)
            errs.append(M(e))
            coefs.append(M(coef))
        return {"err": errs, "coef_after": coefs}
    if variant not in ("seed-003", "spinning-up", "trl-0.11"):
        raise ValueError("PPO-KLCTL: unknown variant %r" % variant)
    n, (kl,) = arrays(inputs, ("kl",), "KL values")
    t = param(inputs, params, "target_kl")
    f = param(inputs, params, "factor")
    if t <= 0 or f <= 0:
        raise Reject("EDOM", "target_kl and factor must be > 0")
    updates, stopped = 0, 0
    for k in kl:
        if variant in ("seed-003", "trl-0.11"):    # step (an epoch, old TRL), then test
            updates += 1
            if k > f * t:
                stopped = 1
                break
        else:
            if k > f * t:
                stopped = 1
                break
            updates += 1
    return {"updates": mpf(updates), "stopped": mpf(stopped)}


# ----------------------------------------------------------------------------------------------
# The registry of this family
# ----------------------------------------------------------------------------------------------


# ----------------------------------------------------------------------------------------------
# The float32 readings of PPO-RATIO, PPO-CLIP, PPO-DUALCLIP, PPO-VALUE and PPO-WHITEN: each
# operation of the library's code, in its order, on binary32 operands, rounded once to binary32
# (xcore.f32, f32_op); e^x and sqrt correctly rounded; a reduction over tokens left to right,
# each addition rounded.  Read from: TRL trl/experimental/ppo/ppo_trainer.py (ratio =
# exp(new - old), the clipped losses -A rho and -A clamp(rho, 1 - eps, 1 + eps), torch.max,
# masked_mean = (x * mask).sum() / mask.sum(), masked_whiten, the value loss with
# torch.clamp(vpred, values - c, values + c)); verl core_algos.compute_policy_loss_vanilla (the
# log-ratio clamped to [-20, 20], the dual clip -A * clip_ratio_c, agg_loss "token-mean":
# masked_sum / mask.sum()), compute_value_loss (clip_by_value = max(min(v, hi), lo)) and
# verl/utils/torch_functional.py (masked_sum = where(mask, x, 0) * mask summed; masked_mean
# divides by mask.sum() + 1e-8, which is mask.sum() in binary32; masked_var's Bessel factor
# mask_sum / (mask_sum - 1) of an integer sum, a binary32 quotient; masked_whiten: (x - mean) *
# rsqrt(var + 1e-8)); OpenRLHF models/loss.py PolicyLoss (surr1 = ratio * A, surr2 =
# ratio.clamp(1 - eps_low, 1 + eps_high) * A, -min, masked_mean without eps), ValueLoss
# (old_values + (values - old_values).clamp(-c, c)) and trainer/ppo_utils/experience_maker.py
# (mean = (A * mask).sum() / n, var = ((A - mean)^2 * mask).sum() / n, rstd =
# var.clamp(min=1e-8).rsqrt()).  torch.clamp and a product with a Python scalar take the scalar
# as a binary32 (1 - eps formed in binary64 first, as Python does); torch.rsqrt is 1/sqrt
# rounded twice (its CPU kernel).  The gradients follow autograd: pow's 2 x, the mean's 1/N,
# exp's result; torch.max, torch.min share the gradient at a tie.  Where a value is inf or NaN
# in the library (e^l beyond 88.72 unclamped, a square beyond 3.4e38, inf * 0 at a masked
# position), the input is refused with ERANGE.
# ----------------------------------------------------------------------------------------------

F32_LIBS = ("trl-float32", "verl-float32", "openrlhf-float32")
RATIO_F32 = ("trl-float32", "clamp-20-float32")    # verl's and OpenRLHF's are one reading


def f32_in(x, name):
    """An input as the library holds it, in binary32; beyond its range ERANGE."""
    v = f32(x)
    if math.isinf(v):
        raise Reject("ERANGE", "%s beyond the binary32 range" % name)
    return v


def f32_fin(v, what):
    if math.isinf(v) or math.isnan(v):
        raise Reject("ERANGE", "%s is not finite in binary32 (the library's is %r)" % (what, v))
    return v


def exp32(x):
    """e^x correctly rounded to binary32, x a binary32 value."""
    if x > 89.0:
        return math.inf
    if x < -104.0:
        return 0.0
    with mp.workprec(256):
        v = mp.exp(mpf(x))
        man, exp = int(v.man), int(v.exp)
        return f32(Fraction(man) * Fraction(2) ** exp)


def sum32(xs):
    """torch.sum of a binary32 row, as torch 1.13's CPU kernel orders it (observed on torch
    itself): up to 7 terms go to four accumulators a_j += x_{4k+j} over the full groups of
    four, the remaining terms into a_0, and the result is ((a_0 + a_1) + a_2) + a_3, every
    addition rounded to binary32; a longer row is read left to right here (torch vectorises
    it; the goldens' rows are shorter)."""
    xs = list(xs)
    n = len(xs)
    if n > 7:
        s = 0.0
        for x in xs:
            s = f32_op("+", s, x)
        return s
    a = [0.0] * 4
    m = n - n % 4
    for i in range(0, m, 4):
        for j in range(4):
            a[j] = f32_op("+", a[j], xs[i + j])
    for i in range(m, n):
        a[0] = f32_op("+", a[0], xs[i])
    return f32_op("+", f32_op("+", f32_op("+", a[0], a[1]), a[2]), a[3])


def rsqrt32(x):
    """torch.rsqrt on binary32: 1/sqrt(x), each rounded."""
    return f32_op("/", 1.0, f32_op("sqrt", x))


def plus0(x):
    return 0.0 if x == 0 else x


def eval_ratio_f32(variant, params, inputs, ctx):
    """l = f32(f32(logp) - f32(old_logp)), clamped to [-20, 20] by verl and OpenRLHF (not TRL);
    rho = e^l rounded; grad = autograd's d rho / d logp = rho (0 where the clamp binds
    strictly)."""
    n, (logp, old) = arrays(inputs, ("logp", "old_logp"), "tokens")
    clamped = variant != "trl-float32"
    out = {"ratio": [], "log_ratio": [], "grad": []}
    for i in range(n):
        lp = f32_in(logp[i], "logp[%d]" % i)
        ol = f32_in(old[i], "old_logp[%d]" % i)
        ell = f32_fin(f32_op("-", lp, ol), "logp - old_logp")
        lc = clamp(ell, -20.0, 20.0) if clamped else ell
        rho = f32_fin(exp32(lc), "the ratio e^l")
        out["ratio"].append(mpf(rho))
        out["log_ratio"].append(mpf(plus0(lc)))
        out["grad"].append(mpf(rho) if lc == ell else mpf(0))
    return out


# (formula, variant) -> (log-ratio clamp, dual clip)
CLIP_F32 = {
    ("PPO-CLIP", "trl-float32"): (False, False),
    ("PPO-CLIP", "verl-float32"): (True, True),
    ("PPO-CLIP", "openrlhf-float32"): (True, False),
    ("PPO-DUALCLIP", "trl-float32"): (False, False),
    ("PPO-DUALCLIP", "verl-float32"): (True, True),
    ("PPO-DUALCLIP", "openrlhf-float32"): (True, True),
}


def eval_clip_f32(formula, variant, params, inputs, ctx):
    """Per token, with a = f32(adv), l = f32(f32(logp) - f32(old_logp)) (clamped to [-20, 20]
    by verl and OpenRLHF), rho = e^l rounded, lo = f32(1 - eps_low), hi = f32(1 + eps_high):
    u = f32(a rho), v = f32(a clamp(rho, lo, hi)), s = min(u, v) (TRL and verl write -max of
    -u, -v: the same binary32 values); the dual clip s = max(s, f32(a f32(c))) for a < 0.
    The loss sum_t f32(-s_t mask_t) left to right, divided by N (verl's N + 1e-8 is N in
    binary32).  grad = f32(f32(f32(1/N) (-a)) rho) (autograd: the mean's 1/N, the product's
    -a, exp's result); 0 where the clip, the dual bound or the clamp binds strictly; half at a
    tie of the dual bound (torch's max and min share the gradient at a tie).  clipfrac =
    f32(k/N).  A masked token's loss enters TRL's and OpenRLHF's sum as loss * 0 (NaN for an
    infinite loss), verl's masked_sum drops it; TRL's rho is 1 at a masked token (both
    log-probabilities INVALID_LOGPROB)."""
    clamped, dual = CLIP_F32[(formula, variant)]
    n, (logp, old, adv) = arrays(inputs, ("logp", "old_logp", "adv"), "tokens")
    mask = mask_of(inputs, n)
    el, eh = param(inputs, params, "eps_low"), param(inputs, params, "eps_high")
    if not 0 <= el < 1 or eh < 0:
        raise Reject("EDOM", "clip range: 0 <= eps_low < 1 and eps_high >= 0")
    c32 = None
    if dual:
        c = param(inputs, params, "c")
        if not c > 1:
            raise Reject("EDOM", "the dual-clip bound c must be > 1")
        c32 = f32(float(c))
    lo, hi = f32(float(1 - el)), f32(float(1 + eh))
    N = sum(mask)
    g = f32_op("/", 1.0, float(N))
    terms, surr, ratio, grad = [], [], [], []
    nclip = 0
    masked_one = variant == "trl-float32"      # TRL's INVALID_LOGPROB at padding: rho = 1
    for i in range(n):
        a = f32_in(adv[i], "adv[%d]" % i)
        if masked_one and not mask[i]:
            ell = lc = 0.0
        else:
            lp = f32_in(logp[i], "logp[%d]" % i)
            ol = f32_in(old[i], "old_logp[%d]" % i)
            ell = f32_fin(f32_op("-", lp, ol), "logp - old_logp")
            lc = clamp(ell, -20.0, 20.0) if clamped else ell
        rho = f32_fin(exp32(lc), "the ratio e^l")
        u = f32_op("*", a, rho)
        v = f32_op("*", a, clamp(rho, lo, hi))
        s = min(u, v)
        share = 1.0 if u <= v else 0.0
        if dual and a < 0:
            ca = f32_op("*", a, c32)
            if ca > s:
                s, share = ca, 0.0
            elif ca == s:
                share *= 0.5
        if lc != ell:
            share = 0.0
        ratio.append(mpf(rho))
        if mask[i]:
            if math.isinf(s):
                raise Reject("ERANGE", "A rho overflows binary32: the library's loss is inf")
            terms.append(-s)
            surr.append(mpf(plus0(s)))
            d = f32_op("*", f32_op("*", g, -a), rho) * share
            grad.append(mpf(plus0(d)))
            nclip += 1 if v < u else 0
        else:
            if math.isinf(s) and variant != "verl-float32":
                raise Reject("ERANGE", "A rho overflows binary32 at a masked token: loss * 0 "
                             "is NaN in the library")
            terms.append(0.0)
            surr.append(mpf(0))
            grad.append(mpf(0))
    total = f32_fin(sum32(terms), "the sum of the token losses")
    loss = f32_op("/", total, float(N))
    return {"loss": mpf(plus0(loss)), "surrogate": surr, "ratio": ratio, "grad": grad,
            "clipfrac": mpf(f32_op("/", float(nclip), float(N)))}


WHITEN_F32 = F32_LIBS + ("trl-rewards-float32", "openrlhf")


def eval_whiten_f32(variant, params, inputs, ctx):
    """x = f32(values).  TRL and verl (masked_whiten): mean = f32(S1/N), S1 = sum f32(x m);
    c = f32(x - mean); var = f32(f32(sum f32(f32(c c) m) / N) f32(N/(N - 1))); scale =
    f32(sqrt(f32(var + f32(eps)))); whitened = f32(c f32(1/scale)), TRL then 0 at masked
    positions; one masked value is refused (TRL's N/(N - 1) is inf and 0 inf NaN; verl raises);
    trl-rewards-float32 (shift_mean=False) then f32(w + mean), 0 at masked positions.
    OpenRLHF: the same mean and sum of squares, var = f32(S2/N) (no Bessel factor), scale =
    f32(sqrt(max(var, f32(eps)))); "openrlhf" is its float64 run, the statistics of
    all_advantages.float() in binary32 and (A - mean) rstd on the float64 advantages.  std =
    f32(sqrt(var)) (reported; the libraries form only var).  verl's masked_sum drops a masked
    square; TRL and OpenRLHF multiply it by 0, NaN when it is infinite."""
    n, (A,) = arrays(inputs, ("values",), "values")
    mask = mask_of(inputs, n)
    eps = param(inputs, params, "eps")
    if eps < 0:
        raise Reject("EDOM", "eps must be >= 0")
    N = sum(mask)
    trl = variant in ("trl-float32", "trl-rewards-float32")
    readd = variant == "trl-rewards-float32"
    orl = variant in ("openrlhf-float32", "openrlhf")
    if not orl and N < 2:
        raise Reject("EDOM", "one masked value: N/(N - 1) divides by 0")
    x = [f32_in(A[i], "values[%d]" % i) for i in range(n)]
    s1 = f32_fin(sum32(f32_op("*", x[i], float(mask[i])) for i in range(n)), "the sum")
    mean = f32_op("/", s1, float(N))
    c = [f32_op("-", xi, mean) for xi in x]
    sq = []
    for i in range(n):
        q = f32_op("*", c[i], c[i])
        if math.isinf(q) and (mask[i] or variant != "verl-float32"):
            raise Reject("ERANGE", "a square (x - mean)^2 overflows binary32: the library's "
                         "variance is inf (NaN at a masked position), its whitened values 0")
        sq.append(f32_op("*", q, float(mask[i])) if (mask[i] or variant != "verl-float32")
                  else 0.0)
    s2 = f32_fin(sum32(sq), "the sum of squares")
    var = f32_op("/", s2, float(N))
    e32 = f32(float(eps))
    if orl:
        scale = f32_op("sqrt", max(var, e32))
    else:
        var = f32_fin(f32_op("*", var, f32_op("/", float(N), float(N - 1))), "the variance")
        scale = f32_op("sqrt", f32_op("+", var, e32))
    if scale == 0:
        raise Reject("EDOM", "zero spread and eps = 0: rsqrt(0) is inf, 0 inf NaN")
    r = f32_fin(f32_op("/", 1.0, scale), "1/scale")
    out = []
    for i in range(n):
        if trl and not mask[i]:
            out.append(mpf(0))
        elif variant == "openrlhf":
            # a float64 run: exp.advantages = (exp.advantages - mean) * rstd, the float64
            # advantages against the float32 statistics (a float64 result)
            out.append(M((A[i] - Fraction(mean)) * Fraction(r)))
        else:
            w = f32_op("*", c[i], r)
            if readd:
                w = f32_op("+", w, mean)
            out.append(mpf(plus0(f32_fin(w, "a whitened value"))))
    return {"whitened": out, "mean": mpf(plus0(mean)), "std": mpf(f32_op("sqrt", var)),
            "scale": mpf(scale)}


# variant -> the clipped value: "clamp" (clamp(v, f32(o - c), f32(o + c)): TRL torch.clamp,
# verl clip_by_value = max(min(v, hi), lo)) or "delta" (f32(o + clamp(f32(v - o), -c, c)):
# OpenRLHF)
VALUE_F32 = {"trl-float32": "clamp", "verl-float32": "clamp", "openrlhf-float32": "delta"}


def eval_value_f32(variant, params, inputs, ctx):
    """In binary32, v, o, r = f32(values, old_values, returns), c = f32(clip): vc the clipped
    value of the variant; q1 = f32(d1 d1), d1 = f32(v - r); q2 = f32(d2 d2), d2 = f32(vc - r);
    q = max(q1, q2); loss = f32(0.5 f32(S/N)), S the left-to-right binary32 sum of q mask.
    grad as autograd forms it: g = f32(0.5/N) to the larger square (f32(g 2 d)), half of it to
    each at a tie (f32(p1 + p2)); through the clipped value only where its clamp passes the
    gradient (torch.clamp at its bounds; verl's min and max halve it at a tie).  clipfrac =
    f32(k/N), k the masked tokens with q2 > q1.  An infinite square refused (ERANGE), at a
    masked token too for TRL and OpenRLHF (inf * 0), not for verl's masked_sum."""
    form = VALUE_F32[variant]
    n, (V, Vo, R) = arrays(inputs, ("values", "old_values", "returns"), "tokens")
    mask = mask_of(inputs, n)
    c = param(inputs, params, "clip")
    if c < 0:
        raise Reject("EDOM", "the value clip range must be >= 0")
    N = sum(mask)
    c32 = f32(float(c))
    g = f32_op("/", 0.5, float(N))
    verl = variant == "verl-float32"
    terms, losses, grad = [], [], []
    k = 0
    masked_zero = variant == "trl-float32"    # vpred, values masked_fill(padding_mask_p1, 0)
    for i in range(n):
        if masked_zero and not mask[i]:
            v = o = 0.0
        else:
            v = f32_in(V[i], "values[%d]" % i)
            o = f32_in(Vo[i], "old_values[%d]" % i)
        r = f32_in(R[i], "returns[%d]" % i)
        if form == "clamp":
            lo, hi = f32_op("-", o, c32), f32_op("+", o, c32)
            vc = clamp(v, lo, hi)
            if verl:
                fmin = 1.0 if v < hi else 0.5 if v == hi else 0.0
                m = min(v, hi)
                passes = fmin * (1.0 if m > lo else 0.5 if m == lo else 0.0)
            else:
                passes = 1.0 if lo <= v <= hi else 0.0
        else:
            dv = f32_op("-", v, o)
            vc = f32_op("+", o, clamp(dv, -c32, c32))
            passes = 1.0 if -c32 <= dv <= c32 else 0.0
        d1 = f32_op("-", v, r)
        d2 = f32_op("-", vc, r)
        q1, q2 = f32_op("*", d1, d1), f32_op("*", d2, d2)
        q = max(q1, q2)
        if math.isinf(q) and (mask[i] or not verl):
            raise Reject("ERANGE", "a squared error overflows binary32 (inf, or inf * 0 = NaN "
                         "where masked)")
        if mask[i]:
            if q1 > q2:
                d = f32_op("*", g, 2 * d1)
            elif q2 > q1:
                d = f32_op("*", g, 2 * d2) * passes
            else:
                h = g * 0.5
                d = f32_op("+", f32_op("*", h, 2 * d1), f32_op("*", h, 2 * d2) * passes)
            k += 1 if q2 > q1 else 0
            terms.append(q)
            losses.append(mpf(q))
            grad.append(mpf(plus0(d)))
        else:
            terms.append(0.0)
            losses.append(mpf(q) if masked_zero else mpf(0))   # TRL's vf_loss_max, unzeroed
            grad.append(mpf(0))
    S = f32_fin(sum32(terms), "the sum of the squared errors")
    loss = f32_op("*", 0.5, f32_op("/", S, float(N)))
    return {"loss": mpf(loss), "losses": losses, "grad": grad,
            "clipfrac": mpf(f32_op("/", float(k), float(N)))}

def clip_dispatch(formula, variant, params, inputs, ctx):
    if (formula, variant) in CLIP_F32:
        return eval_clip_f32(formula, variant, params, inputs, ctx)
    return eval_clip(formula, variant, params, inputs, ctx)


def value_dispatch(variant, params, inputs, ctx):
    if variant in VALUE_F32:
        return eval_value_f32(variant, params, inputs, ctx)
    if variant in VALUE:
        return eval_value_loss(variant, params, inputs, ctx)
    if variant in ("gae-return", "mc-return"):
        return eval_value_target(variant, params, inputs, ctx)
    if variant in OBJECTIVE:
        return eval_objective(variant, params, inputs, ctx)
    raise ValueError("PPO-VALUE: unknown variant %r" % variant)


EVALUATORS = {
    "PPO-TOKREW": eval_tokrew,
    "PPO-TOKREW-EX": eval_tokrew_ex,
    "PPO-KLSUM": eval_klsum,
    "PPO-RATIO": lambda v, p, i, c: (eval_ratio_f32 if v in RATIO_F32
                                     else eval_ratio)(v, p, i, c),
    "PPO-IS": eval_is,
    "PPO-CLIP": lambda v, p, i, c: clip_dispatch("PPO-CLIP", v, p, i, c),
    "PPO-CLIP-EX2": eval_clip_ex2,
    "PPO-DUALCLIP": lambda v, p, i, c: clip_dispatch("PPO-DUALCLIP", v, p, i, c),
    "PPO-VALUE": value_dispatch,
    "PPO-WHITEN": lambda v, p, i, c: (eval_whiten_f32 if v in WHITEN_F32
                                      else eval_whiten)(v, p, i, c),
    "PPO-KLCTL": eval_klctl,
}

# The parameters of every variant, as the libraries (or the seeds) set them by default.
PARAMS = {
    "PPO-TOKREW": {v: {"beta": TOKREW[v][2]} for v in TOKREW},
    "PPO-CLIP": {"plain": {"eps_low": 0.2, "eps_high": 0.2},
                 "trl": {"eps_low": 0.2, "eps_high": 0.2},
                 "trl-grpo": {"eps_low": 0.2, "eps_high": 0.2},
                 "clamped": {"eps_low": 0.2, "eps_high": 0.2},
                 "verl": {"eps_low": 0.2, "eps_high": 0.2, "c": 3.0},
                 "trl-float32": {"eps_low": 0.2, "eps_high": 0.2},
                 "verl-float32": {"eps_low": 0.2, "eps_high": 0.2, "c": 3.0},
                 "openrlhf-float32": {"eps_low": 0.2, "eps_high": 0.2}},
    "PPO-DUALCLIP": {"dual-clip": {"eps_low": 0.2, "eps_high": 0.2, "c": 3.0},
                     "clamped": {"eps_low": 0.2, "eps_high": 0.2},
                     "none": {"eps_low": 0.2, "eps_high": 0.2},
                     "trl": {"eps_low": 0.2, "eps_high": 0.2},
                     "trl-delta": {"eps_low": 0.2, "eps_high": 0.2, "c": 3.0},
                     "trl-float32": {"eps_low": 0.2, "eps_high": 0.2},
                     "verl-float32": {"eps_low": 0.2, "eps_high": 0.2, "c": 3.0},
                     "openrlhf-float32": {"eps_low": 0.2, "eps_high": 0.2, "c": 3.0}},
    "PPO-CLIP-EX2": {"seed-003": {"eps": 0.2}},
    "PPO-RATIO": {"plain": {}, "clamp-20": {}, "trl-float32": {}, "clamp-20-float32": {}},
    "PPO-VALUE": {"seed-000": {}, "trl": {"clip": 0.2}, "verl": {"clip": 0.5},
                  "openrlhf": {"clip": 0.5}, "openrlhf-unclipped": {},
                  "gae-return": {}, "mc-return": {"gamma": 1.0},
                  "objective-seed": {"c1": 0.5, "c2": 0.01},
                  "objective-trl": {"c1": 0.1, "c2": 0.0},
                  "objective-separate-critic": {"c1": 0.0, "c2": 0.01},
                  "trl-float32": {"clip": 0.2}, "verl-float32": {"clip": 0.5},
                  "openrlhf-float32": {"clip": 0.5}},
    "PPO-WHITEN": {v: {"eps": 1e-8} for v in tuple(WHITEN) + WHITEN_F32},
    "PPO-KLCTL": {"adaptive": {"target": 0.1, "horizon": 10000.0}, "fixed": {},
                  "seed-003": {"target_kl": 0.01, "factor": 1.0},
                  "spinning-up": {"target_kl": 0.01, "factor": 1.5},
                  "trl-0.11": {"target_kl": 1.0, "factor": 1.5}},
}


def params_check(formula):
    def check(variant, params):
        want = PARAMS.get(formula, {}).get(variant)
        if want is None:
            return None
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

# The float32 readings: binary32 results, flat between binary32 neighbours (no derivative).
SENS_SKIP = {(f, v) for f in ("PPO-RATIO", "PPO-CLIP", "PPO-DUALCLIP", "PPO-VALUE", "PPO-WHITEN")
             for v in F32_LIBS} | {("PPO-WHITEN", "trl-rewards-float32"),
                                   ("PPO-WHITEN", "openrlhf"), ("PPO-RATIO", "clamp-20-float32"),
                                   ("PPO-TOKREW", "openrlhf-k1"), ("PPO-TOKREW", "openrlhf-k2"),
                                   ("PPO-TOKREW", "openrlhf-k3")}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py)
# ----------------------------------------------------------------------------------------------

EX = {"p": 0.9, "p_ref": 0.4}
LOG15 = math.log(1.5)           # a double near log 1.5: rho within 1e-16 of 1.5
LOG5 = math.log(5.0)


def ppo_detectors(run):
    label = "FORMULAS PPO-TOKREW-EX (000 section 3)"
    run.printed("PPO-TOKREW-EX", "seed-000", EX, "log_ratio", None, "0.810930", label)
    run.printed("PPO-TOKREW-EX", "seed-000", EX, "k2", None, "0.328804", label)
    run.printed("PPO-TOKREW-EX", "seed-000", EX, "k3", None, "0.255375", label)
    label = "FORMULAS PPO-CLIP worked example (003): A = 0.5, eps = 0.2, rho = 1.5"
    one = {"logp": [LOG15], "old_logp": [0.0], "adv": [0.5], "mask": [1]}
    run.printed("PPO-CLIP", "plain", one, "surrogate", 0, "0.6", label)
    run.not_printed("PPO-CLIP", "plain", one, "surrogate", 0, "0.75", label)
    run.printed("PPO-CLIP-EX2", "seed-003", {"rho": 1.5, "adv": 0.5}, "surrogate", None,
                "0.6", label)
    run.printed("PPO-CLIP-EX2", "seed-003", {"rho": 1.5, "adv": 0.5}, "unclipped", None,
                "0.75", label)
    label = "FORMULAS PPO-CLIP-EX2 (003): clip(2, 0.8, 1.2)"
    run.printed("PPO-CLIP-EX2", "seed-003", {"rho": 2.0, "adv": 1.0}, "clipped", None, "1.2",
                label)
    label = "CONVENTIONS dual clip: eps 0.2, A = -1, rho = 5"
    det = {"logp": [LOG5], "old_logp": [0.0], "adv": [-1.0], "mask": [1]}
    run.printed("PPO-DUALCLIP", "none", det, "loss", None, "5", label)
    run.printed("PPO-DUALCLIP", "dual-clip", det, "loss", None, "3", label)
    label = "CONVENTIONS whitening [1, 2, 3]"
    w = {"values": [1.0, 2.0, 3.0], "mask": [1, 1, 1]}
    for v in ("trl", "verl"):
        run.printed("PPO-WHITEN", v, w, "whitened", 0, "-0.999999995", label)
        run.printed("PPO-WHITEN", v, w, "whitened", 2, "0.999999995", label)
    # OpenRLHF's statistics are binary32 in a float64 run too: rstd = f32(1/f32(sqrt(f32(2/3))))
    # = 1.2247447967529297, not the printed 1.2247449 (sqrt(3/2), exact arithmetic)
    run.exact("PPO-WHITEN", "openrlhf", w, "whitened", 2,
              lambda: mpf(f32_op("/", 1.0, f32_op("sqrt", f32(Fraction(2, 3))))),
              label + " (OpenRLHF: binary32 statistics)")
    run.not_printed("PPO-WHITEN", "openrlhf", w, "whitened", 2, "1.2247449", label)
    label = "CONVENTIONS KL estimators, l = 2, -2, -29, -100"
    kl = {"logp": [2.0, -2.0, -29.0, -100.0], "ref": [0.0, 0.0, 0.0, 0.0], "mask": [1, 1, 1, 1]}
    for i, printed in enumerate(("1.1353353", "4.3890561")):
        run.printed("PPO-TOKREW", "trl-k3", kl, "kl", i, printed, label + " (k3 plain)")
    # printed 3.93e12 and inf (float32): e^29 - 30 and e^100 - 101 in binary64 and beyond
    run.exact("PPO-TOKREW", "trl-k3", kl, "kl", 2, lambda: mp.exp(29) - 30,
              label + " (k3 plain, 3.93e12)")
    run.exact("PPO-TOKREW", "trl-k3", kl, "kl", 3, lambda: mp.exp(100) - 101,
              label + " (k3 plain: 2.69e43, inf in float32)")
    run.printed("PPO-TOKREW", "verl-low-var-kl", kl, "kl", 3, "10", label + " (k3 clamped)")
    run.printed("PPO-TOKREW", "openrlhf-k3", kl, "kl", 3, "10", label + " (k3 clamped)")
    for i, printed in enumerate(("2", "-2", "-29")):
        run.printed("PPO-TOKREW", "verl-k1", kl, "kl", i, printed, label + " (k1)")
    run.printed("PPO-TOKREW", "openrlhf-k1", kl, "kl", 2, "-10", label + " (OpenRLHF clamps k1)")
    label = "CONVENTIONS whitening [1, 2, 3] in binary32"
    for v in ("trl-float32", "verl-float32"):
        for i, sign in ((0, -1), (2, 1)):
            run.exact("PPO-WHITEN", v, w, "whitened", i, lambda sign=sign: mpf(sign),
                      label + " (1/sqrt(1 + 1e-8) is 1 in binary32)")
            run.not_printed("PPO-WHITEN", v, w, "whitened", i, "%s0.999999995" % "-+"[i // 2],
                            label)
    # OpenRLHF: var = f32(2/3), whitened = f32(1/f32(sqrt(var))) = 1.22474479..., not the
    # printed 1.2247449 (binary64 and exact arithmetic)
    run.exact("PPO-WHITEN", "openrlhf-float32", w, "whitened", 2,
              lambda: mpf(f32_op("/", 1.0, f32_op("sqrt", f32(Fraction(2, 3))))),
              label + " (OpenRLHF: 1.2247448, the printed 1.2247449 is binary64's)")
    run.not_printed("PPO-WHITEN", "openrlhf-float32", w, "whitened", 2, "1.2247449", label)
    label = "CONVENTIONS dual clip in binary32: eps 0.2, A = -1, rho = 5"
    run.printed("PPO-DUALCLIP", "trl-float32", det, "loss", None, "5", label)
    for v in ("verl-float32", "openrlhf-float32"):
        run.printed("PPO-DUALCLIP", v, det, "loss", None, "3", label)
    label = "binary32: e^89 overflows without the clamp"
    run.invalid("PPO-RATIO", "trl-float32", {"logp": [89.0, -0.5], "old_logp": [0.0, -0.5]},
                label)
    label = "binary32: 1e8 + 1 - 1e8 = 0"
    ab = {"logp": [-1.0] * 3, "old_logp": [-1.0] * 3, "adv": [1e8, 1.0, -1e8], "mask": [1, 1, 1]}
    for v in F32_LIBS:
        run.exact("PPO-CLIP", v, ab, "loss", None, lambda: mpf(0), label)


def ppo_exact_values(run):
    """Closed forms the goldens' comments name."""
    run.exact("PPO-TOKREW-EX", "seed-000", EX, "log_ratio", None,
              lambda: mp.log(mpf(0.9) / mpf(0.4)), "log(0.9/0.4) of the binary64 inputs")
    run.exact("PPO-WHITEN", "trl", {"values": [1.0, 2.0, 3.0], "mask": [1, 1, 1]}, "whitened", 2,
              lambda: 1 / mp.sqrt(1 + mpf(1e-8)), "[1, 2, 3]: 1/sqrt(1 + 1e-8)")
    run.exact("PPO-WHITEN", "verl", {"values": [1.0, 2.0, 3.0, 4.0], "mask": [1, 1, 1, 1]},
              "whitened", 3, lambda: mpf(1.5) / mp.sqrt(mpf(1.25) * mpf(f32(Fraction(4, 3)))
                                                        + mpf(1e-8)),
              "[1, 2, 3, 4]: 1.5/sqrt(1.25 f32(4/3) + 1e-8), the float32 Bessel factor")
    run.exact("PPO-CLIP-EX2", "seed-003", {"rho": 2.0, "adv": 1.0}, "clipped", None,
              lambda: 1 + mpf(0.2), "clip(2, 0.8, 1.2) = 1 + eps (eps the binary64 0.2)")


DETECTORS = [ppo_detectors, ppo_exact_values]


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400
# ----------------------------------------------------------------------------------------------


def selftest_clip(t):
    """The clip losses' gradients against central differences, away from every kink; the
    worked examples; the dual clip detector."""
    batch = {"logp": [-1.0, -0.3, -2.0, -0.9, 0.5, -25.0],
             "old_logp": [-1.2, -0.6, -1.5, -0.95, 0.4, -1.0],
             "adv": [0.7, 1.5, -0.8, -2.0, -1.0, 0.3], "mask": [1, 1, 1, 0, 1, 1]}
    for (F, v), _ in CLIP.items():
        p = PARAMS[F][v]
        fn = EVALUATORS[F]
        got = fn(v, p, batch, Ctx())
        for i in range(6):
            t.near("%s %s grad[%d]" % (F, v, i), got["grad"][i],
                   central(fn, v, p, batch, "logp", i, "loss"), mpf(10) ** -40)
    ex = eval_clip("PPO-CLIP", "plain", PARAMS["PPO-CLIP"]["plain"],
                   {"logp": [LOG15], "old_logp": [0.0], "adv": [0.5], "mask": [1]}, Ctx())
    t.near("003 example: 0.6", ex["surrogate"][0], mpf(0.5) * (1 + mpf(0.2)))
    det = {"logp": [LOG5], "old_logp": [0.0], "adv": [-1.0], "mask": [1]}
    t.near("dual clip detector: 3", eval_clip("PPO-DUALCLIP", "dual-clip",
                                              PARAMS["PPO-DUALCLIP"]["dual-clip"], det,
                                              Ctx())["loss"], 3 * mpf(1))
    t.near("no dual clip: e^{log 5}", eval_clip("PPO-DUALCLIP", "none",
                                                PARAMS["PPO-DUALCLIP"]["none"], det,
                                                Ctx())["loss"], mp.exp(mpf(LOG5)))
    t.near("TRL delta = 3: loss 3 at rho = 5", eval_clip("PPO-DUALCLIP", "trl-delta",
                                                          PARAMS["PPO-DUALCLIP"]["trl-delta"],
                                                          det, Ctx())["loss"], 3 * mpf(1))
    big = {"logp": [21.0], "old_logp": [0.0], "adv": [-1.0], "mask": [1], "c": 1e9}
    dv = eval_clip("PPO-DUALCLIP", "dual-clip", {"eps_low": 0.2, "eps_high": 0.2}, big, Ctx())
    td = eval_clip("PPO-DUALCLIP", "trl-delta", {"eps_low": 0.2, "eps_high": 0.2}, big, Ctx())
    t.true("log-ratio 21, c = 1e9: verl e^20, TRL 1e9",
           abs(dv["loss"] - mp.exp(20)) < mpf(1e-6) and td["loss"] == mpf(1e9))
    three = {"logp": [0.3, -0.5, 0.0], "old_logp": [0.0, 0.0, 0.0], "adv": [1.0, -1.0, 1.0],
             "mask": [1, 1, 1]}
    t.true("the libraries' clip fraction 2/3 is f32(2/3) = 0.6666666865348816",
           eval_clip("PPO-CLIP", "verl", PARAMS["PPO-CLIP"]["verl"], three,
                     Ctx())["clipfrac"] == mpf(0.6666666865348816)
           and eval_clip("PPO-CLIP", "plain", PARAMS["PPO-CLIP"]["plain"], three,
                         Ctx())["clipfrac"] == mpf(2) / 3)
    for what, ins, code in (("mask 2", dict(batch, mask=[1, 2, 1, 0, 1, 1]), "EDOM"),
                            ("no token", dict(batch, mask=[0] * 6), "EDOM"),
                            ("NaN", dict(batch, adv=[float("nan")] + batch["adv"][1:]), "ENAN"),
                            ("short", dict(batch, adv=[1.0]), "EINVAL")):
        got = refused(EVALUATORS["PPO-CLIP"], "plain", PARAMS["PPO-CLIP"]["plain"], ins)
        t.true("PPO-CLIP %s -> %s (got %s)" % (what, code, got), got == code)
    got = refused(EVALUATORS["PPO-CLIP"], "plain", {"eps_low": 1.0, "eps_high": 0.2}, batch)
    t.true("eps_low = 1 -> EDOM (got %s)" % got, got == "EDOM")


def selftest_value(t):
    ins = {"values": [0.55, 1.4, -0.2, 2.0], "old_values": [0.3, 0.7, 0.1, 2.1],
           "returns": [1.0, 0.2, 0.4, 1.9], "mask": [1, 1, 1, 1]}
    for v in VALUE:
        p = PARAMS["PPO-VALUE"][v]
        got = eval_value_loss(v, p, ins, Ctx())
        for i in range(4):
            t.near("PPO-VALUE %s grad[%d]" % (v, i), got["grad"][i],
                   central(eval_value_loss, v, p, ins, "values", i, "loss"), mpf(10) ** -40)
    a = eval_value_loss("verl", PARAMS["PPO-VALUE"]["verl"], ins, Ctx())
    b = eval_value_loss("openrlhf", PARAMS["PPO-VALUE"]["openrlhf"], ins, Ctx())
    t.near("verl = openrlhf in exact arithmetic", a["loss"], b["loss"])
    s = eval_value_loss("seed-000", {}, ins, Ctx())
    u = eval_value_loss("openrlhf-unclipped", {}, ins, Ctx())
    t.near("seed (no 1/2) = 2 x unclipped half", s["loss"], 2 * u["loss"])
    edge = {"values": [1.5], "old_values": [1.0], "returns": [0.0], "mask": [1]}
    gv = eval_value_loss("verl", {"clip": 0.5}, edge, Ctx())["grad"][0]
    go = eval_value_loss("openrlhf", {"clip": 0.5}, edge, Ctx())["grad"][0]
    gt = eval_value_loss("trl", {"clip": 0.5}, edge, Ctx())["grad"][0]
    t.true("V at V_old + c: verl's clip_by_value 3/4 of torch.clamp's gradient (%s, %s, %s)"
           % (gv, go, gt), gv == mpf(1.125) and go == mpf(1.5) and gt == mpf(1.5))
    pad = {"values": [0.55, 1.4], "old_values": [0.3, 0.7], "returns": [1.0, 0.25],
           "mask": [1, 0]}
    t.true("TRL: V = V_old = 0 at padding, the square R^2 kept in losses",
           eval_value_loss("trl", {"clip": 0.2}, pad, Ctx())["losses"][1] == mpf(0.0625))
    mc = eval_value_target("mc-return", {"gamma": 0.5}, {"rewards": [1.0, 0.0, 2.0]}, Ctx())
    t.near("MC return 1 + 0.25 * 2", mc["target"][0], mpf(1.5))


def selftest_whiten(t):
    w = {"values": [1.0, 2.0, 3.0], "mask": [1, 1, 1]}
    got = eval_whiten("trl", {"eps": 1e-8}, w, Ctx())
    t.near("trl [1,2,3]: 1/sqrt(1 + 1e-8)", got["whitened"][2], 1 / mp.sqrt(1 + mpf(1e-8)))
    got = eval_whiten_f32("openrlhf", {"eps": 1e-8}, w, Ctx())
    t.true("openrlhf [1,2,3]: f32(1/f32(sqrt(f32(2/3)))), binary32 statistics",
           got["whitened"][2] == mpf(f32_op("/", 1.0, f32_op("sqrt", f32(Fraction(2, 3))))))
    four = {"values": [1.0, 2.0, 3.0, 4.0], "mask": [1, 1, 1, 1]}
    a = eval_whiten("verl", {"eps": 1e-8}, four, Ctx())["whitened"][3]
    b = eval_whiten("eps-outside", {"eps": 0.0}, four, Ctx())["whitened"][3]
    t.true("N = 4: the float32 Bessel factor f32(4/3) > 4/3 shrinks the whitened values",
           a < b and abs(a / b - 1) < mpf(3e-8))
    got = eval_whiten("trl-rewards", {"eps": 1e-8}, w, Ctx())
    t.near("mean re-added: 2 + 1/sqrt(1 + 1e-8)", got["whitened"][2],
           2 + 1 / mp.sqrt(1 + mpf(1e-8)))
    t.true("ddof 1 of one value -> EDOM",
           refused(eval_whiten, "trl", {"eps": 1e-8}, {"values": [1.0], "mask": [1]}) == "EDOM")


def selftest_is(t):
    ins = {"logits_old": [0.2, -0.5, 1.0], "logits": [0.5, -0.1, 0.3], "f": [1.0, -2.0, 0.5]}
    g = eval_is("seed-003", {}, ins, Ctx())
    t.near("e_is = e_old", g["e_is"], g["e_old"])
    t.near("e_cpi = e_new", g["e_cpi"], g["e_new"])
    for k in range(3):
        t.near("cpi_grad[%d] = d e_cpi / d logits" % k, g["cpi_grad"][k],
               central(eval_is, "seed-003", {}, ins, "logits", k, "e_cpi"), mpf(10) ** -40)
    same = dict(ins, logits=ins["logits_old"])
    g = eval_is("seed-003", {}, same, Ctx())
    for k in range(3):
        t.near("at theta_old the CPI gradient is the policy gradient [%d]" % k,
               g["cpi_grad"][k], g["pg_old"][k])


def selftest_klsum(t):
    A3 = [1, 0.5, -1, 0.2, 0.1, 0.3, -0.4, 0, 0.6, 0.5, 0, 2, 0, 0, 0, 1, -1, 0, -0.3, 0.3, 0]
    R3 = [0, 0, 0, 0.5, -0.5, 0, 0, 0, 0, 1, 1, -1, 0.1, -0.1, 0.3, 0.2, 0.2, 0.2, -1, 0, 1]
    ins = {"V": 3, "eos": 2, "T": 3, "logits": [float(x) for x in A3],
           "ref_logits": [float(x) for x in R3], "reward": [1.0, -0.5, 0.0, -0.25, -1.0],
           "beta": 0.5, "y": [0, 1, 2]}
    g = eval_klsum("tabular", {}, ins, Ctx())
    t.near("13.10: E[sum_t l_t] = KL (tabular)", g["kl_tokens"], g["kl"])
    t.near("E[sum_t r_t] = E[r] - beta KL", g["return_tokens"], g["rlhf"])
    t.near("chain rule on y", mp.fsum(g["token_log_ratio"]), g["seq_log_ratio"])
    t.true("15 outcomes of V = 3, T = 3", len(sequences(3, 2, 3)) == 15)
    B3 = [0.5, -0.2, 0.1, 0, 1, -1, 0, 0, 0, 0.3, 0.3, -0.5]
    g = eval_klsum("bigram", {}, dict(ins, logits=[float(x) for x in B3],
                                      ref_logits=[0.0] * 12), Ctx())
    t.near("13.10 (bigram)", g["kl_tokens"], g["kl"])


def selftest_tokrew(t):
    kl = {"logp": [2.0, -2.0, -29.0, -100.0], "ref": [0.0] * 4, "mask": [1, 1, 1, 1],
          "score": 1.0}
    g = eval_tokrew("trl-k3", {"beta": 0.05}, kl, Ctx())
    t.near("k3(2) = e^-2 + 1", g["kl"][0], mp.exp(-2) + 1)
    t.near("k3(-100) = e^100 - 101", g["kl"][3], mp.exp(100) - 101)
    g = eval_tokrew("verl-low-var-kl", {"beta": 0.001}, kl, Ctx())
    t.true("verl clamps k3 at 10", g["kl"][2] == 10 and g["kl"][3] == 10)
    t.near("k3 of a tiny l: l^2/2", k3_of(Fraction(1, 2 ** 80)),
           mpf(2) ** -161 - mpf(2) ** -240 / 6, mpf(10) ** -30)
    g = eval_tokrew("trl-k1", {"beta": 0.05},
                    {"logp": [-1.0, -2.0, 0.0], "ref": [-1.5, -1.0, 0.0], "mask": [1, 1, 0],
                     "score": 2.0}, Ctx())
    t.true("TRL puts the score one past the last token", g["rewards"][2] == 2)
    hole = {"logp": [-1.25, -0.5, -2.5, -0.75], "ref": [-1.0, -0.625, -2.0, -0.875],
            "mask": [1, 0, 1, 0], "score": 2.0}
    g = eval_tokrew("trl-k1", {"beta": 0.05}, hole, Ctx())
    t.true("TRL: the response ends at the first 0 (score there, no penalty after)",
           g["rewards"][1] == 2 and g["kl"][2] == 0 and g["kl"][3] == 0)
    g = eval_tokrew("openrlhf-k1", {"beta": 0.01}, hole, Ctx())
    t.true("OpenRLHF keeps the penalty at masked tokens (kl[1] = f32(0.125))",
           g["kl"][1] == mpf(0.125) and g["rewards"][1] == mpf(f32(f32(-0.01) * 0.125)))
    g = eval_tokrew("openrlhf-k1", {"beta": 0.01}, dict(hole, score=25.0), Ctx())
    t.true("OpenRLHF clamps the score to 10", g["rewards"][2] == mpf(f32_op(
        "+", 10.0, f32_op("*", f32(-0.01), -0.5))))
    g = eval_tokrew("openrlhf-k1", {"beta": -0.1}, hole, Ctx())
    t.true("OpenRLHF: beta < 0 is 0", g["rewards"] == [0, 0, 2, 0])
    ex = eval_tokrew_ex("seed-000", {}, EX, Ctx())
    t.true("0.810930", abs(ex["log_ratio"] - mpf("0.810930")) < mpf(5e-7))


def selftest_f32(t):
    """The binary32 helpers and readings against hand-worked binary32 values."""
    f32max = float.fromhex("0x1.fffffep+127")
    t.true("exp32(88.72) finite, exp32(88.73) inf (e^88.7228 = the largest binary32)",
           exp32(88.72) <= f32max and math.isinf(exp32(88.73)))
    t.true("exp32(0) = 1, exp32(-104.5) = 0", exp32(0.0) == 1.0 and exp32(-104.5) == 0.0)
    t.true("sum32: 1e8 + 1 - 1e8 = 0", sum32([1e8, 1.0, -1e8]) == 0.0)
    t.true("rsqrt32(4) = 0.5", rsqrt32(4.0) == 0.5)
    got = eval_ratio_f32("trl-float32", {}, {"logp": [-1.0000001], "old_logp": [-1.0]}, Ctx())
    t.true("f32(-1.0000001) - f32(-1) = -2^-23: ratio 1 - 2^-23",
           got["ratio"][0] == 1 - mpf(2) ** -23 and got["log_ratio"][0] == -mpf(2) ** -23)
    w = {"values": [1.0, 2.0, 3.0], "mask": [1, 1, 1]}
    got = eval_whiten_f32("verl-float32", {"eps": 1e-8}, w, Ctx())
    t.true("verl-float32 [1,2,3]: +-1 exactly", got["whitened"] == [-1, 0, 1])
    pad = {"values": [1.0, 2.0, 3.0, 1e20], "mask": [1, 1, 1, 0]}
    t.true("a masked square beyond binary32: TRL refuses, verl drops it",
           refused(eval_whiten_f32, "trl-float32", {"eps": 1e-8}, pad) == "ERANGE"
           and eval_whiten_f32("verl-float32", {"eps": 1e-8}, pad, Ctx())["whitened"][3] > 0)
    one = {"values": [1.5], "old_values": [1.0], "returns": [2.0], "mask": [1]}
    gt = eval_value_f32("trl-float32", {"clip": 0.5}, one, Ctx())["grad"][0]
    gv = eval_value_f32("verl-float32", {"clip": 0.5}, one, Ctx())["grad"][0]
    t.true("value at the clip bound, squares tied: TRL -0.5, verl -0.375 (min halves it)",
           gt == -0.5 and gv == -0.375)


SELFTESTS = [selftest_clip, selftest_value, selftest_whiten, selftest_is, selftest_klsum,
             selftest_tokrew, selftest_f32]
