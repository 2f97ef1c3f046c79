"""Cache correctness: a hit only when the file, the settings, the fix mode and the tool are the
same; a warm run never imports libcst. (Speed itself is measured by bench/run.py, never here.)"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import inplace_lint
from inplace_lint import cache as cache_module
from inplace_lint.runner import RunStats, run
from inplace_lint.settings import DEFAULT_SETTINGS, Settings

REPO_ROOT = Path(__file__).resolve().parents[2]

BUGGY = textwrap.dedent(
    """\
    import torch


    def main():
        x = torch.randn(3, requires_grad=True)
        y = torch.sigmoid(x)
        y += 1
        y.sum().backward()
    """
)
CLEAN = "import torch\n\n\ndef main():\n    return torch.ones(3)\n"


@pytest.fixture
def tree(tmp_path: Path) -> list[Path]:
    files = []
    for i in range(3):
        path = tmp_path / f"m{i}.py"
        path.write_text(BUGGY if i == 0 else CLEAN)
        files.append(path)
    return files


def _run(files, cache_dir, settings: Settings = DEFAULT_SETTINGS, fix: str = "none"):
    stats = RunStats()
    results = run(files, lambda p: settings, jobs=1, cache_dir=cache_dir, fix=fix, stats=stats)
    return results, stats


def _summary(results):
    return [(r.path, [(d.code, d.span) for d in r.diagnostics]) for r in results]


def test_warm_run_answers_from_the_cache(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    cold, stats = _run(tree, cache_dir)
    assert (stats.cached, stats.linted) == (0, 3)
    assert cold[0].diagnostics, "the buggy file has a finding"
    warm, stats = _run(tree, cache_dir)
    assert (stats.cached, stats.linted) == (3, 0)
    assert _summary(warm) == _summary(cold)
    assert warm[0].source == BUGGY  # the text is back for code frames
    assert warm[1].source is None


def test_changed_file_is_linted_again(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    tree[0].write_text(CLEAN)
    results, stats = _run(tree, cache_dir)
    assert (stats.cached, stats.linted) == (2, 1)
    assert not results[0].diagnostics
    tree[0].write_text(BUGGY)  # back to the first content: linted again, a finding again
    results, stats = _run(tree, cache_dir)
    assert stats.linted == 1 and results[0].diagnostics


def test_changed_settings_miss(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    ignore_all = Settings(enabled=frozenset({"IPL901"}))
    results, stats = _run(tree, cache_dir, settings=ignore_all)
    assert (stats.cached, stats.linted) == (0, 3)
    assert not results[0].diagnostics
    results, stats = _run(tree, cache_dir, settings=Settings(options={"max-file-lines": 9}))
    assert stats.linted == 3


def test_fix_mode_is_part_of_the_key(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree[1:], cache_dir)
    _, stats = _run(tree[1:], cache_dir, fix="safe")
    assert stats.linted == 2
    _, stats = _run(tree[1:], cache_dir, fix="safe")
    assert stats.cached == 2


def test_new_tool_version_misses(tree, tmp_path, monkeypatch) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    monkeypatch.setattr(inplace_lint, "__version__", inplace_lint.__version__ + ".post1")
    monkeypatch.setattr(cache_module, "_fingerprint", None)
    _, stats = _run(tree, cache_dir)
    assert (stats.cached, stats.linted) == (0, 3)
    builds = [p for p in cache_dir.iterdir() if p.is_dir()]
    assert len(builds) == 1, "the previous build's results are removed"


def test_new_libcst_version_misses(tree, tmp_path, monkeypatch) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    monkeypatch.setattr(cache_module, "_libcst_version", lambda: "0.0.0")
    monkeypatch.setattr(cache_module, "_fingerprint", None)
    _, stats = _run(tree, cache_dir)
    assert stats.linted == 3


def test_libcst_version_read_without_metadata_or_import() -> None:
    """The fingerprint reads the installed libcst's version file: it names the version that
    importlib.metadata reports, and changes with it."""
    from importlib.metadata import version

    text = cache_module._libcst_version()
    assert f"'{version('libcst')}'" in text


def test_package_files_are_part_of_the_fingerprint(monkeypatch) -> None:
    before = cache_module._compute_fingerprint()
    real = cache_module._package_files
    monkeypatch.setattr(cache_module, "_package_files", lambda root: real(root)[1:])
    assert cache_module._compute_fingerprint() != before


def test_cache_folder_is_tagged_and_ignored(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    assert (
        (cache_dir / "CACHEDIR.TAG")
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )
    ignore = (cache_dir / ".gitignore").read_text().splitlines()
    assert "*" in ignore


def test_damaged_pack_is_an_empty_cache(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    for pack in cache_dir.rglob("*.pickle"):
        pack.write_bytes(b"not a pickle")
    results, stats = _run(tree, cache_dir)
    assert stats.linted == 3 and results[0].diagnostics
    _, stats = _run(tree, cache_dir)
    assert stats.cached == 3


def test_unwritable_cache_does_not_fail_the_run(tree, tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    results, _ = _run(tree, blocker / "cache")  # cannot create a folder under a file
    assert results[0].diagnostics


def test_pack_holds_no_source_text(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    (pack,) = cache_dir.rglob("*.pickle")
    entries = pickle.loads(pack.read_bytes())["entries"]
    assert all(result.source is None for _, _, result in entries.values())


def _age(path: Path, seconds: float) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - int(seconds * 1e9)))


def test_same_size_same_mtime_change_right_after_linting_is_seen(tree, tmp_path) -> None:
    """A file linted within two seconds of its last change is checked by content next time,
    so a same-size edit in the same mtime tick cannot hide behind an unchanged stat."""
    cache_dir = tmp_path / "cache"
    tree[0].write_text(BUGGY)
    _run(tree[:1], cache_dir)
    before = tree[0].stat()
    tree[0].write_text(BUGGY.replace("y += 1", "y -= 1"))  # same size
    os.utime(tree[0], ns=(before.st_atime_ns, before.st_mtime_ns))  # same mtime
    _, stats = _run(tree[:1], cache_dir)
    assert stats.linted == 1


def test_unchanged_stat_is_a_hit_without_reading(tree, tmp_path, monkeypatch) -> None:
    cache_dir = tmp_path / "cache"
    for path in tree:
        _age(path, 60)
    _run(tree, cache_dir)

    def no_hashing(data: bytes) -> bytes:
        raise AssertionError("an unchanged, settled file is not read again")

    monkeypatch.setattr(cache_module, "digest", no_hashing)
    results, stats = _run(tree, cache_dir)
    assert stats.cached == 3 and results[0].diagnostics


def test_touched_but_unchanged_file_is_a_hit(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    _age(tree[1], -5)  # mtime moves, content does not
    _, stats = _run(tree, cache_dir)
    assert stats.cached == 3


WARM_RUN = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from inplace_lint.runner import RunStats, run
    from inplace_lint.settings import Settings

    files = [Path(p) for p in sys.argv[2:]]
    stats = RunStats()
    results = run(files, lambda p: Settings(), cache_dir=Path(sys.argv[1]), stats=stats)
    assert stats.cached == len(files), stats
    assert results[0].diagnostics
    print("libcst" in sys.modules, "inplace_lint.analysis" in sys.modules)
    """
)


