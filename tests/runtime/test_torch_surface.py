"""Every entry of torch_surface.toml, and a broad sample of torch_ops.json, proven by running torch.

A tensor counts as *saved* by a call exactly when writing it in place after the call makes
``backward()`` raise the version-counter error: the semantics the linter relies on. The probe builds
fresh inputs for each requires-grad combination, makes the call, bumps one tensor's version
(``copy_`` under ``no_grad``: any dtype, never the leaf check) and runs backward. Views are checked
through ``_is_view()`` / ``_base``, multi-output views by writing one, ``inplace=True`` by the
input's version.
"""

from __future__ import annotations

import fnmatch
import inspect
import json
import operator
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

from torch.overrides import get_testing_overrides

from inplace_lint.knowledge import (
    ALWAYS,
    OpFacts,
    binary_operator,
    tensor_method,
    torch_function,
    torch_module,
)
from inplace_lint.knowledge.torch_facts import _OPS_PATH, _surface

VERSION_ERROR = "modified by an inplace operation"
MULTI_VIEW_ERROR = "This view is the output of a function that returns multiple views"
SURFACE = _surface()

torch.manual_seed(0)

# ---------------------------------------------------------------------------------------------
# The probe

Env = dict[str, Any]
Factory = Callable[[bool], Any]


def T(*shape: int, low: float = 0.1, high: float = 0.9) -> Factory:
    """A float tensor; ``T(...)(True)`` is a non-leaf that requires grad (writable in place)."""

    def make(requires_grad: bool) -> Any:
        t = torch.empty(shape).uniform_(low, high)
        return t.requires_grad_().clone() if requires_grad else t

    return make


def T64(*shape: int) -> Factory:
    """Like T, in double precision (to see a real dtype conversion)."""

    def make(requires_grad: bool) -> Any:
        t = torch.rand(shape, dtype=torch.float64)
        return t.requires_grad_().clone() if requires_grad else t

    return make


def TS(*shapes: tuple[int, ...]) -> Factory:
    """A tuple of T tensors: a recurrent state such as LSTM's ``(h_0, c_0)``."""
    parts = [T(*shape) for shape in shapes]

    def make(requires_grad: bool) -> Any:
        return tuple(part(requires_grad) for part in parts)

    make.__qualname__ = "T.tuple"  # requires grad like a T tensor
    return make


def C(factory: Callable[[], Any]) -> Factory:
    """A tensor that never requires grad: indices, masks, targets, buffers."""
    return lambda requires_grad: factory()


def outputs(result: Any) -> list[Any]:
    """The tensors of a result, nested tuples flattened in order (`out, (h, c)`)."""
    if isinstance(result, torch.Tensor):
        return [result]
    return [t for r in result if isinstance(r, (torch.Tensor, tuple)) for t in outputs(r)]


def write(t: Any) -> None:
    with torch.no_grad():
        t.copy_(t.detach().clone())


def breaks_backward(
    make: Callable[[], Env],
    call: Callable[[Env], Any],
    target: str | int | tuple[str, int],
    all_outputs: bool = False,
) -> bool:
    """True if writing ``target`` (an env name, an output index, or (name, i): part i of a tuple
    argument) after ``call`` breaks backward (through the first output requiring grad, or with
    ``all_outputs`` through all of them)."""
    env = make()
    result = call(env)
    requiring = [r for r in outputs(result) if r.requires_grad]
    assert requiring, "the call recorded no backward node"
    if isinstance(target, int):
        write(outputs(result)[target])
    elif isinstance(target, tuple):
        write(env[target[0]][target[1]])
    else:
        write(env[target])
    try:
        sum(r.float().sum() for r in (requiring if all_outputs else requiring[:1])).backward()
    except RuntimeError as e:
        # a write to the base of views an op unbound (GRU's input when it requires grad) fails
        # backward with the multi-view error instead: a RuntimeError at backward all the same
        if VERSION_ERROR in str(e) or MULTI_VIEW_ERROR in str(e):
            return True
        raise
    return False


def maker(tensors: dict[str, Factory], requiring: Iterable[str]) -> Callable[[], Env]:
    requiring = set(requiring)
    return lambda: {name: f(name in requiring) for name, f in tensors.items()}


def raises_multi_view(view: Any) -> bool:
    try:
        view.mul_(1)
    except RuntimeError as e:
        if MULTI_VIEW_ERROR in str(e):
            return True
        raise
    return False


def expected_saved(facts: OpFacts, name: str, requiring: set[str]) -> bool:
    if name == facts.inplace_param:
        return facts.saves_output  # the written input *is* the output
    cond = facts.saves.get(name)
    return cond is not None and (cond == ALWAYS or any(c in requiring for c in cond))


def combinations(grad: tuple[str, ...]) -> list[set[str]]:
    """All of them, and each alone: enough to see every one-parameter condition."""
    if len(grad) <= 1:
        return [set(grad)]
    return [set(grad)] + [{g} for g in grad]


@dataclass
class Case:
    """One call to probe: ``call(env)`` with env built from ``tensors``; ``grad`` may require grad."""

    id: str
    facts: Callable[[], OpFacts | None]
    tensors: dict[str, Factory]
    call: Callable[[Env], Any]
    grad: tuple[str, ...] | None = None  # default: every T() tensor
    check_output: bool = True
    check_view: bool = True

    def grad_names(self) -> tuple[str, ...]:
        if self.grad is not None:
            return self.grad
        return tuple(
            n for n, f in self.tensors.items() if f.__qualname__.startswith(("T.", "T64."))
        )


def probe(case: Case) -> list[str]:
    """Mismatches between the facts and what torch does, as readable lines."""
    facts = case.facts()
    assert facts is not None, f"{case.id}: no facts"
    problems = []
    # Writing the base of a multi-output view breaks any backward through the views, saved or not.
    saves_measurable = facts.multi_view_of is None
    for requiring in combinations(case.grad_names()) if saves_measurable else []:
        make = maker(case.tensors, requiring)
        targets: list[str | int] = [n for n in case.tensors if isinstance(make()[n], torch.Tensor)]
        if case.check_output and facts.inplace_param is None:
            targets.append(0)
        for target in targets:
            measured = breaks_backward(make, case.call, target)
            if isinstance(target, int):
                expected = facts.saves_output
            else:
                expected = expected_saved(facts, target, requiring)
            if measured != expected:
                what = "output" if isinstance(target, int) else repr(target)
                problems.append(
                    f"{case.id}: {what} saved={measured} (facts say {expected}) "
                    f"when {sorted(requiring)} require grad"
                )
    env = maker(case.tensors, case.grad_names())()
    result = case.call(env)
    if facts.inplace_param is not None:
        written = env[facts.inplace_param]
        if not (outputs(result)[0] is written or written._version > 0):
            problems.append(f"{case.id}: {facts.inplace_param} was not written in place")
    if facts.view_of is not None and case.check_view:
        out = outputs(result)[0]
        if not (out is env[facts.view_of] or out._base is _base(env[facts.view_of])):
            problems.append(f"{case.id}: result is not a view of {facts.view_of}")
    if facts.multi_view_of is not None and not raises_multi_view(outputs(result)[0]):
        problems.append(f"{case.id}: in-place on an output did not raise the multi-view error")
    return problems


def _base(t: Any) -> Any:
    return t if t._base is None else t._base


# ---------------------------------------------------------------------------------------------
# Recipes for torch_surface.toml [functions] and [methods]

X4 = T(2, 3, 6, 6)
X3 = T(2, 3, 6)
X5 = T(1, 3, 4, 4, 4)
M = T(4, 5)


def fn(qualname: str, inplace: bool = False) -> Callable[[], OpFacts | None]:
    return lambda: torch_function(qualname, inplace=inplace)


def meth(name: str) -> Callable[[], OpFacts | None]:
    return lambda: tensor_method(name)


def call_input(function: Callable[..., Any], *args: Any) -> Callable[[Env], Any]:
    """``function(env["input"], *args)``."""
    return lambda e: function(e["input"], *args)


def call_method(name: str, *tensor_args: str) -> Callable[[Env], Any]:
    """``env["self"].name(*(env[a] for a in tensor_args))``."""
    return lambda e: getattr(e["self"], name)(*(e[a] for a in tensor_args))


def attribute(name: str) -> Callable[[Env], Any]:
    return lambda e: getattr(e["self"], name)


def apply_operator(op: Callable[[Any, Any], Any]) -> Callable[[Env], Any]:
    return lambda e: op(e["self"], e["other"])


# Python's operators as functions; the augmented ones behave as `a op= b` (imatmul falls back to
# `a @ b`, as Python does for a type without __imatmul__).
BINARY_OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "@": operator.matmul,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}
AUGMENTED_OPS = {
    "+": operator.iadd,
    "-": operator.isub,
    "*": operator.imul,
    "/": operator.itruediv,
    "//": operator.ifloordiv,
    "%": operator.imod,
    "**": operator.ipow,
    "@": operator.imatmul,
    "&": operator.iand,
    "|": operator.ior,
    "^": operator.ixor,
    "<<": operator.ilshift,
    ">>": operator.irshift,
}


def conv_case(qualname: str, call: Callable[..., Any], x: Factory, w: Factory) -> Case:
    return Case(
        qualname,
        fn(qualname),
        {"input": x, "weight": w, "bias": T(4)},
        lambda e: call(e["input"], e["weight"], e["bias"]),
    )


def activation(name: str, call: Callable[..., Any], *, inplace: bool = False, low=-0.9) -> Case:
    x = T(3, 4, low=low, high=0.9)
    return Case(
        f"{name}{'(inplace)' if inplace else ''}",
        fn(name, inplace),
        {"input": x},
        call,
    )


def _bn_tensors() -> dict[str, Factory]:
    return {
        "input": X4,
        "running_mean": C(lambda: torch.zeros(3)),
        "running_var": C(lambda: torch.ones(3)),
        "weight": T(3),
        "bias": T(3),
    }


