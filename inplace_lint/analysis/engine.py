"""Placeholder: the dataflow engine lands in the next commits."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from inplace_lint.analysis.findings import Finding
from inplace_lint.settings import Settings


@dataclass
class AnalysisResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (rule code, traceback text)


def analyse(module: cst.Module, settings: Settings) -> AnalysisResult:
    return AnalysisResult()
