"""`python tests/cli/fake_cli.py check ...`: the real command in a real process, on the fake
analysis (see fake_engine.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fake_engine

fake_engine.install()

from inplace_lint.cli import main

main()
