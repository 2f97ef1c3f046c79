"""LazyPositions must agree with libcst's PositionProvider on every node it is asked about."""

from __future__ import annotations

import libcst as cst
import pytest
from fixturelib import all_fixtures
from libcst.metadata import MetadataWrapper, PositionProvider

from inplace_lint.positions import LazyPositions

SOURCES = [f.text for f in all_fixtures()[::9]] + [
    "# header comment\n\nimport torch\n\n\nx = 1  # trailing\n",
    "import torch\r\nclass A:\r\n    def f(self):\r\n        return 1\r\n",
    "if True:\n\tx = [\n\t\t1,\n\t]\ny = (x)\n",
    "import torch\nx = 1",  # no trailing newline
]


@pytest.mark.parametrize("source", SOURCES)
def test_lazy_positions_match_the_provider(source: str) -> None:
    module = cst.parse_module(source)
    exact = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lazy = LazyPositions(module)
    for node, code_range in exact.items():
        if node is module:
            continue
        assert lazy[node] == code_range, module.code_for_node(node)


def test_header_rows_in_a_file_without_final_newline() -> None:
    source = "# -*- coding: latin-1 -*-\nimport torch\nx += 1\n# no newline at the end"
    module = cst.parse_module(source)
    exact = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lazy = LazyPositions(module)
    for node, code_range in exact.items():
        if node is not module:
            assert lazy[node] == code_range
