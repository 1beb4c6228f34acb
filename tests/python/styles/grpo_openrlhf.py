"""A GRPO advantage written the way OpenRLHF writes it (the group_norm estimator): the rewards
reshaped to (prompts, n_samples_per_prompt), (r - mean)/(std + 1e-9) along each row with
torch's std (ddof 1); one sample per prompt is refused, as OpenRLHF asserts
n_samples_per_prompt > 1.  float32 as in training, or float64.  Written for this test from the
description of CONVENTIONS.md, not taken from OpenRLHF."""

import torch


def advantage(rewards, group_size, dtype=torch.float32):
    if not rewards or group_size < 1 or len(rewards) % group_size:
        raise ValueError("EINVAL: the rewards do not make whole groups of %d" % group_size)
    if group_size == 1:
        raise ValueError("EDOM: group normalisation needs more than one sample per prompt")
    r = torch.tensor(rewards, dtype=dtype).reshape(-1, group_size)
    r = (r - r.mean(-1, keepdim=True)) / (r.std(-1, keepdim=True) + 1e-9)
    return r.flatten()
