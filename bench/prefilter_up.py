"""How much of the prefilter's kept text is there only for callers ("up"), and how often would
leaving it out change the diagnostics? An upper bound for a two-phase prefilter.

    python bench/prefilter_up.py TREE

For every file the prefilter reduces, the text is built twice: as the prefilter builds it (seeds,
the units whose events a seed can change, everything those read) and without the "up" step (seeds
and what they read only). Both are linted with every rule; the script prints how many files give
the same diagnostics both ways and how many whitespace-separated tokens (a proxy for libcst's
parse cost, which follows tokens rather than bytes) each way keeps. Files that differ need their
callers; a two-phase prefilter would have to tell them apart before linting, so the tokens saved
in files that give the same diagnostics are the most such a design could save.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inplace_lint import prefilter
from inplace_lint.api import lint_source
from inplace_lint.rules import all_rules
from inplace_lint.settings import Settings

EVERY_RULE = Settings(enabled=frozenset(all_rules()))


def without_callers(text: str) -> str:
    module = prefilter._Module(ast.parse(text), local_names=":=" not in text)
    lines, _ = prefilter.reduced_lines(text, module, {u for u in module.units if u.seed})
    return "".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    args = parser.parse_args()
    same = differ = 0
    tokens_kept = tokens_seeds = tokens_saved_same = 0
    for path in sorted(args.tree.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        plan = prefilter.plan(text)
        if plan.kind != "reduced":
            continue
        reduced = without_callers(text)
        kept, seeds = len(plan.text.split()), len(reduced.split())
        tokens_kept += kept
        tokens_seeds += seeds
        if lint_source(plan.text, str(path), EVERY_RULE) == lint_source(
            reduced, str(path), EVERY_RULE
        ):
            same += 1
            tokens_saved_same += kept - seeds
        else:
            differ += 1
            print(f"needs its callers: {path.relative_to(args.tree)}")
    print(f"reduced files          {same + differ}: {same} same without callers, {differ} differ")
    print(
        f"tokens kept            {tokens_kept:,} (prefilter)   {tokens_seeds:,} (without callers)"
    )
    share = tokens_saved_same / tokens_kept if tokens_kept else 0.0
    print(f"saved where the same   {tokens_saved_same:,} tokens ({share:.0%} of the kept tokens)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
