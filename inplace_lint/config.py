"""Configuration: `[tool.inplace-lint]` in the nearest pyproject.toml, command-line overrides, and
the per-file ``Settings`` they resolve to.

Rule selection works like ruff's: layers (the defaults, the config file, the command line) are
applied in order; inside a layer the more specific selector wins, so `select = ["IPL0"]` with
`ignore = ["IPL001"]` turns IPL001 off and `ignore = ["IPL0"]` with `extend-select = ["IPL001"]`
keeps it on. `ALL` and any code prefix (`IPL`, `IPL0`, `IPL00`) are selectors.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from inplace_lint.paths import resolved
from inplace_lint.settings import Settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

SECTION = "inplace-lint"
FRAMEWORKS = ("auto", "torch", "paddle")

# Directories never walked into unless named on the command line (ruff's list, plus our cache).
DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".inplace_lint_cache",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

# Options that reach the pipeline rather than one rule (name -> accepted type; 0 turns a budget
# off). Rules add theirs with an ``OPTIONS`` class attribute (name -> default value or type).
PIPELINE_OPTIONS: dict[str, Any] = {
    "max-file-bytes": int,
    "max-file-lines": int,
    "max-file-seconds": float,
}

_LIST_KEYS = (
    "select",
    "ignore",
    "extend-select",
    "exclude",
    "extend-exclude",
    "unfixable",
    "extend-safe-fixes",
)
_CODE_LIST_KEYS = ("select", "ignore", "extend-select", "unfixable", "extend-safe-fixes")


class ConfigError(Exception):
    """A configuration problem; the CLI prints it and exits 2."""

    def __init__(self, message: str, path: Path | str | None = None, key: str | None = None):
        where = f"{path}: " if path else ""
        what = f"`{key}`: " if key else ""
        super().__init__(f"{where}{what}{message}")
        self.path = path
        self.key = key


@dataclass(frozen=True)
class RuleSelection:
    """One layer of rule selection (the config file, or the command line)."""

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    """One `[tool.inplace-lint]` table, validated. Paths in it are relative to ``root``."""

    path: Path | None = None  # the file it came from; None for built-in defaults
    root: Path = field(default_factory=Path.cwd)
    selection: RuleSelection = RuleSelection()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    unfixable: tuple[str, ...] = ()
    extend_safe_fixes: tuple[str, ...] = ()
    framework: str = "auto"
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def all_excludes(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude


@dataclass(frozen=True)
class Overrides:
    """What the command line says; ``None`` means "not given"."""

    selection: RuleSelection = RuleSelection()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool | None = None
    unfixable: tuple[str, ...] = ()
    extend_safe_fixes: tuple[str, ...] = ()
    framework: str | None = None
    config_file: Path | None = None  # --config FILE: used for every path
    inline: tuple[str, ...] = ()  # --config 'KEY = VALUE'
    isolated: bool = False


# --- reading -----------------------------------------------------------------------------------


def load_config_file(path: Path) -> Config:
    """Read one TOML file: a pyproject.toml's `[tool.inplace-lint]`, or any other .toml's top
    level (as `--config inplace-lint.toml` passes it)."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"cannot read: {error.strerror or error}", path) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"invalid TOML: {error}", path) from None
    if path.name == "pyproject.toml":
        table = data.get("tool", {}).get(SECTION, {})
    else:
        table = data.get("tool", {}).get(SECTION, data)
    if not isinstance(table, dict):
        raise ConfigError("must be a table", path, f"tool.{SECTION}")
    return parse_table(table, path, resolved(path.parent))


def has_section(pyproject: Path) -> bool:
    """Whether a pyproject.toml has a `[tool.inplace-lint]` table (cheap text check first)."""
    try:
        text = pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return f"tool.{SECTION}" in text or f'tool."{SECTION}"' in text


