"""Which local names stand for torch / paddle objects: a per-module import-alias table.

No scope analysis: imports anywhere in the module are collected once (function-level imports of
torch are rare, and binding them module-wide only ever widens what we recognise).
"""

from __future__ import annotations

import libcst as cst

FRAMEWORK_ROOTS = ("torch", "paddle")


_NAME = cst.Name
_ATTRIBUTE = cst.Attribute


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` -> "a.b.c"; anything that is not a plain dotted name -> None."""
    # exact classes: `isinstance` against libcst's (ABC) classes is slow when it fails
    kind = type(node)
    if kind is _NAME:  # the commonest case, and the analysis asks a lot
        return node.value
    if kind is not _ATTRIBUTE:
        return None
    parts: list[str] = []
    while type(node) is _ATTRIBUTE:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is _NAME:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node: cst.BaseExpression) -> str:
    return dotted_name(node) or ""


class ImportTable:
    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}  # local name -> qualified name

    @property
    def frameworks(self) -> set[str]:
        return {q.split(".")[0] for q in self.aliases.values()} & set(FRAMEWORK_ROOTS)

    def add_import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = _module_name(alias.name)
            if not full:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.aliases[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                self.aliases[head] = head

    def add_import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        base = _module_name(node.module)
        if isinstance(node.names, cst.ImportStar):
            return
        # `from itertools import chain`: the analysis follows `chain(a.parameters(), ...)`;
        # `from einops import rearrange`: a reshape (FunctionInterpreter.call_framework);
        # `from functools import partial` of a local function (FunctionInterpreter.eval_call)
        only = _FOLLOWED_IMPORTS.get(base)
        if base.split(".")[0] not in FRAMEWORK_ROOTS and only is None:
            return
        for alias in node.names:
            name = _module_name(alias.name)
            if only is not None and name not in only:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.aliases[local] = f"{base}.{name}"

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """The qualified name an expression refers to, when its head is an imported name."""
        name = dotted_name(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.aliases.get(head)
        if target is None:
            return None
        return canonical(f"{target}.{rest}" if rest else target)

    def local_name_for(self, qualified: str) -> str | None:
        """How this module spells `qualified` (for fixes that insert e.g. `torch.no_grad()`)."""
        best = None
        for local, target in self.aliases.items():
            if qualified == target:
                return local
            if qualified.startswith(target + "."):
                candidate = local + qualified[len(target) :]
                if best is None or len(candidate) < len(best):
                    best = candidate
        return best


_FOLLOWED_IMPORTS = {
    "itertools": {"chain"},
    "einops": {"rearrange"},
    "functools": {"partial"},
    # tuple classes (FunctionInterpreter.call_framework: `_NAMEDTUPLE_FACTORIES`)
    "collections": {"namedtuple"},
    "typing": {"NamedTuple"},
    # JIT-compiling decorators (knowledge.JIT_KERNEL_DECORATORS)
    "taichi": {"kernel", "func"},
    "numba": {"jit", "njit", "vectorize", "guvectorize", "stencil"},
    "numba.cuda": {"jit"},
    "triton": {"jit", "autotune", "heuristics"},
}

_CANONICAL_PREFIXES = (
    ("torch.nn.modules.", "torch.nn."),
    ("torch.functional.", "torch."),
    ("torch._C._nn.", "torch.nn.functional."),
    ("torch.Tensor.", "torch.Tensor."),
    ("paddle.fluid.dygraph.", "paddle."),
)


def canonical(name: str) -> str:
    """Fold a few re-export paths onto the public spelling."""
    if name.startswith("torch.nn.modules."):
        # torch.nn.modules.activation.ReLU -> torch.nn.ReLU
        return "torch.nn." + name.rsplit(".", 1)[-1]
    for prefix, replacement in _CANONICAL_PREFIXES[1:]:
        if name.startswith(prefix):
            return replacement + name[len(prefix) :]
    return name
