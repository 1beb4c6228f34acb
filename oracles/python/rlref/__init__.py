"""rlref -- rlref's golden files from Python: find and load them, choose their cases, compare.

    import rlref
    G = rlref.golden("GRPO-ADV")                  # an id, or a path to a golden file
    for case in G.cases(variant="trl", result="valid", skip_flags=("NUMERICAL",)):
        got = my_advantage(**case.args)
        rlref.assert_close(case.expected["adv"], got, sens=case.sens["adv"])

rlref.eval("PREF-BT", rw=1.5, rl=0.0) evaluates one formula at one input in this process
(rlref's shared library, about 50 microseconds a call): per output, the certified decimal
string, its digits and the binary64 implementation's value.

rlref.judge(golden, candidate) is `rlref check` in Python: the same rule, verdicts and
explanations (its to_json() is the judging part of `rlref check --format json`), without the
rlref command; only explanations need the shared library.

rlref.batch (NumPy) runs the batch kernels of rlref/batch.h on arrays without copies;
rlref.strategies (hypothesis) draws a formula's inputs.

The goldens are found wherever the package is: in an installed package, the copy it was built
with; in the rlref tree, its golden/ folder; else $RLREF_GOLDEN_DIR.  The cases and the
checker's verdicts are those of rlref_check (the one-file module beside this package): see
rlref_check's documentation for Golden, Case, Candidate and validate.  With pytest, the plugin
(rlref.pytest_plugin, registered by the package) names parametrized cases "tcId N: comment".
"""

import os

import rlref_check
from rlref_check import (Candidate, Case, CaseResult, CheckError, CheckResult,  # noqa: F401
                         GoldenError, Golden, RlrefError, UnknownCase, UnknownVariant,
                         case_id, check_files, validate)
from rlref._compare import assert_close, tolerance  # noqa: F401
from rlref._eval import Rejected, UnknownFormula, Value, library_path, registry  # noqa: F401
from rlref._eval import evaluate as eval  # noqa: F401,A001
from rlref._judge import JudgeError, judge  # noqa: F401

__version__ = "0.1.0"

_HERE = os.path.dirname(os.path.abspath(__file__))


def golden_dir():
    """The folder of the golden files: $RLREF_GOLDEN_DIR, else the copy installed with the
    package, else the golden/ folder of the rlref tree the package sits in.  GoldenError when
    none holds them."""
    candidates = [os.environ.get("RLREF_GOLDEN_DIR"), os.path.join(_HERE, "golden"),
                  os.path.join(_HERE, "..", "..", "..", "golden")]
    for d in candidates:
        if d and os.path.isfile(os.path.join(d, "MANIFEST")):
            return os.path.normpath(d)
    raise GoldenError("no golden files: set RLREF_GOLDEN_DIR to rlref's golden/ folder (looked "
                      "in %s)" % ", ".join(os.path.normpath(d) for d in candidates if d))


def golden_ids():
    """The formula ids that have a golden file, sorted."""
    d = golden_dir()
    return sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json") and f[:1].isupper())


def golden(name):
    """The Golden of a formula id ("GRPO-ADV") or of a path to a golden file; GoldenError,
    naming ids there are, when the id has no golden."""
    if isinstance(name, Golden):
        return name
    name = os.fspath(name)
    if os.sep in name or name.endswith(".json") or os.path.exists(name):
        return Golden(name)
    path = os.path.join(golden_dir(), name + ".json")
    if not os.path.isfile(path):
        ids = golden_ids()
        near = [i for i in ids if i.startswith(name.split("-")[0])] or ids
        raise GoldenError("no golden for %r; ids such as: %s" % (name, ", ".join(near[:12])))
    return Golden(path)


__all__ = ["golden", "golden_dir", "golden_ids", "assert_close", "tolerance", "eval", "Value",
           "Rejected", "UnknownFormula", "judge", "JudgeError", "library_path", "registry", "Golden", "Case",
           "Candidate", "CheckResult", "CaseResult", "RlrefError", "GoldenError",
           "UnknownCase", "UnknownVariant", "CheckError", "case_id", "check_files", "validate",
           "rlref_check"]
