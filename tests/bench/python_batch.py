#!/usr/bin/python3
"""python_batch.py -- every kernel of rlref.batch against NumPy doing the same computation on
the same arrays in the same run, written as the libraries write it (the same outputs: losses,
gradients, rewards; the vector DPO path with its loss and gradients only): GRPO advantages (TRL's convention: group mean, ddof-1 std + 1e-4) of 2^20
rewards in groups of 8, the three KL estimators of 2^20 tokens, the DPO sigmoid loss, KTO,
SimPO and ORPO over 2^18 pairs, GAE over 1024 rows of 256 positions and the PPO clip over 2^20
tokens.  Prints each time and the ratio; skips, saying so, without NumPy."""

import os
import sys
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "oracles", "python"))
try:
    import numpy as np
except ImportError:
    print("python_batch: NumPy is not installed (python3-numpy): skipped")
    sys.exit(0)
import rlref.batch as rb  # noqa: E402


def best(fn, reps=7):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def np_adv(r, G):
    g = r.reshape(-1, G)
    m = g.mean(axis=1, keepdims=True)
    s = g.std(axis=1, ddof=1, keepdims=True)
    return ((g - m) / (s + 1e-4)).reshape(-1)


def np_kl(lp, rf):
    l = lp - rf
    return l, l * l / 2, np.expm1(-l) + l


def softplus(x):
    return np.logaddexp(0.0, x)


def sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def np_dpo(w, l_, rw, rl, beta=0.1):
    lw, ll = beta * (w - rw), beta * (l_ - rl)
    z = lw - ll
    losses = softplus(-z)
    g = -beta * sigmoid(-z) / w.size
    return losses.mean(), losses, g, -g, lw, ll


def np_kto(lp, rf, d, kl_lp, kl_rf, beta=0.1, w_d=1.0, w_u=1.0):
    z0 = max(0.0, float((kl_lp - kl_rf).mean()))
    r = lp - rf
    x = np.where(d == 1, beta * (r - z0), beta * (z0 - r))
    s = sigmoid(-x)
    w = np.where(d == 1, w_d, w_u)
    losses = w * s
    grad = np.where(d == 1, -1.0, 1.0) * w * beta * s * (1 - s) / lp.size
    return losses.mean(), losses, grad, beta * r, z0


def np_simpo(w, l_, nw, nl, beta=0.1, gamma=0.5, alpha=1.0):
    aw, al = w / nw, l_ / nl
    z = beta * (aw - al) - gamma
    losses = softplus(-z)
    s = sigmoid(-z)
    nll = -w.sum() / nw.sum()
    gw = -beta * s / (nw * w.size) - alpha / nw.sum()
    gl = beta * s / (nl * w.size)
    return losses.mean() + alpha * nll, losses, gw, gl, beta * aw, beta * al, nll


def np_orpo(w, l_, nw, nl, lam=0.1):
    aw, al = w / nw, l_ / nl
    lo = (aw - np.log(-np.expm1(aw))) - (al - np.log(-np.expm1(al)))
    losses = lam * softplus(-lo)
    s = sigmoid(-lo)
    nll = -w.sum() / nw.sum()
    dw = 1.0 / (1.0 - np.exp(aw)) / nw
    dl = 1.0 / (1.0 - np.exp(al)) / nl
    gw = -lam * s * dw / w.size - 1.0 / nw.sum()
    gl = lam * s * dl / w.size
    return nll + losses.mean(), losses, gw, gl, lo, nll, lam * aw, lam * al


def np_gae(r, v, m, gamma=1.0, lam=0.95):
    B, W = r.shape
    adv = np.zeros_like(r)
    last = np.zeros(B)
    for t in range(W - 1, -1, -1):
        nv = v[:, t + 1] if t + 1 < W else 0.0
        delta = r[:, t] + gamma * nv - v[:, t]
        last = delta + gamma * lam * last
        adv[:, t] = last
    adv *= m
    return adv, adv + v


def np_ppo(lp, old, adv, eps=0.2):
    ratio = np.exp(lp - old)
    s1, s2 = -adv * ratio, -adv * np.clip(ratio, 1 - eps, 1 + eps)
    s = np.maximum(s1, s2)
    grad = np.where(s1 >= s2, -adv * ratio, 0.0) / lp.size
    return s.mean(), s, grad, float((s2 > s1).mean())


rng = np.random.default_rng(1)
N, P = 1 << 20, 1 << 18
r = rng.random(N)
lp, rf = -rng.random(N) * 3, -rng.random(N) * 3
out = np.empty(N)
w, l_, rw, rl = (-rng.random(P) * 40 - 1e-3 for _ in range(4))
nw, nl = rng.integers(1, 64, P), rng.integers(1, 64, P)
d = rng.integers(0, 2, P)
kl_lp, kl_rf = -rng.random(P) * 40, -rng.random(P) * 40
gr, gv = rng.random((1024, 256)), rng.random((1024, 256))
gm = np.ones((1024, 256), dtype=np.uint8)
adv = rng.standard_normal(N)
old = lp + rng.standard_normal(N) * 0.1
for name, ours, theirs in [
        ("GRPO-ADV trl, 2^20 rewards, G = 8", lambda: rb.grpo_advantages(r, 8, "trl", out=out),
         lambda: np_adv(r, 8)),
        ("KL k1, k2, k3, 2^20 tokens", lambda: rb.kl(lp, rf), lambda: np_kl(lp, rf)),
        ("DPO-LOSS sigmoid, 2^18 pairs", lambda: rb.dpo_loss(w, l_, rw, rl, beta=0.1),
         lambda: np_dpo(w, l_, rw, rl)),
        ("DPO-LOSS sigmoid fast, 2^18 pairs",
         lambda: rb.dpo_sigmoid_fast(w, l_, rw, rl, beta=0.1),
         lambda: np_dpo(w, l_, rw, rl)[:4]),
        ("DPO-KTO trl, 2^18 completions", lambda: rb.kto_loss(lp[:P], rf[:P], d, kl_lp, kl_rf),
         lambda: np_kto(lp[:P], rf[:P], d, kl_lp, kl_rf)),
        ("DPO-SIMPO trl, 2^18 pairs", lambda: rb.simpo_loss(w, l_, nw, nl),
         lambda: np_simpo(w, l_, nw, nl)),
        ("DPO-ORPO trl, 2^18 pairs", lambda: rb.orpo_loss(w, l_, nw, nl),
         lambda: np_orpo(w, l_, nw, nl)),
        ("MDP-GAE verl, 1024 x 256", lambda: rb.gae(gr, gv, gm, 1.0, 0.95, "verl"),
         lambda: np_gae(gr, gv, gm)),
        ("PPO-CLIP, 2^20 tokens", lambda: rb.ppo_clip(lp, old, adv),
         lambda: np_ppo(lp, old, adv))]:
    a, b = best(ours), best(theirs)
    print("%-36s rlref.batch %7.2f ms   numpy %7.2f ms   %5.2fx" % (name, a * 1e3, b * 1e3,
                                                                      b / a))
