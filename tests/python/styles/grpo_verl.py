"""A GRPO advantage written the way verl writes it (compute_grpo_outcome_advantage): the
scores gathered per prompt in a loop, a group of one given mean 0 and standard deviation 1 as
scalar tensors, otherwise torch.mean and torch.std (ddof 1) of the stacked scores; then each
score becomes (score - mean)/(std + 1e-6).  float32 as in training, or float64.  Written for
this test from the description of CONVENTIONS.md, not taken from verl."""

import torch


def advantage(rewards, group_size, dtype=torch.float32):
    if not rewards or group_size < 1 or len(rewards) % group_size:
        raise ValueError("EINVAL: the rewards do not make whole groups of %d" % group_size)
    scores = torch.tensor(rewards, dtype=dtype)
    prompt = [i // group_size for i in range(len(rewards))]
    by_prompt = {}
    for i, p in enumerate(prompt):
        by_prompt.setdefault(p, []).append(scores[i])
    mean, std = {}, {}
    for p, group in by_prompt.items():
        if len(group) == 1:
            mean[p], std[p] = torch.tensor(0.0), torch.tensor(1.0)
        else:
            stacked = torch.stack(group)
            mean[p], std[p] = torch.mean(stacked), torch.std(stacked)
    out = scores.clone()
    for i, p in enumerate(prompt):
        out[i] = (scores[i] - mean[p]) / (std[p] + 1e-6)
    return out
