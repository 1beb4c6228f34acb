"""What a candidate that follows no variant follows instead: the explanation search of
`rlref check` (oracles/check/check_explain.c), for rlref.judge.

The same models in the same order -- each variant of the part, moved along the formula's
axes, with a real parameter at 1, at 0 or at another variant's value, with log-probabilities
read as probabilities, scaled by -1, 2, 1/2 or by a count of an array input; then the
variants of the formulas that take the same inputs -- screened in binary64 with a tolerance
64 times wider, and verified against certified values with their own sensitivities by the
rule itself.  The reference is evaluated through the shared library
(rlref_departure_text, oracles/check/departure.h), whose values the C search uses too."""

import ctypes
import json
import math
import time

from . import _exact as X
from ._judge import DTYPES, LOG10_2, NONE, WORKING_BITS, cand_number

SCREEN_WIDER = 64.0
MAX_EVALS = 200000
MAX_SECONDS = 20.0
EINVAL = 2
KINDS = ("variant", "axis", "parameter", "formula", "probabilities", "scale")
VARIANT, AXIS, PARAM, FORMULA, PROBS, SCALE = range(6)
F_CONST, F_LEN, F_SUM = range(3)


# --- the library -----------------------------------------------------------------------------

class _Lib:
    def __init__(self):
        from ._eval import _lib, registry
        lib = _lib()
        lib.rlref_departures_text.restype = ctypes.c_void_p
        lib.rlref_departures_text.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.rlref_departure_text.restype = ctypes.c_void_p
        lib.rlref_departure_text.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                             ctypes.c_int, ctypes.c_double, ctypes.c_int,
                                             ctypes.c_char_p, ctypes.c_int]
        self.lib = lib
        self.registry = registry()
        self._deps = {}

    def _text(self, p):
        if not p:
            return None
        try:
            return json.loads(ctypes.string_at(p).decode())
        finally:
            self.lib.rlref_eval_text_free(p)

    def departures(self, fid, vname):
        key = (fid, vname)
        if key not in self._deps:
            self._deps[key] = self._text(self.lib.rlref_departures_text(fid.encode(),
                                                                        vname.encode()))
        return self._deps[key]

    def evaluate(self, fid, vname, axis, param, pvalue, probs, inputs_text, certified):
        return self._text(self.lib.rlref_departure_text(
            fid.encode(), vname.encode(), axis, param, pvalue, 1 if probs else 0,
            inputs_text, 1 if certified else 0))


_LIBRARY = None


def _library():
    global _LIBRARY
    if _LIBRARY is None:
        _LIBRARY = _Lib()
    return _LIBRARY


def _parse_ra(s):
    """MPFR's "%Ra" text (or "nan", "inf", "-inf") as ("num", n*2**e) or a special."""
    if s == "nan":
        return ("nan",)
    if s in ("inf", "-inf"):
        return ("inf", 1 if s == "inf" else -1)
    sign = -1 if s.startswith("-") else 1
    body = s.lstrip("+-")[2:]
    mant, _, exp = body.partition("p")
    whole, _, frac = mant.partition(".")
    n = int(whole + frac, 16) * sign
    return ("num", (n, int(exp) - 4 * len(frac)) if n else X.ZERO)


def _hex_double(h):
    return float(h) if h in ("nan", "inf", "-inf", "-nan") else float.fromhex(h)


# --- models ----------------------------------------------------------------------------------

class Model:
    def __init__(self, kind, fid, variant, base):
        self.kind, self.fid, self.variant, self.base = kind, fid, variant, base
        self.own_name = variant["name"] if variant else None
        self.label = ""
        self.axis = -1
        self.param = -1
        self.param_name = None
        self.pvalue = 0.0
        self.src = None
        self.fk = F_CONST
        self.factor = 1.0
        self.finput = None
        self.values = {}            # point -> None (failed) or {name: [doubles]}

    def vname(self):
        """The variant it evaluates (model_variant): the moved one's name for an axis."""
        return self.own_name


def _g10(x):
    return "%.10g" % x


