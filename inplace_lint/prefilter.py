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
import itertools
import re
import symtable
import warnings
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from inplace_lint.analysis.annotations import LAYER_PARAMETER, NON_TENSOR_TYPES

# A module that never names a framework cannot import one.
_MENTION = re.compile(r"\b(?:torch|paddle)\b")
# Line ends as Python's tokenizer counts rows; anything else (form feeds are fine) disables the
# reduction, which relies on rows being exactly the ``ast`` line numbers.
_ODD_LINE_BREAK_CHARS = re.compile("[\x0b\x1c-\x1e\x85\u2028\u2029]")
_LONE_CR = re.compile(r"\r(?!\n)")
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")

# Calls that write in place when a flag is set (`inplace=True`, `max_norm=`), and the flag's
# position when passed positionally (`nn.ReLU(True)`, `F.dropout(x, 0.1, True, True)`): a call
# passing that many arguments, or the flag by keyword, is a candidate. The test suite checks this
# table against every module and function of the knowledge tables that takes such a flag.
FLAG_KEYWORDS = frozenset({"inplace", "max_norm"})
FLAG_POSITIONS = {
    **dict.fromkeys(["ReLU", "ReLU6", "SELU", "SiLU", "Hardswish", "Hardsigmoid", "Mish"], 0),
    **dict.fromkeys(["LeakyReLU", "ELU", "CELU", "AlphaDropout", "FeatureAlphaDropout"], 1),
    **dict.fromkeys(["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"], 1),
    **dict.fromkeys(["Hardtanh", "Threshold", "RReLU"], 2),
    "Embedding": 3,
    **dict.fromkeys(["relu", "relu6", "selu", "silu", "hardswish", "hardsigmoid", "mish"], 1),
    **dict.fromkeys(["leaky_relu", "elu", "celu"], 2),
    **dict.fromkeys(["hardtanh", "threshold", "dropout", "dropout1d", "dropout2d", "dropout3d"], 3),
    **dict.fromkeys(["alpha_dropout", "feature_alpha_dropout", "embedding"], 3),
    "rrelu": 4,
}
# Calls that are candidates whatever their arguments: optimizer steps, Paddle's version-free
# writes, module resets (analysis.knowledge.MODULE_RESET_METHODS), and everything that shares
# memory with numpy.
CANDIDATE_CALLS = frozenset(
    [
        "step",
        "set_value",
        "reset_running_stats",
        "reset_parameters",
        "numpy",
        "from_numpy",
        "as_tensor",
        "asarray",
        "frombuffer",
        "from_dlpack",
        "__setitem__",  # `data.__setitem__("c_size", t)` (PaddleHelix): an item write, spelled out
    ]
)
# `out=` (torch), `output=` (`paddle.assign(x, output=t)` writes `t` in place)
CANDIDATE_KEYWORDS = FLAG_KEYWORDS | {"out", "output"}
# Methods through which a local module's instances are called.
MODULE_ENTRY_METHODS = ("forward", "__call__", "_forward_impl")
_AUTOGRAD_FUNCTION_BASES = ("Function", "PyLayer", "InplaceFunction")
_BLOCK_STATEMENTS = (ast.If, ast.Try, ast.With, ast.AsyncWith) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Above this share of kept lines the reduced text is not worth building (below it, every line
# blanked is a line libcst does not parse: on transformers, 0.9 left 1 MB of 15 MB unblanked).
_FULL_ENOUGH = 0.99


@dataclass(frozen=True)
class Plan:
    kind: str  # "skip" | "full" | "reduced"
    text: str | None = None  # for "reduced": the text to analyse (same rows and columns)
    reason: str = ""
    kept_lines: int = 0
    total_lines: int = 0
    # for "reduced": where the top-level statements and the statements of top-level classes
    # start (``_layout``), so that libcst can parse the text piece by piece (``piecewise``)
    layout: tuple = ()
    # for "reduced": the functions and methods ("f", "Class.method") that hold in-place syntax
    # or call what does: the only ones that can report anything on their own
    writers: frozenset[str] | None = None


def mentions_framework(text: str) -> bool:
    # the substring tests first: three times cheaper than the word-boundary regex over a tree
    return ("torch" in text or "paddle" in text) and _MENTION.search(text) is not None


def _odd_line_breaks(text: str) -> bool:
    """A lone CR or a line break other than LF / CRLF (two searches: a single character class is
    scanned three times faster than the alternation)."""
    return _ODD_LINE_BREAK_CHARS.search(text) is not None or (
        "\r" in text and _LONE_CR.search(text) is not None
    )


def plan(text: str) -> Plan:
    """What to analyse of ``text`` (see the module docstring). Never raises."""
    if not mentions_framework(text):
        if not _compiles(text):
            return Plan("full", reason="does not parse with ast")
        return Plan("skip", reason="no torch/paddle")
    tree = _parse(text)
    if tree is None:
        return Plan("full", reason="does not parse with ast")
    try:
        module = _Module(tree, local_names=":=" not in text)
    except RecursionError:
        return Plan("full", reason="too deep for the triage")
    try:
        return _reduce(text, module, tree)
    finally:
        module.release()


def _reduce(text: str, module: _Module, tree: ast.Module) -> Plan:
    if not any(u.seed for u in module.units):
        return Plan("skip", reason="no in-place candidate")
    if _odd_line_breaks(text):
        return Plan("full", reason="unusual line breaks")
    writers = _writers(module)
    lines, blanked = reduced_lines(text, module, writers)
    if blanked < (1 - _FULL_ENOUGH) * len(lines):
        return Plan("full", reason="nearly everything is needed", total_lines=len(lines))
    return Plan(
        "reduced",
        "".join(lines),
        reason=f"{blanked} of {len(lines)} lines blanked",
        kept_lines=len(lines) - blanked,
        total_lines=len(lines),
        layout=_layout(tree, lines),
        writers=frozenset(
            unit.name if unit.kind == "function" else f"{unit.owner.name}.{unit.name}"
            for unit in writers
            if unit.kind in ("function", "method")
        ),
    )


def _layout(tree: ast.Module, lines: list[str]) -> tuple:
    """Where each top-level statement starts (its first decorator's row, 0-based), whether it
    starts its row, and for a class whose body starts on a row of its own, the same for each
    statement of the body. The reduced text keeps these rows (a stub on the first row of what it
    replaces); a statement blanked away has an empty first row, which ``piecewise`` skips."""

    def entry(stmt: ast.stmt) -> tuple[int, bool]:
        return _start(stmt) - 1, _starts_row(lines, stmt)

    top = []
    for stmt in tree.body:
        row, alone = entry(stmt)
        body = None
        if type(stmt) is ast.ClassDef and _starts_row(lines, stmt.body[0]):
            body = tuple(entry(s) for s in stmt.body)
        top.append((row, alone, body))
    return tuple(top)


def reduced_lines(text: str, module: _Module, writers: set[_Unit]) -> tuple[list[str], int]:
    """The rows of ``text`` with everything ``writers`` and what they read do not need stubbed
    and their unread annotations blanked, and how many rows were blanked (the benchmark scripts
    under bench/ call it with other choices of writers)."""
    lines = _LINE.findall(text)
    needed = _with_dependencies(writers, module)
    blanked = _blank(lines, module, needed)
    _drop_annotations(lines, needed)
    return lines, blanked


# What Python's parser raises on text it rejects or cannot hold.
_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def _compiles(text: str) -> bool:
    """A syntax check only: Python's parser and symbol table, without building an ``ast`` tree
    (about a third cheaper than ``ast.parse``). It rejects all that ``ast.parse`` rejects, and a
    few more (`nonlocal` at module level, a duplicate argument): such a file is analysed in full,
    where libcst parses it and finds nothing to say without a framework import."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            symtable.symtable(text, "<prefilter>", "exec")
        return True
    except _PARSE_ERRORS:
        return False


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except _PARSE_ERRORS:
        return None


# --------------------------------------------------------------------------------------------
# Units: what the analysis indexes (analysis/index.py), so what can be kept or stubbed alone


class _Scan(NamedTuple):
    seed: bool  # holds in-place syntax
    names: set[str]  # plain names (`x`), read or written, in annotations and isinstance too
    attrs: set[str]  # attribute names (`a.x` -> x), read or written
    read_names: set[str]  # plain names read as values (not in annotations or isinstance)
    read_attrs: set[str]  # attribute names read (or updated with `+=` & co.)
    called: set[str]  # `f(...)` -> f; `a.b.m(...)` -> m and a
    bound: set[str]  # plain names assigned (local variables)
    # `x.a = v` with a `v` that may be a plain tensor: `a` (IPL014 if `a` is a parameter's name);
    # `x.a = nn.Parameter(...)` and the like: `a`, a parameter's name; `p = nn.Parameter(...)`: p;
    # `x.a = p` with a plain name: (a, p)
    param_targets: set[str]
    param_sources: set[str]
    param_locals: set[str]
    param_named: set[tuple[str, str]]


@dataclass(eq=False)
class _Unit:
    kind: str  # "module" (the top-level statements) | "function" | "class" | "method"
    name: str
    node: ast.AST | None = None
    owner: _Unit | None = None  # the class of a method
    scan: _Scan = field(default_factory=lambda: _Scan(False, *(set() for _ in _Scan._fields[1:])))
    seed: bool = False  # holds in-place syntax (or is a method of an autograd.Function)
    # class only
    methods: dict[str, list[_Unit]] = field(default_factory=dict)  # by name, `__init__` too
    bases: set[str] = field(default_factory=set)  # names in its bases
    # `self.x = ...` in `__init__`: (names assigned, holds in-place syntax, names used)
    assigns: list[tuple[frozenset[str], bool, frozenset[str]]] = field(default_factory=list)
    body: list[ast.stmt] = field(default_factory=list)  # class-level statements (not analysed)
    forward_assigns: set[str] | None = None  # the attributes its `forward` assigns (memo)

    @property
    def init(self) -> list[_Unit]:
        return self.methods.get("__init__", [])

    @property
    def names(self) -> set[str]:
        return self.scan.names

    @property
    def attrs(self) -> set[str]:
        return self.scan.attrs


class _Module:
    def __init__(self, tree: ast.Module, local_names: bool = False) -> None:
        # ``local_names``: the text holds no `:=`, so a function binds names only in statements
        # (see ``_plain_values``); without it no write is excused as a number's or a container's
        self.local_names = local_names
        self.top = _Unit("module", "<module>")
        self.units: list[_Unit] = [self.top]
        self.functions: dict[str, list[_Unit]] = {}
        self.classes: dict[str, list[_Unit]] = {}
        self._subclasses: dict[str, list[_Unit]] | None = None  # base name -> classes
        self._lineages: dict[int, list[_Unit]] = {}  # id(class) -> ``lineage``
        self._assigning: dict[str, list[_Unit]] | None = None  # ``assigning_classes``
        # a unit that calls a writing method on its parameter (``_may_call``) -> the classes
        # whose instance it may be given: their methods it calls are read too
        self.given_instances: dict[_Unit, set[_Unit]] = {}
        top_nodes: list[ast.AST] = []
        self._collect(tree.body, top_nodes, depth=0)
        self.top.scan = _scan(top_nodes)
        self.top.seed = self.top.scan.seed
        self.top_nodes = top_nodes
        self._parameter_assign_seeds()

    def _parameter_assign_seeds(self) -> None:
        """A unit assigning a tensor to a name that may be a module's registered parameter
        (`self.w = self.w * mask`, `net.fc.weight = ...`) is a seed: the analysis checks it
        (IPL014). The names: those assigned a `Parameter(...)` / `create_parameter(...)` (also
        through a local name), and a layer's `weight` / `bias` (for `self.` only where a class
        extends something other than a plain container: `class MaskedConv(nn.Conv2d)`)."""
        units = [u for u in self.units if u.scan.param_targets and not u.seed]
        if not units:
            return
        sources: set[str] = set()
        local_sources: set[str] = set()
        named: set[tuple[str, str]] = set()
        for unit in self.units:
            sources |= unit.scan.param_sources
            local_sources |= unit.scan.param_locals
            named |= unit.scan.param_named
        sources |= {attr for attr, name in named if name in local_sources}
        plain_bases = _PLAIN_BASES | self.classes.keys()
        layer_subclass = any(
            _last_name(base) not in plain_bases
            for classes in self.classes.values()
            for cls in classes
            for base in cls.node.bases
        )
        for unit in units:
            for written in unit.scan.param_targets:
                own = written.startswith("self.")
                attr = written[5:] if own else written
                if attr in sources or (
                    (layer_subclass or not own) and LAYER_PARAMETER.fullmatch(attr)
                ):
                    unit.seed = True
                    break

    def release(self) -> None:
        """Break the method <-> class references, so that the ``ast`` tree under the units is
        freed as soon as the plan is made rather than by the cycle collector (a whole file's
        tree for every file otherwise waits for a collection, and makes it longer)."""
        for unit in self.units:
            unit.owner = None
            unit.methods = {}
        self.given_instances = {}

    def aliases(self) -> list[tuple[frozenset[str], frozenset[str]]]:
        """`sparsemax = SparsemaxFunction.apply`: module-level names bound from others, so that
        calls through the alias count as uses of what it names (built only for files with a
        seed: the only ones that ask)."""
        return [
            (
                frozenset(t.id for t in node.targets if isinstance(t, ast.Name)),
                frozenset(n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)),
            )
            for node in self.top_nodes
            if isinstance(node, ast.Assign)
        ]

    def _collect(self, body: list[ast.stmt], top_nodes: list[ast.AST], depth: int) -> None:
        """Mirrors ``analysis.index``: module body, and if/try/with blocks a few levels down."""
        for stmt in body:
            if isinstance(stmt, _DEFS):
                unit = _Unit("function", stmt.name, stmt)
                unit.scan = _scan([stmt], local=self.local_names)
                unit.seed = unit.scan.seed or _inference_decorated(stmt)
                self.units.append(unit)
                self.functions.setdefault(stmt.name, []).append(unit)
            elif isinstance(stmt, ast.ClassDef):
                self._add_class(stmt)
            elif depth < 3 and isinstance(stmt, _BLOCK_STATEMENTS):
                top_nodes.extend(_block_header(stmt))
                for block in _blocks(stmt):
                    self._collect(block, top_nodes, depth + 1)
            else:
                top_nodes.append(stmt)

    def _add_class(self, stmt: ast.ClassDef) -> None:
        cls = _Unit("class", stmt.name, stmt)
        cls.bases = _scan([*stmt.bases, *stmt.keywords]).names
        cls.scan = _scan([*stmt.decorator_list, *stmt.bases, *stmt.keywords])
        autograd_function = any(
            _last_name(b).endswith(_AUTOGRAD_FUNCTION_BASES) for b in stmt.bases
        )
        self.units.append(cls)
        self.classes.setdefault(stmt.name, []).append(cls)
        for inner in stmt.body:
            if not isinstance(inner, _DEFS):
                cls.body.append(inner)
                continue
            method = _Unit("method", inner.name, inner, owner=cls)
            method.scan = _scan([inner], local=self.local_names)
            method.seed = method.scan.seed or autograd_function or _inference_decorated(inner)
            cls.methods.setdefault(inner.name, []).append(method)
            self.units.append(method)
            if inner.name == "__init__":
                self._add_init_assigns(cls, inner)
        for init in cls.init:
            # `self.build_model()` in `__init__`: what that method binds on `self` is
            # `__init__`'s to the analysis too
            for name in init.scan.called & cls.methods.keys() - {"__init__"}:
                if _calls_on_self(init.node, name):
                    for method in cls.methods[name]:
                        self._add_init_assigns(cls, method.node)

    @staticmethod
    def _add_init_assigns(owner: _Unit, init: ast.AST) -> None:
        """`self.x = ...` in `__init__`, and `self.x.append(...)` / `.add_module(...)`, which
        build `self.x` too; for the latter the local names they pass count with what `__init__`
        bound them to (`conv = Downsample(c, c); self.time_conv.append(conv)`: Downsample)."""
        extensions: list[ast.Expr] = []
        local_assigns: list[ast.stmt] = []  # `x = ...`: scanned only if an attribute reads one
        attribute_assigns: list[tuple[frozenset[str], _Scan]] = []
        for node in _statements(init):
            if isinstance(node, ast.Expr) and (
                _extends_attribute(node.value) or _adds_own_module(node.value)
            ):
                extensions.append(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = frozenset(_target_names(node))
                if not targets:
                    local_assigns.append(node)
                    continue
                # (attributes the value reads count too: `self.end2end = self.patch_model(...)`
                # after `self.patch_model = ONNX_TRT if ... else ONNX_ORT`, yolov7's End2End)
                attribute_assigns.append((targets, _scan([node])))
        scanned = [(frozenset({_extension_target(n)}), _scan([n])) for n in extensions]
        local_values: dict[str, tuple[bool, set[str]]] = {}  # local name -> (seed, names)
        reads = any(found.read_names for _, found in (*attribute_assigns, *scanned))
        if reads and isinstance(init, _DEFS):
            # a parameter's default is what the name holds unless a caller passes another
            # (`act_layer=partial(nn.ReLU, inplace=True)`, then `self.act = act_layer()`)
            arguments = init.args
            positional = [*arguments.posonlyargs, *arguments.args]
            defaults = list(
                zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults)
            )
            defaults += [
                (a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None
            ]
            for arg, default in defaults:
                found = _scan([default])
                if found.seed:
                    local_values[arg.arg] = (True, set(found.names))
        if local_assigns and reads:
            for node in local_assigns:
                found = _scan([node])
                for name in found.bound:
                    seed, names = local_values.get(name, (False, set()))
                    local_values[name] = (seed or found.seed, names | found.names)
        for targets, found in attribute_assigns:
            seed, names = _with_locals(found, local_values)
            owner.assigns.append((targets, seed, frozenset(names)))
        if any(_sets_inplace(node) for node in local_assigns) or any(
            _sets_inplace(node) for node in _statements(init) if isinstance(node, ast.Assign)
        ):
            # `m.inplace = True` over `self.modules()` (BDRAR, MVANet) or `self.act.inplace =
            # True`: any submodule may now write in place, as if built with `inplace=True`
            every = frozenset().union(*(t for t, _ in attribute_assigns), *(t for t, _ in scanned))
            owner.assigns.append((every, True, frozenset()))
        for targets, found in scanned:
            # `conv = Downsample(c, c); self.time_conv.append(conv)`: the local names an
            # extension passes count with what `__init__` bound them to
            seed, names = _with_locals(found, local_values, attrs=False)
            owner.assigns.append((targets, seed, frozenset(names)))

    def named(self, table: dict[str, list[_Unit]], names: set[str]) -> list[_Unit]:
        found: list[_Unit] = []
        for name in names & table.keys():
            found.extend(table[name])
        return found

    def lineage(self, cls: _Unit) -> list[_Unit]:
        """The class and its local base classes, transitively (memoised: every method of a
        class asks)."""
        out = self._lineages.get(id(cls))
        if out is not None:
            return out
        out, todo = [], [cls]
        while todo:
            current = todo.pop()
            if current not in out:
                out.append(current)
                todo.extend(self.named(self.classes, current.bases))
        self._lineages[id(cls)] = out
        return out

    def assigning_classes(self) -> dict[str, list[_Unit]]:
        """Attribute name -> the local classes whose `__init__` binds it on `self` (built once:
        every unit reading attributes asks)."""
        if self._assigning is None:
            self._assigning = {}
            for classes in self.classes.values():
                for cls in classes:
                    for targets, _, _ in cls.assigns:
                        for name in targets:
                            found = self._assigning.setdefault(name, [])
                            if not found or found[-1] is not cls:
                                found.append(cls)
        return self._assigning

    def subclasses(self, cls: _Unit) -> list[_Unit]:
        """The local classes that have ``cls`` among their bases, transitively: a method of
        ``cls`` runs for each with its `self` (dataflow: `index._add_inherited_methods`)."""
        if self._subclasses is None:
            self._subclasses = {}
            for classes in self.classes.values():
                for sub in classes:
                    for base in sub.bases:
                        self._subclasses.setdefault(base, []).append(sub)
        out: list[_Unit] = []
        todo = [cls]
        while todo and len(out) < 64:
            current = todo.pop()
            for sub in self._subclasses.get(current.name, ()):
                if sub not in out and sub is not cls:
                    out.append(sub)
                    todo.append(sub)
        return out

    def siblings(self, unit: _Unit) -> list[_Unit]:
        """Definitions the analysis indexes under the same key (redefinitions, property setters):
        kept or stubbed together, so the index holds the same one either way."""
        if unit.kind == "method":
            return unit.owner.methods[unit.name]
        if unit.kind == "function":
            return self.functions[unit.name]
        if unit.kind == "class":
            return self.classes[unit.name]
        return [unit]


def _extension_target(node: ast.Expr) -> str:
    """The attribute `self.x.append(...)` extends (`self.add_module(name, m)`: read back
    through `self._modules[name]`)."""
    func = node.value.func
    return func.value.attr if isinstance(func.value, ast.Attribute) else "_modules"


def _with_locals(
    found: _Scan, local_values: dict[str, tuple[bool, set[str]]], attrs: bool = True
) -> tuple[bool, set[str]]:
    """What an assignment in `__init__` holds and reads, with the local names it reads counted
    as what `__init__` bound them to (`act_layer = partial(nn.ReLU, inplace=True)`, then `self.act
    = act_layer()`: in-place syntax)."""
    seed, names = found.seed, set(found.names | found.attrs if attrs else found.names)
    todo, seen = [n for n in found.read_names if n in local_values], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            more_seed, more = local_values[name]
            seed, names = seed or more_seed, names | more
            todo.extend(n for n in more if n in local_values)
    return seed, names


def _calls_on_self(root: ast.AST, name: str) -> bool:
    """`self.<name>(...)` somewhere under ``root``."""
    return any(
        type(node) is ast.Call
        and type(node.func) is ast.Attribute
        and node.func.attr == name
        and type(node.func.value) is ast.Name
        and node.func.value.id == "self"
        for node in ast.walk(root)
    )


def _statements(root: ast.AST) -> Iterator[ast.stmt]:
    """The statements under ``root``, nested ones included (in nested functions and classes
    too): what ``ast.walk`` yields of them, without visiting every expression node."""
    stack = [root]
    while stack:
        node = stack.pop()
        for name in _STATEMENT_LISTS:
            block = getattr(node, name, None)
            if block:
                for child in block:
                    if isinstance(child, ast.stmt):
                        yield child
                    stack.append(child)  # a statement, an except handler or a match case


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    out = [stmt.body]
    if isinstance(stmt, ast.If):
        out.append(stmt.orelse)
    elif not isinstance(stmt, (ast.With, ast.AsyncWith)):
        out.extend(handler.body for handler in stmt.handlers)
        out.extend((stmt.orelse, stmt.finalbody))
    return out


def _block_header(stmt: ast.stmt) -> list[ast.AST]:
    """The parts of an if/try/with statement outside its blocks."""
    if isinstance(stmt, ast.If):
        return [stmt.test]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return list(stmt.items)
    return [h.type for h in stmt.handlers if h.type is not None]


def _start(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", ())
    return min([node.lineno, *(d.lineno for d in decorators)])


def _last_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _extends_attribute(value: ast.AST) -> bool:
    """`self.x.add_module(...)` / `self.x.append(...)`: a call on an attribute of `self`."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Attribute)
        and isinstance(value.func.value.value, ast.Name)
        and value.func.value.value.id == "self"
    )


