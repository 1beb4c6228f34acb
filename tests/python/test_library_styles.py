"""The worked examples of styles/: GRPO advantages written the way TRL, verl and OpenRLHF write
them, and the DPO loss in the sigmoid and IPO conventions, in torch; each run on every case of
its golden in float32, as in training, and in float64, and `rlref check` must name the
convention it follows, in its JSON report and in its text report.

What the checker says is what it says of the libraries' own code (tests/check_cmd/real/):

    TRL float32      follows trl-float32 (every step in binary32), exit 0
    TRL float64      follows trl at float32 accuracy: nanstd's Bessel factor count/(count - 1)
                     is divided as integer tensors, in the default dtype float32; exit 1
    verl, OpenRLHF   follow the convention verl / openrlhf but for the cases flagged NUMERICAL
                     (squares that overflow, a sum that loses a small reward, binary32
                     rounding amplified by a small std), exit 1, in both dtypes
    DPO              sigmoid, ipo-sum (summed log-ratios), ipo-mean (per-token means), exit 0,
                     in both dtypes

Skipped, with the reason, where python3-torch is not installed."""

import functools
import re

import pytest

import rlref_check
from conftest import golden

torch = pytest.importorskip("torch", reason="python3-torch is not installed: the torch "
                            "examples of the library styles are skipped")

import dpo             # noqa: E402  (the styles import torch)
import grpo_openrlhf   # noqa: E402
import grpo_trl        # noqa: E402
import grpo_verl       # noqa: E402

DTYPES = {"float32": torch.float32, "float64": torch.float64}

GRPO = [
    # style, dtype, exit status, follows, follows but for numerical cases, diagnosis
    (grpo_trl, "float32", 0, ["trl-float32"], None, None),
    (grpo_trl, "float64", 1, [], None, ("trl", "float32")),
    (grpo_verl, "float32", 1, [], "verl", None),
    (grpo_verl, "float64", 1, [], "verl", None),
    (grpo_openrlhf, "float32", 1, [], "openrlhf", None),
    (grpo_openrlhf, "float64", 1, [], "openrlhf", None),
]


@pytest.mark.parametrize("style,dtype,status,follows,conv,diag", GRPO,
                         ids=["%s-%s" % (g[0].__name__, g[1]) for g in GRPO])
def test_grpo_styles(rlref, style, dtype, status, follows, conv, diag):
    fn = functools.partial(style.advantage, dtype=DTYPES[dtype])
    result = rlref_check.validate(golden("GRPO-ADV"), fn, dtype=dtype, rlref=rlref)
    text = result.report()
    assert result.exit_status == status, text
    assert result.follows == follows, text
    for name in follows:
        assert re.search(r"^Candidate follows: %s(;|$)" % name, text, re.M), text
    if conv is not None:
        assert result.follows_convention == [conv] and result.convention == conv
        assert re.search(r"^Candidate follows the convention %s, but fails \d+ numerically "
                         r"demanding case" % conv, text, re.M), text
        bad = result.failures()
        assert bad and all(c.numerical and c.variant == conv for c in bad)
    if diag is not None:
        assert [(d["variant"], d["dtype"]) for d in result.diagnosis] == [diag]
        assert result.convention == diag[0]
        assert re.search(r"^Candidate follows %s at %s accuracy \([0-9.]+ digits\); declared "
                         r"%s: a %s step is likely" % (diag[0], diag[1], dtype, diag[1]),
                         text, re.M), text
    if follows:
        assert result.convention == follows[0]
    else:
        assert not re.search(r"^Candidate follows: ", text, re.M)


DPO = [("sigmoid", {"loss_type": "sigmoid"}),
       ("ipo-sum", {"loss_type": "ipo"}),
       ("ipo-mean", {"loss_type": "ipo", "per_token": True})]


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("variant,options", DPO, ids=[d[0] for d in DPO])
def test_dpo_styles(rlref, variant, options, dtype):
    fn = functools.partial(dpo.loss, dtype=DTYPES[dtype], **options)
    result = rlref_check.validate(golden("DPO-LOSS"), fn, dtype=dtype, rlref=rlref)
    text = result.report()
    assert result.ok and result.follows == [variant], text
    assert re.search(r"^Candidate follows: %s(;|$)" % variant, text, re.M), text
    n = len([c for c in rlref_check.load(golden("DPO-LOSS")).cases(variant)
             if not c.expects_rejection])
    assert (result.passed, result.failed) == (n, 0)


def test_dpo_wrong_beta_is_caught(rlref):
    """The sigmoid loss with beta applied twice (seed 003's prose) follows seed-003-prose, not
    sigmoid: the detector cases tell them apart."""
    def twice(logp_w, logp_l, ref_w, ref_l, n_w, n_l, beta):
        return dpo.loss(logp_w, logp_l, ref_w, ref_l, n_w, n_l, beta * beta,
                        dtype=torch.float64)
    result = rlref_check.validate(golden("DPO-LOSS"), twice, rlref=rlref)
    assert "sigmoid" not in result.follows
    assert result.variants["sigmoid"]["class"] == "no-match"
