"""The analysis' single door to the knowledge tables.

Saves, views and in-place variants come from the generated tables behind
``inplace_lint.knowledge`` (torch) and ``inplace_lint.knowledge.paddle_facts``; this module only
dispatches by framework and holds the few API-surface facts that are about Python names rather
than about autograd formulas (which context managers switch grad mode, which calls run backward,
which classes are optimizers or constructors).
"""

from __future__ import annotations

from functools import lru_cache

from inplace_lint.analysis.values import replace
from inplace_lint.knowledge import facts as _facts

UNKNOWN_LITERAL = object()
# Keys of a constructor's literal keywords (dataflow._literal_keywords) for `*args` (the position
# it starts at) and `**kwargs`: the parameters they may fill are not known.
SPREAD_POSITIONAL = "*"
SPREAD_KEYWORDS = "**"

# torch's mixed-precision regions (`with torch.autocast("cuda"):`)
AUTOCAST_CONTEXTS = frozenset(
    {
        "torch.autocast",
        "torch.amp.autocast",
        "torch.amp.autocast_mode.autocast",
        "torch.cuda.amp.autocast",
        "torch.cpu.amp.autocast",
    }
)
# The ops (by the node they record) that autocast runs in lower precision on CPU and CUDA: an
# fp32 input is cast, and the op saves the cast copy, not the tensor (measured, with the output
# dtype, by scripts/measure_autocast_ops.py; `mv`, `addmv`, `addr`, `bilinear` stay fp32 on CPU
# and are left out)
AUTOCAST_LOWER_PRECISION = frozenset(
    {"addmm", "mm", "bmm", "baddbmm", "addbmm", "convolution", "_convolution", "_prelu_kernel"}
)
NO_GRAD_CONTEXTS = frozenset(
    {
        "torch.no_grad",
        "torch.inference_mode",
        "torch.autograd.no_grad",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.grad_mode.inference_mode",
        "paddle.no_grad",
        "paddle.autograd.no_grad",
        "paddle.base.dygraph.no_grad",
        "paddle.base.dygraph.base.no_grad",
        "paddle.framework.no_grad",  # (PaddleFleetX's tensor_fusion_helper)
        "paddle.fluid.dygraph.no_grad",
        "paddle.fluid.dygraph.base.no_grad",
    }
)
# Decorators that compile the function for another runtime (Taichi, Numba, Triton): its body
# writes the tensors' memory directly, where autograd never sees it (stable-dreamfusion's
# `@ti.kernel` filling a Parameter's hash table: no error, no version bump).
JIT_KERNEL_DECORATORS = frozenset(
    {
        "taichi.kernel",
        "taichi.func",
        "taichi.lang.kernel_impl.kernel",
        "numba.jit",
        "numba.njit",
        "numba.cuda.jit",
        "numba.vectorize",
        "numba.guvectorize",
        "numba.stencil",
        "triton.jit",
        "triton.autotune",
        "triton.heuristics",
    }
)
ENABLE_GRAD_CONTEXTS = frozenset(
    {"torch.enable_grad", "torch.autograd.enable_grad", "paddle.enable_grad"}
)
SET_GRAD_ENABLED = frozenset(
    {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "paddle.set_grad_enabled"}
)
BACKWARD_FUNCTIONS = frozenset(
    {
        "torch.autograd.backward",
        "torch.autograd.grad",
        "paddle.autograd.backward",
        "paddle.grad",
        "paddle.autograd.grad",
    }
)
FROM_NUMPY = frozenset({"torch.from_numpy", "torch.as_tensor", "torch.asarray"})
PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# Reparametrisations that return the module they are given, which computes what it did (its
# weight now derived from new parameters): weight / spectral normalisation, orthogonality.
MODULE_WRAPPERS = frozenset(
    {
        "torch.nn.utils.weight_norm",
        "torch.nn.utils.spectral_norm",
        "torch.nn.utils.weight_norm.weight_norm",
        "torch.nn.utils.spectral_norm.spectral_norm",
        "torch.nn.utils.parametrizations.weight_norm",
        "torch.nn.utils.parametrizations.spectral_norm",
        "torch.nn.utils.parametrizations.orthogonal",
    }
)
BUFFER_CLASSES = frozenset({"torch.nn.Buffer", "torch.nn.parameter.Buffer"})
PADDLE_CREATE_PARAMETER = frozenset({"paddle.create_parameter", "paddle.static.create_parameter"})
PADDLE_NO_BUMP_METHODS = frozenset({"set_value", "copy_"})
NUMPY_INPLACE_METHODS = frozenset({"fill", "sort", "put", "resize", "partition", "itemset"})
# nn.Module methods that write the module's own tensors in place (under no_grad inside torch)
MODULE_RESET_METHODS = frozenset({"reset_running_stats", "reset_parameters"})
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})
COPYING_METHODS = frozenset({"contiguous_copy", "copy"})

