"""rlref.judge: the judge of `rlref check` in Python, for a user without the C build.

judge(golden, candidate) reads the two (paths, or the parsed JSON objects) and returns the
verdict `rlref check --format json` gives: the same rule (the tolerance from each value's
sens, U from the golden, the smallest normal of the dtype), the same rounding of a float32 or
bfloat16 run, the same classes, the same order of the variants of each part, the variant
named first and those also consistent with the candidate, the same input validation, and,
where no variant is followed, the same explanation (rlref._explain: it evaluates the
reference through the shared library; without it the explanation says the library is
missing).  |got - expected| is formed as the checker forms it, at 256 bits with MPFR's
rounding (rlref._exact), so the two judges agree on every boundary.

Judge.to_json() is the whole report (oracles/check/report.schema.json), the text report
included (Judge.report(), rendered by rlref._text as check_text.c renders it).
"""

import json
import math
import os

from rlref_check import RlrefError

from . import _exact as X

WORKING_BITS = 256
DEFAULT_ULPS = 32
FLOAT32_MAX = float.fromhex("0x1.fffffep+127")
# the dtypes a candidate may compute in, widest first: (name, significand bits, emin)
DTYPES = (("float64", 53, -1022), ("float32", 24, -126), ("bfloat16", 8, -126))
LOG10_2 = math.log10(2.0)
CLASSES = ("match", "match-but-numerical", "float32-accuracy", "bfloat16-accuracy",
           "no-match", "not-run")
MATCH, CONVENTION, LOWER32, LOWER16, NONE, NOTRUN = range(6)
SHOW_CHARS = 60


class JudgeError(RlrefError, ValueError):
    """A golden or candidate the checker refuses (its exit status 2), with the reason."""


# --- reading -------------------------------------------------------------------------------

def _no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise JudgeError("key %r given twice" % k)
        d[k] = v
    return d


def load(path_or_obj, what):
    """A parsed JSON file, read as rlref reads one (a byte-order mark skipped, a key given
    twice refused); an object already parsed is taken as it is."""
    if not isinstance(path_or_obj, (str, bytes, os.PathLike)):
        return path_or_obj
    with open(path_or_obj, "rb") as f:
        data = f.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates,
                          parse_constant=_bad_constant)
    except (ValueError, UnicodeDecodeError) as e:
        raise JudgeError("%s %s: %s" % (what, path_or_obj, e)) from None


def _bad_constant(name):
    raise JudgeError("%s is not JSON; write NaN and infinities as the strings \"nan\", "
                     "\"inf\", \"-inf\"" % name)


def _plain(s):
    return isinstance(s, str) and s != "" and "\0" not in s and not s[0].isspace()


def read_decimal(s):
    """A golden decimal string: ("nan",), ("inf", sign) or ("num", n*2**e at 256 bits); None
    when it is not one."""
    if not _plain(s):
        return None
    t = s.lower()
    body = t[1:] if t[:1] in "+-" else t
    sign = -1 if t.startswith("-") else 1
    if body in ("nan", "@nan@"):
        return ("nan",)
    if body in ("inf", "infinity", "@inf@"):
        return ("inf", sign)
    if "_" in t or t != t.strip():
        return None
    try:
        return ("num", X.from_decimal(s, WORKING_BITS))
    except (ValueError, ZeroDivisionError):
        return None


def cand_number(v):
    """The candidate's number v (JSON number or string) as a double, or None."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return float(v)
    if isinstance(v, float):
        return v
    if not _plain(v) or "_" in v or v != v.strip():
        return None
    try:
        if "0x" in v.lower():
            return float.fromhex(v)
        return float(v)
    except (ValueError, OverflowError):
        return None


# --- the record ----------------------------------------------------------------------------

class Elem:
    """One expected element of a case and the candidate's value for it."""

    __slots__ = ("output", "index", "expected", "kind", "has_got", "got", "special_equal",
                 "q", "err_ulps", "base_ulps", "x_ulps", "rel", "digits", "rel_exact",
                 "problem")

    def __init__(self, output, index, expected=None, kind="finite"):
        self.output, self.index, self.expected, self.kind = output, index, expected, kind
        self.has_got, self.got, self.special_equal = False, None, False
        self.q = [0.0] * 3
        self.err_ulps = [0.0] * 3
        self.base_ulps = [0.0] * 3
        self.x_ulps = [0.0] * 3
        self.rel = self.digits = 0.0
        self.rel_exact = None       # |d / x| at 256 bits, for the digits the text shows
        self.problem = None


class Case:
    __slots__ = ("tcid", "test", "res", "var", "kind", "numerical", "beyond32", "answer",
                 "cand_error", "nonfinite_out", "el", "st")


