from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules._messages import OUT_ERROR
from inplace_lint.rules.base import Example, Rule


class OutRequiresGrad(Rule):
    """## What it does
    Finds a call with `out=` whose inputs require grad, while grad mode is on.

    ## Why is this bad?
    Ops writing into `out=` are not differentiable; PyTorch raises at the call:

        RuntimeError: add(): functions with out=... arguments don't support automatic
        differentiation, but one of the arguments requires grad.

    ## Example
    ```python
    torch.add(x, y, out=buf)
    ```

    ## Use instead
    ```python
    buf = torch.add(x, y)
    ```
    """

    code = "IPL005"
    name = "out-requires-grad"
    severity = Severity.ERROR
    summary = "`out=` with an argument that requires grad"
    INVALID = (
        Example(
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "buf = torch.empty(3)\n"
            "torch.add(x, 1, out=buf)\n"
        ),
    )
    VALID = (
        Example(
            "import torch\nx = torch.randn(3)\nbuf = torch.empty(3)\ntorch.add(x, 1, out=buf)\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for call in analysis.out_calls:
            effective = (
                call.grad_enabled
                if call.grad_explicit
                else (call.grad_enabled and not call.guarded_by_caller)
            )
            if not call.args_requiring_grad or not effective:
                continue
            producer = call.args_requiring_grad[0]
            message = (
                f"{call.op_text} writes its result into `out=` but {producer} requires grad: {OUT_ERROR}. "
                "Assign the result instead of passing `out=`"
            )
            yield Finding(self.code, call.node, message)
