#!/usr/bin/python3
"""w3_torch.py DIR -- the PyTorch side of benchmark W3 (tests/bench/w3.c writes
the inputs and rlref's outputs to DIR): the DPO sigmoid loss
-mean(logsigmoid(beta D)), D = (logp_w - ref_w) - (logp_l - ref_l), beta = 0.1,
and its gradient by autograd, CPU, float64, on 2 threads (as rlref), and on
torch's default number of threads.  Prints, the best of 9 runs:
  w3 torch SECONDS maxdiff D lossdiff L threads T torchdefault SECONDS defthreads T0
(D the largest relative difference of a gradient element from rlref's, L the
relative difference of the losses), or "w3 torch missing: ..." when torch
cannot be imported."""
import sys
import time

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    print("w3 torch missing: %s" % e)
    sys.exit(0)

REPS = 9
BETA = 0.1
d = sys.argv[1]
x = np.fromfile(d + "/w3_in.f64", dtype="<f8").reshape(4, -1)
ref = np.fromfile(d + "/w3_out.f64", dtype="<f8")
n = x.shape[1]
pw, pl, rw, rl = (torch.from_numpy(np.ascontiguousarray(v)) for v in x)


def w3():
    w = pw.detach().requires_grad_()
    l = pl.detach().requires_grad_()
    D = (w - rw) - (l - rl)
    loss = -F.logsigmoid(BETA * D).mean()
    loss.backward()
    return loss, w.grad, l.grad


def timed():
    best = float("inf")
    for _ in range(REPS):
        t = time.perf_counter()
        out = w3()
        best = min(best, time.perf_counter() - t)
    return best, out


t0 = torch.get_num_threads()
best0, _ = timed()
torch.set_num_threads(2)
best, (loss, gw, gl) = timed()
got = np.concatenate([gw.numpy(), gl.numpy()])
gdiff = float(np.max(np.abs(got - ref[1:]) / np.abs(ref[1:])))
ldiff = abs(loss.item() - ref[0]) / abs(ref[0])
print("w3 torch %.6f maxdiff %.3e lossdiff %.3e threads %d torchdefault %.6f defthreads %d"
      % (best, gdiff, ldiff, torch.get_num_threads(), best0, t0))
