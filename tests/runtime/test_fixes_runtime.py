"""The rewrites are honest: each error (and wrong-gradient) fixture, fixed with every rule's
fixes, unsafe ones included (`--select ALL --fix --unsafe-fixes`), and run under its framework.

* The fixes settle (fixing the result again changes nothing) and produce code that parses.
* A fixed program raises no error of the rewrite's own making (a NameError, a namedtuple's
  AttributeError, a list without `.clone()`): at most autograd's in-place errors, at writes the
  fixes left alone.
* When no diagnostic is left after fixing, the program runs clean, except the programs listed in
  STILL_RAISING (writes the linter misses; each entry is checked to still raise, so a gap closed
  must be removed from the list).

(A rewrite that runs but drops what a write was for, such as `spec = spec.mul(spec)` in a helper
that returns nothing, is not offered: tests/test_rules.py covers those cases.)
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fixturelib import FIXTURES_ROOT, fixture_paths, load_fixture

from inplace_lint.fixes import fix_text
from inplace_lint.rules import all_rules
from inplace_lint.settings import Settings

PATHS = [p for p in fixture_paths() if p.name.startswith(("err_", "wg_"))]
EVERY_RULE = Settings(enabled=frozenset(all_rules()))

# autograd's own in-place errors (torch and Paddle): what a write left unfixed may still raise
INPLACE_ERRORS = re.compile(
    r"modified by an inplace operation|leaf Variable that requires grad|is a view and is being "
    r"modified inplace|view of a leaf Variable|can't use inplace strategy|inplace operation",
)

# fixed programs that still raise with no diagnostic left: a write the linter does not report
STILL_RAISING = {
    "err_seq2seq_leaf_buffer_kept_on_cpu_path_slice_written": (
        "a second leaf, `dec_s[0][i] = torch.zeros(..., requires_grad=True)` in a nested list, "
        "written through `dec_s[0][1][i, :] = ...`: not reported (fix44)"
    ),
}

# fixed programs whose own code raises next (not the rewrite): the error expected, and why
RAISES_NEXT = {
    "err_sinusoidal_table_written_into_embedding_weight_by_helper": (
        "does not require grad and does not have a grad_fn",
        (
            "with both writes under no_grad the helper goes on to freeze the table, as XLM "
            "means it to; the fixture's model has no other parameter for its backward"
        ),
    ),
}


@pytest.mark.parametrize("path", PATHS, ids=[str(p.relative_to(FIXTURES_ROOT)) for p in PATHS])
def test_fixed_fixture(path: Path, runner_pool, tmp_path: Path) -> None:
    fx = load_fixture(path)
    text = path.read_text(encoding="utf-8")
    outcome = fix_text(text, str(path), EVERY_RULE, unsafe=True)
    assert outcome.error is None, outcome.error
    again = fix_text(outcome.text, str(path), EVERY_RULE, unsafe=True)
    assert again.text == outcome.text, "fixing the fixed text changed it again"
    if outcome.text == text:
        assert path.stem not in STILL_RAISING, "no fix applies: remove it from STILL_RAISING"
        return  # nothing to run: no fix was offered
    if importlib.util.find_spec(fx.framework) is None:
        pytest.skip(f"{fx.framework} is not installed")
    fixed = tmp_path / fx.framework / path.name
    fixed.parent.mkdir()
    fixed.write_text(outcome.text, encoding="utf-8")
    verdict = runner_pool.run(fixed, fx.framework)
    exc = verdict.get("exception")
    remaining = [f"{d.span.start.row}: {d.code}" for d in outcome.remaining]
    if path.stem in RAISES_NEXT:
        assert exc is not None, "it runs clean now: remove it from RAISES_NEXT"
        assert RAISES_NEXT[path.stem][0] in exc["message"], exc["traceback"]
        return
    if exc is not None:
        assert INPLACE_ERRORS.search(exc["message"]), (
            f"the fixed program raises an error of the rewrite's own:\n{exc['traceback']}"
        )
    if path.stem in STILL_RAISING:
        assert exc is not None, "it runs clean now: remove it from STILL_RAISING"
    elif not remaining:
        assert exc is None, (
            f"no diagnostic is left, but the fixed program raises:\n{exc['traceback']}"
        )