def _adds_own_module(value: ast.AST) -> bool:
    """`self.add_module(name, m)`: a submodule registered under a name (EGNN's "gcl_%d")."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "add_module"
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == "self"
    )


def _target_names(node: ast.AST) -> set[str]:
    """The attributes an assignment binds: `self.x`, `self.x[i]`, `a, self.x` -> {"x"}."""
    targets = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
    names: set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, ast.Attribute):
            names.add(target.attr)
        elif isinstance(target, (ast.Tuple, ast.List)):
            targets.extend(target.elts)
        elif isinstance(target, (ast.Starred, ast.Subscript)):
            targets.append(target.value)
    return names


# --------------------------------------------------------------------------------------------
# Candidates


_TYPE_CHECKS = frozenset({"isinstance", "issubclass"})


def _scan(nodes: list[ast.AST], local: bool = False) -> _Scan:
    """Names and candidates of ``nodes``. ``local``: the nodes are a function's (a name assigned
    in them is that function's own), so a write into a name that is only ever a number or a
    container there is no candidate (``_plain_values``)."""
    seed = False
    conditions: list[tuple[str, str]] = []  # (name, "number" | "container")
    names: set[str] = set()
    attrs: set[str] = set()
    read_names: set[str] = set()
    read_attrs: set[str] = set()
    called: set[str] = set()
    bound: set[str] = set()
    param_targets: set[str] = set()
    param_sources: set[str] = set()
    param_locals: set[str] = set()
    param_named: set[tuple[str, str]] = set()
    stack = list(nodes)
    typed: list[ast.AST] = []  # annotations and isinstance() classes: named, not used as values
    pop, push = stack.pop, stack.append
    Name, Attribute, Call, AST, Load = ast.Name, ast.Attribute, ast.Call, ast.AST, ast.Load
    Constant, Assign, AugAssign = ast.Constant, ast.Assign, ast.AugAssign
    arg, annotated, defs = ast.arg, ast.AnnAssign, _DEFS
    for_candidates = _CANDIDATE_TESTS
    child_fields = _CHILD_FIELDS
    # The most frequent kinds first, each finished where it is handled (a name, a constant and
    # an attribute are no candidates and have at most one child to visit).
    while stack:
        node = pop()
        kind = type(node)
        if kind is Name:
            names.add(node.id)
            if type(node.ctx) is Load:
                read_names.add(node.id)
            else:
                bound.add(node.id)
            continue
        if kind is Attribute:
            attrs.add(node.attr)
            if type(node.ctx) is Load:
                read_attrs.add(node.attr)
            push(node.value)
            continue
        if kind is Constant:
            continue
        if kind is Call:
            func = node.func
            name = func.id if type(func) is Name else func.attr if type(func) is Attribute else ""
            called.add(name)
            while type(func) is Attribute:
                func = func.value
            if type(func) is Name:
                called.add(func.id)
            if not seed and _is_candidate_call(node, name):
                seed = True
            if (
                name == "getattr"
                and len(node.args) >= 2
                and type(node.args[1]) is Constant
                and type(node.args[1].value) is str
            ):
                # `getattr(self, "act")` reads the attribute `act` (the analysis follows it)
                attrs.add(node.args[1].value)
                read_attrs.add(node.args[1].value)
            if name in _TYPE_CHECKS and len(node.args) == 2 and not node.keywords:
                push(node.func)
                push(node.args[0])
                typed.append(node.args[1])
                continue
        elif kind is arg or kind is annotated or kind in defs:
            annotation = node.returns if kind in defs else node.annotation
            if annotation is not None:
                typed.append(annotation)
            if kind is arg:
                continue
            if kind is annotated:
                push(node.target)
                if node.value is not None:
                    push(node.value)
                    _parameter_assigns(
                        [node.target],
                        node.value,
                        param_targets,
                        param_sources,
                        param_locals,
                        param_named,
                    )
                if not seed and for_candidates[kind](node):
                    seed = True
                continue
        elif kind is Assign:
            _parameter_assigns(
                node.targets, node.value, param_targets, param_sources, param_locals, param_named
            )
        if not seed:
            test = for_candidates.get(kind)
            if test is not None:
                found = test(node)
                if found is True:
                    seed = True
                elif found:  # holds only if a name is a number or a container (below)
                    conditions.extend(found)
        if kind is AugAssign:
            read_attrs.update(_target_names(node))
        fields = child_fields.get(kind)
        if fields is None:
            fields = child_fields[kind] = _child_fields(kind)
        for field_name in fields:
            value = getattr(node, field_name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)
    for node in typed:
        for sub in ast.walk(node):
            if type(sub) is Name:
                names.add(sub.id)
            elif type(sub) is Attribute:
                attrs.add(sub.attr)
    if conditions and not seed:
        seed = not (local and _plain_values(nodes, conditions))
    return _Scan(
        seed,
        names,
        attrs,
        read_names,
        read_attrs,
        called,
        bound,
        param_targets,
        param_sources,
        param_locals,
        param_named,
    )


# names in a class's bases that make no layer with a `weight` of its own
_PLAIN_BASES = frozenset(
    {"nn", "torch", "paddle", "Module", "Layer", "object", "Sequential", "ModuleList"}
    | {"ModuleDict", "LayerList", "LayerDict", "ABC", "Generic"}
)
# `nn.Parameter(...)`, `self.create_parameter(...)`: what registers a module's parameter
_PARAMETER_CALLS = frozenset({"Parameter", "create_parameter"})


def _parameter_assigns(
    targets: list[ast.AST],
    value: ast.AST,
    plain: set[str],
    sources: set[str],
    local_sources: set[str],
    named: set[tuple[str, str]],
) -> None:
    """Feeds ``_Scan.param_*`` from one assignment (see there)."""
    registers = type(value) is ast.Call and _last_name(value.func) in _PARAMETER_CALLS
    for target in targets:
        kind = type(target)
        if kind is ast.Name:
            if registers:
                local_sources.add(target.id)
        elif kind is ast.Attribute:
            attr = target.attr
            owner = target.value
            # `self.a` apart: a layer's own `weight` is a parameter only in a layer subclass
            written = "self." + attr if type(owner) is ast.Name and owner.id == "self" else attr
            if registers:
                sources.add(attr)
            elif type(value) is ast.Name:
                named.add((attr, value.id))
                plain.add(written)
            elif type(value) is ast.Attribute and LAYER_PARAMETER.fullmatch(value.attr):
                sources.add(attr)  # `self.w = self.proj.weight`: the same Parameter
                plain.add(written)
            elif not (type(value) is ast.Constant and value.value is None):
                plain.add(written)
        elif kind is ast.Tuple or kind is ast.List:
            _parameter_assigns(target.elts, ast.Tuple(), plain, sources, local_sources, named)
        elif kind is ast.Starred:
            _parameter_assigns([target.value], value, plain, sources, local_sources, named)


# Fields that never hold a node the scan needs: identifiers and flags, `ctx` (Load/Store/Del
# carry nothing) and an import's aliases (names only; imports are not scanned for names).
_SCALAR_FIELDS = frozenset(
    {"ctx", "id", "attr", "arg", "name", "names", "level", "module", "kind", "type_comment"}
    | {"is_async", "simple", "conversion", "op"}
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of an ``ast`` node class the scan descends into."""
    return tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)


