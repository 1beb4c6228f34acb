"""The two judges agree: rlref.judge (Python) and `rlref check` (C) give the same report,
field for field -- every case's status, errors and lines, every variant's counts, class,
accuracy and rank, each part's answer, verdict line, the variants also consistent with it, its
input validation and its explanation, the closing counts, the exit status and the text report
-- on every candidate of the test suite
(the recordings of the real libraries, the hand-made fixtures, the planted-bug
implementations) and on mutated candidates: one value nudged past the tolerance, every output
scaled or its sign flipped, values rounded to float32 or bfloat16, a valid case rejected, a
must-reject case answered with NaN, a result dropped, under the checker's options (--dtype,
--strict, --variant, --ulps, --rtol, --outputs).  A file the checker refuses is refused by
both."""

import glob
import json
import math
import os
import random
import struct
import subprocess
import sys

import pytest

import rlref
from conftest import FIXTURES, GOLDEN, REAL, TOP, run_check

sys.path.insert(0, os.path.join(TOP, "tests", "check_cmd"))
import test_planted  # noqa: E402  (the planted-bug implementations)

# fields whose value is a log10 (not correctly rounded in either judge): equal within this
LOG_FIELDS = {"digits"}
LOG_TOL = 1e-9


def c_report(golden, cand, opts):
    rc, out, err = run_check(golden, cand, "--format", "json", *opts)
    if rc == 2:
        return None, err
    return json.loads(out), None


def py_options(opts):
    """The checker's command-line options as rlref.judge's keyword arguments."""
    kw, i = {}, 0
    while i < len(opts):
        o = opts[i]
        if o in ("--strict", "--no-explain", "--verbose"):
            kw[{"--strict": "strict", "--no-explain": "explain", "--verbose": "verbose"}[o]] = \
                o != "--no-explain"
            i += 1
            continue
        key = {"--dtype": "dtype", "--variant": "variant", "--ulps": "ulps", "--rtol": "rtol",
               "--outputs": "outputs"}[o]
        kw[key] = opts[i + 1]
        i += 2
    return kw


def differences(py, c, path=""):
    """Where the Python judgement py differs from the C report c (every field of either)."""
    out = []
    if isinstance(py, dict):
        if not isinstance(c, dict):
            return ["%s: %r against %r" % (path, py, c)]
        out += ["%s%s: absent from the Python judgement" % (path, k) for k in c if k not in py]
        for k, v in py.items():
            if k not in c:
                out.append("%s%s: absent from the C report" % (path, k))
            elif k in LOG_FIELDS and isinstance(v, float) and isinstance(c[k], (int, float)):
                if abs(v - c[k]) > LOG_TOL:
                    out.append("%s%s: %r against %r" % (path, k, v, c[k]))
            else:
                out += differences(v, c[k], path + k + ".")
    elif isinstance(py, list):
        if not isinstance(c, list) or len(py) != len(c):
            return ["%s: %r against %r" % (path, py, c)]
        for i, (a, b) in enumerate(zip(py, c)):
            out += differences(a, b, "%s%d." % (path, i))
    elif py != c and not (isinstance(py, float) and isinstance(c, (int, float)) and py == c):
        out.append("%s: %r against %r" % (path, py, c))
    return out


def assert_agree(golden, cand, opts=()):
    opts = list(opts)
    c, refused = c_report(golden, cand, opts)
    if c is None:
        with pytest.raises(rlref.JudgeError):
            rlref.judge(golden, cand, **py_options(opts))
        return
    py = rlref.judge(golden, cand, **py_options(opts)).to_json()
    diff = differences(py, c)
    assert not diff, "%d differences, the first: %s" % (len(diff), "\n".join(diff[:8]))
    return py


# --- every candidate of the test suite -----------------------------------------------------

RECORDINGS = sorted(glob.glob(os.path.join(REAL, "*", "*.json")))


def golden_of(recording):
    return os.path.join(GOLDEN, os.path.basename(os.path.dirname(recording)) + ".json")


@pytest.mark.parametrize("recording", RECORDINGS,
                         ids=[os.path.relpath(r, REAL)[:-5] for r in RECORDINGS])
