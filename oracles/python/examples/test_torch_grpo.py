"""The same for torch users: TRL's group advantage in torch float64, validated against the
golden and property-tested against rlref.eval.  Skipped, saying so, without torch."""

import pytest
from hypothesis import assume, given, settings

import rlref
import rlref.strategies as rs

torch = pytest.importorskip("torch", reason="torch is not installed (python3-torch): the torch "
                            "example is skipped")


def grpo_advantages(rewards, group_size):
    """TRL's group advantage in torch float64: nanmean, nanstd with Bessel's factor, + 1e-4,
    then nan_to_num."""
    r = torch.tensor(rewards, dtype=torch.float64).view(-1, group_size)
    mean = torch.nanmean(r, dim=1, keepdim=True)
    # the mean's rounding error taken out of the deviations (see the NumPy example)
    dev = (r - mean) - torch.nanmean(r - mean, dim=1, keepdim=True)
    count = (~torch.isnan(r)).sum(dim=1, keepdim=True).to(torch.float64)
    var = torch.nanmean(dev ** 2, dim=1, keepdim=True) * count / (count - 1)
    adv = dev / (var.sqrt() + 1e-4)
    return torch.nan_to_num(adv, nan=0.0, posinf=0.0, neginf=0.0).view(-1)


def test_follows_trl(rlref_validate):
    result = rlref_validate("GRPO-ADV", grpo_advantages, allow_numerical=True)
    assert result.convention == "trl"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(rs.inputs("GRPO-ADV", "trl"))
def test_against_rlref_eval(x):
    assume(max((abs(v) for v in x["rewards"] if v == v), default=0.0) < 1e100)
    want = rlref.eval("GRPO-ADV", "trl", want_sens=True, **x)["adv"]
    rlref.assert_close(want, grpo_advantages(**x))
