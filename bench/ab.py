"""Compare the cold-run CPU of two builds of inplace-lint, run alternately on one tree.

    python bench/ab.py TREE REV_A REV_B [--rounds N] [--python PY]

Each REV is a git revision of this repository (or WORK for the working tree). Both builds are
exported to temporary folders and byte-compiled; then, for N rounds, each build lints TREE with an
empty cache (`python -m inplace_lint check TREE --cache-dir EMPTY`), the order alternating from
round to round (after one unmeasured run of each, which fills the build's compiled-code cache
as a user's first run after installing does: inplace_lint/codegen_cache.py). On a shared machine whose speed drifts by 10-20% within minutes, a difference of a
few percent between two builds is visible only this way: both see the same drift. Prints every
run's wall and CPU time (the process and its workers) and, per build, the median and the total.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import REPO, lint_command, measure


def export(rev: str, into: Path) -> dict:
    if rev == "WORK":
        shutil.copytree(
            REPO / "inplace_lint",
            into / "inplace_lint",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    else:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", rev, "inplace_lint"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    import compileall
    import os

    compileall.compile_dir(into / "inplace_lint", quiet=1)
    # each build's compiled dataclass methods (inplace_lint/codegen_cache.py), filled below
    return {
        **os.environ,
        "PYTHONPATH": str(into),
        "INPLACE_LINT_CODEGEN_CACHE": str(into / "codegen-cache"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("revs", nargs=2)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    builds = {}
    for rev in args.revs:
        folder = Path(tempfile.mkdtemp(prefix="inplace-lint-ab-"))
        builds[rev] = (export(rev, folder), folder)
    results: dict[str, list] = {rev: [] for rev in args.revs}
    try:
        for rev, (env, folder) in builds.items():  # not measured: as after installing, once run
            cache = Path(tempfile.mkdtemp(prefix="inplace-lint-ab-cache-"))
            measure(lint_command(args.python, args.tree, cache, None), cwd=folder, env=env)
            shutil.rmtree(cache, ignore_errors=True)
        for round_ in range(args.rounds):
            order = args.revs if round_ % 2 == 0 else args.revs[::-1]
            for rev in order:
                env, folder = builds[rev]
                cache = Path(tempfile.mkdtemp(prefix="inplace-lint-ab-cache-"))
                try:
                    cmd = lint_command(args.python, args.tree, cache, None)
                    result = measure(cmd, cwd=folder, env=env)
                finally:
                    shutil.rmtree(cache, ignore_errors=True)
                results[rev].append(result)
                print(
                    f"round {round_ + 1}  {rev:<12} wall {result.wall:7.2f} s   "
                    f"CPU {result.cpu:7.2f} s   exit {result.returncode}",
                    flush=True,
                )
    finally:
        for _, folder in builds.values():
            shutil.rmtree(folder, ignore_errors=True)
    for rev, runs in results.items():
        cpu = [r.cpu for r in runs]
        print(
            f"{rev:<12} median wall {statistics.median(r.wall for r in runs):7.2f} s   "
            f"median CPU {statistics.median(cpu):7.2f} s   total CPU {sum(cpu):8.2f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
