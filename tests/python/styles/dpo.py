"""The DPO loss written as the libraries write it, in torch: the log-ratios of the chosen and
rejected completions (summed log-probabilities, or their per-token means), the margin
logits = chosen - rejected, and per pair

    sigmoid   -logsigmoid(beta * logits)                 (TRL's and OpenRLHF's default)
    ipo       (logits - 1/(2 beta))^2, on summed log-ratios (OpenRLHF) or on per-token means
              (TRL, per_token=True)

the loss their mean over the batch, its gradients in the policy's log-probabilities by
autograd, and the implicit rewards beta (logp - ref) of the summed log-ratios.  Inputs no
trainer forms (non-finite log-probabilities, beta <= 0, an empty or ragged batch, a token count
below 1 where it is read) are refused.  Written for this test from seed 000 (13.21), the IPO
paper and CONVENTIONS.md, not taken from either library."""

import math

import torch
import torch.nn.functional as F


def loss(logp_w, logp_l, ref_w, ref_l, n_w, n_l, beta, loss_type="sigmoid", per_token=False,
         dtype=torch.float32):
    lengths = {len(logp_w), len(logp_l), len(ref_w), len(ref_l), len(n_w), len(n_l)}
    if len(lengths) != 1 or not logp_w:
        raise ValueError("EINVAL: an empty batch, or inputs of different lengths")
    if not all(math.isfinite(x) for x in logp_w + logp_l + ref_w + ref_l):
        raise ValueError("ENAN: a log-probability is not finite")
    if not beta > 0:
        raise ValueError("EDOM: beta must be positive")
    if per_token and min(n_w + n_l) < 0:
        raise ValueError("EDOM: a negative length")
    pw = torch.tensor(logp_w, dtype=dtype, requires_grad=True)
    pl = torch.tensor(logp_l, dtype=dtype, requires_grad=True)
    rw, rl = torch.tensor(ref_w, dtype=dtype), torch.tensor(ref_l, dtype=dtype)
    chosen, rejected = pw - rw, pl - rl
    if per_token:
        # TRL's mask.sum(dim=1).clamp(min=1): an empty completion counts as one token
        chosen = chosen / torch.tensor(n_w, dtype=dtype).clamp(min=1)
        rejected = rejected / torch.tensor(n_l, dtype=dtype).clamp(min=1)
    logits = chosen - rejected
    if loss_type == "sigmoid":
        losses = -F.logsigmoid(beta * logits)
    elif loss_type == "ipo":
        losses = (logits - 1 / (2 * beta)) ** 2
    else:
        raise ValueError("unknown loss type %r" % loss_type)
    mean = losses.mean()
    mean.backward()
    return {"loss": mean, "losses": losses.detach(), "grad_w": pw.grad, "grad_l": pl.grad,
            "reward_w": (beta * (pw - rw)).detach(), "reward_l": (beta * (pl - rl)).detach()}
