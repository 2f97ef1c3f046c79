"""libcst's parse of a reduced text, piece by piece, with the pieces a worker has parsed before
taken from a cache.

Transformers' model files repeat one another: a worker that lints them meets the same method,
letter for letter, again and again (``# Copied from``, modular files and the modeling files
generated from them). Measured on transformers 5.23.0's reduced texts, with the two workers'
files dealt as the pool deals them: 21.6% of a worker's piece text is a piece the same worker
parsed before (`bench/parse_repeats.py`).

So a reduced text (``prefilter.Plan.layout`` says where its statements start) is cut into
*pieces*: runs of top-level statements, and, inside a top-level class, the class's header and
runs of its statements. Each piece is parsed alone (a class's statements inside a `class _:`
of the same indentation), or found in the cache by its text, and the module is put together from
the pieces. The result is the tree ``libcst.parse_module`` builds from the whole text: equal
node for node (``deep_equals``) and printing the same code, which `tests/speed/test_piecewise.py`
checks on every fixture and on synthetic texts, and ``bench/parse_repeats.py --verify`` on real
trees. What makes that hold:

* A cut is made only before a statement that starts its row, where the rows between it and the
  statement before are empty or comments at the statement's own indentation, after a row of
  code: libcst gives all of those rows to the next statement (its ``leading_lines``), never to
  the footer of the block before, which a comment at a deeper indentation would join. Anything
  else and the two statements stay in one piece.
* The empty rows a piece starts with are left out of its text (identical methods are preceded by
  different numbers of blank rows in reduced texts) and put back as the ``EmptyLine`` nodes
  libcst makes for them; the comments a top-level piece starts with, which the piece's own parse
  takes for a module header, go to its first statement, where the whole parse puts them.
* Every piece must agree on the module's settings: its default indentation (libcst takes the
  first indentation of the text), no footer but at the end, a trailing newline; texts with a
  carriage return are parsed whole. A piece whose parse does not fit raises, and the whole text
  is parsed as before: the result is libcst's either way.
* A node is never in one module twice: a piece met again in the same module is parsed anew.
  Nodes are shared between the modules of one worker, which is safe because nothing in the
  pipeline changes a node or keys anything on a node beyond one module's analysis.

The cache holds at most ``_CACHE_CHARS`` characters of piece text (least recently used out).
"""

from __future__ import annotations

import re

import libcst as cst

from inplace_lint import fastcst

# One piece of text: (its text, whether it is a class's statements, parsed inside `class _:`).
_CACHE: dict[tuple[str, bool], object] = {}
_CACHE_CHARS = 4_000_000
_cached_chars = 0
# (the text, its layout, its writers, the text it was reduced from): what the next parse and
# analysis of that text may use
_HINT: tuple[str, tuple, frozenset[str] | None, str | None] | None = None
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")
_BIG_ROWS = 3
_WRAPPER = "class _:\n"


class _Misfit(Exception):
    """A piece's parse does not fit the module: parse the whole text instead."""


def hint(
    text: str, layout: tuple, writers: frozenset[str] | None = None, original: str | None = None
) -> None:
    """What the prefilter knows of ``text``, for ``parse_module`` and ``hinted`` called next
    with that very string: where its statements start, the functions and methods that may
    write (``prefilter.Plan.writers``), and the full text it was reduced from."""
    global _HINT
    _HINT = (text, layout, writers, original)


def hinted(text: str) -> tuple[frozenset[str] | None, str]:
    """The writers ``hint`` gave for this very string (None: unknown, analyse everything) and
    the full text it was reduced from (``text`` itself when none was given); the hint is used
    up."""
    global _HINT
    given, _HINT = _HINT, None
    if given is None or given[0] is not text:
        return None, text
    return given[2], given[3] if given[3] is not None else text


def parse_module(text: str):
    """``libcst.parse_module(text)``: by pieces when ``hint`` gave this text's layout."""
    given = _HINT
    if given is not None and given[0] is text and given[1] and "\r" not in text:
        try:
            return _assemble(text, given[1])
        except Exception:  # noqa: BLE001, S110 - parsed whole below: libcst's result or error
            pass
    return fastcst.parse_module(text)


