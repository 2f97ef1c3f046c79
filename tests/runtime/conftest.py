"""The runtime check's worker pool: one long-lived `fixture_runner.py --serve` per framework.

Each pytest(-xdist) worker owns its pool. A runner interpreter is replaced when it reports that a
fixture left the framework's global state changed (`dirty`), when it times out or dies, and after
RECYCLE_AFTER fixtures. `IPL_FIXTURE_ISOLATED=1` runs every fixture in a fresh interpreter instead
(slower; the reference semantics the pooled run must agree with).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

RUNNER = Path(__file__).with_name("fixture_runner.py")
TIMEOUT = float(os.environ.get("IPL_FIXTURE_TIMEOUT", "120"))
RECYCLE_AFTER = 100
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


class RunnerWorker:
    def __init__(self) -> None:
        # Lives as long as the runner process; closed in close().
        self.log = tempfile.TemporaryFile("w+")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, str(RUNNER), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=ENV,
        )
        self.runs = 0

    def run(self, path: Path) -> dict:
        self.runs += 1
        self.proc.stdin.write(f"{path}\n")
        self.proc.stdin.flush()
        with selectors.DefaultSelector() as selector:
            selector.register(self.proc.stdout, selectors.EVENT_READ)
            if not selector.select(TIMEOUT):
                return self._failure(path, f"no verdict within {TIMEOUT:.0f} s")
        line = self.proc.stdout.readline()
        if not line:
            return self._failure(path, f"runner died (exit {self.proc.wait()})")
        return json.loads(line)

    def _failure(self, path: Path, why: str) -> dict:
        self.close()
        self.log.seek(0)
        tail = self.log.read()[-3000:]
        return {"path": str(path), "passed": False, "problems": [why, tail], "dead": True}

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class RunnerPool:
    def __init__(self) -> None:
        self.workers: dict[str, RunnerWorker] = {}

    def run(self, path: Path, framework: str) -> dict:
        if os.environ.get("IPL_FIXTURE_ISOLATED") == "1":
            return run_isolated(path)
        worker = self.workers.get(framework)
        if worker is None or worker.proc.poll() is not None:
            worker = self.workers[framework] = RunnerWorker()
        verdict = worker.run(path)
        if verdict.get("dirty") or verdict.get("dead") or worker.runs >= RECYCLE_AFTER:
            worker.close()
            del self.workers[framework]
        return verdict

    def close(self) -> None:
        for worker in self.workers.values():
            worker.close()


def run_isolated(path: Path) -> dict:
    """`python fixture_runner.py FILE` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(path)],
        check=False,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=TIMEOUT,
    )
    lines = done.stdout.strip().splitlines()
    if not lines:
        return {"path": str(path), "passed": False, "problems": [done.stderr[-3000:]]}
    return json.loads(lines[-1])


@pytest.fixture(scope="session")
def runner_pool():
    pool = RunnerPool()
    yield pool
    pool.close()