_CONSTRUCTORS = frozenset(
    [
        "tensor",
        "as_tensor",
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "randperm",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "rand_like",
        "randn_like",
        "randint_like",
        "normal",
        "bernoulli",
        "to_tensor",
        "uniform",
    ]
)
_NOOP_PREFIXES = (
    "torch.nn.init.",
    "torch.nn.utils.clip_grad",
    "torch.cuda.",
    "torch.manual_seed",
    "torch.save",
    "torch.load",
    "paddle.seed",
    "paddle.nn.initializer.",
    "torch.distributed.",
    "torch.set_",
    "torch.backends.",
    "torch.utils.",
    "torch.jit.",
    "paddle.set_device",
    "paddle.save",
    "paddle.load",
)


def is_constructor(qual: str) -> bool:
    head, _, name = qual.rpartition(".")
    return head in ("torch", "paddle") and name in _CONSTRUCTORS


def is_noop_framework_call(qual: str) -> bool:
    return qual.startswith(_NOOP_PREFIXES)


def is_optimizer_class(qual: str) -> bool:
    parts = qual.split(".")
    if len(parts) < 3 or not parts[-1][:1].isupper():
        return False
    return (
        qual.startswith(("torch.optim.", "paddle.optimizer."))
        and "lr_scheduler" not in qual
        and "lr." not in qual
    )


def looks_like_optimizer(name: str) -> bool:
    last = name.rsplit(".", 1)[-1].lower()
    return last.startswith("opt") or "optim" in last


def is_module_class(qual: str) -> bool:
    parts = qual.split(".")
    return (
        len(parts) >= 3
        and parts[1] == "nn"
        and parts[0] in ("torch", "paddle")
        and parts[-1][:1].isupper()
        and parts[2] not in ("functional", "init", "utils", "initializer")
        and parts[-1] not in ("Parameter", "Module", "Layer")
    )


@lru_cache(maxsize=4096)
def _function_cached(qual: str, keywords: frozenset[str], inplace: bool):
    if qual.startswith("paddle."):
        from inplace_lint.knowledge import paddle_facts

        return paddle_facts.paddle_function(qual, inplace=inplace)
    from inplace_lint.knowledge import torch_facts

    return torch_facts.torch_function(qual, keywords, inplace=inplace)


def function(qual: str, keywords: frozenset[str], inplace: bool) -> _facts.OpFacts | None:
    return _function_cached(qual, keywords, inplace)


@lru_cache(maxsize=4096)
def method(fw: str, name: str) -> _facts.OpFacts | None:
    if fw == "paddle":
        from inplace_lint.knowledge import paddle_facts

        return paddle_facts.paddle_method(name)
    from inplace_lint.knowledge import torch_facts

    return torch_facts.tensor_method(name)


@lru_cache(maxsize=256)
def binary_operator(fw: str, op: str, augmented: bool) -> _facts.OpFacts | None:
    if fw == "paddle":
        from inplace_lint.knowledge import paddle_facts

        return paddle_facts.paddle_binary_operator(op, augmented=augmented)
    from inplace_lint.knowledge import torch_facts

    return torch_facts.binary_operator(op, augmented=augmented)


