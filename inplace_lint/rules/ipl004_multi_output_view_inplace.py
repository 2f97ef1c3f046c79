from __future__ import annotations

from collections.abc import Iterator

from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.model import ModuleAnalysis, line_of
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import _fixes
from inplace_lint.rules._messages import (
    CUSTOM_FUNCTION_VIEW_ERROR,
    HOOK_VIEW_ERROR,
    MULTI_VIEW_ERROR,
    STALE_VIEW_ERROR,
)
from inplace_lint.rules.base import Example, Rule
from inplace_lint.rules.ipl002_leaf_inplace import leaf_write_kind


class MultiOutputViewInplace(Rule):
    """## What it does
    Finds an in-place write to one of the outputs of `split`, `chunk`, `unbind` or
    `tensor_split` of a tensor that requires grad, while grad mode is on, or to the output of a
    custom `autograd.Function` that returns its input as is or a view. Also finds a write,
    in any grad mode, to the memory of such outputs (their input, or one of them under
    `torch.no_grad()`) when one of the outputs is used afterwards in grad mode.

    ## Why is this bad?
    These functions return several views of one tensor; autograd cannot rebase one of them, so the
    write raises at once:

        RuntimeError: Output 0 of SplitBackward0 is a view and is being modified inplace. This view
        is the output of a function that returns multiple views. Such functions do not allow the
        output views to be modified inplace.

    A write to their input, or to one of them where grad mode is off, is allowed, but the views'
    graph can no longer be rebuilt: the next use of any of them in grad mode raises

        RuntimeError: Output 0 of Unbind is a view and its base or another view of its
        base has been modified inplace. This view is the output of a function that returns
        multiple views. Such functions do not allow the output views to be modified inplace.

    The output of a custom `torch.autograd.Function` whose `forward` returns one of its inputs
    as is (without `ctx.mark_dirty`), or a view of a tensor it made (`return out.view(n, -1)`),
    is such a view too, and writing it in place raises at once:

        RuntimeError: Output 0 of CustomOpBackward is a view and is being modified inplace. This
        view was created inside a custom Function (or because an input was returned as-is) ...

    So are the inputs and outputs of a module with a full backward hook
    (`m.register_full_backward_hook(h)`, `register_full_backward_pre_hook`): in grad mode torch
    passes them through `BackwardHookFunction`. A hooked `nn.ReLU(inplace=True)` writing its
    input, or an in-place op on the hooked layer's output, raises
    `Output 0 of BackwardHookFunctionBackward is a view and is being modified inplace`
    (pytorch#61519). Use `inplace=False` there, or `.clone()` the output.

    ## Example
    ```python
    q, k, v = qkv.chunk(3, dim=-1)
    q *= scale
    ```

    ## Use instead
    ```python
    q, k, v = qkv.chunk(3, dim=-1)
    q = q * scale
    ```

    ## Fix safety
    Rebinding is safe when no other name refers to the view.
    """

    code = "IPL004"
    name = "multi-output-view-inplace"
    severity = Severity.ERROR
    summary = "In-place write to an output of split/chunk/unbind"
    fix_applicability = "safe"
    INVALID = (
        Example(
            "import torch\n"
            "qkv = torch.randn(2, 6, requires_grad=True) * 1\n"
            "q, k, v = qkv.chunk(3, dim=-1)\n"
            "q *= 0.5\n",
            "import torch\n"
            "qkv = torch.randn(2, 6, requires_grad=True) * 1\n"
            "q, k, v = qkv.chunk(3, dim=-1)\n"
            "q = q * 0.5\n",
        ),
    )
    VALID = (
        Example(
            "import torch\nqkv = torch.randn(2, 6)\nq, k, v = qkv.chunk(3, dim=-1)\nq *= 0.5\n"
        ),
    )

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        reported: set[tuple[int, str]] = set()  # (statement, storage)
        for write in analysis.writes:
            if write.stale_view_use is not None and write.fw == "torch":
                yield self._stale_use(write)
                continue
            tensor = write.tensor
            if write.fw != "torch" or tensor.view != "multi" or not write.bumps_version:
                continue
            if tensor.multi_base_requires_grad is not True or not write.effective_grad:
                continue
            if leaf_write_kind(write) is not None:
                continue  # the leaf check fires first
            key = (id(write.stmt), str(tensor.storage))
            if write.stmt is not None and key in reported:
                continue  # `row.mul_(s).add_(m)`: the first write already raises
            reported.add(key)
            target = _fixes.target_name(write)
            custom = tensor.custom_function_view
            related = []
            line = ""
            if tensor.backward_hook is not None:
                related.append((f"{tensor.producer} is handed on here", tensor.producer_node))
            elif tensor.producer_node is not None:
                does = "returns an input as is or a view" if custom else "returns several views"
                related.append((f"{tensor.producer} {does} here", tensor.producer_node))
                line = f" on line {line_of(0)}"
            writes = f"{write.op_text or 'the write'} modifies it in place"
            if tensor.backward_hook is not None:
                related.append(("the full backward hook is registered here", tensor.backward_hook))
                message = (
                    f"{write.op_text or 'the write'} writes {tensor.producer} in place, a module "
                    f"with a full backward hook (registered on line {line_of(len(related) - 1)}): "
                    "torch hands that module's tensors on through BackwardHookFunction, whose "
                    f"outputs are views: {HOOK_VIEW_ERROR}"
                )
            elif custom:
                message = (
                    f"`{target}` comes from a custom autograd.Function whose forward returns an "
                    f"input as is or a view ({tensor.producer}{line}), which autograd makes a view "
                    "no in-place op may touch; "
                    f"{writes}: {CUSTOM_FUNCTION_VIEW_ERROR}"
                )
            else:
                origin = f" (from {tensor.producer}{line})" if line else ""
                message = (
                    f"`{target}` is one of several views returned by one call{origin}; "
                    f"{writes}: {MULTI_VIEW_ERROR}"
                )
            yield Finding(
                self.code, write.node, message, related, _fixes.out_of_place(analysis, write)
            )

    def _stale_use(self, write) -> Finding:
        related = [("one of the views is used here", write.stale_view_use)]
        origin = ""
        if write.stale_view_producer_node is not None:
            related.append(
                (
                    f"{write.stale_view_producer} returns several views here",
                    write.stale_view_producer_node,
                )
            )
            origin = f" returned by {write.stale_view_producer} on line {line_of(1)}"
        message = (
            f"{write.op_text or 'the write'} changes the memory of the views{origin}; "
            f"their next use, on line {line_of(0)}, raises {STALE_VIEW_ERROR}"
        )
        return Finding(self.code, write.node, message, related, None)
