from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import _fixes
from inplace_lint.rules._messages import (
    PADDLE_LEAF_ERROR,
    PADDLE_VERSION_ERROR,
    VERSION_ERROR,
    quote,
)
from inplace_lint.rules.base import Example, Rule
from inplace_lint.rules.ipl001_saved_tensor_modified import (
    adjacency_message,
    is_leaf_error,
    runs_without_grad,
    version_checked_saves,
)
from inplace_lint.rules.ipl002_leaf_inplace import later_in_chain, leaf_finding, leaf_write_kind
from inplace_lint.rules.ipl011_paddle_leaf_inplace import paddle_leaf_write
from inplace_lint.rules.ipl014_tensor_assigned_to_parameter import parameters_handled_by_hand


class ConditionalSavedTensorModified(Rule):
    """## What it does
    Finds the write of IPL001 / IPL006 / IPL012 (an in-place write to a tensor an op saved, before
    a backward through it) when it happens only under an option of the object
    (`if self.norm_topk_prob:`), when the op saved the tensor only on one side of such an option
    (an in-place activation's output that `if self.dropout: out = self.dp(out)` usually
    replaces before `out += identity`), or in a method that no `forward` and nothing else in the
    module calls (an inference-only path such as `self.forward = self.forward_slicing`); and the
    write of IPL002 / IPL003 / IPL011 (a leaf changed in place in grad mode) in such a method,
    whose callers elsewhere may run it under `no_grad` (a `load_from(weights)`), or under such an
    option (`if not dcn_head: self.heatmap.bias[:] = -2.19` with `dcn_head=True` by default), or
    written after a copy replaced it on one path only (`if using_gpu: out = out.cuda()` leaves the
    leaf on a CPU run; `leaf.to(device)` is the leaf itself on its own device); and
    IPL014's assignment of a plain tensor to a registered parameter under such an option. A test
    of a tensor's shape (`if x.shape[2] == 1:`, `if mu.size() == (k, d):`, `x.dim() == 4`) counts
    as such an option: the write happens for some inputs only. Where the instance built in the
    module takes the failing path, the error itself (IPL001, IPL002, ...) is reported instead.

    ## Why is this bad?
    Whenever that branch or method runs with grad, backward raises
    `RuntimeError: one of the variables needed for gradient computation has been modified by an
    inplace operation`. The default configuration may never take it, so it is a warning: one
    setting away from failing, not a promise.

    ## Example
    ```python
    routing_weights = F.softmax(scores, dim=-1)
    if self.norm_topk_prob:
        routing_weights /= routing_weights.sum(dim=-1, keepdim=True)
    ```

    ## Use instead
    ```python
    routing_weights = F.softmax(scores, dim=-1)
    if self.norm_topk_prob:
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
    ```

    ## Fix safety
    As IPL001: rebinding is safe when no other name refers to the tensor.
    """

    code = "IPL203"
    name = "conditional-saved-tensor-modified"
    severity = Severity.WARNING
    framework = None
    summary = (
        "In-place write (to a saved tensor, a leaf) on a path taken only in some configurations"
    )
    fix_applicability = "safe"
    INVALID = (
        Example(
            "import torch\n"
            "from torch import nn\n"
            "class Router(nn.Module):\n"
            "    def __init__(self, norm):\n"
            "        super().__init__()\n"
            "        self.gate = nn.Linear(4, 4)\n"
            "        self.norm = norm\n"
            "    def forward(self, x):\n"
            "        w = torch.softmax(self.gate(x), -1)\n"
            "        if self.norm:\n"
            "            w /= w.sum(-1, keepdim=True)\n"
            "        return w\n",
            "import torch\n"
            "from torch import nn\n"
            "class Router(nn.Module):\n"
            "    def __init__(self, norm):\n"
            "        super().__init__()\n"
            "        self.gate = nn.Linear(4, 4)\n"
            "        self.norm = norm\n"
            "    def forward(self, x):\n"
            "        w = torch.softmax(self.gate(x), -1)\n"
            "        if self.norm:\n"
            "            w = w / w.sum(-1, keepdim=True)\n"
            "        return w\n",
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        leaves: set[tuple[int, str]] = set()  # (statement, storage) of the leaf writes reported
        for write in analysis.writes:
            if not write.conditional or not write.bumps_version or write.judged_by_caller:
                continue
            if runs_without_grad(write):
                continue
            if kind := leaf_write_kind(write, speculative=True):
                # a leaf written in grad mode in such a method, or under an option (a chain's
                # first write only, as IPL002)
                if not later_in_chain(write, leaves):
                    yield leaf_finding(self.code, analysis, write, kind, speculative=True)
                continue
            if write.condition is not None and paddle_leaf_write(write):
                # IPL011's write, made only under an option (`if self.joint:` in `__init__`)
                message = (
                    f"`{write.target_text}` is a trainable Paddle leaf; {write.op_text} writes it "
                    f"in place outside `paddle.no_grad()`: when `{write.condition}` holds, it "
                    f"raises {PADDLE_LEAF_ERROR}"
                )
                fix = _fixes.wrap_no_grad(analysis, write, "paddle")
                yield Finding(self.code, write.node, message, [], fix, framework="paddle")
                continue
            if is_leaf_error(write):
                continue
            saves = version_checked_saves(write)
            if not saves:
                continue
            save = saves[0]
            target = _fixes.target_name(write)
            error = PADDLE_VERSION_ERROR if write.fw == "paddle" else VERSION_ERROR
            where = (
                f"when `{write.condition}` holds"
                if write.condition
                else "if this method runs with grad (no forward in this module calls it)"
            )
            message = (
                f"{quote(target)} was saved by {quote(save.op)} on line {line_of(0)} (as its {save.what}); "
                f"{quote(write.op_text or analysis.code(write.node))} changes it in place: {where}, "
                f"backward raises {error}. {_fixes.advice(analysis, write)}"
            )
            related = [(f"{quote(s.op)} saved `{target}` here", s.node) for s in saves]
            fix = _fixes.out_of_place(analysis, write)
            yield Finding(self.code, write.node, message, related, fix, framework=write.fw)
        bypass = None
        for event in analysis.rebinds:
            if not event.assign or event.condition is None:
                continue
            if bypass is None:
                bypass = parameters_handled_by_hand(analysis)
            if bypass:
                break
            # IPL014's assignment, made only under an option (`if self.same_key_value:`)
            if event.graph_gained:
                message = (
                    f"`{event.target_text}` is a registered parameter that does not require "
                    f"grad; `{analysis.code(event.node)}` adds a tensor that does: when "
                    f"`{event.condition}` holds, in grad mode, the parameter gets a graph and the "
                    "module refuses to store it back (ValueError: Cannot assign non-leaf Tensor "
                    "to parameter). Run it under `torch.no_grad()`"
                )
                yield Finding(self.code, event.node, message, framework=event.tensor.fw)
                continue
            message = (
                f"`{event.target_text}` is a registered parameter; "
                f"`{analysis.code(event.node)}` assigns it a tensor that is not a Parameter: when "
                f"`{event.condition}` holds, the module refuses it with a TypeError. Keep the "
                "result in a local name, or update the parameter in place under `no_grad`"
            )
            yield Finding(self.code, event.node, message, framework=event.tensor.fw)
        for adjacent in analysis.adjacency:
            if adjacent.fw != "torch" or not adjacent.condition:
                continue
            related = [(f"`{adjacent.previous_text}` saves its output", adjacent.previous_node)]
            message = adjacency_message(adjacent)
            yield Finding(self.code, adjacent.node, message, related, framework=adjacent.fw)
