"""Trees built with the workers' cheaper node construction equal libcst's own, field by field,
and the faster code generation prints them back exactly."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_fast_construction_builds_equal_trees() -> None:
    # In a fresh interpreter: the patch is process-wide, and this test process keeps libcst's own.
    script = textwrap.dedent(
        """
        import pathlib, sys
        import libcst as cst
        from inplace_lint import fastcst
        files = sorted(pathlib.Path(sys.argv[1]).rglob("*.py"))
        texts = [f.read_text(encoding="utf-8") for f in files]
        before = [cst.parse_module(t) for t in texts]
        assert fastcst.speed_up_codegen()
        patched = fastcst.speed_up_node_construction()
        assert patched > 100, patched
        assert fastcst.speed_up_node_construction() == 0  # once per process
        after = [cst.parse_module(t) for t in texts]
        for f, a, b in zip(files, before, after):
            assert a.deep_equals(b), f
            assert a.code == b.code, f
            assert b.code == texts[files.index(f)], f  # printed back exactly
        # a node built by hand: defaults and factories as before
        name = cst.Name("x")
        assert name.lpar == () and name.rpar == ()
        call = cst.Call(func=name)
        assert call.args == () and isinstance(call.whitespace_after_func, cst.SimpleWhitespace)
        print(len(files))
        """
    )
    assert _run_fresh(script, REPO / "inplace_lint") > 40


def test_fast_parsing_builds_equal_trees_and_keeps_libcsts_errors() -> None:
    # In a fresh interpreter, as the workers do it: node construction and parsing both patched.
    script = textwrap.dedent(
        """
        import pathlib, sys
        import libcst as cst
        from inplace_lint import fastcst
        files = sorted(pathlib.Path(sys.argv[1]).rglob("*.py"))
        files += sorted(pathlib.Path(sys.argv[2]).rglob("*.py"))
        texts = [f.read_text(encoding="utf-8") for f in files]
        texts += ["", "\\n", "x = 1", "x = 1\\r\\n", "# only a comment", "if x:\\n\\ty += 1\\n"]
        before = [cst.parse_module(t) for t in texts]
        fastcst.speed_up_node_construction()
        assert fastcst.speed_up_parsing()
        assert fastcst.speed_up_parsing()  # once is enough; again is harmless
        after = [fastcst.parse_module(t) for t in texts]
        for t, a, b in zip(texts, before, after):
            assert type(b) is cst.Module
            assert a.deep_equals(b), t[:80]
            assert b.code == t, t[:80]
            assert (a.encoding, a.default_newline, a.default_indent) == (
                b.encoding, b.default_newline, b.default_indent)
        # value nodes are shared within a text, and the memo is emptied after each parse
        tree = fastcst.parse_module("a = b + c\\nd = e + f\\n")
        ops = [s.body[0].value.operator for s in tree.body]
        assert ops[0] is ops[1] and type(ops[0]) is cst.Add
        twin = fastcst._PARSER[1]
        assert all(c.cache_info().currsize == 0 for c in fastcst._PARSER[3])
        assert sys.modules["libcst"] is cst and twin is not cst
        # syntax errors: libcst's own exception, and libcst is itself again afterwards
        for bad in ["def f(:\\n", "x = (\\n", "a b c\\n"]:
            try:
                fastcst.parse_module(bad)
            except cst.ParserSyntaxError as error:
                try:
                    cst.parse_module(bad)
                except cst.ParserSyntaxError as expected:
                    assert str(error) == str(expected)
            else:
                raise AssertionError(bad)
            assert sys.modules["libcst"] is cst
        # hand-built nodes still get libcst's classes
        assert type(cst.SimpleWhitespace(" ")) is cst.SimpleWhitespace
        print(len(texts))
        """
    )
    assert _run_fresh(script, REPO / "inplace_lint", REPO / "tests" / "fixtures") > 300


def _run_fresh(script: str, *folders: Path) -> int:
    """Run ``script`` in a fresh interpreter (the patches are process-wide); its printed count."""
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, folders)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)
