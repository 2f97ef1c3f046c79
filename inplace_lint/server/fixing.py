"""Turning fixed text into editor edits that spare what did not change."""

from __future__ import annotations

from bisect import bisect_right

from inplace_lint.diagnostics import Diagnostic, Edit, Span
from inplace_lint.fixes import apply_edits, choose_fixes
from inplace_lint.server.positions import PositionMap


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


def apply_safe_fixes_once(text: str, diagnostics: list[Diagnostic]) -> str:
    """One round of the safe fixes known now (for a notebook cell, which cannot be re-linted
    on its own)."""
    chosen = choose_fixes(diagnostics, unsafe=False)
    return apply_edits(text, [edit for d in chosen for edit in d.fix.edits])
