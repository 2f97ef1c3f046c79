"""The cache of compiled dataclass methods (inplace_lint/codegen_cache.py): the classes it helps
make are the ones ``dataclasses`` makes alone, a second run compiles nothing, and a bad or
unwritable file is no cache."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap

from inplace_lint import codegen_cache


def _make_classes():
    import libcst  # noqa: F401 - the cache serves what is made once libcst is imported

    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2
        tags: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(order=True)
    class Rank:
        value: float
        name: str = "r"

    return Point, Rank


def _codes(cls) -> dict[str, tuple]:
    out = {}
    for name in ("__init__", "__repr__", "__eq__", "__lt__", "__setattr__", "__hash__"):
        function = vars(cls).get(name)
        code = getattr(function, "__code__", None)
        if code is not None:
            out[name] = (code.co_code, code.co_consts, code.co_names, code.co_varnames)
    return out


def test_same_methods_as_dataclasses_alone(tmp_path):
    plain = _make_classes()
    path = tmp_path / "codegen.marshal"
    with codegen_cache.installed(path) as cache:
        first = _make_classes()
    assert cache is not None and cache.misses > 0
    assert path.exists()
    with codegen_cache.installed(path) as cache:
        second = _make_classes()
    assert cache.misses == 0  # every method's code came from the file
    assert "exec" not in vars(dataclasses)  # uninstalled
    for a, b, c in zip(plain, first, second):
        assert _codes(a) == _codes(b) == _codes(c)
    Point = second[0]
    p = Point(1)
    assert (p.x, p.y, p.tags) == (1, 2, [])
    assert repr(p).endswith(".Point(x=1, y=2, tags=[])")
    assert p == Point(1, 2, []) and p != Point(1, 3)
    try:
        p.x = 3
    except dataclasses.FrozenInstanceError:
        pass
    else:
        raise AssertionError("frozen class accepted an assignment")
    Rank = second[1]
    assert Rank(1.0) < Rank(2.0)


def test_damaged_file_is_no_cache(tmp_path):
    path = tmp_path / "codegen.marshal"
    path.write_bytes(b"\x00not marshal at all")
    with codegen_cache.installed(path) as cache:
        Point, _ = _make_classes()
    assert cache.misses > 0 and Point(1).y == 2
    with codegen_cache.installed(path) as cache:  # written again, whole
        _make_classes()
    assert cache.misses == 0


def test_unwritable_folder_is_no_cache(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    path = blocker / "sub" / "codegen.marshal"  # a folder under a file cannot be made
    with codegen_cache.installed(path) as cache:
        Point, _ = _make_classes()
    assert cache.misses > 0 and Point(3).x == 3
    assert not path.exists()


def test_switched_off(monkeypatch):
    monkeypatch.setenv(codegen_cache.ENV, "off")
    assert codegen_cache.cache_path() is None
    with codegen_cache.installed() as cache:
        _make_classes()
    assert cache is None and "exec" not in vars(dataclasses)
    monkeypatch.setenv(codegen_cache.ENV, "/somewhere")
    assert str(codegen_cache.cache_path()).startswith("/somewhere/codegen-")


def test_cli_run_fills_then_uses_the_cache(tmp_path):
    """The command writes the file on its first run; the next run compiles none of libcst's
    methods (counted by a wrapper around the cache)."""
    folder = tmp_path / "codegen"
    target = tmp_path / "m.py"
    target.write_text(
        "import torch\n\nx = torch.ones(3, requires_grad=True)\ny = x.exp()\ny += 1\n"
        "y.sum().backward()\n"
    )
    probe = textwrap.dedent(
        """
        import sys
        from inplace_lint import codegen_cache
        misses = []
        original = codegen_cache.CodegenCache.save
        def save(self):
            misses.append(self.misses)
            original(self)
        codegen_cache.CodegenCache.save = save
        from inplace_lint.cli import entry
        sys.argv = ["inplace-lint", "check", sys.argv[1], "--no-cache", "--exit-zero", "-q"]
        try:
            entry()
        except SystemExit:
            pass
        print("misses", misses[0])
        """
    )
    env = {**os.environ, codegen_cache.ENV: str(folder)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe, str(target)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for _ in range(2)
    ]
    first = int(runs[0].split("misses")[-1])
    second = int(runs[1].split("misses")[-1])
    assert first > 500  # libcst's node classes, and ours
    assert second == 0
    assert "IPL" in runs[1]  # it still lints
