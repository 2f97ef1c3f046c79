from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules._messages import quote
from inplace_lint.rules.base import Example, Rule


class NumpySharedMemoryWrite(Rule):
    """## What it does
    Finds a write on the numpy side (`a[...] = v`, `a += 1`, `a.fill(0)`) of memory shared with a
    tensor (`torch.from_numpy(a)`, `t.numpy()`) after an op saved that tensor for backward.

    ## Why is this bad?
    numpy writes do not touch the tensor's version counter: backward silently uses the new values.

    ## Use instead
    `torch.tensor(a)` (a copy) or `t.detach().numpy().copy()`.
    """

    code = "IPL108"
    name = "numpy-shared-memory-write"
    severity = Severity.WARNING
    summary = "numpy write to memory shared with a saved tensor"
    INVALID = (
        Example(
            "import numpy as np\n"
            "import torch\n"
            "a = np.ones(3, dtype='float32')\n"
            "t = torch.from_numpy(a)\n"
            "w = torch.ones(3, requires_grad=True)\n"
            "y = t * w\n"
            "a[0] = 5\n"
            "y.sum().backward()\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if write.how != "numpy":
                continue
            saves = [s for s in write.confirmed_saves() if s.what != "ctx attribute"]
            if not saves:
                continue
            message = (
                f"`{write.target_text}` shares memory with a tensor that {quote(saves[0].op)} saved on line "
                f"{line_of(0)}; {write.op_text} writes it on the numpy side, which skips the version check: "
                "silently wrong gradients"
            )
            yield Finding(
                self.code,
                write.node,
                message,
                [(f"{quote(s.op)} saved it here", s.node) for s in saves],
            )
