"""The runner: the same results in any order and any parallelism; a bad file never ends a run."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fixturelib import FIXTURES_ROOT

from inplace_lint import runner
from inplace_lint.api import lint_source
from inplace_lint.files import lint_file
from inplace_lint.runner import RunStats, run
from inplace_lint.settings import DEFAULT_SETTINGS, Settings

FIXTURE_FILES = sorted(FIXTURES_ROOT.rglob("*.py"))


def _settings(_: Path) -> Settings:
    return DEFAULT_SETTINGS


def _key(results):
    return [(r.path, r.diagnostics) for r in results]


def test_pool_and_in_process_agree_sorted_by_path(monkeypatch) -> None:
    files = list(reversed(FIXTURE_FILES[:40]))
    in_process = run(files, _settings, jobs=1)
    monkeypatch.setattr(runner, "IN_PROCESS_BYTES", 0)
    stats = RunStats()
    pooled = run(files, _settings, jobs=2, stats=stats)
    assert stats.workers == 2
    assert stats.worker_peak_rss and all(rss > 0 for rss in stats.worker_peak_rss.values())
    assert _key(pooled) == _key(in_process)
    assert [r.path for r in pooled] == sorted(str(f) for f in files)


@pytest.mark.skipif(
    "fork" not in __import__("multiprocessing").get_all_start_methods(),
    reason="the patched batch function reaches the workers only through fork",
)
def test_a_worker_that_dies_costs_its_batch_not_the_run(monkeypatch, tmp_path: Path) -> None:
    files = FIXTURE_FILES[:30]
    doomed = files[7]
    lint_batch = runner._lint_batch

    def crashing(batch):
        if any(task.path == str(doomed) for task in batch):
            import os

            os._exit(3)  # as a segfault in native code or the OOM killer would end it
        return lint_batch(batch)

    monkeypatch.setattr(runner, "IN_PROCESS_BYTES", 0)
    monkeypatch.setattr(runner, "_lint_batch", crashing)
    stats = RunStats()
    results = run(files, _settings, jobs=2, stats=stats, cache_dir=tmp_path / "cache")
    assert stats.workers == 2
    assert len(results) == len(files)
    died = [r for r in results if any("died" in d.message for d in r.diagnostics)]
    assert str(doomed) in {r.path for r in died}
    assert all(d.code == "IPL903" for r in died for d in r.diagnostics)
    expected = {str(f): r for f, r in zip(files, run(files, _settings, jobs=1))}
    for result in results:
        if result not in died:
            assert result.diagnostics == expected[result.path].diagnostics
    # nothing of the dead batch was cached: a second run lints those files again
    monkeypatch.setattr(runner, "_lint_batch", lint_batch)
    again = run(files, _settings, jobs=2, cache_dir=tmp_path / "cache")
    assert _key(again) == _key(run(files, _settings, jobs=1))


def test_results_match_the_library_api() -> None:
    for result in run(FIXTURE_FILES, _settings, jobs=1):
        text = Path(result.path).read_text(encoding="utf-8")
        assert result.diagnostics == lint_source(text, result.path, DEFAULT_SETTINGS), result.path


def test_little_work_stays_in_process() -> None:
    stats = RunStats()
    run(FIXTURE_FILES[:2], _settings, jobs=2, stats=stats)
    assert stats.workers == 0


def test_missing_and_special_files_are_reported_not_fatal(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    files = [tmp_path / "missing.py", fifo, FIXTURE_FILES[0]]
    results = run(files, _settings, jobs=1, cache_dir=tmp_path / "cache")
    by_path = {r.path: r for r in results}
    assert [d.code for d in by_path[str(tmp_path / "missing.py")].diagnostics] == ["IPL902"]
    assert [d.code for d in by_path[str(fifo)].diagnostics] == ["IPL902"]
    assert str(FIXTURE_FILES[0]) in by_path


def test_time_budget_reports_ipl904(tmp_path: Path, monkeypatch) -> None:
    """A file whose analysis overruns max-file-seconds is one IPL904, through the prefilter."""
    from inplace_lint.analysis import engine

    path = tmp_path / "slow.py"
    path.write_text("import torch\n\ndef f(x):\n    x.add_(1)\n")

    def slow(*args, **kwargs):
        for _ in range(100):
            time.sleep(0.05)
        raise AssertionError("not reached")

    monkeypatch.setattr(engine, "analyse", slow)
    budget = Settings(options={"max-file-seconds": 0.3})
    (result,) = run([path], lambda p: budget, jobs=1)
    # IPL904 and not IPL903: the budget interrupted `slow` before it could finish and raise
    # (no wall-clock assertion: speed is measured by bench/, never by a test)
    assert [d.code for d in result.diagnostics] == ["IPL904"]
    assert "max-file-seconds" in result.diagnostics[0].message


def test_internal_error_is_one_files_ipl903(tmp_path: Path, monkeypatch) -> None:
    good, bad = tmp_path / "a.py", tmp_path / "b.py"
    good.write_text("import torch\n")
    bad.write_text("import torch\n")

    def boom(text, filename, settings):
        if filename.endswith("b.py"):
            raise ValueError("boom")
        return real(text, filename, settings)

    real = runner.lint_python
    monkeypatch.setattr(runner, "lint_python", boom)
    results = run([bad, good], _settings, jobs=1)
    assert [r.path for r in results] == [str(good), str(bad)]
    assert results[0].diagnostics == []
    assert [d.code for d in results[1].diagnostics] == ["IPL903"]
    assert "boom" in results[1].diagnostics[0].detail


@pytest.mark.parametrize("fix", ["safe", "unsafe"])
def test_fix_modes_go_through_lint_file(tmp_path: Path, fix: str) -> None:
    copies = []
    for source in FIXTURE_FILES[:15]:
        target = tmp_path / source.name
        target.write_text(source.read_text(encoding="utf-8"))
        copies.append(target)
    expected = []
    for path in copies:
        twin = tmp_path / "twin" / path.name
        twin.parent.mkdir(exist_ok=True)
        twin.write_text(path.read_text())
        r = lint_file(twin, DEFAULT_SETTINGS, fix=fix)
        expected.append((r.fixes_applied, r.diagnostics, twin.read_text()))
    results = run(copies, _settings, jobs=1, fix=fix)
    got = [(r.fixes_applied, r.diagnostics, Path(r.path).read_text()) for r in results]
    assert got == expected


def test_a_reduced_text_that_fails_falls_back_to_the_full_text(monkeypatch) -> None:
    from inplace_lint import prefilter

    text = FIXTURE_FILES[0].read_text(encoding="utf-8")
    monkeypatch.setattr(
        prefilter, "plan", lambda t: prefilter.Plan("reduced", "def broken(:\n" * t.count("\n"))
    )
    result, kind = runner.lint_python(text, "f.py", DEFAULT_SETTINGS)
    assert kind == "full"
    assert result.diagnostics == lint_source(text, "f.py", DEFAULT_SETTINGS)


def test_batches_keep_order_and_cover_every_task():
    from inplace_lint.runner import _BATCH_BYTES, _BATCH_FILES, _batches, _Task

    sizes = [500_000, 90_000, 30_000, 30_000, 30_000] + [100] * 100
    tasks = [_Task(i, f"f{i}.py", 0, size) for i, size in enumerate(sizes)]
    batches = list(_batches(tasks))
    assert [t for b in batches for t in b] == tasks
    assert [len(b) for b in batches[:3]] == [1, 1, 3]  # a large file travels alone
    assert all(len(b) <= _BATCH_FILES for b in batches)
    assert all(sum(t.size for t in b[:-1]) < _BATCH_BYTES for b in batches)


def test_batches_keep_a_folder_together_up_to_a_size():
    from inplace_lint.runner import _batches, _Task

    # largest first, two folders interleaved: a/ 300k 200k 100k 10k, b/ 250k 150k 20k
    files = [("a", 300_000), ("b", 250_000), ("a", 200_000), ("b", 150_000), ("a", 100_000)]
    files += [("b", 20_000), ("a", 10_000)]
    tasks = [_Task(i, f"{d}/f{i}.py", 0, size) for i, (d, size) in enumerate(files)]
    batches = list(_batches(tasks, folder_bytes=450_000))
    assert sorted(t.index for b in batches for t in b) == list(range(len(tasks)))
    paths = [[t.path for t in b] for b in batches]
    # a/ cut at 450k: (300k) then (200k 100k 10k); b/: (250k 150k 20k); runs largest first
    assert paths == [
        ["b/f1.py", "b/f3.py", "b/f5.py"],
        ["a/f2.py", "a/f4.py", "a/f6.py"],
        ["a/f0.py"],
    ]


def test_folder_runs_keep_the_batch_file_bound():
    from inplace_lint.runner import _BATCH_FILES, _batches, _Task

    tasks = [_Task(i, f"many/f{i}.py", 0, 100) for i in range(100)]
    batches = list(_batches(tasks, folder_bytes=1_000_000))
    assert sorted(t.index for b in batches for t in b) == list(range(100))
    assert all(len(b) <= _BATCH_FILES for b in batches)


OWN_PROCESS_RUN = """
import pickle, sys
from pathlib import Path
from inplace_lint import fastcst
from inplace_lint.runner import run
from inplace_lint.settings import Settings
from inplace_lint.rules import all_rules

every = Settings(enabled=frozenset(all_rules()))
files = [Path(p) for p in sys.argv[1:]]
results = run(files, lambda p: every, jobs=1, own_process=True)
assert fastcst._PARSER is not None and fastcst._DONE  # the speed-ups were taken
sys.stdout.buffer.write(pickle.dumps([(r.path, r.diagnostics) for r in results]))
"""


def test_own_process_speed_ups_give_the_same_results() -> None:
    """The command line's in-process run takes the workers' speed-ups (``own_process``): the
    same diagnostics, fixes included, with every rule, on every fixture. In a fresh interpreter:
    the speed-ups are for the whole process."""
    import os
    import pickle
    import subprocess
    import sys

    from inplace_lint.rules import all_rules

    every = Settings(enabled=frozenset(all_rules()))
    plain = run(FIXTURE_FILES, lambda p: every, jobs=1)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-c", OWN_PROCESS_RUN, *map(str, FIXTURE_FILES)],
        capture_output=True,
        env=env,
        check=True,
    ).stdout
    assert pickle.loads(out) == _key(plain)
    assert any(r.diagnostics for r in plain)
