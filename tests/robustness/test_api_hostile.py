"""``lint_source`` on hostile text: every input gives diagnostics, quickly, and never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from inplace_lint.api import lint_source
from inplace_lint.settings import Settings

META = {"IPL901", "IPL902", "IPL903", "IPL904"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A module the analysis has something to say about (sigmoid saves its output; `+=` changes it).
TORCH_BODY = """\
import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x):
        y = torch.sigmoid(x)
        y += 1
        return y
"""


def with_line(line: str) -> str:
    """TORCH_BODY with ``line`` added to ``forward`` just before the finding."""
    return TORCH_BODY.replace("        y += 1", f"        {line}\n        y += 1")


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics]


def findings(text: str, **options) -> list[tuple[str, int, int]]:
    diags = lint_source(text, "t.py", Settings(options=options))
    return [(d.code, d.span.start.row, d.span.start.column) for d in diags]


def timed(text: str, **options):
    start = time.perf_counter()
    diags = lint_source(text, "t.py", Settings(options=options))
    return diags, time.perf_counter() - start


def test_the_reference_body_has_a_finding():
    assert [c for c, _, _ in findings(TORCH_BODY)] == ["IPL001"]


# --- syntax errors: a diagnostic at Python's position -------------------------------------------


@pytest.mark.parametrize(
    ("text", "row", "col", "message"),
    [
        ("x = = 2\n", 1, 5, "invalid syntax"),
        ("éé = 1 1\n", 1, 8, "invalid syntax"),  # columns in code points, not bytes
        ("x = '😀' 1\n", 1, 9, "invalid syntax"),
        ("a = 1\nb = (1,\n  2 3)\n", 3, 3, "forgot a comma"),
        ("def f(:\n    pass\n", 1, 7, "invalid syntax"),
        ("x = (\n", 1, 5, "was never closed"),
        ("if x\n    y\n", 1, 5, "expected ':'"),
        ("\tx = 1\n", 1, 1, "unexpected indent"),
        ("if x:\n\tpass\n        pass\n", 3, 1, "inconsistent use of tabs"),
        ("def f():\n    return\n  x\n", 3, 4, "unindent does not match"),
        ("x = 1\ny = 2\x00\n", 2, 6, "null bytes"),
        ("<html><body>hi</body></html>\n", 1, 1, "invalid syntax"),
        ("# Title\n\nSome *markdown* text.\n", 3, 22, "invalid syntax"),
    ],
)
def test_syntax_error_position(text, row, col, message):
    [diag] = lint_source(text, "t.py")
    assert diag.code == "IPL901"
    assert (diag.span.start.row, diag.span.start.column) == (row, col)
    assert message in diag.message
    assert diag.span.end >= diag.span.start
    assert diag.noqa_row == row


def test_syntax_error_position_with_crlf():
    [diag] = lint_source("a = 1\r\nb = 2\r\nc = = 3\r\n", "t.py")
    assert (diag.code, diag.span.start.row, diag.span.start.column) == ("IPL901", 3, 5)


def test_python2_print_statement():
    [diag] = lint_source("import torch\nprint 'hello'\n", "t.py")
    assert (diag.code, diag.span.start.row) == ("IPL901", 2)
    assert "Missing parentheses" in diag.message


def test_python2_except_comma_does_not_crash():
    text = "try:\n    pass\nexcept Exception, e:\n    pass\n"
    assert not set(codes(lint_source(text, "t.py"))) & {"IPL903", "IPL904"}


def test_python2_file():
    text = "import urllib2\n\nclass A:\n    def f(self):\n        print >>sys.stderr, 'x'\n        exec 'y = 1'\n        raise ValueError, 'bad'\n"
    diags = lint_source(text, "t.py")
    assert codes(diags) == ["IPL901"]


def test_syntax_error_disabled_gives_nothing():
    assert lint_source("x = = 1\n", "t.py", Settings(enabled=frozenset({"IPL001"}))) == []


def test_fstring_error_on_python_before_312_keeps_the_row():
    [diag] = lint_source("a = 1\nx = f'{a a}'\n", "t.py")
    assert (diag.code, diag.span.start.row) == ("IPL901", 2)


# --- text that parses: the same findings whatever the spelling ---------------------------------


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_line_endings_give_the_same_findings(newline):
    assert findings(TORCH_BODY.replace("\n", newline)) == findings(TORCH_BODY)


def test_mixed_line_endings_give_the_same_findings():
    lines = TORCH_BODY.splitlines(keepends=True)
    mixed = "".join(line.replace("\n", ("\r\n", "\n", "\r")[i % 3]) for i, line in enumerate(lines))
    assert findings(mixed) == findings(TORCH_BODY)


def test_tabs_count_as_one_column():
    tabbed = TORCH_BODY.replace("    ", "\t")
    # The finding is on `        y += 1`: 8 spaces become 2 tabs, so its column moves from 9 to 3.
    assert findings(TORCH_BODY) == [("IPL001", 8, 9)]
    assert findings(tabbed) == [("IPL001", 8, 3)]


def test_bom_character_in_text():
    # Text from an editor may keep the BOM; it must not turn into a syntax error or a crash.
    diags = lint_source("\ufeff" + TORCH_BODY, "t.py")
    assert not set(codes(diags)) & {"IPL903", "IPL904"}


def test_form_feed_lines():
    text = TORCH_BODY.replace("\n\n\ndef", "\n\x0c\n\ndef")
    assert findings(text) == findings(TORCH_BODY)


def test_empty_and_blank_files():
    for text in ("", "\n", "\r\n", "   \n\t\n", "# just a comment", "\ufeff"):
        assert lint_source(text, "t.py") == []


def test_non_python_that_happens_to_parse():
    # JSON is a Python expression; a .py that holds data must lint cleanly, not crash.
    assert lint_source('{"a": [1, 2, {"b": null}]}\n', "t.py") == []


@pytest.mark.parametrize(
    "text",
    [
        "\x1b[31mred\x1b[0m\n",
        "\u202e = 1\n",
        "ÿØÿà\x10JFIF\n",
        "#!/bin/sh\necho $HOME\n",
        "x = '\ud800'\n",  # a lone surrogate (can come from an editor buffer)
    ],
)
def test_garbage_text(text):
    diags = lint_source(text, "t.py")
    assert set(codes(diags)) <= {"IPL901"}


def test_pep695_and_nested_fstrings_are_analysed():
    modern = with_line('name = f"{f"{\'a\'}"}"').replace(
        "class Block(nn.Module):", "type Vec = list[float]\n\n\nclass Block[T](nn.Module):"
    )
    assert "class Block[T]" in modern and "type Vec" in modern
    diags = lint_source(modern, "t.py")
    assert codes(diags) == ["IPL001"]


def test_pep695_class_and_bounds():
    text = "import torch\n\n\nclass Box[T: torch.Tensor, *Ts, **P]:\n    def f[S](self, x: S) -> S:\n        return x\n"
    assert not set(codes(lint_source(text, "t.py"))) & META


# --- size and depth: finish or skip quickly ------------------------------------------------------


def test_300k_line_file_is_skipped_quickly():
    text = "".join(f"x{i} = torch.relu(y{i}) + {i}\n" for i in range(300_000))
    diags, seconds = timed(text)
    assert codes(diags) == ["IPL904"]
    assert "max-file-bytes" in diags[0].message
    assert seconds < 2


def test_line_budget():
    text = "x = 1\n" * 40_000  # under the byte budget, over the line budget
    diags, seconds = timed(text)
    assert codes(diags) == ["IPL904"] and "max-file-lines" in diags[0].message
    assert seconds < 2
    assert timed(text, **{"max-file-lines": 50_000})[0] == []


def test_budgets_can_be_turned_off_and_bad_values_fall_back():
    assert findings("x = 1\n" * 10, **{"max-file-lines": 5}) == [("IPL904", 1, 1)]
    assert findings("x = 1\n" * 10, **{"max-file-lines": 0}) == []
    assert findings("x = 1\n" * 10, **{"max-file-lines": "lots"}) == []


def test_200k_element_literal_is_skipped_quickly():
    text = "import torch\nx = [" + ", ".join(str(i) for i in range(200_000)) + "]\n"
    diags, seconds = timed(text)
    assert codes(diags) == ["IPL904"]
    assert seconds < 2


def test_20k_element_literal_in_a_function_is_analysed():
    items = ", ".join(str(i) for i in range(20_000))
    text = with_line(f"table = [{items}]")
    diags, seconds = timed(text)
    assert codes(diags) == ["IPL001"]
    assert seconds < 60


DEEP = 1000


@pytest.mark.parametrize(
    "expression",
    [
        "(" * DEEP + "x" + ")" * DEEP,
        "torch.relu(" * DEEP + "x" + ")" * DEEP,
        "[" * DEEP + "x" + "]" * DEEP,
    ],
    ids=["parens", "calls", "lists"],
)
def test_deep_brackets_are_what_python_says(expression):
    # CPython refuses over 200 nested brackets; libcst would take half a minute to parse 1,000.
    diags, seconds = timed(with_line(f"z = {expression}"))
    assert seconds < 5
    [diag] = diags
    assert diag.code == "IPL901" and "too many nested parentheses" in diag.message
    assert diag.span.start.row == 8


@pytest.mark.parametrize(
    "expression",
    ["x" + ".t()" * DEEP, "x" + "[0]" * DEEP, "x" + ".clone().t()[0]" * (DEEP // 3)],
    ids=["methods", "subscripts", "mixed"],
)
def test_long_trailer_chains_are_skipped_quickly(expression):
    diags, seconds = timed(with_line(f"z = {expression}"))
    assert seconds < 5
    assert codes(diags) == ["IPL904"]


def test_nesting_python_accepts_is_analysed():
    diags, _ = timed(with_line("z = " + "torch.relu(" * 150 + "x" + ")" * 150))
    assert codes(diags) == ["IPL001"]


@pytest.mark.parametrize(
    "expression",
    [
        "x" + " + x" * DEEP,
        "x" + " ** x" * DEEP,  # right-associative
        "lambda: " * DEEP + "x",
        "-" * DEEP + "x",
        "not " * DEEP + "x",
        "x if x else " * DEEP + "x",
        "x" + " < x" * DEEP,
        "x" + " and x" * DEEP,
        "(x)" + " + (x)" * DEEP,
    ],
    ids=["add", "pow", "lambdas", "neg", "not", "ifexp", "compare", "and", "parenthesised"],
)
def test_long_operator_chains_are_skipped_quickly(expression):
    diags, seconds = timed(with_line(f"z = {expression}"))
    assert seconds < 5
    assert codes(diags) == ["IPL904"]
    assert "chaining" in diags[0].message


@pytest.mark.parametrize(
    "expression",
    ["x" + " + x" * 300, "lambda: " * 200 + "x", "not " * 400 + "x", "x" + ".a" * DEEP],
    ids=["add", "lambdas", "not", "attributes"],
)
def test_deep_expressions_within_budget_finish(expression):
    # Deeper than the default recursion limit lets libcst walk: the deep-stack retry, or the time
    # budget, decides; never an internal error, never silently empty.
    diags, seconds = timed(with_line(f"z = {expression}"), **{"max-file-seconds": 20})
    assert seconds < 40
    assert codes(diags) in (["IPL001"], ["IPL904"])


def test_libcst_stack_overflow_input_does_not_kill_the_process():
    # 8,000 chained lambdas overflow libcst's native parser stack (a segfault) if it ever sees them.
    text = with_line("z = " + "lambda: " * 8000 + "x")
    code = (
        f"import sys; sys.path.insert(0, {ROOT!r})\n"
        "from inplace_lint.api import lint_source\n"
        f"print([d.code for d in lint_source({text!r}, 't.py')])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "['IPL904']"


def test_time_budget_interrupts_a_runaway_analysis(monkeypatch):
    from inplace_lint.analysis import engine

    def forever(module, settings, *args, **kwargs):
        while True:
            pass

    monkeypatch.setattr(engine, "analyse", forever)
    diags, seconds = timed(TORCH_BODY, **{"max-file-seconds": 1})
    assert codes(diags) == ["IPL904"] and "max-file-seconds" in diags[0].message
    assert seconds < 10


def test_time_budget_is_not_an_exception_rules_can_swallow(monkeypatch):
    from inplace_lint.rules import all_rules

    def busy(self, analysis):
        try:
            while True:
                pass
        except Exception:  # noqa: BLE001 - a rule's own broad handler must not eat the budget
            return iter(())

    monkeypatch.setattr(all_rules()["IPL102"], "check", busy)
    diags, seconds = timed(TORCH_BODY, **{"max-file-seconds": 1})
    assert codes(diags) == ["IPL904"]
    assert seconds < 10


def test_elif_chain():
    text = "import torch\nif x == 0:\n    y = 0\n" + "".join(
        f"elif x == {i}:\n    y = {i}\n" for i in range(1, 2000)
    )
    diags, seconds = timed(text)
    assert seconds < 60
    assert "IPL903" not in codes(diags)


def test_deep_blocks():
    # CPython stops at 100 levels of indentation; libcst goes on. Neither may crash the run.
    text = (
        "import torch\n" + "".join(" " * i + "if x:\n" for i in range(150)) + " " * 150 + "y = 1\n"
    )
    diags, seconds = timed(text)
    assert seconds < 60
    assert "IPL903" not in codes(diags)


# --- fault isolation -----------------------------------------------------------------------------


def test_a_rule_that_raises_costs_only_itself(monkeypatch):
    from inplace_lint.rules import all_rules

    rule = all_rules()["IPL102"]

    def broken(self, analysis):
        raise KeyError("odd node")

    monkeypatch.setattr(rule, "check", broken)
    diags = lint_source(TORCH_BODY, "model.py")
    assert sorted(codes(diags)) == ["IPL001", "IPL903"]
    [internal] = [d for d in diags if d.code == "IPL903"]
    assert "IPL102" in internal.message and "model.py" in internal.message
    assert "KeyError" in internal.message
    assert "Traceback" in internal.detail and "odd node" in internal.detail


def test_a_rule_that_recurses_forever_costs_only_itself(monkeypatch):
    # A RecursionError first earns the file a retry on a deep stack (the file may just be deep);
    # a rule that recurses out of that one too is a bug in the rule.
    from inplace_lint.rules import all_rules

    def recurse(self, analysis):
        return recurse(self, analysis)

    monkeypatch.setattr(all_rules()["IPL102"], "check", recurse)
    diags, seconds = timed(TORCH_BODY)
    assert sorted(codes(diags)) == ["IPL001", "IPL903"]
    assert "IPL102" in next(d for d in diags if d.code == "IPL903").message
    assert seconds < 30


def test_a_finding_that_cannot_be_placed_costs_only_its_rule(monkeypatch):
    import libcst as cst

    from inplace_lint.analysis import engine
    from inplace_lint.analysis.findings import Finding

    real = engine.analyse

    def with_a_stray_finding(module, settings, top_level=None, facts=None):
        result = real(module, settings)
        stray = Finding("IPL002", cst.Name("not_in_this_tree"), "stray")
        result.findings.append(stray)
        return result

    monkeypatch.setattr(engine, "analyse", with_a_stray_finding)
    diags = lint_source(TORCH_BODY, "model.py")
    assert sorted(codes(diags)) == ["IPL001", "IPL903"]
    assert "IPL002" in next(d for d in diags if d.code == "IPL903").message


@pytest.mark.parametrize(
    ("exc", "code"), [(ValueError("engine bug"), "IPL903"), (RecursionError(), "IPL904")]
)
def test_the_engine_raising(monkeypatch, exc, code):
    from inplace_lint.analysis import engine

    def boom(module, settings, top_level=None, facts=None):
        raise exc

    monkeypatch.setattr(engine, "analyse", boom)
    assert codes(lint_source(TORCH_BODY, "model.py")) == [code]


def test_suppressions_raising_keeps_the_findings(monkeypatch):
    from inplace_lint import suppressions

    def boom(*args, **kwargs):
        raise IndexError("noqa parser")

    monkeypatch.setattr(suppressions, "apply_suppressions", boom)
    diags = lint_source(TORCH_BODY, "model.py")
    assert sorted(codes(diags)) == ["IPL001", "IPL903"]
    assert "suppressions" in next(d for d in diags if d.code == "IPL903").message


def test_libcst_failing_on_valid_python_is_an_internal_error():
    # libcst 1.9 raises TypeError on this valid line (Instagram/LibCST#1061).
    text = "() if 0 else(lambda:())\n"
    compile(text, "t.py", "exec")
    [diag] = lint_source(text, "t.py")
    assert diag.code == "IPL903" and "libcst" in diag.message and diag.detail


def test_libcst_parse_raising_recursion(monkeypatch):
    import libcst as cst

    def boom(source):
        raise RecursionError

    monkeypatch.setattr(cst, "parse_module", boom)
    assert codes(lint_source("x = 1\n", "t.py")) == ["IPL904"]


def test_meta_codes_off_means_silence_not_none():
    settings = Settings(enabled=frozenset({"IPL001"}), options={"max-file-lines": 1})
    assert lint_source("x = 1\ny = 2\n", "t.py", settings) == []
    assert lint_source("() if 0 else(lambda:())\n", "t.py", settings) == []


@pytest.mark.parametrize(
    "source",
    [
        "x = a" + ".t()" * 250 + "\n",
        "x = a" + ".t()" * 199 + "\n",
        "x = a" + "[0]" * 100 + "\ny = b" + "[0]" * 150 + "\n",
        "x = (a" + ".t()" * 300 + ")\r\ny = 1\r\n",
        "s = '" + "." * 900 + "'\n",
        "y = f(" + ", ".join(["a.b.c"] * 300) + ")\n",
    ],
)
def test_trailer_chain_check_only_on_long_lines_is_the_full_search(source):
    from inplace_lint import api

    assert api._has_trailer_chain(source) == bool(api._TRAILER_CHAIN.search(source))
