from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

HERE = Path(__file__).resolve().parent
VENV_BIN = Path(sys.executable).parent
INPLACE_LINT = VENV_BIN / "inplace-lint"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory, with no configuration above it that could leak in."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def fake_engine(monkeypatch: pytest.MonkeyPatch):
    import fake_engine as module

    from inplace_lint import prefilter
    from inplace_lint.analysis import engine

    monkeypatch.setattr(engine, "analyse", module.fake_analyse)
    monkeypatch.setattr(prefilter, "plan", module.analyse_everything)
    return module


def invoke(*args: str, input: str | bytes | None = None):
    """The click command in process; `--no-cache` keeps runs independent."""
    from inplace_lint.cli import main

    argv = list(args)
    if argv and argv[0] == "check" and "--no-cache" not in argv:
        argv.insert(1, "--no-cache")
    return CliRunner().invoke(main, argv, input=input, catch_exceptions=False)


def run(*args: str, input: bytes | None = None, cwd: Path | None = None, fake: bool = True):
    """A real process: the fake-analysis launcher, or the installed `inplace-lint` command."""
    command = [sys.executable, str(HERE / "fake_cli.py")] if fake else [str(INPLACE_LINT)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("INPLACE_LINT_")}
    return subprocess.run(
        [*command, *args],
        input=input,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


sys.path.insert(0, str(HERE))
