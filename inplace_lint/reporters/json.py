"""ruff's JSON: a list of objects with its keys, plus `related` and `framework`.

Positions are 1-based rows and code-point columns; in a notebook the row is the row inside the
cell named by `cell` (as ruff does), edits and related locations included."""

from __future__ import annotations

import json

from inplace_lint.diagnostics import Diagnostic, Position
from inplace_lint.reporters.common import ReportContext, absolute, diagnostics, locate, rule_url
from inplace_lint.results import FileResult


def render(results: list[FileResult], context: ReportContext) -> str:
    items = [to_dict(result, diag, context) for result, diag in diagnostics(results)]
    return json.dumps(items, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def to_dict(result: FileResult, diag: Diagnostic, context: ReportContext) -> dict:
    start = locate(result, diag.span.start)

    def where(position: Position) -> dict:
        located = locate(result, position)
        return {"row": located.row, "column": located.column}

    fix = None
    if diag.fix is not None:
        fix = {
            "applicability": diag.fix.applicability,
            "message": diag.fix.message,
            "edits": [
                {
                    "content": edit.content,
                    "location": where(edit.span.start),
                    "end_location": where(edit.span.end),
                }
                for edit in diag.fix.edits
            ],
        }
    noqa_row = None
    if diag.noqa_row is not None:
        noqa_row = locate(result, Position(diag.noqa_row, 1)).row
    return {
        "cell": start.cell,
        "code": diag.code,
        "name": diag.name,
        "message": diag.message,
        "severity": diag.severity.label,
        "filename": absolute(result.path, context.cwd),
        "location": {"row": start.row, "column": start.column},
        "end_location": where(diag.span.end),
        "fix": fix,
        "noqa_row": noqa_row,
        "url": rule_url(diag.code),
        "related": [
            {
                "message": related.message,
                "location": where(related.span.start),
                "end_location": where(related.span.end),
                "cell": locate(result, related.span.start).cell,
            }
            for related in diag.related
        ],
        "framework": diag.framework,
    }
