"""Driving the real server process over stdio with pytest-lsp's client."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

HERE = Path(__file__).parent
REPO = HERE.parent.parent
REAL_SERVER = [sys.executable, "-m", "inplace_lint.server"]
TIMEOUT = 15.0


class Session:
    """A started, initialised server and what it has sent."""

    def __init__(self, client: LanguageClient, encoding: str) -> None:
        self.client = client
        self.encoding = encoding
        self.published: dict[str, list[types.PublishDiagnosticsParams]] = {}
        self.registrations: list[types.Registration] = []
        self.versions: dict[str, int] = {}

    # --- documents ----------------------------------------------------------------------------

    def open(self, uri: str, text: str, language: str = "python") -> None:
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id=language, version=1, text=text
                )
            )
        )

    def replace_text(self, uri: str, text: str) -> None:
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def edit(self, uri: str, edits: list[types.TextEdit]) -> None:
        """Send ``edits`` as incremental changes, last position first (so none shifts another)."""
        self.versions[uri] += 1
        ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
                    for e in reversed(ordered)
                ],
            )
        )

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    # --- waiting ------------------------------------------------------------------------------

    def count(self, uri: str) -> int:
        return len(self.published.get(uri, []))

    async def diagnostics(self, uri: str, after: int = 0) -> list[types.Diagnostic]:
        """The diagnostics of the first publication for ``uri`` after the ``after``-th one."""
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while self.count(uri) <= after:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no publishDiagnostics #{after + 1} for {uri}")
            await asyncio.sleep(0.01)
        return list(self.published[uri][after].diagnostics)

    async def diagnostics_at(self, uri: str, version: int) -> list[types.Diagnostic]:
        """The diagnostics published for ``uri`` at document ``version``."""
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while True:
            for params in self.published.get(uri, []):
                if params.version == version:
                    return list(params.diagnostics)
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"no publishDiagnostics for {uri} at version {version}")
            await asyncio.sleep(0.01)

    async def settle(self, uri: str, quiet: float = 0.6) -> list[types.Diagnostic]:
        """Wait for a first publication, then until nothing new comes for ``quiet`` seconds;
        the last diagnostics."""
        await self.diagnostics(uri)
        seen = -1
        while seen != self.count(uri):
            seen = self.count(uri)
            await asyncio.sleep(quiet)
        return list(self.published[uri][-1].diagnostics)

    async def code_actions(
        self, uri: str, range_: types.Range, only: list[str] | None = None
    ) -> list[types.CodeAction]:
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                range=range_,
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        return [a for a in result or [] if isinstance(a, types.CodeAction)]


def capabilities(encodings: list[str] | None = None) -> types.ClientCapabilities:
    caps = client_capabilities("visual-studio-code")
    caps.general = types.GeneralClientCapabilities(position_encodings=encodings)
    caps.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities()
    )
    return caps


@contextlib.asynccontextmanager
async def session(
    root: Path,
    *,
    encodings: list[str] | None = None,
    initialization_options: Any = None,
    configuration: dict | None = None,
) -> AsyncIterator[Session]:
    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(
        client,
        {
            m: f
            for m, f in DEFAULT_CLIENT_FEATURES.items()
            if m != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
        },
    )
    if configuration is not None:
        client.set_configuration(configuration)
    started = Session(client, "utf-16")

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        started.published.setdefault(params.uri, []).append(params)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(params: types.RegistrationParams) -> None:
        started.registrations.extend(params.registrations)

    python_path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    await client.start_io(
        *REAL_SERVER,
        env={**os.environ, "PYTHONPATH": python_path},
    )
    try:
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities(encodings),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
                initialization_options=initialization_options,
            )
        )
        started.encoding = (
            getattr(
                result.capabilities.position_encoding,
                "value",
                result.capabilities.position_encoding,
            )
            or "utf-16"
        )
        started.result = result
        yield started
    finally:
        await client.shutdown_session()
        await client.stop()


def apply_text_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """Apply LSP edits the way an editor does (independent of the server's own conversion)."""
    lines = text.split("\n")  # the tests use \n only

    def offset(position: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        if encoding == "utf-8":
            column = len(line.encode("utf-8")[: position.character].decode("utf-8"))
        elif encoding == "utf-16":
            column = len(line.encode("utf-16-le")[: 2 * position.character].decode("utf-16-le"))
        else:
            column = position.character
        return before + column

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


def edits_of(action: types.CodeAction) -> list[types.TextEdit]:
    edit = action.edit
    assert edit is not None, action
    if edit.document_changes:
        return [e for change in edit.document_changes for e in change.edits]
    return [e for edits in (edit.changes or {}).values() for e in edits]
