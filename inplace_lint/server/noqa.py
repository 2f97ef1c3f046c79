"""The "disable for this line" edit: add `# noqa: CODE`, merging with a noqa comment already there.

The comment goes at the end of the line, after any other comment, so that a leading
`# type: ignore` keeps working (mypy reads it only at the start of the comment).
"""

from __future__ import annotations

import io
import re
import tokenize

from inplace_lint.diagnostics import Edit, Position, Span
from inplace_lint.server.positions import split_lines

# flake8's and ruff's form: `# noqa`, `#noqa:X1`, `# NoQA: X1, X2`.
NOQA = re.compile(
    r"#\s*noqa(?P<colon>\s*:\s*)?(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)?",
    re.IGNORECASE,
)


def noqa_edit(line: str, row: int, code: str, comment_start: int | None) -> Edit | None:
    """The edit that makes ``line`` (row ``row``) suppress ``code``, or None if none is needed
    or possible. ``comment_start`` is the index of the line's comment, if it has one."""
    if comment_start is not None:
        match = NOQA.search(line, comment_start)
        if match is not None:
            return _merge(match, row, code)
    body = line.rstrip()
    if body.endswith("\\"):  # a comment would end the continued line
        return None
    separator = "  " if body else ""
    return Edit(
        Span(Position(row, len(body) + 1), Position(row, len(line) + 1)),
        f"{separator}# noqa: {code}",
    )


def _merge(match: re.Match[str], row: int, code: str) -> Edit | None:
    codes = match.group("codes")
    if codes is None:
        if match.group("colon"):  # `# noqa:` with nothing after it
            return Edit(_span(row, match.end("colon"), match.end("colon")), code)
        return None  # a blanket `# noqa` already covers every code
    listed = [c.upper() for c in re.split(r"[\s,]+", codes)]
    if code.upper() in listed:
        return None
    end = match.end("codes")
    return Edit(_span(row, end, end), f", {code}")


def _span(row: int, start: int, end: int) -> Span:
    return Span(Position(row, start + 1), Position(row, end + 1))


def comment_columns(source: str) -> dict[int, int]:
    """Row -> 0-based column of the comment on that row, for every row that has one.

    Uses the tokenizer, so a `#` inside a string is not a comment. On text that does not
    tokenize, falls back to a per-line scan that tracks quotes.
    """
    try:
        return {
            token.start[0]: token.start[1]
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT
        }
    except (tokenize.TokenError, SyntaxError, ValueError):
        found = {}
        for row, line in enumerate(split_lines(source), start=1):
            column = _scan_comment(line)
            if column is not None:
                found[row] = column
        return found


def _scan_comment(line: str) -> int | None:
    quote = None
    index = 0
    while index < len(line):
        char = line[index]
        if quote is None:
            if char == "#":
                return index
            if char in "'\"":
                quote = line[index : index + 3] if line[index : index + 3] == char * 3 else char
                index += len(quote)
                continue
        elif char == "\\":
            index += 2
            continue
        elif line.startswith(quote, index):
            index += len(quote)
            quote = None
            continue
        index += 1
    return None
