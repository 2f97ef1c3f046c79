"""The library API under the CLI, the language server and the flake8 plugin.

``lint_source`` is the whole per-file pipeline on text: parse once, analyse, turn findings into
diagnostics, apply suppressions. Everything that reads files, caches or runs in parallel lives
above it.
"""

from __future__ import annotations

import traceback

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from inplace_lint.analysis.findings import Finding
from inplace_lint.diagnostics import Diagnostic, Edit, Fix, Position, Related, Severity, Span
from inplace_lint.rules import all_rules
from inplace_lint.settings import DEFAULT_SETTINGS, Settings


def lint_source(
    source: str, filename: str = "<stdin>", settings: Settings = DEFAULT_SETTINGS
) -> list[Diagnostic]:
    """Lint one file's text. Never raises for any input text."""
    diagnostics = _lint_unsuppressed(source, filename, settings)
    from inplace_lint.suppressions import apply_suppressions

    diagnostics = apply_suppressions(source, diagnostics, settings)
    return sorted(diagnostics, key=lambda d: d.sort_key)


def _lint_unsuppressed(source: str, filename: str, settings: Settings) -> list[Diagnostic]:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        return [_syntax_error(error)] if settings.is_enabled("IPL901") else []
    except (RecursionError, MemoryError):
        return [_meta("IPL904", "The file is nested too deeply to analyse", 1, 1, settings)]
    except Exception as error:  # libcst raises a few non-syntax errors on odd input
        return [_meta("IPL901", f"SyntaxError: {error}".splitlines()[0], 1, 1, settings)]

    from inplace_lint.analysis.engine import analyse

    try:
        result = analyse(module, settings)
    except RecursionError:
        return [_meta("IPL904", "The file is nested too deeply to analyse", 1, 1, settings)]
    diagnostics: list[Diagnostic] = []
    if result.findings:
        diagnostics.extend(findings_to_diagnostics(module, result.findings, settings))
    for code, exc_text in result.errors:
        diag = _meta(
            "IPL903",
            f"Internal error in rule {code} on {filename}; other rules' findings are kept",
            1,
            1,
            settings,
        )
        if diag is not None:
            diagnostics.append(_with_detail(diag, exc_text))
    return [d for d in diagnostics if d is not None]


def findings_to_diagnostics(
    module: cst.Module, findings: list[Finding], settings: Settings
) -> list[Diagnostic]:
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    rules = all_rules()
    out = []
    for finding in findings:
        rule = rules[finding.code]
        span = _span(positions[finding.node])
        related = tuple(
            Related(message, _span(positions[node]))
            for message, node in finding.related
            if node in positions
        )
        fix = None
        if finding.fix is not None and finding.code not in settings.unfixable:
            applicability = finding.fix.applicability
            if finding.code in settings.extend_safe_fixes:
                applicability = "safe"
            edits = tuple(
                Edit(
                    _span(positions[old]),
                    new if isinstance(new, str) else module.code_for_node(new),
                )
                for old, new in finding.fix.replacements
            )
            fix = Fix(finding.fix.message, edits, applicability)
        out.append(
            Diagnostic(
                code=rule.code,
                name=rule.name,
                message=finding.message,
                severity=rule.severity,
                span=span,
                fix=fix,
                related=related,
                framework=finding.framework,
                noqa_row=span.start.row,
            )
        )
    return out


def _span(code_range: CodeRange) -> Span:
    return Span(
        Position(code_range.start.line, code_range.start.column + 1),
        Position(code_range.end.line, code_range.end.column + 1),
    )


def _syntax_error(error: cst.ParserSyntaxError) -> Diagnostic:
    message = str(error.message).splitlines()[0] if error.message else "invalid syntax"
    row, col = max(error.editor_line, 1), max(error.editor_column, 1)
    rule = all_rules()["IPL901"]
    return Diagnostic(
        code=rule.code,
        name=rule.name,
        message=f"SyntaxError: {message}",
        severity=rule.severity,
        span=Span(Position(row, col), Position(row, col + 1)),
        noqa_row=row,
    )


def _meta(code: str, message: str, row: int, col: int, settings: Settings) -> Diagnostic | None:
    if not settings.is_enabled(code):
        return None
    rule = all_rules()[code]
    return Diagnostic(
        code=code,
        name=rule.name,
        message=message,
        severity=rule.severity,
        span=Span(Position(row, col), Position(row, col)),
        noqa_row=row,
    )


def _with_detail(diag: Diagnostic, detail: str) -> Diagnostic:
    from dataclasses import replace

    return replace(diag, detail=detail)


def format_exception(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


__all__ = ["lint_source", "findings_to_diagnostics", "Severity"]
