"""Generate ``inplace_lint/knowledge/torch_ops.json`` from the installed PyTorch.

The facts come from the two YAML files shipped inside the torch wheel
(``torchgen/packaged/autograd/derivatives.yaml`` and
``torchgen/packaged/ATen/native/native_functions.yaml`` with ``tags.yaml``), read through torchgen's
own loaders (``load_derivatives``, ``parse_native_yaml``, ``match_differentiability_info``). The
logic that decides *which* inputs a backward node saves, and under which condition, mirrors
``emit_body`` in ``torchgen/packaged/autograd/gen_variable_type.py`` (``guard_for``,
``save_variables``, ``emit_original_self_definition``): nothing about saves is typed by hand.

Usage::

    python scripts/gen_autograd_tables.py            # writes the committed table
    python scripts/gen_autograd_tables.py -o FILE    # writes elsewhere (the regeneration test)

The output is deterministic: sorted keys, two-space indent, trailing newline.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

import torchgen
from torchgen.api import cpp
from torchgen.api.autograd import (
    DifferentiabilityInfo,
    NativeFunctionWithDifferentiabilityInfo,
    SavedAttribute,
    gen_differentiable_outputs,
    is_differentiable,
    match_differentiability_info,
)
from torchgen.api.types import (
    BaseCType,
    ListCType,
    MutRefCType,
    OptionalCType,
    VectorCType,
    iTensorListRefT,
    tensorListT,
    tensorT,
)
from torchgen.context import native_function_manager
from torchgen.gen import parse_native_yaml
from torchgen.model import (
    Argument,
    BaseTy,
    BaseType,
    FunctionSchema,
    ListType,
    NativeFunction,
    OptionalType,
    SchemaKind,
    SelfArgument,
    TensorOptionsArguments,
)
from torchgen.packaged.autograd.gen_python_functions import should_generate_py_binding
from torchgen.packaged.autograd.gen_trace_type import MANUAL_AUTOGRAD
from torchgen.packaged.autograd.gen_variable_type import DONT_REQUIRE_DERIVATIVE
from torchgen.packaged.autograd.load_derivatives import load_derivatives

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO / "inplace_lint" / "knowledge" / "torch_ops.json"
GENERATOR = "scripts/gen_autograd_tables.py"
FORMAT = 1

# The C++ types under which gen_variable_type.save_variables stores a SavedVariable (a tensor the
# backward node keeps alive and version-checks), as opposed to sizes, scalars and options.
_SAVED_TENSOR_TYPES = {
    BaseCType(tensorT),
    OptionalCType(BaseCType(tensorT)),
    MutRefCType(OptionalCType(BaseCType(tensorT))),
}
_SAVED_TENSOR_LIST_TYPES = {
    BaseCType(tensorListT),
    ListCType(OptionalCType(BaseCType(tensorT))),
    BaseCType(iTensorListRefT),
    VectorCType(BaseCType(tensorT)),
}

# Public ops the linter never meets in user code: backward kernels and backend internals (sparse,
# quantized, mkldnn, cudnn, miopen, ...). Private (`_x`) ops are dropped unless listed below.
_DROP = re.compile(
    r"backward|_jvp$|sparse|quantize|^q_|fake_quant|mkldnn|cudnn|miopen|fbgemm|^mps_"
    r"|nested|^sym_|_copy$|^to_padded|^is_|^can_cast|^promote_types|^result_type"
)
# Ops that public composites decompose into, so the surface map can name them (private ones and
# `*_forward` kernels), and ops that PyTorch binds to Python by hand (should_generate_py_binding
# skips both).
_KEEP = {
    "_softmax",
    "_log_softmax",
    "_native_batch_norm_legit",
    "_native_batch_norm_legit_no_training",
    "_batch_norm_impl_index",
    "_convolution",
    "_unsafe_view",
    "_reshape_alias",
    "_to_copy",
    "_embedding_bag",
    "_cdist_forward",
    "_weight_norm_interface",
    "_index_put_impl_",
    "_fused_dropout",
    "_masked_scale",
    "_adaptive_avg_pool2d",
    "_adaptive_avg_pool3d",
    "_upsample_nearest_exact2d",
    "_conj",
    "_neg_view",
    "_prelu_kernel",
    "_add_relu",
    "_add_relu_",
    "_addmm_activation",
    "_trilinear",
    "_linalg_eigh",
    "_linalg_svd",
    "nll_loss_forward",
    "nll_loss2d_forward",
    "log_sigmoid_forward",
    "alias",
    "contiguous",
    "copy_",
    "index",
    "set_",
    "slice",
    "to",
}


def yaml_paths() -> dict[str, Path]:
    packaged = Path(torchgen.__file__).parent / "packaged"
    return {
        "derivatives.yaml": packaged / "autograd" / "derivatives.yaml",
        "native_functions.yaml": packaged / "ATen" / "native" / "native_functions.yaml",
        "tags.yaml": packaged / "ATen" / "native" / "tags.yaml",
    }


def load_functions(paths: dict[str, Path]) -> list[NativeFunctionWithDifferentiabilityInfo]:
    native, tags = str(paths["native_functions.yaml"]), str(paths["tags.yaml"])
    infos, _ = load_derivatives(str(paths["derivatives.yaml"]), native, tags)
    functions = parse_native_yaml(native, tags).native_functions
    return match_differentiability_info(functions, infos)


def keep(f: NativeFunction) -> bool:
    name = str(f.func.name.name)
    if name in _KEEP:
        return not ("generated" in f.tags and f.func.kind() == SchemaKind.out)
    if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
        return False
    return should_generate_py_binding(f) and not _DROP.search(name)


# ---------------------------------------------------------------------------------------------
# Mirrors of gen_variable_type.emit_body: which inputs get a backward edge, and the save guards.


def args_with_derivatives(f: NativeFunction, info: DifferentiabilityInfo | None) -> list[Argument]:
    """``find_args_with_derivatives(gen_differentiable_inputs(f))`` in emit_body."""
    differentiable: list[Argument] = []
    for arg in f.func.arguments.non_out:
        if isinstance(arg, TensorOptionsArguments):
            continue
        a = arg.argument if isinstance(arg, SelfArgument) else arg
        if is_differentiable(a.name, a.type, info):
            differentiable.append(a)
    if info is None or not info.has_derivatives:
        return differentiable
    names = {name for d in info.derivatives for name in d.var_names}
    return [a for a in differentiable if a.name in names]


def save_guard(
    saved: SavedAttribute, info: DifferentiabilityInfo, with_derivatives: list[Argument]
) -> list[str]:
    """``guard_for`` in emit_body, as the list of inputs whose requires-grad triggers the save.

    An empty list means "no guard": the tensor is saved whenever the node is recorded.
    """
    if any(is_tensor_list(a.type) for a in with_derivatives):
        return []
    if "backward" in info.name or len(with_derivatives) <= 1:
        return []
    if saved.nctype.type != BaseCType(tensorT):
        return []
    used_in = [d for d in info.derivatives if saved in d.saved_inputs]
    if len(used_in) != 1:
        return []
    derivative = used_in[0]
    if len(derivative.var_names) != 1:
        # A multi-output formula may guard one save with wrap_opt_if(var, grad_input_mask[i] ...);
        # the codegen turns grad_input_mask[i] into should_compute_output(i), i.e. edge i.
        name = str(saved.nctype.name)
        match = re.search(rf"wrap_opt_if\({re.escape(name)},(.*?)\)", derivative.formula)
        if match is None:
            return []
        terms = [t.strip() for t in match.group(1).split("||")]
        edges = [re.fullmatch(r"grad_input_mask\[(\d+)\]", t) for t in terms]
        if not all(edges):
            return []
        return sorted({with_derivatives[int(e.group(1))].name for e in edges if e})
    return [derivative.var_names[0]]


def is_tensor_list(t: object) -> bool:
    return isinstance(t, ListType) and t.elem in (
        BaseType(BaseTy.Tensor),
        OptionalType(BaseType(BaseTy.Tensor)),
    )


def is_tensor_like(t: object) -> bool:
    return t.is_tensor_like() if hasattr(t, "is_tensor_like") else False


# ---------------------------------------------------------------------------------------------
# One overload.


def output_names(f: NativeFunction) -> list[str]:
    """The names derivatives.yaml gives outputs: ``result`` (one), ``result<i>``, or the return's."""
    returns = f.func.returns
    if len(returns) == 1:
        return ["result"]
    return [r.name or f"result{i}" for i, r in enumerate(returns)]


