"""Lint many files: the result cache first, then worker processes for what is left.

* The parent resolves each file's settings, reads and hashes the files that have a cache entry,
  and answers those from the cache without importing libcst.
* The rest goes to worker processes (all cores by default, ``jobs``), largest files first so the
  long ones do not end the run alone. Each worker receives the table of distinct settings once,
  imports the analysis once, and sends back only the result (the file's text only when there is
  a diagnostic to show it with). With ``jobs=1``, or when only a little is left to lint, the work
  runs in this process: starting workers would cost more than it saves.
* Before libcst sees a file, ``prefilter.plan`` decides what of it can hold a finding
  (docs/performance.md). Fixing and notebooks take the full path through ``files.lint_file``.
* A file over the size, line or time budget (options ``max-file-bytes``, ``max-file-lines``,
  ``max-file-seconds``) is reported as IPL904 by the library API and the run goes on; a file that
  makes our code raise is reported as IPL903 and the run goes on.

Results come back sorted by path, whatever the parallelism.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from inplace_lint.diagnostics import Diagnostic, Position, Span
from inplace_lint.results import FileResult
from inplace_lint.settings import Settings

# Below this much work (bytes of source to lint) the run stays in process.
IN_PROCESS_BYTES = 400_000


@dataclass
class RunStats:
    """What a run did; filled in when passed to ``run`` (the benchmark reads it)."""

    files: int = 0
    cached: int = 0
    linted: int = 0
    workers: int = 0  # 0: in process
    plans: dict[str, int] = field(default_factory=dict)  # prefilter outcome -> files
    worker_peak_rss: dict[int, int] = field(default_factory=dict)  # pid -> peak RSS, bytes
    wall: float = 0.0


@dataclass(frozen=True)
class _Task:
    index: int
    path: str
    settings_id: int
    size: int


def run(
    files: list[Path],
    settings_for: Callable[[Path], Settings],
    *,
    jobs: int | None = None,
    cache_dir: Path | None = None,
    fix: str = "none",
    stats: RunStats | None = None,
    own_process: bool = False,
) -> list[FileResult]:
    """Lint (or fix) ``files``; ``cache_dir`` None means no cache. Sorted by path.

    ``own_process``: the caller owns this process (the command line), so work done in it may
    use what workers use: libcst's node constructors without validation and a parse without
    per-node imports (``fastcst``), and the lean cycle collector. A library caller keeps its
    libcst and collector as they are."""
    started = time.perf_counter()
    _WORKER.speed_up = own_process
    stats = stats if stats is not None else RunStats()
    stats.files = len(files)
    table: list[Settings] = []
    ids: dict[str, int] = {}
    settings_ids = []
    for path in files:
        settings = settings_for(path)
        key = settings.cache_key()
        if key not in ids:
            ids[key] = len(table)
            table.append(settings)
        settings_ids.append(ids[key])

    cache = None
    if cache_dir is not None:
        from inplace_lint.cache import Cache

        cache = Cache(cache_dir)
    packs = [_pack_key(table[i], fix) for i in range(len(table))] if cache else []

    results: list[FileResult | None] = [None] * len(files)
    tasks: list[_Task] = []
    for index, path in enumerate(files):
        name = os.fspath(path)
        sid = settings_ids[index]
        st = _stat(name)
        if cache is not None and st is not None and stat.S_ISREG(st.st_mode):
            hit = cache.lookup(packs[sid], name, st)
            if hit is not None:
                results[index] = _from_cache(hit, name)
                stats.cached += 1
                continue
        tasks.append(_Task(index, name, sid, st.st_size if st is not None else 0))

    stats.linted = len(tasks)
    for index, key, result in _lint_all(tasks, table, fix, jobs, stats):
        results[index] = result
        if cache is not None and key is not None:
            cache.put(packs[settings_ids[index]], result.path, key, result)
    if cache is not None:
        cache.save()
    stats.wall = time.perf_counter() - started
    done = [r for r in results if r is not None]
    return sorted(done, key=lambda r: r.path)


def _pack_key(settings: Settings, fix: str) -> str:
    from inplace_lint.cache import Cache

    return Cache.pack_key(settings, fix)


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _from_cache(hit: FileResult, path: str) -> FileResult:
    """The cached result, with the file's text back when there is something to show with it."""
    source = hit.source
    if source is None and hit.diagnostics and hit.cell_map is None:
        from inplace_lint.sources import SourceError, read_source

        try:
            source = read_source(path, max_bytes=None).text
        except SourceError:
            source = None
    return replace(hit, path=path, source=source, diagnostics=list(hit.diagnostics))


