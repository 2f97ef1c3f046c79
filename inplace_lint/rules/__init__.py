"""Rule modules: one file per rule code. See ``base.py`` for the contract."""

from inplace_lint.rules.base import Example, Rule, all_rules

__all__ = ["Example", "Rule", "all_rules"]
