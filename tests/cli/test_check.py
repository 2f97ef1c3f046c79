"""`inplace-lint check`: paths, option names, summary lines and exit codes."""

from __future__ import annotations

import json

from conftest import invoke, run

BUGGY = "h = x.sigmoid()\nh += 1\n"


def test_clean_directory_exits_0(project, fake_engine):
    (project / "ok.py").write_text("y = 1\n")
    result = invoke("check")
    assert result.exit_code == 0
    assert result.stdout == "All checks passed!\n"


def test_findings_exit_1_with_ruff_lines(project, fake_engine):
    (project / "a.py").write_text(BUGGY)
    result = invoke("check", "a.py")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "a.py:2:1: IPL001 [*] `h += ...` changes `h` in place",
        "Found 1 error.",
        "[*] 1 fixable with `--fix`.",
    ]


def test_exit_zero(project, fake_engine):
    (project / "a.py").write_text(BUGGY)
    assert invoke("check", "--exit-zero").exit_code == 0


def test_output_sorted_by_path_row_column_code(project, fake_engine):
    (project / "b.py").write_text("y[0] = 1\nx += 1\n")
    (project / "a").mkdir()
    (project / "a" / "z.py").write_text("x += 1\nx.add_(1)\n")
    result = invoke("check", "--select", "ALL", "--output-format", "json")
    keys = [
        (d["filename"], d["location"]["row"], d["location"]["column"], d["code"])
        for d in json.loads(result.stdout)
    ]
    assert keys == sorted(keys)
    assert [k[3] for k in keys] == ["IPL001", "IPL002", "IPL202", "IPL001"]


def test_unsafe_fix_summary(project, fake_engine):
    (project / "a.py").write_text("w.add_(1)\n")
    result = invoke("check", "a.py")
    assert "a.py:1:1: IPL002 `w.add_()` writes a leaf" in result.stdout  # no [*]: unsafe
    assert "1 unsafe fix available with `--fix --unsafe-fixes`." in result.stdout
    result = invoke("check", "--unsafe-fixes", "a.py")
    assert "IPL002 [*]" in result.stdout
    (project / "a.py").write_text("w.add_(1)\nv.add_(2)\n")
    assert "2 unsafe fixes available with `--fix --unsafe-fixes`." in invoke("check", "a.py").stdout


def test_statistics(project, fake_engine):
    (project / "a.py").write_text("x += 1\ny += 2\nw.add_(1)\n")
    result = invoke("check", "--statistics")
    assert result.stdout.splitlines()[:2] == [
        "2\tIPL001\t[*] saved-tensor-modified",
        "1\tIPL002\t[ ] leaf-inplace",
    ]
    result = invoke("check", "--statistics", "--output-format", "json")
    assert json.loads(result.stdout)[0] == {
        "code": "IPL001",
        "name": "saved-tensor-modified",
        "count": 2,
        "fixable": True,
        "fixable_count": 2,
    }


def test_output_file(project, fake_engine):
    (project / "a.py").write_text(BUGGY)
    result = invoke("check", "--output-format", "json", "-o", "report.json")
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads((project / "report.json").read_text())[0]["code"] == "IPL001"


def test_internal_error_is_reported_and_exits_2(project, fake_engine):
    (project / "a.py").write_text("__boom__ = 1\n")
    result = invoke("check", "--exit-zero", "a.py")
    assert "IPL903" in result.stdout
    assert result.exit_code == 2


def test_verbose_shows_the_traceback(project, fake_engine):
    (project / "a.py").write_text("__boom__ = 1\n")
    result = invoke("check", "--verbose", "a.py")
    assert "RuntimeError: boom" in result.stderr
    assert "1 file(s) to lint" in result.stderr


def test_no_files_found_is_a_warning(project):
    (project / "notes.txt").write_text("hi\n")
    result = invoke("check")
    assert result.exit_code == 0
    assert "No Python files found" in result.stderr


def test_jobs_and_cache_options_are_accepted(project, fake_engine, tmp_path):
    (project / "a.py").write_text(BUGGY)
    from click.testing import CliRunner

    from inplace_lint.cli import main

    result = CliRunner().invoke(
        main, ["check", "--jobs", "1", "--cache-dir", str(tmp_path / "c"), "a.py"]
    )
    assert result.exit_code == 1, result.output
    assert invoke("check", "--jobs", "0", "a.py").exit_code == 2


# --- real processes: exit codes ---------------------------------------------------------------


def test_process_exit_codes(project):
    (project / "ok.py").write_text("y = 1\n")
    (project / "bad.py").write_text("x = (\n")
    assert run("check", "ok.py", cwd=project).returncode == 0
    assert run("check", "bad.py", cwd=project).returncode == 1
    assert run("check", "--exit-zero", "bad.py", cwd=project).returncode == 0


def test_nonexistent_path_exits_2_with_a_clear_message(project):
    result = run("check", "missing.py", cwd=project)
    assert result.returncode == 2
    assert b"missing.py: no such file or directory" in result.stderr


def test_unknown_option_exits_2(project):
    result = run("check", "--frobnicate", cwd=project)
    assert result.returncode == 2
    assert b"No such option '--frobnicate'" in result.stderr


def test_installed_command_runs(project):
    (project / "bad.py").write_text("x = (\n")
    result = run("check", "--output-format", "concise", "bad.py", cwd=project, fake=False)
    assert result.returncode == 1
    assert result.stdout.startswith(b"bad.py:")
    assert b"IPL901" in result.stdout
    version = run("--version", fake=False)
    assert version.returncode == 0 and b"inplace-lint" in version.stdout


def test_python_dash_m(project):
    import subprocess
    import sys

    (project / "ok.py").write_text("y = 1\n")
    done = subprocess.run(
        [sys.executable, "-m", "inplace_lint", "check", "ok.py"],
        cwd=project,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
