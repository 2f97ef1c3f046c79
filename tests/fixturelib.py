"""Read the fixture files under tests/fixtures/ (format: docs/fixtures.md).

Shared by the runtime check (tests/runtime/), the linter check and scripts/fixture_stats.py.
This module never imports torch or paddle: it reads text only.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES_ROOT = REPO_ROOT / "tests" / "fixtures"
RULE_CODES_DOC = REPO_ROOT / "docs" / "rule-codes.md"

FRAMEWORKS = ("torch", "paddle")
HEADER_KEYS = ("fixture", "framework", "outcome", "source")
REQUIRED_HEADER_KEYS = ("fixture", "framework", "outcome")
# File-name prefixes; a file that uses one must declare the matching outcome kind.
PREFIX_KIND = {"err_": "error", "ok_": "ok", "wg_": "wrong_grad"}


@dataclass(frozen=True)
class Family:
    """How one `error <family>` outcome shows itself at runtime."""

    name: str
    framework: str
    exception: str  # name of the exception class (or a base class) the framework raises
    message: str  # regex searched in str(exception)
    check: str  # "fault-frame": raised from the fault line; "version": see docs; "message": only
    codes: frozenset[str]  # the fault line carries at least one of these


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family(
            "version-counter",
            "torch",
            "RuntimeError",
            r"one of the variables needed for gradient computation has been modified by an "
            r"inplace operation",
            "version",
            frozenset({"IPL001", "IPL006"}),
        ),
        Family(
            "leaf",
            "torch",
            "RuntimeError",
            r"^a leaf Variable that requires grad is being used in an in-place operation",
            "fault-frame",
            frozenset({"IPL002"}),
        ),
        Family(
            "view-of-leaf",
            "torch",
            "RuntimeError",
            r"^a view of a leaf Variable that requires grad is being used in an in-place operation",
            "fault-frame",
            frozenset({"IPL003"}),
        ),
        Family(
            "multi-output-view",
            "torch",
            "RuntimeError",
            r"is a view and is being modified inplace\. This view is the output of a function "
            r"that returns multiple views",
            "fault-frame",
            frozenset({"IPL004"}),
        ),
        Family(
            # a custom autograd.Function's forward returned an input as is: its output is a view
            "custom-function-view",
            "torch",
            "RuntimeError",
            r"is a view and is being modified inplace\. This view was created inside a custom "
            r"Function \(or because an input was returned as-is\)",
            "fault-frame",
            frozenset({"IPL004"}),
        ),
        Family(
            # raised where one of the views is used after the write, not at the write; or by
            # backward, when an op saved one of them (IPL001: the saved view was modified)
            "multi-output-view-use",
            "torch",
            "RuntimeError",
            r"is a view and its base or another view of its base has been modified inplace\. "
            r"This view is the output of a function that returns multiple views",
            "message",
            frozenset({"IPL004", "IPL001"}),
        ),
        Family(
            "out=",
            "torch",
            "RuntimeError",
            r"functions with out=\.\.\. arguments don't support automatic differentiation",
            "fault-frame",
            frozenset({"IPL005"}),
        ),
        Family(
            "inference-tensor",
            "torch",
            "RuntimeError",
            r"Inplace update to inference tensor outside InferenceMode",
            "fault-frame",
            frozenset({"IPL007"}),
        ),
        Family(
            "paddle-leaf",
            "paddle",
            "ValueError",
            r"\(InvalidArgument\) Leaf (Var|Tensor) .*can't use inplace strategy",
            "fault-frame",
            frozenset({"IPL011"}),
        ),
        Family(
            # the leaf error raised inside a gradient hook (`lambda g: g.clip_(...)`), which
            # Paddle's backward re-raises wrapped in an OSError, from no line of the fixture
            "paddle-hook-leaf",
            "paddle",
            "OSError",
            r"ValueError: \(InvalidArgument\) Leaf (Var|Tensor) .*can't use inplace strategy",
            "message",
            frozenset({"IPL011"}),
        ),
        Family(
            "paddle-version",
            "paddle",
            "RuntimeError",
            r"\(PermissionDenied\) Tensor .*has been modified by an inplace operation",
            "message",
            frozenset({"IPL012"}),
        ),
        Family(
            "paddle-type",
            "paddle",
            "TypeError",
            r"assignment to parameter .* should be of type Parameter",
            "fault-frame",
            frozenset({"IPL013", "IPL014"}),
        ),
        Family(
            "parameter-type",
            "torch",
            "TypeError",
            r"cannot assign .* as parameter .* \(torch\.nn\.Parameter or None expected\)",
            "fault-frame",
            frozenset({"IPL014"}),
        ),
        Family(
            # `self.weight += delta` on a frozen Parameter with grad on: the in-place add gives
            # it a graph, and `Module.__setattr__` refuses the non-leaf (session 27)
            "non-leaf-parameter",
            "torch",
            "ValueError",
            r"Cannot assign non-leaf Tensor to parameter",
            "fault-frame",
            frozenset({"IPL014"}),
        ),
    )
}


@dataclass(frozen=True)
class Outcome:
    kind: str  # "ok" | "error" | "wrong_grad"
    family: str | None = None  # a FAMILIES key when kind == "error"

    def __str__(self) -> str:
        return f"{self.kind} {self.family}" if self.family else self.kind


@dataclass(frozen=True)
class Fixture:
    path: Path
    framework: str
    outcome: Outcome
    description: str  # the `fixture:` header
    source: str  # the `source:` header (where the pattern comes from), "" when absent
    fault_line: int | None  # 1-based line of `# fault`
    expected: dict[int, set[str]]  # line -> codes the linter must report there
    text: str  # the whole file

    @property
    def name(self) -> str:
        return f"{self.framework}/{self.path.name}"

    @property
    def family(self) -> Family | None:
        return FAMILIES.get(self.outcome.family or "")


class FixtureFormatError(ValueError):
    """A fixture file breaks docs/fixtures.md."""

    def __init__(self, path: Path | str, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {message} (see docs/fixtures.md)")


# Rules that are off by default (fixtures are linted with the default set): the opaque-producer
# half of the risky tier. IPL203, also risky, is on.
OFF_BY_DEFAULT = frozenset({"IPL201", "IPL202"})


@cache
def rule_codes() -> dict[str, str]:
    """Code -> framework column (`torch`, `paddle`, `any` or `-`) from docs/rule-codes.md."""
    rows = re.findall(
        r"^\| (IPL\d{3}) \| [\w-]+ \| (torch|paddle|any|-) \|",
        RULE_CODES_DOC.read_text(),
        re.MULTILINE,
    )
    return dict(rows)


def parse_outcome(value: str) -> Outcome:
    if value in ("ok", "wrong_grad"):
        return Outcome(value)
    kind, _, family = value.partition(" ")
    if kind == "error" and family in FAMILIES:
        return Outcome("error", family)
    known = ["ok", "wrong_grad"] + [f"error {f}" for f in FAMILIES]
    raise ValueError(f"unknown outcome {value!r}; expected one of: {', '.join(known)}")


def _parse_header(path: Path, lines: list[str]) -> dict[str, str]:
    header: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        if not line.startswith("#"):
            break
        match = re.fullmatch(r"# ([a-z_]+): (\S.*?)\s*", line)
        if not match:
            raise FixtureFormatError(path, number, f"header line is not `# key: value`: {line!r}")
        key, value = match.groups()
        if key not in HEADER_KEYS:
            raise FixtureFormatError(
                path, number, f"unknown header key {key!r}; known: {', '.join(HEADER_KEYS)}"
            )
        if key in header:
            raise FixtureFormatError(path, number, f"duplicate header key {key!r}")
        header[key] = value
    for key in REQUIRED_HEADER_KEYS:
        if key not in header:
            raise FixtureFormatError(path, None, f"header lacks `# {key}: ...`")
    return header


MARKER_START = re.compile(r"(fault|expects?)\b", re.IGNORECASE)
EXPECT = re.compile(r"expect:\s*(IPL\d{3}(?:\s*,\s*IPL\d{3})*)")


def _parse_marker_segment(path: Path, line: int, segment: str) -> tuple[bool, set[str]]:
    """One `# fault; expect: A, B` segment -> (is fault, codes)."""
    fault, codes = False, set()
    for part in (p.strip() for p in segment.split(";")):
        if part == "fault" and not fault:
            fault = True
        elif (match := EXPECT.fullmatch(part)) and not codes:
            codes = {c.strip() for c in match.group(1).split(",")}
        else:
            raise FixtureFormatError(
                path,
                line,
                f"bad marker {part!r} in `# {segment}`: want `fault` and/or "
                "`expect: IPL001[, IPL002]`, separated by `;`",
            )
    return fault, codes


def _parse_markers(path: Path, text: str) -> tuple[list[int], dict[int, set[str]]]:
    faults: list[int] = []
    expected: dict[int, set[str]] = {}
    code_on_line: set[int] = set()
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    for tok in tokens:
        if tok.type not in (
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        ):
            code_on_line.update(range(tok.start[0], tok.end[0] + 1))
        if tok.type != tokenize.COMMENT:
            continue
        line = tok.start[0]
        # A comment may hold several `#` segments: `# noqa: IPL001  # expect: IPL900`.
        for segment in (s.strip() for s in tok.string.split("#")):
            if not MARKER_START.match(segment):
                continue
            if line not in code_on_line:
                raise FixtureFormatError(path, line, "markers must trail code on the same line")
            fault, codes = _parse_marker_segment(path, line, segment)
            if fault:
                faults.append(line)
            if codes:
                expected.setdefault(line, set()).update(codes)
    return faults, expected


def _check_codes(path: Path, framework: str, expected: dict[int, set[str]]) -> None:
    known = rule_codes()
    for line, codes in expected.items():
        for code in sorted(codes):
            if code not in known:
                raise FixtureFormatError(path, line, f"{code} is not in docs/rule-codes.md")
            if known[code] not in ("-", "any", framework):
                raise FixtureFormatError(
                    path, line, f"{code} is a {known[code]} rule, this is a {framework} fixture"
                )
            if code in OFF_BY_DEFAULT:
                raise FixtureFormatError(path, line, f"{code} is off by default, so never expected")


def _check_program(path: Path, text: str, outcome: Outcome) -> None:
    try:
        tree = ast.parse(text, str(path))
    except SyntaxError as err:
        raise FixtureFormatError(path, err.lineno, f"syntax error: {err.msg}") from None
    functions = {
        n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    needed = ["main"] + (["buggy", "reference"] if outcome.kind == "wrong_grad" else [])
    for name in needed:
        if name not in functions:
            raise FixtureFormatError(path, None, f"no top-level `def {name}()`")
    last = ast.unparse(tree.body[-1]) if tree.body else ""
    if last.replace("'", '"') != 'if __name__ == "__main__":\n    main()':
        raise FixtureFormatError(path, None, 'must end with `if __name__ == "__main__": main()`')


def _check_faults(path: Path, outcome: Outcome, faults: list[int], expected: dict) -> int | None:
    if outcome.kind == "ok":
        if faults:
            raise FixtureFormatError(path, faults[0], "an `ok` fixture has no `# fault` line")
        return None
    if len(faults) != 1:
        where = ", ".join(map(str, faults)) or "none"
        raise FixtureFormatError(
            path, None, f"an `{outcome}` fixture has exactly one `# fault` line (found: {where})"
        )
    line = faults[0]
    codes = expected.get(line, set())
    if not codes:
        raise FixtureFormatError(path, line, "the `# fault` line needs an `expect: CODE` marker")
    if outcome.kind == "error" and not any(c.startswith("IPL0") for c in codes):
        raise FixtureFormatError(
            path, line, "an `error` fixture's fault line carries an error-tier code (IPL0xx)"
        )
    return line


def load_fixture(path: Path | str) -> Fixture:
    """Parse and validate one fixture file; raise FixtureFormatError on any deviation."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    header = _parse_header(path, text.splitlines())
    framework = header["framework"]
    if framework not in FRAMEWORKS:
        raise FixtureFormatError(path, None, f"unknown framework {framework!r}")
    if path.parent.name in FRAMEWORKS and path.parent.name != framework:
        raise FixtureFormatError(
            path, None, f"framework {framework!r} but file is under {path.parent.name}/"
        )
    try:
        outcome = parse_outcome(header["outcome"])
    except ValueError as err:
        raise FixtureFormatError(path, None, str(err)) from None
    if outcome.family and FAMILIES[outcome.family].framework != framework:
        raise FixtureFormatError(path, None, f"outcome {outcome} is not a {framework} outcome")
    for prefix, kind in PREFIX_KIND.items():
        if path.name.startswith(prefix) and outcome.kind != kind:
            raise FixtureFormatError(path, None, f"a {prefix}* file declares a {kind} outcome")
    _check_program(path, text, outcome)
    faults, expected = _parse_markers(path, text)
    _check_codes(path, framework, expected)
    fault_line = _check_faults(path, outcome, faults, expected)
    return Fixture(
        path=path,
        framework=framework,
        outcome=outcome,
        description=header["fixture"],
        source=header.get("source", ""),
        fault_line=fault_line,
        expected=expected,
        text=text,
    )


def fixture_paths(root: Path | str = FIXTURES_ROOT) -> list[Path]:
    """Every fixture file, sorted: tests/fixtures/<framework>/*.py."""
    root = Path(root)
    return sorted(p for fw in FRAMEWORKS for p in (root / fw).glob("*.py"))


def all_fixtures(root: Path | str = FIXTURES_ROOT) -> list[Fixture]:
    return [load_fixture(p) for p in fixture_paths(root)]
