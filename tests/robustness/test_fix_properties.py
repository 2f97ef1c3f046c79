"""Fix safety as properties: never unparsable, settled after one run, nothing outside the edits
touched, encodings and line endings kept, and writes that never lose or half-write a file.

The fixes under test come from a stand-in analysis (``fake_analyse``) whose findings are known
from the generated program, so each property can be checked against an exact expectation; the
real rules' fixes are exercised on the fixture files and by the crash survey.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass, replace

import libcst as cst
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from inplace_lint.analysis import engine
from inplace_lint.analysis.findings import Finding, FixPlan
from inplace_lint.diagnostics import Edit, Position, Span
from inplace_lint.fixes import apply_edits, fix_text
from inplace_lint.settings import Settings
from inplace_lint.sources import (
    ChangedOnDisk,
    decode_source,
    encode_source,
    read_source,
    write_atomic,
)

SETTINGS = Settings(enabled=frozenset({"IPL001", "IPL002", "IPL903"}))
PROPERTY = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# --- a stand-in analysis with fixes known in advance -------------------------------------------


class _Collect(cst.CSTVisitor):
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.findings: list[Finding] = []

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        # `n += e`  ->  `n = n + (e)`: safe
        if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
            name, value = node.target.value, self.module.code_for_node(node.value)
            fix = FixPlan("Rebind", [(node, f"{name} = {name} + ({value})")])
            self.findings.append(Finding("IPL001", node, "augmented", fix=fix))

    def visit_Call(self, node: cst.Call) -> None:
        # `n.add_(e)`  ->  `n.add(e)`: unsafe (a different meaning if n is aliased)
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "add_":
            fix = FixPlan("Out of place", [(func.attr, "add")], applicability="unsafe")
            self.findings.append(Finding("IPL002", node, "in place", fix=fix))


def fake_analyse(
    module: cst.Module,
    settings: Settings,
    top_level: frozenset[str] | None = None,
    facts: object = None,
) -> engine.AnalysisResult:
    collector = _Collect(module)
    module.visit(collector)
    return engine.AnalysisResult(findings=collector.findings)


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(engine, "analyse", fake_analyse)


# --- programs built from lines, so the expected fixed text is known -----------------------------

NAMES = st.sampled_from(["x", "h", "out", "é", "μ2", "变量", "_t"])
ATOMS = st.sampled_from(
    ["1", "x", "2.5", "torch.relu(h)", "'é😀'", '"+="', "'\\t'", "[1, 2]", "-h", "(h * 2)"]
)
NEWLINES = st.sampled_from(["\n", "\r\n", "\r"])


@dataclass(frozen=True)
class Line:
    text: str  # the statement, without indentation
    fixed_safe: str  # what the safe fix makes of it (== text when none)
    fixed_unsafe: str  # what the unsafe fixes make of it


@st.composite
def lines(draw) -> Line:
    n, e = draw(NAMES), draw(ATOMS)
    kind = draw(st.integers(0, 7))
    if kind == 0:
        text = f"{n} += {e}"
        return Line(text, f"{n} = {n} + ({e})", f"{n} = {n} + ({e})")
    if kind == 1:
        return Line(f"{n}.add_({e})", f"{n}.add_({e})", f"{n}.add({e})")
    if kind == 2:
        text = f"{n} = {e}  # {n} += {e} in a comment stays"
    elif kind == 3:
        text = f"s = '{n} += 1 in a string stays'"
    elif kind == 4:
        text = f"{n} -= {e}"  # no fix for -=
    elif kind == 5:
        text = f"{n} = {e}    "  # trailing spaces
    elif kind == 6:
        text = "pass"
    else:
        text = f"{n} = f(\n    {e},\n)"  # a continuation line inside brackets
    return Line(text, text, text)


@st.composite
def programs(draw):
    """(source text, expected safe-fixed text, expected unsafe-fixed text)."""
    indent = draw(st.sampled_from(["    ", "\t", "  "]))
    mixed = draw(st.booleans())
    file_newline = draw(NEWLINES)
    body = draw(st.lists(lines(), min_size=1, max_size=12))
    in_block = draw(st.booleans())
    header = "import torch\n"
    out = [[header, header, header]]
    if in_block:
        out.append(["def forward(h, x):\n"] * 3)
    prefix = indent if in_block else ""
    for line in body:
        nl = draw(NEWLINES) if mixed else file_newline
        rows = [
            prefix + t.replace("\n", "\n" + prefix) + "\n"
            for t in (line.text, line.fixed_safe, line.fixed_unsafe)
        ]
        out.append([r.replace("\n", nl) for r in rows])
    if draw(st.booleans()):
        out.append(["# a last line without a newline"] * 3)
    texts = ["".join(part[i] for part in out) for i in range(3)]
    texts = [t.replace("import torch\n", "import torch" + file_newline, 1) for t in texts]
    return tuple(texts)


_ROWS = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _withdrawn(diagnostics) -> bool:
    """The api withdrew a fix whose positions did not hold its node's code (a position bug)."""
    return any(d.code == "IPL903" and "fix's position" in d.message for d in diagnostics)


