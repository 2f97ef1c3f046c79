"""What a rule yields: a finding anchored on CST nodes. The API layer turns it into a Diagnostic
(positions are only computed for files that have findings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the rule registry imports this module; keep libcst out of warm runs
    import libcst as cst


@dataclass
class FixPlan:
    """Replace ``old`` nodes by new nodes or by source text; applicability decides --fix vs --unsafe-fixes."""

    message: str
    replacements: list[tuple[cst.CSTNode, cst.CSTNode | str]]
    applicability: str = "safe"


@dataclass
class Finding:
    code: str
    node: cst.CSTNode
    message: str
    related: list[tuple[str, cst.CSTNode]] = field(default_factory=list)
    fix: FixPlan | None = None
    framework: str | None = "torch"
