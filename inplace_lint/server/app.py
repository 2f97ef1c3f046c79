"""The language server: pygls wiring, debounced linting in a worker thread, publishing.

Linting runs off the event loop (``asyncio.to_thread``) so the server keeps answering while a
large file is analysed. Every run remembers the document version it linted; a result for a
version that is no longer current is dropped, since a newer run is already scheduled.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import traceback
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from inplace_lint import __version__
from inplace_lint.diagnostics import Diagnostic
from inplace_lint.server.actions import FIX_ALL, KINDS, LintedDocument, code_actions
from inplace_lint.server.convert import SOURCE, to_lsp_diagnostic, to_range
from inplace_lint.server.isolation import IsolatedLinter, WorkerFailed
from inplace_lint.server.notebooks import Cell, NotebookProgram
from inplace_lint.server.positions import UTF16, PositionMap
from inplace_lint.server.workspace_settings import ClientSettings, ProjectSettings
from inplace_lint.settings import Settings

log = logging.getLogger("inplace_lint.server")

# Lint this long after the last keystroke; open and save lint at once.
DEBOUNCE_SECONDS = 0.2
SETTINGS_SECTION = "inplace-lint"
PYTHON_LANGUAGES = {"python", "python3"}
PYTHON_SUFFIXES = {".py", ".pyi"}

NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")]
        )
    ],
    save=True,
)


class InplaceLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            name=SOURCE,
            version=__version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=NOTEBOOK_SYNC,
        )
        self.project = ProjectSettings()
        self.initial_settings = ClientSettings()  # from initializationOptions
        self.pulled_settings = ClientSettings()  # from workspace/configuration
        self.linted: dict[str, LintedDocument] = {}  # by document or cell URI
        self.published_cells: dict[str, list[str]] = {}  # notebook URI -> cell URIs
        self.pending: dict[str, asyncio.Task] = {}  # by document or notebook URI
        self.debounce = DEBOUNCE_SECONDS
        self.linter = IsolatedLinter()

    # --- settings -----------------------------------------------------------------------------

    @property
    def client_settings(self) -> ClientSettings:
        return self.pulled_settings.over(self.initial_settings)

    def update_client_settings(self) -> bool:
        """Hand the editor's settings to the project settings; whether they changed."""
        changed = self.client_settings != self.project.client
        self.project.use_client_settings(self.client_settings)
        return changed

    @property
    def encoding(self) -> str:
        encoding = self.workspace.position_encoding or UTF16
        return getattr(encoding, "value", encoding)

    # --- linting --------------------------------------------------------------------------------

    def lint_text(self, source: str, filename: str, settings: Settings) -> list[Diagnostic]:
        """``lint_source`` in the worker process; cannot raise, crash or hang the server."""
        return self.linter.lint(source, filename, settings)

    def fix_text(self, source: str, filename: str, settings: Settings) -> str:
        """Every safe fix, in the worker; the text unchanged if that fails."""
        try:
            return self.linter.fix(source, filename, settings)
        except WorkerFailed as failure:
            log.error("Fix-all failed on %s: %s", filename, failure)
            return source

    def lint_path(self, path: Path | None, source: str, filename: str) -> LintRun:
        settings = self.project.settings_for(path)
        return settings, self.lint_text(source, filename, settings)

    def schedule(self, key: str, delay: float = 0.0) -> None:
        """Lint a document (or a notebook, by its URI) after ``delay``, replacing a pending run."""
        previous = self.pending.pop(key, None)
        if previous is not None:
            previous.cancel()
        self.pending[key] = asyncio.get_running_loop().create_task(self._run(key, delay))

    async def _run(self, key: str, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            if self.workspace.get_notebook_document(notebook_uri=key) is not None:
                await self._lint_notebook(key)
            else:
                await self._lint_document(key)
            self._show_config_errors()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - log it and keep serving
            self._log_error(f"Linting {key} failed")
        finally:
            if self.pending.get(key) is asyncio.current_task():
                del self.pending[key]

    async def _lint_document(self, uri: str) -> LintedDocument | None:
        document = self.workspace.text_documents.get(unquote(uri))
        if document is None or not _is_python(document.language_id, uri):
            return None
        source, version = document.source, document.version
        path, filename = _path_and_name(uri)
        settings, diagnostics = await asyncio.to_thread(self.lint_path, path, source, filename)
        if document.version != version or self.workspace.text_documents.get(unquote(uri)) is None:
            return None  # changed or closed meanwhile
        positions = PositionMap(source, self.encoding)
        linted = LintedDocument(uri, version, source, positions, diagnostics, filename, settings)
        self.linted[uri] = linted
        self.publish(uri, linted.lsp_diagnostics(), version)
        return linted

    async def _lint_notebook(self, uri: str) -> None:
        notebook = self.workspace.get_notebook_document(notebook_uri=uri)
        code_cells = [c for c in notebook.cells if c.kind == types.NotebookCellKind.Code]
        documents = [self.workspace.get_text_document(c.document) for c in code_cells]
        snapshot = _notebook_snapshot(notebook, documents)
        program = NotebookProgram(
            [Cell(c.document, d.source) for c, d in zip(code_cells, documents)]
        )
        path, filename = _path_and_name(uri)
        settings, diagnostics = await asyncio.to_thread(
            self.lint_path, path, program.source, filename
        )
        current = self.workspace.get_notebook_document(notebook_uri=uri)
        if (
            current is None
            or _notebook_snapshot(current, self._cell_documents(current)) != snapshot
        ):
            return
        maps = {c.uri: PositionMap(c.text, self.encoding) for c in program.cells}
        for previous in set(self.published_cells.get(uri, ())) - set(maps):
            self.linted.pop(previous, None)
            self.publish(previous, [])
        self.published_cells[uri] = list(maps)
        for (cell_uri, found), document in zip(program.split(diagnostics).items(), documents):
            local = [item.diagnostic for item in found]
            self.linted[cell_uri] = LintedDocument(
                cell_uri,
                document.version,
                document.source,
                maps[cell_uri],
                local,
                filename,
                settings,
                standalone=False,
            )
            lsp = [
                to_lsp_diagnostic(
                    item.diagnostic,
                    maps[cell_uri],
                    cell_uri,
                    [
                        types.DiagnosticRelatedInformation(
                            location=types.Location(
                                uri=other.uri, range=to_range(other.related.span, maps[other.uri])
                            ),
                            message=other.related.message,
                        )
                        for other in item.elsewhere
                    ],
                )
                for item in found
            ]
            self.publish(cell_uri, lsp, document.version)

    def _cell_documents(self, notebook: types.NotebookDocument) -> list:
        return [
            self.workspace.get_text_document(c.document)
            for c in notebook.cells
            if c.kind == types.NotebookCellKind.Code
        ]

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None):
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def relint_everything(self) -> None:
        for notebook_uri in list(self.workspace.notebook_documents):
            self.schedule(notebook_uri)
        cells = {uri for uris in self.published_cells.values() for uri in uris}
        for uri, document in list(self.workspace.text_documents.items()):
            if uri not in cells and _is_python(document.language_id, uri):
                self.schedule(uri)

    def forget(self, uri: str) -> None:
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.linted.pop(uri, None)
        self.publish(uri, [])

    async def current(self, uri: str) -> LintedDocument | None:
        """The document as linted at its current version, linting it now if needed."""
        linted = self.linted.get(uri)
        document = self.workspace.text_documents.get(unquote(uri))
        if document is None or (linted is not None and linted.version == document.version):
            return linted
        if self.workspace.get_notebook_document(cell_uri=uri) is not None:
            return linted  # cells are linted with their notebook; use the last result
        return await self._lint_document(uri)

    # --- client settings --------------------------------------------------------------------

    async def pull_settings(self) -> None:
        capabilities = self.client_capabilities.workspace
        if capabilities is None or not capabilities.configuration:
            return
        try:
            values = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SETTINGS_SECTION)])
            )
        except Exception:  # noqa: BLE001 - a client may fail it; use what we have
            self._log_error("workspace/configuration failed")
            return
        self.pulled_settings = ClientSettings.from_json(values[0] if values else None)

    async def watch_pyproject(self) -> None:
        workspace = self.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace else None
        if watched is None or not watched.dynamic_registration:
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
        )
        registration = types.Registration(
            id="inplace-lint-pyproject",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        try:
            await self.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception:  # noqa: BLE001 - watching is optional
            self._log_error("Could not register a watcher for pyproject.toml")

    def _show_config_errors(self) -> None:
        while self.project.errors:
            message = self.project.errors.pop(0)
            log.warning(message)
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=message)
            )

    def _log_error(self, message: str) -> None:
        text = f"{message}:\n{traceback.format_exc()}"
        log.error(text)
        try:
            self.window_log_message(
                types.LogMessageParams(type=types.MessageType.Error, message=text)
            )
        except Exception:
            log.exception("Could not send a log message")