def test_recordings_of_the_real_libraries(recording):
    assert_agree(golden_of(recording), recording)


FIXTURE_RUNS = [("bt", "bt_cand", []), ("grpo2", "grpo2_cand_trl", []),
                ("grpo2", "grpo2_cand_trl_f32", []), ("grpo2", "grpo2_cand_trl_f32",
                                                       ["--dtype", "float32"]),
                ("grpo2", "grpo2_cand_trl_only", []), ("grpo2", "grpo2_cand_trl_perturbed", []),
                ("grpo2", "grpo2_cand_verl", ["--strict"]),
                ("grpo2", "grpo2_cand_verl", ["--variant", "trl"]),
                ("grpo2", "grpo2_cand_trl_perturbed", ["--rtol", "1e-3"])]


@pytest.mark.parametrize("golden,cand,opts", FIXTURE_RUNS,
                         ids=["%s %s" % (c, " ".join(o)) for _, c, o in FIXTURE_RUNS])
def test_fixtures(golden, cand, opts):
    assert_agree(os.path.join(FIXTURES, golden + ".json"),
                 os.path.join(FIXTURES, cand + ".json"), opts)


@pytest.mark.parametrize("scenario", test_planted.SCENARIOS,
                         ids=["%s %s %s" % (s[0], s[2].__name__, s[3]) for s in
                              test_planted.SCENARIOS])
def test_planted_bugs(scenario, tmp_path):
    formula, part, fn, bug, variant, _ = scenario
    path = tmp_path / "c.json"
    path.write_text(json.dumps(test_planted.candidate(formula, part, fn, bug)))
    py = assert_agree(os.path.join(GOLDEN, formula + ".json"), str(path),
                      ["--variant", variant] if variant else [])
    if bug is not None:     # the planted bug is explained by both, the same way
        assert any(p["explanation"] for p in py["parts"])


# --- mutated candidates --------------------------------------------------------------------

def _f32(x):
    return struct.unpack("f", struct.pack("f", x))[0] if math.isfinite(x) and \
        abs(x) < 3.4e38 else x


def _bf16(x):
    if not math.isfinite(x) or abs(x) > 3.3e38:
        return x
    b = struct.unpack("I", struct.pack("f", x))[0]
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("f", struct.pack("I", b))[0]


def _map_values(res, fn):
    def one(v):
        if isinstance(v, list):
            return [one(e) for e in v]
        x = float(v) if not isinstance(v, str) else (float(v) if v in ("nan", "inf", "-inf")
                                                     else float.fromhex(v) if "0x" in v
                                                     else float(v))
        y = fn(x)
        return "nan" if math.isnan(y) else ("inf" if y > 0 else "-inf") if math.isinf(y) \
            else y
    if "outputs" in res:
        res["outputs"] = {k: one(v) for k, v in res["outputs"].items()}


def _outputs(cand):
    return [r for r in cand["results"] if "outputs" in r and r["outputs"]]


def mutate(cand, golden, kind, rng):
    """Candidate cand changed by one mutation of the kind named (a new object)."""
    c = json.loads(json.dumps(cand))
    answered = _outputs(c)
    valid = {t["tcId"] for g in golden["testGroups"] for t in g["tests"]
             if t["result"] == "valid"}
    invalid = {t["tcId"] for g in golden["testGroups"] for t in g["tests"]
               if t["result"] == "invalid"}
    if kind == "nudge" and answered:
        r = rng.choice([r for r in answered if r["tcId"] in valid] or answered)
        name = rng.choice(sorted(r["outputs"]))
        v = r["outputs"][name]
        i = rng.randrange(len(v)) if isinstance(v, list) and v else None
        tmp = {"outputs": {"v": v if i is None else v[i]}}
        _map_values(tmp, lambda x: x * (1 + 1e-9) + 1e-12)
        if i is None:
            r["outputs"][name] = tmp["outputs"]["v"]
        else:
            v[i] = tmp["outputs"]["v"]
    elif kind in ("times2", "negate", "float32", "bfloat16"):
        fn = {"times2": lambda x: 2 * x, "negate": lambda x: -x, "float32": _f32,
              "bfloat16": _bf16}[kind]
        for r in answered:
            _map_values(r, fn)
    elif kind == "reject-valid":
        rs = [r for r in c["results"] if r["tcId"] in valid]
        if rs:
            r = rng.choice(rs)
            r.pop("outputs", None)
            r.pop("omitted", None)
            r.pop("skip", None)
            r["error"] = "ValueError: mutated"
    elif kind == "accept-invalid":
        rs = [r for r in c["results"] if r["tcId"] in invalid and "error" in r]
        model = answered[0]["outputs"] if answered else None
        if rs and model:
            r = rng.choice(rs)
            del r["error"]
            r["outputs"] = {k: ["nan"] * len(v) if isinstance(v, list) else "nan"
                            for k, v in model.items()}
    elif kind == "drop" and c["results"]:
        del c["results"][rng.randrange(len(c["results"]))]
    return c


