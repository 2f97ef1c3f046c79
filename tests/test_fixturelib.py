"""The fixture parser, and the format of every fixture file (no framework needed)."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixturelib import (
    FAMILIES,
    FIXTURES_ROOT,
    FixtureFormatError,
    Outcome,
    fixture_paths,
    load_fixture,
    rule_codes,
)

BODY = """
import torch


def main():
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid()
    y += 1{marker}
    y.sum().backward()


if __name__ == "__main__":
    main()
"""
HEADER = """\
# fixture: sigmoid output bumped in place
# framework: {framework}
# outcome: {outcome}
# source: hand-written
"""


def write(
    tmp_path: Path,
    *,
    name="err_x.py",
    framework="torch",
    outcome="error version-counter",
    marker="  # fault; expect: IPL001",
    header=None,
    body=None,
    folder="torch",
) -> Path:
    path = tmp_path / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    head = HEADER.format(framework=framework, outcome=outcome) if header is None else header
    path.write_text(head + (body if body is not None else BODY.format(marker=marker)))
    return path


def test_parses_header_and_markers(tmp_path):
    fx = load_fixture(write(tmp_path))
    assert fx.framework == "torch"
    assert fx.outcome == Outcome("error", "version-counter")
    assert str(fx.outcome) == "error version-counter"
    assert fx.description == "sigmoid output bumped in place"
    assert fx.source == "hand-written"
    assert fx.fault_line == 12
    assert fx.expected == {12: {"IPL001"}}
    assert fx.family is FAMILIES["version-counter"]


def test_several_codes_and_noqa_segment(tmp_path):
    path = write(tmp_path, marker="  # noqa: IPL002  # fault; expect: IPL001, IPL006")
    assert load_fixture(path).expected == {12: {"IPL001", "IPL006"}}


def test_ok_fixture_without_markers(tmp_path):
    fx = load_fixture(write(tmp_path, name="ok_x.py", outcome="ok", marker="  # plain comment"))
    assert fx.fault_line is None and fx.expected == {}


def test_marker_inside_string_is_not_a_marker(tmp_path):
    path = write(tmp_path, name="ok_x.py", outcome="ok", marker='; s = "# fault; expect: IPL001"')
    assert load_fixture(path).expected == {}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"outcome": "error boom"}, "unknown outcome 'error boom'"),
        ({"outcome": "error paddle-leaf"}, "not a torch outcome"),
        ({"framework": "jax"}, "unknown framework 'jax'"),
        ({"framework": "paddle", "outcome": "error paddle-version"}, "file is under torch/"),
        ({"name": "ok_x.py"}, "a ok_* file declares a ok outcome"),
        ({"marker": ""}, "exactly one `# fault` line (found: none)"),
        ({"marker": "  # fault"}, "needs an `expect: CODE` marker"),
        ({"marker": "  # fault; expect: IPL101"}, "error-tier code"),
        ({"marker": "  # fault; expect: IPL999"}, "IPL999 is not in docs/rule-codes.md"),
        ({"marker": "  # fault; expect: IPL011"}, "IPL011 is a paddle rule"),
        ({"marker": "  # fault; expect: IPL201"}, "off by default"),
        ({"marker": "  # fault expect: IPL001"}, "bad marker"),
        ({"marker": "  # Fault; expect: IPL001"}, "bad marker"),
        ({"marker": "  # expects: IPL001"}, "bad marker"),
        ({"marker": "  # fault; fault; expect: IPL001"}, "bad marker"),
        ({"marker": "\n    # fault; expect: IPL001"}, "must trail code"),
        ({"name": "ok_x.py", "outcome": "ok"}, "an `ok` fixture has no `# fault` line"),
        ({"outcome": "wrong_grad", "name": "wg_x.py"}, "no top-level `def buggy()`"),
        ({"header": "# fixture: x\n# framework: torch\n"}, "header lacks `# outcome: ...`"),
        (
            {
                "header": HEADER.format(framework="torch", outcome="ok") + "# owner: me\n",
                "name": "ok_x.py",
            },
            "unknown header key 'owner'",
        ),
        ({"header": "# fixture: x\n# fixture: y\n"}, "duplicate header key 'fixture'"),
        ({"header": "# fixture: x\n# this is prose\n"}, "header line is not `# key: value`"),
        ({"body": "\nimport torch\n\ndef main():\n    pass\n"}, "must end with `if __name__"),
        ({"body": "\ndef helper(:\n"}, "syntax error"),
    ],
)
def test_rejects(tmp_path, kwargs, message):
    with pytest.raises(FixtureFormatError, match=re.escape(message)):
        load_fixture(write(tmp_path, **kwargs))


def test_two_faults_rejected(tmp_path):
    body = BODY.format(marker="  # fault; expect: IPL001").replace(
        "    y.sum()", "    y *= 2  # fault; expect: IPL001\n    y.sum()"
    )
    with pytest.raises(FixtureFormatError, match=r"found: 12, 13"):
        load_fixture(write(tmp_path, body=body))


def test_rule_codes_catalogue_is_read():
    codes = rule_codes()
    assert codes["IPL001"] == "torch" and codes["IPL011"] == "paddle" and codes["IPL901"] == "-"


def test_fixture_files_exist():
    assert fixture_paths(), f"no fixtures under {FIXTURES_ROOT}"


@pytest.mark.parametrize(
    "path", fixture_paths(), ids=[str(p.relative_to(FIXTURES_ROOT)) for p in fixture_paths()]
)
def test_fixture_file_format(path):
    fx = load_fixture(path)
    if fx.outcome.kind == "error":
        codes = fx.expected[fx.fault_line]
        assert codes & fx.family.codes, (
            f"{fx.name}: an `{fx.outcome}` fault line carries one of "
            f"{sorted(fx.family.codes)}, not {sorted(codes)}"
        )


def test_example_in_docs_parses(tmp_path):
    doc = (FIXTURES_ROOT.parents[1] / "docs" / "fixtures.md").read_text()
    header = doc.split("```python\n", 1)[1].split("```", 1)[0]
    body = textwrap.dedent(BODY.format(marker="  # fault; expect: IPL001"))
    fx = load_fixture(write(tmp_path, header=header, body=body))
    assert fx.outcome.family == "version-counter"
