"""A worked example for NumPy users: a GRPO advantage written as TRL computes it, validated
against rlref's golden (which convention it follows, and where it departs) and property-tested
against rlref.eval with hypothesis.  Run it with pytest (the rlref plugin registered when the
package is installed; from the tree: PYTHONPATH=oracles/python pytest -p rlref.pytest_plugin
oracles/python/examples)."""

import warnings

import numpy as np
from hypothesis import assume, given, settings

import rlref
import rlref.strategies as rs


def grpo_advantages(rewards, group_size):
    """TRL's group advantage in NumPy float64: nanmean, nanstd with Bessel's factor, + 1e-4,
    then nan_to_num."""
    r = np.asarray(rewards, dtype=np.float64).reshape(-1, group_size)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # a group of NaNs: nanmean warns
        mean = np.nanmean(r, axis=1, keepdims=True)
        # r - mean loses the mean's rounding error, magnified by |r| / |r - mean| where the
        # rewards are close (8173 and 8704.75: 32 ulps); the error, the mean of r - mean,
        # taken out of the deviations once gives them to within an ulp
        dev = (r - mean) - np.nanmean(r - mean, axis=1, keepdims=True)
        count = np.sum(~np.isnan(r), axis=1, keepdims=True)
        var = np.nanmean(dev ** 2, axis=1, keepdims=True) * count / (count - 1)
        adv = dev / (np.sqrt(var) + 1e-4)
    return np.nan_to_num(adv, nan=0.0, posinf=0.0, neginf=0.0).reshape(-1)


def test_follows_trl(rlref_validate):
    # the squares of rewards near 1e154 overflow here: the golden flags those cases NUMERICAL
    result = rlref_validate("GRPO-ADV", grpo_advantages, allow_numerical=True)
    assert result.convention == "trl"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(rs.inputs("GRPO-ADV", "trl"))
def test_against_rlref_eval(x):
    assume(max((abs(v) for v in x["rewards"] if v == v), default=0.0) < 1e100)
    want = rlref.eval("GRPO-ADV", "trl", want_sens=True, **x)["adv"]
    rlref.assert_close(want, grpo_advantages(**x))
