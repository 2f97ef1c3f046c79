"""One file, from disk to a ``FileResult``: read, lint (or fix), write back.

This is what the runner calls in its worker processes. Reading and writing go through
``sources`` (encodings, BOM, atomic writes that refuse to overwrite a file changed on disk);
fixing goes through ``fixes`` (non-overlapping edits, the result must parse, repeated to a fixed
point). Notebooks are linted as one program of their code cells and written back cell by cell.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from inplace_lint.diagnostics import Diagnostic, Position, Span
from inplace_lint.results import FileResult
from inplace_lint.settings import Settings

FIX_MODES = ("none", "safe", "unsafe")
# A notebook's JSON holds its outputs too (plots are embedded images, often megabytes), so the
# byte budget (option max-file-bytes) applies to its code: the program of its code cells, which
# the API checks like any text. The file itself may be this large, or as large as the budget.
NOTEBOOK_MAX_BYTES = 64_000_000


def lint_file(
    path: str | os.PathLike[str],
    settings: Settings,
    *,
    fix: str = "none",
    write: bool = True,
    display_path: str | None = None,
) -> FileResult:
    """Lint one file; with ``fix`` "safe" or "unsafe", fix it too (and write it unless
    ``write`` is false, as for ``--diff``). Never raises for a bad file: that is a diagnostic."""
    from inplace_lint.sources import DEFAULT_MAX_BYTES, SourceError, read_source

    if fix not in FIX_MODES:
        raise ValueError(f"fix must be one of {FIX_MODES}, not {fix!r}")
    display = display_path if display_path is not None else os.fspath(path)
    max_bytes = settings.options.get("max-file-bytes", DEFAULT_MAX_BYTES) or None
    notebook = is_notebook(path)
    if notebook and max_bytes is not None:
        max_bytes = max(max_bytes, NOTEBOOK_MAX_BYTES)
    try:
        source_file = read_source(path, max_bytes=max_bytes)
    except SourceError as error:
        return FileResult(display, _file_diagnostics(error.code, error.message, settings))
    if notebook:
        return _lint_notebook(source_file, display, settings, fix, write)
    result = lint_text(source_file.text, display, settings, fix=fix)
    if write and result.fixed_source is not None:
        _write(path, source_file, result.fixed_source, result, settings)
    return result


def lint_text(text: str, display: str, settings: Settings, *, fix: str = "none") -> FileResult:
    """Lint (and with ``fix``, fix) Python text in memory: stdin, and each file's text."""
    from inplace_lint.api import lint_source

    if fix == "none":
        return FileResult(display, lint_source(text, display, settings), source=text)
    from inplace_lint.fixes import fix_text

    outcome = fix_text(text, display, settings, unsafe=fix == "unsafe")
    changed = outcome.text != text
    return FileResult(
        display,
        outcome.remaining,
        source=text,
        fixed_source=_keep_newlines(text, outcome.text) if changed else None,
        fixes_applied=len(outcome.applied) if changed else 0,
        fixed_diagnostics=list(outcome.applied) if changed else [],
        fix_error=outcome.error,
    )


def is_notebook(path: str | os.PathLike[str]) -> bool:
    return Path(path).suffix == ".ipynb"


def lint_notebook_text(
    text: str, display: str, settings: Settings, *, fix: str = "none"
) -> tuple[FileResult, str | None]:
    """Lint (and fix) a notebook's JSON text; also returns the fixed JSON text, if any."""
    from inplace_lint.notebooks import NotebookError, read_notebook, write_notebook

    try:
        notebook = read_notebook(text)
    except NotebookError as error:
        return FileResult(display, _file_diagnostics("IPL902", str(error), settings)), None
    result = lint_text(notebook.program, display, settings, fix=fix)
    result.cell_map = notebook.cell_map
    if result.fixed_source is None:
        return result, None
    try:
        return result, write_notebook(notebook, result.fixed_source)
    except NotebookError as error:
        return _unfixed(result, notebook.program, settings, str(error)), None


def _lint_notebook(source_file, display: str, settings: Settings, fix: str, write: bool):
    result, new_json = lint_notebook_text(source_file.text, display, settings, fix=fix)
    if write and new_json is not None:
        _write(source_file.path, source_file, new_json, result, settings, result.source)
    return result


def _write(path, source_file, new_text: str, result: FileResult, settings, program=None) -> None:
    from inplace_lint.sources import SourceError, encode_source, write_atomic

    try:
        write_atomic(path, encode_source(source_file, new_text), source_file.raw)
    except SourceError as error:
        original = program if program is not None else source_file.text
        _unfixed(result, original, settings, f"fixes not written: {error.message}")
        return
    result.written = True


def _unfixed(result: FileResult, text: str, settings: Settings, why: str) -> FileResult:
    """The fixes could not be kept: report the file as it still is, and why."""
    from inplace_lint.api import lint_source

    result.diagnostics = lint_source(text, result.path, settings)
    result.fixed_source = None
    result.fixes_applied = 0
    result.fixed_diagnostics = []
    result.fix_error = why
    return result


def _file_diagnostics(code: str, message: str, settings: Settings) -> list[Diagnostic]:
    if not settings.is_enabled(code):
        return []
    from inplace_lint.rules import all_rules

    rule = all_rules()[code]
    start = Position(1, 1)
    return [Diagnostic(code, rule.name, message, rule.severity, Span(start, start), noqa_row=None)]


_LONE_LF = re.compile(r"(?<!\r)\n")


def _keep_newlines(original: str, fixed: str) -> str:
    """Fix edits write `\\n`; a file that only uses `\\r\\n` keeps `\\r\\n` everywhere."""
    if "\r\n" in original and not _LONE_LF.search(original):
        return _LONE_LF.sub("\r\n", fixed)
    return fixed
