"""`.pre-commit-hooks.yaml` through `pre-commit try-repo`, on a tiny git repository.

pre-commit builds the hook's own virtualenv and pip-installs this package into it, from the
package index pip is configured with (a local one works offline)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def init_repo(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "-q")
    git(path, "config", "user.email", "t@example.com")
    git(path, "config", "user.name", "t")
    git(path, "config", "commit.gpgsign", "false")
    return path


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """pre-commit's cache, shared so the hook environment is built once per test process."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    """This package, committed to a throwaway repository (one install for all the runs)."""
    repo = init_repo(tmp_path_factory.mktemp("hook") / "inplace-lint")
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(REPO / name, repo / name)
    shutil.copytree(
        REPO / "inplace_lint", repo / "inplace_lint", ignore=shutil.ignore_patterns("__pycache__")
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "hooks")
    return repo


def try_repo(hook_repo: Path, project: Path, hook: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    return subprocess.run(
        [*PRE_COMMIT, "try-repo", str(hook_repo), hook, "--all-files"],
        cwd=project,
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=900,
    )


def test_hooks_fail_on_a_bad_file_and_pass_once_fixed(hook_repo, home, tmp_path):
    project = init_repo(tmp_path / "project")
    bad = project / "train.py"
    bad.write_text("x = 1  # noqa: IPL001\n")
    git(project, "add", "-A")

    failed = try_repo(hook_repo, project, "inplace-lint", home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "train.py:1:8: IPL900" in failed.stdout

    fixing = try_repo(hook_repo, project, "inplace-lint-fix", home)
    assert fixing.returncode == 1  # the hook changed a file, so pre-commit fails it
    assert "files were modified by this hook" in fixing.stdout
    assert bad.read_text() == "x = 1\n"

    git(project, "add", "-A")
    passed = try_repo(hook_repo, project, "inplace-lint", home)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_hook_with_zero_python_files(hook_repo, home, tmp_path):
    project = init_repo(tmp_path / "project")
    (project / "README.md").write_text("nothing to lint\n")
    git(project, "add", "-A")
    done = try_repo(hook_repo, project, "inplace-lint", home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Skipped" in done.stdout
