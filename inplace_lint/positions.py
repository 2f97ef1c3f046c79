"""Positions of a few CST nodes without resolving PositionProvider over the whole file.

libcst's PositionProvider costs about twice a parse. A file with findings only needs the
positions of a handful of nodes, so this resolves them one top-level statement at a time: it
finds the statements whose code contains the node's code, positions only those (as one-statement
modules) and shifts their rows by the statement's offset in the file.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider


class LazyPositions:
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._known: dict[cst.CSTNode, CodeRange] = {}
        self._done: set[int] = set()
        self._statements: list[tuple[cst.CSTNode, str, int]] | None = None
        self._whole = False

    def _layout(self) -> list[tuple[cst.CSTNode, str, int]]:
        """Each top-level statement with its code and the number of rows before it."""
        if self._statements is None:
            module = self.module
            # every header EmptyLine is one row (printing the header alone would drop the final
            # newline of a file that has none, and with it a row)
            header = "".join(module.code_for_node(line) for line in module.header)
            row = len(module.header)
            statements = []
            pieces = [header]
            for statement in module.body:
                text = module.code_for_node(statement)
                statements.append((statement, text, row))
                row += text.count("\n")
                pieces.append(text)
            if not module.code.startswith("".join(pieces[:-1])):
                self._resolve_whole()  # an unusual layout: fall back to the exact, slow way
            self._statements = statements
        return self._statements

    def _resolve_whole(self) -> None:
        if not self._whole:
            self._whole = True
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._known.update(wrapper.resolve(PositionProvider))

    def _resolve_statement(self, index: int) -> None:
        statement, _, offset = self._layout()[index]
        self._done.add(index)
        single = self.module.with_changes(body=(statement,), header=(), footer=())
        ranges = MetadataWrapper(single, unsafe_skip_copy=True).resolve(PositionProvider)
        for node, code_range in ranges.items():
            if node is single:
                continue
            self._known[node] = CodeRange(
                CodePosition(code_range.start.line + offset, code_range.start.column),
                CodePosition(code_range.end.line + offset, code_range.end.column),
            )

    def get(self, node: cst.CSTNode) -> CodeRange | None:
        if node in self._known:
            return self._known[node]
        if not self._whole:
            snippet = self.module.code_for_node(node).strip()
            for index, (_, text, _) in enumerate(self._layout()):
                if index not in self._done and snippet in text:
                    self._resolve_statement(index)
                    if node in self._known:
                        return self._known[node]
            self._resolve_whole()
        return self._known.get(node)

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self.get(node)
        if found is None:
            raise KeyError(node)
        return found

    def __contains__(self, node: cst.CSTNode) -> bool:
        return self.get(node) is not None
