"""The one diagnostic model. Every output format is a projection of these dataclasses.

Positions are 1-based rows and 1-based columns counted in code points, like ruff's JSON; end
positions are exclusive. Reporters convert (LSP wants 0-based UTF-16, SARIF 1-based, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class Severity(IntEnum):
    """Numbered as LSP numbers them."""

    ERROR = 1
    WARNING = 2
    INFO = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, order=True)
class Position:
    row: int  # 1-based
    column: int  # 1-based, in code points


@dataclass(frozen=True, order=True)
class Span:
    start: Position
    end: Position  # exclusive


@dataclass(frozen=True)
class Edit:
    span: Span
    content: str


@dataclass(frozen=True)
class Fix:
    message: str
    edits: tuple[Edit, ...]
    applicability: str = "safe"  # "safe" | "unsafe"

    @property
    def is_safe(self) -> bool:
        return self.applicability == "safe"


@dataclass(frozen=True)
class Related:
    """Another place in the same file that explains the diagnostic (the op that saved a tensor)."""

    message: str
    span: Span


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    message: str
    severity: Severity
    span: Span
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    framework: str | None = None  # "torch" | "paddle" | None for meta diagnostics
    noqa_row: int | None = None  # the row a `# noqa` for this diagnostic belongs on
    detail: str | None = None  # e.g. a traceback for internal errors (shown with --verbose)
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def sort_key(self) -> tuple:
        return (self.span.start.row, self.span.start.column, self.code)
