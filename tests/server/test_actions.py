"""End to end with the real rules: diagnostics, related locations, quick fixes, fix-all, noqa,
position encodings. The server process is real; the client applies edits the way an editor does."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.server.lsp_session import apply_text_edits, edits_of, session

pytestmark = pytest.mark.asyncio

SAVED = """\
import torch
x = torch.randn(3, requires_grad=True)
h = torch.sigmoid(x)
label = "😀"; h += 1  # noqa: E501
g = torch.tanh(x)
g += 2
w = torch.zeros(3, requires_grad=True)
w.add_(1)
(h + g).sum().backward()
"""


def _whole(line: int) -> types.Range:
    return types.Range(
        start=types.Position(line=line, character=0), end=types.Position(line=line, character=99)
    )


def _by_code(diagnostics: list[types.Diagnostic], code: str) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.code == code]


async def test_diagnostic_fields_and_related_location(tmp_path):
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SAVED)
        diagnostics = await s.diagnostics_at(uri, 1)
        assert sorted(d.code for d in diagnostics) == ["IPL001", "IPL001", "IPL002"]
        first = _by_code(diagnostics, "IPL001")[0]
        assert first.severity == types.DiagnosticSeverity.Error
        assert first.source == "inplace-lint"
        assert first.code_description.href.endswith("/rules/IPL001.md")
        # `h += 1` after a 😀 (two UTF-16 units): code points 13..19, UTF-16 units 14..20
        assert (first.range.start.line, first.range.start.character) == (3, 14)
        assert (first.range.end.line, first.range.end.character) == (3, 20)
        [related] = first.related_information
        assert related.location.uri == uri
        assert related.location.range.start == types.Position(line=2, character=4)
        assert "torch.sigmoid" in related.message
        assert first.data["fix"]["applicability"] == "safe"
        assert first.data["fix"]["edits"] == [
            {
                "range": {
                    "start": {"line": 3, "character": 14},
                    "end": {"line": 3, "character": 20},
                },
                "newText": "h = h + 1",
            }
        ]
        [leaf] = _by_code(diagnostics, "IPL002")
        assert leaf.data["fix"]["applicability"] == "unsafe"


@pytest.mark.parametrize(
    ("encodings", "negotiated", "start", "end"),
    [
        (None, "utf-16", 14, 20),
        (["utf-8", "utf-16"], "utf-8", 16, 22),
        (["utf-32"], "utf-32", 13, 19),
    ],
)
async def test_position_encodings_on_a_non_bmp_line(tmp_path, encodings, negotiated, start, end):
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path, encodings=encodings) as s:
        assert s.encoding == negotiated
        s.open(uri, SAVED)
        first = _by_code(await s.diagnostics_at(uri, 1), "IPL001")[0]
        assert (first.range.start.character, first.range.end.character) == (start, end)
        actions = await s.code_actions(uri, first.range, only=["quickfix"])
        [fix] = [a for a in actions if "Rewrite" in a.title]
        fixed = apply_text_edits(SAVED, edits_of(fix), negotiated)
        assert 'label = "😀"; h = h + 1  # noqa: E501\n' in fixed


async def test_quick_fix_applied_clears_the_diagnostic(tmp_path):
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SAVED)
        first = _by_code(await s.diagnostics_at(uri, 1), "IPL001")[0]
        actions = await s.code_actions(uri, first.range)
        [fix] = [a for a in actions if a.title.startswith("inplace-lint (IPL001): Rewrite")]
        assert fix.kind == types.CodeActionKind.QuickFix
        assert fix.is_preferred is True
        assert fix.edit.document_changes[0].text_document.version == 1
        s.edit(uri, edits_of(fix))  # sent as an incremental change, in UTF-16
        after = await s.diagnostics_at(uri, 2)
        assert [d.range.start.line for d in _by_code(after, "IPL001")] == [5]


async def test_unsafe_fix_is_offered_but_not_preferred(tmp_path):
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SAVED)
        [leaf] = _by_code(await s.diagnostics_at(uri, 1), "IPL002")
        actions = await s.code_actions(uri, leaf.range, only=["quickfix"])
        [fix] = [a for a in actions if "no_grad" in a.title]
        assert not fix.is_preferred


async def test_disable_for_this_line_merges_with_an_existing_noqa(tmp_path):
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SAVED)
        await s.diagnostics_at(uri, 1)
        actions = await s.code_actions(uri, _whole(3))
        [noqa] = [a for a in actions if a.title == "inplace-lint (IPL001): Disable for this line"]
        text = apply_text_edits(SAVED, edits_of(noqa), "utf-16")
        assert 'label = "😀"; h += 1  # noqa: E501, IPL001\n' in text
        actions = await s.code_actions(uri, _whole(5))
        [noqa] = [a for a in actions if a.title == "inplace-lint (IPL001): Disable for this line"]
        s.edit(uri, edits_of(noqa))
        after = await s.diagnostics_at(uri, 2)
        assert [d.range.start.line for d in _by_code(after, "IPL001")] == [3]


async def test_fix_all_applies_only_safe_fixes(tmp_path):
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SAVED)
        await s.diagnostics_at(uri, 1)
        actions = await s.code_actions(uri, _whole(0), only=["source.fixAll"])
        [fix_all] = actions
        assert fix_all.kind == "source.fixAll.inplace-lint"
        s.edit(uri, edits_of(fix_all))
        after = await s.diagnostics_at(uri, 2)
        assert [d.code for d in after] == ["IPL002"]  # the unsafe one stays
        # the edit spared the unchanged first lines
        [edit] = edits_of(fix_all)
        assert edit.range.start.line == 3
        assert await s.code_actions(uri, _whole(0), only=["source.fixAll"]) == []


async def test_only_filters_kinds(tmp_path):
    uri = (tmp_path / "model.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, SAVED)
        await s.diagnostics_at(uri, 1)
        quick = await s.code_actions(uri, _whole(3), only=["quickfix"])
        assert quick and all(a.kind == "quickfix" for a in quick)
        assert await s.code_actions(uri, _whole(3), only=["refactor"]) == []
        everything = await s.code_actions(uri, _whole(3))
        assert {a.kind for a in everything} == {"quickfix", "source.fixAll.inplace-lint"}
