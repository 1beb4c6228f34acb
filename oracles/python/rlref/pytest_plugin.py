"""The pytest plugin of rlref (entry point pytest11; from the tree, `-p rlref.pytest_plugin`).

- Parametrized golden cases are named by their tcId and comment ("tcId 7 group of one").
- The marker rlref(golden, variant=None, result=None, skip_flags=()) parametrizes a test's
  rlref_case argument with the golden's cases (Golden.cases chooses them):

      @pytest.mark.rlref("GRPO-ADV", variant="trl", result="valid")
      def test_adv(rlref_case):
          rlref.assert_close(rlref_case.expected["adv"], my_adv(**rlref_case.args),
                             sens=rlref_case.sens["adv"])

- The fixture rlref_validate(golden, fn, **options) runs fn on every case of the golden and
  judges it with `rlref check` (rlref_check.validate): the test fails with the check's report
  unless the function passes (or, with allow_numerical=True, follows a convention but for the
  cases flagged NUMERICAL), the verdict (which convention it follows, or what it follows
  instead) is a property of the test in pytest's --junitxml, and the verdicts are listed in
  pytest's summary.
- --rlref-report=FILE writes the verdicts of every rlref_validate as JSON: a list of
  {"test", "formula", "ok", "convention", "verdicts", "explanations", "validation",
  "passed", "failed", "report"}.
"""

import json

import pytest

import rlref
import rlref_check


def pytest_addoption(parser):
    group = parser.getgroup("rlref")
    group.addoption("--rlref-report", metavar="FILE", default=None,
                    help="write the verdicts of the rlref_validate calls to FILE as JSON")


def pytest_configure(config):
    config.addinivalue_line("markers", "rlref(golden, variant=None, result=None, skip_flags=()): "
                            "parametrize the test's rlref_case argument with the golden's cases")
    config._rlref_verdicts = []


def pytest_make_parametrize_id(config, val, argname):
    """The id of a golden case in @pytest.mark.parametrize; None leaves pytest's own."""
    if isinstance(val, rlref_check.Case):
        return "tcId " + rlref_check.case_id(val)
    return None


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("rlref")
    if marker is None or "rlref_case" not in metafunc.fixturenames:
        return
    if not marker.args:
        raise pytest.UsageError("%s: @pytest.mark.rlref needs the golden (an id or a path)"
                                % metafunc.definition.nodeid)
    cases = rlref.golden(marker.args[0]).cases(**marker.kwargs)
    metafunc.parametrize("rlref_case", cases)


@pytest.fixture
def rlref_validate(request):
    """validate(golden, fn, allow_numerical=False, **options): the CheckResult of fn on the
    golden (options as rlref_check.validate's); the test fails with the report unless it
    passes, or, with allow_numerical, follows a convention but for cases flagged NUMERICAL."""

    def validate(golden, fn, allow_numerical=False, **options):
        result = rlref_check.validate(rlref.golden(golden), fn, **options)
        ok = result.ok or (allow_numerical and bool(result.follows_convention))
        verdict = "; ".join(result.verdicts) or "no verdict"
        request.node.user_properties.append(("rlref_verdict", verdict))
        request.config._rlref_verdicts.append({
            "test": request.node.nodeid, "formula": result.data["formula"], "ok": ok,
            "convention": result.convention, "verdicts": result.verdicts,
            "explanations": result.explanations, "validation": result.validation,
            "passed": result.passed, "failed": result.failed, "report": result.report()})
        if not ok:
            pytest.fail("%s\n%s" % (verdict, result.report()), pytrace=False)
        return result

    return validate


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    verdicts = getattr(config, "_rlref_verdicts", [])
    if not verdicts:
        return
    terminalreporter.section("rlref verdicts")
    for v in verdicts:
        lines = v["verdicts"] + v["explanations"] + v["validation"]
        terminalreporter.write_line("%s %s %s: %s" % ("PASS" if v["ok"] else "FAIL", v["test"],
                                                      v["formula"], "; ".join(lines)))


def pytest_unconfigure(config):
    path = config.getoption("--rlref-report", None)
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(getattr(config, "_rlref_verdicts", []), f, indent=1)
            f.write("\n")
