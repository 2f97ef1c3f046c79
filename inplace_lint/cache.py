"""The result cache: a file whose content, tool and settings did not change is not linted again.

Layout (``.inplace_lint_cache/`` by default; ``--cache-dir`` / ``--no-cache`` in the CLI)::

    .inplace_lint_cache/
        CACHEDIR.TAG              backup tools skip the folder
        .gitignore                "*": never committed
        <tool fingerprint>/       one folder per tool build; older ones are removed on write
            <settings+fix key>.pickle   {path: [digest, stat, FileResult without its text]}

An entry is used only when the file's bytes hash to the stored digest (BLAKE2b), or when its
size, mtime and inode are those recorded when it was linted (not for a file modified in the two
seconds before, which could change again within one mtime tick). So a changed file, a changed
resolved configuration (``Settings.cache_key()``), a different fix mode or a different build of
the tool (its version, the size and mtime of every file of the package, the libcst and Python
versions) never reuses a stale result. Entries are keyed by path
within a pack, so a file's new result replaces its old one and a pack does not grow without
bound.

Reading a cache never imports libcst: a warm run stays out of the parser entirely. Packs are
pickles. Measured against JSON with the dataclasses rebuilt by hand, for 3,000 entries (60 with a
diagnostic): the same size (~310 kB) and the same speed (~6 ms to load, ~4 ms to write); pickle
needs no converter to keep in step with the result dataclasses. A pack is only ever read from the
folder named by this build's fingerprint, which includes the mtime of every installed package
file, so a repository cannot ship a pack that would be loaded. A pack that fails to load for any
reason is treated as empty.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import inplace_lint
from inplace_lint.results import FileResult
from inplace_lint.settings import Settings

CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by inplace-lint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
_FORMAT = 2
_PACKAGE_SUFFIXES = (".py", ".json", ".toml")


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


_fingerprint: str | None = None


def tool_fingerprint() -> str:
    """Identifies this build of the tool: version, package files, libcst and Python versions."""
    global _fingerprint
    if _fingerprint is None:
        _fingerprint = _compute_fingerprint()
    return _fingerprint


def _compute_fingerprint() -> str:
    h = hashlib.blake2b(digest_size=10)
    h.update(f"{_FORMAT}|{inplace_lint.__version__}|{sys.version_info[:2]}|".encode())
    h.update(_libcst_version().encode())
    root = Path(inplace_lint.__file__).parent
    for path in sorted(_package_files(root)):
        st = path.stat()
        h.update(f"|{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _package_files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        out.extend(Path(dirpath, f) for f in filenames if f.endswith(_PACKAGE_SUFFIXES))
    return out


def _libcst_version() -> str:
    """Without importing libcst (a warm run must not load it), and without
    ``importlib.metadata``, which scans every folder of ``sys.path`` (35 ms, a tenth of a warm
    run): the installed package's ``_version.py`` (written by its build), or else the stat of
    its files."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("libcst")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin:
        return "?"
    package = Path(spec.origin).parent
    try:
        return (package / "_version.py").read_text(encoding="utf-8", errors="replace")
    except OSError:
        files = sorted(p for p in package.iterdir() if p.is_file())
        return "|".join(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files)


# A file modified this recently may change again within the same mtime tick without its size
# changing: such an entry is checked by content next time, not trusted on its size and mtime
# (git's "racy clean" problem).
RACY_NS = 2_000_000_000


def stat_key(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class Cache:
    """Packs of results under ``directory``, loaded on first use and written by ``save``.

    An entry is (content digest, stat key or None, result). A file whose size, mtime and inode
    still match the stat key is a hit without being read; otherwise its bytes are hashed and
    compared with the digest.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.root = Path(directory)
        self.folder = self.root / tool_fingerprint()
        self._packs: dict[str, dict[str, list]] = {}
        self._dirty: set[str] = set()

    @staticmethod
    def pack_key(settings: Settings, fix: str) -> str:
        text = f"{settings.cache_key()}|fix={fix}"
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()

    def lookup(self, pack: str, path: str, st: os.stat_result) -> FileResult | None:
        """The stored result for ``path`` if the file is unchanged (a regular file: ``st``)."""
        entry = self._pack(pack).get(path)
        if entry is None:
            return None
        content_digest, known_stat, result = entry
        key = stat_key(st)
        if known_stat == key:
            return result
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        if digest(data) != content_digest:
            return None
        entry[1] = _trusted(key)
        self._dirty.add(pack)
        return result

    def put(
        self,
        pack: str,
        path: str,
        key: tuple[bytes, tuple[int, int, int] | None],
        result: FileResult,
    ) -> None:
        """Store ``result`` for the content ``key`` = (digest, stat key taken before reading)."""
        if result.fixed_source is not None or result.written:
            return  # a fixed file has new content; the next run caches that
        stored = replace(result, source=_kept_source(result), fixed_diagnostics=[])
        content_digest, known_stat = key
        self._pack(pack)[path] = [content_digest, _trusted(known_stat), stored]
        self._dirty.add(pack)

    def save(self) -> None:
        """Write the changed packs. Never raises: a cache that cannot be written is no cache."""
        if not self._dirty:
            return
        try:
            self._prepare_folder()
            for pack in sorted(self._dirty):
                self._write_pack(pack)
        except OSError:
            pass
        self._dirty.clear()

    # ---------------------------------------------------------------------------------------
    def _pack(self, pack: str) -> dict[str, list]:
        if pack not in self._packs:
            self._packs[pack] = self._read_pack(pack)
        return self._packs[pack]

    def _read_pack(self, pack: str) -> dict[str, list]:
        try:
            with open(self.folder / f"{pack}.pickle", "rb") as f:
                data = pickle.load(f)
        except Exception:  # noqa: BLE001 - missing, truncated, from another version: empty
            return {}
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return {}
        entries = data.get("entries")
        return entries if isinstance(entries, dict) else {}

    def _write_pack(self, pack: str) -> None:
        data = {"format": _FORMAT, "entries": self._packs[pack]}
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{pack}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, self.folder / f"{pack}.pickle")
        except BaseException:
            _unlink(tmp)
            raise

    def _prepare_folder(self) -> None:
        fresh = not self.root.exists()
        self.root.mkdir(parents=True, exist_ok=True)
        tag = self.root / "CACHEDIR.TAG"
        if fresh or not tag.exists():
            tag.write_text(CACHEDIR_TAG, encoding="utf-8")
        ignore = self.root / ".gitignore"
        if fresh or not ignore.exists():
            ignore.write_text("# Created by inplace-lint automatically.\n*\n", encoding="utf-8")
        if not self.folder.is_dir():
            self._remove_other_builds()
            self.folder.mkdir(exist_ok=True)

    def _remove_other_builds(self) -> None:
        for child in self.root.iterdir():
            if child.is_dir() and child.name != self.folder.name:
                shutil.rmtree(child, ignore_errors=True)


def _trusted(key: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
    if key is None or key[1] > time.time_ns() - RACY_NS:
        return None
    return key


def _kept_source(result: FileResult) -> str | None:
    """A notebook's program text cannot be rebuilt from the file's bytes without parsing the
    notebook again; keep it when there is something to show. A Python file's text is re-read."""
    if result.cell_map is not None and result.diagnostics:
        return result.source
    return None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
