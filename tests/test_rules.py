"""Every rule's own examples are tests; its reference page is generated from it and must be current."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fixturelib import REPO_ROOT

from inplace_lint.api import lint_source
from inplace_lint.fixes import apply_edits
from inplace_lint.rules import all_rules
from inplace_lint.settings import Settings

RULES = all_rules()
INVALID = [(code, i, ex) for code, rule in RULES.items() for i, ex in enumerate(rule.INVALID)]
VALID = [(code, i, ex) for code, rule in RULES.items() for i, ex in enumerate(rule.VALID)]


def _settings(code: str) -> Settings:
    return Settings(enabled=frozenset({code}))


@pytest.mark.parametrize("code,i,example", INVALID, ids=[f"{c}-{i}" for c, i, _ in INVALID])
def test_invalid_example_is_flagged(code, i, example) -> None:
    diagnostics = [
        d for d in lint_source(example.code, "example.py", _settings(code)) if d.code == code
    ]
    assert diagnostics, f"{code} example {i} not flagged"
    if example.fixed is not None:
        fix = diagnostics[0].fix
        assert fix is not None, f"{code} example {i} promises a fix"
        assert apply_edits(example.code, fix.edits) == example.fixed


@pytest.mark.parametrize("code,i,example", VALID, ids=[f"{c}-{i}" for c, i, _ in VALID])
def test_valid_example_is_quiet(code, i, example) -> None:
    diagnostics = [
        d for d in lint_source(example.code, "example.py", _settings(code)) if d.code == code
    ]
    assert not diagnostics, [d.message for d in diagnostics]


def test_every_rule_is_documented_and_pages_are_current() -> None:
    for code, rule in RULES.items():
        assert rule.__doc__ and "## What it does" in rule.__doc__, code
        assert rule.summary and rule.name
    result = subprocess.run(
        [sys.executable, "scripts/gen_rule_docs.py", "--check"],
        cwd=REPO_ROOT,
        check=False,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout


def test_rule_with_a_fix_shows_one_in_an_example() -> None:
    for code, rule in RULES.items():
        if rule.fix_applicability == "safe" and rule.code[3] != "9":
            assert any(ex.fixed for ex in rule.INVALID), f"{code} claims a safe fix but shows none"


_ALIASED_FUNCTION = """
import torch
from torch.autograd import Function


class BNFunc(Function):
    @staticmethod
    def forward(ctx, x, {name}, momentum=0.1):
        mean = x.mean(0)
        {name}.mul_(1 - momentum).add_(momentum * mean)
        ctx.save_for_backward(x)
        return x - mean

    @staticmethod
    def backward(ctx, dz):
        return dz - dz.mean(0), None, None


bn = BNFunc.apply
"""


def test_function_only_aliased_is_judged_by_the_written_input() -> None:
    # XMem's syncbn: a Function the module never calls; its running-statistics input is a
    # buffer (quiet), any other input is reported, once for a chained write
    quiet = lint_source(_ALIASED_FUNCTION.format(name="running_mean"))
    assert [d.code for d in quiet] == []
    loud = lint_source(_ALIASED_FUNCTION.format(name="state"))
    assert [(d.code, d.span.start.row) for d in loud] == [("IPL106", 10)]
