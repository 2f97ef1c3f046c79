"""Decide, before libcst sees a file, what of it can hold a finding.

libcst parses about ten times slower than Python's own ``ast``, and most code cannot produce a
finding: every event the analysis reports starts from in-place syntax (an augmented assignment, an
item assignment, a method ending in one ``_``, ``inplace=``, ``out=``, ``.data = ``, ``.numpy()``,
``.step()``, ``set_value`` ...) or from a call into code that holds such syntax. So each file goes
through two cheap stages first:

1. A text test: a file that never says ``torch`` or ``paddle`` imports neither, and the analysis
   reports nothing in a module without a framework import. Such a file is only syntax-checked
   (``ast.parse``), so syntax errors are still reported for every file, as ruff does.
2. An ``ast`` triage. The module is cut into units (top-level functions, methods, and each class's
   skeleton: header, class-level statements and ``__init__``). Units holding in-place syntax are
   seeds; the units whose results can change because of a seed are added (callers of a writing
   function, methods using an attribute built from an in-place module, users of a local module
   whose ``forward`` writes); then everything those units read (callees, local classes, base
   classes, the modules behind ``self.x(...)``) is added, since summaries of callees feed the
   analysis of their callers. The other units are replaced, line for line, by a one-line stub
   (``def name(): pass`` / ``class Name: pass``) and blank lines, so every row and column of the
   kept code is unchanged and diagnostics need no remapping.

``plan`` returns what to do with one text: ``skip`` (nothing can be found: no libcst parse at
all), ``full`` (analyse the text as it is: it does not parse with ``ast``, the reduction does not
apply, or nearly everything is needed) or ``reduced`` (analyse ``plan.text``). Units holding the
word ``noqa`` are never blanked, so suppressions see the same comments on the same rows.

The stages are conservative by construction; ``tests/speed/test_prefilter.py`` proves on every
fixture that the reduced text gives the same diagnostics as the full one and that every fixture
with an ``expect:`` marker passes the text test, and ``bench/run.py --verify`` checks the same on
real trees. See docs/performance.md.

This module must stay importable without libcst: the warm path of the runner never loads it.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field

# A module that never names a framework cannot import one.
_MENTION = re.compile(r"\b(?:torch|paddle)\b")
# Line ends as Python's tokenizer counts rows; anything else (form feeds are fine) disables the
# reduction, which relies on rows being exactly the ``ast`` line numbers.
_ODD_LINE_BREAK = re.compile(r"\r(?!\n)|[\x0b\x1c-\x1e\x85\u2028\u2029]")
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")

# Module classes whose `inplace` flag can be passed positionally (`nn.ReLU(True)`,
# `nn.Dropout(0.1, True)`): the flag's position. A call passing that many arguments is a candidate.
# tests/speed/test_prefilter.py checks this against the knowledge tables.
INPLACE_POSITION = {
    **dict.fromkeys("ReLU ReLU6 SELU SiLU Hardswish Hardsigmoid Mish".split(), 0),
    **dict.fromkeys("LeakyReLU ELU CELU AlphaDropout FeatureAlphaDropout".split(), 1),
    **dict.fromkeys("Dropout Dropout1d Dropout2d Dropout3d".split(), 1),
    **dict.fromkeys("Hardtanh Threshold RReLU".split(), 2),
}
# Calls that are candidates whatever their arguments: optimizer steps, Paddle's version-free
# writes, and everything that shares memory with numpy.
CANDIDATE_CALLS = frozenset(
    "step set_value numpy from_numpy as_tensor asarray frombuffer from_dlpack".split()
)
CANDIDATE_KEYWORDS = frozenset({"inplace", "out"})
# Methods through which a local module's instances are called.
MODULE_ENTRY_METHODS = ("forward", "__call__", "_forward_impl")
_AUTOGRAD_FUNCTION_BASES = ("Function", "PyLayer", "InplaceFunction")
_BLOCK_STATEMENTS = (ast.If, ast.Try, ast.With, ast.AsyncWith) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Above this share of kept lines the reduced text is not worth building.
_FULL_ENOUGH = 0.9


@dataclass(frozen=True)
class Plan:
    kind: str  # "skip" | "full" | "reduced"
    text: str | None = None  # for "reduced": the text to analyse (same rows and columns)
    reason: str = ""
    kept_lines: int = 0
    total_lines: int = 0


def mentions_framework(text: str) -> bool:
    return _MENTION.search(text) is not None


def plan(text: str) -> Plan:
    """What to analyse of ``text`` (see the module docstring). Never raises."""
    if not mentions_framework(text):
        if _parse(text) is None:
            return Plan("full", reason="does not parse with ast")
        return Plan("skip", reason="no torch/paddle")
    tree = _parse(text)
    if tree is None:
        return Plan("full", reason="does not parse with ast")
    try:
        units = _collect_units(tree)
    except RecursionError:
        return Plan("full", reason="too deep for the triage")
    if not any(u.seed for u in units):
        return Plan("skip", reason="no in-place candidate")
    if _ODD_LINE_BREAK.search(text):
        return Plan("full", reason="unusual line breaks")
    needed = _needed(units)
    lines = _LINE.findall(text)
    dropped = [u for u in units if u not in needed and not _mentions_noqa(u, lines)]
    dropped = _outermost(dropped)
    dropped_rows = sum(u.end - u.start + 1 for u in dropped)
    if not dropped or dropped_rows < (1 - _FULL_ENOUGH) * len(lines):
        return Plan("full", reason="nearly everything is needed", total_lines=len(lines))
    for unit in dropped:
        _stub_out(lines, unit)
    return Plan(
        "reduced",
        "".join(lines),
        reason=f"{len(dropped)} units blanked",
        kept_lines=len(lines) - dropped_rows,
        total_lines=len(lines),
    )


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


# --------------------------------------------------------------------------------------------
# Units


@dataclass(eq=False)
class _Unit:
    kind: str  # "function" | "class" | "method"
    name: str
    start: int  # first row (its first decorator), 1-based
    end: int  # last row
    indent_row: int  # the row whose indentation the stub takes (the first row)
    owner: _Unit | None = None  # the class of a method
    seed: bool = False
    # identifiers read: Name ids and attribute names in Load context
    loads: set[str] = field(default_factory=set)
    # class only: the skeleton's assignments (target names, holds a candidate, names read)
    assigns: list[tuple[frozenset[str], bool, frozenset[str]]] = field(default_factory=list)
    methods: dict[str, list[_Unit]] = field(default_factory=dict)  # class only
    bases: set[str] = field(default_factory=set)  # class only: names in its bases
    members: list[_Unit] = field(default_factory=list)  # class only: every method unit


def _collect_units(tree: ast.Module) -> list[_Unit]:
    units: list[_Unit] = []
    _collect_body(tree.body, units, depth=0)
    return units


def _collect_body(body: list[ast.stmt], units: list[_Unit], depth: int) -> None:
    """Mirrors ``analysis.index``: module body, and if/try/with blocks a few levels down."""
    for stmt in body:
        if isinstance(stmt, _DEFS):
            unit = _Unit("function", stmt.name, _start(stmt), stmt.end_lineno, _start(stmt))
            unit.seed, unit.loads = _scan([stmt])
            units.append(unit)
        elif isinstance(stmt, ast.ClassDef):
            _add_class_units(stmt, units)
        elif depth < 3 and isinstance(stmt, _BLOCK_STATEMENTS):
            for block in _blocks(stmt):
                _collect_body(block, units, depth + 1)


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    out = [stmt.body]
    if isinstance(stmt, ast.If):
        out.append(stmt.orelse)
    elif not isinstance(stmt, (ast.With, ast.AsyncWith)):
        out.extend(handler.body for handler in stmt.handlers)
        out.extend((stmt.orelse, stmt.finalbody))
    return out


def _add_class_units(stmt: ast.ClassDef, units: list[_Unit]) -> None:
    cls = _Unit("class", stmt.name, _start(stmt), stmt.end_lineno, _start(stmt))
    skeleton: list[ast.AST] = [*stmt.decorator_list, *stmt.bases, *stmt.keywords]
    _, cls.bases = _scan([*stmt.bases, *stmt.keywords])
    autograd_function = any(_last_name(b).endswith(_AUTOGRAD_FUNCTION_BASES) for b in stmt.bases)
    for inner in stmt.body:
        if isinstance(inner, _DEFS) and inner.name != "__init__":
            method = _Unit("method", inner.name, _start(inner), inner.end_lineno, _start(inner))
            method.owner = cls
            method.seed, method.loads = _scan([inner])
            method.seed = method.seed or autograd_function
            cls.methods.setdefault(inner.name, []).append(method)
            cls.members.append(method)
        else:
            skeleton.append(inner)
            for node in ast.walk(inner):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    seed, loads = _scan([node])
                    cls.assigns.append((frozenset(_target_names(node)), seed, frozenset(loads)))
    cls.seed, cls.loads = _scan(skeleton)
    cls.seed = cls.seed or autograd_function
    units.append(cls)
    units.extend(cls.members)


def _start(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", ())
    return min([node.lineno, *(d.lineno for d in decorators)])


def _last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _target_names(node: ast.AST) -> set[str]:
    """The names an assignment binds: `x`, `self.x`, `self.x[i]` -> {"x"}; tuples too."""
    targets = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
    names: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Attribute):
            names.add(target.attr)
        elif isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, (ast.Starred, ast.Subscript)):
            targets.append(target.value)
    return names


# --------------------------------------------------------------------------------------------
# Candidates


def _scan(nodes: list[ast.AST]) -> tuple[bool, set[str]]:
    """(holds an in-place candidate, identifiers read) for the trees under ``nodes``."""
    seed = False
    loads: set[str] = set()
    stack = list(nodes)
    pop, push, extend = stack.pop, stack.append, stack.extend
    Name, Attribute, Call, AST = ast.Name, ast.Attribute, ast.Call, ast.AST
    for_candidates = _CANDIDATE_TESTS
    while stack:
        node = pop()
        kind = type(node)
        if kind is Name:
            loads.add(node.id)
            continue
        if kind is Attribute:
            loads.add(node.attr)
        elif kind is Call:
            func = node.func
            name = func.id if type(func) is Name else func.attr if type(func) is Attribute else ""
            if not seed and _is_candidate_call(node, name):
                seed = True
        elif not seed:
            test = for_candidates.get(kind)
            if test is not None and test(node):
                seed = True
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)
    return seed, loads


def _is_candidate_call(node: ast.Call, name: str) -> bool:
    if name.endswith("_") and not name.endswith("__"):
        return True  # add_, relu_, copy_, masked_fill_, nn.init.zeros_ ...
    if name in CANDIDATE_CALLS or (name.startswith("__i") and name != "__init__"):
        return True
    for keyword in node.keywords:
        if keyword.arg in CANDIDATE_KEYWORDS:
            return True
    position = INPLACE_POSITION.get(name)
    return position is not None and len(node.args) > position


def _writes_target(target: ast.AST) -> bool:
    """An assignment target that writes into an object: `x[i]`, `t.data`, inside tuples too."""
    kind = type(target)
    if kind is ast.Subscript:
        return not _string_key(target.slice)
    if kind is ast.Attribute:
        return target.attr == "data"
    if kind in (ast.Tuple, ast.List):
        return any(_writes_target(e) for e in target.elts)
    if kind is ast.Starred:
        return _writes_target(target.value)
    return False


def _string_key(node: ast.AST) -> bool:
    """`d["key"]`: tensors cannot be indexed by a string, so this is never a tensor write."""
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(
        node, ast.JoinedStr
    )


def _aug_candidate(node: ast.AugAssign) -> bool:
    # `acc += (x,)` / `acc += [x]`: a tensor raises TypeError on a tuple or list operand, so the
    # target is a sequence; `s += "..."` is a string.
    value = node.value
    if isinstance(value, (ast.Tuple, ast.List, ast.ListComp, ast.JoinedStr)):
        return False
    if isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes)):
        return False
    if isinstance(node.target, ast.Subscript) and _string_key(node.target.slice):
        return False
    return True


_CANDIDATE_TESTS = {
    ast.AugAssign: _aug_candidate,
    ast.Assign: lambda n: any(_writes_target(t) for t in n.targets),
    ast.AnnAssign: lambda n: n.value is not None and _writes_target(n.target),
    ast.For: lambda n: _writes_target(n.target),
    ast.AsyncFor: lambda n: _writes_target(n.target),
    ast.comprehension: lambda n: _writes_target(n.target),
    ast.withitem: lambda n: n.optional_vars is not None and _writes_target(n.optional_vars),
}


# --------------------------------------------------------------------------------------------
# Which units are needed


def _needed(units: list[_Unit]) -> set[_Unit]:
    index = _Index(units)
    writers = _writers(units, index)
    return _with_dependencies(writers, index)


class _Index:
    def __init__(self, units: list[_Unit]) -> None:
        self.functions: dict[str, list[_Unit]] = {}
        self.classes: dict[str, list[_Unit]] = {}
        for unit in units:
            if unit.kind == "function":
                self.functions.setdefault(unit.name, []).append(unit)
            elif unit.kind == "class":
                self.classes.setdefault(unit.name, []).append(unit)

    def classes_named(self, names: set[str]) -> list[_Unit]:
        found = []
        for name in names & self.classes.keys():
            found.extend(self.classes[name])
        return found

    def siblings(self, unit: _Unit) -> list[_Unit]:
        """Units the analysis indexes under the same key (redefinitions, property setters): kept
        or dropped together, so the index holds the same definition either way."""
        if unit.kind == "method":
            return unit.owner.methods[unit.name]
        table = self.functions if unit.kind == "function" else self.classes
        return table[unit.name]

    def lineage(self, cls: _Unit) -> list[_Unit]:
        """The class and its local base classes, transitively."""
        out, todo = [], [cls]
        while todo:
            current = todo.pop()
            if current in out:
                continue
            out.append(current)
            todo.extend(self.classes_named(current.bases))
        return out


def _writers(units: list[_Unit], index: _Index) -> set[_Unit]:
    """Seeds, and every unit whose events can change because of one (fixpoint)."""
    writers = {u for u in units if u.seed}
    while True:
        hot_names: set[str] = set()  # functions that write; local modules whose forward writes
        hot_methods: list[_Unit] = []
        for unit in writers:
            if unit.kind == "function":
                hot_names.add(unit.name)
            elif unit.kind == "method":
                hot_methods.append(unit)
                if unit.name in MODULE_ENTRY_METHODS:
                    hot_names.add(unit.owner.name)
        hot_attributes = {
            name
            for cls in index.classes.values()
            for unit in cls
            for targets, seed, loads in unit.assigns
            if seed or loads & hot_names
            for name in targets
        }
        hot = hot_names | hot_attributes
        added = set()
        for unit in units:
            if unit in writers:
                continue
            if unit.loads & hot or any(_may_call_method(unit, m) for m in hot_methods):
                added.add(unit)
        if not added:
            return writers
        writers |= added


def _may_call_method(unit: _Unit, method: _Unit) -> bool:
    """`self.m(...)` inside the method's class, or `x.m(...)` where x can be its instance."""
    if method.name not in unit.loads:
        return False
    cls = method.owner
    if unit is cls or unit.owner is cls:
        return True
    if cls.name in unit.loads:
        return True
    return unit.owner is not None and cls.name in unit.owner.loads


