"""Precision and recall of the linter over the runtime-confirmed fixtures, per rule and per tier.

    python scripts/eval_fixtures.py [--verbose]

A reported (line, code) that a fixture's markers expect is a true positive; one they do not expect
is a false positive; an expected one not reported is a false negative. The promise checks of
issue 3 are printed too: every `error` fixture has an error-severity diagnostic on its fault line,
no `ok` fixture has one, every `wrong_grad` fixture has a diagnostic on its fault line.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fixturelib import all_fixtures

from inplace_lint.api import lint_source
from inplace_lint.diagnostics import Severity
from inplace_lint.rules import all_rules


def evaluate(verbose: bool = False) -> int:
    tp: Counter[str] = Counter()
    fp: Counter[str] = Counter()
    fn: Counter[str] = Counter()
    promise_failures: list[str] = []
    fixtures = all_fixtures()
    for fixture in fixtures:
        diagnostics = lint_source(fixture.text, str(fixture.path))
        reported = {(d.span.start.row, d.code) for d in diagnostics}
        expected = {(line, code) for line, codes in fixture.expected.items() for code in codes}
        for line, code in reported & expected:
            tp[code] += 1
        for line, code in reported - expected:
            fp[code] += 1
            if verbose:
                print(f"FP {fixture.path.relative_to(ROOT)}:{line} {code}")
        for line, code in expected - reported:
            fn[code] += 1
            if verbose:
                print(f"FN {fixture.path.relative_to(ROOT)}:{line} {code}")
        errors_on_fault = [
            d
            for d in diagnostics
            if d.severity == Severity.ERROR
            and d.span.start.row == fixture.fault_line
            and d.code.startswith("IPL0")
        ]
        any_on_fault = [d for d in diagnostics if d.span.start.row == fixture.fault_line]
        kind = fixture.outcome.kind
        errors = [d for d in diagnostics if d.severity == Severity.ERROR]
        name = fixture.path.relative_to(ROOT)
        fault_lines = set(fixture.expected)
        if (
            kind == "error"
            and not errors_on_fault
            and not any(
                d.severity == Severity.ERROR and d.span.start.row in fault_lines
                for d in diagnostics
            )
        ):
            promise_failures.append(
                f"error fixture without an error diagnostic on its fault line: {name}"
            )
        if kind == "ok" and errors:
            promise_failures.append(
                f"ok fixture with an error diagnostic: {name}:{errors[0].span.start.row}"
            )
        if (
            kind == "wrong_grad"
            and not any_on_fault
            and not any(d.span.start.row in fault_lines for d in diagnostics)
        ):
            promise_failures.append(
                f"wrong_grad fixture without a diagnostic on its fault line: {name}"
            )

    rules = all_rules()
    print(f"{len(fixtures)} fixtures")
    print(f"{'rule':8} {'tier':7} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>9} {'recall':>7}")
    tiers: dict[str, Counter[str]] = {}
    for code in sorted(set(tp) | set(fp) | set(fn)):
        tier = rules[code].tier() if code in rules else "?"
        row = tiers.setdefault(tier, Counter())
        row["tp"] += tp[code]
        row["fp"] += fp[code]
        row["fn"] += fn[code]
        print(
            f"{code:8} {tier:7} {tp[code]:4} {fp[code]:4} {fn[code]:4} {_ratio(tp[code], fp[code]):>9} "
            f"{_ratio(tp[code], fn[code]):>7}"
        )
    for tier, row in sorted(tiers.items()):
        print(
            f"{'tier':8} {tier:7} {row['tp']:4} {row['fp']:4} {row['fn']:4} "
            f"{_ratio(row['tp'], row['fp']):>9} {_ratio(row['tp'], row['fn']):>7}"
        )
    for failure in promise_failures:
        print("PROMISE", failure)
    print(f"promise failures: {len(promise_failures)}")
    return 1 if promise_failures else 0


def _ratio(good: int, bad: int) -> str:
    return f"{good / (good + bad):.2f}" if good + bad else "-"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every false positive/negative")
    sys.exit(evaluate(parser.parse_args().verbose))
