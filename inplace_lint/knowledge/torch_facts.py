"""What PyTorch calls do to autograd state: the query API over torch_ops.json and torch_surface.toml.

``torch_ops.json`` is generated from PyTorch's own ``derivatives.yaml`` / ``native_functions.yaml``
(``scripts/gen_autograd_tables.py``); ``torch_surface.toml`` maps the Python surface (``torch.X``,
``Tensor.X``, ``F.X``, operators, ``nn`` modules) onto its ops. Both are read lazily, once, on the
first query; answers are cached. This module never imports torch. See docs/knowledge.md.

Conventions:

* Parameter names are Python's: ``input`` for the first argument of ``torch.X`` / ``F.X``,
  ``self`` for the receiver of a Tensor method or the left operand of a binary operator.
* A save condition is :data:`~inplace_lint.knowledge.facts.ALWAYS` (saved whenever the call records
  a backward node) or the parameters whose requiring grad triggers the save.
* ``saves_output`` is true only when the first output is saved unconditionally (``pow`` saves its
  result only when the exponent is a tensor that requires grad, and reports False).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from .facts import ALWAYS, ModuleFacts, OpFacts, named_keywords

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

__all__ = [
    "UNKNOWN",
    "binary_operator",
    "is_torch_inplace_method",
    "tensor_method",
    "torch_function",
    "torch_module",
]

_HERE = Path(__file__).parent
_OPS_PATH = _HERE / "torch_ops.json"
_SURFACE_PATH = _HERE / "torch_surface.toml"

# Pass this (or any value that is not a plain literal) as a constructor keyword whose value the
# caller cannot tell; the fact it controls then falls back to the constructor's default.
UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()

# Python's operator protocol (language facts, not torch facts): symbol -> dunder names.
_BINARY_DUNDERS = {
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
_AUGMENTED_DUNDERS = {
    "+": "__iadd__",
    "-": "__isub__",
    "*": "__imul__",
    "/": "__itruediv__",
    "//": "__ifloordiv__",
    "%": "__imod__",
    "**": "__ipow__",
    "&": "__iand__",
    "|": "__ior__",
    "^": "__ixor__",
    "<<": "__ilshift__",
    ">>": "__irshift__",
}
# torch.<submodule>.X lives in the table as <prefix>X.
_SUBMODULE_PREFIX = {"linalg": "linalg_", "special": "special_", "fft": "fft_"}
# The entry keys that state facts directly (a surface entry without `op`).
_EXPLICIT_KEYS = {
    "saves",
    "saves_output",
    "view_of",
    "multi_view_of",
    "version_alias_of",
    "differentiable",
    "returns_tensor",
    "inplace_param",
}


# ---------------------------------------------------------------------------------------------
# Loading


# The generator writes the per-name section first and the per-overload section (which only the
# tests read) after it, one op per line; the runtime parses the first part alone.
_OVERLOADS_MARK = '\n "overloads": {\n'


@cache
def _ops() -> dict[str, dict[str, Any]]:
    text = _OPS_PATH.read_text(encoding="ascii")
    cut = text.find(_OVERLOADS_MARK)
    head = text[:cut].rstrip().removesuffix(",") + "\n}" if cut >= 0 else text
    return json.loads(head)["names"]


@cache
def _surface() -> dict[str, Any]:
    with _SURFACE_PATH.open("rb") as f:
        return tomllib.load(f)


# ---------------------------------------------------------------------------------------------
# Building OpFacts


def _op_facts(
    op: str,
    params: tuple[str, ...],
    bind: Mapping[str, str] | None = None,
    *,
    mapped: bool = True,
) -> OpFacts | None:
    """Facts of table op ``op`` for a Python callable with positional ``params``.

    ``bind`` maps Python parameter names to op parameter names where they differ; ``input`` binds
    the op's ``self`` when the op has no ``input`` of its own. An op that only decomposes
    (CompositeImplicitAutograd) is unknown unless the surface map chose it (``mapped``) or its
    schema alone tells what matters (a view, a multi-output view, an in-place write).
    """
    entry = _ops().get(op)
    if entry is None:
        return None
    if not mapped and entry.get("composite") and not _alias_only(entry):
        return None
    op_params = entry["params"]
    bind = bind or {}
    to_py: dict[str, str] = {}
    for p in params:
        target = bind.get(p, p)
        if p == "input" and p not in bind and "input" not in op_params:
            target = "self"
        to_py[target] = p
    saves: dict[str, tuple[str, ...]] = {}
    for name, cond in entry.get("saves", {}).items():
        if name not in to_py:
            continue  # not reachable from the Python arguments
        mapped = _condition(cond, to_py)
        if mapped is not None:
            saves[to_py[name]] = mapped
    outputs = entry.get("saves_outputs", {})
    return OpFacts(
        name=op,
        params=params,
        saves=saves,
        saves_output=outputs.get("0") == [],
        inplace_param=to_py.get(entry["inplace"]) if "inplace" in entry else None,
        inplace_saves_clone="clone_saved" in entry,
        view_of=to_py.get(entry["view"]) if "view" in entry else None,
        multi_view_of=to_py.get(entry["multi_view"]) if "multi_view" in entry else None,
        out_param="out" if "out" in entry.get("out", ()) else None,
        differentiable=entry.get("differentiable", True),
        returns_tensor=entry.get("returns_tensor", True),
        nondiff_outputs=tuple(entry.get("nondiff_outputs", ())),
    )


def _alias_only(entry: Mapping[str, Any]) -> bool:
    return any(k in entry for k in ("view", "multi_view", "inplace"))


def _condition(cond: list[str], to_py: Mapping[str, str]) -> tuple[str, ...] | None:
    """Rename a save condition; None when no parameter that could trigger it is passable."""
    if not cond:
        return ALWAYS
    mapped = tuple(to_py[c] for c in cond if c in to_py)
    return mapped or None


def _explicit_facts(name: str, params: tuple[str, ...], entry: Mapping[str, Any]) -> OpFacts:
    return OpFacts(
        name=name,
        params=params,
        saves={p: tuple(c) for p, c in entry.get("saves", {}).items()},
        saves_output=entry.get("saves_output", False),
        inplace_param=entry.get("inplace_param"),
        view_of=entry.get("view_of"),
        multi_view_of=entry.get("multi_view_of"),
        version_alias_of=entry.get("version_alias_of"),
        differentiable=entry.get("differentiable", True),
        returns_tensor=entry.get("returns_tensor", True),
    )


def _surface_facts(name: str, entry: Mapping[str, Any], inplace: bool) -> OpFacts | None:
    """Facts of one [functions] / [methods] entry of torch_surface.toml."""
    if entry.get("unknown"):
        return None
    params = tuple(entry["params"])
    bind = entry.get("bind", {})
    inplace_op = entry.get("inplace_op") if inplace else None
    if inplace_op and inplace_op != "same":
        return _op_facts(inplace_op, params, bind)
    if "op" in entry:
        facts = _op_facts(entry["op"], params, bind)
    else:
        facts = _explicit_facts(name, params, entry)
    if facts is not None and inplace_op == "same":
        facts = replace(facts, inplace_param=params[0])
    return facts


def _table_entry_has(op: str, *, variant: str | None = None, module: str | None = None) -> bool:
    entry = _ops().get(op)
    if entry is None:
        return False
    if module is not None:
        return entry.get("python_module") == module
    return variant in entry.get("variants", ())


def _input_params(op: str) -> tuple[str, ...]:
    return tuple("input" if p == "self" else p for p in _ops()[op]["params"])


# ---------------------------------------------------------------------------------------------
# Public API


@lru_cache(maxsize=4096)
def torch_function(
    qualname: str, keywords: frozenset[str] = frozenset(), inplace: bool = False
) -> OpFacts | None:
    """Facts of calling the fully qualified callable ``qualname`` (``"torch.sigmoid"``,
    ``"torch.nn.functional.relu"``, ``"torch.linalg.norm"``, ``"torch.Tensor.add"``).

    ``inplace`` is True when the call passes ``inplace=True`` (``F.relu(x, inplace=True)``).
    ``keywords`` are the keyword names the call passes; ``requires_grad`` makes a constructor's
    result differentiable (``torch.zeros(3, requires_grad=True)``).
    """
    facts = _torch_function(qualname, inplace)
    if facts is not None and "requires_grad" in keywords and not facts.differentiable:
        facts = replace(facts, differentiable=True)
    return facts


def _torch_function(qualname: str, inplace: bool) -> OpFacts | None:
    entry = _surface()["functions"].get(qualname)
    if entry is not None:
        return _surface_facts(qualname.rsplit(".", 1)[-1], entry, inplace)
    parts = qualname.split(".")
    if parts[0] != "torch" or len(parts) < 2:
        return None
    if parts[1:-1] == ["Tensor"]:
        return tensor_method(parts[-1], inplace)
    name = _surface()["aliases"].get(parts[-1], parts[-1])
    if len(parts) == 2:
        op = name + "_" if inplace and _table_entry_has(name + "_", variant="function") else name
        method = _surface()["methods"].get(op)
        if method is not None and method.get("function"):
            facts = _surface_facts(op, method, inplace=False)
            return _as_function(facts) if facts is not None else None
        if not _table_entry_has(op, variant="function"):
            return None
    elif parts[1:-1] == ["nn", "functional"]:
        # F.X is torch._C._nn.X or a re-export of torch.X; Python wrappers are in the surface map.
        op = name + "_" if inplace and _table_entry_has(name + "_", module="nn") else name
        if not (_table_entry_has(op, module="nn") or _table_entry_has(op, variant="function")):
            return None
    elif len(parts) == 3 and parts[1] in _SUBMODULE_PREFIX:
        op = _SUBMODULE_PREFIX[parts[1]] + name
        if not _table_entry_has(op, module=parts[1]):
            return None
    else:
        return None
    return _op_facts(op, _input_params(op), mapped=False)


def _as_function(facts: OpFacts) -> OpFacts:
    """A method's facts for its ``torch.X(input, ...)`` twin: the receiver becomes ``input``."""

    def rename(p: str | None) -> str | None:
        return "input" if p == "self" else p

    return replace(
        facts,
        params=tuple(rename(p) or p for p in facts.params),
        saves={
            rename(p) or p: tuple(rename(c) or c for c in cond) for p, cond in facts.saves.items()
        },
        inplace_param=rename(facts.inplace_param),
        view_of=rename(facts.view_of),
        multi_view_of=rename(facts.multi_view_of),
        version_alias_of=rename(facts.version_alias_of),
    )