class Search:
    def __init__(self, j, p, lib, formula):
        self.j, self.p, self.lib, self.f = j, p, lib, formula
        self.m = []
        self.evals = 0
        self.start = time.process_time()
        self.timed_out = False
        self.outputs = []
        self._collect_points()

    def out_of_time(self):
        if not self.timed_out and time.process_time() - self.start > MAX_SECONDS:
            self.timed_out = True
        return self.timed_out

    def _collect_points(self):
        j = self.j
        seen = {}
        self.points, self.texts, self.point_of, self.same = [], [], [], []
        for k in j.cases:
            ins = k.test.get("inputs") if "inputs" in k.test else None
            if j.vars[k.var].part != self.p or ins is None:
                self.point_of.append(None)
                continue
            key = json.dumps(ins, sort_keys=True, separators=(",", ":"))
            if key not in seen:
                seen[key] = len(self.points)
                self.points.append(ins)
                self.texts.append(json.dumps(ins).encode())
                self.same.append([])
            u = seen[key]
            self.point_of.append(u)
            self.same[u].append(k)

    def _variant(self, fid, name):
        for v in self.lib.registry[fid]["variants"]:
            if v["name"] == name:
                return v
        return None

    def add(self, kind, fid, variant, base):
        m = Model(kind, fid, variant, base)
        self.m.append(m)
        return m

    def build(self):
        j, f = self.j, self.f
        first = len(self.m)
        for v in j.vars:
            if v.part != self.p:
                continue
            rv = self._variant(f["id"], v.name)
            if rv is not None:
                self.add(VARIANT, f["id"], rv, rv["name"])
        for b in range(first, len(self.m)):
            v = self.m[b].variant
            deps = self.lib.departures(f["id"], v["name"])
            for a in deps["axes"]:
                m = self.add(AXIS, f["id"], v, v["name"])
                m.axis, m.label, m.own_name = a["axis"], a["label"], a["variant"]
            self._param_models(v, deps["params"])
            if deps["logprob"]:
                m = self.add(PROBS, f["id"], v, v["name"])
                m.label = "probabilities e^x read in place of the log-probabilities"
            self._scale_models(b)
        if len(self.m) == first:
            return
        names = set(i["name"] for i in self.m[first].variant["inputs"])
        for g in self.lib.registry.values():
            if g["id"] == f["id"]:
                continue
            for gv in g["variants"]:
                if set(i["name"] for i in gv["inputs"]) == names and \
                        len(gv["inputs"]) == len(names):
                    m = self.add(FORMULA, g["id"], gv, None)
                    m.label = "%s %s" % (g["id"], gv["name"])

    def _param_models(self, v, params):
        for pi, prm in enumerate(params):
            cand = [1.0, 0.0]
            for ov in self.f["variants"]:
                for q in self.lib.departures(self.f["id"], ov["name"])["params"]:
                    if len(cand) < 64 and q["name"] == prm["name"]:
                        cand.append(float(q["value"]))
            value = float(prm["value"])
            if prm["inX"]:
                m = self.add(PARAM, self.f["id"], v, v["name"])
                m.param, m.param_name, m.pvalue = pi, prm["name"], value
                m.label = "%s = %s whatever the test gives (%s ignored as an input)" % (
                    prm["name"], _g10(value), prm["name"])
            for i, c in enumerate(cand):
                if c == value or (prm["isInt"] and c != math.floor(c)) or c in cand[:i]:
                    continue
                m = self.add(PARAM, self.f["id"], v, v["name"])
                m.param, m.param_name, m.pvalue = pi, prm["name"], c
                m.label = "%s = %s in place of %s" % (prm["name"], _g10(c), _g10(value))

    def _scale_models(self, src):
        v, base = self.m[src].variant, self.m[src].base
        for factor, label in ((-1.0, "times -1 (the sign flipped)"), (2.0, "times 2"),
                              (0.5, "times 1/2")):
            m = self.add(SCALE, self.f["id"], v, base)
            m.src, m.fk, m.factor, m.label = src, F_CONST, factor, label
        for inp in v["inputs"]:
            if inp["kind"] not in ("real[]", "int[]"):
                continue
            name = inp["name"]
            labels = ["times the number of %s elements (a sum in place of a mean over them)"
                      % name,
                      "divided by the number of %s elements (a mean in place of a sum over "
                      "them)" % name]
            if inp["kind"] == "int[]":
                labels += ["times the sum of %s (a sum in place of a mean over those %s "
                           "counts)" % (name, name),
                           "divided by the sum of %s (a mean over those %s counts in place of "
                           "a sum)" % (name, name)]
            for ps, label in enumerate(labels):
                m = self.add(SCALE, self.f["id"], v, base)
                m.src, m.fk = src, F_LEN if ps < 2 else F_SUM
                m.factor = -1.0 if ps % 2 else 1.0
                m.finput, m.label = name, label

    # --- evaluation ------------------------------------------------------------------------

    def _call(self, m, u, certified):
        return self.lib.evaluate(m.fid, m.variant["name"], m.axis,
                                 m.param if m.kind == PARAM else -1, m.pvalue,
                                 m.kind == PROBS, self.texts[u], certified)

    def evaluate_point(self, m, u):
        if u in m.values:
            return
        m.values[u] = None
        if self.evals >= MAX_EVALS or self.out_of_time():
            return
        self.evals += 1
        r = self._call(m, u, False)
        if r is not None and r["status"] == 0:
            m.values[u] = {o["name"]: [_hex_double(h) for h in o["y"]] for o in r["outputs"]}

    def model_output(self, mi, u, name):
        m = self.m[mi]
        src = self.m[m.src] if m.kind == SCALE else m
        self.evaluate_point(src, u)
        vals = src.values[u]
        if vals is None or name not in vals:
            return None
        return vals[name]

    def factor_at(self, m, u):
        if m.fk == F_CONST:
            return m.factor
        val = self.points[u].get(m.finput)
        n = 0.0
        if m.fk == F_LEN:
            n = float(len(val)) if isinstance(val, list) else 0.0
        elif isinstance(val, list):
            for e in val:
                n += float(e) if isinstance(e, int) and not isinstance(e, bool) else 0.0
        if n == 0:
            return math.nan
        return n if m.factor > 0 else 1.0 / n


