"""End to end: the real server process over stdio; capabilities, publishing, never crashing."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from tests.server.lsp_session import session

pytestmark = pytest.mark.asyncio

BROKEN = "import torch\nx = (\n"
CLEAN = "import torch\nx = 1\n"


async def test_initialize_advertises_what_we_serve(tmp_path):
    async with session(tmp_path) as s:
        caps = s.result.capabilities
        assert s.result.server_info.name == "inplace-lint"
        assert s.encoding == "utf-16"
        assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
        assert caps.text_document_sync.save is not None
        kinds = caps.code_action_provider.code_action_kinds
        assert "quickfix" in kinds and "source.fixAll.inplace-lint" in kinds
        assert caps.notebook_document_sync is not None
        await asyncio.sleep(0.5)  # the registration follows `initialized`
        watched = [r for r in s.registrations if r.method == "workspace/didChangeWatchedFiles"]
        assert watched, "the server should ask to watch pyproject.toml"


async def test_syntax_error_diagnostic_shape(tmp_path):
    uri = (tmp_path / "broken.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, BROKEN)
        [diagnostic] = await s.diagnostics(uri)
        assert diagnostic.code == "IPL901"
        assert diagnostic.severity == types.DiagnosticSeverity.Error
        assert diagnostic.source == "inplace-lint"
        assert diagnostic.code_description.href == (
            "https://github.com/inplace-lint/inplace-lint/blob/main/rules/IPL901.md"
        )
        assert diagnostic.message.startswith("SyntaxError")
        assert diagnostic.data["name"] == "syntax-error"
        assert s.published[uri][0].version == 1


async def test_change_is_debounced_and_close_clears(tmp_path):
    uri = (tmp_path / "typing.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, CLEAN)
        assert await s.diagnostics_at(uri, 1) == []
        await s.settle(uri)
        before = s.count(uri)
        for _ in range(5):  # a burst of keystrokes: one lint at the end
            s.replace_text(uri, BROKEN)
        [diagnostic] = await s.diagnostics_at(uri, 6)
        assert diagnostic.code == "IPL901"
        await s.settle(uri)
        assert s.count(uri) == before + 1, "the burst should have been linted once"
        s.replace_text(uri, CLEAN)
        assert await s.diagnostics_at(uri, 7) == []
        s.replace_text(uri, BROKEN)
        await s.diagnostics_at(uri, 8)
        count = s.count(uri)
        s.close(uri)
        assert await s.diagnostics(uri, after=count) == []


async def test_save_lints(tmp_path):
    uri = (tmp_path / "saved.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, CLEAN)
        await s.diagnostics(uri)
        s.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert await s.diagnostics(uri, after=1) == []


@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01\x02 garbage \udcff",
        "(" * 5000,
        "def f(:\n\tpass\n  return\n",
        "x = '''unterminated\n",
        "\ufeffimport torch\r\nx = 1\r",
        "",
    ],
    ids=["control-chars", "deep-nesting", "bad-indent", "unterminated", "bom-crlf", "empty"],
)
async def test_any_text_gets_an_answer_and_the_server_keeps_serving(tmp_path, text):
    uri = (tmp_path / "odd.py").as_uri()
    async with session(tmp_path) as s:
        s.open(uri, text)
        await s.diagnostics(uri)
        # still serving: a request for a document it never saw, then a normal round trip
        unknown = (tmp_path / "unknown.py").as_uri()
        assert await s.code_actions(unknown, _range(0, 0, 0, 0)) == []
        other = (tmp_path / "other.py").as_uri()
        s.open(other, BROKEN)
        assert [d.code for d in await s.diagnostics(other)] == ["IPL901"]


def _range(a: int, b: int, c: int, d: int) -> types.Range:
    return types.Range(
        start=types.Position(line=a, character=b), end=types.Position(line=c, character=d)
    )