@lru_cache(maxsize=4096)
def tensor_method(name: str, inplace: bool = False) -> OpFacts | None:
    """Facts of ``x.name(...)`` (also ``x.T``-style attributes and operator dunders).

    ``inplace=True`` asks for the in-place variant (``tensor_method("add", True)`` is ``add_``).
    """
    if inplace and not name.endswith("_"):
        name += "_"
    name = _surface()["aliases"].get(name, name)
    entry = _surface()["methods"].get(name)
    if entry is not None:
        return _surface_facts(name, entry, inplace=False)
    if _table_entry_has(name, variant="method"):
        return _op_facts(name, tuple(_ops()[name]["params"]), mapped=False)
    for symbol, dunder in _BINARY_DUNDERS.items():
        if dunder == name:
            return binary_operator(symbol)
    for symbol, dunder in _AUGMENTED_DUNDERS.items():
        if dunder == name:
            return binary_operator(symbol, augmented=True)
    return None


@lru_cache(maxsize=64)
def binary_operator(op: str, augmented: bool = False) -> OpFacts | None:
    """Facts of ``a OP b`` (``augmented=True``: ``a OP= b``), ``self`` being the left operand.

    ``a @= b`` has no in-place form on a tensor (no ``__imatmul__``): Python rebinds ``a`` to
    ``a @ b``, so the out-of-place matmul facts are returned, with no ``inplace_param``.
    """
    entry = _surface()["operators"].get(op)
    if entry is None:
        return None
    method = entry.get("augmented", entry["method"]) if augmented else entry["method"]
    return tensor_method(method)


