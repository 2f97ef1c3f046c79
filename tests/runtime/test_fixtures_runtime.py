"""Every fixture, executed under its framework, behaves as its header declares (docs/fixtures.md)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fixturelib import FIXTURES_ROOT, fixture_paths, load_fixture

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


# -- the judge itself: broken fixtures must fail ---------------------------------------------------

HEADER = (
    "# fixture: runner self-test\n# framework: torch\n# outcome: {outcome}\n\nimport torch\n\n\n"
)
FOOTER = '\n\nif __name__ == "__main__":\n    main()\n'
VERSION_BODY = """def main():
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid()
    z = y * 2{m1}
    y.add_(1){m2}
    z.sum().backward()
"""
SELF_TESTS = {
    "version-counter on the right line": (
        "error version-counter",
        VERSION_BODY.format(m1="", m2="  # fault; expect: IPL001"),
        True,
    ),
    "version-counter on a later, second write": (
        "error version-counter",
        VERSION_BODY.format(m1="", m2="\n    y.mul_(2)  # fault; expect: IPL001"),
        False,
    ),
    "version-counter on a line without an in-place op": (
        "error version-counter",
        VERSION_BODY.format(m1="  # fault; expect: IPL001", m2=""),
        False,
    ),
    "leaf raised elsewhere": (
        "error leaf",
        (
            "def main():\n    w = torch.ones(2, requires_grad=True)\n"
            "    v = w * 2  # fault; expect: IPL002\n    w.add_(1)\n"
        ),
        False,
    ),
    "wrong family": (
        "error view-of-leaf",
        "def main():\n    w = torch.ones(2, requires_grad=True)\n    w.add_(1)  # fault; expect: IPL003\n",
        False,
    ),
    "error fixture that runs": (
        "error leaf",
        "def main():\n    w = torch.ones(2)\n    w.add_(1)  # fault; expect: IPL002\n",
        False,
    ),
    "ok fixture that raises": (
        "ok",
        "def main():\n    torch.ones(2, requires_grad=True).add_(1)\n",
        False,
    ),
    "wrong_grad that agrees": (
        "wrong_grad",
        (
            "def buggy():\n    return torch.ones(2) * 2  # fault; expect: IPL101\n\n\n"
            "def reference():\n    return torch.ones(2) * 2\n\n\n"
            "def main():\n    print(buggy(), reference())\n"
        ),
        False,
    ),
    "wrong_grad with a reference that drifts between calls": (
        "wrong_grad",
        (
            "CALLS = []\n\n\ndef buggy():\n    return torch.zeros(2)  # fault; expect: IPL101\n\n\n"
            "def reference():\n    CALLS.append(1)\n    return torch.ones(2) * len(CALLS)\n\n\n"
            "def main():\n    print(buggy(), reference())\n"
        ),
        False,
    ),
    "wrong_grad that differs": (
        "wrong_grad",
        (
            "def buggy():\n    return [torch.ones(2), None]  # fault; expect: IPL101\n\n\n"
            "def reference():\n    return [torch.ones(2), torch.ones(1)]\n\n\n"
            "def main():\n    print(buggy(), reference())\n"
        ),
        True,
    ),
}


@pytest.mark.parametrize("case", SELF_TESTS)
def test_runner_judges(case, tmp_path, runner_pool) -> None:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed")
    outcome, body, should_pass = SELF_TESTS[case]
    prefix = {"error": "err_", "ok": "ok_", "wrong_grad": "wg_"}[outcome.split()[0]]
    path = tmp_path / f"{prefix}self_test.py"
    path.write_text(HEADER.format(outcome=outcome) + body + FOOTER)
    verdict = runner_pool.run(path, "torch")
    assert verdict["passed"] is should_pass, verdict["problems"]
