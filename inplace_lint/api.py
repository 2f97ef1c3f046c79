"""The library API under the CLI, the language server and the flake8 plugin.

``lint_source`` is the whole per-file pipeline on text: parse once, analyse, turn findings into
diagnostics, apply suppressions. Everything that reads files, caches or runs in parallel lives
above it.
"""

from __future__ import annotations

import ast
import itertools
import os
import queue
import re
import sys
import threading
import traceback
import warnings
from dataclasses import replace

import libcst as cst
from libcst.metadata import CodeRange

from inplace_lint import piecewise
from inplace_lint.analysis.findings import Finding
from inplace_lint.diagnostics import Diagnostic, Edit, Fix, Position, Related, Severity, Span
from inplace_lint.positions import LazyPositions
from inplace_lint.rules import all_rules
from inplace_lint.settings import DEFAULT_SETTINGS, Settings
from inplace_lint.sources import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES


def lint_source(
    source: str, filename: str = "<stdin>", settings: Settings = DEFAULT_SETTINGS
) -> list[Diagnostic]:
    """Lint one file's text. Never raises for any input text.

    Whatever goes wrong becomes a meta diagnostic for this file: IPL901 when it does not parse,
    IPL903 when our code raised (the traceback is in ``detail``), IPL904 when it is over the size
    budget or nested deeper than the analysis can follow.
    """
    if "\r" in source:
        # Python reads a lone CR as a line break; libcst and parts of the pipeline count rows by
        # "\n". One LF for each lone CR keeps every row and column where it was.
        source = _LONE_CR.sub("\n", source)
    diagnostics = _lint_within_budget(source, filename, settings)
    from inplace_lint.suppressions import apply_suppressions

    try:
        diagnostics = apply_suppressions(source, diagnostics, settings)
    except Exception as error:  # noqa: BLE001 - keep the unsuppressed diagnostics, say why
        diagnostics = [
            *diagnostics,
            *_only(_internal_error("suppressions", filename, error, settings)),
        ]
    return sorted(diagnostics, key=lambda d: d.sort_key)


_LONE_CR = re.compile(r"\r(?!\n)")
_WHITESPACE = re.compile(r"\s+")


class _TooDeep(Exception):
    """The file is nested deeper than the Python stack allowed; worth one try on a deeper one."""


def _lint_guarded(
    source: str, filename: str, settings: Settings, deep: bool = False
) -> list[Diagnostic]:
    try:
        return _lint_unsuppressed(source, filename, settings, deep)
    except _TooDeep:
        raise
    except Exception as error:  # the last line of defence: report, do not crash
        if _caused_by_recursion(error):
            raise _TooDeep from error
        return _only(_internal_error("the lint pipeline", filename, error, settings))


class _OverTimeBudget(BaseException):
    """Raised inside the lint thread at the time budget. Not an ``Exception``, so that no rule's
    ``except Exception`` takes it for its own failure."""


# Valid code can nest deeper than Python's default recursion limit lets libcst and the analysis
# walk it (150 nested calls already do). Such a file is linted again on a thread with a large
# stack and a higher limit, so that what CPython accepts is analysed rather than skipped.
DEEP_RECURSION_LIMIT = 30_000
DEEP_STACK_BYTES = 512 * 1024 * 1024  # reserved, not committed: pages are touched only if used
# Seconds one file may take (option max-file-seconds); past it the file is reported (IPL904).
# It guards against analysis time that grows faster than the file (deep or odd code), not against
# size, which the byte and line budgets bound before parsing.
DEFAULT_MAX_SECONDS = 120.0  # 4x the slowest file of the survey trees on a loaded 2-core machine
_GRACE_SECONDS = 5.0  # for the interrupted thread to unwind
_deep_stack_lock = threading.Lock()


