"""The pytest plugin of rlref (entry point pytest11): parametrized golden cases are named by
their tcId and comment ("tcId 7: group of one"), as rlref_check.case_id writes them."""

import rlref_check


def pytest_make_parametrize_id(config, val, argname):
    """The id of a golden case in @pytest.mark.parametrize; None leaves pytest's own."""
    if isinstance(val, rlref_check.Case):
        return "tcId " + rlref_check.case_id(val)
    return None
