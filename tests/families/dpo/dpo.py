"""The DPO family, DPO-LOSS, DPO-GRAD, DPO-CDPO, DPO-IPO, DPO-KTO, DPO-SIMPO and DPO-ORPO (000
eq. 13.18-13.22 and section 10.1; seed 003's DPO; CONVENTIONS.md "DPO family"), from the golden
files' definitions (each group's description, the doc of its inputs and outputs, the notes of
its flags) and, where they leave room, the code of the library a group cites: TRL 1.10
dpo_trainer.py, kto_trainer.py, experimental cpo and orpo trainers; OpenRLHF DPOLoss and KTOLoss
(0.9.5); princeton-nlp/SimPO scripts/simpo_trainer.py.

Every log-probability is an exact binary64 (a Fraction when "sens" perturbs it).  The margins
D = (logp_w - ref_w) - (logp_l - ref_l), the per-token means a = logp/n, the implicit rewards,
the reference point z0, the IPO losses and the NLL terms are exact rationals, rounded once to the
working precision; only softplus, sigma and log(1 - e^a) are evaluated in mpmath.  A loss of a
batch is the mean over its B pairs (completions, for KTO), and every gradient is that of the
batch mean, so it carries the factor 1/B.
"""

import math
from fractions import Fraction

from mpmath import mp, mpf

from xcore import (is_int, qreal, param, Ctx, M, Reject, get_input, sigmoid, softplus, bumped,
                   central, refused, f32, f32_op)


# ----------------------------------------------------------------------------------------------
# Reading the inputs: exact rationals, NaN and infinities refused (ENAN), shapes (EINVAL)
# ----------------------------------------------------------------------------------------------

def arrays(inputs, params, names, what):
    """The named input arrays, all of one length B >= 1: (B, [array, ...]).  Lengths that differ
    and an empty batch are refused (EINVAL); the entries are not read here."""
    arrs = []
    for n in names:
        v = get_input(inputs, params, n)
        if not isinstance(v, list):
            raise Reject("EINVAL", "%s is not an array" % n)
        arrs.append(v)
    B = len(arrs[0])
    for n, a in zip(names, arrs):
        if len(a) != B:
            raise Reject("EINVAL", "%s has %d entries, %s %d" % (n, len(a), names[0], B))
    if B == 0:
        raise Reject("EINVAL", "no %s" % what)
    return B, arrs


def reals(arr, name):
    return [qreal(v, "%s[%d]" % (name, i)) for i, v in enumerate(arr)]


def positive(inputs, params, name):
    v = param(inputs, params, name)
    if v <= 0:
        raise Reject("EDOM", "%s = %s, must be > 0" % (name, float(v)))
    return v


def non_negative(inputs, params, name):
    v = param(inputs, params, name)
    if v < 0:
        raise Reject("EDOM", "%s = %s, must be >= 0" % (name, float(v)))
    return v


def token_counts(inputs, params, B, clamp=False):
    """n_w, n_l: B integers each.  clamp (TRL's DPOTrainer, ipo and sigmoid_norm:
    completion_mask.sum(dim=1).clamp(min=1.0)): a count >= 0, 0 read as 1, a negative one refused
    (EDOM: no mask has it).  Otherwise (TRL's CPOTrainer and ORPOTrainer divide by the raw
    loss_mask.sum(-1): 0/0 = NaN for an empty completion) a count >= 1, 0 refused (EDOM)."""
    out = []
    for name in ("n_w", "n_l"):
        v = get_input(inputs, params, name)
        if not isinstance(v, list) or len(v) != B:
            raise Reject("EINVAL", "%s must hold one count per pair (%d)" % (name, B))
        for k in v:
            if not is_int(k):
                raise Reject("EINVAL", "%s holds %r, not an integer" % (name, k))
            if k < 0:
                raise Reject("EDOM", "%s holds %d, a negative count" % (name, k))
            if k < 1 and not clamp:
                raise Reject("EDOM", "%s holds %d: a completion of no tokens" % (name, k))
        out.append([max(k, 1) for k in v] if clamp else v)
    return out


def unread_counts(inputs, B, ctx):
    """Counts a summed convention does not read: not checked, but a shape that does not fit is
    remarked (an implementation may refuse it)."""
    for name in ("n_w", "n_l"):
        v = inputs.get(name)
        if v is not None and (not isinstance(v, list) or len(v) != B):
            ctx.ambiguous.append("%s does not fit the batch, but this convention does not read "
                                 "the counts" % name)


def pair_arrays(inputs, params):
    """logp_w, logp_l, ref_w, ref_l of B pairs, as exact rationals."""
    names = ("logp_w", "logp_l", "ref_w", "ref_l")
    B, arrs = arrays(inputs, params, names, "pairs")
    return B, [reals(a, n) for a, n in zip(arrs, names)]


# ----------------------------------------------------------------------------------------------
# DPO-LOSS, DPO-CDPO, DPO-IPO: one pairwise loss l(D) per convention
# ----------------------------------------------------------------------------------------------

PAIR_VARIANTS = {
    "DPO-LOSS": ("sigmoid", "seed-003-prose", "hinge", "cdpo", "robust", "ipo-sum", "ipo-mean",
                 "sigmoid-norm"),
    "DPO-CDPO": ("cdpo", "robust"),
    "DPO-IPO": ("ipo-sum", "ipo-mean"),
}

# the conventions that divide each summed log-ratio by its completion's token count (TRL's
# loss_type "ipo" and "sigmoid_norm", which clamp the count at 1)
PER_TOKEN = ("ipo-mean", "sigmoid-norm")


def sigmoid_terms(z):
    """(softplus(-z), softplus(z), sigma(-z), sigma(z)): -log sigma(z), -log sigma(-z) and the
    two weights."""
    return softplus(-z), softplus(z), sigmoid(-z), sigmoid(z)


def pair_term(variant, D, beta, eps, ctx):
    """The loss l of one pair with margin D (an exact rational) and dl/dD, as mpf.

    sigmoid, sigmoid-norm  l = -log sigma(beta D) = softplus(-beta D)           (000 13.21)
                           dl/dD = -beta sigma(-beta D)
    seed-003-prose         the same with beta^2 (seed 003's prose: r = beta log(pi/pi_ref) and
                           then -log sigma(beta (r_w - r_l)))
    hinge                  l = max(0, 1 - beta D), dl/dD = -beta where 1 - beta D > 0, else 0;
                           at 1 - beta D = 0 the subgradient is any of [-beta, 0]: 0, as
                           torch.relu's backward gives (TRL loss_type="hinge")
    cdpo                   l = -(1 - eps) log sigma(beta D) - eps log sigma(-beta D)
                           dl/dD = beta (-(1 - eps) sigma(-beta D) + eps sigma(beta D))
    robust                 l = [-(1 - eps) log sigma(beta D) + eps log sigma(-beta D)]/(1 - 2 eps)
                           dl/dD = -beta ((1 - eps) sigma(-beta D) + eps sigma(beta D))/(1 - 2 eps)
    ipo-sum, ipo-mean      l = (D - 1/(2 beta))^2, dl/dD = 2 (D - 1/(2 beta)), exact rationals
    """
    if variant in ("ipo-sum", "ipo-mean"):
        h = D - 1 / (2 * beta)
        return M(h * h), M(2 * h)
    if variant == "hinge":
        t = 1 - beta * D
        if t == 0:
            ctx.ambiguous.append("hinge at its kink 1 - beta D = 0: derivative taken as 0 "
                                 "(torch.relu backward), the subgradient is [-beta, 0]")
        if t > 0:
            return M(t), -M(beta)
        return mpf(0), mpf(0)
    b = beta * beta if variant == "seed-003-prose" else beta
    z = M(b * D)
    sp_neg, sp_pos, s_neg, s_pos = sigmoid_terms(z)
    if variant in ("sigmoid", "sigmoid-norm", "seed-003-prose"):
        return sp_neg, -M(b) * s_neg
    e, one_e = M(eps), M(1 - eps)
    if variant == "cdpo":
        return one_e * sp_neg + e * sp_pos, M(b) * (e * s_pos - one_e * s_neg)
    if variant == "robust":
        den = M(1 - 2 * eps)
        return (one_e * sp_neg - e * sp_pos) / den, -M(b) * (one_e * s_neg + e * s_pos) / den
    raise ValueError(variant)


