"""The pytest example of README.md: one test per golden case of a variant, named by tcId and
comment, that passes for a correct implementation and fails, naming the case, for a wrong one
(test_pytest_example.py plants a wrong one in a copy).  Run it with rlref_check on the path:

    PYTHONPATH=oracles/python python3 -m pytest tests/python/test_example_advantage.py
"""

import math
import os

import pytest
import rlref_check

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "golden", "GRPO-ADV.json")


def my_advantage(rewards, group_size):
    """The implementation under test: OpenRLHF's convention, (r - mean)/(std + 1e-9), ddof 1,
    computed on rewards scaled by a power of two so that no square overflows."""
    if not rewards or group_size < 2 or len(rewards) % group_size:
        raise ValueError("the rewards do not make whole groups of two or more")
    if not all(map(math.isfinite, rewards)):
        raise ValueError("a NaN or infinite reward")
    out = []
    for g in range(0, len(rewards), group_size):
        group = rewards[g:g + group_size]
        s = math.ldexp(1.0, math.frexp(max(map(abs, group)))[1] - 1)
        group = [r / s for r in group]
        mean = math.fsum(group) / len(group)
        var = math.fsum((r - mean) ** 2 for r in group) / (len(group) - 1)
        out += [(r - mean) / (math.sqrt(var) + 1e-9 / s) for r in group]
    return out


G = rlref_check.load(GOLDEN)


@pytest.mark.parametrize("case", G.cases("openrlhf"), ids=rlref_check.case_id)
def test_advantage(case):
    rlref_check.assert_case(case, my_advantage)
