"""Linting in a child process, so that no input can take the server down or hang it.

libcst's native parser recurses on nesting and overflows the C stack on pathological input
(`"(" * 2000` kills a process with a segmentation fault, which no ``except`` can catch), and it
takes minutes on some 100,000-long chains (`x = - - - ... 1`). The server therefore lints in one
worker process, on a thread with a large stack, under a time limit. If the worker dies or runs out
of time, the file gets a diagnostic saying so and the next lint starts a fresh worker.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable

from inplace_lint.diagnostics import Diagnostic, Position, Severity, Span
from inplace_lint.settings import Settings

log = logging.getLogger(__name__)

# Virtual memory only: pages are committed as the parser actually recurses.
WORKER_STACK_BYTES = 512 * 1024 * 1024
TIME_LIMIT_SECONDS = 20.0


class WorkerFailed(Exception):
    """The worker died, ran out of time or raised; ``diagnostic`` says so for the file."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class IsolatedLinter:
    """Runs the library in a worker process. Thread-safe (calls take turns)."""

    def __init__(self, time_limit: float = TIME_LIMIT_SECONDS) -> None:
        self.time_limit = time_limit
        self._lock = threading.Lock()
        self._process: multiprocessing.process.BaseProcess | None = None
        self._connection = None

    def lint(self, source: str, filename: str, settings: Settings) -> list[Diagnostic]:
        """``lint_source``; never raises: a failure is the file's one diagnostic."""
        try:
            return self.call(_lint_source, source, filename, settings)
        except WorkerFailed as failure:
            return [failure.diagnostic]

    def fix(self, source: str, filename: str, settings: Settings) -> str:
        """The text with every safe fix applied (``fixes.fix_text``); raises ``WorkerFailed``."""
        return self.call(_fix_text, source, filename, settings)

    def call(self, target: Callable, source: str, filename: str, settings: Settings):
        """``target(source, filename, settings)`` in the worker; raises ``WorkerFailed``."""
        with self._lock:
            try:
                self._ensure_worker()
                self._connection.send((target, source, filename, settings))
                if not self._connection.poll(self.time_limit):
                    self._stop_worker()
                    budget = f"Not analysed: over the {self.time_limit:g} s time budget"
                    raise WorkerFailed(_meta("IPL904", budget))
                ok, value = self._connection.recv()
            except (EOFError, OSError):
                log.error("The analyser process died on %s; starting a new one", filename)
                self._stop_worker()
                crashed = f"The analyser crashed on {filename} (nesting too deep?)"
                raise WorkerFailed(_meta("IPL903", crashed)) from None
        if not ok:
            raise WorkerFailed(_meta("IPL903", f"Internal error on {filename}: {value}"))
        return value

    def close(self) -> None:
        with self._lock:
            self._stop_worker()

    def _ensure_worker(self) -> None:
        if self._process is not None and self._process.is_alive():
            return
        self._stop_worker()
        # "spawn": the server has threads, and forking a threaded process can deadlock.
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs,), daemon=True, name="inplace-lint")
        process.start()
        theirs.close()
        self._process, self._connection = process, ours

    def _stop_worker(self) -> None:
        process, connection = self._process, self._connection
        self._process = self._connection = None
        if connection is not None:
            connection.close()
        if process is not None:
            process.kill()
            process.join(timeout=5)


def _meta(code: str, message: str) -> Diagnostic:
    name = {"IPL903": "internal-error", "IPL904": "file-too-large"}[code]
    severity = Severity.ERROR if code == "IPL903" else Severity.WARNING
    span = Span(Position(1, 1), Position(1, 1))
    return Diagnostic(code, name, message, severity, span, noqa_row=1)


def _lint_source(source: str, filename: str, settings: Settings) -> list[Diagnostic]:
    from inplace_lint.api import lint_source

    return lint_source(source, filename, settings)


def _fix_text(source: str, filename: str, settings: Settings) -> str:
    from inplace_lint.fixes import fix_text

    return fix_text(source, filename, settings, unsafe=False).text


def _serve(connection) -> None:
    """The worker: answer lint requests until the server closes the pipe."""
    # The worker inherited the server's stdout, which carries the protocol: keep it clean.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    threading.stack_size(WORKER_STACK_BYTES)
    while True:
        try:
            target, *args = connection.recv()
        except (EOFError, OSError):
            return
        connection.send(_run_on_big_stack(target, args))


def _run_on_big_stack(target: Callable, args: list) -> tuple[bool, object]:
    result: list = []

    def run() -> None:
        try:
            result.append((True, target(*args)))
        except BaseException as error:  # noqa: BLE001 - reported to the server as text
            result.append((False, f"{type(error).__name__}: {error}"))

    thread = threading.Thread(target=run, name="inplace-lint-analysis")
    thread.start()
    thread.join()
    return result[0]
