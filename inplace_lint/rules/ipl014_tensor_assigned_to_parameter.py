from __future__ import annotations

import re
from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.diagnostics import Severity
from inplace_lint.rules.base import Example, Rule

# Code that can make a parameter's name take a plain tensor legally: its own `__setattr__`,
# `del`/`_parameters` surgery (AWD-LSTM's weight drop), reparametrisations that turn `weight`
# into a computed attribute (`weight_norm`, `spectral_norm`, `parametrize`, `prune`).
_BYPASS = re.compile(
    r"__setattr__|__dict__|_parameters\b|delattr\(|\bdel\s+self\.|weight_norm|spectral_norm"
    r"|parametriz|\bprune\s*\.|import[^\n]*\bprune\b|remove_parameter"
)


def parameters_handled_by_hand(analysis: ModuleAnalysis) -> bool:
    """The module manages parameter registration itself (`__setattr__`, `_parameters`, weight
    norm, pruning, parametrizations): an assignment may well be legitimate there."""
    # (in code, not in comments: a comment saying that `__setattr__` raises is no bypass)
    return bool(_BYPASS.search(_COMMENT.sub("", analysis.module.code)))


_COMMENT = re.compile(r"#[^\n]*")


class TensorAssignedToParameter(Rule):
    """## What it does
    Finds `self.w = <tensor>` where `self.w` is a registered parameter of an `nn.Module` (or a
    Paddle `nn.Layer`) and the new value is a tensor, not a `Parameter`: the result of an op
    (`self.w * self.mask`, `F.softmax(self.w, 0)`, `self.w.detach()`), also `net.fc.weight = ...`
    on a submodule. An assignment made only under an option of the object (`if
    self.same_key_value:`) is IPL203's, unless the instance built in the module sets the option.
    Also `self.w += t` on a parameter that does not require grad (a frozen base weight) with a
    `t` that does, in grad mode (a LoRA merge without `no_grad`): the in-place add gives the
    parameter a graph, and the module refuses to store it back (`ValueError: Cannot assign
    non-leaf Tensor to parameter`).

    ## Why is this bad?
    A module's `__setattr__` refuses to replace a registered parameter with anything but a
    `Parameter` or `None`, at the line of the assignment:

        TypeError: cannot assign 'torch.FloatTensor' as parameter 'w' (torch.nn.Parameter or None expected)

    Paddle raises `TypeError: assignment to parameter 'w' should be of type Parameter or None`.
    It is typical of pruning masks, normalised mixing weights and statistics kept as
    parameters, written as if `self.w` were a plain attribute.

    ## Example
    ```python
    class MaskedLinear(nn.Linear):
        def forward(self, x):
            self.weight = self.weight * self.mask
            return F.linear(x, self.weight, self.bias)
    ```

    ## Use instead
    Keep the computed tensor in a local name (`weight = self.weight * self.mask`), change the
    parameter's values in place under `torch.no_grad()` (`self.weight.mul_(self.mask)`), or
    replace the parameter with `nn.Parameter(...)` (the optimizer then still holds the old one).

    Files that define `__setattr__`, edit `_parameters`, `del` attributes, or reparametrise
    weights (`weight_norm`, `spectral_norm`, `parametrize`, `prune`) are not checked: those can
    make such an assignment legal.
    """

    code = "IPL014"
    name = "tensor-assigned-to-parameter"
    severity = Severity.ERROR
    framework = None
    summary = "A plain tensor assigned to a module's registered parameter attribute"
    INVALID = (
        Example(
            "import torch\n"
            "import torch.nn as nn\n"
            "import torch.nn.functional as F\n"
            "class Mix(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.layer_weights = nn.Parameter(torch.ones(n))\n"
            "    def forward(self, layers):\n"
            "        self.layer_weights = F.softmax(self.layer_weights, dim=0)\n"
            "        return (self.layer_weights[:, None] * layers).sum(0)\n"
        ),
    )
    VALID = (
        Example(
            "import torch\n"
            "import torch.nn as nn\n"
            "import torch.nn.functional as F\n"
            "class Mix(nn.Module):\n"
            "    def __init__(self, n):\n"
            "        super().__init__()\n"
            "        self.layer_weights = nn.Parameter(torch.ones(n))\n"
            "    def forward(self, layers):\n"
            "        weights = F.softmax(self.layer_weights, dim=0)\n"
            "        return (weights[:, None] * layers).sum(0)\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        # (one made only under an option, `if self.same_key_value:`, is IPL203's)
        events = [r for r in analysis.rebinds if r.assign and r.condition is None]
        if not events or parameters_handled_by_hand(analysis):
            return
        for event in events:
            fw = event.tensor.fw
            if event.graph_gained:
                message = (
                    f"`{event.target_text}` is a registered parameter that does not require grad; "
                    f"`{analysis.code(event.node)}` adds a tensor that does, in grad mode: the "
                    "in-place op gives the parameter a graph, and the module then refuses to "
                    "store it back: ValueError: Cannot assign non-leaf Tensor to parameter. "
                    "Run it under `torch.no_grad()`"
                )
                yield Finding(self.code, event.node, message, framework=fw)
                continue
            if fw == "paddle":
                error = "TypeError: assignment to parameter ... should be of type Parameter or None"
                fix = "`set_value(...)` under `paddle.no_grad()`"
            else:
                error = "TypeError: cannot assign ... as parameter (torch.nn.Parameter or None expected)"
                fix = "an in-place update under `torch.no_grad()`"
            message = (
                f"`{event.target_text}` is a registered parameter; "
                f"`{analysis.code(event.node)}` assigns it a tensor that is not a Parameter, which "
                f"the module refuses: {error}. Keep the result in a local name, or use {fix}"
            )
            yield Finding(self.code, event.node, message, framework=fw)
