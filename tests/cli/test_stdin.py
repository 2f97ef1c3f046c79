"""`check -` and `--stdin-filename`, in a real process."""

from __future__ import annotations

import json

from conftest import run


def test_stdin_reports_with_the_given_name(project):
    done = run(
        "check",
        "--output-format",
        "concise",
        "--stdin-filename",
        "model.py",
        "-",
        input=b"h = x\nh += 1\n",
        cwd=project,
    )
    assert done.returncode == 1
    assert (
        done.stdout.decode().splitlines()[0]
        == "model.py:2:1: IPL001 [*] `h += ...` changes `h` in place"
    )


def test_stdin_without_a_name(project):
    done = run("check", "--output-format", "json", "-", input=b"x += 1\n", cwd=project)
    assert json.loads(done.stdout)[0]["filename"] == "-"
    clean = run("check", "-", input=b"x = 1\n", cwd=project)
    assert clean.returncode == 0


def test_stdin_fix_prints_the_fixed_source(project):
    done = run(
        "check", "--fix", "--stdin-filename", "m.py", "-", input=b"x += 1\nw.add_(1)\n", cwd=project
    )
    assert done.stdout == b"x = x + 1\nw.add_(1)\n"
    assert b"Found 2 errors (1 fixed, 1 remaining)." in done.stderr
    assert done.returncode == 1


def test_stdin_diff(project):
    done = run("check", "--diff", "-", input=b"x += 1\n", cwd=project)
    assert done.returncode == 1
    assert b"-x += 1\n+x = x + 1\n" in done.stdout


def test_stdin_filename_picks_the_config_and_per_file_ignores(project):
    (project / "pyproject.toml").write_text(
        '[tool.inplace-lint.per-file-ignores]\n"tests/*" = ["IPL001"]\n'
    )
    done = run("check", "--stdin-filename", "tests/t.py", input=b"x += 1\n", cwd=project)
    assert done.returncode == 0, done.stdout
    (project / "pyproject.toml").write_text('[tool.inplace-lint]\nextend-exclude = ["gen"]\n')
    done = run(
        "check",
        "--force-exclude",
        "--fix",
        "--stdin-filename",
        "gen/a.py",
        "-",
        input=b"x += 1\n",
        cwd=project,
    )
    assert done.returncode == 0 and done.stdout == b"x += 1\n"  # excluded: echoed unchanged


def test_stdin_notebook(project):
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [],
                "execution_count": None,
                "source": ["x += 1"],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    done = run(
        "check",
        "--output-format",
        "concise",
        "--stdin-filename",
        "n.ipynb",
        "-",
        input=json.dumps(nb).encode(),
        cwd=project,
    )
    assert done.stdout.startswith(b"n.ipynb:cell 1:1:1: IPL001")
