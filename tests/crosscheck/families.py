"""The cross-check families: every module tests/families/NAME/NAME.py is one family, found by
listing the folders of tests/families/; nothing names them.  A family module declares

    EVALUATORS    {formula id: fn(variant, params, inputs, ctx) -> {output: mpf or [mpf]}}
                  (required, not empty)
    PARAM_CHECKS  {formula id: fn(variant, params) -> None, or a list of mismatches}
    SENS_SKIP     {(formula id, variant)} whose outputs have no derivative to compare "sens" with
    DETECTORS     [fn(run)]: published numbers held to the goldens (detectors.py)
    SELFTESTS     [fn(t)]: checks of the module's own mathematics (xcheck.py --selftest)

load() imports them all and merges them into one Registry; a module that does not import, has
no evaluators, declares something of the wrong type, or claims a formula id that another
module claims is a problem, reported by the caller as a failure.
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(os.path.dirname(HERE), "families")      # tests/families/


class Registry:
    def __init__(self):
        self.modules = []           # (name, module), in name order
        self.evaluators = {}        # formula id -> fn
        self.owner = {}             # formula id -> module name
        self.param_checks = {}      # formula id -> fn
        self.sens_skip = set()      # (formula id, variant)
        self.detectors = []         # (module name, fn)
        self.selftests = []         # (module name, fn)
        self.problems = []          # text, one per problem


def module_names():
    """The family modules present: the folders NAME of tests/families/ holding NAME.py."""
    return sorted(d for d in os.listdir(ROOT)
                  if os.path.isfile(os.path.join(ROOT, d, d + ".py")))


def module(name):
    """The family module NAME (tests/families/NAME/NAME.py), imported once, as families.NAME."""
    key = __name__ + "." + name
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, os.path.join(ROOT, name, name + ".py"))
        m = importlib.util.module_from_spec(spec)
        sys.modules[key] = m
        try:
            spec.loader.exec_module(m)
        except BaseException:
            del sys.modules[key]
            raise
    return sys.modules[key]


def _functions(reg, fname, m, attr):
    """The callables of m.attr (a list), or [] after recording a problem."""
    v = getattr(m, attr, [])
    if not isinstance(v, (list, tuple)) or not all(callable(f) for f in v):
        reg.problems.append("%s: %s must be a list of functions" % (fname, attr))
        return []
    return list(v)


def load():
    reg = Registry()
    for name in module_names():
        fname = "families/%s/%s.py" % (name, name)
        try:
            m = module(name)
        except Exception as ex:              # a broken module is a failure, not a skip
            reg.problems.append("%s does not import: %s: %s" % (fname, type(ex).__name__, ex))
            continue
        ev = getattr(m, "EVALUATORS", None)
        if not isinstance(ev, dict) or not ev:
            reg.problems.append("%s declares no EVALUATORS" % fname)
            continue
        reg.modules.append((name, m))
        for fid, fn in ev.items():
            if not isinstance(fid, str) or not callable(fn):
                reg.problems.append("%s: EVALUATORS[%r] is not a function of a formula id"
                                    % (fname, fid))
            elif fid in reg.owner:
                reg.problems.append("%s: formula %s is claimed by families/%s/%s.py too"
                                    % (fname, fid, reg.owner[fid], reg.owner[fid]))
            else:
                reg.evaluators[fid] = fn
                reg.owner[fid] = name
        pc = getattr(m, "PARAM_CHECKS", {})
        if not isinstance(pc, dict) or not all(callable(f) for f in pc.values()):
            reg.problems.append("%s: PARAM_CHECKS must map formula ids to functions" % fname)
        else:
            for fid, fn in pc.items():
                if fid not in ev:
                    reg.problems.append("%s: PARAM_CHECKS names %s, which it does not evaluate"
                                        % (fname, fid))
                else:
                    reg.param_checks[fid] = fn
        reg.sens_skip |= set(getattr(m, "SENS_SKIP", set()))
        reg.detectors += [(name, f) for f in _functions(reg, fname, m, "DETECTORS")]
        reg.selftests += [(name, f) for f in _functions(reg, fname, m, "SELFTESTS")]
    return reg
