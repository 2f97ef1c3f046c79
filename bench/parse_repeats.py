"""How much of a worker's kept text is a piece it parsed before (inplace_lint/piecewise.py), and
whether the piece-by-piece parse gives libcst's tree.

    python bench/parse_repeats.py TREE [--workers N] [--verify]

The files are dealt to N workers (default 2) as the pool deals them (runner._batches: a folder's
files together, the runs largest first, each run to the worker with less work so far) and, for
comparison, one by one, largest first. For each way the script prints the characters of piece
text parsed and the share found in the worker's cache (unbounded here; the real cache holds
``piecewise._CACHE_CHARS``). ``--verify`` parses every reduced text both ways, in this one
process, and counts the files whose trees differ (``deep_equals`` and the printed code) and the
CPU time of each way.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inplace_lint import fastcst, piecewise, prefilter, runner


def plans(tree: Path) -> dict[str, prefilter.Plan]:
    found = {}
    for path in sorted(tree.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        plan = prefilter.plan(text)
        if plan.kind == "reduced":
            found[str(path)] = plan
    return found


def repeats(order: list[list[str]], found: dict, workers: int) -> tuple[int, int]:
    """(piece characters, characters found parsed before by the same worker)."""
    seen: list[set] = [set() for _ in range(workers)]
    load = [0] * workers
    total = again = 0
    original = piecewise._parse_piece

    for batch in order:
        worker = load.index(min(load))
        load[worker] += sum(len(found[p].text) for p in batch if p in found)

        def spy(
            lines, first, last, in_class, is_first, used, settings, placeholder="", worker=worker
        ):
            nonlocal total, again
            start = first if is_first else first + piecewise._blank_rows(lines, first)
            key = ("".join(lines[start : last + 1]), in_class)
            total += len(key[0])
            if key in seen[worker]:
                again += len(key[0])
            seen[worker].add(key)
            return original(lines, first, last, in_class, is_first, used, settings, placeholder)

        piecewise._parse_piece = spy
        try:
            for path in batch:
                if path in found:
                    plan = found[path]
                    piecewise._assemble(plan.text, plan.layout)
        finally:
            piecewise._parse_piece = original
    return total, again


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--verify", action="store_true")
    args = parser.parse_args()
    runner._WORKER.speed_up = True
    runner._speed_up_in_process()
    found = plans(args.tree)
    paths = sorted((str(p) for p in args.tree.rglob("*.py")), key=lambda p: -Path(p).stat().st_size)
    tasks = [runner._Task(i, p, 0, Path(p).stat().st_size) for i, p in enumerate(paths)]
    total_bytes = sum(t.size for t in tasks)
    folder_bytes = min(runner._FOLDER_BYTES, total_bytes // (args.workers * 8))
    ways = {
        "one by one": [[p] for p in paths],
        f"by folder (runs up to {folder_bytes:,} bytes)": [
            [t.path for t in batch] for batch in runner._batches(tasks, folder_bytes)
        ],
    }
    print(f"tree {args.tree}: {len(found)} reduced texts, {args.workers} workers")
    for name, order in ways.items():
        total, again = repeats(order, found, args.workers)
        print(f"dealt {name:40s} piece text {total:12,} chars, parsed before {again / total:.1%}")
    if args.verify:
        piecewise.clear()
        differ = 0
        whole_s = pieces_s = 0.0
        for path, plan in found.items():
            t0 = time.process_time()
            whole = fastcst.parse_module(plan.text)
            t1 = time.process_time()
            piecewise.hint(plan.text, plan.layout)
            pieces = piecewise.parse_module(plan.text)
            t2 = time.process_time()
            whole_s += t1 - t0
            pieces_s += t2 - t1
            if not (whole.deep_equals(pieces) and pieces.code == plan.text):
                differ += 1
                print("differs:", path)
        print(
            f"verify: {differ} of {len(found)} trees differ; CPU whole {whole_s:.2f} s, "
            f"by pieces {pieces_s:.2f} s (one process: every file shares one cache)"
        )


if __name__ == "__main__":
    main()
