"""Which files `check` lints: extensions, default excludes, .gitignore, exclude options."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import invoke


def linted(*args: str) -> list[str]:
    result = invoke("check", "--select", "IPL901", "--output-format", "json", *args)
    names = sorted(
        {Path(d["filename"]).relative_to(Path.cwd()).as_posix() for d in json.loads(result.stdout)}
    )
    return names


def make(root: Path, *paths: str) -> None:
    for rel in paths:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "x = (\n"
            if not rel.endswith(".ipynb")
            else '{"cells": [{"cell_type": "code", "source": ["x = (\\n"], "metadata": {}, "outputs": []}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
        )


def test_extensions_and_default_excludes(project):
    make(
        project,
        "a.py",
        "b.pyi",
        "c.ipynb",
        "d.txt",
        "pkg/e.py",
        ".venv/f.py",
        "node_modules/g.py",
        "build/h.py",
        "pkg/__pycache__/i.py",
    )
    assert linted() == [
        "a.py",
        "b.pyi",
        "build/h.py",
        "c.ipynb",
        "pkg/__pycache__/i.py",
        "pkg/e.py",
    ]
    replaced = linted("--exclude", "build", "--exclude", "__pycache__")
    assert replaced == [".venv/f.py", "a.py", "b.pyi", "c.ipynb", "node_modules/g.py", "pkg/e.py"]


def test_gitignore_is_respected(project):
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("build/\n*.gen.py\n!keep.gen.py\n")
    (project / "sub").mkdir()
    (project / "sub" / ".gitignore").write_text("local.py\n")
    make(project, "a.py", "build/b.py", "x.gen.py", "keep.gen.py", "sub/local.py", "sub/ok.py")
    assert linted() == ["a.py", "keep.gen.py", "sub/ok.py"]
    assert "build/b.py" in linted("--no-respect-gitignore")


def test_gitignore_from_the_repository_root_applies_below(project):
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("generated/\n")
    make(project, "src/generated/a.py", "src/b.py")
    assert linted("src") == ["src/b.py"]


def test_exclude_extend_exclude_and_force_exclude(project):
    (project / "pyproject.toml").write_text(
        '[tool.inplace-lint]\nextend-exclude = ["legacy", "*_pb2.py"]\n'
    )
    make(project, "a.py", "legacy/b.py", "m_pb2.py")
    assert linted() == ["a.py"]
    assert linted("legacy/b.py") == ["legacy/b.py"]  # named explicitly: linted, like ruff
    assert linted("--force-exclude", "legacy/b.py", "a.py") == ["a.py"]
    assert linted("--extend-exclude", "a.py") == []
    assert linted("--exclude", "nothing") == ["a.py"]  # extend-exclude still applies


def test_explicit_file_with_any_extension(project):
    make(project, "script")
    assert linted("script") == ["script"]


def test_symlinked_directories_are_not_followed(project):
    make(project, "real/a.py")
    (project / "loop").symlink_to(project, target_is_directory=True)
    assert linted() == ["real/a.py"]


def test_walk_answers_like_the_per_file_check(project):
    """The walk decides per directory what `_excluded` decides per file: same files, same
    reasons, across nested configs, nested .gitignore files, exclude patterns and symlinks."""
    import os

    from inplace_lint.config import SettingsResolver
    from inplace_lint.discovery import _excluded, _git_root, _GitIgnore, discover
    from inplace_lint.paths import resolved

    (project / ".git").mkdir()
    (project / ".gitignore").write_text("gen_*.py\n/top_only.py\n")
    (project / "pyproject.toml").write_text(
        '[tool.inplace-lint]\nextend-exclude = ["skip_me.py", "legacy/old"]\n'
    )
    (project / "sub").mkdir()
    (project / "sub" / "pyproject.toml").write_text(
        '[tool.inplace-lint]\nextend-exclude = ["deep/*.py"]\n'
    )
    (project / "sub" / "inner").mkdir()
    (project / "sub" / "inner" / ".gitignore").write_text("!gen_keep.py\nlocal.py\n")
    make(
        project,
        "a.py",
        "gen_a.py",
        "top_only.py",
        "skip_me.py",
        "legacy/old/x.py",
        "legacy/new/y.py",
        "sub/top_only.py",
        "sub/deep/z.py",
        "sub/inner/gen_keep.py",
        "sub/inner/gen_drop.py",
        "sub/inner/local.py",
        "sub/inner/kept.py",
    )
    os.symlink(project / "a.py", project / "sub" / "link.py")
    resolver = SettingsResolver(cwd=project)
    found = discover([project], resolver, force_exclude=False)
    ignore = _GitIgnore(_git_root(resolved(project)))
    expected = []
    for directory, _, names in os.walk(project):
        for name in names:
            path = Path(directory) / name
            if path.suffix != ".py" or any(p in path.parts for p in ("legacy",)):
                continue
            if _excluded(path, resolver, ignore, explicit=False, is_dir=False) is None:
                expected.append(path)
    got = {p.relative_to(project).as_posix() for p in found.files}
    assert got == {p.relative_to(project).as_posix() for p in expected} | {"legacy/new/y.py"}
    assert "sub/inner/gen_keep.py" in got and "sub/link.py" in got and "sub/top_only.py" in got
    assert not got & {
        "gen_a.py",
        "top_only.py",
        "skip_me.py",
        "sub/deep/z.py",
        "sub/inner/local.py",
    }


def test_walk_outside_the_config_root_answers_like_the_per_file_check(project, tmp_path):
    """A tree outside the working directory (no configuration of its own: the root is the
    working directory, so paths are `../...`), with a .gitignore of its own."""
    import os

    from inplace_lint.config import SettingsResolver
    from inplace_lint.discovery import _excluded, _git_root, _GitIgnore, discover
    from inplace_lint.paths import resolved

    tree = tmp_path / "elsewhere"
    make(tree, "a.py", "gen_b.py", "pkg/c.py", "pkg/gen_d.py", "pkg/keep_e.py", "build/f.py")
    (tree / ".gitignore").write_text("gen_*.py\n")
    (tree / "pkg" / ".gitignore").write_text("keep_*.py\n!gen_d.py\n")
    (tree / ".git").mkdir()
    resolver = SettingsResolver(overrides=None, cwd=project)  # the project's pyproject has no table
    found = discover([tree], resolver, force_exclude=False)
    ignore = _GitIgnore(_git_root(resolved(tree)))
    expected = set()
    for directory, dirs, names in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = Path(directory) / name
            if path.suffix == ".py" and _excluded(path, resolver, ignore, explicit=False) is None:
                expected.add(path.relative_to(tree).as_posix())
    got = {p.relative_to(tree).as_posix() for p in found.files}
    assert got == expected == {"a.py", "build/f.py", "pkg/c.py", "pkg/gen_d.py"}


def test_gitignore_applies_only_inside_a_git_repository(project):
    """As ruff (astral-sh/ruff#5930, reverted) and git: an exported tree or an unpacked archive
    without `.git` lints the files its `.gitignore` names; `.ignore` files apply everywhere."""
    (project / ".gitignore").write_text("datasets/\n")
    (project / ".ignore").write_text("scratch.py\n")
    make(project, "datasets/loader.py", "scratch.py", "model.py")
    assert linted() == ["datasets/loader.py", "model.py"]
    (project / ".git").mkdir()
    assert linted() == ["model.py"]
