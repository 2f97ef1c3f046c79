"""Reading and writing one file: every hostile path is a clear ``SourceError``, never a hang."""

from __future__ import annotations

import codecs
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from inplace_lint.sources import (
    ChangedOnDisk,
    FileTooLargeError,
    SourceError,
    decode_source,
    dominant_newline,
    encode_source,
    read_source,
    write_atomic,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_IMPORT = f"import sys; sys.path.insert(0, {ROOT!r})\nfrom inplace_lint.sources import *\n"

# --- paths that are not readable source files ----------------------------------------------------


def test_directory(tmp_path):
    (tmp_path / "pkg.py").mkdir()
    with pytest.raises(SourceError, match="is a directory") as info:
        read_source(tmp_path / "pkg.py")
    assert info.value.code == "IPL902"


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    # No writer ever opens the FIFO: an open() for reading would block forever.
    code = f"{_IMPORT}read_source({str(fifo)!r})"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert "not a regular file (a FIFO)" in proc.stderr
    with pytest.raises(SourceError, match="FIFO"):
        read_source(fifo)


def test_dangling_symlink(tmp_path):
    link = tmp_path / "gone.py"
    link.symlink_to(tmp_path / "missing.py")
    with pytest.raises(SourceError, match="dangling symlink"):
        read_source(link)


def test_symlink_loop(tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(SourceError, match="symlink loop"):
        read_source(a)


def test_symlink_to_a_file_is_read(tmp_path):
    (tmp_path / "real.py").write_text("x = 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    assert read_source(tmp_path / "link.py").text == "x = 1\n"


def test_missing_file(tmp_path):
    with pytest.raises(SourceError, match="no such file"):
        read_source(tmp_path / "nope.py")


def test_unreadable_file(tmp_path):
    """chmod 000 stops everyone but root; the tests run as root, so read as `nobody` in a child."""
    path = tmp_path / "secret.py"
    path.write_text("x = 1\n")
    path.chmod(0)
    tmp_path.chmod(0o755)
    code = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {ROOT!r})
        from inplace_lint.sources import SourceError, read_source  # before dropping privileges
        if os.geteuid() == 0:
            os.setgid(65534); os.setuid(65534)
        try:
            read_source({str(path)!r})
        except SourceError as error:
            print(error.code, error.message)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.stdout.strip() == "IPL902 permission denied", proc.stderr


def test_unreadable_even_for_root():
    """A regular file whose read fails for root too: /proc/self/mem answers EIO at offset 0."""
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("no /proc")
    with pytest.raises(SourceError) as info:
        read_source("/proc/self/mem")
    assert info.value.code == "IPL902"


def test_too_large_is_reported_from_stat_without_reading(tmp_path):
    path = tmp_path / "big.py"
    with open(path, "wb") as handle:  # sparse: 2 GB on paper, nothing on disk
        handle.truncate(2_000_000_000)
    with pytest.raises(FileTooLargeError, match="max-file-bytes") as info:
        read_source(path)
    assert info.value.code == "IPL904"


def test_size_cap_is_configurable(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n" * 100)
    with pytest.raises(FileTooLargeError):
        read_source(path, max_bytes=100)
    assert read_source(path, max_bytes=None).text.count("\n") == 100


# --- decoding ------------------------------------------------------------------------------------


def test_invalid_utf8_names_the_byte():
    with pytest.raises(SourceError, match=r"not valid utf-8: byte 0xff at line 3"):
        decode_source(b"a = 1\nb = 2\nc = '\xff'\n")


def test_invalid_utf8_in_the_first_lines():
    with pytest.raises(SourceError, match="not valid utf-8: byte 0xe9 at line 1"):
        decode_source(b"x = '\xe9'\n")


def test_pep263_cookie_latin1_round_trips():
    raw = "# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1")
    sf = decode_source(raw, "a.py")
    assert sf.text.endswith("'café'\n") and sf.encoding == "iso-8859-1" and not sf.bom
    assert encode_source(sf, sf.text) == raw
    assert encode_source(sf, sf.text.replace("café", "thé")) == raw.replace(b"caf\xe9", b"th\xe9")


def test_pep263_cookie_on_the_second_line():
    raw = "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nq = '\u201cq\u201d'\n"
    sf = decode_source(raw.encode("cp1252"))
    assert sf.encoding == "cp1252" and "\u201cq\u201d" in sf.text


def test_text_the_cookie_cannot_encode_is_refused():
    sf = decode_source(b"# coding: latin-1\nx = 1\n")
    with pytest.raises(SourceError, match="cannot hold"):
        encode_source(sf, "# coding: latin-1\nx = '\u2603'\n")


def test_bytes_invalid_for_the_declared_encoding():
    with pytest.raises(SourceError, match="not valid ascii .*coding cookie.*line 2"):
        decode_source(b"# coding: ascii\nx = '\xe9'\n")


def test_unknown_cookie():
    with pytest.raises(SourceError, match="bad encoding declaration"):
        decode_source(b"# coding: klingon\nx = 1\n")


def test_bom_round_trips():
    raw = codecs.BOM_UTF8 + "x = 'é'\r\n".encode()
    sf = decode_source(raw)
    assert sf.bom and sf.encoding == "utf-8" and sf.text == "x = 'é'\r\n"
    assert encode_source(sf, sf.text) == raw


def test_bom_with_a_conflicting_cookie():
    with pytest.raises(SourceError, match="bad encoding declaration"):
        decode_source(codecs.BOM_UTF8 + b"# coding: latin-1\nx = 1\n")


def test_nul_bytes():
    with pytest.raises(SourceError, match=r"NUL byte \(line 2\)"):
        decode_source(b"x = 1\ny = 2\x00\n")


def test_utf16_file_is_refused():
    with pytest.raises(SourceError):
        decode_source("x = 1\n".encode("utf-16"))


def test_empty_file(tmp_path):
    (tmp_path / "e.py").write_bytes(b"")
    sf = read_source(tmp_path / "e.py")
    assert (sf.text, sf.encoding, sf.bom, sf.newline, sf.raw) == ("", "utf-8", False, "\n", b"")


@pytest.mark.parametrize(
    ("text", "newline"),
    [
        ("a\nb\n", "\n"),
        ("a\r\nb\r\n", "\r\n"),
        ("a\rb\r", "\r"),
        ("a\r\nb\r\nc\n", "\r\n"),
        ("a\nb\r\nc\r\n", "\r\n"),
        ("a\nb\r\n", "\n"),  # a tie goes to the first seen
        ("a\r\nb\n", "\r\n"),
        ("no newline", "\n"),
    ],
)
def test_dominant_newline(text, newline):
    assert dominant_newline(text) == newline


def test_line_endings_are_kept_in_text(tmp_path):
    raw = b"a = 1\r\nb = 2\nc = 3\rd = '\t'\r\n"
    (tmp_path / "m.py").write_bytes(raw)
    sf = read_source(tmp_path / "m.py")
    assert sf.text.encode() == raw and sf.raw == raw and sf.newline == "\r\n"


# --- writing -------------------------------------------------------------------------------------


def _leftovers(directory) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".inplace-lint.tmp")]