FUNCTION_CASES = [
    Case(
        "torch.matmul",
        fn("torch.matmul"),
        {"input": M, "other": T(5, 3)},
        lambda e: torch.matmul(e["input"], e["other"]),
    ),
    Case(
        "torch.matmul 3-D",
        fn("torch.matmul"),
        {"input": T(2, 4, 5), "other": T(5, 3)},
        lambda e: torch.matmul(e["input"], e["other"]),
    ),
    Case(
        "torch.matmul batched",
        fn("torch.matmul"),
        {"input": T(2, 4, 5), "other": T(2, 5, 3)},
        lambda e: torch.matmul(e["input"], e["other"]),
    ),
    Case(
        "torch.softmax", fn("torch.softmax"), {"input": M}, lambda e: torch.softmax(e["input"], 1)
    ),
    Case(
        "torch.log_softmax",
        fn("torch.log_softmax"),
        {"input": M},
        lambda e: torch.log_softmax(e["input"], 1),
    ),
    Case(
        "torch.split",
        fn("torch.split"),
        {"tensor": M},
        lambda e: torch.split(e["tensor"], 2),
        check_output=False,
    ),
    Case(
        "torch.tensor_split",
        fn("torch.tensor_split"),
        {"input": M},
        lambda e: torch.tensor_split(e["input"], 2),
        check_output=False,
    ),
    Case(
        "torch.hsplit",
        fn("torch.hsplit"),
        {"input": T(4, 6)},
        lambda e: torch.hsplit(e["input"], 2),
        check_output=False,
    ),
    Case(
        "torch.vsplit",
        fn("torch.vsplit"),
        {"input": M},
        lambda e: torch.vsplit(e["input"], 2),
        check_output=False,
    ),
    Case(
        "torch.dsplit",
        fn("torch.dsplit"),
        {"input": T(2, 3, 4)},
        lambda e: torch.dsplit(e["input"], 2),
        check_output=False,
    ),
    Case("torch.norm", fn("torch.norm"), {"input": M}, lambda e: torch.norm(e["input"])),
    Case(
        "torch.linalg.norm",
        fn("torch.linalg.norm"),
        {"input": M},
        lambda e: torch.linalg.norm(e["input"]),
    ),
    Case(
        "torch.linalg.norm dim",
        fn("torch.linalg.norm"),
        {"input": M},
        lambda e: torch.linalg.norm(e["input"], dim=-1, keepdim=True),
    ),
    Case(
        "torch.linalg.eigh",
        fn("torch.linalg.eigh"),
        {"input": T(4, 4)},
        lambda e: torch.linalg.eigh(e["input"]),
    ),
    Case(
        "torch.linalg.eigvalsh",
        fn("torch.linalg.eigvalsh"),
        {"input": T(4, 4)},
        lambda e: torch.linalg.eigvalsh(e["input"]),
    ),
    Case(
        "torch.linalg.svd",
        fn("torch.linalg.svd"),
        {"input": M},
        lambda e: torch.linalg.svd(e["input"]),
    ),
    Case(
        "torch.conv1d",
        fn("torch.conv1d"),
        {"input": X3, "weight": T(4, 3, 3), "bias": T(4)},
        lambda e: torch.conv1d(e["input"], e["weight"], e["bias"]),
    ),
    Case(
        "torch.conv2d",
        fn("torch.conv2d"),
        {"input": X4, "weight": T(4, 3, 3, 3), "bias": T(4)},
        lambda e: torch.conv2d(e["input"], e["weight"], e["bias"]),
    ),
    Case(
        "torch.conv3d",
        fn("torch.conv3d"),
        {"input": X5, "weight": T(4, 3, 3, 3, 3), "bias": T(4)},
        lambda e: torch.conv3d(e["input"], e["weight"], e["bias"]),
    ),
    Case(
        "torch.conv_transpose2d",
        fn("torch.conv_transpose2d"),
        {"input": X4, "weight": T(3, 4, 3, 3), "bias": T(4)},
        lambda e: torch.conv_transpose2d(e["input"], e["weight"], e["bias"]),
    ),
    Case(
        "torch.batch_norm",
        fn("torch.batch_norm"),
        _bn_tensors(),
        lambda e: torch.batch_norm(
            e["input"],
            e["weight"],
            e["bias"],
            e["running_mean"],
            e["running_var"],
            True,
            0.1,
            1e-5,
            False,
        ),
    ),
    Case(
        "torch.layer_norm",
        fn("torch.layer_norm"),
        {"input": X4, "weight": T(6), "bias": T(6)},
        lambda e: torch.layer_norm(e["input"], (6,), e["weight"], e["bias"]),
    ),
    Case(
        "torch.group_norm",
        fn("torch.group_norm"),
        {"input": X4, "weight": T(3), "bias": T(3)},
        lambda e: torch.group_norm(e["input"], 3, e["weight"], e["bias"]),
    ),
    Case(
        "torch.dropout",
        fn("torch.dropout"),
        {"input": M},
        lambda e: torch.dropout(e["input"], 0.5, True),
    ),
    Case(
        "torch.max_pool2d",
        fn("torch.max_pool2d"),
        {"input": X4},
        lambda e: torch.max_pool2d(e["input"], 2),
    ),
    Case(
        "torch.outer",
        fn("torch.outer"),
        {"input": T(4), "vec2": T(5)},
        lambda e: torch.outer(e["input"], e["vec2"]),
    ),
    Case("torch.square", fn("torch.square"), {"input": M}, lambda e: torch.square(e["input"])),
    # F.X that re-export torch.X / torch._C._nn.X, answered from the table directly.
    activation("torch.nn.functional.hardshrink", lambda e: F.hardshrink(e["input"])),
    Case(
        "torch.nn.functional.glu",
        fn("torch.nn.functional.glu"),
        {"input": T(4, 6)},
        lambda e: F.glu(e["input"]),
    ),
    # Activations, out of place and in place.
    activation("torch.nn.functional.relu", lambda e: F.relu(e["input"])),
    activation(
        "torch.nn.functional.relu", lambda e: F.relu(e["input"], inplace=True), inplace=True
    ),
    activation("torch.nn.functional.relu_", lambda e: F.relu_(e["input"])),
    activation("torch.nn.functional.relu6", lambda e: F.relu6(e["input"])),
    activation(
        "torch.nn.functional.relu6", lambda e: F.relu6(e["input"], inplace=True), inplace=True
    ),
    activation("torch.nn.functional.leaky_relu", lambda e: F.leaky_relu(e["input"])),
    activation(
        "torch.nn.functional.leaky_relu",
        lambda e: F.leaky_relu(e["input"], inplace=True),
        inplace=True,
    ),
    activation("torch.nn.functional.leaky_relu_", lambda e: F.leaky_relu_(e["input"])),
    activation("torch.nn.functional.elu", lambda e: F.elu(e["input"])),
    activation("torch.nn.functional.elu", lambda e: F.elu(e["input"], inplace=True), inplace=True),
    activation("torch.nn.functional.elu_", lambda e: F.elu_(e["input"])),
    activation("torch.nn.functional.selu", lambda e: F.selu(e["input"])),
    activation(
        "torch.nn.functional.selu", lambda e: F.selu(e["input"], inplace=True), inplace=True
    ),
    activation("torch.nn.functional.selu_", lambda e: F.selu_(e["input"])),
    activation("torch.nn.functional.celu", lambda e: F.celu(e["input"])),
    activation(
        "torch.nn.functional.celu", lambda e: F.celu(e["input"], inplace=True), inplace=True
    ),
    activation("torch.nn.functional.celu_", lambda e: F.celu_(e["input"])),
    activation("torch.nn.functional.hardtanh", lambda e: F.hardtanh(e["input"])),
    activation(
        "torch.nn.functional.hardtanh", lambda e: F.hardtanh(e["input"], inplace=True), inplace=True
    ),
    activation("torch.nn.functional.hardtanh_", lambda e: F.hardtanh_(e["input"])),
    activation("torch.nn.functional.hardswish", lambda e: F.hardswish(e["input"])),
    activation(
        "torch.nn.functional.hardswish",
        lambda e: F.hardswish(e["input"], inplace=True),
        inplace=True,
    ),
    activation("torch.nn.functional.hardsigmoid", lambda e: F.hardsigmoid(e["input"])),
    activation(
        "torch.nn.functional.hardsigmoid",
        lambda e: F.hardsigmoid(e["input"], inplace=True),
        inplace=True,
    ),
    activation("torch.nn.functional.silu", lambda e: F.silu(e["input"])),
    activation(
        "torch.nn.functional.silu", lambda e: F.silu(e["input"], inplace=True), inplace=True
    ),
    activation("torch.nn.functional.mish", lambda e: F.mish(e["input"])),
    activation(
        "torch.nn.functional.mish", lambda e: F.mish(e["input"], inplace=True), inplace=True
    ),
    activation("torch.nn.functional.threshold", lambda e: F.threshold(e["input"], 0.1, 0.0)),
    activation(
        "torch.nn.functional.threshold",
        lambda e: F.threshold(e["input"], 0.1, 0.0, inplace=True),
        inplace=True,
    ),
    activation("torch.nn.functional.threshold_", lambda e: F.threshold_(e["input"], 0.1, 0.0)),
    activation("torch.nn.functional.rrelu", lambda e: F.rrelu(e["input"], training=True)),
    activation(
        "torch.nn.functional.rrelu",
        lambda e: F.rrelu(e["input"], training=True, inplace=True),
        inplace=True,
    ),
    activation("torch.nn.functional.rrelu_", lambda e: F.rrelu_(e["input"], training=True)),
    activation("torch.nn.functional.gelu", lambda e: F.gelu(e["input"])),
    activation("torch.nn.functional.sigmoid", lambda e: F.sigmoid(e["input"])),
    activation("torch.nn.functional.tanh", lambda e: F.tanh(e["input"])),
    activation("torch.nn.functional.softplus", lambda e: F.softplus(e["input"])),
    activation("torch.nn.functional.logsigmoid", lambda e: F.logsigmoid(e["input"])),
    activation("torch.nn.functional.softmax", lambda e: F.softmax(e["input"], 1)),
    activation("torch.nn.functional.softmin", lambda e: F.softmin(e["input"], 1)),
    activation("torch.nn.functional.log_softmax", lambda e: F.log_softmax(e["input"], 1)),
    activation("torch.nn.functional.normalize", lambda e: F.normalize(e["input"])),
    # Linear algebra, convolution, normalisation.
    Case(
        "F.linear",
        fn("torch.nn.functional.linear"),
        {"input": M, "weight": T(3, 5), "bias": T(3)},
        lambda e: F.linear(e["input"], e["weight"], e["bias"]),
    ),
    Case(
        "F.linear no bias",
        fn("torch.nn.functional.linear"),
        {"input": M, "weight": T(3, 5)},
        lambda e: F.linear(e["input"], e["weight"]),
    ),
    Case(
        "F.linear 3-D",
        fn("torch.nn.functional.linear"),
        {"input": T(2, 4, 5), "weight": T(3, 5), "bias": T(3)},
        lambda e: F.linear(e["input"], e["weight"], e["bias"]),
    ),
    Case(
        "F.bilinear",
        fn("torch.nn.functional.bilinear"),
        {"input1": M, "input2": T(4, 6), "weight": T(3, 5, 6), "bias": T(3)},
        lambda e: F.bilinear(e["input1"], e["input2"], e["weight"], e["bias"]),
    ),
    *[
        Case(
            f"{name}{' no bias' if not bias else ''}",
            fn(name),
            {"input": T(3, 4), "hx": T(3, 6), "w_ih": T(k * 6, 4), "w_hh": T(k * 6, 6)}
            | ({"b_ih": T(k * 6), "b_hh": T(k * 6)} if bias else {}),
            lambda e, call=call, bias=bias: call(
                e["input"],
                e["hx"],
                e["w_ih"],
                e["w_hh"],
                e["b_ih"] if bias else None,
                e["b_hh"] if bias else None,
            ),
        )
        for name, call, k in [
            ("torch.rnn_tanh_cell", torch.rnn_tanh_cell, 1),
            ("torch.rnn_relu_cell", torch.rnn_relu_cell, 1),
            ("torch.gru_cell", torch.gru_cell, 3),
        ]
        for bias in (True, False)
    ],
    conv_case("torch.nn.functional.conv1d", F.conv1d, X3, T(4, 3, 3)),
    conv_case("torch.nn.functional.conv2d", F.conv2d, X4, T(4, 3, 3, 3)),
    conv_case("torch.nn.functional.conv3d", F.conv3d, X5, T(4, 3, 3, 3, 3)),
    conv_case("torch.nn.functional.conv_transpose1d", F.conv_transpose1d, X3, T(3, 4, 3)),
    conv_case("torch.nn.functional.conv_transpose2d", F.conv_transpose2d, X4, T(3, 4, 3, 3)),
    conv_case("torch.nn.functional.conv_transpose3d", F.conv_transpose3d, X5, T(3, 4, 3, 3, 3)),
    Case(
        "F.batch_norm train",
        fn("torch.nn.functional.batch_norm"),
        _bn_tensors(),
        lambda e: F.batch_norm(
            e["input"], e["running_mean"], e["running_var"], e["weight"], e["bias"], training=True
        ),
    ),
    Case(
        "F.batch_norm eval",
        fn("torch.nn.functional.batch_norm"),
        _bn_tensors(),
        lambda e: F.batch_norm(
            e["input"], e["running_mean"], e["running_var"], e["weight"], e["bias"], training=False
        ),
    ),
    Case(
        "F.layer_norm",
        fn("torch.nn.functional.layer_norm"),
        {"input": X4, "weight": T(6), "bias": T(6)},
        lambda e: F.layer_norm(e["input"], (6,), e["weight"], e["bias"]),
    ),
    Case(
        "F.group_norm",
        fn("torch.nn.functional.group_norm"),
        {"input": X4, "weight": T(3), "bias": T(3)},
        lambda e: F.group_norm(e["input"], 3, e["weight"], e["bias"]),
    ),
    Case(
        # 3-D inputs take the math path on every device; the fused kernels save more (query,
        # key and the output too: measured on 4-D inputs), which the table does not promise
        "F.scaled_dot_product_attention",
        fn("torch.nn.functional.scaled_dot_product_attention"),
        {"query": T(2, 4, 8), "key": T(2, 5, 8), "value": T(2, 5, 8)},
        lambda e: F.scaled_dot_product_attention(e["query"], e["key"], e["value"]),
    ),
    Case(
        "F.scaled_dot_product_attention mask",
        fn("torch.nn.functional.scaled_dot_product_attention"),
        {"query": T(2, 4, 8), "key": T(2, 5, 8), "value": T(2, 5, 8), "attn_mask": T(4, 5)},
        lambda e: F.scaled_dot_product_attention(
            e["query"], e["key"], e["value"], attn_mask=e["attn_mask"]
        ),
    ),
    Case(
        "F.instance_norm",
        fn("torch.nn.functional.instance_norm"),
        {
            "input": X4,
            "running_mean": C(lambda: torch.zeros(3)),
            "running_var": C(lambda: torch.ones(3)),
            "weight": T(3),
            "bias": T(3),
        },
        lambda e: F.instance_norm(
            e["input"],
            e["running_mean"],
            e["running_var"],
            e["weight"],
            e["bias"],
            use_input_stats=True,
        ),
    ),
    # Dropout (training) and its in-place form.
    *[
        Case(
            f"F.{name}",
            fn(f"torch.nn.functional.{name}"),
            {"input": X4},
            call_input(getattr(F, name), 0.5, True),
        )
        for name in (
            "dropout",
            "dropout1d",
            "dropout2d",
            "dropout3d",
            "alpha_dropout",
            "feature_alpha_dropout",
        )
        if name != "dropout1d"
    ],
    Case(
        "F.dropout1d",
        fn("torch.nn.functional.dropout1d"),
        {"input": X3},
        lambda e: F.dropout1d(e["input"], 0.5, True),
    ),
    *[
        Case(
            f"F.{name}(inplace)",
            fn(f"torch.nn.functional.{name}", True),
            {"input": x},
            call_input(getattr(F, name), 0.5, True, True),
        )
        for name, x in (
            ("dropout", X4),
            ("dropout1d", X3),
            ("dropout2d", X4),
            ("dropout3d", X5),
            ("alpha_dropout", X4),
            ("feature_alpha_dropout", X4),
        )
    ],
    # Pooling, padding, resampling.
    Case(
        "F.max_pool1d",
        fn("torch.nn.functional.max_pool1d"),
        {"input": X3},
        lambda e: F.max_pool1d(e["input"], 2),
    ),
    Case(
        "F.max_pool2d",
        fn("torch.nn.functional.max_pool2d"),
        {"input": X4},
        lambda e: F.max_pool2d(e["input"], 2),
    ),
    Case(
        "F.max_pool3d",
        fn("torch.nn.functional.max_pool3d"),
        {"input": X5},
        lambda e: F.max_pool3d(e["input"], 2),
    ),
    Case(
        "F.avg_pool1d",
        fn("torch.nn.functional.avg_pool1d"),
        {"input": X3},
        lambda e: F.avg_pool1d(e["input"], 2),
    ),
    Case(
        "F.avg_pool2d",
        fn("torch.nn.functional.avg_pool2d"),
        {"input": X4},
        lambda e: F.avg_pool2d(e["input"], 2),
    ),
    Case(
        "F.avg_pool3d",
        fn("torch.nn.functional.avg_pool3d"),
        {"input": X5},
        lambda e: F.avg_pool3d(e["input"], 2),
    ),
    Case(
        "F.adaptive_avg_pool1d",
        fn("torch.nn.functional.adaptive_avg_pool1d"),
        {"input": X3},
        lambda e: F.adaptive_avg_pool1d(e["input"], 2),
    ),
    Case(
        "F.adaptive_avg_pool2d",
        fn("torch.nn.functional.adaptive_avg_pool2d"),
        {"input": X4},
        lambda e: F.adaptive_avg_pool2d(e["input"], 2),
    ),
    Case(
        "F.adaptive_avg_pool3d",
        fn("torch.nn.functional.adaptive_avg_pool3d"),
        {"input": X5},
        lambda e: F.adaptive_avg_pool3d(e["input"], 2),
    ),
    Case(
        "F.adaptive_max_pool2d",
        fn("torch.nn.functional.adaptive_max_pool2d"),
        {"input": X4},
        lambda e: F.adaptive_max_pool2d(e["input"], 2),
    ),
    Case(
        "F.pad", fn("torch.nn.functional.pad"), {"input": X4}, lambda e: F.pad(e["input"], (1, 1))
    ),
    Case(
        "F.interpolate nearest",
        fn("torch.nn.functional.interpolate"),
        {"input": X4},
        lambda e: F.interpolate(e["input"], scale_factor=2),
    ),
    Case(
        "F.interpolate bilinear",
        fn("torch.nn.functional.interpolate"),
        {"input": X4},
        lambda e: F.interpolate(e["input"], scale_factor=2, mode="bilinear"),
    ),
    Case(
        "F.embedding",
        fn("torch.nn.functional.embedding"),
        {"input": C(lambda: torch.tensor([1, 2, 3])), "weight": T(10, 4)},
        lambda e: F.embedding(e["input"], e["weight"]),
    ),
    # Losses.
    Case(
        "F.mse_loss",
        fn("torch.nn.functional.mse_loss"),
        {"input": M, "target": T(4, 5)},
        lambda e: F.mse_loss(e["input"], e["target"]),
    ),
    Case(
        "F.l1_loss",
        fn("torch.nn.functional.l1_loss"),
        {"input": M, "target": T(4, 5)},
        lambda e: F.l1_loss(e["input"], e["target"]),
    ),
    Case(
        "F.smooth_l1_loss",
        fn("torch.nn.functional.smooth_l1_loss"),
        {"input": M, "target": T(4, 5)},
        lambda e: F.smooth_l1_loss(e["input"], e["target"]),
    ),
    Case(
        "F.cross_entropy",
        fn("torch.nn.functional.cross_entropy"),
        {"input": M, "target": C(lambda: torch.tensor([0, 1, 2, 3])), "weight": T(5)},
        lambda e: F.cross_entropy(e["input"], e["target"], e["weight"]),
        grad=("input",),
    ),
    Case(
        "F.nll_loss",
        fn("torch.nn.functional.nll_loss"),
        {"input": M, "target": C(lambda: torch.tensor([0, 1, 2, 3]))},
        lambda e: F.nll_loss(e["input"], e["target"]),
    ),
    Case(
        "F.binary_cross_entropy",
        fn("torch.nn.functional.binary_cross_entropy"),
        {"input": M, "target": T(4, 5)},
        lambda e: F.binary_cross_entropy(e["input"], e["target"]),
        grad=("input",),
    ),
    Case(
        "F.binary_cross_entropy_with_logits",
        fn("torch.nn.functional.binary_cross_entropy_with_logits"),
        {"input": M, "target": T(4, 5)},
        lambda e: F.binary_cross_entropy_with_logits(e["input"], e["target"]),
    ),
    Case(
        "F.huber_loss",
        fn("torch.nn.functional.huber_loss"),
        {"input": M, "target": T(4, 5)},
        lambda e: F.huber_loss(e["input"], e["target"]),
    ),
    Case(
        "F.soft_margin_loss",
        fn("torch.nn.functional.soft_margin_loss"),
        {"input": M, "target": C(lambda: torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0]).repeat(4, 1))},
        lambda e: F.soft_margin_loss(e["input"], e["target"]),
        grad=("input",),
    ),
    Case(
        "F.prelu",
        fn("torch.nn.functional.prelu"),
        {"input": M, "weight": T(1)},
        lambda e: F.prelu(e["input"], e["weight"]),
    ),
    Case(
        "torch.cdist",
        fn("torch.cdist"),
        {"x1": M, "x2": T(3, 5)},
        lambda e: torch.cdist(e["x1"], e["x2"]),
    ),
    Case(
        "torch.cdist (past 25 rows: the matmul path)",
        fn("torch.cdist"),
        {"x1": T(30, 5), "x2": T(28, 5)},
        lambda e: torch.cdist(e["x1"], e["x2"]),
    ),
    Case(
        "F.unfold",
        fn("torch.nn.functional.unfold"),
        {"input": T(1, 2, 4, 4)},
        lambda e: F.unfold(e["input"], 2),
    ),
    Case(
        "F.rms_norm",
        fn("torch.nn.functional.rms_norm"),
        {"input": M, "weight": T(5)},
        lambda e: F.rms_norm(e["input"], (5,), e["weight"]),
    ),
]

