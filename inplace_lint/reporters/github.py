"""GitHub Actions workflow commands: one `::error` / `::warning` annotation per diagnostic.

`%`, CR and LF are escaped in the message, and also `:` and `,` in property values. A notebook
annotation points at the `.ipynb` line holding the cell's row, and its text names the cell."""

from __future__ import annotations

from inplace_lint.diagnostics import Severity
from inplace_lint.reporters.common import ReportContext, diagnostics, file_line, locate, relative
from inplace_lint.results import FileResult

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(results: list[FileResult], context: ReportContext) -> str:
    lines = []
    for result, diag in diagnostics(results):
        path = relative(result.path, context.cwd)
        where = locate(result, diag.span.start).text
        props = {"file": path}
        if result.cell_map is None:
            props.update(
                line=diag.span.start.row,
                col=diag.span.start.column,
                endLine=diag.span.end.row,
                endColumn=diag.span.end.column,
            )
        else:
            props["line"] = file_line(result, diag.span.start)
        props["title"] = f"inplace-lint ({diag.code})"
        prop_text = ",".join(f"{key}={escape_property(str(value))}" for key, value in props.items())
        message = f"{path}:{where}: {diag.code} {diag.message}"
        if diag.fix is not None:
            message += f"\n  help: {diag.fix.message}"
        command = COMMANDS.get(diag.severity, "notice")
        lines.append(f"::{command} {prop_text}::{escape_data(message)}")
    return "".join(line + "\n" for line in lines)
