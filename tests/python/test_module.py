"""Tests of oracles/python/rlref_check.py: reading goldens exactly, the candidate it writes,
the arguments it passes, the results it reads back, and its errors on bad input."""

import ast
import glob
import json
import math
import os
import struct
import sys

import pytest

import rlref_check
from rlref_check import CandidateError, CheckError, GoldenError, UnknownCase, UnknownVariant
from conftest import FIXTURES, GOLDEN, REAL, RLREF, TOP, golden

MODULE = os.path.join(TOP, "oracles", "python", "rlref_check.py")
GOLDENS = sorted(glob.glob(os.path.join(GOLDEN, "[A-Z]*.json")))


def bits(x):
    """The binary64 bit pattern of x."""
    return struct.pack("<d", x)


# --- the module itself ------------------------------------------------------------------------

def test_python_39_grammar():
    with open(MODULE, encoding="utf-8") as f:
        ast.parse(f.read(), MODULE, feature_version=(3, 9))


def test_standard_library_only():
    """Only the standard library, but for the rlref package's judge, imported where the module
    falls back to it and guarded by `except ImportError`."""
    with open(MODULE, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names, guarded = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(isinstance(h.type, ast.Name) and
                                             h.type.id == "ImportError" for h in node.handlers):
            guarded.update(id(n) for n in node.body)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.module.split(".")[0] == "rlref":
                assert id(node) in guarded, "an unguarded import of %s" % node.module
                continue
            names.add(node.module.split(".")[0])
    assert names and names <= set(sys.stdlib_module_names), names - set(sys.stdlib_module_names)


# --- reading goldens ----------------------------------------------------------------------------

def test_every_golden_loads():
    assert GOLDENS
    for path in GOLDENS:
        G = rlref_check.load(path)
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        assert G.formula == data["formula"]
        assert len(G) == data["numberOfTests"] == len(G.cases())
        assert G.variants == list(dict.fromkeys(g["variant"] for g in data["testGroups"]))
        assert sum(len(G.cases(v)) for v in G.variants) == len(G)


def expect_exact(value, raw, where):
    """VALUE decoded from the golden's RAW input is the double of its hex field, bit for bit,
    and of its decimal field."""
    if isinstance(raw, list):
        assert isinstance(value, list) and len(value) == len(raw), where
        for i, (v, r) in enumerate(zip(value, raw)):
            expect_exact(v, r, "%s[%d]" % (where, i))
    elif isinstance(raw, int):
        assert type(value) is int and value == raw, where
    else:
        h = raw["hex"]
        want = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(h)
        if want is None:
            want = float.fromhex(h)
        assert type(value) is float, where
        if math.isnan(want):
            assert math.isnan(value) and raw["dec"] == "nan", where
        else:
            assert bits(value) == bits(want) == bits(float(raw["dec"])), where


def test_inputs_decoded_exactly():
    seen_nan = seen_inf = 0
    for path in GOLDENS:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        G = rlref_check.load(path)
        for g in data["testGroups"]:
            for t in g["tests"]:
                case = G.case(t["tcId"])
                assert case.variant == g["variant"] and case.comment == t.get("comment", "")
                assert case.expects_rejection == (t["result"] == "invalid")
                assert case.expected_error == t.get("error")
                for name, raw in t["inputs"].items():
                    expect_exact(case.inputs[name], raw, "%s tcId %d %s"
                                 % (path, t["tcId"], name))
                    flat = case.inputs[name] if isinstance(case.inputs[name], list) \
                        else [case.inputs[name]]
                    for x in flat:
                        if isinstance(x, float):
                            seen_nan += math.isnan(x)
                            seen_inf += math.isinf(x)
                for name, raw in g.get("params", {}).items():
                    expect_exact(case.params[name], raw, "%s params %s" % (path, name))
                for name, raw in t.get("outputs", {}).items() if t["result"] != "invalid" \
                        else ():
                    want = [raw] if isinstance(raw, dict) else raw
                    got = case.expected[name] if isinstance(raw, list) \
                        else [case.expected[name]]
                    dec = case.expected_decimal[name] if isinstance(raw, list) \
                        else [case.expected_decimal[name]]
                    assert [w["value"] for w in want] == dec
                    for w, x in zip(want, got):
                        h = w["hex"]
                        if h == "nan":
                            assert math.isnan(x)
                        else:
                            assert bits(x) == bits(float(h) if "x" not in h
                                                   else float.fromhex(h))
    assert seen_nan and seen_inf


def test_specials_and_negative_zero(tmp_path):
    with open(golden("PREF-BT"), encoding="utf-8") as f:
        data = json.load(f)
    t = data["testGroups"][0]["tests"][0]
    assert set(t["inputs"]) == {"rw", "rl"}
    t["inputs"]["rw"] = {"dec": "-0", "hex": "-0x0p+0"}
    t["inputs"]["rl"] = {"dec": "-inf", "hex": "-inf"}
    case = rlref_check.load(write_json(tmp_path / "g.json", data)).case(t["tcId"])
    assert bits(case.inputs["rw"]) == bits(-0.0) and case.inputs["rl"] == -math.inf


def test_args_carry_the_formulas_inputs_not_the_conventions_constants():
    G = rlref_check.load(golden("GRPO-ADV"))
    for case in G:
        assert set(case.args) == set(case.inputs) == {"rewards", "group_size"}
        assert {"ddof", "eps"} <= set(case.params)
    D = rlref_check.load(golden("DPO-LOSS"))
    overridden = [c for c in D if "beta" in c.inputs]
    assert overridden and len(overridden) < len(D)
    for case in D:
        # beta, an input of the formula, is given to every case: its own or the variant's
        assert case.args["beta"] == case.inputs.get("beta", case.params["beta"])
        assert "eps" not in case.args       # a convention's constant (cdpo, robust)


def test_call_passes_the_arguments_the_function_names():
    case = rlref_check.load(golden("DPO-LOSS")).cases("sigmoid")[0]
    assert case.call(lambda beta, logp_w: (beta, logp_w)) == (case.args["beta"],
                                                                case.args["logp_w"])
    assert case.call(lambda **kw: sorted(kw)) == sorted(case.args)
    with pytest.raises(CandidateError, match=r"tcId %d \[sigmoid\].*needs gamma"
                       % case.tc_id):
        case.call(lambda logp_w, gamma: 0)


def test_unknown_case_and_variant():
    G = rlref_check.load(golden("GRPO-ADV"))
    with pytest.raises(UnknownCase, match="no case with tcId 99999"):
        G.case(99999)
    with pytest.raises(UnknownCase, match="tcId 99999"):
        G.candidate().add(99999, [0.0])
    with pytest.raises(UnknownVariant, match="no variant 'nope'; it has: seed-000"):
        G.cases("nope")
    with pytest.raises(UnknownVariant):
        rlref_check.validate(golden("GRPO-ADV"), lambda rewards: rewards, variant="nope")


def write_json(path, data):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return str(path)


def test_other_schema_version(tmp_path):
    with open(golden("PREF-BT"), encoding="utf-8") as f:
        data = json.load(f)
    data["schemaVersion"] = 2
    path = write_json(tmp_path / "v2.json", data)
    with pytest.raises(GoldenError, match=r"v2\.json: schemaVersion 2; this module reads "
                       r"golden files of schema version 1"):
        rlref_check.load(path)


def test_malformed_goldens(tmp_path):
    with open(golden("PREF-BT"), encoding="utf-8") as f:
        data = json.load(f)
    (tmp_path / "bad.json").write_text("{\"testGroups\": [", encoding="utf-8")
    with pytest.raises(GoldenError, match="not valid JSON"):
        rlref_check.load(str(tmp_path / "bad.json"))
    with pytest.raises(GoldenError, match="no \"testGroups\" array"):
        rlref_check.load(write_json(tmp_path / "empty.json", {"schemaVersion": 1}))
    twice = json.loads(json.dumps(data))
    twice["testGroups"][0]["tests"].append(twice["testGroups"][0]["tests"][0])
    with pytest.raises(GoldenError, match="tcId %d appears twice"
                       % data["testGroups"][0]["tests"][0]["tcId"]):
        rlref_check.load(write_json(tmp_path / "twice.json", twice))
    skew = json.loads(json.dumps(data))
    t = skew["testGroups"][0]["tests"][0]
    name = next(iter(t["inputs"]))
    t["inputs"][name]["dec"] = "0.25" if t["inputs"][name]["dec"] != "0.25" else "0.5"
    with pytest.raises(GoldenError, match=r"tcId %d\) input %s: \"dec\" .* are different"
                       % (t["tcId"], name)):
        rlref_check.load(write_json(tmp_path / "skew.json", skew))


# --- the candidate ------------------------------------------------------------------------------

def test_candidate_values_and_errors(tmp_path):
    G = rlref_check.load(golden("GRPO-ADV"))
    c4 = next(c for c in G.cases("trl") if len(c.expected.get("adv", [])) == 4)
    bad = next(c for c in G.cases("trl") if c.expects_rejection)
    cand = G.candidate()
    cand.add(c4, [0.1, -0.0, math.nan, -math.inf])
    cand.reject(bad, ValueError("no <rewards>"))
    path = cand.write(str(tmp_path / "cand.json"))
    with open(path, encoding="utf-8") as f:
        text = f.read()
    data = json.loads(text)
    assert data == {"results": [{"tcId": c4.tc_id, "outputs": {"adv": [0.1, -0.0, "nan",
                                                                        "-inf"]}},
                                {"tcId": bad.tc_id, "error": "ValueError: no <rewards>"}]} \
        or data["results"][0]["tcId"] == bad.tc_id
    got = {r["tcId"]: r for r in data["results"]}[c4.tc_id]["outputs"]["adv"]
    assert bits(got[0]) == bits(0.1) and bits(got[1]) == bits(-0.0)
    assert "NaN" not in text and "Infinity" not in text


def test_candidate_wrong_outputs_name_the_case():
    G = rlref_check.load(golden("GRPO-ADV"))
    c4 = next(c for c in G.cases("openrlhf") if len(c.expected.get("adv", [])) == 4)
    label = r"tcId %d \[openrlhf\]" % c4.tc_id
    cand = G.candidate()
    with pytest.raises(CandidateError, match=label + r".* output adv: 3 values, the golden "
                       r"expects 4"):
        cand.add(c4, [1.0, 2.0, 3.0])
    with pytest.raises(CandidateError, match=label + r".* output adv: a list of 4 values "
                       r"expected, got a single value"):
        cand.add(c4, 1.0)
    with pytest.raises(CandidateError, match=label + r".*no output named 'advantage'; "
                       r"the golden's are adv"):
        cand.add(c4, {"advantage": [0.0] * 4})
    with pytest.raises(CandidateError, match=label + r".* output adv\[1\]: a nested list"):
        cand.add(c4, [0.0, [1.0], 2.0, 3.0])
    with pytest.raises(CandidateError, match=label + r".* output adv\[2\]: 'x' is not a "
                       r"number"):
        cand.add(c4, [0.0, 1.0, "x", 3.0])
    with pytest.raises(CandidateError, match=label + r".* output adv\[0\]: True is not a "
                       r"number"):
        cand.add(c4, [True, 1.0, 2.0, 3.0])
    with pytest.raises(CandidateError, match=label + r".*: no outputs \(None\)"):
        cand.add(c4, None)
    cand.add(c4, [0.0] * 4)
    with pytest.raises(CandidateError, match=label + r".*: already has a result"):
        cand.reject(c4)
    D = rlref_check.load(golden("DPO-LOSS"))
    d1 = D.cases("sigmoid")[0]
    with pytest.raises(CandidateError, match=r"tcId %d \[sigmoid\].*one value given, but the "
                       r"golden has the outputs loss, losses," % d1.tc_id):
        D.candidate().add(d1, 0.5)
    with pytest.raises(CandidateError, match=r"output loss: a single value expected, got a "
                       r"list of 1"):
        D.candidate().add(d1, {"loss": [0.5]})


def test_numpy_and_torch_outputs():
    np = pytest.importorskip("numpy", reason="NumPy is not installed")
    G = rlref_check.load(golden("GRPO-ADV"))
    c4 = next(c for c in G.cases("trl") if len(c.expected.get("adv", [])) == 4)
    cand = G.candidate()
    cand.add(c4, np.array([0.5, -0.5, 1e-300, np.nan]))
    assert cand.results[c4.tc_id]["outputs"]["adv"] == [0.5, -0.5, 1e-300, "nan"]
    torch = pytest.importorskip("torch", reason="python3-torch is not installed")
    cand = G.candidate()
    cand.add(c4, torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float32))
    want = [float(torch.tensor(x, dtype=torch.float32)) for x in (0.1, 0.2, 0.3, 0.4)]
    assert cand.results[c4.tc_id]["outputs"]["adv"] == want
    D = rlref_check.load(golden("DPO-LOSS"))
    d1 = D.cases("sigmoid")[0]
    cand = D.candidate()
    cand.add(d1, {"loss": torch.tensor(0.25, dtype=torch.float64)})
    assert cand.results[d1.tc_id]["outputs"]["loss"] == 0.25
    with pytest.raises(CandidateError, match=r"output losses: 2 values, the golden expects 1"):
        D.candidate().add(d1, {"losses": torch.zeros(2)})


