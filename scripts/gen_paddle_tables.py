"""Generate ``inplace_lint/knowledge/paddle_api.json`` from the installed PaddlePaddle, by running it.

Nothing in the output is typed from memory:

* the in-place API surface (``paddle.Tensor`` methods, ``paddle.*`` and
  ``paddle.nn.functional.*`` names ending in a single ``_``) and every parameter list are read off
  the installed package with ``inspect``;
* which tensors an op saves is *measured*: the op runs under every combination of which inputs
  require grad, then one input (or the output) is written in place and backward runs; Paddle's
  ``(PermissionDenied) ... modified by an inplace operation`` means that tensor was saved;
* the facts that make Paddle differ from PyTorch (augmented assignment rebinds, ``__setitem__`` is
  in place, ``opt.step()`` / ``copy_`` / ``set_value`` leave the version counter alone, no
  view-of-leaf check, ...) are each checked by running.

Run ``python scripts/gen_paddle_tables.py`` to rewrite the table, ``--check`` to compare it with the
committed one. The output is deterministic: the same Paddle version gives the same bytes.
"""

from __future__ import annotations

import os

os.environ.setdefault("GLOG_minloglevel", "2")  # Paddle's C++ logs each failing backward node

import argparse
import contextlib
import inspect
import io
import itertools
import json
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

warnings.filterwarnings("ignore")
with contextlib.redirect_stderr(io.StringIO()):
    import numpy as np
    import paddle
    import paddle.nn.functional as F
    from paddle import nn

OUTPUT = Path(__file__).resolve().parents[1] / "inplace_lint" / "knowledge" / "paddle_api.json"
FUNCTIONAL = "paddle.nn.functional"
VERSION_ERROR = "(PermissionDenied)"
LEAF_ERROR = "(InvalidArgument) Leaf"


# --------------------------------------------------------------------------------------------
# Probe specifications: how to call an op with small tensors.


@dataclass(frozen=True)
class Int:
    """An integer index tensor: values in ``[0, high)``."""

    shape: tuple[int, ...]
    high: int


@dataclass(frozen=True)
class Bool:
    """A boolean mask tensor."""

    shape: tuple[int, ...]


@dataclass(frozen=True)
class TupleOf:
    """A tuple of tensors (``index_put_`` crashes on a list)."""

    items: tuple[Any, ...]


Shape = tuple[int, ...]
TensorSpec = Shape | Int | Bool | TupleOf | list[Shape]

S = (3, 3)  # default operand shape: every elementwise op is probed on 3x3 values in (0.1, 0.9)


@dataclass(frozen=True)
class Probe:
    """One way to call an op: tensor parameters in positional order, then other arguments."""

    qualname: str  # "paddle.multiply", "paddle.nn.functional.linear"
    tensors: dict[str, TensorSpec]
    kwargs: dict[str, Any] = field(default_factory=dict)
    constant: tuple[str, ...] = ()  # tensor parameters that never require grad (running stats)
    written: str | None = None  # for an in-place op: the parameter it writes (default: the first)

    @property
    def target(self) -> str:
        return self.written or next(iter(self.tensors))

    @property
    def short(self) -> str:
        return self.qualname.rsplit(".", 1)[1]


def _p(qualname: str, tensors: dict[str, TensorSpec] | None = None, **kwargs: Any) -> Probe:
    constant = kwargs.pop("_constant", ())
    return Probe(qualname, tensors if tensors is not None else {"x": S}, kwargs, constant)


UNARY_PADDLE = [
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "ceil",
    "cos",
    "cosh",
    "digamma",
    "erf",
    "erfinv",
    "exp",
    "expm1",
    "floor",
    "frac",
    "i0",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "logit",
    "neg",
    "reciprocal",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sinc",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
    "clone",
    "assign",
    "cumsum",
    "cumprod",
    "flatten",
    "squeeze",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "logsumexp",
    "nan_to_num",
    "numel",
    "argmax",
    "t",
]

UNARY_FUNCTIONAL = [
    "relu",
    "relu6",
    "silu",
    "swish",
    "elu",
    "selu",
    "celu",
    "gelu",
    "leaky_relu",
    "softplus",
    "softsign",
    "hardswish",
    "hardsigmoid",
    "hardtanh",
    "hardshrink",
    "softshrink",
    "tanhshrink",
    "mish",
    "sigmoid",
    "tanh",
    "log_sigmoid",
    "thresholded_relu",
    "tanh",
]

BINARY_PADDLE = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "atan2",
    "hypot",
    "copysign",
    "floor_divide",
    "remainder",
    "mod",
    "floor_mod",
    "equal",
    "not_equal",
    "greater_than",
    "greater_equal",
    "less_than",
    "less_equal",
    "ldexp",
]

