from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import _fixes
from inplace_lint.rules._messages import PADDLE_VERSION_ERROR, quote
from inplace_lint.rules.base import Example, Rule
from inplace_lint.rules.ipl001_saved_tensor_modified import runs_without_grad


def paddle_saves_broken(write) -> list:
    """The saves a Paddle write breaks that a backward then reaches (IPL012's evidence)."""
    return [s for s in write.confirmed_saves() if s.what != "ctx attribute"]


class PaddleSavedTensorModified(Rule):
    """## What it does
    Finds a Paddle in-place write (`F.relu_`, `x.scale_()`, `x[:, 0] += 1`) to a tensor an earlier
    Paddle op saved for backward, when a later backward runs through that op.

    ## Why is this bad?
    Paddle checks versions like PyTorch:

        RuntimeError: (PermissionDenied) Tensor 'tanh_0.tmp_0' used in gradient computation has been
        modified by an inplace operation. Its version is 1 but the expected version is 0.

    Paddle's `multiply` and `matmul` save both operands even when the other is a constant; `divide`,
    `silu` and `elu` also save their output.

    ## Use instead
    The out-of-place API (`F.relu(x)`, `x.scale(...)`) or `x = x.clone()` first. Note that `x += y`
    is never in place in Paddle.
    """

    code = "IPL012"
    name = "paddle-saved-tensor-modified"
    severity = Severity.ERROR
    framework = "paddle"
    summary = "Paddle in-place write to a tensor an earlier op saved"
    INVALID = (
        Example(
            "import paddle\n"
            "x = paddle.ones([3])\n"
            "x.stop_gradient = False\n"
            "w = paddle.create_parameter([3], 'float32')\n"
            "h = paddle.tanh(x * w)\n"
            "h.scale_(2.0)\n"
            "h.sum().backward()\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if write.fw != "paddle" or not write.bumps_version or write.conditional:
                continue
            if runs_without_grad(write):
                continue  # every caller runs it without grad: its ops saved nothing
            if write.tensor.leaf and write.effective_grad and write.how != "assign-output":
                continue  # IPL011 raises first
            # (a write through a view of a leaf raises nothing itself, but breaks what an op
            # saved of the leaf: this rule, not IPL105)
            saves = paddle_saves_broken(write)
            if not saves:
                continue
            save = saves[0]
            message = (
                f"{quote(write.target_text)} was saved by {quote(save.op)} on line {line_of(0)} (as its {save.what}); "
                f"{write.op_text} changes it in place before backward: {PADDLE_VERSION_ERROR}"
            )
            related = [(f"{quote(s.op)} saved it here", s.node) for s in saves]
            fix = None
            if write.how in ("setitem", "aug-setitem"):
                fix = _fixes.clone_before(analysis, write)
            yield Finding(self.code, write.node, message, related, fix, framework="paddle")