MUTATIONS = ["nudge", "times2", "negate", "float32", "bfloat16", "reject-valid",
             "accept-invalid", "drop"]
OPTIONS = [[], ["--strict"], ["--dtype", "float32"], ["--ulps", "4"], ["--rtol", "1e-6"],
           ["--verbose"], ["--no-explain"]]
# every fourth recording, each under two mutations and a choice of options
MUTATED = [(rec, MUTATIONS[(i + j) % len(MUTATIONS)], OPTIONS[(i + 2 * j) % len(OPTIONS)])
           for i, rec in enumerate(RECORDINGS[::4]) for j in range(2)]


@pytest.mark.parametrize("recording,kind,opts", MUTATED,
                         ids=["%s %s %s" % (os.path.relpath(r, REAL)[:-5], k, " ".join(o))
                              for r, k, o in MUTATED])
def test_mutated_candidates(recording, kind, opts, tmp_path):
    with open(recording) as f:
        cand = json.load(f)
    with open(golden_of(recording)) as f:
        golden = json.load(f)
    rng = random.Random("%s %s" % (os.path.basename(recording), kind))
    path = tmp_path / "m.json"
    path.write_text(json.dumps(mutate(cand, golden, kind, rng)))
    assert_agree(golden_of(recording), str(path), opts)


def _mutated(recording, kind, tmp_path):
    with open(recording) as f:
        cand = json.load(f)
    with open(golden_of(recording)) as f:
        golden = json.load(f)
    path = tmp_path / ("%s.json" % kind)
    path.write_text(json.dumps(mutate(cand, golden, kind, random.Random(kind))))
    return str(path)


def test_mutations_reach_every_verdict(tmp_path):
    """The mutations move a candidate that follows a variant to each kind of verdict, the same
    in both judges: explained as that variant scaled, at float32 accuracy, and failing
    --strict on an input it accepts."""
    rec = os.path.join(REAL, "GRPO-ADV", "verl-grpo-vectorized-float64.json")
    want = "verl-vectorized-old-float64"
    golden = golden_of(rec)
    assert assert_agree(golden, rec)["parts"][0]["verdict"] == "match"
    scaled = assert_agree(golden, _mutated(rec, "times2", tmp_path))["parts"][0]
    assert scaled["verdict"] == "no-match"
    assert "follows %s with every output times 2" % want in scaled["explanation"]["text"]
    f32 = assert_agree(golden, _mutated(rec, "float32", tmp_path))["parts"][0]
    assert f32["verdict"] == "float32-accuracy" and f32["answer"] == want
    before = assert_agree(golden, rec, ["--strict"])["parts"][0]["validation"]["accepted"]
    with open(golden) as f:
        ids = [t["tcId"] for g in json.load(f)["testGroups"] if g["variant"] == want
               for t in g["tests"] if t["result"] == "invalid"]
    with open(rec) as f:
        cand = json.load(f)
    r = next(r for r in cand["results"] if r["tcId"] in ids and "error" in r)
    r.pop("error")
    r["outputs"] = {"adv": ["nan"]}
    path = tmp_path / "accepts.json"
    path.write_text(json.dumps(cand))
    accepted = assert_agree(golden, str(path), ["--strict"])
    assert accepted["summary"]["exitStatus"] == 1
    assert accepted["parts"][0]["validation"]["accepted"] == sorted(before + [r["tcId"]])