# The op list the brief names, plus their usual neighbours; anything with extra arguments is spelled out.
PROBES: list[Probe] = [
    *[_p(f"paddle.{n}") for n in UNARY_PADDLE],
    *[_p(f"{FUNCTIONAL}.{n}") for n in UNARY_FUNCTIONAL],
    *[_p(f"paddle.{n}", {"x": S, "y": S}) for n in BINARY_PADDLE],
    _p("paddle.matmul", {"x": (3, 4), "y": (4, 2)}),
    _p("paddle.mm", {"input": (3, 4), "mat2": (4, 2)}),
    _p("paddle.bmm", {"x": (2, 3, 4), "y": (2, 4, 2)}),
    _p("paddle.dot", {"x": (4,), "y": (4,)}),
    _p("paddle.outer", {"x": (3,), "y": (4,)}),
    _p("paddle.addmm", {"input": (3, 2), "x": (3, 4), "y": (4, 2)}),
    _p("paddle.pow", {"x": S, "y": S}),
    _p("paddle.lerp", {"x": S, "y": S, "weight": S}),
    _p("paddle.clip", min=0.3, max=0.7),
    _p("paddle.scale", scale=2.0, bias=1.0),
    _p("paddle.concat", {"x": [S, S]}, axis=0),
    _p("paddle.stack", {"x": [S, S]}, axis=0),
    _p("paddle.reshape", shape=[9]),
    _p("paddle.transpose", perm=[1, 0]),
    _p("paddle.unsqueeze", axis=0),
    _p("paddle.expand", {"x": (1, 3)}, shape=[3, 3]),
    _p("paddle.tile", repeat_times=[2, 1]),
    _p("paddle.split", num_or_sections=3, axis=0),
    _p("paddle.chunk", chunks=3, axis=0),
    _p("paddle.unbind", axis=0),
    _p("paddle.gather", {"x": S, "index": Int((2,), 3)}, _constant=("index",)),
    _p("paddle.index_select", {"x": S, "index": Int((2,), 3)}, _constant=("index",)),
    _p("paddle.gather_nd", {"x": S, "index": Int((2, 1), 3)}, _constant=("index",)),
    _p(
        "paddle.scatter",
        {"x": S, "index": Int((2,), 3), "updates": (2, 3)},
        overwrite=False,
        _constant=("index",),
    ),
    _p(
        "paddle.scatter_nd_add",
        {"x": S, "index": Int((2, 1), 3), "updates": (2, 3)},
        _constant=("index",),
    ),
    _p("paddle.take_along_axis", {"arr": S, "indices": Int(S, 3)}, axis=0, _constant=("indices",)),
    _p("paddle.topk", k=2),
    _p("paddle.masked_fill", {"x": S, "mask": Bool(S)}, value=0.5, _constant=("mask",)),
    _p("paddle.where", {"condition": Bool(S), "x": S, "y": S}, _constant=("condition",)),
    _p("paddle.cast", dtype="float64"),
    _p("paddle.norm", p=2),
    # (paddle23: ops whose saves a round found unmeasured, each raising on a write to its output)
    _p("paddle.linalg.norm", p=2),
    _p("paddle.linalg.vector_norm", p=2),
    _p("paddle.dist", {"x": S, "y": S}, p=2),
    _p("paddle.cdist", {"x": (2, 3), "y": (4, 3)}),
    _p("paddle.amax", axis=0),
    _p("paddle.amin", axis=0),
    _p("paddle.logcumsumexp", axis=0),
    _p("paddle.std"),
    _p("paddle.var"),
    _p("paddle.cumsum", axis=0),
    _p("paddle.cumprod", dim=0),
    _p("paddle.tril"),
    _p("paddle.triu"),
    _p("paddle.renorm", p=2.0, axis=0, max_norm=0.5),
    _p("paddle.multigammaln", {"x": S}, p=1),
    _p("paddle.polygamma", {"x": S}, n=1),
    _p("paddle.gammaln"),
    _p(f"{FUNCTIONAL}.softmax", axis=-1),
    _p(f"{FUNCTIONAL}.log_softmax", axis=-1),
    _p(f"{FUNCTIONAL}.linear", {"x": (2, 3), "weight": (3, 4), "bias": (4,)}),
    _p(f"{FUNCTIONAL}.conv1d", {"x": (1, 2, 5), "weight": (3, 2, 3), "bias": (3,)}),
    _p(f"{FUNCTIONAL}.conv2d", {"x": (1, 2, 5, 5), "weight": (3, 2, 3, 3), "bias": (3,)}),
    _p(
        f"{FUNCTIONAL}.batch_norm",
        {"x": (4, 3), "running_mean": (3,), "running_var": (3,), "weight": (3,), "bias": (3,)},
        training=True,
        _constant=("running_mean", "running_var"),
    ),
    _p(f"{FUNCTIONAL}.layer_norm", {"x": (2, 3), "weight": (3,), "bias": (3,)}, normalized_shape=3),
    _p(f"{FUNCTIONAL}.dropout", p=0.5, training=True),
    _p(f"{FUNCTIONAL}.embedding", {"x": Int((2,), 4), "weight": (4, 3)}, _constant=("x",)),
    _p(f"{FUNCTIONAL}.max_pool2d", {"x": (1, 1, 4, 4)}, kernel_size=2),
    _p(f"{FUNCTIONAL}.avg_pool2d", {"x": (1, 1, 4, 4)}, kernel_size=2),
    _p(f"{FUNCTIONAL}.adaptive_avg_pool2d", {"x": (1, 1, 4, 4)}, output_size=1),
    _p(f"{FUNCTIONAL}.avg_pool1d", {"x": (1, 2, 4)}, kernel_size=2),
    _p(f"{FUNCTIONAL}.adaptive_avg_pool1d", {"x": (1, 2, 4)}, output_size=1),
    _p(f"{FUNCTIONAL}.group_norm", {"x": (2, 4, 3), "weight": (4,), "bias": (4,)}, num_groups=2),
    _p(f"{FUNCTIONAL}.local_response_norm", {"x": (1, 4, 3, 3)}, size=3),
    _p(f"{FUNCTIONAL}.normalize"),
    _p(f"{FUNCTIONAL}.cosine_similarity", {"x1": (2, 3), "x2": (2, 3)}, axis=1),
    _p(f"{FUNCTIONAL}.pairwise_distance", {"x": (2, 3), "y": (2, 3)}),
    _p(f"{FUNCTIONAL}.mse_loss", {"input": S, "label": S}),
    _p(f"{FUNCTIONAL}.l1_loss", {"input": S, "label": S}),
    _p(
        f"{FUNCTIONAL}.cross_entropy",
        {"input": (2, 3), "label": Int((2, 1), 3)},
        _constant=("label",),
    ),
    _p(f"{FUNCTIONAL}.binary_cross_entropy", {"input": S, "label": S}),
    _p(f"{FUNCTIONAL}.binary_cross_entropy_with_logits", {"logit": S, "label": S}),
    _p(f"{FUNCTIONAL}.leaky_relu", negative_slope=0.1),
    _p(f"{FUNCTIONAL}.glu", {"x": (3, 4)}),
    _p("paddle.logical_and", {"x": Bool(S), "y": Bool(S)}),
    _p("paddle.bitwise_and", {"x": Int(S, 4), "y": Int(S, 4)}),
]

# Binary operators as Python spells them, with the dunder Paddle implements.
OPERATORS = {
    "+": "__add__",
    "-": "__sub__",
    "*": "__mul__",
    "/": "__truediv__",
    "//": "__floordiv__",
    "%": "__mod__",
    "**": "__pow__",
    "@": "__matmul__",
    "&": "__and__",
    "|": "__or__",
    "^": "__xor__",
    "<<": "__lshift__",
    ">>": "__rshift__",
}
BITWISE = ("&", "|", "^", "<<", ">>")

# Layers: constructor arguments, input shape, and keyword variants that may change what is saved.
LAYERS: dict[str, tuple[tuple[Any, ...], TensorSpec, list[dict[str, Any]]]] = {
    "Linear": ((3, 4), (2, 3), [{}, {"bias_attr": False}]),
    "Conv1D": ((2, 3, 3), (1, 2, 5), [{}]),
    "Conv2D": ((2, 3, 3), (1, 2, 5, 5), [{}, {"bias_attr": False}]),
    "Conv2DTranspose": ((2, 3, 3), (1, 2, 4, 4), [{}]),
    "BatchNorm1D": ((3,), (4, 3), [{}]),
    "BatchNorm2D": ((3,), (2, 3, 2, 2), [{}, {"use_global_stats": True}]),
    "LayerNorm": ((3,), (2, 3), [{}]),
    "GroupNorm": ((2, 4), (2, 4, 2, 2), [{}]),
    "InstanceNorm2D": ((3,), (2, 3, 2, 2), [{}]),
    "Embedding": ((4, 3), Int((2,), 4), [{}]),
    "ReLU": ((), S, [{}]),
    "ReLU6": ((), S, [{}]),
    "LeakyReLU": ((), S, [{}]),
    "ELU": ((), S, [{}]),
    "GELU": ((), S, [{}]),
    "SiLU": ((), S, [{}]),
    "Swish": ((), S, [{}]),
    "Mish": ((), S, [{}]),
    "Hardswish": ((), S, [{}]),
    "Hardsigmoid": ((), S, [{}]),
    "Softplus": ((), S, [{}]),
    "Sigmoid": ((), S, [{}]),
    "Tanh": ((), S, [{}]),
    "Softmax": ((), S, [{}]),
    "LogSoftmax": ((), S, [{}]),
    "Dropout": ((), S, [{}, {"p": 0.0}, {"inplace": True}]),
    "Dropout2D": ((), (1, 2, 2, 2), [{}]),
    "MaxPool2D": ((2,), (1, 1, 4, 4), [{}]),
    "AvgPool2D": ((2,), (1, 1, 4, 4), [{}]),
    "AdaptiveAvgPool2D": ((1,), (1, 1, 4, 4), [{}]),
    "Flatten": ((), (2, 3, 2), [{}]),
    "Identity": ((), S, [{}]),
}
# In-place methods that need a specific call (a bare ``x.copy_()`` crashes the interpreter).
INT = Int(S, 4)
IDX = Int((2,), 3)