def test_run_records_exceptions_as_rejections():
    G = rlref_check.load(golden("GRPO-ADV"))
    case = G.cases("trl")[0]
    cand = G.candidate()

    def refuse(rewards):
        raise ZeroDivisionError("float division by zero")
    assert cand.run(case, refuse) is None
    assert cand.results[case.tc_id] == {"tcId": case.tc_id,
                                        "error": "ZeroDivisionError: float division by zero"}
    with pytest.raises(ZeroDivisionError):
        G.candidate().run(case, refuse, errors=(ValueError,))


# --- judging ------------------------------------------------------------------------------------

def openrlhf(rewards, group_size, ddof=1):
    """OpenRLHF's convention, scaled by a power of two (no overflow)."""
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
        var = math.fsum((r - mean) ** 2 for r in group) / (len(group) - ddof)
        out += [(r - mean) / (math.sqrt(var) + 1e-9 / s) for r in group]
    return out


def test_validate_names_the_convention(rlref):
    result = rlref_check.validate(golden("GRPO-ADV"), openrlhf, rlref=rlref)
    assert result.ok and result.exit_status == 0
    assert result.follows == ["openrlhf"] and result.convention == "openrlhf"
    n = len([c for c in rlref_check.load(golden("GRPO-ADV")).cases("openrlhf")
             if not c.expects_rejection])
    assert (result.passed, result.failed) == (n, 0)
    assert result.variants["openrlhf"]["class"] == "match"
    assert "Candidate follows: openrlhf\n" in result.report()
    assert result.report().endswith("%d passed, 0 failed\n" % n)
    assert all(c.passed for c in result.cases.values() if c.counted)


