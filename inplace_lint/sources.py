"""Reading, decoding, encoding and writing back one source file.

Every way a path can fail to be a readable Python file ends here as a ``SourceError`` with a
message that names the problem, so the caller can report it per file and go on. Nothing here
blocks: special files (FIFOs, sockets, devices) are refused from ``stat`` before any ``open``, and
the file is opened non-blocking in case it was swapped for one in between.

Writing is atomic: the new bytes go to a temporary file in the same directory, are fsynced, and
replace the original with ``os.replace`` only if the original still holds the bytes that were
read. An interrupted run leaves either the old file or the new one, never a partial one.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass

# Larger files are reported (IPL904) rather than read: a linter must not stall on generated code.
DEFAULT_MAX_BYTES = 1_000_000
# Over this many lines a file is reported (IPL904) rather than analysed: libcst parses roughly
# 3,000 lines a second here, so this bounds one file to seconds, not minutes.
DEFAULT_MAX_LINES = 30_000

NEWLINES = ("\n", "\r\n", "\r")
_LONE_NEWLINE = {
    "\n": re.compile(r"(?<!\r)\n"),
    "\r\n": re.compile(r"\r\n"),
    "\r": re.compile(r"\r(?!\n)"),
}  # each ending on its own, for ties


class SourceError(Exception):
    """A path that cannot be linted as a source file. ``code`` is the meta rule that reports it."""

    code = "IPL902"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class FileTooLargeError(SourceError):
    code = "IPL904"


class ChangedOnDisk(SourceError):
    """The file changed between the read and the write; it was left as it is."""


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str  # decoded; line endings exactly as in the file
    encoding: str  # a codec name; "utf-8" for a file with a UTF-8 BOM (see ``bom``)
    bom: bool
    newline: str  # the dominant line ending: "\n", "\r\n" or "\r"
    raw: bytes  # the bytes as read, to detect a change on disk before writing


def read_source(
    path: str | os.PathLike[str], max_bytes: int | None = DEFAULT_MAX_BYTES
) -> SourceFile:
    """Read and decode one file. Raises ``SourceError`` with a per-file message."""
    path = os.fspath(path)
    st = _stat_regular(path)
    if max_bytes is not None and st.st_size > max_bytes:
        raise FileTooLargeError(_too_large(st.st_size, max_bytes))
    data = _read_bytes(path, max_bytes)
    return decode_source(data, path)


def decode_source(data: bytes, path: str = "<stdin>") -> SourceFile:
    """Decode bytes as Python source: PEP 263 cookie or BOM, strict, NUL bytes refused."""
    nul = data.find(b"\x00")
    if nul >= 0:
        row = data.count(b"\n", 0, nul) + 1
        raise SourceError(f"contains a NUL byte (line {row}); not a Python source file")
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        _decode(body, "utf-8")  # undecodable first lines: name the byte rather than the cookie
        raise SourceError(f"bad encoding declaration: {error.msg}") from None
    codec = "utf-8" if encoding == "utf-8-sig" else encoding
    text = _decode(body, codec)
    return SourceFile(path, text, codec, bom, dominant_newline(text), data)


def encode_source(sf: SourceFile, new_text: str) -> bytes:
    """Encode text for writing back to ``sf``'s file: same encoding, same BOM."""
    try:
        data = new_text.encode(sf.encoding)
    except UnicodeEncodeError as error:
        raise SourceError(
            f"the new text has {error.object[error.start : error.end]!r}, "
            f"which the file's encoding {sf.encoding} cannot hold"
        ) from None
    return codecs.BOM_UTF8 + data if sf.bom else data


def dominant_newline(text: str) -> str:
    """The most frequent line ending; on a tie the one seen first; ``"\\n"`` when there is none."""
    crlf = text.count("\r\n")
    counts = {"\n": text.count("\n") - crlf, "\r\n": crlf, "\r": text.count("\r") - crlf}
    top = max(counts.values())
    if top == 0:
        return "\n"
    tied = [nl for nl in NEWLINES if counts[nl] == top]
    return tied[0] if len(tied) == 1 else min(tied, key=lambda nl: _first_index(text, nl))