def _ip(name: str, tensors: dict[str, TensorSpec], **kwargs: Any) -> tuple[str, Probe]:
    constant = kwargs.pop("_constant", ())
    written = kwargs.pop("_written", None)
    return name, Probe(name, tensors, kwargs, constant, written)


INPLACE_PROBES: dict[str, Probe] = dict(
    [
        _ip("copy_", {"x": S, "other": S}, blocking=False),
        _ip("set_", {"x": S, "source": S}),
        _ip("reconstruct_from_", {"x": S, "other": S}),
        _ip("apply_", {"x": S}, func=lambda t: t * 2),
        _ip("fill_", {"x": S}, value=0.5),
        _ip("fill_diagonal_", {"x": S}, value=0.5),
        _ip("fill_diagonal_tensor_", {"x": S, "y": (3,)}),
        _ip("pow_", {"x": S}, y=2.0),
        _ip("index_add_", {"x": S, "index": IDX, "value": (2, 3)}, axis=0, _constant=("index",)),
        _ip("index_fill_", {"x": S, "index": IDX}, axis=0, value=0.5, _constant=("index",)),
        _ip(
            "index_put_",
            {"x": S, "indices": TupleOf((IDX,)), "value": (2, 3)},
            _constant=("indices",),
        ),
        _ip("masked_scatter_", {"x": S, "mask": Bool(S), "value": (9,)}, _constant=("mask",)),
        _ip("scatter_", {"x": S, "index": IDX, "updates": (2, 3)}, _constant=("index",)),
        _ip(
            "scatter_add_", {"input": S, "index": Int(S, 3), "src": S}, dim=0, _constant=("index",)
        ),
        _ip(
            "put_along_axis_",
            {"arr": S, "indices": Int((1, 3), 3), "values": (1, 3)},
            axis=0,
            _constant=("indices",),
        ),
        _ip(
            "where_", {"condition": Bool(S), "x": S, "y": S}, _constant=("condition",), _written="x"
        ),
        _ip("baddbmm_", {"input": (2, 3, 2), "x": (2, 3, 4), "y": (2, 4, 2)}),
        _ip("resize_", {"x": S}, shape=[9]),
        _ip(
            "embedding_renorm_",
            {"x": Int((2,), 4), "weight": (4, 3)},
            max_norm=0.5,
            _constant=("x",),
            _written="weight",
        ),
        _ip("geometric_", {"x": S}, probs=0.5),
        *[
            _ip(n, {"x": INT, "y": INT})
            for n in (
                "bitwise_and_",
                "bitwise_or_",
                "bitwise_xor_",
                "bitwise_left_shift_",
                "bitwise_right_shift_",
                "gcd_",
                "lcm_",
            )
        ],
        *[_ip(n, {"x": INT}) for n in ("bitwise_not_", "bitwise_invert_")],
    ]
)
# Autograd bookkeeping, not data writes: listed, never probed.
NOT_DATA_WRITES = ("detach_", "requires_grad_")

CONTAINERS = ("Sequential", "LayerList", "LayerDict", "ParameterList")
# Recurrent layers and cells: constructor arguments, the input and the initial state (an LSTM's
# is the pair (h, c)); batch-major sequences of 3 steps, as Paddle's default `time_major=False`
RECURRENT: dict[str, tuple[tuple[Any, ...], TensorSpec, TensorSpec]] = {
    "SimpleRNN": ((3, 4), (2, 3, 3), (1, 2, 4)),
    "GRU": ((3, 4), (2, 3, 3), (1, 2, 4)),
    "LSTM": ((3, 4), (2, 3, 3), TupleOf(((1, 2, 4), (1, 2, 4)))),
    "SimpleRNNCell": ((3, 4), (2, 3), (2, 4)),
    "GRUCell": ((3, 4), (2, 3), (2, 4)),
    "LSTMCell": ((3, 4), (2, 3), TupleOf(((2, 4), (2, 4)))),
}


# --------------------------------------------------------------------------------------------
# Running ops


def trace(what: str) -> None:
    if os.environ.get("GEN_PADDLE_TRACE"):
        print(what, file=sys.__stdout__, flush=True)


class ProbeFailed(Exception):
    """The op could not be called with the probe's arguments."""


def resolve(qualname: str) -> Callable[..., Any]:
    module, _, name = qualname.rpartition(".")
    obj: Any = {"paddle": paddle, FUNCTIONAL: F, "paddle.nn": nn, "paddle.linalg": paddle.linalg}[
        module
    ]
    return getattr(obj, name)


def make_value(spec: TensorSpec, requires_grad: bool, leaf: bool = False) -> Any:
    """A fresh tensor (or list) for one parameter; requiring grad means a non-leaf (a clone)."""
    if isinstance(spec, list):
        return [make_value(s, requires_grad, leaf) for s in spec]
    if isinstance(spec, TupleOf):
        return tuple(make_value(s, requires_grad, leaf) for s in spec.items)
    if isinstance(spec, Int):
        return paddle.randint(0, spec.high, list(spec.shape), dtype="int64")
    if isinstance(spec, Bool):
        return paddle.uniform(list(spec.shape), min=0.0, max=1.0) > 0.5
    t = paddle.uniform(list(spec), min=0.1, max=0.9)
    if not requires_grad:
        return t
    t.stop_gradient = False
    return t if leaf else t.clone()


def tensors_in(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_in(v)]
    return [value] if isinstance(value, paddle.Tensor) else []


def write_in_place(t: Any) -> None:
    """Bump ``t``'s version without changing its value (so later numbers stay comparable)."""
    t.add_(paddle.zeros_like(t))


def run_backward(outputs: list[Any]) -> str | None:
    """Backward from ``outputs``: None, "version" (Paddle's saved-tensor check) or "failed"."""
    try:
        paddle.autograd.backward(outputs, [paddle.ones_like(o) for o in outputs])
    except (RuntimeError, ValueError) as e:
        if VERSION_ERROR in str(e) and "inplace operation" in str(e):
            return "version"
        return "failed"  # Paddle's own backward fails here (batch_norm with a constant x)
    return None