def find_pyproject(directory: Path, memo: dict[Path, Path | None] | None = None) -> Path | None:
    """The nearest pyproject.toml with a `[tool.inplace-lint]` table, from ``directory`` up.
    ``memo`` (folder -> answer) lets a tree walk look at each folder once."""
    memo = {} if memo is None else memo
    walked: list[Path] = []
    found: Path | None = None
    for folder in (directory, *directory.parents):
        if folder in memo:
            found = memo[folder]
            break
        walked.append(folder)
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and has_section(candidate):
            found = candidate
            break
    for folder in walked:  # the nearest table from each folder walked is the one found
        memo[folder] = found
    return found


def parse_table(table: Mapping[str, Any], path: Path | str | None, root: Path) -> Config:
    """Validate a `[tool.inplace-lint]` table. Every problem names the file and the key."""
    known = set(_LIST_KEYS) | {"per-file-ignores", "respect-gitignore", "framework"}
    known |= set(known_options())
    for key in table:
        if key not in known:
            hint = _close_match(key, sorted(known))
            raise ConfigError(f"unknown key{hint}", path, key)
    values: dict[str, Any] = {}
    for key in _LIST_KEYS:
        if key in table:
            values[key] = _string_list(table[key], path, key)
    for key in _CODE_LIST_KEYS:
        if key in values:
            for selector in values[key]:
                check_selector(selector, path, key)
    per_file = _per_file_ignores(table.get("per-file-ignores", {}), path)
    respect = table.get("respect-gitignore", True)
    if not isinstance(respect, bool):
        raise ConfigError("must be true or false", path, "respect-gitignore")
    framework = table.get("framework", "auto")
    if framework not in FRAMEWORKS:
        raise ConfigError(
            f"must be one of {', '.join(FRAMEWORKS)}; got {framework!r}", path, "framework"
        )
    options = tuple(
        sorted(
            (key, _option_value(key, table[key], path)) for key in known_options() if key in table
        )
    )
    select = values.get("select")
    return Config(
        path=Path(path) if path else None,
        root=root,
        selection=RuleSelection(
            select=tuple(select) if select is not None else None,
            ignore=tuple(values.get("ignore", ())),
            extend_select=tuple(values.get("extend-select", ())),
        ),
        per_file_ignores=per_file,
        exclude=tuple(values.get("exclude", DEFAULT_EXCLUDE)),
        extend_exclude=tuple(values.get("extend-exclude", ())),
        respect_gitignore=respect,
        unfixable=tuple(values.get("unfixable", ())),
        extend_safe_fixes=tuple(values.get("extend-safe-fixes", ())),
        framework=framework,
        options=options,
    )


def parse_inline(assignments: Iterable[str]) -> dict[str, Any]:
    """`--config 'select = ["IPL0"]'` style overrides, parsed as TOML."""
    merged: dict[str, Any] = {}
    for text in assignments:
        try:
            merged.update(tomllib.loads(text))
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(
                f"--config {text!r} is neither a file nor a valid `KEY = VALUE` TOML line ({error})"
            ) from None
    return merged


def known_options() -> dict[str, Any]:
    from inplace_lint.rules import all_rules

    options = dict(PIPELINE_OPTIONS)
    for rule in all_rules().values():
        options.update(getattr(rule, "OPTIONS", {}) or {})
    return options


def check_selector(selector: str, path: Path | str | None = None, key: str | None = None) -> None:
    if not expand_selector(selector):
        raise ConfigError(
            f"unknown rule selector {selector!r} (expected ALL, a code like IPL001, or a prefix like IPL0)",
            path,
            key,
        )


def expand_selector(selector: str) -> list[str]:
    from inplace_lint.rules import all_rules

    codes = list(all_rules())
    selector = selector.strip().upper()
    if selector == "ALL":
        return codes
    return [code for code in codes if code.startswith(selector)] if selector else []


def _string_list(value: Any, path: Path | str | None, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"must be a list of strings; got {value!r}", path, key)
    return value