def smoothing(variant, inputs, params):
    """eps of cdpo and of robust, 0 <= eps <= 1.  TRL's robust loss only logs a warning for a
    label_smoothing outside [0, 0.5) (DPOTrainer.__init__) and divides by 1 - 2 eps: at eps = 1/2
    its loss is -inf, refused (EDOM); EDOM outside [0, 1], ENAN if NaN."""
    if variant not in ("cdpo", "robust"):
        return None
    eps = param(inputs, params, "eps")
    if eps < 0 or eps > 1:
        raise Reject("EDOM", "eps = %s outside the %s range" % (float(eps), variant))
    if variant == "robust" and eps == Fraction(1, 2):
        raise Reject("EDOM", "robust at eps = 1/2 divides by 1 - 2 eps = 0")
    return eps


def eval_pair_loss(formula, variant, params, inputs, ctx):
    """loss = (1/B) sum_i l(D_i); D_i = (logp_w - ref_w) - (logp_l - ref_l), or per token
    (logp_w - ref_w)/n_w - (logp_l - ref_l)/n_l with each n at least 1 (TRL's clamp);
    grad_w,i = l'(D_i)/B (per token: /(B n_w,i)),
    grad_l,i = -l'(D_i)/B (/(B n_l,i)); rewards beta (logp - ref), summed, beta once."""
    if variant not in PAIR_VARIANTS[formula]:
        raise Reject("EINVAL", "%s is not a convention of %s" % (variant, formula), firm=False)
    B, (lw, ll, rw, rl) = pair_arrays(inputs, params)
    per_token = variant in PER_TOKEN
    if per_token:
        nw, nl = token_counts(inputs, params, B, clamp=True)
    else:
        unread_counts(inputs, B, ctx)
    beta = positive(inputs, params, "beta")
    eps = smoothing(variant, inputs, params)
    losses, gw, gl = [], [], []
    for i in range(B):
        hw, hl = lw[i] - rw[i], ll[i] - rl[i]
        D = hw / nw[i] - hl / nl[i] if per_token else hw - hl
        l, dD = pair_term(variant, D, beta, eps, ctx)
        losses.append(l)
        if per_token:
            gw.append(dD / (B * nw[i]))
            gl.append(-dD / (B * nl[i]))
        else:
            gw.append(dD / B)
            gl.append(-dD / B)
    return {"loss": mp.fsum(losses) / B, "losses": losses, "grad_w": gw, "grad_l": gl,
            "reward_w": [M(beta * (lw[i] - rw[i])) for i in range(B)],
            "reward_l": [M(beta * (ll[i] - rl[i])) for i in range(B)]}


def eval_dpo_loss(variant, params, inputs, ctx):
    return eval_pair_loss("DPO-LOSS", variant, params, inputs, ctx)


def eval_dpo_cdpo(variant, params, inputs, ctx):
    return eval_pair_loss("DPO-CDPO", variant, params, inputs, ctx)


def eval_dpo_ipo(variant, params, inputs, ctx):
    return eval_pair_loss("DPO-IPO", variant, params, inputs, ctx)


# ----------------------------------------------------------------------------------------------
# DPO-GRAD: the gradient as 13.22 writes it, from the implicit rewards
# ----------------------------------------------------------------------------------------------

def eval_dpo_grad(variant, params, inputs, ctx):
    """r = beta (logp - ref) (13.18 with pi_theta for pi*), weight = sigma(r_l - r_w);
    grad_w = -beta weight/B, grad_l = beta weight/B (13.22: the gradient of the batch mean of
    13.21).  seed-003-prose applies beta once more: weight = sigma(beta (r_l - r_w)), and the
    factor is beta^2."""
    if variant not in ("seed-000", "seed-003-prose"):
        raise Reject("EINVAL", "%s is not a convention of DPO-GRAD" % variant, firm=False)
    B, (lw, ll, rw, rl) = pair_arrays(inputs, params)
    beta = positive(inputs, params, "beta")
    prose = variant == "seed-003-prose"
    b = beta * beta if prose else beta
    weight, gw, gl = [], [], []
    for i in range(B):
        r_w, r_l = beta * (lw[i] - rw[i]), beta * (ll[i] - rl[i])
        w = sigmoid(M(beta * (r_l - r_w) if prose else r_l - r_w))
        weight.append(w)
        gw.append(-M(b) * w / B)
        gl.append(M(b) * w / B)
    return {"weight": weight, "grad_w": gw, "grad_l": gl}


# ----------------------------------------------------------------------------------------------
# DPO-KTO: desirable and undesirable completions against the reference point z0
# ----------------------------------------------------------------------------------------------

def eval_dpo_kto(variant, params, inputs, ctx):
    """z0 = max(0, (1/M) sum_j (kl_logp_j - kl_ref_j)), held constant (detached); r = logp - ref;
    desirable l = w_d (1 - sigma(beta (r - z0))) = w_d sigma(-beta (r - z0)), undesirable
    l = w_u sigma(-beta (z0 - r)); loss = (1/B) sum over all B completions (TRL and OpenRLHF
    concatenate both kinds and take one mean).  d l/d logp = -w_d beta sigma(x) sigma(-x) for a
    desirable completion, x = beta (r - z0), and +w_u beta sigma(x) sigma(-x) for an undesirable
    one, x = beta (z0 - r); grad = that / B; reward = beta r."""
    if variant not in ("trl", "openrlhf"):
        raise Reject("EINVAL", "%s is not a convention of DPO-KTO" % variant, firm=False)
    B, (lp, rf, lab) = arrays(inputs, params, ("logp", "ref", "desirable"), "completions")
    Mk, (kp, kr) = arrays(inputs, params, ("kl_logp", "kl_ref"), "mismatched pairs for z0")
    lp, rf = reals(lp, "logp"), reals(rf, "ref")
    kp, kr = reals(kp, "kl_logp"), reals(kr, "kl_ref")
    for i, d in enumerate(lab):
        if not is_int(d) or d not in (0, 1):
            raise Reject("EDOM", "desirable[%d] = %r, a label must be 1 or 0" % (i, d))
    beta = positive(inputs, params, "beta")
    w_d = non_negative(inputs, params, "w_d")
    w_u = non_negative(inputs, params, "w_u")
    z0 = max(Fraction(0), sum((a - b for a, b in zip(kp, kr)), Fraction(0)) / Mk)
    losses, grad, reward = [], [], []
    for i in range(B):
        r = lp[i] - rf[i]
        if lab[i] == 1:
            x = M(beta * (r - z0))
            w, sign = M(w_d), -1
        else:
            x = M(beta * (z0 - r))
            w, sign = M(w_u), 1
        s_pos, s_neg = sigmoid(x), sigmoid(-x)
        losses.append(w * s_neg)
        grad.append(sign * w * M(beta) * s_pos * s_neg / B)
        reward.append(M(beta * r))
    return {"loss": mp.fsum(losses) / B, "losses": losses, "grad": grad, "reward": reward,
            "z0": M(z0)}


# ----------------------------------------------------------------------------------------------
# DPO-SIMPO: length-normalised, reference-free, margin gamma, optional NLL term
# ----------------------------------------------------------------------------------------------

# variant -> (margin parameter, NLL weight parameter)
SIMPO_PARAMS = {
    "simpo-repo": ("gamma_beta_ratio", "sft_weight"),
    "trl": ("simpo_gamma", "cpo_alpha"),
    "trl-no-nll": ("simpo_gamma", "cpo_alpha"),
}


def eval_dpo_simpo(variant, params, inputs, ctx):
    """a = logp/n; z = beta (a_w - a_l - gamma_beta_ratio) (SimPO repository) or
    z = beta (a_w - a_l) - simpo_gamma (TRL CPOTrainer writes beta (a_w - a_l - gamma/beta), the
    same real number); l = -log sigma(z) = softplus(-z); nll = -sum_i logp_w,i / sum_i n_w,i, one
    token mean over the batch's chosen completions (nn.CrossEntropyLoss in both);
    loss = (1/B) sum_i l_i + alpha nll, alpha = sft_weight or cpo_alpha.
    grad_w,i = -beta sigma(-z_i)/(B n_w,i) - alpha/sum n_w, grad_l,i = beta sigma(-z_i)/(B n_l,i);
    rewards beta a."""
    if variant not in SIMPO_PARAMS:
        raise Reject("EINVAL", "%s is not a convention of DPO-SIMPO" % variant, firm=False)
    B, (lw, ll) = arrays(inputs, params, ("logp_w", "logp_l"), "pairs")
    lw, ll = reals(lw, "logp_w"), reals(ll, "logp_l")
    nw, nl = token_counts(inputs, params, B)
    beta = positive(inputs, params, "beta")
    mname, aname = SIMPO_PARAMS[variant]
    margin = param(inputs, params, mname)
    alpha = non_negative(inputs, params, aname)
    Nw = sum(nw)
    nll = -sum(lw, Fraction(0)) / Nw
    # TRL's concatenated_forward computes no NLL at cpo_alpha == 0: nll_loss = torch.tensor(0.0),
    # and that is what it returns and logs (the loss is the same either way: 0 * nll)
    nll_out = Fraction(0) if variant != "simpo-repo" and alpha == 0 else nll
    losses, gw, gl, rew_w, rew_l = [], [], [], [], []
    for i in range(B):
        aw, al = lw[i] / nw[i], ll[i] / nl[i]
        z = beta * (aw - al - margin) if variant == "simpo-repo" else beta * (aw - al) - margin
        z = M(z)
        losses.append(softplus(-z))
        s = M(beta) * sigmoid(-z) / B
        gw.append(-s / nw[i] - M(alpha / Nw))
        gl.append(s / nl[i])
        rew_w.append(M(beta * aw))
        rew_l.append(M(beta * al))
    return {"loss": mp.fsum(losses) / B + M(alpha * nll), "losses": losses, "grad_w": gw,
            "grad_l": gl, "reward_w": rew_w, "reward_l": rew_l, "nll": M(nll_out)}


