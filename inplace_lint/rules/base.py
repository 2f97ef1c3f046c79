"""The rule base class and the registry.

One rule = one module in this package = one ``Rule`` subclass. The class docstring is the rule's
reference page (rendered into the top-level ``rules/`` folder by ``scripts/gen_rule_docs.py``);
``VALID`` / ``INVALID`` examples are run as tests. A subclass registers itself by being defined.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from inplace_lint.diagnostics import Severity

if TYPE_CHECKING:
    from inplace_lint.analysis.findings import Finding
    from inplace_lint.analysis.model import ModuleAnalysis

TIERS = {"0": "error", "1": "silent", "2": "risky", "9": "meta"}


@dataclass(frozen=True)
class Example:
    code: str
    fixed: str | None = None  # the expected source after the rule's fix, if it has one


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    framework: ClassVar[str | None] = "torch"
    summary: ClassVar[str]
    default_enabled: ClassVar[bool] = True
    fix_applicability: ClassVar[str | None] = None  # "safe" | "unsafe" | None (no fix)
    VALID: ClassVar[tuple[Example, ...]] = ()
    INVALID: ClassVar[tuple[Example, ...]] = ()

    _registry: ClassVar[dict[str, type[Rule]]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            Rule._registry[cls.code] = cls

    @classmethod
    def tier(cls) -> str:
        return TIERS[cls.code[3]]

    @classmethod
    def has_fix(cls) -> bool:
        return cls.fix_applicability is not None

    def check(self, analysis: ModuleAnalysis) -> Iterator[Finding]:
        """Yield findings from the module's dataflow facts. Meta rules yield nothing here."""
        return iter(())


def all_rules() -> dict[str, type[Rule]]:
    """Every rule, by code, sorted by code."""
    _import_rule_modules()
    return dict(sorted(Rule._registry.items()))


_imported = False


def _import_rule_modules() -> None:
    global _imported
    if _imported:
        return
    import inplace_lint.rules as package

    for info in pkgutil.iter_modules(package.__path__):
        if info.name != "base" and not info.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{info.name}")
    _imported = True
