"""End to end: a notebook's code cells are linted as one program, reported per cell."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.server.lsp_session import edits_of, session

pytestmark = pytest.mark.asyncio

CELLS = [
    "import torch\nx = torch.randn(3, requires_grad=True)\nh = torch.sigmoid(x)\n",
    "%matplotlib inline\nh += 1\nh.sum().backward()\n",
]


async def test_cells_are_one_program_and_report_on_their_own_uri(tmp_path):
    notebook_uri = (tmp_path / "train.ipynb").as_uri()
    cell_uris = [f"vscode-notebook-cell:{tmp_path}/train.ipynb#cell{i}" for i in range(2)]
    async with session(tmp_path) as s:
        s.client.notebook_document_did_open(
            types.DidOpenNotebookDocumentParams(
                notebook_document=types.NotebookDocument(
                    uri=notebook_uri,
                    notebook_type="jupyter-notebook",
                    version=1,
                    cells=[
                        types.NotebookCell(kind=types.NotebookCellKind.Code, document=uri)
                        for uri in cell_uris
                    ],
                ),
                cell_text_documents=[
                    types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
                    for uri, text in zip(cell_uris, CELLS)
                ],
            )
        )
        assert await s.diagnostics(cell_uris[0]) == []
        [saved] = await s.diagnostics(cell_uris[1])
        assert saved.code == "IPL001"
        assert (saved.range.start.line, saved.range.start.character) == (1, 0)
        [related] = saved.related_information
        assert related.location.uri == cell_uris[0]
        assert related.location.range.start.line == 2
        actions = await s.code_actions(cell_uris[1], saved.range, only=["quickfix"])
        [fix] = [a for a in actions if "Rewrite" in a.title]
        [edit] = edits_of(fix)
        assert (edit.range.start.line, edit.new_text) == (1, "h = h + 1")
        s.client.notebook_document_did_close(
            types.DidCloseNotebookDocumentParams(
                notebook_document=types.NotebookDocumentIdentifier(uri=notebook_uri),
                cell_text_documents=[types.TextDocumentIdentifier(uri=u) for u in cell_uris],
            )
        )
        assert await s.diagnostics(cell_uris[1], after=1) == []