METHOD_CASES = [
    Case(
        "x.matmul",
        meth("matmul"),
        {"self": M, "other": T(5, 3)},
        lambda e: e["self"].matmul(e["other"]),
    ),
    Case("x.softmax", meth("softmax"), {"self": M}, lambda e: e["self"].softmax(1)),
    Case("x.log_softmax", meth("log_softmax"), {"self": M}, lambda e: e["self"].log_softmax(1)),
    Case("x.square", meth("square"), {"self": M}, lambda e: e["self"].square()),
    Case(
        "x.__setitem__ basic",
        meth("__setitem__"),
        {"self": M, "value": T(5)},
        lambda e: (e["self"].__setitem__(0, e["value"]), e["self"])[1],
        check_output=False,
    ),
    Case(
        "x.__setitem__ index",
        meth("__setitem__"),
        {"self": M, "key": C(lambda: torch.tensor([0, 2])), "value": T(2, 5)},
        lambda e: (e["self"].__setitem__(e["key"], e["value"]), e["self"])[1],
        check_output=False,
    ),
    Case(
        "x.__setitem__ mask",
        meth("__setitem__"),
        {"self": M, "key": C(lambda: torch.rand(4, 5) > 0.5)},
        lambda e: (e["self"].__setitem__(e["key"], 0.0), e["self"])[1],
        check_output=False,
    ),
    Case("x.__getitem__ basic", meth("__getitem__"), {"self": M}, lambda e: e["self"][1:, 0]),
    Case(
        "x.__getitem__ index",
        meth("__getitem__"),
        {"self": M, "key": C(lambda: torch.tensor([0, 2]))},
        lambda e: e["self"][e["key"]] * 1,
        check_view=False,
    ),
    Case("x.split", meth("split"), {"self": M}, lambda e: e["self"].split(2), check_output=False),
    Case(
        "x.split sizes",
        meth("split"),
        {"self": M},
        lambda e: e["self"].split([1, 3]),
        check_output=False,
    ),
    Case(
        "x.tensor_split",
        meth("tensor_split"),
        {"self": M},
        lambda e: e["self"].tensor_split(2),
        check_output=False,
    ),
    Case(
        "x.hsplit",
        meth("hsplit"),
        {"self": T(4, 6)},
        lambda e: e["self"].hsplit(2),
        check_output=False,
    ),
    Case(
        "x.vsplit", meth("vsplit"), {"self": M}, lambda e: e["self"].vsplit(2), check_output=False
    ),
    Case(
        "x.dsplit",
        meth("dsplit"),
        {"self": T(2, 3, 4)},
        lambda e: e["self"].dsplit(2),
        check_output=False,
    ),
    Case(
        "x.unsafe_split",
        meth("unsafe_split"),
        {"self": M},
        lambda e: e["self"].unsafe_split(2),
        check_output=False,
    ),
    Case(
        "x.unsafe_chunk",
        meth("unsafe_chunk"),
        {"self": M},
        lambda e: e["self"].unsafe_chunk(2),
        check_output=False,
    ),
    Case("iter(x)", meth("__iter__"), {"self": M}, lambda e: list(e["self"]), check_output=False),
    Case("x.contiguous", meth("contiguous"), {"self": M}, lambda e: e["self"].t().contiguous()),
    Case("x.to", meth("to"), {"self": M}, lambda e: e["self"].to(torch.float64)),
    Case(
        "x.type_as",
        meth("type_as"),
        {"self": M, "other": C(lambda: torch.zeros(1).double())},
        lambda e: e["self"].type_as(e["other"]),
    ),
    Case(
        "x.float",
        meth("float"),
        {"self": T64(3, 4)},
        lambda e: e["self"].float(),
    ),
    Case("x.double", meth("double"), {"self": M}, lambda e: e["self"].double()),
    Case("x.half", meth("half"), {"self": M}, lambda e: e["self"].half()),
    Case("x.bfloat16", meth("bfloat16"), {"self": M}, lambda e: e["self"].bfloat16()),
    Case("x.cpu", meth("cpu"), {"self": M}, lambda e: e["self"].t().cpu() * 1),
    Case("x.norm", meth("norm"), {"self": M}, lambda e: e["self"].norm()),
    *[
        Case(
            f"x.{name}",
            meth(name),
            {"self": M},
            attribute(name),
            check_output=False,
        )
        for name in ("T", "mT", "H", "mH")
    ],
    Case("x.__radd__", meth("__radd__"), {"self": M}, lambda e: 2 + e["self"]),
    Case("x.__rsub__", meth("__rsub__"), {"self": M}, lambda e: 2 - e["self"]),
    Case("x.__rmul__", meth("__rmul__"), {"self": M}, lambda e: 2 * e["self"]),
    Case("x.__rtruediv__", meth("__rtruediv__"), {"self": M}, lambda e: 2 / e["self"]),
    Case("x.__rdiv__", meth("__rdiv__"), {"self": M}, lambda e: e["self"].__rdiv__(2)),
    Case("x.__rpow__", meth("__rpow__"), {"self": M}, lambda e: 2 ** e["self"]),
    Case(
        "x.__rmatmul__",
        meth("__rmatmul__"),
        {"self": T(5, 3), "other": M},
        lambda e: e["self"].__rmatmul__(e["other"]),
    ),
]