def _cand_output(k, name):
    out = (k.res or {}).get("outputs") or {}
    if name not in out:
        return None
    v = out[name]
    vals = v if isinstance(v, list) else [v]
    if len(vals) > 4096:
        return None
    got = [cand_number(e) for e in vals]
    return None if any(g is None for g in got) else got


def _golden_sens(k, name, i):
    o = (k.test.get("outputs") or {}).get(name)
    e = o[i] if isinstance(o, list) and i < len(o) else (o if i == 0 and not
                                                          isinstance(o, list) else None)
    s = e.get("sens") if isinstance(e, dict) else None
    if isinstance(s, str):
        d = cand_number(s)
        return d if d is not None and math.isfinite(d) else 0.0
    return float(s) if isinstance(s, (int, float)) and not isinstance(s, bool) else 0.0


def _screen_sens(s, u, name, i):
    m = 0.0
    for k in s.same[u]:
        m = max(m, _golden_sens(k, name, i))
    return m


def _screen_close(j, g, y, sens, l):
    lam = math.ldexp(1.0, DTYPES[l][2])
    if math.isnan(y) or math.isnan(g):
        return math.isnan(y) and math.isnan(g)
    if math.isinf(y) or math.isinf(g):
        return g == y
    tol = SCREEN_WIDER * j.ulps * math.ldexp(sens + (max(abs(y), lam) if y != 0 else 0.0),
                                             -DTYPES[l][1])
    return abs(g - y) <= tol


def _screen(s, mi, name, l):
    """(whether model mi explains output name at level l, the cases compared)."""
    j, ncmp = s.j, 0
    for i, k in enumerate(j.cases):
        u = s.point_of[i]
        if u is None or k.numerical or k.answer in ("missing", "skip"):
            continue
        y = s.model_output(mi, u, name)
        if k.answer == "error":
            if y is not None and k.kind == "valid":
                return False, ncmp
            continue
        buf = _cand_output(k, name) if y is not None else None
        if buf is None:
            continue
        if len(buf) != len(y):
            return False, ncmp
        f = 1.0
        if s.m[mi].kind == SCALE:
            f = s.factor_at(s.m[mi], u)
            if math.isnan(f):
                continue
        for jj in range(len(buf)):
            if not _screen_close(j, buf[jj], f * y[jj], abs(f) * _screen_sens(s, u, name, jj), l):
                return False, ncmp
        ncmp += 1
    return ncmp > 0, ncmp


def _scale_is_identity(s, mi):
    if s.m[mi].kind != SCALE:
        return False
    for i, k in enumerate(s.j.cases):
        u = s.point_of[i]
        if u is not None and k.answer == "outputs" and s.factor_at(s.m[mi], u) != 1.0:
            return False
    return True