def _assemble(text: str, layout: tuple):
    lines = _LINE.findall(text)
    used: set[tuple[str, bool]] = set()
    settings: dict[str, object] = {}
    pieces = _top_pieces(lines, layout)
    body: list = []
    header: tuple = ()
    footer: tuple = ()
    trailing = True
    for index, (first, last, class_body) in enumerate(pieces):
        is_first = index == 0
        is_last = index == len(pieces) - 1
        if class_body is None:
            module = _parse_piece(lines, first, last, False, is_first, used, settings)
            stmts = list(module.body)
            if is_first:
                header = module.header
            else:
                stmts[0] = _lead_in(stmts[0], module.header, lines, first)
            if is_last:
                footer, trailing = module.footer, module.has_trailing_newline
            elif module.footer:
                raise _Misfit
        else:
            stmt, mod_footer, trailing_here = _class(
                lines, first, last, class_body, is_first, is_last, used, settings
            )
            if is_first:
                header, stmt = stmt
            stmts = [stmt]
            if is_last:
                footer, trailing = mod_footer, trailing_here
        body.extend(stmts)
    indent = settings.get("indent", "    ")
    return cst.Module(
        body=body,
        header=header,
        footer=footer,
        encoding=settings.get("encoding", "utf-8"),
        default_indent=indent,
        default_newline="\n",
        has_trailing_newline=trailing,
    )


def _class(lines, first, last, starts, is_first, is_last, used, settings):
    """A top-level class put together from its header and the runs of its body."""
    body_pieces = _pieces(lines, starts, last)
    if not body_pieces or body_pieces[0][0] <= first:
        raise _Misfit
    opening = body_pieces[0][2][0]
    if dict(starts).get(opening) is not True or _leading_start(lines, opening) is None:
        raise _Misfit  # the class's first statement must be cut off its header safely
    head_last = body_pieces[0][0] - 1
    indent = _indentation(lines[_first_code(lines, body_pieces[0][0], body_pieces[0][1])])
    head = _parse_piece(
        lines, first, head_last, False, is_first, used, settings, placeholder=indent + "pass\n"
    )
    if len(head.body) != 1 or type(head.body[0]) is not cst.ClassDef:
        raise _Misfit
    cls = head.body[0]
    block = cls.body
    if type(block) is not cst.IndentedBlock or len(block.body) != 1 or block.footer:
        raise _Misfit
    stmts: list = []
    block_footer: tuple = ()
    mod_footer: tuple = ()
    trailing = True
    for index, (p_first, p_last, _) in enumerate(body_pieces):
        wrapper = _parse_piece(lines, p_first, p_last, True, False, used, settings)
        inner = wrapper.body[0].body
        found = list(inner.body)
        found[0] = _with_blanks(found[0], _blank_rows(lines, p_first), True)
        stmts.extend(found)
        if index == len(body_pieces) - 1:
            block_footer = inner.footer
            mod_footer, trailing = wrapper.footer, wrapper.has_trailing_newline
            if not is_last and mod_footer:
                raise _Misfit
        elif inner.footer or wrapper.footer:
            raise _Misfit
    cls = cls.with_changes(body=block.with_changes(body=stmts, footer=block_footer))
    if is_first:
        return (head.header, cls), mod_footer, trailing
    return _lead_in(cls, head.header, lines, first), mod_footer, trailing


def _lead_in(stmt, header: tuple, lines: list[str], first: int):
    """The first statement of a top-level piece other than the first, with what the whole parse
    gives it: the piece's empty rows, then the comments its own parse took for a header."""
    if header:
        stmt = _with_leading(stmt, (*header, *stmt.leading_lines))
    return _with_blanks(stmt, _blank_rows(lines, first), False)


def _top_pieces(lines: list[str], layout: tuple) -> list[tuple[int, int, tuple | None]]:
    """(first row, last row, the class body's starts or None) of each top-level piece."""
    starts = [(row, alone) for row, alone, _ in layout]
    bodies = {row: body for row, _, body in layout if body is not None}
    pieces = _pieces(lines, starts, len(lines) - 1)
    if not pieces:
        raise _Misfit
    result = []
    for index, (first, last, statements) in enumerate(pieces):
        body = bodies.get(statements[0]) if len(statements) == 1 else None
        if body is not None and not any(
            statements[0] < row <= last and lines[row].strip() for row, _ in body
        ):
            body = None  # stubbed (`class A: pass`): no body to cut
        if index == 0:
            first = 0
        result.append((first, last, body))
    return result