def alias_facts(schema: FunctionSchema) -> dict[str, object]:
    """View-ness and in-place writes, read off the schema's alias annotations."""
    facts: dict[str, object] = {}
    args = [a for a in schema.arguments.flat_all if a.annotation is not None]
    writes = [
        a.name for a in schema.arguments.flat_non_out if a.annotation and a.annotation.is_write
    ]
    if schema.kind() == SchemaKind.inplace:
        facts["inplace"] = writes[0]
        extra = writes[1:]
    else:
        extra = writes
    if extra:
        facts["mutates"] = extra
    if schema.kind() == SchemaKind.out:
        return facts
    for ret in schema.returns:
        ann = ret.annotation
        if ann is None or ann.is_write:
            continue
        source = next((a.name for a in args if a.annotation.alias_set == ann.alias_set), None)
        if source is None:
            continue
        if isinstance(ret.type, ListType):
            facts["multi_view"] = source
        else:
            facts["view"] = source
        break
    return facts


def overload_facts(fn: NativeFunctionWithDifferentiabilityInfo) -> dict[str, object]:
    f = fn.func
    schema = f.func
    info = fn.info.get("Default") if fn.info else None
    kind = schema.kind()
    facts: dict[str, object] = {
        "params": [a.name for a in schema.arguments.flat_positional],
        "tensor_params": [a.name for a in schema.arguments.flat_non_out if is_tensor_like(a.type)],
    }
    kwonly = [a.name for a in schema.arguments.flat_kwarg_only if a not in schema.arguments.out]
    if kwonly:
        facts["kwonly"] = kwonly
    facts.update(alias_facts(schema))
    if kind == SchemaKind.out:
        facts["out"] = [a.name for a in schema.arguments.out]
        return facts
    if not any(is_tensor_like(r.type) for r in schema.returns):
        facts["returns_tensor"] = False
    if f.has_composite_implicit_autograd_kernel:
        # The dispatcher prefers the CompositeImplicitAutograd kernel over the Autograd one for
        # dense tensors: the op decomposes, and its decomposition records the graph.
        facts["composite"] = True
        return facts

    name = cpp.name(schema)
    if name in MANUAL_AUTOGRAD:
        # Autograd written by hand in VariableTypeManual.cpp (copy_, detach, resize_, ...): the
        # YAML says nothing about it; torch_surface.toml states what matters.
        facts["manual"] = True
        return facts
    base = str(schema.name.name.base)
    undifferentiable = base in DONT_REQUIRE_DERIVATIVE or name in DONT_REQUIRE_DERIVATIVE
    with_derivatives = args_with_derivatives(f, info)
    # Only the Default key matters for dense tensors (some infos exist for nested tensors only).
    default = NativeFunctionWithDifferentiabilityInfo(
        func=f, info={"Default": info} if info else None, fw_derivatives=None
    )
    differentiable_outputs = gen_differentiable_outputs(default, "Default")
    requires_derivative = (
        not undifferentiable and len(with_derivatives) > 0 and len(differentiable_outputs) > 0
    )
    if not requires_derivative:
        facts["differentiable"] = False
        return facts
    if info is None or not info.has_derivatives:
        facts["no_formula"] = True  # a NotImplemented node: backward raises
        return facts

    facts["grad_inputs"] = [a.name for a in with_derivatives]
    all_outputs = output_names(f)
    differentiable_names = {str(o.name) for o in differentiable_outputs}
    nondiff = [i for i, o in enumerate(all_outputs) if o not in differentiable_names]
    if nondiff:
        facts["nondiff_outputs"] = nondiff  # e.g. the indices of max.dim / topk / sort
    saves: dict[str, list[str]] = {}
    for saved in info.all_saved_inputs:
        if saved.nctype.type not in _SAVED_TENSOR_TYPES | _SAVED_TENSOR_LIST_TYPES:
            continue
        saved_name = str(saved.nctype.name)
        guard = save_guard(saved, info, with_derivatives)
        if kind == SchemaKind.inplace and saved_name == "self":
            # save_variables: `if (!original_self.has_value()) original_self = self.clone()`.
            facts["clone_saved"] = guard
            continue
        saves[saved_name] = guard
    if saves:
        facts["saves"] = saves
    # Outputs are saved unguarded (emit_save_outputs), whenever the node is recorded.
    outputs = output_names(f)
    saved_outputs = {
        str(outputs.index(str(s.nctype.name))): []
        for s in info.all_saved_outputs
        if s.nctype.type in _SAVED_TENSOR_TYPES | _SAVED_TENSOR_LIST_TYPES
    }
    if saved_outputs:
        facts["saves_outputs"] = saved_outputs
    return facts