def _lint_within_budget(source: str, filename: str, settings: Settings) -> list[Diagnostic]:
    seconds = _seconds_budget(settings)
    args = (source, filename, settings)
    try:
        try:
            return _in_lint_thread(_lint_guarded, (*args, False), seconds, deep=False)
        except _TooDeep:
            with _deep_stack_lock:  # the recursion limit is process-wide: one deep run at a time
                return _in_lint_thread(_lint_guarded, (*args, True), seconds, deep=True)
    except _TooDeep:
        return _only(_too_deep(settings))
    except _OverTimeBudget:
        message = (
            f"The analysis took over {seconds:g} seconds (option max-file-seconds); "
            "the file was not analysed"
        )
        return _only(_meta("IPL904", message, 1, 1, settings))


def _in_lint_thread(function, args: tuple, seconds: float | None, *, deep: bool):
    """Run ``function(*args)`` on another thread, interrupted after ``seconds``; with ``deep``, on
    a large stack under a high recursion limit. Exceptions are raised again in the caller.

    The ordinary case runs on the process's long-lived lint thread (``_LintThread``). A thread
    started per file cost about 15% of a worker's CPU on torchvision: glibc gives each new
    thread its own malloc arena, and the memory the parser allocates there was handed back to
    the kernel and faulted in (zeroed) again for the next file. The deep case, a concurrent
    caller (the long-lived thread is busy) and the run after a time-out use a thread of their
    own."""
    if not deep and _shared_lint_lock.acquire(blocking=False):
        try:
            return _LintThread.get().call(function, args, seconds)
        finally:
            _shared_lint_lock.release()
    outcome: dict[str, object] = {}
    finished = threading.Event()

    def run() -> None:
        try:
            _run_job(function, args, outcome, finished)
        except _OverTimeBudget:  # delivered just as the function returned: the result stands
            pass

    old_limit = sys.getrecursionlimit()
    thread = threading.Thread(target=run, name="inplace-lint", daemon=True)
    if deep:
        old_size = threading.stack_size(DEEP_STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, DEEP_RECURSION_LIMIT))
    try:
        thread.start()
    finally:
        if deep:
            threading.stack_size(old_size)
    try:
        if not finished.wait(seconds) and _interrupt(thread, finished):
            finished.wait(_GRACE_SECONDS)
            raise _OverTimeBudget
    finally:
        if deep:
            sys.setrecursionlimit(old_limit)
    return _outcome(outcome)


def _run_job(function, args: tuple, outcome: dict, finished: threading.Event) -> None:
    try:
        outcome["value"] = function(*args)
    except BaseException as error:  # noqa: BLE001 - handed back to the calling thread
        outcome["error"] = error
    finally:
        finished.set()


def _outcome(outcome: dict):
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]


class _LintThread:
    """The process's long-lived lint thread: one job at a time (``_shared_lint_lock``), each
    with the same time budget as a thread of its own. A thread that was interrupted is retired
    (it may still be unwinding) and the next job starts a new one; so does a forked child, which
    inherits no thread."""

    _current: _LintThread | None = None

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="inplace-lint", daemon=True)
        self._thread.start()

    @classmethod
    def get(cls) -> _LintThread:
        current = cls._current
        if current is None or not current._thread.is_alive():
            current = cls._current = cls()
        return current

    def _loop(self) -> None:
        while True:
            try:
                job = self._jobs.get()
                if job is None:
                    return
                _run_job(*job)
            except _OverTimeBudget:  # delivered just as a job returned: the result stands
                continue

    def call(self, function, args: tuple, seconds: float | None):
        outcome: dict[str, object] = {}
        finished = threading.Event()
        self._jobs.put((function, args, outcome, finished))
        if not finished.wait(seconds) and _interrupt(self._thread, finished):
            self._retire()
            finished.wait(_GRACE_SECONDS)
            raise _OverTimeBudget
        return _outcome(outcome)

    def _retire(self) -> None:
        if _LintThread._current is self:
            _LintThread._current = None
        self._jobs.put(None)


_shared_lint_lock = threading.Lock()


def _reset_lint_thread_in_child() -> None:
    global _shared_lint_lock
    _shared_lint_lock = threading.Lock()  # a parent's job may have held it at the fork
    _LintThread._current = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_lint_thread_in_child)