def _complex(requires_grad: bool) -> Any:
    t = torch.randn(3, 4, dtype=torch.cfloat)
    return t.requires_grad_().clone() if requires_grad else t


METHOD_CASES += [
    Case(
        "x.real",
        meth("real"),
        {"self": _complex},
        lambda e: e["self"].real,
        grad=("self",),
        check_output=False,
    ),
    Case(
        "x.imag",
        meth("imag"),
        {"self": _complex},
        lambda e: e["self"].imag,
        grad=("self",),
        check_output=False,
    ),
]


def _id(case: Case) -> str:
    return case.id


@pytest.mark.parametrize("case", FUNCTION_CASES + METHOD_CASES, ids=_id)
def test_surface_entry(case: Case) -> None:
    assert probe(case) == []


def test_every_surface_entry_has_a_case() -> None:
    probed = {c.id.split(" ")[0] for c in FUNCTION_CASES} | {
        c.id.split(" ")[0].removeprefix("x.") for c in METHOD_CASES
    }
    probed = {p.removesuffix("(inplace)") for p in probed}
    aliases = {"F." + q.removeprefix("torch.nn.functional."): q for q in SURFACE["functions"]}
    missing = [
        q
        for q in SURFACE["functions"]
        if q not in probed and not any(a in probed and aliases[a] == q for a in aliases)
    ]
    special = {
        "torch.tensor",
        "torch.as_tensor",
        "torch.from_numpy",
        "torch.detach",
        "torch.einsum",
        "torch.nn.functional.one_hot",
    }
    assert sorted(set(missing) - special) == []
    special_methods = {
        "requires_grad_",
        "retain_grad",
        "detach",
        "detach_",
        "numpy",
        "cuda",
        "__and__",
        "__or__",
        "__xor__",
        "__iter__",
    }
    missing_methods = [
        m for m in SURFACE["methods"] if m not in probed and m not in special_methods
    ]
    assert missing_methods == []


