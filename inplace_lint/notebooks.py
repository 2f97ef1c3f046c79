"""Jupyter notebooks: the code cells as one program, and the fixed program back into the cells.

The program is the code cells in order, each preceded by a marker comment line (a comment
changes no meaning). The markers let fixed text be split back into the same cells even when a
fix changed the number of lines; outputs, metadata and every other cell are kept as they were.
IPython magics (`%time x`, `!pip ...`) become `pass` lines with the magic in a comment, so the row
count and the indentation stay, and are restored on the way back. Cells that start with a cell
magic (`%%bash`, ...) are not Python and are left out. A cell whose first line is indented runs
in IPython, which removes that indent from the cell's lines first: its marker line is then
`if True:  # %% inplace-lint: cell N`, which makes the indented lines a block with the same
meaning and keeps every row and column where it is in the cell.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any

from inplace_lint.results import CellMap

MARKER = "# %% inplace-lint: cell {n}"
INDENTED_MARKER = "if True:  " + MARKER  # before a cell whose code starts indented (above)
_MARKER_LINE = re.compile(
    r"^(?:if True:  )?# %% inplace-lint: cell (\d+)[ \t]*(?:\r\n|\r|\n|\Z)", re.MULTILINE
)
_LEADING_INDENT = re.compile(r"[ \t]+")
_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?P<magic>(?:[%!?]|[\w.]+[ \t]*=[ \t]*[%!]).*)$")
_MAGIC_PLACEHOLDER = re.compile(
    r"^(?P<indent>[ \t]*)pass  # inplace-lint magic (?P<index>\d+)$", re.MULTILINE
)
_RAW = "\x00"  # a magic's continuation line, restored as it was (its indent is its own)


class NotebookError(Exception):
    """The file is not a notebook we can lint (not JSON, no cells list, ...)."""


@dataclass
class Notebook:
    data: dict[str, Any]
    cells: list[int]  # indices into data["cells"] of the code cells in the program, in order
    program: str
    cell_map: CellMap
    magics: list[str] = field(default_factory=list)  # original magic lines, by placeholder index
    indent: int | None = 1
    ensure_ascii: bool = False
    trailing_newline: bool = True


def read_notebook(text: str) -> Notebook:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not valid notebook JSON: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a notebook: no `cells` list at the top level")
    if _language(data) not in (None, "python"):
        raise NotebookError(f"not a Python notebook (language {_language(data)!r})")
    notebook = Notebook(data, [], "", CellMap(), **_json_style(text))
    parts: list[str] = []
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _cell_text(cell, index)
        if source.lstrip().startswith("%%"):
            continue
        number = index + 1
        notebook.cells.append(index)
        body = _mask_magics(source, notebook.magics)
        if body and not body.endswith(("\n", "\r")):
            body += "\n"
        marker = INDENTED_MARKER if _starts_indented(body) else MARKER
        parts.append(marker.format(n=number) + "\n" + body)
        rows = body.count("\n") if body else 0
        notebook.cell_map.rows.append((number, 1))  # the marker row: reported as the cell's start
        notebook.cell_map.rows.extend((number, r) for r in range(1, rows + 1))
    notebook.program = "".join(parts)
    notebook.cell_map.file_lines = _file_lines(text)
    return notebook


def write_notebook(notebook: Notebook, program: str) -> str:
    """The notebook's JSON text with ``program`` (a fixed version of ``notebook.program``) put
    back into its cells. Raises ``NotebookError`` if the cells can no longer be told apart."""
    pieces = _MARKER_LINE.split(program)
    # pieces: [before first marker, n1, body1, n2, body2, ...]
    numbers = [int(n) for n in pieces[1::2]]
    if pieces[0].strip() or numbers != [i + 1 for i in notebook.cells]:
        raise NotebookError("the fixed program no longer has its cell boundaries; not written")
    data = json.loads(json.dumps(notebook.data))  # a copy, so the notebook stays as read
    for index, body in zip(notebook.cells, pieces[2::2]):
        cell = data["cells"][index]
        original = _cell_text(cell, index)
        new = _unmask_magics(body, notebook.magics)
        if not original.endswith(("\n", "\r")) and new.endswith("\n"):
            new = new[:-1]
        if new != original:
            cell["source"] = (
                new.splitlines(keepends=True) if isinstance(cell["source"], list) else new
            )
    text = json.dumps(data, indent=notebook.indent, ensure_ascii=notebook.ensure_ascii)
    return text + ("\n" if notebook.trailing_newline else "")


def _starts_indented(body: str) -> bool:
    """IPython removes the indent of a cell's first line from every line that starts with it
    (``leading_indent``). Such a cell is a block here when its first line of code starts with
    that indent (a cell starting with an indented comment over unindented code is left alone)."""
    indent = _LEADING_INDENT.match(body)
    if indent is None:
        return False
    for line in body.splitlines():
        code = line.strip()
        if code and not code.startswith("#"):
            return line.startswith(indent.group(0))
    return False


def _language(data: dict[str, Any]) -> str | None:
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return None
    info = metadata.get("language_info")
    name = info.get("name") if isinstance(info, dict) else None
    kernel = metadata.get("kernelspec")
    spoken = kernel.get("language") if isinstance(kernel, dict) else None
    if name is None or (
        # Meta's Bento writes `language_info.name: "plaintext"` beside a Python kernel
        isinstance(name, str) and name.lower() == "plaintext" and isinstance(spoken, str)
    ):
        name = spoken
    return name.lower() if isinstance(name, str) else None


def _cell_text(cell: dict[str, Any], index: int) -> str:
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    if isinstance(source, str):
        return source
    raise NotebookError(f"cell {index + 1}: `source` is neither a string nor a list of strings")


def _mask_magics(source: str, magics: list[str]) -> str:
    if not any(ch in source for ch in "%!?") and _AUTOMAGIC_HEAD.search(source) is None:
        return source
    out = []
    continued: str | None = None  # the indent of a magic whose last line ended with `\`
    python = _LogicalLines()  # where the Python lines leave brackets, strings, continuations
    for line in source.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        # IPython looks for magics only where a logical line starts: `% x)` inside an open
        # bracket is a modulo (PaddleQuantum's `print("...%.4f" \n % loss)`)
        match = None
        if continued is None and python.at_start():
            match = _MAGIC.match(body) or _automagic(body)
        if continued is not None or (match and not body.lstrip().startswith("#")):
            # `!cmd \` goes on in the next line, whatever its indent (IPython joins them)
            indent = match.group("indent") if match else continued
            magics.append(match.group("magic") if match else _RAW + body)
            continued = indent if body.endswith("\\") else None
            body = f"{indent}pass  # inplace-lint magic {len(magics) - 1}"
        else:
            python.feed(body)
        out.append(body + line[len(line.rstrip("\r\n")) :])
    return "".join(out)


# IPython's automagic runs `pip install x` as `%pip install x` (and the like) when the line is
# no Python: such a line at the start of a logical line, that does not compile alone, is a magic.
_AUTOMAGICS = (
    "pip",
    "conda",
    "cd",
    "ls",
    "pwd",
    "cat",
    "mkdir",
    "rm",
    "cp",
    "mv",
    "load_ext",
    "reload_ext",
    "matplotlib",
    "autoreload",
    "env",
    "time",
    "timeit",
    "run",
    "who",
    "whos",
    "reset",
    "history",
)
_AUTOMAGIC_HEAD = re.compile(r"(?m)^[ \t]*(?:" + "|".join(_AUTOMAGICS) + r")[ \t]")
_AUTOMAGIC = re.compile(r"^(?P<indent>[ \t]*)(?P<magic>(?:" + "|".join(_AUTOMAGICS) + r")[ \t].*)$")


def _automagic(body: str) -> re.Match[str] | None:
    match = _AUTOMAGIC.match(body)
    if match is None:
        return None
    try:
        compile(match.group("magic"), "<cell>", "exec")
    except (SyntaxError, ValueError):
        return match
    return None  # valid Python (`time = 3`, `ls - la`): Python wins, as in IPython


class _LogicalLines:
    """Whether the next line starts a logical line: no bracket, string or `\\` continuation is
    open after the Python lines fed so far (a light scanner, for telling magics apart)."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote: str | None = None  # an open triple-quoted string's delimiter
        self.backslash = False

    def at_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.backslash

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        self.backslash = False
        while i < n:
            if self.quote is not None:
                end = line.find(self.quote, i)
                while end > 0 and _escaped(line, end):
                    end = line.find(self.quote, end + 1)
                if end < 0:
                    return
                i, self.quote = end + 3, None
                continue
            ch = line[i]
            if ch == "#":
                return
            if ch in "\"'":
                if line.startswith(ch * 3, i):
                    self.quote, i = ch * 3, i + 3
                    continue
                end = i + 1
                while end < n and (line[end] != ch or _escaped(line, end)):
                    end += 1
                i = end + 1
                continue
            if ch in "([{":
                self.depth += 1
            elif ch in ")]}":
                self.depth = max(self.depth - 1, 0)
            elif ch == "\\" and i == n - 1:
                self.backslash = True
            i += 1


