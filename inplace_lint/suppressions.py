"""`# noqa` suppressions, found by tokenizing each file once.

* `# noqa: IPL001, IPL002` on a diagnostic's line (case-insensitive; codes of other tools in the
  same list are left to them);
* blanket `# noqa` on a line;
* file level, on a line of its own: `# inplace-lint: noqa` or `# inplace-lint: noqa: IPL001`, and
  `# flake8: noqa` (with or without codes, as ruff reads it).

Unused IPL codes in a `# noqa: ...` list are reported as IPL900 (when enabled), with a fix that
removes only the stale codes. A blanket `# noqa` is never reported: other tools share it.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from inplace_lint.diagnostics import Diagnostic, Edit, Fix, Position, Span
from inplace_lint.settings import Settings

UNUSED_NOQA = "IPL900"
OUR_PREFIX = "IPL"

# Matches `noqa` comments such as `#noqa:IPL001,IPL002` or `# NOQA: ipl001 ipl002` (codes are
# letters then digits), and the blanket form.
_CODE = r"[A-Za-z]+[0-9]+"
LINE_NOQA = re.compile(
    rf"#\s*noqa(?![A-Za-z0-9_])(?P<sep>:\s*(?P<codes>{_CODE}(?:[\s,]+{_CODE})*))?",
    re.IGNORECASE,
)
FILE_NOQA = re.compile(
    rf"^#\s*(?P<tool>inplace-lint|flake8)\s*:\s*noqa(?![A-Za-z0-9_])"
    rf"(?:\s*:\s*(?P<codes>{_CODE}(?:[\s,]+{_CODE})*))?\s*$",
    re.IGNORECASE,
)
_SPLIT = re.compile(r"[\s,]+")


@dataclass
class LineNoqa:
    """One `# noqa` comment: where it is and which codes it lists (None: blanket)."""

    row: int
    column: int  # 1-based column of the `#` that starts the directive
    end_column: int  # exclusive, end of the directive (codes included)
    codes: list[str] | None
    comment_start: int  # 1-based column of the comment's `#`
    comment_end: int  # exclusive, end of the whole comment
    code_before: bool  # whether code precedes the comment on its line
    used: set[str] = field(default_factory=set)

    def matches(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@dataclass
class Directives:
    by_row: dict[int, LineNoqa] = field(default_factory=dict)
    file_blanket: bool = False
    file_codes: set[str] = field(default_factory=set)
    # the rows that a directive on the last row of a multi-line string also covers
    covers: dict[int, int] = field(default_factory=dict)

    def file_suppresses(self, code: str) -> bool:
        return self.file_blanket or code in self.file_codes


def parse_directives(source: str) -> Directives:
    """Tokenize once and collect every suppression comment."""
    directives = Directives()
    lines = source.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        tokens = None
    if tokens is None:
        _scan_lines_without_tokens(lines, directives)
        return directives
    last_code_row = 0
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            _add_comment(directives, tok.string, row, col, code_before=last_code_row == row)
        elif tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            last_code_row = tok.end[0]
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                for row in range(tok.start[0], tok.end[0]):
                    directives.covers[row] = tok.end[0]
    return directives


def _scan_lines_without_tokens(lines: list[str], directives: Directives) -> None:
    """For text the tokenizer rejects (it will get IPL901): a plain line scan, good enough."""
    for row, line in enumerate(lines, start=1):
        col = line.find("#")
        if col >= 0:
            _add_comment(directives, line[col:].rstrip("\r\n"), row, col, bool(line[:col].strip()))


def _add_comment(directives: Directives, comment: str, row: int, col0: int, code_before: bool):
    if not code_before:
        file_match = FILE_NOQA.match(comment.strip())
        if file_match:
            codes = file_match.group("codes")
            if codes:
                directives.file_codes.update(c.upper() for c in _SPLIT.split(codes.strip()))
            else:
                directives.file_blanket = True
            return
    match = LINE_NOQA.search(comment)
    if match is None:
        return
    codes = match.group("codes")
    directives.by_row[row] = LineNoqa(
        row=row,
        column=col0 + match.start() + 1,
        end_column=col0 + match.end() + 1,
        codes=[c.upper() for c in _SPLIT.split(codes.strip())] if codes else None,
        comment_start=col0 + 1,
        comment_end=col0 + len(comment) + 1,
        code_before=code_before,
    )


def apply_suppressions(
    source: str, diagnostics: list[Diagnostic], settings: Settings
) -> list[Diagnostic]:
    """Drop suppressed diagnostics; add IPL900 for stale codes when that rule is enabled."""
    lowered = source.lower()
    if "noqa" not in lowered:  # nearly every file: no tokenizing at all
        return diagnostics
    if not diagnostics and OUR_PREFIX.lower() not in lowered:
        return diagnostics  # nothing to suppress, and no code of ours a noqa could name (IPL900)
    directives = parse_directives(source)
    kept = []
    for diag in diagnostics:
        if directives.file_suppresses(diag.code):
            continue
        row = diag.noqa_row or diag.span.start.row
        noqa = directives.by_row.get(directives.covers.get(row, row)) or directives.by_row.get(row)
        if noqa is not None and noqa.matches(diag.code):
            noqa.used.add(diag.code)
            continue
        kept.append(diag)
    if settings.is_enabled(UNUSED_NOQA) and not directives.file_suppresses(UNUSED_NOQA):
        lines = source.splitlines(keepends=True)
        for noqa in directives.by_row.values():
            diag = _unused_noqa(noqa, settings, lines)
            if diag is not None:
                kept.append(diag)
    return kept


def _unused_noqa(noqa: LineNoqa, settings: Settings, lines: list[str]) -> Diagnostic | None:
    if noqa.codes is None or UNUSED_NOQA in noqa.codes:
        return None
    from inplace_lint.rules import all_rules

    rules = all_rules()
    ours = [c for c in noqa.codes if c.startswith(OUR_PREFIX)]
    unknown = [c for c in ours if c not in rules]
    disabled = [c for c in ours if c in rules and not settings.is_enabled(c)]
    unused = [c for c in ours if c in rules and settings.is_enabled(c) and c not in noqa.used]
    stale = set(unknown + disabled + unused)
    if not stale:
        return None
    parts = []
    for label, codes in (("unused", unused), ("non-enabled", disabled), ("unknown", unknown)):
        if codes:
            parts.append(f"{label}: {', '.join(f'`{c}`' for c in codes)}")
    rule = rules[UNUSED_NOQA]
    span = Span(Position(noqa.row, noqa.column), Position(noqa.row, noqa.end_column))
    return Diagnostic(
        code=UNUSED_NOQA,
        name=rule.name,
        message=f"Unused `noqa` directive ({'; '.join(parts)})",
        severity=rule.severity,
        span=span,
        fix=Fix(
            "Remove the unused codes" if len(stale) < len(noqa.codes) else "Remove unused `noqa`",
            (_removal_edit(noqa, stale, lines),),
            "safe",
        ),
        noqa_row=noqa.row,
    )


def _removal_edit(noqa: LineNoqa, stale: set[str], lines: list[str]) -> Edit:
    line = lines[noqa.row - 1] if noqa.row - 1 < len(lines) else ""
    kept = [c for c in (noqa.codes or []) if c not in stale]
    if kept:
        directive = line[noqa.column - 1 : noqa.end_column - 1]
        prefix = directive[: LINE_NOQA.match(directive).start("codes")]  # keeps the spelling
        new = prefix + ", ".join(kept)
        return Edit(_row_span(noqa.row, noqa.column, noqa.end_column), new)
    rest = line[noqa.end_column - 1 : noqa.comment_end - 1]
    after = rest.lstrip(" \t")
    if noqa.column == noqa.comment_start:
        if not after:  # the comment is only the directive: drop it and the spaces before it
            start = noqa.comment_start
            if noqa.code_before:
                start = len(line[: noqa.comment_start - 1].rstrip(" \t")) + 1
            return Edit(_row_span(noqa.row, start, noqa.comment_end), "")
        # `# noqa: IPL001  # why` -> `# why`; `# noqa: IPL001 why` -> `# why`
        end = noqa.end_column + len(rest) - len(after)
        return Edit(_row_span(noqa.row, noqa.column, end), "" if after.startswith("#") else "# ")
    # a directive after other comment text: drop it and the spaces before it
    start = len(line[: noqa.column - 1].rstrip(" \t")) + 1
    return Edit(_row_span(noqa.row, start, noqa.end_column), "")


def _row_span(row: int, start: int, end: int) -> Span:
    return Span(Position(row, start), Position(row, end))
