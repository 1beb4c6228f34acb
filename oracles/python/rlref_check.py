"""rlref_check -- validate an implementation against rlref's golden files from Python.

Standard library only, Python 3.9 or later.  Install it by copying this one file next to your
tests, or by adding its folder (``oracles/python`` of the rlref tree) to ``PYTHONPATH``.  Judging
runs the built ``rlref`` command: the one given as ``rlref=``, else ``$RLREF``, else
``build/bin/rlref`` of the rlref tree this file sits in, else ``rlref`` on ``PATH``; where there
is none and the ``rlref`` package sits beside this file (``oracles/python/rlref``, or installed),
its Python judge gives the same report.

Validate a function on every case of a golden file and ask which convention it follows::

    import rlref_check
    result = rlref_check.validate("golden/GRPO-ADV.json", my_advantage)
    print(result.report())          # the text report of `rlref check`; result.ok when it passes

The function is called once per case with the case's inputs as keyword arguments (those it
names; ``**kwargs`` takes them all), exactly as the golden's binary64 values: Python floats
(``nan``, ``inf`` and ``-0.0`` included), ints and lists of them.  It returns the value of the
golden's output, or a dict of output name to value when the golden has several.  Values may be
floats, ints, lists, NumPy arrays or torch tensors (converted with ``tolist()``); neither NumPy
nor torch is needed.  It may give a subset of the golden's outputs (the report says which it
judged).  An exception it raises is recorded as a rejection of the input; the golden says which
inputs must be rejected.  Those are judged apart, as input validation: the verdict (which
convention, at which accuracy) is decided on the other cases, and ``strict=True`` makes an
input the function accepts where the golden rejects it (a NaN included) fail the check.

With pytest, one test per case of a variant, named by tcId and comment::

    G = rlref_check.load("golden/GRPO-ADV.json")

    @pytest.mark.parametrize("case", G.cases("openrlhf"), ids=rlref_check.case_id)
    def test_advantage(case):
        rlref_check.assert_case(case, my_advantage)

``assert_case`` judges that one case with ``rlref check`` and raises AssertionError with the
report's lines for it (tcId, variant, output, expected, got, error in ulps, correct digits).

By hand: ``Golden.cases(variant)`` gives the cases (``Case.args``, ``Case.expects_rejection``,
``Case.expected``), ``Candidate.add`` / ``Candidate.reject`` / ``Candidate.run`` collect the
results, ``Candidate.write`` writes the candidate file and ``Candidate.check`` runs
``rlref check --format json`` and returns a ``CheckResult``: per case pass or fail with the error
in ulps and digits of every output, per variant passed and failed, per part the convention named
first and the others consistent with the candidate, the input validation, the explanation of a
candidate that follows no variant ("follows trl with ddof 0 in place of 1"), the exit status and
the text report.

Bad input raises an ``RlrefError`` naming the file or the case: ``GoldenError`` (a golden of
another schema version, malformed), ``UnknownCase`` and ``UnknownVariant`` (a tcId or variant
the golden does not have), ``CandidateError`` (an output of the wrong length, name or type),
``CheckError`` (``rlref check`` could not run or judge the files).
"""

import decimal
import inspect
import json
import math
import numbers
import os
import shutil
import subprocess
import tempfile

__all__ = [
    "SCHEMA_VERSION", "REPORT_VERSION", "RlrefError", "GoldenError", "UnknownCase",
    "UnknownVariant", "CandidateError", "CheckError", "Golden", "Case", "Candidate",
    "CheckResult", "CaseResult", "OutputResult", "load", "validate", "check_files",
    "assert_case", "case_id", "find_rlref",
]

SCHEMA_VERSION = 1      # of the golden files this module reads
REPORT_VERSION = 2      # of the JSON report of `rlref check --format json`
_SPECIALS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class RlrefError(Exception):
    """Every error of this module."""


class GoldenError(RlrefError, ValueError):
    """A golden file that cannot be read: another schema version, or malformed."""


class UnknownCase(RlrefError, LookupError):
    """A tcId the golden does not have."""


class UnknownVariant(RlrefError, LookupError):
    """A variant the golden does not have."""


class CandidateError(RlrefError, ValueError):
    """An output that does not fit its case: unknown name, wrong length, not a number."""


class CheckError(RlrefError):
    """`rlref check` could not be run, or refused the files (its exit status 2)."""


# --- reading the golden -------------------------------------------------------------------------