def assert_fixed(outcome, source: str, expected: str) -> None:
    """Exactly the expected text; where a fix was withdrawn, each row is still either as it was
    or as its fix makes it: never anything else."""
    if not _withdrawn(outcome.remaining):
        assert outcome.text == expected
        return
    rows, before, after = (_ROWS.findall(t) for t in (outcome.text, source, expected))
    assert len(rows) == len(before) == len(after)
    assert all(row in (old, new) for row, old, new in zip(rows, before, after))


def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError:
        return False
    return True


# --- the properties ------------------------------------------------------------------------------


@PROPERTY
@given(programs(), st.booleans())
def test_fix_is_exact_parses_and_settles(stand_in, program, unsafe):
    source, fixed_safe, fixed_unsafe = program
    assume(_parses(source))
    outcome = fix_text(source, "m.py", SETTINGS, unsafe=unsafe)
    expected = fixed_unsafe if unsafe else fixed_safe
    # Only the edited statements changed: every other byte, line ending and indentation is kept.
    assert_fixed(outcome, source, expected)
    assert outcome.error is None
    assert _parses(outcome.text)
    # Settled: a second run changes nothing and has nothing left to apply.
    again = fix_text(outcome.text, "m.py", SETTINGS, unsafe=unsafe)
    assert again.text == outcome.text and again.applied == []
    left = {d.code for d in outcome.remaining if d.fix is not None}
    assert left <= ({"IPL002"} if not unsafe else set())


@PROPERTY
@given(programs(), st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "cp1252"]))
def test_encoding_bom_and_line_endings_round_trip(stand_in, program, encoding):
    source, fixed_safe, _ = program
    assume(_parses(source))
    cookie = "" if encoding.startswith("utf-8") else f"# -*- coding: {encoding} -*-\n"
    text, expected = cookie + source, cookie + fixed_safe
    try:
        raw = text.encode(encoding)
    except UnicodeEncodeError:
        assume(False)
    sf = decode_source(raw, "m.py")
    assert sf.text == text and sf.bom == (encoding == "utf-8-sig")
    assert encode_source(sf, sf.text) == raw  # an untouched file is written back byte for byte
    outcome = fix_text(sf.text, "m.py", SETTINGS, unsafe=False)
    assert_fixed(outcome, text, expected)
    new_raw = encode_source(sf, outcome.text)
    again = decode_source(new_raw, "m.py")
    assert (again.encoding, again.bom, again.text) == (sf.encoding, sf.bom, outcome.text)


