from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules._messages import quote
from inplace_lint.rules.base import Example, Rule


class CtxAttributeStash(Rule):
    """## What it does
    Finds an in-place write to a tensor that a custom `autograd.Function` kept as a `ctx`
    attribute (`ctx.x = x`) instead of `ctx.save_for_backward(x)`, before the backward; for
    Paddle, to any tensor a `PyLayer` kept on its ctx, `save_for_backward` included.

    ## Why is this bad?
    Tensors stashed on `ctx` escape the version check: backward reads the modified values and
    silently computes wrong gradients. `save_for_backward` would have raised instead. Paddle
    checks no version for what a `PyLayer` saved at all (measured on Paddle 3.3.1).

    ## Use instead
    `ctx.save_for_backward(x)` in `forward`, `ctx.saved_tensors` in `backward`; and write a copy
    (for Paddle, write a copy: `h = h.scale(0.5)`).
    """

    code = "IPL107"
    name = "ctx-attribute-stash"
    severity = Severity.WARNING
    framework = None  # (torch's ctx attributes, any tensor a Paddle PyLayer saved)
    summary = "In-place write to a tensor an autograd.Function stashed on ctx"

    INVALID = (
        Example(
            "import torch\n"
            "class Stash(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x, w):\n"
            "        ctx.x = x\n"
            "        ctx.save_for_backward(w)\n"
            "        return x * w\n"
            "    @staticmethod\n"
            "    def backward(ctx, g):\n"
            "        (w,) = ctx.saved_tensors\n"
            "        return g * w, g * ctx.x\n"
            "w = torch.randn(3, requires_grad=True)\n"
            "x = torch.randn(3)\n"
            "y = Stash.apply(x, w)\n"
            "x.mul_(2)\n"
            "y.sum().backward()\n"
        ),
        Example(
            "import paddle\n"
            "class Square(paddle.autograd.PyLayer):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x):\n"
            "        ctx.save_for_backward(x)\n"
            "        return x * x\n"
            "    @staticmethod\n"
            "    def backward(ctx, dy):\n"
            "        (x,) = ctx.saved_tensor()\n"
            "        return 2.0 * x * dy\n"
            "fc = paddle.nn.Linear(4, 4)\n"
            "h = fc(paddle.randn([3, 4]))\n"
            "e = Square.apply(h)\n"
            "h.scale_(0.5)\n"
            "e.sum().backward()\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            saves = [
                s for s in write.confirmed_saves(certain_only=False) if s.what == "ctx attribute"
            ]
            if not saves:
                continue
            if write.fw == "paddle":
                # (Paddle checks no version for a PyLayer's saved tensors either)
                message = (
                    f"{quote(saves[0].op)} on line {line_of(0)} saved `{write.target_text}` on its "
                    f"ctx, whose version Paddle does not check; {write.op_text} changes it before "
                    "backward: no error, silently wrong gradients"
                )
            else:
                message = (
                    f"{quote(saves[0].op)} on line {line_of(0)} kept `{write.target_text}` as a ctx attribute "
                    f"(not `save_for_backward`); {write.op_text} changes it before backward: no error, "
                    "silently wrong gradients"
                )
            yield Finding(
                self.code,
                write.node,
                message,
                [(f"{quote(s.op)} kept it on ctx here", s.node) for s in saves],
            )