def _inference_decorated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`@torch.inference_mode()`: what the function returns is an inference tensor, which its
    callers may not write in place (IPL007)."""
    for decorator in node.decorator_list:
        if type(decorator) is ast.Call:
            decorator = decorator.func
        if _last_name(decorator) == "inference_mode":
            return True
    return False


def _is_candidate_call(node: ast.Call, name: str) -> bool:
    if name.endswith("_") and not name.endswith("__"):
        return True  # add_, relu_, copy_, masked_fill_, nn.init.zeros_ ...
    if name in CANDIDATE_CALLS or (name.startswith("__i") and name != "__init__"):
        return True
    for keyword in node.keywords:
        if keyword.arg in CANDIDATE_KEYWORDS:
            return True
    if name == "assign" and len(node.args) > 1:
        return True  # `paddle.assign(x, t)`: `t` given as the output, written in place
    position = FLAG_POSITIONS.get(name)
    return position is not None and len(node.args) > position


def _sets_inplace(node: ast.AST) -> bool:
    """`<module>.inplace = ...`: a layer switched to writing in place after construction."""
    return isinstance(node, ast.Assign) and any(
        type(t) is ast.Attribute and t.attr == "inplace" for t in node.targets
    )


def _writes_target(target: ast.AST) -> bool:
    """An assignment target that writes into an object: `x[i]`, `t.data`, `m.inplace`, inside
    tuples too."""
    kind = type(target)
    if kind is ast.Subscript:
        return not _string_key(target.slice)
    if kind is ast.Attribute:
        # (`m.inplace = True`: a layer switched to writing in place after construction)
        return target.attr == "data" or target.attr == "inplace"
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


def _aug_candidate(node: ast.AugAssign) -> bool | tuple[tuple[str, str], ...]:
    # `acc += (x,)` / `acc += [x]`: a tensor raises TypeError on a tuple or list operand, so the
    # target is a sequence; `s += "..."` is a string.
    value = node.value
    if isinstance(value, (ast.Tuple, ast.List, ast.ListComp, ast.JoinedStr)):
        return False
    if isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes)):
        return False
    target = node.target
    if type(target) is ast.Name:
        # `step += 1` on a counter; `outputs += more` on a list: no tensor is written
        return ((target.id, "number" if _number(value) else "container"),)
    # (`feats["p3"] += up` writes the tensor a dict holds under that key: the analysis follows
    # the entries of dicts a function builds)
    return True


def _assign_candidate(node: ast.Assign) -> bool | tuple[tuple[str, str], ...]:
    """A target writing into an object; `d[k] = v` holds only if `d` can be a tensor."""
    conditions: list[tuple[str, str]] = []
    for target in node.targets:
        if type(target) is ast.Subscript and type(target.value) is ast.Name:
            if not _string_key(target.slice):
                conditions.append((target.value.id, "container"))
        elif _writes_target(target):
            return True
    return tuple(conditions) or False


def _number(node: ast.AST) -> bool:
    """An int, float or bool literal (`0`, `-1`, `0.5`, `True`)."""
    if type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant and type(node.value) in (int, float, bool)


_CONTAINER_CALLS = frozenset({"dict", "list", "set", "OrderedDict", "defaultdict", "Counter"})


def _container(node: ast.AST) -> bool:
    """A new list, dict or set: `{}`, `[]`, comprehensions, `dict()`, `defaultdict(list)`,
    `[None] * n`. Not a container call given anything else (`list(range(len(x)))`): the analysis
    takes a call it does not know for a tensor when a tensor may be among its arguments, and the
    triage must not excuse what the analysis would report (transformers' `ShardSampler`)."""
    kind = type(node)
    if kind in (ast.Dict, ast.DictComp, ast.List, ast.ListComp, ast.Set, ast.SetComp):
        return True
    if kind is ast.Call:
        return (
            _last_name(node.func) in _CONTAINER_CALLS
            and not node.keywords
            and all(
                type(a) is ast.Constant or (type(a) is ast.Name and a.id in _TYPE_NAMES)
                for a in node.args
            )
        )
    return kind is ast.BinOp and type(node.op) is ast.Mult and type(node.left) is ast.List


_TYPE_NAMES = frozenset({"list", "dict", "set", "int", "float", "str", "tuple", "bool"})


def _plain_values(nodes: list[ast.AST], conditions: list[tuple[str, str]]) -> bool:
    """Whether, in a function (``nodes``: its definition), every name of ``conditions`` is only
    ever bound to what its condition asks: "number" — `n = 0` and `n += 1` (literals only);
    "container" — `d = {}`, `d = []`, `d = dict(...)` and `d += ...` (a list stays a list). Any
    other binding of the name (a parameter, a loop or `with` target, an unpacking, `global`, an
    import ...), or none at all, and the write may be a tensor's: the unit stays a seed. Python
    makes a name assigned in a function local to it, so no binding elsewhere reaches these. Only
    statements bind a function's names when the text holds no `:=` (the caller's condition):
    comprehensions and lambdas bind in scopes of their own. A nested def or class is a scope of
    its own too, where the same name is another variable: such a function is left a seed."""
    wanted: dict[str, set[str]] = {}
    for name, kind in conditions:
        wanted.setdefault(name, set()).add(kind)
    seen: dict[str, set[str]] = {name: set() for name in wanted}

    def other(target: ast.AST | None) -> None:
        for node in ast.walk(target) if target is not None else ():
            if type(node) is ast.Name and type(node.ctx) is not ast.Load and node.id in seen:
                seen[node.id].add("other")

    def bound(name: str | None) -> None:
        if name in seen:
            seen[name].add("other")

    def arguments(args: ast.arguments) -> None:
        for arg in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg):
            if arg is not None:
                bound(arg.arg)

    for root in nodes:
        if isinstance(root, _DEFS):
            arguments(root.args)
        for stmt in _statements(root):
            kind = type(stmt)
            if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign:
                value = stmt.value
                for target in stmt.targets if kind is ast.Assign else [stmt.target]:
                    if type(target) is not ast.Name:
                        other(target)
                    elif target.id not in seen:
                        continue
                    elif kind is ast.AugAssign:
                        seen[target.id].add("aug-number" if _number(value) else "aug")
                    elif value is None:  # `x: Tensor`: an annotation binds nothing
                        continue
                    elif _number(value):
                        seen[target.id].add("number")
                    else:
                        seen[target.id].add("container" if _container(value) else "other")
            elif kind is ast.For or kind is ast.AsyncFor:
                other(stmt.target)
            elif kind is ast.With or kind is ast.AsyncWith:
                for item in stmt.items:
                    other(item.optional_vars)
            elif kind in _DEFS or kind is ast.ClassDef:
                return False  # a scope of its own: names there are not the function's
            elif kind is ast.Import or kind is ast.ImportFrom:
                for alias in stmt.names:
                    bound(alias.asname or alias.name.split(".")[0])
            elif kind is ast.Global or kind is ast.Nonlocal:
                for name in stmt.names:
                    bound(name)
            elif kind is ast.Delete:
                for target in stmt.targets:
                    other(target)
            elif kind in _TRY_STATEMENTS:
                for handler in stmt.handlers:
                    bound(handler.name)
            elif kind not in _NON_BINDING_STATEMENTS:
                return False  # `match` captures, `type X = ...`: not worth following
    for name, kinds in wanted.items():
        found = seen[name]
        if "number" in kinds and not ("number" in found and found <= _NUMBER_BINDINGS):
            return False
        if "container" in kinds and not ("container" in found and found <= _CONTAINER_BINDINGS):
            return False
    return True