@PROPERTY
@given(
    st.text(alphabet=st.sampled_from("ab é😀\t\n\r"), max_size=60),
    st.lists(st.tuples(st.integers(0, 70), st.integers(0, 8), st.text(max_size=5)), max_size=6),
)
def test_apply_edits_touches_only_the_edited_ranges(text, raw_edits):
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def position(offset: int) -> Position:
        row = max(i for i, s in enumerate(starts) if s <= offset)
        return Position(row + 1, offset - starts[row] + 1)

    edits, ranges = [], []
    for start, length, content in raw_edits:
        start = min(start, len(text))
        end = min(start + length, len(text))
        # an edit never splits a CRLF pair: positions cannot point between its two characters
        if any(0 < o < len(text) and text[o - 1 : o + 1] == "\r\n" for o in (start, end)):
            continue
        edits.append(Edit(Span(position(start), position(end)), content))
        ranges.append((start, end, content))
    result = apply_edits(text, edits)
    # Rebuild the expectation from offsets: kept edits are those not overlapping an earlier kept one.
    kept = []
    for start, end, content in ranges:
        clash = any((start == end == s == e) or (start < e and s < end) for s, e, _ in kept)
        if not clash:
            kept.append((start, end, content))
    expected, cursor = [], 0
    for start, end, content in sorted(kept, key=lambda k: (k[0], k[1])):
        expected += [text[cursor:start], content]
        cursor = end
    expected.append(text[cursor:])
    assert result == "".join(expected)


def test_a_fix_that_would_not_parse_is_dropped(monkeypatch):
    def breaking(module, settings, top_level=None, facts=None):
        result = fake_analyse(module, settings)
        for finding in result.findings:
            finding.fix = FixPlan("Break it", [(finding.node, "x = (")])
        return result

    monkeypatch.setattr(engine, "analyse", breaking)
    source = "import torch\nx += 1\n"
    outcome = fix_text(source, "m.py", SETTINGS, unsafe=False)
    assert outcome.text == source and outcome.applied == []
    assert "does not parse" in outcome.error
    assert [d.code for d in outcome.remaining] == ["IPL001"]


def test_a_fix_that_never_settles_is_not_applied(monkeypatch):
    # Each round adds a line the rule flags again: the classic runaway fix.
    def runaway(module, settings, top_level=None, facts=None):
        result = fake_analyse(module, settings)
        for finding in result.findings:
            if finding.code == "IPL001":
                code = module.code_for_node(finding.node)
                finding.fix = FixPlan("Grow", [(finding.node, f"{code}\nx += 1")])
        return result

    monkeypatch.setattr(engine, "analyse", runaway)
    source = "import torch\nx += 1\ny.add_(1)\n"
    outcome = fix_text(source, "m.py", SETTINGS, unsafe=True, max_iterations=4)
    assert outcome.text == "import torch\nx += 1\ny.add(1)\n"  # the other fix still applies
    assert "IPL001" in outcome.error and "did not settle" in outcome.error
    assert fix_text(outcome.text, "m.py", SETTINGS, unsafe=True, max_iterations=4).text == (
        outcome.text
    )


def test_overlapping_fixes_apply_whole_one_per_round(monkeypatch):
    def overlapping(module, settings, top_level=None, facts=None):
        result = fake_analyse(module, settings)
        extra = []
        for finding in result.findings:
            if finding.code == "IPL001":  # a second fix over the same statement, two edits
                node = finding.node
                extra.append(
                    Finding(
                        "IPL002",
                        node,
                        "other",
                        fix=FixPlan("Other", [(node.target, "zz"), (node.value, "0")]),
                    )
                )
        result.findings.extend(extra)
        return result

    monkeypatch.setattr(engine, "analyse", overlapping)
    outcome = fix_text("import torch\nx += 1\n", "m.py", SETTINGS, unsafe=True)
    # Round 1 applies one of the two whole; round 2 finds nothing left to fix either way.
    assert outcome.text in ("import torch\nx = x + (1)\n", "import torch\nzz += 0\n")
    assert outcome.error is None


def test_fixes_skip_rows_indented_with_a_form_feed(stand_in):
    source = "import torch\n\x0cx += 1\ny += 1\n"
    outcome = fix_text(source, "m.py", SETTINGS, unsafe=False)
    assert outcome.text == "import torch\n\x0cx += 1\ny = y + (1)\n"


