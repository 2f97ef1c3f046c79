"""Applying fixes to a document's text, for the quick fixes and `source.fixAll.inplace-lint`."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable

from inplace_lint.diagnostics import Diagnostic, Edit, Span
from inplace_lint.server.positions import PositionMap
from inplace_lint.settings import Settings

Linter = Callable[[str, str, Settings], list[Diagnostic]]

# Each round applies every safe fix that does not overlap an earlier one, then lints again: a
# fix can make another one possible. Fixes converge fast; the bound only guards against a cycle.
MAX_ROUNDS = 10


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` applied; edits are in the text's own coordinates and must not
    overlap (see ``non_overlapping``)."""
    positions = PositionMap(text)
    out = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        start, end = positions.offset(edit.span.start), positions.offset(edit.span.end)
        out.append(text[cursor:start])
        out.append(edit.content)
        cursor = max(end, start)
    out.append(text[cursor:])
    return "".join(out)


def non_overlapping(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics with a safe fix, keeping the first of any whose edits overlap."""
    taken: list[tuple] = []
    chosen = []
    for diagnostic in diagnostics:
        fix = diagnostic.fix
        if fix is None or not fix.is_safe or not fix.edits:
            continue
        spans = [(edit.span.start, edit.span.end) for edit in fix.edits]
        if any(_overlaps(span, other) for span in spans for other in taken):
            continue
        taken.extend(spans)
        chosen.append(diagnostic)
    return chosen


def _overlaps(a: tuple, b: tuple) -> bool:
    # Two insertions at one point conflict too (their order would be arbitrary).
    return a[0] < b[1] and b[0] < a[1] or a[0] == b[0]


def fix_all(source: str, filename: str, settings: Settings, lint: Linter) -> str:
    """``source`` with every safe fix applied, repeating until nothing more applies."""
    text = source
    for _ in range(MAX_ROUNDS):
        chosen = non_overlapping(lint(text, filename, settings))
        if not chosen:
            break
        text = apply_edits(text, (edit for d in chosen for edit in d.fix.edits))
    return text


def replacement_edit(old: str, new: str) -> Edit:
    """One edit turning ``old`` into ``new`` that spares the unchanged lines at both ends, so
    the editor keeps its cursor, folds and marks there."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    positions = PositionMap(old)
    starts = positions.line_starts
    start = starts[bisect_right(starts, prefix) - 1]  # back to its line's start
    end = next((s for s in starts if s >= len(old) - suffix), len(old))  # on to a line start
    return Edit(
        Span(positions.position_at(start), positions.position_at(end)),
        new[start : len(new) - (len(old) - end)],
    )