def test_write_atomic_keeps_mode(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(0o751)
    write_atomic(path, b"x = 2\n", b"x = 1\n")
    assert path.read_bytes() == b"x = 2\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert _leftovers(tmp_path) == []


def test_write_atomic_refuses_a_file_changed_on_disk(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    sf = read_source(path)
    path.write_bytes(b"x = 1  # edited meanwhile\n")
    with pytest.raises(ChangedOnDisk, match="changed on disk"):
        write_atomic(path, b"x = 2\n", sf.raw)
    assert path.read_bytes() == b"x = 1  # edited meanwhile\n"
    assert _leftovers(tmp_path) == []


def test_write_atomic_same_size_change_is_detected(tmp_path):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    path.write_bytes(b"x = 9\n")
    with pytest.raises(ChangedOnDisk):
        write_atomic(path, b"x = 2\n", b"x = 1\n")


def test_write_atomic_refuses_a_deleted_file(tmp_path):
    with pytest.raises(ChangedOnDisk, match="deleted"):
        write_atomic(tmp_path / "gone.py", b"x = 2\n", b"x = 1\n")
    assert not (tmp_path / "gone.py").exists()


def test_write_atomic_writes_through_a_symlink(tmp_path):
    (tmp_path / "real.py").write_bytes(b"x = 1\n")
    (tmp_path / "link.py").symlink_to("real.py")
    write_atomic(tmp_path / "link.py", b"x = 2\n", b"x = 1\n")
    assert (tmp_path / "link.py").is_symlink()
    assert (tmp_path / "real.py").read_bytes() == b"x = 2\n"


@pytest.mark.parametrize("stage", ["write", "fsync", "chmod", "replace"])
@pytest.mark.parametrize("exc", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_interrupted_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch, stage, exc):
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")

    def boom(*args, **kwargs):
        raise exc

    from inplace_lint import sources

    if stage == "write":
        real_fdopen = os.fdopen

        class Failing:
            def __init__(self, fd, mode):
                self.handle = real_fdopen(fd, mode)

            def __enter__(self):
                return self

            def __exit__(self, *exc_info):
                self.handle.close()

            def write(self, data):
                self.handle.write(data[: len(data) // 2])  # half written, then the disk is full
                raise exc

        monkeypatch.setattr(sources.os, "fdopen", Failing)
    elif stage == "chmod":
        monkeypatch.setattr(sources.os, "chmod", boom)
    else:
        monkeypatch.setattr(sources.os, stage, boom)
    expected = SourceError if isinstance(exc, OSError) else KeyboardInterrupt
    with pytest.raises(expected):
        write_atomic(path, b"x = 2  # a longer line\n", b"x = 1\n")
    assert path.read_bytes() == b"x = 1\n"
    assert _leftovers(tmp_path) == []


def test_killed_writer_never_leaves_a_partial_file(tmp_path):
    """SIGKILL at an arbitrary moment: the file holds the old bytes or the new ones, whole."""
    path = tmp_path / "m.py"
    old = b"x = 1\n" * 1000
    new = b"y = 2\n" * 2_000_000  # 12 MB: the kill lands mid-write most of the time
    path.write_bytes(old)
    code = f"{_IMPORT}write_atomic({str(path)!r}, b'y = 2\\n' * 2_000_000, b'x = 1\\n' * 1000)"
    for delay in (0.05, 0.2, 0.5):
        path.write_bytes(old)
        proc = subprocess.Popen([sys.executable, "-c", code])
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        assert path.read_bytes() in (old, new)
