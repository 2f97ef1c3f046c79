"""The nesting check's scans (api._depth_and_chain) are written for speed: they must find what
the plain spellings find, on real code and on text made of the characters that matter."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from inplace_lint import api

ROOT = Path(__file__).resolve().parents[2]

# The plain spelling: a lazy match to the first closing quotes, one character at a time inside
# a one-row string.
PLAIN_NOT_CODE = re.compile(
    r"""[rRbBuUfF]{0,2}(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
    r"|\#[^\n]*|\\(?:\r\n|\r|\n)"
)


def plain_depth_and_chain(source: str) -> tuple[int, int]:
    code = PLAIN_NOT_CODE.sub(" ", source)
    deltas = (api._BRACKET_DELTA[b] for b in api._BRACKETS.findall(code))
    deepest = max(itertools.accumulate(deltas), default=0)
    candidates = [
        part
        for part in api._SEPARATORS.split(code)
        if len(part) > api.MAX_OPERATOR_CHAIN
        and len(api._OPERATOR.findall(part)) > api.MAX_OPERATOR_CHAIN
    ]
    return deepest, max((api._longest_run(part) for part in candidates), default=0)


def _texts() -> list[str]:
    files = sorted((ROOT / "inplace_lint").rglob("*.py")) + sorted(
        (ROOT / "tests" / "fixtures").rglob("*.py")
    )
    return [f.read_text(encoding="utf-8") for f in files]


def test_strings_and_comments_blanked_as_the_plain_spelling_on_real_code():
    texts = _texts()
    assert len(texts) > 500
    for text in texts:
        assert api._NOT_CODE.sub(" ", text) == PLAIN_NOT_CODE.sub(" ", text)


def test_same_depth_and_chain_on_real_code():
    for text in _texts():
        assert api._depth_and_chain(text) == plain_depth_and_chain(text)


def test_a_long_chain_is_still_found():
    chain = "x = " + " + ".join(["a"] * (api.MAX_OPERATOR_CHAIN + 5)) + "\n"
    for text in (chain, "f(1, 2); " + chain, 'y = "a,b;c"\n' + chain, "d = {1: 2}\n" + chain):
        depth, longest = api._depth_and_chain(text)
        assert longest > api.MAX_OPERATOR_CHAIN
        assert (depth, longest) == plain_depth_and_chain(text)
    # separators cut the run: commas, semicolons and a lone `=`, not `==` or `<=`
    cut = "x = " + ", ".join(" + ".join(["a"] * 300) for _ in range(3)) + "\n"
    assert api._depth_and_chain(cut)[1] <= api.MAX_OPERATOR_CHAIN
    kept = "x = " + " == ".join(" + ".join(["a"] * 300) for _ in range(3)) + "\n"
    assert api._depth_and_chain(kept)[1] > api.MAX_OPERATOR_CHAIN


TRICKY = st.text(alphabet="\"'\\\n#rbuf ,;=<+()[]{}a", max_size=80)


@settings(max_examples=3000, deadline=None)
@given(TRICKY)
def test_blanking_matches_the_plain_spelling_on_quotes_escapes_and_prefixes(text):
    assert api._NOT_CODE.sub(" ", text) == PLAIN_NOT_CODE.sub(" ", text)


@settings(max_examples=300, deadline=None)
@given(st.lists(TRICKY, min_size=1, max_size=40), st.integers(0, 3))
def test_depth_and_chain_match_the_plain_spelling(parts, glue):
    # long operator runs between the tricky parts, so that the chain scan has work to do
    run = " + ".join(["a"] * (api.MAX_OPERATOR_CHAIN // 4))
    text = ("\n", ",", ";", " = ")[glue].join(part + run for part in parts)
    assert api._depth_and_chain(text) == plain_depth_and_chain(text)