def test_special_methods() -> None:
    x = torch.rand(3).requires_grad_().clone()
    # requires_grad_ changes metadata only: no version bump, no in-place facts.
    y = torch.rand(3)
    v = y._version
    assert y.requires_grad_() is y and y._version == v
    assert tensor_method("requires_grad_").inplace_param is None
    # detach: no view, but the version counter is shared.
    d = x.detach()
    assert not d._is_view() and d._base is None
    v = x._version
    d.add_(1)
    assert x._version > v
    assert tensor_method("detach").version_alias_of == "self"
    assert tensor_method("detach").view_of is None
    assert torch_function("torch.detach").version_alias_of == "input"
    # detach_ does not write data.
    z = torch.rand(3).requires_grad_().clone()
    v = z._version
    z.detach_()
    assert z._version == v and tensor_method("detach_").inplace_param is None
    # numpy shares memory and is no tensor.
    n = torch.zeros(2)
    n.numpy()[0] = 1
    assert n[0] == 1 and not tensor_method("numpy").returns_tensor
    # retain_grad returns None.
    assert x.retain_grad() is None and not tensor_method("retain_grad").returns_tensor
    # Bitwise operators: integer/bool only, not differentiable.
    for op in ("&", "|", "^"):
        facts = binary_operator(op)
        assert facts is not None and not facts.differentiable
        r = BINARY_OPS[op](torch.tensor([1, 2]), torch.tensor([3, 1]))
        assert not r.requires_grad
    # Constructors: new leaves that never require grad unless asked.
    assert (
        not torch.tensor([1.0]).requires_grad and not torch_function("torch.tensor").differentiable
    )
    assert torch_function("torch.tensor", frozenset({"requires_grad"})).differentiable
    assert not torch.as_tensor([1.0]).requires_grad
    assert not torch_function("torch.as_tensor").differentiable
    assert not torch_function("torch.from_numpy").differentiable
    assert torch_function("torch.einsum") is None  # variadic: left unknown
    # one_hot: an integer result, whatever its index came from (topk's indices of a graph)
    scores = torch.rand(4, 3, requires_grad=True).clone()
    hot = F.one_hot(scores.topk(1, dim=-1)[1].squeeze(-1), 3)
    assert not hot.requires_grad and not hot.is_floating_point()
    assert not torch_function("torch.nn.functional.one_hot").differentiable


def test_cast_of_same_dtype_returns_self() -> None:
    """The documented exception to `float`/`to`/`contiguous` being copies."""
    x = torch.rand(3)
    assert x.float() is x and x.to(torch.float32) is x and x.contiguous() is x


# ---------------------------------------------------------------------------------------------
# Python parameter lists in the surface map match the real signatures.


def _signature_params(obj: Any) -> list[str] | None:
    """The real signature for Python functions; torch's override stand-in for builtins."""
    try:
        sig = inspect.signature(obj)
        if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()):
            raise ValueError("a dispatching wrapper")
    except (TypeError, ValueError):
        target = get_testing_overrides().get(obj)
        if target is None:
            return None
        sig = inspect.signature(target)
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in sig.parameters.values() if p.kind in kinds]


def _resolve(qualname: str) -> Any:
    obj: Any = torch
    for part in qualname.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("qualname", sorted(SURFACE["functions"]))
def test_function_params_match_signature(qualname: str) -> None:
    params = SURFACE["functions"][qualname]["params"]
    real = _signature_params(_resolve(qualname))
    if real is None:
        pytest.skip("no Python signature")
    assert real[: len(params)] == params


@pytest.mark.parametrize("name", sorted(SURFACE["methods"]))
def test_method_params_match_signature(name: str) -> None:
    params = SURFACE["methods"][name]["params"]
    attr = inspect.getattr_static(torch.Tensor, name, None)
    if attr is None:
        attr = getattr(torch.Tensor, name)
    if isinstance(attr, property) or type(attr).__name__ == "getset_descriptor":
        assert params == ["self"]
        return
    real = _signature_params(getattr(torch.Tensor, name))
    if real is None:
        pytest.skip("no Python signature")
    # Overrides name the receiver `input` or `self`; the rest must match.
    assert real[1 : len(params)] == params[1:]


@pytest.mark.parametrize("name", sorted(SURFACE["aliases"]))
def test_alias_records_the_target_op(name: str) -> None:
    target = SURFACE["aliases"][name]
    x = torch.rand(3, 4).mul_(0.8).add_(0.1).requires_grad_().clone()
    args = {"clip": (0.2, 0.5), "clip_": (0.2, 0.5), "arctan2": (x.detach(),)}.get(name, ())
    if name in ("concat", "concatenate"):
        got, want = getattr(torch, name)([x, x]), getattr(torch, target)([x, x])
    elif name in (
        "divide",
        "divide_",
        "multiply",
        "multiply_",
        "subtract",
        "subtract_",
        "true_divide",
        "true_divide_",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "not_equal",
    ):
        y = torch.rand(3, 4).add_(0.1)
        got, want = getattr(x.clone(), name)(y), getattr(x.clone(), target)(y)
    else:
        got, want = getattr(x.clone(), name)(*args), getattr(x.clone(), target)(*args)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    assert torch.equal(got, want)
    assert tensor_method(name) == tensor_method(target)


# ---------------------------------------------------------------------------------------------
# Binary operators


@pytest.mark.parametrize("op", sorted(SURFACE["operators"]))
def test_operator(op: str) -> None:
    ints = op in ("&", "|", "^", "<<", ">>")
    make = (lambda: torch.tensor([[3, 5], [6, 7]])) if ints else (lambda: torch.rand(2, 2) + 0.5)
    a, b = make(), make()
    result = BINARY_OPS[op](a, b)
    facts = binary_operator(op)
    assert facts is not None and facts.inplace_param is None
    assert isinstance(result, torch.Tensor)
    # augmented: the same object, written in place; `@=` rebinds
    version = a._version
    rebound = AUGMENTED_OPS[op](a, b)
    aug = binary_operator(op, augmented=True)
    if op == "@":
        assert rebound is not a and a._version == version
        assert aug is not None and aug.inplace_param is None
    else:
        assert rebound is a and a._version > version
        assert aug is not None and aug.inplace_param == "self"


OPERATOR_CASES = (
    [
        Case(
            f"a {op} b",
            partial(binary_operator, op),
            {"self": M, "other": T(4, 5)},
            apply_operator(BINARY_OPS[op]),
        )
        for op in ("+", "-", "*", "/", "%")
    ]
    + [
        Case(
            "a @ b",
            lambda: binary_operator("@"),
            {"self": M, "other": T(5, 3)},
            lambda e: e["self"] @ e["other"],
        ),
        Case("a ** 2", lambda: binary_operator("**"), {"self": M}, lambda e: e["self"] ** 2),
        Case("a * 2", lambda: binary_operator("*"), {"self": M}, lambda e: e["self"] * 2),
        Case("a / 2", lambda: binary_operator("/"), {"self": M}, lambda e: e["self"] / 2),
    ]
    + [
        Case(
            f"a {op}= b",
            partial(binary_operator, op, augmented=True),
            {"self": M, "other": T(4, 5)},
            apply_operator(AUGMENTED_OPS[op]),
            check_output=False,
        )
        for op in ("+", "-", "*", "/")
    ]
    + [
        Case(
            "a **= 2",
            lambda: binary_operator("**", augmented=True),
            {"self": M},
            lambda e: e["self"].__ipow__(2),
            check_output=False,
        ),
    ]
)


@pytest.mark.parametrize("case", OPERATOR_CASES, ids=_id)
def test_operator_saves(case: Case) -> None:
    assert probe(case) == []


# ---------------------------------------------------------------------------------------------
# nn modules


@dataclass
class ModuleCase:
    qualname: str
    keywords: dict[str, Any]
    inputs: dict[str, Factory]
    build: Callable[[], Any] | None = None
    train: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        kw = ",".join(f"{k}={v}" for k, v in self.keywords.items())
        return f"{self.qualname.removeprefix('torch.nn.')}({kw}){'' if self.train else '.eval'}"

    def module(self) -> Any:
        if self.build is not None:
            m = self.build()
        else:
            cls = _resolve(self.qualname)
            positional = {k: v for k, v in self.keywords.items() if k.isdigit()}
            named = {k: v for k, v in self.keywords.items() if not k.isdigit()}
            m = cls(*[positional[k] for k in sorted(positional)], **named)
        return m.train(self.train)


def _mod(qualname: str, x: Factory, *args: Any, train: bool = True, **kw: Any) -> ModuleCase:
    keywords = {str(i): a for i, a in enumerate(args)} | kw
    return ModuleCase(f"torch.nn.{qualname}", keywords, {"input": x}, train=train)


LABELS = C(lambda: torch.tensor([0, 1, 2, 3]))

ACTIVATIONS = [
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "ELU",
    "SELU",
    "CELU",
    "Hardtanh",
    "Hardswish",
    "Hardsigmoid",
    "SiLU",
    "Mish",
    "RReLU",
]
X4s = T(2, 3, 6, 6, low=-0.9)

