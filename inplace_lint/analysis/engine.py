"""Parse result -> index -> dataflow -> rules, with each rule isolated from the others' failures."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field

import libcst as cst

from inplace_lint.analysis.dataflow import ModuleDataflow
from inplace_lint.analysis.findings import Finding
from inplace_lint.analysis.index import build_index
from inplace_lint.analysis.model import ModuleAnalysis
from inplace_lint.analysis.textfacts import TextFacts
from inplace_lint.rules import all_rules
from inplace_lint.settings import Settings


@dataclass
class AnalysisResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (rule code, traceback text)


def build_analysis(
    module: cst.Module, top_level: frozenset[str] | None = None, facts: TextFacts | None = None
) -> ModuleAnalysis:
    index = build_index(module)
    analysis = ModuleAnalysis(module, index)
    if not index.frameworks:
        return analysis
    flow = ModuleDataflow(module, index, top_level, facts)
    for result in flow.run():
        analysis.writes.extend(result.writes)
        analysis.out_calls.extend(result.out_calls)
        analysis.rebinds.extend(result.rebinds)
        analysis.reuses.extend(result.reuses)
        analysis.function_issues.extend(result.function_issues)
        analysis.adjacency.extend(result.adjacency)
    # a container called here raises only where its in-place child gets a tensor that requires
    # grad and a backward (or a return, or `self.x = ...`) then reaches the saving child; one
    # never called here is judged by its construction
    analysis.adjacency = [a for a in analysis.adjacency if _adjacency_holds(a, flow)]
    # (a container built one way or the other by an option, in the constructor's run on its
    # own, and built one way for an instance whose call gives the option: that run's holds)
    certain = {id(a.node) for a in analysis.adjacency if a.condition is None}
    analysis.adjacency = [
        a for a in analysis.adjacency if a.condition is None or id(a.node) not in certain
    ]
    analysis.apply_uses = flow.apply_uses
    return analysis


def _adjacency_holds(adjacent, flow: ModuleDataflow) -> bool:
    calls = flow.adjacency_calls.get(id(adjacent.node))
    if calls is None:
        return True
    # (a call in a function every caller of which runs it without grad records nothing: an
    # inference-only model's `Sequential(Sigmoid, ReLU(inplace=True))`)
    return any(
        op is not None and op in flow.reached_ops and function not in flow.guarded
        for function, op in calls
    )


def analyse(
    module: cst.Module,
    settings: Settings,
    top_level: frozenset[str] | None = None,
    facts: TextFacts | None = None,
) -> AnalysisResult:
    """``top_level``: what ``ModuleDataflow`` analyses on its own (None: every function);
    ``facts``: what the file's text says (``textfacts.TextFacts``; None: nothing known)."""
    result = AnalysisResult()
    rules = [rule() for code, rule in all_rules().items() if settings.is_enabled(code)]
    if not any(code[3] in "012" for code in (r.code for r in rules)):
        return result
    try:
        analysis = build_analysis(module, top_level, facts)
    except RecursionError:
        raise
    except Exception:  # noqa: BLE001 - fault isolation: reported as IPL903, the run goes on
        result.errors.append(("dataflow", traceback.format_exc()))
        return result
    if settings.framework != "auto":
        analysis.writes = [w for w in analysis.writes if w.fw == settings.framework]
    seen: set[tuple[str, int]] = set()
    for rule in rules:
        try:
            for finding in rule.check(analysis):
                key = (finding.code, id(finding.node))
                if key not in seen:  # a helper analysed in several contexts reports once
                    seen.add(key)
                    result.findings.append(finding)
        except Exception:  # noqa: BLE001 - one rule's failure must not cost the others' findings
            result.errors.append((rule.code, traceback.format_exc()))
    promised = {id(f.node) for f in result.findings if f.code in _PROMISES}
    if promised:
        # A block analysed for the instance built here raises (IPL001); analysed for any
        # configuration it was a warning (IPL203) at the same write, and a base class's forward
        # analysed for itself only hedged (IPL201) where its subclass's run proves it: the error
        # says it all.
        result.findings = [
            f for f in result.findings if f.code not in _HEDGES or id(f.node) not in promised
        ]
    return result


# The errors whose write IPL203 reports when it happens only in some configurations (the leaf
# errors too: a helper's own run says IPL002 where a caller nothing here calls hedged it).
_PROMISES = frozenset({"IPL001", "IPL002", "IPL003", "IPL006", "IPL011", "IPL012"})
# What such an error makes redundant at the same write.
_HEDGES = frozenset({"IPL203", "IPL201", "IPL202"})
