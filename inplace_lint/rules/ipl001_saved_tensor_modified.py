from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.events import SequentialAdjacency, Write
from inplace_lint.analysis.findings import Finding, FixPlan
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.analysis.values import PARAMETER_LOOP_PRODUCER
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import _fixes
from inplace_lint.rules._messages import VERSION_ERROR, quote
from inplace_lint.rules.base import Example, Rule


def version_checked_saves(write: Write) -> list:
    """Saves a later backward reaches and that the version counter guards."""
    return [s for s in write.confirmed_saves() if s.what != "ctx attribute"]


def is_leaf_error(write: Write) -> bool:
    """The write raises at once (leaf, view of leaf, multi-output view, out=), before backward."""
    tensor = write.tensor
    if not write.effective_grad:
        return False
    if write.how == "out":
        return True
    multi = tensor.view == "multi" and tensor.multi_base_requires_grad is not False
    return tensor.leaf or tensor.view_of_leaf or multi


def is_parameter_update(write: Write) -> bool:
    return write.how == "optimizer" or (
        write.tensor.parameter
        # a loop over a frozen module's parameters (an EMA teacher) updates parameters too
        and (write.tensor.requires_grad is True or write.tensor.producer == PARAMETER_LOOP_PRODUCER)
        and all(
            s.what.startswith(("parameter", "parameters")) for s in version_checked_saves(write)
        )
    )


class SavedTensorModified(Rule):
    """## What it does
    Finds an in-place write (`x += y`, `x.add_(y)`, `x[i] = v`, `F.relu(x, inplace=True)`,
    `nn.ReLU(inplace=True)`, `out=x`) to a tensor that an earlier op saved for its backward, when a
    later `backward()` (or the caller, for a `forward`) runs through that op. In a container
    (`nn.Sequential(nn.Sigmoid(), nn.ReLU(inplace=True))`) the in-place layer right after a layer
    that saves its output is reported at its constructor: always when the container is not called
    in the file, else when a call gives it a tensor that may require grad and a backward (or a
    return) then runs through the container.

    ## Why is this bad?
    Autograd checks every saved tensor's version counter when backward reaches the op that saved it.
    The write bumped the counter, so backward raises:

        RuntimeError: one of the variables needed for gradient computation has been modified by an
        inplace operation: [torch.FloatTensor [4, 8]], which is output 0 of SigmoidBackward0, is at
        version 1; expected version 0 instead.

    The message names neither the line of the write nor the op that saved the tensor. Which op
    saves what comes from PyTorch's `derivatives.yaml`: `sigmoid`, `tanh`, `exp`, `relu` and
    `softmax` save their output; `mul`, `mm`, `Linear` and `conv` save their inputs (`mul` only when
    the other operand requires grad); `add`, `cat` and `view` save nothing.

    ## Example
    ```python
    h = torch.sigmoid(x @ w)
    h += 1
    h.sum().backward()
    ```

    ## Use instead
    ```python
    h = torch.sigmoid(x @ w)
    h = h + 1
    h.sum().backward()
    ```

    ## Fix safety
    Rebinding (`h = h + 1`, `h = h.add(1)`, `inplace=False`) is safe when no other name refers to
    the tensor; otherwise those names would stop seeing the update, so the fix is unsafe. Cloning
    before a slice write is always offered as unsafe.
    """

    code = "IPL001"
    name = "saved-tensor-modified"
    severity = Severity.ERROR
    summary = "In-place write to a tensor that an earlier op saved for backward"
    fix_applicability = "safe"
    INVALID = (
        Example(
            "import torch\n"
            "w = torch.randn(3, requires_grad=True)\n"
            "h = torch.sigmoid(w * 2)\n"
            "h += 1\n"
            "h.sum().backward()\n",
            "import torch\n"
            "w = torch.randn(3, requires_grad=True)\n"
            "h = torch.sigmoid(w * 2)\n"
            "h = h + 1\n"
            "h.sum().backward()\n",
        ),
    )
    VALID = (
        Example(
            "import torch\n"
            "w = torch.randn(3, requires_grad=True)\n"
            "h = w * 2 + 1\n"
            "h += 1\n"
            "h.sum().backward()\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        for write in analysis.writes:
            if write.fw != "torch" or not write.bumps_version or runs_without_grad(write):
                continue
            if write.judged_by_caller:
                continue
            if write.conditional:
                continue  # IPL203: raises only in a configuration or context we cannot see
            saves = version_checked_saves(write)
            if not saves or is_leaf_error(write) or is_parameter_update(write):
                continue
            yield saved_tensor_finding(self.code, analysis, write, saves)
        for adjacent in analysis.adjacency:
            if adjacent.fw != "torch" or adjacent.condition:
                continue  # a conditional write (dropout of unknown rate): IPL203
            message = adjacency_message(adjacent)
            fix = None
            if adjacent.keyword_node is not None:
                import libcst as cst

                fix = FixPlan(
                    "Pass `inplace=False`", [(adjacent.keyword_node.value, cst.Name("False"))]
                )
            yield Finding(
                self.code,
                adjacent.node,
                message,
                [(f"`{adjacent.previous_text}` saves its output", adjacent.previous_node)],
                fix,
            )


def adjacency_message(adjacent: SequentialAdjacency) -> str:
    """An in-place child right after a module that saves its output; IPL203 says when
    (``adjacent.condition``), IPL001 that it always raises."""
    head = (
        f"`{adjacent.child_text}` overwrites the output of `{adjacent.previous_text}` (line "
        f"{line_of(0)}), which that module saved for backward: "
    )
    if adjacent.condition is None:
        return head + VERSION_ERROR
    when = f"when `{adjacent.condition}` holds, backward raises {VERSION_ERROR}"
    return f"{head}{when}. Pass `inplace=False`."


def runs_without_grad(write: Write) -> bool:
    """Every caller runs this function without grad, so its ops saved nothing."""
    return write.guarded_by_caller and not write.grad_explicit


def saved_tensor_finding(code: str, analysis: ModuleAnalysis, write: Write, saves: list) -> Finding:
    save = saves[0]
    target = _fixes.target_name(write)
    op = quote(write.op_text or analysis.code(write.node))
    message = (
        f"{quote(target)} was saved by {quote(save.op)} on line {line_of(0)} (as its {save.what}); "
        f"{op} changes it in place before backward: {VERSION_ERROR}. {_fixes.advice(analysis, write)}"
    )
    related = [(f"{quote(s.op)} saved `{target}` ({s.what}) here", s.node) for s in saves]
    if write.callee_node is not None:
        related.append(("the function doing the write is called here", write.callee_node))
    fix = _fixes.out_of_place(analysis, write)
    if fix is None and write.how in ("setitem", "aug-setitem"):
        fix = _fixes.clone_before(analysis, write)
    return Finding(code, write.node, message, related, fix, framework=write.fw)