def _interrupt(thread: threading.Thread, finished: threading.Event) -> bool:
    """Raise ``_OverTimeBudget`` in ``thread`` at its next bytecode; False if it just finished."""
    if finished.is_set() or thread.ident is None:
        return False
    try:
        import ctypes

        set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    except (ImportError, AttributeError):  # not CPython: no way to interrupt; wait it out
        finished.wait()
        return False
    set_async_exc(ctypes.c_ulong(thread.ident), ctypes.py_object(_OverTimeBudget))
    return True


def _seconds_budget(settings: Settings) -> float | None:
    value = settings.options.get("max-file-seconds", DEFAULT_MAX_SECONDS)
    if value is None or value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        return DEFAULT_MAX_SECONDS
    return float(value)


def _lint_unsuppressed(
    source: str, filename: str, settings: Settings, deep: bool = False
) -> list[Diagnostic]:
    over_budget = _over_budget(source, settings)
    if over_budget is not None:
        return _only(_meta("IPL904", over_budget, 1, 1, settings))
    too_nested = _nesting_problem(source, settings)
    if too_nested is not None:
        return too_nested
    try:
        module = piecewise.parse_module(source)
    except RecursionError as error:
        raise _TooDeep from error
    except MemoryError:
        return _only(_meta("IPL904", "The file is too large to parse in memory", 1, 1, settings))
    except Exception as error:  # noqa: BLE001 - ParserSyntaxError, and libcst bugs on valid code
        return _only(_parse_failure(source, filename, error, settings))

    from inplace_lint.analysis.engine import analyse
    from inplace_lint.analysis.textfacts import TextFacts

    # (what the prefilter blanked can still freeze a parameter or remove a hook: the full text)
    writers, original = piecewise.hinted(source)
    result = analyse(module, settings, writers, TextFacts.of(source, original))
    if not deep and any(_is_recursion_error(exc_text) for _, exc_text in result.errors):
        raise _TooDeep  # likely not a bug in the rule but a file deeper than the default stack
    # On the deep stack the file's nesting is bounded (_nesting_problem), so a rule that still
    # recurses out of it is a bug in that rule: IPL903 below, like any other exception.
    diagnostics = _to_diagnostics(source, module, result.findings, filename, settings)
    for code, exc_text in result.errors:
        where = f"rule {code}" if code in all_rules() else code
        diag = _meta("IPL903", _internal_message(where, filename, exc_text), 1, 1, settings)
        if diag is not None:
            diagnostics.append(_with_detail(diag, exc_text))
    return diagnostics


def _to_diagnostics(
    source: str, module: cst.Module, findings: list[Finding], filename: str, settings: Settings
) -> list[Diagnostic]:
    """Findings to diagnostics; a finding that cannot be converted costs only its own rule."""
    if not findings:
        return []
    try:
        diagnostics = findings_to_diagnostics(module, findings, settings)
    except Exception as error:  # convert one finding at a time to find the culprit
        if _caused_by_recursion(error):
            raise
        return _to_diagnostics_one_by_one(module, findings, filename, settings)
    if len(diagnostics) != len(findings):
        return diagnostics
    return _checked_positions(source, module, findings, diagnostics, filename, settings)