# ---------------------------------------------------------------------------------------------
# Per name: what a Python call `torch.name(...)` / `x.name(...)` can do, over its overloads.
#
# A Python call cannot be resolved to one overload statically, so the merge keeps every save that
# any overload makes, with its condition. Two refinements keep literals from inventing saves:
#  * "always" in an overload with fewer differentiable inputs than the name's widest overload
#    (pow.Scalar: `2 ** x`) becomes "if one of *its* inputs requires grad";
#  * a save that an overload makes only because a parameter is a tensor where a sibling overload
#    takes a Scalar (pow.Tensor_Tensor saves its result, pow.Tensor_Scalar does not) is conditioned
#    on that parameter requiring grad. A literal never requires grad; a tensor that does not is
#    treated like a literal (a documented approximation).


def scalar_siblings(
    name: str, call: dict[str, object], calls: list[dict[str, object]]
) -> list[str]:
    """Tensor params of ``call`` that a sibling overload lacking save ``name`` takes as a Scalar."""
    mine = set(call["tensor_params"])  # type: ignore[arg-type]
    extra: set[str] = set()
    for other in calls:
        theirs = set(other["tensor_params"])  # type: ignore[arg-type]
        scalars = mine - theirs
        if not theirs < mine or not scalars <= set(other["params"]) | set(other.get("kwonly", [])):  # type: ignore[arg-type]
            continue
        if name not in save_items(other):
            extra |= scalars
    return sorted(extra)


