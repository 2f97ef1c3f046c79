from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from inplace_lint.analysis.findings import Finding, FixPlan
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules._fixes import aug_to_bin, right_operand
from inplace_lint.rules.base import Example, Rule

if TYPE_CHECKING:
    import libcst as cst


class PaddleAugassignRebinds(Rule):
    """## What it does
    Finds `p -= lr * p.grad` (any augmented assignment) on a Paddle parameter, or on a tensor
    made with `stop_gradient=False` when the statement is an update: under `no_grad`, or reading
    a gradient. An accumulator grown in grad mode (`total += part`) is left alone: rebinding it
    is the sum the loop means. So is `p.data -= ...`: the `data` setter writes the new value into
    the parameter. So is a rebinding whose value is written back before the name is bound again
    (`p -= lr * g` then `params[i].set_value(p)`, `.copy_(p)`, `paddle.assign(p, ...)` or
    `params[i] = p`).

    ## Why is this bad?
    `paddle.Tensor` has no `__isub__`: the statement rebinds the loop variable `p` to a new
    tensor, and the parameter itself never changes. Training silently does nothing.

    ## Example
    ```python
    for p in model.parameters():
        p -= lr * p.grad
    ```

    ## Use instead
    ```python
    with paddle.no_grad():
        for p in model.parameters():
            p.set_value(p - lr * p.grad)
    ```
    """

    code = "IPL103"
    name = "paddle-augassign-rebinds"
    severity = Severity.WARNING
    framework = "paddle"
    summary = (
        "Augmented assignment on a Paddle parameter rebinds the name; the parameter is unchanged"
    )
    fix_applicability = "unsafe"
    INVALID = (
        Example(
            "import paddle\n"
            "model = paddle.nn.Linear(2, 2)\n"
            "for p in model.parameters():\n"
            "    p -= 0.1 * p.grad\n",
            "import paddle\n"
            "model = paddle.nn.Linear(2, 2)\n"
            "for p in model.parameters():\n"
            "    p.set_value(p - 0.1 * p.grad)\n",
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for rebind in analysis.rebinds:
            if rebind.on_layer_attribute or not (rebind.tensor.parameter or rebind.tensor.leaf):
                continue
            if not rebind.tensor.parameter and not rebind.update:
                # `acc += iou` on a leaf made with stop_gradient=False, with grad on: a sum that
                # goes on in the graph, which is what the loop means
                continue
            node = rebind.node
            message = (
                f"`{analysis.code(node)}` rebinds `{rebind.target_text}` to a new tensor (Paddle has no "
                f"in-place `{analysis.code(node.operator).strip()}`): the parameter itself never changes. "
                f"Use `{rebind.target_text}.set_value(...)`"
            )
            yield Finding(self.code, node, message, fix=_set_value_fix(node), framework="paddle")


def _set_value_fix(node: cst.AugAssign) -> FixPlan | None:
    import libcst as cst

    operator = aug_to_bin().get(type(node.operator))
    if operator is None or not isinstance(node.target, (cst.Name, cst.Attribute)):
        return None
    value = right_operand(node.value, operator())
    call = cst.Call(
        func=cst.Attribute(node.target, cst.Name("set_value")),
        args=[cst.Arg(cst.BinaryOperation(node.target, operator(), value))],
    )
    return FixPlan("Update the parameter with `set_value(...)`", [(node, cst.Expr(call))], "unsafe")
