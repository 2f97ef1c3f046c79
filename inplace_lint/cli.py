"""The `inplace-lint` command: `check` and `rule`, with ruff's option names and exit codes.

Exit codes: 0 clean (or `--exit-zero`, or everything fixed); 1 diagnostics left, `--diff` found
changes, or `--exit-non-zero-on-fix` fixed something; 2 a usage or configuration error, a path
that does not exist, or an internal error in a rule (IPL903).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

import click

from inplace_lint import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
OUTPUT_FORMATS = ("full", "concise", "grouped", "json", "lsp", "sarif", "github", "gitlab", "junit")
CACHE_DIR = ".inplace_lint_cache"


class _Group(click.Group):
    def main(self, *args, **kwargs):  # type: ignore[override]
        kwargs.setdefault("prog_name", "inplace-lint")
        return super().main(*args, **kwargs)


# Set by ``entry``: this process is the `inplace-lint` program, not a library or test caller
# invoking ``main``, so the run may change process-wide things for speed (the codegen cache,
# libcst's fast constructors in process: runner.run(own_process=True)).
_OWN_PROCESS = False


def entry() -> None:
    """The `inplace-lint` program (the console script and `python -m inplace_lint`)."""
    global _OWN_PROCESS
    _OWN_PROCESS = True
    main()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="inplace-lint")
def main() -> None:
    """Find the in-place tensor writes that break autograd in PyTorch and PaddlePaddle code."""


def _codes(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """`--select IPL001,IPL0 --select IPL1` -> ("IPL001", "IPL0", "IPL1")."""
    return tuple(code.strip() for item in value for code in item.split(",") if code.strip())


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--fix/--no-fix", default=False, help="Apply safe fixes.")
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes", default=False, help="Also apply (and offer) unsafe fixes."
)
@click.option("--diff", is_flag=True, help="Show the fixes as a unified diff; write nothing.")
@click.option("--show-fixes", is_flag=True, help="List the fixes applied, per file.")
@click.option("--fix-only", is_flag=True, help="Apply fixes; do not report what remains.")
@click.option("--statistics", is_flag=True, help="Count diagnostics per rule.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when diagnostics remain.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when a fix changed a file.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa` comments for every current finding.")
@click.option(
    "--select", multiple=True, callback=_codes, help="Rules to enable (codes, prefixes, ALL)."
)
@click.option("--ignore", multiple=True, callback=_codes, help="Rules to disable.")
@click.option("--extend-select", multiple=True, callback=_codes, help="Rules to enable on top.")
@click.option(
    "--per-file-ignores", multiple=True, metavar="PATTERN:CODES", help="e.g. 'tests/*:IPL001'."
)
@click.option(
    "--unfixable", multiple=True, callback=_codes, help="Rules whose fixes are not offered."
)
@click.option(
    "--extend-safe-fixes", multiple=True, callback=_codes, help="Treat these fixes as safe."
)
@click.option("--framework", type=click.Choice(["auto", "torch", "paddle"]), default=None)
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    envvar="INPLACE_LINT_OUTPUT_FORMAT",
    help="Default: full on a terminal, concise otherwise.",
)
@click.option("-o", "--output-file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--stdin-filename", help="The name to report (and configure) standard input as.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes.")
@click.option("--no-cache", is_flag=True, help="Do not read or write the result cache.")
@click.option("--cache-dir", envvar="INPLACE_LINT_CACHE_DIR", type=click.Path(path_type=Path))
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--config", "config_args", multiple=True, help="A config file, or 'KEY = VALUE'.")
@click.option("--exclude", multiple=True, help="Replace the exclude list (glob patterns).")
@click.option("--extend-exclude", multiple=True, help="More paths to exclude.")
@click.option("--force-exclude", is_flag=True, help="Exclude paths even when named explicitly.")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None)
@click.option("-v", "--verbose", is_flag=True, help="Say which files and config are used.")
@click.option("-q", "--quiet", is_flag=True, help="Print diagnostics only, no summary.")
def check(paths: tuple[str, ...], **opts) -> None:
    """Lint PATHS (files or directories; default: the current directory; `-` for stdin)."""
    started = time.perf_counter()
    from inplace_lint import codegen_cache

    try:
        # `import libcst` compiles less (codegen_cache.py); only in a process of our own
        with codegen_cache.installed() if _OWN_PROCESS else contextlib.nullcontext():
            code = _check(list(paths), opts)
    except _UsageProblem as problem:
        click.echo(f"inplace-lint: error: {problem}", err=True)
        code = EXIT_ERROR
    if opts["verbose"]:
        click.echo(f"inplace-lint: done in {time.perf_counter() - started:.2f}s", err=True)
    sys.exit(code)


class _UsageProblem(Exception):
    pass


def _check(paths: list[str], opts: dict) -> int:
    from inplace_lint.config import ConfigError

    try:
        resolver = _resolver(opts)
    except ConfigError as error:
        raise _UsageProblem(str(error)) from None
    fix = "none"
    if opts["fix"] or opts["fix_only"] or opts["diff"]:
        fix = "unsafe" if opts["unsafe_fixes"] else "safe"
    reading_stdin = paths == ["-"] or (not paths and opts["stdin_filename"] is not None)
    if "-" in paths and not reading_stdin:
        raise _UsageProblem("`-` (standard input) cannot be combined with other paths")
    if reading_stdin:
        return _check_stdin(resolver, fix, opts)
    return _check_paths([Path(p) for p in paths or ["."]], resolver, fix, opts)


def _resolver(opts: dict):
    import json

    from inplace_lint.config import (
        ConfigError,
        Overrides,
        RuleSelection,
        SettingsResolver,
        check_selector,
        parse_per_file_ignore_arg,
    )

    config_file = None
    inline = []
    for arg in opts["config_args"]:
        if Path(arg).is_file():
            if config_file is not None:
                raise ConfigError("--config: only one configuration file may be given")
            config_file = Path(arg)
        elif "=" in arg:
            inline.append(arg)
        else:
            raise ConfigError(f"--config {arg!r}: no such file, and not a `KEY = VALUE` setting")
    for option in ("select", "ignore", "extend_select", "unfixable", "extend_safe_fixes"):
        for selector in opts[option]:
            check_selector(selector, None, "--" + option.replace("_", "-"))
    if opts["exclude"]:
        inline.append(f"exclude = {json.dumps(list(opts['exclude']))}")
    overrides = Overrides(
        selection=RuleSelection(
            select=opts["select"] or None,
            ignore=opts["ignore"],
            extend_select=opts["extend_select"],
        ),
        per_file_ignores=tuple(parse_per_file_ignore_arg(a) for a in opts["per_file_ignores"]),
        extend_exclude=tuple(opts["extend_exclude"]),
        respect_gitignore=opts["respect_gitignore"],
        unfixable=opts["unfixable"],
        extend_safe_fixes=opts["extend_safe_fixes"],
        framework=opts["framework"],
        config_file=config_file,
        inline=tuple(inline),
        isolated=opts["isolated"],
    )
    return SettingsResolver(overrides)


# --- stdin -------------------------------------------------------------------------------------


def _check_stdin(resolver, fix: str, opts: dict) -> int:
    from inplace_lint.files import lint_notebook_text, lint_text
    from inplace_lint.sources import SourceError, decode_source

    name = opts["stdin_filename"]
    display = name if name is not None else "-"
    data = sys.stdin.buffer.read()
    settings = resolver(Path(name) if name else Path.cwd() / "-.py")
    if name is not None and opts["force_exclude"] and _excluded_stdin(Path(name), resolver):
        if fix != "none" and not opts["diff"]:
            sys.stdout.buffer.write(data)
        return EXIT_CLEAN
    try:
        source = decode_source(data, display)
    except SourceError as error:
        raise _UsageProblem(f"{display}: {error.message}") from None
    new_text = None
    if display.endswith(".ipynb"):
        result, new_text = lint_notebook_text(source.text, display, settings, fix=fix)
    else:
        result = lint_text(source.text, display, settings, fix=fix)
        new_text = result.fixed_source
    if opts["add_noqa"]:
        raise _UsageProblem("--add-noqa cannot be used with standard input")
    if opts["diff"]:
        click.echo(_diff_text([result]), nl=False)
        return EXIT_FINDINGS if result.fixed_source is not None else EXIT_CLEAN
    if fix != "none":
        # As ruff does: the (fixed) source goes to stdout, the report to stderr.
        sys.stdout.write(new_text if new_text is not None else source.text)
        sys.stdout.flush()
        return _report_and_exit([result], fix, opts, to_stderr=True)
    return _report_and_exit([result], fix, opts)


def _excluded_stdin(path: Path, resolver) -> bool:
    from inplace_lint.discovery import excluded

    return excluded(path, resolver) is not None


# --- files -------------------------------------------------------------------------------------


def _check_paths(paths: list[Path], resolver, fix: str, opts: dict) -> int:
    from inplace_lint.config import ConfigError
    from inplace_lint.discovery import DiscoveryError, discover

    try:
        found = discover(paths, resolver, force_exclude=opts["force_exclude"])
    except (DiscoveryError, ConfigError) as error:
        raise _UsageProblem(str(error)) from None
    cwd = Path.cwd()
    files = [_display_path(p, cwd) for p in found.files]
    if opts["verbose"]:
        for path, why in found.skipped:
            click.echo(f"inplace-lint: skipped {path}: {why}", err=True)
        click.echo(f"inplace-lint: {len(files)} file(s) to lint", err=True)
    if not files:
        click.echo("warning: No Python files found under the given path(s)", err=True)
        if opts["add_noqa"] or opts["diff"]:
            return EXIT_CLEAN
    if opts["add_noqa"]:
        return _add_noqa(files, resolver, opts)
    cache_dir = None if opts["no_cache"] else (opts["cache_dir"] or Path.cwd() / CACHE_DIR)
    try:
        results = _run(
            files, resolver, jobs=opts["jobs"], cache_dir=cache_dir, fix=fix, write=not opts["diff"]
        )
    except ConfigError as error:
        raise _UsageProblem(str(error)) from None
    for result in results:
        if result.fix_error:
            click.echo(f"warning: {result.path}: {result.fix_error}", err=True)
    if opts["diff"]:
        return _report_diff(results, opts)
    return _report_and_exit(results, fix, opts)


def _display_path(path: Path, cwd: Path | None = None) -> Path:
    """Relative to the working directory when the file is under it, as ruff shows paths."""
    if not path.is_absolute():
        return Path(os.path.normpath(path))
    cwd = Path.cwd() if cwd is None else cwd
    text, base = str(path), str(cwd).rstrip(os.sep) + os.sep
    if not text.startswith(base):  # not under it (relative_to would raise): shown as it is
        return path
    return path.relative_to(cwd)


def _run(files: list[Path], resolver, *, jobs, cache_dir, fix: str, write: bool):
    """The parallel runner when it can do the job; fixes shown with --diff stay in process."""
    if write or fix == "none":
        try:
            from inplace_lint.runner import run
        except ImportError:
            run = None
        if run is not None:
            return run(
                files, resolver, jobs=jobs, cache_dir=cache_dir, fix=fix, own_process=_OWN_PROCESS
            )
    from inplace_lint.files import lint_file

    results = [lint_file(path, resolver(path), fix=fix, write=write) for path in files]
    return sorted(results, key=lambda r: r.path)


def _add_noqa(files: list[Path], resolver, opts: dict) -> int:
    from inplace_lint.noqa import add_noqa_to_file

    total = 0
    for path in files:
        count, error = add_noqa_to_file(path, resolver(path))
        if error:
            click.echo(f"warning: {path}: {error}", err=True)
        total += count
    word = "directive" if total == 1 else "directives"
    click.echo(f"Added {total} noqa {word}.", err=True)
    return EXIT_CLEAN


# --- reporting ---------------------------------------------------------------------------------


def _output_format(opts: dict, stream) -> str:
    if opts["output_format"]:
        return opts["output_format"]
    return "full" if opts["output_file"] is None and _isatty(stream) else "concise"


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _context(opts: dict, color: bool):
    from inplace_lint.reporters import ReportContext

    return ReportContext(
        cwd=Path.cwd(),
        unsafe_fixes=opts["unsafe_fixes"],
        show_fixes=opts["show_fixes"],
        color=color,
        verbose=opts["verbose"],
    )


def _report_and_exit(results: list, fix: str, opts: dict, *, to_stderr: bool = False) -> int:
    stream = sys.stderr if to_stderr else sys.stdout
    fmt = _output_format(opts, stream)
    color = (
        fmt == "full"
        and opts["output_file"] is None
        and _isatty(stream)
        and not os.environ.get("NO_COLOR")
    )
    context = _context(opts, color)
    if opts["fix_only"]:
        text = _fix_only_text(results, context)
    elif opts["statistics"]:
        text = _statistics(results, context, fmt)
    else:
        from inplace_lint.reporters import render

        text = render(fmt, results, context)
        if opts["quiet"] and fmt in ("full", "concise", "grouped"):
            text = _without_summary(text, results, context)
    _write_report(text, opts["output_file"], stream)
    if opts["verbose"]:
        for result in results:
            for diag in result.diagnostics:
                if diag.detail:
                    click.echo(f"{result.path}: {diag.code}:\n{diag.detail}", err=True)
    return _exit_code(results, opts)


def _exit_code(results: list, opts: dict) -> int:
    remaining = [d for r in results for d in r.diagnostics]
    if any(d.code == "IPL903" for d in remaining):
        return EXIT_ERROR  # a rule crashed: the result is incomplete, whatever --exit-zero says
    fixed = any(r.fixes_applied for r in results)
    if opts["exit_zero"]:
        return EXIT_CLEAN
    if opts["exit_non_zero_on_fix"] and fixed:
        return EXIT_FINDINGS
    if opts["fix_only"]:
        return EXIT_CLEAN
    return EXIT_FINDINGS if remaining else EXIT_CLEAN


def _write_report(text: str, output_file: Path | None, stream) -> None:
    if output_file is not None:
        try:
            output_file.write_text(text, encoding="utf-8")
        except OSError as error:
            raise _UsageProblem(f"cannot write {output_file}: {error.strerror or error}") from None
        return
    stream.write(text)
    stream.flush()


def _without_summary(text: str, results: list, context) -> str:
    from inplace_lint.reporters.common import summary

    tail = "\n".join(summary(results, context)) + "\n"
    return text.removesuffix(tail)


def _fix_only_text(results: list, context) -> str:
    from inplace_lint.reporters.common import applicable, fixed_lines, plural

    fixed = sum(r.fixes_applied for r in results)
    lines = fixed_lines(results) if context.show_fixes else []
    hidden = sum(
        1
        for r in results
        for d in r.diagnostics
        if d.fix is not None and not applicable(d, context)
    )
    extra = (
        f" ({plural(hidden, 'additional fix')} available with `--unsafe-fixes`)" if hidden else ""
    )
    if fixed:
        lines.append(f"Fixed {plural(fixed, 'error')}{extra}.")
    elif hidden:
        lines.append(f"No errors fixed{extra}.")
    return "".join(line + "\n" for line in lines)


def _statistics(results: list, context, fmt: str) -> str:
    import json
    from collections import Counter

    from inplace_lint.reporters.common import applicable, summary

    counts: Counter[str] = Counter()
    fixable: Counter[str] = Counter()
    names: dict[str, str] = {}
    for result in results:
        for diag in result.diagnostics:
            counts[diag.code] += 1
            names[diag.code] = diag.name
            fixable[diag.code] += applicable(diag, context)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if fmt == "json":
        items = [
            {
                "code": c,
                "name": names[c],
                "count": n,
                "fixable": fixable[c] > 0,
                "fixable_count": fixable[c],
            }
            for c, n in rows
        ]
        return json.dumps(items, indent=2) + "\n"
    width = max((len(str(n)) for _, n in rows), default=1)
    lines = [f"{n:>{width}}\t{c}\t{'[*]' if fixable[c] else '[ ]'} {names[c]}" for c, n in rows]
    return "\n".join(lines + summary(results, context)) + "\n"


def _report_diff(results: list, opts: dict) -> int:
    from inplace_lint.reporters.common import plural

    text = _diff_text(results)
    fixed = sum(r.fixes_applied for r in results)
    summary = f"Would fix {plural(fixed, 'error')}." if fixed else "No errors would be fixed."
    _write_report(text + ("\n" if text else "") + summary + "\n", opts["output_file"], sys.stdout)
    if any(d.code == "IPL903" for r in results for d in r.diagnostics):
        return EXIT_ERROR
    return EXIT_FINDINGS if fixed else EXIT_CLEAN


def _diff_text(results: list) -> str:
    import difflib
    import re

    out = []
    for result in sorted(results, key=lambda r: r.path):
        if result.fixed_source is None or result.source is None:
            continue
        if result.cell_map is None:
            pairs = [(result.path, result.source, result.fixed_source)]
        else:
            split = re.compile(r"^# %% inplace-lint: cell (\d+)[ \t]*\r?\n?", re.MULTILINE)
            old, new = split.split(result.source), split.split(result.fixed_source)
            pairs = [
                (f"{result.path}:cell {n}", a, b)
                for n, a, b in zip(old[1::2], old[2::2], new[2::2])
            ]
        for name, before, after in pairs:
            out.extend(
                difflib.unified_diff(
                    before.splitlines(keepends=True),
                    after.splitlines(keepends=True),
                    fromfile=name,
                    tofile=name,
                )
            )
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


# --- rule --------------------------------------------------------------------------------------


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Every rule.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def rule(code: str | None, show_all: bool, output_format: str) -> None:
    """Explain a rule: `inplace-lint rule IPL001`, or `--all`."""
    import json

    from inplace_lint.rules import all_rules

    rules = all_rules()
    if show_all == (code is not None):
        raise click.UsageError("give a rule CODE or --all (not both)")
    if code is not None and code.upper() not in rules:
        raise click.UsageError(f"unknown rule {code!r}; `inplace-lint rule --all` lists them")
    chosen = list(rules.values()) if show_all else [rules[code.upper()]]
    if output_format == "json":
        items = [_rule_json(r) for r in chosen]
        click.echo(json.dumps(items if show_all else items[0], indent=2, ensure_ascii=False))
    else:
        click.echo("\n\n".join(_rule_page(r) for r in chosen))


def _rule_json(rule) -> dict:
    from inplace_lint.reporters.common import rule_url

    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "severity": rule.severity.label,
        "framework": rule.framework,
        "tier": rule.tier(),
        "default_enabled": rule.default_enabled,
        "fix": rule.fix_applicability,
        "explanation": _docstring(rule),
        "url": rule_url(rule.code),
    }


def _rule_page(rule) -> str:
    fix = {"safe": "a safe fix", "unsafe": "an unsafe fix"}.get(rule.fix_applicability, "no fix")
    facts = [
        f"Severity: {rule.severity.label}",
        f"framework: {rule.framework or 'any'}",
        f"tier: {rule.tier()}",
        "on by default" if rule.default_enabled else "off by default (select it to enable)",
        f"has {fix}",
    ]
    return f"# {rule.name} ({rule.code})\n\n{rule.summary}.\n\n{'; '.join(facts)}.\n\n{_docstring(rule)}"


def _docstring(rule) -> str:
    import inspect

    return inspect.cleandoc(rule.__doc__ or "").strip()


@main.command()
def server() -> None:
    """Run the language server over stdin/stdout (for editors)."""
    from inplace_lint.server import main as serve

    serve()


if __name__ == "__main__":  # pragma: no cover
    main()
