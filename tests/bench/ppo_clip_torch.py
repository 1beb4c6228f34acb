#!/usr/bin/python3
"""ppo_clip_torch.py DIR -- the PyTorch side of the PPO clipped-surrogate
benchmark (tests/bench/ppo_clip.c writes the inputs and rlref's outputs to
DIR): ratio = exp(logp - old_logp), the loss
-mean(min(ratio A, clamp(ratio, 1 - eps, 1 + eps) A)), eps = 0.2, and its
gradient with respect to logp by autograd, CPU, float64, on 2 threads and
on torch's default number.  Prints, the best of 7 runs:
  ppo torch SECONDS maxdiff D zeros Z lossdiff L torchdefault SECONDS defthreads T0
(D the largest relative difference of a nonzero gradient element from
rlref's, Z the number of elements zero in one and not in the other, L the
relative difference of the losses), or "ppo torch missing: ..." when torch
cannot be imported."""
import sys
import time

try:
    import numpy as np
    import torch
except ImportError as e:
    print("ppo torch missing: %s" % e)
    sys.exit(0)

REPS = 7
EPS = 0.2
d = sys.argv[1]
x = np.fromfile(d + "/ppo_in.f64", dtype="<f8").reshape(3, -1)
ref = np.fromfile(d + "/ppo_out.f64", dtype="<f8")
lp, old, adv = (torch.from_numpy(np.ascontiguousarray(v)) for v in x)


def ppo():
    w = lp.detach().requires_grad_()
    ratio = torch.exp(w - old)
    loss = -torch.min(ratio * adv, torch.clamp(ratio, 1 - EPS, 1 + EPS) * adv).mean()
    loss.backward()
    return loss, w.grad


def timed():
    best = float("inf")
    for _ in range(REPS):
        t = time.perf_counter()
        out = ppo()
        best = min(best, time.perf_counter() - t)
    return best, out


t0 = torch.get_num_threads()
best0, _ = timed()
torch.set_num_threads(2)
best, (loss, g) = timed()
got, want = g.numpy(), ref[1:]
nz = want != 0
zeros = int(np.count_nonzero((got == 0) != (want == 0)))
gdiff = float(np.max(np.abs(got[nz] - want[nz]) / np.abs(want[nz])))
ldiff = abs(loss.item() - ref[0]) / abs(ref[0])
print("ppo torch %.6f maxdiff %.3e zeros %d lossdiff %.3e torchdefault %.6f defthreads %d"
      % (best, gdiff, zeros, ldiff, best0, t0))
