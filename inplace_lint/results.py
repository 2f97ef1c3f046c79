"""What one linted file gives back to the runner, the reporters and the language server."""

from __future__ import annotations

from dataclasses import dataclass, field

from inplace_lint.diagnostics import Diagnostic


@dataclass
class CellMap:
    """For notebooks: row in the concatenated program -> (1-based cell index, row in that cell)."""

    rows: list[tuple[int, int]] = field(default_factory=list)  # index = program row - 1
    # cell -> the line of the .ipynb file (1-based) holding each of its rows, for CI formats
    # that can only point into the file as it is on disk (GitHub annotations, GitLab, SARIF)
    file_lines: dict[int, list[int]] = field(default_factory=dict)

    def locate(self, row: int) -> tuple[int, int]:
        if 1 <= row <= len(self.rows):
            return self.rows[row - 1]
        return (1, row)

    def file_line(self, row: int) -> int:
        """The line of the notebook file where program row ``row`` is written (1 if unknown)."""
        cell, cell_row = self.locate(row)
        lines = self.file_lines.get(cell)
        if not lines:
            return 1
        return lines[min(max(cell_row, 1), len(lines)) - 1]


@dataclass
class FileResult:
    path: str  # as displayed (relative to the working directory when possible)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    source: str | None = None  # the analysed text (for code frames); None when unreadable
    fixed_source: str | None = None  # the text after fixes, when fixing changed something
    fixes_applied: int = 0
    fixed_diagnostics: list[Diagnostic] = field(default_factory=list)  # what the fixes removed
    cell_map: CellMap | None = None  # set for notebooks
    written: bool = False  # the fixed text was written back
    fix_error: str | None = None  # why fixes were not applied or not written, if they were not