def module_class(qual: str, keywords: dict[str, object]) -> _facts.ModuleFacts | None:
    if qual.startswith("paddle."):
        from inplace_lint.knowledge import paddle_facts

        clean = {
            k: v
            for k, v in keywords.items()
            if v is not UNKNOWN_LITERAL and k not in (SPREAD_POSITIONAL, SPREAD_KEYWORDS)
        }
        return paddle_facts.paddle_layer(qual, clean)
    if qual.startswith("torch."):
        from inplace_lint.knowledge import torch_facts

        # a value that is not a literal, or one `*args` / `**kwargs` may pass, is unknown: the
        # facts that depend on it make no promise (`nn.LSTM(**cfg)` saves its input only if
        # `cfg` does not make it batch-first)
        named = {
            k: (torch_facts.UNKNOWN if v is UNKNOWN_LITERAL else v)
            for k, v in keywords.items()
            if k not in (SPREAD_POSITIONAL, SPREAD_KEYWORDS)
        }
        init = list(torch_facts.module_init_params(qual))
        given = set(_facts.named_keywords(named, init))
        start = keywords.get(SPREAD_POSITIONAL)
        spread = init[start:] if isinstance(start, int) else []
        if SPREAD_KEYWORDS in keywords:
            spread = init
        for name in spread:
            if name not in given:
                named[name] = torch_facts.UNKNOWN
        return torch_facts.torch_module(qual, named)
    return None


def torch_module_init_params(qual: str) -> tuple[str, ...]:
    from inplace_lint.knowledge import torch_facts

    return torch_facts.module_init_params(qual)


def is_inplace_method_name(fw: str, name: str) -> bool:
    if fw == "paddle":
        from inplace_lint.knowledge import paddle_facts

        return paddle_facts.is_paddle_inplace_method(name)
    from inplace_lint.knowledge import torch_facts

    return torch_facts.is_torch_inplace_method(name)


@lru_cache(maxsize=1)
def _torch_overloads() -> dict:
    import json
    from pathlib import Path

    path = Path(_facts.__file__).with_name("torch_ops.json")
    return json.loads(path.read_text(encoding="ascii"))["overloads"]


def _replace_facts(facts: _facts.OpFacts, **changes) -> _facts.OpFacts:
    return replace(facts, **changes)  # values.replace: OpFacts is a plain frozen dataclass


@lru_cache(maxsize=2048)
def _call_overloads(name: str) -> tuple[tuple[str, dict], ...]:
    """The generated per-overload entries of `name` that a Python call can resolve to; a
    composite overload the surface map redirects (`max.other` -> `maximum`) has its callee's
    saves, under its own parameters."""
    table = _torch_overloads()
    names = _overloads_by_prefix().get(name, ())  # keys equal to `name` or starting `name.`
    redirects = _overload_redirects()
    out = []
    for k in names:
        entry = table[k]
        if not ("grad_inputs" in entry or entry.get("composite")) or k.endswith("out"):
            continue
        target = redirects.get(k)
        if target is not None and target in table:
            entry = {**table[target], "params": entry.get("params", [])}
            entry["tensor_params"] = table[k].get("tensor_params", [])
        out.append((k, entry))
    return tuple(out)


@lru_cache(maxsize=1)
def _overload_redirects() -> dict[str, str]:
    """torch_surface.toml's [overloads]: composite overload -> the op that records its node."""
    from inplace_lint.knowledge.torch_facts import _surface

    return {k: v["op"] for k, v in _surface().get("overloads", {}).items()}


@lru_cache(maxsize=1)
def _overloads_by_prefix() -> dict[str, list[str]]:
    """Every overload key under each of its dotted prefixes (`add.Tensor` under `add` and
    `add.Tensor`), in table order: one lookup instead of a scan of the table per name."""
    index: dict[str, list[str]] = {}
    for key in _torch_overloads():
        parts = key.split(".")
        for end in range(1, len(parts) + 1):
            index.setdefault(".".join(parts[:end]), []).append(key)
    return index