# ----------------------------------------------------------------------------------------------
# DPO-ORPO: NLL plus the odds-ratio term
# ----------------------------------------------------------------------------------------------

def log1mexp(a):
    """log(1 - e^a) for a < 0 (Maechler's two branches, split at -log 2): log(-expm1(a)) near 0,
    log1p(-e^a) below, where 1 - e^a rounds to 1 and expm1 would drop e^a."""
    if a > -mp.log(2):
        return mp.log(-mp.expm1(a))
    return mp.log1p(-mp.exp(a))


def log_odds_of(a):
    """lo(a) = log(p/(1 - p)) = a - log(1 - e^a), p = e^a; +inf at a = 0 (p = 1)."""
    if a == 0:
        return mp.inf
    am = M(a)
    return am - log1mexp(am)


def eval_dpo_orpo(variant, params, inputs, ctx):
    """a = logp/n <= 0; x = lo(a_w) - lo(a_l) (log_odds); l = -lambda log sigma(x) =
    lambda softplus(-x); nll = -sum logp_w / sum n_w (trl: TRL's CrossEntropyLoss, one token mean)
    or (1/B) sum_i -logp_w,i/n_w,i (seq-mean: the ORPO paper's per-sequence L_SFT);
    loss = nll + (1/B) sum_i l_i.  d lo/da = 1/(1 - e^a), so
    grad_w,i = d nll/d logp_w,i - lambda sigma(-x_i)/((1 - e^{a_w}) B n_w,i),
    grad_l,i = lambda sigma(-x_i)/((1 - e^{a_l}) B n_l,i); rewards lambda a (TRL logs
    beta * the average log-probability).  A certain chosen completion (logp_w = 0) has
    x = +inf, l = 0 and the one-sided limit sigma(-x)/(1 - e^{a_w}) -> e^{lo(a_l)} (from
    sigma(-x) ~ e^{-x} = e^{lo(a_l)} (1 - e^{a_w})/e^{a_w}); a certain rejected one (logp_l = 0)
    makes the loss +inf and is refused (EDOM), as is a positive log-probability."""
    if variant == "trl-float32":
        return eval_orpo_f32(params, inputs, ctx)
    if variant not in ("trl", "seq-mean"):
        raise Reject("EINVAL", "%s is not a convention of DPO-ORPO" % variant, firm=False)
    B, (lw, ll) = arrays(inputs, params, ("logp_w", "logp_l"), "pairs")
    lw, ll = reals(lw, "logp_w"), reals(ll, "logp_l")
    nw, nl = token_counts(inputs, params, B)
    lam = non_negative(inputs, params, "lambda")
    for name, arr in (("logp_w", lw), ("logp_l", ll)):
        for i, v in enumerate(arr):
            if v > 0:
                raise Reject("EDOM", "%s[%d] > 0 is not a log-probability" % (name, i))
    for i, v in enumerate(ll):
        if v == 0:
            raise Reject("EDOM", "logp_l[%d] = 0: the rejected completion is certain, its odds "
                         "infinite and the loss +inf" % i)
    if variant == "trl":
        Nw = sum(nw)
        nll = -sum(lw, Fraction(0)) / Nw
        dnll = [Fraction(-1, Nw)] * B
    else:
        nll = sum((-lw[i] / nw[i] for i in range(B)), Fraction(0)) / B
        dnll = [Fraction(-1, B * nw[i]) for i in range(B)]
    lm = M(lam)
    losses, gw, gl, lodds = [], [], [], []
    for i in range(B):
        aw, al = lw[i] / nw[i], ll[i] / nl[i]
        lo_l = log_odds_of(al)
        if aw == 0:
            ctx.ambiguous.append("logp_w = 0 (certain chosen completion): log_odds +inf, loss term "
                                 "0, gradient the one-sided limit (TRL computes NaN there)")
            x = mp.inf
            losses.append(mpf(0))
            gw.append(M(dnll[i]) - lm * mp.exp(lo_l) / (B * nw[i]))
            gl.append(mpf(0))
        else:
            x = log_odds_of(aw) - lo_l
            s = sigmoid(-x)
            losses.append(lm * softplus(-x))
            gw.append(M(dnll[i]) - lm * s / (-mp.expm1(M(aw))) / (B * nw[i]))
            gl.append(lm * s / (-mp.expm1(M(al))) / (B * nl[i]))
        lodds.append(x)
    return {"loss": M(nll) + mp.fsum(losses) / B, "losses": losses, "grad_w": gw,
            "grad_l": gl, "log_odds": lodds, "nll": M(nll),
            "reward_w": [M(lam * lw[i] / nw[i]) for i in range(B)],
            "reward_l": [M(lam * ll[i] / nl[i]) for i in range(B)]}


# ----------------------------------------------------------------------------------------------
# DPO-ORPO trl-float32: TRL's ORPOTrainer in its own arithmetic.  get_batch_logps averages the
# summed log-probability in the tensor's dtype (binary64 for the goldens' inputs): a = logp/n
# rounded to binary64; odds_ratio_loss casts it with .float() (binary32 from there on, whatever
# the input dtype) and computes log_odds = (a_w - a_l) - (log1mexp(a_w) - log1mexp(a_l)) with
# log1mexp(x) = torch.where(x < -0.6931471805599453, log1p(-exp(x)), log(-expm1(x))) (the
# Python constant compared in binary32), ratio = F.logsigmoid(log_odds) (torch's CPU kernel:
# min(x, 0) - log1p(e^-|x|), keeping e^-|x| for its backward), losses = beta * ratio (the
# Python float beta taken as a binary32), losses.mean() (a binary32 sum left to right, then /B);
# the NLL is nn.CrossEntropyLoss on the float64 logits (a binary64 token mean), and
# loss = policy_nll_loss - losses.mean() in binary64.  Autograd: d loss/d mean = -1, the mean's
# backward -1/B in binary32, mul's by beta, log_sigmoid_backward (max_deriv - sign b/(1 + b)) g,
# b = e^-|x|, then sub's (+g, -g) into a_w, a_l and into the two log1mexp; where's backward gives
# the chosen branch g and the other 0: Log1pBackward g/(u + 1) with u = -e^x, Neg, ExpBackward
# g * result; LogBackward g/v with v = -expm1(x), Neg, Expm1Backward g * (result + 1).  The unused
# branch's 0 adds nothing unless it is NaN: 0/(1 - e^x) = 0/0 where e^x rounds to 1, then TRL's
# gradient is NaN (refused, ERANGE).  The .float() backward and the division by n are binary64,
# the NLL's gradient -1/N is added there.  e^x, expm1, log1p, log correctly rounded (torch's
# scalar loop below 8 elements uses the C library's).
# ----------------------------------------------------------------------------------------------

def _cr32(fn, x):
    """fn(x) correctly rounded to binary32, x a binary32 value (mpmath at 256 bits, then once)."""
    with mp.workprec(256):
        v = fn(mpf(x))
        if mp.isinf(v):
            return float(v)
        sign, man, exp, _bc = v._mpf_
        q = Fraction(int(man)) * Fraction(2) ** int(exp)
        return f32(-q if sign else q) if man else 0.0


def exp32(x):
    if x > 89.0:
        return math.inf
    if x < -104.0:
        return 0.0
    return _cr32(mp.exp, x)


def log1p32(x):
    if x == -1.0:
        return -math.inf
    return _cr32(mp.log1p, x)


