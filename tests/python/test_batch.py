"""rlref.batch: the batch kernels on NumPy arrays give the registry's binary64 values (bit for
bit where rlref/batch.h says so, within its stated ulps for k3), write in place without
copies, and refuse what they cannot read without converting it: another dtype, a
non-contiguous array, a list, a tensor on another device, an unknown convention."""

import math

import pytest

np = pytest.importorskip("numpy", reason="NumPy is not installed (python3-numpy)")
import rlref  # noqa: E402
import rlref.batch as rb  # noqa: E402

R = np.array([1.0, 0.0, 0.5, 0.25, 0.3, 0.9, 0.1, 0.1, 0.1])


def doubles(vals):
    return [v.double for v in vals]


@pytest.mark.parametrize("conv", ["trl", "verl", "openrlhf", "seed-000", "no-std"])
def test_grpo_advantages_are_the_references(conv):
    want = doubles(rlref.eval("GRPO-ADV", conv, rewards=R.tolist(), group_size=3)["adv"])
    assert rb.grpo_advantages(R, 3, conv).tolist() == want
    x = R.copy()
    assert rb.grpo_advantages(x, 3, conv, out=x) is x and x.tolist() == want


def test_kl():
    lp, rf = np.array([-0.5, -1.2, -3.0, -1e-9]), np.array([-0.4, -1.0, -2.0, 0.0])
    k1, k2, k3, sums = rb.kl(lp, rf)
    assert k1.tolist() == doubles(rlref.eval("KL-K1", "plain", logp=lp.tolist(),
                                             ref_logp=rf.tolist())["k"])
    assert k2.tolist() == doubles(rlref.eval("KL-K2", "plain", logp=lp.tolist(),
                                             ref_logp=rf.tolist())["k"])
    exact = rlref.eval("KL-K3", "stable", logp=lp.tolist(), ref_logp=rf.tolist())["k"]
    for got, e in zip(k3, exact):
        assert abs(got - float(e.value)) <= 3 * math.ulp(float(e.value))
    assert abs(sums[0] - k1.sum()) <= 1e-15 * abs(k1).sum()


def test_dpo_loss_is_the_reference():
    args = dict(logp_w=[-1.0, -2.0, -0.5], logp_l=[-2.5, -1.0, -0.75],
                ref_w=[-1.25, -2.0, -0.5], ref_l=[-2.0, -1.5, -1.0])
    for conv in ("sigmoid", "ipo-mean", "hinge", "cdpo"):
        out = rb.dpo_loss(*(np.array(args[k]) for k in ("logp_w", "logp_l", "ref_w", "ref_l")),
                          beta=0.1, convention=conv, n_w=np.array([1, 1, 1]),
                          n_l=np.array([1, 1, 1]))
        want = rlref.eval("DPO-LOSS", conv, beta=0.1, n_w=[1, 1, 1], n_l=[1, 1, 1], **args)
        assert out["loss"] == want["loss"].double
        for k in ("losses", "grad_w", "grad_l", "reward_w", "reward_l"):
            assert out[k].tolist() == doubles(want[k]), (conv, k)


def _same_as_eval(formula, variant, out, case):
    """Every output of the batch kernel, bit for bit the registry's binary64 values."""
    want = rlref.eval(formula, variant, **case.args)
    for k, v in want.items():
        got = out[k].tolist() if isinstance(out[k], np.ndarray) else out[k]
        ref = doubles(v) if isinstance(v, list) else v.double
        assert np.array_equal(np.array(got), np.array(ref), equal_nan=True), (case.tc_id, k)


def _arrays(case, ints):
    """The case's array inputs as NumPy arrays, and its scalar parameters."""
    arrays = {k: np.array(v, dtype=np.int64 if k in ints else np.float64)
              for k, v in case.args.items() if isinstance(v, list)}
    return arrays, {k: v for k, v in case.args.items() if not isinstance(v, list)}


@pytest.mark.parametrize("conv", ["trl", "openrlhf"])
def test_kto_is_the_reference(conv):
    cases = rlref.golden("DPO-KTO").cases(variant=conv, result="valid")
    assert cases
    for case in cases:
        a, p = _arrays(case, ("desirable",))
        out = rb.kto_loss(a["logp"], a["ref"], a["desirable"], a["kl_logp"], a["kl_ref"],
                          convention=conv, **p)
        _same_as_eval("DPO-KTO", conv, out, case)


@pytest.mark.parametrize("formula,conv", [("DPO-SIMPO", "trl"), ("DPO-SIMPO", "trl-no-nll"),
                                          ("DPO-SIMPO", "simpo-repo"), ("DPO-ORPO", "trl"),
                                          ("DPO-ORPO", "seq-mean")])
def test_simpo_and_orpo_are_the_reference(formula, conv):
    kernel = rb.simpo_loss if formula == "DPO-SIMPO" else rb.orpo_loss
    cases = rlref.golden(formula).cases(variant=conv, result="valid")
    assert cases
    for case in cases:
        a, p = _arrays(case, ("n_w", "n_l"))
        out = kernel(a["logp_w"], a["logp_l"], a["n_w"], a["n_l"], convention=conv, **p)
        _same_as_eval(formula, conv, out, case)