MODULE_CASES = [
    *[_mod(name, X4s) for name in ACTIVATIONS],
    *[_mod(name, X4s, inplace=True) for name in ACTIVATIONS],
    _mod("ReLU", X4s, True),  # nn.ReLU(True): positional inplace
    _mod("Threshold", X4s, 0.1, 0.0),
    _mod("Threshold", X4s, 0.1, 0.0, inplace=True),
    _mod("GELU", X4s),
    _mod("Sigmoid", X4s),
    _mod("Tanh", X4s),
    _mod("Softplus", X4s),
    _mod("LogSigmoid", X4s),
    _mod("Softmax", X4s, 1),
    _mod("Softmin", X4s, 1),
    _mod("LogSoftmax", X4s, 1),
    _mod("Linear", M, 5, 3),
    _mod("Linear", M, 5, 3, bias=False),
    _mod("Linear", T(2, 4, 5), 5, 3),
    ModuleCase("torch.nn.Bilinear", {"0": 5, "1": 6, "2": 3}, {"input1": M, "input2": T(4, 6)}),
    ModuleCase("torch.nn.RNNCell", {"0": 5, "1": 6}, {"input": M, "hx": T(4, 6)}),
    ModuleCase("torch.nn.RNNCell", {"0": 5, "1": 6, "bias": False}, {"input": M, "hx": T(4, 6)}),
    ModuleCase(
        "torch.nn.RNNCell", {"0": 5, "1": 6, "nonlinearity": "relu"}, {"input": M, "hx": T(4, 6)}
    ),
    ModuleCase("torch.nn.GRUCell", {"0": 5, "1": 6}, {"input": M, "hx": T(4, 6)}),
    ModuleCase("torch.nn.LSTMCell", {"0": 5, "1": 6}, {"input": M, "hx": TS((4, 6), (4, 6))}),
    *[
        ModuleCase(f"torch.nn.{name}", {"0": 5, "1": 6} | kw, {"input": x, "hx": hx})
        for name in ("RNN", "GRU", "LSTM")
        for kw, x, layers in (
            ({}, T(3, 4, 5), 1),
            ({"batch_first": True}, T(4, 3, 5), 1),
            ({"bidirectional": True}, T(3, 4, 5), 2),
            ({"2": 2}, T(3, 4, 5), 2),  # two layers, positionally
        )
        for hx in [TS((layers, 4, 6), (layers, 4, 6)) if name == "LSTM" else T(layers, 4, 6)]
    ],
    ModuleCase(
        "torch.nn.RNN",
        {"0": 5, "1": 6, "nonlinearity": "relu"},
        {"input": T(3, 4, 5), "hx": T(1, 4, 6)},
    ),
    ModuleCase(
        "torch.nn.LSTM",
        {"0": 5, "1": 6, "proj_size": 3},
        {"input": T(3, 4, 5), "hx": TS((1, 4, 3), (1, 4, 6))},
    ),
    _mod("Conv1d", X3, 3, 4, 3),
    _mod("Conv2d", X4, 3, 4, 3),
    _mod("Conv2d", X4, 3, 4, 3, bias=False),
    _mod("Conv3d", X5, 3, 4, 3),
    _mod("ConvTranspose1d", X3, 3, 4, 3),
    _mod("ConvTranspose2d", X4, 3, 4, 3),
    _mod("ConvTranspose3d", X5, 3, 4, 3),
    _mod("BatchNorm1d", M, 5),
    _mod("BatchNorm2d", X4, 3),
    _mod("BatchNorm2d", X4, 3, train=False),
    _mod("BatchNorm2d", X4, 3, affine=False),
    _mod("BatchNorm2d", X4, 3, track_running_stats=False),
    _mod("BatchNorm3d", X5, 3),
    _mod("SyncBatchNorm", X4, 3),
    _mod("LayerNorm", X4, 6),
    _mod("LayerNorm", X4, 6, elementwise_affine=False),
    _mod("LayerNorm", X4, 6, bias=False),
    _mod("GroupNorm", X4, 3, 3),
    _mod("GroupNorm", X4, 3, 3, affine=False),
    _mod("InstanceNorm1d", X3, 3),
    _mod("InstanceNorm2d", X4, 3),
    _mod("InstanceNorm2d", X4, 3, affine=True, track_running_stats=True),
    _mod("InstanceNorm3d", X5, 3),
    ModuleCase(
        "torch.nn.Embedding", {"0": 10, "1": 4}, {"input": C(lambda: torch.tensor([1, 2, 3]))}
    ),
    *[
        _mod(name, x)
        for name, x in (
            ("Dropout", X4),
            ("Dropout1d", X3),
            ("Dropout2d", X4),
            ("Dropout3d", X5),
            ("AlphaDropout", X4),
            ("FeatureAlphaDropout", X4),
        )
    ],
    *[
        _mod(name, x, inplace=True)
        for name, x in (
            ("Dropout", X4),
            ("Dropout1d", X3),
            ("Dropout2d", X4),
            ("Dropout3d", X5),
            ("AlphaDropout", X4),
            ("FeatureAlphaDropout", X4),
        )
    ],
    _mod("MaxPool1d", X3, 2),
    _mod("MaxPool2d", X4, 2),
    _mod("MaxPool3d", X5, 2),
    _mod("AvgPool1d", X3, 2),
    _mod("AvgPool2d", X4, 2),
    _mod("AvgPool3d", X5, 2),
    _mod("AdaptiveAvgPool1d", X3, 2),
    _mod("AdaptiveAvgPool1d", X3, 1),
    _mod("AdaptiveAvgPool2d", X4, 2),
    _mod("AdaptiveAvgPool2d", X4, 1),
    _mod("AdaptiveAvgPool2d", X4, output_size=(1, 1)),
    _mod("AdaptiveAvgPool3d", X5, 2),
    _mod("AdaptiveAvgPool3d", X5, 1),
    _mod("AdaptiveMaxPool2d", X4, 2),
    _mod("Upsample", X4, scale_factor=2),
    _mod("Upsample", X4, scale_factor=2, mode="bilinear"),
    _mod("Flatten", X4),
    _mod("PixelShuffle", T(1, 4, 3, 3), 2),
    _mod("PixelUnshuffle", X4, 2),
    _mod("Unflatten", T(2, 6), 1, (2, 3)),
    *[
        _mod(f"{kind}Pad{n}d", x, 1)
        for kind in ("Reflection", "Replication")
        for n, x in ((1, X3), (2, X4), (3, X5))
    ],
    *[_mod(f"ConstantPad{n}d", x, 1, 0.5) for n, x in ((1, X3), (2, X4), (3, X5))],
    _mod("ZeroPad2d", X4, 1),
    _mod("Identity", X4),
    _mod("PReLU", X4),
    _mod("PReLU", X4, 3),
    _mod("RMSNorm", X4, 6),
    _mod("RMSNorm", X4, 6, elementwise_affine=False),
    *[
        ModuleCase(f"torch.nn.{name}", kw, {"input": M, "target": target})
        for name, kw, target in (
            ("MSELoss", {}, T(4, 5)),
            ("MSELoss", {"reduction": "sum"}, T(4, 5)),
            ("L1Loss", {}, T(4, 5)),
            ("SmoothL1Loss", {}, T(4, 5)),
            ("HuberLoss", {}, T(4, 5)),
            (
                "SoftMarginLoss",
                {},
                C(lambda: torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0]).repeat(4, 1)),
            ),
            ("CrossEntropyLoss", {}, LABELS),
            ("CrossEntropyLoss", {"label_smoothing": 0.1}, LABELS),
            ("CrossEntropyLoss", {"ignore_index": 3}, LABELS),
            ("NLLLoss", {}, LABELS),
            ("BCELoss", {}, T(4, 5)),
            ("BCEWithLogitsLoss", {}, T(4, 5)),
            ("KLDivLoss", {"reduction": "batchmean"}, T(4, 5)),
            ("KLDivLoss", {"reduction": "batchmean"}, C(lambda: torch.rand(4, 5))),
            ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, T(4, 5)),
        )
    ],
]


# Module calls that write their own attributes with a version bump. BatchNorm's training-mode
# update of its running stats bumps none (so calling it twice keeps its saves valid).
VERSION_BUMPING_WRITES = {
    "InstanceNorm2d(0=3,affine=True,track_running_stats=True)": ("running_mean", "running_var"),
}


def test_batchnorm_twice_before_backward_is_fine() -> None:
    bn = nn.BatchNorm2d(3)
    x = torch.randn(2, 3, 4, 4, requires_grad=True)
    version = bn.running_mean._version
    y = bn(x) + bn(x * 2)
    assert bn.running_mean._version == version
    y.sum().backward()  # no error
    bn2 = nn.BatchNorm2d(3)
    y = bn2(x)
    write(bn2.running_mean)  # a user write to a saved buffer does break it
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        y.sum().backward()


def _module_tensors(case: ModuleCase, requiring: set[str]) -> Callable[[], Env]:
    def make() -> Env:
        m = case.module()
        env: Env = {"__module__": m}
        env.update(dict(m.named_parameters()))
        env.update({k: v for k, v in m.named_buffers() if v.is_floating_point()})
        env.update({k: f(k in requiring) for k, f in case.inputs.items()})
        return env

    return make


def _forward(case: ModuleCase) -> Callable[[Env], Any]:
    return lambda env: env["__module__"](*[env[k] for k in case.inputs])