def log1mexp32(x):
    """TRL's log1mexp on binary32 x < 0: (value, branch, the branch's intermediate)."""
    if x < f32(-0.6931471805599453):
        e = exp32(x)
        return log1p32(-e), "log1p", e
    m = _cr32(mp.expm1, x)
    return _cr32(mp.log, -m), "log", m


def log1mexp32_back(G, branch, r):
    """The gradient into x from G on log1mexp(x), through the branch taken."""
    if branch == "log1p":
        gu = f32_op("/", G, f32_op("+", -r, 1.0))
        return f32_op("*", -gu, r)
    gv = f32_op("/", G, -r)
    return f32_op("*", -gv, f32_op("+", r, 1.0))


def eval_orpo_f32(params, inputs, ctx):
    B, (lw, ll) = arrays(inputs, params, ("logp_w", "logp_l"), "pairs")
    lw, ll = reals(lw, "logp_w"), reals(ll, "logp_l")
    nw, nl = token_counts(inputs, params, B)
    lam = non_negative(inputs, params, "lambda")
    for name, arr in (("logp_w", lw), ("logp_l", ll)):
        for i, v in enumerate(arr):
            if v > 0:
                raise Reject("EDOM", "%s[%d] > 0 is not a log-probability" % (name, i))
    for i, v in enumerate(ll):
        if v == 0:
            raise Reject("EDOM", "logp_l[%d] = 0: the rejected completion is certain" % i)
    ctx.exact = True
    aw = [f32(float(Fraction(lw[i]) / nw[i])) for i in range(B)]   # binary64 mean, .float()
    al = [f32(float(Fraction(ll[i]) / nl[i])) for i in range(B)]
    for name, a in (("a_w", aw), ("a_l", al)):
        for i, v in enumerate(a):
            if math.isinf(v):
                raise Reject("ERANGE", "%s[%d] beyond binary32" % (name, i))
            if exp32(v) == 1.0:
                raise Reject("ERANGE", "%s[%d] = %r: e^a rounds to 1 in binary32, TRL's log1mexp "
                             "backward is 0/0 (NaN)" % (name, i, v))
    beta = f32(float(lam))
    Nw = sum(nw)
    nll = -sum(lw, Fraction(0)) / Nw
    g = f32_op("*", f32_op("/", -1.0, float(B)), beta)
    lodds, trl_losses, gw, gl = [], [], [], []
    for i in range(B):
        Lw, bw, rw = log1mexp32(aw[i])
        Ll, bl, rl = log1mexp32(al[i])
        x = f32_op("-", f32_op("-", aw[i], al[i]), f32_op("-", Lw, Ll))
        lodds.append(x)
        b = exp32(-abs(x))
        ratio = f32_op("-", min(x, 0.0), log1p32(b))
        trl_losses.append(f32_op("*", beta, ratio))
        q = f32_op("/", b, f32_op("+", 1.0, b))
        d = f32_op("-", 1.0, q) if x < 0 else q
        glo = f32_op("*", d, g)
        g_aw = f32_op("+", glo, log1mexp32_back(-glo, bw, rw))
        g_al = f32_op("+", -glo, log1mexp32_back(glo, bl, rl))
        gw.append(M(Fraction(g_aw) / nw[i] - Fraction(1, Nw)))
        gl.append(M(Fraction(g_al) / nl[i]))
    s = 0.0
    for v in trl_losses:
        s = f32_op("+", s, v)
    mean = f32_op("/", s, float(B))
    return {"loss": M(nll - Fraction(mean)), "losses": [mpf(-v) for v in trl_losses],
            "grad_w": gw, "grad_l": gl, "log_odds": [mpf(v) for v in lodds], "nll": M(nll),
            "reward_w": [mpf(f32_op("*", beta, v)) for v in aw],
            "reward_l": [mpf(f32_op("*", beta, v)) for v in al]}


# ----------------------------------------------------------------------------------------------
# DPO-DISPLACE: exact gradient descent on one pair, the policy's logits its parameters
# (000 section 4.3, likelihood displacement)
# ----------------------------------------------------------------------------------------------

def prefix_rows(V, T):
    """The prefixes without EOS shorter than T: sum_{t<T} (V-1)^t."""
    return sum((V - 1) ** t for t in range(T))


def sequence_path(y, V, eos, T, name):
    """A sequence of the model: tokens in [0, V), EOS only last; one that is shorter than T ends
    with EOS, one of T tokens may be cut (no EOS).  Anything else is refused (EDOM)."""
    if not isinstance(y, list) or not y or not all(is_int(k) for k in y):
        raise Reject("EINVAL", "%s is not a list of tokens" % name)
    if any(k < 0 or k >= V for k in y):
        raise Reject("EDOM", "%s has a token outside [0, %d)" % (name, V))
    if len(y) > T:
        raise Reject("EDOM", "%s is longer than T = %d" % (name, T))
    if eos in y[:-1]:
        raise Reject("EDOM", "%s has EOS before its end" % name)
    if len(y) < T and y[-1] != eos:
        raise Reject("EDOM", "%s is shorter than T and does not end with EOS" % name)
    return y


def row_of(kind, V, eos, prefix):
    """The logits row that gives the next token after `prefix` (no EOS in it): bigram, row s
    after token s and row V at the start; tabular, the prefixes by length, then lexicographically
    in the token numbers with EOS skipped."""
    if kind == "bigram":
        return prefix[-1] if prefix else V
    digits = [k if k < eos else k - 1 for k in prefix]
    rank = 0
    for d in digits:
        rank = rank * (V - 1) + d
    return prefix_rows(V, len(prefix)) + rank


def logp_and_grad(theta, steps_of):
    """log pi(y) = sum_t [theta_{r_t, y_t} - log sum_k e^{theta_{r_t, k}}] (000 13.1, one
    log-softmax per position) and its gradient, sum_t (e_{y_t} - softmax(theta_{r_t})) in row r_t,
    as {row: [V values]}."""
    lp = mpf(0)
    grad = {}
    for r, tok in steps_of:
        row = theta[r]
        top = max(row)
        ex = [mp.exp(v - top) for v in row]
        tot = mp.fsum(ex)
        lp += row[tok] - top - mp.log(tot)
        g = grad.setdefault(r, [mpf(0)] * len(row))
        for k in range(len(row)):
            g[k] -= ex[k] / tot
        g[tok] += 1
    return lp, grad


