"""The long-lived lint thread (api._LintThread): reused from file to file, replaced after a
time-out or a fork, never shared by two callers at once."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from inplace_lint import api
from inplace_lint.api import lint_source
from inplace_lint.settings import Settings

BODY = (
    "import torch\n\ndef f():\n    x = torch.randn(3, requires_grad=True)\n"
    "    y = x.sigmoid()\n    y.mul_(2)\n    y.sum().backward()\n"
)


def codes(diags) -> list[str]:
    return [d.code for d in diags]


def _record_threads(monkeypatch) -> list[threading.Thread]:
    from inplace_lint.analysis import engine

    seen: list[threading.Thread] = []
    real = engine.analyse

    def recording(module, settings, top_level=None, facts=None):
        seen.append(threading.current_thread())
        return real(module, settings)

    monkeypatch.setattr(engine, "analyse", recording)
    return seen


def test_files_are_linted_on_one_thread_that_is_not_the_callers(monkeypatch):
    expected = codes(lint_source(BODY, "t.py"))
    assert expected == ["IPL001"]
    seen = _record_threads(monkeypatch)
    for _ in range(5):
        assert codes(lint_source(BODY, "t.py")) == expected
    assert len(seen) == 5 and all(thread is seen[0] for thread in seen)
    assert seen[0] is not threading.current_thread()


def test_after_a_time_out_the_next_file_runs_on_a_new_thread(monkeypatch):
    from inplace_lint.analysis import engine

    real = engine.analyse
    seen: list[threading.Thread] = []
    stuck = {"first": True}

    def analyse(module, settings, top_level=None, facts=None):
        seen.append(threading.current_thread())
        if stuck.pop("first", False):
            while True:
                pass
        return real(module, settings)

    monkeypatch.setattr(engine, "analyse", analyse)
    budget = Settings(options={"max-file-seconds": 0.5})
    assert codes(lint_source(BODY, "slow.py", budget)) == ["IPL904"]
    assert codes(lint_source(BODY, "next.py", budget)) == ["IPL001"]
    assert codes(lint_source(BODY, "again.py", budget)) == ["IPL001"]
    assert len(seen) == 3 and seen[0] is not seen[1] and seen[1] is seen[2]


def test_concurrent_callers_each_get_their_own_result():
    clean = "import torch\n\ndef f(x):\n    return x + 1\n"
    results: dict[int, list[str]] = {}

    def work(i: int) -> None:
        results[i] = codes(lint_source(BODY if i % 2 else clean, f"t{i}.py"))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {i: (["IPL001"] if i % 2 else []) for i in range(8)}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_child_lints_on_a_thread_of_its_own():
    assert codes(lint_source(BODY, "parent.py")) == ["IPL001"]  # the parent's thread exists
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no thread survived the fork
        try:
            os.write(write, ",".join(codes(lint_source(BODY, "child.py"))).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(pid, 0)
    assert answer == "IPL001"
    assert sys.modules["inplace_lint.api"] is api
