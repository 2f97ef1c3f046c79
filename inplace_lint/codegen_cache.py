"""A bytecode cache for the methods ``dataclasses`` generates, so ``import libcst`` costs less.

libcst's node classes are frozen dataclasses: importing libcst makes ``dataclasses`` write the
source of about 850 methods (``__init__``, ``__eq__``, ``__repr__`` ...) and compile each with
``exec``. The compiling is half of the import (measured: the whole pipeline's import, libcst
included, 0.177 s -> 0.082 s of CPU with the compiled code taken from this cache), and the import is
paid by every run that lints anything: the parent process imports the pipeline once, before its
workers fork.

While ``installed()`` is active, ``dataclasses`` finds this module's ``exec`` in its own globals
(a module global shadows the builtin) instead of the builtin. Given a source text, it takes the
code object compiled from exactly that text from the cache, or compiles the text (as the builtin
would: filename ``<string>``, no inherited ``__future__`` flags; ``dataclasses`` has none) and
keeps it. So the functions made are those the builtin would make; the cache only skips the
compiling. Entries are keyed by the whole source text; the file is named by the interpreter's
bytecode magic number (``marshal``'s format follows it), so another Python never reads it.

The file lives in the user's cache folder (``$XDG_CACHE_HOME/inplace-lint`` or
``~/.cache/inplace-lint``), like Python's own ``__pycache__`` a cache of compiled code, not of
results: it does not depend on the files linted, and the result cache (``--cache-dir``,
``--no-cache``) is separate. ``INPLACE_LINT_CODEGEN_CACHE`` names another folder, or ``off``
switches it off. A file that cannot be read or written is no cache; nothing here raises. The
file is read when libcst starts importing, so a run that never imports it (a warm run) does not
pay for reading it.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ENV = "INPLACE_LINT_CODEGEN_CACHE"
# Above this many entries the file is written anew with only what this run used: the texts of
# older libcst versions, which are never hit again, do not pile up.
MAX_ENTRIES = 20_000


class CodegenCache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, object] | None = None  # loaded on the first text
        self.used: dict[str, object] = {}
        self.misses = 0

    def exec(self, source, *args, **kwargs):
        if type(source) is str:
            source = self._code(source)
        return builtins.exec(source, *args, **kwargs)  # noqa: S102 - what dataclasses runs

    def _code(self, text: str):
        if self.entries is None:
            if "libcst" not in sys.modules:
                # Loading the file costs ~20 ms: worth it for libcst's ~850 methods, not for the
                # few classes of a run that never imports libcst (a warm run).
                return compile(text, "<string>", "exec", dont_inherit=True)
            self.entries = self._load()
        code = self.entries.get(text)
        if code is None:
            code = compile(text, "<string>", "exec", dont_inherit=True)
            self.entries[text] = code
            self.misses += 1
        self.used[text] = code
        return code

    def _load(self) -> dict[str, object]:
        if self.path is None:
            return {}
        try:
            with open(self.path, "rb") as f:
                entries = marshal.load(f)
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        return entries if type(entries) is dict else {}

    def save(self) -> None:
        """Write the file if this run compiled anything (atomically; failures are ignored)."""
        if self.path is None or not self.misses or self.entries is None:
            return
        entries = self.entries if len(self.entries) <= MAX_ENTRIES else self.used
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".codegen-")
            try:
                with os.fdopen(fd, "wb") as f:
                    marshal.dump(entries, f)
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, ValueError):
            pass


def cache_path() -> Path | None:
    """Where the cache file is, or None when it is switched off or there is no cache folder."""
    chosen = os.environ.get(ENV)
    if chosen is not None and chosen.strip().lower() in ("", "0", "off", "false", "no"):
        return None
    if chosen:
        folder = Path(chosen)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        if base.startswith("~"):  # no home folder to expand to
            return None
        folder = Path(base) / "inplace-lint"
    tag = sys.implementation.cache_tag or "python"
    return folder / f"codegen-{tag}-{importlib.util.MAGIC_NUMBER.hex()}.marshal"


def _applicable() -> bool:
    """``dataclasses`` compiles with ``exec`` from a module without ``__future__`` imports."""
    import __future__

    module = vars(dataclasses)
    return "exec" not in module and not any(
        isinstance(value, __future__._Feature) for value in module.values()
    )


@contextlib.contextmanager
def installed(path: Path | None = None) -> Iterator[CodegenCache | None]:
    """Serve ``dataclasses``' compiling from the cache while the block runs; save on the way out.
    Yields None (and changes nothing) where it does not apply or is switched off."""
    path = path if path is not None else cache_path()
    if path is None or not _applicable():
        yield None
        return
    cache = CodegenCache(path)
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    try:
        yield cache
    finally:
        if vars(dataclasses).get("exec") == cache.exec:
            del dataclasses.exec  # type: ignore[attr-defined]
        cache.save()