_TRY_STATEMENTS = (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
_NON_BINDING_STATEMENTS = frozenset(
    {ast.Expr, ast.Return, ast.If, ast.While, ast.Pass, ast.Break, ast.Continue, ast.Raise}
    | {ast.Assert}
)
_NUMBER_BINDINGS = frozenset({"number", "aug-number"})
_CONTAINER_BINDINGS = frozenset({"container", "aug", "aug-number"})

_CANDIDATE_TESTS = {
    ast.AugAssign: _aug_candidate,
    ast.Assign: _assign_candidate,
    ast.AnnAssign: lambda n: n.value is not None and _writes_target(n.target),
    ast.For: lambda n: _writes_target(n.target),
    ast.AsyncFor: lambda n: _writes_target(n.target),
    ast.comprehension: lambda n: _writes_target(n.target),
    ast.withitem: lambda n: n.optional_vars is not None and _writes_target(n.optional_vars),
}


# --------------------------------------------------------------------------------------------
# Which units are needed
#
# Up: the units whose events can change because of a seed ("writers"): callers of a writing
# function or method (its writes are reported at the call site, and its callers decide whether
# it runs under no_grad), users of an attribute that `__init__` built with in-place syntax
# (`self.act = nn.ReLU(inplace=True)`), users of a local module class whose forward writes.
# Down: everything the writers' analysis reads: callees' summaries, local classes (their kind,
# and the forward of the modules they call), `__init__` and base classes for `self.*` facts.


def _writers(module: _Module) -> set[_Unit]:
    writers = {u for u in module.units if u.seed}
    aliases = module.aliases()
    sequentials = [u for u in module.units if u.kind == "class" and _is_sequential_subclass(u)]
    # classes whose instances this module makes or passes (named outside their own methods):
    # a function calling `p.m(...)` on its parameter `p` may be given one (`train(EdgeModel())`)
    instantiated = {
        name
        for unit in module.units
        for name in unit.scan.read_names
        if unit.kind != "method" or name != unit.owner.name
    }
    assigns = [a for classes in module.classes.values() for cls in classes for a in cls.assigns]
    while True:
        hot: set[str] = set()  # writing functions; local modules whose forward writes
        hot_methods: list[_Unit] = []
        for unit in writers:
            if unit.kind == "function":
                hot.add(unit.name)
            elif unit.kind == "method":
                hot_methods.append(unit)
                if unit.name in MODULE_ENTRY_METHODS:
                    hot.add(unit.owner.name)
                    # (and the subclasses that inherit that entry: calling one runs it)
                    hot.update(sub.name for sub in module.subclasses(unit.owner))
        for targets, names in aliases:
            if not names.isdisjoint(hot):
                hot |= targets
        while True:
            # `class Block(nn.Sequential)` whose `__init__` hands `super().__init__` a writing
            # module (`ResidualAdd(...)`): calling a Block runs that module's forward
            more = {
                cls.name
                for cls in sequentials
                if cls.name not in hot and any(not i.names.isdisjoint(hot) for i in cls.init)
            }
            if not more:
                break
            hot |= more
        hot_attributes: set[str] = set()  # `self.x = <in-place syntax, a writing function or
        while True:  # module, or an attribute built so>`
            more = {
                name
                for targets, seed, names in assigns
                if seed or not names.isdisjoint(hot) or not names.isdisjoint(hot_attributes)
                for name in targets
            }
            if more <= hot_attributes:
                break
            hot_attributes |= more
        added = [
            unit
            for unit in module.units
            if unit not in writers
            and unit.kind != "class"
            and (
                not unit.names.isdisjoint(hot)
                or not unit.attrs.isdisjoint(hot_attributes)
                or any(_may_call(unit, m, instantiated, module) for m in hot_methods)
            )
        ]
        if not added:
            for unit in writers:
                if unit.kind != "class":
                    for method in hot_methods:
                        # (a writer that also calls a writing method on the instance it may be
                        # given: `train(agent)` running `agent.rollout(x)`, then
                        # `agent.reset_done(d)`: the other methods it calls there are read too,
                        # ``given_instances``)
                        _may_call(unit, method, instantiated, module)
            return writers
        writers.update(added)


def _may_call(unit: _Unit, method: _Unit, instantiated: set[str], module: _Module) -> bool:
    """`self.m(...)` inside the method's class or one of its bases, or `x.m(...)` where x can be
    its instance: one the unit names, one its class's `__init__` names, or one given as an
    argument (`def train(model): model.backward(...)`, called as `train(EdgeModel())`: the
    analysis runs it with that instance) when the class is named anywhere outside its own
    methods."""
    if method.name not in unit.attrs or method.name == "__init__":
        return False
    cls = method.owner
    if unit.owner is cls or cls.name in unit.names:
        return True
    if not unit.scan.called.isdisjoint(_NO_GRAD_NAMES) or not unit.attrs.isdisjoint(_NO_GRAD_NAMES):
        # `expert.copy_from_experts_module(...)` under `no_grad` on an object the analysis
        # cannot tell: its call without grad counts for the method's guards
        # (``FunctionInterpreter._note_unresolved_calls``)
        return True
    if unit.owner is not None and (
        unit.owner in module.lineage(cls) or cls in module.lineage(unit.owner)
    ):
        # a base class's method calling `self.m(...)` that a subclass defines: it runs the
        # override for the subclass's instances (a `Transform.__call__` running `self._call`);
        # a subclass's method calling one it inherits (`self.take_optimisation_step(...)` of
        # an RL agent's base class)
        return True
    if unit.owner is not None and any(cls.name in init.names for init in unit.owner.init):
        return True
    if any(
        cls.name in init.names
        for name in unit.names
        for other in module.classes.get(name, ())
        for init in other.init
    ):
        # `net.rope.refresh(2.0)` in a function that builds a `Net`, whose `__init__` builds
        # the `Rotary` (paddle21 b10: a cache rewritten between a forward and its backward)
        return True
    if (
        cls.name in instantiated
        and not _is_autograd_function(cls)
        and not _parameter_names(unit.node).isdisjoint(unit.scan.called)
    ):
        module.given_instances.setdefault(unit, set()).add(cls)
        return True
    # `self.loss_f.call_optimize(...)` where `__init__` kept what its caller gave it
    # (`self.loss_f = loss_f`): the analysis runs the instance's method with that object
    return (
        cls.name in instantiated
        and not _is_autograd_function(cls)
        and unit.owner is not None
        and "self" in unit.scan.called
        and _keeps_given_objects(unit.owner)
    )


_NO_GRAD_NAMES = frozenset({"no_grad", "inference_mode"})


def _keeps_given_objects(cls: _Unit) -> bool:
    """Whether the class's `__init__` stores one of its parameters on `self`."""
    for init in cls.init:
        params = _parameter_names(init.node) - {"self"}
        if params and any(not names.isdisjoint(params) for _, _, names in cls.assigns):
            return True
    return False


def _is_sequential_subclass(cls: _Unit) -> bool:
    return any(_last_name(b) == "Sequential" for b in cls.node.bases)


def _is_autograd_function(cls: _Unit) -> bool:
    """Its methods are static: no instance of it is ever passed around."""
    return any(_last_name(b).endswith(_AUTOGRAD_FUNCTION_BASES) for b in cls.node.bases)


def _parameter_names(node: ast.AST | None) -> set[str]:
    """A function's parameters but the first of a method (`self`)."""
    if not isinstance(node, _DEFS):
        return set()
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.vararg is not None:
        names.append(args.vararg.arg)
    if args.kwarg is not None:
        names.append(args.kwarg.arg)
    return set(names) - {"self", "cls"}


def _with_dependencies(writers: set[_Unit], module: _Module) -> set[_Unit]:
    needed: set[_Unit] = set()
    todo = list(writers)
    while todo:
        unit = todo.pop()
        if unit not in needed:
            needed.add(unit)
            todo.extend(_dependencies(unit, module))
    return needed


def _dependencies(unit: _Unit, module: _Module) -> list[_Unit]:
    deps = list(module.siblings(unit))
    if unit.kind == "class":  # its kind: the bases' kinds
        if _is_sequential_subclass(unit):
            deps += unit.init  # (the children it hands to `super().__init__` are what it runs)
        return deps + module.named(module.classes, unit.bases)
    names, called = unit.names, unit.scan.called
    entry = called | set(MODULE_ENTRY_METHODS)
    # `self.net.frac(x)`: a call of what the chain reads runs the entry of the class built there
    # (`self.frac = Frac()` in the `__init__` of `self.net`'s class), which the chain reaches
    chained = entry if not called.isdisjoint(unit.scan.read_attrs) else frozenset()
    deps += module.named(module.functions, names)
    # `__init__` builds modules; it calls one only through a local name or an attribute
    calls_instances = unit.name != "__init__" or not called.isdisjoint(unit.scan.bound)
    for cls in module.named(module.classes, names):
        deps.append(cls)  # its kind (module? autograd.Function?) matters wherever it is named
        if calls_instances and cls.name in unit.scan.read_names:
            deps += _methods_named(cls, entry)  # `Block(...)(x)`, `Fn.apply(x)`, `blk.m()`
        if cls.name in unit.scan.read_names:
            deps += _inits_read_through(cls, unit.attrs, module, chained)
    # `def edit(model): model.bert.encoder.layer[i].output.dense.weight[:, p] -= d` given a
    # `BertForMaskedLM()` by its caller: the chain is resolved through the `__init__` of every
    # class whose instance may be there, which this unit does not name
    deps += _inits_assigning(unit.scan.read_attrs, module, chained)
    for cls in module.given_instances.get(unit, ()):
        # `model.process(z)` on the instance it may be given (``_may_call``)
        deps.append(cls)
        deps += cls.init
        deps += _methods_named(cls, unit.attrs)
    if unit.owner is None:
        return deps
    deps += _methods_named(unit.owner, unit.attrs)  # self.m()
    if unit.name == "forward":
        # a `__call__` of its class (or a base: torchjd's `_NonDifferentiable` mixin) may run it
        # under `no_grad` through `super().__call__(...)` (``_note_framework_call``)
        for cls in module.lineage(unit.owner):
            deps += cls.methods.get("__call__", [])
    if unit.name not in _PRELUDE_EXEMPT and not unit.scan.read_attrs.isdisjoint(
        _forward_assigns(unit.owner)
    ):
        # a method reading what `forward` leaves on `self` is analysed after `forward` runs
        # (dataflow: FunctionInterpreter._forward_prelude)
        deps += unit.owner.methods["forward"]
    for sub in module.subclasses(unit.owner):
        # the method also runs with a subclass's `self`: what its `__init__` builds and the
        # overrides of what the method calls on `self`
        deps.append(sub)
        deps += sub.init
        deps += _methods_named(sub, unit.attrs)
    for cls in module.lineage(unit.owner):  # `self.*` facts come from `__init__`, inherited too
        deps.append(cls)
        deps += cls.init
        if cls is not unit.owner:
            # `self.propagate(...)` in a subclass's `forward`, defined by a local base class
            # (pyg#8953's MessagePassing): the analysis runs the inherited method
            deps += _methods_named(cls, unit.attrs)
        for targets, _, assigned in cls.assigns:
            if not targets.isdisjoint(unit.scan.read_attrs):  # `self.block(x)`: built from
                for built in module.named(module.classes, set(assigned)):
                    deps.append(built)
                    deps += _methods_named(built, entry)
    return deps


_PRELUDE_EXEMPT = frozenset({"__init__", "forward", "_forward_impl"})


def _forward_assigns(cls: _Unit) -> set[str]:
    """The attributes the class's `forward` assigns (`self.fake = ...` -> fake)."""
    if cls.forward_assigns is None:
        cls.forward_assigns = set()
        for method in cls.methods.get("forward", ()):
            for node in _statements(method.node):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    cls.forward_assigns |= _target_names(node)
    return cls.forward_assigns


def _inits_read_through(
    cls: _Unit, attrs: set[str], module: _Module, entry: Collection[str] = ()
) -> list[_Unit]:
    """`m = M(); m.enc.layer[0].dense.weight.add_(1)`: the `__init__` of every class whose
    attributes the chain reads (``attrs``, the reading unit's), following the classes each such
    `__init__` names (`self.enc = Enc()`, then Enc's `self.layer = nn.ModuleList([...])`), and
    the methods named ``entry`` of those classes (a unit calling through the chain,
    `self.net.frac(x)`, runs `Frac.forward`)."""
    found: list[_Unit] = []
    seen: set[int] = set()
    todo = [cls]
    wanted = set(entry)
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for owner in module.lineage(current):
            read = [names for targets, _, names in owner.assigns if not targets.isdisjoint(attrs)]
            if read:
                found += owner.init
                for names in read:
                    for built in module.named(module.classes, set(names)):
                        todo.append(built)
                        if wanted:
                            found += _methods_named(built, wanted)
    return found


def _inits_assigning(attrs: set[str], module: _Module, entry: Collection[str] = ()) -> list[_Unit]:
    """The `__init__` of every local class that binds one of ``attrs`` on `self`, and what
    ``_inits_read_through`` follows from there."""
    index = module.assigning_classes()
    classes: dict[int, _Unit] = {}
    for attr in attrs & index.keys():
        for cls in index[attr]:
            classes[id(cls)] = cls
    found: list[_Unit] = []
    for cls in classes.values():
        found += _inits_read_through(cls, attrs, module, entry)
    return found


def _methods_named(cls: _Unit, names: set[str]) -> list[_Unit]:
    found: list[_Unit] = []
    for name in names & cls.methods.keys():
        found.extend(cls.methods[name])
    return found


# --------------------------------------------------------------------------------------------
# The reduced text


def _blank(lines: list[str], module: _Module, needed: set[_Unit]) -> int:
    """Stub out what is not needed, in place; returns the number of rows blanked."""
    blanked = 0
    for unit in module.units:
        if unit.kind == "function" and unit not in needed:
            blanked += _stub(lines, unit.node, f"def {unit.name}(): pass")
        elif unit.kind == "class":
            blanked += _blank_class(lines, unit, needed)
    return blanked


def _blank_class(lines: list[str], cls: _Unit, needed: set[_Unit]) -> int:
    node = cls.node
    if cls not in needed and not any(m in needed for ms in cls.methods.values() for m in ms):
        return _stub(lines, node, f"class {cls.name}: pass")
    if not _starts_row(lines, node.body[0]):
        return 0  # `class A: x = 1`: the body is on the header's row; keep the class whole
    blanked = 0
    for methods in cls.methods.values():
        for method in methods:
            if method not in needed:
                blanked += _stub(lines, method.node, f"def {method.name}(): pass")
    # Class-level statements are never analysed; blank them unless they share rows or carry a
    # `noqa`. If nothing else is left in the body, one `pass` keeps it a body. A NamedTuple's
    # are its fields, in order (`EncOut(mu, std)` is the tuple of them: the analysis reads them)
    body = cls.body
    if (
        body
        and not any(_last_name(b) == "NamedTuple" for b in node.bases)
        and all(_starts_row(lines, s) for s in body)
        and _rows_apart(body)
        and not any(_has_noqa(lines, s) for s in body)
    ):
        row = _start(body[0]) - 1
        indent = _indent(lines[row])
        for stmt in body:
            blanked += _stub(lines, stmt, None)
        if not cls.methods:
            lines[row] = indent + "pass" + _newline(lines[row])
    return blanked


def _drop_annotations(lines: list[str], needed: set[_Unit]) -> None:
    """Blank the annotations of kept signatures that the analysis does not read, in place: all it
    asks of one is whether a parameter's names a Python type that is never a tensor
    (``analysis.annotations``); return annotations it never reads. On torchvision's reduced texts
    annotations were ~8% of libcst's parse. Only a kept unit's own `def` row(s), only annotations
    on one ASCII row with their parameter (or `->`), never in a unit holding `noqa`; columns stay
    where they were (spaces), so positions do not move. A fix never rewrites a `def` header, so
    no edit shows the difference."""
    for unit in needed:
        node = unit.node
        if type(node) not in _DEFS or _has_noqa(lines, node):
            continue
        args = node.args
        for arg in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg):
            annotation = arg.annotation if arg is not None else None
            if annotation is None or annotation.end_lineno != arg.lineno:
                continue
            head = _annotation_head(annotation)
            if head is not None and head not in NON_TENSOR_TYPES:
                _spaces(lines, arg.lineno, arg.col_offset + len(arg.arg), annotation, ":")
        returns = node.returns
        if returns is not None and returns.lineno == returns.end_lineno:
            start = len(lines[returns.lineno - 1][: returns.col_offset].rstrip()) - 2
            _spaces(lines, returns.lineno, start, returns, "->")


