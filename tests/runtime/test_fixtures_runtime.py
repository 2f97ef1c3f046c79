"""Every fixture, executed under its framework, behaves as its header declares (docs/fixtures.md)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fixturelib import FIXTURES_ROOT, fixture_paths, load_fixture  # noqa: E402

PATHS = fixture_paths()


@pytest.mark.parametrize("path", PATHS, ids=[str(p.relative_to(FIXTURES_ROOT)) for p in PATHS])
def test_fixture_runtime(path: Path, runner_pool) -> None:
    fx = load_fixture(path)
    # find_spec, not importorskip: the fixture runs in a runner process, so importing the
    # framework into every pytest worker would only cost time and memory.
    if importlib.util.find_spec(fx.framework) is None:
        pytest.skip(f"{fx.framework} is not installed")
    verdict = runner_pool.run(fx.path, fx.framework)
    details = [f"{fx.name} ({fx.outcome}): {fx.description}", *verdict["problems"]]
    if verdict.get("exception"):
        details.append(verdict["exception"]["traceback"])
    if verdict.get("output"):
        details.append("output:\n" + verdict["output"])
    assert verdict["passed"], "\n".join(details)
