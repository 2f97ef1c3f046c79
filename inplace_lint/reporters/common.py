"""What every format needs: where a diagnostic is (notebook cells included), in what order, and
the summary lines the text formats end with."""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from inplace_lint.diagnostics import Diagnostic, Position
from inplace_lint.results import FileResult


@dataclass
class ReportContext:
    cwd: Path = field(default_factory=Path.cwd)
    unsafe_fixes: bool = False  # --unsafe-fixes: unsafe fixes count as applicable
    show_fixes: bool = False
    color: bool = False
    verbose: bool = False


@dataclass(frozen=True)
class Located:
    """A position as users read it: in a notebook, the cell and the row inside it."""

    row: int
    column: int
    cell: int | None = None

    @property
    def text(self) -> str:
        prefix = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{prefix}{self.row}:{self.column}"


def locate(result: FileResult, position: Position) -> Located:
    if result.cell_map is None:
        return Located(position.row, position.column)
    cell, row = result.cell_map.locate(position.row)
    return Located(row, position.column, cell)


def file_line(result: FileResult, position: Position) -> int:
    """The line in the file on disk: the row itself, or for a notebook the JSON line."""
    if result.cell_map is None:
        return position.row
    return result.cell_map.file_line(position.row)


def diagnostics(results: list[FileResult]) -> Iterator[tuple[FileResult, Diagnostic]]:
    """Every diagnostic, ordered by (path, row, column, code) whatever order the results came in."""
    for result in sorted(results, key=lambda r: r.path):
        for diag in sorted(result.diagnostics, key=lambda d: d.sort_key):
            yield result, diag


def text_of(result: FileResult) -> str:
    """The text the diagnostics' positions refer to."""
    return (result.fixed_source if result.fixed_source is not None else result.source) or ""


def absolute(path: str, cwd: Path) -> str:
    if path in ("-", "<stdin>"):
        return path
    return os.path.normpath(cwd / path)


def relative(path: str, cwd: Path) -> str:
    if path in ("-", "<stdin>"):
        return path
    full = Path(absolute(path, cwd))
    try:
        return full.relative_to(cwd).as_posix()
    except ValueError:
        return full.as_posix()


def applicable(diag: Diagnostic, context: ReportContext) -> bool:
    return diag.fix is not None and (diag.fix.is_safe or context.unsafe_fixes)


def rule_url(code: str) -> str | None:
    """The rule's page, when the package says where its documentation lives."""
    base = _docs_base()
    return f"{base.rstrip('/')}/rules/{code}.md" if base else None


_docs_cache: list[str | None] = []


def _docs_base() -> str | None:
    if not _docs_cache:
        base = None
        try:
            from importlib.metadata import metadata

            for entry in metadata("inplace-lint").get_all("Project-URL") or []:
                label, _, url = entry.partition(",")
                if label.strip().lower() in ("repository", "source", "homepage"):
                    base = url.strip()
                    if "github.com" in base:
                        base += "/blob/main"
                    break
        except Exception:  # noqa: BLE001 - no metadata (running from a source tree)
            base = None
        _docs_cache.append(base)
    return _docs_cache[0]


def fingerprint(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def occurrence_fingerprints(results: list[FileResult]) -> dict[int, str]:
    """A stable fingerprint per diagnostic, unique per occurrence: rule, file and the stripped
    line text, plus how many identical ones came before it in the file (so two `x += 1` on the
    same kind of line differ). Keyed by ``id(diagnostic)``."""
    out: dict[int, str] = {}
    for result in results:
        lines = text_of(result).splitlines()
        seen: Counter[tuple[str, str]] = Counter()
        for diag in sorted(result.diagnostics, key=lambda d: d.sort_key):
            row = diag.span.start.row
            line = lines[row - 1].strip() if 0 < row <= len(lines) else ""
            key = (diag.code, line)
            out[id(diag)] = fingerprint(diag.code, result.path, line, str(seen[key]))
            seen[key] += 1
    return out


def plural(count: int, word: str) -> str:
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word}{'es' if word.endswith(('x', 's')) else 's'}"


def summary(results: list[FileResult], context: ReportContext) -> list[str]:
    """ruff's closing lines: `Found N errors.` and what `--fix` would do."""
    remaining = [d for r in results for d in r.diagnostics]
    fixed = sum(r.fixes_applied for r in results)
    lines: list[str] = []
    if not remaining and not fixed:
        return ["All checks passed!"]
    if fixed:
        total = len(remaining) + fixed
        lines.append(f"Found {plural(total, 'error')} ({fixed} fixed, {len(remaining)} remaining).")
    else:
        lines.append(f"Found {plural(len(remaining), 'error')}.")
    fixable = sum(1 for d in remaining if applicable(d, context))
    hidden = sum(1 for d in remaining if d.fix is not None and not applicable(d, context))
    hidden_text = f"{plural(hidden, 'unsafe fix')} available with `--fix --unsafe-fixes`"
    if fixable:
        option = "`--fix --unsafe-fixes`" if context.unsafe_fixes else "`--fix`"
        tail = f" ({hidden_text})" if hidden else ""
        lines.append(f"[*] {fixable} fixable with {option}{tail}.")
    elif hidden:
        lines.append(hidden_text[0].upper() + hidden_text[1:] + ".")
    return lines


def fixed_lines(results: list[FileResult]) -> list[str]:
    """`--show-fixes`: what each file had fixed, by rule."""
    fixed = [r for r in sorted(results, key=lambda r: r.path) if r.fixed_diagnostics]
    if not fixed:
        return []
    total = sum(len(r.fixed_diagnostics) for r in fixed)
    lines = ["", f"Fixed {plural(total, 'error')}:"]
    for result in fixed:
        lines.append(f"- {result.path}:")
        counts = Counter((d.code, d.name) for d in result.fixed_diagnostics)
        for (code, name), count in sorted(counts.items()):
            lines.append(f"    {count} × {code} ({name})")
    return lines
