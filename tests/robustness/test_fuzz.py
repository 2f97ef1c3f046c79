"""A bounded run of ``scripts/fuzz.py`` (50 examples of each kind, derandomised so CI is
reproducible), and a replay of every program the fuzzer ever saved as a regression fixture.

The long, random run is the script: ``python scripts/fuzz.py --examples 2000``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

ROOT = Path(__file__).resolve().parent.parent.parent
_spec = importlib.util.spec_from_file_location("fuzz", ROOT / "scripts" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

BOUNDED = settings(
    max_examples=50,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
    phases=fuzz.FUZZ_PHASES,
)


@pytest.mark.parametrize("kind", fuzz.KINDS)
def test_bounded_fuzz(kind):
    @BOUNDED
    @given(fuzz.programs(kind))
    def check(source: str) -> None:
        assert fuzz.problems(source) == []

    check()


# Saved programs whose problem is known and not yet fixed, with the reason; strict, so that the
# entry goes when the fix lands.
KNOWN_OPEN: dict[str, str] = {}
SAVED = sorted(fuzz.REGRESSIONS.glob("fuzz_*.py.txt"))


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=KNOWN_OPEN[p.name]))
        if p.name in KNOWN_OPEN
        else p
        for p in SAVED
    ],
    ids=[p.name for p in SAVED],
)
def test_saved_fuzz_regressions(path):
    # Each file is a program the fuzzer once failed on (``fuzz.save_regression``).
    source = path.read_bytes().decode("utf-8", "surrogatepass")
    assert fuzz.problems(source) == []


def test_hand_written_regressions():
    # Inputs found while writing the nesting guards: each crashed, hung or errored once.
    for source in (
        "z = " + "lambda: " * 8000 + "x\n",  # libcst native stack overflow
        "z = x" + " ** x" * 8000 + "\n",  # the same, right-associative
        "z = " + "f(" * 1000 + "x" + ")" * 1000 + "\n",  # half a minute in libcst
        "z = x" + ".t()" * 1000 + "\n",  # quadratic trailer chain
        "\x0cdef g():\n    return f(1)\n",  # libcst positions off by one after a form feed
        "x = 1\ry = f(2)\r",  # lone CR line endings
    ):
        assert fuzz.problems(source) == []


def test_libcst_failing_on_valid_code_is_reported_not_counted():
    from inplace_lint.api import lint_source

    [diag] = lint_source("() if 0 else(lambda:())\n", "t.py")  # Instagram/LibCST#1061
    assert diag.code == "IPL903" and fuzz.is_libcst_limitation(diag.message)
    assert fuzz.problems("() if 0 else(lambda:())\n") == []
