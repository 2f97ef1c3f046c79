"""Resolved settings for one file: what the configuration layer hands to the library API."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Settings:
    # Codes of the enabled rules, already resolved from select/ignore/extend-select/per-file-ignores.
    enabled: frozenset[str] | None = None  # None: every rule that is on by default
    framework: str = "auto"  # "torch" | "paddle" | "auto"
    unfixable: frozenset[str] = frozenset()
    extend_safe_fixes: frozenset[str] = frozenset()
    # rule options, e.g. {"max-file-bytes": 5_000_000}; keys are documented in README
    options: dict = field(default_factory=dict, hash=False, compare=False)

    def is_enabled(self, code: str) -> bool:
        if self.enabled is None:
            from inplace_lint.rules import all_rules

            rule = all_rules().get(code)
            return rule is not None and rule.default_enabled
        return code in self.enabled

    def cache_key(self) -> str:
        """A stable text for cache keys: everything here that can change a file's result."""
        return repr(
            (
                sorted(self.enabled) if self.enabled is not None else None,
                self.framework,
                sorted(self.unfixable),
                sorted(self.extend_safe_fixes),
                sorted(self.options.items()),
            )
        )


DEFAULT_SETTINGS = Settings()
