"""The linter over every runtime-confirmed fixture (tests/fixtures, format in docs/fixtures.md).

Precision is asserted strictly: no diagnostic the markers do not expect, and never an error on an
`ok` fixture. Recall is asserted against `tests/known_gaps.txt`: the misses must be exactly the
listed ones, so a regression fails and a fixed gap must be removed from the list.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fixturelib import REPO_ROOT, all_fixtures

from inplace_lint.api import lint_source
from inplace_lint.diagnostics import Severity

FIXTURES = all_fixtures()
KNOWN_GAPS_FILE = Path(__file__).parent / "known_gaps.txt"


def _known_gaps() -> set[str]:
    lines = KNOWN_GAPS_FILE.read_text().splitlines()
    return {line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()}


def _name(fixture) -> str:
    return fixture.path.relative_to(REPO_ROOT).as_posix()


@pytest.mark.parametrize("fixture", FIXTURES, ids=_name)
def test_no_unexpected_diagnostic(fixture) -> None:
    diagnostics = lint_source(fixture.text, str(fixture.path))
    expected = {(line, code) for line, codes in fixture.expected.items() for code in codes}
    unexpected = [
        f"{d.span.start.row}: {d.code} {d.message}"
        for d in diagnostics
        if (d.span.start.row, d.code) not in expected
    ]
    assert not unexpected, "\n".join(unexpected)
    if fixture.outcome.kind == "ok":
        assert not [d for d in diagnostics if d.severity == Severity.ERROR]


@pytest.mark.parametrize("fixture", FIXTURES, ids=_name)
def test_expected_diagnostics_or_known_gap(fixture) -> None:
    diagnostics = lint_source(fixture.text, str(fixture.path))
    reported = {(d.span.start.row, d.code) for d in diagnostics}
    expected = {(line, code) for line, codes in fixture.expected.items() for code in codes}
    missing = expected - reported
    name = _name(fixture)
    if name in _known_gaps():
        assert missing, f"{name} is detected now: remove it from tests/known_gaps.txt"
    else:
        assert not missing, f"missed {sorted(missing)} (a real gap goes into tests/known_gaps.txt)"
    if fixture.outcome.kind == "error" and name not in _known_gaps():
        fault_rows = set(fixture.expected)
        assert any(
            d.severity == Severity.ERROR and d.span.start.row in fault_rows for d in diagnostics
        ), "an error fixture needs an error-severity diagnostic on its fault line"


def test_known_gaps_name_real_fixtures() -> None:
    names = {_name(f) for f in FIXTURES}
    assert _known_gaps() <= names