def _per_file_ignores(
    value: Any, path: Path | str | None
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    key = "per-file-ignores"
    if not isinstance(value, dict):
        raise ConfigError("must be a table of glob = [codes]", path, key)
    out = []
    for pattern, codes in value.items():
        codes = _string_list(codes, path, f"{key}.{pattern}")
        for code in codes:
            check_selector(code, path, f"{key}.{pattern}")
        out.append((pattern, tuple(codes)))
    return tuple(out)


def _option_value(key: str, value: Any, path: Path | str | None) -> Any:
    declared = known_options()[key]
    expected = declared if isinstance(declared, type) else type(declared)
    ok = isinstance(value, expected) and not (expected is int and isinstance(value, bool))
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        raise ConfigError(f"must be {expected.__name__}; got {value!r}", path, key)
    if expected in (int, float) and value < 0:
        raise ConfigError(f"must not be negative; got {value!r}", path, key)
    return value


def _close_match(key: str, known: list[str]) -> str:
    import difflib

    match = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean `{match[0]}`?)" if match else ""


def parse_per_file_ignore_arg(text: str) -> tuple[str, tuple[str, ...]]:
    """`--per-file-ignores 'tests/*:IPL001,IPL002'`."""
    pattern, sep, codes = text.rpartition(":")
    if not sep or not pattern:
        raise ConfigError(f"--per-file-ignores {text!r}: expected PATTERN:CODE[,CODE...]")
    selectors = tuple(c.strip() for c in codes.split(",") if c.strip())
    for selector in selectors:
        check_selector(selector, None, "--per-file-ignores")
    return pattern, selectors


# --- resolving ---------------------------------------------------------------------------------


def resolve_enabled(layers: Iterable[RuleSelection]) -> frozenset[str]:
    from inplace_lint.rules import all_rules

    rules = all_rules()
    enabled = {code for code, rule in rules.items() if rule.default_enabled}
    for layer in layers:
        if layer.select is not None:
            enabled = set()
        moves = [(s, True) for s in (layer.select or ())]
        moves += [(s, True) for s in layer.extend_select]
        moves += [(s, False) for s in layer.ignore]
        # Less specific first, so the more specific selector has the last word; ignore after
        # select at equal specificity.
        moves.sort(key=lambda m: (_specificity(m[0]), not m[1]))
        for selector, on in moves:
            for code in expand_selector(selector):
                (enabled.add if on else enabled.discard)(code)
    return frozenset(enabled)


def _specificity(selector: str) -> int:
    selector = selector.strip().upper()
    return 0 if selector == "ALL" else len(selector)


def matches_any(rel_path: str, patterns: Iterable[str]) -> bool:
    """Glob match against the path relative to the config root, or against the file name."""
    name = rel_path.rsplit("/", 1)[-1]
    whole, directory = _compiled(tuple(patterns))
    return bool(whole.match(rel_path) or whole.match(name) or directory.match(rel_path))


@lru_cache(maxsize=256)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern, re.Pattern]:
    """The patterns as two regexes: the path or name itself, and anything under a directory
    pattern (what `fnmatchcase(p)` and `fnmatchcase(p + "/*")` would say, in one match each)."""
    cleaned = [p.rstrip("/").removeprefix("./") for p in patterns]
    if not cleaned:
        never = re.compile(r"(?!)")
        return never, never
    whole = "|".join(f"(?:{fnmatch.translate(p)})" for p in cleaned)
    under = "|".join(f"(?:{fnmatch.translate(p + '/*')})" for p in cleaned)
    return re.compile(whole), re.compile(under)


def per_file_ignored(rel_path: str, per_file: Iterable[tuple[str, tuple[str, ...]]]) -> list[str]:
    """Selectors ignored for this file; a pattern starting with `!` applies to non-matching files."""
    out: list[str] = []
    for pattern, codes in per_file:
        negated = pattern.startswith("!")
        hit = matches_any(rel_path, [pattern[1:] if negated else pattern])
        if hit != negated:
            out.extend(codes)
    return out


def relative_to(path: Path, root: Path) -> str:
    try:
        return resolved(path).relative_to(root).as_posix()
    except ValueError:
        return Path(os.path.relpath(resolved(path), root)).as_posix()