class Variant:
    def __init__(self, name):
        self.name = name
        self.inputs = {}
        self.part_name = None
        self.part = 0
        self.ncases = self.nvalid = self.ninvalid = 0
        self.emulates32 = False
        self.t = [None] * 3
        self.cls = NOTRUN
        self.level = 0
        self.rejected = self.accepted = self.accepted_nonfinite = 0
        self.invalid_missing = self.rejected_valid = 0
        self.rank = 0
        self.fine = 0
        self.index = 0


class Tally:
    __slots__ = ("run", "passed", "failed", "noted", "skipped", "failed_numerical",
                 "worst_q", "digits")

    def __init__(self):
        self.run = self.passed = self.failed = self.noted = self.skipped = 0
        self.failed_numerical = 0
        self.worst_q = 0.0
        self.digits = 0.0


class Part:
    def __init__(self):
        self.answer = None
        self.order = []
        self.why = None


class Judge:
    """One run of the judge: the options, the two files and the record."""

    def __init__(self, golden, candidate, dtype="float64", ulps=None, rtol=None,
                 variant=None, outputs=None, strict=False, explain=True, verbose=False):
        names = [d[0] for d in DTYPES]
        if dtype not in names:
            raise JudgeError("unknown dtype '%s' (float64, float32 or bfloat16)" % dtype)
        self.level = names.index(dtype)
        self.dtype = dtype
        self.have_ulps = ulps is not None
        self.ulps = float(ulps) if ulps is not None else float(DEFAULT_ULPS)
        self.have_rtol = rtol is not None
        self.rtol = float(rtol) if rtol is not None else 0.0
        for opt, v in (("--ulps", ulps), ("--rtol", rtol)):
            if v is not None and not (math.isfinite(float(v)) and float(v) >= 0):
                raise JudgeError("%s needs a finite number >= 0, not '%s'" % (opt, v))
        self.only = variant
        self.outputs_opt = outputs
        self.strict = bool(strict)
        self.verbose = bool(verbose)
        self.explain = bool(explain)
        self.golden = load(golden, "golden")
        self.cand = load(candidate, "candidate")
        path = (str, bytes, os.PathLike)
        self.gpath = os.fsdecode(golden) if isinstance(golden, path) else "<golden>"
        self.cpath = os.fsdecode(candidate) if isinstance(candidate, path) else "<candidate>"
        self.warnings = []
        self.unknown = 0
        self.first_unknown = None
        self._read_golden()
        self._read_candidate()
        if self.only is not None and self.only not in [v.name for v in self.vars]:
            raise JudgeError("%s: no variant '%s'; it has: %s" % (
                self.gpath, self.only, " ".join(v.name for v in self.vars)))
        if self.unknown:
            self.warnings.append("%d result%s with a tcId not in the golden (first: %d)" % (
                self.unknown, "" if self.unknown == 1 else "s", self.first_unknown))
        self._judge()
        self._verdict()
        if self.explain:
            from . import _explain
            _explain.explain(self)

    # --- the golden ----------------------------------------------------------------------

    def _bad(self, msg):
        raise JudgeError("%s: %s" % (self.gpath, msg))

    def _check_expected(self, e, where):
        if not isinstance(e, dict):
            self._bad("%s: an expected value must be an object" % where)
        v = e.get("value")
        if not isinstance(v, str):
            self._bad("%s: \"value\" must be a decimal string" % where)
        x = read_decimal(v)
        if x is None:
            self._bad("%s: \"value\" \"%.40s\" is not a decimal number" % (where, v))
        if "digits" in e and (not isinstance(e["digits"], int) or isinstance(e["digits"], bool)):
            self._bad("%s: \"digits\" must be an integer" % where)
        if x[0] != "num":
            return
        s = e.get("sens")
        if isinstance(s, str):
            t = read_decimal(s)
            if t is None or t[0] != "num" or X.cmp(t[1], X.ZERO) < 0:
                self._bad("%s: \"sens\" must be a finite decimal >= 0" % where)
        elif s is None and "sens" not in e:
            self._bad("%s: \"sens\" is missing" % where)
        elif not _is_number(s) or not math.isfinite(s) or s < 0:
            self._bad("%s: \"sens\" must be a decimal string >= 0" % where)

    def _read_golden(self):
        g = self.golden
        if not isinstance(g, dict):
            self._bad("the golden must be a JSON object")
        sv = g.get("schemaVersion")
        if "schemaVersion" in g and not (isinstance(sv, int) and not isinstance(sv, bool)
                                         and sv == 1):
            self._bad("unsupported \"schemaVersion\" (this reads version 1)")
        groups = g.get("testGroups")
        if not isinstance(groups, list):
            self._bad("\"testGroups\" must be an array" if "testGroups" in g
                      else "missing \"testGroups\" array")
        tol = g.get("tolerance")
        if not self.have_ulps and tol is not None:
            if not isinstance(tol, dict):
                self._bad("\"tolerance\" must be an object")
            if "defaultUlps" in tol:
                u = tol["defaultUlps"]
                if not _is_number(u) or not u >= 0:
                    self._bad("\"tolerance\".\"defaultUlps\" must be a number >= 0")
                self.ulps = float(u)
        n = 0
        for gi, grp in enumerate(groups):
            if not isinstance(grp, dict):
                self._bad("testGroups[%d] must be an object" % gi)
            if not isinstance(grp.get("tests"), list):
                self._bad("testGroups[%d]: \"tests\" must be an array" % gi)
            if not isinstance(grp.get("variant"), str):
                self._bad("testGroups[%d]: \"variant\" must be a string" % gi)
            n += len(grp["tests"])
        if n == 0:
            self._bad("the golden holds no tests")
        self.vars, self.cases = [], []
        index = {}
        notes = g.get("notes") if isinstance(g.get("notes"), dict) else {}
        for gi, grp in enumerate(groups):
            name = grp["variant"]
            if name not in index:
                v = Variant(name)
                v.index = len(self.vars)
                index[name] = v.index
                self.vars.append(v)
            var = index[name]
            if isinstance(grp.get("part"), str):
                self.vars[var].part_name = grp["part"]
            for ti, t in enumerate(grp["tests"]):
                self._read_test(t, gi, ti, var, notes)
        nt = g.get("numberOfTests")
        if isinstance(nt, int) and not isinstance(nt, bool) and nt != n:
            self.warnings.append("\"numberOfTests\" is %d but the file holds %d tests" % (nt, n))
        seen = set()
        for k in sorted(self.cases, key=lambda k: k.tcid):
            if k.tcid in seen:
                self._bad("duplicate tcId %d" % k.tcid)
            seen.add(k.tcid)
        parts = {}
        for v in self.vars:
            key = ("part:" + v.part_name) if v.part_name is not None else \
                "inputs:" + "".join(n + "\n" for n in sorted(v.inputs))
            if key not in parts:
                parts[key] = len(parts)
            v.part = parts[key]
        self.nparts = len(parts)

    def _read_test(self, t, gi, ti, var, notes):
        where = "testGroups[%d].tests[%d]" % (gi, ti)
        if not isinstance(t, dict):
            self._bad("%s: a test must be an object" % where)
        tcid = t.get("tcId")
        if not isinstance(tcid, int) or isinstance(tcid, bool):
            self._bad("%s: \"tcId\" must be an integer" % where)
        where = "testGroups[%d].tests[%d] (tcId %d)" % (gi, ti, tcid)
        k = Case()
        k.tcid = tcid
        r = t.get("result")
        if not isinstance(r, str):
            self._bad("%s: \"result\" must be a string" % where)
        if r not in ("valid", "acceptable", "invalid"):
            self._bad("%s: \"result\" must be valid, acceptable or invalid, not \"%.20s\""
                      % (where, r))
        k.kind = r
        flags = t.get("flags")
        if "flags" in t and not isinstance(flags, list):
            self._bad("%s: \"flags\" must be an array" % where)
        flags = flags or []
        if any(not isinstance(f, str) for f in flags):
            self._bad("%s: \"flags\" must hold strings" % where)
        k.numerical = any(isinstance(notes.get(f), dict)
                          and notes[f].get("bugType") == "NUMERICAL" for f in flags)
        if "error" in t and not isinstance(t["error"], str):
            self._bad("%s: \"error\" must be a string" % where)
        if k.kind != "invalid":
            o = t.get("outputs")
            if not isinstance(o, dict):
                self._bad("%s: \"outputs\" must be an object" % where)
            for name, v in o.items():
                if isinstance(v, list):
                    for i, e in enumerate(v):
                        self._check_expected(e, "%s output %.40s[%d]" % (where, name, i))
                else:
                    self._check_expected(v, "%s output %.40s" % (where, name))
        ins = t.get("inputs")
        if "inputs" in t and not isinstance(ins, dict):
            self._bad("%s: \"inputs\" must be an object" % where)
        v = self.vars[var]
        for name in (ins or {}):
            v.inputs.setdefault(name, True)
        k.test, k.res, k.var = t, None, var
        k.answer, k.cand_error, k.nonfinite_out, k.el = "missing", None, False, []
        k.st = [None] * 3
        k.beyond32 = False
        self.cases.append(k)
        v.ncases += 1
        if k.kind == "invalid":
            v.ninvalid += 1
        else:
            v.nvalid += 1
        if _emulates32(t.get("outputs")):
            v.emulates32 = True

    # --- the candidate -------------------------------------------------------------------

    def _cbad(self, msg):
        raise JudgeError("%s: %s" % (self.cpath, msg))

    def _read_candidate(self):
        c = self.cand
        if not isinstance(c, dict):
            self._cbad("the candidate must be a JSON object")
        results = c.get("results")
        if not isinstance(results, list):
            self._cbad("\"results\" must be an array" if "results" in c
                       else "missing \"results\" array")
        by_id = {}
        for i, r in enumerate(results):
            tcid = self._read_result(r, i)
            if tcid in by_id:
                self._cbad("duplicate tcId %d" % tcid)
            by_id[tcid] = r
        for k in self.cases:
            if k.tcid in by_id:
                k.res = by_id.pop(k.tcid)
        if by_id:
            self.unknown = len(by_id)
            self.first_unknown = min(by_id)
        self._judged_outputs()

    def _read_result(self, r, i):
        if not isinstance(r, dict):
            self._cbad("results[%d] must be an object" % i)
        tcid = r.get("tcId")
        if not isinstance(tcid, int) or isinstance(tcid, bool):
            self._cbad("results[%d]: \"tcId\" must be an integer" % i)
        at = "results[%d] (tcId %d)" % (i, tcid)
        out, err, skip = r.get("outputs"), r.get("error"), r.get("skip")
        if ("outputs" in r) + ("error" in r) + ("skip" in r) != 1 or \
                (out is None) + (err is None) + (skip is None) != 2:
            self._cbad("%s: needs one of \"outputs\", \"error\" or \"skip\"" % at)
        if "error" in r and not isinstance(err, str):
            self._cbad("%s: \"error\" must be a string" % at)
        if "skip" in r and not isinstance(skip, str):
            self._cbad("%s: \"skip\" must be a string (why the case cannot be answered)" % at)
        if "outputs" in r and not isinstance(out, dict):
            self._cbad("%s: \"outputs\" must be an object" % at)
        if "omitted" in r:
            om = r["omitted"]
            if out is None or not isinstance(om, dict):
                self._cbad("%s: \"omitted\" must be an object beside \"outputs\" (output name: "
                           "why it has no value here)" % at)
            for name, v in om.items():
                if not isinstance(v, str) or name in out:
                    self._cbad("%s: omitted output %.40s needs a reason (a string) and no value"
                               % (at, name))
        for name, v in (out or {}).items():
            vals = v if isinstance(v, list) else [v]
            if any(cand_number(e) is None for e in vals):
                self._cbad("%s: output %.40s must be a number, a number string (\"nan\", "
                           "\"inf\", \"-inf\", decimal, hex) or an array of them%s"
                           % (at, name, " (null is not a number)" if v is None else ""))
        return tcid

    def _judged_outputs(self):
        every = {}
        for k in self.cases:
            for name in (k.test.get("outputs") or {}):
                every.setdefault(name, True)
        want = None
        if self.outputs_opt is not None:
            want = set()
            for tok in [t for t in self.outputs_opt.split(",") if t]:
                if tok not in every:
                    raise JudgeError("--outputs: the golden has no output '%.40s'; it has: %s"
                                     % (tok, " ".join(every)))
                want.add(tok)
        self.judged = {}
        warned = set()
        for k in self.cases:
            got = k.res.get("outputs") if k.res is not None else None
            for name in (got or {}):
                if name not in every:
                    if name not in warned:
                        self.warnings.append("output \"%.40s\" (tcId %d) is not an output of "
                                             "the golden; ignored" % (name, k.tcid))
                    warned.add(name)
                elif want is None or name in want:
                    self.judged.setdefault(name, True)
        self.ungiven = [n for n in every if n not in self.judged]

    # --- judging -------------------------------------------------------------------------

    def _judge(self):
        for k in self.cases:
            r = k.res
            k.beyond32 = _case_beyond32(k.test)
            if r is None:
                k.answer = "missing"
            elif "skip" in r:
                k.answer, k.cand_error = "skip", r["skip"]
            elif "error" in r:
                k.answer, k.cand_error = "error", r["error"]
            else:
                k.answer = "outputs"
                k.nonfinite_out = _nonfinite_output(r["outputs"])
                if k.kind != "invalid":
                    self._judge_outputs(k)
            if k.kind != "invalid":
                k.st = [self._case_status(k, l) for l in range(3)]

    def _judge_outputs(self, k):
        exp = k.test.get("outputs") or {}
        out = k.res.get("outputs") or {}
        omitted = k.res.get("omitted") or {}
        for name, ev in exp.items():
            if name not in self.judged:
                continue
            cv = out.get(name, None) if name in out else None
            m = len(ev) if isinstance(ev, list) else 1
            if name not in out and name in omitted:
                continue
            if name not in out:
                k.el.append(_problem(name, "missing output", "missing"))
            elif isinstance(ev, list) != isinstance(cv, list):
                msg = ("expected an array of %d values, got a single value" % m
                       if isinstance(ev, list) else
                       "expected a single value, got an array of %d" % len(cv))
                k.el.append(_problem(name, msg, "shape"))
            elif not isinstance(ev, list):
                k.el.append(self._judge_element(name, -1, ev, cand_number(cv)))
            elif m != len(cv):
                k.el.append(_problem(name, "length %d, expected %d" % (len(cv), m), "shape"))
            else:
                for i in range(m):
                    k.el.append(self._judge_element(name, i, ev[i], cand_number(cv[i])))

    def _judge_element(self, name, idx, x, got):
        e = Elem(name, idx, x)
        e.has_got, e.got = True, got
        xv = read_decimal(x["value"])
        if xv[0] == "nan":
            e.kind, e.special_equal = "special", math.isnan(got)
            return e
        if xv[0] == "inf":
            e.kind = "special"
            e.special_equal = math.isinf(got) and (got > 0) == (xv[1] > 0)
            return e
        if not math.isfinite(got):
            e.kind = "got-nonfinite"
            return e
        xx = xv[1]
        s = x.get("sens")
        if isinstance(s, str):
            t = read_decimal(s)
            t = t[1] if t[0] == "num" else X.ZERO
        else:
            t = X.from_double(float(s)) if math.isfinite(float(s)) else X.ZERO
        d = X.absv(X.sub(X.from_double(got), xx, WORKING_BITS))
        self._measure(e, xx, d, t)
        return e

    def _measure(self, e, x, d, t):
        for l, (_, p, emin) in enumerate(DTYPES):
            ue = emin if X.is_zero(x) else X.floor_log2(x)
            ue = max(ue, emin)
            w = X.absv(x)
            if not X.is_zero(w) and X.floor_log2(w) < emin:
                w = (1, emin)
            y = X.add(t, w, WORKING_BITS)
            if X.is_zero(y):
                e.q[l] = 0.0 if X.is_zero(d) else math.inf
            else:
                e.q[l] = X.div_up_to_double(X.mul_2exp(d, p), y)
            e.err_ulps[l] = X.to_double(X.mul_2exp(d, p - 1 - ue))
            e.base_ulps[l] = X.to_double(X.mul_2exp(X.round_to(y, WORKING_BITS), -1 - ue))
            e.x_ulps[l] = X.to_double(X.mul_2exp(X.absv(x), p - 1 - ue))
        if X.is_zero(d):
            e.rel, e.digits = 0.0, 17.0
        elif X.is_zero(x):
            e.rel, e.digits = math.inf, 0.0
        else:
            # as MPFR forms it: d / x rounded up at 256 bits (toward 0 for x < 0), then |.|
            w = X.absv(X.div(d, x, WORKING_BITS, "U"))
            e.rel = X.to_double(w, "U")
            e.rel_exact = w
            dg = -X.log10(w)
            e.digits = 17.0 if dg > 17 else dg if dg > 0 else 0.0

    def elem_pass(self, e, l):
        if e.kind == "finite":
            return e.q[l] <= self.ulps or (self.have_rtol and e.rel <= self.rtol)
        if e.kind == "special":
            return e.special_equal
        return False

    def _case_status(self, k, l):
        miss = "note" if k.kind == "acceptable" else "fail"
        if k.answer == "skip":
            return "skip"
        if k.answer != "outputs":
            return miss
        if not k.el:
            return "skip"
        if l > 0 and k.beyond32 and not self.vars[k.var].emulates32:
            return "skip"
        for e in k.el:
            if not self.elem_pass(e, l):
                return miss
        return "pass"

    # --- verdicts ------------------------------------------------------------------------

    def in_scope(self, v):
        return self.only is None or self.only == v.name

    def answer(self, p):
        a = self.parts[p].answer
        return None if a is None else self.vars[a]

    def counted(self, k):
        return self.parts[self.vars[k.var].part].answer == k.var

    def _tally_level(self, vi, l):
        t = Tally()
        for k in self.cases:
            if k.var != vi or k.kind == "invalid":
                continue
            if k.st[l] == "skip":
                t.skipped += 1
                continue
            t.run += k.answer != "missing"
            t.passed += k.st[l] == "pass"
            t.failed += k.st[l] == "fail"
            t.failed_numerical += k.st[l] == "fail" and k.numerical
            t.noted += k.st[l] == "note"
            if k.numerical or k.kind == "acceptable":
                continue
            for e in k.el:
                if e.kind == "finite" and e.q[l] > t.worst_q:
                    t.worst_q = e.q[l]
        p = DTYPES[l][1]
        t.digits = p * LOG10_2 - math.log10(t.worst_q) if t.worst_q > 0 else 17.0
        t.digits = 17.0 if t.digits > 17 else 0.0 if t.digits < 0 else t.digits
        return t

    def _tally_fine(self, v):
        v.fine = 0
        for k in self.cases:
            if k.var != v.index or k.kind != "valid" or k.numerical or k.st[0] == "skip":
                continue
            v.fine += sum(1 for e in k.el if self.elem_pass(e, 0))

    def _tally_validation(self, v):
        v.rejected = v.accepted = v.accepted_nonfinite = v.invalid_missing = 0
        v.rejected_valid = 0
        for k in self.cases:
            if k.var != v.index:
                continue
            if k.kind != "invalid":
                v.rejected_valid += k.answer == "error"
            elif k.answer == "error":
                v.rejected += 1
            elif k.answer == "missing":
                v.invalid_missing += 1
            elif k.answer == "outputs":
                v.accepted += 1
                v.accepted_nonfinite += k.nonfinite_out

    def _classify(self, v):
        d = self.level
        v.level = d
        if v.t[d].run == 0:
            v.cls = NOTRUN
        elif v.t[d].failed == 0:
            v.cls = MATCH
        elif v.t[d].failed == v.t[d].failed_numerical:
            v.cls = CONVENTION
        else:
            v.cls = NONE
            for l in range(d + 1, 3):
                t, bits = v.t[l], DTYPES[l][1] * LOG10_2
                if t.run > 0 and t.failed == t.failed_numerical and \
                        bits - 1 <= t.digits <= bits + 1.5:
                    v.cls = LOWER32 if l == 1 else LOWER16
                    v.level = l
                    return

    def _order_key(self, v):
        """The order of check_verdict.c's cmp_variants, as a sort key."""
        d = self.level
        if v.cls == NONE:
            k2 = (-v.t[d].passed, 0)
        elif v.cls != NOTRUN:
            k2 = (v.t[v.level].worst_q, -v.fine)
        else:
            k2 = (0, 0)
        return (v.cls,) + k2 + (v.accepted + v.rejected_valid, v.index)

    def _verdict(self):
        for v in self.vars:
            v.t = [self._tally_level(v.index, l) for l in range(3)]
            self._tally_validation(v)
            self._tally_fine(v)
            self._classify(v)
        self.parts = [Part() for _ in range(self.nparts)]
        for p, pt in enumerate(self.parts):
            members = [v for v in self.vars if v.part == p and self.in_scope(v)]
            members.sort(key=self._order_key)
            pt.order = [v.index for v in members]
            for r, v in enumerate(members):
                v.rank = r
            if members and (self.only is not None or members[0].cls != NOTRUN):
                pt.answer = members[0].index
        self.sum_passed = self.sum_failed = self.sum_noted = 0
        answered, ok = 0, True
        for p in range(self.nparts):
            a = self.answer(p)
            if a is None or (a.cls == NOTRUN and a.t[self.level].failed == 0):
                continue
            t = a.t[self.level]
            answered += 1
            self.sum_passed += t.passed
            self.sum_failed += t.failed
            self.sum_noted += t.noted
            if a.cls != MATCH:
                ok = False
            if self.strict:
                self.sum_passed += a.rejected
                self.sum_failed += a.accepted + a.invalid_missing
                if a.accepted + a.invalid_missing > 0:
                    ok = False
        self.rc = 0 if answered > 0 and ok else 1

    # --- rendering -----------------------------------------------------------------------

    def verdict_line(self, p):
        """The verdict line of part p, as `rlref check` prints it."""
        pt, a = self.parts[p], self.answer(p)
        if a is None or (a.cls == NOTRUN and self.only is None):
            return "Candidate ran none of these cases"
        t = a.t[a.level]
        if a.cls == MATCH:
            s = "Candidate follows: " + _clean(a.name)
        elif a.cls == CONVENTION:
            s = ("Candidate follows the convention %s, but fails %d numerically demanding "
                 "case%s (flagged NUMERICAL in the golden: overflow, cancellation, binary32 "
                 "steps)" % (_clean(a.name), t.failed, "" if t.failed == 1 else "s"))
        elif a.cls in (LOWER32, LOWER16):
            dn = DTYPES[a.level][0]
            s = ("Candidate follows %s at %s accuracy (%.1f digits); declared %s: a %s step is "
                 "likely (a constant or an intermediate rounded to %s)"
                 % (_clean(a.name), dn, t.digits, self.dtype, dn, dn))
            if t.failed > 0:
                s += "; it also fails %d numerically demanding case%s" % (
                    t.failed, "" if t.failed == 1 else "s")
        else:
            s = "Candidate matches no variant; nearest: %s (%d of %d)" % (
                _clean(a.name), a.t[self.level].passed, a.nvalid)
        shown = 0
        if a.cls <= LOWER16:
            for vi in pt.order[1:]:
                v = self.vars[vi]
                if v.cls > (LOWER16 if a.cls == LOWER16 else LOWER32):
                    break
                s += (", " if shown else "; also consistent with: ") + _clean(v.name)
                s += {CONVENTION: " (but for numerically demanding cases)",
                      LOWER32: " (at float32 accuracy)",
                      LOWER16: " (at bfloat16 accuracy)"}.get(v.cls, "")
                shown += 1
        return s

    def to_json(self):
        """The judgement as `rlref check --format json` reports it (its judging fields)."""
        parts = [self._part_json(p) for p in range(self.nparts)]
        follows, conv, diag = [], [], []
        for p in range(self.nparts):
            a = self.answer(p)
            if a is None:
                continue
            if a.cls == MATCH:
                follows.append(a.name)
            elif a.cls == CONVENTION:
                conv.append(a.name)
            elif a.cls in (LOWER32, LOWER16):
                diag.append({"variant": a.name, "dtype": DTYPES[a.level][0],
                             "declared": self.dtype, "digits": a.t[a.level].digits,
                             "failed": a.t[a.level].failed})
        return {
            "report": "rlref check", "reportVersion": 2, "golden": self.gpath,
            "candidate": self.cpath, "formula": self.golden.get("formula"), "dtype": self.dtype, "ulps": self.ulps,
            "rtol": self.rtol if self.have_rtol else None, "variant": self.only,
            "strict": self.strict, "unknownResults": self.unknown,
            "outputs": {"judged": list(self.judged), "notJudged": list(self.ungiven)},
            "follows": follows, "followsConvention": conv, "diagnosis": diag,
            "summary": {"passed": self.sum_passed, "failed": self.sum_failed,
                        "noted": self.sum_noted, "exitStatus": self.rc},
            "parts": parts,
            "variants": [self._variant_json(v) for v in self.vars],
            "cases": [self._case_json(k) for k in self.cases
                      if self.in_scope(self.vars[k.var])],
            "text": self.report(),
        }

    def report(self):
        """The text report, as `rlref check` prints it."""
        from . import _text
        return _text.report(self)

    def _part_json(self, p):
        pt, a = self.parts[p], self.answer(p)
        members = [v for v in self.vars if v.part == p]
        first = members[0] if members else None
        also = []
        for r, vi in enumerate(pt.order):
            v = self.vars[vi]
            if r > 0 and a is not None and a.cls <= LOWER16 and \
                    v.cls <= (LOWER16 if a.cls == LOWER16 else LOWER32):
                also.append({"variant": v.name, "class": CLASSES[v.cls],
                             "dtype": DTYPES[v.level][0]})
        followed = a is not None and a.cls <= LOWER16
        return {
            "part": first.part_name if first else None,
            "inputs": list(first.inputs) if first else [],
            "variants": [v.name for v in members],
            "order": [self.vars[i].name for i in pt.order],
            "judged": a.name if a is not None else None,
            "verdict": ("not-judged" if not pt.order else "not-run" if a is None
                        else CLASSES[a.cls]),
            "answer": a.name if followed else None,
            "dtype": DTYPES[a.level][0] if followed else None,
            "digits": a.t[a.level].digits if followed else None,
            "nearest": a.name if a is not None and a.cls == NONE else None,
            "alsoConsistent": also,
            "line": self.verdict_line(p) if pt.order else None,
            "validation": self._validation_json(a) if a is not None and a.ninvalid else None,
            "explanation": pt.why.to_json() if pt.why is not None else None,
        }

    def _invalid_note(self, flag):
        note = (self.golden.get("notes") or {}).get(flag) if flag is not None else None
        if not isinstance(note, dict) or note.get("bugType") != "INVALID_INPUT":
            return None
        return note.get("description")

    def _validation_json(self, a):
        acc, miss, by = [], [], {}
        for k in self.cases:
            if k.var != a.index or k.kind != "invalid" or k.answer in ("error", "skip"):
                continue
            if k.answer == "missing":
                miss.append(k.tcid)
                continue
            acc.append(k.tcid)
            first = next((f for f in k.test.get("flags") or []
                          if self._invalid_note(f) is not None), "")
            if first not in by:
                by[first] = {"flag": first or None, "description": self._invalid_note(first),
                             "tcIds": []}
            by[first]["tcIds"].append(k.tcid)
        return {"variant": a.name, "mustReject": a.ninvalid, "rejected": a.rejected,
                "accepted": acc, "acceptedNonfinite": a.accepted_nonfinite, "missing": miss,
                "byReason": list(by.values()), "counted": self.strict,
                "text": _validation_text(self, a.part)}

    def _variant_json(self, v):
        t = v.t[self.level]
        levels = {}
        for l in range(self.level, 3):
            u = v.t[l]
            levels[DTYPES[l][0]] = {"passed": u.passed, "failed": u.failed,
                                    "failedNumerical": u.failed_numerical,
                                    "notJudged": u.skipped, "worstQ": _num(u.worst_q),
                                    "digits": u.digits}
        return {"variant": v.name, "part": v.part_name, "cases": v.ncases, "valid": v.nvalid,
                "invalid": v.ninvalid, "run": t.run, "passed": t.passed, "failed": t.failed,
                "noted": t.noted, "notJudged": t.skipped,
                "failedNumerical": t.failed_numerical,
                "judged": self.parts[v.part].answer == v.index, "inScope": self.in_scope(v),
                "class": CLASSES[v.cls], "dtype": DTYPES[v.level][0],
                "digits": v.t[v.level].digits, "rank": v.rank if self.in_scope(v) else None,
                "rejected": v.rejected, "accepted": v.accepted,
                "rejectedValid": v.rejected_valid, "levels": levels}

    def _case_json(self, k):
        if k.kind == "invalid":
            status = "pass" if k.answer == "error" else "skip" if k.answer == "skip" else "fail"
            validation = {"error": "rejected", "missing": "missing", "skip": "skipped"}.get(
                k.answer, "accepted-nonfinite" if k.nonfinite_out else "accepted")
        else:
            status, validation = k.st[self.level], None
        res = k.res or {}
        return {"tcId": k.tcid, "variant": self.vars[k.var].name,
                "comment": k.test.get("comment") or "", "flags": list(k.test.get("flags") or []),
                "result": k.kind, "numerical": k.numerical,
                "counted": self.counted(k) and (k.kind != "invalid" or self.strict),
                "status": status, "answer": k.answer,
                "error": k.cand_error if k.answer == "error" else None,
                "skip": k.cand_error if k.answer == "skip" else None,
                "omitted": dict(res.get("omitted") or {}),
                "expectedError": k.test.get("error"), "validation": validation,
                "beyondFloat32": k.beyond32,
                "outputs": [self._element_json(e) for e in k.el],
                "message": _text_of_case(self, k)}

    def _element_json(self, e):
        l = self.level
        cap = DTYPES[l][1] * LOG10_2
        got = None
        if e.has_got:
            got = ("nan" if math.isnan(e.got) else ("inf" if e.got > 0 else "-inf")
                   if math.isinf(e.got) else e.got)
        o = {"output": e.output, "index": e.index if e.index >= 0 else None,
             "expected": e.expected["value"] if e.expected is not None else None,
             "got": got, "pass": self.elem_pass(e, l)}
        if e.kind == "finite":
            tol = self.ulps * e.base_ulps[l]
            if self.have_rtol and self.rtol * e.x_ulps[l] > tol:
                tol = self.rtol * e.x_ulps[l]
            o.update(errUlps=_num(e.err_ulps[l]), tolUlps=_num(tol), relErr=_num(e.rel),
                     digits=cap if e.rel == 0 else min(e.digits, cap), q=_num(e.q[l]))
        else:
            o.update(errUlps=None, tolUlps=None, relErr=None, digits=None, q=None)
        o["problem"] = e.problem
        return o