def _checked_positions(
    source: str,
    module: cst.Module,
    findings: list[Finding],
    diagnostics: list[Diagnostic],
    filename: str,
    settings: Settings,
) -> list[Diagnostic]:
    """A fix is applied to the text at its positions, so those positions must hold the code of
    the nodes the rule meant: a fix whose text there is not that code is withdrawn (IPL903), so
    that a position bug can never make a fix edit the wrong characters. A diagnostic placed
    where its node is not is kept, with the same IPL903."""
    from inplace_lint.fixes import text_at

    out: list[Diagnostic] = []
    failed: set[str] = set()
    for finding, diag in zip(findings, diagnostics):
        if not _holds(text_at(source, diag.span), module.code_for_node(finding.node)):
            failed.add(finding.code)  # reported where it is not: say so, keep the finding
        if diag.fix is not None and finding.fix is not None:
            olds = [old for old, _ in finding.fix.replacements]
            if len(olds) != len(diag.fix.edits) or not all(
                _holds(text_at(source, edit.span), module.code_for_node(old))
                for edit, old in zip(diag.fix.edits, olds)
            ):
                diag = replace(diag, fix=None)
                failed.add(finding.code)
        out.append(diag)
    for code in sorted(failed):
        where = f"rule {code}"
        detail = (
            "a diagnostic's or fix's position does not hold the code of its node; "
            "fixes there were withdrawn"
        )
        diag = _meta("IPL903", _internal_message(where, filename, detail), 1, 1, settings)
        out.extend(_only(_with_detail(diag, detail) if diag is not None else None))
    return out


def _holds(found: str | None, code: str) -> bool:
    """The text at a position is the node's code, give or take the parentheses and semicolon
    libcst counts in the node but not in its position, and whitespace (a node printed on its own
    loses the indentation of its continuation lines)."""
    if found is None:
        return False
    found, code = _WHITESPACE.sub("", found), _WHITESPACE.sub("", code)
    return found == code or (found != "" and found in code)


def _to_diagnostics_one_by_one(
    module: cst.Module, findings: list[Finding], filename: str, settings: Settings
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    failed: set[str] = set()
    for finding in findings:
        try:
            out.extend(findings_to_diagnostics(module, [finding], settings))
        except Exception as error:
            if _caused_by_recursion(error):
                raise
            if finding.code not in failed:
                failed.add(finding.code)
                where = f"rule {finding.code}"
                out.extend(_only(_internal_error(where, filename, error, settings)))
    return out


def findings_to_diagnostics(
    module: cst.Module, findings: list[Finding], settings: Settings
) -> list[Diagnostic]:
    positions = LazyPositions(module)
    rules = all_rules()
    lines = _Lines(module)
    out = []
    for finding in findings:
        rule = rules[finding.code]
        span = _span(positions[finding.node])
        related = tuple(
            Related(message, _span(positions[node]))
            for message, node in finding.related
            if node in positions
        )
        message = finding.message
        for i, item in enumerate(related):
            message = message.replace(f"\x00L{i}\x00", str(item.span.start.row))
        message = _UNRESOLVED_LINE.sub("an earlier line", message)
        fix = None
        if finding.fix is not None and finding.code not in settings.unfixable:
            applicability = finding.fix.applicability
            if finding.code in settings.extend_safe_fixes:
                applicability = "safe"
            edits = tuple(
                Edit(
                    _span(positions[old]),
                    _fill_indent(
                        new if isinstance(new, str) else module.code_for_node(new),
                        lines,
                        positions[old].start.line,
                    ),
                )
                for old, new in finding.fix.replacements
            )
            fix = Fix(finding.fix.message, edits, applicability)
        out.append(
            Diagnostic(
                code=rule.code,
                name=rule.name,
                message=message,
                severity=rule.severity,
                span=span,
                fix=fix,
                related=related,
                framework=finding.framework,
                noqa_row=span.start.row,
            )
        )
    return out


_UNRESOLVED_LINE = re.compile("\x00L[0-9]+\x00")


def _fill_indent(text: str, lines: _Lines, row: int) -> str:
    return (
        text.replace("\x00INDENT\x00", _indent_of(lines, row)) if "\x00INDENT\x00" in text else text
    )


class _Lines:
    """The file's lines, split only if a fix needs an indentation."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._lines: list[str] | None = None

    def get(self) -> list[str]:
        if self._lines is None:
            self._lines = self.module.code.splitlines()
        return self._lines


def _indent_of(lines: _Lines, row: int) -> str:
    rows = lines.get()
    if 1 <= row <= len(rows):
        line = rows[row - 1]
        return line[: len(line) - len(line.lstrip())]
    return ""


def _span(code_range: CodeRange) -> Span:
    return Span(
        Position(code_range.start.line, code_range.start.column + 1),
        Position(code_range.end.line, code_range.end.column + 1),
    )


def _parse_failure(
    source: str, filename: str, error: Exception, settings: Settings
) -> Diagnostic | None:
    """IPL901 where Python's own parser also rejects the text (its position and message are the
    better ones); IPL903 where only libcst fails, since that is our failure on valid code."""
    python_error = _python_syntax_error(source)
    if python_error is not None:
        return _syntax_error_diagnostic(source, python_error, settings)
    if isinstance(error, cst.ParserSyntaxError) and not settings.is_enabled("IPL903"):
        row, col = _libcst_location(error)
        return _meta("IPL901", f"SyntaxError: {_first_line(error.message)}", row, col, settings)
    detail = format_exception(error)
    summary = (
        _first_line(error.message)
        if isinstance(error, cst.ParserSyntaxError)
        else f"{type(error).__name__}: {_first_line(str(error))}"
    )
    message = (
        f"Internal error in the parser (libcst) on {filename}: {summary}; Python itself parses "
        "this file, so it was not analysed"
    )
    diag = _meta("IPL903", message, *_libcst_location(error), settings)
    return _with_detail(diag, detail) if diag is not None else None


def _python_syntax_error(source: str) -> SyntaxError | None:
    """The running interpreter's SyntaxError for ``source``, or None if it parses it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<source>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError) as error:  # ValueError: NUL bytes before Python 3.12
        if error.args and getattr(error, "lineno", None) is None and "\x00" in source:
            return _nul_error(source, str(error.args[0]))
        return error if isinstance(error, SyntaxError) else SyntaxError(str(error))
    except (RecursionError, MemoryError):
        return None
    return None


