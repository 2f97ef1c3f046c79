from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules.base import Example, Rule


class PaddleParameterAugassign(Rule):
    """## What it does
    Finds `self.p += v` (any augmented assignment) on a Parameter attribute of a `paddle.nn.Layer`.

    ## Why is this bad?
    Paddle tensors have no `__iadd__`: the statement computes a new, non-parameter tensor and
    assigns it to an attribute registered as a parameter, which `Layer.__setattr__` refuses:

        TypeError: ... the type of parameter ... should be Parameter ...

    ## Use instead
    `self.p.set_value(self.p + v)` under `paddle.no_grad()`, or keep the sum in a local variable.
    """

    code = "IPL013"
    name = "paddle-parameter-augassign-type-error"
    severity = Severity.ERROR
    framework = "paddle"
    summary = "Augmented assignment to a Paddle Layer's parameter attribute"

    INVALID = (
        Example(
            "import paddle\n"
            "class Shift(paddle.nn.Layer):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.bias = self.create_parameter([4], is_bias=True)\n"
            "    def forward(self, x, delta):\n"
            "        self.bias += delta\n"
            "        return x + self.bias\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for rebind in analysis.rebinds:
            if rebind.assign or not rebind.on_layer_attribute or not rebind.tensor.parameter:
                continue
            message = (
                f"`{rebind.target_text}` is a parameter of this Layer; `{analysis.code(rebind.node)}` "
                "builds a new tensor (Paddle has no in-place `+=`) and assigning it to a parameter "
                "attribute raises TypeError. Use `set_value(...)` under `paddle.no_grad()`"
            )
            yield Finding(self.code, rebind.node, message, framework="paddle")