# --- helpers -------------------------------------------------------------------------------

def _text_of_case(j, k):
    from . import _text
    return _text.case_lines(j, k, j.verbose)


def _validation_text(j, p):
    from . import _text
    return _text.validation_line(j, p)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _num(x):
    return x if math.isfinite(x) else None


def _clean(s):
    b = s.encode("utf-8")
    cut = len(b)
    if cut > SHOW_CHARS:
        cut = SHOW_CHARS
        while cut > 0 and (b[cut] & 0xC0) == 0x80:
            cut -= 1
    t = "".join("?" if (ord(ch) < 0x20 or ord(ch) == 0x7f) else ch
                for ch in b[:cut].decode("utf-8", "replace"))
    return t + ("..." if cut < len(b) else "")


def _problem(name, msg, kind):
    e = Elem(name, -1, None, kind)
    e.problem = msg
    return e


def _emulates32(o):
    for v in (o or {}).values():
        for e in (v if isinstance(v, list) else [v]):
            if isinstance(e, dict) and e.get("cert") == "float32-emulation":
                return True
    return False


def _input_beyond32(v):
    if isinstance(v, list):
        return any(_input_beyond32(e) for e in v)
    if isinstance(v, int) and not isinstance(v, bool):
        return abs(float(v)) > FLOAT32_MAX
    d = cand_number(v.get("hex")) if isinstance(v, dict) else None
    return d is not None and math.isfinite(d) and abs(d) > FLOAT32_MAX


def _expected_beyond32(e):
    x = read_decimal(e.get("value")) if isinstance(e, dict) else None
    if x is None or x[0] != "num":
        return False
    return X.cmp(X.absv(x[1]), X.from_double(FLOAT32_MAX)) > 0


def _case_beyond32(t):
    if any(_input_beyond32(v) for v in (t.get("inputs") or {}).values()):
        return True
    for v in (t.get("outputs") or {}).values():
        if any(_expected_beyond32(e) for e in (v if isinstance(v, list) else [v])):
            return True
    return False


def _nonfinite_output(out):
    for v in out.values():
        for e in (v if isinstance(v, list) else [v]):
            g = cand_number(e)
            if g is not None and not math.isfinite(g):
                return True
    return False


def judge(golden, candidate, **options):
    """Judge candidate against golden (paths or parsed JSON) as `rlref check` does: a Judge
    whose to_json() is the report's judgement.  Options: dtype, ulps, rtol, variant, outputs
    (a comma list), strict, explain.  JudgeError for a file the checker refuses."""
    return Judge(golden, candidate, **options)
