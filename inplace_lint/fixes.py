"""Applying fixes to text: the same loop for ``--fix``, ``--diff`` and the language server.

A fix is applied whole or not at all; fixes whose edits overlap an earlier fix wait for the next
round, when the file is linted again. Each round's result must still parse, or the round is
dropped and the last good text is kept: a fix never makes a file worse than it was.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from inplace_lint.diagnostics import Diagnostic, Edit, Fix, Position, Span
from inplace_lint.settings import Settings
from inplace_lint.sources import dominant_newline

_LINE_END = re.compile(r"\r\n|\r|\n")  # what the Python tokenizer (and libcst) count as a row


@dataclass
class FixOutcome:
    text: str  # the fixed text (the input text when nothing applied)
    applied: list[Diagnostic] = field(default_factory=list)  # diagnostics whose fix was applied
    remaining: list[Diagnostic] = field(default_factory=list)  # diagnostics of the final text
    error: str | None = None  # why a round of fixes was dropped, if one was


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply edits (1-based row and code-point column, end exclusive) to ``text``.

    An edit that overlaps one kept before it is skipped. Raises ``ValueError`` for a position
    outside the text.
    """
    starts = _row_starts(text)
    kept: list[tuple[int, int, str]] = []
    for edit in edits:
        start, end = _offset(text, starts, edit.span.start), _offset(text, starts, edit.span.end)
        if end < start:
            raise ValueError(f"edit ends before it starts: {edit.span}")
        if not any(_overlaps((start, end), (s, e)) for s, e, _ in kept):
            kept.append((start, end, edit.content))
    out = []
    cursor = 0
    for start, end, content in sorted(kept, key=lambda k: (k[0], k[1])):
        out.append(text[cursor:start])
        out.append(content)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def fix_text(
    text: str, filename: str, settings: Settings, unsafe: bool, max_iterations: int = 10
) -> FixOutcome:
    """Lint, apply every applicable non-overlapping fix, and repeat until nothing changes.

    The text returned is a fixed point: fixing it again changes nothing. Fixes that still apply
    after ``max_iterations`` rounds never settle (a fix its own rule does not accept); the loop is
    run again without them, and they are reported in ``error``.
    """
    outcome, unsettled = _fix_loop(text, filename, settings, unsafe, max_iterations, frozenset())
    if not unsettled:
        return outcome
    retry, still = _fix_loop(text, filename, settings, unsafe, max_iterations, unsettled)
    if still:  # give up on fixing this file rather than return a text that is not settled
        from inplace_lint.api import lint_source

        retry = FixOutcome(text, remaining=lint_source(text, filename, settings))
        unsettled |= still
    codes = ", ".join(sorted(unsettled))
    note = f"fixes for {codes} did not settle after {max_iterations} rounds and were not applied"
    retry.error = f"{note}; {retry.error}" if retry.error else note
    return retry


def _fix_loop(
    text: str,
    filename: str,
    settings: Settings,
    unsafe: bool,
    max_iterations: int,
    excluded: frozenset[str],
) -> tuple[FixOutcome, frozenset[str]]:
    """One fixing run; also returns the codes whose fixes still applied when the rounds ran out."""
    from inplace_lint.api import lint_source

    outcome = FixOutcome(text)
    must_parse_with_ast = _parses_with_ast(text)
    diagnostics = lint_source(text, filename, settings)
    unsettled: frozenset[str] = frozenset()
    for round_number in range(max_iterations + 1):
        candidates = [d for d in diagnostics if d.code not in excluded]
        chosen = choose_fixes(_positions_trusted(outcome.text, candidates), unsafe)
        if not chosen:
            break
        if round_number == max_iterations:
            unsettled = frozenset(d.code for d in chosen)
            break
        newline = dominant_newline(outcome.text)
        edits = [_with_newline(e, newline) for d in chosen for e in _fix(d).edits]
        try:
            new_text = apply_edits(outcome.text, edits)
        except ValueError as error:
            outcome.error = f"a fix has an invalid position ({error}); fixes stopped there"
            break
        if new_text == outcome.text:
            break
        problem = _parse_problem(new_text, must_parse_with_ast)
        if problem is not None:
            codes = ", ".join(sorted({d.code for d in chosen}))
            outcome.error = (
                f"fixes for {codes} would have produced code that does not parse ({problem}); "
                "those fixes were not applied"
            )
            break
        outcome.text = new_text
        outcome.applied.extend(chosen)
        diagnostics = lint_source(new_text, filename, settings)
    outcome.remaining = diagnostics
    return outcome, unsettled


