from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import _fixes
from inplace_lint.rules.base import Rule
from inplace_lint.rules.ipl201_opaque_producer_inplace import opaque_write


class OpaqueSliceAssign(Rule):
    """## What it does
    Finds `a[...] = v` on the output of a callee we cannot see into, when it then reaches a backward.

    ## Why is this bad?
    Slice assignment is an in-place `copy_`; if the callee saved its output, backward raises a
    version-counter RuntimeError. Off by default (risky tier `IPL2`).

    ## Use instead
    `a = a.clone()` before the write, or build the value with `torch.where` / `torch.cat`.
    """

    code = "IPL202"
    name = "opaque-slice-assign"
    severity = Severity.WARNING
    summary = "Slice assignment on the output of an opaque callee before backward"
    default_enabled = False
    fix_applicability = "unsafe"

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if opaque_write(write) and write.how in ("setitem", "aug-setitem"):
                message = (
                    f"`{write.target_text}` comes from {write.tensor.producer}, whose saves are unknown; "
                    f"`{analysis.code(write.node)}` writes it in place before backward"
                )
                yield Finding(
                    self.code, write.node, message, fix=_fixes.clone_before(analysis, write)
                )