def _pieces(lines, starts, end):
    """Cut rows ``..end`` at the statements of ``starts`` (row, starts its row) where a cut is
    safe (module docstring); small statements go together. Returns (first row, last row, rows
    of the statements) of each piece, the first row being where its leading rows begin."""
    rows = []
    seen = set()
    for row, alone in starts:
        if row in seen or row > end or not lines[row].strip():
            continue  # on another statement's row, or blanked away by the prefilter
        seen.add(row)
        rows.append((row, alone))
    if not rows:
        return []
    pieces: list[list] = []
    for index, (row, alone) in enumerate(rows):
        following = rows[index + 1][0] if index + 1 < len(rows) else end + 1
        big = _code_rows(lines, row, following) >= _BIG_ROWS
        lead = _leading_start(lines, row) if alone else None
        if pieces and lead is not None and (big or pieces[-1][3]):
            pieces.append([lead, None, [row], big])
        elif pieces:
            pieces[-1][2].append(row)
            pieces[-1][3] = pieces[-1][3] or big
        else:
            pieces.append([lead if lead is not None else row, None, [row], big])
    for index, piece in enumerate(pieces):
        piece[1] = pieces[index + 1][0] - 1 if index + 1 < len(pieces) else end
    return [(first, last, statements) for first, last, statements, _ in pieces]


def _leading_start(lines: list[str], row: int) -> int | None:
    """The first of the rows before ``row`` that are empty or comments at its indentation, when a
    row of code comes before them (or nothing); None when a comment at another indentation
    does (it may close the block before: no cut)."""
    indent = _indentation(lines[row])
    current = row
    while current > 0:
        text = lines[current - 1]
        if text == "\n" or text.startswith(indent + "#"):
            current -= 1
            continue
        if text.lstrip().startswith("#") or not text.strip():
            return None
        return current
    return current


def _code_rows(lines: list[str], row: int, following: int) -> int:
    return sum(1 for r in range(row, following) if lines[r] != "\n")


def _first_code(lines: list[str], first: int, last: int) -> int:
    for row in range(first, last + 1):
        stripped = lines[row].strip()
        if stripped and not stripped.startswith("#"):
            return row
    raise _Misfit


def _blank_rows(lines: list[str], first: int) -> int:
    count = 0
    while first + count < len(lines) and lines[first + count] == "\n":
        count += 1
    return count


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def _parse_piece(lines, first, last, in_class, is_first, used, settings, placeholder=""):
    """The parse of rows ``first..last`` (without their leading empty rows, but in the first
    piece), from the cache when this worker parsed the same text before."""
    global _cached_chars
    start = first
    if not is_first:
        start += _blank_rows(lines, first)
    text = "".join(lines[start : last + 1]) + placeholder
    if in_class:
        text = _WRAPPER + text
    key = (text, in_class)
    module = _CACHE.get(key) if key not in used else None
    if module is None:
        module = fastcst.parse_module(text)
        if key not in used:
            _CACHE[key] = module
            _cached_chars += len(text)
            while _cached_chars > _CACHE_CHARS and _CACHE:
                old = next(iter(_CACHE))
                _cached_chars -= len(old[0])
                del _CACHE[old]
    else:
        _CACHE[key] = _CACHE.pop(key)  # most recently used last
    used.add(key)
    if in_class:
        if len(module.body) != 1 or module.header:
            raise _Misfit
        wrapped = module.body[0]
        if type(wrapped) is not cst.ClassDef or type(wrapped.body) is not cst.IndentedBlock:
            raise _Misfit
    _agree(settings, "indent", module.default_indent)
    if is_first:
        settings["encoding"] = module.encoding
    if module.default_newline != "\n" or not module.body:
        raise _Misfit
    if last < len(lines) - 1 and not module.has_trailing_newline:
        raise _Misfit
    return module


def _agree(settings: dict, key: str, value: object) -> None:
    if settings.setdefault(key, value) != value:
        raise _Misfit


_BLANKS: dict[tuple[int, bool], tuple] = {}


def _with_blanks(stmt, count: int, in_class: bool):
    """``stmt`` with ``count`` empty rows before its leading lines, as libcst parses them."""
    if not count:
        return stmt
    return _with_leading(stmt, (*_blank_lines(count, in_class), *stmt.leading_lines))


def _blank_lines(count: int, in_class: bool) -> tuple:
    found = _BLANKS.get((count, in_class))
    if found is None:
        if in_class:
            text = "class _:\n    pass\n" + "\n" * count + "    pass\n"
            module = cst.parse_module(text)
            found = module.body[0].body.body[1].leading_lines
        else:
            module = cst.parse_module("pass\n" + "\n" * count + "pass\n")
            found = module.body[1].leading_lines
        if len(found) != count:
            raise _Misfit
        _BLANKS[(count, in_class)] = found
    return found


def _with_leading(stmt, leading: tuple):
    return stmt.with_changes(leading_lines=leading)


def clear() -> None:
    """Forget every piece (tests)."""
    global _cached_chars
    _CACHE.clear()
    _cached_chars = 0
