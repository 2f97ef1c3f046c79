from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules._messages import VERSION_ERROR, quote
from inplace_lint.rules.base import Example, Rule
from inplace_lint.rules.ipl001_saved_tensor_modified import (
    is_leaf_error,
    is_parameter_update,
    version_checked_saves,
)


class UpdateBeforeBackward(Rule):
    """## What it does
    Finds `optimizer.step()` (or another in-place update of parameters, even under
    `torch.no_grad()`) between a forward pass that saved those parameters and a later `backward()`
    through that forward pass: the GAN ordering bug.

    ## Why is this bad?
    The step bumps the parameters' version counters; the second backward finds them changed:

        RuntimeError: one of the variables needed for gradient computation has been modified by an
        inplace operation: [torch.FloatTensor [1, 64]], which is output 0 of TBackward0, is at
        version 2; expected version 1 instead.

    `no_grad` does not help: it escapes the leaf check, not the version check.

    The step, the backwards and the forward may be spread over the methods of a class, as GAN
    code does: `optimize_parameters` calling `self.forward()`, `self.backward_G()`,
    `self.optimizer_G.step()` and `self.backward_D()` (methods called with no argument are
    followed into), or an update method called after `model(x)` that reads what `forward` left on
    `self`. A step only counts for parameters that have a gradient at that point. A recurrent
    state kept on the module (`self.h = self.cell(x, self.h)`, not detached) carries one batch's
    forward into the next: with `retain_graph=True`, the next backward runs through it too.

    ## Example
    ```python
    d_loss.backward(retain_graph=True)
    opt_d.step()
    g_loss.backward()   # g_loss went through D before the step
    ```

    ## Use instead
    ```python
    d_loss.backward(retain_graph=True)
    g_loss.backward()
    opt_d.step()
    ```
    or recompute the generator's forward through `D` after the step.
    """

    code = "IPL006"
    name = "update-before-backward"
    severity = Severity.ERROR
    summary = "Parameter update between a forward pass and a later backward through it"
    INVALID = (
        Example(
            "import torch\n"
            "from torch import nn\n"
            "D = nn.Linear(4, 1)\n"
            "opt = torch.optim.SGD(D.parameters(), lr=0.1)\n"
            "x = torch.randn(2, 4, requires_grad=True)\n"
            "out = D(x)\n"
            "a = out.mean()\n"
            "b = out.sum()\n"
            "a.backward(retain_graph=True)\n"
            "opt.step()\n"
            "b.backward()\n"
        ),
    )
    VALID = (
        Example(
            "import torch\n"
            "from torch import nn\n"
            "D = nn.Linear(4, 1)\n"
            "opt = torch.optim.SGD(D.parameters(), lr=0.1)\n"
            "x = torch.randn(2, 4, requires_grad=True)\n"
            "loss = D(x).sum()\n"
            "loss.backward()\n"
            "opt.step()\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if write.fw != "torch" or not write.bumps_version or is_leaf_error(write):
                continue
            if write.conditional:
                continue  # IPL203
            saves = version_checked_saves(write)
            if not saves or not is_parameter_update(write):
                continue
            save = saves[0]
            owner = write.tensor.param_of or "the model"
            message = (
                f"{write.op_text} updates the parameters of `{owner}` in place, but {quote(save.op)} on line "
                f"{line_of(0)} saved them and a later backward runs through it: {VERSION_ERROR}. "
                "Run every backward through that forward before the update, or recompute the forward "
                "after it"
            )
            related = [(f"{quote(s.op)} saved the parameters here", s.node) for s in saves]
            if write.callee_node is not None and write.callee_node is not write.node:
                # an update inside a function or optimizer class of this module: where it is called
                related.append(("the call that runs this update", write.callee_node))
            yield Finding(self.code, write.node, message, related)
