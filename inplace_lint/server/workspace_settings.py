"""Settings for a document: the project's `[tool.inplace-lint]` plus the editor's select/ignore.

The project table comes from the nearest `pyproject.toml` above the document that has one, read
by ``inplace_lint.config`` exactly as the command line reads it. Editor settings come from
`initializationOptions` and `workspace/configuration` (section `inplace-lint`) and act as the
command line's `--select`, `--extend-select` and `--ignore` do: a layer on top of the file's.

A configuration file is re-read when its mtime or size changes, and everything is re-read after
``forget()`` (the server calls it on `workspace/didChangeWatchedFiles`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from inplace_lint.config import ConfigError, Overrides, RuleSelection, SettingsResolver
from inplace_lint.settings import Settings


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


class ProjectSettings:
    """Settings for documents: ``config.SettingsResolver`` with the editor's settings as its
    command-line overrides, rebuilt when a configuration file changes."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self.client = ClientSettings()
        self._resolver: SettingsResolver | None = None
        self._stamps: dict[Path, tuple[int, int] | None] = {}
        self.errors: list[str] = []  # configuration problems not yet shown to the user

    def forget(self) -> None:
        """Re-read every configuration file on the next lint."""
        self._resolver = None
        self._stamps.clear()

    def use_client_settings(self, client: ClientSettings) -> None:
        if client != self.client:
            self.client = client
            self.forget()

    def settings_for(self, path: Path | None) -> Settings:
        target = path if path is not None else (self.root or Path.cwd()) / "untitled.py"
        try:
            resolver = self._current_resolver()
            config = resolver.config_for(target.parent)
            if config.path is not None and self._changed(config.path):
                self.forget()
                resolver = self._current_resolver()
            return resolver(target)
        except ConfigError as error:
            self.errors.append(f"{error}; using the defaults until it is fixed")
            self._resolver = SettingsResolver(self._overrides(isolated=True), self.root)
            return self._resolver(target)

    def _current_resolver(self) -> SettingsResolver:
        if self._resolver is None:
            self._resolver = SettingsResolver(self._overrides(), self.root)
        return self._resolver

    def _overrides(self, isolated: bool = False) -> Overrides:
        client = self.client
        selection = RuleSelection(client.select, client.ignore, client.extend_select)
        return Overrides(selection=selection, isolated=isolated)

    def _changed(self, path: Path) -> bool:
        try:
            stat = os.stat(path)
            stamp = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamp = None
        known = self._stamps.setdefault(path, stamp)
        return known != stamp
