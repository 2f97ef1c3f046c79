"""Render every rule's reference page into rules/<CODE>.md from the rule class itself.

    python scripts/gen_rule_docs.py          # write the pages
    python scripts/gen_rule_docs.py --check  # exit 1 if a page is out of date (tests run this)

The page is the rule's docstring plus its metadata and its VALID / INVALID examples, so code and
documentation cannot drift.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inplace_lint.rules import all_rules

RULES_DIR = ROOT / "rules"


def render(rule) -> str:
    tier = {
        "error": "error (the code raises)",
        "silent": "warning (silently wrong)",
        "risky": "warning (risky)" if rule.default_enabled else "warning (risky; off by default)",
        "meta": "meta",
    }[rule.tier()]
    lines = [
        f"# {rule.code} {rule.name}",
        "",
        f"{rule.summary}.",
        "",
        f"- Severity: {rule.severity.label}; tier: {tier}",
        f"- Framework: {rule.framework or 'any'}",
        f"- Enabled by default: {'yes' if rule.default_enabled else 'no'}",
        f"- Fix: {rule.fix_applicability or 'none'}",
        "",
        inspect.cleandoc(rule.__doc__ or "").strip(),
        "",
    ]
    if rule.INVALID:
        lines += ["## Flagged (tested)", ""]
        for example in rule.INVALID:
            lines += ["```python", example.code.rstrip(), "```", ""]
            if example.fixed:
                lines += ["After the fix:", "", "```python", example.fixed.rstrip(), "```", ""]
    if rule.VALID:
        lines += ["## Not flagged (tested)", ""]
        for example in rule.VALID:
            lines += ["```python", example.code.rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def index(rules) -> str:
    lines = ["# Rules", "", "| code | name | severity | summary |", "|---|---|---|---|"]
    for code, rule in rules.items():
        lines.append(
            f"| [{code}]({code}.md) | {rule.name} | {rule.severity.label} | {rule.summary} |"
        )
    return "\n".join(lines) + "\n"


def pages() -> dict[Path, str]:
    rules = all_rules()
    out = {RULES_DIR / f"{code}.md": render(rule) for code, rule in rules.items()}
    out[RULES_DIR / "README.md"] = index(rules)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    stale = []
    for path, text in pages().items():
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
    if stale:
        print("out of date:", ", ".join(stale), "- run python scripts/gen_rule_docs.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
