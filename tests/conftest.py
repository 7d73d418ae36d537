"""Shared pytest configuration for every Python test layer under tests/.

- Under CI=true a skipped test is a FAILURE: on CI a missing prerequisite
  (a tool, a service, an environment variable) must never pass silently.
- The `stack` fixture: the running fox-avatar stack the HTTP assertions talk
  to (see tests/stack/stacks.py: loopback by default, or AVATAR_STACK=external).
"""
import os
import sys
from pathlib import Path

import pytest

# For every layer: the image set's owner (the package imageset/, at the repository root) and the
# test harness (tools/loopback.py, the loopback stack).
_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(_ROOT), str(_ROOT / "tools")]

CI = os.environ.get("CI") == "true"


def _skip_reason(longrepr):
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return longrepr[2]
    return str(longrepr)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if CI and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = ("skipped under CI=true, which counts as a failure "
                           f"(missing prerequisite?): {_skip_reason(report.longrepr)}")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if CI and report.skipped:
        report.outcome = "failed"
        report.longrepr = ("module skipped under CI=true, which counts as a failure: "
                           f"{_skip_reason(report.longrepr)}")


@pytest.fixture(scope="session")
def stack():
    """The stack under test, started once per session (loopback) or described
    by AVATAR_* environment variables (external)."""
    from stack.stacks import open_stack  # lazily: other layers need none of its imports
    with open_stack() as s:
        yield s