LintRun = tuple[Settings, list[Diagnostic]]


def _is_python(language_id: str | None, uri: str) -> bool:
    return language_id in PYTHON_LANGUAGES or Path(unquote(uri)).suffix in PYTHON_SUFFIXES


def _path_and_name(uri: str) -> tuple[Path | None, str]:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return (Path(path), path) if path else (None, uri)


def _notebook_snapshot(notebook: types.NotebookDocument, documents: list) -> tuple:
    return (notebook.version, tuple((d.uri, d.version) for d in documents))


def create_server() -> InplaceLintServer:
    server = InplaceLintServer()
    _register(server)
    return server


def _guarded(server: InplaceLintServer, handler: Callable) -> Callable:
    """Log a handler's exception and carry on: one bad request must not stop the server."""

    if inspect.iscoroutinefunction(handler):

        async def guarded_async(params):
            try:
                return await handler(params)
            except Exception:  # noqa: BLE001 - one bad request must not stop the server
                server._log_error(f"Error in {handler.__name__}")
                return None

        return guarded_async

    def guarded(params):
        try:
            return handler(params)
        except Exception:  # noqa: BLE001 - one bad request must not stop the server
            server._log_error(f"Error in {handler.__name__}")
            return None

    return guarded


def _register(server: InplaceLintServer) -> None:
    def feature(method: str, options=None):
        def decorate(handler):
            server.feature(method, options)(_guarded(server, handler))
            return handler

        return decorate

    @feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        server.initial_settings = ClientSettings.from_json(params.initialization_options)
        server.update_client_settings()
        root = server.workspace.root_path
        server.project.root = Path(root) if root else None

    @feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await server.watch_pyproject()
        await server.pull_settings()
        if server.update_client_settings():
            server.relint_everything()
        # Start the worker, import every rule and warm the parser now, not on the first didOpen.
        await asyncio.to_thread(server.lint_text, "import torch\n", "<warm-up>", Settings())

    @feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        server.linter.close()

    @feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        server.schedule(params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        server.schedule(params.text_document.uri, server.debounce)

    @feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        if Path(unquote(params.text_document.uri)).name == "pyproject.toml":
            server.project.forget()
            server.relint_everything()
        else:
            server.schedule(params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        server.forget(params.text_document.uri)

    @feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(params: types.DidOpenNotebookDocumentParams) -> None:
        server.schedule(params.notebook_document.uri)

    @feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(params: types.DidChangeNotebookDocumentParams) -> None:
        server.schedule(params.notebook_document.uri, server.debounce)

    @feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(params: types.DidSaveNotebookDocumentParams) -> None:
        server.schedule(params.notebook_document.uri)

    @feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(params: types.DidCloseNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        task = server.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        for cell_uri in server.published_cells.pop(uri, []):
            server.forget(cell_uri)

    @feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        if any(Path(unquote(c.uri)).name == "pyproject.toml" for c in params.changes):
            server.project.forget()
            server.relint_everything()

    @feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(params: types.DidChangeConfigurationParams) -> None:
        pushed = params.settings
        if isinstance(pushed, dict) and isinstance(pushed.get(SETTINGS_SECTION), dict):
            server.pulled_settings = ClientSettings.from_json(pushed[SETTINGS_SECTION])
        else:
            await server.pull_settings()
        if server.update_client_settings():
            server.relint_everything()

    @feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=KINDS, resolve_provider=False),
    )
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        linted = await server.current(params.text_document.uri)
        if linted is None:
            return None
        workspace = server.client_capabilities.workspace
        edit_caps = workspace.workspace_edit if workspace else None
        versioned = bool(edit_caps and edit_caps.document_changes)
        return await asyncio.to_thread(
            code_actions, linted, params.range, params.context.only, server.fix_text, versioned
        )


__all__ = ["FIX_ALL", "InplaceLintServer", "create_server"]
