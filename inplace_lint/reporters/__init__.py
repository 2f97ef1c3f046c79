"""Output formats. Each module projects the same ``FileResult`` list into one format and has a
``render(results, context) -> str``; modules are imported only when their format is asked for."""

from __future__ import annotations

import importlib

from inplace_lint.reporters.common import ReportContext
from inplace_lint.results import FileResult

FORMATS = ("full", "concise", "grouped", "json", "lsp", "sarif", "github", "gitlab", "junit")


def render(output_format: str, results: list[FileResult], context: ReportContext) -> str:
    if output_format not in FORMATS:
        raise ValueError(f"unknown output format {output_format!r}")
    module = importlib.import_module(f"inplace_lint.reporters.{output_format}")
    return module.render(results, context)


__all__ = ["FORMATS", "ReportContext", "render"]