def _nul_error(source: str, message: str) -> SyntaxError:
    nul = source.index("\x00")
    row = source.count("\n", 0, nul) + 1
    col = nul - (source.rfind("\n", 0, nul) + 1) + 1
    return SyntaxError(message, ("<source>", row, col, None, row, col + 1))


def _syntax_error_diagnostic(
    source: str, error: SyntaxError, settings: Settings
) -> Diagnostic | None:
    lines = _rows(source)
    row = min(max(error.lineno or 1, 1), len(lines))
    line = lines[row - 1].rstrip("\r\n")
    col = error.offset or 1
    text = (error.text or "").rstrip("\r\n")
    trusted = not text or text == line  # Python <3.12 places f-string errors in the field's text
    col = min(max(col if trusted else 1, 1), len(line) + 1)
    end = col + 1
    if trusted and error.end_lineno == error.lineno and (error.end_offset or 0) > col:
        end = min(error.end_offset, len(line) + 1)
    diag = _meta("IPL901", f"SyntaxError: {error.msg}", row, col, settings)
    if diag is None:
        return None
    return replace(diag, span=Span(Position(row, col), Position(row, max(end, col))))


def _libcst_location(error: Exception) -> tuple[int, int]:
    """libcst's native parser leaves ``raw_column`` at 0; its message carries "error at R:C"."""
    if not isinstance(error, cst.ParserSyntaxError):
        return 1, 1
    match = re.search(r"error at (\d+):(\d+)", error.message)
    if match:
        return max(int(match.group(1)), 1), max(int(match.group(2)), 1)
    return max(error.raw_line, 1), max(error.raw_column, 0) + 1


