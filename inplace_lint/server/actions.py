"""Code actions: the rule's fix, "disable for this line", and `source.fixAll.inplace-lint`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lsprotocol import types

from inplace_lint.diagnostics import Diagnostic, Edit
from inplace_lint.fixes import choose_fixes
from inplace_lint.noqa import NOT_SUPPRESSIBLE, add_noqa_to_text
from inplace_lint.server.convert import SOURCE, to_lsp_diagnostic, to_text_edit
from inplace_lint.server.fixing import apply_safe_fixes_once, replacement_edit
from inplace_lint.server.positions import LspPosition, PositionMap
from inplace_lint.settings import Settings

FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"
KINDS = [types.CodeActionKind.QuickFix, FIX_ALL]


@dataclass
class LintedDocument:
    """A document as it was when last linted; actions are computed from it."""

    uri: str
    version: int | None
    source: str
    positions: PositionMap
    diagnostics: list[Diagnostic]
    filename: str
    settings: Settings
    # A notebook cell is linted as part of its notebook, so fix-all cannot re-lint the cell on
    # its own: it applies the fixes known now, once.
    standalone: bool = True

    def lsp_diagnostics(self) -> list[types.Diagnostic]:
        return [to_lsp_diagnostic(d, self.positions, self.uri) for d in self.diagnostics]


Fixer = Callable[[str, str, Settings], str]  # every safe fix, repeated to a fixed point


def code_actions(
    document: LintedDocument,
    request: types.Range,
    only: Sequence[str] | None,
    fix: Fixer,
    versioned_edits: bool = True,
) -> list[types.CodeAction]:
    actions: list[types.CodeAction] = []
    if _wanted(types.CodeActionKind.QuickFix, only):
        touching = [d for d in document.diagnostics if _touches(document, d, request)]
        actions += [_quick_fix(document, d, versioned_edits) for d in touching if d.fix]
        actions += _noqa_actions(document, touching, versioned_edits)
    if _wanted(FIX_ALL, only):
        action = fix_all_action(document, fix, versioned_edits)
        if action is not None:
            actions.append(action)
    return actions


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    return not only or any(kind == o or kind.startswith(f"{o}.") for o in only)


def _touches(document: LintedDocument, diagnostic: Diagnostic, request: types.Range) -> bool:
    start, end = document.positions.span_to_lsp(diagnostic.span)
    request_start = LspPosition(request.start.line, request.start.character)
    request_end = LspPosition(request.end.line, request.end.character)
    return _key(start) <= _key(request_end) and _key(request_start) <= _key(end)


def _key(position: LspPosition) -> tuple[int, int]:
    return (position.line, position.character)


def _quick_fix(
    document: LintedDocument, diagnostic: Diagnostic, versioned: bool
) -> types.CodeAction:
    fix = diagnostic.fix
    return types.CodeAction(
        title=f"{SOURCE} ({diagnostic.code}): {fix.message}",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[to_lsp_diagnostic(diagnostic, document.positions, document.uri)],
        is_preferred=fix.is_safe,
        edit=_workspace_edit(document, fix.edits, versioned),
    )


def _noqa_actions(
    document: LintedDocument, diagnostics: list[Diagnostic], versioned: bool
) -> list[types.CodeAction]:
    """One "disable for this line" per code, written as `--add-noqa` writes it."""
    actions = []
    seen = set()
    for diagnostic in diagnostics:
        if diagnostic.code in NOT_SUPPRESSIBLE or diagnostic.code in seen:
            continue
        seen.add(diagnostic.code)
        suppressed, count = add_noqa_to_text(document.source, [diagnostic])
        if not count:
            continue
        actions.append(
            types.CodeAction(
                title=f"{SOURCE} ({diagnostic.code}): Disable for this line",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[to_lsp_diagnostic(diagnostic, document.positions, document.uri)],
                edit=_workspace_edit(
                    document, [replacement_edit(document.source, suppressed)], versioned
                ),
            )
        )
    return actions


def fix_all_action(
    document: LintedDocument, fix: Fixer, versioned: bool = True
) -> types.CodeAction | None:
    """Every safe fix in the document, or None when there is none."""
    if not choose_fixes(document.diagnostics, unsafe=False):
        return None
    if document.standalone:
        fixed = fix(document.source, document.filename, document.settings)
    else:
        fixed = apply_safe_fixes_once(document.source, document.diagnostics)
    if fixed == document.source:
        return None
    return types.CodeAction(
        title=f"{SOURCE}: Fix all safe fixes",
        kind=FIX_ALL,
        edit=_workspace_edit(document, [replacement_edit(document.source, fixed)], versioned),
    )


def _workspace_edit(
    document: LintedDocument, edits: Sequence[Edit], versioned: bool
) -> types.WorkspaceEdit:
    text_edits = [to_text_edit(edit, document.positions) for edit in edits]
    if not versioned:
        return types.WorkspaceEdit(changes={document.uri: text_edits})
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=document.uri, version=document.version
                ),
                edits=text_edits,
            )
        ]
    )
