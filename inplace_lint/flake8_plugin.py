"""flake8 plugin: `IPL` codes through flake8 (`flake8 --select IPL`).

flake8 columns are 0-based (ours are 1-based), so one is taken off here. The file's
`[tool.inplace-lint]` configuration applies as in `inplace-lint check`; flake8's own `# noqa`
handling applies on top.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from inplace_lint import __version__


class Flake8Plugin:
    name = "inplace-lint"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from inplace_lint.api import lint_source
        from inplace_lint.config import ConfigError, SettingsResolver

        source = "".join(self.lines)
        path = Path(self.filename if self.filename not in ("-", "stdin") else "stdin.py")
        try:
            settings = SettingsResolver()(path)
        except ConfigError as error:
            yield 1, 0, f"IPL902 configuration error: {error}", type(self)
            return
        for diag in lint_source(source, self.filename, settings):
            yield (
                diag.span.start.row,
                diag.span.start.column - 1,
                f"{diag.code} {diag.message}",
                type(self),
            )
