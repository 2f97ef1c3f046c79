from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules._messages import INFERENCE_ERROR
from inplace_lint.rules.base import Example, Rule


class InferenceTensorInplace(Rule):
    """## What it does
    Finds an in-place write, outside `torch.inference_mode()`, to a tensor created inside it.

    ## Why is this bad?
    Inference tensors carry no version counter; PyTorch refuses the write:

        RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed.

    ## Use instead
    Clone it first (`x = x.clone()`), or create it under `torch.no_grad()` instead.
    """

    code = "IPL007"
    name = "inference-tensor-inplace"
    severity = Severity.ERROR
    summary = "In-place write to an inference-mode tensor outside inference mode"
    INVALID = (
        Example("import torch\nwith torch.inference_mode():\n    x = torch.ones(3)\nx.add_(1)\n"),
    )
    VALID = (Example("import torch\nwith torch.no_grad():\n    x = torch.ones(3)\nx.add_(1)\n"),)

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if write.fw != "torch" or not write.tensor.inference or write.inference_mode:
                continue
            if write.how in ("optimizer", "helper"):
                continue
            related = []
            if write.tensor.producer_node is not None:
                related.append(("created under inference_mode here", write.tensor.producer_node))
            message = (
                f"`{write.target_text}` was created under `torch.inference_mode()` (line {line_of(0)}); "
                f"{write.op_text} writes it outside inference mode: {INFERENCE_ERROR}"
            )
            yield Finding(self.code, write.node, message, related)
