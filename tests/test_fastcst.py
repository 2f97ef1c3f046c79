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
    done = subprocess.run(
        [sys.executable, "-c", script, str(REPO / "inplace_lint")],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 40