def test_preference_kernels_take_the_variants_parameters():
    w, l_ = np.array([-1.0, -2.0]), np.array([-2.5, -1.0])
    n = np.array([2, 3], dtype=np.int64)
    out = rb.simpo_loss(w, l_, n, n, convention="simpo-repo", beta=1.5, gamma_beta_ratio=0.5)
    want = rlref.eval("DPO-SIMPO", "simpo-repo", logp_w=w.tolist(), logp_l=l_.tolist(),
                      n_w=[2, 3], n_l=[2, 3], beta=1.5, gamma_beta_ratio=0.5)
    assert out["loss"] == want["loss"].double
    out = rb.orpo_loss(w, l_, n, n, lambda_=0.25)
    want = rlref.eval("DPO-ORPO", "trl", logp_w=w.tolist(), logp_l=l_.tolist(), n_w=[2, 3],
                      n_l=[2, 3], **{"lambda": 0.25})
    assert out["loss"] == want["loss"].double
    with pytest.raises(TypeError, match="has no parameter 'simpo_gamma'; it has: beta, "
                       "gamma_beta_ratio, sft_weight"):
        rb.simpo_loss(w, l_, n, n, convention="simpo-repo", simpo_gamma=0.5)
    with pytest.raises(ValueError, match="trl-float32 is computed by rlref.eval only"):
        rb.orpo_loss(w, l_, n, n, convention="trl-float32")
    with pytest.raises(TypeError, match="n_w has dtype float64: this kernel takes int64"):
        rb.orpo_loss(w, l_, n.astype(np.float64), n)
    with pytest.raises(rb.KernelError, match="EDOM") as e:
        rb.kto_loss(w, w, np.array([1, 2], dtype=np.int64), w, w)
    assert e.value.status == "EDOM"


def test_dpo_sigmoid_fast_within_its_bounds():
    """The vector path's loss and gradients within the ulps rlref/batch.h states of the
    certified values (rlref.eval at 256 bits)."""
    rng = np.random.default_rng(3)
    w, l_, rw, rl = (-rng.random(37) * 5 for _ in range(4))
    out = rb.dpo_sigmoid_fast(w, l_, rw, rl, beta=0.1)
    want = rlref.eval("DPO-LOSS", "sigmoid", logp_w=w.tolist(), logp_l=l_.tolist(),
                      ref_w=rw.tolist(), ref_l=rl.tolist(), beta=0.1, n_w=[1] * 37,
                      n_l=[1] * 37)
    for k in ("grad_w", "grad_l"):
        exact = np.array([float(v) for v in want[k]])
        ulps = np.abs(out[k] - exact) / np.spacing(np.abs(exact))
        assert ulps.max() <= 5, (k, ulps.max())
    ref = want["loss"].double
    assert abs(out["loss"] - ref) <= 8 * np.spacing(abs(ref)) + (37 / 4 + 12) * 2.0 ** -53 * \
        float(np.mean([float(v) for v in want["losses"]]))


def test_ppo_clip_is_the_reference():
    lp, adv = np.array([0.4, -0.2, 0.1, 0.0]), np.array([0.5, -1.0, 2.0, 1.0])
    out = rb.ppo_clip(lp, np.zeros(4), adv)
    want = rlref.eval("PPO-CLIP", logp=lp.tolist(), old_logp=[0.0] * 4, adv=adv.tolist(),
                      mask=[1, 1, 1, 1])
    assert out["surrogate"].tolist() == doubles(want["surrogate"])
    assert out["grad"].tolist() == doubles(want["grad"])
    assert out["loss"] == want["loss"].double and out["clipfrac"] == 0.25


def test_gae_matches_the_registry():
    r = np.array([[0.0, 0.0, 1.0], [0.5, 0.0, 0.0]])
    v = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    m = np.array([[1, 1, 1], [1, 1, 0]], dtype=np.uint8)
    adv, ret = rb.gae(r, v, m, gamma=1.0, lam=0.95, rule="verl")
    assert adv.shape == (2, 3) and np.isfinite(adv).all()
    assert np.allclose(ret, adv + v, rtol=0, atol=1e-15)


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="dtype float32: this kernel takes float64"):
        rb.grpo_advantages(R.astype(np.float32), 3)
    with pytest.raises(TypeError, match="dtype float16"):
        rb.kl(np.zeros(3, dtype=np.float16))
    with pytest.raises(ValueError, match="not contiguous"):
        rb.grpo_advantages(np.zeros(12)[::2], 3)
    with pytest.raises(TypeError, match="a NumPy array or a torch tensor"):
        rb.kl([0.0, 1.0])
    with pytest.raises(ValueError, match="no advantage convention 'nope'; there are: seed-000"):
        rb.grpo_advantages(R, 3, "nope")
    with pytest.raises(ValueError, match="ref_logp holds 2 values, not 3"):
        rb.kl(np.zeros(3), np.zeros(2))
    with pytest.raises(rb.KernelError) as e:
        rb.grpo_advantages(np.array([1.0, math.nan, 0.0]), 3, "verl")
    assert e.value.status == "ENAN"
    with pytest.raises(rb.KernelError) as e:
        rb.grpo_advantages(R[:8].copy(), 3)
    assert e.value.status == "EINVAL"


def test_torch_tensors():
    torch = pytest.importorskip("torch", reason="torch is not installed (python3-torch)")
    t = torch.tensor(R.tolist(), dtype=torch.float64)
    assert rb.grpo_advantages(t, 3).tolist() == rb.grpo_advantages(R, 3).tolist()
    with pytest.raises(TypeError, match="float16"):
        rb.kl(torch.zeros(3, dtype=torch.float16))
