"""Placeholder: `# noqa` handling lands with the CLI work."""

from __future__ import annotations

from inplace_lint.diagnostics import Diagnostic
from inplace_lint.settings import Settings


def apply_suppressions(source: str, diagnostics: list[Diagnostic], settings: Settings) -> list[Diagnostic]:
    return diagnostics
