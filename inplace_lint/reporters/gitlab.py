"""GitLab Code Quality: a JSON array; fingerprints are unique per occurrence."""

from __future__ import annotations

import json

from inplace_lint.diagnostics import Severity
from inplace_lint.reporters.common import (
    ReportContext,
    diagnostics,
    file_line,
    locate,
    occurrence_fingerprints,
    relative,
)
from inplace_lint.results import FileResult

SEVERITIES = {
    Severity.ERROR: "major",
    Severity.WARNING: "minor",
    Severity.INFO: "info",
    Severity.HINT: "info",
}


def render(results: list[FileResult], context: ReportContext) -> str:
    fingerprints = occurrence_fingerprints(results)
    items = []
    for result, diag in diagnostics(results):
        description = f"{diag.code}: {diag.message}"
        if result.cell_map is not None:
            where = locate(result, diag.span.start)
            description += f" (cell {where.cell}, row {where.row}, column {where.column})"
        items.append(
            {
                "description": description,
                "check_name": diag.code,
                "fingerprint": fingerprints[id(diag)],
                "severity": SEVERITIES[diag.severity],
                "location": {
                    "path": relative(result.path, context.cwd),
                    "lines": {
                        "begin": file_line(result, diag.span.start),
                        "end": file_line(result, diag.span.end),
                    },
                },
            }
        )
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