def differentiable_outputs(result: Any) -> list[Any]:
    found: dict[int, Any] = {}  # (a cell returns its new state twice: `(h, h)`)
    for t in tensors_in(result):
        if t.is_floating_point() and not t.stop_gradient:
            found.setdefault(id(t), t)
    return list(found.values())


Caller = Callable[[dict[str, Any]], Any]


def function_caller(probe: Probe, fn: Callable[..., Any]) -> Caller:
    sig = signature_params(fn)
    params = sig[0] if sig else []
    names = list(probe.tensors)
    leading = 0  # tensors that lead the signature go by position: index_put_(x=...) crashes
    while leading < len(names) and leading < len(params) and names[leading] == params[leading]:
        leading += 1

    def call(values: dict[str, Any]) -> Any:
        args = [values[n] for n in names[:leading]]
        return fn(*args, **{n: values[n] for n in names[leading:]}, **probe.kwargs)

    return call


def method_caller(probe: Probe, name: str) -> Caller:
    method = getattr(paddle.Tensor, name)
    sig = signature_params(method) if inspect.isfunction(method) else None
    by_keyword = sig is not None and all(p in sig[0] for p in list(probe.tensors)[1:])

    def call(values: dict[str, Any]) -> Any:
        receiver, *rest = values
        method = getattr(values[receiver], name)
        if by_keyword:
            return method(**{p: values[p] for p in rest}, **probe.kwargs)
        # a C++ method: positional, since some crash on unknown keywords
        return method(*(values[p] for p in rest), **probe.kwargs)

    return call


def grad_params(probe: Probe) -> list[str]:
    return [
        p
        for p, spec in probe.tensors.items()
        if p not in probe.constant and not isinstance(spec, (Int, Bool))
    ]


def combos(params: list[str]) -> list[frozenset[str]]:
    return [
        frozenset(c) for n in range(1, len(params) + 1) for c in itertools.combinations(params, n)
    ]


def trial(probe: Probe, call: Caller, grad: frozenset[str], target: str) -> str | None:
    """Run the op with ``grad`` requiring grad, write ``target`` in place, run backward."""
    paddle.seed(0)
    values = {p: make_value(s, p in grad) for p, s in probe.tensors.items()}
    try:
        outputs = differentiable_outputs(call(values))
    except (RuntimeError, ValueError):
        return "failed"  # e.g. apply_ refuses a tensor that requires grad
    if not outputs:
        return "nograd"
    for t in outputs if target == "output" else tensors_in(values[target]):
        write_in_place(t)
    return run_backward(outputs)


def save_condition(saved: dict[frozenset[str], bool], params: list[str]) -> list[str] | None:
    """None (never saved), [] (saved whenever a node is recorded) or the triggering params."""
    if not any(saved.values()):
        return None
    if all(saved.values()):
        return []
    trigger = {p for p in params if saved.get(frozenset([p]))}
    for grad, is_saved in saved.items():
        if is_saved != bool(grad & trigger):
            raise AssertionError(f"save condition not expressible: {saved}")
    return sorted(trigger, key=params.index)


def measure_saves(probe: Probe, call: Caller, targets: list[str]) -> dict[str, Any]:
    """Which targets (tensor params, ``"output"``) the op saves, and under which condition."""
    params = grad_params(probe)
    result: dict[str, Any] = {"saves": {}, "saves_output": False, "differentiable": True}
    grads = combos(params)
    failed: set[frozenset[str]] = set()
    for target in targets:
        saved: dict[frozenset[str], bool] = {}
        for grad in grads:
            outcome = trial(probe, call, grad, target)
            if outcome == "failed":
                failed.add(grad)
            elif outcome != "nograd":
                saved[grad] = outcome == "version"
        if not saved:
            result["differentiable"] = False
            return result
        condition = save_condition(saved, params)
        if condition is None:
            continue
        if target == "output":
            result["saves_output"] = True
        else:
            result["saves"][target] = condition
    if failed:
        result["fails_when_only_grad"] = sorted(sorted(g, key=params.index) for g in failed)
    return result


def view_facts(probe: Probe, call: Caller) -> dict[str, Any]:
    """Does the result share memory with an input (a view), and does writing it bump that input?"""
    paddle.seed(0)
    values = {p: make_value(s, False) for p, s in probe.tensors.items()}
    versions = {p: [t.inplace_version for t in tensors_in(v)] for p, v in values.items()}
    result = call(values)
    written = [
        p for p, v in values.items() if [t.inplace_version for t in tensors_in(v)] != versions[p]
    ]
    if written:  # an in-place call in disguise: F.dropout(inplace=True), nn.Dropout(inplace=True)
        return {"inplace_param": written[0]}
    outputs = [t for t in tensors_in(result) if t.is_floating_point()]
    if not outputs:
        return {}
    before = {p: [t.numpy().copy() for t in tensors_in(v)] for p, v in values.items()}
    with paddle.no_grad():
        for t in outputs:
            t.add_(paddle.ones_like(t))
    for p, v in values.items():
        after = [t.numpy() for t in tensors_in(v)]
        if any(not np.array_equal(a, b) for a, b in zip(before[p], after, strict=True)):
            bumped = [t.inplace_version for t in tensors_in(v)] != versions[p]
            multi = isinstance(result, (list, tuple))
            return {"multi_view_of" if multi else "view_of": p, "view_shares_version": bumped}
    return {}


# --------------------------------------------------------------------------------------------
# Signatures