def write_atomic(path: str | os.PathLike[str], data: bytes, expected_raw: bytes) -> None:
    """Replace the file's bytes by ``data`` if it still holds ``expected_raw``.

    Raises ``ChangedOnDisk`` when it does not (the file is left untouched), ``SourceError`` when
    it cannot be written. A symlink is written through: the link stays, its target changes.
    """
    target = os.path.realpath(os.fspath(path))
    _check_unchanged(target, expected_raw)
    try:
        st = os.stat(target)
    except OSError as error:
        raise SourceError(f"cannot write: {_os_reason(error)}") from None
    directory, name = os.path.split(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".inplace-lint.tmp", dir=directory)
    except OSError as error:
        raise SourceError(
            f"cannot write a temporary file next to it: {_os_reason(error)}"
        ) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _copy_mode(tmp, st)
        # Close the window between the first check and the replace as far as we can.
        _check_unchanged(target, expected_raw)
        os.replace(tmp, target)
    except BaseException as error:
        _remove_quietly(tmp)
        if isinstance(error, OSError):
            raise SourceError(f"cannot write: {_os_reason(error)}") from None
        raise
    _fsync_directory(directory)


def _decode(body: bytes, codec: str) -> str:
    try:
        return body.decode(codec)
    except UnicodeDecodeError as error:
        row = body.count(b"\n", 0, error.start) + 1
        column = error.start - (body.rfind(b"\n", 0, error.start) + 1) + 1
        byte = body[error.start : error.start + 1].hex()
        declared = "" if codec == "utf-8" else " (as declared by its coding cookie)"
        raise SourceError(
            f"not valid {codec}{declared}: byte 0x{byte} at line {row}, byte column {column}"
        ) from None
    except LookupError:
        raise SourceError(f"unknown encoding {codec!r}") from None


def _stat_regular(path: str) -> os.stat_result:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise SourceError(f"dangling symlink to {os.readlink(path)!r}") from None
        raise SourceError("no such file") from None
    except OSError as error:
        raise SourceError(_os_reason(error)) from None
    if stat.S_ISDIR(st.st_mode):
        raise SourceError("is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise SourceError(f"not a regular file ({_kind(st.st_mode)})")
    return st


def _read_bytes(path: str, max_bytes: int | None) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise SourceError(_os_reason(error)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped since the stat
            raise SourceError(f"not a regular file ({_kind(st.st_mode)})")
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if max_bytes is not None and total > max_bytes:  # grew since the stat
                raise FileTooLargeError(_too_large(total, max_bytes))
        return b"".join(chunks)
    except OSError as error:
        raise SourceError(_os_reason(error)) from None
    finally:
        os.close(fd)


def _check_unchanged(target: str, expected_raw: bytes) -> None:
    try:
        st = os.stat(target)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(expected_raw):
            raise ChangedOnDisk("changed on disk since it was read; not overwritten")
        with open(target, "rb") as handle:
            current = handle.read()
    except FileNotFoundError:
        raise ChangedOnDisk("deleted since it was read; not written") from None
    except OSError as error:
        raise SourceError(f"cannot re-read before writing: {_os_reason(error)}") from None
    if current != expected_raw:
        raise ChangedOnDisk("changed on disk since it was read; not overwritten")


def _copy_mode(tmp: str, st: os.stat_result) -> None:
    os.chmod(tmp, stat.S_IMODE(st.st_mode))
    if hasattr(os, "chown"):
        try:
            os.chown(tmp, st.st_uid, st.st_gid)
        except OSError:  # not permitted for another owner: keep ours, as an editor would
            pass


def _fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some filesystems do not support it; the replace itself is done
        pass
    finally:
        os.close(fd)


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _os_reason(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "symlink loop"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if error.errno == errno.EISDIR:
        return "is a directory"
    return error.strerror or str(error)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "a special file"


def _too_large(size: int, limit: int) -> str:
    return (
        f"The file has {size:,} bytes, over the {limit:,}-byte budget (option max-file-bytes); "
        "it was not analysed"
    )


def _first_index(text: str, newline: str) -> int:
    match = _LONE_NEWLINE[newline].search(text)
    return match.start() if match else len(text)
