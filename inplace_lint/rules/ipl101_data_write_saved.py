from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules._messages import quote
from inplace_lint.rules.base import Example, Rule
from inplace_lint.rules.ipl001_saved_tensor_modified import runs_without_grad


class DataWriteSaved(Rule):
    """## What it does
    Finds a write through `.data` (`y.data.mul_(2)`, `w.data = ...`, `x.data[i] = v`) to a tensor
    that an earlier op saved, before a backward through that op.

    ## Why is this bad?
    `.data` writes bypass the version counter, so nothing raises: backward uses the new values
    with the old graph and the gradients are silently wrong.

    ## Example
    ```python
    y = torch.sigmoid(x)
    y.data.mul_(2)
    y.sum().backward()    # d/dx uses 2*y: wrong
    ```

    ## Use instead
    Compute the new value out of place (`y = y * 2`), or write after the backward.
    """

    code = "IPL101"
    name = "data-write-saved"
    severity = Severity.WARNING
    summary = "Write through `.data` to a saved tensor: silently wrong gradients"
    INVALID = (
        Example(
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "y = torch.sigmoid(x)\n"
            "y.data.mul_(2)\n"
            "y.sum().backward()\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if write.fw != "torch" or write.bumps_version or write.how == "numpy":
                continue
            if runs_without_grad(write):
                continue
            if not (write.tensor.via_data or write.how in ("data-assign", "numpy-inline")):
                continue
            saves = [s for s in write.confirmed_saves() if s.what != "ctx attribute"]
            if not saves:
                continue
            save = saves[0]
            what = f"`{write.target_text}`"
            if write.target is None and write.tensor.parameter and write.tensor.param_of:
                # a method's own update replayed at its call (`D.clip_weights(c)`)
                what = f"the parameters of `{write.tensor.param_of}`"
            message = (
                f"{quote(save.op)} on line {line_of(0)} saved {what} ({save.what}); "
                f"{write.op_text} changes it through `.data`, which skips the version check: no error, "
                "but backward silently computes wrong gradients"
            )
            yield Finding(
                self.code,
                write.node,
                message,
                [(f"{quote(s.op)} saved it here", s.node) for s in saves],
            )