def _verify(s, mi, name, l):
    j = s.j
    m = s.m[mi]
    src = s.m[m.src] if m.kind == SCALE else m
    outs = [o for o in s.lib.registry[src.fid]["variants"] if o["name"] == src.variant["name"]]
    if not outs or name not in outs[0]["outputs"]:
        return False
    p = DTYPES[l][1]
    emin = DTYPES[l][2]
    ulps = X.from_double(j.ulps)
    worst = 0.0
    for i, k in enumerate(j.cases):
        if s.out_of_time():
            return False
        u = s.point_of[i]
        if u is None or k.numerical or k.answer != "outputs":
            continue
        buf = _cand_output(k, name)
        if buf is None:
            continue
        s.evaluate_point(src, u)
        if src.values[u] is None:
            continue
        f = 1.0
        if m.kind == SCALE:
            f = s.factor_at(m, u)
            if math.isnan(f):
                continue
        r = s._call(src, u, True)
        if r is None or r["status"] != 0:
            return False
        o = next((o for o in r["outputs"] if o["name"] == name), None)
        if o is None or len(o["x"]) != len(buf):
            return False
        fx = X.from_double(f)
        for jj, g in enumerate(buf):
            xv = _parse_ra(o["x"][jj])
            if xv[0] == "nan":
                if not math.isnan(g):
                    return False
                continue
            if xv[0] == "inf":
                sgn = xv[1] * (1 if f > 0 else -1)
                if not (math.isinf(g) and (g > 0) == (sgn > 0)):
                    return False
                continue
            x = X.mul(xv[1], fx, WORKING_BITS)
            if not math.isfinite(g):
                return False
            if o["nondiff"][jj]:
                t = X.ZERO
            else:
                sv = _parse_ra(o["sens"][jj])
                if sv[0] == "nan":
                    return False        # no tolerance: nothing is within it
                if sv[0] == "inf":
                    continue            # every finite value is within it
                t = X.mul(sv[1], X.absv(fx), WORKING_BITS)
            w = X.absv(x)
            if not X.is_zero(w) and X.floor_log2(w) < emin:
                w = (1, emin)
            t = X.add(t, w, WORKING_BITS, "U")
            t = X.mul(t, ulps, WORKING_BITS, "U")
            t = X.mul_2exp(t, -p)
            d = X.absv(X.sub(X.from_double(g), x, WORKING_BITS))
            if j.have_rtol:
                w = X.mul(X.absv(x), X.from_double(j.rtol), WORKING_BITS, "U")
                if X.cmp(w, t) > 0:
                    t = w
            if X.cmp(d, t) > 0:
                return False
            if not X.is_zero(t):
                worst = max(worst, j.ulps * X.div_up_to_double(d, t))
    if l == j.level:
        return True
    bits = DTYPES[l][1] * LOG10_2
    digits = bits - math.log10(worst) if worst > 0 else 17.0
    return bits - 1 <= digits <= bits + 1.5


# --- the search ------------------------------------------------------------------------------

class Explanation:
    def __init__(self, judge, nearest):
        self.j = judge
        self.nearest = nearest
        self.level = judge.level
        self.whole = False
        self.e = []                 # (outputs, model index, cases)
        self.follow_nearest = []
        self.unexplained = []
        self.reason = None
        self.searched = 0
        self.m = []
        self.line = None

    def clear(self):
        self.e, self.whole = [], False
        self.follow_nearest, self.unexplained = [], []

    def to_json(self):
        entries = []
        for outs, mi, cases in self.e:
            m = self.m[mi]
            e = {"outputs": list(outs), "kind": KINDS[m.kind], "formula": m.fid,
                 "variant": m.vname(), "base": m.base,
                 "departure": None if m.kind in (VARIANT, FORMULA) else m.label}
            if m.kind == PARAM:
                e["parameter"] = m.param_name
                e["value"] = m.pvalue
            e["cases"] = cases
            entries.append(e)
        return {"nearest": self.nearest, "dtype": DTYPES[self.level][0], "whole": self.whole,
                "entries": entries, "followNearest": list(self.follow_nearest),
                "unexplained": list(self.unexplained), "reason": self.reason,
                "searched": self.searched, "text": self.line}


