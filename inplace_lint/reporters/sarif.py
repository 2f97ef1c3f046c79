"""SARIF 2.1.0 as GitHub code scanning reads it.

Columns are code points (`columnKind: unicodeCodePoints`); `uri`s are relative to
`%SRCROOT%` (the working directory). A notebook's region is the line of the `.ipynb` file that
holds the cell's row, so the alert lands on the right line; the message names the cell and row.
"""

from __future__ import annotations

import json

from inplace_lint import __version__
from inplace_lint.diagnostics import Diagnostic, Severity, Span
from inplace_lint.reporters.common import (
    ReportContext,
    diagnostics,
    file_line,
    locate,
    occurrence_fingerprints,
    relative,
    rule_url,
)
from inplace_lint.results import FileResult

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFO: "note",
    Severity.HINT: "note",
}


def render(results: list[FileResult], context: ReportContext) -> str:
    from inplace_lint.rules import all_rules

    rules = all_rules()
    index = {code: i for i, code in enumerate(rules)}
    fingerprints = occurrence_fingerprints(results)
    run = {
        "tool": {
            "driver": {
                "name": "inplace-lint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": "https://pypi.org/project/inplace-lint/",
                "rules": [_rule(rule) for rule in rules.values()],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": context.cwd.as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [
            _result(result, diag, index, fingerprints[id(diag)], context)
            for result, diag in diagnostics(results)
        ],
    }
    log = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _rule(rule) -> dict:
    import inspect

    doc = inspect.cleandoc(rule.__doc__ or rule.summary)
    out = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _first_paragraph(doc) or rule.summary},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": LEVELS[rule.severity], "enabled": rule.default_enabled},
        "properties": {"tags": [rule.tier()]},
    }
    url = rule_url(rule.code)
    if url:
        out["helpUri"] = url
    return out


def _first_paragraph(doc: str) -> str:
    """The first paragraph of prose (the "What it does" section), without its heading."""
    for paragraph in doc.split("\n\n"):
        prose = [line for line in paragraph.splitlines() if not line.lstrip().startswith("#")]
        if prose:
            return " ".join(" ".join(prose).split())
    return ""


def _location(result: FileResult, span: Span, context: ReportContext) -> dict:
    if result.cell_map is not None:
        region = {"startLine": file_line(result, span.start)}
    else:
        region = {
            "startLine": span.start.row,
            "startColumn": span.start.column,
            "endLine": span.end.row,
            "endColumn": max(
                span.end.column, span.start.column if span.end.row == span.start.row else 1
            ),
        }
    return {
        "physicalLocation": {
            "artifactLocation": {
                "uri": relative(result.path, context.cwd),
                "uriBaseId": "%SRCROOT%",
            },
            "region": region,
        }
    }


def _result(result: FileResult, diag: Diagnostic, index: dict, fingerprint: str, context) -> dict:
    message = diag.message
    if result.cell_map is not None:
        message = f"{locate(result, diag.span.start).text}: {message}"
    out = {
        "ruleId": diag.code,
        "ruleIndex": index[diag.code],
        "level": LEVELS[diag.severity],
        "message": {"text": message},
        "locations": [_location(result, diag.span, context)],
        "partialFingerprints": {"primaryLocationLineHash": fingerprint[:32]},
    }
    if diag.related:
        out["relatedLocations"] = [
            {"id": i, **_location(result, r.span, context), "message": {"text": r.message}}
            for i, r in enumerate(diag.related)
        ]
    if diag.fix is not None and result.cell_map is None:
        out["fixes"] = [
            {
                "description": {"text": diag.fix.message},
                "artifactChanges": [
                    {
                        "artifactLocation": {
                            "uri": relative(result.path, context.cwd),
                            "uriBaseId": "%SRCROOT%",
                        },
                        "replacements": [
                            {
                                "deletedRegion": {
                                    "startLine": e.span.start.row,
                                    "startColumn": e.span.start.column,
                                    "endLine": e.span.end.row,
                                    "endColumn": e.span.end.column,
                                },
                                "insertedContent": {"text": e.content},
                            }
                            for e in diag.fix.edits
                        ],
                    }
                ],
            }
        ]
    return out
