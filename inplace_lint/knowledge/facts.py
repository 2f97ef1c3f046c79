"""The shapes in which autograd knowledge reaches the analysis.

The tables behind them are data: generated from PyTorch's own ``derivatives.yaml`` /
``native_functions.yaml`` (torch) or read off an installed framework (paddle), plus a small
hand-kept surface map whose every entry is proven by a runtime test. The analysis only ever sees
these frozen dataclasses, never the raw tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A save condition: ``ALWAYS`` means the tensor is saved whenever the op records a backward node
# (that is, whenever any differentiable input requires grad); otherwise a tuple of parameter names,
# and the tensor is saved only if at least one of those parameters requires grad.
ALWAYS: tuple[str, ...] = ()


@dataclass(frozen=True)
class OpFacts:
    """What one Python-level callable does to autograd state, in Python parameter names.

    ``params`` lists the positional parameter names in call order. For a Tensor method the receiver
    is the first entry (``"self"`` in torch, ``"x"`` in paddle), so ``a.mul(b)`` binds
    ``self=a, other=b``; for a binary operator ``a * b`` the left operand is the first entry.
    """

    name: str  # canonical op name, e.g. "sigmoid", "addmm", "relu_"
    params: tuple[str, ...]
    # param -> condition (ALWAYS or params whose requires-grad triggers the save)
    saves: dict[str, tuple[str, ...]] = field(default_factory=dict)
    saves_output: bool = False
    inplace_param: str | None = None  # the parameter written in place (method `_`, inplace=True)
    inplace_saves_clone: bool = False  # the in-place variant saved a clone of its input first
    view_of: str | None = None  # result is a view of this parameter
    multi_view_of: str | None = None  # result is a sequence of views of this parameter
    # result is no autograd view but shares this parameter's storage and version counter (detach):
    # a write through it bumps the version seen by the parameter's saves, but is no view-of-leaf write
    version_alias_of: str | None = None
    out_param: str | None = None  # name of the out= keyword when the op accepts one
    differentiable: bool = True  # False: result never requires grad (argmax, comparisons, ...)
    nondiff_outputs: tuple[int, ...] = ()  # outputs that never require grad (indices of topk, ...)
    returns_tensor: bool = True
    # a tuple of tensors (`out, (h, c) = lstm(x)`): its nesting, as names of the outputs; the first
    # one is the output `saves_output` speaks of, the others are fresh tensors nothing saves
    result: tuple | None = None


@dataclass(frozen=True)
class ModuleFacts:
    """What calling an ``nn.Module`` / ``paddle.nn.Layer`` instance does, given its constructor.

    The module's own parameters count as requiring grad (they do unless frozen), so ``call``
    is already specialised: e.g. Conv2d saves its input, Linear saves its input (weight requires
    grad), ReLU saves its output, Dropout saves only its mask.
    """

    name: str  # e.g. "torch.nn.ReLU"
    call: OpFacts  # facts of module(x) with the constructor's keywords taken into account
    has_parameters: bool = False  # weight/bias are leaves that require grad
    # buffers written in place by a training-mode call, and saved by it (BatchNorm running stats)
    inplace_buffers: tuple[str, ...] = ()
    # module attributes (tensors) the call saves, e.g. "weight"; a pattern ("weight*") for those
    # whose names depend on the constructor (nn.LSTM's weight_ih_l0, weight_hh_l1_reverse ...)
    saved_attributes: tuple[str, ...] = ()
    # (attribute, inputs): a saved attribute kept only when one of these inputs requires grad
    # (Linear's weight: the input's gradient needs it); attributes not listed are saved always
    attribute_triggers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    container: bool = False  # nn.Sequential / ModuleList: analysed by adjacency, not as one op
    # the inputs' saves when the module's parameters do not require grad (`requires_grad_(False)`:
    # a frozen Linear saves no input, only what the input's gradient needs); None: as ``call``'s
    frozen_saves: dict[str, tuple[str, ...]] | None = None


def named_keywords(keywords: dict, init: list[str]) -> dict[str, object]:
    """Constructor keywords by name: positional ones (keys 0, "0", ...) named from `init`, the
    constructor's parameter order; positions past it are dropped."""
    named: dict[str, object] = {}
    for key, value in keywords.items():
        name = key
        if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
            index = int(key)
            if index >= len(init):
                continue
            name = init[index]
        named[str(name)] = value
    return named
