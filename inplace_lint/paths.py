"""Path helpers that never raise on what users' trees contain."""

from __future__ import annotations

import os
from pathlib import Path


def resolved(path: Path) -> Path:
    """`path.resolve()` that survives symlink loops (Path.resolve raises RuntimeError on them
    before Python 3.13); a loop resolves as far as it goes and is reported when it is read."""
    return Path(os.path.realpath(path))
