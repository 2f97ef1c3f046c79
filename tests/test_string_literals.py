"""The analysis reads string literals without libcst's ``evaluated_value`` (a ``literal_eval``
parse per string) where the body is the value; it must give exactly what ``literal_eval`` gives."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from inplace_lint.analysis.dataflow import _string_value

REPO = Path(__file__).resolve().parents[1]

EDGE_CASES = [
    "''",
    '""',
    '""""""',
    "''''''",
    "'relu'",
    '"gelu"',
    'u"x"',
    'U"x"',
    'r"a\\b"',
    "R'\\d+'",
    'rb"\\x00"',
    'b"bytes"',
    'B"bytes"',
    "Br'raw bytes'",
    '"tab\\there"',
    "'it\\'s'",
    '"\\N{BULLET}"',
    '"""multi\nline"""',
    "'''multi\r\nline'''",
    'r"""raw\r\nline"""',
    '"""ends with quote\\""""',
    "'''a \"\"\" inside'''",
    '"""\\\nline continuation"""',
    '"é ü 中"',
]


@pytest.mark.parametrize("code", EDGE_CASES)
def test_edge_cases_equal_literal_eval(code: str) -> None:
    node = cst.parse_expression(code) if "\r" not in code else _from_module(code)
    assert type(node) is cst.SimpleString
    assert _string_value(node) == node.evaluated_value


def _from_module(code: str) -> cst.SimpleString:
    return cst.parse_module(f"x = {code}\r\n").body[0].body[0].value


class _Strings(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.SimpleString] = []

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.found.append(node)


def test_every_string_of_the_package_and_the_fixtures() -> None:
    strings = _Strings()
    files = sorted((REPO / "inplace_lint").rglob("*.py")) + sorted(
        (REPO / "tests" / "fixtures").rglob("*.py")
    )
    for path in files:
        cst.parse_module(path.read_text(encoding="utf-8")).visit(strings)
    assert len(strings.found) > 3000
    fast = 0
    for node in strings.found:
        assert _string_value(node) == node.evaluated_value, node.value
        fast += "\\" not in node.value
    assert fast > len(strings.found) // 2  # most strings take the fast way