def test_warm_run_never_imports_libcst(tree, tmp_path) -> None:
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    out = _run_in_fresh_python(WARM_RUN, cache_dir, tree)
    assert out.stdout.split() == ["False", "False"], out.stderr


def _run_in_fresh_python(script: str, cache_dir: Path, files: list[Path]):
    """``script`` in a new interpreter (a clean ``sys.modules``), given the cache and files."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-c", script, str(cache_dir), *map(str, files)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )


CHANGED_RUN = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from inplace_lint.runner import RunStats, run
    from inplace_lint.settings import Settings

    files = [Path(p) for p in sys.argv[2:]]
    stats = RunStats()
    # as the command line runs it: in process, the speed-ups taken only once libcst is needed
    run(files, lambda p: Settings(), cache_dir=Path(sys.argv[1]), stats=stats, own_process=True)
    print(stats.cached, stats.linted, stats.plans.get("skip", 0), "libcst" in sys.modules)
    """
)


def test_changed_file_without_candidates_is_linted_without_libcst(tree, tmp_path) -> None:
    """One file edited, in a way the prefilter can skip: re-linted in process, libcst never
    loaded (the one-file-changed case of the benchmark)."""
    cache_dir = tmp_path / "cache"
    _run(tree, cache_dir)
    tree[2].write_text(CLEAN + "\n\ndef more(x):\n    return torch.relu(x)\n")
    out = _run_in_fresh_python(CHANGED_RUN, cache_dir, tree)
    assert out.stdout.split() == ["2", "1", "1", "False"], out.stderr