def signature_params(obj: Any) -> tuple[list[str], str | None] | None:
    """Positional parameter names and the ``out=`` keyword, or None for a C++ builtin."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    positional = [
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "name"
    ]
    out = "out" if "out" in sig.parameters else None
    return positional, out


def as_method(params: list[str]) -> list[str]:
    """A Tensor method binds its receiver to the function's first parameter; a receiver spelled
    ``self`` is called ``x`` in our tables, as everywhere else in Paddle."""
    return ["x", *params[1:]] if params[:1] == ["self"] else params or ["x"]


# --------------------------------------------------------------------------------------------
# The tables


# OpFacts fields and their defaults: left out of an entry when at the default, to keep it short.
OPFACTS_DEFAULTS = {
    "saves": {},
    "saves_output": False,
    "inplace_param": None,
    "inplace_saves_clone": False,
    "view_of": None,
    "multi_view_of": None,
    "version_alias_of": None,
    "out_param": None,
    "differentiable": True,
    "returns_tensor": True,
}


def op_entry(name: str, params: list[str], out: str | None, **facts: Any) -> dict[str, Any]:
    """One table row: the OpFacts fields that differ from their default, plus Paddle-only facts
    (``bumps_version``, ``leaf_error``, ...), which are kept even when false."""
    entry: dict[str, Any] = {"name": name, "params": params}
    if out:
        entry["out_param"] = out
    for key, value in facts.items():
        if key in OPFACTS_DEFAULTS and value == OPFACTS_DEFAULTS[key]:
            continue
        if value is not None:
            entry[key] = value
    return entry


def measure_probe(probe: Probe, call: Caller) -> dict[str, Any]:
    measured = measure_saves(probe, call, [*probe.tensors, "output"])
    if measured["differentiable"]:
        measured.update(view_facts(probe, call))
    return measured


def align(probe: Probe, params: list[str]) -> Probe:
    """Rename the probe's tensor parameters to the callable's own names, by position when the
    callable spells them differently (``paddle.trunc(input)``, not ``x``)."""
    if len(params) < len(probe.tensors):  # a (*args, **kwargs) wrapper: keep the probe's names
        return probe
    names = [n if n in params else params[i] for i, n in enumerate(probe.tensors)]
    rename = dict(zip(probe.tensors, names, strict=True))
    return Probe(
        probe.qualname,
        dict(zip(names, probe.tensors.values(), strict=True)),
        probe.kwargs,
        tuple(rename[c] for c in probe.constant),
        rename[probe.written] if probe.written else None,
    )


def out_of_place_functions() -> tuple[dict[str, Any], dict[str, Probe]]:
    table: dict[str, Any] = {}
    probes: dict[str, Probe] = {}
    for probe in PROBES:
        trace(probe.qualname)
        fn = resolve(probe.qualname)
        params, out = signature_params(fn) or (list(probe.tensors), None)
        probe = align(probe, params)
        try:
            facts = measure_probe(probe, function_caller(probe, fn))
        except Exception as e:
            raise ProbeFailed(f"{probe.qualname}: {e}") from e
        table[probe.qualname] = op_entry(probe.short, params, out, measured=True, **facts)
        probes[probe.qualname] = probe
    return table, probes


def inplace_names() -> dict[str, list[str]]:
    """Every in-place name: Tensor methods and ``paddle.*`` / ``F.*`` callables ending in one ``_``."""

    def single_underscore(n: str) -> bool:
        return n.endswith("_") and not n.endswith("__") and not n.startswith("_")

    return {
        "method": sorted(
            n
            for n in dir(paddle.Tensor)
            if single_underscore(n) and callable(getattr(paddle.Tensor, n))
        ),
        "paddle": sorted(
            n for n in dir(paddle) if single_underscore(n) and callable(getattr(paddle, n))
        ),
        FUNCTIONAL: sorted(n for n in dir(F) if single_underscore(n) and callable(getattr(F, n))),
    }


def counterpart_probe(base: str, probes: dict[str, Probe]) -> Probe | None:
    for prefix in ("paddle", FUNCTIONAL):
        if f"{prefix}.{base}" in probes:
            return probes[f"{prefix}.{base}"]
    return None


def measure_inplace(probe: Probe, call: Caller) -> dict[str, Any]:
    """Facts of an in-place op: its receiver is the output."""
    others = [p for p in probe.tensors if p != probe.target]
    facts = measure_saves(probe, call, [*others, "output"])
    facts.update(leaf_and_version(probe, call))
    facts["grad_matches_out_of_place"] = None
    return facts


def leaf_and_version(probe: Probe, call: Caller) -> dict[str, Any]:
    """Does the call bump the receiver's version; does it raise on a trainable leaf?"""
    paddle.seed(0)
    values = {p: make_value(s, False) for p, s in probe.tensors.items()}
    written = values[probe.target]
    before = written.inplace_version
    call(values)
    bumps = written.inplace_version > before
    values = {p: make_value(s, False) for p, s in probe.tensors.items()}
    values[probe.target] = make_value(probe.tensors[probe.target], True, leaf=True)
    try:
        call(values)
        return {"bumps_version": bumps, "leaf_error": False}
    except Exception as e:  # noqa: BLE001
        if LEAF_ERROR in str(e):
            return {"bumps_version": bumps, "leaf_error": True}
        return {"bumps_version": bumps, "leaf_error": False, "leaf_other_error": type(e).__name__}


def grad_matches(
    probe: Probe, inplace_call: Caller, plain: Probe, plain_call: Caller
) -> bool | None:
    """Do the in-place and out-of-place forms give the same input gradient?"""
    grads = []
    for pr, call in ((probe, inplace_call), (plain, plain_call)):
        paddle.seed(0)
        values = {p: make_value(s, False) for p, s in pr.tensors.items()}
        first = next(iter(values))
        leaf = make_value(pr.tensors[first], True, leaf=True)
        values[first] = leaf.clone()
        outputs = differentiable_outputs(call(values))
        if not outputs:
            return None
        paddle.autograd.backward(outputs, [paddle.ones_like(o) for o in outputs])
        if leaf.grad is None:
            return None
        grads.append(leaf.grad.numpy())
    return bool(np.allclose(grads[0], grads[1], equal_nan=True))


def auto_probe(qualname: str, call_for: Callable[[Probe], Caller]) -> Probe | None:
    """For an in-place op with no curated probe: try it as unary, then as binary on 3x3 floats."""
    for tensors in ({"x": S}, {"x": S, "y": S}):
        probe = Probe(qualname, tensors)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                call_for(probe)({p: make_value(s, False) for p, s in tensors.items()})
        except Exception:  # noqa: BLE001, S112 - any failure just means "not this arity"
            continue
        return probe
    return None


def inplace_tables(
    functions: dict[str, Any], probes: dict[str, Probe]
) -> tuple[dict[str, Any], dict[str, Any]]:
    methods: dict[str, Any] = {}
    names = inplace_names()
    for kind, group in names.items():
        for name in group:
            trace(f"{kind} {name}")
            entry = inplace_entry(kind, name, probes)
            if kind == "method":
                methods[name] = entry
            else:
                functions[f"{kind}.{name}"] = entry
    return methods, names


def inplace_entry(kind: str, name: str, probes: dict[str, Probe]) -> dict[str, Any]:
    """The row for one in-place callable; ``kind`` is "method", "paddle" or the functional module."""
    namespace: Any = paddle.Tensor if kind == "method" else (paddle if kind == "paddle" else F)
    obj = getattr(namespace, name)
    sig = signature_params(obj)
    params, out = sig if sig else (["x"], None)
    if not params:  # a (*args, **kwargs) wrapper: name the parameters as the probe does
        params = list(INPLACE_PROBES[name].tensors) if name in INPLACE_PROBES else ["x"]
    if kind == "method":
        params = as_method(params)
    if name in NOT_DATA_WRITES:
        return op_entry(name, params, out, writes_data=False, measured=False)
    base = name[:-1]
    counterpart = None
    if hasattr(namespace, base):
        counterpart = f"paddle.Tensor.{base}" if kind == "method" else f"{kind}.{base}"
    probe = INPLACE_PROBES.get(name)
    probe = align(probe, params) if probe is not None else None
    facts: dict[str, Any] = {
        "inplace_param": probe.target if probe else params[0],
        "counterpart": counterpart,
    }
    curated = counterpart_probe(base, probes)
    if probe is None and curated is not None:
        tensors = dict(zip([params[0], *list(curated.tensors)[1:]], curated.tensors.values()))
        probe = Probe(name, tensors, curated.kwargs, curated.constant)

    def call_for(pr: Probe) -> Caller:
        return method_caller(pr, name) if kind == "method" else function_caller(pr, obj)

    def measure() -> dict[str, Any]:
        chosen = probe if probe is not None and _callable_with(probe, call_for(probe)) else None
        chosen = chosen or auto_probe(name, call_for)
        if chosen is None:
            return {"probe_error": "no probe"}
        compare_with = curated if chosen is probe and name not in INPLACE_PROBES else None
        return measure_one_inplace(chosen, call_for(chosen), compare_with)

    facts.update(isolated(measure))
    return op_entry(name, params, out, **facts)