@pytest.mark.parametrize("case", MODULE_CASES, ids=lambda c: c.id)
def test_module(case: ModuleCase) -> None:
    facts = torch_module(case.qualname, case.keywords)
    assert facts is not None
    call = facts.call
    module = case.module()
    attributes = [n for n, _ in module.named_parameters()] + [
        n for n, b in module.named_buffers() if b.is_floating_point()
    ]
    assert facts.has_parameters == bool(list(module.parameters()))
    assert call.params == tuple(case.inputs)
    grad_inputs = [k for k, f in case.inputs.items() if f.__qualname__.startswith("T.")]
    problems = []
    tuple_result = call.result is not None
    # With the input requiring grad (and without: parameters alone record the node).
    for requiring in ([set(grad_inputs)] if grad_inputs else []) + (
        [set()] if facts.has_parameters and grad_inputs else []
    ):
        make, forward = _module_tensors(case, requiring), _forward(case)
        for name in case.inputs:
            if name not in grad_inputs:
                expected = name in call.saves
            else:
                expected = expected_saved(call, name, requiring)
            parts = make()[name]  # a state tuple: each of its tensors is saved, or none
            targets = [(name, i) for i in range(len(parts))] if isinstance(parts, tuple) else [name]
            for target in targets:
                if breaks_backward(make, forward, target, tuple_result) != expected:
                    problems.append(f"input {target} saved != {expected} (requiring {requiring})")
        triggers = dict(facts.attribute_triggers)
        for name in attributes:
            expected = (
                any(fnmatch.fnmatchcase(name, a) for a in facts.saved_attributes)
                or name in facts.inplace_buffers
            )
            if not (requiring or not grad_inputs):  # inputs not requiring grad: no trigger holds
                expected = expected and not any(fnmatch.fnmatchcase(name, t) for t in triggers)
            if breaks_backward(make, forward, name, tuple_result) != expected:
                problems.append(f"attribute {name} saved != {expected} (requiring {requiring})")
        if (
            call.inplace_param is None
            and breaks_backward(make, forward, 0, tuple_result) != call.saves_output
        ):
            problems.append(f"output saved != {call.saves_output} (requiring {requiring})")
        if tuple_result:  # the other outputs are fresh tensors nothing saves
            result = forward(make())
            assert len(outputs(result)) == len(_flat_names(call.result))
            for index in range(1, len(outputs(result))):
                if breaks_backward(make, forward, index, all_outputs=True):
                    problems.append(f"output {index} is saved (requiring {requiring})")
    env = _module_tensors(case, set(grad_inputs))()
    versions = {k: env[k]._version for k in attributes}
    x = env[next(iter(case.inputs))]
    version = x._version
    out = _forward(case)(env)
    if call.result is not None:
        assert isinstance(out, tuple) and len(out) == len(call.result)
        for part, shape in zip(out, call.result):
            assert isinstance(part, tuple) == isinstance(shape, tuple)
    if call.inplace_param is not None:
        assert out is x and x._version > version, "inplace=True did not write the input"
    else:
        assert x._version == version
    if call.view_of is not None:
        assert out is x or out._base is _base(x)
    written = tuple(k for k in attributes if env[k]._version > versions[k])
    assert written == VERSION_BUMPING_WRITES.get(case.id, ())
    assert problems == []


@pytest.mark.parametrize(
    "case",
    [
        c
        for c in MODULE_CASES
        if getattr(torch_module(c.qualname, c.keywords), "frozen_saves", None) is not None
    ],
    ids=lambda c: c.id,
)
def test_frozen_module(case: ModuleCase) -> None:
    """With `requires_grad_(False)` on the module, an input is saved exactly as
    ``ModuleFacts.frozen_saves`` says (a frozen Linear keeps no input)."""
    facts = torch_module(case.qualname, case.keywords)
    call = replace(facts.call, saves=facts.frozen_saves)
    grad_inputs = [k for k, f in case.inputs.items() if f.__qualname__.startswith("T.")]
    if not grad_inputs:
        return
    requiring = set(grad_inputs)

    def make() -> Env:
        m = case.module().requires_grad_(False)
        env: Env = {"__module__": m}
        env.update({k: f(k in requiring) for k, f in case.inputs.items()})
        return env

    problems = []
    for name in grad_inputs:
        parts = make()[name]
        targets = [(name, i) for i in range(len(parts))] if isinstance(parts, tuple) else [name]
        expected = expected_saved(call, name, requiring)
        for target in targets:
            if breaks_backward(make, _forward(case), target, call.result is not None) != expected:
                problems.append(f"input {target} saved != {expected} when frozen")
    assert problems == []


def _flat_names(shape: tuple) -> list[str]:
    return [n for slot in shape for n in (_flat_names(slot) if isinstance(slot, tuple) else [slot])]


def test_module_positional_and_unknown_keywords() -> None:
    assert torch_module("torch.nn.ReLU", {"0": True}).call.inplace_param == "input"
    assert torch_module("torch.nn.ReLU", {0: True}).call.inplace_param == "input"
    unknown = object()
    assert torch_module("torch.nn.ReLU", {"inplace": unknown}).call.inplace_param is None
    for name in ("Sequential", "ModuleList", "ModuleDict"):
        facts = torch_module(f"torch.nn.{name}", {})
        assert facts is not None and facts.container
        assert isinstance(getattr(nn, name)(), nn.Module)


def test_every_module_has_a_case() -> None:
    probed = {c.qualname for c in MODULE_CASES}
    containers = {q for q, e in SURFACE["modules"].items() if e.get("container")}
    assert sorted(set(SURFACE["modules"]) - probed - containers) == []


@pytest.mark.parametrize("qualname", sorted(SURFACE["modules"]))
def test_module_init_params_match_signature(qualname: str) -> None:
    init = SURFACE["modules"][qualname].get("init")
    if not init:
        return
    cls = _resolve(qualname)
    real = _signature_params(cls.__init__)
    if real is None and qualname in POSITIONAL_PROBES:
        # `__init__(*args, **kwargs)` (nn.RNN/LSTM/GRU): build one with every listed parameter
        # passed positionally and read each back from the instance
        values = POSITIONAL_PROBES[qualname]
        names = [n for n in init if n not in ("device", "dtype")]
        module = cls(*[values[n] for n in names])
        assert [getattr(module, n) for n in names] == [values[n] for n in names]
        return
    assert real is not None
    assert real[1 : len(init) + 1] == init


# Constructor values, each telling its parameter apart from its neighbours.
_RECURRENT = {"input_size": 5, "hidden_size": 6, "num_layers": 2, "bias": False}
_RECURRENT |= {"batch_first": True, "dropout": 0.25, "bidirectional": True}
POSITIONAL_PROBES = {
    "torch.nn.RNN": _RECURRENT | {"nonlinearity": "relu"},
    "torch.nn.GRU": _RECURRENT,
    "torch.nn.LSTM": _RECURRENT | {"proj_size": 3},
}


# ---------------------------------------------------------------------------------------------
# A broad sample of the generated table, probed automatically: every unary and binary method
# with a single Python-visible overload, every in-place unary method, views and multi-views.

with _OPS_PATH.open() as _f:
    _TABLE = json.load(_f)
NAMES = _TABLE["names"]
OVERLOADS = _TABLE["overloads"]


def _calls(entry: dict[str, Any]) -> list[dict[str, Any]]:
    return [OVERLOADS[o] for o in entry["overloads"] if "out" not in OVERLOADS[o]]


def _recorded(entry: dict[str, Any]) -> bool:
    return not any(k in entry for k in ("composite", "manual", "no_formula")) and entry.get(
        "differentiable", True
    )


def _unary(name: str) -> bool:
    entry = NAMES[name]
    calls = _calls(entry)
    return (
        len(calls) == 1
        and calls[0].get("tensor_params") == ["self"]
        and "method" in entry.get("variants", ())
        and _recorded(entry)
        and "view" not in entry
    )


def _binary(name: str) -> bool:
    entry = NAMES[name]
    calls = _calls(entry)
    return (
        len(calls) == 1
        and len(calls[0].get("tensor_params", ())) == 2
        and calls[0]["params"][:2] == calls[0]["tensor_params"]
        and "method" in entry.get("variants", ())
        and _recorded(entry)
        and not name.endswith("_")
    )


UNARY = sorted(n for n in NAMES if _unary(n))
BINARY = sorted(n for n in NAMES if _binary(n))


def _sample_problems(names: list[str], build: Callable[[str], Case]) -> tuple[int, list[str]]:
    checked, problems = 0, []
    for name in names:
        case = build(name)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated ops still count
                result = case.call(maker(case.tensors, case.grad_names())())
                outputs(result)[0].float().sum().backward()
        except (RuntimeError, TypeError, NotImplementedError):
            continue  # needs other arguments or dtypes, or has no derivative
        checked += 1
        problems += probe(case)
    return checked, problems


def test_table_unary_sample() -> None:
    def build(name: str) -> Case:
        return Case(name, meth(name), {"self": T(3, 4)}, call_method(name))

    checked, problems = _sample_problems(UNARY, build)
    assert problems == []
    assert checked >= 90, f"only {checked} unary ops ran"


def test_table_binary_sample() -> None:
    def build(name: str) -> Case:
        other = NAMES[name]["params"][1]
        return Case(
            name,
            meth(name),
            {"self": T(4, 4), other: T(4, 4)},
            call_method(name, other),
        )

    checked, problems = _sample_problems(BINARY, build)
    assert problems == []
    assert checked >= 15, f"only {checked} binary ops ran"


def test_table_inplace_sample() -> None:
    names = sorted(
        n + "_"
        for n in UNARY
        if n + "_" in NAMES and "method" in NAMES[n + "_"].get("variants", ())
    )

    def build(name: str) -> Case:
        return Case(name, meth(name), {"self": T(3, 4)}, call_method(name))

    checked, problems = _sample_problems(names, build)
    assert problems == []
    assert checked >= 40, f"only {checked} in-place ops ran"


VIEW_CALLS = {
    "view": lambda x: x.view(-1),
    "view_as": lambda x: x.view_as(torch.empty(12)),
    "t": lambda x: x.t(),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.permute(1, 0),
    "narrow": lambda x: x.narrow(0, 1, 2),
    "expand": lambda x: x[:1].expand(3, 4),
    "expand_as": lambda x: x[:1].expand_as(x),
    "select": lambda x: x.select(0, 1),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "diagonal": lambda x: x.diagonal(),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 1)),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "unfold": lambda x: x.unfold(1, 2, 2),
    "reshape": lambda x: x.reshape(-1),
    "reshape_as": lambda x: x.reshape_as(torch.empty(12)),
    "flatten": lambda x: x.flatten(),
    "ravel": lambda x: x.ravel(),
    "movedim": lambda x: x.movedim(0, 1),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "alias": lambda x: torch.ops.aten.alias(x),
    "slice": lambda x: x[1:],
}
MULTI_VIEW_CALLS = {
    "split": lambda x: x.split(1),
    "split_with_sizes": lambda x: x.split_with_sizes([1, 2]),
    "chunk": lambda x: x.chunk(3),
    "unbind": lambda x: x.unbind(),
}