def test_outputs_option_and_variant_scope():
    rec = os.path.join(REAL, "DPO-LOSS", "trl-sigmoid-float64.json")
    golden = golden_of(rec)
    assert_agree(golden, rec, ["--outputs", "loss"])
    assert_agree(golden, rec, ["--variant", "trl-ipo"])


@pytest.mark.parametrize("bad", ["not json", '{"results": 1}', '{"results": [{"tcId": 1}]}',
                                 '{"results": [{"tcId": 1, "outputs": {"adv": null}}]}',
                                 '{"results": [{"tcId": 1, "error": "E"}, '
                                 '{"tcId": 1, "error": "E"}]}'])
def test_refused_by_both(bad, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(bad)
    golden = os.path.join(GOLDEN, "GRPO-ADV.json")
    assert c_report(golden, str(path), [])[0] is None
    with pytest.raises(rlref.JudgeError):
        rlref.judge(golden, str(path))


def test_another_schema_version_refused(tmp_path):
    with open(os.path.join(GOLDEN, "GRPO-ADV.json")) as f:
        g = json.load(f)
    g["schemaVersion"] = 2
    path = tmp_path / "g.json"
    path.write_text(json.dumps(g))
    with pytest.raises(rlref.JudgeError, match="schemaVersion"):
        rlref.judge(str(path), os.path.join(REAL, "GRPO-ADV", "trl-group-float64.json"))


# --- without the rlref command -------------------------------------------------------------

SCRIPT = r"""
import json, sys, rlref_check
r = rlref_check.check_files(sys.argv[1], sys.argv[2])
print(json.dumps({"exit": r.exit_status, "parts": r.parts, "text": r.report()}))
"""


def _without_command(tmp_path, golden, cand, library):
    """rlref_check.check_files from a copy of oracles/python with no rlref tree around it:
    no rlref command, the shared library only where library is set."""
    import shutil
    pkg = tmp_path / "pkg"
    if not pkg.exists():
        shutil.copytree(os.path.join(TOP, "oracles", "python"), str(pkg),
                        ignore=shutil.ignore_patterns("__pycache__", "examples"))
    env = {k: v for k, v in os.environ.items() if k not in ("RLREF", "RLREF_ORACLES_LIB")}
    env.update(PYTHONPATH=str(pkg), RLREF_GOLDEN_DIR=GOLDEN, PATH="/usr/bin:/bin")
    if library:
        env["RLREF_ORACLES_LIB"] = os.path.join(TOP, "build", "lib", "librlref_oracles.so")
    out = subprocess.run([sys.executable, "-c", SCRIPT, golden, cand], env=env,
                         cwd=str(tmp_path), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_validate_without_the_command(tmp_path):
    """Without the rlref command, rlref_check judges with rlref.judge: the verdict of `rlref
    check`; the explanation needs the shared library and says so where it is missing."""
    rec = os.path.join(REAL, "GRPO-ADV", "verl-grpo-vectorized-float64.json")
    golden = golden_of(rec)
    r = _without_command(tmp_path, golden, rec, library=False)
    assert r["exit"] == 0 and r["parts"][0]["answer"] == "verl-vectorized-old-float64"
    scaled = _mutated(rec, "times2", tmp_path)
    c, _ = c_report(golden, scaled, [])
    r = _without_command(tmp_path, golden, scaled, library=False)
    assert r["exit"] == 1 and r["parts"][0]["nearest"] == c["parts"][0]["nearest"]
    assert "Unexplained: the reference library is not loaded" in r["text"]
    r = _without_command(tmp_path, golden, scaled, library=True)
    assert "with every output times 2" in r["parts"][0]["explanation"]["text"]
    assert r["parts"][0]["explanation"] == c["parts"][0]["explanation"]
