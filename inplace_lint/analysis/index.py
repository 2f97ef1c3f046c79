"""The module-level index built before any function is analysed: imports, classes, functions.

Built from the top levels of the tree only (module body, class bodies); function bodies are
left to the dataflow, which walks each one once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from inplace_lint.analysis.imports import ImportTable, dotted_name

MODULE_BASES = {
    "torch.nn.Module": "torch",
    "torch.nn.Sequential": "torch",
    "torch.nn.ModuleList": "torch",
    "paddle.nn.Layer": "paddle",
    "paddle.nn.Sequential": "paddle",
}
FUNCTION_BASES = {"torch.autograd.Function": "torch", "paddle.autograd.PyLayer": "paddle"}


@dataclass
class ClassInfo:
    name: str
    node: cst.ClassDef
    base_names: list[str]  # qualified where resolvable, else the written dotted name
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    module_fw: str | None = None  # "torch" / "paddle" when an nn.Module / Layer subclass
    autograd_function_fw: str | None = None
    looks_like_module: bool = False  # has a forward method though its base is unknown

    @property
    def is_module(self) -> bool:
        """An nn.Module / Layer subclass, or a class that looks like one."""
        return self.module_fw is not None or self.looks_like_module


@dataclass
class FunctionInfo:
    key: str  # "f" or "Class.method"
    node: cst.FunctionDef
    cls: ClassInfo | None
    # a method the class inherits from a local base (`Sub.forward` running `Base.forward` with a
    # `Sub` as `self`): that base's name
    inherited_from: str | None = None
    # a function defined inside a method that reads that method's `self` (mmcv's
    # `def _inner_forward(x): ... self.conv1(x) ...`): the method's class
    enclosing_cls: ClassInfo | None = None
    # a function defined inside a function: what the enclosing function held, where the `def`
    # ran, in the names it reads but does not bind, when that is an object and not a tensor (a
    # module, an optimizer, a function, a constant; ``FunctionInterpreter._closure``)
    closure: tuple[tuple[str, object], ...] = ()


@dataclass
class ModuleIndex:
    imports: ImportTable
    classes: dict[str, ClassInfo]
    functions: dict[str, FunctionInfo]  # every function and method, by key
    frameworks: set[str]
    module_info: FunctionInfo | None = None  # the module's own top-level code, as a function

    @property
    def default_fw(self) -> str:
        if "torch" in self.frameworks or not self.frameworks:
            return "torch" if "paddle" not in self.frameworks else "paddle"
        return "paddle"


def build_index(module: cst.Module) -> ModuleIndex:
    imports = ImportTable()
    classes: dict[str, ClassInfo] = {}
    functions: dict[str, FunctionInfo] = {}
    _scan_body(module.body, imports, classes, functions, depth=0)
    _resolve_class_kinds(classes, imports)
    _add_inherited_methods(classes, functions)
    top_level = cst.FunctionDef(
        name=cst.Name("__module_body__"),
        params=cst.Parameters(),
        body=cst.IndentedBlock(
            body=[s for s in module.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
        ),
    )
    return ModuleIndex(
        imports, classes, functions, imports.frameworks, FunctionInfo("<module>", top_level, None)
    )


def _add_inherited_methods(
    classes: dict[str, ClassInfo], functions: dict[str, FunctionInfo]
) -> None:
    """`Sub.m` for every method `m` a class inherits from a local base and does not define: the
    base's code run with a `Sub` as `self`, so that `self.cell(x)` in `Base.forward` runs the
    override `Sub.cell`, and `self.fc` is what `Sub.__init__` built (virtual dispatch). Bases are
    searched as ``local_lineage`` orders them."""
    for info in classes.values():
        for base in local_lineage(info, classes)[1:]:
            for name, node in base.methods.items():
                key = f"{info.name}.{name}"
                if name in info.methods or key in functions:
                    continue
                functions[key] = FunctionInfo(key, node, info, inherited_from=base.name)


def local_lineage(info: ClassInfo, classes: dict[str, ClassInfo]) -> list[ClassInfo]:
    """The class, then its local base classes, depth-first and left to right (Python's order for
    the usual single-inheritance and mixin shapes); bases from elsewhere are left out."""
    order = [info]
    seen = {info.name}
    stack = list(reversed(info.base_names))
    while stack and len(order) < 16:
        name = stack.pop()
        base = classes.get(name)
        if base is None or name in seen:
            continue
        seen.add(name)
        order.append(base)
        stack.extend(reversed(base.base_names))
    return order


def _add_imports(stmt: cst.SimpleStatementLine, imports: ImportTable) -> None:
    for small in stmt.body:
        if isinstance(small, cst.Import):
            imports.add_import(small)
        elif isinstance(small, cst.ImportFrom):
            imports.add_import_from(small)


def _scan_body(body, imports, classes, functions, depth: int) -> None:
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            _add_imports(stmt, imports)
        elif isinstance(stmt, cst.FunctionDef):
            functions.setdefault(stmt.name.value, FunctionInfo(stmt.name.value, stmt, None))
            _scan_imports_in(stmt.body, imports)
        elif isinstance(stmt, cst.ClassDef):
            info = ClassInfo(stmt.name.value, stmt, [])
            for arg in stmt.bases:
                info.base_names.append(imports.resolve(arg.value) or dotted_name(arg.value) or "")
            for inner in stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ():
                if isinstance(inner, cst.FunctionDef):
                    info.methods[inner.name.value] = inner
                    key = f"{info.name}.{inner.name.value}"
                    functions[key] = FunctionInfo(key, inner, info)
                    _scan_imports_in(inner.body, imports)
            classes.setdefault(info.name, info)
        elif depth < 3 and isinstance(stmt, (cst.If, cst.Try, cst.With)):
            for block in _blocks(stmt):
                _scan_body(block, imports, classes, functions, depth + 1)


def _scan_imports_in(block: cst.BaseSuite, imports: ImportTable) -> None:
    """Imports at the top of a function body (`import torch` inside a function is common)."""
    if not isinstance(block, cst.IndentedBlock):
        return
    for stmt in block.body[:8]:
        if isinstance(stmt, cst.SimpleStatementLine):
            _add_imports(stmt, imports)


def _blocks(stmt) -> list:
    out = []
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.IndentedBlock):
        out.append(body.body)
    if isinstance(stmt, cst.If) and stmt.orelse is not None:
        out.extend(_blocks(stmt.orelse))
    if isinstance(stmt, cst.Else) and isinstance(stmt.body, cst.IndentedBlock):
        out.append(stmt.body.body)
    if isinstance(stmt, cst.Try):
        for handler in stmt.handlers:
            out.extend(_blocks(handler))
    return out


def _resolve_class_kinds(classes: dict[str, ClassInfo], imports: ImportTable) -> None:
    for info in classes.values():
        info.module_fw = _framework_of(classes, info, {info.name}, MODULE_BASES, modules=True)
        info.autograd_function_fw = _framework_of(classes, info, {info.name}, FUNCTION_BASES)
        if (
            info.module_fw is None
            and info.autograd_function_fw is None
            and "forward" in info.methods
        ):
            info.looks_like_module = True


# A module-level function, not a closure: a closure that calls itself is a reference cycle, which
# would keep the class nodes (and the tree under them) alive until the cycle collector runs.
def _framework_of(
    classes: dict[str, ClassInfo],
    info: ClassInfo,
    seen: set[str],
    known: dict[str, str],
    modules: bool = False,
) -> str | None:
    """The framework of the first base (local ones followed) found in ``known``; with
    ``modules``, any capitalised class of `torch.nn` / `paddle.nn` counts too."""
    for base in info.base_names:
        if base in known:
            return known[base]
        if (
            modules
            and base.startswith(("torch.nn.", "paddle.nn."))
            and base.split(".")[-1][:1].isupper()
        ):
            return base.split(".")[0]
        local = classes.get(base)
        if local is not None and base not in seen:
            found = _framework_of(classes, local, seen | {base}, known, modules)
            if found:
                return found
    return None
