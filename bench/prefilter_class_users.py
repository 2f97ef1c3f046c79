"""How much of the prefilter's kept text is there because a unit names a local module class whose
``forward`` writes (a model builder: ``def resnet50(...): return _resnet(Bottleneck, ...)``), and
would leaving those units out change the diagnostics? An upper bound, not a design.

    python bench/prefilter_class_users.py TREE [TREE ...]

For every file the prefilter reduces, the text is built twice: as the prefilter builds it, and
with a ``_writers`` in which naming such a class does not make a unit a writer (attributes built
from it in ``__init__`` still do). Both are linted with every rule; the script prints the
whitespace-separated tokens each way (a proxy for libcst's parse cost) and the files whose
diagnostics differ. Measured in session 13: docs/performance.md.
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


def writers_without_class_users(module: prefilter._Module) -> set:
    """``prefilter._writers``, except that a unit naming a hot class is not added for that."""
    writers = {u for u in module.units if u.seed}
    aliases = module.aliases()
    while True:
        hot: set[str] = set()
        hot_classes: set[str] = set()
        hot_methods = []
        for unit in writers:
            if unit.kind == "function":
                hot.add(unit.name)
            elif unit.kind == "method":
                hot_methods.append(unit)
                if unit.name in prefilter.MODULE_ENTRY_METHODS:
                    hot_classes.add(unit.owner.name)
        for targets, names in aliases:
            if not names.isdisjoint(hot | hot_classes):
                hot |= targets
        hot_attributes = {
            name
            for classes in module.classes.values()
            for cls in classes
            for targets, seed, names in cls.assigns
            if seed or not names.isdisjoint(hot | hot_classes)
            for name in targets
        }
        added = [
            u
            for u in module.units
            if u not in writers
            and u.kind != "class"
            and (
                not u.names.isdisjoint(hot)
                or not u.attrs.isdisjoint(hot_attributes)
                or any(prefilter._may_call(u, m) for m in hot_methods)
            )
        ]
        if not added:
            return writers
        writers.update(added)


def text_without_class_users(text: str) -> str:
    module = prefilter._Module(ast.parse(text), local_names=":=" not in text)
    lines, _ = prefilter.reduced_lines(text, module, writers_without_class_users(module))
    return "".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", type=Path, nargs="+")
    args = parser.parse_args()
    kept = without = files = 0
    differ: list[str] = []
    for tree in args.trees:
        for path in sorted(tree.rglob("*.py")):
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            plan = prefilter.plan(text)
            if plan.kind != "reduced":
                continue
            files += 1
            reduced = text_without_class_users(text)
            kept += len(plan.text.split())
            without += len(reduced.split())
            if reduced != plan.text and lint_source(
                plan.text, str(path), EVERY_RULE
            ) != lint_source(reduced, str(path), EVERY_RULE):
                differ.append(str(path))
    share = (kept - without) / kept if kept else 0.0
    print(f"reduced files   {files}")
    print(
        f"tokens kept     {kept:,} (prefilter)   {without:,} without class users ({share:.1%} less)"
    )
    print(f"files differ    {len(differ)}")
    for path in differ[:40]:
        print(f"  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