@lru_cache(maxsize=512)
def saves_nothing_if(qual: str):
    """torch_surface.toml: the literal arguments for which a function saves nothing."""
    from inplace_lint.knowledge import torch_facts

    return torch_facts.function_saves_nothing_if(qual)


@lru_cache(maxsize=512)
def explicit_saves(qual: str) -> bool:
    """torch_surface.toml writes this function's saves out (``resolve_overload`` keeps them)."""
    from inplace_lint.knowledge import torch_facts

    return torch_facts.function_has_explicit_saves(qual)


def saves_nothing_with(conditions, values: dict) -> bool:
    from inplace_lint.knowledge import torch_facts

    return torch_facts.saves_nothing_with(conditions, values)


def resolve_overload(
    fw: str, facts: _facts.OpFacts | None, kinds: tuple[str, ...], keywords: frozenset[str]
) -> _facts.OpFacts | None:
    """Narrow a name's merged facts to the overloads the call can mean.

    `kinds` describes each positional argument: "tensor", "scalar" or "unknown". An overload fits
    when it has room for the arguments and keywords and its tensor parameters sit exactly where the
    call passes tensors (`x ** 2` is pow.Tensor_Scalar, `torch.max(x, dim=1)` is max.dim). The saves
    of the fitting overloads replace the merged ones; with no fit the merged facts stand.
    A composite overload (no formula of its own in derivatives.yaml: `torch.min(a, b)` is
    min.other, which calls `minimum`) contributes no saves: what the ops it calls save is not in
    the tables, and the merged facts of the other overloads (`min` of a whole tensor saves its
    output) would be wrong for it. The output counts as saved only when every fitting overload
    saves it.
    """
    if (
        fw != "torch"
        or facts is None
        or facts.inplace_param
        or facts.view_of
        or facts.multi_view_of
    ):
        return facts
    fitting = []
    for _, entry in _call_overloads(facts.name):
        params = entry.get("params", [])
        tensor_params = set(entry.get("tensor_params", ()))
        # (keyword-only parameters count: `torch.var(x, dim=1, keepdim=True)` is var.correction)
        allowed = set(params) | set(entry.get("kwonly", ())) | {"out", "dtype"}
        if len(kinds) > len(params) or not keywords <= allowed:
            continue
        if any(op != py and op in facts.params for op, py in zip(params, facts.params)):
            # the Python callable orders its parameters otherwise (`F.embedding(input, weight)`
            # is `embedding(weight, indices)`): its own facts already bind them by name
            continue
        if any(
            (kind == "tensor" and params[i] not in tensor_params)
            or (kind == "scalar" and params[i] in tensor_params)
            for i, kind in enumerate(kinds)
        ):
            continue
        fitting.append(entry)
    if not fitting:
        return facts
    rename = dict(zip(fitting[0].get("params", []), facts.params))
    saves: dict[str, tuple[str, ...]] = {}
    for entry in fitting:
        for param, condition in (entry.get("saves") or {}).items():
            key = rename.get(param, param)
            saves[key] = tuple(rename.get(c, c) for c in condition)
    # the output is saved only if every overload the call may mean saves it (`x.pow(gamma)` with
    # `gamma=2.0` a Python float: Tensor_Scalar saves the input, Tensor_Tensor the output)
    saves_output = all((entry.get("saves_outputs") or {}).get("0") == [] for entry in fitting)
    nondiff = tuple(sorted({i for e in fitting for i in e.get("nondiff_outputs", [])}))
    return _replace_facts(facts, saves=saves, saves_output=saves_output, nondiff_outputs=nondiff)


def preload() -> None:
    """Load the tables every analysis reads (the generated op tables, the hand-kept surfaces, their
    indexes). Called before worker processes are forked, so that they share one copy instead of
    each loading its own on first use."""
    from inplace_lint.knowledge import paddle_facts, torch_facts

    torch_facts._inplace_methods()  # reads _ops() and _surface()
    paddle_facts._inplace_methods()  # reads _api()
    paddle_facts._surface()
    _overloads_by_prefix()  # reads _torch_overloads()