def _spaces(lines: list[str], row: int, start: int, annotation: ast.AST, lead: str) -> None:
    """Blank columns ``start`` to the end of ``annotation`` on ``row`` if they read ``lead``
    and then the annotation (an ASCII row: ``ast`` columns are UTF-8 offsets)."""
    line = lines[row - 1]
    end = annotation.end_col_offset
    if not line.isascii() or line[start : annotation.col_offset].strip() != lead:
        return
    lines[row - 1] = line[:start] + " " * (end - start) + line[end:]


def _annotation_head(node: ast.AST) -> str | None:
    """What ``analysis.dataflow._annotation_head`` answers on libcst's tree of the same text:
    `Dict` for `typing.Dict[str, T]`, `list` for `Optional[list[T]]` and `list[T] | None`, ""
    for anything else; None where the trees can differ (a string: ``ast`` joins `"a" "b"`)."""
    for _ in range(8):
        kind = type(node)
        if kind is ast.BinOp and type(node.op) is ast.BitOr:
            if _is_none(node.right):
                node = node.left
                continue
            if _is_none(node.left):
                node = node.right
                continue
            return ""
        if kind is ast.Subscript:
            head = _last_of_dotted(node.value)
            if head != "Optional":
                return head
            if type(node.slice) in (ast.Tuple, ast.Slice, ast.Starred):
                return None  # `Optional[int,]` is one element to libcst, a tuple to `ast`
            node = node.slice
            continue
        if (kind is ast.Constant and isinstance(node.value, (str, bytes))) or kind is ast.Starred:
            return None
        if _is_none(node):
            return "None"  # a Name to libcst
        return _last_of_dotted(node)
    return ""