def isolated(measure: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``measure`` in a forked child: some Paddle calls crash the interpreter on odd arguments.
    A crash or an exception is recorded (``probe_error``) and the op stays unmeasured."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # a crash report from Paddle's C++ is expected here, not news
        try:
            payload = {"facts": measure()}
        except Exception as e:  # noqa: BLE001
            payload = {"error": type(e).__name__}
        with os.fdopen(write_end, "w") as pipe:
            json.dump(payload, pipe)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    if not data:
        return {"probe_error": "crash"}
    payload = json.loads(data)
    return payload["facts"] if "facts" in payload else {"probe_error": payload["error"]}


def measure_one_inplace(probe: Probe, call: Caller, curated: Probe | None) -> dict[str, Any]:
    facts = measure_inplace(probe, call)
    facts["measured"] = True
    if curated is not None and facts.get("differentiable", True):
        plain = function_caller(curated, resolve(curated.qualname))
        facts["grad_matches_out_of_place"] = grad_matches(probe, call, curated, plain)
    return facts


def _callable_with(probe: Probe, call: Caller) -> bool:
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            call({p: make_value(s, False) for p, s in probe.tensors.items()})
    except Exception:  # noqa: BLE001
        return False
    return True


def out_of_place_methods(functions: dict[str, Any]) -> dict[str, Any]:
    """Tensor methods that are the same callable as a measured ``paddle.*`` function."""
    methods = {}
    for qualname, entry in functions.items():
        if not qualname.startswith("paddle.") or qualname.startswith(FUNCTIONAL):
            continue
        name = qualname.split(".", 1)[1]
        if name.endswith("_") or getattr(paddle.Tensor, name, None) is not resolve(qualname):
            continue
        methods[name] = {**entry, "params": as_method(entry["params"])}
    return methods


# --------------------------------------------------------------------------------------------
# Special methods and semantics, each checked by running


def leaf(shape: Shape = S) -> Any:
    return make_value(shape, True, leaf=True)


def raises(fn: Callable[[], Any]) -> str | None:
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__ + ": " + str(e).strip().splitlines()[0]
    return None


def saved_then(write: Callable[[Any], Any]) -> str | None:
    """tanh saves its output; ``write`` it, then backward: which error, if any?"""
    x = leaf().clone()
    y = paddle.tanh(x)
    write(y)
    return raises(lambda: y.backward(paddle.ones_like(y)))


def special_methods() -> dict[str, Any]:
    def bumps(write: Callable[[Any], Any]) -> bool:
        t = paddle.ones(list(S))
        before = t.inplace_version
        write(t)
        return t.inplace_version > before

    def leaf_error(write: Callable[[Any], Any]) -> bool:
        err = raises(lambda: write(leaf()))
        return err is not None and LEAF_ERROR in err

    def setitem(t: Any) -> None:
        t[0] = 1.0

    def set_value(t: Any) -> None:
        t.set_value(paddle.zeros(t.shape))

    def copy(t: Any) -> None:
        t.copy_(paddle.zeros(t.shape), False)

    entries = {
        "__setitem__": (["x", "item", "value"], setitem, True),
        "set_value": (["x", "value"], set_value, False),
        "copy_": (["x", "other", "blocking"], copy, True),
    }
    table = {}
    for name, (params, write, returns) in entries.items():
        table[name] = op_entry(
            name,
            params,
            None,
            inplace_param="x",
            bumps_version=bumps(write),
            leaf_error=leaf_error(write),
            saved_write_error=saved_then(write) is not None,
            measured=True,
            returns_tensor=returns,
        )
    table["__getitem__"] = op_entry(
        "__getitem__", ["x", "item"], None, measured=True, **getitem_view()
    )
    table["detach"] = op_entry(
        "detach", ["x"], None, measured=True, differentiable=False, **detach_alias()
    )
    table["clone"] = op_entry("clone", ["x"], None, measured=True)
    for name in ("item", "tolist"):
        value = getattr(paddle.ones([1]), name)()
        table[name] = op_entry(
            name,
            ["x"],
            None,
            measured=True,
            differentiable=False,
            returns_tensor=isinstance(value, paddle.Tensor),
        )
    table["numpy"] = op_entry(
        "numpy", ["x"], None, measured=True, differentiable=False, returns_tensor=False
    )
    return table


def getitem_view() -> dict[str, Any]:
    x = paddle.ones(list(S))
    before = x.inplace_version
    row = x[0]
    with paddle.no_grad():
        row.add_(paddle.ones_like(row))
    return {
        "view_of": "x" if float(x[0, 0]) == 2.0 else None,
        "view_shares_version": x.inplace_version > before,
    }


def detach_alias() -> dict[str, Any]:
    """``x.detach()`` shares x's storage and, if writing it bumps x's version, its counter."""
    x = paddle.ones(list(S))
    d = x.detach()
    d.add_(paddle.ones_like(d))
    shares = float(x[0, 0]) == 2.0 and x.inplace_version > 0
    return {"version_alias_of": "x" if shares else None, "shares_storage": float(x[0, 0]) == 2.0}


def operator_table() -> dict[str, Any]:
    """``a op b`` with two tensors and with a Python scalar; ``a op= b`` rebinds."""
    table = {}
    for symbol, dunder in OPERATORS.items():
        shapes: dict[str, TensorSpec] = {"x": S, "y": S}
        if symbol == "@":
            shapes = {"x": (3, 4), "y": (4, 2)}
        elif symbol in BITWISE:
            shapes = {"x": INT, "y": INT}
        probe = Probe(symbol, shapes)
        facts = measure_probe(probe, lambda v, d=dunder: getattr(v["x"], d)(v["y"]))
        entry = op_entry(symbol, ["x", "y"], None, measured=True, dunder=dunder, **facts)
        if symbol != "@" and symbol not in BITWISE:
            scalar = Probe(symbol, {"x": S})
            sfacts = measure_probe(scalar, lambda v, d=dunder: getattr(v["x"], d)(2.0))
            entry["with_scalar"] = op_entry(symbol, ["x", "y"], None, measured=True, **sfacts)
            # ``2.0 op x``: Python calls x.__rop__(2.0); in the entry the tensor is still ``y``
            reflected = "__r" + dunder[2:]
            left = Probe(symbol, {"y": S})
            lfacts = measure_probe(left, lambda v, r=reflected: getattr(v["y"], r)(2.0))
            entry["with_scalar_left"] = op_entry(symbol, ["x", "y"], None, measured=True, **lfacts)
        entry["augmented_rebinds"] = augmented_rebinds(symbol)
        table[symbol] = entry
    return table


def augmented_rebinds(symbol: str) -> bool:
    dtype = "int64" if symbol in BITWISE else "float32"
    x = paddle.ones([2, 2], dtype=dtype)
    original, version = x, x.inplace_version
    y = paddle.full([2, 2], 2, dtype=dtype)
    namespace = {"x": x, "y": y}
    exec(f"x {symbol}= y", namespace)  # noqa: S102 - the operator is one of OPERATORS
    return namespace["x"] is not original and original.inplace_version == version


def semantics() -> dict[str, Any]:
    facts: dict[str, Any] = {}
    facts["tensor_has_inplace_dunders"] = sorted(
        d
        for d in ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__imatmul__", "__ipow__")
        if hasattr(paddle.Tensor, d)
    )

    # a trainable leaf: in-place raises in grad mode; no_grad and set_grad_enabled(False) exempt it
    facts["leaf_inplace_error"] = raises(lambda: leaf().scale_(2.0)) is not None
    facts["leaf_setitem_error"] = raises(lambda: leaf().__setitem__(0, 1.0)) is not None

    def under_no_grad() -> None:
        with paddle.no_grad():
            leaf().scale_(2.0)

    def under_disabled() -> None:
        with paddle.set_grad_enabled(False):
            leaf().scale_(2.0)

    facts["no_grad_exempts_leaf"] = raises(under_no_grad) is None
    facts["set_grad_enabled_false_exempts_leaf"] = raises(under_disabled) is None

    # a view of a trainable leaf written in place: no error, and the leaf changes
    w = leaf()
    before = w.numpy().copy()
    err = raises(lambda: w[0].scale_(2.0))
    facts["leaf_view_inplace_error"] = err is not None
    facts["leaf_view_inplace_writes_leaf"] = not np.array_equal(before, w.numpy())

    # the version check also covers tensors that do not require grad, and no_grad does not escape it
    def mask_saved() -> str | None:
        x = leaf().clone()
        m = paddle.uniform(list(S), min=0.1, max=0.9)
        y = x * m
        m.scale_(2.0)
        return raises(lambda: y.backward(paddle.ones_like(y)))

    def no_grad_saved() -> str | None:
        x = leaf().clone()
        y = paddle.tanh(x)
        with paddle.no_grad():
            y.scale_(2.0)
        return raises(lambda: y.sum().backward())

    facts["constant_operand_saved_checked"] = mask_saved() is not None
    facts["no_grad_escapes_version_check"] = no_grad_saved() is None

    # chunk outputs may be written in place (no multi-output-view error)
    def chunk_write() -> str | None:
        x = leaf().clone()
        parts = paddle.chunk(x, 3)
        parts[0].scale_(2.0)
        return raises(lambda: paddle.add_n([p.sum() for p in parts]).backward())

    facts["multi_output_view_inplace_error"] = chunk_write() is not None

    # x[:, 0] += 1 on a saved tensor: the item assignment is in place
    facts["subscript_augassign_version_error"] = (
        saved_then(lambda y: y.__setitem__((slice(None), 0), y[:, 0] + 1)) is not None
    )

    facts["parameter_augassign_in_layer"] = parameter_augassign()
    facts["to_tensor_default_stop_gradient"] = bool(paddle.to_tensor([1.0]).stop_gradient)
    facts["create_parameter_stop_gradient"] = bool(
        paddle.create_parameter([2], "float32").stop_gradient
    )
    facts["layer_parameter_is_leaf"] = bool(nn.Linear(2, 2).weight.is_leaf)
    facts["state_dict_values_share_version"] = state_dict_shares()
    facts["state_dict_value_inplace_leaf_error"] = (
        raises(lambda: nn.Linear(2, 2).state_dict()["weight"].scale_(2.0)) is not None
    )
    return facts


def parameter_augassign() -> str | None:
    class Bias(nn.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.bias = self.create_parameter([3], is_bias=True)

        def forward(self, v: Any) -> Any:
            self.bias += v
            return self.bias

    err = raises(lambda: Bias()(paddle.ones([3])))
    return err.split(":")[0] if err else None


def state_dict_shares() -> bool:
    layer = nn.Linear(2, 2)
    value = layer.state_dict()["weight"]
    with paddle.no_grad():
        value.scale_(1.0)
    return layer.weight.inplace_version > 0


def optimizers() -> dict[str, Any]:
    """Does ``step()`` bump the parameters' versions; does a step between forward and backward
    raise (no) or change the gradient (yes)?"""
    table = {}
    for name in sorted(
        n for n in dir(paddle.optimizer) if n[0].isupper() and n not in ("Optimizer", "LBFGS")
    ):
        cls = getattr(paddle.optimizer, name)
        paddle.seed(0)
        layer = nn.Linear(3, 3)
        opt = cls(learning_rate=0.1, parameters=layer.parameters())
        x = paddle.uniform([2, 3], min=0.1, max=0.9)
        layer(x).sum().backward()
        before = layer.weight.inplace_version
        opt.step()
        opt.clear_grad()
        bumped = layer.weight.inplace_version > before

        paddle.seed(0)
        layer = nn.Linear(3, 3)
        opt = cls(learning_rate=0.1, parameters=layer.parameters())
        x = leaf((2, 3)).clone()
        y = paddle.tanh(layer(x))
        z = (y * y).sum()
        y.sum().backward(retain_graph=True)
        opt.step()
        err = raises(z.backward)
        table[f"paddle.optimizer.{name}"] = {
            "step_bumps_version": bumped,
            "step_before_backward_error": err is not None,
        }
    return table


def layer_table() -> dict[str, Any]:
    table: dict[str, Any] = {}
    for name, (args, spec, variants) in LAYERS.items():
        cls = getattr(nn, name)
        forward = signature_params(cls.forward)
        params = forward[0][1:] if forward else ["x"]
        init = signature_params(cls.__init__)
        table[f"paddle.nn.{name}"] = {
            "init": init[0][1:] if init else [],
            "variants": [layer_variant(name, cls, args, spec, kw, params) for kw in variants],
        }
    for name, (args, inputs, states) in RECURRENT.items():
        table[f"paddle.nn.{name}"] = recurrent_layer(name, args, inputs, states)
    for name in CONTAINERS:
        table[f"paddle.nn.{name}"] = {
            "variants": [
                {
                    "keywords": {},
                    "container": True,
                    "call": op_entry(name, ["input"], None, measured=False),
                }
            ]
        }
    return table


def recurrent_layer(name: str, args: tuple[Any, ...], inputs: TensorSpec, states: TensorSpec):
    """A recurrent layer or cell called with its input and its initial state: which of them it
    saves, and which items of the tuple it returns it saves (``result``: the tuple's nesting,
    named; an item sharing the first one's memory, a cell's new state, is named "output" too)."""
    cls = getattr(nn, name)
    forward = signature_params(cls.forward)
    params = forward[0][1:3] if forward else ["inputs", "states"]

    def build() -> Any:
        paddle.seed(0)
        return cls(*args)

    probe = Probe(f"paddle.nn.{name}", {params[0]: inputs, params[1]: states})

    def call(values: dict[str, Any]) -> Any:
        return build()(values[params[0]], values[params[1]])

    facts = measure_saves(probe, call, list(params))
    result, saves_output = recurrent_result(call, probe)
    facts["saves_output"] = saves_output
    saved = []
    for tname in sorted(dict(build().named_parameters())):  # (the RNNs' buffers are unplaced)
        values = {p: make_value(s, True) for p, s in probe.tensors.items()}
        layer = build()
        out = layer(values[params[0]], values[params[1]])
        with paddle.no_grad():
            write_in_place(dict(layer.named_parameters())[tname])
        if run_backward(differentiable_outputs(out)) == "version":
            saved.append(tname)
    variant: dict[str, Any] = {
        "keywords": {},
        "call": op_entry(name, list(params), None, measured=True, result=result, **facts),
        "has_parameters": True,
    }
    if saved:
        variant["saved_attributes"] = saved
    init = signature_params(cls.__init__)
    return {"init": init[0][1:] if init else [], "variants": [variant]}


def recurrent_result(call: Caller, probe: Probe) -> tuple[list[Any], bool]:
    """The nesting of the tuple ``call`` returns, its items named ("output" for the first and
    any item sharing its memory, "state_<i>" for the others), and whether the first is saved.
    An item other than those that is saved is not expressible (AssertionError)."""
    paddle.seed(0)
    values = {p: make_value(s, True) for p, s in probe.tensors.items()}
    returned = call(values)
    flat = tensors_in(returned)
    first = flat[0].data_ptr()
    counter = iter(range(len(flat)))

    def named(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [named(v) for v in value]
        index = next(counter)
        return "output" if flat[index].data_ptr() == first else f"state_{index}"

    result = named(returned)
    saved = []
    for index in range(len(flat)):
        paddle.seed(0)
        values = {p: make_value(s, True) for p, s in probe.tensors.items()}
        items = tensors_in(call(values))
        write_in_place(items[index])
        saved.append(run_backward(differentiable_outputs(items)) == "version")
    for index, is_saved in enumerate(saved):
        if is_saved != (saved[0] and flat[index].data_ptr() == first):
            raise AssertionError(f"{probe.qualname}: result item {index} saved: {saved}")
    return result, saved[0]


def layer_variant(
    name: str,
    cls: type,
    args: tuple[Any, ...],
    spec: TensorSpec,
    keywords: dict[str, Any],
    params: list[str],
) -> dict[str, Any]:
    def build() -> Any:
        paddle.seed(0)
        return cls(*args, **keywords)

    param = params[0]
    probe = Probe(f"paddle.nn.{name}", {param: spec})
    holder: dict[str, Any] = {}

    def call(values: dict[str, Any]) -> Any:
        holder["layer"] = layer = build()
        return layer(values[param])

    facts = measure_saves(probe, call, [param, "output"])
    # with a constant input the node exists because of the parameters: measure that too
    layer = build()
    has_parameters = bool(layer.parameters())
    if has_parameters:
        for target in (param, "output"):
            outcome = layer_const_trial(build, spec, target)
            if outcome != "nograd":
                facts["differentiable"] = True
            if target == param and outcome == "version":
                facts["saves"][param] = []
            if target == "output" and outcome == "version":
                facts["saves_output"] = True
    saved_attributes, inplace_buffers = layer_state(build, spec)
    facts.update(view_facts(probe, call) if facts.get("differentiable", True) else {})
    variant: dict[str, Any] = {
        "keywords": keywords,
        "call": op_entry(name, params, None, measured=True, **facts),
    }
    if has_parameters:
        variant["has_parameters"] = True
    if saved_attributes:
        variant["saved_attributes"] = saved_attributes
    if inplace_buffers:
        variant["inplace_buffers"] = inplace_buffers
    variant["eval_saves"] = eval_saves(build, spec, param)
    return variant


def layer_const_trial(build: Callable[[], Any], spec: TensorSpec, target: str) -> str | None:
    layer = build()
    x = make_value(spec, False)
    out = layer(x)
    if out.stop_gradient:
        return "nograd"
    write_in_place(out if target == "output" else x)
    return run_backward([out])


def layer_state(build: Callable[[], Any], spec: TensorSpec) -> tuple[list[str], list[str]]:
    """The layer's tensors (parameters, and buffers, which Paddle's BatchNorm keeps as
    non-trainable parameters) that the call saves -- written under no_grad after the call, then
    backward -- and those a training-mode call itself writes in place."""
    saved = []
    for tname in sorted(layer_tensors(build())):
        layer = build()
        out = layer(make_value(spec, not isinstance(spec, Int)))
        with paddle.no_grad():
            write_in_place(layer_tensors(layer)[tname])
        if run_backward([out]) == "version":
            saved.append(tname)
    layer = build()
    versions = {n: t.inplace_version for n, t in layer_tensors(layer).items()}
    layer(make_value(spec, not isinstance(spec, Int)))
    written = sorted(n for n, t in layer_tensors(layer).items() if t.inplace_version > versions[n])
    return saved, written


def layer_tensors(layer: Any) -> dict[str, Any]:
    return {**dict(layer.named_parameters()), **dict(layer.named_buffers())}


def eval_saves(build: Callable[[], Any], spec: TensorSpec, param: str) -> list[str]:
    """In eval mode, which of input/output are saved (with the input requiring grad)."""
    result = []
    for target in (param, "output"):
        layer = build()
        layer.eval()
        x = make_value(spec, not isinstance(spec, Int))
        out = layer(x)
        if out.stop_gradient:
            continue
        write_in_place(out if target == "output" else x)
        if run_backward([out]) == "version":
            result.append(target)
    return result


# --------------------------------------------------------------------------------------------


def generate() -> dict[str, Any]:
    functions, probes = out_of_place_functions()
    inplace_methods, names = inplace_tables(functions, probes)
    methods = out_of_place_methods(functions)
    methods.update(inplace_methods)
    methods.update(special_methods())
    return {
        "_generated_by": "scripts/gen_paddle_tables.py (do not edit; rerun it)",
        "paddle_version": paddle.__version__,
        "inplace_names": names,
        "functions": functions,
        "methods": methods,
        "operators": operator_table(),
        "layers": layer_table(),
        "optimizers": optimizers(),
        "semantics": semantics(),
    }


def render(table: dict[str, Any]) -> str:
    return json.dumps(table, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed table")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    with contextlib.redirect_stderr(io.StringIO()):
        text = render(generate())
    if args.check:
        same = args.output.read_text() == text
        print("paddle_api.json is up to date" if same else "paddle_api.json differs: regenerate it")
        return 0 if same else 1
    args.output.write_text(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
