from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.events import Write
from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import _fixes
from inplace_lint.rules._messages import LEAF_ERROR, VIEW_OF_LEAF_ERROR
from inplace_lint.rules.base import Example, Rule


def leaf_write_kind(write: Write, speculative: bool = False) -> str | None:
    """ "leaf" / "view" when the write raises torch's leaf check, else None. A write in a method
    nothing in the module calls (`load_from(weights)`, whose caller in another file runs it under
    `no_grad`: TransUNet) promises nothing: None, unless ``speculative`` (IPL203's hedge)."""
    if write.fw != "torch" or not write.bumps_version or not write.effective_grad:
        return None
    if (write.speculative or write.condition is not None) and not speculative:
        return None  # (IPL203: a method nothing here calls, or a write under an option)
    if write.how in ("optimizer", "helper", "out"):
        return None  # optimizers run under no_grad; `out=` raises its own error first (IPL005)
    tensor = write.tensor
    if tensor.leaf and (tensor.view is None or write.full_slice):
        return "leaf"
    if tensor.view == "multi":
        return None  # `w.chunk(4)[1].fill_(1)`: torch raises the multi-view error first (IPL004)
    if tensor.view_of_leaf:
        return "leaf" if write.full_slice else "view"
    return None


def later_in_chain(write: Write, reported: set[tuple[int, str]]) -> bool:
    """A leaf write in a statement that already wrote the same tensor (`p.mul_(a).add_(b)`):
    the first write raises, so only it is reported. ``reported`` remembers the writes seen."""
    key = (id(write.stmt), str(write.tensor.storage))
    if write.stmt is not None and key in reported:
        return True
    reported.add(key)
    return False


def leaf_finding(
    code: str, analysis: ModuleAnalysis, write: Write, kind: str, speculative: bool = False
) -> Finding:
    """IPL002 / IPL003's finding; ``speculative``: IPL203's, for the same write in a method
    nothing in the module calls (``leaf_write_kind``)."""
    target = _fixes.target_name(write)
    producer = write.tensor.producer or "a leaf tensor"
    error = LEAF_ERROR if kind == "leaf" else VIEW_OF_LEAF_ERROR
    what = (
        "is a leaf that requires grad"
        if kind == "leaf"
        else "is a view of a leaf that requires grad"
    )
    op = write.op_text or "the write"
    fix = _fixes.wrap_no_grad(analysis, write, "torch")
    if speculative:
        when = (
            f"when `{write.condition}` holds, it raises"
            if write.condition
            else "if this method runs with grad (nothing in this module calls it), it raises"
        )
        message = (
            f"`{target}` {what}; {op} changes it in place: {when} {error} Wrap it in "
            "`with torch.no_grad():`"
        )
        return Finding(code, write.node, message, [], fix, framework="torch")
    related = []
    origin = ""
    if write.tensor.producer_node is not None:
        related.append((f"{producer} creates the leaf here", write.tensor.producer_node))
        origin = f" (created by {producer} on line {line_of(0)})"
    remedy = (
        # the value written comes from the graph: a computation, not an update; under no_grad
        # its gradient would be lost
        _fixes.advice(analysis, write)
        if _fixes.computes_with_graph(write)
        else "Wrap updates and initialisation in `with torch.no_grad():`"
    )
    message = f"`{target}` {what}{origin}; {op} changes it in place while grad mode is on: {error} {remedy}"
    return Finding(code, write.node, message, related, fix, framework="torch")


class LeafInplace(Rule):
    """## What it does
    Finds an in-place write to a leaf tensor that requires grad (`torch.randn(...,
    requires_grad=True)`, `nn.Parameter`, a module's `weight`/`bias`, the `p` of
    `for p in model.parameters()`) while grad mode is on. A write made only under an option of
    the object (`if self.bias_uniform_init:`) is IPL203's, unless the instance built in the
    module sets the option.

    ## Why is this bad?
    PyTorch refuses at once, at the line of the write:

        RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.

    ## Example
    ```python
    for p in model.parameters():
        p.add_(-lr * p.grad)
    ```

    ## Use instead
    ```python
    with torch.no_grad():
        for p in model.parameters():
            p.add_(-lr * p.grad)
    ```

    ## Fix safety
    Wrapping the statement in `with torch.no_grad():` is right for updates and initialisation but
    would hide a write that was meant to be differentiated, so it is unsafe.
    """

    code = "IPL002"
    name = "leaf-inplace"
    severity = Severity.ERROR
    summary = "In-place write to a leaf tensor that requires grad"
    fix_applicability = "unsafe"
    INVALID = (
        Example(
            "import torch\nw = torch.zeros(3, requires_grad=True)\nw.add_(1)\n",
        ),
    )
    VALID = (
        Example(
            "import torch\n"
            "w = torch.zeros(3, requires_grad=True)\n"
            "with torch.no_grad():\n"
            "    w.add_(1)\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        reported: set[tuple[int, str]] = set()  # (statement, storage)
        for write in analysis.writes:
            if leaf_write_kind(write) == "leaf" and not later_in_chain(write, reported):
                yield leaf_finding(self.code, analysis, write, "leaf")