def _is_none(node: ast.AST) -> bool:
    return type(node) is ast.Constant and node.value is None


def _last_of_dotted(node: ast.AST) -> str:
    """`a.b.c` -> "c", `c` -> "c"; "" for anything that is not a plain dotted name."""
    base = node
    while type(base) is ast.Attribute:
        base = base.value
    return _last_name(node) if type(base) is ast.Name else ""


def _stub(lines: list[str], node: ast.AST, stub: str | None) -> int:
    """Replace ``node``'s rows by ``stub`` (on its first row) and blank rows; nothing if the
    rows hold a `noqa` (suppressions must see the same comments). Returns the rows blanked."""
    if _has_noqa(lines, node):
        return 0
    start, end = _start(node), node.end_lineno
    first = start - 1
    if stub is not None:
        lines[first] = _indent(lines[first]) + stub + _newline(lines[first])
        first += 1
    for row in range(first, end):
        lines[row] = _newline(lines[row])
    return end - start + (stub is None)


def _has_noqa(lines: list[str], node: ast.AST) -> bool:
    return any("noqa" in lines[row].lower() for row in range(_start(node) - 1, node.end_lineno))


def _starts_row(lines: list[str], node: ast.AST) -> bool:
    """Nothing but indentation before the statement on its first row."""
    if getattr(node, "decorator_list", None):
        return True  # a decorator starts its row
    return not lines[node.lineno - 1][: node.col_offset].strip()


def _rows_apart(stmts: list[ast.stmt]) -> bool:
    """No two statements share a row (`x = 1; y = 2`)."""
    return all(a.end_lineno < _start(b) for a, b in itertools.pairwise(stmts))


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def _newline(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    return "\n" if line.endswith("\n") else ""
