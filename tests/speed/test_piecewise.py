"""The piece-by-piece parse (inplace_lint/piecewise.py) builds the tree libcst builds from the
whole text: equal node for node, printing the same code, with no node in a module twice."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from fixturelib import REPO_ROOT, all_fixtures

from inplace_lint import piecewise, prefilter

FIXTURES = all_fixtures()
SOURCES = sorted((REPO_ROOT / "inplace_lint").rglob("*.py")) + sorted(
    (REPO_ROOT / "tests").rglob("*.py")
)


def _layout(text: str) -> tuple:
    return prefilter._layout(ast.parse(text), prefilter._LINE.findall(text))


def _nodes(module: cst.Module) -> list[cst.CSTNode]:
    found = []
    stack = [module]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found


# Whitespace and punctuation nodes are values the fast parser already shares (fastcst.py).
_VALUES = tuple(getattr(cst, name) for name in ("SimpleWhitespace", "Newline", "EmptyLine"))


def _check(text: str, layout: tuple | None = None, *, pieces_expected: bool = True) -> cst.Module:
    """Parse ``text`` by pieces; assert it is libcst's tree of the whole text."""
    layout = _layout(text) if layout is None else layout
    whole = cst.parse_module(text)
    used = []
    original = piecewise._parse_piece

    def counting(*args, **kwargs):
        used.append(args[1:3])
        return original(*args, **kwargs)

    piecewise._parse_piece = counting
    try:
        piecewise.hint(text, layout)
        pieces = piecewise.parse_module(text)
    finally:
        piecewise._parse_piece = original
    assert pieces.code == text
    assert pieces.deep_equals(whole), text
    for attribute in ("header", "footer"):
        mine, libcsts = getattr(pieces, attribute), getattr(whole, attribute)
        assert len(mine) == len(libcsts)
        assert all(a.deep_equals(b) for a, b in zip(mine, libcsts))
    for attribute in ("default_indent", "default_newline", "has_trailing_newline", "encoding"):
        assert getattr(pieces, attribute) == getattr(whole, attribute)
    ids = [id(n) for n in _nodes(pieces) if not isinstance(n, _VALUES)]
    assert len(ids) == len(set(ids)), "a node is in the module twice"
    if pieces_expected:
        assert len(used) > 1, "parsed whole, not by pieces"
    return pieces


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_sources_whole_and_reduced(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if "\r" in text or not text.strip():
        return
    _check(text, pieces_expected=False)
    plan = prefilter.plan(text)
    if plan.kind == "reduced":
        _check(plan.text, plan.layout, pieces_expected=False)


@pytest.mark.parametrize(
    "fixture", FIXTURES, ids=lambda f: f.path.relative_to(REPO_ROOT).as_posix()
)
def test_fixtures(fixture) -> None:
    if "\r" not in fixture.text:
        _check(fixture.text, pieces_expected=False)


CASES = {
    "header, decorators, classes": '''
        # header comment

        """Docstring."""
        import torch


        @decorator
        class A(torch.nn.Module):
            """Class doc."""

            x = 1

            def __init__(self):
                super().__init__()
                self.a = 1

            # a comment before forward
            @property
            def forward(self, x):
                x += 1
                return x


        # Copied from somewhere
        def f(x):
            return x + 1
        ''',
    "class first, comment footer": """
        class A:
            def f(self):
                return 1

            def g(self):
                return 2
            # trailing comment of the class body

        # a top-level comment
        def h():
            pass
        """,
    "comments deeper and shallower": """
        class A:
            def f(self):
                y = 1
                return y
                # in f's block

            def g(self):
                return 2
        # column zero inside the class
            def k(self):
                return 3
        """,
    "file ends in comments, no newline": "class A:\n    def f(self):\n        return 1\n\n# end",
    "two-space indentation": "class A:\n  def f(self):\n    return 1\n\n  def g(self):\n    return 2\n",
    "tabs": "class A:\n\tdef f(self):\n\t\treturn 1\n\n\tdef g(self):\n\t\treturn 2\n",
    "shared rows": "x = 1; y = 2\nclass A: pass\nclass B:\n    a = 1; b = 2\n    def f(self): pass\n",
    "strings that look like comments": '''
        def f():
            s = """
        # not a comment
            # nor this
        """
            return s

        def g():
            return 1
        ''',
    "the same method in two classes": """
        class A:
            def forward(self, x):
                x = x * 2
                return x

        class B:
            def forward(self, x):
                x = x * 2
                return x
        """,
    "whitespace-only rows": "class A:\n    def f(self):\n        return 1\n    \n    def g(self):\n        return 2\n",
    "line continuation": "x = 1 + \\\n    2\nclass A:\n    def f(self):\n        return [1,\n# c\n 2]\n",
}


@pytest.mark.parametrize("name", list(CASES))
def test_synthetic(name: str) -> None:
    text = CASES[name]
    text = textwrap.dedent(text).lstrip("\n") if text.startswith("\n") else text
    _check(text, pieces_expected=name == "header, decorators, classes")


def test_pieces_are_shared_between_modules_but_never_within_one() -> None:
    piecewise.clear()
    method = "    def forward(self, x):\n        y = x * 2\n        z = y + 1\n        return z\n"
    first = f"import torch\n\n\nclass A:\n{method}\n\nclass B:\n{method}"
    second = f"import torch\n\n\nclass C:\n    x = 1\n\n{method}"
    a = _check(first)
    b = _check(second)
    forward_a = a.body[1].body.body[0]
    forward_b = a.body[2].body.body[0]
    forward_c = b.body[1].body.body[1]
    assert forward_a is not forward_b  # parsed anew within one module
    # the second module took the method's inner nodes from the cache
    assert forward_c.body is forward_a.body or forward_c.body is forward_b.body
    piecewise.clear()


def test_a_text_without_its_hint_is_parsed_whole() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    piecewise.hint(text, _layout(text))
    other = "".join(text)  # an equal string, not the one hinted
    assert piecewise.parse_module(other).deep_equals(cst.parse_module(text))
    assert piecewise.hinted(other)[0] is None
    assert piecewise._HINT is None  # used up


def test_writers_reach_the_analysis_of_that_text_only() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    piecewise.hint(text, _layout(text), frozenset({"A.f"}))
    assert piecewise.parse_module(text).code == text
    assert piecewise.hinted(text)[0] == frozenset({"A.f"})
    assert piecewise.hinted(text)[0] is None


def test_the_hint_carries_the_full_text_a_reduced_one_came_from() -> None:
    full = "import torch\n\n\ndef g():\n    return 2\n"
    reduced = "import torch\n\n\n\n\n"
    piecewise.hint(reduced, _layout(reduced), None, full)
    assert piecewise.hinted(reduced) == (None, full)
    piecewise.hint(full, _layout(full))
    assert piecewise.hinted(full) == (None, full)  # (no other text: the text itself)
