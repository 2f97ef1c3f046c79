"""`--fix`, `--unsafe-fixes`, `--diff`, `--show-fixes`, `--fix-only`, `--exit-non-zero-on-fix`, and
what a fix must never do to a file."""

from __future__ import annotations

from conftest import invoke, run


def test_fix_applies_safe_fixes_and_exits_0(project, fake_engine):
    path = project / "a.py"
    path.write_text("h = x\nh += 1\nh -= 2\n")
    result = invoke("check", "--fix", "a.py")
    assert path.read_text() == "h = x\nh = h + 1\nh = h - 2\n"
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["Found 2 errors (2 fixed, 0 remaining)."]


def test_unsafe_fixes_need_the_flag(project, fake_engine):
    path = project / "a.py"
    path.write_text("w.add_(1)\nx += 1\n")
    result = invoke("check", "--fix", "a.py")
    assert path.read_text() == "w.add_(1)\nx = x + 1\n"
    assert result.exit_code == 1
    assert "Found 2 errors (1 fixed, 1 remaining)." in result.stdout
    assert "1 unsafe fix available with `--fix --unsafe-fixes`." in result.stdout
    result = invoke("check", "--fix", "--unsafe-fixes", "a.py")
    assert path.read_text() == "w.add(1)\nx = x + 1\n"
    assert result.exit_code == 0


def test_show_fixes(project, fake_engine):
    (project / "a.py").write_text("x += 1\ny += 1\n")
    result = invoke("check", "--fix", "--show-fixes", "a.py")
    assert "Fixed 2 errors:\n- a.py:\n    2 × IPL001 (saved-tensor-modified)\n" in result.stdout


def test_diff_writes_nothing_and_exits_1(project, fake_engine):
    path = project / "a.py"
    path.write_text("h = x\nh += 1\n")
    result = invoke("check", "--diff", "a.py")
    assert path.read_text() == "h = x\nh += 1\n"
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a.py\n+++ a.py\n@@ -1,2 +1,2 @@\n h = x\n-h += 1\n+h = h + 1\n\nWould fix 1 error.\n"
    )
    (project / "a.py").write_text("h = 1\n")
    result = invoke("check", "--diff", "a.py")
    assert result.exit_code == 0 and result.stdout == "No errors would be fixed.\n"


def test_fix_only(project, fake_engine):
    path = project / "a.py"
    path.write_text("x += 1\nw.add_(1)\n")
    result = invoke("check", "--fix-only", "a.py")
    assert result.exit_code == 0
    assert result.stdout == "Fixed 1 error (1 additional fix available with `--unsafe-fixes`).\n"
    assert path.read_text() == "x = x + 1\nw.add_(1)\n"


def test_exit_non_zero_on_fix(project, fake_engine):
    (project / "a.py").write_text("x += 1\n")
    assert invoke("check", "--fix", "--exit-non-zero-on-fix", "a.py").exit_code == 1
    assert invoke("check", "--fix", "--exit-non-zero-on-fix", "a.py").exit_code == 0  # nothing left


def test_a_fix_that_does_not_parse_leaves_the_file_untouched(project, fake_engine):
    path = project / "a.py"
    path.write_text("m @= w\n")
    result = invoke("check", "--fix", "a.py")
    assert path.read_text() == "m @= w\n"
    assert result.exit_code == 1
    assert "would have produced code that does not parse" in result.stderr


def test_fix_keeps_encoding_bom_and_line_endings(project, fake_engine):
    path = project / "a.py"
    path.write_bytes(b"\xef\xbb\xbfs = '\xc3\xa9'\r\nx += 1\r\n")
    invoke("check", "--fix", "a.py")
    assert path.read_bytes() == b"\xef\xbb\xbfs = '\xc3\xa9'\r\nx = x + 1\r\n"
    latin = project / "b.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\ns = '\xe9'\nx += 1\n")
    invoke("check", "--fix", "b.py")
    assert latin.read_bytes() == b"# -*- coding: latin-1 -*-\ns = '\xe9'\nx = x + 1\n"


def test_file_changed_on_disk_is_not_overwritten(project, fake_engine, monkeypatch):
    from inplace_lint import fixes
    from inplace_lint.files import lint_file
    from inplace_lint.settings import Settings

    path = project / "a.py"
    path.write_text("x += 1\n")
    real_fix_text = fixes.fix_text

    def fix_text_while_someone_edits(*args, **kwargs):
        path.write_text("x += 1  # edited meanwhile\n")
        return real_fix_text(*args, **kwargs)

    monkeypatch.setattr(fixes, "fix_text", fix_text_while_someone_edits)
    result = lint_file(path, Settings(), fix="safe")
    assert path.read_text() == "x += 1  # edited meanwhile\n"
    assert not result.written and "changed on disk" in result.fix_error
    assert [d.code for d in result.diagnostics] == ["IPL001"]


def test_fix_in_a_real_process(project):
    path = project / "a.py"
    path.write_text("x += 1\n")
    done = run("check", "--fix", "a.py", cwd=project)
    assert done.returncode == 0, done.stderr
    assert path.read_text() == "x = x + 1\n"
