"""`# noqa` in all its forms, the unused-noqa rule and its fix, and `--add-noqa`."""

from __future__ import annotations

import json

import pytest
from conftest import invoke

from inplace_lint.api import lint_source
from inplace_lint.fixes import apply_edits
from inplace_lint.settings import Settings

DEFAULT = Settings()


def lint(source: str, settings: Settings = DEFAULT) -> list[tuple[int, str]]:
    return [(d.span.start.row, d.code) for d in lint_source(source, "a.py", settings)]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: IPL001",
        "# NOQA:ipl001",
        "#noqa:IPL001",
        "# noqa: E501 IPL001",
        "# noqa",
        "# noqa:IPL001  # why",
    ],
)
def test_line_noqa_forms(fake_engine, comment):
    assert lint(f"x += 1  {comment}\nw += 2\n") == [(2, "IPL001")]


def test_noqa_for_another_code_does_not_suppress(fake_engine):
    found = lint("x += 1  # noqa: IPL002\n")
    assert (1, "IPL001") in found and (1, "IPL900") in found


@pytest.mark.parametrize(
    "directive",
    [
        "# inplace-lint: noqa",
        "# inplace-lint: noqa: IPL001",
        "# INPLACE-LINT: NOQA:IPL001,IPL002",
        "# flake8: noqa",
    ],
)
def test_file_level_noqa(fake_engine, directive):
    assert lint(f"{directive}\nx += 1\n\ny += 1\n") == []


def test_file_level_noqa_needs_its_own_line(fake_engine):
    assert lint("z = 1  # inplace-lint: noqa\nx += 1\n") == [(2, "IPL001")]


def test_file_level_codes_only_suppress_those(fake_engine):
    assert lint("# inplace-lint: noqa: IPL002\nx += 1\nw.add_(1)\n") == [(2, "IPL001")]


def test_noqa_inside_a_string_is_not_a_directive(fake_engine):
    assert lint('x += 1; s = "# noqa"\n') == [(1, "IPL001")]


def test_unused_noqa_reports_only_stale_ipl_codes():
    diags = lint_source("x = 1  # noqa: IPL001, E501\ny = 2  # noqa\n", "a.py", Settings())
    assert [(d.code, d.message) for d in diags] == [
        ("IPL900", "Unused `noqa` directive (unused: `IPL001`)")
    ]


def test_unused_noqa_names_non_enabled_and_unknown_codes():
    settings = Settings(enabled=frozenset({"IPL900", "IPL001"}))
    (diag,) = lint_source("x = 1  # noqa: IPL002, IPL999\n", "a.py", settings)
    assert diag.message == "Unused `noqa` directive (non-enabled: `IPL002`; unknown: `IPL999`)"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x += 1  # noqa: IPL001, IPL002\n", "x += 1  # noqa: IPL001\n"),
        ("x += 1  # noqa: IPL002, E501, IPL001\n", "x += 1  # noqa: E501, IPL001\n"),
        ("y = 1  # noqa: IPL002\n", "y = 1\n"),
        ("y = 1  # noqa: IPL002  # why not\n", "y = 1  # why not\n"),
        ("y = 1  # type: int  # noqa: IPL002\n", "y = 1  # type: int\n"),
    ],
)
def test_unused_noqa_fix_removes_only_stale_codes(fake_engine, before, after):
    (diag,) = [d for d in lint_source(before, "a.py", Settings()) if d.code == "IPL900"]
    assert diag.fix is not None and diag.fix.is_safe
    assert apply_edits(before, diag.fix.edits) == after


def test_unused_noqa_can_be_turned_off(fake_engine):
    assert lint("y = 1  # noqa: IPL002\n", Settings(enabled=frozenset({"IPL001"}))) == []


def test_unused_noqa_fix_through_the_cli(project, fake_engine):
    path = project / "a.py"
    path.write_text("x += 1  # noqa: IPL001, IPL002\n")
    result = invoke("check", "--fix", "a.py")
    assert result.exit_code == 0, result.stdout
    assert path.read_text() == "x += 1  # noqa: IPL001\n"


def test_tokenize_failure_falls_back_to_a_line_scan():
    from inplace_lint.suppressions import parse_directives

    directives = parse_directives('x = (  # noqa: IPL001\n"""\n')
    assert directives.by_row[1].codes == ["IPL001"]


def test_add_noqa_baselines_every_finding(project, fake_engine):
    path = project / "a.py"
    path.write_text('x += 1\nw.add_(1)  # noqa: E501\ny += 1  # noqa\ns = """\n"""; z += 1\n')
    result = invoke("check", "--add-noqa")
    assert result.exit_code == 0
    assert "Added 3 noqa directives." in result.stderr
    assert path.read_text() == (
        "x += 1  # noqa: IPL001\nw.add_(1)  # noqa: E501, IPL002\ny += 1  # noqa\n"
        's = """\n"""; z += 1  # noqa: IPL001\n'
    )
    again = invoke("check", "--output-format", "json")
    assert json.loads(again.stdout) == []
    assert again.exit_code == 0


def test_add_noqa_keeps_crlf(project, fake_engine):
    path = project / "a.py"
    path.write_bytes(b"x += 1\r\ny = 2\r\n")
    invoke("check", "--add-noqa")
    assert path.read_bytes() == b"x += 1  # noqa: IPL001\r\ny = 2\r\n"
