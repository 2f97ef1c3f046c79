"""`path:row:col: CODE [*] message`, one line per diagnostic, then ruff's summary."""

from __future__ import annotations

from inplace_lint.reporters.common import (
    ReportContext,
    applicable,
    diagnostics,
    fixed_lines,
    locate,
    summary,
)
from inplace_lint.results import FileResult


def render(results: list[FileResult], context: ReportContext) -> str:
    lines = []
    for result, diag in diagnostics(results):
        mark = " [*]" if applicable(diag, context) else ""
        where = locate(result, diag.span.start).text
        lines.append(f"{result.path}:{where}: {diag.code}{mark} {diag.message}")
    if context.show_fixes:
        lines += fixed_lines(results)
    return "\n".join(lines + summary(results, context)) + "\n"
