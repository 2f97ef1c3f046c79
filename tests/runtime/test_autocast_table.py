"""`AUTOCAST_LOWER_PRECISION` agrees with torch: scripts/measure_autocast_ops.py, run here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("torch")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "measure_autocast_ops.py"


def test_autocast_table_matches_measurement(capsys):
    spec = importlib.util.spec_from_file_location("measure_autocast_ops", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main() == 0, capsys.readouterr().out