# --------------------------------------------------------------------------------------------
# Scheduling


def _lint_all(
    tasks: list[_Task], table: list[Settings], fix: str, jobs: int | None, stats: RunStats
) -> Iterable[tuple[int, tuple | None, FileResult]]:
    if not tasks:
        return
    tasks = sorted(tasks, key=lambda t: (-t.size, t.index))
    workers = _worker_count(jobs, tasks)
    if workers <= 1:
        # In process the pipeline is imported on first need: a few changed files that the
        # prefilter skips never load libcst.
        _WORKER.table, _WORKER.fix = table, fix
        for task in tasks:
            index, key, result, _, _, kind = _lint_task(task)
            stats.plans[kind] = stats.plans.get(kind, 0) + 1
            yield index, key, result
        return
    stats.workers = workers
    _WORKER.speed_up = False  # the workers take the speed-ups; this process does not parse
    yield from _in_pool(tasks, table, fix, workers, stats)


def _worker_count(jobs: int | None, tasks: list[_Task]) -> int:
    if jobs is not None and jobs >= 1:
        wanted = jobs
    else:
        wanted = _cpu_count()
    if wanted > 1 and sum(t.size for t in tasks) < IN_PROCESS_BYTES:
        return 1
    return max(1, min(wanted, len(tasks)))


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _in_pool(tasks, table, fix, workers, stats):
    """Lint the batches in ``workers`` processes, each sent its next batch when it returns one.

    Not ``multiprocessing.Pool``: its worker-maintenance thread waits on the result pipe too,
    so while a result is unread it wakes in a loop (19,000 times over transformers' 421
    batches, ~0.7 s of the parent's CPU, taken from the workers' two cores). Here the parent
    waits on the workers' pipes and sentinels only. A worker that dies (a crash in native
    code, the kernel's OOM killer) costs its batch, reported file by file (IPL903), and is
    replaced; ``multiprocessing.Pool`` would wait for that batch forever."""
    import multiprocessing
    from multiprocessing.connection import wait

    methods = multiprocessing.get_all_start_methods()
    fork = "fork" in methods
    context = multiprocessing.get_context("fork" if fork else None)
    if fork:  # load the pipeline once here: forked workers share it instead of each importing it
        _load_pipeline()
        from inplace_lint.analysis.knowledge import preload

        preload()  # and the knowledge tables, which a worker would otherwise load on first use
        from inplace_lint.fastcst import prepare_node_construction

        prepare_node_construction()  # built once here, installed by each worker
    # (runs small enough that the last ones still balance the workers on a small tree)
    folder_bytes = min(_FOLDER_BYTES, sum(t.size for t in tasks) // (workers * 8))
    batches = iter(_batches(tasks, folder_bytes))
    slots: list[_Slot] = []
    try:
        for _ in range(workers):
            slot = _Slot.start(context, table, fix)
            slots.append(slot)
            slot.send(next(batches, None))
        while any(slot.batch is not None for slot in slots):
            busy = [slot for slot in slots if slot.batch is not None]
            ready = set(wait([w for slot in busy for w in (slot.conn, slot.process.sentinel)]))
            for slot in busy:
                if slot.conn not in ready and slot.process.sentinel not in ready:
                    continue
                done = slot.receive()
                if done is None:  # the worker died: its files, one diagnostic each
                    done = [_died(task, slot.process.exitcode, table) for task in slot.batch]
                    slot.replace(context, table, fix)
                slot.send(next(batches, None))
                for index, key, result, pid, rss, kind in done:
                    stats.worker_peak_rss[pid] = max(rss, stats.worker_peak_rss.get(pid, 0))
                    stats.plans[kind] = stats.plans.get(kind, 0) + 1
                    yield index, key, result
        for slot in slots:
            slot.stop()
    except BaseException:
        for slot in slots:
            slot.process.terminate()
        raise
    finally:
        for slot in slots:
            slot.process.join()
            slot.conn.close()


class _Slot:
    """One worker process, its end of the pipe, and the batch it is linting (None: idle)."""

    def __init__(self, process, conn) -> None:
        self.process = process
        self.conn = conn
        self.batch: list[_Task] | None = None

    @classmethod
    def start(cls, context, table: list[Settings], fix: str) -> _Slot:
        ours, theirs = context.Pipe()
        process = context.Process(target=_worker_main, args=(theirs, table, fix), daemon=True)
        process.start()
        theirs.close()
        return cls(process, ours)

    def send(self, batch: list[_Task] | None) -> None:
        self.batch = batch
        if batch is not None:
            self.conn.send(batch)

    def receive(self) -> list[tuple] | None:
        """The batch's results; None when the worker died before sending them."""
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            return None

    def replace(self, context, table: list[Settings], fix: str) -> None:
        self.process.join()
        self.conn.close()
        fresh = _Slot.start(context, table, fix)
        self.process, self.conn = fresh.process, fresh.conn

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass


def _worker_main(conn, table: list[Settings], fix: str) -> None:
    """A worker: lint each batch the parent sends until it sends None. Ctrl-C is the parent's
    to handle (it stops the workers), not one traceback per worker."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init_pool_worker(table, fix)
    while True:
        try:
            batch = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if batch is None:
            return
        conn.send(_lint_batch(batch))


def _died(task: _Task, exitcode: int | None, table: list[Settings]) -> tuple:
    """A file whose worker process died while linting its batch (not cached)."""
    message = (
        f"Internal error: the worker process linting {task.path} died (exit code {exitcode}); "
        "it or a file of the same batch crashed or ran out of memory"
    )
    diags = _meta(table[task.settings_id], "IPL903", message)
    return task.index, None, FileResult(task.path, diags), 0, 0, "error"


# Small files travel to the workers in batches of about this many bytes (at most _BATCH_FILES
# files): one message each way per batch instead of per file. Tasks come largest first, so the
# batches of small files come last and still balance the end of the run.
_BATCH_BYTES = 64_000
_BATCH_FILES = 32
# The files of one folder travel together, up to this many bytes (and _BATCH_FILES files): a
# worker keeps the pieces of text it parsed (inplace_lint/piecewise.py), and a model's files
# repeat one another (a transformers model's modular file and the modeling file generated from
# it). Measured on transformers 5.23.0: 21.6% of a worker's piece text found parsed before,
# against 18.0% when the files are dealt one by one (bench/parse_repeats.py).
_FOLDER_BYTES = 1_000_000


def _batches(tasks: list[_Task], folder_bytes: int = 0) -> Iterable[list[_Task]]:
    """The folders' runs of tasks (each largest first, cut at ``folder_bytes`` or _BATCH_FILES
    files), the runs largest first; small runs travel together in batches."""
    folders: dict[str, list[_Task]] = {}
    for task in tasks:  # (largest first)
        folders.setdefault(os.path.dirname(task.path), []).append(task)
    runs: list[tuple[int, list[_Task]]] = []  # (bytes, tasks)
    for members in folders.values():
        run: list[_Task] = []
        size = 0
        for task in members:
            if run and (size + task.size > folder_bytes or len(run) >= _BATCH_FILES):
                runs.append((size, run))
                run, size = [], 0
            run.append(task)
            size += task.size
        runs.append((size, run))
    runs.sort(key=lambda sized: (-sized[0], sized[1][0].index))
    batch: list[_Task] = []
    size = 0
    for run_size, run in runs:
        if run_size >= _BATCH_BYTES:
            yield run
            continue
        if len(batch) + len(run) > _BATCH_FILES:
            yield batch
            batch, size = [], 0
        batch.extend(run)
        size += run_size
        if size >= _BATCH_BYTES or len(batch) >= _BATCH_FILES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


# --------------------------------------------------------------------------------------------
# In a worker (or in process)


class _WorkerState:
    def __init__(self) -> None:
        self.table: list[Settings] = []
        self.fix = "none"
        self.speed_up = False  # in process: take the workers' speed-ups before the first parse


def _speed_up_in_process() -> None:
    """The workers' speed-ups, in a process the command line owns (``run(own_process=True)``),
    once, just before libcst is first needed: a run whose files the prefilter all skips still
    never imports libcst. Measured on torchvision with ``--jobs 1``: 3.5-3.7 s of CPU without
    them, as in the two workers with them (~2.5 s)."""
    if not _WORKER.speed_up:
        return
    _WORKER.speed_up = False
    _lean_gc()
    from inplace_lint.fastcst import speed_up_node_construction, speed_up_parsing

    speed_up_node_construction()
    speed_up_parsing()


_WORKER = _WorkerState()


def _init_pool_worker(table: list[Settings], fix: str) -> None:
    _init_worker(table, fix)
    _lean_gc()
    # Workers only parse and analyse: libcst's node checks are not needed (inplace_lint/fastcst.py).
    from inplace_lint.fastcst import speed_up_node_construction, speed_up_parsing

    speed_up_node_construction()
    speed_up_parsing()


def _lean_gc() -> None:
    """Collect cycles less often in a worker. A parse builds its tree out of hundreds of
    thousands of live objects, and the collector's default (a young collection every 700 new
    objects, a full one every hundred of those) traverses them again and again while they
    cannot be garbage: measured at about 8% of a worker's CPU on timm. What the pipeline
    imported is frozen (never traversed again: the parent imported it before forking), and a
    young collection runs every 100,000 new objects; cycles are still collected."""
    import gc

    gc.freeze()
    gc.set_threshold(_GC_THRESHOLD, 20, 20)


_GC_THRESHOLD = 100_000


def _init_worker(table: list[Settings], fix: str) -> None:
    _WORKER.table = table
    _WORKER.fix = fix
    _load_pipeline()


def _load_pipeline() -> None:
    """Import the pipeline before the first file: rules, analysis, knowledge tables, and what a
    worker uses around them (imported before the fork, each worker would import it again)."""
    import inplace_lint.analysis.engine
    import inplace_lint.api
    import inplace_lint.cache
    import inplace_lint.files
    import inplace_lint.prefilter
    import inplace_lint.suppressions  # noqa: F401
    from inplace_lint.rules import all_rules

    with contextlib.suppress(ImportError):  # not on Windows
        import resource  # noqa: F401 - _peak_rss
    with contextlib.suppress(ImportError):  # fastcst.speed_up_parsing's entry
        import libcst.native  # noqa: F401

    all_rules()


def _lint_batch(batch: list[_Task]) -> list[tuple]:
    return [_lint_task(task) for task in batch]


def _lint_task(task: _Task):
    settings = _WORKER.table[task.settings_id]
    key, kind = None, "error"
    try:
        key, result, kind = _lint_one(task.path, settings, _WORKER.fix)
    except Exception as error:  # noqa: BLE001 - one bad file must not end the run
        from inplace_lint.api import format_exception

        diags = _meta(settings, "IPL903", f"Internal error in the runner on {task.path}: {error}")
        diags = [replace(d, detail=format_exception(error)) for d in diags]
        result = FileResult(task.path, diags)
    if not result.diagnostics and result.fixed_source is None:
        result.source = None  # nothing to show it with: do not send the text back
    rss = _peak_rss()
    return task.index, key, result, os.getpid(), rss, kind


def _peak_rss() -> int:
    """This process's peak resident set size in bytes (0 where unknown)."""
    try:
        import resource
    except ImportError:  # Windows
        return 0
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, kilobytes elsewhere
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _lint_one(path: str, settings: Settings, fix: str):
    """(cache key of the content linted: digest and stat, result, how it was linted: the
    prefilter's plan, "fix", "notebook", "unreadable")."""
    from inplace_lint.cache import digest, stat_key
    from inplace_lint.files import is_notebook, lint_file
    from inplace_lint.sources import DEFAULT_MAX_BYTES, SourceError, read_source

    st = _stat(path)  # before reading: a change after it shows as a different stat next time
    key_stat = stat_key(st) if st is not None else None
    if fix != "none" or is_notebook(path):
        _speed_up_in_process()
        raw = _read_quietly(path)
        result = lint_file(path, settings, fix=fix)
        kind = "notebook" if is_notebook(path) else "fix"
        return ((digest(raw), key_stat) if raw is not None else None), result, kind
    max_bytes = settings.options.get("max-file-bytes", DEFAULT_MAX_BYTES) or None
    try:
        source_file = read_source(path, max_bytes=max_bytes)
    except SourceError:
        _speed_up_in_process()
        return None, lint_file(path, settings), "unreadable"  # it reports the error
    result, kind = lint_python(source_file.text, path, settings)
    return (digest(source_file.raw), key_stat), result, kind


