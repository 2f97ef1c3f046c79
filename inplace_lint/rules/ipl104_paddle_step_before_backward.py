from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules._messages import quote
from inplace_lint.rules.base import Example, Rule


class PaddleStepBeforeBackward(Rule):
    """## What it does
    Finds `opt.step()`, `set_value(...)` or `copy_(...)` on Paddle parameters between a forward
    pass that saved them and a later backward through it.

    ## Why is this bad?
    Unlike PyTorch, Paddle's optimizer step, `set_value` and `copy_` do not bump version
    counters, so nothing raises: the later backward silently uses the updated parameters with the
    old graph (a discriminator step before the generator's backward gives wrong gradients).

    ## Use instead
    Run every backward through the forward before the update, or recompute the forward after it.
    """

    code = "IPL104"
    name = "paddle-step-before-backward"
    severity = Severity.WARNING
    framework = "paddle"
    summary = "Paddle parameter update between a forward and a later backward: silently wrong"

    INVALID = (
        Example(
            "import paddle\n"
            "net = paddle.nn.Linear(4, 1)\n"
            "opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())\n"
            "x = paddle.randn([2, 4])\n"
            "out = net(x)\n"
            "a = out.mean()\n"
            "b = (out * out).sum()\n"
            "a.backward(retain_graph=True)\n"
            "opt.step()\n"
            "b.backward()\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if write.fw != "paddle" or write.bumps_version:
                continue
            saves = [s for s in write.confirmed_saves() if s.what != "ctx attribute"]
            if not saves:
                continue
            save = saves[0]
            message = (
                f"{write.op_text} changes `{write.target_text}` after {quote(save.op)} on line {line_of(0)} "
                "saved it and before a backward through it; Paddle does not bump versions here, so "
                "nothing raises and the gradients are silently wrong"
            )
            yield Finding(
                self.code,
                write.node,
                message,
                [(f"{quote(s.op)} saved it here", s.node) for s in saves],
                framework="paddle",
            )