class SettingsResolver:
    """Maps a file to its Config and Settings. Picklable; caches per directory."""

    def __init__(self, overrides: Overrides | None = None, cwd: Path | None = None) -> None:
        self.overrides = overrides or Overrides()
        self.cwd = resolved(cwd or Path.cwd())
        self._configs: dict[Path, Config] = {}
        self._pyprojects: dict[Path, Path | None] = {}  # folder -> nearest pyproject with a table
        self._loaded: dict[Path | None, Config] = {}  # that pyproject (None: none) -> its Config
        self._settings: dict[tuple, Settings] = {}
        self._inline = parse_inline(self.overrides.inline)
        self._fixed: Config | None = None
        if self.overrides.config_file is not None:
            self._fixed = self._with_inline(load_config_file(self.overrides.config_file))
        elif self.overrides.isolated:
            self._fixed = self._with_inline(Config(root=self.cwd))

    def _with_inline(self, config: Config) -> Config:
        if not self._inline:
            return config
        base = _config_as_table(config)
        base.update(self._inline)
        return parse_table(base, "--config", config.root)

    def config_for(self, directory: Path) -> Config:
        if self._fixed is not None:
            return self._fixed
        unresolved = directory
        cached = self._configs.get(directory)
        if cached is not None:
            return cached
        directory = resolved(directory)
        cached = self._configs.get(directory)
        if cached is None:
            pyproject = find_pyproject(directory, self._pyprojects)
            cached = self._loaded.get(pyproject)  # one Config per file: read and checked once
            if cached is None:
                if pyproject is None:
                    cached = Config(root=self.cwd)
                else:
                    cached = load_config_file(pyproject)
                cached = self._with_inline(cached)
                self._loaded[pyproject] = cached
            self._configs[directory] = cached
        self._configs[unresolved] = cached
        return cached

    def respect_gitignore(self, config: Config) -> bool:
        flag = self.overrides.respect_gitignore
        return config.respect_gitignore if flag is None else flag

    def excludes(self, config: Config) -> tuple[str, ...]:
        return config.all_excludes + self.overrides.extend_exclude

    def __call__(self, path: Path) -> Settings:
        path = Path(path)
        config = self.config_for(path.parent if path.name else path)
        ignored: list[str] = []
        if config.per_file_ignores:
            ignored += per_file_ignored(relative_to(path, config.root), config.per_file_ignores)
        if self.overrides.per_file_ignores:
            rel = relative_to(path, self.cwd)
            ignored += per_file_ignored(rel, self.overrides.per_file_ignores)
        key = (config.path, config.root, tuple(ignored))
        settings = self._settings.get(key)
        if settings is None:
            settings = self._build(config, ignored)
            self._settings[key] = settings
        return settings

    def _build(self, config: Config, ignored: list[str]) -> Settings:
        o = self.overrides
        layers = [config.selection, o.selection]
        if ignored:
            layers.append(RuleSelection(ignore=tuple(ignored)))
        enabled = resolve_enabled(layers)
        return Settings(
            enabled=enabled,
            framework=o.framework or config.framework,
            unfixable=_codes(config.unfixable + o.unfixable),
            extend_safe_fixes=_codes(config.extend_safe_fixes + o.extend_safe_fixes),
            options=dict(config.options),
        )


def _codes(selectors: Iterable[str]) -> frozenset[str]:
    return frozenset(code for selector in selectors for code in expand_selector(selector))


def _config_as_table(config: Config) -> dict[str, Any]:
    table: dict[str, Any] = {
        "ignore": list(config.selection.ignore),
        "extend-select": list(config.selection.extend_select),
        "per-file-ignores": {p: list(c) for p, c in config.per_file_ignores},
        "exclude": list(config.exclude),
        "extend-exclude": list(config.extend_exclude),
        "respect-gitignore": config.respect_gitignore,
        "unfixable": list(config.unfixable),
        "extend-safe-fixes": list(config.extend_safe_fixes),
        "framework": config.framework,
        **dict(config.options),
    }
    if config.selection.select is not None:
        table["select"] = list(config.selection.select)
    return table
