"""rlref.batch: the binary64 batch kernels of rlref/batch.h on NumPy arrays, in place and
without copies (requires NumPy; torch CPU tensors of float64 are read through .numpy(), which
shares their memory).

    import numpy as np, rlref.batch as rb
    adv = rb.grpo_advantages(rewards, group_size=8, convention="trl")
    k1, k2, k3, sums = rb.kl(logp, ref_logp)
    out = rb.dpo_loss(logp_w, logp_l, ref_w, ref_l, beta=0.1)        # out["loss"], ...
    out = rb.dpo_sigmoid_fast(logp_w, logp_l, ref_w, ref_l, beta=0.1)  # within a few ulp
    out = rb.kto_loss(logp, ref, desirable, kl_logp, kl_ref, convention="trl")
    out = rb.simpo_loss(logp_w, logp_l, n_w, n_l, convention="simpo-repo", beta=2.0)
    out = rb.orpo_loss(logp_w, logp_l, n_w, n_l, convention="trl", lambda_=0.1)
    adv, ret = rb.gae(rewards, values, mask, gamma=1.0, lam=0.95, rule="verl")
    out = rb.ppo_clip(logp, old_logp, adv, eps_low=0.2, eps_high=0.2, clamp_log_ratio=True)

Each input must be a C-contiguous float64 array (an int64 one for counts, a uint8 or bool one
for masks) on the CPU: anything else is refused with TypeError or ValueError saying what is
expected, never copied or converted behind the caller's back.  A status of the library is
raised as rlref.batch.KernelError (its .status is the name: EINVAL, ENAN, EDOM, ERANGE).
"""

import ctypes

import numpy as np

from rlref._eval import RlrefError, _lib, registry

_D = ctypes.POINTER(ctypes.c_double)
_L = ctypes.POINTER(ctypes.c_long)
_U8 = ctypes.POINTER(ctypes.c_ubyte)
_GAE_RULES = {"seed": 0, "trl": 1, "verl": 2, "openrlhf": 3}


