"""Starts the real language server with a stand-in dataflow engine, for tests of the server's
fix and related-location plumbing that must not wait for the real rules.

The stand-in reports IPL002 on every `x.name_(...)` call, with a safe fix renaming `name_` to
`name` and a related location on the file's first assignment. Everything else (api, positions,
the server) is the real code; only ``inplace_lint.analysis.engine.analyse`` is replaced.
"""

from __future__ import annotations

import libcst as cst

from inplace_lint.analysis import engine
from inplace_lint.analysis.findings import Finding, FixPlan


class _InplaceCalls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Attribute] = []
        self.first_assign: cst.Assign | None = None

    def visit_Assign(self, node: cst.Assign) -> None:
        if self.first_assign is None:
            self.first_assign = node

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value.endswith("_"):
            self.calls.append(func)


def fake_analyse(module: cst.Module, settings) -> engine.AnalysisResult:
    visitor = _InplaceCalls()
    module.visit(visitor)
    findings = []
    for attribute in visitor.calls:
        if not settings.is_enabled("IPL002"):
            continue
        name = attribute.attr.value
        related = [("created here", visitor.first_assign)] if visitor.first_assign else []
        findings.append(
            Finding(
                code="IPL002",
                node=attribute,
                message=f"in-place `{name}` on a leaf that requires grad",
                related=related,
                fix=FixPlan(f"Use `{name[:-1]}`", [(attribute.attr, name[:-1])]),
            )
        )
    return engine.AnalysisResult(findings=findings)


# At import, not under the main guard: the server's worker process imports this file too.
engine.analyse = fake_analyse

if __name__ == "__main__":
    from inplace_lint.server import main

    main()
