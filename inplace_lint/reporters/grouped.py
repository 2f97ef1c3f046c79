"""Diagnostics grouped under their file, as ruff's `grouped` format."""

from __future__ import annotations

from itertools import groupby

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
    for result, items in groupby(diagnostics(results), key=lambda pair: pair[0]):
        lines.append(f"{result.path}:")
        for _, diag in items:
            mark = " [*]" if applicable(diag, context) else ""
            where = locate(result, diag.span.start).text
            lines.append(f"  {where} {diag.code}{mark} {diag.message}")
        lines.append("")
    if context.show_fixes:
        lines += fixed_lines(results)
    return "\n".join(lines + summary(results, context)) + "\n"