def _over_budget(source: str, settings: Settings) -> str | None:
    """The IPL904 message when ``source`` is over the size budget; None when it is within it."""
    max_bytes = _limit(settings, "max-file-bytes", DEFAULT_MAX_BYTES)
    max_lines = _limit(settings, "max-file-lines", DEFAULT_MAX_LINES)
    if max_bytes is not None and len(source) * 4 > max_bytes:  # cheap test before encoding
        size = len(source.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            return (
                f"The file has {size:,} bytes, over the {max_bytes:,}-byte budget "
                "(option max-file-bytes); it was not analysed"
            )
    if max_lines is not None:
        rows = source.count("\n") + source.count("\r") - source.count("\r\n")
        if rows > max_lines:
            return (
                f"The file has {rows:,} lines, over the {max_lines:,}-line budget "
                "(option max-file-lines); it was not analysed"
            )
    return None


def _limit(settings: Settings, key: str, default: int) -> int | None:
    """A positive integer option; 0 or None turns the limit off; anything else is the default."""
    value = settings.options.get(key, default)
    if value is None or value == 0:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return default
    return value


def _too_deep(settings: Settings, what: str | None = None) -> Diagnostic | None:
    reason = f" ({what})" if what else ""
    message = f"The file is nested more deeply{reason} than the analysis can follow; not analysed"
    return _meta("IPL904", message, 1, 1, settings)


def _internal_error(
    where: str, filename: str, error: BaseException, settings: Settings
) -> Diagnostic | None:
    detail = format_exception(error)
    diag = _meta("IPL903", _internal_message(where, filename, detail), 1, 1, settings)
    return _with_detail(diag, detail) if diag is not None else None


def _internal_message(where: str, filename: str, exc_text: str) -> str:
    last = exc_text.strip().splitlines()[-1] if exc_text.strip() else "an exception"
    return (
        f"Internal error in {where} on {filename} ({last}); other rules' findings are kept. "
        "Run with --verbose for the traceback, and please report it"
    )


def _is_recursion_error(exc_text: str) -> bool:
    # libcst's context managers can turn a RecursionError into a KeyError raised while handling it.
    return "RecursionError: maximum recursion depth exceeded" in exc_text


def _caused_by_recursion(error: BaseException | None) -> bool:
    seen = 0
    while error is not None and seen < 50:
        if isinstance(error, RecursionError):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


# CPython refuses more than 200 nested brackets ("too many nested parentheses"); libcst accepts
# them but takes time quadratic in the depth (1,000 nested calls: half a minute).
MAX_BRACKET_DEPTH = 200
# Operators chained without a comma or a statement between them nest the tree as deeply, and
# libcst's parser recurses on them natively: 8,000 chained lambdas or `**` crash the process
# (stack overflow), 2,000 take seconds. Real code stays far below this (the survey trees: 33).
MAX_OPERATOR_CHAIN = 500
# A chain of calls, subscripts and attributes (`x.t().t()...`) nests the tree as deeply with
# no brackets open, at the same quadratic cost; real code stays far below this.
MAX_TRAILER_CHAIN = 200
# Strings, comments and backslash continuations hide no nesting: blanked before the scans. A
# string ends at the first closing quote(s) (`"""` ... the first `"""`; `"` ... the first `"`
# not after a backslash, within the row). Written with the loops unrolled (`[^"]*(?:"(?!"")
# [^"]*)*` rather than a lazy `[\s\S]*?`) and a first-character test: the same matches, about a
# third cheaper (tests/test_nesting_scan.py compares with the plain spelling).
_NOT_CODE = re.compile(
    r"""(?=[rRbBuUfF"'#\\])[rRbBuUfF]{0,2}(?:\"\"\"[^"]*(?:"(?!"")[^"]*)*\"\"\"|'''[^']*(?:'(?!'')[^']*)*'''"""
    r"""|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\\\n]*(?:\\.[^'\\\n]*)*')"""
    r"|\#[^\n]*|\\(?:\r\n|\r|\n)"
)
_BRACKET_DELTA = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_BRACKETS = re.compile(r"[()\[\]{}]")
_SEPARATORS = re.compile(r"[,;]|(?<![=!<>:+\-*/%@&|^~])=(?!=)")
_OPERATORS = (
    r"\*\*|//|<<|>>|<=|>=|==|!=|[-+*/%@&|^~<>:]|\b(?:and|or|not|is|in|if|else|lambda|await)\b"
)
_OPERATOR = re.compile(_OPERATORS)
_CHAIN_TOKENS = re.compile(
    rf"({_SEPARATORS.pattern})|([(\[{{])|([)\]}}])|(\r\n|\r|\n)|({_OPERATORS})"
)
_TRAILER_CHAIN = re.compile(
    r"(?:\.[ \t]*\w+[ \t]*|\([^()\n]*\)|\[[^\[\]\n]*\])" + f"{{{MAX_TRAILER_CHAIN},}}"
)


def _nesting_problem(source: str, settings: Settings) -> list[Diagnostic] | None:
    """Diagnostics for text nested past what CPython accepts or libcst parses in useful time."""
    depth, chain = _depth_and_chain(source)
    if depth > MAX_BRACKET_DEPTH:
        python_error = _python_syntax_error(source)
        if python_error is not None:
            return _only(_syntax_error_diagnostic(source, python_error, settings))
        return _only(_too_deep(settings, f"{depth} nested brackets"))
    if chain > MAX_OPERATOR_CHAIN:
        return _only(_too_deep(settings, f"an expression chaining {chain} operators"))
    if _has_trailer_chain(source):
        return _only(_too_deep(settings, f"over {MAX_TRAILER_CHAIN} chained calls or subscripts"))
    return None


# A match of _TRAILER_CHAIN lies within one line and is at least two characters per trailer long:
# only lines that long are searched (real files have a handful). Splitting is ten times cheaper
# than a regex for long lines, which retries from every column of every line.
_LONG_LINE_CHARS = 2 * MAX_TRAILER_CHAIN


def _has_trailer_chain(source: str) -> bool:
    return any(
        _TRAILER_CHAIN.search(line) for line in source.split("\n") if len(line) >= _LONG_LINE_CHARS
    )


def _depth_and_chain(source: str) -> tuple[int, int]:
    """The deepest bracket nesting, and the longest run of operators with no comma, semicolon,
    assignment or end of statement between them (brackets do not end a run: `(a+b)+(c+d)` nests)."""
    code = _NOT_CODE.sub(" ", source)
    deltas = (_BRACKET_DELTA[b] for b in _BRACKETS.findall(code))
    deepest = max(itertools.accumulate(deltas), default=0)
    # A long run needs a stretch between separators with that many operators: only such a
    # stretch is scanned token by token (real files have none, so the scan costs one split).
    # (every stretch between separators lies within one between commas and semicolons, which
    # `str.split` finds far faster: only those long enough are split at `=` too)
    candidates = [
        part
        for stretch in code.replace(";", ",").split(",")
        if len(stretch) > MAX_OPERATOR_CHAIN
        for part in _SEPARATORS.split(stretch)
        if len(part) > MAX_OPERATOR_CHAIN and len(_OPERATOR.findall(part)) > MAX_OPERATOR_CHAIN
    ]
    return deepest, max((_longest_run(part) for part in candidates), default=0)


def _longest_run(code: str) -> int:
    depth = longest = run = 0
    for separator, opening, closing, newline, operator in _CHAIN_TOKENS.findall(code):
        if operator:
            run += 1
            longest = max(longest, run)
        elif opening:
            depth += 1
        elif closing:
            depth = max(depth - 1, 0)
        elif separator or (newline and depth == 0):
            run = 0
    return longest


def _rows(source: str) -> list[str]:
    rows = re.split(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", source)
    return rows if rows[-1] or len(rows) == 1 else rows[:-1] + [""]


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text and text.strip() else "invalid syntax"


def _only(diag: Diagnostic | None) -> list[Diagnostic]:
    return [diag] if diag is not None else []


def _meta(code: str, message: str, row: int, col: int, settings: Settings) -> Diagnostic | None:
    if not settings.is_enabled(code):
        return None
    rule = all_rules()[code]
    return Diagnostic(
        code=code,
        name=rule.name,
        message=message,
        severity=rule.severity,
        span=Span(Position(row, col), Position(row, col)),
        noqa_row=row,
    )


def _with_detail(diag: Diagnostic, detail: str) -> Diagnostic:
    return replace(diag, detail=detail)


def format_exception(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))


__all__ = ["Severity", "findings_to_diagnostics", "lint_source"]
