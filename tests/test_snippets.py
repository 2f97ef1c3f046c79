"""The bounded snippet printer gives exactly what printing the node in full, collapsing its
whitespace and cutting it would give."""

from __future__ import annotations

import libcst as cst
import pytest

from inplace_lint.analysis.snippets import snippet

SOURCES = [
    "x = f(a, b)\n",
    "y = torch.cat([a, b, c], dim=1).view(n, -1).contiguous().transpose(0, 1).reshape(-1)\n",
    "z = g(\n    aaaaaaaaaaaaaaaa,\n    bbbbbbbbbbbbbbbbbbbb,   # a comment\n    cccccccccccccccc,\n)\n",
    "w = " + " + ".join(f"t{i}" for i in range(80)) + "\n",
    "def f(x):\n    if x:\n        return x.add_(1)\n    return [x,\n\n\n        x]\n",
    'q = \'a     b\' + """long\n     string\n""" * 3\n',
    "s = a[1:2, ::3, None]\n",
    "u = ((a + (b)) * ( c ))[0] if (x) else (yield)\n",
    # dotted names (read off their names, not printed): spaced, parenthesised, continued, long
    "v = self.encoder.layers . norm.weight + (a).b + (a.b).c if 0 else a.\\\n  b\n",
    "v = " + ".".join(f"attribute_{i}" for i in range(12)) + "\n",
]


def _expected(module: cst.Module, node: cst.CSTNode, limit: int) -> str:
    text = " ".join(module.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("limit", [5, 20, 57, 60, 61, 200])
def test_snippet_equals_full_print_cut(source: str, limit: int) -> None:
    module = cst.parse_module(source)
    nodes: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    module.visit(Collect())
    assert len(nodes) > 5
    for node in nodes:
        assert snippet(module, node, limit) == _expected(module, node, limit), node


def test_snippet_of_nothing_is_empty() -> None:
    assert snippet(cst.parse_module("x = 1\n"), None) == ""
