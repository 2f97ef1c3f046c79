from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules.base import Example, Rule


class InplaceActivationInputReused(Rule):
    """## What it does
    Finds `y = act(x)` with an in-place activation (`nn.ReLU(inplace=True)`, `F.relu(x,
    inplace=True)`) or an in-place method (`x0 = pos.floor_()`) whose result goes to another
    name (or is an operand of the value assigned: `h = o * c.tanh_()`), followed by a read of
    `x` as if it still held its old values; also a read of another name for the same tensor
    (`shortcut = x; x = self.relu(x)`, then `x + shortcut`). An activation whose
    result is never read (`relu_out = self.relu(bn_out)`, then `self.conv(bn_out)`: a Caffe
    port's in-place ReLU) is called for its effect on `x`, and the later read wants the
    activated values: not reported.

    ## Why is this bad?
    The activation overwrote `x`; the later read sees the activated values. Nothing raises, the
    model silently computes something else (a residual of `relu(x)` instead of `x`).

    ## Example
    ```python
    y = self.relu(x)      # self.relu = nn.ReLU(inplace=True)
    return y + x          # x is relu(x) now
    ```

    ## Use instead
    `inplace=False`, or keep a copy: `y = self.relu(x.clone())`.
    """

    code = "IPL102"
    name = "inplace-activation-input-reused"
    severity = Severity.WARNING
    summary = "Input of an in-place activation read again as if unchanged"
    INVALID = (
        Example(
            "import torch\n"
            "import torch.nn.functional as F\n"
            "def block(x):\n"
            "    y = F.relu(x, inplace=True)\n"
            "    return y + x\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for reuse in analysis.reuses:
            if reuse.via is not None:
                message = (
                    f"{reuse.activation_text} overwrites `{reuse.via}` in place, and `{reuse.name}` "
                    f"holds the same tensor: `{reuse.name}` is read again on line {line_of(0)} as if "
                    "unchanged, but it now holds the op's result, not its old values"
                )
            else:
                message = (
                    f"{reuse.activation_text} overwrites `{reuse.name}` in place and its result goes to another "
                    f"name, but `{reuse.name}` is read again on line {line_of(0)} as if unchanged: it now holds "
                    "the op's result, not its old values"
                )
            yield Finding(
                self.code,
                reuse.node,
                message,
                [(f"`{reuse.name}` is read again here", reuse.read_node)],
            )
