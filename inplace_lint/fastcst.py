"""Cheaper libcst node construction, for processes that only parse and analyse.

libcst's parser (native code) builds every node by calling its class, so each node runs the
``__init__`` that ``dataclasses`` generated for a frozen class (one ``object.__setattr__`` per
field) and then ``__post_init__``, which validates the node (``CSTNode._validate``). In a lint
worker neither is needed: the parser's nodes are valid by construction, and every fix is parsed
again before it is kept (``fixes.py``). ``speed_up_node_construction`` gives each node class an
``__init__`` with the same signature and defaults that stores the fields straight into their
slots, without validation: the same objects, about 7% less parse time (docs/performance.md).

Only worker processes call it: a host process (the CLI in process, an editor) may build nodes of
its own and keeps libcst's checks. ``tests/test_fastcst.py`` checks that trees built either way
are equal.

``speed_up_parsing`` (workers too) makes ``parse_module`` cheaper in two ways, both measured in
instructions (``valgrind --tool=cachegrind``) on torchvision's reduced texts:

* The native parser looks its node classes up with ``PyModule::import("libcst")`` for every node,
  which goes through ``builtins.__import__`` of the calling frame's globals: about a sixth of the
  parse. ``parse_module`` calls the native parser from a function whose globals give it a C
  callable that accepts the same arguments and does nothing (``"".format``); CPython then takes
  the module from ``sys.modules`` as before. About 3% of the parse.
* Whitespace, punctuation and operator nodes are immutable values (libcst compares nodes by
  identity, and nothing here asks for the position or the parent of such a node). While one text
  is parsed, the parser finds memoising constructors for them (``functools.lru_cache``, all C):
  the same `" "`, `", "` or `Newline()` is one object, not one per occurrence. About 5%.

Anything unexpected (a libcst whose native parser imports something else, an argument that cannot
be hashed) makes the fast path raise, and the text is parsed again by ``libcst.parse_module``, so
errors and results are libcst's own. The tree is equal either way (``deep_equals`` and the printed
code, ``tests/test_fastcst.py``).

``speed_up_codegen`` replaces the generator-based context manager that wraps every expression's
code generation in its parentheses (``_BaseParenthesizedNode._parenthesize``) by a plain object
doing the same: the same text, printed about twice as fast. Messages quote code for every call the
analysis meets, so this is used everywhere the analysis runs; it changes no behaviour.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import sys
import types

_DONE = False
_CODEGEN_DONE = False
_PARSER = None  # (the libcst module, its memoising twin, the fast entry, the memo caches)
# Node classes that are values: whitespace, punctuation and operators (see the module docstring).
_VALUE_NODES = [
    "SimpleWhitespace",
    "Newline",
    "Comment",
    "EmptyLine",
    "TrailingWhitespace",
    "ParenthesizedWhitespace",
    "Semicolon",
    "Colon",
    "Comma",
    "Dot",
    "ImportStar",
    "AssignEqual",
    "Asynchronous",
    "LeftParen",
    "RightParen",
    "LeftSquareBracket",
    "RightSquareBracket",
    "LeftCurlyBrace",
    "RightCurlyBrace",
    "Plus",
    "Minus",
    "BitInvert",
    "Not",
    "And",
    "Or",
    "Add",
    "Subtract",
    "Multiply",
    "Divide",
    "FloorDivide",
    "Modulo",
    "Power",
    "LeftShift",
    "RightShift",
    "BitOr",
    "BitAnd",
    "BitXor",
    "MatrixMultiply",
    "LessThan",
    "GreaterThan",
    "Equal",
    "LessThanEqual",
    "GreaterThanEqual",
    "NotEqual",
    "In",
    "NotIn",
    "Is",
    "IsNot",
    "AddAssign",
    "SubtractAssign",
    "MultiplyAssign",
    "MatrixMultiplyAssign",
    "DivideAssign",
    "ModuloAssign",
    "BitAndAssign",
    "BitOrAssign",
    "BitXorAssign",
    "LeftShiftAssign",
    "RightShiftAssign",
    "PowerAssign",
    "FloorDivideAssign",
]


def value_node_classes() -> frozenset[type]:
    """The classes of ``_VALUE_NODES``: nodes that hold no name, expression or statement (the
    analysis' own child walk skips them too)."""
    import libcst

    return frozenset(getattr(libcst, name) for name in _VALUE_NODES)


def parse_module(text: str):
    """``libcst.parse_module(text)``, by the fast path once ``speed_up_parsing`` ran."""
    if _PARSER is None:
        import libcst

        return libcst.parse_module(text)
    real, twin, native_parse, caches = _PARSER
    modules = sys.modules
    module = None
    modules["libcst"] = twin
    try:
        module = native_parse(text)
    except Exception:  # noqa: BLE001, S110 - parsed again below, where libcst raises its own error
        pass
    finally:
        modules["libcst"] = real
        for cache in caches:
            cache.cache_clear()
    if type(module) is not real.Module:
        return real.parse_module(text)
    return module


def speed_up_parsing() -> bool:
    """Install the fast path of ``parse_module`` (see the module docstring); False when this
    libcst has no native parser with the expected entry."""
    global _PARSER
    if _PARSER is not None:
        return True
    try:
        import libcst
        from libcst import native
    except ImportError:
        return False
    entry = getattr(native, "parse_module", None)
    if entry is None:
        return False
    twin = types.ModuleType(libcst.__name__)
    twin.__dict__.update(vars(libcst))
    caches = []
    for name in _VALUE_NODES:
        cls = getattr(libcst, name, None)
        if isinstance(cls, type):
            cache = functools.lru_cache(maxsize=None)(cls)
            setattr(twin, name, cache)
            caches.append(cache)
    # PyImport_Import reads `__import__` from the calling frame's `__builtins__`, calls it, and
    # then takes the module from sys.modules: a do-nothing C callable stands in for it here.
    namespace = {"__builtins__": {"__import__": "".format}, "_entry": entry}
    exec(  # noqa: S102 - a fixed one-line function
        "def _native_parse(text):\n    return _entry(text, encoding='utf-8')\n", namespace
    )
    _PARSER = (libcst, twin, namespace["_native_parse"], tuple(caches))
    return True


_NO_PARENTHESES = contextlib.nullcontext()


def speed_up_codegen() -> bool:
    """Patch libcst's parenthesising context manager (see the module docstring); False when this
    libcst does not have the expected one."""
    global _CODEGEN_DONE
    if _CODEGEN_DONE:
        return True
    try:
        from libcst._nodes.expression import _BaseParenthesizedNode
    except ImportError:
        return False
    if "_parenthesize" not in _BaseParenthesizedNode.__dict__:
        return False
    _BaseParenthesizedNode._parenthesize = _parenthesize
    _CODEGEN_DONE = True
    return True


class _Parentheses:
    """``with node._parenthesize(state):`` — the opening parentheses before the body, the closing
    ones after it (not when the body raised, as with libcst's generator)."""

    __slots__ = ("node", "state")

    def __init__(self, node, state) -> None:
        self.node = node
        self.state = state

    def __enter__(self) -> None:
        for lpar in self.node.lpar:
            lpar._codegen(self.state)

    def __exit__(self, kind, value, traceback) -> bool:
        if kind is None:
            for rpar in self.node.rpar:
                rpar._codegen(self.state)
        return False


def _parenthesize(self, state):
    if not self.lpar and not self.rpar:
        return _NO_PARENTHESES
    return _Parentheses(self, state)


def speed_up_node_construction() -> int:
    """Patch every libcst node class this libcst has; returns how many were patched. Classes
    whose layout is not the expected one (a field without a slot) keep their own ``__init__``."""
    global _DONE
    try:
        from libcst._nodes.base import CSTNode
    except ImportError:  # another libcst layout: keep it as it is
        return 0
    if _DONE:
        return 0
    _DONE = True
    patched = 0
    for cls, init in (_PREPARED if _PREPARED is not None else _fast_inits(CSTNode)).items():
        cls.__init__ = init
        patched += 1
    if "__post_init__" in CSTNode.__dict__:  # for classes left alone
        CSTNode.__post_init__ = _no_validation
    return patched


def prepare_node_construction() -> None:
    """Build the ``__init__`` functions ``speed_up_node_construction`` installs, without
    installing them: called in a parent process before it forks workers, so that each worker
    only sets them (building them, ~850 small functions compiled, is ~13 ms per process)."""
    global _PREPARED
    try:
        from libcst._nodes.base import CSTNode
    except ImportError:
        return
    if _PREPARED is None:
        _PREPARED = _fast_inits(CSTNode)


_PREPARED: dict[type, object] | None = None


def _fast_inits(root: type) -> dict[type, object]:
    found = {}
    for cls in subclasses(root):
        init = _fast_init(cls)
        if init is not None:
            found[cls] = init
    return found


def _no_validation(self) -> None:
    pass


def subclasses(root: type) -> list[type]:
    """Every subclass of ``root``, at any depth (also the classes libcst's slots decorator copied
    from, which stay listed among their bases' subclasses)."""
    out: list[type] = []
    todo = [root]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in out:
                out.append(sub)
                todo.append(sub)
    return out


def _fast_init(cls: type):
    if not dataclasses.is_dataclass(cls) or "__init__" not in cls.__dict__:
        return None
    params: list[str] = []
    lines: list[str] = []
    namespace: dict[str, object] = {"MISSING": dataclasses.MISSING}
    fields = [f for f in dataclasses.fields(cls) if f.init]
    for number, f in enumerate(fields):
        if f.kw_only or not f.name.isidentifier():
            return None
        slot = _slot(cls, f.name)
        if slot is None:
            return None
        namespace[f"set_{number}"] = slot.__set__
        if f.default is not dataclasses.MISSING:
            namespace[f"default_{number}"] = f.default
            params.append(f"{f.name}=default_{number}")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"factory_{number}"] = f.default_factory
            params.append(f"{f.name}=MISSING")
            lines.append(f"    if {f.name} is MISSING: {f.name} = factory_{number}()")
        else:
            if params and "=" in params[-1]:
                return None  # a required field after a defaulted one: not a dataclass layout
            params.append(f.name)
        lines.append(f"    set_{number}(self, {f.name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(lines or ["    pass"])
    exec(source, namespace)  # noqa: S102 - text built above from field names only
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _slot(cls: type, name: str):
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if found is not None and type(found).__name__ == "member_descriptor":
            return found
    return None