class KernelError(RlrefError, ValueError):
    """A batch kernel's refusal: status is its name (EINVAL, ENAN, EDOM, ERANGE)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class _ClipConvention(ctypes.Structure):
    _fields_ = [("clamp_log_ratio", ctypes.c_int), ("dual_clip", ctypes.c_int)]


def _array(x, name, dtype=np.float64):
    """x as the NumPy array the kernel reads, sharing its memory: a NumPy array, or a torch CPU
    tensor; refused (TypeError, ValueError) when it is not C-contiguous, not of dtype or not
    on the CPU."""
    if type(x).__module__.startswith("torch"):
        dev = str(getattr(x, "device", "cpu"))
        if dev != "cpu":
            raise ValueError("%s is on device %s: rlref's kernels read CPU memory (.cpu())"
                             % (name, dev))
        x = x.detach().numpy()
    if not isinstance(x, np.ndarray):
        raise TypeError("%s: a NumPy array or a torch tensor of %s, not %s"
                        % (name, np.dtype(dtype).name, type(x).__name__))
    if x.dtype != np.dtype(dtype) and not (dtype == np.uint8 and x.dtype == np.bool_):
        raise TypeError("%s has dtype %s: this kernel takes %s (convert it yourself, "
                        "x.astype(np.%s), if that is what you mean)"
                        % (name, x.dtype, np.dtype(dtype).name, np.dtype(dtype).name))
    if not x.flags["C_CONTIGUOUS"]:
        raise ValueError("%s is not contiguous (strides %s): np.ascontiguousarray(%s)"
                         % (name, x.strides, name))
    return x


def _ptr(x, ctype=_D):
    return None if x is None else x.ctypes.data_as(ctype)


def _out(like, out, name):
    if out is None:
        return np.empty_like(like, dtype=np.float64)
    out = _array(out, name)
    if out.shape != like.shape:
        raise ValueError("%s has shape %s, the input %s" % (name, out.shape, like.shape))
    return out


def _check(status, what):
    if status:
        lib = _lib()
        lib.rlref_status_name.restype = ctypes.c_char_p
        lib.rlref_last_error.restype = ctypes.c_char_p
        name = lib.rlref_status_name(status).decode()
        why = lib.rlref_last_error().decode()
        raise KernelError("%s: %s%s" % (what, name, ": " + why if why else ""), name)


def _same(n, **arrays):
    for k, a in arrays.items():
        if a is not None and a.size != n:
            raise ValueError("%s holds %d values, not %d" % (k, a.size, n))


def grpo_advantages(rewards, group_size, convention="trl", out=None):
    """GRPO-ADV of rewards (N = a multiple of group_size) in groups of group_size under a
    convention of the golden's variants (trl, verl, openrlhf, seed-000, ...): the advantages,
    in out when given (out may be rewards)."""
    lib = _lib()
    r = _array(rewards, "rewards")
    lib.rlref_adv_convention_find.restype = ctypes.c_void_p
    c = lib.rlref_adv_convention_find(convention.encode())
    if not c:
        names = [v["name"] for v in registry()["GRPO-ADV"]["variants"]]
        raise ValueError("no advantage convention %r; there are: %s"
                         % (convention, ", ".join(names)))
    a = _out(r, out, "out")
    st = lib.rlref_grpo_adv_batch(_ptr(a), _ptr(r), ctypes.c_size_t(r.size),
                                  ctypes.c_size_t(int(group_size)), ctypes.c_void_p(c), None)
    _check(st, "GRPO-ADV [%s]" % convention)
    return a


def kl(logp, ref_logp=None):
    """KL-K1, KL-K2, KL-K3 per token at l = logp - ref_logp (ref_logp None: logp holds l):
    (k1, k2, k3, sums), sums the three sums."""
    lib = _lib()
    lp = _array(logp, "logp")
    rf = None if ref_logp is None else _array(ref_logp, "ref_logp")
    _same(lp.size, ref_logp=rf)
    k1, k2, k3, sums = np.empty(lp.shape), np.empty(lp.shape), np.empty(lp.shape), np.empty(3)
    st = lib.rlref_kl_batch(_ptr(k1), _ptr(k2), _ptr(k3), _ptr(sums), _ptr(lp), _ptr(rf),
                            ctypes.c_size_t(lp.size))
    _check(st, "KL-K1/K2/K3")
    return k1, k2, k3, sums


def dpo_loss(logp_w, logp_l, ref_w, ref_l, beta=None, convention="sigmoid", eps=None,
             n_w=None, n_l=None):
    """DPO-LOSS over B pairs under a convention of its golden's variants (sigmoid, hinge,
    cdpo, ipo-mean, ...; n_w and n_l, int64 token counts, for the per-token ones); beta and
    eps (cDPO's label smoothing) default to the variant's: a dict of loss (the batch mean),
    losses, grad_w, grad_l, reward_w, reward_l."""
    lib = _lib()
    w, l_, rw, rl = (_array(x, n) for x, n in ((logp_w, "logp_w"), (logp_l, "logp_l"),
                                                (ref_w, "ref_w"), (ref_l, "ref_l")))
    nw = None if n_w is None else _array(n_w, "n_w", np.int64)
    nl = None if n_l is None else _array(n_l, "n_l", np.int64)
    _same(w.size, logp_l=l_, ref_w=rw, ref_l=rl, n_w=nw, n_l=nl)
    lib.rlref_variant_setting.restype = ctypes.c_void_p
    c = lib.rlref_variant_setting(b"DPO-LOSS", convention.encode())
    if not c:
        names = [v["name"] for v in registry()["DPO-LOSS"]["variants"]]
        raise ValueError("no DPO-LOSS convention %r; there are: %s"
                         % (convention, ", ".join(names)))
    params = next(v for v in registry()["DPO-LOSS"]["variants"]
                  if v["name"] == convention)["params"]
    beta = params.get("beta", 0.1) if beta is None else beta
    eps = params.get("eps", 0.0) if eps is None else eps
    loss = ctypes.c_double(0)
    out = {k: np.empty(w.shape) for k in ("losses", "grad_w", "grad_l", "reward_w",
                                          "reward_l")}
    st = lib.rlref_dpo_loss_batch(ctypes.byref(loss), _ptr(out["losses"]), _ptr(out["grad_w"]),
                                  _ptr(out["grad_l"]), _ptr(out["reward_w"]),
                                  _ptr(out["reward_l"]), _ptr(w), _ptr(l_), _ptr(rw), _ptr(rl),
                                  _ptr(nw, _L), _ptr(nl, _L), ctypes.c_size_t(w.size),
                                  ctypes.c_void_p(c), ctypes.c_double(beta),
                                  ctypes.c_double(eps))
    _check(st, "DPO-LOSS [%s]" % convention)
    out["loss"] = loss.value
    return out


def dpo_sigmoid_fast(logp_w, logp_l, ref_w, ref_l, beta=0.1):
    """DPO-LOSS sigmoid (beta once, whole-sequence log-probabilities) on the vector path of
    rlref_dpo_sigmoid_batch_simd: each pair's loss within 6 ulp and each gradient within 5
    ulp of the exact value (SLEEF's exp on AVX2; elsewhere the bit-exact kernel): a dict of
    loss (the batch mean, within 8 ulp + (B/4 + 12) u mean(l) of the reference's), grad_w
    and grad_l.  dpo_loss is the bit-exact one."""
    lib = _lib()
    w, l_, rw, rl = (_array(x, n) for x, n in ((logp_w, "logp_w"), (logp_l, "logp_l"),
                                                (ref_w, "ref_w"), (ref_l, "ref_l")))
    _same(w.size, logp_l=l_, ref_w=rw, ref_l=rl)
    loss = ctypes.c_double(0)
    gw, gl = np.empty(w.shape), np.empty(w.shape)
    st = lib.rlref_dpo_sigmoid_batch_simd(ctypes.byref(loss), _ptr(gw), _ptr(gl), _ptr(w),
                                          _ptr(l_), _ptr(rw), _ptr(rl), ctypes.c_size_t(w.size),
                                          ctypes.c_double(beta))
    _check(st, "DPO-LOSS [sigmoid, vector path]")
    return {"loss": loss.value, "grad_w": gw, "grad_l": gl}


def _variant_params(formula, convention, given, batchable=None):
    """The parameters of variant convention of formula: its own values, overridden by given
    (names as the registry's, a trailing _ allowed: lambda_); ValueError naming the variants or
    the parameters there are."""
    variants = {v["name"]: v for v in registry()[formula]["variants"]}
    if convention not in variants or (batchable is not None and convention not in batchable):
        names = [n for n in variants if batchable is None or n in batchable]
        raise ValueError("no %s batch convention %r; there are: %s%s" % (
            formula, convention, ", ".join(names),
            "" if convention not in variants else
            " (%s is computed by rlref.eval only)" % convention))
    params = dict(variants[convention]["params"])
    for k, v in given.items():
        name = k.rstrip("_")
        if name not in params:
            raise TypeError("%s [%s] has no parameter %r; it has: %s"
                            % (formula, convention, k, ", ".join(params)))
        if v is not None:
            params[name] = float(v)
    return params


def kto_loss(logp, ref, desirable, kl_logp, kl_ref, convention="trl", **params):
    """DPO-KTO over B completions (desirable: int64 labels 1 or 0) and M mismatched pairs
    kl_logp, kl_ref, under convention trl or openrlhf (beta, w_d, w_u default to the
    variant's): a dict of loss, losses, grad, reward and z0."""
    lib = _lib()
    p = _variant_params("DPO-KTO", convention, params)
    lp, rf = _array(logp, "logp"), _array(ref, "ref")
    d = _array(desirable, "desirable", np.int64)
    kl_, kr = _array(kl_logp, "kl_logp"), _array(kl_ref, "kl_ref")
    _same(lp.size, ref=rf, desirable=d)
    _same(kl_.size, kl_ref=kr)
    loss, z0 = ctypes.c_double(0), ctypes.c_double(0)
    out = {k: np.empty(lp.shape) for k in ("losses", "grad", "reward")}
    st = lib.rlref_kto_loss_batch(ctypes.byref(loss), _ptr(out["losses"]), _ptr(out["grad"]),
                                  _ptr(out["reward"]), ctypes.byref(z0), _ptr(lp), _ptr(rf),
                                  _ptr(d, _L), ctypes.c_size_t(lp.size), _ptr(kl_), _ptr(kr),
                                  ctypes.c_size_t(kl_.size), ctypes.c_double(p["beta"]),
                                  ctypes.c_double(p["w_d"]), ctypes.c_double(p["w_u"]))
    _check(st, "DPO-KTO [%s]" % convention)
    out["loss"], out["z0"] = loss.value, z0.value
    return out


def simpo_loss(logp_w, logp_l, n_w, n_l, convention="trl", **params):
    """DPO-SIMPO over B pairs (n_w, n_l int64 token counts) under convention trl, trl-no-nll
    (TRL's nll placeholder 0 at cpo_alpha = 0) or simpo-repo, their parameters named as the
    variants name them (beta with simpo_gamma and cpo_alpha for TRL's, gamma_beta_ratio and
    sft_weight for the SimPO repository's; each defaults to the variant's): a dict of loss,
    losses, grad_w, grad_l, reward_w, reward_l and nll."""
    lib = _lib()
    p = _variant_params("DPO-SIMPO", convention, params)
    if "simpo_gamma" in p:
        gamma, alpha = p["simpo_gamma"], p["cpo_alpha"]
    else:
        gamma, alpha = p["beta"] * p["gamma_beta_ratio"], p["sft_weight"]
        if not np.isfinite(gamma) and np.isfinite(p["beta"]) and np.isfinite(p["gamma_beta_ratio"]):
            raise KernelError("DPO-SIMPO [%s]: ERANGE: gamma = beta gamma_beta_ratio lies "
                              "beyond the binary64 range" % convention, "ERANGE")
    lib.rlref_variant_setting.restype = ctypes.c_void_p
    flag = lib.rlref_variant_setting(b"DPO-SIMPO", convention.encode())
    no_nll = bool(flag) and ctypes.cast(flag, ctypes.POINTER(ctypes.c_int))[0] != 0 \
        and alpha == 0
    w, l_ = _array(logp_w, "logp_w"), _array(logp_l, "logp_l")
    nw, nl = _array(n_w, "n_w", np.int64), _array(n_l, "n_l", np.int64)
    _same(w.size, logp_l=l_, n_w=nw, n_l=nl)
    loss, nll = ctypes.c_double(0), ctypes.c_double(0)
    out = {k: np.empty(w.shape) for k in ("losses", "grad_w", "grad_l", "reward_w",
                                          "reward_l")}
    st = lib.rlref_simpo_loss_batch(ctypes.byref(loss), _ptr(out["losses"]),
                                    _ptr(out["grad_w"]), _ptr(out["grad_l"]),
                                    _ptr(out["reward_w"]), _ptr(out["reward_l"]),
                                    ctypes.byref(nll), _ptr(w), _ptr(l_), _ptr(nw, _L),
                                    _ptr(nl, _L), ctypes.c_size_t(w.size),
                                    ctypes.c_double(p["beta"]), ctypes.c_double(gamma),
                                    ctypes.c_double(alpha))
    _check(st, "DPO-SIMPO [%s]" % convention)
    out["loss"], out["nll"] = loss.value, 0.0 if no_nll else nll.value
    return out


def orpo_loss(logp_w, logp_l, n_w, n_l, convention="trl", **params):
    """DPO-ORPO over B pairs (n_w, n_l int64 token counts) under convention trl (the token-mean
    NLL) or seq-mean; lambda_ defaults to the variant's (trl-float32, TRL's binary32 steps, is
    rlref.eval's only): a dict of loss, losses, grad_w, grad_l, log_odds, nll, reward_w and
    reward_l."""
    lib = _lib()
    p = _variant_params("DPO-ORPO", convention, params, batchable=("trl", "seq-mean"))
    lib.rlref_variant_setting.restype = ctypes.c_void_p
    mean = ctypes.cast(lib.rlref_variant_setting(b"DPO-ORPO", convention.encode()),
                       ctypes.POINTER(ctypes.c_int))[0]
    w, l_ = _array(logp_w, "logp_w"), _array(logp_l, "logp_l")
    nw, nl = _array(n_w, "n_w", np.int64), _array(n_l, "n_l", np.int64)
    _same(w.size, logp_l=l_, n_w=nw, n_l=nl)
    loss, nll = ctypes.c_double(0), ctypes.c_double(0)
    out = {k: np.empty(w.shape) for k in ("losses", "grad_w", "grad_l", "log_odds",
                                          "reward_w", "reward_l")}
    st = lib.rlref_orpo_loss_batch(ctypes.byref(loss), _ptr(out["losses"]), _ptr(out["grad_w"]),
                                   _ptr(out["grad_l"]), _ptr(out["log_odds"]),
                                   ctypes.byref(nll), _ptr(out["reward_w"]),
                                   _ptr(out["reward_l"]), _ptr(w), _ptr(l_), _ptr(nw, _L),
                                   _ptr(nl, _L), ctypes.c_size_t(w.size), ctypes.c_int(mean),
                                   ctypes.c_double(p["lambda"]))
    _check(st, "DPO-ORPO [%s]" % convention)
    out["loss"], out["nll"] = loss.value, nll.value
    return out


def gae(rewards, values, mask, gamma, lam, rule="verl", score=None):
    """MDP-GAE over B rows of W positions (2-D float64 arrays; mask uint8 or bool) under rule
    (seed, trl, verl, openrlhf; score one per row where the rule reads it): (adv, ret)."""
    lib = _lib()
    r, v = _array(rewards, "rewards"), _array(values, "values")
    m = _array(mask, "mask", np.uint8)
    if r.ndim != 2 or v.shape != r.shape or m.shape != r.shape:
        raise ValueError("rewards, values and mask must be B x W arrays of one shape "
                         "(%s, %s, %s)" % (r.shape, v.shape, m.shape))
    if rule not in _GAE_RULES:
        raise ValueError("no GAE rule %r; there are: %s" % (rule, ", ".join(_GAE_RULES)))
    sc = None if score is None else _array(score, "score")
    _same(r.shape[0], score=sc)
    adv, ret = np.empty(r.shape), np.empty(r.shape)
    st = lib.rlref_gae_batch(_ptr(adv), _ptr(ret), _ptr(r), _ptr(v), _ptr(m, _U8), _ptr(sc),
                             ctypes.c_size_t(r.shape[0]), ctypes.c_size_t(r.shape[1]),
                             ctypes.c_double(gamma), ctypes.c_double(lam),
                             ctypes.c_int(_GAE_RULES[rule]))
    _check(st, "MDP-GAE [%s]" % rule)
    return adv, ret


def ppo_clip(logp, old_logp, adv, eps_low=0.2, eps_high=0.2, mask=None, clamp_log_ratio=False,
             dual_clip=None):
    """PPO-CLIP (PPO-DUALCLIP with dual_clip = c > 1) over n tokens: a dict of loss (the
    token mean), surrogate, grad (d loss / d logp) and clipfrac; clamp_log_ratio clamps the
    log-ratio to [-20, 20] first (verl, OpenRLHF)."""
    lib = _lib()
    lp, old, a = _array(logp, "logp"), _array(old_logp, "old_logp"), _array(adv, "adv")
    m = None if mask is None else _array(mask, "mask", np.uint8)
    _same(lp.size, old_logp=old, adv=a, mask=m)
    conv = _ClipConvention(1 if clamp_log_ratio else 0, 0 if dual_clip is None else 1)
    loss, cf = ctypes.c_double(0), ctypes.c_double(0)
    s, g = np.empty(lp.shape), np.empty(lp.shape)
    st = lib.rlref_ppo_clip_batch(ctypes.byref(loss), _ptr(s), _ptr(g), ctypes.byref(cf),
                                  _ptr(lp), _ptr(old), _ptr(a), _ptr(m, _U8),
                                  ctypes.c_size_t(lp.size), ctypes.byref(conv),
                                  ctypes.c_double(eps_low), ctypes.c_double(eps_high),
                                  ctypes.c_double(0.0 if dual_clip is None else dual_clip))
    _check(st, "PPO-CLIP")
    return {"loss": loss.value, "surrogate": s, "grad": g, "clipfrac": cf.value}
