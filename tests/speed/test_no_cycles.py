"""A lint leaves no reference cycles behind: every tree it builds (Python's ``ast`` for the
prefilter, libcst's for the analysis) is freed as soon as it is dropped, not by the cycle
collector, which would otherwise traverse each file's trees again (docs/performance.md)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from inplace_lint.runner import lint_python
from inplace_lint.settings import Settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TEXTS = sorted(FIXTURES.rglob("*.py"))


@pytest.fixture
def no_collector():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _cyclic_garbage(texts: list[Path], settings: Settings) -> int:
    for path in texts:
        lint_python(path.read_text(encoding="utf-8"), str(path), settings)
        # once more in a longer module, so that the prefilter reduces it
        padding = "\n\ndef unrelated(a):\n    return a + 1\n" * 200
        lint_python(path.read_text(encoding="utf-8") + padding, str(path), settings)
    return gc.collect()


def test_linting_the_fixtures_leaves_no_cyclic_garbage(no_collector) -> None:
    assert len(TEXTS) > 200
    assert _cyclic_garbage(TEXTS, Settings()) == 0


def test_every_rule_leaves_no_cyclic_garbage(no_collector) -> None:
    from inplace_lint.rules import all_rules

    assert _cyclic_garbage(TEXTS[::5], Settings(enabled=frozenset(all_rules()))) == 0
