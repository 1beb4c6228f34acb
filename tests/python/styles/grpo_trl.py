"""A GRPO advantage written the way TRL writes it (GRPOTrainer, scale_rewards="group"): one
reward tensor, float32 as in training, viewed as (prompts, G); the group mean by nanmean and
the standard deviation by a nanstd that scales the NaN-skipping variance by count/(count - 1)
(the integer count divided as a tensor, so in the default dtype, float32); (r - mean)/(std +
1e-4), a group of one with std 0; last, nan_to_num(nan=0), so that a NaN or an infinite reward
ends as advantage 0.  Written for this test from the description of CONVENTIONS.md, not taken
from TRL."""

import torch


def nanstd(x, dim):
    """The standard deviation of x along dim, NaN entries left out, ddof 1."""
    mean = torch.nanmean(x, dim=dim, keepdim=True)
    var = torch.nanmean((x - mean) ** 2, dim=dim, keepdim=True)
    count = torch.sum(~torch.isnan(x), dim=dim, keepdim=True)
    var = var * (count / (count - 1))
    return torch.sqrt(var)


def advantage(rewards, group_size, dtype=torch.float32):
    if not rewards or group_size < 1 or len(rewards) % group_size:
        raise ValueError("EINVAL: the rewards do not make whole groups of %d" % group_size)
    r = torch.tensor(rewards, dtype=dtype).view(-1, group_size)
    mean = torch.nanmean(r, dim=1, keepdim=True)
    if group_size > 1:
        std = nanstd(r, dim=1)
    else:
        std = torch.zeros_like(mean)
    adv = (r - mean) / (std + 1e-4)
    return torch.nan_to_num(adv, nan=0.0).view(-1)
