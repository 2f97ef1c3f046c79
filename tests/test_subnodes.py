"""The analysis' own child walk (``dataflow._subnodes``) reaches every node that libcst's
``children`` reaches, whitespace and punctuation aside: the walkers built on it
(``_compares_name``, ``_reads_gradient``, ``_names_in``, ``_self_attributes_read``) answer the
same. (It reads only the fields whose declared type can hold such a node.)"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from inplace_lint.analysis import dataflow

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    path
    for folder in (ROOT / "inplace_lint", ROOT / "tests" / "fixtures")
    for path in folder.rglob("*.py")
    if path.stat().st_size
)
TRIVIA = dataflow._TRIVIA


def _reached(root: cst.CSTNode, children) -> list[int]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if type(node) not in TRIVIA:
            found.append(id(node))
        stack.extend(children(node))
    return sorted(found)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_subnodes_reach_what_children_reach(path: Path) -> None:
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    expected = _reached(module, lambda node: [n for n in node.children if type(n) not in TRIVIA])
    assert _reached(module, dataflow._subnodes) == expected


def test_walkers_on_a_loop_body() -> None:
    loop = cst.parse_statement(
        "for t in range(n):\n    h = (self.a(x) if (0 < t) else self.b.c) + [y][0]\n"
    )
    assert dataflow._compares_name(loop.body, "t")
    assert not dataflow._compares_name(loop.body, "x")
    assert dataflow._names_in(loop.body) == {
        "h",
        "self",
        "a",
        "x",
        "t",
        "b",
        "c",
        "y",
    }  # attribute names too
    assert dataflow._self_attributes_read(loop.body) == {"a", "b"}