@cache
def _inplace_methods() -> frozenset[str]:
    names = {
        name
        for name, entry in _ops().items()
        if entry.get("inplace") == "self" and "method" in entry.get("variants", ())
    }
    for name, entry in _surface()["methods"].items():
        names.discard(name)
        if entry.get("inplace_param") == "self":
            names.add(name)
    names.update(_AUGMENTED_DUNDERS.values())
    return frozenset(names)


def is_torch_inplace_method(name: str) -> bool:
    """True if ``x.name(...)`` writes ``x``'s data in place (``add_``, ``__setitem__``, ``__iadd__``;
    not ``requires_grad_`` or ``detach_``, which change autograd metadata only)."""
    return name in _inplace_methods()


@lru_cache(maxsize=1024)
def _module(
    qualname: str, settings: tuple[tuple[str, Any], ...], unknown: frozenset[str] = frozenset()
) -> ModuleFacts | None:
    entry = _surface()["modules"].get(qualname)
    if entry is None:
        return None
    if entry.get("container"):
        return ModuleFacts(
            name=qualname, call=OpFacts(name=qualname, params=("input",)), container=True
        )
    values = dict(entry.get("defaults", {}))
    values.update(settings)
    inputs = tuple(entry.get("inputs", ["input"]))
    parameters = _present(entry.get("parameters", {}), values)
    buffers = _present(entry.get("buffers", {}), values)

    if "call" not in entry:
        for variant in entry.get("variants", ()):
            if _holds(variant["when"], values, unknown):
                entry = {**entry, **{k: v for k, v in variant.items() if k != "when"}}
                break
        call = _explicit_facts(qualname, inputs, entry)
        # saves that hold only for some constructor values (nn.LSTM saves its input only when it
        # is not batch-first); a value the code does not spell out as a literal fails the test
        saves = {
            name: cond
            for name, cond in call.saves.items()
            if _holds(entry.get("saves_only_if", {}).get(name, {}), values, unknown)
        }
        saves_output = call.saves_output and _holds(
            entry.get("saves_output_only_if", {}), values, unknown
        )
        result = _nested(entry["result"]) if "result" in entry else None
        call = replace(call, saves=saves, saves_output=saves_output, result=result)
        return ModuleFacts(
            name=qualname,
            call=call,
            has_parameters=bool(parameters),
            saved_attributes=tuple(entry.get("saved_attributes", ())),
            attribute_triggers=tuple(
                (a, tuple(inputs))
                for a, inputs in entry.get("saved_attribute_triggers", {}).items()
            ),
        )
    inplace = "inplace" in entry.get("pass", ()) and values.get("inplace") is True
    functional = torch_function(entry["call"], inplace=inplace)
    if functional is None:
        return None
    if _matches(entry.get("saves_nothing_if", {}), values):
        functional = replace(functional, saves={}, saves_output=False)
    if "bind" in entry:  # module attribute -> the function's parameter of another name
        functional = _renamed(functional, {p: a for a, p in entry["bind"].items()})
    call, saved = _specialise(functional, inputs, parameters, buffers)
    return ModuleFacts(
        name=qualname,
        call=call,
        has_parameters=bool(parameters),
        inplace_buffers=tuple(a for a, _ in saved if a in buffers),
        saved_attributes=tuple(a for a, _ in saved if a in parameters),
        attribute_triggers=tuple((a, cond) for a, cond in saved if a in parameters and cond),
        frozen_saves=_frozen_saves(functional, inputs, parameters) if parameters else None,
    )


