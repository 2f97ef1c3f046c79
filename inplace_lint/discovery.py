"""Which files a `check` run lints.

Directories are walked recursively for `.py`, `.pyi` and `.ipynb` files; a file named on the
command line is linted whatever its extension. Directories matching `exclude` / `extend-exclude`
(ruff's default list unless overridden) and paths ignored by `.gitignore` files (from the
repository root down) are skipped while walking; a path named on the command line is linted
anyway unless `--force-exclude` is given, as in ruff. Symlinked directories are not followed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from inplace_lint.config import SettingsResolver, matches_any, relative_to
from inplace_lint.paths import resolved

SOURCE_SUFFIXES = frozenset({".py", ".pyi", ".ipynb"})


class DiscoveryError(Exception):
    """A path named on the command line that cannot be linted (the CLI exits 2)."""


@dataclass
class Discovery:
    files: list[Path]
    skipped: list[tuple[Path, str]]  # (path, why) for --verbose


def discover(paths: list[Path], resolver: SettingsResolver, *, force_exclude: bool) -> Discovery:
    """The files to lint under ``paths``, sorted and without duplicates."""
    found: dict[Path, None] = {}
    skipped: list[tuple[Path, str]] = []
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise DiscoveryError(f"{path}: no such file or directory")
        ignore = _ignore_files(resolved(path))
        if force_exclude:
            why = _excluded(path, resolver, ignore, explicit=True)
            if why:
                skipped.append((path, why))
                continue
        if path.is_dir():
            _walk(path, resolver, ignore, found, skipped)
        else:
            found[path] = None
    return Discovery(sorted(found, key=display_key), skipped)


def excluded(path: Path, resolver: SettingsResolver) -> str | None:
    """Why a path named explicitly (it need not exist: `--stdin-filename`) is force-excluded."""
    ignore = _ignore_files(resolved(path))
    return _excluded(path, resolver, ignore, explicit=True, is_dir=False)


def display_key(path: Path) -> str:
    return path.as_posix()


def _walk(
    top: Path,
    resolver: SettingsResolver,
    ignore: _GitIgnore,
    found: dict[Path, None],
    skipped: list[tuple[Path, str]],
) -> None:
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError as error:
            skipped.append((directory, f"cannot list: {error.strerror or error}"))
            continue
        here = _Directory(directory, resolver, ignore)
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if not is_dir and os.path.splitext(name)[1] not in SOURCE_SUFFIXES:
                continue
            path = directory / name
            if is_dir:
                if entry.is_symlink():
                    continue
                why = here.excluded_directory(path, name)
            else:
                why = here.excluded_file(path, name, entry)
            if why:
                skipped.append((path, why))
            elif is_dir:
                stack.append(path)
            else:
                found[path] = None


class _Directory:
    """What every file of one walked directory shares: its config, its path relative to the
    config's root, whether any `.gitignore` applies. The answers are ``_excluded``'s, computed
    once per directory instead of once per file (the warm run's budget is a fraction of a
    second for thousands of files)."""

    def __init__(self, directory: Path, resolver: SettingsResolver, ignore: _GitIgnore) -> None:
        self.resolver = resolver
        self.ignore = ignore
        self.config = resolver.config_for(directory)
        self.patterns = resolver.excludes(self.config)
        self.real = resolved(directory)
        # a file's path relative to the root is its directory's plus its name (relative_to is
        # lexical once the directory is resolved, inside the root or not)
        rel = relative_to(self.real, self.config.root)
        self.prefix = "" if rel == "." else rel + "/"
        gitignore = resolver.respect_gitignore(self.config)
        self.chain = ignore.chain(self.real) if gitignore else []

    def excluded_directory(self, path: Path, name: str) -> str | None:
        """``_excluded`` for a subdirectory (not a symlink: those are not walked)."""
        if self.resolver.config_for(path) is not self.config:  # it has a configuration of its own
            return _excluded(path, self.resolver, self.ignore, explicit=False, is_dir=True)
        return self._judge(self.prefix + name, name + "/")

    def excluded_file(self, path: Path, name: str, entry: os.DirEntry) -> str | None:
        try:
            link = entry.is_symlink()
        except OSError:
            link = True
        if link:
            return _excluded(path, self.resolver, self.ignore, explicit=False, is_dir=False)
        return self._judge(self.prefix + name, name)

    def _judge(self, rel: str, name_in_chain: str) -> str | None:
        if matches_any(rel, self.patterns):
            return _excluded_by(self.config)
        if self.chain and self.ignore.file_ignored(self.chain, name_in_chain):
            return _GITIGNORED
        return None


def _excluded(
    path: Path,
    resolver: SettingsResolver,
    ignore: _GitIgnore,
    *,
    explicit: bool,
    is_dir: bool | None = None,
) -> str | None:
    """Why ``path`` is excluded, or None. ``explicit``: check its ancestors too."""
    if is_dir is None:
        is_dir = path.is_dir()
    config = resolver.config_for(path.parent if not is_dir else path)
    patterns = resolver.excludes(config)
    candidates = [path]
    if explicit:
        real = resolved(path)
        candidates = [real, *[p for p in real.parents if _is_under(p, config.root)]]
    for candidate in candidates:
        if matches_any(relative_to(candidate, config.root), patterns):
            return _excluded_by(config)
    if resolver.respect_gitignore(config) and ignore.ignored(resolved(path), is_dir):
        return _GITIGNORED
    return None


_GITIGNORED = "ignored by .gitignore"


def _excluded_by(config) -> str:
    return f"excluded by {'exclude' if config.path is None else config.path}"


def _is_under(path: Path, root: Path) -> bool:
    return path != root and root in path.parents


def _git_root(path: Path) -> Path:
    start = path if path.is_dir() else path.parent
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def _ignore_files(path: Path) -> _GitIgnore:
    """The ignore files that apply below ``path``: `.gitignore` (and `.git/info/exclude`) only
    inside a git repository, as ruff and git themselves do (an exported tree or an unpacked
    archive lints every file its `.gitignore` names); `.ignore` files everywhere."""
    root = _git_root(path)
    return _GitIgnore(root, git=(root / ".git").exists())


class _GitIgnore:
    """The `.gitignore` files from ``root`` down to a path, read once per directory."""

    def __init__(self, root: Path, git: bool = True) -> None:
        self.root = root
        self._names = (".gitignore", ".ignore") if git else (".ignore",)
        self._specs: dict[Path, object | None] = {}
        self._chains: dict[Path, list[tuple[object, str]]] = {}

    def _spec(self, directory: Path) -> object | None:
        if directory not in self._specs:
            lines: list[str] = []
            for name in self._names:
                try:
                    lines += (
                        (directory / name)
                        .read_text(encoding="utf-8", errors="replace")
                        .splitlines()
                    )
                except OSError:
                    pass
            if directory == self.root:
                try:
                    lines += (
                        (directory / ".git" / "info" / "exclude")
                        .read_text(encoding="utf-8", errors="replace")
                        .splitlines()
                    )
                except OSError:
                    pass
            spec = None
            if any(line.strip() and not line.startswith("#") for line in lines):
                import pathspec

                spec = pathspec.GitIgnoreSpec.from_lines(lines)
            self._specs[directory] = spec
        return self._specs[directory]

    def chain(self, directory: Path) -> list[tuple[object, str]]:
        """The ignore specs that judge the files of ``directory``, from the root down, each with
        the path from its folder to ``directory`` ("" or "a/b/"): what ``ignored`` walks for a
        file there, computed once per directory."""
        if directory in self._chains:
            return self._chains[directory]
        if directory == self.root:
            parent: list[tuple[object, str]] = []
        elif self.root not in directory.parents:
            self._chains[directory] = []
            return []
        else:
            name = directory.name + "/"
            parent = [(spec, prefix + name) for spec, prefix in self.chain(directory.parent)]
        spec = self._spec(directory)
        chain = parent + [(spec, "")] if spec is not None else parent
        self._chains[directory] = chain
        return chain

    def file_ignored(self, chain: list[tuple[object, str]], name: str) -> bool:
        """``ignored`` for the entry ``name`` of the directory whose ``chain`` is given (a
        directory's name ends with "/", as ``ignored`` writes it)."""
        decision = False
        for spec, prefix in chain:
            result = spec.check_file(prefix + name)
            if result.include is not None:
                decision = result.include
        return decision

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Git's answer: the deepest `.gitignore` with an opinion wins, from the root down."""
        if self.root not in path.parents:
            return False
        return self.file_ignored(self.chain(path.parent), path.name + ("/" if is_dir else ""))
