"""Lint released trees with the default rules and list every diagnostic, grouped by severity.

    python scripts/real_repos.py TREE [TREE ...] [--select ALL]

Used for the precision check of issue 3: released code that runs must get zero error-severity
diagnostics; every warning is listed for a verdict. Trees come from the package registry, e.g.
`pip download --no-deps timm==1.0.31 torchvision==0.29.2 paddleclas==2.6.0 -d /tmp/trees`
(unzip the wheels) and the transformers 5.23.0 sdist. Keep them out of the repo.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from inplace_lint.api import lint_source
from inplace_lint.settings import Settings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--select", default=None, help="comma list of codes/prefixes, or ALL")
    args = parser.parse_args()
    settings = Settings()
    if args.select:
        from inplace_lint.rules import all_rules

        prefixes = args.select.split(",")
        settings = Settings(
            enabled=frozenset(
                c
                for c in all_rules()
                if args.select == "ALL" or any(c.startswith(p) for p in prefixes)
            )
        )
    totals: Counter[str] = Counter()
    files = 0
    start = time.perf_counter()
    for tree in args.trees:
        for path in sorted(tree.rglob("*.py")):
            files += 1
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if "torch" not in text and "paddle" not in text:
                continue
            for d in lint_source(text, str(path), settings):
                totals[d.severity.label] += 1
                totals[d.code] += 1
                print(
                    f"{d.severity.label.upper():7} {path}:{d.span.start.row}:{d.span.start.column}: "
                    f"{d.code} {d.message}"
                )
    print(f"files: {files}; {dict(sorted(totals.items()))}; {time.perf_counter() - start:.1f}s")
    return 1 if totals["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
