"""Notebooks: the code cells are linted as one program, in cell order, and each diagnostic is
reported on the cell it falls in, in that cell's own coordinates."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace

from inplace_lint.diagnostics import Diagnostic, Edit, Fix, Position, Related, Span
from inplace_lint.server.positions import split_lines

# IPython magics and shell escapes (`%time x`, `!pip ...`, `x = !ls`) are not Python: as in
# ``inplace_lint.notebooks``, each becomes `pass` at its indentation, so rows and blocks still hold.
# A cell that starts with a cell magic (`%%bash`) is not Python at all and is left out.
_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?:[%!?]|[\w.]+[ \t]*=[ \t]*[%!])")


@dataclass(frozen=True)
class Cell:
    uri: str
    text: str


@dataclass(frozen=True)
class CellRelated:
    """A related location that lies in another cell than its diagnostic."""

    uri: str
    related: Related  # in that cell's coordinates


@dataclass(frozen=True)
class CellDiagnostic:
    diagnostic: Diagnostic  # in its cell's coordinates; ``related`` keeps same-cell ones only
    elsewhere: tuple[CellRelated, ...] = ()


class NotebookProgram:
    def __init__(self, cells: list[Cell]) -> None:
        self.cells = cells
        self.first_rows: list[int] = []  # program row of each cell's first line
        parts = []
        row = 1
        for cell in cells:
            lines = [] if cell.text.lstrip().startswith("%%") else split_lines(cell.text)
            lines = [_mask_magic(line) for line in lines]
            if lines and lines[-1] == "":
                lines.pop()  # the cell's final line break; every cell gets one below
            self.first_rows.append(row)
            parts.extend(lines)
            row += len(lines)
        self.source = "".join(f"{line}\n" for line in parts)

    def split(self, diagnostics: list[Diagnostic]) -> dict[str, list[CellDiagnostic]]:
        """Every cell's diagnostics (an empty list for a clean cell)."""
        out: dict[str, list[CellDiagnostic]] = {cell.uri: [] for cell in self.cells}
        if not self.cells:
            return out
        for diagnostic in diagnostics:
            index = self._cell_of(diagnostic.span.start.row)
            out[self.cells[index].uri].append(self._localise(diagnostic, index))
        return out

    def _cell_of(self, row: int) -> int:
        return max(bisect_right(self.first_rows, row) - 1, 0)

    def _shift(self, span: Span, index: int) -> Span:
        offset = self.first_rows[index] - 1
        return Span(
            Position(span.start.row - offset, span.start.column),
            Position(span.end.row - offset, span.end.column),
        )

    def _localise(self, diagnostic: Diagnostic, index: int) -> CellDiagnostic:
        fix = diagnostic.fix
        if fix is not None:
            if all(self._cell_of(e.span.start.row) == index for e in fix.edits) and all(
                self._cell_of(e.span.end.row) == index or e.span.end.column == 1 for e in fix.edits
            ):
                edits = tuple(Edit(self._shift(e.span, index), e.content) for e in fix.edits)
                fix = Fix(fix.message, edits, fix.applicability)
            else:
                fix = None  # a fix across cells cannot be applied to one cell
        same, elsewhere = [], []
        for related in diagnostic.related:
            where = self._cell_of(related.span.start.row)
            moved = Related(related.message, self._shift(related.span, where))
            if where == index:
                same.append(moved)
            else:
                elsewhere.append(CellRelated(self.cells[where].uri, moved))
        noqa_row = diagnostic.noqa_row
        if noqa_row is not None:
            noqa_row -= self.first_rows[index] - 1
        local = replace(
            diagnostic,
            span=self._shift(diagnostic.span, index),
            fix=fix,
            related=tuple(same),
            noqa_row=noqa_row,
        )
        return CellDiagnostic(local, tuple(elsewhere))


def _mask_magic(line: str) -> str:
    match = _MAGIC.match(line)
    return f"{match.group('indent')}pass" if match else line
