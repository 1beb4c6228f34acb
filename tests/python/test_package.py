"""The rlref package (oracles/python/rlref): goldens found by id from anywhere, cases chosen by
variant, outcome and flag, named by tcId in pytest, the tolerance rule's assert_close, and the
package installed offline with pip into a virtual environment, where a user's pytest files
validate NumPy's and torch's advantages against the golden and property-test them against
rlref.eval with hypothesis (the torch one skipped, saying so, without python3-torch)."""

import math
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import rlref
from conftest import TOP

PKG = os.path.join(TOP, "oracles", "python")
PY = sys.executable


def test_golden_by_id_from_another_folder(tmp_path):
    code = "import rlref; G = rlref.golden('GRPO-ADV'); print(G.formula, len(G))"
    out = subprocess.run([PY, "-c", code], cwd=str(tmp_path), capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=PKG), check=True).stdout
    assert out.split() == ["GRPO-ADV", str(len(rlref.golden(os.path.join(TOP, "golden",
                                                                           "GRPO-ADV.json"))))]


def test_unknown_id_names_neighbours():
    with pytest.raises(rlref.GoldenError, match="GRPO-ADV-BOUND"):
        rlref.golden("GRPO-ADVX")


def test_cases_filters():
    G = rlref.golden("GRPO-ADV")
    trl = G.cases(variant="trl")
    valid = G.cases(variant="trl", result="valid")
    invalid = G.cases(result="invalid")
    assert valid and invalid and len(valid) < len(trl)
    assert all(c.result == "valid" and c.variant == "trl" for c in valid)
    assert all(c.expects_rejection for c in invalid)
    numerical = [c for c in trl if "NUMERICAL" in G.flag_kinds(c)]
    kept = G.cases(variant="trl", skip_flags=("NUMERICAL",))
    assert numerical and len(kept) == len(trl) - len(numerical)
    by_flag = G.cases(variant="trl", skip_flags="ZeroVariance")
    assert len(by_flag) == len(trl) - sum("ZeroVariance" in c.flags for c in trl)
    with pytest.raises(ValueError, match="valid, acceptable, invalid"):
        G.cases(result="passing")
    with pytest.raises(rlref.UnknownVariant):
        G.cases(variant="nope")


def test_assert_close_uses_sens():
    # tcId 143: expected 0 with sens 1330; -1.39e-13 is within 32 2^-53 1330
    c = rlref.golden("GRPO-ADV").case(143)
    got = [-1.39e-13, 0.0, 1.39e-13]
    rlref.assert_close(c.expected["adv"], got, sens=c.sens["adv"])
    with pytest.raises(AssertionError, match="Mismatched elements: 2 / 3"):
        rlref.assert_close(c.expected["adv"], got)
    assert rlref.tolerance(0.0, 1330.0) == 32 * 2.0 ** -53 * 1330