def save_items(call: dict[str, object]) -> dict[str, list[str]]:
    """Every save of one overload under one key space: params, ``#<i>`` outputs, ``clone``."""
    items = dict(call.get("saves", {}))  # type: ignore[arg-type]
    for index, cond in call.get("saves_outputs", {}).items():  # type: ignore[union-attr]
        items["#" + index] = cond
    if "clone_saved" in call:
        items["clone"] = call["clone_saved"]  # type: ignore[assignment]
    return items


def merged_saves(calls: list[dict[str, object]]) -> dict[str, list[str]]:
    widest = set().union(*(set(c["grad_inputs"]) for c in calls))  # type: ignore[arg-type]
    merged: dict[str, list[str]] = {}
    for call in calls:
        inputs = sorted(call["grad_inputs"])  # type: ignore[arg-type]
        for name, cond in save_items(call).items():
            if not cond:
                extra = scalar_siblings(name, call, calls)
                if extra and name not in extra:
                    cond = extra
                elif set(inputs) != widest:
                    cond = inputs
            if name in merged and not merged[name]:
                continue
            merged[name] = [] if not cond else sorted(set(merged.get(name, [])) | set(cond))
    return {name: ([] if set(cond) >= widest else cond) for name, cond in merged.items()}


def merge_overloads(entries: list[tuple[NativeFunction, dict[str, object]]]) -> dict[str, object]:
    """Combine the Python-visible overloads of one name (see the note above)."""
    calls = [e for f, e in entries if f.func.kind() != SchemaKind.out]
    outs = [e for f, e in entries if f.func.kind() == SchemaKind.out]
    pool = calls or outs
    primary = max(pool, key=lambda e: (len(e["tensor_params"]), -pool.index(e)))  # type: ignore[arg-type]
    merged: dict[str, object] = {
        "params": primary["params"],
        "overloads": sorted(str(f.func.name) for f, _ in entries),
    }
    variants = sorted({v.name for f, _ in entries if not f.python_module for v in f.variants})
    modules = sorted({f.python_module for f, _ in entries if f.python_module})
    if variants:
        merged["variants"] = variants
    if modules:
        merged["python_module"] = modules[0]
    if outs:
        merged["out"] = sorted({n for e in outs for n in e["out"]})  # type: ignore[attr-defined]
    if not calls:
        return merged
    for key in ("inplace", "view", "multi_view"):
        values = sorted({e[key] for e in calls if key in e})  # type: ignore[misc]
        if values:
            merged[key] = values[0]
    mutates = sorted({m for e in calls for m in e.get("mutates", [])})  # type: ignore[attr-defined]
    if mutates:
        merged["mutates"] = mutates
    composite = [e for e in calls if e.get("composite")]
    if composite and len(composite) == len(calls):
        merged["composite"] = True
    if all(e.get("differentiable") is False for e in calls):
        merged["differentiable"] = False
    if all(e.get("no_formula") for e in calls):
        merged["no_formula"] = True
    if any(e.get("manual") for e in calls):
        merged["manual"] = True
    if all(e.get("returns_tensor") is False for e in calls):
        merged["returns_tensor"] = False
    nondiff = sorted({i for e in calls for i in e.get("nondiff_outputs", [])})  # type: ignore[attr-defined]
    if nondiff:
        merged["nondiff_outputs"] = nondiff
    recorded = [e for e in calls if "grad_inputs" in e]
    saves = merged_saves(recorded) if recorded else {}
    params = {k: v for k, v in saves.items() if not k.startswith("#") and k != "clone"}
    outputs = {k[1:]: v for k, v in saves.items() if k.startswith("#")}
    if params:
        merged["saves"] = params
    if outputs:
        merged["saves_outputs"] = outputs
    if "clone" in saves:
        merged["clone_saved"] = saves["clone"]
    return merged


