"""Hostile inputs through `inplace-lint check`, as a user runs it: a clear line per bad file,
the run goes on, no traceback, no hang, and the exit code says what happened."""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "torch" / "err_residual_silu_input_iadd.py"


def run(*args: str, cwd: Path, stdin: bytes | None = None, timeout: float = 120, script=None):
    """`inplace-lint check ARGS` in a fresh process (or ``script`` then the CLI, to patch it)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "200"}
    if script is None:
        command = [sys.executable, "-m", "inplace_lint", "check", "--no-cache", *args]
    else:
        code = f"{script}\nimport sys\nfrom inplace_lint.cli import main\nsys.argv = ['inplace-lint', 'check', '--no-cache', *{list(args)!r}]\nmain()\n"
        command = [sys.executable, "-c", code]
    start = time.perf_counter()
    proc = subprocess.run(
        command, cwd=cwd, input=stdin, capture_output=True, timeout=timeout, check=False, env=env
    )
    proc.seconds = time.perf_counter() - start
    proc.out = proc.stdout.decode("utf-8", "replace")
    proc.err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in proc.out + proc.err, proc.out + proc.err
    return proc


def write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


# --- paths that are not files to lint ------------------------------------------------------------


def test_fifo_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    proc = run("pipe.py", cwd=tmp_path, timeout=60)
    assert "pipe.py:1:1: IPL902 not a regular file (a FIFO)" in proc.out
    assert proc.returncode == 1


def test_fifo_found_by_discovery_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    write(tmp_path / "ok.py", "x = 1\n")
    proc = run(".", cwd=tmp_path, timeout=60)
    assert "IPL902" in proc.out and "FIFO" in proc.out


def test_dangling_symlink(tmp_path):
    (tmp_path / "gone.py").symlink_to(tmp_path / "missing.py")
    proc = run("gone.py", cwd=tmp_path)
    assert "gone.py:1:1: IPL902 dangling symlink" in proc.out
    assert proc.returncode == 1


def test_symlink_loop_named(tmp_path):
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    proc = run("a.py", cwd=tmp_path)
    assert "a.py:1:1: IPL902 symlink loop" in proc.out


def test_symlink_loop_found_by_discovery(tmp_path):
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    write(tmp_path / "ok.py", "x = 1\n")
    proc = run(".", cwd=tmp_path)
    assert "symlink loop" in proc.out


def test_directory_named_like_a_module(tmp_path):
    (tmp_path / "pkg.py").mkdir()
    write(tmp_path / "pkg.py" / "inner.py", "x = = 1\n")
    proc = run("pkg.py", cwd=tmp_path)
    assert "inner.py:1:5: IPL901" in proc.out


def test_unreadable_file():
    # Root reads through chmod 000, and the CLI cannot run as `nobody` here (the interpreter's
    # stdlib is not readable to it), so a file whose read fails for root too stands in for it.
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("no /proc")
    proc = run("/proc/self/mem", cwd=ROOT)
    assert "IPL902" in proc.out and proc.returncode == 1


def test_missing_path_is_a_usage_error(tmp_path):
    proc = run("nope.py", cwd=tmp_path)
    assert proc.returncode == 2 and "nope.py" in proc.err


# --- contents ------------------------------------------------------------------------------------


def test_invalid_utf8(tmp_path):
    write(tmp_path / "m.py", b"x = 1\ny = '\xff'\n")
    proc = run("m.py", cwd=tmp_path)
    assert "m.py:1:1: IPL902 not valid utf-8: byte 0xff at line 2" in proc.out


def test_invalid_utf8_on_stdin(tmp_path):
    proc = run("-", cwd=tmp_path, stdin=b"x = '\xff'\n")
    assert proc.returncode == 2 and "not valid utf-8" in proc.err


def test_nul_bytes(tmp_path):
    write(tmp_path / "m.py", b"x = 1\x00\n")
    assert "IPL902 contains a NUL byte" in run("m.py", cwd=tmp_path).out


def _fixture_as(tmp_path: Path, encoding: str, newline: str, bom: bool) -> tuple[Path, bytes]:
    text = FIXTURE.read_text().replace("\n", newline)
    if encoding != "utf-8":
        text = f"# -*- coding: {encoding} -*-{newline}" + text.replace("fixture:", "fixture é:")
    raw = (codecs.BOM_UTF8 if bom else b"") + text.encode(encoding)
    return write(tmp_path / "model.py", raw), raw


@pytest.mark.parametrize(
    ("encoding", "newline", "bom"),
    [("utf-8", "\r\n", True), ("latin-1", "\n", False), ("cp1252", "\r\n", False)],
)
def test_fix_keeps_encoding_bom_and_line_endings(tmp_path, encoding, newline, bom):
    path, raw = _fixture_as(tmp_path, encoding, newline, bom)
    proc = run("--fix", "model.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.out
    new = path.read_bytes()
    old_line = "h += F.silu(h)".encode(encoding)
    new_line = "h = h + F.silu(h)".encode(encoding)
    assert new == raw.replace(old_line, new_line)  # every other byte as it was
    assert run("--fix", "model.py", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == new  # a second run changes nothing


@pytest.mark.parametrize("newline", ["\r\n", "\r", "mixed"])
def test_line_endings_report_the_same_rows(tmp_path, newline):
    text = FIXTURE.read_text()
    if newline == "mixed":
        lines = text.splitlines(keepends=True)
        text = "".join(
            line.replace("\n", ("\r\n", "\n", "\r")[i % 3]) for i, line in enumerate(lines)
        )
    else:
        text = text.replace("\n", newline)
    write(tmp_path / "model.py", text)
    assert "model.py:19:9: IPL001" in run("model.py", cwd=tmp_path).out


def test_tabs(tmp_path):
    write(tmp_path / "model.py", FIXTURE.read_text().replace("    ", "\t"))
    assert "model.py:19:3: IPL001" in run("model.py", cwd=tmp_path).out


def test_huge_generated_file_is_skipped_quickly(tmp_path):
    write(tmp_path / "gen.py", "".join(f"x{i} = torch.relu(y{i})\n" for i in range(300_000)))
    proc = run("gen.py", cwd=tmp_path)
    assert "gen.py:1:1: IPL904" in proc.out
    assert proc.seconds < 20


def test_deep_nesting_and_huge_literal(tmp_path):
    write(tmp_path / "deep.py", "import torch\nx = " + "(" * 1000 + "1" + ")" * 1000 + "\n")
    write(tmp_path / "chain.py", "import torch\nx = y" + " + y" * 1000 + "\nx += 1\n")
    write(tmp_path / "lit.py", "x = [" + ", ".join(map(str, range(200_000))) + "]\n")
    proc = run("deep.py", "chain.py", "lit.py", cwd=tmp_path)
    assert "deep.py:2:205: IPL901 SyntaxError: too many nested parentheses" in proc.out
    assert "chain.py:1:1: IPL904" in proc.out
    assert "lit.py:1:1: IPL904" in proc.out
    assert proc.seconds < 30


def test_not_python(tmp_path):
    write(tmp_path / "page.py", "<html><body>hi</body></html>\n")
    write(tmp_path / "shell.py", "#!/bin/sh\necho $HOME\n")
    proc = run("page.py", "shell.py", cwd=tmp_path)
    assert "page.py:1:1: IPL901" in proc.out and "shell.py:2:6: IPL901" in proc.out


def test_empty_files(tmp_path):
    write(tmp_path / "empty.py", "")
    write(tmp_path / "blank.py", "\n\n   \n")
    write(tmp_path / "bom.py", codecs.BOM_UTF8)
    proc = run("empty.py", "blank.py", "bom.py", cwd=tmp_path)
    assert proc.returncode == 0


def test_python2(tmp_path):
    write(tmp_path / "old.py", "import torch\n\nprint 'hello'\n")
    assert "old.py:3:1: IPL901 SyntaxError: Missing parentheses" in run("old.py", cwd=tmp_path).out


def test_python312_syntax_is_linted(tmp_path):
    text = (
        FIXTURE.read_text()
        .replace(
            "class ResBlock(nn.Module):",
            "type Vec = list[float]\n\n\nclass ResBlock[T](nn.Module):",
        )
        .replace("return x + h", 'name = f"{f"{\'a\'}"}"\n        return x + h')
    )
    write(tmp_path / "model.py", text)
    proc = run("model.py", cwd=tmp_path)
    assert "IPL001" in proc.out and "IPL901" not in proc.out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json at all", "IPL902 not valid notebook JSON"),
        ('{"metadata": {}}', "IPL902 not a notebook: no `cells`"),
        ('{"cells": "nope"}', "IPL902"),
        ("[1, 2]", "IPL902"),
        ('{"cells": [{"cell_type": "code", "source": 5}]}', "IPL902"),
    ],
)
def test_broken_notebooks(tmp_path, content, message):
    write(tmp_path / "nb.ipynb", content)
    assert message in run("nb.ipynb", cwd=tmp_path).out


def test_notebook_with_a_cell_that_does_not_parse(tmp_path):
    cells = [
        {"cell_type": "code", "source": ["import torch\n"], "metadata": {}, "outputs": []},
        {"cell_type": "code", "source": ["x = = 1\n"], "metadata": {}, "outputs": []},
    ]
    write(tmp_path / "nb.ipynb", json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    proc = run("nb.ipynb", cwd=tmp_path)
    assert "IPL901" in proc.out and "cell 2" in proc.out


# --- the run goes on, and the exit code tells ---------------------------------------------------


def test_one_bad_file_does_not_stop_the_run(tmp_path):
    write(tmp_path / "a_bad.py", b"\xff\xfe")
    write(tmp_path / "b_syntax.py", "def f(:\n")
    write(tmp_path / "c_model.py", FIXTURE.read_text())
    proc = run(".", cwd=tmp_path)
    assert "a_bad.py:1:1: IPL902" in proc.out
    assert "b_syntax.py:1:7: IPL901" in proc.out
    assert "c_model.py:19:9: IPL001" in proc.out
    assert proc.returncode == 1


CRASHING_RULE = textwrap.dedent(
    """
    from inplace_lint.rules import all_rules

    def boom(self, analysis):
        raise KeyError("odd node")

    all_rules()["IPL102"].check = boom
    """
)


def test_internal_error_is_a_diagnostic_and_a_tool_error_exit(tmp_path):
    write(tmp_path / "model.py", FIXTURE.read_text())
    proc = run("model.py", cwd=tmp_path, script=CRASHING_RULE)
    assert "model.py:1:1: IPL903 Internal error in rule IPL102 on model.py" in proc.out
    assert "model.py:19:9: IPL001" in proc.out  # the other rules' findings are kept
    assert proc.returncode == 2


def test_internal_error_traceback_only_with_verbose(tmp_path):
    write(tmp_path / "model.py", FIXTURE.read_text())
    quiet = run("model.py", cwd=tmp_path, script=CRASHING_RULE)
    assert "KeyError: 'odd node'" in quiet.out  # named in the message, no traceback
    script = f"{CRASHING_RULE}\nimport sys\nfrom inplace_lint.cli import main\n"
    script += (
        "sys.argv = ['inplace-lint', 'check', '--no-cache', '--verbose', 'model.py']\nmain()\n"
    )
    verbose = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    shown = verbose.stdout + verbose.stderr
    assert "Traceback (most recent call last)" in shown and "in boom" in shown
    assert verbose.returncode == 2


EDITED_WHILE_FIXING = textwrap.dedent(
    """
    import inplace_lint.sources as sources

    _read = sources.read_source

    def read_then_someone_edits(path, *args, **kwargs):
        source = _read(path, *args, **kwargs)
        with open(path, "a") as handle:
            handle.write("# saved from the editor meanwhile\\n")
        return source

    sources.read_source = read_then_someone_edits
    """
)


def test_fix_does_not_overwrite_a_file_changed_since_it_was_read(tmp_path):
    path = write(tmp_path / "model.py", FIXTURE.read_text())
    proc = run("--fix", "model.py", cwd=tmp_path, script=EDITED_WHILE_FIXING)
    assert "changed on disk since it was read; not overwritten" in proc.err
    assert path.read_text() == FIXTURE.read_text() + "# saved from the editor meanwhile\n"
    assert proc.returncode == 1  # the finding is still there