def test_validate_a_wrong_function(rlref, tmp_path):
    def ddof0(rewards, group_size):
        return openrlhf(rewards, group_size, ddof=0)
    kept = str(tmp_path / "kept.json")
    result = rlref_check.validate(golden("GRPO-ADV"), ddof0, variant="openrlhf", rlref=rlref,
                                  candidate=kept)
    assert not result.ok and result.exit_status == 1 and result.follows == []
    bad = result.failures()
    assert bad and result.failed == len(bad)
    for c in bad:
        assert c.variant == "openrlhf" and c.status == "fail"
        assert "FAIL tcId %d [openrlhf]" % c.tc_id in c.message
        assert any(not o.passed and o.err_ulps > o.tol_ulps for o in c.outputs)
        assert c.describe().startswith("tcId %d [openrlhf]" % c.tc_id)
    with open(kept, encoding="utf-8") as f:
        assert len(json.load(f)["results"]) == len(result.cases) == len(
            rlref_check.load(golden("GRPO-ADV")).cases("openrlhf"))


def test_assert_case(rlref):
    G = rlref_check.load(golden("GRPO-ADV"))
    case = next(c for c in G.cases("openrlhf") if c.comment.startswith("ddof 1: 1.5/-0.5"))
    got = rlref_check.assert_case(case, openrlhf, rlref=rlref)
    assert got.status == "pass" and got.tc_id == case.tc_id and len(got.outputs) == 4
    with pytest.raises(AssertionError) as e:
        rlref_check.assert_case(case, lambda rewards, group_size:
                                openrlhf(rewards, group_size, ddof=0), rlref=rlref)
    text = str(e.value)
    assert text.startswith("tcId %d [openrlhf] (%s): FAIL\n" % (case.tc_id, case.comment))
    assert "FAIL tcId %d [openrlhf] adv[0]: expected 1.4999999970000000" % case.tc_id in text
    # a case that must be rejected, answered with NaN: not rejected, whatever the value
    rej = next(c for c in G.cases("verl") if c.expects_rejection and "NonFinite" in c.flags)
    with pytest.raises(AssertionError) as e:
        rlref_check.assert_case(rej, lambda rewards, group_size: [math.nan] * len(rewards),
                                rlref=rlref)
    assert "not rejected (gave NaN or an infinity)" in str(e.value)
    assert rlref_check.assert_case(rej, openrlhf, rlref=rlref).passed