@pytest.mark.parametrize("name", sorted(VIEW_CALLS))
def test_table_views(name: str) -> None:
    facts = tensor_method(name)
    assert facts is not None and facts.view_of == "self"
    x = torch.rand(3, 4).requires_grad_().clone()
    out = VIEW_CALLS[name](x)
    assert out._is_view() and out._base is x
    assert facts.saves == {}


@pytest.mark.parametrize("name", sorted(MULTI_VIEW_CALLS))
def test_table_multi_views(name: str) -> None:
    facts = tensor_method(name)
    assert facts is not None and facts.multi_view_of == "self"
    x = torch.rand(3, 4).requires_grad_().clone()
    parts = MULTI_VIEW_CALLS[name](x)
    assert parts[0]._base is x and raises_multi_view(parts[-1])


def test_unsafe_splits_are_not_views() -> None:
    for name in ("unsafe_split", "unsafe_chunk"):
        facts = tensor_method(name)
        assert facts is not None and facts.multi_view_of is None and facts.view_of is None
        x = torch.rand(3, 4).requires_grad_().clone()
        parts = getattr(x, name)(1 if name == "unsafe_split" else 3)
        assert not parts[0]._is_view()
        parts[0].mul_(2)  # allowed


def test_overload_merge_cases() -> None:
    """The documented approximations of the per-name merge, as torch really behaves."""
    x = T(3, 4)(True)
    # x ** 2 saves x, not its result (the merge conditions the result on a tensor exponent).
    facts = binary_operator("**")
    assert facts.saves["self"] == ALWAYS and not facts.saves_output
    assert breaks_backward(lambda: {"x": T(3, 4)(True)}, lambda e: e["x"] ** 2, "x")
    assert not breaks_backward(lambda: {"x": T(3, 4)(True)}, lambda e: e["x"] ** 2, 0)
    # x / 2 saves nothing the user holds; x / y saves y always and x when y requires grad.
    assert facts is not None and x is not None
    make = maker({"x": T(3, 4), "y": T(3, 4)}, {"x"})
    assert not breaks_backward(make, lambda e: e["x"] / e["y"], "x")
    assert breaks_backward(make, lambda e: e["x"] / e["y"], "y")


def test_generated_table_matches_installed_torch() -> None:
    from importlib import metadata

    assert _TABLE["torch"] == metadata.version("torch").split("+")[0]


def test_sample_sizes() -> None:
    """The automatic samples stay broad as torch evolves."""
    assert len(UNARY) >= 80 and len(BINARY) >= 20


@pytest.mark.parametrize(
    "equation, shapes",
    [
        ("nc,ck->nk", ((2, 3), (3, 4))),
        ("bhid,bhjd->bhij", ((2, 2, 3, 4), (2, 2, 5, 4))),
        ("bhij,bhjd->bhid", ((2, 2, 3, 5), (2, 2, 5, 4))),
        ("nc,nc->n", ((2, 3), (2, 3))),
        ("i,j->ij", ((3,), (4,))),
        ("b i d, b j d -> b i j", ((2, 3, 4), (2, 5, 4))),
        ("...d,...d->...", ((2, 3, 4), (2, 3, 4))),
    ],
)
def test_einsum_of_two_operands_saves_each_iff_the_other_requires_grad(equation, shapes) -> None:
    """What dataflow._einsum assumes: for two operands that sum away only shared indices, torch
    saves each operand iff the other requires grad (matmul's facts, from the generated table),
    so writing one afterwards breaks the backward exactly then."""
    from inplace_lint.analysis.dataflow import _einsum_pairs_operands

    assert _einsum_pairs_operands(equation) is True
    facts = torch_function("torch.matmul")
    assert facts.saves == {"input": ("other",), "other": ("input",)}
    for written in (0, 1):
        for other_requires_grad in (True, False):
            w = torch.randn(*shapes[written], requires_grad=True)
            operands = [None, None]
            operands[written] = w * 1.0  # requires grad; not a leaf, so it may be written
            other = torch.randn(*shapes[1 - written], requires_grad=other_requires_grad)
            operands[1 - written] = other * 1.0 if other_requires_grad else other
            out = torch.einsum(equation, *operands)
            with torch.no_grad():
                operands[written].add_(1.0)
            raised = False
            try:
                out.sum().backward()
            except RuntimeError as error:
                assert "modified by an inplace operation" in str(error)
                raised = True
            assert raised is other_requires_grad, (equation, written, other_requires_grad)


def test_einsum_equations_left_unknown() -> None:
    """An operand summed over an index the other lacks is reduced first (`ij,k->i`: the sum of
    `k` is what the product saves), one operand or three is no single contraction: unknown."""
    from inplace_lint.analysis.dataflow import _einsum_pairs_operands

    assert _einsum_pairs_operands("ij,k->i") is False
    assert _einsum_pairs_operands("ij,jk") is True  # implicit output: "ik"
    assert _einsum_pairs_operands("ii->i") is None
    assert _einsum_pairs_operands("ij,jk,kl->il") is None
    k = torch.randn(4, requires_grad=True) * 1.0
    a = torch.randn(2, 3, requires_grad=True)
    out = torch.einsum("ij,k->i", a, k)
    with torch.no_grad():
        k.add_(1.0)
    out.sum().backward()  # k was reduced before the product: not saved


_REDUCTION_REDIRECTS = sorted(
    o for o, e in SURFACE.get("overloads", {}).items() if e["op"].endswith(".correction")
)


@pytest.mark.parametrize("overload", _REDUCTION_REDIRECTS)
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"unbiased": False},
        {"dim": 1, "keepdim": True},
        {"dim": 1, "keepdim": True, "unbiased": False},
    ],
)
def test_reduction_redirect_saves_what_torch_saves(overload: str, kwargs: dict) -> None:
    """torch_surface.toml [overloads] of var / std: however the call is spelled (`unbiased=`,
    `keepdim=`), the input counts as saved, and writing it after the call breaks backward
    (TimesNet's `x_enc /= stdev`)."""
    from inplace_lint.analysis.knowledge import resolve_overload

    name = overload.split(".")[0]
    facts = resolve_overload(
        "torch", torch_function(f"torch.{name}"), ("tensor",), frozenset(kwargs)
    )
    assert facts is not None and "input" in facts.saves, (overload, kwargs)
    call = lambda e: getattr(torch, name)(e["input"], **kwargs)
    make = maker({"input": T(3, 4)}, {"input"})
    assert breaks_backward(make, call, "input"), (overload, kwargs)


_WHERE_REDIRECTS = sorted(o for o in SURFACE.get("overloads", {}) if o.startswith("where."))


@pytest.mark.parametrize("overload", _WHERE_REDIRECTS)
def test_where_with_a_scalar_saves_the_condition(overload: str) -> None:
    """torch_surface.toml [overloads] of `where` with a Python number for one branch: it calls
    where.self, which saves the condition; writing the condition after the call (`cond &= m`)
    breaks backward, as the facts say."""
    from inplace_lint.analysis.knowledge import resolve_overload

    scalar_other = overload == "where.ScalarOther"
    kinds = ("tensor", "tensor", "scalar") if scalar_other else ("tensor", "scalar", "tensor")
    facts = resolve_overload("torch", torch_function("torch.where"), kinds, frozenset())
    assert facts is not None and "condition" in facts.saves, overload
    w = torch.randn(3, requires_grad=True)
    cond = torch.tensor([True, False, True])
    out = torch.where(cond, w, 0.0) if scalar_other else torch.where(cond, 0.0, w)
    cond &= torch.tensor([True, True, False])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.pow(2).sum().backward()


@pytest.mark.parametrize(
    "overload",
    sorted(
        o
        for o in SURFACE.get("overloads", {})
        if o not in _REDUCTION_REDIRECTS and o not in _WHERE_REDIRECTS
    ),
)
def test_overload_redirect_saves_what_torch_saves(overload: str) -> None:
    """torch_surface.toml [overloads]: a composite overload takes its callee's saves. Proven on
    the two-tensor call (`torch.max(a, b)`): each operand the facts call saved breaks backward
    when written after the call, and the others do not."""
    from inplace_lint.analysis.knowledge import resolve_overload

    name = overload.split(".")[0]
    facts = resolve_overload(
        "torch", torch_function(f"torch.{name}"), ("tensor", "tensor"), frozenset()
    )
    assert facts is not None and set(facts.saves) == {"input", "other"}
    call = lambda e: getattr(torch, name)(e["input"], e["other"])
    for requiring in ({"input", "other"}, {"input"}, {"other"}):
        make = maker({"input": T(3, 4), "other": T(3, 4)}, requiring)
        for target in ("input", "other"):
            expected = expected_saved(facts, target, requiring)
            assert breaks_backward(make, call, target) == expected, (overload, target, requiring)


@pytest.mark.parametrize(
    ("name", "shape", "size"),
    [
        ("adaptive_avg_pool1d", (1, 2, 4), 1),
        ("adaptive_avg_pool2d", (1, 2, 4, 4), 1),
        ("adaptive_avg_pool2d", (1, 2, 4, 4), (1, 1)),
        ("adaptive_avg_pool3d", (1, 2, 4, 4, 4), 1),
    ],
)
def test_functional_saves_nothing_if_holds(name: str, shape: tuple, size) -> None:
    """torch_surface.toml [functions] `saves_nothing_if`: `F.adaptive_avg_pool2d(x, 1)` is a mean,
    so writing `x` after it does not break backward (RCAN's channel attention `x.mul_(y)`)."""
    from inplace_lint.analysis import knowledge as kb

    conditions = kb.saves_nothing_if(f"torch.nn.functional.{name}")
    assert conditions and kb.saves_nothing_with(conditions, {"output_size": size})
    call = lambda e: getattr(F, name)(e["input"], size)
    make = maker({"input": T(*shape)}, {"input"})
    assert not breaks_backward(make, call, "input")
    bigger = lambda e: getattr(F, name)(e["input"], 2)
    assert not kb.saves_nothing_with(conditions, {"output_size": 2})
    assert breaks_backward(make, bigger, "input")  # the control: size 2 saves the input