def test_inserted_lines_take_the_file_line_ending(monkeypatch):
    def inserting(module, settings, top_level=None, facts=None):
        result = fake_analyse(module, settings)
        for finding in result.findings:
            finding.fix = FixPlan("Copy", [(finding.node, "x = x.clone()\nx = x + 1")])
        return result

    monkeypatch.setattr(engine, "analyse", inserting)
    outcome = fix_text("import torch\r\nx += 1\r\n", "m.py", SETTINGS, unsafe=False)
    assert outcome.text == "import torch\r\nx = x.clone()\r\nx = x + 1\r\n"


# --- writes --------------------------------------------------------------------------------------


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=200), st.binary(max_size=200), st.binary(max_size=200))
def test_changed_on_disk_is_never_overwritten(tmp_path, read, on_disk, new):
    path = tmp_path / "m.py"
    path.write_bytes(on_disk)
    if read == on_disk:
        write_atomic(path, new, read)
        assert path.read_bytes() == new
    else:
        with pytest.raises(ChangedOnDisk):
            write_atomic(path, new, read)
        assert path.read_bytes() == on_disk
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(min_size=1, max_size=300), st.binary(max_size=300), st.integers(0, 3))
def test_interrupted_write_leaves_old_bytes_and_no_temp_file(tmp_path, old, new, stage):
    path = tmp_path / "m.py"
    path.write_bytes(old)
    os.chmod(path, 0o640)
    from inplace_lint import sources

    real = {"fsync": os.fsync, "replace": os.replace, "chmod": os.chmod}
    target = ("fsync", "replace", "chmod", "fsync")[stage]

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    setattr(sources.os, target, interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            write_atomic(path, new, old)
    finally:
        for name, function in real.items():
            setattr(sources.os, name, function)
    assert path.read_bytes() == old
    assert oct(path.stat().st_mode & 0o777) == oct(0o640)
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]


def test_read_fix_write_round_trip_keeps_bytes(stand_in, tmp_path):
    raw = codecs.BOM_UTF8 + "import torch\r\nx += 1  # é\r\ny = 2\r\n".encode()
    path = tmp_path / "m.py"
    path.write_bytes(raw)
    sf = read_source(path)
    outcome = fix_text(sf.text, str(path), SETTINGS, unsafe=False)
    write_atomic(path, encode_source(sf, outcome.text), sf.raw)
    assert path.read_bytes() == codecs.BOM_UTF8 + (
        "import torch\r\nx = x + (1)  # é\r\ny = 2\r\n".encode()
    )


def test_positions_after_a_leading_comment_in_a_file_without_final_newline(stand_in):
    source = "# -*- coding: latin-1 -*-\nimport torch\nx += 1\n# no newline at the end"
    outcome = fix_text(source, "m.py", SETTINGS, unsafe=False)
    assert outcome.text == source.replace("x += 1", "x = x + (1)")


def test_a_misplaced_fix_is_withdrawn_not_applied(stand_in, monkeypatch):
    from inplace_lint import api

    real = api.findings_to_diagnostics

    def one_row_off(module, findings, settings):
        out = []
        for diag in real(module, findings, settings):
            if diag.fix is not None:
                edits = tuple(
                    Edit(
                        Span(Position(e.span.start.row - 1, 1), Position(e.span.end.row - 1, 7)),
                        e.content,
                    )
                    for e in diag.fix.edits
                )
                diag = replace(diag, fix=replace(diag.fix, edits=edits))
            out.append(diag)
        return out

    monkeypatch.setattr(api, "findings_to_diagnostics", one_row_off)
    source = "import torch\nx += 1\n"
    outcome = fix_text(source, "m.py", SETTINGS, unsafe=False)
    assert outcome.text == source  # "import" was never replaced by "x = x + (1)"
    assert sorted(d.code for d in outcome.remaining) == ["IPL001", "IPL903"]
