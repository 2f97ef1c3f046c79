"""The default view on a terminal: each diagnostic with a code frame, the related location (the
op that saved the tensor) and the fix as a diff, laid out like ruff's `full` format. Colour
comes from rich, imported only when colour is on."""

from __future__ import annotations

import difflib
import re

from inplace_lint.diagnostics import Diagnostic, Severity, Span
from inplace_lint.reporters.common import (
    ReportContext,
    applicable,
    diagnostics,
    fixed_lines,
    locate,
    summary,
    text_of,
)
from inplace_lint.results import FileResult

CONTEXT = 2
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_MARKER = re.compile(r"# %% inplace-lint: cell (\d+)")

Line = list[tuple[str, str]]  # (text, rich style) segments


def render(results: list[FileResult], context: ReportContext) -> str:
    lines: list[Line] = []
    for result, diag in diagnostics(results):
        lines += _diagnostic(result, diag, context)
        lines.append([])
    lines += [[(text, "")] for text in (fixed_lines(results) if context.show_fixes else [])]
    lines += [
        [(text, "bold" if i == 0 else "")] for i, text in enumerate(summary(results, context))
    ]
    return _emit(lines, context.color)


def _diagnostic(result: FileResult, diag: Diagnostic, context: ReportContext) -> list[Line]:
    all_lines = _LINE_BREAK.split(text_of(result))
    text_lines = all_lines[:-1] if len(all_lines) > 1 and all_lines[-1] == "" else all_lines
    notebook = result.cell_map is not None
    style = "bold red" if diag.severity == Severity.ERROR else "bold yellow"
    mark = [(" [*]", "bold cyan")] if applicable(diag, context) else []
    out: list[Line] = [[(diag.code, style), *mark, (f" {diag.message}", "bold")]]
    out.append([(" --> ", "blue"), (f"{result.path}:{locate(result, diag.span.start).text}", "")])
    out += _frame(text_lines, diag.span, "^", "red", "", notebook)
    for related in diag.related:
        where = locate(result, related.span.start).text
        out.append([("  ::: ", "blue"), (f"{result.path}:{where}", "")])
        out += _frame(text_lines, related.span, "-", "cyan", related.message, notebook)
    if diag.fix is not None:
        out.append([("help", "bold cyan"), (f": {diag.fix.message}", "")])
        out += _fix_diff(all_lines, diag, notebook)
        if not diag.fix.is_safe:
            out.append(
                [("note", "bold"), (": This is an unsafe fix and may change runtime behavior", "")]
            )
    if context.verbose and diag.detail:
        out += [[(f"    {line}", "dim")] for line in diag.detail.rstrip().splitlines()]
    return out


def _frame(
    lines: list[str], span: Span, char: str, style: str, label: str, notebook: bool
) -> list[Line]:
    first = max(span.start.row - CONTEXT, 1)
    last = min(span.end.row + CONTEXT, len(lines))
    if notebook:
        first, last = _same_cell(lines, span.start.row, first, last)
    rows = list(range(first, last + 1))
    width = max((len(_label(lines, r, notebook)) for r in rows), default=1)
    gutter = " " * width + " |"
    out: list[Line] = [[(gutter, "blue")]]
    for row in rows:
        line = lines[row - 1] if row - 1 < len(lines) else ""
        out.append(
            [(f"{_label(lines, row, notebook):>{width}} | ", "blue"), (line.expandtabs(4), "")]
        )
        underline = _underline(line, row, span, char)
        if underline:
            tail = f" {label}" if label and row == span.end.row else ""
            out.append([(gutter + " ", "blue"), (underline + tail, style)])
    out.append([(gutter, "blue")])
    return out


def _underline(line: str, row: int, span: Span, char: str) -> str:
    if not span.start.row <= row <= span.end.row:
        return ""
    start = span.start.column if row == span.start.row else len(line) - len(line.lstrip()) + 1
    end = span.end.column if row == span.end.row else len(line) + 1
    lead = len(line[: start - 1].expandtabs(4))
    size = max(len(line[start - 1 : end - 1].expandtabs(4)), 1)
    return " " * lead + char * size


def _fix_diff(lines: list[str], diag: Diagnostic, notebook: bool) -> list[Line]:
    from inplace_lint.fixes import apply_edits

    assert diag.fix is not None
    try:
        new_lines = _LINE_BREAK.split(apply_edits("\n".join(lines), diag.fix.edits))
    except ValueError:
        return []
    matcher = difflib.SequenceMatcher(a=lines, b=new_lines, autojunk=False)
    out: list[Line] = []
    for group in matcher.get_grouped_opcodes(1):
        rows = [(i, j) for _, i1, i2, j1, j2 in group for i, j in ((i1, j1), (i2, j2))]
        width = max(len(_label(lines, i + 1, notebook)) for i, _ in rows)
        out.append([(" " * width + " |", "blue")])
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for i in range(i1, i2):
                    out.append(
                        [(f"{_label(lines, i + 1, notebook):>{width}} | ", "blue"), (lines[i], "")]
                    )
                continue
            for i in range(i1, i2):
                out.append([(f"{'':>{width}} - ", "red"), (lines[i], "red")])
            for j in range(j1, j2):
                out.append(
                    [
                        (f"{_label(new_lines, j + 1, notebook):>{width}} + ", "green"),
                        (new_lines[j], "green"),
                    ]
                )
        out.append([(" " * width + " |", "blue")])
    return out


def _label(lines: list[str], row: int, notebook: bool) -> str:
    """The row as the user numbers it: in a notebook, counted from its cell's marker line."""
    if not notebook:
        return str(row)
    for index in range(min(row, len(lines)) - 1, -1, -1):
        if _MARKER.match(lines[index]):
            return str(row - index - 1)
    return str(row)


def _same_cell(lines: list[str], row: int, first: int, last: int) -> tuple[int, int]:
    """Clip a frame to the rows of ``row``'s cell (never showing the cell markers)."""
    while first < row and _MARKER.match(lines[first - 1]):
        first += 1
    for r in range(row - 1, first - 1, -1):
        if _MARKER.match(lines[r - 1]):
            first = r + 1
            break
    for r in range(row + 1, last + 1):
        if r - 1 < len(lines) and _MARKER.match(lines[r - 1]):
            last = r - 1
            break
    return first, max(last, first)


def _emit(lines: list[Line], color: bool) -> str:
    if not color:
        return "".join("".join(text for text, _ in line) + "\n" for line in lines)
    import io

    from rich.console import Console
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(
        file=buffer, force_terminal=True, width=100_000, highlight=False, soft_wrap=True
    )
    for line in lines:
        console.print(Text.assemble(*line) if line else "")
    return buffer.getvalue()
