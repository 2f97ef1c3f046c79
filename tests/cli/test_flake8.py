"""The flake8 plugin: `IPL` codes with flake8's 0-based columns."""

from __future__ import annotations

import ast
import subprocess
import sys

from inplace_lint.flake8_plugin import Flake8Plugin


def test_plugin_yields_0_based_columns(fake_engine, project):
    source = "h = x\nif h:\n    h += 1\n"
    plugin = Flake8Plugin(ast.parse(source), "a.py", source.splitlines(keepends=True))
    assert [(row, col, text) for row, col, text, _ in plugin.run()] == [
        (3, 4, "IPL001 `h += ...` changes `h` in place")
    ]


def test_flake8_runs_the_plugin(project):
    # The `#` of the stale directive is at code-point column 8; flake8 prints the plugin's 0-based
    # column plus one, so a plugin off by one would show 9 (or 7).
    (project / "m.py").write_text("x = 1  # noqa: IPL001\n")
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "IPL", "m.py"],
        cwd=project,
        capture_output=True,
        check=False,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout == "m.py:1:8: IPL900 Unused `noqa` directive (unused: `IPL001`)\n"