def test_check_errors(tmp_path):
    G = rlref_check.load(os.path.join(FIXTURES, "bt.json"))
    with pytest.raises(CheckError, match="cannot run"):
        rlref_check.check_files(G.path, os.path.join(FIXTURES, "bt_cand.json"),
                                rlref=str(tmp_path / "no-such-rlref"))
    bad = write_json(tmp_path / "bad.json", {"results": [{"tcId": 1}]})
    with pytest.raises(CheckError, match=r"exit status 2\): .*needs one of \"outputs\", "
                       r"\"error\" or \"skip\""):
        rlref_check.check_files(G.path, bad, rlref=RLREF)
    with pytest.raises(CheckError, match="unknown dtype"):
        G.candidate().check(dtype="float16", rlref=RLREF)


def test_repr_names_what_the_report_names(rlref):
    """repr shows the verdict lines: a float64 run with a float32 step follows no variant at
    its dtype (follows == []) and says at which accuracy it follows trl."""
    result = rlref_check.check_files(golden("GRPO-ADV"),
                                     os.path.join(REAL, "GRPO-ADV", "trl-group-float64.json"),
                                     rlref=rlref)
    assert result.follows == [] and result.convention == "trl"
    text = repr(result)
    assert "Candidate follows trl at float32 accuracy" in text, text
    assert result.verdicts == [p["line"] for p in result.parts if p["line"]]