def _search_level(s, l, x, nearest):
    nout = len(s.outputs)
    nm = len(s.m)
    ex = [[False] * nout for _ in range(nm)]
    ncmp = [[0] * nout for _ in range(nm)]
    x.level = l
    nearest_m = None
    for mi in range(nm):
        if _scale_is_identity(s, mi):
            continue
        if s.m[mi].kind == VARIANT and s.m[mi].variant["name"] == nearest:
            nearest_m = mi
        for o in range(nout):
            ex[mi][o], ncmp[mi][o] = _screen(s, mi, s.outputs[o], l)
    best = None
    for rank in range(SCALE + 1):
        if best is not None:
            break
        for mi in range(nm):
            if s.m[mi].kind != rank or mi == nearest_m:
                continue
            if nout == 0 or not all(ex[mi]):
                continue
            if all(_verify(s, mi, s.outputs[o], l) for o in range(nout)):
                best = mi
                break
    if best is not None:
        x.whole = True
        x.e = [(list(s.outputs), best, max(ncmp[best]) if nout else 0)]
        return
    left = []
    for o in range(nout):
        name = s.outputs[o]
        if nearest_m is not None and ex[nearest_m][o] and _verify(s, nearest_m, name, l):
            x.follow_nearest.append(name)
        else:
            left.append(name)
    while left:
        pick, pickn = None, 0
        for mi in range(nm):
            if mi == nearest_m:
                continue
            n = sum(1 for nmn in left for o in range(nout) if nmn == s.outputs[o] and ex[mi][o])
            if n > pickn or (n == pickn and n > 0 and pick is not None
                             and s.m[mi].kind < s.m[pick].kind):
                pick, pickn = mi, n
        if pick is None:
            break
        got = []
        i = 0
        while i < len(left):
            nmn = left[i]
            o = s.outputs.index(nmn) if nmn in s.outputs else nout
            if o < nout and ex[pick][o]:
                ex[pick][o] = False
                if _verify(s, pick, nmn, l):
                    got.append(nmn)
                    del left[i]
                    continue
            i += 1
        if got:
            x.e.append((got, pick, max(ncmp[pick]) if nout else 0))
    x.unexplained.extend(left)


def _golden_is_ours(s):
    j = s.j
    for i, k in enumerate(j.cases):
        if j.vars[k.var].part != s.p or k.kind != "valid" or s.point_of[i] is None:
            continue
        name = j.vars[k.var].name
        mi = next((mi for mi, m in enumerate(s.m) if m.kind == VARIANT
                   and m.variant["name"] == name), None)
        if mi is None:
            return False
        for out, ev in (k.test.get("outputs") or {}).items():
            y = s.model_output(mi, s.point_of[i], out)
            if y is None:
                return False
            for jj, yy in enumerate(y):
                if isinstance(ev, list) and jj >= len(ev):
                    return False
                e = ev[jj] if isinstance(ev, list) else ev
                h = cand_number(e.get("hex")) if isinstance(e, dict) else None
                if h is None:
                    return False
                if not (h == yy or (math.isnan(h) and math.isnan(yy))
                        or abs(h - yy) <= 1e-9 * max(abs(h), 1e-300)
                        or abs(h - yy) <= 64 * math.ldexp(_golden_sens(k, out, jj) + abs(h),
                                                          -53)):
                    return False
        return True
    return True


def _rejects_all(j, p):
    first = None
    for k in j.cases:
        if j.vars[k.var].part != p or k.kind == "invalid" or k.answer in ("skip", "missing"):
            continue
        if k.answer != "error":
            return None
        if first is None:
            first = k.cand_error
    return first


