"""An upper bound on what a better seed test could save: keep only the seeds whose analysis
reports any event.

    python bench/prefilter_seed_oracle.py TREE

For every file the prefilter reduces, the reduced text is analysed; a seed unit (a function or
method holding in-place syntax) whose analysis records no event at all (no write, `out=` call,
rebind, reuse or custom-Function issue under its name) is taken to be unproductive. The file is
then reduced again as if those units held no in-place syntax, and the script prints the kept
tokens (whitespace-separated, a proxy for libcst's parse cost) both ways. No test the triage
can run before libcst is better than this oracle, which knows the analysis' answer; the
difference is the most any cheaper seed test could take off the parse and the analysis.
Measured in session 26: docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import libcst as cst

from inplace_lint import prefilter
from inplace_lint.analysis.engine import build_analysis


def unit_key(unit) -> str:
    return f"{unit.owner.name}.{unit.name}" if unit.kind == "method" else unit.name


def tokens(text: str, module) -> int:
    if not any(u.seed for u in module.units):
        return 0
    lines, _ = prefilter.reduced_lines(text, module, prefilter._writers(module))
    return len("".join(lines).split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    args = parser.parse_args()
    files = kept = oracle = dropped = seeds = 0
    for path in sorted(args.tree.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if not prefilter.mentions_framework(text):
            continue
        tree = prefilter._parse(text)
        if tree is None:
            continue
        local = ":=" not in text
        module = prefilter._Module(tree, local_names=local)
        if not any(u.seed for u in module.units):
            continue
        lines, _ = prefilter.reduced_lines(text, module, prefilter._writers(module))
        reduced = "".join(lines)
        analysis = build_analysis(cst.parse_module(reduced))
        active = {
            event.function
            for events in (
                analysis.writes,
                analysis.out_calls,
                analysis.rebinds,
                analysis.reuses,
                analysis.function_issues,
            )
            for event in events
        }
        active_classes = {name.split(".", 1)[0] for name in active if "." in name}
        again = prefilter._Module(tree, local_names=local)
        for unit, twin in zip(module.units, again.units):
            twin.seed = unit.seed
            if unit.seed and unit.kind in ("function", "method"):
                seeds += 1
                if unit_key(unit) not in active and not (
                    # a constructor's `nn.ReLU(inplace=True)` writes when `forward` calls it:
                    # the event is recorded under `forward`'s name
                    unit.kind == "method" and unit.owner.name in active_classes
                ):
                    twin.seed = False
                    dropped += 1
        files += 1
        kept += len(reduced.split())
        oracle += tokens(text, again)
    print(f"files reduced      {files}")
    print(f"seed functions     {seeds}, {dropped} with no event")
    print(f"kept tokens        {kept:,} today")
    print(
        f"                   {oracle:,} with only the productive seeds "
        f"({100 * (1 - oracle / max(kept, 1)):.1f}% less)"
    )


if __name__ == "__main__":
    main()