def _with_dependencies(writers: set[_Unit], index: _Index) -> set[_Unit]:
    """Everything the analysis of ``writers`` reads: callees, classes, bases, modules."""
    needed: set[_Unit] = set()
    todo = list(writers)
    while todo:
        unit = todo.pop()
        if unit in needed:
            continue
        needed.add(unit)
        todo.extend(_dependencies(unit, index))
    return needed


def _dependencies(unit: _Unit, index: _Index) -> list[_Unit]:
    deps: list[_Unit] = list(index.siblings(unit))
    loads = unit.loads
    for name in loads & index.functions.keys():
        deps.extend(index.functions[name])
    if unit.kind == "class":
        deps.extend(index.classes_named(unit.bases))
        referenced = index.classes_named(loads)
        deps.extend(referenced)  # instantiated in __init__: their kind matters, not their code
        deps.extend(_methods_named(unit, loads))  # self.m() in __init__
        return deps
    if unit.owner is not None:
        deps.append(unit.owner)
        deps.extend(_methods_named(unit.owner, loads))  # self.m()
    referenced = index.classes_named(loads)
    for cls in referenced:  # `Block(...)(x)`, `Fn.apply(x)`, `blk.m()`
        deps.append(cls)
        deps.extend(_methods_named(cls, loads | set(MODULE_ENTRY_METHODS)))
    if unit.owner is not None:  # `self.block(x)`: the classes `__init__` built `block` from
        for cls in index.lineage(unit.owner):
            for targets, _, assign_loads in cls.assigns:
                if targets & loads:
                    for module in index.classes_named(set(assign_loads)):
                        deps.append(module)
                        deps.extend(_methods_named(module, loads | set(MODULE_ENTRY_METHODS)))
    return deps


def _methods_named(cls: _Unit, names: set[str]) -> list[_Unit]:
    out = []
    for name in names & cls.methods.keys():
        out.extend(cls.methods[name])
    return out


# --------------------------------------------------------------------------------------------
# The reduced text


def _mentions_noqa(unit: _Unit, lines: list[str]) -> bool:
    return any("noqa" in line.lower() for line in lines[unit.start - 1 : unit.end])


def _outermost(units: list[_Unit]) -> list[_Unit]:
    """Drop methods whose class is dropped too (the class stub covers them)."""
    dropped = set(units)
    return [u for u in units if u.owner is None or u.owner not in dropped]


def _stub_out(lines: list[str], unit: _Unit) -> None:
    first = lines[unit.start - 1]
    indent = first[: len(first) - len(first.lstrip(" \t\f"))]
    newline = "\r\n" if first.endswith("\r\n") else "\n"
    stub = f"class {unit.name}: pass" if unit.kind == "class" else f"def {unit.name}(): pass"
    lines[unit.start - 1] = indent + stub + newline
    for row in range(unit.start, unit.end):
        line = lines[row]
        lines[row] = "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""