def lint_python(text: str, filename: str, settings: Settings) -> tuple[FileResult, str]:
    """``api.lint_source`` on what the prefilter keeps of ``text``: the same diagnostics. Also
    returns the prefilter's plan ("skip", "reduced", "full")."""
    from inplace_lint import prefilter

    plan = prefilter.plan(text) if not _over_budget(text, settings) else None
    kind = plan.kind if plan is not None else "full"
    if kind == "skip":  # no libcst needed (nor imported)
        from inplace_lint.suppressions import apply_suppressions

        diagnostics = sorted(apply_suppressions(text, [], settings), key=lambda d: d.sort_key)
        return FileResult(filename, diagnostics, source=text), kind
    _speed_up_in_process()
    from inplace_lint import api

    if kind == "reduced":
        from inplace_lint import piecewise

        piecewise.hint(plan.text, plan.layout, plan.writers, text)
        diagnostics = api.lint_source(plan.text, filename, settings)
        if any(d.code in _PIPELINE_FAILURES for d in diagnostics):
            # The reduced text did not go through (a parser or analysis failure, a budget): say
            # what the full text says, so the prefilter can never be the cause of a report.
            kind = "full"
            diagnostics = api.lint_source(text, filename, settings)
    else:
        diagnostics = api.lint_source(text, filename, settings)
    return FileResult(filename, diagnostics, source=text), kind


_PIPELINE_FAILURES = frozenset({"IPL901", "IPL903", "IPL904"})


def _over_budget(text: str, settings: Settings) -> bool:
    """Over the line or byte budget: the API reports IPL904 for it (on the full text)."""
    from inplace_lint.sources import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES

    max_lines = _limit(settings, "max-file-lines", DEFAULT_MAX_LINES)
    if max_lines is not None and text.count("\n") + text.count("\r") >= max_lines:
        return True
    max_bytes = _limit(settings, "max-file-bytes", DEFAULT_MAX_BYTES)
    return max_bytes is not None and len(text) * 4 > max_bytes


def _limit(settings: Settings, key: str, default: int) -> int | None:
    value = settings.options.get(key, default)
    if value is None or value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return default
    return value


def _read_quietly(path: str) -> bytes | None:
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _meta(settings: Settings, code: str, message: str) -> list[Diagnostic]:
    if not settings.is_enabled(code):
        return []
    from inplace_lint.rules import all_rules

    rule = all_rules()[code]
    start = Position(1, 1)
    return [Diagnostic(code, rule.name, message, rule.severity, Span(start, start), noqa_row=1)]
