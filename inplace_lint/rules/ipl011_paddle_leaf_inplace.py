from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.events import Write
from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import _fixes
from inplace_lint.rules._messages import PADDLE_LEAF_ERROR
from inplace_lint.rules.base import Example, Rule


def paddle_leaf_write(write: Write) -> bool:
    """The write raises Paddle's leaf check: an in-place write in grad mode to a trainable leaf
    itself. Paddle has no view-of-leaf check (AUTOGRAD.md; measured under paddle 3.3: an item
    write into `w.transpose(...)`, `w.reshape(...)` or `w[0]` runs); `paddle.assign(x,
    output=w)` skips the leaf check (IPL012's)."""
    return (
        write.fw == "paddle"
        and write.effective_grad
        and write.bumps_version
        and write.how not in ("optimizer", "helper", "assign-output")
        and write.tensor.leaf
    )


class PaddleLeafInplace(Rule):
    """## What it does
    Finds a Paddle in-place API (`x.scale_()`, `x.add_()`, `F.relu_(x)`, `x[i] = v`) applied to a
    trainable leaf (`stop_gradient=False`, a parameter) outside `paddle.no_grad()`. A write into a
    view of the leaf (`w.transpose(...)[i] = v`, `w[0][1] = v`) is not one: Paddle allows it. A
    write made only under an option of the object (`if not dcn_head:`) is IPL203's, unless the
    instance built in the module sets the option. The gradient a hook receives is such a leaf too
    (`p.register_hook(lambda g: g.clip_(-c, c))`, legal in PyTorch): backward raises the error,
    wrapped in an `OSError`.

    ## Why is this bad?
    Paddle raises at the write:

        ValueError: (InvalidArgument) Leaf Var (w) that doesn't stop gradient can't use inplace strategy.

    ## Use instead
    `with paddle.no_grad(): w.scale_(0.5)`, or `w.set_value(w * 0.5)` (portable to Paddle 2.x).
    """

    code = "IPL011"
    name = "paddle-leaf-inplace"
    severity = Severity.ERROR
    framework = "paddle"
    summary = "Paddle in-place API on a trainable leaf"
    fix_applicability = "unsafe"
    INVALID = (
        Example(
            "import paddle\n"
            "w = paddle.ones([3])\n"
            "w.stop_gradient = False\n"
            "w2 = paddle.create_parameter([3], 'float32')\n"
            "w2.scale_(0.5)\n"
        ),
    )
    VALID = (
        Example(
            "import paddle\n"
            "w2 = paddle.create_parameter([3], 'float32')\n"
            "with paddle.no_grad():\n"
            "    w2.scale_(0.5)\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if not paddle_leaf_write(write):
                continue
            if write.condition is not None:
                continue  # only under an option (`if self.joint:`): IPL203
            tensor = write.tensor
            related = []
            origin = ""
            if tensor.producer_node is not None:
                related.append(("the trainable leaf is created here", tensor.producer_node))
                origin = f" (created on line {line_of(0)})"
            message = (
                f"`{write.target_text}` is a trainable Paddle leaf{origin}; {write.op_text} writes it in "
                f"place outside `paddle.no_grad()`: {PADDLE_LEAF_ERROR}"
            )
            yield Finding(
                self.code,
                write.node,
                message,
                related,
                _fixes.wrap_no_grad(analysis, write, "paddle"),
                framework="paddle",
            )
