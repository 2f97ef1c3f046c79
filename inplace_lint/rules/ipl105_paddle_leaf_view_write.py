from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules.base import Example, Rule
from inplace_lint.rules.ipl012_paddle_saved_tensor_modified import paddle_saves_broken


class PaddleLeafViewWrite(Rule):
    """## What it does
    Finds an in-place method call on a view of a trainable Paddle leaf (`w[0].scale_(2)`), with
    grad on.

    ## Why is this bad?
    Paddle has no view-of-leaf check: the write goes straight into the parameter's memory with
    no error and outside autograd's knowledge. When an op had saved the leaf and a backward then
    runs through that op, the write breaks the save and backward raises: that is IPL012 (an
    error), reported instead.

    ## Use instead
    `with paddle.no_grad(): ...` for a deliberate update, or compute out of place.
    """

    code = "IPL105"
    name = "paddle-leaf-view-write"
    severity = Severity.WARNING
    framework = "paddle"
    summary = "In-place write through a view of a trainable Paddle leaf"

    INVALID = (
        Example(
            "import paddle\n"
            "emb = paddle.nn.Embedding(10, 4)\n"
            "row = emb.weight[3]\n"
            "row.scale_(0.5)\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if (
                write.fw != "paddle"
                or not write.effective_grad
                or write.how in ("setitem", "aug-setitem")
            ):
                continue
            if not write.tensor.view_of_leaf or write.tensor.leaf:
                continue
            if write.bumps_version and not write.conditional and paddle_saves_broken(write):
                continue  # it also breaks a save of the leaf: backward raises (IPL012)
            message = (
                f"{write.op_text} writes in place through a view of the trainable leaf "
                f"`{write.target_text}`: Paddle raises nothing and the parameter changes outside autograd"
            )
            yield Finding(self.code, write.node, message, framework="paddle")
