"""Print how many fixtures there are and their outcome mix, by framework and family.

python scripts/fixture_stats.py [FIXTURES_ROOT]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fixturelib import FIXTURES_ROOT, FRAMEWORKS, all_fixtures

KINDS = ("error", "ok", "wrong_grad")


def report(root: Path) -> str:
    fixtures = all_fixtures(root)
    kinds = Counter(fx.outcome.kind for fx in fixtures)
    lines = [
        f"{len(fixtures)} fixtures: " + ", ".join(f"{kinds[k]} {k}" for k in KINDS),
        "",
        f"{'framework':<10} {'outcome':<32} {'count':>5}",
    ]
    for framework in FRAMEWORKS:
        mine = [fx for fx in fixtures if fx.framework == framework]
        outcomes = Counter(str(fx.outcome) for fx in mine)
        for outcome, count in sorted(outcomes.items()):
            lines.append(f"{framework:<10} {outcome:<32} {count:>5}")
        lines.append(f"{framework:<10} {'(all)':<32} {len(mine):>5}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(Path(sys.argv[1]) if len(sys.argv) > 1 else FIXTURES_ROOT))