def _frozen_saves(
    functional: OpFacts, inputs: tuple[str, ...], parameters: tuple[str, ...]
) -> dict[str, tuple[str, ...]]:
    """The inputs' saves of ``module(*inputs)`` when none of its parameters requires grad: a
    save triggered only by a parameter (F.linear saves its input for the weight's gradient)
    is gone; one triggered by inputs too is kept with those."""
    saves: dict[str, tuple[str, ...]] = {}
    for name, cond in functional.saves.items():
        if name not in inputs:
            continue
        if cond:
            cond = tuple(c for c in cond if c in inputs)
            if not cond:
                continue  # only the parameters' gradients need it
        saves[name] = cond
    return saves


def _renamed(facts: OpFacts, names: Mapping[str, str]) -> OpFacts:
    """``facts`` with parameters renamed (``w_ih`` -> ``weight_ih``) in params and saves."""
    saves = {
        names.get(p, p): tuple(names.get(c, c) for c in cond) for p, cond in facts.saves.items()
    }
    return replace(facts, params=tuple(names.get(p, p) for p in facts.params), saves=saves)


def _present(flags_by_attr: Mapping[str, list[str]], values: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(a for a, flags in flags_by_attr.items() if all(values.get(f) for f in flags))


def function_saves_nothing_if(qualname: str) -> Mapping[str, list[Any]] | None:
    """A [functions] entry's `saves_nothing_if`: argument values (literals at the call) for
    which the function saves nothing (`F.adaptive_avg_pool2d(x, 1)` is a mean)."""
    entry = _surface().get("functions", {}).get(qualname)
    return entry.get("saves_nothing_if") if entry else None


def function_has_explicit_saves(qualname: str) -> bool:
    """A [functions] entry that writes its saves out (measured, no single op applies): they are
    the call's, not to be narrowed by the table's overloads of the same name."""
    entry = _surface().get("functions", {}).get(qualname)
    return bool(entry) and "saves" in entry


def saves_nothing_with(conditions: Mapping[str, list[Any]], values: Mapping[str, Any]) -> bool:
    return _matches(conditions, values)


def _matches(conditions: Mapping[str, list[Any]], values: Mapping[str, Any]) -> bool:
    return any(_plain(values.get(k)) in [_plain(v) for v in vs] for k, vs in conditions.items())


def _holds(conditions: Mapping[str, list[Any]], values: Mapping[str, Any], unknown) -> bool:
    """Every constructor value named is one of those listed (and written as a literal)."""
    return all(
        k not in unknown and _plain(values.get(k)) in [_plain(v) for v in vs]
        for k, vs in conditions.items()
    )


def _nested(names: list[Any]) -> tuple:
    return tuple(_nested(n) if isinstance(n, list) else n for n in names)


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _specialise(
    functional: OpFacts,
    inputs: tuple[str, ...],
    parameters: tuple[str, ...],
    buffers: tuple[str, ...],
) -> tuple[OpFacts, tuple[tuple[str, tuple[str, ...]], ...]]:
    """The functional's facts for ``module(*inputs)``: parameters require grad, buffers do not.

    Also the attributes the call saves, each with the inputs whose requiring grad triggers the
    save (Linear's weight is saved only when its input requires grad; empty: whenever the call
    records a node).
    """
    saves: dict[str, tuple[str, ...]] = {}
    saved_attributes: list[tuple[str, tuple[str, ...]]] = []
    for name, cond in functional.saves.items():
        if cond and any(c in parameters for c in cond):
            cond = ALWAYS
        elif cond:
            cond = tuple(c for c in cond if c in inputs)
            if not cond:
                continue  # triggered only by tensors that never require grad here
        if name in inputs:
            saves[name] = cond
        elif name in parameters or name in buffers:
            saved_attributes.append((name, cond))
    keep = set(inputs)
    call = replace(
        functional,
        params=inputs,
        saves=saves,
        inplace_param=functional.inplace_param if functional.inplace_param in keep else None,
        view_of=functional.view_of if functional.view_of in keep else None,
        multi_view_of=functional.multi_view_of if functional.multi_view_of in keep else None,
        version_alias_of=None,
        out_param=None,
    )
    return call, tuple(saved_attributes)


def torch_module(qualname: str, keywords: Mapping[Any, object]) -> ModuleFacts | None:
    """Facts of calling an instance of the ``nn`` class ``qualname`` built with ``keywords``.

    ``keywords`` maps constructor parameter names to their values as Python literals; positional
    arguments may be passed under their index (``0`` or ``"0"``), e.g. ``nn.ReLU(True)`` as
    ``{"0": True}``. A value the caller cannot tell (:data:`UNKNOWN`, or anything that is not a
    literal) leaves the constructor's default in force. The module's parameters count as requiring
    grad. ``saved_attributes`` are the parameters the call saves, ``inplace_buffers`` the buffers it
    saves: BatchNorm's running stats, which a training-mode call also updates in place (inside the
    kernel, without a version bump: calling the module again does not break its earlier saves).
    """
    entry = _surface()["modules"].get(qualname)
    if entry is None:
        return None
    named = named_keywords(keywords, entry.get("init", []))
    settings = {name: _hashable(value) for name, value in named.items() if _is_literal(value)}
    unknown = frozenset(name for name, value in named.items() if not _is_literal(value))
    return _module(qualname, tuple(sorted(settings.items())), unknown)


def module_init_params(qualname: str) -> tuple[str, ...]:
    """The constructor parameters of the ``nn`` class ``qualname``, in order (the surface's
    ``init``; empty for a class it does not map)."""
    return tuple(_surface()["modules"].get(qualname, {}).get("init", ()))


def _is_literal(value: object) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (tuple, list)):
        return all(_is_literal(v) for v in value)
    return False


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, (list, tuple)) else value