def eval_dpo_displace(variant, params, inputs, ctx):
    """A policy pi_theta whose parameters are its logits starts at its reference (theta_0 the
    input logits, so pi_ref = pi_theta_0); h = log pi_theta(y) - log pi_ref(y), m = h_w - h_l.
    Loss dpo: L = -log sigma(beta m) (13.21), dL/dm = -beta sigma(-beta m); ipo:
    L = (m - 1/(2 beta))^2, dL/dm = 2 (m - 1/(2 beta)).  Each step
    theta <- theta - lr dL/dm (grad log pi(y_w) - grad log pi(y_l)), the two gradients at the same
    theta, in exact arithmetic at the working precision.  A cut sequence (T tokens, no EOS) has
    its prefix probability, the README's default reading ("keep")."""
    if variant not in ("dpo", "ipo"):
        raise Reject("EINVAL", "%s is not a convention of DPO-DISPLACE" % variant, firm=False)
    V, eos, T = (get_input(inputs, params, n) for n in ("V", "eos", "T"))
    steps = get_input(inputs, params, "steps")
    if not all(is_int(v) for v in (V, eos, T, steps)):
        raise Reject("EINVAL", "V, eos, T and steps must be integers")
    if V < 2 or V > 64 or not 0 <= eos < V or T < 1:
        raise Reject("EDOM", "V = %d, eos = %d, T = %d outside the model's range" % (V, eos, T))
    if steps < 0:
        raise Reject("EDOM", "steps = %d < 0" % steps)
    logits = get_input(inputs, params, "logits")
    if not isinstance(logits, list):
        raise Reject("EINVAL", "logits is not an array")
    nb, nt = (V + 1) * V, prefix_rows(V, T) * V
    if len(logits) not in (nb, nt):
        raise Reject("EINVAL", "%d logits: a bigram model has %d, a tabular one %d"
                     % (len(logits), nb, nt))
    kind = "bigram" if len(logits) == nb else "tabular"
    if nb == nt:
        ctx.ambiguous.append("as many logits for a bigram as for a tabular model: bigram read")
    q = reals(logits, "logits")
    yw = sequence_path(get_input(inputs, params, "y_w"), V, eos, T, "y_w")
    yl = sequence_path(get_input(inputs, params, "y_l"), V, eos, T, "y_l")
    beta = positive(inputs, params, "beta")
    lr = param(inputs, params, "lr")
    if lr < 0:
        raise Reject("EDOM", "lr = %s < 0 is not descent" % float(lr), firm=False)
    path_w = [(row_of(kind, V, eos, yw[:t]), yw[t]) for t in range(len(yw))]
    path_l = [(row_of(kind, V, eos, yl[:t]), yl[t]) for t in range(len(yl))]
    theta = [[M(v) for v in q[r * V:(r + 1) * V]] for r in range(len(q) // V)]
    lw0, _ = logp_and_grad(theta, path_w)
    ll0, _ = logp_and_grad(theta, path_l)
    b, step, target = M(beta), M(lr), M(1 / (2 * beta))
    for _ in range(steps):
        lw, gw = logp_and_grad(theta, path_w)
        ll, gl = logp_and_grad(theta, path_l)
        m = (lw - lw0) - (ll - ll0)
        dm = -b * sigmoid(-b * m) if variant == "dpo" else 2 * (m - target)
        for r in set(gw) | set(gl):
            a, c = gw.get(r), gl.get(r)
            for k in range(V):
                d = (a[k] if a else 0) - (c[k] if c else 0)
                theta[r][k] -= step * dm * d
    lw, _ = logp_and_grad(theta, path_w)
    ll, _ = logp_and_grad(theta, path_l)
    return {"logp_w_start": lw0, "logp_w": lw, "logp_l_start": ll0, "logp_l": ll,
            "margin": (lw - lw0) - (ll - ll0)}


EVALUATORS = {
    "DPO-LOSS": eval_dpo_loss,
    "DPO-GRAD": eval_dpo_grad,
    "DPO-CDPO": eval_dpo_cdpo,
    "DPO-IPO": eval_dpo_ipo,
    "DPO-KTO": eval_dpo_kto,
    "DPO-SIMPO": eval_dpo_simpo,
    "DPO-ORPO": eval_dpo_orpo,
    "DPO-DISPLACE": eval_dpo_displace,
}


# ----------------------------------------------------------------------------------------------
# The groups' params: each convention's values, as its description states them, one check per
# test group.  The libraries' defaults: TRL DPOConfig.beta 0.1 and OpenRLHF train_dpo --model.beta
# 0.1 (CONVENTIONS.md: beta default 0.1); KTOConfig beta 0.1, desirable_weight and
# undesirable_weight 1; OpenRLHF 0.9.5 train_kto --beta 0.01, both weights 1; SimPOConfig beta 2,
# gamma_beta_ratio 0.25, sft_weight 0; CPOConfig beta 0.1, simpo_gamma 0.5, cpo_alpha 1;
# ORPOConfig beta (lambda) 0.1.  The cDPO and robust eps 0.1 is the groups' choice (the
# libraries' label_smoothing default is 0).
# ----------------------------------------------------------------------------------------------

PAIR_PARAMS = {v: {"beta": 0.1} for v in PAIR_VARIANTS["DPO-LOSS"]}
PAIR_PARAMS["cdpo"] = {"beta": 0.1, "eps": 0.1}
PAIR_PARAMS["robust"] = {"beta": 0.1, "eps": 0.1}

GROUP_PARAMS = {
    "DPO-LOSS": PAIR_PARAMS,
    "DPO-CDPO": PAIR_PARAMS,
    "DPO-IPO": PAIR_PARAMS,
    "DPO-GRAD": {"seed-000": {"beta": 0.1}, "seed-003-prose": {"beta": 0.1}},
    "DPO-KTO": {"trl": {"beta": 0.1, "w_d": 1.0, "w_u": 1.0},
                "openrlhf": {"beta": 0.01, "w_d": 1.0, "w_u": 1.0}},
    "DPO-SIMPO": {"simpo-repo": {"beta": 2.0, "gamma_beta_ratio": 0.25, "sft_weight": 0.0},
                  "trl": {"beta": 0.1, "simpo_gamma": 0.5, "cpo_alpha": 1.0},
                  "trl-no-nll": {"beta": 0.1, "simpo_gamma": 0.5, "cpo_alpha": 0.0}},
    "DPO-ORPO": {"trl": {"lambda": 0.1}, "trl-float32": {"lambda": 0.1},
                 "seq-mean": {"lambda": 0.1}},
    "DPO-DISPLACE": {"dpo": {}, "ipo": {}},
}


def params_check(formula):
    def check(variant, params):
        table = GROUP_PARAMS.get(formula, {})
        want = table.get(variant)
        if want is None or variant not in PAIR_VARIANTS.get(formula, table):
            return None
        bad = []
        for k, v in want.items():
            if k not in params:
                bad.append("%s missing (the convention's %r)" % (k, v))
            elif params[k] != v:
                bad.append("%s %r, the convention's %r" % (k, params[k], v))
        bad += ["unexpected param %s" % k for k in sorted(set(params) - set(want))]
        return bad
    check.__name__ = "check_params_" + formula.replace("-", "_").lower()
    return check


PARAM_CHECKS = {f: params_check(f) for f in EVALUATORS}


# ----------------------------------------------------------------------------------------------
# Published numbers (detectors.py): CONVENTIONS.md "DPO family" and FORMULAS.md DPO-LOSS
# ----------------------------------------------------------------------------------------------

# log-probabilities (-10, -12, -11, -11.5) as logp_w, ref_w, logp_l, ref_l: D = 1.5
DETECTOR = {"logp_w": [-10.0], "logp_l": [-11.0], "ref_w": [-12.0], "ref_l": [-11.5]}
DETECTOR_N = dict(DETECTOR, n_w=[4], n_l=[5])
# FORMULAS.md DPO-LOSS: D = 2
DELTA2 = {"logp_w": [-1.0], "logp_l": [-5.0], "ref_w": [-3.0], "ref_l": [-5.0]}

# CONVENTIONS.md, beta 0.1 (eps 0.1; IPO per token with lengths 4 and 5)
CONVENTIONS_PRINTED = (("sigmoid", "0.6209570"), ("hinge", "0.85"), ("ipo-sum", "12.25"),
                       ("ipo-mean", "21.16"), ("cdpo", "0.6359570"), ("robust", "0.6022070"))


def at_group_params(run, t, label):
    """A detector must read the test at the group's beta and eps, not one that overrides them."""
    if isinstance(t, dict) and any(k in t.get("inputs", {}) for k in ("beta", "eps")):
        run.fail("%s: tcId %s overrides the group's params" % (label, t.get("tcId")))


def dpo_detectors(run):
    label = "CONVENTIONS DPO detector"
    for F in ("DPO-LOSS", "DPO-CDPO", "DPO-IPO"):
        for v, printed in CONVENTIONS_PRINTED:
            if v in PAIR_VARIANTS[F]:
                t = run.printed(F, v, DETECTOR_N, "loss", None, printed, label)
                at_group_params(run, t, label)
    label = "FORMULAS DPO-LOSS D = 2"
    t = run.printed("DPO-LOSS", "sigmoid", DELTA2, "loss", None, "0.598139", label + " (13.21)")
    at_group_params(run, t, label)
    t = run.printed("DPO-LOSS", "seed-003-prose", DELTA2, "loss", None, "0.683197",
                    label + " (003 prose, beta twice)")
    at_group_params(run, t, label)
    run.not_printed("DPO-LOSS", "sigmoid", DELTA2, "loss", None, "0.683197", label)
    run.not_printed("DPO-LOSS", "seed-003-prose", DELTA2, "loss", None, "0.598139", label)


def same_value(run, label, a, b):
    """Two golden outputs (formula, variant, inputs, output, index) must be the same value."""
    got = []
    for F, v, want, name, idx in (a, b):
        t = run.find(F, v, want)
        if t == "nofile":
            return
        g = run.output(t, name, idx) if isinstance(t, dict) else None
        if g is None:
            run.fail("%s: %s %s has no test with inputs %s and output %s" % (label, F, v, want,
                                                                              name))
            return
        got.append(("%s %s tcId %s %s%s" % (F, v, t["tcId"], name,
                                            "" if idx is None else "[%d]" % idx), g))
    (w1, g1), (w2, g2) = got
    if g1["value"] == g2["value"] and g1["hex"] == g2["hex"]:
        run.ok("%s: %s = %s" % (label, w1, w2))
    else:
        run.fail("%s: %s = %s, %s = %s" % (label, w1, g1["value"], w2, g2["value"]))


def dpo_cross_file(run):
    """The same convention on the same inputs in two golden files gives the same value: 13.22's
    weight form (DPO-GRAD) and the derivative of 13.21 (DPO-LOSS), and the cDPO, robust and IPO
    files against DPO-LOSS."""
    label = "13.22 = d(13.21)/dlogp"
    for vg, vl in (("seed-000", "sigmoid"), ("seed-003-prose", "seed-003-prose")):
        for name in ("grad_w", "grad_l"):
            for want in (DETECTOR, DELTA2):
                same_value(run, label, ("DPO-GRAD", vg, want, name, 0),
                           ("DPO-LOSS", vl, want, name, 0))
    label = "one convention, two files"
    for F in ("DPO-CDPO", "DPO-IPO"):
        for v in PAIR_VARIANTS[F]:
            for name in ("loss", "grad_w", "grad_l"):
                same_value(run, label, (F, v, DETECTOR_N, name, 0),
                           ("DPO-LOSS", v, DETECTOR_N, name, 0))


def dpo_exact_values(run):
    """Closed forms the goldens' comments name, to all their digits (beta, lambda the binary64
    of 0.1)."""
    b = mpf(0.1)                  # a binary64: exact at any precision
    eq = {"logp_w": [-7.25], "logp_l": [-9.5], "ref_w": [-7.25], "ref_l": [-9.5]}
    run.exact("DPO-LOSS", "sigmoid", eq, "loss", None, lambda: mp.log(2), "D = 0: log 2")
    run.exact("DPO-LOSS", "ipo-sum", eq, "loss", None, lambda: 1 / (4 * b ** 2),
              "D = 0: IPO 1/(4 beta^2)")
    run.exact("DPO-GRAD", "seed-000", eq, "weight", 0, lambda: mpf(1) / 2, "D = 0: weight 1/2")
    run.exact("DPO-SIMPO", "simpo-repo", {"logp_w": [-12.0], "logp_l": [-30.0]}, "losses", 0,
              lambda: softplus(mpf(0.5)), "SimPO equal per-token means: softplus(gamma)")
    run.exact("DPO-SIMPO", "trl", {"logp_w": [-12.0], "logp_l": [-30.0]}, "losses", 0,
              lambda: softplus(mpf(0.5)), "SimPO equal per-token means: softplus(gamma)")
    run.exact("DPO-ORPO", "trl", {"logp_w": [-5.0], "logp_l": [-15.0]}, "losses", 0,
              lambda: b * mp.log(2), "ORPO equal per-token means: lambda log 2")


DETECTORS = [dpo_detectors, dpo_cross_file, dpo_exact_values]


# ----------------------------------------------------------------------------------------------
# Self-tests (xcheck.py --selftest), at mp.prec 400
# ----------------------------------------------------------------------------------------------


def selftest_detectors(t):
    """CONVENTIONS.md "DPO family" and FORMULAS.md DPO-LOSS, to the printed digits."""
    p = {"beta": 0.1, "eps": 0.1}
    for v, printed in CONVENTIONS_PRINTED:
        got = eval_dpo_loss(v, p, DETECTOR_N, Ctx())["loss"]
        half_unit = mpf(5) * mpf(10) ** -(len(printed.split(".")[1]) + 1)
        t.true("CONVENTIONS %s %s: %s" % (v, printed, mp.nstr(got, 10)),
               abs(got - mpf(printed)) <= half_unit)
    for v, printed in (("sigmoid", "0.598139"), ("seed-003-prose", "0.683197")):
        got = eval_dpo_loss(v, p, dict(DELTA2, n_w=[2], n_l=[4]), Ctx())["loss"]
        t.true("FORMULAS D = 2 %s %s: %s" % (v, printed, mp.nstr(got, 10)),
               abs(got - mpf(printed)) <= mpf(5e-7))
    # the detector's values in closed form, with beta and eps the binary64 of 0.1
    b, e = mpf(0.1), mpf(0.1)
    z = b * mpf(1.5)
    t.near("sigmoid = softplus(-0.15)", eval_dpo_loss("sigmoid", p, DETECTOR_N, Ctx())["loss"],
           softplus(-z))
    t.near("hinge = 1 - 0.15", eval_dpo_loss("hinge", p, DETECTOR_N, Ctx())["loss"], 1 - z)
    t.near("ipo-sum = (1.5 - 5)^2", eval_dpo_loss("ipo-sum", p, DETECTOR_N, Ctx())["loss"],
           (mpf(1.5) - 1 / (2 * b)) ** 2)
    t.near("ipo-mean = (2/4 - 0.5/5 - 5)^2",
           eval_dpo_loss("ipo-mean", p, DETECTOR_N, Ctx())["loss"],
           (mpf(2) / 4 - mpf(0.5) / 5 - 1 / (2 * b)) ** 2)
    t.near("robust", eval_dpo_loss("robust", p, DETECTOR_N, Ctx())["loss"],
           ((1 - e) * softplus(-z) - e * softplus(z)) / (1 - 2 * e))


def selftest_pair_losses(t):
    """Every pairwise convention: the gradients against central differences of the batch loss;
    the conventions' identities."""
    p = {"beta": 0.1, "eps": 0.1}
    batch = {"logp_w": [-10.0, -3.5, -20.0], "logp_l": [-11.0, -4.0, -18.0],
             "ref_w": [-12.0, -3.0, -19.0], "ref_l": [-11.5, -4.25, -18.5],
             "n_w": [4, 2, 9], "n_l": [5, 3, 7]}
    for v in PAIR_VARIANTS["DPO-LOSS"]:
        got = eval_dpo_loss(v, p, batch, Ctx())
        for i in range(3):
            for name, side in (("grad_w", "logp_w"), ("grad_l", "logp_l")):
                t.near("%s %s[%d] = d loss/d %s" % (v, name, i, side), got[name][i],
                       central(eval_dpo_loss, v, p, batch, side, i), mpf(10) ** -40)
        # the reference is held fixed: d loss/d ref_w = -grad_w
        t.near("%s d loss/d ref_w[1] = -grad_w[1]" % v,
               central(eval_dpo_loss, v, p, batch, "ref_w", 1), -got["grad_w"][1],
               mpf(10) ** -40)
    eq = dict(batch, logp_w=batch["ref_w"], logp_l=batch["ref_l"])
    t.near("D = 0: sigmoid log 2", eval_dpo_loss("sigmoid", p, eq, Ctx())["loss"], mp.log(2))
    t.near("D = 0: ipo-sum 1/(4 beta^2)", eval_dpo_loss("ipo-sum", p, eq, Ctx())["loss"],
           1 / (4 * mpf(0.1) ** 2))
    for v in ("cdpo", "robust"):
        a = eval_dpo_loss(v, {"beta": 0.1, "eps": 0.0}, batch, Ctx())["losses"]
        s = eval_dpo_loss("sigmoid", p, batch, Ctx())["losses"]
        t.true("%s with eps 0 is sigmoid" % v, all(x == y for x, y in zip(a, s)))
    # cDPO at eps 1/2 is even in D: swap chosen and rejected
    half = {"beta": 0.1, "eps": 0.5}
    sw = dict(batch, logp_w=batch["logp_l"], logp_l=batch["logp_w"],
              ref_w=batch["ref_l"], ref_l=batch["ref_w"])
    t.near("cdpo eps 1/2 even in D", eval_dpo_loss("cdpo", half, batch, Ctx())["loss"],
           eval_dpo_loss("cdpo", half, sw, Ctx())["loss"])
    # beta applied twice by seed 003's prose: its loss at beta is sigmoid's at the exact beta^2
    t.near("seed-003-prose at beta = sigmoid at beta^2",
           eval_dpo_loss("seed-003-prose", p, batch, Ctx())["loss"],
           eval_dpo_loss("sigmoid", {"beta": Fraction(0.1) ** 2}, batch, Ctx())["loss"])
    # the hinge at its kink: beta D = 1 exactly, loss 0, gradient 0 (torch.relu'(0) = 0)
    k = {"logp_w": [-1.0], "logp_l": [-5.0], "ref_w": [-3.0], "ref_l": [-5.0], "beta": 0.5}
    ctx = Ctx()
    kink = eval_dpo_loss("hinge", {}, k, ctx)
    t.true("hinge kink: loss 0, gradient 0, reading recorded",
           kink["loss"] == 0 and kink["grad_w"][0] == 0 and len(ctx.ambiguous) == 1)
    # ipo-mean at its minimum: D_tok = 1 = 1/(2 beta) exactly
    m = eval_dpo_loss("ipo-mean", {}, dict(k, n_w=[2], n_l=[4]), Ctx())
    t.true("ipo-mean minimum: loss and gradient exactly 0", m["loss"] == 0 and
           m["grad_w"][0] == 0 and m["grad_l"][0] == 0)
    # DPO-GRAD (13.22, from the rewards) against the derivative of DPO-LOSS (13.21)
    for vg, vl in (("seed-000", "sigmoid"), ("seed-003-prose", "seed-003-prose")):
        g = eval_dpo_grad(vg, p, batch, Ctx())
        for i in range(3):
            t.near("%s grad_w[%d] = d(13.21)/dlogp_w" % (vg, i), g["grad_w"][i],
                   central(eval_dpo_loss, vl, p, batch, "logp_w", i), mpf(10) ** -40)
    # saturated: beta D = 1000 gives e^-1000, not 0
    sat = {"logp_w": [-1.0], "logp_l": [-10001.0], "ref_w": [-1.0], "ref_l": [-1.0]}
    z = mpf(0.1) * 10000
    t.near("sigmoid beta D = 1000: e^-1000", eval_dpo_loss("sigmoid", p, sat, Ctx())["loss"],
           mp.log1p(mp.exp(-z)))
    t.near("weight beta D = 1000", eval_dpo_grad("seed-000", p, sat, Ctx())["weight"][0],
           1 / (1 + mp.exp(z)))
    # an empty completion counts as length 1 (TRL's mask.sum().clamp(min=1))
    good = dict(DETECTOR_N)
    for v, key in (("ipo-mean", "n_w"), ("sigmoid-norm", "n_l")):
        zero = eval_dpo_loss(v, p, dict(good, **{key: [0]}), Ctx())
        one = eval_dpo_loss(v, p, dict(good, **{key: [1]}), Ctx())
        t.true("%s %s = 0 is read as 1" % (v, key), zero["loss"] == one["loss"])
    # refusals
    cases = [("sigmoid", p, dict(good, logp_w=[float("nan")]), "ENAN"),
             ("sigmoid", p, dict(good, ref_l=[float("-inf")]), "ENAN"),
             ("sigmoid", {"beta": 0.0}, good, "EDOM"),
             ("sigmoid", {"beta": -0.1}, good, "EDOM"),
             ("sigmoid", p, {k: [] for k in good}, "EINVAL"),
             ("sigmoid", p, dict(good, logp_w=[-10.0, -3.0]), "EINVAL"),
             ("ipo-mean", p, dict(good, n_w=[-1]), "EDOM"),
             ("sigmoid-norm", p, dict(good, n_l=[-1]), "EDOM"),
             ("sigmoid", p, dict(good, n_w=[0]), None),
             ("robust", {"beta": 0.1, "eps": 0.5}, good, "EDOM"),
             ("cdpo", {"beta": 0.1, "eps": 0.5}, good, None),
             ("cdpo", {"beta": 0.1, "eps": 1.5}, good, "EDOM"),
             ("cdpo", {"beta": 0.1, "eps": -0.1}, good, "EDOM"),
             ("cdpo", {"beta": 0.1, "eps": float("nan")}, good, "ENAN")]
    for v, pp, ins, code in cases:
        got = refused(eval_dpo_loss, v, pp, ins)
        t.true("%s %s -> %s (got %s)" % (v, {k: ins[k] for k in ins if ins[k] != good.get(k)}
                                         or pp, code, got), got == code)


def selftest_kto(t):
    """KTO: z0 clamped at 0, 1 - sigma(x) exactly sigma(-x), gradients against central
    differences with z0 detached."""
    p = {"beta": 0.1, "w_d": 1.0, "w_u": 1.0}
    ins = {"logp": [-10.0, -12.0, -8.0, -15.0], "ref": [-11.0, -11.0, -9.0, -14.0],
           "desirable": [1, 0, 1, 0], "kl_logp": [-10.0, -9.0, -10.0, -12.0],
           "kl_ref": [-12.0, -10.0, -11.0, -11.0]}
    got = eval_dpo_kto("trl", p, ins, Ctx())
    t.near("z0 = mean KL 0.75", got["z0"], mpf(0.75))
    x = mpf(0.1) * (1 - mpf(0.75))
    t.near("desirable loss sigma(-beta (r - z0))", got["losses"][0], 1 / (1 + mp.exp(x)))
    x = mpf(0.1) * (mpf(0.75) + 1)
    t.near("undesirable loss sigma(-beta (z0 - r))", got["losses"][1], 1 / (1 + mp.exp(x)))
    for i in range(4):
        t.near("KTO grad[%d] = d loss/d logp (z0 held)" % i, got["grad"][i],
               central(eval_dpo_kto, "trl", p, ins, "logp", i), mpf(10) ** -40)
    neg = dict(ins, kl_logp=[-13.0, -9.0, -10.0, -12.5])
    t.true("mean KL -0.125: z0 clamped to 0", eval_dpo_kto("trl", p, neg, Ctx())["z0"] == 0)
    far = {"logp": [-1.0], "ref": [-4001.0], "desirable": [1], "kl_logp": [-1.0],
           "kl_ref": [-1.0]}
    t.near("r - z0 = 4000: loss sigma(-400), not 0",
           eval_dpo_kto("trl", p, far, Ctx())["loss"], 1 / (1 + mp.exp(mpf(0.1) * 4000)))
    for what, pp, i2, code in (("beta 0", dict(p, beta=0.0), ins, "EDOM"),
                               ("w_u -1", dict(p, w_u=-1.0), ins, "EDOM"),
                               ("label 2", p, dict(ins, desirable=[1, 2, 1, 0]), "EDOM"),
                               ("no KL pairs", p, dict(ins, kl_logp=[], kl_ref=[]), "EINVAL"),
                               ("one label", p, dict(ins, desirable=[1]), "EINVAL"),
                               ("-inf in the KL", p, dict(ins, kl_logp=[float("-inf")] * 4),
                                "ENAN")):
        got = refused(eval_dpo_kto, "trl", pp, i2)
        t.true("KTO %s -> %s (got %s)" % (what, code, got), got == code)


def selftest_simpo(t):
    """SimPO: equal per-token means leave softplus(gamma); gradients (the NLL term included)
    against central differences; the two conventions' margins agree when gamma = beta ratio."""
    repo = {"beta": 2.0, "gamma_beta_ratio": 0.25, "sft_weight": 0.5}
    trl = {"beta": 2.0, "simpo_gamma": 0.5, "cpo_alpha": 0.5}
    ins = {"logp_w": [-8.0, -20.0, -5.0], "logp_l": [-15.0, -18.0, -9.0], "n_w": [4, 10, 2],
           "n_l": [5, 6, 3]}
    a = eval_dpo_simpo("simpo-repo", repo, ins, Ctx())
    b = eval_dpo_simpo("trl", trl, ins, Ctx())
    t.near("repo (ratio 0.25, beta 2) = trl (gamma 0.5)", a["loss"], b["loss"])
    t.near("nll token mean 33/16", a["nll"], mpf(33) / 16)
    for v, pp in (("simpo-repo", repo), ("trl", trl)):
        got = eval_dpo_simpo(v, pp, ins, Ctx())
        for i in range(3):
            for name, side in (("grad_w", "logp_w"), ("grad_l", "logp_l")):
                t.near("SimPO %s %s[%d]" % (v, name, i), got[name][i],
                       central(eval_dpo_simpo, v, pp, ins, side, i), mpf(10) ** -40)
    one = {"logp_w": [-12.0], "logp_l": [-30.0], "n_w": [4], "n_l": [10]}
    t.near("equal per-token means: softplus(gamma)",
           eval_dpo_simpo("simpo-repo", repo, one, Ctx())["losses"][0], softplus(mpf(0.5)))
    for what, v, pp, i2, code in (("beta 0", "simpo-repo", dict(repo, beta=0.0), one, "EDOM"),
                                  ("cpo_alpha -1", "trl", dict(trl, cpo_alpha=-1.0), one, "EDOM"),
                                  ("NaN ratio", "simpo-repo",
                                   dict(repo, gamma_beta_ratio=float("nan")), one, "ENAN"),
                                  ("n_w 0", "simpo-repo", repo, dict(one, n_w=[0]), "EDOM"),
                                  ("two counts", "simpo-repo", repo, dict(one, n_w=[4, 4]),
                                   "EINVAL")):
        got = refused(eval_dpo_simpo, v, pp, i2)
        t.true("SimPO %s %s -> %s (got %s)" % (v, what, code, got), got == code)


def selftest_orpo(t):
    """ORPO: log(1 - e^a) on both branches; gradients against central differences, and at a
    certain chosen completion against the one-sided difference."""
    with mp.workprec(2000):
        for a in (mpf(-1e-10), mpf(-0.5), mpf(-0.7), mpf(-3), mpf(-800)):
            want = mp.log(1 - mp.exp(a))
            with mp.workprec(400):
                got = log1mexp(a)
            t.near("log1mexp(%s)" % mp.nstr(a, 3), got, want, mpf(10) ** -110)
    p = {"lambda": 0.1}
    ins = {"logp_w": [-2.0, -30.0, -0.5], "logp_l": [-4.0, -25.0, -3.0], "n_w": [2, 10, 1],
           "n_l": [4, 5, 3]}
    for v in ("trl", "seq-mean"):
        got = eval_dpo_orpo(v, p, ins, Ctx())
        for i in range(3):
            for name, side in (("grad_w", "logp_w"), ("grad_l", "logp_l")):
                t.near("ORPO %s %s[%d]" % (v, name, i), got[name][i],
                       central(eval_dpo_orpo, v, p, ins, side, i), mpf(10) ** -40)
    t.near("ORPO trl nll token mean 32.5/13", eval_dpo_orpo("trl", p, ins, Ctx())["nll"],
           mpf(32.5) / 13)
    t.near("ORPO seq-mean nll (1 + 3 + 0.5)/3", eval_dpo_orpo("seq-mean", p, ins, Ctx())["nll"],
           mpf(4.5) / 3)
    near0 = {"logp_w": [-1e-10], "logp_l": [-3.0], "n_w": [1], "n_l": [1]}
    g = eval_dpo_orpo("trl", p, near0, Ctx())
    t.near("ORPO log_odds at a_w = -1e-10", g["log_odds"][0],
           (mpf(-1e-10) - mp.log(-mp.expm1(mpf(-1e-10)))) - (-3 - mp.log(1 - mp.exp(-3))))
    t.near("ORPO grad_w at a_w = -1e-10", g["grad_w"][0],
           central(eval_dpo_orpo, "trl", p, near0, "logp_w", 0), mpf(10) ** -30)
    # a certain chosen completion: x = +inf, loss term 0, d/dlogp_w the one-sided limit
    cert = {"logp_w": [0.0], "logp_l": [-2.0], "n_w": [3], "n_l": [2]}
    ctx = Ctx()
    c = eval_dpo_orpo("trl", p, cert, ctx)
    t.true("certain chosen: log_odds +inf, losses 0, grad_l 0, reading recorded",
           mp.isinf(c["log_odds"][0]) and c["losses"][0] == 0 and c["grad_l"][0] == 0
           and len(ctx.ambiguous) == 1)
    h = Fraction(1, 2 ** 160)
    with mp.workprec(800):
        f0 = eval_dpo_orpo("trl", p, cert, Ctx())["loss"]
        f1 = eval_dpo_orpo("trl", p, bumped(cert, "logp_w", 0, -h), Ctx())["loss"]
        one_sided = (f0 - f1) / M(h)
    t.near("certain chosen: grad_w = one-sided difference", c["grad_w"][0], one_sided,
           mpf(10) ** -30)
    t.near("certain chosen: grad_w = -1/3 - lambda e^{lo(-1)}/3", c["grad_w"][0],
           -mpf(1) / 3 - mpf(0.1) * mp.exp(-1 - mp.log(1 - mp.exp(-1))) / 3)
    for what, pp, i2, code in (("certain rejected", p, dict(cert, logp_w=[-6.0], logp_l=[0.0]),
                                "EDOM"),
                               ("logp_w 0.5", p, dict(cert, logp_w=[0.5]), "EDOM"),
                               ("logp_w -inf", p, dict(cert, logp_w=[float("-inf")]), "ENAN"),
                               ("lambda -0.1", {"lambda": -0.1}, dict(cert, logp_w=[-6.0]),
                                "EDOM"),
                               ("n_l 0", p, dict(cert, n_l=[0]), "EDOM"),
                               ("two chosen", p, dict(cert, logp_w=[-6.0, -1.0]), "EINVAL")):
        got = refused(eval_dpo_orpo, "trl", pp, i2)
        t.true("ORPO %s -> %s (got %s)" % (what, code, got), got == code)


def selftest_displace(t):
    """DPO-DISPLACE: the gradient of log pi against central differences; a bigram model and the
    same model written as a tabular one start alike; on the pair y_w = (1, 1, 0), y_l = (1, 1, 1)
    (cut at T = 3) the two gradients differ only in row 1, by e_0 - e_1, so the margin is 2c for
    theta_1 = theta_1(0) + c (e_0 - e_1), and descent is the scalar recursion
    c <- c - lr dL/dm: dpo m <- m + 2 lr beta sigma(-beta m); ipo m <- m - 4 lr (m - 1/(2 beta))."""
    rows = [1.37, -2.26, -1.4, 1.63, -1.51, -0.62, -0.93, -1.71, -0.19, -0.34, -1.09, -0.13]
    ins = {"V": 3, "eos": 2, "T": 3, "logits": rows, "y_w": [1, 1, 0], "y_l": [1, 1, 1],
           "beta": 1.0, "lr": 0.5, "steps": 0}
    theta = [[mpf(v) for v in rows[3 * r:3 * r + 3]] for r in range(4)]
    path = [(row_of("bigram", 3, 2, [1, 1, 0][:k]), [1, 1, 0][k]) for k in range(3)]
    _, g = logp_and_grad(theta, path)
    h = mpf(2) ** -100
    for r, k in ((3, 1), (1, 0), (1, 1), (1, 2)):
        with mp.workprec(600):
            up = [list(x) for x in theta]
            dn = [list(x) for x in theta]
            up[r][k] += h
            dn[r][k] -= h
            fd = (logp_and_grad(up, path)[0] - logp_and_grad(dn, path)[0]) / (2 * h)
        t.near("d log pi(y_w)/d theta[%d][%d]" % (r, k), g.get(r, [mpf(0)] * 3)[k], fd,
               mpf(10) ** -40)
    # the bigram model as a tabular one: prefixes (), (0,), (1,), (0,0), (0,1), (1,0), (1,1)
    tab = []
    for prefix in ((), (0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)):
        r = prefix[-1] if prefix else 3
        tab += rows[3 * r:3 * r + 3]
    a = eval_dpo_displace("dpo", {}, ins, Ctx())
    b = eval_dpo_displace("dpo", {}, dict(ins, logits=tab), Ctx())
    t.near("tabular = bigram at the start: log pi(y_w)", b["logp_w_start"], a["logp_w_start"])
    t.near("tabular = bigram at the start: log pi(y_l)", b["logp_l_start"], a["logp_l_start"])
    for v, lr, n in (("dpo", 0.5, 200), ("dpo", 0.25, 7), ("ipo", 0.125, 9), ("ipo", 0.5, 3),
                     ("ipo", 0.5, 200)):
        m = mpf(0)
        for _ in range(n):
            m = m + 2 * lr * sigmoid(-m) if v == "dpo" else m - 4 * lr * (m - mpf(1) / 2)
        got = eval_dpo_displace(v, {}, dict(ins, lr=lr, steps=n), Ctx())
        t.near("%s lr %s, %d steps: margin = scalar recursion" % (v, lr, n), got["margin"] + 1,
               m + 1)
    t.near("ipo lr 1/8: margin 1/2 (1 - 2^-9)",
           eval_dpo_displace("ipo", {}, dict(ins, lr=0.125, steps=9), Ctx())["margin"],
           (1 - mpf(2) ** -9) / 2)
    d = eval_dpo_displace("dpo", {}, dict(ins, steps=200), Ctx())
    t.true("dpo: both log-probabilities fall while the margin grows (displacement)",
           d["logp_w"] < d["logp_w_start"] and d["logp_l"] < d["logp_l_start"] and
           d["margin"] > 5)
    for what, i2, code in (("beta 0", dict(ins, beta=0.0), "EDOM"),
                           ("EOS inside y_l", dict(ins, y_l=[2, 1]), "EDOM"),
                           ("short y_w without EOS", dict(ins, y_w=[0, 1]), "EDOM"),
                           ("y_w longer than T", dict(ins, y_w=[0, 1, 0, 2]), "EDOM"),
                           ("token 3 of V = 3", dict(ins, y_w=[3, 2]), "EDOM"),
                           ("11 logits", dict(ins, logits=rows[:11]), "EINVAL"),
                           ("NaN logit", dict(ins, logits=[float("nan")] + rows[1:]), "ENAN")):
        got = refused(eval_dpo_displace, "dpo", {}, i2)
        t.true("DPO-DISPLACE %s -> %s (got %s)" % (what, code, got), got == code)


SELFTESTS = [selftest_detectors, selftest_pair_losses, selftest_kto, selftest_simpo,
             selftest_orpo, selftest_displace]
