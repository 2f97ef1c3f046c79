"""Settings for a document: the project's `[tool.inplace-lint]` plus the editor's select/ignore.

The project table is read from the nearest `pyproject.toml` above the document that has a
`[tool.inplace-lint]` table. Editor settings come from `initializationOptions` and
`workspace/configuration` (section `inplace-lint`) and act like the command line's options:
`select` replaces the project's `select`, `extendSelect` and `ignore` add to the project's.

Each pyproject is parsed once and kept while its mtime and size are unchanged; `forget()` drops
everything (the server calls it on `workspace/didChangeWatchedFiles`).
"""

from __future__ import annotations

import fnmatch
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from inplace_lint.settings import DEFAULT_SETTINGS, Settings

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ModuleNotFoundError:
        tomllib = None  # type: ignore[assignment]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClientSettings:
    """What the editor may set. ``None`` leaves the project's value alone."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, value: object) -> ClientSettings:
        """Read `{"select": [...], "extendSelect": [...], "ignore": [...]}`; junk is ignored."""
        if not isinstance(value, Mapping):
            return cls()
        if isinstance(value.get("inplace-lint"), Mapping):  # a whole settings tree was sent
            value = value["inplace-lint"]
        select = _codes(value.get("select"))
        return cls(
            select=select if "select" in value and select is not None else None,
            extend_select=_codes(value.get("extendSelect", value.get("extend-select"))) or (),
            ignore=_codes(value.get("ignore")) or (),
        )

    def over(self, other: ClientSettings) -> ClientSettings:
        """These settings, falling back to ``other`` where these say nothing."""
        return ClientSettings(
            select=self.select if self.select is not None else other.select,
            extend_select=self.extend_select or other.extend_select,
            ignore=self.ignore or other.ignore,
        )


def _codes(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = [part for part in value.replace(",", " ").split()]
    if not isinstance(value, (list, tuple)):
        return None
    return tuple(str(code).strip().upper() for code in value if str(code).strip())


@dataclass(frozen=True)
class ProjectConfig:
    """The `[tool.inplace-lint]` table of one pyproject.toml, as far as the server needs it."""

    root: Path
    table: Mapping

    def settings_for(self, path: Path | None, client: ClientSettings) -> Settings:
        table = self.table
        select = client.select if client.select is not None else _codes(table.get("select"))
        extend = (_codes(table.get("extend-select")) or ()) + client.extend_select
        ignore = (_codes(table.get("ignore")) or ()) + client.ignore
        if path is not None:
            ignore += self._per_file_ignores(path)
        return Settings(
            enabled=resolve_codes(select, extend, ignore),
            framework=str(table.get("framework", "auto")),
            unfixable=frozenset(_codes(table.get("unfixable")) or ()),
            extend_safe_fixes=frozenset(_codes(table.get("extend-safe-fixes")) or ()),
        )

    def _per_file_ignores(self, path: Path) -> tuple[str, ...]:
        table = self.table.get("per-file-ignores")
        if not isinstance(table, Mapping):
            return ()
        try:
            relative = path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            relative = path.as_posix()
        codes: list[str] = []
        for pattern, pattern_codes in table.items():
            negated = pattern.startswith("!")
            pattern = pattern[1:] if negated else pattern
            matched = fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern)
            if matched != negated:
                codes.extend(_codes(pattern_codes) or ())
        return tuple(codes)


def resolve_codes(
    select: Iterable[str] | None, extend_select: Iterable[str], ignore: Iterable[str]
) -> frozenset[str]:
    """The enabled codes, by prefix: `select` (default: the rules on by default), plus
    `extend_select`, minus `ignore`. `ALL` matches every code."""
    from inplace_lint.rules import all_rules

    rules = all_rules()

    def matching(prefixes: Iterable[str]) -> set[str]:
        prefixes = [p.upper() for p in prefixes]
        return {c for c in rules if any(p == "ALL" or c.startswith(p) for p in prefixes)}

    enabled = (
        matching(select)
        if select is not None
        else {code for code, rule in rules.items() if rule.default_enabled}
    )
    return frozenset((enabled | matching(extend_select)) - matching(ignore))


class ProjectConfigs:
    """Finds and caches the project configuration for documents."""

    def __init__(self) -> None:
        self._parsed: dict[Path, tuple[tuple[int, int], Mapping | None]] = {}

    def forget(self) -> None:
        self._parsed.clear()

    def settings_for(self, path: Path | None, client: ClientSettings) -> Settings:
        config = self.find(path.parent) if path is not None else None
        if config is None:
            if client == ClientSettings():
                return DEFAULT_SETTINGS
            config = ProjectConfig(Path.cwd(), {})
        return config.settings_for(path, client)

    def find(self, directory: Path) -> ProjectConfig | None:
        for folder in (directory, *directory.parents):
            table = self._table(folder / "pyproject.toml")
            if table is not None:
                return ProjectConfig(folder.resolve(), table)
        return None

    def _table(self, pyproject: Path) -> Mapping | None:
        try:
            stat = os.stat(pyproject)
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = self._parsed.get(pyproject)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        table = _read_table(pyproject)
        self._parsed[pyproject] = (stamp, table)
        return table


def _read_table(pyproject: Path) -> Mapping | None:
    if tomllib is None:
        return None
    try:
        with open(pyproject, "rb") as file:
            data = tomllib.load(file)
    except (OSError, ValueError) as error:  # TOMLDecodeError is a ValueError
        log.warning("Ignoring %s: %s", pyproject, error)
        return None
    table = data.get("tool", {}).get("inplace-lint")
    return table if isinstance(table, Mapping) else None
