"""What a two-phase prefilter would parse: analyse first without the callers of writers ("up"),
then again with them only for files whose first analysis shows something a caller could change.

    python bench/prefilter_two_phase.py TREE

The first phase keeps the seeds, the users of attributes built with in-place syntax (the forward
that calls `self.relu`: that call is the write) and everything those read; it leaves out the
callers of writing functions, methods and local modules. A file needs the second phase when its
first analysis has a finding (any rule: a caller's `no_grad` may silence it), a write with a
save or in a method nothing calls (a caller may make it count), a write into an argument or a
parameter (callers replay it), or a returned module (callers call it). That test is looser than
a proof, and still sends many files to the second phase; the script prints how many, and the
tokens (whitespace-separated, a proxy for libcst's parse cost) each design would parse: today's
prefilter, the first phase, the first phase plus the second for the files that need it, and the
same if the second phase could parse only the callers it adds (the best case). It
also names any file whose diagnostics differ without callers although the test let it through
(the test would be unsound there). Measured in session 12: docs/performance.md.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inplace_lint import fastcst, prefilter
from inplace_lint.analysis.dataflow import ModuleDataflow
from inplace_lint.analysis.index import build_index
from inplace_lint.api import lint_source
from inplace_lint.rules import all_rules
from inplace_lint.settings import Settings

EVERY_RULE = Settings(enabled=frozenset(all_rules()))


def first_phase_writers(module: prefilter._Module) -> set:
    """``prefilter._writers`` without its callers: seeds, and users of in-place attributes."""
    writers = {u for u in module.units if u.seed}
    aliases = module.aliases()
    while True:
        hot: set[str] = set()
        for unit in writers:
            if unit.kind == "function":
                hot.add(unit.name)
            elif unit.kind == "method" and unit.name in prefilter.MODULE_ENTRY_METHODS:
                hot.add(unit.owner.name)
        for targets, names in aliases:
            if not names.isdisjoint(hot):
                hot |= targets
        hot_attributes = {
            name
            for classes in module.classes.values()
            for cls in classes
            for targets, seed, names in cls.assigns
            if seed or not names.isdisjoint(hot)
            for name in targets
        }
        added = [
            u
            for u in module.units
            if u not in writers and u.kind != "class" and not u.attrs.isdisjoint(hot_attributes)
        ]
        if not added:
            return writers
        writers.update(added)


def first_phase_text(text: str) -> str:
    module = prefilter._Module(ast.parse(text), local_names=":=" not in text)
    lines, _ = prefilter.reduced_lines(text, module, first_phase_writers(module))
    return "".join(lines)


def callers_could_change(text: str, path: str) -> list[str]:
    why = []
    if lint_source(text, path, EVERY_RULE):
        why.append("a finding")
    module = fastcst.parse_module(text)
    index = build_index(module)
    if not index.frameworks:
        return why
    for result in ModuleDataflow(module, index).run():
        summary = result.summary
        if any(w.saves or w.speculative for w in result.writes):
            why.append("a write with a save, or in a method nothing calls")
        if (
            summary.param_writes
            or summary.grad_off_params
            or summary.self_param_writes
            or summary.param_graph_saves
        ):
            why.append("a write into an argument or a parameter")
        if summary.returned is not None:
            why.append("a returned module")
        if result.out_calls or result.rebinds or result.reuses or result.function_issues:
            why.append("another event")
        if result.adjacency:
            why.append("another event")
    return why


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    args = parser.parse_args()
    files = second = 0
    today = first = again = added = 0
    reasons: Counter[str] = Counter()
    for path in sorted(args.tree.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        plan = prefilter.plan(text)
        if plan.kind != "reduced":
            continue
        files += 1
        reduced = first_phase_text(text)
        kept = len(plan.text.split())
        today += kept
        first += len(reduced.split())
        why = callers_could_change(reduced, str(path))
        if why:
            second += 1
            again += kept
            added += kept - len(reduced.split())
            reasons.update(set(why))
        elif lint_source(plan.text, str(path), EVERY_RULE) != lint_source(
            reduced, str(path), EVERY_RULE
        ):
            print(f"differs without callers, not caught by the test: {path}")
    print(f"reduced files        {files}, of which {second} need the second phase")
    print(f"tokens, today        {today:,}")
    print(f"tokens, first phase  {first:,} ({first / max(today, 1):.0%})")
    print(f"tokens, both phases  {first + again:,} ({(first + again) / max(today, 1):.0%})")
    print(
        f"tokens, both phases if the second parsed only the callers it adds: {first + added:,} "
        f"({(first + added) / max(today, 1):.0%})"
    )
    for reason, count in reasons.most_common():
        print(f"  {count:4d} files: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
