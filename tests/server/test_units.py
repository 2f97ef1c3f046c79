"""In-process tests of the server's pure parts: positions, edits, settings, notebooks, isolation."""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inplace_lint.diagnostics import Diagnostic, Edit, Fix, Position, Related, Severity, Span
from inplace_lint.fixes import apply_edits
from inplace_lint.server.fixing import replacement_edit
from inplace_lint.server.isolation import IsolatedLinter, WorkerFailed
from inplace_lint.server.notebooks import Cell, NotebookProgram
from inplace_lint.server.positions import LspPosition, PositionMap, code_units
from inplace_lint.server.workspace_settings import ClientSettings, ProjectSettings
from inplace_lint.settings import DEFAULT_SETTINGS

LINE = 'a = "😀é"; b'  # 😀: 1 code point, 2 UTF-16 units, 4 UTF-8 bytes; é: 1, 1, 2


@pytest.mark.parametrize(("encoding", "expected"), [("utf-16", 11), ("utf-8", 14), ("utf-32", 10)])
def test_columns_after_non_bmp_characters(encoding, expected):
    positions = PositionMap(LINE + "\n", encoding)
    assert positions.to_lsp(Position(1, 11)) == LspPosition(0, expected)  # the `b`
    assert positions.from_lsp(LspPosition(0, expected)) == Position(1, 11)


def test_a_position_inside_a_character_rounds_down():
    positions = PositionMap(LINE, "utf-16")
    assert positions.from_lsp(LspPosition(0, 6)) == Position(1, 6)  # between the surrogates


def test_lines_split_like_the_tokenizer():
    text = "a = 1\r\nb = '\x0c\u2028'\rc = 2\n"
    positions = PositionMap(text)
    assert positions.lines == ["a = 1", "b = '\x0c\u2028'", "c = 2", ""]
    assert positions.to_lsp(Position(3, 1)) == LspPosition(2, 0)
    assert positions.offset(Position(3, 1)) == text.index("c")
    assert positions.position_at(text.index("c")) == Position(3, 1)


def test_positions_past_the_end_are_clamped():
    positions = PositionMap("ab\n")
    assert positions.to_lsp(Position(9, 1)) == LspPosition(2, 0)
    assert positions.to_lsp(Position(1, 5)) == LspPosition(0, 4)  # past the line: kept
    assert positions.offset(Position(1, 99)) == 2


@given(st.text(st.characters(codec="utf-8"), max_size=20))
def test_code_units_agree_with_the_codecs(text):
    assert code_units(text, "utf-8") == len(text.encode("utf-8"))
    assert code_units(text, "utf-16") == len(text.encode("utf-16-le")) // 2
    assert code_units(text, "utf-32") == len(text)


lines = st.lists(st.sampled_from(["a = 1", "b += 2", "", "  c()", "😀 = 3"]), max_size=8)
newline = st.sampled_from(["\n", "\r\n"])


@given(lines, lines, newline)
def test_replacement_edit_turns_old_into_new(old_lines, new_lines, end):
    old, new = end.join(old_lines) + end, end.join(new_lines) + end
    edit = replacement_edit(old, new)
    assert apply_edits(old, [edit]) == new
    assert edit.span.start.column == 1  # whole lines only


def test_replacement_edit_spares_unchanged_lines():
    edit = replacement_edit("a\nb\nc\n", "a\nB\nc\n")
    assert edit == Edit(Span(Position(2, 1), Position(3, 1)), "B\n")


def test_client_settings_from_json():
    settings = ClientSettings.from_json(
        {"select": ["ipl0"], "extendSelect": "IPL201, IPL202", "ignore": ["IPL002"], "x": 1}
    )
    assert settings == ClientSettings(("IPL0",), ("IPL201", "IPL202"), ("IPL002",))
    assert ClientSettings.from_json({"inplace-lint": {"ignore": ["IPL001"]}}).ignore == ("IPL001",)
    assert ClientSettings.from_json(None) == ClientSettings.from_json([1]) == ClientSettings()
    pulled = ClientSettings(ignore=("IPL001",))
    assert pulled.over(settings) == ClientSettings(("IPL0",), ("IPL201", "IPL202"), ("IPL001",))


def test_project_settings_follow_the_file_and_the_editor(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.inplace-lint]\nignore = ["IPL001"]\n')
    project = ProjectSettings(tmp_path)
    assert "IPL001" not in project.settings_for(tmp_path / "m.py").enabled
    project.use_client_settings(ClientSettings(extend_select=("IPL001",)))
    assert "IPL001" in project.settings_for(tmp_path / "m.py").enabled
    assert "IPL001" in project.settings_for(None).enabled  # an untitled buffer: the root's


def _diagnostic(row: int, related_row: int, fix_row: int | None = None) -> Diagnostic:
    span = Span(Position(row, 1), Position(row, 4))
    fix = None
    if fix_row is not None:
        fix = Fix("f", (Edit(Span(Position(fix_row, 1), Position(fix_row, 2)), "y"),))
    related = (Related("saved here", Span(Position(related_row, 5), Position(related_row, 9))),)
    return Diagnostic("IPL001", "n", "m", Severity.ERROR, span, fix, related, noqa_row=row)


def test_notebook_program_maps_rows_back_to_cells():
    program = NotebookProgram(
        [
            Cell("c1", "a = 1\nb = 2"),
            Cell("c2", "%time x\n  !ls\nc = 3\n"),
            Cell("c3", "%%bash\nls"),
        ]
    )
    assert program.source == "a = 1\nb = 2\npass\n  pass\nc = 3\n"
    split = program.split([_diagnostic(5, 2, fix_row=5), _diagnostic(5, 5, fix_row=1)])
    assert split["c1"] == [] and split["c3"] == []
    first, second = split["c2"]
    assert first.diagnostic.span.start == Position(3, 1)
    assert first.diagnostic.noqa_row == 3
    assert first.diagnostic.fix.edits[0].span.start == Position(3, 1)
    assert first.diagnostic.related == ()
    assert first.elsewhere[0].uri == "c1"
    assert first.elsewhere[0].related.span.start == Position(2, 5)
    assert second.diagnostic.fix is None  # its edit is in another cell
    assert second.diagnostic.related[0].span.start == Position(3, 5)


def _crash(source, filename, settings):
    os.abort()


def _sleep(source, filename, settings):
    time.sleep(30)


def test_isolated_linter_survives_a_crash_and_a_hang():
    linter = IsolatedLinter(time_limit=3)
    try:
        with pytest.raises(WorkerFailed) as crashed:
            linter.call(_crash, "", "crash.py", DEFAULT_SETTINGS)
        assert crashed.value.diagnostic.code == "IPL903"
        with pytest.raises(WorkerFailed) as hung:
            linter.call(_sleep, "", "hang.py", DEFAULT_SETTINGS)
        assert hung.value.diagnostic.code == "IPL904"
        [syntax] = linter.lint("x = (\n", "broken.py", DEFAULT_SETTINGS)
        assert syntax.code == "IPL901"
        assert [d.code for d in linter.lint("(" * 5000, "deep.py", DEFAULT_SETTINGS)]
    finally:
        linter.close()
