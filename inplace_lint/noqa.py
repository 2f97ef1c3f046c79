"""`--add-noqa`: write a `# noqa: CODES` for every current finding, so a legacy repository can
adopt the linter today and fix its backlog over time.

A code is added to an existing `# noqa: ...` list on that line; a blanket `# noqa` is left alone;
a finding inside a multi-line string gets its comment after the string ends, and one on a line
continued with a backslash gets it after the continuation.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict

from inplace_lint.diagnostics import Diagnostic
from inplace_lint.settings import Settings
from inplace_lint.suppressions import LINE_NOQA, parse_directives

_LINE = re.compile(r"[^\r\n]*(\r\n|\r|\n|$)")
# Never baselined: they are about the file itself, and a noqa would not survive fixing it.
NOT_SUPPRESSIBLE = frozenset({"IPL900", "IPL901", "IPL902", "IPL903", "IPL904"})


def add_noqa_to_text(text: str, diagnostics: list[Diagnostic]) -> tuple[str, int]:
    """The text with suppressions added, and how many diagnostics they cover."""
    wanted: dict[int, set[str]] = defaultdict(set)
    directives = parse_directives(text)
    lines = [m.group(0) for m in _LINE.finditer(text)][:-1] or [text]
    for diag in diagnostics:
        if diag.code in NOT_SUPPRESSIBLE:
            continue
        row = diag.noqa_row or diag.span.start.row
        row = directives.covers.get(row, row)
        while row < len(lines) and lines[row - 1].rstrip("\r\n").endswith("\\"):
            row += 1
        wanted[row].add(diag.code)
    count = 0
    for row, codes in wanted.items():
        if not 1 <= row <= len(lines):
            continue
        existing = directives.by_row.get(row)
        if existing is not None and existing.codes is None:
            continue
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        if existing is not None:
            missing = sorted(codes - set(existing.codes or ()))
            if not missing:
                continue
            start, end = existing.column - 1, existing.end_column - 1
            directive = body[start:end]
            match = LINE_NOQA.match(directive)
            new = f"{directive[: match.start('codes')]}{', '.join([*(existing.codes or ()), *missing])}"
            body = body[:start] + new + body[end:]
            count += len(missing)
        else:
            body = f"{body.rstrip()}  # noqa: {', '.join(sorted(codes))}"
            count += len(codes)
        lines[row - 1] = body + ending
    return "".join(lines), count


def add_noqa_to_file(path: str | os.PathLike[str], settings: Settings) -> tuple[int, str | None]:
    """(suppressions added, error message or None). Writes atomically; notebooks cell by cell."""
    from inplace_lint.api import lint_source
    from inplace_lint.files import is_notebook
    from inplace_lint.sources import SourceError, encode_source, read_source, write_atomic

    try:
        source_file = read_source(path, settings.options.get("max-file-bytes"))
    except SourceError as error:
        return 0, error.message
    text = source_file.text
    notebook = None
    if is_notebook(path):
        from inplace_lint.notebooks import NotebookError, read_notebook, write_notebook

        try:
            notebook = read_notebook(text)
        except NotebookError as error:
            return 0, str(error)
        text = notebook.program
    diagnostics = lint_source(text, os.fspath(path), settings)
    if any(d.code == "IPL901" for d in diagnostics):
        return 0, "does not parse; no suppressions added"
    new_text, count = add_noqa_to_text(text, diagnostics)
    if not count:
        return 0, None
    if notebook is not None:
        try:
            new_text = write_notebook(notebook, new_text)
        except NotebookError as error:
            return 0, str(error)
    try:
        write_atomic(path, encode_source(source_file, new_text), source_file.raw)
    except SourceError as error:
        return 0, error.message
    return count, None
