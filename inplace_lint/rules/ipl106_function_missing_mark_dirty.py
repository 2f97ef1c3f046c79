from __future__ import annotations

import re
from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules.base import Example, Rule


class FunctionMissingMarkDirty(Rule):
    """## What it does
    Finds a custom `torch.autograd.Function` whose `forward` writes one of its inputs in place
    without declaring it with `ctx.mark_dirty(...)`.

    ## Why is this bad?
    Autograd does not know the input changed; the graph and anything that saved the input keep
    using it as if unchanged, and gradients come out wrong.

    It is reported only where that can matter: when this module calls the Function's `apply`
    (directly or through an alias such as `sparsemax = SparsemaxFunction.apply`), some call must
    pass a tensor that may require grad and that the caller may read after the call. A parameter
    defaulting to `None` (an `out=` buffer), a list or a dict is not such an input. Where this
    module never calls the Function, an input named as a normalisation statistic (`running_mean`,
    `moving_var`, `num_batches_tracked`) is taken for a caller's buffer and not reported. Each
    input is reported once, at its first write. An input the forward gave to
    `ctx.save_for_backward` before writing it is reported whatever the callers do: autograd packs
    the saved tensors when `forward` returns, so the Function's own backward reads the new values
    (timm#156's in-place swish).

    ## Use instead
    Call `ctx.mark_dirty(x)` and return `x`, or compute out of place.
    """

    code = "IPL106"
    name = "function-missing-mark-dirty"
    severity = Severity.WARNING
    summary = "Custom autograd.Function writes its input without ctx.mark_dirty"

    INVALID = (
        Example(
            "import torch\n"
            "class Round(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x):\n"
            "        x.round_()\n"
            "        return x\n"
            "    @staticmethod\n"
            "    def backward(ctx, g):\n"
            "        return g\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for issue in analysis.function_issues:
            if issue.kind != "missing-mark-dirty":
                continue
            calls = analysis.apply_uses.get(issue.function, [])
            if issue.saved_before:
                # its own backward reads what the write left in the saved input
                yield Finding(self.code, issue.node, issue.message, issue.related)
                continue
            if calls and all(issue.param < len(uses) and not uses[issue.param] for uses in calls):
                # every `apply` in this module passes a temporary, a non-tensor, or a tensor
                # the caller never reads again: the changed value is never seen (TabNet's
                # sparsemax shift, RoPE kernels whose caller rebinds `Q`)
                continue
            if not calls and _RUNNING_STATISTIC.search(issue.param_name):
                # a Function this module only names (`bn = BNFunc.apply`, XMem's syncbn): its
                # `running_mean` / `running_var` inputs are a caller's buffers, which hold no
                # gradient; nothing here says what the callers pass
                continue
            yield Finding(self.code, issue.node, issue.message, issue.related)


# Inputs that by convention are a normalisation layer's statistics buffers.
_RUNNING_STATISTIC = re.compile(r"(?:^|_)(?:running|moving)_|num_batches_tracked")
