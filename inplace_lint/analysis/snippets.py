"""Short source snippets for messages, without printing whole expressions.

Messages quote code as one line of at most ``limit`` characters (whitespace runs collapsed,
``...`` past the limit). The analysis asks for such a snippet for every call and operator it
meets, and nested calls ask again for their parts, so printing each node in full made the text
quadratic in nesting and about a quarter of the analysis time. Here code generation stops as soon
as the collapsed text is known to pass the limit: the result is exactly what printing the whole
node and then collapsing and cutting it would give (tested against that in
``tests/test_snippets.py``).
"""

from __future__ import annotations

import contextlib

import libcst as cst
from libcst._nodes.internal import CodegenState

from inplace_lint.fastcst import speed_up_codegen

speed_up_codegen()  # the same text, printed faster (inplace_lint/fastcst.py)
_NO_RECORD = contextlib.nullcontext()


class _Enough(Exception):
    """The snippet is known to pass the limit: stop generating code."""


class _PrefixState(CodegenState):
    """Collects tokens like libcst's own state and stops once ``limit`` is passed."""

    __slots__ = ("_limit", "_next_check", "_raw")

    def __init__(self, module: cst.Module, limit: int) -> None:
        super().__init__(
            default_indent=module.default_indent, default_newline=module.default_newline
        )
        self._limit = limit
        self._raw = 0
        self._next_check = limit  # the collapsed text is never longer than the raw text

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._raw += len(value)
        if self._raw > self._next_check:
            self._check()

    def add_indent_tokens(self) -> None:
        for value in self.indent_tokens:
            self.add_token(value)

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _NO_RECORD  # positions are not tracked here (libcst's own is a generator)

    def _check(self) -> None:
        # The collapsed text of a prefix is a prefix of the collapsed text of the whole.
        if len(" ".join("".join(self.tokens).split())) > self._limit:
            raise _Enough
        self._next_check = self._raw + self._limit


def snippet(module: cst.Module, node: cst.CSTNode | None, limit: int = 60) -> str:
    """``node``'s code on one line: whitespace collapsed, cut to ``limit`` with ``...``."""
    if node is None:
        return ""
    text = _dotted_text(node)  # (names and attributes: two thirds of the quotes asked for)
    if text is None:
        state = _PrefixState(module, limit)
        try:
            node._codegen(state)
        except _Enough:
            pass
        text = " ".join("".join(state.tokens).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _dotted_text(node: cst.CSTNode) -> str | None:
    """The code of a name or a dotted name written without parentheses or whitespace (`self.fc`),
    read off its names; None for anything else (printed by libcst)."""
    kind = type(node)
    if kind is cst.Name:
        return None if node.lpar or node.rpar else node.value
    if kind is not cst.Attribute or node.lpar or node.rpar:
        return None
    dot = node.dot
    before, after, attr = dot.whitespace_before, dot.whitespace_after, node.attr
    if (
        type(before) is not cst.SimpleWhitespace
        or type(after) is not cst.SimpleWhitespace
        or before.value
        or after.value
        or attr.lpar
        or attr.rpar
    ):
        return None
    base = _dotted_text(node.value)
    return None if base is None else f"{base}.{attr.value}"
