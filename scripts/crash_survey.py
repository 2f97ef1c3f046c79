"""Run the linter over large released trees and count what must never happen.

    python scripts/crash_survey.py TREE [TREE ...] [--fix] [--jobs N] [--json OUT]

For every ``.py``/``.pyi`` file under each tree: read it (``sources.read_source``), lint it
(``api.lint_source``) with every rule enabled, and with ``--fix`` also fix it in memory
(``fixes.fix_text``, unsafe fixes included) and fix the result again. Nothing is written.

Counted per tree: files; crashes (an exception that escaped the library: lint_source promises
none); IPL903 internal errors, by rule; files over the per-file time limit; IPL901/IPL902/IPL904;
findings by code; with ``--fix``, files fixed, fixes applied, fix rounds dropped because the result
did not parse, and files a second fix run still changed (not idempotent). Exit status 1 when there
is any crash, internal error, timeout, dropped fix or non-idempotent fix.

The trees are downloaded releases (see docs/robustness.md); never commit them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
import traceback
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from inplace_lint.api import lint_source
from inplace_lint.fixes import fix_text
from inplace_lint.rules import all_rules
from inplace_lint.settings import Settings
from inplace_lint.sources import SourceError, read_source

SUFFIXES = (".py", ".pyi")


@dataclass
class FileReport:
    path: str
    seconds: float = 0.0
    codes: dict[str, int] = field(default_factory=dict)
    crash: str | None = None  # traceback of an exception that escaped the library
    timeout: bool = False  # over the library's time budget (IPL904, max-file-seconds)
    internal_errors: list[str] = field(default_factory=list)  # the IPL903 messages
    fixes_applied: int = 0
    fix_error: str | None = None
    not_idempotent: bool = False


def survey_file(args: tuple[str, bool, float]) -> FileReport:
    path, fix, limit = args
    report = FileReport(path)
    settings = Settings(enabled=frozenset(all_rules()), options={"max-file-seconds": limit})
    start = time.perf_counter()
    try:
        _survey(path, fix, settings, report)
    except Exception:  # noqa: BLE001 - that is what this script counts
        report.crash = traceback.format_exc()
    report.seconds = time.perf_counter() - start
    return report


def _survey(path: str, fix: bool, settings: Settings, report: FileReport) -> None:
    try:
        source = read_source(path, max_bytes=None)
    except SourceError as error:
        report.codes[error.code] = 1
        return
    diagnostics = lint_source(source.text, path, settings)
    report.codes = dict(Counter(d.code for d in diagnostics))
    report.internal_errors = [d.message for d in diagnostics if d.code == "IPL903"]
    report.timeout = any("max-file-seconds" in d.message for d in diagnostics)
    if not fix or not any(d.fix for d in diagnostics):
        return
    outcome = fix_text(source.text, path, settings, unsafe=True)
    report.fixes_applied = len(outcome.applied)
    report.fix_error = outcome.error
    if outcome.text != source.text:
        again = fix_text(outcome.text, path, settings, unsafe=True)
        report.not_idempotent = again.text != outcome.text


def python_files(tree: Path) -> list[str]:
    if tree.is_file():
        return [str(tree)]
    found = []
    for directory, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(SUFFIXES))
    return found


def summarise(tree: str, reports: list[FileReport], fix: bool) -> dict:
    codes: Counter = Counter()
    internal: Counter = Counter()
    for report in reports:
        codes.update(report.codes)
        internal.update(m.split(" on ", 1)[0] for m in report.internal_errors)
    summary = {
        "tree": tree,
        "files": len(reports),
        "crashes": sum(r.crash is not None for r in reports),
        "internal_errors": codes["IPL903"],
        "internal_errors_by_source": dict(internal),
        "timeouts": sum(r.timeout for r in reports),
        "syntax_errors": codes["IPL901"],
        "unreadable": codes["IPL902"],
        "skipped_over_budget": codes["IPL904"] - sum(r.timeout for r in reports),
        "findings": {c: n for c, n in sorted(codes.items()) if not c.startswith("IPL9")},
        "seconds": round(sum(r.seconds for r in reports), 1),
        "slowest": [
            (r.path, round(r.seconds, 2)) for r in sorted(reports, key=lambda r: -r.seconds)[:5]
        ],
    }
    if fix:
        summary["files_fixed"] = sum(r.fixes_applied > 0 for r in reports)
        summary["fixes_applied"] = sum(r.fixes_applied for r in reports)
        summary["fix_dropped"] = sum(r.fix_error is not None for r in reports)
        summary["fix_not_idempotent"] = sum(r.not_idempotent for r in reports)
    return summary


def failures(summary: dict) -> int:
    keys = ("crashes", "internal_errors", "timeouts", "fix_dropped", "fix_not_idempotent")
    return sum(summary.get(k, 0) for k in keys)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--fix", action="store_true", help="also fix in memory, twice")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="max-file-seconds for every file (0: none)"
    )
    parser.add_argument("--json", type=Path, help="write every file's report here")
    args = parser.parse_args(argv)

    summaries, details = [], {}
    for tree in args.trees:
        files = python_files(tree)
        work = [(f, args.fix, args.timeout) for f in files]
        if args.jobs > 1:
            with multiprocessing.Pool(args.jobs) as pool:
                reports = list(pool.imap_unordered(survey_file, work, chunksize=4))
        else:
            reports = [survey_file(w) for w in work]
        reports.sort(key=lambda r: r.path)
        summary = summarise(str(tree), reports, args.fix)
        summaries.append(summary)
        details[str(tree)] = [asdict(r) for r in reports]
        print(json.dumps(summary, indent=2), flush=True)
        for report in reports:
            problem = report.crash or (report.timeout and "timeout") or report.internal_errors
            problem = problem or report.fix_error or (report.not_idempotent and "not idempotent")
            if problem:
                print(f"--- {report.path}\n{problem}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({"summaries": summaries, "files": details}, indent=1))
    total = sum(failures(s) for s in summaries)
    print(f"TOTAL files={sum(s['files'] for s in summaries)} problems={total}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
