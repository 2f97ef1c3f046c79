"""A stand-in analysis for the CLI tests, so they do not depend on the real rules' coverage.

It reports on the syntax alone: `name += value` is IPL001 with a safe fix (`name = name + value`)
and the last plain assignment to `name` as the related location; `name @= v` gets a fix that does not
parse; `name.add_(v)` is IPL002 with an unsafe fix; `name[i] = v` is IPL202 (a risky rule, off by default); a name `__boom__` makes the
"rule" IPL001 raise, which the pipeline turns into IPL903.
"""

from __future__ import annotations

import libcst as cst

from inplace_lint.analysis.engine import AnalysisResult
from inplace_lint.analysis.findings import Finding, FixPlan
from inplace_lint.settings import Settings

OPS = {"AddAssign": "+", "SubtractAssign": "-", "MultiplyAssign": "*", "DivideAssign": "/"}


class _Visitor(cst.CSTVisitor):
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.findings: list[Finding] = []
        self.assigns: dict[str, cst.CSTNode] = {}
        self.boom = False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.assigns[target.target.value] = node.value
            elif isinstance(target.target, cst.Subscript) and isinstance(
                target.target.value, cst.Name
            ):
                name = target.target.value.value
                self.findings.append(
                    Finding(
                        "IPL202",
                        target.target,
                        f"`{name}` from an unknown callee is written in place",
                    )
                )

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Name):
            return
        name = node.target.value
        op = OPS.get(type(node.operator).__name__, "+")
        value = self.module.code_for_node(node.value)
        related = [(f"`{name}` was saved here", self.assigns[name])] if name in self.assigns else []
        new = f"{name} = {name} {op} {value}"
        if isinstance(node.operator, cst.MatrixMultiplyAssign):
            new = f"{name} = ({name} @"  # a broken fix, to test that it is refused
        fix = FixPlan(f"Rewrite as `{name} = {name} {op} ...`", [(node, new)])
        self.findings.append(
            Finding("IPL001", node, f"`{name} {op}= ...` changes `{name}` in place", related, fix)
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "add_"
            and isinstance(func.value, cst.Name)
        ):
            fix = FixPlan("Use the out-of-place `add`", [(func.attr, "add")], "unsafe")
            self.findings.append(
                Finding("IPL002", node, f"`{func.value.value}.add_()` writes a leaf", fix=fix)
            )

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "__boom__":
            self.boom = True


def fake_analyse(
    module: cst.Module,
    settings: Settings,
    top_level: frozenset[str] | None = None,
    facts: object = None,
) -> AnalysisResult:
    visitor = _Visitor(module)
    module.visit(visitor)
    result = AnalysisResult([f for f in visitor.findings if settings.is_enabled(f.code)])
    if visitor.boom and settings.is_enabled("IPL001"):
        result.errors.append(("IPL001", "Traceback (most recent call last):\nRuntimeError: boom\n"))
    return result


def analyse_everything(text: str):
    """The runner's text pre-filter skips files that never name torch or paddle; the fake
    analysis reports on any file, so nothing is skipped."""
    from inplace_lint.prefilter import Plan

    return Plan("full", reason="fake analysis")


def install() -> None:
    from inplace_lint import prefilter
    from inplace_lint.analysis import engine

    engine.analyse = fake_analyse
    prefilter.plan = analyse_everything