def link_variants(names: dict[str, dict[str, object]]) -> None:
    """Name the in-place and out-of-place variant of each entry, where both exist."""
    for name, entry in names.items():
        if name.endswith("_") and not name.startswith("__"):
            functional = name[:-1]
            if functional in names:
                entry["functional"] = functional
        else:
            inplace = name + "_"
            if inplace in names:
                entry["inplace_variant"] = inplace


def build(paths: dict[str, Path]) -> dict[str, object]:
    functions = load_functions(paths)
    per_overload: dict[str, dict[str, object]] = {}
    grouped: dict[str, list[tuple[NativeFunction, dict[str, object]]]] = {}
    for fn in functions:
        f = fn.func
        if not keep(f):
            continue
        with native_function_manager(f):
            facts = overload_facts(fn)
        per_overload[str(f.func.name)] = facts
        grouped.setdefault(str(f.func.name.name), []).append((f, facts))
    names = {name: merge_overloads(entries) for name, entries in grouped.items()}
    link_variants(names)
    for facts in per_overload.values():
        if not facts["tensor_params"]:
            del facts["tensor_params"]
    return {
        "format": FORMAT,
        "generator": GENERATOR,
        "torch": torch_version(),
        "sources": {name: sha256(path) for name, path in sorted(paths.items())},
        "names": names,
        "overloads": per_overload,
    }


def torch_version() -> str:
    # The YAML is the same for every build of one release: drop the local part (+cpu, +cu124).
    return metadata.version("torch").split("+")[0]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def render(table: dict[str, object]) -> str:
    """JSON with one line per op: small, deterministic, and a regeneration diff reads per op."""

    def line(value: object) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"))

    parts = []
    for key in sorted(table):
        value = table[key]
        if isinstance(value, dict) and key in ("names", "overloads"):
            rows = [f"  {line(k)}: {line(v)}" for k, v in sorted(value.items())]
            parts.append(f" {line(key)}: {{\n" + ",\n".join(rows) + "\n }")
        else:
            parts.append(f" {line(key)}: {line(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(list(argv) if argv is not None else None)
    text = render(build(yaml_paths()))
    tmp = args.output.with_name(args.output.name + f".tmp{os.getpid()}")
    tmp.write_text(text, encoding="ascii", newline="\n")
    tmp.replace(args.output)
    print(f"wrote {args.output} ({len(text)} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
