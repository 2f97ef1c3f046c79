"""Path helpers that never raise on what users' trees contain, and stay cheap on large trees."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def resolved(path: Path) -> Path:
    """`path.resolve()` that survives symlink loops (Path.resolve raises RuntimeError on them
    before Python 3.13); a loop resolves as far as it goes and is reported when it is read.

    Discovery resolves every file of a tree: a file that is not a symlink is its resolved parent
    joined with its name, and parents are resolved once (one `lstat` per file, not one per
    path component)."""
    return _resolved(os.path.abspath(path))


@lru_cache(maxsize=65536)
def _resolved(absolute: str) -> Path:
    # a tree's files are asked about several times (discovery, excludes, settings): once each
    directory, name = os.path.split(absolute)
    if name in ("", ".", "..") or os.path.islink(absolute):
        return Path(os.path.realpath(absolute))
    return _resolved_directory(directory) / name


@lru_cache(maxsize=16384)
def _resolved_directory(absolute: str) -> Path:
    return Path(os.path.realpath(absolute))