def choose_fixes(diagnostics: Iterable[Diagnostic], unsafe: bool) -> list[Diagnostic]:
    """The diagnostics whose fixes apply in this round: applicable, none overlapping another."""
    chosen: list[Diagnostic] = []
    taken: list[tuple[Position, Position]] = []
    for diag in diagnostics:
        fix = diag.fix
        if fix is None or not fix.edits or not (fix.is_safe or unsafe):
            continue
        ranges = [(e.span.start, e.span.end) for e in fix.edits]
        if any(_overlaps(r, t) for r in ranges for t in taken) or _self_overlapping(ranges):
            continue
        chosen.append(diag)
        taken.extend(ranges)
    return chosen


def _positions_trusted(text: str, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Drop fixes that touch a row whose indentation holds a form feed: libcst's positions on such
    a row are one column off (``\fdef f(): ...`` puts ``f`` at column 5), so an edit there could
    land on the wrong characters."""
    if "\f" not in text:
        return diagnostics
    rows = _LINE_END.split(text)
    suspect = {i + 1 for i, row in enumerate(rows) if "\f" in row[: len(row) - len(row.lstrip())]}
    return [
        d
        for d in diagnostics
        if d.fix is None
        or not any(r in suspect for e in d.fix.edits for r in (e.span.start.row, e.span.end.row))
    ]


def _with_newline(edit: Edit, newline: str) -> Edit:
    """Fix content is written with ``\n``; a CRLF (or CR) file gets its own line ending. Python
    reads every ending as ``\n``, inside string literals too, so this changes no meaning."""
    if newline == "\n" or not _LINE_END.search(edit.content):
        return edit
    return replace(edit, content=_LINE_END.sub(newline, edit.content))


def _fix(diag: Diagnostic) -> Fix:
    assert diag.fix is not None
    return diag.fix


def _overlaps(a: tuple, b: tuple) -> bool:
    """Half-open ranges overlap; two insertions at the same point conflict too (order unknown)."""
    if a[0] == a[1] == b[0] == b[1]:
        return True
    return a[0] < b[1] and b[0] < a[1]


def _self_overlapping(ranges: list[tuple[Position, Position]]) -> bool:
    return any(_overlaps(a, b) for i, a in enumerate(ranges) for b in ranges[i + 1 :])


def text_at(text: str, span: Span) -> str | None:
    """The text a span covers, or None if it is not inside ``text``."""
    starts = _row_starts(text)
    try:
        return text[_offset(text, starts, span.start) : _offset(text, starts, span.end)]
    except ValueError:
        return None


def _row_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in _LINE_END.finditer(text)]


def _offset(text: str, starts: list[int], pos: Position) -> int:
    if not 1 <= pos.row <= len(starts) or pos.column < 1:
        raise ValueError(f"position {pos.row}:{pos.column} is outside the text")
    start = starts[pos.row - 1]
    row_end = starts[pos.row] if pos.row < len(starts) else len(text)
    offset = start + pos.column - 1
    if offset > row_end:
        raise ValueError(f"position {pos.row}:{pos.column} is past the end of its row")
    return offset


def _parses_with_ast(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _parse_problem(text: str, must_parse_with_ast: bool) -> str | None:
    """None if ``text`` parses (with libcst, and with Python's parser if the original did)."""
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        return f"line {error.raw_line}: {error.message}".splitlines()[0]
    except Exception as error:  # noqa: BLE001 - RecursionError, MemoryError, odd libcst errors
        return f"{type(error).__name__}: {error}".splitlines()[0]
    if must_parse_with_ast and not _parses_with_ast(text):
        return "Python's own parser rejects it"
    return None