def _escaped(line: str, index: int) -> bool:
    """An odd number of backslashes right before ``index``."""
    count = 0
    while index - count - 1 >= 0 and line[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _unmask_magics(body: str, magics: list[str]) -> str:
    if not magics:
        return body

    def restore(match: re.Match[str]) -> str:
        magic = magics[int(match.group("index"))]
        return magic[1:] if magic.startswith(_RAW) else match.group("indent") + magic

    return _MAGIC_PLACEHOLDER.sub(restore, body)


def _json_style(text: str) -> dict[str, Any]:
    match = re.search(r"\n( +)\S", text)
    return {
        "indent": len(match.group(1)) if match else None,
        "ensure_ascii": text.isascii() and "\\u" in text,
        "trailing_newline": text.endswith("\n"),
    }


def _file_lines(text: str) -> dict[int, list[int]]:
    """For each cell (1-based), the file line of each row of its source.

    A light walk over the JSON text: only `cells[i].source` is looked at; every other value is
    skipped with the standard decoder. A source given as one string sits on one line.
    """
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(offset: int) -> int:
        return bisect_right(newlines, offset - 1) + 1

    decoder = json.JSONDecoder()
    out: dict[int, list[int]] = {}
    try:
        for key, start in _members(text, _skip_ws(text, 0), decoder):
            if key != "cells":
                continue
            for number, cell_start in enumerate(_elements(text, start, decoder), start=1):
                for cell_key, value_start in _members(text, cell_start, decoder):
                    if cell_key != "source":
                        continue
                    if text[value_start] == "[":
                        rows = []
                        for element in _elements(text, value_start, decoder):
                            value, _ = decoder.raw_decode(text, element)
                            line = line_of(element)
                            rows.extend([line] * max(value.count("\n") or 1, 1))
                    else:
                        value, _ = decoder.raw_decode(text, value_start)
                        rows = [line_of(value_start)] * (value.count("\n") + 1)
                    out[number] = rows
    except (ValueError, IndexError, AttributeError):
        return {}
    return out


def _skip_ws(text: str, i: int) -> int:
    while text[i] in " \t\r\n":
        i += 1
    return i


def _members(text: str, i: int, decoder: json.JSONDecoder):
    """(key, value start) of an object starting at ``i``."""
    if text[i] != "{":
        raise ValueError("not an object")
    i = _skip_ws(text, i + 1)
    if text[i] == "}":
        return
    while True:
        key, i = decoder.raw_decode(text, i)
        i = _skip_ws(text, i)
        i = _skip_ws(text, i + 1)  # the colon
        yield key, i
        _, i = decoder.raw_decode(text, i)
        i = _skip_ws(text, i)
        if text[i] == "}":
            return
        i = _skip_ws(text, i + 1)  # the comma


def _elements(text: str, i: int, decoder: json.JSONDecoder):
    """Start offsets of the elements of an array starting at ``i``."""
    if text[i] != "[":
        raise ValueError("not an array")
    i = _skip_ws(text, i + 1)
    if text[i] == "]":
        return
    while True:
        yield i
        _, i = decoder.raw_decode(text, i)
        i = _skip_ws(text, i)
        if text[i] == "]":
            return
        i = _skip_ws(text, i + 1)
