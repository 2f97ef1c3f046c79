"""Everything the rules may read about one module: the dataflow's events, nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from inplace_lint.analysis.events import (
    CustomFunctionIssue,
    OutCall,
    Rebind,
    Reuse,
    SequentialAdjacency,
    Write,
)

if TYPE_CHECKING:  # the rule registry imports this module; keep libcst out of warm runs
    import libcst as cst

    from inplace_lint.analysis.index import ModuleIndex

# Placeholders the API layer fills in once positions are known.
INDENT = "\x00INDENT\x00"


def line_of(index: int) -> str:
    """A placeholder for the line of the finding's related location number `index`."""
    return f"\x00L{index}\x00"


@dataclass
class ModuleAnalysis:
    module: cst.Module
    index: ModuleIndex
    writes: list[Write] = field(default_factory=list)
    out_calls: list[OutCall] = field(default_factory=list)
    rebinds: list[Rebind] = field(default_factory=list)
    reuses: list[Reuse] = field(default_factory=list)
    function_issues: list[CustomFunctionIssue] = field(default_factory=list)
    adjacency: list[SequentialAdjacency] = field(default_factory=list)
    # autograd.Function class -> per `apply` call in this module, whether each positional argument
    # is a tensor the caller may read after the call
    apply_uses: dict[str, list[tuple[bool, ...]]] = field(default_factory=dict)

    def code(self, node: cst.CSTNode | None, limit: int = 60) -> str:
        from inplace_lint.analysis.snippets import snippet

        return snippet(self.module, node, limit)

    def local_name(self, qualified: str) -> str | None:
        return self.index.imports.local_name_for(qualified)
