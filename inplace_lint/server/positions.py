"""Positions between our model (1-based rows, 1-based code-point columns) and LSP's.

LSP positions are 0-based lines and 0-based ``character`` offsets counted in the negotiated
encoding's code units: UTF-16 by default, UTF-8 or UTF-32 when the client asks. Lines split on
``\\n``, ``\\r\\n`` and ``\\r`` only (as LSP and the Python tokenizer do; ``str.splitlines`` also
splits on form feeds and U+2028, which would shift every row after one).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from inplace_lint.diagnostics import Position, Span

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The document's lines without their line breaks; a trailing break gives a last empty line."""
    return _LINE_BREAK.split(text)


def code_units(text: str, encoding: str) -> int:
    """How many code units ``text`` takes in ``encoding``."""
    if encoding == UTF32:
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def code_points(line: str, units: int, encoding: str) -> int:
    """The code-point offset in ``line`` of the code-unit offset ``units``.

    An offset inside a character (half a surrogate pair, the middle of a UTF-8 sequence) rounds
    down to that character's start; an offset past the line's end stays past it.
    """
    if encoding == UTF32 or line.isascii():
        return units
    seen = 0
    for index, char in enumerate(line):
        width = code_units(char, encoding)
        if seen + width > units:
            return index
        seen += width
    return len(line) + (units - seen)


@dataclass(frozen=True)
class LspPosition:
    line: int  # 0-based
    character: int  # 0-based, in code units


class PositionMap:
    """Converts positions for one text in one encoding."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.lines = split_lines(text)
        self.encoding = encoding
        self.line_starts = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]

    def to_lsp(self, position: Position) -> LspPosition:
        line = position.row - 1
        if line < 0:
            return LspPosition(0, 0)
        if line >= len(self.lines):
            return LspPosition(len(self.lines), 0)
        text = self.lines[line]
        column = max(position.column - 1, 0)
        prefix = text[:column]
        return LspPosition(line, code_units(prefix, self.encoding) + column - len(prefix))

    def span_to_lsp(self, span: Span) -> tuple[LspPosition, LspPosition]:
        return self.to_lsp(span.start), self.to_lsp(span.end)

    def from_lsp(self, position: LspPosition) -> Position:
        line = max(position.line, 0)
        if line >= len(self.lines):
            return Position(len(self.lines) + 1, 1)
        column = code_points(self.lines[line], max(position.character, 0), self.encoding)
        return Position(line + 1, column + 1)

    def offset(self, position: Position) -> int:
        """The index into the text of a model position, clamped to its line (or to the text)."""
        line = position.row - 1
        if line < 0:
            return 0
        if line >= len(self.lines):
            return len(self.text)
        column = min(max(position.column - 1, 0), len(self.lines[line]))
        return self.line_starts[line] + column

    def position_at(self, offset: int) -> Position:
        """The model position of an index into the text."""
        offset = min(max(offset, 0), len(self.text))
        line = bisect_right(self.line_starts, offset) - 1
        column = min(offset - self.line_starts[line], len(self.lines[line]))
        return Position(line + 1, column + 1)

    def end(self) -> Position:
        """The position just past the last character."""
        return Position(len(self.lines), len(self.lines[-1]) + 1)
