"""Our diagnostics as LSP 3.17 diagnostics and text edits, in the negotiated position encoding."""

from __future__ import annotations

from lsprotocol import types

from inplace_lint.diagnostics import Diagnostic, Edit, Span
from inplace_lint.server.positions import PositionMap

SOURCE = "inplace-lint"
RULE_URL = "https://github.com/inplace-lint/inplace-lint/blob/main/rules/{code}.md"


def to_range(span: Span, positions: PositionMap) -> types.Range:
    start, end = positions.span_to_lsp(span)
    return types.Range(
        start=types.Position(line=start.line, character=start.character),
        end=types.Position(line=end.line, character=end.character),
    )


def to_text_edit(edit: Edit, positions: PositionMap) -> types.TextEdit:
    return types.TextEdit(range=to_range(edit.span, positions), new_text=edit.content)


def to_lsp_diagnostic(
    diagnostic: Diagnostic,
    positions: PositionMap,
    uri: str,
    elsewhere: list[types.DiagnosticRelatedInformation] | None = None,
) -> types.Diagnostic:
    """One diagnostic; ``data`` carries the fix as TextEdits so a client can apply it as is.
    ``elsewhere`` adds related locations in other documents (a notebook's other cells)."""
    fix = diagnostic.fix
    data: dict = {"name": diagnostic.name, "noqaRow": diagnostic.noqa_row}
    if fix is not None:
        data["fix"] = {
            "message": fix.message,
            "applicability": fix.applicability,
            "edits": [_edit_json(to_text_edit(edit, positions)) for edit in fix.edits],
        }
    return types.Diagnostic(
        range=to_range(diagnostic.span, positions),
        severity=types.DiagnosticSeverity(int(diagnostic.severity)),
        code=diagnostic.code,
        code_description=types.CodeDescription(href=RULE_URL.format(code=diagnostic.code)),
        source=SOURCE,
        message=diagnostic.message,
        tags=[types.DiagnosticTag.Unnecessary] if diagnostic.code == "IPL900" else None,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=to_range(related.span, positions)),
                message=related.message,
            )
            for related in diagnostic.related
        ]
        + (elsewhere or [])
        or None,
        data=data,
    )


def _edit_json(edit: types.TextEdit) -> dict:
    start, end = edit.range.start, edit.range.end
    return {
        "range": {
            "start": {"line": start.line, "character": start.character},
            "end": {"line": end.line, "character": end.character},
        },
        "newText": edit.new_text,
    }