def _decode(value, where):
    """A golden input as Python: {"dec", "hex"} -> float (from hex, exact), int -> int, list ->
    list.  The decimal and hex fields must name the same double."""
    if isinstance(value, bool):
        raise GoldenError("%s: a boolean is not an input value" % where)
    if isinstance(value, int):
        return value
    if isinstance(value, list):
        return [_decode(v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]
    if isinstance(value, dict) and isinstance(value.get("hex"), str):
        x = _hex_float(value["hex"], where)
        dec = value.get("dec")
        if isinstance(dec, str):
            try:
                d = float(dec)
            except ValueError:
                raise GoldenError("%s: \"dec\" %r is not a number" % (where, dec)) from None
            if not (d == x and math.copysign(1.0, d) == math.copysign(1.0, x)
                    or math.isnan(d) and math.isnan(x)):
                raise GoldenError("%s: \"dec\" %s and \"hex\" %s are different numbers"
                                  % (where, dec, value["hex"]))
        return x
    raise GoldenError("%s: not an input value (a number object, an integer or a list): %r"
                      % (where, value))


def _hex_float(s, where):
    """The double of a C99 hex string, or of "nan", "inf", "-inf"."""
    if s in _SPECIALS:
        return _SPECIALS[s]
    try:
        return float.fromhex(s)
    except (ValueError, OverflowError):
        raise GoldenError("%s: %r is not a hex float" % (where, s)) from None


def _sens(value):
    """The golden's first-order sensitivity of an expected output (0 where it gives none), a
    float or a list of them."""
    if isinstance(value, list):
        return [_sens(v) for v in value]
    try:
        return float(value.get("sens", "0"))
    except (AttributeError, TypeError, ValueError):
        return 0.0


def _expected(value, where):
    """An expected output as Python: {"value", "hex", ...} -> (float, decimal string); a list of
    them -> (list, list)."""
    if isinstance(value, list):
        pairs = [_expected(v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    if not isinstance(value, dict) or not isinstance(value.get("value"), str):
        raise GoldenError("%s: an expected value must be an object with a decimal \"value\""
                          % where)
    h = value.get("hex")
    x = _hex_float(h, where) if isinstance(h, str) else float(value["value"])
    return x, value["value"]


class Case:
    """One golden test case: its tcId, variant, comment, flags, inputs and expected outcome.

    inputs     the test's own inputs, decoded exactly (floats, ints, lists)
    params     the variant's parameters (its constants), decoded
    args       what a function under test is called with: the inputs, and the parameters that
               are inputs of the formula (those some test of the golden gives as an input, such
               as DPO's beta), so that every case gives them; a variant's constants (GRPO-ADV's
               ddof and eps) are not arguments: the function under test has its own
    result     "valid", "acceptable" or "invalid" (must be rejected; expected_error names it)
    expected   output name -> the nearest double (a float or a list), for valid and acceptable
    expected_decimal   the same as the golden's certified decimal strings
    sens       output name -> the first-order sensitivity of each expected value (the tolerance
               rule's sens: sum_j |df/dx_j| |x_j|)
    outputs    the output names of the variant, in order; lengths: their expected lengths
               (None for a scalar), when the golden gives the values
    """

    def __init__(self, golden, group, test, group_index, test_index):
        where = "%s: testGroups[%d].tests[%d]" % (golden.path, group_index, test_index)
        if not isinstance(test, dict) or not isinstance(test.get("tcId"), int) \
                or isinstance(test.get("tcId"), bool):
            raise GoldenError("%s: a test needs an integer \"tcId\"" % where)
        self.golden = golden
        self.tc_id = test["tcId"]
        self.variant = group["variant"]
        self.part = group.get("part")
        self.comment = test.get("comment", "")
        self.flags = list(test.get("flags", []))
        self.result = test.get("result")
        if self.result not in ("valid", "acceptable", "invalid"):
            raise GoldenError("%s (tcId %s): \"result\" must be valid, acceptable or invalid, "
                              "not %r" % (where, self.tc_id, self.result))
        self.expected_error = test.get("error")
        label = "%s (tcId %d)" % (where, self.tc_id)
        raw_inputs = test.get("inputs", {})
        if not isinstance(raw_inputs, dict):
            raise GoldenError("%s: \"inputs\" must be an object" % label)
        self.inputs = {k: _decode(v, "%s input %s" % (label, k)) for k, v in raw_inputs.items()}
        self.params = {k: _decode(v, "%s params %s" % (label, k))
                       for k, v in group.get("params", {}).items()}
        self.args = {k: v for k, v in self.params.items() if k in golden.input_params}
        self.args.update(self.inputs)
        io = group.get("io", {})
        self.outputs = [o["name"] for o in io.get("outputs", []) if isinstance(o, dict)]
        if not self.outputs:        # a golden without "io": the names its tests expect
            for t in group["tests"]:
                if isinstance(t, dict) and isinstance(t.get("outputs"), dict):
                    self.outputs += [n for n in t["outputs"] if n not in self.outputs]
        self.expected, self.expected_decimal, self.lengths, self.sens = {}, {}, {}, {}
        raw_outputs = test.get("outputs", {}) if self.result != "invalid" else {}
        if not isinstance(raw_outputs, dict):
            raise GoldenError("%s: \"outputs\" must be an object" % label)
        for name, value in raw_outputs.items():
            x, dec = _expected(value, "%s output %s" % (label, name))
            self.expected[name], self.expected_decimal[name] = x, dec
            self.sens[name] = _sens(value)
            self.lengths[name] = len(x) if isinstance(x, list) else None
            if name not in self.outputs:
                self.outputs.append(name)
        self._raw_group, self._raw_test = group, test

    @property
    def expects_rejection(self):
        """Whether the golden expects the input to be rejected (result "invalid")."""
        return self.result == "invalid"

    def label(self):
        """'tcId N [variant] (comment)', the way errors name the case."""
        text = "tcId %d [%s]" % (self.tc_id, self.variant)
        return text + (" (%s)" % self.comment if self.comment else "")

    def call(self, fn):
        """fn called with the arguments it names among self.args (all of them when it takes
        **kwargs); its return value.  CandidateError when it needs one the case does not have."""
        return fn(**_arguments(fn, self))

    def check(self, outputs=None, error=None, **options):
        """Judge this case alone with `rlref check`: outputs (a value, or a dict of output name
        to value) or error (the rejection, a string); the CaseResult.  options: dtype, ulps,
        rtol, rlref."""
        cand = Candidate(self.golden)
        if error is not None:
            cand.reject(self, error)
        else:
            cand.add(self, outputs)
        return cand.check(only=self, **options).case(self.tc_id)

    def __repr__(self):
        return "<Case %s>" % self.label()


class Golden:
    """A golden file: its formula, variants and cases.

    path, formula, data (the parsed JSON), variants (names, in file order), outputs (every output
    name, in file order), parts (part name ->
    its variant names; the groups' part, or None)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        try:
            with open(self.path, encoding="utf-8-sig") as f:
                data = json.load(f)
        except json.JSONDecodeError as e:
            raise GoldenError("%s: not valid JSON: %s" % (self.path, e)) from None
        except UnicodeDecodeError as e:
            raise GoldenError("%s: not UTF-8: %s" % (self.path, e)) from None
        if not isinstance(data, dict):
            raise GoldenError("%s: a golden file is a JSON object" % self.path)
        version = data.get("schemaVersion", SCHEMA_VERSION)
        if version != SCHEMA_VERSION or isinstance(version, bool):
            raise GoldenError("%s: schemaVersion %r; this module reads golden files of schema "
                              "version %d" % (self.path, version, SCHEMA_VERSION))
        groups = data.get("testGroups")
        if not isinstance(groups, list):
            raise GoldenError("%s: no \"testGroups\" array" % self.path)
        self.data = data
        self.formula = data.get("formula")
        # parameters some test overrides: inputs of the formula (DPO's beta), passed as args
        self.input_params = set()
        for gi, g in enumerate(groups):
            if not isinstance(g, dict) or not isinstance(g.get("variant"), str) \
                    or not isinstance(g.get("tests"), list):
                raise GoldenError("%s: testGroups[%d] needs a \"variant\" string and a \"tests\" "
                                  "array" % (self.path, gi))
            for t in g["tests"]:
                if isinstance(t, dict) and isinstance(t.get("inputs"), dict):
                    self.input_params.update(set(t["inputs"]) & set(g.get("params", {})))
        self._cases, self._by_id, self.variants, self.parts = [], {}, [], {}
        for gi, g in enumerate(groups):
            if g["variant"] not in self.variants:
                self.variants.append(g["variant"])
                self.parts.setdefault(g.get("part"), []).append(g["variant"])
            for ti, t in enumerate(g["tests"]):
                case = Case(self, g, t, gi, ti)
                if case.tc_id in self._by_id:
                    raise GoldenError("%s: tcId %d appears twice" % (self.path, case.tc_id))
                self._by_id[case.tc_id] = case
                self._cases.append(case)
        if not self._cases:
            raise GoldenError("%s: the golden holds no tests" % self.path)
        # every output name of the golden, in file order (parts have outputs of their own)
        self.outputs = []
        for case in self._cases:
            self.outputs += [n for n in case.outputs if n not in self.outputs]

    def cases(self, variant=None, result=None, skip_flags=()):
        """The cases of variant (a name, or a list of names), or of every variant; in file
        order.  result keeps those of one outcome ("valid", "acceptable", "invalid", or a list
        of them: "invalid" are the must-reject cases); skip_flags leaves out the cases carrying
        any of those flags (("NUMERICAL",), or a flag's name such as "NonFinite"): a flag
        counts when it is the case's own or its note's bugType.  UnknownVariant for a name the
        golden does not have; ValueError for an unknown result."""
        cases = list(self._cases)
        if variant is not None:
            names = [variant] if isinstance(variant, str) else list(variant)
            for name in names:
                if name not in self.variants:
                    raise UnknownVariant("%s: no variant %r; it has: %s"
                                         % (self.path, name, ", ".join(self.variants)))
            cases = [c for c in cases if c.variant in names]
        if result is not None:
            wanted = [result] if isinstance(result, str) else list(result)
            for r in wanted:
                if r not in ("valid", "acceptable", "invalid"):
                    raise ValueError("result %r: one of valid, acceptable, invalid" % (r,))
            cases = [c for c in cases if c.result in wanted]
        if skip_flags:
            skip = {skip_flags} if isinstance(skip_flags, str) else set(skip_flags)
            cases = [c for c in cases if not skip & set(self.flag_kinds(c))]
        return cases

    def flag_kinds(self, case):
        """The case's flags and the bugType of each (NUMERICAL, EDGE_CASE, ...)."""
        notes = self.data.get("notes", {})
        kinds = list(case.flags)
        for flag in case.flags:
            note = notes.get(flag)
            if isinstance(note, dict) and isinstance(note.get("bugType"), str):
                kinds.append(note["bugType"])
        return kinds

    def case(self, tc_id):
        """The case with this tcId; UnknownCase when there is none."""
        try:
            return self._by_id[tc_id]
        except (KeyError, TypeError):
            ids = sorted(self._by_id)
            raise UnknownCase("%s: no case with tcId %r (its tcIds run from %d to %d)"
                              % (self.path, tc_id, ids[0], ids[-1])) from None

    def candidate(self):
        """An empty Candidate for this golden."""
        return Candidate(self)

    def __iter__(self):
        return iter(self._cases)

    def __len__(self):
        return len(self._cases)

    def __repr__(self):
        return "<Golden %s: %s, %d cases, variants %s>" % (
            self.path, self.formula, len(self._cases), ", ".join(self.variants))


def load(path):
    """The Golden of the file PATH."""
    return path if isinstance(path, Golden) else Golden(path)


def case_id(case):
    """A pytest id for CASE: its tcId and comment (cut at 70 characters)."""
    text = "%d %s" % (case.tc_id, case.comment) if case.comment else str(case.tc_id)
    return text if len(text) <= 70 else text[:67] + "..."


# --- calling the function under test --------------------------------------------------------------

def _arguments(fn, case):
    """The keyword arguments of fn among case.args."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return dict(case.args)
    params = sig.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return dict(case.args)
    kwargs, missing = {}, []
    for p in params:
        if p.kind in (p.VAR_POSITIONAL,):
            continue
        if p.name in case.args and p.kind != p.POSITIONAL_ONLY:
            kwargs[p.name] = case.args[p.name]
        elif p.default is p.empty:
            missing.append(p.name)
    if missing:
        raise CandidateError("%s: %s needs %s, which the case does not give; its arguments are "
                             "%s" % (case.label(), getattr(fn, "__name__", "the function"),
                                     ", ".join(missing), ", ".join(case.args) or "none"))
    return kwargs


def _number(x, where):
    """A candidate value as a JSON-ready number: finite floats and ints as they are, NaN and
    infinities as "nan", "inf", "-inf"."""
    if hasattr(x, "tolist") and not isinstance(x, (int, float)):
        x = x.tolist()
    if isinstance(x, bool) or x is None:
        raise CandidateError("%s: %r is not a number" % (where, x))
    if isinstance(x, int):
        return x
    if isinstance(x, str):
        try:
            x = float.fromhex(x) if "0x" in x.lower() else float(x)
        except ValueError:
            raise CandidateError("%s: %r is not a number" % (where, x)) from None
    elif isinstance(x, (numbers.Real, decimal.Decimal)):
        x = float(x)
    else:
        raise CandidateError("%s: a %s is not a number" % (where, type(x).__name__))
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _values(value, case, name):
    """The candidate's output NAME of CASE as a number or a flat list of numbers, its length
    checked against the golden's."""
    where = "%s output %s" % (case.label(), name)
    if hasattr(value, "tolist") and not isinstance(value, (int, float, str)):
        value = value.tolist()
    want = case.lengths.get(name, "unknown")
    if isinstance(value, (list, tuple)):
        if want is None:
            raise CandidateError("%s: a single value expected, got a list of %d"
                                 % (where, len(value)))
        if want != "unknown" and len(value) != want:
            raise CandidateError("%s: %d value%s, the golden expects %d"
                                 % (where, len(value), "" if len(value) == 1 else "s", want))
        out = []
        for i, v in enumerate(value):
            if isinstance(v, (list, tuple)) or (hasattr(v, "tolist") and
                                                isinstance(v.tolist(), list)):
                raise CandidateError("%s[%d]: a nested list; the output is a flat list of "
                                     "numbers (flatten the tensor)" % (where, i))
            out.append(_number(v, "%s[%d]" % (where, i)))
        return out
    if want not in (None, "unknown"):
        raise CandidateError("%s: a list of %d values expected, got a single value"
                             % (where, want))
    return _number(value, where)


# --- the candidate -----------------------------------------------------------------------------

class Candidate:
    """The results of an implementation on the cases of a golden: outputs or errors, by tcId."""

    def __init__(self, golden):
        self.golden = load(golden)
        self.results = {}

    def _case(self, case):
        if isinstance(case, Case):
            if case.golden is not self.golden:
                return self.golden.case(case.tc_id)
            return case
        return self.golden.case(case)

    def _fresh(self, case):
        if case.tc_id in self.results:
            raise CandidateError("%s: already has a result" % case.label())

    def add(self, case, outputs, omitted=None):
        """Record OUTPUTS for CASE (a Case or a tcId): a dict of output name to value, or the
        bare value when the variant has one output.  OMITTED: a dict of output name to the
        reason the implementation has no value for it in this case (not judged there; the
        report lists it).  CandidateError for an unknown output name, a value that is not a
        number, or a list of the wrong length; UnknownCase for a tcId the golden does not
        have."""
        case = self._case(case)
        self._fresh(case)
        if outputs is None:
            raise CandidateError("%s: no outputs (None)" % case.label())
        if not isinstance(outputs, dict):
            if len(case.outputs) != 1:
                raise CandidateError("%s: one value given, but the golden has the outputs %s; "
                                     "give a dict of name to value"
                                     % (case.label(), ", ".join(case.outputs)))
            outputs = {case.outputs[0]: outputs}
        for name in outputs:
            if name not in case.outputs and name not in self.golden.outputs:
                raise CandidateError("%s: no output named %r; the golden's are %s"
                                     % (case.label(), name, ", ".join(self.golden.outputs)))
        for name, why in (omitted or {}).items():
            if name not in case.outputs or name in outputs or not str(why):
                raise CandidateError("%s: omitted output %r must be one of the case's, have "
                                     "no value and a reason" % (case.label(), name))
        # an output of other cases of the golden (another variant's) is left out here
        self.results[case.tc_id] = {
            "tcId": case.tc_id,
            "outputs": {name: _values(v, case, name) for name, v in outputs.items()
                        if name in case.outputs}}
        if omitted:
            self.results[case.tc_id]["omitted"] = {k: str(v) for k, v in omitted.items()}

    def reject(self, case, error="EDOM"):
        """Record that the implementation rejects the input of CASE (a Case or a tcId), with
        ERROR: a string, or an exception (written 'Type: message')."""
        case = self._case(case)
        self._fresh(case)
        if isinstance(error, BaseException):
            error = "%s: %s" % (type(error).__name__, error) if str(error) \
                else type(error).__name__
        self.results[case.tc_id] = {"tcId": case.tc_id, "error": str(error) or "error"}

    def skip(self, case, reason):
        """Record that the implementation cannot take the input of CASE (a Case or a tcId) at
        all, for REASON (a string): the case is not judged."""
        case = self._case(case)
        self._fresh(case)
        self.results[case.tc_id] = {"tcId": case.tc_id, "skip": str(reason) or "skipped"}

    def run(self, case, fn, errors=Exception):
        """Call fn on CASE (Case.call) and record its outputs, or the exception of a type in
        ERRORS it raises as the rejection; the outputs, or None when it raised."""
        case = self._case(case)
        self._fresh(case)
        try:
            out = case.call(fn)
        except CandidateError:
            raise
        except errors as e:
            self.reject(case, e)
            return None
        self.add(case, out)
        return out

    def run_all(self, fn, variant=None, errors=Exception):
        """Candidate.run on every case of VARIANT (or of every variant); returns self."""
        for case in self.golden.cases(variant):
            self.run(case, fn, errors)
        return self

    def to_json(self):
        """The candidate as the JSON object `rlref check` reads."""
        return {"results": [self.results[k] for k in sorted(self.results)]}

    def write(self, path):
        """Write the candidate file PATH; returns PATH."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, allow_nan=False)
            f.write("\n")
        return path

    def check(self, dtype="float64", variant=None, ulps=None, rtol=None, rlref=None,
              junit=None, only=None, strict=False, outputs=None):
        """Run `rlref check --format json` on this candidate; the CheckResult.  ONLY (a Case)
        judges that case alone, against a golden holding it only.  STRICT counts the input
        validation in the verdict; OUTPUTS (names) restricts the judgement to them."""
        with tempfile.TemporaryDirectory(prefix="rlref_check.") as tmp:
            cpath = self.write(os.path.join(tmp, "candidate.json"))
            gpath = self.golden.path
            if only is not None:
                gpath = os.path.join(tmp, "case.json")
                _write_one_case(self.golden, only, gpath)
            return check_files(gpath, cpath, dtype=dtype, variant=variant, ulps=ulps,
                               rtol=rtol, rlref=rlref, junit=junit, strict=strict,
                               outputs=outputs)


def _write_one_case(golden, case, path):
    """Write to PATH a golden holding only CASE, in its group (the notes and tolerance kept)."""
    data = {k: v for k, v in golden.data.items() if k != "testGroups"}
    group = dict(case._raw_group)
    group["tests"] = [case._raw_test]
    data["testGroups"] = [group]
    data["numberOfTests"] = 1
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)


# --- running rlref check ----------------------------------------------------------------------

def find_rlref(rlref=None):
    """The rlref command: RLREF if given, else $RLREF, else build/bin/rlref of the rlref tree
    holding this file, else rlref on PATH.  CheckError when there is none."""
    if rlref is not None:
        return os.fspath(rlref)
    if os.environ.get("RLREF"):
        return os.environ["RLREF"]
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(here, os.pardir, os.pardir, "build", "bin", "rlref")
    if os.path.isfile(tree) and os.access(tree, os.X_OK):
        return os.path.normpath(tree)
    found = shutil.which("rlref")
    if found:
        return found
    raise CheckError("the rlref command was not found: build it (make), or give rlref=PATH, "
                     "or set RLREF, or put it on PATH")


def check_files(golden, candidate, dtype="float64", variant=None, ulps=None, rtol=None,
                rlref=None, junit=None, strict=False, outputs=None):
    """Run `rlref check GOLDEN CANDIDATE --format json` (files); the CheckResult.  With JUNIT,
    also write that JUnit XML file; STRICT and OUTPUTS as in Candidate.check.  Where there is
    no rlref command (rlref not built) and the rlref package is beside this file, its judge
    (rlref.judge: the same rule, verdicts and report) judges instead; JUNIT needs the
    command."""
    try:
        exe = find_rlref(rlref)
    except CheckError:
        judge = _package_judge()
        if judge is None:
            raise
        if junit is not None:
            raise CheckError("a JUnit file is written by the rlref command, which was not "
                             "found: build it (make), or give rlref=PATH") from None
        return _judge_in_python(judge, golden, candidate, dtype=dtype, variant=variant,
                                ulps=ulps, rtol=rtol, strict=strict, outputs=outputs)
    cmd = [exe, "check", os.fspath(golden), os.fspath(candidate),
           "--format", "json", "--dtype", dtype]
    if variant is not None:
        cmd += ["--variant", variant]
    if ulps is not None:
        cmd += ["--ulps", repr(float(ulps))]
    if rtol is not None:
        cmd += ["--rtol", repr(float(rtol))]
    if junit is not None:
        cmd += ["--junit", os.fspath(junit)]
    if strict:
        cmd += ["--strict"]
    if outputs is not None:
        cmd += ["--outputs", ",".join([outputs] if isinstance(outputs, str) else outputs)]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise CheckError("cannot run %s: %s" % (cmd[0], e)) from None
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode not in (0, 1):
        raise CheckError("rlref check failed (exit status %d): %s"
                         % (proc.returncode, err or "no message"))
    try:
        data = json.loads(proc.stdout.decode("utf-8"))
    except ValueError as e:
        raise CheckError("rlref check did not write a JSON report (%s); is %s older than "
                         "--format json?" % (e, cmd[0])) from None
    if data.get("reportVersion") != REPORT_VERSION:
        raise CheckError("rlref check wrote report version %r; this module reads version %d"
                         % (data.get("reportVersion"), REPORT_VERSION))
    return CheckResult(data, proc.returncode, err)


def _package_judge():
    """rlref.judge and its JudgeError, the judge of the rlref package, or None where the
    package is not there (this module needs only the standard library)."""
    try:
        from rlref._judge import JudgeError, judge
    except ImportError:
        return None
    return judge, JudgeError


def _judge_in_python(judge, golden, candidate, outputs=None, **options):
    """check_files by rlref.judge: its report is the one `rlref check --format json` writes."""
    judge, refused = judge
    if outputs is not None:
        outputs = ",".join([outputs] if isinstance(outputs, str) else outputs)
    try:
        j = judge(os.fspath(golden), os.fspath(candidate), outputs=outputs, **options)
    except refused as e:
        raise CheckError("rlref.judge refused the files: %s" % e) from None
    return CheckResult(j.to_json(), j.rc, "\n".join(j.warnings))


class OutputResult:
    """The comparison of one output value: output, index (None for a scalar), expected (the
    golden's decimal string), got, passed, err_ulps, tol_ulps, rel_err, digits (None where not
    defined) and problem (why nothing was compared, or None)."""

    __slots__ = ("output", "index", "expected", "got", "passed", "err_ulps", "tol_ulps",
                 "rel_err", "digits", "problem")

    def __init__(self, d):
        self.output, self.index, self.expected = d["output"], d["index"], d["expected"]
        got = d["got"]
        self.got = _SPECIALS[got] if isinstance(got, str) else got
        self.passed, self.err_ulps, self.tol_ulps = d["pass"], d["errUlps"], d["tolUlps"]
        self.rel_err, self.digits, self.problem = d["relErr"], d["digits"], d["problem"]

    def __repr__(self):
        at = self.output if self.index is None else "%s[%d]" % (self.output, self.index)
        return "<OutputResult %s %s>" % (at, "pass" if self.passed else "fail")


class CaseResult:
    """The verdict on one case against its own variant: tc_id, variant, comment, flags, result
    (what the golden declares), status ("pass", "fail" or "note": an acceptable mismatch),
    passed (not "fail"), counted (its variant is the one judged), answer ("outputs", "error",
    "missing"), error, expected_error, outputs (OutputResult list) and message (the report's
    lines for it)."""

    def __init__(self, d):
        self.tc_id, self.variant, self.comment = d["tcId"], d["variant"], d["comment"]
        self.flags, self.result, self.status = d["flags"], d["result"], d["status"]
        self.numerical, self.counted, self.answer = d["numerical"], d["counted"], d["answer"]
        self.error, self.expected_error = d["error"], d["expectedError"]
        self.outputs = [OutputResult(o) for o in d["outputs"]]
        self.message = d["message"]

    @property
    def passed(self):
        return self.status != "fail"

    def describe(self):
        """The case and its verdict, with the report's lines when it fails."""
        head = "tcId %d [%s]%s: %s" % (self.tc_id, self.variant,
                                       " (%s)" % self.comment if self.comment else "",
                                       self.status.upper())
        return head + ("\n" + self.message.rstrip("\n") if self.message else "")

    def __repr__(self):
        return "<CaseResult tcId %d [%s] %s>" % (self.tc_id, self.variant, self.status)


class CheckResult:
    """The report of `rlref check --format json`.

    exit_status (0 pass, 1 fail), ok, passed / failed / noted (the closing line); per part
    (parts, a list of dicts), the variant named first, its class and accuracy, the variants
    also consistent with the candidate, the input validation and the explanation; over the
    parts: follows (the variants named first and matched at the dtype), follows_convention
    (named first, matched but for numerically demanding cases), diagnosis (named first at a
    lower accuracy: dicts with variant, dtype, declared, digits, failed), convention (the
    variant named first in the first part that names one, or None), verdicts (the verdict
    line of each part), explanations (the explanation line of each part that has one),
    validation (the input-validation line of each part that has one), outputs_judged and
    outputs_not_judged, variants (name -> dict of counts and class), cases (tcId ->
    CaseResult), warnings (rlref's stderr), data (the whole report) and report() (the text
    report)."""

    def __init__(self, data, exit_status, warnings=""):
        self.data = data
        self.exit_status = exit_status
        self.warnings = warnings
        s = data["summary"]
        self.passed, self.failed, self.noted = s["passed"], s["failed"], s["noted"]
        self.follows = list(data["follows"])
        self.follows_convention = list(data["followsConvention"])
        self.diagnosis = list(data["diagnosis"])
        self.parts = list(data["parts"])
        self.verdicts = [p["line"] for p in self.parts if p["line"]]
        self.explanations = [p["explanation"]["text"] for p in self.parts
                             if p["explanation"] and p["explanation"]["text"]]
        self.validation = [p["validation"]["text"] for p in self.parts
                           if p["validation"] and p["validation"]["text"]]
        self.outputs_judged = list(data["outputs"]["judged"])
        self.outputs_not_judged = list(data["outputs"]["notJudged"])
        self.variants = {v["variant"]: v for v in data["variants"]}
        self.cases = {c["tcId"]: CaseResult(c) for c in data["cases"]}

    @property
    def ok(self):
        return self.exit_status == 0

    @property
    def convention(self):
        """The variant named first (followed at the dtype, else but for numerically demanding
        cases, else at a lower accuracy) in the first part that names one; None when none."""
        for p in self.parts:
            if p["answer"]:
                return p["answer"]
        return None

    def case(self, tc_id):
        """The CaseResult of tcId; UnknownCase when the report has none."""
        try:
            return self.cases[tc_id]
        except KeyError:
            raise UnknownCase("the report of %s has no case with tcId %r"
                              % (self.data["golden"], tc_id)) from None

    def failures(self):
        """The failing cases of the judged variants (those the closing line counts)."""
        return [c for c in self.cases.values() if c.counted and c.status == "fail"]

    def accepted(self):
        """The must-reject cases of the judged variants that the candidate did not reject."""
        return [c for c in self.cases.values()
                if c.result == "invalid" and c.status == "fail"
                and self.variants[c.variant]["judged"]]

    def report(self):
        """The text report, as `rlref check` prints it."""
        return self.data["text"]

    def __str__(self):
        return self.report()

    def __repr__(self):
        return "<CheckResult %s: %d passed, %d failed; %s>" % (
            self.data["formula"], self.passed, self.failed,
            "; ".join(self.verdicts) or "no verdict")


# --- one call ---------------------------------------------------------------------------------

def validate(golden, fn, variant=None, dtype="float64", ulps=None, rtol=None, rlref=None,
             junit=None, errors=Exception, candidate=None, strict=False, outputs=None):
    """Run fn on every case of GOLDEN (a path or a Golden; only VARIANT's cases when given),
    judge the results with `rlref check` and return the CheckResult.  An exception of a type in
    ERRORS raised by fn is the rejection of that input.  CANDIDATE: also keep the candidate
    file there; JUNIT: also write the JUnit XML file there; STRICT: count the input validation
    in the verdict; OUTPUTS: judge only those outputs."""
    cand = Candidate(golden).run_all(fn, variant, errors)
    if candidate is not None:
        cand.write(candidate)
    return cand.check(dtype=dtype, variant=variant, ulps=ulps, rtol=rtol, rlref=rlref,
                      junit=junit, strict=strict, outputs=outputs)


def assert_case(case, fn, dtype="float64", ulps=None, rtol=None, rlref=None,
                errors=Exception):
    """Run fn on CASE and judge that case alone with `rlref check`; AssertionError naming the
    case, with the report's lines, when it fails.  Returns the CaseResult (status "pass", or
    "note" for an acceptable mismatch)."""
    cand = Candidate(case.golden)
    cand.run(case, fn, errors)
    got = cand.check(dtype=dtype, ulps=ulps, rtol=rtol, rlref=rlref, only=case).case(case.tc_id)
    if not got.passed:
        raise AssertionError(got.describe())
    return got