def _explain_part(j, p, lib, formula):
    a = j.answer(p)
    x = Explanation(j, a.name)
    j.parts[p].why = x
    if lib is None:
        x.reason = ("the reference library is not loaded (librlref_oracles.so: build rlref "
                    "or set RLREF_ORACLES_LIB)")
        return
    if formula is None:
        x.reason = "the golden's formula is not one of this rlref's"
        return
    err = _rejects_all(j, p)
    if err is not None:
        err = "".join(" " if ord(ch) < 0x20 or ord(ch) == 0x7f else ch
                      for ch in err.encode("utf-8")[:160].decode("utf-8", "ignore"))
        x.reason = ("the candidate rejects every case of the part it answers (the first with "
                    "\"%s\"): it computes none of them" % err)
        return
    s = Search(j, p, lib, formula)
    s.build()
    for k in j.cases:
        if j.vars[k.var].part != p:
            continue
        for name in (k.test.get("outputs") or {}):
            if name in j.judged and name not in s.outputs:
                s.outputs.append(name)
    if not s.m:
        x.reason = "the registry has none of the part's variants"
    elif not _golden_is_ours(s):
        x.reason = "the golden's values are not this rlref's (another version)"
    if x.reason is None:
        top = j.level + 1 if j.level + 1 < len(DTYPES) else j.level
        for l in range(j.level, top + 1):
            x.clear()
            _search_level(s, l, x, a.name)
            if not x.unexplained and x.e:
                break
            if l == top and l != j.level:
                x.clear()
                _search_level(s, j.level, x, a.name)
    x.searched = len(s.m) if x.reason is None else 0
    x.m = s.m
    if x.reason is None and not x.e:
        x.reason = ("the search stopped after 20 s of processor time (each evaluation of this "
                    "formula is long)" if s.timed_out else "no departure searched explains it")


def _phrase(x, outs, mi, plural):
    m = x.m[mi]
    if m.kind == VARIANT:
        return "%s variant %s" % ("follow" if plural else "follows", m.variant["name"])
    if m.kind == FORMULA:
        return "%s the values of %s variant %s" % ("are" if plural else "is", m.fid,
                                                   m.variant["name"])
    if m.kind == SCALE:
        return "%s %s %s" % ("follow" if plural else "follows", m.base, m.label)
    return "%s %s with %s" % ("follow" if plural else "follows", m.base, m.label)


def _line(j, x):
    acc = "" if x.level == j.level else (" (at float32 accuracy)" if x.level == 1
                                          else " (at bfloat16 accuracy)")
    if not x.e and x.searched == 0:
        return "Unexplained: %s" % (x.reason if x.reason is not None else "nothing searched")
    if not x.e:
        s = ("Unexplained: %s (%d departures of its variants searched: their parameters, the "
             "formula's axes, sign and scale, probabilities for log-probabilities, formulas "
             "with the same inputs)" % (x.reason if x.reason is not None
                                         else "nothing explains it", x.searched))
        ids = [k.tcid for k in j.cases if j.vars[k.var].name == x.nearest
               and k.kind != "invalid" and k.st[j.level] == "fail"]
        if ids:
            s += "; it departs from the nearest on tcIds " + ", ".join(str(t) for t in ids[:12])
        if len(ids) > 12:
            s += " and %d more" % (len(ids) - 12)
        return s
    if x.whole:
        outs, mi, cases = x.e[0]
        m = x.m[mi]
        s = "Explained: the candidate "
        if m.kind == VARIANT:
            s += "follows variant %s" % m.variant["name"]
        elif m.kind == FORMULA:
            s += "gives the values of %s variant %s" % (m.fid, m.variant["name"])
        elif m.kind == SCALE:
            s += "follows %s with every output %s" % (m.base, m.label)
        else:
            s += "follows %s with %s" % (m.base, m.label)
        return s + "%s, on all %d cases compared" % (acc, cases)
    s = "Explained: " + "; ".join("%s %s" % (", ".join(outs), _phrase(x, outs, mi, len(outs) > 1))
                                  for outs, mi, _ in x.e)
    if x.follow_nearest:
        s += "; %s %s %s" % (", ".join(x.follow_nearest),
                             "follow" if len(x.follow_nearest) > 1 else "follows", x.nearest)
    s += acc
    if x.unexplained:
        s += "; not explained: " + ", ".join(x.unexplained)
    return s


def explain(j):
    """For each part of judge j whose answer is not followed, the explanation (into
    j.parts[p].why)."""
    lib = None
    fid = j.golden.get("formula")
    for p in range(j.nparts):
        a = j.answer(p)
        if a is None or a.cls != NONE:
            continue
        if lib is None:
            try:
                lib = _library()
            except Exception:       # no shared library: the verdict stands unexplained
                lib = False
        formula = lib.registry.get(fid) if lib and isinstance(fid, str) else None
        _explain_part(j, p, lib or None, formula)
        x = j.parts[p].why
        x.line = _line(j, x)
