from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules.base import Example, Rule
from inplace_lint.rules.ipl002_leaf_inplace import leaf_finding, leaf_write_kind


class LeafViewInplace(Rule):
    """## What it does
    Finds an in-place write through a view of a leaf that requires grad: `w[0] = 1`,
    `w[0].mul_(2)`, `w.t().add_(1)`.

    ## Why is this bad?
    PyTorch refuses at once:

        RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.

    ## Example
    ```python
    w = torch.randn(3, 3, requires_grad=True)
    w[0] = 0
    ```

    ## Use instead
    ```python
    with torch.no_grad():
        w[0] = 0
    ```

    ## Fix safety
    Wrapping in `with torch.no_grad():` is unsafe: it hides the write from autograd.
    """

    code = "IPL003"
    name = "leaf-view-inplace"
    severity = Severity.ERROR
    summary = "In-place write through a view of a leaf tensor that requires grad"
    fix_applicability = "unsafe"
    INVALID = (Example("import torch\nw = torch.randn(3, 3, requires_grad=True)\nw[0] = 0\n"),)
    VALID = (
        Example(
            "import torch\nw = torch.randn(3, 3, requires_grad=True)\nv = w[0] * 2\nv[0] = 0\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if leaf_write_kind(write) == "view":
                yield leaf_finding(self.code, analysis, write, "view")