def test_assert_close_report():
    with pytest.raises(AssertionError) as e:
        rlref.assert_close([[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.0 + 1e-9]])
    text = str(e.value)
    assert "Mismatched elements: 1 / 4 (25.0%)" in text
    assert "index (1, 1)" in text and "correct digits" in text and "u = 2^-53" in text
    rlref.assert_close([1.0, 2.0], [1.0, 2.0 + 1e-9], dtype="float32")
    rlref.assert_close([math.nan, math.inf], [math.nan, math.inf])
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        rlref.assert_close([math.nan, 1.0], [0.0, 1.0])
    with pytest.raises(AssertionError, match="expected 2 values"):
        rlref.assert_close([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="dtype"):
        rlref.assert_close(1.0, 1.0, dtype="float16")


def test_installed_package(tmp_path):
    """pip install --no-build-isolation (offline, into a virtual environment that sees Debian's
    packages): the goldens travel with the package, and the plugin names the cases."""
    venv, src = tmp_path / "venv", tmp_path / "src"
    # a copy, so that the build's by-products stay out of the tree
    shutil.copytree(PKG, str(src), ignore=shutil.ignore_patterns("build", "*.egg-info",
                                                                 "__pycache__"))
    subprocess.run([PY, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-index",
                          "--no-build-isolation", str(src)], capture_output=True, text=True,
                         env=dict(os.environ, RLREF_GOLDEN_DIR=os.path.join(TOP, "golden"),
                                  RLREF_ORACLES_LIB=os.path.join(TOP, "build", "lib",
                                                                 "librlref_oracles.so")))
    assert pip.returncode == 0, pip.stderr
    work = tmp_path / "work"
    work.mkdir()
    (work / "test_user.py").write_text(textwrap.dedent("""\
        import pytest, rlref
        G = rlref.golden("GRPO-ADV")

        @pytest.mark.parametrize("case", G.cases(variant="trl", result="valid")[:2])
        def test_adv(case):
            rlref.assert_close(case.expected["adv"], case.expected["adv"], sens=case.sens["adv"])
        """))
    # a user's files: validate NumPy's and torch's advantages against the golden and
    # property-test them against rlref.eval with hypothesis, from the installed package alone
    for name in ("test_numpy_grpo.py", "test_torch_grpo.py"):
        shutil.copy(os.path.join(PKG, "examples", name), str(work / name))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RLREF")}
    run = subprocess.run([str(venv / "bin" / "python"), "-m", "pytest", "-v", "-rs", "-p",
                          "no:cacheprovider", "test_user.py", "test_numpy_grpo.py",
                          "test_torch_grpo.py"], cwd=str(work), env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "test_adv[tcId 137 ddof 1: 1.5/-0.5" in run.stdout
    for test in ("test_numpy_grpo.py::test_follows_trl", "test_numpy_grpo.py::test_against"):
        assert re.search(re.escape(test) + r"\S* PASSED", run.stdout), run.stdout
    torch_ran = re.search(r"test_torch_grpo.py::test_against\S* PASSED", run.stdout)
    assert torch_ran or "torch is not installed (python3-torch)" in run.stdout, run.stdout
    code = ("import rlref; print(rlref.golden_dir()); print(rlref.library_path()); "
            "print(rlref.eval('PREF-BT', rw=1.5, rl=0.0)['p'].value)")
    lines = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=str(work), env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    assert lines[0].startswith(str(venv)) and lines[1].startswith(str(venv))
    assert lines[2].startswith("0.81757447619364365960721717865624824754624084358")


USER_TESTS = """\
import math, pytest, rlref

def adv(rewards, group_size):          # seed 000's reading, written naively
    out = []
    for g in range(0, len(rewards), group_size):
        r = rewards[g:g + group_size]
        m = sum(r) / len(r)
        s = math.sqrt(sum((x - m) ** 2 for x in r) / len(r))
        out += [(x - m) / s if s > 0 else 0.0 for x in r]
    return out

def test_validate(rlref_validate):
    rlref_validate("GRPO-ADV", adv)

@pytest.mark.rlref("GRPO-ADV", variant="seed-000", result="valid")
def test_case(rlref_case):
    rlref.assert_close(rlref_case.expected["adv"], adv(**rlref_case.args),
                       sens=rlref_case.sens["adv"])
"""


def test_plugin_marker_fixture_report(tmp_path):
    """The marker parametrizes by the golden's cases, the fixture judges with rlref check, and
    the verdict reaches pytest's summary, its JUnit XML and --rlref-report: a naive seed-000
    advantage fails the cases whose sums overflow or cancel (tcIds 7, 26, 27, 30)."""
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    env = dict(os.environ, PYTHONPATH=PKG)
    run = subprocess.run([PY, "-m", "pytest", "-p", "rlref.pytest_plugin", "-p",
                          "no:cacheprovider", "-q", "--rlref-report=out.json",
                          "--junitxml=j.xml", "test_user.py"], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True)
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    assert "rlref verdicts" in out
    assert "FAIL test_user.py::test_validate GRPO-ADV: Candidate matches no variant; nearest: " \
           "seed-000" in out
    failed = sorted(int(l.split("tcId ")[1].split()[0]) for l in out.splitlines()
                    if l.startswith("FAILED test_user.py::test_case["))
    assert failed == [7, 26, 27, 30]
    assert "5 failed, 21 passed" in out
    report = json.loads((tmp_path / "out.json").read_text())
    assert [r["formula"] for r in report] == ["GRPO-ADV"] and report[0]["ok"] is False
    assert "nearest: seed-000" in report[0]["verdicts"][0]
    assert 'name="rlref_verdict" value="Candidate matches no variant; nearest: seed-000' \
        in (tmp_path / "j.xml").read_text()


def _cli(*args):
    out = subprocess.run([os.environ["RLREF"], "eval"] + list(args), capture_output=True,
                         text=True)
    return out.returncode, out.stdout, out.stderr


@pytest.mark.parametrize("formula, variant, inputs", [
    ("PREF-BT", None, {"rw": 1.5, "rl": 0.0}),
    ("GRPO-ADV", "trl", {"rewards": [0.1, 0.1, 0.1 + 2 ** -40], "group_size": 3}),
    ("KL-K3", "stable", {"logp": [-0.5, -700.0], "ref_logp": [-0.25, 0.0]}),
    ("DPO-LOSS", None, {"logp_w": [-1.0], "logp_l": [-2.5], "ref_w": [-1.25], "ref_l": [-2.0],
                    "n_w": [1], "n_l": [1]}),
])
def test_eval_is_rlref_eval(formula, variant, inputs):
    """rlref.eval in the process gives what `rlref eval` prints: every digit and double."""
    args = [formula] + (["--variant", variant] if variant else [])
    args += ["%s=%s" % (k, ",".join(float(e).hex() if isinstance(e, float) else str(e)
                                     for e in (v if isinstance(v, list) else [v])))
             for k, v in inputs.items()]
    code, out, err = _cli(*args)
    assert code == 0, err
    want = json.loads(out)["outputs"]
    got = rlref.eval(formula, variant, **inputs)
    assert set(got) == set(want)
    for name, w in want.items():
        g = got[name] if isinstance(got[name], list) else [got[name]]
        w = w if isinstance(w, list) else [w]
        assert [(e.value, e.digits, e.double) for e in g] == \
            [(e["value"], e["digits"], float.fromhex(e["double_hex"])) for e in w]


def test_eval_errors():
    with pytest.raises(rlref.UnknownFormula, match="unknown formula 'NOPE'"):
        rlref.eval("NOPE", x=1.0)
    with pytest.raises(rlref.UnknownFormula, match="no variant 'nope'; it has: seed-000"):
        rlref.eval("GRPO-ADV", "nope", rewards=[1.0, 0.0])
    with pytest.raises(rlref.UnknownFormula, match="unknown input 'zz'"):
        rlref.eval("PREF-BT", rw=1.0, rl=0.0, zz=2.0)
    with pytest.raises(rlref.Rejected) as e:
        rlref.eval("KLOPT-Z", p_ref=[0.5, 0.5], r=[1.0, 0.0], beta=0.0)
    assert e.value.status == "EDOM"
    with pytest.raises(rlref.Rejected) as e:
        rlref.eval("PREF-BT", rw=math.nan, rl=0.0)
    assert e.value.status == "ENAN"
    with pytest.raises(TypeError, match="boolean"):
        rlref.eval("PREF-BT", rw=True, rl=0.0)
    with pytest.raises(rlref.UnknownFormula, match="precision"):
        rlref.eval("PREF-BT", prec=8, rw=1.0, rl=0.0)
    # the wrong shape or type, named with what the formula declares
    with pytest.raises(TypeError, match="input rw of PREF-BT is a list of 2: a number is "
                       "expected"):
        rlref.eval("PREF-BT", rw=[1.0, 2.0], rl=0.0)
    with pytest.raises(TypeError, match=r"rewards of GRPO-ADV is float 1.0: a list of numbers "
                       r"is expected \(\[x\] for one element\)"):
        rlref.eval("GRPO-ADV", "trl", rewards=1.0, group_size=1)
    with pytest.raises(TypeError, match="group_size of GRPO-ADV holds 1.5: an integer"):
        rlref.eval("GRPO-ADV", "trl", rewards=[1.0, 2.0], group_size=1.5)
    with pytest.raises(TypeError, match="rewards of GRPO-ADV holds 'a': a list of numbers"):
        rlref.eval("GRPO-ADV", "trl", rewards=[1.0, "a"], group_size=2)


# --- hypothesis against rlref.eval ---------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
import rlref.strategies as rs  # noqa: E402


def _bt_stable(rw, rl):
    d = rw - rl
    return 1 / (1 + math.exp(-d)) if d >= 0 else math.exp(d) / (1 + math.exp(d))


def _bt_swapped(rw, rl):
    return _bt_stable(rl, rw)


def _k3_stable(logp, ref_logp):
    """e^d - 1 - d, d = ref_logp - logp: its series where |d| < 1/2 (expm1(d) - d cancels
    there), expm1(d) - d beyond."""
    out = []
    for l, r in zip(logp, ref_logp):
        d = r - l
        if abs(d) < 0.5:
            term, total = d, 0.0
            for k in range(2, 24):
                term *= d / k
                total += term
            out.append(total)
        else:
            out.append(math.expm1(d) - d)
    return out


def _k3_naive(logp, ref_logp):
    return [math.exp(r - l) - 1 - (r - l) for l, r in zip(logp, ref_logp)]


def _property(formula, variant, output, fn):
    """A hypothesis test: fn within the tolerance of rlref.eval on every drawn input, or both
    refusing it."""
    @hypothesis.settings(max_examples=150, deadline=None, database=None,
                         suppress_health_check=list(hypothesis.HealthCheck))
    @hypothesis.given(rs.inputs(formula, variant))
    def prop(x):
        try:
            want = rlref.eval(formula, variant, want_sens=True, **x)[output]
        except rlref.Rejected:
            return
        rlref.assert_close(want, fn(**x))
    return prop


@pytest.mark.parametrize("formula, variant, output, good, bad", [
    ("PREF-BT", "stable", "p", _bt_stable, _bt_swapped),
    ("KL-K3", "stable", "k", _k3_stable, _k3_naive),
])
def test_hypothesis_bridge(formula, variant, output, good, bad):
    """The strategies draw around the golden's cases; a right implementation passes against
    rlref.eval, a planted bug (the preference reversed, k3's cancellation near 0) fails with a
    counterexample."""
    _property(formula, variant, output, good)()
    with pytest.raises(AssertionError, match="Mismatched elements"):
        _property(formula, variant, output, bad)()


def test_strategies_follow_declarations():
    """A declared domain holds in every draw (KLOPT-Z's beta in (0, inf), p_ref a
    distribution), and integers stay the golden's."""
    @hypothesis.settings(max_examples=100, deadline=None, database=None)
    @hypothesis.given(rs.inputs("KLOPT-Z", "prob"), rs.inputs("GRPO-ADV", "trl"))
    def prop(k, g):
        assert k["beta"] > 0 and len(k["p_ref"]) == len(k["r"])
        assert abs(sum(k["p_ref"]) - 1) < 2 ** -20 and min(k["p_ref"]) >= 0
        assert len(g["rewards"]) % g["group_size"] == 0
    prop()
    with pytest.raises(rlref.UnknownFormula, match="no variant"):
        rs.inputs("GRPO-ADV", "nope")
