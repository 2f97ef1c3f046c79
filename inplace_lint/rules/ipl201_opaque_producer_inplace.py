from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.events import Write
from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import _fixes
from inplace_lint.rules.base import Example, Rule


def opaque_write(write: Write) -> bool:
    tensor = write.tensor
    return (
        write.fw == "torch"
        and write.bumps_version
        and not tensor.known
        and tensor.requires_grad is not False
        and write.effective_grad
        and write.reaches_backward
        and not write.saves
        and write.how not in ("optimizer", "helper", "numpy", "data-assign")
    )


class OpaqueProducerInplace(Rule):
    """## What it does
    Finds `x += y`, `x.op_()` or an `inplace=True` activation on the output of a callee we cannot
    see into (an imported helper, a module built elsewhere), when the value then reaches a backward.

    ## Why is this bad?
    If that callee's last op saved its output (sigmoid, tanh, softmax, exp, relu), backward raises
    `RuntimeError: one of the variables needed for gradient computation has been modified by an
    inplace operation`. It is one edit away from failing even when it works today.

    Off by default; select `IPL2` to enable the risky tier.
    """

    code = "IPL201"
    name = "opaque-producer-inplace"
    severity = Severity.WARNING
    summary = "In-place write to the output of an opaque callee before backward"
    default_enabled = False
    fix_applicability = "safe"
    INVALID = (
        Example(
            "import torch\n"
            "from mylib import gate\n"
            "w = torch.randn(3, requires_grad=True)\n"
            "h = gate(w * 2)\n"
            "h += 1\n"
            "h.sum().backward()\n",
            "import torch\n"
            "from mylib import gate\n"
            "w = torch.randn(3, requires_grad=True)\n"
            "h = gate(w * 2)\n"
            "h = h + 1\n"
            "h.sum().backward()\n",
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if opaque_write(write) and write.how not in ("setitem", "aug-setitem"):
                message = (
                    f"`{write.target_text}` comes from {write.tensor.producer}, whose saves are unknown; "
                    f"{write.op_text} changes it in place before backward. If that callee saved its output, "
                    "backward raises a version-counter RuntimeError"
                )
                yield Finding(
                    self.code, write.node, message, fix=_fixes.out_of_place(analysis, write)
                )