def test_validate_every_variant_of_a_golden_of_several_parts(rlref):
    """k and grad for every case of KL-K3, whose naive part has other outputs: the outputs a
    case does not have are left out of it, and the candidate is judged on what it gives."""
    def k3(logp, ref_logp, **unused):
        if not logp or len(logp) != len(ref_logp) or not all(map(math.isfinite, logp + ref_logp)):
            raise ValueError("bad input")
        ls = [a - b for a, b in zip(logp, ref_logp)]
        return {"k": [math.expm1(-l) + l for l in ls], "grad": [-math.expm1(-l) for l in ls]}
    result = rlref_check.validate(golden("KL-K3"), k3, rlref=rlref)
    assert result.convention == "stable", result.report()
    assert set(result.outputs_judged) == {"k", "grad"}
    assert "k_naive" in result.outputs_not_judged


def test_an_output_omitted_in_some_cases(rlref):
    """Candidate.add(omitted=...): an output the implementation has no value for in a case is
    named with its reason, not judged there, and the candidate still follows its variant;
    an omitted output that is given, or not one of the case's, is refused."""
    g = rlref_check.load(golden("GRPO-GSPO"))
    cand = rlref_check.Candidate(g)
    cases = [c for c in g.cases("openrlhf")]
    first = next(c for c in cases if not c.expects_rejection)
    for c in cases:
        if c.expects_rejection:
            cand.reject(c, c.expected_error or "EDOM")
            continue
        out = dict(c.expected)
        if c is first:
            del out["s"]
            cand.add(c, out, omitted={"s": "no ratio for an empty row"})
        else:
            cand.add(c, out)
    result = cand.check(variant="openrlhf", rlref=rlref)
    assert result.convention == "openrlhf", result.report()
    assert "Omitted by the candidate: s in tcId %d" % first.tc_id in result.report()
    with pytest.raises(CandidateError):
        rlref_check.Candidate(g).add(first, dict(first.expected), omitted={"s": "given anyway"})
