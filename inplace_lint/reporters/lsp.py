"""LSP 3.17: one `PublishDiagnosticsParams` ({uri, diagnostics}) per file with diagnostics.

Ranges are 0-based, end exclusive, with `character` in UTF-16 code units (LSP's default), so a
character outside the BMP counts two. `data` carries the fix as TextEdits for a client's quick
fix. In a notebook, `line` is the row inside the cell given in `data.cell`."""

from __future__ import annotations

import json
import re
from itertools import groupby
from pathlib import Path

from inplace_lint.diagnostics import Diagnostic, Position, Span
from inplace_lint.reporters.common import (
    ReportContext,
    absolute,
    diagnostics,
    locate,
    rule_url,
    text_of,
)
from inplace_lint.results import FileResult

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def render(results: list[FileResult], context: ReportContext) -> str:
    out = []
    for result, pairs in groupby(diagnostics(results), key=lambda pair: pair[0]):
        lines = _LINE_BREAK.split(text_of(result))
        uri = _uri(result.path, context)
        out.append(
            {"uri": uri, "diagnostics": [_diagnostic(result, d, lines, uri) for _, d in pairs]}
        )
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def utf16_column(line: str, column: int) -> int:
    """0-based UTF-16 offset of a 1-based code-point column."""
    prefix = line[: max(column - 1, 0)]
    extra = max(column - 1 - len(prefix), 0)  # a column past the line's end stays past it
    return len(prefix.encode("utf-16-le")) // 2 + extra


def _position(result: FileResult, lines: list[str], position: Position) -> dict:
    line = lines[position.row - 1] if 0 < position.row <= len(lines) else ""
    return {
        "line": locate(result, position).row - 1,
        "character": utf16_column(line, position.column),
    }


def _range(result: FileResult, lines: list[str], span: Span) -> dict:
    return {
        "start": _position(result, lines, span.start),
        "end": _position(result, lines, span.end),
    }


def _diagnostic(result: FileResult, diag: Diagnostic, lines: list[str], uri: str) -> dict:
    out: dict = {
        "range": _range(result, lines, diag.span),
        "severity": int(diag.severity),
        "code": diag.code,
        "source": "inplace-lint",
        "message": diag.message,
    }
    url = rule_url(diag.code)
    if url:
        out["codeDescription"] = {"href": url}
    if diag.related:
        out["relatedInformation"] = [
            {"location": {"uri": uri, "range": _range(result, lines, r.span)}, "message": r.message}
            for r in diag.related
        ]
    data: dict = {"name": diag.name, "noqa_row": diag.noqa_row}
    if result.cell_map is not None:
        data["cell"] = locate(result, diag.span.start).cell
    if diag.fix is not None:
        data["fix"] = {
            "title": diag.fix.message,
            "applicability": diag.fix.applicability,
            "edits": [
                {"range": _range(result, lines, e.span), "newText": e.content}
                for e in diag.fix.edits
            ],
        }
    out["data"] = data
    return out


def _uri(path: str, context: ReportContext) -> str:
    if path in ("-", "<stdin>"):
        return "untitled:stdin"
    return Path(absolute(path, context.cwd)).as_uri()
